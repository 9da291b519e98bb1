# Shared steps of the tests that open an HTML report in a real browser
# (Debian's chromium, headless, no network).  Source it after the CLI
# helpers:
#	. "$TESTS/cli/lib.sh"
#	. "$TESTS/integration/lib-chromium.sh"
# Sourcing it finds chromium in $CHROMIUM, or ends the test: skipped with
# GPUSCOPE_SKIP_CHROMIUM=1, failed otherwise.

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

# browse ARGS...: headless chromium with a fresh profile and no network.
browse() {
	local profile
	profile=$(mktemp -d "$TMP/profile.XXXXXX")
	# HOME in the temporary tree: chromium writes caches there
	HOME="$TMP" timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --disable-extensions --user-data-dir="$profile" \
		--enable-logging=stderr --v=0 "$@"
}

# chromium_dom REPORT: writes the DOM chromium built from the page to
# $TMP/dom.html and fails on console errors (a blocked fetch logs a CSP error).
chromium_dom() {
	CHECKS=$((CHECKS + 1))
	browse --dump-dom "file://$1" >"$TMP/dom.html" 2>"$TMP/console.log" ||
		fail "chromium --dump-dom exited $?"
	CHECKS=$((CHECKS + 1))
	if grep -E "CONSOLE|Uncaught|Refused to|violates|Content Security Policy" "$TMP/console.log"; then
		fail "console errors while loading the report"
	fi
}

# chromium_screenshot REPORT WIDTH HEIGHT MIN_PIXELS FIRST SECOND: a
# screenshot of the page at WIDTHxHEIGHT is not blank, and the first two
# palette colours (#4e79a7 named FIRST, #f28e2b named SECOND) cover at least
# MIN_PIXELS pixels each.
chromium_screenshot() {
	CHECKS=$((CHECKS + 1))
	browse --screenshot="$TMP/shot.png" --window-size="$2,$3" --hide-scrollbars "file://$1" \
		>"$TMP/shot.log" 2>&1 || fail "chromium --screenshot exited $?"
	CHECKS=$((CHECKS + 1))
	python3 - "$TMP/shot.png" "$2" "$3" "$4" "$5" "$6" <<'PY' || fail "screenshot"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
want_w, want_h, min_px = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
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
assert (w, h) == (want_w, want_h), (w, h)
assert len(colours) > 16, "only %d colours: blank page?" % len(colours)
white = colours.get(b"\xff\xff\xff", 0)
assert white < 0.97 * w * h, "page is %.1f %% white" % (100.0 * white / (w * h))
for name, rgb in ((sys.argv[5], b"\x4e\x79\xa7"), (sys.argv[6], b"\xf2\x8e\x2b")):
    assert colours.get(rgb, 0) >= min_px, "%s colour has %d pixels" % (name, colours.get(rgb, 0))
print("screenshot: %dx%d, %d colours, %.1f %% white" % (w, h, len(colours), 100.0 * white / (w * h)))
PY
}

# chromium_width REPORT WIDTH: the page laid out in a WIDTH px wide window
# scrolls not sideways (document.documentElement.scrollWidth is no more than
# its clientWidth) and every table ends inside the page's column.  The page
# allows no script, so a copy without its Content Security Policy measures
# itself and writes the figures into the DOM.
chromium_width() {
	CHECKS=$((CHECKS + 1))
	python3 - "$1" "$TMP/measure.html" <<'PY' || fail "measure copy"
import re, sys
s = open(sys.argv[1]).read()
s, n = re.subn(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", s)
assert n == 1, "no CSP to lift"
js = ('<script>addEventListener("load",function(){var m=document.querySelector("main").getBoundingClientRect(),'
      'o=[];document.querySelectorAll("table").forEach(function(t){var r=t.getBoundingClientRect();'
      'if(r.right>m.right+1)o.push((t.id||"table")+":"+Math.round(r.right));});var d=document.createElement("pre");'
      'd.id="measure";d.textContent=document.documentElement.scrollWidth+" "+document.documentElement.clientWidth+'
      '" "+Math.round(m.right)+" "+o.join(",");document.body.appendChild(d);});</script>')
open(sys.argv[2], "w").write(s.replace("</body>", js + "</body>"))
PY
	browse --window-size="$2,900" --dump-dom "file://$TMP/measure.html" >"$TMP/measure.dom" 2>/dev/null ||
		fail "chromium --dump-dom exited $?"
	CHECKS=$((CHECKS + 1))
	python3 - "$TMP/measure.dom" "$2" <<'PY' || fail "page wider than $2 px"
import re, sys
m = re.search(r'<pre id="measure">([^<]*)</pre>', open(sys.argv[1]).read())
assert m, "no measurement"
f = m.group(1).split(" ")
scroll, client, main = int(f[0]), int(f[1]), int(f[2])
wide = [x for x in f[3:] if x]
assert scroll <= int(sys.argv[2]) and scroll <= client, ("scrollWidth", scroll, "clientWidth", client)
assert not wide, ("tables past the column's edge", main, wide)
print("width:", scroll, "of", client, "px; column ends at", main)
PY
}
