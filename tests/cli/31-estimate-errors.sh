#!/bin/bash
# estimate: impossible configurations name the flag and say what is valid.
. "$TESTS/cli/lib.sh"

expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --tp 3 --gpus 3
expect_err "--tp 3 does not divide the 32 attention heads"
expect_err "use 1, 2, 4, 8, 16 or 32"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --pp 33 --gpus 33
expect_err "--pp 33 exceeds the 32 layers"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --pp 3 --vpp 2 --gpus 3
expect_err "pp x vpp = 3 x 2 does not divide the 32 layers"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --tp 2 --pp 2 --dp 2 --gpus 16
expect_err "--gpus 16 is not tp x pp x dp"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --gpus 6 --tp 4
expect_err "--gpus 6 is not a multiple of tp x pp"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --micro-batch -4
expect_err "--micro-batch"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --gpus 0
expect_err "--gpus"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --seq-len 999999999
expect_err "--seq-len"
expect_rc 2 estimate --model llama2-7b --gpu v100-sxm2-16gb --precision bf16
expect_err "no bf16 support"
expect_err "--precision fp16"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --precision fp12
expect_err "--precision 'fp12'"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --gpus 16 --network warp-9x100
expect_err "network"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --ep 2 --gpus 2
expect_err "--ep 2 needs a mixture-of-experts model"
expect_rc 2 estimate --model mixtral-8x7b --gpu a100-sxm4-80gb --ep 3 --gpus 3
expect_err "--ep 3 does not divide the 8 experts"
expect_rc 2 estimate --model resnet50 --gpu a100-sxm4-80gb --tp 2 --gpus 2
expect_err "data parallel only"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --offload params --zero 1
expect_err "--offload params needs --zero 3"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --flash-attention maybe
expect_err "--flash-attention"
expect_rc 2 estimate --model bert-large --task infer --gpu a100-sxm4-80gb --output-len 20
expect_err "encoder"
expect_rc 2 estimate --model gpt3-175b --task infer --gpu h100-sxm5-80gb --tp 8 --gpus 8 --prompt-len 2000 --output-len 100
expect_err "exceeds the 2048 positions"
expect_rc 2 estimate --model lama2-7b --gpu a100-sxm4-80gb
expect_err "unknown model 'lama2-7b'"
expect_err "llama2-7b"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm9
expect_err "--gpu"
expect_rc 2 estimate --model llama2-7b
expect_err "--gpu NAME"
expect_rc 2 estimate --gpu a100-sxm4-80gb
expect_err "--model"
expect_rc 2 estimate --layers 4 --gpu a100-sxm4-80gb
expect_err "--layers, --hidden, --heads"
expect_rc 2 estimate --layers 4 --hidden 100 --heads 3 --vocab 10 --gpu a100-sxm4-80gb
expect_err "heads"
expect_rc 2 estimate --model llama2-7b --kv-heads 5 --gpu a100-sxm4-80gb
expect_err "kv-heads"
expect_rc 2 estimate --model resnet50 --layers 4 --gpu a100-sxm4-80gb
expect_err "per sample"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --latency-target 5ms
expect_err "--latency-target applies to --task infer"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --zero 4
expect_err "--zero"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --tokens -5
expect_err "--tokens"
# nodes that cannot be bought: an SXM board of 64, SXM parts two to a node
expect_rc 2 estimate --model llama2-7b --gpu h100-sxm5-80gb --gpus 64 --gpus-per-node 64
expect_err "holds 4 or 8 GPUs, not 64"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --gpus 16 --gpus-per-node 2
expect_err "not 2"
expect_rc 2 estimate --model llama2-7b --gpu a100-pcie-80gb --gpus 24 --gpus-per-node 12
expect_err "holds 1-10 GPUs, not 12"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --bogus
expect_err "unknown option"
finish
