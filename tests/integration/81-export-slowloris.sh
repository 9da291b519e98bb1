#!/bin/bash
# Connection limits under attack: 64 half-open connections from four
# addresses (slowloris, a header line every 2 s), 64 that trickle a second
# request after one answer, and 64 slow readers (a 2 KB receive window, 20
# pipelined /metrics) must not lock out a scraper from a fifth address or
# /health; a client over --max-per-ip gets
# "429 Too Many Requests" and one past --max-connections "503" at once,
# not a silent close or a wait in the backlog.  Also what the request path
# matching accepts.
EXPORT_LIB_ONLY=1 . "$TESTS/integration/70-export-basic.sh"
ATTACK="$SRCDIR/bench/export/attack.py"

# ---- slowloris: the default limits (64 connections, 16 per address) ----
start_exporter "$SCEN/a100-pcie-x8.ini" --interval 200ms
PORT=${BASE##*:}
python3 "$ATTACK" slowloris --port "$PORT" --line-every 2 --warmup 2 --duration 6 \
	--scrape-every 0.05 >"$TMP/slow.json" 2>"$TMP/slow.err"
cat "$TMP/slow.json"
read -r SCRAPES FAILED P99 OPENED < <(python3 -c '
import json, sys; r = json.load(open(sys.argv[1]))
print(r["scrapes"], r["failed"], r["p99_ms"], r["attack"].get("slowloris_opened", 0))' "$TMP/slow.json")
CHECKS=$((CHECKS + 1))
[ "${OPENED:-0}" -ge 64 ] || fail "the attack opened only ${OPENED:-0} connections: $(cat "$TMP/slow.err")"
CHECKS=$((CHECKS + 1))
[ "${SCRAPES:-0}" -ge 20 ] && [ "${FAILED:-1}" = 0 ] ||
	fail "scrapes from a fifth address during slowloris: ${FAILED:-?} of ${SCRAPES:-?} failed"
CHECKS=$((CHECKS + 1))
awk -v p="$P99" 'BEGIN { exit !(p < 500) }' || fail "scrape p99 ${P99} ms during slowloris"
get /health
expect_code 200 "/health after slowloris"
stop_exporter TERM

# attack_ok NAME KEY: the run in $TMP/NAME.json opened 64 connections (attack
# counter KEY) and every scrape from the fifth address was served, p99 < 500 ms
attack_ok() {
	local scrapes failed p99 opened
	cat "$TMP/$1.json"
	read -r scrapes failed p99 opened < <(python3 -c '
import json, sys; r = json.load(open(sys.argv[1]))
print(r["scrapes"], r["failed"], r["p99_ms"], r["attack"].get(sys.argv[2], 0))' "$TMP/$1.json" "$2")
	CHECKS=$((CHECKS + 1))
	[ "${opened:-0}" -ge 64 ] || fail "$1: only ${opened:-0} x $2: $(cat "$TMP/$1.err")"
	CHECKS=$((CHECKS + 1))
	[ "${scrapes:-0}" -ge 20 ] && [ "${failed:-1}" = 0 ] ||
		fail "scrapes from a fifth address during $1: ${failed:-?} of ${scrapes:-?} failed"
	CHECKS=$((CHECKS + 1))
	awk -v p="$p99" 'BEGIN { exit !(p < 500) }' || fail "scrape p99 ${p99} ms during $1"
}

# ---- one answer, then a second request trickled in: evictable like a first ----
start_exporter "$SCEN/a100-pcie-x8.ini" --interval 200ms
PORT=${BASE##*:}
python3 "$ATTACK" second --port "$PORT" --line-every 1 --warmup 2 --duration 4 \
	--scrape-every 0.05 >"$TMP/second.json" 2>"$TMP/second.err"
attack_ok second second_first_answered
stop_exporter TERM

# ---- slow readers: an answer on its way too long is evictable ----
start_exporter "$SCEN/dgx-h100.ini" --interval 200ms
PORT=${BASE##*:}
python3 "$ATTACK" slowread --port "$PORT" --read-every 0.5 --warmup 2 --duration 4 \
	--scrape-every 0.05 >"$TMP/slowread.json" 2>"$TMP/slowread.err"
attack_ok slowread slowread_opened
get /health
expect_code 200 "/health after the slow readers"
stop_exporter TERM

# ---- over --max-per-ip: 429 at once ----
start_exporter "$SCEN/a100-pcie-x8.ini" --max-per-ip 4 --max-connections 8
PORT=${BASE##*:}
cat >"$TMP/limits.py" <<'PY'
import socket, sys, time
port, n, src = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
held = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(src, 0))
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")   # never finished
    held.append(s)
t0 = time.monotonic()
s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(src, 0))
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
try:
    line = s.recv(4096).split(b"\r\n")[0].decode()
except OSError as e:
    line = "error " + str(e)
print("%s|%.3f" % (line, time.monotonic() - t0))
PY
OUT=$(python3 "$TMP/limits.py" "$PORT" 4 127.0.0.2)
echo "over the per-IP limit: $OUT"
CHECKS=$((CHECKS + 1))
case "$OUT" in "HTTP/1.1 429 "*) ;; *) fail "a fifth connection from one address: '$OUT', want 429";; esac
CHECKS=$((CHECKS + 1))
awk -v t="${OUT##*|}" 'BEGIN { exit !(t < 0.5) }' || fail "the 429 took ${OUT##*|} s"
# ---- past --max-connections (all young, none to evict): 503 at once ----
# A fresh exporter: the per-address test's closed connections stay on the
# books until libmicrohttpd sees them end, which on a loaded machine can be
# after the first held connections below arrive and are refused 429.
stop_exporter TERM
start_exporter "$SCEN/a100-pcie-x8.ini" --max-per-ip 4 --max-connections 8
PORT=${BASE##*:}
cat >"$TMP/full.py" <<'PY'
import socket, sys, time
port = int(sys.argv[1])
held = []
for i in range(8):
    src = "127.0.0.%d" % (2 + i % 4)
    s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(src, 0))
    held.append(s)
t0 = time.monotonic()
s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.7", 0))
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
try:
    line = s.recv(4096).split(b"\r\n")[0].decode()
except OSError as e:
    line = "error " + str(e)
print("%s|%.3f" % (line, time.monotonic() - t0))
# once the held ones are old and silent, a newcomer takes the place of the oldest
time.sleep(0.7)
s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.7", 0))
s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
print(s.recv(4096).split(b"\r\n")[0].decode())
PY
python3 "$TMP/full.py" "$PORT" >"$TMP/full.out" 2>&1
cat "$TMP/full.out"
OUT=$(head -1 "$TMP/full.out")
CHECKS=$((CHECKS + 1))
case "$OUT" in "HTTP/1.1 503 "*) ;; *) fail "past --max-connections: '$OUT', want 503";; esac
CHECKS=$((CHECKS + 1))
awk -v t="${OUT##*|}" 'BEGIN { exit !(t < 0.5) }' || fail "the 503 took ${OUT##*|} s"
CHECKS=$((CHECKS + 1))
[ "$(sed -n 2p "$TMP/full.out")" = "HTTP/1.1 200 OK" ] || fail "no room made for a newcomer: $(sed -n 2p "$TMP/full.out")"
# refusals are logged, but not one line each
CHECKS=$((CHECKS + 1))
grep -q "too many" "$EXP_LOG" || fail "refusals not logged: $(cat "$EXP_LOG")"

# ---- the request path: matched byte for byte, the query ignored ----
code() { curl -s --max-time 5 --path-as-is -o /dev/null -w '%{http_code}' "$BASE$1"; }
for p in '/metrics' '/metrics?x' '/metrics?collect%5B%5D=a' '/health' '/health?' '/'; do
	CHECKS=$((CHECKS + 1))
	C=$(code "$p")
	[ "$C" = 200 ] || fail "$p: $C, want 200"
done
for p in '/metrics%00' '/metrics%00.html' '/metrics/' '//metrics' '/%6detrics' '/metrics%3Fx' \
	'/Metrics' '/metrics;x' '/health/../metrics' '/./metrics'; do
	CHECKS=$((CHECKS + 1))
	C=$(code "$p")
	[ "$C" = 404 ] || fail "$p: $C, want 404"
done
stop_exporter TERM
finish
