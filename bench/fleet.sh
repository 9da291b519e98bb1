#!/bin/sh
# How catalog loading and plan grow with the rows of a fleet catalog, for two
# builds side by side:
#
#   bench/fleet.sh BEFORE/gpuscope AFTER/gpuscope [ROWS...]
#
# Each row count gets a generated gpus.csv (bench/gen-catalog.sh: copies of
# one GPU under new keys, as a catalog of every card of a fleet would hold);
# the figures are CPU seconds (user + system) of `catalog check` and of
# `plan llama2-7b`, best of three: on a shared machine wall time measures the
# neighbours.  Give the same binary twice for one column of figures.  The
# rows copy data/gpus.csv of $SRC (default this tree): point it at the older
# tree when the older build does not know a column of this one.
set -eu
before=$1 after=$2
shift 2
rows=${*:-"0 1000 4000 20000 60000"}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
here=$(dirname "$0")

# best CPU seconds of three runs of "$@" (a run past 300 s wall counts as what it used)
best() {
	b=
	for _ in 1 2 3; do
		/usr/bin/time -o "$dir/time" -f '%U %S' timeout 300 "$@" >/dev/null 2>&1 || true
		t=$(tail -1 "$dir/time" | awk '{ print $1 + $2 }')
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
		[ "$(echo "$t > 30" | bc)" = 1 ] && break
	done
	printf '%.2f' "$b"
}

printf '%8s  %13s  %13s  %13s  %13s\n' rows "load before" "load after" "plan before" "plan after"
for n in $rows; do
	"$here/gen-catalog.sh" "$dir/c$n" "$n" "${SRC:-$here/..}"
	lb=$(best "$before" catalog check "$dir/c$n")
	la=$(best "$after" catalog check "$dir/c$n")
	if [ "$n" -le 4000 ]; then
		pb=$(best "$before" --catalog "$dir/c$n" plan llama2-7b)
		pa=$(best "$after" --catalog "$dir/c$n" plan llama2-7b)
	else
		pb=- pa=-
	fi
	printf '%8s  %13s  %13s  %13s  %13s\n' "$n" "$lb" "$la" "$pb" "$pa"
done
