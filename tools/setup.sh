#!/bin/sh
# Installs the Debian packages listed in debian-packages.txt, builds a release
# gpuscope in build/, and runs the main job: a plan for the built-in workload.
set -eu
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
grep -v '^#' debian-packages.txt | xargs $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
if ./build/gpuscope help plan >/dev/null 2>&1; then
	./build/gpuscope plan
else
	./build/gpuscope catalog gpus
fi
