#!/bin/bash
# gpuscope export against the fake NVML library on 127.0.0.1: the
# endpoints, both exposition formats, Debian's promtool on the output, the
# flags' errors and exit codes, memory, and a clean exit on SIGTERM.
#
# The other 7x-export tests source this file with EXPORT_LIB_ONLY=1 for the
# helpers below and skip the checks.
. "$TESTS/cli/lib.sh"

FAKE="$BUILDDIR/fake-nvml/libnvidia-ml.so.1"
SCEN="$SRCDIR/tests/fake-nvml/scenarios"
EXP_PID=""
EXTRA_PIDS=""

export_cleanup() {
	local p
	for p in $EXP_PID $EXTRA_PIDS; do
		kill -TERM "$p" 2>/dev/null
	done
	sleep 0.2
	for p in $EXP_PID $EXTRA_PIDS; do
		kill -KILL "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap export_cleanup EXIT

# start_exporter SCENARIO ARGS...: starts the exporter on a port the kernel
# picks; sets EXP_PID, BASE (http[s]://127.0.0.1:PORT) and EXP_LOG.
start_exporter() {
	local scen=$1 i
	shift
	EXP_LOG="$TMP/exporter.$RANDOM.log"
	FAKE_NVML_SCENARIO="$scen" "$GPUSCOPE" export --nvml "$FAKE" --listen 127.0.0.1:0 \
		--kmsg none "$@" 2>"$EXP_LOG" &
	EXP_PID=$!
	BASE=""
	for i in $(seq 1 200); do
		BASE=$(grep -o 'https\?://127\.0\.0\.1:[0-9]*' "$EXP_LOG" | head -1)
		[ -n "$BASE" ] && return 0
		kill -0 "$EXP_PID" 2>/dev/null || break
		sleep 0.05
	done
	fail "the exporter did not start: $(cat "$EXP_LOG")"
	return 1
}

# stop_exporter [SIGNAL]: stops it and waits (at most 10 s); sets STOP_RC.
stop_exporter() {
	local i
	STOP_RC=""
	[ -n "$EXP_PID" ] || return 0
	kill -"${1:-TERM}" "$EXP_PID" 2>/dev/null
	for i in $(seq 1 200); do
		if ! kill -0 "$EXP_PID" 2>/dev/null; then
			wait "$EXP_PID"
			STOP_RC=$?
			EXP_PID=""
			return 0
		fi
		sleep 0.05
	done
	fail "the exporter did not stop within 10 s of SIG${1:-TERM}"
	kill -KILL "$EXP_PID" 2>/dev/null
	wait "$EXP_PID" 2>/dev/null
	EXP_PID=""
}

# get PATH [CURL ARGS...]: fetches BASE/PATH into $BODY, status in $CODE, headers in $HDRS.
get() {
	local path=$1
	shift
	CODE=$(curl -s --max-time 5 -D "$TMP/hdrs" -o "$TMP/body" -w '%{http_code}' "$@" "$BASE$path")
	BODY=$(cat "$TMP/body" 2>/dev/null)
	HDRS=$(cat "$TMP/hdrs" 2>/dev/null)
}

# has TEXT: the last body contains TEXT (a fixed string).
has() {
	CHECKS=$((CHECKS + 1))
	grep -qF -- "$1" "$TMP/body" || fail "body lacks '$1'"
}
lacks() {
	CHECKS=$((CHECKS + 1))
	! grep -qF -- "$1" "$TMP/body" || fail "body has '$1'"
}
expect_code() {
	CHECKS=$((CHECKS + 1))
	[ "$CODE" = "$1" ] || fail "HTTP status $CODE, want $1 ($2)"
}

# wait_metric TEXT [SECONDS]: scrapes until /metrics contains TEXT.
wait_metric() {
	local i n=$(( ${2:-10} * 10 ))
	CHECKS=$((CHECKS + 1))
	for i in $(seq 1 "$n"); do
		curl -s --max-time 2 "$BASE/metrics" -o "$TMP/body" "${CURL_AUTH[@]}" 2>/dev/null
		grep -qF -- "$1" "$TMP/body" && return 0
		sleep 0.1
	done
	fail "/metrics never showed '$1'"
	return 1
}
CURL_AUTH=()

# tls_pair DIR: two self-signed certificates for 127.0.0.1 and a web config for
# each (DIR/tls-a.yml, DIR/tls-b.yml), with DIR/tls.yml a copy of the first:
# swap them and send SIGHUP to rotate the certificate.
tls_pair() {
	local n
	mkdir -p "$1"
	for n in a b; do
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$1/$n.key" \
			-out "$1/$n.crt" -subj "/CN=127.0.0.1" -days 2 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
		printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n' "$1/$n.crt" "$1/$n.key" >"$1/tls-$n.yml"
	done
	cp "$1/tls-a.yml" "$1/tls.yml"
}

# A free TCP port on 127.0.0.1 (for servers that cannot be given port 0).
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

[ "${EXPORT_LIB_ONLY:-}" = 1 ] && return 0

# ---- flags and exit codes ----
expect_rc 2 export --listen 9400
expect_err "--listen"
expect_err "use :9400"
expect_rc 2 export --listen '[::1]'
expect_err "--listen"
expect_rc 2 export --listen 127.0.0.1:99999
expect_err "--listen"
expect_rc 2 export --names prometheus
expect_err "dcgm, native or both"
expect_rc 2 export --interval 0
expect_err "--interval"
expect_rc 2 export --intervall 1s
expect_err "did you mean '--interval'"
expect_rc 2 export extra
expect_rc 0 export --help
expect_out "--web-config FILE"
expect_width 80
# no NVML library: a clear error and exit 3
expect_rc 3 export --nvml "$TMP/nowhere/libnvidia-ml.so.1" --listen 127.0.0.1:0
expect_err "cannot load"
expect_err "--allow-no-gpu"
# the library, but no driver (the fake without a scenario)
env -u FAKE_NVML_SCENARIO "$GPUSCOPE" export --nvml "$FAKE" --listen 127.0.0.1:0 >/dev/null 2>"$TMP/err"
RC=$?
CHECKS=$((CHECKS + 1))
[ $RC -eq 3 ] || fail "no driver: exit $RC, want 3"
FAKE_NVML_SCENARIO="$SCEN/driver-mismatch.ini" "$GPUSCOPE" export --nvml "$FAKE" --listen 127.0.0.1:0 \
	>/dev/null 2>"$TMP/err"
RC=$?
CHECKS=$((CHECKS + 1))
[ $RC -eq 3 ] || fail "driver mismatch: exit $RC, want 3"
grep -q "version" "$TMP/err" || fail "driver mismatch: message lacks 'version': $(cat "$TMP/err")"
# a busy port: exit 3 naming the address
PORT=$(free_port)
python3 -c "import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1',$PORT)); s.listen(1); open('$TMP/busy','w').close(); time.sleep(10)" &
EXTRA_PIDS="$!"
for i in $(seq 1 100); do
	[ -e "$TMP/busy" ] && break
	sleep 0.05
done
FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" timeout 10 "$GPUSCOPE" export --nvml "$FAKE" \
	--listen "127.0.0.1:$PORT" --kmsg none >/dev/null 2>"$TMP/err"
RC=$?
CHECKS=$((CHECKS + 1))
[ $RC -eq 3 ] || fail "busy port: exit $RC, want 3"
grep -q "127.0.0.1:$PORT" "$TMP/err" || fail "busy port: message lacks the address: $(cat "$TMP/err")"
kill "$EXTRA_PIDS" 2>/dev/null
EXTRA_PIDS=""

# ---- --once: one collection on stdout ----
FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" run export --nvml "$FAKE" --once --names native
CHECKS=$((CHECKS + 1))
[ "$RC" -eq 0 ] || fail "--once exited $RC: $ERR"
printf '%s\n' "$OUT" >"$TMP/native.prom"
CHECKS=$((CHECKS + 1))
promtool check metrics <"$TMP/native.prom" >"$TMP/lint" 2>&1 || fail "promtool check metrics (native): $(head -20 "$TMP/lint")"
expect_out 'gpu_utilization_ratio{gpu="3",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000003"} 0.97'
expect_out 'gpu_memory_used_bytes{gpu="0",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000000"} 66571993088'
expect_out 'gpu_power_watts{gpu="7",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000007"} 412'
expect_out 'gpu_energy_joules_total{gpu="0",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000000"} 8123456.789'
# GPM's interval average wins over the 20 ms window on a GPU that has it
expect_out 'gpu_pcie_transmit_bytes_per_second{gpu="0",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000000"} 100663296'
expect_out 'gpu_sm_active_ratio{gpu="0",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000000"} 0.8825'
expect_out 'gpu_pipe_active_ratio{gpu="0",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000000",pipe="tensor"} 0.6375'
expect_out 'gpu_nvlink_up{gpu="5",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000005",link="17"} 1'
expect_out 'gpu_info{gpu="2",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000002",name="NVIDIA H100 80GB HBM3",pci_bus_id="00000000:3A:00.0",device="nvidia2",driver_version="550.54.15",cuda_version="12.4"'
CHECKS=$((CHECKS + 1))
case "$OUT" in *DCGM_*) fail "--names native printed dcgm names";; esac
CHECKS=$((CHECKS + 1))
case "$OUT" in *gpu_process_memory*) fail "processes shown without --processes";; esac

# ---- the server ----
start_exporter "$SCEN/dgx-h100.ini" --processes
get /metrics
expect_code 200 "/metrics"
CHECKS=$((CHECKS + 1))
grep -qi '^Content-Type: text/plain; version=0.0.4; charset=utf-8' "$TMP/hdrs" || fail "text content type: $HDRS"
DCGM_LABELS='gpu="4",UUID="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000004",pci_bus_id="00000000:9A:00.0",device="nvidia4",modelName="NVIDIA H100 80GB HBM3"'
has "DCGM_FI_DEV_GPU_UTIL{$DCGM_LABELS,Hostname="
has ',DCGM_FI_DRIVER_VERSION="550.54.15"} 97'
has "# TYPE DCGM_FI_DEV_POWER_USAGE gauge"
has "DCGM_FI_DEV_FB_USED{$DCGM_LABELS"
has '} 63488'
has 'gpu_up{gpu="4",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000004"} 1'
has 'gpu_process_memory_used_bytes{gpu="0",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000000",pid="31337"'
has 'gpuscope_exporter_sample_age_seconds '
cp "$TMP/body" "$TMP/both.prom"
# the dcgm names break promtool's naming rules on purpose; the format itself must parse
CHECKS=$((CHECKS + 1))
promtool check metrics <"$TMP/both.prom" >"$TMP/lint" 2>&1
if grep -qE 'parsing error|error while' "$TMP/lint"; then
	fail "promtool cannot parse the --names both output: $(grep -E 'parsing error|error while' "$TMP/lint" | head -5)"
fi
# every family is one group with one HELP and one TYPE
CHECKS=$((CHECKS + 1))
DUP=$(grep '^# TYPE ' "$TMP/both.prom" | awk '{print $3}' | sort | uniq -d)
[ -z "$DUP" ] || fail "families typed twice: $DUP"

# OpenMetrics when the scraper asks for it (Prometheus 2's Accept header)
get /metrics -H 'Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
expect_code 200 "OpenMetrics"
CHECKS=$((CHECKS + 1))
grep -qi '^Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8' "$TMP/hdrs" ||
	fail "OpenMetrics content type: $HDRS"
CHECKS=$((CHECKS + 1))
[ "$(tail -n 1 "$TMP/body")" = "# EOF" ] || fail "OpenMetrics does not end with # EOF"
has '# TYPE gpu_energy_joules counter'
has '# UNIT gpu_energy_joules joules'
has '# TYPE gpu info'

# /health, the landing page, errors
get /health
expect_code 200 "/health"
has "ok"
get /
expect_code 200 "/"
has '<a href="/metrics">'
CHECKS=$((CHECKS + 1))
grep -qi '^Content-Type: text/html' "$TMP/hdrs" || fail "landing page content type"
get /nope
expect_code 404 "/nope"
get /metrics -X POST -d x=1
expect_code 405 "POST"
CHECKS=$((CHECKS + 1))
grep -qi '^Allow: GET, HEAD' "$TMP/hdrs" || fail "405 without Allow"
get /metrics -I
expect_code 200 "HEAD"
# keep-alive: two requests on one connection
CHECKS=$((CHECKS + 1))
curl -sv --max-time 5 -o /dev/null -o /dev/null "$BASE/health" "$BASE/metrics" 2>&1 | grep -q 'Re-using existing connection' ||
	fail "the connection was not kept alive"

# fresh samples: the collection age stays under two intervals
sleep 2.2
get /metrics
AGE=$(grep '^gpuscope_exporter_sample_age_seconds ' "$TMP/body" | awk '{print $2}')
COLL=$(grep '^gpuscope_exporter_collections_total ' "$TMP/body" | awk '{print $2}')
CHECKS=$((CHECKS + 1))
awk -v a="$AGE" 'BEGIN { exit !(a >= 0 && a < 2) }' || fail "sample age $AGE s"
CHECKS=$((CHECKS + 1))
[ "${COLL:-0}" -ge 3 ] || fail "only ${COLL:-0} collections after 2 s at 1 s intervals"
# resident memory (the benchmark reports the figure; this only bounds it).
# A sanitizer's shadow memory alone is several MiB: a looser bound there.
RSS_KB=$(awk '/^VmRSS:/ {print $2}' "/proc/$EXP_PID/status")
RSS_MAX=20480
ldd "$GPUSCOPE" 2>/dev/null | grep -qE 'lib[at]san' && RSS_MAX=65536
CHECKS=$((CHECKS + 1))
[ "${RSS_KB:-999999}" -lt "$RSS_MAX" ] || fail "resident memory ${RSS_KB} KiB, want < $RSS_MAX KiB"
echo "resident memory: ${RSS_KB} KiB"
stop_exporter TERM
CHECKS=$((CHECKS + 1))
[ "$STOP_RC" = 0 ] || fail "SIGTERM: exit $STOP_RC, want 0"
grep -q "stopping" "$EXP_LOG" || fail "no stop message"

# ---- without NVML, with --allow-no-gpu: the exporter's own metrics ----
FAKE_NVML_SCENARIO= "$GPUSCOPE" export --nvml "$TMP/nowhere.so" --allow-no-gpu --listen 127.0.0.1:0 \
	--kmsg none 2>"$TMP/nogpu.log" &
EXP_PID=$!
for i in $(seq 1 100); do
	BASE=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$TMP/nogpu.log" | head -1)
	[ -n "$BASE" ] && break
	sleep 0.05
done
get /metrics
expect_code 200 "--allow-no-gpu /metrics"
has 'gpuscope_exporter_backend_up{backend="nvml"} 0'
has 'gpuscope_exporter_gpus 0'
lacks 'gpu_up{'
get /health
expect_code 200 "--allow-no-gpu /health"
stop_exporter INT
CHECKS=$((CHECKS + 1))
[ "$STOP_RC" = 0 ] || fail "SIGINT: exit $STOP_RC, want 0"

# ---- --names dcgm on [::1] when the host has IPv6 ----
if python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1",0))' 2>/dev/null; then
	FAKE_NVML_SCENARIO="$SCEN/a100-mig.ini" "$GPUSCOPE" export --nvml "$FAKE" --listen '[::1]:0' \
		--names dcgm --kmsg none 2>"$TMP/v6.log" &
	EXP_PID=$!
	for i in $(seq 1 100); do
		BASE=$(grep -o 'http://\[::1\]:[0-9]*' "$TMP/v6.log" | head -1)
		[ -n "$BASE" ] && break
		sleep 0.05
	done
	get /metrics -g
	expect_code 200 "[::1]"
	# a MIG-enabled GPU: memory per GPU instance, utilisation absent
	has 'DCGM_FI_DEV_FB_USED{gpu="0"'
	has ',GPU_I_ID="1"} 1024'
	has ',GPU_I_ID="2"} 1024'
	lacks 'DCGM_FI_DEV_GPU_UTIL{'
	has 'gpu_mig_memory_total_bytes{gpu="0",uuid="'
	lacks 'gpu_utilization_ratio'
	stop_exporter TERM
fi

finish
