/*
 * Why the first choice: which branch of the seeds' architecture decision
 * tree it is (one node over NVLink, one node over PCIe, several nodes of one
 * GPU, several nodes of several GPUs over InfiniBand/RoCE), what decides its
 * size, what would go wrong on the alternatives, and which optimisations to
 * turn on.  Every figure comes from model_estimate()/model_memory() on a
 * changed copy of the chosen configuration, or from the search's own
 * results; nothing is a rule of thumb.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/serving.h"
#include "plan/plan_int.h"
#include "util/units.h"
#include "report/fmt.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Formats a text of the explanation into *dst (malloc()ed, whole), replacing what it held. */
static void note_printf(char **dst, const char *fmt, ...) GS_PRINTF(2, 3);
static void note_printf(char **dst, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(*dst);
	*dst = strbuf_detach(&sb, NULL);
}
#define NOTEF(dst, ...) note_printf(&(dst), __VA_ARGS__)

static double comm_of(const struct model_time *t)
{
	return t->tp_comm_s + t->ep_comm_s + t->cp_comm_s + t->dp_comm_s + t->zero_comm_s + t->pp_p2p_s;
}

static double pcie_gbps_of(double gen)
{
	/* PCI-SIG x16 per direction, as data/links.csv gives pcie3..pcie6 */
	return gen >= 6 ? 121 : gen >= 5 ? 63 : gen >= 4 ? 31.5 : 15.75;
}

/* The GPU fabric in words, named as its vendor names it (Infinity Fabric, on-die RoCE, NVLink). */
static const char *link_words(enum model_link k, int nvls, const struct cat_gpu *g)
{
	const char *v = g && g->vendor ? g->vendor : "";
	if (k == MODEL_LINK_NVLINK || k == MODEL_LINK_NVSWITCH) {
		if (!strcasecmp(v, "amd"))
			return "Infinity Fabric (xGMI)";
		if (!strcasecmp(v, "intel"))
			return "on-die RoCE Ethernet ports";
	}
	switch (k) {
	case MODEL_LINK_NVSWITCH:
		return nvls ? "NVSwitch (with in-switch reduction)" : "NVSwitch";
	case MODEL_LINK_NVLINK:
		return "NVLink";
	case MODEL_LINK_PCIE:
		return "PCIe";
	default:
		return "no GPU link";
	}
}

static struct plan_note *note(struct plan_explanation *ex, const char *kind)
{
	struct plan_note *n;
	if (ex->nalt >= sizeof(ex->alt) / sizeof(ex->alt[0]))
		return NULL;
	n = &ex->alt[ex->nalt++];
	memset(n, 0, sizeof(*n));
	snprintf(n->kind, sizeof(n->kind), "%s", kind);
	n->step_s = NAN;
	n->ratio_time = NAN;
	n->ratio_cost = NAN;
	n->time_s = NAN;
	n->cost_usd = NAN;
	n->capex_usd = NAN;
	n->memory_bytes = NAN;
	n->comm_share = NAN;
	n->link_gbps = NAN;
	return n;
}

/*
 * The memory a layout may take on m's GPU, in words: "159.6 GiB (177.3 GiB
 * less the 10% headroom)", or the capacity alone without headroom.
 */
static const char *limit_words(const struct plan *p, const struct model_memory *m, char *buf, size_t len)
{
	char lim[32], cap[32];
	double h = plan_memory_headroom_pct(p);
	fmt_bytes(m->capacity_bytes, FMT_BYTES_BINARY, cap, sizeof(cap));
	if (!(h > 0)) {
		snprintf(buf, len, "%s", cap);
		return buf;
	}
	fmt_bytes(plan_memory_limit_bytes(p, m), FMT_BYTES_BINARY, lim, sizeof(lim));
	snprintf(buf, len, "%s (%s less the %.3g%% headroom)", lim, cap, h);
	return buf;
}

/* A step time's figures: three, whole seconds from 999.5 s on, where %.3g would write an exponent. */
static const char *step_figures(double s, char *buf, size_t len)
{
	snprintf(buf, len, fabs(s) < 999.5 ? "%.3g" : "%.0f", s);
	return buf;
}

enum plan_cmp plan_compare_steps(double alt_s, double cur_s, char *buf, size_t len)
{
	char a[32], b[32];
	double r = alt_s / cur_s;
	step_figures(alt_s, a, sizeof(a));
	step_figures(cur_s, b, sizeof(b));
	if (!strcmp(a, b)) {
		snprintf(buf, len, "%s s either way", a);
		return PLAN_CMP_SAME;
	}
	if (fabs(r - 1) < PLAN_CMP_SAME_WITHIN) {
		snprintf(buf, len, "%s s instead of %s s, within %.1f%%", a, b, 100 * PLAN_CMP_SAME_WITHIN);
		return PLAN_CMP_SAME;
	}
	snprintf(buf, len, "%s s instead of %s s, %.2fx the time", a, b, r);
	return r > 1 ? PLAN_CMP_SLOWER : PLAN_CMP_FASTER;
}

/* "1.25x the time", or "the same time" for a ratio within PLAN_CMP_SAME_WITHIN of 1 (it would print 1.00x). */
static const char *ratio_words(double r, const char *what, char *buf, size_t len)
{
	if (fabs(r - 1) < PLAN_CMP_SAME_WITHIN)
		snprintf(buf, len, "the same %s", what);
	else
		snprintf(buf, len, "%.2fx the %s", r, what);
	return buf;
}

/* The largest communication term's name and the collective behind it. */
static const char *main_comm(const struct model_config *cfg, const struct model_time *t, char *buf, size_t len)
{
	double v[6] = {t->tp_comm_s, t->dp_comm_s, t->zero_comm_s, t->pp_p2p_s, t->ep_comm_s, t->cp_comm_s};
	int i, k = 0;
	for (i = 1; i < 6; i++)
		if (v[i] > v[k])
			k = i;
	switch (k) {
	case 0:
		snprintf(buf, len, "the TP=%d all-reduce", cfg->tp);
		break;
	case 1:
		snprintf(buf, len, "the data-parallel gradient %s (dp=%d)",
			 cfg->zero ? "reduce-scatter/all-gather" : "all-reduce", cfg->dp);
		break;
	case 2:
		snprintf(buf, len, "the ZeRO-3 parameter gathers (dp=%d)", cfg->dp);
		break;
	case 3:
		snprintf(buf, len, "the pipeline sends (pp=%d)", cfg->pp);
		break;
	case 4:
		snprintf(buf, len, "the expert all-to-all (ep=%d)", cfg->ep);
		break;
	default:
		snprintf(buf, len, "the context-parallel K/V ring (cp=%d)", cfg->cp);
		break;
	}
	return buf;
}

/* Time a config the way the search does, and say what its communication costs. */
static int time_variant(const struct plan *p, const struct model_config *cfg, struct model_result *r)
{
	return model_estimate(p->req.w, cfg, r) || !(r->time.step_s > 0) ? -1 : 0;
}

/*
 * Times cfg, a changed copy of c's layout, and opens a note of kind with
 * its step time, its time against c's and whether it fits (*r: the
 * result).  NULL when the model cannot time it or the notes are full.
 */
static struct plan_note *timed_note(const struct plan *p, const struct plan_choice *c, struct plan_explanation *ex,
				    const char *kind, const struct model_config *cfg, struct model_result *r)
{
	struct plan_note *n;
	if (time_variant(p, cfg, r) || !(n = note(ex, kind)))
		return NULL;
	n->step_s = r->time.step_s;
	n->ratio_time = r->time.step_s / c->res.time.step_s;
	n->comm_share = comm_of(&r->time) / r->time.step_s;
	n->fits = plan_memory_fits(p, &r->mem);
	return n;
}

/* Sizes cfg's memory and opens a note of kind saying whether it fits (*m); NULL as timed_note(). */
static struct plan_note *memory_note(const struct plan *p, struct plan_explanation *ex, const char *kind,
				     const struct model_config *cfg, struct model_memory *m)
{
	struct plan_note *n;
	if (model_memory(p->req.w, cfg, m) || !(n = note(ex, kind)))
		return NULL;
	n->fits = plan_memory_fits(p, m);
	n->memory_bytes = m->total_bytes;
	return n;
}

static void alt_intra(const struct plan *p, const struct plan_choice *c, struct plan_explanation *ex)
{
	const struct plan_hw *hw = &p->hw[c->hw];
	struct model_config cfg = c->cfg;
	struct model_result r;
	struct plan_note *n;
	char what[96], cmp[96];
	double gen = hw->gpu->pcie_gen;
	const struct cat_link *pl;
	char key[16];
	enum plan_cmp k;

	if (hw->gpus_per_node <= 1 || p->base.task == MODEL_TASK_INFER)
		return;
	if (hw->intra_kind == MODEL_LINK_PCIE) {
		/* the other way round: what the GPU's own links would give */
		struct model_config nv = c->cfg;
		const struct cat_link *gl;
		if (!hw->gpu->gpu_link || !(hw->gpu->gpu_link_gbps > 0) || !cat_has(gen))
			return;
		gl = catalog_get(p->cat, CAT_LINKS, hw->gpu->gpu_link);
		nv.intra_kind = MODEL_LINK_NVLINK;
		nv.intra_gbps = hw->gpu->gpu_link_gbps;
		nv.intra_lat_us = gl && cat_has(gl->latency_us) ? gl->latency_us : 1;
		n = timed_note(p, c, ex, "link", &nv, &r);
		if (!n)
			return;
		n->link_gbps = nv.intra_gbps;
		k = plan_compare_steps(r.time.step_s, c->res.time.step_s, cmp, sizeof(cmp));
		NOTEF(n->text,
		      "with the %s's own %s (%.0f GB/s) instead of PCIe Gen%.0f the step would %s (%s); "
		      "communication now is %.0f%% of the step",
		      hw->gpu->row.key, hw->gpu->gpu_link, hw->gpu->gpu_link_gbps, gen,
		      k == PLAN_CMP_FASTER ? "be shorter" :
		      k == PLAN_CMP_SAME   ? "not change" :
					     "be longer",
		      cmp, 100 * comm_of(&c->res.time) / c->res.time.step_s);
		return;
	}
	if (!cat_has(gen))
		return; /* a superchip (GB200, GH200): no PCIe form to compare with */
	snprintf(key, sizeof(key), "pcie%.0f", gen);
	pl = catalog_get(p->cat, CAT_LINKS, key);
	cfg.intra_kind = MODEL_LINK_PCIE;
	cfg.intra_gbps = pl && cat_has(pl->bw_gbps_per_dir) ? pl->bw_gbps_per_dir : pcie_gbps_of(gen);
	/* links.c's PCIe node: a host-bridge hop more than the link's own latency */
	cfg.intra_lat_us = (pl && cat_has(pl->latency_us) ? pl->latency_us : 1.0) + 1.0;
	cfg.intra_nvls = 0;
	n = timed_note(p, c, ex, "link", &cfg, &r);
	if (!n)
		return;
	n->ratio_cost = n->ratio_time;
	n->link_gbps = cfg.intra_gbps;
	k = plan_compare_steps(r.time.step_s, c->res.time.step_s, cmp, sizeof(cmp));
	if (!(comm_of(&r.time) > 0.005 * r.time.step_s) || k != PLAN_CMP_SLOWER) {
		/* nothing to slow down: a buyer can take the cheaper board */
		NOTEF(n->text,
		      "over PCIe Gen%.0f (%.0f GB/s) instead of %s the step would %s (%s): this job barely "
		      "uses the GPU links (communication %.1f%% of the step)",
		      gen, cfg.intra_gbps, link_words(hw->intra_kind, hw->intra_nvls, hw->gpu),
		      k == PLAN_CMP_SLOWER ? "be longer" :
		      k == PLAN_CMP_SAME   ? "not change" :
					     "be shorter",
		      cmp, 100 * comm_of(&r.time) / r.time.step_s);
		return;
	}
	main_comm(&cfg, &r.time, what, sizeof(what));
	NOTEF(n->text,
	      "over PCIe Gen%.0f (%.0f GB/s) instead of %s, communication would be %.0f%% of the step, most "
	      "of it %s: %s",
	      gen, cfg.intra_gbps, link_words(hw->intra_kind, hw->intra_nvls, hw->gpu),
	      100 * comm_of(&r.time) / r.time.step_s, what, cmp);
}

static void alt_fabric(const struct plan *p, const struct plan_choice *c, struct plan_explanation *ex)
{
	struct model_config cfg = c->cfg;
	struct model_result r;
	struct plan_note *n;
	char what[96], net[64], cmp[96];
	const struct plan_fabric *slow;
	double per_gpu;

	if (c->nodes <= 1 || !p->nfab || p->base.task == MODEL_TASK_INFER)
		return;
	slow = &p->fab[0];
	/* a commodity network: one port of the slowest fabric per server */
	per_gpu = slow->gbps_per_gpu / p->hw[c->hw].gpus_per_node;
	cfg.inter_gbps_per_gpu = per_gpu;
	cfg.inter_lat_us = slow->lat_us;
	n = timed_note(p, c, ex, "fabric", &cfg, &r);
	if (n) {
		enum plan_cmp k = plan_compare_steps(r.time.step_s, c->res.time.step_s, cmp, sizeof(cmp));
		n->ratio_cost = n->ratio_time;
		main_comm(&cfg, &r.time, what, sizeof(what));
		if (k == PLAN_CMP_SLOWER)
			NOTEF(n->text,
			      "with one %s port per server instead of %s, %s would leave "
			      "communication at %.0f%% of the step: %s",
			      slow->link->row.name ? slow->link->row.name : slow->link->row.key,
			      plan_network_name(p, c, net, sizeof(net)), what,
			      100 * comm_of(&r.time) / r.time.step_s, cmp);
		else
			NOTEF(n->text,
			      "with one %s port per server instead of %s the step would %s (%s): communication "
			      "would stay at %.0f%% of it",
			      slow->link->row.name ? slow->link->row.name : slow->link->row.key,
			      plan_network_name(p, c, net, sizeof(net)),
			      k == PLAN_CMP_SAME ? "not change" : "be shorter", cmp,
			      100 * comm_of(&r.time) / r.time.step_s);
	}
	if (c->fabric >= 0 && c->fabric_best_step_s > 0 &&
	    p->fab[c->fabric].gbps_per_gpu < p->fab[p->nfab - 1].gbps_per_gpu) {
		n = note(ex, "fabric");
		if (n) {
			n->step_s = c->fabric_best_step_s;
			n->ratio_time = c->fabric_best_step_s / c->res.time.step_s;
			double gain = 100 * (1 - c->fabric_best_step_s / c->res.time.step_s);
			char g[48], st[32];
			/* a gain that prints as 0.0 % is none to a reader */
			if (gain < 0.05)
				snprintf(g, sizeof(g), "gain nothing");
			else
				snprintf(g, sizeof(g), "gain %.1f%%", gain);
			NOTEF(n->text,
			      "%s (one port per GPU) is enough: the fastest fabric would %s (step %s s); of the "
			      "fabrics within 2%% of the fastest, the one whose NICs, switches and optics cost least "
			      "to buy is kept",
			      p->fab[c->fabric].link->row.key, g,
			      step_figures(c->fabric_best_step_s, st, sizeof(st)));
		}
	}
}

/* The same hardware on one node, from the search's own results. */
static void alt_one_node(const struct plan *p, const struct plan_choice *c, struct plan_explanation *ex)
{
	size_t i;
	const struct plan_hw *hw = &p->hw[c->hw];
	char a[32], mem[32], cap[80], m[32], rt[32], rc[32];
	struct plan_note *n;

	if (c->nodes <= 1 || p->base.task == MODEL_TASK_INFER)
		return;
	for (i = 0; i < p->nall; i++) {
		const struct plan_choice *o = &p->all[i];
		if (o->hw != c->hw || o->nodes != 1)
			continue;
		n = note(ex, "one-node");
		if (!n)
			return;
		n->fits = o->fits;
		if (!o->fits) {
			n->memory_bytes = o->min_bytes;
			/* the same GPU as c's: c's capacity is its */
			NOTEF(n->text,
			      "one %s (%d GPUs) does not fit: every layout needs at least %s per GPU of %s",
			      hw->label, hw->gpus_per_node,
			      fmt_bytes(o->min_bytes, FMT_BYTES_BINARY, mem, sizeof(mem)),
			      limit_words(p, &c->res.mem, cap, sizeof(cap)));
			return;
		}
		n->step_s = o->res.time.step_s;
		n->ratio_time = o->hours / c->hours;
		n->ratio_cost = o->cost_usd / c->cost_usd;
		n->time_s = o->hours * 3600;
		n->cost_usd = o->cost_usd;
		fmt_duration(o->hours * 3600, FMT_DURATION_TEXT, a, sizeof(a));
		NOTEF(n->text, "one %s (%d GPUs, the single-node architecture) would take %s for %s: %s, %s%s",
		      hw->label, hw->gpus_per_node, a, fmt_money(o->cost_usd, FMT_MONEY_SHORT, m, sizeof(m)),
		      ratio_words(n->ratio_time, "time", rt, sizeof(rt)),
		      ratio_words(n->ratio_cost, "cost", rc, sizeof(rc)),
		      o->violates & PLAN_VIOL_DEADLINE ? ", past the deadline" : "");
		return;
	}
}

/* Activation recompute as the layout code writes it (rs, rf, ro), in words. */
static const char *recompute_words(enum model_recompute r)
{
	switch (r) {
	case MODEL_RECOMPUTE_SELECTIVE:
		return "selective activation recompute (rs: attention scores redone)";
	case MODEL_RECOMPUTE_FULL:
		return "full activation recompute (rf: each layer's forward redone)";
	case MODEL_RECOMPUTE_SELECTIVE_OP:
		return "per-op activation recompute (ro: every other matmul's output kept, the rest redone)";
	default:
		return "";
	}
}

/*
 * Context parallelism (layout code c): what it is, what the ring costs, and
 * what the same GPUs would need without it (the cp ranks become data
 * parallel, so the count stays).
 */
static void why_cp(const struct plan *p, const struct plan_choice *c, struct plan_explanation *ex)
{
	struct model_config cfg = c->cfg;
	struct model_memory m;
	struct plan_note *n;
	char need[32], cap[80], ring[48];

	if (p->base.task == MODEL_TASK_INFER || c->cfg.cp <= 1)
		return;
	cfg.dp *= cfg.cp;
	cfg.cp = 1;
	n = note(ex, "context");
	if (!n)
		return;
	n->fits = 1;
	snprintf(ring, sizeof(ring), "%.0f%% of the step", 100 * c->res.time.cp_comm_s / c->res.time.step_s);
	if (model_memory(p->req.w, &cfg, &m)) {
		NOTEF(n->text,
		      "context parallelism (c%d) splits each %d-token sequence over %d GPUs, which pass K/V blocks "
		      "around a ring while attention runs (ring attention); the ring's exposed part is %s",
		      c->cfg.cp, c->cfg.seq_len, c->cfg.cp, ring);
		return;
	}
	fmt_bytes(m.total_bytes, FMT_BYTES_BINARY, need, sizeof(need));
	limit_words(p, &m, cap, sizeof(cap));
	n->fits = plan_memory_fits(p, &m);
	n->memory_bytes = m.total_bytes;
	NOTEF(n->text,
	      "context parallelism (c%d) splits each %d-token sequence over %d GPUs, which pass K/V blocks "
	      "around a ring while attention runs (ring attention; exposed: %s); without it each GPU would hold "
	      "a whole sequence's activations, %s of its %s%s",
	      c->cfg.cp, c->cfg.seq_len, c->cfg.cp, ring, need, cap,
	      n->fits ? ", which fits: the split is kept because it is faster" : ": it would not fit");
}

/*
 * Offload to host memory (layout codes oo, op): what moves, how much host
 * memory it takes, and what each GPU would need without it.
 */
static void why_offload(const struct plan *p, const struct plan_choice *c, struct plan_explanation *ex)
{
	struct model_config cfg = c->cfg;
	struct model_memory m;
	struct plan_note *n;
	char host[32], need[32], cap[80];
	int params = c->cfg.offload == MODEL_OFFLOAD_PARAMS;

	if (p->base.task == MODEL_TASK_INFER || c->cfg.offload == MODEL_OFFLOAD_NONE)
		return;
	cfg.offload = MODEL_OFFLOAD_NONE;
	n = memory_note(p, ex, "offload", &cfg, &m);
	if (!n)
		return;
	fmt_bytes(c->res.mem.host_bytes * p->hw[c->hw].gpus_per_node, FMT_BYTES_BINARY, host, sizeof(host));
	fmt_bytes(m.total_bytes, FMT_BYTES_BINARY, need, sizeof(need));
	limit_words(p, &m, cap, sizeof(cap));
	NOTEF(n->text,
	      "%s (%s) keeps the optimizer states and master weights%s in host memory (%s a server), the CPU "
	      "updating them (ZeRO-Offload; transfers and update exposed: %.0f%% of the step); without it each "
	      "GPU would need %s of its %s%s",
	      params ? "optimizer and parameter offload" : "optimizer offload", params ? "op" : "oo",
	      params ? " and the parameters, streamed in layer by layer," : "", host,
	      100 * c->res.time.offload_s / c->res.time.step_s, need, cap,
	      n->fits ? ", which fits: offload is kept because it is cheaper here" : ": it would not fit");
}

/* Without the memory savers the choice relies on. */
static void alt_memory(const struct plan *p, const struct plan_choice *c, struct plan_explanation *ex)
{
	struct model_config cfg = c->cfg;
	struct model_memory m;
	struct plan_note *n;
	char need[32], cap[80], saver[112], z[16], cmp[96];
	enum plan_cmp k;

	if (p->base.task == MODEL_TASK_INFER || (c->cfg.zero == 0 && c->cfg.recompute == MODEL_RECOMPUTE_NONE))
		return;
	snprintf(saver, sizeof(saver), "%s%s%s",
		 c->cfg.zero ? (snprintf(z, sizeof(z), "ZeRO-%d", c->cfg.zero), z) : "",
		 c->cfg.zero && c->cfg.recompute ? " and " : "", recompute_words(c->cfg.recompute));
	cfg.zero = 0;
	cfg.recompute = MODEL_RECOMPUTE_NONE;
	n = memory_note(p, ex, "memory", &cfg, &m);
	if (!n)
		return;
	limit_words(p, &m, cap, sizeof(cap));
	if (!n->fits) {
		NOTEF(n->text, "without %s each GPU would need %s of its %s: it would not fit", saver,
		      fmt_bytes(m.total_bytes, FMT_BYTES_BINARY, need, sizeof(need)), cap);
	} else {
		struct model_result r;
		if (time_variant(p, &cfg, &r))
			return;
		n->step_s = r.time.step_s;
		n->ratio_time = r.time.step_s / c->res.time.step_s;
		k = plan_compare_steps(r.time.step_s, c->res.time.step_s, cmp, sizeof(cmp));
		fmt_bytes(m.total_bytes, FMT_BYTES_BINARY, need, sizeof(need));
		if (k == PLAN_CMP_SLOWER)
			NOTEF(n->text,
			      "without %s it would still fit, needing %s of %s, but the step would be longer (%s): "
			      "%s saves more time than it costs here",
			      saver, need, cap, cmp, saver);
		else if (k == PLAN_CMP_SAME)
			NOTEF(n->text,
			      "without %s it would still fit, needing %s of %s, and the step would not change (%s): "
			      "%s neither saves nor costs time here",
			      saver, need, cap, cmp, saver);
		else
			NOTEF(n->text,
			      "without %s it would still fit, needing %s of %s, and the step would be shorter (%s): "
			      "%s costs time here",
			      saver, need, cap, cmp, saver);
	}
}

static int same_gpu(const struct plan *p, const struct plan_choice *a, const struct plan_choice *b)
{
	return p->hw[a->hw].gpu == p->hw[b->hw].gpu;
}

static void ratio_note(const struct plan *p, const struct plan_choice *c, const struct plan_choice *o,
		       struct plan_explanation *ex, const char *kind, const char *lead)
{
	struct plan_note *n = note(ex, kind);
	char t[32], lay[48], m[32], rt[32], rc[32];
	if (!n)
		return;
	n->fits = 1;
	n->step_s = o->res.time.step_s;
	n->ratio_time = p->base.task == MODEL_TASK_INFER ? o->latency_s / c->latency_s : o->hours / c->hours;
	n->ratio_cost = o->cost_usd / c->cost_usd;
	n->time_s = p->base.task == MODEL_TASK_INFER ? o->latency_s : o->hours * 3600;
	n->cost_usd = o->cost_usd;
	fmt_duration(n->time_s, FMT_DURATION_TEXT, t, sizeof(t));
	NOTEF(n->text, "%s: %ux%d %s (%s), %s%s for %s%s: %s, %s%s", lead, o->nodes, p->hw[o->hw].gpus_per_node,
	      p->hw[o->hw].label, plan_layout_code(&o->cfg, lay, sizeof(lay)), t,
	      p->base.task == MODEL_TASK_INFER ? " a request" : "",
	      fmt_money(o->cost_usd, FMT_MONEY_SHORT, m, sizeof(m)),
	      p->base.task == MODEL_TASK_INFER ? " an hour" : "",
	      ratio_words(n->ratio_time, "time", rt, sizeof(rt)),
	      ratio_words(n->ratio_cost, "cost", rc, sizeof(rc)), o->violates ? " (misses a constraint)" : "");
}

/* The best choices on other GPU types, and the best PCIe-only one. */
static void alt_tiers(const struct plan *p, const struct plan_choice *c, struct plan_explanation *ex)
{
	const struct cat_gpu *seen[3] = {NULL, NULL, NULL};
	size_t h, k, nseen = 0;
	const struct plan_choice *pcie = NULL;

	/* plan_best_on() gives each option's best; pick the three best other GPU types */
	for (k = 0; k < 3; k++) {
		const struct plan_choice *best = NULL;
		for (h = 0; h < p->nhw; h++) {
			const struct plan_choice *o = plan_best_on(p, h);
			size_t j;
			int dup = 0;
			if (!o || same_gpu(p, o, c) || o->violates)
				continue;
			for (j = 0; j < nseen; j++)
				dup |= seen[j] == p->hw[h].gpu;
			if (dup)
				continue;
			if (!best || o->score < best->score || (o->score == best->score && o < best))
				best = o;
		}
		if (!best)
			break;
		seen[nseen++] = p->hw[best->hw].gpu;
		ratio_note(p, c, best, ex, "tier", "best on another GPU type");
	}
	if (plan_arch_of(p, c) == PLAN_ARCH_NODE_PCIE || plan_arch_of(p, c) == PLAN_ARCH_NODES_ONE_GPU ||
	    plan_arch_of(p, c) == PLAN_ARCH_ONE_GPU)
		return;
	/* one pass: the pick (least score, then first) does not depend on the order of the visit */
	for (h = 0; h < p->nall; h++) {
		const struct plan_choice *o = &p->all[h];
		enum plan_arch a;
		if (!o->fits || o->violates)
			continue;
		a = plan_arch_of(p, o);
		if (a != PLAN_ARCH_NODE_PCIE && a != PLAN_ARCH_NODES_ONE_GPU)
			continue;
		if (!pcie || o->score < pcie->score || (o->score == pcie->score && o < pcie))
			pcie = o;
	}
	if (pcie)
		ratio_note(p, c, pcie, ex, "pcie", "best with no NVLink between GPUs (PCIe, or one GPU per node)");
}

/*
 * What more money buys: against the fastest larger purchase of the same
 * hardware when c is one node (the default ranking may have kept it below
 * c, plan_demoted), or against the cheapest single node that meets the
 * constraints when c spans several.
 */
static void alt_scale(const struct plan *p, const struct plan_choice *c, struct plan_explanation *ex)
{
	const struct plan_choice *o = NULL;
	struct plan_note *n;
	char t1[32], t2[32], m1[32], m2[32], d[32];
	size_t i;

	if (!c->has_bom || p->base.task == MODEL_TASK_INFER)
		return;
	for (i = 0; i < p->nall; i++) {
		const struct plan_choice *x = &p->all[i];
		if (!x->fits || x->violates || !x->has_bom || x == c)
			continue;
		if (c->nodes == 1) {
			if (x->hw != c->hw || x->nodes <= 1 || x->hours >= c->hours)
				continue;
			/* the largest count that is still at least twice as fast per dollar of capex is not sought:
			 * the fastest shows the most the money can buy */
			if (!o || x->hours < o->hours)
				o = x;
		} else {
			if (x->nodes != 1)
				continue;
			if (!o || x->bom.capex_usd < o->bom.capex_usd)
				o = x;
		}
	}
	if (!o || !(o->bom.capex_usd > 0) || !(c->bom.capex_usd > 0))
		return;
	n = note(ex, "capex");
	if (!n)
		return;
	n->fits = 1;
	n->step_s = o->res.time.step_s;
	n->ratio_time = o->hours / c->hours;
	n->ratio_cost = o->cost_usd / c->cost_usd;
	n->time_s = o->hours * 3600;
	n->cost_usd = o->cost_usd;
	n->capex_usd = o->bom.capex_usd;
	fmt_duration(o->hours * 3600, FMT_DURATION_TEXT, t1, sizeof(t1));
	fmt_duration(c->hours * 3600, FMT_DURATION_TEXT, t2, sizeof(t2));
	fmt_money(o->bom.capex_usd, FMT_MONEY_SHORT, m1, sizeof(m1));
	fmt_money(c->bom.capex_usd, FMT_MONEY_SHORT, m2, sizeof(m2));
	if (c->nodes == 1) {
		fmt_money(o->bom.capex_usd - c->bom.capex_usd, FMT_MONEY_SHORT, d, sizeof(d));
		NOTEF(n->text,
		      "buying %ux%d %s instead (%s, %.1fx the capex) would finish in %s instead of %s: "
		      "%s more buys %.1fx the speed%s",
		      o->nodes, p->hw[o->hw].gpus_per_node, p->hw[o->hw].label, m1,
		      o->bom.capex_usd / c->bom.capex_usd, t1, t2, d, c->hours / o->hours,
		      plan_demoted(p, o, c) ? ", not worth several times the purchase for a job one node "
					      "finishes this soon (--objective time ranks by speed)" :
					      "");
	} else {
		fmt_money(c->bom.capex_usd - o->bom.capex_usd, FMT_MONEY_SHORT, d, sizeof(d));
		NOTEF(n->text,
		      "the extra %s over the cheapest single node that meets the constraints, %ux%d %s "
		      "(%s to buy, %s), buys %.1fx the speed: %s instead of %s",
		      d, o->nodes, p->hw[o->hw].gpus_per_node, p->hw[o->hw].label, m1, t1, o->hours / c->hours, t2,
		      t1);
	}
}

/*
 * Serving: what the replicas share, appended to the branch of one replica.
 * Independent copies of the model never talk to each other: requests reach
 * them over the front-end network, and only a replica split over nodes
 * sends anything over the scale-out fabric.
 */
static void replicas_text(const struct plan *p, const struct plan_choice *c, struct plan_explanation *ex)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned servers = c->nodes;
	if (c->replicas <= 1)
		return;
	strbuf_addstr(&sb, ex->arch_text);
	strbuf_addf(&sb,
		    "; %d replicas on %u server%s serve the rate independently: they do not talk to each "
		    "other, so %s (requests reach them over the front-end network)",
		    c->replicas, servers, servers == 1 ? "" : "s",
		    plan_replica_nodes(p, c) > 1 ? "only each replica's own pipeline traffic crosses the network" :
						   "no GPU traffic crosses the network");
	free(ex->arch_text);
	ex->arch_text = strbuf_detach(&sb, NULL);
}

static void arch_text(const struct plan *p, const struct plan_choice *c, struct plan_explanation *ex)
{
	const struct plan_hw *hw = &p->hw[c->hw];
	char net[64], mem[32], cap[32];
	double pct = 100 * c->res.mem.total_bytes / c->res.mem.capacity_bytes;
	int infer = p->base.task == MODEL_TASK_INFER;
	/* serving: one replica's GPUs and nodes (plan_arch_of) */
	int gpus = infer ? c->cfg.tp * c->cfg.pp : c->gpus, nodes = plan_replica_nodes(p, c);

	fmt_bytes(c->res.mem.total_bytes, FMT_BYTES_BINARY, mem, sizeof(mem));
	fmt_bytes(c->res.mem.capacity_bytes, FMT_BYTES_BINARY, cap, sizeof(cap));
	switch (ex->arch) {
	case PLAN_ARCH_ONE_GPU:
		NOTEF(ex->arch_text,
		      "one GPU: the workload fits on one %s (%s of %s, %.0f%%), so no GPU link or "
		      "network is needed",
		      hw->gpu->row.key, mem, cap, pct);
		break;
	case PLAN_ARCH_NODE_NVLINK:
		NOTEF(ex->arch_text,
		      "one node, several GPUs over %s: %s%d x %s joined by %s (%.0f GB/s a direction "
		      "per GPU); %s stay%s on the GPU links, no scale-out network is needed",
		      link_words(hw->intra_kind, 0, hw->gpu), infer ? "a replica is " : "", gpus, hw->gpu->row.key,
		      link_words(hw->intra_kind, hw->intra_nvls, hw->gpu), hw->intra_gbps,
		      infer ? "its tensor and pipeline parallelism" : "tensor and data parallelism",
		      infer ? "s" : "");
		break;
	case PLAN_ARCH_NODE_PCIE:
		if (infer)
			NOTEF(ex->arch_text,
			      "one node, several GPUs over PCIe: a replica is %d x %s on PCIe (%.0f GB/s a "
			      "direction), split tp=%d, pp=%d",
			      gpus, hw->gpu->row.key, hw->intra_gbps, c->cfg.tp, c->cfg.pp);
		else
			NOTEF(ex->arch_text,
			      "one node, several GPUs over PCIe: %d x %s on PCIe (%.0f GB/s a direction); "
			      "the layout keeps traffic between GPUs small (tp=%d, dp=%d%s)",
			      gpus, hw->gpu->row.key, hw->intra_gbps, c->cfg.tp, c->cfg.dp,
			      c->cfg.zero ? ", sharded optimizer" : "");
		break;
	case PLAN_ARCH_NODES_ONE_GPU:
		if (infer)
			NOTEF(ex->arch_text,
			      "several nodes of one GPU each: a replica is %d x %s over %s, its pipeline stages "
			      "(pp=%d) passing activations over the network",
			      nodes, hw->gpu->row.key, plan_network_name(p, c, net, sizeof(net)), c->cfg.pp);
		else
			NOTEF(ex->arch_text,
			      "several nodes of one GPU each: %u x %s over %s; %s cross the network", c->nodes,
			      hw->gpu->row.key, plan_network_name(p, c, net, sizeof(net)),
			      c->cfg.pp > 1 ? "the pipeline sends and the data-parallel gradients" :
					      "only data-parallel gradients, once per step,");
		break;
	default:
		if (infer)
			NOTEF(ex->arch_text,
			      "several nodes of several GPUs: a replica spans %d nodes of %d x %s, %s inside each "
			      "node and %s between nodes; tensor parallelism (tp=%d) stays inside a node and only "
			      "the pipeline stages (pp=%d) pass activations over the network",
			      nodes, hw->gpus_per_node, hw->gpu->row.key,
			      link_words(hw->intra_kind, hw->intra_nvls, hw->gpu),
			      plan_network_name(p, c, net, sizeof(net)), c->cfg.tp, c->cfg.pp);
		else
			NOTEF(ex->arch_text,
			      "several nodes of several GPUs: %u nodes of %d x %s, %s inside each node and "
			      "%s between nodes; tensor parallelism (tp=%d) stays inside a node, pipeline "
			      "(pp=%d) and data (dp=%d) parallelism cross the network",
			      c->nodes, hw->gpus_per_node, hw->gpu->row.key,
			      link_words(hw->intra_kind, hw->intra_nvls, hw->gpu),
			      plan_network_name(p, c, net, sizeof(net)), c->cfg.tp, c->cfg.pp, c->cfg.dp);
		break;
	}
	if (infer)
		replicas_text(p, c, ex);
}

int plan_queue_of(const struct plan *p, const struct plan_choice *c, struct model_queue *q)
{
	memset(q, 0, sizeof(*q));
	if (p->base.task != MODEL_TASK_INFER || !c->fits)
		return -1;
	if (p->simulate) {
		/* the serving simulation's figures (search.c served_replicas): no queue model of its own */
		double rate = p->req.rate_per_s > 0 ? p->req.rate_per_s : 1;
		q->replicas = c->replicas;
		q->slots = c->cfg.batch;
		q->rate_per_s = rate;
		q->capacity_per_s = c->replicas * c->res.infer.samples_per_s;
		q->utilisation = q->capacity_per_s > 0 ? rate / q->capacity_per_s : INFINITY;
		q->ttft_p99_s = c->res.infer.ttft_p99_s;
		q->wait_p99_s = fmax(0, q->ttft_p99_s - c->res.infer.prefill_s);
		return 0;
	}
	/* each replica runs batches of cfg.batch (dp 1): the search's own queue (search.c) */
	model_queue_at(p->req.rate_per_s > 0 ? p->req.rate_per_s : 1, c->replicas, c->cfg.batch,
		       c->res.infer.request_s, c->res.infer.prefill_s, q);
	return 0;
}

/* What held each replica's batch where it is: memory, --max-batch or the latency targets. */
static const char *batch_bound(const struct plan *p, const struct plan_choice *c)
{
	struct model_config cfg = c->cfg;
	struct model_memory m;
	int max_batch = p->req.max_batch > 0 ? p->req.max_batch : 256;
	if (p->simulate)
		return "the mean the simulated scheduler reaches";
	/* the search doubles the batch while it fits, then halves it until the targets are met */
	if (2 * cfg.batch > max_batch)
		return "the --max-batch limit";
	cfg.batch *= 2;
	if (model_memory(p->req.w, &cfg, &m) || !plan_memory_fits(p, &m))
		return "the most that fit in memory";
	return "the most that meet the targets";
}

/* " (target 1.00 s)", or " (no target)" */
static const char *target_words(double target_s, char *buf, size_t len)
{
	char t[32];
	if (target_s > 0)
		snprintf(buf, len, " (target %s)", fmt_duration(target_s, FMT_DURATION_TEXT, t, sizeof(t)));
	else
		snprintf(buf, len, " (no target)");
	return buf;
}

/* A share in %: whole from 1 % on, two figures below ("0.61%"), so a busy queue never reads "0%" or "1%". */
static const char *share_words(double fraction, char *buf, size_t len)
{
	double v = 100 * fraction;
	snprintf(buf, len, v >= 0.995 || v == 0 ? "%.0f%%" : "%.2g%%", v);
	return buf;
}

/*
 * Inference: replicas, their batch and what set it, the load each carries,
 * and for a decoder the p99 time to first token (queueing for a free batch
 * slot included, model_queue_at) and the time per output token, each
 * against its target.  An encoder or a per-sample network produces no
 * output tokens: its latency is a request's, with queueing for an encoder.
 */
static void infer_sizing_text(const struct plan *p, const struct plan_choice *c, struct plan_explanation *ex)
{
	double rate = p->req.rate_per_s > 0 ? p->req.rate_per_s : 1;
	int gpus = c->cfg.tp * c->cfg.pp;
	struct model_queue q;
	char lat[32], ttft[32], tpot[32], tt[48], tp[48], lt[48], more[96] = "", cap[32], use[32], load[256];

	plan_queue_of(p, c, &q);
	fmt_duration(c->latency_s, FMT_DURATION_TEXT, lat, sizeof(lat));
	snprintf(load, sizeof(load), "serve%s %.6g requests/s at %s of %s capacity of %s requests/s",
		 c->replicas == 1 ? "s" : "", rate, share_words(q.utilisation, use, sizeof(use)),
		 c->replicas == 1 ? "its" : "their",
		 fmt_count(q.capacity_per_s, FMT_COUNT_SI_SHORT, cap, sizeof(cap)));
	if (p->req.w->kind != WORKLOAD_TRANSFORMER) {
		NOTEF(ex->sizing,
		      "%d replica%s of %d GPU%s, each running batches of %d (%s), %s, within %s each%s",
		      c->replicas, c->replicas == 1 ? "" : "s", gpus, gpus == 1 ? "" : "s", c->cfg.batch,
		      batch_bound(p, c), load, lat, target_words(p->req.deadline_s, lt, sizeof(lt)));
		return;
	}
	{
		/* replicas beyond what the throughput needs were added for the p99 TTFT */
		int need = (int)ceil(rate / (q.capacity_per_s / c->replicas) - 1e-9);
		if (need < 1)
			need = 1;
		if (c->replicas > need)
			snprintf(more, sizeof(more), " (%d would carry the rate; the p99 %s target needs %d)",
				 need, plan_generates(p) ? "TTFT" : "latency", c->replicas);
	}
	if (!plan_generates(p)) {
		/* an encoder answers a request whole: its first token is its answer, and no token follows */
		NOTEF(ex->sizing,
		      "%d replica%s of %d GPU%s, each running %d requests at once (%s), %s%s; each answers a "
		      "request in %s%s, %s at p99 with queueing%s; an encoder produces no output tokens, so "
		      "there is no time per output token",
		      c->replicas, c->replicas == 1 ? "" : "s", gpus, gpus == 1 ? "" : "s", c->cfg.batch,
		      batch_bound(p, c), load, more, lat, target_words(p->req.deadline_s, lt, sizeof(lt)),
		      fmt_duration(q.ttft_p99_s, FMT_DURATION_TEXT, ttft, sizeof(ttft)),
		      target_words(p->req.ttft_s, tt, sizeof(tt)));
		return;
	}
	NOTEF(ex->sizing,
	      "%d replica%s of %d GPU%s, each running %d requests at once (%s), %s%s; each gives a p99 TTFT "
	      "of %s with queueing%s, a %sTPOT of %s%s and a request in %s%s",
	      c->replicas, c->replicas == 1 ? "" : "s", gpus, gpus == 1 ? "" : "s", c->cfg.batch,
	      batch_bound(p, c), load, more, fmt_duration(q.ttft_p99_s, FMT_DURATION_TEXT, ttft, sizeof(ttft)),
	      target_words(p->req.ttft_s, tt, sizeof(tt)), p->simulate ? "p99 " : "",
	      fmt_duration(c->res.infer.decode_token_s, FMT_DURATION_TEXT, tpot, sizeof(tpot)),
	      target_words(p->req.tpot_s, tp, sizeof(tp)), lat, target_words(p->req.deadline_s, lt, sizeof(lt)));
}

/* What sets the size: the smallest count that fits, and what more GPUs would give. */
static void sizing_text(const struct plan *p, const struct plan_choice *c, struct plan_explanation *ex)
{
	const struct plan_choice *least = NULL, *fastest = NULL;
	size_t i;
	char t1[32], t2[32], m1[32], m2[32];

	for (i = 0; i < p->nall; i++) {
		const struct plan_choice *o = &p->all[i];
		if (o->hw != c->hw || !o->fits)
			continue;
		if (!least || o->gpus < least->gpus)
			least = o;
		if (!fastest || o->hours < fastest->hours)
			fastest = o;
	}
	if (p->base.task == MODEL_TASK_INFER) {
		infer_sizing_text(p, c, ex);
		return;
	}
	if (!least || !fastest)
		return;
	fmt_duration(least->hours * 3600, FMT_DURATION_TEXT, t1, sizeof(t1));
	fmt_duration(fastest->hours * 3600, FMT_DURATION_TEXT, t2, sizeof(t2));
	NOTEF(ex->sizing,
	      "on %s the fewest GPUs that fit are %d (%s, %s%s) and the fastest count searched is "
	      "%d (%s, %s); %d GPU%s rank%s first by %s%s",
	      p->hw[c->hw].label, least->gpus, t1, fmt_money(least->cost_usd, FMT_MONEY_SHORT, m1, sizeof(m1)),
	      least->violates & PLAN_VIOL_LIFE ? ", longer than the hardware's life" : "", fastest->gpus, t2,
	      fmt_money(fastest->cost_usd, FMT_MONEY_SHORT, m2, sizeof(m2)), c->gpus, c->gpus == 1 ? "" : "s",
	      c->gpus == 1 ? "s" : "", plan_objective_name(p->req.objective),
	      p->req.deadline_s > 0 ? " within the deadline" : "");
}

int plan_explain(const struct plan *p, const struct plan_choice *c, struct plan_explanation *ex)
{
	const struct model_time *t;
	double step;
	size_t i;

	memset(ex, 0, sizeof(*ex));
	if (!c || !c->fits)
		return -1;
	ex->arch = plan_arch_of(p, c);
	arch_text(p, c, ex);
	sizing_text(p, c, ex);
	alt_intra(p, c, ex);
	alt_fabric(p, c, ex);
	alt_one_node(p, c, ex);
	alt_scale(p, c, ex);
	alt_memory(p, c, ex);
	why_cp(p, c, ex);
	why_offload(p, c, ex);
	alt_tiers(p, c, ex);
	plan_rent_or_buy(p, c, &ex->rent, &ex->rent_text);
	ex->nadvice = model_recommend(p->req.w, &c->cfg, ex->advice, sizeof(ex->advice) / sizeof(ex->advice[0]));
	t = &c->res.time;
	step = t->step_s > 0 ? t->step_s : 1;
	ex->compute_share = t->compute_s / step;
	ex->comm_share = comm_of(t) / step;
	ex->bubble_share = t->pp_bubble_s / step;
	ex->data_share = t->data_s / step;
	ex->other_share = 1 - ex->compute_share - ex->comm_share - ex->bubble_share - ex->data_share;
	if (ex->other_share < 0)
		ex->other_share = 0;
	/* a branch that found nothing to say leaves its text empty, never NULL */
	if (!ex->arch_text)
		ex->arch_text = xstrdup("");
	if (!ex->sizing)
		ex->sizing = xstrdup("");
	if (!ex->rent_text)
		ex->rent_text = xstrdup("");
	for (i = 0; i < ex->nalt; i++)
		if (!ex->alt[i].text)
			ex->alt[i].text = xstrdup("");
	return 0;
}

void plan_explanation_release(struct plan_explanation *ex)
{
	size_t i;
	free(ex->arch_text);
	free(ex->sizing);
	free(ex->rent_text);
	for (i = 0; i < ex->nalt; i++)
		free(ex->alt[i].text);
	model_advice_release(ex->advice, ex->nadvice);
	memset(ex, 0, sizeof(*ex));
}
