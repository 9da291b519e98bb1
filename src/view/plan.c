/*
 * plan's text, JSON, CSV and report glue (view/plan.h).  The JSON and the
 * CSV are the field tables of plan/fields.h written by report/field.h; the
 * text is the 80-column answer, every value through report/fmt.h and every
 * line that can grow in a strbuf.
 */
#include "view/plan.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "model/serving.h"
#include "plan/fields.h"
#include "report/fmt.h"
#include "report/table.h"
#include "util/strbuf.h"
#include "view/calib.h"
#include "view/catalog.h"

/* Rows of the front the text shows; --json and --report have them all. */
#define FRONT_SHOWN 12
/* The `gpuscope estimate` line of a choice (plan_estimate_args()). */
#define ARGS_LEN 2048

/* ---- text helpers ---- */

/* Formats a paragraph and prints it wrapped at 80 columns: the first line after lead, the rest indented. */
static void wrapf(FILE *out, const char *lead, int indent, const char *fmt, ...) GS_PRINTF(4, 5);
static void wrapf(FILE *out, const char *lead, int indent, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	table_wrap(out, lead, strbuf_str(&sb), indent, 80);
	strbuf_release(&sb);
}

static const struct plan_hw *hw_of(const struct plan *p, const struct plan_choice *c)
{
	size_t nhw;
	return plan_hw(p, &nhw) + c->hw;
}

static int is_infer(const struct plan *p)
{
	return plan_request_of(p)->base.task == MODEL_TASK_INFER;
}

static const char *task_words(const struct workload *w, enum model_task t)
{
	if (w->kind != WORKLOAD_TRANSFORMER && (t == MODEL_TASK_PRETRAIN || t == MODEL_TASK_FINETUNE))
		return "training";
	switch (t) {
	case MODEL_TASK_PRETRAIN:
		return "pretraining";
	case MODEL_TASK_FINETUNE:
		return "full fine-tune";
	case MODEL_TASK_LORA:
		return "LoRA fine-tune";
	case MODEL_TASK_QLORA:
		return "QLoRA fine-tune";
	default:
		return "inference";
	}
}

/* "Llama 2 7B (6.74B parameters), full fine-tune on 1G tokens" */
static void title_line(struct strbuf *sb, const struct plan *p)
{
	const struct plan_request *req = plan_request_of(p);
	const struct workload *w = req->w;
	const struct model_config *b = plan_base(p);
	char n[FMT_LEN], c[FMT_LEN];

	strbuf_addf(sb, "%s (%s parameters), %s on ", w->name,
		    fmt_count(w->params, FMT_COUNT_SI_SHORT, n, sizeof(n)), task_words(w, b->task));
	if (b->task == MODEL_TASK_INFER)
		strbuf_addf(sb, "%s requests/s",
			    fmt_count(req->rate_per_s > 0 ? req->rate_per_s : 1, FMT_COUNT_G3, c, sizeof(c)));
	else if (b->train_tokens > 0)
		strbuf_addf(sb, "%s tokens", fmt_count(b->train_tokens, FMT_COUNT_SI_SHORT, c, sizeof(c)));
	else if (b->epochs > 1)
		strbuf_addf(sb, "%s %s x %.3g epochs", fmt_count(b->train_samples, FMT_COUNT_G3, c, sizeof(c)),
			    w->sample_unit, b->epochs);
	else
		strbuf_addf(sb, "%s %s", fmt_count(b->train_samples, FMT_COUNT_G3, c, sizeof(c)), w->sample_unit);
}

/* A choice's time in prose: a request's latency for inference, else the time to finish. */
static const char *choice_time(const struct plan *p, const struct plan_choice *x, char *b, size_t len)
{
	return is_infer(p) ? fmt_duration(x->latency_s, FMT_DURATION_STEP, b, len) :
			     fmt_duration(x->hours * 3600, FMT_DURATION_SHORT, b, len);
}

/* ---- the tables ---- */

static void choice_row(struct table *tb, const struct plan *p, size_t rank, const struct plan_choice *c,
		       int narrow)
{
	const struct plan_hw *hw = hw_of(p, c);
	char a[FMT_LEN], lay[64];

	table_row(tb);
	if (rank)
		table_cellf(tb, "%zu", rank);
	else
		table_cell(tb, "*");
	table_cellf(tb, "%ux%d %s", c->nodes, hw->gpus_per_node, hw->label);
	table_cell(tb, plan_layout_code(&c->cfg, lay, sizeof(lay)));
	table_cellf(tb, "%.0f%%", 100 * c->res.mem.total_bytes / c->res.mem.capacity_bytes);
	if (c->cfg.task == MODEL_TASK_INFER) {
		table_cell(tb, fmt_duration(c->latency_s, FMT_DURATION_STEP, a, sizeof(a)));
		table_cellf(tb, "%d", c->replicas);
		if (!narrow)
			table_cell(tb, fmt_count(c->res.samples_per_s * c->replicas, FMT_COUNT_SI_SHORT, a,
						 sizeof(a)));
		table_cell(tb, fmt_money(c->cost_usd, FMT_MONEY_SHORT, a, sizeof(a)));
		if (!narrow)
			table_cell(tb, fmt_count(c->energy_kwh, FMT_COUNT_SI_SHORT, a, sizeof(a)));
		return;
	}
	/* what rate_label() names: tokens of a transformer, else samples (an ASR model's frames are no utterances) */
	if (!narrow)
		table_cell(tb,
			   fmt_count(plan_request_of(p)->w->kind == WORKLOAD_TRANSFORMER ? c->res.tokens_per_s :
											   c->res.samples_per_s,
				     FMT_COUNT_SI_SHORT, a, sizeof(a)));
	table_cell(tb, fmt_duration(c->hours * 3600, FMT_DURATION_SHORT, a, sizeof(a)));
	table_cell(tb, fmt_money(c->cost_usd, FMT_MONEY_SHORT, a, sizeof(a)));
	table_cell(tb, c->has_bom ? fmt_money(c->bom.capex_usd, FMT_MONEY_SHORT, a, sizeof(a)) : "rent");
}

/* The throughput column says what it counts: "tok/s", "img/s", "vol/s" ... */
static const char *rate_label(const struct workload *w, char *b, size_t len)
{
	const char *u = w->sample_unit[0] ? w->sample_unit : "samples";
	if (w->kind == WORKLOAD_TRANSFORMER)
		snprintf(b, len, "tok/s");
	else if (!strncmp(u, "image", 5))
		snprintf(b, len, "img/s");
	else
		snprintf(b, len, "%.3s/s", u);
	return b;
}

static struct table *choice_table(const struct plan *p, int narrow)
{
	static const char *const infer_cols[] = {"latency", "copies", "req/s", "cost/h", "kWh/h"};
	/* narrow (the front): no throughput or energy column */
	static const unsigned char infer_wide[] = {0, 0, 1, 0, 1};
	struct table *tb = table_new();
	char rate[16];
	size_t k;

	table_column(tb, "#", ALIGN_RIGHT);
	table_column(tb, "hardware", ALIGN_LEFT);
	table_column(tb, "layout", ALIGN_LEFT);
	table_column(tb, "mem", ALIGN_RIGHT);
	if (is_infer(p)) {
		for (k = 0; k < sizeof(infer_cols) / sizeof(infer_cols[0]); k++)
			if (!narrow || !infer_wide[k])
				table_column(tb, infer_cols[k], ALIGN_RIGHT);
		return tb;
	}
	if (!narrow)
		table_column(tb, rate_label(plan_request_of(p)->w, rate, sizeof(rate)), ALIGN_RIGHT);
	table_column(tb, "time", ALIGN_RIGHT);
	table_column(tb, "cost", ALIGN_RIGHT);
	table_column(tb, "capex", ALIGN_RIGHT);
	return tb;
}

/* What the columns and layout codes of the tables mean. */
static const char train_note[] =
	"layout: t tensor, c context, p pipeline, v virtual stages, d data, e expert parallel (1s left "
	"out); z ZeRO stage; rs/rf/ro selective/full/per-op recompute; oo/op optimizer/+params offloaded; "
	"m micro-batch; mem: % of each GPU's memory; "
	"time: to finish, checkpoints and interruptions included; cost: the run on owned "
	"hardware (TCO) or rented; capex: the bill of materials to buy";
static const char infer_note[] =
	"layout: t tensor, p pipeline parallel, b batch per copy; mem: % of each GPU's "
	"memory; cost and energy per hour";


static void print_ranked(FILE *out, const struct plan *p)
{
	size_t i, n = plan_nranked(p);
	struct table *tb = choice_table(p, 0);
	int spares = 0;
	unsigned life = 0;

	fprintf(out, "\nTop %zu by %s\n", n, plan_objective_name(plan_request_of(p)->objective));
	for (i = 0; i < n; i++) {
		choice_row(tb, p, i + 1, plan_ranked(p, i), 0);
		spares |= hw_of(p, plan_ranked(p, i))->spare_per_node != 0;
		life |= hw_of(p, plan_ranked(p, i))->life;
	}
	table_print(tb, out, 80);
	table_free(tb);
	if (spares)
		table_wrap(out, "", "hardware: nodes x GPUs that train, +N GPUs a node holds spare (bought, idle)",
			   0, 80);
	/* what the lifecycle marks of the labels (CAT_LIFE_* of the rows, or'ed) mean */
	view_catalog_life_note(out, "kept by --include-eol:", life, "(", ")");
	table_wrap(out, "", is_infer(p) ? infer_note : train_note, 0, 80);
}

static void print_front(FILE *out, const struct plan *p)
{
	size_t i, nf = plan_nfront(p);
	struct table *tb = choice_table(p, 1);

	fprintf(out, "\nPareto front, time against cost: %zu choice%s (fastest first)\n", nf, nf == 1 ? "" : "s");
	for (i = 0; i < nf && i < FRONT_SHOWN; i++)
		choice_row(tb, p, (size_t)plan_rank_of(p, plan_front(p, i)), plan_front(p, i), 1);
	table_print(tb, out, 80);
	table_free(tb);
	if (nf > FRONT_SHOWN)
		fprintf(out, "(%zu more on the front: --json or --report)\n", nf - FRONT_SHOWN);
	fprintf(out, "* on the front, not in the top %zu\n", plan_nranked(p));
}

/* ---- the explanation ---- */

static void print_bom(FILE *out, const struct bom *b)
{
	char a1[FMT_LEN], a2[FMT_LEN], a3[FMT_LEN], a4[FMT_LEN], a5[FMT_LEN], a6[FMT_LEN], a7[FMT_LEN], sw[96];
	struct strbuf fab = STRBUF_INIT, unpriced = STRBUF_INIT, extras = STRBUF_INIT, run = STRBUF_INIT;

	bom_missing_text(b, &unpriced);
	bom_extras_text(b, &extras);
	bom_running_text(b, &run);
	if (b->tiers)
		strbuf_addf(&fab, "%d-tier fabric %s: switches %s %s, %.0f NIC ports%s, %.0f optics, %.0f cables",
			    b->tiers, fmt_money(b->fabric_usd, FMT_MONEY_SHORT, a1, sizeof(a1)),
			    bom_switch_text(b, sw, sizeof(sw)),
			    fmt_money(b->switch_usd, FMT_MONEY_SHORT, a2, sizeof(a2)), b->nics,
			    b->nics_bought > 0 ? "" : " (in the server price)", b->optics, b->cables);
	else
		strbuf_addstr(&fab, "no scale-out fabric");
	if (b->cooling_usd > 0)
		fmt_money(b->cooling_usd, FMT_MONEY_SHORT, a3, sizeof(a3));
	wrapf(out, "  buy          ", 15,
	      "%s: %.0f server%s %s, %.0f %s-cooled rack%s of %.0f kW (%.0f server%s a rack)%s%s; "
	      "%s; %.0f TB storage %s%s%s; %s at the wall (PUE %.2f)%s%s",
	      fmt_money(b->capex_usd, FMT_MONEY_SHORT, a4, sizeof(a4)), b->servers, b->servers == 1 ? "" : "s",
	      fmt_money(b->server_usd, FMT_MONEY_SHORT, a5, sizeof(a5)), b->racks, b->cooling,
	      b->racks == 1 ? "" : "s", b->rack_kw, b->nodes_per_rack, b->nodes_per_rack == 1 ? "" : "s",
	      b->cooling_usd > 0 ? ", liquid plant " : "", b->cooling_usd > 0 ? a3 : "", strbuf_str(&fab),
	      b->storage_tb, fmt_money(b->storage_usd, FMT_MONEY_SHORT, a6, sizeof(a6)), extras.len ? "; " : "",
	      strbuf_str(&extras), fmt_power(1000 * b->power_kw, a7, sizeof(a7)), b->pue,
	      unpriced.len ? "; unpriced: " : "", strbuf_str(&unpriced));
	wrapf(out, "  run          ", 15,
	      "a year: %s; the support contract, energy and space are in the cost (docs/tco.md)",
	      strbuf_str(&run));
	strbuf_release(&fab);
	strbuf_release(&unpriced);
	strbuf_release(&extras);
	strbuf_release(&run);
}

/* Step shares and goodput of a training choice. */
static void print_time_lines(FILE *out, const struct plan_choice *c, const struct plan_explanation *ex)
{
	const struct plan_goodput *gp = &c->gp;
	char e1[FMT_LEN], e2[FMT_LEN];

	wrapf(out, "  step         ", 15,
	      "compute %.0f%%, exposed communication %.0f%%, pipeline bubble %.0f%%, data "
	      "loading %.0f%%, optimizer and overhead %.0f%% of %.3g s; MFU %.0f%%",
	      100 * ex->compute_share, 100 * ex->comm_share, 100 * ex->bubble_share, 100 * ex->data_share,
	      100 * ex->other_share, c->res.time.step_s, 100 * c->res.mfu);
	if (!(gp->goodput < 0.9995))
		return;
	wrapf(out, "  goodput      ", 15,
	      "%.1f%% of the wall time trains: checkpoints %.1f%% (%.0f s to write %s every %s), "
	      "interruptions %.1f%% (%.3g expected at %.3g per 1,000 GPU-hours, each a restart "
	      "and half an interval recomputed)",
	      100 * gp->goodput, 100 * gp->ckpt_hours / c->hours, gp->ckpt_write_s,
	      fmt_bytes(gp->ckpt_bytes, FMT_BYTES_BINARY, e1, sizeof(e1)),
	      fmt_duration(gp->ckpt_every_s, FMT_DURATION_SHORT, e2, sizeof(e2)), 100 * gp->fail_hours / c->hours,
	      gp->interruptions, 1000 * gp->fail_rate_per_gpu_hour);
}

static void print_explanation(FILE *out, const struct plan *p, const struct plan_choice *c,
			      const struct plan_explanation *ex)
{
	const struct plan_hw *hw = hw_of(p, c);
	char lay[64], net[64], args[ARGS_LEN], rent[1024];
	size_t i;

	fprintf(out, "\nWhy #1: %ux%d %s, %s", c->nodes, hw->gpus_per_node, hw->label,
		plan_layout_code(&c->cfg, lay, sizeof(lay)));
	if (strcmp(plan_network_name(p, c, net, sizeof(net)), "none"))
		fprintf(out, ", %s", net);
	fprintf(out, "\n");
	table_wrap(out, "  architecture ", ex->arch_text, 15, 80);
	table_wrap(out, "  size         ", ex->sizing, 15, 80);
	if (c->cfg.task != MODEL_TASK_INFER)
		print_time_lines(out, c, ex);
	if (c->has_bom)
		print_bom(out, &c->bom);
	else if (c->bom.rented)
		table_wrap(out, "  rent         ", bom_rented_text(&c->bom, rent, sizeof(rent)), 15, 80);
	if (*ex->rent_text)
		table_wrap(out, "  rent or buy  ", ex->rent_text, 15, 80);
	if (hw->spare_per_node > 0) {
		int bought = hw->gpus_per_node + hw->spare_per_node;
		wrapf(out, "  spares       ", 15,
		      "%d of each node's %d GPUs train (%d in all) and %d are hot spares (%u in all), "
		      "ready to stand in for a failed tray: bought, so in the capex and the cost, and "
		      "idling at their idle power in the energy; --no-spares trains on all %d where a "
		      "layout divides the global batch",
		      hw->gpus_per_node, bought, c->gpus, hw->spare_per_node,
		      c->nodes * (unsigned)hw->spare_per_node, bought);
	}
	wrapf(out, "  check it     ", 15, "gpuscope estimate %s", plan_estimate_args(p, c, args, sizeof(args)));
	if (ex->nalt)
		fprintf(out, "Alternatives\n");
	for (i = 0; i < ex->nalt; i++)
		table_wrap(out, "  - ", ex->alt[i].text, 4, 80);
	if (ex->nadvice)
		fprintf(out, "Optimisations to turn on\n");
	for (i = 0; i < ex->nadvice; i++) {
		const struct model_advice *a = &ex->advice[i];
		wrapf(out, "  - ", 4, "%s (%s): step %.3g s, %.2fx", a->what, a->flags, a->step_s, a->speedup);
	}
}

/* ---- when nothing is ranked ---- */

/* "12% over" or "4.2x": how far past a limit value/limit = miss is. */
static const char *miss_words(double miss, char *b, size_t len)
{
	if (miss < 2)
		snprintf(b, len, "%.0f%% over", 100 * (miss - 1));
	else
		snprintf(b, len, "%.3gx", miss);
	return b;
}

/* " ($304k to buy)" for owned hardware with a bill, the money --budget caps there; else "". */
#define BUY_LEN (FMT_LEN + 16)
static const char *buy_words(const struct plan_choice *x, char *buf, size_t len)
{
	char m[FMT_LEN];
	buf[0] = 0;
	if (x->has_bom)
		snprintf(buf, len, " (%s to buy)", fmt_money(x->bom.capex_usd, FMT_MONEY_SHORT, m, sizeof(m)));
	return buf;
}

/* "  fastest overall: 4x8 h100-sxm5-80gb, 12d for $46k ($1.2M to buy)" */
static void print_overall(FILE *out, const struct plan *p, const char *what, const struct plan_choice *x)
{
	const struct plan_hw *hw = hw_of(p, x);
	char a[FMT_LEN], b[FMT_LEN], c[BUY_LEN];
	wrapf(out, "  ", 2, "%s overall: %ux%d %s, %s for %s%s", what, x->nodes, hw->gpus_per_node, hw->label,
	      choice_time(p, x, a, sizeof(a)), fmt_money(x->cost_usd, FMT_MONEY_SHORT, b, sizeof(b)),
	      buy_words(x, c, sizeof(c)));
}

/*
 * The constraints the nearest miss breaks, "deadline and budget", and in
 * *why, for a node that draws more than a rack holds, which rack and the
 * --rack-kw it needs, for a run that outlasts the hardware, how long.
 */
static void missed_words(struct strbuf *names, struct strbuf *why, const struct plan *p,
			 const struct plan_choice *m)
{
	const struct plan_request *req = plan_request_of(p);
	const struct plan_hw *hw = hw_of(p, m);
	const char *what[PLAN_VIOL_COUNT + 1];
	char budget[FMT_LEN + 48], usd[FMT_LEN];
	int k = 0, i;

	if (req->deadline_s > 0 || req->ttft_s > 0 || req->tpot_s > 0)
		what[k++] = is_infer(p) ? "latency target" : "deadline";
	if (req->budget_usd > 0) {
		/* what the budget caps (plan_committed_usd) */
		fmt_money(req->budget_usd, FMT_MONEY_SHORT, usd, sizeof(usd));
		snprintf(budget, sizeof(budget), "budget (%s %s)", usd,
			 req->buy == PLAN_BUY_OWN ? "to buy" :
			 req->buy == PLAN_BUY_ANY ? (is_infer(p) ? "to buy, or an hour rented" :
								   "to buy or to rent the run") :
			 is_infer(p)              ? "an hour rented" :
						    "to rent the run");
		what[k++] = budget;
	}
	if (req->power_kw > 0)
		what[k++] = "power limit";
	if (m->violates & PLAN_VIOL_RACK) {
		/* bom_build leaves the rack it could not fill in m->bom, the default one included */
		int dflt = !(req->rack_kw > 0), liquid = !strcmp(m->bom.cooling, "liquid");
		what[k++] = dflt ? "default rack-power limit" : "rack-power limit (--rack-kw)";
		strbuf_addf(why,
			    "; one %s draws %.1f kW, more than the %.0f kW %sof %s %s-cooled rack (%s); give "
			    "--rack-kw %.0f or more",
			    hw->label, hw->node_power_kw, m->bom.rack_kw, dflt ? "default " : "",
			    strcmp(m->bom.cooling, "air") ? "a" : "an", m->bom.cooling,
			    !dflt  ? "--rack-kw" :
			    liquid ? "the catalog's facility rack_kw_liquid" :
				     "the catalog's facility rack_kw_air",
			    ceil(hw->node_power_kw));
	}
	if (m->violates & PLAN_VIOL_LIFE) {
		char t[FMT_LEN];
		what[k++] = "hardware's service life";
		strbuf_addf(why,
			    "; %ux%d %s runs %s, longer than the %.3g-year life the hardware is priced over (%s)",
			    m->nodes, hw->gpus_per_node, hw->label,
			    fmt_duration(m->hours * 3600, FMT_DURATION_TEXT, t, sizeof(t)), plan_service_years(p),
			    req->years > 0 ? "--years" : "the facility's depreciation_years; --years sets it");
	}
	if (!k)
		what[k++] = "constraints";
	for (i = 0; i < k; i++)
		strbuf_addf(names, "%s%s", !i ? "" : i == k - 1 ? " and " : ", ", what[i]);
}

static void print_nearest_miss(FILE *out, const struct plan *p, const struct plan_choice *m)
{
	const struct plan_request *req = plan_request_of(p);
	const struct plan_hw *hw = hw_of(p, m);
	struct strbuf names = STRBUF_INIT, why = STRBUF_INIT;
	char a[FMT_LEN], b[FMT_LEN], c[FMT_LEN], d[BUY_LEN], lay[64];

	missed_words(&names, &why, p, m);
	wrapf(out, "", 0,
	      "no configuration meets the %s%s; the nearest miss is %ux%d %s (%s): %s, "
	      "%s%s, %.1f kW, %s the tightest constraint",
	      strbuf_str(&names), strbuf_str(&why), m->nodes, hw->gpus_per_node, hw->label,
	      plan_layout_code(&m->cfg, lay, sizeof(lay)), choice_time(p, m, a, sizeof(a)),
	      fmt_money(m->cost_usd, FMT_MONEY_SHORT, b, sizeof(b)), buy_words(m, d, sizeof(d)), m->power_kw,
	      miss_words(m->miss, c, sizeof(c)));
	strbuf_release(&names);
	strbuf_release(&why);
	if (plan_fastest(p) && (req->deadline_s > 0 || req->ttft_s > 0 || req->tpot_s > 0))
		print_overall(out, p, "fastest", plan_fastest(p));
	if (plan_least_committed(p) && req->budget_usd > 0)
		print_overall(out, p,
			      req->buy == PLAN_BUY_OWN   ? "smallest purchase" :
			      req->buy == PLAN_BUY_CLOUD ? "cheapest" :
							   "least committed",
			      plan_least_committed(p));
}

static void print_no_answer(FILE *out, const struct plan *p)
{
	const struct plan_request *req = plan_request_of(p);
	const struct plan_choice *m = plan_nearest_miss(p), *f = plan_closest_fit(p);
	char a[FMT_LEN], why[768];

	if (m) {
		print_nearest_miss(out, p, m);
	} else if (f) {
		const struct plan_hw *hw = hw_of(p, f);
		wrapf(out, "", 0,
		      "nothing fits in memory within %d GPUs; the closest is %ux%d %s, whose best layout "
		      "needs %s per GPU of %.0f GiB, %.3g%% of it kept free (--memory-headroom); allow more GPUs "
		      "(--max-gpus), larger GPUs, LoRA/QLoRA or a shorter --seq-len",
		      req->max_gpus, f->nodes, hw->gpus_per_node, hw->label,
		      fmt_bytes(f->min_bytes, FMT_BYTES_BINARY, a, sizeof(a)), hw->gpu->memory_gib,
		      plan_memory_headroom_pct(p));
	} else if (is_infer(p)) {
		wrapf(out, "", 0,
		      "no configuration of at most %d GPUs serves %g requests/s; lower --rate or "
		      "allow more GPUs (--max-gpus)",
		      req->max_gpus, req->rate_per_s);
	} else if (plan_no_layout_reason(p, why, sizeof(why))) {
		table_wrap(out, "", why, 0, 80);
	} else {
		table_wrap(out, "", "nothing could be evaluated with these options", 0, 80);
	}
}

/* ---- the header ---- */

/*
 * A run is whole optimizer steps (model.h train_steps): where that rounds
 * the amount asked for up by more than 1 %, say so.
 */
static void print_whole_steps(FILE *out, const struct plan *p)
{
	const struct model_config *b = plan_base(p);
	const char *unit = plan_request_of(p)->w->sample_unit;
	int tokens = b->train_tokens > 0, G = plan_global_batch(p);
	double asked = tokens ? b->train_tokens : b->train_samples * (b->epochs > 0 ? b->epochs : 1);
	double per_step = (double)G * (tokens ? b->seq_len : 1), steps;
	char x[FMT_LEN], y[FMT_LEN], z[96];

	if (!(asked > 0) || !(per_step > 0))
		return;
	steps = ceil(asked / per_step - 1e-9);
	if (steps * per_step <= 1.01 * asked)
		return;
	if (tokens)
		snprintf(z, sizeof(z), "%d x %d tokens", G, b->seq_len);
	else
		snprintf(z, sizeof(z), "%d %s", G, unit);
	wrapf(out, "  ", 2,
	      "a run is whole optimizer steps of %s: %s %s round up to %.0f step%s (%s %s); times and "
	      "costs are for whole steps",
	      z, fmt_count(asked, FMT_COUNT_G3, y, sizeof(y)), tokens ? "tokens" : unit, steps,
	      steps == 1 ? "" : "s", fmt_count(steps * per_step, FMT_COUNT_SI_SHORT, x, sizeof(x)),
	      tokens ? "tokens" : unit);
}

/* What the search was held to: the latency targets, or the global batch. */
static void target_words(struct strbuf *sb, const struct plan *p)
{
	const struct plan_request *req = plan_request_of(p);
	const struct workload *w = req->w;
	char a[FMT_LEN];

	if (!is_infer(p)) {
		if (w->kind == WORKLOAD_TRANSFORMER)
			strbuf_addf(sb, "global batch %d x %d tokens", plan_global_batch(p),
				    plan_base(p)->seq_len);
		else
			strbuf_addf(sb, "global batch %d %s", plan_global_batch(p), w->sample_unit);
		return;
	}
	if (req->deadline_s > 0)
		strbuf_addf(sb, "latency target %s",
			    fmt_duration(req->deadline_s, FMT_DURATION_STEP, a, sizeof(a)));
	else
		strbuf_addstr(sb, "no latency target");
	if (req->ttft_s > 0)
		strbuf_addf(sb, ", TTFT %s", fmt_duration(req->ttft_s, FMT_DURATION_STEP, a, sizeof(a)));
	if (req->tpot_s > 0)
		strbuf_addf(sb, ", TPOT %s", fmt_duration(req->tpot_s, FMT_DURATION_STEP, a, sizeof(a)));
}

static void print_header(FILE *out, const struct plan *p)
{
	const struct plan_request *req = plan_request_of(p);
	const struct plan_stats *st = plan_stats(p);
	struct strbuf sb = STRBUF_INIT;
	char a[FMT_LEN], b[FMT_LEN];
	size_t nhw;

	plan_hw(p, &nhw);
	title_line(&sb, p);
	fprintf(out, "gpuscope plan: %s\n", strbuf_str(&sb));
	strbuf_reset(&sb);
	target_words(&sb, p);
	strbuf_addstr(&sb, "; ");
	plan_searched_words(p, &sb);
	strbuf_addf(&sb,
		    "; objective %s; up to %d GPUs, %.3g%% of each one's memory kept free; searched %s "
		    "configurations of %zu hardware options in %s on %d threads",
		    plan_objective_name(req->objective), req->max_gpus, plan_memory_headroom_pct(p),
		    fmt_count((double)st->configs, FMT_COUNT_SI_SHORT, a, sizeof(a)), nhw,
		    fmt_duration(st->wall_s, FMT_DURATION_TEXT, b, sizeof(b)), st->threads);
	table_wrap(out, "  ", strbuf_str(&sb), 2, 80);
	strbuf_release(&sb);
	if (*plan_skipped(p))
		table_wrap(out, "  left out: ", plan_skipped(p), 2, 80);
	if (!is_infer(p))
		print_whole_steps(out, p);
}

/* What to add to the servers already owned: one row per way of running the job, then the answer. */
static void print_have(FILE *out, const struct plan_have_answer *h)
{
	struct report_row *row = report_row_new(plan_add_schema());
	struct table *tb = table_new();
	char cells[PLAN_ADD_NCOLUMNS][FMT_LEN];
	size_t i, k;

	for (k = 0; k < PLAN_ADD_NCOLUMNS; k++)
		table_column(tb, plan_add_headings[k], k < 2 ? ALIGN_LEFT : ALIGN_RIGHT);
	for (i = 0; i < PLAN_ADD_COUNT; i++) {
		plan_add_cells(&h->opt[i], row, cells);
		table_row(tb);
		for (k = 0; k < PLAN_ADD_NCOLUMNS; k++)
			table_cell(tb, cells[k]);
	}
	fprintf(out, "\nWhat to add to the servers you own\n");
	table_print(tb, out, 80);
	table_free(tb);
	report_row_free(row);
	table_wrap(out, "", h->text, 0, 80);
	table_wrap(out, "",
		   "add: nothing, same (more of an owned type, one pool), other (bought beside them), rent "
		   "(rented beside them); owned: owned servers at work; share: their share of the work; "
		   "cost: the job, the owned servers at their running cost, the added at their TCO share or "
		   "rent; capex: what the addition buys; ok: within --deadline and --budget",
		   0, 80);
}

void view_plan_print(FILE *out, const struct plan *p, const struct plan_explanation *ex,
		     const struct plan_have_answer *have)
{
	print_header(out, p);
	if (have)
		print_have(out, have);
	if (!plan_nranked(p)) {
		fprintf(out, "\n");
		print_no_answer(out, p);
		return;
	}
	print_ranked(out, p);
	print_front(out, p);
	if (ex)
		print_explanation(out, p, plan_ranked(p, 0), ex);
	view_calibration_print(out, model_calibration_at(0));
}

/* ---- JSON and CSV ---- */

/* A row's fields as an object (the caller owns it). */
static json_t *row_json(void (*fill)(const struct plan *, struct report_row *), const struct report_schema *s,
			const struct plan *p)
{
	struct report_row *row = report_row_new(s);
	json_t *o;
	fill(p, row);
	o = report_row_json(row);
	report_row_free(row);
	return o;
}

/* o with the keys of extra placed after the key `after` (jansson keeps insertion order); takes both. */
static json_t *json_after(json_t *o, const char *after, json_t *extra)
{
	json_t *r = json_object(), *v;
	const char *k;
	json_object_foreach(o, k, v)
	{
		json_object_set(r, k, v);
		if (!strcmp(k, after))
			json_object_update(r, extra);
	}
	json_decref(o);
	json_decref(extra);
	return r;
}

static json_t *request_json(const struct plan *p)
{
	const struct plan_request *req = plan_request_of(p);
	unsigned prec = req->precisions ? req->precisions : 1u << MODEL_BF16;
	json_t *lists = json_object(), *a = json_array();
	size_t i;

	for (i = 0; i < MODEL_PRECISION_COUNT; i++)
		if (prec & (1u << i))
			json_array_append_new(a, json_string(model_precision_name((enum model_precision)i)));
	json_object_set_new(lists, "precisions", a);
	a = json_array();
	for (i = 0; i < req->ngpus; i++)
		json_array_append_new(a, json_string(req->gpus[i]->row.key));
	json_object_set_new(lists, "gpus", a);
	return json_after(row_json(plan_request_row, plan_request_schema(), p), "max_gpus", lists);
}

static json_t *search_json(const struct plan *p)
{
	size_t i, nfab;
	const struct plan_fabric *fab = plan_fabrics(p, &nfab);
	json_t *lists = json_object(), *a = json_array();

	for (i = 0; i < nfab; i++)
		json_array_append_new(a, json_string(fab[i].link->row.key));
	json_object_set_new(lists, "fabrics", a);
	return json_after(row_json(plan_search_row, plan_search_schema(), p), "hardware_options", lists);
}

/* A choice's object: its fields and its "bom"; null for no choice. */
static json_t *choice_json(const struct plan *p, const struct plan_choice *c, struct report_row *row)
{
	json_t *o;
	if (!c)
		return json_null();
	plan_choice_row(p, c, row);
	o = report_row_json(row);
	json_object_set_new(o, "bom", c->has_bom || c->bom.rented ? bom_json(&c->bom) : json_null());
	return o;
}

static json_t *explanation_json(const struct plan_explanation *ex)
{
	struct report_row *row = report_row_new(plan_explanation_schema());
	json_t *o, *alt = json_array(), *adv = json_array();
	size_t i;

	plan_explanation_row(ex, row);
	o = report_row_json(row);
	report_row_free(row);
	row = report_row_new(plan_alternative_schema());
	for (i = 0; i < ex->nalt; i++) {
		plan_alternative_row(&ex->alt[i], row);
		json_array_append_new(alt, report_row_json(row));
	}
	report_row_free(row);
	row = report_row_new(plan_optimisation_schema());
	for (i = 0; i < ex->nadvice; i++) {
		plan_optimisation_row(&ex->advice[i], row);
		json_array_append_new(adv, report_row_json(row));
	}
	report_row_free(row);
	json_object_set_new(o, "alternatives", alt);
	json_object_set_new(o, "optimisations", adv);
	return o;
}

static json_t *closest_fit_json(const struct plan *p)
{
	const struct plan_choice *f = plan_closest_fit(p);
	struct report_row *row;
	json_t *o;
	if (!f)
		return json_null();
	row = report_row_new(plan_closest_fit_schema());
	plan_closest_fit_row(p, f, row);
	o = report_row_json(row);
	report_row_free(row);
	return o;
}

enum choice_list {
	RANKED,
	FRONT,
	ALL_THAT_FIT
};

static json_t *choices_json(const struct plan *p, enum choice_list which)
{
	struct report_row *row = report_row_new(plan_choice_schema());
	json_t *a = json_array();
	size_t i, nall, n;
	const struct plan_choice *every = plan_all(p, &nall);

	n = which == RANKED ? plan_nranked(p) : which == FRONT ? plan_nfront(p) : nall;
	for (i = 0; i < n; i++) {
		const struct plan_choice *c = which == RANKED ? plan_ranked(p, i) :
					      which == FRONT  ? plan_front(p, i) :
								&every[i];
		if (which != ALL_THAT_FIT || c->fits)
			json_array_append_new(a, choice_json(p, c, row));
	}
	report_row_free(row);
	return a;
}

static json_t *nearest_miss_json(const struct plan *p)
{
	struct report_row *row;
	json_t *o;
	if (plan_nranked(p) || !plan_nearest_miss(p))
		return json_null();
	row = report_row_new(plan_choice_schema());
	o = choice_json(p, plan_nearest_miss(p), row);
	report_row_free(row);
	return o;
}

static json_t *have_json(const struct plan *p, const struct plan_have_answer *h)
{
	const struct plan_request *req = plan_request_of(p);
	json_t *o, *fleet = json_array(), *opts = json_array();
	struct report_row *row = report_row_new(plan_add_schema());
	size_t i;

	for (i = 0; i < PLAN_ADD_COUNT; i++) {
		plan_add_row(&h->opt[i], row);
		json_array_append_new(opts, report_row_json(row));
	}
	report_row_free(row);
	for (i = 0; i < req->nhave; i++)
		json_array_append_new(fleet, json_pack("{s:i,s:s}", "count", req->have[i].count, "server",
						       req->have[i].server->row.key));
	row = report_row_new(plan_have_schema());
	plan_have_row(h, row);
	o = report_row_json(row);
	report_row_free(row);
	json_object_set_new(o, "fleet", fleet);
	json_object_set_new(o, "options", opts);
	return o;
}

json_t *view_plan_json(const struct plan *p, const struct plan_explanation *ex,
		       const struct plan_have_answer *have, int all)
{
	json_t *root = json_object();
	char why[768];

	json_object_set_new(root, "workload", row_json(plan_workload_row, plan_workload_schema(), p));
	json_object_set_new(root, "request", request_json(p));
	json_object_set_new(root, "search", search_json(p));
	json_object_set_new(root, "ranked", choices_json(p, RANKED));
	json_object_set_new(root, "front", choices_json(p, FRONT));
	json_object_set_new(root, "nearest_miss", nearest_miss_json(p));
	json_object_set_new(root, "closest_fit", closest_fit_json(p));
	json_object_set_new(root, "no_layout",
			    plan_no_layout_reason(p, why, sizeof(why)) ? json_string(why) : json_null());
	json_object_set_new(root, "explanation", ex ? explanation_json(ex) : json_null());
	json_object_set_new(root, "have", have ? have_json(p, have) : json_null());
	if (all)
		json_object_set_new(root, "all", choices_json(p, ALL_THAT_FIT));
	json_object_set_new(root, "calibration", view_calibration_json(model_calibration_at(0)));
	return root;
}

void view_plan_csv(FILE *out, const struct plan *p, int all)
{
	struct report_row *row;
	size_t i, nall;
	const struct plan_choice *every = plan_all(p, &nall);
	int any = plan_nranked(p) > 0;

	/* the header only where some choice fits, ranked or not */
	for (i = 0; !any && i < nall; i++)
		any = every[i].fits;
	if (!any)
		return;
	report_csv_header(plan_choice_schema(), out);
	row = report_row_new(plan_choice_schema());
	for (i = 0; i < (all ? nall : plan_nranked(p)); i++) {
		const struct plan_choice *c = all ? &every[i] : plan_ranked(p, i);
		if (!c->fits)
			continue;
		plan_choice_row(p, c, row);
		report_csv_row(row, out);
	}
	report_row_free(row);
}

/* ---- the report ---- */

int view_plan_report(const struct plan *p, const struct plan_explanation *ex, const struct plan_have_answer *have,
		     const char *path, struct diag *err)
{
	struct strbuf title = STRBUF_INIT;
	int rc;
	title_line(&title, p);
	rc = plan_report_html(p, ex, have, strbuf_str(&title), path, err);
	strbuf_release(&title);
	return rc;
}
