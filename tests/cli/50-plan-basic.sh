#!/bin/bash
# plan: the headline plan with no arguments, its sections, the objectives,
# renting, a deadline that can be met, and results that do not depend on
# the number of threads.
. "$TESTS/cli/lib.sh"

expect_rc 0 plan
expect_width 80
expect_no_crash
expect_out "llama2-7b"
expect_out "full fine-tune on 1G tokens"
expect_out "Top 10 by cost"
expect_out "Pareto front, time against cost"
expect_out "Why #1:"
expect_out "architecture"
expect_out "Alternatives"
# no progress bar when stderr is not a terminal, and nothing else on stderr
CHECKS=$((CHECKS + 1))
[ -z "$ERR" ] || fail "stderr is not empty: $ERR"

# optimisations the first choice could turn on (FP8 on Hopper)
expect_rc 0 plan --gpu h100-sxm5-80gb
expect_out "Optimisations to turn on"
expect_out "--precision fp8"

# on a terminal, stderr shows a progress bar (and it is cleared at the end)
if command -v script >/dev/null 2>&1; then
	CHECKS=$((CHECKS + 1))
	script -qec "'$GPUSCOPE' plan --max-gpus 1024 >/dev/null" /dev/null >"$TMP/tty.out" 2>&1 ||
		fail "plan on a terminal exited $?"
	grep -q "searching \[" "$TMP/tty.out" || fail "no progress bar on a terminal"
fi

# the JSON answer is the same on 1 and 2 threads (timing fields aside), and
# --objective cost is the default's
strip() { python3 -c 'import json,sys; d=json.load(sys.stdin); d.pop("search"); print(json.dumps(d, sort_keys=True))'; }
expect_rc 0 plan --json --threads 1
printf '%s' "$OUT" | strip >"$TMP/t1.json" || fail "--threads 1 JSON"
expect_rc 0 plan --objective cost --json --threads 2
printf '%s' "$OUT" >"$TMP/cost.json"
printf '%s' "$OUT" | strip >"$TMP/t2.json" || fail "--threads 2 JSON"
CHECKS=$((CHECKS + 1))
cmp -s "$TMP/t1.json" "$TMP/t2.json" || fail "--threads 1 and 2 give different answers"

# objectives rank by what they say (cost: the run above)
for obj in time cost energy balanced; do
	if [ $obj = cost ]; then
		OUT=$(cat "$TMP/cost.json")
	else
		expect_rc 0 plan --objective $obj --json
	fi
	expect_json
	printf '%s' "$OUT" | python3 -c '
import json, sys
obj = sys.argv[1]
d = json.load(sys.stdin)
r = d["ranked"]
assert len(r) == 10, len(r)
key = {"time": lambda c: c["time_to_finish_s"], "cost": lambda c: c["cost_usd"],
       "energy": lambda c: c["energy_kwh"],
       "balanced": lambda c: c["time_to_finish_s"] * c["cost_usd"]}[obj]
# by cost a bigger purchase (several nodes, or a rack of more than 8 GPUs) at 3x the capex or more
# may be kept below the first server (docs/plan.md, "A bigger purchase must pay for itself")
big = lambda c: (obj == "cost" and (c["nodes"] > 1 or c["gpus_per_node"] + c["spare_gpus"] // c["nodes"] > 8)
                 and c["bom"]["capex_usd"] >= 3 * r[0]["bom"]["capex_usd"])
v = [key(c) for c in r if not big(c)]
assert v == sorted(v), v
assert abs(r[0]["score"] - v[0]) <= 1e-9 * v[0], (r[0]["score"], v[0])
assert len({c["gpu"] for c in r}) == len(r), "a GPU type twice"
' $obj || fail "--objective $obj order"
done

# renting: only cloud instances, on-demand prices x hours
expect_rc 0 plan --buy cloud:aws --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["request"]["buy"] == "cloud" and d["request"]["provider"] == "aws"
assert d["ranked"]
for c in d["ranked"]:
    assert c["hardware_kind"] == "cloud", c["hardware"]
    assert c["cost_basis"] == "rented"
    want = c["usd_per_gpu_hour"] * c["nodes"] * c["gpus_per_node"] * c["hours"]
    assert abs(c["cost_usd"] - want) <= 1e-9 * want, (c["cost_usd"], want)
' || fail "--buy cloud:aws"
expect_rc 0 plan --buy cloud
expect_width 80

# a deadline that can be met: every ranked choice meets it
expect_rc 0 plan llama3-70b --task pretrain --tokens 15e12 --fp8 --deadline 60d --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ranked"], "nothing ranked"
for c in d["ranked"] + d["front"]:
    assert c["time_to_finish_s"] <= 60 * 86400, c["time_to_finish_s"]
    assert c["meets_constraints"] is True
assert any(c["precision"] == "fp8" for c in d["ranked"])
' || fail "--deadline 60d"

# GPU filters: a family name stands for all its members
expect_rc 0 plan --gpu a100 --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ranked"] and all(c["gpu"].startswith("a100") for c in d["ranked"])
assert len(d["request"]["gpus"]) >= 3
' || fail "--gpu a100"
expect_rc 0 plan --ecosystem rocm --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ranked"] and all(c["gpu"].startswith("mi") for c in d["ranked"])
' || fail "--ecosystem rocm"
finish
