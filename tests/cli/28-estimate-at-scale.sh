#!/bin/bash
# estimate at scale: NCCL's ring and tree latencies and Megatron-Core's gradient buckets across
# servers, --comm-overlap, and the case column comm_overlap; each term against a hand calculation.
. "$TESTS/cli/lib.sh"

field() { json_field "$1"; }

# Llama 2 7B, TP 8 on each server and ZeRO-1 over 64 servers: every data-parallel ring has one
# GPU per server (g = 1), so all its 63 steps cross the network
L7="--model llama2-7b --task pretrain --precision bf16 --gpu h100-sxm5-80gb --network ib-ndr-8x400
	--gpus-per-node 8 --micro-batch 1 --seq-len 4096"
expect_rc 0 estimate $L7 --tp 8 --dp 64 --zero 1 --global-batch 64 --json
expect_json
w=$(field memory.weights_bytes)
gr=$(field memory.gradients_bytes)
total=$(field time.dp_comm_total_s)
exposed=$(field time.dp_comm_s)
tp_plain=$(field time.tp_comm_s)
# by hand: buckets of max(4e7, 1e6 x 64) parameters; per bucket a reduce-scatter of the fp32
# gradients and an all-gather of the bf16 weights, each 10 us to launch + 63 Simple-protocol network
# hops of 9.6 us + 63/64 of its bytes at 0.86 x 50 GB/s (one 400 Gb/s NIC per GPU)
python3 - "$w" "$gr" "$total" <<'PY' || fail "ZeRO-1 across 64 servers: $total s, not the hand figure"
import math, sys
w, g, total = map(float, sys.argv[1:])
params = w / 2
b = math.ceil(params / max(4e7, 1e6 * 64))
bw = 0.86 * 50e9
def ring(nbytes):
    return 10e-6 + 63 * 9.6e-6 + 63 / 64 * nbytes / bw
want = b * (ring(g / b) + ring(w / b))
assert b == 14, b
assert abs(total - want) < 1e-4 * want, (total, want)
PY

# DDP over 1,024 GPUs on 128 servers: NCCL takes the tree, 2 (7 x 28 + 7 x 50) us deep, over the
# ring's 1.9 x (1,792 x 3.4 + 254 x 9.6) us; its bandwidth is 0.9 of the ring's
expect_rc 0 estimate $L7 --tp 1 --dp 1024 --zero 0 --global-batch 1024 --json
expect_json
gr=$(field memory.gradients_bytes)
w=$(field memory.weights_bytes)
total=$(field time.dp_comm_total_s)
python3 - "$w" "$gr" "$total" <<'PY' || fail "DDP across 128 servers: $total s, not the tree's"
import math, sys
w, g, total = map(float, sys.argv[1:])
n, servers = 1024, 128
b = math.ceil(w / 2 / max(4e7, 1e6 * n))
bw = min(450e9 * 0.77, 8 * 0.86 * 50e9)
vol = 2 * (n - 1) / n * g / b
tree = 2 * (7 * 28 + 7 * 50) * 1e-6 + vol / (0.9 * bw)
ring = 1.9 * (1792 * 3.4 + 254 * 9.6) * 1e-6 + vol / bw
assert tree < ring, (tree, ring)
want = b * (10e-6 + tree)
assert abs(total - want) < 1e-4 * want, (total, want)
PY

# --comm-overlap: grad+param hides part of the all-gather behind the next step's first forward
# (at most all of it), grad+param+tp also 0.7 of the tensor-parallel collectives
expect_rc 0 estimate $L7 --tp 8 --dp 64 --zero 1 --global-batch 64 --comm-overlap grad+param --json
expect_json
exposed_param=$(field time.dp_comm_s)
[ "$(field config.comm_overlap)" = grad+param ] || fail "config.comm_overlap is not grad+param"
expect_rc 0 estimate $L7 --tp 8 --dp 64 --zero 1 --global-batch 64 --comm-overlap grad+param+tp --json
expect_json
tp_over=$(field time.tp_comm_s)
python3 - "$exposed" "$exposed_param" "$tp_plain" "$tp_over" <<'PY' || fail "--comm-overlap: dp $exposed -> $exposed_param, tp $tp_plain -> $tp_over"
import sys
e0, e1, t0, t1 = map(float, sys.argv[1:])
ag = 14 * (10e-6 + 63 * 9.6e-6 + 63 / 64 * 1685069824 / 14 / (0.86 * 50e9))
assert 0 < e0 - e1 <= ag * (1 + 1e-9), (e0, e1, ag)
assert abs(t1 - 0.3 * t0) < 1e-9 + 1e-6 * t0, (t0, t1)
PY
expect_rc 0 estimate $L7 --tp 8 --dp 64 --zero 1 --global-batch 64 --comm-overlap grad --json
[ "$(field time.dp_comm_s)" = "$exposed" ] || fail "--comm-overlap grad is not the default"

# bad input: a clear error naming the flag, exit 2, nothing on stdout
expect_rc 2 estimate $L7 --tp 8 --dp 64 --comm-overlap tp
expect_err "--comm-overlap 'tp'"
expect_err "grad, grad+param, grad+param+tp"
[ -z "$OUT" ] || fail "an error wrote to stdout: $OUT"

# the case column: a value it does not know is a skip reason, an empty cell is grad
CASES="$TMP/overlap.csv"
cat >"$CASES" <<'CSV'
id,source,model,task,global_batch,micro_batch,precision,tp,pp,dp,zero,gpu,gpus,gpus_per_node,network,seq_len,metric,value,unit,comm_overlap
O-001,test,llama2-7b,pretrain,64,1,bf16,8,1,64,1,h100-sxm5-80gb,512,8,ib-ndr-8x400,4096,step_time_s,1,s,grad+param+tp
O-002,test,llama2-7b,pretrain,64,1,bf16,8,1,64,1,h100-sxm5-80gb,512,8,ib-ndr-8x400,4096,step_time_s,1,s,
O-003,test,llama2-7b,pretrain,64,1,bf16,8,1,64,1,h100-sxm5-80gb,512,8,ib-ndr-8x400,4096,step_time_s,1,s,all
CSV
expect_rc 0 validate "$CASES" --json
printf '%s' "$OUT" | python3 -c '
import json, sys
c = {x["id"]: x for x in json.load(sys.stdin)["cases"]}
assert "predicted" in c["O-001"] and "predicted" in c["O-002"], c
assert c["O-001"]["predicted"] < c["O-002"]["predicted"], c
assert "comm_overlap" in c["O-003"].get("reason", "") and "grad+param" in c["O-003"]["reason"], c["O-003"]
' || fail "the comm_overlap column"
finish
