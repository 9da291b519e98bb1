#!/bin/bash
# estimate --rate: the configuration's replicas as queues (M/M/c over each
# replica's batch slots, Erlang C): how many are needed, or whether the given
# ones keep up; their utilisation; the p99 TTFT with the wait for a slot.
. "$TESTS/cli/lib.sh"

# p99 TTFT of the rate view, recomputed from the serving figures of the same run
erlang_check='
import json, math, sys
d = json.load(sys.stdin)
q, s = d["rate"], d.get("serving") or {}
slots = s["concurrency"] if s else d["config"]["batch"]
hold = s["request_s"] if s else d["inference"]["request_s"]
first = s["ttft_s"] if s else d["inference"]["first_token_s"]
def erlang_c(c, a):
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    return b / (1 - a / c * (1 - b))
lam = q["rate_per_s"] / q["replicas"]
assert q["slots"] == slots, (q, slots)
assert abs(q["capacity_per_s"] - q["replicas"] * slots / hold) < 1e-8 * q["capacity_per_s"], q
assert abs(q["utilisation"] - lam * hold / slots) < 1e-8, q
pw = erlang_c(slots, lam * hold)
wait = math.log(pw / 0.01) / (slots / hold - lam) if pw > 0.01 else 0
# the JSON carries 10 significant digits, and near saturation the wait is as
# ill-conditioned as 1 / (1 - utilisation): the tolerance grows with it
tol = 1e-8 / max(1 - q["utilisation"], 1e-3)
assert abs(q["wait_p99_s"] - wait) <= tol * max(wait, 1), (q["wait_p99_s"], wait)
assert abs(q["ttft_p99_s"] - first - wait) <= tol * max(q["ttft_p99_s"], 1), q
'
M=(--model llama3-8b --task infer --gpu h100-sxm5-80gb)

# replicas sized to the rate: the fewest that carry it, stable, below full
expect_rc 0 estimate "${M[@]}" --rate 30 --json
expect_json
printf '%s' "$OUT" | python3 -c "$erlang_check" || fail "rate view disagrees with Erlang C"
printf '%s' "$OUT" | python3 -c '
import json, sys
q = json.load(sys.stdin)["rate"]
assert q["replicas_given"] is False and q["utilisation"] < 1, q
per = q["capacity_per_s"] / q["replicas"]
assert (q["replicas"] - 1) * per <= 30, q      # one fewer would not carry it
' || fail "replicas not the fewest that carry the rate"

# a TTFT target adds replicas until the p99 (queueing included) meets it
expect_rc 0 estimate "${M[@]}" --rate 30 --ttft-target 300ms --json
printf '%s' "$OUT" | python3 -c "$erlang_check" || fail "rate view with a target disagrees with Erlang C"
printf '%s' "$OUT" | python3 -c '
import json, sys
q = json.load(sys.stdin)["rate"]
assert q["ttft_p99_s"] <= 0.3 and q["meets_ttft_target"] is True and q["ttft_target_s"] == 0.3, q
' || fail "p99 TTFT past its target"
expect_rc 0 estimate "${M[@]}" --rate 30 --ttft-target 300ms
expect_out "at 30 requests/s"
expect_out "replicas needed"
expect_out "utilisation"
expect_out "p99 time to first token"
expect_out "(target 300.0 ms)"

# given replicas (--gpus): whether they keep up, and the queue they make
expect_rc 0 estimate "${M[@]}" --gpus 2 --rate 3 --json
printf '%s' "$OUT" | python3 -c "$erlang_check" || fail "given replicas disagree with Erlang C"
printf '%s' "$OUT" | python3 -c '
import json, sys
q = json.load(sys.stdin)["rate"]
assert q["replicas_given"] is True and q["replicas"] == 2, q
' || fail "given replicas not kept"
expect_rc 0 estimate "${M[@]}" --gpus 2 --rate 3
expect_out "replicas (given)"
expect_out "keep up"
expect_rc 2 estimate "${M[@]}" --gpus 2 --rate 300
expect_err "--rate 300: cannot: capacity is"
expect_err "req/s"

# a static batch (no serving engine) queues the same way
expect_rc 0 estimate "${M[@]}" --engine eager --batch 8 --rate 5 --json
printf '%s' "$OUT" | python3 -c "$erlang_check" || fail "static batch rate view disagrees with Erlang C"

# plan and estimate size replicas with the same queue: a plan's replica at its share of the rate
# (the static-batch model's queue; the simulated sizing has tests/cli/69)
expect_rc 0 plan llama3-8b --task infer --gpu h100-sxm5-80gb --rate 30 --ttft-target 1s --engine static --json
printf '%s' "$OUT" | python3 -c '
import json, os, subprocess, sys
c = json.load(sys.stdin)["ranked"][0]
args = c["estimate_args"].split() + ["--rate", repr(30.0 / c["replicas"]), "--json"]
e = json.loads(subprocess.run([os.environ["GPUSCOPE"], "estimate"] + args, capture_output=True,
                              text=True).stdout)["rate"]
assert e["replicas"] == 1, e
assert abs(e["ttft_p99_s"] - c["ttft_p99_s"]) <= 1e-8 * c["ttft_p99_s"], (e, c["ttft_p99_s"])
assert abs(e["utilisation"] - c["utilisation"]) <= 1e-8, (e, c["utilisation"])
' || fail "plan and estimate --rate disagree"

# bad values name the flag and the value
expect_rc 2 estimate "${M[@]}" --rate -1
expect_err "'--rate' must be more than 0, got -1"
expect_rc 2 estimate "${M[@]}" --rate 0
expect_err "'--rate' must be more than 0, got 0"
expect_rc 2 estimate "${M[@]}" --rate fast
expect_err "'--rate' expects a number, got 'fast'"
expect_rc 2 estimate "${M[@]}" --rate
expect_no_crash
expect_rc 2 estimate --model llama3-8b --gpu h100-sxm5-80gb --rate 3
expect_err "--rate 3: a request rate applies to --task infer"
expect_rc 2 estimate --model llama3-70b --task infer --gpu h100-sxm5-80gb --rate 1
expect_err "--rate 1: cannot: the configuration does not fit"
expect_rc 2 estimate "${M[@]}" --rate 1e8
expect_err "more than 1,000,000"
finish
