#!/bin/bash
# plan's output: rented choices carry a bill saying what is rented, cut
# names stay apart, a GB200 rack is not offered twice, and a run is whole
# optimizer steps.
. "$TESTS/cli/lib.sh"

# every choice carries its bill; a rented one says what is rented
expect_rc 0 plan llama2-13b --buy cloud --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for c in d["ranked"] + d["front"]:
    b = c["bom"]
    assert b is not None, c["hardware"]
    for k in ("capex_usd", "racks", "rack_kw", "cooling", "switches", "nics", "optics",
              "storage_tb", "power_kw"):
        assert k in b, (c["hardware"], k)
    assert b["rented"] is True and b["capex_usd"] == 0, c["hardware"]
    assert b["instance"] == c["hardware"] and b["usd_per_hour"] > 0, c["hardware"]
    assert b["gpus"] == b["servers"] * c["gpus_per_node"], c["hardware"]
    assert b["storage_tb"] > 0 and b["power_kw"] > 0 and b["cooling"] == "provided", c["hardware"]
' || fail "cloud: a choice without its rented bill"
expect_rc 0 plan llama2-13b --buy cloud
expect_out "  rent         nothing to buy: "
expect_out " rented at"
expect_width 80
expect_rc 0 plan llama2-13b --buy cloud --report "$TMP/r.html"
grep -q "nothing to buy: " "$TMP/r.html" || fail "report: no rented bill"
# owned choices say they are bought
expect_rc 0 plan unet3d --buy onprem --samples 300 --epochs 4000 --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for c in d["ranked"]:
    assert c["bom"]["rented"] is False and c["bom"]["capex_usd"] > 0, c["hardware"]
' || fail "owned: bill marked rented"

# names cut to fit 80 columns never make two different rows read alike
expect_rc 0 plan llama3-70b --task infer --buy cloud
expect_width 80
# the hardware cells of the top table, by the header's column positions
printf '%s\n' "$OUT" | python3 -c '
import sys
lines = sys.stdin.read().split("\n")
h = next(i for i, l in enumerate(lines) if l.lstrip().startswith("#  hardware"))
a, b = lines[h].index("hardware"), lines[h].index("layout")
for l in lines[h + 2:]:
    if not l.strip() or l.startswith("layout"):
        break
    print(l[a:b].rstrip())
' >"$TMP/hw"
expect_rc 0 plan llama3-70b --task infer --buy cloud --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
full = ["%dx%d %s" % (c["nodes"], c["gpus_per_node"], c["label"]) for c in d["ranked"]]
shown = [l.rstrip("\n") for l in open(sys.argv[1])]
assert len(shown) == len(full), (shown, full)
for i in range(len(full)):
    for j in range(i):
        if full[i] != full[j]:
            assert shown[i] != shown[j], (shown[i], full[i], full[j])
' "$TMP/hw" || fail "two different rows read alike once cut"

# a GB200 is sold as its NVL72 rack: the catalog rack, not a generic twin of it
expect_rc 0 plan llama2-7b --global-batch 576 --gpu gb200 --json --all
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
rows = [c for c in d["all"] if c["gpu"].startswith("gb200")]
assert any(c["hardware"] == "gb200-nvl72" for c in rows), "no catalog NVL72"
for c in rows:
    assert not (c["hardware_kind"] == "generic" and c["gpus_per_node"] == 72), c["hardware"]
' || fail "a generic 72-GPU GB200 node beside the catalog NVL72"

# a run is at least one whole step, and the header says so
expect_rc 0 plan --tokens 1 --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for c in d["ranked"]:
    assert c["train_steps"] == 1, (c["hardware"], c["train_steps"])
    assert c["time_to_finish_s"] >= c["step_s"] * 0.999, (c["hardware"], c["time_to_finish_s"], c["step_s"])
' || fail "--tokens 1: a run shorter than one step"
expect_rc 0 plan --tokens 1
expect_out "a run is whole optimizer steps"
expect_rc 0 estimate --model llama2-7b --gpu h100-sxm5-80gb --gpus 8 --zero 3 --tokens 1 --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["train_steps"] == 1 and d["time_to_train_s"] == d["time"]["step_s"], (d["train_steps"], d["time_to_train_s"])
' || fail "estimate --tokens 1: not one step"
# a large run is as before, within a step
expect_rc 0 estimate --model llama2-7b --gpu h100-sxm5-80gb --gpus 8 --zero 3 --tokens 1e9 --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
t = 1e9 / d["throughput"]["tokens_per_s"]
assert t <= d["time_to_train_s"] < t + d["time"]["step_s"], (t, d["time_to_train_s"])
' || fail "estimate --tokens 1e9: not whole steps"

finish
