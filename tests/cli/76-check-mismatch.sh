#!/bin/bash
# The driver's libraries were upgraded to 550 but the 535 kernel module still
# runs: NVML refuses to start (NVML_ERROR_LIB_RM_VERSION_MISMATCH).
. "$TESTS/cli/lib.sh"
# row STATUS CHECK GPU FINDING: the start of one row of the check table
row() { printf '%-6s  %-17s  %3s  %s' "$1" "$2" "$3" "$4"; }
export FAKE_NVML_SCENARIO="$TESTS/fake-nvml/scenarios/driver-mismatch.ini"
ARGS=(--nvml "$BUILDDIR/fake-nvml/libnvidia-ml.so.1" --root "$TESTS/fixtures/hosts/driver-mismatch" --no-libs --no-python)

expect_rc 1 check "${ARGS[@]}"
expect_out "$(row fail 'nvml library' - "nvml init failed: Driver/library version mismat")"
expect_out "$(row fail 'driver versions' - "kernel module 535.104.05, NVML library 550.54.1")"
expect_out "  fail driver versions: kernel module 535.104.05, NVML library 550.54.15:"
expect_out "-> reboot (or unload and reload the nvidia modules) so the 550.54.15"
expect_out "4 ok, 0 warnings, 2 failures, 1 skipped"
expect_width 80
expect_rc 1 check "${ARGS[@]}" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
h = d["host"]
assert h["nvml_status"] == "driver/library version mismatch", h["nvml_status"]
assert h["nvml_file_version"] == "550.54.15" and h["kernel_module_version"] == "535.104.05"
assert d["exit_code"] == 1
' || fail "json of the mismatch"
finish
