#!/bin/bash
# plan --buy cloud: instances priced at the --price-tier asked, and those without a
# price there left out with the reason.
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

# shellcheck disable=SC2086
expect_rc 2 plan $W --buy cloud --price-tier 2y
expect_err "--price-tier"
expect_err "on-demand, 1y, 3y, spot"
finish
