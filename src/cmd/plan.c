/*
 * gpuscope plan: search GPU types, servers, counts, fabrics and parallel
 * layouts for a workload, rank them by time, cost or energy under the
 * user's constraints, and explain the first choice (src/plan/plan.h,
 * docs/plan.md).  This file reads the flags into a plan_request, runs the
 * search and hands the plan to view/plan.h.
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
#include "plan/plan.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/suggest.h"
#include "util/xalloc.h"
#include "view/plan.h"

static int json_flag, csv_flag, all_flag, fp8_flag, no_explain;
static const char *gpu_s, *ecosystem_s, *precision_s, *buy_s, *objective_s, *report_path, *licence_s;
/* enum model_task and enum model_optimizer; optimizer -1: the default of model_config_defaults() */
static int task = MODEL_TASK_FINETUNE, optimizer = -1;
static long max_batch, max_gpus = 4096, top_n = 10, threads;
static double latency_target, deadline;
/* --memory-headroom as given; NaN: not given (the plan's default) */
static double memory_headroom = NAN;
/* the request, its numbers and flags set by the table below as given (0: not given) */
static struct plan_request rq;
/* --have, each value as given: "4x dgx-a100" or "@FILE" */
static struct opt_list have_list;
static struct workload_opts wo = {
	.cmd = "plan",
	.default_model = "llama2-7b",
	.model_hint = "give a preset or config.json",
	.output_len = -1,
};

static const struct opt plan_opts[] = {
	OPT_GROUP_("workload (default: Llama 2 7B, full fine-tune on 1e9 tokens)"),
	WORKLOAD_OPT_MODEL(wo, "a preset (estimate --list-models) or config.json"),
	WORKLOAD_OPT_TASK_ENUM(&task, "pretrain, finetune (default), lora, qlora, infer"),
	WORKLOAD_OPT_DIMS(wo),
	WORKLOAD_OPT_SEQ_LEN(wo),
	WORKLOAD_OPT_GLOBAL_BATCH(wo, "samples per optimizer step (default: docs/plan.md)"),
	WORKLOAD_OPT_OPTIMIZER_ENUM(&optimizer,
				    "adamw (default), adamw-bf16, adamw8bit, paged-adamw, "
				    "paged-adamw8bit, adafactor, sgd-momentum, sgd"),
	WORKLOAD_OPT_LORA_RANK(wo),
	WORKLOAD_OPT_MEMORY(wo),
	OPT_GROUP_("amount of work"),
	WORKLOAD_OPT_TOKENS(wo, "tokens to train on (default 1e9 for transformers)"),
	WORKLOAD_OPT_SAMPLES(wo, "samples per epoch (per-sample models: default 1e6)"),
	WORKLOAD_OPT_EPOCHS(wo),
	OPT_GROUP_("inference (--task infer)"),
	OPT_POSITIVE_("rate", &rq.rate_per_s, "R", "requests per second to serve (default 1)", 0, 1e9),
	OPT_DURATION_POSITIVE_("latency-target", &latency_target, "TIME",
			       "latency each request must meet (5ms, 2s)", 3600),
	OPT_DURATION_POSITIVE_("ttft-target", &rq.ttft_s, "TIME",
			       "time to first token each request must meet (200ms)", 3600),
	OPT_DURATION_POSITIVE_("tpot-target", &rq.tpot_s, "TIME", "time per output token to meet (50ms)", 3600),
	WORKLOAD_OPT_PROMPT_LEN(wo),
	WORKLOAD_OPT_OUTPUT_LEN(wo),
	OPT_INT_("max-batch", &max_batch, "N", "largest batch a replica may run (default 256)", 1, 1000000),
	OPT_STRING_("engine", &rq.engine, "NAME",
		    "a decoder's serving engine (vllm, the default; sglang ...): replicas sized by simulating it "
		    "request by request; static: the static-batch model"),
	OPT_STRING_("engine-version", &rq.engine_version, "V",
		    "the engine release whose scheduler runs (data/serve/engines.csv; default the newest)"),
	OPT_GROUP_("what to search"),
	OPT_STRING_("gpu", &gpu_s, "A,B,...", "only these GPU types (a100 matches every A100)"),
	OPT_STRING_("ecosystem", &ecosystem_s, "NAME", "cuda, rocm, synapseai or any (default any)"),
	OPT_STRING_("buy", &buy_s, "WHAT", "any (default: owned and rented), onprem, cloud or cloud:PROVIDER"),
	OPT_POSITIVE_("runs-per-year", &rq.runs_per_year, "N",
		      "training: runs like this a year owned hardware is bought for (any: default 1)", 0, 1e6),
	OPT_ENUM_("price-tier", &rq.price_tier, "TIER", "cloud: on-demand (default), 1y, 3y or spot",
		  cat_tier_from_name, CAT_TIER_NAMES),
	OPT_LIST_("have", &have_list, "N x SERVER",
		  "onprem, training: servers you own (4x dgx-a100, or @FILE of such lines); plan says "
		  "what to add; repeatable"),
	OPT_FLAG_("servers-only", &rq.servers_only, "onprem: catalog servers only, no generic builds"),
	OPT_FLAG_("no-spares", &rq.no_spares, "train on every GPU of an NVL72/NVL36 rack, none spare"),
	OPT_FLAG_("include-eol", &rq.include_eol,
		  "also parts past end of sale or dropped by current CUDA/PyTorch (marked)"),
	OPT_INT_("max-gpus", &max_gpus, "N", "largest GPU count (default 4096)", 1, 1000000),
	OPT_STRING_("precision", &precision_s, "P,...",
		    "to try: bf16 (default), fp16, fp8, nvfp4 (fp4), mxfp4, tf32, fp32"),
	OPT_FLAG_("fp8", &fp8_flag, "also try fp8 where the GPU has it"),
	OPT_DOUBLE_("utilisation", &rq.utilisation_pct, "PCT", "onprem: % of hours the GPUs work (default 70)", 1,
		    100),
	OPT_DOUBLE_("years", &rq.years, "Y", "onprem: years of service (default: depreciation)", 0.25, 50),
	OPT_POSITIVE_("rack-kw", &rq.rack_kw, "KW", "onprem: kW per rack (default: air 41, liquid 132)", 0, 10000),
	OPT_POSITIVE_("storage-tb", &rq.storage_tb, "TB", "onprem: shared storage to buy (default 2 TB per GPU)",
		      0, 1e9),
	OPT_STRING_("licence", &licence_s, "KEY", "onprem: software bought a GPU-year: nvaie or none (default)"),
	OPT_DURATION_POSITIVE_("checkpoint-every", &rq.checkpoint_every_s, "TIME",
			       "checkpoint interval (default: the optimum)", OPT_DURATION_MAX_S),
	OPT_GROUP_("ranking and constraints"),
	OPT_STRING_("objective", &objective_s, "WHAT", "cost (default), time, energy, balanced, capex"),
	OPT_DURATION_POSITIVE_("deadline", &deadline, "TIME", "finish within this time (30d, 36h)",
			       OPT_DURATION_MAX_S),
	OPT_QUANTITY_POSITIVE_("budget", &rq.budget_usd, "USD",
			       "most to commit: capex to buy, rent of the run or hour", "USD", 1e15),
	OPT_POSITIVE_("power-kw", &rq.power_kw, "KW", "full-load power of all servers at most this", 0, 1e9),
	OPT_DOUBLE_("memory-headroom", &memory_headroom, "PCT", "% of each GPU's memory to keep free (default 10)",
		    0, 50),
	OPT_INT_("top", &top_n, "N", "choices to list (default 10)", 1, 1000),
	OPT_INT_("threads", &threads, "N", "search threads (default: every core)", 0, 1024),
	OPT_GROUP_("output"),
	OPT_FLAG_("json", &json_flag, "JSON: every field of every listed choice"),
	OPT_FLAG_("csv", &csv_flag, "print CSV: one row per ranked choice, every field"),
	OPT_FLAG_("all", &all_flag, "with --json/--csv: every hardware x count searched"),
	OPT_STRING_("report", &report_path, "FILE", "write a self-contained HTML report with charts"),
	OPT_FLAG_("no-explain", &no_explain, "skip the explanation of the first choice"),
	CALIBRATION_OPTS,
	OPT_END_(),
};

static const struct opts_cmd plan_cmd = {
	"plan",
	"[WORKLOAD] [options]",
	"Search GPUs, servers, counts, networks and layouts; rank them and explain why.",
	"WORKLOAD is a preset name or a config.json (as --model).  With no arguments,\n"
	"plan the headline case: a full fine-tune of Llama 2 7B in bf16 on 1e9 tokens,\n"
	"on hardware you would own or rent: owned hardware is charged for the runs a\n"
	"year it would be bought for (--runs-per-year, default 1) unless --buy onprem.\n"
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

/*
 * A usage error for a name that is none of names: "--objective 'tme' is not
 * time, cost, energy, balanced or capex; did you mean 'time'?".
 */
static void die_not_one_of(const char *flag, const char *v, const char *const *names, size_t n)
{
	struct strbuf list = STRBUF_INIT;
	char hint[256];
	size_t i;
	for (i = 0; i < n; i++)
		strbuf_addf(&list, "%s%s", !i ? "" : i + 1 == n ? " or " : ", ", names[i]);
	suggest_hint(v, names, n, hint, sizeof(hint));
	DIE("%s '%s' is not %s%s", flag, v, strbuf_str(&list), hint);
}

/* Lower case, letters and digits only: "A100-SXM4" -> "a100sxm4". */
static void squash(struct strbuf *out, const char *s)
{
	strbuf_reset(out);
	for (; *s; s++)
		if ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9'))
			strbuf_addch(out, *s);
		else if (*s >= 'A' && *s <= 'Z')
			strbuf_addch(out, *s - 'A' + 'a');
}

static void add_gpu(const struct cat_gpu ***v, size_t *n, size_t *cap, const struct cat_gpu *g)
{
	size_t i;
	for (i = 0; i < *n && (*v)[i] != g; i++)
		;
	if (i < *n)
		return;
	XGROW(*v, *cap, *n);
	(*v)[(*n)++] = g;
}

/* Every GPU whose key or name holds tok, squashed: "a100" is every A100.  Returns how many were new. */
static size_t add_matching_gpus(const struct catalog *cat, const char *tok, const struct cat_gpu ***v, size_t *n,
				size_t *cap)
{
	struct strbuf want = STRBUF_INIT, k = STRBUF_INIT, nm = STRBUF_INIT;
	size_t i, before = *n, ng = catalog_count(cat, CAT_GPUS);
	squash(&want, tok);
	for (i = 0; i < ng; i++) {
		const struct cat_gpu *c = catalog_gpu_at(cat, i);
		squash(&k, c->row.key);
		squash(&nm, c->row.name ? c->row.name : "");
		if (strstr(strbuf_str(&k), strbuf_str(&want)) || strstr(strbuf_str(&nm), strbuf_str(&want)))
			add_gpu(v, n, cap, c);
	}
	strbuf_release(&want);
	strbuf_release(&k);
	strbuf_release(&nm);
	return *n - before;
}

/*
 * --gpu A,B: each name resolves as everywhere in gpuscope; a name that
 * matches several GPUs ("a100") stands for all of them.
 */
static size_t parse_gpus(const struct catalog *cat, const char *list, const struct cat_gpu ***out)
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	const struct cat_gpu **v = NULL;
	size_t n = 0, cap = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char why[1024];
		const struct cat_gpu *g;
		while (*tok == ' ')
			tok++;
		if (!*tok)
			continue;
		g = catalog_gpu(cat, tok, why, sizeof(why));
		if (g)
			add_gpu(&v, &n, &cap, g);
		else if (strncmp(why, "ambiguous", 9) || !add_matching_gpus(cat, tok, &v, &n, &cap))
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
	static const char *const names[] = {"bf16", "fp16", "fp8", "nvfp4", "mxfp4", "tf32", "fp32"};
	char *copy = xstrdup(list), *tok, *save = NULL;
	unsigned mask = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int p = model_precision_from_name(tok);
		if (p < 0 || p == MODEL_INT8 || p == MODEL_INT4 || p == MODEL_NF4)
			die_not_one_of("--precision:", tok, names, 7);
		mask |= 1u << p;
	}
	free(copy);
	return mask;
}

/*
 * Whether a flag that only sizes a purchase was given: the servers owned,
 * catalog servers only, the rack's power, the storage or licences bought,
 * the cheapest purchase as the objective.  Without --buy they ask to own.
 */
static int purchase_flags(const struct plan_request *req)
{
	return have_list.n || req->servers_only || req->rack_kw > 0 || req->storage_tb > 0 ||
	       (licence_s && strcasecmp(licence_s, "none")) || req->objective == PLAN_OBJ_CAPEX;
}

/*
 * --buy any | onprem | cloud | cloud:PROVIDER, the provider as the catalog
 * spells it; when not given, any, or onprem with a flag that only sizes a
 * purchase (purchase_flags: --have weighs renting beside the servers
 * owned anyway).
 */
static void parse_buy(const struct catalog *cat, struct plan_request *req)
{
	static const char *const kinds[] = {"any", "onprem", "owned", "cloud", "cloud:any"};
	const char *prov, **names = NULL;
	size_t i, k, n = catalog_count(cat, CAT_CLOUDS), np = 0, cap = 0;
	struct strbuf list = STRBUF_INIT;
	char hint[256];

	req->buy = PLAN_BUY_ANY;
	if ((!buy_s && purchase_flags(req)) ||
	    (buy_s && (!strcmp(buy_s, "onprem") || !strcmp(buy_s, "own") || !strcmp(buy_s, "owned")))) {
		req->buy = PLAN_BUY_OWN;
		return;
	}
	if (!buy_s || !strcmp(buy_s, "any"))
		return;
	if (strncmp(buy_s, "cloud", 5) || (buy_s[5] && buy_s[5] != ':'))
		DIE("--buy '%s' is not any, onprem (owned), cloud or cloud:PROVIDER%s", buy_s,
		    suggest_hint(buy_s, kinds, 5, hint, sizeof(hint)));
	req->buy = PLAN_BUY_CLOUD;
	prov = buy_s[5] == ':' ? buy_s + 6 : "any";
	if (!*prov || !strcmp(prov, "any"))
		return;
	for (i = 0; i < n; i++) {
		const struct cat_cloud *c = catalog_cloud_at(cat, i);
		if (c->provider && !strcasecmp(c->provider, prov)) {
			req->provider = c->provider;
			free(names);
			return;
		}
		for (k = 0; c->provider && k < np && strcmp(names[k], c->provider); k++)
			;
		if (c->provider && k == np) {
			XGROW(names, cap, np);
			names[np++] = c->provider;
		}
	}
	for (i = 0; i < np; i++)
		strbuf_addf(&list, "%s%s", i ? ", " : "", names[i]);
	DIE("--buy: no cloud provider '%s' in the catalog%s (providers: %s, or any)", prov,
	    suggest_hint(prov, names, np, hint, sizeof(hint)), strbuf_str(&list));
}

/* The flags that belong to training, to inference or to owning, each refused where it does not apply. */
static void check_flags(const struct plan_request *req)
{
	int infer = req->base.task == MODEL_TASK_INFER, cloud = req->buy == PLAN_BUY_CLOUD;
	if (req->servers_only && cloud)
		DIE("--servers-only is for --buy onprem");
	if ((req->utilisation_pct > 0 || req->years > 0) && cloud)
		DIE("--utilisation and --years price owned hardware; they do not apply to --buy cloud");
	if (cloud && (req->objective == PLAN_OBJ_CAPEX || req->rack_kw > 0 || req->storage_tb > 0))
		DIE("--objective capex, --rack-kw and --storage-tb size a purchase; they do not apply to --buy cloud");
	if (req->rack_kw > 0 && req->rack_kw < 1)
		DIE("--rack-kw %g: a rack of under 1 kW holds no GPU server; racks run 5-40 kW air-cooled, "
		    "up to about 130 kW liquid-cooled",
		    req->rack_kw);
	if (req->checkpoint_every_s > 0 && infer)
		DIE("--checkpoint-every is for training");
	if (req->runs_per_year > 0 && (cloud || infer))
		DIE("--runs-per-year prices owned hardware for a training run; it does not apply to %s",
		    cloud ? "--buy cloud" : "--task infer");
	if (have_list.n && req->buy == PLAN_BUY_ANY)
		DIE("--have weighs servers you own against buying and renting more; give --buy onprem or "
		    "leave --buy out");
	if (have_list.n && (cloud || infer))
		DIE("--have weighs servers you own for a training run; it does not apply to %s",
		    cloud ? "--buy cloud (rentals beside them are weighed anyway)" : "--task infer");
}

/* One --have value into *v: "N x SERVER", or @FILE of such lines; the same server twice adds up. */
static void add_have(const struct catalog *cat, const char *arg, struct plan_have **v, size_t *n, size_t *cap)
{
	struct plan_have one, *got = &one;
	size_t ngot = 1, i, k;
	struct diag err;
	char msg[1024], *buf = NULL;
	size_t len;
	int rc;

	diag_clear(&err);
	if (*arg == '@') {
		rc = csv_read_file(arg + 1, &buf, &len, &err) ||
		     plan_have_parse_file(cat, buf, len, arg + 1, &got, &ngot, &err);
		free(buf);
	} else {
		rc = plan_have_parse(cat, arg, NULL, 0, &one, &err);
	}
	if (rc) {
		diag_format(&err, msg, sizeof(msg));
		DIE("--have: %s", msg);
	}
	for (i = 0; i < ngot; i++) {
		for (k = 0; k < *n && (*v)[k].server != got[i].server; k++)
			;
		if (k == *n) {
			XGROW(*v, *cap, *n);
			(*v)[(*n)++] = (struct plan_have){got[i].server, 0};
		}
		(*v)[k].count += got[i].count;
	}
	if (got != &one)
		free(got);
}

static void resolve_have(const struct catalog *cat, struct plan_request *req)
{
	struct plan_have *v = NULL;
	size_t i, n = 0, cap = 0;
	for (i = 0; i < have_list.n; i++)
		add_have(cat, have_list.v[i], &v, &n, &cap);
	req->have = v;
	req->nhave = n;
}

/* The workload's task, optimizer and amount of work, each flag checked against the task. */
static void resolve_work(struct plan_request *req)
{
	model_config_defaults(&req->base);
	req->base.task = (enum model_task)task;
	if (optimizer >= 0)
		req->base.optimizer = (enum model_optimizer)optimizer;
	if (task == MODEL_TASK_INFER) {
		if (deadline > 0)
			DIE("--deadline is for training; for inference give --latency-target");
		if (wo.tokens > 0 || wo.samples > 0)
			DIE("--tokens and --samples are for training; for inference give --rate");
	} else if (latency_target > 0 || req->rate_per_s > 0 || wo.prompt_len || wo.output_len >= 0 ||
		   req->ttft_s > 0 || req->tpot_s > 0) {
		DIE("--rate, --latency-target, --ttft-target, --tpot-target, --prompt-len and --output-len need "
		    "--task infer");
	}
	if (wo.epochs > 0 && !(wo.samples > 0))
		DIE("--epochs needs --samples");
	workload_opts_apply(&wo, &req->base);
}

/* --licence: a parts.csv licence row, or none (the default: the CUDA stack and schedulers cost nothing). */
static void resolve_licence(const struct catalog *cat, struct plan_request *req)
{
	const struct cat_part *p;
	char why[512];
	if (!licence_s || !strcasecmp(licence_s, "none"))
		return;
	if (req->buy == PLAN_BUY_CLOUD)
		DIE("--licence buys software for owned hardware; it does not apply to --buy cloud");
	p = catalog_resolve(cat, CAT_PARTS, licence_s, why, sizeof(why));
	if (!p)
		DIE("--licence: %s", why);
	if (!p->kind || strcmp(p->kind, "licence"))
		DIE("--licence '%s' is a %s, not a licence (parts.csv kind licence, or none)", licence_s,
		    p->kind ? p->kind : "part");
	req->licence = p;
}

/* What to search: objective, hardware, GPUs, ecosystem and precisions. */
static void resolve_search(const struct catalog *cat, struct plan_request *req)
{
	static const char *const objectives[] = {"time", "cost", "energy", "balanced", "capex"};
	static const char *const eco[] = {"cuda", "rocm", "synapseai", "oneapi", "any"};
	const struct cat_gpu **gpus = NULL;
	size_t k;

	req->objective = PLAN_OBJ_COST;
	if (objective_s && plan_objective_from_name(objective_s) < 0)
		die_not_one_of("--objective", objective_s, objectives, 5);
	if (objective_s)
		req->objective = (enum plan_objective)plan_objective_from_name(objective_s);
	parse_buy(cat, req);
	check_flags(req);
	if (gpu_s)
		req->ngpus = parse_gpus(cat, gpu_s, &gpus);
	req->gpus = gpus;
	for (k = 0; ecosystem_s && k < 5 && strcasecmp(eco[k], ecosystem_s); k++)
		;
	if (ecosystem_s && k == 5)
		die_not_one_of("--ecosystem", ecosystem_s, eco, 5);
	req->ecosystem = ecosystem_s;
	req->precisions = precision_s ? parse_precisions(precision_s) : 1u << MODEL_BF16;
	if (fp8_flag)
		req->precisions |= 1u << MODEL_FP8;
	resolve_licence(cat, req);
	resolve_have(cat, req);
}

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
	fprintf(stderr, "\rsearching [%.*s%*s] %3zu%% (%zu/%zu)", fill, "##############################",
		width - fill, "", 100 * done / total, done, total);
	fflush(stderr);
}

/* The whole request from the flags (rq holds those the table set); req->gpus is the caller's to free. */
static void resolve_request(const struct catalog *cat, const struct workload *w, struct plan_request *req)
{
	*req = rq;
	req->w = w;
	resolve_work(req);
	resolve_search(cat, req);
	req->max_gpus = (int)max_gpus;
	req->deadline_s = req->base.task == MODEL_TASK_INFER ? latency_target : deadline;
	req->max_batch = (int)max_batch;
	if (!isnan(memory_headroom))
		req->memory_use_pct = 100 - memory_headroom;
	req->threads = (int)threads;
	req->top = (size_t)top_n;
	if (isatty(STDERR_FILENO))
		req->progress = progress;
}

/* ---- output ---- */

/*
 * With --have: the same workload searched on rented instances, for renting
 * beside the owned servers; NULL when nothing can be rented.
 */
static struct plan *rent_plan(const struct catalog *cat, const struct plan_request *req)
{
	struct plan_request r = *req;
	struct plan *p = NULL;
	struct diag err;

	r.buy = PLAN_BUY_CLOUD;
	r.have = NULL;
	r.nhave = 0;
	r.servers_only = 0;
	r.utilisation_pct = r.years = r.rack_kw = r.storage_tb = 0;
	r.licence = NULL;
	r.progress = NULL;
	if (r.objective == PLAN_OBJ_CAPEX)
		r.objective = PLAN_OBJ_COST;
	diag_clear(&err);
	if (plan_run(&p, cat, &r, &err))
		return NULL;
	return p;
}

static void write_output(const struct plan *p, enum output_format fmt, const struct plan_explanation *ex,
			 const struct plan_have_answer *have)
{
	json_t *doc;
	switch (fmt) {
	case FORMAT_JSON:
		doc = view_plan_json(p, ex, have, all_flag);
		report_json_print(doc);
		json_decref(doc);
		break;
	case FORMAT_CSV:
		view_plan_csv(stdout, p, all_flag);
		break;
	default:
		view_plan_print(stdout, p, ex, have);
		break;
	}
}

int cmd_plan(int argc, char **argv)
{
	int npos = parse_options_or_exit(&plan_cmd, argc, argv);
	enum output_format fmt = output_format_from(json_flag, csv_flag, "plan");
	const struct catalog *cat;
	struct workload w;
	struct plan_request req;
	struct plan *p, *rented = NULL;
	struct plan_explanation ex;
	struct plan_have_answer ha;
	struct diag err;
	int have_ex = 0, have_fleet = 0, rc;

	if (npos > 1)
		DIE("one workload at most, got '%s' and '%s'", argv[0], argv[1]);
	if (npos == 1) {
		if (wo.model)
			DIE("give the workload once: '%s' or --model %s", argv[0], wo.model);
		wo.model = argv[0];
	}
	cat = load_catalog_or_die();
	use_calibration_or_die("plan", cat);
	workload_opts_load(&wo, &w);
	resolve_request(cat, &w, &req);

	diag_clear(&err);
	if (plan_run(&p, cat, &req, &err)) {
		free((void *)req.gpus);
		DIE("%s%s%s%s", err.field[0] ? "--" : "", err.field[0] ? err.field : "", err.field[0] ? ": " : "",
		    err.msg);
	}
	if (!no_explain && plan_nranked(p))
		have_ex = plan_explain(p, plan_ranked(p, 0), &ex) == 0;
	if (req.nhave) {
		rented = rent_plan(cat, &req);
		have_fleet = plan_have_answer(p, rented, &ha) == 0;
		if (!have_fleet)
			DIE("--have: the servers owned cannot be priced to run (a server without power or price)");
	}
	if (report_path) {
		diag_clear(&err);
		if (view_plan_report(p, have_ex ? &ex : NULL, have_fleet ? &ha : NULL, report_path, &err)) {
			char msg[1024];
			diag_format(&err, msg, sizeof(msg));
			plan_free(p);
			free((void *)req.gpus);
			die_code(EXIT_ENV, "gpuscope plan: --report: %s", msg);
		}
	}
	write_output(p, fmt, have_ex ? &ex : NULL, have_fleet ? &ha : NULL);
	rc = plan_nranked(p) || (have_fleet && ha.best >= 0) ? EXIT_OK : EXIT_FINDINGS;
	if (have_ex)
		plan_explanation_release(&ex);
	if (have_fleet)
		plan_have_release(&ha);
	plan_free(rented);
	plan_free(p);
	free((void *)req.gpus);
	free((void *)req.have);
	return rc;
}
