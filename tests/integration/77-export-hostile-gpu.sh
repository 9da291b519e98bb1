#!/bin/bash
# What a local user or a failing driver can feed the exporter: label values
# that are not UTF-8 (a process renamed to raw bytes, a GPU name and VBIOS
# string from the driver), sentinel readings, every GPU lost, a GPU whose
# calls keep running past --collect-timeout, and a kernel log that is
# /dev/zero.  Every scrape stays valid for Prometheus, /health stays true
# and steady, nothing spins.
EXPORT_LIB_ONLY=1 . "$TESTS/integration/70-export-basic.sh"

lint() {
	CHECKS=$((CHECKS + 1))
	promtool check metrics <"$TMP/body" >"$TMP/lint" 2>&1
	if grep -qE 'parsing error|error while|invalid' "$TMP/lint"; then
		fail "promtool rejects the scrape ($1): $(head -3 "$TMP/lint")"
	fi
}

# a process whose name is not UTF-8 (any user can do this to their own process)
python3 -c '
import os, sys, time
open("/proc/self/comm", "wb").write(b"\xff\xfe" + b"evil\xc3")
open(sys.argv[1], "w").write(str(os.getpid()))
time.sleep(60)' "$TMP/evil.pid" &
EVIL=$!
EXTRA_PIDS="$EVIL"
for i in $(seq 1 100); do [ -s "$TMP/evil.pid" ] && break; sleep 0.05; done
printf '[system]\ngpus = 2\ndriver_version = 550.54.15\ncuda_driver_version = 12040\n[all]\n' >"$TMP/bad.ini"
printf 'name = NVIDIA \xff\xfe H100\nvbios = 96.00.\xc3\x28.00\nserial = 1\xe2\x82\n' >>"$TMP/bad.ini"
cat >>"$TMP/bad.ini" <<EOF2
uuid = GPU-badbad00-0000-4000-8000-00000000000{i}
memory_total_mib = 81920
memory_used_mib = 1024
power_mw = 300000
temp_c = 4294967295
temp_shutdown_c = 4294967295
temp_slowdown_c = 90
util_gpu = 150
util_mem = 40
process = $(cat "$TMP/evil.pid") compute 2048
[gpu 1]
temp_c = 55
util_gpu = 100
memory_used_mib = 90000
EOF2
start_exporter "$TMP/bad.ini" --processes --interval 200ms
get /metrics
expect_code 200 "/metrics with bad strings"
lint "text format"
CHECKS=$((CHECKS + 1))
grep -q "process=\"$(printf '\xef\xbf\xbd\xef\xbf\xbd')evil$(printf '\xef\xbf\xbd')\"" "$TMP/body" ||
	fail "the process name is not replaced: $(grep -a 'process=' "$TMP/body" | head -1)"
CHECKS=$((CHECKS + 1))
grep -q "name=\"NVIDIA $(printf '\xef\xbf\xbd\xef\xbf\xbd') H100\"" "$TMP/body" ||
	fail "the GPU name is not replaced: $(grep -a '^gpu_info' "$TMP/body" | head -1)"
get /metrics -H 'Accept: application/openmetrics-text; version=1.0.0'
CHECKS=$((CHECKS + 1))
grep -q "name=\"NVIDIA $(printf '\xef\xbf\xbd\xef\xbf\xbd') H100\"" "$TMP/body" ||
	fail "OpenMetrics: the GPU name is not replaced"
CHECKS=$((CHECKS + 1))
python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$TMP/body" ||
	fail "OpenMetrics: the body is not UTF-8"
get /metrics
# sentinel readings are absent, real ones stay
lacks 'gpu_temperature_celsius{gpu="0"'
lacks '4294967295'
lacks '4.294967295e+09'
has 'gpu_temperature_celsius{gpu="1",uuid="GPU-badbad00-0000-4000-8000-000000000001"} 55'
lacks 'gpu_utilization_ratio{gpu="0"'
lacks 'DCGM_FI_DEV_GPU_UTIL{gpu="0"'
has 'gpu_utilization_ratio{gpu="1",uuid="GPU-badbad00-0000-4000-8000-000000000001"} 1'
has 'gpu_memory_copy_utilization_ratio{gpu="0",uuid="GPU-badbad00-0000-4000-8000-000000000000"} 0.4'
lacks 'gpu_memory_used_bytes{gpu="1"'
lacks 'DCGM_FI_DEV_FB_USED{gpu="1"'
has 'gpu_memory_used_bytes{gpu="0",uuid="GPU-badbad00-0000-4000-8000-000000000000"} 1073741824'
stop_exporter TERM
kill "$EVIL" 2>/dev/null
EXTRA_PIDS=""

# ---- every GPU lost: /health fails, the failed calls are counted ----
cat >"$TMP/all-lost.ini" <<'EOF2'
[system]
gpus = 2
driver_version = 550.54.15
[all]
name = NVIDIA L40S
uuid = GPU-1057a11-0000-4000-8000-00000000000{i}
power_mw = 90000
lost_after_calls = 40
EOF2
start_exporter "$TMP/all-lost.ini" --interval 200ms
wait_metric 'gpu_lost{gpu="0",uuid="GPU-1057a11-0000-4000-8000-000000000000"} 1'
wait_metric 'gpu_lost{gpu="1",uuid="GPU-1057a11-0000-4000-8000-000000000001"} 1'
sleep 0.5
get /metrics
E=$(grep '^gpuscope_exporter_collect_errors_total ' "$TMP/body" | awk '{print $2}')
CHECKS=$((CHECKS + 1))
[ "${E:-0}" -gt 0 ] || fail "collect_errors_total is '${E:-}' while every call fails"
get /health
expect_code 503 "/health with every GPU lost"
has "every GPU is lost (2 of 2)"
stop_exporter TERM

# ---- a GPU whose power reading always takes 1.3 s, past --collect-timeout 1s ----
# /health must fail and stay failed, not flap between the stalls
slow_ini() {
	printf '[system]\ngpus = 2\ndriver_version = 550.54.15\n[all]\nname = NVIDIA A100-SXM4-80GB\n'
	printf 'uuid = GPU-51000000-0000-4000-8000-00000000000{i}\npower_mw = 90000\nutil_gpu = 5\n'
	printf '[gpu 1]\nblock = nvmlDeviceGetPowerUsage %s\n' "$1"
}
health_codes() {
	local i
	: >"$TMP/codes"
	for i in $(seq 1 "$1"); do
		curl -s --max-time 2 -o /dev/null -w '%{http_code}\n' "$BASE/health" >>"$TMP/codes"
		sleep 0.1
	done
}
slow_ini 1300 >"$TMP/slow.ini"
start_exporter "$TMP/slow.ini" --interval 200ms --collect-timeout 1s
health_codes 50
CHECKS=$((CHECKS + 1))
[ "$(sort -u "$TMP/codes" | tr '\n' ' ')" = "503 " ] ||
	fail "/health flaps with a GPU slower than --collect-timeout: $(sort "$TMP/codes" | uniq -c | tr '\n' ' ')"
stop_exporter TERM
# a GPU slow but within the timeout: /health steadily ok
slow_ini 500 >"$TMP/slow.ini"
start_exporter "$TMP/slow.ini" --interval 200ms --collect-timeout 1s
health_codes 25
CHECKS=$((CHECKS + 1))
[ "$(sort -u "$TMP/codes" | tr '\n' ' ')" = "200 " ] ||
	fail "/health with calls within the timeout: $(sort "$TMP/codes" | uniq -c | tr '\n' ' ')"
stop_exporter TERM

# ---- a kernel log that is /dev/zero, or a file of NULs: no spin, the source is down ----
# (the three exporters at once: each one's CPU is its own)
head -c 100000 /dev/zero >"$TMP/zeros"
SRCS=(/dev/zero /dev/urandom "$TMP/zeros")
for k in 0 1 2; do
	start_exporter "$SCEN/a100-pcie-x8.ini" --interval 200ms --kmsg "${SRCS[k]}"
	K_PID[k]=$EXP_PID K_BASE[k]=$BASE K_LOG[k]=$EXP_LOG
	EXTRA_PIDS="$EXTRA_PIDS $EXP_PID"
	EXP_PID=""
done
sleep 1
# the CPU each spends over 2 s once started (its start-up, several times
# longer under ThreadSanitizer, is not the question): a reader spinning on
# the source would take all of it
cpu_of() { grep '^process_cpu_seconds_total ' "$TMP/body" | awk '{print $2}'; }
for k in 0 1 2; do
	BASE=${K_BASE[k]}
	get /metrics
	CPU0[k]=$(cpu_of)
done
sleep 2
for k in 0 1 2; do
	src=${SRCS[k]} BASE=${K_BASE[k]} EXP_LOG=${K_LOG[k]}
	get /metrics
	CPU=$(cpu_of)
	has 'gpuscope_exporter_xid_source_up{source="kmsg"} 0'
	CHECKS=$((CHECKS + 1))
	awk -v a="${CPU0[k]}" -v b="$CPU" 'BEGIN { exit !(b - a < 0.5) }' ||
		fail "--kmsg $src: $(awk -v a="${CPU0[k]}" -v b="$CPU" 'BEGIN { print b - a }') s of CPU in 2 s"
	CHECKS=$((CHECKS + 1))
	grep -qE "not the kernel log|binary data" "$EXP_LOG" || fail "--kmsg $src: no warning: $(cat "$EXP_LOG")"
done
EXTRA_PIDS=""
for k in 0 1 2; do
	EXP_PID=${K_PID[k]}
	stop_exporter TERM
done
finish
