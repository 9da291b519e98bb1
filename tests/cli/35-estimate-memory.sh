#!/bin/bash
# estimate: memory as frameworks hold it, and settings that contradict
# each other get an error naming the flag.
. "$TESTS/cli/lib.sh"

mem() { printf '%s' "$OUT" | python3 -c "import json,sys; d=json.load(sys.stdin)['memory']; print($1)"; }
base="--model llama2-7b --gpu a100-sxm4-80gb --gpus 8 --dp 8 --micro-batch 1 --global-batch 8"

# LoRA under ZeRO-3/FSDP shards the frozen base like any parameter
expect_rc 0 estimate $base --task lora --zero 0 --json
w0=$(mem 'd["weights_bytes"]')
expect_rc 0 estimate $base --task lora --zero 3 --json
w3=$(mem 'd["weights_bytes"]')
python3 -c "assert abs($w0 / $w3 - 8) < 0.01, ($w0, $w3)" || fail "ZeRO-3 LoRA base is not sharded 8 ways"

# QLoRA's NF4 base, and a LoRA base in int8, against the 16-bit one
expect_rc 0 estimate $base --task qlora --json
q=$(mem 'd["weights_bytes"]')
python3 -c "assert 0.25 < $q / $w0 < 0.35, ($q, $w0)" || fail "NF4 base is not about a quarter of bf16"
expect_rc 0 estimate $base --task lora --weight-precision int8 --json
i8=$(mem 'd["weights_bytes"]')
python3 -c "assert 0.5 < $i8 / $w0 < 0.6, ($i8, $w0)" || fail "int8 base is not about half of bf16"

# optimizers and master weights: full fine-tune, ZeRO 0 (its JSON serves the logits
# and recompute checks below too)
expect_rc 0 estimate $base --task finetune --json
adamw=$(mem 'd["optimizer_bytes"]'); grads=$(mem 'd["gradients_bytes"]')
l32=$(mem 'd["logits_bytes"]'); anone=$(mem 'd["activations_bytes"]')
expect_rc 0 estimate $base --task finetune --optimizer adamw8bit --json
python3 -c "assert abs($(mem 'd["optimizer_bytes"]') / $adamw - 6.0 / 12) < 0.01" || fail "8-bit AdamW: master 4 + states 2 of 12"
expect_rc 0 estimate $base --task finetune --master-weights none --json
python3 -c "assert abs($(mem 'd["optimizer_bytes"]') / $adamw - 4.0 / 12) < 0.01" || fail "pure bf16 AdamW keeps 4 B of states"
python3 -c "assert abs($(mem 'd["gradients_bytes"]') / $grads - 0.5) < 0.01" || fail "pure bf16 gradients are 2 B"
expect_rc 0 estimate $base --task finetune --optimizer paged-adamw8bit --json
python3 -c "d=$(mem 'd["paged_bytes"]'); assert d > 0" || fail "paged states not counted"
python3 -c "assert abs($(mem 'd["device_bytes"] - d["reserved_bytes"] - d["context_bytes"] - d["paged_bytes"]')) < 1e3" ||
	fail "device = reserved + paged + context"
expect_rc 0 estimate $base --task finetune --optimizer-in-backward --json
python3 -c "assert $(mem 'd["gradients_bytes"]') < 0.1 * $grads" || fail "optimizer in backward keeps whole gradients"
expect_rc 0 estimate $base --task finetune --optimizer sgd --json
python3 -c "assert abs($(mem 'd["optimizer_bytes"]') / $adamw - 4.0 / 12) < 0.01" || fail "plain SGD keeps the master copy only"

# logits: whole fp32 > whole bf16 > chunked
expect_rc 0 estimate $base --task finetune --logits bf16 --json
l16=$(mem 'd["logits_bytes"]')
expect_rc 0 estimate $base --task finetune --logits chunked --json
lch=$(mem 'd["logits_bytes"]')
python3 -c "assert $l32 > $l16 > $lch > 0, ($l32, $l16, $lch)" || fail "logits order"

# recompute selective-op keeps less than none, more than full
expect_rc 0 estimate $base --task finetune --recompute selective-op --json
aop=$(mem 'd["activations_bytes"]')
expect_rc 0 estimate $base --task finetune --recompute full --json
afull=$(mem 'd["activations_bytes"]')
python3 -c "assert $anone > $aop > $afull, ($anone, $aop, $afull)" || fail "selective-op activations"

# activation offload moves activations to the host, with its PCIe time
expect_rc 0 estimate $base --task finetune --activation-offload --host-memory 1024 --json
python3 -c "assert $(mem 'd["activations_bytes"]') < $anone and $(mem 'd["host_bytes"]') > 0" ||
	fail "activation offload"
expect_out '"offload_s"'


# the three statistics are printed
expect_rc 0 estimate $base --task lora
expect_out "GiB as PyTorch counts: allocated"
expect_out "nvidia-smi"

# bad combinations name the flag
expect_rc 2 estimate $base --task finetune --offload optimizer
expect_err "--offload needs the host memory"
expect_rc 2 estimate $base --task finetune --weight-precision nf4
expect_err "--weight-precision nf4"
expect_err "--task lora or qlora"
expect_rc 2 estimate $base --task lora --lora-rank 8192
expect_err "--lora-rank 8192 exceeds the hidden size 4096"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --task finetune --optimizer-in-backward --global-batch 8
expect_err "--optimizer-in-backward"
expect_rc 2 estimate $base --task finetune --master-weights none --precision fp32
expect_err "--master-weights none"
expect_rc 2 estimate $base --task finetune --optimizer adamw9bit
expect_err "--optimizer 'adamw9bit'"
expect_rc 2 estimate $base --task lora --lora-targets everything
expect_err "--lora-targets 'everything'"
expect_rc 2 estimate $base --task finetune --logits fp64
expect_err "--logits 'fp64'"
finish
