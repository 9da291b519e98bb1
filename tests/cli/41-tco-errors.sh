#!/bin/bash
# tco: bad input gets a clear error naming the flag, exit 2; I/O failure exit 3.
. "$TESTS/cli/lib.sh"

bad() {
	local flag=$1 text=$2
	shift 2
	expect_rc 2 tco "$@"
	expect_err "$flag"
	expect_err "$text"
	expect_no_crash
}
bad --electricity "must not be negative, got -0.1 USD/kWh" --server dgx-h100 --electricity -0.1
bad --utilisation "at most 100 %" --server dgx-h100 --utilisation 120
bad --utilisation "more than 0 %" --server dgx-h100 --utilisation 0
bad --utilisation "must not be negative" --server dgx-h100 --utilisation -5
bad --years "at least 0.25 years" --server dgx-h100 --years 0
bad --price "must not be negative" --server dgx-h100 --price -5
bad --colo "must not be negative" --server dgx-h100 --colo -1
bad --pue "at least 1" --server dgx-h100 --pue 0.5
bad --cloud-price "must not be negative" --server dgx-h100 --cloud p5.48xlarge --cloud-price -3
bad --reserved "at most 100 %" --server dgx-h100 --reserved 150
bad --idle-kw "must not exceed" --server dgx-h100 --idle-kw 20
bad --cloud "unknown" --server dgx-h100 --cloud p9.nonesuch
bad --server "unknown" --server nonesuch-9000
bad --gpu "unknown" --gpu nonesuch-9000 --gpus 2
bad --precision "not a precision" --server dgx-h100 --precision fp3
bad --count "whole number" --server dgx-h100 --count 1.5
bad --electricity "expects a number" --server dgx-h100 --electricity cheap
bad "--server NAME" "give --server" --electricity 0.1
bad --gpus "needs --gpus" --gpu h100-sxm5-80gb
bad --no-cloud "excludes" --server dgx-h100 --no-cloud --cloud p5.48xlarge
# a server without a price (a user's catalog row) asks for one
mkdir -p "$TMP/cat"
printf 'key,name,gpu,gpu_count,power_kw,rack_units,source,as_of\nlab-box,Lab box,a100-sxm4-80gb,8,6.5,6,lab,2026-01\n' >"$TMP/cat/servers.csv"
expect_rc 2 --catalog "$TMP/cat" tco --server lab-box
expect_err "--price"
expect_err "give --price"
expect_rc 0 --catalog "$TMP/cat" tco --server lab-box --price 250000 --idle-kw 1.3
# a misspelt flag gets a suggestion
expect_rc 2 tco --server dgx-h100 --utilization 50
expect_err "--utilisation"
# a fraction where a percentage is meant is warned about
expect_rc 0 tco --server dgx-h100 --utilisation 0.7
expect_err "0.7 means 0.7 %, not 70 %"

# a report that cannot be written: exit 3, nothing left behind
expect_rc 3 tco --server dgx-h100 --report "$TMP/no/such/dir/r.html"
expect_err "--report"
[ ! -e "$TMP/no" ] || fail "a failed report left files"
# bad input writes no report at all
expect_rc 2 tco --server dgx-h100 --years -1 --report "$TMP/r.html"
[ ! -e "$TMP/r.html" ] && [ ! -e "$TMP/r.html.tmp" ] || fail "bad input left a report"
finish
