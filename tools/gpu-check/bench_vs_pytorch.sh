#!/bin/bash
# On a real GPU: gpuscope bench against PyTorch's own measurements of the
# same quantities (bf16 matmul TFLOP/s at 8192^3, device copy GB/s, launch
# latency) and NVIDIA's published dense peak, side by side.  Needs a GPU,
# PyTorch with CUDA and $GPUSCOPE.
set -eu
GPUSCOPE=${GPUSCOPE:-gpuscope}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$GPUSCOPE" bench --only gemm,hbm,launch --json >"$tmp/bench.json"
python3 - "$tmp/bench.json" <<'PY'
import json, sys, time
import torch

b = json.load(open(sys.argv[1]))
rows = b["results"]
def ours(test, dtype=None, m=None):
    r = [x for x in rows if x["test"] == test and x["gpu"] in (0, None)
         and (dtype is None or x["dtype"] == dtype) and (m is None or x["m"] == m) and not x["label"]]
    return r[0] if r else None

def timed(fn, reps):
    fn(); torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(reps):
        fn()
    e.record(); torch.cuda.synchronize()
    return s.elapsed_time(e) / 1e3 / reps

n = 8192
a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
bm = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
t_mm = timed(lambda: torch.matmul(a, bm), 20)
x = torch.empty(1 << 28, device="cuda", dtype=torch.float32)  # 1 GiB
y = torch.empty_like(x)
t_cp = timed(lambda: y.copy_(x), 10)
t_launch = timed(lambda: torch.cuda._sleep(0), 1000)

g, h, l = ours("gemm", "bf16", 8192), ours("hbm-copy"), ours("launch")
table = [
    ("bf16 matmul 8192^3, TFLOP/s", g and g["tflops"], 2 * n**3 / t_mm / 1e12, g and g["expected"]),
    ("device copy 1 GiB, GB/s", h and h["gbps"], 2 * x.numel() * 4 / t_cp / 1e9, h and h["expected"]),
    ("launch latency, us", l and l["latency_s"] * 1e6, t_launch * 1e6, None),
]
print(f"{torch.cuda.get_device_name(0)}, torch {torch.__version__}, CUDA {torch.version.cuda}")
print(f"{'quantity':32} {'bench':>10} {'pytorch':>10} {'diff':>7} {'catalog':>10}")
bad = 0
for name, v, ref, cat in table:
    d = (v / ref - 1) * 100 if v and ref else float("nan")
    print(f"{name:32} {v or float('nan'):10.1f} {ref:10.1f} {d:6.1f}% {cat or float('nan'):10.1f}")
    if "launch" not in name and not abs(d) <= 10:
        bad = 1
sys.exit(bad)
PY
