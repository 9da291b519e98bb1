#!/bin/bash
# The exporter under the three attacks of bench/export/attack.py, each with
# its baseline: scrape latency (p50, p99, max) and failures seen by a
# scraper from a fifth address (127.0.0.6) while
#   - slowloris: 64 half-open connections from 127.0.0.2-5, a header line
#     every 5 s (the default limits: 64 connections, 16 per address);
#   - authflood: 16 connections sending random wrong passwords (bcrypt cost
#     10) while the scraper sends the right one;
#   - reload: the TLS certificate swapped by SIGHUP every 0.3 s while four
#     scrapers fetch /metrics over HTTPS (a cut body is a failure);
#   - second: 64 connections from 127.0.0.2-5 that each get one answer, then
#     trickle a partial second request;
#   - slowread: 64 connections with a 2 KB receive window, 20 pipelined
#     /metrics each, read 512 bytes every 0.5 s;
#   - authspray: wrong passwords from 2,000 addresses (127.0.1.1 onwards),
#     three users whose passwords were never checked tried during it, and a
#     SIGHUP at half time after which the scraper must still get in.
#
# usage: bench/export/attacks.sh [slowloris|authflood|reload|second|slowread|authspray ...]
# env:   GPUSCOPE=binary (default build/gpuscope), BUILDDIR (for the fake
#        NVML; default the binary's directory), DURATION=20 (seconds per run)
# prints one JSON line per run.
set -euo pipefail
cd "$(dirname "$0")/../.."
GPUSCOPE=${GPUSCOPE:-build/gpuscope}
BUILDDIR=${BUILDDIR:-$(dirname "$GPUSCOPE")}
FAKE="$BUILDDIR/fake-nvml/libnvidia-ml.so.1"
SCEN=tests/fake-nvml/scenarios/dgx-h100.ini
DURATION=${DURATION:-20}
ATTACK="python3 bench/export/attack.py"
TMPD=$(mktemp -d)
PID=""
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$TMPD"' EXIT

start() {   # start ARGS...: sets PID and PORT
	FAKE_NVML_SCENARIO=$SCEN "$GPUSCOPE" export --nvml "$FAKE" --listen 127.0.0.1:0 --kmsg none \
		"$@" 2>"$TMPD/log" &
	PID=$!
	PORT=""
	for _ in $(seq 1 100); do
		PORT=$(grep -o '127\.0\.0\.1:[0-9]*' "$TMPD/log" | head -1 | cut -d: -f2 || true)
		[ -n "$PORT" ] && return 0
		sleep 0.1
	done
	echo "the exporter did not start: $(cat "$TMPD/log")" >&2
	exit 1
}
stop() { kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""; }

run_slowloris() {
	start
	$ATTACK none --port "$PORT" --duration "$DURATION"
	$ATTACK slowloris --port "$PORT" --duration "$DURATION" --warmup 3
	stop
}

run_authflood() {
	local h
	h=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("right", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)))' |
		sed 's/^\$2b\$/$2y$/')
	printf 'basic_auth_users:\n  prometheus: %s\n' "'$h'" >"$TMPD/auth.yml"
	start --web-config "$TMPD/auth.yml"
	$ATTACK none --port "$PORT" --auth prometheus:right --duration "$DURATION"
	$ATTACK authflood --port "$PORT" --auth prometheus:right --duration "$DURATION" --warmup 2
	stop
}

run_second() {
	start
	$ATTACK second --port "$PORT" --duration "$DURATION" --warmup 3 --line-every 2
	stop
}

run_slowread() {
	start
	$ATTACK slowread --port "$PORT" --duration "$DURATION" --warmup 3
	stop
}

# bcrypt USER PASSWORD: a users line with a cost-10 hash
bcrypt_user() {
	printf '  %s: %s\n' "$1" "'$(python3 -W ignore -c 'import crypt, sys
print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)).replace("$2b$", "$2y$", 1))' "$2")'"
}

run_authspray() {
	{
		echo basic_auth_users:
		bcrypt_user prometheus right
		for u in fresh1 fresh2 fresh3; do bcrypt_user "$u" "pw-$u"; done
	} >"$TMPD/spray.yml"
	start --web-config "$TMPD/spray.yml"
	$ATTACK authspray --port "$PORT" --auth prometheus:right --duration "$DURATION" --warmup 2 \
		--pid "$PID" --fresh fresh1:pw-fresh1 --fresh fresh2:pw-fresh2 --fresh fresh3:pw-fresh3
	stop
}

run_reload() {
	local n
	for n in a b; do
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$TMPD/$n.key" \
			-out "$TMPD/$n.crt" -subj "/CN=127.0.0.1" -days 2 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
		printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n' "$TMPD/$n.crt" "$TMPD/$n.key" >"$TMPD/tls-$n.yml"
	done
	cp "$TMPD/tls-a.yml" "$TMPD/tls.yml"
	start --web-config "$TMPD/tls.yml" --processes
	$ATTACK none --tls --port "$PORT" --scrapers 4 --scrape-every 0.01 --duration "$DURATION"
	$ATTACK reload --tls --port "$PORT" --pid "$PID" --web-config "$TMPD/tls.yml" \
		--alt "$TMPD/tls-b.yml" --alt "$TMPD/tls-a.yml" --reload-every 0.3 --scrapers 4 \
		--scrape-every 0.01 --duration "$DURATION" --warmup 0.2
	stop
}

for a in "${@:-slowloris authflood reload second slowread authspray}"; do
	for b in $a; do
		"run_$b"
	done
done
