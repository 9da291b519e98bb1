/*
 * tco's text, JSON and HTML (view/tco.h).  The account is written once, by
 * account(): printed with its headings, or collected as "label = formula =
 * result" lines for the JSON and the report.
 */
#include "view/tco.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "cost/fields.h"
#include "report/field.h"
#include "report/fmt.h"
#include "report/html.h"
#include "report/svg.h"
#include "report/table.h"
#include "util/strbuf.h"

/* Shorthands for report/fmt.h: whole dollars, cents, tenths of a cent, a grouped count. */
#define USD0(v, b) fmt_money((v), FMT_MONEY_WHOLE, (b), FMT_LEN)
#define USD2(v, b) fmt_money((v), FMT_MONEY_CENTS, (b), FMT_LEN)
#define USD3(v, b) fmt_money((v), FMT_MONEY_MILLS, (b), FMT_LEN)
#define COUNT(v, b) fmt_grouped((v), 0, (b), FMT_LEN)

/* A value with its unit, a result with its unit: one number and a few letters. */
#define VALUE_LEN (FMT_LEN + 32)

/* The inputs in dollars: how precise, and per what. */
static const struct {
	enum tco_input id;
	enum fmt_money_style style;
	const char *per;
} money_inputs[] = {
	{TCO_IN_PRICE, FMT_MONEY_WHOLE, ""},
	{TCO_IN_STAFF, FMT_MONEY_WHOLE, "/rack-yr"},
	{TCO_IN_ELECTRICITY, FMT_MONEY_MILLS, "/kWh"},
	{TCO_IN_COLO, FMT_MONEY_CENTS, "/kW-month"},
	{TCO_IN_RACK_UNIT_PRICE, FMT_MONEY_CENTS, "/U-month"},
	{TCO_IN_CLOUD_PRICE, FMT_MONEY_MILLS, "/h"},
};

/* The value of one input with its unit: "$0.100/kWh", "1 server", "7.74 kW". */
static const char *input_text(enum tco_input id, double v, char *out)
{
	char b[FMT_LEN];
	size_t i;
	for (i = 0; i < sizeof(money_inputs) / sizeof(money_inputs[0]); i++)
		if (money_inputs[i].id == id) {
			snprintf(out, FMT_LEN, "%s%s", fmt_money(v, money_inputs[i].style, b, sizeof(b)),
				 money_inputs[i].per);
			return out;
		}
	switch (id) {
	case TCO_IN_COUNT:
		snprintf(out, FMT_LEN, "%s server%s", COUNT(v, b), v == 1 ? "" : "s");
		break;
	case TCO_IN_PUE:
		snprintf(out, FMT_LEN, "%.2f", v);
		break;
	case TCO_IN_POWER:
	case TCO_IN_IDLE:
		snprintf(out, FMT_LEN, "%.2f kW", v);
		break;
	case TCO_IN_RACK_UNITS:
		snprintf(out, FMT_LEN, "%g U", v);
		break;
	case TCO_IN_YEARS:
		snprintf(out, FMT_LEN, "%.3g years", v);
		break;
	default:
		snprintf(out, FMT_LEN, "%.4g %s", v, tco_input_desc(id)->unit);
	}
	return out;
}

/* "own above 27.83 %", or NULL when the input has no flip point. */
static const char *flip_text(const struct tco_inputs *in, const struct tco_result *r, enum tco_input id, char *out)
{
	const char *side = tco_flip_side(in, r, id);
	char b[FMT_LEN];
	if (!side)
		return NULL;
	snprintf(out, VALUE_LEN, "own %s %s", side, input_text(id, r->flip[id], b));
	return out;
}

/* How the instance is paid: "on-demand", "reserved", "3y committed", "spot"; long: for a heading. */
static const char *pricing_text(const struct tco_inputs *in, int long_form)
{
	switch (in->cloud_tier) {
	case CAT_TIER_1Y:
		return long_form ? "1y commitment (every hour paid)" : "1y committed";
	case CAT_TIER_3Y:
		return long_form ? "3y commitment (every hour paid)" : "3y committed";
	case CAT_TIER_SPOT:
		return "spot";
	default:
		if (in->cloud_reserved)
			return long_form ? "reserved term (every hour paid)" : "reserved";
		return "on-demand";
	}
}

/* ---- owning against each price tier: one table for the text and the report ---- */

#define TIER_COLS 6
static const char *const tier_heads[TIER_COLS] = {"tier",         "USD/GPU-h",  "savings",
						  "vs on-demand", "break-even", "owning wins"};

/* The cells of one tier's row; each points into cell[] or is a static string. */
static void tier_cells(const struct tco_tier_result *t, char cell[TIER_COLS][VALUE_LEN],
		       const char *row[TIER_COLS])
{
	row[0] = cat_tier_name(t->tier);
	row[1] = USD3(t->cloud_usd_per_gpu_hour, cell[1]);
	row[2] = fmt_money(t->savings_usd, FMT_MONEY_SHORT, cell[2], VALUE_LEN);
	row[3] = t->tier == CAT_TIER_ON_DEMAND || isnan(t->savings_change_usd) ?
			 "-" :
			 fmt_money(t->savings_change_usd, FMT_MONEY_SIGNED, cell[3], VALUE_LEN);
	snprintf(cell[4], VALUE_LEN, "month %.1f", t->breakeven_month);
	row[4] = isnan(t->breakeven_month) ? "never" : cell[4];
	snprintf(cell[5], VALUE_LEN, "%s %.2f %%", t->own_when ? t->own_when : "", t->breakeven_utilisation_pct);
	row[5] = !t->own_when ? "-" : isnan(t->breakeven_utilisation_pct) ? t->own_when : cell[5];
}

/*
 * "Against the 3y price rather than on-demand, owning saves $X instead of
 * $Y: $Z less." into sb; nothing when on-demand is compared with or absent.
 */
static void tier_change_text(struct strbuf *sb, const struct tco_inputs *in, const struct tco_tier_result *t,
			     size_t n)
{
	const struct tco_tier_result *od = NULL, *now = NULL;
	char b[3][FMT_LEN];
	size_t i;
	for (i = 0; i < n; i++) {
		if (t[i].tier == CAT_TIER_ON_DEMAND)
			od = &t[i];
		if (t[i].tier == in->cloud_tier)
			now = &t[i];
	}
	if (!od || !now || now == od)
		return;
	strbuf_addf(sb, "Against the %s price rather than on-demand, %s %s instead of %s: %s %s.",
		    cat_tier_name(now->tier),
		    now->savings_usd >= 0 && od->savings_usd >= 0 ? "owning saves" : "the savings of owning are",
		    USD0(now->savings_usd, b[0]), USD0(od->savings_usd, b[1]),
		    USD0(fabs(now->savings_change_usd), b[2]), now->savings_change_usd < 0 ? "less" : "more");
}

/* Text word-wrapped to 80 columns, continuation lines indented; '\n' ends a line. */
static void print_wrapped(FILE *out, const char *text, int indent)
{
	int col = 0;
	const char *p = text;
	while (*p) {
		size_t w = strcspn(p, " \n");
		if (col > indent && col + 1 + (int)w > 80) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent || (col > 0 && p != text)) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", (int)w, p);
		col += (int)w;
		p += w;
		if (*p == '\n') {
			fputc('\n', out);
			col = 0;
			p++;
			continue;
		}
		while (*p == ' ')
			p++;
	}
	if (col)
		fputc('\n', out);
}

/* ---- the account: "  label = expression = result", results aligned ---- */

#define ARITH_COL 59

struct account {
	FILE *out;           /* print the account here, or */
	json_t *steps;       /* collect its lines as strings, or */
	struct strbuf *text; /* collect them as lines of text */
	struct strbuf expr;  /* the line being written */
};

static void heading(struct account *a, const char *fmt, ...) GS_PRINTF(2, 3);
static void heading(struct account *a, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	if (!a->out)
		return;
	fputc('\n', a->out);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	/* a long instance name and its pricing wrap rather than pass 80 columns */
	print_wrapped(a->out, strbuf_str(&sb), 2);
	strbuf_release(&sb);
}

/* One line, aligned at ARITH_COL; a formula too long for 80 columns breaks at spaces. */
static void print_step(FILE *out, const char *label, const char *expr, const char *result)
{
	struct strbuf left = STRBUF_INIT;
	const char *p;
	int n, indent = 0;
	strbuf_addf(&left, "  %-12s= %s", label, expr);
	n = (int)left.len;
	p = strbuf_str(&left);
	if ((n > ARITH_COL ? n : ARITH_COL) + 3 + (int)strlen(result) <= 80) {
		fprintf(out, "%-*s = %s\n", ARITH_COL, p, result);
	} else if (n + 3 + (int)strlen(result) <= 80) {
		fprintf(out, "%s = %s\n", p, result);
	} else {
		while ((int)strlen(p) + indent > 80) {
			int cut = 80 - indent;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut <= 0)
				break;
			fprintf(out, "%*s%.*s\n", indent, "", cut, p);
			p += cut + 1;
			indent = 16;
		}
		fprintf(out, "%*s%s\n%*s= %s\n", indent, "", p, 14, "", result);
	}
	strbuf_release(&left);
}

static void step(struct account *a, const char *label, const char *result, const char *fmt, ...) GS_PRINTF(4, 5);
static void step(struct account *a, const char *label, const char *result, const char *fmt, ...)
{
	const char *e;
	va_list ap;
	strbuf_reset(&a->expr);
	va_start(ap, fmt);
	strbuf_vaddf(&a->expr, fmt, ap);
	va_end(ap);
	e = strbuf_str(&a->expr);
	if (a->steps)
		json_array_append_new(a->steps, json_sprintf("%s = %s = %s", label, e, result));
	else if (a->text)
		strbuf_addf(a->text, "%s = %s = %s\n", label, e, result);
	else
		print_step(a->out, label, e, result);
}

static void account_capital(struct account *a, const struct view_tco *v)
{
	const struct tco_inputs *in = v->in;
	const struct tco_result *r = v->r;
	const struct bom *bill = v->bill;
	char b[9][FMT_LEN];

	heading(a, "Capital, paid at month 0");
	step(a, "servers", USD0(r->server_capex_usd, b[0]), "%s x %s", COUNT(r->servers, b[1]),
	     USD0(in->value[TCO_IN_PRICE], b[2]));
	if (in->extra_capex_usd > 0 && bill)
		step(a, "bill", USD0(r->addon_usd, b[0]),
		     "fabric %s + front end %s + management %s + storage %s (%s TB) + cooling %s + power "
		     "distribution %s + installation %s",
		     USD0(bill->fabric_usd, b[1]), USD0(bill->frontend.usd, b[2]), USD0(bill->oob_usd, b[3]),
		     USD0(bill->storage_usd, b[4]), COUNT(bill->storage_tb, b[5]), USD0(bill->cooling_usd, b[6]),
		     USD0(bill->pdu_usd, b[7]), USD0(bill->install_usd, b[8]));
	else
		step(a, "add-on", USD0(r->addon_usd, b[0]), "%s x %g %% (network, storage)",
		     USD0(r->server_capex_usd, b[1]), in->value[TCO_IN_ADDON]);
	step(a, "capex", USD0(r->capex_usd, b[0]), "%s + %s", USD0(r->server_capex_usd, b[1]),
	     USD0(r->addon_usd, b[2]));
	step(a, "residual", USD0(r->residual_usd, b[0]), "%s x %g %% (resale after %g y)",
	     USD0(r->server_capex_usd, b[1]), in->value[TCO_IN_RESIDUAL], in->value[TCO_IN_YEARS]);
}

static void account_year(struct account *a, const struct view_tco *v)
{
	const double *x = v->in->value;
	const struct tco_inputs *in = v->in;
	const struct tco_result *r = v->r;
	char b[5][FMT_LEN], res[VALUE_LEN];

	heading(a, "Each year");
	snprintf(res, sizeof(res), "%.2f kW/server", r->avg_power_kw);
	step(a, "avg power", res, "%.2f kW idle + %g %% x (%.2f - %.2f) kW", x[TCO_IN_IDLE], x[TCO_IN_UTILISATION],
	     x[TCO_IN_POWER], x[TCO_IN_IDLE]);
	snprintf(res, sizeof(res), "%s/yr", USD0(r->energy_usd_per_year, b[0]));
	if (in->extra_kw > 0)
		step(a, "energy", res, "(%s x %.2f + %.2f) kW x %.2f PUE x %s h x %s/kWh", COUNT(r->servers, b[1]),
		     r->avg_power_kw, in->extra_kw, x[TCO_IN_PUE], COUNT(in->hours_per_year, b[2]),
		     USD3(x[TCO_IN_ELECTRICITY], b[3]));
	else
		step(a, "energy", res, "%s x %.2f kW x %.2f PUE x %s h x %s/kWh", COUNT(r->servers, b[1]),
		     r->avg_power_kw, x[TCO_IN_PUE], COUNT(in->hours_per_year, b[2]),
		     USD3(x[TCO_IN_ELECTRICITY], b[3]));
	snprintf(res, sizeof(res), "%s/yr", USD0(r->space_usd_per_year, b[0]));
	if (in->space == TCO_SPACE_RACK_UNIT)
		step(a, "space", res, "%s x %g U x %s/U-month x 12", COUNT(r->servers, b[1]), x[TCO_IN_RACK_UNITS],
		     USD2(x[TCO_IN_RACK_UNIT_PRICE], b[2]));
	else if (in->extra_kw > 0)
		step(a, "space", res, "(%s x %.2f + %.2f) kW x %s/kW-month x 12", COUNT(r->servers, b[1]),
		     x[TCO_IN_POWER], in->extra_kw, USD2(x[TCO_IN_COLO], b[2]));
	else
		step(a, "space", res, "%s x %.2f kW x %s/kW-month x 12", COUNT(r->servers, b[1]), x[TCO_IN_POWER],
		     USD2(x[TCO_IN_COLO], b[2]));
	snprintf(res, sizeof(res), "%s/yr", USD0(r->staff_usd_per_year, b[0]));
	if (tco_staff_from_bill(in) && v->bill && v->bill->staff_ratio_row && v->bill->staff_cost_row)
		step(a, "staff", res, "%s GPUs / %g an engineer x %s/engineer-yr", COUNT(v->bill->gpus, b[1]),
		     v->bill->staff_ratio_row->value, USD0(v->bill->staff_cost_row->value, b[2]));
	else
		step(a, "staff", res, "%s rack%s x %s/rack-yr",
		     fmt_grouped(r->racks, r->racks == floor(r->racks) ? 0 : 2, b[1], FMT_LEN),
		     r->racks == 1 ? "" : "s", USD0(x[TCO_IN_STAFF], b[2]));
	snprintf(res, sizeof(res), "%s/yr", USD0(r->support_usd_per_year, b[0]));
	if (in->licence_usd_per_year > 0)
		step(a, "support", res, "%s x %g %%/yr + licences %s", USD0(r->support_basis_usd, b[1]),
		     x[TCO_IN_SUPPORT], USD0(in->licence_usd_per_year, b[2]));
	else
		step(a, "support", res, "%s x %g %%/yr", USD0(r->support_basis_usd, b[1]), x[TCO_IN_SUPPORT]);
	snprintf(res, sizeof(res), "%s/yr", USD0(r->opex_usd_per_year, b[0]));
	step(a, "opex", res, "%s + %s + %s + %s", USD0(r->energy_usd_per_year, b[1]),
	     USD0(r->space_usd_per_year, b[2]), USD0(r->staff_usd_per_year, b[3]),
	     USD0(r->support_usd_per_year, b[4]));
}

static void account_period(struct account *a, const struct view_tco *v)
{
	const struct tco_inputs *in = v->in;
	const struct tco_result *r = v->r;
	double years = in->value[TCO_IN_YEARS], util = in->value[TCO_IN_UTILISATION];
	char b[4][FMT_LEN], res[VALUE_LEN];

	if (r->interest_usd > 0) {
		double i = in->value[TCO_IN_INTEREST] / 100, vn = pow(1 + i, -years);
		heading(a, "Over %g years at %g %% utilisation, the capital at %g %%/yr", years, util, i * 100);
		/* the capital recovery of docs/tco.md: a loan of the capex, the resale repaying its share */
		snprintf(res, sizeof(res), "%s/month", USD0(r->capital_usd_per_month, b[0]));
		step(a, "capital", res, "(%s - %s x %.4f) x %.4f %% / (1 - %.4f)", USD0(r->capex_usd, b[1]),
		     USD0(r->residual_usd, b[2]), vn, (pow(1 + i, 1.0 / 12) - 1) * 100, vn);
		step(a, "interest", USD0(r->interest_usd, b[0]), "%g x %s - (%s - %s)", r->months,
		     USD0(r->capital_usd_per_month, b[1]), USD0(r->capex_usd, b[2]), USD0(r->residual_usd, b[3]));
		USD0(r->interest_usd, res);
		step(a, "total", USD0(r->total_usd, b[0]), "%s + %g x %s - %s + %s", USD0(r->capex_usd, b[1]),
		     years, USD0(r->opex_usd_per_year, b[2]), USD0(r->residual_usd, b[3]), res);
	} else {
		heading(a, "Over %g years at %g %% utilisation", years, util);
		step(a, "total", USD0(r->total_usd, b[0]), "%s + %g x %s - %s", USD0(r->capex_usd, b[1]), years,
		     USD0(r->opex_usd_per_year, b[2]), USD0(r->residual_usd, b[3]));
	}
	snprintf(res, sizeof(res), "%s GPU-h", COUNT(r->gpu_hours_used, b[0]));
	step(a, "GPU-hours", res, "%s GPUs x %s h x %g %%", COUNT(r->gpus, b[1]), COUNT(r->hours, b[2]), util);
	snprintf(res, sizeof(res), "%s/GPU-h", USD3(r->usd_per_gpu_hour, b[0]));
	step(a, "per GPU-h", res, "%s / %s GPU-h", USD0(r->total_usd, b[1]), COUNT(r->gpu_hours_used, b[2]));
	if (isnan(r->usd_per_pflop_hour))
		return;
	snprintf(res, sizeof(res), "%s/PFLOP-h", USD3(r->usd_per_pflop_hour, b[0]));
	step(a, "per PFLOP-h", res, "%s / %.4g PFLOP/s (%s dense peak)", USD3(r->usd_per_gpu_hour, b[1]),
	     in->peak_tflops_per_gpu / 1000, in->precision);
}

static void account_rent(struct account *a, const struct view_tco *v)
{
	const struct tco_inputs *in = v->in;
	const struct tco_result *r = v->r;
	double price = in->value[TCO_IN_CLOUD_PRICE], discount = in->value[TCO_IN_DISCOUNT];
	char b[4][FMT_LEN], res[VALUE_LEN];

	heading(a, "Renting the same GPU-hours: %s, %s", in->cloud_name, pricing_text(in, 1));
	snprintf(res, sizeof(res), "%s/GPU-h", USD3(r->cloud_usd_per_gpu_hour, b[0]));
	if (discount > 0)
		step(a, "per GPU-h", res, "%s/h / %g GPUs x (1 - %g %%)", USD3(price, b[1]), in->cloud_gpus,
		     discount);
	else
		step(a, "per GPU-h", res, "%s/h / %g GPUs", USD3(price, b[1]), in->cloud_gpus);
	if (in->cloud_reserved)
		step(a, "cloud total", USD0(r->cloud_total_usd, b[0]), "%s inst x %g GPUs x %s h x %s",
		     COUNT(r->cloud_instances, b[1]), in->cloud_gpus, COUNT(r->hours, b[2]),
		     USD3(r->cloud_usd_per_gpu_hour, b[3]));
	else
		step(a, "cloud total", USD0(r->cloud_total_usd, b[0]), "%s GPU-h x %s/GPU-h",
		     COUNT(r->gpu_hours_used, b[1]), USD3(r->cloud_usd_per_gpu_hour, b[2]));
	snprintf(res, sizeof(res), "%s/month", USD0(r->cloud_usd_per_month, b[0]));
	step(a, "cloud/month", res, "%s / %g months", USD0(r->cloud_total_usd, b[1]), r->months);
	snprintf(res, sizeof(res), "%s/month", USD0(r->owned_usd_per_month, b[0]));
	if (r->interest_usd > 0)
		step(a, "owned/month", res, "%s / 12 + %s interest / %g", USD0(r->opex_usd_per_year, b[1]),
		     USD0(r->interest_usd, b[2]), r->months);
	else
		step(a, "owned/month", res, "%s / 12", USD0(r->opex_usd_per_year, b[1]));
}

static void account_compare(struct account *a, const struct view_tco *v)
{
	const struct tco_result *r = v->r;
	char b[4][FMT_LEN], res[VALUE_LEN];

	if (isnan(r->breakeven_month)) {
		step(a, "break-even", "never", "%s/month owned >= %s/month rented",
		     USD0(r->owned_usd_per_month, b[0]), USD0(r->cloud_usd_per_month, b[1]));
	} else {
		snprintf(res, sizeof(res), "month %.1f", r->breakeven_month);
		step(a, "break-even", res, "%s / (%s - %s)/month", USD0(r->capex_usd, b[0]),
		     USD0(r->cloud_usd_per_month, b[1]), USD0(r->owned_usd_per_month, b[2]));
	}
	step(a, "savings", USD0(r->savings_usd, b[0]), "%s - %s", USD0(r->cloud_total_usd, b[1]),
	     USD0(r->total_usd, b[2]));
	snprintf(res, sizeof(res), "%.1f %% (%.1f %%/yr)", r->roi_pct, r->roi_pct_per_year);
	step(a, "ROI", res, "%s / %s capex", USD0(r->savings_usd, b[0]), USD0(r->capex_usd, b[1]));
	step(a, "NPV", USD0(r->npv_usd, b[0]), "-%s + %s/month x annuity(%g %%/yr, %g mo) + resale",
	     USD0(r->capex_usd, b[1]), USD0(r->gain_usd_per_month, b[2]), v->in->value[TCO_IN_CAPITAL], r->months);
}

/* The account, written once: printed to out, or collected into steps or text. */
static void account(const struct view_tco *v, FILE *out, json_t *steps, struct strbuf *text)
{
	struct account a = {out, steps, text, STRBUF_INIT};
	account_capital(&a, v);
	account_year(&a, v);
	account_period(&a, v);
	if (v->r->has_cloud) {
		account_rent(&a, v);
		account_compare(&a, v);
	}
	strbuf_release(&a.expr);
}

static void verdict(struct strbuf *sb, const struct tco_inputs *in, const struct tco_result *r)
{
	double years = in->value[TCO_IN_YEARS];
	char b[3][FMT_LEN];
	if (!r->has_cloud)
		strbuf_addf(sb, "owning costs %s/GPU-h at %g %% utilisation (no cloud comparison)",
			    USD3(r->usd_per_gpu_hour, b[0]), in->value[TCO_IN_UTILISATION]);
	else if (r->savings_usd > 0 && r->breakeven_in_period)
		strbuf_addf(sb,
			    "owning is cheaper from month %.0f of %g; over %g years it saves %s "
			    "(%.0f %% of renting)",
			    ceil(r->breakeven_month), r->months, years, USD0(r->savings_usd, b[0]),
			    r->savings_pct_of_cloud);
	else if (r->savings_usd > 0)
		strbuf_addf(sb,
			    "owning comes out cheaper only through its resale value at the end; "
			    "it saves %s over %g years",
			    USD0(r->savings_usd, b[0]), years);
	else if (isnan(r->breakeven_month))
		strbuf_addf(sb,
			    "renting is cheaper: owning never breaks even (its running cost alone "
			    "is %s/month against %s/month rented); renting saves %s over %g years",
			    USD0(r->owned_usd_per_month, b[0]), USD0(r->cloud_usd_per_month, b[1]),
			    USD0(-r->savings_usd, b[2]), years);
	else
		strbuf_addf(sb,
			    "renting is cheaper: owning would break even at month %.0f, after "
			    "the %g-month period; renting saves %s",
			    ceil(r->breakeven_month), r->months, USD0(-r->savings_usd, b[0]));
}

/* ---- text ---- */

static void print_inputs(FILE *out, const struct view_tco *v)
{
	struct table *t = table_new();
	struct strbuf src = STRBUF_INIT;
	char b[FMT_LEN];
	int i;
	table_column(t, "input", ALIGN_LEFT);
	table_column(t, "value", ALIGN_RIGHT);
	table_column(t, "source", ALIGN_LEFT);
	for (i = 0; i < TCO_NINPUTS; i++) {
		const char *cite = tco_input_citation(v->cat, v->in, (enum tco_input)i);
		if (!tco_input_applies(v->in, (enum tco_input)i))
			continue;
		table_row(t);
		table_cell(t, tco_input_desc((enum tco_input)i)->what);
		table_cell(t, input_text((enum tco_input)i, v->in->value[i], b));
		strbuf_reset(&src);
		tco_input_source(v->in, (enum tco_input)i, &src);
		if (cite)
			table_cellf(t, "%s: %s", strbuf_str(&src), cite);
		else
			table_cell(t, strbuf_str(&src));
	}
	table_print(t, out, 80);
	table_free(t);
	strbuf_release(&src);
}

static void print_bill(FILE *out, const struct tco_inputs *in, const struct bom *bill)
{
	struct strbuf sb = STRBUF_INIT;
	char sw[96], b[4][FMT_LEN];
	strbuf_addf(&sb,
		    "Bill of materials: %s %s-cooled rack%s of %.0f kW (%.0f server%s a rack); "
		    "switches %s; %s NIC ports, %s optics; %s TB storage; %.1f kW at the wall "
		    "(PUE %.2f)%s",
		    COUNT(bill->racks, b[0]), bill->cooling, bill->racks == 1 ? "" : "s", bill->rack_kw,
		    bill->nodes_per_rack, bill->nodes_per_rack == 1 ? "" : "s",
		    bom_switch_text(bill, sw, sizeof(sw)), COUNT(bill->nics, b[1]), COUNT(bill->optics, b[2]),
		    COUNT(bill->storage_tb, b[3]), bill->power_kw, bill->pue,
		    in->extra_capex_usd > 0 || !(bill->fabric_usd + bill->storage_usd > 0) ?
			    "" :
			    "; not priced: --addon replaces it");
	if (in->extra_capex_usd > 0) {
		strbuf_addstr(&sb, "; ");
		bom_extras_text(bill, &sb);
		strbuf_addstr(&sb, "; a year: ");
		bom_running_text(bill, &sb);
	}
	fputc('\n', out);
	print_wrapped(out, strbuf_str(&sb), 2);
	strbuf_release(&sb);
}

static void print_flips(FILE *out, const struct tco_inputs *in, const struct tco_result *r)
{
	struct table *t = table_new();
	char b[FMT_LEN], f[VALUE_LEN];
	size_t i;
	fprintf(out, "\nWhich input flips the decision (the others as above)\n");
	table_column(t, "input", ALIGN_LEFT);
	table_column(t, "now", ALIGN_RIGHT);
	table_column(t, "decision flips at", ALIGN_LEFT);
	for (i = 0; i < TCO_NFLIPS; i++) {
		enum tco_input id = tco_flip_input(i);
		const char *ft;
		if (id == TCO_IN_COLO && in->space != TCO_SPACE_KW)
			continue;
		ft = flip_text(in, r, id, f);
		table_row(t);
		table_cell(t, tco_input_desc(id)->what);
		table_cell(t, input_text(id, in->value[id], b));
		table_cell(t, ft ? ft : "no flip within its range");
	}
	table_print(t, out, 80);
	table_free(t);
}

static void print_tiers(FILE *out, const struct view_tco *v)
{
	struct tco_tier_result t[CAT_NTIERS];
	size_t i, k, n = tco_tiers(v->in, t);
	struct strbuf sb = STRBUF_INIT;
	char cell[TIER_COLS][VALUE_LEN];
	const char *row[TIER_COLS];
	struct table *tb;
	if (n < 2)
		return; /* one price: the account above is the whole comparison */
	fprintf(out, "\nAgainst each price of %s (1y, 3y: every hour paid)\n", v->in->cloud_name);
	tb = table_new();
	for (k = 0; k < TIER_COLS; k++)
		table_column(tb, tier_heads[k], k ? ALIGN_RIGHT : ALIGN_LEFT);
	for (i = 0; i < n; i++) {
		tier_cells(&t[i], cell, row);
		table_row(tb);
		for (k = 0; k < TIER_COLS; k++)
			table_cell(tb, row[k]);
	}
	table_print(tb, out, 80);
	table_free(tb);
	tier_change_text(&sb, v->in, t, n);
	if (sb.len)
		print_wrapped(out, strbuf_str(&sb), 2);
	strbuf_release(&sb);
}

static void print_grid(FILE *out, const struct tco_inputs *in)
{
	struct tco_point grid[TCO_GRID_UTIL][TCO_GRID_ELEC];
	struct table *t = table_new();
	char b[FMT_LEN];
	size_t i, j;
	tco_sensitivity(in, grid);
	fprintf(out,
		"\nSavings of owning over %g years (+ own, - rent), by utilisation and\n"
		"electricity price\n",
		in->value[TCO_IN_YEARS]);
	table_column(t, "utilisation", ALIGN_RIGHT);
	for (j = 0; j < TCO_GRID_ELEC; j++) {
		snprintf(b, sizeof(b), "$%.2f/kWh", grid[0][j].electricity_usd_per_kwh);
		table_column(t, b, ALIGN_RIGHT);
	}
	for (i = 0; i < TCO_GRID_UTIL; i++) {
		table_row(t);
		table_cellf(t, "%g %%", grid[i][0].utilisation_pct);
		for (j = 0; j < TCO_GRID_ELEC; j++)
			table_cell(t, fmt_money(grid[i][j].savings_usd, FMT_MONEY_SIGNED, b, sizeof(b)));
	}
	table_print(t, out, 80);
	table_free(t);
}

void view_tco_print(FILE *out, const struct view_tco *v)
{
	const struct tco_inputs *in = v->in;
	const struct tco_result *r = v->r;
	struct strbuf sb = STRBUF_INIT;
	char b[FMT_LEN];

	tco_inputs_name(in, &sb);
	fprintf(out, "%s: %s x %g GPUs (%s)\n", strbuf_str(&sb), COUNT(r->servers, b), in->gpus_per_server,
		in->gpu_key ? in->gpu_key : "-");
	strbuf_reset(&sb);
	if (r->has_cloud)
		fprintf(out, "against %s (%g x %s), %s\n", in->cloud_name, in->cloud_gpus,
			in->cloud_gpu_key ? in->cloud_gpu_key : "-", pricing_text(in, 0));
	if (v->notes && *v->notes)
		print_wrapped(out, v->notes, 2);
	fputc('\n', out);
	print_inputs(out, v);
	if (v->bill)
		print_bill(out, in, v->bill);
	account(v, out, NULL, NULL);
	strbuf_addstr(&sb, "Verdict: ");
	verdict(&sb, in, r);
	strbuf_addch(&sb, '.');
	fputc('\n', out);
	print_wrapped(out, strbuf_str(&sb), 2);
	strbuf_release(&sb);
	if (!r->has_cloud)
		return;
	print_tiers(out, v);
	print_flips(out, in, r);
	print_grid(out, in);
}

/* ---- JSON ---- */

static json_t *inputs_json(const struct view_tco *v, struct report_row *row)
{
	json_t *o = json_object(), *x;
	int i;
	for (i = 0; i < TCO_NINPUTS; i++) {
		if (isnan(v->in->value[i]))
			continue;
		report_row_clear(row);
		tco_input_row(v->cat, v->in, (enum tco_input)i, row);
		x = report_row_json(row);
		/* a value without a citation has no "citation" key, not a null one */
		if (json_is_null(json_object_get(x, "citation")))
			json_object_del(x, "citation");
		json_object_set_new(o, tco_input_desc((enum tco_input)i)->flag, x);
	}
	return o;
}

static json_t *flips_json(const struct view_tco *v, struct report_row *row)
{
	json_t *o = json_object();
	size_t i;
	for (i = 0; i < TCO_NFLIPS; i++) {
		report_row_clear(row);
		tco_flip_row(v->in, v->r, tco_flip_input(i), row);
		json_object_set_new(o, tco_input_desc(tco_flip_input(i))->flag, report_row_json(row));
	}
	return o;
}

static json_t *sensitivity_json(const struct view_tco *v, struct report_row *row)
{
	struct tco_point grid[TCO_GRID_UTIL][TCO_GRID_ELEC];
	json_t *a = json_array();
	size_t i, j;
	tco_sensitivity(v->in, grid);
	for (i = 0; i < TCO_GRID_UTIL; i++)
		for (j = 0; j < TCO_GRID_ELEC; j++) {
			report_row_clear(row);
			tco_sensitivity_row(&grid[i][j], row);
			json_array_append_new(a, report_row_json(row));
		}
	return a;
}

static json_t *tiers_json(const struct view_tco *v, struct report_row *row)
{
	struct tco_tier_result t[CAT_NTIERS];
	size_t i, n = tco_tiers(v->in, t);
	json_t *a = json_array();
	for (i = 0; i < n; i++) {
		report_row_clear(row);
		tco_tier_row(&t[i], row);
		json_array_append_new(a, report_row_json(row));
	}
	return a;
}

/* The comparison with renting, at the top level after "cloud". */
static void cloud_json(json_t *o, const struct view_tco *v)
{
	struct report_row *row = report_row_new(tco_cloud_schema());
	tco_cloud_row(v->in, v->r, row);
	json_object_set_new(o, "cloud", report_row_json(row));
	report_row_free(row);
	row = report_row_new(tco_compare_schema());
	tco_compare_row(v->r, row);
	report_row_json_into(row, o);
	report_row_free(row);
	row = report_row_new(tco_flip_schema());
	json_object_set_new(o, "flips", flips_json(v, row));
	report_row_free(row);
	row = report_row_new(tco_sensitivity_schema());
	json_object_set_new(o, "sensitivity", sensitivity_json(v, row));
	report_row_free(row);
	row = report_row_new(tco_tier_schema());
	json_object_set_new(o, "tiers", tiers_json(v, row));
	report_row_free(row);
}

json_t *view_tco_json(const struct view_tco *v)
{
	struct report_row *row = report_row_new(tco_schema());
	struct strbuf sb = STRBUF_INIT;
	json_t *o, *steps = json_array();

	tco_row(v->in, row);
	o = report_row_json(row);
	report_row_free(row);
	row = report_row_new(tco_input_schema());
	json_object_set_new(o, "inputs", inputs_json(v, row));
	report_row_free(row);
	row = report_row_new(tco_owned_schema());
	tco_owned_row(v->in, v->r, row);
	json_object_set_new(o, "owned", report_row_json(row));
	report_row_free(row);
	if (v->bill)
		json_object_set_new(o, "bom", bom_json(v->bill));
	if (v->r->has_cloud)
		cloud_json(o, v);
	account(v, NULL, steps, NULL);
	json_object_set_new(o, "arithmetic", steps);
	verdict(&sb, v->in, v->r);
	json_object_set_new(o, "verdict", json_string(strbuf_str(&sb)));
	json_object_set_new(o, "notes", json_string(v->notes ? v->notes : ""));
	strbuf_release(&sb);
	return o;
}

/* ---- HTML report ---- */

/* Cash paid against months, owned and rented, with the break-even marked. */
static struct svg_chart *chart_cumulative(const struct tco_result *r)
{
	struct svg_chart *c = svg_chart_new(SVG_LINE, "tco-cumulative", "Cumulative cost, owned and rented");
	double months = r->months, step = months > 120 ? 3 : 1, m;
	int own, rent;
	svg_axis(c, 'x', "months after purchase", "month", SVG_SCALE_LINEAR);
	svg_axis(c, 'y', "cumulative cost", "USD", SVG_SCALE_LINEAR);
	own = svg_series(c, "owned");
	rent = r->has_cloud ? svg_series(c, "rented") : -1;
	for (m = 0; m <= months + 1e-9; m += step) {
		svg_point(c, own, m, tco_owned_cumulative_usd(r, m), NULL, 0);
		if (rent >= 0)
			svg_point(c, rent, m, tco_cloud_cumulative_usd(r, m), NULL, 0);
	}
	if (r->residual_usd > 0)
		svg_point(c, own, months, tco_owned_cumulative_usd(r, months) - r->residual_usd, "after resale",
			  0);
	if (r->has_cloud && r->breakeven_in_period) {
		char lab[64];
		snprintf(lab, sizeof(lab), "break-even, month %.1f", r->breakeven_month);
		svg_mark(c, r->breakeven_month, tco_owned_cumulative_usd(r, r->breakeven_month), lab);
	}
	return c;
}

/* The owned total by term, next to the rented total. */
static struct svg_chart *chart_breakdown(const struct tco_inputs *in, const struct tco_result *r)
{
	struct svg_chart *c = svg_chart_new(SVG_HBAR, "tco-breakdown", "Where the money goes over the period");
	static const char *const terms[] = {"capex less resale", "energy",  "space", "staff",
					    "support",           "interest"};
	struct tco_breakdown bd;
	double value[6];
	int series[6], cloud, own;
	/* the interest is a term of its own only when there is some */
	size_t i, n = r->interest_usd > 0 ? 6 : 5;
	tco_owned_breakdown(in, r, &bd);
	value[0] = bd.capex_less_residual_usd;
	value[1] = bd.energy_usd;
	value[2] = bd.space_usd;
	value[3] = bd.staff_usd;
	value[4] = bd.support_usd;
	value[5] = bd.interest_usd;
	svg_axis(c, 'x', "cost over the period", "USD", SVG_SCALE_LINEAR);
	for (i = 0; i < n; i++)
		series[i] = svg_series(c, terms[i]);
	cloud = svg_series(c, "cloud instances");
	own = svg_bar(c, "owned");
	for (i = 0; i < n; i++)
		svg_bar_value(c, own, series[i], value[i]);
	if (r->has_cloud)
		svg_bar_value(c, svg_bar(c, "rented"), cloud, r->cloud_total_usd);
	svg_chart_size(c, 760, r->has_cloud ? 240 : 200);
	return c;
}

/* $/GPU-hour used against utilisation, owned and rented, with the break-even marked. */
static struct svg_chart *chart_rate(const struct tco_inputs *in, const struct tco_result *r)
{
	struct svg_chart *c = svg_chart_new(SVG_LINE, "tco-rate", "Cost per GPU-hour used, by utilisation");
	struct tco_result t;
	struct diag e;
	double u, flip = r->flip[TCO_IN_UTILISATION];
	int own, rent;
	svg_axis(c, 'x', "utilisation", "%", SVG_SCALE_LINEAR);
	svg_axis(c, 'y', "cost per GPU-hour used", "USD/GPU-h", SVG_SCALE_LINEAR);
	own = svg_series(c, "owned");
	rent = r->has_cloud ? svg_series(c, "rented") : -1;
	for (u = 10; u <= 100 + 1e-9; u += 5) {
		if (tco_compute_with(in, TCO_IN_UTILISATION, u, &t, &e))
			continue;
		svg_point(c, own, u, t.usd_per_gpu_hour, NULL, 0);
		if (rent >= 0)
			svg_point(c, rent, u, t.cloud_usd_per_gpu_hour_used, NULL, 0);
	}
	if (r->has_cloud && !isnan(flip) && flip >= 10 &&
	    !tco_compute_with(in, TCO_IN_UTILISATION, flip, &t, &e)) {
		char lab[64];
		snprintf(lab, sizeof(lab), "break-even, %.1f %%", flip);
		svg_mark(c, flip, t.usd_per_gpu_hour, lab);
	}
	return c;
}

static void report_inputs(struct html_doc *d, const struct tco_inputs *in)
{
	static const char *const head[] = {"input", "value", "source"};
	struct strbuf src = STRBUF_INIT;
	char b[FMT_LEN];
	int i;
	html_heading(d, 2, "Inputs");
	html_table_begin(d, "tco-inputs", NULL);
	html_table_head(d, head, 3);
	for (i = 0; i < TCO_NINPUTS; i++) {
		const char *row[3];
		if (!tco_input_applies(in, (enum tco_input)i))
			continue;
		row[0] = tco_input_desc((enum tco_input)i)->what;
		row[1] = input_text((enum tco_input)i, in->value[i], b);
		strbuf_reset(&src);
		tco_input_source(in, (enum tco_input)i, &src);
		row[2] = strbuf_str(&src);
		html_table_row(d, row, 3);
	}
	html_table_end(d);
	strbuf_release(&src);
}

static void report_flips(struct html_doc *d, const struct tco_inputs *in, const struct tco_result *r)
{
	static const char *const head[] = {"input", "now", "decision flips at"};
	char b[FMT_LEN], f[VALUE_LEN];
	size_t i;
	html_heading(d, 2, "Which input flips the decision");
	html_table_begin(d, "tco-flips", NULL);
	html_table_head(d, head, 3);
	for (i = 0; i < TCO_NFLIPS; i++) {
		enum tco_input id = tco_flip_input(i);
		const char *row[3], *ft = flip_text(in, r, id, f);
		row[0] = tco_input_desc(id)->what;
		row[1] = input_text(id, in->value[id], b);
		row[2] = ft ? ft : "no flip within its range";
		html_table_row(d, row, 3);
	}
	html_table_end(d);
}

static void report_tiers(struct html_doc *d, const struct view_tco *v)
{
	struct tco_tier_result t[CAT_NTIERS];
	size_t i, n = tco_tiers(v->in, t);
	struct strbuf sb = STRBUF_INIT;
	char cell[TIER_COLS][VALUE_LEN];
	const char *row[TIER_COLS];
	html_heading(d, 2, "Against each price of the instance");
	html_table_begin(d, "tco-tiers", "1y, 3y: every hour of the period paid");
	html_table_head(d, tier_heads, TIER_COLS);
	for (i = 0; i < n; i++) {
		tier_cells(&t[i], cell, row);
		html_table_row(d, row, TIER_COLS);
	}
	html_table_end(d);
	tier_change_text(&sb, v->in, t, n);
	if (sb.len)
		html_paragraph(d, strbuf_str(&sb));
	strbuf_release(&sb);
}

static void report_grid(struct html_doc *d, const struct tco_inputs *in)
{
	struct tco_point grid[TCO_GRID_UTIL][TCO_GRID_ELEC];
	const char *row[1 + TCO_GRID_ELEC];
	char b[1 + TCO_GRID_ELEC][FMT_LEN];
	size_t i, j;
	tco_sensitivity(in, grid);
	html_heading(d, 3, "Savings of owning by utilisation and electricity price");
	html_table_begin(d, "tco-sensitivity", NULL);
	row[0] = "utilisation";
	for (j = 0; j < TCO_GRID_ELEC; j++) {
		snprintf(b[j + 1], FMT_LEN, "$%.2f/kWh", grid[0][j].electricity_usd_per_kwh);
		row[j + 1] = b[j + 1];
	}
	html_table_head(d, row, 1 + TCO_GRID_ELEC);
	for (i = 0; i < TCO_GRID_UTIL; i++) {
		snprintf(b[0], FMT_LEN, "%g %%", grid[i][0].utilisation_pct);
		row[0] = b[0];
		for (j = 0; j < TCO_GRID_ELEC; j++)
			row[j + 1] = fmt_money(grid[i][j].savings_usd, FMT_MONEY_SIGNED, b[j + 1], FMT_LEN);
		html_table_row(d, row, 1 + TCO_GRID_ELEC);
	}
	html_table_end(d);
}

/* The title, what is compared, the verdict and the notes. */
static struct html_doc *report_head(const struct view_tco *v)
{
	const struct tco_inputs *in = v->in;
	const struct tco_result *r = v->r;
	struct strbuf sb = STRBUF_INIT;
	struct html_doc *d;
	char b[FMT_LEN];
	strbuf_addstr(&sb, "gpuscope tco: ");
	tco_inputs_name(in, &sb);
	d = html_new(strbuf_str(&sb));
	html_heading(d, 1, strbuf_str(&sb));
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s x %g GPUs (%s)", COUNT(r->servers, b), in->gpus_per_server,
		    in->gpu_key ? in->gpu_key : "-");
	if (r->has_cloud)
		strbuf_addf(&sb, " against %s (%s)", in->cloud_name, pricing_text(in, 0));
	strbuf_addf(&sb, ", %g years at %g %% utilisation.", in->value[TCO_IN_YEARS],
		    in->value[TCO_IN_UTILISATION]);
	html_paragraph(d, strbuf_str(&sb));
	strbuf_reset(&sb);
	verdict(&sb, in, r);
	html_paragraph(d, strbuf_str(&sb));
	if (v->notes && *v->notes)
		html_note(d, v->notes);
	strbuf_release(&sb);
	return d;
}

int view_tco_report(const struct view_tco *v, const char *path, struct diag *err)
{
	static const char *const heads[] = {"Cumulative cost", "Where the money goes", "Cost per GPU-hour"};
	struct svg_chart *charts[3];
	struct html_doc *d = report_head(v);
	struct strbuf text = STRBUF_INIT;
	size_t i;
	int rc = 0;

	charts[0] = chart_cumulative(v->r);
	charts[1] = chart_breakdown(v->in, v->r);
	charts[2] = chart_rate(v->in, v->r);
	for (i = 0; i < 3 && !rc; i++) {
		html_heading(d, 2, heads[i]);
		rc = html_chart(d, charts[i], err);
	}
	if (!rc) {
		html_heading(d, 2, "The arithmetic");
		account(v, NULL, NULL, &text);
		html_pre(d, strbuf_str(&text));
		report_inputs(d, v->in);
		if (v->r->has_cloud) {
			report_tiers(d, v);
			report_flips(d, v->in, v->r);
			report_grid(d, v->in);
		}
		html_note(d,
			  "Totals are cash paid, undiscounted; the NPV discounts the monthly difference "
			  "and the resale value at the cost of capital. The cloud side counts only the "
			  "instance price (no storage, egress or support). Formulas: docs/tco.md.");
		rc = html_write_file(d, path, err);
	}
	for (i = 0; i < 3; i++)
		svg_chart_free(charts[i]);
	strbuf_release(&text);
	html_free(d);
	return rc;
}
