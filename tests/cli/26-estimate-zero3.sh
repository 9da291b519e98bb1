#!/bin/bash
# estimate: ZeRO-3's options, --hsdp N and --reshard-after-forward on|off, and their bad input.
. "$TESTS/cli/lib.sh"

A100="--model llama2-7b --gpu a100-sxm4-80gb --gpus 128 --tp 1 --pp 1 --network ib-hdr-8x200
	--micro-batch 2 --global-batch 256 --seq-len 4096"

field() { json_field "$1"; }

# full shard over 128 ranks on 16 servers: the rings cross servers on all 8 NICs
expect_rc 0 estimate $A100 --zero 3 --json
expect_json
full_exposed=$(field time.zero_comm_s)
full_total=$(field time.dp_comm_total_s)
full_weights=$(field memory.weights_bytes)
[ "$(field config.hsdp)" = 0 ] || fail "full shard is hsdp 0"
[ "$(field config.reshard_after_forward)" = True ] || fail "resharding is the default"

# --hsdp 8 implies ZeRO-3 and shards over a server's 8 GPUs: 16 times the weights of 128 ranks
expect_rc 0 estimate $A100 --hsdp 8 --json
[ "$(field config.zero)" = 3 ] || fail "--hsdp without --zero is stage 3"
[ "$(field config.hsdp)" = 8 ] || fail "config.hsdp is not 8"
python3 -c "import sys; w, v = map(float, sys.argv[1:]); assert abs(w / v - 16) < 1e-6" \
	"$(field memory.weights_bytes)" "$full_weights" || fail "hsdp 8 should hold 16 x the weights"
# on 400 Gb/s a server, only the replicas' all-reduce crosses it: less time than full sharding
THIN=${A100/ib-hdr-8x200/roce-2x200}
expect_rc 0 estimate $THIN --zero 3 --json
thin_full=$(field time.dp_comm_total_s)
expect_rc 0 estimate $THIN --hsdp 8 --json
python3 -c "import sys; a, b = map(float, sys.argv[1:]); assert a < 0.9 * b" "$(field time.dp_comm_total_s)" \
	"$thin_full" || fail "hsdp 8 should move less on a thin network"
expect_rc 0 estimate $A100 --hsdp 8
expect_out "zero 3 hsdp 8"

# --reshard-after-forward off: one gather per micro-batch, every layer kept gathered
expect_rc 0 estimate $A100 --zero 3 --reshard-after-forward off --json
python3 -c "import sys; t, ft = map(float, sys.argv[1:]); assert t < ft" "$(field time.dp_comm_total_s)" \
	"$full_total" || fail "keeping the weights should gather once"
[ "$(field config.reshard_after_forward)" = False ] || fail "config.reshard_after_forward is not false"
expect_rc 0 estimate $A100 --zero 3 --reshard-after-forward off
expect_out "(kept after forward)"
expect_rc 0 estimate $A100 --zero 3 --reshard-after-forward on --json
[ "$(field time.zero_comm_s)" = "$full_exposed" ] || fail "on is the default"

# the flag line plan prints round-trips
expect_rc 0 estimate $A100 --hsdp 16 --reshard-after-forward off --json
[ "$(field config.hsdp)" = 16 ] || fail "hsdp 16"

# bad input: a clear error, exit 2, nothing on stdout
expect_rc 2 estimate $A100 --hsdp 0
expect_err "--hsdp"
expect_rc 2 estimate $A100 --hsdp -8
expect_err "--hsdp"
expect_rc 2 estimate $A100 --hsdp eight
expect_err "--hsdp"
expect_rc 2 estimate $A100 --hsdp 7
expect_err "--hsdp 7 does not divide the 128 data-parallel ranks"
expect_err "such as 8"
expect_rc 2 estimate $A100 --hsdp 256
expect_err "--hsdp 256 does not divide"
expect_rc 2 estimate $A100 --zero 2 --hsdp 8
expect_err "--hsdp needs --zero 3"
expect_rc 2 estimate $A100 --zero 1 --reshard-after-forward off
expect_err "--reshard-after-forward off needs --zero 3"
expect_rc 2 estimate $A100 --zero 3 --reshard-after-forward maybe
expect_err "--reshard-after-forward 'maybe'"
expect_rc 2 estimate --model mixtral-8x7b --gpu h100-sxm5-80gb --gpus 16 --tp 1 --pp 1 --hsdp 8
expect_err "mixture of experts"
expect_rc 2 estimate --model resnet50 --gpu a100-sxm4-80gb --gpus 16 --zero 3 --hsdp 8
expect_err "not a transformer"
[ -z "$OUT" ] || fail "an error wrote to stdout: $OUT"

# a case row's hsdp column that does not divide dp is a skip reason, not a crash
CASES="$TMP/zero3.csv"
cat >"$CASES" <<'EOF'
id,source,model,task,global_batch,micro_batch,precision,tp,pp,dp,zero,gpu,gpus,gpus_per_node,network,seq_len,metric,value,unit,hsdp,reshard_after_forward
Z-001,test,llama2-7b,pretrain,256,2,bf16,1,1,128,3,a100-sxm4-80gb,128,8,ib-hdr-8x200,4096,tokens_per_s_per_gpu,3700,tokens/s,8,1
Z-002,test,llama2-7b,pretrain,256,2,bf16,1,1,128,3,a100-sxm4-80gb,128,8,ib-hdr-8x200,4096,tokens_per_s_per_gpu,3700,tokens/s,7,1
Z-003,test,llama2-7b,pretrain,256,2,bf16,1,1,128,3,a100-sxm4-80gb,128,8,ib-hdr-8x200,4096,tokens_per_s_per_gpu,3700,tokens/s,,2
EOF
expect_rc 0 validate "$CASES" --csv
printf '%s\n' "$OUT" | grep -q '^Z-001,tokens_per_s_per_gpu,3700,[0-9.e+]*,' || fail "Z-001 not predicted: $OUT"
printf '%s\n' "$OUT" | grep -q '^Z-002,.*does not divide' || fail "Z-002 not skipped for its hsdp: $OUT"
printf '%s\n' "$OUT" | grep -q '^Z-003,.*reshard_after_forward' || fail "Z-003 not skipped: $OUT"

finish
