#!/bin/bash
# estimate: the kernels beside the GEMMs, held against bytes / stream rate
# worked out here from docs/model.md ("Memory-bound kernels", "Encoders",
# "FP8 casts"), for BERT-Large and for FP8 training on an H100.
. "$TESTS/cli/lib.sh"

t() { printf '%s' "$OUT" | python3 -c "import json,sys; print(json.load(sys.stdin)['time']['$1'])"; }
bw() {
	expect_rc 0 catalog gpus --json
	printf '%s' "$OUT" | python3 -c "
import json, sys
print([g for g in json.load(sys.stdin) if g['key'] == '$1'][0]['mem_bw_gbps'] * 1e9 * 0.86)"
}
bert="--model bert-large --gpus 1 --micro-batch 32 --global-batch 32 --seq-len 128 --flash-attention off"

# BERT-Large pre-training on one A100, fp16: 24 layers of norms, residual adds,
# dropout and GeLU forward and backward, and the MLM head's logits over the
# 15 % masked positions, at 0.86 of the HBM rate
a100=$(bw a100-sxm4-80gb)
expect_rc 0 estimate $bert --gpu a100-sxm4-80gb --precision fp16 --json
pre=$(t memory_bound_s)
python3 - "$pre" "$a100" <<'PY' || fail "BERT-Large memory-bound time is not its bytes over the stream rate"
import sys
got, bw = float(sys.argv[1]), float(sys.argv[2])
L, h, f, V, T, e = 24, 1024, 4096, 30522, 32 * 128, 2
fwd = 4 * h + 6 * h + 2 * (2 * h + 0.5 * h) + 2 * f  # norms, adds, dropout, GeLU
bwd = 6 * h + 6 * h + 2 * (2 * h + 0.5 * h) + 3 * f  # their backward, kernel by kernel
head = 24 * 0.15 * T * V                              # logits of the masked positions
want = (L * e * T * (fwd + bwd) + head) / bw
assert abs(got / want - 1) < 1e-6, (got, want)
PY

# fine-tuned, the encoder has no vocabulary head: the difference is the MLM head's bytes
expect_rc 0 estimate $bert --gpu a100-sxm4-80gb --precision fp16 --task finetune --json
python3 -c "
d = $pre - $(t memory_bound_s); want = 24 * 0.15 * 32 * 128 * 30522 / $a100
assert abs(d / want - 1) < 1e-6, (d, want)" || fail "the MLM head's logits are not 15 % of the positions"

# FP8 with Transformer Engine on an H100 against bf16: only the casts differ.
# Forward: the norm-fused QKV and MLP-up inputs 1 B/element of h each, the
# attention output cast 4 B/element, the GeLU output 1 B/element of f, the
# weights 4 B each; backward: the gradients of the four GEMMs' outputs but the
# activation-fused one, 4 B/element of 3h + h + h
h100=$(bw h100-sxm5-80gb)
expect_rc 0 estimate $bert --gpu h100-sxm5-80gb --precision bf16 --json
b16=$(t memory_bound_s)
expect_rc 0 estimate $bert --gpu h100-sxm5-80gb --precision fp8 --json
f8=$(t memory_bound_s)
python3 - "$b16" "$f8" "$h100" <<'PY' || fail "FP8 cast time is not the casts' bytes over the stream rate"
import sys
b16, f8, bw = map(float, sys.argv[1:])
L, h, f, T = 24, 1024, 4096, 32 * 128
weights = 3 * h * h + h * h + 2 * h * f
fwd = T * (2 * 1 * h + 4 * h + 1 * f) + 4 * weights
bwd = T * 4 * (3 * h + h + h)
want = L * (fwd + bwd) / bw
assert abs((f8 - b16) / want - 1) < 1e-6, (f8 - b16, want)
# the cast model of before (4 B on every input, forward and twice backward, weights three
# times) would be 2.4 x as much: the test tells them apart
old = L * 3 * 4 * (T * (h + h + h + f) + weights) / bw
assert old / want > 2, (old, want)
PY
finish
