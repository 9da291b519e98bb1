#!/bin/bash
# catalog: every table in human, JSON and CSV form; show; filters; user files.
. "$TESTS/cli/lib.sh"

for t in gpus links servers cpus clouds facility; do
	expect_rc 0 catalog $t
	expect_width 80
	expect_no_crash
	expect_rc 0 catalog $t --json
	expect_json
	printf '%s' "$OUT" >"$TMP/$t.json"
	expect_rc 0 catalog $t --csv
	hdr=$(printf '%s\n' "$OUT" | head -1)
	case "$hdr" in key,*) ;; *) fail "$t csv header starts '$hdr'";; esac
	case "$hdr" in *source*as_of*) ;; *) fail "$t csv lacks source/as_of";; esac
done

# enough rows in each table
count() { python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$TMP/$1.json"; }
[ "$(count gpus)" -ge 30 ] || fail "fewer than 30 gpus"
[ "$(count servers)" -ge 15 ] || fail "fewer than 15 servers"
[ "$(count clouds)" -ge 20 ] || fail "fewer than 20 cloud instances"
CHECKS=$((CHECKS + 3))

expect_rc 0 catalog gpus --vendor amd
expect_out "mi300x"
case "$OUT" in *a100*) fail "--vendor amd lists an a100";; esac
expect_rc 0 catalog gpus --min-memory 141GiB --json
expect_json
printf '%s' "$OUT" | python3 -c 'import json,sys; r=json.load(sys.stdin); assert r and all(g["memory_gib"]>=141 for g in r)' || fail "--min-memory filter"
expect_rc 0 catalog gpus --precision fp8
expect_out "fp8"
expect_rc 2 catalog gpus --precision fp7
expect_err "fp7"
expect_rc 0 catalog clouds --provider aws
expect_out "p5.48xlarge"
expect_rc 0 catalog servers --gpu "NVIDIA A100-SXM4-80GB"
expect_out "dgx-a100"

# show resolves vendor spellings and prints sources
expect_rc 0 catalog show "NVIDIA H100 80GB HBM3"
expect_out "h100-sxm5-80gb"
expect_out "source"
expect_out "as_of"
expect_width 80
expect_rc 0 catalog show p4d.24xlarge --json
expect_json
expect_out '"usd_per_hour"'
expect_rc 2 catalog show a100
expect_err "ambiguous"
expect_rc 2 catalog show h1000
expect_err "closest"

# a user's directory adds and overrides rows by key
mkdir -p "$TMP/cat"
cat >"$TMP/cat/gpus.csv" <<'CSV'
# my lab's parts
key,name,vendor,memory_gib,mem_bw_gbps,bf16_tflops,source,as_of,confidence
lab-gpu-96gb,Lab GPU 96GB,nvidia,96,4 TB/s,500,our measurements,2026-10,E
h100-sxm5-80gb,H100 SXM (lab clocks),nvidia,80,3350,900,our measurements,2026-10,E
CSV
expect_rc 0 catalog check "$TMP/cat"
expect_out "ok, 2 rows"
expect_rc 0 --catalog "$TMP/cat" catalog show lab-gpu-96gb
expect_out "4000"
expect_out "$TMP/cat/gpus.csv:3"
CHECKS=$((CHECKS + 1))
GPUSCOPE_CATALOG="$TMP/cat" "$GPUSCOPE" catalog show h100-sxm5-80gb | grep -q "lab clocks" || fail "GPUSCOPE_CATALOG override"

# malformed user files: file, line, column and field, exit 2, no crash
bad() { # NAME CONTENT EXPECTED...
	local name=$1 content=$2
	shift 2
	rm -rf "$TMP/bad"
	mkdir -p "$TMP/bad"
	printf '%b' "$content" >"$TMP/bad/$name"
	expect_rc 2 catalog check "$TMP/bad"
	expect_no_crash
	for e in "$@"; do expect_err "$e"; done
	expect_rc 2 --catalog "$TMP/bad" catalog gpus
	expect_no_crash
}
H='key,name,mem_bw_gbps,source,as_of\n'
bad gpus.csv "${H}g,G,100,s,2024-01,extra\n" "gpus.csv:2:" "expected 5 fields"
bad gpus.csv "${H}g,G,100 GHz,s,2024-01\n" "gpus.csv:2:5:" "field 'mem_bw_gbps'" "unknown unit 'GHz'"
bad gpus.csv "${H}g,G,-100,s,2024-01\n" "field 'mem_bw_gbps'" "must be more than 0, got -100"
bad gpus.csv "${H}g,G,1,s,2024-01\ng,G,1,s,2024-01\n" "gpus.csv:3:1:" "duplicate key 'g'"
bad gpus.csv "${H}g,G\xff,1,s,2024-01\n" "gpus.csv:2:" "UTF-8"
bad gpus.csv "" "empty file"
bad gpus.csv "key,name,bandwidth,source,as_of\n" "field 'bandwidth'" "unknown column"
bad servers.csv "key,name,gpu,source,as_of\nbox,Box,no-such-gpu,s,2024-01\n" "servers.csv:2" "field 'gpu'" "not a key in gpus.csv"
bad gpu.csv "${H}" "unknown catalog file 'gpu.csv'" "gpus.csv"
python3 -c "print('key,name,source,as_of'); print('x,' + 'y' * (10 << 20) + ',s,2024-01')" >"$TMP/big.csv"
rm -rf "$TMP/bad" && mkdir -p "$TMP/bad" && mv "$TMP/big.csv" "$TMP/bad/links.csv"
expect_rc 2 catalog check "$TMP/bad"
expect_err "links.csv:2:"
expect_err "longer than"
expect_rc 2 catalog check "$TMP/nonexistent"
expect_err "cannot open"
finish
