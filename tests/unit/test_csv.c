#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/csv.h"

static int read_all(const char *text, int flags, struct csv_record *last, int *records, struct diag *err)
{
	struct csv_reader *r = csv_open("t.csv", text, strlen(text), flags);
	int rc, n = 0;
	while ((rc = csv_next(r, last, err)) > 0)
		n++;
	*records = n;
	csv_free(r);
	return rc;
}

static void test_quotes_and_positions(void **state)
{
	const char *text = "a,b,c\n1,\"x, \"\"y\"\"\",3\n";
	struct csv_reader *r = csv_open("t.csv", text, strlen(text), 0);
	struct csv_record rec;
	struct diag err;
	(void)state;
	assert_int_equal(csv_next(r, &rec, &err), 1);
	assert_int_equal(rec.nfields, 3);
	assert_int_equal(csv_next(r, &rec, &err), 1);
	assert_int_equal(rec.line, 2);
	assert_string_equal(rec.fields[1], "x, \"y\"");
	assert_int_equal(rec.cols[0], 1);
	assert_int_equal(rec.cols[1], 3);
	assert_int_equal(rec.cols[2], 14);
	assert_int_equal(csv_next(r, &rec, &err), 0);
	csv_free(r);
}

static void test_comments_blank_crlf(void **state)
{
	struct csv_record rec;
	struct diag err;
	int n;
	(void)state;
	assert_int_equal(read_all("# c\r\n\r\na,b\r\n\r\n# x\r\n1,2\r\n", CSV_COMMENTS, &rec, &n, &err), 0);
	assert_int_equal(n, 2);
	/* without CSV_COMMENTS a '#' line is data */
	assert_int_equal(read_all("#a,b\n1,2\n", 0, &rec, &n, &err), 0);
	assert_int_equal(n, 2);
}

static void test_errors(void **state)
{
	struct csv_record rec;
	struct diag err;
	int n;
	char *big;
	(void)state;
	assert_int_equal(read_all("a,b\n1,\"open\n", 0, &rec, &n, &err), -1);
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.msg, "unterminated"));
	assert_int_equal(read_all("a,b\n1,x\"y\n", 0, &rec, &n, &err), -1);
	assert_int_equal(err.col, 4);
	assert_int_equal(read_all("a,b\n\"q\"z,1\n", 0, &rec, &n, &err), -1);
	assert_non_null(strstr(err.msg, "after closing quote"));
	assert_int_equal(read_all("a,b\n1,\xff\xfe\n", 0, &rec, &n, &err), -1);
	assert_non_null(strstr(err.msg, "UTF-8"));
	assert_int_equal(err.col, 3);
	/* overlong encoding of '/' */
	assert_int_equal(read_all("a\n\xc0\xaf\n", 0, &rec, &n, &err), -1);
	big = malloc(CSV_MAX_LINE + 100);
	memset(big, 'x', CSV_MAX_LINE + 99);
	big[CSV_MAX_LINE + 99] = '\0';
	assert_int_equal(read_all(big, 0, &rec, &n, &err), -1);
	assert_non_null(strstr(err.msg, "longer than"));
	free(big);
}

static void test_utf8_check(void **state)
{
	(void)state;
	assert_int_equal(utf8_check("h\xc3\xa9llo", 6), -1);
	assert_int_equal(utf8_check("\xe2\x82\xac", 3), -1);
	assert_int_equal(utf8_check("ab\xe2\x82", 4), 2);
	assert_int_equal(utf8_check("\xed\xa0\x80", 3), 0); /* surrogate */
}

/* csv_write_cell() into a string: the cell as a spreadsheet would read it. */
static char *cell(const char *text, enum csv_cell kind)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	csv_write_cell(f, text, kind);
	fclose(f);
	return buf;
}

#define ASSERT_CELL(text, kind, want) \
	do { \
		char *got_ = cell(text, kind); \
		assert_string_equal(got_, want); \
		free(got_); \
	} while (0)

static void test_write_formula_cells(void **state)
{
	(void)state;
	/* text that a spreadsheet would run gets a quote and is quoted */
	ASSERT_CELL("=HYPERLINK(\"http://x\",\"y\")", CSV_CELL_TEXT,
		    "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
	ASSERT_CELL("@SUM(A1:A2)", CSV_CELL_TEXT, "\"'@SUM(A1:A2)\"");
	ASSERT_CELL("+1+cmd|' /C calc'!A0", CSV_CELL_AUTO, "\"'+1+cmd|' /C calc'!A0\"");
	ASSERT_CELL("-2+3", CSV_CELL_AUTO, "\"'-2+3\"");
	ASSERT_CELL("\t=1", CSV_CELL_AUTO, "\"'\t=1\"");
	ASSERT_CELL("\r=1", CSV_CELL_AUTO, "\"'\r=1\"");
	ASSERT_CELL("-", CSV_CELL_AUTO, "\"'-\"");
	/* a text column keeps even a number-looking value from starting a formula */
	ASSERT_CELL("-5", CSV_CELL_TEXT, "\"'-5\"");
	/* numbers the program wrote stay numbers */
	ASSERT_CELL("-0.5", CSV_CELL_AUTO, "-0.5");
	ASSERT_CELL("-0.5", CSV_CELL_NUMBER, "-0.5");
	ASSERT_CELL("+8", CSV_CELL_AUTO, "+8");
	ASSERT_CELL("-1.25e-05", CSV_CELL_AUTO, "-1.25e-05");
	ASSERT_CELL("-1e", CSV_CELL_AUTO, "\"'-1e\"");
	ASSERT_CELL("-inf", CSV_CELL_AUTO, "\"'-inf\"");
	/* plain text and RFC 4180 quoting as before */
	ASSERT_CELL("H100 SXM", CSV_CELL_TEXT, "H100 SXM");
	ASSERT_CELL("a, \"b\"", CSV_CELL_TEXT, "\"a, \"\"b\"\"\"");
	ASSERT_CELL("a=b", CSV_CELL_TEXT, "a=b");
	ASSERT_CELL("", CSV_CELL_TEXT, "");
	assert_true(csv_is_number("12"));
	assert_true(csv_is_number(".5"));
	assert_false(csv_is_number("."));
	assert_false(csv_is_number("0x10"));
	assert_false(csv_is_number(" 1"));
}

static void test_scrub_controls(void **state)
{
	char s[] =
		"py\x1b[2Jthon\a\x7f \xc2\x9b"
		"31m \xc2\xa0\xc3\xa9";
	(void)state;
	text_scrub_controls(s);
	assert_string_equal(s, "py?[2Jthon?? ?31m \xc2\xa0\xc3\xa9");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quotes_and_positions),
		cmocka_unit_test(test_comments_blank_crlf),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_utf8_check),
		cmocka_unit_test(test_write_formula_cells),
		cmocka_unit_test(test_scrub_controls),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
