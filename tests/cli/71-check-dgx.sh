#!/bin/bash
# gpuscope check on a healthy DGX H100 (fake NVML + host tree): all ok, exit 0,
# in every output format; the topology matrix.
. "$TESTS/cli/lib.sh"
# row STATUS CHECK GPU FINDING: the start of one row of the check table
row() { printf '%-6s  %-17s  %3s  %s' "$1" "$2" "$3" "$4"; }
export FAKE_NVML_SCENARIO="$TESTS/fake-nvml/scenarios/dgx-h100.ini"
unset CUDA_VISIBLE_DEVICES
ARGS=(--nvml "$BUILDDIR/fake-nvml/libnvidia-ml.so.1" --root "$TESTS/fixtures/hosts/dgx-h100"
      --lib-dir "$BUILDDIR/fake-stack" --python "$TESTS/fixtures/bin/python-torch-2.4.1-cu124")

expect_rc 0 check "${ARGS[@]}"
expect_out "gpuscope check: 8 GPUs (NVIDIA H100 80GB HBM3), driver 550.54.15, CUDA 12.4"
expect_out "$(row ok 'gpu' 0-7 "all 15 checks ok: NVIDIA H100 80GB HBM3")"
expect_out "$(row ok 'pytorch arch' - "NVIDIA H100 80GB HBM3 (cc 9.0) runs sm_90")"
expect_out "$(row ok 'nouveau' - "not loaded, blacklisted in /etc/modprobe.d/blac")"
expect_out "146 ok, 0 warnings, 0 failures, 0 skipped"
case "$OUT" in *"what to do"*) fail "a healthy host has nothing to do";; esac
expect_width 80

# every row of every GPU
expect_rc 0 check "${ARGS[@]}" --all
expect_out "$(row ok 'nvlink' 7 "18 links up, no errors")"
expect_out "$(row ok 'pcie link' 3 "gen 5 x16 (max gen 5 x16)")"
expect_out "$(row ok 'processes' 0 "1: 31337 python3/svc-train 62.0 GiB")"
expect_out "$(row ok 'temperature' 5 "41 C (slowdown at 90 C), memory 49 C")"
expect_width 80

expect_rc 0 check "${ARGS[@]}" --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["exit_code"] == 0
assert d["summary"] == {"ok": 146, "warn": 0, "fail": 0, "skip": 0}, d["summary"]
g = d["gpus"][3]
assert g["status"] == "ok"
assert g["static"]["pci_bus_id"] == "00000000:5D:00.0"
assert g["static"]["uuid"] == "GPU-7d1c0f3e-5a4b-4c1e-9e0f-00000000003"
assert g["static"]["memory_total_bytes"] == 81559 * 2**20
assert g["static"]["cuda_driver_version"] == 12040
assert g["sample"]["power_mw"] == 412000
assert g["sample"]["fb_reserved_bytes"] == 527 * 2**20
assert "fan_pct" not in g["sample"], "an unsupported reading must be absent"
assert "retired_pages_dbe" not in g["sample"]
assert len(g["sample"]["nvlinks"]) == 18 and g["sample"]["nvlinks"][0]["active"] == 1
assert g["processes"] == [{"pid": 31337, "type": "compute", "used_bytes": 62 * 2**30,
                           "user": "svc-train", "command": "python3"}], g["processes"]
assert g["sysfs"]["numa_node"] == 0 and g["sysfs"]["current_gen"] == 5
libs = {l["name"]: l["version"] for l in d["host"]["libraries"]}
assert libs == {"libcuda": "12.4", "libcudart": "12.4", "libcudnn": "9.1.0", "libnccl": "2.21.5"}, libs
assert d["host"]["pytorch"]["version"] == "2.4.1+cu124"
assert d["host"]["kernel_module_version"] == "550.54.15"
assert d["xids"] == [] and d["events"] == []
assert all(c["status"] == "ok" for c in d["checks"])
' || fail "json of the healthy DGX"

expect_rc 0 check "${ARGS[@]}" --csv
expect_out "id,gpu,status,finding,remedy"
expect_out "gpu.pcie_link,0,ok,gen 5 x16 (max gen 5 x16),"

# node_exporter's textfile format, written atomically
expect_rc 0 check "${ARGS[@]}" --format prom --output "$TMP/gpuscope.prom"
[ -s "$TMP/gpuscope.prom" ] || fail "no textfile written"
ls "$TMP" | grep -q 'tmp' && fail "temporary file left behind"
PROM=$(cat "$TMP/gpuscope.prom")
for line in 'gpuscope_check_status{check="gpu.pcie_link",gpu="0"} 0' \
	    'gpuscope_check_status{check="driver.nouveau"} 0' 'gpuscope_check_gpus 8' \
	    'gpuscope_check_results{result="fail"} 0' 'gpuscope_check_gpu_lost{gpu="7"} 0' \
	    'gpuscope_check_exit_code 0' '# TYPE gpuscope_check_status gauge'; do
	printf '%s\n' "$PROM" | grep -qxF "$line" || fail "textfile lacks: $line"
done
dups=$(printf '%s\n' "$PROM" | grep -v '^#' | sed 's/ [^ ]*$//' | sort | uniq -d)
[ -z "$dups" ] || fail "duplicate series: $dups"
printf '%s\n' "$PROM" | grep -v '^#' | grep -qvE '^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? [0-9.e+-]+$' &&
	fail "a textfile line is malformed"

# the topology, like nvidia-smi topo -m
expect_rc 0 check topo --nvml "$BUILDDIR/fake-nvml/libnvidia-ml.so.1" --root "$TESTS/fixtures/hosts/dgx-h100"
expect_out "GPU0  X    NV18 NV18 NV18 NV18 NV18 NV18 NV18 PIX  NODE NODE NODE SYS  SYS"
expect_out "GPU7  NV18 NV18 NV18 NV18 NV18 NV18 NV18 X    SYS  SYS  SYS  SYS  NODE NODE"
expect_out "NIC4  SYS  SYS  SYS  SYS  PIX  NODE NODE NODE SYS  SYS  SYS  SYS  X    NODE"
expect_out "GPU7  NODE PIX"
expect_out "GPU4    00000000:9A:00.0     1  56-111,168-223"
expect_out "ok   gpudirect rdma, gpu 5: nearest NIC mlx5_5: PIX"
expect_out "ok   nccl transport: 8 RDMA ports up for NCCL"
expect_width 80
expect_rc 0 check topo --json --nvml "$BUILDDIR/fake-nvml/libnvidia-ml.so.1" --root "$TESTS/fixtures/hosts/dgx-h100"
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert [x["name"] for x in d["devices"]][:9] == ["GPU0","GPU1","GPU2","GPU3","GPU4","GPU5","GPU6","GPU7","NIC0"]
assert d["matrix"][1][0] == "NV18" and d["matrix"][3][11] == "PIX" and d["matrix"][8][0] == "PIX"
assert d["devices"][8]["label"] == "mlx5_0" and d["devices"][12]["numa_node"] == 1
' || fail "topo json"

# an H100 with a PyTorch built without sm_90 kernels
expect_rc 1 check "${ARGS[@]::6}" --python "$TESTS/fixtures/bin/python-torch-2.0.1-cu117"
expect_out "$(row fail 'pytorch arch' - "torch 2.0.1+cu117 has no kernels for NVIDIA H10")"
expect_out "-> install torch >= 2.0 built for CUDA 11.8 or newer (its wheels include"
expect_out "145 ok, 0 warnings, 1 failure, 0 skipped"
# a CPU-only build
expect_rc 1 check "${ARGS[@]::6}" --python "$TESTS/fixtures/bin/python-torch-cpu"
expect_out "$(row fail 'pytorch cuda' - "torch 2.3.1+cpu is a CPU-only build")"
expect_out "$(row fail 'pytorch gpus' - "torch.cuda.is_available() is False")"
expect_out "https://download.pytorch.org/whl/cu124"
# the same host seen from inside an exporter's container: the NVIDIA runtime mounts libcuda only
# for the 'compute' capability, so with 'utility' alone a missing libcuda is expected, not a fault
cp -a "$TESTS/fixtures/hosts/dgx-h100" "$TMP/ctr"
: >"$TMP/ctr/.dockerenv"
mkdir -p "$TMP/ctr/proc/self" "$TMP/nolibs"
printf 'PATH=/usr/bin\0NVIDIA_VISIBLE_DEVICES=all\0NVIDIA_DRIVER_CAPABILITIES=utility\0' >"$TMP/ctr/proc/self/environ"
# (no 'container toolkit' row inside: the check column is one narrower)
crow() { printf '%-6s  %-16s  %3s  %s' "$1" "$2" "$3" "$4"; }
CTR=(--nvml "$BUILDDIR/fake-nvml/libnvidia-ml.so.1" --root "$TMP/ctr" --lib-dir "$TMP/nolibs" --no-python)
expect_rc 0 check "${CTR[@]}"
expect_out "$(crow skip 'libcuda' - "libcuda.so.1 is not mounted: the container runs")"
expect_out "$(crow ok 'container' - "running in a container, NVIDIA_VISIBLE_DEVICES=a")"
# asked for CUDA ('compute', or 'all'), the container must have it
for caps in compute,utility all; do
	printf 'NVIDIA_DRIVER_CAPABILITIES=%s\0' "$caps" >"$TMP/ctr/proc/self/environ"
	expect_rc 1 check "${CTR[@]}"
	expect_out "$(crow fail 'libcuda' - "libcuda.so.1 not found")"
done
finish
