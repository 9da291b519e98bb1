/*
 * Rent or buy, for the explanation of a choice: what its run costs on the
 * same GPUs rented on demand and owned, the capital owning commits, and the
 * use at which owning starts to cost less than renting (struct
 * plan_rent_buy, docs/plan.md "Rent or buy").
 *
 * Both sides are the tco module's account of the same GPUs, so the figures
 * are the ones `gpuscope tco` gives for that hardware: owned, the plan's own
 * TCO inputs with the choice's bill of materials (a rented choice's GPUs
 * owned as a generic build of the instance's size); rented, the cheapest
 * catalog instance with the GPU (tco_cloud_match; a rented choice's own
 * instance) at its on-demand price.  The break-even is tco's flip point of
 * the utilisation: owned, the whole account over the service life spread
 * over the GPU-hours worked; rented, those GPU-hours at the instance's
 * price.  At a utilisation u (%) the GPUs work u/100 x 8766 hours a year,
 * so runs of h hours a year number u/100 x 8766 / h.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plan/plan_int.h"
#include "report/fmt.h"
#include "util/strbuf.h"

static void rent_buy_clear(struct plan_rent_buy *rb)
{
	memset(rb, 0, sizeof(*rb));
	rb->rent_usd_per_gpu_hour = rb->rent_usd = rb->own_usd = rb->own_capex_usd = NAN;
	rb->utilisation_pct = rb->years = rb->breakeven_pct = NAN;
	rb->own_share_usd = rb->own_usd_per_year = rb->own_pct = NAN;
	rb->breakeven_jobs_per_year = rb->breakeven_hours_per_year = NAN;
}

/*
 * The owned side of c: the TCO inputs of its servers with their bill taken
 * in.  Owned choices have them from the search; a rented choice's GPUs are
 * priced as a generic build of the instance's GPU count (the host share of
 * catalog servers), its bill sized by the facility defaults.  0, or -1 when
 * they cannot be priced.
 */
static int owned_inputs(const struct plan *p, const struct plan_choice *c, struct tco_inputs *in,
			double *capex_usd)
{
	const struct plan_hw *hw = &p->hw[c->hw];
	struct diag err;
	struct bom b;
	char why[512];

	if (hw->tco && c->has_bom) {
		*in = *hw->tco;
		in->value[TCO_IN_COUNT] = c->bom.servers;
		tco_inputs_bom(in, &c->bom, 1);
		*capex_usd = c->bom.capex_usd;
		return 0;
	}
	if (!hw->cloud)
		return -1;
	diag_clear(&err);
	if (tco_inputs_init(in, p->cat, &err) ||
	    tco_inputs_generic(in, p->cat, hw->gpu, hw->gpus_per_node, why, sizeof(why), &err))
		return -1;
	in->value[TCO_IN_COUNT] = c->nodes;
	if (tco_inputs_size_bom(in, p->cat, p->req.rack_kw, -1, NAN, 1, &b, &err) != 1)
		return -1;
	*capex_usd = b.capex_usd;
	return 0;
}

/* Runs a year as a person reads them: "2,890", "12.5", "0.49". */
static const char *runs_words(double v, char *buf, size_t len)
{
	if (v >= 100)
		return fmt_count(v, FMT_COUNT_GROUPED, buf, len);
	snprintf(buf, len, "%.3g", v);
	return buf;
}

/* "1 run", "12 runs", "2.5 runs" */
static const char *runs_count(double n, char *buf, size_t len)
{
	char v[FMT_LEN];
	snprintf(buf, len, "%s run%s", runs_words(n, v, sizeof(v)), n == 1 ? "" : "s");
	return buf;
}

/* The verdict: whether and when owning costs less, in the figures of rb. */
static void verdict(const struct plan *p, const struct plan_choice *c, const struct plan_rent_buy *rb,
		    struct strbuf *sb)
{
	char a[FMT_LEN], b[FMT_LEN];
	int infer = p->base.task == MODEL_TASK_INFER;

	if (isnan(rb->breakeven_pct)) {
		strbuf_addstr(
			sb,
			"owning never costs less than renting these GPUs at that price, even busy every hour: rent");
		return;
	}
	strbuf_addf(
		sb,
		"owning costs less than renting only above %.0f%% utilisation over the %.3g-year life, that is ",
		rb->breakeven_pct, rb->years);
	if (infer) {
		strbuf_addf(sb, "serving %s hours a year",
			    fmt_count(rb->breakeven_hours_per_year, FMT_COUNT_GROUPED, a, sizeof(a)));
		return;
	}
	strbuf_addf(sb, "with %s runs like this one a year",
		    runs_words(rb->breakeven_jobs_per_year, a, sizeof(a)));
	if (rb->runs_per_year > 0)
		strbuf_addf(sb, ": at %s a year (--runs-per-year), %s",
			    runs_count(rb->runs_per_year, a, sizeof(a)),
			    rb->runs_per_year >= rb->breakeven_jobs_per_year ? "buy" : "rent");
	/* this run alone, once in the life, is 1 / years runs a year */
	else if (rb->breakeven_jobs_per_year * rb->years <= 1)
		strbuf_addf(sb, ": this run alone, %s of work, keeps them that busy: buy",
			    fmt_duration(c->hours * 3600, FMT_DURATION_TEXT, b, sizeof(b)));
	else
		strbuf_addstr(sb, ": for this run alone, rent");
}

/*
 * The owned side: "$99.5k as the 1 run a year it is bought for (busy 0.014%
 * of the hours, $99.5k a year to own), with $438k committed up front ($32
 * were other paid work to keep it 70% busy)" where the runs a year set the
 * price, else "$32 at 70% utilisation, with $438k committed up front".
 */
static void owned_words(const struct plan *p, const struct plan_rent_buy *rb, struct strbuf *sb)
{
	char o[FMT_LEN], k[FMT_LEN], y[FMT_LEN], sh[FMT_LEN], n[FMT_LEN];
	const char *per = p->base.task == MODEL_TASK_INFER ? " an hour" : "";

	fmt_money(rb->own_usd, FMT_MONEY_SHORT, o, sizeof(o));
	fmt_money(rb->own_capex_usd, FMT_MONEY_SHORT, k, sizeof(k));
	if (!(rb->runs_per_year > 0) || !(rb->own_pct < rb->utilisation_pct)) {
		strbuf_addf(sb, "%s%s at %.0f%% utilisation, with %s committed up front", o, per,
			    rb->utilisation_pct, k);
		return;
	}
	strbuf_addf(sb,
		    "%s as the %s a year it is bought for (busy %.2g%% of the hours, %s a year to own), with %s "
		    "committed up front (%s were other paid work to keep it %.0f%% busy)",
		    o, runs_count(rb->runs_per_year, n, sizeof(n)), rb->own_pct,
		    fmt_money(rb->own_usd_per_year, FMT_MONEY_SHORT, y, sizeof(y)), k,
		    fmt_money(rb->own_share_usd, FMT_MONEY_SHORT, sh, sizeof(sh)), rb->utilisation_pct);
}

/* How the rent side pays: "on demand", "at the 3y committed rate for the hours used", "at spot prices" */
static const char *tier_words(enum cat_tier t)
{
	switch (t) {
	case CAT_TIER_1Y:
		return "at the 1y committed rate for the hours used";
	case CAT_TIER_3Y:
		return "at the 3y committed rate for the hours used";
	case CAT_TIER_SPOT:
		return "at spot prices";
	default:
		return "on demand";
	}
}

static void rent_buy_text(const struct plan *p, const struct plan_choice *c, const struct plan_rent_buy *rb,
			  char **out)
{
	const struct plan_hw *hw = &p->hw[c->hw];
	struct strbuf sb = STRBUF_INIT;
	char r[FMT_LEN], rate[FMT_LEN];
	int infer = p->base.task == MODEL_TASK_INFER;
	const char *per = infer ? " an hour" : "";

	if (!rb->instance) {
		strbuf_addf(&sb, "no catalog instance rents %s GPUs; owned, %s ", hw->gpu->row.key,
			    infer ? "serving costs" : "the run costs");
		owned_words(p, rb, &sb);
		*out = strbuf_detach(&sb, NULL);
		return;
	}
	fmt_money(rb->rent_usd, FMT_MONEY_SHORT, r, sizeof(r));
	fmt_money(rb->rent_usd_per_gpu_hour, FMT_MONEY_CENTS, rate, sizeof(rate));
	strbuf_addf(&sb, "%s %s%s rented %s (%s at %s a GPU-hour%s%s); owned%s, ",
		    infer ? "serving costs" : "the run costs", r, per, tier_words(rb->tier), rb->instance, rate,
		    rb->same_count ? "" : ", priced per GPU-hour",
		    rb->tier != (enum cat_tier)p->req.price_tier ? ", which has no price at the tier asked" : "",
		    hw->cloud ? " as a generic build" : "");
	owned_words(p, rb, &sb);
	strbuf_addstr(&sb, "; ");
	if (hw->cloud && c->nodes > 1)
		strbuf_addstr(&sb, "(that build's bill has no scale-out fabric) ");
	verdict(p, c, rb, &sb);
	*out = strbuf_detach(&sb, NULL);
}

/*
 * The instance the rent side prices, set in *in as tco's comparator: a
 * rented choice's own, else the cheapest with c's GPU (tco_cloud_match) at
 * the request's --price-tier, else at on-demand when none has that tier
 * (rb->tier says which).  NULL when none rents the GPU.
 */
static const struct cat_cloud *rent_instance(const struct plan *p, const struct plan_choice *c,
					     struct tco_inputs *in, struct plan_rent_buy *rb)
{
	const struct plan_hw *hw = &p->hw[c->hw];
	enum cat_tier want = (enum cat_tier)p->req.price_tier, t;
	const struct cat_cloud *inst = NULL;
	struct diag err;

	for (t = want;; t = CAT_TIER_ON_DEMAND) {
		inst = hw->cloud ?
			       hw->cloud :
			       tco_cloud_match(p->cat, hw->gpu->row.key, in->gpus_per_server, t, &rb->same_count);
		if (hw->cloud)
			rb->same_count = 1;
		diag_clear(&err);
		if (inst && !tco_inputs_cloud(in, inst, t, &err)) {
			rb->tier = t;
			return inst;
		}
		if (t == CAT_TIER_ON_DEMAND)
			return NULL;
	}
}

int plan_rent_or_buy(const struct plan *p, const struct plan_choice *c, struct plan_rent_buy *rb, char **text)
{
	const struct plan_hw *hw = &p->hw[c->hw];
	const struct cat_cloud *inst;
	struct tco_inputs in;
	struct tco_result r, yr;
	struct diag err;
	double paid, share = 1, cs, ms;

	rent_buy_clear(rb);
	*text = NULL;
	if (!c->fits || owned_inputs(p, c, &in, &rb->own_capex_usd))
		return -1;
	paid = (double)c->nodes * (hw->gpus_per_node + hw->spare_per_node);
	/* a MIG instance pays its share of the GPU, rented as owned */
	if (hw->mig && !model_mig_share(hw->gpu, hw->mig, &cs, &ms))
		share = cs;
	inst = rent_instance(p, c, &in, rb);
	/*
	 * a committed tier's rate charged for the hours used, as the plan ranks
	 * rentals (cost_basis_rented_at): the rest of the term is other work
	 */
	in.cloud_reserved = 0;
	diag_clear(&err);
	if (tco_compute(&in, &r, &err))
		return -1;
	rb->utilisation_pct = in.value[TCO_IN_UTILISATION];
	rb->years = in.value[TCO_IN_YEARS];
	rb->runs_per_year = plan_runs_per_year(p);
	rb->own_pct = plan_owned_utilisation(p, rb->utilisation_pct, c->hours);
	if (hw->cloud) {
		double at_share = r.usd_per_gpu_hour, charged = r.usd_per_gpu_hour;
		plan_owned_rates(p, &in, c->hours, &at_share, &charged);
		rb->own_usd = charged * share * paid * c->hours;
		rb->own_share_usd = at_share * share * paid * c->hours;
	} else {
		/* owned choices: the plan's own cost, identical to the rates x GPU-hours */
		rb->own_usd = c->cost_usd;
		rb->own_share_usd = c->share_usd;
	}
	/* a year of owning at the utilisation own_usd is priced at: the whole account over the life */
	diag_clear(&err);
	if (!tco_compute_with(&in, TCO_IN_UTILISATION, rb->own_pct, &yr, &err))
		rb->own_usd_per_year = yr.total_usd / rb->years;
	if (inst) {
		rb->instance = inst->row.key;
		rb->rent_usd_per_gpu_hour = r.cloud_usd_per_gpu_hour;
		rb->rent_usd = r.cloud_usd_per_gpu_hour * share * paid * c->hours;
		rb->breakeven_pct = r.flip[TCO_IN_UTILISATION];
		rb->breakeven_hours_per_year = rb->breakeven_pct / 100 * in.hours_per_year;
		if (p->base.task != MODEL_TASK_INFER && c->hours > 0)
			rb->breakeven_jobs_per_year = rb->breakeven_hours_per_year / c->hours;
	}
	rent_buy_text(p, c, rb, text);
	return 0;
}
