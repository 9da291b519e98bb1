#!/bin/bash
# plan on GB200 NVL72 racks: 72 = 9 x 8 GPUs lay out no power-of-two batch,
# so training runs on 64 of each rack's GPUs with 8 hot spares, bought and
# counted in the bill, the cost and the energy; every GPU trains where the
# batch allows it; and when no layout divides the batch plan says why and
# which batches would do, never an empty answer.
. "$TESTS/cli/lib.sh"

# the checks of a training choice on the NVL72 rack with 8 spares per rack
check_spares='
import json, sys
d = json.load(sys.stdin)
assert d["workload"]["global_batch"] == int(sys.argv[1]), d["workload"]["global_batch"]
racks = [c for c in d["ranked"] if c["gpu"] == "gb200-186gb"]
assert racks, [c["hardware"] for c in d["ranked"]]
c = racks[0]
assert c["hardware_kind"] == "server" and c["hardware"] == "gb200-nvl72/64+8", c["hardware"]
assert c["gpus_per_node"] == 64 and c["gpus"] == 64 * c["nodes"], (c["gpus_per_node"], c["gpus"])
assert c["spare_gpus"] == 8 * c["nodes"], c["spare_gpus"]
assert c["global_batch"] == int(sys.argv[1]) and c["global_batch"] % c["dp"] == 0
b = c["bom"]
# the whole racks are bought: every GPU, the rack price, liquid cooling
assert b["servers"] == c["nodes"] and b["gpus"] == 72 * c["nodes"], (b["servers"], b["gpus"])
assert b["server_usd"] >= 3e6 * c["nodes"] and b["capex_usd"] > b["server_usd"], b["capex_usd"]
assert b["cooling"] == "liquid", b["cooling"]
print(c["estimate_args"] + "\t%.17g" % c["step_s"] + "\t%d" % c["rank"])
'

# Llama 3 8B pretraining on GB200 only: before, 0 configurations and no reason
expect_rc 0 plan --buy onprem --model llama3-8b --task pretrain --tokens 1e12 --gpu gb200-186gb --json
IFS=$'\t' read -r args step rank < <(printf '%s' "$OUT" | python3 -c "$check_spares" 512)
CHECKS=$((CHECKS + 1))
[ "$rank" = 1 ] || fail "llama3-8b on gb200: the rack with spares is not first"
case "$args" in *"--server gb200-nvl72 "*"--gpus-per-node 64 "*) ;; *) fail "estimate line: $args";; esac
estimate_agrees "$args" "$step"
expect_rc 0 plan --buy onprem --model llama3-8b --task pretrain --tokens 1e12 --gpu gb200-186gb
expect_width 80
expect_out "gb200-nvl72 +8 "
expect_out "+N GPUs a node holds spare"
expect_out "  spares       64 of each node's 72 GPUs train"
expect_out "  buy          "

# Llama 3 70B pretraining over the whole catalog ranks the rack, spares and bill shown
expect_rc 0 plan --buy onprem --model llama3-70b --task pretrain --tokens 15e12 --json --no-explain
IFS=$'\t' read -r args step rank < <(printf '%s' "$OUT" | python3 -c "$check_spares" 512)
CHECKS=$((CHECKS + 1))
[ -n "$rank" ] && [ "$rank" -ge 1 ] || fail "llama3-70b: gb200-nvl72 not ranked"
estimate_agrees "$args" "$step"
# the architecture line of a 16-rack choice is whole (it was cut at 256 bytes)
expect_rc 0 plan --buy onprem --model llama3-70b --task pretrain --tokens 15e12 --deadline 90d --gpu gb200-186gb
expect_out "               cross the network"

# a batch of a multiple of 72 lets all 72 GPUs train; the batch is exactly the one given; a
# rack costs the same per GPU-hour bought, spares or not, and the whole rack wins by cost
expect_rc 0 plan --model llama3-8b --task pretrain --tokens 1e12 --gpu gb200-186gb --servers-only \
	--global-batch 576 --json --all --no-explain
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["workload"]["global_batch"] == 576 and d["no_layout"] is None
c = d["ranked"][0]
assert c["hardware"] == "gb200-nvl72" and c["gpus_per_node"] == 72 and c["spare_gpus"] == 0, c["hardware"]
assert c["global_batch"] == 576 and c["bom"]["gpus"] == c["gpus"]
one = {x["hardware"]: x for x in d["all"] if x["nodes"] == 1 and x["step_s"] > 0}
whole, spare = one["gb200-nvl72"], one["gb200-nvl72/64+8"]
assert spare["global_batch"] == 576 and spare["gpus"] == 64 and spare["spare_gpus"] == 8
assert whole["bom"]["capex_usd"] == spare["bom"]["capex_usd"] and spare["bom"]["gpus"] == 72
rate = lambda x: x["cost_usd"] / (x["hours"] * 72)
assert abs(rate(whole) - rate(spare)) <= 1e-9 * rate(whole), (rate(whole), rate(spare))
assert spare["energy_kwh"] > whole["energy_kwh"] * 64 / 72
' || fail "--global-batch 576: all 72 GPUs, or the spares priced unlike the rack"

# no layout of 72 GPUs divides the default batch: the reason and the nearest batches, exit 1
expect_rc 1 plan --buy onprem --model llama3-8b --task pretrain --tokens 1e12 --gpu gb200-186gb --no-spares
expect_width 80
expect_out "no layout of 72 GPUs (1x72 gb200-nvl72) divides the default global batch of 512"
expect_out "multiple of 9"
expect_out "try --global-batch 504 or 576 (multiples of 72)"
expect_out "without --no-spares"
case "$OUT" in *"nothing could be evaluated"*) fail "an empty answer without a reason";; esac
# an explicit batch is kept, or refused with the reason
expect_rc 1 plan --buy onprem --model llama3-8b --task pretrain --tokens 1e12 --gpu gb200-186gb --no-spares \
	--global-batch 500 --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["workload"]["global_batch"] == 500 and not d["ranked"]
why = d["no_layout"]
assert why and "global batch of 500" in why and "default" not in why, why
assert "try --global-batch 432 or 504" in why, why
' || fail "--global-batch 500: no reason or the wrong batches"

# serving never holds GPUs spare
expect_rc 0 plan --model llama3-8b --task infer --gpu gb200-186gb --json --no-explain
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ranked"] and all(c["spare_gpus"] == 0 for c in d["ranked"] + d["front"])
' || fail "inference with spares"

# estimate without --server or --gpus-per-node: 72 GB200s are one NVLink rack, not 9 servers of 8
expect_rc 0 estimate --model llama3-8b --gpu gb200-186gb --gpus 72 --task pretrain
expect_out "links: nvswitch 900 GB/s NVLS
"
case "$OUT" in *"across servers"*|*"on 9 servers"*) fail "72 GB200s split into servers of 8";; esac
expect_rc 0 estimate --model llama3-8b --gpu gb200-186gb --gpus 144 --task pretrain
expect_out "144 GPUs on 2 servers"

finish
