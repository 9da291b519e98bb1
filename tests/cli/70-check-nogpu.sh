#!/bin/bash
# gpuscope check without a GPU library, driver or GPU: says so plainly, exit 3.
. "$TESTS/cli/lib.sh"
# row STATUS CHECK GPU FINDING: the start of one row of the check table
row() { printf '%-6s  %-17s  %3s  %s' "$1" "$2" "$3" "$4"; }
FAKE="$BUILDDIR/fake-nvml/libnvidia-ml.so.1"
SC="$TESTS/fake-nvml/scenarios"
FX="$TESTS/fixtures/hosts"
unset FAKE_NVML_SCENARIO CUDA_VISIBLE_DEVICES

# no libnvidia-ml at all (forced: this host may or may not have one)
expect_rc 3 check --nvml /nonexistent/libnvidia-ml.so.1 --no-libs --no-python --root "$FX/nouveau"
expect_err "gpuscope check: no NVIDIA GPU library on this host: cannot load '/nonexistent/libnvidia-ml.so.1'"
expect_out "gpuscope check: no NVIDIA GPU to check"
# ... and the host findings that explain it
expect_out "$(row fail 'kernel module' - "2 NVIDIA GPUs on the PCI bus but no NVIDIA kern")"
expect_out "$(row fail 'nouveau' - "the nouveau module is loaded and can hold the G")"
expect_out "-> echo 'blacklist nouveau' > /etc/modprobe.d/blacklist-nouveau.conf,"
expect_out "1 ok, 0 warnings, 4 failures, 1 skipped"
expect_width 80
expect_rc 3 check --nvml /nonexistent/libnvidia-ml.so.1 --no-libs --no-python --root "$FX/nouveau" --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["exit_code"] == 3, d["exit_code"]
assert d["host"]["nvml_status"] == "no library", d["host"]["nvml_status"]
assert d["gpus"] == []
assert d["host"]["modules"]["nouveau"] is True
assert [c["id"] for c in d["checks"] if c["status"] == "fail"] == \
    ["nvml.library", "driver.kernel_module", "driver.modules", "driver.nouveau"]
' || fail "json of the no-library case"

# the library is there but the driver is not loaded
expect_rc 3 check --nvml "$FAKE" --no-libs --no-python --root "$FX/nouveau"
expect_err "gpuscope check: the NVIDIA driver is not loaded: nvml init failed: Driver Not Loaded"

# the driver is loaded and sees no GPU
FAKE_NVML_SCENARIO="$SC/no-gpu.ini" expect_rc 3 check --nvml "$FAKE" --no-libs --no-python --root "$FX/gpu-lost"
expect_err "gpuscope check: the NVIDIA driver sees no GPU"
expect_out "$(row fail 'gpus' - "the driver is loaded but sees no GPU")"

# usage errors come before any probing
expect_rc 2 check --format xml --nvml /nonexistent
expect_err "--format 'xml' is not one of table, json, csv, prom"
expect_rc 2 check --symptom hot --nvml /nonexistent
expect_err "--symptom 'hot' is not one of launch-failed, oom, busy, slow, lost"
expect_rc 2 check --gpu 1 --nvml /nonexistent
expect_err "--gpu goes with --symptom"
expect_rc 2 check --workload llama2-7b --symptom slow --nvml /nonexistent
expect_err "--workload goes with --symptom oom"
expect_rc 2 check topology --nvml /nonexistent
expect_err "unexpected argument 'topology'"
expect_rc 2 check --root /nonexistent/root
expect_err "--root '/nonexistent/root'"
expect_rc 2 check topo --csv --nvml /nonexistent
expect_rc 2 check --jsn
expect_err "did you mean '--json'"
expect_rc 0 check --help
expect_out "gpuscope check topo"
finish
