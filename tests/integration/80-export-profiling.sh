#!/bin/bash
# Profiling metrics through NVML's GPM on the fake NVML: dcgm-exporter's
# DCGM_FI_PROF_* families and the native ones on the DGX H100 (promtool-clean),
# absent (not zero) on GPUs without GPM with /health saying why, a GPM
# sample that goes backwards, and MIG: GPU_I_PROFILE / GPU_I_ID labels and a
# GPU instance that is destroyed while the exporter runs.
# ctest: beside other tests (it checks values, not how long anything took)
EXPORT_LIB_ONLY=1 . "$TESTS/integration/70-export-basic.sh"

PROF="GR_ENGINE_ACTIVE SM_ACTIVE SM_OCCUPANCY PIPE_TENSOR_ACTIVE PIPE_FP64_ACTIVE PIPE_FP32_ACTIVE
PIPE_FP16_ACTIVE DRAM_ACTIVE NVLINK_TX_BYTES NVLINK_RX_BYTES PCIE_TX_BYTES PCIE_RX_BYTES"

# ---- DGX H100: every profiling family, on all eight GPUs ----
FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" run export --nvml "$FAKE" --once --names dcgm
CHECKS=$((CHECKS + 1))
[ "$RC" -eq 0 ] || fail "--once exited $RC: $ERR"
printf '%s\n' "$OUT" >"$TMP/dcgm.prom"
for f in $PROF; do
	CHECKS=$((CHECKS + 1))
	n=$(grep -c "^DCGM_FI_PROF_$f{" "$TMP/dcgm.prom")
	[ "$n" = 8 ] || fail "DCGM_FI_PROF_$f: $n series, want 8"
	CHECKS=$((CHECKS + 1))
	grep -q "^# TYPE DCGM_FI_PROF_$f gauge" "$TMP/dcgm.prom" || fail "DCGM_FI_PROF_$f is not a gauge"
done
expect_out 'DCGM_FI_PROF_SM_ACTIVE{gpu="3",'
expect_out ',DCGM_FI_DRIVER_VERSION="550.54.15"} 0.8825'
expect_out ',DCGM_FI_DRIVER_VERSION="550.54.15"} 0.6375'
# 102400 MiB/s of NVLink transmit, in bytes/s
expect_out ',DCGM_FI_DRIVER_VERSION="550.54.15"} 107374182400'

FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" run export --nvml "$FAKE" --once --names native
printf '%s\n' "$OUT" >"$TMP/native.prom"
CHECKS=$((CHECKS + 1))
promtool check metrics <"$TMP/native.prom" >"$TMP/lint" 2>&1 || fail "promtool check metrics: $(head -20 "$TMP/lint")"
expect_out 'gpu_sm_active_ratio{gpu="7",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000007"} 0.8825'
expect_out 'gpu_sm_occupancy_ratio{gpu="0",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000000"} 0.415'
expect_out 'gpu_pipe_active_ratio{gpu="0",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000000",pipe="fp64"} 0.005'
expect_out 'gpu_dram_active_ratio{gpu="0",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000000"} 0.57'
expect_out 'gpu_nvlink_receive_bytes_per_second{gpu="0",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000000"} 103079215104'

# ---- A100s: no GPM, so no profiling family at all, and /health says why ----
start_exporter "$SCEN/a100-pcie-x8.ini" --interval 200ms
get /metrics
expect_code 200 "/metrics without GPM"
for f in $PROF; do
	case $f in PCIE_*) continue;; esac   # the 20 ms PCIe window stands in
	lacks "DCGM_FI_PROF_$f"
done
lacks 'gpu_sm_active_ratio'
lacks 'gpu_pipe_active_ratio'
has 'DCGM_FI_DEV_GPU_UTIL{gpu="0"'
get /health
expect_code 200 "/health without GPM"
has 'no profiling metrics on gpu 0,1,2,3: the GPU has no GPM profiling counters (Hopper and later GPUs have them)'
stop_exporter TERM

# ---- a GPM sample that goes backwards: those readings are dropped, the rest flow ----
sed 's/^gpm = 1$/gpm = 1\ngpm_backwards_after = 4/' "$SCEN/dgx-h100.ini" >"$TMP/backwards.ini"
start_exporter "$TMP/backwards.ini" --interval 100ms
wait_metric 'gpu_up{gpu="0",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000000"} 1'
sleep 1
get /metrics
expect_code 200 "/metrics after GPM went backwards"
lacks 'gpu_sm_active_ratio{'
lacks 'DCGM_FI_PROF_SM_ACTIVE{'
has 'gpu_power_watts{gpu="0",'
has 'gpu_up{gpu="7",uuid="GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000007"} 1'
stop_exporter TERM
CHECKS=$((CHECKS + 1))
[ "$STOP_RC" = 0 ] || fail "exit $STOP_RC after GPM went backwards"

# ---- MIG on an H100: per-instance memory and profiling, labelled as dcgm-exporter does ----
FAKE_NVML_SCENARIO="$SCEN/h100-mig.ini" run export --nvml "$FAKE" --once
CHECKS=$((CHECKS + 1))
[ "$RC" -eq 0 ] || fail "--once on MIG exited $RC: $ERR"
expect_out ',GPU_I_PROFILE="3g.40gb",GPU_I_ID="1"} 20480'
expect_out ',GPU_I_PROFILE="1g.10gb",GPU_I_ID="9"} 2048'
expect_out ',GPU_I_PROFILE="2g.20gb",GPU_I_ID="5"} 0.4'
expect_out 'gpu_sm_active_ratio{gpu="0",uuid="GPU-1b2c3d4e-0000-4000-8000-00000000a100",gpu_instance="9",mig_profile="1g.10gb"} 0.125'
expect_out 'gpu_mig_memory_used_bytes{gpu="0",uuid="GPU-1b2c3d4e-0000-4000-8000-00000000a100",gpu_instance="1",compute_instance="0",mig_profile="3g.40gb",'
CHECKS=$((CHECKS + 1))
n=$(printf '%s\n' "$OUT" | grep '^DCGM_FI_PROF_SM_ACTIVE{' | grep -vc 'GPU_I_ID=')
[ "$n" = 0 ] || fail "a MIG-enabled GPU has $n whole-GPU profiling series"
CHECKS=$((CHECKS + 1))
n=$(printf '%s\n' "$OUT" | grep -c '^DCGM_FI_PROF_SM_ACTIVE{.*GPU_I_ID=')
[ "$n" = 3 ] || fail "$n per-instance SM activity series, want 3" 

# GI 9 is destroyed after 300 calls: it goes, the other instances stay
start_exporter "$SCEN/h100-mig.ini" --interval 100ms
wait_metric 'gpu_up{gpu="0",uuid="GPU-1b2c3d4e-0000-4000-8000-00000000a100"} 1'
for i in $(seq 1 100); do
	curl -s --max-time 2 "$BASE/metrics" -o "$TMP/body"
	grep -q 'GPU_I_ID="9"' "$TMP/body" || break
	sleep 0.1
done
lacks 'GPU_I_ID="9"'
lacks 'gpu_instance="9"'
has ',GPU_I_PROFILE="3g.40gb",GPU_I_ID="1"} 0.75'
has ',GPU_I_PROFILE="2g.20gb",GPU_I_ID="5"} 8192'
has 'gpu_up{gpu="0",uuid="GPU-1b2c3d4e-0000-4000-8000-00000000a100"} 1'
get /health
expect_code 200 "/health after a MIG instance went away"
stop_exporter TERM
CHECKS=$((CHECKS + 1))
[ "$STOP_RC" = 0 ] || fail "exit $STOP_RC after a MIG instance went away"

finish
