#!/bin/bash
# plan's explanation says what context parallelism and offload are and why
# the first choice needs them; the HTML report shows an inference plan's
# p99 TTFT, TPOT and utilisation, explains every layout code it prints, and
# rounds money the way the tables do.
. "$TESTS/cli/lib.sh"

# money as the tables write it: "$17", "$304k", "$2.54M", never "$304000" or "$1,885.86"
money_rounded() {
	python3 - "$1" <<'PY'
import re, sys
page = open(sys.argv[1]).read()
bad = re.findall(r"\$[0-9][0-9,]{3,}(?:\.[0-9]+)?(?![0-9kMG])", page) + re.findall(r"[0-9] USD<", page)
assert not bad, bad[:5]
PY
}

# optimizer offload: what moves to host memory, and what each GPU would need without it
expect_rc 0 plan llama2-70b --gpu a100-sxm4-80gb --max-gpus 8 --servers-only
expect_width 80
OUT=$(printf '%s' "$OUT" | tr -s ' \n' ' ')   # the prose as one line, whatever the wrapping
expect_out "optimizer offload (oo) keeps the optimizer states and master weights in host memory"
expect_out "without it each GPU would need"
expect_out "it would not fit"

# context parallelism at 131,072 tokens: the ring, and the activations of a whole sequence without it
# (filling the GPUs, no headroom: the layout that needs per-op recompute and offload besides)
R="$TMP/cp.html"
expect_rc 0 plan llama3-8b --buy onprem --task pretrain --seq-len 131072 --gpu h100-sxm5-80gb --max-gpus 64 --memory-headroom 0 \
	--json --report "$R"
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
lay = d["ranked"][0]["layout"]
alt = {a["kind"]: a["text"] for a in d["explanation"]["alternatives"]}
assert "c" in lay and "ro" in lay and "oo" in lay, lay
assert "context parallelism (c" in alt["context"] and "ring attention" in alt["context"], alt
assert "a whole sequence" in alt["context"] and "would not fit" in alt["context"], alt
assert "optimizer offload (oo)" in alt["offload"], alt
assert "per-op activation recompute (ro:" in alt["memory"], alt
' || fail "the explanation leaves out context parallelism, per-op recompute or offload"
CHECKS=$((CHECKS + 1))
python3 - "$R" <<'PY' || fail "training report legend"
import sys
page = open(sys.argv[1]).read()
for code in ("c context", "rs selective", "rf full", "ro per-op", "oo optimizer states", "op the parameters",
             "context parallelism (c"):
    assert code in page, code
PY
CHECKS=$((CHECKS + 1))
money_rounded "$R" || fail "training report prints unrounded money"

# inference: the ranked table's p99 TTFT, TPOT and utilisation are the --json figures
R="$TMP/infer.html"
expect_rc 0 plan llama3-8b --task infer --gpu h100-sxm5-80gb --rate 30 --ttft-target 1s --json --report "$R"
printf '%s' "$OUT" > "$TMP/infer.json"
CHECKS=$((CHECKS + 1))
python3 - "$R" "$TMP/infer.json" <<'PY' || fail "inference report table"
import json, re, sys
from html.parser import HTMLParser
page = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))

class T(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.cur, self.row, self.cell = {}, None, None, None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.cur = a.get("id")
            self.tables[self.cur] = []
        elif tag == "tr" and self.cur:
            self.row = []
            self.tables[self.cur].append(self.row)
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ""
    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == "table":
            self.cur = None

t = T()
t.feed(page)
rows = t.tables["ranked"]
head = rows[0]
for col in ("p99 TTFT", "TPOT", "utilisation", "replicas"):
    assert col in head, head
def secs(s):
    v, u = s.split()
    return float(v) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[u]
for row, c in zip(rows[1:], d["ranked"]):
    cell = dict(zip(head, row))
    assert abs(secs(cell["p99 TTFT"]) - c["ttft_p99_s"]) <= 0.06 * c["ttft_p99_s"], (cell, c["ttft_p99_s"])
    assert abs(secs(cell["TPOT"]) - c["tpot_s"]) <= 0.06 * c["tpot_s"], (cell, c["tpot_s"])
    assert cell["utilisation"] == "%.0f%%" % (100 * c["utilisation"]), (cell, c["utilisation"])
    assert cell["replicas"] == str(c["replicas"])
assert "p99 TTFT" in page and "Erlang C" in page
assert "b batch" in page and "t tensor" in page
PY
CHECKS=$((CHECKS + 1))
money_rounded "$R" || fail "inference report prints unrounded money"
finish
