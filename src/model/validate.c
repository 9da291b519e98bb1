/*
 * Validation cases through the model.  Each case row becomes the request
 * estimate would build from the same flags (model_resolve() completes what
 * the row leaves empty), or for a microbenchmark the hardware figure it
 * measures; a value the model cannot express is a skip reason, never
 * ignored.
 */
#include "model/validate.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model/fitted.h"
#include "model/model.h"
#include "model/quant.h"
#include "model/serving.h"
#include "model/servesim.h"
#include "util/csv.h"
#include "util/num.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* The metrics a case may name, and the group each belongs to. */
static const struct {
	const char *name, *group;
} metrics[] = {
	{"hfu_tflops_per_gpu", "throughput"},
	{"mfu_tflops_per_gpu", "throughput"},
	{"mfu", "throughput"},
	{"step_time_s", "throughput"},
	{"tokens_per_s", "throughput"},
	{"tokens_per_s_per_gpu", "throughput"},
	{"samples_per_s", "throughput"},
	{"memory_gib_per_gpu", "memory"},
	{"first_token_ms", "latency"},
	{"token_latency_ms", "latency"},
	{"latency_ms", "latency"},
	{"hbm_gbps", "microbenchmark"},
	{"gemm_tflops", "microbenchmark"},
	{"allreduce_busbw_gbps", "microbenchmark"},
	{"h2d_gbps", "microbenchmark"},
};
#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))

static const char *const groups[] = {"throughput", "latency", "memory", "microbenchmark"};
static const char *const sets[] = {"fit", "holdout"};

#define GIB 1073741824.0

/* The metric's group, or NULL for a metric the model does not know. */
static const char *group_of(const char *metric)
{
	size_t k;
	for (k = 0; k < NMETRICS; k++)
		if (!strcmp(metrics[k].name, metric))
			return metrics[k].group;
	return NULL;
}

/* ---- one case row ---- */

/* One CSV row of a file, its cells looked up by column name. */
struct row {
	const struct csv_record *hdr, *rec;
	const char *file;
};

/* The index of the column of that name in the row, or -1 when the row has no such cell. */
static int cell_at(const struct row *r, const char *name)
{
	size_t i;
	for (i = 0; i < r->hdr->nfields; i++)
		if (!strcmp(r->hdr->fields[i], name))
			return i < r->rec->nfields ? (int)i : -1;
	return -1;
}

static const char *cell(const struct row *r, const char *name)
{
	int i = cell_at(r, name);
	return i >= 0 ? r->rec->fields[i] : "";
}

static int skip(struct strbuf *why, const char *fmt, ...) GS_PRINTF(2, 3);

/* Makes why the case's reason (replacing any note) and returns -1. */
static int skip(struct strbuf *why, const char *fmt, ...)
{
	va_list ap;
	strbuf_reset(why);
	va_start(ap, fmt);
	strbuf_vaddf(why, fmt, ap);
	va_end(ap);
	return -1;
}

/* A 0/1 column: -1 when empty, -2 when neither. */
static int bool_cell(const struct row *r, const char *name)
{
	const char *v = cell(r, name);
	if (!*v)
		return -1;
	return !strcmp(v, "1") ? 1 : !strcmp(v, "0") ? 0 : -2;
}

/* The count columns of a case, each read as the column of its name; 0 when empty. */
/* clang-format off */
#define COUNT_COLUMNS(X) \
	X(layers) \
	X(hidden) \
	X(heads) \
	X(kv_heads) \
	X(ffn_hidden) \
	X(vocab) \
	X(seq_len) \
	X(experts) \
	X(experts_active) \
	X(global_batch) \
	X(micro_batch) \
	X(tp) \
	X(pp) \
	X(dp) \
	X(ep) \
	X(vpp) \
	X(zero) \
	X(seq_parallel) \
	X(gpus) \
	X(gpus_per_node) \
	X(infer_batch) \
	X(prompt_len) \
	X(output_len) \
	X(head_dim) \
	X(requests) \
	X(max_seqs) \
	X(max_batched_tokens) \
	X(hsdp)
/* clang-format on */

struct counts {
#define COUNT_MEMBER(col) long col;
	COUNT_COLUMNS(COUNT_MEMBER)
#undef COUNT_MEMBER
};

/* Integer cell: 0 when empty; -1 (and the reason) when not a count. */
static int icell(const struct row *r, const char *name, long *v, struct strbuf *why)
{
	static const struct num_range count_range = {0, 1e9, NUM_WHOLE};
	const char *s = cell(r, name);
	char ignored[160];
	double d;
	*v = 0;
	if (!*s)
		return 0;
	if (num_parse(s, NULL, &count_range, &d, ignored, sizeof(ignored)))
		return skip(why, "column '%s': '%s' is not a count", name, s);
	*v = (long)d;
	return 0;
}

static int read_counts(const struct row *r, struct counts *n, struct strbuf *why)
{
#define COUNT_READ(col) \
	if (icell(r, #col, &n->col, why)) \
		return -1;
	COUNT_COLUMNS(COUNT_READ)
#undef COUNT_READ
	if (n->layers > 100000 || n->hidden > 10000000 || n->gpus > 1000000 || n->global_batch > 100000000)
		return skip(why, "a count is out of range");
	return 0;
}

/* A count the case gives, or MODEL_UNSET for an empty cell: the resolver completes it. */
static int given(const struct row *r, const char *col, long v)
{
	return *cell(r, col) ? (int)v : MODEL_UNSET;
}

/*
 * The GPU, precision and layout into a fresh request.  A layout of the case
 * is the case's; what it leaves empty stays unset, so the resolver completes
 * it as estimate would: GPUs without tp/pp/dp get the fastest layout that
 * fits, with its ZeRO stage and recompute where the case gives none.
 */
static int request_hardware(const struct catalog *cat, const struct row *r, const struct counts *n,
			    struct model_request *q, struct strbuf *why)
{
	const char *gpu = cell(r, "gpu"), *prec = cell(r, "precision");
	char msg[512];

	if (!*gpu)
		return skip(why, "no gpu given");
	model_request_init(q);
	q->gpu = catalog_gpu(cat, gpu, msg, sizeof(msg));
	if (!q->gpu)
		return skip(why, "%s", msg);
	if (*prec && (q->precision = model_precision_from_name(prec)) < 0)
		return skip(why, "unknown precision '%s'", prec);
	q->tp = given(r, "tp", n->tp);
	q->pp = given(r, "pp", n->pp);
	q->dp = given(r, "dp", n->dp);
	q->ep = given(r, "ep", n->ep);
	q->vpp = given(r, "vpp", n->vpp);
	q->gpus = given(r, "gpus", n->gpus);
	q->gpus_per_node = given(r, "gpus_per_node", n->gpus_per_node);
	q->zero = given(r, "zero", n->zero);
	q->hsdp = given(r, "hsdp", n->hsdp);
	q->seq_parallel = given(r, "seq_parallel", n->seq_parallel);
	q->global_batch = given(r, "global_batch", n->global_batch);
	q->micro_batch = given(r, "micro_batch", n->micro_batch);
	q->seq_len = given(r, "seq_len", n->seq_len);
	q->batch = given(r, "infer_batch", n->infer_batch);
	q->prompt_len = given(r, "prompt_len", n->prompt_len);
	q->output_len = given(r, "output_len", n->output_len);
	q->network = *cell(r, "network") ? cell(r, "network") : NULL;
	return 0;
}

/* A microbenchmark's case: its task is bench or its model names the benchmark. */
static int is_bench(const struct row *r)
{
	const char *model = cell(r, "model");
	return !strcmp(cell(r, "task"), "bench") || !strcmp(model, "gemm") || !strcmp(model, "hbm-stream") ||
	       !strcmp(model, "h2d-copy") || !strcmp(model, "nccl-allreduce");
}

/* All-reduce over every GPU of the case: the links between them (the case's network). */
static int allreduce_links(const struct catalog *cat, const struct row *r, long gpus, struct model_config *c,
			   struct strbuf *why)
{
	struct diag err;

	c->dp = c->gpus;
	diag_clear(&err);
	if (model_links_from_catalog(c, cat, NULL, cell(r, "network"), &err))
		return skip(why, "%s", err.msg);
	if (c->gpus > c->gpus_per_node && !(c->inter_gbps_per_gpu > 0))
		return skip(why, "no network given for %ld GPUs", gpus);
	return 0;
}

/*
 * The hardware figure a microbenchmark measures: a large square GEMM
 * (8192^3), HBM streaming, host-to-device copies, or NCCL all-reduce bus
 * bandwidth over the case's GPUs.  NaN (with the reason) when the
 * benchmark does not measure the metric or the catalog lacks the figure.
 */
static double predict_bench(const struct catalog *cat, const struct row *r, const struct model_request *q,
			    long gpus, const char *m, struct strbuf *why)
{
	const char *model = cell(r, "model");
	struct model_config c;
	double v;

	model_config_defaults(&c);
	c.gpu = q->gpu;
	c.precision = q->precision != MODEL_UNSET ? (enum model_precision)q->precision :
		      c.gpu->bf16_tflops > 0      ? MODEL_BF16 :
		      c.gpu->fp16_tflops > 0      ? MODEL_FP16 :
						    MODEL_FP32;
	c.gpus = q->gpus > 0 ? q->gpus : 1;
	c.gpus_per_node = q->gpus_per_node > 0 ? q->gpus_per_node : c.gpus < 8 ? c.gpus : 8;
	if (c.gpus_per_node > c.gpus)
		c.gpus_per_node = c.gpus;
	if (!strcmp(m, "gemm_tflops") && !strcmp(model, "gemm")) {
		v = model_gemm_tflops(c.gpu, c.precision, 8192, 8192, 8192);
	} else if (!strcmp(m, "hbm_gbps") && !strcmp(model, "hbm-stream")) {
		v = model_hbm_gbps(c.gpu);
	} else if (!strcmp(m, "h2d_gbps") && !strcmp(model, "h2d-copy")) {
		v = model_h2d_gbps(c.gpu);
	} else if (!strcmp(m, "allreduce_busbw_gbps") && !strcmp(model, "nccl-allreduce")) {
		if (allreduce_links(cat, r, gpus, &c, why))
			return NAN;
		v = model_allreduce_busbw_gbps(&c);
	} else {
		skip(why, "microbenchmark '%s' does not measure '%s'", model, m);
		return NAN;
	}
	if (!isfinite(v))
		skip(why, "the catalog lacks the figure this needs for %s", c.gpu->row.key);
	return v;
}

/* workload_from_dims() or workload_finish() failed: its field and message are the reason. */
static int workload_skip(const struct diag *err, struct strbuf *why)
{
	return skip(why, "%s: %s", err->field, err->msg);
}

/* model 'transformer': a GPT-style decoder (Megatron's GPT) given only by its dimensions. */
static int transformer_of_dims(const struct counts *n, struct workload *w, struct strbuf *why)
{
	struct workload_dims d;
	struct diag err;

	if (!n->layers || !n->hidden || !n->heads || !n->vocab)
		return skip(why, "model 'transformer' needs layers, hidden, heads and vocab");
	memset(&d, 0, sizeof(d));
	d.layers = (int)n->layers;
	d.hidden = (int)n->hidden;
	d.heads = (int)n->heads;
	d.kv_heads = (int)n->kv_heads;
	d.ffn_hidden = (int)(n->ffn_hidden ? n->ffn_hidden : 4 * n->hidden);
	d.vocab = (int)n->vocab;
	d.seq_len = (int)(n->seq_len ? n->seq_len : 2048);
	d.max_seq = d.seq_len;
	d.causal = 1;
	d.learned_pos = 1;
	d.has_bias = 1;
	d.dropout = 0.1;
	d.tied_embeddings = 1;
	d.experts = (int)n->experts;
	d.experts_active = (int)n->experts_active;
	diag_clear(&err);
	return workload_from_dims(w, "transformer", &d, &err) ? workload_skip(&err, why) : 0;
}

/* The dimension columns given over a transformer preset's; 1 when any was. */
static int override_dims(const struct counts *n, struct workload *w)
{
	if (!(n->layers || n->hidden || n->heads || n->kv_heads || n->ffn_hidden || n->vocab || n->experts ||
	      n->head_dim))
		return 0;
	if (n->layers)
		w->d.layers = (int)n->layers;
	if (n->hidden) {
		w->d.hidden = (int)n->hidden;
		w->d.head_dim = 0;
	}
	if (n->heads) {
		w->d.heads = (int)n->heads;
		w->d.head_dim = 0;
	}
	if (n->head_dim)
		w->d.head_dim = (int)n->head_dim;
	if (n->kv_heads)
		w->d.kv_heads = (int)n->kv_heads;
	else if (n->heads && w->d.kv_heads > w->d.heads)
		w->d.kv_heads = w->d.heads;
	if (n->ffn_hidden)
		w->d.ffn_hidden = (int)n->ffn_hidden;
	if (n->vocab)
		w->d.vocab = (int)n->vocab;
	if (n->experts) {
		w->d.experts = (int)n->experts;
		w->d.experts_active = (int)(n->experts_active ? n->experts_active : 2);
	}
	if (n->seq_len && n->seq_len > w->d.max_seq)
		w->d.max_seq = (int)n->seq_len;
	return 1;
}

/* A preset, its shape overridden by the dimension columns the case gives. */
static int preset_of_case(const char *model, const struct counts *n, struct workload *w, struct strbuf *why)
{
	struct diag err;

	diag_clear(&err);
	if (workload_preset(w, model, &err))
		return skip(why, "%s", err.msg);
	if (w->kind == WORKLOAD_TRANSFORMER && override_dims(n, w) && workload_finish(w, &err))
		return workload_skip(&err, why);
	if (n->seq_len && w->kind == WORKLOAD_TRANSFORMER && n->seq_len > w->d.max_seq && w->d.learned_pos)
		w->d.max_seq = (int)n->seq_len;
	return 0;
}

/* The case's network: a preset or a transformer by dimensions, and its tie_embeddings column. */
static int case_workload(const struct row *r, const struct counts *n, struct workload *w, struct strbuf *why)
{
	const char *model = cell(r, "model");
	int tie = bool_cell(r, "tie_embeddings");
	struct diag err;

	if (!strcmp(model, "transformer") ? transformer_of_dims(n, w, why) : preset_of_case(model, n, w, why))
		return -1;
	if (tie >= 0 && w->kind == WORKLOAD_TRANSFORMER && tie != w->d.tied_embeddings) {
		w->d.tied_embeddings = tie;
		diag_clear(&err);
		if (workload_finish(w, &err))
			return workload_skip(&err, why);
	}
	return 0;
}

/* Task and recompute; an inference case's batch is its global_batch when infer_batch is empty. */
static int request_task(const struct row *r, const struct counts *n, struct model_request *q, struct strbuf *why)
{
	const char *task = cell(r, "task"), *rc = cell(r, "recompute");

	if (*task && (q->task = model_task_from_name(task)) < 0)
		return skip(why, "unknown task '%s'", task);
	if (*rc && (q->recompute = model_recompute_from_name(rc)) < 0)
		return skip(why, "unknown recompute '%s'", rc);
	if (q->task == MODEL_TASK_INFER && q->batch == MODEL_UNSET && n->global_batch)
		q->batch = (int)n->global_batch;
	return 0;
}

/*
 * The second-edition columns (how the work is run) into the request, in
 * the order the reasons have always been given: flash attention, the named
 * choices, the 0/1 columns, the LoRA rank, then the checked-only columns.
 */
static int second_edition(const struct row *r, struct model_request *q, struct strbuf *why)
{
	const struct {
		const char *col;
		int (*from_name)(const char *);
		int *to;
		const char *valid; /* the reason's end */
	} named[] = {
		{"kv_precision", model_precision_from_name, &q->kv_precision, "is not bf16, fp16, fp8 or int8"},
		{"optimizer", model_optimizer_from_name, &q->optimizer, "is not modelled"},
		{"offload", model_offload_from_name, &q->offload, "is not none, optimizer or optimizer+params"},
		{"master_weights", model_master_from_name, &q->master, "is not fp32 or none"},
		{"lora_targets", model_lora_targets_from_name, &q->lora_targets,
		 "is not qv, qkv, qkvo, attn+mlp or all"},
		{"logits", model_logits_from_name, &q->logits, "is not fp32, bf16 or chunked"},
		/* the sixth edition: which ZeRO-3 */
		{"zero3_impl", model_zero3_impl_from_name, &q->zero3_impl, "is not fsdp or deepspeed-2021"},
		{"comm_overlap", model_overlap_from_name, &q->overlap, "is not grad, grad+param or grad+param+tp"},
	};
	const char *v;
	size_t k;
	int b, offload;

	if ((b = bool_cell(r, "flash_attention")) == -2)
		return skip(why, "flash_attention '%s' is not 0 or 1", cell(r, "flash_attention"));
	if (b >= 0)
		q->flash = b;
	for (k = 0; k < sizeof(named) / sizeof(named[0]); k++) {
		int e;
		v = cell(r, named[k].col);
		if (!*v)
			continue;
		if ((e = named[k].from_name(v)) < 0)
			return skip(why, "%s '%s' %s", named[k].col, v, named[k].valid);
		*named[k].to = e;
	}
	b = bool_cell(r, "optimizer_in_backward");
	offload = bool_cell(r, "activation_offload");
	if (b == -2 || offload == -2)
		return skip(why, "optimizer_in_backward and activation_offload are 0 or 1");
	if (b >= 0)
		q->optimizer_in_backward = b;
	if (offload >= 0)
		q->activation_offload = offload;
	v = cell(r, "lora_rank");
	if (*v) {
		char *end;
		long rank = strtol(v, &end, 10);
		if (*end || rank < 1 || rank > 65536)
			return skip(why, "lora_rank '%s' is not a rank", v);
		q->lora_rank = (int)rank;
	}
	v = cell(r, "memory_stat");
	if (*v && model_memory_stat_from_name(v) < 0)
		return skip(why, "memory_stat '%s' is not allocated, reserved or device", v);
	if (bool_cell(r, "tie_embeddings") == -2)
		return skip(why, "tie_embeddings '%s' is not 0 or 1", cell(r, "tie_embeddings"));
	/* the fourth edition: how ZeRO-3 shards (hsdp is read with the counts) */
	if ((b = bool_cell(r, "reshard_after_forward")) == -2)
		return skip(why, "reshard_after_forward '%s' is not 0 or 1", cell(r, "reshard_after_forward"));
	if (b >= 0)
		q->reshard_after_forward = b;
	/* the eleventh edition: torchao float8's fp8 weights kept for backward */
	if ((b = bool_cell(r, "fp8_saved_weights")) == -2)
		return skip(why, "fp8_saved_weights '%s' is not 0 or 1", cell(r, "fp8_saved_weights"));
	if (b >= 0)
		q->fp8_saved_weights = b;
	return 0;
}

/*
 * The gpu_memory_utilization column (seventh edition): the share of the GPU's
 * memory the run let its serving engine take, which sizes the KV cache.
 */
static int how_memory(const struct row *r, int serving, struct model_serving_opts *so, struct strbuf *why)
{
	static const struct num_range share = {0, 1, NUM_ABOVE_MIN};
	const char *s = cell(r, "gpu_memory_utilization");
	char ignored[160];

	if (!*s)
		return 0;
	if (!serving)
		return skip(why, "gpu_memory_utilization applies to a decoder served by a serving engine");
	if (num_parse(s, NULL, &share, &so->mem_fraction, ignored, sizeof(ignored)))
		return skip(why, "gpu_memory_utilization '%s' is not a share in (0, 1]", s);
	return 0;
}

/*
 * The channels_last, conv3d and cudnn_benchmark columns (eighth edition):
 * how cuDNN runs 3D convolutions.  channels_last and cudnn_benchmark are 0
 * or 1, conv3d current or legacy; the resolver turns them away from a
 * network without 3D convolutions.
 */
static int how_conv3d(const struct row *r, struct model_request *q, struct strbuf *why)
{
	const char *v = cell(r, "conv3d");
	int cl = bool_cell(r, "channels_last"), bench = bool_cell(r, "cudnn_benchmark");
	if (cl == -2 || bench == -2)
		return skip(why, "channels_last and cudnn_benchmark are 0 or 1");
	if (*v && (q->conv3d_legacy = model_conv3d_from_name(v)) < 0)
		return skip(why, "conv3d '%s' is not current or legacy", v);
	if (cl >= 0)
		q->channels_last = cl;
	if (bench >= 0)
		q->cudnn_benchmark = bench;
	return 0;
}

/*
 * The engine and batching columns.  Sets *serving when the case is a
 * decoder's inference that the serving model answers (continuous batching,
 * or a serving engine), with *so filled.
 */
static int how_engine(const struct row *r, const struct workload *w, struct model_request *q,
		      struct model_serving_opts *so, int *serving, struct strbuf *why)
{
	const char *eng = cell(r, "engine"), *bat = cell(r, "batching");
	int infer = q->task == MODEL_TASK_INFER;
	int decoder = w->kind == WORKLOAD_TRANSFORMER && w->d.causal;
	struct diag err;

	memset(so, 0, sizeof(*so));
	*serving = 0;
	if (*eng) {
		int e = model_engine_from_name(eng);
		if (e < 0)
			return skip(why, "unknown engine '%s'", eng);
		diag_clear(&err);
		if (model_engine_check(e, !infer, &err))
			return skip(why, "%s", err.msg);
		q->engine = e;
	}
	if (*bat && strcmp(bat, "static") && strcmp(bat, "continuous"))
		return skip(why, "unknown batching '%s' (static or continuous)", bat);
	if (*bat && !infer)
		return skip(why, "batching '%s' applies to inference", bat);
	if (*bat && !decoder)
		return skip(why, "batching '%s' applies to a decoder's generation; '%s' is not one", bat, w->name);
	/* an empty batch on a generation throughput case: what engines do, as many as fit */
	so->continuous = !strcmp(bat, "continuous") || (!*bat && infer && decoder && q->batch == MODEL_UNSET &&
							!strcmp(cell(r, "metric"), "tokens_per_s"));
	so->batch = so->continuous && q->batch != MODEL_UNSET ? q->batch : 0;
	*serving = infer && decoder &&
		   (so->continuous ||
		    (q->engine != MODEL_UNSET && model_engine_info((enum model_engine)q->engine)->serving));
	return how_memory(r, *serving, so, why);
}

/* The input_shape, weight_precision and quant_kernel (tenth edition) columns. */
static int how_stored(const struct row *r, const struct workload *w, struct model_request *q, struct strbuf *why)
{
	const char *shape = cell(r, "input_shape"), *wp = cell(r, "weight_precision");
	const char *qk = cell(r, "quant_kernel");
	int infer = q->task == MODEL_TASK_INFER, p;

	if (*shape) {
		if (w->kind != WORKLOAD_PER_SAMPLE)
			return skip(why, "input_shape applies to per-sample networks; '%s' is a transformer",
				    w->name);
		if (workload_parse_shape(shape, &q->input_elems, &q->input_dims))
			return skip(why, "input_shape '%s' is not like 224x224 or 128x128x128", shape);
	}
	if (*qk) {
		if (!infer)
			return skip(why, "quant_kernel '%s' applies to inference", qk);
		q->quant_kernel = strcmp(qk, "none") ? model_quant_kernel_from_name(qk) : MODEL_QUANT_NONE;
		if (q->quant_kernel == MODEL_QUANT_NONE && strcmp(qk, "none"))
			return skip(why, "quant_kernel '%s' is not one of none, %s", qk,
				    model_quant_kernel_names_text());
	}
	if (!*wp)
		return 0;
	p = model_precision_from_name(wp);
	if (p < 0 || p == MODEL_TF32 || p == MODEL_FP32)
		return skip(why,
			    "weight_precision '%s' is not one of bf16, fp16, fp8, int8, int4, nf4, nvfp4, mxfp4",
			    wp);
	if (!infer && p != q->precision) { /* by value: "fp4" names nvfp4 */
		/* a full fine-tune trains its weights at the working precision; LoRA's base is stored apart */
		if (q->task != MODEL_TASK_LORA && q->task != MODEL_TASK_QLORA)
			return skip(why,
				    "weight_precision '%s' differs from the training precision; only "
				    "inference and a LoRA/QLoRA base store weights apart",
				    wp);
		q->weight_precision = p;
	} else if (infer) {
		q->weight_precision = p;
	}
	return 0;
}

/* The metrics the serving model answers itself; 0 for the others, read from its estimate. */
static int serving_metric(const struct model_serving *sv, const struct model_config *c, const char *m, double *v)
{
	if (!strcmp(m, "tokens_per_s"))
		*v = sv->tokens_per_s;
	else if (!strcmp(m, "tokens_per_s_per_gpu"))
		*v = sv->tokens_per_s / c->gpus;
	else if (!strcmp(m, "samples_per_s"))
		*v = sv->requests_per_s;
	else if (!strcmp(m, "first_token_ms"))
		*v = sv->ttft_s * 1e3;
	else if (!strcmp(m, "token_latency_ms"))
		*v = sv->tpot_s * 1e3;
	else if (!strcmp(m, "latency_ms"))
		*v = sv->request_s * 1e3;
	else if (!strcmp(m, "step_time_s"))
		*v = sv->request_s;
	else
		return 0;
	return 1;
}

/* The memory figure the case measured: reserved (the allocator's peak) when it does not say. */
static double memory_gib(const struct row *r, const struct model_result *res)
{
	const char *stat = cell(r, "memory_stat");
	int st = *stat ? model_memory_stat_from_name(stat) : MODEL_MEM_RESERVED;
	return (st == MODEL_MEM_ALLOCATED ? res->mem.allocated_bytes :
		st == MODEL_MEM_DEVICE    ? res->mem.total_bytes :
					    res->mem.reserved_bytes) /
	       GIB;
}

/*
 * The metric from an estimate.  A training run predicted not to fit still
 * gets its prediction (the measured run did fit), noted in the reason.
 */
static double result_metric(const struct row *r, const struct model_result *res, const struct model_config *c,
			    const char *m, struct strbuf *why)
{
	int infer = c->task == MODEL_TASK_INFER;

	if (!strcmp(m, "memory_gib_per_gpu"))
		return memory_gib(r, res);
	if (infer && !strcmp(m, "first_token_ms"))
		return res->infer.prefill_s * 1e3;
	if (infer && !strcmp(m, "token_latency_ms"))
		return res->infer.decode_token_s * 1e3;
	if (infer && !strcmp(m, "latency_ms"))
		return res->infer.request_s * 1e3;
	if (!infer &&
	    (!strcmp(m, "first_token_ms") || !strcmp(m, "token_latency_ms") || !strcmp(m, "latency_ms"))) {
		skip(why, "metric '%s' needs task infer", m);
		return NAN;
	}
	if (!res->mem.fits && !infer)
		skip(why, "predicted not to fit (%.1f of %.1f GiB)", res->mem.total_bytes / GIB,
		     res->mem.capacity_bytes / GIB);
	if (!strcmp(m, "hfu_tflops_per_gpu"))
		return res->hfu_tflops_per_gpu;
	if (!strcmp(m, "mfu_tflops_per_gpu"))
		return res->mfu_tflops_per_gpu;
	if (!strcmp(m, "mfu"))
		return res->mfu;
	if (!strcmp(m, "step_time_s"))
		return infer ? res->infer.request_s : res->time.step_s;
	if (!strcmp(m, "tokens_per_s"))
		return res->tokens_per_s > 0 ? res->tokens_per_s : NAN;
	if (!strcmp(m, "tokens_per_s_per_gpu"))
		return res->tokens_per_s > 0 ? res->tokens_per_s / c->gpus : NAN;
	if (!strcmp(m, "samples_per_s"))
		return res->samples_per_s;
	skip(why, "metric '%s' does not apply to model '%s'", m, cell(r, "model"));
	return NAN;
}

/*
 * A cell of column `name` that is none of `valid`: a skip reason that says
 * where (file, line, byte column) and which field.
 */
static int bad_cell(const struct row *r, const char *name, const char *valid, struct strbuf *why)
{
	struct diag err;
	char msg[sizeof(err.file) + sizeof(err.msg) + 96];

	diag_set(&err, r->file, r->rec->line, r->rec->cols[cell_at(r, name)], name, "'%s' is not %s",
		 cell(r, name), valid);
	diag_format(&err, msg, sizeof(msg));
	return skip(why, "%s", msg);
}

/*
 * The mlm_head column (twelfth edition): where an encoder's masked-LM
 * pre-training ran its output layer.  A cell that is neither name is a skip
 * reason located by bad_cell().
 */
static int how_head(const struct row *r, struct model_request *q, struct strbuf *why)
{
	const char *v = cell(r, "mlm_head");
	int m;

	if (!*v)
		return 0;
	if ((m = model_mlm_head_from_name(v)) < 0)
		return bad_cell(r, "mlm_head", "masked or all", why);
	q->mlm_head = m;
	return 0;
}

/*
 * The autocast column (thirteenth edition): 1 when the run was eager
 * PyTorch under torch.autocast over fp32 weights, 0 or empty when its
 * activations were 16-bit.  Any other cell is a skip reason located by
 * bad_cell().
 */
static int how_autocast(const struct row *r, struct model_request *q, struct strbuf *why)
{
	int b = bool_cell(r, "autocast");

	if (b == -2)
		return bad_cell(r, "autocast", "0 or 1", why);
	if (b >= 0)
		q->autocast = b;
	return 0;
}

/* One statistic of a simulated distribution: the case's statistic column, the median when empty. */
static int sim_stat(const struct row *r, const struct servesim_dist *d, double *v, struct strbuf *why)
{
	const char *st = cell(r, "statistic");
	if (!*st || !strcmp(st, "p50"))
		*v = d->p50;
	else if (!strcmp(st, "mean"))
		*v = d->mean;
	else if (!strcmp(st, "p90"))
		*v = d->p90;
	else if (!strcmp(st, "p99"))
		*v = d->p99;
	else
		return skip(why, "statistic '%s' is not mean, p50, p90 or p99", st);
	return 0;
}

/* The metric from a simulated run (output tokens/s, requests/s, TTFT, TPOT, end to end). */
static double sim_metric(const struct row *r, const struct servesim_result *o, const struct model_config *c,
			 const char *m, struct strbuf *why)
{
	double v = NAN;
	if (!strcmp(m, "tokens_per_s"))
		return o->tokens_per_s;
	if (!strcmp(m, "tokens_per_s_per_gpu"))
		return o->tokens_per_s / c->gpus;
	if (!strcmp(m, "samples_per_s"))
		return o->requests_per_s;
	if (strcmp(m, "first_token_ms") && strcmp(m, "token_latency_ms") && strcmp(m, "latency_ms")) {
		skip(why, "metric '%s' is not one the serving simulation gives", m);
		return NAN;
	}
	if (sim_stat(r,
		     !strcmp(m, "first_token_ms")   ? &o->ttft :
		     !strcmp(m, "token_latency_ms") ? &o->tpot :
						      &o->e2e,
		     &v, why))
		return NAN;
	return v * 1e3;
}

/* The arrival columns: the load (spec, requests, lengths) a simulated case was run under. */
static int sim_load(const struct row *r, const struct counts *n, struct servesim_load *l, struct strbuf *why)
{
	const char *len = cell(r, "lengths");
	struct diag err;
	memset(l, 0, sizeof(*l));
	diag_clear(&err);
	if (servesim_load_parse(cell(r, "arrivals"), l, &err))
		return skip(why, "arrivals '%s' is not poisson:RATE, burst:N or closed:N", cell(r, "arrivals"));
	l->requests = (int)n->requests;
	if (l->kind != SERVESIM_BURST && l->requests < 1)
		return skip(why, "arrivals '%s' needs the requests column", cell(r, "arrivals"));
	l->seed = 1;
	if (!*len || !strcmp(len, "fixed"))
		l->lengths = SERVESIM_LEN_FIXED;
	else if (!strcmp(len, "uniform"))
		l->lengths = SERVESIM_LEN_UNIFORM;
	else if (!strcmp(len, "sharegpt"))
		l->lengths = SERVESIM_LEN_SHAREGPT;
	else
		return skip(why, "lengths '%s' is not fixed, uniform or sharegpt", len);
	return 0;
}

/*
 * A case with arrivals: one replica simulated request by request under its
 * engine release's scheduler (the table of the filter, else the shipped one),
 * the case's max_seqs, max_batched_tokens and memory share over the release's defaults.
 */
static double predict_sim(const struct row *r, const struct counts *n, const struct workload *w,
			  const struct model_config *c, const struct validate_filter *f, double mem_fraction,
			  const char *m, struct strbuf *why)
{
	const char *ver = cell(r, "engine_version");
	struct servesim_sched sc;
	struct servesim_load l;
	struct servesim_result o;
	struct servesim *sim;
	struct diag err;
	double v = NAN;

	if (sim_load(r, n, &l, why))
		return NAN;
	diag_clear(&err);
	if (f->engines ? servesim_sched_find_in(f->engines_name, f->engines, f->engines_len,
						model_engine_name(c->engine), *ver ? ver : NULL, &sc, &err) :
			 servesim_sched_find(model_engine_name(c->engine), *ver ? ver : NULL, &sc, &err)) {
		skip(why, "%s", err.msg);
		return NAN;
	}
	if (n->max_seqs)
		sc.max_seqs = (int)n->max_seqs;
	if (n->max_batched_tokens)
		sc.max_batched_tokens = (int)n->max_batched_tokens;
	sc.mem_fraction = mem_fraction;
	sim = servesim_new(w, c, &sc, &err);
	if (!sim || servesim_run(sim, &l, NULL, &o, &err))
		skip(why, "%s", err.msg);
	else
		v = sim_metric(r, &o, c, m, why);
	servesim_free(sim);
	servesim_sched_release(&sc);
	return v;
}

/*
 * A time to first token shorter than the prompt's own forward pass at the
 * GPUs' dense datasheet peak (model_prefill_floor_s) is not a cold prefill:
 * the prompts were found in a prefix cache, or the figure is misread.  It
 * says nothing of the model, so the case is skipped with the bound it
 * breaks (docs/validation.md, "Measurements past the peak").
 */
static int ttft_below_floor(const struct row *r, const struct workload *w, const struct model_config *c,
			    const char *m, struct strbuf *why)
{
	double measured = strtod(cell(r, "value"), NULL), floor_s;

	if (strcmp(m, "first_token_ms") || c->task != MODEL_TASK_INFER || !(measured > 0))
		return 0;
	floor_s = model_prefill_floor_s(w, c, c->prompt_len);
	if (!(measured * 1e-3 < floor_s))
		return 0;
	return skip(why,
		    "measured %.4g ms is below the %.4g ms a cold prefill of %d tokens takes at the dense %s peak "
		    "of %d %s (prefix-cache hits?)",
		    measured, floor_s * 1e3, c->prompt_len, model_precision_name(c->precision),
		    (c->tp > 1 ? c->tp : 1) * (c->pp > 1 ? c->pp : 1), c->gpu->row.key);
}

/* The request resolved as estimate resolves it, then estimated (or served) and the metric read. */
static double predict_model(const struct catalog *cat, const struct validate_filter *f, const struct row *r,
			    const struct counts *n, const struct workload *w, struct model_request *q,
			    const char *m, struct strbuf *why)
{
	struct model_serving_opts so;
	struct model_serving sv;
	struct model_config c;
	struct model_result res;
	struct diag err;
	int serving;
	double v;

	if (second_edition(r, q, why) || how_conv3d(r, q, why) || how_engine(r, w, q, &so, &serving, why) ||
	    how_stored(r, w, q, why) || how_head(r, q, why) || how_autocast(r, q, why))
		return NAN;
	diag_clear(&err);
	if (model_resolve(w, cat, q, &c, NULL, &err)) {
		skip(why, "%s", err.msg);
		return NAN;
	}
	if (ttft_below_floor(r, w, &c, m, why))
		return NAN;
	if (serving && *cell(r, "arrivals"))
		return predict_sim(r, n, w, &c, f, so.mem_fraction, m, why);
	if (*cell(r, "arrivals")) {
		skip(why, "arrivals apply to a decoder served by a serving engine");
		return NAN;
	}
	if (serving) {
		if (model_serving_estimate(w, &c, &so, &sv, &err)) {
			skip(why, "%s", err.msg);
			return NAN;
		}
		if (serving_metric(&sv, &c, m, &v))
			return v;
		res = sv.at;
	} else if (model_estimate(w, &c, &res)) {
		skip(why, "the model cannot evaluate this configuration");
		return NAN;
	}
	return result_metric(r, &res, &c, m, why);
}

/* The model's figure for one case's metric; NaN with the reason in why when it cannot say. */
static double predict(const struct catalog *cat, const struct validate_filter *f, const struct row *r,
		      const char *m, struct strbuf *why)
{
	struct counts n;
	struct model_request q;
	struct workload w;

	if (!group_of(m)) {
		/*
		 * A FLOP rate that does not say whether recomputation is counted is
		 * not guessed: the two conventions differ by a third under full
		 * recomputation (8 against 6 FLOPs per parameter and token).
		 */
		if (strstr(m, "flops") && !strstr(m, "mfu") && !strstr(m, "hfu"))
			skip(why,
			     "metric '%s' does not declare its FLOP convention: give mfu_tflops_per_gpu (model "
			     "FLOPs) or hfu_tflops_per_gpu (recomputation counted), or mfu",
			     m);
		else
			skip(why, "unknown metric '%s'", m);
		return NAN;
	}
	if (read_counts(r, &n, why) || request_hardware(cat, r, &n, &q, why))
		return NAN;
	if (is_bench(r))
		return predict_bench(cat, r, &q, n.gpus, m, why);
	if (case_workload(r, &n, &w, why) || request_task(r, &n, &q, why))
		return NAN;
	return predict_model(cat, f, r, &n, &w, &q, m, why);
}

/* ---- the file ---- */

void validate_source_key(const char *cell, struct strbuf *out)
{
	size_t n, k;

	strbuf_reset(out);
	cell += strspn(cell, " \t");
	/* "owner/name" of a repository: letters, digits, '-', '_', '.' on both sides of one '/' */
	n = strspn(cell, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.");
	if (n && cell[n] == '/') {
		k = strspn(cell + n + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.");
		if (k) {
			n += 1 + k;
			while (cell[n - 1] == '.')
				n--;
		} else {
			n = strcspn(cell, "(,;");
		}
	} else {
		n = strcspn(cell, "(,;");
	}
	while (n && (cell[n - 1] == ' ' || cell[n - 1] == '\t'))
		n--;
	if (n)
		strbuf_add(out, cell, n);
	else
		strbuf_addstr(out, "(none)");
}

/* One row into a case, predicted unless its value is not a measurement. */
static void read_case(const struct catalog *cat, const struct validate_filter *f, const struct row *r, int line,
		      struct validate_case *vc)
{
	/* every metric is a positive size, rate or time; a tiny one would make the error infinite */
	static const struct num_range measured_range = {1e-6, 1e15, 0};
	struct strbuf why = STRBUF_INIT;
	char msg[160];

	memset(vc, 0, sizeof(*vc));
	vc->id = xstrdup(*cell(r, "id") ? cell(r, "id") : "?");
	vc->metric = xstrdup(cell(r, "metric"));
	vc->model = xstrdup(cell(r, "model"));
	vc->cls = xstrdup(cell(r, "class"));
	vc->set = xstrdup(cell(r, "set"));
	validate_source_key(cell(r, "source"), &why);
	vc->source = strbuf_detach(&why, NULL);
	vc->fitted = !strcmp(vc->set, "fit") || fitted_on(vc->id, vc->set);
	vc->line = line;
	if (num_parse(cell(r, "value"), NULL, &measured_range, &vc->measured, msg, sizeof(msg))) {
		vc->measured = NAN;
		vc->predicted = NAN;
		strbuf_addf(&why, "line %d: value: %s", line, msg);
	} else {
		vc->predicted = predict(cat, f, r, vc->metric, &why);
		if (!isnan(vc->predicted) && *cell(r, "gpu")) {
			const struct model_calibration *cal = model_calibration_of(
				catalog_gpu(cat, cell(r, "gpu"), msg, sizeof(msg)));
			vc->calibration = cal ? cal->file : NULL;
		}
	}
	vc->reason = strbuf_detach(&why, NULL);
}

/* The header names every column a case needs. */
static int header_check(const struct csv_record *hdr, const char *file, struct diag *err)
{
	static const char *const required[] = {"id", "model", "metric", "value"};
	size_t k, j;

	for (k = 0; k < sizeof(required) / sizeof(required[0]); k++) {
		for (j = 0; j < hdr->nfields && strcmp(hdr->fields[j], required[k]); j++)
			;
		if (j == hdr->nfields)
			return diag_set(err, file, hdr->line, 1, NULL,
					"header lacks the column '%s' (needed: id, "
					"model, metric, value; see docs/model.md)",
					required[k]);
	}
	return 0;
}

/* The cases of the file that pass the filter, each predicted; -1 with err on a bad file. */
static int read_cases(const struct catalog *cat, const char *file, const char *data, size_t len,
		      const struct validate_filter *f, struct validate_result *res, struct diag *err)
{
	struct csv_reader *rd = csv_open(file, data, len, CSV_COMMENTS);
	struct csv_record rec, hdr;
	struct strbuf key = STRBUF_INIT;
	size_t cap = 0;
	int rc, have_header = 0;

	memset(&hdr, 0, sizeof(hdr));
	while ((rc = csv_next(rd, &rec, err)) > 0) {
		struct row r = {&hdr, &rec, file};
		if (!have_header) {
			csv_record_copy(&hdr, &rec);
			have_header = 1;
			if ((rc = header_check(&hdr, file, err)))
				break;
			continue;
		}
		if ((f->metric && strcmp(cell(&r, "metric"), f->metric)) ||
		    (f->set && strcmp(cell(&r, "set"), f->set)))
			continue;
		if (f->take) {
			validate_source_key(cell(&r, "source"), &key);
			if (!f->take(*cell(&r, "id") ? cell(&r, "id") : "?", cell(&r, "set"), strbuf_str(&key),
				     f->ctx))
				continue;
		}
		XGROW(res->cases, cap, res->ncases + 1);
		read_case(cat, f, &r, rec.line, &res->cases[res->ncases++]);
	}
	if (!rc && !have_header)
		rc = diag_set(err, file, 0, 0, NULL, "no header line");
	csv_free(rd);
	csv_record_release(&hdr);
	strbuf_release(&key);
	return rc < 0 ? -1 : 0;
}

/* ---- the summary ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int in_scope(const struct validate_case *c, enum validate_scope scope, const char *name, const char *set)
{
	const char *g;
	switch (scope) {
	case VALIDATE_METRIC:
		return !strcmp(c->metric, name);
	case VALIDATE_GROUP:
		g = group_of(c->metric);
		return g && !strcmp(g, name);
	case VALIDATE_CLASS:
		return !strcmp(c->cls, name);
	case VALIDATE_CLASS_SET:
		return !strcmp(c->cls, name) && !strcmp(c->set, set);
	case VALIDATE_SET:
		return !strcmp(c->set, name);
	case VALIDATE_SOURCE:
		return !strcmp(c->source, name);
	case VALIDATE_SAMPLE:
		return c->source_in_sample == !strcmp(name, "in");
	case VALIDATE_ALL:
	default:
		return 1;
	}
}

/* Median and worst |error| over the cases in one scope. */
static struct validate_stats stats_of(const struct validate_result *res, enum validate_scope scope,
				      const char *name, const char *set)
{
	struct validate_stats s = {scope, name, set, 0, 0, 0, NAN, NAN, NULL, -1};
	double *errs = xcalloc(res->ncases ? res->ncases : 1, sizeof(double));
	size_t i, n = 0;

	for (i = 0; i < res->ncases; i++) {
		const struct validate_case *c = &res->cases[i];
		if (!in_scope(c, scope, name, set))
			continue;
		s.cases++;
		if (scope == VALIDATE_SOURCE)
			s.in_sample = c->source_in_sample;
		if (isnan(c->predicted))
			continue;
		errs[n] = fabs(validate_error(c));
		s.within_20pct += errs[n] <= 0.2;
		if (isnan(s.worst_abs_error) || errs[n] > s.worst_abs_error) {
			s.worst_abs_error = errs[n];
			s.worst_id = c->id;
		}
		n++;
	}
	s.predicted = n;
	if (n) {
		qsort(errs, n, sizeof(double), cmp_double);
		s.median_abs_error = n % 2 ? errs[n / 2] : (errs[n / 2 - 1] + errs[n / 2]) / 2;
	}
	free(errs);
	return s;
}

/* Appends the scope's line when it has cases (or always, with keep). */
static void add_stats(struct validate_result *res, size_t *cap, enum validate_scope scope, const char *name,
		      const char *set, int keep)
{
	struct validate_stats s = stats_of(res, scope, name, set);
	if (!s.cases && !keep)
		return;
	XGROW(res->stats, *cap, res->nstats + 1);
	res->stats[res->nstats++] = s;
}

/* The first case of each class, in file order; 1 when case i is one. */
static int first_of_class(const struct validate_result *res, size_t i)
{
	size_t j;
	if (!res->cases[i].cls[0])
		return 0;
	for (j = 0; j < i; j++)
		if (!strcmp(res->cases[j].cls, res->cases[i].cls))
			return 0;
	return 1;
}

/* The first case of each source, in file order; 1 when case i is one. */
static int first_of_source(const struct validate_result *res, size_t i)
{
	size_t j;
	for (j = 0; j < i; j++)
		if (!strcmp(res->cases[j].source, res->cases[i].source))
			return 0;
	return 1;
}

/* Marks every case whose source has a fitted case; 1 when any case names a source. */
static int mark_sources(struct validate_result *res)
{
	size_t i, j;
	int named = 0;

	for (i = 0; i < res->ncases; i++) {
		struct validate_case *c = &res->cases[i];
		named |= strcmp(c->source, "(none)") != 0;
		if (!first_of_source(res, i))
			continue;
		for (j = i; j < res->ncases && !c->source_in_sample; j++)
			c->source_in_sample = res->cases[j].fitted && !strcmp(res->cases[j].source, c->source);
		for (j = i + 1; j < res->ncases; j++)
			if (!strcmp(res->cases[j].source, c->source))
				res->cases[j].source_in_sample = c->source_in_sample;
	}
	return named;
}

static void summarise(struct validate_result *res)
{
	size_t cap = 0, i, t, nclasses = 0;
	static const char *const samples[] = {"in", "out"};

	for (i = 0; i < NMETRICS; i++)
		add_stats(res, &cap, VALIDATE_METRIC, metrics[i].name, NULL, 0);
	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		add_stats(res, &cap, VALIDATE_GROUP, groups[i], NULL, 0);
	for (i = 0; i < res->ncases; i++) {
		if (!first_of_class(res, i))
			continue;
		nclasses++;
		add_stats(res, &cap, VALIDATE_CLASS, res->cases[i].cls, NULL, 1);
		for (t = 0; t < 2; t++)
			add_stats(res, &cap, VALIDATE_CLASS_SET, res->cases[i].cls, sets[t], 0);
	}
	for (t = 0; nclasses && t < 2; t++)
		add_stats(res, &cap, VALIDATE_SET, sets[t], NULL, 0);
	if (mark_sources(res)) {
		for (i = 0; i < res->ncases; i++)
			if (first_of_source(res, i))
				add_stats(res, &cap, VALIDATE_SOURCE, res->cases[i].source, NULL, 1);
		for (t = 0; t < 2; t++)
			add_stats(res, &cap, VALIDATE_SAMPLE, samples[t], NULL, 0);
	}
	add_stats(res, &cap, VALIDATE_ALL, NULL, NULL, 1);
}

struct validate_result *validate_run(const struct catalog *cat, const char *file, const char *data, size_t len,
				     const struct validate_filter *filter, struct diag *err)
{
	static const struct validate_filter all;
	struct validate_result *res = xcalloc(1, sizeof(*res));

	if (read_cases(cat, file, data, len, filter ? filter : &all, res, err)) {
		validate_result_free(res);
		return NULL;
	}
	summarise(res);
	return res;
}

void validate_result_free(struct validate_result *r)
{
	size_t i;
	if (!r)
		return;
	for (i = 0; i < r->ncases; i++) {
		free(r->cases[i].id);
		free(r->cases[i].model);
		free(r->cases[i].metric);
		free(r->cases[i].cls);
		free(r->cases[i].set);
		free(r->cases[i].reason);
		free(r->cases[i].source);
	}
	free(r->cases);
	free(r->stats);
	free(r);
}

double validate_error(const struct validate_case *c)
{
	return isnan(c->predicted) ? NAN : (c->predicted - c->measured) / c->measured;
}

/* ---- field tables ---- */

/*
 * A case, in the order of --json's objects.  measured and predicted are in
 * the metric's unit, which its name carries (tokens_per_s, latency_ms,
 * memory_gib_per_gpu ...): no one unit fits the column.
 */
#define VALIDATE_CASE_FIELDS(F) \
	F(id, TEXT, NULL, "case id (\"?\" when the file gives none)", c->id) \
	F(model, TEXT, NULL, "the case's model: a preset, `transformer` or a microbenchmark", c->model) \
	F(metric, TEXT, NULL, "what was measured; its name carries the unit", c->metric) \
	F(measured, NUM, NULL, \
	  "the published figure in the metric's unit; null when the value is not a positive number", c->measured) \
	F(predicted, NUM, NULL, "the model's figure in the metric's unit; null when the case is skipped", \
	  c->predicted) \
	F(error, NUM, "fraction", "(predicted - measured) / measured; null when skipped", validate_error(c)) \
	F(reason, TEXT, NULL, "why the case was skipped, or a note on its prediction; absent when none", \
	  c->reason[0] ? c->reason : NULL) \
	F(calibration, TEXT, NULL, \
	  "the calibration file whose measured ceilings timed it (docs/bench.md); absent: the catalog's", \
	  c->calibration)

/* The fields of a summary line and of the totals, each declared once. */
#define STATS_COUNTS(F) \
	F(cases, INT, NULL, "cases given", (double)s->cases) \
	F(predicted, INT, NULL, "cases the model predicted", (double)s->predicted)
#define STATS_WITHIN(F) \
	F(within_20pct, NUM, "fraction", "share of the predictions within 20 % of the measurement", \
	  s->predicted ? (double)s->within_20pct / s->predicted : NAN)
#define STATS_ERRORS(F) \
	F(coverage, NUM, "fraction", "cases predicted / cases given", \
	  s->cases ? (double)s->predicted / s->cases : NAN) \
	F(median_abs_error, NUM, "fraction", "median absolute error of the predictions", s->median_abs_error) \
	F(worst_abs_error, NUM, "fraction", "largest absolute error", s->worst_abs_error)
#define STATS_WORST(F) F(worst_id, TEXT, NULL, "id of the case with the largest absolute error", s->worst_id)

#define VALIDATE_STATS_FIELDS(F) STATS_COUNTS(F) STATS_WITHIN(F) STATS_ERRORS(F) STATS_WORST(F)
#define VALIDATE_SUMMARY_FIELDS(F) STATS_COUNTS(F) STATS_ERRORS(F)
#define VALIDATE_SOURCE_FIELDS(F) \
	F(source, TEXT, NULL, "the publication, as validate names it from the source column", s->name) \
	F(in_sample, BOOL, NULL, \
	  "true when a fitted constant of the model saw a case of this source (or it has fit-set rows)", \
	  s->in_sample > 0) \
	VALIDATE_STATS_FIELDS(F)

/* clang-format off */
REPORT_DEFINE(validate_case_schema, validate_case_row, "validate-case", struct validate_case, c,
	      VALIDATE_CASE_FIELDS)
REPORT_DEFINE(validate_stats_schema, validate_stats_row, "validate-stats", struct validate_stats, s,
	      VALIDATE_STATS_FIELDS)
REPORT_DEFINE(validate_summary_schema, validate_summary_row, "validate-summary", struct validate_stats, s,
	      VALIDATE_SUMMARY_FIELDS)
REPORT_DEFINE(validate_source_schema, validate_source_row, "validate-source", struct validate_stats, s,
	      VALIDATE_SOURCE_FIELDS)
/* clang-format on */
