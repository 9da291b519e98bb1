/*
 * Internal interface between the files of the performance model: the GPU
 * numbers, collectives, memory and compute helpers each file shares with the
 * others.  Not for callers outside src/model/: they use model.h.
 *
 * Files, by concern:
 *   names.c    enumeration names, element sizes
 *   hw.c       GPU peaks, GEMM roofline, HBM and PCIe rates
 *   comm.c     NCCL collectives over servers
 *   config.c   configuration defaults, completion and checks
 *   memory.c   memory per GPU (transformers), allocator and context
 *   compute.c  transformer layer and training micro-batch times
 *   infer.c    transformer inference (prefill, decode)
 *   sample.c   per-sample workloads (CNN, GNN, speech): memory and time
 *   estimate.c the training step and the result (model_estimate)
 */
#ifndef GPUSCOPE_MODEL_MODEL_INT_H
#define GPUSCOPE_MODEL_MODEL_INT_H

#include "model/model.h"
#include "model/quant.h"
#include "model/tune.h"

/* hw.c: the GPU at the configured precision. */
struct hw {
	double peak;      /* dense FLOP/s at the precision */
	double emax;      /* best achievable fraction of it for large GEMMs */
	double bw;        /* achievable HBM B/s */
	double inv_gemm;  /* 1 / (peak x emax) */
	double inv_bw;    /* 1 / bw */
	double mem;       /* usable bytes */
	double sms;       /* streaming multiprocessors (0: unknown), for wave quantisation */
	double paged_kv;  /* paged-attention KV reads: fraction of bw (model/vendor.h) */
	double attn_peak; /* dense FLOP/s of the attention matmuls: 16-bit under fp8 (attn_precision_of) */
	double attn_emax; /* best GEMM fraction of attn_peak */
	double tdp_w, idle_w;
};

double peak_of(const struct cat_gpu *g, enum model_precision p);
double emax_of(const struct cat_gpu *g, enum model_precision p);
int hw_of(const struct model_config *c, struct hw *h);
int flash_on(const struct model_config *c);
/*
 * config.c: the name of the first parallel degree of c below its least value
 * (1 for each, dp_least for dp: 0 while the resolver may still choose it), or
 * NULL when every one is in range.
 */
const char *config_low_degree(const struct model_config *c, int dp_least);
enum model_precision attn_precision_of(const struct model_config *c);
double gemm_s(const struct hw *h, double eb, double m, double n, double k);

/*
 * Bits per element of the 4-bit floating-point formats, block scales
 * included (docs/model.md, "FP4").  NVFP4: 4-bit E2M1 values with one
 * E4M3 (8-bit) scale per block of 16 (NVIDIA, "Introducing NVFP4 for
 * efficient and accurate low-precision inference", 2025; PTX ISA
 * block-scaled MMA, scale_vec::4X with ue4m3): 4 + 8/16 = 4.5; its one
 * fp32 scale per tensor is left out (4 B a matrix).  MXFP4: E2M1 with one
 * E8M0 (8-bit power-of-two) scale per 32 (OCP Microscaling Formats (MX)
 * Specification v1.0, 2023): 4 + 8/32 = 4.25.  Format facts, not tuned.
 */
#define MODEL_NVFP4_BITS (4.0 + 8.0 / 16)
#define MODEL_MXFP4_BITS (4.0 + 8.0 / 32)

/* fp8 and the fp4 formats: linear layers run in 8 or 4 bits, attention and activations in 16 */
static inline int low_precision(enum model_precision p)
{
	return p == MODEL_FP8 || model_precision_fp4(p);
}

/*
 * compute.c: 1 when fp8 training runs as torchao's float8 linears under
 * torch.compile (--engine compile, a stack whose casts are kernels of their
 * own): tensorwise dynamic scaling, every linear of the blocks in fp8, the
 * output layer in 16 bits, and under ZeRO-3 (FSDP2) the linear weights
 * all-gathered in fp8.  docs/model.md, "FP8 under torch.compile".
 */
int fp8_torchao(const struct model_config *c);
/* Transformer Engine's fp8 modules' host seconds per micro-batch over `layers` layers (0 where none run) */
double te_host_s(const struct model_config *c, double layers);

/*
 * memory.c: bytes of one gathered layer of `layer_params` parameters under
 * ZeRO-3: each at the training weight's bytes, or with torchao's float8
 * all-gather the linear matrices at 1 B (the norms stay 16-bit).
 */
double gathered_layer_bytes(const struct workload *w, const struct model_config *c, double layer_params);

/* memory.c: bytes per stored (frozen or served) weight matrix element, block scales included */
double stored_weight_bytes(const struct model_config *c);

/* Bytes of one activation element: 4 at fp32/tf32, else 2. */
static inline double act_elem_bytes(const struct model_config *c)
{
	return (c->precision == MODEL_FP32 || c->precision == MODEL_TF32) ? 4 : 2;
}

/* The context-parallel degree (a config filled by hand may leave it 0). */
static inline int cp_of(const struct model_config *c)
{
	return c->cp > 1 ? c->cp : 1;
}

/* The expert-tensor-parallel degree: --etp, or the attention's tp (Megatron's default). */
static inline int etp_of(const struct model_config *c)
{
	return c->etp > 0 ? c->etp : c->tp;
}

/* Tokens of one micro-batch on one GPU: its sequences, each cut into cp chunks. */
static inline double tokens_gpu(const struct model_config *c, double micro_batch)
{
	return (double)c->seq_len * micro_batch / cp_of(c);
}

/* The ranks a gradient is reduced over and ZeRO shards across: dp x cp (Megatron-LM, torchtitan). */
static inline int dp_cp(const struct model_config *c)
{
	return c->dp * cp_of(c);
}

/*
 * The ranks ZeRO shards the dense states over: dp x cp, or under ZeRO-3
 * hybrid sharding (--hsdp N) the N ranks of one shard group.
 */
static inline int shard_ranks(const struct model_config *c)
{
	return c->zero >= 3 && c->hsdp > 0 ? c->hsdp : dp_cp(c);
}

/* comm.c */
enum coll {
	COLL_AR,
	COLL_AG,
	COLL_RS,
	COLL_A2A,
	COLL_P2P
};
double coll_s(const struct model_config *c, enum coll k, double bytes, int n, int g);
int per_node(const struct model_config *c, int n, int stride);

/* memory.c */
struct state_bytes {
	double weight, grad, optim; /* optim includes the fp32 master copy */
};
double optim_states_bytes(const struct model_config *c);
struct state_bytes state_bytes_of(const struct model_config *c);
double layer_params_gpu(const struct workload *w, const struct model_config *c);
double layer_expert_params_gpu(const struct workload *w, const struct model_config *c);
double kv_elems_gpu(const struct workload *w, const struct model_config *c);
double lora_params_per_rank(const struct workload *w, const struct model_config *c);
double attn_scores_bytes(const struct workload *w, const struct model_config *c, double e, double b);

/* compute.c */
struct layer_time {
	double gemm, attn_fwd, attn_bwd, mem, tp_comm, ep_comm;
	double mem_bwd;             /* the memory-bound kernels' backward, s (mem: forward) */
	double cp_fwd, cp_bwd;      /* context-parallel ring exchange the attention does not hide */
	double attn_flops;          /* attention-score FLOPs executed forward (per GPU) */
	double cast_fwd, cast_bwd;  /* fp8/fp4 training: the quantisation kernels, forward and backward, s */
	double autocast_kernels[2]; /* --autocast on: the kernels it adds to a layer, forward and backward */
};
/*
 * What --autocast on adds to one layer of a micro-batch of T tokens whose
 * attention has `el` score elements (sequences x heads x s x ctx on this
 * GPU): HBM bytes of the memory-bound kernels and of the unfused
 * attention, forward and backward, and the kernels it launches.  All 0
 * when the setting is off.  docs/model.md, "Autocast in eager code".
 */
struct autocast_cost {
	double mem_fwd, mem_bwd, attn_fwd, attn_bwd; /* B */
	double kernels_fwd, kernels_bwd;
};
void autocast_bytes(const struct workload *w, const struct model_config *c, double T, double el,
		    struct autocast_cost *a);
/*
 * Share of a micro-batch's tokens that pass through the output layer
 * (docs/model.md, "Encoders"): 1 for a decoder; an encoder's masked-LM
 * pre-training predicts the masked positions only (MODEL_MLM_SHARE), or
 * every position under --mlm-head all (1); an encoder fine-tuned for a
 * task has a head of a few outputs (0).
 */
#define MODEL_MLM_SHARE 0.15
double head_share(const struct workload *w, const struct model_config *c);
/* 1 for eager fp16/bf16 full training (pretrain, finetune) over fp32 master weights: where --autocast applies. */
int autocast_applies(const struct model_config *c);
/* 1 for an encoder's masked-LM pre-training, the one workload --mlm-head applies to. */
int mlm_pretrain(const struct workload *w, const struct model_config *c);
void layer_fwd(const struct workload *w, const struct model_config *c, const struct hw *h, double T, double s,
	       double ctx, struct layer_time *lt);

/* Intermediate results of the training-step model, shared with the result. */
struct train_parts {
	double mb_fwd, mb_bwd, mb_recompute;       /* one micro-batch on the slowest stage */
	double gemm, attn, mem, recompute, tp, ep; /* per micro-batch, by kind (fwd + bwd) */
	double cp;                                 /* ... context-parallel ring, exposed */
	double flops_model_token, flops_hw_token;  /* per token, whole model */
	double kernels_mb;                         /* kernel launches per micro-batch */
	double host_mb;                            /* host seconds per micro-batch besides launches */
	double layer_fwd, layer_bwd;               /* one layer: forward; backward with its recompute */
};
void train_transformer(const struct workload *w, const struct model_config *c, const struct hw *h,
		       struct train_parts *tp);

/* shard.c: ZeRO-3 / FSDP, one micro-batch on one GPU */
struct zero3_layers {
	double layers;      /* layers of the stage, one FSDP unit each */
	double layer_bytes; /* one layer's local parameters as gathered and reduced, B */
	double root_bytes;  /* the rest of the stage (embedding, head, norms): the root unit, B */
	double fwd_s;       /* one layer's forward, s */
	double bwd_s;       /* one layer's backward with its recompute, s */
	double tensors;     /* weight matrices of one layer (DeepSpeed gathers each alone) */
};
struct zero3_time {
	double ag_s, rs_s, ar_s; /* one layer: gather, reduce-scatter, replicas' all-reduce (HSDP) */
	double total_s;          /* every collective of the micro-batch */
	double exposed_s;        /* what the micro-batch's step pays for them */
};
/* What a collective of c_s beside t_s of compute adds when it takes sigma of the SMs. */
double zero3_hide_s(double c_s, double t_s, double sigma);
void zero3_time(const struct model_config *c, const struct zero3_layers *z, struct zero3_time *o);
/* One unit of DeepSpeed's ZeRO-3 of 2021: its gathers and its gradients' all-reduce, s. */
void zero3_deepspeed_unit(const struct model_config *c, double bytes, double tensors, double *ag_s, double *ar_s);

/* scale.c: the wait for the slowest of the job's servers, s, for busy_s of work on each */
double straggler_s(const struct model_config *c, double busy_s);

/* infer.c */
enum model_engine engine_of(const struct model_config *c);
double launch_s_of(const struct model_config *c);
void infer_transformer(const struct workload *w, const struct model_config *c, const struct hw *h,
		       struct model_infer *o);

/* estimate.c */
double optimizer_s_of(const struct model_config *c, const struct hw *h, double params_local);

/* sample.c */
double sample_scale(const struct workload *w, const struct model_config *c);
void mem_per_sample(const struct workload *w, const struct model_config *c, struct model_memory *o);
double sample_fwd_s(const struct workload *w, const struct model_config *c, const struct hw *h);
/* Of it, the convolutions and matmuls alone (the rest is memory-bound layers), s. */
double sample_conv_s(const struct workload *w, const struct model_config *c, const struct hw *h);
void infer_per_sample(const struct workload *w, const struct model_config *c, const struct hw *h,
		      struct model_infer *o);
/* One training step of a per-sample workload: fills r->time, FLOPs; returns the GPU time. */
double step_per_sample(const struct workload *w, const struct model_config *c, const struct hw *h,
		       struct model_result *r);

#endif
