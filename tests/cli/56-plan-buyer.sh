#!/bin/bash
# plan for a buyer: shapes that exist, a bill of materials for every choice,
# a small job on one node, capex as an objective, goodput at scale, and
# clear messages for a rack, a budget or a deadline nothing meets.
. "$TESTS/cli/lib.sh"

# a 20-minute job: one node of at most 8 GPUs, with its bill of materials
expect_rc 0 plan unet3d --buy onprem --samples 300 --epochs 4000 --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
c = d["ranked"][0]
assert c["nodes"] == 1 and c["gpus"] <= 8, (c["hardware"], c["nodes"], c["gpus"])
for c in d["ranked"] + d["front"]:
    b = c["bom"]
    assert b is not None and b["capex_usd"] > 0 and b["racks"] >= 1 and b["power_kw"] > 0, c["hardware"]
    for k in ("rack_kw", "cooling", "switches", "nics", "optics", "storage_tb"):
        assert k in b, k
# the explanation says what more capex would buy, and that it is not worth it here
alt = [a for a in d["explanation"]["alternatives"] if a["kind"] == "capex"]
assert alt and "not worth" in alt[0]["text"], alt
' || fail "unet3d: first choice or bill of materials"
expect_rc 0 plan unet3d --buy onprem --samples 300 --epochs 4000
expect_width 80
# data parallelism of a 31M-parameter net: PCIe does as well, and the note says so (no "TP=1 all-reduce")
expect_out "this job barely uses the"
case "$OUT" in *"TP=1 all-reduce"*) fail "a note prices a TP=1 all-reduce";; esac
expect_out "capex"
expect_out "vol/s"
expect_out "  buy          "

# shapes that exist: no SXM/OAM part in nodes of 1 or 2, GB200 only in NVLink domains
expect_rc 0 plan llama2-7b --buy onprem --json --all --max-gpus 256
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for c in d["all"]:
    if c["hardware_kind"] != "generic":
        continue
    g, n = c["gpu"], c["gpus_per_node"]
    if "sxm" in g or g.startswith(("mi300x", "mi325x", "gaudi")):
        assert n in (4, 8), (c["hardware"], n)
    if g.startswith("gb200"):
        assert n in (36, 72), (c["hardware"], n)
' || fail "a searched shape cannot be bought"

# ResNet-50 on ImageNet: one node without a deadline
expect_rc 0 plan resnet50 --buy onprem --task pretrain --samples 1281167 --epochs 90 --json
printf '%s' "$OUT" | python3 -c '
import json, sys
c = json.load(sys.stdin)["ranked"][0]
assert c["nodes"] == 1, (c["hardware"], c["nodes"])
' || fail "resnet50 is not on one node"

# Llama 3 70B pretraining within 90 days: capex, racks, kW per rack, switch tiers, goodput
expect_rc 0 plan llama3-70b --buy onprem --task pretrain --tokens 15e12 --deadline 90d --json
printf '%s' "$OUT" | python3 -c '
import json, sys
c = json.load(sys.stdin)["ranked"][0]
b = c["bom"]
assert c["nodes"] > 1 and b["switch_tiers"] >= 2 and len(b["switches"]) == b["switch_tiers"]
assert b["capex_usd"] > b["server_usd"] > 0 and b["racks"] > 1 and b["rack_kw"] > 0
assert 0.5 < c["goodput"] < 1 and c["interruptions"] > 0 and c["checkpoint_write_s"] > 0
assert abs(c["hours"] * c["goodput"] - c["ideal_hours"]) < 1e-6 * c["hours"]
assert c["hours"] * 3600 <= 90 * 86400
' || fail "llama3-70b: bill of materials or goodput"
expect_rc 0 plan llama3-70b --buy onprem --task pretrain --tokens 15e12 --deadline 90d
expect_out "goodput"
expect_out "spine"

# a fixed checkpoint interval is used as given
expect_rc 0 plan llama3-70b --buy onprem --task pretrain --tokens 15e12 --deadline 90d --checkpoint-every 6h --json
printf '%s' "$OUT" | python3 -c '
import json, sys
c = json.load(sys.stdin)["ranked"][0]
assert abs(c["checkpoint_every_s"] - 6 * 3600) < 1e-6, c["checkpoint_every_s"]
' || fail "--checkpoint-every"

# capex: the cheapest purchase that meets the deadline, ranked by its bill
expect_rc 0 plan llama3-70b --task pretrain --tokens 15e12 --deadline 90d --objective capex --json
printf '%s' "$OUT" | python3 -c '
import json, sys
r = json.load(sys.stdin)["ranked"]
caps = [c["bom"]["capex_usd"] for c in r]
assert caps == sorted(caps), caps
assert all(c["meets_constraints"] for c in r)
' || fail "--objective capex"

# bad input: a clear message and the closest choice
expect_rc 1 plan resnet50 --buy onprem --task pretrain --samples 1281167 --epochs 90 --budget 1
expect_out "no configuration meets the budget (\$1.00 to buy); the nearest miss is"
expect_rc 1 plan llama3-70b --buy onprem --task pretrain --tokens 15e12 --deadline 2d
expect_out "no configuration meets the deadline; the nearest miss is"
expect_rc 1 plan llama3-70b --task pretrain --tokens 15e12 --gpu b200-sxm-180gb --rack-kw 10
expect_out "no configuration meets the rack-power limit (--rack-kw)"
expect_out "one b200-sxm nvs draws"
expect_rc 2 plan resnet50 --rack-kw 0.5
expect_err "--rack-kw 0.5"
expect_rc 2 plan llama2-7b --buy cloud --objective capex
expect_err "do not apply to --buy cloud"
finish
