#!/bin/bash
# The exporter's footprint: RSS and CPU of `gpuscope export --interval 1s`
# on a fake-NVML scenario, scraped once a second, measured over a window
# after a warm-up.  The fake library runs inside the exporter, so its share
# of the CPU is counted too (a real driver's calls cost more per call).
#
#   bench/export/footprint.sh BUILD_DIR SCENARIO [SECONDS]
#   bench/export/footprint.sh build-rel tests/fake-nvml/scenarios/gb200-nvl72.ini 60
set -eu
BUILD=${1:?build directory}
SCEN=${2:?scenario}
SECS=${3:-60}
LOG=$(mktemp)
FAKE_NVML_SCENARIO="$SCEN" "$BUILD/gpuscope" export --nvml "$BUILD/fake-nvml/libnvidia-ml.so.1" \
	--listen 127.0.0.1:0 --interval 1s --kmsg none 2>"$LOG" &
PID=$!
trap 'kill $PID 2>/dev/null; rm -f "$LOG"' EXIT
for _ in $(seq 1 100); do
	URL=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$LOG" | head -1 || true)
	[ -n "$URL" ] && break
	sleep 0.1
done
[ -n "$URL" ] || { cat "$LOG"; exit 1; }
ticks() { awk '{ print $14 + $15 }' "/proc/$PID/stat"; }
HZ=$(getconf CLK_TCK)
# warm up: 5 collections and scrapes
for _ in 1 2 3 4 5; do curl -s -o /dev/null "$URL/metrics"; sleep 1; done
T0=$(ticks)
S0=$(date +%s.%N)
BYTES=0
for _ in $(seq 1 "$SECS"); do
	B=$(curl -s "$URL/metrics" | wc -c)
	BYTES=$B
	sleep 1
done
T1=$(ticks)
S1=$(date +%s.%N)
GPUS=$(curl -s "$URL/metrics" | awk '/^gpuscope_exporter_gpus /{print $2}')
RSS=$(awk '/^VmRSS/{print $2}' "/proc/$PID/status")
HWM=$(awk '/^VmHWM/{print $2}' "/proc/$PID/status")
THREADS=$(awk '/^Threads/{print $2}' "/proc/$PID/status")
awk -v t0="$T0" -v t1="$T1" -v s0="$S0" -v s1="$S1" -v hz="$HZ" -v rss="$RSS" -v hwm="$HWM" \
	-v gpus="$GPUS" -v bytes="$BYTES" -v th="$THREADS" 'BEGIN {
	printf "gpus %d  interval 1 s  window %.0f s  cpu %.2f %% of one core  rss %.1f MiB  peak rss %.1f MiB  threads %d  exposition %d bytes\n",
		gpus, s1 - s0, 100 * (t1 - t0) / hz / (s1 - s0), rss / 1024, hwm / 1024, th, bytes }'
