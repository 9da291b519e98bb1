#!/bin/bash
# gpuscope export --bench-file: bench's calibration file served as
# gpuscope_bench_* gauges, read again when it changes, and a malformed one
# served as nothing but gpuscope_bench_file_up 0 and the error counter,
# with a located log line, while the GPU families go on; promtool lints the
# families; bench --save's default file is served unasked.
# ctest: beside other tests (it checks values, not how long anything took)
EXPORT_LIB_ONLY=1 . "$TESTS/integration/70-export-basic.sh"

unset GPUSCOPE_CALIBRATION
export XDG_CONFIG_HOME="$TMP/no-config"
CAL="$TMP/cal.json"
# a calibration as bench writes it: the fake H100 capped at half power (by the build whose fake
# CUDA stack it is: under ThreadSanitizer, the AddressSanitizer build's)
BB=${BENCH_BUILDDIR:-$BUILDDIR}
GPUSCOPE=${BENCH_GPUSCOPE:-$GPUSCOPE} GPUSCOPE_BENCH_LIBS="$BB/fake-cuda" \
	FAKE_CUDA_SCENARIO="$TESTS/fake-cuda/scenarios/h100-halfpower.ini" \
	FAKE_NVML_SCENARIO="$TESTS/fake-nvml/scenarios/bench-h100-halfpower.ini" \
	run bench --nvml "$BB/fake-nvml/libnvidia-ml.so.1" --only gemm,hbm,host --output "$CAL"
CHECKS=$((CHECKS + 1))
[ "$RC" -eq 0 ] && [ -s "$CAL" ] || fail "bench --output exited $RC: $ERR"
BF16=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["ceilings"]["gemm"]["bf16"]["tflops"])' "$CAL")
DATE=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["date"])' "$CAL")

# ---- --once: every family, promtool clean ----
FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" run export --nvml "$FAKE" --once --names native --bench-file "$CAL"
CHECKS=$((CHECKS + 1))
[ "$RC" -eq 0 ] || fail "--once --bench-file exited $RC: $ERR"
printf '%s\n' "$OUT" >"$TMP/once.prom"
expect_out 'gpuscope_bench_file_up 1'
expect_out "gpuscope_bench_info{gpu_type=\"h100-sxm5-80gb\",model_name=\"NVIDIA H100 80GB HBM3\",uuid=\"GPU-b3c1a9e2"
expect_out "date=\"$DATE\"} 1"
expect_out "gpuscope_bench_gemm_tflops{gpu_type=\"h100-sxm5-80gb\",dtype=\"bf16\"} $BF16"
expect_out 'gpuscope_bench_hbm_gbps{gpu_type="h100-sxm5-80gb",kernel="copy"} '
expect_out 'gpuscope_bench_host_copy_gbps{gpu_type="h100-sxm5-80gb",direction="h2d"} '
expect_out 'gpuscope_bench_gpus{gpu_type="h100-sxm5-80gb"} 8'
expect_out 'gpuscope_bench_clock_mhz{gpu_type="h100-sxm5-80gb",clock="sm"} 990'
expect_out 'gpuscope_bench_timestamp_seconds{gpu_type="h100-sxm5-80gb"} '
expect_out 'gpuscope_bench_age_seconds{gpu_type="h100-sxm5-80gb"} '
expect_out 'gpuscope_bench_file_errors_total 0'
expect_out 'gpu_temperature_celsius{gpu="0",'
# what was not measured is not served (no collective, launch or peer run)
CHECKS=$((CHECKS + 1))
case $OUT in *gpuscope_bench_allreduce*|*gpuscope_bench_launch*|*gpuscope_bench_p2p*) fail "an unmeasured figure was served" ;; esac
# the age is now - the date bench wrote
python3 - "$TMP/once.prom" "$DATE" <<'PY' || fail "gpuscope_bench_age_seconds"
import calendar, sys, time
t = calendar.timegm(time.strptime(sys.argv[2], "%Y-%m-%dT%H:%M:%SZ"))
v = {l.split("{")[0]: float(l.split()[-1]) for l in open(sys.argv[1]) if l.startswith("gpuscope_bench_")}
assert v["gpuscope_bench_timestamp_seconds"] == t, v
assert abs(v["gpuscope_bench_age_seconds"] - (time.time() - t)) < 60, v
PY
if command -v promtool >/dev/null 2>&1; then
	CHECKS=$((CHECKS + 1))
	grep -A3 '^# HELP gpuscope_bench_' "$TMP/once.prom" | grep -v '^--$' >"$TMP/bench.prom"
	promtool check metrics <"$TMP/bench.prom" >"$TMP/lint" 2>&1 || fail "promtool check metrics: $(head -20 "$TMP/lint")"
fi

# ---- live: a rewritten file is read again at the next collection ----
cp "$CAL" "$TMP/live.json"
start_exporter "$SCEN/dgx-h100.ini" --interval 100ms --bench-file "$TMP/live.json"
get /metrics
expect_code 200 "/metrics with --bench-file"
has "gpuscope_bench_gemm_tflops{gpu_type=\"h100-sxm5-80gb\",dtype=\"bf16\"} $BF16"
has 'gpuscope_bench_file_reloads_total 1'
has 'DCGM_FI_DEV_GPU_TEMP{gpu="0",'
python3 - "$TMP/live.json" <<'PY'
import json, os, sys
c = json.load(open(sys.argv[1]))
c["ceilings"]["gemm"]["bf16"]["tflops"] = 755.5
c["ceilings"]["hbm_copy_gbps"] = 2750.25
tmp = sys.argv[1] + ".new"
json.dump(c, open(tmp, "w"), indent=2)
os.replace(tmp, sys.argv[1])    # as bench --output writes it: a new file in its place
PY
wait_metric 'gpuscope_bench_gemm_tflops{gpu_type="h100-sxm5-80gb",dtype="bf16"} 755.5'
has 'gpuscope_bench_hbm_gbps{gpu_type="h100-sxm5-80gb",kernel="copy"} 2750.25'
has 'gpuscope_bench_file_reloads_total 2'
# the same file in place, rewritten with other bytes: read again too
sed -i 's/755.5/760.5/' "$TMP/live.json"
touch -d '+2 seconds' "$TMP/live.json"
wait_metric 'gpuscope_bench_gemm_tflops{gpu_type="h100-sxm5-80gb",dtype="bf16"} 760.5'

# ---- malformed: nothing of it served, an error counted and logged, the exporter alive ----
# put TEXT: the live file replaced whole, so no collection reads it half written
put() {
	printf "$1" >"$TMP/live.json.new" && mv "$TMP/live.json.new" "$TMP/live.json"
}
put '{"format": "gpuscope-calibration", "version": 1, "gpu": {"catalog": "h100-sxm5-80gb"},\n  "ceilings": {"gemm": {"bf16": {"tflops": -3, "m": 1, "n": 1, "k": 1}}}}\n'
wait_metric 'gpuscope_bench_file_up 0'
has 'gpuscope_bench_file_errors_total 1'
lacks 'gpuscope_bench_gemm_tflops'
lacks 'gpuscope_bench_info'
has 'DCGM_FI_DEV_GPU_TEMP{gpu="0",'
CHECKS=$((CHECKS + 1))
grep -qF "$TMP/live.json:2:34: field 'ceilings.gemm.bf16.tflops': expected a positive number" "$EXP_LOG" ||
	fail "no located log line for the malformed file: $(grep bench-file "$EXP_LOG")"
# one bad version is one error, however many collections see it
sleep 0.5
get /metrics
has 'gpuscope_bench_file_errors_total 1'
# truncated, then gone: still nothing served, never a crash
put '{"format": "gpuscope-calibration", "ver'
wait_metric 'gpuscope_bench_file_errors_total 2'
rm -f "$TMP/live.json"
sleep 0.3
get /metrics
expect_code 200 "/metrics with the bench file gone"
has 'gpuscope_bench_file_up 0'
has 'gpuscope_bench_file_errors_total 2'
# and back: served again
cp "$CAL" "$TMP/live.json"
wait_metric "gpuscope_bench_gemm_tflops{gpu_type=\"h100-sxm5-80gb\",dtype=\"bf16\"} $BF16"
has 'gpuscope_bench_file_up 1'
stop_exporter TERM
CHECKS=$((CHECKS + 1))
[ "$STOP_RC" = 0 ] || fail "the exporter exited $STOP_RC"

# ---- the default: bench --save's file when it exists; none when it does not, or with none ----
mkdir -p "$TMP/config/gpuscope"
XDG_CONFIG_HOME="$TMP/config" FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" run export --nvml "$FAKE" --once
CHECKS=$((CHECKS + 1))
case $OUT in *gpuscope_bench_*) fail "bench families without a bench file" ;; esac
cp "$CAL" "$TMP/config/gpuscope/calibration.json"
XDG_CONFIG_HOME="$TMP/config" FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" run export --nvml "$FAKE" --once
expect_out "gpuscope_bench_gemm_tflops{gpu_type=\"h100-sxm5-80gb\",dtype=\"bf16\"} $BF16"
XDG_CONFIG_HOME="$TMP/config" FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" run export --nvml "$FAKE" --once --bench-file none
CHECKS=$((CHECKS + 1))
case $OUT in *gpuscope_bench_*) fail "--bench-file none served bench families" ;; esac
finish
