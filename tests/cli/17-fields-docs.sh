#!/bin/sh
# Every result's fields are listed by `gpuscope fields`, and docs/ hold the
# same lists (tools/docs-fields.sh writes them): a field added, renamed or
# given a new unit without its docs fails here.
. "$TESTS/cli/lib.sh"

expect_rc 0 fields
[ -n "$OUT" ] || fail "gpuscope fields lists no result"
expect_rc 0 fields --names
names=$OUT
mkdir "$TMP/json"
for name in $names; do
	expect_rc 0 fields "$name"
	expect_out "field"
	expect_rc 0 fields "$name" --json
	printf '%s' "$OUT" >"$TMP/json/$name.json"
done
# every --json answer parses (one Python for all of them)
CHECKS=$((CHECKS + 1))
python3 - "$TMP"/json/*.json <<'PY' || fail "fields NAME --json is not JSON"
import json, sys
for path in sys.argv[1:]:
    try:
        json.load(open(path))
    except ValueError as e:
        sys.exit(f"{path}: {e}")
PY
expect_rc 2 fields no-such-result
expect_err "no result is called 'no-such-result'"
expect_rc 2 fields --json --markdown plan

# --markdown of every result, against docs/: the comparison needs no
# sanitizer, so it runs the unsanitized build where there is one (a quarter
# of the start-up cost, 53 starts)
CHECKS=$((CHECKS + 1))
"$SRCDIR/tools/docs-fields.sh" --check "${GPUSCOPE_PLAIN:-$GPUSCOPE}" ||
	fail "docs/ field lists differ from the binary's tables"
expect_rc 0 fields plan --markdown
expect_out "| field | type | unit | meaning |"
finish
