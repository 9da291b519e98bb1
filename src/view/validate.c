#include "view/validate.h"

#include <jansson.h>
#include <math.h>

#include "model/fitted.h"
#include "report/field.h"
#include "report/fmt.h"
#include "report/table.h"
#include "util/strbuf.h"
#include "view/calib.h"

/* The case fields that open the table, in its order; CSV adds model and reason, a person gets a note. */
static const char *const case_columns[] = {"id", "metric", "measured", "predicted", "error"};
#define NCOLUMNS (sizeof(case_columns) / sizeof(case_columns[0]))

/* One table of the cases, for a person or (csv) as CSV's cells: "-" is an empty CSV cell. */
static struct table *case_table(const struct validate_result *res, int csv)
{
	const struct report_schema *s = validate_case_schema();
	struct report_row *row = report_row_new(s);
	struct table *tb = table_new();
	long col[NCOLUMNS], reason = report_field_index(s, "reason"), model = report_field_index(s, "model");
	long cal = report_field_index(s, "calibration");
	char b[FMT_LEN];
	size_t i, k;

	for (k = 0; k < NCOLUMNS; k++) {
		col[k] = report_field_index(s, case_columns[k]);
		table_column(tb, s->fields[col[k]].name, k < 2 ? ALIGN_LEFT : ALIGN_RIGHT);
	}
	if (csv) {
		table_column(tb, s->fields[model].name, ALIGN_LEFT);
		table_column(tb, s->fields[reason].name, ALIGN_LEFT);
		table_column(tb, s->fields[cal].name, ALIGN_LEFT);
	} else {
		table_column(tb, "note", ALIGN_LEFT);
	}
	for (i = 0; i < res->ncases; i++) {
		const struct validate_case *c = &res->cases[i];
		const char *why;
		double err;
		validate_case_row(c, row);
		why = report_text(row, (size_t)reason);
		err = report_num(row, (size_t)col[NCOLUMNS - 1]);
		table_row(tb);
		for (k = 0; k + 1 < NCOLUMNS; k++)
			table_cell(tb, report_value_text(row, (size_t)col[k], b, sizeof(b)));
		/* CSV keeps the fraction; a person reads a signed percentage */
		table_cell(tb, csv ? fmt_num(err, 4, b, sizeof(b)) : fmt_pct_signed(err, 1, b, sizeof(b)));
		if (csv)
			table_cell(tb, report_text(row, (size_t)model));
		table_cell(tb, why ? why : isnan(c->predicted) ? "skipped" : "");
		if (csv)
			table_cell(tb, c->calibration ? c->calibration : "");
	}
	report_row_free(row);
	return tb;
}

/* A summary line's name in the human table; NULL for a class alone (its sets stand for it). */
static const char *stats_label(const struct validate_stats *s, struct strbuf *sb)
{
	strbuf_reset(sb);
	switch (s->scope) {
	case VALIDATE_METRIC:
		strbuf_addstr(sb, s->name);
		break;
	case VALIDATE_GROUP:
	case VALIDATE_SET:
		strbuf_addf(sb, "all %s", s->name);
		break;
	case VALIDATE_CLASS_SET:
		strbuf_addf(sb, "%s (%s)", s->name, s->set);
		break;
	case VALIDATE_SAMPLE:
		strbuf_addf(sb, "%s sources", !strcmp(s->name, "in") ? "in-sample" : "out-of-sample");
		break;
	case VALIDATE_ALL:
		strbuf_addstr(sb, "all cases");
		break;
	case VALIDATE_SOURCE:
	case VALIDATE_CLASS:
	default:
		return NULL;
	}
	return strbuf_str(sb);
}

/* The error columns of a summary table, after its first (the name) and, for sources, "sample". */
static void stats_columns(struct table *tb)
{
	table_column(tb, "predicted", ALIGN_RIGHT);
	table_column(tb, "median", ALIGN_RIGHT);
	table_column(tb, "<=20%", ALIGN_RIGHT);
	table_column(tb, "worst", ALIGN_RIGHT);
	table_column(tb, "worst case", ALIGN_LEFT);
}

static void stats_cells(struct table *tb, const struct validate_stats *s)
{
	char b[FMT_LEN];
	table_cellf(tb, "%zu/%zu", s->predicted, s->cases);
	table_cell(tb, fmt_num(100 * s->median_abs_error, 1, b, sizeof(b)));
	table_cell(tb, s->predicted ? fmt_num(100.0 * s->within_20pct / s->predicted, 0, b, sizeof(b)) : "-");
	table_cell(tb, fmt_num(100 * s->worst_abs_error, 1, b, sizeof(b)));
	table_cell(tb, s->worst_id ? s->worst_id : "-");
}

/* The summary: absolute errors in %, coverage as predicted/given. */
static struct table *summary_table(const struct validate_result *res)
{
	struct table *tb = table_new();
	struct strbuf label = STRBUF_INIT;
	size_t i;

	table_column(tb, "metric", ALIGN_LEFT);
	stats_columns(tb);
	for (i = 0; i < res->nstats; i++) {
		const struct validate_stats *s = &res->stats[i];
		const char *name = stats_label(s, &label);
		if (!name)
			continue;
		table_row(tb);
		table_cell(tb, name);
		stats_cells(tb, s);
	}
	strbuf_release(&label);
	return tb;
}

void view_validate_sources(FILE *out, const struct validate_result *r, int csv)
{
	struct report_row *row = report_row_new(validate_source_schema());
	struct table *tb = table_new();
	struct strbuf label = STRBUF_INIT;
	size_t i;

	if (csv)
		report_csv_header(validate_source_schema(), out);
	table_column(tb, "source", ALIGN_LEFT);
	table_column(tb, "sample", ALIGN_LEFT);
	stats_columns(tb);
	for (i = 0; i < r->nstats; i++) {
		const struct validate_stats *s = &r->stats[i];
		if (csv && s->scope == VALIDATE_SOURCE) {
			validate_source_row(s, row);
			report_csv_row(row, out);
		}
		if (csv || (s->scope != VALIDATE_SOURCE && s->scope != VALIDATE_SAMPLE))
			continue;
		table_row(tb);
		table_cell(tb, s->scope == VALIDATE_SOURCE ? s->name : stats_label(s, &label));
		table_cell(tb, s->scope == VALIDATE_SOURCE ? (s->in_sample > 0 ? "in" : "out") : "");
		stats_cells(tb, s);
	}
	if (!csv) {
		fprintf(out,
			"absolute error by source, %%: \"in\" when a fitted constant of the model saw a\n"
			"case of the source (gpuscope validate --fitted lists them), \"out\" when none did\n");
		table_print(tb, out, 0);
	}
	table_free(tb);
	report_row_free(row);
	strbuf_release(&label);
}

void view_validate_refit(FILE *out, const struct validate_refit *r, enum output_format fmt)
{
	struct report_row *row = report_row_new(validate_refit_schema());
	json_t *arr = fmt == FORMAT_JSON ? json_array() : NULL;
	struct table *tb = table_new();
	char a[FMT_LEN], b[FMT_LEN];
	size_t i;

	if (fmt == FORMAT_CSV)
		report_csv_header(validate_refit_schema(), out);
	table_columns(tb, ALIGN_LEFT, "source", NULL);
	table_columns(tb, ALIGN_RIGHT, "cases", "shipped", "left out", "refit", NULL);
	for (i = 0; i < r->nrows; i++) {
		const struct validate_refit_source *s = &r->rows[i];
		validate_refit_row(s, row);
		if (arr) {
			json_array_append_new(arr, report_row_json(row));
			continue;
		}
		if (fmt == FORMAT_CSV) {
			report_csv_row(row, out);
			continue;
		}
		table_row(tb);
		table_cell(tb, s->source);
		table_cellf(tb, "%zu/%zu", s->predicted, s->cases);
		table_cell(tb, fmt_num(100 * s->shipped_median, 1, a, sizeof(a)));
		table_cell(tb, fmt_num(100 * s->left_out_median, 1, b, sizeof(b)));
		table_cellf(tb, "%zu/%zu%s", s->refit, s->constants, s->at_prior ? " (prior)" : "");
	}
	if (arr) {
		report_json_print(arr);
		json_decref(arr);
	} else if (fmt != FORMAT_CSV) {
		fprintf(out,
			"leave one source out, median absolute error, %%: shipped constants against\n"
			"the constants that saw the source refitted without it (refit: refitted / saw\n"
			"it; prior: some had no other case and took their prior, model/fitted.c)\n");
		table_print(tb, out, 0);
	}
	table_free(tb);
	report_row_free(row);
}

void view_validate_fitted(FILE *out, enum output_format fmt)
{
	const struct report_schema *sc = fitted_schema();
	struct report_row *row = report_row_new(sc);
	json_t *arr = fmt == FORMAT_JSON ? json_array() : NULL;
	size_t n, i;
	const struct fitted_const *f = fitted_consts(&n);

	if (fmt == FORMAT_CSV)
		report_csv_header(sc, out);
	for (i = 0; i < n; i++) {
		fitted_row(&f[i], row);
		if (arr)
			json_array_append_new(arr, report_row_json(row));
		else if (fmt == FORMAT_CSV)
			report_csv_row(row, out);
		else
			fprintf(out, "%-40s %s\n%-40s   fitted on %s\n", f[i].name, f[i].where, "", f[i].cases);
	}
	if (arr) {
		report_json_print(arr);
		json_decref(arr);
	}
	report_row_free(row);
}

void view_validate_print(FILE *out, const struct validate_result *r)
{
	struct table *tb = case_table(r, 0);
	table_print(tb, out, 0);
	table_free(tb);
	fprintf(out, "\nsummary (absolute error, %%)\n");
	tb = summary_table(r);
	table_print(tb, out, 0);
	table_free(tb);
	view_calibration_print(out, model_calibration_at(0));
}

void view_validate_csv(FILE *out, const struct validate_result *r)
{
	struct table *tb = case_table(r, 1);
	table_print_csv(tb, out);
	table_free(tb);
}

static json_t *cases_json(const struct validate_result *res)
{
	struct report_row *row = report_row_new(validate_case_schema());
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < res->ncases; i++) {
		json_t *c;
		validate_case_row(&res->cases[i], row);
		c = report_row_json(row);
		/* a case without a reason has no "reason" key, rather than null */
		if (json_is_null(json_object_get(c, "reason")))
			json_object_del(c, "reason");
		if (json_is_null(json_object_get(c, "calibration")))
			json_object_del(c, "calibration");
		json_array_append_new(arr, c);
	}
	report_row_free(row);
	return arr;
}

/* The totals, then the lines by metric, group, class (each holding its sets) and set. */
static json_t *summary_json(const struct validate_result *res)
{
	struct report_row *row = report_row_new(validate_summary_schema());
	struct report_row *srow = report_row_new(validate_source_schema());
	json_t *sum = json_object(), *ms = json_object(), *gs = json_object(), *cls = NULL, *sets = NULL;
	json_t *srcs = NULL, *samples = NULL;
	json_t *cur = NULL; /* the class whose sets follow it */
	size_t i;

	validate_summary_row(&res->stats[res->nstats - 1], row);
	report_row_json_into(row, sum);
	report_row_free(row);
	row = report_row_new(validate_stats_schema());
	for (i = 0; i + 1 < res->nstats; i++) {
		const struct validate_stats *s = &res->stats[i];
		json_t *x, *parent;
		if (s->scope == VALIDATE_SOURCE) {
			if (!srcs)
				srcs = json_object();
			validate_source_row(s, srow);
			json_object_set_new(srcs, s->name, report_row_json(srow));
			continue;
		}
		validate_stats_row(s, row);
		x = report_row_json(row);
		switch (s->scope) {
		case VALIDATE_METRIC:
			parent = ms;
			break;
		case VALIDATE_GROUP:
			parent = gs;
			break;
		case VALIDATE_CLASS:
			if (!cls) {
				cls = json_object();
				sets = json_object();
			}
			parent = cls;
			cur = x;
			break;
		case VALIDATE_CLASS_SET:
			json_object_set_new(cur, s->set, x);
			continue;
		case VALIDATE_SAMPLE:
			if (!samples)
				samples = json_object();
			parent = samples;
			break;
		case VALIDATE_SET:
		default:
			parent = sets;
			break;
		}
		json_object_set_new(parent, s->name, x);
	}
	report_row_free(row);
	report_row_free(srow);
	json_object_set_new(sum, "metrics", ms);
	json_object_set_new(sum, "groups", gs);
	if (cls) {
		json_object_set_new(sum, "classes", cls);
		json_object_set_new(sum, "sets", sets);
	}
	if (srcs)
		json_object_set_new(sum, "sources", srcs);
	if (samples)
		json_object_set_new(sum, "samples", samples);
	return sum;
}

json_t *view_validate_json(const struct validate_result *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "cases", cases_json(r));
	json_object_set_new(o, "summary", summary_json(r));
	json_object_set_new(o, "calibration", view_calibration_json(model_calibration_at(0)));
	return o;
}
