#!/bin/bash
# torch.compile, FSDP2 and torchao's float8: the activations a layer keeps
# (eager, compiled on one GPU, compiled under FSDP, fp8 linears), the fp8
# all-gathered weights a ZeRO-3 run holds, the casts' HBM traffic and the
# output layer at the 16-bit rate, each against a value worked out here
# from the dimensions (docs/model.md, "torch.compile, FSDP2 and float8").
. "$TESTS/cli/lib.sh"

# llama2-7b: h = q = kv = 4096, 32 heads, SwiGLU f = 11008, 32 layers, vocabulary 32000
base="--model llama2-7b --gpu h100-sxm5-80gb --gpus-per-node 8 --seq-len 4096 --micro-batch 1 --optimizer adamw"
one="$base --gpus 1 --global-batch 1"
fsdp="$base --gpus 8 --dp 8 --zero 3 --global-batch 8"

layer() { printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["memory"]["activations_layer_bytes"])'; }
field() { printf '%s' "$OUT" | python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# bytes per token of one layer, e = 2; the fp32 log-sum-exp of flash attention, 4 B a head
python3 - >"$TMP/want" <<'PY'
h = q = kv = 4096.0
f, a, T = 11008.0, 32, 4096.0
common = 2 * 2 * h + 2 * (q + 2 * kv) + 2 * q + 2 * 2 * f  # norm inputs, Q K V O, gate and up
lin16 = 2 * 2 * h + 2 * 2 * f                              # norm outputs, SiLU and product
lin8 = 2 * h + q + f                                       # fp8 copies of the four linears' inputs
want = {
    "eager": common + lin16,                               # Korthikanti's count
    "compile-one": common,                                 # rebuilt in the backward's fused kernels
    "compile-fsdp": common + lin16,                        # the eager set under FSDP
    "fp8-compile-fsdp": common + lin8,
    "fp8-eager": common + lin8 + 2 * f,                    # eager keeps SiLU's output too
}
for k, v in want.items():
    print(k, T * v + 4 * a * T)
PY
want() { awk -v k="$1" '$1 == k { print $2 }' "$TMP/want"; }
check() { python3 -c "import sys; g, w = float(sys.argv[1]), float(sys.argv[2]); assert abs(g / w - 1) < 1e-9, (g, w)" "$1" "$2" || fail "$3: $1, want $2"; }

expect_rc 0 estimate $one --precision bf16 --json
check "$(layer)" "$(want eager)" "eager activations per layer"
# Korthikanti's 34 s b h + 5 a s^2 b generalised: the eager count is unchanged
expect_rc 0 estimate $one --precision bf16 --engine compile --json
check "$(layer)" "$(want compile-one)" "compiled activations per layer, one GPU"
expect_rc 0 estimate $fsdp --precision bf16 --engine compile --json
check "$(layer)" "$(want compile-fsdp)" "compiled activations per layer under FSDP"
expect_rc 0 estimate $fsdp --precision fp8 --engine compile --json
check "$(layer)" "$(want fp8-compile-fsdp)" "torchao float8 activations per layer under FSDP2"
expect_rc 0 estimate $fsdp --precision fp8 --json
check "$(layer)" "$(want fp8-eager)" "Transformer Engine fp8 activations per layer"

# FSDP2 kept after forward: every layer gathered, 2 B a parameter in bf16, 1 B a
# linear weight with torchao's float8 all-gather (the two RMSNorms' 2h stay 2 B)
lp=$(python3 -c 'h, f = 4096, 11008; print(4 * h * h + 3 * h * f + 2 * h)')
expect_rc 0 estimate $fsdp --precision bf16 --engine compile --reshard-after-forward off --json
b16=$(field 'd["memory"]["buffers_bytes"]')
expect_rc 0 estimate $fsdp --precision fp8 --engine compile --reshard-after-forward off --json
b8=$(field 'd["memory"]["buffers_bytes"]')
ws=$((128 * 1048576))
check "$(python3 -c "print($b16 - $ws)")" "$(python3 -c "print(32 * 2 * $lp)")" "bf16 gathered layers"
check "$(python3 -c "print($b8 - $ws)")" "$(python3 -c "print(32 * ($lp + 2 * 4096))")" "fp8 all-gathered layers"

# torchao before force_recompute_fp8_weight_in_bwd: every layer's transposed fp8 weight kept
# for backward, 1 B a linear weight (32 (lp - 2h) more), and the flag only where it applies
expect_rc 0 estimate $fsdp --precision fp8 --engine compile --reshard-after-forward off --fp8-saved-weights on --json
check "$(python3 -c "print($(field 'd["memory"]["buffers_bytes"]') - $b8)")" "$(python3 -c "print(32 * ($lp - 2 * 4096))")" \
	"saved fp8 weights"
expect_out '"fp8_saved_weights": true'
expect_rc 2 estimate $fsdp --precision bf16 --engine compile --fp8-saved-weights on
expect_err "fp8-saved-weights"
expect_err "--engine compile"
expect_rc 2 estimate $fsdp --precision fp8 --engine compile --fp8-saved-weights maybe
expect_err "--fp8-saved-weights"
printf '%s\n' "id,model,task,gpu,gpus,dp,zero,precision,engine,metric,value,fp8_saved_weights" \
	"X-1,llama2-7b,pretrain,h100-sxm5-80gb,8,8,3,fp8,compile,memory_gib_per_gpu,30,2" \
	"X-2,llama2-7b,pretrain,h100-sxm5-80gb,8,8,3,bf16,compile,memory_gib_per_gpu,30,1" >"$TMP/saved.csv"
expect_rc 0 validate "$TMP/saved.csv" --csv
expect_out "fp8_saved_weights '2' is not 0 or 1"
expect_out "fp8-saved-weights"

# the casts' HBM bytes per layer and micro-batch.  Transformer Engine (docs/model.md, "FP8 casts"):
# forward the norm and the SwiGLU kernels write fp8 and transpose it (1 B an element of the QKV
# and MLP inputs and of the down projection's), a cast-transpose of the attention output and of
# the weights (4 B); backward a cast-transpose of the QKV, projection and down output gradients.
# torchao: 6 B (its amax read first) for each of the four inputs and the four output gradients,
# the weights 6 B, or under FSDP2's float8 all-gather cast on the 1/8 shard (5 B) and transposed
# (2 B).  The HBM rate and the layer count cancel in the ratio of two differences.
mb() { printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["time"]["memory_bound_s"])'; }
expect_rc 0 estimate $fsdp --precision fp8 --json
te=$(mb)
expect_rc 0 estimate $fsdp --zero 0 --precision fp8 --engine compile --json
ao0=$(mb)
expect_rc 0 estimate $fsdp --precision fp8 --engine compile --json
ao3=$(mb)
python3 - "$te" "$ao0" "$ao3" <<'PY' || fail "fp8 cast traffic: $te $ao0 $ao3"
import sys
te, ao0, ao3 = map(float, sys.argv[1:])
h = q = kv = 4096.0
f, T = 11008.0, 4096.0
wts = h * (q + 2 * kv) + q * h + h * f * 3
te_b = T * (1 * h + 1 * h + 4 * q + 1 * f) + 4 * wts + 4 * T * ((q + 2 * kv) + 2 * h)
ao0_b = 6 * T * (2 * h + q + f) + 6 * wts + 6 * T * ((q + 2 * kv) + h + 2 * f + h)
ao3_b = ao0_b - 6 * wts + wts * (5 / 8 + 2)
want = (ao0_b - ao3_b) / (ao0_b - te_b)
got = (ao0 - ao3) / (ao0 - te)
assert abs(got / want - 1) < 1e-6, (got, want)
PY

# the output layer of an fp8 run at the bf16 rate: what halving the vocabulary
# takes off the GEMM time (three times the head's GEMM, the blocks unchanged)
# is the same in bf16 and in fp8; at the fp8 rate it would be about half
gemm() { printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["time"]["gemm_s"])'; }
for p in bf16 fp8; do
	expect_rc 0 estimate $one --precision $p --engine compile --vocab 32000 --json
	full=$(gemm)
	expect_rc 0 estimate $one --precision $p --engine compile --vocab 16000 --json
	echo "$p $(python3 -c "print($full - $(gemm))")" >>"$TMP/head"
done
python3 - "$TMP/head" <<'PY' || fail "output layer under fp8: $(cat "$TMP/head")"
import sys
d = dict(l.split() for l in open(sys.argv[1]))
b, e = float(d["bf16"]), float(d["fp8"])
assert b > 0 and abs(e / b - 1) < 1e-9, (b, e)
PY
finish
