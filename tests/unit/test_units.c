#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "util/suggest.h"
#include "util/units.h"
#include "report/fmt.h"

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

/* One money style for plan's table, its prose and tco's grid. */
static void test_format_usd(void **state)
{
	char b[32];
	(void)state;
	assert_string_equal(fmt_money(0.98, FMT_MONEY_SHORT, b, sizeof(b)), "$0.98");
	assert_string_equal(fmt_money(46.2, FMT_MONEY_SHORT, b, sizeof(b)), "$46");
	assert_string_equal(fmt_money(999.7, FMT_MONEY_SHORT, b, sizeof(b)), "$1k");
	assert_string_equal(fmt_money(37400, FMT_MONEY_SHORT, b, sizeof(b)), "$37.4k");
	assert_string_equal(fmt_money(433000, FMT_MONEY_SHORT, b, sizeof(b)), "$433k");
	assert_string_equal(fmt_money(999700, FMT_MONEY_SHORT, b, sizeof(b)), "$1M");
	assert_string_equal(fmt_money(14.45e6, FMT_MONEY_SHORT, b, sizeof(b)), "$14.4M");
	assert_string_equal(fmt_money(2.5e9, FMT_MONEY_SHORT, b, sizeof(b)), "$2.5G");
	assert_string_equal(fmt_money(-250000, FMT_MONEY_SHORT, b, sizeof(b)), "-$250k");
	assert_string_equal(fmt_money(0.001, FMT_MONEY_SHORT, b, sizeof(b)), "<$0.01");
	assert_string_equal(fmt_money(0, FMT_MONEY_SHORT, b, sizeof(b)), "$0.00");
	assert_string_equal(fmt_money(INFINITY, FMT_MONEY_SHORT, b, sizeof(b)), "-");
	assert_string_equal(fmt_money(NAN, FMT_MONEY_SHORT, b, sizeof(b)), "-");
}

static void test_format_duration(void **state)
{
	char b[32];
	(void)state;
	assert_string_equal(fmt_duration(0.0001, FMT_DURATION_SHORT, b, sizeof(b)), "<1ms");
	assert_string_equal(fmt_duration(0.25, FMT_DURATION_SHORT, b, sizeof(b)), "250ms");
	assert_string_equal(fmt_duration(4.2, FMT_DURATION_SHORT, b, sizeof(b)), "4.2s");
	assert_string_equal(fmt_duration(38 * 60, FMT_DURATION_SHORT, b, sizeof(b)), "38m");
	assert_string_equal(fmt_duration(1.1 * 3600, FMT_DURATION_SHORT, b, sizeof(b)), "1.1h");
	assert_string_equal(fmt_duration(12 * 86400, FMT_DURATION_SHORT, b, sizeof(b)), "12d");
	assert_string_equal(fmt_duration(2.5 * 365.25 * 86400, FMT_DURATION_SHORT, b, sizeof(b)), "2.5y");
	assert_string_equal(fmt_duration(0, FMT_DURATION_SHORT, b, sizeof(b)), "-");
	assert_string_equal(fmt_duration(NAN, FMT_DURATION_SHORT, b, sizeof(b)), "-");
	assert_string_equal(fmt_duration(90, FMT_DURATION_TEXT, b, sizeof(b)), "90.00 s");
	assert_string_equal(fmt_duration(41 * 86400, FMT_DURATION_TEXT, b, sizeof(b)), "41.0 d");
	assert_string_equal(fmt_duration(3 * 365.25 * 86400, FMT_DURATION_TEXT, b, sizeof(b)), "3.0 years");
	assert_string_equal(fmt_duration(INFINITY, FMT_DURATION_TEXT, b, sizeof(b)), "-");
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
		cmocka_unit_test(test_unit_parse), cmocka_unit_test(test_duration),
		cmocka_unit_test(test_format_usd), cmocka_unit_test(test_format_duration),
		cmocka_unit_test(test_suggest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
