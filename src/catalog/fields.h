/*
 * The fields of a catalog row in `catalog --json` and `catalog show
 * --json`, declared once with the columns of each file (catalog/schema.c):
 * one schema a table, "catalog-gpus" ... "catalog-parts", whose fields are
 * the file's columns in order and then "origin" (file:line); gpus and
 * servers then add "lifecycle" and "price_stale", computed against a
 * month (catalog/life.c).  The field lists of docs/catalog.md are written
 * from them.
 *
 * Ownership: a row filled by catalog_row_report() borrows the row's text,
 * which lives as long as the catalog.
 */
#ifndef GPUSCOPE_CATALOG_FIELDS_H
#define GPUSCOPE_CATALOG_FIELDS_H

#include "catalog/catalog.h"
#include "report/field.h"

/* The schema of a row of table t; static, never NULL for t < CAT_NTABLES. */
const struct report_schema *catalog_row_schema(enum cat_table t);
/*
 * Fills out (a row of catalog_row_schema(t)) from a row of table t of c;
 * now_month (cat_month_now()) is the month the lifecycle and the price's
 * age are read against.
 */
void catalog_row_report(const struct catalog *c, enum cat_table t, const void *row, int now_month,
			struct report_row *out);

#endif
