/*
 * Inline SVG charts: line, scatter (with a front line) and stacked bars.
 *
 * Layout, top to bottom: title, legend rows, plot area, x tick labels, x
 * axis title.  The y axis title is rotated along the left edge.  Text widths
 * are estimated at 0.6 em per character (no font metrics without a font
 * engine), which is close for the sans-serif faces browsers fall back to.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/svg.h"
#include "util/units.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "report/fmt.h"

#define FONT_PX 12.0
#define CHAR_PX (FONT_PX * 0.6)

/* Tableau 10: distinguishable, and readable on white and in grey print. */
static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

struct point {
	double x, y;
	int series;
	unsigned flags;
	char *label;
};

struct mark {
	double x, y;
	char *label;
};

struct bar_value {
	int bar, series;
	double value;
};

struct axis {
	char *label, *unit;
	enum svg_scale scale;
};

struct svg_chart {
	enum svg_kind kind;
	char *id, *title;
	unsigned width, height;
	struct axis x, y;
	char **series;
	size_t nseries, series_cap;
	struct point *pts;
	size_t npts, pts_cap;
	struct mark *marks;
	size_t nmarks, marks_cap;
	char **bars;
	size_t nbars, bars_cap;
	struct bar_value *vals;
	size_t nvals, vals_cap;
};

/* XML text and attribute escaping. */
static void sb_esc(struct strbuf *b, const char *s)
{
	if (!s)
		return;
	for (; *s; s++) {
		switch (*s) {
		case '&':
			strbuf_addstr(b, "&amp;");
			break;
		case '<':
			strbuf_addstr(b, "&lt;");
			break;
		case '>':
			strbuf_addstr(b, "&gt;");
			break;
		case '"':
			strbuf_addstr(b, "&quot;");
			break;
		case '\'':
			strbuf_addstr(b, "&#39;");
			break;
		default:
			/* control characters are not allowed in XML 1.0 */
			if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') {
				strbuf_addstr(b, " ");
			} else {
				strbuf_addch(b, *s);
			}
		}
	}
}

/*
 * Escapes at most max_chars characters of s, ending with an ellipsis when
 * cut; a cut never splits a UTF-8 sequence.
 */
static void esc_fit(struct strbuf *b, const char *s, size_t max_chars)
{
	size_t n = 0, i = 0, cut;
	char *t;
	for (i = 0; s[i]; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	if (n <= max_chars || max_chars < 2) {
		sb_esc(b, s);
		return;
	}
	for (i = 0, n = 0; s[i]; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && n++ == max_chars - 1)
			break;
	}
	cut = i;
	t = xstrndup(s, cut);
	sb_esc(b, t);
	strbuf_addstr(b, "\xe2\x80\xa6");
	free(t);
}

/* ---- building ---- */

static char *sanitize_id(const char *id)
{
	char *s = xstrdup(id && *id ? id : "chart");
	char *p;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '-' || *p == '_'))
			*p = '-';
	return s;
}

static const char *kind_name(enum svg_kind k)
{
	switch (k) {
	case SVG_LINE:
		return "line";
	case SVG_SCATTER:
		return "scatter";
	case SVG_HBAR:
		return "hbar";
	case SVG_VBAR:
		return "vbar";
	}
	return "?";
}

static int is_bar(const struct svg_chart *c)
{
	return c->kind == SVG_HBAR || c->kind == SVG_VBAR;
}

struct svg_chart *svg_chart_new(enum svg_kind kind, const char *id, const char *title)
{
	struct svg_chart *c = xcalloc(1, sizeof(*c));
	c->kind = kind;
	c->id = sanitize_id(id);
	c->title = title ? xstrdup(title) : NULL;
	c->width = 760;
	c->height = 420;
	return c;
}

static void axis_release(struct axis *a)
{
	free(a->label);
	free(a->unit);
}

static void free_strings(char **v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void svg_chart_free(struct svg_chart *c)
{
	size_t i;
	if (!c)
		return;
	free(c->id);
	free(c->title);
	axis_release(&c->x);
	axis_release(&c->y);
	free_strings(c->series, c->nseries);
	for (i = 0; i < c->npts; i++)
		free(c->pts[i].label);
	free(c->pts);
	for (i = 0; i < c->nmarks; i++)
		free(c->marks[i].label);
	free(c->marks);
	free_strings(c->bars, c->nbars);
	free(c->vals);
	free(c);
}

void svg_chart_size(struct svg_chart *c, unsigned width_px, unsigned height_px)
{
	c->width = width_px < 240 ? 240 : width_px;
	c->height = height_px < 160 ? 160 : height_px;
}

int svg_axis(struct svg_chart *c, char axis, const char *label, const char *unit, enum svg_scale scale)
{
	struct axis *a;
	if (axis != 'x' && axis != 'y')
		return error("chart '%s': axis must be 'x' or 'y', not '%c'", c->id, axis);
	if (scale == SVG_SCALE_LOG && is_bar(c))
		return error("chart '%s': bar charts have linear axes", c->id);
	a = axis == 'x' ? &c->x : &c->y;
	axis_release(a);
	a->label = label ? xstrdup(label) : NULL;
	a->unit = unit ? xstrdup(unit) : NULL;
	a->scale = scale;
	return 0;
}

int svg_series(struct svg_chart *c, const char *name)
{
	XGROW(c->series, c->series_cap, c->nseries);
	c->series[c->nseries] = xstrdup(name ? name : "");
	return (int)c->nseries++;
}

int svg_point(struct svg_chart *c, int series, double x, double y, const char *label, unsigned flags)
{
	struct point *p;
	if (is_bar(c))
		return error("chart '%s': points belong on line and scatter charts", c->id);
	if (series < 0 || (size_t)series >= c->nseries)
		return error("chart '%s': no series %d", c->id, series);
	if (!isfinite(x) || !isfinite(y))
		return error("chart '%s': point (%g, %g) of series '%s' is not finite", c->id, x, y,
			     c->series[series]);
	XGROW(c->pts, c->pts_cap, c->npts);
	p = &c->pts[c->npts];
	p->x = x;
	p->y = y;
	p->series = series;
	p->flags = flags;
	p->label = label ? xstrdup(label) : NULL;
	return (int)c->npts++;
}

int svg_mark(struct svg_chart *c, double x, double y, const char *label)
{
	struct mark *m;
	if (is_bar(c))
		return error("chart '%s': marks belong on line and scatter charts", c->id);
	if (!isfinite(x) || !isfinite(y))
		return error("chart '%s': mark (%g, %g) is not finite", c->id, x, y);
	XGROW(c->marks, c->marks_cap, c->nmarks);
	m = &c->marks[c->nmarks];
	m->x = x;
	m->y = y;
	m->label = label ? xstrdup(label) : NULL;
	return (int)c->nmarks++;
}

int svg_bar(struct svg_chart *c, const char *label)
{
	if (!is_bar(c))
		return error("chart '%s': bars belong on bar charts", c->id);
	XGROW(c->bars, c->bars_cap, c->nbars);
	c->bars[c->nbars] = xstrdup(label ? label : "");
	return (int)c->nbars++;
}

int svg_bar_value(struct svg_chart *c, int bar, int series, double value)
{
	size_t i;
	if (!is_bar(c))
		return error("chart '%s': bars belong on bar charts", c->id);
	if (bar < 0 || (size_t)bar >= c->nbars)
		return error("chart '%s': no bar %d", c->id, bar);
	if (series < 0 || (size_t)series >= c->nseries)
		return error("chart '%s': no series %d", c->id, series);
	if (!isfinite(value) || value < 0)
		return error("chart '%s': segment '%s' of bar '%s' must be a finite value >= 0, got %g", c->id,
			     c->series[series], c->bars[bar], value);
	for (i = 0; i < c->nvals; i++)
		if (c->vals[i].bar == bar && c->vals[i].series == series) {
			c->vals[i].value = value;
			return 0;
		}
	XGROW(c->vals, c->vals_cap, c->nvals);
	c->vals[c->nvals].bar = bar;
	c->vals[c->nvals].series = series;
	c->vals[c->nvals].value = value;
	c->nvals++;
	return 0;
}

size_t svg_chart_points(const struct svg_chart *c)
{
	return is_bar(c) ? c->nbars : c->npts;
}

const char *svg_chart_id(const struct svg_chart *c)
{
	return c->id;
}

/* ---- scales and ticks ---- */

struct scale {
	double lo, hi; /* data domain after rounding to ticks */
	double p0, p1; /* pixel range */
	int log;
	double ticks[32];
	int nticks;
};

static double scale_px(const struct scale *s, double v)
{
	double t;
	if (s->log)
		t = (log10(v) - log10(s->lo)) / (log10(s->hi) - log10(s->lo));
	else
		t = (v - s->lo) / (s->hi - s->lo);
	return s->p0 + t * (s->p1 - s->p0);
}

/* Heckbert's "nice numbers": a step of 1, 2 or 5 times a power of ten. */
static double nice_step(double range, int target)
{
	double raw = range / target, mag = pow(10, floor(log10(raw))), f = raw / mag;
	if (f < 1.5)
		return mag;
	if (f < 3)
		return 2 * mag;
	if (f < 7)
		return 5 * mag;
	return 10 * mag;
}

static void scale_linear(struct scale *s, double lo, double hi, int target)
{
	double step, v;
	if (hi <= lo) {
		double d = lo == 0 ? 1 : fabs(lo) * 0.1;
		lo -= d;
		hi += d;
	}
	step = nice_step(hi - lo, target);
	s->lo = floor(lo / step) * step;
	s->hi = ceil(hi / step) * step;
	s->log = 0;
	s->nticks = 0;
	for (v = s->lo; v <= s->hi + step * 0.5 && s->nticks < 32; v += step)
		s->ticks[s->nticks++] = fabs(v) < step * 1e-9 ? 0 : v;
}

static void scale_log(struct scale *s, double lo, double hi)
{
	int e0, e1, e, k;
	static const double sub[] = {1, 2, 5};
	if (hi <= lo) {
		lo /= 10;
		hi *= 10;
	}
	e0 = (int)floor(log10(lo) + 1e-9);
	e1 = (int)ceil(log10(hi) - 1e-9);
	if (e1 == e0)
		e1++;
	s->lo = pow(10, e0);
	s->hi = pow(10, e1);
	s->log = 1;
	s->nticks = 0;
	for (e = e0; e <= e1 && s->nticks < 32; e++)
		for (k = 0; k < 3 && s->nticks < 32; k++) {
			double v = sub[k] * pow(10, e);
			/* 2 and 5 only when the axis spans few decades */
			if (k && e1 - e0 > 3)
				continue;
			if (v > s->hi * (1 + 1e-9))
				continue;
			s->ticks[s->nticks++] = v;
		}
}

/* Compact tick text: 1.5k, 2M, 0.25, 1e-05. */
static void tick_text(double v, char *buf, size_t len)
{
	double a = fabs(v);
	if (v == 0)
		snprintf(buf, len, "0");
	else if (a >= 1e12)
		snprintf(buf, len, "%.4gT", v / 1e12);
	else if (a >= 1e9)
		snprintf(buf, len, "%.4gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, len, "%.4gM", v / 1e6);
	else if (a >= 1e3)
		snprintf(buf, len, "%.4gk", v / 1e3);
	else
		snprintf(buf, len, "%.4g", v);
}

static void axis_title(const struct axis *a, struct strbuf *b)
{
	if (a->label && *a->label)
		sb_esc(b, a->label);
	if (a->unit && *a->unit) {
		strbuf_addstr(b, a->label && *a->label ? " (" : "(");
		sb_esc(b, a->unit);
		strbuf_addstr(b, ")");
	}
}

static int has_axis_title(const struct axis *a)
{
	return (a->label && *a->label) || (a->unit && *a->unit);
}

/* ---- rendering ---- */

struct frame {
	double left, right, top, bottom; /* plot area, px */
	double legend_y;
};

static const char *colour(size_t series)
{
	return palette[series % NPALETTE];
}

static double text_px(const char *s)
{
	return s ? (double)strlen(s) * CHAR_PX : 0;
}

/*
 * Lays the legend out in rows across the chart's width and returns the
 * height it takes; draws it when b is not NULL.
 */
static double legend(const struct svg_chart *c, struct strbuf *b, double y0)
{
	double x = 16, y = y0, rows = 0;
	size_t i;
	if (c->nseries < 2 && !is_bar(c))
		return 0;
	if (!c->nseries)
		return 0;
	if (b)
		strbuf_addstr(b, "<g class=\"legend\">");
	rows = 1;
	for (i = 0; i < c->nseries; i++) {
		double w = 18 + text_px(c->series[i]) + 16;
		if (x + w > c->width - 8 && x > 16) {
			x = 16;
			y += 18;
			rows++;
		}
		if (b) {
			strbuf_addf(b, "<g class=\"legend-item\" data-series=\"");
			sb_esc(b, c->series[i]);
			strbuf_addf(b,
				    "\"><rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
				    "<text x=\"%.1f\" y=\"%.1f\">",
				    x, y - 10, colour(i), x + 16, y);
			sb_esc(b, c->series[i]);
			strbuf_addstr(b, "</text></g>");
		}
		x += w;
	}
	if (b)
		strbuf_addstr(b, "</g>\n");
	return rows * 18 + 6;
}

static void header(const struct svg_chart *c, struct strbuf *b, size_t npoints)
{
	strbuf_addf(b,
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart chart-%s\" id=\"%s\" "
		    "data-kind=\"%s\" data-points=\"%zu\" data-series-count=\"%zu\" "
		    "data-x-scale=\"%s\" data-y-scale=\"%s\" "
		    "width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" role=\"img\" aria-label=\"",
		    kind_name(c->kind), c->id, kind_name(c->kind), npoints, c->nseries,
		    c->x.scale == SVG_SCALE_LOG ? "log" : "linear", c->y.scale == SVG_SCALE_LOG ? "log" : "linear",
		    c->width, c->height, c->width, c->height);
	sb_esc(b, c->title ? c->title : c->id);
	strbuf_addstr(b, "\">\n");
	if (c->title) {
		strbuf_addstr(b, "<title>");
		sb_esc(b, c->title);
		strbuf_addstr(b, "</title>\n");
		strbuf_addf(b, "<text class=\"chart-title\" x=\"16\" y=\"22\">");
		sb_esc(b, c->title);
		strbuf_addstr(b, "</text>\n");
	}
}

/* A gridline from (x1, y1) to (x2, y2) and its tick's text at (tx, ty). */
static void grid_tick(struct strbuf *b, double x1, double y1, double x2, double y2, double tx, double ty,
		      const char *anchor, const char *text)
{
	strbuf_addf(b,
		    "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		    "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>",
		    x1, y1, x2, y2, tx, ty, anchor, text);
}

static void grid_and_axes(const struct svg_chart *c, struct strbuf *b, const struct frame *f,
			  const struct scale *sx, const struct scale *sy, int x_is_value, int y_is_value)
{
	char t[64];
	int i;
	strbuf_addstr(b, "<g class=\"axes\">");
	if (y_is_value)
		for (i = 0; i < sy->nticks; i++) {
			double py = scale_px(sy, sy->ticks[i]);
			tick_text(sy->ticks[i], t, sizeof(t));
			grid_tick(b, f->left, py, f->right, py, f->left - 6, py + 4, "end", t);
		}
	if (x_is_value)
		for (i = 0; i < sx->nticks; i++) {
			double px = scale_px(sx, sx->ticks[i]);
			tick_text(sx->ticks[i], t, sizeof(t));
			grid_tick(b, px, f->top, px, f->bottom, px, f->bottom + 16, "middle", t);
		}
	strbuf_addf(b, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", f->left,
		    f->bottom, f->right, f->bottom);
	strbuf_addf(b, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", f->left, f->top,
		    f->left, f->bottom);
	if (has_axis_title(&c->x)) {
		strbuf_addf(b, "<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
			    (f->left + f->right) / 2, (double)c->height - 10);
		axis_title(&c->x, b);
		strbuf_addstr(b, "</text>");
	}
	if (has_axis_title(&c->y)) {
		double cy = (f->top + f->bottom) / 2;
		strbuf_addf(b,
			    "<text class=\"axis-title\" x=\"14\" y=\"%.1f\" text-anchor=\"middle\" "
			    "transform=\"rotate(-90 14 %.1f)\">",
			    cy, cy);
		axis_title(&c->y, b);
		strbuf_addstr(b, "</text>");
	}
	strbuf_addstr(b, "</g>\n");
}

GS_PRINTF(4, 5)
static int set_err(struct diag *err, const struct svg_chart *c, const char *field, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return diag_set(err, "", 0, 0, field, "chart '%s': %s", c->id, msg);
}

static void point_attrs(struct strbuf *b, const struct svg_chart *c, const struct point *p)
{
	strbuf_addstr(b, " data-series=\"");
	sb_esc(b, c->series[p->series]);
	strbuf_addf(b, "\" data-x=\"%.10g\" data-y=\"%.10g\"", p->x, p->y);
	if (p->label) {
		strbuf_addstr(b, " data-label=\"");
		sb_esc(b, p->label);
		strbuf_addstr(b, "\"");
	}
}

/*
 * A value as a reader sees it in a tooltip: "6072.65 ms"; money as every
 * report rounds it ("$20.83", "$61.1M"), the exact figure staying in the
 * data-* attributes.
 */
static void value_text(struct strbuf *b, const struct axis *a, double v)
{
	char t[64];
	if (a->unit && !strcmp(a->unit, "USD")) {
		sb_esc(b, fmt_money(v, FMT_MONEY_SHORT, t, sizeof(t)));
		return;
	}
	strbuf_addf(b, "%.6g", v);
	if (a->unit) {
		strbuf_addstr(b, " ");
		sb_esc(b, a->unit);
	}
}

static void point_tooltip(struct strbuf *b, const struct svg_chart *c, const struct point *p)
{
	strbuf_addstr(b, "<title>");
	sb_esc(b, c->series[p->series]);
	strbuf_addstr(b, ": ");
	if (p->label) {
		sb_esc(b, p->label);
		strbuf_addstr(b, ", ");
	}
	value_text(b, &c->x, p->x);
	strbuf_addstr(b, ", ");
	value_text(b, &c->y, p->y);
	strbuf_addstr(b, "</title>");
}

static int cmp_x(const void *a, const void *b)
{
	const struct point *p = *(const struct point *const *)a, *q = *(const struct point *const *)b;
	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return p->y < q->y ? -1 : p->y > q->y;
}

static char *render_xy(const struct svg_chart *c, struct diag *err)
{
	struct strbuf b = STRBUF_INIT;
	struct scale sx, sy;
	struct frame f;
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY, lh;
	size_t i, s, nfront = 0;
	const struct point **front;

	if (!c->npts)
		return set_err(err, c, "", "has no points to draw"), NULL;
	for (i = 0; i < c->npts + c->nmarks; i++) {
		double x = i < c->npts ? c->pts[i].x : c->marks[i - c->npts].x;
		double y = i < c->npts ? c->pts[i].y : c->marks[i - c->npts].y;
		if (c->x.scale == SVG_SCALE_LOG && x <= 0)
			return set_err(err, c, "x", "cannot draw x = %g on a log axis", x), NULL;
		if (c->y.scale == SVG_SCALE_LOG && y <= 0)
			return set_err(err, c, "y", "cannot draw y = %g on a log axis", y), NULL;
		xlo = fmin(xlo, x);
		xhi = fmax(xhi, x);
		ylo = fmin(ylo, y);
		yhi = fmax(yhi, y);
	}
	/* Lines of amounts read best from zero; a scatter is framed on its data. */
	if (c->kind == SVG_LINE && c->y.scale == SVG_SCALE_LINEAR && ylo > 0)
		ylo = 0;

	lh = legend(c, NULL, 0);
	f.legend_y = c->title ? 44 : 20;
	f.top = f.legend_y + lh + (c->title || lh > 0 ? 4 : 10);
	f.left = has_axis_title(&c->y) ? 78 : 60;
	f.right = c->width - 24;
	f.bottom = c->height - (has_axis_title(&c->x) ? 48 : 30);
	if (f.bottom - f.top < 40)
		f.top = f.bottom - 40;

	if (c->x.scale == SVG_SCALE_LOG)
		scale_log(&sx, xlo, xhi);
	else
		scale_linear(&sx, xlo, xhi, (int)((f.right - f.left) / 90) + 1);
	if (c->y.scale == SVG_SCALE_LOG)
		scale_log(&sy, ylo, yhi);
	else
		scale_linear(&sy, ylo, yhi, (int)((f.bottom - f.top) / 50) + 1);
	sx.p0 = f.left;
	sx.p1 = f.right;
	sy.p0 = f.bottom;
	sy.p1 = f.top;

	header(c, &b, c->npts);
	legend(c, &b, f.legend_y);
	grid_and_axes(c, &b, &f, &sx, &sy, 1, 1);

	/* series lines (line charts), drawn under the points */
	if (c->kind == SVG_LINE)
		for (s = 0; s < c->nseries; s++) {
			size_t n = 0;
			for (i = 0; i < c->npts; i++)
				n += c->pts[i].series == (int)s;
			if (!n)
				continue;
			strbuf_addstr(&b, "<polyline class=\"series\" data-series=\"");
			sb_esc(&b, c->series[s]);
			strbuf_addf(&b, "\" data-points=\"%zu\" fill=\"none\" stroke=\"%s\" points=\"", n,
				    colour(s));
			for (i = 0; i < c->npts; i++)
				if (c->pts[i].series == (int)s)
					strbuf_addf(&b, "%.1f,%.1f ", scale_px(&sx, c->pts[i].x),
						    scale_px(&sy, c->pts[i].y));
			strbuf_addstr(&b, "\"/>\n");
		}

	/* the front line, in x order */
	front = xcalloc(c->npts ? c->npts : 1, sizeof(*front));
	for (i = 0; i < c->npts; i++)
		if (c->pts[i].flags & SVG_PT_FRONT)
			front[nfront++] = &c->pts[i];
	if (nfront) {
		qsort(front, nfront, sizeof(*front), cmp_x);
		strbuf_addf(&b, "<polyline class=\"front\" data-points=\"%zu\" fill=\"none\" points=\"", nfront);
		for (i = 0; i < nfront; i++)
			strbuf_addf(&b, "%.1f,%.1f ", scale_px(&sx, front[i]->x), scale_px(&sy, front[i]->y));
		strbuf_addstr(&b, "\"/>\n");
	}
	free(front);

	strbuf_addstr(&b, "<g class=\"points\">\n");
	for (i = 0; i < c->npts; i++) {
		const struct point *p = &c->pts[i];
		int on_front = (p->flags & SVG_PT_FRONT) != 0;
		strbuf_addf(&b, "<circle class=\"point%s\"", on_front ? " front" : "");
		point_attrs(&b, c, p);
		strbuf_addf(&b, " cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\">", scale_px(&sx, p->x),
			    scale_px(&sy, p->y),
			    c->kind == SVG_LINE ? "2.5" :
			    on_front            ? "5" :
						  "3.5",
			    colour((size_t)p->series));
		point_tooltip(&b, c, p);
		strbuf_addstr(&b, "</circle>\n");
	}
	strbuf_addstr(&b, "</g>\n");

	for (i = 0; i < c->nmarks; i++) {
		const struct mark *m = &c->marks[i];
		double px = scale_px(&sx, m->x), py = scale_px(&sy, m->y);
		/* the label goes on the side with more room */
		int right = px < (f.left + f.right) / 2;
		strbuf_addf(&b, "<g class=\"mark\" data-x=\"%.10g\" data-y=\"%.10g\" data-label=\"", m->x, m->y);
		sb_esc(&b, m->label);
		strbuf_addf(&b,
			    "\"><line class=\"guide\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			    "<line class=\"guide\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			    "<circle class=\"ring\" cx=\"%.1f\" cy=\"%.1f\" r=\"7\" fill=\"none\"/>",
			    px, py, px, f.bottom, f.left, py, px, py, px, py);
		if (m->label) {
			strbuf_addf(&b, "<text class=\"mark-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">",
				    right ? px + 12 : px - 12, py - 10, right ? "start" : "end");
			sb_esc(&b, m->label);
			strbuf_addstr(&b, "</text>");
		}
		strbuf_addstr(&b, "</g>\n");
	}
	strbuf_addstr(&b, "</svg>\n");
	return strbuf_detach(&b, NULL);
}

static char *render_bars(const struct svg_chart *c, struct diag *err)
{
	struct strbuf b = STRBUF_INIT;
	struct scale sv;
	struct frame f;
	double *totals, vmax = 0, lh, label_px = 0, slot, thick;
	size_t i, k;
	int horiz = c->kind == SVG_HBAR, rotate = 0;
	const struct axis *vaxis = horiz ? &c->x : &c->y;

	if (!c->nbars)
		return set_err(err, c, "", "has no bars to draw"), NULL;
	if (!c->nseries)
		return set_err(err, c, "", "has no series (segment kinds)"), NULL;
	totals = xcalloc(c->nbars, sizeof(*totals));
	for (i = 0; i < c->nvals; i++)
		totals[c->vals[i].bar] += c->vals[i].value;
	for (i = 0; i < c->nbars; i++) {
		vmax = fmax(vmax, totals[i]);
		label_px = fmax(label_px, text_px(c->bars[i]));
	}

	lh = legend(c, NULL, 0);
	f.legend_y = c->title ? 44 : 20;
	f.top = f.legend_y + lh + 4;
	f.right = c->width - (horiz ? 70 : 24); /* room for the total after the bar */
	if (horiz) {
		f.left = fmin(fmax(label_px + 14, 60), c->width * 0.4) + (has_axis_title(&c->y) ? 20 : 0);
		f.bottom = c->height - (has_axis_title(vaxis) ? 48 : 30);
	} else {
		f.left = has_axis_title(vaxis) ? 78 : 60;
		slot = (f.right - f.left) / (double)c->nbars;
		rotate = label_px > slot - 6;
		f.bottom = c->height - (rotate ? fmin(label_px * 0.7 + 20, c->height * 0.35) : 30) -
			   (has_axis_title(&c->x) ? 18 : 0);
	}
	if (f.bottom - f.top < 40)
		f.top = f.bottom - 40;

	scale_linear(&sv, 0, vmax > 0 ? vmax : 1,
		     horiz ? (int)((f.right - f.left) / 90) + 1 : (int)((f.bottom - f.top) / 50) + 1);
	sv.lo = 0;
	if (horiz) {
		sv.p0 = f.left;
		sv.p1 = f.right;
	} else {
		sv.p0 = f.bottom;
		sv.p1 = f.top;
	}

	header(c, &b, c->nbars);
	legend(c, &b, f.legend_y);
	grid_and_axes(c, &b, &f, &sv, &sv, horiz, !horiz);

	slot = (horiz ? f.bottom - f.top : f.right - f.left) / (double)c->nbars;
	thick = slot * 0.7;
	for (i = 0; i < c->nbars; i++) {
		double base = 0, lo = (horiz ? f.top : f.left) + slot * (double)i + (slot - thick) / 2;
		char t[64];
		strbuf_addstr(&b, "<g class=\"bar\" data-bar=\"");
		sb_esc(&b, c->bars[i]);
		strbuf_addf(&b, "\" data-total=\"%.10g\">", totals[i]);
		for (k = 0; k < c->nseries; k++) {
			double v = 0, p0, p1;
			size_t j;
			int found = 0;
			for (j = 0; j < c->nvals; j++)
				if (c->vals[j].bar == (int)i && c->vals[j].series == (int)k) {
					v = c->vals[j].value;
					found = 1;
				}
			if (!found)
				continue;
			p0 = scale_px(&sv, base);
			p1 = scale_px(&sv, base + v);
			base += v;
			strbuf_addstr(&b, "<rect class=\"segment\" data-bar=\"");
			sb_esc(&b, c->bars[i]);
			strbuf_addstr(&b, "\" data-series=\"");
			sb_esc(&b, c->series[k]);
			if (horiz)
				strbuf_addf(&b,
					    "\" data-value=\"%.10g\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
					    "height=\"%.1f\" fill=\"%s\">",
					    v, p0, lo, p1 - p0, thick, colour(k));
			else
				strbuf_addf(&b,
					    "\" data-value=\"%.10g\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
					    "height=\"%.1f\" fill=\"%s\">",
					    v, lo, p1, thick, p0 - p1, colour(k));
			strbuf_addstr(&b, "<title>");
			sb_esc(&b, c->bars[i]);
			strbuf_addstr(&b, ": ");
			sb_esc(&b, c->series[k]);
			strbuf_addstr(&b, " ");
			value_text(&b, vaxis, v);
			strbuf_addstr(&b, "</title></rect>");
		}
		tick_text(totals[i], t, sizeof(t));
		if (horiz) {
			double cy = lo + thick / 2 + 4;
			strbuf_addf(&b, "<text class=\"bar-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
				    f.left - 6, cy);
			esc_fit(&b, c->bars[i],
				(size_t)((f.left - 14 - (has_axis_title(&c->y) ? 20 : 0)) / CHAR_PX));
			strbuf_addf(&b, "</text><text class=\"bar-total\" x=\"%.1f\" y=\"%.1f\">%s</text>",
				    scale_px(&sv, totals[i]) + 4, cy, t);
		} else {
			double cx = lo + thick / 2;
			if (rotate)
				strbuf_addf(&b,
					    "<text class=\"bar-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
					    "transform=\"rotate(-35 %.1f %.1f)\">",
					    cx, f.bottom + 14, cx, f.bottom + 14);
			else
				strbuf_addf(&b,
					    "<text class=\"bar-label\" x=\"%.1f\" y=\"%.1f\" "
					    "text-anchor=\"middle\">",
					    cx, f.bottom + 16);
			sb_esc(&b, c->bars[i]);
			strbuf_addf(&b,
				    "</text><text class=\"bar-total\" x=\"%.1f\" y=\"%.1f\" "
				    "text-anchor=\"middle\">%s</text>",
				    cx, scale_px(&sv, totals[i]) - 4, t);
		}
		strbuf_addstr(&b, "</g>\n");
	}
	free(totals);
	strbuf_addstr(&b, "</svg>\n");
	return strbuf_detach(&b, NULL);
}

char *svg_render(const struct svg_chart *c, struct diag *err)
{
	return is_bar(c) ? render_bars(c, err) : render_xy(c, err);
}
