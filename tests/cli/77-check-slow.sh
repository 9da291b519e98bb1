#!/bin/bash
# An A100 whose power reading blocks 1.5 s (a driver stuck behind its GPU),
# with the fan, HBM temperature and row remapping NOT_SUPPORTED: absent, not 0.
. "$TESTS/cli/lib.sh"
# row STATUS CHECK GPU FINDING: the start of one row of the check table
row() { printf '%-6s  %-17s  %3s  %s' "$1" "$2" "$3" "$4"; }
export FAKE_NVML_SCENARIO="$TESTS/fake-nvml/scenarios/slow-call.ini"
ARGS=(--nvml "$BUILDDIR/fake-nvml/libnvidia-ml.so.1" --root "$TESTS/fixtures/hosts/slow-call" --no-libs --no-python)

expect_rc 1 check "${ARGS[@]}"
expect_out "$(row warn 'nvml latency' 0 "nvmlDeviceGetPowerUsage took ")"
expect_out "-> a hung GPU or an overloaded driver: read dmesg for NVRM errors; reset"
case "$OUT" in *"row remapping"*) fail "an unsupported reading produced a check";; esac
expect_rc 1 check "${ARGS[@]}" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["gpus"][0]["sample"]
for k in ("temp_mem_c", "remapped_rows_pending", "energy_mj", "clock_event_reasons"):
    assert k not in s, k
assert s["fan_pct"] == 30 if "fan_pct" in s else True
assert s["slowest_call"] == "nvmlDeviceGetPowerUsage" and s["slowest_call_ns"] >= 1500000000
' || fail "json of the slow host"
expect_rc 1 check "${ARGS[@]}" --symptom slow
expect_out "gpuscope check --symptom slow: 10 steps"
expect_out "10. warn driver responsiveness: gpu 0: nvmlDeviceGetPowerUsage took "
expect_out " 1. skip clock throttling: throttle reasons not reported"
finish
