#!/bin/bash
# An A100 with a double-bit ECC error and a pending row remap; Xid 48 and 63
# in the kernel log and as NVML events.
. "$TESTS/cli/lib.sh"
# row STATUS CHECK GPU FINDING: the start of one row of the check table
row() { printf '%-6s  %-17s  %3s  %s' "$1" "$2" "$3" "$4"; }
export FAKE_NVML_SCENARIO="$TESTS/fake-nvml/scenarios/a100-dbe-remap.ini"
ARGS=(--nvml "$BUILDDIR/fake-nvml/libnvidia-ml.so.1" --root "$TESTS/fixtures/hosts/a100-dbe-remap" --no-libs --no-python)

expect_rc 1 check "${ARGS[@]}"
expect_out "$(row fail 'kernel log xid' 0 "Xid 48 on 0000:07:00 x1: Double-bit ECC error -")"
expect_out "$(row ok 'kernel log xid' 0 "Xid 63 on 0000:07:00 x1: ECC page retirement or")"
expect_out "$(row fail 'nvml xid event' 0 "Xid 48 delivered by NVML: Double-bit ECC error")"
expect_out "$(row fail 'ecc errors' 0 "1 uncorrectable (double-bit) ECC error since th")"
expect_out "$(row fail 'row remapping' 0 "a row remap is pending (1 uncorrectable, 0 corr")"
expect_out "$(row ok 'gpu' 1 "all 14 checks ok: NVIDIA A100-SXM4-80GB")"
expect_out "-> RESET_GPU: drain the GPU and reset it (nvidia-smi -r); with Xid 63/64"
expect_out "-> drain the GPU and reset it (nvidia-smi -r -i 0) to apply the remap"
expect_out "35 ok, 0 warnings, 4 failures, 2 skipped"
expect_width 80

expect_rc 1 check "${ARGS[@]}" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert [(x["code"], x["pci"], x["pid"], x["process"], x["bucket"]) for x in d["xids"]] == \
    [(48, "0000:07:00", 4242, "python3", "RESET_GPU"), (63, "0000:07:00", 4242, "python3", "IGNORE")]
assert d["events"] == [{"gpu": 0, "type": "xid", "code": 48}, {"gpu": 0, "type": "xid", "code": 63}]
s = d["gpus"][0]["sample"]
assert (s["ecc_dbe_volatile"], s["ecc_dbe_aggregate"], s["remapped_rows_pending"], s["remapped_rows_failure"]) == (1, 1, 1, 0)
' || fail "json of the DBE host"

expect_rc 1 check "${ARGS[@]}" --format prom
expect_out 'gpuscope_check_status{check="gpu.remapped_rows",gpu="0"} 2'
expect_out 'gpuscope_check_status{check="kernel.xid",gpu="0"} 2'
expect_out 'gpuscope_check_xid_records{xid="48",pci="0000:07:00"} 1'
expect_out 'gpuscope_check_results{result="fail"} 4'

# the CUDA_ERROR_LAUNCH_FAILED runbook: ECC counts, Xids, launch parameters, memcheck, driver
expect_rc 1 check "${ARGS[@]}" --symptom launch-failed
expect_out "gpuscope check --symptom launch-failed: 6 steps"
expect_out " 1. ok   gpu health: ok on all 2 readings"
expect_out " 2. fail ecc error counts: gpu 0: 1 uncorrectable (double-bit) ECC error since"
expect_out " 3. fail xids in the kernel log: Xid 48 on 0000:07:00 x1: Double-bit ECC error"
expect_out " 4. skip kernel launch parameters: not visible from the host"
expect_out "CUDA_LAUNCH_BLOCKING=1"
expect_out "compute-sanitizer --tool memcheck"
expect_width 80
# the healthy GPU alone passes
expect_rc 0 check "${ARGS[@]}" --symptom launch-failed --gpu 1
expect_out " 2. ok   ecc error counts: ok on all 2 readings"
expect_out " 3. ok   xids in the kernel log: no Xid logged"
finish
