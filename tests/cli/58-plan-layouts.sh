#!/bin/bash
# plan: the layout space beyond powers of two and single nodes.  A global
# batch whose best micro-batch is not a power of two, tensor parallelism
# across nodes where it is the fastest, optimizer offload where nothing
# fits without it (checked against the server's host memory), context
# parallelism for long sequences, and the count of layouts in the space;
# each choice reproduced by estimate.  Then estimate's --cp and its errors.
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

# 80 sequences on 8 B200s: 10 per replica, and 5 per micro-batch beats 2 (1, 2, 5, 10 divide it)
expect_rc 0 plan --global-batch 80 --gpu b200 --max-gpus 8 --json
IFS=$'\t' read -r args step < <(printf '%s' "$OUT" | first)
CHECKS=$((CHECKS + 1))
[ "$(flag "$args" --micro-batch)" = 5 ] || fail "micro-batch $(flag "$args" --micro-batch), want 5: $args"
estimate_agrees "$args" "$step"

# the fastest Llama 2 7B fine-tune on Gaudi 3: 4,096 GPUs, the batch of 128 caps dp, so TP spans two servers
expect_rc 0 plan llama2-7b --gpu gaudi3 --objective time --json
IFS=$'\t' read -r args step < <(printf '%s' "$OUT" | first)
CHECKS=$((CHECKS + 1))
[ "$(flag "$args" --tp)" -gt "$(flag "$args" --gpus-per-node)" ] ||
	fail "tensor parallelism inside the node: $args"
estimate_agrees "$args" "$step"

# Llama 2 70B fine-tuned on one 8-GPU A100 server: only the optimizer in host memory fits
expect_rc 0 plan llama2-70b --gpu a100-sxm4-80gb --max-gpus 8 --servers-only --json
IFS=$'\t' read -r args step < <(printf '%s' "$OUT" | first)
CHECKS=$((CHECKS + 1))
[ "$(flag "$args" --offload)" = optimizer ] || fail "no optimizer offload: $args"
case "$args" in *"--server "*) ;; *) fail "offload without a server's host memory: $args";; esac
estimate_agrees "$args" "$step"
# estimate checks the server's host memory itself
# shellcheck disable=SC2086
expect_rc 0 estimate $args
expect_out "GiB per server"
expect_rc 0 estimate --model llama2-70b --task finetune --gpu a100-sxm4-80gb --gpus 8 --tp 1 --pp 1 --zero 3 --offload optimizer+params \
	--host-memory 64 --json
printf '%s' "$OUT" | python3 -c 'import json,sys; assert json.load(sys.stdin)["memory"]["host_fits"] is False' ||
	fail "64 GiB of host memory holds a 70B model's offloaded state"

# 131,072-token sequences: each split over cp GPUs (ring attention), cp a power of two cutting it evenly
expect_rc 0 plan llama3-8b --task pretrain --seq-len 131072 --gpu h100-sxm5-80gb --max-gpus 64 --json
IFS=$'\t' read -r args step < <(printf '%s' "$OUT" | first)
CHECKS=$((CHECKS + 1))
cp=$(flag "$args" --cp)
[ -n "$cp" ] && [ "$cp" -gt 1 ] && [ $((131072 % (2 * cp))) -eq 0 ] || fail "no context parallelism: $args"
estimate_agrees "$args" "$step"
# shellcheck disable=SC2086
expect_rc 0 estimate $args
expect_out "layout: tp $(flag "$args" --tp) cp $cp"
expect_rc 0 estimate --model llama3-8b --gpu h100-sxm5-80gb --gpus 16 --tp 8 --cp 2 --seq-len 131072 \
	--recompute full --network ib-ndr --json
printf '%s' "$OUT" | python3 -c '
import json, sys
e = json.load(sys.stdin)
assert e["config"]["cp"] == 2 and e["config"]["dp"] == 1, e["config"]
assert e["time"]["cp_comm_s"] >= 0 and e["memory"]["fits"] is True' || fail "estimate --cp 2"
# half the activations per GPU at cp 2 against cp 1 on the same tp
act() { printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["memory"]["activations_bytes"])'; }
a2=$(act)
expect_rc 0 estimate --model llama3-8b --gpu h100-sxm5-80gb --gpus 16 --tp 8 --dp 2 --seq-len 131072 \
	--recompute full --network ib-ndr --json
a1=$(act)
python3 -c "import sys; a1, a2 = float(sys.argv[1]), float(sys.argv[2]); assert abs(a1 / a2 - 2) < 0.05, (a1, a2)" \
	"$a1" "$a2" || fail "activations at cp 2 are not half of cp 1's: $a2 against $a1"

# bad --cp: each error names the flag and exits 2
expect_rc 2 estimate --model llama3-8b --gpu h100-sxm5-80gb --gpus 64 --tp 8 --cp 3 --seq-len 131072
expect_err "--cp 3 does not divide --gpus 64"
expect_rc 2 estimate --model llama3-8b --gpu h100-sxm5-80gb --gpus 48 --tp 8 --cp 3 --seq-len 131072 \
	--network ib-ndr
expect_err "--cp 3 does not cut the 131072-token sequence into 6 equal chunks"
expect_rc 2 estimate --model llama3-8b --gpu h100-sxm5-80gb --gpus 16 --tp 8 --cp 2 --task infer
expect_err "--cp 2 is modelled for training only"
expect_rc 2 estimate --model llama3-8b --gpu h100-sxm5-80gb --gpus 16 --tp 8 --cp 2 --flash-attention off
expect_err "--cp 2 needs flash attention"
expect_rc 2 estimate --model resnet50 --gpu h100-sxm5-80gb --gpus 2 --cp 2
expect_err "--cp 2 splits sequences"
expect_rc 2 estimate --model llama3-8b --gpu h100-sxm5-80gb --gpus 16 --tp 8 --pp 2 --dp 1 --cp 2
expect_err "is not tp x cp x pp x dp = 8 x 2 x 2 x 1 = 32"
expect_rc 2 estimate --model llama3-8b --gpu h100-sxm5-80gb --gpus 16 --cp 0
expect_err "--cp"
# tensor parallelism across servers still divides the heads
expect_rc 2 estimate --model llama2-7b --gpu h100-sxm5-80gb --gpus 48 --gpus-per-node 8 --tp 24 --network ib-ndr
expect_err "--tp 24 does not divide the 32 attention heads"
expect_rc 0 estimate --model llama2-7b --gpu h100-sxm5-80gb --gpus 32 --gpus-per-node 8 --tp 16 --network ib-ndr --json
printf '%s' "$OUT" | python3 -c 'import json,sys; assert json.load(sys.stdin)["time"]["tp_comm_s"] > 0' ||
	fail "tp 16 across two servers has no collectives"

# the count of layouts in the space: GPT-3 175B on up to 1,024 A100s
expect_rc 0 plan gpt3-175b --task pretrain --gpu a100-sxm4-80gb --max-gpus 1024 --json
printf '%s' "$OUT" | python3 -c '
import json, sys
s = json.load(sys.stdin)["search"]
assert s["layouts"] > 100000, s["layouts"]
assert s["memory_calls"] <= s["layouts"], s' || fail "layouts in the space"
finish
