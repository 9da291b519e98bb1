/*
 * One self-contained HTML page per report (`plan --report`, `tco --report`):
 * headings, paragraphs, preformatted arithmetic, tables and inline SVG charts
 * (report/svg.h), styled by inline CSS.  The page loads nothing: no network,
 * no external scripts, stylesheets or fonts, so it opens the same offline
 * and can be mailed as one file.
 *
 * Usage:
 *	struct html_doc *d = html_new("gpuscope tco: DGX H100");
 *	html_heading(d, 1, "Total cost of ownership");
 *	html_paragraph(d, "...");
 *	html_chart(d, chart, &err);
 *	html_table_begin(d, "terms", NULL);
 *	html_table_head(d, cols, 3);
 *	html_table_row(d, cells, 3);
 *	html_table_end(d);
 *	html_write_file(d, "report.html", &err);
 *	html_free(d);
 *
 * Every text argument is escaped (& < > " ').  Strings are copied.
 */
#ifndef GPUSCOPE_REPORT_HTML_H
#define GPUSCOPE_REPORT_HTML_H

#include <stddef.h>

#include "report/svg.h"
#include "util/error.h"

struct html_doc;

/* A new page with a <title>; free with html_free(). */
struct html_doc *html_new(const char *title);
void html_free(struct html_doc *d);

/* <hN> with N in 1..4 (clamped). */
void html_heading(struct html_doc *d, int level, const char *text);
void html_paragraph(struct html_doc *d, const char *text);
/* A note in smaller, muted type (sources, assumptions). */
void html_note(struct html_doc *d, const char *text);
/* <pre> block, for arithmetic shown line by line. */
void html_pre(struct html_doc *d, const char *text);

/*
 * Tables: begin (id and caption may be NULL), one head row, body rows, end.
 * Cells whose text starts with a digit, '-', '+', '$' or '.' are right
 * aligned.  NULL cells print as "-".
 */
void html_table_begin(struct html_doc *d, const char *id, const char *caption);
void html_table_head(struct html_doc *d, const char *const *cells, size_t n);
void html_table_row(struct html_doc *d, const char *const *cells, size_t n);
void html_table_end(struct html_doc *d);

/*
 * Renders the chart into the page inside a <figure> (caption = the chart's
 * title).  Returns 0, or -1 with *err set when the chart cannot be drawn
 * (nothing is added then).
 */
int html_chart(struct html_doc *d, const struct svg_chart *c, struct diag *err);

/* The whole page as a string; the caller frees it. */
char *html_render(const struct html_doc *d);

/*
 * Writes the page to path without ever leaving a partial file: it writes
 * PATH.tmp in the same directory, flushes and closes it, then renames it
 * over path; on any failure the .tmp file is removed and path is untouched.
 * Returns 0, or -1 with *err naming the file and the system's reason.
 */
int html_write_file(const struct html_doc *d, const char *path, struct diag *err);

/*
 * Escapes text for HTML or XML content and attribute values (& < > " ').
 * Returns a new string the caller frees.  NULL gives "".
 */
char *html_escape(const char *text);

#endif
