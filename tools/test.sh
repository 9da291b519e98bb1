#!/bin/sh
# Builds gpuscope with AddressSanitizer + UndefinedBehaviorSanitizer and
# -Werror, then runs every test registered with ctest.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-asan}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Asan -DGPUSCOPE_WERROR=ON
cmake --build "$BUILD"
ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc)"
