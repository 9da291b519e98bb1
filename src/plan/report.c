/*
 * The HTML report of `plan --report FILE`: one self-contained page (no
 * scripts, no network) with the Pareto front of time against cost, the
 * memory of the top choices as stacked bars, their step time broken down,
 * the ranked table and the explanation of the first choice.  Charts are
 * drawn by report/svg.h; the page by report/html.h.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/serving.h"
#include "plan/fields.h"
#include "plan/plan_int.h"
#include "report/html.h"
#include "report/svg.h"
#include "report/fmt.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define GIB 1073741824.0

/* A paragraph (note: 1) of formatted text; the text grows as it needs. */
static void paragraphf(struct html_doc *d, int note, const char *fmt, ...) GS_PRINTF(3, 4);
static void paragraphf(struct html_doc *d, int note, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (note)
		html_note(d, strbuf_str(&sb));
	else
		html_paragraph(d, strbuf_str(&sb));
	strbuf_release(&sb);
}
/* Scatter categories: the best GPU types each get a colour, the rest share one. */
#define MAX_CATEGORIES 9

static double time_axis(const struct plan *p, const struct plan_choice *c)
{
	return p->base.task == MODEL_TASK_INFER ? c->latency_s * 1e3 : c->hours;
}

/* The GPU types in order of their best choice's rank, most MAX_CATEGORIES. */
static size_t categories(const struct plan *p, const struct cat_gpu **gpus)
{
	size_t n = 0, i, k;
	const struct plan_choice *order[MAX_CATEGORIES];
	for (i = 0; i < p->nhw; i++) {
		const struct plan_choice *b = plan_best_on(p, i);
		const struct cat_gpu *g = p->hw[i].gpu;
		size_t at;
		if (!b)
			continue;
		for (k = 0; k < n && gpus[k] != g; k++)
			;
		if (k < n) {
			if (b->score < order[k]->score)
				order[k] = b;
			continue;
		}
		/* insert by score, keep the best MAX_CATEGORIES */
		for (at = 0; at < n && order[at]->score <= b->score; at++)
			;
		if (at >= MAX_CATEGORIES)
			continue;
		if (n < MAX_CATEGORIES)
			n++;
		for (k = n - 1; k > at; k--) {
			order[k] = order[k - 1];
			gpus[k] = gpus[k - 1];
		}
		order[at] = b;
		gpus[at] = g;
	}
	return n;
}

static int add_front_chart(const struct plan *p, struct html_doc *d, struct diag *err)
{
	struct svg_chart *c = svg_chart_new(
		SVG_SCATTER, "pareto",
		p->base.task == MODEL_TASK_INFER ?
			"Latency against cost per hour (each GPU type its own colour; the front highlighted)" :
			"Time to finish against cost (each GPU type its own colour; the front highlighted)");
	const struct cat_gpu *gpus[MAX_CATEGORIES];
	size_t ncat = categories(p, gpus), i, k;
	int series[MAX_CATEGORIES + 1], other = -1, rc;
	char label[160], lay[48];

	svg_chart_size(c, 820, 460);
	svg_axis(c, 'x', p->base.task == MODEL_TASK_INFER ? "request latency" : "time to finish",
		 p->base.task == MODEL_TASK_INFER ? "ms" : "hours", SVG_SCALE_LOG);
	svg_axis(c, 'y', p->base.task == MODEL_TASK_INFER ? "cost per hour" : "cost", "USD", SVG_SCALE_LOG);
	for (k = 0; k < ncat; k++)
		series[k] = svg_series(c, gpus[k]->row.key);
	for (i = 0; i < p->nall; i++) {
		const struct plan_choice *ch = &p->all[i];
		int s;
		if (!ch->fits || ch->violates || !(time_axis(p, ch) > 0) || !(ch->cost_usd > 0))
			continue;
		for (k = 0; k < ncat && gpus[k] != p->hw[ch->hw].gpu; k++)
			;
		if (k < ncat) {
			s = series[k];
		} else {
			if (other < 0)
				other = svg_series(c, "other GPUs");
			s = other;
		}
		snprintf(label, sizeof(label), "%u x %s, %s", ch->nodes, p->hw[ch->hw].label,
			 plan_layout_code(&ch->cfg, lay, sizeof(lay)));
		svg_point(c, s, time_axis(p, ch), ch->cost_usd, label, plan_on_front(p, ch) ? SVG_PT_FRONT : 0);
	}
	if (plan_nranked(p)) {
		const struct plan_choice *first = plan_ranked(p, 0);
		svg_mark(c, time_axis(p, first), first->cost_usd, "first choice");
	}
	rc = svg_chart_points(c) ? html_chart(d, c, err) : 0;
	svg_chart_free(c);
	return rc;
}

static const char *bar_label(const struct plan *p, size_t rank, const struct plan_choice *c, struct strbuf *sb)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "#%zu %ux%d %s", rank + 1, c->nodes, p->hw[c->hw].gpus_per_node, p->hw[c->hw].label);
	return strbuf_str(sb);
}

/* The values of one bar: a choice's terms, one a series, in the unit of the axis. */
typedef void bar_values_fn(const struct plan_choice *c, double *v);

/*
 * A horizontal bar chart of the first n ranked choices, one bar a choice
 * made of nseries terms (names[]) that values() reads; a term below 0 is 0.
 */
static int add_bar_chart(const struct plan *p, struct html_doc *d, size_t n, const char *id, const char *title,
			 const char *axis, const char *unit, const char *const *names, size_t nseries,
			 bar_values_fn *values, struct diag *err)
{
	struct svg_chart *c = svg_chart_new(SVG_HBAR, id, title);
	struct strbuf label = STRBUF_INIT;
	int s[8], rc;
	size_t i, k;

	svg_chart_size(c, 820, (unsigned)(120 + 34 * n));
	svg_axis(c, 'x', axis, unit, SVG_SCALE_LINEAR);
	svg_axis(c, 'y', "choice", NULL, SVG_SCALE_LINEAR);
	for (k = 0; k < nseries; k++)
		s[k] = svg_series(c, names[k]);
	for (i = 0; i < n; i++) {
		const struct plan_choice *ch = plan_ranked(p, i);
		double v[8];
		int b;
		b = svg_bar(c, bar_label(p, i, ch, &label));
		values(ch, v);
		for (k = 0; k < nseries; k++)
			svg_bar_value(c, b, s[k], v[k] > 0 ? v[k] : 0);
	}
	strbuf_release(&label);
	rc = html_chart(d, c, err);
	svg_chart_free(c);
	return rc;
}

/* Memory per GPU by term, GiB. */
static void memory_values(const struct plan_choice *c, double *v)
{
	const struct model_memory *m = &c->res.mem;
	v[0] = m->weights_bytes / GIB;
	v[1] = m->gradients_bytes / GIB;
	v[2] = m->optimizer_bytes / GIB;
	v[3] = m->activations_bytes / GIB;
	v[4] = m->logits_bytes / GIB;
	v[5] = m->kv_cache_bytes / GIB;
	v[6] = (m->buffers_bytes + m->lora_bytes) / GIB;
	v[7] = (m->reserve_bytes + m->context_bytes) / GIB;
}

static int add_memory_chart(const struct plan *p, struct html_doc *d, size_t n, struct diag *err)
{
	static const char *const names[] = {"weights",
					    "gradients",
					    "optimizer",
					    "activations",
					    "logits",
					    "KV cache",
					    "buffers and adapters",
					    "allocator and context"};
	return add_bar_chart(p, d, n, "memory", "Memory per GPU of the top choices", "memory per GPU", "GiB",
			     names, sizeof(names) / sizeof(names[0]), memory_values, err);
}

/* The step (inference: the request) by term, s. */
static void step_values(const struct plan_choice *c, double *v)
{
	const struct model_time *t = &c->res.time;
	double comm = t->tp_comm_s + t->ep_comm_s + t->cp_comm_s + t->dp_comm_s + t->zero_comm_s + t->pp_p2p_s;
	v[0] = t->compute_s;
	v[1] = comm;
	v[2] = t->pp_bubble_s;
	v[3] = t->data_s;
	v[4] = t->step_s - t->compute_s - comm - t->pp_bubble_s - t->data_s;
}

static int add_step_chart(const struct plan *p, struct html_doc *d, size_t n, struct diag *err)
{
	static const char *const names[] = {"compute", "exposed communication", "pipeline bubble", "data loading",
					    "optimizer and overhead"};
	int infer = p->base.task == MODEL_TASK_INFER;
	return add_bar_chart(p, d, n, "steptime",
			     infer ? "Request time of the top choices" :
				     "Step time of the top choices, broken down",
			     infer ? "request time" : "step time", "s", names, sizeof(names) / sizeof(names[0]),
			     step_values, err);
}

/* Inference cells: replicas, capacity, utilisation, latency, p99 TTFT, TPOT ("-" for a model that generates no tokens). */
static void infer_cells(const struct plan *p, const struct plan_choice *c, struct strbuf *cell)
{
	int llm = plan_generates(p);
	struct model_queue q;
	char a[FMT_LEN];
	plan_queue_of(p, c, &q);
	strbuf_addf(&cell[0], "%d", c->replicas);
	strbuf_addf(&cell[1], "%s requests/s", fmt_count(q.capacity_per_s, FMT_COUNT_SI, a, sizeof(a)));
	strbuf_addf(&cell[2], "%.0f%%", 100 * q.utilisation);
	strbuf_addstr(&cell[3], fmt_duration(c->latency_s, FMT_DURATION_TEXT, a, sizeof(a)));
	strbuf_addstr(&cell[4], llm ? fmt_duration(q.ttft_p99_s, FMT_DURATION_TEXT, a, sizeof(a)) : "-");
	strbuf_addstr(&cell[5],
		      llm ? fmt_duration(c->res.infer.decode_token_s, FMT_DURATION_TEXT, a, sizeof(a)) : "-");
}

/* Training cells: step, throughput, MFU, time. */
static void train_cells(const struct plan *p, const struct plan_choice *c, struct strbuf *cell)
{
	char a[FMT_LEN];
	strbuf_addstr(&cell[0], fmt_duration(c->res.time.step_s, FMT_DURATION_TEXT, a, sizeof(a)));
	/* tokens of a transformer, else samples: an ASR model's frames are no utterances */
	if (p->req.w->kind == WORKLOAD_TRANSFORMER)
		strbuf_addf(&cell[1], "%s tokens/s", fmt_count(c->res.tokens_per_s, FMT_COUNT_SI, a, sizeof(a)));
	else
		strbuf_addf(&cell[1], "%s %s/s", fmt_count(c->res.samples_per_s, FMT_COUNT_SI, a, sizeof(a)),
			    p->req.w->sample_unit[0] ? p->req.w->sample_unit : "samples");
	strbuf_addf(&cell[2], "%.0f%%", 100 * c->res.mfu);
	strbuf_addstr(&cell[3], fmt_duration(c->hours * 3600, FMT_DURATION_TEXT, a, sizeof(a)));
}

/* Cost, energy, capex and racks: what the choice costs and takes up. */
static void cost_cells(const struct plan_choice *c, int infer, struct strbuf *cell)
{
	char a[FMT_LEN];
	strbuf_addf(&cell[0], "%s%s", fmt_money(c->cost_usd, FMT_MONEY_SHORT, a, sizeof(a)), infer ? "/h" : "");
	strbuf_addf(&cell[1], "%s%s", fmt_energy(c->energy_kwh, a, sizeof(a)), infer ? "/h" : "");
	if (c->has_bom) {
		strbuf_addstr(&cell[2], fmt_money(c->bom.capex_usd, FMT_MONEY_SHORT, a, sizeof(a)));
		strbuf_addf(&cell[3], "%.0f x %.0f kW %s", c->bom.racks, c->bom.rack_kw, c->bom.cooling);
	} else if (c->bom.rented) {
		strbuf_addf(&cell[2], "$0 (rented, %s/h)",
			    fmt_money(c->bom.usd_per_hour, FMT_MONEY_SHORT, a, sizeof(a)));
		strbuf_addf(&cell[3], "%.0f x %s", c->bom.servers, c->bom.instance->row.key);
	} else {
		strbuf_addstr(&cell[2], "rented");
		strbuf_addstr(&cell[3], "-");
	}
}

#define MAX_CELLS 16

static void ranked_table(const struct plan *p, struct html_doc *d, const char *id, const char *caption,
			 const struct plan_choice *const *rows, size_t n)
{
	/* training: step and time to finish; inference: a request's latency and what each replica's queue gives */
	static const char *const train_head[] = {"#",      "hardware",       "nodes x GPUs", "network",
						 "layout", "memory per GPU", "step",         "throughput",
						 "MFU",    "time",           "cost",         "energy",
						 "capex",  "racks"};
	static const char *const infer_head[] = {"#",           "hardware",       "nodes x GPUs", "network",
						 "layout",      "memory per GPU", "replicas",     "capacity",
						 "utilisation", "latency",        "p99 TTFT",     "TPOT",
						 "cost",        "energy",         "capex",        "racks"};
	int infer = p->base.task == MODEL_TASK_INFER;
	size_t nc = infer ? 16 : 14, i, k;
	struct strbuf cell[MAX_CELLS];
	const char *cp[MAX_CELLS];
	char a[FMT_LEN], net[160], lay[96];

	for (k = 0; k < MAX_CELLS; k++)
		cell[k] = (struct strbuf)STRBUF_INIT;
	html_table_begin(d, id, caption);
	html_table_head(d, infer ? infer_head : train_head, nc);
	for (i = 0; i < n; i++) {
		const struct plan_choice *c = rows[i];
		const struct plan_hw *hw = &p->hw[c->hw];
		for (k = 0; k < nc; k++)
			strbuf_reset(&cell[k]);
		strbuf_addf(&cell[0], "%zu", i + 1);
		strbuf_addstr(&cell[1], hw->label);
		strbuf_addf(&cell[2], "%u x %d", c->nodes, hw->gpus_per_node);
		strbuf_addstr(&cell[3], plan_network_name(p, c, net, sizeof(net)));
		strbuf_addstr(&cell[4], plan_layout_code(&c->cfg, lay, sizeof(lay)));
		strbuf_addf(&cell[5], "%s (%.0f%%)",
			    fmt_bytes(c->res.mem.total_bytes, FMT_BYTES_BINARY, a, sizeof(a)),
			    100 * c->res.mem.total_bytes / c->res.mem.capacity_bytes);
		if (infer)
			infer_cells(p, c, &cell[6]);
		else
			train_cells(p, c, &cell[6]);
		cost_cells(c, infer, &cell[nc - 4]);
		for (k = 0; k < nc; k++)
			cp[k] = strbuf_str(&cell[k]);
		html_table_row(d, cp, nc);
	}
	html_table_end(d);
	for (k = 0; k < MAX_CELLS; k++)
		strbuf_release(&cell[k]);
}

/* One row of the bill: the item, how many (count_text, else count), the total and the catalog row it is priced from. */
static void bom_row_text(struct html_doc *d, const char *what, const char *count_text, double count, double usd,
			 const struct cat_part *part)
{
	char n[FMT_LEN], m[FMT_LEN];
	struct strbuf src = STRBUF_INIT;
	const char *row[4] = {what, count_text ? count_text : n, m, NULL};
	fmt_grouped(count, 0, n, sizeof(n));
	fmt_money(usd, FMT_MONEY_SHORT, m, sizeof(m));
	if (part)
		strbuf_addf(&src, "%s (%s, %s)", part->row.key, part->row.source ? part->row.source : "",
			    part->row.as_of ? part->row.as_of : "");
	else
		strbuf_addstr(&src, "-");
	row[3] = strbuf_str(&src);
	html_table_row(d, row, 4);
	strbuf_release(&src);
}

static void bom_row(struct html_doc *d, const char *what, double count, double usd, const struct cat_part *part)
{
	bom_row_text(d, what, NULL, count, usd, part);
}

static void bom_table(struct html_doc *d, const struct bom *b)
{
	static const char *const head[] = {"item", "count", "USD", "priced from"};
	struct strbuf what = STRBUF_INIT;
	char m[FMT_LEN], it[FMT_LEN], wall[FMT_LEN];
	int i;
	html_heading(d, 3, "Bill of materials");
	bom_missing_text(b, &what);
	paragraphf(d, 0,
		   "%s to buy: %.0f rack%s of %.0f kW (%s-cooled, %.0f server%s a rack), %s of IT load, "
		   "%s at the wall (PUE %.2f).%s%s",
		   fmt_money(b->capex_usd, FMT_MONEY_SHORT, m, sizeof(m)), b->racks, b->racks == 1 ? "" : "s",
		   b->rack_kw, b->cooling, b->nodes_per_rack, b->nodes_per_rack == 1 ? "" : "s",
		   fmt_power(1000 * b->it_kw, it, sizeof(it)), fmt_power(1000 * b->power_kw, wall, sizeof(wall)),
		   b->pue, what.len ? " Unpriced: " : "", strbuf_str(&what));
	strbuf_reset(&what);
	html_table_begin(d, "bom", NULL);
	html_table_head(d, head, 4);
	bom_row(d, "servers", b->servers, b->server_usd, NULL);
	for (i = 0; i < b->tiers; i++) {
		strbuf_reset(&what);
		strbuf_addf(&what, "%s switches, %.0f x %.0f Gb/s", b->sw[i].tier, b->sw[i].ports, b->sw[i].gbps);
		bom_row(d, strbuf_str(&what), b->sw[i].count,
			b->switch_part && cat_has(b->switch_part->price_usd) ?
				b->sw[i].count * b->switch_part->price_usd :
				0,
			b->switch_part);
	}
	if (b->nics > 0) {
		strbuf_reset(&what);
		strbuf_addf(&what, "NIC ports, %.0f Gb/s%s", b->nic_gbps,
			    b->nics_bought > 0 ? "" : " (in the server price)");
		bom_row(d, strbuf_str(&what), b->nics, b->nic_usd, b->nic_part);
		bom_row(d, "optics", b->optics, b->optics_usd, b->optic_part);
		bom_row(d, "cables", b->cables, b->cables_usd, b->cable_part);
	}
	strbuf_reset(&what);
	strbuf_addf(&what, "storage, TB (%.0f GB/s write)", b->storage_write_gbs);
	bom_row(d, strbuf_str(&what), b->storage_tb, b->storage_usd, b->storage_part);
	if (b->cooling_usd > 0)
		bom_row_text(d, "liquid cooling", it, b->it_kw, b->cooling_usd, b->cooling_part);
	if (b->frontend.tiers) {
		strbuf_reset(&what);
		strbuf_addf(&what, "front end, %.0f Gb/s ports: %.0f switches, %.0f optics, %.0f cables",
			    b->frontend.gbps, b->frontend.switches, b->frontend.optics, b->frontend.cables);
		bom_row(d, strbuf_str(&what), b->frontend.ports, b->frontend.usd, b->frontend.part);
	}
	if (b->oob_switches > 0)
		bom_row(d, "management switches, 1 GbE", b->oob_switches, b->oob_usd, b->oob_part);
	bom_row_text(d, "power distribution", fmt_power(1000 * b->pdu_kw, wall, sizeof(wall)), b->pdu_kw,
		     b->pdu_usd, b->pdu_part);
	bom_row(d, "installation and integration, GPUs", b->gpus, b->install_usd, b->install_part);
	html_table_end(d);
	strbuf_reset(&what);
	bom_running_text(b, &what);
	paragraphf(d, 0,
		   "A year of running it: %s; the support contract, energy and space are in the cost.%s%s%s%s",
		   strbuf_str(&what), b->staff_ratio_row ? " Staff ratio: " : "",
		   b->staff_ratio_row && b->staff_ratio_row->row.source ? b->staff_ratio_row->row.source : "",
		   b->staff_ratio_row ? ", " : "",
		   b->staff_ratio_row && b->staff_ratio_row->row.as_of ? b->staff_ratio_row->row.as_of : "");
	strbuf_release(&what);
}

static void explanation_tables(struct html_doc *d, const struct plan_explanation *ex);

/*
 * Rent or buy: the explanation's sentence, and its figures from the
 * explanation's own fields (plan/fields.c), each with its help line.
 */
static void rent_buy_section(struct html_doc *d, const struct plan_explanation *ex)
{
	static const char *const keys[] = {"rent_instance",          "rent_usd",      "own_usd",
					   "own_usd_per_year",       "own_capex_usd", "own_share_usd",
					   "own_priced_pct",         "runs_per_year", "breakeven_utilisation_pct",
					   "breakeven_jobs_per_year"};
	static const char *const head[] = {"figure", "value", "what it is"};
	const struct report_schema *s = plan_explanation_schema();
	struct report_row *row;
	char buf[FMT_LEN];
	size_t k;

	if (!ex->rent_text || !*ex->rent_text)
		return;
	html_heading(d, 3, "Rent or buy");
	html_paragraph(d, ex->rent_text);
	row = report_row_new(s);
	plan_explanation_row(ex, row);
	html_table_begin(d, "rent-buy", NULL);
	html_table_head(d, head, 3);
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		long i = report_field_index(s, keys[k]);
		const char *cells[3];
		if (i < 0)
			continue;
		cells[0] = keys[k];
		cells[1] = report_value_text(row, (size_t)i, buf, sizeof(buf));
		cells[2] = s->fields[i].help;
		html_table_row(d, cells, 3);
	}
	html_table_end(d);
	report_row_free(row);
}

static void explanation(const struct plan *p, struct html_doc *d, const struct plan_explanation *ex)
{
	char rent[1024];
	const struct plan_choice *c = plan_ranked(p, 0);

	html_heading(d, 2, "Why the first choice");
	if (c) {
		struct strbuf sb = STRBUF_INIT;
		char args[2048];
		strbuf_addf(&sb, "Check it: gpuscope estimate %s", plan_estimate_args(p, c, args, sizeof(args)));
		html_pre(d, strbuf_str(&sb));
		strbuf_release(&sb);
	}
	paragraphf(d, 0, "Architecture: %s.", ex->arch_text);
	paragraphf(d, 0, "Size: %s.", ex->sizing);
	paragraphf(d, 0,
		   "Step time: compute %.0f%%, exposed communication %.0f%%, pipeline bubble %.0f%%, "
		   "data loading %.0f%%, optimizer and overhead %.0f%%.",
		   100 * ex->compute_share, 100 * ex->comm_share, 100 * ex->bubble_share, 100 * ex->data_share,
		   100 * ex->other_share);
	if (c && c->gp.goodput < 0.9995 && p->base.task != MODEL_TASK_INFER) {
		char w[FMT_LEN], e[FMT_LEN], ck[FMT_LEN], fl[FMT_LEN], all[FMT_LEN];
		paragraphf(d, 0,
			   "Goodput: %.1f%% of the wall time trains; checkpoints (%s each, every %s) take "
			   "%s and %.3g expected interruptions %s of %s.",
			   100 * c->gp.goodput, fmt_duration(c->gp.ckpt_write_s, FMT_DURATION_TEXT, w, sizeof(w)),
			   fmt_duration(c->gp.ckpt_every_s, FMT_DURATION_TEXT, e, sizeof(e)),
			   fmt_duration(c->gp.ckpt_hours * 3600, FMT_DURATION_TEXT, ck, sizeof(ck)),
			   c->gp.interruptions,
			   fmt_duration(c->gp.fail_hours * 3600, FMT_DURATION_TEXT, fl, sizeof(fl)),
			   fmt_duration(c->hours * 3600, FMT_DURATION_TEXT, all, sizeof(all)));
	}
	if (c && c->has_bom) {
		bom_table(d, &c->bom);
	} else if (c && c->bom.rented) {
		html_heading(d, 3, "Bill of materials");
		html_paragraph(d, bom_rented_text(&c->bom, rent, sizeof(rent)));
	}
	rent_buy_section(d, ex);
	explanation_tables(d, ex);
}

/* The alternatives and the optimisations to turn on, as tables. */
static void explanation_tables(struct html_doc *d, const struct plan_explanation *ex)
{
	size_t i;
	if (ex->nalt) {
		html_heading(d, 3, "The alternatives");
		html_table_begin(d, "alternatives", NULL);
		{
			static const char *const head[] = {"what", "finding"};
			html_table_head(d, head, 2);
		}
		for (i = 0; i < ex->nalt; i++) {
			const char *row[2] = {ex->alt[i].kind, ex->alt[i].text};
			html_table_row(d, row, 2);
		}
		html_table_end(d);
	}
	if (ex->nadvice) {
		html_heading(d, 3, "Optimisations to turn on");
		html_table_begin(d, "advice", NULL);
		{
			static const char *const head[] = {"change", "how", "step", "speed-up", "memory"};
			html_table_head(d, head, 5);
		}
		for (i = 0; i < ex->nadvice; i++) {
			const struct model_advice *a = &ex->advice[i];
			char st[FMT_LEN], sp[FMT_LEN], mem[FMT_LEN];
			const char *row[5];
			fmt_duration(a->step_s, FMT_DURATION_TEXT, st, sizeof(st));
			snprintf(sp, sizeof(sp), "%.2fx", a->speedup);
			fmt_bytes(a->total_bytes, FMT_BYTES_BINARY, mem, sizeof(mem));
			row[0] = a->what;
			row[1] = a->flags;
			row[2] = st;
			row[3] = sp;
			row[4] = mem;
			html_table_row(d, row, 5);
		}
		html_table_end(d);
	}
}

/* The title, what was searched and, when nothing was ranked, the nearest miss. */
static void report_head(const struct plan *p, struct html_doc *d)
{
	char t[FMT_LEN], lay[96], money[FMT_LEN], kw[FMT_LEN], g[4][FMT_LEN];
	const struct plan_choice *m = plan_nearest_miss(p);
	struct strbuf what = STRBUF_INIT;

	plan_searched_words(p, &what);
	paragraphf(d, 0,
		   "Searched %zu hardware options (%s) up to %s GPUs: %s configurations decided with "
		   "%s memory and %s time model calls in %s on %d threads. Objective: %s.",
		   p->nhw, strbuf_str(&what), fmt_count(p->req.max_gpus, FMT_COUNT_GROUPED, g[0], sizeof(g[0])),
		   fmt_count((double)p->stats.configs, FMT_COUNT_GROUPED, g[1], sizeof(g[1])),
		   fmt_count((double)p->stats.memory_calls, FMT_COUNT_GROUPED, g[2], sizeof(g[2])),
		   fmt_count((double)p->stats.estimate_calls, FMT_COUNT_GROUPED, g[3], sizeof(g[3])),
		   fmt_duration(p->stats.wall_s, FMT_DURATION_TEXT, t, sizeof(t)), p->stats.threads,
		   plan_objective_name(p->req.objective));
	strbuf_release(&what);
	if (p->skipped)
		paragraphf(d, 1, "Left out: %s.", p->skipped);
	if (plan_nranked(p))
		return;
	html_heading(d, 2, "No configuration meets the constraints");
	if (m)
		paragraphf(d, 0,
			   "The nearest miss is %u x %s (%s): %s, %s, %s; %.0f%% over "
			   "the tightest constraint.",
			   m->nodes, p->hw[m->hw].label, plan_layout_code(&m->cfg, lay, sizeof(lay)),
			   fmt_duration(p->base.task == MODEL_TASK_INFER ? m->latency_s : m->hours * 3600,
					FMT_DURATION_TEXT, t, sizeof(t)),
			   fmt_money(m->cost_usd, FMT_MONEY_SHORT, money, sizeof(money)),
			   fmt_power(1000 * m->power_kw, kw, sizeof(kw)), 100 * (m->miss - 1));
}

/* The front, and the memory and step time of the top choices; -1 with *err when a chart fails. */
static int report_charts(const struct plan *p, struct html_doc *d, size_t top, struct diag *err)
{
	html_heading(d, 2, "Pareto front: time against cost");
	if (add_front_chart(p, d, err))
		return -1;
	if (!top)
		return 0;
	html_heading(d, 2, "Memory per GPU");
	if (add_memory_chart(p, d, top, err))
		return -1;
	html_heading(d, 2, p->base.task == MODEL_TASK_INFER ? "Request time" : "Step time");
	return add_step_chart(p, d, top, err);
}

/* The ranked table, the front and the explanation, and the note that reads their codes. */
static void report_tables(const struct plan *p, struct html_doc *d, const struct plan_explanation *ex)
{
	size_t i, n = plan_nranked(p);
	const struct plan_choice **rows = xcalloc(n + p->nfront + 1, sizeof(*rows));

	for (i = 0; i < n; i++)
		rows[i] = plan_ranked(p, i);
	html_heading(d, 2, "Ranked choices");
	ranked_table(p, d, "ranked", NULL, rows, n);
	for (i = 0; i < p->nfront; i++)
		rows[i] = plan_front(p, i);
	html_heading(d, 2, "The front");
	ranked_table(p, d, "front", "fastest first; each is cheaper than every faster one", rows, p->nfront);
	free(rows);
	if (ex && n)
		explanation(p, d, ex);
	html_note(d,
		  p->base.task == MODEL_TASK_INFER ?
			  "Layout code: t tensor, p pipeline parallel; b batch: requests each replica runs at "
			  "once. Utilisation: the share of the replicas' batch slots the request rate keeps busy; "
			  "p99 TTFT: time to first token of 99% of requests, the wait for a free slot included "
			  "(Erlang C); TPOT: time per output token. Cost and energy per hour: owned hardware at "
			  "its total cost of ownership per GPU-hour used, rented at on-demand prices; energy: "
			  "GPUs only. See docs/plan.md." :
			  "Layout code: t tensor, c context (each sequence split over the GPUs, ring attention), "
			  "p pipeline, v virtual pipeline stages, d data, e expert parallel (degrees of 1 left "
			  "out); z ZeRO stage; rs selective, rf full, ro per-op activation recompute; oo "
			  "optimizer states and master weights offloaded to host memory, op the parameters "
			  "too; m micro-batch. Cost: owned hardware at its total cost of ownership per GPU-hour "
			  "used, rented at on-demand prices; energy: GPUs only. See docs/plan.md.");
}

/* What to add to the servers owned: the table of the ways to run the job, and the answer. */
static void have_section(struct html_doc *d, const struct plan_have_answer *h)
{
	struct report_row *row = report_row_new(plan_add_schema());
	char cells[PLAN_ADD_NCOLUMNS][FMT_LEN];
	const char *cp[PLAN_ADD_NCOLUMNS];
	size_t i, k;

	html_heading(d, 2, "What to add to the servers you own");
	html_paragraph(d, h->text);
	html_table_begin(d, "have", NULL);
	html_table_head(d, plan_add_headings, PLAN_ADD_NCOLUMNS);
	for (i = 0; i < PLAN_ADD_COUNT; i++) {
		plan_add_cells(&h->opt[i], row, cells);
		for (k = 0; k < PLAN_ADD_NCOLUMNS; k++)
			cp[k] = cells[k];
		html_table_row(d, cp, PLAN_ADD_NCOLUMNS);
	}
	html_table_end(d);
	report_row_free(row);
}

int plan_report_html(const struct plan *p, const struct plan_explanation *ex, const struct plan_have_answer *have,
		     const char *title, const char *path, struct diag *err)
{
	struct strbuf head = STRBUF_INIT;
	struct html_doc *d;
	size_t n = plan_nranked(p);
	int rc;

	strbuf_addf(&head, "gpuscope plan: %s", title);
	d = html_new(strbuf_str(&head));
	html_heading(d, 1, strbuf_str(&head));
	strbuf_release(&head);
	report_head(p, d);
	if (have)
		have_section(d, have);
	rc = report_charts(p, d, n < 10 ? n : 10, err);
	if (!rc) {
		report_tables(p, d, ex);
		rc = html_write_file(d, path, err);
	}
	html_free(d);
	return rc;
}
