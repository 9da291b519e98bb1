#!/bin/bash
# CSV output opened in a spreadsheet: a text cell that starts like a formula
# (=, +, -, @, tab, CR) is written as "'TEXT" so it stays text (OWASP's CSV
# injection advice); numbers the program wrote, negative ones too, are not.
. "$TESTS/cli/lib.sh"

# expect_csv_cell ROW COLUMN WANT: cell COLUMN of the CSV row whose first cell is ROW, as read back
expect_csv_cell() {
	CHECKS=$((CHECKS + 1))
	got=$(printf '%s\n' "$OUT" | python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
head = rows[0]
for r in rows[1:]:
    if r[0] == sys.argv[1]:
        print(r[head.index(sys.argv[2])], end="")
' "$1" "$2")
	[ "$got" = "$3" ] || fail "CSV row $1 column $2 is '$got', want '$3'"
}

mkdir "$TMP/c"
cat >"$TMP/c/gpus.csv" <<'CSV'
key,name,vendor,memory_gib,source,as_of
evil-link,"=HYPERLINK(""http://example.invalid/x"",""click"")",nvidia,80,@SUM(1+1),2024-01
evil-cmd,-2+3+cmd|' /C calc'!A0,+acme,40,-1+1,2024-01
plain,Plain GPU,nvidia,24,a datasheet,2024-01
CSV
expect_rc 0 --catalog "$TMP/c" catalog gpus --csv
expect_csv_cell evil-link name "'=HYPERLINK(\"http://example.invalid/x\",\"click\")"
expect_csv_cell evil-link source "'@SUM(1+1)"
expect_csv_cell evil-cmd name "'-2+3+cmd|' /C calc'!A0"
expect_csv_cell evil-cmd vendor "'+acme"
expect_csv_cell evil-cmd source "'-1+1"
expect_csv_cell plain name "Plain GPU"
expect_csv_cell evil-link memory_gib "80"
# no line of the output starts a cell with a bare formula character
CHECKS=$((CHECKS + 1))
printf '%s\n' "$OUT" | grep -qE '(^|,)[=+@-]' && fail "a cell starts a formula: $(printf '%s\n' "$OUT" | grep -E '(^|,)[=+@-]')"

expect_rc 0 --catalog "$TMP/c" catalog show evil-link --csv
expect_csv_cell name value "'=HYPERLINK(\"http://example.invalid/x\",\"click\")"
expect_csv_cell memory_gib value "80"

# validate: a case id is text; the relative error is a number and keeps its sign
cat >"$TMP/cases.csv" <<'CSV'
id,model,task,gpu,gpus,tp,pp,global_batch,micro_batch,precision,recompute,seq_len,metric,value
=1+1,llama2-7b,finetune,a100-sxm4-80gb,8,1,1,64,1,bf16,full,4096,tokens_per_s,1000000
@x,llama2-7b,finetune,a100-sxm4-80gb,8,1,1,64,1,bf16,full,4096,tokens_per_s,1
CSV
expect_rc 0 validate "$TMP/cases.csv" --csv
CHECKS=$((CHECKS + 1))
printf '%s\n' "$OUT" | grep -q "^\"'=1+1\",tokens_per_s,1e+06,[0-9.e+]*,-0\.[0-9]*," ||
	fail "validate --csv: id not neutralised or error not negative: $OUT"
CHECKS=$((CHECKS + 1))
printf '%s\n' "$OUT" | grep -q "^\"'@x\",tokens_per_s,1,[0-9.e+]*,[0-9.e+]*," ||
	fail "validate --csv: id @x not neutralised: $OUT"
# the shipped calibration set: negative errors are plain numbers
expect_rc 0 validate --csv
CHECKS=$((CHECKS + 1))
printf '%s\n' "$OUT" | grep -qE '^[^,]*,[^,]*,[^,]*,[^,]*,-0\.[0-9]{4},' || fail "no negative error left as a number"
CHECKS=$((CHECKS + 1))
printf '%s\n' "$OUT" | grep -q "'-" && fail "a number was neutralised: $(printf '%s\n' "$OUT" | grep "'-" | head -1)"
finish
