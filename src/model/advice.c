/*
 * Search functions on top of the model: the largest micro-batch that fits, the
 * batch that meets a latency target, the changes that make a configuration
 * fit and the optimisations worth turning on.  Each candidate change is
 * predicted with model_estimate(), so the advice carries this workload's
 * numbers, not rules of thumb.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "util/xalloc.h"

static int fits_at(const struct workload *w, const struct model_config *base, int mb)
{
	struct model_config c = *base;
	struct model_memory m;
	c.micro_batch = mb;
	/* enough micro-batches to fill the pipeline, so the in-flight count is the steady one */
	c.global_batch = mb * c.dp * (c.pp > 1 ? c.pp : 1);
	if (model_memory(w, &c, &m))
		return 0;
	return m.fits;
}

int model_max_micro_batch(const struct workload *w, const struct model_config *cfg, int limit)
{
	int lo = 0, hi = 1;
	if (limit < 1 || !fits_at(w, cfg, 1))
		return 0;
	/* memory grows with the micro-batch: double, then bisect */
	while (hi < limit && fits_at(w, cfg, hi)) {
		lo = hi;
		hi = hi * 2 > limit ? limit : hi * 2;
	}
	if (hi == limit && fits_at(w, cfg, hi))
		return hi;
	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;
		if (fits_at(w, cfg, mid))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The largest micro-batch <= limit that fits cfg and splits its global
 * batch into whole accumulation steps (global_batch % (mb x dp) == 0); 0
 * when none does.
 */
static int whole_micro_batch(const struct workload *w, const struct model_config *cfg, int limit)
{
	int mb = model_max_micro_batch(w, cfg, limit);
	while (mb >= 1 && cfg->global_batch % (mb * cfg->dp))
		mb--;
	return mb;
}

/* One forward of a batch of b: what a request waits for under dynamic batching. */
static double batch_latency(const struct workload *w, const struct model_config *base, int b)
{
	struct model_config c = *base;
	struct model_result r;
	c.batch = b;
	if (model_estimate(w, &c, &r) || !r.mem.fits)
		return INFINITY;
	return r.infer.request_s;
}

int model_batch_for_latency(const struct workload *w, const struct model_config *cfg, double target_s,
			    int max_batch)
{
	int lo = 0, hi = 1;
	if (max_batch < 1 || !(2 * batch_latency(w, cfg, 1) <= target_s))
		return 0;
	while (hi < max_batch && 2 * batch_latency(w, cfg, hi) <= target_s) {
		lo = hi;
		hi = hi * 2 > max_batch ? max_batch : hi * 2;
	}
	if (hi == max_batch && 2 * batch_latency(w, cfg, hi) <= target_s)
		return hi;
	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;
		if (2 * batch_latency(w, cfg, mid) <= target_s)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Predicts cfg and appends an advice entry when it passes `want`. */
struct advice_list {
	struct model_advice *out;
	size_t n, max;
	double base_step, base_bytes;
	int base_fits;
};

static void consider(struct advice_list *l, const struct workload *w, const struct model_config *c,
		     const char *what, const char *flags, int need_fit, double min_speedup)
{
	struct model_result r;
	struct model_advice *a;
	struct diag err;
	double speed;
	size_t i;
	if (l->n >= l->max)
		return;
	diag_clear(&err);
	if (model_config_check(w, c, &err) || model_estimate(w, c, &r))
		return;
	if (need_fit && !r.mem.fits)
		return;
	speed = r.time.step_s > 0 ? l->base_step / r.time.step_s : 0;
	if (c->task == MODEL_TASK_INFER && r.infer.request_s > 0)
		speed = l->base_step / r.infer.request_s;
	if (speed < min_speedup)
		return;
	/* keep the list free of duplicates (same flags) */
	for (i = 0; i < l->n; i++)
		if (!strcmp(l->out[i].flags, flags))
			return;
	a = &l->out[l->n++];
	memset(a, 0, sizeof(*a));
	a->what = what;
	a->flags = xstrdup(flags);
	a->step_s = c->task == MODEL_TASK_INFER ? r.infer.request_s : r.time.step_s;
	a->total_bytes = r.mem.total_bytes;
	a->fits = r.mem.fits;
	a->speedup = speed;
}

static void sort_by_speed(struct model_advice *a, size_t n)
{
	size_t i, j;
	for (i = 1; i < n; i++) {
		struct model_advice x = a[i];
		for (j = i; j > 0 && a[j - 1].speedup < x.speedup; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

static int base_of(const struct workload *w, const struct model_config *cfg, struct advice_list *l)
{
	struct model_result r;
	if (model_estimate(w, cfg, &r))
		return -1;
	l->base_step = cfg->task == MODEL_TASK_INFER ? r.infer.request_s : r.time.step_s;
	l->base_bytes = r.mem.total_bytes;
	l->base_fits = r.mem.fits;
	return 0;
}

/* Candidate TP/PP doublings that keep the GPU count (dp halves). */
static void try_layouts(struct advice_list *l, const struct workload *w, const struct model_config *cfg,
			int need_fit, double min_speedup)
{
	struct model_config c;
	char flags[64];
	if (w->kind != WORKLOAD_TRANSFORMER || cfg->dp % 2)
		return;
	c = *cfg;
	c.tp *= 2;
	c.dp /= 2;
	if (c.task != MODEL_TASK_INFER && c.global_batch % (c.micro_batch * c.dp))
		c.global_batch = c.micro_batch * c.dp * (cfg->global_batch / (cfg->micro_batch * cfg->dp));
	snprintf(flags, sizeof(flags), "--tp %d --dp %d", c.tp, c.dp);
	consider(l, w, &c, "more tensor parallelism", flags, need_fit, min_speedup);
	c = *cfg;
	c.pp *= 2;
	c.dp /= 2;
	snprintf(flags, sizeof(flags), "--pp %d --dp %d", c.pp, c.dp);
	consider(l, w, &c, "more pipeline parallelism", flags, need_fit, min_speedup);
}

size_t model_fit_advice(const struct workload *w, const struct model_config *cfg, struct model_advice *out,
			size_t max)
{
	struct advice_list l = {out, 0, max, 0, 0, 0};
	struct model_config c;
	char flags[64];
	int mb, z;

	if (base_of(w, cfg, &l))
		return 0;
	if (cfg->task == MODEL_TASK_INFER) {
		int b = cfg->batch;
		for (b = cfg->batch / 2; b >= 1; b /= 2) {
			c = *cfg;
			c.batch = b;
			snprintf(flags, sizeof(flags), "--batch %d", b);
			consider(&l, w, &c, "smaller batch", flags, 1, 0);
			if (l.n)
				break;
		}
		if (cfg->kv_precision != MODEL_FP8 && w->kind == WORKLOAD_TRANSFORMER) {
			c = *cfg;
			c.kv_precision = MODEL_FP8;
			consider(&l, w, &c, "8-bit KV cache", "--kv-cache-precision fp8", 1, 0);
		}
		try_layouts(&l, w, cfg, 1, 0);
		sort_by_speed(out, l.n);
		return l.n;
	}
	/* gradient accumulation: the largest micro-batch that fits, same global batch */
	mb = whole_micro_batch(w, cfg, cfg->micro_batch - 1);
	if (mb >= 1 && mb < cfg->micro_batch) {
		c = *cfg;
		c.micro_batch = mb;
		snprintf(flags, sizeof(flags), "--micro-batch %d", mb);
		consider(&l, w, &c, "gradient accumulation (smaller micro-batch)", flags, 1, 0);
	}
	if (cfg->recompute < MODEL_RECOMPUTE_SELECTIVE && w->kind == WORKLOAD_TRANSFORMER && cfg->flash == 0) {
		c = *cfg;
		c.recompute = MODEL_RECOMPUTE_SELECTIVE;
		consider(&l, w, &c, "selective activation recompute", "--recompute selective", 1, 0);
	}
	if (cfg->recompute < MODEL_RECOMPUTE_FULL) {
		c = *cfg;
		c.recompute = MODEL_RECOMPUTE_FULL;
		consider(&l, w, &c, "activation checkpointing (full recompute)", "--recompute full", 1, 0);
	}
	if (w->kind == WORKLOAD_TRANSFORMER && cfg->flash == 0) {
		c = *cfg;
		c.flash = 1;
		consider(&l, w, &c, "flash attention", "--flash-attention on", 1, 0);
	}
	if (cfg->tp > 1 && !cfg->seq_parallel) {
		c = *cfg;
		c.seq_parallel = 1;
		consider(&l, w, &c, "sequence parallelism", "--seq-parallel", 1, 0);
	}
	if (cfg->dp > 1)
		for (z = cfg->zero + 1; z <= 3; z++) {
			c = *cfg;
			c.zero = z;
			snprintf(flags, sizeof(flags), "--zero %d", z);
			consider(&l, w, &c,
				 z == 3 ? "ZeRO-3 / FSDP (shard weights too)" :
				 z == 2 ? "ZeRO-2 (shard gradients and optimizer)" :
					  "ZeRO-1 (shard optimizer)",
				 flags, 1, 0);
		}
	try_layouts(&l, w, cfg, 1, 0);
	if (cfg->offload == MODEL_OFFLOAD_NONE && cfg->task != MODEL_TASK_LORA && cfg->task != MODEL_TASK_QLORA) {
		c = *cfg;
		c.offload = MODEL_OFFLOAD_OPTIMIZER;
		consider(&l, w, &c, "optimizer offload to host memory", "--offload optimizer", 1, 0);
		if (w->kind == WORKLOAD_TRANSFORMER) {
			c.offload = MODEL_OFFLOAD_PARAMS;
			c.zero = 3;
			consider(&l, w, &c, "parameter and optimizer offload (ZeRO-Infinity)",
				 "--zero 3 --offload params", 1, 0);
		}
	}
	/* two changes together when no single one is enough */
	if (!l.n && cfg->recompute < MODEL_RECOMPUTE_FULL) {
		struct model_config r = *cfg;
		r.recompute = MODEL_RECOMPUTE_FULL;
		if (cfg->dp > 1) {
			c = r;
			c.zero = 3;
			consider(&l, w, &c, "full recompute with ZeRO-3", "--recompute full --zero 3", 1, 0);
		}
		c = r;
		mb = whole_micro_batch(w, &c, cfg->micro_batch);
		if (mb >= 1) {
			c.micro_batch = mb;
			snprintf(flags, sizeof(flags), "--recompute full --micro-batch %d", mb);
			consider(&l, w, &c, "full recompute with gradient accumulation", flags, 1, 0);
		}
		c = r;
		c.zero = 3;
		c.offload = MODEL_OFFLOAD_PARAMS;
		if (w->kind == WORKLOAD_TRANSFORMER && cfg->task != MODEL_TASK_LORA &&
		    cfg->task != MODEL_TASK_QLORA)
			consider(&l, w, &c, "full recompute with parameter offload",
				 "--recompute full --zero 3 --offload params", 1, 0);
	}
	sort_by_speed(out, l.n);
	return l.n;
}

size_t model_recommend(const struct workload *w, const struct model_config *cfg, struct model_advice *out,
		       size_t max)
{
	struct advice_list l = {out, 0, max, 0, 0, 0};
	struct model_config c;
	struct model_result base;
	const struct cat_gpu *g = cfg->gpu;
	char flags[64];
	const double gain = 1.02;

	if (!g || base_of(w, cfg, &l) || model_estimate(w, cfg, &base))
		return 0;
	/* mixed precision: TF32 on Ampere and later, then bf16/fp16 autocast */
	if (cfg->precision == MODEL_FP32 && g->tf32_tflops > g->fp32_tflops * 1.5) {
		c = *cfg;
		c.precision = MODEL_TF32;
		consider(&l, w, &c, "TF32 matmuls (torch.backends.cuda.matmul.allow_tf32)", "--precision tf32", 1,
			 gain);
	}
	if (cfg->precision == MODEL_FP32 || cfg->precision == MODEL_TF32) {
		c = *cfg;
		c.precision = g->bf16_tflops > 0 ? MODEL_BF16 : MODEL_FP16;
		snprintf(flags, sizeof(flags), "--precision %s", model_precision_name(c.precision));
		consider(&l, w, &c,
			 c.precision == MODEL_BF16 ? "mixed precision (bf16 autocast)" :
						     "mixed precision (fp16 autocast + GradScaler)",
			 flags, 1, gain);
	}
	if ((cfg->precision == MODEL_BF16 || cfg->precision == MODEL_FP16) && g->fp8_tflops > 0 &&
	    w->kind == WORKLOAD_TRANSFORMER) {
		c = *cfg;
		c.precision = MODEL_FP8;
		/* under torch.compile fp8 is torchao's float8 linears (docs/model.md) */
		consider(&l, w, &c,
			 c.engine == MODEL_ENGINE_COMPILE ? "FP8 matmuls (torchao float8)" :
							    "FP8 matmuls (Transformer Engine)",
			 "--precision fp8", 1, 1.10);
	}
	/* Blackwell: the linear layers in NVFP4 (docs/model.md, "FP4"), from 16 bits or fp8 */
	if ((cfg->precision == MODEL_BF16 || cfg->precision == MODEL_FP16 || cfg->precision == MODEL_FP8) &&
	    g->fp4_tflops > 0 && w->kind == WORKLOAD_TRANSFORMER) {
		c = *cfg;
		c.precision = MODEL_NVFP4;
		consider(&l, w, &c,
			 cfg->task == MODEL_TASK_INFER ? "NVFP4 weights and matmuls (an NVFP4 checkpoint)" :
							 "NVFP4 matmuls (Transformer Engine's NVFP4 recipe)",
			 "--precision nvfp4", 1, 1.10);
	}
	if (w->kind == WORKLOAD_TRANSFORMER && cfg->flash == 0) {
		c = *cfg;
		c.flash = 1;
		consider(&l, w, &c, "flash attention (SDPA)", "--flash-attention on", 1, gain);
	}
	if (cfg->task != MODEL_TASK_INFER) {
		int mb;
		/* a bigger micro-batch: better GEMM shapes, fewer launches */
		mb = whole_micro_batch(w, cfg, cfg->global_batch / cfg->dp);
		if (mb > cfg->micro_batch) {
			c = *cfg;
			c.micro_batch = mb;
			snprintf(flags, sizeof(flags), "--micro-batch %d", mb);
			consider(&l, w, &c, "larger micro-batch (fewer accumulation steps)", flags, 1, gain);
		}
		/* recompute off when it fits without it */
		if (cfg->recompute != MODEL_RECOMPUTE_NONE) {
			c = *cfg;
			c.recompute = MODEL_RECOMPUTE_NONE;
			consider(&l, w, &c, "no activation recompute (it fits without)", "--recompute none", 1,
				 gain);
		} else {
			/* checkpointing that buys a larger micro-batch */
			c = *cfg;
			c.recompute = w->kind == WORKLOAD_TRANSFORMER && cfg->flash == 0 ?
					      MODEL_RECOMPUTE_SELECTIVE :
					      MODEL_RECOMPUTE_FULL;
			mb = whole_micro_batch(w, &c, cfg->global_batch / cfg->dp);
			if (mb > cfg->micro_batch) {
				c.micro_batch = mb;
				snprintf(flags, sizeof(flags), "--recompute %s --micro-batch %d",
					 model_recompute_name(c.recompute), mb);
				consider(&l, w, &c, "activation checkpointing with a larger micro-batch", flags, 1,
					 gain);
			}
		}
		if (cfg->dp > 1 && cfg->zero == 0) {
			/* ZeRO-1 frees optimizer memory for a larger micro-batch */
			c = *cfg;
			c.zero = 1;
			mb = whole_micro_batch(w, &c, cfg->global_batch / cfg->dp);
			if (mb > cfg->micro_batch) {
				c.micro_batch = mb;
				snprintf(flags, sizeof(flags), "--zero 1 --micro-batch %d", mb);
				consider(&l, w, &c, "ZeRO-1 to afford a larger micro-batch", flags, 1, gain);
			}
		}
		if (cfg->tp > 1 && !cfg->seq_parallel) {
			c = *cfg;
			c.seq_parallel = 1;
			consider(&l, w, &c, "sequence parallelism", "--seq-parallel", 1, gain);
		}
		if (base.time.dp_comm_s + base.time.zero_comm_s > 0.05 * base.time.step_s) {
			/* gradient accumulation: twice the global batch amortises the gradient sync */
			c = *cfg;
			c.global_batch = cfg->global_batch * 2;
			snprintf(flags, sizeof(flags), "--global-batch %d", c.global_batch);
			consider(&l, w, &c, "gradient accumulation over twice the batch (sync half as often)",
				 flags, 1, gain);
		}
		if (w->s.decode_per_core > 0 && w->s.dali_per_gpu > 0 && cfg->loader == MODEL_LOADER_CPU &&
		    (base.time.data_s > 0 || (cfg->cpu_cores_per_gpu <= 0 && base.data_cores_needed > 8))) {
			c = *cfg;
			c.loader = MODEL_LOADER_DALI;
			consider(&l, w, &c, "DALI GPU decoding (the CPU cannot keep up)", "--data-loader dali", 1,
				 1.0);
		}
	}
	if (base.time.overhead_s > 0.02 * base.time.step_s ||
	    (cfg->task == MODEL_TASK_INFER &&
	     /* launches per forward pass against one pass: a decode step, or the whole request */
	     base.infer.launch_s >
		     0.2 * (base.infer.decode_token_s > 0 ? base.infer.decode_token_s : base.infer.request_s))) {
		if (!cfg->cuda_graphs && cfg->engine == MODEL_ENGINE_EAGER) {
			c = *cfg;
			c.cuda_graphs = 1;
			consider(&l, w, &c, "CUDA Graphs (launch-bound)", "--cuda-graphs", 1, gain);
			/* torch.compile fuses elementwise chains: fewer launches, each cheaper */
			c = *cfg;
			c.engine = MODEL_ENGINE_COMPILE;
			c.channels_last = -1; /* the compiler's layout */
			consider(&l, w, &c, "torch.compile (launch-bound)", "--engine compile", 1, gain);
		}
	}
	if (w->kind == WORKLOAD_PER_SAMPLE && cfg->engine == MODEL_ENGINE_EAGER && !cfg->cuda_graphs &&
	    (cfg->input_dims ? cfg->input_dims : w->s.input_dims) == 3 && cfg->precision != MODEL_FP32) {
		/* a compiler lays 3D convolutions out channels-last and fuses the norms between them */
		c = *cfg;
		c.engine = MODEL_ENGINE_COMPILE;
		c.channels_last = -1;
		consider(&l, w, &c, "torch.compile (channels-last 3D convs)", "--engine compile", 1, gain);
		/* eager NDHWC: faster convolutions, but layout copies around each instance norm */
		if (!model_channels_last(cfg) && !cfg->conv3d_legacy) {
			c = *cfg;
			c.channels_last = 1;
			consider(&l, w, &c, "channels_last_3d tensors (NDHWC convolutions)", "--channels-last on",
				 1, gain);
		}
	}
	if (w->kind == WORKLOAD_PER_SAMPLE && !cfg->cudnn_benchmark) {
		c = *cfg;
		c.cudnn_benchmark = 1;
		consider(&l, w, &c, "cudnn.benchmark = True (fixed input shapes)", "--cudnn-benchmark on", 1,
			 gain);
	}
	sort_by_speed(out, l.n);
	return l.n;
}

void model_advice_release(struct model_advice *a, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(a[i].flags);
	memset(a, 0, n * sizeof(*a));
}
