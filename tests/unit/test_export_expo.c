/*
 * The exposition writer: escaping, numbers, family headers in text 0.0.4 and
 * OpenMetrics, and content negotiation.
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

#include "export/expo.h"

static char *value_text(double v)
{
	static char out[64];
	struct strbuf b = STRBUF_INIT;
	expo_value(&b, v);
	snprintf(out, sizeof(out), "%s", strbuf_str(&b));
	strbuf_release(&b);
	return out;
}

static void test_values(void **state)
{
	(void)state;
	assert_string_equal(value_text(0), "0");
	assert_string_equal(value_text(97), "97");
	assert_string_equal(value_text(-3), "-3");
	assert_string_equal(value_text(8123456789.0), "8123456789");
	assert_string_equal(value_text(0.97), "0.97");
	assert_string_equal(value_text(412.5), "412.5");
	assert_string_equal(value_text(1e-9), "1e-09");
	assert_string_equal(value_text(NAN), "NaN");
	assert_string_equal(value_text(INFINITY), "+Inf");
	assert_string_equal(value_text(-INFINITY), "-Inf");
	/* 2^53 and beyond go through printf and still read back exactly */
	assert_true(strtod(value_text(18446744073709551615.0), NULL) == 18446744073709551615.0);
	/* every value reads back to the same double */
	for (int i = 1; i < 1000; i++) {
		double v = 1.0 / i * 3.7;
		assert_true(strtod(value_text(v), NULL) == v);
	}
}

static void test_label_escaping(void **state)
{
	struct strbuf b = STRBUF_INIT;
	(void)state;
	expo_label(&b, 1, "modelName", "a\\b\"c\nd");
	expo_label(&b, 0, "x", "");
	assert_string_equal(strbuf_str(&b), "modelName=\"a\\\\b\\\"c\\nd\",x=\"\"");
	strbuf_release(&b);
}

/* Label values are valid UTF-8 whatever the driver or /proc gives: bad bytes become U+FFFD. */
static void test_label_utf8(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
		{"\xff\xfe"
		 "bad",
		 "\xef\xbf\xbd\xef\xbf\xbd"
		 "bad"},
		{"cut \xc3", "cut \xef\xbf\xbd"},                         /* truncated at the end */
		{"\xe2\x82x", "\xef\xbf\xbd\xef\xbf\xbdx"},               /* truncated in the middle */
		{"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},                 /* overlong '/' */
		{"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* a surrogate */
		{"\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
		{"q\"\x80\\", "q\\\"\xef\xbf\xbd\\\\"},
	};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf b = STRBUF_INIT;
		expo_escape_label_value(&b, cases[i].in);
		assert_string_equal(strbuf_str(&b), cases[i].out);
		strbuf_release(&b);
	}
}

static void test_text_family(void **state)
{
	struct strbuf b = STRBUF_INIT;
	struct expo_writer w;
	(void)state;
	expo_writer_init(&w, &b, EXPO_TEXT);
	expo_family(&w, "gpu_energy_joules_total", EXPO_COUNTER, "energy \\ used\nsince \"load\"", "joules");
	expo_sample(&w, "gpu=\"0\"", NULL, NULL, 12.5);
	expo_sample(&w, NULL, "xid", "79", 1);
	expo_sample(&w, "", NULL, NULL, 2);
	expo_family(&w, "gpu_info", EXPO_INFO, "identity", NULL);
	expo_sample2(&w, "gpu=\"0\"", "a", "1", "b", "2", 1);
	expo_finish(&w);
	assert_string_equal(strbuf_str(&b),
			    "# HELP gpu_energy_joules_total energy \\\\ used\\nsince \"load\"\n"
			    "# TYPE gpu_energy_joules_total counter\n"
			    "gpu_energy_joules_total{gpu=\"0\"} 12.5\n"
			    "gpu_energy_joules_total{xid=\"79\"} 1\n"
			    "gpu_energy_joules_total 2\n"
			    "# HELP gpu_info identity\n"
			    "# TYPE gpu_info gauge\n"
			    "gpu_info{gpu=\"0\",a=\"1\",b=\"2\"} 1\n");
	strbuf_release(&b);
}

static void test_openmetrics_family(void **state)
{
	struct strbuf b = STRBUF_INIT;
	struct expo_writer w;
	(void)state;
	expo_writer_init(&w, &b, EXPO_OPENMETRICS);
	expo_family(&w, "gpu_energy_joules_total", EXPO_COUNTER, "say \"hi\"", "joules");
	expo_sample(&w, "gpu=\"0\"", NULL, NULL, 1);
	/* a dcgm counter without _total keeps its name as an unknown-typed family */
	expo_family(&w, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", EXPO_COUNTER, "replays", NULL);
	expo_sample(&w, NULL, NULL, NULL, 0);
	expo_family(&w, "gpu_info", EXPO_INFO, "identity", NULL);
	expo_sample(&w, NULL, NULL, NULL, 1);
	expo_family(&w, "gpu_power_watts", EXPO_GAUGE, "power", "watts");
	expo_family(&w, "gpu_pcie_link_width", EXPO_GAUGE, "lanes", "bytes");
	expo_finish(&w);
	assert_string_equal(strbuf_str(&b),
			    "# HELP gpu_energy_joules say \\\"hi\\\"\n"
			    "# TYPE gpu_energy_joules counter\n"
			    "# UNIT gpu_energy_joules joules\n"
			    "gpu_energy_joules_total{gpu=\"0\"} 1\n"
			    "# HELP DCGM_FI_DEV_PCIE_REPLAY_COUNTER replays\n"
			    "# TYPE DCGM_FI_DEV_PCIE_REPLAY_COUNTER unknown\n"
			    "DCGM_FI_DEV_PCIE_REPLAY_COUNTER 0\n"
			    "# HELP gpu identity\n"
			    "# TYPE gpu info\n"
			    "gpu_info 1\n"
			    "# HELP gpu_power_watts power\n"
			    "# TYPE gpu_power_watts gauge\n"
			    "# UNIT gpu_power_watts watts\n"
			    "# HELP gpu_pcie_link_width lanes\n"
			    "# TYPE gpu_pcie_link_width gauge\n"
			    "# EOF\n");
	strbuf_release(&b);
}

static void test_negotiate(void **state)
{
	const char *ct;
	(void)state;
	assert_int_equal(expo_negotiate(NULL, &ct), EXPO_TEXT);
	assert_string_equal(ct, "text/plain; version=0.0.4; charset=utf-8");
	/* Prometheus 2.x */
	assert_int_equal(expo_negotiate("application/openmetrics-text;version=1.0.0,"
					"application/openmetrics-text;version=0.0.1;q=0.75,"
					"text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
					&ct),
			 EXPO_OPENMETRICS);
	assert_string_equal(ct, "application/openmetrics-text; version=1.0.0; charset=utf-8");
	/* Prometheus 3.x */
	assert_int_equal(expo_negotiate("application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,"
					"application/openmetrics-text;version=0.0.1;q=0.4,"
					"text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,"
					"text/plain;version=0.0.4;q=0.2,*/*;q=0.1",
					&ct),
			 EXPO_OPENMETRICS);
	/* a scraper that prefers text */
	assert_int_equal(expo_negotiate("text/plain;version=0.0.4;q=0.9, application/openmetrics-text;q=0.5", &ct),
			 EXPO_TEXT);
	/* only the old OpenMetrics version: its content type goes back */
	assert_int_equal(expo_negotiate("application/openmetrics-text; version=0.0.1", &ct), EXPO_OPENMETRICS);
	assert_string_equal(ct, "application/openmetrics-text; version=0.0.1; charset=utf-8");
	/* unknown versions and types fall back to text 0.0.4 */
	assert_int_equal(expo_negotiate("application/openmetrics-text;version=9.9.9", &ct), EXPO_TEXT);
	assert_int_equal(expo_negotiate("application/json", &ct), EXPO_TEXT);
	assert_int_equal(expo_negotiate("", &ct), EXPO_TEXT);
	assert_int_equal(expo_negotiate(",,;;q=,", &ct), EXPO_TEXT);
	/* q=0 refuses */
	assert_int_equal(expo_negotiate("application/openmetrics-text;q=0, text/plain", &ct), EXPO_TEXT);
	/* a tie goes to text */
	assert_int_equal(expo_negotiate("application/openmetrics-text, text/plain", &ct), EXPO_TEXT);
}

static void test_names(void **state)
{
	(void)state;
	assert_true(expo_valid_metric_name("gpu_up"));
	assert_true(expo_valid_metric_name("DCGM_FI_DEV_GPU_UTIL"));
	assert_true(expo_valid_metric_name("a:b"));
	assert_false(expo_valid_metric_name("9gpu"));
	assert_false(expo_valid_metric_name("gpu-up"));
	assert_false(expo_valid_metric_name(""));
	assert_true(expo_valid_label_name("modelName"));
	assert_false(expo_valid_label_name("__name__"));
	assert_false(expo_valid_label_name("a:b"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_label_escaping),
		cmocka_unit_test(test_label_utf8),
		cmocka_unit_test(test_text_family),
		cmocka_unit_test(test_openmetrics_family),
		cmocka_unit_test(test_negotiate),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
