/*
 * gpuscope estimate: memory, step time and throughput of one workload in one
 * configuration, with what bounds it and what would help.  The arithmetic
 * lives in src/model/; this file turns flags into a model_config and the
 * result into tables or JSON (field names documented in docs/model.md).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/workload_opts.h"
#include "model/model.h"
#include "model/serving.h"
#include "report/table.h"
#include "util/error.h"
#include "util/units.h"
#include "report/fmt.h"

static int json_flag, list_models, seq_parallel, cuda_graphs;
static const char *gpu_s, *server_s, *network_s, *precision_s, *recompute_s, *offload_s, *flash_s,
	*kvprec_s, *loader_s, *cudnn_s, *engine_s, *batching_s, *wprec_s, *shape_s;
static long gpus, gpus_per_node, tp, pp, dp, ep, vpp, cp, zero = -1, micro_batch, batch, max_batch = 32;
static double cpu_cores, latency_target, ttft_target, tpot_target, rate;
static long max_seqs, mig;
static double host_gib;              /* host memory per server: --host-memory, else the server's */
static struct model_notes notes;     /* what the resolver chose unasked */
static struct workload_opts wo = {.cmd = "estimate", .model_hint = "use --model", .output_len = -1};

static const struct opt estimate_opts[] = {
	OPT_GROUP_("workload"),
	WORKLOAD_OPT_MODEL(wo, "a preset (--list-models) or a Hugging Face config.json"),
	OPT_FLAG_("list-models", &list_models, "list the built-in workload presets"),
	WORKLOAD_OPT_TASK(wo, "pretrain, finetune, lora, qlora or infer (default pretrain)"),
	WORKLOAD_OPT_DIMS(wo),
	OPT_GROUP_("hardware"),
	OPT_STRING_("gpu", &gpu_s, "NAME", "GPU (see 'gpuscope catalog gpus')"),
	OPT_INT_("gpus", &gpus, "N", "total GPUs (default tp x pp x dp)", 1, 1000000),
	OPT_INT_("gpus-per-node", &gpus_per_node, "N", "GPUs per server (default the server's, or up to 8; GB200: up to 72)", 1, 1024),
	OPT_STRING_("server", &server_s, "NAME", "server model: its GPU links and NICs (see 'gpuscope catalog servers')"),
	OPT_STRING_("network", &network_s, "SPEC", "scale-out fabric per server: ib-hdr-8x200, roce-4x400, ib-ndr"),
	OPT_GROUP_("parallel layout and training"),
	OPT_STRING_("precision", &precision_s, "P", "fp32, tf32, fp16, bf16 or fp8 (default bf16 where supported)"),
	OPT_INT_("tp", &tp, "N", "tensor parallel degree", 1, 65536),
	OPT_INT_("pp", &pp, "N", "pipeline parallel degree", 1, 65536),
	OPT_INT_("dp", &dp, "N", "data parallel degree (default gpus / (tp x pp))", 1, 1000000),
	OPT_INT_("ep", &ep, "N", "expert parallel degree (within data parallelism)", 1, 65536),
	OPT_INT_("vpp", &vpp, "N", "interleaved pipeline stages per GPU", 1, 1024),
	OPT_INT_("cp", &cp, "N", "context parallel: each sequence split over N GPUs (ring attention)", 1, 65536),
	OPT_INT_("zero", &zero, "0-3", "ZeRO stage (FSDP full sharding is 3)", 0, 3),
	OPT_STRING_("recompute", &recompute_s, "MODE", "activation recompute: none, selective, selective-op or full"),
	OPT_FLAG_("seq-parallel", &seq_parallel, "sequence parallelism (with --tp)"),
	OPT_INT_("micro-batch", &micro_batch, "N", "samples per micro-batch", 1, 1000000),
	WORKLOAD_OPT_GLOBAL_BATCH(wo, "samples per optimizer step"),
	WORKLOAD_OPT_SEQ_LEN(wo),
	WORKLOAD_OPT_OPTIMIZER(wo, "adamw, adamw-bf16, adamw8bit, paged-adamw, paged-adamw8bit, adafactor, sgd-momentum, sgd"),
	OPT_STRING_("offload", &offload_s, "WHAT", "optimizer or optimizer+params (to host memory)"),
	OPT_STRING_("flash-attention", &flash_s, "on|off", "fused attention (default on)"),
	WORKLOAD_OPT_LORA_RANK(wo),
	WORKLOAD_OPT_MEMORY(wo),
	OPT_GROUP_("inference"),
	OPT_INT_("batch", &batch, "N", "concurrent requests", 1, 1000000),
	WORKLOAD_OPT_PROMPT_LEN(wo),
	WORKLOAD_OPT_OUTPUT_LEN(wo),
	OPT_STRING_("kv-cache-precision", &kvprec_s, "P", "fp16, bf16, fp8, int8 or int4"),
	OPT_DURATION_POSITIVE_("latency-target", &latency_target, "TIME", "a request's latency to meet: the batch (or serving concurrency) that does (5ms)", 3600),
	OPT_INT_("max-batch", &max_batch, "N", "dynamic batching limit for --latency-target (32)", 1, 1000000),
	OPT_FLAG_("cuda-graphs", &cuda_graphs, "capture forward passes as CUDA Graphs"),
	OPT_STRING_("engine", &engine_s, "NAME", "eager, compile, cudagraphs, tensorrt, trtllm, vllm, sglang, lmdeploy, tgi"),
	OPT_STRING_("batching", &batching_s, "KIND", "continuous (serving engines' default) or static"),
	OPT_INT_("max-seqs", &max_seqs, "N", "continuous batching: cap on running sequences", 1, 10000000),
	OPT_STRING_("weight-precision", &wprec_s, "P", "stored weights: bf16, fp16, fp8, int8, int4 or nf4 (weight-only; a LoRA/QLoRA base)"),
	OPT_DURATION_POSITIVE_("ttft-target", &ttft_target, "TIME", "serving: time to first token to meet (200ms)", 3600),
	OPT_DURATION_POSITIVE_("tpot-target", &tpot_target, "TIME", "serving: time per output token to meet (20ms)", 3600),
	OPT_POSITIVE_("rate", &rate, "REQ_PER_S", "requests/s: replicas, utilisation, p99 TTFT with queueing", 0, 1e9),
	OPT_STRING_("input-shape", &shape_s, "SHAPE", "per-sample input: 224x224, 128x128x128, 240000"),
	OPT_INT_("mig", &mig, "N", "run on an N-slice MIG instance (1g ... 7g) of the GPU", 1, 8),
	OPT_GROUP_("data and time to train"),
	WORKLOAD_OPT_TOKENS(wo, "tokens to train on (time to train)"),
	WORKLOAD_OPT_SAMPLES(wo, "samples per epoch (time to train)"),
	WORKLOAD_OPT_EPOCHS(wo),
	OPT_POSITIVE_("cpu-cores", &cpu_cores, "N", "CPU cores per server for data loading", 0, 100000),
	OPT_STRING_("data-loader", &loader_s, "KIND", "cpu or dali"),
	OPT_STRING_("cudnn-benchmark", &cudnn_s, "on|off", "cudnn.benchmark (default on)"),
	OPT_GROUP_("output"),
	OPT_FLAG_("json", &json_flag, "print JSON (fields in docs/model.md)"),
	OPT_END_(),
};

static const struct opts_cmd estimate_cmd = {
	"estimate",
	"--model NAME|config.json --gpu NAME [options]",
	"Predict memory per GPU, step time, throughput, MFU, time to train and energy of a workload.",
	"Examples:\n"
	"  gpuscope estimate --model llama2-7b --task finetune --gpu a100-sxm4-80gb --gpus 8 \\\n"
	"      --zero 2 --recompute full --micro-batch 4 --global-batch 64\n"
	"  gpuscope estimate --model llama3-70b --task infer --gpu h100-sxm5-80gb --gpus 8 --tp 8 --batch 32\n"
	"  gpuscope estimate --model resnet50 --gpu v100-sxm2-16gb --precision fp16 --micro-batch 256\n"
	"  gpuscope estimate --model gnn --task infer --gpu t4 --latency-target 5ms --cuda-graphs\n"
	"  gpuscope estimate --model llama3-8b --task infer --gpu h100-sxm5-80gb --rate 30 --ttft-target 300ms\n"
	"\nThe formulas and their sources are in docs/model.md; 'gpuscope validate' shows\n"
	"how far the predictions are from published measurements.\n",
	estimate_opts,
};

/* ------------------------------------------------------------------------- */

static int on_off(const char *flag, const char *v)
{
	if (!strcmp(v, "on") || !strcmp(v, "1") || !strcmp(v, "true"))
		return 1;
	if (!strcmp(v, "off") || !strcmp(v, "0") || !strcmp(v, "false"))
		return 0;
	die_usage("gpuscope estimate: --%s expects on or off, got '%s'", flag, v);
}

static int enum_or_die(const char *flag, const char *v, int value, const char *valid)
{
	if (value < 0)
		die_usage("gpuscope estimate: --%s '%s' is not one of %s", flag, v, valid);
	return value;
}

static void list_presets(void)
{
	size_t n, i;
	const char *const *names = workload_preset_names(&n);
	struct table *tb = table_new();
	char b[64];
	table_column(tb, "model", ALIGN_LEFT);
	table_column(tb, "kind", ALIGN_LEFT);
	table_column(tb, "params", ALIGN_RIGHT);
	table_column(tb, "shape", ALIGN_LEFT);
	table_column(tb, "unit", ALIGN_LEFT);
	for (i = 0; i < n; i++) {
		struct workload w;
		struct diag err;
		diag_clear(&err);
		if (workload_preset(&w, names[i], &err))
			continue;
		table_row(tb);
		table_cell(tb, w.name);
		table_cell(tb, w.kind == WORKLOAD_TRANSFORMER ? (w.d.experts > 1 ? "moe" :
			   w.d.causal ? "decoder" : "encoder") : "per-sample");
		table_cell(tb, fmt_count(w.params, FMT_COUNT_SI, b, sizeof(b)));
		if (w.kind == WORKLOAD_TRANSFORMER)
			table_cellf(tb, "L%d h%d a%d/%d f%d s%d", w.d.layers, w.d.hidden, w.d.heads,
				    w.d.kv_heads, w.d.ffn_hidden, w.d.seq_len);
		else
			table_cellf(tb, "%.3g GFLOP/sample", w.s.fwd_flops / 1e9);
		table_cell(tb, w.sample_unit);
	}
	table_print(tb, stdout, 0);
	table_free(tb);
}

/* Flags into a request; the resolver decides every default (model.h). */
static void build_config(const struct catalog *cat, const struct workload *w, struct model_config *c,
			 struct model_notes *out_notes)
{
	char why[1024];
	struct model_request q;
	struct diag err;

	model_request_init(&q);
	if (server_s) {
		q.server = catalog_server(cat, server_s, why, sizeof(why));
		if (!q.server)
			die_usage("gpuscope estimate: --server: %s", why);
	}
	if (!gpu_s && !q.server)
		die_usage("gpuscope estimate: give --gpu NAME (see 'gpuscope catalog gpus') or --server NAME");
	if (gpu_s) {
		q.gpu = catalog_gpu(cat, gpu_s, why, sizeof(why));
		if (!q.gpu)
			die_usage("gpuscope estimate: --gpu: %s", why);
	}
	if (q.gpu && q.server && q.server->gpu && strcmp(q.server->gpu, q.gpu->row.key))
		warning("server '%s' carries %s, not %s; using its links with %s", q.server->row.key,
			q.server->gpu, q.gpu->row.key, q.gpu->row.key);
	q.network = network_s;
	if (wo.task)
		q.task = enum_or_die("task", wo.task, model_task_from_name(wo.task),
				     "pretrain, finetune, lora, qlora, infer");
	if (precision_s)
		q.precision = enum_or_die("precision", precision_s, model_precision_from_name(precision_s),
					  "fp32, tf32, fp16, bf16, fp8");
	if (recompute_s)
		q.recompute = enum_or_die("recompute", recompute_s, model_recompute_from_name(recompute_s),
					  "none, selective, selective-op, full");
	if (wo.optimizer)
		q.optimizer = enum_or_die("optimizer", wo.optimizer, model_optimizer_from_name(wo.optimizer),
					  "adamw, adamw-bf16, adamw8bit, paged-adamw, paged-adamw8bit, adafactor, "
					  "sgd-momentum, sgd");
	if (offload_s)
		q.offload = enum_or_die("offload", offload_s, model_offload_from_name(offload_s),
					"none, optimizer, optimizer+params");
	if (kvprec_s)
		q.kv_precision = enum_or_die("kv-cache-precision", kvprec_s, model_precision_from_name(kvprec_s),
					     "fp16, bf16, fp8, int8, int4");
	if (loader_s)
		q.loader = enum_or_die("data-loader", loader_s, model_loader_from_name(loader_s), "cpu, dali");
	if (flash_s)
		q.flash = on_off("flash-attention", flash_s);
	if (cudnn_s)
		q.cudnn_benchmark = on_off("cudnn-benchmark", cudnn_s);
#define GIVEN(v) ((v) ? (int)(v) : MODEL_UNSET)
	q.tp = GIVEN(tp);
	q.pp = GIVEN(pp);
	q.dp = GIVEN(dp);
	q.ep = GIVEN(ep);
	q.vpp = GIVEN(vpp);
	q.cp = GIVEN(cp);
	q.gpus = GIVEN(gpus);
	q.gpus_per_node = GIVEN(gpus_per_node);
	q.micro_batch = GIVEN(micro_batch);
	q.batch = GIVEN(batch);
	q.seq_parallel = seq_parallel ? 1 : MODEL_UNSET;
	q.cuda_graphs = cuda_graphs ? 1 : MODEL_UNSET;
#undef GIVEN
	q.zero = zero >= 0 ? (int)zero : MODEL_UNSET;
	if (engine_s)
		q.engine = enum_or_die("engine", engine_s, model_engine_from_name(engine_s), model_engine_names_text());
	if (wprec_s)
		q.weight_precision = enum_or_die("weight-precision", wprec_s, model_precision_from_name(wprec_s),
						 "bf16, fp16, fp8, int8, int4, nf4");
	if (mig)
		q.mig = (int)mig;
	if (shape_s && workload_parse_shape(shape_s, &q.input_elems, &q.input_dims))
		die_usage("gpuscope estimate: --input-shape '%s' is not like 224x224, 128x128x128 or 240000", shape_s);
	q.cpu_cores_per_node = cpu_cores > 0 ? cpu_cores : MODEL_UNSET;
	workload_opts_request(&wo, &q);
	diag_clear(&err);
	if (model_resolve(w, cat, &q, c, out_notes, &err)) {
		if (!strcmp(err.field, "network"))
			die_usage("gpuscope estimate: --%s: %s", err.field, err.msg);
		die_usage("gpuscope estimate: %s", err.msg);
	}
	host_gib = wo.host_memory_gib > 0 ? wo.host_memory_gib : q.server && q.server->ram_gib > 0 ? q.server->ram_gib : 0;
	if ((c->offload != MODEL_OFFLOAD_NONE || c->activation_offload) && !(wo.host_memory_gib > 0) &&
	    !(q.server && q.server->ram_gib > 0))
		die_usage("gpuscope estimate: --%s needs the host memory it fills: give --host-memory GIB "
			  "(per server) or --server NAME", c->offload != MODEL_OFFLOAD_NONE ? "offload" :
			  "activation-offload");
	if (gpus_per_node && !q.server) {
		/* nodes that cannot be bought; part of one node (gpus == gpus per node) is fine */
		char shape_why[256];
		int sizes[64];
		size_t ns = cat_node_sizes(c->gpu, sizes, 64);
		int part = c->gpus == c->gpus_per_node && (!ns || c->gpus_per_node <= sizes[ns - 1]);
		if (!part && !cat_node_shape_ok(cat, c->gpu, c->gpus_per_node, shape_why, sizeof(shape_why)))
			die_usage("gpuscope estimate: --gpus-per-node %d: %s", c->gpus_per_node, shape_why);
	}
}

/* ------------------------------------------------------------------------- */
/* Output                                                                     */

static const char *link_desc(const struct model_config *c, char *buf, size_t len)
{
	if (c->intra_kind == MODEL_LINK_NONE)
		snprintf(buf, len, "one GPU per server");
	else
		snprintf(buf, len, "%s %.0f GB/s%s", model_link_name(c->intra_kind), c->intra_gbps,
			 c->intra_nvls ? " NVLS" : "");
	if (c->gpus > c->gpus_per_node) {
		size_t n = strlen(buf);
		snprintf(buf + n, len - n, ", %.1f GB/s per GPU across servers", c->inter_gbps_per_gpu);
	}
	return buf;
}

static void limit_names(unsigned limits, char *buf, size_t len)
{
	static const char *const names[] = {"compute", "memory bandwidth", "communication",
		"pipeline bubble", "data loading", "kernel launches", "memory capacity"};
	size_t i, off = 0;
	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (limits & (1u << i))
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", names[i]);
}

/* A breakdown of a whole into terms: term, amount (headed `amount`), share. */
static struct table *breakdown_new(const char *amount)
{
	struct table *tb = table_new();
	table_column(tb, "term", ALIGN_LEFT);
	table_column(tb, amount, ALIGN_RIGHT);
	table_column(tb, "share", ALIGN_RIGHT);
	return tb;
}

/* Ends a breakdown with the whole, prints it to stdout and frees it. */
static void breakdown_print(struct table *tb, const char *whole, const char *amount)
{
	table_row(tb);
	table_cell(tb, whole);
	table_cell(tb, amount);
	table_cell(tb, "");
	table_print(tb, stdout, 0);
	table_free(tb);
}

static void mem_row(struct table *tb, const char *what, double bytes, double total)
{
	char b[64];
	if (!(bytes > 0))
		return;
	table_row(tb);
	table_cell(tb, what);
	table_cell(tb, fmt_bytes(bytes, FMT_BYTES_GIB, b, sizeof(b)));
	table_cellf(tb, "%.0f%%", total > 0 ? 100 * bytes / total : 0);
}

static void time_row(struct table *tb, const char *what, double s, double step)
{
	char b[64];
	if (!(s > 0))
		return;
	table_row(tb);
	table_cell(tb, what);
	table_cell(tb, fmt_duration(s, FMT_DURATION_PRECISE, b, sizeof(b)));
	table_cellf(tb, "%.1f%%", step > 0 ? 100 * s / step : 0);
}

static void advice_table(const char *title, const struct model_advice *a, size_t n, int infer)
{
	struct table *tb;
	size_t i;
	char b[64], c2[64];
	if (!n)
		return;
	printf("\n%s\n", title);
	tb = table_new();
	table_column(tb, "change", ALIGN_LEFT);
	table_column(tb, "flags", ALIGN_LEFT);
	table_column(tb, infer ? "latency" : "step", ALIGN_RIGHT);
	table_column(tb, "speed", ALIGN_RIGHT);
	table_column(tb, "GiB", ALIGN_RIGHT);
	for (i = 0; i < n; i++) {
		table_row(tb);
		table_cell(tb, a[i].what);
		table_cell(tb, a[i].flags);
		table_cell(tb, fmt_duration(a[i].step_s, FMT_DURATION_PRECISE, b, sizeof(b)));
		table_cellf(tb, "x%.2f", a[i].speedup);
		table_cell(tb, fmt_bytes(a[i].total_bytes, FMT_BYTES_GIB, c2, sizeof(c2)));
	}
	table_print(tb, stdout, 0);
	table_free(tb);
}

/* The serving view: how many sequences run together, what bounds it, and the latencies a client sees. */
static void print_serving(const struct model_config *c, const struct model_serving *s)
{
	struct table *tb = table_new();
	char b[64];
	printf("\nserving (%s, %s batching)\n", model_engine_name(c->engine),
	       strcmp(s->bound, "batch") ? "continuous" : "static");
	table_column(tb, "quantity", ALIGN_LEFT);
	table_column(tb, "value", ALIGN_RIGHT);
#define ROW(name, ...) do { table_row(tb); table_cell(tb, name); table_cellf(tb, __VA_ARGS__); } while (0)
	ROW("sequences decoded together", "%d (%s)", s->concurrency, s->bound);
	ROW("sequences the KV cache holds", "%d", s->kv_limit);
	ROW("weights per GPU, GiB", "%.2f", s->weights_bytes / 1073741824.0);
	ROW("working memory per GPU, GiB", "%.2f", s->workspace_bytes / 1073741824.0);
	ROW("KV cache per GPU, GiB", "%.2f", s->kv_budget_bytes / 1073741824.0);
	ROW("KV cache per token per GPU, KiB", "%.1f", s->kv_bytes_per_token / 1024);
	ROW("time to first token", "%s", fmt_duration(s->ttft_s, FMT_DURATION_PRECISE, b, sizeof(b)));
	ROW("time per output token", "%s", fmt_duration(s->tpot_s, FMT_DURATION_PRECISE, b, sizeof(b)));
	ROW("request latency", "%s", fmt_duration(s->request_s, FMT_DURATION_PRECISE, b, sizeof(b)));
	ROW("output tokens/s (all replicas)", "%.0f", s->tokens_per_s);
	ROW("requests/s (all replicas)", "%.2f", s->requests_per_s);
#undef ROW
	table_print(tb, stdout, 0);
	table_free(tb);
}

/*
 * --rate: the configuration's replicas as queues (model_queue_at, the
 * queueing plan sizes replicas with): each of tp x pp x cp GPUs runs `slots`
 * requests at once, each held a request's life.  With --gpus or --dp the
 * replicas are the user's and a rate at or past their capacity is refused;
 * otherwise the fewest that carry the rate and, with --ttft-target, keep its
 * p99 within it (model_serving_replicas).
 */
static void rate_view(const struct model_config *c, const struct model_result *r, const struct model_serving *sv,
		      struct model_queue *q)
{
	int slots = sv ? sv->concurrency : c->batch;
	double hold_s = sv ? sv->request_s : r->infer.request_s;
	double first_s = sv ? sv->ttft_s : r->infer.prefill_s;
	int replicas = c->dp;
	char b[32];

	if (c->task != MODEL_TASK_INFER)
		die_usage("gpuscope estimate: --rate %g: a request rate applies to --task infer", rate);
	if (!sv && !r->mem.fits)
		die_code(EXIT_USAGE, "gpuscope estimate: --rate %g: cannot: the configuration does not fit (%.2f of %.2f "
			 "GiB per GPU); leave --rate out to see what would", rate, r->mem.total_bytes / 1073741824.0,
			 r->mem.capacity_bytes / 1073741824.0);
	if (slots < 1 || !(hold_s > 0))
		die_usage("gpuscope estimate: --rate %g: this configuration serves no requests", rate);
	if (!gpus && !dp) {
		/* as many replicas as the rate needs: compared as doubles, the count may not fit an int */
		double need = ceil(rate * hold_s / slots - 1e-9);
		if (!(need <= 1e6))
			die_usage("gpuscope estimate: --rate %g: needs %.3g replicas of this configuration, more than "
				  "1,000,000", rate, need);
		replicas = model_serving_replicas(rate, slots, hold_s, first_s, ttft_target, need < 1 ? 1 : (int)need,
						  1000000, &q->ttft_p99_s);
	}
	model_queue_at(rate, replicas, slots, hold_s, first_s, q);
	if (!(q->utilisation < 1))
		die_code(EXIT_USAGE, "gpuscope estimate: --rate %g: cannot: capacity is %.4g req/s (%d replica%s of "
			 "%d requests at once, %s each); give more --gpus or --dp, or leave both out to size them",
			 rate, q->capacity_per_s, replicas, replicas == 1 ? "" : "s", slots,
			 fmt_duration(hold_s, FMT_DURATION_PRECISE, b, sizeof(b)));
}

static void print_rate(const struct workload *w, const struct model_config *c, const struct model_queue *q)
{
	struct table *tb = table_new();
	char b[64], t[64];
	int decoder = w->kind == WORKLOAD_TRANSFORMER && w->d.causal;
	printf("\nat %g requests/s\n", q->rate_per_s);
	table_column(tb, "quantity", ALIGN_LEFT);
	table_column(tb, "value", ALIGN_RIGHT);
#define ROW(name, ...) do { table_row(tb); table_cell(tb, name); table_cellf(tb, __VA_ARGS__); } while (0)
	if (gpus || dp)
		ROW("replicas (given)", "%d: %s", q->replicas, q->utilisation < 1 ? "keep up" : "cannot keep up");
	else
		ROW("replicas needed", "%d x %d GPU%s", q->replicas, c->gpus / c->dp, c->gpus / c->dp == 1 ? "" : "s");
	ROW("capacity, requests/s", "%.4g", q->capacity_per_s);
	ROW("utilisation", "%.0f%%", 100 * q->utilisation);
	ROW("p99 wait for a free slot", "%s", fmt_duration(q->wait_p99_s, FMT_DURATION_PRECISE, b, sizeof(b)));
	if (ttft_target > 0)
		ROW(decoder ? "p99 time to first token" : "p99 latency", "%s (target %s%s)",
		    fmt_duration(q->ttft_p99_s, FMT_DURATION_PRECISE, b, sizeof(b)), fmt_duration(ttft_target, FMT_DURATION_PRECISE, t, sizeof(t)),
		    q->ttft_p99_s <= ttft_target ? "" : ", MISSED");
	else
		ROW(decoder ? "p99 time to first token" : "p99 latency", "%s", fmt_duration(q->ttft_p99_s, FMT_DURATION_PRECISE, b, sizeof(b)));
#undef ROW
	table_print(tb, stdout, 0);
	table_free(tb);
}

static json_t *rate_json(const struct model_queue *q)
{
	json_t *x = json_object();
	json_object_set_new(x, "rate_per_s", json_real(q->rate_per_s));
	json_object_set_new(x, "replicas", json_integer(q->replicas));
	json_object_set_new(x, "replicas_given", json_boolean(gpus || dp));
	json_object_set_new(x, "slots", json_integer(q->slots));
	json_object_set_new(x, "capacity_per_s", json_real(q->capacity_per_s));
	json_object_set_new(x, "utilisation", json_real(q->utilisation));
	json_object_set_new(x, "wait_p99_s", json_real(q->wait_p99_s));
	json_object_set_new(x, "ttft_p99_s", json_real(q->ttft_p99_s));
	json_object_set_new(x, "ttft_target_s", ttft_target > 0 ? json_real(ttft_target) : json_null());
	json_object_set_new(x, "meets_ttft_target", ttft_target > 0 ? json_boolean(q->ttft_p99_s <= ttft_target) :
			    json_null());
	return x;
}

static void print_human(const struct workload *w, const struct model_config *c, const struct model_result *r,
			int max_mb, const struct model_advice *fix, size_t nfix,
			const struct model_advice *rec, size_t nrec, int lat_batch, const struct model_serving *sv,
			const struct model_queue *q)
{
	const struct model_memory *m = &r->mem;
	const struct model_time *t = &r->time;
	struct table *tb;
	char b[256], b2[64], b3[32];
	int infer = c->task == MODEL_TASK_INFER;

	printf("%s (%s params), %s on %d x %s\n", w->name, fmt_count(w->params, FMT_COUNT_SI, b2, sizeof(b2)),
	       model_task_name(c->task), c->gpus, c->gpu->row.key);
	if (c->mig > 0)
		printf("MIG: one %dg instance of the %s (its share of the SMs and memory slices)\n", c->mig,
		       c->gpu->row.key);
	printf("links: %s\n", link_desc(c, b, sizeof(b)));
	if (infer)
		printf("layout: tp %d pp %d dp %d, %s compute, %s weights, KV cache %s, engine %s%s\n"
		       "        batch %d, prompt %d tokens, output %d tokens\n",
		       c->tp, c->pp, c->dp, model_precision_name(c->precision),
		       model_precision_name(c->weight_precision >= 0 ? (enum model_precision)c->weight_precision :
					    c->precision),
		       model_precision_name(c->kv_precision), model_engine_name(c->engine),
		       c->cuda_graphs ? ", CUDA Graphs" : "", c->batch, c->prompt_len, c->output_len);
	else
		printf("layout: tp %d%s pp %d dp %d%s%s, zero %d, %s, micro-batch %d x %d, global batch %d\n"
		       "        recompute %s%s, flash attention %s, %s%s%s\n",
		       c->tp, c->cp > 1 ? (snprintf(b3, sizeof(b3), " cp %d", c->cp), b3) : "", c->pp, c->dp,
		       c->ep > 1 ? " ep " : "", c->ep > 1 ? (snprintf(b2, sizeof(b2), "%d", c->ep), b2) : "",
		       c->zero, model_precision_name(c->precision), c->micro_batch, c->seq_len, c->global_batch,
		       model_recompute_name(c->recompute), c->seq_parallel ? ", sequence parallel" : "",
		       c->flash ? "on" : "off", model_optimizer_name(c->optimizer),
		       c->offload ? ", offload " : "", c->offload ? model_offload_name(c->offload) : "");
	{
		int i;
		for (i = 0; i < notes.n; i++)
			table_wrap(stdout, "note: ", notes.text[i], 6, 80);
	}

	if (sv) {
		print_serving(c, sv);
		if (q)
			print_rate(w, c, q);
		goto throughput;
	}
	printf("\nmemory per GPU (most loaded)\n");
	tb = breakdown_new("GiB");
	mem_row(tb, c->task == MODEL_TASK_QLORA ? "weights (4-bit base)" : "weights", m->weights_bytes, m->total_bytes);
	mem_row(tb, "gradients", m->gradients_bytes, m->total_bytes);
	mem_row(tb, "optimizer + master weights", m->optimizer_bytes, m->total_bytes);
	mem_row(tb, "LoRA adapters + optimizer", m->lora_bytes, m->total_bytes);
	if (m->activations_bytes > 0) {
		if (!infer && m->microbatches_in_flight > 1)
			snprintf(b, sizeof(b), "activations (%d micro-batches)", m->microbatches_in_flight);
		else
			snprintf(b, sizeof(b), "activations");
		mem_row(tb, b, m->activations_bytes, m->total_bytes);
	}
	mem_row(tb, "logits and loss", m->logits_bytes, m->total_bytes);
	mem_row(tb, "KV cache", m->kv_cache_bytes, m->total_bytes);
	mem_row(tb, "buffers and workspaces", m->buffers_bytes, m->total_bytes);
	mem_row(tb, "allocator reserve", m->reserve_bytes, m->total_bytes);
	mem_row(tb, "paged optimizer states", m->paged_bytes, m->total_bytes);
	mem_row(tb, "CUDA context and NCCL", m->context_bytes, m->total_bytes);
	breakdown_print(tb, "total", fmt_bytes(m->total_bytes, FMT_BYTES_GIB, b, sizeof(b)));
	printf("%s: %.2f of %.2f GiB usable", m->fits ? "fits" : "DOES NOT FIT", m->total_bytes / 1073741824.0,
	       m->capacity_bytes / 1073741824.0);
	if (!infer && max_mb > 0)
		printf("; largest micro-batch: %d", max_mb);
	printf("\n");
	printf("GiB as PyTorch counts: allocated %.2f, reserved %.2f; nvidia-smi: %.2f\n",
	       m->allocated_bytes / 1073741824.0, m->reserved_bytes / 1073741824.0, m->total_bytes / 1073741824.0);
	if (m->host_bytes > 0) {
		printf("offloaded: %.2f GiB per GPU in host memory", m->host_bytes / 1073741824.0);
		if (host_gib > 0)
			printf(", %.0f of %.0f GiB per server%s", m->host_bytes * c->gpus_per_node / 1073741824.0,
			       host_gib, model_host_fits(m, c, host_gib) ? "" : ": DOES NOT FIT");
		printf("\n");
	}

	if (infer) {
		const struct model_infer *in = &r->infer;
		printf("\ninference\n");
		tb = table_new();
		table_column(tb, "quantity", ALIGN_LEFT);
		table_column(tb, "value", ALIGN_RIGHT);
		table_row(tb);
		table_cell(tb, w->kind == WORKLOAD_TRANSFORMER && w->d.causal ? "time to first token (prefill)" :
			   "forward pass of the batch");
		table_cell(tb, fmt_duration(in->prefill_s, FMT_DURATION_PRECISE, b, sizeof(b)));
		if (w->kind == WORKLOAD_TRANSFORMER && c->output_len > 1) {
			table_row(tb);
			table_cell(tb, "time per output token");
			table_cell(tb, fmt_duration(in->decode_token_s, FMT_DURATION_PRECISE, b, sizeof(b)));
			table_row(tb);
			table_cell(tb, "request latency");
			table_cell(tb, fmt_duration(in->request_s, FMT_DURATION_PRECISE, b, sizeof(b)));
			table_row(tb);
			table_cell(tb, "weights read per token");
			table_cellf(tb, "%.2f GiB", in->decode_weights_bytes / 1073741824.0);
			table_row(tb);
			table_cell(tb, "KV cache read per token");
			table_cellf(tb, "%.2f GiB", in->decode_kv_bytes / 1073741824.0);
		}
		table_row(tb);
		table_cell(tb, "kernel launch time per forward");
		table_cell(tb, fmt_duration(in->launch_s, FMT_DURATION_PRECISE, b, sizeof(b)));
		if (r->tokens_per_s > 0) {
			table_row(tb);
			table_cell(tb, w->kind == WORKLOAD_TRANSFORMER && w->d.causal ?
				   "generated tokens/s (all replicas)" : "tokens processed/s (all replicas)");
			table_cellf(tb, "%.0f", r->tokens_per_s);
		}
		table_row(tb);
		table_cellf(tb, "%s/s (all replicas)", w->sample_unit);
		table_cellf(tb, "%.1f", r->samples_per_s);
		if (lat_batch >= 0) {
			table_row(tb);
			table_cellf(tb, "batch within %s (dynamic batching)", fmt_duration(latency_target, FMT_DURATION_PRECISE, b2, sizeof(b2)));
			if (lat_batch > 0)
				table_cellf(tb, "%d", lat_batch);
			else
				table_cell(tb, "none");
		}
		table_print(tb, stdout, 0);
		table_free(tb);
		if (q)
			print_rate(w, c, q);
	} else {
		printf("\nstep time (one optimizer step, slowest GPU)\n");
		tb = breakdown_new("time");
		time_row(tb, "matrix multiplies", t->gemm_s, t->step_s);
		time_row(tb, "attention", t->attention_s, t->step_s);
		time_row(tb, "memory-bound kernels", t->memory_bound_s, t->step_s);
		time_row(tb, "recomputed forward", t->recompute_s, t->step_s);
		time_row(tb, "tensor-parallel collectives", t->tp_comm_s, t->step_s);
		time_row(tb, "expert all-to-all", t->ep_comm_s, t->step_s);
		time_row(tb, "context-parallel K/V ring", t->cp_comm_s, t->step_s);
		time_row(tb, "pipeline bubble", t->pp_bubble_s, t->step_s);
		time_row(tb, "pipeline sends", t->pp_p2p_s, t->step_s);
		time_row(tb, "gradient sync (exposed)", t->dp_comm_s, t->step_s);
		time_row(tb, "ZeRO-3 gathers (exposed)", t->zero_comm_s, t->step_s);
		time_row(tb, "optimizer step", t->optimizer_s, t->step_s);
		time_row(tb, "offload transfers", t->offload_s, t->step_s);
		time_row(tb, "kernel launch overhead", t->overhead_s, t->step_s);
		time_row(tb, "data loading (exposed)", t->data_s, t->step_s);
		breakdown_print(tb, "step", fmt_duration(t->step_s, FMT_DURATION_PRECISE, b, sizeof(b)));
		if (t->dp_comm_total_s > 0)
			printf("data-parallel traffic per step: %s in all, %s exposed\n",
			       fmt_duration(t->dp_comm_total_s, FMT_DURATION_PRECISE, b, sizeof(b)),
			       fmt_duration(t->dp_comm_s + t->zero_comm_s, FMT_DURATION_PRECISE, b2, sizeof(b2)));
	}

throughput:
	printf("\nthroughput\n");
	tb = table_new();
	table_column(tb, "quantity", ALIGN_LEFT);
	table_column(tb, "value", ALIGN_RIGHT);
	if (!infer) {
		if (r->tokens_per_s > 0) {
			table_row(tb);
			table_cell(tb, "tokens/s");
			table_cellf(tb, "%.0f", r->tokens_per_s);
		}
		table_row(tb);
		table_cellf(tb, "%s/s", w->sample_unit);
		table_cellf(tb, "%.1f", r->samples_per_s);
	}
	table_row(tb);
	table_cell(tb, "MFU");
	table_cellf(tb, "%.1f%%", 100 * r->mfu);
	table_row(tb);
	table_cell(tb, "model TFLOP/s per GPU");
	table_cellf(tb, "%.1f", r->mfu_tflops_per_gpu);
	table_row(tb);
	table_cell(tb, "hardware TFLOP/s per GPU (HFU)");
	table_cellf(tb, "%.1f of %.0f", r->hfu_tflops_per_gpu, r->peak_tflops);
	if (r->time_to_train_s > 0) {
		table_row(tb);
		table_cell(tb, "time to train");
		table_cellf(tb, "%s (%.0f step%s)", fmt_duration(r->time_to_train_s, FMT_DURATION_TEXT, b, sizeof(b)),
			    r->train_steps, r->train_steps == 1 ? "" : "s");
	}
	table_row(tb);
	table_cell(tb, r->time_to_train_s > 0 ? "energy (GPUs), kWh" : "energy per hour (GPUs), kWh");
	table_cellf(tb, "%.1f", r->energy_kwh);
	table_row(tb);
	table_cell(tb, "average power per GPU, W");
	table_cellf(tb, "%.0f", r->power_w);
	if (r->data_cores_needed > 0) {
		table_row(tb);
		table_cell(tb, "CPU cores per GPU to feed it");
		if (c->cpu_cores_per_gpu > 0)
			table_cellf(tb, "%.1f of %.1f", r->data_cores_needed, c->cpu_cores_per_gpu);
		else
			table_cellf(tb, "%.1f", r->data_cores_needed);
	}
	limit_names(r->limits, b, sizeof(b));
	table_row(tb);
	table_cell(tb, "bounded by");
	table_cell(tb, b);
	table_print(tb, stdout, 0);
	table_free(tb);

	advice_table("to make it fit (cheapest first)", fix, nfix, infer);
	advice_table("worth turning on", rec, nrec, infer);
}

static json_t *advice_json(const struct model_advice *a, size_t n)
{
	json_t *arr = json_array();
	size_t i;
	for (i = 0; i < n; i++)
		json_array_append_new(arr, json_pack("{s:s, s:s, s:f, s:f, s:f, s:b}",
			"change", a[i].what, "flags", a[i].flags, "step_s", a[i].step_s,
			"total_bytes", a[i].total_bytes, "speedup", a[i].speedup, "fits", a[i].fits));
	return arr;
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static void print_json(const struct workload *w, const struct model_config *c, const struct model_result *r,
		       int max_mb, const struct model_advice *fix, size_t nfix,
		       const struct model_advice *rec, size_t nrec, int lat_batch, const struct model_serving *sv,
		       const struct model_queue *q)
{
	const struct model_memory *m = &r->mem;
	const struct model_time *t = &r->time;
	json_t *o = json_object(), *x, *lim = json_array();
	static const char *const limits[] = {"compute", "memory_bandwidth", "communication",
		"pipeline_bubble", "data_loading", "kernel_launches", "memory_capacity"};
	size_t i;

	x = json_object();
	json_object_set_new(x, "name", json_string(w->name));
	json_object_set_new(x, "kind", json_string(w->kind == WORKLOAD_TRANSFORMER ? "transformer" : "per-sample"));
	json_object_set_new(x, "sample_unit", json_string(w->sample_unit));
	json_object_set_new(x, "params", num(w->params));
	json_object_set_new(x, "params_active", num(w->params_active));
	if (w->kind == WORKLOAD_TRANSFORMER) {
		json_object_set_new(x, "layers", json_integer(w->d.layers));
		json_object_set_new(x, "hidden", json_integer(w->d.hidden));
		json_object_set_new(x, "heads", json_integer(w->d.heads));
		json_object_set_new(x, "kv_heads", json_integer(w->d.kv_heads));
		json_object_set_new(x, "ffn_hidden", json_integer(w->d.ffn_hidden));
		json_object_set_new(x, "vocab", json_integer(w->d.vocab));
		json_object_set_new(x, "experts", json_integer(w->d.experts));
		json_object_set_new(x, "experts_active", json_integer(w->d.experts_active));
	} else {
		json_object_set_new(x, "fwd_flops_per_sample", num(w->s.fwd_flops));
	}
	json_object_set_new(o, "workload", x);
	x = json_array();
	for (i = 0; i < (size_t)notes.n; i++)
		json_array_append_new(x, json_string(notes.text[i]));
	json_object_set_new(o, "notes", x);

	x = json_object();
	json_object_set_new(x, "task", json_string(model_task_name(c->task)));
	json_object_set_new(x, "gpu", json_string(c->gpu->row.key));
	json_object_set_new(x, "gpus", json_integer(c->gpus));
	json_object_set_new(x, "gpus_per_node", json_integer(c->gpus_per_node));
	json_object_set_new(x, "intra_link", json_string(model_link_name(c->intra_kind)));
	json_object_set_new(x, "intra_gbps", num(c->intra_gbps));
	json_object_set_new(x, "inter_gbps_per_gpu", num(c->inter_gbps_per_gpu));
	json_object_set_new(x, "precision", json_string(model_precision_name(c->precision)));
	json_object_set_new(x, "tp", json_integer(c->tp));
	json_object_set_new(x, "pp", json_integer(c->pp));
	json_object_set_new(x, "dp", json_integer(c->dp));
	json_object_set_new(x, "ep", json_integer(c->ep));
	json_object_set_new(x, "vpp", json_integer(c->vpp));
	json_object_set_new(x, "cp", json_integer(c->cp));
	json_object_set_new(x, "zero", json_integer(c->zero));
	json_object_set_new(x, "recompute", json_string(model_recompute_name(c->recompute)));
	json_object_set_new(x, "seq_parallel", json_boolean(c->seq_parallel));
	json_object_set_new(x, "flash_attention", json_boolean(c->flash));
	json_object_set_new(x, "micro_batch", json_integer(c->micro_batch));
	json_object_set_new(x, "global_batch", json_integer(c->global_batch));
	json_object_set_new(x, "seq_len", json_integer(c->seq_len));
	json_object_set_new(x, "optimizer", json_string(model_optimizer_name(c->optimizer)));
	json_object_set_new(x, "offload", json_string(model_offload_name(c->offload)));
	if (c->task == MODEL_TASK_LORA || c->task == MODEL_TASK_QLORA)
		json_object_set_new(x, "lora_rank", json_integer(c->lora_rank));
	if (c->task == MODEL_TASK_INFER) {
		json_object_set_new(x, "batch", json_integer(c->batch));
		json_object_set_new(x, "prompt_len", json_integer(c->prompt_len));
		json_object_set_new(x, "output_len", json_integer(c->output_len));
		json_object_set_new(x, "kv_cache_precision", json_string(model_precision_name(c->kv_precision)));
		json_object_set_new(x, "cuda_graphs", json_boolean(c->cuda_graphs));
		json_object_set_new(x, "weight_precision", json_string(model_precision_name(
			c->weight_precision >= 0 ? (enum model_precision)c->weight_precision : c->precision)));
	}
	json_object_set_new(x, "engine", json_string(model_engine_name(c->engine)));
	json_object_set_new(x, "mig", json_integer(c->mig));
	if (c->input_elems > 0)
		json_object_set_new(x, "input_elems", num(c->input_elems));
	json_object_set_new(o, "config", x);

	x = json_object();
	json_object_set_new(x, "weights_bytes", num(m->weights_bytes));
	json_object_set_new(x, "gradients_bytes", num(m->gradients_bytes));
	json_object_set_new(x, "optimizer_bytes", num(m->optimizer_bytes));
	json_object_set_new(x, "activations_bytes", num(m->activations_bytes));
	json_object_set_new(x, "activations_layer_bytes", num(m->activations_layer_bytes));
	json_object_set_new(x, "microbatches_in_flight", json_integer(m->microbatches_in_flight));
	json_object_set_new(x, "logits_bytes", num(m->logits_bytes));
	json_object_set_new(x, "lora_bytes", num(m->lora_bytes));
	json_object_set_new(x, "kv_cache_bytes", num(m->kv_cache_bytes));
	json_object_set_new(x, "buffers_bytes", num(m->buffers_bytes));
	json_object_set_new(x, "allocated_bytes", num(m->allocated_bytes));
	json_object_set_new(x, "reserve_bytes", num(m->reserve_bytes));
	json_object_set_new(x, "reserved_bytes", num(m->reserved_bytes));
	json_object_set_new(x, "paged_bytes", num(m->paged_bytes));
	json_object_set_new(x, "device_bytes", num(m->total_bytes));
	json_object_set_new(x, "context_bytes", num(m->context_bytes));
	json_object_set_new(x, "total_bytes", num(m->total_bytes));
	json_object_set_new(x, "capacity_bytes", num(m->capacity_bytes));
	json_object_set_new(x, "host_bytes", num(m->host_bytes));
	/* the offloaded state against the server's host memory; null when that is unknown */
	json_object_set_new(x, "host_fits", host_gib > 0 ? json_boolean(model_host_fits(m, c, host_gib)) : json_null());
	json_object_set_new(x, "fits", json_boolean(m->fits));
	if (c->task != MODEL_TASK_INFER)
		json_object_set_new(x, "max_micro_batch", json_integer(max_mb));
	json_object_set_new(o, "memory", x);

	x = json_object();
	json_object_set_new(x, "step_s", num(t->step_s));
	json_object_set_new(x, "compute_s", num(t->compute_s));
	json_object_set_new(x, "gemm_s", num(t->gemm_s));
	json_object_set_new(x, "attention_s", num(t->attention_s));
	json_object_set_new(x, "memory_bound_s", num(t->memory_bound_s));
	json_object_set_new(x, "recompute_s", num(t->recompute_s));
	json_object_set_new(x, "optimizer_s", num(t->optimizer_s));
	json_object_set_new(x, "tp_comm_s", num(t->tp_comm_s));
	json_object_set_new(x, "ep_comm_s", num(t->ep_comm_s));
	json_object_set_new(x, "cp_comm_s", num(t->cp_comm_s));
	json_object_set_new(x, "pp_bubble_s", num(t->pp_bubble_s));
	json_object_set_new(x, "pp_p2p_s", num(t->pp_p2p_s));
	json_object_set_new(x, "dp_comm_s", num(t->dp_comm_s));
	json_object_set_new(x, "dp_comm_total_s", num(t->dp_comm_total_s));
	json_object_set_new(x, "zero_comm_s", num(t->zero_comm_s));
	json_object_set_new(x, "offload_s", num(t->offload_s));
	json_object_set_new(x, "data_s", num(t->data_s));
	json_object_set_new(x, "overhead_s", num(t->overhead_s));
	json_object_set_new(o, "time", x);

	if (c->task == MODEL_TASK_INFER) {
		x = json_object();
		json_object_set_new(x, "first_token_s", num(r->infer.prefill_s));
		json_object_set_new(x, "token_s", num(r->infer.decode_token_s));
		json_object_set_new(x, "request_s", num(r->infer.request_s));
		json_object_set_new(x, "decode_weights_bytes", num(r->infer.decode_weights_bytes));
		json_object_set_new(x, "decode_kv_bytes", num(r->infer.decode_kv_bytes));
		json_object_set_new(x, "launch_s", num(r->infer.launch_s));
		if (lat_batch >= 0) {
			json_object_set_new(x, "latency_target_s", num(latency_target));
			json_object_set_new(x, "batch_for_latency", json_integer(lat_batch));
		}
		json_object_set_new(o, "inference", x);
	}
	if (sv) {
		x = json_object();
		json_object_set_new(x, "concurrency", json_integer(sv->concurrency));
		json_object_set_new(x, "bound", json_string(sv->bound));
		json_object_set_new(x, "kv_limit", json_integer(sv->kv_limit));
		json_object_set_new(x, "weights_bytes", num(sv->weights_bytes));
		json_object_set_new(x, "workspace_bytes", num(sv->workspace_bytes));
		json_object_set_new(x, "kv_budget_bytes", num(sv->kv_budget_bytes));
		json_object_set_new(x, "kv_bytes_per_token", num(sv->kv_bytes_per_token));
		json_object_set_new(x, "ttft_s", num(sv->ttft_s));
		json_object_set_new(x, "tpot_s", num(sv->tpot_s));
		json_object_set_new(x, "request_s", num(sv->request_s));
		json_object_set_new(x, "tokens_per_s", num(sv->tokens_per_s));
		json_object_set_new(x, "requests_per_s", num(sv->requests_per_s));
		json_object_set_new(o, "serving", x);
	}
	if (q)
		json_object_set_new(o, "rate", rate_json(q));

	x = json_object();
	json_object_set_new(x, "tokens_per_s", r->tokens_per_s > 0 ? num(r->tokens_per_s) : json_null());
	json_object_set_new(x, "samples_per_s", num(r->samples_per_s));
	json_object_set_new(x, "data_samples_per_s", num(r->data_samples_per_s));
	json_object_set_new(x, "data_cores_per_gpu", num(r->data_cores_needed));
	json_object_set_new(x, "cpu_cores_per_gpu", c->cpu_cores_per_gpu > 0 ? num(c->cpu_cores_per_gpu) : json_null());
	json_object_set_new(o, "throughput", x);
	json_object_set_new(o, "mfu", num(r->mfu));
	json_object_set_new(o, "mfu_tflops_per_gpu", num(r->mfu_tflops_per_gpu));
	json_object_set_new(o, "hfu_tflops_per_gpu", num(r->hfu_tflops_per_gpu));
	json_object_set_new(o, "peak_tflops", num(r->peak_tflops));
	json_object_set_new(o, "model_flops_per_step", num(r->model_flops_per_step));
	json_object_set_new(o, "time_to_train_s", r->time_to_train_s > 0 ? num(r->time_to_train_s) : json_null());
	json_object_set_new(o, "train_steps", r->train_steps > 0 ? num(r->train_steps) : json_null());
	json_object_set_new(o, "energy_kwh", num(r->energy_kwh));
	json_object_set_new(o, "energy_basis", json_string(r->time_to_train_s > 0 ? "time_to_train" : "one_hour"));
	json_object_set_new(o, "power_w_per_gpu", num(r->power_w));
	for (i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		if (r->limits & (1u << i))
			json_array_append_new(lim, json_string(limits[i]));
	json_object_set_new(o, "limits", lim);
	json_object_set_new(o, "fit_advice", advice_json(fix, nfix));
	json_object_set_new(o, "recommendations", advice_json(rec, nrec));
	report_json_print(o);
	json_decref(o);
}

/*
 * Whether to answer with the serving model, and how: a decoder's inference
 * under a serving engine, continuous batching or a TTFT, TPOT or latency
 * target.  With
 * none of --engine, --batch, --cuda-graphs, --batching, --max-seqs and a
 * target a decoder is served as engines do by default (vLLM, continuous
 * batching, as many sequences as the KV cache holds): what "serving" means
 * to an engineer; that returns -1, and a configuration that cannot be served
 * then gets the plain estimate (memory, what would fit) instead of an error.
 */
static int serving_wanted(const struct workload *w, struct model_config *c, struct model_serving_opts *so)
{
	int decoder = w->kind == WORKLOAD_TRANSFORMER && w->d.causal && c->task == MODEL_TASK_INFER;
	memset(so, 0, sizeof(*so));
	if (!decoder) {
		if (batching_s || ttft_target > 0 || tpot_target > 0 || max_seqs)
			die_usage("gpuscope estimate: --batching, --max-seqs, --ttft-target and --tpot-target apply to "
				  "a decoder's inference (--task infer)");
		return 0;
	}
	/* serving targets or a sequence cap without an engine: the default engine serves them */
	if (!engine_s && !batch && !cuda_graphs && (!batching_s || !strcmp(batching_s, "continuous")))
		c->engine = MODEL_ENGINE_VLLM;
	if (!engine_s && !batch && !cuda_graphs && !batching_s && !(ttft_target > 0) && !(tpot_target > 0) &&
	    !(latency_target > 0) && !max_seqs) {
		so->continuous = 1;
		return -1;   /* served by default: falls back to the plain estimate when it cannot be served */
	}
	so->continuous = batching_s ? !strcmp(batching_s, "continuous") : model_engine_info(c->engine)->serving;
	so->batch = (int)batch;
	so->max_seqs = (int)max_seqs;
	so->ttft_target_s = ttft_target;
	so->tpot_target_s = tpot_target;
	so->latency_target_s = latency_target;
	if (so->continuous && !model_engine_info(c->engine)->serving)
		die_usage("gpuscope estimate: continuous batching needs a serving engine (--engine vllm, sglang, "
			  "trtllm, lmdeploy or tgi), not %s", model_engine_name(c->engine));
	return so->continuous || model_engine_info(c->engine)->serving || ttft_target > 0 || tpot_target > 0 ||
	       latency_target > 0;
}

/*
 * No batch meets --latency-target: fail as a missed TTFT or TPOT target
 * does, with how long one request takes (model_batch_for_latency's rule:
 * a request may wait for the batch in flight, so twice one batch's time).
 */
static void latency_missed(const struct workload *w, const struct model_config *c)
{
	struct model_config one = *c;
	struct model_result r1;
	char want[32], alone[32], worst[32];
	one.batch = 1;
	if (model_estimate(w, &one, &r1))
		die_usage("gpuscope estimate: this configuration cannot be evaluated");
	die_code(EXIT_USAGE, "gpuscope estimate: cannot meet the latency target of %s: one request alone takes %s, "
		 "and under dynamic batching it may wait for the batch in flight (worst case %s); a faster GPU, more "
		 "tensor parallelism or smaller weights would be needed", fmt_duration(latency_target, FMT_DURATION_PRECISE, want, sizeof(want)),
		 fmt_duration(r1.infer.request_s, FMT_DURATION_PRECISE, alone, sizeof(alone)), fmt_duration(2 * r1.infer.request_s, FMT_DURATION_PRECISE, worst, sizeof(worst)));
}

int cmd_estimate(int argc, char **argv)
{
	int n = parse_options_or_exit(&estimate_cmd, argc, argv);
	const struct catalog *cat;
	struct workload w;
	struct model_config c;
	struct model_result r;
	struct model_advice fix[8], rec[10];
	struct model_serving_opts so;
	struct model_serving sv;
	struct model_queue q;
	size_t nfix = 0, nrec = 0;
	int max_mb = 0, lat_batch = -1, serving = 0;

	if (list_models) {
		list_presets();
		return EXIT_OK;
	}
	if (n > 0)
		die_usage("gpuscope estimate: unexpected argument '%s'; the workload is --model NAME", argv[0]);
	workload_opts_load(&wo, &w);
	cat = load_catalog_or_die();
	if (batching_s && strcmp(batching_s, "static") && strcmp(batching_s, "continuous"))
		die_usage("gpuscope estimate: --batching '%s' is not static or continuous", batching_s);
	build_config(cat, &w, &c, &notes);
	serving = serving_wanted(&w, &c, &so);
	if (serving) {
		struct diag err;
		diag_clear(&err);
		if (model_serving_estimate(&w, &c, &so, &sv, &err)) {
			/* served by default but it does not fit: the plain estimate says why and what would */
			if (serving < 0) {
				c.engine = MODEL_ENGINE_EAGER;
				serving = 0;
			} else {
				die_code(EXIT_USAGE, "gpuscope estimate: %s", err.msg);
			}
		} else {
			c.batch = sv.concurrency;
		}
	}
	if (!serving && batch) {
		/* an explicit batch that does not fit is refused with the largest that does */
		struct diag err;
		diag_clear(&err);
		if (model_infer_batch_check(&w, &c, &err))
			die_code(EXIT_USAGE, "gpuscope estimate: %s", err.msg);
	}
	if (model_estimate(&w, &c, &r))
		die_usage("gpuscope estimate: this configuration cannot be evaluated");
	if (serving)
		r.mem = sv.at.mem;   /* memory as the engine holds it: its KV-cache blocks, one prefill chunk */
	if (c.task != MODEL_TASK_INFER)
		max_mb = model_max_micro_batch(&w, &c, c.global_batch / c.dp > 4096 ? 4096 : c.global_batch / c.dp);
	/* a serving engine sizes its batch to its KV cache: the serving model already checked the fit */
	if (serving)
		r.limits &= ~(unsigned)MODEL_LIMIT_CAPACITY;
	else if (!r.mem.fits)
		nfix = model_fit_advice(&w, &c, fix, sizeof(fix) / sizeof(fix[0]));
	nrec = model_recommend(&w, &c, rec, sizeof(rec) / sizeof(rec[0]));
	if (latency_target > 0) {
		if (c.task != MODEL_TASK_INFER)
			die_usage("gpuscope estimate: --latency-target applies to --task infer");
		/* served, the target sized the concurrency above (or failed there) */
		if (!serving)
			lat_batch = model_batch_for_latency(&w, &c, latency_target, (int)max_batch);
		if (!lat_batch)
			latency_missed(&w, &c);
	}
	if (rate > 0)
		rate_view(&c, &r, serving ? &sv : NULL, &q);
	if (json_flag) {
		print_json(&w, &c, &r, max_mb, fix, nfix, rec, nrec, lat_batch, serving ? &sv : NULL,
			   rate > 0 ? &q : NULL);
	} else {
		print_human(&w, &c, &r, max_mb, fix, nfix, rec, nrec, lat_batch, serving ? &sv : NULL,
			    rate > 0 ? &q : NULL);
	}
	return EXIT_OK;
}
