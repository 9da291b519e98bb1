/*
 * gpuscope tco: the total cost of owning GPU servers, against renting them,
 * with the arithmetic shown term by term (the model is in cost/cost.h and
 * docs/tco.md).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "cmd/cmd.h"
#include "cost/bom.h"
#include "cost/cost.h"
#include "report/html.h"
#include "report/svg.h"
#include "report/table.h"
#include "util/error.h"
#include "util/units.h"
#include "util/xalloc.h"
#include "report/fmt.h"

static int json_flag, rack_unit_space, no_cloud;
static const char *server_name, *gpu_name, *cloud_name, *precision_name, *report_path;
static long gpus_flag;
static double rack_kw_flag, storage_tb_flag = -1;
static struct bom bill;       /* the bill of materials of the servers owned */
static int have_bill;
static double flag_value[TCO_NINPUTS];

/* A number flag for one TCO input; its name must be tco_input_desc(id)->flag (checked). */
#define NUM(id, name, argh, help) OPT_DOUBLE_(name, &flag_value[id], argh, help, 0, 0)

static const struct opt tco_opts[] = {
	OPT_GROUP_("what is owned"),
	OPT_STRING_("server", &server_name, "NAME", "a catalog server (gpuscope catalog servers)"),
	NUM(TCO_IN_COUNT, "count", "N", "number of servers (default 1)"),
	OPT_STRING_("gpu", &gpu_name, "NAME", "a generic build of this GPU instead of --server"),
	OPT_INT_("gpus", &gpus_flag, "N", "GPUs in the generic build", 1, 1024),
	NUM(TCO_IN_PRICE, "price", "USD", "price per server (default: catalog)"),
	NUM(TCO_IN_POWER, "power-kw", "KW", "full-load power per server, kW (default: catalog)"),
	NUM(TCO_IN_IDLE, "idle-kw", "KW", "idle power per server, kW (default: catalog)"),
	NUM(TCO_IN_RACK_UNITS, "rack-units", "U", "rack units per server (default: catalog)"),
	OPT_GROUP_("use"),
	NUM(TCO_IN_YEARS, "years", "Y", "years of service (default: facility table)"),
	NUM(TCO_IN_UTILISATION, "utilisation", "PCT", "% of hours the GPUs do paid work, 0-100 (default 70)"),
	OPT_STRING_("precision", &precision_name, "P", "precision of the $/PFLOP-hour figure (default bf16)"),
	OPT_GROUP_("facility and finance (defaults: gpuscope catalog facility)"),
	NUM(TCO_IN_ELECTRICITY, "electricity", "USD", "electricity price, USD/kWh"),
	NUM(TCO_IN_PUE, "pue", "R", "power usage effectiveness, >= 1"),
	NUM(TCO_IN_COLO, "colo", "USD", "colocation, USD per kW-month of full-load power"),
	OPT_FLAG_("rack-unit-space", &rack_unit_space, "bill space per rack unit instead of per kW"),
	NUM(TCO_IN_RACK_UNIT_PRICE, "rack-unit-price", "USD", "space, USD per U-month (with --rack-unit-space)"),
	NUM(TCO_IN_STAFF, "staff", "USD", "operations staff, USD per rack-year"),
	NUM(TCO_IN_SUPPORT, "support", "PCT", "support contract, % of the price per year"),
	NUM(TCO_IN_ADDON, "addon", "PCT", "flat add-on, % of the price, instead of the BOM"),
	OPT_DOUBLE_("rack-kw", &rack_kw_flag, "KW", "power per rack (default: air 41, liquid 132)", 0, 10000),
	OPT_DOUBLE_("storage-tb", &storage_tb_flag, "TB", "shared storage bought (default 2 TB a GPU)", 0, 1e9),
	NUM(TCO_IN_RESIDUAL, "residual", "PCT", "resale value at the end, % of the price"),
	NUM(TCO_IN_CAPITAL, "cost-of-capital", "PCT", "cost of capital, %/year (discount rate of the NPV)"),
	OPT_GROUP_("cloud comparator"),
	OPT_STRING_("cloud", &cloud_name, "INSTANCE", "catalog instance (default: cheapest, same GPUs)"),
	NUM(TCO_IN_CLOUD_PRICE, "cloud-price", "USD", "instance price, USD/hour (default: catalog)"),
	NUM(TCO_IN_DISCOUNT, "reserved", "PCT", "reserved term at this % off: every hour is paid"),
	OPT_FLAG_("no-cloud", &no_cloud, "no comparison with renting"),
	OPT_GROUP_("output"),
	OPT_FLAG_("json", &json_flag, "print JSON with every input, source and term"),
	OPT_STRING_("report", &report_path, "FILE", "write an HTML report with charts to FILE"),
	OPT_END_(),
};

static const struct opts_cmd tco_cmd = {
	"tco",
	"--server NAME [--count N] | --gpu NAME --gpus N  [options]",
	"Total cost of owning GPU servers against renting the same GPU-hours.",
	"Every line of the account shows its formula with the numbers in it.  Defaults\n"
	"come from the catalog (servers, clouds, facility) and are listed with their\n"
	"sources; any of them can be set by its flag.  The formulas and a worked\n"
	"example are in docs/tco.md.\n"
	"\nExamples:\n"
	"  gpuscope tco --server dgx-h100 --cloud p5.48xlarge\n"
	"  gpuscope tco --server dgx-a100-320gb --utilisation 40 --electricity 0.15\n"
	"  gpuscope tco --gpu l40s --gpus 4 --years 4 --report tco.html\n",
	tco_opts,
};

/* ---- number formatting (every number goes out with its unit) ---- */

static char fbuf[16][96];
static unsigned fnext;

static char *next_buf(void)
{
	return fbuf[fnext++ % 16];
}

/* Money: "$1,234,568", "$2.82", "-$5,000". */
static const char *usd(double v, int dec)
{
	char *b = next_buf(), tmp[64];
	if (isnan(v))
		return "-";
	fmt_grouped(fabs(v), dec, tmp, sizeof(tmp));
	snprintf(b, 96, "%s$%s", v < 0 && strspn(tmp, "0.,") != strlen(tmp) ? "-" : "", tmp);
	return b;
}

static const char *num(double v, int dec)
{
	char *b = next_buf();
	if (isnan(v))
		return "-";
	fmt_grouped(v, dec, b, 64);
	return b;
}

/* Compact money for grid cells, signed: "+$1.25M", "-$250k" (units.h's style). */
static const char *usd_short(double v)
{
	char *b = next_buf();
	if (isnan(v))
		return "-";
	b[0] = v >= 0 ? '+' : 0;
	fmt_money(v, FMT_MONEY_SHORT, b + (v >= 0), (unsigned)sizeof(fbuf[0]) - 1);
	return b;
}

/* A value of one input with its unit. */
static const char *input_text(const struct tco_inputs *in, enum tco_input id, double v)
{
	char *b = next_buf();
	const struct tco_input_desc *d = tco_input_desc(id);
	switch (id) {
	case TCO_IN_PRICE:
	case TCO_IN_STAFF:
		snprintf(b, 64, "%s%s", usd(v, 0), id == TCO_IN_STAFF ? "/rack-yr" : "");
		break;
	case TCO_IN_ELECTRICITY:
		snprintf(b, 64, "%s/kWh", usd(v, 3));
		break;
	case TCO_IN_COLO:
		snprintf(b, 64, "%s/kW-month", usd(v, 2));
		break;
	case TCO_IN_RACK_UNIT_PRICE:
		snprintf(b, 64, "%s/U-month", usd(v, 2));
		break;
	case TCO_IN_CLOUD_PRICE:
		snprintf(b, 64, "%s/h", usd(v, 3));
		break;
	case TCO_IN_COUNT:
		snprintf(b, 64, "%s server%s", num(v, 0), v == 1 ? "" : "s");
		break;
	case TCO_IN_PUE:
		snprintf(b, 64, "%.2f", v);
		break;
	case TCO_IN_POWER:
	case TCO_IN_IDLE:
		snprintf(b, 64, "%.2f kW", v);
		break;
	case TCO_IN_RACK_UNITS:
		snprintf(b, 64, "%g U", v);
		break;
	case TCO_IN_YEARS:
		snprintf(b, 64, "%.3g years", v);
		break;
	default:
		snprintf(b, 64, "%.4g %s", v, d->unit);
	}
	(void)in;
	return b;
}

/* ---- arithmetic lines: "  label = expression = result", results aligned ---- */

#define ARITH_COL 59

static void arith(struct json_t *steps, const char *label, const char *expr, const char *result)
{
	char left[256];
	int n = snprintf(left, sizeof(left), "  %-12s= %s", label, expr);
	if (steps) {
		json_array_append_new(steps, json_sprintf("%s = %s = %s", label, expr, result));
		return;
	}
	if ((n > ARITH_COL ? n : ARITH_COL) + 3 + (int)strlen(result) <= 80) {
		printf("%-*s = %s\n", ARITH_COL, left, result);
	} else if (n + 3 + (int)strlen(result) <= 80) {
		printf("%s = %s\n", left, result);
	} else {
		/* an expression too long for one line breaks at a space */
		const char *p = left;
		int indent = 0;
		while ((int)strlen(p) + indent > 80) {
			int cut = 80 - indent;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut <= 0)
				break;
			printf("%*s%.*s\n", indent, "", cut, p);
			p += cut + 1;
			indent = 16;
		}
		printf("%*s%s\n%*s= %s\n", indent, "", p, 14, "", result);
	}
}

/* The account, written once: printed, or collected for JSON and HTML. */
static void account(const struct tco_inputs *in, const struct tco_result *r, json_t *steps)
{
	const double *v = in->value;
	double years = v[TCO_IN_YEARS];
	char e[256], res[96];

	if (!steps)
		printf("\nCapital, paid at month 0\n");
	snprintf(e, sizeof(e), "%s x %s", num(r->servers, 0), usd(v[TCO_IN_PRICE], 0));
	arith(steps, "servers", e, usd(r->server_capex_usd, 0));
	if (in->extra_capex_usd > 0 && have_bill) {
		snprintf(e, sizeof(e), "fabric %s + storage %s (%s TB) + cooling %s", usd(bill.fabric_usd, 0),
			 usd(bill.storage_usd, 0), num(bill.storage_tb, 0), usd(bill.cooling_usd, 0));
		arith(steps, "bill", e, usd(r->addon_usd, 0));
	} else {
		snprintf(e, sizeof(e), "%s x %g %% (network, storage)", usd(r->server_capex_usd, 0),
			 v[TCO_IN_ADDON]);
		arith(steps, "add-on", e, usd(r->addon_usd, 0));
	}
	snprintf(e, sizeof(e), "%s + %s", usd(r->server_capex_usd, 0), usd(r->addon_usd, 0));
	arith(steps, "capex", e, usd(r->capex_usd, 0));
	snprintf(e, sizeof(e), "%s x %g %% (resale after %g y)", usd(r->server_capex_usd, 0),
		 v[TCO_IN_RESIDUAL], years);
	arith(steps, "residual", e, usd(r->residual_usd, 0));

	if (!steps)
		printf("\nEach year\n");
	snprintf(e, sizeof(e), "%.2f kW idle + %g %% x (%.2f - %.2f) kW", v[TCO_IN_IDLE],
		 v[TCO_IN_UTILISATION], v[TCO_IN_POWER], v[TCO_IN_IDLE]);
	snprintf(res, sizeof(res), "%.2f kW/server", r->avg_power_kw);
	arith(steps, "avg power", e, res);
	if (in->extra_kw > 0)
		snprintf(e, sizeof(e), "(%s x %.2f + %.2f) kW x %.2f PUE x %s h x %s/kWh", num(r->servers, 0),
			 r->avg_power_kw, in->extra_kw, v[TCO_IN_PUE], num(in->hours_per_year, 0),
			 usd(v[TCO_IN_ELECTRICITY], 3));
	else
		snprintf(e, sizeof(e), "%s x %.2f kW x %.2f PUE x %s h x %s/kWh", num(r->servers, 0),
			 r->avg_power_kw, v[TCO_IN_PUE], num(in->hours_per_year, 0),
			 usd(v[TCO_IN_ELECTRICITY], 3));
	snprintf(res, sizeof(res), "%s/yr", usd(r->energy_usd_per_year, 0));
	arith(steps, "energy", e, res);
	if (in->space == TCO_SPACE_RACK_UNIT)
		snprintf(e, sizeof(e), "%s x %g U x %s/U-month x 12", num(r->servers, 0),
			 v[TCO_IN_RACK_UNITS], usd(v[TCO_IN_RACK_UNIT_PRICE], 2));
	else if (in->extra_kw > 0)
		snprintf(e, sizeof(e), "(%s x %.2f + %.2f) kW x %s/kW-month x 12", num(r->servers, 0),
			 v[TCO_IN_POWER], in->extra_kw, usd(v[TCO_IN_COLO], 2));
	else
		snprintf(e, sizeof(e), "%s x %.2f kW x %s/kW-month x 12", num(r->servers, 0),
			 v[TCO_IN_POWER], usd(v[TCO_IN_COLO], 2));
	snprintf(res, sizeof(res), "%s/yr", usd(r->space_usd_per_year, 0));
	arith(steps, "space", e, res);
	snprintf(e, sizeof(e), "%s rack%s x %s/rack-yr", num(r->racks, r->racks == floor(r->racks) ? 0 : 2),
		 r->racks == 1 ? "" : "s", usd(v[TCO_IN_STAFF], 0));
	snprintf(res, sizeof(res), "%s/yr", usd(r->staff_usd_per_year, 0));
	arith(steps, "staff", e, res);
	snprintf(e, sizeof(e), "%s x %g %%/yr", usd(r->server_capex_usd + in->extra_capex_usd, 0),
		 v[TCO_IN_SUPPORT]);
	snprintf(res, sizeof(res), "%s/yr", usd(r->support_usd_per_year, 0));
	arith(steps, "support", e, res);
	snprintf(e, sizeof(e), "%s + %s + %s + %s", usd(r->energy_usd_per_year, 0),
		 usd(r->space_usd_per_year, 0), usd(r->staff_usd_per_year, 0),
		 usd(r->support_usd_per_year, 0));
	snprintf(res, sizeof(res), "%s/yr", usd(r->opex_usd_per_year, 0));
	arith(steps, "opex", e, res);

	if (!steps)
		printf("\nOver %g years at %g %% utilisation\n", years, v[TCO_IN_UTILISATION]);
	snprintf(e, sizeof(e), "%s + %g x %s - %s", usd(r->capex_usd, 0), years,
		 usd(r->opex_usd_per_year, 0), usd(r->residual_usd, 0));
	arith(steps, "total", e, usd(r->total_usd, 0));
	snprintf(e, sizeof(e), "%s GPUs x %s h x %g %%", num(r->gpus, 0), num(r->hours, 0),
		 v[TCO_IN_UTILISATION]);
	snprintf(res, sizeof(res), "%s GPU-h", num(r->gpu_hours_used, 0));
	arith(steps, "GPU-hours", e, res);
	snprintf(e, sizeof(e), "%s / %s GPU-h", usd(r->total_usd, 0), num(r->gpu_hours_used, 0));
	snprintf(res, sizeof(res), "%s/GPU-h", usd(r->usd_per_gpu_hour, 3));
	arith(steps, "per GPU-h", e, res);
	if (!isnan(r->usd_per_pflop_hour)) {
		snprintf(e, sizeof(e), "%s / %.4g PFLOP/s (%s dense peak)",
			 usd(r->usd_per_gpu_hour, 3), in->peak_tflops_per_gpu / 1000, in->precision);
		snprintf(res, sizeof(res), "%s/PFLOP-h", usd(r->usd_per_pflop_hour, 3));
		arith(steps, "per PFLOP-h", e, res);
	}

	if (!r->has_cloud)
		return;
	if (!steps)
		printf("\nRenting the same GPU-hours: %s, %s\n", in->cloud_name,
		       in->cloud_reserved ? "reserved term (every hour paid)" : "on-demand");
	if (v[TCO_IN_DISCOUNT] > 0)
		snprintf(e, sizeof(e), "%s/h / %g GPUs x (1 - %g %%)", usd(v[TCO_IN_CLOUD_PRICE], 3),
			 in->cloud_gpus, v[TCO_IN_DISCOUNT]);
	else
		snprintf(e, sizeof(e), "%s/h / %g GPUs", usd(v[TCO_IN_CLOUD_PRICE], 3), in->cloud_gpus);
	snprintf(res, sizeof(res), "%s/GPU-h", usd(r->cloud_usd_per_gpu_hour, 3));
	arith(steps, "per GPU-h", e, res);
	if (in->cloud_reserved)
		snprintf(e, sizeof(e), "%s inst x %g GPUs x %s h x %s", num(r->cloud_instances, 0),
			 in->cloud_gpus, num(r->hours, 0), usd(r->cloud_usd_per_gpu_hour, 3));
	else
		snprintf(e, sizeof(e), "%s GPU-h x %s/GPU-h", num(r->gpu_hours_used, 0),
			 usd(r->cloud_usd_per_gpu_hour, 3));
	arith(steps, "cloud total", e, usd(r->cloud_total_usd, 0));
	snprintf(e, sizeof(e), "%s / %g months", usd(r->cloud_total_usd, 0), years * 12);
	snprintf(res, sizeof(res), "%s/month", usd(r->cloud_usd_per_month, 0));
	arith(steps, "cloud/month", e, res);
	snprintf(e, sizeof(e), "%s / 12", usd(r->opex_usd_per_year, 0));
	snprintf(res, sizeof(res), "%s/month", usd(r->owned_usd_per_month, 0));
	arith(steps, "owned/month", e, res);
	if (isnan(r->breakeven_month)) {
		snprintf(e, sizeof(e), "%s/month owned >= %s/month rented", usd(r->owned_usd_per_month, 0),
			 usd(r->cloud_usd_per_month, 0));
		arith(steps, "break-even", e, "never");
	} else {
		snprintf(e, sizeof(e), "%s / (%s - %s)/month", usd(r->capex_usd, 0),
			 usd(r->cloud_usd_per_month, 0), usd(r->owned_usd_per_month, 0));
		snprintf(res, sizeof(res), "month %.1f", r->breakeven_month);
		arith(steps, "break-even", e, res);
	}
	snprintf(e, sizeof(e), "%s - %s", usd(r->cloud_total_usd, 0), usd(r->total_usd, 0));
	arith(steps, "savings", e, usd(r->savings_usd, 0));
	snprintf(e, sizeof(e), "%s / %s capex", usd(r->savings_usd, 0), usd(r->capex_usd, 0));
	snprintf(res, sizeof(res), "%.1f %% (%.1f %%/yr)", r->roi_pct, r->roi_pct_per_year);
	arith(steps, "ROI", e, res);
	snprintf(e, sizeof(e), "-%s + %s/month x annuity(%g %%/yr, %g mo) + resale",
		 usd(r->capex_usd, 0), usd(r->cloud_usd_per_month - r->owned_usd_per_month, 0),
		 v[TCO_IN_CAPITAL], years * 12);
	arith(steps, "NPV", e, usd(r->npv_usd, 0));
}

static void verdict(const struct tco_inputs *in, const struct tco_result *r, char *out, size_t len)
{
	double months = in->value[TCO_IN_YEARS] * 12;
	if (!r->has_cloud) {
		snprintf(out, len, "owning costs %s/GPU-h at %g %% utilisation (no cloud comparison)",
			 usd(r->usd_per_gpu_hour, 3), in->value[TCO_IN_UTILISATION]);
		return;
	}
	if (r->savings_usd > 0 && r->breakeven_in_period)
		snprintf(out, len,
			 "owning is cheaper from month %.0f of %g; over %g years it saves %s "
			 "(%.0f %% of renting)", ceil(r->breakeven_month), months,
			 in->value[TCO_IN_YEARS], usd(r->savings_usd, 0),
			 r->savings_usd / r->cloud_total_usd * 100);
	else if (r->savings_usd > 0)
		snprintf(out, len, "owning comes out cheaper only through its resale value at the end; "
			 "it saves %s over %g years", usd(r->savings_usd, 0), in->value[TCO_IN_YEARS]);
	else if (isnan(r->breakeven_month))
		snprintf(out, len, "renting is cheaper: owning never breaks even (its running cost alone "
			 "is %s/month against %s/month rented); renting saves %s over %g years",
			 usd(r->owned_usd_per_month, 0), usd(r->cloud_usd_per_month, 0),
			 usd(-r->savings_usd, 0), in->value[TCO_IN_YEARS]);
	else
		snprintf(out, len, "renting is cheaper: owning would break even at month %.0f, after "
			 "the %g-month period; renting saves %s", ceil(r->breakeven_month), months,
			 usd(-r->savings_usd, 0));
}

/* Inputs whose flip point is shown, in order. */
static const enum tco_input flip_order[] = {
	TCO_IN_UTILISATION, TCO_IN_ELECTRICITY, TCO_IN_PUE, TCO_IN_PRICE, TCO_IN_CLOUD_PRICE,
	TCO_IN_DISCOUNT, TCO_IN_YEARS, TCO_IN_COLO, TCO_IN_STAFF,
};
#define NFLIPS (sizeof(flip_order) / sizeof(flip_order[0]))

static const double grid_util[] = {10, 25, 50, 75, 100};
static const double grid_elec[] = {0.05, 0.10, 0.15, 0.20, 0.30};
#define NGRID_U (sizeof(grid_util) / sizeof(grid_util[0]))
#define NGRID_E (sizeof(grid_elec) / sizeof(grid_elec[0]))

static double grid_savings(const struct tco_inputs *in, double util, double elec)
{
	struct tco_inputs t = *in;
	t.value[TCO_IN_UTILISATION] = util;
	return tco_savings_with(&t, TCO_IN_ELECTRICITY, elec);
}

/* Which side of the flip point owning wins on: "above" or "below"; NULL without one. */
static const char *flip_side(const struct tco_inputs *in, const struct tco_result *r,
			     enum tco_input id)
{
	double x = r->flip[id];
	if (isnan(x))
		return NULL;
	return tco_savings_with(in, id, x + fmax(fabs(x) * 0.01, 1e-6)) > 0 ? "above" : "below";
}

static const char *flip_text(const struct tco_inputs *in, const struct tco_result *r,
			     enum tco_input id)
{
	const char *side = flip_side(in, r, id);
	char *b;
	if (!side)
		return NULL;
	b = next_buf();
	snprintf(b, 64, "own %s %s", side, input_text(in, id, r->flip[id]));
	return b;
}

/* ---- human output ---- */

/* Prints text word-wrapped to 80 columns, continuation lines indented. */
static void print_wrapped(const char *text, int indent)
{
	int col = 0;
	const char *p = text;
	while (*p) {
		size_t w = strcspn(p, " \n");
		if (col > indent && col + 1 + (int)w > 80) {
			printf("\n%*s", indent, "");
			col = indent;
		} else if (col > indent || (col > 0 && p != text)) {
			putchar(' ');
			col++;
		}
		printf("%.*s", (int)w, p);
		col += (int)w;
		p += w;
		if (*p == '\n') {
			putchar('\n');
			col = 0;
			p++;
			continue;
		}
		while (*p == ' ')
			p++;
	}
	if (col)
		putchar('\n');
}

/* Whether an input applies (colocation per kW or per U, a cloud or none). */
static int input_shown(const struct tco_inputs *in, int i)
{
	if (isnan(in->value[i]))
		return 0;
	if (i == TCO_IN_COLO && in->space != TCO_SPACE_KW)
		return 0;
	if (i == TCO_IN_RACK_UNIT_PRICE && in->space != TCO_SPACE_RACK_UNIT)
		return 0;
	if ((i == TCO_IN_CLOUD_PRICE || i == TCO_IN_DISCOUNT) && !in->cloud_key)
		return 0;
	return 1;
}

static void print_inputs(const struct catalog *cat, const struct tco_inputs *in)
{
	struct table *t = table_new();
	int i;
	table_column(t, "input", ALIGN_LEFT);
	table_column(t, "value", ALIGN_RIGHT);
	table_column(t, "source", ALIGN_LEFT);
	for (i = 0; i < TCO_NINPUTS; i++) {
		const struct tco_input_desc *d = tco_input_desc((enum tco_input)i);
		const struct cat_facility *f;
		char src[256];
		if (!input_shown(in, i))
			continue;
		f = d->facility_key && strncmp(in->source[i], "--", 2) ?
			catalog_get(cat, CAT_FACILITY, d->facility_key) : NULL;
		if (f && f->row.source)
			snprintf(src, sizeof(src), "%s: %s", in->source[i], f->row.source);
		else
			snprintf(src, sizeof(src), "%s", in->source[i]);
		table_row(t);
		table_cell(t, d->what);
		table_cell(t, input_text(in, (enum tco_input)i, in->value[i]));
		table_cell(t, src);
	}
	table_print(t, stdout, 80);
	table_free(t);
}

static void print_human(const struct catalog *cat, const struct tco_inputs *in,
			const struct tco_result *r, const char *notes)
{
	char line[512];
	size_t i, j;

	printf("%s: %s x %g GPUs (%s)\n", in->name, num(r->servers, 0), in->gpus_per_server,
	       in->gpu_key ? in->gpu_key : "-");
	if (r->has_cloud)
		printf("against %s (%g x %s), %s\n", in->cloud_name, in->cloud_gpus,
		       in->cloud_gpu_key ? in->cloud_gpu_key : "-",
		       in->cloud_reserved ? "reserved" : "on-demand");
	if (notes && *notes)
		print_wrapped(notes, 2);
	printf("\n");
	print_inputs(cat, in);
	if (have_bill) {
		char sw[96];
		snprintf(line, sizeof(line),
			 "Bill of materials: %s %s-cooled rack%s of %.0f kW (%.0f server%s a rack); "
			 "switches %s; %s NIC ports, %s optics; %s TB storage; %.1f kW at the wall "
			 "(PUE %.2f)%s", num(bill.racks, 0), bill.cooling, bill.racks == 1 ? "" : "s",
			 bill.rack_kw, bill.nodes_per_rack, bill.nodes_per_rack == 1 ? "" : "s",
			 bom_switch_text(&bill, sw, sizeof(sw)), num(bill.nics, 0), num(bill.optics, 0),
			 num(bill.storage_tb, 0), bill.power_kw, bill.pue,
			 in->extra_capex_usd > 0 || !(bill.fabric_usd + bill.storage_usd > 0) ? "" :
			 "; not priced: --addon replaces it");
		printf("\n");
		print_wrapped(line, 2);
	}
	account(in, r, NULL);

	verdict(in, r, line, sizeof(line));
	printf("\n");
	{
		char v2[600];
		snprintf(v2, sizeof(v2), "Verdict: %s.", line);
		print_wrapped(v2, 2);
	}
	if (!r->has_cloud)
		return;

	printf("\nWhich input flips the decision (the others as above)\n");
	{
		struct table *t = table_new();
		table_column(t, "input", ALIGN_LEFT);
		table_column(t, "now", ALIGN_RIGHT);
		table_column(t, "decision flips at", ALIGN_LEFT);
		for (i = 0; i < NFLIPS; i++) {
			enum tco_input id = flip_order[i];
			const char *ft;
			if (id == TCO_IN_COLO && in->space != TCO_SPACE_KW)
				continue;
			ft = flip_text(in, r, id);
			table_row(t);
			table_cell(t, tco_input_desc(id)->what);
			table_cell(t, input_text(in, id, in->value[id]));
			table_cell(t, ft ? ft : "no flip within its range");
		}
		table_print(t, stdout, 80);
		table_free(t);
	}

	printf("\nSavings of owning over %g years (+ own, - rent), by utilisation and\n"
	       "electricity price\n", in->value[TCO_IN_YEARS]);
	{
		struct table *t = table_new();
		table_column(t, "utilisation", ALIGN_RIGHT);
		for (j = 0; j < NGRID_E; j++) {
			char h[32];
			snprintf(h, sizeof(h), "$%.2f/kWh", grid_elec[j]);
			table_column(t, h, ALIGN_RIGHT);
		}
		for (i = 0; i < NGRID_U; i++) {
			table_row(t);
			table_cellf(t, "%g %%", grid_util[i]);
			for (j = 0; j < NGRID_E; j++)
				table_cell(t, usd_short(grid_savings(in, grid_util[i], grid_elec[j])));
		}
		table_print(t, stdout, 80);
		table_free(t);
	}
}

/* ---- JSON ---- */

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *to_json(const struct catalog *cat, const struct tco_inputs *in,
		       const struct tco_result *r, const char *notes)
{
	json_t *o = json_object(), *ins = json_object(), *t = json_object(), *c, *fl, *grid, *steps;
	char line[512];
	size_t i, j;

	json_object_set_new(o, "name", json_string(in->name));
	json_object_set_new(o, "server", in->server_key ? json_string(in->server_key) : json_null());
	json_object_set_new(o, "gpu", in->gpu_key ? json_string(in->gpu_key) : json_null());
	json_object_set_new(o, "gpus_per_server", json_real(in->gpus_per_server));
	json_object_set_new(o, "space_billing", json_string(in->space == TCO_SPACE_KW ? "kw" : "rack_unit"));
	json_object_set_new(o, "hours_per_year", json_real(in->hours_per_year));
	json_object_set_new(o, "precision", in->precision ? json_string(in->precision) : json_null());
	json_object_set_new(o, "peak_tflops_per_gpu", jnum(in->peak_tflops_per_gpu));
	for (i = 0; i < TCO_NINPUTS; i++) {
		const struct tco_input_desc *d = tco_input_desc((enum tco_input)i);
		const struct cat_facility *f = d->facility_key ?
			catalog_get(cat, CAT_FACILITY, d->facility_key) : NULL;
		json_t *x;
		if (isnan(in->value[i]))
			continue;
		x = json_object();
		json_object_set_new(x, "value", json_real(in->value[i]));
		json_object_set_new(x, "unit", json_string(d->unit));
		json_object_set_new(x, "from", json_string(in->source[i]));
		if (f && f->row.source && strncmp(in->source[i], "--", 2))
			json_object_set_new(x, "citation", json_string(f->row.source));
		json_object_set_new(ins, d->flag, x);
	}
	json_object_set_new(o, "inputs", ins);

#define T(name, field) json_object_set_new(t, name, jnum(r->field))
	T("servers", servers);
	T("gpus", gpus);
	T("hours", hours);
	T("server_capex_usd", server_capex_usd);
	T("addon_usd", addon_usd);
	T("capex_usd", capex_usd);
	T("residual_usd", residual_usd);
	T("avg_power_kw_per_server", avg_power_kw);
	T("load_fraction", load_fraction);
	T("energy_kwh_per_year", energy_kwh_per_year);
	T("energy_usd_per_year", energy_usd_per_year);
	T("space_usd_per_year", space_usd_per_year);
	T("staff_usd_per_year", staff_usd_per_year);
	T("support_usd_per_year", support_usd_per_year);
	T("opex_usd_per_year", opex_usd_per_year);
	T("total_usd", total_usd);
	T("gpu_hours_used", gpu_hours_used);
	T("usd_per_gpu_hour", usd_per_gpu_hour);
	T("usd_per_pflop_hour", usd_per_pflop_hour);
	T("owned_usd_per_month", owned_usd_per_month);
	T("racks", racks);
#undef T
	json_object_set_new(t, "extra_kw", jnum(in->extra_kw));
	json_object_set_new(t, "extra_capex_usd", jnum(in->extra_capex_usd));
	json_object_set_new(o, "owned", t);
	if (have_bill)
		json_object_set_new(o, "bom", bom_json(&bill));

	if (r->has_cloud) {
		c = json_object();
		json_object_set_new(c, "instance", json_string(in->cloud_key));
		json_object_set_new(c, "name", json_string(in->cloud_name));
		json_object_set_new(c, "gpu", in->cloud_gpu_key ? json_string(in->cloud_gpu_key) : json_null());
		json_object_set_new(c, "gpus_per_instance", json_real(in->cloud_gpus));
		json_object_set_new(c, "pricing", json_string(in->cloud_reserved ? "reserved" : "on-demand"));
		json_object_set_new(c, "instances", jnum(r->cloud_instances));
		json_object_set_new(c, "usd_per_gpu_hour", jnum(r->cloud_usd_per_gpu_hour));
		json_object_set_new(c, "total_usd", jnum(r->cloud_total_usd));
		json_object_set_new(c, "usd_per_month", jnum(r->cloud_usd_per_month));
		json_object_set_new(o, "cloud", c);
		json_object_set_new(o, "breakeven_month", jnum(r->breakeven_month));
		json_object_set_new(o, "breakeven_in_period", json_boolean(r->breakeven_in_period));
		json_object_set_new(o, "savings_usd", jnum(r->savings_usd));
		json_object_set_new(o, "roi_pct", jnum(r->roi_pct));
		json_object_set_new(o, "roi_pct_per_year", jnum(r->roi_pct_per_year));
		json_object_set_new(o, "npv_usd", jnum(r->npv_usd));
		fl = json_object();
		for (i = 0; i < NFLIPS; i++) {
			const char *side = flip_side(in, r, flip_order[i]);
			json_t *x = json_object();
			json_object_set_new(x, "value", jnum(r->flip[flip_order[i]]));
			json_object_set_new(x, "unit", json_string(tco_input_desc(flip_order[i])->unit));
			json_object_set_new(x, "own_when", side ? json_string(side) : json_null());
			json_object_set_new(fl, tco_input_desc(flip_order[i])->flag, x);
		}
		json_object_set_new(o, "flips", fl);
		grid = json_array();
		for (i = 0; i < NGRID_U; i++)
			for (j = 0; j < NGRID_E; j++) {
				json_t *x = json_object();
				json_object_set_new(x, "utilisation_pct", json_real(grid_util[i]));
				json_object_set_new(x, "electricity_usd_per_kwh", json_real(grid_elec[j]));
				json_object_set_new(x, "savings_usd",
						    jnum(grid_savings(in, grid_util[i], grid_elec[j])));
				json_array_append_new(grid, x);
			}
		json_object_set_new(o, "sensitivity", grid);
	}
	steps = json_array();
	account(in, r, steps);
	json_object_set_new(o, "arithmetic", steps);
	verdict(in, r, line, sizeof(line));
	json_object_set_new(o, "verdict", json_string(line));
	json_object_set_new(o, "notes", json_string(notes ? notes : ""));
	return o;
}

/* ---- HTML report ---- */

static int write_report(const char *path, const struct tco_inputs *in, const struct tco_result *r,
			const char *notes, struct diag *err)
{
	struct html_doc *d;
	struct svg_chart *cum, *bars, *rate;
	json_t *steps = json_array();
	char title[256], line[512];
	double months = in->value[TCO_IN_YEARS] * 12, m, step;
	size_t i, j;
	int own, rent, rc = -1;
	char *acc = NULL;
	size_t acc_len = 0;

	snprintf(title, sizeof(title), "gpuscope tco: %s", in->name);
	d = html_new(title);
	html_heading(d, 1, title);
	snprintf(line, sizeof(line), "%s x %g GPUs (%s)%s%s%s, %g years at %g %% utilisation.",
		 num(r->servers, 0), in->gpus_per_server, in->gpu_key ? in->gpu_key : "-",
		 r->has_cloud ? " against " : "", r->has_cloud ? in->cloud_name : "",
		 r->has_cloud ? (in->cloud_reserved ? " (reserved)" : " (on-demand)") : "",
		 in->value[TCO_IN_YEARS], in->value[TCO_IN_UTILISATION]);
	html_paragraph(d, line);
	verdict(in, r, line, sizeof(line));
	html_paragraph(d, line);
	if (notes && *notes)
		html_note(d, notes);

	/* cumulative cash against months */
	cum = svg_chart_new(SVG_LINE, "tco-cumulative", "Cumulative cost, owned and rented");
	svg_axis(cum, 'x', "months after purchase", "month", SVG_SCALE_LINEAR);
	svg_axis(cum, 'y', "cumulative cost", "USD", SVG_SCALE_LINEAR);
	own = svg_series(cum, "owned");
	rent = r->has_cloud ? svg_series(cum, "rented") : -1;
	step = months > 120 ? 3 : 1;
	for (m = 0; m <= months + 1e-9; m += step) {
		svg_point(cum, own, m, tco_owned_cumulative_usd(r, m), NULL, 0);
		if (rent >= 0)
			svg_point(cum, rent, m, tco_cloud_cumulative_usd(r, m), NULL, 0);
	}
	if (r->residual_usd > 0)
		svg_point(cum, own, months, tco_owned_cumulative_usd(r, months) - r->residual_usd,
			  "after resale", 0);
	if (r->has_cloud && r->breakeven_in_period) {
		char lab[64];
		snprintf(lab, sizeof(lab), "break-even, month %.1f", r->breakeven_month);
		svg_mark(cum, r->breakeven_month, tco_owned_cumulative_usd(r, r->breakeven_month), lab);
	}
	html_heading(d, 2, "Cumulative cost");
	if (html_chart(d, cum, err))
		goto out_cum;

	/* where the money goes */
	bars = svg_chart_new(SVG_HBAR, "tco-breakdown", "Where the money goes over the period");
	svg_axis(bars, 'x', "cost over the period", "USD", SVG_SCALE_LINEAR);
	{
		int s_cap = svg_series(bars, "capex less resale");
		int s_en = svg_series(bars, "energy");
		int s_sp = svg_series(bars, "space");
		int s_st = svg_series(bars, "staff");
		int s_su = svg_series(bars, "support");
		int s_cl = svg_series(bars, "cloud instances");
		int b_own = svg_bar(bars, "owned");
		double y = in->value[TCO_IN_YEARS];
		svg_bar_value(bars, b_own, s_cap, fmax(r->capex_usd - r->residual_usd, 0));
		svg_bar_value(bars, b_own, s_en, r->energy_usd_per_year * y);
		svg_bar_value(bars, b_own, s_sp, r->space_usd_per_year * y);
		svg_bar_value(bars, b_own, s_st, r->staff_usd_per_year * y);
		svg_bar_value(bars, b_own, s_su, r->support_usd_per_year * y);
		if (r->has_cloud)
			svg_bar_value(bars, svg_bar(bars, "rented"), s_cl, r->cloud_total_usd);
	}
	svg_chart_size(bars, 760, r->has_cloud ? 240 : 200);
	html_heading(d, 2, "Where the money goes");
	if (html_chart(d, bars, err))
		goto out_bars;

	/* $/GPU-hour against utilisation */
	rate = svg_chart_new(SVG_LINE, "tco-rate", "Cost per GPU-hour used, by utilisation");
	svg_axis(rate, 'x', "utilisation", "%", SVG_SCALE_LINEAR);
	svg_axis(rate, 'y', "cost per GPU-hour used", "USD/GPU-h", SVG_SCALE_LINEAR);
	{
		int so = svg_series(rate, "owned"), sr = r->has_cloud ? svg_series(rate, "rented") : -1;
		double u;
		for (u = 10; u <= 100 + 1e-9; u += 5) {
			struct tco_inputs t = *in;
			struct tco_result tr;
			struct diag e2;
			t.value[TCO_IN_UTILISATION] = u;
			if (tco_compute(&t, &tr, &e2))
				continue;
			svg_point(rate, so, u, tr.usd_per_gpu_hour, NULL, 0);
			if (sr >= 0)
				svg_point(rate, sr, u, tr.cloud_total_usd / tr.gpu_hours_used, NULL, 0);
		}
		if (r->has_cloud && !isnan(r->flip[TCO_IN_UTILISATION]) &&
		    r->flip[TCO_IN_UTILISATION] >= 10) {
			struct tco_inputs t = *in;
			struct tco_result tr;
			struct diag e2;
			char lab[64];
			t.value[TCO_IN_UTILISATION] = r->flip[TCO_IN_UTILISATION];
			if (!tco_compute(&t, &tr, &e2)) {
				snprintf(lab, sizeof(lab), "break-even, %.1f %%", r->flip[TCO_IN_UTILISATION]);
				svg_mark(rate, r->flip[TCO_IN_UTILISATION], tr.usd_per_gpu_hour, lab);
			}
		}
	}
	html_heading(d, 2, "Cost per GPU-hour");
	if (html_chart(d, rate, err))
		goto out_rate;

	html_heading(d, 2, "The arithmetic");
	account(in, r, steps);
	for (i = 0; i < json_array_size(steps); i++) {
		const char *s = json_string_value(json_array_get(steps, i));
		size_t n = strlen(s);
		acc = xrealloc(acc, acc_len + n + 2);
		memcpy(acc + acc_len, s, n);
		acc_len += n;
		acc[acc_len++] = '\n';
		acc[acc_len] = 0;
	}
	html_pre(d, acc ? acc : "");

	html_heading(d, 2, "Inputs");
	{
		const char *head[] = {"input", "value", "source"};
		html_table_begin(d, "tco-inputs", NULL);
		html_table_head(d, head, 3);
		for (i = 0; i < TCO_NINPUTS; i++) {
			const char *row[3];
			if (!input_shown(in, (int)i))
				continue;
			row[0] = tco_input_desc((enum tco_input)i)->what;
			row[1] = input_text(in, (enum tco_input)i, in->value[i]);
			row[2] = in->source[i];
			html_table_row(d, row, 3);
		}
		html_table_end(d);
	}
	if (r->has_cloud) {
		const char *head[] = {"input", "now", "decision flips at"};
		html_heading(d, 2, "Which input flips the decision");
		html_table_begin(d, "tco-flips", NULL);
		html_table_head(d, head, 3);
		for (i = 0; i < NFLIPS; i++) {
			const char *row[3], *ft = flip_text(in, r, flip_order[i]);
			row[0] = tco_input_desc(flip_order[i])->what;
			row[1] = input_text(in, flip_order[i], in->value[flip_order[i]]);
			row[2] = ft ? ft : "no flip within its range";
			html_table_row(d, row, 3);
		}
		html_table_end(d);

		html_heading(d, 3, "Savings of owning by utilisation and electricity price");
		html_table_begin(d, "tco-sensitivity", NULL);
		{
			const char *head2[1 + NGRID_E];
			char hb[NGRID_E][32];
			head2[0] = "utilisation";
			for (j = 0; j < NGRID_E; j++) {
				snprintf(hb[j], sizeof(hb[j]), "$%.2f/kWh", grid_elec[j]);
				head2[j + 1] = hb[j];
			}
			html_table_head(d, head2, 1 + NGRID_E);
			for (i = 0; i < NGRID_U; i++) {
				const char *row[1 + NGRID_E];
				char ub[32];
				snprintf(ub, sizeof(ub), "%g %%", grid_util[i]);
				row[0] = ub;
				for (j = 0; j < NGRID_E; j++)
					row[j + 1] = usd_short(grid_savings(in, grid_util[i], grid_elec[j]));
				html_table_row(d, row, 1 + NGRID_E);
			}
		}
		html_table_end(d);
	}
	html_note(d, "Totals are cash paid, undiscounted; the NPV discounts the monthly difference "
		  "and the resale value at the cost of capital. The cloud side counts only the "
		  "instance price (no storage, egress or support). Formulas: docs/tco.md.");
	rc = html_write_file(d, path, err);
out_rate:
	svg_chart_free(rate);
out_bars:
	svg_chart_free(bars);
out_cum:
	svg_chart_free(cum);
	free(acc);
	json_decref(steps);
	html_free(d);
	return rc;
}

/* ---- command ---- */

static void die_input(const struct tco_inputs *in, const struct diag *err)
{
	int i;
	for (i = 0; i < TCO_NINPUTS; i++) {
		const struct tco_input_desc *d = tco_input_desc((enum tco_input)i);
		if (strcmp(err->field, d->flag))
			continue;
		if (!strncmp(in->source[i], "--", 2) || !in->source[i][0])
			die_usage("gpuscope tco: --%s: %s", d->flag, err->msg);
		die_usage("gpuscope tco: %s (from %s; set --%s): %s", d->what, in->source[i], d->flag,
			  err->msg);
	}
	if (err->field[0])
		die_usage("gpuscope tco: --%s: %s", err->field, err->msg);
	die_usage("gpuscope tco: %s", err->msg);
}

int cmd_tco(int argc, char **argv)
{
	const struct catalog *cat;
	struct tco_inputs in;
	struct tco_result r;
	struct diag err;
	char why[512], notes[1024] = "";
	size_t nl = 0;
	int npos, i;

	for (i = 0; i < TCO_NINPUTS; i++)
		flag_value[i] = NAN;
	for (i = 0; tco_opts[i].type != OPT_END; i++)
		if (tco_opts[i].type == OPT_DOUBLE && tco_opts[i].value != &rack_kw_flag &&
		    tco_opts[i].value != &storage_tb_flag) {
			long id = (double *)tco_opts[i].value - flag_value;
			if (strcmp(tco_opts[i].name, tco_input_desc((enum tco_input)id)->flag))
				BUG("flag '--%s' is not input %ld's", tco_opts[i].name, id);
		}
	npos = parse_options_or_exit(&tco_cmd, argc, argv);
	if (npos > 0)
		die_usage("gpuscope tco: unexpected argument '%s'", argv[0]);
	if (!!server_name == !!gpu_name)
		die_usage("gpuscope tco: give --server NAME, or --gpu NAME with --gpus N");
	if (gpu_name && !gpus_flag)
		die_usage("gpuscope tco: --gpu needs --gpus N (GPUs in the build)");
	if (server_name && gpus_flag)
		die_usage("gpuscope tco: --gpus goes with --gpu; a server has its own GPU count");
	if (no_cloud && (cloud_name || !isnan(flag_value[TCO_IN_CLOUD_PRICE]) ||
			 !isnan(flag_value[TCO_IN_DISCOUNT])))
		die_usage("gpuscope tco: --no-cloud excludes --cloud, --cloud-price and --reserved");

	cat = load_catalog_or_die();
	diag_clear(&err);
	/* a facility key that is missing is reported below unless its flag is given */
	(void)tco_inputs_init(&in, cat, &err);
	if (rack_unit_space)
		in.space = TCO_SPACE_RACK_UNIT;

	if (server_name) {
		const struct cat_server *s = catalog_server(cat, server_name, why, sizeof(why));
		if (!s)
			die_usage("gpuscope tco: --server: %s", why);
		if (tco_inputs_server(&in, cat, s, &err))
			die_usage("gpuscope tco: --server: %s", err.msg);
	} else {
		const struct cat_gpu *g = catalog_gpu(cat, gpu_name, why, sizeof(why));
		if (!g)
			die_usage("gpuscope tco: --gpu: %s", why);
		why[0] = 0;
		if (tco_inputs_generic(&in, cat, g, (double)gpus_flag, why, sizeof(why), &err)) {
			/* with the price and power given, the build needs no host share */
			if (isnan(flag_value[TCO_IN_PRICE]) || isnan(flag_value[TCO_IN_POWER]))
				die_usage("gpuscope tco: --gpu: %s", err.msg);
			snprintf(in.name, sizeof(in.name), "generic build, %ld x %s", gpus_flag,
				 g->row.name ? g->row.name : g->row.key);
			in.gpu_key = g->row.key;
			in.gpus_per_server = (double)gpus_flag;
			in.precision = "bf16";
			in.peak_tflops_per_gpu = cat_gpu_peak_tflops(g, "bf16");
			if (isnan(flag_value[TCO_IN_IDLE])) {
				/* no host share to estimate idle from: count full power always */
				flag_value[TCO_IN_IDLE] = flag_value[TCO_IN_POWER];
				nl += (size_t)snprintf(notes + nl, sizeof(notes) - nl,
						       "no --idle-kw: the build is assumed to draw its "
						       "full power at every hour\n");
			}
		} else {
			nl += (size_t)snprintf(notes + nl, sizeof(notes) - nl, "%s\n", why);
		}
	}
	if (precision_name) {
		const struct cat_gpu *g = in.gpu_key ? catalog_get(cat, CAT_GPUS, in.gpu_key) : NULL;
		double p = g ? cat_gpu_peak_tflops(g, precision_name) : NAN;
		if (isnan(p))
			die_usage("gpuscope tco: --precision: '%s' is not a precision %s has "
				  "(fp64 fp32 tf32 fp16 bf16 fp8 int8 fp4)", precision_name,
				  in.gpu_key ? in.gpu_key : "the GPU");
		in.precision = precision_name;
		in.peak_tflops_per_gpu = p;
	}

	if (!no_cloud) {
		const struct cat_cloud *c = NULL;
		if (cloud_name) {
			c = catalog_cloud(cat, cloud_name, why, sizeof(why));
			if (!c)
				die_usage("gpuscope tco: --cloud: %s", why);
		} else {
			int same = 0;
			c = tco_cloud_match(cat, in.gpu_key, in.gpus_per_server, &same);
			if (c)
				nl += (size_t)snprintf(notes + nl, nl < sizeof(notes) ? sizeof(notes) - nl : 0,
						       "no --cloud given: comparing with %s, the cheapest "
						       "instance with %s%s\n", c->row.key,
						       same ? "the same GPU and count" : "the same GPU",
						       same ? "" : " (per GPU-hour)");
			else if (!isnan(flag_value[TCO_IN_CLOUD_PRICE]))
				die_usage("gpuscope tco: --cloud-price needs --cloud INSTANCE");
			else
				nl += (size_t)snprintf(notes + nl, nl < sizeof(notes) ? sizeof(notes) - nl : 0,
						       "no catalog instance has %s GPUs: no cloud "
						       "comparison\n", in.gpu_key ? in.gpu_key : "these");
		}
		if (c) {
			tco_inputs_cloud(&in, c);
			if (c->gpu && in.gpu_key && strcmp(c->gpu, in.gpu_key))
				nl += (size_t)snprintf(notes + nl, nl < sizeof(notes) ? sizeof(notes) - nl : 0,
						       "note: %s has %s GPUs, not %s: the comparison is per "
						       "GPU-hour, not per unit of work\n", c->row.key, c->gpu,
						       in.gpu_key);
		}
	}

	for (i = 0; i < TCO_NINPUTS; i++)
		if (!isnan(flag_value[i])) {
			in.value[i] = flag_value[i];
			snprintf(in.source[i], sizeof(in.source[i]), "--%s", tco_input_desc((enum tco_input)i)->flag);
		}
	if (!isnan(flag_value[TCO_IN_DISCOUNT]))
		in.cloud_reserved = 1;
	if (!isnan(flag_value[TCO_IN_COUNT]) && flag_value[TCO_IN_COUNT] != floor(flag_value[TCO_IN_COUNT]))
		die_usage("gpuscope tco: --count: a whole number of servers, got %g", flag_value[TCO_IN_COUNT]);
	if (!isnan(flag_value[TCO_IN_UTILISATION]) && flag_value[TCO_IN_UTILISATION] > 0 &&
	    flag_value[TCO_IN_UTILISATION] <= 1)
		warning("--utilisation is a percentage: %g means %g %%, not %g %%",
			flag_value[TCO_IN_UTILISATION], flag_value[TCO_IN_UTILISATION],
			flag_value[TCO_IN_UTILISATION] * 100);

	if (isfinite(in.value[TCO_IN_POWER]) && in.value[TCO_IN_POWER] > 0 &&
	    isfinite(in.value[TCO_IN_COUNT]) && in.value[TCO_IN_COUNT] >= 1) {
		/* racks, fabric, storage and cooling for the servers owned (cost/bom.h) */
		const struct cat_server *s = in.server_key ? catalog_get(cat, CAT_SERVERS, in.server_key) : NULL;
		struct bom_in bi;
		memset(&bi, 0, sizeof(bi));
		bi.nodes = in.value[TCO_IN_COUNT];
		bi.gpus_per_node = in.gpus_per_server;
		bi.node_kw = in.value[TCO_IN_POWER];
		bi.node_u = in.value[TCO_IN_RACK_UNITS];
		bi.node_usd = in.value[TCO_IN_PRICE];
		bi.cooling = s ? s->cooling : NULL;
		bi.net = s && s->nic ? catalog_get(cat, CAT_LINKS, s->nic) : NULL;
		bi.ports_per_node = s && cat_has(s->nic_count) ? s->nic_count : 0;
		bi.ports_in_node_price = 1;
		bi.rack_kw = rack_kw_flag;
		bi.storage_tb = storage_tb_flag;
		bi.pue = flag_value[TCO_IN_PUE];
		diag_clear(&err);
		if (bom_build(&bill, cat, &bi, &err))
			die_usage("gpuscope tco: --%s: %s", err.field, err.msg);
		have_bill = 1;
		/* a flat --addon replaces the bill's parts; the racks stay */
		tco_inputs_bom(&in, &bill, isnan(flag_value[TCO_IN_ADDON]));
	}
	if (tco_compute(&in, &r, &err))
		die_input(&in, &err);

	if (report_path && write_report(report_path, &in, &r, notes, &err))
		die_code(EXIT_ENV, "gpuscope tco: --report: %s", err.msg);

	if (output_format_from(json_flag, 0, "tco") == FORMAT_JSON) {
		json_t *o = to_json(cat, &in, &r, notes);
		if (report_path)
			json_object_set_new(o, "report", json_string(report_path));
		report_json_print(o);
		json_decref(o);
	} else {
		print_human(cat, &in, &r, notes);
		if (report_path)
			printf("\nReport written to %s\n", report_path);
	}
	return EXIT_OK;
}
