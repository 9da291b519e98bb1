#!/usr/bin/env python3
# A large Kineto trace from a small one, for the memory bound of `gpuscope profile`:
# the events of SRC written COPIES times, each copy shifted past the last in time and
# its ProfilerStep annotations renumbered, as one uncompressed JSON file.
#
#   bench/gen-big-trace.py tests/data/traces/a100-nccl-2rank.json.gz /tmp/big.json 118   # 1.01 GB
import gzip, json, sys
src, out, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = json.load(gzip.open(src))
ev = d["traceEvents"]
ts = [e["ts"] for e in ev if isinstance(e.get("ts"), (int, float))]
span = (max(ts) - min(ts)) + 1000.0
head = {k: v for k, v in d.items() if k != "traceEvents"}
with open(out, "w") as f:
    f.write(json.dumps(head)[:-1] + ', "traceEvents": [')
    first = True
    for c in range(copies):
        for e in ev:
            e2 = dict(e)
            if isinstance(e2.get("ts"), (int, float)):
                e2["ts"] = e2["ts"] + c * span
            if e2.get("name", "").startswith("ProfilerStep#"):
                e2["name"] = "ProfilerStep#%d" % (c * 1000 + int(e2["name"][13:] or 0))
            f.write(("" if first else ",") + json.dumps(e2))
            first = False
    f.write("]}")
