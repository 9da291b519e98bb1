#include "report/table.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/csv.h"
#include "util/xalloc.h"

struct table {
	size_t ncols, cols_cap;
	char **names;
	enum table_align *align;
	size_t nrows, rows_cap;
	char ***cells; /* cells[row][col] */
	size_t cur_col;
};

struct table *table_new(void)
{
	return xcalloc(1, sizeof(struct table));
}

void table_free(struct table *t)
{
	size_t r, c;
	if (!t)
		return;
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++)
			free(t->cells[r][c]);
		free(t->cells[r]);
	}
	for (c = 0; c < t->ncols; c++)
		free(t->names[c]);
	free(t->cells);
	free(t->names);
	free(t->align);
	free(t);
}

void table_column(struct table *t, const char *name, enum table_align align)
{
	size_t cap = t->cols_cap;
	if (t->nrows)
		BUG("column '%s' added after rows", name);
	XGROW(t->names, t->cols_cap, t->ncols);
	XGROW(t->align, cap, t->ncols);
	t->names[t->ncols] = xstrdup(name);
	t->align[t->ncols] = align;
	t->ncols++;
}

void table_columns(struct table *t, enum table_align align, ...)
{
	const char *name;
	va_list ap;
	va_start(ap, align);
	while ((name = va_arg(ap, const char *)))
		table_column(t, name, align);
	va_end(ap);
}

void table_row(struct table *t)
{
	XGROW(t->cells, t->rows_cap, t->nrows);
	t->cells[t->nrows++] = xcalloc(t->ncols, sizeof(char *));
	t->cur_col = 0;
}

void table_cell(struct table *t, const char *text)
{
	if (!t->nrows || t->cur_col >= t->ncols)
		BUG("cell outside the table (%zu columns)", t->ncols);
	t->cells[t->nrows - 1][t->cur_col++] = xstrdup(text ? text : "-");
}

void table_cellf(struct table *t, const char *fmt, ...)
{
	va_list ap;
	char buf[512];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	table_cell(t, buf);
}

size_t table_rows(const struct table *t)
{
	return t->nrows;
}

/* Display width of UTF-8 text: counts code points, not bytes. */
static size_t text_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* Byte offset of the code point `cps` code points into s (its end if shorter). */
static size_t cp_offset(const char *s, size_t cps)
{
	const char *p = s;
	while (*p && cps--) {
		p++;
		while (((unsigned char)*p & 0xc0) == 0x80)
			p++;
	}
	return (size_t)(p - s);
}

/*
 * A cell cut to `width` code points: its head and '~', or, with skip > 0,
 * its first `head` code points, '~', and what follows code point `skip`
 * (cut again with '~' if still too long).  The second form shows where two
 * long cells differ ("1x8 ~x-a100-80g~", "1x8 ~x-h200-8x").  The last cell
 * of a line (last) is not padded.
 */
static void put_cut(FILE *out, const char *s, size_t width, size_t head, size_t skip, int last)
{
	size_t rest;
	if (!width)
		return;
	if (!skip || head + 2 > width) {
		fwrite(s, 1, cp_offset(s, width - 1), out);
		fputc('~', out);
		return;
	}
	fwrite(s, 1, cp_offset(s, head), out);
	fputc('~', out);
	s += cp_offset(s, skip);
	rest = width - head - 1;
	if (text_width(s) <= rest) {
		size_t pad = last ? 0 : rest - text_width(s);
		fputs(s, out);
		while (pad--)
			fputc(' ', out);
		return;
	}
	fwrite(s, 1, cp_offset(s, rest - 1), out);
	fputc('~', out);
}

/* A cell padded to width; the last cell of a line (last) is not padded on its right. */
static void put_cell(FILE *out, const char *s, size_t width, enum table_align a, size_t head, size_t skip,
		     int last)
{
	size_t w = text_width(s), i, pad;
	if (w > width) {
		put_cut(out, s, width, head, skip, last);
		return;
	}
	pad = width - w;
	if (a == ALIGN_RIGHT)
		for (i = 0; i < pad; i++)
			fputc(' ', out);
	fputs(s, out);
	if (a == ALIGN_LEFT && !last)
		for (i = 0; i < pad; i++)
			fputc(' ', out);
}

/* Cells of a row up to its last non-empty one: empty cells at the end are left out, so no line ends in blanks. */
static size_t row_end(const char *const *cells, size_t n)
{
	while (n > 1 && cells[n - 1] && !*cells[n - 1])
		n--;
	return n;
}

/* Code points two strings share at their start. */
static size_t common_prefix(const char *a, const char *b)
{
	size_t n = 0;
	while (*a && *a == *b) {
		n += ((unsigned char)*a & 0xc0) != 0x80;
		a++;
		b++;
	}
	return n;
}

/*
 * Where cutting column c to `width` makes two different cells read the
 * same, those cells skip the middle they share: they keep their head (up
 * to the first space, at most a third of the width) and go on from just
 * before the first code point where they differ.  Fills head[] and skip[]
 * per row (skip 0: a plain cut).
 */
static void plan_cuts(const struct table *t, size_t c, size_t width, size_t *head, size_t *skip)
{
	size_t r, q;
	for (r = 0; r < t->nrows; r++)
		head[r] = skip[r] = 0;
	if (width < 8)
		return;
	for (r = 0; r < t->nrows; r++) {
		const char *a = t->cells[r][c] ? t->cells[r][c] : "-";
		if (text_width(a) <= width)
			continue;
		for (q = 0; q < t->nrows; q++) {
			const char *b = t->cells[q][c] ? t->cells[q][c] : "-";
			size_t same = common_prefix(a, b), h;
			const char *sp;
			/* a plain cut keeps width - 1 code points: they read alike when those match */
			if (q == r || !strcmp(a, b) || same < width - 1 || text_width(b) <= width)
				continue;
			sp = strchr(a, ' ');
			h = sp ? text_width(a) - text_width(sp) + 1 : width / 3;
			if (h > width / 3)
				h = width / 3;
			if (same < h + 3 || same - 2 <= skip[r])
				continue;
			head[r] = h;
			skip[r] = same - 2;
		}
		if (!skip[r]) {
			/*
			 * In a name of a few words, a short last word says which
			 * variant (a MIG slice, a fabric): it stays.  Prose (a
			 * finding, a hint) is cut plainly: its last word says nothing alone.
			 */
			const char *sp = strrchr(a, ' ');
			size_t tl = sp && sp != a ? text_width(sp) : 0, words = 1;
			const char *p;
			for (p = a; *p; p++)
				words += *p == ' ';
			if (words <= 4 && tl > 1 && tl <= width / 2 && width >= tl + 9) {
				head[r] = width - 1 - tl;
				skip[r] = text_width(a) - tl;
			}
		}
	}
}

void table_print(const struct table *t, FILE *out, unsigned width)
{
	size_t *w = xcalloc(t->ncols ? t->ncols : 1, sizeof(size_t)), *head, *skip;
	size_t r, c, total, hend;
	if (!width) {
		const char *cols = getenv("COLUMNS");
		width = cols && atoi(cols) >= 40 ? (unsigned)atoi(cols) : 80;
	}
	for (c = 0; c < t->ncols; c++) {
		w[c] = text_width(t->names[c]);
		for (r = 0; r < t->nrows; r++) {
			size_t x = text_width(t->cells[r][c] ? t->cells[r][c] : "-");
			if (x > w[c])
				w[c] = x;
		}
	}
	/* shrink the widest column until the row fits (never below 6) */
	for (;;) {
		size_t widest = 0;
		total = 0;
		for (c = 0; c < t->ncols; c++) {
			total += w[c] + (c ? 2 : 0);
			if (w[c] > w[widest])
				widest = c;
		}
		if (total <= width || w[widest] <= 6)
			break;
		w[widest]--;
	}
	head = xcalloc(t->ncols * (t->nrows + 1), sizeof(size_t));
	skip = xcalloc(t->ncols * (t->nrows + 1), sizeof(size_t));
	for (c = 0; c < t->ncols; c++)
		plan_cuts(t, c, w[c], head + c * (t->nrows + 1), skip + c * (t->nrows + 1));
	hend = row_end((const char *const *)t->names, t->ncols);
	for (c = 0; c < hend; c++) {
		if (c)
			fputs("  ", out);
		put_cell(out, t->names[c], w[c], t->align[c], 0, 0, c + 1 == hend);
	}
	fputc('\n', out);
	for (c = 0; c < t->ncols; c++) {
		size_t i;
		if (c)
			fputs("  ", out);
		for (i = 0; i < w[c]; i++)
			fputc('-', out);
	}
	fputc('\n', out);
	for (r = 0; r < t->nrows; r++) {
		size_t end = row_end((const char *const *)t->cells[r], t->ncols);
		for (c = 0; c < end; c++) {
			if (c)
				fputs("  ", out);
			put_cell(out, t->cells[r][c] ? t->cells[r][c] : "-", w[c], t->align[c],
				 head[c * (t->nrows + 1) + r], skip[c * (t->nrows + 1) + r], c + 1 == end);
		}
		fputc('\n', out);
	}
	free(head);
	free(skip);
	free(w);
}

void table_print_csv(const struct table *t, FILE *out)
{
	size_t r, c;
	for (c = 0; c < t->ncols; c++) {
		if (c)
			fputc(',', out);
		csv_write_cell(out, t->names[c], CSV_CELL_TEXT);
	}
	fputc('\n', out);
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r][c];
			if (c)
				fputc(',', out);
			/*
			 * "-" means absent in the human table; CSV leaves the cell empty.
			 * A cell that is a number is one the program formatted; any other
			 * cell is text and loses its formula start (csv_write_cell()).
			 */
			csv_write_cell(out, s && strcmp(s, "-") ? s : "", CSV_CELL_AUTO);
		}
		fputc('\n', out);
	}
}

int report_json_print(json_t *v)
{
	int rc = json_dumpf(v, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	fputc('\n', stdout);
	return rc;
}

void table_wrap(FILE *f, const char *lead, const char *text, int indent, int width)
{
	int col = fprintf(f, "%s", lead), first = 1;
	const char *p = text;
	while (*p == ' ')
		p++;
	while (*p) {
		const char *e = p;
		int wlen;
		while (*e && *e != ' ')
			e++;
		wlen = (int)(e - p);
		if (!first && col + 1 + wlen > width) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", wlen, p);
		col += wlen;
		first = 0;
		p = e;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}
