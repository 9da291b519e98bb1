/* The trace reader's errors and the profile's figures on a trace built here by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "profile/trace.h"
#include "util/strbuf.h"

/*
 * Two steps: a bf16 GEMM and an all-reduce overlapping it by 100 µs, a copy
 * of 1 MB; then one elementwise kernel.  In step 1 the GPU idles over [0,100),
 * [700,800) and [850,1000): DataLoader fetches cover 90 + 150 µs of that, a
 * stream synchronisation the other 100 µs, launching the remaining 10 µs.
 */
static const char trace[] =
	"{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"Test GPU\"}],\n"
	"\"traceEvents\": [\n"
	"{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"ts\": 0, \"dur\": 1000},\n"
	"{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#2\", \"ts\": 1000, \"dur\": 500},\n"
	"{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
	"\"enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__\", \"ts\": 0, \"dur\": 90},\n"
	"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
	"\"enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__\", \"ts\": 850, \"dur\": 150},\n"
	"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaStreamSynchronize\", \"ts\": 700, \"dur\": 150},\n"
	"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": 10, \"dur\": 5,"
	" \"args\": {\"correlation\": 1}},\n"
	"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": 20, \"dur\": 5,"
	" \"args\": {\"correlation\": 2}},\n"
	"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMemcpyAsync\", \"ts\": 30, \"dur\": 5,"
	" \"args\": {\"correlation\": 3}},\n"
	"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"ts\": 1010, \"dur\": 5,"
	" \"args\": {\"correlation\": 4}},\n"
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sm90_xmma_gemm_bf16bf16_bf16f32\", \"ts\": 100, \"dur\": 300,"
	" \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1, \"grid\": [1, 2, 3], \"x\": null}},\n"
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_bf16_RING_LL\", \"ts\": 300,"
	" \"dur\": 400, \"args\": {\"device\": 0, \"stream\": 20, \"correlation\": 2, \"Collective name\": "
	"\"allreduce\", \"In msg nelems\": 1048576, \"Group size\": 8, \"dtype\": \"BFloat16\"}},\n"
	"{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pinned -> Device)\", \"ts\": 800, \"dur\": 50,"
	" \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 3, \"bytes\": 1000000}},\n"
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void at::native::vectorized_elementwise_kernel<4>\","
	" \"ts\": 1200, \"dur\": 100, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 4, \"s\": \"\\u00e9\\ud83d\\ude00\"}}\n"
	"], \"traceName\": \"x\"}\n";

static const struct profile_class_time *find(const struct profile_step *s, const char *cls, const char *sub)
{
	size_t i;
	for (i = 0; i < s->nclasses; i++)
		if (!strcmp(s->classes[i].cls, cls) && !strcmp(s->classes[i].sub, sub))
			return &s->classes[i];
	return NULL;
}

static void test_figures(void **state)
{
	struct diag err;
	struct profile_result *r;
	const struct profile_step *s;
	(void)state;
	diag_clear(&err);
	r = profile_run_mem("t.json", trace, sizeof(trace) - 1, &err);
	assert_non_null(r);
	assert_string_equal(r->gpu, "Test GPU");
	assert_string_equal(r->schema, "kineto");
	assert_int_equal(r->nsteps, 2);
	assert_int_equal(r->gpu_events, 4);
	assert_int_equal(r->unassigned, 0);
	s = &r->steps[0];
	assert_string_equal(s->name, "ProfilerStep#1");
	/* union [100,400] u [300,700] u [800,850] = 650 µs; without the all-reduce 350 µs */
	assert_true(fabs(s->busy_s - 650e-6) < 1e-12);
	assert_true(fabs(s->idle_s - 350e-6) < 1e-12);
	assert_true(fabs(s->comm_s - 400e-6) < 1e-12);
	assert_true(fabs(s->comm_exposed_s - 300e-6) < 1e-12);
	assert_true(fabs(s->comm_overlap_s - 100e-6) < 1e-12);
	assert_true(fabs(find(s, "gemm", "bf16")->time_s - 300e-6) < 1e-12);
	assert_true(fabs(find(s, "comm", "allreduce")->time_s - 400e-6) < 1e-12);
	assert_true(fabs(find(s, "memcpy", "HtoD")->time_s - 50e-6) < 1e-12);
	assert_true(fabs(find(s, "memcpy", "HtoD")->bandwidth_gbs - 20) < 1e-9); /* 1e6 B / 50 µs */
	assert_true(isnan(find(s, "gemm", "bf16")->bandwidth_gbs));
	assert_true(fabs(s->idle_loader_s - 240e-6) < 1e-12);
	assert_true(fabs(s->idle_sync_s - 100e-6) < 1e-12);
	assert_true(fabs(s->idle_launch_s - 10e-6) < 1e-12);
	assert_string_equal(s->bottleneck, "gpu idle: data loader");
	assert_true(fabs(s->max_gain - (1 / (1 - 0.35) - 1)) < 1e-9);
	s = &r->steps[1];
	assert_true(fabs(s->busy_s - 100e-6) < 1e-12);
	assert_true(fabs(find(s, "elementwise", "")->time_s - 100e-6) < 1e-12);
	s = &r->total;
	assert_true(fabs(s->wall_s - 1500e-6) < 1e-12);
	assert_true(fabs(s->busy_s - 750e-6) < 1e-12);
	assert_int_equal(s->kernels, 4);
	profile_result_free(r);
}

static void test_classes(void **state)
{
	static const struct {
		const char *cat, *name, *cls, *sub;
	} cases[] = {
		{"kernel", "cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4", "gemm", "tf32"},
		{"kernel", "ampere_sgemm_32x32_sliced1x4_tn", "gemm", "fp32"},
		{"kernel", "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32", "conv", "tf32"},
		{"kernel", "Cijk_Ailk_Bljk_HHS_BH_MT128x128x32", "gemm", "fp16"},
		{"kernel", "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32", "gemm", "fp32"},
		{"kernel", "Cijk_Alik_Bljk_BBS_BH_MT256x256x64", "gemm", "bf16"},
		{"kernel", "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128>>", "attention", ""},
		{"kernel", "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float>", "norm", ""},
		{"kernel", "void at::native::vectorized_layer_norm_kernel<float>", "norm", ""},
		{"kernel", "ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*)", "comm", "allgather"},
		{"Kernel", "void at::native::reduce_kernel<512, 1>", "elementwise", ""},
		{"gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", "memcpy", "DtoH"},
		{"Memset", "Memset (Device)", "memset", ""},
		{"kernel", "my_custom_kernel", "other", ""},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int sub;
		enum profile_class k = profile_classify(cases[i].cat, cases[i].name, NULL, &sub);
		assert_string_equal(profile_class_name(k), cases[i].cls);
		assert_string_equal(profile_sub_name(k, sub), cases[i].sub);
	}
}

/* The text of the error profile_run_mem() gives for text; line and column into *line, *col. */
static const char *error_of(const char *text, size_t len, int *line, int *col, char *buf, size_t blen)
{
	struct diag err;
	struct profile_result *r;
	diag_clear(&err);
	r = profile_run_mem("bad.json", text, len, &err);
	assert_null(r);
	diag_format(&err, buf, blen);
	*line = err.line;
	*col = err.col;
	return buf;
}

static void expect_error(const char *text, const char *want)
{
	char buf[1024];
	int line, col;
	const char *msg = error_of(text, strlen(text), &line, &col, buf, sizeof(buf));
	if (!strstr(msg, want))
		fail_msg("'%s': got '%s', expected it to hold '%s'", text, msg, want);
	assert_non_null(strstr(msg, "bad.json:"));
}

/* An operator with the given input shapes (n dims each, -1 ends) and concrete values. */
static struct trace_event op(const char *name, const double dims[][TRACE_MAX_DIMS + 1], int ninputs)
{
	struct trace_event ev;
	int i, d;
	memset(&ev, 0, sizeof(ev));
	memset(ev.nconcrete, 0xff, sizeof(ev.nconcrete));
	ev.name = name;
	ev.ninputs = ninputs;
	for (i = 0; i < ninputs; i++) {
		for (d = 0; d < TRACE_MAX_DIMS && dims[i][d] >= 0; d++)
			ev.dims[i][d] = dims[i][d];
		ev.ndims[i] = d;
	}
	return ev;
}

/* FLOPs of each operator the table of docs/profile.md names, worked by hand. */
static void test_op_flops(void **state)
{
	static const double mm[][TRACE_MAX_DIMS + 1] = {{64, 128, -1}, {128, 32, -1}};
	static const double addmm[][TRACE_MAX_DIMS + 1] = {{32, -1}, {64, 128, -1}, {128, 32, -1}, {-1}, {-1}};
	static const double bmm[][TRACE_MAX_DIMS + 1] = {{4, 8, 16, -1}, {4, 16, 2, -1}};
	static const double lin[][TRACE_MAX_DIMS + 1] = {{2, 3, 64, -1}, {10, 64, -1}, {10, -1}};
	static const double bad[][TRACE_MAX_DIMS + 1] = {{64, 128, -1}, {127, 32, -1}};
	static const double conv[][TRACE_MAX_DIMS + 1] = {{8, 3, 224, 224, -1}, {64, 3, 11, 11, -1}, {64, -1}};
	static const double bwd[][TRACE_MAX_DIMS + 1] = {{8, 64, 55, 55, -1},
							 {8, 3, 224, 224, -1},
							 {64, 3, 11, 11, -1}};
	static const double sdpa[][TRACE_MAX_DIMS + 1] = {{2, 4, 128, 64, -1},
							  {2, 4, 256, 64, -1},
							  {2, 4, 256, 64, -1}};
	struct trace_event ev;
	(void)state;
	ev = op("aten::mm", mm, 2);
	assert_true(profile_op_flops(&ev) == 2.0 * 64 * 32 * 128);
	ev = op("aten::addmm", addmm, 5);
	assert_true(profile_op_flops(&ev) == 2.0 * 64 * 32 * 128);
	ev = op("aten::bmm", bmm, 2);
	assert_true(profile_op_flops(&ev) == 2.0 * 4 * 8 * 2 * 16);
	ev = op("aten::linear", lin, 3);
	assert_true(profile_op_flops(&ev) == 2.0 * 6 * 10 * 64);
	ev = op("aten::mm", bad, 2); /* inner dimensions that disagree */
	assert_true(isnan(profile_op_flops(&ev)));
	/* AlexNet's first layer: stride 4, padding 2 -> 55 x 55 */
	ev = op("aten::conv2d", conv, 3);
	assert_true(isnan(profile_op_flops(&ev))); /* no stride recorded: unknown */
	ev.nconcrete[3] = 2, ev.concrete[3][0] = 4, ev.concrete[3][1] = 4;
	ev.nconcrete[4] = 1, ev.concrete[4][0] = 2;
	assert_true(profile_op_flops(&ev) == 2.0 * 8 * 64 * 3 * 11 * 11 * 55 * 55);
	ev = op("aten::convolution_backward", bwd, 3);
	assert_true(profile_op_flops(&ev) == 2 * 2.0 * 8 * 64 * 3 * 11 * 11 * 55 * 55);
	ev = op("aten::_scaled_dot_product_flash_attention", sdpa, 3);
	assert_true(profile_op_flops(&ev) == 4.0 * 2 * 4 * 128 * 256 * 64);
	ev = op("aten::relu", mm, 2);
	assert_true(isnan(profile_op_flops(&ev)));
}

static void test_errors(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[1024];
	int line, col, i;
	(void)state;
	expect_error("", "expected a JSON object with traceEvents, found the end of the file");
	expect_error("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": \"12\"}]}",
		     "1:36: field 'ts': byte 35: expected a number, found '\"'");
	expect_error("{\"traceEvents\": [{\"ph\": \"X\"", "expected ',' or '}', found the end of the file");
	expect_error("{\"traceEvents\": [{\"ts\": 1e999}]}", "out of range");
	expect_error("{\"traceEvents\": [{\"ts\": 1.5.5}]}", "not a JSON number");
	expect_error(
		"{\"traceEvents\": [{\"ts\": 12345678901234567890123456789012345678901234567890123456789012345}]}",
		"longer than 64 characters");
	expect_error("{\"traceEvents\": [1]}", "expected an event object");
	expect_error("{\"traceEvents\": []} x", "unexpected data after the end");
	expect_error("{\"traceEvents\": [{\"name\": \"a\\qb\"}]}", "expected an escape");
	expect_error("{\"traceEvents\": [{\"name\": \"a\tb\"}]}", "control byte 0x09");
	expect_error("{\"traceEvents\": [{\"x\": tru}]}", "expected true, false or null");
	strbuf_addstr(&sb, "{\"traceEvents\": [{\"args\": {\"a\": ");
	for (i = 0; i < 100; i++)
		strbuf_addch(&sb, '[');
	expect_error(strbuf_str(&sb), "nesting deeper than 64 levels");
	/* a string over the cap, read or skipped */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "{\"traceEvents\": [{\"other\": \"");
	for (i = 0; i < (int)(TRACE_MAX_STRING / 1024) + 1; i++)
		strbuf_addf(&sb, "%01024d", 0);
	strbuf_addstr(&sb, "\"}]}");
	error_of(sb.buf, sb.len, &line, &col, buf, sizeof(buf));
	assert_non_null(strstr(buf, "a string longer than 4194304 bytes"));
	strbuf_release(&sb);
	/* line and column of the offending byte */
	error_of("{\n  \"traceEvents\": [\n    {\"ts\": x}]}", 35, &line, &col, buf, sizeof(buf));
	assert_int_equal(line, 3);
	assert_int_equal(col, 12);
	/* the bare-array form of the Chrome format is read */
	{
		static const char bare[] = "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1,\"dur\":2}]";
		struct diag err;
		struct profile_result *r = profile_run_mem("a.json", bare, sizeof(bare) - 1, &err);
		assert_non_null(r);
		assert_int_equal(r->gpu_events, 1);
		profile_result_free(r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_figures),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_op_flops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
