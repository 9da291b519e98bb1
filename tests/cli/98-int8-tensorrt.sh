#!/bin/bash
# estimate and validate: INT8 compute under TensorRT, and offline throughput
# over a length distribution (--prompt-len-dist, --unpadded).  ResNet-50's offline
# throughput is checked against the convolutions at the catalog's INT8 peak
# times the shares docs/model.md gives ("INT8 inference") plus the fused
# traffic at the stream rate, computed here from data/gpus.csv and the
# preset; int8 where it cannot apply (training, another engine, a GPU without
# INT8 tensor cores) is refused naming the flag; the MLPerf rows stay close,
# the fitted rounds and the one held aside apart.
. "$TESTS/cli/lib.sh"

# images/s of one estimate
ips() {
	expect_rc 0 estimate --no-calibration --model resnet50 --task infer --engine tensorrt --batch 2048 "$@" --json
	printf '%s' "$OUT" | python3 -c 'import json, sys; print(json.load(sys.stdin)["throughput"]["samples_per_s"])'
}
GPUS="$SRCDIR/data/gpus.csv"
for g in h100-sxm5-80gb:0.85 l4-24gb:0.80; do
	key=${g%%:*}
	share=${g##*:}
	got=$(ips --gpu "$key" --precision int8)
	fp16=$(ips --gpu "$key" --precision fp16)
	GOT=$got FP16=$fp16 KEY=$key SHARE=$share GPUS="$GPUS" python3 -c '
import csv, os
rows = {r["key"]: r for r in csv.DictReader(l for l in open(os.environ["GPUS"]) if not l.startswith("#"))}
g = rows[os.environ["KEY"]]
# 8.18 GFLOP and 108 MiB of eager traffic an image (data/models/presets.csv); the 16-bit GEMM share of
# the row x TUNE_TRAIN_GEMM 0.86; convolutions 0.59 of it x 1.21 at int8; 1-byte activations, 0.1 of
# the eager traffic under TensorRT, at the stream share 0.86 of mem_bw_gbps
conv = 8.18e9 / (float(g["int8_tops"]) * 1e12 * float(os.environ["SHARE"]) * 0.86 * 0.59 * 1.21)
mem = 108 * 1048576 * 0.5 * 0.1 / (float(g["mem_bw_gbps"]) * 1e9 * 0.86)
want, got = 1 / (conv + mem), float(os.environ["GOT"])
assert abs(got / want - 1) < 0.005, (os.environ["KEY"], got, want)
# int8 beats the 16-bit engine by at most its peak ratio x 1.21 (the traffic halves, the peak doubles)
assert 1.2 < got / float(os.environ["FP16"]) < 2 * 1.21, (got, os.environ["FP16"])
' || fail "int8 ResNet-50 on $key is not the peak x shares of docs/model.md"
done

# an encoder at int8 runs its attention at the INT8 peak with flash-like fused MHA: faster than fp16
bert() {
	expect_rc 0 estimate --no-calibration --model bert-large --task infer --engine tensorrt --gpu h100-sxm5-80gb \
		--batch 256 --prompt-len 384 --output-len 0 "$@" --json
	printf '%s' "$OUT" | python3 -c 'import json, sys; print(json.load(sys.stdin)["throughput"]["samples_per_s"])'
}
b8=$(bert --precision int8)
b16=$(bert --precision fp16)
python3 -c "import sys; sys.exit(0 if 1.3 < $b8 / $b16 < 2.0 else 1)" || fail "bert-large int8 $b8 against fp16 $b16"

# where int8 compute cannot apply: a clear error naming --precision, no estimate
expect_rc 2 estimate --model resnet50 --gpu h100-sxm5-80gb --precision int8 --micro-batch 256
expect_err "--precision int8 computes in INT8 for TensorRT inference only"
[ -z "$OUT" ] || fail "int8 training printed an estimate"
expect_rc 2 estimate --model resnet50 --task infer --gpu h100-sxm5-80gb --precision int8 --engine eager
expect_err "needs --engine tensorrt"
expect_err "--weight-precision int8"
expect_rc 2 estimate --model resnet50 --task infer --gpu v100-sxm2-16gb --precision int8 --engine tensorrt
expect_err "v100-sxm2-16gb has no int8 support"
expect_rc 2 estimate --model resnet50 --task infer --gpu h100-sxm5-80gb --precision int4 --engine tensorrt
expect_err "int4 is for the KV cache only"
expect_no_crash

# the MLPerf Inference rows: v3.1 and v4.0 fitted within 15 %, v3.0 held aside whole within 30 %
expect_rc 0 validate "$SRCDIR/data/cases/published.csv" --json
printf '%s' "$OUT" | CASES="$SRCDIR/data/cases/published.csv" python3 -c '
import csv, json, os, sys
d = json.load(sys.stdin)
rows = {r["id"]: r for r in csv.DictReader(open(os.environ["CASES"]))}
q = [c for c in d["cases"] if rows[c["id"]]["class"] == "tensorrt-int8"]
assert len(q) == 5 and all("error" in c for c in q), q
for c in q:
    lim = 0.15 if rows[c["id"]]["set"] == "fit" else 0.30
    assert abs(c["error"]) < lim, (c["id"], c["error"])
hold = {rows[c["id"]]["source"].split(",")[0] for c in q if rows[c["id"]]["set"] == "holdout"}
assert not any(rows[c["id"]]["source"].split(",")[0] in hold for c in q if rows[c["id"]]["set"] == "fit")
' || fail "TensorRT int8 cases drifted"

# an int8 row of a training task is a skip reason, not a crash
printf 'id,model,task,gpu,precision,engine,micro_batch,metric,value\nX1,resnet50,pretrain,h100-sxm5-80gb,int8,eager,256,samples_per_s,3000\n' >"$TMP/bad.csv"
expect_rc 0 validate "$TMP/bad.csv" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
r = {c["id"]: c.get("reason", "") for c in json.load(sys.stdin)["cases"]}
assert "int8" in r["X1"], r
' || fail "an int8 training row is not a skip reason"
# offline forward passes over a length distribution: half the inputs at 128 tokens, half at 256
# (the table's quantile function read at 64 midpoints); padded, all run at 256; unpadded, the mean
# time of a batch at each length: samples/s = 2 / (1 / s128 + 1 / s256) of two fixed-length runs
printf '# two lengths\nq,tokens\n0.5,128\n0.5001,256\n1,256\n' >"$TMP/two.csv"
E=(--no-calibration --model bert-large --task infer --engine tensorrt --gpu h100-sxm5-80gb --precision int8
	--batch 256 --output-len 0)
sps() {
	expect_rc 0 estimate "${E[@]}" "$@" --json
	printf '%s' "$OUT" | python3 -c 'import json, sys; print(json.load(sys.stdin)["throughput"]["samples_per_s"])'
}
s128=$(sps --prompt-len 128)
s256=$(sps --prompt-len 256)
pad=$(sps --prompt-len-dist "$TMP/two.csv")
unpad=$(sps --prompt-len-dist "$TMP/two.csv" --unpadded)
python3 -c "
s128, s256, pad, unpad = $s128, $s256, $pad, $unpad
assert abs(pad / s256 - 1) < 1e-6, (pad, s256)
want = 2 / (1 / s128 + 1 / s256)
assert abs(unpad / want - 1) < 1e-4, (unpad, want)
assert unpad > 1.3 * pad, (unpad, pad)
" || fail "the length distribution's padded and unpadded throughput"
expect_rc 0 estimate "${E[@]}" --prompt-len-dist "$TMP/two.csv" --unpadded
expect_out "prompt 256 tokens"

# bad tables and flags: file, line, column and field, exit 2, no estimate
bad_table() {
	printf "$1" >"$TMP/bad-table.csv"
	expect_rc 2 estimate "${E[@]}" --prompt-len-dist "$TMP/bad-table.csv"
	expect_err "$2"
	[ -z "$OUT" ] || fail "a bad table printed an estimate"
}
bad_table 'q,tokens\n0.5,abc\n1,200\n' "bad-table.csv:2:5: field 'tokens': 'abc' is not a number"
bad_table 'q,tokens\n0.5,100\n0.4,120\n1,200\n' "bad-table.csv:3:1: field 'q': must rise"
bad_table 'q,tokens\n0.5,300\n1,200\n' "field 'tokens': must not fall"
bad_table 'q,tokens\n0.5,100\n' "the last row's q must be 1"
bad_table 'quantile,len\n1,100\n' "the header is q,tokens"
bad_table 'q,tokens\n0,100\n1,200\n' "field 'q'"
expect_rc 2 estimate "${E[@]}" --prompt-len-dist "$TMP/none.csv"
expect_err "none.csv"
expect_rc 2 estimate "${E[@]}" --unpadded
expect_err "--unpadded goes with --prompt-len-dist"
expect_rc 2 estimate --model llama3-8b --task infer --gpu h100-sxm5-80gb --output-len 64 --prompt-len-dist "$TMP/two.csv"
expect_err "use --output-len 0"
expect_no_crash
finish
