#!/bin/bash
# estimate: every preset with every task it supports, as a table that fits
# 80 columns and as JSON with the documented fields.
. "$TESTS/cli/lib.sh"

expect_rc 0 estimate --list-models
expect_out "llama2-7b"
expect_out "mixtral-8x7b"
expect_out "resnet50"
expect_width 80
models=$(printf '%s\n' "$OUT" | awk 'NR > 2 { print $1 }')
[ "$(printf '%s\n' "$models" | wc -l)" -ge 16 ] || fail "fewer than 16 presets listed"

mkdir -p "$TMP/json"
kinds=$(printf '%s\n' "$OUT" | awk 'NR > 2 { print $1 "=" $2 }')
for m in $models; do
	kind=$(printf '%s\n' "$kinds" | awk -F= -v m="$m" '$1 == m { print $2 }')
	for task in pretrain finetune lora qlora infer; do
		if [ "$kind" = per-sample ] && { [ "$task" = lora ] || [ "$task" = qlora ]; }; then
			expect_rc 2 estimate --model "$m" --task "$task" --gpu h100-sxm5-80gb
			expect_err "LoRA/QLoRA apply to transformers"
			continue
		fi
		expect_rc 0 estimate --model "$m" --task "$task" --gpu h100-sxm5-80gb --gpus 8 --tokens 1e9 --samples 1e6
		expect_width 80
		expect_out "memory per GPU"
		expect_out "MFU"
		expect_no_crash
		expect_rc 0 estimate --model "$m" --task "$task" --gpu a100-sxm4-80gb --gpus 8 --json
		printf '%s' "$OUT" > "$TMP/json/$m.$task.json"
	done
done
# every JSON output parses and carries the documented fields
python3 - "$TMP/json" <<'PY' || fail "json fields"
import json, os, sys
d0 = sys.argv[1]
files = sorted(os.listdir(d0))
assert len(files) >= 60, len(files)
for f in files:
    d = json.load(open(os.path.join(d0, f)))
    for a, b in [("memory", "total_bytes"), ("memory", "fits"), ("time", "step_s"),
                 ("throughput", "tokens_per_s"), ("throughput", "samples_per_s")]:
        assert b in d[a], (f, a, b)
    for k in ("mfu", "hfu_tflops_per_gpu", "time_to_train_s", "energy_kwh", "limits", "recommendations"):
        assert k in d, (f, k)
    assert d["memory"]["total_bytes"] > 0, f
    assert d["time"]["step_s"] > 0, f
    assert d["throughput"]["samples_per_s"] > 0, f
    assert 0 <= d["mfu"] < 1, f
PY

# the seeds' scenarios
expect_rc 0 estimate --model llama2-7b --task finetune --gpu a100-sxm4-80gb --gpus 8 --zero 2 --recompute full --micro-batch 4 --global-batch 64
expect_out "fits"
expect_width 80
expect_rc 0 estimate --model gnn --task infer --gpu t4 --latency-target 5ms --max-batch 32
expect_out "batch within 5.0 ms"
expect_out "CUDA Graphs"
expect_rc 0 estimate --model resnet50 --gpu v100-sxm2-16gb --precision fp32 --micro-batch 112 --cpu-cores 40 --gpus 8
expect_out "mixed precision"
expect_out "CPU cores per GPU"
expect_width 80
expect_rc 0 estimate --model resnet50 --gpu a100-sxm4-80gb --gpus 8 --cpu-cores 16 --micro-batch 256 --precision bf16
expect_out "data loading"
expect_out "DALI"
expect_rc 0 estimate --model unet3d --gpu a100-sxm4-80gb --gpus 8 --micro-batch 2 --samples 168 --epochs 1000
expect_out "time to train"
expect_rc 0 estimate --model llama3-70b --task infer --gpu h100-sxm5-80gb --gpus 8 --tp 8 --batch 32 --prompt-len 2048 --output-len 256 --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
i = d["inference"]
assert i["first_token_s"] > 0 and i["token_s"] > 0 and i["request_s"] > i["first_token_s"]
assert d["throughput"]["tokens_per_s"] > 0
' || fail "inference json"

# a configuration that does not fit gets the changes that make it fit
expect_rc 0 estimate --model llama2-13b --task finetune --gpu a100-sxm4-80gb --gpus 8 --dp 8 --zero 0 --micro-batch 4 --global-batch 64
expect_out "DOES NOT FIT"
expect_out "to make it fit"
expect_out "--zero 3"
expect_width 80
expect_rc 0 estimate --model llama2-13b --task finetune --gpu a100-sxm4-80gb --gpus 8 --dp 8 --micro-batch 4 --global-batch 64 --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["memory"]["fits"] is False
assert d["fit_advice"] and all(a["fits"] for a in d["fit_advice"])
' || fail "fit advice json"
finish
