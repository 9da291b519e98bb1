#!/bin/bash
# estimate --server: the server's CPU cores feed data loading unless
# --cpu-cores overrides them, so a host with few cores per GPU is slower on
# a data-bound workload than one with many.
. "$TESTS/cli/lib.sh"

# images/s of resnet50 pretraining on 8 GPUs, the cores per GPU and the
# limits, into $TMP/rate (not a subshell, so the checks count)
rate() {
	expect_rc 0 estimate --model resnet50 --gpus 8 --json "$@"
	printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
c = d["throughput"]["cpu_cores_per_gpu"]
print(d["throughput"]["samples_per_s"], "null" if c is None else "%g" % c, ",".join(d["limits"]))' >"$TMP/rate"
}

# a DGX A100 has 2 x 64 cores for 8 GPUs, a SYS-420GP-TNAR 2 x 40
rate --server dgx-a100-640gb
read -r many many_cores many_limits <"$TMP/rate"
rate --server supermicro-sys-420gp-tnar
read -r few few_cores few_limits <"$TMP/rate"
[ "$many_cores" = 16 ] || fail "dgx-a100-640gb: cores per GPU $many_cores, want 16"
[ "$few_cores" = 10 ] || fail "supermicro-sys-420gp-tnar: cores per GPU $few_cores, want 10"
python3 -c "import sys; sys.exit(0 if $few < 0.9 * $many else 1)" ||
	fail "10 cores per GPU ($few images/s) not slower than 16 ($many images/s)"
case "$few_limits" in *data_loading*) ;; *) fail "few cores: limits '$few_limits' lack data_loading";; esac

# --cpu-cores overrides the server's; with it the two servers time the same
rate --server supermicro-sys-420gp-tnar --cpu-cores 128
read -r over over_cores _ <"$TMP/rate"
[ "$over_cores" = 16 ] || fail "--cpu-cores 128 on 8 GPUs: cores per GPU $over_cores, want 16"
[ "$over" = "$many" ] || fail "--cpu-cores 128: $over images/s, want the DGX's $many"

# the table says how many cores it has against how many it needs
expect_rc 0 estimate --model resnet50 --gpus 8 --server supermicro-sys-420gp-tnar
expect_out "of 10.0"

# without a server or --cpu-cores, loading is reported, not a limit
rate --gpu a100-sxm4-80gb
read -r none none_cores _ <"$TMP/rate"
[ "$none_cores" = null ] || fail "no server: cores per GPU $none_cores, want null"

# plan's check-it line carries whole cores per server
expect_rc 0 plan resnet50 --task pretrain --samples 1281167 --epochs 90 --json
printf '%s' "$OUT" | python3 -c '
import json, re, sys
d = json.load(sys.stdin)
for c in d["ranked"] + d["front"]:
    for m in re.findall(r"--cpu-cores (\S+)", c.get("estimate_args", "")):
        assert re.fullmatch(r"[0-9]+", m), (c["hardware"], m)
' || fail "plan: --cpu-cores not a whole number"

finish
