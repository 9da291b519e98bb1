#!/bin/bash
# 72 GPUs as a normal case: the exporter samples them with a bounded pool of
# threads (at most 16 in all, read from /proc/PID/status), a GPU whose calls
# hang stalls only itself, a lost GPU is found again when it comes back on
# the bus (its events registered again), and a transient GPM error does not
# switch profiling off.
EXPORT_LIB_ONLY=1 . "$TESTS/integration/70-export-basic.sh"
threads() { awk '/^Threads:/{print $2}' "/proc/$1/status"; }
# ThreadSanitizer's runtime adds a background thread of its own to the process
MAXT=16
case "${GPUSCOPE:-}" in *-tsan) MAXT=17 ;; esac

# ---- 72 healthy GPUs
start_exporter "$SCEN/gb200-nvl72.ini" --interval 1s || finish
wait_metric 'gpuscope_exporter_gpus 72'
get /metrics
CHECKS=$((CHECKS + 1))
up=$(grep -c '^gpu_up{.*} 1$' "$TMP/body")
[ "$up" -eq 72 ] || fail "$up of 72 GPUs up"
CHECKS=$((CHECKS + 1))
n=$(threads "$EXP_PID")
[ "$n" -le "$MAXT" ] || fail "the exporter runs $n threads at 72 GPUs, want at most $MAXT"
echo "72 GPUs: $n threads"
stop_exporter

# ---- 72 GPUs, GPU 5's power reading hangs 3 s on every call: the other 71 keep answering
sed 's/^\[gpu 5\]$/[gpu 5]\nblock = nvmlDeviceGetPowerUsage 3000/' "$SCEN/gb200-nvl72.ini" >"$TMP/hung.ini"
grep -q '^block = nvmlDeviceGetPowerUsage 3000' "$TMP/hung.ini" ||
	printf '\n[gpu 5]\nblock = nvmlDeviceGetPowerUsage 3000\n' >>"$TMP/hung.ini"
start_exporter "$TMP/hung.ini" --interval 500ms --collect-timeout 1s || finish
wait_metric 'gpuscope_exporter_gpus 72'
wait_metric 'gpu_up{gpu="5",' 10
# over 3 s of scrapes: the 71 others up in every one, GPU 5 stalled (down) in some
down5=0
for i in 1 2 3 4; do
	get /metrics
	CHECKS=$((CHECKS + 1))
	up=$(grep -v '^gpu_up{gpu="5",' "$TMP/body" | grep -c '^gpu_up{.*} 1$')
	[ "$up" -eq 71 ] || fail "scrape $i: $up of the 71 other GPUs up"
	grep -q '^gpu_up{gpu="5",.*} 0$' "$TMP/body" && down5=$((down5 + 1))
	sleep 0.5
done
CHECKS=$((CHECKS + 1))
[ "$down5" -ge 2 ] || fail "the hung GPU was down in $down5 of 4 scrapes"
has 'gpuscope_exporter_stalled_calls_total'
CHECKS=$((CHECKS + 1))
# fresh readings of the others while GPU 5 hangs: their collections keep coming
c1=$(awk '/^gpuscope_exporter_collections_total /{print $2}' "$TMP/body")
sleep 1.2
get /metrics
c2=$(awk '/^gpuscope_exporter_collections_total /{print $2}' "$TMP/body")
[ "${c2%.*}" -ge $((${c1%.*} + 2)) ] || fail "collections went from $c1 to $c2 in 1.2 s at 0.5 s"
CHECKS=$((CHECKS + 1))
n=$(threads "$EXP_PID")
[ "$n" -le "$MAXT" ] || fail "$n threads with one GPU hung, want at most $MAXT"
echo "72 GPUs, one hung: $n threads, 71 others up in 4 of 4 scrapes, the hung one down in $down5"
stop_exporter

# ---- a GPU lost, then back on the bus 3 s later; GPU 0's first GPM queries fail
start_exporter "$SCEN/h100-returns.ini" --interval 500ms || finish
wait_metric 'gpu_lost{gpu="1",uuid="GPU-41c0de79-3b2a-4f6e-8d1c-00000000c101"} 1' 10
# its Xid 31 so far: once if it was registered for events before it fell off the bus, else never
XID1='gpu_xid_errors_total{gpu="1",uuid="GPU-41c0de79-3b2a-4f6e-8d1c-00000000c101",xid="31"}'
get /metrics
x0=$(grep -F "$XID1 " "$TMP/body" | awk '{print $2}')
wait_metric 'gpu_lost{gpu="1",uuid="GPU-41c0de79-3b2a-4f6e-8d1c-00000000c101"} 0' 12
wait_metric 'gpu_up{gpu="1",uuid="GPU-41c0de79-3b2a-4f6e-8d1c-00000000c101"} 1' 3
# registered for events anew on its return: the XIDs it raises from then on are seen
wait_metric "$XID1 $(( ${x0:-0} + 1 ))" 3
# its readings and its profiling counters are back too
wait_metric 'gpu_sm_active_ratio{gpu="1",uuid="GPU-41c0de79-3b2a-4f6e-8d1c-00000000c101"} 0.7' 3
wait_metric 'gpu_sm_active_ratio{gpu="0",uuid="GPU-41c0de79-3b2a-4f6e-8d1c-00000000c100"} 0.7' 3
stop_exporter
finish
