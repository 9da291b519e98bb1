#!/bin/bash
# plan --task infer --engine: replicas sized by the serving simulation.  On
# H100 servers Llama 3 70B at 50 requests/s within a 1 s TTFT takes no more
# than twice the 56 GPUs (7 x 8) estimate's continuous-batching queue needs,
# with no scale-out fabric between independent replicas.
. "$TESTS/cli/lib.sh"

expect_rc 0 plan llama3-70b --task infer --rate 50 --ttft-target 1s --engine vllm --gpu h100-sxm5-80gb --json
expect_json
printf '%s' "$OUT" | python3 -c '
import json, sys
r = json.load(sys.stdin)["ranked"]
assert r, "nothing ranked"
c = r[0]
assert 8 <= c["gpus"] <= 112, c["gpus"]
assert c["network"] == "none", c["network"]
assert c["batch"] > 8 and c["replicas"] >= 2, c
' || fail "simulated sizing"
expect_rc 2 plan llama3-70b --task infer --engine vllm --engine-version 0.1 --gpu h100-sxm5-80gb
expect_err "there are 0.11, 0.8, 0.6, 0.5"
finish
