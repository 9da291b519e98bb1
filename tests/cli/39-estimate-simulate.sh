#!/bin/bash
# estimate --arrivals: the request-level serving simulation.  A burst drains
# with a TTFT that grows (p99 well past p50), an older vLLM release is slower
# at the same load, a closed loop keeps its clients running, a trace file's
# bad cell is refused with its position, and the flags that need --arrivals
# say so; --preemption swap runs and says so.
. "$TESTS/cli/lib.sh"

M="--model llama3-8b --task infer --gpu h100-sxm5-80gb --prompt-len 256 --output-len 256"

expect_rc 0 estimate $M --arrivals burst:1000 --engine vllm --engine-version 0.6 --json
expect_json
new=$(printf '%s' "$OUT" | python3 -c '
import json, sys
s = json.load(sys.stdin)["simulation"]
assert s["requests"] == 1000 and s["engine_version"] == "0.6", s
assert s["ttft_p99_s"] > 2 * s["ttft_p50_s"] and s["ttft_p50_s"] > 1, s
assert s["batch_max"] == 256 and s["queue_max"] >= 700, s
assert len(s["timeline"]["t_s"]) > 10 and max(s["timeline"]["queue"]) >= 700, s
print(s["tokens_per_s"])
') || fail "burst json"
expect_rc 0 estimate $M --arrivals burst:1000 --engine vllm --engine-version 0.5 --json
old=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["simulation"]["tokens_per_s"])')
python3 -c "import sys; sys.exit(0 if $old * 1.5 < $new else 1)" || fail "vllm 0.5 ($old tokens/s) not slower than 0.6 ($new)"

# Poisson at a low rate: no queue, goodput 1 under loose targets; the table names the release
expect_rc 0 estimate $M --arrivals poisson:2 --requests 300 --ttft-target 1s --tpot-target 100ms
expect_out "simulated: 300 requests, poisson:2 (vllm 0.11"
expect_out "100.0% ("

# a closed loop of 16 clients keeps 16 running
expect_rc 0 estimate $M --arrivals closed:16 --requests 160 --lengths uniform --json
printf '%s' "$OUT" | python3 -c '
import json, sys
s = json.load(sys.stdin)["simulation"]
assert s["batch_max"] == 16 and s["queue_max"] == 0, s
' || fail "closed loop"

# a trace file: rows simulated, a bad cell refused with file:line:column
printf 'arrival_s,prompt_tokens,output_tokens\n0,100,10\n0.5,200,20\n1.0,300,30\n' > "$TMP/trace.csv"
expect_rc 0 estimate $M --arrivals "$TMP/trace.csv" --json
printf '%s' "$OUT" | python3 -c 'import json,sys; assert json.load(sys.stdin)["simulation"]["requests"] == 3' ||
	fail "trace"
printf 'arrival_s,prompt_tokens,output_tokens\n0,100,10\n0.5,2.5,20\n' > "$TMP/bad.csv"
expect_rc 2 estimate $M --arrivals "$TMP/bad.csv"
expect_err "bad.csv:3:5: field 'prompt_tokens'"
expect_rc 2 estimate $M --arrivals poisson:0
expect_err "arrivals"
expect_rc 2 estimate $M --arrivals burst:10 --engine vllm --engine-version 0.1
expect_err "there are 0.11, 0.8, 0.6, 0.5"
expect_rc 2 estimate $M --requests 10
expect_err "go with --arrivals"
expect_rc 2 estimate $M --preemption swap
expect_err "--preemption"
# swap preemption is the release's default overridden; the JSON says which ran
expect_rc 0 estimate $M --arrivals burst:20 --preemption swap --json
printf '%s' "$OUT" | python3 -c 'import json,sys; assert json.load(sys.stdin)["simulation"]["preemption"] == "swap"' ||
	fail "--preemption swap"
expect_rc 2 estimate $M --arrivals burst:20 --preemption later
expect_err "recompute, swap"

finish
