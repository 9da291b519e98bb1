/*
 * Tables for reporting commands: one description of rows and columns that
 * prints as an aligned human table (fitted to a terminal width) or as CSV.
 * JSON output is built with jansson by each command, whose field names are
 * part of the interface; see docs/.
 */
#ifndef GPUSCOPE_REPORT_TABLE_H
#define GPUSCOPE_REPORT_TABLE_H

#include <stdio.h>
#include "report/fmt.h"
#include "util/error.h"

enum table_align {
	ALIGN_LEFT,
	ALIGN_RIGHT
};

enum output_format {
	FORMAT_HUMAN,
	FORMAT_JSON,
	FORMAT_CSV
};

struct table;

/* Returns a new, empty table; free with table_free(). */
struct table *table_new(void);
void table_free(struct table *t);
/* Adds a column; `name` is copied.  Columns are added before rows. */
void table_column(struct table *t, const char *name, enum table_align align);
/* Adds the columns named by the arguments, up to a NULL, all aligned alike. */
void table_columns(struct table *t, enum table_align align, ...) __attribute__((sentinel));
/* Starts a new row; cells are then added left to right. */
void table_row(struct table *t);
/* Adds the next cell of the current row (text copied); NULL prints as "-". */
void table_cell(struct table *t, const char *text);
void table_cellf(struct table *t, const char *fmt, ...) GS_PRINTF(2, 3);
size_t table_rows(const struct table *t);

/*
 * Human form: header, a rule, rows; columns wider than fits in `width`
 * (0: 80, or $COLUMNS) are cut with '~', widest first.  Cells that the cut
 * would make read alike skip the middle they share, so they stay apart.
 */
void table_print(const struct table *t, FILE *out, unsigned width);
/*
 * RFC 4180 CSV with a header line; text cells that would start a
 * spreadsheet formula are written as "'TEXT" (util/csv.h).
 */
void table_print_csv(const struct table *t, FILE *out);

/* Writes a jansson value to stdout, indented, with a final newline. */
struct json_t;
int report_json_print(struct json_t *v);

/*
 * Prints text to f wrapped at `width` columns: the first line after `lead`,
 * the others indented by `indent` spaces; words are never split.
 */
void table_wrap(FILE *f, const char *lead, const char *text, int indent, int width);

#endif
