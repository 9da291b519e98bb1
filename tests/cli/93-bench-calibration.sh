#!/bin/bash
# The calibration round trip: bench on the fake H100 capped at half power
# writes its measured ceilings; estimate, plan and validate read them, say so,
# and predict a slower step by the share the ceilings imply.  Bad files are
# refused with file, line, column and field.
. "$TESTS/cli/lib.sh"
export GPUSCOPE_BENCH_LIBS="$BUILDDIR/fake-cuda"
export FAKE_CUDA_SCENARIO="$TESTS/fake-cuda/scenarios/h100-halfpower.ini"
export FAKE_NVML_SCENARIO="$TESTS/fake-nvml/scenarios/bench-h100-halfpower.ini"
export XDG_CONFIG_HOME="$TMP/config"
unset GPUSCOPE_CALIBRATION
NVML=(--nvml "$BUILDDIR/fake-nvml/libnvidia-ml.so.1")
CAL="$TMP/cal.json"

expect_rc 0 bench "${NVML[@]}" --only gemm,hbm --json --output "$CAL"
expect_err "bench: calibration written to $CAL"
BENCH=$OUT
python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
assert c["format"] == "gpuscope-calibration" and c["version"] == 1
assert c["gpu"]["catalog"] == "h100-sxm5-80gb" and c["gpu"]["name"] == "NVIDIA H100 80GB HBM3"
assert c["gpu"]["uuid"].startswith("GPU-b3c1a9e2") and c["driver"] == "550.54.15"
assert c["cuda_driver"] == 12040 and c["cublaslt"] == 130000 and c["nccl"] == 22105
assert c["clocks"]["sm_mhz"] == 990 and c["clocks"]["clock_events"] == "sw_power_cap", c["clocks"]
g = c["ceilings"]["gemm"]["bf16"]
assert (g["m"], g["n"], g["k"]) == (8192, 8192, 8192)
# half the clocks: half of 989.4 x 0.80 x (8192/8320)^3
assert abs(g["tflops"] - 989.4 * 0.8 * 0.5 * (8192 / 8320) ** 3) < 0.5, g
assert abs(c["efficiencies"]["bf16"] - g["tflops"] / 989) < 1e-3
assert c["date"].endswith("Z")
' "$CAL" || fail "calibration file contents"

# estimate with the calibration: GEMM time grows by expected / measured at the measured shape
ARGS=(--model llama2-7b --gpu h100-sxm5-80gb --gpus 8 --json)
expect_rc 0 estimate "${ARGS[@]}"
BASE=$OUT
expect_rc 0 estimate "${ARGS[@]}" --calibration "$CAL"
expect_err "estimate: calibration: measured ceilings of h100-sxm5-80gb, 8 x NVIDIA H100 80GB HBM3 measured"
expect_err "bf16 GEMM 377 TFLOP/s"
python3 -c '
import json, sys
base, cal, bench = (json.loads(a)["time"] if i < 2 else json.loads(a) for i, a in enumerate(sys.argv[1:]))
row = [r for r in bench["results"] if r["test"] == "gemm" and r["dtype"] == "bf16" and r["m"] == 8192][0]
share = row["expected"] / row["tflops"]     # what the ceilings imply: ~2.09
got = cal["gemm_s"] / base["gemm_s"]
assert abs(got - share) < 0.01 * share, (got, share)
assert cal["step_s"] > 1.5 * base["step_s"], (cal["step_s"], base["step_s"])
# memory-bound kernels follow the HBM copy (2,563 of the catalog 2,881 GB/s)
hbm = [r for r in bench["results"] if r["test"] == "hbm-copy"]
hshare = hbm[0]["expected"] / (sum(r["gbps"] for r in hbm) / len(hbm))
assert abs(cal["memory_bound_s"] / base["memory_bound_s"] - hshare) < 0.02 * hshare
' "$BASE" "$OUT" "$BENCH" || fail "calibrated estimate ratio"
# ... and says which file, GPU and date, and each ceiling measured against the catalog's
python3 -c '
import json, sys
base, cal, bench, f = json.loads(sys.argv[1]), json.loads(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4]
assert base["calibration"] is None, base["calibration"]
c = cal["calibration"]
assert (c["file"], c["gpu"], c["gpu_name"]) == (f, "h100-sxm5-80gb", "NVIDIA H100 80GB HBM3"), c
assert c["date"] == json.load(open(f))["date"]
e = {x["ceiling"]: x for x in c["ceilings"]}
row = [r for r in bench["results"] if r["test"] == "gemm" and r["dtype"] == "bf16" and r["m"] == 8192][0]
b = e["gemm-bf16"]
assert b["unit"] == "TFLOP/s" and abs(b["measured"] - row["tflops"]) < 1e-6 * row["tflops"], b
assert abs(b["catalog"] - row["expected"]) < 1e-3 * row["expected"], (b, row["expected"])
assert abs(b["time_factor"] - b["catalog"] / b["measured"]) < 1e-9 and abs(b["of_catalog"] * b["time_factor"] - 1) < 1e-9
# the step is slower by the share the measured ceilings imply: GEMM and flash attention (the same
# tensor cores, clocks and power) by the GEMM factor, memory-bound by the HBM one
t0, t1 = base["time"], cal["time"]
assert abs(t1["gemm_s"] / t0["gemm_s"] - b["time_factor"]) < 0.01 * b["time_factor"]
assert abs(t1["attention_s"] / t0["attention_s"] - b["time_factor"]) < 0.01 * b["time_factor"], (t0, t1)
assert abs(t1["memory_bound_s"] / t0["memory_bound_s"] - e["hbm"]["time_factor"]) < 0.02
rest = t0["step_s"] - t0["gemm_s"] - t0["attention_s"] - t0["memory_bound_s"] - t0["optimizer_s"]
want = (rest + (t0["gemm_s"] + t0["attention_s"]) * b["time_factor"]
        + (t0["memory_bound_s"] + t0["optimizer_s"]) * e["hbm"]["time_factor"])
assert abs(t1["step_s"] - want) < 0.01 * want, (t1["step_s"], want)
' "$BASE" "$OUT" "$BENCH" "$CAL" || fail "the calibration in estimate --json"
expect_rc 0 estimate --model llama2-7b --gpu h100-sxm5-80gb --gpus 8 --calibration "$CAL"
expect_out "calibration: $CAL (h100-sxm5-80gb, NVIDIA H100 80GB HBM3 measured 20"
expect_out "gemm-bf16  377.4 TFLOP/s    787.5 TFLOP/s"
expect_out "time x"
expect_rc 0 estimate --model llama2-7b --gpu h100-sxm5-80gb --gpus 8 --no-calibration
CHECKS=$((CHECKS + 1))
case $OUT in *calibration:*) fail "an uncalibrated estimate names a calibration" ;; esac

# --save writes the default place, which estimate then reads unasked; --no-calibration ignores it
# --quick flags the capped GPU (exit 1) and still saves
expect_rc 1 bench "${NVML[@]}" --only gemm --quick --save
[ -s "$XDG_CONFIG_HOME/gpuscope/calibration.json" ] || fail "--save did not write the default file"
expect_rc 0 estimate "${ARGS[@]}"
expect_err "($XDG_CONFIG_HOME/gpuscope/calibration.json)"
expect_rc 0 estimate "${ARGS[@]}" --no-calibration
[ -z "$ERR" ] || fail "--no-calibration still read a file: $ERR"
expect_rc 0 plan --model llama2-7b --gpu h100-sxm5-80gb --calibration "$CAL"
expect_err "plan: calibration: measured ceilings"
expect_out "calibration: $CAL (h100-sxm5-80gb"
# plan's CSV and JSON: the calibrated type's choices name the file, the others nothing
expect_rc 0 plan --model llama2-7b --gpu h100-sxm5-80gb,a100-sxm4-80gb --max-gpus 16 --top 40 --csv --calibration "$CAL"
printf '%s\n' "$OUT" >"$TMP/plan.csv"
expect_rc 0 plan --model llama2-7b --gpu h100-sxm5-80gb,a100-sxm4-80gb --max-gpus 16 --top 40 --json --calibration "$CAL"
printf '%s\n' "$OUT" >"$TMP/plan.json"
python3 - "$TMP/plan.csv" "$TMP/plan.json" "$CAL" <<'PY' || fail "the calibration in plan --csv and --json"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cal = sys.argv[3]
h100 = [r for r in rows if r["gpu"] == "h100-sxm5-80gb"]
assert h100 and all(r["calibration"] == cal for r in h100), [r["calibration"] for r in h100]
others = [r for r in rows if r["gpu"] != "h100-sxm5-80gb"]
assert others and all(r["calibration"] == "" for r in others)
d = json.load(open(sys.argv[2]))
assert d["calibration"]["file"] == cal and d["calibration"]["gpu"] == "h100-sxm5-80gb"
assert all((c["calibration"] == cal) == (c["gpu"] == "h100-sxm5-80gb") for c in d["ranked"])
PY
expect_rc 0 validate --calibration "$CAL"
expect_err "validate: calibration: measured ceilings"
expect_out "calibration: $CAL (h100-sxm5-80gb"
expect_rc 0 validate --csv --calibration "$CAL"
printf '%s\n' "$OUT" >"$TMP/validate.csv"
expect_rc 0 validate --json --calibration "$CAL"
printf '%s\n' "$OUT" >"$TMP/validate.json"
python3 - "$TMP/validate.csv" "$TMP/validate.json" "$CAL" <<'PY' || fail "the calibration in validate --csv and --json"
import csv, json, sys
cal = sys.argv[3]
rows = list(csv.DictReader(open(sys.argv[1])))
marked = [r for r in rows if r["calibration"]]
assert marked and all(r["calibration"] == cal for r in marked), len(marked)
assert len(marked) < len(rows)
d = json.load(open(sys.argv[2]))
assert d["calibration"]["file"] == cal
assert sum(1 for c in d["cases"] if c.get("calibration") == cal) == len(marked)
PY
expect_rc 0 validate --json --no-calibration
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["calibration"] is None and not any("calibration" in c for c in d["cases"])
' || fail "an uncalibrated validate names a calibration"
# another GPU type is untouched
expect_rc 0 estimate --model llama2-7b --gpu a100-sxm4-80gb --gpus 8 --json --no-calibration
A=$OUT
expect_rc 0 estimate --model llama2-7b --gpu a100-sxm4-80gb --gpus 8 --json --calibration "$CAL"
[ "$A" = "$OUT" ] || fail "the H100 calibration changed an A100 estimate"

# bad files: file, line, column, field; exit 2
bad() {
	printf '%s\n' "$1" >"$TMP/bad.json"
	expect_rc 2 estimate "${ARGS[@]}" --calibration "$TMP/bad.json"
	expect_err "$2"
	expect_no_crash
}
bad '{"format": "gpuscope-calibration", "version": 1,' "$TMP/bad.json:2:1: not valid JSON"
bad '[]' "$TMP/bad.json:1:1: expected a JSON object"
bad '{"format": "other"}' "$TMP/bad.json:1:2: field 'format': expected \"gpuscope-calibration\""
bad '{"format": "gpuscope-calibration",
 "version": 2}' "$TMP/bad.json:2:2: field 'version': version 2 is not one this gpuscope reads (1)"
bad '{"format": "gpuscope-calibration", "version": 1,
  "gpu": {"catalog": "h900"}, "ceilings": {}}' "$TMP/bad.json:2:11: field 'gpu.catalog':"
bad '{"format": "gpuscope-calibration", "version": 1, "gpu": {"catalog": "h100-sxm5-80gb"},
  "ceilings": {"gemm": {"bf16": {"tflops": -3, "m": 1, "n": 1, "k": 1}}}}' \
	"$TMP/bad.json:2:34: field 'ceilings.gemm.bf16.tflops': expected a positive number"
bad '{"format": "gpuscope-calibration", "version": 1, "gpu": {"catalog": "h100-sxm5-80gb"},
  "ceilings": {"gemm": {"int3": {}}}}' "field 'ceilings.gemm.int3': 'int3' is not a GEMM dtype"
bad '{"format": "gpuscope-calibration", "version": 1, "gpu": {"catalog": "h100-sxm5-80gb"},
  "ceilings": {"hbm_copy_gbps": "fast"}}' "$TMP/bad.json:2:16: field 'ceilings.hbm_copy_gbps': expected a positive number"
expect_rc 2 estimate "${ARGS[@]}" --calibration "$TMP/none.json"
expect_err "$TMP/none.json: cannot open: No such file or directory"
exit 0
