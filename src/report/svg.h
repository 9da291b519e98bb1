/*
 * Charts as inline SVG, for the self-contained HTML reports of `plan` and
 * `tco` (see report/html.h).  No dependencies, no scripts, no fonts: the
 * output is plain SVG 1.1 text styled by the page's inline CSS.
 *
 * Three kinds of chart:
 *   SVG_LINE     several series of (x, y) points joined by lines, plus
 *                marked points (tco's break-even month)
 *   SVG_SCATTER  points coloured by category; points flagged SVG_PT_FRONT
 *                are highlighted and joined in x order (plan's Pareto front
 *                of time against cost); either axis may be logarithmic
 *   SVG_HBAR, SVG_VBAR
 *                stacked bars, horizontal or vertical, one bar per label and
 *                one segment per series, with a legend (plan's memory and
 *                step-time breakdowns)
 *
 * Usage:
 *	struct svg_chart *c = svg_chart_new(SVG_LINE, "cumulative", "Cumulative cost");
 *	svg_axis(c, 'x', "months", "month", SVG_SCALE_LINEAR);
 *	svg_axis(c, 'y', "cumulative cost", "USD", SVG_SCALE_LINEAR);
 *	int own = svg_series(c, "owned");
 *	svg_point(c, own, 0, 400000, NULL, 0);  ...
 *	svg_mark(c, 31.2, 1.1e6, "break-even");
 *	char *text = svg_render(c, &err);       (or html_chart(doc, c, &err))
 *
 * The SVG is annotated so that tests (and readers of the source) can check
 * it carries the data:
 *   <svg class="chart chart-KIND" id="ID" data-kind="KIND" data-points="N"
 *        data-series-count="S" data-x-scale="linear|log" data-y-scale=...>
 *   every line/scatter point:
 *        <circle class="point" data-series="NAME" data-x="X" data-y="Y"
 *                [data-label="L"]/>, class "point front" when on the front
 *   every series line:   <polyline class="series" data-series="NAME" data-points="N"/>
 *   the front line:      <polyline class="front" data-points="N"/>
 *   every mark:          <g class="mark" data-x="X" data-y="Y" data-label="L">
 *   every bar segment:   <rect class="segment" data-bar="LABEL" data-series="NAME"
 *                              data-value="V"/>
 *   every bar:           <g class="bar" data-bar="LABEL" data-total="T">
 *   the legend:          <g class="legend"> with one <g class="legend-item"
 *                              data-series="NAME"> per series
 * Numbers in data attributes are printed with %.10g, so they read back as
 * the values given.  All text is XML-escaped.
 *
 * Errors: functions returning int give the new index (>= 0) or -1 after
 * reporting with error() (a bad series index, a non-finite number, a call
 * that does not fit the chart's kind, a negative bar segment).
 * svg_render() reports data that cannot be drawn (an empty chart, a value
 * <= 0 on a log axis) through *err.
 *
 * Ownership: strings passed in are copied.  The chart is freed with
 * svg_chart_free(); svg_render()'s result is freed by the caller with free().
 * Nothing here is thread-safe per chart; separate charts are independent.
 */
#ifndef GPUSCOPE_REPORT_SVG_H
#define GPUSCOPE_REPORT_SVG_H

#include <stddef.h>

#include "util/error.h"

enum svg_kind {
	SVG_LINE,
	SVG_SCATTER,
	SVG_HBAR, /* bars grow to the right; labels down the left */
	SVG_VBAR, /* bars grow upwards; labels along the bottom */
};

enum svg_scale {
	SVG_SCALE_LINEAR,
	SVG_SCALE_LOG, /* base 10; every value on this axis must be > 0 */
};

/* Point flags for svg_point(). */
#define SVG_PT_FRONT 1u /* scatter: on the highlighted front line */

struct svg_chart;

/*
 * A new, empty chart.  id must be a valid HTML id, unique in its page
 * (letters, digits, '-', '_'; other characters are replaced by '-');
 * title may be NULL.  Default size 760 x 420 px.  Free with svg_chart_free().
 */
struct svg_chart *svg_chart_new(enum svg_kind kind, const char *id, const char *title);
void svg_chart_free(struct svg_chart *c);

/* Size of the drawing in CSS pixels (minimum 240 x 160). */
void svg_chart_size(struct svg_chart *c, unsigned width_px, unsigned height_px);

/*
 * Describes an axis: axis is 'x' or 'y'.  label and unit may be NULL; the
 * axis title reads "LABEL (UNIT)".  For bar charts the value axis is 'x'
 * for SVG_HBAR and 'y' for SVG_VBAR; the other one only carries the label.
 * Log scale is allowed on line and scatter charts.  Returns 0 or -1.
 */
int svg_axis(struct svg_chart *c, char axis, const char *label, const char *unit, enum svg_scale scale);

/*
 * Adds a series: a line (SVG_LINE), a category (SVG_SCATTER) or a stacked
 * segment kind (bars).  Colours come from a fixed palette of 10 in order of
 * addition, so the same series order gives the same colours in every chart.
 * Returns the series index, or -1.
 */
int svg_series(struct svg_chart *c, const char *name);

/*
 * Adds a point to a line or scatter series; label may be NULL (it becomes a
 * tooltip and data-label).  Line series are drawn in the order points were
 * added.  Returns the point's index in the chart, or -1 (x or y not finite,
 * bad series, bar chart).
 */
int svg_point(struct svg_chart *c, int series, double x, double y, const char *label, unsigned flags);

/* Marks a point on a line or scatter chart with a ring, guides and a label. */
int svg_mark(struct svg_chart *c, double x, double y, const char *label);

/*
 * Bar charts: svg_bar() adds a bar (returns its index), svg_bar_value()
 * sets one segment of it (value >= 0 in the value axis's unit; segments are
 * stacked in series order, absent ones count as 0).
 */
int svg_bar(struct svg_chart *c, const char *label);
int svg_bar_value(struct svg_chart *c, int bar, int series, double value);

/* Number of points (line, scatter) or bars in the chart. */
size_t svg_chart_points(const struct svg_chart *c);
const char *svg_chart_id(const struct svg_chart *c);

/*
 * The chart as an <svg> element (no XML prolog, ready to inline in HTML).
 * Returns a NUL-terminated string the caller frees, or NULL with *err set
 * (err may be NULL).
 */
char *svg_render(const struct svg_chart *c, struct diag *err);

#endif
