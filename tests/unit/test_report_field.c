/* The one output layer: strbuf, the formatters, field tables, enum options. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/field.h"
#include "report/fmt.h"
#include "util/opts.h"
#include "util/strbuf.h"

static void test_strbuf(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;
	size_t len, i;
	(void)state;
	assert_string_equal(strbuf_str(&sb), "");
	strbuf_addstr(&sb, "ab");
	strbuf_addch(&sb, 'c');
	strbuf_addf(&sb, "-%d", 42);
	assert_string_equal(strbuf_str(&sb), "abc-42");
	/* far past any fixed buffer: nothing is cut */
	for (i = 0; i < 1000; i++)
		strbuf_addf(&sb, "%s", "0123456789");
	assert_int_equal(sb.len, 6 + 10000);
	assert_int_equal(strlen(strbuf_str(&sb)), sb.len);
	strbuf_setlen(&sb, 3);
	assert_string_equal(strbuf_str(&sb), "abc");
	s = strbuf_detach(&sb, &len);
	assert_int_equal(len, 3);
	assert_string_equal(s, "abc");
	assert_null(sb.buf);
	free(s);
	s = strbuf_detach(&sb, NULL); /* empty detaches as "" */
	assert_string_equal(s, "");
	free(s);
	strbuf_release(&sb);
	strbuf_init(&sb, 4096);
	assert_true(sb.alloc > 4096);
	assert_string_equal(strbuf_str(&sb), "");
	strbuf_addstr(&sb, "x");
	assert_string_equal(strbuf_str(&sb), "x");
	strbuf_release(&sb);
}

/* Room for SIZE_MAX more bytes cannot be made: strbuf_grow() aborts (in a child), never returns. */
static void test_strbuf_grow_too_much(void **state)
{
	size_t len[] = {0, 3};
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(len) / sizeof(len[0]); i++) {
		int st;
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			struct strbuf sb = STRBUF_INIT;
			/* the out-of-memory report is not this test's output */
			if (!freopen("/dev/null", "w", stderr))
				_exit(3);
			strbuf_add(&sb, "abc", len[i]);
			strbuf_grow(&sb, SIZE_MAX);
			_exit(0);
		}
		assert_int_equal(waitpid(pid, &st, 0), pid);
		assert_false(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
}

static void test_formatters(void **state)
{
	char b[FMT_LEN];
	(void)state;
	assert_string_equal(fmt_duration(0.0125, FMT_DURATION_TEXT, b, sizeof(b)), "12.5 ms");
	assert_string_equal(fmt_duration(3 * 3600, FMT_DURATION_TEXT, b, sizeof(b)), "3.0 h");
	assert_string_equal(fmt_duration(NAN, FMT_DURATION_TEXT, b, sizeof(b)), "-");
	assert_string_equal(fmt_duration(0.25, FMT_DURATION_SHORT, b, sizeof(b)), "250ms");
	assert_string_equal(fmt_duration(0, FMT_DURATION_SHORT, b, sizeof(b)), "-");
	assert_string_equal(fmt_duration(0.0025, FMT_DURATION_STEP, b, sizeof(b)), "2.5ms");
	assert_string_equal(fmt_duration(25, FMT_DURATION_STEP, b, sizeof(b)), "25s");
	assert_string_equal(fmt_duration(0, FMT_DURATION_PRECISE, b, sizeof(b)), "0");
	assert_string_equal(fmt_duration(352.1, FMT_DURATION_PRECISE, b, sizeof(b)), "352.10 s");
	assert_string_equal(fmt_duration(1500, FMT_DURATION_PRECISE, b, sizeof(b)), "25.0 min");

	assert_string_equal(fmt_money(433000, FMT_MONEY_SHORT, b, sizeof(b)), "$433k");
	assert_string_equal(fmt_money(0.001, FMT_MONEY_SHORT, b, sizeof(b)), "<$0.01");
	assert_string_equal(fmt_money(1.25e6, FMT_MONEY_SIGNED, b, sizeof(b)), "+$1.25M");
	assert_string_equal(fmt_money(-250e3, FMT_MONEY_SIGNED, b, sizeof(b)), "-$250k");
	assert_string_equal(fmt_money(1234567.8, FMT_MONEY_WHOLE, b, sizeof(b)), "$1,234,568");
	assert_string_equal(fmt_money(-5000, FMT_MONEY_WHOLE, b, sizeof(b)), "-$5,000");
	assert_string_equal(fmt_money(-0.001, FMT_MONEY_WHOLE, b, sizeof(b)), "$0");
	assert_string_equal(fmt_money(2.8249, FMT_MONEY_CENTS, b, sizeof(b)), "$2.82");
	assert_string_equal(fmt_money(0.125, FMT_MONEY_MILLS, b, sizeof(b)), "$0.125");
	/* unknown is never "$inf" */
	assert_string_equal(fmt_money(INFINITY, FMT_MONEY_WHOLE, b, sizeof(b)), "-");
	/* a huge amount is written whole, with its separators, not cut */
	assert_int_equal(strlen(fmt_money(1e21, FMT_MONEY_WHOLE, b, sizeof(b))), 1 + 22 + 7);

	assert_string_equal(fmt_bytes(512, FMT_BYTES_BINARY, b, sizeof(b)), "512 B");
	assert_string_equal(fmt_bytes(79.6 * 1073741824.0, FMT_BYTES_BINARY, b, sizeof(b)), "79.6 GiB");
	assert_string_equal(fmt_bytes(1073741824.0 * 1.5, FMT_BYTES_GIB, b, sizeof(b)), "1.50");

	assert_string_equal(fmt_count(433e3, FMT_COUNT_SI_SHORT, b, sizeof(b)), "433k");
	assert_string_equal(fmt_count(999.7e3, FMT_COUNT_SI_SHORT, b, sizeof(b)), "1M");
	assert_string_equal(fmt_count(1.2e6, FMT_COUNT_SI, b, sizeof(b)), "1.20 M");
	assert_string_equal(fmt_count(1e9, FMT_COUNT_G3, b, sizeof(b)), "1e9");
	assert_string_equal(fmt_count(1.5e13, FMT_COUNT_G3, b, sizeof(b)), "1.5e13");
	assert_string_equal(fmt_count(1234567, FMT_COUNT_GROUPED, b, sizeof(b)), "1,234,567");
	assert_string_equal(fmt_grouped(1234.5, 2, b, sizeof(b)), "1,234.50");
	assert_string_equal(fmt_num(NAN, 2, b, sizeof(b)), "-");
	assert_string_equal(fmt_pct(0.125, 1, b, sizeof(b)), "12.5%");
	assert_string_equal(fmt_rate(1200, "tokens/s", b, sizeof(b)), "1.20 k tokens/s");
	/* power and energy: watts below a kilowatt, never "0 kW" for a server that draws 129 W */
	assert_string_equal(fmt_power(129, b, sizeof(b)), "129 W");
	assert_string_equal(fmt_power(1029, b, sizeof(b)), "1.03 kW");
	assert_string_equal(fmt_power(17240, b, sizeof(b)), "17.2 kW");
	assert_string_equal(fmt_power(999.7e3, b, sizeof(b)), "1.00 MW");
	assert_string_equal(fmt_power(0, b, sizeof(b)), "0 W");
	assert_string_equal(fmt_power(NAN, b, sizeof(b)), "-");
	assert_string_equal(fmt_energy(0.0269, b, sizeof(b)), "26.9 Wh");
	assert_string_equal(fmt_energy(1.651e6, b, sizeof(b)), "1.65 GWh");
}

struct thing {
	double step_s, bytes, usd;
	long gpus;
	int ok;
	const char *name;
};

#define THING_FIELDS(F) \
	F(name, TEXT, NULL, "what it is", t->name) \
	F(gpus, INT, NULL, "GPUs", (double)t->gpus) \
	F(step_s, NUM, "s", "time of one step", t->step_s) \
	F(memory_bytes, NUM, "bytes", "memory", t->bytes) \
	F(cost_usd, NUM, "USD", "what it costs", t->usd) \
	F(fits, BOOL, NULL, "fits in memory", t->ok) \
	F(label, TEXT, NULL, "computed text", report_printf(row, "%s x%ld", t->name, t->gpus))

static const struct report_field thing_fields[] = {THING_FIELDS(REPORT_FIELD_DECL)};
static const struct report_schema thing_schema = REPORT_SCHEMA("thing", thing_fields);

static void thing_row(const struct thing *t, struct report_row *row)
{
	size_t i = 0;
	report_row_clear(row);
	THING_FIELDS(REPORT_FIELD_SET)
	assert_int_equal(i, thing_schema.nfields);
}

static char *capture(void (*fn)(const struct report_row *, FILE *), const struct report_row *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fn(r, f);
	fclose(f);
	return buf;
}

static void print_all(const struct report_row *r, FILE *f)
{
	report_row_print(r, f, NULL);
}

static void test_field_table(void **state)
{
	struct thing t = {0.0125, 79.6 * 1073741824.0, 433000, 8, 1, "=cmd"};
	struct report_row *row = report_row_new(&thing_schema);
	json_t *o;
	char *s, b[FMT_LEN];
	(void)state;
	assert_int_equal(thing_schema.nfields, 7);
	thing_row(&t, row);

	o = report_row_json(row);
	assert_string_equal(json_string_value(json_object_get(o, "name")), "=cmd");
	assert_true(json_is_integer(json_object_get(o, "gpus")));
	assert_true(json_is_true(json_object_get(o, "fits")));
	assert_string_equal(json_string_value(json_object_get(o, "label")), "=cmd x8");
	json_decref(o);

	/* not finite is null in JSON and empty in CSV */
	t.step_s = NAN;
	thing_row(&t, row);
	o = report_row_json(row);
	assert_true(json_is_null(json_object_get(o, "step_s")));
	json_decref(o);
	s = capture(report_csv_row, row);
	/* text that would start a spreadsheet formula is neutralised */
	assert_string_equal(s, "\"'=cmd\",8,,8.546984919e+10,433000,true,\"'=cmd x8\"\n");
	free(s);

	t.step_s = 0.0125;
	thing_row(&t, row);
	assert_string_equal(report_value_text(row, 2, b, sizeof(b)), "12.5 ms");
	assert_string_equal(report_value_text(row, 3, b, sizeof(b)), "79.6 GiB");
	assert_string_equal(report_value_text(row, 4, b, sizeof(b)), "$433k");
	assert_int_equal(report_field_index(&thing_schema, "cost_usd"), 4);
	assert_int_equal(report_field_index(&thing_schema, "nope"), -1);
	/* the type names docs and `gpuscope fields` print */
	assert_string_equal(report_type_name(thing_schema.fields[0].type), "text");
	assert_string_equal(report_type_name(REPORT_NUM), "number");
	assert_string_equal(report_type_name(REPORT_INT), "integer");
	assert_string_equal(report_type_name(REPORT_BOOL), "boolean");
	assert_true(isnan(report_num(row, 0)));
	assert_string_equal(report_text(row, 0), "=cmd");
	s = capture(print_all, row);
	assert_non_null(strstr(s, "memory_bytes  79.6 GiB\n"));
	free(s);
	report_row_free(row);
}

static int parse_color(const char *s)
{
	return !strcmp(s, "red") ? 1 : !strcmp(s, "blue") ? 2 : -1;
}

static void test_opt_enum(void **state)
{
	int color = 0;
	const struct opt opts[] = {
		OPT_ENUM_("color", &color, "C", "red or blue", parse_color, "red, blue"),
		OPT_END_(),
	};
	const struct opts_cmd cmd = {"t", "", "test", NULL, opts};
	char a0[] = "t", a1[] = "--color", a2[] = "blue", a3[] = "--color=green";
	char *ok[] = {a0, a1, a2}, *bad[] = {a0, a3};
	int npos;
	(void)state;
	assert_int_equal(opts_parse(&cmd, 3, ok, &npos), 0);
	assert_int_equal(color, 2);
	assert_int_equal(opts_parse(&cmd, 2, bad, &npos), -1);
	assert_int_equal(color, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strbuf),     cmocka_unit_test(test_strbuf_grow_too_much),
		cmocka_unit_test(test_formatters), cmocka_unit_test(test_field_table),
		cmocka_unit_test(test_opt_enum),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
