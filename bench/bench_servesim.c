/*
 * bench_servesim: the speed of the serving simulation beside the analytical
 * estimate it replaces (the steady-state serving model and its M/M/c queue).
 *
 * One replica of Llama 3 8B on one H100 SXM under vLLM (prompt 1024, output
 * 256 tokens), fed 100,000 Poisson requests at 80% of the replica's
 * analytical capacity, with fixed and with ShareGPT-like lengths, and a
 * burst of 10,000.  Prints for each: wall time of building the simulator
 * (its cost tables), of the run, iterations, requests per second of wall
 * time; and the wall time of one analytical serving estimate + queue.
 *
 * Usage: bench_servesim [--requests N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog/catalog.h"
#include "model/serving.h"
#include "model/servesim.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void run_case(struct servesim *sim, const char *title, enum servesim_arrival kind, double rate, int count,
		     int requests, enum servesim_lengths lengths)
{
	struct servesim_load l;
	struct servesim_slo slo = {1.0, 0.05, 0};
	struct servesim_result r;
	struct diag err;
	double t0;
	memset(&l, 0, sizeof(l));
	l.kind = kind;
	l.rate_per_s = rate;
	l.count = count;
	l.requests = requests;
	l.lengths = lengths;
	l.seed = 1;
	diag_clear(&err);
	t0 = now_s();
	if (servesim_run(sim, &l, &slo, &r, &err)) {
		fprintf(stderr, "bench_servesim: %s\n", err.msg);
		exit(1);
	}
	t0 = now_s() - t0;
	printf("%-26s %7d req  %8.3f s wall  %9ld iterations  %10.0f req/s wall  batch %5.1f  "
	       "TTFT p99 %8.3f s  TPOT p50 %6.2f ms\n",
	       title, r.requests, t0, r.iterations, r.requests / t0, r.batch_mean, r.ttft.p99, r.tpot.p50 * 1e3);
}

int main(int argc, char **argv)
{
	struct catalog *cat;
	struct workload w;
	struct model_config c;
	struct model_serving_opts so;
	struct model_serving sv;
	struct model_queue q;
	struct servesim_sched s;
	struct servesim *sim;
	struct diag err;
	double t0, t_an, rate;
	int requests = 100000, i;

	for (i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--requests"))
			requests = atoi(argv[++i]);
	diag_clear(&err);
	if (catalog_load(&cat, NULL, &err) || workload_preset(&w, "llama3-8b", &err)) {
		fprintf(stderr, "bench_servesim: %s\n", err.msg);
		return 1;
	}
	model_config_defaults(&c);
	c.gpu = catalog_get(cat, CAT_GPUS, "h100-sxm5-80gb");
	c.task = MODEL_TASK_INFER;
	c.engine = MODEL_ENGINE_VLLM;
	c.tp = c.gpus = c.gpus_per_node = 1;
	c.prompt_len = 1024;
	c.output_len = 256;
	model_config_complete(&w, &c);
	if (model_links_from_catalog(&c, cat, NULL, NULL, &err) || model_config_check(&w, &c, &err)) {
		fprintf(stderr, "bench_servesim: %s\n", err.msg);
		return 1;
	}
	/* the analytical estimate: steady-state serving and an Erlang C queue at the rate */
	memset(&so, 0, sizeof(so));
	so.continuous = 1;
	t0 = now_s();
	for (i = 0; i < 100; i++) {
		if (model_serving_estimate(&w, &c, &so, &sv, &err))
			return 1;
		model_queue_at(1, 1, sv.concurrency, sv.request_s, sv.ttft_s, &q);
	}
	t_an = (now_s() - t0) / 100;
	rate = 0.8 * sv.requests_per_s;
	printf("analytical serving estimate + M/M/c queue: %.3f ms (concurrency %d, %.2f req/s capacity)\n",
	       t_an * 1e3, sv.concurrency, sv.requests_per_s);

	if (servesim_sched_find("vllm", NULL, &s, &err))
		return 1;
	t0 = now_s();
	sim = servesim_new(&w, &c, &s, &err);
	if (!sim) {
		fprintf(stderr, "bench_servesim: %s\n", err.msg);
		return 1;
	}
	printf("simulator set-up (cost tables): %.3f ms\n", (now_s() - t0) * 1e3);
	run_case(sim, "poisson 0.8 x capacity", SERVESIM_POISSON, rate, 0, requests, SERVESIM_LEN_FIXED);
	run_case(sim, "poisson, ShareGPT lengths", SERVESIM_POISSON, rate, 0, requests, SERVESIM_LEN_SHAREGPT);
	run_case(sim, "burst 10,000", SERVESIM_BURST, 0, 10000, 10000, SERVESIM_LEN_FIXED);
	servesim_free(sim);
	servesim_sched_release(&s);
	catalog_free(cat);
	return 0;
}
