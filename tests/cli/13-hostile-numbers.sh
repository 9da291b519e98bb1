#!/bin/bash
# Numbers from flags and case files: zero is never a silent "unset",
# subnormal and overflowing values are refused with the flag named, and
# products of parallel degrees cannot overflow.
. "$TESTS/cli/lib.sh"

# refused FLAG VALUE WORDS CMD...: the command exits 2 naming the flag.
refused() {
	local flag=$1 value=$2 words=$3
	shift 3
	expect_rc 2 "$@" "$flag" "$value"
	expect_no_crash
	expect_err "'$flag'"
	expect_err "$words"
}

for f in --deadline --budget --power-kw --rate --epochs; do
	extra=()
	[ "$f" = --rate ] && extra=(--task infer)
	refused "$f" 0 "more than 0" plan llama2-7b "${extra[@]}"
done
for f in --utilisation --years --tokens --samples; do
	refused "$f" 0 "at least" plan llama2-7b
done
refused --tokens 0 "at least 1" estimate --model llama2-7b --gpu a100-sxm4-80gb
refused --utilisation 1e-320 "" plan llama2-7b
refused --years 1e-320 "" plan llama2-7b
refused --deadline 1e300 "at most" plan llama2-7b
refused --budget -5 "more than 0" plan llama2-7b
refused --latency-target 0 "more than 0" plan llama2-7b --task infer
refused --rate 1e300 "at most" plan llama2-7b --task infer

# less than a step of work: one whole step, said so; no "$0.00", no "0ms"
expect_rc 0 plan llama2-7b --tokens 1
case "$OUT" in *'$0.00'*|*' 0ms'*|*inf*|*nan*) fail "plan --tokens 1 prints zero, inf or nan: $OUT";; esac
expect_out 'round up to 1'

# tco: a free server and a service of 30 ms printed $0.00 and $infM
expect_rc 2 tco --server dgx-h100 --price 0
expect_err "more than 0"
expect_rc 2 tco --server dgx-h100 --years 1e-9
expect_err "at least 0.25"

# tp x pp overflowed an int, then divided by zero
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --tp 65536 --pp 65536 --gpus 8
expect_no_crash
expect_err "tp x pp = 65536 x 65536 is more than"
expect_rc 2 estimate --model llama2-7b --gpu a100-sxm4-80gb --tp 65536 --pp 65536
expect_no_crash
case "$ERR" in *--gpus*) fail "blames a --gpus not given: $ERR";; esac

# replicas overflowed an int and were clamped to 1
expect_rc 1 plan llama2-7b --task infer --rate 1e9
expect_no_crash
expect_out "serves 1e+09 requests/s"

# validate: the same rows in a case file are skipped with a reason, never fatal
cat >"$TMP/cases.csv" <<'CSV'
metric,value,id,model,task,gpu,gpus,tp,pp,global_batch,micro_batch,precision
tokens_per_s,20000,H-1,llama2-7b,finetune,a100-sxm4-80gb,8,65536,65536,64,1,bf16
tokens_per_s,0x4e20,H-2,llama2-7b,finetune,a100-sxm4-80gb,8,1,1,64,1,bf16
tokens_per_s,-20000,H-3,llama2-7b,finetune,a100-sxm4-80gb,8,1,1,64,1,bf16
tokens_per_s,1e-300,H-4,llama2-7b,finetune,a100-sxm4-80gb,8,1,1,64,1,bf16
tokens_per_s,20000,H-5,llama2-7b,finetune,a100-sxm4-80gb,0x8,1,1,64,1,bf16
tokens_per_s,20000,H-6,llama2-7b,finetune,a100-sxm4-80gb,8,1,1,64,1,bf16
CSV
expect_rc 0 validate "$TMP/cases.csv" --json
expect_no_crash
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
c = {x["id"]: x for x in json.load(sys.stdin)["cases"]}
for k in ("H-1", "H-2", "H-3", "H-4", "H-5"):
    assert c[k]["predicted"] is None and c[k]["reason"], (k, c[k])
assert "65536" in c["H-1"]["reason"]
assert c["H-6"]["predicted"] is not None
' || fail "validate hostile rows"
expect_rc 0 validate "$TMP/cases.csv"
case "$OUT" in *inf*|*nan*) fail "validate prints inf or nan: $OUT";; esac

# config.json: a zero vocabulary is as wrong as a missing one; a huge width says its range;
# a name cut at 63 bytes inside a character keeps "name" in --json
python3 - "$TMP" <<'PY'
import json, sys
base = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
        "num_hidden_layers": 32, "num_attention_heads": 32, "intermediate_size": 11008,
        "vocab_size": 32000, "max_position_embeddings": 4096}
def write(name, **kw):
    c = dict(base, **kw)
    with open(sys.argv[1] + "/" + name, "w", encoding="utf-8") as f:
        json.dump(c, f, ensure_ascii=False)
write("vocab0.json", vocab_size=0)
write("wide.json", hidden_size=1000000000)
write("name.json", architectures=["A" * 62 + "\u00e9\u00e9"])
PY
expect_rc 2 estimate --model "$TMP/vocab0.json" --gpu a100-sxm4-80gb
expect_err "'vocab_size' must be at least 1"
expect_rc 2 estimate --model "$TMP/wide.json" --gpu a100-sxm4-80gb
expect_err "hidden size 1000000000 is not between 1 and"
expect_rc 0 estimate --model "$TMP/name.json" --gpu a100-sxm4-80gb --json
printf '%s' "$OUT" | python3 -c '
import json, sys
w = json.load(sys.stdin)["workload"]
assert w["name"] == "A" * 62, w.get("name")
' || fail "a name cut inside a character"
finish
