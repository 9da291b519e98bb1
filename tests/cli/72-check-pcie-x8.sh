#!/bin/bash
# 4 x A100 PCIe, GPU 2 trained at x8, memory held by no process on GPU 3,
# the NIC on socket 0 only, no nvidia_peermem, nouveau not blacklisted.
. "$TESTS/cli/lib.sh"
# row STATUS CHECK GPU FINDING: the start of one row of the check table
row() { printf '%-6s  %-17s  %3s  %s' "$1" "$2" "$3" "$4"; }
export FAKE_NVML_SCENARIO="$TESTS/fake-nvml/scenarios/a100-pcie-x8.ini"
unset CUDA_VISIBLE_DEVICES
ARGS=(--nvml "$BUILDDIR/fake-nvml/libnvidia-ml.so.1" --root "$TESTS/fixtures/hosts/a100-pcie-x8")

expect_rc 1 check "${ARGS[@]}" --no-libs --no-python
expect_out "gpuscope check: 4 GPUs (NVIDIA A100 80GB PCIe), driver 535.161.08, CUDA 12.2"
expect_out "$(row warn 'nouveau' - "not loaded, but not blacklisted either")"
expect_out "$(row ok 'gpu' 0-1 "all 14 checks ok: NVIDIA A100 80GB PCIe")"
expect_out "$(row fail 'pcie link' 2 "x8 of x16, gen 4 of 4; sysfs: x8 of x16, gen 4 ")"
expect_out "$(row warn 'memory' 3 "12.0 GiB in use, 12.0 GiB by no listed process")"
# GPUs 2 and 3 share the cause: one row, one remedy
expect_out "$(row warn 'gpudirect rdma' 2,3 "nearest NIC mlx5_0 is across the CPU interconne")"
expect_out "  warn gpudirect rdma, gpus 2,3: nearest NIC mlx5_0 is across the CPU"
expect_out "  fail pcie link, gpu 2: x8 of x16, gen 4 of 4; sysfs: x8 of x16, gen 4 of 4"
expect_out "-> reseat the GPU and its riser or cable; x8 gives 50% of the host<->GPU"
expect_out "-> find the holder: fuser -v /dev/nvidia3 (a process in another PID"
expect_out "-> modprobe nvidia-peermem (and list it in /etc/modules-load.d)"
expect_out "60 ok, 5 warnings, 1 failure, 1 skipped"
expect_width 80

expect_rc 1 check "${ARGS[@]}" --no-libs --no-python --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
bad = [(c["status"], c["id"], c["gpu"]) for c in d["checks"] if c["status"] in ("warn", "fail")]
assert bad == [("warn", "driver.nouveau", None), ("fail", "gpu.pcie_link", 2), ("warn", "gpu.memory", 3),
               ("warn", "topo.gpudirect", 2), ("warn", "topo.gpudirect", 3),
               ("warn", "net.nccl_transport", None)], bad
g = d["gpus"][2]
assert g["sample"]["pcie_width"] == 8 and g["static"]["pcie_max_width"] == 16
assert g["sysfs"]["current_width"] == 8 and g["sysfs"]["max_width"] == 16
assert d["gpus"][1]["processes"][0]["user"] == "alice"
assert d["gpus"][3]["processes"] == []
assert "nvlinks" not in g["sample"] and g["static"]["nvlink_count"] == 0
' || fail "json of the x8 host"

# the CUDA stack: 12.4 user space on a 12.2 driver
expect_rc 1 check "${ARGS[@]}" --lib-dir "$BUILDDIR/fake-stack" --python "$TESTS/fixtures/bin/python-torch-2.5.1-cu124"
expect_out "$(row warn 'libcudart' - "libcudart CUDA 12.4 on a driver for 12.2: runs")"
expect_out "$(row warn 'pytorch cuda' - "torch 2.5.1+cu124 built for CUDA 12.4 on a driv")"
expect_out "-> upgrade the driver to >= 550.54.14 (CUDA 12.4) or use a CUDA 12.2"
expect_out "$(row ok 'libcudnn' - "cuDNN 8.9.7 (libcudnn.so.9.1.0)")"
expect_out "$(row ok 'libnccl' - "NCCL 2.18.5 (libnccl.so.2.21.5)")"
expect_out "$(row ok 'pytorch gpus' - "sees 4 GPUs")"

expect_rc 1 check topo "${ARGS[@]}"
expect_out "GPU0  X    NODE SYS  SYS  NODE"
expect_out "GPU2  SYS  SYS  X    NODE SYS"
expect_out "NIC0  NODE NODE SYS  SYS  X"
expect_out "warn gpudirect rdma, gpu 3: nearest NIC mlx5_0 is across the CPU interconnect"
expect_out "ok   gpudirect rdma, gpu 1: nearest NIC mlx5_0: NODE"
expect_out "ok   rdma port: mlx5_0 port 1 ACTIVE (LinkUp), 200 Gb/sec (4X HDR), InfiniBand"

# runbooks: out of memory and a busy GPU
expect_rc 1 check "${ARGS[@]}" --no-libs --no-python --symptom oom
expect_out "gpuscope check --symptom oom: 5 steps"
expect_out " 2. warn processes holding memory: gpu 1: pid 4242 python3 (alice) 30.0 GiB"
expect_out " 3. warn memory without a process: gpu 3: 12.0 GiB in use, 12.0 GiB by no"
expect_out " 4. skip workload estimate: no workload given"
expect_width 80
expect_rc 1 check "${ARGS[@]}" --no-libs --no-python --symptom oom --gpu 1 --workload llama2-7b
expect_out "workload: llama2-7b, finetune, bf16, micro-batch 1 on 4 x"
expect_out " 4. fail workload estimate: the workload needs 139.5 GiB per GPU; gpu 1 has 49.5"
expect_rc 1 check "${ARGS[@]}" --no-libs --no-python --symptom busy --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = {x["title"]: x for x in d["steps"]}
assert s["processes using the gpus"]["finding"] == "gpu 1: pid 4242 python3 (alice)"
assert s["open device files"]["finding"] == "pid 4242 python3 (alice): nvidia-uvm nvidia1 nvidiactl"
assert s["open device files"]["status"] == "warn"
assert d["exit_code"] == 1
' || fail "busy runbook json"
expect_rc 2 check "${ARGS[@]}" --no-python --symptom oom --workload no-such-model
expect_err "no-such-model"
finish
