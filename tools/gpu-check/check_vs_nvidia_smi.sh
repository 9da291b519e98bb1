#!/bin/bash
# On a machine with an NVIDIA GPU: builds gpuscope (unless $GPUSCOPE names a
# binary), runs `gpuscope check --json` and `nvidia-smi -q -x`, and compares
# every reading both report, GPU by GPU, printing one line per reading:
#
#   gpu  reading              gpuscope          nvidia-smi        verdict
#
# verdict: "same"; "close" for readings that move between the two snapshots
# (power, temperature, clocks, utilisation, memory used) when within their
# tolerance; "DIFF" otherwise; "absent" when only one side has it (gpuscope
# shows unsupported readings as absent, nvidia-smi as "N/A").  It also
# compares `gpuscope check topo` with `nvidia-smi topo -m` cell by cell.
#
# Exit: 0 no DIFF, 1 a DIFF, 3 no nvidia-smi / GPU.
# Offline self-test: NVIDIA_SMI_XML=saved.xml and GPUSCOPE_CHECK_ARGS="--nvml ..."
# run the comparison against a saved nvidia-smi -q -x and any gpuscope
# arguments (the fake NVML).
set -uo pipefail
cd "$(dirname "$0")/../.."
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT

if [ -z "${NVIDIA_SMI_XML:-}" ]; then
	if ! command -v nvidia-smi >/dev/null; then
		echo "check_vs_nvidia_smi: nvidia-smi not found: this needs a machine with an NVIDIA GPU" >&2
		exit 3
	fi
	nvidia-smi -q -x >"$TMPD/smi.xml" || { echo "check_vs_nvidia_smi: nvidia-smi -q -x failed" >&2; exit 3; }
	nvidia-smi topo -m >"$TMPD/topo.txt" 2>/dev/null || true
else
	cp "$NVIDIA_SMI_XML" "$TMPD/smi.xml"
	[ -n "${NVIDIA_SMI_TOPO:-}" ] && cp "$NVIDIA_SMI_TOPO" "$TMPD/topo.txt"
fi

if [ -z "${GPUSCOPE:-}" ]; then
	cmake -S . -B build-gpucheck -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null &&
		ninja -C build-gpucheck gpuscope >/dev/null || { echo "check_vs_nvidia_smi: build failed" >&2; exit 3; }
	GPUSCOPE=$PWD/build-gpucheck/gpuscope
fi

# shellcheck disable=SC2086
start=$(date +%s.%N)
"$GPUSCOPE" check --json ${GPUSCOPE_CHECK_ARGS:-} >"$TMPD/check.json"
rc=$?
end=$(date +%s.%N)
echo "gpuscope check: exit $rc in $(python3 -c "print(f'{$end - $start:.2f}')") s"
"$GPUSCOPE" check ${GPUSCOPE_CHECK_ARGS:-} | sed -n '1,60p'
"$GPUSCOPE" check topo --json ${GPUSCOPE_CHECK_ARGS:-} >"$TMPD/topo.json" 2>/dev/null
echo

python3 - "$TMPD/check.json" "$TMPD/smi.xml" "$TMPD/topo.json" "$TMPD/topo.txt" <<'PY'
import json, os, re, sys
import xml.etree.ElementTree as ET

check = json.load(open(sys.argv[1]))
root = ET.parse(sys.argv[2]).getroot()
MIB = 2 ** 20
diffs = 0

def text(node, path):
    e = node.find(path)
    if e is None or e.text is None:
        return None
    t = e.text.strip()
    return None if t in ("N/A", "[N/A]", "Not Supported", "[Not Supported]", "") else t

def num(node, path):
    t = text(node, path)
    if t is None:
        return None
    m = re.match(r"^-?[0-9.]+", t)
    return float(m.group(0)) if m else None

def flag(node, path):
    t = text(node, path)
    if t is None:
        return None
    return 1 if t in ("Enabled", "Yes", "Active") else 0 if t in ("Disabled", "No", "Not Active") else None

def first(*vals):
    for v in vals:
        if v is not None:
            return v
    return None

def show(v):
    if v is None:
        return "-"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)

def compare(gpu, name, ours, theirs, tol=0.0, rel=0.0):
    """tol: absolute tolerance; rel: relative tolerance, for readings that move."""
    global diffs
    if ours is None and theirs is None:
        return
    if ours is None or theirs is None:
        verdict = "absent"
    elif isinstance(ours, str) or isinstance(theirs, str):
        verdict = "same" if str(ours).strip().lower() == str(theirs).strip().lower() else "DIFF"
    else:
        d = abs(float(ours) - float(theirs))
        if d == 0:
            verdict = "same"
        elif d <= tol or d <= rel * max(abs(float(ours)), abs(float(theirs))):
            verdict = "close"
        else:
            verdict = "DIFF"
    if verdict == "DIFF":
        diffs += 1
    print(f"{gpu:>3}  {name:<24} {show(ours)[:22]:<22} {show(theirs)[:22]:<22} {verdict}")

def ecc_sum(vol, unc):
    """Old XML: single_bit/double_bit totals; newer: *_correctable / *_uncorrectable* leaves."""
    if vol is None:
        return None
    if vol.find("double_bit") is not None:
        return num(vol, "double_bit/total" if unc else "single_bit/total")
    vals = []
    for e in vol:
        tag = e.tag
        is_unc = "uncorrectable" in tag
        if ("correctable" in tag) and is_unc == unc and e.text and re.match(r"^[0-9]+$", e.text.strip()):
            vals.append(int(e.text.strip()))
    return sum(vals) if vals else None

print(f"{'gpu':>3}  {'reading':<24} {'gpuscope':<22} {'nvidia-smi':<22} verdict")
host = check.get("host", {})
compare("-", "driver_version", (check["gpus"][0]["static"].get("driver_version") if check["gpus"] else None),
        text(root, "driver_version"))
cuda = None
if check["gpus"] and "cuda_driver_version" in check["gpus"][0]["static"]:
    v = check["gpus"][0]["static"]["cuda_driver_version"]
    cuda = f"{v // 1000}.{v % 1000 // 10}"
compare("-", "cuda_version", cuda, text(root, "cuda_version"))
compare("-", "kernel_module_version", host.get("kernel_module_version"), text(root, "driver_version"))
smi_gpus = root.findall("gpu")
compare("-", "gpu count", len(check["gpus"]), len(smi_gpus))

by_bus = {g.get("id", "").upper(): g for g in smi_gpus}
for g in check["gpus"]:
    st, s = g["static"], g["sample"]
    i = g["index"]
    x = by_bus.get(st.get("pci_bus_id", "").upper())
    if x is None and i < len(smi_gpus):
        x = smi_gpus[i]
    if x is None:
        print(f"{i:>3}  no nvidia-smi entry for {st.get('pci_bus_id')}")
        diffs += 1
        continue
    compare(i, "status", g["status"], "ok")
    compare(i, "name", st.get("name"), text(x, "product_name"))
    compare(i, "uuid", st.get("uuid"), text(x, "uuid"))
    compare(i, "pci_bus_id", st.get("pci_bus_id"), text(x, "pci/pci_bus_id"))
    compare(i, "serial", st.get("serial"), text(x, "serial"))
    compare(i, "vbios_version", st.get("vbios_version"), text(x, "vbios_version"))
    compare(i, "minor_number", st.get("minor_number"), num(x, "minor_number"))
    compare(i, "memory_total MiB", st.get("memory_total_bytes", 0) / MIB if "memory_total_bytes" in st else None,
            num(x, "fb_memory_usage/total"))
    compare(i, "fb_reserved MiB", s.get("fb_reserved_bytes", 0) / MIB if "fb_reserved_bytes" in s else None,
            num(x, "fb_memory_usage/reserved"), tol=1)
    compare(i, "fb_used MiB", s.get("fb_used_bytes", 0) / MIB if "fb_used_bytes" in s else None,
            num(x, "fb_memory_usage/used"), tol=64, rel=0.02)
    compare(i, "persistence_mode", st.get("persistence_mode"), flag(x, "persistence_mode"))
    compare(i, "mig_mode", st.get("mig_mode"), flag(x, "mig_mode/current_mig"))
    compare(i, "ecc_mode", st.get("ecc_mode"), flag(x, "ecc_mode/current_ecc"))
    compare(i, "ecc_sbe_volatile", s.get("ecc_sbe_volatile"), ecc_sum(x.find("ecc_errors/volatile"), False))
    compare(i, "ecc_dbe_volatile", s.get("ecc_dbe_volatile"), ecc_sum(x.find("ecc_errors/volatile"), True))
    compare(i, "ecc_sbe_aggregate", s.get("ecc_sbe_aggregate"), ecc_sum(x.find("ecc_errors/aggregate"), False))
    compare(i, "ecc_dbe_aggregate", s.get("ecc_dbe_aggregate"), ecc_sum(x.find("ecc_errors/aggregate"), True))
    compare(i, "retired_pages_sbe", s.get("retired_pages_sbe"),
            num(x, "retired_pages/multiple_single_bit_retirement/retired_count"))
    compare(i, "retired_pages_dbe", s.get("retired_pages_dbe"), num(x, "retired_pages/double_bit_retirement/retired_count"))
    compare(i, "remapped_rows_corr", s.get("remapped_rows_correctable"), num(x, "remapped_rows/remapped_row_corr"))
    compare(i, "remapped_rows_unc", s.get("remapped_rows_uncorrectable"), num(x, "remapped_rows/remapped_row_unc"))
    compare(i, "remapped_rows_pending", s.get("remapped_rows_pending"), flag(x, "remapped_rows/remapped_row_pending"))
    compare(i, "remapped_rows_failure", s.get("remapped_rows_failure"), flag(x, "remapped_rows/remapped_row_failure"))
    compare(i, "temp_gpu_c", s.get("temp_gpu_c"), num(x, "temperature/gpu_temp"), tol=3)
    compare(i, "temp_mem_c", s.get("temp_mem_c"), num(x, "temperature/memory_temp"), tol=3)
    compare(i, "temp_slowdown_c", st.get("temp_slowdown_c"), num(x, "temperature/gpu_temp_slow_threshold"))
    compare(i, "temp_shutdown_c", st.get("temp_shutdown_c"), num(x, "temperature/gpu_temp_max_threshold"))
    compare(i, "temp_gpu_max_c", st.get("temp_gpu_max_c"), num(x, "temperature/gpu_temp_max_gpu_threshold"))
    compare(i, "temp_mem_max_c", st.get("temp_mem_max_c"), num(x, "temperature/gpu_temp_max_mem_threshold"))
    pw = x.find("gpu_power_readings")
    if pw is None:
        pw = x.find("power_readings")
    if pw is not None:
        compare(i, "power W", s.get("power_mw", 0) / 1000 if "power_mw" in s else None,
                first(num(pw, "instant_power_draw"), num(pw, "power_draw"), num(pw, "average_power_draw")),
                tol=15, rel=0.1)
        compare(i, "power_limit W", st.get("power_limit_mw", 0) / 1000 if "power_limit_mw" in st else None,
                first(num(pw, "current_power_limit"), num(pw, "enforced_power_limit"), num(pw, "power_limit")), tol=0.5)
        compare(i, "power_default_limit W",
                st.get("power_default_limit_mw", 0) / 1000 if "power_default_limit_mw" in st else None,
                num(pw, "default_power_limit"), tol=0.5)
    compare(i, "clock_sm_mhz", s.get("clock_sm_mhz"), num(x, "clocks/sm_clock"), tol=30, rel=0.1)
    compare(i, "clock_mem_mhz", s.get("clock_mem_mhz"), num(x, "clocks/mem_clock"), tol=30, rel=0.1)
    compare(i, "clock_graphics_mhz", s.get("clock_graphics_mhz"), num(x, "clocks/graphics_clock"), tol=30, rel=0.1)
    compare(i, "clock_max_sm_mhz", st.get("clock_max_sm_mhz"), num(x, "max_clocks/sm_clock"))
    compare(i, "clock_max_mem_mhz", st.get("clock_max_mem_mhz"), num(x, "max_clocks/mem_clock"))
    compare(i, "util_gpu_pct", s.get("util_gpu_pct"), num(x, "utilization/gpu_util"), tol=10)
    compare(i, "util_mem_pct", s.get("util_mem_pct"), num(x, "utilization/memory_util"), tol=10)
    compare(i, "fan_pct", s.get("fan_pct"), num(x, "fan_speed"), tol=5)
    ps = text(x, "performance_state")
    compare(i, "pstate", s.get("pstate"), int(ps[1:]) if ps and ps.startswith("P") and ps[1:].isdigit() else None)
    compare(i, "pcie_max_gen", st.get("pcie_max_gen"), num(x, "pci/pci_gpu_link_info/pcie_gen/max_link_gen"))
    compare(i, "pcie_gen", s.get("pcie_gen"), num(x, "pci/pci_gpu_link_info/pcie_gen/current_link_gen"), tol=1)
    compare(i, "pcie_max_width", st.get("pcie_max_width"), num(x, "pci/pci_gpu_link_info/link_widths/max_link_width"))
    compare(i, "pcie_width", s.get("pcie_width"), num(x, "pci/pci_gpu_link_info/link_widths/current_link_width"))
    compare(i, "pcie_replay_count", s.get("pcie_replay_count"), num(x, "pci/replay_counter"))
    # clock event reasons: nvidia-smi names each bit Active / Not Active
    ce = x.find("clocks_event_reasons")
    if ce is None:
        ce = x.find("clocks_throttle_reasons")
    if ce is not None and "clock_event_reasons" in s:
        bits = {"gpu_idle": 0x1, "applications_clocks_setting": 0x2, "sw_power_cap": 0x4,
                "hw_slowdown": 0x8, "sync_boost": 0x10, "sw_thermal_slowdown": 0x20,
                "hw_thermal_slowdown": 0x40, "hw_power_brake_slowdown": 0x80}
        theirs = 0
        for e in ce:
            tag = re.sub(r"^clocks_(event|throttle)_reasons?_", "", e.tag)
            if tag in bits and (e.text or "").strip() == "Active":
                theirs |= bits[tag]
        compare(i, "clock_event_reasons", hex(s["clock_event_reasons"] & 0xff), hex(theirs))
    procs = x.findall("processes/process_info")
    compare(i, "processes", len(g["processes"]), len(procs) if x.find("processes") is not None else None)
    theirs = {int(p.findtext("pid")): num(p, "used_memory") for p in procs if (p.findtext("pid") or "").isdigit()}
    for p in g["processes"]:
        compare(i, f"pid {p['pid']} MiB", p["used_bytes"] / MIB if p["used_bytes"] is not None else None,
                theirs.get(p["pid"]), tol=64, rel=0.05)

# topology: GPU x GPU cells against nvidia-smi topo -m
topo_json, topo_txt = sys.argv[3], sys.argv[4]
if os.path.exists(topo_json) and os.path.getsize(topo_json) and os.path.exists(topo_txt):
    ours = json.load(open(topo_json))
    names = [d["name"] for d in ours["devices"]]
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", l) for l in open(topo_txt)]
    header = next((l.split() for l in lines if l.strip().startswith("GPU0")), None)
    print()
    print("topology (gpuscope / nvidia-smi), GPU rows:")
    if header:
        for l in lines:
            parts = l.split()
            if not parts or not re.match(r"^GPU[0-9]+$", parts[0]):
                continue
            row = names.index(parts[0]) if parts[0] in names else None
            for k, col in enumerate(header):
                if not re.match(r"^GPU[0-9]+$", col) or col not in names or row is None or k + 1 >= len(parts):
                    continue
                a, b = ours["matrix"][row][names.index(col)], parts[k + 1]
                verdict = "same" if a == b else "DIFF"
                if verdict == "DIFF":
                    diffs += 1
                print(f"  {parts[0]}-{col}: {a} / {b} {verdict}")
print()
print(f"{diffs} difference{'s' if diffs != 1 else ''}")
sys.exit(1 if diffs else 0)
PY
