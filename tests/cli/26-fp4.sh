#!/bin/bash
# FP4 (NVFP4, MXFP4): estimate's --precision and --weight-precision, the errors on GPUs without
# FP4, plan trying FP4 only where the GPU has it, validate reading the fifth edition's values,
# and a quantised config.json served at its stored precision.
. "$TESTS/cli/lib.sh"

# llama3-70b served in NVFP4 on one B200: 4.5 bits a weight, the FP4 peak; fp4 names nvfp4
for p in nvfp4 fp4 mxfp4; do
	expect_rc 0 estimate --model llama3-70b --task infer --gpu b200-sxm-180gb --precision $p --json
	expect_json
	printf '%s' "$OUT" | python3 -c '
import json, sys
d, p = json.load(sys.stdin), sys.argv[1]
name = "nvfp4" if p == "fp4" else p
bits = {"nvfp4": 4.5, "mxfp4": 4.25}[name]
c = d["config"]
assert c["precision"] == name and c["weight_precision"] == name, c
assert c["kv_cache_precision"] == "bf16", c
w = d["workload"]["params"] * bits / 8
assert abs(d["memory"]["weights_bytes"] / w - 1) < 1e-9, (d["memory"]["weights_bytes"], w)
assert abs(w / (70.6e9 * bits / 8) - 1) < 0.002
assert d["peak_tflops"] == 9000, d["peak_tflops"]
' "$p" || fail "estimate --precision $p"
done

# the flag line estimate prints for itself names nvfp4 and means the same
expect_rc 0 estimate --model llama3-8b --gpu gb200-186gb --gpus 4 --tp 4 --precision fp4 --recompute full
expect_out "nvfp4"

# weights-only: stored and read at 4.25 bits, GEMMs at bf16, on a GPU without FP4
expect_rc 0 estimate --model llama3-70b --task infer --gpu h100-sxm5-80gb --gpus 2 --tp 2 \
	--weight-precision mxfp4 --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["config"]["precision"] == "bf16" and d["config"]["weight_precision"] == "mxfp4"
# tp 2 splits the matrices; the norms, a few thousand weights, are whole on each GPU
assert abs(d["memory"]["weights_bytes"] / (d["workload"]["params"] * 4.25 / 8 / 2) - 1) < 1e-4
assert d["peak_tflops"] < 1000
' || fail "weights-only mxfp4 on h100"

# FP4 compute where the GPU has none: the GPU and what it has are named
expect_rc 2 estimate --model llama3-8b --gpu h100-sxm5-80gb --precision nvfp4
expect_err "h100-sxm5-80gb has no nvfp4 support; it has fp32, tf32, fp16, bf16, fp8"
expect_err "--precision fp8"
expect_rc 2 estimate --model llama3-8b --task infer --gpu a100-sxm4-80gb --precision mxfp4
expect_err "a100-sxm4-80gb has no mxfp4 support; it has fp32, tf32, fp16, bf16:"
expect_rc 2 estimate --model llama3-8b --gpu b200-sxm-180gb --precision fp3
expect_err "fp32, tf32, fp16, bf16, fp8, nvfp4, mxfp4"
# 4-bit weights apart from the training precision are a LoRA base, never a full training run
expect_rc 2 estimate --model llama3-8b --task pretrain --gpu b200-sxm-180gb --precision bf16 --weight-precision nvfp4
expect_err "--weight-precision nvfp4 stores a frozen base"
expect_rc 2 estimate --model llama3-8b --task infer --gpu b200-sxm-180gb --kv-cache-precision nvfp4
expect_err "use fp32, fp16, bf16, fp8, int8 or int4"

# plan: FP4 is tried on Blackwell only; asked of Hopper alone, nothing is searched
expect_rc 0 plan --model llama3-70b --task infer --rate 30 --gpu b200-sxm-180gb,h100-sxm5-80gb \
	--precision bf16,nvfp4 --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
seen = {(c["gpu"], c["precision"]) for c in d["ranked"]}
assert ("h100-sxm5-80gb", "nvfp4") not in seen, seen
assert ("b200-sxm-180gb", "nvfp4") in seen, seen
assert "nvfp4" in d["request"]["precisions"], d["request"]
' || fail "plan fp4 on blackwell only"
args=$(printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
c = [c for c in d["ranked"] if c["precision"] == "nvfp4"][0]
print(c["estimate_args"])')
case "$args" in *"--precision nvfp4"*) ;; *) fail "plan's estimate line lacks --precision nvfp4: $args" ;; esac
# training at nvfp4: estimate, given plan's line, predicts what plan did
expect_rc 0 plan --model llama3-8b --task pretrain --tokens 1e9 --gpu b200-sxm-180gb --precision nvfp4 --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ranked"] and all(c["precision"] == "nvfp4" for c in d["ranked"]), d["ranked"][:1]
' || fail "plan --precision nvfp4 for training"
targs=$(printf '%s' "$OUT" | python3 -c 'import json, sys; print(json.load(sys.stdin)["ranked"][0]["estimate_args"])')
tstep=$(printf '%s' "$OUT" | python3 -c 'import json, sys; print(json.load(sys.stdin)["ranked"][0]["step_s"])')
estimate_agrees "$targs" "$tstep"
expect_rc 2 plan --model llama3-8b --task infer --gpu h100-sxm5-80gb --precision nvfp4,mxfp4
expect_err "h100-sxm5-80gb has none of the precisions asked for (nvfp4, mxfp4); it has fp32, tf32, fp16, bf16, fp8"
expect_rc 2 plan --model llama3-8b --precision nf4
expect_err "nvfp4"

# plan --weight-precision: weights-only FP4 served on Hopper, its line reproduced by estimate;
# refused for a full training run, where every weight is trained
expect_rc 0 plan --model llama3-70b --task infer --rate 4 --gpu h100-sxm5-80gb --weight-precision nvfp4 --json
expect_json
wargs=$(printf '%s' "$OUT" | python3 -c 'import json, sys; print(json.load(sys.stdin)["ranked"][0]["estimate_args"])')
case "$wargs" in *"--precision bf16"*"--weight-precision nvfp4"*) ;; *) fail "plan --weight-precision line: $wargs" ;; esac
# shellcheck disable=SC2086
expect_rc 0 estimate $wargs --json
printf '%s' "$OUT" | python3 -c '
import json, sys
c = json.load(sys.stdin)["config"]
assert c["weight_precision"] == "nvfp4" and c["precision"] == "bf16", c
' || fail "estimate of plan's weights-only line"
expect_rc 2 plan --model llama3-8b --task finetune --gpu h100-sxm5-80gb --weight-precision nvfp4
expect_err "trains every weight"
expect_rc 2 plan --model llama3-8b --task infer --gpu h100-sxm5-80gb --weight-precision fp5
expect_err "--weight-precision 'fp5' is not one of"

# validate: the fifth edition's values, predicted on Blackwell, skipped naming the GPU elsewhere
cat >"$TMP/fp4.csv" <<'EOF'
id,source,model,task,precision,weight_precision,gpu,gpus,tp,infer_batch,prompt_len,output_len,metric,value,unit
F-1,test,llama3-70b,infer,nvfp4,,b200-sxm-180gb,1,1,8,1024,128,token_latency_ms,20,ms
F-2,test,llama3-70b,infer,bf16,mxfp4,h100-sxm5-80gb,2,2,8,1024,128,token_latency_ms,20,ms
F-3,test,llama3-70b,infer,nvfp4,,h100-sxm5-80gb,2,2,8,1024,128,token_latency_ms,20,ms
F-4,test,llama3-8b,pretrain,fp4,nvfp4,b200-sxm-180gb,8,1,,,,step_time_s,1,s
F-5,test,llama3-8b,infer,fp6,,b200-sxm-180gb,1,1,8,1024,128,token_latency_ms,20,ms
EOF
expect_rc 0 validate "$TMP/fp4.csv" --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
cases = {c["id"]: c for c in json.load(sys.stdin)["cases"]}
for i in ("F-1", "F-2", "F-4"):
    assert cases[i]["predicted"] is not None, cases[i]
assert cases["F-3"]["predicted"] is None
assert "h100-sxm5-80gb has no nvfp4 support" in cases["F-3"]["reason"], cases["F-3"]
assert cases["F-5"]["predicted"] is None and "fp6" in cases["F-5"]["reason"], cases["F-5"]
# 4.25-bit weights on two H100s read fewer bytes a token than bf16 would: under 20 ms
assert cases["F-2"]["predicted"] < cases["F-1"]["predicted"] * 3
' || fail "validate fp4 cases"

# a quantised checkpoint's config.json is served at its stored precision
cat >"$TMP/config.json" <<'EOF'
{"architectures": ["GptOssForCausalLM"], "hidden_size": 2880, "num_hidden_layers": 24,
 "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64, "intermediate_size": 2880,
 "num_local_experts": 32, "num_experts_per_tok": 4, "vocab_size": 201088,
 "max_position_embeddings": 131072, "torch_dtype": "bfloat16",
 "quantization_config": {"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn"]}}
EOF
expect_rc 0 estimate --model "$TMP/config.json" --task infer --gpu h100-sxm5-80gb --json
printf '%s' "$OUT" | python3 -c '
import json, sys
c = json.load(sys.stdin)["config"]
assert c["weight_precision"] == "mxfp4" and c["precision"] == "bf16", c
' || fail "config.json quantization_config"
expect_rc 0 plan --model "$TMP/config.json" --task infer --gpu h100-sxm5-80gb --json
printf '%s' "$OUT" | python3 -c '
import json, sys
assert "--weight-precision mxfp4" in json.load(sys.stdin)["ranked"][0]["estimate_args"]
' || fail "plan of a quantised config.json"
expect_rc 0 estimate --model "$TMP/config.json" --task infer --gpu h100-sxm5-80gb --weight-precision bf16 --json
printf '%s' "$OUT" | python3 -c '
import json, sys
assert json.load(sys.stdin)["config"]["weight_precision"] == "bf16"
' || fail "--weight-precision over the checkpoint"

finish
