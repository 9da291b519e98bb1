#!/bin/bash
# dcgm-exporter parity: the host label's name (--hostname-label Hostname or
# hostname), per-link NVLink bandwidth (DCGM_FI_DEV_NVLINK_BANDWIDTH_L0..17,
# absent without NVLink), and the serial and VBIOS label fields a counters
# file may ask for (left out where the GPU does not report them).
# ctest: beside other tests (it checks values, not how long anything took)
EXPORT_LIB_ONLY=1 . "$TESTS/integration/70-export-basic.sh"
export NODE_NAME=node-07

# ---- the host label: dcgm-exporter's Hostname by default, hostname on request
FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" expect_rc 0 export --nvml "$FAKE" --kmsg none --once --names dcgm
expect_out 'modelName="NVIDIA H100 80GB HBM3",Hostname="node-07",DCGM_FI_DRIVER_VERSION="550.54.15"} 41'
FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" expect_rc 0 export --nvml "$FAKE" --kmsg none --once --names dcgm \
	--hostname-label hostname
expect_out 'modelName="NVIDIA H100 80GB HBM3",hostname="node-07",DCGM_FI_DRIVER_VERSION="550.54.15"} 41'
CHECKS=$((CHECKS + 1))
case "$OUT" in *Hostname=*) fail "--hostname-label hostname still wrote Hostname" ;; esac
# the native names keep their own hostname label on gpu_info
FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" expect_rc 0 export --nvml "$FAKE" --kmsg none --once --names native \
	--hostname-label hostname
expect_out 'serial="1652324000",hostname="node-07"} 1'
expect_rc 2 export --nvml "$FAKE" --once --hostname-label HOSTNAME
expect_err "option '--hostname-label' must be Hostname or hostname, got 'HOSTNAME'"

# ---- per-link NVLink bandwidth: (tx + rx KiB) x 1024 bytes, one family per link
FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" expect_rc 0 export --nvml "$FAKE" --kmsg none --once --names dcgm
printf '%s\n' "$OUT" >"$TMP/dgx.prom"
CHECKS=$((CHECKS + 1))
n=$(grep -c '^# TYPE DCGM_FI_DEV_NVLINK_BANDWIDTH_L[0-9]* counter$' "$TMP/dgx.prom")
[ "$n" -eq 18 ] || fail "$n per-link bandwidth families on 18-link H100s, want 18"
CHECKS=$((CHECKS + 1))
# 123456789 + 123450000 KiB on every link of every GPU
bad=$(grep '^DCGM_FI_DEV_NVLINK_BANDWIDTH_L' "$TMP/dgx.prom" | grep -vc '} 252832551936$')
[ "$bad" -eq 0 ] || fail "$bad per-link bandwidth samples are not 252832551936 bytes"
[ "$(grep -c '^DCGM_FI_DEV_NVLINK_BANDWIDTH_L17{' "$TMP/dgx.prom")" -eq 8 ] || fail "L17 is not on all 8 GPUs"
# PCIe A100s have no NVLink: the families are absent, not 0
FAKE_NVML_SCENARIO="$SCEN/a100-pcie-x8.ini" expect_rc 0 export --nvml "$FAKE" --kmsg none --once --names dcgm
CHECKS=$((CHECKS + 1))
case "$OUT" in *NVLINK_BANDWIDTH_L*) fail "per-link bandwidth served on GPUs without NVLink" ;; esac

# ---- label fields from a counters file
cat >"$TMP/labels.csv" <<'CSV'
DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).
DCGM_FI_DRIVER_VERSION, label, Driver Version
DCGM_FI_DEV_SERIAL, label, Device Serial Number
DCGM_FI_DEV_VBIOS_VERSION, label, VBIOS version of the device
CSV
FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" expect_rc 0 export --nvml "$FAKE" --kmsg none --once -f "$TMP/labels.csv"
expect_out 'DCGM_FI_DRIVER_VERSION="550.54.15",DCGM_FI_DEV_SERIAL="1652324003",DCGM_FI_DEV_VBIOS_VERSION="96.00.74.00.01"} 41'
# a GPU without a serial or VBIOS reading: the labels are left out, not ""
sed '/^serial\|^vbios/d' "$SCEN/dgx-h100.ini" >"$TMP/noserial.ini"
FAKE_NVML_SCENARIO="$TMP/noserial.ini" expect_rc 0 export --nvml "$FAKE" --kmsg none --once -f "$TMP/labels.csv"
expect_out 'DCGM_FI_DRIVER_VERSION="550.54.15"} 41'
CHECKS=$((CHECKS + 1))
case "$OUT" in *DCGM_FI_DEV_SERIAL=*|*VBIOS*=*) fail "an absent serial or VBIOS became a label" ;; esac
# the NVML version, brand and InfoROM label fields, read from NVML (the fake's brand 14 is
# DCGM's "NVIDIA"); the DGX's GPUs have no power-management InfoROM object: no label
cat >"$TMP/inforom.csv" <<'CSV'
DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).
DCGM_FI_NVML_VERSION,          label, NVML Version
DCGM_FI_DEV_BRAND,             label, Device Brand
DCGM_FI_DEV_OEM_INFOROM_VER,   label, OEM inforom version
DCGM_FI_DEV_ECC_INFOROM_VER,   label, ECC inforom version
DCGM_FI_DEV_POWER_INFOROM_VER, label, Power management object inforom version
DCGM_FI_DEV_INFOROM_IMAGE_VER, label, Inforom image version
CSV
FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" expect_rc 0 export --nvml "$FAKE" --kmsg none --once -f "$TMP/inforom.csv"
expect_out 'modelName="NVIDIA H100 80GB HBM3",Hostname="'
expect_out 'DCGM_FI_NVML_VERSION="12.550.54.15",DCGM_FI_DEV_BRAND="NVIDIA",DCGM_FI_DEV_OEM_INFOROM_VER="2.1",DCGM_FI_DEV_ECC_INFOROM_VER="7.16",DCGM_FI_DEV_INFOROM_IMAGE_VER="G520.0200.00.05"} 41'
CHECKS=$((CHECKS + 1))
case "$ERR" in *INFOROM*|*BRAND*) fail "a served label field was warned about: $ERR" ;; esac
CHECKS=$((CHECKS + 1))
case "$OUT" in *POWER_INFOROM*) fail "an absent InfoROM object became a label" ;; esac
sed 's/^brand = 14/brand = 2/' "$SCEN/dgx-h100.ini" >"$TMP/tesla.ini"
FAKE_NVML_SCENARIO="$TMP/tesla.ini" expect_rc 0 export --nvml "$FAKE" --kmsg none --once -f "$TMP/inforom.csv"
expect_out 'DCGM_FI_DEV_BRAND="Tesla"'
# dcgm-exporter's newer file (DCGM_EXP_* and the InfoROM labels commented out) loads as it is
grep -v '^\s*$' "$SRCDIR/deploy/dcgm/default-counters.csv" | sed 's/^# DCGM_FI_DEV_NVLINK_BANDWIDTH_L0/DCGM_FI_DEV_NVLINK_BANDWIDTH_L0/' >"$TMP/l0.csv"
grep -q '^DCGM_FI_DEV_NVLINK_BANDWIDTH_L0' "$TMP/l0.csv" || echo 'DCGM_FI_DEV_NVLINK_BANDWIDTH_L0, counter, bytes' >>"$TMP/l0.csv"
FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" expect_rc 0 export --nvml "$FAKE" --kmsg none --once -f "$TMP/l0.csv"
expect_out 'DCGM_FI_DEV_NVLINK_BANDWIDTH_L0{gpu="0"'
CHECKS=$((CHECKS + 1))
case "$OUT" in *NVLINK_BANDWIDTH_L1\{*) fail "L1 served though the file lists only L0" ;; esac
finish
