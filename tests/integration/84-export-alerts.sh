#!/bin/bash
# The alert rules end to end: one gpuscope export per fault scenario of the
# fake NVML, all at once, and one real Prometheus (Debian's package) that
# scrapes them every second and evaluates deploy/prometheus/alerts.yml every
# second.  Each scenario must raise exactly its alerts, on the right GPU, and
# the healthy DGX none, pending included.
#
# The rules' windows assume a 15 s scrape; at 1 s the test runs a copy whose
# durations (range selectors, offsets, for:) are divided by 15, so that each
# window holds as many samples as in production (a 5-minute window of 20
# samples becomes 20 s of 20 samples) and a for: of 5 minutes is 20 s.
# ALERTS_RULES=FILE tests another rules file the same way (the rules of an
# older version, say).
# ctest: beside other tests (it checks which alerts fire; its waits are minutes of rule time, not latency bounds)
EXPORT_LIB_ONLY=1 . "$TESTS/integration/70-export-basic.sh"

for tool in prometheus python3; do
	if ! command -v "$tool" >/dev/null; then
		echo "FAIL: $tool is not installed (Debian package $tool, in debian-packages.txt)" >&2
		exit 1
	fi
done
RULES=${ALERTS_RULES:-$SRCDIR/deploy/prometheus/alerts.yml}
T_START=$(date +%s.%N)

# ---- the rules, their durations divided by 15 ----
CHECKS=$((CHECKS + 1))
python3 - "$RULES" >"$TMP/alerts-fast.yml" 2>"$TMP/scale.err" <<'EOF' || fail "scaling the rules: $(cat "$TMP/scale.err")"
import re, sys
UNIT = {"s": 1, "m": 60, "h": 3600}
def scaled(m):
    secs = sum(int(n) * UNIT[u] for n, u in re.findall(r"(\d+)([smh])", m.group(2)))
    assert secs % 15 == 0, m.group(0)
    return "%s%ds%s" % (m.group(1), secs // 15, m.group(3))
text = open(sys.argv[1]).read()
dur = r"((?:\d+[smh])+)"
n = 0
for pat in (r"(\[)" + dur + r"(\])", r"(offset )" + dur + r"()", r"(\bfor: )" + dur + r"()"):
    text, k = re.subn(pat, scaled, text)
    n += k
assert n >= 10, n
sys.stdout.write(text)
EOF

# ---- Prometheus, then one exporter per scenario ----
# Prometheus starts first (with no target) and is told the targets by a
# reload once the exporters listen, so that it sees every scenario from its
# exporter's first collections: the NVLink burst comes 10 collections in.
PROM_PORT=$(free_port)
PROM="http://127.0.0.1:$PROM_PORT"
mkdir -p "$TMP/prom-data"
# prom_config TARGETS: the configuration with those static_configs entries
prom_config() {
	cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $TMP/alerts-fast.yml
scrape_configs:
  - job_name: gpuscope
    static_configs: ${1:-[]}
EOF
}
prom_config ""
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/prom-data" \
	--web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn >"$TMP/prometheus.log" 2>&1 &
PROM_PID=$!
EXTRA_PIDS="$PROM_PID"

SCENARIOS="dgx-h100 a100-dbe-remap h100-xid79 gpu-lost a100-remap-failed v100-retired-pending
h100-nvlink-burst l40s-thermal a100-hung"
for s in $SCENARIOS; do
	args="--interval 1s"
	[ "$s" = a100-hung ] && args="$args --collect-timeout 1s"
	# shellcheck disable=SC2086 # the arguments are words
	FAKE_NVML_SCENARIO="$SCEN/$s.ini" "$GPUSCOPE" export --nvml "$FAKE" --listen 127.0.0.1:0 \
		--kmsg none $args 2>"$TMP/exporter.$s.log" &
	EXTRA_PIDS="$EXTRA_PIDS $!"
done

READY=""
for i in $(seq 1 120); do
	if curl -s --max-time 1 "$PROM/-/ready" 2>/dev/null | grep -q Ready; then
		READY=1
		break
	fi
	sleep 0.25
done
CHECKS=$((CHECKS + 1))
[ -n "$READY" ] || { fail "prometheus did not start: $(tail -20 "$TMP/prometheus.log")"; finish; }

TARGETS=""
for s in $SCENARIOS; do
	BASE=""
	for i in $(seq 1 400); do
		BASE=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$TMP/exporter.$s.log" | head -1)
		[ -n "$BASE" ] && break
		sleep 0.05
	done
	CHECKS=$((CHECKS + 1))
	[ -n "$BASE" ] || { fail "the $s exporter did not start: $(cat "$TMP/exporter.$s.log")"; finish; }
	TARGETS="$TARGETS
      - targets: ['${BASE#http://}']
        labels: {scenario: $s}"
done
prom_config "$TARGETS"
kill -HUP "$PROM_PID"
T_READY=$(date +%s.%N)

# What must fire: "scenario alert gpu[/xid]", one a line.  The one-word
# checks of a GPU alert name its GPU; the exporter's own alerts name none.
cat >"$TMP/expected" <<'EOF'
a100-dbe-remap GPUDoubleBitECCError 0
a100-dbe-remap GPURowRemapPending 0
a100-dbe-remap GPUXidCritical 0/48
a100-dbe-remap GPUXid 0/63
h100-xid79 GPUXidCritical 1/79
h100-xid79 GPULost 1
gpu-lost GPULost 1
a100-remap-failed GPURowRemapFailed 0
v100-retired-pending GPURetiredPagesPending 0
h100-nvlink-burst GPUNVLinkErrors 1
l40s-thermal GPUThermalThrottling 0
a100-hung GPULost 1
a100-hung GPUExporterStalledCalls -
EOF

# Polls /api/v1/alerts until every expected alert fires (at most SECONDS),
# then reads it once more; prints "fired: ..." with the seconds from the
# first poll each one took, then a line per difference: an expected alert
# that did not fire, one that fired unexpectedly, one pending on the healthy
# scenario.  alerts.py PROM SECONDS EXPECTED
cat >"$TMP/alerts.py" <<'PY'
import json, sys, time, urllib.request
prom, secs, expected = sys.argv[1], float(sys.argv[2]), sys.argv[3]
want = {tuple(l.split()) for l in open(expected) if l.strip()}
# a rule that aggregates the target labels away still names the instance
targets = json.load(urllib.request.urlopen(prom + "/api/v1/targets", timeout=5))["data"]["activeTargets"]
scenario = {t["labels"]["instance"]: t["labels"]["scenario"] for t in targets}
def key(a):
    l = a["labels"]
    g = l.get("gpu", "-") + ("/" + l["xid"] if "xid" in l else "")
    return (l.get("scenario", scenario.get(l.get("instance"), "?")), l["alertname"], g)
def poll():
    try:
        r = json.load(urllib.request.urlopen(prom + "/api/v1/alerts", timeout=5))
        return r["data"]["alerts"]
    except Exception:
        return []
t0 = time.time()
first = {}
while True:
    alerts = poll()
    now = time.time() - t0
    for a in alerts:
        if a["state"] == "firing":
            first.setdefault(key(a), now)
    if want <= set(first) or now > secs:
        break
    time.sleep(0.5)
time.sleep(2)   # a rule that fires late on the wrong scenario shows up here
alerts = poll()
firing = {key(a) for a in alerts if a["state"] == "firing"} | set(first)
print("fired: " + ", ".join("%s %s %s %.0fs" % (k + (first[k],)) for k in sorted(first)))
for k in sorted(want - firing):
    print("did not fire: %s %s %s" % k)
for k in sorted(firing - want):
    print("fired unexpectedly: %s %s %s" % k)
for a in alerts:
    if a["state"] == "pending" and a["labels"].get("scenario") == "dgx-h100":
        print("pending on the healthy scenario: %s %s %s" % key(a))
PY

# every target up, every rule healthy: a rule that cannot evaluate fires nothing
CHECKS=$((CHECKS + 1))
python3 - "$PROM" 9 >"$TMP/health.err" 2>&1 <<'PY' || fail "targets or rules: $(cat "$TMP/health.err")"
import json, sys, time, urllib.request
prom, n = sys.argv[1], int(sys.argv[2])
get = lambda p: json.load(urllib.request.urlopen(prom + p, timeout=5))["data"]
end = time.time() + 15
while True:
    t = get("/api/v1/targets")["activeTargets"]
    r = [r for g in get("/api/v1/rules")["groups"] for r in g["rules"]]
    up = [x for x in t if x["health"] == "up"]
    ok = [x for x in r if x.get("health") == "ok"]
    if len(up) == n and r and len(ok) == len(r) or time.time() > end:
        break
    time.sleep(0.5)
assert len(up) == n, [(x["labels"].get("scenario"), x["health"], x["lastError"]) for x in t]
assert r and len(ok) == len(r), [(x["name"], x.get("lastError")) for x in r if x.get("health") != "ok"]
PY

# 60 s: the slowest is the NVLink burst, some 25 s after the exporters
# start, then a 20 s for:; it returns as soon as every expected alert fires
python3 "$TMP/alerts.py" "$PROM" 60 "$TMP/expected" >"$TMP/alerts.out" 2>&1 || echo "alerts.py failed" >>"$TMP/alerts.out"
CHECKS=$((CHECKS + 1))
grep -q '^fired: ' "$TMP/alerts.out" || fail "no result: $(cat "$TMP/alerts.out")"
echo "$(grep '^fired: ' "$TMP/alerts.out")"
while IFS= read -r line; do
	CHECKS=$((CHECKS + 1))
	fail "$line"
done < <(grep -v '^fired: ' "$TMP/alerts.out")

kill -TERM $EXTRA_PIDS 2>/dev/null
wait $EXTRA_PIDS 2>/dev/null
EXTRA_PIDS=""
echo "wall $(awk -v a="$T_START" -v r="$T_READY" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f s, %.1f of them to start the exporters and Prometheus", b - a, r - a }')"
finish
