#!/bin/bash
# estimate and validate: weight-only quantised kernels at decode.  The decode
# time is checked against the bytes the kernel reads, at its share of the
# stream rate, and the launches and host time it adds, each computed here from
# the kernel table and the model's dimensions; bad kernel names and kernels
# that do not read the stored precision are refused; the published runs of
# class quant-decode stay close, fitted and held-aside sources apart.
. "$TESTS/cli/lib.sh"

KT="$SRCDIR/data/quant/kernels.csv"
# token_s KERNEL ARGS...: the decode step of one estimate, in seconds
token_s() {
	local k=$1
	shift
	expect_rc 0 estimate --no-calibration --task infer --prompt-len 64 --output-len 64 --quant-kernel "$k" "$@" --json
	printf '%s' "$OUT" | python3 -c 'import json, sys; print(json.load(sys.stdin)["inference"]["token_s"])'
}

# Llama 2 7B in AWQ int4 on an RTX 4090, fused layers: the step is the weights' read.  A GEMV kernel
# at 0.85 of the stream rate against Marlin at all of it differs by the packed bytes over the rate,
# times 1/share - 1; at batch 8 the GEMV reads them ceil(8 / gemv_rows) times.
G=(--model llama2-7b --gpu rtx-4090-24gb --engine compile --weight-precision int4)
gemv1=$(token_s awq-gemv "${G[@]}" --batch 1)
marl1=$(token_s marlin "${G[@]}" --batch 1)
gemv8=$(token_s awq-gemv "${G[@]}" --batch 8)
marl8=$(token_s marlin "${G[@]}" --batch 8)
KT="$KT" GEMV1=$gemv1 MARL1=$marl1 GEMV8=$gemv8 MARL8=$marl8 python3 -c '
import csv, math, os
rows = {r["kernel"]: r for r in csv.DictReader(l for l in open(os.environ["KT"]) if not l.startswith("#"))}
share, gr = float(rows["awq-gemv"]["bw_share"]), float(rows["awq-gemv"]["gemv_rows"])
assert float(rows["marlin"]["bw_share"]) == 1 and float(rows["marlin"]["gemv_rows"]) == 0
# the linear layers: 32 x (q, k, v, o 4096 x 4096 and three 4096 x 11008 MLP matrices), 4.25 bits each
W = 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008)
rate = 1008e9 * 0.86  # RTX 4090 GDDR6X, Ada stream efficiency (src/model/vendor.c)
packed_s = W * 4.25 / 8 / rate
want1 = packed_s * (1 / share - 1)
want8 = packed_s * (math.ceil(8 / gr) / share - 1)
got1 = float(os.environ["GEMV1"]) - float(os.environ["MARL1"])
got8 = float(os.environ["GEMV8"]) - float(os.environ["MARL8"])
assert abs(got1 / want1 - 1) < 0.01, (got1, want1)
assert abs(got8 / want8 - 1) < 0.01, (got8, want8)
assert 3.5e-3 < float(os.environ["MARL1"]) < 5e-3, os.environ["MARL1"]
' || fail "decode time is not the packed bytes over the kernel's rate"

# Llama 3.1 8B in NF4 under transformers generate on an H100: host-bound, the step is every launch
# (46 a Llama layer eager, 10 more, and the kernel's own per linear) at 6 us, generate's 1 ms, 0.5 ms
# a layer, and the kernel's host time for each of the 7 linears of 32 layers.
H=(--model llama3-8b --gpu h100-sxm5-80gb --engine hf --weight-precision nf4 --batch 1)
nf4=$(token_s bnb-nf4 "${H[@]}")
KT="$KT" NF4=$nf4 python3 -c '
import csv, os
rows = {r["kernel"]: r for r in csv.DictReader(l for l in open(os.environ["KT"]) if not l.startswith("#"))}
k = rows["bnb-nf4"]
lin = 32 * 7
kernels = 46 * 32 + 10 + lin * float(k["launches_per_linear"])
want = kernels * 6e-6 + 1e-3 + 32 * 0.5e-3 + lin * float(k["host_per_linear_s"])
got = float(os.environ["NF4"])
assert abs(got / want - 1) < 1e-6, (got, want)
' || fail "host-bound decode is not the launches and host time of the kernel"

# above its batch the NF4 kernel dequantises: 16-bit weights written and read again
nf4_1=$(token_s bnb-nf4 --model llama3-8b --gpu rtx-4090-24gb --engine compile --batch 1)
nf4_8=$(token_s bnb-nf4 --model llama3-8b --gpu rtx-4090-24gb --engine compile --batch 8)
A=$nf4_1 B=$nf4_8 python3 -c '
import os
W = 32 * (4096 * (4096 + 2 * 1024) + 4096 * 4096 + 3 * 4096 * 14336)
rate = 1008e9 * 0.86
floor = W * (4.127 / 8 + 4 - 4.127 / 8 / 0.8) / rate
d = float(os.environ["B"]) - float(os.environ["A"])
assert d > 0.95 * floor, (d, floor)
' || fail "the dequantise path does not cost the 16-bit weights"

# the kernel a stored precision runs by default, and the precision a kernel implies
kernel_of() {
	expect_rc 0 estimate --no-calibration --model llama3-8b --gpu h100-sxm5-80gb --task infer "$@" --json
	printf '%s' "$OUT" | python3 -c 'import json, sys; c = json.load(sys.stdin)["config"]; print(c["quant_kernel"], c["weight_precision"])'
}
[ "$(kernel_of --weight-precision nf4 --engine hf --batch 1)" = "bnb-nf4 nf4" ] || fail "nf4 default"
[ "$(kernel_of --weight-precision int8 --engine hf --batch 1)" = "bnb-int8 int8" ] || fail "int8 default"
[ "$(kernel_of --weight-precision int4 --engine vllm --batch 1)" = "marlin int4" ] || fail "int4 served"
[ "$(kernel_of --weight-precision int4 --engine hf --batch 1)" = "exllamav2 int4" ] || fail "int4 eager"
[ "$(kernel_of --batch 1 --engine hf)" = "none bf16" ] || fail "16-bit weights take no kernel"
[ "$(kernel_of --quant-kernel awq-gemm --engine compile --batch 1)" = "awq-gemm int4" ] || fail "implied precision"
[ "$(kernel_of --weight-precision int4 --quant-kernel none --engine hf --batch 1)" = "none int4" ] || fail "none"

# bad values name the flag and what is valid, and print no estimate
expect_rc 2 estimate --model llama3-8b --gpu h100-sxm5-80gb --task infer --quant-kernel gguf-q9
expect_err "--quant-kernel 'gguf-q9' is not one of"
expect_err "bnb-nf4"
expect_err "marlin"
[ -z "$OUT" ] || fail "a refused kernel printed an estimate"
expect_rc 2 estimate --model llama3-8b --gpu h100-sxm5-80gb --task infer --weight-precision int4 --quant-kernel bnb-nf4
expect_err "--quant-kernel bnb-nf4 reads nf4 weights, not int4"
expect_rc 2 estimate --model llama3-8b --gpu h100-sxm5-80gb --task infer --quant-kernel ''
expect_err "--quant-kernel"
expect_no_crash

# the published runs: every source within 3x, fitted and held-aside medians within 25 %
expect_rc 0 validate "$SRCDIR/data/cases/published.csv" --json
printf '%s' "$OUT" | CASES="$SRCDIR/data/cases/published.csv" python3 -c '
import csv, json, os, statistics, sys
d = json.load(sys.stdin)
rows = {r["id"]: r for r in csv.DictReader(open(os.environ["CASES"]))}
q = [c for c in d["cases"] if rows[c["id"]]["class"] == "quant-decode"]
assert len(q) == 84 and all("error" in c for c in q), len(q)
for st in ("fit", "holdout"):
    e = [abs(c["error"]) for c in q if rows[c["id"]]["set"] == st]
    assert statistics.median(e) < 0.25, (st, statistics.median(e))
for c in q:
    assert 1 / 3 < c["predicted"] / c["measured"] < 3, (c["id"], c["predicted"], c["measured"])
# the held-aside sources are whole: no fit row shares their source
hold = {rows[c["id"]]["source"] for c in q if rows[c["id"]]["set"] == "holdout"}
assert not any(rows[c["id"]]["source"] in hold for c in q if rows[c["id"]]["set"] == "fit")
' || fail "quantised decoding cases drifted"

# a kernel the model does not know, or one on a training row, is a skip reason
printf 'id,model,task,gpu,precision,weight_precision,quant_kernel,infer_batch,metric,value\nX1,llama2-7b,infer,a100-sxm4-80gb,fp16,int4,gguf-q9,1,token_latency_ms,10\nX2,llama2-7b,lora,a100-sxm4-80gb,bf16,,awq-gemv,,tokens_per_s,1000\nX3,llama2-7b,infer,a100-sxm4-80gb,fp16,int4,bnb-nf4,1,token_latency_ms,10\n' >"$TMP/bad.csv"
expect_rc 0 validate "$TMP/bad.csv" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
r = {c["id"]: c.get("reason", "") for c in json.load(sys.stdin)["cases"]}
assert "quant_kernel" in r["X1"] and "gguf-q9" in r["X1"], r
assert "applies to inference" in r["X2"], r
assert "reads nf4 weights" in r["X3"], r
' || fail "bad quant_kernel cells not reported"
finish
