#!/bin/bash
# plan: bad input gets a usage error that names the flag and suggests; a
# request nothing can meet gets an answer that says so, with the nearest miss.
. "$TESTS/cli/lib.sh"

expect_rc 2 plan --gpu rtx9090
expect_err "--gpu"
expect_err "unknown gpu 'rtx9090'"
expect_err "closest:"
expect_rc 2 plan --gpu h100,nosuchgpu
expect_err "nosuchgpu"
expect_rc 2 plan --buy cloud:awz
expect_err "did you mean 'aws'"
expect_rc 2 plan --buy rent
expect_err "any, onprem (owned), cloud or cloud:PROVIDER"
expect_rc 2 plan --objective tme
expect_err "did you mean 'time'"
expect_rc 2 plan --precision bf61
expect_err "did you mean 'bf16'"
expect_rc 2 plan --ecosystem cuad
expect_err "did you mean 'cuda'"
expect_rc 2 plan --task trian
expect_err "--task"
expect_rc 2 plan --dedline 30d
expect_err "did you mean '--deadline'"
expect_rc 2 plan --json --csv
expect_rc 2 plan llama2-7b llama2-13b
expect_err "one workload"
expect_rc 2 plan nosuchmodel
expect_err "nosuchmodel"
expect_rc 2 plan --task infer --deadline 1h
expect_err "--latency-target"
expect_rc 2 plan --rate 10
expect_err "--task infer"
expect_rc 2 plan --buy cloud --utilisation 50
expect_rc 2 plan --max-gpus 0
expect_no_crash

# a deadline no configuration meets: exit 1, the nearest miss, never an empty table
expect_rc 1 plan llama3-70b --task pretrain --tokens 15e12 --deadline 1d
expect_width 80
expect_out "no configuration meets the deadline"
expect_out "nearest miss"
expect_out "fastest overall"
case "$OUT" in *"Top "*) fail "a ranking was printed for an impossible deadline";; esac
expect_rc 1 plan llama3-70b --task pretrain --tokens 15e12 --deadline 1d --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ranked"] == [] and d["front"] == []
m = d["nearest_miss"]
assert m and m["meets_constraints"] is False and m["violates"] == "deadline"
assert m["time_to_finish_s"] > 86400 and m["miss"] > 1
' || fail "impossible deadline JSON"

# a budget below the smallest purchase or rental
expect_rc 1 plan --budget 1
expect_out "no configuration meets the budget (\$1.00 to buy or to rent the run)"
expect_out "least committed overall: 1x8 gpu-8x-b200-sxm6"
expect_rc 1 plan --buy onprem --budget 1
expect_out "no configuration meets the budget (\$1.00 to buy)"
expect_out "smallest purchase overall"
# both at once
expect_rc 1 plan --budget 1 --deadline 1m
expect_out "deadline and budget"

# nothing fits in memory at all
expect_rc 1 plan llama3-405b --max-gpus 2
expect_out "nothing fits in memory within 2 GPUs"
expect_out "per GPU"
finish
