#include "view/profile.h"

#include <jansson.h>
#include <string.h>

#include "report/field.h"
#include "report/fmt.h"
#include "report/table.h"
#include "util/strbuf.h"

/* Cells of the named fields of row, formatted by their units. */
static void cells(struct table *tb, const struct report_row *row, const char *const *names)
{
	const struct report_schema *s = report_row_schema(row);
	char b[FMT_LEN];
	for (; *names; names++)
		table_cell(tb, report_value_text(row, (size_t)report_field_index(s, *names), b, sizeof(b)));
}

static void columns(struct table *tb, const char *const *names, size_t nleft)
{
	size_t k;
	for (k = 0; names[k]; k++)
		table_column(tb, names[k], k < nleft ? ALIGN_LEFT : ALIGN_RIGHT);
}

static const char *const step_cols[] = {"step",   "wall_s",         "gpu_busy_s", "gpu_idle",
					"comm_s", "comm_exposed_s", NULL};
static const char *const class_cols[] = {"class", "sub", "time_s", "share", "kernels", "tflops", "of_peak", NULL};

/* Row i of a result's class list into row, for the printers and JSON below. */
typedef void (*class_fill_fn)(const void *ctx, size_t i, struct report_row *row);
static void step_class(const void *ctx, size_t i, struct report_row *row)
{
	profile_class_row(&((const struct profile_step *)ctx)->classes[i], row);
}

static void target_class(const void *ctx, size_t i, struct report_row *row)
{
	profile_target_class_row(&((const struct profile_target *)ctx)->classes[i], row);
}

/* n rows of schema sc, filled by fill, as a table of the columns cols (the first nleft to the left). */
static void print_rows(FILE *out, const struct report_schema *sc, const char *const *cols, size_t nleft, size_t n,
		       class_fill_fn fill, const void *ctx)
{
	struct report_row *row = report_row_new(sc);
	struct table *tb = table_new();
	size_t i;
	columns(tb, cols, nleft);
	for (i = 0; i < n; i++) {
		fill(ctx, i, row);
		table_row(tb);
		cells(tb, row, cols);
	}
	table_print(tb, out, 0);
	table_free(tb);
	report_row_free(row);
}

/* text in lines of at most width columns, broken at spaces, each indented by two */
static void print_wrapped(FILE *out, const char *text, size_t width)
{
	while (*text) {
		size_t n = strlen(text), cut = n;
		if (n + 2 > width) {
			for (cut = width - 2; cut > 0 && text[cut] != ' '; cut--)
				;
			if (!cut)
				cut = width - 2;
		}
		fprintf(out, "  %.*s\n", (int)cut, text);
		text += cut;
		while (*text == ' ')
			text++;
	}
}

void view_profile_print(FILE *out, const struct profile_result *r)
{
	struct report_row *row = report_row_new(profile_step_schema());
	struct table *tb = table_new();
	char b1[FMT_LEN], b2[FMT_LEN];
	size_t i;

	fprintf(out, "%s\n  %s, %s schema, %lld events, %lld on the GPU, %zu step%s\n", r->file,
		r->gpu ? r->gpu : "GPU not named", r->schema, r->events, r->gpu_events, r->nsteps,
		r->nsteps == 1 ? "" : "s");
	if (r->unassigned)
		fprintf(out, "%lld GPU events were launched outside every step and are left out\n", r->unassigned);
	if (r->devices > 1)
		fprintf(out, "the trace holds %d devices: their times are added together\n", r->devices);
	columns(tb, step_cols, 1);
	for (i = 0; i <= r->nsteps; i++) {
		if (i == r->nsteps && r->nsteps == 1)
			break;
		profile_step_row(i < r->nsteps ? &r->steps[i] : &r->total, row);
		table_row(tb);
		cells(tb, row, step_cols);
	}
	fprintf(out, "\n");
	table_print(tb, out, 0);
	fprintf(out, "\nGPU time by kernel class, %s (share of the wall time; streams overlap)\n",
		r->nsteps == 1 ? r->steps[0].name : "all steps");
	print_rows(out, profile_class_schema(), class_cols, 2, r->total.nclasses, step_class, &r->total);
	fprintf(out,
		"\nbottleneck: %s, %s of the wall time\n(removing it would speed the step up by at most %s)\n",
		r->total.bottleneck, fmt_pct(r->total.bottleneck_share, 1, b1, sizeof(b1)),
		fmt_pct(r->total.max_gain, 0, b2, sizeof(b2)));
	print_wrapped(out, r->total.remedy, 78);
	table_free(tb);
	report_row_free(row);
}

void view_profile_csv(FILE *out, const struct profile_result *r)
{
	struct report_row *row = report_row_new(profile_class_schema());
	size_t i, k;
	report_csv_header(profile_class_schema(), out);
	for (i = 0; i <= r->nsteps; i++) {
		const struct profile_step *s = i < r->nsteps ? &r->steps[i] : &r->total;
		for (k = 0; k < s->nclasses; k++) {
			profile_class_row(&s->classes[k], row);
			report_csv_row(row, out);
		}
	}
	report_row_free(row);
}

/* head's fields and "classes": [fill(ctx, i) for i < n] as one object. */
static json_t *with_classes(const struct report_row *head, size_t n, class_fill_fn fill, const void *ctx,
			    struct report_row *crow)
{
	json_t *o = report_row_json(head), *a = json_array();
	size_t i;
	for (i = 0; i < n; i++) {
		fill(ctx, i, crow);
		json_array_append_new(a, report_row_json(crow));
	}
	json_object_set_new(o, "classes", a);
	return o;
}

static json_t *step_json(const struct profile_step *s, struct report_row *srow, struct report_row *crow)
{
	profile_step_row(s, srow);
	return with_classes(srow, s->nclasses, step_class, s, crow);
}

json_t *view_profile_json(const struct profile_result *r)
{
	struct report_row *trow = report_row_new(profile_trace_schema());
	struct report_row *srow = report_row_new(profile_step_schema());
	struct report_row *crow = report_row_new(profile_class_schema());
	json_t *o = json_object(), *steps = json_array();
	size_t i;
	profile_trace_row(r, trow);
	json_object_set_new(o, "trace", report_row_json(trow));
	for (i = 0; i < r->nsteps; i++)
		json_array_append_new(steps, step_json(&r->steps[i], srow, crow));
	json_object_set_new(o, "steps", steps);
	json_object_set_new(o, "total", step_json(&r->total, srow, crow));
	report_row_free(trow);
	report_row_free(srow);
	report_row_free(crow);
	return o;
}

static const char *const target_cols[] = {"class", "sub", "ceiling", "measured_s", "factor", "predicted_s", NULL};

static void print_target(FILE *out, const struct profile_target *t)
{
	char b1[FMT_LEN], b2[FMT_LEN];
	char b3[FMT_LEN];
	fprintf(out,
		"\non %s instead of %s\n(each kernel scaled by its ceiling, matrix kernels by their waves on %.0f\n"
		"SMs instead of %.0f, collectives re-timed on the links; then replayed in launch\n"
		"order on their streams, with their waits and the host's synchronisations)\n",
		t->target, t->source, t->target_sms, t->source_sms);
	print_rows(out, profile_target_class_schema(), target_cols, 3, t->nclasses, target_class, t);
	fprintf(out, "mean step: %s measured, %s predicted by the replay (x%.2f),\n%s by the ceilings alone\n",
		fmt_duration(t->measured_step_s, FMT_DURATION_SHORT, b1, sizeof(b1)),
		fmt_duration(t->predicted_step_s, FMT_DURATION_SHORT, b2, sizeof(b2)), t->speedup,
		fmt_duration(t->scaled_step_s, FMT_DURATION_SHORT, b3, sizeof(b3)));
}

static json_t *target_json(const struct profile_target *t)
{
	struct report_row *row = report_row_new(profile_target_schema());
	struct report_row *crow = report_row_new(profile_target_class_schema());
	json_t *o;
	profile_target_row(t, row);
	o = with_classes(row, t->nclasses, target_class, t, crow);
	report_row_free(row);
	report_row_free(crow);
	return o;
}

/* n rows of schema sc, filled by fill, as CSV with its header. */
static void csv_rows(FILE *out, const struct report_schema *sc, size_t n, class_fill_fn fill, const void *ctx)
{
	struct report_row *row = report_row_new(sc);
	size_t i;
	report_csv_header(sc, out);
	for (i = 0; i < n; i++) {
		fill(ctx, i, row);
		report_csv_row(row, out);
	}
	report_row_free(row);
}

static void target_csv(FILE *out, const struct profile_target *t)
{
	csv_rows(out, profile_target_class_schema(), t->nclasses, target_class, t);
}

void view_profile_write(FILE *out, const struct profile_result *r, const struct profile_target *t,
			enum output_format fmt)
{
	json_t *o;
	switch (fmt) {
	case FORMAT_JSON:
		o = view_profile_json(r);
		if (t)
			json_object_set_new(o, "target", target_json(t));
		report_json_print(o);
		json_decref(o);
		return;
	case FORMAT_CSV:
		if (t)
			target_csv(out, t);
		else
			view_profile_csv(out, r);
		return;
	case FORMAT_HUMAN:
	default:
		view_profile_print(out, r);
		if (t)
			print_target(out, t);
	}
}

static void calib_part(const void *ctx, size_t i, struct report_row *row)
{
	profile_calib_part_row(&((const struct profile_calib *)ctx)->parts[i], row);
}

void view_profile_calib_write(FILE *out, const struct profile_calib *k, enum output_format fmt)
{
	static const char *const cols[] = {"part", "traced_s", "estimated_s", "factor", NULL};
	struct report_row *row, *prow;
	char b1[FMT_LEN], b2[FMT_LEN], b3[FMT_LEN];
	json_t *o;
	if (fmt == FORMAT_CSV) {
		csv_rows(out, profile_calib_part_schema(), MODEL_NCORR, calib_part, k);
		return;
	}
	if (fmt == FORMAT_JSON) {
		row = report_row_new(profile_calib_schema());
		prow = report_row_new(profile_calib_part_schema());
		profile_calib_row(k, row);
		o = with_classes(row, MODEL_NCORR, calib_part, k, prow);
		json_object_set(o, "parts", json_object_get(o, "classes"));
		json_object_del(o, "classes");
		report_json_print(o);
		json_decref(o);
		report_row_free(row);
		report_row_free(prow);
		return;
	}
	fprintf(out, "the trace against the model's estimate of %s on %s\n", k->model, k->gpu);
	print_rows(out, profile_calib_part_schema(), cols, 1, MODEL_NCORR, calib_part, k);
	fprintf(out, "step: %s traced, %s estimated, %s with the corrections\n",
		fmt_duration(k->traced_step_s, FMT_DURATION_SHORT, b1, sizeof(b1)),
		fmt_duration(k->estimated_step_s, FMT_DURATION_SHORT, b2, sizeof(b2)),
		fmt_duration(k->corrected_step_s, FMT_DURATION_SHORT, b3, sizeof(b3)));
}

static const char *const rank_cols[] = {"rank",    "step_s",     "compute_s", "comm_exposed_s",
					"vs_mean", "bottleneck", NULL};

static void job_rank(const void *ctx, size_t i, struct report_row *row)
{
	profile_rank_row(&((const struct profile_job *)ctx)->ranks[i], row);
}

static void print_job(FILE *out, const struct profile_job *j)
{
	char b1[FMT_LEN], b2[FMT_LEN], b3[FMT_LEN];
	struct strbuf sb = STRBUF_INIT;
	fprintf(out, "%zu ranks", j->nranks);
	if (j->world_size > 0)
		fprintf(out, " of a world of %lld", j->world_size);
	fprintf(out, "%s; mean step %s, the slowest rank (%lld) %s\n\n",
		j->ranks_from_files ? " (numbered by file: the traces lack distinct ranks)" : "",
		fmt_duration(j->step_mean_s, FMT_DURATION_SHORT, b1, sizeof(b1)), j->slowest_rank,
		fmt_duration(j->step_max_s, FMT_DURATION_SHORT, b2, sizeof(b2)));
	print_rows(out, profile_rank_schema(), rank_cols, 1, j->nranks, job_rank, j);
	strbuf_addf(&sb,
		    "verdict: %s. Rank %lld computes the most per step (compute spreads %s across the ranks); "
		    "the others wait for it %s per step on average. %s.",
		    j->verdict, j->straggler_rank, fmt_pct(j->compute_spread, 1, b1, sizeof(b1)),
		    fmt_duration(j->wait_s, FMT_DURATION_SHORT, b3, sizeof(b3)), j->advice);
	fprintf(out, "\n");
	print_wrapped(out, strbuf_str(&sb), 78);
	strbuf_release(&sb);
}

/* One object of a row's fields, made and freed here. */
typedef void (*row_fn)(const void *obj, struct report_row *row);
static json_t *row_object(const struct report_schema *sc, row_fn fill, const void *obj)
{
	struct report_row *row = report_row_new(sc);
	json_t *o;
	fill(obj, row);
	o = report_row_json(row);
	report_row_free(row);
	return o;
}

static void rank_fill(const void *k, struct report_row *row)
{
	profile_rank_row(k, row);
}

static void job_fill(const void *j, struct report_row *row)
{
	profile_job_row(j, row);
}

static json_t *job_json(const struct profile_job *j)
{
	json_t *o = json_object(), *ranks = json_array();
	size_t i;
	json_object_set_new(o, "job", row_object(profile_job_schema(), job_fill, j));
	for (i = 0; i < j->nranks; i++) {
		json_t *k = row_object(profile_rank_schema(), rank_fill, &j->ranks[i]);
		json_object_set_new(k, "profile", view_profile_json(j->ranks[i].r));
		json_array_append_new(ranks, k);
	}
	json_object_set_new(o, "ranks", ranks);
	return o;
}

void view_profile_job_write(FILE *out, const struct profile_job *j, enum output_format fmt)
{
	json_t *o;
	switch (fmt) {
	case FORMAT_JSON:
		o = job_json(j);
		report_json_print(o);
		json_decref(o);
		return;
	case FORMAT_CSV:
		csv_rows(out, profile_rank_schema(), j->nranks, job_rank, j);
		return;
	case FORMAT_HUMAN:
	default:
		print_job(out, j);
	}
}
