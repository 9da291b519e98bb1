#!/bin/bash
# --mlm-head masked|all (docs/model.md, "Encoders"): where BERT's masked-LM
# pre-training runs its output layer, on estimate, plan and the cases'
# mlm_head column (the case format's twelfth edition), and the errors of a
# value it does not know.
. "$TESTS/cli/lib.sh"

bert="--model bert-base --task pretrain --gpu a100-sxm4-80gb --gpus 8 --dp 8 --seq-len 128 --micro-batch 128"
bert="$bert --global-batch 4096 --precision bf16"

# the default is the reference's gather of the masked 15 %: the field says so
expect_rc 0 estimate $bert --json
expect_out '"mlm_head": "masked"'
masked_step=$(json_field time.step_s)
masked_logits=$(json_field memory.logits_bytes)
expect_rc 0 estimate $bert --mlm-head masked --json
[ "$(json_field time.step_s)" = "$masked_step" ] || fail "--mlm-head masked is not the default"

# every position: a longer step, 1/0.15 the logits' memory, said in the table and in the flags
expect_rc 0 estimate $bert --mlm-head all --json
expect_out '"mlm_head": "all"'
python3 -c "import sys; s, l = float(sys.argv[1]), float(sys.argv[2]); \
assert s > float(sys.argv[3]) and abs(l * 0.15 / float(sys.argv[4]) - 1) < 1e-9" \
	"$(json_field time.step_s)" "$(json_field memory.logits_bytes)" "$masked_step" "$masked_logits" ||
	fail "--mlm-head all: the step or the logits' memory"
expect_rc 0 estimate $bert --mlm-head all
expect_out "MLM head on every position"

# a decoder, or a fine-tuned encoder, has no masked-LM head: no field, and all is refused
expect_rc 0 estimate --model llama2-7b --gpu h100-sxm5-80gb --gpus 8 --json
case "$OUT" in *mlm_head*) fail "a decoder's estimate shows mlm_head" ;; esac
expect_rc 2 estimate --model llama2-7b --gpu h100-sxm5-80gb --gpus 8 --mlm-head all
expect_err "--mlm-head"
expect_err "--task pretrain on an encoder"
expect_rc 2 estimate --model bert-base --task finetune --gpu a100-sxm4-80gb --mlm-head all
expect_err "--mlm-head"

# a value it does not know: the flag and the values it takes, exit 2
for cmd in estimate plan; do
	expect_rc 2 $cmd --model bert-base --task pretrain --gpu a100-sxm4-80gb --mlm-head every
	expect_err "--mlm-head 'every' is not one of masked, all"
	expect_no_crash
done

# plan: the setting reaches every choice and its estimate line
plan="plan bert-base --task pretrain --gpu a100-sxm4-80gb --seq-len 128 --global-batch 4096"
plan="$plan --samples 1e8 --buy onprem --threads 1 --top 1 --json"
expect_rc 0 $plan --mlm-head all
args=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["ranked"][0]["estimate_args"])')
step=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["ranked"][0]["step_s"])')
case "$args" in *"--mlm-head all"*) ;; *) fail "plan's estimate_args lack --mlm-head all: $args" ;; esac
estimate_agrees "$args" "$step"
expect_rc 2 plan llama2-7b --gpu h100-sxm5-80gb --threads 1 --mlm-head all
expect_err "--mlm-head"

# the case column: all moves the row, an unknown value is a skip reason with file, line, column, field
printf '%s\n' "id,model,task,gpu,gpus,dp,precision,seq_len,global_batch,micro_batch,metric,value,mlm_head" \
	"X-1,bert-base,pretrain,a100-sxm4-80gb,8,8,bf16,128,4096,128,samples_per_s,7000," \
	"X-2,bert-base,pretrain,a100-sxm4-80gb,8,8,bf16,128,4096,128,samples_per_s,7000,all" \
	"X-3,bert-base,pretrain,a100-sxm4-80gb,8,8,bf16,128,4096,128,samples_per_s,7000,every" \
	"X-4,llama2-7b,pretrain,h100-sxm5-80gb,8,8,bf16,,,,tokens_per_s,30000,all" >"$TMP/head.csv"
expect_rc 0 validate "$TMP/head.csv" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
c = {x["id"]: x for x in json.load(sys.stdin)["cases"]}
assert c["X-2"]["predicted"] < c["X-1"]["predicted"], (c["X-1"], c["X-2"])
assert c["X-3"]["predicted"] is None and c["X-4"]["predicted"] is None
r = c["X-3"]["reason"]
want = sys.argv[1] + ":4:80: field '"'"'mlm_head'"'"': '"'"'every'"'"' is not masked or all"
assert r == want, (r, want)
assert "--mlm-head" in c["X-4"]["reason"], c["X-4"]
' "$TMP/head.csv" || fail "the mlm_head column"

finish
