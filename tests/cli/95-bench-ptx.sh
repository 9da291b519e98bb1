#!/bin/bash
# The PTX kernels bench ships must assemble: the fake driver does not compile
# them, so ptxas (CUDA's assembler) checks each one for the oldest and newest
# architectures it knows.  Skips (77) where ptxas is not installed.
. "$TESTS/cli/lib.sh"
PTXAS=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null) || exit 77
[ -x "$PTXAS" ] || exit 77
expect_rc 0 bench --print-ptx
printf '%s\n' "$OUT" >"$TMP/k.ptx"
for k in gs_read gs_write gs_copy gs_empty; do
	grep -q "^.visible .entry $k(" "$TMP/k.ptx" || fail "kernel $k missing from the PTX"
done
for arch in sm_75 sm_90; do
	"$PTXAS" -arch="$arch" "$TMP/k.ptx" -o "$TMP/k.cubin" 2>"$TMP/ptxas.err" ||
		fail "ptxas -arch=$arch rejects the shipped PTX: $(cat "$TMP/ptxas.err")"
done
# a typo must not pass: the same text with one broken instruction fails
sed 's/ld.global.v4.f32/ld.global.v4.f33/' "$TMP/k.ptx" >"$TMP/bad.ptx"
"$PTXAS" -arch=sm_90 "$TMP/bad.ptx" -o "$TMP/k.cubin" 2>/dev/null && fail "ptxas took a broken PTX"
exit 0
