#!/bin/bash
# plan --task infer: small models may take a MIG slice (the recommender-on-MIG
# case), the GNN example answers within its latency target, and the
# estimate line a plan prints reproduces it (a simulated serving choice's
# p99 TTFT and TPOT to the digit).
. "$TESTS/cli/lib.sh"

expect_rc 0 plan dlrm --task infer --rate 20000 --latency-target 10ms --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = json.dumps(d)
assert "mig" in s, "no MIG slice among the choices"
' || fail "dlrm plan has no MIG choice"
expect_rc 0 plan dlrm --task infer --rate 20000 --latency-target 10ms
expect_out "1g."
expect_out "--mig 1"
expect_rc 0 plan gnn --task infer --rate 2000 --latency-target 5ms
expect_out "Why #1"

# TTFT and TPOT targets bound the batch of every replica (simulated under vLLM, the default); the
# heading says them.  The estimate line of a simulated choice reruns the simulation plan judged it
# on: one replica fed its share of the rate (--arrivals poisson:RATE, the same requests, lengths,
# seed and engine release, no static --batch), so estimate gives the plan's p99 TTFT and TPOT
# (the same double: both print it to 10 digits), and both are within the targets
expect_rc 0 plan llama3-8b --task infer --rate 20 --ttft-target 500ms --tpot-target 30ms --json
printf '%s' "$OUT" | python3 -c '
import json, sys, subprocess, os
d = json.load(sys.stdin)
assert len(d["ranked"]) >= 3, d["ranked"]
for c in d["ranked"][:3]:
    assert 0 < c["ttft_p99_s"] <= 0.5 + 1e-9 and 0 < c["tpot_s"] <= 0.03 + 1e-9, c
    args = c["estimate_args"].split()
    assert "--batch" not in args, args
    assert args[args.index("--arrivals") + 1] == "poisson:%.17g" % (20.0 / c["replicas"]), args
    for f in ("--requests", "--seed", "--lengths", "--engine-version"):
        assert f in args, (f, args)
    e = json.loads(subprocess.run([os.environ["GPUSCOPE"], "estimate"] + args + ["--json"],
                   capture_output=True, text=True).stdout)["simulation"]
    for mine, theirs in (("ttft_p99_s", "ttft_p99_s"), ("tpot_s", "tpot_p99_s")):
        assert abs(e[theirs] - c[mine]) <= 1e-6 * c[mine], (mine, c[mine], e[theirs])
    assert e["ttft_p99_s"] <= 0.5 and e["tpot_p99_s"] <= 0.03, e
' || fail "plan TTFT/TPOT targets not met, or its estimate line does not reproduce them"
expect_rc 0 plan llama3-8b --task infer --rate 20 --ttft-target 500ms --tpot-target 30ms
expect_out "TTFT 500ms, TPOT 30ms"

# at a rate, the p99 TTFT waits for a free slot (Erlang C over a replica's batch
# slots, each held a request's life): the replicas keep that wait within the target
# (the static-batch model, --engine static; a decoder is otherwise sized by simulating vLLM)
expect_rc 0 plan llama3-8b --task infer --gpu h100-sxm5-80gb --rate 30 --ttft-target 1s --engine static --json
printf '%s' "$OUT" >"$TMP/rate30.json"
printf '%s' "$OUT" | python3 -c '
import json, math, os, subprocess, sys
d = json.load(sys.stdin)
def erlang_c(c, a):
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    return b / (1 - a / c * (1 - b))
for c in d["ranked"][:3]:
    args = c["estimate_args"].split()
    e = json.loads(subprocess.run([os.environ["GPUSCOPE"], "estimate"] + args + ["--json"],
                   capture_output=True, text=True).stdout)["inference"]
    slots, hold, lam = int(args[args.index("--batch") + 1]), e["request_s"], 30.0 / c["replicas"]
    assert lam * hold < slots, ("saturated", c["replicas"], slots, hold)
    pw = erlang_c(slots, lam * hold)
    wait = math.log(pw / 0.01) / (slots / hold - lam) if pw > 0.01 else 0
    assert e["first_token_s"] + wait <= 1.0 + 1e-6, (c["replicas"], slots, e["first_token_s"], wait)
' || fail "plan replicas leave the p99 TTFT past its target"
expect_rc 2 plan llama3-8b --ttft-target 500ms
expect_err "need --task infer"
# the p99 TTFT, TPOT and utilisation of each choice: in --json (the plan above), and in the
# "size" line of Why #1
OUT=$(cat "$TMP/rate30.json")
printf '%s' "$OUT" | python3 -c '
import json, os, subprocess, sys
d = json.load(sys.stdin)
for c in d["ranked"]:
    args = c["estimate_args"].split()
    e = json.loads(subprocess.run([os.environ["GPUSCOPE"], "estimate"] + args + ["--json"],
                   capture_output=True, text=True).stdout)["inference"]
    slots, hold = int(args[args.index("--batch") + 1]), e["request_s"]
    assert e["first_token_s"] <= c["ttft_p99_s"] <= 1.0 + 1e-9, c
    assert abs(c["tpot_s"] - e["token_s"]) <= 1e-8 * e["token_s"], (c["tpot_s"], e["token_s"])
    assert abs(c["utilisation"] - 30.0 / c["replicas"] * hold / slots) <= 1e-8, c
s = d["explanation"]["sizing"]
for w in ("p99 TTFT", "target 1.00 s", "TPOT", "of their capacity", "requests at once"):
    assert w in s, (w, s)
' || fail "plan p99 TTFT, TPOT or utilisation"
expect_rc 0 plan llama3-8b --task infer --gpu h100-sxm5-80gb --rate 30 --ttft-target 1s --engine static
expect_width 80
sizeline=$(printf '%s\n' "$OUT" | sed -n '/^  size /,/^  buy /p' | tr -s ' \n' ' ')
CHECKS=$((CHECKS + 1))
case "$sizeline" in
*"p99 TTFT of "*"with queueing (target 1.00 s), a TPOT of "*"(no target)"*) ;;
*) fail "size line lacks the TTFT and TPOT against their targets: $sizeline";;
esac
case "$sizeline" in *"% of their capacity"*) ;; *) fail "size line lacks the utilisation: $sizeline";; esac
case "$sizeline" in *"no --latency-target"*) fail "size line says the targets were absent: $sizeline";; esac
# a model served without tokens: no TTFT, the utilisation still said
expect_rc 0 plan gnn --task infer --rate 2000 --latency-target 5ms --json
printf '%s' "$OUT" | python3 -c '
import json, sys
c = json.load(sys.stdin)["ranked"][0]
assert c["ttft_p99_s"] is None and c["tpot_s"] is None and 0 < c["utilisation"] < 1, c
' || fail "per-sample model with a TTFT"
finish
