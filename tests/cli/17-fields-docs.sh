#!/bin/sh
# Every result's fields are listed by `gpuscope fields`, and docs/ hold the
# same lists (tools/docs-fields.sh writes them): a field added, renamed or
# given a new unit without its docs fails here.
. "$TESTS/cli/lib.sh"

expect_rc 0 fields
[ -n "$OUT" ] || fail "gpuscope fields lists no result"
expect_rc 0 fields --names
for name in $OUT; do
	expect_rc 0 fields "$name"
	expect_out "field"
	expect_rc 0 fields "$name" --json
	expect_json
	expect_rc 0 fields "$name" --markdown
	expect_out "| field | type | unit | meaning |"
done
expect_rc 2 fields no-such-result
expect_err "no result is called 'no-such-result'"
expect_rc 2 fields --json --markdown plan

CHECKS=$((CHECKS + 1))
"$SRCDIR/tools/docs-fields.sh" --check "$GPUSCOPE" || fail "docs/ field lists differ from the binary's tables"
finish
