/* The shared numeric parser: ranges, zero, subnormals, overflow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <string.h>

#include "util/num.h"

static void test_ranges(void **state)
{
	static const struct num_range pos = {0, 100, NUM_ABOVE_MIN};
	static const struct num_range whole = {1, 1e6, NUM_WHOLE};
	double v;
	char why[200];
	(void)state;
	assert_int_equal(num_parse("70", NULL, &pos, &v, why, sizeof(why)), 0);
	assert_true(v == 70);
	/* zero is refused where it would be read as "unset" */
	assert_int_equal(num_parse("0", NULL, &pos, &v, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "more than 0"));
	assert_int_equal(num_parse("-0", NULL, &pos, &v, why, sizeof(why)), -1);
	assert_int_equal(num_parse("100.5", NULL, &pos, &v, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "at most 100"));
	/* subnormals pass a "> 0" test and then divide to infinity */
	assert_int_equal(num_parse("1e-320", NULL, &pos, &v, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "subnormal"));
	assert_int_equal(num_parse("1e-320", NULL, NULL, &v, why, sizeof(why)), -1);
	assert_int_equal(num_parse("0", NULL, NULL, &v, why, sizeof(why)), 0);
	/* text strtod would take */
	assert_int_equal(num_parse("0x10", NULL, NULL, &v, why, sizeof(why)), -1);
	assert_int_equal(num_parse("inf", NULL, NULL, &v, why, sizeof(why)), -1);
	assert_int_equal(num_parse("nan", NULL, NULL, &v, why, sizeof(why)), -1);
	assert_int_equal(num_parse(" 5", NULL, NULL, &v, why, sizeof(why)), -1);
	assert_int_equal(num_parse("1e309", NULL, NULL, &v, why, sizeof(why)), -1);
	/* a finite number times a large unit overflows */
	assert_int_equal(num_parse("1e308 PB", "B", NULL, &v, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "finite"));
	/* whole numbers */
	assert_int_equal(num_parse("8", NULL, &whole, &v, why, sizeof(why)), 0);
	assert_int_equal(num_parse("8.5", NULL, &whole, &v, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "whole"));
	assert_int_equal(num_parse("1e308", NULL, &whole, &v, why, sizeof(why)), -1);
	assert_int_equal(num_parse("0", NULL, &whole, &v, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "at least 1"));
}

static void test_mul(void **state)
{
	long p;
	(void)state;
	assert_int_equal(num_mul_int(8, 8, 1000000, &p), 0);
	assert_int_equal(p, 64);
	assert_int_equal(num_mul_int(65536, 65536, 1000000, &p), -1);
	assert_int_equal(num_mul_int(LONG_MAX, 2, LONG_MAX, &p), -1);
	assert_int_equal(num_mul_int(-1, 2, 100, &p), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_mul),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
