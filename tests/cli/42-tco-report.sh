#!/bin/bash
# tco --report: one self-contained HTML page whose charts hold the account's data.
. "$TESTS/cli/lib.sh"

R="$TMP/tco.html"
expect_rc 0 tco --server dgx-h100 --cloud p5.48xlarge --report "$R" --json
expect_json
printf '%s' "$OUT" > "$TMP/tco.json"
[ -s "$R" ] || fail "no report written"
[ ! -e "$R.tmp" ] || fail "temporary file left"
python3 - "$R" "$TMP/tco.json" <<'PY' || fail "report content"
import json, re, sys
from html.parser import HTMLParser
page = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.svgs, self.svg = {}, None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "link", "img", "iframe") or "src" in a or "href" in a:
            sys.exit("page loads something: <%s %s>" % (tag, a))
        if tag == "svg":
            assert "chart" in a["class"].split(), a
            self.svg = a["id"]
            self.svgs[self.svg] = {"attrs": a, "points": [], "marks": [], "segments": []}
        elif self.svg and tag == "circle" and "point" in a.get("class", "").split():
            self.svgs[self.svg]["points"].append((a["data-series"], float(a["data-x"]), float(a["data-y"])))
        elif self.svg and tag == "g" and a.get("class") == "mark":
            self.svgs[self.svg]["marks"].append((float(a["data-x"]), float(a["data-y"])))
        elif self.svg and tag == "rect" and a.get("class") == "segment":
            self.svgs[self.svg]["segments"].append((a["data-bar"], a["data-series"], float(a["data-value"])))
    def handle_endtag(self, tag):
        if tag == "svg":
            self.svg = None

p = P()
p.feed(page)
assert set(p.svgs) == {"tco-cumulative", "tco-breakdown", "tco-rate"}, p.svgs.keys()
cum = p.svgs["tco-cumulative"]
months = int(d["inputs"]["years"]["value"] * 12)
own = [pt for pt in cum["points"] if pt[0] == "owned"]
rent = [pt for pt in cum["points"] if pt[0] == "rented"]
assert len(rent) == months + 1, len(rent)
assert len(own) == months + 2, len(own)          # and one after resale
assert int(cum["attrs"]["data-points"]) == len(cum["points"])
o = d["owned"]
for s, x, y in own[:-1]:
    assert abs(y - (o["capex_usd"] + o["owned_usd_per_month"] * x)) < 0.01, (x, y)
for s, x, y in rent:
    assert abs(y - d["cloud"]["usd_per_month"] * x) < 0.01, (x, y)
assert abs(own[-1][2] - (o["capex_usd"] + o["opex_usd_per_year"] * months / 12 - o["residual_usd"] + o["interest_usd"])) < 0.01
assert len(cum["marks"]) == 1
assert abs(cum["marks"][0][0] - d["breakeven_month"]) < 1e-6
bars = p.svgs["tco-breakdown"]["segments"]
owned_sum = sum(v for b, s, v in bars if b == "owned")
assert abs(owned_sum - o["total_usd"]) < 0.01, (owned_sum, o["total_usd"])
assert abs(sum(v for b, s, v in bars if b == "rented") - d["cloud"]["total_usd"]) < 0.01
rate = p.svgs["tco-rate"]
assert len(rate["marks"]) == 1
assert abs(rate["marks"][0][0] - d["flips"]["utilisation"]["value"]) < 1e-6
assert "Content-Security-Policy" in page and "default-src 'none'" in page
assert "The arithmetic" in page and "break-even" in page
PY

# human output says where the report went; a second run replaces it whole
expect_rc 0 tco --server dgx-a100-320gb --cloud p4d.24xlarge --report "$R"
expect_out "Report written to $R"
grep -q "DGX A100" "$R" || fail "report not replaced"
grep -q "DGX H100" "$R" && fail "old report content left"
CHECKS=$((CHECKS + 2))
# without a comparator the report still draws the owned side
expect_rc 0 tco --server dgx-h100 --no-cloud --report "$R"
grep -q 'id="tco-cumulative"' "$R" || fail "no cumulative chart without cloud"
finish
