/*
 * Execution engines: launch costs and serving-memory defaults.  Every number
 * below is a named constant with its source; "estimate" marks the ones no
 * published measurement pins down, "fitted" the ones set against the fit
 * half of data/cases/published.csv (never its holdout rows).
 */
#include <string.h>

#include "model/engine.h"
#include "model/tune.h"

/*
 * TUNE_EAGER_LAUNCH_S, TUNE_EAGER_MODULE_OP_S and TUNE_HF_LAYER_S, fitted,
 * are in model/tune.h (read at run time, refitted by validate --refit).
 */
/* Inductor's generated wrapper launches Triton kernels without the eager dispatcher: half (estimate) */
#define TUNE_COMPILE_LAUNCH_S 3e-6
/* a kernel replayed from a CUDA Graph (one graph launch per pass; NVIDIA CUDA Graphs blog, ~0.5-1 us per node) */
#define TUNE_GRAPH_LAUNCH_S 0.6e-6
/* TensorRT enqueues its fused kernels from C++ (estimate) */
#define TUNE_TRT_LAUNCH_S 1.5e-6
/*
 * Per-step host work of a serving engine (scheduling, sampling,
 * detokenising), and per running sequence: vLLM after its 0.6 rework moved
 * most of it off the critical path (vLLM blog, "vLLM v0.6.0: 2.7x throughput
 * improvement", 2024-09-05); TensorRT-LLM's C++ runtime less (estimates).
 */
#define TUNE_SERVE_STEP_S 0.5e-3
#define TUNE_SERVE_SEQ_S 2e-6
#define TUNE_TRTLLM_STEP_S 0.2e-3
#define TUNE_TRTLLM_SEQ_S 1e-6
/*
 * Kernels per transformer layer forward.  Fused (Megatron/TransformerEngine
 * or any engine): norms, QKV, attention, output, MLP up/activation/down,
 * adds: about 14.  Unfused eager code (Hugging Face LlamaDecoderLayer,
 * counted): 20 launches for a LayerNorm/GeLU block, +12 for RMSNorm done in
 * eight elementwise steps twice, +12 for rotary embeddings, +2 for the gated
 * MLP's second projection and product.
 */
#define TUNE_FUSED_KERNELS_PER_LAYER 14
#define TUNE_EAGER_KERNELS_BASE 20
#define TUNE_EAGER_KERNELS_RMSNORM 12
#define TUNE_EAGER_KERNELS_ROTARY 12
#define TUNE_EAGER_KERNELS_GATED 2
/*
 * Per-sample networks: eager launches convolution, normalisation and
 * activation separately; TensorRT folds normalisation into the convolution
 * and fuses the activation (three launches become one, plus pooling and the
 * head: 0.35 of eager); torch.compile fuses normalisation and activation but
 * keeps cuDNN convolutions (two of three).
 */
#define TUNE_TRT_SAMPLE_KERNELS 0.35
#define TUNE_COMPILE_SAMPLE_KERNELS 0.67
/* generate's own loop per token: logits processors, stopping criteria, sampling, the next inputs (estimate) */
#define TUNE_HF_STEP_S 1e-3

/* the fixed host costs, where the rows below point (the fitted ones are tune_fitted[] slots) */
static const double none = 0, compile_launch_s = TUNE_COMPILE_LAUNCH_S, graph_launch_s = TUNE_GRAPH_LAUNCH_S,
		    trt_launch_s = TUNE_TRT_LAUNCH_S;

static const struct model_engine_info engines[MODEL_ENGINE_COUNT] = {
	/* name, fused, serving, trains, host/kernel, host/step, host/seq, mem fraction, of free, block, max seqs, host/layer */
	{"eager", 0, 0, 1, &TUNE_EAGER_LAUNCH_S, 0, 0, 1.0, 0, 1, 0, &none},
	{"compile", 1, 0, 1, &compile_launch_s, 0, 0, 1.0, 0, 1, 0, &none},
	{"cudagraphs", 1, 0, 1, &graph_launch_s, 0, 0, 1.0, 0, 1, 0, &none},
	{"tensorrt", 1, 0, 0, &trt_launch_s, 0, 0, 1.0, 0, 1, 0, &none},
	/* TensorRT-LLM: KvCacheConfig.free_gpu_memory_fraction 0.9 of what the weights leave, 64-token blocks, max batch 2048 */
	{"trtllm", 1, 1, 0, &graph_launch_s, TUNE_TRTLLM_STEP_S, TUNE_TRTLLM_SEQ_S, 0.90, 1, 64, 2048, &none},
	/* vLLM: gpu_memory_utilization 0.9 of the total, block_size 16, max_num_seqs 256 */
	{"vllm", 1, 1, 0, &graph_launch_s, TUNE_SERVE_STEP_S, TUNE_SERVE_SEQ_S, 0.90, 0, 16, 256, &none},
	/* SGLang: mem_fraction_static ~0.88, token-level pages (page_size 1) */
	{"sglang", 1, 1, 0, &graph_launch_s, TUNE_SERVE_STEP_S, TUNE_SERVE_SEQ_S, 0.88, 0, 1, 1024, &none},
	/* LMDeploy TurboMind: cache_max_entry_count 0.8 of free memory, 64-token blocks, max_batch_size 256 */
	{"lmdeploy", 1, 1, 0, &graph_launch_s, TUNE_SERVE_STEP_S, TUNE_SERVE_SEQ_S, 0.80, 1, 64, 256, &none},
	/* TGI: cuda_memory_fraction 1.0 (what warm-up leaves), 16-token blocks, max_concurrent_requests 128 */
	{"tgi", 1, 1, 0, &graph_launch_s, TUNE_SERVE_STEP_S, TUNE_SERVE_SEQ_S, 0.95, 0, 16, 128, &none},
	/* transformers generate: eager launches, its modelling code's Python per layer, generate's loop per step */
	{"hf", 0, 0, 0, &TUNE_EAGER_LAUNCH_S, TUNE_HF_STEP_S, 0, 1.0, 0, 1, 0, &TUNE_HF_LAYER_S},
};

const struct model_engine_info *model_engine_info(enum model_engine e)
{
	return (int)e >= 0 && e < MODEL_ENGINE_COUNT ? &engines[e] : &engines[MODEL_ENGINE_EAGER];
}

const char *model_engine_name(enum model_engine e)
{
	return (int)e >= 0 && e < MODEL_ENGINE_COUNT ? engines[e].name : "?";
}

int model_engine_from_name(const char *s)
{
	int i;
	if (!s)
		return -1;
	for (i = 0; i < MODEL_ENGINE_COUNT; i++)
		if (!strcmp(engines[i].name, s))
			return i;
	return -1;
}

const char *model_engine_names_text(void)
{
	return "eager, hf, compile, cudagraphs, tensorrt, trtllm, vllm, sglang, lmdeploy or tgi";
}

double model_engine_layer_kernels(enum model_engine e, int gated_mlp, int rotary)
{
	if (model_engine_info(e)->fused)
		return TUNE_FUSED_KERNELS_PER_LAYER;
	return TUNE_EAGER_KERNELS_BASE + (gated_mlp ? TUNE_EAGER_KERNELS_RMSNORM + TUNE_EAGER_KERNELS_GATED : 0) +
	       (rotary ? TUNE_EAGER_KERNELS_ROTARY : 0);
}

double model_engine_sample_kernels(enum model_engine e, double eager_kernels)
{
	if (e == MODEL_ENGINE_EAGER || e == MODEL_ENGINE_HF)
		return eager_kernels;
	if (e == MODEL_ENGINE_COMPILE || e == MODEL_ENGINE_CUDAGRAPHS)
		return eager_kernels * TUNE_COMPILE_SAMPLE_KERNELS;
	return eager_kernels * TUNE_TRT_SAMPLE_KERNELS;
}

double model_engine_sample_host_s(enum model_engine e, double eager_ops, double seqs)
{
	if (e == MODEL_ENGINE_EAGER || e == MODEL_ENGINE_HF)
		return eager_ops * TUNE_EAGER_MODULE_OP_S + seqs * model_engine_info(e)->host_per_seq_s;
	return model_engine_host_s(e, model_engine_sample_kernels(e, eager_ops), seqs);
}

double model_engine_host_s(enum model_engine e, double kernels, double seqs)
{
	const struct model_engine_info *in = model_engine_info(e);
	return kernels * *in->host_per_kernel_s + in->host_per_step_s + seqs * in->host_per_seq_s;
}

int model_engine_check(enum model_engine e, int task_is_training, struct diag *err)
{
	const struct model_engine_info *in = model_engine_info(e);
	if (task_is_training && !in->trains)
		return diag_set(err, "", 0, 0, "engine",
				"--engine %s runs inference only; train with eager, compile or cudagraphs",
				in->name);
	return 0;
}
