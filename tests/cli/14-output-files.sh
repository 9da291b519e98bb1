#!/bin/bash
# Files gpuscope writes (--report, check --output): a fresh temporary per run
# (a planted PATH.tmp symlink is never written through), symlinks followed on
# purpose, devices written in place, concurrent writers never corrupt the
# result, and a failed write to stdout is reported.
. "$TESTS/cli/lib.sh"
cd "$TMP" || exit 1
REPORT=(tco --server dgx-h100)

# a symlink planted at the old fixed temporary name
echo victim >victim
ln -s victim r.html.tmp
expect_rc 0 "${REPORT[@]}" --report r.html
CHECKS=$((CHECKS + 1))
[ "$(cat victim)" = victim ] || fail "the report was written through r.html.tmp"
grep -q '</html>' r.html || fail "r.html is not a whole report"
rm -f r.html.tmp

# a symlink as the target: the file it points to is replaced, the link kept
ln -s r.html link.html
: >r.html
expect_rc 0 "${REPORT[@]}" --report link.html
CHECKS=$((CHECKS + 1))
[ -L link.html ] || fail "link.html was replaced by a regular file"
grep -q '</html>' r.html || fail "the link's target was not written"
ln -s nowhere/x.html dangling.html
expect_rc 3 "${REPORT[@]}" --report dangling.html
expect_err "dangling.html"
expect_err "symbolic link"

# devices are written in place, never replaced
expect_rc 0 "${REPORT[@]}" --report /dev/null
CHECKS=$((CHECKS + 1))
[ -c /dev/null ] || fail "/dev/null is no longer a device"
expect_rc 3 "${REPORT[@]}" --report /dev/full
expect_err "No space left on device"
expect_rc 3 "${REPORT[@]}" --report "$TMP"
expect_err "a directory"

# the file keeps its mode; a new one gets what umask allows, not mkstemp's 0600
chmod 640 r.html
expect_rc 0 "${REPORT[@]}" --report r.html
CHECKS=$((CHECKS + 1))
[ "$(stat -c %a r.html)" = 640 ] || fail "mode of r.html changed to $(stat -c %a r.html)"
(umask 022 && "$GPUSCOPE" "${REPORT[@]}" --report new.html >/dev/null)
CHECKS=$((CHECKS + 1))
[ "$(stat -c %a new.html)" = 644 ] || fail "a new report has mode $(stat -c %a new.html)"

# concurrent runs writing the same report: every run succeeds, the file is whole
for i in $(seq 1 12); do
	("$GPUSCOPE" "${REPORT[@]}" --report same.html >/dev/null 2>"err.$i"; echo $? >"rc.$i") &
done
wait
CHECKS=$((CHECKS + 1))
for i in $(seq 1 12); do
	[ "$(cat "rc.$i")" = 0 ] || fail "concurrent run $i exited $(cat "rc.$i"): $(cat "err.$i")"
done
[ "$(grep -c '</html>' same.html)" = 1 ] || fail "same.html is not one whole report"
[ -z "$(ls -a | grep '^\.same\.html\.')" ] || fail "temporaries left behind: $(ls -a)"

# check --output goes the same way
export FAKE_NVML_SCENARIO="$TESTS/fake-nvml/scenarios/dgx-h100.ini"
ARGS=(--nvml "$BUILDDIR/fake-nvml/libnvidia-ml.so.1" --root "$TESTS/fixtures/hosts/dgx-h100"
      --no-libs --no-python --format prom)
ln -s victim check.prom.tmp
expect_rc 0 check "${ARGS[@]}" --output check.prom
CHECKS=$((CHECKS + 1))
[ "$(cat victim)" = victim ] || fail "check --output wrote through check.prom.tmp"
grep -q '^gpuscope_check_exit_code 0$' check.prom || fail "check.prom is not whole"
expect_rc 0 check "${ARGS[@]}" --output /dev/null
expect_rc 3 check "${ARGS[@]}" --output /dev/full
expect_err "No space left on device"

# help to a full disk: exit 3 with a message, not silently

CHECKS=$((CHECKS + 1))
"$GPUSCOPE" help plan >/dev/full 2>err.full
rc=$?
[ "$rc" = 3 ] || fail "help plan >/dev/full exited $rc"
grep -q "write error" err.full || fail "help plan >/dev/full said nothing"
finish
