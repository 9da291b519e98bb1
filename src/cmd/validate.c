/*
 * gpuscope validate: runs published measurements (cases, in the format of
 * docs/model.md "Validation cases") through the same model as estimate and
 * reports the error of every prediction, then per metric the median and
 * worst absolute error and the coverage.  With no file it uses the embedded
 * calibration set (data/cases/calibration.csv).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/embedded.h"
#include "cmd/cmd.h"
#include "model/model.h"
#include "model/serving.h"
#include "report/table.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/num.h"
#include "util/xalloc.h"

#define CAL_FILE "cases/calibration.csv"

static int json_flag, csv_flag;
static const char *metric_filter, *set_filter;

static const struct opt validate_opts[] = {
	OPT_STRING_("metric", &metric_filter, "NAME", "only cases of this metric"),
	OPT_STRING_("set", &set_filter, "NAME", "only cases whose set column is NAME (fit, holdout)"),
	OPT_GROUP_("output"),
	OPT_FLAG_("json", &json_flag, "print JSON: {cases: [...], summary: {...}}"),
	OPT_FLAG_("csv", &csv_flag, "print the cases as CSV"),
	OPT_END_(),
};

static const struct opts_cmd validate_cmd = {
	"validate",
	"[FILE.csv] [options]",
	"Predict published measurements with the model and report the errors.",
	"FILE.csv holds cases in the format described in docs/model.md (id, model,\n"
	"dimensions, task, layout, gpu, network, metric, value ...).  Without FILE the\n"
	"built-in calibration set is used.  error = (predicted - measured) / measured;\n"
	"a case the model cannot express is skipped with its reason and counts against\n"
	"coverage, not accuracy.\n",
	validate_opts,
};

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

struct vcase {
	char *id, *metric, *model;
	char *cls, *set;             /* the file's class and set columns ("" when absent) */
	double measured, predicted;  /* predicted NaN when skipped */
	char reason[1024];
	int line;
};

/* One CSV row as column-name lookups. */
struct row {
	const struct csv_record *hdr, *rec;
	const char *file;
};

static const char *cell(const struct row *r, const char *name)
{
	size_t i;
	for (i = 0; i < r->hdr->nfields; i++)
		if (!strcmp(r->hdr->fields[i], name))
			return i < r->rec->nfields ? r->rec->fields[i] : "";
	return "";
}

/* Integer cell: 0 when empty; -1 (and a reason) when not a count. */
static int icell(const struct row *r, const char *name, long *v, char *why, size_t len)
{
	static const struct num_range count_range = {0, 1e9, NUM_WHOLE};
	const char *s = cell(r, name);
	double d;
	*v = 0;
	if (!*s)
		return 0;
	if (num_parse(s, NULL, &count_range, &d, why, len)) {
		snprintf(why, len, "column '%s': '%s' is not a count", name, s);
		return -1;
	}
	*v = (long)d;
	return 0;
}

static int metric_known(const char *m)
{
	size_t i;
	for (i = 0; i < NMETRICS; i++)
		if (!strcmp(metrics[i].name, m))
			return 1;
	return 0;
}

/* A weight or KV precision column. */
static int precision_cell(const char *s)
{
	return model_precision_from_name(s);
}

/*
 * How the work ran: engine, batching, input_shape and weight_precision
 * into the request.  Sets *serving when the case is a decoder's inference
 * that the serving model answers (continuous batching, or a serving
 * engine), with *so filled.  A value the model cannot express is a skip
 * reason, never ignored.  Returns 0 or -1 with why.
 */
static int how_run(const struct row *r, const struct workload *w, struct model_request *q,
		   struct model_serving_opts *so, int *serving, char *why, size_t len)
{
	const char *eng = cell(r, "engine"), *bat = cell(r, "batching"), *shape = cell(r, "input_shape");
	const char *wp = cell(r, "weight_precision");
	int infer = q->task == MODEL_TASK_INFER;
	int decoder = w->kind == WORKLOAD_TRANSFORMER && w->d.causal;
	struct diag err;

	memset(so, 0, sizeof(*so));
	*serving = 0;
	if (*eng) {
		int e = model_engine_from_name(eng);
		if (e < 0) {
			snprintf(why, len, "unknown engine '%s'", eng);
			return -1;
		}
		diag_clear(&err);
		if (model_engine_check(e, !infer, &err)) {
			snprintf(why, len, "%s", err.msg);
			return -1;
		}
		q->engine = e;
	}
	if (*bat && strcmp(bat, "static") && strcmp(bat, "continuous")) {
		snprintf(why, len, "unknown batching '%s' (static or continuous)", bat);
		return -1;
	}
	if (*bat && !infer) {
		snprintf(why, len, "batching '%s' applies to inference", bat);
		return -1;
	}
	if (*bat && !decoder) {
		snprintf(why, len, "batching '%s' applies to a decoder's generation; '%s' is not one", bat, w->name);
		return -1;
	}
	/* an empty batch on a generation throughput case: what engines do, as many as fit */
	so->continuous = !strcmp(bat, "continuous") ||
			 (!*bat && infer && decoder && q->batch == MODEL_UNSET && !strcmp(cell(r, "metric"), "tokens_per_s"));
	so->batch = so->continuous && q->batch != MODEL_UNSET ? q->batch : 0;
	*serving = infer && decoder && (so->continuous || (q->engine != MODEL_UNSET &&
							    model_engine_info((enum model_engine)q->engine)->serving));
	if (*shape) {
		if (w->kind != WORKLOAD_PER_SAMPLE) {
			snprintf(why, len, "input_shape applies to per-sample networks; '%s' is a transformer", w->name);
			return -1;
		}
		if (workload_parse_shape(shape, &q->input_elems, &q->input_dims)) {
			snprintf(why, len, "input_shape '%s' is not like 224x224 or 128x128x128", shape);
			return -1;
		}
	}
	if (*wp) {
		int p = precision_cell(wp);
		if (p < 0 || p == MODEL_TF32 || p == MODEL_FP32) {
			snprintf(why, len, "weight_precision '%s' is not one of bf16, fp16, fp8, int8, int4, nf4", wp);
			return -1;
		}
		if (!infer && strcmp(wp, cell(r, "precision"))) {
			/* a full fine-tune trains its weights at the working precision; LoRA's base is stored apart */
			if (q->task != MODEL_TASK_LORA && q->task != MODEL_TASK_QLORA) {
				snprintf(why, len, "weight_precision '%s' differs from the training precision; only "
					 "inference and a LoRA/QLoRA base store weights apart", wp);
				return -1;
			}
			q->weight_precision = p;
		} else if (infer) {
			q->weight_precision = p;
		}
	}
	return 0;
}

/* A 0/1 column: -1 when empty, -2 when neither. */
static int bool_cell(const struct row *r, const char *name)
{
	const char *v = cell(r, name);
	if (!*v)
		return -1;
	return !strcmp(v, "1") ? 1 : !strcmp(v, "0") ? 0 : -2;
}

/*
 * The second-edition columns (how the work is run) into the request.  A
 * value the model cannot express is a skip reason, never ignored: returns
 * -1 with the reason.
 */
static int second_edition(const struct row *r, struct model_request *q, char *why, size_t len)
{
	const char *v;
	int b;

	if ((b = bool_cell(r, "flash_attention")) == -2) {
		snprintf(why, len, "flash_attention '%s' is not 0 or 1", cell(r, "flash_attention"));
		return -1;
	} else if (b >= 0) {
		q->flash = b;
	}
	v = cell(r, "kv_precision");
	if (*v && (q->kv_precision = model_precision_from_name(v)) < 0) {
		snprintf(why, len, "kv_precision '%s' is not bf16, fp16, fp8 or int8", v);
		return -1;
	}
	v = cell(r, "optimizer");
	if (*v && (q->optimizer = model_optimizer_from_name(v)) < 0) {
		snprintf(why, len, "optimizer '%s' is not modelled", v);
		return -1;
	}
	v = cell(r, "offload");
	if (*v && (q->offload = model_offload_from_name(v)) < 0) {
		snprintf(why, len, "offload '%s' is not none, optimizer or optimizer+params", v);
		return -1;
	}
	v = cell(r, "master_weights");
	if (*v && (q->master = model_master_from_name(v)) < 0) {
		snprintf(why, len, "master_weights '%s' is not fp32 or none", v);
		return -1;
	}
	v = cell(r, "lora_targets");
	if (*v && (q->lora_targets = model_lora_targets_from_name(v)) < 0) {
		snprintf(why, len, "lora_targets '%s' is not qv, qkv, qkvo, attn+mlp or all", v);
		return -1;
	}
	v = cell(r, "logits");
	if (*v && (q->logits = model_logits_from_name(v)) < 0) {
		snprintf(why, len, "logits '%s' is not fp32, bf16 or chunked", v);
		return -1;
	}
	if ((b = bool_cell(r, "optimizer_in_backward")) == -2 || (b >= 0 && (q->optimizer_in_backward = b, 0)) ||
	    (b = bool_cell(r, "activation_offload")) == -2 || (b >= 0 && (q->activation_offload = b, 0))) {
		snprintf(why, len, "optimizer_in_backward and activation_offload are 0 or 1");
		return -1;
	}
	v = cell(r, "lora_rank");
	if (*v) {
		char *end;
		long k = strtol(v, &end, 10);
		if (*end || k < 1 || k > 65536) {
			snprintf(why, len, "lora_rank '%s' is not a rank", v);
			return -1;
		}
		q->lora_rank = (int)k;
	}
	v = cell(r, "memory_stat");
	if (*v && model_memory_stat_from_name(v) < 0) {
		snprintf(why, len, "memory_stat '%s' is not allocated, reserved or device", v);
		return -1;
	}
	if (bool_cell(r, "tie_embeddings") == -2) {
		snprintf(why, len, "tie_embeddings '%s' is not 0 or 1", cell(r, "tie_embeddings"));
		return -1;
	}
	return 0;
}

static double predict(const struct catalog *cat, const struct row *r, struct vcase *vc)
{
	struct workload w;
	struct model_config c;
	struct model_request q;
	struct model_result res;
	struct model_serving_opts so;
	struct model_serving sv;
	struct diag err;
	char why[512];
	int serving = 0;
	const char *model = cell(r, "model"), *task_s = cell(r, "task"), *m = vc->metric;
	const char *gpu_s = cell(r, "gpu"), *prec = cell(r, "precision"), *rc = cell(r, "recompute");
	long layers, hidden, heads, kvh, ffn, vocab, seq, experts, eact, gb, mb, tp, pp, dp, ep, vpp, zero, sp;
	long gpus, gpn, ib, pl, ol;
	int bench = !strcmp(task_s, "bench") || !strcmp(model, "gemm") || !strcmp(model, "hbm-stream") ||
		    !strcmp(model, "h2d-copy") || !strcmp(model, "nccl-allreduce");

	diag_clear(&err);
	why[0] = '\0';
	if (!metric_known(m)) {
		snprintf(vc->reason, sizeof(vc->reason), "unknown metric '%s'", m);
		return NAN;
	}
	if (icell(r, "layers", &layers, why, sizeof(why)) || icell(r, "hidden", &hidden, why, sizeof(why)) ||
	    icell(r, "heads", &heads, why, sizeof(why)) || icell(r, "kv_heads", &kvh, why, sizeof(why)) ||
	    icell(r, "ffn_hidden", &ffn, why, sizeof(why)) || icell(r, "vocab", &vocab, why, sizeof(why)) ||
	    icell(r, "seq_len", &seq, why, sizeof(why)) || icell(r, "experts", &experts, why, sizeof(why)) ||
	    icell(r, "experts_active", &eact, why, sizeof(why)) ||
	    icell(r, "global_batch", &gb, why, sizeof(why)) || icell(r, "micro_batch", &mb, why, sizeof(why)) ||
	    icell(r, "tp", &tp, why, sizeof(why)) || icell(r, "pp", &pp, why, sizeof(why)) ||
	    icell(r, "dp", &dp, why, sizeof(why)) || icell(r, "ep", &ep, why, sizeof(why)) ||
	    icell(r, "vpp", &vpp, why, sizeof(why)) || icell(r, "zero", &zero, why, sizeof(why)) ||
	    icell(r, "seq_parallel", &sp, why, sizeof(why)) || icell(r, "gpus", &gpus, why, sizeof(why)) ||
	    icell(r, "gpus_per_node", &gpn, why, sizeof(why)) || icell(r, "infer_batch", &ib, why, sizeof(why)) ||
	    icell(r, "prompt_len", &pl, why, sizeof(why)) || icell(r, "output_len", &ol, why, sizeof(why))) {
		snprintf(vc->reason, sizeof(vc->reason), "%s", why);
		return NAN;
	}
	if (layers > 100000 || hidden > 10000000 || gpus > 1000000 || gb > 100000000) {
		snprintf(vc->reason, sizeof(vc->reason), "a count is out of range");
		return NAN;
	}

	if (!*gpu_s) {
		snprintf(vc->reason, sizeof(vc->reason), "no gpu given");
		return NAN;
	}
	model_request_init(&q);
	q.gpu = catalog_gpu(cat, gpu_s, why, sizeof(why));
	if (!q.gpu) {
		snprintf(vc->reason, sizeof(vc->reason), "%s", why);
		return NAN;
	}
	if (*prec) {
		q.precision = model_precision_from_name(prec);
		if (q.precision < 0) {
			snprintf(vc->reason, sizeof(vc->reason), "unknown precision '%s'", prec);
			return NAN;
		}
	}
#define GIVEN(v, col) (*cell(r, col) ? (int)(v) : MODEL_UNSET)
	q.tp = GIVEN(tp, "tp");
	q.pp = GIVEN(pp, "pp");
	q.dp = GIVEN(dp, "dp");
	q.ep = GIVEN(ep, "ep");
	q.vpp = GIVEN(vpp, "vpp");
	q.gpus = GIVEN(gpus, "gpus");
	q.gpus_per_node = GIVEN(gpn, "gpus_per_node");
	q.zero = GIVEN(zero, "zero");
	q.seq_parallel = GIVEN(sp, "seq_parallel");
	q.global_batch = GIVEN(gb, "global_batch");
	q.micro_batch = GIVEN(mb, "micro_batch");
	q.seq_len = GIVEN(seq, "seq_len");
	q.batch = GIVEN(ib, "infer_batch");
	q.prompt_len = GIVEN(pl, "prompt_len");
	q.output_len = GIVEN(ol, "output_len");
#undef GIVEN
	/*
	 * A layout of the case is the case's; what it leaves empty stays unset, so
	 * the resolver completes it as estimate would: GPUs without tp/pp/dp get
	 * the fastest layout that fits, with its ZeRO stage and recompute where
	 * the case gives none (model_resolve).
	 */
	q.network = *cell(r, "network") ? cell(r, "network") : NULL;

	if (bench) {
		double v = NAN;
		model_config_defaults(&c);
		c.gpu = q.gpu;
		c.precision = q.precision != MODEL_UNSET ? (enum model_precision)q.precision :
			      c.gpu->bf16_tflops > 0 ? MODEL_BF16 : c.gpu->fp16_tflops > 0 ? MODEL_FP16 : MODEL_FP32;
		c.gpus = q.gpus > 0 ? q.gpus : 1;
		c.gpus_per_node = q.gpus_per_node > 0 ? q.gpus_per_node : c.gpus < 8 ? c.gpus : 8;
		if (c.gpus_per_node > c.gpus)
			c.gpus_per_node = c.gpus;
		if (!strcmp(m, "gemm_tflops") && !strcmp(model, "gemm"))
			v = model_gemm_tflops(c.gpu, c.precision, 8192, 8192, 8192);
		else if (!strcmp(m, "hbm_gbps") && !strcmp(model, "hbm-stream"))
			v = model_hbm_gbps(c.gpu);
		else if (!strcmp(m, "h2d_gbps") && !strcmp(model, "h2d-copy"))
			v = model_h2d_gbps(c.gpu);
		else if (!strcmp(m, "allreduce_busbw_gbps") && !strcmp(model, "nccl-allreduce")) {
			c.dp = c.gpus;
			if (model_links_from_catalog(&c, cat, NULL, cell(r, "network"), &err)) {
				snprintf(vc->reason, sizeof(vc->reason), "%s", err.msg);
				return NAN;
			}
			if (c.gpus > c.gpus_per_node && !(c.inter_gbps_per_gpu > 0)) {
				snprintf(vc->reason, sizeof(vc->reason), "no network given for %ld GPUs", gpus);
				return NAN;
			}
			v = model_allreduce_busbw_gbps(&c);
		} else {
			snprintf(vc->reason, sizeof(vc->reason), "microbenchmark '%s' does not measure '%s'", model, m);
			return NAN;
		}
		if (!isfinite(v))
			snprintf(vc->reason, sizeof(vc->reason), "the catalog lacks the figure this needs for %s",
				 c.gpu->row.key);
		return v;
	}

	/* the workload */
	if (!strcmp(model, "transformer")) {
		struct workload_dims d;
		memset(&d, 0, sizeof(d));
		if (!layers || !hidden || !heads || !vocab) {
			snprintf(vc->reason, sizeof(vc->reason),
				 "model 'transformer' needs layers, hidden, heads and vocab");
			return NAN;
		}
		d.layers = (int)layers;
		d.hidden = (int)hidden;
		d.heads = (int)heads;
		d.kv_heads = (int)kvh;
		d.ffn_hidden = (int)(ffn ? ffn : 4 * hidden);
		d.vocab = (int)vocab;
		d.seq_len = (int)(seq ? seq : 2048);
		d.max_seq = d.seq_len;
		d.causal = 1;
		/* a transformer given only by dimensions is a GPT-style decoder (Megatron's GPT) */
		d.learned_pos = 1;
		d.has_bias = 1;
		d.dropout = 0.1;
		d.tied_embeddings = 1;
		d.experts = (int)experts;
		d.experts_active = (int)eact;
		if (workload_from_dims(&w, "transformer", &d, &err)) {
			snprintf(vc->reason, sizeof(vc->reason), "%s: %s", err.field, err.msg);
			return NAN;
		}
	} else {
		if (workload_preset(&w, model, &err)) {
			snprintf(vc->reason, sizeof(vc->reason), "%s", err.msg);
			return NAN;
		}
		if (w.kind == WORKLOAD_TRANSFORMER && (layers || hidden || heads || kvh || ffn || vocab || experts)) {
			if (layers)
				w.d.layers = (int)layers;
			if (hidden) {
				w.d.hidden = (int)hidden;
				w.d.head_dim = 0;
			}
			if (heads) {
				w.d.heads = (int)heads;
				w.d.head_dim = 0;
			}
			if (kvh)
				w.d.kv_heads = (int)kvh;
			else if (heads && w.d.kv_heads > w.d.heads)
				w.d.kv_heads = w.d.heads;
			if (ffn)
				w.d.ffn_hidden = (int)ffn;
			if (vocab)
				w.d.vocab = (int)vocab;
			if (experts) {
				w.d.experts = (int)experts;
				w.d.experts_active = (int)(eact ? eact : 2);
			}
			if (seq && seq > w.d.max_seq)
				w.d.max_seq = (int)seq;
			if (workload_finish(&w, &err)) {
				snprintf(vc->reason, sizeof(vc->reason), "%s: %s", err.field, err.msg);
				return NAN;
			}
		}
		if (seq && w.kind == WORKLOAD_TRANSFORMER && seq > w.d.max_seq && w.d.learned_pos)
			w.d.max_seq = (int)seq;
	}

	{
		int tie = bool_cell(r, "tie_embeddings");
		if (tie >= 0 && w.kind == WORKLOAD_TRANSFORMER && tie != w.d.tied_embeddings) {
			w.d.tied_embeddings = tie;
			if (workload_finish(&w, &err)) {
				snprintf(vc->reason, sizeof(vc->reason), "%s: %s", err.field, err.msg);
				return NAN;
			}
		}
	}
	if (*task_s) {
		q.task = model_task_from_name(task_s);
		if (q.task < 0) {
			snprintf(vc->reason, sizeof(vc->reason), "unknown task '%s'", task_s);
			return NAN;
		}
	}
	if (*rc) {
		q.recompute = model_recompute_from_name(rc);
		if (q.recompute < 0) {
			snprintf(vc->reason, sizeof(vc->reason), "unknown recompute '%s'", rc);
			return NAN;
		}
	}
	if (q.task == MODEL_TASK_INFER && q.batch == MODEL_UNSET && gb)
		q.batch = (int)gb;
	if (second_edition(r, &q, vc->reason, sizeof(vc->reason)) ||
	    how_run(r, &w, &q, &so, &serving, vc->reason, sizeof(vc->reason)))
		return NAN;
	if (model_resolve(&w, cat, &q, &c, NULL, &err)) {
		snprintf(vc->reason, sizeof(vc->reason), "%s", err.msg);
		return NAN;
	}
	if (serving) {
		if (model_serving_estimate(&w, &c, &so, &sv, &err)) {
			snprintf(vc->reason, sizeof(vc->reason), "%s", err.msg);
			return NAN;
		}
		if (!strcmp(m, "tokens_per_s"))
			return sv.tokens_per_s;
		if (!strcmp(m, "tokens_per_s_per_gpu"))
			return sv.tokens_per_s / c.gpus;
		if (!strcmp(m, "samples_per_s"))
			return sv.requests_per_s;
		if (!strcmp(m, "first_token_ms"))
			return sv.ttft_s * 1e3;
		if (!strcmp(m, "token_latency_ms"))
			return sv.tpot_s * 1e3;
		if (!strcmp(m, "latency_ms") || !strcmp(m, "step_time_s"))
			return sv.request_s * (strcmp(m, "latency_ms") ? 1 : 1e3);
		res = sv.at;
	} else if (model_estimate(&w, &c, &res)) {
		snprintf(vc->reason, sizeof(vc->reason), "the model cannot evaluate this configuration");
		return NAN;
	}
	if (!strcmp(m, "memory_gib_per_gpu")) {
		/* the statistic the figure is: reserved when the case does not say */
		int st = *cell(r, "memory_stat") ? model_memory_stat_from_name(cell(r, "memory_stat")) : MODEL_MEM_RESERVED;
		return (st == MODEL_MEM_ALLOCATED ? res.mem.allocated_bytes :
			st == MODEL_MEM_DEVICE ? res.mem.total_bytes : res.mem.reserved_bytes) / 1073741824.0;
	}
	if (c.task == MODEL_TASK_INFER) {
		if (!strcmp(m, "first_token_ms"))
			return res.infer.prefill_s * 1e3;
		if (!strcmp(m, "token_latency_ms"))
			return res.infer.decode_token_s * 1e3;
		if (!strcmp(m, "latency_ms"))
			return res.infer.request_s * 1e3;
	} else if (!strcmp(m, "first_token_ms") || !strcmp(m, "token_latency_ms") || !strcmp(m, "latency_ms")) {
		snprintf(vc->reason, sizeof(vc->reason), "metric '%s' needs task infer", m);
		return NAN;
	}
	if (!res.mem.fits && c.task != MODEL_TASK_INFER) {
		/* a measured run did fit: the prediction still stands, flagged in the reason */
		snprintf(vc->reason, sizeof(vc->reason), "predicted not to fit (%.1f of %.1f GiB)",
			 res.mem.total_bytes / 1073741824.0, res.mem.capacity_bytes / 1073741824.0);
	}
	if (!strcmp(m, "hfu_tflops_per_gpu"))
		return res.hfu_tflops_per_gpu;
	if (!strcmp(m, "mfu_tflops_per_gpu"))
		return res.mfu_tflops_per_gpu;
	if (!strcmp(m, "mfu"))
		return res.mfu;
	if (!strcmp(m, "step_time_s"))
		return c.task == MODEL_TASK_INFER ? res.infer.request_s : res.time.step_s;
	if (!strcmp(m, "tokens_per_s"))
		return res.tokens_per_s > 0 ? res.tokens_per_s : NAN;
	if (!strcmp(m, "tokens_per_s_per_gpu"))
		return res.tokens_per_s > 0 ? res.tokens_per_s / c.gpus : NAN;
	if (!strcmp(m, "samples_per_s"))
		return res.samples_per_s;
	snprintf(vc->reason, sizeof(vc->reason), "metric '%s' does not apply to model '%s'", m, model);
	return NAN;
}

/* ------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct stats {
	size_t given, predicted, within20;  /* within20: predictions within 20 % of the measurement */
	double median, worst;
	const char *worst_id;
};

/* Median and worst |error| over the cases of a class (and set, when not NULL). */
static struct stats stats_where(const struct vcase *cs, size_t n, const char *m, const char *g,
				const char *cls, const char *set);

/* Median and worst |error| over the cases matching metric m (or group g). */
static struct stats stats_of(const struct vcase *cs, size_t n, const char *m, const char *g)
{
	return stats_where(cs, n, m, g, NULL, NULL);
}

static struct stats stats_where(const struct vcase *cs, size_t n, const char *m, const char *g,
				const char *cls, const char *set)
{
	struct stats s = {0, 0, 0, NAN, NAN, NULL};
	double *errs = xcalloc(n ? n : 1, sizeof(double));
	size_t i, k;
	for (i = 0; i < n; i++) {
		const char *grp = NULL;
		for (k = 0; k < NMETRICS; k++)
			if (!strcmp(metrics[k].name, cs[i].metric))
				grp = metrics[k].group;
		if (m && strcmp(cs[i].metric, m))
			continue;
		if (g && (!grp || strcmp(grp, g)))
			continue;
		if (cls && strcmp(cs[i].cls, cls))
			continue;
		if (set && strcmp(cs[i].set, set))
			continue;
		s.given++;
		if (isnan(cs[i].predicted))
			continue;
		errs[s.predicted] = fabs((cs[i].predicted - cs[i].measured) / cs[i].measured);
		s.within20 += errs[s.predicted] <= 0.2;
		if (isnan(s.worst) || errs[s.predicted] > s.worst) {
			s.worst = errs[s.predicted];
			s.worst_id = cs[i].id;
		}
		s.predicted++;
	}
	if (s.predicted) {
		qsort(errs, s.predicted, sizeof(double), cmp_double);
		s.median = s.predicted % 2 ? errs[s.predicted / 2] :
			   (errs[s.predicted / 2 - 1] + errs[s.predicted / 2]) / 2;
	}
	free(errs);
	return s;
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *stats_json(struct stats s)
{
	return json_pack("{s:i, s:i, s:o, s:o, s:o, s:o, s:o}", "cases", (json_int_t)s.given,
			 "predicted", (json_int_t)s.predicted,
			 "within_20pct", jnum(s.predicted ? (double)s.within20 / s.predicted : NAN),
			 "coverage", jnum(s.given ? (double)s.predicted / s.given : NAN),
			 "median_abs_error", jnum(s.median), "worst_abs_error", jnum(s.worst),
			 "worst_id", s.worst_id ? json_string(s.worst_id) : json_null());
}

static void stats_row(struct table *tb, const char *name, struct stats s)
{
	char b[64];
	table_row(tb);
	table_cell(tb, name);
	table_cellf(tb, "%zu/%zu", s.predicted, s.given);
	table_cell(tb, fmt_num(100 * s.median, 1, b, sizeof(b)));
	table_cell(tb, s.predicted ? fmt_num(100.0 * s.within20 / s.predicted, 0, b, sizeof(b)) : "-");
	table_cell(tb, fmt_num(100 * s.worst, 1, b, sizeof(b)));
	table_cell(tb, s.worst_id ? s.worst_id : "-");
}

/* Distinct non-empty class names in file order; returns how many (<= max). */
static size_t classes_of(const struct vcase *cs, size_t n, const char **out, size_t max)
{
	size_t i, k, m = 0;
	for (i = 0; i < n; i++) {
		if (!cs[i].cls[0])
			continue;
		for (k = 0; k < m && strcmp(out[k], cs[i].cls); k++)
			;
		if (k == m && m < max)
			out[m++] = cs[i].cls;
	}
	return m;
}

static const char *const sets[] = {"fit", "holdout"};

static void report(const struct vcase *cs, size_t n, enum output_format fmt)
{
	const char *cls[32];
	size_t ncls = classes_of(cs, n, cls, 32), ci, t;
	static const char *const groups[] = {"throughput", "latency", "memory", "microbenchmark"};
	struct table *tb;
	size_t i, k;
	char b[64];

	if (fmt == FORMAT_JSON) {
		json_t *o = json_object(), *arr = json_array(), *sum = json_object(), *ms = json_object(),
		       *gs = json_object();
		struct stats all = stats_of(cs, n, NULL, NULL);
		for (i = 0; i < n; i++) {
			json_t *c = json_object();
			json_object_set_new(c, "id", json_string(cs[i].id));
			json_object_set_new(c, "model", json_string(cs[i].model));
			json_object_set_new(c, "metric", json_string(cs[i].metric));
			json_object_set_new(c, "measured", jnum(cs[i].measured));
			json_object_set_new(c, "predicted", jnum(cs[i].predicted));
			json_object_set_new(c, "error", isnan(cs[i].predicted) ? json_null() :
					    jnum((cs[i].predicted - cs[i].measured) / cs[i].measured));
			if (cs[i].reason[0])
				json_object_set_new(c, "reason", json_string(cs[i].reason));
			json_array_append_new(arr, c);
		}
		for (k = 0; k < NMETRICS; k++) {
			struct stats s = stats_of(cs, n, metrics[k].name, NULL);
			if (s.given)
				json_object_set_new(ms, metrics[k].name, stats_json(s));
		}
		for (k = 0; k < sizeof(groups) / sizeof(groups[0]); k++) {
			struct stats s = stats_of(cs, n, NULL, groups[k]);
			if (s.given)
				json_object_set_new(gs, groups[k], stats_json(s));
		}
		json_object_set_new(sum, "cases", json_integer((json_int_t)all.given));
		json_object_set_new(sum, "predicted", json_integer((json_int_t)all.predicted));
		json_object_set_new(sum, "coverage", jnum(all.given ? (double)all.predicted / all.given : NAN));
		json_object_set_new(sum, "median_abs_error", jnum(all.median));
		json_object_set_new(sum, "worst_abs_error", jnum(all.worst));
		json_object_set_new(sum, "metrics", ms);
		json_object_set_new(sum, "groups", gs);
		if (ncls) {
			json_t *co = json_object(), *so = json_object();
			for (ci = 0; ci < ncls; ci++) {
				json_t *x = stats_json(stats_where(cs, n, NULL, NULL, cls[ci], NULL));
				for (t = 0; t < 2; t++) {
					struct stats st = stats_where(cs, n, NULL, NULL, cls[ci], sets[t]);
					if (st.given)
						json_object_set_new(x, sets[t], stats_json(st));
				}
				json_object_set_new(co, cls[ci], x);
			}
			for (t = 0; t < 2; t++) {
				struct stats st = stats_where(cs, n, NULL, NULL, NULL, sets[t]);
				if (st.given)
					json_object_set_new(so, sets[t], stats_json(st));
			}
			json_object_set_new(sum, "classes", co);
			json_object_set_new(sum, "sets", so);
		}
		json_object_set_new(o, "cases", arr);
		json_object_set_new(o, "summary", sum);
		report_json_print(o);
		json_decref(o);
		return;
	}

	tb = table_new();
	table_column(tb, "id", ALIGN_LEFT);
	table_column(tb, "metric", ALIGN_LEFT);
	table_column(tb, "measured", ALIGN_RIGHT);
	table_column(tb, "predicted", ALIGN_RIGHT);
	table_column(tb, "error", ALIGN_RIGHT);
	if (fmt == FORMAT_CSV) {
		table_column(tb, "model", ALIGN_LEFT);
		table_column(tb, "reason", ALIGN_LEFT);
	} else {
		table_column(tb, "note", ALIGN_LEFT);
	}
	for (i = 0; i < n; i++) {
		table_row(tb);
		table_cell(tb, cs[i].id);
		table_cell(tb, cs[i].metric);
		if (isnan(cs[i].measured))
			table_cell(tb, "-");  /* the reason says what was wrong with it */
		else
			table_cellf(tb, "%.4g", cs[i].measured);
		if (isnan(cs[i].predicted)) {
			table_cell(tb, "-");
			table_cell(tb, "-");
		} else {
			table_cellf(tb, "%.4g", cs[i].predicted);
			if (fmt == FORMAT_CSV)
				table_cellf(tb, "%.4f", (cs[i].predicted - cs[i].measured) / cs[i].measured);
			else
				table_cellf(tb, "%+.1f%%", 100 * (cs[i].predicted - cs[i].measured) / cs[i].measured);
		}
		if (fmt == FORMAT_CSV)
			table_cell(tb, cs[i].model);
		table_cell(tb, cs[i].reason[0] ? cs[i].reason : (isnan(cs[i].predicted) ? "skipped" : ""));
	}
	if (fmt == FORMAT_CSV) {
		table_print_csv(tb, stdout);
		table_free(tb);
		return;
	}
	table_print(tb, stdout, 0);
	table_free(tb);

	printf("\nsummary (absolute error, %%)\n");
	tb = table_new();
	table_column(tb, "metric", ALIGN_LEFT);
	table_column(tb, "predicted", ALIGN_RIGHT);
	table_column(tb, "median", ALIGN_RIGHT);
	table_column(tb, "<=20%", ALIGN_RIGHT);
	table_column(tb, "worst", ALIGN_RIGHT);
	table_column(tb, "worst case", ALIGN_LEFT);
	for (k = 0; k < NMETRICS; k++) {
		struct stats s = stats_of(cs, n, metrics[k].name, NULL);
		if (s.given)
			stats_row(tb, metrics[k].name, s);
	}
	for (k = 0; k < sizeof(groups) / sizeof(groups[0]); k++) {
		struct stats s = stats_of(cs, n, NULL, groups[k]);
		if (s.given) {
			snprintf(b, sizeof(b), "all %s", groups[k]);
			stats_row(tb, b, s);
		}
	}
	for (ci = 0; ci < ncls; ci++) {
		for (t = 0; t < 2; t++) {
			struct stats st = stats_where(cs, n, NULL, NULL, cls[ci], sets[t]);
			if (st.given) {
				snprintf(b, sizeof(b), "%s (%s)", cls[ci], sets[t]);
				stats_row(tb, b, st);
			}
		}
	}
	for (t = 0; ncls && t < 2; t++) {
		struct stats st = stats_where(cs, n, NULL, NULL, NULL, sets[t]);
		if (st.given) {
			snprintf(b, sizeof(b), "all %s", sets[t]);
			stats_row(tb, b, st);
		}
	}
	stats_row(tb, "all cases", stats_of(cs, n, NULL, NULL));
	table_print(tb, stdout, 0);
	table_free(tb);
}

int cmd_validate(int argc, char **argv)
{
	int npos = parse_options_or_exit(&validate_cmd, argc, argv);
	enum output_format fmt = output_format_from(json_flag, csv_flag, "validate");
	const struct catalog *cat;
	struct csv_reader *rd;
	struct csv_record rec, hdr;
	char *buf = NULL;
	const char *data, *name;
	size_t len, i, n = 0, cap = 0;
	struct vcase *cs = NULL;
	struct diag err;
	char msg[1024];
	int rc, first = 1;
	static const char *const required[] = {"id", "model", "metric", "value"};

	if (npos > 1)
		die_usage("gpuscope validate: expected at most one file, got '%s' and '%s'", argv[0], argv[1]);
	diag_clear(&err);
	if (npos == 1) {
		if (csv_read_file(argv[0], &buf, &len, &err)) {
			diag_format(&err, msg, sizeof(msg));
			die_code(EXIT_USAGE, "gpuscope validate: %s", msg);
		}
		data = buf;
		name = argv[0];
	} else {
		const struct embedded_file *f = embedded_find(CAL_FILE);
		if (!f)
			die("gpuscope validate: the calibration set is not built in");
		data = f->data;
		len = f->len;
		name = "data/" CAL_FILE;
	}
	cat = load_catalog_or_die();
	memset(&hdr, 0, sizeof(hdr));
	rd = csv_open(name, data, len, CSV_COMMENTS);
	while ((rc = csv_next(rd, &rec, &err)) > 0) {
		struct row r;
		struct vcase *vc;
		static const struct num_range measured_range = {1e-6, 1e15, 0};
		const char *v;
		char why[160];
		if (first) {
			size_t k;
			csv_record_copy(&hdr, &rec);
			first = 0;
			for (k = 0; k < sizeof(required) / sizeof(required[0]); k++) {
				size_t j;
				int found = 0;
				for (j = 0; j < hdr.nfields; j++)
					found |= !strcmp(hdr.fields[j], required[k]);
				if (!found)
					die_code(EXIT_USAGE, "gpuscope validate: %s:%d:1: header lacks the column '%s' "
						 "(needed: id, model, metric, value; see docs/model.md)",
						 name, rec.line, required[k]);
			}
			continue;
		}
		r.hdr = &hdr;
		r.rec = &rec;
		r.file = name;
		if (metric_filter && strcmp(cell(&r, "metric"), metric_filter))
			continue;
		if (set_filter && strcmp(cell(&r, "set"), set_filter))
			continue;
		XGROW(cs, cap, n + 1);
		vc = &cs[n++];
		memset(vc, 0, sizeof(*vc));
		vc->id = xstrdup(*cell(&r, "id") ? cell(&r, "id") : "?");
		vc->metric = xstrdup(cell(&r, "metric"));
		vc->model = xstrdup(cell(&r, "model"));
		vc->cls = xstrdup(cell(&r, "class"));
		vc->set = xstrdup(cell(&r, "set"));
		vc->line = rec.line;
		v = cell(&r, "value");
		/* every metric is a positive size, rate or time; a tiny one would make the error infinite */
		if (num_parse(v, NULL, &measured_range, &vc->measured, why, sizeof(why))) {
			vc->measured = NAN;
			vc->predicted = NAN;
			snprintf(vc->reason, sizeof(vc->reason), "line %d: value: %s", rec.line, why);
			continue;
		}
		vc->predicted = predict(cat, &r, vc);
	}
	csv_free(rd);
	csv_record_release(&hdr);
	if (rc < 0) {
		diag_format(&err, msg, sizeof(msg));
		die_code(EXIT_USAGE, "gpuscope validate: %s", msg);
	}
	if (first)
		die_code(EXIT_USAGE, "gpuscope validate: %s: no header line", name);
	report(cs, n, fmt);
	for (i = 0; i < n; i++) {
		free(cs[i].id);
		free(cs[i].metric);
		free(cs[i].model);
		free(cs[i].cls);
		free(cs[i].set);
	}
	free(cs);
	free(buf);
	return EXIT_OK;
}
