#!/bin/bash
# tools/gpu-check/export_vs_nvidia_smi.sh, the comparison run on real GPUs,
# checked offline: against the fake NVML and a saved nvidia-smi reading of
# the same (fake) DGX it finds no difference, and it reports a planted one.
# ctest: beside other tests (it checks values, not how long anything took)
EXPORT_LIB_ONLY=1 . "$TESTS/integration/70-export-basic.sh"

SCRIPT="$SRCDIR/tools/gpu-check/export_vs_nvidia_smi.sh"
FIELDS="index, uuid, pci.bus_id, name, driver_version, utilization.gpu [%], utilization.memory [%], memory.total [MiB], memory.used [MiB], memory.free [MiB], memory.reserved [MiB], power.draw [W], enforced.power.limit [W], temperature.gpu, temperature.memory, clocks.current.sm [MHz], clocks.current.memory [MHz], clocks.max.sm [MHz], pcie.link.gen.current, pcie.link.width.current, pcie.link.gen.max, pcie.link.width.max, pstate, fan.speed [%], ecc.errors.corrected.volatile.total, ecc.errors.uncorrected.volatile.total, clocks_event_reasons.active"
# nvidia-smi's own header names, which differ from the query names (clocks.current.sm)
HEADER=$FIELDS
BUSES=(18 2A 3A 5D 9A AB BA DB)
smi_csv() {   # smi_csv POWER_W_OF_GPU_3
	echo "$HEADER"
	for i in 0 1 2 3 4 5 6 7; do
		p=412.00
		[ "$i" = 3 ] && p=$1
		echo "$i, GPU-7d1c0f3e-5a4b-4c1e-9e0f-0000000000$i, 00000000:${BUSES[$i]}:00.0, NVIDIA H100 80GB HBM3, 550.54.15, 97, 61, 81559, 63488, 17544, 527, $p, 700.00, 41, 49, 1980, 2619, 1980, 5, 16, 5, 16, P0, [N/A], 0, 0, 0x0000000000000000"
	done
}
smi_csv 410.50 >"$TMP/smi-good.csv"
smi_csv 650.00 >"$TMP/smi-bad.csv"

export GPUSCOPE FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini"
export GPUSCOPE_EXPORT_ARGS="--nvml $FAKE --kmsg none" EXPORT_CHECK_CPU_S=1
NVIDIA_SMI_CSV="$TMP/smi-good.csv" timeout 60 bash "$SCRIPT" >"$TMP/good.out" 2>&1
RC=$?
CHECKS=$((CHECKS + 1))
[ "$RC" = 0 ] || fail "same readings: exit $RC: $(grep -E 'DIFF|absent|error' "$TMP/good.out" | head)"
CHECKS=$((CHECKS + 1))
grep -q '^0 DIFF' "$TMP/good.out" || fail "no '0 DIFF' line"
CHECKS=$((CHECKS + 1))
[ "$(grep -c ' same$\| close$' "$TMP/good.out")" -ge 150 ] || fail "too few readings compared: $(grep -c ' same$\| close$' "$TMP/good.out")"
CHECKS=$((CHECKS + 1))
grep -q '^3    power.draw .* close$' "$TMP/good.out" || fail "power within tolerance not 'close'"
CHECKS=$((CHECKS + 1))
grep -q '^0    uuid .* same$' "$TMP/good.out" || fail "uuid not compared"
CHECKS=$((CHECKS + 1))
grep -q 'resident memory: ' "$TMP/good.out" || fail "no footprint"
CHECKS=$((CHECKS + 1))
grep -q 'exporter exit: 0' "$TMP/good.out" || fail "the exporter did not exit cleanly"

NVIDIA_SMI_CSV="$TMP/smi-bad.csv" timeout 60 bash "$SCRIPT" >"$TMP/bad.out" 2>&1
RC=$?
CHECKS=$((CHECKS + 1))
[ "$RC" = 1 ] || fail "a planted difference: exit $RC, want 1"
CHECKS=$((CHECKS + 1))
grep -q '^3    power.draw .*412 .*650 .*DIFF$' "$TMP/bad.out" || fail "the planted power difference is not shown: $(grep power.draw "$TMP/bad.out")"
finish
