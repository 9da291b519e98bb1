#!/bin/bash
# check on inputs it cannot read: files it has no permission for (check run as
# a user, not root) and sysfs entries that are symlink loops.  Each gives a
# skip that names the path, never a verdict about the host ("docker has no
# nvidia runtime", "rdma port down"), and no check goes missing: the summary
# counts as many checks as on the readable host.
. "$TESTS/cli/lib.sh"
row() { printf '%-6s  %-17s  %3s  %s' "$1" "$2" "$3" "$4"; }
export FAKE_NVML_SCENARIO="$TESTS/fake-nvml/scenarios/dgx-h100.ini"
unset CUDA_VISIBLE_DEVICES
export COLUMNS=250  # whole findings
ARGS=(--nvml "$BUILDDIR/fake-nvml/libnvidia-ml.so.1" --no-libs --no-python)

# summary_of: "ok warn fail skip checks" of the JSON report in $OUT
summary_of() {
	printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["summary"]
print(s["ok"], s["warn"], s["fail"], s["skip"], len(d["checks"]))'
}
# expect_counted WANT: every check is in the summary, and there are WANT of them
expect_counted() {
	CHECKS=$((CHECKS + 1))
	read -r ok warn failed skip total <<<"$(summary_of)"
	[ $((ok + warn + failed + skip)) -eq "$total" ] ||
		fail "summary $ok ok + $warn warn + $failed fail + $skip skip != $total checks"
	[ "$total" -eq "$1" ] || fail "$total checks, want $1 (as on the readable host)"
}

expect_rc 0 check "${ARGS[@]}" --root "$TESTS/fixtures/hosts/dgx-h100" --json
HEALTHY=$(summary_of)
read -r _ _ _ _ NCHECKS <<<"$HEALTHY"
[ "$HEALTHY" = "$NCHECKS 0 0 0 $NCHECKS" ] || fail "the readable host is not all ok: $HEALTHY"

# ---- no permission: run as nobody when the tests run as root (root reads mode 000) ----
ROOT="$TMP/perm"
cp -a "$TESTS/fixtures/hosts/dgx-h100" "$ROOT"
chmod 755 "$TMP"
chmod 000 "$ROOT/etc/docker/daemon.json" "$ROOT/etc/modprobe.d/blacklist-nouveau.conf" \
	"$ROOT"/sys/class/infiniband/*/ports/1/state "$ROOT/proc/31337/status" "$ROOT"/proc/*/fd
AS_USER=()
if [ "$(id -u)" = 0 ]; then
	if command -v setpriv >/dev/null &&
		setpriv --reuid=65534 --regid=65534 --clear-groups "$GPUSCOPE" --version >/dev/null 2>&1; then
		AS_USER=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	else
		echo "SKIP: root without setpriv: mode 000 files stay readable" >&2
		AS_USER=(skip)
	fi
fi
# check_as_user ARGS...: runs check as a user who cannot read the mode 000 files
check_as_user() {
	CHECKS=$((CHECKS + 1))
	"${AS_USER[@]}" "$GPUSCOPE" check "${ARGS[@]}" --root "$ROOT" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	expect_no_crash
}
if [ "${AS_USER[0]:-}" != skip ]; then
	check_as_user
	[ "$RC" -eq 0 ] || fail "unreadable inputs gave exit $RC (a finding), want 0: $OUT"
	expect_out "$(row skip 'container toolkit' - "toolkit installed; cannot read /etc/docker/daemon.json: Permission denied; run as root to check it")"
	expect_out "$(row skip 'rdma port' - "mlx5_0 port 1; cannot read /sys/class/infiniband/mlx5_0/ports/1/state: Permission denied")"
	expect_out "$(row skip 'rdma port' - "mlx5_7 port 1; cannot read /sys/class/infiniband/mlx5_7/ports/1/state: Permission denied")"
	expect_out "$(row skip 'nccl transport' - "no RDMA port read as ACTIVE; 8 could not be read")"
	expect_out "$(row skip 'nouveau' - "not loaded; cannot read /etc/modprobe.d/blacklist-nouveau.conf: Permission denied")"
	for verdict in "no nvidia runtime" "check the cable" "falls back to TCP" "not blacklisted"; do
		CHECKS=$((CHECKS + 1))
		case "$OUT" in *"$verdict"*) fail "an unreadable file became a verdict: $verdict";; esac
	done
	check_as_user --json
	expect_counted "$NCHECKS"
	# a process whose status cannot be read is not "in another PID namespace"
	check_as_user --all
	expect_out "$(row ok 'processes' 0 "1: 31337 (unreadable) 62.0 GiB")"
	CHECKS=$((CHECKS + 1))
	case "$OUT" in *"other namespace"*) fail "an unreadable /proc/PID/status became 'other namespace'";; esac
	# processes whose open files cannot be listed may hold the GPUs: not "no process has them open"
	check_as_user --symptom busy
	expect_out "skip open device files: 2 processes not inspected (cannot read"
	CHECKS=$((CHECKS + 1))
	case "$OUT" in *"no process has /dev/nvidia* open"*) fail "unlisted open files became 'no process'";; esac
fi

# ---- symlink loops in /sys/bus/pci/devices: the GPUs' entries and one NIC's ----
ROOT="$TMP/loops"
cp -a "$TESTS/fixtures/hosts/dgx-h100" "$ROOT"
for id in 0000:18:00.0 0000:2a:00.0 0000:3a:00.0 0000:5d:00.0 0000:9a:00.0 0000:ab:00.0 0000:ba:00.0 0000:db:00.0; do
	rm "$ROOT/sys/bus/pci/devices/$id"
	ln -s "$id" "$ROOT/sys/bus/pci/devices/$id"
done
expect_rc 0 check "${ARGS[@]}" --root "$ROOT" --all
expect_out "$(row skip 'gpudirect rdma' 0 "cannot read /sys/bus/pci/devices/0000:18:00.0: Too many levels of symbolic links")"
expect_out "$(row skip 'gpudirect rdma' 7 "cannot read /sys/bus/pci/devices/0000:db:00.0: Too many levels of symbolic links")"
expect_out "$((NCHECKS - 8)) ok, 0 warnings, 0 failures, 8 skipped"
expect_rc 0 check "${ARGS[@]}" --root "$ROOT" --json
expect_counted "$NCHECKS"

# a NIC's device link that loops: the GPUs near it cannot be graded "across the CPU interconnect"
ROOT="$TMP/nicloop"
cp -a "$TESTS/fixtures/hosts/dgx-h100" "$ROOT"
for d in "$ROOT"/sys/class/infiniband/*; do
	rm "$d/device"
	ln -s device "$d/device"
done
expect_rc 0 check "${ARGS[@]}" --root "$ROOT" --all
expect_out "$(row skip 'gpudirect rdma' 0 "cannot read /sys/class/infiniband/mlx5_0/device: Too many levels of symbolic links")"
CHECKS=$((CHECKS + 1))
case "$OUT" in *"across the CPU interconnect"*) fail "a NIC that could not be read is 'across the CPU interconnect'";; esac
expect_rc 0 check "${ARGS[@]}" --root "$ROOT" --json
expect_counted "$NCHECKS"
finish
