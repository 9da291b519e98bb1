/*
 * Self-contained HTML report pages.  The page carries a Content Security
 * Policy that forbids every fetch (default-src 'none'), so a report cannot
 * load anything even if a future change tried to: what it shows is all in
 * the file.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/html.h"
#include "report/outfile.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

struct html_doc {
	char *title;
	struct strbuf body;
};

static void put(struct html_doc *d, const char *s)
{
	strbuf_addstr(&d->body, s);
}

static void put_esc(struct html_doc *d, const char *s)
{
	char *e = html_escape(s);
	put(d, e);
	free(e);
}

char *html_escape(const char *text)
{
	size_t n = 0, i = 0;
	const char *s;
	char *out;
	if (!text)
		return xstrdup("");
	/* the bytes of each replacement below: "&amp;" and "&#39;" 5, "&lt;" and "&gt;" 4, "&quot;" 6 */
	for (s = text; *s; s++)
		n += *s == '&' || *s == '\'' ? 5 : *s == '<' || *s == '>' ? 4 : *s == '"' ? 6 : 1;
	out = xmalloc(n + 1);
	for (s = text; *s; s++) {
		const char *r = NULL;
		switch (*s) {
		case '&':
			r = "&amp;";
			break;
		case '<':
			r = "&lt;";
			break;
		case '>':
			r = "&gt;";
			break;
		case '"':
			r = "&quot;";
			break;
		case '\'':
			r = "&#39;";
			break;
		}
		if (r) {
			memcpy(out + i, r, strlen(r));
			i += strlen(r);
		} else {
			out[i++] = *s;
		}
	}
	out[i] = 0;
	return out;
}

struct html_doc *html_new(const char *title)
{
	struct html_doc *d = xcalloc(1, sizeof(*d));
	d->title = xstrdup(title ? title : "gpuscope report");
	put(d, "");
	return d;
}

void html_free(struct html_doc *d)
{
	if (!d)
		return;
	free(d->title);
	strbuf_release(&d->body);
	free(d);
}

void html_heading(struct html_doc *d, int level, const char *text)
{
	char tag[8];
	if (level < 1)
		level = 1;
	if (level > 4)
		level = 4;
	snprintf(tag, sizeof(tag), "h%d", level);
	put(d, "<");
	put(d, tag);
	put(d, ">");
	put_esc(d, text);
	put(d, "</");
	put(d, tag);
	put(d, ">\n");
}

void html_paragraph(struct html_doc *d, const char *text)
{
	put(d, "<p>");
	put_esc(d, text);
	put(d, "</p>\n");
}

void html_note(struct html_doc *d, const char *text)
{
	put(d, "<p class=\"note\">");
	put_esc(d, text);
	put(d, "</p>\n");
}

void html_pre(struct html_doc *d, const char *text)
{
	put(d, "<pre>");
	put_esc(d, text);
	put(d, "</pre>\n");
}

void html_table_begin(struct html_doc *d, const char *id, const char *caption)
{
	/* the wrapper scrolls a table too wide for the page rather than the page itself */
	put(d, "<div class=\"table\"><table");
	if (id) {
		put(d, " id=\"");
		put_esc(d, id);
		put(d, "\"");
	}
	put(d, ">\n");
	if (caption) {
		put(d, "<caption>");
		put_esc(d, caption);
		put(d, "</caption>\n");
	}
}

void html_table_head(struct html_doc *d, const char *const *cells, size_t n)
{
	size_t i;
	put(d, "<thead><tr>");
	for (i = 0; i < n; i++) {
		put(d, "<th>");
		put_esc(d, cells[i] ? cells[i] : "");
		put(d, "</th>");
	}
	put(d, "</tr></thead>\n<tbody>\n");
}

static int numeric_look(const char *s)
{
	return s && ((*s >= '0' && *s <= '9') || *s == '-' || *s == '+' || *s == '$' || *s == '.');
}

void html_table_row(struct html_doc *d, const char *const *cells, size_t n)
{
	size_t i;
	put(d, "<tr>");
	for (i = 0; i < n; i++) {
		put(d, numeric_look(cells[i]) ? "<td class=\"num\">" : "<td>");
		put_esc(d, cells[i] ? cells[i] : "-");
		put(d, "</td>");
	}
	put(d, "</tr>\n");
}

void html_table_end(struct html_doc *d)
{
	put(d, "</tbody></table></div>\n");
}

int html_chart(struct html_doc *d, const struct svg_chart *c, struct diag *err)
{
	char *svg = svg_render(c, err);
	if (!svg)
		return -1;
	put(d, "<figure class=\"chart\">\n");
	put(d, svg);
	put(d, "</figure>\n");
	free(svg);
	return 0;
}

/* Kept short and plain; print-friendly; dark text on white. */
static const char css[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,"
	"sans-serif;color:#1d2329;background:#fff;margin:0}\n"
	"main{max-width:1180px;margin:0 auto;padding:16px 24px 40px}\n"
	"h1{font-size:24px;margin:12px 0 4px}h2{font-size:19px;margin:28px 0 6px;"
	"border-bottom:1px solid #dde3e8;padding-bottom:4px}h3{font-size:16px;margin:18px 0 4px}\n"
	"p.note{color:#5b6670;font-size:12.5px}\n"
	"pre{background:#f5f7f9;border:1px solid #e3e8ec;padding:10px 12px;overflow-x:auto;"
	"font:12.5px/1.5 ui-monospace,'DejaVu Sans Mono',Menlo,Consolas,monospace}\n"
	"div.table{max-width:100%;overflow-x:auto;margin:8px 0 16px}\n"
	"table{border-collapse:collapse;font-size:13px}\n"
	"caption{text-align:left;font-weight:600;padding:4px 0}\n"
	"th,td{padding:4px 8px;border-bottom:1px solid #e3e8ec;text-align:left;vertical-align:top}\n"
	"th{background:#f5f7f9;font-weight:600}td.num{text-align:right;"
	"font-variant-numeric:tabular-nums}\n"
	"figure{margin:12px 0 20px}\n"
	"svg.chart{max-width:100%;height:auto;font:12px system-ui,sans-serif;background:#fff}\n"
	"svg.chart text{fill:#1d2329}svg.chart .chart-title{font-size:14px;font-weight:600}\n"
	"svg.chart .tick,svg.chart .bar-total{fill:#5b6670;font-size:11px}\n"
	"svg.chart .axis{stroke:#6b7680;stroke-width:1}\n"
	"svg.chart .grid{stroke:#e6eaee;stroke-width:1}\n"
	"svg.chart .series{stroke-width:2}\n"
	"svg.chart .front{stroke:#1d2329;stroke-width:1.5;stroke-dasharray:5 3}\n"
	"svg.chart circle.front{stroke:#1d2329;stroke-width:1.5}\n"
	"svg.chart .mark .guide{stroke:#c0392b;stroke-dasharray:3 3}\n"
	"svg.chart .mark .ring{stroke:#c0392b;stroke-width:2}\n"
	"svg.chart .mark-label{fill:#c0392b;font-weight:600;paint-order:stroke;stroke:#fff;"
	"stroke-width:4px;stroke-linejoin:round}\n"
	"svg.chart rect.segment{stroke:#fff;stroke-width:0.5}\n"
	"footer{color:#8a949c;font-size:12px;margin-top:32px}\n"
	"@media print{main{max-width:none}}\n";

char *html_render(const struct html_doc *d)
{
	char *title = html_escape(d->title);
	char *page = xasprintf(
		"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		"style-src 'unsafe-inline'; img-src data:\">\n"
		"<meta name=\"generator\" content=\"gpuscope %s\">\n"
		"<title>%s</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n%s"
		"<footer>Generated by gpuscope %s. This page is self-contained: it loads nothing "
		"from the network.</footer>\n</main>\n</body>\n</html>\n",
		GPUSCOPE_VERSION, title, css, strbuf_str(&d->body), GPUSCOPE_VERSION);
	free(title);
	return page;
}

int html_write_file(const struct html_doc *d, const char *path, struct diag *err)
{
	struct outfile o;
	char *page;
	size_t n;
	if (outfile_open(&o, path, err))
		return -1;
	page = html_render(d);
	n = strlen(page);
	if (fwrite(page, 1, n, o.f) != n) {
		diag_set(err, path, 0, 0, "report", "cannot write '%s': %s", path, strerror(errno));
		outfile_abort(&o);
		free(page);
		return -1;
	}
	free(page);
	return outfile_commit(&o, err);
}
