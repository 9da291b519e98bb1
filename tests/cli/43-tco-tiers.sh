#!/bin/bash
# tco --price-tier: owning against a 1-year or 3-year commitment or spot instead of
# on-demand, the break-even against every tier the instance has, and the errors of a
# tier the instance does not have.
. "$TESTS/cli/lib.sh"

GB200="--server gb200-nvl72 --count 16"
# shellcheck disable=SC2086
expect_rc 0 tco $GB200 --json
expect_json
printf '%s' "$OUT" >"$TMP/od.json"
# shellcheck disable=SC2086
expect_rc 0 tco $GB200 --price-tier 3y
expect_width 80
expect_no_crash
expect_out "3y commitment (every hour"
expect_out "3y committed"
expect_out "Against each price of GB200 NVL72 node"
expect_out "Against the 3y price rather than on-demand, owning saves"
expect_out "data/clouds.csv:"
expect_out "3y price"
# shellcheck disable=SC2086
expect_rc 0 tco $GB200 --price-tier 3y --json
expect_json
printf '%s' "$OUT" >"$TMP/3y.json"
python3 - "$TMP/od.json" "$TMP/3y.json" <<'PY' || fail "3y against on-demand"
import json, math, sys
od, d = (json.load(open(p)) for p in sys.argv[1:3])
def near(a, b, what):
    if not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6):
        sys.exit("%s: %r != %r" % (what, a, b))
c = d["cloud"]
assert c["price_tier"] == "3y" and c["pricing"] == "reserved", c
assert od["cloud"]["price_tier"] == "on-demand" and od["cloud"]["pricing"] == "on-demand"
assert c["instance"] == od["cloud"]["instance"]
# a commitment pays every hour of the period for whole instances
hours = d["owned"]["hours"]
near(c["total_usd"], c["instances"] * c["gpus_per_instance"] * hours * c["usd_per_gpu_hour"], "3y total")
assert d["savings_usd"] != od["savings_usd"]
tiers = {t["tier"]: t for t in d["tiers"]}
assert list(tiers) == ["on-demand", "1y", "3y"], list(tiers)
# each tier's row is the account against that tier
near(tiers["3y"]["savings_usd"], d["savings_usd"], "3y savings")
near(tiers["on-demand"]["savings_usd"], od["savings_usd"], "on-demand savings")
near(tiers["on-demand"]["breakeven_month"], od["breakeven_month"], "on-demand break-even")
near(tiers["3y"]["breakeven_month"], d["breakeven_month"], "3y break-even")
near(tiers["on-demand"]["breakeven_utilisation_pct"], od["flips"]["utilisation"]["value"], "flip")
for t in tiers.values():
    near(t["savings_change_usd"], t["savings_usd"] - od["savings_usd"], "change " + t["tier"])
    assert t["pricing"] == ("reserved" if t["tier"] in ("1y", "3y") else "on-demand"), t
# the same tiers in the JSON of the on-demand run
assert [t["tier"] for t in od["tiers"]] == ["on-demand", "1y", "3y"]
near(od["tiers"][2]["savings_usd"], d["savings_usd"], "3y from on-demand run")
PY
CHECKS=$((CHECKS + 1))

# spot pays the hours used, at the spot price
expect_rc 0 tco --server dgx-h100 --cloud p5.48xlarge --price-tier spot --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, math, sys
d = json.load(sys.stdin)
c = d["cloud"]
assert c["price_tier"] == "spot" and c["pricing"] == "on-demand", c
spot = d["inputs"]["cloud-price"]["value"]
assert spot < 55.04, spot
assert "spot price" in d["inputs"]["cloud-price"]["from"], d["inputs"]["cloud-price"]
assert math.isclose(c["total_usd"], d["owned"]["gpu_hours_used"] * spot / 8, rel_tol=1e-9)
assert [t["tier"] for t in d["tiers"]] == ["on-demand", "1y", "3y", "spot"]
' || fail "spot account"
CHECKS=$((CHECKS + 1))

# a quote stands in for the catalog's price at the tier
expect_rc 0 tco --server dgx-h100 --cloud p5.48xlarge --price-tier 1y --cloud-price 30 --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["inputs"]["cloud-price"]["value"] == 30 and d["inputs"]["cloud-price"]["from"] == "--cloud-price"
assert d["cloud"]["pricing"] == "reserved" and d["cloud"]["price_tier"] == "1y"
t = {x["tier"]: x for x in d["tiers"]}
assert t["1y"]["usd_per_hour"] == 30 and t["3y"]["usd_per_hour"] < 30
' || fail "1y with --cloud-price"
CHECKS=$((CHECKS + 1))

# the report carries the tiers too
# shellcheck disable=SC2086
expect_rc 0 tco $GB200 --price-tier 3y --report "$TMP/r.html"
grep -q 'id="tco-tiers"' "$TMP/r.html" || fail "report has no tier table"
grep -q '>3y<' "$TMP/r.html" || fail "report tier table lacks 3y"
CHECKS=$((CHECKS + 2))

# a tier the instance does not have: the instance and the tiers it has, exit 2, nothing written
expect_rc 2 tco --server gb200-nvl72 --cloud coreweave-gb200-nvl72-node --price-tier spot \
	--report "$TMP/no.html"
expect_err "coreweave-gb200-nvl72-node"
expect_err "no spot price"
expect_err "it has on-demand, 1y, 3y"
[ ! -e "$TMP/no.html" ] || fail "a report was written"
CHECKS=$((CHECKS + 1))
expect_rc 2 tco --server gb200-nvl72 --price-tier spot
expect_err "no catalog instance with gb200-186gb GPUs has a spot price"
expect_rc 2 tco --server dgx-h100 --price-tier 2y
expect_err "--price-tier"
expect_err "on-demand, 1y, 3y, spot"
expect_rc 2 tco --server dgx-h100 --price-tier 3y --reserved 30
expect_err "--reserved"
expect_rc 2 tco --server dgx-h100 --no-cloud --price-tier 1y
expect_err "--no-cloud"
finish
