#!/bin/bash
# An L40S that falls off the bus after 12 NVML calls, during the check.
. "$TESTS/cli/lib.sh"
# row STATUS CHECK GPU FINDING: the start of one row of the check table
row() { printf '%-6s  %-17s  %3s  %s' "$1" "$2" "$3" "$4"; }
export FAKE_NVML_SCENARIO="$TESTS/fake-nvml/scenarios/gpu-lost.ini"
ARGS=(--nvml "$BUILDDIR/fake-nvml/libnvidia-ml.so.1" --root "$TESTS/fixtures/hosts/gpu-lost" --no-libs --no-python)

expect_rc 1 check "${ARGS[@]}"
expect_out "$(row ok 'gpu' 0 "all 12 checks ok: NVIDIA L40S")"
expect_out "$(row fail 'gpu' 1 "NVIDIA L40S at 00000000:81:00.0 has fallen off ")"
expect_out "  fail gpu, gpu 1: NVIDIA L40S at 00000000:81:00.0 has fallen off the bus (NVML:"
expect_out "20 ok, 0 warnings, 1 failure, 2 skipped"
expect_rc 1 check "${ARGS[@]}" --format prom
expect_out 'gpuscope_check_gpu_lost{gpu="1"} 1'
expect_out 'gpuscope_check_gpu_lost{gpu="0"} 0'
expect_out 'gpuscope_check_status{check="gpu.status",gpu="1"} 2'
expect_rc 1 check "${ARGS[@]}" --symptom lost --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["steps"][0]["status"] == "fail" and "gpu 1: NVIDIA L40S" in d["steps"][0]["finding"]
assert d["steps"][2]["finding"] == "no Xid logged"
' || fail "lost runbook json"
finish
