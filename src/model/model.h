/*
 * The performance model: memory, step time, throughput and energy of a
 * PyTorch workload on given GPUs.  docs/model.md gives every formula with its
 * source; the comments in the files of src/model/ repeat the formulas next to the code
 * (model_int.h lists the files by concern).
 *
 * Three kinds of object:
 *
 *   struct workload      what is trained or served: a transformer given by its
 *                        dimensions (preset, Hugging Face config.json or
 *                        flags), or a per-sample workload (ResNet-50, 3D
 *                        U-Net, GNN, ASR) given by published per-sample FLOPs,
 *                        parameters and activation memory.  Everything that
 *                        depends only on the workload (parameter counts,
 *                        FLOPs per token per layer) is computed once by
 *                        workload_finish().
 *   struct model_config  how it runs: GPU, counts, links, precision, layout,
 *                        batch, task.  Plain data, filled by value; start
 *                        from model_config_defaults().
 *   struct model_result  what the model predicts.
 *
 * The hot functions (model_memory, model_estimate, model_infer) are pure:
 * no allocation, no I/O, no locale, no string comparison, thread-safe; they
 * read the workload, the config and the numeric fields of config->gpu only.
 * They assume a config that model_config_check() accepted (they return -1
 * rather than crash on a degenerate one: zero counts, NULL gpu).
 *
 * Slower functions built on them: the largest micro-batch that fits, the
 * cheapest change that makes a configuration fit, the optimisations worth
 * turning on.  Loading a workload (presets, config.json) and filling link
 * fields from the catalog are not hot either.
 */
#ifndef GPUSCOPE_MODEL_MODEL_H
#define GPUSCOPE_MODEL_MODEL_H

#include <stddef.h>

#include "catalog/catalog.h"
#include "model/engine.h"
#include "util/error.h"

struct strbuf;

/* ---------------------------------------------------------------------------
 * Enumerations.  Each has a name table: model_*_name() returns a static
 * string, model_*_from_name() returns the value or -1 for an unknown name.
 */

enum model_task {
	MODEL_TASK_PRETRAIN,
	MODEL_TASK_FINETUNE, /* full fine-tuning: same arithmetic as pretraining */
	MODEL_TASK_LORA,     /* frozen 16-bit base, trained low-rank adapters */
	MODEL_TASK_QLORA,    /* frozen 4-bit (NF4) base, trained adapters */
	MODEL_TASK_INFER,    /* prefill + autoregressive decode (or a forward pass) */
	MODEL_TASK_COUNT
};

enum model_precision {
	MODEL_FP32,
	MODEL_TF32,
	MODEL_FP16,
	MODEL_BF16,
	MODEL_FP8,
	MODEL_INT8,  /* stored weights and KV cache only */
	MODEL_INT4,  /* stored weights (GPTQ/AWQ, group 128) and KV cache only */
	MODEL_NF4,   /* stored weights only: QLoRA's NormalFloat 4 with double quantisation */
	MODEL_NVFP4, /* "nvfp4" ("fp4"): E2M1 with one E4M3 scale per 16 elements (Blackwell tensor cores) */
	MODEL_MXFP4, /* "mxfp4": OCP microscaling E2M1 with one E8M0 scale per 32 elements */
	MODEL_PRECISION_COUNT
};

enum model_recompute {
	MODEL_RECOMPUTE_NONE,
	MODEL_RECOMPUTE_SELECTIVE,    /* attention core only (Korthikanti 2022) */
	MODEL_RECOMPUTE_FULL,         /* whole layer, input checkpointed */
	MODEL_RECOMPUTE_SELECTIVE_OP, /* PyTorch per-op selective checkpointing: every other matmul saved */
	MODEL_RECOMPUTE_COUNT
};

enum model_optimizer {
	MODEL_OPTIM_ADAMW,           /* "adamw": two fp32 moments (bf16 ones without master weights) */
	MODEL_OPTIM_SGD_MOMENTUM,    /* "sgd-momentum": one momentum buffer */
	MODEL_OPTIM_ADAMW8BIT,       /* "adamw8bit": two 8-bit block-quantised moments (bitsandbytes) */
	MODEL_OPTIM_ADAMW_BF16,      /* "adamw-bf16": two bf16 moments */
	MODEL_OPTIM_PAGED_ADAMW,     /* "paged-adamw": fp32 moments in CUDA unified memory */
	MODEL_OPTIM_PAGED_ADAMW8BIT, /* "paged-adamw8bit": 8-bit moments in unified memory */
	MODEL_OPTIM_ADAFACTOR,       /* "adafactor": factored second moment, no first moment */
	MODEL_OPTIM_SGD,             /* "sgd": no state */
	MODEL_OPTIM_COUNT
};

/* The fp32 master copy of the weights: kept (mixed precision) or not (pure 16-bit training). */
enum model_master {
	MODEL_MASTER_FP32,
	MODEL_MASTER_NONE,
	MODEL_MASTER_COUNT
};

/* Which weight matrices of each block carry LoRA adapters. */
enum model_lora_targets {
	MODEL_LORA_ATTN_MLP, /* "attn+mlp": every linear layer of the blocks */
	MODEL_LORA_QV,
	MODEL_LORA_QKV,
	MODEL_LORA_QKVO,
	MODEL_LORA_ALL, /* "all": the blocks and the output head */
	MODEL_LORA_TARGETS_COUNT
};

/* How the output layer's logits are held for the loss. */
enum model_logits {
	MODEL_LOGITS_FP32,    /* whole, upcast to fp32 with their log-softmax */
	MODEL_LOGITS_BF16,    /* whole, in 16 bits */
	MODEL_LOGITS_CHUNKED, /* computed and consumed in chunks (chunked cross-entropy) */
	MODEL_LOGITS_COUNT
};

/*
 * Where an encoder's masked-LM pre-training runs its output layer
 * (docs/model.md, "Encoders"): on the masked positions only, gathered
 * first (google-research/bert), or on every position (Hugging Face's
 * BertForMaskedLM), the loss ignoring the unmasked ones.
 */
enum model_mlm_head {
	MODEL_MLM_HEAD_MASKED,
	MODEL_MLM_HEAD_ALL,
	MODEL_MLM_HEAD_COUNT
};

/*
 * How ZeRO-3 gathers and reduces (docs/model.md, "ZeRO-3 and FSDP, layer by
 * layer"): PyTorch FSDP's flat per-layer units, or DeepSpeed's ZeRO-3 of
 * 2021 (v0.3-0.5: one all-gather per parameter, each after a device-wide
 * synchronise, gradients all-reduced in buckets).
 */
enum model_zero3_impl {
	MODEL_ZERO3_FSDP,
	MODEL_ZERO3_DEEPSPEED_2021,
	MODEL_ZERO3_IMPL_COUNT
};

/*
 * Which communication a training step hides behind its compute (Megatron-Core's
 * --overlap-grad-reduce, --overlap-param-gather, --tp-comm-overlap): the
 * gradient reduce behind the last backward always; the ZeRO-1/2 parameter
 * all-gather behind the next step's first forward; tensor-parallel collectives
 * behind the GEMMs beside them.
 */
enum model_overlap {
	MODEL_OVERLAP_GRAD,
	MODEL_OVERLAP_GRAD_PARAM,
	MODEL_OVERLAP_GRAD_PARAM_TP,
	MODEL_OVERLAP_COUNT
};

/* Which statistic a memory figure is. */
enum model_memory_stat {
	MODEL_MEM_RESERVED,  /* torch.cuda.max_memory_reserved */
	MODEL_MEM_ALLOCATED, /* torch.cuda.max_memory_allocated */
	MODEL_MEM_DEVICE,    /* the device's used memory as nvidia-smi shows it */
	MODEL_MEM_STAT_COUNT
};

enum model_offload {
	MODEL_OFFLOAD_NONE,
	MODEL_OFFLOAD_OPTIMIZER, /* optimizer states and master weights in host memory (ZeRO-Offload) */
	MODEL_OFFLOAD_PARAMS,    /* "optimizer+params": optimizer and parameters in host memory (ZeRO-3
				    offload, FSDP cpu_offload); "params" is accepted too */
	MODEL_OFFLOAD_COUNT
};

enum model_loader {
	MODEL_LOADER_CPU,  /* torchvision/PIL decode and augment on CPU cores */
	MODEL_LOADER_DALI, /* NVIDIA DALI: decode on the GPU (nvJPEG) */
	MODEL_LOADER_COUNT
};

/* How the GPUs of one server talk to each other. */
enum model_link {
	MODEL_LINK_NONE,     /* one GPU per server */
	MODEL_LINK_PCIE,     /* through PCIe switches / the host */
	MODEL_LINK_NVLINK,   /* direct GPU-GPU links or bridges (no switch) */
	MODEL_LINK_NVSWITCH, /* all-to-all switch fabric */
	MODEL_LINK_COUNT
};

const char *model_task_name(enum model_task t);
int model_task_from_name(const char *s);
const char *model_precision_name(enum model_precision p);
int model_precision_from_name(const char *s);
const char *model_recompute_name(enum model_recompute r);
int model_recompute_from_name(const char *s);
const char *model_optimizer_name(enum model_optimizer o);
int model_optimizer_from_name(const char *s);
const char *model_offload_name(enum model_offload o);
int model_offload_from_name(const char *s); /* "none", "optimizer", "optimizer+params" ("params") */
const char *model_master_name(enum model_master m);
int model_master_from_name(const char *s);
const char *model_lora_targets_name(enum model_lora_targets t);
int model_lora_targets_from_name(const char *s);
const char *model_logits_name(enum model_logits l);
int model_logits_from_name(const char *s);
const char *model_mlm_head_name(enum model_mlm_head m);
int model_mlm_head_from_name(const char *s);
const char *model_zero3_impl_name(enum model_zero3_impl z);
int model_zero3_impl_from_name(const char *s);
/* The conv3d column's names of model_config.conv3d_legacy: "current" (0), "legacy" (1). */
const char *model_conv3d_name(int legacy);
int model_conv3d_from_name(const char *s);
const char *model_overlap_name(enum model_overlap o);
int model_overlap_from_name(const char *s);
const char *model_memory_stat_name(enum model_memory_stat s);
int model_memory_stat_from_name(const char *s);
const char *model_loader_name(enum model_loader l);
int model_loader_from_name(const char *s);
const char *model_link_name(enum model_link l);

/*
 * Bytes of one element at a precision, block scales included (fp32/tf32 4,
 * fp16/bf16 2, fp8/int8 1, int4 0.5, nf4 0.52, nvfp4 4.5/8, mxfp4 4.25/8).
 */
double model_precision_bytes(enum model_precision p);
/* Whether p is a 4-bit floating-point compute format (nvfp4, mxfp4). */
int model_precision_fp4(enum model_precision p);
/*
 * The model precisions g has a dense peak for, in enum order, as "fp32,
 * tf32, fp16, bf16, fp8, nvfp4, mxfp4" (at most len bytes with the NUL) into
 * buf; returns buf.  For messages that name what a GPU offers.
 */
const char *model_gpu_precisions_text(const struct cat_gpu *g, char *buf, size_t len);

/* ---------------------------------------------------------------------------
 * Workloads.
 */

enum workload_kind {
	WORKLOAD_TRANSFORMER, /* decoder (causal) or encoder, dense or mixture of experts */
	WORKLOAD_PER_SAMPLE,  /* described by per-sample FLOPs, parameters, activations */
};

/* Dimensions of a transformer, as a preset, config.json or flags give them. */
struct workload_dims {
	int layers;          /* transformer blocks */
	int hidden;          /* model width h */
	int heads;           /* attention (query) heads a */
	int kv_heads;        /* key/value heads (GQA); 0 = heads */
	int head_dim;        /* 0 = hidden / heads */
	int ffn_hidden;      /* MLP width (per expert) */
	int vocab;           /* vocabulary (0 for encoders of images: no LM head) */
	int max_seq;         /* max_position_embeddings */
	int seq_len;         /* default sequence length (tokens per sample) */
	int gated_mlp;       /* 1: SwiGLU/GeGLU (three matrices), 0: two matrices */
	int tied_embeddings; /* 1: output layer shares the input embedding */
	int learned_pos;     /* 1: a learned position table of max_seq x hidden */
	int causal;          /* 1: decoder (causal attention), 0: encoder */
	int experts;         /* MoE experts per layer; 0 or 1 = dense */
	int experts_active;  /* experts used per token (top-k) */
	int has_bias;        /* linear layers carry biases (GPT-2/3, BERT, OPT, BLOOM) */
	double dropout;      /* hidden/attention dropout probability (masks stored) */
	/*
	 * Architectures of 2025 (0 = absent).  Multi-head latent attention
	 * (DeepSeek-V2/V3) is on when kv_lora_rank > 0: queries through a
	 * q_lora_rank bottleneck (0: a full projection), keys and values from a
	 * cached latent of kv_lora_rank plus one shared rotary key of
	 * qk_rope_dim; heads of qk_nope_dim + qk_rope_dim for scores and
	 * v_head_dim for values.
	 */
	int q_lora_rank, kv_lora_rank, qk_nope_dim, qk_rope_dim, v_head_dim;
	int shared_experts; /* experts every token passes through in each MoE layer (n_shared_experts) */
	int dense_layers;   /* leading layers with a dense MLP (first_k_dense_replace) */
	int moe_every;  /* MoE in layers i with (i + 1) % moe_every == 0 (interleave step); 0 or 1: every layer */
	int moe_ffn;    /* MLP width of one routed or shared expert (moe_intermediate_size); 0: ffn_hidden */
	int mtp_layers; /* multi-token-prediction modules trained after the last layer (num_nextn_predict_layers) */
};

/* A per-sample workload (CNN, GNN, speech), from published figures. */
struct workload_sample {
	double params;            /* trainable parameters */
	double fwd_flops;         /* forward FLOPs per sample (2 x multiply-adds) */
	double act_bytes;         /* activations stored for backward, per sample, 16-bit */
	double mem_traffic_bytes; /* HBM bytes moved by memory-bound layers per sample, forward, 16-bit */
	double kernels;           /* kernel launches per forward pass */
	double input_bytes;       /* one decoded input sample on the GPU, bytes */
	double decode_per_core;   /* samples/s one CPU core decodes and augments (0: no decode) */
	double dali_per_gpu;      /* samples/s one GPU decodes with DALI/nvJPEG (0: n/a) */
	double conv_efficiency;   /* achieved fraction of the GEMM ceiling for its convolutions */
	double tokens;            /* tokens per sample when it is a sequence model (0: none) */
	double extra_params; /* transformers: parameters outside blocks and embeddings (ViT patch embedding, classifier) */
	double input_elems; /* elements of the input the figures above are for (0: not scalable) */
	int input_dims;     /* its dimensions: 2 image, 3 volume (3D convolutions), 1 audio */
};

/*
 * One workload.  Fill name, kind and dims or sample, then call
 * workload_finish(); or use workload_preset(), workload_from_hf_config() or
 * workload_from_dims().  The derived fields are read-only for callers.
 */
struct workload {
	char name[64];        /* an identifier: the preset or config.json name, cut at a character */
	char sample_unit[16]; /* "sequences", "images", "volumes", "graphs", "utterances" */
	enum workload_kind kind;
	int dtype; /* config.json torch_dtype as enum model_precision, or -1 */
	/*
	 * config.json quantization_config: the precision its weights are
	 * stored at (mxfp4, modelopt NVFP4 or FP8, fp8, compressed-tensors
	 * nvfp4, GPTQ/AWQ int4 or int8); MODEL_FP32 (0, a zeroed workload's
	 * value) when not quantised.  The resolver serves such weights as
	 * --weight-precision unless one is given.
	 */
	enum model_precision weight_quant;
	struct workload_dims d;
	struct workload_sample s;
	/*
	 * What workload_load() read, so that a command line can name it again:
	 * the preset name or config.json path ("" for a model given by
	 * dimensions), and the dimensions as read, before any flag changed them.
	 */
	char origin[256];
	struct workload_dims origin_d;

	/* derived by workload_finish() */
	double params;               /* total parameters */
	double params_active;        /* parameters used per token (MoE: top-k experts) */
	double params_embedding;     /* input embedding (+ position table) */
	double params_head;          /* separate output layer (0 when tied or absent) */
	double params_layer;         /* one block, all experts */
	double params_layer_attn;    /* one block: attention matrices + norms */
	double params_layer_mlp;     /* one block: one expert's MLP (dense: the MLP) */
	double params_layer_router;  /* one block: MoE router */
	double params_lora_per_rank; /* adapter parameters per unit of LoRA rank, whole model */
	double flops_token_dense; /* forward matmul FLOPs per token, all layers, excluding attention scores and the head */
	double flops_token_attn; /* forward attention-score FLOPs per token per token of context, all layers (full, not causal) */
	double flops_token_head;       /* forward FLOPs per token of the output layer */
	int kv_dim;                    /* kv_heads x head_dim (MLA: heads x the mean of K's and V's head widths) */
	int q_dim;                     /* heads x head_dim */
	double moe_layers;             /* layers with routed experts (0 for a dense model) */
	double params_layer_dense_mlp; /* per layer, averaged over the layers: the MLPs every token
					  passes through (dense layers' MLP, shared experts) */
	double ffn_active;     /* per layer, averaged: MLP width one token passes through (k + shared experts) */
	double kv_cache_elems; /* KV-cache elements per token per layer, whole model (MLA: the latent) */
	double params_mtp;     /* multi-token-prediction modules (not in params: trained, not served) */
	double params_mtp_experts; /* ... of which routed experts */
	double flops_token_mtp;    /* their forward matmul FLOPs per token, head included */
};

/*
 * Parses an input shape, "224x224", "128x128x128" or "16000" (up to four
 * positive dimensions): *elems gets their product, *dims their count.
 * Returns 0 or -1 when malformed.
 */
int workload_parse_shape(const char *s, double *elems, int *dims);

/* Names of the built-in presets, in file order; *n set to the count.  Static. */
const char *const *workload_preset_names(size_t *n);

/*
 * Fills w from the embedded preset table (data/models/presets.csv).  Returns
 * 0, or -1 with err naming the unknown preset and the closest names.
 */
int workload_preset(struct workload *w, const char *name, struct diag *err);

/*
 * Fills w from a Hugging Face config.json held in buf (name is used in
 * messages).  Reads hidden_size, num_hidden_layers, num_attention_heads,
 * num_key_value_heads, intermediate_size, vocab_size,
 * max_position_embeddings, tie_word_embeddings, num_local_experts,
 * num_experts_per_tok, head_dim, the latent-attention, shared-expert and
 * layer-pattern keys of DeepSeek-V3, Qwen3-MoE and Llama 4 (docs/model.md
 * §1), hidden_act, model_type and the GPT-2/BLOOM
 * spellings (n_embd, n_layer, n_head ...).  Returns 0, or -1 with err
 * located at file:line:col for bad JSON, or naming the missing keys.
 */
int workload_from_hf_json(struct workload *w, const char *name, const char *buf, size_t len, struct diag *err);
/* Reads the file, then workload_from_hf_json(). */
int workload_from_hf_config(struct workload *w, const char *path, struct diag *err);

/*
 * A preset name, or a config.json path (one containing '/' or ending in
 * ".json", or naming an existing file when no preset has that name).
 */
int workload_load(struct workload *w, const char *spec, struct diag *err);

/*
 * Appends the flags that name w to an estimate command line: --model and
 * the dimension flags whose values differ from what was loaded, or every
 * dimension flag for a model given by dimensions.  A path is single-quoted
 * for a POSIX shell.
 */
void workload_flags(const struct workload *w, struct strbuf *out);

/* A decoder transformer from explicit dimensions (the --layers ... flags). */
int workload_from_dims(struct workload *w, const char *name, const struct workload_dims *d, struct diag *err);

/*
 * Checks the dimensions (positive, heads divide hidden, kv_heads divide
 * heads ...) and computes the derived fields.  Returns 0, or -1 with err
 * naming the field.
 */
int workload_finish(struct workload *w, struct diag *err);

/* ---------------------------------------------------------------------------
 * Configurations.
 */

struct model_config {
	const struct cat_gpu *gpu; /* peaks, memory, bandwidth, power come from here */
	int gpus;                  /* total GPUs = tp x cp x pp x dp (x nothing for ep: experts shard within dp) */
	int gpus_per_node;

	/* links: fill with model_links_from_catalog() or by hand */
	enum model_link intra_kind;
	double intra_gbps; /* GB/s per direction per GPU inside a server */
	double intra_lat_us;
	int intra_nvls;            /* the switch reduces in the network (NVLS, NVSwitch gen 3+) */
	double inter_gbps_per_gpu; /* scale-out GB/s per direction per GPU (node NICs / GPUs per node); 0: none */
	double inter_lat_us;
	double host_gbps; /* GPU-host PCIe GB/s per direction (offload) */

	enum model_task task;
	enum model_precision precision;
	int tp, pp, dp, ep, vpp; /* ep x etp divides tp x cp x dp (MoE parallel folding); vpp >= 1 */
	int etp;                 /* expert-tensor parallel: each expert's matrices split over etp GPUs; 0: tp */
	int cp;                  /* context parallel: each sequence split over cp GPUs, K/V passed
					  around a ring (training, flash attention); 1: none.  Ranks run
					  tp fastest, then cp, dp, pp */
	int zero;                /* 0-3 (FSDP full sharding is 3) */
	enum model_recompute recompute;
	int seq_parallel;

	/*
	 * ZeRO-3: hsdp, hybrid sharding (FSDP HYBRID_SHARD): the states sharded
	 * over groups of hsdp ranks of the dp x cp group, the dp x cp / hsdp
	 * replicas all-reducing gradients (0: shard over all of dp x cp);
	 * reshard_after_forward, gathered weights freed after each layer's
	 * forward and gathered again in backward (1, FSDP's default) or kept
	 * until backward (0, FSDP SHARD_GRAD_OP: one gather per micro-batch).
	 */
	int hsdp;
	int reshard_after_forward;
	enum model_zero3_impl zero3_impl; /* --zero3-impl: fsdp (default) or deepspeed-2021 */
	enum model_overlap overlap;       /* --comm-overlap: grad (default), grad+param, grad+param+tp */
	/*
	 * torchao float8 (fp8 under --engine compile): 1 when each fp8 linear
	 * keeps its transposed fp8 weight from forward to backward (torchao
	 * before force_recompute_fp8_weight_in_bwd), 0 when the backward
	 * rebuilds it from the gathered weight (the default).
	 */
	int fp8_saved_weights;

	int flash;        /* fused (flash) attention: 1 on, 0 off, -1 auto (on for GPUs with
					  bf16 tensor cores in 16-bit or fp8; model_config_complete resolves it) */
	int micro_batch;  /* samples per micro-batch per pipeline */
	int global_batch; /* samples per optimizer step, all data-parallel ranks */
	int seq_len;      /* tokens per sample */
	enum model_optimizer optimizer;
	enum model_master master;  /* fp32 master weights or none (pure 16-bit) */
	int optimizer_in_backward; /* each gradient applied and freed during backward */
	enum model_offload offload;
	int activation_offload; /* activations held in host memory between forward and backward */
	int lora_rank;
	enum model_lora_targets lora_targets;
	enum model_logits logits;
	enum model_mlm_head mlm_head; /* --mlm-head masked (default) or all */
	/*
	 * --autocast on: eager PyTorch under torch.autocast with fp32 weights
	 * (docs/model.md, "Autocast in eager code"): the norms, the residual
	 * stream and the unfused softmax run in fp32, each linear casts its
	 * fp32 input and weight to 16 bits.  0 (default): 16-bit activations.
	 */
	int autocast;

	/* inference (task MODEL_TASK_INFER) */
	int batch; /* concurrent requests */
	int prompt_len, output_len;
	enum model_precision kv_precision;
	int cuda_graphs; /* decode steps captured as CUDA Graphs */

	/* per-sample workloads: data loading */
	enum model_loader loader;
	double cpu_cores_per_gpu; /* 0: unknown (loading is not a limit, only reported) */
	int cudnn_benchmark;      /* cudnn.benchmark = True */
	/*
	 * 3D convolutions: channels_last 1 runs them on NDHWC tensors
	 * (torch.channels_last_3d, or a graph compiler's layout), 0 on NCDHW
	 * (eager PyTorch's default), -1 as the engine lays them out (compile
	 * and TensorRT channels-last, the rest not: model_channels_last());
	 * conv3d_legacy 1: a software stack without cuDNN 8's tensor-core 3D
	 * kernels (cuDNN before 8.0.2, TensorFlow 1.x), docs/model.md
	 */
	int channels_last;
	int conv3d_legacy;

	/* amount of work, for time to train: tokens, or samples x epochs; 0 = none */
	double train_tokens;
	double train_samples;
	double epochs;

	/* how the work runs (model/engine.h); defaults: eager, weights at the compute precision */
	enum model_engine engine;
	int weight_precision; /* enum model_precision of the stored weights; -1: cfg->precision
					  (QLoRA's frozen base: NF4) */
	/* model/quant.h row that runs the quantised linears at inference, MODEL_QUANT_NONE or _DEFAULT */
	int quant_kernel;
	/* per-sample workloads: input size; 0 = the preset's own (workload s.input_shape) */
	double input_elems; /* product of the --input-shape dimensions */
	int input_dims;     /* how many dimensions it has */
	/* a MIG slice instead of the whole GPU: compute slices (1, 2, 3, 4 of 7); 0 = the whole GPU */
	int mig;
};

/*
 * The share of a GPU's compute and of its memory (capacity and bandwidth)
 * a MIG instance of `slices` compute slices gets: NVIDIA's profiles on
 * 7-slice parts (A100, H100, H200, B200) pair 1, 2, 3, 4 and 7 compute
 * slices with 1, 2, 4, 4 and 8 of 8 memory slices (1g.10gb ... 7g.80gb on an
 * A100 80GB); 4-slice parts (A30) split both evenly.  Returns 0, or -1 when
 * the GPU has no MIG or no such profile.
 */
int model_mig_share(const struct cat_gpu *g, int slices, double *compute, double *memory);

/* Defaults: bf16, tp=pp=dp=ep=vpp=1, zero 0, no recompute, flash auto, AdamW, 1 GPU. */
void model_config_defaults(struct model_config *cfg);

/*
 * Fills what was left 0 from the workload and the other fields: dp from
 * gpus/(tp*pp), gpus from tp*pp*dp, seq_len from the workload, micro_batch
 * (decoders 1; encoders 32 or the per-rank batch; per-sample networks the
 * per-rank batch, else 32), global_batch from micro_batch*dp, prompt and
 * output lengths (a prompt of up to 2048 tokens that leaves room for 256
 * generated), lora_rank 16 for LoRA tasks, and flash -1 (auto) to 0 or 1.
 */
/* The most GPUs one configuration may use (tp x pp x dp, --gpus). */
#define MODEL_MAX_GPUS 1000000
void model_config_complete(const struct workload *w, struct model_config *cfg);

/*
 * Checks a completed config against the workload.  Returns 0, or -1 with err
 * naming the option in err->field ("tp", "gpus", "micro-batch" ...) and a
 * message saying what would be valid ("--tp 3 does not divide the 32
 * attention heads; use 1, 2, 4, 8, 16 or 32").
 */
int model_config_check(const struct workload *w, const struct model_config *cfg, struct diag *err);

/*
 * The stored weight precision wp (enum model_precision, -1: none) against
 * the task: a training run other than LoRA/QLoRA trains every weight, so it
 * stores none apart from its working precision (precision; -1 when several
 * are tried, as plan does), and QLoRA's base is 4-bit.  Part of
 * model_config_check(); callers that search precisions check it once.
 * Returns 0, or -1 with err->field "weight-precision".
 */
int model_weight_precision_check(enum model_task task, int precision, int wp, struct diag *err);

/* ---------------------------------------------------------------------------
 * The scenario resolver: the one place that holds the defaults.
 *
 * A request is what a user (flags, a case row, a host) gave; MODEL_UNSET
 * marks what was not given, and an explicit 0 is a value (zero stage 0,
 * --output-len 0: one forward pass).  model_resolve() completes it into a
 * checked model_config, every default decided here: precision (the
 * workload's dtype where the GPU has it, else bf16, fp16, fp32), KV-cache
 * precision (the working precision's, fp8 caches bf16), flash attention
 * (on where the GPU has bf16 tensor cores and the precision is 16-bit or
 * fp8), GPUs per node (the server's, else up to 8), the scale-out network of
 * a multi-node run (the server's NICs, else the catalog's usual fabric for
 * the GPU's generation, said in a note), the optimizer and its state
 * precision, the ZeRO stage, and, when only --gpus is given, the layout:
 * the fastest that fits.  estimate, validate, plan and check call it.
 */
#define MODEL_UNSET (-1)
/* model_config.quant_kernel (and model_request's): no kernel (the weights read at the stream rate), or
 * the default for the stored precision and engine, which model_config_complete() picks */
#define MODEL_QUANT_NONE (-1)
#define MODEL_QUANT_DEFAULT (-2)

struct model_request {
	const struct cat_gpu *gpu;       /* NULL: the server's GPU */
	const struct cat_server *server; /* NULL: none (generic build) */
	const char *network;             /* NULL: the server's NICs or the usual fabric */
	int gpus, gpus_per_node;
	int task, precision, kv_precision, recompute, optimizer, offload, flash, loader, cudnn_benchmark;
	int channels_last, conv3d_legacy; /* --channels-last on|off; the cases' conv3d column */
	int master, optimizer_in_backward, activation_offload, lora_targets, logits;
	int tp, pp, dp, ep, vpp, cp, zero, seq_parallel, etp;
	int hsdp, reshard_after_forward; /* --hsdp N (0: full shard), --reshard-after-forward on|off */
	int zero3_impl;                  /* enum model_zero3_impl */
	int overlap;                     /* enum model_overlap */
	int fp8_saved_weights;           /* --fp8-saved-weights on|off */
	int mlm_head;                    /* enum model_mlm_head */
	int autocast;                    /* --autocast on|off */
	int micro_batch, global_batch, seq_len, lora_rank;
	int batch, prompt_len, output_len, cuda_graphs;
	int engine, weight_precision, mig; /* enum model_engine, enum model_precision, MIG slices */
	int quant_kernel;   /* model/quant.h row, MODEL_QUANT_NONE, or MODEL_QUANT_DEFAULT when not given */
	double input_elems; /* --input-shape: product of its dimensions; 0: the preset's */
	int input_dims;
	double cpu_cores_per_node;                  /* < 0: not given */
	double train_tokens, train_samples, epochs; /* <= 0: none */
};

/*
 * What the resolver decided that the user did not say, one sentence each,
 * whole: text[0..n-1] are malloc()ed and owned by the notes; free them
 * with model_notes_release().
 */
#define MODEL_NOTES_MAX 6
struct model_notes {
	int n;
	char *text[MODEL_NOTES_MAX];
};
/* Frees the sentences and empties the notes (n = 0). */
void model_notes_release(struct model_notes *n);

/* Every field MODEL_UNSET (pointers NULL, amounts of work 0). */
void model_request_init(struct model_request *q);

/*
 * The stored weight precision of a run (model_config.weight_precision):
 * `given` (enum model_precision) when not MODEL_UNSET; else, serving a
 * quantised checkpoint (workload.weight_quant), its precision; else -1
 * (the working precision).  The resolver and plan both decide it here.
 */
int model_default_weight_precision(const struct workload *w, enum model_task task, int given);

/*
 * Whether a run lays its 3D convolutions out channels-last (NDHWC):
 * cfg->channels_last when 0 or 1; otherwise as its engine does (a graph
 * compiler, torch.compile or TensorRT, picks NDHWC; eager PyTorch keeps
 * NCDHW).  The resolver and the time model both decide it here.
 */
int model_channels_last(const struct model_config *cfg);
/*
 * 0 when `given` (a channels_last setting; MODEL_UNSET or -1: the engine's)
 * can apply to w, a network of 3D convolutions; else -1 with err on
 * "channels-last".
 */
int model_channels_last_check(const struct workload *w, int given, struct diag *err);
/*
 * 0 when c's --mlm-head can apply to w (masked, the default, always does;
 * all only to an encoder's masked-LM pre-training); else -1 with err on
 * "mlm-head".
 */
int model_mlm_head_check(const struct workload *w, const struct model_config *c, struct diag *err);
/*
 * 0 when c's --autocast can apply (off always does; on only to eager
 * pre-training or fine-tuning in fp16 or bf16 with fp32 master weights);
 * else -1 with err on
 * "autocast".
 */
int model_autocast_check(const struct model_config *c, struct diag *err);

/*
 * Completes q for workload w into *out, checked.  Returns 0 with what it
 * chose in *notes (may be NULL; written afresh, so release notes a
 * previous call filled before passing them again; release them after a
 * failure too), or -1 with err naming the flag in
 * err->field ("gpu", "network", "tp" ...).  Not hot: it may run the model
 * over every layout when it picks one.
 */
int model_resolve(const struct workload *w, const struct catalog *cat, const struct model_request *q,
		  struct model_config *out, struct model_notes *notes, struct diag *err);

/*
 * The estimate flags that reproduce cfg exactly: every resolved choice is
 * written out (precision, flash attention, optimizer, KV cache ...), so the
 * line means the same whatever the defaults become.  Hardware flags
 * (--gpu, --server, --network) are the caller's.  Appends the line to out.
 */
void model_config_flags(const struct workload *w, const struct model_config *cfg, struct strbuf *out);

/*
 * Layouts.  One set of divisibility rules for every command: a tensor
 * degree divides the attention heads and the MLP width; a pipeline degree
 * is at most the layers (stages may be uneven: the most loaded holds
 * ceil(L/pp)) and, interleaved, pp x vpp divides the layers.
 */
int model_tp_valid(const struct workload *w, int tp);
int model_pp_valid(const struct workload *w, int pp, int vpp, int even);
/* Layers on the most loaded pipeline stage: ceil(L / pp). */
double model_stage_layers(const struct workload *w, const struct model_config *cfg);

/*
 * Iterates the (tp, pp) pairs for `gpus` GPUs: tp valid and at most max_tp
 * (0: no limit), pp valid (even: stages must divide the layers), tp x pp
 * dividing gpus.  Start with model_layout_begin(), then while
 * (model_layout_next(&it)) use it.tp, it.pp, it.dp.
 */
struct model_layout_iter {
	const struct workload *w;
	int gpus, max_tp, even;
	int tp, pp, dp;
};
void model_layout_begin(struct model_layout_iter *it, const struct workload *w, int gpus, int max_tp, int even);
int model_layout_next(struct model_layout_iter *it);

/* ---------------------------------------------------------------------------
 * Results.
 */

/* Memory on the most loaded GPU, bytes. */
struct model_memory {
	double weights_bytes; /* working weights (frozen base for LoRA, 4-bit for QLoRA) */
	double gradients_bytes;
	double optimizer_bytes;         /* moments + fp32 master weights */
	double activations_bytes;       /* stored for backward, all micro-batches in flight */
	double activations_layer_bytes; /* one layer, one micro-batch */
	int microbatches_in_flight;
	double logits_bytes;    /* output layer and loss buffers */
	double lora_bytes;      /* adapters with their gradients and optimizer */
	double kv_cache_bytes;  /* inference */
	double buffers_bytes;   /* ZeRO gather buffers, communication buckets, workspaces */
	double allocated_bytes; /* sum of the above: torch.cuda.max_memory_allocated */
	double reserve_bytes;   /* caching allocator fragmentation */
	double reserved_bytes;  /* allocated + reserve: torch.cuda.max_memory_reserved */
	double paged_bytes;     /* paged optimizer states in unified memory, outside the allocator */
	double context_bytes;   /* CUDA context, cuBLAS/cuDNN handles, NCCL */
	double total_bytes;     /* reserved + paged + context: the device's used memory (nvidia-smi) */
	double capacity_bytes;  /* the GPU's memory */
	double host_bytes;      /* offloaded to host memory, per GPU */
	int fits;               /* total_bytes <= capacity_bytes */
};

/* One training step (one optimizer step), seconds, on the slowest GPU. */
struct model_time {
	double step_s;
	double gemm_s;          /* matrix multiplies, forward + backward */
	double attention_s;     /* attention scores and softmax */
	double memory_bound_s;  /* normalisation, activations, elementwise */
	double recompute_s;     /* forward work repeated in backward */
	double optimizer_s;     /* optimizer update */
	double tp_comm_s;       /* tensor-parallel collectives (not overlapped) */
	double ep_comm_s;       /* expert-parallel all-to-all */
	double cp_comm_s;       /* context-parallel K/V ring, the part attention does not hide */
	double pp_bubble_s;     /* pipeline fill and drain */
	double pp_p2p_s;        /* pipeline sends between stages */
	double dp_comm_s;       /* data-parallel gradient collective, exposed part */
	double dp_comm_total_s; /* ... and its whole duration */
	double zero_comm_s;     /* ZeRO-3 parameter gathers, exposed part */
	double offload_s;       /* host transfers and CPU optimizer, exposed part */
	double data_s;          /* data loading, exposed part */
	double overhead_s;      /* kernel launches and framework overhead */
	double straggler_s;     /* waiting for the slowest server at the step's synchronisations */
	double compute_s;       /* gemm + attention + memory-bound + recompute (busy GPU time) */
};

struct model_infer {
	double prefill_s;            /* prompt of the whole batch: time to first token */
	double decode_token_s;       /* one output token for the whole batch */
	double request_s;            /* prefill + output_len decode steps */
	double tokens_per_s;         /* generated tokens/s, whole job */
	double samples_per_s;        /* requests/s, whole job */
	double decode_weights_bytes; /* bytes read per decode step: weights */
	double decode_kv_bytes;      /* ... and KV cache (average over the output) */
	double launch_s;             /* per forward pass: kernel launch overhead */
	double prefill_gpu_s;        /* the prefill's GPU time alone (prefill_s is it or launch_s, the longer) */
	double decode_gpu_s;         /* ... and one decode step's */
	double ttft_p99_s;           /* p99 time to first token with queueing at a request rate
					  (model_serving_replicas); 0: not computed, prefill_s stands */
};

/* Which resource bounds the step (bit flags). */
enum model_limit {
	MODEL_LIMIT_COMPUTE = 1u << 0,
	MODEL_LIMIT_MEMORY_BW = 1u << 1,
	MODEL_LIMIT_COMM = 1u << 2,
	MODEL_LIMIT_BUBBLE = 1u << 3,
	MODEL_LIMIT_DATA = 1u << 4,
	MODEL_LIMIT_LAUNCH = 1u << 5,
	MODEL_LIMIT_CAPACITY = 1u << 6, /* does not fit */
};

struct model_result {
	struct model_memory mem;
	struct model_time time;
	struct model_infer infer;    /* task MODEL_TASK_INFER */
	double tokens_per_s;         /* whole job (training: tokens trained; inference: generated) */
	double samples_per_s;        /* whole job */
	double model_flops_per_step; /* 6N per token + attention (Megatron/PaLM convention), all GPUs */
	double hw_flops_per_step;    /* model FLOPs + recomputation */
	double mfu;                  /* model FLOPs / (time x GPUs x dense peak) */
	double mfu_tflops_per_gpu;
	double hfu_tflops_per_gpu; /* hardware FLOPs per GPU per second */
	double peak_tflops;        /* dense peak at the precision */
	double time_to_train_s;    /* for train_tokens or train_samples x epochs; 0 when not given */
	double train_steps;        /* optimizer steps of that run, whole, at least 1; 0 when not given */
	double power_w;            /* average draw per GPU */
	double energy_kwh;         /* GPUs only, over time_to_train_s (or one hour when not given) */
	double data_samples_per_s; /* what the data loader can supply, whole job (0: no loading) */
	double data_cores_needed;  /* CPU cores per GPU the loader needs to keep up */
	unsigned limits;           /* enum model_limit bits */
};

/*
 * Memory per GPU only: cheap, for pruning a search.  Returns 0, or -1 for a
 * degenerate config.  Same numbers as model_estimate()'s mem.
 */
int model_memory(const struct workload *w, const struct model_config *cfg, struct model_memory *out);

/*
 * Memory, step time, throughput, MFU/HFU, time to train and energy.  For
 * MODEL_TASK_INFER it fills infer and the throughput fields from the
 * inference model.  Returns 0, or -1 for a degenerate config.
 */
int model_estimate(const struct workload *w, const struct model_config *cfg, struct model_result *out);

/*
 * Whether the offloaded state (mem->host_bytes per GPU, for the
 * cfg->gpus_per_node GPUs of a server) fits in host_gib GiB of host memory
 * per server.  1 when nothing is offloaded; 0 when something is and
 * host_gib is not positive (unknown).
 */
int model_host_fits(const struct model_memory *mem, const struct model_config *cfg, double host_gib);

/* Whether cfg runs fused (flash) attention: cfg->flash, or with -1 the resolver's rule. */
int model_flash_on(const struct model_config *cfg);

/*
 * model_estimate() for a caller that already holds model_memory(w, cfg)'s
 * answer in *mem (a search that pruned with it): the same result without
 * computing the memory twice.  *mem must belong to this very w and cfg.
 */
int model_estimate_mem(const struct workload *w, const struct model_config *cfg, const struct model_memory *mem,
		       struct model_result *out);

/* ---------------------------------------------------------------------------
 * Search functions (slower: they call model_memory/model_estimate repeatedly).
 */

/* Largest micro-batch (<= limit) that fits; 0 when even 1 does not. */
int model_max_micro_batch(const struct workload *w, const struct model_config *cfg, int limit);

/*
 * Inference: the largest batch (<= max_batch) whose worst-case latency under
 * dynamic batching, 2 x one batch's forward (a request waits for the batch in
 * flight, then runs in the next), stays within target_s.  0 when none does.
 */
int model_batch_for_latency(const struct workload *w, const struct model_config *cfg, double target_s,
			    int max_batch);

/*
 * One suggested change and its predicted effect.  flags is malloc()ed and
 * owned by the entry (model_advice_release()); what is static text.
 */
struct model_advice {
	const char *what;   /* static: "activation checkpointing (full recompute)" */
	char *flags;        /* how to ask for it: "--recompute full" */
	double step_s;      /* predicted step time with the change */
	double total_bytes; /* predicted memory with the change */
	double speedup;     /* old step time / new (below 1: slower) */
	int fits;
};

/*
 * When cfg does not fit: the changes that make it fit, cheapest in step time
 * first (gradient accumulation, recompute, ZeRO stage, more TP/PP, offload).
 * Returns how many were written (<= max).
 */
size_t model_fit_advice(const struct workload *w, const struct model_config *cfg, struct model_advice *out,
			size_t max);

/*
 * Optimisations worth turning on for cfg, best first, each with its
 * predicted effect: mixed precision / TF32, flash attention, checkpointing
 * with a larger micro-batch, ZeRO, DALI, gradient accumulation, CUDA Graphs,
 * cudnn.benchmark.  Only changes that keep the workload fitting and help.
 */
size_t model_recommend(const struct workload *w, const struct model_config *cfg, struct model_advice *out,
		       size_t max);
/* Frees the n entries' text (as model_fit_advice()/model_recommend() wrote them) and zeroes them. */
void model_advice_release(struct model_advice *a, size_t n);

/* ---------------------------------------------------------------------------
 * Links from the catalog (shared by estimate, validate and plan).
 */

/*
 * Fills the link fields of cfg for cfg->gpu in servers of cfg->gpus_per_node
 * GPUs: the GPU's own fabric (NVLink through NVSwitch for SXM parts in
 * servers of more than 4, NVLink bridges for pairs of PCIe cards, PCIe
 * otherwise), or the server's when server is not NULL; the scale-out fabric
 * from `network` ("ib-hdr-8x200", "roce-4x400", "ib-ndr": N adapters of G
 * Gb/s per node; a bare fabric means one adapter per GPU at its rate), else
 * from the server's NICs, else none.  Returns 0, or -1 with err naming the
 * field ("network") and what would be valid.
 */
int model_links_from_catalog(struct model_config *cfg, const struct catalog *cat, const struct cat_server *server,
			     const char *network, struct diag *err);

/*
 * Parses a network spec ("ib-hdr-8x200") against the catalog's scale-out
 * links.  Sets *adapters (0 when the spec gives none), *gbit_per_adapter and
 * the fabric row.  Returns 0 or -1 with why.
 */
int model_parse_network(const struct catalog *cat, const char *spec, int *adapters, double *gbit_per_adapter,
			const struct cat_link **fabric, char *why, size_t why_len);

/* ---------------------------------------------------------------------------
 * Hardware microbenchmarks as the model sees them (validate's "bench" cases).
 */

/* Achievable dense GEMM TFLOP/s for an m x n x k multiply at a precision. */
double model_gemm_tflops(const struct cat_gpu *gpu, enum model_precision p, double m, double n, double k);
/* Achievable HBM stream bandwidth, GB/s. */
double model_hbm_gbps(const struct cat_gpu *gpu);
/*
 * The shortest time a cold prefill of `prompt` tokens can take under cfg, s:
 * the prompt's forward FLOPs (the dense layers and causal attention, as
 * estimate counts them; no output layer) at the dense datasheet peak of one
 * replica's tp x pp GPUs at cfg's precision.  No achieved fraction, launch or
 * memory time enters: a measured time to first token below it cannot be the
 * prompt's own forward pass.  0 when the GPU has no peak at the precision or
 * the workload is not a transformer.
 */
double model_prefill_floor_s(const struct workload *w, const struct model_config *cfg, double prompt);
/* Achievable pinned host-to-device copy bandwidth, GB/s. */
double model_h2d_gbps(const struct cat_gpu *gpu);
/*
 * nccl-tests all-reduce bus bandwidth, GB/s, for a large message across
 * cfg->gpus GPUs with cfg's links.
 */
double model_allreduce_busbw_gbps(const struct model_config *cfg);
/*
 * The time of one NCCL collective ("allreduce", "allgather",
 * "reducescatter", "alltoall"; anything else as one send: "broadcast",
 * "reduce", "sendrecv") of `bytes` per rank over n ranks on cfg's links
 * (model_links_from_catalog()), s: the model's ring bus-bandwidth formula.
 */
double model_collective_s(const struct model_config *cfg, const char *collective, double bytes, int n);


/* One GEMM of a transformer layer (or its output layer), for `bench --model`. */
struct model_gemm {
	const char *label; /* "qkv", "attn-out", "mlp-up", "mlp-down", "logits" (static) */
	double m, n, k;    /* m = tokens of the micro-batch */
};
/*
 * The forward GEMMs of one layer of w (and its output layer) at micro_batch
 * sequences of seq_len tokens, without tensor parallelism: at most 5 into
 * out; returns how many (0 for a per-sample workload).
 */
size_t model_workload_gemms(const struct workload *w, int micro_batch, int seq_len, struct model_gemm out[5]);

/* ---------------------------------------------------------------------------
 * Measured ceilings (`gpuscope bench`'s calibration file, docs/bench.md).
 */

/* What bench measured on one GPU type.  A figure <= 0 or NaN was not measured. */
/*
 * The parts of a training step a profile corrects (docs/profile.md,
 * "Calibrating the model from a trace"): each is the traced time over the
 * model's own for the same workload.
 */
enum model_corr {
	MODEL_CORR_GEMM,      /* gemm_s */
	MODEL_CORR_ATTENTION, /* attention_s */
	MODEL_CORR_MEMORY,    /* memory_bound_s + optimizer_s */
	MODEL_CORR_COMM,      /* the exposed communication */
	MODEL_CORR_HOST,      /* overhead_s + data_s: the GPU's idle time */
	MODEL_NCORR
};
/* The name of a part ("gemm", "attention", "memory_bound", "comm", "host"); NULL when out of range. */
const char *model_corr_name(int i);

struct model_calibration {
	const struct cat_gpu *gpu;           /* the type the figures replace (catalog row) */
	double gemm_tflops[MODEL_FP8 + 1];   /* best GEMM by precision, TFLOP/s */
	double gemm_shape[MODEL_FP8 + 1][3]; /* its m, n, k */
	double hbm_gbps;                     /* HBM stream (copy) rate, GB/s */
	/* where the figures come from, for the output (borrowed; may be NULL) */
	const char *file;         /* the calibration file */
	const char *date;         /* when they were measured, ISO 8601 UTC */
	const char *gpu_name;     /* the measured GPU's own name */
	double corr[MODEL_NCORR]; /* a profile's measured / estimated time per part; 0: none */
};

/*
 * From now on the model takes c's figures for c->gpu in place of the
 * catalog's peak x generation fraction (GEMM) and stream bandwidth (HBM);
 * c is copied, its text too (the copy lives until the next call for the
 * same GPU type or model_calibration_use(NULL)).  NULL forgets every calibration.  Call it before any
 * prediction runs (not thread-safe against them).
 */
void model_calibration_use(const struct model_calibration *c);
/* The calibration in use for g, or NULL (valid until the next model_calibration_use). */
const struct model_calibration *model_calibration_of(const struct cat_gpu *g);
/*
 * The large-GEMM fraction of dense peak that the measured figure at
 * precision p implies once the model's shape and wave losses at its shape
 * are taken out; NaN when p was not measured.
 */
double model_calibration_emax(const struct model_calibration *c, enum model_precision p);
/*
 * Scales each part of a training step's time t by c's correction for it
 * (parts without one stay) and moves step_s by the parts' changes.
 */
void model_calibration_correct(const struct model_calibration *c, struct model_time *t);
/* Whether c holds any part's correction; any measured ceiling (GEMM or HBM). */
int model_calibration_has_corrections(const struct model_calibration *c);
int model_calibration_has_ceilings(const struct model_calibration *c);

/* One ceiling a calibration replaces: the measured figure and the catalog's at the same shape. */
struct model_ceiling {
	const char *name; /* "gemm-bf16" ... "hbm" (static) */
	const char *unit; /* "TFLOP/s" or "GB/s" (static) */
	double measured;  /* what bench measured */
	double catalog;   /* what the catalog and model give for the same thing */
};
#define MODEL_CEILINGS_MAX (MODEL_FP8 + 2)
/*
 * The ceilings c replaces, GEMM by precision then HBM, into out (at most
 * MODEL_CEILINGS_MAX); returns how many.  GEMM's catalog figure is peak x
 * the generation's fraction x the shape losses at the measured shape, so
 * catalog / measured is the factor the calibration puts on a GEMM's time
 * (docs/bench.md, "How the figures feed the model").
 */
size_t model_calibration_ceilings(const struct model_calibration *c, struct model_ceiling out[MODEL_CEILINGS_MAX]);
/* The i-th calibration in use (load order), or NULL past the last. */
const struct model_calibration *model_calibration_at(size_t i);

#endif
