#!/bin/bash
# estimate keeps every value the user gives, the smallest legal one included:
# "not given" has its own representation and is never a value like 1 or 0.
# A latency target no batch meets fails as missed TTFT and TPOT targets do.
. "$TESTS/cli/lib.sh"

# served FIELD ARGS...: sets $V to the serving model's FIELD for estimate ARGS
served() {
	local field=$1
	shift
	expect_rc 0 estimate "$@" --json
	V=$(printf '%s' "$OUT" | python3 -c 'import json, sys; print(json.load(sys.stdin)["serving"][sys.argv[1]])' "$field")
}

# --batch 1 under a serving engine runs one sequence, as --batch 2 runs two
H100="--model llama3-8b --task infer --gpu h100-sxm5-80gb"
# shellcheck disable=SC2086
for b in 1 2; do
	served concurrency $H100 --engine vllm --batch "$b"
	[ "$V" = "$b" ] || fail "--engine vllm --batch $b serves $V sequences, want $b"
done
# shellcheck disable=SC2086
served concurrency $H100 --engine vllm
[ "$V" -gt 2 ] || fail "--engine vllm without --batch serves $V sequences, want as many as the KV cache holds"
# shellcheck disable=SC2086
expect_rc 0 estimate $H100 --engine vllm --batch 1
expect_out "sequences decoded together       1 "
# and the batch 1 answers are one sequence's: more output tokens/s at batch 2
# shellcheck disable=SC2086
served tokens_per_s $H100 --engine vllm --batch 1
t1=$V
# shellcheck disable=SC2086
served tokens_per_s $H100 --engine vllm --batch 2
t2=$V
CHECKS=$((CHECKS + 1))
python3 -c 'import sys; a, b = map(float, sys.argv[1:]); assert a < b, (a, b)' "$t1" "$t2" ||
	fail "batch 1 gives $t1 tokens/s, batch 2 $t2"

# the smallest legal value of the layout and batch flags is kept as given
expect_rc 0 estimate --model llama2-7b --task finetune --gpu a100-sxm4-80gb --gpus 8 --tp 1 --pp 1 \
	--micro-batch 1 --global-batch 8 --zero 0 --gpus-per-node 8 --json
printf '%s' "$OUT" | python3 -c '
import json, sys
c = json.load(sys.stdin)["config"]
want = {"gpus": 8, "tp": 1, "pp": 1, "dp": 8, "micro_batch": 1, "global_batch": 8, "zero": 0, "gpus_per_node": 8}
assert {k: c[k] for k in want} == want, c
' || fail "a layout of ones is not kept"
# zero CPU cores is no supply to model, not "use the server's"
expect_rc 2 estimate --model resnet50 --gpu a100-sxm4-80gb --cpu-cores 0
expect_err "cpu-cores"

# a missed latency target: exit 2 with the reason, like a missed TTFT or TPOT target
# shellcheck disable=SC2086
expect_rc 2 estimate $H100 --ttft-target 1us
# shellcheck disable=SC2086
expect_rc 2 estimate $H100 --latency-target 1us
expect_err "cannot meet the target"
expect_err "request latency 0.001 ms"
[ -z "$OUT" ] || fail "a missed latency target still printed an estimate"
# shellcheck disable=SC2086
expect_rc 2 estimate $H100 --engine eager --batch 1 --latency-target 1us
expect_err "cannot meet the target"
expect_rc 2 estimate --model gnn --task infer --gpu t4 --latency-target 1us
expect_err "cannot meet the latency target of 1.0 us: one request alone takes"
[ -z "$OUT" ] || fail "a missed latency target still printed an estimate"
# a target that is met sizes the served concurrency to it
# shellcheck disable=SC2086
expect_rc 0 estimate $H100 --latency-target 3s --json
printf '%s' "$OUT" | python3 -c '
import json, sys
s = json.load(sys.stdin)["serving"]
assert s["request_s"] <= 3 and s["bound"] == "target", s
' || fail "--latency-target 3s is not met by the served concurrency"
expect_rc 0 estimate --model gnn --task infer --gpu t4 --latency-target 5ms --json
printf '%s' "$OUT" | python3 -c '
import json, sys
i = json.load(sys.stdin)["inference"]
assert i["batch_for_latency"] >= 1 and i["latency_target_s"] == 0.005, i
' || fail "gnn meets 5 ms with no batch"
finish
