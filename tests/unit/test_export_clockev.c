/*
 * Clock events over time: the window counts collections with each reason on,
 * the total counts the times it came on (once when on from the start), and a
 * history shorter than the window keeps the newest collections.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "export/clockev.h"
#include "gpu/gpu.h"

static void test_window_and_edges(void **state)
{
	struct clockev *h = clockev_new(10, 1);
	unsigned w[CLOCKEV_NBITS];
	uint64_t e[CLOCKEV_NBITS];
	int t;
	(void)state;
	assert_int_equal(clockev_counts(h, 0, w, e), 0);
	/* power cap (bit 2) on at t = 0-2, off 3-4, on 5-19; hw slowdown (bit 3) at t = 7 alone */
	for (t = 0; t < 20; t++) {
		uint64_t bits = (t <= 2 || t >= 5) ? GPU_CLOCK_EVENT_SW_POWER_CAP : 0;
		if (t == 7)
			bits |= GPU_CLOCK_EVENT_HW_SLOWDOWN;
		clockev_note(h, t, bits);
	}
	assert_int_equal(clockev_counts(h, 19, w, e), 1);
	assert_int_equal(e[2], 2); /* came on at 0 (on from the start) and at 5 */
	assert_int_equal(e[3], 1);
	assert_int_equal(e[0], 0);
	assert_int_equal(w[2], 10); /* t = 10..19: in (9, 19] */
	assert_int_equal(w[3], 0);  /* t = 7 is out of the window */
	/* room for 10 / 1 + 2 = 12: t = 8..19 kept; at 16 the window (6, 16] holds 8..16 of them */
	assert_int_equal(clockev_counts(h, 16, w, e), 1);
	assert_int_equal(w[2], 9);
	clockev_free(h);
}

static void test_short_history(void **state)
{
	/* a window of 1 h at 50 ms wants 72,002 entries: 4096 are kept, the newest */
	struct clockev *h = clockev_new(3600, 0.05);
	unsigned w[CLOCKEV_NBITS];
	uint64_t e[CLOCKEV_NBITS];
	int i;
	(void)state;
	for (i = 0; i < 5000; i++)
		clockev_note(h, i * 0.05, GPU_CLOCK_EVENT_HW_THERMAL);
	clockev_counts(h, 4999 * 0.05, w, e);
	assert_int_equal(w[6], 4096);
	assert_int_equal(e[6], 1);
	clockev_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_and_edges),
		cmocka_unit_test(test_short_history),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
