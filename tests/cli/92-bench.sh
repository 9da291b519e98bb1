#!/bin/bash
# gpuscope bench against the fake CUDA driver, cuBLASLt and NCCL (tests/fake-cuda)
# and the fake NVML: every quantity with its clocks, figures that follow from the
# scenario's ceilings, and a clear skip for each missing library.
. "$TESTS/cli/lib.sh"
export GPUSCOPE_BENCH_LIBS="$BUILDDIR/fake-cuda"
export FAKE_CUDA_SCENARIO="$TESTS/fake-cuda/scenarios/h100.ini"
export FAKE_NVML_SCENARIO="$TESTS/fake-nvml/scenarios/bench-h100.ini"
NVML=(--nvml "$BUILDDIR/fake-nvml/libnvidia-ml.so.1")

expect_rc 0 bench "${NVML[@]}" --model llama2-7b --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
rows = d["results"]
tests = {r["test"] for r in rows}
want = {"gemm", "hbm-read", "hbm-write", "hbm-copy", "h2d", "d2h", "p2p", "all-reduce", "all-gather",
        "reduce-scatter", "launch", "graph"}
assert want <= tests, want - tests
assert d["skipped"] == [], d["skipped"]
assert d["gpu_type"] == "h100-sxm5-80gb" and len(d["gpus"]) == 8
for r in rows:  # every figure says under which clocks it was taken
    assert r["sm_mhz"] == 1980 and r["power_w"] == 690 and r["clock_events"] == "", r
# the fake times a GEMM at peak x 0.80 x s(m) s(n) s(k), s(x) = x / (x + 128)
def gemm(dt, n, label=None):
    return [r for r in rows if r["test"] == "gemm" and r["dtype"] == dt and r["m"] == n and r["label"] == label]
s = (8192 / (8192 + 128)) ** 3
for dt, peak in (("fp32", 67), ("tf32", 494.5), ("bf16", 989.4), ("fp8", 1978.9)):
    r = gemm(dt, 8192)[0]
    assert abs(r["tflops"] - peak * 0.8 * s) < 0.01 * peak, (dt, r["tflops"])
    assert r["expected"] > 0 and 0.8 < r["of_expected"] < 1.2, r
# llama2-7b: 4096 tokens, QKV 4096 x 12288 x 4096, MLP up 4096 x 22016 x 4096, logits vocab 32000
labels = {(r["label"], r["m"], r["n"], r["k"]) for r in rows if r["label"]}
assert ("qkv", 4096, 12288, 4096) in labels and ("mlp-up", 4096, 22016, 4096) in labels, labels
assert ("logits", 4096, 32000, 4096) in labels, labels
def one(test, gpu=0, peer=None):
    return [r for r in rows if r["test"] == test and r["gpu"] == gpu and (peer is None or r["peer"] == peer)][0]
assert abs(one("hbm-read")["gbps"] - 2900 * 1.073741824 / 1.073741824) < 30, one("hbm-read")
assert abs(one("hbm-copy")["gbps"] - 2900 * 0.95) < 30
assert abs(one("h2d", 7)["gbps"] - 53) < 1 and abs(one("d2h", 3)["gbps"] - 53) < 1
assert len([r for r in rows if r["test"] == "p2p"]) == 56
assert abs(one("p2p", 2, 5)["gbps"] - 370) < 4
ar = [r for r in rows if r["test"] == "all-reduce"]
big = max(ar, key=lambda r: r["bytes"])
# 1 GiB over 8 GPUs: busbw = S 2 (n-1)/n / (20 us + S 2 (n-1)/n / 360 GB/s)
bus = big["bytes"] * 2 * 7 / 8
assert abs(big["busbw_gbps"] - bus / (20e-6 + bus / 360e9) / 1e9) < 0.5, big
assert abs(one("launch")["latency_s"] - 2.5e-6) < 1e-8 and abs(one("graph")["latency_s"] - 4e-6) < 1e-8
' || fail "bench --json figures"

# CSV: the same fields as a table
expect_rc 0 bench "${NVML[@]}" --only launch --csv
expect_out "test,gpu,peer,dtype,label,m,n,k,bytes,time_s,tflops,gbps,busbw_gbps,latency_s,expected"
expect_out "launch,0,,,,,,,,2.5e-06"

# the human report: the libraries and clocks, GEMM of the median GPU with the best
# marked, one row per copy test over the GPUs, the p2p matrix, collectives by size;
# nothing cut, nothing past 80 columns
expect_rc 0 bench "${NVML[@]}" --model llama2-7b
expect_width 80
expect_out "gpuscope bench: 8 x NVIDIA H100 80GB HBM3 (h100-sxm5-80gb)
driver 550.54.15, CUDA 12.4, cuBLASLt 13.0.0, NCCL 2.21.5
while measuring: SM 1980 MHz, memory 2619 MHz, up to 690 W of 700 W, 62 C
clock events: none"
expect_out "GEMM on GPU 0 (the median GPU"
expect_out "bf16   8192x8192x8192               754.3     787.5    96 %  best"
expect_out "bf16   4096x22016x4096  mlp-up      738.1     793.7    93 %"
expect_out "hbm-copy   2.0 GiB    GB/s  2746.2  2746.2  2746.2    2881.0"
expect_out "h2d        256.0 MiB  GB/s    53.0    53.0    53.0      51.7"
expect_out "launch                us       2.5     2.5     2.5         -"
expect_out "      GPU0  GPU1  GPU2  GPU3  GPU4  GPU5  GPU6  GPU7"
expect_out "GPU2   370   370     X   370   370   370   370   370"
expect_out "1.0 GiB         358.6       357.3           357.3"
case "$OUT" in *"~"*) fail "a cell was cut: $OUT" ;; esac
[ "$(printf '%s\n' "$OUT" | grep -c '^hbm-read ')" -eq 1 ] || fail "hbm-read is not one row over the GPUs"

# no NCCL: the collectives are skipped, naming the library; the rest runs
mkdir "$TMP/nonccl"
ln -s "$BUILDDIR"/fake-cuda/libcuda.so.1 "$BUILDDIR"/fake-cuda/libcublasLt.so.13 "$TMP/nonccl/"
expect_rc 0 bench "${NVML[@]}" --lib-dir "$TMP/nonccl" --only nccl,launch
expect_out "skipped: collectives skipped: NCCL (libnccl.so.2) not found in $TMP/nonccl"
expect_out "launch "
# no cuBLASLt: GEMMs skipped
mkdir "$TMP/nolt"
ln -s "$BUILDDIR"/fake-cuda/libcuda.so.1 "$TMP/nolt/"
expect_rc 0 bench "${NVML[@]}" --lib-dir "$TMP/nolt" --only gemm,hbm --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert any("cuBLASLt (libcublasLt.so) not found" in s for s in d["skipped"]), d["skipped"]
assert {r["test"] for r in d["results"]} == {"hbm-read", "hbm-write", "hbm-copy"}
' || fail "no cuBLASLt"
# no driver at all: exit 3, naming it
mkdir "$TMP/empty"
expect_rc 3 bench "${NVML[@]}" --lib-dir "$TMP/empty"
expect_err "CUDA driver (libcuda.so.1) not found in $TMP/empty"
expect_no_crash
# a driver without a GPU (no scenario): exit 3
FAKE_CUDA_SCENARIO= expect_rc 3 bench "${NVML[@]}"
expect_err "cuInit failed (CUDA error 100)"
# no NVML: figures without clocks, and the skip says why
expect_rc 0 bench --nvml "$TMP/empty/libnvidia-ml.so.1" --only launch --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert any(s.startswith("clocks and power: NVML") for s in d["skipped"]), d["skipped"]
assert d["results"][0]["sm_mhz"] is None and d["results"][0]["clock_events"] is None
' || fail "no NVML"
expect_rc 2 bench --only gemm,tensor
expect_err "'tensor' is not a part"
exit 0
