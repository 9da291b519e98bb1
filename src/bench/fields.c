/*
 * The fields of one bench figure: `bench --json` and `--csv` write these
 * keys; the order is the interface.  docs/bench.md holds the table.
 */
#include <math.h>

#include "bench/bench.h"

static double or_nan(int v)
{
	return v < 0 ? NAN : v;
}

static const char *reasons_of(const struct bench_row *r, struct report_row *row)
{
	char *buf = report_scratch(row, 256);
	return r->clk.valid ? bench_reasons_text(r->clk.reasons, buf, 256) : NULL;
}

#define BENCH_ROW_FIELDS(F) \
	F(test, TEXT, NULL, \
	  "gemm, hbm-read, hbm-write, hbm-copy, h2d, d2h, p2p, all-reduce, all-gather, " \
	  "reduce-scatter, launch or graph", \
	  r->test) \
	F(gpu, INT, NULL, "CUDA device ordinal; null for collectives over every GPU", or_nan(r->gpu)) \
	F(peer, INT, NULL, "p2p: the destination GPU", or_nan(r->peer)) \
	F(dtype, TEXT, NULL, "gemm: fp32, tf32, fp16, bf16 or fp8; collectives: fp32", r->dtype) \
	F(label, TEXT, NULL, "gemm of a --model layer: qkv, attn-out, mlp-up, mlp-down or logits", r->label) \
	F(m, INT, NULL, "gemm: rows of the output", r->m) \
	F(n, INT, NULL, "gemm: columns of the output", r->n) \
	F(k, INT, NULL, "gemm: the inner dimension", r->k) \
	F(bytes, NUM, "bytes", "bytes of one operation (copy kernels: read + written)", r->bytes) \
	F(time_s, NUM, "s", "one operation, mean of the timed repeats", r->time_s) \
	F(tflops, NUM, "TFLOP/s", "gemm: 2mnk / time", r->tflops) \
	F(gbps, NUM, "GB/s", "bytes / time (collectives: algorithm bandwidth)", r->gbps) \
	F(busbw_gbps, NUM, "GB/s", "collectives: bus bandwidth as nccl-tests computes it", r->busbw_gbps) \
	F(latency_s, NUM, "s", "launch: one empty kernel; graph: one replay", r->latency_s) \
	F(expected, NUM, NULL, "what the catalog and model give, in the figure's unit (TFLOP/s or GB/s)", \
	  r->expected) \
	F(of_expected, NUM, "fraction", "measured / expected", \
	  (r->tflops > 0 ? r->tflops : r->gbps) / r->expected) \
	F(sm_mhz, NUM, "MHz", "lowest SM clock NVML read during it", r->clk.sm_mhz) \
	F(mem_mhz, NUM, "MHz", "lowest memory clock during it", r->clk.mem_mhz) \
	F(power_w, NUM, "W", "highest board power during it", r->clk.power_w) \
	F(temp_c, NUM, "C", "highest GPU temperature during it", r->clk.temp_c) \
	F(clock_events, TEXT, NULL, "clock-event (throttle) reasons seen during it, comma-separated; \"\" none", \
	  reasons_of(r, row))

REPORT_DEFINE(bench_row_schema, bench_row_fill, "bench", struct bench_row, r, BENCH_ROW_FIELDS)
