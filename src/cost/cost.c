/*
 * Total cost of ownership of GPU servers against renting cloud instances.
 *
 * The account (docs/tco.md works it by hand for a DGX H100):
 *
 *   S servers of G GPUs each, price P per server, over Y years of H hours,
 *   with utilisation u (the fraction of hours the GPUs do paid work):
 *
 *   capex      = S*P + BOM (fabric, storage, liquid cooling: cost/bom.h)
 *                or S*P * (1 + addon%) with a flat add-on  paid at month 0
 *   residual   = S*P * residual%                          recovered at the end
 *   avg power  = idle + u * (full - idle)   per server    (linear server power
 *                model: Fan, Weber and Barroso, "Power provisioning for a
 *                warehouse-sized computer", ISCA 2007)
 *   energy/yr  = (S * avg power + fabric/storage kW) * PUE * H * $/kWh
 *   space/yr   = (S * full power + fabric/storage kW) * $/kW-month * 12 (colo rents the
 *                provisioned kW; power is metered on top, so both count)
 *             or S * rack units * $/U-month * 12
 *   staff/yr   = the BOM's engineers (GPUs / GPUs an engineer) * $/engineer-year,
 *                or racks * $/rack-year without a BOM or with --staff
 *   support/yr = (S*P + BOM) * support% + the BOM's licences
 *   total      = capex + Y * (energy + space + staff + support) - residual
 *   $/GPU-h    = total / (S*G * Y*H * u)
 *   $/PFLOP-h  = $/GPU-h / (dense peak TFLOP/s / 1000)
 *
 *   Renting the same GPU-hours on demand costs S*G * Y*H * u * cloud $/GPU-h;
 *   a reserved term pays every hour of the period for enough instances, at
 *   the discounted price.  Owning starts capex behind and gains
 *   (cloud/month - opex/month) each month, so it breaks even at
 *   capex / (cloud/month - opex/month) months, or never when that gain is
 *   not positive.  ROI = savings / capex; NPV discounts the monthly gains and
 *   the residual at the cost of capital, less the capex.
 *
 *   Every total above is linear in each single input (u, $/kWh, PUE, price,
 *   cloud price, years ...), so the value at which the decision flips is
 *   found exactly from the savings at two values of that input.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost/bom.h"
#include "cost/cost.h"

static const struct tco_input_desc inputs[TCO_NINPUTS] = {
	[TCO_IN_COUNT] = {"count", NULL, "servers", "number of servers", 1, 1e6, 0},
	[TCO_IN_PRICE] = {"price", NULL, "USD", "price per server", 0, 1e10, 1},
	[TCO_IN_POWER] = {"power-kw", NULL, "kW", "full-load power per server", 0, 1e4, 1},
	[TCO_IN_IDLE] = {"idle-kw", NULL, "kW", "idle power per server", 0, 1e4, 0},
	[TCO_IN_RACK_UNITS] = {"rack-units", NULL, "U", "rack units per server", 0, 1000, 0},
	[TCO_IN_YEARS] = {"years", "depreciation_years", "years", "years of service", 0.25, 30, 0},
	[TCO_IN_UTILISATION] = {"utilisation", NULL, "%", "utilisation", 0, 100, 1},
	[TCO_IN_ELECTRICITY] = {"electricity", "electricity_usd_per_kwh", "USD/kWh", "electricity price", 0, 10,
				0},
	[TCO_IN_PUE] = {"pue", "pue", "ratio", "power usage effectiveness", 1, 5, 0},
	[TCO_IN_COLO] = {"colo", "colo_usd_per_kw_month", "USD/kW-month", "colocation price", 0, 1e5, 0},
	[TCO_IN_RACK_UNIT_PRICE] = {"rack-unit-price", "rack_unit_usd_per_month", "USD/U-month", "rack-unit price",
				    0, 1e5, 0},
	[TCO_IN_STAFF] = {"staff", "staff_usd_per_rack_year", "USD/rack-year", "staff cost", 0, 1e8, 0},
	[TCO_IN_SUPPORT] = {"support", "support_pct_per_year", "%/year", "support contract", 0, 100, 0},
	[TCO_IN_ADDON] = {"addon", NULL, "%", "flat network and storage add-on", 0, 1000, 0},
	[TCO_IN_RESIDUAL] = {"residual", "residual_value_pct", "%", "residual value", 0, 100, 0},
	[TCO_IN_CAPITAL] = {"cost-of-capital", "cost_of_capital_pct", "%/year", "cost of capital", 0, 100, 0},
	[TCO_IN_INTEREST] = {"interest", "interest_pct", "%/year", "interest on the capital", 0, 100, 0},
	[TCO_IN_CLOUD_PRICE] = {"cloud-price", NULL, "USD/h", "cloud instance price", 0, 1e6, 0},
	[TCO_IN_DISCOUNT] = {"reserved", NULL, "%", "cloud discount", 0, 100, 0},
};

const struct tco_input_desc *tco_input_desc(enum tco_input id)
{
	return (unsigned)id < TCO_NINPUTS ? &inputs[id] : NULL;
}

/* Sets an input and says where it came from: static words, or a catalog row and a note. */
static void set_text(struct tco_inputs *in, enum tco_input id, double v, const char *text)
{
	in->value[id] = v;
	in->source[id] = (struct tco_source){TCO_FROM_TEXT, NULL, text};
}

static void set_row(struct tco_inputs *in, enum tco_input id, double v, const struct cat_row *row,
		    const char *note)
{
	in->value[id] = v;
	in->source[id] = (struct tco_source){TCO_FROM_ROW, row, note};
}

void tco_inputs_set_flag(struct tco_inputs *in, enum tco_input id, double v)
{
	in->value[id] = v;
	in->source[id] = (struct tco_source){TCO_FROM_FLAG, NULL, NULL};
}

void tco_input_source(const struct tco_inputs *in, enum tco_input id, struct strbuf *sb)
{
	const struct tco_source *s = &in->source[id];
	switch (s->from) {
	case TCO_FROM_TEXT:
		strbuf_addstr(sb, s->text);
		break;
	case TCO_FROM_FLAG:
		strbuf_addf(sb, "--%s", inputs[id].flag);
		break;
	case TCO_FROM_ROW:
		strbuf_addf(sb, "%s:%d%s%s", s->row->origin, s->row->line, s->text ? " " : "",
			    s->text ? s->text : "");
		break;
	case TCO_FROM_NO_FACILITY:
		strbuf_addf(sb, "facility.csv has no '%s'", inputs[id].facility_key);
		break;
	case TCO_FROM_NONE:
		break;
	}
}

void tco_inputs_name(const struct tco_inputs *in, struct strbuf *sb)
{
	if (in->generic)
		strbuf_addf(sb, "generic build, %.0f x %s", in->gpus_per_server, in->name ? in->name : "");
	else
		strbuf_addstr(sb, in->name);
}

int tco_inputs_init(struct tco_inputs *in, const struct catalog *cat, struct diag *err)
{
	int i, rc = 0;
	memset(in, 0, sizeof(*in));
	for (i = 0; i < TCO_NINPUTS; i++)
		in->value[i] = NAN;
	in->hours_per_year = TCO_HOURS_PER_YEAR;
	in->space = TCO_SPACE_KW;
	in->cloud_gpus = NAN;
	in->cloud_tier = CAT_TIER_ON_DEMAND;
	in->peak_tflops_per_gpu = NAN;
	set_text(in, TCO_IN_COUNT, 1, "default");
	set_text(in, TCO_IN_UTILISATION, 70, "gpuscope default (an assumption: measure yours)");
	set_text(in, TCO_IN_DISCOUNT, 0, "on-demand");
	set_text(in, TCO_IN_ADDON, 0, "none: the bill of materials prices network and storage");
	in->racks = NAN;
	for (i = 0; i < TCO_NINPUTS; i++) {
		const struct cat_facility *f;
		if (!inputs[i].facility_key)
			continue;
		f = catalog_get(cat, CAT_FACILITY, inputs[i].facility_key);
		if (!f || !cat_has(f->value)) {
			/* left NaN: tco_inputs_check() reports it unless a flag sets it */
			in->source[i] = (struct tco_source){TCO_FROM_NO_FACILITY, NULL, NULL};
			if (!rc)
				rc = diag_set(err, "facility.csv", 0, 0, inputs[i].flag,
					      "the catalog's facility table has no '%s' (the default "
					      "%s); give --%s",
					      inputs[i].facility_key, inputs[i].what, inputs[i].flag);
			continue;
		}
		set_row(in, (enum tco_input)i, f->value, &f->row, NULL);
	}
	return rc;
}

int tco_inputs_server(struct tco_inputs *in, const struct catalog *cat, const struct cat_server *s,
		      struct diag *err)
{
	const struct cat_gpu *g = s->gpu ? catalog_get(cat, CAT_GPUS, s->gpu) : NULL;
	in->name = s->row.name ? s->row.name : s->row.key;
	in->generic = 0;
	in->server_key = s->row.key;
	in->gpu_key = s->gpu;
	in->gpus_per_server = s->gpu_count;
	if (!cat_has(s->gpu_count) || s->gpu_count < 1)
		return diag_set(err, s->row.origin, s->row.line, 0, "gpu_count", "server '%s' has no GPU count",
				s->row.key);
	set_row(in, TCO_IN_PRICE, s->price_usd, &s->row, NULL);
	set_row(in, TCO_IN_POWER, s->power_kw, &s->row, NULL);
	set_row(in, TCO_IN_IDLE, s->idle_kw, &s->row, NULL);
	set_row(in, TCO_IN_RACK_UNITS, s->rack_units, &s->row, NULL);
	if (g && !in->precision) {
		in->precision = "bf16";
		in->peak_tflops_per_gpu = cat_gpu_peak_tflops(g, "bf16");
	}
	return 0;
}

int tco_inputs_generic(struct tco_inputs *in, const struct catalog *cat, const struct cat_gpu *g, double n,
		       char *why, size_t why_len, struct diag *err)
{
	double host_usd = 0, host_kw = 0, host_idle_kw = 0, ru = 0, used = 0;
	size_t i, ns = catalog_count(cat, CAT_SERVERS), off;

	if (!(n >= 1))
		return diag_set(err, "", 0, 0, "gpus", "a generic build needs at least 1 GPU");
	if (!cat_has(g->price_usd))
		return diag_set(err, g->row.origin, g->row.line, 0, "price",
				"gpu '%s' has no price in the catalog; give --price USD for the build",
				g->row.key);
	if (!cat_has(g->tdp_w))
		return diag_set(err, g->row.origin, g->row.line, 0, "power-kw",
				"gpu '%s' has no TDP in the catalog; give --power-kw", g->row.key);
	off = (size_t)snprintf(why, why_len, "host share per GPU: mean of");
	/*
	 * The host's share per GPU slot is what a catalog server costs and
	 * draws beyond its GPUs, divided by its GPU count, averaged over
	 * servers whose GPUs have the same form factor (an SXM baseboard
	 * host is not a PCIe workstation's).
	 */
	for (i = 0; i < ns; i++) {
		const struct cat_server *s = catalog_server_at(cat, i);
		const struct cat_gpu *sg = s->gpu ? catalog_get(cat, CAT_GPUS, s->gpu) : NULL;
		double k = s->gpu_count, hu, hk, hi;
		if (!sg || !sg->form_factor || !g->form_factor || strcmp(sg->form_factor, g->form_factor))
			continue;
		if (!cat_has(k) || k < 1 || !cat_has(s->price_usd) || !cat_has(s->power_kw) ||
		    !cat_has(s->idle_kw) || !cat_has(s->rack_units) || !cat_has(sg->price_usd) ||
		    !cat_has(sg->tdp_w))
			continue;
		hu = (s->price_usd - k * sg->price_usd) / k;
		hk = (s->power_kw - k * sg->tdp_w / 1000) / k;
		hi = (s->idle_kw - k * (cat_has(sg->idle_w) ? sg->idle_w : 0) / 1000) / k;
		if (hu < 0 || hk < 0)
			continue; /* the row's price or power is below its GPUs': not a usable host */
		host_usd += hu;
		host_kw += hk;
		host_idle_kw += hi > 0 ? hi : 0;
		ru += s->rack_units / k;
		used++;
		if (why && off < why_len)
			off += (size_t)snprintf(why + off, why_len - off, "%s %s", used > 1 ? "," : "",
						s->row.key);
	}
	if (!used)
		return diag_set(err, "", 0, 0, "price",
				"no catalog server with %s GPUs to take a host share from; give "
				"--price USD and --power-kw KW for the build",
				g->form_factor ? g->form_factor : "such");
	host_usd /= used;
	host_kw /= used;
	host_idle_kw /= used;
	ru /= used;
	in->name = g->row.name ? g->row.name : g->row.key;
	in->generic = 1;
	in->server_key = NULL;
	in->gpu_key = g->row.key;
	in->gpus_per_server = n;
	set_row(in, TCO_IN_PRICE, n * (g->price_usd + host_usd), &g->row, "GPUs + host share");
	set_row(in, TCO_IN_POWER, n * (g->tdp_w / 1000 + host_kw), &g->row, "GPUs + host share");
	set_row(in, TCO_IN_IDLE, n * ((cat_has(g->idle_w) ? g->idle_w : 0) / 1000 + host_idle_kw), &g->row,
		"GPUs + host share");
	set_text(in, TCO_IN_RACK_UNITS, ceil(n * ru - 1e-9), "host share of catalog servers");
	in->precision = "bf16";
	in->peak_tflops_per_gpu = cat_gpu_peak_tflops(g, "bf16");
	return 0;
}

void tco_inputs_bom(struct tco_inputs *in, const struct bom *b, int with_parts)
{
	/* staff by the racks' share the servers fill: a quarter rack is staffed as a quarter */
	in->racks = with_parts && b->nodes_per_rack > 0 ? b->servers / b->nodes_per_rack : NAN;
	in->extra_capex_usd = with_parts ? b->capex_usd - b->server_usd : 0;
	in->extra_kw = with_parts ? b->it_kw - b->servers * in->value[TCO_IN_POWER] : 0;
	if (in->extra_kw < 0)
		in->extra_kw = 0;
	in->bill_staff = with_parts;
	in->staff_usd_per_year = with_parts ? b->staff_usd_per_year : 0;
	in->licence_usd_per_year = with_parts ? b->licence_usd_per_year : 0;
	if (tco_staff_from_bill(in))
		set_text(in, TCO_IN_STAFF, in->value[TCO_IN_STAFF], "--staff only: the bill staffs by GPUs");
	if (with_parts && !strcmp(b->cooling, "liquid") && in->source[TCO_IN_PUE].from != TCO_FROM_FLAG)
		set_text(in, TCO_IN_PUE, b->pue, "liquid-cooled racks (facility.csv pue_liquid_cooled_ai)");
}

int tco_staff_from_bill(const struct tco_inputs *in)
{
	return in->bill_staff && in->source[TCO_IN_STAFF].from != TCO_FROM_FLAG;
}

/* A tier's price, as the source of the cloud price names it, and as the discount's source. */
static const char *const tier_price_note[CAT_NTIERS] = {
	[CAT_TIER_ON_DEMAND] = NULL,
	[CAT_TIER_1Y] = "1y price",
	[CAT_TIER_3Y] = "3y price",
	[CAT_TIER_SPOT] = "spot price",
};
static const char *const tier_discount_source[CAT_NTIERS] = {
	[CAT_TIER_ON_DEMAND] = "on-demand",
	[CAT_TIER_1Y] = "the 1y committed price",
	[CAT_TIER_3Y] = "the 3y committed price",
	[CAT_TIER_SPOT] = "the spot price",
};

/* The instance's price at tier t; -1 with *err naming the tiers it has when it has none. */
static int tier_price(const struct cat_cloud *c, enum cat_tier t, double *usd_per_hour, struct diag *err)
{
	struct strbuf has = STRBUF_INIT;
	*usd_per_hour = cat_cloud_usd_per_hour(c, t);
	if (cat_has(*usd_per_hour))
		return 0;
	cat_cloud_tiers(c, &has);
	diag_set(err, c->row.origin, c->row.line, 0, "price-tier",
		 "cloud instance '%s' has no %s price in the catalog; it has %s", c->row.key, cat_tier_name(t),
		 strbuf_str(&has));
	strbuf_release(&has);
	return -1;
}

int tco_inputs_cloud(struct tco_inputs *in, const struct cat_cloud *c, enum cat_tier t, struct diag *err)
{
	double price;
	if (tier_price(c, t, &price, err))
		return -1;
	in->cloud_key = c->row.key;
	in->cloud_name = c->row.name ? c->row.name : c->row.key;
	in->cloud_gpu_key = c->gpu;
	in->cloud_gpus = c->gpu_count;
	in->cloud = c;
	in->cloud_tier = t;
	/* a commitment is paid for every hour of its term, used or not */
	in->cloud_reserved = cat_tier_committed(t);
	set_row(in, TCO_IN_CLOUD_PRICE, price, &c->row, tier_price_note[t]);
	set_text(in, TCO_IN_DISCOUNT, 0, tier_discount_source[t]);
	return 0;
}

const struct cat_cloud *tco_cloud_match(const struct catalog *cat, const char *gpu_key, double gpus,
					enum cat_tier t, int *same_count)
{
	const struct cat_cloud *best = NULL, *best_any = NULL;
	double best_any_rate = INFINITY, best_price = INFINITY;
	size_t i, n = catalog_count(cat, CAT_CLOUDS);
	for (i = 0; i < n && gpu_key; i++) {
		const struct cat_cloud *c = catalog_cloud_at(cat, i);
		double rate, price = cat_cloud_usd_per_hour(c, t);
		if (!c->gpu || strcmp(c->gpu, gpu_key) || !cat_has(price) || !cat_has(c->gpu_count) ||
		    c->gpu_count < 1)
			continue;
		rate = price / c->gpu_count;
		if (c->gpu_count == gpus && price < best_price) {
			best = c;
			best_price = price;
		}
		if (rate < best_any_rate) {
			best_any_rate = rate;
			best_any = c;
		}
	}
	if (same_count)
		*same_count = best != NULL;
	return best ? best : best_any;
}

static int check_one(const struct tco_inputs *in, enum tco_input id, struct diag *err)
{
	const struct tco_input_desc *d = &inputs[id];
	double v = in->value[id];
	if (isnan(v))
		return diag_set(err, "", 0, 0, d->flag, "no value for the %s; give --%s %s", d->what, d->flag,
				d->unit);
	if (!isfinite(v))
		return diag_set(err, "", 0, 0, d->flag, "the %s must be a finite number", d->what);
	if (v < 0 && d->min >= 0)
		return diag_set(err, "", 0, 0, d->flag, "the %s must not be negative, got %g %s", d->what, v,
				d->unit);
	if (d->min_exclusive ? v <= d->min : v < d->min)
		return diag_set(err, "", 0, 0, d->flag, "the %s must be %s %g %s, got %g %s", d->what,
				d->min_exclusive ? "more than" : "at least", d->min, d->unit, v, d->unit);
	if (v > d->max)
		return diag_set(err, "", 0, 0, d->flag, "the %s must be at most %g %s, got %g %s", d->what, d->max,
				d->unit, v, d->unit);
	return 0;
}

int tco_inputs_check(const struct tco_inputs *in, struct diag *err)
{
	int i;
	for (i = 0; i < TCO_NINPUTS; i++) {
		if (i == TCO_IN_CLOUD_PRICE && !in->cloud_key && isnan(in->value[i]))
			continue;
		if (i == TCO_IN_RACK_UNITS && in->space != TCO_SPACE_RACK_UNIT && isnan(in->value[i]))
			continue;
		if (i == TCO_IN_RACK_UNIT_PRICE && in->space != TCO_SPACE_RACK_UNIT && isnan(in->value[i]))
			continue;
		if (i == TCO_IN_COLO && in->space != TCO_SPACE_KW && isnan(in->value[i]))
			continue;
		if (check_one(in, (enum tco_input)i, err))
			return -1;
	}
	if (in->value[TCO_IN_IDLE] > in->value[TCO_IN_POWER])
		return diag_set(err, "", 0, 0, "idle-kw",
				"the idle power (%g kW) must not exceed the full-load power (%g kW)",
				in->value[TCO_IN_IDLE], in->value[TCO_IN_POWER]);
	if (!(in->gpus_per_server >= 1))
		return diag_set(err, "", 0, 0, "gpus", "the server has no GPUs");
	if (!(in->hours_per_year > 0))
		return diag_set(err, "", 0, 0, "years", "hours per year must be positive");
	if (in->cloud_key && !(in->cloud_gpus >= 1))
		return diag_set(err, "", 0, 0, "cloud", "cloud instance '%s' has no GPU count", in->cloud_key);
	return 0;
}

/*
 * The capital's cost at interest_pct a year, as a loan of the capex repaid
 * in n = 12 Y level monthly payments A with the resale repaying the rest at
 * the end (docs/tco.md derives it).  With r_m = (1 + i)^(1/12) - 1 and
 * v = 1 / (1 + r_m), the payments' present value is the capex less the
 * resale's:
 *
 *   A (1 - v^n) / r_m = capex - residual v^n
 *   A = (capex - residual v^n) r_m / (1 - v^n)      (capital recovery factor)
 *
 * interest = n A - (capex - residual): what the payments add to
 * straight-line depreciation; as i -> 0, A -> (capex - residual) / n and the
 * interest -> 0, today's account.
 */
static void capital_cost(struct tco_result *r, double interest_pct, double months)
{
	double rm = pow(1 + interest_pct / 100, 1.0 / 12) - 1, vn;
	if (!(rm > 0) || !(months > 0)) {
		r->capital_usd_per_month = months > 0 ? (r->capex_usd - r->residual_usd) / months : 0;
		r->interest_usd = 0;
		return;
	}
	vn = pow(1 + rm, -months);
	r->capital_usd_per_month = (r->capex_usd - r->residual_usd * vn) * rm / (1 - vn);
	r->interest_usd = r->capital_usd_per_month * months - (r->capex_usd - r->residual_usd);
}

/* Every term but the flip points, from checked inputs. */
static void compute_terms(const struct tco_inputs *in, struct tco_result *r)
{
	const double *v = in->value;
	double price = v[TCO_IN_PRICE], full = v[TCO_IN_POWER], idle = v[TCO_IN_IDLE];
	double years = v[TCO_IN_YEARS], months = years * 12;
	int i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < TCO_NINPUTS; i++)
		r->flip[i] = NAN;
	r->servers = v[TCO_IN_COUNT];
	r->gpus = r->servers * in->gpus_per_server;
	r->hours = years * in->hours_per_year;
	r->utilisation = v[TCO_IN_UTILISATION] / 100;

	r->server_capex_usd = r->servers * price;
	/* the bill of materials' fabric, storage and cooling, or a flat add-on */
	r->addon_usd = r->server_capex_usd * v[TCO_IN_ADDON] / 100 + in->extra_capex_usd;
	r->capex_usd = r->server_capex_usd + r->addon_usd;
	r->residual_usd = r->server_capex_usd * v[TCO_IN_RESIDUAL] / 100;
	r->racks = in->racks > 0 ? in->racks : r->servers; /* no bill of materials: one per server */

	r->avg_power_kw = idle + r->utilisation * (full - idle);
	r->load_fraction = full > 0 ? r->avg_power_kw / full : 0;
	/* switches, optics and storage draw around the clock */
	r->energy_kwh_per_year = (r->servers * r->avg_power_kw + in->extra_kw) * v[TCO_IN_PUE] *
				 in->hours_per_year;
	r->energy_usd_per_year = r->energy_kwh_per_year * v[TCO_IN_ELECTRICITY];
	if (in->space == TCO_SPACE_RACK_UNIT)
		r->space_usd_per_year = r->servers * v[TCO_IN_RACK_UNITS] * v[TCO_IN_RACK_UNIT_PRICE] * 12;
	else
		r->space_usd_per_year = (r->servers * full + in->extra_kw) * v[TCO_IN_COLO] * 12;
	/* staff by cluster size from the bill; without one (or with --staff) by rack, an NVL72 a rack */
	r->staff_usd_per_year = tco_staff_from_bill(in) ? in->staff_usd_per_year : r->racks * v[TCO_IN_STAFF];
	r->support_usd_per_year = (r->server_capex_usd + in->extra_capex_usd) * v[TCO_IN_SUPPORT] / 100 +
				  in->licence_usd_per_year;
	r->opex_usd_per_year = r->energy_usd_per_year + r->space_usd_per_year + r->staff_usd_per_year +
			       r->support_usd_per_year;

	capital_cost(r, v[TCO_IN_INTEREST], months);
	r->total_usd = r->capex_usd + r->opex_usd_per_year * years - r->residual_usd + r->interest_usd;
	r->gpu_hours_used = r->gpus * r->hours * r->utilisation;
	r->usd_per_gpu_hour = r->total_usd / r->gpu_hours_used;
	r->usd_per_pflop_hour = in->peak_tflops_per_gpu > 0 ?
					r->usd_per_gpu_hour / (in->peak_tflops_per_gpu / 1000) :
					NAN;
	r->opex_usd_per_month = r->opex_usd_per_year / 12;
	/* the interest spread evenly: the owned total is capex + this x months - residual */
	r->owned_usd_per_month = r->opex_usd_per_month + r->interest_usd / months;

	r->has_cloud = in->cloud_key != NULL;
	r->cloud_instances = NAN;
	r->cloud_usd_per_gpu_hour = NAN;
	r->cloud_total_usd = NAN;
	r->cloud_usd_per_month = NAN;
	r->breakeven_month = NAN;
	r->savings_usd = NAN;
	r->roi_pct = NAN;
	r->roi_pct_per_year = NAN;
	r->npv_usd = NAN;
	r->months = months;
	r->support_basis_usd = r->server_capex_usd + in->extra_capex_usd;
	r->gain_usd_per_month = NAN;
	r->savings_pct_of_cloud = NAN;
	r->cloud_usd_per_gpu_hour_used = NAN;
	if (!r->has_cloud)
		return;

	r->cloud_usd_per_gpu_hour = v[TCO_IN_CLOUD_PRICE] / in->cloud_gpus * (1 - v[TCO_IN_DISCOUNT] / 100);
	r->cloud_instances = ceil(r->gpus / in->cloud_gpus - 1e-9);
	if (in->cloud_reserved)
		/* a term is paid whether the GPUs work or not, for whole instances */
		r->cloud_total_usd = r->cloud_instances * in->cloud_gpus * r->hours * r->cloud_usd_per_gpu_hour;
	else
		r->cloud_total_usd = r->gpu_hours_used * r->cloud_usd_per_gpu_hour;
	r->cloud_usd_per_month = r->cloud_total_usd / months;
	if (r->cloud_usd_per_month > r->owned_usd_per_month)
		r->breakeven_month = r->capex_usd / (r->cloud_usd_per_month - r->owned_usd_per_month);
	r->breakeven_in_period = !isnan(r->breakeven_month) && r->breakeven_month <= months + 1e-9;
	r->savings_usd = r->cloud_total_usd - r->total_usd;
	r->savings_pct_of_cloud = r->savings_usd / r->cloud_total_usd * 100;
	r->gain_usd_per_month = r->cloud_usd_per_month - r->opex_usd_per_month;
	r->cloud_usd_per_gpu_hour_used = r->cloud_total_usd / r->gpu_hours_used;
	r->roi_pct = r->capex_usd > 0 ? r->savings_usd / r->capex_usd * 100 : NAN;
	r->roi_pct_per_year = r->roi_pct / years;
	{
		/* monthly gains at month ends, residual at the last; rate compounded yearly */
		double rm = pow(1 + v[TCO_IN_CAPITAL] / 100, 1.0 / 12) - 1;
		double annuity = rm > 0 ? (1 - pow(1 + rm, -months)) / rm : months;
		/* the cash flows themselves: discounting already charges the capital, --interest is not added */
		r->npv_usd = -r->capex_usd + r->gain_usd_per_month * annuity +
			     r->residual_usd * pow(1 + rm, -months);
	}
}

double tco_savings_with(const struct tco_inputs *in, enum tco_input id, double v)
{
	struct tco_inputs t = *in;
	struct tco_result r;
	t.value[id] = v;
	compute_terms(&t, &r);
	return r.savings_usd;
}

/* The inputs whose flip point is reported, and two values to fit the line through. */
static const struct {
	enum tco_input id;
	double a, b;
} flips[] = {
	{TCO_IN_UTILISATION, 50, 100}, {TCO_IN_ELECTRICITY, 0, 1},   {TCO_IN_PUE, 1, 2},
	{TCO_IN_PRICE, 0, 1e6},        {TCO_IN_CLOUD_PRICE, 0, 100}, {TCO_IN_DISCOUNT, 0, 50},
	{TCO_IN_YEARS, 1, 5},          {TCO_IN_COLO, 0, 100},        {TCO_IN_STAFF, 0, 10000},
};

_Static_assert(sizeof(flips) / sizeof(flips[0]) == TCO_NFLIPS, "TCO_NFLIPS counts flips[]");

enum tco_input tco_flip_input(size_t i)
{
	return i < TCO_NFLIPS ? flips[i].id : TCO_NINPUTS;
}

/* The value of flips[i]'s input at which the savings are 0; NaN when none within its range. */
static double flip_value(const struct tco_inputs *in, size_t i)
{
	const struct tco_input_desc *d = &inputs[flips[i].id];
	double xa = flips[i].a, xb = flips[i].b, sa, sb, x, tol;
	int k;
	if (flips[i].id == TCO_IN_COLO && in->space != TCO_SPACE_KW)
		return NAN;
	sa = tco_savings_with(in, flips[i].id, xa);
	sb = tco_savings_with(in, flips[i].id, xb);
	if (!isfinite(sa) || !isfinite(sb) || fabs(sb - sa) <= 1e-9 * (fabs(sa) + fabs(sb)))
		return NAN; /* the decision does not depend on this input */
	tol = 1e-9 * (fabs(sa) + fabs(sb));
	x = xa - sa * (xb - xa) / (sb - sa);
	/*
	 * Exact for an input the totals are linear in.  The interest bends the
	 * line of the years (its payments compound over them): secant steps
	 * from the two latest points then land on the root.
	 */
	for (k = 0; k < 40 && isfinite(x); k++) {
		double sx = tco_savings_with(in, flips[i].id, x);
		if (!isfinite(sx) || fabs(sx) <= tol || sx == sb)
			break;
		xa = xb;
		sa = sb;
		xb = x;
		sb = sx;
		x = xb - sb * (xb - xa) / (sb - sa);
	}
	if (d->min_exclusive ? x <= d->min : x < d->min)
		return NAN;
	if (x > d->max)
		return NAN;
	return x;
}

static size_t flip_index(enum tco_input id)
{
	size_t i;
	for (i = 0; i < TCO_NFLIPS && flips[i].id != id; i++)
		;
	if (i == TCO_NFLIPS)
		BUG("input %d has no flip point", (int)id);
	return i;
}

static void compute_flips(const struct tco_inputs *in, struct tco_result *r)
{
	size_t i;
	for (i = 0; i < TCO_NFLIPS; i++)
		r->flip[flips[i].id] = flip_value(in, i);
}

int tco_compute(const struct tco_inputs *in, struct tco_result *out, struct diag *err)
{
	if (tco_inputs_check(in, err))
		return -1;
	compute_terms(in, out);
	if (out->has_cloud)
		compute_flips(in, out);
	return 0;
}

int tco_keep(const struct tco_inputs *in, struct tco_keep *out, struct diag *err)
{
	struct tco_result r;

	memset(out, 0, sizeof(*out));
	if (tco_inputs_check(in, err))
		return -1;
	compute_terms(in, &r);
	out->servers = r.servers;
	out->gpus = r.gpus;
	out->energy_usd_per_year = r.energy_usd_per_year;
	out->space_usd_per_year = r.space_usd_per_year;
	out->staff_usd_per_year = r.staff_usd_per_year;
	out->support_usd_per_year = r.support_usd_per_year;
	out->usd_per_year = r.opex_usd_per_year;
	out->gpu_hours_per_year = r.gpus * in->hours_per_year * r.utilisation;
	out->usd_per_gpu_hour = out->usd_per_year / out->gpu_hours_per_year;
	return 0;
}

int tco_compute_with(const struct tco_inputs *in, enum tco_input id, double v, struct tco_result *out,
		     struct diag *err)
{
	struct tco_inputs t = *in;
	t.value[id] = v;
	return tco_compute(&t, out, err);
}

const char *tco_flip_side(const struct tco_inputs *in, const struct tco_result *r, enum tco_input id)
{
	double x = r->flip[id];
	if (isnan(x))
		return NULL;
	/* the savings a step past the flip point say which side owning wins on */
	return tco_savings_with(in, id, x + fmax(fabs(x) * 0.01, 1e-6)) > 0 ? "above" : "below";
}

/*
 * in compared with tier t of its instance instead, into *x: the catalog's
 * price at t, no discount, every hour paid for a term (the tier compared
 * with keeps its own price, a quote or --reserved included).  0, or -1 when
 * the instance has no price at t.
 */
static int at_tier(const struct tco_inputs *in, enum cat_tier t, struct tco_inputs *x)
{
	double price;
	*x = *in;
	if (t == in->cloud_tier)
		return 0;
	price = in->cloud ? cat_cloud_usd_per_hour(in->cloud, t) : NAN;
	if (!cat_has(price))
		return -1;
	x->value[TCO_IN_CLOUD_PRICE] = price;
	x->value[TCO_IN_DISCOUNT] = 0;
	x->cloud_reserved = cat_tier_committed(t);
	x->cloud_tier = t;
	return 0;
}

size_t tco_keep_tiers(const struct tco_inputs *in, struct tco_keep_tier out[CAT_NTIERS])
{
	size_t n = 0;
	int t;
	if (!in->cloud_key)
		return 0;
	for (t = 0; t < CAT_NTIERS; t++) {
		struct tco_inputs x, e;
		struct tco_result r, r0, r1;
		struct tco_keep_tier *o;
		double d0, d1, years = in->value[TCO_IN_YEARS];
		if (at_tier(in, (enum cat_tier)t, &x))
			continue;
		compute_terms(&x, &r);
		o = &out[n++];
		o->tier = (enum cat_tier)t;
		o->committed = x.cloud_reserved;
		o->usd_per_hour = x.value[TCO_IN_CLOUD_PRICE] * (1 - x.value[TCO_IN_DISCOUNT] / 100);
		o->cloud_usd_per_gpu_hour = r.cloud_usd_per_gpu_hour;
		o->rent_usd_per_year = r.cloud_total_usd / years;
		o->keep_usd_per_year = r.opex_usd_per_year;
		o->savings_usd_per_year = o->rent_usd_per_year - o->keep_usd_per_year;
		/* rent - keep is linear in the utilisation: its root from the two ends */
		e = x;
		e.value[TCO_IN_UTILISATION] = 0;
		compute_terms(&e, &r0);
		e.value[TCO_IN_UTILISATION] = 100;
		compute_terms(&e, &r1);
		d0 = r0.cloud_total_usd / years - r0.opex_usd_per_year;
		d1 = r1.cloud_total_usd / years - r1.opex_usd_per_year;
		o->breakeven_utilisation_pct = NAN;
		o->own_when = NULL;
		if (d0 != d1 && d0 / (d0 - d1) > 0 && d0 / (d0 - d1) < 1) {
			o->breakeven_utilisation_pct = 100 * d0 / (d0 - d1);
			o->own_when = d1 > d0 ? "above" : "below";
		}
	}
	return n;
}

/*
 * Without a flip point in the utilisation's range the decision is the same
 * at every utilisation: "always" when owning saves at both ends of the
 * range, "never" when it saves at neither (a committed tier pays every hour
 * whatever the use, so only the energy of owning moves with it); NULL when
 * the ends disagree (a flip the secant missed: no answer is given).
 */
static const char *util_verdict(const struct tco_inputs *x)
{
	const struct tco_input_desc *d = &inputs[TCO_IN_UTILISATION];
	double lo = d->min_exclusive ? d->min + 1e-6 * (d->max - d->min) : d->min;
	double a = tco_savings_with(x, TCO_IN_UTILISATION, lo),
	       b = tco_savings_with(x, TCO_IN_UTILISATION, d->max);
	if (a > 0 && b > 0)
		return "always";
	if (a <= 0 && b <= 0)
		return "never";
	return NULL;
}

size_t tco_tiers(const struct tco_inputs *in, struct tco_tier_result out[CAT_NTIERS])
{
	double on_demand_savings = NAN;
	size_t n = 0, i;
	int t;
	if (!in->cloud_key)
		return 0;
	for (t = 0; t < CAT_NTIERS; t++) {
		struct tco_inputs x;
		struct tco_tier_result *o;
		struct tco_result r;
		if (at_tier(in, (enum cat_tier)t, &x))
			continue;
		compute_terms(&x, &r);
		o = &out[n++];
		o->tier = (enum cat_tier)t;
		o->usd_per_hour = x.value[TCO_IN_CLOUD_PRICE] * (1 - x.value[TCO_IN_DISCOUNT] / 100);
		o->committed = x.cloud_reserved;
		o->cloud_usd_per_gpu_hour = r.cloud_usd_per_gpu_hour;
		o->cloud_total_usd = r.cloud_total_usd;
		o->savings_usd = r.savings_usd;
		o->breakeven_month = r.breakeven_month;
		r.flip[TCO_IN_UTILISATION] = flip_value(&x, flip_index(TCO_IN_UTILISATION));
		o->breakeven_utilisation_pct = r.flip[TCO_IN_UTILISATION];
		o->own_when = tco_flip_side(&x, &r, TCO_IN_UTILISATION);
		if (!o->own_when)
			o->own_when = util_verdict(&x);
		if (t == CAT_TIER_ON_DEMAND)
			on_demand_savings = r.savings_usd;
	}
	for (i = 0; i < n; i++)
		out[i].savings_change_usd = out[i].savings_usd - on_demand_savings;
	return n;
}

int tco_input_applies(const struct tco_inputs *in, enum tco_input id)
{
	if (isnan(in->value[id]))
		return 0;
	if (id == TCO_IN_COLO && in->space != TCO_SPACE_KW)
		return 0;
	if (id == TCO_IN_RACK_UNIT_PRICE && in->space != TCO_SPACE_RACK_UNIT)
		return 0;
	if ((id == TCO_IN_CLOUD_PRICE || id == TCO_IN_DISCOUNT) && !in->cloud_key)
		return 0;
	return 1;
}

const char *tco_input_citation(const struct catalog *cat, const struct tco_inputs *in, enum tco_input id)
{
	const struct cat_facility *f;
	if (!inputs[id].facility_key || in->source[id].from == TCO_FROM_FLAG)
		return NULL;
	f = catalog_get(cat, CAT_FACILITY, inputs[id].facility_key);
	return f ? f->row.source : NULL;
}

void tco_sensitivity(const struct tco_inputs *in, struct tco_point grid[TCO_GRID_UTIL][TCO_GRID_ELEC])
{
	static const double util_pct[TCO_GRID_UTIL] = {10, 25, 50, 75, 100};
	static const double usd_per_kwh[TCO_GRID_ELEC] = {0.05, 0.10, 0.15, 0.20, 0.30};
	size_t i, j;
	for (i = 0; i < TCO_GRID_UTIL; i++) {
		struct tco_inputs t = *in;
		t.value[TCO_IN_UTILISATION] = util_pct[i];
		for (j = 0; j < TCO_GRID_ELEC; j++) {
			grid[i][j].utilisation_pct = util_pct[i];
			grid[i][j].electricity_usd_per_kwh = usd_per_kwh[j];
			grid[i][j].savings_usd = tco_savings_with(&t, TCO_IN_ELECTRICITY, usd_per_kwh[j]);
		}
	}
}

void tco_owned_breakdown(const struct tco_inputs *in, const struct tco_result *r, struct tco_breakdown *out)
{
	double y = in->value[TCO_IN_YEARS];
	out->capex_less_residual_usd = fmax(r->capex_usd - r->residual_usd, 0);
	out->energy_usd = r->energy_usd_per_year * y;
	out->space_usd = r->space_usd_per_year * y;
	out->staff_usd = r->staff_usd_per_year * y;
	out->support_usd = r->support_usd_per_year * y;
	out->interest_usd = r->interest_usd;
}

int tco_inputs_size_bom(struct tco_inputs *in, const struct catalog *cat, double rack_kw, double storage_tb,
			double pue, int with_parts, struct bom *out, struct diag *err)
{
	const struct cat_server *s;
	struct bom_in bi;
	if (!(isfinite(in->value[TCO_IN_POWER]) && in->value[TCO_IN_POWER] > 0 &&
	      isfinite(in->value[TCO_IN_COUNT]) && in->value[TCO_IN_COUNT] >= 1))
		return 0;
	s = in->server_key ? catalog_get(cat, CAT_SERVERS, in->server_key) : NULL;
	memset(&bi, 0, sizeof(bi));
	bi.nodes = in->value[TCO_IN_COUNT];
	bi.gpus_per_node = in->gpus_per_server;
	bi.node_kw = in->value[TCO_IN_POWER];
	bi.node_u = in->value[TCO_IN_RACK_UNITS];
	bi.node_usd = in->value[TCO_IN_PRICE];
	bi.cooling = s ? s->cooling : NULL;
	bi.net = s && s->nic ? catalog_get(cat, CAT_LINKS, s->nic) : NULL;
	bi.ports_per_node = s && cat_has(s->nic_count) ? s->nic_count : 0;
	bi.ports_in_node_price = 1; /* a catalog server's price includes its NICs */
	bi.rack_kw = rack_kw;
	bi.storage_tb = storage_tb;
	bi.pue = pue;
	if (bom_build(out, cat, &bi, err))
		return -1;
	tco_inputs_bom(in, out, with_parts);
	return 1;
}

void tco_inputs_build(struct tco_inputs *in, const struct cat_gpu *g, double n)
{
	in->name = g->row.name ? g->row.name : g->row.key;
	in->generic = 1;
	in->gpu_key = g->row.key;
	in->gpus_per_server = n;
	in->precision = "bf16";
	in->peak_tflops_per_gpu = cat_gpu_peak_tflops(g, "bf16");
}

double tco_owned_cumulative_usd(const struct tco_result *r, double month)
{
	return r->capex_usd + r->owned_usd_per_month * month;
}

double tco_cloud_cumulative_usd(const struct tco_result *r, double month)
{
	return r->has_cloud ? r->cloud_usd_per_month * month : NAN;
}

int cost_basis_owned(struct cost_basis *b, const struct tco_inputs *in, struct diag *err)
{
	struct tco_result r;
	if (tco_inputs_check(in, err))
		return -1;
	compute_terms(in, &r);
	b->kind = COST_OWNED;
	b->key = in->server_key ? in->server_key : in->gpu_key;
	b->gpu_key = in->gpu_key;
	b->gpus = in->gpus_per_server;
	b->usd_per_gpu_hour = r.usd_per_gpu_hour;
	b->usd_per_hour = r.usd_per_gpu_hour * in->gpus_per_server;
	return 0;
}

/* The instance at usd_per_hour less discount_pct, per GPU-hour. */
static int rented(struct cost_basis *b, const struct cat_cloud *c, double usd_per_hour, double discount_pct,
		  struct diag *err)
{
	if (!cat_has(c->gpu_count) || c->gpu_count < 1)
		return diag_set(err, c->row.origin, c->row.line, 0, "gpu_count",
				"cloud instance '%s' has no GPU count", c->row.key);
	if (!(discount_pct >= 0 && discount_pct <= 100))
		return diag_set(err, "", 0, 0, "reserved",
				"the reserved discount must be within 0-100 %%, got %g %%", discount_pct);
	b->kind = COST_RENTED;
	b->key = c->row.key;
	b->gpu_key = c->gpu;
	b->gpus = c->gpu_count;
	b->usd_per_hour = usd_per_hour * (1 - discount_pct / 100);
	b->usd_per_gpu_hour = b->usd_per_hour / c->gpu_count;
	return 0;
}

int cost_basis_rented(struct cost_basis *b, const struct cat_cloud *c, double discount_pct, struct diag *err)
{
	if (!cat_has(c->usd_per_hour) || c->usd_per_hour < 0)
		return diag_set(err, c->row.origin, c->row.line, 0, "usd_per_hour",
				"cloud instance '%s' has no price", c->row.key);
	return rented(b, c, c->usd_per_hour, discount_pct, err);
}

int cost_basis_rented_at(struct cost_basis *b, const struct cat_cloud *c, enum cat_tier t, struct diag *err)
{
	double price;
	if (tier_price(c, t, &price, err))
		return -1;
	return rented(b, c, price, 0, err);
}

int cost_owned_usd_per_gpu_hour(const struct tco_inputs *in, double *usd_per_gpu_hour, struct diag *err)
{
	struct cost_basis b;
	if (cost_basis_owned(&b, in, err))
		return -1;
	*usd_per_gpu_hour = b.usd_per_gpu_hour;
	return 0;
}
