/*
 * gpuscope estimate: memory, step time and throughput of one workload in one
 * configuration, with what bounds it and what would help.  The flags become
 * a model_request that the resolver completes (src/model/), the model and
 * the serving model answer, and view/estimate.c writes the answer (its
 * fields in docs/estimate.md).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/workload_opts.h"
#include "model/fields.h"
#include "model/lendist.h"
#include "model/model.h"
#include "model/servesim.h"
#include "model/serving.h"
#include "report/fmt.h"
#include "report/table.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "view/estimate.h"

/* model_engine_names_text(), as a constant the option table can hold */
#define ENGINE_NAMES "eager, hf, compile, cudagraphs, tensorrt, trtllm, vllm, sglang, lmdeploy or tgi"
enum {
	BATCHING_STATIC,
	BATCHING_CONTINUOUS
};

static int json_flag, list_models, seq_parallel, cuda_graphs;
static const char *gpu_s, *server_s, *network_s, *shape_s;
/* the named values; MODEL_UNSET when not given */
static int task = MODEL_UNSET, precision = MODEL_UNSET, recompute = MODEL_UNSET, optimizer = MODEL_UNSET,
	   offload = MODEL_UNSET, flash = MODEL_UNSET, kv_precision = MODEL_UNSET, loader = MODEL_UNSET,
	   cudnn_benchmark = MODEL_UNSET, engine = MODEL_UNSET, batching = MODEL_UNSET, reshard = MODEL_UNSET,
	   zero3_impl = MODEL_UNSET, overlap = MODEL_UNSET, fp8_saved = MODEL_UNSET;
static long hsdp;
static long gpus, gpus_per_node, tp, pp, dp, ep, etp, vpp, cp, zero = -1, micro_batch, batch, max_batch = 32;
static double cpu_cores, latency_target, ttft_target, tpot_target, rate;
static long max_seqs, mig;
/* the serving simulation (--arrivals) */
static const char *arrivals_s, *engine_version_s, *report_path, *lendist_path;
static int unpadded;
static long sim_requests, max_batched_tokens, sim_seed = 1;
static double sim_duration;
static int chunked = MODEL_UNSET, lengths = MODEL_UNSET, preemption = MODEL_UNSET;
static double host_gib;          /* host memory per server: --host-memory, else the server's */
static struct model_notes notes; /* what the resolver chose unasked */
static struct workload_opts wo = {.cmd = "estimate", .model_hint = "use --model", .output_len = -1};

static int on_off_from_name(const char *v)
{
	if (!strcmp(v, "on") || !strcmp(v, "1") || !strcmp(v, "true"))
		return 1;
	if (!strcmp(v, "off") || !strcmp(v, "0") || !strcmp(v, "false"))
		return 0;
	return -1;
}

static int lengths_from_name(const char *v)
{
	return !strcmp(v, "fixed")    ? SERVESIM_LEN_FIXED :
	       !strcmp(v, "uniform")  ? SERVESIM_LEN_UNIFORM :
	       !strcmp(v, "sharegpt") ? SERVESIM_LEN_SHAREGPT :
					-1;
}

static int preemption_from_name(const char *v)
{
	return !strcmp(v, "recompute") ? 0 : !strcmp(v, "swap") ? 1 : -1;
}

static int batching_from_name(const char *v)
{
	return !strcmp(v, "static") ? BATCHING_STATIC : !strcmp(v, "continuous") ? BATCHING_CONTINUOUS : -1;
}

static const struct opt estimate_opts[] = {
	OPT_GROUP_("workload"),
	WORKLOAD_OPT_MODEL(wo, "a preset (--list-models) or a Hugging Face config.json"),
	OPT_FLAG_("list-models", &list_models, "list the built-in workload presets"),
	WORKLOAD_OPT_TASK_ENUM(&task, "pretrain, finetune, lora, qlora or infer (default pretrain)"),
	WORKLOAD_OPT_DIMS(wo),
	OPT_GROUP_("hardware"),
	OPT_STRING_("gpu", &gpu_s, "NAME", "GPU (see 'gpuscope catalog gpus')"),
	OPT_INT_("gpus", &gpus, "N", "total GPUs (default tp x pp x dp)", 1, 1000000),
	OPT_INT_("gpus-per-node", &gpus_per_node, "N",
		 "GPUs per server (default the server's, or up to 8; GB200: up to 72)", 1, 1024),
	OPT_STRING_("server", &server_s, "NAME",
		    "server model: its GPU links and NICs (see 'gpuscope catalog servers')"),
	OPT_STRING_("network", &network_s, "SPEC",
		    "scale-out fabric per server: ib-hdr-8x200, roce-4x400, ib-ndr"),
	OPT_GROUP_("parallel layout and training"),
	OPT_ENUM_(
		"precision", &precision, "P",
		"fp32, tf32, fp16, bf16, fp8, nvfp4 (fp4), mxfp4 or int8 (TensorRT inference) (default bf16 where "
		"supported)",
		model_precision_from_name, "fp32, tf32, fp16, bf16, fp8, nvfp4, mxfp4, int8"),
	OPT_INT_("tp", &tp, "N", "tensor parallel degree", 1, 65536),
	OPT_INT_("pp", &pp, "N", "pipeline parallel degree", 1, 65536),
	OPT_INT_("dp", &dp, "N", "data parallel degree (default gpus / (tp x pp))", 1, 1000000),
	OPT_INT_("ep", &ep, "N", "expert parallel degree (folded over tp x cp x dp)", 1, 65536),
	OPT_INT_("etp", &etp, "N", "expert tensor parallel degree (default: --tp)", 1, 65536),
	OPT_INT_("vpp", &vpp, "N", "interleaved pipeline stages per GPU", 1, 1024),
	OPT_INT_("cp", &cp, "N", "context parallel: each sequence split over N GPUs (ring attention)", 1, 65536),
	OPT_INT_("zero", &zero, "0-3", "ZeRO stage (FSDP full sharding is 3)", 0, 3),
	OPT_INT_("hsdp", &hsdp, "N", "ZeRO-3 hybrid shard: shard over groups of N ranks, replicas all-reduce", 1,
		 1000000),
	OPT_ENUM_("reshard-after-forward", &reshard, "on|off",
		  "ZeRO-3: free gathered weights after forward (on, FSDP's default) or keep them for backward",
		  on_off_from_name, "on, off"),
	OPT_ENUM_("zero3-impl", &zero3_impl, "NAME",
		  "ZeRO-3 as PyTorch FSDP (fsdp) or DeepSpeed v0.3-0.5 (deepspeed-2021)",
		  model_zero3_impl_from_name, "fsdp, deepspeed-2021"),
	OPT_ENUM_("comm-overlap", &overlap, "WHAT",
		  "communication hidden behind compute: grad (default), grad+param (ZeRO-1/2 gathers), "
		  "grad+param+tp (and tensor-parallel collectives)",
		  model_overlap_from_name, "grad, grad+param, grad+param+tp"),
	OPT_ENUM_("fp8-saved-weights", &fp8_saved, "on|off",
		  "torchao float8: keep each fp8 weight for backward (before force_recompute_fp8_weight_in_bwd)",
		  on_off_from_name, "on, off"),
	OPT_ENUM_("recompute", &recompute, "MODE", "activation recompute: none, selective, selective-op or full",
		  model_recompute_from_name, "none, selective, selective-op, full"),
	OPT_FLAG_("seq-parallel", &seq_parallel, "sequence parallelism (with --tp)"),
	OPT_INT_("micro-batch", &micro_batch, "N", "samples per micro-batch", 1, 1000000),
	WORKLOAD_OPT_GLOBAL_BATCH(wo, "samples per optimizer step"),
	WORKLOAD_OPT_SEQ_LEN(wo),
	WORKLOAD_OPT_OPTIMIZER_ENUM(
		&optimizer,
		"adamw, adamw-bf16, adamw8bit, paged-adamw, paged-adamw8bit, adafactor, sgd-momentum, sgd"),
	OPT_ENUM_("offload", &offload, "WHAT", "optimizer or optimizer+params (to host memory)",
		  model_offload_from_name, "none, optimizer, optimizer+params"),
	OPT_ENUM_("flash-attention", &flash, "on|off", "fused attention (default on)", on_off_from_name,
		  "on, off"),
	WORKLOAD_OPT_LORA_RANK(wo),
	WORKLOAD_OPT_MEMORY(wo),
	OPT_GROUP_("inference"),
	OPT_INT_("batch", &batch, "N", "concurrent requests", 1, 1000000),
	WORKLOAD_OPT_PROMPT_LEN(wo),
	WORKLOAD_OPT_OUTPUT_LEN(wo),
	OPT_ENUM_("kv-cache-precision", &kv_precision, "P", "fp16, bf16, fp8, int8 or int4",
		  model_precision_from_name, "fp16, bf16, fp8, int8, int4"),
	OPT_DURATION_POSITIVE_("latency-target", &latency_target, "TIME",
			       "a request's latency to meet: the batch (or serving concurrency) that does (5ms)",
			       3600),
	OPT_INT_("max-batch", &max_batch, "N", "dynamic batching limit for --latency-target (32)", 1, 1000000),
	OPT_FLAG_("cuda-graphs", &cuda_graphs, "capture forward passes as CUDA Graphs"),
	OPT_ENUM_("engine", &engine, "NAME",
		  "eager, hf, compile, cudagraphs, tensorrt, trtllm, vllm, sglang, lmdeploy, tgi",
		  model_engine_from_name, ENGINE_NAMES),
	OPT_ENUM_("batching", &batching, "KIND", "continuous (serving engines' default) or static",
		  batching_from_name, "static, continuous"),
	OPT_INT_("max-seqs", &max_seqs, "N", "continuous batching: cap on running sequences", 1, 10000000),
	OPT_DURATION_POSITIVE_("ttft-target", &ttft_target, "TIME", "serving: time to first token to meet (200ms)",
			       3600),
	OPT_DURATION_POSITIVE_("tpot-target", &tpot_target, "TIME",
			       "serving: time per output token to meet (20ms)", 3600),
	OPT_POSITIVE_("rate", &rate, "REQ_PER_S", "requests/s: replicas, utilisation, p99 TTFT with queueing", 0,
		      1e9),
	OPT_GROUP_("serving simulation"),
	OPT_STRING_(
		"arrivals", &arrivals_s, "SPEC",
		"simulate requests: poisson:RATE, burst:N, closed:N or a CSV of arrival_s,prompt_tokens,output_tokens"),
	OPT_INT_("requests", &sim_requests, "N", "requests to simulate (default 1000; burst: N)", 1, 10000000),
	OPT_DURATION_POSITIVE_("duration", &sim_duration, "TIME", "stop arrivals after this long (10min)", 1e7),
	OPT_STRING_("engine-version", &engine_version_s, "V",
		    "the engine release whose scheduler runs (data/serve/engines.csv; default the newest)"),
	OPT_INT_("max-batched-tokens", &max_batched_tokens, "N", "tokens one engine iteration processes at most",
		 1, 10000000),
	OPT_ENUM_("chunked-prefill", &chunked, "on|off", "prompts in chunks beside decode (default the release's)",
		  on_off_from_name, "on, off"),
	OPT_ENUM_("preemption", &preemption, "KIND",
		  "a sequence preempted for cache room: recompute (its prompt again) or swap (its cache to host "
		  "memory and back); default the release's",
		  preemption_from_name, "recompute, swap"),
	OPT_ENUM_("lengths", &lengths, "KIND",
		  "prompt and output lengths: fixed, uniform or sharegpt (default fixed)", lengths_from_name,
		  "fixed, uniform, sharegpt"),
	OPT_STRING_("prompt-len-dist", &lendist_path, "FILE",
		    "offline forward passes over input lengths: a q,tokens quantile table"),
	OPT_FLAG_("unpadded", &unpadded, "with --prompt-len-dist: each input at its own length (TensorRT)"),
	OPT_INT_("seed", &sim_seed, "N", "the simulation's random seed (1)", 0, 2147483647),
	OPT_STRING_("report", &report_path, "FILE",
		    "write an HTML report of the run and its latency against load (8 simulated rates)"),
	OPT_GROUP_("other inputs"),
	OPT_STRING_("input-shape", &shape_s, "SHAPE", "per-sample input: 224x224, 128x128x128, 240000"),
	OPT_INT_("mig", &mig, "N", "run on an N-slice MIG instance (1g ... 7g) of the GPU", 1, 8),
	OPT_GROUP_("data and time to train"),
	WORKLOAD_OPT_TOKENS(wo, "tokens to train on (time to train)"),
	WORKLOAD_OPT_SAMPLES(wo, "samples per epoch (time to train)"),
	WORKLOAD_OPT_EPOCHS(wo),
	OPT_POSITIVE_("cpu-cores", &cpu_cores, "N", "CPU cores per server for data loading", 0, 100000),
	OPT_ENUM_("data-loader", &loader, "KIND", "cpu or dali", model_loader_from_name, "cpu, dali"),
	OPT_ENUM_("cudnn-benchmark", &cudnn_benchmark, "on|off", "cudnn.benchmark (default on)", on_off_from_name,
		  "on, off"),
	OPT_GROUP_("output"),
	OPT_FLAG_("json", &json_flag, "print JSON (fields in docs/estimate.md)"),
	CALIBRATION_OPTS,
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

/* --server and --gpu into the request: catalog rows, or die naming the flag. */
static void hardware_request(const struct catalog *cat, struct model_request *q)
{
	char why[1024];
	if (server_s) {
		q->server = catalog_server(cat, server_s, why, sizeof(why));
		if (!q->server)
			die_usage("gpuscope estimate: --server: %s", why);
	}
	if (!gpu_s && !q->server)
		die_usage("gpuscope estimate: give --gpu NAME (see 'gpuscope catalog gpus') or --server NAME");
	if (gpu_s) {
		q->gpu = catalog_gpu(cat, gpu_s, why, sizeof(why));
		if (!q->gpu)
			die_usage("gpuscope estimate: --gpu: %s", why);
	}
	if (q->gpu && q->server && q->server->gpu && strcmp(q->server->gpu, q->gpu->row.key))
		warning("server '%s' carries %s, not %s; using its links with %s", q->server->row.key,
			q->server->gpu, q->gpu->row.key, q->gpu->row.key);
	q->network = network_s;
}

/* The other flags into the request; what was not given stays MODEL_UNSET for the resolver. */
static void flags_request(struct model_request *q)
{
#define GIVEN(v) ((v) ? (int)(v) : MODEL_UNSET)
	q->task = task;
	q->precision = precision;
	q->recompute = recompute;
	q->optimizer = optimizer;
	q->offload = offload;
	q->kv_precision = kv_precision;
	q->loader = loader;
	q->flash = flash;
	q->cudnn_benchmark = cudnn_benchmark;
	q->engine = engine;
	q->tp = GIVEN(tp);
	q->pp = GIVEN(pp);
	q->dp = GIVEN(dp);
	q->ep = GIVEN(ep);
	q->etp = GIVEN(etp);
	q->vpp = GIVEN(vpp);
	q->cp = GIVEN(cp);
	q->gpus = GIVEN(gpus);
	q->gpus_per_node = GIVEN(gpus_per_node);
	q->micro_batch = GIVEN(micro_batch);
	q->batch = GIVEN(batch);
	q->seq_parallel = seq_parallel ? 1 : MODEL_UNSET;
	q->cuda_graphs = cuda_graphs ? 1 : MODEL_UNSET;
	q->zero = zero >= 0 ? (int)zero : MODEL_UNSET;
	q->hsdp = GIVEN(hsdp);
	q->reshard_after_forward = reshard;
	q->zero3_impl = zero3_impl;
	q->overlap = overlap;
	q->fp8_saved_weights = fp8_saved;
	if (mig)
		q->mig = (int)mig;
#undef GIVEN
	if (shape_s && workload_parse_shape(shape_s, &q->input_elems, &q->input_dims))
		die_usage("gpuscope estimate: --input-shape '%s' is not like 224x224, 128x128x128 or 240000",
			  shape_s);
	q->cpu_cores_per_node = cpu_cores > 0 ? cpu_cores : MODEL_UNSET;
	workload_opts_request(&wo, q);
}

/* Flags into a request; the resolver decides every default (model.h).  Dies on what cannot run. */
static void build_config(const struct catalog *cat, const struct workload *w, struct model_config *c)
{
	struct model_request q;
	struct diag err;

	model_request_init(&q);
	hardware_request(cat, &q);
	flags_request(&q);
	diag_clear(&err);
	if (model_resolve(w, cat, &q, c, &notes, &err)) {
		if (!strcmp(err.field, "network"))
			die_usage("gpuscope estimate: --%s: %s", err.field, err.msg);
		die_usage("gpuscope estimate: %s", err.msg);
	}
	warn_lifecycle(cat, c->gpu, q.server);
	host_gib = wo.host_memory_gib > 0            ? wo.host_memory_gib :
		   q.server && q.server->ram_gib > 0 ? q.server->ram_gib :
						       0;
	if ((c->offload != MODEL_OFFLOAD_NONE || c->activation_offload) && !(host_gib > 0))
		die_usage(
			"gpuscope estimate: --%s needs the host memory it fills: give --host-memory GIB "
			"(per server) or --server NAME",
			c->offload != MODEL_OFFLOAD_NONE ? "offload" : "activation-offload");
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

/*
 * Whether to answer with the serving model, and how: a decoder's inference
 * under a serving engine, continuous batching or a TTFT, TPOT or latency
 * target.  With none of --engine, --batch, --cuda-graphs, --batching,
 * --max-seqs and a target a decoder is served as engines do by default
 * (vLLM, continuous batching, as many sequences as the KV cache holds): what
 * "serving" means to an engineer; that returns -1, and a configuration that
 * cannot be served then gets the plain estimate (memory, what would fit)
 * instead of an error.
 */
static int serving_wanted(const struct workload *w, struct model_config *c, struct model_serving_opts *so)
{
	int decoder = w->kind == WORKLOAD_TRANSFORMER && w->d.causal && c->task == MODEL_TASK_INFER;
	int asked = engine >= 0 || batch || cuda_graphs;
	memset(so, 0, sizeof(*so));
	if (!decoder) {
		if (batching >= 0 || ttft_target > 0 || tpot_target > 0 || max_seqs)
			die_usage(
				"gpuscope estimate: --batching, --max-seqs, --ttft-target and --tpot-target apply to "
				"a decoder's inference (--task infer)");
		return 0;
	}
	/* serving targets or a sequence cap without an engine: the default engine serves them */
	if (!asked && batching != BATCHING_STATIC)
		c->engine = MODEL_ENGINE_VLLM;
	if (!asked && batching < 0 && !(ttft_target > 0) && !(tpot_target > 0) && !(latency_target > 0) &&
	    !max_seqs) {
		so->continuous = 1;
		return -1; /* served by default: falls back to the plain estimate when it cannot be served */
	}
	so->continuous = batching >= 0 ? batching == BATCHING_CONTINUOUS : model_engine_info(c->engine)->serving;
	so->batch = (int)batch;
	so->max_seqs = (int)max_seqs;
	so->ttft_target_s = ttft_target;
	so->tpot_target_s = tpot_target;
	so->latency_target_s = latency_target;
	if (so->continuous && !model_engine_info(c->engine)->serving)
		die_usage(
			"gpuscope estimate: continuous batching needs a serving engine (--engine vllm, sglang, "
			"trtllm, lmdeploy or tgi), not %s",
			model_engine_name(c->engine));
	return so->continuous || model_engine_info(c->engine)->serving || ttft_target > 0 || tpot_target > 0 ||
	       latency_target > 0;
}

/* The serving model's answer in *sv, or 0 when the plain estimate answers (c->batch: the concurrency). */
static int serve(const struct workload *w, struct model_config *c, struct model_serving *sv)
{
	struct model_serving_opts so;
	struct diag err;
	int serving = serving_wanted(w, c, &so);
	diag_clear(&err);
	if (serving && model_serving_estimate(w, c, &so, sv, &err)) {
		/* served by default but it does not fit: the plain estimate says why and what would */
		if (serving > 0)
			die_code(EXIT_USAGE, "gpuscope estimate: %s", err.msg);
		c->engine = MODEL_ENGINE_EAGER;
		return 0;
	}
	if (serving)
		c->batch = sv->concurrency;
	else if (batch && model_infer_batch_check(w, c, &err))
		/* an explicit batch that does not fit is refused with the largest that does */
		die_code(EXIT_USAGE, "gpuscope estimate: %s", err.msg);
	return serving != 0;
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
	char want[FMT_LEN], alone[FMT_LEN], worst[FMT_LEN];
	one.batch = 1;
	if (model_estimate(w, &one, &r1))
		die_usage("gpuscope estimate: this configuration cannot be evaluated");
	die_code(
		EXIT_USAGE,
		"gpuscope estimate: cannot meet the latency target of %s: one request alone takes %s, "
		"and under dynamic batching it may wait for the batch in flight (worst case %s); a faster GPU, more "
		"tensor parallelism or smaller weights would be needed",
		fmt_duration(latency_target, FMT_DURATION_PRECISE, want, sizeof(want)),
		fmt_duration(r1.infer.request_s, FMT_DURATION_PRECISE, alone, sizeof(alone)),
		fmt_duration(2 * r1.infer.request_s, FMT_DURATION_PRECISE, worst, sizeof(worst)));
}

/*
 * --rate: the configuration's replicas as queues (model_queue_at, the
 * queueing plan sizes replicas with): each of tp x pp x cp GPUs runs `slots`
 * requests at once, each held a request's life.  With --gpus or --dp the
 * replicas are the user's and a rate at or past their capacity is refused;
 * otherwise the fewest that carry the rate and, with --ttft-target, keep its
 * p99 within it (model_serving_replicas).
 */
static void rate_queue(const struct model_config *c, const struct model_result *r, const struct model_serving *sv,
		       struct model_queue *q)
{
	int slots = sv ? sv->concurrency : c->batch;
	double hold_s = sv ? sv->request_s : r->infer.request_s;
	double first_s = sv ? sv->ttft_s : r->infer.prefill_s;
	int replicas = c->dp;
	char b[FMT_LEN];

	if (c->task != MODEL_TASK_INFER)
		die_usage("gpuscope estimate: --rate %g: a request rate applies to --task infer", rate);
	if (!sv && !r->mem.fits)
		die_code(EXIT_USAGE,
			 "gpuscope estimate: --rate %g: cannot: the configuration does not fit (%.2f of %.2f "
			 "GiB per GPU); leave --rate out to see what would",
			 rate, r->mem.total_bytes / 1073741824.0, r->mem.capacity_bytes / 1073741824.0);
	if (slots < 1 || !(hold_s > 0))
		die_usage("gpuscope estimate: --rate %g: this configuration serves no requests", rate);
	if (!gpus && !dp) {
		/* as many replicas as the rate needs: compared as doubles, the count may not fit an int */
		double need = ceil(rate * hold_s / slots - 1e-9);
		if (!(need <= 1e6))
			die_usage(
				"gpuscope estimate: --rate %g: needs %.3g replicas of this configuration, more than "
				"1,000,000",
				rate, need);
		replicas = model_serving_replicas(rate, slots, hold_s, first_s, ttft_target,
						  need < 1 ? 1 : (int)need, 1000000, &q->ttft_p99_s);
	}
	model_queue_at(rate, replicas, slots, hold_s, first_s, q);
	if (!(q->utilisation < 1))
		die_code(EXIT_USAGE,
			 "gpuscope estimate: --rate %g: cannot: capacity is %.4g req/s (%d replica%s of "
			 "%d requests at once, %s each); give more --gpus or --dp, or leave both out to size them",
			 rate, q->capacity_per_s, replicas, replicas == 1 ? "" : "s", slots,
			 fmt_duration(hold_s, FMT_DURATION_PRECISE, b, sizeof(b)));
}

static void die_diag(const struct diag *err)
{
	char msg[1024];
	diag_format(err, msg, sizeof(msg));
	die_code(EXIT_USAGE, "gpuscope estimate: %s", msg);
}

/*
 * --arrivals: the request-level simulation of one replica under the
 * engine release's scheduler (model/servesim.h), the flags overriding the
 * release's defaults.  The scheduler's strings are owned by *s.
 */
#define REPORT_POINTS 8

static void simulate(const struct workload *w, const struct model_config *c, struct servesim_sched *s,
		     struct servesim_result *r, struct servesim_point *curve)
{
	struct servesim_load l;
	struct servesim_trace *trace = NULL;
	struct servesim_slo slo = {.ttft_s = ttft_target, .tpot_s = tpot_target};
	struct servesim *sim;
	struct diag err;
	diag_clear(&err);
	memset(&l, 0, sizeof(l));
	if (!model_engine_info(c->engine)->serving)
		die_usage(
			"gpuscope estimate: --arrivals simulates a serving engine (--engine vllm, sglang, trtllm, "
			"lmdeploy or tgi), not %s",
			model_engine_name(c->engine));
	if (servesim_sched_find(model_engine_name(c->engine), engine_version_s, s, &err) ||
	    servesim_load_open(arrivals_s, &l, &trace, &err))
		die_diag(&err);
	if (max_seqs)
		s->max_seqs = (int)max_seqs;
	if (max_batched_tokens)
		s->max_batched_tokens = (int)max_batched_tokens;
	if (chunked >= 0)
		s->chunked_prefill = chunked;
	if (preemption >= 0)
		s->swap = preemption;
	l.requests = sim_requests ? (int)sim_requests : l.kind == SERVESIM_TRACE ? 0 : 1000;
	if (l.kind == SERVESIM_BURST && !sim_requests)
		l.requests = l.count;
	l.duration_s = sim_duration;
	l.lengths = lengths >= 0 ? (enum servesim_lengths)lengths : SERVESIM_LEN_FIXED;
	l.seed = (unsigned long long)sim_seed;
	sim = servesim_new(w, c, s, &err);
	if (!sim || servesim_run(sim, &l, &slo, r, &err) ||
	    (report_path && servesim_curve(sim, &l, 0, REPORT_POINTS, curve, &err)))
		die_diag(&err);
	servesim_free(sim);
	servesim_trace_free(trace);
}

int cmd_estimate(int argc, char **argv)
{
	int n = parse_options_or_exit(&estimate_cmd, argc, argv);
	const struct catalog *cat;
	struct workload w;
	struct model_config c;
	struct model_result r;
	struct model_advice fix[8], rec[10];
	struct model_serving sv;
	struct model_queue q;
	struct servesim_sched sched;
	struct servesim_result sim;
	struct servesim_point curve[REPORT_POINTS];
	struct diag err;
	struct model_answer a = {.w = &w,
				 .c = &c,
				 .r = &r,
				 .notes = &notes,
				 .fix = fix,
				 .rec = rec,
				 .latency_batch = -1,
				 .latency_target_s = latency_target,
				 .ttft_target_s = ttft_target,
				 .tpot_target_s = tpot_target,
				 .arrivals = arrivals_s,
				 .replicas_given = gpus || dp};

	if (list_models) {
		view_estimate_presets(stdout);
		return EXIT_OK;
	}
	if (n > 0)
		die_usage("gpuscope estimate: unexpected argument '%s'; the workload is --model NAME", argv[0]);
	workload_opts_load(&wo, &w);
	cat = load_catalog_or_die();
	use_calibration_or_die("estimate", cat);
	build_config(cat, &w, &c);
	if (serve(&w, &c, &sv))
		a.sv = &sv;
	if (lendist_path || unpadded) {
		struct model_lendist *ld = NULL;
		if (!lendist_path)
			die_usage("gpuscope estimate: --unpadded goes with --prompt-len-dist FILE");
		if (model_lendist_read(lendist_path, &ld, &err) ||
		    model_estimate_lengths(&w, &c, ld, !unpadded, &r, &err))
			die_diag(&err);
		model_lendist_free(ld);
	} else if (model_estimate(&w, &c, &r))
		die_usage("gpuscope estimate: this configuration cannot be evaluated");
	if (a.sv) {
		r.mem = sv.at.mem; /* memory as the engine holds it: its KV-cache blocks, one prefill chunk */
		/* a serving engine sizes its batch to its KV cache: the serving model already checked the fit */
		r.limits &= ~(unsigned)MODEL_LIMIT_CAPACITY;
	}
	if (c.task != MODEL_TASK_INFER)
		a.max_micro_batch = model_max_micro_batch(&w, &c,
							  c.global_batch / c.dp > 4096 ? 4096 :
											 c.global_batch / c.dp);
	if (!a.sv && !r.mem.fits)
		a.nfix = model_fit_advice(&w, &c, fix, sizeof(fix) / sizeof(fix[0]));
	a.nrec = model_recommend(&w, &c, rec, sizeof(rec) / sizeof(rec[0]));
	if (latency_target > 0) {
		if (c.task != MODEL_TASK_INFER)
			die_usage("gpuscope estimate: --latency-target applies to --task infer");
		/* served, the target sized the concurrency above (or failed there) */
		if (!a.sv)
			a.latency_batch = model_batch_for_latency(&w, &c, latency_target, (int)max_batch);
		if (!a.latency_batch)
			latency_missed(&w, &c);
	}
	if (rate > 0) {
		rate_queue(&c, &r, a.sv, &q);
		a.q = &q;
	}
	memset(&sched, 0, sizeof(sched));
	if (arrivals_s) {
		if (!a.sv)
			die_usage(
				"gpuscope estimate: --arrivals simulates a decoder served with continuous batching "
				"(--task infer, a serving --engine)");
		simulate(&w, &c, &sched, &sim, curve);
		a.sim = &sim;
		a.sched = &sched;
	} else if (sim_requests || sim_duration > 0 || engine_version_s || max_batched_tokens || chunked >= 0 ||
		   lengths >= 0 || preemption >= 0) {
		die_usage(
			"gpuscope estimate: --requests, --duration, --engine-version, --max-batched-tokens, "
			"--chunked-prefill, --preemption and --lengths go with --arrivals");
	}
	if (report_path && !arrivals_s)
		die_usage("gpuscope estimate: --report draws a serving simulation: give --arrivals");
	a.host_gib = host_gib;
	if (json_flag) {
		json_t *o = view_estimate_json(&a);
		report_json_print(o);
		json_decref(o);
	} else {
		view_estimate_print(stdout, &a);
	}
	diag_clear(&err);
	if (report_path && view_estimate_report(&a, curve, REPORT_POINTS, report_path, &err))
		die_code(EXIT_ENV, "gpuscope estimate: --report: %s", err.msg);
	servesim_sched_release(&sched);
	model_advice_release(fix, a.nfix);
	model_advice_release(rec, a.nrec);
	model_notes_release(&notes);
	return EXIT_OK;
}
