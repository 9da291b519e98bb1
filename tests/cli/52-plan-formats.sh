#!/bin/bash
# plan: --json and --csv carry every field of every listed choice under the
# names docs/plan.md documents; --all lists everything searched; --report
# writes a self-contained page.
. "$TESTS/cli/lib.sh"

expect_rc 0 plan --json
expect_json
printf '%s' "$OUT" >"$TMP/plan.json"
python3 - "$TMP/plan.json" "$SRCDIR/docs/plan.md" <<'PY' || fail "JSON fields"
import json, re, sys
d = json.load(open(sys.argv[1]))
doc = open(sys.argv[2]).read()
for k in ("workload", "request", "search", "ranked", "front", "nearest_miss", "closest_fit", "explanation"):
    assert k in d, k
assert d["workload"]["name"] == "llama2-7b" and d["workload"]["task"] == "finetune"
assert d["workload"]["train_tokens"] == 1e9 and d["workload"]["global_batch"] == 128
s = d["search"]
assert s["configurations"] >= s["memory_calls"] > 0 and s["estimate_calls"] > 0
r = d["ranked"]
assert len(r) == 10 and [c["rank"] for c in r] == list(range(1, 11))
# every field of a choice is documented in docs/plan.md
for k in r[0]:
    assert re.search(r"`%s`" % re.escape(k), doc), "field %s is not in docs/plan.md" % k
c = r[0]
assert c["gpus"] == c["nodes"] * c["gpus_per_node"] == c["tp"] * c["pp"] * c["dp"]
assert c["memory_total_bytes"] <= c["memory_capacity_bytes"]
assert 0 < c["mfu"] < 1
parts = sum(c[k] for k in ("weights_bytes", "gradients_bytes", "optimizer_bytes", "activations_bytes",
                           "logits_bytes", "lora_bytes", "kv_cache_bytes", "buffers_bytes",
                           "reserve_bytes", "context_bytes"))
assert abs(parts - c["memory_total_bytes"]) < 1e-6 * parts, (parts, c["memory_total_bytes"])
f = d["front"]
assert len(f) >= 2
for a, b in zip(f, f[1:]):
    assert a["time_to_finish_s"] <= b["time_to_finish_s"] and a["cost_usd"] > b["cost_usd"]
assert all(x["on_front"] for x in f)
e = d["explanation"]
assert e["architecture"] and e["alternatives"] and "optimisations" in e
assert abs(e["compute_share"] + e["comm_share"] + e["bubble_share"] + e["data_share"] + e["other_share"] - 1) < 1e-9
PY

expect_rc 0 plan --csv
printf '%s\n' "$OUT" >"$TMP/plan.csv"
python3 - "$TMP/plan.csv" "$TMP/plan.json" <<'PY' || fail "CSV"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))
head = rows[0]
# the CSV is flat: every JSON field but the nested bill of materials (its total is capex_usd)
assert head == [k for k in d["ranked"][0].keys() if k != "bom"], "CSV columns differ from the JSON fields"
assert len(rows) == 11, len(rows)
assert all(len(r) == len(head) for r in rows)
i = head.index("cost_usd")
assert abs(float(rows[1][i]) - d["ranked"][0]["cost_usd"]) <= 1e-8 * d["ranked"][0]["cost_usd"]
PY
expect_rc 0 plan --csv --all
n=$(printf '%s\n' "$OUT" | wc -l)
CHECKS=$((CHECKS + 1))
[ "$n" -gt 200 ] || fail "--csv --all has $n lines"
expect_rc 0 plan --json --all --top 3
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert len(d["ranked"]) == 3 and len(d["all"]) > 200
assert sum(1 for c in d["all"] if c["rank"]) == 3
' || fail "--json --all"

# the report: one file, charts with the data, nothing loaded from elsewhere
expect_rc 0 plan --report "$TMP/plan.html"
expect_out "Why #1"
CHECKS=$((CHECKS + 1))
python3 - "$TMP/plan.html" <<'PY' || fail "report"
import re, sys
h = open(sys.argv[1]).read()
for i in ("pareto", "memory", "steptime"):
    assert 'id="%s"' % i in h, i
assert "<script" not in h.lower()
assert not re.search(r'(src|href)="(https?:)?//', h)
assert len(re.findall(r'class="point front"', h)) >= 2
PY
expect_rc 3 plan --report /nonexistent/dir/plan.html
expect_err "plan.html"
finish
