#!/bin/bash
# catalog: user files that cannot be read are errors naming the file (never
# "absent"), non-regular files are refused without blocking, and a fleet
# catalog loads in linear time.
. "$TESTS/cli/lib.sh"

# expect_bad_dir WHAT: `catalog check` and a command using the catalog both
# refuse $TMP/c, name its gpus.csv and say WHAT.
expect_bad_dir() {
	expect_rc 2 catalog check "$TMP/c"
	expect_err "$TMP/c/gpus.csv"
	expect_err "$1"
	expect_no_crash
	expect_rc 2 --catalog "$TMP/c" catalog gpus
	expect_err "$TMP/c/gpus.csv"
}

mkdir -p "$TMP/c"
ln -s "$TMP/nowhere.csv" "$TMP/c/gpus.csv"
expect_bad_dir "No such file"
rm "$TMP/c/gpus.csv"
ln -s gpus.csv "$TMP/c/gpus.csv"
expect_bad_dir "symbolic links"
rm "$TMP/c/gpus.csv"
mkdir "$TMP/c/gpus.csv"
expect_bad_dir "not a regular file"
rmdir "$TMP/c/gpus.csv"

# a FIFO must not block: every command used to hang on it
mkfifo "$TMP/c/gpus.csv"
CHECKS=$((CHECKS + 1))
timeout 20 "$GPUSCOPE" catalog check "$TMP/c" >"$TMP/out" 2>"$TMP/err"
RC=$?
ERR=$(cat "$TMP/err")
[ "$RC" -eq 2 ] || fail "catalog check on a FIFO exited $RC, want 2"
expect_err "not a regular file"
rm "$TMP/c/gpus.csv"

# a file the user cannot read: only testable without root's override
printf 'key,name,source,as_of\nx,X,s,2024-01\n' >"$TMP/c/gpus.csv"
chmod 000 "$TMP/c/gpus.csv"
if [ "$(id -u)" != 0 ]; then
	expect_bad_dir "Permission denied"
elif command -v setpriv >/dev/null && chmod 755 "$TMP" "$TMP/c" &&
	setpriv --reuid=65534 --regid=65534 --clear-groups "$GPUSCOPE" --version >/dev/null 2>&1; then
	CHECKS=$((CHECKS + 1))
	setpriv --reuid=65534 --regid=65534 --clear-groups "$GPUSCOPE" catalog check "$TMP/c" \
		>"$TMP/out" 2>"$TMP/err"
	RC=$?
	[ "$RC" -eq 2 ] || fail "unreadable gpus.csv: exited $RC, want 2"
	grep -q "Permission denied" "$TMP/err" || fail "unreadable gpus.csv: $(cat "$TMP/err")"
fi
rm -f "$TMP/c/gpus.csv"

# control characters in text: `catalog show` wrote them to the terminal as they were
# (ESC [ 2 J clears the screen, BEL rings, C1 CSI is ESC [ to some terminals)
for bad in 'X\033[2Jred:U+001B:3' 'X\aY:U+0007:3' 'X\177:U+007F:3' 'X\302\2332J:U+009B:3' 'X\tY:U+0009:3'; do
	IFS=: read -r value code col <<<"$bad"
	printf "key,name,source,as_of\nx,$value,s,2024-01\n" >"$TMP/c/gpus.csv"
	expect_rc 2 catalog check "$TMP/c"
	expect_err "$TMP/c/gpus.csv:2:$col: field 'name': control character $code"
	expect_rc 2 --catalog "$TMP/c" catalog show x
	expect_err "$TMP/c/gpus.csv:2:$col: field 'name'"
	CHECKS=$((CHECKS + 1))
	LC_ALL=C grep -q $'[\001-\010\016-\037\177]\|\302[\200-\237]' "$TMP/out" "$TMP/err" &&
		fail "a control character of $value reached the output"
done
printf 'key,name,source,as_of\nx,X,"two\nlines",2024-01\n' >"$TMP/c/gpus.csv"
expect_rc 2 catalog check "$TMP/c"
expect_err "$TMP/c/gpus.csv:2:5: field 'source': control character U+000A"
rm -f "$TMP/c/gpus.csv"

# 60,000 rows: the duplicate-key scan was quadratic (91 s); now well under a second
# in a release build.  The bound is on CPU seconds (user + system of the children,
# from bash's `times`), not on the clock, so a busy machine does not fail it; it
# leaves room for the sanitizers.
# (`times` runs in this shell, not in a $(...) subshell, which has children of its own)
children_cpu() { awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$1"; }
"$SRCDIR/bench/gen-catalog.sh" "$TMP/fleet" 60000 "$SRCDIR"
times >"$TMP/times0"
expect_rc 0 catalog check "$TMP/fleet"
expect_out "ok, 60000 rows"
times >"$TMP/times1"
took=$(echo "$(children_cpu "$TMP/times1") - $(children_cpu "$TMP/times0")" | bc)
CHECKS=$((CHECKS + 1))
[ "$(echo "$took < 10" | bc)" = 1 ] || fail "60,000 rows took $took s of CPU"
echo "60,000 rows: $took s of CPU"
finish
