#!/bin/bash
# check's fleet adapters: node-problem-detector (run by a harness that acts
# as npd does on the shipped plugin config), NHC, and Slurm's health check
# against a stand-in scontrol that keeps a node's state in files.
. "$TESTS/cli/lib.sh"
NVML="$BUILDDIR/fake-nvml/libnvidia-ml.so.1"
SC="$TESTS/fake-nvml/scenarios"
FIX="$TESTS/fixtures/hosts"
BAD=(--nvml "$NVML" --root "$FIX/h100-xid79" --no-libs)
GOOD=(--nvml "$NVML" --root "$FIX/dgx-h100" --no-libs)
xid79() { export FAKE_NVML_SCENARIO="$SC/h100-xid79.ini"; }
healthy() { export FAKE_NVML_SCENARIO="$SC/dgx-h100.ini"; }

# ---- npd: exit 0 OK / 1 NonOK / 2 Unknown, one line within max_output_length
npd() { # npd ARGS...: the harness's verdict on the shipped config, in $V
	V=$(python3 "$TESTS/cli/npd-harness.py" "$SRCDIR/deploy/npd/gpuscope-plugin-monitor.json" \
		--path "$GPUSCOPE" "${@/#/--arg=}") || fail "npd harness failed"
}
field() { printf '%s' "$V" | python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
xid79
npd "${BAD[@]}"
[ "$(field status)" = NonOK ] || fail "npd on Xid 79: status $(field status), want NonOK: $V"
[ "$(field raw)" = "$(field message)" ] || fail "npd cut gpuscope's message: $V"
case "$(field message)" in
"gpuscope: 3 failures: kernel log xid, gpu 1: Xid 79 on 0000:c1:00 x1: GPU has f~") ;;
*) fail "npd message on Xid 79: $(field message)" ;;
esac
healthy
npd "${GOOD[@]}"
[ "$(field status)" = OK ] || fail "npd on a healthy DGX: $V"
[ "$(field message)" = "gpuscope: 138 checks ok on 8 GPUs" ] || fail "npd healthy message: $(field message)"
# a hung NVML call: gpuscope gives up at its deadline, npd's Unknown
cat >"$TMP/hung.ini" <<INI
$(cat "$SC/dgx-h100.ini")
[gpu 3]
block = nvmlDeviceGetPowerUsage 20000
INI
export FAKE_NVML_SCENARIO="$TMP/hung.ini"
start=$(date +%s)
expect_rc 2 check "${GOOD[@]}" --format npd --deadline 1s
[ $(($(date +%s) - start)) -le 5 ] || fail "the 1 s deadline took $(($(date +%s) - start)) s"
expect_out "gpuscope: the check did not finish in 1 s (a hung GPU or driver?); nothing changed"
healthy

# ---- nhc: the same line, exit 1 offlines the node
xid79
expect_rc 1 check "${BAD[@]}" --format nhc
expect_out "gpuscope: 3 failures: kernel log xid, gpu 1: Xid 79 on 0000:c1:00 x1: GPU has fallen off the bus"
[ "$(printf '%s\n' "$OUT" | wc -l)" -eq 1 ] || fail "nhc prints one line, got: $OUT"
expect_rc 1 check "${BAD[@]}" --format nhc --message-max 40
[ "${#OUT}" -le 40 ] || fail "--message-max 40 printed ${#OUT} bytes"
healthy
expect_rc 0 check "${GOOD[@]}" --format nhc
expect_out "gpuscope: 138 checks ok on 8 GPUs"

# ---- slurm against a stand-in scontrol: state and reason in files, each call logged
S="$TMP/slurm"
mkdir -p "$S"
cat >"$S/scontrol" <<'SH'
#!/bin/sh
echo "$*" >>"$S/calls"
case "$1 $2" in
"-o show") printf 'NodeName=%s Arch=x86_64 State=%s Reason=%s [root@2025-01-01T00:00:00]\n' "$4" "$(cat "$S/state")" "$(cat "$S/reason")" ;;
"update "*) for w in "$@"; do case $w in state=drain) echo IDLE+DRAIN >"$S/state" ;; state=resume) echo IDLE >"$S/state"; : >"$S/reason" ;; reason=*) printf '%s' "${w#reason=}" >"$S/reason" ;; esac; done ;;
*) echo "unexpected: $*" >&2; exit 1 ;;
esac
SH
sed -i "s|\$S|$S|g" "$S/scontrol"
chmod +x "$S/scontrol"
echo IDLE >"$S/state"
: >"$S/reason"
SLURM=(--slurm --scontrol "$S/scontrol" --node gs0)
xid79
expect_rc 1 check "${BAD[@]}" "${SLURM[@]}"
expect_out "gpuscope: node gs0 drained: gpuscope: 3 failures: kernel log xid, gpu 1: Xid 79"
[ "$(cat "$S/state")" = IDLE+DRAIN ] || fail "not drained: $(cat "$S/state")"
case "$(cat "$S/reason")" in "gpuscope: 3 failures: kernel log xid, gpu 1: Xid 79 on 0000:c1:00 x1:"*) ;; *) fail "reason: $(cat "$S/reason")" ;; esac
grep -q '^update nodename=gs0 state=drain reason=gpuscope: 3 failures' "$S/calls" || fail "calls: $(cat "$S/calls")"
# the same fault again: no second update
: >"$S/calls"
expect_rc 1 check "${BAD[@]}" "${SLURM[@]}"
expect_out "gpuscope: node gs0 still drained"
[ "$(cat "$S/calls")" = "-o show node gs0" ] || fail "a repeated drain updated the node: $(cat "$S/calls")"
# clean again: resumed
healthy
expect_rc 0 check "${GOOD[@]}" "${SLURM[@]}"
expect_out "gpuscope: node gs0 resumed: gpuscope: 138 checks ok on 8 GPUs"
[ "$(cat "$S/state")" = IDLE ] || fail "not resumed: $(cat "$S/state")"
# an administrator's drain is left alone, faulty or clean
echo IDLE+DRAIN >"$S/state"
printf 'disk replacement' >"$S/reason"
expect_rc 0 check "${GOOD[@]}" "${SLURM[@]}"
expect_out "gpuscope: node gs0 drained by someone else"
xid79
expect_rc 1 check "${BAD[@]}" "${SLURM[@]}"
[ "$(cat "$S/reason")" = "disk replacement" ] || fail "overwrote the admin's reason: $(cat "$S/reason")"
# $SLURMD_NODENAME names the node when --node is not given
echo IDLE >"$S/state"
SLURMD_NODENAME=gpu-node-7 expect_rc 1 check "${BAD[@]}" --slurm --scontrol "$S/scontrol"
expect_out "gpuscope: node gpu-node-7 drained"
# scontrol missing or failing: said, exit 3, never a crash
expect_rc 3 check "${BAD[@]}" --slurm --scontrol "$TMP/no-scontrol" --node gs0
expect_err "cannot run '$TMP/no-scontrol': not found"
expect_rc 3 check "${BAD[@]}" --slurm --scontrol /bin/false --node gs0
expect_err "'/bin/false -o show node gs0' failed (status 1)"
# ---- 72 GPUs with one cause: one row and one remedy listing the GPUs, not 72 of each
sed 's/^persistence = 1/persistence = 0/' "$SC/gb200-nvl72.ini" >"$TMP/nvl72.ini"
export FAKE_NVML_SCENARIO="$TMP/nvl72.ini"
expect_rc 1 check "${GOOD[@]}" --no-python
expect_out "warn    persistence mode   0-71  off: the driver tears the GPU down between job~"
expect_out "  warn persistence mode, gpus 0-71: off: the driver tears the GPU down between"
expect_out "815 ok, 216 warnings, 1 failure, 66 skipped"
CHECKS=$((CHECKS + 1))
[ "$(printf '%s\n' "$OUT" | wc -l)" -le 50 ] || fail "72 alike GPUs took $(printf '%s\n' "$OUT" | wc -l) lines"
[ "$(printf '%s\n' "$OUT" | grep -c 'persistence mode')" -eq 2 ] || fail "persistence mode said more than twice"
expect_width 80
# the fleet message groups the same way: the failure first, then nothing of 216 warnings
expect_rc 1 check "${GOOD[@]}" --no-python --format nhc
expect_out "gpuscope: 1 failure: driver versions: kernel module 550.54.15, NVML library 570.124.06"
healthy

# usage
expect_rc 2 check "${BAD[@]}" --slurm --format npd
expect_rc 2 check "${BAD[@]}" --format npd --output "$TMP/x"
expect_rc 2 check "${BAD[@]}" --node gs0
finish
