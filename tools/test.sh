#!/bin/sh
# Builds gpuscope with AddressSanitizer + UndefinedBehaviorSanitizer and
# -Werror, and beside it gpuscope-tsan (ThreadSanitizer) and, where valgrind
# is installed, gpuscope-plain (no sanitizer; cli/16-valgrind runs a few
# commands of it under valgrind); then runs every test registered with ctest
# in one run: the exporter's threaded tests run a second time against
# gpuscope-tsan, as tsan/... (tests/CMakeLists.txt says which).  TSAN=0
# leaves the ThreadSanitizer build and its tests out.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-asan}
tsan=ON
[ "${TSAN:-1}" = 0 ] && tsan=OFF
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Asan -DGPUSCOPE_WERROR=ON -DGPUSCOPE_TSAN_TESTS=$tsan
cmake --build "$BUILD"
# one job more than the cores: the integration tests, one at a time
# (tests/CMakeLists.txt), spend most of their time waiting for intervals and
# timeouts, while the others keep the cores busy
ctest --test-dir "$BUILD" --output-on-failure -j "$(($(nproc) + 1))"
