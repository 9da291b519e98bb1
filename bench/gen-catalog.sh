#!/bin/sh
# Writes DIR/gpus.csv with N synthetic GPU rows (copies of the A100 SXM4 80GB
# row under new keys), for timing the catalog loader and plan on a large fleet
# catalog.  usage: gen-catalog.sh DIR N [SRCDIR]
set -eu
dir=$1 n=$2 src=${3:-$(dirname "$0")/..}
mkdir -p "$dir"
awk -v n="$n" -F, '
	/^#/ { next }
	!hdr { print; hdr = 1; next }
	$1 == "a100-sxm4-80gb" { row = $0 }
	END {
		sub(/^[^,]*,[^,]*,[^,]*,[^,]*,/, "", row)
		for (i = 0; i < n; i++)
			printf "fleet-%d,Fleet GPU %d,nvidia,,%s\n", i, i, row
	}' "$src/data/gpus.csv" > "$dir/gpus.csv"
