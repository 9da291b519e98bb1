#!/bin/bash
# plan --have N x SERVER: the servers owned enter at zero capex and their
# running cost, and plan says what to add (nothing, more of the same, other
# hardware beside them, rent beside them) in the table, the JSON and the report.
. "$TESTS/cli/lib.sh"

args=(--model llama3-8b --task pretrain --tokens 1e12 --deadline 30d --no-explain)

# "4x dgx-a100" in two arguments is one value; alone the owned servers miss the 30-day deadline
expect_rc 0 plan --have 4x dgx-a100 "${args[@]}"
expect_out "What to add to the servers you own"
expect_out "4x dgx-a100-320gb (eos) owned:"
expect_out "later than the deadline; the cheapest way within the limits: add"
expect_width 80

expect_rc 0 plan --have 4x dgx-a100 "${args[@]}" --json --report "$TMP/r.html"
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
h = d["have"]
assert h["fleet"] == [{"count": 4, "server": "dgx-a100-320gb"}], h["fleet"]
o = {x["kind"]: x for x in h["options"]}
assert list(o) == ["nothing", "same", "other", "rent"], list(o)
n = o["nothing"]
# alone: 32 GPUs at the running cost a GPU-hour, nothing bought, later than 30 days
assert n["capex_usd"] == 0 and n["owned_work_share"] == 1
assert abs(n["cost_usd"] - h["owned_usd_per_gpu_hour"] * 32 * n["time_s"] / 3600) < 1e-6 * n["cost_usd"]
assert n["time_s"] > 30 * 86400 and n["within_limits"] is False
# keeping them: a few hundred thousand dollars a year, well under a dollar a GPU-hour worked
assert 50e3 < h["owned_usd_per_year"] < 500e3, h["owned_usd_per_year"]
assert 0.2 < h["owned_usd_per_gpu_hour"] < 2, h["owned_usd_per_gpu_hour"]
# beside the owned pool: the times add as rates, the shares follow
for k in ("other", "rent"):
    x = o[k]
    assert x["found"], k
    assert abs(86400 / x["time_s"] - (86400 / n["time_s"] + 86400 / x["added_alone_s"])) < 1e-6, k
    assert abs(x["owned_work_share"] - x["time_s"] / n["time_s"]) < 1e-9, k
    assert abs(x["cost_usd"] - x["owned_usd"] - x["added_usd"]) < 1e-6 * x["cost_usd"], k
assert o["rent"]["capex_usd"] == 0
assert o["same"]["hardware"].endswith("dgx-a100-320gb (eos)"), o["same"]["hardware"]
best = h["best"]
assert best in o and o[best]["within_limits"], best
assert all(o[best]["cost_usd"] <= x["cost_usd"] for x in o.values() if x["within_limits"])
' || fail "--have 4x dgx-a100 --json: the owned-fleet figures do not add up"
grep -q "What to add to the servers you own" "$TMP/r.html" || fail "the report has no what-to-add section"
grep -q "<td>rent</td>" "$TMP/r.html" || fail "the report's what-to-add table has no rent row"

# @FILE: one "N x SERVER" a line, comments and blank lines skipped; the same fleet as the flag
printf '# the lab\n2x dgx-a100\n\n2 x dgx-a100  # second rack\n' >"$TMP/fleet"
expect_rc 0 plan --have "@$TMP/fleet" "${args[@]}" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
assert json.load(sys.stdin)["have"]["fleet"] == [{"count": 4, "server": "dgx-a100-320gb"}]
' || fail "--have @FILE does not add up the lines"

# bad input: file:line:column, or the value and its column
printf '2x dgx-a100\n3y dgx-h100\n' >"$TMP/bad"
expect_rc 2 plan --have "@$TMP/bad" "${args[@]}"
expect_err "$TMP/bad:2:2: field 'have': expected 'x' or a space after the count"
expect_rc 2 plan --have "4x no-such-server" "${args[@]}"
expect_err "--have: field 'have': '4x no-such-server', column 4:"
expect_rc 2 plan --have 4x dgx-a100 --task infer --model llama3-8b
expect_err "it does not apply to --task infer"
expect_rc 2 plan --have 4x dgx-a100 --buy cloud "${args[@]}"
expect_err "it does not apply to --buy cloud"
# the help fits 80 columns, --have included; the request JSON carries the serving targets
expect_rc 0 plan --help
expect_width 80
expect_out "--have N x SERVER"
expect_rc 0 plan llama3-8b --task infer --gpu h100-sxm5 --ttft-target 200ms --tpot-target 50ms --top 1 \
	--no-explain --json
printf '%s' "$OUT" | python3 -c '
import json, sys
r = json.load(sys.stdin)["request"]
assert abs(r["ttft_target_s"] - 0.2) < 1e-12 and abs(r["tpot_target_s"] - 0.05) < 1e-12, r
' || fail "the request JSON lacks the TTFT and TPOT targets"
expect_no_crash
finish
