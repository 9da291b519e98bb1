#include "view/validate.h"

#include <jansson.h>
#include <math.h>

#include "report/field.h"
#include "report/fmt.h"
#include "report/table.h"
#include "util/strbuf.h"

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
	char b[FMT_LEN];
	size_t i, k;

	for (k = 0; k < NCOLUMNS; k++) {
		col[k] = report_field_index(s, case_columns[k]);
		table_column(tb, s->fields[col[k]].name, k < 2 ? ALIGN_LEFT : ALIGN_RIGHT);
	}
	if (csv) {
		table_column(tb, s->fields[model].name, ALIGN_LEFT);
		table_column(tb, s->fields[reason].name, ALIGN_LEFT);
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
	case VALIDATE_ALL:
		strbuf_addstr(sb, "all cases");
		break;
	case VALIDATE_CLASS:
	default:
		return NULL;
	}
	return strbuf_str(sb);
}

/* The summary: absolute errors in %, coverage as predicted/given. */
static struct table *summary_table(const struct validate_result *res)
{
	struct table *tb = table_new();
	struct strbuf label = STRBUF_INIT;
	char b[FMT_LEN];
	size_t i;

	table_column(tb, "metric", ALIGN_LEFT);
	table_column(tb, "predicted", ALIGN_RIGHT);
	table_column(tb, "median", ALIGN_RIGHT);
	table_column(tb, "<=20%", ALIGN_RIGHT);
	table_column(tb, "worst", ALIGN_RIGHT);
	table_column(tb, "worst case", ALIGN_LEFT);
	for (i = 0; i < res->nstats; i++) {
		const struct validate_stats *s = &res->stats[i];
		const char *name = stats_label(s, &label);
		if (!name)
			continue;
		table_row(tb);
		table_cell(tb, name);
		table_cellf(tb, "%zu/%zu", s->predicted, s->cases);
		table_cell(tb, fmt_num(100 * s->median_abs_error, 1, b, sizeof(b)));
		table_cell(tb,
			   s->predicted ? fmt_num(100.0 * s->within_20pct / s->predicted, 0, b, sizeof(b)) : "-");
		table_cell(tb, fmt_num(100 * s->worst_abs_error, 1, b, sizeof(b)));
		table_cell(tb, s->worst_id ? s->worst_id : "-");
	}
	strbuf_release(&label);
	return tb;
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
		json_array_append_new(arr, c);
	}
	report_row_free(row);
	return arr;
}

/* The totals, then the lines by metric, group, class (each holding its sets) and set. */
static json_t *summary_json(const struct validate_result *res)
{
	struct report_row *row = report_row_new(validate_summary_schema());
	json_t *sum = json_object(), *ms = json_object(), *gs = json_object(), *cls = NULL, *sets = NULL;
	json_t *cur = NULL; /* the class whose sets follow it */
	size_t i;

	validate_summary_row(&res->stats[res->nstats - 1], row);
	report_row_json_into(row, sum);
	report_row_free(row);
	row = report_row_new(validate_stats_schema());
	for (i = 0; i + 1 < res->nstats; i++) {
		const struct validate_stats *s = &res->stats[i];
		json_t *x, *parent;
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
		case VALIDATE_SET:
		default:
			parent = sets;
			break;
		}
		json_object_set_new(parent, s->name, x);
	}
	report_row_free(row);
	json_object_set_new(sum, "metrics", ms);
	json_object_set_new(sum, "groups", gs);
	if (cls) {
		json_object_set_new(sum, "classes", cls);
		json_object_set_new(sum, "sets", sets);
	}
	return sum;
}

json_t *view_validate_json(const struct validate_result *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "cases", cases_json(r));
	json_object_set_new(o, "summary", summary_json(r));
	return o;
}
