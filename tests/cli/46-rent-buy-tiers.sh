#!/bin/bash
# Rent or buy at the price tier asked: `plan --price-tier` prices the rent side
# of the first choice's comparison at that tier (a committed rate charged for
# the hours used, as the ranking charges rentals), and `tco`'s tier table says
# for every tier whether owning wins: above or below a utilisation, or at every
# utilisation ("always") or none ("never") when a commitment pays every hour.
# Each figure is checked against the JSON and the catalog's prices.
. "$TESTS/cli/lib.sh"

for t in on-demand 1y 3y spot; do
	expect_rc 0 plan --price-tier "$t" --json
	printf '%s' "$OUT" >"$TMP/plan-$t.json"
done
expect_rc 0 catalog clouds --json
printf '%s' "$OUT" >"$TMP/clouds.json"
CHECKS=$((CHECKS + 1))
python3 - "$TMP" <<'PY' || fail "plan: the rent side is not priced at the tier asked"
import json, math, sys
tmp = sys.argv[1]
clouds = {c["key"]: c for c in json.load(open(tmp + "/clouds.json"))}
col = {"on-demand": "usd_per_hour", "1y": "usd_per_hour_1y", "3y": "usd_per_hour_3y", "spot": "usd_per_hour_spot"}
rate = {}
for t in col:
    d = json.load(open("%s/plan-%s.json" % (tmp, t)))
    ex = d["explanation"]
    text = ex["rent_or_buy"]
    assert ex["rent_tier"] == t, (t, ex["rent_tier"])
    inst = clouds[ex["rent_instance"]]
    # the instance's own price at the tier, a GPU-hour
    want = inst[col[t]] / inst["gpu_count"]
    assert math.isclose(ex["rent_usd_per_gpu_hour"], want, rel_tol=1e-9), (t, ex["rent_usd_per_gpu_hour"], want)
    # the run's GPU-hours at that rate: the first choice's rented cost when it is that instance
    first = d["ranked"][0]
    gpu_hours = ex["rent_usd"] / ex["rent_usd_per_gpu_hour"]
    if first.get("cloud") == ex["rent_instance"] or first.get("hardware") == ex["rent_instance"]:
        assert math.isclose(first["cost_usd"], ex["rent_usd"], rel_tol=1e-9), (t, first["cost_usd"], ex["rent_usd"])
    rate[t] = (ex["rent_usd_per_gpu_hour"], ex["breakeven_utilisation_pct"], ex["breakeven_jobs_per_year"],
               gpu_hours, ex["own_usd"])
    words = {"on-demand": "rented on demand", "1y": "rented at the 1y committed rate for the hours used",
             "3y": "rented at the 3y committed rate for the hours used", "spot": "rented at spot prices"}[t]
    assert words in text, (t, words)
    assert ("at $%.2f a GPU-hour" % ex["rent_usd_per_gpu_hour"]) in text, t
# the same GPU-hours and the same owned side at every tier; cheaper rent, later break-even
base = rate["on-demand"]
for t in ("1y", "3y", "spot"):
    r = rate[t]
    assert math.isclose(r[3], base[3], rel_tol=1e-9) and r[4] == base[4], (t, r, base)
    assert r[0] < base[0] and r[1] > base[1] and r[2] > base[2], (t, r, base)
assert rate["3y"][0] < rate["1y"][0] and rate["3y"][1] > rate["1y"][1]
PY

# tco: the tier table's "owning wins" column for every tier, as the JSON says
expect_rc 0 tco --server dgx-h100 --json
printf '%s' "$OUT" >"$TMP/tco.json"
expect_rc 0 tco --server dgx-h100
printf '%s' "$OUT" >"$TMP/tco.txt"
expect_rc 0 tco --server dgx-h100 --utilisation 100 --json
printf '%s' "$OUT" >"$TMP/tco-100.json"
expect_rc 0 tco --server dgx-h100 --utilisation 5 --json
printf '%s' "$OUT" >"$TMP/tco-5.json"
CHECKS=$((CHECKS + 1))
python3 - "$TMP" <<'PY' || fail "tco: the owning-wins column disagrees with the JSON or the savings"
import json, re, sys
tmp = sys.argv[1]
d = json.load(open(tmp + "/tco.json"))
text = open(tmp + "/tco.txt").read()
at = {u: {t["tier"]: t for t in json.load(open("%s/tco-%s.json" % (tmp, u)))["tiers"]} for u in ("100", "5")}
seen = set()
for t in d["tiers"]:
    w, pct = t["own_when"], t["breakeven_utilisation_pct"]
    assert w in ("above", "below", "always", "never"), t
    cell = "%s %.2f %%" % (w, pct) if pct is not None else w
    m = re.search(r"^%s +.*\s%s$" % (re.escape(t["tier"]), re.escape(cell)), text, re.M)
    assert m, (t["tier"], cell)
    # always / never: owning saves at both ends of the utilisation's range, or at neither
    if w == "always":
        assert pct is None and at["100"][t["tier"]]["savings_usd"] > 0 and at["5"][t["tier"]]["savings_usd"] > 0, t
    if w == "never":
        assert pct is None and at["100"][t["tier"]]["savings_usd"] <= 0 and at["5"][t["tier"]]["savings_usd"] <= 0, t
    seen.add(t["tier"])
    if t["tier"] in ("1y", "3y"):
        assert t["pricing"] == "reserved", t
assert {"on-demand", "1y", "3y"} <= seen, seen
PY
finish
