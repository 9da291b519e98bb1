#!/bin/bash
# plan says, for its first choice, what the run costs on the same GPUs rented
# on demand and owned, the capital owning commits, and the utilisation (and
# runs a year) above which owning costs less; the text's figures are the
# JSON's.
. "$TESTS/cli/lib.sh"

# the headline plan: a 72-minute fine-tune ranked on a $431k server
expect_rc 0 plan
printf '%s' "$OUT" >"$TMP/plan.txt"
expect_rc 0 plan --json
printf '%s' "$OUT" >"$TMP/plan.json"
CHECKS=$((CHECKS + 1))
python3 - "$TMP/plan.txt" "$TMP/plan.json" <<'PY' || fail "the rent-or-buy text and JSON disagree"
import json, re, sys
text = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
ex, c = d["explanation"], d["ranked"][0]
# the paragraph after "rent or buy", unwrapped
m = re.search(r"\n  rent or buy  (.*?)\n  [a-z]", text, re.S)
assert m, "no rent or buy line"
line = " ".join(m.group(1).split())
assert line == ex["rent_or_buy"], (line, ex["rent_or_buy"])
assert "runs like this one a year" in line and "for this run alone, rent" in line, line

def money(s):
    v = float(s.lstrip("$").rstrip("kMG"))
    return v * {"k": 1e3, "M": 1e6, "G": 1e9}.get(s[-1], 1)
figures = [money(x) for x in re.findall(r"\$[0-9.]+[kMG]?", line)]
want = [ex["rent_usd"], ex["rent_usd_per_gpu_hour"], ex["own_usd"], ex["own_capex_usd"]]
assert len(figures) == 4, figures
for got, w in zip(figures, want):
    # "$6.69", "$28", "$431k": cents below $10, whole dollars below $1k, then three figures
    assert abs(got - w) <= max(0.005 if w < 9.995 else 0.5, 0.005 * w), (figures, want)
pct = [float(x) for x in re.findall(r"([0-9.]+)% utilisation", line)]
assert pct == [round(ex["own_utilisation_pct"]), round(ex["breakeven_utilisation_pct"])], (pct, ex)
runs = re.search(r"with ([0-9,.]+) runs like this one a year", line).group(1)
assert abs(float(runs.replace(",", "")) - ex["breakeven_jobs_per_year"]) <= 0.5, (runs, ex)
assert "over the %g-year life" % d["request"]["years"] in line

# the same numbers as the ranking: the run owned, the bill, and the rate rented
assert ex["own_usd"] == c["cost_usd"] and ex["own_capex_usd"] == c["bom"]["capex_usd"], (ex, c)
paid = c["nodes"] * c["gpus_per_node"] + c["spare_gpus"]
assert abs(ex["rent_usd"] - ex["rent_usd_per_gpu_hour"] * paid * c["hours"]) <= 1e-9 * ex["rent_usd"]
assert ex["rent_usd"] > ex["own_usd"] and ex["own_capex_usd"] > 100 * ex["rent_usd"]
# runs a year at the break-even: its busy hours over the run's
assert abs(ex["breakeven_jobs_per_year"] * c["hours"] - ex["breakeven_hours_per_year"]) < 1e-6
assert abs(ex["breakeven_hours_per_year"] - ex["breakeven_utilisation_pct"] / 100 * 8766) < 1e-6
assert 0 < ex["breakeven_utilisation_pct"] < ex["own_utilisation_pct"]
assert ex["breakeven_jobs_per_year"] * d["request"]["years"] > 1  # this run alone does not pay
PY

# inference: hours of serving a year, no runs; a GPU no instance rents says so
expect_rc 0 plan llama2-7b --task infer --rate 5 --buy cloud --json
printf '%s' "$OUT" | python3 -c '
import json, sys
ex = json.load(sys.stdin)["explanation"]
assert ex["breakeven_jobs_per_year"] is None and ex["breakeven_hours_per_year"] > 0, ex
assert "hours a year" in ex["rent_or_buy"] and "an hour rented on demand" in ex["rent_or_buy"], ex["rent_or_buy"]
assert "owned as a generic build" in ex["rent_or_buy"], ex["rent_or_buy"]
' || fail "inference rent or buy"
expect_rc 0 plan --gpu gaudi3 --json
printf '%s' "$OUT" | python3 -c '
import json, sys
ex = json.load(sys.stdin)["explanation"]
assert ex["rent_instance"] is None and ex["rent_usd"] is None and ex["own_capex_usd"] > 0, ex
assert ex["rent_or_buy"].startswith("no catalog instance rents gaudi3"), ex["rent_or_buy"]
' || fail "a GPU no instance rents"
finish
