/*
 * plan over a fleet catalog: GPU rows that differ only in key, name or
 * price share one enumeration of layouts, so the search grows with the GPU
 * models of the catalog, not with its rows, and every row still gets the
 * answer it would get alone.
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
#include "catalog/embedded.h"
#include "model/model.h"
#include "plan/plan.h"
#include "plan/plan_int.h"
#include "util/xalloc.h"

#define COPIES 40
#define GPU "l40s-48gb"

/* The embedded catalog plus COPIES rows of GPU under new keys ("fleet-N"). */
static struct catalog *fleet_catalog(int copies)
{
	const struct embedded_file *f = embedded_find("gpus.csv");
	struct catalog *c;
	struct diag err;
	const char *p, *hdr = NULL, *row = NULL, *end;
	char *text;
	size_t len = 0, hlen = 0, rlen = 0;
	int i;
	assert_int_equal(catalog_load(&c, NULL, &err), 0);
	assert_non_null(f);
	/* the header is the first line that is not a comment; the row starts "GPU," */
	for (p = f->data; p < f->data + f->len; p = end + 1) {
		end = memchr(p, '\n', (size_t)(f->data + f->len - p));
		if (!end)
			break;
		if (*p == '#')
			continue;
		if (!hdr)
			hdr = p, hlen = (size_t)(end - p) + 1;
		else if (!strncmp(p, GPU ",", strlen(GPU) + 1))
			row = p + strlen(GPU), rlen = (size_t)(end - row) + 1;
	}
	assert_non_null(hdr);
	assert_non_null(row);
	text = xmalloc(hlen + (size_t)copies * (rlen + 16) + 1);
	memcpy(text, hdr, hlen);
	len = hlen;
	for (i = 0; i < copies; i++) {
		len += (size_t)sprintf(text + len, "fleet-%d", i);
		memcpy(text + len, row, rlen);
		len += rlen;
	}
	assert_int_equal(catalog_load_buffer(c, CAT_GPUS, "fleet/gpus.csv", text, len, &err), copies);
	free(text);
	return c;
}

static struct plan *run(const struct catalog *c, const struct workload *w, int copies)
{
	const struct cat_gpu *only[COPIES + 1];
	struct plan_request req;
	struct plan *p;
	struct diag err;
	char key[32];
	int i;
	memset(&req, 0, sizeof(req));
	req.w = w;
	model_config_defaults(&req.base);
	req.base.task = MODEL_TASK_FINETUNE;
	req.objective = PLAN_OBJ_COST;
	req.max_gpus = 64;
	req.threads = 2;
	only[0] = catalog_get(c, CAT_GPUS, GPU);
	for (i = 0; i < copies; i++) {
		snprintf(key, sizeof(key), "fleet-%d", i);
		only[i + 1] = catalog_get(c, CAT_GPUS, key);
		assert_non_null(only[i + 1]);
	}
	req.gpus = only;
	req.ngpus = (size_t)copies + 1;
	diag_clear(&err);
	if (plan_run(&p, c, &req, &err))
		fail_msg("plan_run: %s", err.msg);
	return p;
}

static void test_fleet_shares_enumeration(void **state)
{
	struct catalog *one = fleet_catalog(0), *many = fleet_catalog(COPIES);
	struct workload w;
	struct diag err;
	struct plan *a, *b;
	size_t i, na, nb;
	const struct plan_choice *ca, *cb;
	(void)state;
	assert_int_equal(workload_preset(&w, "llama2-7b", &err), 0);
	a = run(one, &w, 0);
	b = run(many, &w, COPIES);
	/* the copies cost no more layout sizing than the one row did */
	assert_true(plan_stats(b)->memory_calls == plan_stats(a)->memory_calls);
	assert_true(plan_stats(b)->items > plan_stats(a)->items * COPIES / 2);
	/* and each copy has the original's answer for every node count */
	ca = plan_all(a, &na);
	cb = plan_all(b, &nb);
	assert_true(nb >= na * (COPIES + 1) / 2);
	for (i = 0; i < nb; i++) {
		size_t k;
		if (!cb[i].fits)
			continue;
		for (k = 0; k < na; k++)
			if (ca[k].gpus == cb[i].gpus && ca[k].nodes == cb[i].nodes && ca[k].fits &&
			    plan_hw(a, &(size_t){0})[ca[k].hw].kind == plan_hw(b, &(size_t){0})[cb[i].hw].kind &&
			    plan_hw(a, &(size_t){0})[ca[k].hw].gpus_per_node ==
				    plan_hw(b, &(size_t){0})[cb[i].hw].gpus_per_node &&
			    ca[k].fabric == cb[i].fabric)
				break;
		if (k == na)
			fail_msg("choice %zu of the fleet has no twin", i);
		assert_true(ca[k].res.time.step_s == cb[i].res.time.step_s);
		assert_true(ca[k].cfg.tp == cb[i].cfg.tp && ca[k].cfg.pp == cb[i].cfg.pp &&
			    ca[k].cfg.micro_batch == cb[i].cfg.micro_batch);
	}
	plan_free(a);
	plan_free(b);
	catalog_free(one);
	catalog_free(many);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fleet_shares_enumeration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
