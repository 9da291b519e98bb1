/*
 * tco's field tables (cost/fields.h).  Each line is one JSON key: its
 * name, type, unit, meaning and the expression that reads it; the order of
 * the lines is the order of the keys in tco --json.
 */
#include "cost/fields.h"

#include "util/strbuf.h"

/* The display name and an input's source, written whole into text the row owns. */
static const char *name_text(struct report_row *row, const struct tco_inputs *in)
{
	struct strbuf sb = STRBUF_INIT;
	const char *t;
	tco_inputs_name(in, &sb);
	t = report_printf(row, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	return t;
}

static const char *source_text(struct report_row *row, const struct tco_inputs *in, enum tco_input id)
{
	struct strbuf sb = STRBUF_INIT;
	const char *t;
	tco_input_source(in, id, &sb);
	t = report_printf(row, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	return t;
}

#define TCO_FIELDS(F) \
	F(name, TEXT, NULL, "display name of what is owned", name_text(row, in)) \
	F(server, TEXT, NULL, "servers.csv key; null for a generic build", in->server_key) \
	F(gpu, TEXT, NULL, "gpus.csv key of the GPUs owned", in->gpu_key) \
	F(gpus_per_server, NUM, "GPUs", "GPUs in one server", in->gpus_per_server) \
	F(space_billing, TEXT, NULL, "how space is billed: kw or rack_unit", \
	  in->space == TCO_SPACE_KW ? "kw" : "rack_unit") \
	F(hours_per_year, NUM, "h", "hours in a year of 365.25 days", in->hours_per_year) \
	F(precision, TEXT, NULL, "precision of the $/PFLOP-hour figure", in->precision) \
	F(peak_tflops_per_gpu, NUM, "TFLOP/s", "dense peak of one GPU at that precision; null without one", \
	  in->peak_tflops_per_gpu)

#define TCO_INPUT_FIELDS(F) \
	F(value, NUM, NULL, "the input's value, in unit", in->value[id]) \
	F(unit, TEXT, NULL, "the value's unit: USD, kW, USD/kWh, %, ratio ...", tco_input_desc(id)->unit) \
	F(from, TEXT, NULL, "where the value came from: file:line, a flag or a default", \
	  source_text(row, in, id)) \
	F(citation, TEXT, NULL, "for a facility default, the table's citation (absent otherwise)", \
	  tco_input_citation(cat, in, id))

#define TCO_OWNED_FIELDS(F) \
	F(servers, NUM, "servers", "servers owned", r->servers) \
	F(gpus, NUM, "GPUs", "GPUs owned: servers x GPUs per server", r->gpus) \
	F(hours, NUM, "h", "hours in the period: years x hours per year", r->hours) \
	F(server_capex_usd, NUM, "USD", "servers x price per server", r->server_capex_usd) \
	F(addon_usd, NUM, "USD", "the bill beyond the servers, or server capex x --addon %", r->addon_usd) \
	F(capex_usd, NUM, "USD", "paid at month 0: server capex + add-on", r->capex_usd) \
	F(residual_usd, NUM, "USD", "resale value at the end: server capex x residual %", r->residual_usd) \
	F(avg_power_kw_per_server, NUM, "kW", "average draw of a server: idle + utilisation x (full - idle)", \
	  r->avg_power_kw) \
	F(load_fraction, NUM, "fraction", "average power / full-load power of a server", r->load_fraction) \
	F(energy_kwh_per_year, NUM, "kWh/year", "energy at the meter, PUE included", r->energy_kwh_per_year) \
	F(energy_usd_per_year, NUM, "USD/year", "energy x electricity price", r->energy_usd_per_year) \
	F(space_usd_per_year, NUM, "USD/year", "colocation per kW of full-load power, or per rack unit", \
	  r->space_usd_per_year) \
	F(staff_usd_per_year, NUM, "USD/year", \
	  "the bill's engineers x their yearly cost; racks x --staff without a bill or with --staff", \
	  r->staff_usd_per_year) \
	F(support_usd_per_year, NUM, "USD/year", "(server capex + bill) x support %, plus the bill's licences", \
	  r->support_usd_per_year) \
	F(opex_usd_per_year, NUM, "USD/year", "energy + space + staff + support", r->opex_usd_per_year) \
	F(capital_usd_per_month, NUM, "USD/month", \
	  "level payment repaying capex less the residual at --interest (capital recovery)", \
	  r->capital_usd_per_month) \
	F(interest_usd, NUM, "USD", \
	  "the capital's cost: months x that payment - (capex - residual); 0 without interest", r->interest_usd) \
	F(total_usd, NUM, "USD", "capex + years x opex - residual + interest: cash, undiscounted", r->total_usd) \
	F(gpu_hours_used, NUM, "GPU-h", "GPUs x hours x utilisation", r->gpu_hours_used) \
	F(usd_per_gpu_hour, NUM, "USD/GPU-h", "total / GPU-hours used", r->usd_per_gpu_hour) \
	F(usd_per_pflop_hour, NUM, "USD/PFLOP-h", "per GPU-hour / dense peak in PFLOP/s; null without a peak", \
	  r->usd_per_pflop_hour) \
	F(owned_usd_per_month, NUM, "USD/month", "opex / 12 + interest / months", r->owned_usd_per_month) \
	F(racks, NUM, "racks", "racks the servers fill (a share of one counts as that share)", r->racks) \
	F(extra_kw, NUM, "kW", "switches, optics and storage, drawn around the clock", in->extra_kw) \
	F(extra_capex_usd, NUM, "USD", \
	  "the bill beyond the servers (fabric, networks, storage, cooling, PDUs, install)", in->extra_capex_usd)

#define TCO_CLOUD_FIELDS(F) \
	F(instance, TEXT, NULL, "clouds.csv key", in->cloud_key) \
	F(name, TEXT, NULL, "the provider's name of the instance", in->cloud_name) \
	F(gpu, TEXT, NULL, "gpus.csv key of its GPUs", in->cloud_gpu_key) \
	F(gpus_per_instance, NUM, "GPUs", "GPUs in one instance", in->cloud_gpus) \
	F(pricing, TEXT, NULL, "on-demand (the hours used are paid) or reserved (every hour of the period)", \
	  in->cloud_reserved ? "reserved" : "on-demand") \
	F(price_tier, TEXT, NULL, "the instance's price compared with: on-demand, 1y, 3y or spot", \
	  cat_tier_name(in->cloud_tier)) \
	F(instances, NUM, "instances", "instances a reserved term pays for", r->cloud_instances) \
	F(usd_per_gpu_hour, NUM, "USD/GPU-h", "instance price / GPUs x (1 - discount)", \
	  r->cloud_usd_per_gpu_hour) \
	F(total_usd, NUM, "USD", "the same GPU-hours rented (reserved: every hour of whole instances)", \
	  r->cloud_total_usd) \
	F(usd_per_month, NUM, "USD/month", "cloud total / months of the period", r->cloud_usd_per_month)

#define TCO_COMPARE_FIELDS(F) \
	F(breakeven_month, NUM, "months", "capex / (cloud - owned per month); null when never", \
	  r->breakeven_month) \
	F(breakeven_in_period, BOOL, NULL, "whether the break-even falls within the period", \
	  r->breakeven_in_period) \
	F(savings_usd, NUM, "USD", "cloud total - owned total (> 0: owning pays)", r->savings_usd) \
	F(roi_pct, NUM, "%", "savings / capex over the period", r->roi_pct) \
	F(roi_pct_per_year, NUM, "%/year", "ROI / years", r->roi_pct_per_year) \
	F(npv_usd, NUM, "USD", "NPV of owning instead of renting, at the cost of capital", r->npv_usd)

#define TCO_FLIP_FIELDS(F) \
	F(value, NUM, NULL, "the input's value, in unit, at which the savings are 0; null: none in range", \
	  r->flip[id]) \
	F(unit, TEXT, NULL, "the value's unit", tco_input_desc(id)->unit) \
	F(own_when, TEXT, NULL, "above or below: the side of the value owning wins on; null without one", \
	  tco_flip_side(in, r, id))

#define TCO_SENSITIVITY_FIELDS(F) \
	F(utilisation_pct, NUM, "%", "utilisation", p->utilisation_pct) \
	F(electricity_usd_per_kwh, NUM, "USD/kWh", "electricity price", p->electricity_usd_per_kwh) \
	F(savings_usd, NUM, "USD", "cloud total - owned total at these two values", p->savings_usd)

#define TCO_TIER_FIELDS(F) \
	F(tier, TEXT, NULL, "on-demand, 1y, 3y or spot", cat_tier_name(t->tier)) \
	F(usd_per_hour, NUM, "USD/h", "the instance at this tier (the tier compared with: after --reserved)", \
	  t->usd_per_hour) \
	F(pricing, TEXT, NULL, "on-demand (the hours used are paid) or reserved (1y, 3y: every hour)", \
	  t->committed ? "reserved" : "on-demand") \
	F(usd_per_gpu_hour, NUM, "USD/GPU-h", "instance price / GPUs", t->cloud_usd_per_gpu_hour) \
	F(total_usd, NUM, "USD", "the same GPU-hours rented at this tier", t->cloud_total_usd) \
	F(savings_usd, NUM, "USD", "cloud total - owned total (> 0: owning pays)", t->savings_usd) \
	F(savings_change_usd, NUM, "USD", "savings here - savings against on-demand; null without on-demand", \
	  t->savings_change_usd) \
	F(breakeven_month, NUM, "months", "capex / (cloud - owned per month); null when never", \
	  t->breakeven_month) \
	F(breakeven_utilisation_pct, NUM, "%", \
	  "the utilisation at which the decision flips; null: none in 0-100 %", t->breakeven_utilisation_pct) \
	F(own_when, TEXT, NULL, \
	  "above or below that utilisation owning wins; without one always or never (the same at every utilisation)", \
	  t->own_when)

/* Keeping servers already owned (tco --have): a year's running cost, no capex. */
#define TCO_KEEP_FIELDS(F) \
	F(servers, NUM, "servers", "servers owned", k->servers) \
	F(gpus, NUM, "GPUs", "their GPUs", k->gpus) \
	F(energy_usd_per_year, NUM, "USD/year", "power at the wall with the PUE", k->energy_usd_per_year) \
	F(space_usd_per_year, NUM, "USD/year", "colocation space", k->space_usd_per_year) \
	F(staff_usd_per_year, NUM, "USD/year", "operations staff", k->staff_usd_per_year) \
	F(support_usd_per_year, NUM, "USD/year", "support contract at the support % of the catalog price", \
	  k->support_usd_per_year) \
	F(usd_per_year, NUM, "USD/year", "the four together: keeping the servers a year", k->usd_per_year) \
	F(gpu_hours_per_year, NUM, "GPU-h/year", "GPU-hours worked a year at the utilisation", \
	  k->gpu_hours_per_year) \
	F(usd_per_gpu_hour, NUM, "USD/GPU-h", "usd_per_year / gpu_hours_per_year", k->usd_per_gpu_hour)

/* tco --have: keeping them against one price tier of the instance. */
#define TCO_KEEP_TIER_FIELDS(F) \
	F(tier, TEXT, NULL, "on-demand, 1y, 3y or spot", cat_tier_name(t->tier)) \
	F(usd_per_hour, NUM, "USD/h", "the instance at this tier", t->usd_per_hour) \
	F(pricing, TEXT, NULL, "on-demand (the hours used are paid) or reserved (1y, 3y: every hour)", \
	  t->committed ? "reserved" : "on-demand") \
	F(usd_per_gpu_hour, NUM, "USD/GPU-h", "instance price / GPUs", t->cloud_usd_per_gpu_hour) \
	F(rent_usd_per_year, NUM, "USD/year", "the same GPUs rented a year at this tier", t->rent_usd_per_year) \
	F(keep_usd_per_year, NUM, "USD/year", "keeping the owned servers a year", t->keep_usd_per_year) \
	F(savings_usd_per_year, NUM, "USD/year", "rent - keep (> 0: keeping pays)", t->savings_usd_per_year) \
	F(breakeven_utilisation_pct, NUM, "%", "the utilisation at which rent = keep; null: none in 0-100 %", \
	  t->breakeven_utilisation_pct) \
	F(own_when, TEXT, NULL, "above or below that utilisation keeping wins; null without one", t->own_when)

/*
 * One schema and its setter per table: X(lower, UPPER, name, (the setter's
 * parameters)); the setters are declared in cost/fields.h.
 */
#define TCO_SCHEMAS(X) \
	X(tco, TCO, "tco", (const struct tco_inputs *in, struct report_row *row)) \
	X(tco_input, TCO_INPUT, "tco-input", \
	  (const struct catalog *cat, const struct tco_inputs *in, enum tco_input id, struct report_row *row)) \
	X(tco_owned, TCO_OWNED, "tco-owned", \
	  (const struct tco_inputs *in, const struct tco_result *r, struct report_row *row)) \
	X(tco_cloud, TCO_CLOUD, "tco-cloud", \
	  (const struct tco_inputs *in, const struct tco_result *r, struct report_row *row)) \
	X(tco_compare, TCO_COMPARE, "tco-compare", (const struct tco_result *r, struct report_row *row)) \
	X(tco_flip, TCO_FLIP, "tco-flip", \
	  (const struct tco_inputs *in, const struct tco_result *r, enum tco_input id, struct report_row *row)) \
	X(tco_sensitivity, TCO_SENSITIVITY, "tco-sensitivity", \
	  (const struct tco_point *p, struct report_row *row)) \
	X(tco_tier, TCO_TIER, "tco-tier", (const struct tco_tier_result *t, struct report_row *row)) \
	X(tco_keep, TCO_KEEP, "tco-keep", (const struct tco_keep *k, struct report_row *row)) \
	X(tco_keep_tier, TCO_KEEP_TIER, "tco-keep-tier", (const struct tco_keep_tier *t, struct report_row *row))

#define SCHEMA_DEFINE(lower, UPPER, name, params) \
	static const struct report_field lower##_fields[] = {UPPER##_FIELDS(REPORT_FIELD_DECL)}; \
	static const struct report_schema lower##_table = REPORT_SCHEMA(name, lower##_fields); \
	const struct report_schema *lower##_schema(void) \
	{ \
		return &lower##_table; \
	} \
	void lower##_row params \
	{ \
		size_t i = 0; \
		UPPER##_FIELDS(REPORT_FIELD_SET) \
	}
TCO_SCHEMAS(SCHEMA_DEFINE)
