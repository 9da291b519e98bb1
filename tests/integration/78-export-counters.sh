#!/bin/bash
# gpuscope export -f / --collectors: a dcgm-exporter counters file narrows
# the output to exactly its fields (dcgm-exporter's default file loads
# unchanged), native names may be listed too, and a bad file is refused
# with file:line:column before anything is served.
# ctest: beside other tests (it checks values, not how long anything took)
EXPORT_LIB_ONLY=1 . "$TESTS/integration/70-export-basic.sh"

CSV="$SRCDIR/deploy/dcgm/default-counters.csv"

# families of the GPUs (the exporter's own gpuscope_exporter_* and process_* stay)
gpu_families() {
	grep '^# TYPE ' "$1" | awk '{print $3}' | grep -v '^gpuscope_exporter_\|^process_' | sort
}

# ---- dcgm-exporter's default file: exactly its served fields ----
FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" run export --nvml "$FAKE" --once -f "$CSV"
CHECKS=$((CHECKS + 1))
[ "$RC" -eq 0 ] || fail "-f default-counters.csv exited $RC: $ERR"
expect_err "default-counters.csv:40: 'DCGM_FI_DEV_VGPU_LICENSE_STATUS' is a DCGM field gpuscope does not serve; skipped"
printf '%s\n' "$OUT" >"$TMP/sel.prom"
# every metric line of the file except the two that cannot be served in one collection
grep -v '^#' "$CSV" | grep , | awk -F, '{gsub(/ /, "", $1); gsub(/ /, "", $2); if ($2 != "label") print $1}' |
	grep -v 'VGPU_LICENSE_STATUS\|NVLINK_BANDWIDTH_TOTAL' | sort >"$TMP/want"
gpu_families "$TMP/sel.prom" >"$TMP/got"
CHECKS=$((CHECKS + 1))
diff "$TMP/want" "$TMP/got" >"$TMP/diff" || fail "served families differ from the file: $(cat "$TMP/diff")"
# the file's help and the driver label it asks for
expect_out '# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).'
expect_out ',DCGM_FI_DRIVER_VERSION="550.54.15"} '
CHECKS=$((CHECKS + 1))
case "$OUT" in *gpu_up*|*gpu_info*|*DCGM_FI_DEV_PSTATE*) fail "a field outside the file was served";; esac

# ---- a short file: native names, no driver label, and --names both adds the twins ----
cat >"$TMP/small.csv" <<'CSV'
# two fields
DCGM_FI_PROF_SM_ACTIVE, gauge, SM activity
gpu_up, gauge,
CSV
FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" run export --nvml "$FAKE" --once --collectors "$TMP/small.csv"
printf '%s\n' "$OUT" >"$TMP/small.prom"
gpu_families "$TMP/small.prom" | tr '\n' ' ' >"$TMP/got"
CHECKS=$((CHECKS + 1))
[ "$(cat "$TMP/got")" = "DCGM_FI_PROF_SM_ACTIVE gpu_up " ] || fail "--collectors small.csv served: $(cat "$TMP/got")"
expect_out '# HELP DCGM_FI_PROF_SM_ACTIVE SM activity'
CHECKS=$((CHECKS + 1))
case "$OUT" in *DCGM_FI_DRIVER_VERSION*) fail "driver label without the label field";; esac
FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" run export --nvml "$FAKE" --once --collectors "$TMP/small.csv" --names both
printf '%s\n' "$OUT" >"$TMP/both.prom"
gpu_families "$TMP/both.prom" | tr '\n' ' ' >"$TMP/got"
CHECKS=$((CHECKS + 1))
[ "$(cat "$TMP/got")" = "DCGM_FI_PROF_SM_ACTIVE gpu_sm_active_ratio gpu_up " ] ||
	fail "--names both with a file served: $(cat "$TMP/got")"

# ---- the live exporter serves the same selection ----
start_exporter "$SCEN/dgx-h100.ini" -f "$TMP/small.csv" --interval 200ms
get /metrics
expect_code 200 "/metrics with a counters file"
has 'DCGM_FI_PROF_SM_ACTIVE{gpu="7",'
lacks 'DCGM_FI_DEV_GPU_UTIL'
stop_exporter TERM

# ---- bad files: located errors, exit 2, nothing served ----
bad() {
	local want=$1
	printf "$2" >"$TMP/bad.csv"
	FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" run export --nvml "$FAKE" --once -f "$TMP/bad.csv"
	CHECKS=$((CHECKS + 1))
	[ "$RC" -eq 2 ] || fail "bad file ($want): exit $RC, want 2"
	expect_err "$want"
	CHECKS=$((CHECKS + 1))
	[ -z "$OUT" ] || fail "bad file ($want): something was printed"
}
bad "bad.csv:2:1: field 'DCGM_FI_DEV_GPU_TMP': unknown field; did you mean 'DCGM_FI_DEV_GPU_TEMP'?" \
	'DCGM_FI_DEV_SM_CLOCK, gauge, ok\nDCGM_FI_DEV_GPU_TMP, gauge, typo\n'
bad "bad.csv:1:24: field 'DCGM_FI_DEV_SM_CLOCK': unknown type 'histogram': gauge, counter or label" \
	'DCGM_FI_DEV_SM_CLOCK,  histogram, x\n'
bad "bad.csv:2:3: field 'DCGM_FI_DEV_SM_CLOCK': listed twice (first on line 1)" \
	'DCGM_FI_DEV_SM_CLOCK, gauge\n  DCGM_FI_DEV_SM_CLOCK, gauge\n'
bad "bad.csv:1:25: field 'DCGM_FI_DRIVER_VERSION': is a label field: its type must be 'label'" \
	'DCGM_FI_DRIVER_VERSION, gauge, x\n'
bad "bad.csv:1:1: no field selected" '# only comments\n'
bad "bad.csv:1:32: expected 3 fields (name, type, help), got 4" 'DCGM_FI_DEV_SM_CLOCK, gauge, a, b\n'
bad "field 'gpu_energy_joules_total': is a counter; a native name keeps its type" \
	'gpu_energy_joules_total, gauge, x\n'
FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" run export --nvml "$FAKE" --once -f "$TMP/missing.csv"
CHECKS=$((CHECKS + 1))
[ "$RC" -eq 2 ] || fail "missing file: exit $RC, want 2"
expect_err "missing.csv: cannot open"

finish
