#!/bin/bash
# gpuscope top on the fake NVML: plain frames on a pipe (--iterations, --once),
# every GPU of the DGX H100 with SM/tensor activity from the second frame on,
# processes with user and container, XIDs and a lost GPU, sort and filter,
# the full-screen view through ncurses (--tui), and the flags' errors.
. "$TESTS/cli/lib.sh"

FAKE="$BUILDDIR/fake-nvml/libnvidia-ml.so.1"
SCEN="$SRCDIR/tests/fake-nvml/scenarios"
ROOT="$SRCDIR/tests/fixtures/hosts/dgx-h100"

top_on() {
	local scen=$1
	shift
	CHECKS=$((CHECKS + 1))
	FAKE_NVML_SCENARIO="$SCEN/$scen" "$GPUSCOPE" top --nvml "$FAKE" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	expect_no_crash
}

# ---- two frames of the DGX H100: all eight GPUs in each ----
top_on dgx-h100.ini --iterations 2 --interval 100ms --root "$ROOT"
CHECKS=$((CHECKS + 1))
[ "$RC" -eq 0 ] || fail "top --iterations 2 exited $RC: $ERR"
CHECKS=$((CHECKS + 1))
n=$(grep -c '^gpuscope top  8 GPUs' "$TMP/out")
[ "$n" = 2 ] || fail "$n frames, want 2"
for i in 0 1 2 3 4 5 6 7; do
	CHECKS=$((CHECKS + 1))
	n=$(grep -c "^GPU $i  NVIDIA H100 80GB HBM3" "$TMP/out")
	[ "$n" = 2 ] || fail "GPU $i shown $n times, want 2"
done
expect_out ' util [||||'
expect_out '97%]'
expect_out '62.0/79.6G]'
expect_out '412/700W]'
expect_out '41C]'
expect_out 'SM 1980 MHz  MEM 2619 MHz'
expect_out 'throttle none'
# GPM needs two samples: SM and tensor activity from the second frame on
CHECKS=$((CHECKS + 1))
n=$(grep -c '^ sm   \[.* 88%\] *tensr\[.* 64%\]' "$TMP/out")
[ "$n" = 8 ] || fail "$n GPUs with SM/tensor bars, want 8 (second frame only)"
# the process, its user from the fixture's /etc/passwd, its container from its cgroup
expect_out '0    31337    svc-train    4f9c2e7d1a3b    62.0 GiB  python3'
expect_out '7    31337    svc-train    4f9c2e7d1a3b    62.0 GiB  python3'
expect_out 'XIDS since start: 0'
expect_width 100
expect_rc 0 top --help
expect_width 80

# ---- --once: one frame, with GPM; sort and filter ----
top_on dgx-h100.ini --once --filter 3 --no-processes
CHECKS=$((CHECKS + 1))
[ "$(grep -c '^GPU ' "$TMP/out")" = 1 ] || fail "--filter 3 shows $(grep -c '^GPU ' "$TMP/out") GPUs"
expect_out 'GPU 3  NVIDIA H100 80GB HBM3'
expect_out ' sm   ['
CHECKS=$((CHECKS + 1))
case "$OUT" in *PID*) fail "--no-processes still lists processes";; esac
top_on a100-pcie-x8.ini --once --sort memory
expect_out 'sort memory'
CHECKS=$((CHECKS + 1))
case "$OUT" in *' sm   ['*) fail "SM bars on GPUs without GPM";; esac
top_on a100-pcie-x8.ini --once --filter nothing-matches
expect_out 'no GPU matches the filter'

# ---- an XID and a lost GPU ----
top_on h100-xid79.ini --iterations 3 --interval 100ms
CHECKS=$((CHECKS + 1))
[ "$RC" -eq 0 ] || fail "top on a lost GPU exited $RC: $ERR"
expect_out 'gpu 1  xid 79'
expect_out 'LOST: fell off the bus'
expect_out 'GPU 0  NVIDIA H100 PCIe'

# ---- the full-screen view through ncurses, and a dumb terminal ----
if "$GPUSCOPE" top --help | grep -q -- '--tui'; then
	CHECKS=$((CHECKS + 1))
	FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" TERM=xterm-256color COLUMNS=120 LINES=40 \
		"$GPUSCOPE" top --nvml "$FAKE" --tui --iterations 2 --interval 100ms </dev/null >"$TMP/tui" 2>"$TMP/err"
	RC=$?
	[ "$RC" -eq 0 ] || fail "--tui exited $RC: $(cat "$TMP/err")"
	# 8 blocks of bars do not fit 40 lines beside the processes: a line per GPU
	CHECKS=$((CHECKS + 1))
	grep -q 'UTIL  MEM' "$TMP/tui" && grep -q 'H100 80GB HBM3' "$TMP/tui" || fail "--tui did not draw a line per GPU"
	# with room, the bars
	CHECKS=$((CHECKS + 1))
	FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" TERM=xterm COLUMNS=120 LINES=60 \
		"$GPUSCOPE" top --nvml "$FAKE" --tui --iterations 1 --no-processes </dev/null >"$TMP/tui60" 2>"$TMP/err"
	grep -q 'GPU 7 ' "$TMP/tui60" && ! grep -q 'GPUs [0-9]*-' "$TMP/tui60" || fail "60 lines did not show 8 blocks of bars"
	CHECKS=$((CHECKS + 1))
	grep -q $'\e\\[' "$TMP/tui" || fail "--tui wrote no terminal control sequences"
	CHECKS=$((CHECKS + 1))
	! grep -q 'Sanitizer\|runtime error' "$TMP/err" || fail "sanitizer report under --tui: $(cat "$TMP/err")"

	# stdin at its end (top < /dev/null): getch() returns ERR at once, which is no
	# timeout; top must wait out its interval, not spin.  CPU time over 2 s of wall
	# time, from /proc/PID/stat; the spin took what CPU it could get (a whole core when idle), waiting takes ~1 %.
	# tui_cpu_pct CMD...: runs CMD in the background and prints its CPU % (that of its
	# child when CMD is script(1), which runs top on a pty).
	tui_cpu_pct() {
		local pid s0 s1 t0 t1
		"$@" </dev/null >"$TMP/tui" 2>"$TMP/err" &
		pid=$!
		sleep 0.5  # past the start (sanitizer set-up, the first frame)
		if [ "$1" = script ]; then
			pid=$(cat /proc/$pid/task/$pid/children)
			pid=${pid%% *}
			[ -n "$pid" ] || { echo 100; return; }  # no top: fail
		fi
		read -r -a s0 </proc/$pid/stat
		t0=$(date +%s%N)
		sleep 2
		read -r -a s1 </proc/$pid/stat
		t1=$(date +%s%N)
		kill "$pid"
		wait 2>/dev/null
		# fields 14 and 15: utime and stime in clock ticks
		echo $(( (s1[13] + s1[14] - s0[13] - s0[14]) * 100000000000 / $(getconf CLK_TCK) / (t1 - t0) ))
	}
	CHECKS=$((CHECKS + 1))
	pct=$(FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" TERM=xterm COLUMNS=120 LINES=40 \
		tui_cpu_pct "$GPUSCOPE" top --nvml "$FAKE" --tui --interval 1s)
	[ "$pct" -lt 15 ] || fail "top --tui with stdin at its end used $pct% CPU (want < 15%)"
	# the same on a pseudo-terminal, where top picks the full screen itself
	if command -v script >/dev/null; then
		CHECKS=$((CHECKS + 1))
		pct=$(FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" TERM=xterm COLUMNS=120 LINES=40 \
			tui_cpu_pct script -qfec "exec \"$GPUSCOPE\" top --nvml \"$FAKE\" --interval 1s </dev/null" /dev/null)
		[ "$pct" -lt 15 ] || fail "top on a pty with stdin at its end used $pct% CPU (want < 15%)"
	fi
	# 72 GPUs on 30 lines: a page of lines; End shows the last page, up one GPU, v the bars of GPUs 54-57
	if command -v script >/dev/null; then
		CHECKS=$((CHECKS + 1))
		(sleep 1; printf G; sleep 1; printf k; sleep 1; printf v; sleep 1; printf q) |
			FAKE_NVML_SCENARIO="$SCEN/gb200-nvl72.ini" TERM=xterm COLUMNS=120 LINES=30 timeout 60 \
			script -qfec "exec \"$GPUSCOPE\" top --nvml \"$FAKE\" --interval 30s" /dev/null >"$TMP/scroll" 2>&1
		pages=$(grep -ao 'GPUs [0-9]*-[0-9]* of 72' "$TMP/scroll" | tr '\n' ' ')
		[ "$pages" = "GPUs 1-17 of 72 GPUs 56-72 of 72 GPUs 55-71 of 72 GPUs 55-58 of 72 " ] ||
			fail "scrolling 72 GPUs showed: $pages"
		CHECKS=$((CHECKS + 1))
		grep -aq 'GPU 57 NVIDIA GB200' "$TMP/scroll" || fail "v did not show GPU 57's bars"
	fi
	# and it still draws a frame per interval: 3 frames 300 ms apart take at least 0.6 s
	CHECKS=$((CHECKS + 1))
	t0=$(date +%s%N)
	FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" TERM=xterm COLUMNS=120 LINES=40 \
		"$GPUSCOPE" top --nvml "$FAKE" --tui --iterations 3 --interval 300ms </dev/null >"$TMP/tui" 2>"$TMP/err"
	RC=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	[ "$RC" -eq 0 ] && [ "$ms" -ge 600 ] || fail "--tui --iterations 3 --interval 300ms took $ms ms, rc $RC"
fi
CHECKS=$((CHECKS + 1))
FAKE_NVML_SCENARIO="$SCEN/dgx-h100.ini" TERM=dumb "$GPUSCOPE" top --nvml "$FAKE" --iterations 1 >"$TMP/dumb" 2>&1
grep -q $'\e' "$TMP/dumb" && fail "TERM=dumb got control sequences"

# ---- 72 GPUs in a pipe: a line each with --compact ----
top_on gb200-nvl72.ini --once --compact --no-processes
CHECKS=$((CHECKS + 1))
[ "$(grep -c '^ *[0-9]* GB200  ' "$TMP/out")" = 72 ] || fail "--compact did not give 72 GPU lines"
expect_out 'GPU NAME               UTIL  MEM          POWER      TEMP  SM    THROTTLE'
expect_out ' 71 GB200              99%   146.5/185.0G 980/1200W  52C   92%   sw_power_cap'
expect_width 80
top_on h100-xid79.ini --iterations 3 --interval 100ms --compact
expect_out '  1 H100 PCIe          LOST: fell off the bus'

# ---- errors ----
expect_rc 2 top --sort fastest
expect_err "option '--sort' must be index, util, memory, power or temp, got 'fastest'"
expect_rc 2 top --once --iterations 2
expect_rc 2 top --interval 1ms
CHECKS=$((CHECKS + 1))
FAKE_NVML_SCENARIO= "$GPUSCOPE" top --nvml "$FAKE" --once >/dev/null 2>"$TMP/err"
[ $? -eq 3 ] || fail "no driver: want exit 3"
expect_rc 3 top --nvml /nonexistent/libnvidia-ml.so.1 --once

finish
