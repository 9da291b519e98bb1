#!/bin/bash
# The tco HTML report in a real browser (Debian's chromium, headless, no
# network): the page parses into the expected SVG charts with all their
# points, logs no console errors (a blocked fetch would log a CSP error),
# and a screenshot shows the charts drawn in their colours.
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

R="$TMP/tco.html"
expect_rc 0 tco --server dgx-h100 --cloud p5.48xlarge --report "$R" --json
printf '%s' "$OUT" > "$TMP/tco.json"

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
assert b["declared"] == 2 and b["segments"] == 6, b
r = s["tco-rate"]
assert r["points"] == r["declared"] > 0 and r["marks"] == 1, r
print("DOM:", {k: v["points"] or v["segments"] for k, v in s.items()})
PY

# 2. a screenshot: not blank, and the series colours are on it
CHECKS=$((CHECKS + 1))
browse --screenshot="$TMP/shot.png" --window-size=1200,900 --hide-scrollbars "file://$R" \
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
assert (w, h) == (1200, 900), (w, h)
assert len(colours) > 16, "only %d colours: blank page?" % len(colours)
white = colours.get(b"\xff\xff\xff", 0)
assert white < 0.97 * w * h, "page is %.1f %% white" % (100.0 * white / (w * h))
# the legend swatches and lines of the two series: owned #4e79a7, rented #f28e2b
for name, rgb in (("owned", b"\x4e\x79\xa7"), ("rented", b"\xf2\x8e\x2b")):
    assert colours.get(rgb, 0) >= 100, "%s colour has %d pixels" % (name, colours.get(rgb, 0))
print("screenshot: %dx%d, %d colours, %.1f %% white" % (w, h, len(colours), 100.0 * white / (w * h)))
PY
finish
