/*
 * The serving model: the KV cache decides how many sequences run together
 * (fp8 KV holds twice bf16's, tensor parallelism splits it), a static batch
 * larger than the cache is refused, and a TPOT target lowers the concurrency
 * to one that meets it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "catalog/catalog.h"
#include "model/serving.h"

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

static void llama(struct workload *w, struct model_config *c, int tp)
{
	struct diag err;
	diag_clear(&err);
	if (workload_preset(w, "llama3-8b", &err))
		fail_msg("preset: %s", err.msg);
	model_config_defaults(c);
	c->gpu = catalog_get(cat, CAT_GPUS, "h100-sxm5-80gb");
	assert_non_null(c->gpu);
	c->task = MODEL_TASK_INFER;
	c->engine = MODEL_ENGINE_VLLM;
	c->tp = tp;
	c->gpus = tp;
	c->gpus_per_node = tp;
	c->prompt_len = 1024;
	c->output_len = 256;
	model_config_complete(w, c);
	if (model_links_from_catalog(c, cat, NULL, NULL, &err) || model_config_check(w, c, &err))
		fail_msg("config: %s", err.msg);
}

static void serve(const struct workload *w, const struct model_config *c, const struct model_serving_opts *o,
		  struct model_serving *s)
{
	struct diag err;
	diag_clear(&err);
	if (model_serving_estimate(w, c, o, s, &err))
		fail_msg("serving: %s", err.msg);
}

static void test_kv_cache_sets_concurrency(void **state)
{
	struct workload w;
	struct model_config c;
	struct model_serving_opts o;
	struct model_serving bf16, fp8, tp2;
	(void)state;
	memset(&o, 0, sizeof(o));
	o.continuous = 1;
	o.max_seqs = 100000;
	llama(&w, &c, 1);
	serve(&w, &c, &o, &bf16);
	assert_string_equal(bf16.bound, "kv-cache");
	/* 2 x 32 layers x 8 KV heads x 128 x 2 bytes per token */
	assert_true(bf16.kv_bytes_per_token == 2.0 * 32 * 1024 * 2);
	/* P + O/2 tokens rounded up to vLLM's 16-token blocks */
	assert_true(bf16.tokens_per_seq == 1152);
	assert_true(bf16.kv_limit == (int)(bf16.kv_budget_bytes / (1152 * bf16.kv_bytes_per_token)));
	c.kv_precision = MODEL_FP8;
	serve(&w, &c, &o, &fp8);
	assert_true(fp8.kv_limit >= 2 * bf16.kv_limit && fp8.kv_limit <= 2 * bf16.kv_limit + 1);
	assert_true(fp8.tokens_per_s > bf16.tokens_per_s);
	llama(&w, &c, 2);
	serve(&w, &c, &o, &tp2);
	assert_true(tp2.kv_limit > 2 * bf16.kv_limit);
	/* the engine's own cap when it binds */
	o.max_seqs = 0;
	llama(&w, &c, 1);
	c.kv_precision = MODEL_FP8;
	c.prompt_len = 128;
	serve(&w, &c, &o, &fp8);
	assert_string_equal(fp8.bound, "max-seqs");
	assert_int_equal(fp8.concurrency, 256);
}

static void test_static_batch_must_fit(void **state)
{
	struct workload w;
	struct model_config c;
	struct model_serving_opts o;
	struct model_serving s;
	struct diag err;
	(void)state;
	memset(&o, 0, sizeof(o));
	llama(&w, &c, 1);
	c.batch = 8;
	serve(&w, &c, &o, &s);
	assert_int_equal(s.concurrency, 8);
	c.batch = 100000;
	diag_clear(&err);
	assert_int_equal(model_serving_estimate(&w, &c, &o, &s, &err), -1);
	assert_non_null(strstr(err.msg, "cannot serve a static batch"));
}

static void test_tpot_target(void **state)
{
	struct workload w;
	struct model_config c;
	struct model_serving_opts o;
	struct model_serving all, met;
	struct diag err;
	(void)state;
	memset(&o, 0, sizeof(o));
	o.continuous = 1;
	llama(&w, &c, 1);
	serve(&w, &c, &o, &all);
	o.tpot_target_s = all.tpot_s / 2;
	serve(&w, &c, &o, &met);
	assert_string_equal(met.bound, "target");
	assert_true(met.tpot_s <= o.tpot_target_s);
	assert_true(met.concurrency < all.concurrency);
	assert_true(met.tokens_per_s < all.tokens_per_s);
	o.tpot_target_s = 1e-6;
	diag_clear(&err);
	assert_int_equal(model_serving_estimate(&w, &c, &o, &met, &err), -1);
	assert_string_equal(err.field, "latency-target");
	assert_non_null(strstr(err.msg, "the closest"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kv_cache_sets_concurrency),
		cmocka_unit_test(test_static_batch_must_fit),
		cmocka_unit_test(test_tpot_target),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
