#!/bin/bash
# plan: every choice it lists is reproduced by `gpuscope estimate` with the
# arguments plan prints for it (estimate_args): the same step time and the
# same memory, for catalog servers, generic builds on several nodes, cloud
# instances, mixture of experts, per-sample models and inference replicas.
. "$TESTS/cli/lib.sh"

check() {
	expect_rc 0 plan "$@" --top 4 --json
	printf '%s' "$OUT" >"$TMP/plan.json"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["ranked"] + d["front"][:3]:
    print(c["estimate_args"] + "\t%.17g\t%.17g" % (c["step_s"], c["memory_total_bytes"]))
' "$TMP/plan.json" >"$TMP/args" || { fail "plan $*: no JSON"; return; }
	CHECKS=$((CHECKS + 1))
	[ -s "$TMP/args" ] || fail "plan $*: nothing listed"
	while IFS=$'\t' read -r args step mem; do
		# shellcheck disable=SC2086
		expect_rc 0 estimate $args --json
		printf '%s' "$OUT" | python3 -c '
import json, sys
e = json.load(sys.stdin)
step, mem = float(sys.argv[1]), float(sys.argv[2])
assert abs(e["time"]["step_s"] - step) <= 1e-9 * step, (e["time"]["step_s"], step)
assert abs(e["memory"]["total_bytes"] - mem) <= 1e-9 * mem, (e["memory"]["total_bytes"], mem)
assert e["memory"]["fits"] is True
' "$step" "$mem" || fail "estimate $args disagrees with plan"
	done <"$TMP/args"
}

check
check llama2-13b --task pretrain --servers-only
check llama2-70b --task pretrain --objective time --max-gpus 512
check llama2-13b --buy cloud --objective time --max-gpus 256
check mixtral-8x7b --task pretrain --max-gpus 128
check resnet50
check llama2-70b --task infer --rate 4
check gnn --task infer --rate 20000 --latency-target 5ms --max-batch 32
check dlrm --task infer --rate 20000 --latency-target 10ms
check llama2-7b --gpu gaudi3 --objective time
check llama3-8b --task pretrain --seq-len 131072 --gpu h100-sxm5-80gb --max-gpus 64
finish
