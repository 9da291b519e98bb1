#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "util/suggest.h"
#include "util/units.h"

static void test_unit_parse(void **state)
{
	double v;
	char why[200];
	(void)state;
	assert_int_equal(unit_parse("3.35 TB/s", "GB/s", &v, why, sizeof(why)), 0);
	assert_true(v > 3349.999 && v < 3350.001);
	assert_int_equal(unit_parse("400 Gb/s", "GB/s", &v, why, sizeof(why)), 0);
	assert_true(v > 49.999 && v < 50.001);
	assert_int_equal(unit_parse("80", "GiB", &v, why, sizeof(why)), 0);
	assert_true(v == 80);
	assert_int_equal(unit_parse("1 TiB", "GiB", &v, why, sizeof(why)), 0);
	assert_true(v == 1024);
	assert_int_equal(unit_parse("10.2 kW", "W", &v, why, sizeof(why)), 0);
	assert_true(v > 10199.99 && v < 10200.01);
	assert_int_equal(unit_parse("80 GHz", "GiB", &v, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "unknown unit 'GHz'"));
	assert_int_equal(unit_parse("80 W", "GiB", &v, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a size"));
	assert_int_equal(unit_parse("0x10", NULL, &v, why, sizeof(why)), -1);
	assert_int_equal(unit_parse("nan", NULL, &v, why, sizeof(why)), -1);
	assert_int_equal(unit_parse("1e999", NULL, &v, why, sizeof(why)), -1);
	assert_int_equal(unit_parse("", NULL, &v, why, sizeof(why)), -1);
}

static void test_duration(void **state)
{
	double s;
	char why[200];
	(void)state;
	assert_int_equal(unit_parse_duration("30d", &s, why, sizeof(why)), 0);
	assert_true(s == 30 * 86400.0);
	assert_int_equal(unit_parse_duration("5ms", &s, why, sizeof(why)), 0);
	assert_true(s > 0.004999 && s < 0.005001);
	assert_int_equal(unit_parse_duration("1.5h", &s, why, sizeof(why)), 0);
	assert_true(s == 5400);
	assert_int_equal(unit_parse_duration("3 fortnights", &s, why, sizeof(why)), -1);
	assert_int_equal(unit_parse_duration("-1s", &s, why, sizeof(why)), -1);
}

static void test_suggest(void **state)
{
	const char *cands[] = {"plan", "estimate", "catalog", "check", "export"};
	char hint[200];
	(void)state;
	assert_int_equal(suggest_distance("plna", "plan"), 1);
	assert_int_equal(suggest_distance("kitten", "sitting"), 3);
	suggest_hint("catalgo", cands, 5, hint, sizeof(hint));
	assert_string_equal(hint, "; did you mean 'catalog'?");
	suggest_hint("zzzzzzzz", cands, 5, hint, sizeof(hint));
	assert_string_equal(hint, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unit_parse),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_suggest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
