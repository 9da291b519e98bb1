/*
 * gpuscope plan: search GPU types, servers, counts, fabrics and parallel
 * layouts for a workload, rank them by time, cost or energy under the
 * user's constraints, and explain the first choice (src/plan/plan.h,
 * docs/plan.md).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "cmd/cmd.h"
#include "cmd/workload_opts.h"
#include "model/model.h"
#include "model/serving.h"
#include "plan/plan.h"
#include "report/table.h"
#include "util/error.h"
#include "util/suggest.h"
#include "util/units.h"
#include "util/xalloc.h"
#include "report/fmt.h"

static int json_flag, csv_flag, all_flag, servers_only, no_spares, fp8_flag, no_explain;
static const char *gpu_s, *ecosystem_s, *precision_s, *buy_s, *objective_s, *report_path;
static long max_batch, max_gpus = 4096, top_n = 10, threads;
static double rate, latency_target, deadline, budget, power_kw, utilisation, years, ttft_target, tpot_target;
static double rack_kw, storage_tb, checkpoint_every;
static struct workload_opts wo = {
	.cmd = "plan",
	.default_model = "llama2-7b",
	.model_hint = "give a preset or config.json",
	.output_len = -1,
};

static const struct opt plan_opts[] = {
	OPT_GROUP_("workload (default: Llama 2 7B, full fine-tune on 1e9 tokens)"),
	WORKLOAD_OPT_MODEL(wo, "a preset (estimate --list-models) or config.json"),
	WORKLOAD_OPT_TASK(wo, "pretrain, finetune (default), lora, qlora, infer"),
	WORKLOAD_OPT_DIMS(wo),
	WORKLOAD_OPT_SEQ_LEN(wo),
	WORKLOAD_OPT_GLOBAL_BATCH(wo, "samples per optimizer step (default: docs/plan.md)"),
	WORKLOAD_OPT_OPTIMIZER(wo, "adamw (default), adamw-bf16, adamw8bit, paged-adamw, paged-adamw8bit, adafactor, sgd-momentum, sgd"),
	WORKLOAD_OPT_LORA_RANK(wo),
	WORKLOAD_OPT_MEMORY(wo),
	OPT_GROUP_("amount of work"),
	WORKLOAD_OPT_TOKENS(wo, "tokens to train on (default 1e9 for transformers)"),
	WORKLOAD_OPT_SAMPLES(wo, "samples per epoch (per-sample models: default 1e6)"),
	WORKLOAD_OPT_EPOCHS(wo),
	OPT_GROUP_("inference (--task infer)"),
	OPT_POSITIVE_("rate", &rate, "R", "requests per second to serve (default 1)", 0, 1e9),
	OPT_DURATION_POSITIVE_("latency-target", &latency_target, "TIME", "latency each request must meet (5ms, 2s)", 3600),
	OPT_DURATION_POSITIVE_("ttft-target", &ttft_target, "TIME", "time to first token each request must meet (200ms)", 3600),
	OPT_DURATION_POSITIVE_("tpot-target", &tpot_target, "TIME", "time per output token to meet (50ms)", 3600),
	WORKLOAD_OPT_PROMPT_LEN(wo),
	WORKLOAD_OPT_OUTPUT_LEN(wo),
	OPT_INT_("max-batch", &max_batch, "N", "largest batch a replica may run (default 256)", 1, 1000000),
	OPT_GROUP_("what to search"),
	OPT_STRING_("gpu", &gpu_s, "A,B,...", "only these GPU types (a100 matches every A100)"),
	OPT_STRING_("ecosystem", &ecosystem_s, "NAME", "cuda, rocm, synapseai or any (default any)"),
	OPT_STRING_("buy", &buy_s, "WHAT", "onprem (default), cloud or cloud:PROVIDER"),
	OPT_FLAG_("servers-only", &servers_only, "onprem: catalog servers only, no generic builds"),
	OPT_FLAG_("no-spares", &no_spares, "train on every GPU of an NVL72/NVL36 rack, none spare"),
	OPT_INT_("max-gpus", &max_gpus, "N", "largest GPU count (default 4096)", 1, 1000000),
	OPT_STRING_("precision", &precision_s, "P,...", "to try: bf16 (default), fp16, fp8, tf32, fp32"),
	OPT_FLAG_("fp8", &fp8_flag, "also try fp8 where the GPU has it"),
	OPT_DOUBLE_("utilisation", &utilisation, "PCT", "onprem: % of hours the GPUs work (default 70)", 1, 100),
	OPT_DOUBLE_("years", &years, "Y", "onprem: years of service (default: depreciation)", 0.25, 50),
	OPT_POSITIVE_("rack-kw", &rack_kw, "KW", "onprem: kW per rack (default: air 41, liquid 132)", 0, 10000),
	OPT_POSITIVE_("storage-tb", &storage_tb, "TB", "onprem: shared storage to buy (default 2 TB per GPU)", 0, 1e9),
	OPT_DURATION_POSITIVE_("checkpoint-every", &checkpoint_every, "TIME", "checkpoint interval (default: the optimum)",
			       OPT_DURATION_MAX_S),
	OPT_GROUP_("ranking and constraints"),
	OPT_STRING_("objective", &objective_s, "WHAT", "cost (default), time, energy, balanced, capex"),
	OPT_DURATION_POSITIVE_("deadline", &deadline, "TIME", "finish within this time (30d, 36h)", OPT_DURATION_MAX_S),
	OPT_QUANTITY_POSITIVE_("budget", &budget, "USD", "at most this (per hour to serve; to buy: capex)", "USD", 1e15),
	OPT_POSITIVE_("power-kw", &power_kw, "KW", "full-load power of all servers at most this", 0, 1e9),
	OPT_INT_("top", &top_n, "N", "choices to list (default 10)", 1, 1000),
	OPT_INT_("threads", &threads, "N", "search threads (default: every core)", 0, 1024),
	OPT_GROUP_("output"),
	OPT_FLAG_("json", &json_flag, "JSON: every field of every listed choice"),
	OPT_FLAG_("csv", &csv_flag, "print CSV: one row per ranked choice, every field"),
	OPT_FLAG_("all", &all_flag, "with --json/--csv: every hardware x count searched"),
	OPT_STRING_("report", &report_path, "FILE", "write a self-contained HTML report with charts"),
	OPT_FLAG_("no-explain", &no_explain, "skip the explanation of the first choice"),
	OPT_END_(),
};

static const struct opts_cmd plan_cmd = {
	"plan",
	"[WORKLOAD] [options]",
	"Search GPUs, servers, counts, networks and layouts; rank them and explain why.",
	"WORKLOAD is a preset name or a config.json (as --model).  With no arguments,\n"
	"plan the headline case: a full fine-tune of Llama 2 7B in bf16 on 1e9 tokens,\n"
	"on hardware you would own.\n"
	"\nExamples:\n"
	"  gpuscope plan\n"
	"  gpuscope plan llama3-70b --task pretrain --tokens 15e12 --deadline 90d --fp8\n"
	"  gpuscope plan llama2-13b --buy cloud:aws --objective time --budget 20000\n"
	"  gpuscope plan mixtral-8x7b --gpu h100,h200,mi300x --report plan.html\n"
	"  gpuscope plan gnn --task infer --rate 2000 --latency-target 5ms\n"
	"\nThe search, its defaults and its output fields are described in docs/plan.md.\n",
	plan_opts,
};

#define DIE(...) die_usage("gpuscope plan: " __VA_ARGS__)

/* ---- the request ---- */

/* Lower case, letters and digits only: "A100-SXM4" -> "a100sxm4". */
static void squash(const char *s, char *out, size_t len)
{
	size_t o = 0;
	for (; *s && o + 1 < len; s++)
		if ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9'))
			out[o++] = *s;
		else if (*s >= 'A' && *s <= 'Z')
			out[o++] = (char)(*s - 'A' + 'a');
	out[o] = 0;
}

/*
 * --gpu A,B: each name resolves as everywhere in gpuscope; a name that
 * matches several GPUs ("a100") stands for all of them.
 */
static size_t parse_gpus(const struct catalog *cat, const char *list, const struct cat_gpu ***out)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	const struct cat_gpu **v = NULL;
	size_t n = 0, cap = 0, i, ng = catalog_count(cat, CAT_GPUS);

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char why[1024], want[128];
		const struct cat_gpu *g;
		size_t before = n;
		while (*tok == ' ')
			tok++;
		if (!*tok)
			continue;
		g = catalog_gpu(cat, tok, why, sizeof(why));
		if (g) {
			for (i = 0; i < n && v[i] != g; i++)
				;
			if (i == n) {
				XGROW(v, cap, n);
				v[n++] = g;
			}
			continue;
		}
		if (strncmp(why, "ambiguous", 9))
			DIE("--gpu: %s", why);
		squash(tok, want, sizeof(want));
		for (i = 0; i < ng; i++) {
			const struct cat_gpu *c = catalog_gpu_at(cat, i);
			char k[128], nm[256];
			squash(c->row.key, k, sizeof(k));
			squash(c->row.name ? c->row.name : "", nm, sizeof(nm));
			size_t j;
			if (!strstr(k, want) && !strstr(nm, want))
				continue;
			for (j = 0; j < n && v[j] != c; j++)
				;
			if (j == n) {
				XGROW(v, cap, n);
				v[n++] = c;
			}
		}
		if (n == before)
			DIE("--gpu: %s", why);
	}
	free(copy);
	if (!n)
		DIE("--gpu: no GPU named in '%s'", list);
	*out = v;
	return n;
}

static unsigned parse_precisions(const char *list)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	unsigned mask = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int p = model_precision_from_name(tok);
		if (p < 0 || p == MODEL_INT8 || p == MODEL_INT4) {
			static const char *const names[] = {"bf16", "fp16", "fp8", "tf32", "fp32"};
			char hint[128];
			suggest_hint(tok, names, 5, hint, sizeof(hint));
			DIE("--precision: '%s' is not bf16, fp16, fp8, tf32 or fp32%s", tok, hint);
		}
		mask |= 1u << p;
	}
	free(copy);
	return mask;
}

static void parse_buy(const struct catalog *cat, struct plan_request *req)
{
	const char *prov;
	size_t i, n = catalog_count(cat, CAT_CLOUDS), np = 0;
	const char *names[64];

	req->buy = PLAN_BUY_OWN;
	if (!buy_s || !strcmp(buy_s, "onprem") || !strcmp(buy_s, "own"))
		return;
	if (strncmp(buy_s, "cloud", 5) || (buy_s[5] && buy_s[5] != ':')) {
		static const char *const kinds[] = {"onprem", "cloud", "cloud:any"};
		char hint[128];
		suggest_hint(buy_s, kinds, 3, hint, sizeof(hint));
		DIE("--buy '%s' is not onprem, cloud or cloud:PROVIDER%s", buy_s, hint);
	}
	req->buy = PLAN_BUY_CLOUD;
	prov = buy_s[5] == ':' ? buy_s + 6 : "any";
	if (!*prov || !strcmp(prov, "any"))
		return;
	for (i = 0; i < n; i++) {
		const struct cat_cloud *c = catalog_cloud_at(cat, i);
		size_t k;
		if (!c->provider)
			continue;
		if (!strcasecmp(c->provider, prov)) {
			req->provider = c->provider;
			return;
		}
		for (k = 0; k < np && strcmp(names[k], c->provider); k++)
			;
		if (k == np && np < 63)
			names[np++] = c->provider;
	}
	{
		char hint[256], list[512];
		size_t o = 0;
		list[0] = 0;
		for (i = 0; i < np && o < sizeof(list); i++)
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", i ? ", " : "", names[i]);
		suggest_hint(prov, names, np, hint, sizeof(hint));
		DIE("--buy: no cloud provider '%s' in the catalog%s (providers: %s, or any)", prov, hint, list);
	}
}

/* ---- progress ---- */

static void progress(void *arg, size_t done, size_t total)
{
	int width = 30, fill;
	(void)arg;
	if (!total)
		return;
	fill = (int)(width * done / total);
	if (done >= total) {
		fprintf(stderr, "\r%*s\r", width + 40, "");
		return;
	}
	fprintf(stderr, "\rsearching [%.*s%*s] %3zu%% (%zu/%zu)", fill,
		"##############################", width - fill, "", 100 * done / total, done, total);
	fflush(stderr);
}

/* ---- numbers for the 80-column table: report/fmt.h ---- */

/* ---- human output ---- */

/* Prints text wrapped at 80 columns, the first line after `lead`, the rest indented. */
static void wrap(const char *lead, const char *text, int indent)
{
	table_wrap(stdout, lead, text, indent, 80);
}

static const char *task_words(const struct workload *w, enum model_task t)
{
	if (w->kind != WORKLOAD_TRANSFORMER && (t == MODEL_TASK_PRETRAIN || t == MODEL_TASK_FINETUNE))
		return "training";
	switch (t) {
	case MODEL_TASK_PRETRAIN: return "pretraining";
	case MODEL_TASK_FINETUNE: return "full fine-tune";
	case MODEL_TASK_LORA: return "LoRA fine-tune";
	case MODEL_TASK_QLORA: return "QLoRA fine-tune";
	default: return "inference";
	}
}

static void title_line(const struct workload *w, const struct plan_request *req,
		       const struct model_config *b, char *buf, size_t len)
{
	char n[32], amt[96], c[32];
	if (b->task == MODEL_TASK_INFER)
		snprintf(amt, sizeof(amt), "%s requests/s", fmt_count(req->rate_per_s > 0 ? req->rate_per_s : 1, FMT_COUNT_G3,
								   c, sizeof(c)));
	else if (b->train_tokens > 0)
		snprintf(amt, sizeof(amt), "%s tokens", fmt_count(b->train_tokens, FMT_COUNT_G3, c, sizeof(c)));
	else if (b->epochs > 1)
		snprintf(amt, sizeof(amt), "%s %s x %.3g epochs", fmt_count(b->train_samples, FMT_COUNT_G3, c, sizeof(c)),
			 w->sample_unit, b->epochs);
	else
		snprintf(amt, sizeof(amt), "%s %s", fmt_count(b->train_samples, FMT_COUNT_G3, c, sizeof(c)), w->sample_unit);
	snprintf(buf, len, "%s (%s parameters), %s on %s", w->name, fmt_count(w->params, FMT_COUNT_SI_SHORT, n, sizeof(n)),
		 task_words(w, b->task), amt);
}

static void choice_row(struct table *tb, const struct plan *p, size_t rank, const struct plan_choice *c,
		       int narrow)
{
	size_t nhw;
	const struct plan_hw *hw = plan_hw(p, &nhw) + c->hw;
	char a[32], b[48];
	int infer = c->cfg.task == MODEL_TASK_INFER;

	table_row(tb);
	if (rank)
		table_cellf(tb, "%zu", rank);
	else
		table_cell(tb, "*");
	table_cellf(tb, "%ux%d %s", c->nodes, hw->gpus_per_node, hw->label);
	table_cell(tb, plan_layout_code(&c->cfg, b, sizeof(b)));
	table_cellf(tb, "%.0f%%", 100 * c->res.mem.total_bytes / c->res.mem.capacity_bytes);
	if (infer) {
		table_cell(tb, fmt_duration(c->latency_s, FMT_DURATION_STEP, a, sizeof(a)));
		table_cellf(tb, "%d", c->replicas);
		if (!narrow)
			table_cell(tb, fmt_count(c->res.samples_per_s * c->replicas, FMT_COUNT_SI_SHORT, a, sizeof(a)));
		table_cell(tb, fmt_money(c->cost_usd, FMT_MONEY_SHORT, a, sizeof(a)));
		if (!narrow)
			table_cell(tb, fmt_count(c->energy_kwh, FMT_COUNT_SI_SHORT, a, sizeof(a)));
	} else {
		if (!narrow)
			table_cell(tb, fmt_count(c->res.tokens_per_s > 0 ? c->res.tokens_per_s :
					      c->res.samples_per_s, FMT_COUNT_SI_SHORT, a, sizeof(a)));
		table_cell(tb, fmt_duration(c->hours * 3600, FMT_DURATION_SHORT, a, sizeof(a)));
		table_cell(tb, fmt_money(c->cost_usd, FMT_MONEY_SHORT, a, sizeof(a)));
		table_cell(tb, c->has_bom ? fmt_money(c->bom.capex_usd, FMT_MONEY_SHORT, a, sizeof(a)) : "rent");
	}
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

static char rate_buf[16];

static struct table *choice_table(const struct plan *p, const struct workload *w, int narrow)
{
	struct table *tb = table_new();
	int infer = plan_request_of(p)->base.task == MODEL_TASK_INFER;
	table_column(tb, "#", ALIGN_RIGHT);
	table_column(tb, "hardware", ALIGN_LEFT);
	table_column(tb, "layout", ALIGN_LEFT);
	table_column(tb, "mem", ALIGN_RIGHT);
	if (infer) {
		table_column(tb, "latency", ALIGN_RIGHT);
		table_column(tb, "copies", ALIGN_RIGHT);
		if (!narrow)
			table_column(tb, "req/s", ALIGN_RIGHT);
		table_column(tb, "cost/h", ALIGN_RIGHT);
		if (!narrow)
			table_column(tb, "kWh/h", ALIGN_RIGHT);
	} else {
		if (!narrow)
			table_column(tb, rate_label(w, rate_buf, sizeof(rate_buf)), ALIGN_RIGHT);
		table_column(tb, "time", ALIGN_RIGHT);
		table_column(tb, "cost", ALIGN_RIGHT);
		table_column(tb, "capex", ALIGN_RIGHT);
	}
	return tb;
}

static void print_explanation(const struct plan *p, const struct plan_choice *c,
			      const struct plan_explanation *ex)
{
	size_t i, nhw;
	const struct plan_hw *hw = plan_hw(p, &nhw) + c->hw;
	char buf[1024], lay[64], flags[768], net[64];

	printf("\nWhy #1: %ux%d %s, %s", c->nodes, hw->gpus_per_node, hw->label,
	       plan_layout_code(&c->cfg, lay, sizeof(lay)));
	if (c->nodes > 1)
		printf(", %s", plan_network_name(p, c, net, sizeof(net)));
	printf("\n");
	wrap("  architecture ", ex->arch_text, 15);
	wrap("  size         ", ex->sizing, 15);
	if (c->cfg.task != MODEL_TASK_INFER) {
		snprintf(buf, sizeof(buf),
			 "compute %.0f%%, exposed communication %.0f%%, pipeline bubble %.0f%%, data "
			 "loading %.0f%%, optimizer and overhead %.0f%% of %.3g s; MFU %.0f%%",
			 100 * ex->compute_share, 100 * ex->comm_share, 100 * ex->bubble_share,
			 100 * ex->data_share, 100 * ex->other_share, c->res.time.step_s, 100 * c->res.mfu);
		wrap("  step         ", buf, 15);
	}
	if (c->cfg.task != MODEL_TASK_INFER && c->gp.goodput < 0.9995) {
		char e1[32], e2[32];
		snprintf(buf, sizeof(buf),
			 "%.1f%% of the wall time trains: checkpoints %.1f%% (%.0f s to write %s every %s), "
			 "interruptions %.1f%% (%.3g expected at %.3g per 1,000 GPU-hours, each a restart "
			 "and half an interval recomputed)",
			 100 * c->gp.goodput, 100 * c->gp.ckpt_hours / c->hours, c->gp.ckpt_write_s,
			 fmt_bytes(c->gp.ckpt_bytes, FMT_BYTES_BINARY, e1, sizeof(e1)),
			 fmt_duration(c->gp.ckpt_every_s, FMT_DURATION_SHORT, e2, sizeof(e2)), 100 * c->gp.fail_hours / c->hours,
			 c->gp.interruptions, 1000 * c->gp.fail_rate_per_gpu_hour);
		wrap("  goodput      ", buf, 15);
	}
	if (c->has_bom) {
		char a1[32], a2[32], a3[32], a4[32], a5[32], a6[32], sw[96];
		const struct bom *b = &c->bom;
		char fab[320];
		if (b->tiers)
			snprintf(fab, sizeof(fab),
				 "%d-tier fabric %s: switches %s %s, %.0f NIC ports%s, %.0f optics, %.0f cables",
				 b->tiers, fmt_money(b->fabric_usd, FMT_MONEY_SHORT, a3, sizeof(a3)), bom_switch_text(b, sw, sizeof(sw)),
				 fmt_money(b->switch_usd, FMT_MONEY_SHORT, a4, sizeof(a4)), b->nics,
				 b->nics_bought > 0 ? "" : " (in the server price)", b->optics, b->cables);
		else
			snprintf(fab, sizeof(fab), "no scale-out fabric");
		snprintf(buf, sizeof(buf),
			 "%s: %.0f server%s %s, %.0f %s-cooled rack%s of %.0f kW (%.0f server%s a rack)%s%s; "
			 "%s; %.0f TB storage %s; %.0f kW at the wall (PUE %.2f)%s%s",
			 fmt_money(b->capex_usd, FMT_MONEY_SHORT, a1, sizeof(a1)), b->servers, b->servers == 1 ? "" : "s",
			 fmt_money(b->server_usd, FMT_MONEY_SHORT, a2, sizeof(a2)), b->racks, b->cooling,
			 b->racks == 1 ? "" : "s", b->rack_kw, b->nodes_per_rack, b->nodes_per_rack == 1 ? "" : "s",
			 b->cooling_usd > 0 ? ", liquid plant " : "",
			 b->cooling_usd > 0 ? fmt_money(b->cooling_usd, FMT_MONEY_SHORT, a5, sizeof(a5)) : "", fab, b->storage_tb,
			 fmt_money(b->storage_usd, FMT_MONEY_SHORT, a6, sizeof(a6)), b->power_kw, b->pue,
			 b->missing[0] ? "; unpriced: " : "", b->missing);
		wrap("  buy          ", buf, 15);
	} else if (c->bom.rented) {
		wrap("  rent         ", bom_rented_text(&c->bom, buf, sizeof(buf)), 15);
	}
	if (hw->spare_per_node > 0) {
		int bought = hw->gpus_per_node + hw->spare_per_node;
		snprintf(buf, sizeof(buf),
			 "%d of each node's %d GPUs train (%d in all) and %d are hot spares (%u in all), "
			 "ready to stand in for a failed tray: bought, so in the capex and the cost, and "
			 "idling at their idle power in the energy; --no-spares trains on all %d where a "
			 "layout divides the global batch",
			 hw->gpus_per_node, bought, c->gpus, hw->spare_per_node, c->nodes * (unsigned)hw->spare_per_node,
			 bought);
		wrap("  spares       ", buf, 15);
	}
	snprintf(buf, sizeof(buf), "gpuscope estimate %s", plan_estimate_args(p, c, flags, sizeof(flags)));
	wrap("  check it     ", buf, 15);
	if (ex->nalt) {
		printf("Alternatives\n");
		for (i = 0; i < ex->nalt; i++)
			wrap("  - ", ex->alt[i].text, 4);
	}
	if (ex->nadvice) {
		printf("Optimisations to turn on\n");
		for (i = 0; i < ex->nadvice; i++) {
			const struct model_advice *a = &ex->advice[i];
			snprintf(buf, sizeof(buf), "%s (%s): step %.3g s, %.2fx", a->what, a->flags,
				 a->step_s, a->speedup);
			wrap("  - ", buf, 4);
		}
	}
}

/* "12% over" or "4.2x": how far past a limit value/limit = miss is. */
static const char *miss_words(double miss, char *b, size_t len)
{
	if (miss < 2)
		snprintf(b, len, "%.0f%% over", 100 * (miss - 1));
	else
		snprintf(b, len, "%.3gx", miss);
	return b;
}

/* A choice's time in prose: a request's latency for inference, else the time to finish. */
static const char *fmt_choice_time(const struct plan_request *req, const struct plan_choice *x,
				   char *b, size_t len)
{
	return req->base.task == MODEL_TASK_INFER ? fmt_duration(x->latency_s, FMT_DURATION_STEP, b, len) :
	       fmt_duration(x->hours * 3600, FMT_DURATION_SHORT, b, len);
}

/* "  fastest overall: 4x8 h100-sxm5-80gb, 12d for $46k" */
static void print_overall(const struct plan *p, const char *what, const struct plan_choice *x)
{
	char buf[512], a[32], b[32];
	size_t nhw;
	const struct plan_hw *hw = plan_hw(p, &nhw);

	snprintf(buf, sizeof(buf), "%s overall: %ux%d %s, %s for %s", what, x->nodes,
		 hw[x->hw].gpus_per_node, hw[x->hw].label,
		 fmt_choice_time(plan_request_of(p), x, a, sizeof(a)), fmt_money(x->cost_usd, FMT_MONEY_SHORT, b, sizeof(b)));
	wrap("  ", buf, 2);
}

static void print_no_answer(const struct plan *p)
{
	const struct plan_request *req = plan_request_of(p);
	const struct plan_choice *m = plan_nearest_miss(p), *f = plan_closest_fit(p);
	char buf[768], a[32], b[32], c[48], lay[64];
	size_t nhw;
	const struct plan_hw *hw = plan_hw(p, &nhw);

	if (m) {
		const char *what[5];
		char names[160], rack[320] = "";
		int k = 0, i;
		size_t o = 0;
		if (req->deadline_s > 0 || req->ttft_s > 0 || req->tpot_s > 0)
			what[k++] = req->base.task == MODEL_TASK_INFER ? "latency target" : "deadline";
		if (req->budget_usd > 0)
			what[k++] = "budget";
		if (req->power_kw > 0)
			what[k++] = "power limit";
		if (m->violates & PLAN_VIOL_RACK) {
			/* bom_build leaves the rack it could not fill in m->bom, the default one included */
			int dflt = !(req->rack_kw > 0);
			what[k++] = dflt ? "default rack-power limit" : "rack-power limit (--rack-kw)";
			snprintf(rack, sizeof(rack),
				 "; one %s draws %.1f kW, more than the %.0f kW %sof %s %s-cooled rack (%s); give "
				 "--rack-kw %.0f or more", hw[m->hw].label, hw[m->hw].node_power_kw, m->bom.rack_kw,
				 dflt ? "default " : "", strcmp(m->bom.cooling, "air") ? "a" : "an", m->bom.cooling,
				 !dflt ? "--rack-kw" : strcmp(m->bom.cooling, "liquid") ?
				 "the catalog's facility rack_kw_air" : "the catalog's facility rack_kw_liquid",
				 ceil(hw[m->hw].node_power_kw));
		}
		if (!k)
			what[k++] = "constraints";
		names[0] = 0;
		for (i = 0; i < k; i++)
			o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", !i ? "" : i == k - 1 ? " and " : ", ",
					      what[i]);
		snprintf(buf, sizeof(buf),
			 "no configuration meets the %s%s; the nearest miss is %ux%d %s (%s): %s, "
			 "%s, %.1f kW, %s the tightest constraint", names, rack, m->nodes, hw[m->hw].gpus_per_node,
			 hw[m->hw].label, plan_layout_code(&m->cfg, lay, sizeof(lay)),
			 fmt_choice_time(req, m, a, sizeof(a)), fmt_money(m->cost_usd, FMT_MONEY_SHORT, b, sizeof(b)), m->power_kw,
			 miss_words(m->miss, c, sizeof(c)));
		wrap("", buf, 0);
		if (plan_fastest(p) && (req->deadline_s > 0 || req->ttft_s > 0 || req->tpot_s > 0))
			print_overall(p, "fastest", plan_fastest(p));
		if (plan_cheapest(p) && req->budget_usd > 0)
			print_overall(p, "cheapest", plan_cheapest(p));
	} else if (f) {
		snprintf(buf, sizeof(buf),
			 "nothing fits in memory within %d GPUs; the closest is %ux%d %s, whose best layout "
			 "needs %s per GPU of %.0f GiB; allow more GPUs (--max-gpus), larger GPUs, "
			 "LoRA/QLoRA or a shorter --seq-len",
			 req->max_gpus, f->nodes, hw[f->hw].gpus_per_node, hw[f->hw].label,
			 fmt_bytes(f->min_bytes, FMT_BYTES_BINARY, a, sizeof(a)), hw[f->hw].gpu->memory_gib);
		wrap("", buf, 0);
	} else if (req->base.task == MODEL_TASK_INFER) {
		snprintf(buf, sizeof(buf),
			 "no configuration of at most %d GPUs serves %g requests/s; lower --rate or "
			 "allow more GPUs (--max-gpus)", req->max_gpus, req->rate_per_s);
		wrap("", buf, 0);
	} else if (plan_no_layout_reason(p, buf, sizeof(buf))) {
		wrap("", buf, 0);
	} else {
		wrap("", "nothing could be evaluated with these options", 0);
	}
}

/*
 * A run is whole optimizer steps (model.h train_steps): where that rounds
 * the amount asked for up by more than 1 %, say so.
 */
static void print_whole_steps(const struct plan *p, const struct workload *w)
{
	const struct model_config *b = plan_base(p);
	int tokens = b->train_tokens > 0;
	double asked = tokens ? b->train_tokens : b->train_samples * (b->epochs > 0 ? b->epochs : 1);
	double per_step = (double)plan_global_batch(p) * (tokens ? b->seq_len : 1), steps;
	char line[512], x[32], y[32], z[96];
	if (!(asked > 0) || !(per_step > 0))
		return;
	steps = ceil(asked / per_step - 1e-9);
	if (steps * per_step <= 1.01 * asked)
		return;
	if (tokens)
		snprintf(z, sizeof(z), "%d x %d tokens", plan_global_batch(p), b->seq_len);
	else
		snprintf(z, sizeof(z), "%d %s", plan_global_batch(p), w->sample_unit);
	snprintf(line, sizeof(line), "a run is whole optimizer steps of %s: %s %s round up to %.0f "
		 "step%s (%s %s); times and costs are for whole steps", z, fmt_count(asked, FMT_COUNT_G3, y, sizeof(y)),
		 tokens ? "tokens" : w->sample_unit, steps, steps == 1 ? "" : "s",
		 fmt_count(steps * per_step, FMT_COUNT_SI_SHORT, x, sizeof(x)), tokens ? "tokens" : w->sample_unit);
	wrap("  ", line, 2);
}

static void print_human(const struct plan *p, const struct workload *w, const char *title,
			const struct plan_explanation *ex, int have_ex)
{
	const struct plan_request *req = plan_request_of(p);
	const struct plan_stats *st = plan_stats(p);
	size_t i, n = plan_nranked(p), nhw, nall;
	char buf[256], a[32], b[32];
	struct table *tb;
	int G = plan_global_batch(p), infer = req->base.task == MODEL_TASK_INFER;

	plan_hw(p, &nhw);
	plan_all(p, &nall);
	printf("gpuscope plan: %s\n", title);
	if (infer) {
		size_t o = (size_t)snprintf(buf, sizeof(buf), "%s%s",
					    req->deadline_s > 0 ? "latency target " : "no latency target",
					    req->deadline_s > 0 ? fmt_duration(req->deadline_s, FMT_DURATION_STEP, a, sizeof(a)) : "");
		if (req->ttft_s > 0 && o < sizeof(buf))
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, ", TTFT %s", fmt_duration(req->ttft_s, FMT_DURATION_STEP, a, sizeof(a)));
		if (req->tpot_s > 0 && o < sizeof(buf))
			snprintf(buf + o, sizeof(buf) - o, ", TPOT %s", fmt_duration(req->tpot_s, FMT_DURATION_STEP, a, sizeof(a)));
	}
	else if (w->kind == WORKLOAD_TRANSFORMER)
		snprintf(buf, sizeof(buf), "global batch %d x %d tokens", G, plan_base(p)->seq_len);
	else
		snprintf(buf, sizeof(buf), "global batch %d %s", G, w->sample_unit);
	{
		char line[1536];
		snprintf(line, sizeof(line), "%s; %s; objective %s; up to %d GPUs; searched %s "
			 "configurations of %zu hardware options in %s on %d threads",
			 buf, req->buy == PLAN_BUY_CLOUD ?
			 (req->provider ? req->provider : "cloud instances at on-demand prices") :
			 "owned hardware (catalog servers and generic builds, priced by TCO)",
			 plan_objective_name(req->objective), req->max_gpus,
			 fmt_count((double)st->configs, FMT_COUNT_SI_SHORT, a, sizeof(a)), nhw,
			 fmt_duration(st->wall_s, FMT_DURATION_TEXT, b, sizeof(b)), st->threads);
		wrap("  ", line, 2);
	}
	if (*plan_skipped(p)) {
		wrap("  left out: ", plan_skipped(p), 2);
	}
	if (!infer)
		print_whole_steps(p, w);
	if (!n) {
		printf("\n");
		print_no_answer(p);
		return;
	}
	printf("\nTop %zu by %s\n", n, plan_objective_name(req->objective));
	tb = choice_table(p, w, 0);
	for (i = 0; i < n; i++)
		choice_row(tb, p, i + 1, plan_ranked(p, i), 0);
	table_print(tb, stdout, 80);
	table_free(tb);
	{
		size_t nhw_all;
		const struct plan_hw *hw = plan_hw(p, &nhw_all);
		for (i = 0; i < n && !hw[plan_ranked(p, i)->hw].spare_per_node; i++)
			;
		if (i < n)
			wrap("", "hardware: nodes x GPUs that train, +N GPUs a node holds spare (bought, idle)", 0);
	}
	wrap("", infer ? "layout: t tensor, p pipeline parallel, b batch per copy; mem: % of each GPU's "
		 "memory; cost and energy per hour" :
		 "layout: t tensor, c context, p pipeline, v virtual stages, d data, e expert parallel (1s left "
		 "out); "
		 "z ZeRO stage; rs/rf/ro selective/full/per-op recompute; oo/op optimizer/+params offloaded; "
		 "m micro-batch; mem: % of each GPU's memory; "
		 "time: to finish, checkpoints and interruptions included; cost: the run on owned "
		 "hardware (TCO) or rented; capex: the bill of materials to buy", 0);

	printf("\nPareto front, time against cost: %zu choice%s (fastest first)\n", plan_nfront(p),
	       plan_nfront(p) == 1 ? "" : "s");
	tb = choice_table(p, w, 1);
	for (i = 0; i < plan_nfront(p) && i < 12; i++) {
		const struct plan_choice *c = plan_front(p, i);
		size_t r;
		for (r = 0; r < n && plan_ranked(p, r) != c; r++)
			;
		choice_row(tb, p, r < n ? r + 1 : 0, c, 1);
	}
	table_print(tb, stdout, 80);
	table_free(tb);
	if (plan_nfront(p) > 12)
		printf("(%zu more on the front: --json or --report)\n", plan_nfront(p) - 12);
	printf("* on the front, not in the top %zu\n", n);
	if (have_ex)
		print_explanation(p, plan_ranked(p, 0), ex);
}

/* ---- JSON and CSV: the same fields, flat ---- */

struct field {
	const char *name;
	const char *text;  /* NULL: a number */
	double num;
	int is_int, is_bool;
};

#define MAXF 112

static size_t choice_fields(const struct plan *p, const struct plan_choice *c, long rank,
			    struct field *f, char bufs[][64], char *args, size_t args_len)
{
	size_t n = 0, nhw, nb = 0;
	const struct plan_hw *hw = plan_hw(p, &nhw) + c->hw;
	const struct model_memory *m = &c->res.mem;
	const struct model_time *t = &c->res.time;
	const struct model_config *g = &c->cfg;
	static const char *const kinds[] = {"server", "cloud", "generic"};
	const char *viol;
	struct model_queue q;
	int llm = !plan_queue_of(p, c, &q) && plan_request_of(p)->w->kind == WORKLOAD_TRANSFORMER;

#define NUM(nm, v) (f[n].name = nm, f[n].text = NULL, f[n].num = (v), f[n].is_int = 0, f[n].is_bool = 0, n++)
#define INT(nm, v) (f[n].name = nm, f[n].text = NULL, f[n].num = (v), f[n].is_int = 1, f[n].is_bool = 0, n++)
#define BOOL(nm, v) (f[n].name = nm, f[n].text = NULL, f[n].num = (v), f[n].is_int = 0, f[n].is_bool = 1, n++)
#define TXT(nm, v) (f[n].name = nm, f[n].text = (v), n++)
	INT("rank", (double)rank);
	TXT("hardware", hw->key);
	TXT("hardware_kind", kinds[hw->kind]);
	TXT("label", hw->label);
	TXT("gpu", hw->gpu->row.key);
	INT("nodes", c->nodes);
	INT("gpus_per_node", hw->gpus_per_node);
	INT("gpus", c->gpus);
	INT("spare_gpus", (double)c->nodes * hw->spare_per_node);
	TXT("intra_link", model_link_name(g->intra_kind));
	NUM("intra_gbps", g->intra_gbps);
	TXT("network", plan_network_name(p, c, bufs[nb++], 64));
	NUM("inter_gbps_per_gpu", g->inter_gbps_per_gpu);
	TXT("architecture", plan_arch_name(plan_arch_of(p, c)));
	TXT("layout", plan_layout_code(g, bufs[nb++], 64));
	TXT("precision", model_precision_name(g->precision));
	INT("tp", g->tp);
	INT("pp", g->pp);
	INT("vpp", g->vpp);
	INT("dp", g->dp);
	INT("ep", g->ep);
	INT("zero", g->zero);
	TXT("recompute", model_recompute_name(g->recompute));
	BOOL("seq_parallel", g->seq_parallel);
	INT("micro_batch", g->micro_batch);
	INT("global_batch", g->global_batch);
	TXT("loader", model_loader_name(g->loader));
	INT("batch", g->task == MODEL_TASK_INFER ? g->batch : 0);
	INT("replicas", c->replicas);
	NUM("memory_total_bytes", m->total_bytes);
	NUM("memory_capacity_bytes", m->capacity_bytes);
	NUM("memory_pct", 100 * m->total_bytes / m->capacity_bytes);
	NUM("weights_bytes", m->weights_bytes);
	NUM("gradients_bytes", m->gradients_bytes);
	NUM("optimizer_bytes", m->optimizer_bytes);
	NUM("activations_bytes", m->activations_bytes);
	NUM("logits_bytes", m->logits_bytes);
	NUM("lora_bytes", m->lora_bytes);
	NUM("kv_cache_bytes", m->kv_cache_bytes);
	NUM("buffers_bytes", m->buffers_bytes);
	NUM("reserve_bytes", m->reserve_bytes);
	NUM("context_bytes", m->context_bytes);
	INT("microbatches_in_flight", m->microbatches_in_flight);
	NUM("step_s", t->step_s);
	NUM("compute_s", t->compute_s);
	NUM("gemm_s", t->gemm_s);
	NUM("attention_s", t->attention_s);
	NUM("memory_bound_s", t->memory_bound_s);
	NUM("recompute_s", t->recompute_s);
	NUM("optimizer_s", t->optimizer_s);
	NUM("tp_comm_s", t->tp_comm_s);
	NUM("ep_comm_s", t->ep_comm_s);
	NUM("pp_bubble_s", t->pp_bubble_s);
	NUM("pp_p2p_s", t->pp_p2p_s);
	NUM("dp_comm_s", t->dp_comm_s);
	NUM("dp_comm_total_s", t->dp_comm_total_s);
	NUM("zero_comm_s", t->zero_comm_s);
	NUM("data_s", t->data_s);
	NUM("overhead_s", t->overhead_s);
	NUM("tokens_per_s", c->res.tokens_per_s * (c->replicas > 1 ? c->replicas : 1));
	NUM("samples_per_s", c->res.samples_per_s * (c->replicas > 1 ? c->replicas : 1));
	NUM("mfu", c->res.mfu);
	NUM("mfu_tflops_per_gpu", c->res.mfu_tflops_per_gpu);
	NUM("hfu_tflops_per_gpu", c->res.hfu_tflops_per_gpu);
	NUM("peak_tflops", c->res.peak_tflops);
	NUM("latency_s", c->latency_s);
	NUM("ttft_p99_s", llm ? q.ttft_p99_s : NAN);
	NUM("tpot_s", llm ? c->res.infer.decode_token_s : NAN);
	NUM("utilisation", g->task == MODEL_TASK_INFER ? q.utilisation : NAN);
	NUM("time_to_finish_s", g->task == MODEL_TASK_INFER ? 0 : c->hours * 3600);
	NUM("train_steps", g->task == MODEL_TASK_INFER ? 0 : c->res.train_steps);
	NUM("hours", c->hours);
	NUM("cost_usd", c->cost_usd);
	NUM("usd_per_gpu_hour", hw->cost.usd_per_gpu_hour);
	TXT("cost_basis", hw->cost.kind == COST_OWNED ? "owned" : "rented");
	NUM("energy_kwh", c->energy_kwh);
	NUM("gpu_power_w", c->res.power_w);
	NUM("power_kw", c->power_kw);
	NUM("score", c->score);
	BOOL("on_front", plan_on_front(p, c));
	BOOL("meets_constraints", !c->violates);
	viol = c->violates & PLAN_VIOL_DEADLINE ? (c->violates & PLAN_VIOL_BUDGET ? "deadline;budget" : "deadline") :
	       c->violates & PLAN_VIOL_BUDGET ? "budget" : "";
	if (c->violates & PLAN_VIOL_POWER) {
		snprintf(bufs[nb], 64, "%s%spower", viol, *viol ? ";" : "");
		viol = bufs[nb++];
	}
	TXT("violates", viol);
	NUM("miss", c->miss);
	NUM("fabric_best_step_s", c->fabric_best_step_s);
	NUM("capex_usd", c->has_bom ? c->bom.capex_usd : NAN);
	NUM("goodput", c->gp.goodput);
	NUM("ideal_hours", c->gp.ideal_hours);
	NUM("checkpoint_bytes", c->gp.ckpt_bytes);
	NUM("checkpoint_write_s", c->gp.ckpt_write_s);
	NUM("checkpoint_every_s", c->gp.ckpt_every_s);
	NUM("checkpoint_hours", c->gp.ckpt_hours);
	NUM("interruptions", c->gp.interruptions);
	NUM("interruption_hours", c->gp.fail_hours);
	TXT("estimate_args", plan_estimate_args(p, c, args, args_len));
#undef NUM
#undef INT
#undef BOOL
#undef TXT
	(void)nb;
	return n;
}

static json_t *field_json(const struct field *f)
{
	if (f->text)
		return json_string(f->text);
	if (f->is_bool)
		return json_boolean(f->num != 0);
	if (f->is_int)
		return json_integer((json_int_t)f->num);
	return isfinite(f->num) ? json_real(f->num) : json_null();
}

static json_t *choice_json(const struct plan *p, const struct plan_choice *c, long rank)
{
	struct field f[MAXF];
	char bufs[8][64], args[1024];
	size_t n, i;
	json_t *o;
	if (!c)
		return json_null();
	o = json_object();
	n = choice_fields(p, c, rank, f, bufs, args, sizeof(args));
	for (i = 0; i < n; i++)
		json_object_set_new(o, f[i].name, field_json(&f[i]));
	json_object_set_new(o, "bom", c->has_bom || c->bom.rented ? bom_json(&c->bom) : json_null());
	return o;
}

static long rank_of(const struct plan *p, const struct plan_choice *c)
{
	size_t r;
	for (r = 0; r < plan_nranked(p); r++)
		if (plan_ranked(p, r) == c)
			return (long)r + 1;
	return 0;
}

static json_t *explanation_json(const struct plan_explanation *ex)
{
	json_t *o = json_object(), *alt = json_array(), *adv = json_array();
	size_t i;
	json_object_set_new(o, "architecture", json_string(plan_arch_name(ex->arch)));
	json_object_set_new(o, "architecture_text", json_string(ex->arch_text));
	json_object_set_new(o, "sizing", json_string(ex->sizing));
	json_object_set_new(o, "compute_share", json_real(ex->compute_share));
	json_object_set_new(o, "comm_share", json_real(ex->comm_share));
	json_object_set_new(o, "bubble_share", json_real(ex->bubble_share));
	json_object_set_new(o, "data_share", json_real(ex->data_share));
	json_object_set_new(o, "other_share", json_real(ex->other_share));
	for (i = 0; i < ex->nalt; i++) {
		const struct plan_note *n = &ex->alt[i];
		json_t *a = json_object();
		json_object_set_new(a, "kind", json_string(n->kind));
		json_object_set_new(a, "text", json_string(n->text));
		json_object_set_new(a, "step_s", isfinite(n->step_s) ? json_real(n->step_s) : json_null());
		json_object_set_new(a, "ratio_time", isfinite(n->ratio_time) ? json_real(n->ratio_time) : json_null());
		json_object_set_new(a, "ratio_cost", isfinite(n->ratio_cost) ? json_real(n->ratio_cost) : json_null());
		json_object_set_new(a, "fits", json_boolean(n->fits));
		json_array_append_new(alt, a);
	}
	json_object_set_new(o, "alternatives", alt);
	for (i = 0; i < ex->nadvice; i++) {
		const struct model_advice *a = &ex->advice[i];
		json_t *j = json_object();
		json_object_set_new(j, "what", json_string(a->what));
		json_object_set_new(j, "flags", json_string(a->flags));
		json_object_set_new(j, "step_s", json_real(a->step_s));
		json_object_set_new(j, "total_bytes", json_real(a->total_bytes));
		json_object_set_new(j, "speedup", json_real(a->speedup));
		json_object_set_new(j, "fits", json_boolean(a->fits));
		json_array_append_new(adv, j);
	}
	json_object_set_new(o, "optimisations", adv);
	return o;
}

static int print_json(const struct plan *p, const struct workload *w, const struct plan_explanation *ex,
		      int have_ex)
{
	const struct plan_request *req = plan_request_of(p);
	const struct plan_stats *st = plan_stats(p);
	json_t *root = json_object(), *wl = json_object(), *rq = json_object(), *se = json_object();
	json_t *arr;
	size_t i, nhw, nfab, nall;
	const struct plan_fabric *fab = plan_fabrics(p, &nfab);
	const struct plan_choice *all = plan_all(p, &nall);
	unsigned prec = req->precisions ? req->precisions : 1u << MODEL_BF16;

	plan_hw(p, &nhw);
	json_object_set_new(wl, "name", json_string(w->name));
	json_object_set_new(wl, "kind", json_string(w->kind == WORKLOAD_TRANSFORMER ? "transformer" : "per-sample"));
	json_object_set_new(wl, "params", json_real(w->params));
	json_object_set_new(wl, "task", json_string(model_task_name(req->base.task)));
	json_object_set_new(wl, "seq_len", json_integer(plan_base(p)->seq_len));
	json_object_set_new(wl, "global_batch", json_integer(plan_global_batch(p)));
	json_object_set_new(wl, "train_tokens", json_real(plan_base(p)->train_tokens));
	json_object_set_new(wl, "train_samples", json_real(plan_base(p)->train_samples));
	json_object_set_new(wl, "epochs", json_real(plan_base(p)->epochs));
	json_object_set_new(root, "workload", wl);

	json_object_set_new(rq, "objective", json_string(plan_objective_name(req->objective)));
	json_object_set_new(rq, "buy", json_string(req->buy == PLAN_BUY_CLOUD ? "cloud" : "onprem"));
	json_object_set_new(rq, "provider", req->provider ? json_string(req->provider) : json_null());
	json_object_set_new(rq, "max_gpus", json_integer(req->max_gpus));
	arr = json_array();
	for (i = 0; i < MODEL_PRECISION_COUNT; i++)
		if (prec & (1u << i))
			json_array_append_new(arr, json_string(model_precision_name((enum model_precision)i)));
	json_object_set_new(rq, "precisions", arr);
	arr = json_array();
	for (i = 0; i < req->ngpus; i++)
		json_array_append_new(arr, json_string(req->gpus[i]->row.key));
	json_object_set_new(rq, "gpus", arr);
	json_object_set_new(rq, "ecosystem", json_string(req->ecosystem ? req->ecosystem : "any"));
	json_object_set_new(rq, "deadline_s", req->deadline_s > 0 ? json_real(req->deadline_s) : json_null());
	json_object_set_new(rq, "budget_usd", req->budget_usd > 0 ? json_real(req->budget_usd) : json_null());
	json_object_set_new(rq, "power_kw", req->power_kw > 0 ? json_real(req->power_kw) : json_null());
	json_object_set_new(rq, "rate_per_s", req->base.task == MODEL_TASK_INFER ?
			    json_real(req->rate_per_s > 0 ? req->rate_per_s : 1) : json_null());
	json_object_set_new(root, "request", rq);

	json_object_set_new(se, "hardware_options", json_integer((json_int_t)nhw));
	arr = json_array();
	for (i = 0; i < nfab; i++)
		json_array_append_new(arr, json_string(fab[i].link->row.key));
	json_object_set_new(se, "fabrics", arr);
	json_object_set_new(se, "slots", json_integer((json_int_t)nall));
	json_object_set_new(se, "items", json_integer((json_int_t)st->items));
	json_object_set_new(se, "layouts", json_integer((json_int_t)st->layouts));
	json_object_set_new(se, "configurations", json_integer((json_int_t)st->configs));
	json_object_set_new(se, "memory_calls", json_integer((json_int_t)st->memory_calls));
	json_object_set_new(se, "estimate_calls", json_integer((json_int_t)st->estimate_calls));
	json_object_set_new(se, "bound_calls", json_integer((json_int_t)st->bound_calls));
	json_object_set_new(se, "threads", json_integer(st->threads));
	json_object_set_new(se, "wall_s", json_real(st->wall_s));
	json_object_set_new(root, "search", se);

	arr = json_array();
	for (i = 0; i < plan_nranked(p); i++)
		json_array_append_new(arr, choice_json(p, plan_ranked(p, i), (long)i + 1));
	json_object_set_new(root, "ranked", arr);
	arr = json_array();
	for (i = 0; i < plan_nfront(p); i++)
		json_array_append_new(arr, choice_json(p, plan_front(p, i), rank_of(p, plan_front(p, i))));
	json_object_set_new(root, "front", arr);
	json_object_set_new(root, "nearest_miss", plan_nranked(p) ? json_null() :
			    choice_json(p, plan_nearest_miss(p), 0));
	{
		const struct plan_choice *f = plan_closest_fit(p);
		json_t *cf = json_null();
		if (f) {
			cf = json_object();
			json_object_set_new(cf, "hardware", json_string(plan_hw(p, &nhw)[f->hw].key));
			json_object_set_new(cf, "gpus", json_integer(f->gpus));
			json_object_set_new(cf, "min_bytes", json_real(f->min_bytes));
		}
		json_object_set_new(root, "closest_fit", cf);
	}
	{
		char why[768];
		json_object_set_new(root, "no_layout", plan_no_layout_reason(p, why, sizeof(why)) ?
				    json_string(why) : json_null());
	}
	json_object_set_new(root, "explanation", have_ex ? explanation_json(ex) : json_null());
	if (all_flag) {
		arr = json_array();
		for (i = 0; i < nall; i++)
			if (all[i].fits)
				json_array_append_new(arr, choice_json(p, &all[i], rank_of(p, &all[i])));
		json_object_set_new(root, "all", arr);
	}
	{
		int rc = report_json_print(root);
		json_decref(root);
		return rc;
	}
}

static void print_csv(const struct plan *p)
{
	struct table *tb = table_new();
	struct field f[MAXF];
	char bufs[8][64], args[1024];
	size_t n, i, k, nall;
	const struct plan_choice *all = plan_all(p, &nall);
	const struct plan_choice *first = plan_nranked(p) ? plan_ranked(p, 0) : NULL;

	for (i = 0; !first && i < nall; i++)
		if (all[i].fits)
			first = &all[i];
	if (!first) {
		table_free(tb);
		return;
	}
	n = choice_fields(p, first, 1, f, bufs, args, sizeof(args));
	for (k = 0; k < n; k++)
		table_column(tb, f[k].name, ALIGN_LEFT);
	for (i = 0; i < (all_flag ? nall : plan_nranked(p)); i++) {
		const struct plan_choice *c = all_flag ? &all[i] : plan_ranked(p, i);
		if (!c->fits)
			continue;
		choice_fields(p, c, rank_of(p, c), f, bufs, args, sizeof(args));
		table_row(tb);
		for (k = 0; k < n; k++) {
			if (f[k].text)
				table_cell(tb, f[k].text);
			else if (f[k].is_bool)
				table_cell(tb, f[k].num ? "true" : "false");
			else if (f[k].is_int)
				table_cellf(tb, "%.0f", f[k].num);
			else if (isfinite(f[k].num))
				table_cellf(tb, "%.10g", f[k].num);
			else
				table_cell(tb, "");
		}
	}
	table_print_csv(tb, stdout);
	table_free(tb);
}

int cmd_plan(int argc, char **argv)
{
	int npos = parse_options_or_exit(&plan_cmd, argc, argv);
	enum output_format fmt = output_format_from(json_flag, csv_flag, "plan");
	const struct catalog *cat;
	struct workload w;
	struct plan_request req;
	const struct cat_gpu **gpus = NULL;
	struct plan *p;
	struct plan_explanation ex;
	struct diag err;
	char title[256];
	int have_ex = 0, rc;

	if (npos > 1)
		DIE("one workload at most, got '%s' and '%s'", argv[0], argv[1]);
	if (npos == 1) {
		if (wo.model)
			DIE("give the workload once: '%s' or --model %s", argv[0], wo.model);
		wo.model = argv[0];
	}
	cat = load_catalog_or_die();
	workload_opts_load(&wo, &w);

	memset(&req, 0, sizeof(req));
	req.w = &w;
	model_config_defaults(&req.base);
	req.base.task = MODEL_TASK_FINETUNE;
	if (wo.task) {
		int t = model_task_from_name(wo.task);
		if (t < 0)
			DIE("--task '%s' is not pretrain, finetune, lora, qlora or infer", wo.task);
		req.base.task = (enum model_task)t;
	}
	if (wo.optimizer) {
		int o = model_optimizer_from_name(wo.optimizer);
		if (o < 0)
			DIE("--optimizer '%s' is not adamw, adamw-bf16, adamw8bit, paged-adamw, paged-adamw8bit, "
			    "adafactor, sgd-momentum or sgd", wo.optimizer);
		req.base.optimizer = (enum model_optimizer)o;
	}
	if (req.base.task == MODEL_TASK_INFER) {
		if (deadline > 0)
			DIE("--deadline is for training; for inference give --latency-target");
		if (wo.tokens > 0 || wo.samples > 0)
			DIE("--tokens and --samples are for training; for inference give --rate");
	} else if (latency_target > 0 || rate > 0 || wo.prompt_len || wo.output_len >= 0 || ttft_target > 0 ||
		   tpot_target > 0) {
		DIE("--rate, --latency-target, --ttft-target, --tpot-target, --prompt-len and --output-len need "
		    "--task infer");
	}
	if (wo.epochs > 0 && !(wo.samples > 0))
		DIE("--epochs needs --samples");
	workload_opts_apply(&wo, &req.base);
	req.objective = PLAN_OBJ_COST;
	if (objective_s) {
		int o = plan_objective_from_name(objective_s);
		if (o < 0) {
			static const char *const names[] = {"time", "cost", "energy", "balanced", "capex"};
			char hint[128];
			suggest_hint(objective_s, names, 5, hint, sizeof(hint));
			DIE("--objective '%s' is not time, cost, energy, balanced or capex%s", objective_s, hint);
		}
		req.objective = (enum plan_objective)o;
	}
	parse_buy(cat, &req);
	if (servers_only && req.buy == PLAN_BUY_CLOUD)
		DIE("--servers-only is for --buy onprem");
	if ((utilisation > 0 || years > 0) && req.buy == PLAN_BUY_CLOUD)
		DIE("--utilisation and --years price owned hardware; they do not apply to --buy cloud");
	req.servers_only = servers_only;
	req.no_spares = no_spares;
	if (req.buy == PLAN_BUY_CLOUD && (req.objective == PLAN_OBJ_CAPEX || rack_kw > 0 || storage_tb > 0))
		DIE("--objective capex, --rack-kw and --storage-tb size a purchase; they do not apply to --buy cloud");
	if (rack_kw > 0 && rack_kw < 1)
		DIE("--rack-kw %g: a rack of under 1 kW holds no GPU server; racks run 5-40 kW air-cooled, "
		    "up to about 130 kW liquid-cooled", rack_kw);
	if (checkpoint_every > 0 && req.base.task == MODEL_TASK_INFER)
		DIE("--checkpoint-every is for training");
	req.rack_kw = rack_kw;
	req.storage_tb = storage_tb;
	req.checkpoint_every_s = checkpoint_every;
	if (gpu_s)
		req.ngpus = parse_gpus(cat, gpu_s, &gpus);
	req.gpus = gpus;
	if (ecosystem_s) {
		static const char *const eco[] = {"cuda", "rocm", "synapseai", "oneapi", "any"};
		size_t k;
		for (k = 0; k < 5 && strcasecmp(eco[k], ecosystem_s); k++)
			;
		if (k == 5) {
			char hint[128];
			suggest_hint(ecosystem_s, eco, 5, hint, sizeof(hint));
			DIE("--ecosystem '%s' is not cuda, rocm, synapseai, oneapi or any%s", ecosystem_s, hint);
		}
		req.ecosystem = ecosystem_s;
	}
	req.precisions = precision_s ? parse_precisions(precision_s) : 1u << MODEL_BF16;
	if (fp8_flag)
		req.precisions |= 1u << MODEL_FP8;
	req.max_gpus = (int)max_gpus;
	req.utilisation_pct = utilisation;
	req.years = years;
	req.deadline_s = req.base.task == MODEL_TASK_INFER ? latency_target : deadline;
	req.budget_usd = budget;
	req.power_kw = power_kw;
	req.rate_per_s = rate;
	req.ttft_s = ttft_target;
	req.tpot_s = tpot_target;
	req.max_batch = (int)max_batch;
	req.threads = (int)threads;
	req.top = (size_t)top_n;
	if (isatty(STDERR_FILENO))
		req.progress = progress;

	diag_clear(&err);
	if (plan_run(&p, cat, &req, &err)) {
		free(gpus);
		DIE("%s%s%s%s", err.field[0] ? "--" : "", err.field[0] ? err.field : "",
		    err.field[0] ? ": " : "", err.msg);
	}
	title_line(&w, &req, plan_base(p), title, sizeof(title));
	if (!no_explain && plan_nranked(p))
		have_ex = plan_explain(p, plan_ranked(p, 0), &ex) == 0;
	if (report_path) {
		diag_clear(&err);
		if (plan_report_html(p, have_ex ? &ex : NULL, title, report_path, &err)) {
			char msg[1024];
			diag_format(&err, msg, sizeof(msg));
			plan_free(p);
			free(gpus);
			die_code(EXIT_ENV, "gpuscope plan: --report: %s", msg);
		}
	}
	switch (fmt) {
	case FORMAT_JSON:
		print_json(p, &w, &ex, have_ex);
		break;
	case FORMAT_CSV:
		print_csv(p);
		break;
	default:
		print_human(p, &w, title, &ex, have_ex);
		break;
	}
	rc = plan_nranked(p) ? EXIT_OK : EXIT_FINDINGS;
	plan_free(p);
	free(gpus);
	return rc;
}
