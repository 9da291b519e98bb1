#!/bin/bash
# A one-node Slurm cluster on loopback (slurmctld and slurmd as this user,
# auth/none, temporary directories, free ports) whose HealthCheckProgram is
# gpuscope check --slurm: the node drains itself, with gpuscope's reason, on
# the Xid 79 scenario and resumes when the fault clears.
. "$TESTS/cli/lib.sh"
for b in slurmctld slurmd scontrol; do
	command -v "$b" >/dev/null || PATH="$PATH:/usr/sbin" command -v "$b" >/dev/null || {
		echo "SKIP: $b is not installed (Debian's slurm-wlm)"
		exit 77
	}
done
PATH="$PATH:/usr/sbin"
D="$TMP/slurm"
mkdir -p "$D/state" "$D/spool"
read -r P1 P2 < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
ME=$(id -un)
export SLURM_CONF="$D/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=gpuscope-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$P1
SlurmdPort=$P2
AuthType=auth/none
CredType=cred/none
SlurmUser=$ME
SlurmdUser=$ME
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
HealthCheckProgram=$D/healthcheck
HealthCheckInterval=1
HealthCheckNodeState=ANY
ReturnToService=2
NodeName=gs0 NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=1 State=UNKNOWN
PartitionName=gpu Nodes=gs0 Default=YES State=UP
CONF
# slurmd gives the program only SLURMD_NODENAME: the fault to show is read from $D/fault
cat >"$D/healthcheck" <<SH
#!/bin/sh
export SLURM_CONF="$SLURM_CONF"
case \$(cat "$D/fault") in
xid79) export FAKE_NVML_SCENARIO="$TESTS/fake-nvml/scenarios/h100-xid79.ini" ROOT="$TESTS/fixtures/hosts/h100-xid79" ;;
*) export FAKE_NVML_SCENARIO="$TESTS/fake-nvml/scenarios/dgx-h100.ini" ROOT="$TESTS/fixtures/hosts/dgx-h100" ;;
esac
t0=\$(date +%s%N)
"$GPUSCOPE" check --slurm --nvml "$BUILDDIR/fake-nvml/libnvidia-ml.so.1" --root "\$ROOT" --no-libs >>"$D/runs" 2>&1
echo "rc=\$? ms=\$(( (\$(date +%s%N) - t0) / 1000000 ))" >>"$D/runs"
SH
chmod +x "$D/healthcheck"
echo none >"$D/fault"

stop_slurm() {
	local f
	for f in "$D/slurmd.pid" "$D/slurmctld.pid"; do
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
}
LIB_TRAP=$(trap -p EXIT)
LIB_TRAP=${LIB_TRAP#trap -- \'}
LIB_TRAP=${LIB_TRAP%\' EXIT}
trap 'rc0=$?; stop_slurm; (exit $rc0); '"$LIB_TRAP" EXIT

slurmctld -i -c || { fail "slurmctld did not start: $(tail -5 "$D/slurmctld.log")"; finish; }
slurmd -N gs0 || { fail "slurmd did not start: $(tail -5 "$D/slurmd.log")"; finish; }

node() { scontrol -o show node gs0 2>/dev/null; }
# wait_node PATTERN SECONDS: until the node's line matches the extended regex
wait_node() {
	local i
	for ((i = 0; i < $2 * 5; i++)); do
		node | grep -Eq "$1" && return 0
		sleep 0.2
	done
	fail "node never matched /$1/ in $2 s: $(node); runs: $(tail -4 "$D/runs" 2>/dev/null)"
	return 1
}
CHECKS=$((CHECKS + 1))
wait_node 'State=IDLE ' 10
grep -q 'gpuscope: node gs0 healthy' "$D/runs" || fail "no healthy run: $(cat "$D/runs" 2>/dev/null)"

echo xid79 >"$D/fault"
CHECKS=$((CHECKS + 1))
wait_node 'State=[A-Z]*\+DRAIN' 10
CHECKS=$((CHECKS + 1))
case "$(node)" in
*"Reason=gpuscope: 3 failures: kernel log xid, gpu 1: Xid 79 on 0000:c1:00 x1: GPU has fallen off the bus"*) ;;
*) fail "drain reason: $(node)" ;;
esac
grep -q "gpuscope: node gs0 drained: gpuscope: 3 failures" "$D/runs" || fail "runs: $(cat "$D/runs")"
# the drain is not repeated while the fault stays
sleep 2.2
CHECKS=$((CHECKS + 1))
grep -q "gpuscope: node gs0 still drained" "$D/runs" || fail "no repeat run: $(cat "$D/runs")"
[ "$(grep -c 'gs0 drained: ' "$D/runs")" -eq 1 ] || fail "drained more than once: $(cat "$D/runs")"

echo none >"$D/fault"
CHECKS=$((CHECKS + 1))
wait_node 'State=IDLE ' 10
grep -q "gpuscope: node gs0 resumed" "$D/runs" || fail "runs: $(cat "$D/runs")"
# every run ends inside slurmd's 60 s limit, with the exit status of the check
CHECKS=$((CHECKS + 1))
worst=$(sed -n 's/^rc=[0-9]* ms=//p' "$D/runs" | sort -n | tail -1)
[ "${worst:-99999}" -lt 10000 ] || fail "a health check run took ${worst} ms"
echo "health check runs: $(grep -c '^rc=' "$D/runs"), slowest ${worst} ms"
finish
