/*
 * The TCO model against the examples worked by hand in docs/tco.md: every
 * expected figure below is written out there, step by step, from the inputs
 * alone.  Inputs are set explicitly (not read from data/) so that a change
 * of catalog figures cannot move these checks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "catalog/catalog.h"
#include "cost/bom.h"
#include "cost/cost.h"

#define assert_near(a, b, tol) \
	do { \
		double a_ = (a), b_ = (b); \
		if (!(fabs(a_ - b_) <= (tol))) \
			fail_msg("%s = %.10g, want %.10g (+- %g)", #a, a_, b_, (double)(tol)); \
	} while (0)

static void blank(struct tco_inputs *in)
{
	int i;
	memset(in, 0, sizeof(*in));
	for (i = 0; i < TCO_NINPUTS; i++)
		in->value[i] = 0;
	in->hours_per_year = TCO_HOURS_PER_YEAR;
	in->space = TCO_SPACE_KW;
	in->peak_tflops_per_gpu = NAN;
	in->cloud_gpus = NAN;
}

/* docs/tco.md, "Worked example": one DGX H100 against p5.48xlarge on demand. */
static void dgx_h100(struct tco_inputs *in)
{
	blank(in);
	in->name = "DGX H100";
	in->gpu_key = "h100-sxm5-80gb";
	in->gpus_per_server = 8;
	in->value[TCO_IN_COUNT] = 1;
	in->value[TCO_IN_PRICE] = 400000;
	in->value[TCO_IN_POWER] = 10.2;
	in->value[TCO_IN_IDLE] = 2.0;
	in->value[TCO_IN_RACK_UNITS] = 8;
	in->value[TCO_IN_YEARS] = 5;
	in->value[TCO_IN_UTILISATION] = 70;
	in->value[TCO_IN_ELECTRICITY] = 0.10;
	in->value[TCO_IN_PUE] = 1.4;
	in->value[TCO_IN_COLO] = 184.06;
	in->value[TCO_IN_RACK_UNIT_PRICE] = 40;
	in->value[TCO_IN_STAFF] = 2500;
	in->value[TCO_IN_SUPPORT] = 5;
	in->value[TCO_IN_ADDON] = 15;
	in->value[TCO_IN_RESIDUAL] = 10;
	in->value[TCO_IN_CAPITAL] = 8;
	in->precision = "bf16";
	in->peak_tflops_per_gpu = 989.4;
	in->cloud_key = "p5.48xlarge";
	in->cloud_name = "p5.48xlarge";
	in->cloud_gpu_key = "h100-sxm5-80gb";
	in->cloud_gpus = 8;
	in->value[TCO_IN_CLOUD_PRICE] = 55.04;
	in->value[TCO_IN_DISCOUNT] = 0;
}

static void test_worked_example_terms(void **state)
{
	struct tco_inputs in;
	struct tco_result r;
	struct diag err;
	(void)state;
	dgx_h100(&in);
	assert_int_equal(tco_compute(&in, &r, &err), 0);
	/* capital */
	assert_near(r.server_capex_usd, 400000, 1e-6);
	assert_near(r.addon_usd, 60000, 1e-6);
	assert_near(r.capex_usd, 460000, 1e-6);
	assert_near(r.residual_usd, 40000, 1e-6);
	/* each year */
	assert_near(r.avg_power_kw, 7.74, 1e-9);             /* 2.0 + 0.7 x 8.2 */
	assert_near(r.energy_kwh_per_year, 94988.376, 1e-6); /* 7.74 x 1.4 x 8766 */
	assert_near(r.energy_usd_per_year, 9498.8376, 1e-6);
	assert_near(r.space_usd_per_year, 22528.944, 1e-6); /* 10.2 x 184.06 x 12 */
	assert_near(r.staff_usd_per_year, 2500, 1e-9);
	assert_near(r.support_usd_per_year, 20000, 1e-9);
	assert_near(r.opex_usd_per_year, 54527.7816, 1e-6);
	/* the period */
	assert_near(r.hours, 43830, 1e-9);
	assert_near(r.total_usd, 692638.908, 1e-5);  /* 460000 + 5 x 54527.7816 - 40000 */
	assert_near(r.gpu_hours_used, 245448, 1e-6); /* 8 x 43830 x 0.7 */
	assert_near(r.usd_per_gpu_hour, 2.8219374694, 1e-9);
	assert_near(r.usd_per_pflop_hour, 2.8521704765, 1e-9); /* / 0.9894 */
	/* cloud */
	assert_near(r.cloud_usd_per_gpu_hour, 6.88, 1e-12);
	assert_near(r.cloud_total_usd, 1688682.24, 1e-5);
	assert_near(r.cloud_usd_per_month, 28144.704, 1e-6);
	assert_near(r.owned_usd_per_month, 4543.9818, 1e-6);
	assert_near(r.breakeven_month, 19.490928, 1e-5); /* 460000 / 23600.7222 */
	assert_true(r.breakeven_in_period);
	assert_near(r.savings_usd, 996043.332, 1e-5);
	assert_near(r.roi_pct, 216.5311591, 1e-6);
	assert_near(r.roi_pct_per_year, 43.30623183, 1e-6);
	assert_near(r.npv_usd, 738879.0, 5.0);
	/* the cumulative curves cross at the break-even month */
	assert_near(tco_owned_cumulative_usd(&r, r.breakeven_month),
		    tco_cloud_cumulative_usd(&r, r.breakeven_month), 1e-6);
	assert_near(tco_owned_cumulative_usd(&r, 0), 460000, 1e-9);
}

static void test_flip_points(void **state)
{
	struct tco_inputs in;
	struct tco_result r;
	struct diag err;
	double u;
	(void)state;
	dgx_h100(&in);
	assert_int_equal(tco_compute(&in, &r, &err), 0);
	/*
	 * Utilisation at which owning and renting cost the same (docs/tco.md):
	 * u* = 657417.12 / 2362086.36
	 */
	u = 657417.12 / 2362086.36 * 100;
	assert_near(r.flip[TCO_IN_UTILISATION], u, 1e-6);
	assert_near(tco_savings_with(&in, TCO_IN_UTILISATION, u), 0, 1e-4);
	assert_true(tco_savings_with(&in, TCO_IN_UTILISATION, u - 1) < 0);
	assert_true(tco_savings_with(&in, TCO_IN_UTILISATION, u + 1) > 0);
	/* every reported flip point is a root of the savings */
	{
		int i;
		for (i = 0; i < TCO_NINPUTS; i++)
			if (!isnan(r.flip[i]))
				assert_near(tco_savings_with(&in, (enum tco_input)i, r.flip[i]), 0, 1e-3);
	}
	/* the cloud price at which renting matches: owned total / GPU-hours x 8 */
	assert_near(r.flip[TCO_IN_CLOUD_PRICE], 692638.908 / 245448 * 8, 1e-6);
	/* PUE would have to exceed its range to flip */
	assert_true(isnan(r.flip[TCO_IN_PUE]));
}

/* docs/tco.md, "The cost of the capital": the worked example at 7.5 %/yr. */
static void test_interest(void **state)
{
	struct tco_inputs in;
	struct tco_result r, r0;
	struct diag err;
	double rm = pow(1.075, 1.0 / 12) - 1, vn = pow(1.075, -5), a;
	int i;
	(void)state;
	dgx_h100(&in);
	assert_int_equal(tco_compute(&in, &r0, &err), 0);
	/* no interest: straight-line, today's account */
	assert_near(r0.interest_usd, 0, 0);
	assert_near(r0.capital_usd_per_month, (460000 - 40000) / 60.0, 1e-9);
	assert_near(r0.owned_usd_per_month, r0.opex_usd_per_year / 12, 1e-9);
	in.value[TCO_IN_INTEREST] = 7.5;
	assert_int_equal(tco_compute(&in, &r, &err), 0);
	/* 1.075^(1/12) - 1 = 0.0060449; 1.075^-5 = 0.696559 */
	assert_near(rm, 0.0060449, 1e-7);
	assert_near(vn, 0.696559, 1e-6);
	a = (460000 - 40000 * vn) * rm / (1 - vn);
	assert_near(r.capital_usd_per_month, a, 1e-9);
	assert_near(r.capital_usd_per_month, 8608.70, 0.01);
	assert_near(r.interest_usd, 60 * a - 420000, 1e-6);
	assert_near(r.interest_usd, 96522.28, 0.01);
	assert_near(r.total_usd, r0.total_usd + r.interest_usd, 1e-6);
	assert_near(r.usd_per_gpu_hour, r.total_usd / 245448, 1e-12);
	assert_near(r.owned_usd_per_month, r0.opex_usd_per_year / 12 + r.interest_usd / 60, 1e-9);
	assert_near(r.breakeven_month, 460000 / (r.cloud_usd_per_month - r.owned_usd_per_month), 1e-9);
	/* the NPV discounts the cash itself: the interest is not added to it */
	assert_near(r.npv_usd, r0.npv_usd, 1e-6);
	assert_near(r.gain_usd_per_month, r0.gain_usd_per_month, 1e-9);
	/* when the two rates agree, the NPV and the savings have the same sign, in the ratio annuity / months */
	in.value[TCO_IN_CAPITAL] = 7.5;
	assert_int_equal(tco_compute(&in, &r, &err), 0);
	assert_near(r.npv_usd / r.savings_usd * 60, (1 - vn) / rm, 1e-6);
	/* the years' flip point is a root though the interest bends them */
	for (i = 0; i < TCO_NINPUTS; i++)
		if (!isnan(r.flip[i]))
			assert_near(tco_savings_with(&in, (enum tco_input)i, r.flip[i]), 0, 1e-3);
	assert_false(isnan(r.flip[TCO_IN_YEARS]));
	/* the interest shows in the breakdown */
	{
		struct tco_breakdown bd;
		tco_owned_breakdown(&in, &r, &bd);
		assert_near(bd.interest_usd, r.interest_usd, 0);
	}
}

/*
 * The cost chapter of the source articles: "($25,000 + $3,240) / (312 TFLOPS
 * x 8760 h x 0.7) = $0.012/TFLOP-hour" for an 8-GPU A100 server.  Recomputed
 * with their own inputs, but for 8 GPUs and 3 years of hours and power
 * (docs/tco.md, "The articles' example").
 */
static void test_seeds_example(void **state)
{
	struct tco_inputs in;
	struct tco_result r;
	struct diag err;
	double as_written;
	(void)state;
	blank(&in);
	in.gpus_per_server = 8;
	in.hours_per_year = 8760; /* as they count a year */
	in.value[TCO_IN_COUNT] = 1;
	in.value[TCO_IN_PRICE] = 25000;
	in.value[TCO_IN_POWER] = 8 * 0.300; /* their 300 W, for all 8 GPUs */
	in.value[TCO_IN_IDLE] = 8 * 0.300;  /* they bill full power at every hour */
	in.value[TCO_IN_YEARS] = 3;
	in.value[TCO_IN_UTILISATION] = 70;
	in.value[TCO_IN_ELECTRICITY] = 0.12;
	in.value[TCO_IN_PUE] = 1.0;
	in.precision = "fp16";
	in.peak_tflops_per_gpu = 312;
	assert_int_equal(tco_compute(&in, &r, &err), 0);
	assert_near(r.energy_usd_per_year * 3, 7568.64, 1e-6); /* 2.4 kW x 26280 h x 0.12 */
	assert_near(r.total_usd, 32568.64, 1e-6);
	assert_near(r.gpu_hours_used, 147168, 1e-6); /* 8 x 26280 x 0.7 */
	assert_near(r.usd_per_gpu_hour, 0.2213024, 1e-7);
	/* per TFLOP-hour = per PFLOP-hour / 1000 */
	assert_near(r.usd_per_pflop_hour / 1000, 0.000709303, 1e-9);
	/* their own arithmetic as printed does not give their $0.012 either */
	as_written = (25000.0 + 3240.0) / (312.0 * 8760 * 0.7);
	assert_near(as_written, 0.014761, 1e-6);
	assert_true(r.usd_per_pflop_hour / 1000 < 0.012 / 16);
}

static void test_never_breaks_even_and_reserved(void **state)
{
	struct tco_inputs in;
	struct tco_result r;
	struct diag err;
	(void)state;
	dgx_h100(&in);
	/* a cloud this cheap costs less per month than running the server */
	in.value[TCO_IN_CLOUD_PRICE] = 8 * 0.5;
	assert_int_equal(tco_compute(&in, &r, &err), 0);
	assert_true(isnan(r.breakeven_month));
	assert_false(r.breakeven_in_period);
	assert_true(r.savings_usd < 0);

	/* reserved: 2 servers = 16 GPUs need 2 instances, every hour paid at 40 % off */
	dgx_h100(&in);
	in.value[TCO_IN_COUNT] = 2;
	in.value[TCO_IN_DISCOUNT] = 40;
	in.cloud_reserved = 1;
	assert_int_equal(tco_compute(&in, &r, &err), 0);
	assert_near(r.cloud_instances, 2, 0);
	assert_near(r.cloud_usd_per_gpu_hour, 6.88 * 0.6, 1e-12);
	assert_near(r.cloud_total_usd, 2 * 8 * 43830 * 6.88 * 0.6, 1e-4);
	/* reserved pays idle hours too, so it does not scale with utilisation */
	assert_near(tco_savings_with(&in, TCO_IN_UTILISATION, 30) - tco_savings_with(&in, TCO_IN_UTILISATION, 60),
		    /* only the owned energy changes: 2 x 0.3 x 8.2 kW x 1.4 x 8766 h x 0.1 x 5 */
		    2 * 0.3 * 8.2 * 1.4 * 8766 * 0.1 * 5, 1e-4);

	/* space billed per rack unit */
	dgx_h100(&in);
	in.space = TCO_SPACE_RACK_UNIT;
	assert_int_equal(tco_compute(&in, &r, &err), 0);
	assert_near(r.space_usd_per_year, 8 * 40 * 12, 1e-9);
}

static void expect_bad(struct tco_inputs *in, const char *field, const char *text)
{
	struct tco_result r;
	struct diag err;
	diag_clear(&err);
	assert_int_equal(tco_compute(in, &r, &err), -1);
	if (strcmp(err.field, field))
		fail_msg("field '%s', want '%s' (%s)", err.field, field, err.msg);
	if (!strstr(err.msg, text))
		fail_msg("message '%s' lacks '%s'", err.msg, text);
}

static void test_bad_input(void **state)
{
	struct tco_inputs in;
	(void)state;
	dgx_h100(&in);
	in.value[TCO_IN_ELECTRICITY] = -0.1;
	expect_bad(&in, "electricity", "must not be negative, got -0.1 USD/kWh");
	dgx_h100(&in);
	in.value[TCO_IN_UTILISATION] = 120;
	expect_bad(&in, "utilisation", "at most 100 %");
	dgx_h100(&in);
	in.value[TCO_IN_UTILISATION] = 0;
	expect_bad(&in, "utilisation", "more than 0 %");
	dgx_h100(&in);
	in.value[TCO_IN_YEARS] = 0;
	expect_bad(&in, "years", "at least 0.25 years");
	dgx_h100(&in);
	in.value[TCO_IN_PRICE] = NAN;
	expect_bad(&in, "price", "give --price");
	dgx_h100(&in);
	in.value[TCO_IN_IDLE] = 11;
	expect_bad(&in, "idle-kw", "must not exceed the full-load power");
	dgx_h100(&in);
	in.value[TCO_IN_PUE] = 0.9;
	expect_bad(&in, "pue", "at least 1");
	dgx_h100(&in);
	in.value[TCO_IN_CLOUD_PRICE] = -1;
	expect_bad(&in, "cloud-price", "must not be negative");
	dgx_h100(&in);
	in.value[TCO_IN_STAFF] = INFINITY;
	expect_bad(&in, "staff", "finite");
}

static void test_cost_basis(void **state)
{
	struct tco_inputs in;
	struct tco_result r;
	struct cost_basis own, rent;
	struct cat_cloud c;
	struct diag err;
	double rate;
	(void)state;
	dgx_h100(&in);
	in.server_key = "dgx-h100";
	assert_int_equal(tco_compute(&in, &r, &err), 0);
	assert_int_equal(cost_basis_owned(&own, &in, &err), 0);
	assert_int_equal(own.kind, COST_OWNED);
	assert_string_equal(own.key, "dgx-h100");
	assert_near(own.usd_per_gpu_hour, r.usd_per_gpu_hour, 1e-12);
	assert_near(own.usd_per_hour, 8 * r.usd_per_gpu_hour, 1e-12);
	assert_near(cost_run_usd(&own, 1000), 1000 * r.usd_per_gpu_hour, 1e-9);
	assert_int_equal(cost_owned_usd_per_gpu_hour(&in, &rate, &err), 0);
	assert_near(rate, r.usd_per_gpu_hour, 1e-12);

	memset(&c, 0, sizeof(c));
	c.row.key = "p5.48xlarge";
	c.row.origin = "test";
	c.gpu = "h100-sxm5-80gb";
	c.gpu_count = 8;
	c.usd_per_hour = 55.04;
	assert_int_equal(cost_basis_rented(&rent, &c, 0, &err), 0);
	assert_near(rent.usd_per_gpu_hour, 6.88, 1e-12);
	assert_near(cost_run_usd(&rent, 245448), 1688682.24, 1e-5);
	assert_int_equal(cost_basis_rented(&rent, &c, 25, &err), 0);
	assert_near(rent.usd_per_hour, 55.04 * 0.75, 1e-12);
	assert_int_equal(cost_basis_rented(&rent, &c, 120, &err), -1);
	c.usd_per_hour = NAN;
	assert_int_equal(cost_basis_rented(&rent, &c, 0, &err), -1);

	in.value[TCO_IN_UTILISATION] = 150;
	assert_int_equal(cost_basis_owned(&own, &in, &err), -1);
	assert_string_equal(err.field, "utilisation");
}

/* The catalog wiring: facility defaults, a server, a generic build, a match. */
static void test_from_catalog(void **state)
{
	struct catalog *cat;
	struct tco_inputs in;
	struct tco_result r;
	struct diag err;
	const struct cat_server *s;
	const struct cat_gpu *g;
	const struct cat_cloud *c;
	char why[512];
	int same = 0, i;
	(void)state;
	assert_int_equal(catalog_load(&cat, NULL, &err), 0);
	assert_int_equal(tco_inputs_init(&in, cat, &err), 0);
	for (i = 0; i < TCO_NINPUTS; i++) {
		const struct tco_input_desc *d = tco_input_desc((enum tco_input)i);
		if (d->facility_key) {
			assert_near(in.value[i], catalog_facility(cat, d->facility_key), 0);
			struct strbuf src = STRBUF_INIT;
			tco_input_source(&in, (enum tco_input)i, &src);
			assert_non_null(strstr(strbuf_str(&src), "facility.csv:"));
			strbuf_release(&src);
		}
	}
	s = catalog_server(cat, "dgx-h100", why, sizeof(why));
	assert_non_null(s);
	assert_int_equal(tco_inputs_server(&in, cat, s, &err), 0);
	assert_near(in.value[TCO_IN_PRICE], s->price_usd, 0);
	assert_near(in.value[TCO_IN_POWER], s->power_kw, 0);
	assert_near(in.gpus_per_server, s->gpu_count, 0);
	c = tco_cloud_match(cat, s->gpu, s->gpu_count, CAT_TIER_ON_DEMAND, &same);
	assert_non_null(c);
	assert_true(same);
	assert_string_equal(c->gpu, s->gpu);
	/* the cheapest with the same GPU and count */
	for (i = 0; (size_t)i < catalog_count(cat, CAT_CLOUDS); i++) {
		const struct cat_cloud *o = catalog_cloud_at(cat, (size_t)i);
		if (o->gpu && !strcmp(o->gpu, s->gpu) && o->gpu_count == s->gpu_count)
			assert_true(c->usd_per_hour <= o->usd_per_hour);
	}
	assert_int_equal(tco_inputs_cloud(&in, c, CAT_TIER_ON_DEMAND, &err), 0);
	assert_int_equal(tco_compute(&in, &r, &err), 0);
	assert_true(r.usd_per_gpu_hour > 0);

	/* a generic 4-GPU build costs at least its GPUs and draws at least their TDP */
	g = catalog_gpu(cat, "h100-sxm5-80gb", why, sizeof(why));
	assert_non_null(g);
	assert_int_equal(tco_inputs_init(&in, cat, &err), 0);
	assert_int_equal(tco_inputs_generic(&in, cat, g, 4, why, sizeof(why), &err), 0);
	assert_true(in.value[TCO_IN_PRICE] > 4 * g->price_usd);
	assert_true(in.value[TCO_IN_POWER] > 4 * g->tdp_w / 1000);
	assert_true(in.value[TCO_IN_IDLE] < in.value[TCO_IN_POWER]);
	assert_non_null(strstr(why, "host share"));
	assert_int_equal(tco_compute(&in, &r, &err), 0);
	catalog_free(cat);
}


/* The bill of materials: racks, tiers from the radix, prices, monotonic capex, bad rack power. */
/* Owning against a committed or spot price, and against every tier the instance has. */
static void test_price_tiers(void **state)
{
	struct tco_tier_result t[CAT_NTIERS];
	struct catalog *cat;
	struct tco_inputs in, od;
	struct tco_result r, r_od;
	struct cost_basis b;
	struct diag err;
	const struct cat_cloud *c, *one;
	char why[512];
	size_t n;
	int same = 0;
	(void)state;
	assert_int_equal(catalog_load(&cat, NULL, &err), 0);
	assert_int_equal(tco_inputs_init(&in, cat, &err), 0);
	assert_int_equal(tco_inputs_server(&in, cat, catalog_server(cat, "dgx-h100", why, sizeof(why)), &err), 0);
	c = catalog_get(cat, CAT_CLOUDS, "p5.48xlarge");
	assert_non_null(c);
	od = in;
	assert_int_equal(tco_inputs_cloud(&od, c, CAT_TIER_ON_DEMAND, &err), 0);
	assert_int_equal(tco_compute(&od, &r_od, &err), 0);

	/* 3y: the committed price, every hour of the period paid for whole instances */
	assert_int_equal(tco_inputs_cloud(&in, c, CAT_TIER_3Y, &err), 0);
	assert_true(in.cloud_reserved);
	assert_int_equal(in.cloud_tier, CAT_TIER_3Y);
	assert_near(in.value[TCO_IN_CLOUD_PRICE], c->usd_per_hour_3y, 0);
	assert_int_equal(tco_compute(&in, &r, &err), 0);
	assert_near(r.cloud_total_usd, r.cloud_instances * 8 * r.hours * c->usd_per_hour_3y / 8, 1e-6);
	assert_true(r.savings_usd < r_od.savings_usd);

	/* every tier, each the account against it */
	n = tco_tiers(&in, t);
	assert_int_equal(n, 4);
	assert_int_equal(t[0].tier, CAT_TIER_ON_DEMAND);
	assert_int_equal(t[2].tier, CAT_TIER_3Y);
	assert_int_equal(t[3].tier, CAT_TIER_SPOT);
	assert_near(t[0].savings_usd, r_od.savings_usd, 1e-6);
	assert_near(t[0].breakeven_month, r_od.breakeven_month, 1e-9);
	assert_near(t[0].breakeven_utilisation_pct, r_od.flip[TCO_IN_UTILISATION], 1e-9);
	assert_near(t[2].savings_usd, r.savings_usd, 1e-6);
	assert_near(t[2].savings_change_usd, r.savings_usd - r_od.savings_usd, 1e-6);
	assert_near(t[0].savings_change_usd, 0, 0);
	assert_true(t[1].committed && t[2].committed && !t[3].committed && !t[0].committed);
	assert_near(t[3].cloud_usd_per_gpu_hour, c->usd_per_hour_spot / 8, 1e-12);
	assert_near(t[3].cloud_total_usd, r.gpu_hours_used * c->usd_per_hour_spot / 8, 1e-6);

	/* a tier the instance lacks: its name and the tiers it has */
	one = catalog_get(cat, CAT_CLOUDS, "p5.4xlarge");
	assert_non_null(one);
	diag_clear(&err);
	assert_int_equal(tco_inputs_cloud(&in, one, CAT_TIER_SPOT, &err), -1);
	assert_string_equal(err.field, "price-tier");
	assert_non_null(strstr(err.msg, "'p5.4xlarge' has no spot price"));
	assert_non_null(strstr(err.msg, "it has on-demand, 1y, 3y"));
	assert_int_equal(cost_basis_rented_at(&b, one, CAT_TIER_SPOT, &err), -1);
	assert_int_equal(cost_basis_rented_at(&b, c, CAT_TIER_3Y, &err), 0);
	assert_near(b.usd_per_gpu_hour, c->usd_per_hour_3y / 8, 1e-12);

	/* the match looks only at instances with a price at the tier */
	c = tco_cloud_match(cat, "h100-sxm5-80gb", 8, CAT_TIER_SPOT, &same);
	assert_non_null(c);
	assert_true(same);
	assert_true(cat_has(c->usd_per_hour_spot));
	assert_null(tco_cloud_match(cat, "gb200-186gb", 72, CAT_TIER_SPOT, &same));
	catalog_free(cat);
}

static void test_bom(void **state)
{
	struct catalog *cat;
	struct diag err;
	struct bom b, prev;
	struct bom_in in;
	const struct cat_link *ndr;
	const struct cat_part *sw, *opt, *st;
	double n;
	(void)state;
	diag_clear(&err);
	assert_int_equal(catalog_load(&cat, NULL, &err), 0);
	ndr = catalog_get(cat, CAT_LINKS, "ib-ndr");
	sw = cat_part_for(cat, "switch", "ib-ndr");
	opt = cat_part_for(cat, "optic", "ib-ndr");
	st = cat_part_for(cat, "storage", NULL);
	assert_non_null(ndr);
	assert_non_null(sw);
	assert_non_null(opt);
	assert_non_null(st);
	assert_true(sw->ports == 64);

	/* a DGX H100-like node: 10.2 kW, 8U, 8 NICs in its price */
	memset(&in, 0, sizeof(in));
	in.gpus_per_node = 8;
	in.node_kw = 10.2;
	in.node_u = 8;
	in.node_usd = 400000;
	in.net = ndr;
	in.ports_per_node = 8;
	in.ports_in_node_price = 1;
	in.storage_tb = -1;
	in.pue = NAN;

	/* one node: no fabric, one air-cooled rack of 41 kW holding four */
	in.nodes = 1;
	assert_int_equal(bom_build(&b, cat, &in, &err), 0);
	assert_int_equal(b.tiers, 0);
	assert_true(b.fabric_usd == 0 && b.nics == 0);
	assert_string_equal(b.cooling, "air");
	assert_true(b.rack_kw == 41 && b.nodes_per_rack == 4 && b.racks == 1);
	assert_near(b.storage_tb, 16, 1e-9);
	assert_near(b.storage_usd, 16 * st->price_usd, 1e-6);
	assert_near(b.capex_usd, 400000 + b.storage_usd + b.pdu_usd + b.install_usd, 1e-6);

	/* 8 nodes: 64 ports fit one 64-port switch */
	in.nodes = 8;
	assert_int_equal(bom_build(&b, cat, &in, &err), 0);
	assert_int_equal(b.tiers, 1);
	assert_true(b.switches == 1 && b.links == 64 && b.optics == 128 && b.nics_bought == 0);
	assert_near(b.racks, 2, 0);

	/* 32 nodes, 256 ports: two tiers, 8 rail leaves of 32 down-links, 4 spines */
	in.nodes = 32;
	assert_int_equal(bom_build(&b, cat, &in, &err), 0);
	assert_int_equal(b.tiers, 2);
	assert_true(b.sw[0].count == 8 && b.sw[1].count == 4);
	assert_near(b.switch_usd, 12 * sw->price_usd, 1e-6);
	assert_near(b.optics_usd, 2 * 512 * opt->price_usd, 1e-6);

	/* two NVL72-like racks of 72 rails: rails share leaves when a group is small */
	in.nodes = 2;
	in.ports_per_node = 72;
	assert_int_equal(bom_build(&b, cat, &in, &err), 0);
	assert_int_equal(b.tiers, 2);
	assert_true(b.sw[0].count == 5 && b.sw[1].count == 3);
	in.ports_per_node = 8;

	/* 512 nodes, 4096 ports > 64 x 32: three tiers */
	in.nodes = 512;
	assert_int_equal(bom_build(&b, cat, &in, &err), 0);
	assert_int_equal(b.tiers, 3);
	assert_true(b.sw[2].count == 64);

	/* more nodes of the same parts always cost more to buy, and more per node than one alone */
	in.nodes = 1;
	assert_int_equal(bom_build(&prev, cat, &in, &err), 0);
	{
		double one = prev.capex_usd;
		for (n = 2; n <= 1024; n *= 2) {
			in.nodes = n;
			assert_int_equal(bom_build(&b, cat, &in, &err), 0);
			assert_true(b.capex_usd > prev.capex_usd);
			assert_true(b.capex_usd / n > one);
			prev = b;
		}
	}

	/* a rack that cannot hold one node: the error names the flag and the power needed */
	in.nodes = 4;
	in.rack_kw = 8;
	assert_int_equal(bom_build(&b, cat, &in, &err), -1);
	assert_string_equal(err.field, "rack-kw");
	assert_non_null(strstr(err.msg, "10.2 kW"));

	/* a dense rack needs liquid cooling, priced per kW, with the liquid hall's PUE */
	diag_clear(&err);
	in.rack_kw = 80;
	assert_int_equal(bom_build(&b, cat, &in, &err), 0);
	assert_string_equal(b.cooling, "liquid");
	assert_true(b.cooling_usd > 0 && b.nodes_per_rack == 5);
	assert_true(b.pue < catalog_facility(cat, "pue"));
	catalog_free(cat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worked_example_terms),
		cmocka_unit_test(test_flip_points),
		cmocka_unit_test(test_interest),
		cmocka_unit_test(test_seeds_example),
		cmocka_unit_test(test_never_breaks_even_and_reserved),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_cost_basis),
		cmocka_unit_test(test_from_catalog),
		cmocka_unit_test(test_price_tiers),
		cmocka_unit_test(test_bom),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
