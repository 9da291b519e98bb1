#!/bin/sh
# Checks that the C sources follow .clang-format: exit 0 when clang-format would
# change nothing, 1 with the files it would change and an excerpt of its diff,
# 77 (skip) when clang-format 14 is not installed.  Changes nothing itself; to
# apply the style to a file: clang-format -i FILE.
#
#   tools/format-check.sh            every .c and .h under src/, tests/ and bench/
#   tools/format-check.sh FILE...    just these
#
# Each major version of clang-format lays code out a little differently, so the
# tree is held to one: 14, Debian 12's (CLANG_FORMAT names another binary;
# FORMAT_ANY_VERSION=1 accepts whatever version it is).
set -eu
cd "$(dirname "$0")/.."

cf=${CLANG_FORMAT:-}
if [ -z "$cf" ]; then
	for c in clang-format-14 clang-format; do
		if command -v "$c" >/dev/null 2>&1; then
			cf=$c
			break
		fi
	done
fi
if [ -z "$cf" ] || ! command -v "$cf" >/dev/null 2>&1; then
	echo "format-check: skipped: clang-format is not installed (apt-get install clang-format)"
	exit 77
fi
ver=$("$cf" --version | sed -n 's/.*clang-format version \([0-9]*\).*/\1/p')
if [ "$ver" != 14 ] && [ "${FORMAT_ANY_VERSION:-0}" != 1 ]; then
	echo "format-check: skipped: $cf is version ${ver:-unknown}, the style is checked with 14"
	exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ $# -gt 0 ]; then
	printf '%s\n' "$@" >"$tmp/files"
elif git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -- 'src/*.[ch]' 'tests/*.[ch]' 'bench/*.[ch]' >"$tmp/files"
else
	find src tests bench -name '*.[ch]' -type f | sort >"$tmp/files"
fi

# One clang-format for all the files first: where none would change (the
# usual case) that is the whole check, 2 s instead of 35 s of CPU for a
# clang-format, a diff and a shell per file.
if xargs "$cf" --dry-run --Werror --style=file --fallback-style=none <"$tmp/files" >/dev/null 2>&1; then
	echo "format-check: all $(wc -l <"$tmp/files") files checked follow .clang-format"
	exit 0
fi

# one diff per file, in parallel; a file clang-format cannot read or parse
# counts as changed, with its error as the diff
mkdir "$tmp/d"
# shellcheck disable=SC2016 # the inner sh expands them
CF=$cf D=$tmp/d xargs -P "$(nproc)" -I{} sh -c '
	out=$D/$(printf %s "$1" | tr / %)
	if "$CF" --style=file --fallback-style=none "$1" >"$out.new" 2>"$out.err"; then
		diff -u --label "a/$1" --label "b/$1" "$1" "$out.new" >"$out.diff" || true
	else
		cat "$out.err" >"$out.diff"
	fi
	rm -f "$out.new" "$out.err"
	[ -s "$out.diff" ] || rm -f "$out.diff"' sh {} <"$tmp/files"

bad=0
lines=0
while IFS= read -r f; do
	d=$tmp/d/$(printf %s "$f" | tr / %).diff
	[ -e "$d" ] || continue
	bad=$((bad + 1))
	n=$(tail -n +3 "$d" | grep -c '^-' || true)
	lines=$((lines + n))
	echo "$f: $n lines to change"
	# the first few diffs in full, enough to see what is wrong
	if [ "$bad" -le 3 ]; then
		head -n 40 "$d"
		[ "$(wc -l <"$d")" -le 40 ] || echo "..."
	fi
done <"$tmp/files"

if [ "$bad" -gt 0 ]; then
	echo "format-check: $bad of $(wc -l <"$tmp/files") files differ from .clang-format ($lines lines);" \
		"apply it with: $cf -i FILE"
	exit 1
fi
echo "format-check: all $(wc -l <"$tmp/files") files checked follow .clang-format"
