#!/bin/bash
# plan -> estimate through the real command line: the first choice of a
# plan, run as `gpuscope estimate` with the arguments plan prints for it
# (estimate_args), gives the same step time and the same memory, and fits.
# The choice is a multi-node one on cloud instances, so the line carries
# --network and an interleaved pipeline.  unit/test_plan_roundtrip checks
# every listed choice of many plans, and every GPU, the same way in process.
. "$TESTS/cli/lib.sh"

expect_rc 0 plan llama2-13b --buy cloud --objective time --max-gpus 256 --top 1 --json --no-explain
printf '%s' "$OUT" | python3 -c '
import json, sys
c = json.load(sys.stdin)["ranked"][0]
print(c["estimate_args"] + "\t%.17g\t%.17g" % (c["step_s"], c["memory_total_bytes"]))
' >"$TMP/args" || fail "plan: no JSON with a ranked choice"
IFS=$'\t' read -r args step mem <"$TMP/args"
case "$args" in *"--network "*) ;; *) fail "the first choice is not on several nodes: $args";; esac
# shellcheck disable=SC2086
expect_rc 0 estimate $args --json
printf '%s' "$OUT" | python3 -c '
import json, sys
e = json.load(sys.stdin)
step, mem = float(sys.argv[1]), float(sys.argv[2])
assert abs(e["time"]["step_s"] - step) <= 1e-9 * step, (e["time"]["step_s"], step)
assert abs(e["memory"]["total_bytes"] - mem) <= 1e-9 * mem, (e["memory"]["total_bytes"], mem)
assert e["memory"]["fits"] is True
assert e["memory"]["host_fits"] in (None, True)
' "$step" "$mem" || fail "estimate $args disagrees with plan"
finish
