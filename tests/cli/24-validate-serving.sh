#!/bin/bash
# validate simulates the serving cases that give arrivals: a case's
# prediction is what estimate --arrivals gives for the same run, the fitted
# pages are in sample and the held-aside page out of it, a trial engine table
# (--engines) changes the prediction, and bad arrival columns are skip reasons.
. "$TESTS/cli/lib.sh"

C="$SRCDIR/data/cases/serving.csv"
expect_rc 0 validate "$C" --json
printf '%s' "$OUT" >"$TMP/v.json"
python3 - "$TMP/v.json" <<'PY' || fail "serving cases"
import json, sys
d = json.load(open(sys.argv[1]))
c = {x["id"]: x for x in d["cases"]}
assert c["SV-001"]["metric"] == "tokens_per_s" and 1000 < c["SV-001"]["predicted"] < 20000, c["SV-001"]
# a burst: the median TTFT is seconds, far past one prefill
assert c["SV-002"]["predicted"] > 1000, c["SV-002"]
s = d["summary"]["sources"]
assert s["GPUStack performance lab: Qwen3-14B on H100"]["in_sample"] is True, s
assert s["GPUStack performance lab: Qwen3-32B on H100"]["in_sample"] is False, s
assert d["summary"]["samples"]["out"]["predicted"] >= 15, d["summary"]["samples"]
PY

# a slower front end in a table of one's own: the short-prompt run (SV-022) loses throughput
sed 's/^vllm,0.11,\([^,]*\),\([^,]*\),[^,]*,/vllm,0.11,\1,\2,0.05,/' "$SRCDIR/data/serve/engines.csv" >"$TMP/slow.csv"
expect_rc 0 validate "$C" --engines "$TMP/slow.csv" --json
printf '%s' "$OUT" >"$TMP/slow.json"
python3 - "$TMP/v.json" "$TMP/slow.json" <<'PY' || fail "--engines"
import json, sys
a, b = ({x["id"]: x for x in json.load(open(p))["cases"]} for p in sys.argv[1:3])
# 1000 requests behind 50 ms each take 50 s: 4000 tokens in at least 50 s
assert b["SV-022"]["predicted"] < 4000 / 50 + 1 < a["SV-022"]["predicted"], (a["SV-022"], b["SV-022"])
assert b["SV-004"]["predicted"] == a["SV-004"]["predicted"]  # SGLang rows untouched
PY
expect_rc 2 validate "$C" --engines "$TMP/none.csv"
expect_err "none.csv"
# a table written before frontend_s (the column found by its name, absent: no front-end latency)
# still reads; a table without a column the simulator needs says which
python3 - "$SRCDIR/data/serve/engines.csv" "$TMP/old.csv" "$TMP/nomax.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
for out, drop in ((sys.argv[2], "frontend_s"), (sys.argv[3], "max_seqs")):
    k = rows[0].index(drop)
    csv.writer(open(out, "w", newline="")).writerows([r[:k] + r[k + 1:] for r in rows])
PY
expect_rc 0 validate "$C" --engines "$TMP/old.csv" --json
printf '%s' "$OUT" >"$TMP/old.json"
python3 - "$TMP/v.json" "$TMP/old.json" <<'PY' || fail "an engine table without frontend_s"
import json, sys
a, b = ({x["id"]: x for x in json.load(open(p))["cases"]} for p in sys.argv[1:3])
# SV-002 is a burst's median TTFT: without the front end's latency it can only be shorter
assert b["SV-002"]["predicted"] < a["SV-002"]["predicted"], (a["SV-002"], b["SV-002"])
PY
expect_rc 2 validate "$C" --engines "$TMP/nomax.csv"
expect_err "the header has no column 'max_seqs'"

# bad arrival columns are the case's reason, not a silent default
cat >"$TMP/bad.csv" <<'CSV'
id,model,task,gpu,gpus,engine,batching,arrivals,requests,statistic,prompt_len,output_len,metric,value
B-1,llama3-8b,infer,h100-sxm5-80gb,1,vllm,continuous,poisson:5,,,128,128,tokens_per_s,100
B-2,llama3-8b,infer,h100-sxm5-80gb,1,vllm,continuous,burst:10,,p42,128,128,first_token_ms,100
B-3,llama3-8b,infer,h100-sxm5-80gb,1,vllm,continuous,later:10,,,128,128,tokens_per_s,100
B-4,llama3-8b,infer,h100-sxm5-80gb,1,vllm,continuous,burst:10,,p99,128,128,first_token_ms,100
B-5,llama3-8b,infer,h100-sxm5-80gb,1,vllm,continuous,burst:300,,,512,256,tokens_per_s,100
CSV
expect_rc 0 estimate --model llama3-8b --task infer --gpu h100-sxm5-80gb --gpus 1 --prompt-len 512 \
	--output-len 256 --engine vllm --arrivals burst:300 --json
est=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["simulation"]["tokens_per_s"])')
expect_rc 0 validate "$TMP/bad.csv" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
c = {x["id"]: x for x in json.load(sys.stdin)["cases"]}
assert "needs the requests column" in c["B-1"]["reason"], c["B-1"]
assert "statistic" in c["B-2"]["reason"], c["B-2"]
assert "not poisson:RATE" in c["B-3"]["reason"], c["B-3"]
assert c["B-4"]["predicted"] > 0, c["B-4"]
assert abs(c["B-5"]["predicted"] - '"$est"') <= 1e-6 * c["B-5"]["predicted"], (c["B-5"], '"$est"')
' || fail "arrival columns"
finish
