#!/bin/bash
# plan: when every choice fails only the default rack power (no constraint
# given), the answer names that limit, its value, where it comes from and
# the option that changes it.
. "$TESTS/cli/lib.sh"

# a catalog whose GB200 NVL72 racks are air-cooled: 132 kW against air's 41 kW
air_cooled_gb200 "$TMP/cat"

expect_rc 1 --catalog "$TMP/cat" plan llama2-7b --gpu gb200-186gb --servers-only
expect_no_crash
CHECKS=$((CHECKS + 1))
case "$OUT" in *"(null)"*) fail "the message reads (null): $OUT";; esac
flat=$(printf '%s' "$OUT" | tr '\n' ' ')
for want in "no configuration meets the default rack-power limit;" "draws 132.0 kW" \
	"more than the 41 kW default of an air-cooled rack (the catalog's facility rack_kw_air)" \
	"give --rack-kw 132 or more" "3.22x the tightest constraint"; do
	CHECKS=$((CHECKS + 1))
	case "$flat" in *"$want"*) ;; *) fail "plan lacks '$want': $OUT";; esac
done
# the value is the catalog's: a facility row that says 30 kW is what the message quotes
printf 'key,value,unit,description,source,as_of,confidence\nrack_kw_air,30,kW/rack,test,test,2026-01,E\n' \
	>"$TMP/cat/facility.csv"
expect_rc 1 --catalog "$TMP/cat" plan llama2-7b --gpu gb200-186gb --servers-only
flat=$(printf '%s' "$OUT" | tr '\n' ' ')
case "$flat" in *"the 30 kW default of an air-cooled rack"*) ;; *) fail "the catalog's 30 kW is not quoted: $OUT";; esac
rm "$TMP/cat/facility.csv"

# a --rack-kw given is named as the user's
expect_rc 1 --catalog "$TMP/cat" plan llama2-7b --gpu gb200-186gb --servers-only --rack-kw 100
flat=$(printf '%s' "$OUT" | tr '\n' ' ')
case "$flat" in *"meets the rack-power limit (--rack-kw); one"*"the 100 kW of a liquid-cooled rack (--rack-kw)"*) ;;
*) fail "--rack-kw 100 is not named: $OUT";; esac
# and with it raised the rack is planned
expect_rc 0 --catalog "$TMP/cat" plan llama2-7b --gpu gb200-186gb --servers-only --rack-kw 132 --no-explain
finish
