#!/bin/bash
# Slow and malformed clients cannot starve the scrapers: the per-IP
# connection limit, the idle timeout, the deadlines of every request (a
# second request trickled in, an answer read too slowly), garbage and
# oversized requests.
# Other loopback addresses (127.0.0.2) stand for other clients.
EXPORT_LIB_ONLY=1 . "$TESTS/integration/70-export-basic.sh"

start_exporter "$SCEN/dgx-h100.ini" --max-per-ip 4 --max-connections 32 --http-timeout 2s
HOSTPORT=${BASE#http://}
PORT=${HOSTPORT##*:}

# slowloris: one client holds 4 connections with half-sent requests
cat >"$TMP/slow.py" <<'EOF'
import socket, sys, time
port, n, hold = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
socks = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")   # never finished
    socks.append(s)
open(sys.argv[4], "w").write("open\n")
# report when the server closes them (the idle timeout)
t0 = time.time()
closed = 0
for s in socks:
    s.settimeout(max(0.1, hold - (time.time() - t0)))
    try:
        if s.recv(65536) == b"":
            closed += 1
        else:
            # an error response, then the close
            while s.recv(65536):
                pass
            closed += 1
    except (socket.timeout, ConnectionResetError):
        if isinstance(sys.exc_info()[1], ConnectionResetError):
            closed += 1
print("closed %d after %.1f s" % (closed, time.time() - t0))
EOF
python3 "$TMP/slow.py" "$PORT" 4 8 "$TMP/slow.ready" >"$TMP/slow.out" 2>&1 &
SLOW=$!
EXTRA_PIDS="$SLOW"
for i in $(seq 1 100); do
	[ -e "$TMP/slow.ready" ] && break
	sleep 0.05
done
# the same address is over its limit ...
CHECKS=$((CHECKS + 1))
C=$(curl -s --max-time 3 -o /dev/null -w '%{http_code}' "$BASE/metrics")
[ "$C" != 200 ] || fail "a fifth connection from the slow client's address was served"
# ... other clients are served at once
for ip in 127.0.0.2 127.0.0.3; do
	CHECKS=$((CHECKS + 1))
	C=$(curl -s --max-time 3 --interface "$ip" -o /dev/null -w '%{http_code}' "$BASE/metrics")
	[ "$C" = 200 ] || fail "client $ip got $C while another address was at its limit"
done
# the idle timeout (2 s) frees the slow connections
wait "$SLOW"
EXTRA_PIDS=""
CHECKS=$((CHECKS + 1))
grep -q "closed 4 after" "$TMP/slow.out" || fail "slow connections not closed by the idle timeout: $(cat "$TMP/slow.out")"
CHECKS=$((CHECKS + 1))
T=$(awk '{print $4}' "$TMP/slow.out")
awk -v t="$T" 'BEGIN { exit !(t >= 1 && t < 6) }' || fail "closed after $T s with --http-timeout 2s"
get /metrics
expect_code 200 "after the slow client left"

# without pressure too, a request and an answer each have --http-timeout
# (2 s): a second request trickled in a line at a time after one answer (which
# resets an idle timeout), and 20 pipelined answers read through a 2 KB window
cat >"$TMP/deadline.py" <<'EOF'
import socket, sys, threading, time
port = int(sys.argv[1])
out = {}
def trickle():
    s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.4", 0))
    s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    s.recv(65536)
    t0 = time.monotonic()
    s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
    s.settimeout(0.3)
    for i in range(40):
        try:
            s.sendall(b"X-%d: y\r\n" % i)
            if s.recv(65536) == b"":
                break
        except socket.timeout:
            pass
        except OSError:
            break
    out["trickle"] = time.monotonic() - t0
def slowread():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    s.bind(("127.0.0.5", 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n" * 20)
    t0 = time.monotonic()
    for i in range(80):
        time.sleep(0.1)
        try:
            if s.recv(512) == b"":
                break
        except OSError:
            break
    out["slowread"] = time.monotonic() - t0
ts = [threading.Thread(target=f) for f in (trickle, slowread)]
[t.start() for t in ts]
[t.join() for t in ts]
print("%.1f %.1f" % (out["trickle"], out["slowread"]))
EOF
read -r TRICKLE SLOWREAD < <(python3 "$TMP/deadline.py" "$PORT")
echo "closed after: a trickled second request ${TRICKLE} s, a slow reader ${SLOWREAD} s"
CHECKS=$((CHECKS + 1))
awk -v t="$TRICKLE" 'BEGIN { exit !(t >= 1 && t < 6) }' ||
	fail "a second request trickled in was closed after ${TRICKLE:-?} s with --http-timeout 2s"
CHECKS=$((CHECKS + 1))
awk -v t="$SLOWREAD" 'BEGIN { exit !(t >= 1 && t < 6) }' ||
	fail "a slow reader was closed after ${SLOWREAD:-?} s with --http-timeout 2s"

# malformed requests get an error and leave the server working
cat >"$TMP/bad.py" <<'EOF'
import socket, sys
port = int(sys.argv[1])
def ask(data):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(data)
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
            if b"\r\n\r\n" in out:
                break
    except (socket.timeout, ConnectionResetError):
        pass
    s.close()
    return out.split(b"\r\n")[0].decode("latin-1")
print("garbage:", ask(b"\x00\x01\x02 NOT HTTP\r\n\r\n"))
print("no-host:", ask(b"GET /metrics HTTP/1.1\r\n\r\n"))
print("huge-header:", ask(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200000 + b"\r\n\r\n"))
print("bad-version:", ask(b"GET /metrics HTTP/9.9\r\nHost: x\r\n\r\n"))
print("long-url:", ask(b"GET /" + b"m" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"))
print("ok:", ask(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
EOF
python3 "$TMP/bad.py" "$PORT" >"$TMP/bad.out" 2>&1
cat "$TMP/bad.out"
CHECKS=$((CHECKS + 1))
grep -q '^garbage: HTTP/1.1 400' "$TMP/bad.out" || grep -q '^garbage: $' "$TMP/bad.out" ||
	fail "garbage: $(grep garbage "$TMP/bad.out")"
CHECKS=$((CHECKS + 1))
grep -q '^no-host: HTTP/1.1 400' "$TMP/bad.out" || fail "HTTP/1.1 without Host: $(grep no-host "$TMP/bad.out")"
CHECKS=$((CHECKS + 1))
grep -qE '^huge-header: (HTTP/1.1 4(31|13|00)|$)' "$TMP/bad.out" || fail "huge header: $(grep huge "$TMP/bad.out")"
CHECKS=$((CHECKS + 1))
grep -qE '^bad-version: (HTTP/1.1 505|HTTP/1.1 400|$)' "$TMP/bad.out" || fail "bad version: $(grep bad-version "$TMP/bad.out")"
CHECKS=$((CHECKS + 1))
grep -qE '^long-url: (HTTP/1.1 41[44]|HTTP/1.1 400|$)' "$TMP/bad.out" || fail "long URL: $(grep long-url "$TMP/bad.out")"
CHECKS=$((CHECKS + 1))
grep -q '^ok: HTTP/1.1 200' "$TMP/bad.out" || fail "a good request after the bad ones: $(grep '^ok' "$TMP/bad.out")"

# many scrapers at once: every one answered
CHECKS=$((CHECKS + 1))
PAR=""
for i in $(seq 1 20); do
	curl -s --max-time 5 --interface "127.0.0.$((i % 8 + 2))" -o /dev/null -w '%{http_code}\n' \
		"$BASE/metrics" >>"$TMP/par.out" &
	PAR="$PAR $!"
done
wait $PAR
[ "$(grep -c '^200$' "$TMP/par.out")" = 20 ] || fail "parallel scrapes: $(sort "$TMP/par.out" | uniq -c | tr '\n' ' ')"
get /health
expect_code 200 "still healthy"
stop_exporter TERM
CHECKS=$((CHECKS + 1))
[ "$STOP_RC" = 0 ] || fail "exit $STOP_RC"
finish
