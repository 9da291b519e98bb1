/*
 * The plan search: exactness of its pruning against a brute-force scan,
 * independence from the thread count, the ranking and the front, the
 * constraints and the answers when nothing meets them, cloud and GPU
 * filters, inference, and the report.
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
#include <strings.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "model/model.h"
#include "plan/plan.h"
#include "plan/plan_int.h"
#include "util/strbuf.h"

static struct catalog *cat;

static int setup(void **state)
{
	struct diag err;
	(void)state;
	diag_clear(&err);
	if (catalog_load(&cat, NULL, &err)) {
		fprintf(stderr, "catalog: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	catalog_free(cat);
	return 0;
}

static void workload(struct workload *w, const char *name)
{
	struct diag err;
	diag_clear(&err);
	if (workload_preset(w, name, &err))
		fail_msg("preset %s: %s", name, err.msg);
}

static void request(struct plan_request *req, const struct workload *w, enum model_task task)
{
	memset(req, 0, sizeof(*req));
	req->w = w;
	model_config_defaults(&req->base);
	req->base.task = task;
	req->objective = PLAN_OBJ_COST;
	req->max_gpus = 4096;
	req->threads = 2;
}

static struct plan *run(const struct plan_request *req)
{
	struct plan *p;
	struct diag err;
	diag_clear(&err);
	if (plan_run(&p, cat, req, &err))
		fail_msg("plan_run: %s: %s", err.field, err.msg);
	return p;
}

static const struct cat_gpu *gpu(const char *key)
{
	const struct cat_gpu *g = catalog_get(cat, CAT_GPUS, key);
	if (!g)
		fail_msg("no gpu %s in the catalog", key);
	return g;
}

/* request() on one GPU type (held in *g1, which must outlive the request), up to max_gpus. */
static void request_on(struct plan_request *req, const struct workload *w, enum model_task task,
		       const struct cat_gpu **g1, const char *key, int max_gpus)
{
	request(req, w, task);
	*g1 = gpu(key);
	req->gpus = g1;
	req->ngpus = 1;
	req->max_gpus = max_gpus;
}

/*
 * The headline plan ranks ten GPU types, every choice is a valid estimate
 * configuration that fits, ranks are in objective order, and the front is a
 * true Pareto front of everything that meets the constraints.
 */
static void test_default_plan(void **state)
{
	struct workload w;
	struct plan_request req;
	struct plan *p;
	size_t i, j, n, nall;
	const struct plan_choice *all;
	(void)state;

	workload(&w, "llama2-7b");
	request(&req, &w, MODEL_TASK_FINETUNE);
	p = run(&req);
	n = plan_nranked(p);
	assert_int_equal(n, 10);
	for (i = 0; i < n; i++) {
		const struct plan_choice *c = plan_ranked(p, i);
		struct diag err;
		diag_clear(&err);
		assert_true(c->fits);
		assert_int_equal(c->violates, 0);
		assert_true(c->res.mem.total_bytes <= c->res.mem.capacity_bytes);
		if (model_config_check(&w, &c->cfg, &err))
			fail_msg("choice %zu fails model_config_check: %s: %s", i, err.field, err.msg);
		assert_true(c->hours > 0 && c->cost_usd > 0 && c->energy_kwh > 0);
		/* the time to finish is the model's time over the goodput (checkpoints, interruptions) */
		assert_true(c->gp.goodput > 0 && c->gp.goodput <= 1);
		assert_true(fabs(c->hours * 3600 * c->gp.goodput - c->res.time_to_train_s) <
			    1e-6 * c->res.time_to_train_s);
		assert_true(c->has_bom && c->bom.capex_usd > 0 && c->bom.racks >= 1);
		/* in objective order, but for bigger purchases kept below the first server (plan_demoted) */
		if (i && !plan_demoted(p, c, plan_ranked(p, 0)) &&
		    !plan_demoted(p, plan_ranked(p, i - 1), plan_ranked(p, 0)))
			assert_true(plan_ranked(p, i - 1)->score <= c->score);
		for (j = 0; j < i; j++)
			assert_ptr_not_equal(plan_hw(p, &nall)[plan_ranked(p, j)->hw].gpu,
					     plan_hw(p, &nall)[c->hw].gpu);
	}
	/* the first choice is the cheapest of everything that fits */
	all = plan_all(p, &nall);
	for (i = 0; i < nall; i++)
		if (all[i].fits && !plan_demoted(p, &all[i], plan_ranked(p, 0)))
			assert_true(all[i].cost_usd >= plan_ranked(p, 0)->cost_usd);
	/* the front: fastest first, strictly cheaper, and nothing dominates a member */
	assert_true(plan_nfront(p) >= 2);
	for (i = 0; i < plan_nfront(p); i++) {
		const struct plan_choice *f = plan_front(p, i);
		assert_true(plan_on_front(p, f));
		if (i) {
			assert_true(plan_front(p, i - 1)->hours <= f->hours);
			assert_true(plan_front(p, i - 1)->cost_usd > f->cost_usd);
		}
		for (j = 0; j < nall; j++) {
			const struct plan_choice *o = &all[j];
			if (!o->fits || o->violates || o == f)
				continue;
			if (o->hours <= f->hours && o->cost_usd <= f->cost_usd)
				assert_true(o->hours == f->hours && o->cost_usd == f->cost_usd);
		}
	}
	assert_ptr_equal(plan_nearest_miss(p), NULL);
	plan_free(p);
}

/* The answer, slot by slot, is the same on 1 and 3 threads. */
static void test_threads(void **state)
{
	struct workload w;
	struct plan_request req;
	struct plan *a, *b;
	size_t i, na, nb;
	const struct plan_choice *ca, *cb;
	(void)state;

	workload(&w, "llama2-13b");
	request(&req, &w, MODEL_TASK_PRETRAIN);
	req.max_gpus = 512;
	req.objective = PLAN_OBJ_BALANCED;
	req.threads = 1;
	a = run(&req);
	req.threads = 3;
	b = run(&req);
	ca = plan_all(a, &na);
	cb = plan_all(b, &nb);
	assert_int_equal(na, nb);
	for (i = 0; i < na; i++) {
		assert_int_equal(ca[i].hw, cb[i].hw);
		assert_int_equal(ca[i].nodes, cb[i].nodes);
		assert_int_equal(ca[i].fits, cb[i].fits);
		assert_int_equal(ca[i].fabric, cb[i].fabric);
		if (!ca[i].fits)
			continue;
		assert_true(ca[i].res.time.step_s == cb[i].res.time.step_s);
		assert_true(ca[i].cost_usd == cb[i].cost_usd);
		assert_int_equal(ca[i].cfg.tp, cb[i].cfg.tp);
		assert_int_equal(ca[i].cfg.pp, cb[i].cfg.pp);
		assert_int_equal(ca[i].cfg.vpp, cb[i].cfg.vpp);
		assert_int_equal(ca[i].cfg.zero, cb[i].cfg.zero);
		assert_int_equal(ca[i].cfg.recompute, cb[i].cfg.recompute);
		assert_int_equal(ca[i].cfg.micro_batch, cb[i].cfg.micro_batch);
	}
	assert_int_equal(plan_nranked(a), plan_nranked(b));
	for (i = 0; i < plan_nranked(a); i++)
		assert_int_equal(plan_ranked(a, i) - ca, plan_ranked(b, i) - cb);
	assert_int_equal(plan_nfront(a), plan_nfront(b));
	for (i = 0; i < plan_nfront(a); i++)
		assert_int_equal(plan_front(a, i) - ca, plan_front(b, i) - cb);
	plan_free(a);
	plan_free(b);
}

/*
 * One layout of a brute-force scan: its step time when it fits the GPU with
 * the plan's headroom kept free (and the host), else INFINITY.
 */
static double brute_time(const struct plan *p, const struct workload *w, struct model_config *cfg, double host_gib,
			 int *fits_gpu)
{
	struct model_result r;
	*fits_gpu = 0;
	if (model_estimate(w, cfg, &r) || !plan_memory_fits(p, &r.mem))
		return INFINITY;
	*fits_gpu = 1;
	if (!model_host_fits(&r.mem, cfg, host_gib) || !(r.time.step_s > 0))
		return INFINITY;
	return r.time.step_s;
}

/*
 * One (layout, micro-batch) of the brute force over recompute and offload:
 * recompute none first; every other granularity only where none does not
 * fit with the same offload; each offload level only where the lighter
 * level does not fit with the same recompute (basic: recompute none and
 * full everywhere, no offload).  A level left out because a lighter one
 * fits, fits.
 */
static double brute_memory_levels(const struct plan *p, const struct workload *w, struct model_config *cfg,
				  double host_gib, int zero, int basic)
{
	double best = INFINITY;
	int none_fits[MODEL_OFFLOAD_COUNT], rc, off, noff = basic ? 1 : zero == 3 ? 3 : 2;
	for (rc = 0; rc < MODEL_RECOMPUTE_COUNT; rc++) {
		int fits_prev = 0;
		cfg->recompute = (enum model_recompute)rc;
		if (rc == MODEL_RECOMPUTE_SELECTIVE && (basic || model_flash_on(cfg)))
			continue;
		if (rc == MODEL_RECOMPUTE_SELECTIVE_OP && basic)
			continue;
		for (off = 0; off < noff; off++) {
			int fits = 1;
			if (!(off && fits_prev) && (rc == MODEL_RECOMPUTE_NONE || basic || !none_fits[off])) {
				double t;
				cfg->offload = (enum model_offload)off;
				t = brute_time(p, w, cfg, off ? host_gib : 0, &fits);
				if (t < best)
					best = t;
			}
			if (rc == MODEL_RECOMPUTE_NONE)
				none_fits[off] = fits;
			fits_prev = fits;
		}
	}
	cfg->offload = MODEL_OFFLOAD_NONE;
	return best;
}

/*
 * Brute force: the fastest fitting layout of one slot on one network, by
 * the rules of docs/plan.md, written out independently of search.c: tp
 * divides the heads and the MLP and lies inside a node or across whole
 * nodes; pp divides the layers; cp cuts the sequence into equal chunks of
 * at least 1024 tokens (2 per rank) with flash attention, at micro-batch 1;
 * every vpp dividing layers / pp; ZeRO 0-3; every micro-batch dividing the
 * per-replica batch; recompute and offload as brute_memory_levels() says;
 * offloaded state within the server's host memory.  basic: the narrower
 * space (plan_request.basic_layouts).
 */
static double brute_slot(const struct plan *p, const struct workload *w, const struct plan_choice *c, int fabric,
			 int G, int basic)
{
	size_t nhw;
	const struct plan_hw *hw = plan_hw(p, &nhw) + c->hw;
	double host_gib = hw->server && hw->server->ram_gib > 0 ? hw->server->ram_gib : 0;
	struct model_config cfg;
	double best = INFINITY;
	int tp, pp, cp, vpp, zero, mb, gpn = hw->gpus_per_node;

	plan_slot_config(p, c, fabric, &cfg);
	for (tp = 1; tp <= c->gpus; tp++) {
		if (w->d.heads % tp || w->d.ffn_hidden % tp || c->gpus % tp)
			continue;
		if (gpn % tp && (basic || tp % gpn))
			continue;
		for (pp = 1; pp <= w->d.layers; pp++)
			for (cp = 1; cp <= c->gpus; cp++) {
				int dp;
				if (w->d.layers % pp || c->gpus % (tp * pp * cp))
					continue;
				if (cp > 1 && (basic || !model_flash_on(&cfg) || cfg.seq_len < cp * 1024 ||
					       cfg.seq_len % (2 * cp)))
					continue;
				dp = c->gpus / (tp * pp * cp);
				if (G % dp)
					continue;
				for (vpp = 1; vpp <= (pp > 1 ? w->d.layers / pp : 1); vpp++) {
					if (w->d.layers % (pp * vpp) ||
					    (basic && vpp != 1 && vpp != 2 && vpp != 4))
						continue;
					for (zero = 0; zero < (dp * cp > 1 ? 4 : 1); zero++)
						for (mb = 1; (long)mb * dp <= G && mb <= (cp > 1 ? 1 : 1024);
						     mb++) {
							double t;
							if (G % (mb * dp) || (basic && (mb & (mb - 1))))
								continue;
							cfg.tp = tp;
							cfg.pp = pp;
							cfg.cp = cp;
							cfg.vpp = vpp;
							cfg.dp = dp;
							cfg.ep = 1;
							cfg.zero = zero;
							cfg.micro_batch = mb;
							cfg.global_batch = G;
							cfg.seq_parallel = tp > 1;
							t = brute_memory_levels(p, w, &cfg, host_gib, zero, basic);
							if (t < best)
								best = t;
						}
				}
			}
	}
	return best;
}

/*
 * The pruned search gives every slot the step time an exhaustive scan
 * gives, and picks the slowest fabric within 2 % of the fastest.
 */
static void test_exact_against_brute_force(void **state)
{
	struct workload w;
	struct plan_request req;
	struct plan *p;
	const struct cat_gpu *gpus[2];
	size_t i, nall, nhw, nfab, checked = 0, multi = 0;
	const struct plan_choice *all;
	(void)state;

	workload(&w, "llama2-7b");
	request(&req, &w, MODEL_TASK_FINETUNE);
	gpus[0] = gpu("a100-sxm4-80gb");
	gpus[1] = gpu("l40s-48gb");
	req.gpus = gpus;
	req.ngpus = 2;
	req.max_gpus = 32;
	p = run(&req);
	all = plan_all(p, &nall);
	plan_hw(p, &nhw);
	plan_fabrics(p, &nfab);
	for (i = 0; i < nall; i++) {
		const struct plan_choice *c = &all[i];
		const struct plan_hw *hw = plan_hw(p, &nhw) + c->hw;
		int G = plan_global_batch(p);
		if (c->nodes > 1 && hw->kind == PLAN_HW_GENERIC) {
			double t[64], fastest = INFINITY;
			size_t f;
			int pick = -1;
			assert_true(nfab <= 64);
			for (f = 0; f < nfab; f++) {
				/* NICs faster than the host feeds are not searched */
				t[f] = plan_fabric_allowed(p, c->hw, f) ? brute_slot(p, &w, c, (int)f, G, 0) :
									  INFINITY;
				if (t[f] < fastest)
					fastest = t[f];
			}
			{
				/* within 2 % of the fastest, the fabric cheapest to buy */
				unsigned char ok[64];
				for (f = 0; f < nfab; f++)
					ok[f] = isfinite(t[f]);
				pick = plan_pick_fabric(p, c->hw, c->nodes, t, ok, nfab);
			}
			if (!isfinite(fastest)) {
				assert_false(c->fits);
				continue;
			}
			assert_true(c->fits);
			assert_int_equal(c->fabric, pick);
			assert_true(c->res.time.step_s == t[pick]);
			multi++;
		} else {
			double t = brute_slot(p, &w, c, -1, G, 0);
			if (!isfinite(t)) {
				assert_false(c->fits);
				continue;
			}
			assert_true(c->fits);
			if (c->res.time.step_s != t)
				fail_msg("slot %zu (%s x %u): search %.17g, brute force %.17g", i, hw->key,
					 c->nodes, c->res.time.step_s, t);
		}
		checked++;
	}
	assert_true(checked >= 10);
	assert_true(multi >= 3);
	plan_free(p);
}

/*
 * A GB200 NVL72 rack (72 = 9 x 8 GPUs) lays out no power-of-two batch: with
 * spares allowed it trains on 64 GPUs, exactly as a brute-force scan of 64
 * does, while the bill, the cost and the energy count all 72; with
 * --no-spares nothing is ranked and the reason names the batches that work.
 */
static void test_spares(void **state)
{
	struct workload w;
	struct plan_request req;
	struct plan *p;
	const struct cat_gpu *g1;
	const struct plan_choice *c, *all;
	size_t i, nall, nhw, checked = 0;
	char why[768];
	(void)state;

	workload(&w, "llama3-8b");
	request_on(&req, &w, MODEL_TASK_PRETRAIN, &g1, "gb200-186gb", 144);
	req.base.train_tokens = 1e12;
	p = run(&req);
	assert_int_equal(plan_global_batch(p), 512);
	assert_true(plan_nranked(p) >= 1);
	c = plan_ranked(p, 0);
	{
		const struct plan_hw *hw = plan_hw(p, &nhw) + c->hw;
		double idle_w = hw->gpu->idle_w > 0 ? hw->gpu->idle_w : 0.12 * hw->gpu->tdp_w;
		assert_non_null(hw->server);
		assert_int_equal(hw->spare_per_node, 8);
		assert_int_equal(hw->gpus_per_node, 64);
		assert_int_equal(c->gpus, (int)c->nodes * hw->gpus_per_node);
		assert_int_equal(c->cfg.gpus, c->gpus);
		assert_int_equal(plan_global_batch(p) % c->cfg.dp, 0);
		assert_true(c->bom.gpus == (double)c->nodes * (hw->gpus_per_node + hw->spare_per_node));
		/* the spares idle through the run: their energy on top of the model's */
		assert_true(fabs(c->energy_kwh - c->res.energy_kwh / c->gp.goodput -
				 c->nodes * hw->spare_per_node * idle_w / 1000 * c->hours) <=
			    1e-9 * c->energy_kwh);
	}
	all = plan_all(p, &nall);
	for (i = 0; i < nall; i++) {
		const struct plan_hw *hw = plan_hw(p, &nhw) + all[i].hw;
		double t;
		if (!hw->spare_per_node || all[i].nodes > 1)
			continue;
		t = brute_slot(p, &w, &all[i], -1, plan_global_batch(p), 0);
		assert_true(isfinite(t));
		assert_true(all[i].fits);
		if (all[i].res.time.step_s != t)
			fail_msg("%s: search %.17g, brute force %.17g", hw->key, all[i].res.time.step_s, t);
		checked++;
	}
	assert_int_equal(checked, 1); /* the NVL72 rack's 64 + 8; generic builds have no spares */
	assert_int_equal(plan_no_layout_reason(p, why, sizeof(why)), 0);
	plan_free(p);

	req.no_spares = 1;
	p = run(&req);
	assert_int_equal(plan_nranked(p), 0);
	assert_null(plan_closest_fit(p));
	assert_int_equal(plan_no_layout_reason(p, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "no layout of 72 GPUs (1x72 gb200-nvl72)"));
	assert_non_null(strstr(why, "try --global-batch 504 or 576"));
	plan_free(p);
}

/* The narrower space is searched exactly too: the brute force of its rules agrees slot by slot. */
static void test_basic_space_exact(void **state)
{
	struct workload w;
	struct plan_request req;
	struct plan *p;
	const struct cat_gpu *g1;
	size_t i, nall, nhw, checked = 0;
	const struct plan_choice *all;
	(void)state;

	workload(&w, "llama2-7b");
	request_on(&req, &w, MODEL_TASK_FINETUNE, &g1, "a100-sxm4-80gb", 16);
	req.basic_layouts = 1;
	p = run(&req);
	all = plan_all(p, &nall);
	for (i = 0; i < nall; i++) {
		const struct plan_choice *c = &all[i];
		const struct plan_hw *hw = plan_hw(p, &nhw) + c->hw;
		double t;
		if (c->nodes > 1 && hw->kind == PLAN_HW_GENERIC)
			continue; /* the fabric choice is test_exact_against_brute_force's */
		t = brute_slot(p, &w, c, -1, plan_global_batch(p), 1);
		assert_int_equal(c->fits, isfinite(t));
		if (c->fits && c->res.time.step_s != t)
			fail_msg("slot %zu (%s x %u): basic search %.17g, brute force %.17g", i, hw->key, c->nodes,
				 c->res.time.step_s, t);
		checked++;
	}
	assert_true(checked >= 5);
	plan_free(p);
}

/* Plans req in the narrower space (*pb, its slots *ab) and the full one (*pf, *af); returns the slot count. */
static size_t run_both(struct plan_request *req, struct plan **pb, struct plan **pf, const struct plan_choice **ab,
		       const struct plan_choice **af)
{
	size_t nb, nf;
	req->basic_layouts = 1;
	*pb = run(req);
	req->basic_layouts = 0;
	*pf = run(req);
	*ab = plan_all(*pb, &nb);
	*af = plan_all(*pf, &nf);
	assert_int_equal(nb, nf);
	return nf;
}

/*
 * The full space holds the narrower one, so no slot gets slower; and where
 * the per-replica batch has odd divisors the best micro-batch may be one of
 * them: 80 sequences on 8 B200s run 10 per replica, best as 5 per
 * micro-batch, which powers of two cannot give.
 */
static void test_micro_batch_divisors(void **state)
{
	struct workload w;
	struct plan_request req;
	struct plan *pb, *pf;
	const struct cat_gpu *g1;
	const struct plan_choice *ab, *af, *best = NULL;
	size_t i, nf;
	(void)state;

	workload(&w, "llama2-7b");
	request_on(&req, &w, MODEL_TASK_FINETUNE, &g1, "b200-sxm-180gb", 8);
	req.base.global_batch = 80;
	nf = run_both(&req, &pb, &pf, &ab, &af);
	assert_int_equal(plan_global_batch(pf), 80);
	assert_true(plan_stats(pf)->layouts > plan_stats(pb)->layouts);
	for (i = 0; i < nf; i++) {
		assert_true(af[i].fits >= ab[i].fits);
		if (!ab[i].fits)
			continue;
		assert_true(af[i].res.time.step_s <= ab[i].res.time.step_s);
		assert_true(af[i].layouts > ab[i].layouts);
		if (af[i].gpus == 8 && (!best || af[i].res.time.step_s < best->res.time.step_s))
			best = &af[i];
	}
	assert_non_null(best);
	assert_int_equal(best->cfg.micro_batch, 5);
	assert_true(best->res.time.step_s < ab[best - af].res.time.step_s);
	plan_free(pb);
	plan_free(pf);
}

/*
 * Context parallelism for long sequences: Llama 3 8B on 524,288-token
 * sequences on up to 64 H100s.  Without it (the narrower space: no cp, TP
 * inside a node, no offload) nothing fits, the logits of one sequence alone
 * outgrowing a GPU at tp 8; with it the search splits each sequence over
 * cp GPUs and the first choice does so.
 */
static void test_long_context(void **state)
{
	struct workload w;
	struct plan_request req;
	struct plan *pb, *pf;
	const struct cat_gpu *g1;
	const struct plan_choice *ab, *af, *first;
	size_t i, nf, newly = 0;
	(void)state;

	workload(&w, "llama3-8b");
	request_on(&req, &w, MODEL_TASK_PRETRAIN, &g1, "h100-sxm5-80gb", 64);
	req.base.seq_len = 524288;
	nf = run_both(&req, &pb, &pf, &ab, &af);
	for (i = 0; i < nf; i++) {
		assert_false(ab[i].fits);
		if (af[i].fits && af[i].cfg.cp > 1)
			newly++;
	}
	assert_true(newly >= 1);
	assert_null(plan_ranked(pb, 0));
	first = plan_ranked(pf, 0);
	assert_non_null(first);
	assert_true(first->cfg.cp > 1);
	assert_int_equal(first->cfg.seq_len % (2 * first->cfg.cp), 0);
	plan_free(pb);
	plan_free(pf);
}

/*
 * The bound the search prunes with: links of plan_bound_links() (nodes at
 * least as large, scale-out and host links at least as fast, latency no
 * higher) never time a layout slower than real ones, tensor parallelism
 * across nodes, offload and every recompute granularity included.
 */
static void test_bound_links(void **state)
{
	struct workload w;
	static const char *const gpus[] = {"h100-sxm5-80gb", "a100-pcie-80gb", "l4-24gb", "mi300x-192gb"};
	static const char *const nets[] = {"roce-100", "ib-hdr", "ib-ndr"};
	unsigned seed = 12345;
	int k, tried = 0, across = 0, ring = 0;
	(void)state;

	workload(&w, "llama2-13b");
	for (k = 0; k < 1500; k++) {
		struct model_config real, bound;
		struct model_result rr, rb;
		struct diag err;
		int gpn = 1 << (rand_r(&seed) % 4), nodes = 1 << (rand_r(&seed) % 4), gpn_b;
		double lat;
		model_config_defaults(&real);
		real.task = MODEL_TASK_PRETRAIN;
		real.gpu = gpu(gpus[rand_r(&seed) % 4]);
		real.gpus_per_node = gpn;
		real.gpus = gpn * nodes;
		diag_clear(&err);
		if (model_links_from_catalog(&real, cat, NULL, nodes > 1 ? nets[rand_r(&seed) % 3] : NULL, &err))
			continue;
		real.host_gbps = 16 + rand_r(&seed) % 48;
		real.tp = 1 << (rand_r(&seed) % 5);
		if (real.tp > real.gpus)
			real.tp = real.gpus;
		real.pp = 1 << (rand_r(&seed) % 3);
		real.cp = 1 << (rand_r(&seed) % 3);
		if (real.gpus % (real.tp * real.pp * real.cp))
			continue;
		real.dp = real.gpus / (real.tp * real.pp * real.cp);
		real.zero = rand_r(&seed) % 4;
		real.recompute = (enum model_recompute)(rand_r(&seed) % MODEL_RECOMPUTE_COUNT);
		real.offload = (enum model_offload)(rand_r(&seed) % (real.zero == 3 ? 3 : 2));
		real.micro_batch = 1 + rand_r(&seed) % 6;
		real.global_batch = real.micro_batch * real.dp * (1 + rand_r(&seed) % 8);
		real.seq_len = 4096;
		real.seq_parallel = real.tp > 1;
		real.vpp = real.pp > 1 ? 1 + rand_r(&seed) % 4 : 1;
		if (model_config_check(&w, &real, &err))
			continue;
		bound = real;
		gpn_b = gpn << (rand_r(&seed) % 3);
		lat = real.inter_lat_us > 0 ? real.inter_lat_us : 2;
		plan_bound_links(&bound, gpn_b,
				 (real.inter_gbps_per_gpu > 0 ? real.inter_gbps_per_gpu : 0.01) *
					 (1 + (rand_r(&seed) % 3) * 0.5),
				 lat * (rand_r(&seed) % 2 ? 1 : 0.5), real.host_gbps * (1 + rand_r(&seed) % 2));
		assert_int_equal(model_estimate(&w, &real, &rr), 0);
		assert_int_equal(model_estimate(&w, &bound, &rb), 0);
		/* offloaded parameters: the step is not monotone in the links; the bound is the compute (search.c) */
		if (real.offload == MODEL_OFFLOAD_PARAMS)
			rb.time.step_s = rb.time.compute_s;
		if (!(rb.time.step_s <= rr.time.step_s))
			fail_msg(
				"bound %.17g > real %.17g (%s, %d x %d, tp %d cp %d pp %d vpp %d zero %d rc %d offload %d)",
				rb.time.step_s, rr.time.step_s, real.gpu->row.key, nodes, gpn, real.tp, real.cp,
				real.pp, real.vpp, real.zero, real.recompute, real.offload);
		assert_true(rb.mem.total_bytes == rr.mem.total_bytes);
		tried++;
		across += real.tp > gpn;
		ring += real.cp > 1;
	}
	assert_true(tried >= 200);
	assert_true(across >= 20);
	assert_true(ring >= 50);
}

/* A deadline nothing meets: no ranking, but the nearest miss. */
static void test_impossible_deadline(void **state)
{
	struct workload w;
	struct plan_request req;
	struct plan *p;
	const struct plan_choice *m;
	(void)state;

	workload(&w, "llama3-70b");
	request(&req, &w, MODEL_TASK_PRETRAIN);
	req.base.train_tokens = 15e12;
	req.deadline_s = 3600;
	p = run(&req);
	assert_int_equal(plan_nranked(p), 0);
	assert_int_equal(plan_nfront(p), 0);
	m = plan_nearest_miss(p);
	assert_non_null(m);
	assert_true(m->miss > 1);
	assert_true(m->violates & PLAN_VIOL_DEADLINE);
	/* the nearest miss is the fastest configuration when time is the only constraint */
	assert_ptr_equal(m, plan_fastest(p));
	plan_free(p);
}

static void test_budget_below_cheapest(void **state)
{
	struct workload w;
	struct plan_request req;
	struct plan *p;
	const struct plan_choice *m;
	(void)state;

	workload(&w, "llama2-7b");
	request(&req, &w, MODEL_TASK_FINETUNE);
	req.budget_usd = 1;
	p = run(&req);
	assert_int_equal(plan_nranked(p), 0);
	m = plan_nearest_miss(p);
	assert_non_null(m);
	assert_true(m->violates & PLAN_VIOL_BUDGET);
	/* owned hardware: the budget caps the purchase, so the nearest miss is the smallest one */
	assert_ptr_equal(m, plan_least_committed(p));
	assert_true(m->has_bom && m->bom.capex_usd == plan_committed_usd(p, m));
	plan_free(p);
}

/* A budget and a deadline that can both be met filter, not empty, the ranking. */
static void test_constraints_filter(void **state)
{
	struct workload w;
	struct plan_request req;
	struct plan *p;
	size_t i;
	(void)state;

	workload(&w, "llama2-7b");
	request(&req, &w, MODEL_TASK_FINETUNE);
	req.deadline_s = 3600;
	req.budget_usd = 1e6; /* to buy */
	req.power_kw = 50;
	req.objective = PLAN_OBJ_TIME;
	p = run(&req);
	assert_true(plan_nranked(p) > 0);
	for (i = 0; i < plan_nranked(p); i++) {
		const struct plan_choice *c = plan_ranked(p, i);
		assert_true(c->hours <= 1.0 + 1e-12);
		assert_true(c->has_bom && c->bom.capex_usd <= 1e6);
		assert_true(c->power_kw <= 50);
		assert_true(c->miss <= 1);
	}
	plan_free(p);
}

static void test_cloud(void **state)
{
	struct workload w;
	struct plan_request req;
	struct plan *p;
	size_t i, nhw;
	const struct plan_hw *hw;
	(void)state;

	workload(&w, "llama2-13b");
	request(&req, &w, MODEL_TASK_FINETUNE);
	req.buy = PLAN_BUY_CLOUD;
	req.provider = "aws";
	p = run(&req);
	hw = plan_hw(p, &nhw);
	assert_true(nhw > 3);
	for (i = 0; i < nhw; i++) {
		assert_int_equal(hw[i].kind, PLAN_HW_CLOUD);
		assert_string_equal(hw[i].cloud->provider, "aws");
		/* on-demand price, shared by the instance's GPUs */
		assert_true(fabs(hw[i].cost.usd_per_gpu_hour * hw[i].cloud->gpu_count -
				 hw[i].cloud->usd_per_hour) < 1e-9);
	}
	assert_true(plan_nranked(p) > 0);
	for (i = 0; i < plan_nranked(p); i++) {
		const struct plan_choice *c = plan_ranked(p, i);
		double want = hw[c->hw].cloud->usd_per_hour * c->nodes * c->hours;
		assert_true(fabs(c->cost_usd - want) < 1e-9 * want);
	}
	plan_free(p);
}

static void test_filters(void **state)
{
	struct workload w;
	struct plan_request req;
	struct plan *p;
	struct diag err;
	size_t i, nhw;
	const struct plan_hw *hw;
	const struct cat_gpu *only[1];
	(void)state;

	workload(&w, "llama2-7b");
	request(&req, &w, MODEL_TASK_FINETUNE);
	req.ecosystem = "rocm";
	p = run(&req);
	hw = plan_hw(p, &nhw);
	assert_true(nhw > 0);
	for (i = 0; i < nhw; i++)
		assert_string_equal(hw[i].gpu->vendor, "amd");
	plan_free(p);

	request(&req, &w, MODEL_TASK_FINETUNE);
	only[0] = gpu("h100-sxm5-80gb");
	req.gpus = only;
	req.ngpus = 1;
	req.servers_only = 1;
	p = run(&req);
	hw = plan_hw(p, &nhw);
	assert_true(nhw >= 2);
	for (i = 0; i < nhw; i++) {
		assert_ptr_equal(hw[i].gpu, only[0]);
		assert_int_equal(hw[i].kind, PLAN_HW_SERVER);
	}
	plan_free(p);

	/* a provider with no instances is a usage error naming the flag */
	request(&req, &w, MODEL_TASK_FINETUNE);
	req.buy = PLAN_BUY_CLOUD;
	req.provider = "nosuchcloud";
	diag_clear(&err);
	assert_int_equal(plan_run(&p, cat, &req, &err), -1);
	assert_string_equal(err.field, "buy");
}

/* Nothing fits: no ranking and no miss, but the closest fit and what it needs. */
static void test_nothing_fits(void **state)
{
	struct workload w;
	struct plan_request req;
	struct plan *p;
	const struct plan_choice *f;
	(void)state;

	workload(&w, "llama3-405b");
	request(&req, &w, MODEL_TASK_PRETRAIN);
	req.max_gpus = 2;
	p = run(&req);
	assert_int_equal(plan_nranked(p), 0);
	assert_ptr_equal(plan_nearest_miss(p), NULL);
	f = plan_closest_fit(p);
	assert_non_null(f);
	assert_true(f->min_bytes > 100e9);
	plan_free(p);
}

static void test_inference(void **state)
{
	struct workload w;
	struct plan_request req;
	struct plan *p;
	size_t i;
	(void)state;

	workload(&w, "gnn");
	request(&req, &w, MODEL_TASK_INFER);
	req.rate_per_s = 20000;
	req.deadline_s = 5e-3;
	req.max_batch = 32;
	p = run(&req);
	assert_true(plan_nranked(p) > 0);
	for (i = 0; i < plan_nranked(p); i++) {
		const struct plan_choice *c = plan_ranked(p, i);
		assert_true(c->latency_s <= 5e-3);
		assert_true(c->cfg.batch >= 1 && c->cfg.batch <= 32);
		assert_true(c->replicas * c->res.samples_per_s >= 20000 * (1 - 1e-9));
		assert_true(fabs(c->hours - 1) < 1e-12);
	}
	plan_free(p);

	workload(&w, "llama2-70b");
	request(&req, &w, MODEL_TASK_INFER);
	req.rate_per_s = 10;
	p = run(&req);
	assert_true(plan_nranked(p) > 0);
	for (i = 0; i < plan_nranked(p); i++) {
		const struct plan_choice *c = plan_ranked(p, i);
		assert_true(c->res.mem.fits);
		assert_true(c->replicas * c->res.samples_per_s >= 10 * (1 - 1e-9));
		assert_int_equal(c->gpus, c->replicas * c->cfg.tp * c->cfg.pp);
	}
	plan_free(p);
}

/* MoE: expert parallelism is searched and stays within data parallelism. */
static void test_moe(void **state)
{
	struct workload w;
	struct plan_request req;
	struct plan *p;
	size_t i, nall, with_ep = 0;
	const struct plan_choice *all;
	(void)state;

	workload(&w, "mixtral-8x7b");
	request(&req, &w, MODEL_TASK_PRETRAIN);
	req.max_gpus = 256;
	req.objective = PLAN_OBJ_TIME;
	p = run(&req);
	assert_true(plan_nranked(p) > 0);
	all = plan_all(p, &nall);
	for (i = 0; i < nall; i++) {
		struct diag err;
		if (!all[i].fits)
			continue;
		diag_clear(&err);
		if (model_config_check(&w, &all[i].cfg, &err))
			fail_msg("%s: %s", err.field, err.msg);
		with_ep += all[i].cfg.ep > 1;
	}
	assert_true(with_ep > 0);
	plan_free(p);
}

static void test_explain(void **state)
{
	struct workload w;
	struct plan_request req;
	struct plan *p;
	struct plan_explanation ex;
	const struct plan_choice *c;
	size_t i, nall;
	int tier = 0;
	double cheapest_demoted = INFINITY;
	const struct plan_choice *all;
	(void)state;

	workload(&w, "llama2-7b");
	request(&req, &w, MODEL_TASK_FINETUNE);
	p = run(&req);
	c = plan_ranked(p, 0);
	/* a bigger purchase kept below the first choice (a GB200 NVL72 rack) may cost less to run */
	all = plan_all(p, &nall);
	for (i = 0; i < nall; i++)
		if (all[i].fits && plan_demoted(p, &all[i], c) && all[i].cost_usd < cheapest_demoted)
			cheapest_demoted = all[i].cost_usd;
	assert_int_equal(plan_explain(p, c, &ex), 0);
	assert_int_equal(ex.arch, plan_arch_of(p, c));
	assert_true(strlen(ex.arch_text) > 20);
	assert_true(strlen(ex.sizing) > 20);
	assert_true(ex.nalt >= 3);
	for (i = 0; i < ex.nalt; i++) {
		assert_true(strlen(ex.alt[i].text) > 10);
		tier += !strcmp(ex.alt[i].kind, "tier");
		if (!strcmp(ex.alt[i].kind, "tier"))
			/* the first choice is the cheapest, but for a bigger purchase it was kept above */
			assert_true(ex.alt[i].ratio_cost >= 1 ||
				    ex.alt[i].ratio_cost * c->cost_usd >= cheapest_demoted * (1 - 1e-9));
	}
	assert_true(tier >= 1);
	assert_true(fabs(ex.compute_share + ex.comm_share + ex.bubble_share + ex.data_share + ex.other_share - 1) <
		    1e-9);
	plan_explanation_release(&ex);
	plan_free(p);
}

static void test_layout_code(void **state)
{
	struct model_config c;
	char buf[64];
	struct strbuf flags = STRBUF_INIT;
	(void)state;
	model_config_defaults(&c);
	c.tp = 2;
	c.pp = 4;
	c.vpp = 2;
	c.dp = 8;
	c.zero = 1;
	c.recompute = MODEL_RECOMPUTE_FULL;
	c.micro_batch = 2;
	c.precision = MODEL_FP8;
	assert_string_equal(plan_layout_code(&c, buf, sizeof(buf)), "t2p4v2d8 z1 rf m2 fp8");
	c.tp = c.pp = c.vpp = 1;
	c.zero = 0;
	c.recompute = MODEL_RECOMPUTE_NONE;
	c.precision = MODEL_BF16;
	assert_string_equal(plan_layout_code(&c, buf, sizeof(buf)), "d8 m2");
	c.global_batch = 64;
	{
		struct workload w;
		workload(&w, "llama2-7b");
		model_config_flags(&w, &c, &flags);
	}
	assert_non_null(strstr(strbuf_str(&flags), "--micro-batch 2 --global-batch 64"));
	strbuf_release(&flags);
}

static void test_report(void **state)
{
	struct workload w;
	struct plan_request req;
	struct plan *p;
	struct plan_explanation ex;
	struct diag err;
	char path[] = "/tmp/gpuscope-plan-XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	char *buf;
	long len;
	(void)state;

	assert_true(fd >= 0);
	close(fd);
	workload(&w, "llama2-7b");
	request(&req, &w, MODEL_TASK_FINETUNE);
	p = run(&req);
	assert_int_equal(plan_explain(p, plan_ranked(p, 0), &ex), 0);
	diag_clear(&err);
	assert_int_equal(plan_report_html(p, &ex, NULL, "test", path, &err), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)len + 1);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	assert_non_null(strstr(buf, "id=\"pareto\""));
	assert_non_null(strstr(buf, "id=\"memory\""));
	assert_non_null(strstr(buf, "id=\"steptime\""));
	assert_non_null(strstr(buf, "class=\"point front\""));
	assert_null(strcasestr(buf, "<script"));
	/* nothing loaded from elsewhere (the SVG namespace URI is a name, not a load) */
	assert_null(strstr(buf, "src=\"http"));
	assert_null(strstr(buf, "href=\"http"));
	assert_null(strstr(buf, "url(http"));
	free(buf);
	unlink(path);
	plan_explanation_release(&ex);
	plan_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_plan),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_exact_against_brute_force),
		cmocka_unit_test(test_bound_links),
		cmocka_unit_test(test_basic_space_exact),
		cmocka_unit_test(test_spares),
		cmocka_unit_test(test_micro_batch_divisors),
		cmocka_unit_test(test_long_context),
		cmocka_unit_test(test_impossible_deadline),
		cmocka_unit_test(test_budget_below_cheapest),
		cmocka_unit_test(test_constraints_filter),
		cmocka_unit_test(test_cloud),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_nothing_fits),
		cmocka_unit_test(test_inference),
		cmocka_unit_test(test_moe),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_layout_code),
		cmocka_unit_test(test_report),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
