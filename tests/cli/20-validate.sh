#!/bin/bash
# validate: the built-in calibration set, JSON shape, coverage, skipped
# cases and bad case files.
. "$TESTS/cli/lib.sh"

expect_rc 0 validate
expect_out "S1-001"
expect_out "hfu_tflops_per_gpu"
expect_out "summary"
expect_out "all cases"
expect_width 80

expect_rc 0 validate --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
cases = d["cases"]
assert len(cases) >= 60
for c in cases:
    for k in ("id", "metric", "measured", "predicted", "error"):
        assert k in c, k
    if c["predicted"] is None:
        assert c["reason"]
    else:
        assert abs(c["error"] - (c["predicted"] - c["measured"]) / c["measured"]) < 1e-9
s = d["summary"]
assert s["coverage"] == 1.0, s["coverage"]
m = s["metrics"]
for k in ("hfu_tflops_per_gpu", "samples_per_s", "gemm_tflops", "hbm_gbps", "allreduce_busbw_gbps", "h2d_gbps"):
    assert m[k]["coverage"] == 1.0
    assert m[k]["median_abs_error"] is not None
# the calibration set is what the model was tuned on: it must stay close
assert s["groups"]["throughput"]["median_abs_error"] < 0.10, s["groups"]["throughput"]
assert s["groups"]["microbenchmark"]["median_abs_error"] < 0.05
' || fail "validate json"

expect_rc 0 validate --csv
expect_out "id,metric,measured,predicted,error,model,reason"

expect_rc 0 validate --metric gemm_tflops --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert {c["metric"] for c in d["cases"]} == {"gemm_tflops"}
' || fail "metric filter"

# a user file: column order free, unknown columns ignored, unexpressible cases skipped
cat > "$TMP/cases.csv" <<'CSV'
metric,value,id,model,task,gpu,gpus,tp,pp,global_batch,micro_batch,precision,recompute,seq_len,colour
memory_gib_per_gpu,60,T-1,llama2-7b,finetune,a100-sxm4-80gb,8,1,1,64,1,bf16,full,4096,blue
tokens_per_s,20000,T-2,llama2-7b,finetune,a100-sxm4-80gb,8,1,1,64,1,bf16,full,4096,red
tokens_per_s,100,T-3,llama9-1t,pretrain,a100-sxm4-80gb,8,1,1,64,1,bf16,full,4096,
samples_per_s,100,T-4,resnet50,pretrain,a100-sxm4-80gb,3,3,1,64,,bf16,,,
first_token_ms,50,T-5,llama2-7b,infer,h100-sxm5-80gb,1,1,1,,,bf16,,,
first_token_ms,50,T-6,llama2-7b,pretrain,h100-sxm5-80gb,1,1,1,8,1,bf16,,,
CSV
expect_rc 0 validate "$TMP/cases.csv" --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
c = {x["id"]: x for x in d["cases"]}
assert c["T-1"]["predicted"] is not None and c["T-2"]["predicted"] is not None
assert c["T-3"]["predicted"] is None and "llama9-1t" in c["T-3"]["reason"]
assert c["T-4"]["predicted"] is None and "data parallel" in c["T-4"]["reason"]
assert c["T-5"]["predicted"] is not None
assert c["T-6"]["predicted"] is None and "infer" in c["T-6"]["reason"]
assert abs(d["summary"]["coverage"] - 3 / 6) < 1e-9, d["summary"]["coverage"]
' || fail "user cases"

printf 'id,model,value\nX,llama2-7b,1\n' > "$TMP/nometric.csv"
expect_rc 2 validate "$TMP/nometric.csv"
expect_err "lacks the column 'metric'"
printf 'id,model,metric,value\n"X,llama2-7b,mfu,1\n' > "$TMP/quote.csv"
expect_rc 2 validate "$TMP/quote.csv"
expect_err "quote.csv:2"
expect_rc 2 validate "$TMP/none.csv"
expect_err "cannot open"
expect_rc 2 validate a.csv b.csv
expect_err "at most one file"

# empty layout and ZeRO cells are unset: the resolver picks a layout, ZeRO stage and recompute that
# fit, where the same case with an explicit tp 1 pp 1 dp 8 zero 0 does not fit
printf 'id,model,task,gpu,gpus,gpus_per_node,precision,global_batch,micro_batch,tp,pp,dp,zero,metric,value\nZ1,llama2-7b,finetune,a100-sxm4-80gb,8,8,bf16,64,8,,,,,tokens_per_s,10000\nZ2,llama2-7b,finetune,a100-sxm4-80gb,8,8,bf16,64,8,1,1,8,0,tokens_per_s,10000\n' >"$TMP/unset.csv"
expect_rc 0 validate "$TMP/unset.csv" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
r = {c["id"]: c.get("reason", "") for c in json.load(sys.stdin)["cases"]}
assert "not to fit" not in r["Z1"], r
assert "not to fit" in r["Z2"], r
' || fail "empty zero/dp cells were not left to the resolver"

# a FLOP rate must say whether recomputation is counted: it is flagged, not guessed
printf 'id,model,task,gpu,gpus,precision,global_batch,metric,value\nF1,llama2-7b,pretrain,a100-sxm4-80gb,8,bf16,64,tflops_per_gpu,150\nF2,llama2-7b,pretrain,a100-sxm4-80gb,8,bf16,64,mfu_tflops_per_gpu,150\n' >"$TMP/flops.csv"
expect_rc 0 validate "$TMP/flops.csv" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
c = {x["id"]: x for x in json.load(sys.stdin)["cases"]}
assert c["F1"]["predicted"] is None and "does not declare its FLOP convention" in c["F1"]["reason"], c["F1"]
assert c["F2"]["predicted"] is not None, c["F2"]
' || fail "an undeclared FLOP convention was not flagged"
finish
