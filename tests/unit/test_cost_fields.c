/*
 * tco's field tables (cost/fields.h) and the JSON document written from
 * them (view/tco.h): unique keys, a unit on every number, and the keys, in
 * the order tco --json has always written them, for the worked example of
 * docs/tco.md.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "catalog/catalog.h"
#include "cost/cost.h"
#include "cost/fields.h"
#include "report/field.h"
#include "view/tco.h"

typedef const struct report_schema *(*schema_fn)(void);
static const schema_fn schemas[] = {
	tco_schema,         tco_input_schema, tco_owned_schema,       tco_cloud_schema,
	tco_compare_schema, tco_flip_schema,  tco_sensitivity_schema, tco_tier_schema,
};
#define NSCHEMAS (sizeof(schemas) / sizeof(schemas[0]))

/* docs/tco.md, "Worked example": one DGX H100 against p5.48xlarge on demand. */
static void dgx_h100(struct tco_inputs *in)
{
	int i;
	static const double v[TCO_NINPUTS] = {
		[TCO_IN_COUNT] = 1,        [TCO_IN_PRICE] = 400000,       [TCO_IN_POWER] = 10.2,
		[TCO_IN_IDLE] = 2.0,       [TCO_IN_RACK_UNITS] = 8,       [TCO_IN_YEARS] = 5,
		[TCO_IN_UTILISATION] = 70, [TCO_IN_ELECTRICITY] = 0.10,   [TCO_IN_PUE] = 1.4,
		[TCO_IN_COLO] = 184.06,    [TCO_IN_RACK_UNIT_PRICE] = 40, [TCO_IN_STAFF] = 2500,
		[TCO_IN_SUPPORT] = 5,      [TCO_IN_ADDON] = 15,           [TCO_IN_RESIDUAL] = 10,
		[TCO_IN_CAPITAL] = 8,      [TCO_IN_CLOUD_PRICE] = 55.04,  [TCO_IN_DISCOUNT] = 0,
	};
	memset(in, 0, sizeof(*in));
	for (i = 0; i < TCO_NINPUTS; i++)
		tco_inputs_set_flag(in, (enum tco_input)i, v[i]);
	in->name = "DGX H100";
	in->server_key = "dgx-h100";
	in->gpu_key = "h100-sxm5-80gb";
	in->gpus_per_server = 8;
	in->hours_per_year = TCO_HOURS_PER_YEAR;
	in->space = TCO_SPACE_KW;
	in->racks = NAN;
	in->precision = "bf16";
	in->peak_tflops_per_gpu = 989.4;
	in->cloud_key = "p5.48xlarge";
	in->cloud_name = "p5.48xlarge";
	in->cloud_gpu_key = "h100-sxm5-80gb";
	in->cloud_gpus = 8;
}

static void test_schemas(void **state)
{
	size_t s, i, j;
	(void)state;
	for (s = 0; s < NSCHEMAS; s++) {
		const struct report_schema *sc = schemas[s]();
		assert_non_null(sc->name);
		assert_true(sc->nfields > 0);
		for (i = 0; i < sc->nfields; i++) {
			const struct report_field *f = &sc->fields[i];
			assert_true(f->help && *f->help);
			for (j = 0; j < i; j++)
				if (!strcmp(sc->fields[j].name, f->name))
					fail_msg("%s: key '%s' twice", sc->name, f->name);
			/* a number carries its unit, or its object names it in "unit" */
			if (f->type == REPORT_NUM && !f->unit && report_field_index(sc, "unit") < 0)
				fail_msg("%s.%s: a number without a unit", sc->name, f->name);
		}
		for (j = 0; j < s; j++)
			assert_string_not_equal(schemas[j]()->name, sc->name);
	}
}

/* The keys of a JSON object, space-separated, in order. */
static void keys(json_t *o, char *buf, size_t len)
{
	const char *k;
	json_t *v;
	size_t n = 0;
	buf[0] = 0;
	json_object_foreach(o, k, v)
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? " " : "", k);
}

static void test_json_document(void **state)
{
	struct catalog *cat = catalog_new();
	struct tco_inputs in;
	struct tco_result r;
	struct diag err;
	struct view_tco v;
	json_t *o;
	char k[2048];
	(void)state;
	dgx_h100(&in);
	assert_int_equal(tco_compute(&in, &r, &err), 0);
	v = (struct view_tco){cat, &in, &r, NULL, ""};
	o = view_tco_json(&v);
	keys(o, k, sizeof(k));
	assert_string_equal(k,
			    "name server gpu gpus_per_server space_billing hours_per_year precision "
			    "peak_tflops_per_gpu inputs owned cloud breakeven_month breakeven_in_period "
			    "savings_usd roi_pct roi_pct_per_year npv_usd flips sensitivity tiers arithmetic "
			    "verdict notes");
	/* the keys the hand-written writer gave the owned terms, in its order */
	keys(json_object_get(o, "owned"), k, sizeof(k));
	assert_string_equal(
		k,
		"servers gpus hours server_capex_usd addon_usd capex_usd residual_usd "
		"avg_power_kw_per_server load_fraction energy_kwh_per_year energy_usd_per_year "
		"space_usd_per_year staff_usd_per_year support_usd_per_year opex_usd_per_year "
		"capital_usd_per_month interest_usd total_usd gpu_hours_used usd_per_gpu_hour usd_per_pflop_hour owned_usd_per_month "
		"racks extra_kw extra_capex_usd");
	keys(json_object_get(o, "cloud"), k, sizeof(k));
	assert_string_equal(k,
			    "instance name gpu gpus_per_instance pricing price_tier instances "
			    "usd_per_gpu_hour total_usd usd_per_month");
	/* a cloud set by hand has only its own tier */
	assert_int_equal(json_array_size(json_object_get(o, "tiers")), 1);
	keys(json_array_get(json_object_get(o, "tiers"), 0), k, sizeof(k));
	assert_string_equal(k,
			    "tier usd_per_hour pricing usd_per_gpu_hour total_usd savings_usd savings_change_usd "
			    "breakeven_month breakeven_utilisation_pct own_when");
	/* a flag's value has no citation key at all */
	keys(json_object_get(json_object_get(o, "inputs"), "pue"), k, sizeof(k));
	assert_string_equal(k, "value unit from");
	keys(json_object_get(json_object_get(o, "flips"), "utilisation"), k, sizeof(k));
	assert_string_equal(k, "value unit own_when");
	assert_int_equal(json_array_size(json_object_get(o, "sensitivity")), TCO_GRID_UTIL * TCO_GRID_ELEC);
	keys(json_array_get(json_object_get(o, "sensitivity"), 0), k, sizeof(k));
	assert_string_equal(k, "utilisation_pct electricity_usd_per_kwh savings_usd");
	/* values are the result's, in base units; types as before */
	assert_true(json_is_real(json_object_get(json_object_get(o, "owned"), "servers")));
	assert_true(json_real_value(json_object_get(json_object_get(o, "owned"), "capex_usd")) == r.capex_usd);
	assert_true(json_is_true(json_object_get(o, "breakeven_in_period")));
	assert_string_equal(json_string_value(json_object_get(o, "space_billing")), "kw");
	assert_string_equal(json_string_value(
				    json_object_get(json_object_get(json_object_get(o, "flips"), "utilisation"),
						    "own_when")),
			    "above");
	json_decref(o);

	/* without a cloud: no cloud, comparison, flips or grid; a missing peak is null */
	in.cloud_key = NULL;
	in.value[TCO_IN_CLOUD_PRICE] = NAN;
	in.peak_tflops_per_gpu = NAN;
	assert_int_equal(tco_compute(&in, &r, &err), 0);
	o = view_tco_json(&v);
	keys(o, k, sizeof(k));
	assert_string_equal(k,
			    "name server gpu gpus_per_server space_billing hours_per_year precision "
			    "peak_tflops_per_gpu inputs owned arithmetic verdict notes");
	assert_true(json_is_null(json_object_get(o, "peak_tflops_per_gpu")));
	assert_true(json_is_null(json_object_get(json_object_get(o, "owned"), "usd_per_pflop_hour")));
	assert_null(json_object_get(json_object_get(o, "inputs"), "cloud-price"));
	json_decref(o);
	catalog_free(cat);
}

/* The computations the account shows, moved out of the command, agree with the terms. */
static void test_account_terms(void **state)
{
	struct tco_point grid[TCO_GRID_UTIL][TCO_GRID_ELEC];
	struct tco_breakdown bd;
	struct tco_inputs in, t_in;
	struct tco_result r, t;
	struct diag err;
	size_t i;
	(void)state;
	dgx_h100(&in);
	assert_int_equal(tco_compute(&in, &r, &err), 0);
	assert_true(r.months == 60);
	assert_true(r.gain_usd_per_month == r.cloud_usd_per_month - r.opex_usd_per_month);
	assert_true(fabs(r.savings_pct_of_cloud - r.savings_usd / r.cloud_total_usd * 100) < 1e-12);
	tco_owned_breakdown(&in, &r, &bd);
	assert_true(fabs(bd.capex_less_residual_usd + bd.energy_usd + bd.space_usd + bd.staff_usd +
			 bd.support_usd - r.total_usd) < 1e-6);
	tco_sensitivity(&in, grid);
	assert_true(grid[1][1].utilisation_pct == 25 && grid[1][1].electricity_usd_per_kwh == 0.10);
	t_in = in;
	t_in.value[TCO_IN_UTILISATION] = 100;
	assert_true(grid[4][0].savings_usd == tco_savings_with(&t_in, TCO_IN_ELECTRICITY, 0.05));
	assert_int_equal(tco_compute_with(&in, TCO_IN_UTILISATION, r.flip[TCO_IN_UTILISATION], &t, &err), 0);
	assert_true(fabs(t.savings_usd) < 1e-3);
	for (i = 0; i < TCO_NFLIPS; i++)
		assert_true(tco_flip_input(i) < TCO_NINPUTS);
	assert_string_equal(tco_flip_side(&in, &r, TCO_IN_UTILISATION), "above");
	assert_string_equal(tco_flip_side(&in, &r, TCO_IN_ELECTRICITY), "below");
	in.space = TCO_SPACE_RACK_UNIT;
	assert_false(tco_input_applies(&in, TCO_IN_COLO));
	assert_true(tco_input_applies(&in, TCO_IN_RACK_UNIT_PRICE));
	in.cloud_key = NULL;
	assert_false(tco_input_applies(&in, TCO_IN_CLOUD_PRICE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schemas),
		cmocka_unit_test(test_json_document),
		cmocka_unit_test(test_account_terms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
