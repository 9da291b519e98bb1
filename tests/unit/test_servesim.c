/*
 * The serving simulation against hand-computed cases: one request alone
 * takes the analytical prefill and n - 1 decode steps; a burst served one
 * prompt per iteration, prefill first, sees its time to first token grow
 * linearly with the position in the queue; a closed loop of one client
 * runs requests back to back; the same seed gives the same figures; an
 * older vLLM release, CPU-bound at 256 sequences, is slower; trace files
 * are refused with file, line and column; a front end of 10 ms a request
 * spaces a burst 10 ms apart.  The loop is tested on vLLM 0.8's row, which
 * has no front-end cost.
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
#include "model/servesim.h"

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

static void llama(struct workload *w, struct model_config *c, int prompt, int output)
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
	c->tp = c->gpus = c->gpus_per_node = 1;
	c->prompt_len = prompt;
	c->output_len = output;
	model_config_complete(w, c);
	if (model_links_from_catalog(c, cat, NULL, NULL, &err) || model_config_check(w, c, &err))
		fail_msg("config: %s", err.msg);
}

static struct servesim *sim_of(const struct workload *w, const struct model_config *c, const char *version,
			       int chunked, int budget)
{
	struct servesim_sched s;
	struct servesim *sim;
	struct diag err;
	diag_clear(&err);
	if (servesim_sched_find("vllm", version, &s, &err))
		fail_msg("sched: %s", err.msg);
	if (chunked >= 0)
		s.chunked_prefill = chunked;
	if (budget > 0)
		s.max_batched_tokens = budget;
	sim = servesim_new(w, c, &s, &err);
	servesim_sched_release(&s);
	if (!sim)
		fail_msg("new: %s", err.msg);
	return sim;
}

static void run(struct servesim *sim, enum servesim_arrival kind, int count, double rate, int requests,
		struct servesim_result *r)
{
	struct servesim_load l;
	struct servesim_slo slo = {0, 0, 0};
	struct diag err;
	memset(&l, 0, sizeof(l));
	l.kind = kind;
	l.count = count;
	l.rate_per_s = rate;
	l.requests = requests;
	l.seed = 7;
	diag_clear(&err);
	if (servesim_run(sim, &l, &slo, r, &err))
		fail_msg("run: %s", err.msg);
}

/* A search's run (stop_on_miss) that meets its targets is the full run; one that misses ends early. */
static void test_stop_on_miss(void **state)
{
	struct workload w;
	struct model_config c;
	struct servesim_result full, r;
	struct servesim *sim;
	struct servesim_load l;
	struct servesim_slo slo = {0, 0, 1};
	struct diag err;
	(void)state;
	llama(&w, &c, 1024, 128);
	sim = sim_of(&w, &c, "0.11", -1, 0);
	run(sim, SERVESIM_BURST, 200, 0, 200, &full);
	memset(&l, 0, sizeof(l));
	l.kind = SERVESIM_POISSON;
	l.rate_per_s = 0.8 * full.requests_per_s;
	l.requests = 1000;
	l.seed = 3;
	assert_int_equal(servesim_run(sim, &l, NULL, &full, &err), 0);
	assert_int_equal(full.stopped, 0);
	/* targets at the run's own p99: met, so the same figures */
	slo.ttft_s = full.ttft.p99;
	slo.tpot_s = full.tpot.p99;
	assert_int_equal(servesim_run(sim, &l, &slo, &r, &err), 0);
	assert_int_equal(r.stopped, 0);
	assert_int_equal(r.requests, 1000);
	assert_true(r.ttft.p99 == full.ttft.p99 && r.tpot.p99 == full.tpot.p99 && r.e2e.mean == full.e2e.mean);
	assert_true(r.iterations == full.iterations);
	/* a TTFT target at the median: half the requests miss it, the run ends after the first 11 that do */
	slo.ttft_s = full.ttft.p50;
	slo.tpot_s = 0;
	assert_int_equal(servesim_run(sim, &l, &slo, &r, &err), 0);
	assert_int_equal(r.stopped, 1);
	assert_true(r.requests < 200);
	servesim_free(sim);
}

static void test_one_request_is_the_analytical_one(void **state)
{
	struct workload w;
	struct model_config c;
	struct model_result a;
	struct servesim_result r;
	struct servesim *sim;
	(void)state;
	llama(&w, &c, 1024, 128);
	c.batch = 1;
	assert_int_equal(model_estimate(&w, &c, &a), 0);
	sim = sim_of(&w, &c, "0.8", -1, 0);
	run(sim, SERVESIM_BURST, 1, 0, 1, &r);
	assert_int_equal(r.requests, 1);
	assert_int_equal(r.iterations, 128);
	/* the first token comes with the prefill; the rest one decode step each, at context P + k */
	assert_true(fabs(r.ttft.p50 - a.infer.prefill_s) <= 1e-9 * a.infer.prefill_s);
	assert_true(fabs(r.e2e.p50 - a.infer.request_s) <= 0.01 * a.infer.request_s);
	assert_true(fabs(r.tpot.p50 - a.infer.decode_token_s) <= 0.01 * a.infer.decode_token_s);
	assert_true(r.batch_max == 1 && r.queue_max == 0 && r.preemptions == 0);
	servesim_free(sim);
}

static void test_burst_drains_linearly(void **state)
{
	struct workload w;
	struct model_config c;
	struct servesim_result r;
	struct servesim *sim;
	double t1;
	(void)state;
	llama(&w, &c, 1024, 64);
	/* whole prompts first, one per iteration: request k's first token after k prefills */
	sim = sim_of(&w, &c, "0.6", 0, 1024);
	t1 = servesim_iteration_s(sim, 0, 0, 1024, 1);
	run(sim, SERVESIM_BURST, 9, 0, 9, &r);
	assert_int_equal(r.requests, 9);
	assert_true(fabs(r.ttft.mean - 5 * t1) <= 1e-9 * t1); /* (1 + ... + 9) / 9 prefills */
	assert_true(fabs(r.ttft.p99 - 9 * t1) <= 1e-9 * t1);
	assert_true(fabs(r.ttft.p50 - 5 * t1) <= 1e-9 * t1);
	assert_int_equal(r.queue_max, 8);
	assert_int_equal(r.batch_max, 9);
	servesim_free(sim);
	/* chunked with room for all nine: they share one iteration, and the first token comes together */
	sim = sim_of(&w, &c, "0.8", 1, 16384);
	run(sim, SERVESIM_BURST, 9, 0, 9, &r);
	assert_true(r.ttft.p99 == r.ttft.p50 && r.ttft.p50 < 9 * t1);
	servesim_free(sim);
}

static void test_closed_loop_of_one_runs_back_to_back(void **state)
{
	struct workload w;
	struct model_config c;
	struct servesim_result one, five;
	struct servesim *sim;
	(void)state;
	llama(&w, &c, 512, 32);
	sim = sim_of(&w, &c, "0.8", -1, 0);
	run(sim, SERVESIM_BURST, 1, 0, 1, &one);
	run(sim, SERVESIM_CLOSED, 1, 0, 5, &five);
	assert_int_equal(five.requests, 5);
	assert_true(fabs(five.makespan_s - 5 * one.e2e.p50) <= 1e-9 * five.makespan_s);
	assert_true(five.queue_max == 0 && five.batch_max == 1);
	/* eight clients keep eight running */
	run(sim, SERVESIM_CLOSED, 8, 0, 80, &five);
	assert_int_equal(five.batch_max, 8);
	assert_true(five.batch_mean > 7 && five.batch_mean <= 8);
	servesim_free(sim);
}

static void test_poisson_is_seeded_and_queues_under_load(void **state)
{
	struct workload w;
	struct model_config c;
	struct servesim_result a, b, hi;
	struct servesim *sim;
	(void)state;
	llama(&w, &c, 512, 128);
	sim = sim_of(&w, &c, "0.8", -1, 0);
	run(sim, SERVESIM_POISSON, 0, 2, 2000, &a);
	run(sim, SERVESIM_POISSON, 0, 2, 2000, &b);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(a.requests, 2000);
	/* the measured rate is the offered one within sampling error */
	assert_true(fabs(a.requests_per_s - 2) < 0.15);
	/* far past capacity the queue grows and the wait with it */
	run(sim, SERVESIM_POISSON, 0, 500, 2000, &hi);
	assert_true(hi.queue_max > 100 && hi.ttft.p99 > 10 * a.ttft.p99);
	assert_true(hi.batch_max <= 256 && hi.requests_per_s < 500);
	servesim_free(sim);
}

static void test_older_vllm_is_host_bound(void **state)
{
	struct workload w;
	struct model_config c;
	struct servesim_result v6, v5;
	struct servesim *sim;
	(void)state;
	llama(&w, &c, 256, 256);
	sim = sim_of(&w, &c, "0.6", -1, 0);
	run(sim, SERVESIM_BURST, 256, 0, 256, &v6);
	servesim_free(sim);
	sim = sim_of(&w, &c, "0.5", -1, 0);
	run(sim, SERVESIM_BURST, 256, 0, 256, &v5);
	servesim_free(sim);
	assert_true(v6.tokens_per_s > 1.5 * v5.tokens_per_s);
}

/*
 * The front end takes requests one at a time: 200 one-token requests at
 * once behind 10 ms each reach the scheduler 10 ms apart, so the run takes
 * at least 2 s, and the last waits about 2 s for its first token.  The row
 * comes from a table of one's own (servesim_sched_find_in).
 */
static void test_front_end_serialises_requests(void **state)
{
	static const char table[] =
		"engine,version,host_step_s,host_seq_s,host_req_s,frontend_s,max_seqs,max_batched_tokens,chunked_prefill,"
		"preemption,prefix_hit,source\n"
		"vllm,9.9,0.5e-3,2e-6,10e-3,0,256,8192,1,recompute,0,mine\n";
	struct servesim_sched s;
	struct servesim *sim;
	struct servesim_result r;
	struct workload w;
	struct model_config c;
	struct diag err;
	(void)state;
	diag_clear(&err);
	llama(&w, &c, 16, 1);
	assert_int_equal(servesim_sched_find_in("mine.csv", table, strlen(table), "vllm", NULL, &s, &err), 0);
	assert_true(s.host_req_s == 10e-3 && !strcmp(s.version, "9.9") && !strcmp(s.source, "mine"));
	sim = servesim_new(&w, &c, &s, &err);
	servesim_sched_release(&s);
	assert_non_null(sim);
	run(sim, SERVESIM_BURST, 200, 0, 200, &r);
	servesim_free(sim);
	assert_true(r.makespan_s >= 2.0 && r.makespan_s < 2.1);
	assert_true(r.ttft.p99 > 1.9 && r.ttft.p50 > 0.9 && r.ttft.p50 < 1.1);
	assert_int_equal(servesim_sched_find_in("mine.csv", table, strlen(table), "vllm", "0.8", &s, &err), -1);
	assert_non_null(strstr(err.msg, "there are 9.9"));
}

/*
 * The front end's latency (frontend_s) is paid by every request at once,
 * not one after another: under 50 ms of it one request alone has its first
 * token 50 ms later than without, a closed loop of 4 clients has each TTFT
 * 50 ms longer, and 200 one-token requests at once still finish in well under
 * 200 x 50 ms.
 */
static void test_front_end_latency_is_not_queued(void **state)
{
	static const char base[] =
		"engine,version,host_step_s,host_seq_s,host_req_s,frontend_s,max_seqs,max_batched_tokens,chunked_prefill,"
		"preemption,prefix_hit,source\n";
	const char *rows[2] = {"vllm,9.9,0.5e-3,2e-6,0,0,256,8192,1,recompute,0,mine\n",
			       "vllm,9.9,0.5e-3,2e-6,0,50e-3,256,8192,1,recompute,0,mine\n"};
	struct servesim_result one[2], closed[2], burst[2];
	struct workload w;
	struct model_config c;
	int k;
	(void)state;
	llama(&w, &c, 16, 4);
	for (k = 0; k < 2; k++) {
		char table[512];
		struct servesim_sched s;
		struct servesim *sim;
		struct diag err;
		diag_clear(&err);
		snprintf(table, sizeof(table), "%s%s", base, rows[k]);
		assert_int_equal(servesim_sched_find_in("mine.csv", table, strlen(table), "vllm", NULL, &s, &err),
				 0);
		sim = servesim_new(&w, &c, &s, &err);
		servesim_sched_release(&s);
		assert_non_null(sim);
		run(sim, SERVESIM_BURST, 1, 0, 1, &one[k]);
		run(sim, SERVESIM_CLOSED, 4, 0, 40, &closed[k]);
		run(sim, SERVESIM_BURST, 200, 0, 200, &burst[k]);
		servesim_free(sim);
	}
	assert_true(fabs(one[1].ttft.p50 - one[0].ttft.p50 - 50e-3) < 1e-9);
	assert_true(fabs(one[1].e2e.p50 - one[0].e2e.p50 - 50e-3) < 1e-9);
	assert_true(fabs(closed[1].ttft.p50 - closed[0].ttft.p50 - 50e-3) < 5e-3);
	assert_true(closed[1].requests_per_s < closed[0].requests_per_s);
	assert_true(burst[1].makespan_s < burst[0].makespan_s + 0.1 && burst[1].makespan_s < 1.0);
}

/*
 * A burst that outgrows the cache preempts under either policy; swapping
 * copies the cache out and back instead of prefilling it again, so it
 * completes every request with a different makespan, and a preempted
 * sequence's first token is not produced twice (every TTFT is the same).
 */
static void test_swap_preemption(void **state)
{
	struct servesim *sim;
	struct servesim_result rc, sw;
	struct workload w;
	struct model_config c;
	(void)state;
	llama(&w, &c, 256, 2048);
	sim = sim_of(&w, &c, "0.11", -1, 0);
	run(sim, SERVESIM_BURST, 600, 0, 600, &rc);
	servesim_free(sim);
	{
		struct servesim_sched s;
		struct diag err;
		diag_clear(&err);
		assert_int_equal(servesim_sched_find("vllm", "0.11", &s, &err), 0);
		s.swap = 1;
		sim = servesim_new(&w, &c, &s, &err);
		servesim_sched_release(&s);
		assert_non_null(sim);
	}
	run(sim, SERVESIM_BURST, 600, 0, 600, &sw);
	servesim_free(sim);
	assert_true(rc.preemptions > 0 && sw.preemptions > 0);
	assert_int_equal(rc.requests, 600);
	assert_int_equal(sw.requests, 600);
	assert_true(fabs(rc.makespan_s - sw.makespan_s) > 1e-3 * rc.makespan_s);
	assert_true(fabs(rc.ttft.p50 - sw.ttft.p50) < 1e-9);
}

static void test_rows_and_traces(void **state)
{
	struct servesim_sched s;
	struct servesim_trace *t;
	struct servesim_load l;
	struct diag err;
	static const char good[] = "arrival_s,prompt_tokens,output_tokens\n0,100,10\n0.5,200,20\n";
	static const char bad[] = "arrival_s,prompt_tokens,output_tokens\n0,100,10\n0.5,2x0,20\n";
	static const char back[] = "arrival_s,prompt_tokens,output_tokens\n1,100,10\n0.5,200,20\n";
	(void)state;
	diag_clear(&err);
	assert_int_equal(servesim_sched_find("vllm", "0.5", &s, &err), 0);
	assert_true(s.host_seq_s > 1e-5 && !s.chunked_prefill && strstr(s.source, "vLLM blog"));
	servesim_sched_release(&s);
	assert_int_equal(servesim_sched_find("vllm", "0.1", &s, &err), -1);
	assert_string_equal(err.field, "engine-version");
	assert_non_null(strstr(err.msg, "0.11, 0.8, 0.6, 0.5"));
	assert_int_equal(servesim_trace_parse("log.csv", good, strlen(good), &t, &err), 0);
	assert_true(t->n == 2 && t->req[1].prompt == 200 && t->req[1].arrival_s == 0.5);
	servesim_trace_free(t);
	assert_int_equal(servesim_trace_parse("log.csv", bad, strlen(bad), &t, &err), -1);
	assert_true(err.line == 3 && err.col == 5 && !strcmp(err.field, "prompt_tokens"));
	assert_null(t);
	assert_int_equal(servesim_trace_parse("log.csv", back, strlen(back), &t, &err), -1);
	assert_true(err.line == 3 && err.col == 1);
	memset(&l, 0, sizeof(l));
	assert_int_equal(servesim_load_parse("poisson:12.5", &l, &err), 0);
	assert_true(l.kind == SERVESIM_POISSON && l.rate_per_s == 12.5);
	assert_int_equal(servesim_load_parse("burst:64", &l, &err), 0);
	assert_true(l.kind == SERVESIM_BURST && l.count == 64);
	assert_int_equal(servesim_load_parse("closed:0", &l, &err), -1);
	assert_int_equal(servesim_load_parse("trace.csv", &l, &err), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_request_is_the_analytical_one),
		cmocka_unit_test(test_burst_drains_linearly),
		cmocka_unit_test(test_closed_loop_of_one_runs_back_to_back),
		cmocka_unit_test(test_poisson_is_seeded_and_queues_under_load),
		cmocka_unit_test(test_older_vllm_is_host_bound),
		cmocka_unit_test(test_rows_and_traces),
		cmocka_unit_test(test_front_end_serialises_requests),
		cmocka_unit_test(test_front_end_latency_is_not_queued),
		cmocka_unit_test(test_swap_preemption),
		cmocka_unit_test(test_stop_on_miss),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
