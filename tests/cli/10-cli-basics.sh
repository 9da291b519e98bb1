#!/bin/bash
# The command table: help, version, unknown commands and options, stdout errors.
. "$TESTS/cli/lib.sh"

expect_rc 0 --help
expect_out "What should I buy or rent?"
expect_out "catalog"
expect_rc 0 --version
expect_out "gpuscope "
expect_rc 0 help catalog
expect_out "usage: gpuscope catalog"
expect_rc 0 catalog --help
expect_out "--min-memory"
expect_rc 2
expect_rc 2 catalgo gpus
expect_err "did you mean 'catalog'"
expect_rc 2 help nosuchcommand
expect_rc 2 --frobnicate
expect_err "unknown option '--frobnicate'"
expect_rc 2 catalog gpus --jsno
expect_err "did you mean"
expect_err "--json"
expect_rc 2 catalog gpus --json --csv
expect_err "exclude each other"
expect_rc 2 catalog gpu
expect_err "did you mean 'gpus'"
expect_rc 2 catalog gpus --min-memory 80parsecs
expect_err "unknown unit 'parsecs'"
expect_rc 2 catalog gpus --min-memory
expect_err "needs a value"

# a failed write to stdout is an error, not a silent truncation
CHECKS=$((CHECKS + 1))
if [ -w /dev/full ]; then
	"$GPUSCOPE" catalog gpus >/dev/full 2>"$TMP/err"
	rc=$?
	[ "$rc" -eq 3 ] || fail "writing to /dev/full exited $rc, want 3"
	grep -q "write error" "$TMP/err" || fail "no write error message for /dev/full"
fi
finish
