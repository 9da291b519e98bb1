#!/bin/bash
# The tco HTML report in a real browser (Debian's chromium, headless, no
# network): the page parses into the expected SVG charts with all their
# points, logs no console errors (a blocked fetch would log a CSP error),
# and a screenshot shows the charts drawn in their colours.
. "$TESTS/cli/lib.sh"
. "$TESTS/integration/lib-chromium.sh"

R="$TMP/tco.html"
expect_rc 0 tco --server dgx-h100 --cloud p5.48xlarge --report "$R" --json
printf '%s' "$OUT" > "$TMP/tco.json"

# 1. the DOM chromium built from the page, and its console
chromium_dom "$R"
CHECKS=$((CHECKS + 1))
python3 - "$TMP/dom.html" "$TMP/tco.json" <<'PY' || fail "DOM content"
import json, sys
from html.parser import HTMLParser
dom = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))

class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.svgs, self.cur = {}, None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self.cur = a.get("id")
            self.svgs[self.cur] = {"declared": int(a["data-points"]), "points": 0, "segments": 0,
                                   "marks": 0, "kind": a.get("data-kind")}
        elif self.cur and tag == "circle" and "point" in a.get("class", "").split():
            self.svgs[self.cur]["points"] += 1
        elif self.cur and tag == "rect" and a.get("class") == "segment":
            self.svgs[self.cur]["segments"] += 1
        elif self.cur and tag == "g" and a.get("class") == "mark":
            self.svgs[self.cur]["marks"] += 1
    def handle_endtag(self, tag):
        if tag == "svg":
            self.cur = None

p = P()
p.feed(dom)
s = p.svgs
assert set(s) == {"tco-cumulative", "tco-breakdown", "tco-rate"}, s
months = int(d["inputs"]["years"]["value"] * 12)
c = s["tco-cumulative"]
assert c["points"] == c["declared"] == 2 * (months + 1) + 1, c
assert c["marks"] == 1, c
b = s["tco-breakdown"]
# six terms of owning (the interest at the default rate among them) and the rented total
assert b["declared"] == 2 and b["segments"] == 7, b
r = s["tco-rate"]
assert r["points"] == r["declared"] > 0 and r["marks"] == 1, r
print("DOM:", {k: v["points"] or v["segments"] for k, v in s.items()})
PY

# 2. a screenshot: not blank, and the series colours are on it: the legend
# swatches and lines of the two series, owned #4e79a7 and rented #f28e2b
chromium_screenshot "$R" 1200 900 100 owned rented
finish
