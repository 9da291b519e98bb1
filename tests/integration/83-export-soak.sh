#!/bin/bash
# A soak of the exporter: scrapes, /health, XID storms in the kernel log,
# a GPU lost mid-run, TLS reloads by SIGHUP and bad requests, all at once,
# for SOAK_SECONDS (10 under ctest; run it by hand for longer:
#   SOAK_SECONDS=3600 TESTS=tests SRCDIR=. BUILDDIR=build-asan \
#     GPUSCOPE=build-asan/gpuscope bash tests/integration/83-export-soak.sh).
# Under AddressSanitizer the exit at SIGTERM checks for leaks (any leak
# fails the exit code); the resident memory of the second half of the run
# must stay within SOAK_RSS_GROWTH_KB of the first.
EXPORT_LIB_ONLY=1 . "$TESTS/integration/70-export-basic.sh"
SECS=${SOAK_SECONDS:-10}
GROWTH_KB=${SOAK_RSS_GROWTH_KB:-8192}
# a small quarantine, so freed memory ASan holds back does not read as growth
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8:detect_leaks=1"

tls_pair "$TMP"
cat >"$TMP/soak.ini" <<'EOF2'
[system]
gpus = 4
driver_version = 550.54.15
cuda_driver_version = 12040
[all]
name = NVIDIA H100 80GB HBM3
uuid = GPU-50a50a00-0000-4000-8000-00000000000{i}
memory_total_mib = 81920
memory_used_mib = 4096
power_mw = 300000
temp_c = 60
util_gpu = 90
process = 1 compute 1024
[gpu 1]
pci_bus = 0x2a
xid = 48
xid = 63
[gpu 3]
lost_after_calls = 400
EOF2
: >"$TMP/kmsg"
start_exporter "$TMP/soak.ini" --interval 100ms --web-config "$TMP/tls.yml" --kmsg "$TMP/kmsg" \
	--processes
END=$(( $(date +%s) + SECS ))

# XID storms: bursts of kernel log lines for GPU 1 and for no GPU
(
	n=0
	while [ "$(date +%s)" -lt "$END" ]; do
		for i in $(seq 1 200); do
			printf '3,%d,%d,-;NVRM: Xid (PCI:0000:2a:00): 31, pid=%d, name=python3, MMU Fault\n' \
				"$n" "$n" "$i"
			n=$((n + 1))
		done >>"$TMP/kmsg"
		printf '3,%d,1,-;NVRM: Xid (PCI:0000:ee:00): 79, GPU has fallen off the bus.\n' "$n" >>"$TMP/kmsg"
		sleep 0.5
	done
) &
STORM=$!
# TLS reloads
(
	k=0
	while [ "$(date +%s)" -lt "$END" ]; do
		k=$((k + 1))
		if [ $((k % 2)) = 0 ]; then cp "$TMP/tls-a.yml" "$TMP/tls.yml"; else cp "$TMP/tls-b.yml" "$TMP/tls.yml"; fi
		kill -HUP "$EXP_PID" 2>/dev/null
		sleep 1
	done
) &
RELOAD=$!
# bad requests
(
	while [ "$(date +%s)" -lt "$END" ]; do
		curl -sk --max-time 2 -o /dev/null -X POST "$BASE/metrics"
		curl -sk --max-time 2 -o /dev/null --path-as-is "$BASE/metrics%00"
		curl -sk --max-time 2 -o /dev/null -H 'Host:' --http1.1 "$BASE/health"
		sleep 0.05
	done
) &
BAD=$!
EXTRA_PIDS="$STORM $RELOAD $BAD"

rss() { awk '/^VmRSS:/ {print $2}' "/proc/$EXP_PID/status"; }
MID=$(( SECS / 2 ))
OK=0
FAILS=0
RSS_MID=""
START=$(date +%s)
while [ "$(date +%s)" -lt "$END" ]; do
	for p in /metrics /health /metrics; do
		C=$(curl -sk --max-time 5 -o /dev/null -w '%{http_code}' "$BASE$p")
		case "$C" in 200|503) OK=$((OK + 1)) ;; *) FAILS=$((FAILS + 1)) ;; esac
	done
	if [ -z "$RSS_MID" ] && [ $(( $(date +%s) - START )) -ge "$MID" ]; then
		RSS_MID=$(rss)
	fi
done
wait $STORM $RELOAD $BAD 2>/dev/null
EXTRA_PIDS=""
RSS_END=$(rss)
curl -sk --max-time 5 -o "$TMP/body" "$BASE/metrics"
echo "soak: ${SECS} s, $OK answers, $FAILS failures, RSS ${RSS_MID:-?} -> ${RSS_END:-?} KiB"
CHECKS=$((CHECKS + 1))
[ "$OK" -gt 0 ] && [ "$FAILS" -le $(( OK / 100 + 2 )) ] || fail "$FAILS of $((OK + FAILS)) requests failed"
has 'gpu_lost{gpu="3",uuid="GPU-50a50a00-0000-4000-8000-000000000003"} 1'
has 'gpu_xid_errors_total{gpu="1",uuid="GPU-50a50a00-0000-4000-8000-000000000001",xid="31"}'
has 'gpuscope_exporter_xid_source_up{source="kmsg"} 1'
CHECKS=$((CHECKS + 1))
[ -n "$RSS_MID" ] && [ $(( RSS_END - RSS_MID )) -le "$GROWTH_KB" ] ||
	fail "resident memory grew from ${RSS_MID:-?} to $RSS_END KiB in the second half"
stop_exporter TERM
CHECKS=$((CHECKS + 1))
[ "$STOP_RC" = 0 ] || fail "exit $STOP_RC at the end of the soak: $(grep -A5 -m1 'ERROR: LeakSanitizer' "$EXP_LOG")"
CHECKS=$((CHECKS + 1))
! grep -q 'Sanitizer' "$EXP_LOG" || fail "sanitizer report: $(grep -m3 -A8 'Sanitizer' "$EXP_LOG")"
finish
