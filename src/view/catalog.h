/*
 * What `gpuscope catalog` prints: a table's rows as a human table (the
 * columns a person compares, per table), as CSV or JSON with every column
 * (catalog/schema.c, catalog/fields.h), and one row of any table field by
 * field.  Each function writes to `out` and keeps nothing; none exits.
 */
#ifndef GPUSCOPE_VIEW_CATALOG_H
#define GPUSCOPE_VIEW_CATALOG_H

#include <stddef.h>
#include <stdio.h>

#include "catalog/catalog.h"
#include "report/table.h"

/*
 * The rows of table t of cat (already filtered), in fmt.  precision: show
 * that precision's peak (cat_gpu_peak_tflops()) in the gpus table instead
 * of bf16 and fp8; NULL for those two.  No rows prints a line saying so.
 * now_month (cat_month_now()): the month the life column and the JSON's
 * lifecycle and price_stale are read against.
 */
void view_catalog_list(FILE *out, const struct catalog *cat, enum cat_table t, const void *const *rows, size_t n,
		       enum output_format fmt, const char *precision, int now_month);
/*
 * Every field of one row of table t with its unit and origin (JSON adds the
 * table's name); gpus and servers rows then their lifecycle and, when
 * stale, the price's age against now_month.
 */
void view_catalog_show(FILE *out, const struct catalog *cat, enum cat_table t, const void *row,
		       enum output_format fmt, int now_month);

/*
 * The note under a table that says what the lifecycle marks in life
 * (CAT_LIFE_*, or'ed over its rows) mean: lead, then cat_life_legend(),
 * wrapped at 80 columns.  Nothing when life is 0.
 */
void view_catalog_life_note(FILE *out, const char *lead, unsigned life, const char *open, const char *close);

#endif
