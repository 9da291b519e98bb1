/*
 * Execution engines: how a step is launched from the host, and what a serving
 * engine does with the memory it is given.  Pure data and arithmetic; the
 * time model asks this module how many kernels a layer launches under an
 * engine and what each launch costs the CPU, and the serving model asks how
 * the engine sizes its KV cache.  docs/model.md "Engines" gives the sources.
 */
#ifndef GPUSCOPE_MODEL_ENGINE_H
#define GPUSCOPE_MODEL_ENGINE_H

#include "util/error.h"

enum model_engine {
	MODEL_ENGINE_EAGER,      /* eager PyTorch: every operation is a launch from Python */
	MODEL_ENGINE_COMPILE,    /* torch.compile (Inductor): elementwise chains fused, launched from Python */
	MODEL_ENGINE_CUDAGRAPHS, /* the step captured once and replayed (also HPU graphs) */
	MODEL_ENGINE_TENSORRT,   /* TensorRT engine: layers fused, enqueued from C++ */
	MODEL_ENGINE_TRTLLM,     /* serving engines: fused kernels, CUDA Graphs for decode, */
	MODEL_ENGINE_VLLM,       /* a scheduler step per iteration, paged KV cache */
	MODEL_ENGINE_SGLANG,
	MODEL_ENGINE_LMDEPLOY,
	MODEL_ENGINE_TGI,
	MODEL_ENGINE_HF, /* Hugging Face transformers generate: eager, plus its modelling code's host work */
	MODEL_ENGINE_COUNT
};

/*
 * What an engine costs and how it holds memory.  Static, one row per engine;
 * the host costs point at their constant, which for a fitted one is its
 * tune_fitted[] slot (model/tune.h), so that `validate --refit` moves it.
 */
struct model_engine_info {
	const char *name;
	int fused;                       /* elementwise work fused into neighbouring kernels */
	int serving;                     /* a serving engine: continuous batching, paged KV cache */
	int trains;                      /* can run a training step */
	const double *host_per_kernel_s; /* CPU time to launch one kernel, s */
	double host_per_step_s;          /* CPU time per forward pass besides launches (scheduler, sampling) */
	double host_per_seq_s;           /* ... and per running sequence in it */
	double mem_fraction;             /* share of the GPU's memory the engine may use (KV cache sizing) */
	int mem_of_free;                 /* mem_fraction applies to what the weights leave, not to the total */
	int kv_block_tokens;             /* paged KV cache block, tokens (1: token-level) */
	int max_seqs;                    /* default cap on running sequences */
	const double *host_per_layer_s;  /* CPU time per transformer layer per forward besides launches, s */
};

const struct model_engine_info *model_engine_info(enum model_engine e);
const char *model_engine_name(enum model_engine e);
/* -1 when s names no engine. */
int model_engine_from_name(const char *s);
/* "eager, compile, cudagraphs, ..." for messages; static. */
const char *model_engine_names_text(void);

/*
 * Kernels one transformer layer launches in a forward pass.  Unfused eager
 * code launches every elementwise operation (an RMSNorm is eight, rotary
 * embeddings a dozen); fused engines launch about TUNE_FUSED_KERNELS_PER_LAYER.
 */
double model_engine_layer_kernels(enum model_engine e, int gated_mlp, int rotary);

/*
 * Kernels a per-sample network launches per forward pass, from the count an
 * unfused eager run launches (`eager_kernels`): fused engines fold a
 * convolution's normalisation and activation into it.
 */
double model_engine_sample_kernels(enum model_engine e, double eager_kernels);

/*
 * Host time of one forward pass of `kernels` launches with `seqs` sequences
 * in it: kernels x host_per_kernel_s + host_per_step_s + seqs x
 * host_per_seq_s (one graph launch when replayed).
 */
double model_engine_host_s(enum model_engine e, double kernels, double seqs);

/*
 * Host time of one forward pass of a per-sample network whose eager code
 * runs `eager_ops` module operations (convolution, normalisation,
 * activation, add, pooling, linear; the preset's `kernels`): eager PyTorch
 * pays TUNE_EAGER_MODULE_OP_S for each, the other engines launch their
 * fused kernels (model_engine_sample_kernels) at their per-launch cost.
 */
double model_engine_sample_host_s(enum model_engine e, double eager_ops, double seqs);

/*
 * Whether the engine can run `task_is_training` work; -1 with err naming the
 * option ("engine") and what to use instead when it cannot.
 */
int model_engine_check(enum model_engine e, int task_is_training, struct diag *err);

#endif
