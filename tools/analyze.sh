#!/bin/sh
# Runs clang's static analyzer (clang-tidy's clang-analyzer-* checks, as .clang-tidy
# lists them) over every .c file under src/, with the flags of a configured build
# (its compile_commands.json), one file per CPU at a time.  Every finding is an error,
# except those listed in tools/analyzer-known.txt.
#
#   tools/analyze.sh [BUILD_DIR]      (default: build)
#
# Exit 0: no finding beyond the known ones, and every known one still found (a fixed
# finding's line must go, so the list only ever shrinks).  1: new findings, or known
# ones gone.  2: no compile_commands.json in BUILD_DIR.  77 (skip): clang-tidy is not
# installed.  CLANG_TIDY names another clang-tidy binary; JOBS how many run at once.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
known=$root/tools/analyzer-known.txt

ct=${CLANG_TIDY:-}
if [ -z "$ct" ]; then
	for c in clang-tidy-14 clang-tidy; do
		if command -v "$c" >/dev/null 2>&1; then
			ct=$c
			break
		fi
	done
fi
if [ -z "$ct" ] || ! command -v "$ct" >/dev/null 2>&1; then
	echo "analyze: skipped: clang-tidy is not installed (apt-get install clang-tidy)"
	exit 77
fi
if [ ! -f "$build/compile_commands.json" ]; then
	echo "analyze: no $build/compile_commands.json: configure a build first" \
		"(cmake -S . -B build -G Ninja)" >&2
	exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The build's database names a source once per target that compiles it (gpuscope_core
# and gpuscope-plain), and clang-tidy analyzes a file once per entry: keep the first.
# Code generation flags go too: at -O, glibc's headers add extern inline bodies for the
# analyzer to walk through, and the sanitizers change nothing it can see.
mkdir "$tmp/db"
if command -v python3 >/dev/null 2>&1; then
	python3 - "$build/compile_commands.json" "$tmp/db/compile_commands.json" <<'EOF'
import json, shlex, sys
seen, out = set(), []
for e in json.load(open(sys.argv[1])):
    if e["file"] in seen:
        continue
    seen.add(e["file"])
    args = e.get("arguments") or shlex.split(e["command"])
    args = [a for a in args if not (a.startswith("-O") or a.startswith("-fsanitize")
                                    or a.startswith("-fno-sanitize"))]
    out.append({"directory": e["directory"], "file": e["file"], "arguments": args})
json.dump(out, open(sys.argv[2], "w"), indent=1)
EOF
else
	cp "$build/compile_commands.json" "$tmp/db/"
fi

# The analyzer walks each function's paths until it has built max-nodes states (225000
# by default).  Nearly all of its time goes to the few dozen large functions that use up
# that budget.  A ninth of it (25000) takes 51 s of CPU for src/, against 115 s for a
# third and some 440 s for the default, and on this tree found what the third finds (the
# default found one false positive more).  MAX_NODES changes it.
nodes=${MAX_NODES:-25000}

find src -name '*.c' -type f | sort >"$tmp/files"
mkdir "$tmp/out"
# shellcheck disable=SC2016 # the inner sh expands them
CT=$ct DB=$tmp/db OUT=$tmp/out NODES=$nodes xargs -P "${JOBS:-$(nproc)}" -I{} sh -c '
	o=$OUT/$(printf %s "$1" | tr / %)
	rc=0
	"$CT" --quiet -p "$DB" --extra-arg=-Xclang --extra-arg=-analyzer-config \
		--extra-arg=-Xclang --extra-arg="max-nodes=$NODES" "$1" >"$o" 2>&1 || rc=$?
	echo "$rc" >"$o.rc"' sh {} <"$tmp/files"

# Findings: "FILE:LINE:COL: warning|error: TEXT [CHECK,...]" (TEXT may go on over a few
# lines), then notes and source lines.  A finding is known when tools/analyzer-known.txt
# has "FILE:CHECK" (FILE relative to the top of the tree; '#' starts a comment).  Each
# finding is shown once, however many files include the header it is in.
status=0
while IFS= read -r f; do
	o=$tmp/out/$(printf %s "$f" | tr / %)
	printf '%s\t%s\t%s\n' "$(cat "$o.rc")" "$o" "$f"
done <"$tmp/files" | awk -v root="$root/" -v known="$known" '
BEGIN {
	FS = "\t"
	while ((getline line < known) > 0) {
		sub(/#.*/, "", line)
		gsub(/[ \t]/, "", line)
		if (line != "")
			k[line] = 1
	}
}
# a whole diagnostic head in d: shown unless known or already shown
function decide(d,    head, path, check, key) {
	head = d
	sub(/\n.*/, "", head)
	path = head
	sub(/:[0-9]+:[0-9]+: .*/, "", path)
	if (index(path, root) == 1)
		path = substr(path, length(root) + 1)
	check = d
	sub(/.*\[/, "", check)
	sub(/[],].*/, "", check)
	key = path ":" check
	if (key in k) {
		hit[key]++
		return 0
	}
	if (head in shown)
		return 0
	shown[head] = 1
	new++
	print d
	return 1
}
{
	rc = $1
	file = $2
	found = 0
	show = 0
	pending = ""
	while ((getline line < file) > 0) {
		if (line ~ /^[0-9]+ (warning|error)s? (and [0-9]+ (warning|error)s? )?generated\.$/)
			continue
		if (pending == "" && line ~ /^[^ :][^:]*:[0-9]+:[0-9]+: (warning|error): /) {
			found++
			pending = line
		} else if (pending != "") {
			pending = pending "\n" line
		} else {
			if (show)
				print line
			continue
		}
		if (line ~ /\[[A-Za-z0-9_.,-]+\]$/) {
			show = decide(pending)
			pending = ""
		}
	}
	close(file)
	if (pending != "") {
		print pending
		new++
	}
	if (rc != 0 && found == 0) {
		# clang-tidy failed without a finding: show all it said
		print "analyze: clang-tidy exited " rc " on " $3 ":"
		while ((getline line < file) > 0)
			print line
		close(file)
		new++
	}
}
END {
	for (key in k)
		if (!(key in hit)) {
			print "analyze: tools/analyzer-known.txt lists " key ", no longer found: remove that line"
			stale++
		}
	for (key in hit)
		nknown++
	if (new || stale) {
		print "analyze: " (new + 0) " new finding(s), " (stale + 0) " stale line(s) in tools/analyzer-known.txt"
		exit 1
	}
	print "analyze: no new findings (" (nknown + 0) " known ones, in tools/analyzer-known.txt)"
}' || status=1
exit $status
