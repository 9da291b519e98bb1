/*
 * bench --quick's verdict logic (which cause is named for which readings)
 * and the human report's outlier column, on results built by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "gpu/gpu.h"
#include "view/bench.h"

#define MAXROWS 16

struct fixture {
	struct bench_result r;
	struct bench_gpu g[3];
	struct bench_row rows[MAXROWS];
};

static struct bench_row *row(struct fixture *f, const char *test, int gpu, double v, double expected)
{
	struct bench_row *x = &f->rows[f->r.nrows++];
	memset(x, 0, sizeof(*x));
	x->test = test;
	x->gpu = gpu;
	x->peer = -1;
	x->m = x->n = x->k = x->bytes = x->time_s = x->tflops = x->gbps = x->busbw_gbps = x->latency_s = NAN;
	x->clk = (struct bench_clocks){1, 1980, 2619, 690, 700, 60, 0};
	if (!strcmp(test, "gemm")) {
		x->dtype = "bf16";
		x->m = x->n = x->k = 8192;
		x->tflops = v;
	} else {
		x->gbps = v;
		x->bytes = 1 << 30;
	}
	x->expected = expected;
	return x;
}

/* One healthy GPU: GEMM 760 of 790, HBM 2750 of 2881, host copies 53 of 51.7. */
static void healthy(struct fixture *f, int ngpus)
{
	int i;
	memset(f, 0, sizeof(*f));
	f->r.gpus = f->g;
	f->r.ngpus = (size_t)ngpus;
	f->r.rows = f->rows;
	for (i = 0; i < ngpus; i++) {
		f->g[i] = (struct bench_gpu){.index = i,
					     .pcie_gen = 5,
					     .pcie_width = 16,
					     .pcie_max_gen = 5,
					     .pcie_max_width = 16,
					     .ecc = 1,
					     .clock_max_sm_mhz = 1980,
					     .power_default_limit_w = 700,
					     .power_limit_w = 700};
		row(f, "gemm", i, 760, 790);
		row(f, "hbm-copy", i, 2750, 2881);
		row(f, "h2d", i, 53, 51.7);
		row(f, "d2h", i, 53, 51.7);
	}
}

static struct bench_verdict verdict(struct fixture *f, char *cause, size_t len)
{
	struct bench_verdict *v, one;
	size_t n = bench_quick_verdicts(&f->r, NULL, &v);
	assert_int_equal(n, f->r.ngpus);
	one = v[0];
	snprintf(cause, len, "%s", v[0].cause ? v[0].cause : "(none)");
	bench_verdicts_free(v, n);
	return one;
}

static void test_healthy_not_flagged(void **state)
{
	struct fixture f;
	char cause[256];
	struct bench_verdict v;
	healthy(&f, 1);
	v = verdict(&f, cause, sizeof(cause));
	assert_false(v.flagged);
	assert_true(fabs(v.gemm_ratio - 760.0 / 790) < 1e-9);
	assert_true(fabs(v.slower_pct - 100 * (1 - 2750.0 / 2881)) < 1e-9);
	assert_string_equal(cause, "(none)");
}

static void test_power_cap_named_first(void **state)
{
	struct fixture f;
	char cause[256];
	struct bench_verdict v;
	healthy(&f, 1);
	f.g[0].power_limit_w = 350;
	f.rows[0].tflops = 380; /* half */
	f.rows[0].clk.reasons = GPU_CLOCK_EVENT_SW_POWER_CAP | GPU_CLOCK_EVENT_SW_THERMAL;
	v = verdict(&f, cause, sizeof(cause));
	assert_true(v.flagged);
	assert_true(fabs(v.slower_pct - 100 * (1 - 380.0 / 790)) < 1e-9);
	assert_string_equal(cause, "power cap (limit 350 of 700 W)");
}

static void test_thermal(void **state)
{
	struct fixture f;
	char cause[256];
	healthy(&f, 1);
	f.rows[0].tflops = 500;
	f.rows[0].clk.reasons = GPU_CLOCK_EVENT_HW_THERMAL;
	f.rows[0].clk.temp_c = 91;
	assert_true(verdict(&f, cause, sizeof(cause)).flagged);
	assert_string_equal(cause, "thermal slowdown (91 C)");
}

static void test_low_clocks_without_reason(void **state)
{
	struct fixture f;
	char cause[256];
	healthy(&f, 1);
	f.rows[0].tflops = 500;
	f.rows[0].clk.sm_mhz = 1200;
	assert_true(verdict(&f, cause, sizeof(cause)).flagged);
	assert_string_equal(cause, "clocks (SM 1200 of 1980 MHz, no reason given)");
}

static void test_pcie_link_only_when_host_slow(void **state)
{
	struct fixture f;
	char cause[256];
	struct bench_verdict v;
	healthy(&f, 1);
	f.g[0].pcie_width = 8;
	v = verdict(&f, cause, sizeof(cause));
	assert_false(v.flagged); /* a narrow link that still copies at speed is not a finding */
	f.rows[2].gbps = 26.5;
	v = verdict(&f, cause, sizeof(cause));
	assert_true(v.flagged);
	assert_true(v.slower_pct < BENCH_QUICK_SLOW_PCT);
	assert_string_equal(cause, "PCIe link x8 of x16, gen 5 of 5");
}

static void test_ecc_last(void **state)
{
	struct fixture f;
	char cause[256];
	healthy(&f, 1);
	f.rows[1].gbps = 2000; /* HBM slow, clocks full, no reason */
	assert_true(verdict(&f, cause, sizeof(cause)).flagged);
	assert_string_equal(cause, "ECC on (costs some memory bandwidth)");
	f.g[0].ecc = 0;
	assert_true(verdict(&f, cause, sizeof(cause)).flagged);
	assert_string_equal(cause, "(none)");
}

/* The human report names the GPU more than 5 % under the median, and none when all are alike. */
static void test_report_outlier(void **state)
{
	struct fixture f;
	char *text = NULL;
	size_t len = 0;
	FILE *out;
	healthy(&f, 3);
	f.rows[4 * 2 + 1].gbps = 2000; /* GPU 2's HBM copy */
	out = open_memstream(&text, &len);
	assert_non_null(out);
	view_bench_write(out, &f.r, NULL, NULL, 0, FORMAT_HUMAN);
	fclose(out);
	assert_non_null(strstr(text, "hbm-copy  1.0 GiB  GB/s  2000.0  2750.0  2750.0    2881.0  gpu 2 -27 %"));
	/* no outlier: the line ends at its last figure, with no trailing blanks */
	assert_non_null(strstr(text, "h2d       1.0 GiB  GB/s    53.0    53.0    53.0      51.7\n"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy_not_flagged),
		cmocka_unit_test(test_power_cap_named_first),
		cmocka_unit_test(test_thermal),
		cmocka_unit_test(test_low_clocks_without_reason),
		cmocka_unit_test(test_pcie_link_only_when_host_slow),
		cmocka_unit_test(test_ecc_last),
		cmocka_unit_test(test_report_outlier),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
