#!/bin/bash
# tco: the worked example of docs/tco.md with every input pinned by a flag,
# the two comparisons the documentation quotes, and the JSON account checked
# term by term against its own inputs.
. "$TESTS/cli/lib.sh"

# docs/tco.md "Worked example", every figure from flags (catalog changes cannot move it)
PINNED="--server dgx-h100 --price 400000 --power-kw 10.2 --idle-kw 2 --years 5
	--utilisation 70 --electricity 0.10 --pue 1.4 --colo 184.06 --staff 2500
	--support 5 --addon 15 --residual 10 --cost-of-capital 8 --cloud p5.48xlarge
	--cloud-price 55.04 --interest 0"
# shellcheck disable=SC2086
expect_rc 0 tco $PINNED
expect_width 80
expect_no_crash
expect_out "capex       = \$400,000 + \$60,000"
expect_out "= \$460,000"
expect_out "energy      = 1 x 7.74 kW x 1.40 PUE x 8,766 h x \$0.100/kWh = \$9,499/yr"
expect_out "= \$22,529/yr"
expect_out "= \$54,528/yr"
expect_out "= \$692,639"
expect_out "= 245,448 GPU-h"
expect_out "= \$2.822/GPU-h"
expect_out "= \$6.880/GPU-h"
expect_out "= month 19.5"
expect_out "= \$996,043"
expect_out "216.5 % (43.3 %/yr)"
expect_out "= \$738,879"
expect_out "owning is cheaper from month 20 of 60"
expect_out "own above 27.83 %"
expect_out "--price"

# docs/tco.md "The cost of the capital": the same at 7.5 %/yr interest
# shellcheck disable=SC2086
expect_rc 0 tco $PINNED --interest 7.5
expect_width 80
expect_out "the capital at 7.5 %/yr"
expect_out "(\$460,000 - \$40,000 x 0.6966) x 0.6045 % / (1 - 0.6966)"
expect_out "= \$8,609/month"
expect_out "interest    = 60 x \$8,609 - (\$460,000 - \$40,000)"
expect_out "= \$96,522"
expect_out "total       = \$460,000 + 5 x \$54,528 - \$40,000 + \$96,522  = \$789,161"
expect_out "= \$3.215/GPU-h"
expect_out "owned/month = \$54,528 / 12 + \$96,522 interest / 60"
expect_out "= month 20.9"
expect_out "= \$899,521"
expect_out "= \$738,879"
expect_out "own above 31.92 %"

# the two comparisons quoted in docs/tco.md, with catalog defaults
expect_rc 0 tco --server dgx-h100 --cloud p5.48xlarge
expect_width 80
expect_out "break-even  = "
expect_out "Verdict:"
expect_rc 0 tco --server dgx-a100-320gb --cloud p4d.24xlarge
expect_width 80
expect_out "p4d.24xlarge"
expect_out "Which input flips the decision"

# every term of the JSON account follows from its inputs
check_json() {
	printf '%s' "$OUT" | python3 -c '
import json, math, sys
d = json.load(sys.stdin)
v = {k: x["value"] for k, x in d["inputs"].items()}
o = d["owned"]
H = d["hours_per_year"]
u = v["utilisation"] / 100
def near(a, b, what):
    if not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6):
        sys.exit("%s: %r != %r" % (what, a, b))
S = v["count"]; P = v["price"]; Y = v["years"]
near(o["server_capex_usd"], S * P, "server capex")
X = o["extra_capex_usd"]; XK = o["extra_kw"]
near(o["capex_usd"], S * P * (1 + v["addon"] / 100) + X, "capex")
if "bom" in d and v["addon"] == 0:
    b = d["bom"]
    near(X, b["fabric_usd"] + b["frontend"]["usd"] + b["oob"]["usd"] + b["storage_usd"] + b["cooling_usd"]
         + b["power_distribution"]["usd"] + b["installation"]["usd"], "bill")
    near(b["capex_usd"], S * P + X, "bom capex")
near(o["residual_usd"], S * P * v["residual"] / 100, "residual")
avg = v["idle-kw"] + u * (v["power-kw"] - v["idle-kw"])
near(o["avg_power_kw_per_server"], avg, "avg power")
near(o["energy_usd_per_year"], (S * avg + XK) * v["pue"] * H * v["electricity"], "energy")
if d["space_billing"] == "kw":
    near(o["space_usd_per_year"], (S * v["power-kw"] + XK) * v["colo"] * 12, "space")
bill = "bom" in d and v["addon"] == 0
if bill and d["inputs"]["staff"]["from"] != "--staff":
    # a bill staffs by cluster size: GPUs / GPUs an engineer x an engineer-year
    st = d["bom"]["staff"]
    near(o["staff_usd_per_year"], d["bom"]["gpus"] / st["gpus_per_engineer"]["value"]
         * st["usd_per_engineer_year"]["value"], "staff")
else:
    near(o["staff_usd_per_year"], o["racks"] * v["staff"], "staff")
if "bom" in d and v["addon"] == 0:
    near(o["racks"], S / d["bom"]["nodes_per_rack"], "racks")
near(o["support_usd_per_year"], (S * P + X) * v["support"] / 100 + (d["bom"]["licence"]["usd"] if bill else 0),
     "support")
opex = o["energy_usd_per_year"] + o["space_usd_per_year"] + o["staff_usd_per_year"] + o["support_usd_per_year"]
near(o["opex_usd_per_year"], opex, "opex")
# the capital recovery of docs/tco.md at --interest
C, R, n = o["capex_usd"], o["residual_usd"], Y * 12
rm = (1 + v["interest"] / 100) ** (1 / 12) - 1
A = (C - R * (1 + rm) ** -n) * rm / (1 - (1 + rm) ** -n) if rm > 0 else (C - R) / n
near(o["capital_usd_per_month"], A, "capital payment")
near(o["interest_usd"], n * A - (C - R), "interest")
total = o["capex_usd"] + Y * opex - o["residual_usd"] + o["interest_usd"]
near(o["total_usd"], total, "total")
near(o["owned_usd_per_month"], opex / 12 + o["interest_usd"] / n, "owned per month")
gh = S * d["gpus_per_server"] * Y * H * u
near(o["gpu_hours_used"], gh, "gpu-hours")
near(o["usd_per_gpu_hour"], total / gh, "usd/gpu-h")
near(o["usd_per_pflop_hour"], total / gh / (d["peak_tflops_per_gpu"] / 1000), "usd/pflop-h")
if "cloud" in d:
    c = d["cloud"]
    rate = v["cloud-price"] / c["gpus_per_instance"] * (1 - v["reserved"] / 100)
    near(c["usd_per_gpu_hour"], rate, "cloud rate")
    if c["pricing"] == "on-demand":
        near(c["total_usd"], gh * rate, "cloud total")
    near(d["savings_usd"], c["total_usd"] - total, "savings")
    gain = c["total_usd"] / (Y * 12) - o["owned_usd_per_month"]
    if gain > 0:
        near(d["breakeven_month"], o["capex_usd"] / gain, "break-even")
    else:
        assert d["breakeven_month"] is None
    for k, f in d["flips"].items():
        assert f["value"] is None or f["own_when"] in ("above", "below"), k
    assert len(d["sensitivity"]) == 25
assert len(d["arithmetic"]) >= (22 if "cloud" in d else 13), len(d["arithmetic"])
print(d["verdict"])
' || fail "json account of: $*"
}
for args in "--server dgx-h100 --cloud p5.48xlarge" "--server dgx-h100 --cloud p5.48xlarge --interest 0" "--server dgx-a100-320gb --cloud p4d.24xlarge" \
	"--server hgx-h100-8 --count 4 --reserved 35" "--server hgx-h100-8 --count 4 --staff 5000" \
	"--server dgx-b200 --no-cloud" \
	"--server dgx-h100 --rack-unit-space --utilisation 35 --electricity 0.2" \
	"--gpu h100-sxm5-80gb --gpus 4" "--gpu l40s --gpus 4 --years 4"; do
	# shellcheck disable=SC2086
	expect_rc 0 tco $args --json
	expect_json
	check_json $args
done

# no --cloud: the cheapest instance with the same GPU and count, said so
expect_rc 0 tco --server dgx-h100
expect_out "no --cloud given: comparing with"
expect_width 80
# reserved pays every hour
expect_rc 0 tco --server dgx-h100 --cloud p5.48xlarge --reserved 40
expect_out "reserved"
expect_out "inst x 8 GPUs"
# no comparison
expect_rc 0 tco --server dgx-h100 --no-cloud
expect_out "no cloud comparison"
case "$OUT" in *break-even*) fail "--no-cloud still compares";; esac
# a generic build says where its host share comes from
expect_rc 0 tco --gpu h100-sxm5-80gb --gpus 4
expect_out "host share per GPU"
expect_width 80
# the per-PFLOP figure follows --precision
expect_rc 0 tco --server dgx-h100 --precision fp8 --no-cloud
expect_out "fp8 dense peak"
# the flag table makes --help
expect_rc 0 tco --help
expect_width 80
expect_out "--electricity"
expect_out "--report FILE"
# a part past its end of sale and a price dated over 36 months ago are said on stderr; the answer stands
expect_rc 0 tco --server dgx-a100
expect_err "dgx-a100-320gb: end of sale 2023-03"
expect_err "dgx-a100-320gb: its price is from 2020-05, over 36 months old"
expect_rc 0 tco --server dgx-a100 --price 150000
case "$ERR" in *"over 36 months old"*) fail "--price given, yet the stale catalog price is warned of";; esac
finish
