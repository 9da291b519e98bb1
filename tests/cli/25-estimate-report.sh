#!/bin/bash
# estimate --report with --arrivals: the HTML page of the simulated run draws
# TTFT and TPOT (p50, p99) against the offered rate at 8 simulated Poisson
# rates up to what a burst sustains, the table lists the same points, the
# latency grows with the load, and --report without --arrivals or to a path
# that cannot be written fails without a file.
. "$TESTS/cli/lib.sh"

M="--model llama3-8b --task infer --gpu h100-sxm5-80gb --prompt-len 512 --output-len 256"
R="$TMP/serve.html"
expect_rc 0 estimate $M --arrivals poisson:10 --requests 400 --report "$R" --json
expect_json
printf '%s' "$OUT" >"$TMP/e.json"
CHECKS=$((CHECKS + 1))
python3 - "$R" "$TMP/e.json" <<'PY' || fail "latency against load"
import json, re, sys
page = open(sys.argv[1]).read()
sim = json.load(open(sys.argv[2]))["simulation"]
svg = re.search(r'<svg[^>]*id="latency-against-load"[^>]*>', page).group(0)
assert 'data-series-count="4"' in svg and 'data-y-scale="log"' in svg, svg
pts = {}
for s, x, y in re.findall(r'<circle class="point" data-series="([^"]+)" data-x="([^"]+)" data-y="([^"]+)"', page):
    pts.setdefault(s, []).append((float(x), float(y)))
assert sorted(pts) == ["TPOT p50", "TPOT p99", "TTFT p50", "TTFT p99"], pts.keys()
for s, v in pts.items():
    assert len(v) == 8, (s, v)
    xs = [x for x, _ in v]
    assert xs == sorted(xs) and abs(xs[1] - 2 * xs[0]) < 1e-6 * xs[1], xs
ttft = [y for _, y in pts["TTFT p99"]]
assert ttft[-1] > 1.5 * ttft[0], ttft
assert all(p99 >= p50 for (_, p50), (_, p99) in zip(pts["TTFT p50"], pts["TTFT p99"]))
rows = re.findall(r"<tr><td", page.split('id="load-points"')[1])
assert len(rows) == 8, len(rows)
assert "%d requests" % sim["requests"] in page and "vllm 0.11" in page, sim["requests"]
PY
expect_rc 2 estimate $M --report "$R"
expect_err "give --arrivals"
rm -f "$TMP/no/such/dir.html"
expect_rc 3 estimate $M --arrivals burst:50 --report "$TMP/no/such/dir.html"
expect_err "--report"
[ ! -e "$TMP/no/such/dir.html" ] || fail "a report was written where it could not be"
finish
