#!/bin/bash
# plan keeps a share of each GPU's memory free (--memory-headroom, default
# 10 %): in the default search of every preset no ranked choice fills more
# than the rest, and no owned run outlasts the service life (--years).
. "$TESTS/cli/lib.sh"

presets=$(awk -F, '!/^#/ && $1 != "key" && NF > 3 { print $1 }' "$SRCDIR/data/models/presets.csv")
CHECKS=$((CHECKS + 1))
[ "$(printf '%s\n' $presets | wc -l)" -ge 10 ] || fail "fewer than 10 presets found"
for m in $presets; do
	expect_rc 0 plan "$m" --no-explain --json
	printf '%s' "$OUT" >"$TMP/$m.json"
done
CHECKS=$((CHECKS + 1))
python3 - "$TMP" $presets <<'PY' || fail "a preset's ranked choice fills the headroom or outlasts the hardware"
import json, sys
bad = []
for m in sys.argv[2:]:
    d = json.load(open("%s/%s.json" % (sys.argv[1], m)))
    req = d["request"]
    if req["memory_headroom_pct"] != 10 or req["years"] != 5:
        bad.append((m, "request", req["memory_headroom_pct"], req["years"]))
    use = 1 - req["memory_headroom_pct"] / 100
    if not d["ranked"]:
        bad.append((m, "nothing ranked"))
    for c in d["ranked"] + d["front"]:
        if c["memory_total_bytes"] > use * c["memory_capacity_bytes"] * (1 + 1e-12):
            bad.append((m, c["hardware"], c["nodes"], "memory %.1f%%" % c["memory_pct"]))
        if c["cost_basis"] == "owned" and c["hours"] > req["years"] * 8766:
            bad.append((m, c["hardware"], c["nodes"], "%.2f years" % (c["hours"] / 8766)))
assert not bad, bad
PY

# the header says what is kept free; --memory-headroom changes it, 0 fills the GPUs again
expect_rc 0 plan llama3-70b --task pretrain --tokens 2e12 --deadline 30d --no-explain
OUT=$(printf '%s' "$OUT" | tr -s ' \n' ' ')
expect_out "10% of each one's memory kept free"
for h in 0 25; do
	expect_rc 0 plan llama3-70b --task pretrain --tokens 2e12 --deadline 30d --memory-headroom $h --no-explain --json
	printf '%s' "$OUT" | python3 -c '
import json, sys
h = float(sys.argv[1])
d = json.load(sys.stdin)
assert d["request"]["memory_headroom_pct"] == h, d["request"]
pct = [c["memory_pct"] for c in d["ranked"]]
assert pct and max(pct) <= 100 - h + 1e-9, pct
if h == 0:
    assert max(pct) > 90, pct  # without headroom the search fills the GPUs
' $h || fail "--memory-headroom $h"
done

# bad input: the flag and its range, nothing written
for v in 60 -1 ten; do
	expect_rc 2 plan --memory-headroom $v
	expect_err "--memory-headroom"
	CHECKS=$((CHECKS + 1))
	[ -z "$OUT" ] || fail "--memory-headroom $v wrote to stdout"
done
finish
