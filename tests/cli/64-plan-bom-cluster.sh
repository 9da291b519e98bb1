#!/bin/bash
# plan: the bill of materials of a 1,024-GPU H100 cluster as a builder writes
# it (front-end and storage network, management network, power distribution,
# installation, staff by cluster size, licences on request) in the text, the
# JSON, the CSV fields and the report, and its capex against a published
# cluster cost breakdown.
. "$TESTS/cli/lib.sh"

# The published figure (docs/plan.md, "The bill of materials"): tech-talk-cto's
# H100 cluster cost sheet of August 2024 ("H100 Freakonomics", substack.tech-talk-cto.com),
# row "128 nodes, 1,024 H100": $39,680,000 of servers with their InfiniBand cards,
# $1,728,000 for 48 switches, $2,621,440 of connectors and cables and $6,400,000 of
# facility and operations, $50,429,440 in all ($49,248 an H100, the article's
# "about $50k per GPU").
PUBLISHED_USD=50429440
BAND=0.15

CLUSTER="llama3-70b --task pretrain --tokens 15e12 --gpu h100-sxm5 --max-gpus 1024 --objective time --buy onprem"

# shellcheck disable=SC2086
expect_rc 0 plan $CLUSTER --json
expect_json
printf '%s' "$OUT" >"$TMP/plan.json"
python3 - "$TMP/plan.json" "$PUBLISHED_USD" "$BAND" <<'PY' || fail "the 1,024-GPU bill"
import json, math, sys
d = json.load(open(sys.argv[1]))
published, band = float(sys.argv[2]), float(sys.argv[3])
c = d["ranked"][0]
b = c["bom"]
assert c["gpus"] == 1024 and c["hardware"] == "hgx-h100-8", (c["gpus"], c["hardware"])
# every line a builder lists, each priced from a dated catalog row
for k in ("frontend", "oob", "power_distribution", "installation"):
    assert b[k]["usd"] > 0 and b[k]["part"] and b[k]["source"] and b[k]["as_of"], (k, b[k])
fe = b["frontend"]
assert fe["count"] == 256 and fe["gbps"] > 0 and fe["tiers"] >= 1 and fe["switches"], fe
assert b["oob"]["count"] >= b["racks"] and b["oob"]["ports"] >= 128, b["oob"]
assert b["installation"]["count"] == 1024
assert b["unpriced"] == "", b["unpriced"]
lines = (b["server_usd"] + b["fabric_usd"] + fe["usd"] + b["oob"]["usd"] + b["storage_usd"] + b["cooling_usd"]
         + b["power_distribution"]["usd"] + b["installation"]["usd"])
assert math.isclose(b["capex_usd"], lines, rel_tol=1e-12), (b["capex_usd"], lines)
# staff by cluster size, from a published ratio; no licence unless asked for
st = b["staff"]
assert math.isclose(st["engineers"], 1024 / st["gpus_per_engineer"]["value"], rel_tol=1e-12), st
assert st["gpus_per_engineer"]["source"] and st["usd_per_year"] > 0, st
assert b["licence"]["part"] is None and b["licence"]["usd"] == 0, b["licence"]
assert math.isclose(b["opex_usd_per_year"], st["usd_per_year"], rel_tol=1e-12)
# the choice's bom_* fields are the bill's
for f, v in (("bom_frontend_usd", fe["usd"]), ("bom_oob_usd", b["oob"]["usd"]),
             ("bom_power_distribution_usd", b["power_distribution"]["usd"]),
             ("bom_install_usd", b["installation"]["usd"]), ("bom_staff_engineers", st["engineers"]),
             ("bom_staff_usd_per_year", st["usd_per_year"]), ("bom_licence_usd_per_year", 0)):
    assert math.isclose(c[f], v, rel_tol=1e-12, abs_tol=1e-9), (f, c[f], v)
# within the band of the published cluster cost
off = b["capex_usd"] / published - 1
assert abs(off) <= band, "capex $%.2fM is %+.1f %% of the published $%.2fM" % (b["capex_usd"] / 1e6, 100 * off, published / 1e6)
print("capex $%.2fM, %+.1f %% of the published $%.2fM" % (b["capex_usd"] / 1e6, 100 * off, published / 1e6))
PY

# the text names every line
# shellcheck disable=SC2086
expect_rc 0 plan $CLUSTER
expect_width 80
for w in "front" "management" "power distribution" "installation" "staff" "licences none"; do
	printf '%s' "$OUT" | tr '\n' ' ' | tr -s ' ' | grep -q "$w" || fail "the bill's text lacks '$w'"
	CHECKS=$((CHECKS + 1))
done

# NVIDIA AI Enterprise on request: a year of it for every GPU bought, in the cost of the run
# shellcheck disable=SC2086
expect_rc 0 plan $CLUSTER --licence nvaie --json
printf '%s' "$OUT" >"$TMP/licence.json"
python3 - "$TMP/plan.json" "$TMP/licence.json" <<'PY' || fail "--licence nvaie"
import json, math, sys
a, b = (json.load(open(p))["ranked"][0] for p in sys.argv[1:3])
lic = b["bom"]["licence"]
assert lic["part"] == "nvaie" and lic["source"] and lic["count"] == 1024, lic
assert math.isclose(lic["usd"], 1024 * 4500, rel_tol=1e-12), lic
assert math.isclose(b["bom_licence_usd_per_year"], lic["usd"], rel_tol=1e-12)
assert b["bom"]["capex_usd"] == a["bom"]["capex_usd"]
assert b["hours"] == a["hours"] and b["cost_usd"] > a["cost_usd"], (a["cost_usd"], b["cost_usd"])
PY
expect_rc 2 plan --licence sw-ib-ndr
expect_err "--licence"
expect_err "not a licence"
expect_rc 2 plan --licence nvaei
expect_err "nvaie"
expect_rc 2 plan --buy cloud --licence nvaie
expect_err "--buy cloud"
expect_rc 0 plan --licence none --no-explain

# the report's bill has the same lines
# shellcheck disable=SC2086
expect_rc 0 plan $CLUSTER --report "$TMP/plan.html"
for w in "front end" "management switches" "power distribution" "installation and integration" "A year of running it"; do
	grep -q "$w" "$TMP/plan.html" || fail "the report's bill lacks '$w'"
	CHECKS=$((CHECKS + 1))
done

finish
