#!/bin/bash
# A real Prometheus (Debian's package) scrapes gpuscope export for a few
# seconds: the target is up, the series are there with the right values,
# the OpenMetrics metadata arrived, every query of the Grafana dashboard and
# every alert rule evaluates.  Also promtool on the deploy/ rules.
# ctest: beside other tests (it checks values, not how long anything took)
EXPORT_LIB_ONLY=1 . "$TESTS/integration/70-export-basic.sh"

DEPLOY="$SRCDIR/deploy"
for tool in prometheus promtool; do
	if ! command -v "$tool" >/dev/null; then
		echo "FAIL: $tool is not installed (Debian package prometheus, in debian-packages.txt)" >&2
		exit 1
	fi
done

# ---- the deploy/ files ----
CHECKS=$((CHECKS + 1))
promtool check rules "$DEPLOY/prometheus/alerts.yml" >"$TMP/rules.log" 2>&1 ||
	fail "promtool check rules: $(cat "$TMP/rules.log")"
CHECKS=$((CHECKS + 1))
(cd "$DEPLOY/prometheus" && promtool test rules alerts_test.yml) >"$TMP/rules-test.log" 2>&1 ||
	fail "promtool test rules: $(tail -30 "$TMP/rules-test.log")"
CHECKS=$((CHECKS + 1))
promtool check config "$DEPLOY/prometheus/scrape.yml" >"$TMP/config.log" 2>&1 ||
	fail "promtool check config scrape.yml: $(cat "$TMP/config.log")"
CHECKS=$((CHECKS + 1))
python3 - "$DEPLOY/grafana/gpuscope-dashboard.json" >"$TMP/exprs" 2>"$TMP/dash.err" <<'EOF' || fail "dashboard: $(cat "$TMP/dash.err")"
import json, sys
d = json.load(open(sys.argv[1]))
n = 0
for p in d["panels"]:
    for t in p.get("targets", []):
        e = t["expr"].replace("$instance", ".*").replace("$gpu", ".*").replace("$__rate_interval", "1m")
        print(e)
        n += 1
assert n >= 20, n
EOF
# the "XIDs, last 24 h" panel counts exactly: 9 XIDs on 5 GPUs in the 24 h
# before 26 h, first occurrences (series new in the window), a counter reset
# by an exporter restart without the kernel log and a restart that re-read
# the same total included; old flat totals count nothing
CHECKS=$((CHECKS + 1))
python3 - "$DEPLOY/grafana/gpuscope-dashboard.json" >"$TMP/xid-panel.yml" 2>"$TMP/xid-panel.err" <<'EOF' ||
import json, sys
d = json.load(open(sys.argv[1]))
[e] = [t["expr"] for p in d["panels"] if p["title"] == "XIDs, last 24 h" for t in p["targets"]]
e = e.replace("$instance", ".*").replace("$gpu", ".*")
series = [
    ("0", "79", "_x1500 1x60"),             # first XID 79 at 25 h: 1
    ("0", "13", "_x1550 1x10"),             # first XID 13 at 25 h 50 min: 1
    ("1", "48", "_x200 2x1360"),            # two first XID 48 at 3 h 20 min: 2
    ("2", "31", "1x179 3x1380"),            # an old total grows by 2 at 3 h: 2
    ("2", "13", "5x700 stale _x5 5x853"),   # exporter restart, same total: 0
    ("2", "43", "1x1560"),                  # old and flat: 0
    ("3", "94", "_x1000 1x100 2x460"),      # first XID 94 and a repeat: 2
    ("4", "119", "4x599 stale _x10 1x950"), # restart from nothing, then one: 1
]
print("rule_files: []\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n    input_series:")
for gpu, xid, values in series:
    print("      - series: 'gpu_xid_errors_total{instance=\"n1:9400\",gpu=\"%s\",xid=\"%s\"}'" % (gpu, xid))
    print("        values: '%s'" % values)
print("    promql_expr_test:")
# at 1 h every series present is new: its whole total counts
for t, want in (("26h", 9), ("1h", 1 + 5 + 1 + 4)):
    print("      - expr: %s\n        eval_time: %s\n        exp_samples:\n          - value: %d" % (json.dumps(e), t, want))
EOF
	fail "xid panel test: $(cat "$TMP/xid-panel.err")"
promtool test rules "$TMP/xid-panel.yml" >"$TMP/xid-panel.log" 2>&1 ||
	fail "the XIDs, last 24 h panel: $(tail -20 "$TMP/xid-panel.log")"

# ---- the exporter and a Prometheus scraping it ----
start_exporter "$SCEN/dgx-h100.ini" --interval 500ms
EXP_PORT=${BASE##*:}
PROM_PORT=$(free_port)
PROM="http://127.0.0.1:$PROM_PORT"
mkdir -p "$TMP/prom-data"
cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $DEPLOY/prometheus/alerts.yml
scrape_configs:
  - job_name: gpuscope
    static_configs:
      - targets: ['127.0.0.1:$EXP_PORT']
EOF
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/prom-data" \
	--web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn >"$TMP/prometheus.log" 2>&1 &
EXTRA_PIDS="$!"

# One Python process runs a list of queries (a process per query took most
# of this test's time).  On stdin, one query a line: "EXPR<TAB>WANT" polls
# EXPR until it gives WANT (at most SECONDS each); "EXPR<TAB>" needs it to
# evaluate; "EXPR<TAB>!empty" needs a result.  A result reads "ok N V" (the
# result count and the first value) or "error MSG".  Prints one line per
# query that did not do so; queries.py PROM SECONDS.
cat >"$TMP/queries.py" <<'PY'
import json, sys, time, urllib.error, urllib.parse, urllib.request
prom, secs = sys.argv[1], float(sys.argv[2])
def pq(expr):
    url = prom + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    try:
        try:
            body = urllib.request.urlopen(url, timeout=5).read()
        except urllib.error.HTTPError as e:
            body = e.read()   # a bad query: 400 and the error in the JSON
        r = json.loads(body)
    except Exception as e:
        return "error bad response: %s" % e
    if r.get("status") != "success":
        return "error %s" % r.get("error")
    res = r["data"]["result"]
    v = res[0]["value"][1] if res and isinstance(res, list) and "value" in res[0] else (res[1] if r["data"]["resultType"] == "scalar" else "-")
    return "ok %d %s" % (len(res) if isinstance(res, list) else 1, v)
for line in sys.stdin:
    expr, want = line.rstrip("\n").split("\t")
    got = pq(expr)
    if want == "!empty":
        if got.startswith("ok 0 ") or got.startswith("error"):
            print("query '%s' shows nothing: %s" % (expr, got))
    elif not want:
        if not got.startswith("ok"):
            print("query '%s': %s" % (expr, got))
    else:
        end = time.time() + secs
        while got != want and time.time() < end:
            time.sleep(0.25)
            got = pq(expr)
        if got != want:
            print("query '%s' gave '%s', want '%s'" % (expr, got, want))
PY

# queries SECONDS: runs the queries on stdin (above); each one is a check.
# Not in a pipeline: it counts the checks and failures of this shell.
queries() {
	local q="$TMP/queries.$RANDOM" line
	cat >"$q"
	CHECKS=$((CHECKS + $(wc -l <"$q")))
	python3 "$TMP/queries.py" "$PROM" "$1" <"$q" >"$q.out" 2>&1 || echo "queries.py failed" >>"$q.out"
	while IFS= read -r line; do
		fail "$line; prometheus log: $(tail -5 "$TMP/prometheus.log")"
	done <"$q.out"
}

CHECKS=$((CHECKS + 1))
READY=""
for i in $(seq 1 120); do
	if curl -s --max-time 1 "$PROM/-/ready" 2>/dev/null | grep -q Ready; then
		READY=1
		break
	fi
	sleep 0.25
done
[ -n "$READY" ] || { fail "prometheus did not start: $(tail -20 "$TMP/prometheus.log")"; finish; }

# the target is up, a few scrapes in ("bool" turns the count into 1 once it
# reaches 3, so a poll that misses the moment the count is exactly 3 still
# matches), and the series have their values
queries 20 <<'EOF'
up{job="gpuscope"}	ok 1 1
count_over_time(up{job="gpuscope"}[1m]) >= bool 3	ok 1 1
count(DCGM_FI_DEV_GPU_UTIL)	ok 1 8
DCGM_FI_DEV_GPU_UTIL{gpu="3",modelName="NVIDIA H100 80GB HBM3",DCGM_FI_DRIVER_VERSION="550.54.15"}	ok 1 97
DCGM_FI_DEV_FB_USED{gpu="0"}	ok 1 63488
count(gpu_up == 1)	ok 1 8
gpu_utilization_ratio{gpu="3"}	ok 1 0.97
count(gpu_info{cuda_version="12.4"})	ok 1 8
count(gpu_nvlink_errors_total)	ok 1 720
gpu_energy_joules_total{gpu="0"}	ok 1 8123456.789
count(gpuscope_exporter_sample_age_seconds < 1.5)	ok 1 1
count(scrape_samples_scraped{job="gpuscope"} > 2000)	ok 1 1
EOF

# the target's last scrape had no error
CHECKS=$((CHECKS + 1))
curl -s --max-time 5 "$PROM/api/v1/targets" | python3 -c '
import json, sys
t = json.load(sys.stdin)["data"]["activeTargets"]
assert len(t) == 1, t
assert t[0]["health"] == "up", t[0]
assert t[0]["lastError"] == "", t[0]["lastError"]' 2>"$TMP/targets.err" || fail "target: $(cat "$TMP/targets.err")"

# Prometheus negotiated OpenMetrics: only that format carries # UNIT
CHECKS=$((CHECKS + 1))
curl -s --max-time 5 -G "$PROM/api/v1/metadata" --data-urlencode "metric=gpu_energy_joules_total" \
	-o "$TMP/meta.json"
curl -s --max-time 5 -G "$PROM/api/v1/targets/metadata" --data-urlencode 'metric=gpu_power_watts' \
	-o "$TMP/tmeta.json"
python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["data"]
assert m and m[0]["unit"] == "watts" and m[0]["type"] == "gauge", m' "$TMP/tmeta.json" 2>"$TMP/meta.err" ||
	fail "no OpenMetrics unit in the target metadata: $(cat "$TMP/meta.err")"

# every dashboard query evaluates (that its names exist is checked by
# unit/test_export_families against the family table), and the panels that
# should show data on a healthy DGX do
{
	sed 's/$/\t/' "$TMP/exprs"
	printf '%s\t!empty\n' 'max by (instance, gpu) (gpu_utilization_ratio{instance=~".*",gpu=~".*"})' \
		'sum(gpu_power_watts{instance=~".*",gpu=~".*"})'
} >"$TMP/dashboard.queries"
queries 0 <"$TMP/dashboard.queries"

# the alert rules are loaded and evaluate without errors against the real series
CHECKS=$((CHECKS + 1))
sleep 1.5
curl -s --max-time 5 "$PROM/api/v1/rules" | python3 -c '
import json, sys
groups = json.load(sys.stdin)["data"]["groups"]
rules = [r for g in groups for r in g["rules"]]
assert len(rules) == 13, len(rules)
bad = [(r["name"], r.get("lastError")) for r in rules if r.get("health") != "ok"]
assert not bad, bad
firing = [r["name"] for r in rules if r.get("state") == "firing"]
assert not firing, firing' 2>"$TMP/rules.err" || fail "alert rules: $(cat "$TMP/rules.err")"

kill -TERM "$EXTRA_PIDS" 2>/dev/null
wait "$EXTRA_PIDS" 2>/dev/null
EXTRA_PIDS=""
stop_exporter TERM
CHECKS=$((CHECKS + 1))
[ "$STOP_RC" = 0 ] || fail "exporter exit $STOP_RC"
finish
