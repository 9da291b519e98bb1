#!/bin/bash
# estimate: workloads from a Hugging Face config.json and from dimension flags.
. "$TESTS/cli/lib.sh"

cfg="$SRCDIR/tests/fuzz/corpus/hfconfig"
expect_rc 0 estimate --model "$cfg/llama2-7b.json" --gpu a100-sxm4-80gb --gpus 8 --zero 3 --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["workload"]["params"] == 6738415616, d["workload"]["params"]
assert d["config"]["precision"] == "fp16"   # torch_dtype float16
' || fail "llama config.json"
expect_rc 0 estimate --model "$cfg/mixtral.json" --gpu h100-sxm5-80gb --gpus 8 --ep 8 --zero 3 --recompute full
expect_out "expert all-to-all"
expect_width 80
expect_rc 0 estimate --model "$cfg/bert.json" --task infer --gpu t4 --batch 8 --prompt-len 128
expect_out "forward pass of the batch"

# the dims of a preset can be overridden, and a model can be given by flags alone
expect_rc 0 estimate --model llama2-7b --layers 16 --gpu a100-sxm4-80gb --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["workload"]["layers"] == 16
assert 3.0e9 < d["workload"]["params"] < 3.6e9
' || fail "layer override"
expect_rc 0 estimate --layers 24 --hidden 2048 --heads 16 --vocab 50257 --seq-len 2048 --gpu a100-sxm4-80gb --gpus 8
expect_out "transformer"

# malformed and unknown config files are located errors
printf '{\n  "hidden_size": 4096,\n  "num_hidden_layers": 32 32\n}\n' > "$TMP/bad.json"
expect_rc 2 estimate --model "$TMP/bad.json" --gpu a100-sxm4-80gb
expect_err "bad.json:3:"
expect_err "not valid JSON"
printf '{"model_type": "mamba", "d_state": 16, "n_layer": 48}' > "$TMP/mamba.json"
expect_rc 2 estimate --model "$TMP/mamba.json" --gpu a100-sxm4-80gb
expect_err "missing keys hidden_size"
expect_err "num_attention_heads"
expect_rc 2 estimate --model "$TMP/nonexistent.json" --gpu a100-sxm4-80gb
expect_err "cannot open"
finish
