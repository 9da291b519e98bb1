#!/bin/bash
# plan -> estimate through the real command line: the first choice of a
# plan, run as `gpuscope estimate` with the arguments plan prints for it
# (estimate_args, read by a POSIX shell as a user pastes it), gives the same
# step time and the same memory, and fits.  The first choice is a
# multi-node one on cloud instances, so the line carries --network and an
# interleaved pipeline; the others name the workload as it was given: a
# preset with its dimensions changed, a model given by dimensions alone, and
# a config.json whose path holds a space and a quote.
# unit/test_plan_roundtrip checks every listed choice of many plans, and
# every GPU, the same way in process.
. "$TESTS/cli/lib.sh"

# roundtrip WANT_IN_ARGS PLAN_ARGS...: plan's first choice, estimated again
roundtrip() {
	local want=$1 args step mem
	shift
	expect_rc 0 plan "$@" --top 1 --json --no-explain
	printf '%s' "$OUT" | python3 -c '
import json, sys
c = json.load(sys.stdin)["ranked"][0]
print(c["estimate_args"] + "\t%.17g\t%.17g" % (c["step_s"], c["memory_total_bytes"]))
' >"$TMP/args" || { fail "plan $*: no JSON with a ranked choice"; return; }
	IFS=$'\t' read -r args step mem <"$TMP/args"
	case "$args" in *"$want"*) ;; *) fail "plan $*: the estimate line lacks '$want': $args";; esac
	eval "set -- $args"
	expect_rc 0 estimate "$@" --json
	printf '%s' "$OUT" | python3 -c '
import json, sys
e = json.load(sys.stdin)
step, mem = float(sys.argv[1]), float(sys.argv[2])
assert abs(e["time"]["step_s"] - step) <= 1e-9 * step, (e["time"]["step_s"], step)
assert abs(e["memory"]["total_bytes"] - mem) <= 1e-9 * mem, (e["memory"]["total_bytes"], mem)
assert e["memory"]["fits"] is True
assert e["memory"]["host_fits"] in (None, True)
' "$step" "$mem" || fail "estimate $args disagrees with plan"
}

roundtrip "--network " llama2-13b --buy cloud --objective time --max-gpus 256
# only the dimensions that differ from the preset are repeated
roundtrip "--model llama3-8b --layers 24 --hidden 1024 --gpu" \
	--model llama3-8b --layers 24 --hidden 1024 --max-gpus 8 --tokens 1e9
roundtrip "--layers 12 --hidden 768 --heads 12 --kv-heads 12 --ffn-hidden 3072 --vocab 50257 --gpu" \
	--layers 12 --hidden 768 --heads 12 --vocab 50257 --max-gpus 8 --tokens 1e9
mkdir -p "$TMP/it's mine" && cp "$SRCDIR/tests/fuzz/corpus/hfconfig/mixtral.json" "$TMP/it's mine/"
roundtrip "--model '" --model "$TMP/it's mine/mixtral.json" --max-gpus 64 --tokens 1e9
finish
