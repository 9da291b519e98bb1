#!/bin/bash
# plan: every built-in workload preset gets a ranked, explained answer in
# seconds, for training and (for a few) for inference.
. "$TESTS/cli/lib.sh"

presets=$(awk -F, '!/^#/ && $1 != "key" && NF > 3 { print $1 }' "$SRCDIR/data/models/presets.csv")
CHECKS=$((CHECKS + 1))
[ "$(printf '%s\n' $presets | wc -l)" -ge 10 ] || fail "fewer than 10 presets found"
for m in $presets; do
	start=$(date +%s)
	expect_rc 0 plan "$m"
	expect_width 80
	expect_no_crash
	expect_out "Top "
	expect_out "Why #1"
	CHECKS=$((CHECKS + 1))
	[ $(($(date +%s) - start)) -le 60 ] || fail "plan $m took more than 60 s"
done

# inference: the seeds' GNN under 5 ms with dynamic batching, and an LLM
expect_rc 0 plan gnn --task infer --rate 20000 --latency-target 5ms --max-batch 32 --json
printf '%s' "$OUT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ranked"]
for c in d["ranked"]:
    assert c["latency_s"] <= 5e-3 and 1 <= c["batch"] <= 32
    assert c["samples_per_s"] >= 20000 * (1 - 1e-9)
' || fail "gnn inference"
expect_rc 0 plan gnn --task infer --rate 20000 --latency-target 5ms
expect_width 80
expect_out "latency"
expect_rc 0 plan llama2-70b --task infer --rate 5
expect_width 80
expect_out "Why #1"
expect_rc 0 plan llama2-7b --task lora --top 3
expect_out "LoRA"
finish
