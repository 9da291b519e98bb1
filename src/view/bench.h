/*
 * The output of `gpuscope bench`: the GPUs and libraries, the skipped
 * parts, every figure with its clocks, and --quick's verdicts; for a
 * person, as JSON and as CSV, written from the bench row fields.
 */
#ifndef GPUSCOPE_VIEW_BENCH_H
#define GPUSCOPE_VIEW_BENCH_H

#include <stdio.h>

#include "bench/bench.h"
#include "report/table.h"

/* verdicts may be NULL (not --quick). */
void view_bench_write(FILE *out, const struct bench_result *r, const struct cat_gpu *type,
		      const struct bench_verdict *v, size_t nv, enum output_format fmt);
/* One line per verdict: "gpu 0: this GPU is 50 % slower than its peers; likely cause: power cap ..." */
void view_bench_verdicts(FILE *out, const struct bench_verdict *v, size_t nv, const char *ref);

#endif
