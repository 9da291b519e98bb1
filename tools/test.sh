#!/bin/sh
# Builds gpuscope with AddressSanitizer + UndefinedBehaviorSanitizer and
# -Werror, then runs every test registered with ctest (where valgrind is
# installed, cli/16-valgrind runs a few commands of an unsanitized build,
# gpuscope-plain, under it).  Then builds the
# exporter and its unit tests with ThreadSanitizer and runs the exporter's
# tests that run its threads under it (any report fails the test); TSAN=0
# skips that part.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-asan}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Asan -DGPUSCOPE_WERROR=ON
cmake --build "$BUILD"
# one job more than the cores: the integration tests, one at a time
# (tests/CMakeLists.txt), spend most of their time waiting for intervals and
# timeouts, while the others keep the cores busy
ctest --test-dir "$BUILD" --output-on-failure -j "$(($(nproc) + 1))"

[ "${TSAN:-1}" = 0 ] && exit 0
TSAN_BUILD=${TSAN_BUILD:-$BUILD-tsan}
# warnings are the ASan build's to fail on (-O1 here warns differently)
cmake -S . -B "$TSAN_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Tsan -DGPUSCOPE_WERROR=OFF
# ThreadSanitizer finds races only where threads run: the exporter's unit
# tests that start threads (the collector's, the log's), and the integration
# tests that start `gpuscope export`, but not these three, whose threads run
# as in the others: 71-export-prometheus (a real Prometheus and promtool on
# deploy/), 75-export-gpu-check (the offline nvidia-smi comparison) and
# 78-export-counters (counters files, mostly --once).  The single-threaded
# unit tests and fuzz/http run under ASan only.
units=$(grep -lE 'pthread_create|(collector|server|kube)_start\(' tests/unit/test_export_*.c |
	sed 's|.*/||; s|\.c$||')
unit_re=$(echo "$units" | paste -sd '|' -)
# shellcheck disable=SC2086 # one target per word
cmake --build "$TSAN_BUILD" --target gpuscope $units
# one test at a time: ThreadSanitizer's exporter is slow enough that the
# attack tests need the cores to themselves
TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}" \
	ctest --test-dir "$TSAN_BUILD" --output-on-failure \
	-R "^(integration/[0-9]+-export-|unit/($unit_re)\$)" \
	-E '^integration/(71-export-prometheus|75-export-gpu-check|78-export-counters)$'
