#!/bin/bash
# The plan HTML report in a real browser (Debian's chromium, headless, no
# network): the page loads with no console errors, its three charts hold the
# plan's data point for point (checked against --json --all of the same
# plan), and a screenshot is not blank and shows the charts' colours.
. "$TESTS/cli/lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	if [ "${GPUSCOPE_SKIP_CHROMIUM:-}" = 1 ]; then
		echo "chromium not installed; skipped because GPUSCOPE_SKIP_CHROMIUM=1"
		exit 0
	fi
	echo "FAIL: chromium is not installed (it is in debian-packages.txt;" \
		"set GPUSCOPE_SKIP_CHROMIUM=1 to skip)" >&2
	exit 1
fi

R="$TMP/plan.html"
expect_rc 0 plan --report "$R" --json --all --threads 2
printf '%s' "$OUT" > "$TMP/plan.json"

browse() {
	local profile
	profile=$(mktemp -d "$TMP/profile.XXXXXX")
	# HOME in the temporary tree: chromium writes caches there
	HOME="$TMP" timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --disable-extensions --user-data-dir="$profile" \
		--enable-logging=stderr --v=0 "$@"
}

# 1. the DOM chromium built from the page, and its console
CHECKS=$((CHECKS + 1))
browse --dump-dom "file://$R" >"$TMP/dom.html" 2>"$TMP/console.log" ||
	fail "chromium --dump-dom exited $?"
CHECKS=$((CHECKS + 1))
if grep -E "CONSOLE|Uncaught|Refused to|violates|Content Security Policy" "$TMP/console.log"; then
	fail "console errors while loading the report"
fi
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

# 2. a screenshot: not blank, and the first series colours are on it
CHECKS=$((CHECKS + 1))
browse --screenshot="$TMP/shot.png" --window-size=1200,1400 --hide-scrollbars "file://$R" \
	>"$TMP/shot.log" 2>&1 || fail "chromium --screenshot exited $?"
CHECKS=$((CHECKS + 1))
python3 - "$TMP/shot.png" <<'PY' || fail "screenshot"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, hdr = 8, b"", None
while pos < len(data):
    n, typ = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if typ == b"IHDR":
        hdr = struct.unpack(">IIBBBBB", body)
    elif typ == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, ctype, _, _, interlace = hdr
assert depth == 8 and ctype in (2, 6) and interlace == 0, hdr
bpp = 4 if ctype == 6 else 3
raw = zlib.decompress(idat)
stride = w * bpp
rows, prev, i = [], bytearray(stride), 0
for y in range(h):
    f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line)); prev = line
colours = {}
for line in rows:
    for x in range(0, stride, bpp):
        k = line[x:x + 3]
        colours[k] = colours.get(k, 0) + 1
assert (w, h) == (1200, 1400), (w, h)
assert len(colours) > 16, "only %d colours: blank page?" % len(colours)
white = colours.get(b"\xff\xff\xff", 0)
assert white < 0.97 * w * h, "page is %.1f %% white" % (100.0 * white / (w * h))
# the first two palette colours (first GPU type / weights, second / gradients)
for name, rgb in (("first series", b"\x4e\x79\xa7"), ("second series", b"\xf2\x8e\x2b")):
    assert colours.get(rgb, 0) >= 50, "%s colour has %d pixels" % (name, colours.get(rgb, 0))
print("screenshot: %dx%d, %d colours, %.1f %% white" % (w, h, len(colours), 100.0 * white / (w * h)))
PY
finish
