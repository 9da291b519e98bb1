#!/bin/bash
# profile: the public Kineto traces of tests/data/traces.  Every class total,
# every step's sum and the communication totals must match sums that Python's
# json module computes here from the same file (within 0.5 %), and hostile or
# broken traces get a located error, exit 2, and no output.
. "$TESTS/cli/lib.sh"
D=$SRCDIR/tests/data/traces

# check_sums TRACE: profile --json against independent sums of the trace's GPU event durations
check_sums() {
	expect_rc 0 profile "$D/$1" --json
	expect_json
	printf '%s' "$OUT" >"$TMP/p.json"
	CHECKS=$((CHECKS + 1))
	python3 - "$D/$1" "$TMP/p.json" <<'PY' || fail "$1: the breakdown disagrees with the trace's own sums"
import bisect, gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
p = json.load(open(sys.argv[2]))
gpu_cats = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
gpu = [e for e in ev if e.get("ph") == "X" and e.get("cat") in gpu_cats]
launch = {e["args"]["correlation"]: e["ts"] for e in ev if e.get("ph") == "X"
          and e.get("cat") in ("cuda_runtime", "Runtime", "cuda_driver") and "correlation" in e.get("args", {})}
steps = sorted((e["ts"], e["ts"] + e["dur"], e["name"]) for e in ev if e.get("ph") == "X"
               and e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#"))
def step_of(e):
    if not steps:
        return "trace"
    t = launch.get(e.get("args", {}).get("correlation"), e["ts"])
    i = bisect.bisect_right([s[0] for s in steps], t) - 1
    return steps[i][2] if i >= 0 and t < steps[i][1] else None
def close(a, b, what):
    assert abs(a - b) <= 0.005 * max(abs(b), 1e-9), (what, a, b)
per_step = {}
for e in gpu:
    per_step.setdefault(step_of(e), []).append(e)
tot = p["total"]
cls = lambda s, c: sum(x["time_s"] for x in s["classes"] if x["class"] == c)
for s in p["steps"]:
    mine = per_step.get(s["step"], [])
    close(s["kernel_sum_s"], sum(e["dur"] for e in mine) * 1e-6, s["step"] + " sum")
    close(sum(x["time_s"] for x in s["classes"]), sum(e["dur"] for e in mine) * 1e-6, s["step"] + " classes")
    assert s["kernels"] == len(mine), (s["step"], s["kernels"], len(mine))
    assert s["gpu_busy_s"] <= s["kernel_sum_s"] + 1e-12
    assert abs(s["gpu_idle_s"] - max(0, s["wall_s"] - s["gpu_busy_s"])) < 1e-9
    if steps:
        st = [x for x in steps if x[2] == s["step"]][0]
        close(s["wall_s"], (st[1] - st[0]) * 1e-6, s["step"] + " wall")
for s in p["steps"] + [tot]:
    parts = s["idle_launch_s"] + s["idle_loader_s"] + s["idle_sync_s"]
    assert abs(parts - s["gpu_idle_s"]) < 1e-9 and min(s["idle_launch_s"], s["idle_loader_s"], s["idle_sync_s"]) >= 0, s
inside = [e for k, v in per_step.items() if k is not None for e in v]
sums = {
    "memcpy": sum(e["dur"] for e in inside if "emcpy" in e["cat"]),
    "memset": sum(e["dur"] for e in inside if "emset" in e["cat"]),
    "comm": sum(e["dur"] for e in inside if "nccl" in e["name"].lower() or "Collective name" in e.get("args", {})),
}
for c, v in sums.items():
    close(cls(tot, c), v * 1e-6, c)
moved = sum(e.get("args", {}).get("bytes", 0) for e in inside if "emcpy" in e["cat"] or "emset" in e["cat"])
close(sum(x["bytes"] for x in tot["classes"]), moved, "bytes")
for x in tot["classes"]:
    assert (x["bandwidth"] is None) == (x["bytes"] == 0), x
    if x["bytes"]:
        close(x["bandwidth"], x["bytes"] / x["time_s"] * 1e-9, "bandwidth")
close(sum(x["time_s"] for x in tot["classes"]), sum(e["dur"] for e in inside) * 1e-6, "total")
for coll in ("allreduce", "broadcast"):
    want = sum(e["dur"] for e in inside if e.get("args", {}).get("Collective name") == coll)
    got = sum(x["time_s"] for x in tot["classes"] if x["class"] == "comm" and x["sub"] == coll)
    close(got, want * 1e-6, coll)
PY
}

check_sums a100-alexnet.json.gz
check_sums a100-nccl-2rank.json.gz
check_sums mi250-rocm.json.gz
check_sums legacy-2021-inference.json.gz
check_sums a100-event-sync.json.gz
check_sums ranks/rank-0.json.gz

# the idle split of the synchronising trace against gaps and waits computed here
expect_rc 0 profile "$D/a100-event-sync.json.gz" --json
printf '%s' "$OUT" | python3 -c '
import gzip, json, sys
p = json.load(sys.stdin)["steps"][0]
ev = [e for e in json.load(gzip.open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X"]
st = [e for e in ev if e["name"].startswith("ProfilerStep#")][0]
w0, w1 = st["ts"], st["ts"] + st["dur"]
gpu = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev if e["cat"] in ("kernel", "gpu_memcpy", "gpu_memset"))
waits = [(e["ts"], e["ts"] + e["dur"]) for e in ev if e["cat"] == "cuda_runtime" and ("Synchronize" in e["name"]
         or (e["name"].startswith("cudaMemcpy") and "Async" not in e["name"]))]
gaps, end = [], w0
for a, b in gpu:
    if a > end:
        gaps.append((end, a))
    end = max(end, b)
gaps.append((end, w1))
def inter(a, b, spans):  # length of [a, b) under the union of spans
    pts, n = sorted((max(a, x), min(b, y)) for x, y in spans if min(b, y) > max(a, x)), 0
    cur = a
    for x, y in pts:
        x = max(x, cur)
        if y > x:
            n, cur = n + y - x, y
    return n
glen = sum(b - a for a, b in gaps)
sync = sum(inter(a, b, waits) for a, b in gaps) / glen * p["gpu_idle_s"]
assert sync > 0 and abs(p["idle_sync_s"] - sync) < 1e-9, (p["idle_sync_s"], sync)
assert p["idle_loader_s"] == 0 and p["bottleneck"] == "gpu idle: host-bound", p
' "$D/a100-event-sync.json.gz" || fail "the idle split of the synchronising trace disagrees with its gaps"

# several ranks: a directory or the files; each rank's mean step is its annotations' mean, the
# straggler computes the most, and the spread follows from the ranks' rows
for args in "$D/ranks" "$D/ranks/rank-1.json.gz $D/ranks/rank-0.json.gz"; do
	# shellcheck disable=SC2086 # two file names on purpose
	expect_rc 0 profile $args --json
	printf '%s' "$OUT" | python3 -c '
import gzip, json, sys
d = json.load(sys.stdin)
j, ranks = d["job"], d["ranks"]
assert j["ranks"] == 2 and j["world_size"] == 128 and not j["ranks_from_files"], j
assert [k["rank"] for k in ranks] == [0, 1], [k["rank"] for k in ranks]
for k in ranks:
    ev = json.load(gzip.open(k["file"]))["traceEvents"]
    durs = [e["dur"] for e in ev if e.get("ph") == "X" and e["name"].startswith("ProfilerStep#")]
    assert abs(k["step_s"] - sum(durs) / len(durs) * 1e-6) < 1e-9, k
    t = k["profile"]["total"]
    assert abs(k["compute_s"] - (t["gpu_busy_s"] - t["comm_exposed_s"]) / len(durs)) < 1e-9, k
c = [k["compute_s"] for k in ranks]
mean = sum(c) / len(c)
assert abs(j["compute_spread"] - (max(c) - min(c)) / mean) < 1e-9, j
assert j["straggler_rank"] == c.index(max(c)) and j["verdict"] == ("straggler" if j["compute_spread"] > 0.1 else j["verdict"])
assert abs(j["straggler_wait_s"] - sum(max(c) - x for x in c) / len(c)) < 1e-9, j
' || fail "profile of two ranks ($args) disagrees with the traces"
done
expect_rc 0 profile "$D/ranks"
expect_out "2 ranks of a world of 128"
expect_out "verdict: straggler. Rank 1 computes the most"
expect_width 80
# the HTML report: one bar per step whose segments are the JSON's figures, then the tables
expect_rc 0 profile "$D/a100-nccl-2rank.json.gz" --report "$TMP/p.html" --json
printf '%s' "$OUT" | python3 -c '
import json, re, sys
d = json.load(sys.stdin)
html = open(sys.argv[1]).read()
assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
for s in d["steps"]:
    bar = "#" + s["step"][len("ProfilerStep#"):]
    segs = {m.group(1): float(m.group(2)) for m in re.finditer(
        r"<rect class=\"segment\" data-bar=\"" + bar + r"\" data-series=\"([^\"]+)\" data-value=\"([^\"]+)\"", html)}
    assert abs(segs["idle: host-bound"] - s["idle_launch_s"] * 1e3) < 1e-6, (bar, segs)
    assert abs(segs["comm (exposed)"] - s["comm_exposed_s"] * 1e3) < 1e-6, (bar, segs)
    gemm = sum(c["time_s"] for c in s["classes"] if c["class"] == "gemm") * 1e3
    assert abs(segs["gemm"] - gemm) < 1e-6, (bar, segs, gemm)
assert "id=\"profile-step-table\"" in html and d["total"]["bottleneck"] in html
' "$TMP/p.html" || fail "the profile report's bars disagree with the JSON"
expect_rc 0 profile "$D/ranks" --report "$TMP/r.html"
grep -q 'data-bar="rank 1"' "$TMP/r.html" && grep -q 'id="rank1-steps"' "$TMP/r.html" ||
	fail "the ranks report lacks a rank's bar or sections"
expect_rc 3 profile "$D/ranks" --report "$TMP/no/such/dir/r.html"
expect_err "--report"
[ ! -e "$TMP/no/such/dir/r.html" ] || fail "a failed --report left a file"
expect_rc 0 profile "$D/ranks" --csv
expect_out "rank,file,steps,step_s"
expect_rc 2 profile "$D/ranks" --target h100-sxm5-80gb
expect_err "--target predicts one trace"
mkdir -p "$TMP/empty"
expect_rc 2 profile "$TMP/empty"
expect_err "holds no trace"
cp "$D/ranks/rank-0.json.gz" "$TMP/empty/a.json.gz"
printf '{"traceEvents": [' >"$TMP/empty/b.json"
expect_rc 2 profile "$TMP/empty"
expect_err "b.json:"
[ -z "$OUT" ] || fail "profile of a directory with a broken trace wrote to stdout"

# golden breakdown of the NCCL run: three steps, all-reduce on its own stream partly hidden
expect_rc 0 profile "$D/a100-nccl-2rank.json.gz" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["trace"]["gpu"] == "NVIDIA A100-PG509-200" and d["trace"]["steps"] == 3
t = d["total"]
c = {(x["class"], x["sub"]): x["time_s"] for x in t["classes"]}
assert abs(c[("comm", "allreduce")] - 0.0468) < 0.0005, c
assert abs(c[("gemm", "tf32")] - 0.0195) < 0.0005, c
assert abs(c[("conv", "tf32")] - 0.0158) < 0.0005, c
assert 0 < t["comm_overlapped_s"] < t["comm_s"] and abs(t["comm_exposed_s"] + t["comm_overlapped_s"] - t["comm_s"]) < 1e-9
assert t["bottleneck"] == "gpu idle: host-bound", t["bottleneck"]
' || fail "the NCCL trace's breakdown moved"
expect_rc 0 profile "$D/a100-nccl-2rank.json.gz"
expect_out "ProfilerStep#5"
expect_out "bottleneck: gpu idle: host-bound"
expect_out "allreduce"
expect_width 80
expect_rc 0 profile "$D/legacy-2021-inference.json.gz"
expect_out "kineto-2021 schema"
expect_out "gemm         fp16"
expect_rc 0 profile "$D/mi250-rocm.json.gz" --csv
expect_out "step,class,sub,time_s,share,kernels"
expect_out "ProfilerStep#1,gemm,fp32,"

# --target: the traced GPU itself reproduces the measured step; an H100 scales each class
# by the ratio of the ceilings it names
expect_rc 0 profile "$D/a100-nccl-2rank.json.gz" --target a100-sxm4-40gb --json
printf '%s' "$OUT" | python3 -c '
import json, sys
t = json.load(sys.stdin)["target"]
assert abs(t["predicted_step_s"] - t["measured_step_s"]) <= 0.05 * t["measured_step_s"], t
assert all(c["factor"] == 1 for c in t["classes"])
' || fail "--target on the traced GPU does not reproduce the step"
expect_rc 0 profile "$D/a100-nccl-2rank.json.gz" --target h100-sxm5-80gb --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
t = d["target"]
c = {(x["class"], x["sub"]): x for x in t["classes"]}
g = c[("gemm", "tf32")]
assert g["ceiling"] == "tf32 matmul" and g["target_ceiling"] > 2 * g["source_ceiling"], g
assert abs(g["ceiling_factor"] - g["source_ceiling"] / g["target_ceiling"]) < 1e-9
assert abs(g["predicted_s"] - g["measured_s"] * g["factor"]) < 1e-6 * g["predicted_s"]
assert c[("elementwise", "")]["ceiling"] == "memory bandwidth"
assert c[("comm", "allreduce")]["ceiling"] == "GPU link"
# the host time stays: the step shrinks by less than the GPU work does
assert t["host_s"] < t["scaled_step_s"] < t["measured_step_s"], t
assert t["predicted_step_s"] <= t["measured_step_s"] * (1 + 1e-9), t
assert t["source_sms"] == 108 and t["target_sms"] == 132, t
for x in t["classes"]:
    assert abs(x["factor"] - x["ceiling_factor"] * x["adjust"]) < 1e-6 * x["factor"], x
    assert abs(x["predicted_s"] - x["measured_s"] * x["factor"]) < 1e-6 * x["predicted_s"] + 1e-12, x
# the all-reduces re-timed from their message sizes: not the link ratio alone
a = c[("comm", "allreduce")]
assert abs(a["adjust"] - 1) > 0.01 and 0 < a["factor"] < 1, a
' || fail "--target h100-sxm5-80gb does not scale the classes by their ceilings"
# every public trace of one GPU: the replay with the trace's own durations gives back its step
for f in a100-alexnet a100-event-sync mi250-rocm legacy-2021-inference ranks/rank-0 ranks/rank-1; do
	expect_rc 0 profile "$D/$f.json.gz" --source-gpu a100-sxm4-40gb --target a100-sxm4-40gb --json
	printf '%s' "$OUT" | python3 -c '
import json, sys
t = json.load(sys.stdin)["target"]
for k in ("replayed_step_s", "predicted_step_s", "scaled_step_s"):
    assert abs(t[k] - t["measured_step_s"]) <= 0.05 * t["measured_step_s"], (k, t)
' || fail "$f: --target on its own GPU does not reproduce the step"
done

# the replay on small traces whose answer is worked by hand (A100 -> H100: memory-bound
# kernels x 3350/1555 faster, an SM-count of 108 against 132)
K=0.46417910447761196 # 1555 / 3350
replay() { # replay NAME JSON-EVENTS: the predicted step of a trace of these events
	printf '{"deviceProperties": [{"name": "NVIDIA A100-PG509-200", "totalGlobalMem": 42297524224, "numSms": 108}],\n"traceEvents": [%s]}' "$2" >"$TMP/$1.json"
	expect_rc 0 profile "$TMP/$1.json" --target h100-sxm5-80gb --json
	STEP=$(printf '%s' "$OUT" | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["predicted_step_s"] * 1e6)')
}
near() { # near GOT WANT WHAT
	python3 -c 'import sys; g, w = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(g - w) > 1e-6 * abs(w) + 1e-6)' "$1" "$2" ||
		fail "$3: replay gives $1 us, want $2"
}
L='{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "dur": 1, "tid": 1'
E='{"ph": "X", "cat": "kernel", "name": "elementwise_kernel", "dur": 100'
# two kernels queued on one stream: the span shrinks by K
replay queued "$L, \"ts\": 0, \"args\": {\"correlation\": 1}}, $L, \"ts\": 1, \"args\": {\"correlation\": 2}},
 $E, \"ts\": 5, \"args\": {\"correlation\": 1, \"stream\": 7}}, $E, \"ts\": 105, \"args\": {\"correlation\": 2, \"stream\": 7}}"
near "$STEP" "$(python3 -c "print(200 * $K)")" "two queued kernels"
# B on stream 20 waits for A on stream 7 through an event: B follows A; without the wait it keeps its start
AB="$L, \"ts\": 0, \"args\": {\"correlation\": 1}}, $L, \"ts\": 1, \"args\": {\"correlation\": 2}},
 $L, \"ts\": 2, \"args\": {\"correlation\": 3}}, $L, \"ts\": 3, \"args\": {\"correlation\": 4}},
 $E, \"ts\": 5, \"args\": {\"correlation\": 1, \"stream\": 7}}, $E, \"ts\": 105, \"args\": {\"correlation\": 4, \"stream\": 20}}"
replay waits "$AB, {\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Wait Event\", \"ts\": 4, \"dur\": 0,
 \"args\": {\"stream\": 20, \"correlation\": 3, \"wait_on_stream\": 7, \"wait_on_cuda_event_record_corr_id\": 2}}"
near "$STEP" "$(python3 -c "print(200 * $K)")" "a cross-stream wait"
replay nowait "$AB"
near "$STEP" "$(python3 -c "print(100 + 100 * $K)")" "no wait in the trace"
# a step: kernel A, then the host waits in cudaDeviceSynchronize until A ends (+1 us), then launches B
# 3 us later, which starts 3 us after its launch; the step ends 5 us after B
S='{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 215}'
replay sync "$S, $L, \"ts\": 0, \"args\": {\"correlation\": 1}}, $E, \"ts\": 5, \"args\": {\"correlation\": 1, \"stream\": 7}},
 {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaDeviceSynchronize\", \"ts\": 10, \"dur\": 96},
 $L, \"ts\": 109, \"args\": {\"correlation\": 2}}, $E, \"ts\": 110, \"args\": {\"correlation\": 2, \"stream\": 7}}"
# the sync returns 1 us after A ends (5 + 100 K), so the host moves by 100 (K - 1) and the step with it
near "$STEP" "$(python3 -c "print(215 + 100 * ($K - 1))")" "a host synchronisation"
# waves: a GEMM of 108 blocks fills the A100's 108 SMs once, the H100's 132 to 108/132
replay waves "$L, \"ts\": 0, \"args\": {\"correlation\": 1}}, {\"ph\": \"X\", \"cat\": \"kernel\",
 \"name\": \"ampere_sgemm_128x64_nn\", \"dur\": 100, \"ts\": 5, \"args\": {\"correlation\": 1, \"stream\": 7, \"grid\": [54, 2, 1], \"block\": [128, 1, 1]}}"
printf '%s' "$OUT" | python3 -c '
import json, sys
t = json.load(sys.stdin)["target"]
c = t["classes"][0]
assert abs(c["adjust"] - 132 / 108) < 1e-9 and abs(c["ceiling_factor"] - 19.5 / 66.9) < 1e-9, c
assert abs(t["predicted_step_s"] - 100e-6 * c["ceiling_factor"] * 132 / 108) < 1e-12, t
' || fail "a one-wave GEMM is not quantised on the target's SMs"
expect_rc 0 profile "$D/a100-nccl-2rank.json.gz" --target h100-sxm5-80gb
expect_out "tf32 matmul"
expect_out "predicted"
expect_width 80
# board names: NVIDIA A100-PG509-200 with 39.4 GiB and 108 SMs is the A100 SXM4 40GB
expect_rc 0 profile "$D/a100-alexnet.json.gz" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
assert json.load(sys.stdin)["trace"]["source_gpu"] == "a100-sxm4-40gb"' || fail "the board name does not resolve"
# a generic ROCm name: no GPU by that name, the near matches by memory and compute units
expect_rc 2 profile "$D/mi250-rocm.json.gz" --target h100-sxm5-80gb
expect_err "unknown gpu 'AMD Radeon Graphics' (64.0 GiB, 104 SMs); the same memory and SMs: mi210-64gb"
expect_err "give it with --source-gpu GPU"
expect_rc 0 profile "$D/mi250-rocm.json.gz" --source-gpu mi250x-gcd-64gb --target h100-sxm5-80gb
expect_rc 2 profile "$D/legacy-2021-inference.json.gz" --target h100-sxm5-80gb
expect_err "does not name its GPU"
expect_rc 0 profile "$D/legacy-2021-inference.json.gz" --source-gpu v100-sxm2-16gb --target h100-sxm5-80gb
expect_out "on h100-sxm5-80gb instead of v100-sxm2-16gb"
# a name that resolves but whose memory disagrees with the trace's is refused, naming the one that fits
zcat "$D/a100-event-sync.json.gz" | sed 's/NVIDIA A100-PG509-200/NVIDIA A100-SXM4-80GB/g' >"$TMP/renamed.json"
expect_rc 2 profile "$TMP/renamed.json" --target h100-sxm5-80gb
expect_err "its name matches, with other memory or SMs: a100-sxm4-80gb; the same memory and SMs: a100-sxm4-40gb"

# achieved FLOP/s: the operators' FLOPs from their recorded shapes, summed here independently
# (2 M N K per mm/addmm, 2 b M N K per bmm, over the innermost such operator around each launch
# that leads to a GEMM kernel)
expect_rc 0 profile "$D/ranks/rank-0.json.gz" --source-gpu a100-sxm4-40gb --json
printf '%s' "$OUT" >"$TMP/p.json"
python3 - "$D/ranks/rank-0.json.gz" "$TMP/p.json" <<'PY' || fail "the FLOPs disagree with the shapes' own sums"
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
p = json.load(open(sys.argv[2]))
def flops(e):
    n, d = e["name"], e["args"].get("Input Dims", [])
    try:
        if n in ("aten::mm", "aten::bmm"):
            a, b = d[0], d[1]
        elif n in ("aten::addmm", "aten::baddbmm"):
            a, b = d[1], d[2]
        else:
            return None
        batch = a[0] if len(a) == 3 else 1
        assert a[-1] == b[-2]
        return 2 * batch * a[-2] * a[-1] * b[-1]
    except (IndexError, AssertionError):
        return None
ops = [e for e in ev if e.get("cat") == "cpu_op" and e.get("ph") == "X" and flops(e)]
launch = {e["args"]["correlation"]: e for e in ev if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
want, have = 0, sum(c["flops"] or 0 for c in p["total"]["classes"])
counted = set()
for k in ev:
    if k.get("cat") != "kernel" or "gemm" not in k["name"].lower():
        continue
    l = launch.get(k["args"].get("correlation"))
    if not l:
        continue
    around = [o for o in ops if o["tid"] == l["tid"] and o["ts"] <= l["ts"] < o["ts"] + o["dur"]]
    if around:
        o = max(around, key=lambda o: o["ts"])
        if id(o) not in counted:
            counted.add(id(o))
            want += flops(o)
assert want > 1e12 and abs(have - want) <= 0.005 * want, (have, want)
g = [c for c in p["total"]["classes"] if c["class"] == "gemm" and c["flops"]]
for c in g:
    assert abs(c["tflops"] - c["flops"] / c["flop_time_s"] * 1e-12) < 1e-6 * c["tflops"]
    assert abs(c["of_peak"] - c["tflops"] / c["peak_tflops"]) < 1e-9
print("flops", have, want, file=sys.stderr)
PY

# --model: each part of the mean step against the model's estimate of the same workload on the
# traced GPU; the ratios as a calibration file that estimate applies, and says so
W="--model resnet50 --gpus 2 --global-batch 64 --precision tf32"
expect_rc 0 profile "$D/a100-nccl-2rank.json.gz" $W --output "$TMP/cal.json" --json
printf '%s' "$OUT" >"$TMP/k.json"
expect_err "calibration written to $TMP/cal.json"
expect_rc 0 profile "$D/a100-nccl-2rank.json.gz" --json
printf '%s' "$OUT" >"$TMP/p.json"
expect_rc 0 estimate $W --gpu a100-sxm4-40gb --json --calibration "$TMP/cal.json"
expect_err "each part of the step on a100-sxm4-40gb is scaled by its traced/estimated ratio"
printf '%s' "$OUT" >"$TMP/e1.json"
GPUSCOPE_CALIBRATION=$TMP/none.json expect_rc 0 estimate $W --gpu a100-sxm4-40gb --json
printf '%s' "$OUT" >"$TMP/e0.json"
python3 - "$TMP/k.json" "$TMP/p.json" "$TMP/e0.json" "$TMP/e1.json" "$TMP/cal.json" <<'PY' || fail "the calibration from a trace does not hold"
import json, sys
k, p, e0, e1, cal = (json.load(open(f)) for f in sys.argv[1:])
n = len(p["steps"])
parts = {x["part"]: x for x in k["parts"]}
t = p["total"]
gemm = sum(c["time_s"] for c in t["classes"] if c["class"] in ("gemm", "conv")) / n
assert abs(parts["gemm"]["traced_s"] - gemm) < 1e-6 * gemm, parts["gemm"]
assert abs(parts["comm"]["traced_s"] - t["comm_exposed_s"] / n) < 1e-9
assert abs(parts["host"]["traced_s"] - t["gpu_idle_s"] / n) < 1e-9
for x in k["parts"]:
    if x["traced_s"] > 0 and x["estimated_s"] > 0:
        assert abs(x["factor"] - x["traced_s"] / x["estimated_s"]) < 1e-6 * x["factor"], x
        assert abs(cal["corrections"]["classes"][x["part"]] - x["factor"]) < 1e-6 * x["factor"]
    else:
        assert x["factor"] is None and x["part"] not in cal["corrections"]["classes"], x
step0, step1 = e0["time"]["step_s"], e1["time"]["step_s"]
assert abs(step0 - k["estimated_step_s"]) < 1e-6 * step0, (step0, k)
assert abs(step1 - k["corrected_step_s"]) < 1e-6 * step1, (step1, k)
# the corrected parts are the traced ones, the step moved by their change
g0, g1 = e0["time"]["gemm_s"], e1["time"]["gemm_s"]
assert abs(g1 - parts["gemm"]["traced_s"]) < 1e-6 * g1 and abs(g0 - parts["gemm"]["estimated_s"]) < 1e-6 * g0
PY
# --save: the default calibration path, its directories made
GPUSCOPE_CALIBRATION=$TMP/saved/dir/cal.json expect_rc 0 profile "$D/a100-nccl-2rank.json.gz" $W --save
expect_err "calibration written to $TMP/saved/dir/cal.json"
cmp -s "$TMP/saved/dir/cal.json" "$TMP/cal.json" || python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["corrections"]["classes"] == b["corrections"]["classes"]' "$TMP/saved/dir/cal.json" "$TMP/cal.json" ||
	fail "--save wrote another file than --output"
# a corrections section that is not one: located errors; a file without one loads as before
bad_cal() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); exec(sys.argv[2]); json.dump(d, open(sys.argv[3], "w"), indent=1)' \
		"$TMP/cal.json" "$1" "$TMP/bad.json"
	expect_rc 2 estimate $W --gpu a100-sxm4-40gb --calibration "$TMP/bad.json"
	expect_err "$2"
}
bad_cal 'd["corrections"]["version"] = 2' "field 'corrections.version': expected 1"
bad_cal 'd["corrections"]["classes"]["gpu"] = 1' "'gpu' is not a part of the step"
bad_cal 'd["corrections"]["classes"]["gemm"] = -1' "field 'corrections.classes.gemm': expected a positive number"
bad_cal 'd["corrections"] = []' "field 'corrections': expected an object"
bad_cal 'del d["corrections"]["classes"]' "corrections.classes"
expect_rc 0 estimate $W --gpu a100-sxm4-40gb --calibration "$SRCDIR/tests/fuzz/corpus/calibration/good.json"
expect_err "measured ceilings of"
if printf '%s' "$ERR" | grep -q "traced/estimated"; then fail "a file without corrections applies some"; fi
expect_rc 2 profile "$D/legacy-2021-inference.json.gz" --model resnet50
expect_err "does not name its GPU"

# broken and hostile traces: a located error, exit 2, nothing on stdout
bad() {
	expect_rc 2 profile "$TMP/$1"
	expect_err "$2"
	[ -z "$OUT" ] || fail "profile $1 wrote to stdout"
}
zcat "$D/mi250-rocm.json.gz" | head -c 30000 >"$TMP/cut.json"
bad cut.json "expected"
head -c 3000 "$D/a100-alexnet.json.gz" >"$TMP/cut.json.gz"
bad cut.json.gz "cut.json.gz:"
python3 -c 'print("{\"traceEvents\": [{\"args\": " + "[" * 100000)' >"$TMP/deep.json"
bad deep.json "nesting deeper than 64 levels"
python3 -c 'print("{\"traceEvents\": [{\"ts\": 1" + "0" * 400 + "}]}")' >"$TMP/huge.json"
bad huge.json "longer than 64 characters"
printf '{"traceEvents": [\n {"ph": "X", "dur": [1]}]}' >"$TMP/type.json"
bad type.json "type.json:2:21: field 'dur': byte 38: expected a number, found '['"
python3 -c '
import gzip, sys
with gzip.open(sys.argv[1], "wb", compresslevel=1) as f:
    f.write(b"{\"traceEvents\": [{\"name\": \"")
    for _ in range(5):
        f.write(b"x" * (1 << 20))
' "$TMP/long.json.gz"
bad long.json.gz "a string longer than 4194304 bytes"
bad no-such.json.gz "cannot open"
expect_rc 2 profile
expect_err "expected a trace file"
finish
