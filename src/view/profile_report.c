/*
 * The HTML report of `gpuscope profile --report FILE` (view/profile.h): the
 * steps as stacked bars of where their time goes, the class breakdown, the
 * bottleneck and its remedy, the tables, and for several ranks one bar per
 * rank.  Every figure comes from the result's field tables, as the text and
 * JSON forms do.
 */
#include <math.h>
#include <string.h>

#include "report/field.h"
#include "report/fmt.h"
#include "report/html.h"
#include "report/svg.h"
#include "util/strbuf.h"
#include "view/profile.h"

/* Bars drawn at most: a trace of hundreds of steps keeps its table, the chart its first steps. */
#define MAX_BARS 60

typedef void (*fill_fn)(const void *ctx, size_t i, struct report_row *row);

#define MAX_COLS 12
/* n rows of schema sc, as an HTML table of the fields cols (NULL-terminated, at most MAX_COLS). */
static void rows_table(struct html_doc *d, const char *id, const struct report_schema *sc, const char *const *cols,
		       size_t n, fill_fn fill, const void *ctx)
{
	struct report_row *row = report_row_new(sc);
	const char *cells[MAX_COLS];
	char buf[MAX_COLS][FMT_LEN];
	size_t nc, i, k;
	for (nc = 0; nc < MAX_COLS && cols[nc]; nc++)
		;
	html_table_begin(d, id, NULL);
	html_table_head(d, cols, nc);
	for (i = 0; i < n; i++) {
		fill(ctx, i, row);
		for (k = 0; k < nc; k++)
			cells[k] = report_value_text(row, (size_t)report_field_index(sc, cols[k]), buf[k],
						     sizeof(buf[k]));
		html_table_row(d, cells, nc);
	}
	html_table_end(d);
	report_row_free(row);
}

static const char *const step_cols[] = {"step",           "wall_s",        "gpu_busy_s",  "gpu_idle",
					"idle_launch_s",  "idle_loader_s", "idle_sync_s", "comm_s",
					"comm_exposed_s", "bottleneck",    NULL};
static const char *const class_cols[] = {"class", "sub", "time_s", "share", "kernels", "bandwidth", NULL};
static const char *const rank_cols[] = {"rank",     "steps",   "step_s",     "compute_s", "comm_exposed_s",
					"gpu_idle", "vs_mean", "bottleneck", NULL};

static void step_fill(const void *ctx, size_t i, struct report_row *row)
{
	const struct profile_result *r = ctx;
	profile_step_row(i < r->nsteps ? &r->steps[i] : &r->total, row);
}

static void class_fill(const void *ctx, size_t i, struct report_row *row)
{
	profile_class_row(&((const struct profile_step *)ctx)->classes[i], row);
}

static void rank_fill(const void *ctx, size_t i, struct report_row *row)
{
	profile_rank_row(&((const struct profile_job *)ctx)->ranks[i], row);
}

#define NSEG (PC_NCLASSES + 3)
static const char *seg_name(int k)
{
	static const char *const idle[] = {"idle: host-bound", "idle: data loader", "idle: synchronisation"};
	if (k == PC_COMM)
		return "comm (exposed)";
	return k < PC_NCLASSES ? profile_class_name((enum profile_class)k) : idle[k - PC_NCLASSES];
}

/* A step's time as segments, ms: each class apart from communication, exposed communication, the idle parts. */
static void step_segments(const struct profile_step *s, double *v)
{
	size_t k;
	int cls;
	memset(v, 0, NSEG * sizeof(*v));
	for (k = 0; k < s->nclasses; k++)
		for (cls = 0; cls < PC_NCLASSES; cls++)
			if (cls != PC_COMM &&
			    !strcmp(s->classes[k].cls, profile_class_name((enum profile_class)cls)))
				v[cls] += s->classes[k].time_s * 1e3;
	v[PC_COMM] = s->comm_exposed_s * 1e3;
	v[PC_NCLASSES] = s->idle_launch_s * 1e3;
	v[PC_NCLASSES + 1] = s->idle_loader_s * 1e3;
	v[PC_NCLASSES + 2] = s->idle_sync_s * 1e3;
}

static struct svg_chart *chart_steps(const struct profile_result *r, const char *id)
{
	struct svg_chart *c = svg_chart_new(SVG_HBAR, id, "Where each step's time goes, ms");
	int series[NSEG];
	double v[NSEG], any[NSEG] = {0};
	size_t i, n = r->nsteps < MAX_BARS ? r->nsteps : MAX_BARS;
	int k;
	svg_axis(c, 'x', "time per step (kernel classes on overlapping streams add up)", "ms", SVG_SCALE_LINEAR);
	for (i = 0; i < n; i++) {
		step_segments(&r->steps[i], v);
		for (k = 0; k < NSEG; k++)
			any[k] += v[k];
	}
	for (k = 0; k < NSEG; k++)
		series[k] = any[k] > 0 ? svg_series(c, seg_name(k)) : -1;
	for (i = 0; i < n; i++) {
		const char *name = r->steps[i].name;
		int bar = svg_bar(c, strncmp(name, "ProfilerStep", 12) ? name : name + 12); /* "#4" */
		step_segments(&r->steps[i], v);
		for (k = 0; k < NSEG; k++)
			if (series[k] >= 0)
				svg_bar_value(c, bar, series[k], v[k]);
	}
	svg_chart_size(c, 860, (unsigned)(120 + 28 * n));
	return c;
}

static struct svg_chart *chart_classes(const struct profile_step *t, const char *id)
{
	struct svg_chart *c = svg_chart_new(SVG_HBAR, id, "GPU time by kernel class, all steps, ms");
	struct strbuf sb = STRBUF_INIT;
	int s = svg_series(c, "GPU time");
	size_t k, n = t->nclasses < MAX_BARS ? t->nclasses : MAX_BARS;
	svg_axis(c, 'x', "sum of the class's kernel durations", "ms", SVG_SCALE_LINEAR);
	for (k = 0; k < n; k++) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s%s%s", t->classes[k].cls, *t->classes[k].sub ? " " : "", t->classes[k].sub);
		svg_bar_value(c, svg_bar(c, strbuf_str(&sb)), s, t->classes[k].time_s * 1e3);
	}
	strbuf_release(&sb);
	svg_chart_size(c, 860, (unsigned)(100 + 26 * n));
	return c;
}

static void bottleneck_text(struct html_doc *d, const struct profile_step *t)
{
	struct strbuf sb = STRBUF_INIT;
	char b1[FMT_LEN], b2[FMT_LEN];
	strbuf_addf(&sb,
		    "Bottleneck: %s, %s of the wall time; removing it would speed the step up by at most %s. ",
		    t->bottleneck, fmt_pct(t->bottleneck_share, 1, b1, sizeof(b1)),
		    fmt_pct(t->max_gain, 0, b2, sizeof(b2)));
	strbuf_addf(&sb, "Remedy: %s.", t->remedy);
	html_paragraph(d, strbuf_str(&sb));
	strbuf_release(&sb);
}

/* Adds the sections of one trace to d, their ids starting with id; 0, or -1 with err set. */
static int trace_sections(struct html_doc *d, const struct profile_result *r, const char *id, struct diag *err)
{
	struct strbuf sb = STRBUF_INIT;
	struct svg_chart *steps, *classes;
	int rc = 0;
	strbuf_addf(&sb, "%s-steps", id);
	steps = chart_steps(r, strbuf_str(&sb));
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s-classes", id);
	classes = chart_classes(&r->total, strbuf_str(&sb));
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s: %s, %s schema, %lld events, %lld on the GPU, %zu step%s.", r->file,
		    r->gpu ? r->gpu : "GPU not named", r->schema, r->events, r->gpu_events, r->nsteps,
		    r->nsteps == 1 ? "" : "s");
	html_paragraph(d, strbuf_str(&sb));
	bottleneck_text(d, &r->total);
	if (r->total.wall_s > 0)
		rc = html_chart(d, steps, err);
	if (!rc && r->total.nclasses)
		rc = html_chart(d, classes, err);
	if (!rc) {
		html_heading(d, 3, "Steps");
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s-step-table", id);
		rows_table(d, strbuf_str(&sb), profile_step_schema(), step_cols, r->nsteps + (r->nsteps > 1),
			   step_fill, r);
		html_heading(d, 3, "Kernel classes, all steps");
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s-class-table", id);
		rows_table(d, strbuf_str(&sb), profile_class_schema(), class_cols, r->total.nclasses, class_fill,
			   &r->total);
	}
	svg_chart_free(steps);
	svg_chart_free(classes);
	strbuf_release(&sb);
	return rc;
}

static const char *const notes =
	"Class times are sums of kernel durations and overlap where streams run together; idle time is "
	"the step's wall time the GPU had nothing to run, split by what the host was doing. "
	"Formulas: docs/profile.md.";

int view_profile_report(const struct profile_result *r, const char *path, struct diag *err)
{
	struct strbuf sb = STRBUF_INIT;
	struct html_doc *d;
	int rc;
	strbuf_addf(&sb, "gpuscope profile: %s", r->file);
	d = html_new(strbuf_str(&sb));
	html_heading(d, 1, strbuf_str(&sb));
	rc = trace_sections(d, r, "profile", err);
	html_note(d, notes);
	if (!rc)
		rc = html_write_file(d, path, err);
	html_free(d);
	strbuf_release(&sb);
	return rc;
}

static struct svg_chart *chart_ranks(const struct profile_job *j)
{
	struct svg_chart *c = svg_chart_new(SVG_HBAR, "profile-ranks", "Mean step by rank, ms");
	struct strbuf sb = STRBUF_INIT;
	int comp = svg_series(c, "compute (GPU work apart from communication)");
	int comm = svg_series(c, "exposed communication");
	int idle = svg_series(c, "GPU idle");
	size_t i, n = j->nranks < MAX_BARS ? j->nranks : MAX_BARS;
	svg_axis(c, 'x', "time per step", "ms", SVG_SCALE_LINEAR);
	for (i = 0; i < n; i++) {
		const struct profile_rank *k = &j->ranks[i];
		int bar;
		strbuf_reset(&sb);
		strbuf_addf(&sb, "rank %lld", k->rank);
		bar = svg_bar(c, strbuf_str(&sb));
		svg_bar_value(c, bar, comp, k->compute_s * 1e3);
		svg_bar_value(c, bar, comm, k->comm_exposed_s * 1e3);
		svg_bar_value(c, bar, idle, fmax(0, k->step_s - k->busy_s) * 1e3);
	}
	strbuf_release(&sb);
	svg_chart_size(c, 860, (unsigned)(110 + 28 * n));
	return c;
}

int view_profile_job_report(const struct profile_job *j, const char *path, struct diag *err)
{
	struct strbuf sb = STRBUF_INIT;
	struct svg_chart *ranks = chart_ranks(j);
	struct html_doc *d;
	char b1[FMT_LEN], b2[FMT_LEN];
	size_t i;
	int rc;
	strbuf_addf(&sb, "gpuscope profile: %zu ranks", j->nranks);
	d = html_new(strbuf_str(&sb));
	html_heading(d, 1, strbuf_str(&sb));
	strbuf_reset(&sb);
	strbuf_addf(&sb,
		    "Verdict: %s. Rank %lld computes the most per step (compute spreads %s across the ranks); "
		    "the others wait for it %s per step on average. %s.",
		    j->verdict, j->straggler_rank, fmt_pct(j->compute_spread, 1, b1, sizeof(b1)),
		    fmt_duration(j->wait_s, FMT_DURATION_SHORT, b2, sizeof(b2)), j->advice);
	html_paragraph(d, strbuf_str(&sb));
	rc = html_chart(d, ranks, err);
	if (!rc)
		rows_table(d, "ranks", profile_rank_schema(), rank_cols, j->nranks, rank_fill, j);
	for (i = 0; i < j->nranks && !rc; i++) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, "Rank %lld", j->ranks[i].rank);
		html_heading(d, 2, strbuf_str(&sb));
		strbuf_reset(&sb);
		strbuf_addf(&sb, "rank%lld", j->ranks[i].rank);
		rc = trace_sections(d, j->ranks[i].r, strbuf_str(&sb), err);
	}
	html_note(d, notes);
	if (!rc)
		rc = html_write_file(d, path, err);
	svg_chart_free(ranks);
	html_free(d);
	strbuf_release(&sb);
	return rc;
}
