#!/bin/bash
# tco --have N x SERVER: a year of keeping servers already owned (power,
# space, staff, support; no capex) against renting the same GPUs at each
# price tier, the same account plan --have charges; every figure checked
# against its formula and the text against the JSON.
. "$TESTS/cli/lib.sh"

expect_rc 0 tco --have 4x dgx-a100 --price-tier 1y --json
expect_json
printf '%s' "$OUT" >"$TMP/keep.json"
expect_rc 0 tco --have 4x dgx-a100 --price-tier 1y
expect_width 80
printf '%s' "$OUT" >"$TMP/keep.txt"
expect_out "no capex"
expect_out "Against renting the same GPUs, each price of p4d.24xlarge"
expect_rc 0 plan --have 4x dgx-a100 --model llama3-8b --task lora --no-explain --json
printf '%s' "$OUT" >"$TMP/plan.json"
CHECKS=$((CHECKS + 1))
python3 - "$TMP/keep.json" "$TMP/keep.txt" "$TMP/plan.json" <<'PY' || fail "tco --have"
import json, math, re, sys
d = json.load(open(sys.argv[1]))
text = " ".join(open(sys.argv[2]).read().split())
plan = json.load(open(sys.argv[3]))
def near(a, b, what):
    assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6), (what, a, b)
k = d["keep"]
assert d["server"] == "dgx-a100-320gb" and k["servers"] == 4 and k["gpus"] == 32
assert d["price_tier"] == "1y" and d["instance"] == "p4d.24xlarge"
near(k["usd_per_year"], k["energy_usd_per_year"] + k["space_usd_per_year"] + k["staff_usd_per_year"] +
     k["support_usd_per_year"], "keep sum")
near(k["gpu_hours_per_year"], 32 * 8766 * 0.70, "GPU-hours")
near(k["usd_per_gpu_hour"], k["usd_per_year"] / k["gpu_hours_per_year"], "per GPU-hour")
# the same account as plan --have's
near(k["usd_per_year"], plan["have"]["owned_usd_per_year"], "plan --have")
tiers = {t["tier"]: t for t in d["tiers"]}
assert list(tiers) == ["on-demand", "1y", "3y", "spot"], list(tiers)
for t in tiers.values():
    near(t["usd_per_gpu_hour"], t["usd_per_hour"] / 8, "rate " + t["tier"])
    hours = 32 * 8766 * (1 if t["pricing"] == "reserved" else 0.70)
    near(t["rent_usd_per_year"], hours * t["usd_per_gpu_hour"], "rent " + t["tier"])
    near(t["keep_usd_per_year"], k["usd_per_year"], "keep " + t["tier"])
    near(t["savings_usd_per_year"], t["rent_usd_per_year"] - t["keep_usd_per_year"], "saves " + t["tier"])
    assert (t["breakeven_utilisation_pct"] is None) == (t["own_when"] is None), t
# a term's rent does not grow with use: keeping 4 paid-off servers beats it at any use here
assert tiers["1y"]["own_when"] is None and tiers["1y"]["savings_usd_per_year"] > 0
assert tiers["on-demand"]["own_when"] == "above" and 0 < tiers["on-demand"]["breakeven_utilisation_pct"] < 70
# the text's verdict: the named tier's figures
m = re.search(r"keeping them costs \$([0-9.]+)k a year and renting the same GPUs \$([0-9.]+)k: keeping "
              r"saves \$([0-9.]+)k a year", text)
assert m, text
for got, want in zip(m.groups(), ("keep_usd_per_year", "rent_usd_per_year", "savings_usd_per_year")):
    assert abs(float(got) * 1e3 - tiers["1y"][want]) <= 0.0051 * tiers["1y"][want], (got, want)
assert " ".join(d["verdict"].split()) in text and d["verdict"].startswith("Against the 1y price"), d["verdict"]
assert "above 19.3 %" in text and "always" in text
PY

# at the break-even utilisation keeping and renting on demand cost the same
u=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tiers"][0]["breakeven_utilisation_pct"])' "$TMP/keep.json")
expect_rc 0 tco --have 4x dgx-a100 --utilisation "$u" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
t = json.load(sys.stdin)["tiers"][0]
assert t["tier"] == "on-demand" and abs(t["savings_usd_per_year"]) < 1e-6 * t["keep_usd_per_year"], t
' || fail "the break-even utilisation is not where rent = keep"
CHECKS=$((CHECKS + 1))

# errors: a server the catalog lacks, --have with what it names, twice
expect_rc 2 tco --have 4x dgx-z900
expect_err "--have"
expect_rc 2 tco --have 4x dgx-a100 --server dgx-h100
expect_err "excludes --server"
expect_rc 2 tco --have 4x dgx-a100 --have 2x dgx-h100
expect_err "--have once"
expect_rc 2 tco --have 0x dgx-a100
expect_err "--have"
finish
