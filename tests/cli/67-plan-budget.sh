#!/bin/bash
# plan --budget caps the money a choice commits, under every objective: the
# capex when buying, the rent of the run (inference: of an hour) when renting;
# and when nothing meets it the answer says what it caps.
. "$TESTS/cli/lib.sh"

# owned: every listed choice (ranked and front) is a purchase of at most $20,000, by cost and by time
for obj in cost time; do
	expect_rc 0 plan llama3-8b --task lora --budget 20000 --objective $obj --no-explain --json
	printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ranked"], "nothing ranked"
for c in d["ranked"] + d["front"]:
    assert c["bom"]["capex_usd"] <= 20000, (c["hardware"], c["bom"]["capex_usd"])
    assert c["meets_constraints"] is True
' || fail "--budget 20000 --objective $obj lists a purchase over \$20,000"
done

# rented: the budget is the run's cost (training) or an hour's (inference)
expect_rc 0 plan llama2-13b --buy cloud:aws --objective time --budget 2000 --no-explain --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ranked"]
assert all(c["cost_usd"] <= 2000 for c in d["ranked"] + d["front"]), [c["cost_usd"] for c in d["ranked"]]
' || fail "--buy cloud --budget 2000 lists a run over \$2,000"
expect_rc 0 plan llama3-8b --task infer --rate 20 --buy cloud --budget 60 --no-explain --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ranked"]
assert all(c["cost_usd"] <= 60 for c in d["ranked"] + d["front"]), [c["cost_usd"] for c in d["ranked"]]
' || fail "--task infer --buy cloud --budget 60 lists more than \$60 an hour"

# owning or renting (the default): a rental commits what the run costs, within $1,000
expect_rc 0 plan llama3-8b --task lora --budget 1000 --no-explain --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["request"]["buy"] == "any" and d["request"]["budget_usd"] == 1000
c = d["ranked"][0]
assert c["cost_basis"] == "rented" and c["capex_usd"] is None and c["cost_usd"] <= 1000, c
for x in d["ranked"]:
    assert (x["cost_usd"] if x["cost_basis"] == "rented" else x["capex_usd"]) <= 1000, x["hardware"]
' || fail "--budget 1000 under --buy any commits more than \$1,000"
CHECKS=$((CHECKS + 1))

# nothing owned meets it: the answer names what the budget caps and the smallest purchase
expect_rc 1 plan llama3-8b --task lora --budget 1000 --buy onprem
flat=$(printf '%s' "$OUT" | tr -s ' \n' ' ')
for want in "no configuration meets the budget (\$1k to buy); the nearest miss is" "to buy)," \
	"smallest purchase overall:"; do
	CHECKS=$((CHECKS + 1))
	case "$flat" in *"$want"*) ;; *) fail "plan lacks '$want': $OUT";; esac
done
expect_rc 1 plan llama2-13b --buy cloud:aws --budget 5
OUT=$(printf '%s' "$OUT" | tr -s ' \n' ' ')
expect_out "no configuration meets the budget (\$5.00 to rent the run)"
expect_out "cheapest overall:"
finish
