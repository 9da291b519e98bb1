#!/bin/sh
# Every result's fields are listed by `gpuscope fields`, and docs/ hold the
# same lists (tools/docs-fields.sh writes them): a field added, renamed or
# given a new unit without its docs fails here.
. "$TESTS/cli/lib.sh"

expect_rc 0 fields
[ -n "$OUT" ] || fail "gpuscope fields lists no result"
expect_rc 0 fields --names
names=$OUT
for name in $names; do
	expect_rc 0 fields "$name"
	expect_out "field"
done
expect_rc 0 fields plan --json
expect_json
# every result at once: an object of field arrays, one per listed name
expect_rc 0 fields --json
printf '%s' "$OUT" >"$TMP/all.json"
CHECKS=$((CHECKS + 1))
python3 - "$TMP/all.json" $names <<'PY' || fail "fields --json does not hold every result"
import json, sys
d = json.load(open(sys.argv[1]))
names = sys.argv[2:]
assert list(d) == names, (list(d), names)
assert all(isinstance(v, list) and v and "name" in v[0] for v in d.values())
PY
expect_rc 0 fields --markdown
CHECKS=$((CHECKS + 1))
[ "$(printf '%s\n' "$OUT" | grep -c '^<!-- fields:')" = "$(printf '%s\n' $names | wc -l)" ] ||
	fail "fields --markdown does not hold one block per result"
expect_rc 2 fields no-such-result
expect_err "no result is called 'no-such-result'"
expect_rc 2 fields --json --markdown plan

# --markdown of every result, against docs/
CHECKS=$((CHECKS + 1))
"$SRCDIR/tools/docs-fields.sh" --check "$GPUSCOPE" ||
	fail "docs/ field lists differ from the binary's tables"
expect_rc 0 fields plan --markdown
expect_out "| field | type | unit | meaning |"
finish
