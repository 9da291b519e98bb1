#!/bin/bash
# An H100 that raised Xid 79 and fell off the bus during the check.
. "$TESTS/cli/lib.sh"
# row STATUS CHECK GPU FINDING: the start of one row of the check table
row() { printf '%-6s  %-17s  %3s  %s' "$1" "$2" "$3" "$4"; }
export FAKE_NVML_SCENARIO="$TESTS/fake-nvml/scenarios/h100-xid79.ini"
ARGS=(--nvml "$BUILDDIR/fake-nvml/libnvidia-ml.so.1" --root "$TESTS/fixtures/hosts/h100-xid79" --no-libs --no-python)

expect_rc 1 check "${ARGS[@]}"
expect_out "$(row ok 'kernel module' - "NVIDIA open kernel module 550.54.15")"
expect_out "$(row ok 'gpu' 0 "all 13 checks ok: NVIDIA H100 PCIe")"
expect_out "$(row fail 'kernel log xid' 1 "Xid 79 on 0000:c1:00 x1: GPU has fallen off the")"
expect_out "$(row fail 'nvml xid event' 1 "Xid 79 delivered by NVML: GPU has fallen off th")"
expect_out "$(row fail 'gpu' 1 "NVIDIA H100 PCIe at 00000000:C1:00.0 has fallen")"
expect_out "-> RESTART_BM: power-cycle the node (a reboot is not enough); check PCIe"
expect_out "20 ok, 0 warnings, 3 failures, 2 skipped"
expect_width 80

expect_rc 1 check "${ARGS[@]}" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["gpus"][1]["status"] == "lost" and d["gpus"][0]["status"] == "ok"
assert d["events"] == [{"gpu": 1, "type": "xid", "code": 79}, {"gpu": 1, "type": "lost", "code": 15}], d["events"]
x = d["xids"][0]
assert (x["code"], x["pid"], x["process"], x["uptime_s"]) == (79, None, "<unknown>", 812.345678), x
' || fail "json of the Xid 79 host"

# the same Xid from a file in /dev/kmsg form, given with --kmsg
printf '6,1,100,-;NVRM: loading\n3,2,812345678,-;NVRM: Xid (PCI:0000:c1:00): 79, pid=77, name=python3, GPU has fallen off the bus.\n3,3,812345679,-;NVRM: Xid (PCI:0000:c1:00): 79, pid=77, name=python3, GPU has fallen off the bus.\n' >"$TMP/kmsg"
expect_rc 1 check "${ARGS[@]}" --kmsg "$TMP/kmsg"
expect_out "$(row fail 'kernel log xid' 1 "Xid 79 on 0000:c1:00 x2: GPU has fallen off the")"
expect_rc 1 check "${ARGS[@]}" --kmsg /nonexistent/kmsg
expect_out "$(row skip 'kernel log xids' - "cannot read /nonexistent/kmsg: No such file or")"

# the lost-GPU runbook
expect_rc 1 check "${ARGS[@]}" --symptom lost
expect_out " 1. fail nvml view: gpu 1: NVIDIA H100 PCIe at 00000000:C1:00.0 has fallen"
expect_out " 3. fail xids in the kernel log: Xid 79 on 0000:c1:00 x1: GPU has fallen off"
expect_out " 4. ok   pci bus: 2 NVIDIA GPUs on the PCI bus"
expect_out "a GPU that fell off the bus needs a node power-cycle"
expect_width 80
finish
