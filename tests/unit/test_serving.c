/*
 * The serving model: the KV cache decides how many sequences run together
 * (fp8 KV holds twice bf16's, tensor parallelism splits it), a static batch
 * larger than the cache is refused, and a TPOT target lowers the concurrency
 * to one that meets it; queueing at a request rate lengthens the p99 TTFT as
 * utilisation nears 1, and a tighter TTFT target takes more replicas.
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
	assert_non_null(strstr(err.msg, "cannot: batch 100000 needs"));
	assert_non_null(strstr(err.msg, "the largest that fits is"));
	/* continuously batched, an explicit batch the cache cannot hold is refused too, not lowered */
	o.continuous = 1;
	o.batch = 100000;
	c.batch = 1; /* as model_config_complete leaves it: the batch asked for is o.batch */
	diag_clear(&err);
	assert_int_equal(model_serving_estimate(&w, &c, &o, &s, &err), -1);
	assert_string_equal(err.field, "batch");
	o.batch = 0;
	serve(&w, &c, &o, &s);
	assert_true(s.at.mem.fits && s.at.mem.total_bytes <= s.at.mem.capacity_bytes);
	assert_true(s.concurrency > 1);
	o.batch = s.kv_limit;
	serve(&w, &c, &o, &s);
	assert_int_equal(s.concurrency, o.batch);
	/* one sequence asked for is one sequence, not "not given" */
	o.batch = 1;
	serve(&w, &c, &o, &s);
	assert_int_equal(s.concurrency, 1);
	o.batch = s.kv_limit + 1;
	assert_int_equal(model_serving_estimate(&w, &c, &o, &s, &err), -1);
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

	/* a request's latency target sizes the concurrency alike, and one no concurrency meets fails */
	o.tpot_target_s = 0;
	o.latency_target_s = all.request_s / 2;
	serve(&w, &c, &o, &met);
	assert_string_equal(met.bound, "target");
	assert_true(met.request_s <= o.latency_target_s);
	assert_true(met.concurrency < all.concurrency);
	o.latency_target_s = 1e-6;
	diag_clear(&err);
	assert_int_equal(model_serving_estimate(&w, &c, &o, &met, &err), -1);
	assert_string_equal(err.field, "latency-target");
	assert_non_null(strstr(err.msg, "request latency 0.001 ms"));
}

static void test_queue_wait(void **state)
{
	/* 64 slots, each request holds one for 10 s: capacity 6.4 requests/s */
	double w50 = model_queue_wait_s(64, 10, 3.2, 0.99), w95 = model_queue_wait_s(64, 10, 6.08, 0.99);
	double one50 = model_queue_wait_s(1, 1, 0.5, 0.99);
	(void)state;
	assert_true(w50 >= 0 && w95 > w50);
	assert_true(model_queue_wait_s(64, 10, 6.3, 0.99) > w95);
	assert_true(isinf(model_queue_wait_s(64, 10, 6.4, 0.99)));
	assert_true(isinf(model_queue_wait_s(64, 10, 7, 0.99)));
	assert_true(model_queue_wait_s(64, 10, 0, 0.99) == 0);
	/* M/M/1: P(wait > t) = rho e^-(mu - lambda) t, so W99 = ln(100 rho) / (mu - lambda) */
	assert_true(fabs(one50 - log(50) / 0.5) < 1e-9);
	/* the same utilisation spread over more slots waits less (pooling) */
	assert_true(model_queue_wait_s(256, 10, 0.95 * 25.6, 0.99) < model_queue_wait_s(16, 10, 0.95 * 1.6, 0.99));
}

static void test_replicas_for_ttft(void **state)
{
	double loose_p99, tight_p99, none_p99;
	/* 100 requests/s; a replica runs 32 at a time for 8 s each (4 requests/s): 25 for throughput */
	int none = model_serving_replicas(100, 32, 8, 0.3, 0, 25, 4096, &none_p99);
	int loose = model_serving_replicas(100, 32, 8, 0.3, 5, 25, 4096, &loose_p99);
	int tight = model_serving_replicas(100, 32, 8, 0.3, 0.4, 25, 4096, &tight_p99);
	(void)state;
	/* exactly at capacity the queue never drains: one replica more even without a target */
	assert_int_equal(none, 26);
	assert_true(isfinite(none_p99) && none_p99 > 0.3);
	assert_true(loose >= 26 && loose_p99 <= 5);
	assert_true(tight > loose && tight_p99 <= 0.4 && tight_p99 >= 0.3);
	/* the fewest: one replica less misses the target */
	assert_true(0.3 + model_queue_wait_s(32, 8, 100.0 / (tight - 1), 0.99) > 0.4);
	/* a target below the service time cannot be met: the fewest stable replicas, the miss shown */
	assert_int_equal(model_serving_replicas(100, 32, 8, 0.3, 0.2, 25, 4096, &tight_p99), 26);
	assert_true(tight_p99 > 0.2);
}

static void test_queue_at(void **state)
{
	struct model_queue q;
	int n;
	double p99;
	(void)state;
	/* 4 replicas of 32 slots held 8 s: 16 requests/s at most; 12 offered keep 75% of the slots busy */
	model_queue_at(12, 4, 32, 8, 0.3, &q);
	assert_int_equal(q.replicas, 4);
	assert_true(fabs(q.capacity_per_s - 16) < 1e-12);
	assert_true(fabs(q.utilisation - 0.75) < 1e-12);
	/* each replica is the queue the search sizes: a quarter of the stream */
	assert_true(q.wait_p99_s == model_queue_wait_s(32, 8, 3, 0.99));
	assert_true(fabs(q.ttft_p99_s - (0.3 + q.wait_p99_s)) < 1e-12);
	/* what model_serving_replicas reports is the queue of the count it returns */
	n = model_serving_replicas(100, 32, 8, 0.3, 0.4, 25, 4096, &p99);
	model_queue_at(100, n, 32, 8, 0.3, &q);
	assert_true(q.ttft_p99_s == p99 && q.utilisation < 1);
	/* at capacity: saturated, no finite wait */
	model_queue_at(16, 4, 32, 8, 0.3, &q);
	assert_true(q.utilisation >= 1 && isinf(q.ttft_p99_s));
	model_queue_at(1, 0, 32, 8, 0.3, &q);
	assert_true(isinf(q.utilisation));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kv_cache_sets_concurrency),
		cmocka_unit_test(test_static_batch_must_fit),
		cmocka_unit_test(test_tpot_target),
		cmocka_unit_test(test_queue_wait),
		cmocka_unit_test(test_replicas_for_ttft),
		cmocka_unit_test(test_queue_at),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
