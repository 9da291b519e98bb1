#!/bin/bash
# plan --buy cloud: instances priced at the --price-tier asked, and those without a
# price there left out with the reason; clusters from the providers that rent them, and
# no cluster of one-GPU instances on a general-purpose network.
. "$TESTS/cli/lib.sh"

W="llama2-7b --task pretrain --tokens 2e12 --deadline 30d"
expect_rc 0 catalog clouds --json
printf '%s' "$OUT" >"$TMP/clouds.json"

# every choice is charged its instance's 3y price per GPU-hour
# shellcheck disable=SC2086
expect_rc 0 plan $W --buy cloud:aws --price-tier 3y --json
expect_json
printf '%s' "$OUT" >"$TMP/3y.json"
# shellcheck disable=SC2086
expect_rc 0 plan $W --buy cloud:aws --json
printf '%s' "$OUT" >"$TMP/od.json"
python3 - "$TMP/clouds.json" "$TMP/3y.json" "$TMP/od.json" <<'PY' || fail "3y rates"
import json, math, sys
clouds = {c["key"]: c for c in json.load(open(sys.argv[1]))}
for path, col in ((sys.argv[2], "usd_per_hour_3y"), (sys.argv[3], "usd_per_hour")):
    d = json.load(open(path))
    assert d["ranked"], path
    for r in d["ranked"]:
        c = clouds[r["hardware"]]
        assert math.isclose(r["usd_per_gpu_hour"], c[col] / c["gpu_count"], rel_tol=1e-9), (r["hardware"], col)
PY
CHECKS=$((CHECKS + 1))
# shellcheck disable=SC2086
expect_rc 0 plan $W --buy cloud:aws --price-tier 3y
expect_out "aws at 3y prices"
expect_width 80

# spot: only instances with a spot price; the others left out, with the reason
# shellcheck disable=SC2086
expect_rc 0 plan $W --buy cloud --price-tier spot
expect_out "cloud instances at spot prices"
expect_out "left out: instances without a price at the --price-tier asked:"
expect_out "gpu-8x-h100-sxm5"
expect_width 80
# shellcheck disable=SC2086
expect_rc 0 plan $W --buy cloud --price-tier spot --json
printf '%s' "$OUT" | python3 -c '
import json, sys
clouds = {c["key"]: c for c in json.load(open(sys.argv[1]))}
d = json.load(sys.stdin)
assert d["ranked"]
assert all(clouds[r["hardware"]].get("usd_per_hour_spot") for r in d["ranked"])
' "$TMP/clouds.json" || fail "spot choices without a spot price"
CHECKS=$((CHECKS + 1))

# Lambda rents clusters as 1-Click Clusters: the deadline is met on several nodes
# shellcheck disable=SC2086
expect_rc 0 plan $W --buy cloud:lambda --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ranked"], "lambda meets no deadline"
r = d["ranked"][0]
assert r["nodes"] > 1 and r["hardware"].startswith("lambda-1cc-"), r["hardware"]
assert r["network"] == "3200 Gb/s", r["network"]
' || fail "no multi-node lambda choice"
CHECKS=$((CHECKS + 1))
# one-GPU instances on 10-25 Gb/s are used alone: no 2048 x g6.4xlarge
# shellcheck disable=SC2086
expect_rc 0 plan $W --buy cloud:aws --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for r in d["ranked"] + d["front"]:
    assert not (r["gpus_per_node"] == 1 and r["nodes"] > 1), (r["hardware"], r["nodes"])
assert d["ranked"][0]["gpus_per_node"] == 8
' || fail "a cluster of one-GPU instances"
CHECKS=$((CHECKS + 1))

# shellcheck disable=SC2086
expect_rc 2 plan $W --buy cloud --price-tier 2y
expect_err "--price-tier"
expect_err "on-demand, 1y, 3y, spot"
finish
