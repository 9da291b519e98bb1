/*
 * tco --have: the yearly cost of keeping servers already owned (power at the
 * wall, space, staff, support; no capex) against renting the same GPUs at
 * each price tier of the instance, for a person and as JSON.  The figures
 * are cost/cost.h's tco_keep() and tco_keep_tiers(), their fields declared
 * once in cost/fields.c.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost/fields.h"
#include "report/field.h"
#include "report/fmt.h"
#include "report/table.h"
#include "util/strbuf.h"
#include "view/tco.h"

/* The tier the user named among t[0..n); NULL when the instance lacks it. */
static const struct tco_keep_tier *named_tier(const struct view_tco_keep *v, const struct tco_keep_tier *t,
					      size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (t[i].tier == v->in->cloud_tier)
			return &t[i];
	return NULL;
}

/* "Against the 3y price, keeping them costs $X a year and renting $Y: keeping saves $Z a year ..." */
static void verdict(struct strbuf *sb, const struct view_tco_keep *v, const struct tco_keep_tier *t, size_t n)
{
	const struct tco_keep_tier *x = named_tier(v, t, n);
	char a[FMT_LEN], b[FMT_LEN], c[FMT_LEN];

	if (!x) {
		strbuf_addf(sb, "Keeping them costs %s a year; no cloud comparison.",
			    fmt_money(v->k->usd_per_year, FMT_MONEY_SHORT, a, sizeof(a)));
		return;
	}
	strbuf_addf(sb, "Against the %s price of %s, keeping them costs %s a year and renting the same GPUs %s: ",
		    cat_tier_name(x->tier), v->in->cloud_name ? v->in->cloud_name : v->in->cloud_key,
		    fmt_money(x->keep_usd_per_year, FMT_MONEY_SHORT, a, sizeof(a)),
		    fmt_money(x->rent_usd_per_year, FMT_MONEY_SHORT, b, sizeof(b)));
	strbuf_addf(sb, "%s saves %s a year", x->savings_usd_per_year >= 0 ? "keeping" : "renting",
		    fmt_money(fabs(x->savings_usd_per_year), FMT_MONEY_SHORT, c, sizeof(c)));
	if (x->own_when)
		strbuf_addf(sb, "; keeping wins %s %.1f %% utilisation", x->own_when,
			    x->breakeven_utilisation_pct);
	strbuf_addch(sb, '.');
}

/* Field i of row for a table: money as money ("$161k", "$2.74"), the rest by its unit. */
static const char *cell_text(const struct report_row *row, const struct report_schema *s, size_t i, char *buf,
			     size_t len)
{
	const char *u = s->fields[i].unit;
	double v;
	if (s->fields[i].type != REPORT_NUM || !u || strncmp(u, "USD", 3))
		return report_value_text(row, i, buf, len);
	v = report_num(row, i);
	if (isnan(v))
		return "-";
	return fmt_money(v, fabs(v) < 10 ? FMT_MONEY_CENTS : FMT_MONEY_SHORT, buf, len);
}

#define KEEP_TIER_COLS 6
static const char *const keep_tier_cols[KEEP_TIER_COLS] = {"tier",
							   "usd_per_gpu_hour",
							   "rent_usd_per_year",
							   "keep_usd_per_year",
							   "savings_usd_per_year",
							   "breakeven_utilisation_pct"};
static const char *const keep_tier_heads[KEEP_TIER_COLS] = {"tier",      "USD/GPU-h",  "rent/year",
							    "keep/year", "saves/year", "keeping wins"};

static void print_tiers(FILE *out, const struct tco_keep_tier *t, size_t n)
{
	struct report_row *row = report_row_new(tco_keep_tier_schema());
	struct table *tb = table_new();
	char buf[FMT_LEN];
	size_t i, k;

	for (k = 0; k < KEEP_TIER_COLS; k++)
		table_column(tb, keep_tier_heads[k], k ? ALIGN_RIGHT : ALIGN_LEFT);
	for (i = 0; i < n; i++) {
		report_row_clear(row);
		tco_keep_tier_row(&t[i], row);
		table_row(tb);
		for (k = 0; k < KEEP_TIER_COLS; k++) {
			long f = report_field_index(tco_keep_tier_schema(), keep_tier_cols[k]);
			if (k == KEEP_TIER_COLS - 1 && t[i].own_when) {
				snprintf(buf, sizeof(buf), "%s %.1f %%", t[i].own_when,
					 t[i].breakeven_utilisation_pct);
				table_cell(tb, buf);
			} else if (k == KEEP_TIER_COLS - 1) {
				table_cell(tb, t[i].savings_usd_per_year >= 0 ? "always" : "never");
			} else {
				table_cell(tb,
					   cell_text(row, tco_keep_tier_schema(), (size_t)f, buf, sizeof(buf)));
			}
		}
	}
	table_print(tb, out, 80);
	table_free(tb);
	report_row_free(row);
}

/* The notes, one wrapped paragraph a line. */
static void print_notes(FILE *out, const char *notes)
{
	struct strbuf line = STRBUF_INIT;
	const char *nl;
	for (; *notes; notes = nl + 1) {
		nl = strchr(notes, '\n');
		if (!nl)
			nl = notes + strlen(notes) - 1;
		strbuf_reset(&line);
		strbuf_add(&line, notes, (size_t)(nl - notes) + (*nl != '\n'));
		table_wrap(out, "", strbuf_str(&line), 2, 80);
	}
	strbuf_release(&line);
}

void view_tco_keep_print(FILE *out, const struct view_tco_keep *v)
{
	struct tco_keep_tier t[CAT_NTIERS];
	size_t n = tco_keep_tiers(v->in, t), i;
	struct report_row *row = report_row_new(tco_keep_schema());
	const struct report_schema *s = tco_keep_schema();
	struct strbuf sb = STRBUF_INIT;
	char buf[FMT_LEN];

	struct table *tb = table_new();

	strbuf_addf(&sb, "Keeping %g x ", v->k->servers);
	tco_inputs_name(v->in, &sb);
	strbuf_addf(&sb, " owned: no capex, a year of running costs at %.0f %% utilisation",
		    v->in->value[TCO_IN_UTILISATION]);
	table_wrap(out, "", strbuf_str(&sb), 2, 80);
	print_notes(out, v->notes);
	tco_keep_row(v->k, row);
	table_column(tb, "term", ALIGN_LEFT);
	table_column(tb, "value", ALIGN_RIGHT);
	for (i = 0; i < s->nfields; i++) {
		table_row(tb);
		table_cell(tb, s->fields[i].name);
		table_cell(tb, cell_text(row, s, i, buf, sizeof(buf)));
	}
	fputc('\n', out);
	table_print(tb, out, 80);
	table_free(tb);
	report_row_free(row);
	if (n) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, "Against renting the same GPUs, each price of %s (1y, 3y: every hour paid)",
			    v->in->cloud_name ? v->in->cloud_name : v->in->cloud_key);
		fputc('\n', out);
		table_wrap(out, "", strbuf_str(&sb), 2, 80);
		print_tiers(out, t, n);
	}
	strbuf_reset(&sb);
	verdict(&sb, v, t, n);
	fputc('\n', out);
	table_wrap(out, "", strbuf_str(&sb), 0, 80);
	strbuf_release(&sb);
}

json_t *view_tco_keep_json(const struct view_tco_keep *v)
{
	struct tco_keep_tier t[CAT_NTIERS];
	size_t n = tco_keep_tiers(v->in, t), i;
	struct report_row *row = report_row_new(tco_keep_schema());
	struct strbuf sb = STRBUF_INIT;
	json_t *o = json_object(), *a = json_array();

	tco_inputs_name(v->in, &sb);
	json_object_set_new(o, "server", json_string(v->in->server_key ? v->in->server_key : ""));
	json_object_set_new(o, "name", json_string(strbuf_str(&sb)));
	json_object_set_new(o, "utilisation_pct", json_real(v->in->value[TCO_IN_UTILISATION]));
	tco_keep_row(v->k, row);
	json_object_set_new(o, "keep", report_row_json(row));
	report_row_free(row);
	json_object_set_new(o, "instance", v->in->cloud_key ? json_string(v->in->cloud_key) : json_null());
	json_object_set_new(o, "price_tier",
			    v->in->cloud_key ? json_string(cat_tier_name(v->in->cloud_tier)) : json_null());
	row = report_row_new(tco_keep_tier_schema());
	for (i = 0; i < n; i++) {
		report_row_clear(row);
		tco_keep_tier_row(&t[i], row);
		json_array_append_new(a, report_row_json(row));
	}
	report_row_free(row);
	json_object_set_new(o, "tiers", a);
	strbuf_reset(&sb);
	verdict(&sb, v, t, n);
	json_object_set_new(o, "verdict", json_string(strbuf_str(&sb)));
	json_object_set_new(o, "notes", json_string(v->notes));
	strbuf_release(&sb);
	return o;
}
