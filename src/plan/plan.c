/*
 * The plan object: its defaults (search_defaults), its run, its lifetime
 * and accessors, and the words that describe a choice.  plan_run() calls
 * space.c, search.c and rank.c in that order; none of them calls back into
 * this file.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/plan_int.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* ---- the plan object ---- */

/*
 * The planner's own defaults: besides model_resolve() (src/model/resolve.c),
 * the one place gpuscope decides what a request left out
 * (docs/architecture.md; docs/plan.md, "Defaults").  The resolver cannot
 * hold them: it resolves one scenario on one GPU, and these are the
 * search's bounds and what it holds fixed across every GPU and layout.
 *
 *   --top 10; --max-gpus 4096; --precision bf16; --threads: every online
 *   CPU; inference --rate 1 request/s and --max-batch 256; the memory
 *   headroom (PLAN_MEMORY_HEADROOM_PCT); the month lifecycles are read
 *   against (the clock's); the amount of work and the global batch
 *   (below).
 *
 * The base's hardware and layout fields are cleared for the search to set;
 * model_config_complete() fills the rest of it (sequence length, inference
 * lengths ...), as it does for estimate.  Left to other modules: --rack-kw
 * and --storage-tb (0: the facility's, cost/bom.c), --utilisation and
 * --years (0: the TCO model's), --checkpoint-every (0: Young's optimum,
 * rank.c's goodput()).
 */
static void search_defaults(struct plan *p)
{
	const struct workload *w = p->req.w;
	struct model_config *b = &p->base;
	int G = b->global_batch;

	if (!p->req.top)
		p->req.top = 10;
	if (p->req.max_gpus <= 0)
		p->req.max_gpus = 4096;
	p->precisions = p->req.precisions ? p->req.precisions : 1u << MODEL_BF16;
	if (p->req.threads <= 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		p->req.threads = n > 0 ? (int)n : 1;
	}
	if (!(p->req.rate_per_s > 0))
		p->req.rate_per_s = 1;
	if (p->req.now_month <= 0)
		p->req.now_month = cat_month_now();
	if (!(p->req.memory_use_pct > 0))
		p->req.memory_use_pct = 100 - PLAN_MEMORY_HEADROOM_PCT;
	p->memory_use = p->req.memory_use_pct / 100;
	if (p->req.max_batch <= 0)
		p->req.max_batch = 256;
	b->gpu = NULL;
	b->gpus = 1;
	b->gpus_per_node = 1;
	b->tp = b->pp = b->dp = b->ep = b->vpp = b->cp = 1;
	b->micro_batch = 1;
	b->flash = -1; /* per GPU, as the resolver decides it (model.h) */
	b->weight_precision = model_default_weight_precision(w, b->task,
							     b->weight_precision >= 0 ? b->weight_precision :
											MODEL_UNSET);
	b->offload = MODEL_OFFLOAD_NONE;
	b->global_batch = 0;
	model_config_complete(w, b);
	b->global_batch = G;
	/*
	 * The amount of work when none is given: 1e9 tokens for a transformer
	 * (the headline fine-tune), one million samples otherwise.
	 */
	if (b->task != MODEL_TASK_INFER && !(b->train_tokens > 0) && !(b->train_samples > 0)) {
		if (w->kind == WORKLOAD_TRANSFORMER)
			b->train_tokens = 1e9;
		else
			b->train_samples = 1e6;
	}
	/*
	 * Global batch, fixed across layouts so every choice trains the same
	 * way (the batch is a training hyper-parameter, not the hardware's to
	 * choose): transformers 2^22 tokens per step for pretraining (4 M,
	 * Llama 1 and 2) and 2^19 for fine-tuning (128 sequences of 4096), in
	 * whole sequences, rounded down to a power of two; per-sample models
	 * 256 samples (the ImageNet ResNet-50 recipe, Goyal et al. 2017's base).
	 */
	if (G > 0) {
		p->global_batch = G;
	} else if (b->task != MODEL_TASK_INFER && w->kind == WORKLOAD_TRANSFORMER) {
		double tokens = b->task == MODEL_TASK_PRETRAIN ? 4194304.0 : 524288.0;
		double seqs = tokens / (b->seq_len > 0 ? b->seq_len : 1);
		int g = 1;
		while ((double)g * 2 <= seqs)
			g *= 2;
		p->global_batch = g;
	} else if (b->task != MODEL_TASK_INFER) {
		p->global_batch = 256;
	} else {
		p->global_batch = 0;
	}
}

/* --autocast on checked against every precision the plan may choose, not only the base's */
static int autocast_check(const struct plan_request *req, struct diag *err)
{
	struct model_config c = req->base;
	unsigned m = req->precisions ? req->precisions : 1u << MODEL_BF16;
	int p;
	for (p = 0; p < MODEL_PRECISION_COUNT; p++) {
		c.precision = p;
		if ((m & 1u << p) && model_autocast_check(&c, err))
			return -1;
	}
	return 0;
}

int plan_run(struct plan **out, const struct catalog *cat, const struct plan_request *req, struct diag *err)
{
	struct plan *p = xcalloc(1, sizeof(*p));
	const char *engine;
	int decoder_infer;
	*out = NULL;
	p->cat = cat;
	p->req = *req;
	p->base = req->base;
	if (!req->w) {
		free(p);
		return diag_set(err, "", 0, 0, "model", "no workload given");
	}
	if (req->memory_use_pct < 0 || req->memory_use_pct > 100) {
		free(p);
		return diag_set(err, "", 0, 0, "memory-headroom",
				"%g %% of each GPU's memory kept free is not 0-100", 100 - req->memory_use_pct);
	}
	if (model_weight_precision_check(req->base.task, -1, req->base.weight_precision, err) ||
	    model_channels_last_check(req->w, req->base.channels_last, err) ||
	    model_mlm_head_check(req->w, &req->base, err) || autocast_check(req, err)) {
		free(p);
		return -1;
	}
	decoder_infer = req->base.task == MODEL_TASK_INFER && req->w->kind == WORKLOAD_TRANSFORMER &&
			req->w->d.causal;
	engine = req->engine ? req->engine : PLAN_DEFAULT_ENGINE;
	if (req->tpot_s > 0 && req->base.task == MODEL_TASK_INFER && !plan_generates(p)) {
		free(p);
		return diag_set(err, "", 0, 0, "tpot-target",
				"%s produces no output tokens (%s), so it has no time per output token; give "
				"--latency-target for a request's latency",
				req->w->name,
				req->w->kind == WORKLOAD_TRANSFORMER ? "an encoder" : "a per-sample network");
	}
	if (decoder_infer && !strcmp(engine, PLAN_STATIC_ENGINE)) {
		/* the static-batch model: batches of a power of two and the M/M/c queue */
		if (req->engine_version) {
			free(p);
			return diag_set(
				err, "", 0, 0, "engine-version",
				"--engine-version names a serving engine's release; --engine static has none");
		}
	} else if (decoder_infer) {
		int e = model_engine_from_name(engine);
		if (e < 0) {
			free(p);
			return diag_set(err, "", 0, 0, "engine", "no engine '%s'; there are %s, or static", engine,
					model_engine_names_text());
		}
		p->engine = (enum model_engine)e;
		p->simulate = model_engine_info(p->engine)->serving;
		if (p->simulate &&
		    servesim_sched_find(model_engine_name(p->engine), req->engine_version, &p->sched, err)) {
			free(p);
			return -1;
		}
	} else if (req->engine_version) {
		free(p);
		return diag_set(err, "", 0, 0, "engine-version",
				"--engine-version applies to a decoder's inference");
	}
	search_defaults(p);
	if (plan_build_space(p, err)) {
		plan_free(p);
		return -1;
	}
	plan_search(p);
	plan_rank(p);
	*out = p;
	return 0;
}

void plan_free(struct plan *p)
{
	size_t i;
	if (!p)
		return;
	for (i = 0; i < p->nitems; i++)
		free(p->items[i].slots);
	free(p->items);
	for (i = 0; i < p->nhw; i++)
		free(p->hw[i].tco);
	free(p->hw);
	servesim_sched_release(&p->sched);
	free(p->fab);
	free(p->net);
	free(p->all);
	free(p->ranked);
	free(p->front);
	free(p->best_on_hw);
	free(p->skipped);
	for (i = 0; i < sizeof(p->skip_lists) / sizeof(p->skip_lists[0]); i++)
		strbuf_release(&p->skip_lists[i]);
	for (i = 0; i < sizeof(p->skip_detail) / sizeof(p->skip_detail[0]); i++)
		strbuf_release(&p->skip_detail[i]);
	free(p);
}

const struct plan_request *plan_request_of(const struct plan *p)
{
	return &p->req;
}
const struct plan_stats *plan_stats(const struct plan *p)
{
	return &p->stats;
}
int plan_global_batch(const struct plan *p)
{
	return p->global_batch;
}
double plan_memory_headroom_pct(const struct plan *p)
{
	return 100 - p->req.memory_use_pct;
}

double plan_memory_limit_bytes(const struct plan *p, const struct model_memory *m)
{
	return p->memory_use * m->capacity_bytes;
}

int plan_memory_fits(const struct plan *p, const struct model_memory *m)
{
	return m->total_bytes <= p->memory_use * m->capacity_bytes;
}
const char *plan_skipped(const struct plan *p)
{
	return p->skipped ? p->skipped : "";
}
const struct model_config *plan_base(const struct plan *p)
{
	return &p->base;
}

double plan_service_years(const struct plan *p)
{
	size_t i;
	/* every owned option's inputs hold the same years (owned_overrides, space.c) */
	for (i = 0; i < p->nhw; i++)
		if (p->hw[i].tco && !p->hw[i].cloud)
			return p->hw[i].tco->value[TCO_IN_YEARS];
	return NAN;
}

double plan_runs_per_year(const struct plan *p)
{
	if (p->base.task == MODEL_TASK_INFER || p->req.buy == PLAN_BUY_CLOUD)
		return 0;
	if (p->req.runs_per_year > 0)
		return p->req.runs_per_year;
	return p->req.buy == PLAN_BUY_ANY ? PLAN_RUNS_PER_YEAR_DEFAULT : 0;
}

double plan_owned_utilisation(const struct plan *p, double util_pct, double hours)
{
	double n = plan_runs_per_year(p), busy;
	if (!(n > 0) || !(hours > 0))
		return util_pct;
	busy = 100 * n * hours / TCO_HOURS_PER_YEAR;
	return busy < util_pct ? busy : util_pct;
}

void plan_searched_words(const struct plan *p, struct strbuf *sb)
{
	const char *tier = cat_tier_name((enum cat_tier)p->req.price_tier);
	double n = plan_runs_per_year(p);

	if (p->req.buy == PLAN_BUY_CLOUD) {
		strbuf_addstr(sb, p->req.provider ? p->req.provider : "cloud instances");
		/* the prices instances are rented at, said unless a provider alone is named at on-demand */
		if (!p->req.provider || p->req.price_tier != CAT_TIER_ON_DEMAND)
			strbuf_addf(sb, " at %s prices", tier);
		return;
	}
	strbuf_addstr(sb, p->req.buy == PLAN_BUY_ANY ? "owned and rented hardware (" : "owned hardware (");
	strbuf_addstr(sb, "catalog servers and generic builds, priced by TCO");
	if (n > 0)
		strbuf_addf(sb, " for %g run%s like this a year (--runs-per-year)", n, n == 1 ? "" : "s");
	if (p->req.buy == PLAN_BUY_ANY)
		strbuf_addf(sb, "; cloud instances at %s prices", tier);
	strbuf_addch(sb, ')');
}

const char *plan_violation_names(unsigned violates, char *buf, size_t len)
{
	/* the rack bit is no constraint of the request's: the answer names the rack (view/plan.c) */
	static const char *const names[PLAN_VIOL_COUNT] = {"deadline", "budget", "power", NULL, "life"};
	size_t o = 0;
	int i;
	buf[0] = 0;
	for (i = 0; i < PLAN_VIOL_COUNT; i++)
		if (names[i] && violates & (1u << i) && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ";" : "", names[i]);
	return buf;
}

const struct plan_hw *plan_hw(const struct plan *p, size_t *n)
{
	*n = p->nhw;
	return p->hw;
}

const struct plan_fabric *plan_fabrics(const struct plan *p, size_t *n)
{
	*n = p->nfab;
	return p->fab;
}

const struct plan_choice *plan_all(const struct plan *p, size_t *n)
{
	*n = p->nall;
	return p->all;
}

/* ---- describing ---- */

const char *plan_layout_code(const struct model_config *c, char *buf, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	if (c->task == MODEL_TASK_INFER) {
		if (c->tp > 1)
			strbuf_addf(&sb, "t%d", c->tp);
		if (c->pp > 1)
			strbuf_addf(&sb, "p%d", c->pp);
		strbuf_addf(&sb, "%sb%d", sb.len ? " " : "", c->batch);
	} else {
		/* degrees of 1 are left out, except dp: "d16", "t2p4v2d8" */
		if (c->tp > 1)
			strbuf_addf(&sb, "t%d", c->tp);
		if (c->cp > 1)
			strbuf_addf(&sb, "c%d", c->cp);
		if (c->pp > 1)
			strbuf_addf(&sb, "p%d", c->pp);
		if (c->vpp > 1)
			strbuf_addf(&sb, "v%d", c->vpp);
		strbuf_addf(&sb, "d%d", c->dp);
		if (c->ep > 1)
			strbuf_addf(&sb, "e%d", c->ep);
		if (c->zero)
			strbuf_addf(&sb, " z%d", c->zero);
		if (c->zero >= 3 && c->hsdp > 0)
			strbuf_addf(&sb, "h%d", c->hsdp);
		if (c->recompute == MODEL_RECOMPUTE_FULL)
			strbuf_addf(&sb, " rf");
		else if (c->recompute == MODEL_RECOMPUTE_SELECTIVE)
			strbuf_addf(&sb, " rs");
		else if (c->recompute == MODEL_RECOMPUTE_SELECTIVE_OP)
			strbuf_addf(&sb, " ro");
		if (c->offload == MODEL_OFFLOAD_OPTIMIZER)
			strbuf_addf(&sb, " oo");
		else if (c->offload == MODEL_OFFLOAD_PARAMS)
			strbuf_addf(&sb, " op");
		if (c->micro_batch > 1)
			strbuf_addf(&sb, " m%d", c->micro_batch);
		if (c->loader == MODEL_LOADER_DALI)
			strbuf_addf(&sb, " dali");
	}
	if (c->precision != MODEL_BF16)
		strbuf_addf(&sb, " %s", model_precision_name(c->precision));
	/* a code is a few dozen bytes; the caller's buffer holds it whole */
	snprintf(buf, len, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	return buf;
}

const char *plan_estimate_args(const struct plan *p, const struct plan_choice *c, char *buf, size_t len)
{
	const struct plan_hw *hw = &p->hw[c->hw];
	const struct model_config *g = &c->cfg;
	int nodes_needed = g->gpus > g->gpus_per_node;
	struct strbuf sb = STRBUF_INIT;

	workload_flags(p->req.w, &sb);
	strbuf_addf(&sb, " --gpu %s", hw->gpu->row.key);
	if (hw->server)
		strbuf_addf(&sb, " --server %s", hw->server->row.key);
	if (nodes_needed && hw->kind == PLAN_HW_GENERIC && c->fabric >= 0 && (size_t)c->fabric < p->nfab)
		strbuf_addf(&sb, " --network %s", p->fab[c->fabric].link->row.key);
	else if (nodes_needed && hw->kind == PLAN_HW_GENERIC && hw->own_link &&
		 cat_has(hw->own_link->bw_gbps_per_dir))
		/* on-die ports: N ports of the link per node */
		strbuf_addf(&sb, " --network %s-%.0fx%.0f", hw->own_link->row.key, hw->own_ports_per_node,
			    hw->own_link->bw_gbps_per_dir * 8);
	else if (nodes_needed && hw->kind == PLAN_HW_CLOUD && hw->cloud && cat_has(hw->cloud->network_gbps))
		/* the instance's network as one adapter, on the fabric whose latency plan used */
		strbuf_addf(&sb, " --network roce-400-1x%g", hw->cloud->network_gbps);
	/* data loading: the CPU cores the search gave the node */
	if (g->cpu_cores_per_gpu > 0 && p->req.w->kind == WORKLOAD_PER_SAMPLE)
		strbuf_addf(&sb, " --cpu-cores %.0f", g->cpu_cores_per_gpu * g->gpus_per_node);
	/* the resolved scenario, every choice spelled out */
	strbuf_addch(&sb, ' ');
	if (p->simulate && g->task == MODEL_TASK_INFER && c->replicas > 0) {
		/*
		 * sized by the serving simulation (search.c served_replicas()): the same
		 * run of one replica, its share of the rate to 17 digits so that it
		 * reads back the same double; no --batch, as the scheduler sets it
		 */
		struct model_config sim = *g;
		sim.batch = 0;
		model_config_flags(p->req.w, &sim, &sb);
		strbuf_addf(
			&sb,
			" --engine-version %s --arrivals poisson:%.17g --requests %d --lengths fixed --seed %d",
			p->sched.version, p->req.rate_per_s / c->replicas, PLAN_SIM_REQUESTS, PLAN_SIM_SEED);
	} else {
		model_config_flags(p->req.w, g, &sb);
	}
	snprintf(buf, len, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	return buf;
}

int plan_generates(const struct plan *p)
{
	return p->req.w->kind == WORKLOAD_TRANSFORMER && p->req.w->d.causal;
}

int plan_replica_nodes(const struct plan *p, const struct plan_choice *c)
{
	int gpn = p->hw[c->hw].gpus_per_node, gpus = c->cfg.tp * c->cfg.pp;
	if (c->cfg.task != MODEL_TASK_INFER)
		return (int)c->nodes;
	return gpn > 0 && gpus > gpn ? (gpus + gpn - 1) / gpn : 1;
}

const char *plan_network_name(const struct plan *p, const struct plan_choice *c, char *buf, size_t len)
{
	const struct plan_hw *hw = &p->hw[c->hw];
	/* serving replicas do not talk to each other: only a replica split over nodes uses a fabric */
	if (plan_replica_nodes(p, c) <= 1)
		snprintf(buf, len, "none");
	else if (c->fabric >= 0 && (size_t)c->fabric < p->nfab)
		snprintf(buf, len, "%s", p->fab[c->fabric].link->row.key);
	else
		snprintf(buf, len, "%s", hw->own_network[0] ? hw->own_network : "own");
	return buf;
}

enum plan_arch plan_arch_of(const struct plan *p, const struct plan_choice *c)
{
	const struct plan_hw *hw = &p->hw[c->hw];
	int nodes = plan_replica_nodes(p, c), gpn = hw->gpus_per_node;
	/* serving: the branch of one replica, as the replicas are independent copies */
	int gpus = c->cfg.task == MODEL_TASK_INFER ? c->cfg.tp * c->cfg.pp : c->gpus;
	if (gpus <= 1)
		return PLAN_ARCH_ONE_GPU;
	if (nodes <= 1)
		return hw->intra_kind == MODEL_LINK_PCIE || hw->intra_kind == MODEL_LINK_NONE ?
			       PLAN_ARCH_NODE_PCIE :
			       PLAN_ARCH_NODE_NVLINK;
	return gpn == 1 ? PLAN_ARCH_NODES_ONE_GPU : PLAN_ARCH_NODES_MANY_GPUS;
}

const char *plan_arch_name(enum plan_arch a)
{
	switch (a) {
	case PLAN_ARCH_ONE_GPU:
		return "one GPU";
	case PLAN_ARCH_NODE_NVLINK:
		return "one node, several GPUs over NVLink";
	case PLAN_ARCH_NODE_PCIE:
		return "one node, several GPUs over PCIe";
	case PLAN_ARCH_NODES_ONE_GPU:
		return "several nodes of one GPU each, over the network";
	case PLAN_ARCH_NODES_MANY_GPUS:
		return "several nodes of several GPUs, over InfiniBand or RoCE";
	default:
		return "?";
	}
}
