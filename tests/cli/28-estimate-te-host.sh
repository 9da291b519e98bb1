#!/bin/bash
# estimate: Transformer Engine's fp8 modules cost the host time of their
# Python side, 1.3 ms per fp8 linear (four a layer) and micro-batch, beside
# the eager launches; the step is the larger of host and GPU (docs/model.md,
# "FP8 host cost").  GPT-2 XL on one H100 at batch 8 is host-bound.
. "$TESTS/cli/lib.sh"

t() { printf '%s' "$OUT" | python3 -c "import json,sys; print(json.load(sys.stdin)['time']['$1'])"; }
L=48
xl="--model gpt3-175b --layers $L --hidden 1600 --heads 25 --ffn-hidden 6400 --vocab 50304 --seq-len 1024 --gpus 1 --gpu h100-sxm5-80gb"

expect_rc 0 estimate $xl --precision fp8 --micro-batch 8 --global-batch 8 --json
s8=$(t step_s)
expect_rc 0 estimate $xl --precision fp8 --micro-batch 4 --global-batch 4 --json
s4=$(t step_s)
expect_rc 0 estimate $xl --precision fp8 --micro-batch 4 --global-batch 8 --json
s4x2=$(t step_s)
python3 - "$s8" "$s4" "$s4x2" "$L" <<'PY' || fail "host-bound fp8 step is not the launches plus the modules' host time"
import sys
s8, s4, s4x2, L = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
# kernels a micro-batch: 14 a layer forward and 10 besides, tripled for the
# backward, and the 11 casts a layer; 6 us each, eager
launches = (3 * (14 * L + 10) + 11 * L) * 6e-6
modules = 4 * L * 1.3e-3
want = launches + modules
assert abs(s8 / want - 1) < 1e-3, (s8, want)
# host-bound: half the tokens take as long; two micro-batches twice as long
assert abs(s4 / s8 - 1) < 1e-3, (s4, s8)
assert abs(s4x2 / (2 * s8) - 1) < 1e-3, (s4x2, s8)
# without the modules' term the launches alone would not bind the step
assert launches < 0.5 * want
PY

# bf16, the modules replayed from CUDA Graphs, and torchao's compiled float8
# pay none of it: each is faster than the host-bound fp8 step, and GPU-bound
for x in "--precision bf16" "--precision fp8 --engine cudagraphs" "--precision fp8 --engine compile"; do
	expect_rc 0 estimate $xl $x --micro-batch 8 --global-batch 8 --json
	python3 -c "import sys; s, o, s8 = map(float, sys.argv[1:]); assert s < 0.8 * s8 and o == 0, (s, o, s8)" \
		"$(t step_s)" "$(t overhead_s)" "$s8" || fail "$x pays Transformer Engine's host time"
done

# large batches stay GPU-bound: batch 38 has no host overhead
expect_rc 0 estimate $xl --precision fp8 --micro-batch 38 --global-batch 38 --json
[ "$(t overhead_s)" = "0.0" ] || [ "$(t overhead_s)" = "0" ] || fail "batch 38 is host-bound: $(t overhead_s)"
finish
