#!/bin/bash
# Runs every check that needs a real NVIDIA GPU, in one go, and prints the
# figures side by side with what gpuscope predicts or reads:
#   1. build gpuscope (release);
#   2. `check` readings against `nvidia-smi -q`           (tools/gpu-check/check_vs_nvidia_smi.sh)
#   3. `export` values against `nvidia-smi --query-gpu`   (tools/gpu-check/export_vs_nvidia_smi.sh)
#   4. real PyTorch training/inference steps against `estimate` (tools/gpu-check/pytorch_check.py)
# Output goes to stdout and, when $OUT is set, to $OUT/gpu-check.log.
# Usage: tools/gpu-check.sh [--skip-build] [--only check|export|pytorch]
set -uo pipefail
cd "$(dirname "$0")/.."
skip_build=0
only=""
while [ $# -gt 0 ]; do
	case "$1" in
	--skip-build) skip_build=1 ;;
	--only) only=$2; shift ;;
	*) echo "usage: $0 [--skip-build] [--only check|export|pytorch]" >&2; exit 2 ;;
	esac
	shift
done
log=${OUT:+$OUT/gpu-check.log}
exec > >(tee ${log:-/dev/null}) 2>&1

if ! command -v nvidia-smi >/dev/null; then
	echo "gpu-check: nvidia-smi not found: this script needs a machine with an NVIDIA GPU" >&2
	exit 3
fi
nvidia-smi -L
if [ "$skip_build" -eq 0 ]; then
	for p in cmake ninja-build pkg-config libjansson-dev libmicrohttpd-dev libcmocka-dev libyaml-dev; do
		dpkg -s "$p" >/dev/null 2>&1 || missing="${missing:-} $p"
	done
	if [ -n "${missing:-}" ] && command -v apt-get >/dev/null; then
		apt-get install -y -qq $missing >/dev/null 2>&1 || echo "gpu-check: could not install$missing"
	fi
	cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && ninja -C build-gpu gpuscope >/dev/null || {
		echo "gpu-check: build failed" >&2
		exit 3
	}
fi
export GPUSCOPE=${GPUSCOPE:-$PWD/build-gpu/gpuscope}
rc=0
run_part() {
	local name=$1
	shift
	[ -z "$only" ] || [ "$only" = "$name" ] || return 0
	echo
	echo "=== $name ==="
	if [ ! -e "$1" ] && [ ! -e "${2:-}" ]; then
		echo "gpu-check: $name: script missing"
		rc=1
		return
	fi
	timeout 300 "$@" || { echo "gpu-check: $name exited $?"; rc=1; }
}
run_part check bash tools/gpu-check/check_vs_nvidia_smi.sh
run_part export bash tools/gpu-check/export_vs_nvidia_smi.sh
run_part pytorch python3 tools/gpu-check/pytorch_check.py --gpuscope "$GPUSCOPE"
run_part bench bash tools/gpu-check/bench_vs_pytorch.sh
exit $rc
