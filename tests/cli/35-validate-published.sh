#!/bin/bash
# validate: the published cases beyond the calibration set stay covered and
# close, class by class, fit and holdout apart; no case off by 3x or more.
. "$TESTS/cli/lib.sh"

expect_rc 0 validate "$SRCDIR/data/cases/published.csv" --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = d["summary"]
assert s["coverage"] == 1.0, s["coverage"]
assert s["cases"] >= 95, s["cases"]
assert s["median_abs_error"] < 0.10, s["median_abs_error"]
for c in d["cases"]:
    r = c["predicted"] / c["measured"]
    assert 1 / 3 < r < 3, (c["id"], r)
cl = s["classes"]
for k in ("serving", "eager", "memory-bound", "non-nvidia-train"):
    assert k in cl and "fit" in cl[k] and "holdout" in cl[k], k
    assert cl[k]["fit"]["median_abs_error"] < 0.20, (k, cl[k]["fit"])
for k in ("serving", "eager", "memory-bound"):
    assert cl[k]["holdout"]["median_abs_error"] < 0.20, (k, cl[k]["holdout"])
# eager ResNet-50 at batch 1 is bound by its module calls on the host, whatever the GPU
e5 = [c for c in d["cases"] if c["id"].startswith("E5-")]
assert len(e5) >= 20, len(e5)
for c in e5:
    assert abs(c["predicted"] / c["measured"] - 1) < 0.5, (c["id"], c["predicted"], c["measured"])
assert s["sets"]["holdout"]["median_abs_error"] < 0.20, s["sets"]
# non-NVIDIA training: Gaudi 2 Megatron-DeepSpeed runs of several releases, judged on the held-aside rows
nv = cl["non-nvidia-train"]
assert nv["fit"]["cases"] + nv["holdout"]["cases"] >= 18, nv
assert nv["holdout"]["cases"] >= 5, nv
assert nv["holdout"]["median_abs_error"] < 0.20, nv["holdout"]
' || fail "published cases drifted"

# the human summary reports classes by set
expect_rc 0 validate "$SRCDIR/data/cases/published.csv"
expect_out "serving (holdout)"
expect_out "all holdout"

# a column value the model cannot express is a skip reason, not ignored
printf 'id,model,task,gpu,precision,engine,metric,value\nX1,llama2-7b,pretrain,a100-sxm4-80gb,bf16,tensorrt,tokens_per_s,1000\nX2,llama2-7b,infer,a100-sxm4-80gb,bf16,warp,tokens_per_s,1000\n' >"$TMP/bad.csv"
expect_rc 0 validate "$TMP/bad.csv" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
r = {c["id"]: c.get("reason", "") for c in d["cases"]}
assert "inference only" in r["X1"], r
assert "unknown engine" in r["X2"], r
' || fail "bad engine columns not reported"
finish
