#!/bin/bash
# check against hostile or unreadable inputs: devices that never end, FIFOs,
# directories, symlink loops, Xid storms, odd /proc text.  What cannot be
# read is "cannot read PATH", a skip; nothing hangs; the JSON stays bounded.
. "$TESTS/cli/lib.sh"
row() { printf '%-6s  %-17s  %3s  %s' "$1" "$2" "$3" "$4"; }
export FAKE_NVML_SCENARIO="$TESTS/fake-nvml/scenarios/dgx-h100.ini"
unset CUDA_VISIBLE_DEVICES
export COLUMNS=250  # whole findings, long temporary paths in them
ROOT="$TMP/root"
cp -a "$TESTS/fixtures/hosts/dgx-h100" "$ROOT"
ARGS=(--nvml "$BUILDDIR/fake-nvml/libnvidia-ml.so.1" --root "$ROOT" --no-libs --no-python)

# check_within SECONDS ARGS...: runs check under a timeout (a hang used to spin forever)
check_within() {
	local limit=$1
	shift
	CHECKS=$((CHECKS + 1))
	timeout "$limit" "$GPUSCOPE" check "${ARGS[@]}" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	[ "$RC" -ne 124 ] || fail "check $* did not finish in $limit s"
	expect_no_crash
}

for dev in /dev/zero /dev/urandom; do
	check_within 60 --kmsg "$dev"
	expect_out "$(row skip 'kernel log xids' - "cannot read $dev: a device that is not")"
done
check_within 60 --kmsg "$TMP"
expect_out "$(row skip 'kernel log xids' - "cannot read $TMP: a directory")"
mkfifo "$TMP/fifo"
check_within 60 --kmsg "$TMP/fifo"
expect_out "cannot read $TMP/fifo: not a kernel log device"
ln -sf "$TMP/loop2" "$TMP/loop1"; ln -sf "$TMP/loop1" "$TMP/loop2"
check_within 60 --kmsg "$TMP/loop1"
expect_out "cannot read $TMP/loop1: Too many levels of symbolic links"

# an Xid storm: counted per GPU and code, the JSON document stays small
python3 - "$TMP/storm" <<'PY'
import sys
buses = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
with open(sys.argv[1], "w") as f:
    for i in range(300000):
        f.write("3,%d,%d,-;NVRM: Xid (PCI:0000:%s:00): %d, pid=77, name=python3, GPU has fallen off the bus.\n"
                % (i, 812345678 + i, buses[i % 8], (79, 48, 63)[i % 3]))
    # a few thousand made-up buses: past the bound, counted, not listed
    for i in range(5000):
        f.write("3,1,1,-;NVRM: Xid (PCI:0001:%04x:00): 13, Graphics Exception\n" % i)
PY
check_within 120 --kmsg "$TMP/storm" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
x = d["xids"]
assert len(x) == 1024, len(x)
first = [e for e in x if e["pci"].startswith("0000:")]
assert len(first) == 24, len(first)
assert sum(e["count"] for e in first) == 300000
assert first[0]["first_uptime_s"] < first[0]["uptime_s"]
assert any("past the first 1024" in c["finding"] for c in d["checks"]), "no note of the dropped pairs"
' || fail "xid storm json"
[ "${#OUT}" -lt 2000000 ] || fail "check --json of an Xid storm is ${#OUT} bytes"

# /proc text: a Uid that is not a number is not root; a name that is not UTF-8 stays in the JSON
printf 'Name:\tpy\xff\xfethon\nUid:\tabc\tabc\tabc\tabc\n' >"$ROOT/proc/31337/status"
check_within 60 --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
p = d["gpus"][0]["processes"][0]
assert p["user"] != "root", p
assert p["command"] == "py??thon", p
' || fail "odd /proc status"

# inputs that are symlink loops are skipped, and say so; unreadable is never "not loaded"
rm "$ROOT/proc/modules" "$ROOT/proc/driver/nvidia/version"
ln -s modules "$ROOT/proc/modules"
ln -s version "$ROOT/proc/driver/nvidia/version"
check_within 60
expect_out "$(row skip 'kernel modules' - "cannot read /proc/modules: Too many levels of")"
expect_out "$(row skip 'kernel module' - "cannot read /proc/driver/nvidia/version: Too")"
expect_out "$(row skip 'nouveau' - "cannot read /proc/modules: Too many levels of sy")"
case "$OUT" in *"install the NVIDIA driver"*) fail "unreadable files led to a reinstall remedy";; esac

# flags
expect_rc 2 check "${ARGS[@]}" --python-timeout 0
expect_err "'--python-timeout'"
expect_rc 2 check "${ARGS[@]}" --events-wait 1e300
expect_err "'--events-wait' must be at most 3600"
expect_rc 2 check "${ARGS[@]}" --symptom lost --gpu 1023
expect_err "--gpu 1023: this host has GPUs 0 to 7"
expect_rc 0 check "${ARGS[@]}" --symptom lost --gpu 7
finish
