/*
 * bench_plan: the speed of `gpuscope plan`'s search.
 *
 * Runs, in one process, against the embedded catalog:
 *   default   the plan `gpuscope plan` runs with no arguments (Llama 2 7B
 *             full fine-tune, bf16, 1e9 tokens, owned hardware)
 *   full      Llama 3 70B pretraining on 15e12 tokens, the whole catalog
 *             (owned: servers and generic builds), up to 4096 GPUs, with fp8
 *
 * and prints for each: wall time, configurations decided, model calls, and
 * configurations per second in total and per thread.  A configuration is
 * one (hardware option, node count, fabric, layout); docs/plan.md says how
 * the search decides most of them without timing each one.
 *
 * Usage: bench_plan [--threads N] [--repeat N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "model/model.h"
#include "plan/plan.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int run(const struct catalog *cat, const char *title, const char *preset,
	       enum model_task task, double tokens, unsigned precisions, int threads, int repeat)
{
	struct workload w;
	struct plan_request req;
	struct diag err;
	double best = 1e30;
	struct plan_stats st;
	const struct plan_choice *c;
	int i;

	memset(&st, 0, sizeof(st));
	diag_clear(&err);
	if (workload_preset(&w, preset, &err)) {
		fprintf(stderr, "bench_plan: %s\n", err.msg);
		return -1;
	}
	for (i = 0; i < repeat; i++) {
		struct plan *p;
		double t0 = now_s(), t;
		memset(&req, 0, sizeof(req));
		req.w = &w;
		model_config_defaults(&req.base);
		req.base.task = task;
		req.base.train_tokens = tokens;
		req.objective = PLAN_OBJ_COST;
		req.buy = PLAN_BUY_OWN;
		req.max_gpus = 4096;
		req.precisions = precisions;
		req.threads = threads;
		if (plan_run(&p, cat, &req, &err)) {
			fprintf(stderr, "bench_plan: %s\n", err.msg);
			return -1;
		}
		t = now_s() - t0;
		if (t < best) {
			best = t;
			st = *plan_stats(p);
		}
		c = plan_ranked(p, 0);
		if (i == 0 && c) {
			size_t nhw;
			char lay[64];
			const struct plan_hw *hw = plan_hw(p, &nhw);
			printf("%-8s first choice: %u x %s, %s, %.3g h, $%.0f\n", title, c->nodes,
			       hw[c->hw].label, plan_layout_code(&c->cfg, lay, sizeof(lay)), c->hours,
			       c->cost_usd);
		}
		plan_free(p);
	}
	printf("%-8s wall %.3f s (best of %d, %d threads): %llu configurations decided, "
	       "%llu memory + %llu time model calls (%llu of them bounds), %llu items\n",
	       title, best, repeat, st.threads, (unsigned long long)st.configs,
	       (unsigned long long)st.memory_calls, (unsigned long long)st.estimate_calls,
	       (unsigned long long)st.bound_calls, (unsigned long long)st.items);
	printf("%-8s %.3g configurations/s (%.3g per thread); %.3g model calls/s (%.3g per thread)\n",
	       title, st.configs / best, st.configs / best / st.threads,
	       (st.memory_calls + st.estimate_calls) / best,
	       (st.memory_calls + st.estimate_calls) / best / st.threads);
	return 0;
}

int main(int argc, char **argv)
{
	struct catalog *cat;
	struct diag err;
	int threads = 0, repeat = 3, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
			repeat = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: bench_plan [--threads N] [--repeat N]\n");
			return 2;
		}
	}
	if (repeat < 1)
		repeat = 1;
	diag_clear(&err);
	if (catalog_load(&cat, NULL, &err)) {
		fprintf(stderr, "bench_plan: catalog: %s\n", err.msg);
		return 3;
	}
	printf("bench_plan: %ld online CPUs\n", sysconf(_SC_NPROCESSORS_ONLN));
	if (run(cat, "default", "llama2-7b", MODEL_TASK_FINETUNE, 1e9, 1u << MODEL_BF16, threads, repeat) ||
	    run(cat, "full", "llama3-70b", MODEL_TASK_PRETRAIN, 15e12,
		(1u << MODEL_BF16) | (1u << MODEL_FP8), threads, repeat)) {
		catalog_free(cat);
		return 1;
	}
	catalog_free(cat);
	return 0;
}
