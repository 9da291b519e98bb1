/*
 * The report library (report/svg.h, report/html.h) that tco and plan draw
 * with: the charts carry every data point in attributes, text is escaped,
 * the page loads nothing, and a report file is never left half written.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/html.h"
#include "report/svg.h"

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	const char *p = hay;
	while ((p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

static void assert_has(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("output lacks '%s'", needle);
}

static void test_line_chart(void **state)
{
	struct svg_chart *c = svg_chart_new(SVG_LINE, "cum", "Cumulative cost");
	struct diag err;
	char *s;
	int a, b, m;
	(void)state;
	svg_axis(c, 'x', "months", "month", SVG_SCALE_LINEAR);
	svg_axis(c, 'y', "cost", "USD", SVG_SCALE_LINEAR);
	a = svg_series(c, "owned");
	b = svg_series(c, "rented");
	assert_int_equal(a, 0);
	assert_int_equal(b, 1);
	for (m = 0; m <= 24; m++) {
		assert_true(svg_point(c, a, m, 460000 + 4544.0 * m, NULL, 0) >= 0);
		assert_true(svg_point(c, b, m, 28144.704 * m, NULL, 0) >= 0);
	}
	assert_int_equal(svg_mark(c, 19.5, 548608, "break-even"), 0);
	assert_int_equal(svg_chart_points(c), 50);
	s = svg_render(c, &err);
	assert_non_null(s);
	assert_has(s, "class=\"chart chart-line\" id=\"cum\"");
	assert_has(s, "data-points=\"50\"");
	assert_int_equal(count(s, "<circle class=\"point\""), 50);
	assert_int_equal(count(s, "data-series=\"owned\" data-x="), 25);
	assert_int_equal(count(s, "data-series=\"rented\" data-x="), 25);
	assert_has(s, "data-series=\"rented\" data-x=\"24\" data-y=\"675472.896\"");
	assert_has(s, "<polyline class=\"series\" data-series=\"owned\" data-points=\"25\"");
	assert_has(s, "<g class=\"mark\" data-x=\"19.5\" data-y=\"548608\" data-label=\"break-even\"");
	assert_has(s, "cost (USD)");
	assert_has(s, "<g class=\"legend\">");
	assert_int_equal(count(s, "class=\"legend-item\""), 2);
	assert_true(strncmp(s, "<svg ", 5) == 0);
	assert_has(s, "</svg>");
	free(s);

	/* bad calls are refused */
	assert_int_equal(svg_point(c, 7, 1, 1, NULL, 0), -1);
	assert_int_equal(svg_point(c, a, NAN, 1, NULL, 0), -1);
	assert_int_equal(svg_bar(c, "x"), -1);
	svg_chart_free(c);
}

static void test_scatter_front_log(void **state)
{
	struct svg_chart *c = svg_chart_new(SVG_SCATTER, "pareto", "Time against cost");
	struct diag err;
	char *s;
	int h100, a100;
	(void)state;
	svg_axis(c, 'x', "time", "h", SVG_SCALE_LOG);
	svg_axis(c, 'y', "cost", "USD", SVG_SCALE_LOG);
	h100 = svg_series(c, "H100");
	a100 = svg_series(c, "A100");
	svg_point(c, h100, 10, 5000, "8x H100", SVG_PT_FRONT);
	svg_point(c, h100, 40, 2000, "2x H100", SVG_PT_FRONT);
	svg_point(c, a100, 25, 6000, "8x A100", 0);
	svg_point(c, a100, 100, 1500, "2x A100", SVG_PT_FRONT);
	s = svg_render(c, &err);
	assert_non_null(s);
	assert_has(s, "data-x-scale=\"log\" data-y-scale=\"log\"");
	assert_int_equal(count(s, "<circle class=\"point"), 4);
	assert_int_equal(count(s, "<circle class=\"point front\""), 3);
	assert_has(s, "<polyline class=\"front\" data-points=\"3\"");
	assert_has(s, "data-series=\"A100\" data-x=\"25\" data-y=\"6000\" data-label=\"8x A100\"");
	/* decade ticks on a log axis */
	assert_has(s, ">1k</text>");
	assert_has(s, ">10k</text>");
	free(s);
	/* a zero cannot go on a log axis */
	svg_point(c, a100, 0, 100, NULL, 0);
	diag_clear(&err);
	assert_null(svg_render(c, &err));
	assert_string_equal(err.field, "x");
	assert_non_null(strstr(err.msg, "log axis"));
	svg_chart_free(c);
}

static void test_stacked_bars(void **state)
{
	enum svg_kind kinds[] = {SVG_HBAR, SVG_VBAR};
	size_t k;
	(void)state;
	for (k = 0; k < 2; k++) {
		struct svg_chart *c = svg_chart_new(kinds[k], "mem", "Memory per GPU");
		struct diag err;
		char *s;
		int w, g, o, b0, b1;
		svg_axis(c, kinds[k] == SVG_HBAR ? 'x' : 'y', "memory", "GiB", SVG_SCALE_LINEAR);
		w = svg_series(c, "weights");
		g = svg_series(c, "gradients");
		o = svg_series(c, "optimizer");
		b0 = svg_bar(c, "ZeRO-0");
		b1 = svg_bar(c, "ZeRO-2");
		svg_bar_value(c, b0, w, 13);
		svg_bar_value(c, b0, g, 13);
		svg_bar_value(c, b0, o, 52);
		svg_bar_value(c, b1, w, 13);
		svg_bar_value(c, b1, g, 1.625);
		svg_bar_value(c, b1, o, 6.5);
		assert_int_equal(svg_bar_value(c, b1, o, -1), -1);
		assert_int_equal(svg_bar_value(c, 9, o, 1), -1);
		assert_int_equal(svg_point(c, w, 1, 1, NULL, 0), -1);
		assert_int_equal(svg_axis(c, 'x', NULL, NULL, SVG_SCALE_LOG), -1);
		s = svg_render(c, &err);
		assert_non_null(s);
		assert_has(s, kinds[k] == SVG_HBAR ? "chart-hbar" : "chart-vbar");
		assert_int_equal(count(s, "<rect class=\"segment\""), 6);
		assert_has(s, "<g class=\"bar\" data-bar=\"ZeRO-0\" data-total=\"78\"");
		assert_has(s, "<g class=\"bar\" data-bar=\"ZeRO-2\" data-total=\"21.125\"");
		assert_has(s, "data-bar=\"ZeRO-2\" data-series=\"gradients\" data-value=\"1.625\"");
		assert_int_equal(count(s, "class=\"legend-item\""), 3);
		free(s);
		svg_chart_free(c);
	}
}

static void test_escaping_and_empty(void **state)
{
	struct svg_chart *c = svg_chart_new(SVG_LINE, "a b<c>", "x < y & \"z\" 'w'");
	struct diag err;
	char *s, *e;
	int a;
	(void)state;
	assert_string_equal(svg_chart_id(c), "a-b-c-");
	diag_clear(&err);
	assert_null(svg_render(c, &err));
	assert_non_null(strstr(err.msg, "no points"));
	a = svg_series(c, "<script>alert(1)</script>");
	svg_point(c, a, 1, 2, "a&b", 0);
	svg_point(c, a, 1, 2, NULL, 0); /* one x value only: the domain widens */
	s = svg_render(c, &err);
	assert_non_null(s);
	assert_null(strstr(s, "<script>"));
	assert_has(s, "&lt;script&gt;");
	assert_has(s, "x &lt; y &amp; &quot;z&quot; &#39;w&#39;");
	assert_has(s, "data-label=\"a&amp;b\"");
	assert_null(strstr(s, "nan"));
	assert_null(strstr(s, "inf"));
	free(s);
	svg_chart_free(c);

	e = html_escape("<a href='x'>&</a>");
	assert_string_equal(e, "&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;");
	free(e);
	/* a double quote takes six bytes: a text of them only fills the buffer exactly */
	e = html_escape("\"\"\"");
	assert_string_equal(e, "&quot;&quot;&quot;");
	free(e);
	e = html_escape(NULL);
	assert_string_equal(e, "");
	free(e);
}

static struct html_doc *sample_doc(void)
{
	struct html_doc *d = html_new("Report <1>");
	struct svg_chart *c = svg_chart_new(SVG_LINE, "c1", "One");
	struct diag err;
	const char *head[] = {"term", "value"};
	const char *row[] = {"energy", "$9,499/yr"};
	int s = svg_series(c, "s");
	svg_point(c, s, 0, 0, NULL, 0);
	svg_point(c, s, 1, 1, NULL, 0);
	html_heading(d, 1, "Title & more");
	html_paragraph(d, "text");
	html_note(d, "note");
	html_pre(d, "a = b x c");
	assert_int_equal(html_chart(d, c, &err), 0);
	html_table_begin(d, "t1", "caption");
	html_table_head(d, head, 2);
	html_table_row(d, row, 2);
	html_table_end(d);
	svg_chart_free(c);
	return d;
}

static void test_page_is_self_contained(void **state)
{
	struct html_doc *d = sample_doc();
	char *p = html_render(d);
	const char *q;
	(void)state;
	assert_true(strncmp(p, "<!DOCTYPE html>", 15) == 0);
	assert_has(p, "<title>Report &lt;1&gt;</title>");
	assert_has(p, "<h1>Title &amp; more</h1>");
	assert_has(p, "Content-Security-Policy\" content=\"default-src 'none'");
	assert_has(p, "<figure class=\"chart\">");
	assert_has(p, "<td class=\"num\">$9,499/yr</td>");
	assert_has(p, "<table id=\"t1\">");
	/* nothing to fetch: no src or href, no URL but the SVG namespace name */
	assert_null(strstr(p, "src="));
	assert_null(strstr(p, "href="));
	assert_null(strstr(p, "https:"));
	assert_null(strstr(p, "@import"));
	for (q = p; (q = strstr(q, "http:")); q++)
		assert_true(strncmp(q, "http://www.w3.org/2000/svg\"", 27) == 0);
	free(p);
	html_free(d);
}

static int dir_entries(const char *dir)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	int n = 0;
	while (dp && (e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	if (dp)
		closedir(dp);
	return n;
}

static void test_write_file_atomic(void **state)
{
	char dir[] = "/tmp/gpuscope-html-XXXXXX", path[256], sub[256];
	struct html_doc *d = sample_doc();
	struct diag err;
	struct stat st;
	FILE *f;
	char buf[16] = {0};
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.html", dir);
	assert_int_equal(html_write_file(d, path, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > 1000);
	assert_int_equal(dir_entries(dir), 1); /* no .tmp left */

	/* a failed write leaves nothing behind, and an existing target untouched */
	snprintf(sub, sizeof(sub), "%s/missing/r.html", dir);
	diag_clear(&err);
	assert_int_equal(html_write_file(d, sub, &err), -1);
	assert_non_null(strstr(err.msg, "cannot create"));
	snprintf(sub, sizeof(sub), "%s/adir", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	diag_clear(&err);
	assert_int_equal(html_write_file(d, sub, &err), -1);
	assert_non_null(strstr(err.msg, "a directory"));
	assert_int_equal(dir_entries(dir), 2); /* r.html and adir, no adir.tmp */
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, 15, f), 15);
	fclose(f);
	assert_string_equal(buf, "<!DOCTYPE html>");

	rmdir(sub);
	unlink(path);
	rmdir(dir);
	html_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_chart),
		cmocka_unit_test(test_scatter_front_log),
		cmocka_unit_test(test_stacked_bars),
		cmocka_unit_test(test_escaping_and_empty),
		cmocka_unit_test(test_page_is_self_contained),
		cmocka_unit_test(test_write_file_atomic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
