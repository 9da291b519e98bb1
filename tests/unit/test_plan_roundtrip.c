/*
 * plan -> estimate: every choice plan lists carries estimate_args, the flags
 * of `gpuscope estimate` that time it alone (plan_estimate_args(), built on
 * model_config_flags()).  Here each choice's flags go back through what
 * estimate does with them, in process: parsed by opts_parse() against the
 * flags and ranges of estimate's own table, turned into a model_request,
 * completed by model_resolve() (the resolver estimate calls) and timed by
 * model_estimate().  The step time and the memory must be plan's, the
 * configuration must fit, and nothing estimate refuses (offload without
 * host memory, a node shape that cannot be bought, a batch that does not
 * fit) may be in the line.
 *
 * Requests: the catalog servers, generic builds on several nodes, cloud
 * instances, mixture of experts, per-sample models, inference replicas and
 * long context; then every GPU of the catalog for a full fine-tune, a LoRA
 * fine-tune, inference and a CNN, and the memory settings that travel in
 * the line.  tests/cli/54-plan-estimate-agrees.sh runs one such round trip
 * through the real command line.
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

#include "catalog/catalog.h"
#include "model/engine.h"
#include "model/model.h"
#include "model/quant.h"
#include "model/serving.h"
#include "plan/plan.h"
#include "util/opts.h"

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

/* ---- estimate's side: the flags of one estimate_args line ---- */

/*
 * The estimate flags a plan choice's line may hold, with the types and
 * ranges of src/cmd/estimate.c's table (and cmd/workload_opts.h's), so a
 * value estimate would refuse is refused here too.  A flag not listed is a
 * failure: a new one in model_config_flags() must be taught to this test.
 */
struct est_flags {
	const char *model, *gpu, *server, *network, *engine, *task, *precision, *flash, *tie, *wprec, *qkernel;
	const char *kvprec, *recompute, *optimizer, *offload, *master, *lora_targets, *logits;
	const char *loader, *cudnn, *reshard, *channels_last;
	long hsdp;
	long gpus, gpus_per_node, tp, pp, dp, ep, vpp, cp, zero, micro_batch, global_batch, seq_len;
	long lora_rank, batch, prompt_len, output_len, mig;
	int cuda_graphs, seq_parallel, opt_in_backward, act_offload;
	double cpu_cores;
};

static int parse_flags(const char *line, struct est_flags *f)
{
	const struct opt table[] = {
		OPT_STRING_("model", &f->model, "NAME", ""),
		OPT_STRING_("gpu", &f->gpu, "NAME", ""),
		OPT_STRING_("server", &f->server, "NAME", ""),
		OPT_STRING_("network", &f->network, "SPEC", ""),
		OPT_POSITIVE_("cpu-cores", &f->cpu_cores, "N", "", 0, 100000),
		OPT_STRING_("engine", &f->engine, "NAME", ""),
		OPT_STRING_("task", &f->task, "TASK", ""),
		OPT_INT_("gpus", &f->gpus, "N", "", 1, 1000000),
		OPT_INT_("gpus-per-node", &f->gpus_per_node, "N", "", 1, 1024),
		OPT_STRING_("precision", &f->precision, "P", ""),
		OPT_INT_("tp", &f->tp, "N", "", 1, 65536),
		OPT_INT_("pp", &f->pp, "N", "", 1, 65536),
		OPT_INT_("dp", &f->dp, "N", "", 1, 1000000),
		OPT_INT_("ep", &f->ep, "N", "", 1, 65536),
		OPT_INT_("vpp", &f->vpp, "N", "", 1, 1024),
		OPT_INT_("cp", &f->cp, "N", "", 1, 65536),
		OPT_INT_("zero", &f->zero, "0-3", "", 0, 3),
		OPT_INT_("hsdp", &f->hsdp, "N", "", 1, 1000000),
		OPT_STRING_("reshard-after-forward", &f->reshard, "on|off", ""),
		OPT_STRING_("recompute", &f->recompute, "MODE", ""),
		OPT_FLAG_("seq-parallel", &f->seq_parallel, ""),
		OPT_INT_("micro-batch", &f->micro_batch, "N", "", 1, 1000000),
		OPT_INT_("global-batch", &f->global_batch, "N", "", 1, 100000000),
		OPT_INT_("seq-len", &f->seq_len, "N", "", 1, 10000000),
		OPT_STRING_("optimizer", &f->optimizer, "NAME", ""),
		OPT_STRING_("offload", &f->offload, "WHAT", ""),
		OPT_STRING_("flash-attention", &f->flash, "on|off", ""),
		OPT_INT_("lora-rank", &f->lora_rank, "R", "", 1, 65536),
		OPT_STRING_("master-weights", &f->master, "fp32|none", ""),
		OPT_FLAG_("optimizer-in-backward", &f->opt_in_backward, ""),
		OPT_FLAG_("activation-offload", &f->act_offload, ""),
		OPT_STRING_("lora-targets", &f->lora_targets, "SET", ""),
		OPT_STRING_("logits", &f->logits, "HOW", ""),
		OPT_STRING_("tie-embeddings", &f->tie, "on|off", ""),
		OPT_INT_("batch", &f->batch, "N", "", 1, 1000000),
		OPT_INT_("prompt-len", &f->prompt_len, "N", "", 1, 10000000),
		OPT_INT_("output-len", &f->output_len, "N", "", 0, 10000000),
		OPT_STRING_("kv-cache-precision", &f->kvprec, "P", ""),
		OPT_FLAG_("cuda-graphs", &f->cuda_graphs, ""),
		OPT_STRING_("weight-precision", &f->wprec, "P", ""),
		OPT_STRING_("quant-kernel", &f->qkernel, "K", ""),
		OPT_INT_("mig", &f->mig, "N", "", 1, 8),
		OPT_STRING_("data-loader", &f->loader, "KIND", ""),
		OPT_STRING_("cudnn-benchmark", &f->cudnn, "on|off", ""),
		OPT_STRING_("channels-last", &f->channels_last, "on|off", ""),
		OPT_END_(),
	};
	const struct opts_cmd cmd = {"estimate", "", "", NULL, table};
	static char copy[4096];
	char *argv[256], *tok, *save = NULL;
	int argc = 0, npos = 0;

	memset(f, 0, sizeof(*f));
	f->zero = -1;
	f->output_len = -1;
	if (strlen(line) >= sizeof(copy))
		return -1;
	strcpy(copy, line);
	argv[argc++] = "estimate";
	for (tok = strtok_r(copy, " ", &save); tok && argc < 255; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	if (opts_parse(&cmd, argc, argv, &npos) || npos)
		return -1;
	return 0;
}

/* A named value estimate accepts, or fail naming the flag. */
static int named(const char *flag, const char *v, int value)
{
	if (value < 0)
		fail_msg("--%s '%s' is a value estimate refuses", flag, v);
	return value;
}

static int on_off(const char *flag, const char *v)
{
	if (!strcmp(v, "on"))
		return 1;
	if (!strcmp(v, "off"))
		return 0;
	fail_msg("--%s expects on or off, got '%s'", flag, v);
	return -1;
}

/*
 * What estimate prints for the line, as far as this test compares it: its
 * workload (from --model and --tie-embeddings), the resolved configuration
 * and the model's result, and the host memory it holds offloaded state to.
 * Fails where `gpuscope estimate LINE` would exit non-zero.
 */
static void estimate_line(const char *line, struct workload *w, struct model_config *c, struct model_result *r,
			  double *host_gib)
{
	struct est_flags f;
	struct model_request q;
	struct diag err;
	char why[1024];

	if (parse_flags(line, &f))
		fail_msg("estimate refuses the flags of '%s'", line);
	if (!f.model)
		fail_msg("no --model in '%s'", line);
	diag_clear(&err);
	if (workload_load(w, f.model, &err))
		fail_msg("--model %s: %s", f.model, err.msg);
	if (f.tie) {
		if (w->kind != WORKLOAD_TRANSFORMER)
			fail_msg("--tie-embeddings on a per-sample model in '%s'", line);
		w->d.tied_embeddings = on_off("tie-embeddings", f.tie);
		if (workload_finish(w, &err))
			fail_msg("--tie-embeddings: %s", err.msg);
	}

	model_request_init(&q);
	if (f.server && !(q.server = catalog_server(cat, f.server, why, sizeof(why))))
		fail_msg("--server: %s", why);
	if (f.gpu && !(q.gpu = catalog_gpu(cat, f.gpu, why, sizeof(why))))
		fail_msg("--gpu: %s", why);
	if (!q.gpu && !q.server)
		fail_msg("neither --gpu nor --server in '%s'", line);
	q.network = f.network;
	if (f.task)
		q.task = named("task", f.task, model_task_from_name(f.task));
	if (f.precision)
		q.precision = named("precision", f.precision, model_precision_from_name(f.precision));
	if (f.recompute)
		q.recompute = named("recompute", f.recompute, model_recompute_from_name(f.recompute));
	if (f.optimizer)
		q.optimizer = named("optimizer", f.optimizer, model_optimizer_from_name(f.optimizer));
	if (f.offload)
		q.offload = named("offload", f.offload, model_offload_from_name(f.offload));
	if (f.kvprec)
		q.kv_precision = named("kv-cache-precision", f.kvprec, model_precision_from_name(f.kvprec));
	if (f.loader)
		q.loader = named("data-loader", f.loader, model_loader_from_name(f.loader));
	if (f.flash)
		q.flash = on_off("flash-attention", f.flash);
	if (f.cudnn)
		q.cudnn_benchmark = on_off("cudnn-benchmark", f.cudnn);
	if (f.channels_last)
		q.channels_last = on_off("channels-last", f.channels_last);
#define GIVEN(v) ((v) ? (int)(v) : MODEL_UNSET)
	q.tp = GIVEN(f.tp);
	q.pp = GIVEN(f.pp);
	q.dp = GIVEN(f.dp);
	q.ep = GIVEN(f.ep);
	q.vpp = GIVEN(f.vpp);
	q.cp = GIVEN(f.cp);
	q.gpus = GIVEN(f.gpus);
	q.gpus_per_node = GIVEN(f.gpus_per_node);
	q.micro_batch = GIVEN(f.micro_batch);
	q.batch = GIVEN(f.batch);
	q.seq_len = GIVEN(f.seq_len);
	q.global_batch = GIVEN(f.global_batch);
	q.lora_rank = GIVEN(f.lora_rank);
	q.prompt_len = GIVEN(f.prompt_len);
	q.mig = GIVEN(f.mig);
#undef GIVEN
	q.output_len = f.output_len >= 0 ? (int)f.output_len : MODEL_UNSET;
	q.seq_parallel = f.seq_parallel ? 1 : MODEL_UNSET;
	q.cuda_graphs = f.cuda_graphs ? 1 : MODEL_UNSET;
	q.zero = f.zero >= 0 ? (int)f.zero : MODEL_UNSET;
	q.hsdp = f.hsdp ? (int)f.hsdp : MODEL_UNSET;
	if (f.reshard)
		q.reshard_after_forward = on_off("reshard-after-forward", f.reshard);
	if (f.engine)
		q.engine = named("engine", f.engine, model_engine_from_name(f.engine));
	if (f.wprec)
		q.weight_precision = named("weight-precision", f.wprec, model_precision_from_name(f.wprec));
	if (f.qkernel)
		q.quant_kernel = named("quant-kernel", f.qkernel, model_quant_kernel_from_name(f.qkernel));
	q.cpu_cores_per_node = f.cpu_cores > 0 ? f.cpu_cores : MODEL_UNSET;
	if (f.master)
		q.master = named("master-weights", f.master, model_master_from_name(f.master));
	if (f.lora_targets)
		q.lora_targets = named("lora-targets", f.lora_targets,
				       model_lora_targets_from_name(f.lora_targets));
	if (f.logits)
		q.logits = named("logits", f.logits, model_logits_from_name(f.logits));
	if (f.opt_in_backward)
		q.optimizer_in_backward = 1;
	if (f.act_offload)
		q.activation_offload = 1;

	diag_clear(&err);
	if (model_resolve(w, cat, &q, c, NULL, &err))
		fail_msg("estimate %s: --%s: %s", line, err.field, err.msg);
	/* no --host-memory in the line: offloaded state needs a server that says its RAM */
	*host_gib = q.server && q.server->ram_gib > 0 ? q.server->ram_gib : 0;
	if ((c->offload != MODEL_OFFLOAD_NONE || c->activation_offload) && !(*host_gib > 0))
		fail_msg("estimate %s: offload without the host memory it fills", line);
	if (f.gpus_per_node && !q.server) {
		char shape_why[256];
		int sizes[64];
		size_t ns = cat_node_sizes(c->gpu, sizes, 64);
		int part = c->gpus == c->gpus_per_node && (!ns || c->gpus_per_node <= sizes[ns - 1]);
		if (!part && !cat_node_shape_ok(cat, c->gpu, c->gpus_per_node, shape_why, sizeof(shape_why)))
			fail_msg("estimate %s: --gpus-per-node %d: %s", line, c->gpus_per_node, shape_why);
	}
	/*
	 * estimate serves a decoder's inference with a serving engine unless the
	 * line gives --batch under one that is not (serving_wanted()); plan's
	 * lines time the batch as given, so the serving path is not theirs.
	 */
	if (c->task == MODEL_TASK_INFER && w->kind == WORKLOAD_TRANSFORMER && w->d.causal &&
	    (!f.batch || model_engine_info(c->engine)->serving))
		fail_msg("estimate %s: takes the serving path, which plan does not time", line);
	if (f.batch) {
		diag_clear(&err);
		if (model_infer_batch_check(w, c, &err))
			fail_msg("estimate %s: %s", line, err.msg);
	}
	if (model_estimate(w, c, r))
		fail_msg("estimate %s: this configuration cannot be evaluated", line);
}

/* ---- plan's side ---- */

struct plan_case {
	const char *model;
	enum model_task task;  /* plan's default: finetune */
	const char *objective; /* --objective; NULL: plan's default, cost */
	enum plan_buy buy;
	int servers_only;
	int max_gpus;    /* 0: plan's default, 4096 */
	const char *gpu; /* --gpu, a catalog key; NULL: all */
	int seq_len;
	double rate_per_s, latency_s; /* inference */
	int max_batch;
	const char *master, *optimizer, *lora_targets, *logits, *tie;
	const char *channels_last; /* --channels-last on|off; NULL: the engine's layout */
	size_t top;
};

/* The request `gpuscope plan` builds for the case's flags (src/cmd/plan.c). */
static void request_of(const struct plan_case *k, struct workload *w, struct plan_request *req,
		       const struct cat_gpu **g1)
{
	struct diag err;
	char why[1024];
	diag_clear(&err);
	if (workload_preset(w, k->model, &err))
		fail_msg("preset %s: %s", k->model, err.msg);
	if (k->tie) {
		w->d.tied_embeddings = on_off("tie-embeddings", k->tie);
		if (workload_finish(w, &err))
			fail_msg("--tie-embeddings: %s", err.msg);
	}
	memset(req, 0, sizeof(*req));
	req->w = w;
	model_config_defaults(&req->base);
	req->base.task = k->task;
	req->base.seq_len = k->seq_len;
	if (k->optimizer)
		req->base.optimizer = (enum model_optimizer)named("optimizer", k->optimizer,
								  model_optimizer_from_name(k->optimizer));
	if (k->master)
		req->base.master = (enum model_master)named("master-weights", k->master,
							    model_master_from_name(k->master));
	if (k->lora_targets)
		req->base.lora_targets = (enum model_lora_targets)
			named("lora-targets", k->lora_targets, model_lora_targets_from_name(k->lora_targets));
	if (k->logits)
		req->base.logits = (enum model_logits)named("logits", k->logits,
							    model_logits_from_name(k->logits));
	if (k->channels_last)
		req->base.channels_last = on_off("channels-last", k->channels_last);
	req->objective = k->objective ? (enum plan_objective)named("objective", k->objective,
								   plan_objective_from_name(k->objective)) :
					PLAN_OBJ_COST;
	req->buy = k->buy;
	req->servers_only = k->servers_only;
	req->max_gpus = k->max_gpus ? k->max_gpus : 4096;
	req->precisions = 1u << MODEL_BF16;
	req->deadline_s = k->task == MODEL_TASK_INFER ? k->latency_s : 0;
	req->rate_per_s = k->rate_per_s;
	/* the static-batch model, whose batches the lines time (the simulated sizing has tests/cli/69) */
	req->engine = PLAN_STATIC_ENGINE;
	req->max_batch = k->max_batch;
	req->top = k->top;
	if (k->gpu) {
		if (!(*g1 = catalog_gpu(cat, k->gpu, why, sizeof(why))))
			fail_msg("--gpu %s: %s", k->gpu, why);
		req->gpus = g1;
		req->ngpus = 1;
	}
}

/*
 * Runs estimate on choice c's line: the same step time and memory as plan,
 * and a configuration that fits the GPU and (offloaded) the host.
 */
static void agrees(const struct plan *p, const struct plan_choice *c)
{
	char line[2048];
	struct workload w;
	struct model_config cfg;
	struct model_result r;
	double host_gib, step = c->res.time.step_s, mem = c->res.mem.total_bytes;

	plan_estimate_args(p, c, line, sizeof(line));
	estimate_line(line, &w, &cfg, &r, &host_gib);
	if (!(fabs(r.time.step_s - step) <= 1e-9 * step))
		fail_msg("estimate %s: step %.17g s, plan %.17g s", line, r.time.step_s, step);
	if (!(fabs(r.mem.total_bytes - mem) <= 1e-9 * mem))
		fail_msg("estimate %s: memory %.17g bytes, plan %.17g", line, r.mem.total_bytes, mem);
	if (!r.mem.fits)
		fail_msg("estimate %s: does not fit (%.17g of %.17g bytes)", line, r.mem.total_bytes,
			 r.mem.capacity_bytes);
	if (host_gib > 0 && !model_host_fits(&r.mem, &cfg, host_gib))
		fail_msg("estimate %s: the offloaded state does not fit %g GiB of host memory", line, host_gib);
}

/*
 * Plans k and checks its ranked choices and the first three of its front;
 * returns how many were checked.  must: plan has to rank something (it
 * exits 0); otherwise a plan with nothing ranked checks nothing.
 */
static size_t check_case(const struct plan_case *k, int must, size_t nfront)
{
	struct workload w;
	struct plan_request req;
	const struct cat_gpu *g1 = NULL;
	struct plan *p;
	struct diag err;
	size_t i, n, checked = 0;

	request_of(k, &w, &req, &g1);
	diag_clear(&err);
	if (plan_run(&p, cat, &req, &err)) {
		if (must)
			fail_msg("plan %s: --%s: %s", k->model, err.field, err.msg);
		return 0;
	}
	n = plan_nranked(p);
	if (must && !n)
		fail_msg("plan %s (max %d GPUs, %s): nothing ranked", k->model, req.max_gpus,
			 k->gpu ? k->gpu : "every GPU");
	for (i = 0; i < n; i++, checked++)
		agrees(p, plan_ranked(p, i));
	for (i = 0; i < nfront && i < plan_nfront(p); i++, checked++)
		agrees(p, plan_front(p, i));
	plan_free(p);
	return checked;
}

/* ---- the requests ---- */

#define FT MODEL_TASK_FINETUNE
#define PRE MODEL_TASK_PRETRAIN
#define INF MODEL_TASK_INFER

/* plan --top 4: every ranked choice and the first three of the front */
static const struct plan_case listed[] = {
	{.model = "llama2-7b", .task = FT},
	{.model = "llama2-13b", .task = PRE, .servers_only = 1},
	{.model = "llama2-70b", .task = PRE, .objective = "time", .max_gpus = 512},
	{.model = "llama2-13b", .task = FT, .buy = PLAN_BUY_CLOUD, .objective = "time", .max_gpus = 256},
	{.model = "mixtral-8x7b", .task = PRE, .max_gpus = 128},
	{.model = "resnet50", .task = FT},
	{.model = "llama2-70b", .task = INF, .rate_per_s = 4},
	{.model = "gnn", .task = INF, .rate_per_s = 20000, .latency_s = 5e-3, .max_batch = 32},
	{.model = "dlrm", .task = INF, .rate_per_s = 20000, .latency_s = 10e-3},
	{.model = "llama2-7b", .task = FT, .gpu = "gaudi3", .objective = "time"},
	{.model = "llama3-8b", .task = PRE, .seq_len = 131072, .gpu = "h100-sxm5-80gb", .max_gpus = 64},
};

static void test_listed(void **state, size_t i)
{
	struct plan_case k = listed[i];
	(void)state;
	k.top = 4;
	assert_true(check_case(&k, 1, 3) > 0);
}

/* one cmocka test per request, so a failure names it */
#define LISTED(i) \
	static void test_listed_##i(void **state) \
	{ \
		test_listed(state, i); \
	}
/* clang-format off */
LISTED(0)
LISTED(1)
LISTED(2)
LISTED(3)
LISTED(4)
LISTED(5)
LISTED(6)
LISTED(7)
LISTED(8)
LISTED(9)
LISTED(10)
/* clang-format on */
#undef LISTED

/*
 * Every GPU of the catalog, --top 1 --max-gpus 64: the first choice of a
 * full fine-tune, a LoRA fine-tune, inference at 2 requests/s and a CNN.  A
 * GPU on which nothing fits (or that lacks the precision) lists nothing.
 */
static void test_every_gpu(void **state)
{
	static const struct plan_case kinds[] = {
		{.model = "llama2-7b", .task = FT},
		{.model = "llama2-7b", .task = MODEL_TASK_LORA},
		{.model = "llama2-7b", .task = INF, .rate_per_s = 2},
		{.model = "resnet50", .task = FT},
	};
	size_t i, j, n = catalog_count(cat, CAT_GPUS), checked = 0;
	(void)state;
	assert_true(n >= 20);
	for (i = 0; i < n; i++)
		for (j = 0; j < sizeof(kinds) / sizeof(kinds[0]); j++) {
			struct plan_case k = kinds[j];
			k.gpu = catalog_gpu_at(cat, i)->row.key;
			k.max_gpus = 64;
			k.top = 1;
			checked += check_case(&k, 0, 0);
		}
	if (checked < 60)
		fail_msg("only %zu plans were checked against estimate", checked);
}

/* The memory settings travel in the line too. */
static void test_memory_settings(void **state)
{
	static const struct plan_case kinds[] = {
		{.model = "llama2-7b", .task = FT, .master = "none", .optimizer = "adamw8bit"},
		{.model = "llama2-7b", .task = MODEL_TASK_LORA, .lora_targets = "qv", .tie = "on"},
		{.model = "llama2-7b", .task = MODEL_TASK_QLORA, .logits = "chunked"},
		/* a 3D network's layout, eager channels_last_3d */
		{.model = "unet3d", .task = FT, .channels_last = "on"},
	};
	size_t j;
	(void)state;
	for (j = 0; j < sizeof(kinds) / sizeof(kinds[0]); j++) {
		struct plan_case k = kinds[j];
		k.gpu = "a100-sxm4-80gb";
		k.max_gpus = 64;
		k.top = 1;
		assert_int_equal(check_case(&k, 1, 0), 1);
	}
}

/*
 * ZeRO-3's hybrid shard and kept weights travel in the line: a resolved
 * configuration with them, written as flags and read back, is the same
 * configuration with the same step time.
 */
static void test_zero3_sharding_flags(void **state)
{
	struct workload w, w2;
	struct model_request q;
	struct model_config c, c2;
	struct model_result r, r2;
	struct strbuf line = STRBUF_INIT;
	struct diag err;
	char why[256];
	double host;
	(void)state;
	diag_clear(&err);
	assert_int_equal(workload_load(&w, "llama2-7b", &err), 0);
	model_request_init(&q);
	q.gpu = catalog_gpu(cat, "a100-sxm4-80gb", why, sizeof(why));
	assert_non_null(q.gpu);
	q.gpus = 128;
	q.tp = q.pp = 1;
	q.network = "ib-hdr-8x200";
	q.hsdp = 8;
	q.reshard_after_forward = 0;
	q.micro_batch = 2;
	q.global_batch = 256;
	assert_int_equal(model_resolve(&w, cat, &q, &c, NULL, &err), 0);
	assert_int_equal(c.zero, 3);
	assert_int_equal(model_estimate(&w, &c, &r), 0);
	strbuf_addf(&line, "--model llama2-7b --gpu a100-sxm4-80gb --network ib-hdr-8x200 ");
	model_config_flags(&w, &c, &line);
	assert_non_null(strstr(line.buf, " --zero 3 --recompute none --hsdp 8 --reshard-after-forward off"));
	estimate_line(line.buf, &w2, &c2, &r2, &host);
	assert_int_equal(c2.hsdp, 8);
	assert_int_equal(c2.reshard_after_forward, 0);
	assert_true(r2.time.step_s == r.time.step_s);
	assert_true(r2.mem.total_bytes == r.mem.total_bytes);
	strbuf_release(&line);
}

/* The line's parser is estimate's: a flag or a value estimate refuses fails the round trip. */
static void test_parser_refuses(void **state)
{
	struct est_flags f;
	(void)state;
	assert_int_equal(parse_flags("--model llama2-7b --gpu a100-sxm4-80gb --tp 2", &f), 0);
	assert_int_equal(f.tp, 2);
	assert_int_equal(f.zero, -1);
	assert_int_not_equal(parse_flags("--model llama2-7b --no-such-flag 1", &f), 0);
	assert_int_not_equal(parse_flags("--model llama2-7b --zero 4", &f), 0);
	assert_int_not_equal(parse_flags("--model llama2-7b --mig 9", &f), 0);
	assert_int_not_equal(parse_flags("--model llama2-7b --hsdp 0", &f), 0);
	assert_int_not_equal(parse_flags("--model llama2-7b stray", &f), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parser_refuses),
		cmocka_unit_test(test_listed_0),
		cmocka_unit_test(test_listed_1),
		cmocka_unit_test(test_listed_2),
		cmocka_unit_test(test_listed_3),
		cmocka_unit_test(test_listed_4),
		cmocka_unit_test(test_listed_5),
		cmocka_unit_test(test_listed_6),
		cmocka_unit_test(test_listed_7),
		cmocka_unit_test(test_listed_8),
		cmocka_unit_test(test_listed_9),
		cmocka_unit_test(test_listed_10),
		cmocka_unit_test(test_every_gpu),
		cmocka_unit_test(test_memory_settings),
		cmocka_unit_test(test_zero3_sharding_flags),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
