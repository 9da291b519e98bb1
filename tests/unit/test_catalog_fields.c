/*
 * The catalog's column tables as field tables (catalog/fields.h), the
 * filters and lookups that work from them (catalog/query.c), and the
 * listings written from them (view/catalog.h).
 */
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

#include "catalog/catalog.h"
#include "catalog/fields.h"
#include "report/field.h"
#include "view/catalog.h"

static struct catalog *embedded(void)
{
	struct catalog *c = NULL;
	struct diag err;
	diag_clear(&err);
	assert_int_equal(catalog_load(&c, NULL, &err), 0);
	return c;
}

/* Every column is a field with the same name, type and unit, then "origin"; names unique. */
static void test_row_schemas(void **state)
{
	int t;
	size_t i, j;
	char name[64];
	(void)state;
	for (t = 0; t < CAT_NTABLES; t++) {
		const struct cat_schema *cs = catalog_schema(t);
		const struct report_schema *rs = catalog_row_schema(t);
		snprintf(name, sizeof(name), "catalog-%s", catalog_table_name(t));
		assert_string_equal(rs->name, name);
		/* gpus and servers add lifecycle and price_stale after origin */
		assert_int_equal(rs->nfields, cs->ncols + 1 + (t == CAT_GPUS || t == CAT_SERVERS ? 2 : 0));
		for (i = 0; i < cs->ncols; i++) {
			assert_string_equal(rs->fields[i].name, cs->cols[i].name);
			assert_int_equal(rs->fields[i].type,
					 cs->cols[i].type == CAT_COL_TEXT ? REPORT_TEXT : REPORT_NUM);
			assert_true(rs->fields[i].unit == cs->cols[i].unit);
			assert_true(cs->cols[i].help && *cs->cols[i].help);
			assert_true(catalog_column(t, cs->cols[i].name) == &cs->cols[i]);
			for (j = 0; j < i; j++)
				assert_string_not_equal(cs->cols[j].name, cs->cols[i].name);
		}
		assert_string_equal(rs->fields[cs->ncols].name, "origin");
		assert_int_equal(catalog_table_from_name(catalog_table_name(t)), t);
	}
	assert_null(catalog_column(CAT_GPUS, "no_such_column"));
}

static void test_row_json(void **state)
{
	struct catalog *c = embedded();
	const struct cat_gpu *g = catalog_get(c, CAT_GPUS, "h100-sxm5-80gb");
	struct report_row *row = report_row_new(catalog_row_schema(CAT_GPUS));
	json_t *o;
	char origin[256];
	(void)state;
	assert_non_null(g);
	catalog_row_report(c, CAT_GPUS, g, 2026 * 12 + 10, row);
	o = report_row_json(row);
	assert_string_equal(json_string_value(json_object_get(o, "key")), "h100-sxm5-80gb");
	assert_true(json_real_value(json_object_get(o, "memory_gib")) == g->memory_gib);
	/* an empty cell is null, never 0 */
	assert_true(isnan(g->fp4_tflops));
	assert_true(json_is_null(json_object_get(o, "fp4_tflops")));
	snprintf(origin, sizeof(origin), "%s:%d", g->row.origin, g->row.line);
	assert_string_equal(json_string_value(json_object_get(o, "origin")), origin);
	json_decref(o);
	report_row_free(row);
	catalog_free(c);
}

static void test_filters_and_lookup(void **state)
{
	struct catalog *c = embedded();
	struct cat_filter any = {NULL, NULL, NAN, NULL}, f = any;
	const void *row;
	enum cat_table t = CAT_GPUS;
	char why[1024];
	(void)state;
	f.vendor = "NVIDIA";
	assert_true(catalog_row_matches(CAT_GPUS, catalog_get(c, CAT_GPUS, "h100-sxm5-80gb"), &f));
	assert_false(catalog_row_matches(CAT_GPUS, catalog_get(c, CAT_GPUS, "mi300x-192gb"), &f));
	/* a filter a table has no column for does not apply to it */
	assert_true(catalog_row_matches(CAT_LINKS, catalog_row(c, CAT_LINKS, 0), &f));
	f = any;
	f.min_memory_gib = 100;
	assert_false(catalog_row_matches(CAT_GPUS, catalog_get(c, CAT_GPUS, "h100-sxm5-80gb"), &f));
	assert_true(catalog_row_matches(CAT_SERVERS, catalog_get(c, CAT_SERVERS, "dgx-h100"), &f));
	f = any;
	f.gpu_key = "a100-sxm4-80gb";
	assert_false(catalog_row_matches(CAT_SERVERS, catalog_get(c, CAT_SERVERS, "dgx-h100"), &f));

	row = catalog_resolve_any(c, "dgx-h100", &t, why, sizeof(why));
	assert_true(row == catalog_get(c, CAT_SERVERS, "dgx-h100") && t == CAT_SERVERS);
	assert_null(catalog_resolve_any(c, "a100", &t, why, sizeof(why)));
	assert_non_null(strstr(why, "ambiguous"));
	assert_null(catalog_resolve_any(c, "h1000", &t, why, sizeof(why)));
	assert_non_null(strstr(why, "unknown gpu"));

	assert_int_equal(cat_precision_from_name("fp8"), 5);
	assert_string_equal(cat_precision_name(cat_precision_from_name("int8")), "int8");
	assert_int_equal(cat_precision_from_name("fp7"), -1);
	assert_null(cat_precision_name(8));
	catalog_free(c);
}

/* The first line of table t listed in fmt, with every row. */
static void first_line(const struct catalog *c, enum cat_table t, enum output_format fmt, const char *precision,
		       char *line, size_t len)
{
	size_t i, n = catalog_count(c, t);
	const void **rows = calloc(n ? n : 1, sizeof(*rows));
	FILE *f = tmpfile();
	assert_non_null(rows);
	assert_non_null(f);
	for (i = 0; i < n; i++)
		rows[i] = catalog_row(c, t, i);
	view_catalog_list(f, c, t, rows, n, fmt, precision, 2026 * 12 + 10);
	rewind(f);
	assert_non_null(fgets(line, (int)len, f));
	fclose(f);
	free(rows);
}

/* Every table's layout names columns its schema has: each lists in every form. */
static void test_listings(void **state)
{
	static const char *const heads[CAT_NTABLES] = {"gpu ",      "link ", "server ", "cpu ",
						       "instance ", "key ",  "part ",   "board "};
	struct catalog *c = embedded();
	char line[4096];
	int t;
	(void)state;
	for (t = 0; t < CAT_NTABLES; t++) {
		first_line(c, t, FORMAT_HUMAN, NULL, line, sizeof(line));
		assert_true(!strncmp(line, heads[t], strlen(heads[t])));
		first_line(c, t, FORMAT_CSV, NULL, line, sizeof(line));
		assert_true(!strncmp(line, "key,", 4));
		first_line(c, t, FORMAT_JSON, NULL, line, sizeof(line));
		assert_string_equal(line, "[\n");
	}
	/* --precision puts its one column where bf16 and fp8 were */
	first_line(c, CAT_GPUS, FORMAT_HUMAN, "int8", line, sizeof(line));
	assert_non_null(strstr(line, "int8"));
	assert_null(strstr(line, "bf16"));
	assert_null(strstr(line, "fp8"));
	assert_non_null(strstr(line, "TDP W"));
	catalog_free(c);
}

/* A server row without a GPU count lists its GPU's key, not "nanx KEY". */
static void test_listing_without_count(void **state)
{
	static const char csv[] = "key,name,gpu,power_kw,source,as_of\nbox,Box,a100-sxm4-80gb,6.5,lab,2026-01\n";
	struct catalog *c = catalog_new();
	struct diag err;
	char line[4096], row[4096];
	FILE *f = tmpfile();
	const void *rows[1];
	(void)state;
	diag_clear(&err);
	assert_int_equal(catalog_load_buffer(c, CAT_SERVERS, "servers.csv", csv, sizeof(csv) - 1, &err), 1);
	rows[0] = catalog_row(c, CAT_SERVERS, 0);
	view_catalog_list(f, c, CAT_SERVERS, rows, 1, FORMAT_HUMAN, NULL, 2026 * 12 + 10);
	rewind(f);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_non_null(fgets(line, sizeof(line), f));
	assert_non_null(fgets(row, sizeof(row), f));
	fclose(f);
	assert_non_null(strstr(row, " a100-sxm4-80gb "));
	assert_null(strstr(row, "nan"));
	catalog_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_row_schemas),           cmocka_unit_test(test_row_json),
		cmocka_unit_test(test_filters_and_lookup),    cmocka_unit_test(test_listings),
		cmocka_unit_test(test_listing_without_count),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
