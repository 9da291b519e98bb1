#!/bin/bash
# plan's "check it" line is the resolved scenario: for every GPU of the
# catalog and a full fine-tune, a LoRA fine-tune, inference and a CNN, the
# estimate arguments plan prints for its first choice give the same step
# time and memory when run through `gpuscope estimate`.
. "$TESTS/cli/lib.sh"

expect_rc 0 catalog gpus --json
printf '%s' "$OUT" | python3 -c '
import json, sys
for g in json.load(sys.stdin):
    print(g["key"])' >"$TMP/gpus"
[ "$(wc -l <"$TMP/gpus")" -ge 20 ] || fail "fewer than 20 catalog GPUs"

roundtrip() {
	run plan "$@" --top 1 --json --no-explain --max-gpus 64
	# a GPU on which nothing fits (or that lacks the precision) lists nothing: nothing to check
	[ "$RC" -eq 0 ] || return
	printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for c in d["ranked"][:1]:
    print(c["estimate_args"] + "\t%.17g\t%.17g" % (c["step_s"], c["memory_total_bytes"]))
' >"$TMP/args" || { fail "plan $*: no JSON"; return; }
	while IFS=$'\t' read -r args step mem; do
		# shellcheck disable=SC2086
		expect_rc 0 estimate $args --json
		printf '%s' "$OUT" | python3 -c '
import json, sys
e = json.load(sys.stdin)
step, mem = float(sys.argv[1]), float(sys.argv[2])
assert abs(e["time"]["step_s"] - step) <= 1e-9 * step, (e["time"]["step_s"], step)
assert abs(e["memory"]["total_bytes"] - mem) <= 1e-9 * mem, (e["memory"]["total_bytes"], mem)
' "$step" "$mem" || fail "estimate $args disagrees with plan $*"
		CHECKED=$((CHECKED + 1))
	done <"$TMP/args"
}

CHECKED=0
while read -r gpu; do
	roundtrip llama2-7b --gpu "$gpu"
	roundtrip llama2-7b --task lora --gpu "$gpu"
	roundtrip llama2-7b --task infer --rate 2 --gpu "$gpu"
	roundtrip resnet50 --gpu "$gpu"
done <"$TMP/gpus"
# the memory settings travel in the line too
roundtrip llama2-7b --gpu a100-sxm4-80gb --master-weights none --optimizer adamw8bit
roundtrip llama2-7b --task lora --gpu a100-sxm4-80gb --lora-targets qv --tie-embeddings on
roundtrip llama2-7b --task qlora --gpu a100-sxm4-80gb --logits chunked
[ "$CHECKED" -ge 60 ] || fail "only $CHECKED plans were checked against estimate"
finish
