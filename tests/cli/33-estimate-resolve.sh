#!/bin/bash
# estimate: a partial configuration is completed, not refused, and the
# resolver says what it chose.
. "$TESTS/cli/lib.sh"

json_get() { printf '%s' "$OUT" | python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# --gpus alone: the fastest layout that fits, named in a note
expect_rc 0 estimate --model llama2-13b --task finetune --gpu a100-sxm4-80gb --gpus 8 --global-batch 64
expect_out "note: --gpus 8 without --tp/--pp/--dp"
expect_out "layouts that fit"
expect_width 80
expect_rc 0 estimate --model llama2-13b --task finetune --gpu a100-sxm4-80gb --gpus 8 --global-batch 64 --json
[ "$(json_get 'd["memory"]["fits"]')" = True ] || fail "the chosen layout does not fit"
# the same layout given explicitly is a no-op for the resolver: same step time, no layout note
tp=$(json_get 'd["config"]["tp"]'); pp=$(json_get 'd["config"]["pp"]'); dp=$(json_get 'd["config"]["dp"]')
zero=$(json_get 'd["config"]["zero"]'); rc=$(json_get 'd["config"]["recompute"]'); step=$(json_get 'd["time"]["step_s"]')
expect_rc 0 estimate --model llama2-13b --task finetune --gpu a100-sxm4-80gb --gpus 8 --global-batch 64 \
	--tp "$tp" --pp "$pp" --dp "$dp" --zero "$zero" --recompute "$rc" --json
[ "$(json_get 'd["time"]["step_s"]')" = "$step" ] || fail "explicit layout gives another step time"
[ "$(json_get 'len(d["notes"])')" = 0 ] || fail "explicit layout still noted"

# a multi-node run without --network gets the catalog's usual fabric, said in a note
expect_rc 0 estimate --model llama2-7b --gpu a100-sxm4-80gb --gpus 16 --dp 16
expect_out "note: no --network for 16 GPUs on 2 servers: assumed ib-hdr-8x200"
expect_rc 0 estimate --model llama2-7b --gpu h100-sxm5-80gb --gpus 32 --dp 32
expect_out "assumed ib-ndr"

# flash attention is off where the GPU has no flash kernels (V100), on for A100
expect_rc 0 estimate --model llama2-7b --gpu v100-sxm2-32gb --task lora
expect_out "flash attention off"
expect_rc 0 estimate --model llama2-7b --gpu a100-sxm4-80gb --task lora
expect_out "flash attention on"

# uneven pipeline stages: 126 layers on 16 stages, the most loaded holds 8
expect_rc 0 estimate --model llama2-7b --layers 30 --gpu a100-sxm4-80gb --pp 4 --gpus 4 --json
even=$(json_get 'd["memory"]["weights_bytes"]')
expect_rc 0 estimate --model llama2-7b --layers 32 --gpu a100-sxm4-80gb --pp 4 --gpus 4 --json
[ "$(json_get "d['memory']['weights_bytes'] == $even")" = True ] || fail "30 layers on 4 stages should hold 8 on the largest, as 32 do"

# a global batch that does not divide is rounded, with a note
expect_rc 0 estimate --model llama2-7b --gpu a100-sxm4-80gb --gpus 8 --dp 8 --global-batch 12
expect_out "global batch 12 is not a multiple of micro-batch x dp = 8: rounded to 8"

# an explicit 0 is a value: --output-len 0 is the prompt's forward pass alone
expect_rc 0 estimate --model llama2-7b --task infer --gpu a100-sxm4-80gb --output-len 0 --json
[ "$(json_get 'd["config"]["output_len"]')" = 0 ] || fail "--output-len 0 was replaced by a default"
[ "$(json_get 'd["inference"]["request_s"] == d["inference"]["first_token_s"]')" = True ] || fail "output 0 still decodes"
finish
