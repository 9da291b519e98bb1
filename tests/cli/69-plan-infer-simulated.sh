#!/bin/bash
# plan --task infer --engine: replicas sized by the serving simulation.  On
# H100 servers Llama 3 70B at 50 requests/s within a 1 s TTFT takes no more
# than twice the 80 GPUs (10 x 8) estimate's continuous-batching queue needs,
# with no scale-out fabric between independent replicas; that is the default
# without --engine, and --engine static keeps the static-batch model.
. "$TESTS/cli/lib.sh"

expect_rc 0 plan llama3-70b --task infer --rate 50 --ttft-target 1s --engine vllm --gpu h100-sxm5-80gb --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
r = json.load(sys.stdin)["ranked"]
assert r, "nothing ranked"
c = r[0]
assert 8 <= c["gpus"] <= 160, c["gpus"]
assert c["network"] == "none", c["network"]
assert c["batch"] > 8 and c["replicas"] >= 2, c
' || fail "simulated sizing"
# the default for a decoder: the same sizing without --engine, no fabric bought for
# independent replicas, and within 2x of what estimate's queue needs under vLLM
expect_rc 0 estimate --model llama3-70b --task infer --gpu h100-sxm5-80gb --tp 8 --engine vllm --rate 50 \
	--ttft-target 1s --json
need=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["rate"]["replicas"] * 8)')
expect_rc 0 plan llama3-70b --task infer --rate 50 --ttft-target 1s --gpu h100-sxm5-80gb --json
printf '%s' "$OUT" | python3 -c '
import json, sys
c = json.load(sys.stdin)["ranked"][0]
assert 0 < c["gpus"] <= 2 * '"$need"', (c["gpus"], '"$need"')
assert c["network"] == "none" and c["bom"]["fabric_usd"] == 0 and c["bom"]["switch_tiers"] == 0, c["bom"]
assert "--engine vllm" in c["estimate_args"] and 0 < c["ttft_p99_s"] <= 1.0, c
assert 0 < c["utilisation"] < 1, c
' || fail "default sizing"
# the explanation says where the batch comes from: the scheduler, not a power of two that fits
expect_rc 0 plan llama3-70b --task infer --rate 50 --ttft-target 1s --gpu h100-sxm5-80gb
OUT=$(printf '%s' "$OUT" | tr -s ' \n' ' ')
expect_out "(the mean the simulated scheduler reaches)"
# the static-batch model on request: batches of a power of two, the M/M/c queue
expect_rc 0 plan llama3-8b --task infer --rate 30 --gpu h100-sxm5-80gb --engine static --json
printf '%s' "$OUT" | python3 -c '
import json, sys
c = json.load(sys.stdin)["ranked"][0]
assert c["batch"] & (c["batch"] - 1) == 0 and "--engine vllm" not in c["estimate_args"], c
' || fail "--engine static"
# a model of the L4 serving cases (Qwen2.5-0.5B, data/cases/serving.csv SV-092..109): one L4
# served 29.5 requests/s to 32 clients, so 10 requests/s of 256 in and 128 out take one GPU,
# within a 1 s TTFT
expect_rc 0 plan llama3-8b --layers 24 --hidden 896 --heads 14 --kv-heads 2 --ffn-hidden 4864 --vocab 151936 \
	--tie-embeddings on --task infer --rate 10 --ttft-target 1s --gpu l4-24gb --engine vllm --prompt-len 256 \
	--output-len 128 --json
printf '%s' "$OUT" | python3 -c '
import json, sys
c = json.load(sys.stdin)["ranked"][0]
assert c["gpus"] == 1 and c["replicas"] == 1, c
assert 0 < c["ttft_p99_s"] <= 1.0 and 0 < c["utilisation"] < 1, c
' || fail "a small model on one L4"
# Qwen3-0.6B at one request a second on an A100 (data/cases/serving.csv SV-110..126): every decode
# step is the host's floor, vLLM 0.11's host_step_s and one sequence, so 128 tokens take at least
# 127 of them where the GPU alone needs 1.1 ms a step
expect_rc 0 plan llama3-8b --layers 28 --hidden 1024 --heads 16 --kv-heads 8 --ffn-hidden 3072 --vocab 151936 \
	--tie-embeddings on --task infer --rate 1 --ttft-target 1s --gpu a100-sxm4-80gb --engine vllm --prompt-len 128 \
	--output-len 128 --json
printf '%s' "$OUT" | python3 -c '
import csv, json, sys
c = json.load(sys.stdin)["ranked"][0]
row = next(r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))
           if r["engine"] == "vllm" and r["version"] == "0.11")
floor = float(row["host_step_s"]) + float(row["host_seq_s"])
assert floor >= 2e-3 and 127 * floor <= c["latency_s"] <= 127 * floor + 0.1, (floor, c["latency_s"])
' "$SRCDIR/data/serve/engines.csv" || fail "the host floor of a small model"
expect_rc 2 plan llama3-8b --task infer --engine static --engine-version 0.6
expect_err "--engine static has none"
expect_rc 2 plan llama3-70b --task infer --engine vllm --engine-version 0.1 --gpu h100-sxm5-80gb
expect_err "there are 0.11, 0.8, 0.6, 0.5"
finish
