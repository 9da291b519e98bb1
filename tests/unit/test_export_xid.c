/*
 * XID bookkeeping: every occurrence counts, the two sources are merged,
 * kernel-log history counts, and dcgm's sliding window.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "export/xid.h"

#define T0 1800000000.0 /* the exporter's start, Unix time */

static uint64_t total(struct xid_book *b, unsigned gpu, unsigned code, double now, unsigned *in_window)
{
	struct xid_count *c;
	int has_last;
	unsigned last, i;
	double last_t;
	size_t n = xid_book_view(b, gpu, now, &c, &has_last, &last, &last_t);
	uint64_t t = 0;
	*in_window = 0;
	for (i = 0; i < n; i++)
		if (c[i].code == code) {
			t = c[i].total;
			*in_window = c[i].in_window;
		}
	free(c);
	return t;
}

static void test_repeats_count(void **state)
{
	struct xid_book *b = xid_book_new(2, 300, T0);
	unsigned w;
	int has_last;
	unsigned last;
	double last_t;
	struct xid_count *c;
	(void)state;
	/* the same code again and again: a last-value gauge would hide it */
	for (int i = 0; i < 5; i++)
		assert_int_equal(xid_book_add(b, 1, 48, T0 + 100 + i * 20, XID_FROM_NVML), 1);
	assert_int_equal(xid_book_add(b, 1, 63, T0 + 200, XID_FROM_NVML), 1);
	assert_int_equal(total(b, 1, 48, T0 + 210, &w), 5);
	assert_int_equal(w, 5);
	assert_int_equal(total(b, 0, 48, T0 + 210, &w), 0);
	assert_int_equal(xid_book_view(b, 1, T0 + 210, &c, &has_last, &last, &last_t), 2);
	assert_int_equal(c[0].code, 48); /* sorted by code */
	assert_int_equal(c[1].code, 63);
	free(c);
	assert_true(has_last);
	assert_int_equal(last, 63);
	assert_true(last_t == T0 + 200);
	/* out of range */
	assert_int_equal(xid_book_add(b, 2, 48, T0, XID_FROM_NVML), -1);
	xid_book_free(b);
}

static void test_sources_merge(void **state)
{
	struct xid_book *b = xid_book_new(1, 300, T0);
	unsigned w;
	(void)state;
	/* one XID seen by NVML and then by the kernel log a moment later: counted once */
	assert_int_equal(xid_book_add(b, 0, 79, T0 + 50.0, XID_FROM_NVML), 1);
	assert_int_equal(xid_book_add(b, 0, 79, T0 + 50.2, XID_FROM_KMSG), 0);
	/* and the other way round */
	assert_int_equal(xid_book_add(b, 0, 79, T0 + 80.0, XID_FROM_KMSG), 1);
	assert_int_equal(xid_book_add(b, 0, 79, T0 + 80.5, XID_FROM_NVML), 0);
	/* far apart: two errors */
	assert_int_equal(xid_book_add(b, 0, 79, T0 + 120.0, XID_FROM_NVML), 1);
	assert_int_equal(xid_book_add(b, 0, 79, T0 + 120.0 + XID_MATCH_S + 5, XID_FROM_KMSG), 1);
	/* the same source twice: two errors */
	assert_int_equal(xid_book_add(b, 0, 79, T0 + 200, XID_FROM_NVML), 1);
	assert_int_equal(xid_book_add(b, 0, 79, T0 + 200, XID_FROM_NVML), 1);
	/* a storm seen by both: each kernel line pairs with one event */
	for (int i = 0; i < 500; i++)
		assert_int_equal(xid_book_add(b, 0, 13, T0 + 300, XID_FROM_NVML), 1);
	for (int i = 0; i < 500; i++)
		assert_int_equal(xid_book_add(b, 0, 13, T0 + 300.5, XID_FROM_KMSG), 0);
	assert_int_equal(total(b, 0, 79, T0 + 300, &w), 6);
	assert_int_equal(total(b, 0, 13, T0 + 300, &w), 500);
	assert_int_equal(xid_book_duplicates(b), 502);
	xid_book_free(b);
}

static void test_history_and_window(void **state)
{
	struct xid_book *b = xid_book_new(1, 300, T0);
	unsigned w;
	(void)state;
	/* kernel-log entries from before the start are history: they count, and never pair up */
	assert_int_equal(xid_book_add(b, 0, 31, T0 - 3600, XID_FROM_KMSG), 1);
	assert_int_equal(xid_book_add(b, 0, 31, T0 - 3599, XID_FROM_KMSG), 1);
	assert_int_equal(xid_book_add(b, 0, 31, T0 + 1, XID_FROM_NVML), 1);
	assert_int_equal(total(b, 0, 31, T0 + 2, &w), 3);
	/* only the live one is inside the 300 s window */
	assert_int_equal(w, 1);
	/* the window slides */
	assert_int_equal(total(b, 0, 31, T0 + 299, &w), 3);
	assert_int_equal(w, 1);
	assert_int_equal(total(b, 0, 31, T0 + 302, &w), 3);
	assert_int_equal(w, 0);
	xid_book_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repeats_count),
		cmocka_unit_test(test_sources_merge),
		cmocka_unit_test(test_history_and_window),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
