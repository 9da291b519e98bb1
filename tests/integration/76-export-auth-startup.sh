#!/bin/bash
# Basic auth holds from the first request: a client that loops on /metrics
# while the exporter starts must never get a 200 without credentials.
# The web config used to be attached after the HTTP workers had started,
# and a request in that window skipped authentication.
EXPORT_LIB_ONLY=1 . "$TESTS/integration/70-export-basic.sh"

H=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("pw", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=16)))' |
	sed 's/^\$2b\$/$2y$/')
CHECKS=$((CHECKS + 1))
case "$H" in '$2'*) ;; *) fail "cannot make a bcrypt hash"; finish;; esac
printf 'basic_auth_users:\n  u: %s\n' "'$H'" >"$TMP/web.yml"

# the hammer: from before the port opens, connects as fast as it can and
# sends a request on each connection at once, so that the first requests
# wait in the listen backlog for the first HTTP worker; then counts the 200s
cat >"$TMP/hammer.py" <<'PY'
import socket, sys, time
port, secs = int(sys.argv[1]), float(sys.argv[2])
end = time.time() + secs
socks = []
while time.time() < end and len(socks) < 400:
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        socks.append(s)
    except OSError:
        time.sleep(0.0005)
ok = seen = 0
for s in socks:
    try:
        line = s.recv(64).split(b"\r\n", 1)[0]
        if line:
            seen += 1
        if line.startswith(b"HTTP/1.1 200"):
            ok += 1
    except OSError:
        pass
    s.close()
print(ok, seen)
PY

# ten starts, five at a time: each its own port, hammer and exporter (the
# starts only compete for the CPU, which widens the window if anything)
LEAKS=0
ANSWERED=0
for batch in 1 6; do
	pids=()
	for round in $(seq "$batch" $((batch + 4))); do
		PORT=$(free_port)
		python3 "$TMP/hammer.py" "$PORT" 8 >"$TMP/hammer.$round.out" &
		HPID[round]=$!
		FAKE_NVML_SCENARIO="$SCEN/a100-pcie-x8.ini" "$GPUSCOPE" export --nvml "$FAKE" \
			--listen "127.0.0.1:$PORT" --kmsg none --http-threads 64 --web-config "$TMP/web.yml" \
			2>"$TMP/exp.$round.log" &
		pids+=($!)
	done
	EXTRA_PIDS="${pids[*]}"
	for round in $(seq "$batch" $((batch + 4))); do
		wait "${HPID[round]}"
	done
	kill -TERM "${pids[@]}" 2>/dev/null
	for pid in "${pids[@]}"; do
		EXP_PID=$pid
		stop_exporter 0   # signalled above: waits for the exit
	done
	EXTRA_PIDS=""
	for round in $(seq "$batch" $((batch + 4))); do
		read -r ok seen <"$TMP/hammer.$round.out"; echo "round $round: $ok of $seen" >&2
		LEAKS=$((LEAKS + ok))
		ANSWERED=$((ANSWERED + seen))
	done
done
CHECKS=$((CHECKS + 1))
[ "$ANSWERED" -gt 0 ] || fail "no request was answered in 10 starts"
CHECKS=$((CHECKS + 1))
[ "$LEAKS" = 0 ] || fail "$LEAKS of $ANSWERED requests got 200 without credentials during start-up"
finish
