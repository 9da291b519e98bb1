/*
 * The search loop.  Work items are (GPU type, GPU count); each one:
 *
 *   1. enumerates the layouts of that count (tp, cp, pp, vpp, ep, ZeRO,
 *      recompute, offload, micro-batch, precision), sizing each with
 *      model_memory().  Memory does not depend on links or node size, so
 *      this is done once for every slot of the item.  Micro-batches (the
 *      divisors of the per-replica batch) grow until one does not fit:
 *      memory grows with the micro-batch (at a fixed global batch the
 *      in-flight activations of 1F1B, min(m, p) x b, only grow with b), so
 *      larger ones cannot fit.  Memory falls with offload and recompute,
 *      so each offload level and each recompute starts where the lighter
 *      setting stopped fitting (enumerate_micro_batches says why nothing
 *      faster is lost).  Offloaded state must also fit the host memory of
 *      the slot's server: that is checked per slot in step 3, like the node
 *      size a tensor-parallel group needs, since neither moves the bound.
 *   2. times every layout that fits once on the item's bound links
 *      (plan_bound_links: nodes of its largest size with an unbounded
 *      switch inside, its fastest network and host links): a lower bound
 *      of its step time on any of its slots, because the model's
 *      communication terms only grow as bandwidth falls, latency rises or
 *      nodes shrink, and its exposed-time terms are max(0, x - window) of
 *      them (layout_bound has the one exception).  Layouts are sorted by
 *      that bound.
 *   3. for each slot (hardware option x node count) and each network it
 *      may use, times the layouts in order of their bound and stops at the
 *      first whose bound exceeds the best real step time found: no later
 *      layout can beat it.  This is exact, not a heuristic: the slot gets the
 *      same layout an exhaustive scan would give (ties go to the earlier
 *      layout in enumeration order, as in an exhaustive scan).
 *
 * Generic nodes on several nodes try every fabric their host can feed; of
 * those whose best step is within PLAN_FABRIC_SLACK of the fastest
 * fabric's, the slot keeps the one whose switches, NICs and optics cost
 * least to buy (plan_pick_fabric, docs/plan.md).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/serving.h"
#include "plan/plan_int.h"
#include "util/xalloc.h"

/* Largest micro-batch tried. */
#define PLAN_MAX_MICRO_BATCH 1024
/* Largest virtual pipeline (interleaving) factor of the basic space (the full one tries every divisor of layers / pp). */
#define PLAN_MAX_VPP 4

struct layout {
	double bound_s; /* step time on ideal links */
	uint32_t seq;   /* enumeration order: the tie-break */
	uint32_t dp, mb;
	uint16_t tp, pp, vpp, ep, cp;
	uint16_t hsdp; /* ZeRO-3 hybrid shard group, ranks; 0 full shard */
	uint8_t prec, zero, rc, loader, offload;
};

/* Tensor-parallel degrees counted separately, so each slot counts only the layouts it could run. */
#define PLAN_MAX_TP 1024

struct enum_cache;

struct worker {
	struct plan *p;
	struct layout *lay;
	size_t nlay, cap;
	uint64_t enumerated_tp[PLAN_MAX_TP + 1]; /* layouts enumerated per tp in the current item */
	uint64_t space_tp[PLAN_MAX_TP + 1];      /* layouts in its space per tp (plan_stats.layouts) */
	unsigned char *exact;                    /* per fabric: the scan's best is exact */
	/*
	 * model_memory() of each layout of the current item, as the slots see
	 * it (lay_mem_mig: the MIG size it was sized for), filled as the scans
	 * reach it: memory depends on the GPU, its MIG size, the GPU count and
	 * the layout (model/memory.c), not on the nodes, links or host of a
	 * slot, so the item's slots and fabrics share it.
	 */
	struct model_memory *lay_mem;
	signed char *lay_mem_state; /* per layout: 0 not sized, 1 sized, -1 model_memory() failed */
	size_t lay_mem_cap;
	int lay_mem_mig;
	struct plan_stats st;
	atomic_size_t *next, *done;
	const size_t *order;
	struct enum_cache *cache;
	pthread_t th;
};

static void apply_layout(struct model_config *cfg, const struct layout *l, int global_batch)
{
	cfg->precision = (enum model_precision)l->prec;
	cfg->tp = l->tp;
	cfg->pp = l->pp;
	cfg->vpp = l->vpp;
	cfg->ep = l->ep;
	cfg->cp = l->cp > 1 ? l->cp : 1;
	cfg->dp = (int)l->dp;
	cfg->zero = l->zero;
	cfg->hsdp = l->hsdp;
	cfg->reshard_after_forward = 1;
	cfg->zero3_impl = MODEL_ZERO3_FSDP; /* plan lays out ZeRO-3 as FSDP does */
	cfg->recompute = (enum model_recompute)l->rc;
	cfg->offload = (enum model_offload)l->offload;
	cfg->loader = (enum model_loader)l->loader;
	cfg->micro_batch = (int)l->mb;
	/* Megatron's practice with TP in training; serving runs plain tensor parallelism */
	cfg->seq_parallel = l->tp > 1 && cfg->task != MODEL_TASK_INFER;
	cfg->global_batch = global_batch > 0 ? global_batch : (int)(l->mb * l->dp);
	if (cfg->task == MODEL_TASK_INFER) {
		cfg->batch = (int)l->mb;
		cfg->kv_precision = l->prec == MODEL_FP8 ? MODEL_FP8 : MODEL_BF16;
		cfg->cuda_graphs = 1;
	}
}

/*
 * Links no slot of an item beats, for the lower bound of step 2: inside a
 * node one switch of unbounded bandwidth and no latency; nodes of the
 * item's largest size `gpn`; between nodes the fastest scale-out rate per
 * GPU and the least latency of any slot of the plan; the fastest host link.
 * Why it bounds every slot (the model's collectives, comm.c): a group that
 * fits a node here is priced at the unbounded switch; one that does not
 * has at most as many GPUs per node on a real slot (smaller nodes), each
 * with at most this NIC rate and at least this latency, so its bus
 * bandwidth, g x NIC or less, is no higher.  A tensor-parallel group across
 * nodes is thus priced on the scale-out link here too, so the bound keeps
 * such layouts in their place.  test_plan's test_bound_links checks it.
 */
void plan_bound_links(struct model_config *cfg, int gpn, double inter_gbps_per_gpu, double inter_lat_us,
		      double host_gbps)
{
	cfg->gpus_per_node = gpn < cfg->gpus ? gpn : cfg->gpus;
	cfg->intra_kind = MODEL_LINK_NVSWITCH;
	cfg->intra_gbps = 1e9;
	cfg->intra_lat_us = 0;
	cfg->intra_nvls = 1;
	cfg->inter_gbps_per_gpu = inter_gbps_per_gpu;
	cfg->inter_lat_us = inter_lat_us;
	cfg->host_gbps = host_gbps;
	cfg->cpu_cores_per_gpu = 0;
}

/* The links of an item's lower bound: plan_bound_links()'s arguments. */
struct bound_links {
	int gpn;
	double gbps, lat_us, host_gbps;
};

/*
 * The fastest scale-out rate per GPU, least scale-out latency (as the model
 * reads them: no rate is 0.01 GB/s, no latency 2 us) and fastest host link
 * of the item's slots: the fabrics a generic option may use, the own
 * network of the others.
 */
static void item_bound_links(const struct plan *p, const struct plan_item *it, struct bound_links *b)
{
	size_t s, f;
	b->gpn = it->max_gpn;
	b->gbps = 0.01;
	b->lat_us = 2;
	b->host_gbps = 0;
	for (s = 0; s < it->nslots; s++) {
		const struct plan_choice *c = &p->all[it->slots[s]];
		const struct plan_hw *hw = &p->hw[c->hw];
		if (hw->host_gbps > b->host_gbps)
			b->host_gbps = hw->host_gbps;
		if (c->nodes <= 1)
			continue;
		if (hw->kind != PLAN_HW_GENERIC || hw->own_inter_gbps_per_gpu > 0) {
			if (hw->own_inter_gbps_per_gpu > b->gbps)
				b->gbps = hw->own_inter_gbps_per_gpu;
			if (hw->own_inter_lat_us > 0 && hw->own_inter_lat_us < b->lat_us)
				b->lat_us = hw->own_inter_lat_us;
			continue;
		}
		for (f = 0; f < p->nfab; f++) {
			const struct plan_net *n = &p->net[c->hw * p->nfab + f];
			if (!plan_fabric_allowed(p, c->hw, f))
				continue;
			if (n->gbps_per_gpu > b->gbps)
				b->gbps = n->gbps_per_gpu;
			if (n->lat_us > 0 && n->lat_us < b->lat_us)
				b->lat_us = n->lat_us;
		}
	}
	if (!(b->host_gbps > 0))
		b->host_gbps = 25; /* model_config_defaults() */
}

/*
 * Whether a tensor-parallel group of tp GPUs lays out on nodes of gpn:
 * inside one node (tp divides gpn), or, in the full space, across whole
 * nodes (gpn divides tp; its collectives then cross the scale-out link).
 */
static int tp_on_nodes(const struct plan *p, int tp, int gpn)
{
	return gpn % tp == 0 || (!p->req.basic_layouts && tp % gpn == 0);
}

/* Host memory per server of a hardware option, GiB; 0 when the catalog does not say (no offload). */
static double hw_host_gib(const struct plan_hw *hw)
{
	return hw->server && hw->server->ram_gib > 0 ? hw->server->ram_gib : 0;
}

/* Whether layout x is scanned before y: the lower bound first, then enumeration order. */
static int layout_before(const struct layout *x, const struct layout *y)
{
	return x->bound_s < y->bound_s || (x->bound_s == y->bound_s && x->seq < y->seq);
}

/*
 * Sorts a[0..n) by layout_before() (a total order: seq is unique), tmp
 * holding n layouts: a merge sort with the comparison inlined, several
 * times as fast as qsort()'s calls through a pointer on the hundreds of
 * thousands of layouts a plan sorts.
 */
static void sort_layouts(struct layout *a, size_t n, struct layout *tmp)
{
	size_t i, j, k, mid;
	if (n <= 16) {
		for (i = 1; i < n; i++) {
			struct layout v = a[i];
			for (j = i; j > 0 && layout_before(&v, &a[j - 1]); j--)
				a[j] = a[j - 1];
			a[j] = v;
		}
		return;
	}
	mid = n / 2;
	sort_layouts(a, mid, tmp);
	sort_layouts(a + mid, n - mid, tmp);
	if (!layout_before(&a[mid], &a[mid - 1]))
		return;
	memcpy(tmp, a, mid * sizeof(*a));
	for (i = 0, j = mid, k = 0; i < mid && j < n;)
		a[k++] = layout_before(&a[j], &tmp[i]) ? a[j++] : tmp[i++];
	while (i < mid)
		a[k++] = tmp[i++];
}

static void push_layout(struct worker *wk, const struct layout *l)
{
	XGROW(wk->lay, wk->cap, wk->nlay);
	wk->lay[wk->nlay++] = *l;
}

/* ---- training ---- */

/*
 * The micro-batches of a replica that runs `per` samples per step,
 * ascending: every divisor of it (the global batch is fixed, so micro-batch
 * x dp must divide it; gradient accumulation runs the rest), or in the basic
 * space the powers of two among them; at most PLAN_MAX_MICRO_BATCH.
 */
static size_t micro_batches(const struct plan *p, long per, uint32_t *out)
{
	size_t n = 0;
	long mb;
	if (per <= 0) {
		/* no global batch: micro-batch x dp is the batch, powers of two */
		for (mb = 1; mb <= PLAN_MAX_MICRO_BATCH; mb *= 2)
			out[n++] = (uint32_t)mb;
		return n;
	}
	for (mb = 1; mb <= per && mb <= PLAN_MAX_MICRO_BATCH; mb = p->req.basic_layouts ? mb * 2 : mb + 1)
		if (per % mb == 0)
			out[n++] = (uint32_t)mb;
	return n;
}

/*
 * Recompute granularities worth telling apart, in enumeration (tie-break)
 * order: none and full; for transformers in the full space also PyTorch's
 * per-op selective checkpointing, and Megatron's selective recompute of the
 * attention core where flash attention is off (with it on the scores are
 * never stored, so selective is exactly "none": memory.c, compute.c).
 */
static size_t recompute_choices(const struct plan *p, const struct model_config *cfg, int transformer,
				uint8_t *out)
{
	size_t n = 0;
	out[n++] = MODEL_RECOMPUTE_NONE;
	out[n++] = MODEL_RECOMPUTE_FULL;
	if (p->req.basic_layouts || !transformer)
		return n;
	out[n++] = MODEL_RECOMPUTE_SELECTIVE_OP;
	if (!model_flash_on(cfg))
		out[n++] = MODEL_RECOMPUTE_SELECTIVE;
	return n;
}

/*
 * Offload choices for a ZeRO stage: none; in the full space, for
 * transformers, the optimizer states and master weights (ZeRO-Offload) and,
 * under ZeRO-3, the parameters too.  Whether the server's host memory holds
 * them is a property of the slot (scan_slot).
 */
static size_t offload_choices(const struct plan *p, int transformer, int zero, uint8_t *out)
{
	size_t n = 0;
	out[n++] = MODEL_OFFLOAD_NONE;
	if (p->req.basic_layouts || !transformer || p->base.task == MODEL_TASK_INFER)
		return n;
	out[n++] = MODEL_OFFLOAD_OPTIMIZER;
	if (zero == 3)
		out[n++] = MODEL_OFFLOAD_PARAMS;
	return n;
}

/*
 * A layout's lower bound from its time on the bound links.  The step time,
 * except with the parameters offloaded: their stream to the GPU and the
 * ZeRO-3 gathers both hide under the same compute (estimate.c), so faster
 * links, which shorten the compute window, may expose more of them and the
 * step is not monotone in the links.  Their bound is the busy compute time
 * (compute_s: the matmuls, attention, memory-bound work and recompute, with
 * the output layer's small collectives at the bound's rate), which every
 * step on real links contains.
 */
static double layout_bound(const struct layout *l, const struct model_result *r)
{
	return l->offload == MODEL_OFFLOAD_PARAMS ? r->time.compute_s : r->time.step_s;
}

/* Shortest piece of a sequence a context-parallel rank is given, tokens (docs/plan.md). */
#define PLAN_MIN_CP_CHUNK 1024

/*
 * Whether a context-parallel degree is in the space: 1 always; more in the
 * full space for transformers trained with flash attention when it cuts
 * each sequence into equal chunks, 2 per rank for a decoder (the rules of
 * model_config_check), of at least PLAN_MIN_CP_CHUNK tokens per rank: the
 * ring hides its exchange behind the attention of each block, which grows
 * with the square of the chunk while the exchange grows with the chunk, so
 * context parallelism is for long sequences (4096 tokens: cp 2 or 4).
 */
static int cp_allowed(const struct plan *p, const struct workload *w, const struct model_config *cfg, int cp)
{
	if (cp == 1)
		return 1;
	if (p->req.basic_layouts || w->kind != WORKLOAD_TRANSFORMER || cfg->task == MODEL_TASK_INFER ||
	    !model_flash_on(cfg) || cfg->seq_len < (long)cp * PLAN_MIN_CP_CHUNK)
		return 0;
	return cfg->seq_len % (w->d.causal ? 2 * cp : cp) == 0;
}

/* Whether some slot of the item knows its servers' host memory, so offload may be tried there. */
static int item_offload(const struct plan *p, const struct plan_item *it)
{
	size_t s;
	for (s = 0; s < it->nslots; s++)
		if (hw_host_gib(&p->hw[p->all[it->slots[s]].hw]) > 0)
			return 1;
	return 0;
}

/* Whether some slot of the item can lay out a tensor-parallel group of tp GPUs. */
static int tp_usable(const struct plan *p, const struct plan_item *it, int tp)
{
	size_t s;
	for (s = 0; s < it->nslots; s++)
		if (tp_on_nodes(p, tp, p->hw[p->all[it->slots[s]].hw].gpus_per_node))
			return 1;
	return 0;
}

/* What the enumeration of one item and precision holds while it walks the layouts. */
struct enum_ctx {
	struct worker *wk;
	const struct workload *w;
	struct model_config *cfg; /* the item's GPU and count on the bound links */
	int G;                    /* global batch; 0: micro-batch x dp */
	int transformer, experts, nloaders, max_vpp, offload;
	uint8_t prec;
	uint8_t rcs[MODEL_RECOMPUTE_COUNT];
	size_t nrc;
	uint32_t mbs[PLAN_MAX_MICRO_BATCH];
	uint32_t seq; /* enumeration order so far */
	double *min_bytes;
};

/*
 * The micro-batches of layout l (all else set), sized, bounded and kept
 * while they fit, offload level by level.  Memory grows with the
 * micro-batch and falls with offload and recompute, so each level starts
 * where the lighter ones stop fitting (docs/plan.md): an offload level from
 * the first micro-batch its lighter level did not fit, and in the full
 * space a recompute from the first the same layout without recompute did
 * not fit (none_fail[level]; NULL for no recompute).  fail[level] gets the
 * first micro-batch that level did not fit (nmb: all did).
 */
static void enumerate_micro_batches(struct enum_ctx *x, struct layout l, size_t nmb, const size_t *none_fail,
				    size_t *fail)
{
	struct worker *wk = x->wk;
	uint8_t offs[MODEL_OFFLOAD_COUNT];
	size_t noff = 1, io, imb, from = 0;

	offs[0] = MODEL_OFFLOAD_NONE;
	if (x->offload)
		noff = offload_choices(wk->p, x->transformer, l.zero, offs);
	for (io = 0; io < MODEL_OFFLOAD_COUNT; io++)
		fail[io] = nmb;
	for (io = 0; io < noff && from < nmb; io++) {
		/*
		 * Recompute never shortens a step in the model (it lengthens the
		 * compute that the exposed terms are max(0, x - window) of, by more
		 * than any window grows), so where the layout fits without it the
		 * layouts below are decided, and count in the space; with the
		 * parameters offloaded that does not hold, and skipping them is a
		 * rule of the space.
		 */
		if (offs[io] != MODEL_OFFLOAD_PARAMS)
			wk->space_tp[l.tp] += nmb - from;
		if (none_fail && none_fail[io] > from)
			from = none_fail[io];
		if (offs[io] == MODEL_OFFLOAD_PARAMS)
			wk->space_tp[l.tp] += nmb - from;
		for (imb = from; imb < nmb; imb++) {
			struct model_memory mem;
			struct model_result r;
			l.offload = offs[io];
			l.mb = x->mbs[imb];
			l.seq = x->seq++;
			apply_layout(x->cfg, &l, x->G);
			wk->st.memory_calls++;
			wk->enumerated_tp[l.tp]++;
			if (model_memory(x->w, x->cfg, &mem))
				break;
			if (!plan_memory_fits(wk->p, &mem)) {
				if (mem.total_bytes < *x->min_bytes)
					*x->min_bytes = mem.total_bytes;
				break;
			}
			wk->st.estimate_calls++;
			wk->st.bound_calls++;
			if (model_estimate_mem(x->w, x->cfg, &mem, &r) || !(r.time.step_s > 0))
				continue;
			l.bound_s = layout_bound(&l, &r);
			push_layout(wk, &l);
		}
		fail[io] = from = imb;
	}
}

/*
 * ZeRO-3's hybrid-shard group as plan tries it: one server's ranks of the
 * dp x cp group (gpus per server / tp), when there are more ranks than that
 * and the groups tile them, for dense transformers in training; else 0.
 */
static int hsdp_group(const struct enum_ctx *x, int tp, int cp, int dp)
{
	int n = dp * cp, node = x->cfg->gpus_per_node / tp;
	if (!x->transformer || x->experts > 1 || x->cfg->task == MODEL_TASK_INFER || node < 2 || n <= node ||
	    n % node)
		return 0;
	return node;
}

/* Every layout of one (tp, pp, cp, dp): interleaving, experts, ZeRO (and hybrid shard), recompute, loader, micro-batch. */
static void enumerate_shape(struct enum_ctx *x, int tp, int pp, int cp, int dp)
{
	const struct plan *p = x->wk->p;
	int layers = x->transformer ? x->w->d.layers : 1;
	int vpp, ep, zero, loader, hs, node = hsdp_group(x, tp, cp, dp);
	size_t nmb = micro_batches(p, x->G > 0 ? x->G / dp : 0, x->mbs), irc;
	struct layout l;

	/*
	 * Context parallelism at one sequence per micro-batch, its use: with b
	 * sequences, cp dividing b, dp x cp ranks of b / cp each do the same
	 * work without the ring (docs/plan.md).
	 */
	if (cp > 1)
		nmb = 1;
	memset(&l, 0, sizeof(l));
	l.prec = x->prec;
	l.tp = (uint16_t)tp;
	l.pp = (uint16_t)pp;
	l.cp = (uint16_t)cp;
	l.dp = (uint32_t)dp;
	for (vpp = 1; vpp <= (pp > 1 ? x->max_vpp : 1) && vpp <= layers / pp;
	     vpp = p->req.basic_layouts ? vpp * 2 : vpp + 1) {
		if (!model_pp_valid(x->w, pp, vpp, 1))
			continue;
		l.vpp = (uint16_t)vpp;
		for (ep = 1; ep <= x->experts && ep <= dp; ep++) {
			if (x->experts % ep || dp % ep)
				continue;
			l.ep = (uint16_t)ep;
			for (zero = 0; zero < (dp * cp > 1 ? 4 : 1); zero++)
				for (hs = 0; hs <= (zero == 3 && node > 0); hs++) {
					size_t none_fail[2][MODEL_OFFLOAD_COUNT], fail[MODEL_OFFLOAD_COUNT];
					l.hsdp = (uint16_t)(hs ? node : 0);
					for (irc = 0; irc < x->nrc; irc++)
						for (loader = 0; loader < x->nloaders; loader++) {
							/* recompute none comes first: the others start where it stops fitting */
							int none = x->rcs[irc] == MODEL_RECOMPUTE_NONE;
							l.zero = (uint8_t)zero;
							l.rc = x->rcs[irc];
							l.loader = (uint8_t)loader;
							enumerate_micro_batches(x, l, nmb,
										none || p->req.basic_layouts ?
											NULL :
											none_fail[loader],
										none ? none_fail[loader] : fail);
						}
				}
		}
	}
}

/*
 * The parallel shapes of an item, whatever the batch: tp dividing the heads
 * (and the MLP) and laid out on some slot's nodes, pp dividing the layers,
 * cp as cp_allowed() says, dp the rest; fn gets each in enumeration order.
 * cfg holds the item's GPU and count and the precision.
 */
static void for_each_shape(const struct plan *p, const struct plan_item *it, const struct model_config *cfg,
			   void (*fn)(void *arg, int tp, int pp, int cp, int dp), void *arg)
{
	const struct workload *w = p->req.w;
	int transformer = w->kind == WORKLOAD_TRANSFORMER, gpus = it->gpus, tp, pp, cp;
	int heads = transformer ? w->d.heads : 1, layers = transformer ? w->d.layers : 1;

	for (tp = 1; tp <= gpus && tp <= heads && tp <= PLAN_MAX_TP; tp++) {
		if (!model_tp_valid(w, tp) || gpus % tp || !tp_usable(p, it, tp))
			continue;
		for (pp = 1; pp <= layers && tp * pp <= gpus; pp++) {
			if (!model_pp_valid(w, pp, 1, 1) || gpus % (tp * pp))
				continue;
			for (cp = 1; cp <= gpus / (tp * pp); cp++)
				if ((gpus / (tp * pp)) % cp == 0 && cp_allowed(p, w, cfg, cp))
					fn(arg, tp, pp, cp, gpus / (tp * pp * cp));
		}
	}
}

/* for_each_shape()'s callback of the search: the shape's layouts, when dp divides the global batch. */
static void enumerate_if_divides(void *arg, int tp, int pp, int cp, int dp)
{
	struct enum_ctx *x = arg;
	if (x->G > 0 && x->G % dp)
		return;
	enumerate_shape(x, tp, pp, cp, dp);
}

/* What plan_no_layout_reason() learns of one item's shapes. */
struct shape_tally {
	int G;
	uint64_t shapes, dividing; /* shapes in all; those whose dp divides G */
	int max_dp, gcd_dp;
};

static int gcd_int(int a, int b)
{
	while (b) {
		int t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static void tally_shape(void *arg, int tp, int pp, int cp, int dp)
{
	struct shape_tally *t = arg;
	(void)tp;
	(void)pp;
	(void)cp;
	t->shapes++;
	t->dividing += t->G % dp == 0;
	t->max_dp = dp > t->max_dp ? dp : t->max_dp;
	t->gcd_dp = gcd_int(t->gcd_dp, dp);
}

int plan_no_layout_reason(const struct plan *p, char *buf, size_t len)
{
	size_t i, pick = PLAN_NONE;
	struct shape_tally best;
	int G = p->global_batch, pick_server = 0, spares = 0;

	buf[0] = 0;
	if (p->base.task == MODEL_TASK_INFER || !p->nitems || G <= 0)
		return 0;
	for (i = 0; i < p->nall; i++)
		if (p->all[i].fits || isfinite(p->all[i].min_bytes))
			return 0; /* something was sized: memory or constraints are the reason */
	memset(&best, 0, sizeof(best));
	for (i = 0; i < p->nhw; i++)
		spares |= p->hw[i].spare_per_node > 0;
	for (i = 0; i < p->nitems; i++) {
		const struct plan_item *it = &p->items[i];
		const struct plan_hw *hw = &p->hw[p->all[it->slots[0]].hw];
		struct model_config cfg = p->base;
		enum model_precision prec[MODEL_PRECISION_COUNT];
		struct shape_tally t;
		int server = hw->kind == PLAN_HW_SERVER;
		memset(&t, 0, sizeof(t));
		t.G = G;
		cfg.gpu = it->gpu;
		cfg.gpus = it->gpus;
		if (plan_gpu_precisions(p, it->gpu, prec, MODEL_PRECISION_COUNT))
			cfg.precision = prec[0];
		for_each_shape(p, it, &cfg, tally_shape, &t);
		if (!t.shapes || t.dividing)
			continue;
		/* name a catalog server's count where there is one, else the fewest GPUs */
		if (pick == PLAN_NONE || server > pick_server ||
		    (server == pick_server && it->gpus < p->items[pick].gpus)) {
			pick = i;
			pick_server = server;
			best = t;
		}
	}
	if (pick == PLAN_NONE) {
		snprintf(buf, len,
			 "no parallel layout of the GPU counts searched suits %s: tensor parallelism "
			 "must divide its attention heads and the GPUs of a node, pipeline parallelism its layers",
			 p->req.w->name);
		return 1;
	}
	{
		const struct plan_item *it = &p->items[pick];
		const struct plan_choice *c = &p->all[it->slots[0]];
		int lo = G / best.max_dp * best.max_dp, hi = lo + best.max_dp;
		char lower[48] = "";
		if (lo > 0)
			snprintf(lower, sizeof(lower), "%d or ", lo);
		snprintf(buf, len,
			 "no layout of %d GPUs (%ux%d %s) divides the %sglobal batch of %d: the "
			 "data-parallel degree of every layout there, GPUs / (tp x cp x pp) with tp and pp "
			 "dividing the model, is a multiple of %d (up to %d) and must divide the batch; try "
			 "--global-batch %s%d (multiples of %d)%s",
			 it->gpus, c->nodes, p->hw[c->hw].gpus_per_node, p->hw[c->hw].label,
			 p->req.base.global_batch > 0 ? "" : "default ", G, best.gcd_dp, best.max_dp, lower, hi,
			 best.max_dp,
			 !spares && p->req.no_spares ? ", or let plan hold GPUs spare (without --no-spares)" : "");
	}
	return 1;
}

/*
 * Steps 1 and 2 for one (GPU, count): every layout that fits, with its
 * bound.  *min_bytes gets the least memory of any layout (for the "does
 * not fit" answer).
 */
static void enumerate_train(struct worker *wk, const struct plan_item *it, double *min_bytes)
{
	struct plan *p = wk->p;
	const struct workload *w = p->req.w;
	struct enum_ctx x;
	struct model_config cfg = p->base;
	struct bound_links bl;
	enum model_precision precs[MODEL_PRECISION_COUNT];
	size_t np = plan_gpu_precisions(p, it->gpu, precs, MODEL_PRECISION_COUNT), ip;
	int gpus = it->gpus, layers;

	memset(&x, 0, sizeof(x));
	x.wk = wk;
	x.w = w;
	x.cfg = &cfg;
	x.G = p->global_batch;
	x.transformer = w->kind == WORKLOAD_TRANSFORMER;
	x.experts = x.transformer && w->d.experts > 1 ? w->d.experts : 1;
	x.nloaders = !x.transformer && w->s.dali_per_gpu > 0 ? 2 : 1;
	x.offload = item_offload(p, it);
	x.min_bytes = min_bytes;
	layers = x.transformer ? w->d.layers : 1;
	x.max_vpp = p->req.basic_layouts ? PLAN_MAX_VPP : layers;
	cfg.gpu = it->gpu;
	cfg.gpus = gpus;
	item_bound_links(p, it, &bl);
	plan_bound_links(&cfg, bl.gpn, bl.gbps, bl.lat_us, bl.host_gbps);
	wk->nlay = 0;
	memset(wk->enumerated_tp, 0, sizeof(wk->enumerated_tp));
	memset(wk->space_tp, 0, sizeof(wk->space_tp));
	for (ip = 0; ip < np; ip++) {
		cfg.precision = precs[ip];
		x.prec = (uint8_t)precs[ip];
		x.nrc = recompute_choices(p, &cfg, x.transformer, x.rcs);
		for_each_shape(p, it, &cfg, enumerate_if_divides, &x);
	}
	if (wk->nlay > 1) {
		struct layout *tmp = xmalloc((wk->nlay / 2 + 1) * sizeof(*tmp));
		sort_layouts(wk->lay, wk->nlay, tmp);
		free(tmp);
	}
}

struct best {
	double step_s;
	const struct layout *l;
	struct model_result r;
};

/*
 * Layout i's memory under cfg (its slot's configuration, the layout
 * applied), sized once per item and MIG size; NULL when model_memory()
 * refuses it.
 */
static const struct model_memory *layout_memory(struct worker *wk, size_t i, const struct model_config *cfg)
{
	/* plan_stats.memory_calls counts the enumeration's sizing only, not these */
	if (!wk->lay_mem_state[i])
		wk->lay_mem_state[i] = model_memory(wk->p->req.w, cfg, &wk->lay_mem[i]) ? -1 : 1;
	return wk->lay_mem_state[i] > 0 ? &wk->lay_mem[i] : NULL;
}

/* Forgets the memory of the previous item's layouts, room made for the current item's. */
static void layout_memory_reset(struct worker *wk)
{
	if (wk->nlay > wk->lay_mem_cap) {
		free(wk->lay_mem);
		free(wk->lay_mem_state);
		wk->lay_mem_cap = wk->nlay;
		wk->lay_mem = xmalloc(wk->lay_mem_cap * sizeof(*wk->lay_mem));
		wk->lay_mem_state = xmalloc(wk->lay_mem_cap);
	}
	if (wk->nlay)
		memset(wk->lay_mem_state, 0, wk->nlay);
	wk->lay_mem_mig = 0;
}

/*
 * Step 3 for one slot and one network: the fastest layout, exactly when its
 * step is at most `cutoff` (the scan may stop once every remaining bound
 * exceeds the cutoff).  Returns 1 when b holds the exact best, 0 when the
 * best is known to exceed the cutoff.
 */
static int scan_slot(struct worker *wk, const struct plan_choice *c, int fabric, double cutoff, struct best *b)
{
	struct plan *p = wk->p;
	const struct workload *w = p->req.w;
	const struct plan_hw *hw = &p->hw[c->hw];
	struct model_config cfg;
	struct model_result r;
	const struct model_memory *mem;
	size_t i;

	b->step_s = INFINITY;
	b->l = NULL;
	plan_slot_config(p, c, fabric, &cfg);
	if (cfg.mig != wk->lay_mem_mig) {
		memset(wk->lay_mem_state, 0, wk->nlay);
		wk->lay_mem_mig = cfg.mig;
	}
	for (i = 0; i < wk->nlay; i++) {
		const struct layout *l = &wk->lay[i];
		if (l->bound_s > b->step_s || l->bound_s > cutoff)
			break;
		if (!tp_on_nodes(p, l->tp, hw->gpus_per_node) || (l->offload && !(hw_host_gib(hw) > 0)))
			continue;
		apply_layout(&cfg, l, p->global_batch);
		mem = layout_memory(wk, i, &cfg);
		/* what would not fit is not timed: its time could not win */
		if (!mem || !plan_memory_fits(p, mem) || !model_host_fits(mem, &cfg, hw_host_gib(hw)))
			continue;
		wk->st.estimate_calls++;
		if (model_estimate_mem(w, &cfg, mem, &r) || !(r.time.step_s > 0))
			continue;
		if (r.time.step_s < b->step_s || (r.time.step_s == b->step_s && b->l && l->seq < b->l->seq)) {
			b->step_s = r.time.step_s;
			b->l = l;
		}
	}
	/* the winner's result, timed again rather than copied at every improvement */
	if (b->l) {
		apply_layout(&cfg, b->l, p->global_batch);
		if (model_estimate_mem(w, &cfg, &wk->lay_mem[b->l - wk->lay], &b->r))
			b->l = NULL;
	}
	return b->l && b->step_s <= cutoff;
}

static void store(struct plan *p, struct plan_choice *c, const struct best *b, int fabric)
{
	plan_slot_config(p, c, fabric, &c->cfg);
	apply_layout(&c->cfg, b->l, p->global_batch);
	c->res = b->r;
	c->fabric = fabric;
	c->fits = 1;
}

/*
 * Shared enumerations.  Steps 1 and 2 read nothing of a GPU but its
 * modelled columns (memory, bandwidth, peaks, power, links ...): two
 * catalog rows that differ only in key, name, aliases, price or source
 * enumerate the same layouts with the same bounds.  A fleet catalog lists
 * many such rows (one per card, or per purchase), so items whose GPU has
 * the same modelled columns, count and largest node share one enumeration:
 * the first worker to reach one computes it, the others copy it.  The
 * result of every item is exactly what it would be without sharing.
 */
struct enum_entry {
	int state; /* 0 not started, 1 being computed, 2 done */
	struct layout *lay;
	size_t nlay;
	double min_bytes;
	uint64_t *enumerated_tp; /* [PLAN_MAX_TP + 1] */
	uint64_t *space_tp;      /* [PLAN_MAX_TP + 1] */
	atomic_int slots_done;   /* the item's own slots are decided: twins may copy them */
};

struct enum_cache {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t *rep;          /* per item: the item whose enumeration it shares */
	struct enum_entry *e; /* per item; used where rep[i] == i and others share it */
};

static int gpu_col_modelled(const struct cat_column *c)
{
	static const char *const not_modelled[] = {"key",   "name",       "aliases",  "source",
						   "as_of", "confidence", "price_usd"};
	size_t i;
	for (i = 0; i < sizeof(not_modelled) / sizeof(not_modelled[0]); i++)
		if (!strcmp(c->name, not_modelled[i]))
			return 0;
	return 1;
}

static int same_gpu_model(const struct cat_gpu *a, const struct cat_gpu *b)
{
	const struct cat_schema *s = catalog_schema(CAT_GPUS);
	size_t i;
	if (a == b)
		return 1;
	for (i = 0; i < s->ncols; i++) {
		const struct cat_column *c = &s->cols[i];
		const char *x = (const char *)a + c->offset, *y = (const char *)b + c->offset;
		if (!gpu_col_modelled(c))
			continue;
		if (c->type == CAT_COL_NUM) {
			double u = *(const double *)x, v = *(const double *)y;
			if (!(u == v || (isnan(u) && isnan(v))))
				return 0;
		} else {
			const char *u = *(char *const *)x, *v = *(char *const *)y;
			if (u != v && (!u || !v || strcmp(u, v)))
				return 0;
		}
	}
	return 1;
}

static uint64_t gpu_model_hash(const struct cat_gpu *g)
{
	const struct cat_schema *s = catalog_schema(CAT_GPUS);
	uint64_t h = 1469598103934665603ULL;
	size_t i, k;
	for (i = 0; i < s->ncols; i++) {
		const struct cat_column *c = &s->cols[i];
		const char *x = (const char *)g + c->offset;
		if (!gpu_col_modelled(c))
			continue;
		if (c->type == CAT_COL_NUM) {
			double v = *(const double *)x;
			unsigned char b[sizeof(double)];
			if (isnan(v))
				v = -1;
			memcpy(b, &v, sizeof(b));
			for (k = 0; k < sizeof(b); k++)
				h = (h ^ b[k]) * 1099511628211ULL;
		} else {
			const char *t = *(char *const *)x;
			for (; t && *t; t++)
				h = (h ^ (unsigned char)*t) * 1099511628211ULL;
			h = (h ^ 0xff) * 1099511628211ULL;
		}
	}
	return h;
}

struct item_hash {
	uint64_t h;
	size_t idx;
};

static int cmp_item_hash(const void *a, const void *b)
{
	const struct item_hash *x = a, *y = b;
	if (x->h != y->h)
		return x->h < y->h ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Whether two items of one GPU count can lay out the same tensor-parallel degrees on their nodes. */
static int same_tp_use(const struct plan *p, const struct plan_item *a, const struct plan_item *b)
{
	int tp;
	for (tp = 1; tp <= a->gpus && tp <= PLAN_MAX_TP; tp++)
		if (a->gpus % tp == 0 && tp_usable(p, a, tp) != tp_usable(p, b, tp))
			return 0;
	return 1;
}

static int same_bound(const struct plan *p, const struct plan_item *a, const struct plan_item *b)
{
	struct bound_links x, y;
	item_bound_links(p, a, &x);
	item_bound_links(p, b, &y);
	return x.gpn == y.gpn && x.gbps == y.gbps && x.lat_us == y.lat_us && x.host_gbps == y.host_gbps;
}

static void enum_cache_init(struct enum_cache *c, const struct plan *p)
{
	struct item_hash *k = xcalloc(p->nitems + 1, sizeof(*k));
	size_t i, j;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	c->rep = xcalloc(p->nitems + 1, sizeof(*c->rep));
	c->e = xcalloc(p->nitems + 1, sizeof(*c->e));
	for (i = 0; i < p->nitems; i++) {
		const struct plan_item *it = &p->items[i];
		k[i].h = gpu_model_hash(it->gpu) ^ ((uint64_t)it->gpus * 0x9e3779b97f4a7c15ULL) ^
			 ((uint64_t)it->max_gpn << 40);
		k[i].idx = i;
		c->rep[i] = i;
	}
	if (p->nitems > 1)
		qsort(k, p->nitems, sizeof(*k), cmp_item_hash);
	/* within a run of equal hashes, each item shares with the first equal one before it */
	for (i = 0; i < p->nitems; i = j) {
		for (j = i + 1; j < p->nitems && k[j].h == k[i].h; j++) {
			const struct plan_item *b = &p->items[k[j].idx];
			size_t r;
			for (r = i; r < j; r++) {
				const struct plan_item *a = &p->items[k[r].idx];
				if (c->rep[k[r].idx] == k[r].idx && a->gpus == b->gpus &&
				    a->max_gpn == b->max_gpn && same_gpu_model(a->gpu, b->gpu) &&
				    same_tp_use(p, a, b) && item_offload(p, a) == item_offload(p, b) &&
				    same_bound(p, a, b)) {
					c->rep[k[j].idx] = k[r].idx;
					break;
				}
			}
		}
	}
	free(k);
}

static void enum_cache_free(struct enum_cache *c, size_t nitems)
{
	size_t i;
	for (i = 0; i < nitems; i++) {
		free(c->e[i].lay);
		free(c->e[i].enumerated_tp);
		free(c->e[i].space_tp);
	}
	free(c->e);
	free(c->rep);
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->mu);
}

/* Steps 1 and 2 for an item, computed once per class of items that share them. */
static void enumerate_shared(struct worker *wk, const struct plan_item *it, double *min_bytes)
{
	struct enum_cache *c = wk->cache;
	size_t idx = (size_t)(it - wk->p->items), r = c->rep[idx];
	struct enum_entry *e = &c->e[r];
	int mine;

	pthread_mutex_lock(&c->mu);
	while (e->state == 1)
		pthread_cond_wait(&c->cv, &c->mu);
	mine = e->state == 0;
	if (mine)
		e->state = 1;
	pthread_mutex_unlock(&c->mu);
	if (mine) {
		enumerate_train(wk, it, min_bytes);
		pthread_mutex_lock(&c->mu);
		e->lay = xmalloc((wk->nlay ? wk->nlay : 1) * sizeof(*e->lay));
		if (wk->nlay)
			memcpy(e->lay, wk->lay, wk->nlay * sizeof(*e->lay));
		e->nlay = wk->nlay;
		e->min_bytes = *min_bytes;
		e->enumerated_tp = xmalloc(sizeof(wk->enumerated_tp));
		memcpy(e->enumerated_tp, wk->enumerated_tp, sizeof(wk->enumerated_tp));
		e->space_tp = xmalloc(sizeof(wk->space_tp));
		memcpy(e->space_tp, wk->space_tp, sizeof(wk->space_tp));
		e->state = 2;
		pthread_cond_broadcast(&c->cv);
		pthread_mutex_unlock(&c->mu);
		return;
	}
	/* done: read-only from here on */
	wk->nlay = 0;
	if (e->nlay) {
		XGROW(wk->lay, wk->cap, e->nlay);
		memcpy(wk->lay, e->lay, e->nlay * sizeof(*e->lay));
	}
	wk->nlay = e->nlay;
	*min_bytes = e->min_bytes;
	memcpy(wk->enumerated_tp, e->enumerated_tp, sizeof(wk->enumerated_tp));
	memcpy(wk->space_tp, e->space_tp, sizeof(wk->space_tp));
}

/*
 * Step 3 shared as well: a slot decides the same layout and fabric as a
 * slot of the item it shares an enumeration with when everything
 * plan_slot_config() gives the model is the same (the GPU's modelled
 * columns already are).  Returns the twin item when its slots are decided,
 * else NULL (never waits: the twin may come later in a single thread).
 */
static const struct plan_item *slots_twin(struct worker *wk, const struct plan_item *it)
{
	struct enum_cache *c = wk->cache;
	size_t idx = (size_t)(it - wk->p->items), r = c->rep[idx];
	const struct plan_item *t = &wk->p->items[r];
	if (r == idx || !atomic_load(&c->e[r].slots_done))
		return NULL;
	return t;
}

/*
 * Do two generic options of this many nodes pick among the fabrics alike:
 * the same links, the same fabrics allowed, and the same fabric capex (the
 * tie-break of plan_pick_fabric)?
 */
static int same_net(const struct plan *p, size_t ha, size_t hb, uint32_t nodes)
{
	size_t f;
	for (f = 0; f < p->nfab; f++) {
		const struct plan_net *x = &p->net[ha * p->nfab + f], *y = &p->net[hb * p->nfab + f];
		if (x->gbps_per_gpu != y->gbps_per_gpu || x->lat_us != y->lat_us ||
		    plan_fabric_allowed(p, ha, f) != plan_fabric_allowed(p, hb, f) ||
		    plan_fabric_capex(p, ha, nodes, (int)f) != plan_fabric_capex(p, hb, nodes, (int)f))
			return 0;
	}
	return 1;
}

/* Copies slot t's decision into c when the two slots model alike; 1 when done, 0: not alike. */
static int copy_twin_slot(struct plan *p, const struct plan_choice *t, struct plan_choice *c)
{
	const struct plan_hw *a = &p->hw[t->hw], *b = &p->hw[c->hw];
	struct layout l;
	if (a->kind != b->kind || a->gpus_per_node != b->gpus_per_node || t->gpus != c->gpus ||
	    t->nodes != c->nodes || a->intra_kind != b->intra_kind || a->intra_gbps != b->intra_gbps ||
	    a->intra_lat_us != b->intra_lat_us || a->intra_nvls != b->intra_nvls || a->host_gbps != b->host_gbps ||
	    a->cpu_cores_per_gpu != b->cpu_cores_per_gpu || a->mig != b->mig ||
	    a->own_inter_gbps_per_gpu != b->own_inter_gbps_per_gpu || a->own_inter_lat_us != b->own_inter_lat_us ||
	    hw_host_gib(a) != hw_host_gib(b) ||
	    (a->kind == PLAN_HW_GENERIC && c->nodes > 1 && !same_net(p, t->hw, c->hw, c->nodes)))
		return 0;
	if (!t->fits)
		return 1; /* nothing fit there: nothing fits here */
	memset(&l, 0, sizeof(l));
	l.prec = (uint8_t)t->cfg.precision;
	l.tp = (uint16_t)t->cfg.tp;
	l.pp = (uint16_t)t->cfg.pp;
	l.vpp = (uint16_t)t->cfg.vpp;
	l.ep = (uint16_t)t->cfg.ep;
	l.cp = (uint16_t)t->cfg.cp;
	l.dp = (uint32_t)t->cfg.dp;
	l.zero = (uint8_t)t->cfg.zero;
	l.hsdp = (uint16_t)t->cfg.hsdp;
	l.rc = (uint8_t)t->cfg.recompute;
	l.offload = (uint8_t)t->cfg.offload;
	l.loader = (uint8_t)t->cfg.loader;
	l.mb = (uint32_t)t->cfg.micro_batch;
	plan_slot_config(p, c, t->fabric, &c->cfg);
	apply_layout(&c->cfg, &l, p->global_batch);
	c->res = t->res;
	c->fabric = t->fabric;
	c->fabric_best_step_s = t->fabric_best_step_s;
	c->layouts = t->layouts;
	c->fits = 1;
	return 1;
}

static void item_train(struct worker *wk, const struct plan_item *it)
{
	struct plan *p = wk->p;
	double min_bytes = INFINITY;
	size_t s, nlay;
	struct best *per_fab = xcalloc(p->nfab + 1, sizeof(*per_fab));
	double *step = xcalloc(p->nfab + 1, sizeof(*step));
	const struct plan_item *twin;

	enumerate_shared(wk, it, &min_bytes);
	layout_memory_reset(wk);
	twin = slots_twin(wk, it);
	nlay = wk->nlay;
	{
		int tp;
		for (tp = 1; tp <= PLAN_MAX_TP; tp++)
			wk->st.layouts += wk->space_tp[tp];
	}
	for (s = 0; s < it->nslots; s++) {
		struct plan_choice *c = &p->all[it->slots[s]];
		const struct plan_hw *hw = &p->hw[c->hw];
		int generic_multi = c->nodes > 1 && hw->kind == PLAN_HW_GENERIC && p->nfab > 0 &&
				    !(hw->own_inter_gbps_per_gpu > 0);
		size_t nnet = generic_multi ? p->nfab : 1, f;

		uint64_t enumerated = 0;
		int tp;

		c->layouts = 0;
		for (tp = 1; tp <= PLAN_MAX_TP; tp++)
			if (tp_on_nodes(p, tp, hw->gpus_per_node)) {
				enumerated += wk->enumerated_tp[tp];
				c->layouts += wk->space_tp[tp];
			}
		c->min_bytes = min_bytes;
		/* every layout x network of the slot is decided: timed, bounded out, or too big */
		wk->st.configs += enumerated * nnet;
		if (!nlay)
			continue;
		if (twin) {
			/* the twin's slots are in hardware order too: catalog servers may sit between */
			size_t k;
			for (k = 0; k < twin->nslots; k++)
				if (copy_twin_slot(p, &p->all[twin->slots[k]], c))
					break;
			if (k < twin->nslots)
				continue;
		}
		if (!generic_multi) {
			scan_slot(wk, c, -1, INFINITY, &per_fab[0]);
			if (per_fab[0].l)
				store(p, c, &per_fab[0], -1);
			continue;
		}
		{
			/*
			 * Fastest fabrics first.  A fabric whose best exceeds
			 * SLACK x the best so far can never be picked (the best
			 * only falls), so its scan stops there; the others are
			 * exact, and so is their minimum.
			 */
			double fastest = INFINITY;
			int pick = -1;
			unsigned char *exact = wk->exact;
			for (f = nnet; f-- > 0;) {
				if (!plan_fabric_allowed(p, c->hw, f)) {
					exact[f] = 0;
					continue;
				}
				exact[f] = (unsigned char)scan_slot(wk, c, (int)f, fastest * PLAN_FABRIC_SLACK,
								    &per_fab[f]);
				if (exact[f] && per_fab[f].step_s < fastest)
					fastest = per_fab[f].step_s;
			}
			for (f = 0; f < nnet; f++)
				step[f] = exact[f] ? per_fab[f].step_s : INFINITY;
			pick = plan_pick_fabric(p, c->hw, c->nodes, step, exact, nnet);
			if (pick >= 0) {
				store(p, c, &per_fab[pick], pick);
				c->fabric_best_step_s = fastest;
			}
		}
	}
	free(per_fab);
	free(step);
	{
		struct enum_cache *ec = wk->cache;
		size_t idx = (size_t)(it - p->items);
		if (ec->rep[idx] == idx)
			atomic_store(&ec->e[idx].slots_done, 1);
	}
}

/* ---- inference ---- */

/*
 * Inference: a replica of tp x pp GPUs serves batches of `batch` requests.
 * The batch is the largest power of two that fits in memory and, with a
 * latency target, keeps the latency within it (model_batch_for_latency).
 * Replicas = ceil(rate / replica throughput).  The slot keeps the replica
 * shape with the best objective.
 */
static double infer_latency(const struct workload *w, const struct model_result *r)
{
	/* per-sample models serve with dynamic batching: a request may wait for the batch in flight */
	return w->kind == WORKLOAD_TRANSFORMER ? r->infer.request_s : 2 * r->infer.request_s;
}

/* A batch's request latency, time to first token and time per output token against the targets. */
static int infer_meets(const struct plan *p, const struct model_result *r)
{
	return (!(p->req.deadline_s > 0) || r->infer.request_s <= p->req.deadline_s) &&
	       (!(p->req.ttft_s > 0) || r->infer.prefill_s <= p->req.ttft_s) &&
	       (!(p->req.tpot_s > 0) || !plan_generates(p) || r->infer.decode_token_s <= p->req.tpot_s);
}

/*
 * Requests of the burst that measures a replica's sustained throughput: a
 * bound on the count the Poisson runs (PLAN_SIM_REQUESTS) then decide, so a
 * small one does.
 */
#define SIM_BURST 200
/* the share of a replica's sustained throughput an offered rate may take and still drain */
#define SIM_MAX_LOAD 0.95

/*
 * Requests of the Poisson runs that bracket and bisect the count: a p99 of
 * 200 (the second-worst) is noisy, so the count found is then judged again
 * with PLAN_SIM_REQUESTS.
 */
#define SIM_SEARCH 200
/* counts a sixteenth apart tried on the longer run after the first misses */
#define SIM_RETRIES 3

/*
 * n replicas, each fed a Poisson stream of rate / n (`requests` of them): 1
 * when each keeps up and meets every target.
 */
static int sim_meets(const struct plan *p, struct servesim *sim, double capacity, int n, int requests,
		     struct servesim_result *r)
{
	struct servesim_load l;
	struct servesim_slo slo = {p->req.ttft_s, p->req.tpot_s, 1};
	struct diag err;
	memset(&l, 0, sizeof(l));
	l.kind = SERVESIM_POISSON;
	l.rate_per_s = p->req.rate_per_s / n;
	l.requests = requests;
	l.seed = PLAN_SIM_SEED;
	if (l.rate_per_s > SIM_MAX_LOAD * capacity || servesim_run(sim, &l, &slo, r, &err) || r->stopped)
		return 0;
	return (!(p->req.ttft_s > 0) || r->ttft.p99 <= p->req.ttft_s) &&
	       (!(p->req.tpot_s > 0) || r->tpot.p99 <= p->req.tpot_s) &&
	       (!(p->req.deadline_s > 0) || r->e2e.p99 <= p->req.deadline_s);
}

/*
 * A decoder under a serving engine: the fewest replicas of t's layout that
 * meet the targets at the rate, by the serving simulation (model/servesim.h)
 * of one replica fed rate / replicas.  The sustained throughput of a burst
 * bounds the count from below; it grows by half until one meets, then
 * bisects to within a sixteenth.
 * Fills t (replicas, the batch the scheduler reaches, the p99 TTFT, memory
 * as the engine holds it); 0, or -1 when no count up to max_replicas does.
 */
static int served_replicas(struct worker *wk, struct plan_choice *t, struct layout *l, int max_replicas)
{
	const struct plan *p = wk->p;
	const struct workload *w = p->req.w;
	struct model_serving_opts so;
	struct model_serving sv;
	struct servesim_load burst;
	struct servesim_result r, best;
	struct servesim *sim;
	struct diag err;
	double capacity;
	int lo, hi, k, ok = 0;

	t->cfg.engine = p->engine;
	memset(&so, 0, sizeof(so));
	so.continuous = 1;
	so.max_seqs = p->sched.max_seqs;
	wk->st.estimate_calls++;
	if (model_serving_estimate(w, &t->cfg, &so, &sv, &err) ||
	    !(sim = servesim_new(w, &t->cfg, &p->sched, &err)))
		return -1;
	memset(&burst, 0, sizeof(burst));
	burst.kind = SERVESIM_BURST;
	burst.count = burst.requests = SIM_BURST;
	if (servesim_run(sim, &burst, NULL, &r, &err) || !(r.requests_per_s > 0)) {
		servesim_free(sim);
		return -1;
	}
	capacity = r.requests_per_s;
	/* the bound in double first: a rate far past the replicas allowed must not overflow the count */
	if (p->req.rate_per_s / (SIM_MAX_LOAD * capacity) > max_replicas) {
		servesim_free(sim);
		return -1;
	}
	lo = (int)fmax(1, ceil(p->req.rate_per_s / (SIM_MAX_LOAD * capacity) - 1e-9));
	if (lo > max_replicas) {
		servesim_free(sim);
		return -1;
	}
	/* lo may meet; else double to a count that does */
	hi = lo;
	while (!(ok = sim_meets(p, sim, capacity, hi, SIM_SEARCH, &r)) && hi < max_replicas) {
		lo = hi;
		hi = hi + (hi + 1) / 2 < max_replicas ? hi + (hi + 1) / 2 : max_replicas;
	}
	wk->st.configs += 2;
	if (ok) {
		/* the fewest in (lo, hi] that meet, to within a sixteenth: lo failed unless lo == hi */
		while (hi - lo > 1 && hi - lo > hi / 16) {
			int mid = lo + (hi - lo) / 2;
			wk->st.configs++;
			if (sim_meets(p, sim, capacity, mid, SIM_SEARCH, &r))
				hi = mid;
			else
				lo = mid;
		}
		/*
		 * judged again on the longer run the check line repeats, a sixteenth more
		 * each time it misses; a layout that still misses after SIM_RETRIES is
		 * left out (it met on the short run by chance)
		 */
		for (k = 0; !(ok = sim_meets(p, sim, capacity, hi, PLAN_SIM_REQUESTS, &best)) && k < SIM_RETRIES &&
			    hi < max_replicas;
		     k++) {
			wk->st.configs++;
			hi = hi + (hi + 15) / 16 < max_replicas ? hi + (hi + 15) / 16 : max_replicas;
		}
	}
	servesim_free(sim);
	if (!ok)
		return -1;
	t->replicas = hi;
	l->mb = (uint32_t)fmax(1, floor(best.batch_mean + 0.5));
	apply_layout(&t->cfg, l, 0);
	t->res = sv.at; /* memory as the engine holds it; time from the simulation */
	t->res.infer.ttft_p99_s = best.ttft.p99;
	/* the p99 TPOT the target was held to (sim_meets), not one step of the mean batch */
	t->res.infer.decode_token_s = best.tpot.p99;
	t->res.infer.request_s = best.e2e.p50;
	/* a replica's throughput: what it sustains full (the burst), as the static path's batch gives */
	t->res.infer.samples_per_s = t->res.samples_per_s = capacity;
	t->res.infer.tokens_per_s = t->res.tokens_per_s = capacity * t->cfg.output_len;
	t->latency_s = best.e2e.p50;
	return 0;
}

static void item_infer(struct worker *wk, const struct plan_item *it)
{
	struct plan *p = wk->p;
	const struct workload *w = p->req.w;
	int transformer = w->kind == WORKLOAD_TRANSFORMER;
	int heads = transformer ? w->d.heads : 1, layers = transformer ? w->d.layers : 1;
	int max_batch = p->req.max_batch; /* search_defaults() (plan.c) set both */
	double rate = p->req.rate_per_s;
	enum model_precision precs[MODEL_PRECISION_COUNT];
	size_t np = plan_gpu_precisions(p, it->gpu, precs, MODEL_PRECISION_COUNT), ip, s;

	for (s = 0; s < it->nslots; s++) {
		struct plan_choice *c = &p->all[it->slots[s]];
		const struct plan_hw *hw = &p->hw[c->hw];
		int gpn = hw->gpus_per_node;
		struct plan_choice best;
		int have = 0, mem_ok = 0;
		uint32_t seq = 0;

		c->min_bytes = INFINITY;
		memset(&best, 0, sizeof(best));
		for (ip = 0; ip < np; ip++) {
			int tp, pp;
			for (tp = 1; tp <= gpn && tp <= heads; tp++) {
				if (!model_tp_valid(w, tp) || gpn % tp)
					continue;
				for (pp = 1; pp <= layers && (long)tp * pp <= p->req.max_gpus; pp++) {
					struct plan_choice t = *c;
					struct layout l;
					struct model_memory mem;
					int b, fit_b = 0, fabric = -1;
					int replica = tp * pp, nodes_per_replica;
					if (!model_pp_valid(w, pp, 1, 1) || (pp > 1 && tp < gpn))
						continue;
					if (pp > 1 && replica % gpn)
						continue;
					nodes_per_replica = (replica + gpn - 1) / gpn;
					if (nodes_per_replica > hw->max_nodes)
						break;
					if (nodes_per_replica > 1 && hw->kind == PLAN_HW_GENERIC &&
					    !(hw->own_inter_gbps_per_gpu > 0)) {
						/* the fastest the host feeds: serving is latency-bound */
						for (fabric = (int)p->nfab - 1;
						     fabric >= 0 && !plan_fabric_allowed(p, c->hw, (size_t)fabric);
						     fabric--)
							;
						if (fabric < 0)
							break;
					}
					t.nodes = (uint32_t)nodes_per_replica;
					t.gpus = replica;
					plan_slot_config(p, &t, fabric, &t.cfg);
					t.cfg.gpus_per_node =
						gpn; /* a replica smaller than its node keeps the node's links */
					memset(&l, 0, sizeof(l));
					l.prec = (uint8_t)precs[ip];
					l.tp = (uint16_t)tp;
					l.pp = (uint16_t)pp;
					l.vpp = 1;
					l.ep = 1;
					l.dp = 1;
					if (p->simulate) {
						l.mb = 1;
						l.seq = seq++;
						apply_layout(&t.cfg, &l, 0);
						if (served_replicas(wk, &t, &l, p->req.max_gpus / replica))
							continue;
						mem_ok = 1;
						goto sized;
					}
					/* the largest power-of-two batch that fits */
					for (b = 1; b <= max_batch; b *= 2) {
						l.mb = (uint32_t)b;
						apply_layout(&t.cfg, &l, 0);
						wk->st.memory_calls++;
						wk->st.configs++;
						if (model_memory(w, &t.cfg, &mem))
							break;
						if (!plan_memory_fits(p, &mem)) {
							/* a MIG slice too small says nothing of what would fit: whole GPUs answer that */
							if (b == 1 && mem.total_bytes < c->min_bytes && !hw->mig)
								c->min_bytes = mem.total_bytes;
							break;
						}
						fit_b = b;
					}
					if (!fit_b)
						continue;
					mem_ok = 1;
					if (p->req.deadline_s > 0 ||
					    (transformer && (p->req.ttft_s > 0 || p->req.tpot_s > 0))) {
						/* model_batch_for_latency bounds a request by 2 forwards; LLMs by request_s */
						int lb = fit_b;
						if (transformer) {
							/* the largest batch whose request latency, TTFT and TPOT meet the targets */
							for (lb = fit_b; lb > 1; lb /= 2) {
								struct model_result rr;
								l.mb = (uint32_t)lb;
								apply_layout(&t.cfg, &l, 0);
								wk->st.estimate_calls++;
								if (!model_estimate(w, &t.cfg, &rr) &&
								    infer_meets(p, &rr))
									break;
							}
						} else {
							lb = model_batch_for_latency(w, &t.cfg, p->req.deadline_s,
										     fit_b);
							if (lb < 1)
								lb = 1;
						}
						fit_b = lb;
					}
					l.mb = (uint32_t)fit_b;
					l.seq = seq++;
					apply_layout(&t.cfg, &l, 0);
					wk->st.estimate_calls++;
					if (model_estimate(w, &t.cfg, &t.res) || !(t.res.infer.samples_per_s > 0))
						continue;
					t.latency_s = infer_latency(w, &t.res);
					{
						/* compared as doubles: the count may not fit an int */
						double need = ceil(rate / t.res.infer.samples_per_s - 1e-9);
						if (!(need * replica <= (double)p->req.max_gpus))
							continue;
						t.replicas = need < 1 ? 1 : (int)need;
						/* an LLM's p99 TTFT waits for a free slot: more replicas where the queue misses the target */
						if (transformer)
							t.replicas = model_serving_replicas(
								rate, fit_b, t.res.infer.request_s,
								t.res.infer.prefill_s, p->req.ttft_s, t.replicas,
								p->req.max_gpus / replica,
								&t.res.infer.ttft_p99_s);
					}
				sized:
					t.gpus = t.replicas * replica;
					t.nodes = (uint32_t)((t.gpus + gpn - 1) / gpn);
					if ((int)t.nodes > hw->max_nodes)
						continue;
					t.fabric = fabric;
					t.fits = 1;
					plan_score_choice(p, &t);
					if (!have || t.score < best.score) {
						best = t;
						have = 1;
					}
				}
			}
		}
		if (have) {
			double mb = c->min_bytes;
			*c = best;
			c->min_bytes = mb;
		} else if (mem_ok) {
			c->min_bytes = NAN; /* memory was not what failed: the rate was (plan_rank) */
		}
	}
}

/* ---- threads ---- */

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct plan *p = wk->p;
	for (;;) {
		size_t k = atomic_fetch_add(wk->next, 1);
		const struct plan_item *it;
		if (k >= p->nitems)
			break;
		it = &p->items[wk->order[k]];
		wk->st.items++;
		if (p->base.task == MODEL_TASK_INFER)
			item_infer(wk, it);
		else
			item_train(wk, it);
		atomic_fetch_add(wk->done, 1);
	}
	return NULL;
}

struct item_key {
	double work;
	size_t idx;
};

static int cmp_item_work(const void *a, const void *b)
{
	const struct item_key *x = a, *y = b;
	if (x->work != y->work)
		return x->work > y->work ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int plan_search(struct plan *p)
{
	int nt = p->req.threads;
	size_t i, *order;
	struct worker *wk;
	atomic_size_t next, done;
	struct enum_cache cache;
	double t0 = now_s();

	if ((size_t)nt > p->nitems)
		nt = p->nitems ? (int)p->nitems : 1;
	if (nt > 256)
		nt = 256;
	order = xcalloc(p->nitems ? p->nitems : 1, sizeof(*order));
	{
		/* biggest items first, so no thread is left with a large one at the end */
		struct item_key *k = xcalloc(p->nitems + 1, sizeof(*k));
		for (i = 0; i < p->nitems; i++) {
			k[i].work = p->items[i].work;
			k[i].idx = i;
		}
		if (p->nitems > 1)
			qsort(k, p->nitems, sizeof(*k), cmp_item_work);
		for (i = 0; i < p->nitems; i++)
			order[i] = k[i].idx;
		free(k);
	}
	atomic_init(&next, 0);
	atomic_init(&done, 0);
	enum_cache_init(&cache, p);
	wk = xcalloc((size_t)nt, sizeof(*wk));
	for (i = 0; i < (size_t)nt; i++) {
		wk[i].exact = xcalloc(p->nfab + 1, 1);
		wk[i].p = p;
		wk[i].next = &next;
		wk[i].done = &done;
		wk[i].order = order;
		wk[i].cache = &cache;
	}
	if (nt == 1 && !p->req.progress) {
		worker_main(&wk[0]);
	} else {
		size_t started = 0;
		for (i = 0; i < (size_t)nt; i++) {
			if (pthread_create(&wk[i].th, NULL, worker_main, &wk[i]))
				break;
			started++;
		}
		if (!started)
			worker_main(&wk[0]);
		while (p->req.progress && atomic_load(&done) < p->nitems) {
			struct timespec ts = {0, 100 * 1000 * 1000};
			p->req.progress(p->req.progress_arg, atomic_load(&done), p->nitems);
			nanosleep(&ts, NULL);
		}
		for (i = 0; i < started; i++)
			pthread_join(wk[i].th, NULL);
		if (p->req.progress)
			p->req.progress(p->req.progress_arg, p->nitems, p->nitems);
	}
	memset(&p->stats, 0, sizeof(p->stats));
	for (i = 0; i < (size_t)nt; i++) {
		p->stats.configs += wk[i].st.configs;
		p->stats.memory_calls += wk[i].st.memory_calls;
		p->stats.estimate_calls += wk[i].st.estimate_calls;
		p->stats.bound_calls += wk[i].st.bound_calls;
		p->stats.items += wk[i].st.items;
		p->stats.layouts += wk[i].st.layouts;
		free(wk[i].lay);
		free(wk[i].lay_mem);
		free(wk[i].lay_mem_state);
		free(wk[i].exact);
	}
	p->stats.threads = nt;
	p->stats.wall_s = now_s() - t0;
	enum_cache_free(&cache, p->nitems);
	free(wk);
	free(order);
	return 0;
}
