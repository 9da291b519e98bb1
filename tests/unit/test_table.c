#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/table.h"

/* Prints rank, cells and a fixed 20-column cell at `width` into a malloc'd string. */
static char *print_table(const char *const *cells, size_t n, unsigned width)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	struct table *t = table_new();
	assert_non_null(f);
	table_column(t, "#", ALIGN_RIGHT);
	table_column(t, "hardware", ALIGN_LEFT);
	table_column(t, "pad", ALIGN_LEFT);
	for (i = 0; i < n; i++) {
		table_row(t);
		table_cellf(t, "%zu", i + 1);
		table_cell(t, cells[i]);
		table_cell(t, "twenty columns wide.");
	}
	table_print(t, f, width);
	table_free(t);
	fclose(f);
	return buf;
}

/* The hardware cell of row `row` (0-based), spaces trimmed, into out. */
static void cell_of(const char *text, int row, char *out, size_t len)
{
	const char *l = text;
	int i;
	size_t n;
	for (i = 0; i < row + 2; i++)
		l = strchr(l, '\n') + 1;
	while (*l == ' ')
		l++;
	l = strchr(l, ' ');
	while (*l == ' ')
		l++;
	n = strcspn(l, "\n");
	snprintf(out, len, "%.*s", (int)n, l);
	/* the third column starts after two spaces */
	if (strstr(out, "  "))
		*strstr(out, "  ") = 0;
}

/* Two long names that share their first 18 characters stay apart when cut. */
static void test_cut_keeps_rows_apart(void **state)
{
	static const char *const cells[] = {
		"1x8 coreweave-hgx-a100-80gb-8x",
		"1x8 p4d.24xlarge",
		"1x8 coreweave-hgx-h200-8x",
		"1x4 coreweave-gb200-nvl72-node",
	};
	char a[64], b[64], c[64], d[64];
	char *out = print_table(cells, 4, 42);
	(void)state;
	cell_of(out, 0, a, sizeof(a));
	cell_of(out, 1, b, sizeof(b));
	cell_of(out, 2, c, sizeof(c));
	cell_of(out, 3, d, sizeof(d));
	assert_true(strlen(a) < strlen(cells[0]));
	assert_string_not_equal(a, c);
	/* they say where they differ */
	assert_non_null(strstr(a, "a100"));
	assert_non_null(strstr(c, "h200"));
	/* their head (the node shape) stays */
	assert_true(!strncmp(a, "1x8 ", 4) && !strncmp(c, "1x8 ", 4));
	/* a name that fits, or whose plain cut is already distinct, is as before */
	assert_string_equal(b, "1x8 p4d.24xlarge");
	assert_true(!strncmp(d, "1x4 coreweave-", 14) && d[strlen(d) - 1] == '~');
	/* no line is wider than asked */
	{
		const char *l = out;
		while (*l) {
			size_t n = strcspn(l, "\n");
			assert_true(n <= 42);
			l += n + (l[n] != 0);
		}
	}
	free(out);
}

/* Identical cells stay identical (no cut differs where the text does not). */
static void test_cut_same_text(void **state)
{
	static const char *const cells[] = {
		"1x8 coreweave-hgx-a100-80gb-8x",
		"1x8 coreweave-hgx-a100-80gb-8x",
	};
	char a[64], b[64];
	char *out = print_table(cells, 2, 42);
	(void)state;
	cell_of(out, 0, a, sizeof(a));
	cell_of(out, 1, b, sizeof(b));
	assert_string_equal(a, b);
	assert_true(a[strlen(a) - 1] == '~');
	free(out);
}

/* A cut keeps a short last word (a MIG slice): the head gives way, not the variant. */
static void test_cut_keeps_last_word(void **state)
{
	static const char *const cells[] = {
		"1x1 a100-pcie-40gb 1g.5gb",
		"1x1 t4",
	};
	char a[64], b[64];
	char *out = print_table(cells, 2, 42);
	size_t n;
	(void)state;
	cell_of(out, 0, a, sizeof(a));
	cell_of(out, 1, b, sizeof(b));
	n = strlen(a);
	assert_true(n < strlen(cells[0]));
	assert_true(n > 7 && !strcmp(a + n - 7, " 1g.5gb"));
	assert_non_null(strchr(a, '~'));
	assert_true(!strncmp(a, "1x1 a100", 8));
	assert_string_equal(b, "1x1 t4");
	free(out);
}

/* Prose is cut plainly at its end: its last word means nothing alone. */
static void test_cut_prose_plain(void **state)
{
	static const char *const cells[] = {
		"Xid 79 on 0000:c1:00 x1: GPU has fallen off the bus.",
		"ok",
	};
	char a[80];
	char *out = print_table(cells, 2, 42);
	size_t n;
	(void)state;
	cell_of(out, 0, a, sizeof(a));
	n = strlen(a);
	assert_true(n > 1 && a[n - 1] == '~');
	assert_true(!strncmp(a, "Xid 79 on 0000", 14));
	assert_null(strstr(a, "bus."));
	free(out);
}

/* table_columns() adds each name, in order, with the one alignment. */
static void test_columns_at_once(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct table *t = table_new();
	(void)state;
	assert_non_null(f);
	table_columns(t, ALIGN_RIGHT, "field", "value", "unit", NULL);
	table_row(t);
	table_cell(t, "a");
	table_cell(t, "12345");
	table_cell(t, "W");
	table_print(t, f, 80);
	table_print_csv(t, f);
	table_free(t);
	fclose(f);
	assert_string_equal(buf,
			    "field  value  unit\n"
			    "-----  -----  ----\n"
			    "    a  12345     W\n"
			    "field,value,unit\n"
			    "a,12345,W\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut_keeps_rows_apart), cmocka_unit_test(test_cut_same_text),
		cmocka_unit_test(test_cut_keeps_last_word),  cmocka_unit_test(test_cut_prose_plain),
		cmocka_unit_test(test_columns_at_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
