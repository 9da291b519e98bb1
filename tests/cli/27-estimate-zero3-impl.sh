#!/bin/bash
# estimate: --zero3-impl fsdp|deepspeed-2021, the case column zero3_impl, and their bad input.
. "$TESTS/cli/lib.sh"

# GPT-3 175B on 1536 A100 as Narayanan et al. 2021 ran it under ZeRO-3: no tp or pp
GPT3="--model gpt3-175b --gpu a100-sxm4-80gb --gpus 1536 --tp 1 --pp 1 --network ib-hdr-8x200
	--micro-batch 1 --global-batch 1536 --seq-len 2048 --precision fp16 --recompute full"

field() { json_field "$1"; }

# the default is FSDP's rings, and naming it changes nothing
expect_rc 0 estimate $GPT3 --zero 3 --json
expect_json
[ "$(field config.zero3_impl)" = fsdp ] || fail "the default ZeRO-3 is fsdp"
fsdp_exposed=$(field time.zero_comm_s)
expect_rc 0 estimate $GPT3 --zero3-impl fsdp --json
[ "$(field config.zero)" = 3 ] || fail "--zero3-impl without --zero is stage 3"
[ "$(field time.zero_comm_s)" = "$fsdp_exposed" ] || fail "--zero3-impl fsdp moved the estimate"

# DeepSpeed 2021: per-matrix gathers with 1536 per-rank copies each, all exposed: many times FSDP's
expect_rc 0 estimate $GPT3 --zero3-impl deepspeed-2021 --json
[ "$(field config.zero3_impl)" = deepspeed-2021 ] || fail "config.zero3_impl is not deepspeed-2021"
ds_exposed=$(field time.zero_comm_s)
ds_total=$(field time.dp_comm_total_s)
python3 -c 'import sys; e, t, f = map(float, sys.argv[1:]); sys.exit(not (e == t and e > 4 * f))' \
	"$ds_exposed" "$ds_total" "$fsdp_exposed" || fail "deepspeed-2021 $ds_exposed (total $ds_total) vs fsdp $fsdp_exposed"
expect_rc 0 estimate $GPT3 --zero3-impl deepspeed-2021
expect_out "zero 3 deepspeed-2021,"

# bad input: a clear error, exit 2, nothing on stdout
expect_rc 2 estimate $GPT3 --zero3-impl deepspeed
expect_err "--zero3-impl 'deepspeed'"
expect_err "fsdp, deepspeed-2021"
expect_rc 2 estimate $GPT3 --zero3-impl ""
expect_err "--zero3-impl"
expect_rc 2 estimate $GPT3 --zero 2 --zero3-impl deepspeed-2021
expect_err "--zero3-impl deepspeed-2021 needs --zero 3"
expect_rc 2 estimate $GPT3 --zero3-impl deepspeed-2021 --hsdp 8
expect_err "it has no --hsdp"
expect_rc 2 estimate --model resnet50 --gpu a100-sxm4-80gb --gpus 16 --zero 3 --zero3-impl deepspeed-2021
expect_err "not a transformer"
[ -z "$OUT" ] || fail "an error wrote to stdout: $OUT"

# the case column: a name it does not know is a skip reason, an empty cell is fsdp
CASES="$TMP/zero3-impl.csv"
cat >"$CASES" <<'EOF'
id,source,model,task,global_batch,micro_batch,precision,tp,pp,dp,zero,recompute,gpu,gpus,gpus_per_node,network,seq_len,metric,value,unit,zero3_impl
Z-001,test,gpt3-175b,pretrain,1536,1,fp16,1,1,1536,3,full,a100-sxm4-80gb,1536,8,ib-hdr-8x200,2048,hfu_tflops_per_gpu,44,TFLOP/s,deepspeed-2021
Z-002,test,gpt3-175b,pretrain,1536,1,fp16,1,1,1536,3,full,a100-sxm4-80gb,1536,8,ib-hdr-8x200,2048,hfu_tflops_per_gpu,44,TFLOP/s,
Z-003,test,gpt3-175b,pretrain,1536,1,fp16,1,1,1536,3,full,a100-sxm4-80gb,1536,8,ib-hdr-8x200,2048,hfu_tflops_per_gpu,44,TFLOP/s,zero++
Z-004,test,gpt3-175b,pretrain,1536,1,fp16,1,1,1536,2,full,a100-sxm4-80gb,1536,8,ib-hdr-8x200,2048,hfu_tflops_per_gpu,44,TFLOP/s,deepspeed-2021
EOF
expect_rc 0 validate "$CASES" --csv
ds=$(printf '%s\n' "$OUT" | grep '^Z-001,' | cut -d, -f4)
fs=$(printf '%s\n' "$OUT" | grep '^Z-002,' | cut -d, -f4)
python3 -c 'import sys; d, f = map(float, sys.argv[1:]); sys.exit(not (0 < d < f / 2))' "$ds" "$fs" ||
	fail "Z-001 (deepspeed-2021, $ds) should be well under Z-002 (fsdp, $fs): $OUT"
printf '%s\n' "$OUT" | grep -q "^Z-003,.*zero3_impl 'zero++' is not fsdp or deepspeed-2021" ||
	fail "Z-003 not skipped for its zero3_impl: $OUT"
printf '%s\n' "$OUT" | grep -q '^Z-004,.*needs --zero 3' || fail "Z-004 not skipped: $OUT"

finish
