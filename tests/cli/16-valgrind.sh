#!/bin/bash
# A few short commands of every kind under valgrind, so that a read of
# uninitialised memory fails a test (ASan does not see those).  valgrind
# cannot run the sanitized $GPUSCOPE; tests/CMakeLists.txt builds
# $GPUSCOPE_PLAIN from the same sources without sanitizers where valgrind is
# installed.  Each command must exit as it should and valgrind report nothing.
# About 3 s a command on one core.
. "$TESTS/cli/lib.sh"

if ! command -v valgrind >/dev/null 2>&1 || [ -z "${GPUSCOPE_PLAIN:-}" ]; then
	echo "skipped: valgrind is not installed (debian-packages.txt lists it)"
	exit 77
fi

# vg CODE ARGS...: gpuscope-plain ARGS under valgrind exits CODE, and valgrind found nothing
# (its own exit code 99 and its report on stderr say when it did).
vg() {
	local want=$1
	shift
	CHECKS=$((CHECKS + 1))
	valgrind -q --error-exitcode=99 --track-origins=no --errors-for-leak-kinds=none \
		"$GPUSCOPE_PLAIN" "$@" >"$TMP/out" 2>"$TMP/err"
	RC=$?
	# shellcheck disable=SC2034 # read by expect_out (lib.sh)
	OUT=$(cat "$TMP/out")
	ERR=$(cat "$TMP/err")
	case "$ERR" in *"=="[0-9]*"=="*) fail "valgrind reports on gpuscope $*: $ERR"; return;; esac
	[ "$RC" -eq "$want" ] || fail "gpuscope $* under valgrind exited $RC, want $want; stderr: $ERR"
}

vg 0 plan llama2-7b --gpu h100-sxm5-80gb --servers-only --max-gpus 16 --top 3 --threads 1

# every choice fails only the default rack power: the message names it
air_cooled_gb200 "$TMP/cat"
vg 1 --catalog "$TMP/cat" plan llama2-7b --gpu gb200-186gb --servers-only --threads 1
expect_out "no configuration meets the default rack-power limit"

vg 0 estimate --model llama2-7b --task finetune --gpu a100-sxm4-80gb --gpus 8 --zero 2
vg 0 estimate --model llama3-8b --task infer --gpu h100-sxm5-80gb --engine vllm --batch 1
vg 2 estimate --model gnn --task infer --gpu t4 --latency-target 1us
vg 0 tco --server dgx-h100 --cloud p5.48xlarge
vg 0 catalog show h100-sxm5-80gb

cat >"$TMP/cases.csv" <<'CSV'
id,model,task,gpu,gpus,tp,pp,global_batch,micro_batch,precision,recompute,seq_len,metric,value
V-1,llama2-7b,finetune,a100-sxm4-80gb,8,1,1,64,1,bf16,full,4096,tokens_per_s,20000
V-2,llama2-7b,infer,h100-sxm5-80gb,1,1,1,,,bf16,,,first_token_ms,50
CSV
vg 0 validate "$TMP/cases.csv"
finish
