/*
 * Hardware already owned: reading "N x SERVER", the yearly cost of keeping
 * servers (tco_keep, by hand from the catalog's inputs) and the arithmetic
 * of plan_have_answer(): zero capex, the running cost per GPU-hour, pools
 * sharing the work by throughput (docs/plan.md "Hardware already owned").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "cost/cost.h"
#include "model/model.h"
#include "plan/plan.h"

static struct catalog *cat;

static int setup(void **state)
{
	struct diag err;
	(void)state;
	diag_clear(&err);
	return catalog_load(&cat, NULL, &err);
}

static int teardown(void **state)
{
	(void)state;
	catalog_free(cat);
	return 0;
}

static void test_parse(void **state)
{
	struct plan_have h;
	struct plan_have *v;
	size_t n;
	struct diag err;
	const char file[] = "# the lab\n4x dgx-a100-320gb\n\n2 x dgx-h100  # rack 2\n1 dgx-a100-320gb\n";
	(void)state;

	diag_clear(&err);
	assert_int_equal(plan_have_parse(cat, "4x dgx-a100", NULL, 0, &h, &err), 0);
	assert_int_equal(h.count, 4);
	assert_string_equal(h.server->row.key, "dgx-a100-320gb");
	assert_int_equal(plan_have_parse(cat, " 12 X dgx-h100 ", NULL, 0, &h, &err), 0);
	assert_int_equal(h.count, 12);
	assert_string_equal(h.server->row.key, "dgx-h100");

	/* errors name the column */
	assert_int_equal(plan_have_parse(cat, "four dgx-h100", "f", 3, &h, &err), -1);
	assert_int_equal(err.line, 3);
	assert_int_equal(err.col, 1);
	diag_clear(&err);
	assert_int_equal(plan_have_parse(cat, "4x no-such-box", "f", 2, &h, &err), -1);
	assert_int_equal(err.col, 4);
	diag_clear(&err);
	assert_int_equal(plan_have_parse(cat, "0x dgx-h100", "f", 1, &h, &err), -1);
	diag_clear(&err);
	assert_int_equal(plan_have_parse(cat, "4x dgx-h100 dgx-a100", "f", 1, &h, &err), -1);
	assert_int_equal(err.col, 13);
	diag_clear(&err);
	assert_int_equal(plan_have_parse(cat, "4x", "f", 1, &h, &err), -1);

	/* a file: comments and blank lines skipped, the same server adds up */
	diag_clear(&err);
	assert_int_equal(plan_have_parse_file(cat, file, strlen(file), "fleet.txt", &v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].server->row.key, "dgx-a100-320gb");
	assert_int_equal(v[0].count, 5);
	assert_int_equal(v[1].count, 2);
	free(v);
	diag_clear(&err);
	assert_int_equal(plan_have_parse_file(cat, "2x dgx-h100\n3y dgx-h100\n", 24, "fleet.txt", &v, &n, &err),
			 -1);
	assert_string_equal(err.file, "fleet.txt");
	assert_int_equal(err.line, 2);
	assert_int_equal(err.col, 2);
	diag_clear(&err);
	assert_int_equal(plan_have_parse_file(cat, "# none\n", 7, "fleet.txt", &v, &n, &err), -1);
}

/* Keeping 4 DGX A100 a year, term by term from the inputs docs/tco.md names. */
static void test_keep(void **state)
{
	const struct cat_server *s = catalog_server(cat, "dgx-a100-320gb", NULL, 0);
	struct tco_inputs in;
	struct tco_keep k;
	struct diag err;
	const double *v = in.value;
	double u, kw, energy, space, staff, support;
	(void)state;

	diag_clear(&err);
	assert_non_null(s);
	assert_int_equal(tco_inputs_init(&in, cat, &err), 0);
	assert_int_equal(tco_inputs_server(&in, cat, s, &err), 0);
	in.value[TCO_IN_COUNT] = 4;
	assert_int_equal(tco_keep(&in, &k, &err), 0);
	u = v[TCO_IN_UTILISATION] / 100;
	kw = v[TCO_IN_IDLE] + u * (v[TCO_IN_POWER] - v[TCO_IN_IDLE]);
	energy = 4 * kw * v[TCO_IN_PUE] * TCO_HOURS_PER_YEAR * v[TCO_IN_ELECTRICITY];
	space = in.space == TCO_SPACE_KW ? 4 * v[TCO_IN_POWER] * v[TCO_IN_COLO] * 12 :
					   4 * v[TCO_IN_RACK_UNITS] * v[TCO_IN_RACK_UNIT_PRICE] * 12;
	staff = 4 * v[TCO_IN_STAFF]; /* no bill: a rack a server */
	support = 4 * v[TCO_IN_PRICE] * v[TCO_IN_SUPPORT] / 100;
	assert_float_equal(k.energy_usd_per_year, energy, 1e-6 * energy);
	assert_float_equal(k.space_usd_per_year, space, 1e-6 * space);
	assert_float_equal(k.staff_usd_per_year, staff, 1e-6 * staff);
	assert_float_equal(k.support_usd_per_year, support, 1e-6 * support);
	assert_float_equal(k.usd_per_year, energy + space + staff + support, 1e-3);
	assert_float_equal(k.gpus, 32, 0);
	assert_float_equal(k.usd_per_gpu_hour, k.usd_per_year / (32 * TCO_HOURS_PER_YEAR * u), 1e-9);
	/* nothing of the purchase: far below the owned rate with capex */
	{
		struct tco_result r;
		assert_int_equal(tco_compute(&in, &r, &err), 0);
		assert_true(k.usd_per_gpu_hour < 0.5 * r.usd_per_gpu_hour);
		assert_float_equal(k.usd_per_year, r.opex_usd_per_year, 1e-6);
	}
}

/* The pools' arithmetic on a small job: 2 DGX H100 owned, a 7B fine-tune with a deadline they miss. */
static void test_answer(void **state)
{
	struct workload w;
	struct plan_request req;
	struct plan_have have = {catalog_server(cat, "dgx-h100", NULL, 0), 2};
	struct plan_have_answer a;
	struct plan *p;
	struct diag err;
	const struct plan_add *o, *x;
	size_t i;
	(void)state;

	diag_clear(&err);
	assert_int_equal(workload_preset(&w, "llama2-7b", &err), 0);
	memset(&req, 0, sizeof(req));
	req.w = &w;
	model_config_defaults(&req.base);
	req.base.task = MODEL_TASK_PRETRAIN;
	req.base.train_tokens = 2e10;
	req.objective = PLAN_OBJ_COST;
	req.max_gpus = 64;
	req.threads = 2;
	req.servers_only = 1;
	req.have = &have;
	req.nhave = 1;
	assert_int_equal(plan_run(&p, cat, &req, &err), 0);
	assert_int_equal(plan_have_answer(p, NULL, &a), 0);
	o = &a.opt[PLAN_ADD_NOTHING];
	assert_true(o->found);
	assert_true(o->owned_nodes >= 1 && o->owned_nodes <= 2);
	assert_float_equal(o->capex_usd, 0, 0);
	assert_float_equal(o->owned_share, 1, 0);
	/* the owned pool alone: its GPUs at the running rate over its hours */
	assert_float_equal(o->owned_usd, a.owned_usd_per_gpu_hour * o->owned_nodes * 8 * o->hours,
			   1e-9 * o->owned_usd);
	assert_float_equal(o->cost_usd, o->owned_usd, 0);
	/* a second pool: T = 1 / (1/h_owned + 1/h_added); the owned pool does T / h_owned */
	x = &a.opt[PLAN_ADD_OTHER];
	assert_true(x->found);
	assert_float_equal(1 / x->hours, 1 / o->hours + 1 / x->added_alone_hours, 1e-9 / x->hours);
	assert_float_equal(x->owned_share, x->hours / o->hours, 1e-9);
	assert_float_equal(x->added_usd, x->add->cost_usd * x->hours / x->added_alone_hours, 1e-6);
	assert_float_equal(x->cost_usd, x->owned_usd + x->added_usd, 1e-6);
	assert_true(x->hours < o->hours);
	/* more of the same: one pool of more servers than owned, the added share of its bill */
	x = &a.opt[PLAN_ADD_SAME];
	if (x->found) {
		assert_true((int)x->add->nodes > 2);
		assert_int_equal(x->added_nodes, (int)x->add->nodes - 2);
		assert_float_equal(x->capex_usd, x->add->bom.capex_usd * x->added_nodes / x->add->nodes, 1e-6);
	}
	/* no deadline: every found option meets it, and the answer is the cheapest */
	assert_true(a.best >= 0);
	for (i = 0; i < PLAN_ADD_COUNT; i++)
		if (a.opt[i].found) {
			assert_true(a.opt[i].meets);
			assert_true(a.opt[i].cost_usd >= a.opt[a.best].cost_usd);
		}
	assert_non_null(strstr(a.text, "2x dgx-h100"));
	plan_have_release(&a);
	plan_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_keep),
		cmocka_unit_test(test_answer),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
