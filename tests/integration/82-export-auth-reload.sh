#!/bin/bash
# Basic auth under a flood of wrong passwords, TLS reloads under scrapes,
# and the log under bad requests:
#  - 16 connections sending random wrong passwords (bcrypt cost 10) must not
#    slow a scraper with the right password from a fifth address;
#  - wrong passwords from 2,000 addresses must not keep out a right password
#    never checked before, nor, after a SIGHUP, the scraper's cached one;
#  - reloading a TLS certificate while scrapes run cuts none of them;
#  - every log line is whole (logfmt or JSON), and a flood of bad requests
#    adds a bounded number of lines.
EXPORT_LIB_ONLY=1 . "$TESTS/integration/70-export-basic.sh"
ATTACK="$SRCDIR/bench/export/attack.py"

# result FILE: "scrapes failed p99_ms" of an attack.py run
result() {
	python3 -c '
import json, sys; r = json.load(open(sys.argv[1]))
print(r["scrapes"], r["failed"], r["p99_ms"])' "$1"
}

# ---- auth flood ----
H=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("right", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)))' |
	sed 's/^\$2b\$/$2y$/')
CHECKS=$((CHECKS + 1))
case "$H" in '$2y$10$'*) ;; *) fail "cannot make a bcrypt hash: '$H'"; finish;; esac
printf 'basic_auth_users:\n  prometheus: %s\n' "'$H'" >"$TMP/auth.yml"
start_exporter "$SCEN/a100-pcie-x8.ini" --web-config "$TMP/auth.yml" --log-format json
PORT=${BASE##*:}
python3 "$ATTACK" authflood --port "$PORT" --auth prometheus:right --duration 6 --warmup 1 \
	>"$TMP/flood.json" 2>"$TMP/flood.err"
cat "$TMP/flood.json"
read -r SCRAPES FAILED P99 < <(result "$TMP/flood.json")
CHECKS=$((CHECKS + 1))
[ "${SCRAPES:-0}" -ge 20 ] && [ "${FAILED:-1}" = 0 ] ||
	fail "authenticated scrapes during the flood: ${FAILED:-?} of ${SCRAPES:-?} failed $(cat "$TMP/flood.err")"
CHECKS=$((CHECKS + 1))
awk -v p="$P99" 'BEGIN { exit !(p < 250) }' || fail "authenticated scrape p99 ${P99} ms during the flood"
# the flood was refused, and mostly without a bcrypt each: 401s are few, 429s many
CHECKS=$((CHECKS + 1))
python3 -c '
import json, sys; a = json.load(open(sys.argv[1]))["attack"]
n401, n429 = a.get("authflood_401", 0), a.get("authflood_429", 0)
print("flood: %d x 401, %d x 429" % (n401, n429))
sys.exit(0 if n429 > n401 and a.get("authflood_200", 0) == 0 else 1)' "$TMP/flood.json" ||
	fail "the flood was not throttled: $(cat "$TMP/flood.json")"
# every log line is one JSON object
CHECKS=$((CHECKS + 1))
python3 -c '
import json, sys
for n, line in enumerate(open(sys.argv[1]), 1):
    o = json.loads(line)
    assert {"time", "level", "msg"} <= o.keys(), line' "$EXP_LOG" || fail "a log line is not JSON: $(head -5 "$EXP_LOG")"
stop_exporter TERM

# ---- wrong passwords from 2,000 addresses, a SIGHUP at half time ----
bcrypt_line() {
	printf '  %s: %s\n' "$1" "'$(python3 -W ignore -c 'import crypt, sys
print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)).replace("$2b$", "$2y$", 1))' "$2")'"
}
{
	echo basic_auth_users:
	bcrypt_line prometheus right
	for u in fresh1 fresh2 fresh3; do bcrypt_line "$u" "pw-$u"; done
} >"$TMP/spray.yml"
start_exporter "$SCEN/a100-pcie-x8.ini" --web-config "$TMP/spray.yml"
PORT=${BASE##*:}
python3 "$ATTACK" authspray --port "$PORT" --auth prometheus:right --duration 6 --warmup 1 \
	--pid "$EXP_PID" --fresh fresh1:pw-fresh1 --fresh fresh2:pw-fresh2 --fresh fresh3:pw-fresh3 \
	>"$TMP/spray.json" 2>"$TMP/spray.err"
cat "$TMP/spray.json"
read -r SCRAPES FAILED P99 FRESH AFTER AFTER_FAILED < <(python3 -c '
import json, sys; r = json.load(open(sys.argv[1]))
print(r["scrapes"], r["failed"], r["p99_ms"], r["fresh_ok"], r.get("after_reload_scrapes", 0),
      r.get("after_reload_failed", -1))' "$TMP/spray.json")
CHECKS=$((CHECKS + 1))
[ "${FRESH:-0}" = 3 ] || fail "right passwords never checked before, during the flood: ${FRESH:-0} of 3 got 200"
CHECKS=$((CHECKS + 1))
[ "${AFTER:-0}" -ge 10 ] && [ "${AFTER_FAILED:-1}" = 0 ] ||
	fail "cached scrapes after a SIGHUP during the flood: ${AFTER_FAILED:-?} of ${AFTER:-?} failed"
CHECKS=$((CHECKS + 1))
[ "${SCRAPES:-0}" -ge 20 ] && [ "${FAILED:-1}" = 0 ] ||
	fail "authenticated scrapes during the flood: ${FAILED:-?} of ${SCRAPES:-?} failed $(cat "$TMP/spray.err")"
CHECKS=$((CHECKS + 1))
awk -v p="$P99" 'BEGIN { exit !(p < 500) }' || fail "authenticated scrape p99 ${P99} ms during the flood"
CHECKS=$((CHECKS + 1))
grep -q "reloaded" "$EXP_LOG" || fail "no reload logged: $(tail -3 "$EXP_LOG")"
stop_exporter TERM

# ---- TLS certificate reloads while scraping ----
tls_pair "$TMP"
start_exporter "$SCEN/dgx-h100.ini" --web-config "$TMP/tls.yml" --processes
PORT=${BASE##*:}
python3 "$ATTACK" reload --tls --port "$PORT" --pid "$EXP_PID" --web-config "$TMP/tls.yml" \
	--alt "$TMP/tls-b.yml" --alt "$TMP/tls-a.yml" --reload-every 0.3 --scrapers 4 \
	--scrape-every 0.01 --duration 6 --warmup 0.2 >"$TMP/reload.json" 2>"$TMP/reload.err"
cat "$TMP/reload.json"
read -r SCRAPES FAILED P99 < <(result "$TMP/reload.json")
CHECKS=$((CHECKS + 1))
[ "${SCRAPES:-0}" -ge 50 ] || fail "only ${SCRAPES:-0} scrapes during the reloads: $(cat "$TMP/reload.err")"
CHECKS=$((CHECKS + 1))
[ "${FAILED:-1}" = 0 ] || fail "${FAILED} of ${SCRAPES} HTTPS scrapes were cut by reloads"
CHECKS=$((CHECKS + 1))
R=$(grep -c "reloaded" "$EXP_LOG")
[ "$R" -ge 10 ] || fail "only $R reloads: $(tail -3 "$EXP_LOG")"
get /health -k
expect_code 200 "/health after the reloads"
stop_exporter TERM
CHECKS=$((CHECKS + 1))
[ "$STOP_RC" = 0 ] || fail "exit $STOP_RC after the reloads"

# ---- bad requests: logged, but a bounded number of lines, each whole ----
start_exporter "$SCEN/a100-pcie-x8.ini" --log-format logfmt
PORT=${BASE##*:}
python3 - "$PORT" <<'PY'
import socket, sys, threading
port = int(sys.argv[1])
def bad(n):
    for i in range(n):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /metrics HTTP/1.1\r\n\r\n")     # no Host: a 400 and a log line
            s.recv(4096)
            s.close()
        except OSError:
            pass
ts = [threading.Thread(target=bad, args=(250,)) for _ in range(8)]
[t.start() for t in ts]
[t.join() for t in ts]
PY
get /health
expect_code 200 "/health after 2000 bad requests"
LINES=$(wc -l <"$EXP_LOG")
echo "log lines after 2000 bad requests: $LINES"
CHECKS=$((CHECKS + 1))
[ "$LINES" -lt 40 ] || fail "$LINES log lines for 2000 bad requests"
CHECKS=$((CHECKS + 1))
bad_lines=$(grep -cvE '^time=[0-9T:.-]+Z level=(debug|info|warn|error) msg="([^"\\]|\\.)*"$' "$EXP_LOG")
[ "$bad_lines" = 0 ] || fail "log lines not in logfmt: $(grep -vE '^time=' "$EXP_LOG" | head -3)"
stop_exporter TERM
CHECKS=$((CHECKS + 1))
"$GPUSCOPE" export --log-level loud --nvml "$FAKE" 2>"$TMP/lv.err"
[ $? = 2 ] && grep -q "log-level" "$TMP/lv.err" || fail "--log-level loud: $(cat "$TMP/lv.err")"
finish
