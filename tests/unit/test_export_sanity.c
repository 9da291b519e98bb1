/*
 * Implausible driver readings are dropped, plausible ones kept.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "export/sanity.h"

static void test_sample(void **state)
{
	struct gpu_sample s;
	(void)state;
	memset(&s, 0, sizeof(s));
	GPU_SAMPLE_SET(&s, temp_gpu_c, 4294967295u);
	GPU_SAMPLE_SET(&s, temp_mem_c, 71);
	GPU_SAMPLE_SET(&s, util_gpu_pct, 101);
	GPU_SAMPLE_SET(&s, util_mem_pct, 100);
	GPU_SAMPLE_SET(&s, util_enc_pct, 255);
	GPU_SAMPLE_SET(&s, fb_total_bytes, 80ull << 30);
	GPU_SAMPLE_SET(&s, fb_used_bytes, 81ull << 30);
	GPU_SAMPLE_SET(&s, fb_free_bytes, (uint64_t) - (1ll << 30));
	GPU_SAMPLE_SET(&s, power_mw, 350000);
	assert_int_equal(sanity_sample(&s), 5);
	assert_false(GPU_SAMPLE_HAS(&s, temp_gpu_c));
	assert_true(GPU_SAMPLE_HAS(&s, temp_mem_c));
	assert_false(GPU_SAMPLE_HAS(&s, util_gpu_pct));
	assert_true(GPU_SAMPLE_HAS(&s, util_mem_pct));
	assert_false(GPU_SAMPLE_HAS(&s, util_enc_pct));
	assert_false(GPU_SAMPLE_HAS(&s, fb_used_bytes));
	assert_false(GPU_SAMPLE_HAS(&s, fb_free_bytes));
	assert_true(GPU_SAMPLE_HAS(&s, fb_total_bytes));
	assert_true(GPU_SAMPLE_HAS(&s, power_mw));
	/* at the limits: kept */
	memset(&s, 0, sizeof(s));
	GPU_SAMPLE_SET(&s, temp_gpu_c, SANITY_MAX_TEMP_C);
	GPU_SAMPLE_SET(&s, fb_total_bytes, 1000);
	GPU_SAMPLE_SET(&s, fb_used_bytes, 1000);
	GPU_SAMPLE_SET(&s, pstate, 15);
	assert_int_equal(sanity_sample(&s), 0);
	/* an absent total leaves used alone */
	memset(&s, 0, sizeof(s));
	GPU_SAMPLE_SET(&s, fb_used_bytes, 1ull << 40);
	assert_int_equal(sanity_sample(&s), 0);
}

static void test_static(void **state)
{
	struct gpu_static st;
	(void)state;
	memset(&st, 0, sizeof(st));
	GPU_STATIC_SET(&st, temp_shutdown_c, 4294967295u);
	GPU_STATIC_SET(&st, temp_slowdown_c, 90);
	assert_int_equal(sanity_static(&st), 1);
	assert_false(GPU_STATIC_HAS(&st, temp_shutdown_c));
	assert_true(GPU_STATIC_HAS(&st, temp_slowdown_c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_static),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
