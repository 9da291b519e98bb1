#!/bin/bash
# gpuscope export through the faults it must survive, on the fake NVML:
# a GPU that falls off the bus, an XID 79 followed by the loss, an NVML call
# that hangs, an XID storm from NVML and from the kernel log.  The other
# GPUs keep flowing, scrapes stay fast, /health tells the truth, SIGTERM
# still ends it.
EXPORT_LIB_ONLY=1 . "$TESTS/integration/70-export-basic.sh"

# scrape_time: seconds one /metrics request takes
scrape_time() {
	curl -s --max-time 5 -o "$TMP/body" -w '%{time_total}' "$BASE/metrics"
}

# ---- a GPU lost after a few calls (gpu-lost.ini: GPU 1 after 12) ----
start_exporter "$SCEN/gpu-lost.ini" --interval 200ms
wait_metric 'gpu_lost{gpu="1",uuid="GPU-0a1b2c3d-4e5f-4a6b-8c7d-000000001401"} 1'
wait_metric 'gpu_up{gpu="1",uuid="GPU-0a1b2c3d-4e5f-4a6b-8c7d-000000001401"} 0'
get /metrics
has 'gpu_up{gpu="0",uuid="GPU-0a1b2c3d-4e5f-4a6b-8c7d-000000001400"} 1'
has 'DCGM_FI_DEV_GPU_TEMP{gpu="0",'
lacks 'DCGM_FI_DEV_GPU_TEMP{gpu="1",'
lacks 'gpu_power_watts{gpu="1"'
# the lost GPU keeps its identity
has 'gpu_info{gpu="1",uuid="GPU-0a1b2c3d-4e5f-4a6b-8c7d-000000001401",name="NVIDIA L40S",pci_bus_id="00000000:81:00.0"'
# GPU 0 still moves: the collections go on
C1=$(grep '^gpuscope_exporter_collections_total ' "$TMP/body" | awk '{print $2}')
sleep 0.6
get /metrics
C2=$(grep '^gpuscope_exporter_collections_total ' "$TMP/body" | awk '{print $2}')
CHECKS=$((CHECKS + 1))
[ "${C2:-0}" -gt "${C1:-0}" ] || fail "collections stopped after the loss ($C1 -> $C2)"
# a lost GPU is reported, not a reason to fail /health
get /health
expect_code 200 "/health with a lost GPU"
stop_exporter TERM
CHECKS=$((CHECKS + 1))
[ "$STOP_RC" = 0 ] || fail "exit $STOP_RC after a lost GPU"

# ---- XID 79, then the GPU is gone (h100-xid79.ini) ----
start_exporter "$SCEN/h100-xid79.ini" --interval 200ms
wait_metric 'gpu_xid_errors_total{gpu="1",uuid="GPU-41c0de79-3b2a-4f6e-8d1c-00000000c101",xid="79"} 1'
wait_metric 'gpu_lost{gpu="1",uuid="GPU-41c0de79-3b2a-4f6e-8d1c-00000000c101"} 1'
get /metrics
has 'gpu_xid_last_code{gpu="1",uuid="GPU-41c0de79-3b2a-4f6e-8d1c-00000000c101"} 79'
has ',err_code="79",err_msg="GPU has fallen off the bus"} 79'
has ',xid="79",window_size_in_ms="300000"} 1'
has 'gpu_up{gpu="0",uuid="GPU-41c0de79-3b2a-4f6e-8d1c-00000000c100"} 1'
has 'gpuscope_exporter_xid_source_up{source="nvml"} 1'
stop_exporter TERM

# ---- a hung NVML call: GPU 1's power reading never returns ----
cat >"$TMP/hang.ini" <<'EOF'
[system]
gpus = 3
driver_version = 550.54.15
cuda_driver_version = 12040
[all]
name = NVIDIA A100-SXM4-80GB
uuid = GPU-4a9e0000-0000-4000-8000-00000000000{i}
memory_total_mib = 81920
memory_used_mib = 1024
power_mw = 90000
temp_c = 33
util_gpu = 42
util_mem = 7
[gpu 1]
block = nvmlDeviceGetPowerUsage 600000
EOF
T0=$(date +%s.%N)
start_exporter "$TMP/hang.ini" --interval 200ms --collect-timeout 1s
T1=$(date +%s.%N)
# the first collection waits at most the collection timeout for the hung GPU
CHECKS=$((CHECKS + 1))
awk -v a="$T0" -v b="$T1" 'BEGIN { exit !(b - a < 4) }' || fail "start took $(awk -v a="$T0" -v b="$T1" 'BEGIN {print b - a}') s"
wait_metric 'gpu_up{gpu="1",uuid="GPU-4a9e0000-0000-4000-8000-000000000001"} 0'
wait_metric 'gpuscope_exporter_stalled_calls_total 1'
# scrapes never wait on NVML
for i in 1 2 3 4 5; do
	T=$(scrape_time)
	CHECKS=$((CHECKS + 1))
	awk -v t="$T" 'BEGIN { exit !(t < 0.5) }' || fail "a scrape took $T s while NVML hangs"
done
has 'gpu_utilization_ratio{gpu="0",uuid="GPU-4a9e0000-0000-4000-8000-000000000000"} 0.42'
has 'gpu_utilization_ratio{gpu="2",uuid="GPU-4a9e0000-0000-4000-8000-000000000002"} 0.42'
lacks 'gpu_utilization_ratio{gpu="1"'
has 'gpuscope_exporter_stalled_calls_total 1'
# the other GPUs stay fresh while GPU 1 hangs
sleep 1
get /metrics
AGE=$(grep '^gpuscope_exporter_sample_age_seconds ' "$TMP/body" | awk '{print $2}')
CHECKS=$((CHECKS + 1))
awk -v a="$AGE" 'BEGIN { exit !(a < 1) }' || fail "sample age $AGE s while one GPU hangs"
# but /health says the samples of GPU 1 are stale
get /health
expect_code 503 "/health with a hung call"
has "gpu 1: a library call has not returned"
# SIGTERM ends it although a thread sits in NVML
T0=$(date +%s.%N)
stop_exporter TERM
T1=$(date +%s.%N)
CHECKS=$((CHECKS + 1))
[ "$STOP_RC" = 0 ] || fail "exit $STOP_RC with a hung call"
CHECKS=$((CHECKS + 1))
awk -v a="$T0" -v b="$T1" 'BEGIN { exit !(b - a < 5) }' || fail "stopping took too long with a hung call"
grep -q "still hung" "$EXP_LOG" || fail "no warning about the hung call: $(cat "$EXP_LOG")"

# ---- an XID storm: 200 x XID 48 and 50 x XID 13 from NVML, 2000 from the kernel log ----
{
	printf '[system]\ngpus = 2\ndriver_version = 550.54.15\n'
	printf '[all]\nname = NVIDIA H100 80GB HBM3\nuuid = GPU-5707e000-0000-4000-8000-00000000000{i}\n'
	printf 'power_mw = 300000\nutil_gpu = 99\n'
	printf '[gpu 0]\npci_bus = 0x18\n'
	for i in $(seq 1 200); do echo "xid = 48"; done
	printf '[gpu 1]\npci_bus = 0x2a\n'
	for i in $(seq 1 50); do echo "xid = 13"; done
} >"$TMP/storm.ini"
# the kernel log: 2000 old XID 31 lines of GPU 1 (history from before the start), one
# XID 48 of GPU 0 right now (NVML reports it too: counted once) and lines of no GPU
UP=$(awk '{print $1}' /proc/uptime)
awk -v up="$UP" 'BEGIN {
	for (i = 0; i < 2000; i++)
		printf "3,%d,%d,-;NVRM: Xid (PCI:0000:2a:00): 31, pid=%d, name=python3, Ch 00000010, intr 10000000. MMU Fault\n", i, 1000000 + i, 100 + i
	printf "3,2000,%.0f,-;NVRM: Xid (PCI:0000:18:00): 48, pid=7, name=python3, An uncorrectable double bit error\n", up * 1e6
	printf "[%12.6f] NVRM: Xid (PCI:0000:ee:00): 79, GPU has fallen off the bus.\n", up
	print "6,2002,1,-;an unrelated kernel message"
}' >"$TMP/kmsg"
FAKE_NVML_SCENARIO="$TMP/storm.ini" "$GPUSCOPE" export --nvml "$FAKE" --listen 127.0.0.1:0 \
	--interval 200ms --kmsg "$TMP/kmsg" 2>"$TMP/storm.log" &
EXP_PID=$!
EXP_LOG="$TMP/storm.log"
for i in $(seq 1 200); do
	BASE=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$EXP_LOG" | head -1)
	[ -n "$BASE" ] && break
	sleep 0.05
done
wait_metric 'gpu_xid_errors_total{gpu="0",uuid="GPU-5707e000-0000-4000-8000-000000000000",xid="48"} 200'
wait_metric 'gpu_xid_errors_total{gpu="1",uuid="GPU-5707e000-0000-4000-8000-000000000001",xid="13"} 50'
wait_metric 'gpu_xid_errors_total{gpu="1",uuid="GPU-5707e000-0000-4000-8000-000000000001",xid="31"} 2000'
get /metrics
# the kernel log's XID 48 was the same error NVML reported
has 'gpuscope_exporter_xid_duplicates_total 1'
has 'gpuscope_exporter_xid_unmatched_total 1'
has 'gpuscope_exporter_xid_source_up{source="kmsg"} 1'
# dcgm's windowed count holds the live ones, not the history
has ',xid="48",window_size_in_ms="300000"} 200'
# (the XID 31s are 1 s after boot: outside the 300 s window only once the host has been up longer)
if awk -v up="$UP" 'BEGIN { exit !(up > 310) }'; then
	lacks ',xid="31",window_size_in_ms='
fi
# the last XID of GPU 1 is the latest in time (13, live), not the 31s from boot
has 'gpu_xid_last_code{gpu="1",uuid="GPU-5707e000-0000-4000-8000-000000000001"} 13'
T=$(scrape_time)
CHECKS=$((CHECKS + 1))
awk -v t="$T" 'BEGIN { exit !(t < 0.5) }' || fail "a scrape took $T s during the storm"
has 'gpu_up{gpu="0",uuid="GPU-5707e000-0000-4000-8000-000000000000"} 1'
CHECKS=$((CHECKS + 1))
promtool check metrics <"$TMP/body" >"$TMP/lint" 2>&1
if grep -qE 'parsing error|error while' "$TMP/lint"; then
	fail "promtool cannot parse the storm output: $(head -3 "$TMP/lint")"
fi
stop_exporter TERM
CHECKS=$((CHECKS + 1))
[ "$STOP_RC" = 0 ] || fail "exit $STOP_RC after the storm"

# ---- clock events in dcgm's names: a GPU in and out of its power cap every 2 collections ----
# (GPU 1 held at its cap from the start, GPU 0 toggling; the window is 2 s of collections 250 ms apart)
sed -e 's/^clock_events = .*/clock_events = 0x4/' "$SCEN/dgx-h100.ini" >"$TMP/capped.ini"
printf '\n[gpu 0]\nclock_events_toggle = 2\n' >>"$TMP/capped.ini"
start_exporter "$TMP/capped.ini" --interval 250ms --clock-events-window 2s || finish
sleep 3
get /metrics
CE='DCGM_EXP_CLOCK_EVENTS'
# every reason the GPU reports has a total from the start, 0 until it comes on (increase() sees the first)
has "${CE}_TOTAL{gpu=\"1\","
has ',clock_event="hw_thermal"} 0'
python3 - "$TMP/body" <<'PY' || fail "clock-event counts"
import re, sys
tot, win = {}, {}
for l in open(sys.argv[1]):
    m = re.match(r'DCGM_EXP_CLOCK_EVENTS_(TOTAL|COUNT)\{gpu="(\d)".*clock_event="([a-z_]+)"(,window_size_in_ms="(\d+)")?\} (\S+)', l)
    if m:
        (tot if m[1] == "TOTAL" else win)[(m[2], m[3])] = (float(m[6]), m[5])
# GPU 1: on from its first collection, one event; the 2 s window holds 8 collections of 250 ms
assert tot[("1", "power_cap")][0] == 1, tot
assert 6 <= win[("1", "power_cap")][0] <= 9 and win[("1", "power_cap")][1] == "2000", win
# GPU 0: on 2, off 2 (a read of its reasons per collection): about 12 collections, 3 times on
assert 2 <= tot[("0", "power_cap")][0] <= 5, tot
assert 2 <= win[("0", "power_cap")][0] <= 6, win
# reasons that never came on are absent from the window count, 0 in the total
assert ("1", "hw_thermal") not in win and tot[("1", "hw_thermal")][0] == 0
PY
stop_exporter TERM

# ---- NVLink P2P in dcgm's names, only when a counters file asks (8 x 7 series; 5,112 at 72 GPUs) ----
sed -e '/^\[gpu 3\]$/a p2p_nvlink = 4' "$SCEN/dgx-h100.ini" >"$TMP/p2p.ini"
grep -q '^p2p_nvlink = 4' "$TMP/p2p.ini" || printf '\n[gpu 3]\np2p_nvlink = 4\n' >>"$TMP/p2p.ini"
printf 'DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).\nDCGM_EXP_P2P_STATUS, gauge, P2P status.\n' >"$TMP/p2p.csv"
FAKE_NVML_SCENARIO="$TMP/p2p.ini" "$GPUSCOPE" export --nvml "$FAKE" --once --names dcgm -f "$TMP/p2p.csv" \
	>"$TMP/p2p.out" 2>"$TMP/p2p.err"
CHECKS=$((CHECKS + 1))
python3 - "$TMP/p2p.out" <<'PY' || fail "DCGM_EXP_P2P_STATUS: $(head -3 "$TMP/p2p.err")"
import re, sys
rows = [re.match(r'DCGM_EXP_P2P_STATUS\{gpu="(\d)".*peer_gpu="(\d)",link_status="(\w+)"\} (\d+)$', l)
        for l in open(sys.argv[1]) if l.startswith("DCGM_EXP_P2P_STATUS{")]
assert len(rows) == 56 and all(rows), len(rows)
for m in rows:
    a, b, status, v = m[1], m[2], m[3], int(m[4])
    assert a != b
    # GPU 3's NVLink P2P is off by a driver setting: both ways
    want = ("DisabledByRegKey", 4) if "3" in (a, b) else ("OK", 0)
    assert (status, v) == want, m[0]
PY
FAKE_NVML_SCENARIO="$TMP/p2p.ini" "$GPUSCOPE" export --nvml "$FAKE" --once --names dcgm >"$TMP/p2p.out" 2>&1
CHECKS=$((CHECKS + 1))
! grep -q '^DCGM_EXP_P2P_STATUS' "$TMP/p2p.out" || fail "DCGM_EXP_P2P_STATUS served unasked"

finish
