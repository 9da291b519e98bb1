#!/bin/bash
# plan: no owned choice whose run outlasts the service life its hardware is
# priced over (--years, default the facility's depreciation) is ranked, and
# when none is left the answer says how long the run takes against which life.
. "$TESTS/cli/lib.sh"

# Llama 3 70B on 2e12 tokens: one HGX H100 takes 6.6 years, longer than the 5-year life
expect_rc 0 plan llama3-70b --task pretrain --tokens 2e12 --gpu h100-sxm5 --servers-only --no-explain --json --all
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ranked"], "nothing ranked"
for c in d["ranked"] + d["front"]:
    assert c["hours"] <= 5 * 8766, (c["hardware"], c["nodes"], c["hours"] / 8766)
one = [c for c in d["all"] if c["nodes"] == 1]
assert one and one[0]["hours"] > 5 * 8766 and one[0]["violates"] == "life" and one[0]["rank"] == 0, one
' || fail "a run longer than the hardware's life is ranked"

# only that server: nothing is ranked, and the answer names the life and the run's length
expect_rc 1 plan llama3-70b --task pretrain --tokens 2e12 --gpu h100-sxm5 --servers-only --max-gpus 8
OUT=$(printf '%s' "$OUT" | tr -s ' \n' ' ')
expect_out "no configuration meets the hardware's service life; 1x8 hgx-h100-8 runs 6.6 years, longer than the 5-year life"
expect_out "the nearest miss is 1x8 hgx-h100-8"
# a longer life, given, admits it
expect_rc 0 plan llama3-70b --task pretrain --tokens 2e12 --gpu h100-sxm5 --servers-only --max-gpus 8 --years 7 \
	--no-explain
expect_out "1x8 hgx-h100-8"
expect_rc 1 plan llama3-70b --task pretrain --tokens 2e12 --gpu h100-sxm5 --servers-only --max-gpus 8 --years 4
OUT=$(printf '%s' "$OUT" | tr -s ' \n' ' ')
expect_out "longer than the 4-year life the hardware is priced over (--years)"
# renting has no life to outlast: a run of more than 5 years on rented H100s is ranked
expect_rc 0 plan llama3-70b --task pretrain --tokens 1e13 --gpu h100-sxm5 --buy cloud:aws --max-gpus 32 --no-explain \
	--json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["request"]["years"] is None and d["ranked"] and d["ranked"][0]["hours"] > 5 * 8766, d["ranked"]
' || fail "a rented run longer than 5 years is not ranked"
finish
