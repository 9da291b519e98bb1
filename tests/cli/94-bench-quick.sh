#!/bin/bash
# bench --quick: the healthy H100 passes, the one capped at half power and
# the one at PCIe x8 are flagged with their cause; a fleet baseline file works
# as the reference.
. "$TESTS/cli/lib.sh"
export GPUSCOPE_BENCH_LIBS="$BUILDDIR/fake-cuda"
NVML=(--nvml "$BUILDDIR/fake-nvml/libnvidia-ml.so.1")
scenario() {
	export FAKE_CUDA_SCENARIO="$TESTS/fake-cuda/scenarios/$1.ini"
	export FAKE_NVML_SCENARIO="$TESTS/fake-nvml/scenarios/bench-$1.ini"
}

scenario h100
expect_rc 0 bench "${NVML[@]}" --quick
expect_out "gpu 0: as fast as the catalog's figures (GEMM 96 %, HBM 95 %, host copies 103 %)"
expect_out "gpu 7: as fast as"
expect_rc 0 bench "${NVML[@]}" --quick --only gemm,hbm --output "$TMP/fleet.json"

scenario h100-halfpower
expect_rc 1 bench "${NVML[@]}" --quick
expect_width 80
expect_out "gpu 3: this GPU is 52 % slower than its peers (GEMM 48 %, HBM 89 %, host copies
       103 % of the catalog's figures); likely cause: power cap (limit 350 of
       700 W)"
# against the fleet's own healthy GPU: GEMM at exactly half
expect_rc 1 bench "${NVML[@]}" --quick --baseline "$TMP/fleet.json" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
q = json.load(sys.stdin)["quick"]
assert len(q) == 8 and all(v["flagged"] for v in q)
assert all(abs(v["gemm_ratio"] - 0.5) < 1e-3 for v in q), q[0]
assert abs(q[0]["slower_pct"] - 50) < 0.1 and q[0]["cause"].startswith("power cap"), q[0]
' || fail "quick against the baseline"

scenario h100-pcie-x8
expect_rc 1 bench "${NVML[@]}" --quick
expect_width 80
expect_out "gpu 5: its host link is 49 % slower than its peers (GEMM 96 %, HBM 95 %, host
       copies 51 % of the catalog's figures); likely cause: PCIe link x8 of x16,
       gen 5 of 5"
expect_rc 2 bench --quick --baseline "$TMP/none.json"
expect_err "--baseline: $TMP/none.json: cannot open"
exit 0
