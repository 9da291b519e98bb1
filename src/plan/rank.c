/*
 * After the search: the cost, energy and objective of every (hardware,
 * count), the constraints, the ranking, the Pareto front, and the accessors
 * of what the ranking found.
 *
 * The ranking is a total order: objective, then cost, then time, then GPU
 * count, then the slot's place in the stable hardware order.  The front
 * keeps, in order of time, each choice cheaper than every faster one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_int.h"
#include "util/xalloc.h"

static const char *const objective_names[PLAN_OBJ_COUNT] = {"time", "cost", "energy", "balanced", "capex"};

const char *plan_objective_name(enum plan_objective o)
{
	return (unsigned)o < PLAN_OBJ_COUNT ? objective_names[o] : "?";
}

int plan_objective_from_name(const char *s)
{
	int i;
	for (i = 0; s && i < PLAN_OBJ_COUNT; i++)
		if (!strcmp(s, objective_names[i]))
			return i;
	return -1;
}

/* The time a choice is judged by: time to finish, or a request's latency. */
static double time_metric(const struct plan *p, const struct plan_choice *c)
{
	return p->base.task == MODEL_TASK_INFER ? c->latency_s : c->hours * 3600;
}

/* Servers (or instances) a choice occupies: inference, every replica's; training, the slot's. */
static double choice_nodes(const struct plan *p, const struct plan_choice *c)
{
	return p->base.task == MODEL_TASK_INFER ? ceil((double)c->gpus / p->hw[c->hw].gpus_per_node - 1e-9) :
						  (double)c->nodes;
}

/*
 * The bill of materials of a choice on owned hardware: its nodes, the
 * fabric it runs over (a generic build's fabric, or the node's own NICs or
 * on-die ports), racks and storage.  0, or -1 when a node draws more than
 * --rack-kw.
 */

static int choice_bom(const struct plan *p, const struct plan_choice *c, struct bom *b)
{
	const struct plan_hw *hw = &p->hw[c->hw];
	struct bom_in in;
	struct diag err;
	memset(&in, 0, sizeof(in));
	in.nodes = choice_nodes(p, c);
	in.gpus_per_node = hw->gpus_per_node + hw->spare_per_node; /* spares are bought too */
	in.node_kw = hw->node_power_kw;
	in.node_u = hw->rack_units;
	in.node_usd = hw->tco ? hw->tco->value[TCO_IN_PRICE] : NAN;
	in.cooling = hw->cooling;
	if (c->fabric >= 0 && (size_t)c->fabric < p->nfab) {
		in.net = p->fab[c->fabric].link;
		/* rail-optimised: one NIC per GPU, spares cabled so a spare tray takes over at once */
		in.ports_per_node = hw->gpus_per_node + hw->spare_per_node;
		in.ports_in_node_price = 0;
	} else if (hw->own_link &&
		   !(p->base.task == MODEL_TASK_INFER && c->cfg.tp * c->cfg.pp <= hw->gpus_per_node)) {
		/* a serving replica inside one node talks to no other: no scale-out fabric for it */
		in.net = hw->own_link;
		in.ports_per_node = hw->own_ports_per_node;
		in.ports_in_node_price = 1;
	}
	in.rack_kw = p->req.rack_kw;
	in.storage_tb = p->req.storage_tb > 0 ? p->req.storage_tb : -1;
	in.pue = NAN;
	in.licence = p->req.licence;
	diag_clear(&err);
	return bom_build(b, p->cat, &in, &err);
}

double plan_fabric_capex(const struct plan *p, size_t hw, uint32_t nodes, int fabric)
{
	struct plan_choice c;
	struct bom b;
	memset(&c, 0, sizeof(c));
	c.hw = (uint32_t)hw;
	c.nodes = nodes;
	c.gpus = (int)nodes * p->hw[hw].gpus_per_node;
	c.fabric = fabric;
	if (choice_bom(p, &c, &b))
		return INFINITY;
	return b.fabric_usd;
}

/*
 * Checkpoint bytes: bf16 weights plus the optimizer's fp32 state
 * (AdamW: master copy and two moments, 14 bytes a parameter; SGD with
 * momentum 10; 8-bit Adam 8); adapters alone for LoRA and QLoRA (about 1 %
 * of the parameters).
 */
static double checkpoint_bytes(const struct plan *p)
{
	double params = p->req.w->params, per = 14;
	if (p->base.optimizer == MODEL_OPTIM_SGD_MOMENTUM)
		per = 10;
	else if (p->base.optimizer == MODEL_OPTIM_ADAMW8BIT)
		per = 8;
	if (p->base.task == MODEL_TASK_LORA || p->base.task == MODEL_TASK_QLORA)
		params *= 0.01;
	return params * per;
}

/*
 * Goodput (docs/plan.md): with interruptions at rate L per hour (the
 * facility's failure rate per GPU-hour x GPUs), a restart of R hours, a
 * checkpoint write of C hours every T hours of work, a run of W hours of
 * work takes
 *
 *   wall = W (1 + C/T) / (1 - L (R + (T + C)/2))
 *
 * (each interruption costs the restart and, on average, half an interval
 * of work and its checkpoint).  T defaults to Young's optimum sqrt(2 C / L);
 * --checkpoint-every sets it.  The denominator is held at 0.05 or more: a
 * run that loses more than 95 % of its time never finishes in practice.
 */
static void goodput(const struct plan *p, struct plan_choice *c, double write_gbs)
{
	struct plan_goodput *g = &c->gp;
	double rate = catalog_facility(p->cat, "failure_rate_per_gpu_hour");
	double restart_h = catalog_facility(p->cat, "restart_minutes") / 60;
	double W = c->res.time_to_train_s / 3600, L, C, T, den, wall;

	memset(g, 0, sizeof(*g));
	g->ideal_hours = W;
	g->goodput = 1;
	if (!cat_has(rate) || rate < 0)
		rate = 0;
	if (!cat_has(restart_h) || restart_h < 0)
		restart_h = 0;
	g->fail_rate_per_gpu_hour = rate;
	L = rate * c->gpus;
	g->ckpt_bytes = checkpoint_bytes(p);
	C = write_gbs > 0 ? g->ckpt_bytes / (write_gbs * 1e9) / 3600 : 0;
	g->ckpt_write_s = C * 3600;
	if (p->req.checkpoint_every_s > 0)
		T = p->req.checkpoint_every_s / 3600;
	else
		T = L > 0 && C > 0 ? sqrt(2 * C / L) : W;
	if (!(T > 0) || T > W)
		T = W; /* no checkpoint before the end */
	g->ckpt_every_s = T * 3600;
	den = 1 - L * (restart_h + (T + (T < W ? C : 0)) / 2);
	if (den < 0.05)
		den = 0.05;
	wall = W * (1 + (T < W ? C / T : 0)) / den;
	g->ckpt_hours = T < W ? W * C / T : 0;
	g->fail_hours = wall - W - g->ckpt_hours;
	g->interruptions = L * wall;
	g->goodput = wall > 0 ? W / wall : 1;
}

/*
 * Spare GPUs (docs/plan.md, "Spares") are hot spares: powered and idle for
 * the whole run, at the GPU's idle draw (gpus.csv idle_w; 12 % of TDP where
 * the catalog has none, as the model's power does).  kWh over c->hours.
 */
static double spare_kwh(const struct plan *p, const struct plan_choice *c)
{
	const struct plan_hw *hw = &p->hw[c->hw];
	const struct cat_gpu *g = hw->gpu;
	double idle_w;
	if (!hw->spare_per_node)
		return 0;
	idle_w = cat_has(g->idle_w) && g->idle_w > 0 ? g->idle_w : cat_has(g->tdp_w) ? 0.12 * g->tdp_w : 0;
	return choice_nodes(p, c) * hw->spare_per_node * idle_w / 1000 * c->hours;
}

/*
 * The rates a GPU-hour of owned hardware with inputs in costs for a run of
 * hours: *share at the inputs' utilisation (other paid work fills the rest
 * of the hours), *charged at the utilisation the runs a year give where
 * that is less (plan_owned_utilisation; docs/plan.md "Rent or buy").  Left
 * as they are when the inputs cannot be priced.
 */
void plan_owned_rates(const struct plan *p, const struct tco_inputs *in, double hours, double *share,
		      double *charged)
{
	struct tco_inputs x = *in;
	struct diag err;
	double r;

	diag_clear(&err);
	if (!cost_owned_usd_per_gpu_hour(&x, &r, &err))
		*share = *charged = r;
	x.value[TCO_IN_UTILISATION] = plan_owned_utilisation(p, in->value[TCO_IN_UTILISATION], hours);
	diag_clear(&err);
	if (x.value[TCO_IN_UTILISATION] < in->value[TCO_IN_UTILISATION] &&
	    !cost_owned_usd_per_gpu_hour(&x, &r, &err))
		*charged = r;
}

/*
 * Cost of owned hardware: the whole account of cost/cost.h for this many
 * nodes and their bill of materials (fabric, storage, cooling, racks) as
 * $/GPU-hour at the TCO utilisation, times GPUs paid for x hours; rented:
 * the on-demand price.  Training: one run; inference: one hour.
 */
void plan_score_choice(const struct plan *p, struct plan_choice *c)
{
	const struct plan_hw *hw = &p->hw[c->hw];
	double paid = (double)c->nodes * (hw->gpus_per_node + hw->spare_per_node), t;
	double miss = 0, rate = hw->cost.usd_per_gpu_hour, share_rate, mig = 1, cs, ms;
	struct tco_inputs in;
	int rack_ok = 1;

	c->has_bom = 0;
	if (hw->cloud) {
		/* rented: the bill says what is rented; has_bom stays for a bill to buy */
		bom_build_rented(&c->bom, p->cat, hw->cloud, choice_nodes(p, c), hw->node_power_kw,
				 p->req.storage_tb > 0 ? p->req.storage_tb : -1);
	} else if (hw->tco) {
		rack_ok = choice_bom(p, c, &c->bom) == 0;
		c->has_bom = rack_ok;
		if (rack_ok) {
			in = *hw->tco;
			in.value[TCO_IN_COUNT] = c->bom.servers;
			tco_inputs_bom(&in, &c->bom, 1);
		}
	}
	if (p->base.task == MODEL_TASK_INFER) {
		c->hours = 1;
		c->energy_kwh = c->res.power_w * c->gpus / 1000;
		memset(&c->gp, 0, sizeof(c->gp));
		c->gp.goodput = 1;
	} else {
		struct bom sb;
		double write_gbs = c->has_bom || c->bom.rented ? c->bom.storage_write_gbs : 0;
		if (!c->has_bom && !c->bom.rented && !choice_bom(p, c, &sb))
			write_gbs = sb.storage_write_gbs; /* rented: the same storage, to time checkpoints */
		if (!(write_gbs > 0))
			write_gbs = c->nodes * 1.0; /* no shared storage: each node's NVMe, about 1 GB/s (E) */
		goodput(p, c, write_gbs);
		c->hours = c->res.time_to_train_s / 3600 / c->gp.goodput;
		c->energy_kwh = c->res.energy_kwh / c->gp.goodput;
	}
	c->energy_kwh += spare_kwh(p, c);
	share_rate = rate;
	if (c->has_bom) {
		plan_owned_rates(p, &in, c->hours, &share_rate, &rate);
		/*
		 * Those are whole-GPU rates: a MIG instance pays its share of the GPU,
		 * the other slices serve other work.  hw->cost is scaled already
		 * (add_mig), so the rate above is not scaled twice.
		 */
		if (hw->mig && !model_mig_share(hw->gpu, hw->mig, &cs, &ms))
			mig = cs;
	}
	c->cost_usd = rate * mig * paid * c->hours;
	c->share_usd = hw->cloud ? NAN : share_rate * mig * paid * c->hours;
	c->power_kw = c->nodes * hw->node_power_kw;
	t = time_metric(p, c);
	c->violates = 0;
	if (!rack_ok) {
		c->violates |= PLAN_VIOL_RACK;
		/* against the rack bom_build could not fill: --rack-kw or the cooling's default */
		miss = fmax(miss, c->bom.rack_kw > 0 ? hw->node_power_kw / c->bom.rack_kw : 2);
	}
	if (p->req.deadline_s > 0) {
		if (t > p->req.deadline_s)
			c->violates |= PLAN_VIOL_DEADLINE;
		miss = fmax(miss, t / p->req.deadline_s);
	}
	if (p->base.task == MODEL_TASK_INFER) {
		/* time to first token and per output token: latency targets like the request's */
		double ttft = c->res.infer.ttft_p99_s > 0 ? c->res.infer.ttft_p99_s : c->res.infer.prefill_s;
		double tpot = c->res.infer.decode_token_s;
		if (p->req.ttft_s > 0) {
			if (ttft > p->req.ttft_s)
				c->violates |= PLAN_VIOL_DEADLINE;
			miss = fmax(miss, ttft / p->req.ttft_s);
		}
		if (p->req.tpot_s > 0 && tpot > 0 && plan_generates(p)) {
			if (tpot > p->req.tpot_s)
				c->violates |= PLAN_VIOL_DEADLINE;
			miss = fmax(miss, tpot / p->req.tpot_s);
		}
	}
	if (hw->tco && !hw->cloud && p->base.task != MODEL_TASK_INFER) {
		/* owned: the run must end within the life the hardware is priced over */
		double life_h = hw->tco->value[TCO_IN_YEARS] * TCO_HOURS_PER_YEAR;
		if (life_h > 0 && c->hours > life_h) {
			c->violates |= PLAN_VIOL_LIFE;
			miss = fmax(miss, c->hours / life_h);
		}
	}
	if (p->req.budget_usd > 0 && !isnan(plan_committed_usd(p, c))) {
		/* the money the choice commits; owned hardware no rack holds has no bill: the rack's miss */
		double spend = plan_committed_usd(p, c);
		if (spend > p->req.budget_usd)
			c->violates |= PLAN_VIOL_BUDGET;
		miss = fmax(miss, spend / p->req.budget_usd);
	}
	if (p->req.power_kw > 0) {
		if (c->power_kw > p->req.power_kw)
			c->violates |= PLAN_VIOL_POWER;
		miss = fmax(miss, c->power_kw / p->req.power_kw);
	}
	c->miss = miss;
	switch (p->req.objective) {
	case PLAN_OBJ_COST:
		c->score = c->cost_usd;
		break;
	case PLAN_OBJ_ENERGY:
		c->score = c->energy_kwh;
		break;
	case PLAN_OBJ_BALANCED:
		c->score = t * c->cost_usd;
		break;
	case PLAN_OBJ_CAPEX:
		c->score = c->has_bom ? c->bom.capex_usd : INFINITY;
		break;
	default:
		c->score = t;
		break;
	}
}

double plan_committed_usd(const struct plan *p, const struct plan_choice *c)
{
	if (p->hw[c->hw].cloud)
		return c->cost_usd;
	return c->has_bom ? c->bom.capex_usd : NAN;
}

/* Sort keys copied out of the choices, so the comparators need no global state. */
struct rank_key {
	double k[3];
	int gpus;
	size_t idx;
};

static int cmp_d(double a, double b)
{
	return a < b ? -1 : a > b;
}

static int cmp_key(const void *a, const void *b)
{
	const struct rank_key *x = a, *y = b;
	int i, r;
	for (i = 0; i < 3; i++)
		if ((r = cmp_d(x->k[i], y->k[i])))
			return r;
	if (x->gpus != y->gpus)
		return x->gpus < y->gpus ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Sorts idx[0..n) by objective, cost, time, GPUs, index (front: by time, cost, index). */
static void sort_choices(const struct plan *p, size_t *idx, size_t n, int front)
{
	struct rank_key *k = xcalloc(n + 1, sizeof(*k));
	size_t i;
	for (i = 0; i < n; i++) {
		const struct plan_choice *c = &p->all[idx[i]];
		if (front) {
			k[i].k[0] = time_metric(p, c);
			k[i].k[1] = c->cost_usd;
			k[i].k[2] = 0;
			k[i].gpus = 0;
		} else {
			k[i].k[0] = c->score;
			k[i].k[1] = p->req.objective == PLAN_OBJ_CAPEX ? time_metric(p, c) : c->cost_usd;
			/* equal cost: the smaller purchase first */
			k[i].k[2] = p->req.objective == PLAN_OBJ_CAPEX || !c->has_bom ? c->cost_usd :
											c->bom.capex_usd;
			k[i].gpus = c->gpus;
		}
		k[i].idx = idx[i];
	}
	if (n > 1)
		qsort(k, n, sizeof(*k), cmp_key);
	for (i = 0; i < n; i++)
		idx[i] = k[i].idx;
	free(k);
}

/*
 * The default ranking (by cost) keeps a cluster (or a rack-scale node,
 * bigger_purchase) that costs several times as much to buy as the best
 * single server below it unless it is
 * correspondingly faster: a choice with k >= PLAN_SCALE_CAPEX times the
 * node's capex must finish at least sqrt(k) times sooner (4x the money,
 * twice as fast), and none is worth it when the node alone finishes
 * within a day.  Cost on owned hardware assumes the extra GPUs do other
 * paid work when this job does not need them; a buyer sizing for one job
 * should not be sold them on that assumption alone.
 */
#define PLAN_SCALE_CAPEX 3.0
/* A job one node finishes within a day gains nothing worth several times the capex from more. */
#define PLAN_SCALE_DAY_S 86400.0

static int barely_faster(const struct plan *p, const struct plan_choice *x, const struct plan_choice *one)
{
	double k, speedup;
	if (!x->has_bom || !one->has_bom || !(one->bom.capex_usd > 0))
		return 0;
	k = x->bom.capex_usd / one->bom.capex_usd;
	speedup = time_metric(p, one) / time_metric(p, x);
	return k >= PLAN_SCALE_CAPEX && (speedup < sqrt(k) || time_metric(p, one) <= PLAN_SCALE_DAY_S);
}

/*
 * Whether a choice is a bigger purchase than one server: several nodes, or
 * one rack-scale NVLink domain of more than PLAN_SERVER_GPUS GPUs (a GB200
 * NVL72 rack is one node to the model and ten servers' worth of capex).
 */
#define PLAN_SERVER_GPUS 8
static int bigger_purchase(const struct plan *p, const struct plan_choice *c)
{
	const struct plan_hw *hw = &p->hw[c->hw];
	return c->nodes > 1 || hw->gpus_per_node + hw->spare_per_node > PLAN_SERVER_GPUS;
}

static void demote_barely_faster(const struct plan *p, size_t *idx, size_t n)
{
	size_t s, i, k = 0, nd = 0, *keep, *down;
	if (p->req.objective != PLAN_OBJ_COST || p->base.task == MODEL_TASK_INFER)
		return;
	/* the best single server; where none was searched (GB200 alone), the best single node */
	for (s = 0; s < n && bigger_purchase(p, &p->all[idx[s]]); s++)
		;
	if (s == n)
		for (s = 0; s < n && p->all[idx[s]].nodes != 1; s++)
			;
	if (s == n || s == 0)
		return;
	keep = xcalloc(n + 1, sizeof(size_t));
	down = xcalloc(n + 1, sizeof(size_t));
	for (i = 0; i < s; i++) {
		if (barely_faster(p, &p->all[idx[i]], &p->all[idx[s]]))
			down[nd++] = idx[i];
		else
			keep[k++] = idx[i];
	}
	keep[k++] = idx[s];
	for (i = 0; i < nd; i++)
		keep[k++] = down[i];
	for (i = s + 1; i < n; i++)
		keep[k++] = idx[i];
	memcpy(idx, keep, n * sizeof(size_t));
	free(keep);
	free(down);
}

int plan_demoted(const struct plan *p, const struct plan_choice *c, const struct plan_choice *one)
{
	return p->req.objective == PLAN_OBJ_COST && p->base.task != MODEL_TASK_INFER && c != one &&
	       bigger_purchase(p, c) && one && one->nodes == 1 && barely_faster(p, c, one);
}

void plan_rank(struct plan *p)
{
	size_t i, n = 0, nfit = 0, *fit, *ok;
	size_t top = p->req.top; /* 10 unless given (search_defaults) */
	double best_cost;

	fit = xcalloc(p->nall + 1, sizeof(size_t));
	ok = xcalloc(p->nall + 1, sizeof(size_t));
	for (i = 0; i < p->nall; i++) {
		struct plan_choice *c = &p->all[i];
		if (!c->fits)
			continue;
		if (p->base.task != MODEL_TASK_INFER)
			plan_score_choice(p, c);
		fit[nfit++] = i;
		if (!c->violates)
			ok[n++] = i;
	}
	sort_choices(p, fit, nfit, 0);
	sort_choices(p, ok, n, 0);
	demote_barely_faster(p, fit, nfit);
	demote_barely_faster(p, ok, n);

	/*
	 * The ranked list names each GPU type once, with its best server,
	 * count, network and layout: ten rows of one GPU in neighbouring
	 * packagings and counts would hide the other GPUs (those are on the
	 * front and in --all).
	 */
	free(p->ranked);
	p->ranked = xcalloc(top + 1, sizeof(size_t));
	p->nranked = 0;
	for (i = 0; i < n && p->nranked < top; i++) {
		const struct cat_gpu *g = p->hw[p->all[ok[i]].hw].gpu;
		size_t k;
		for (k = 0; k < p->nranked && p->hw[p->all[p->ranked[k]].hw].gpu != g; k++)
			;
		if (k == p->nranked)
			p->ranked[p->nranked++] = ok[i];
	}

	/* each option's best: among what meets the constraints, else among what fits */
	free(p->best_on_hw);
	p->best_on_hw = xmalloc((p->nhw + 1) * sizeof(size_t));
	for (i = 0; i < p->nhw; i++)
		p->best_on_hw[i] = PLAN_NONE;
	for (i = 0; i < n; i++)
		if (p->best_on_hw[p->all[ok[i]].hw] == PLAN_NONE)
			p->best_on_hw[p->all[ok[i]].hw] = ok[i];
	for (i = 0; i < nfit; i++)
		if (p->best_on_hw[p->all[fit[i]].hw] == PLAN_NONE)
			p->best_on_hw[p->all[fit[i]].hw] = fit[i];

	/* the front: in order of time, each strictly cheaper than all faster ones */
	sort_choices(p, ok, n, 1);
	free(p->front);
	p->front = xcalloc(n + 1, sizeof(size_t));
	p->nfront = 0;
	best_cost = INFINITY;
	for (i = 0; i < n; i++) {
		const struct plan_choice *c = &p->all[ok[i]];
		if (c->cost_usd < best_cost) {
			p->front[p->nfront++] = ok[i];
			best_cost = c->cost_usd;
		}
	}

	p->nearest = p->closest = p->cheapest = p->fastest = p->least_committed = PLAN_NONE;
	for (i = 0; i < nfit; i++) {
		const struct plan_choice *c = &p->all[fit[i]];
		double spend = plan_committed_usd(p, c);
		if (p->cheapest == PLAN_NONE || c->cost_usd < p->all[p->cheapest].cost_usd)
			p->cheapest = fit[i];
		if (!isnan(spend) && (p->least_committed == PLAN_NONE ||
				      spend < plan_committed_usd(p, &p->all[p->least_committed])))
			p->least_committed = fit[i];
		if (p->fastest == PLAN_NONE || time_metric(p, c) < time_metric(p, &p->all[p->fastest]))
			p->fastest = fit[i];
		if (!n && (p->nearest == PLAN_NONE || c->miss < p->all[p->nearest].miss))
			p->nearest = fit[i];
	}
	/* nothing fits in memory, unless some slot fitted a layout that could not serve the rate (NaN) */
	for (i = 0; !nfit && i < p->nall && !isnan(p->all[i].min_bytes); i++)
		;
	if (!nfit && i == p->nall) {
		for (i = 0; i < p->nall; i++) {
			const struct plan_choice *c = &p->all[i];
			double need = c->min_bytes;
			if (!isfinite(need))
				continue;
			if (p->closest == PLAN_NONE) {
				p->closest = i;
				continue;
			}
			{
				const struct plan_choice *b = &p->all[p->closest];
				double cap_c = p->hw[c->hw].gpu->memory_gib, cap_b = p->hw[b->hw].gpu->memory_gib;
				if (need / cap_c < b->min_bytes / cap_b)
					p->closest = i;
			}
		}
	}
	free(fit);
	free(ok);
}

/* ---- the ranking's answers ---- */

size_t plan_nranked(const struct plan *p)
{
	return p->nranked;
}

const struct plan_choice *plan_ranked(const struct plan *p, size_t i)
{
	return i < p->nranked ? &p->all[p->ranked[i]] : NULL;
}

size_t plan_nfront(const struct plan *p)
{
	return p->nfront;
}

const struct plan_choice *plan_front(const struct plan *p, size_t i)
{
	return i < p->nfront ? &p->all[p->front[i]] : NULL;
}

static const struct plan_choice *at(const struct plan *p, size_t i)
{
	return i == PLAN_NONE ? NULL : &p->all[i];
}

const struct plan_choice *plan_nearest_miss(const struct plan *p)
{
	return at(p, p->nearest);
}
const struct plan_choice *plan_closest_fit(const struct plan *p)
{
	return at(p, p->closest);
}
const struct plan_choice *plan_cheapest(const struct plan *p)
{
	return at(p, p->cheapest);
}
const struct plan_choice *plan_fastest(const struct plan *p)
{
	return at(p, p->fastest);
}
const struct plan_choice *plan_least_committed(const struct plan *p)
{
	return at(p, p->least_committed);
}

const struct plan_choice *plan_best_on(const struct plan *p, size_t hw)
{
	return hw < p->nhw ? at(p, p->best_on_hw[hw]) : NULL;
}

int plan_on_front(const struct plan *p, const struct plan_choice *c)
{
	size_t i;
	for (i = 0; i < p->nfront; i++)
		if (&p->all[p->front[i]] == c)
			return 1;
	return 0;
}
