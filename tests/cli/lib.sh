# Shared helpers for the CLI tests.  Source it first:  . "$TESTS/cli/lib.sh"
# $GPUSCOPE is the binary under test; $SRCDIR the source tree; $TESTS tests/.
set -u
: "${GPUSCOPE:?run through ctest}"
TMP=$(mktemp -d)
# A script that ends without calling finish still fails when a check failed.
trap 'rc=$?; rm -rf "$TMP"; if [ "$rc" -eq 0 ] && [ "$FAILS" -ne 0 ]; then echo "$FAILS check(s) failed" >&2; exit 1; fi; exit "$rc"' EXIT
FAILS=0
CHECKS=0

fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }

# run CMD...: runs gpuscope, capturing $OUT, $ERR and $RC.
run() {
	CHECKS=$((CHECKS + 1))
	"$GPUSCOPE" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
}

# expect_rc CODE CMD...: runs gpuscope and checks the exit code.
expect_rc() {
	local want=$1
	shift
	run "$@"
	[ "$RC" -eq "$want" ] || fail "gpuscope $* exited $RC, want $want; stderr: $ERR"
}

# expect_out TEXT: the last stdout contains TEXT.
expect_out() { case "$OUT" in *"$1"*) ;; *) fail "stdout lacks '$1'";; esac; }
# expect_err TEXT: the last stderr contains TEXT.
expect_err() { case "$ERR" in *"$1"*) ;; *) fail "stderr lacks '$1'; got: $ERR";; esac; }
# expect_no_crash: the last run did not die of a signal or a sanitizer.
expect_no_crash() {
	[ "$RC" -lt 128 ] || fail "crashed with status $RC"
	case "$ERR" in *Sanitizer*|*"runtime error"*) fail "sanitizer report: $ERR";; esac
}
# expect_json: the last stdout parses as JSON.
expect_json() { printf '%s' "$OUT" | python3 -m json.tool >/dev/null 2>&1 || fail "stdout is not JSON"; }

# json_field SECTION.NAME: that value of the JSON on stdout (estimate --json: time.zero_comm_s)
json_field() {
	printf '%s' "$OUT" | python3 -c 'import json, sys
d = json.load(sys.stdin); k = sys.argv[1].split(".")
print(d[k[0]][k[1]])' "$1"
}
# expect_width N: no stdout line is longer than N columns, and none ends in blanks.
expect_width() {
	local n
	n=$(printf '%s\n' "$OUT" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
	[ "$n" -le "$1" ] || fail "stdout is $n columns wide, want <= $1"
	# and no line ends in blanks (they show up as noise in diffs and pastes)
	n=$(printf '%s\n' "$OUT" | grep -c '[[:blank:]]$')
	[ "$n" -eq 0 ] || fail "$n stdout lines end in blanks"
}

# estimate_agrees ARGS STEP_S: `estimate ARGS` (a plan choice's estimate_args) gives the same
# step time as plan, and the configuration fits the GPU and the host.
estimate_agrees() {
	local args=$1 step=$2
	# shellcheck disable=SC2086
	expect_rc 0 estimate $args --json
	printf '%s' "$OUT" | python3 -c '
import json, sys
e = json.load(sys.stdin)
step = float(sys.argv[1])
assert abs(e["time"]["step_s"] - step) <= 1e-9 * step, (e["time"]["step_s"], step)
assert e["memory"]["fits"] is True
assert e["memory"]["host_fits"] in (None, True)
' "$step" || fail "estimate $args disagrees with plan"
}

# air_cooled_gb200 DIR: writes DIR/servers.csv, a user catalog whose GB200 NVL72 racks are
# air-cooled, so each draws more than the default air-cooled rack supplies.
air_cooled_gb200() {
	mkdir -p "$1"
	{
		grep '^#' "$SRCDIR/data/servers.csv"
		grep -v '^#' "$SRCDIR/data/servers.csv" | head -1
		grep '^gb200' "$SRCDIR/data/servers.csv" | sed 's/,liquid,/,air,/'
	} >"$1/servers.csv"
	grep -q ',air,' "$1/servers.csv" || fail "no gb200 server row to make air-cooled"
}

# finish: prints the summary line and exits non-zero when a check failed.
finish() {
	echo "$((CHECKS - FAILS)) passed, $FAILS failed"
	[ "$FAILS" -eq 0 ]
	exit $?
}
