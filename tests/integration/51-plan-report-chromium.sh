#!/bin/bash
# The plan HTML report in a real browser (Debian's chromium, headless, no
# network): the page loads with no console errors, its three charts hold the
# plan's data point for point (checked against --json --all of the same
# plan), and a screenshot is not blank and shows the charts' colours.
. "$TESTS/cli/lib.sh"
. "$TESTS/integration/lib-chromium.sh"

R="$TMP/plan.html"
expect_rc 0 plan --report "$R" --json --all --threads 2
printf '%s' "$OUT" > "$TMP/plan.json"

# 1. the DOM chromium built from the page, and its console
chromium_dom "$R"
CHECKS=$((CHECKS + 1))
python3 - "$TMP/dom.html" "$TMP/plan.json" <<'PY' || fail "DOM content"
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
            self.svgs[self.cur] = {"declared": int(a["data-points"]), "points": 0, "front": 0,
                                   "segments": [], "bars": 0, "marks": 0, "xy": []}
        elif not self.cur:
            return
        elif tag == "circle" and "point" in a.get("class", "").split():
            s = self.svgs[self.cur]
            s["points"] += 1
            s["front"] += "front" in a["class"].split()
            s["xy"].append((float(a["data-x"]), float(a["data-y"])))
        elif tag == "rect" and a.get("class") == "segment":
            self.svgs[self.cur]["segments"].append((a["data-bar"], a["data-series"], float(a["data-value"])))
        elif tag == "g" and a.get("class") == "bar":
            self.svgs[self.cur]["bars"] += 1
        elif tag == "g" and a.get("class") == "mark":
            self.svgs[self.cur]["marks"] += 1
    def handle_endtag(self, tag):
        if tag == "svg":
            self.cur = None

p = P()
p.feed(dom)
s = p.svgs
assert set(s) == {"pareto", "memory", "steptime"}, sorted(s)

# the scatter: one point per configuration that meets the constraints, the front highlighted
ok = [c for c in d["all"] if c["meets_constraints"]]
sc = s["pareto"]
assert sc["points"] == sc["declared"] == len(ok), (sc["points"], sc["declared"], len(ok))
assert sc["front"] == len(d["front"]) >= 2, (sc["front"], len(d["front"]))
assert sc["marks"] == 1
def near(a, b):
    return abs(a - b) <= 1e-8 * abs(b)
for c in d["front"]:
    assert any(near(x, c["hours"]) and near(y, c["cost_usd"]) for x, y in sc["xy"]), c["hardware"]

# memory bars: one per ranked choice, eight terms each, adding up to the memory per GPU
GIB = 1073741824.0
m = s["memory"]
n = len(d["ranked"])
assert m["bars"] == m["declared"] == n == 10, (m["bars"], m["declared"], n)
assert len(m["segments"]) == 8 * n, len(m["segments"])
for i, c in enumerate(d["ranked"]):
    segs = m["segments"][8 * i:8 * i + 8]
    assert abs(sum(v for _, _, v in segs) * GIB - c["memory_total_bytes"]) < 1e-6 * c["memory_total_bytes"]
    w = [v for _, series, v in segs if series == "weights"][0]
    assert abs(w * GIB - c["weights_bytes"]) <= 1e-6 * c["weights_bytes"] + 1

# step bars: five parts adding up to the step
t = s["steptime"]
assert t["bars"] == n and len(t["segments"]) == 5 * n
for i, c in enumerate(d["ranked"]):
    segs = t["segments"][5 * i:5 * i + 5]
    assert abs(sum(v for _, _, v in segs) - c["step_s"]) < 1e-6 * c["step_s"], (segs, c["step_s"])
print("DOM:", {k: v["points"] or v["bars"] for k, v in s.items()})
PY

# the page fits a 1,280 px window, its tables inside the column, and the
# figures it prints for people carry no exponent (1.655e+06 kWh reads as 1.66 GWh)
chromium_width "$R" 1280
CHECKS=$((CHECKS + 1))
python3 - "$R" <<'PY' || fail "exponent notation in the report's text"
import html, re, sys
s = open(sys.argv[1]).read()
s = re.sub(r"<(svg|style|pre)\b.*?</\1>", " ", s, flags=re.S)
s = re.sub(r"<h1>.*?</h1>|<title>.*?</title>", " ", s, flags=re.S)  # the title echoes --tokens as given
t = html.unescape(re.sub(r"<[^>]+>", " ", s))
bad = re.findall(r"\d[eE][+-]?\d+", t)
assert not bad, bad
PY

# 2. a screenshot: not blank, and the first series colours are on it (first
# GPU type / weights #4e79a7, second / gradients #f28e2b)
chromium_screenshot "$R" 1200 1400 50 "first series" "second series"
# 3. an inference plan's report as the browser renders it: the ranked table's
# p99 TTFT, TPOT and utilisation columns hold the --json figures, and the
# legend says what they are
R="$TMP/infer.html"
expect_rc 0 plan llama3-8b --task infer --gpu h100-sxm5-80gb --rate 30 --ttft-target 1s --report "$R" --json
printf '%s' "$OUT" > "$TMP/infer.json"
chromium_dom "$R"
chromium_width "$R" 1280
CHECKS=$((CHECKS + 1))
python3 - "$TMP/dom.html" "$TMP/infer.json" <<'PY' || fail "inference DOM content"
import json, sys
from html.parser import HTMLParser
d = json.load(open(sys.argv[2]))

class T(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.on, self.cell, self.text = [], False, None, ""
    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.on = dict(attrs).get("id") == "ranked"
        elif self.on and tag == "tr":
            self.rows.append([])
        elif self.on and tag in ("td", "th"):
            self.cell = ""
    def handle_data(self, data):
        self.text += data
        if self.cell is not None:
            self.cell += data
    def handle_endtag(self, tag):
        if self.on and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(self.cell.strip())
            self.cell = None
        elif tag == "table":
            self.on = False

t = T()
t.feed(open(sys.argv[1]).read())
head = t.rows[0]
assert len(t.rows) - 1 == len(d["ranked"]), (len(t.rows), len(d["ranked"]))
for row, c in zip(t.rows[1:], d["ranked"]):
    cell = dict(zip(head, row))
    v, u = cell["p99 TTFT"].split()
    ttft = float(v) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[u]
    assert abs(ttft - c["ttft_p99_s"]) <= 0.06 * c["ttft_p99_s"] and ttft <= 1.0, (cell, c["ttft_p99_s"])
    assert cell["utilisation"] == "%.0f%%" % (100 * c["utilisation"]), cell
    assert cell["TPOT"].endswith("ms"), cell
assert "p99 TTFT: time to first token of 99% of requests" in " ".join(t.text.split()), "legend"
print("inference DOM:", len(t.rows) - 1, "rows")
PY
finish
