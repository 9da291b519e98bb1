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
