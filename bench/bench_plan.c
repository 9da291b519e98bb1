/*
 * bench_plan: the speed of `gpuscope plan`'s search, the narrower layout
 * space beside the full one.
 *
 * Runs, in one process, against the embedded catalog, each case twice: with
 * plan_request.basic_layouts (power-of-two micro-batches, vpp 1, 2, 4,
 * recompute none or full, tensor parallelism inside a node, no offload, no
 * context parallelism) and with the full layout space of docs/plan.md:
 *   default   the plan `gpuscope plan` runs with no arguments (Llama 2 7B
 *             full fine-tune, bf16, 1e9 tokens, owned hardware)
 *   full      Llama 3 70B pretraining on 15e12 tokens, the whole catalog
 *             (owned: servers and generic builds), up to 4096 GPUs, with fp8
 *   gpt3      GPT-3 175B pretraining on 300e9 tokens on A100 SXM4 80GB, up to
 *             1,024 GPUs; also prints how many layouts the search considers
 *             for 1,024 of them on 128 nodes of 8
 *
 * and two serving plans over the whole catalog, each sized by the serving
 * simulation (vLLM, docs/plan.md) beside the static-batch queue it replaced
 * (--engine static), the baseline of the speed target (under 2 s):
 *   serve70   Llama 3 70B at 50 requests/s, p99 TTFT within 1 s
 *   serve8    Llama 3 8B at 20 requests/s, TTFT 500 ms and TPOT 30 ms
 *
 * and prints for each: wall time, configurations decided, layouts in the
 * space, model calls, and configurations per second in total and per
 * thread.  A configuration is one (hardware option, node count, fabric,
 * layout); docs/plan.md says how the search decides most of them without
 * timing each one.
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

struct bench_case {
	const char *title, *preset;
	enum model_task task;
	double tokens;
	unsigned precisions;
	const char *gpu; /* NULL: every GPU */
	int max_gpus;
	int layouts_at; /* > 0: report the layouts of this GPU count on nodes of 8 */
};

struct bench_result {
	double wall_s, step_s;
	struct plan_stats st;
	unsigned long long layouts_at; /* layouts of case->layouts_at GPUs, nodes of 8 */
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int run(const struct catalog *cat, const struct bench_case *bc, int basic, int threads, int repeat,
	       struct bench_result *out)
{
	struct workload w;
	struct plan_request req;
	struct diag err;
	const struct cat_gpu *g = NULL;
	int i;

	memset(out, 0, sizeof(*out));
	out->wall_s = 1e30;
	diag_clear(&err);
	if (workload_preset(&w, bc->preset, &err)) {
		fprintf(stderr, "bench_plan: %s\n", err.msg);
		return -1;
	}
	if (bc->gpu && !(g = catalog_get(cat, CAT_GPUS, bc->gpu))) {
		fprintf(stderr, "bench_plan: no GPU %s in the catalog\n", bc->gpu);
		return -1;
	}
	for (i = 0; i < repeat; i++) {
		struct plan *p;
		const struct plan_choice *c, *all;
		size_t nall, nhw, k;
		const struct plan_hw *hw;
		double t0 = now_s(), t;
		memset(&req, 0, sizeof(req));
		req.w = &w;
		model_config_defaults(&req.base);
		req.base.task = bc->task;
		req.base.train_tokens = bc->tokens;
		req.objective = PLAN_OBJ_COST;
		req.buy = PLAN_BUY_OWN;
		req.max_gpus = bc->max_gpus;
		req.precisions = bc->precisions;
		req.threads = threads;
		req.basic_layouts = basic;
		if (g) {
			req.gpus = &g;
			req.ngpus = 1;
		}
		if (plan_run(&p, cat, &req, &err)) {
			fprintf(stderr, "bench_plan: %s\n", err.msg);
			return -1;
		}
		t = now_s() - t0;
		if (t < out->wall_s) {
			out->wall_s = t;
			out->st = *plan_stats(p);
		}
		hw = plan_hw(p, &nhw);
		all = plan_all(p, &nall);
		for (k = 0; bc->layouts_at > 0 && k < nall; k++)
			if (all[k].gpus == bc->layouts_at && hw[all[k].hw].gpus_per_node == 8 &&
			    all[k].layouts > out->layouts_at)
				out->layouts_at = all[k].layouts;
		c = plan_ranked(p, 0);
		if (i == 0 && c) {
			char lay[64];
			out->step_s = c->res.time.step_s;
			printf("%-8s %-5s first choice: %u x %s, %s, step %.4g s, %.3g h, $%.0f\n", bc->title,
			       basic ? "basic" : "full", c->nodes, hw[c->hw].label,
			       plan_layout_code(&c->cfg, lay, sizeof(lay)), c->res.time.step_s, c->hours,
			       c->cost_usd);
		}
		plan_free(p);
	}
	printf("%-8s %-5s wall %.3f s (best of %d, %d threads): %llu layouts in the space, %llu "
	       "configurations decided, %llu memory + %llu time model calls (%llu of them bounds), %llu items\n",
	       bc->title, basic ? "basic" : "full", out->wall_s, repeat, out->st.threads,
	       (unsigned long long)out->st.layouts, (unsigned long long)out->st.configs,
	       (unsigned long long)out->st.memory_calls, (unsigned long long)out->st.estimate_calls,
	       (unsigned long long)out->st.bound_calls, (unsigned long long)out->st.items);
	printf("%-8s %-5s %.3g configurations/s (%.3g per thread); %.3g model calls/s (%.3g per thread)\n",
	       bc->title, basic ? "basic" : "full", out->st.configs / out->wall_s,
	       out->st.configs / out->wall_s / out->st.threads,
	       (out->st.memory_calls + out->st.estimate_calls) / out->wall_s,
	       (out->st.memory_calls + out->st.estimate_calls) / out->wall_s / out->st.threads);
	return 0;
}

struct serve_case {
	const char *title, *preset;
	double rate, ttft_s, tpot_s;
};

/* One serving plan, best wall time of `repeat`, under `engine`; the first choice printed. */
static int run_serve(const struct catalog *cat, const struct serve_case *sc, const char *engine, int threads,
		     int repeat, double *wall_s)
{
	struct workload w;
	struct diag err;
	int i;

	*wall_s = 1e30;
	diag_clear(&err);
	if (workload_preset(&w, sc->preset, &err)) {
		fprintf(stderr, "bench_plan: %s\n", err.msg);
		return -1;
	}
	for (i = 0; i < repeat; i++) {
		struct plan_request req;
		struct plan *p;
		const struct plan_choice *c;
		double t0 = now_s(), t;
		memset(&req, 0, sizeof(req));
		req.w = &w;
		model_config_defaults(&req.base);
		req.base.task = MODEL_TASK_INFER;
		req.objective = PLAN_OBJ_COST;
		req.buy = PLAN_BUY_OWN;
		req.max_gpus = 4096;
		req.precisions = 1u << MODEL_BF16;
		req.threads = threads;
		req.rate_per_s = sc->rate;
		req.ttft_s = sc->ttft_s;
		req.tpot_s = sc->tpot_s;
		req.engine = engine;
		if (plan_run(&p, cat, &req, &err)) {
			fprintf(stderr, "bench_plan: %s\n", err.msg);
			return -1;
		}
		t = now_s() - t0;
		if (t < *wall_s)
			*wall_s = t;
		c = plan_ranked(p, 0);
		if (i == 0 && c) {
			size_t nhw;
			const struct plan_hw *hw = plan_hw(p, &nhw);
			printf("%-8s %-6s first choice: %d replicas on %u x %s, %d GPUs, $%.0f an hour\n",
			       sc->title, engine, c->replicas, c->nodes, hw[c->hw].label, c->gpus, c->cost_usd);
		}
		plan_free(p);
	}
	printf("%-8s %-6s wall %.3f s (best of %d)\n", sc->title, engine, *wall_s, repeat);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct serve_case serves[] = {
		{"serve70", "llama3-70b", 50, 1.0, 0},
		{"serve8", "llama3-8b", 20, 0.5, 0.03},
	};
	static const struct bench_case cases[] = {
		{"default", "llama2-7b", MODEL_TASK_FINETUNE, 1e9, 1u << MODEL_BF16, NULL, 4096, 0},
		{"full", "llama3-70b", MODEL_TASK_PRETRAIN, 15e12, (1u << MODEL_BF16) | (1u << MODEL_FP8), NULL,
		 4096, 0},
		{"gpt3", "gpt3-175b", MODEL_TASK_PRETRAIN, 300e9, 1u << MODEL_BF16, "a100-sxm4-80gb", 1024, 1024},
	};
	struct catalog *cat;
	struct diag err;
	int threads = 0, repeat = 3, i;
	size_t k;

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
	printf("%-8s %-10s %-10s %-8s %-14s %-14s %-12s %s\n", "summary", "basic s", "full s", "x",
	       "basic layouts", "full layouts", "basic step", "full step");
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct bench_result b, f;
		if (run(cat, &cases[k], 1, threads, repeat, &b) || run(cat, &cases[k], 0, threads, repeat, &f)) {
			catalog_free(cat);
			return 1;
		}
		printf("%-8s %-10.3f %-10.3f %-8.2f %-14llu %-14llu %-12.5g %.5g\n", cases[k].title, b.wall_s,
		       f.wall_s, f.wall_s / b.wall_s, (unsigned long long)b.st.layouts,
		       (unsigned long long)f.st.layouts, b.step_s, f.step_s);
		if (cases[k].layouts_at > 0)
			printf("%-8s layouts for %d GPUs on nodes of 8: basic %llu, full %llu\n", cases[k].title,
			       cases[k].layouts_at, b.layouts_at, f.layouts_at);
	}
	printf("%-8s %-10s %-10s %s\n", "serving", "static s", "vllm s", "x");
	for (k = 0; k < sizeof(serves) / sizeof(serves[0]); k++) {
		double st, sim;
		if (run_serve(cat, &serves[k], PLAN_STATIC_ENGINE, threads, repeat, &st) ||
		    run_serve(cat, &serves[k], PLAN_DEFAULT_ENGINE, threads, repeat, &sim)) {
			catalog_free(cat);
			return 1;
		}
		printf("%-8s %-10.3f %-10.3f %.2f\n", serves[k].title, st, sim, sim / st);
	}
	catalog_free(cat);
	return 0;
}
