#!/bin/bash
# check --bench: bench --quick's verdict per GPU as check findings in the table,
# --json and the textfile format: the healthy H100 passes, the one capped at half
# power and the one at PCIe x8 warn with their cause; without the CUDA driver the
# bench part is a skip that names why, not a failure.
. "$TESTS/cli/lib.sh"
export GPUSCOPE_BENCH_LIBS="$BUILDDIR/fake-cuda"
ARGS=(check --nvml "$BUILDDIR/fake-nvml/libnvidia-ml.so.1" --no-python --no-libs --bench)
scenario() {
	export FAKE_CUDA_SCENARIO="$TESTS/fake-cuda/scenarios/$1.ini"
	export FAKE_NVML_SCENARIO="$TESTS/fake-nvml/scenarios/bench-$1.ini"
}
# bench_items WANT_STATUS TEXT: every GPU has a gpu.bench check of that status whose finding holds TEXT
bench_items() {
	printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
b = [c for c in d["checks"] if c["id"] == "gpu.bench"]
assert sorted(c["gpu"] for c in b) == list(range(8)), b
for c in b:
    assert c["status"] == sys.argv[1] and sys.argv[2] in c["finding"], c
    assert (c["remedy"] is None) == (sys.argv[1] == "ok"), c
assert d["exit_code"] == int(sys.argv[3]), d["exit_code"]
' "$@" || fail "gpu.bench checks: $*"
}

scenario h100
expect_rc 0 "${ARGS[@]}" --json
bench_items ok "as fast as expected: GEMM 96 %, HBM 95 %, host copies 103 % of expected" 0

scenario h100-halfpower
expect_rc 1 "${ARGS[@]}" --json
bench_items warn "52 % slower than expected (GEMM 48 %, HBM 89 %, host copies 103 % of expected); likely cause: power cap (limit 350 of 700 W)" 1
printf '%s' "$OUT" | grep -q '"remedy": "restore the default power limit' || fail "power cap remedy"

scenario h100-pcie-x8
expect_rc 1 "${ARGS[@]}" --json
bench_items warn "host link 49 % slower than expected (GEMM 96 %, HBM 95 %, host copies 51 % of expected); likely cause: PCIe link x8 of x16, gen 5 of 5" 1
# the table and its "what to do", at 80 columns
expect_rc 1 "${ARGS[@]}"
expect_width 80
expect_out "warn    bench             0-7  host link 49 % slower than expected"
expect_out "reseat the GPU or move it to a full-width slot"
# node_exporter's textfile format: one status per GPU (1 = warn)
expect_rc 1 "${ARGS[@]}" --format prom
expect_out 'gpuscope_check_status{check="gpu.bench",gpu="5"} 1'

# no CUDA driver: one skip naming it, the rest of check as without --bench
mkdir "$TMP/empty"
GPUSCOPE_BENCH_LIBS="$TMP/empty" expect_rc 1 "${ARGS[@]}" --csv
expect_out "bench,,skip,bench skipped: CUDA driver (libcuda.so.1) not found in $TMP/empty"
scenario h100
GPUSCOPE_BENCH_LIBS="$TMP/empty" expect_rc 0 "${ARGS[@]}" --csv
expect_out "bench,,skip,bench skipped: CUDA driver (libcuda.so.1) not found in $TMP/empty"
expect_no_crash
exit 0
