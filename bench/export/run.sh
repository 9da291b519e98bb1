#!/bin/bash
# Benchmark of gpuscope export: /metrics of 8 (fake) GPUs under wrk, side
# by side in the same run with
#   - nginx serving the very same bytes as a static file: the HTTP ceiling
#     of this machine, since nothing can answer faster than a file server;
#   - Debian's prometheus-node-exporter: a widely used exporter (Go,
#     collecting synchronously on every scrape).
# Reported per server: requests per second, p50 and p99 latency, resident
# memory (peak, all processes), CPU per scrape; and for gpuscope export its
# idle CPU at --interval 1s with 8 GPUs.
#
# usage: bench/export/run.sh
# env:   GPUSCOPE=binary (default: a Release build in build-bench/)
#        DURATION=10s CONNECTIONS=16 THREADS=2 IDLE_S=30 REPEAT=3 OUT=dir (results.json there)
# The servers take turns (REPEAT rounds of gpuscope, nginx, node_exporter);
# each figure is the median of its rounds, which keeps a busy neighbour on a
# shared machine from favouring one server.
# needs: the packages in bench/export/packages.txt (installed when run as root)
set -euo pipefail
cd "$(dirname "$0")/../.."
SRC=$PWD
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-16}
THREADS=${THREADS:-2}
IDLE_S=${IDLE_S:-30}
REPEAT=${REPEAT:-3}
TMPD=$(mktemp -d)
PIDS=""
cleanup() {
	local p
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null || true; done
	for i in $(seq 1 30); do
		alive=0
		for p in $PIDS; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ "$alive" = 0 ] && break
		sleep 0.1
	done
	for p in $PIDS; do kill -KILL "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$TMPD"
}
trap cleanup EXIT

missing=""
for p in $(grep -v '^#' bench/export/packages.txt); do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" = 0 ]; then
		echo "installing$missing" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
	else
		echo "bench/export: missing packages:$missing (apt-get install them)" >&2
		exit 3
	fi
fi
if [ -z "${GPUSCOPE:-}" ]; then
	cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	ninja -C build-bench -j2 gpuscope fake_nvml >/dev/null
	GPUSCOPE=$PWD/build-bench/gpuscope
	FAKE=$PWD/build-bench/fake-nvml/libnvidia-ml.so.1
else
	FAKE=${FAKE_NVML:-$(dirname "$GPUSCOPE")/fake-nvml/libnvidia-ml.so.1}
fi

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}
wait_http() {
	local i
	for i in $(seq 1 100); do
		curl -s --max-time 1 -o /dev/null "$1" && return 0
		sleep 0.1
	done
	echo "bench/export: $1 does not answer" >&2
	exit 3
}
# cpu_ticks PID...: user + system clock ticks of the processes
cpu_ticks() {
	local t=0 p
	for p in "$@"; do
		t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat")))
	done
	echo "$t"
}
# kib FIELD PID...: the sum of a /proc/PID/status field (VmRSS, VmHWM), KiB
kib() {
	local f=$1 t=0 p
	shift
	for p in "$@"; do
		t=$((t + $(awk -v f="$f:" '$1 == f {print $2}' "/proc/$p/status")))
	done
	echo "$t"
}
HZ=$(getconf CLK_TCK)

# ---- gpuscope export, 8 GPUs (the fake DGX H100) ----
FAKE_NVML_SCENARIO="$SRC/tests/fake-nvml/scenarios/dgx-h100.ini" "$GPUSCOPE" export --nvml "$FAKE" \
	--listen 127.0.0.1:0 --interval 1s --kmsg none --max-per-ip 1024 --max-connections 1024 \
	2>"$TMPD/export.log" &
EXP=$!
PIDS="$PIDS $EXP"
for i in $(seq 1 100); do
	EXP_URL=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$TMPD/export.log" | head -1 || true)
	[ -n "$EXP_URL" ] && break
	sleep 0.05
done
EXP_URL="$EXP_URL/metrics"
wait_http "$EXP_URL"
mkdir -p "$TMPD/www"
curl -s "$EXP_URL" -o "$TMPD/www/metrics"
BYTES=$(wc -c <"$TMPD/www/metrics")

# idle: collecting every second, nobody scraping
echo "idle CPU of gpuscope export (8 GPUs, --interval 1s) over ${IDLE_S} s ..." >&2
T0=$(cpu_ticks "$EXP")
sleep "$IDLE_S"
T1=$(cpu_ticks "$EXP")
IDLE_PCT=$(awk -v a="$T0" -v b="$T1" -v hz="$HZ" -v s="$IDLE_S" 'BEGIN { printf "%.3f", (b - a) / hz / s * 100 }')
IDLE_RSS=$(kib VmRSS "$EXP")

# ---- nginx with the same bytes ----
NGX_PORT=$(free_port)
mkdir -p "$TMPD/nginx/logs" "$TMPD/nginx/tmp"
cat >"$TMPD/nginx/nginx.conf" <<NGX
worker_processes 2;
pid $TMPD/nginx/nginx.pid;
error_log $TMPD/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
	access_log off;
	# the fastest way nginx serves a file: the kernel copies it, the descriptor stays open
	sendfile on;
	tcp_nopush on;
	open_file_cache max=16;
	output_buffers 2 512k;
	client_body_temp_path $TMPD/nginx/tmp/body;
	proxy_temp_path $TMPD/nginx/tmp/proxy;
	fastcgi_temp_path $TMPD/nginx/tmp/fastcgi;
	uwsgi_temp_path $TMPD/nginx/tmp/uwsgi;
	scgi_temp_path $TMPD/nginx/tmp/scgi;
	keepalive_requests 1000000;
	server {
		listen 127.0.0.1:$NGX_PORT;
		root $TMPD/www;
		location = /metrics { default_type "text/plain; version=0.0.4; charset=utf-8"; }
	}
}
NGX
nginx -c "$TMPD/nginx/nginx.conf" -p "$TMPD/nginx" -g 'daemon off; user root;' 2>"$TMPD/nginx.err" &
NGX=$!
PIDS="$PIDS $NGX"
wait_http "http://127.0.0.1:$NGX_PORT/metrics"

# ---- prometheus-node-exporter ----
NODE_PORT=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$NODE_PORT" --log.level=warn 2>"$TMPD/node.err" &
NODE=$!
PIDS="$PIDS $NODE"
wait_http "http://127.0.0.1:$NODE_PORT/metrics"
NODE_BYTES=$(curl -s "http://127.0.0.1:$NODE_PORT/metrics" | wc -c)

# bench NAME URL PIDS...: one wrk run; prints a result line
to_ms() {   # "1.23ms" "456.78us" "1.02s" -> milliseconds
	awk -v v="$1" 'BEGIN {
		n = v + 0
		if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n += 0; else if (v ~ /s$/) n *= 1000
		printf "%.3f", n }'
}
declare -A R
bench() {
	local name=$1 url=$2 t0 t1 out req rps p50 p99 hwm
	shift 2
	wrk -t "$THREADS" -c "$CONNECTIONS" -d 1s "$url" >/dev/null 2>&1 || true   # warm up
	t0=$(cpu_ticks "$@")
	out=$(wrk -t "$THREADS" -c "$CONNECTIONS" -d "$DURATION" --latency "$url")
	t1=$(cpu_ticks "$@")
	hwm=$(kib VmHWM "$@")
	req=$(printf '%s\n' "$out" | awk '/requests in/ {print $1}')
	rps=$(printf '%s\n' "$out" | awk '/^Requests\/sec:/ {print $2}')
	p50=$(to_ms "$(printf '%s\n' "$out" | awk '$1 == "50%" {print $2}')")
	p99=$(to_ms "$(printf '%s\n' "$out" | awk '$1 == "99%" {print $2}')")
	errs=$(printf '%s\n' "$out" | awk '/Non-2xx|Socket errors/' | tr '\n' ' ')
	echo "$rps $p50 $p99 $hwm $(awk -v a="$t0" -v b="$t1" -v hz="$HZ" -v n="$req" 'BEGIN { printf "%.1f", (b - a) / hz / n * 1e6 }') $req" >>"$TMPD/runs.$name"
	echo "  $name: $rps req/s, p99 $p99 ms" >&2
	[ -z "$errs" ] || echo "$name: $errs" >&2
}
NGX_PIDS="$NGX $(pgrep -P "$NGX" | tr '\n' ' ')"
for round in $(seq 1 "$REPEAT"); do
	echo "round $round of $REPEAT ..." >&2
	bench gpuscope "$EXP_URL" "$EXP"
	# shellcheck disable=SC2086
	bench nginx "http://127.0.0.1:$NGX_PORT/metrics" $NGX_PIDS
	bench node_exporter "http://127.0.0.1:$NODE_PORT/metrics" "$NODE"
done
# the median of each column over the rounds (peak RSS: the largest)
for name in gpuscope nginx node_exporter; do
	R[$name]=$(awk '{ for (i = 1; i <= NF; i++) v[i, NR] = $i; n = NR; f = NF }
		END {
			for (i = 1; i <= f; i++) {
				for (a = 1; a <= n; a++) c[a] = v[i, a]
				for (a = 1; a <= n; a++) for (b = a + 1; b <= n; b++) if (c[b] + 0 < c[a] + 0) { t = c[a]; c[a] = c[b]; c[b] = t }
				printf "%s%s", (i > 1 ? " " : ""), (i == 4 ? c[n] : c[int((n + 1) / 2)])
			}
			print ""
		}' "$TMPD/runs.$name")
done
AFTER_RSS=$(kib VmRSS "$EXP")

echo
echo "gpuscope export: 8 GPUs (fake DGX H100 NVML), $BYTES bytes per scrape (text 0.0.4, --names both)"
echo "wrk -t $THREADS -c $CONNECTIONS -d $DURATION, median of $REPEAT rounds, on $(nproc) CPUs ($(uname -m)); client and servers on one host"
echo
printf '%-16s %10s %9s %9s %12s %14s %9s\n' server "req/s" "p50 ms" "p99 ms" "peak RSS KiB" "CPU us/scrape" bytes
for name in gpuscope nginx node_exporter; do
	read -r rps p50 p99 hwm cpu req <<<"${R[$name]}"
	b=$BYTES
	[ "$name" = node_exporter ] && b=$NODE_BYTES
	printf '%-16s %10.0f %9.3f %9.3f %12s %14s %9s\n' "$name" "$rps" "$p50" "$p99" "$hwm" "$cpu" "$b"
done
read -r g_rps _ <<<"${R[gpuscope]}"
read -r n_rps _ <<<"${R[nginx]}"
echo
echo "gpuscope / nginx throughput: $(awk -v a="$g_rps" -v b="$n_rps" 'BEGIN { printf "%.2f", a / b }') (aim: >= 0.5)"
echo "gpuscope idle CPU at --interval 1s, 8 GPUs: ${IDLE_PCT}% of a core (aim: < 1%)"
echo "gpuscope resident memory: ${IDLE_RSS} KiB idle, ${AFTER_RSS} KiB after the load (aim: < 10 MiB)"
if [ -n "${OUT:-}" ]; then
	mkdir -p "$OUT"
	python3 - "$OUT/bench-export.json" <<PY
import json, sys
r = {}
for name, line in (("gpuscope", "${R[gpuscope]}"), ("nginx", "${R[nginx]}"), ("node_exporter", "${R[node_exporter]}")):
    rps, p50, p99, hwm, cpu, req = line.split()
    r[name] = {"requests_per_s": float(rps), "p50_ms": float(p50), "p99_ms": float(p99),
               "peak_rss_kib": int(hwm), "cpu_us_per_scrape": float(cpu), "requests": int(req)}
r["gpuscope"]["idle_cpu_percent"] = float("$IDLE_PCT")
r["gpuscope"]["idle_rss_kib"] = int("$IDLE_RSS")
r["gpuscope"]["bytes_per_scrape"] = int("$BYTES")
r["setup"] = {"threads": $THREADS, "connections": $CONNECTIONS, "duration": "$DURATION", "cpus": $(nproc)}
json.dump(r, open(sys.argv[1], "w"), indent=2)
PY
	echo "results: $OUT/bench-export.json"
fi
