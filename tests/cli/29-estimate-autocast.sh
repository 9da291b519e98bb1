#!/bin/bash
# --autocast on|off (docs/model.md, "Autocast in eager code"): eager fp16/bf16
# training under torch.autocast over fp32 weights, on estimate, plan and the
# cases' autocast column (the case format's thirteenth edition); a value it
# does not know, and the settings it does not apply to.
. "$TESTS/cli/lib.sh"

bert="--model bert-large --task pretrain --gpu a100-sxm4-40gb --gpus 8 --dp 8 --seq-len 512 --micro-batch 20"
bert="$bert --global-batch 160 --precision fp16 --flash-attention off"

# off is the default: the field says so and the step does not move
expect_rc 0 estimate $bert --json
expect_out '"autocast": false'
off_step=$(json_field time.step_s)
off_act=$(json_field memory.activations_bytes)
expect_rc 0 estimate $bert --autocast off --json
[ "$(json_field time.step_s)" = "$off_step" ] || fail "--autocast off is not the default"

# on: a longer step and more activations, said in the field, the table and plan's flags
expect_rc 0 estimate $bert --autocast on --json
expect_out '"autocast": true'
python3 -c "import sys; a = [float(x) for x in sys.argv[1:]]; assert a[0] > a[1] and a[2] > a[3], a" \
	"$(json_field time.step_s)" "$off_step" "$(json_field memory.activations_bytes)" "$off_act" ||
	fail "--autocast on: the step or the activations"
expect_rc 0 estimate $bert --autocast on
expect_out "autocast"

# not eager 16-bit training over fp32 weights: refused, naming the flag
for bad in "--engine compile" "--precision fp32" "--precision bf16 --master-weights none"; do
	expect_rc 2 estimate $bert $bad --autocast on
	expect_err "--autocast"
	expect_no_crash
done
expect_rc 2 estimate --model llama2-7b --gpu h100-sxm5-80gb --gpus 8 --precision fp8 --autocast on
expect_err "--autocast"
expect_rc 2 estimate --model llama2-7b --task infer --gpu h100-sxm5-80gb --autocast on
expect_err "--autocast"

# a value it does not know: the flag and the values it takes, exit 2
for cmd in estimate plan; do
	expect_rc 2 $cmd --model bert-base --task pretrain --gpu a100-sxm4-80gb --autocast yes
	expect_err "--autocast 'yes' is not one of on, off"
	expect_no_crash
done

# plan: the setting reaches every choice and its estimate line; inference is refused
plan="plan bert-base --task pretrain --gpu a100-sxm4-80gb --seq-len 128 --global-batch 4096"
plan="$plan --samples 1e8 --buy onprem --threads 1 --top 1 --json"
expect_rc 0 $plan --autocast on
args=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["ranked"][0]["estimate_args"])')
step=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["ranked"][0]["step_s"])')
case "$args" in *"--autocast on"*) ;; *) fail "plan's estimate_args lack --autocast on: $args" ;; esac
estimate_agrees "$args" "$step"
expect_rc 2 plan llama2-7b --task infer --gpu h100-sxm5-80gb --threads 1 --autocast on
expect_err "--autocast"
# every precision the plan may choose is checked, not only the first
expect_rc 2 plan bert-base --task pretrain --gpu h100-sxm5-80gb --seq-len 128 --global-batch 4096 --samples 1e8 \
	--threads 1 --precision bf16,fp8 --autocast on
expect_err "fp8 is not that"

# the case column: 1 moves the row, a bad cell is a skip reason with file, line, column, field
h="id,model,task,gpu,gpus,dp,precision,seq_len,global_batch,micro_batch,flash_attention,metric,value,autocast"
r="bert-large,pretrain,a100-sxm4-40gb,8,8,fp16,512,160,20,0,samples_per_s,400"
printf '%s\n' "$h" "X-1,$r," "X-2,$r,1" "X-3,$r,yes" \
	"X-4,bert-large,pretrain,a100-sxm4-40gb,8,8,fp32,512,160,20,0,samples_per_s,400,1" >"$TMP/autocast.csv"
expect_rc 0 validate "$TMP/autocast.csv" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
c = {x["id"]: x for x in json.load(sys.stdin)["cases"]}
assert c["X-2"]["predicted"] < c["X-1"]["predicted"], (c["X-1"], c["X-2"])
assert c["X-3"]["predicted"] is None and c["X-4"]["predicted"] is None
line = open(sys.argv[1]).read().split("\n")[3]
want = "%s:4:%d: field '"'"'autocast'"'"': '"'"'yes'"'"' is not 0 or 1" % (sys.argv[1], line.rindex(",") + 2)
assert c["X-3"]["reason"] == want, (c["X-3"]["reason"], want)
assert "--autocast" in c["X-4"]["reason"], c["X-4"]
' "$TMP/autocast.csv" || fail "the autocast column"

finish
