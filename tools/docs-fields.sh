#!/bin/sh
# Writes every result's field list into docs/ from the binary's own tables:
# the block between "<!-- fields:NAME -->" and "<!-- /fields -->" becomes
# `gpuscope fields NAME --markdown`.  With --check nothing is written: it
# exits 1 naming each block that differs and each result that has none.
#
#   tools/docs-fields.sh [--check] [GPUSCOPE]     (default build/gpuscope)
set -eu
cd "$(dirname "$0")/.."
check=0
[ "${1:-}" = --check ] && { check=1; shift; }
bin=${1:-build/gpuscope}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
# every result's table from one run, split into $tmp/want/NAME
mkdir "$tmp/want"
"$bin" fields --markdown | awk -v dir="$tmp/want" '
	/^<!-- fields:.* -->$/ { name = substr($0, 13, length($0) - 16); next }
	$0 == "<!-- /fields -->" { close(dir "/" name); name = ""; next }
	name != "" { print > (dir "/" name) }'
for name in $("$bin" fields --names); do
	cp "$tmp/want/$name" "$tmp/want.cur"
	files=$(grep -l -- "<!-- fields:$name -->" docs/*.md || true)
	if [ -z "$files" ]; then
		echo "docs: no block <!-- fields:$name --> for result '$name'" >&2
		bad=1
		continue
	fi
	for f in $files; do
		# the file with the block's body replaced by the wanted text
		awk -v name="$name" -v want="$tmp/want.cur" '
			$0 == "<!-- fields:" name " -->" { print; while ((getline l < want) > 0) print l; skip = 1; next }
			skip && $0 == "<!-- /fields -->" { skip = 0 }
			!skip { print }' "$f" >"$tmp/new"
		if ! cmp -s "$f" "$tmp/new"; then
			if [ "$check" = 1 ]; then
				echo "docs: $f: the '$name' field list differs from 'gpuscope fields $name --markdown':" >&2
				diff "$f" "$tmp/new" | head -20 >&2 || true
				bad=1
			else
				cat "$tmp/new" >"$f"
				echo "wrote $f ($name)"
			fi
		fi
	done
done
exit "$bad"
