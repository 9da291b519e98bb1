#!/bin/bash
# On a machine with an NVIDIA GPU: starts `gpuscope export` on 127.0.0.1,
# scrapes it, reads `nvidia-smi --query-gpu` at the same moment and compares
# every value both report, GPU by GPU, one line per reading:
#
#   gpu  reading                 gpuscope       nvidia-smi     verdict
#
# verdict: "same" (must match: identity, totals, counters, limits), "close"
# (moves between the two reads: power, temperature, clocks, utilisation,
# memory used; within its tolerance), "DIFF" otherwise, "absent" when only
# one side has it (gpuscope leaves unsupported readings out, nvidia-smi
# prints [N/A]).  Then the exporter's footprint on real hardware: resident
# memory, CPU per second at the 1 s interval, collection times (the PCIe
# throughput pass included) and the scrape latency.
#
# Exit: 0 no DIFF, 1 a DIFF, 3 no nvidia-smi / no GPU / the exporter did not start.
# EXPORT_CHECK_CPU_S sets how long the idle CPU is measured (10 s).
# Offline self-test: NVIDIA_SMI_CSV=FILE (the output of the query below with
# the header line) and GPUSCOPE_EXPORT_ARGS="--nvml ..." compare against a
# saved nvidia-smi reading and any exporter arguments (the fake NVML).
set -uo pipefail
cd "$(dirname "$0")/../.."
TMPD=$(mktemp -d)
EXP_PID=""
trap '[ -n "$EXP_PID" ] && kill "$EXP_PID" 2>/dev/null; rm -rf "$TMPD"' EXIT

FIELDS="index,uuid,pci.bus_id,name,driver_version,utilization.gpu,utilization.memory,memory.total,memory.used,memory.free,memory.reserved,power.draw,enforced.power.limit,temperature.gpu,temperature.memory,clocks.sm,clocks.mem,clocks.max.sm,pcie.link.gen.current,pcie.link.width.current,pcie.link.gen.max,pcie.link.width.max,pstate,fan.speed,ecc.errors.corrected.volatile.total,ecc.errors.uncorrected.volatile.total,clocks_event_reasons.active"

if [ -z "${NVIDIA_SMI_CSV:-}" ] && ! command -v nvidia-smi >/dev/null; then
	echo "export_vs_nvidia_smi: nvidia-smi not found: this needs a machine with an NVIDIA GPU" >&2
	exit 3
fi
if [ -z "${GPUSCOPE:-}" ]; then
	cmake -S . -B build-gpucheck -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null &&
		ninja -C build-gpucheck gpuscope >/dev/null || { echo "export_vs_nvidia_smi: build failed" >&2; exit 3; }
	GPUSCOPE=$PWD/build-gpucheck/gpuscope
fi

# shellcheck disable=SC2086
"$GPUSCOPE" export --listen 127.0.0.1:0 --interval 1s --names both ${GPUSCOPE_EXPORT_ARGS:-} \
	2>"$TMPD/export.log" &
EXP_PID=$!
BASE=""
for i in $(seq 1 100); do
	BASE=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$TMPD/export.log" | head -1)
	[ -n "$BASE" ] && break
	kill -0 "$EXP_PID" 2>/dev/null || break
	sleep 0.1
done
if [ -z "$BASE" ]; then
	echo "export_vs_nvidia_smi: the exporter did not start:" >&2
	cat "$TMPD/export.log" >&2
	exit 3
fi
head -1 "$TMPD/export.log"
# a few collections in, so the PCIe pass and the NVLink rates have run
sleep 2.5

# nvidia-smi right around the scrape; fields a driver does not know are asked one by one
smi_query() {
	if [ -n "${NVIDIA_SMI_CSV:-}" ]; then
		cat "$NVIDIA_SMI_CSV"
		return
	fi
	if nvidia-smi --query-gpu="$FIELDS" --format=csv,nounits >"$TMPD/q.csv" 2>"$TMPD/q.err"; then
		cat "$TMPD/q.csv"
		return
	fi
	# one column per call; an unknown field becomes [N/A]
	python3 - "$FIELDS" <<'PY'
import subprocess, sys
fields = sys.argv[1].split(",")
cols = []
for f in fields:
    r = subprocess.run(["nvidia-smi", "--query-gpu=" + f, "--format=csv,noheader,nounits"],
                       capture_output=True, text=True)
    vals = [v.strip() for v in r.stdout.splitlines()] if r.returncode == 0 else None
    cols.append(vals)
n = max(len(c) for c in cols if c) if any(cols) else 0
print(", ".join(fields))
for i in range(n):
    print(", ".join((c[i] if c and i < len(c) else "[N/A]") for c in cols))
PY
}
smi_query >"$TMPD/smi1.csv"
curl -s --max-time 5 "$BASE/metrics" -o "$TMPD/metrics.prom"
smi_query >"$TMPD/smi2.csv"

python3 - "$TMPD/metrics.prom" "$TMPD/smi1.csv" "$TMPD/smi2.csv" "$FIELDS" <<'PY'
import csv, re, sys

MIB = 2 ** 20
series = {}
for line in open(sys.argv[1]):
    if line.startswith("#") or not line.strip():
        continue
    m = re.match(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$', line.strip())
    if not m:
        continue
    labels = dict(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
    series.setdefault(m.group(1), []).append((labels, float(m.group(4))))

def g(name, gpu, **want):
    for labels, v in series.get(name, []):
        if labels.get("gpu") == gpu and all(labels.get(k) == x for k, x in want.items()):
            return v
    return None

def read_smi(path):
    # columns by position, in the order asked for: nvidia-smi's header names
    # differ from the query names (clocks.sm is "clocks.current.sm [MHz]")
    rows = list(csv.reader(open(path), skipinitialspace=True))
    head = sys.argv[4].split(",")
    if len(rows[0]) != len(head):
        sys.exit("nvidia-smi gave %d columns for %d fields" % (len(rows[0]), len(head)))
    out = {}
    for r in rows[1:]:
        d = {head[i]: r[i].strip() for i in range(min(len(head), len(r)))}
        out[d.get("index")] = d
    return out

smi1, smi2 = read_smi(sys.argv[2]), read_smi(sys.argv[3])

def num(s):
    if s is None:
        return None
    s = s.strip()
    if not s or s.startswith("[") or s in ("N/A", "Not Supported"):
        return None
    if s.startswith("P") and s[1:].isdigit():
        return float(s[1:])
    try:
        return float(int(s, 16)) if s.startswith("0x") else float(s)
    except ValueError:
        return None

diffs = 0
print("%-4s %-26s %16s %16s  %s" % ("gpu", "reading", "gpuscope", "nvidia-smi", "verdict"))

def show(gpu, name, ours, theirs1, theirs2, kind, tol_abs=0.0, tol_rel=0.0):
    global diffs
    if ours is None and theirs1 is None:
        return
    if ours is None or theirs1 is None:
        verdict = "absent"
    else:
        lo = min(theirs1, theirs2 if theirs2 is not None else theirs1)
        hi = max(theirs1, theirs2 if theirs2 is not None else theirs1)
        slack = max(tol_abs, tol_rel * max(abs(lo), abs(hi)))
        if kind == "same":
            verdict = "same" if abs(ours - theirs1) <= max(slack, 1e-9) else "DIFF"
        else:
            verdict = "close" if lo - slack <= ours <= hi + slack else "DIFF"
    if verdict == "DIFF":
        diffs += 1
    fmt = lambda v: "-" if v is None else ("%.6g" % v)
    print("%-4s %-26s %16s %16s  %s" % (gpu, name, fmt(ours), fmt(theirs1), verdict))

def show_text(gpu, name, ours, theirs):
    global diffs
    verdict = "same" if ours == theirs else ("absent" if not ours or theirs.startswith("[") else "DIFF")
    if verdict == "DIFF":
        diffs += 1
    print("%-4s %-26s %16.16s %16.16s  %s" % (gpu, name, ours or "-", theirs, verdict))

for idx in sorted(smi1, key=lambda k: int(k)):
    a, b = smi1[idx], smi2.get(idx, smi1[idx])
    info = next((l for l, v in series.get("gpu_info", []) if l.get("gpu") == idx), {})
    show_text(idx, "uuid", info.get("uuid"), a.get("uuid", ""))
    show_text(idx, "pci.bus_id", info.get("pci_bus_id"), a.get("pci.bus_id", ""))
    show_text(idx, "name", info.get("name"), a.get("name", ""))
    show_text(idx, "driver_version", info.get("driver_version"), a.get("driver_version", ""))
    up = g("gpu_up", idx)
    show(idx, "gpu_up", up, 1.0, 1.0, "same")

    def pair(field, metric, scale, kind, tol_abs=0.0, tol_rel=0.0, **labels):
        v = g(metric, idx, **labels)
        show(idx, field, None if v is None else v * scale, num(a.get(field)), num(b.get(field)),
             kind, tol_abs, tol_rel)

    pair("utilization.gpu", "gpu_utilization_ratio", 100, "close", 15)
    pair("utilization.memory", "gpu_memory_copy_utilization_ratio", 100, "close", 15)
    pair("memory.total", "gpu_memory_total_bytes", 1 / MIB, "same", 1)
    pair("memory.used", "gpu_memory_used_bytes", 1 / MIB, "close", 256, 0.05)
    pair("memory.free", "gpu_memory_free_bytes", 1 / MIB, "close", 256, 0.05)
    pair("memory.reserved", "gpu_memory_reserved_bytes", 1 / MIB, "same", 1)
    pair("power.draw", "gpu_power_watts", 1, "close", 20, 0.15)
    pair("enforced.power.limit", "gpu_power_limit_watts", 1, "same", 1)
    pair("temperature.gpu", "gpu_temperature_celsius", 1, "close", 3)
    pair("temperature.memory", "gpu_memory_temperature_celsius", 1, "close", 3)
    pair("clocks.sm", "gpu_sm_clock_hertz", 1e-6, "close", 30, 0.1)
    pair("clocks.mem", "gpu_memory_clock_hertz", 1e-6, "close", 10, 0.02)
    pair("clocks.max.sm", "gpu_sm_clock_max_hertz", 1e-6, "same", 1)
    pair("pcie.link.gen.current", "gpu_pcie_link_generation", 1, "close", 3)
    pair("pcie.link.width.current", "gpu_pcie_link_width", 1, "close", 0)
    pair("pcie.link.gen.max", "gpu_pcie_link_generation_max", 1, "same")
    pair("pcie.link.width.max", "gpu_pcie_link_width_max", 1, "same")
    pair("pstate", "gpu_performance_state", 1, "close", 8)
    pair("fan.speed", "gpu_fan_speed_ratio", 100, "close", 10)
    pair("ecc.errors.corrected.volatile.total", "gpu_ecc_volatile_errors_total", 1, "close", 0, 0.01,
         type="corrected")
    pair("ecc.errors.uncorrected.volatile.total", "gpu_ecc_volatile_errors_total", 1, "same",
         type="uncorrected")
    # the clock event reasons: the active bits, rebuilt from the per-reason gauges
    bits = {"gpu_idle": 0x1, "applications_clocks_setting": 0x2, "sw_power_cap": 0x4,
            "hw_slowdown": 0x8, "sync_boost": 0x10, "sw_thermal_slowdown": 0x20,
            "hw_thermal_slowdown": 0x40, "hw_power_brake_slowdown": 0x80, "display_clock_setting": 0x100}
    mask = None
    for labels, v in series.get("gpu_clock_event_active", []):
        if labels.get("gpu") == idx:
            mask = (mask or 0) | (bits.get(labels.get("reason"), 0) if v else 0)
    theirs = num(a.get("clocks_event_reasons.active"))
    # idle comes and goes between the reads: compare without it
    show(idx, "clocks_event_reasons", None if mask is None else float(mask & ~1),
         None if theirs is None else float(int(theirs) & ~1 & 0x1ff), None, "close", 0)
    # the dcgm names carry the same numbers
    dv, nv = g("DCGM_FI_DEV_GPU_TEMP", idx), g("gpu_temperature_celsius", idx)
    if dv is not None and nv is not None:
        show(idx, "DCGM_FI_DEV_GPU_TEMP", dv, nv, nv, "same")
    dv, nv = g("DCGM_FI_DEV_FB_USED", idx), g("gpu_memory_used_bytes", idx)
    if dv is not None and nv is not None:
        show(idx, "DCGM_FI_DEV_FB_USED", dv, int(nv // MIB), int(nv // MIB), "same")

print()
print("%d DIFF" % diffs)
sys.exit(1 if diffs else 0)
PY
rc=$?

# ---- footprint on this machine ----
echo
sleep 1
curl -s --max-time 5 "$BASE/metrics" -o "$TMPD/m2.prom"
for k in gpuscope_exporter_gpus gpuscope_exporter_collect_duration_seconds \
	gpuscope_exporter_slow_collect_duration_seconds gpuscope_exporter_collect_errors_total \
	gpuscope_exporter_stalled_calls_total; do
	grep "^$k " "$TMPD/m2.prom" || echo "$k absent"
done
T0=$(awk '{print $14 + $15}' "/proc/$EXP_PID/stat")
sleep "${EXPORT_CHECK_CPU_S:-10}"
T1=$(awk '{print $14 + $15}' "/proc/$EXP_PID/stat")
HZ=$(getconf CLK_TCK)
echo "cpu at --interval 1s, no scrapes: $(awk -v a="$T0" -v b="$T1" -v hz="$HZ" -v s="${EXPORT_CHECK_CPU_S:-10}" 'BEGIN { printf "%.2f", (b - a) / hz / s * 100 }')% of a core"
echo "resident memory: $(awk '/^VmRSS:/ {print $2, $3}' "/proc/$EXP_PID/status")"
for i in $(seq 1 50); do
	curl -s --max-time 5 -o /dev/null -w '%{time_total}\n' "$BASE/metrics"
done | sort -n | awk '{ t[NR] = $1 } END { printf "scrape latency over %d requests: median %.2f ms, max %.2f ms\n", NR, t[int(NR / 2) + 1] * 1000, t[NR] * 1000 }'
echo "exposition size: $(wc -c <"$TMPD/m2.prom") bytes, $(grep -vc '^#' "$TMPD/m2.prom") samples"
kill -TERM "$EXP_PID"
wait "$EXP_PID"
echo "exporter exit: $?"
EXP_PID=""
exit $rc
