#!/bin/bash
# plan: the layout space beyond powers of two and single nodes.  A global
# batch whose best micro-batch is not a power of two, tensor parallelism
# across nodes where it is the fastest, optimizer offload where nothing
# fits without it (checked against the server's host memory), and the
# count of layouts in the space; each choice reproduced by estimate.
. "$TESTS/cli/lib.sh"

# first ranked choice's estimate arguments and step time, tab-separated
first() {
	python3 -c '
import json, sys
c = json.load(sys.stdin)["ranked"][0]
print(c["estimate_args"] + "\t%.17g" % c["step_s"])'
}

# flag VALUE of the check-it line
flag() { printf '%s\n' "$1" | tr ' ' '\n' | grep -A1 -x -- "$2" | tail -1; }

# the estimate of the check-it line gives the same step time
agrees() {
	local args=$1 step=$2
	# shellcheck disable=SC2086
	expect_rc 0 estimate $args --json
	printf '%s' "$OUT" | python3 -c '
import json, sys
e = json.load(sys.stdin)
step = float(sys.argv[1])
assert abs(e["time"]["step_s"] - step) <= 1e-9 * step, (e["time"]["step_s"], step)
assert e["memory"]["fits"] is True
assert e["memory"]["host_fits"] in (None, True)
' "$step" || fail "estimate $args disagrees with plan"
}

# 80 sequences on 8 B200s: 10 per replica, and 5 per micro-batch beats 2 (1, 2, 5, 10 divide it)
expect_rc 0 plan --global-batch 80 --gpu b200 --max-gpus 8 --json
IFS=$'\t' read -r args step < <(printf '%s' "$OUT" | first)
CHECKS=$((CHECKS + 1))
[ "$(flag "$args" --micro-batch)" = 5 ] || fail "micro-batch $(flag "$args" --micro-batch), want 5: $args"
agrees "$args" "$step"

# Llama 3 70B on L40S: two single-GPU nodes per tensor-parallel group over RoCE is the fastest
expect_rc 0 plan llama3-70b --task pretrain --gpu l40s-48gb --objective time --max-gpus 64 --json
IFS=$'\t' read -r args step < <(printf '%s' "$OUT" | first)
CHECKS=$((CHECKS + 1))
[ "$(flag "$args" --tp)" -gt "$(flag "$args" --gpus-per-node)" ] ||
	fail "tensor parallelism inside the node: $args"
agrees "$args" "$step"

# Llama 2 70B fine-tuned on one 8-GPU A100 server: only the optimizer in host memory fits
expect_rc 0 plan llama2-70b --gpu a100-sxm4-80gb --max-gpus 8 --servers-only --json
IFS=$'\t' read -r args step < <(printf '%s' "$OUT" | first)
CHECKS=$((CHECKS + 1))
[ "$(flag "$args" --offload)" = optimizer ] || fail "no optimizer offload: $args"
case "$args" in *"--server "*) ;; *) fail "offload without a server's host memory: $args";; esac
agrees "$args" "$step"
# estimate checks the server's host memory itself
# shellcheck disable=SC2086
expect_rc 0 estimate $args
expect_out "GiB per server"
expect_rc 0 estimate --model llama2-70b --task finetune --gpu a100-sxm4-80gb --gpus 8 --tp 1 --pp 1 --zero 3 --offload optimizer+params \
	--host-memory 64 --json
printf '%s' "$OUT" | python3 -c 'import json,sys; assert json.load(sys.stdin)["memory"]["host_fits"] is False' ||
	fail "64 GiB of host memory holds a 70B model's offloaded state"

# the count of layouts in the space: GPT-3 175B on up to 1,024 A100s
expect_rc 0 plan gpt3-175b --task pretrain --gpu a100-sxm4-80gb --max-gpus 1024 --json
printf '%s' "$OUT" | python3 -c '
import json, sys
s = json.load(sys.stdin)["search"]
assert s["layouts"] > 100000, s["layouts"]
assert s["memory_calls"] <= s["layouts"], s' || fail "layouts in the space"
finish
