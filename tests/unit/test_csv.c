#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quotes_and_positions),
		cmocka_unit_test(test_comments_blank_crlf),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_utf8_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
