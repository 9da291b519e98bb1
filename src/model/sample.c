/*
 * Per-sample workloads (ResNet-50, 3D U-Net, GNN, speech), described by
 * published per-sample FLOPs, parameters and activation memory: their
 * memory, forward time, inference and training step.  docs/model.md,
 * "Per-sample workloads".
 */

#include <math.h>
#include <string.h>

#include "model/kernels.h"
#include "model/model_int.h"

/*
 * --input-shape: a convolutional network's FLOPs, activations, traffic and
 * input grow with the number of input elements (every layer's output scales
 * with the spatial size; the classifier head, a small share, is counted
 * with them).  1 at the preset's own shape.
 */
double sample_scale(const struct workload *w, const struct model_config *c)
{
	return c->input_elems > 0 && w->s.input_elems > 0 ? c->input_elems / w->s.input_elems : 1;
}

/*
 * Bytes of an activation element relative to 16 bits: 2 at fp32/tf32, 0.5
 * at int8 (TensorRT's int8 engines keep activations in INT8 between
 * layers), 1 otherwise.
 */
static double act_elem_rel(const struct model_config *c)
{
	if (c->precision == MODEL_FP32 || c->precision == MODEL_TF32)
		return 2;
	return c->precision == MODEL_INT8 ? 0.5 : 1;
}

/*
 * Per-sample workloads: weights, gradients and optimizer as for
 * transformers; activations = act_bytes x micro-batch, doubled at 32-bit;
 * full recompute (segment checkpointing) keeps about a quarter; the input
 * batch is double-buffered; cuDNN workspace.
 */
void mem_per_sample(const struct workload *w, const struct model_config *c, struct model_memory *o)
{
	struct state_bytes sb = state_bytes_of(c);
	double e = act_elem_rel(c);
	double P = w->params, dp = c->dp;
	double b = (c->task == MODEL_TASK_INFER ? c->batch : c->micro_batch) * sample_scale(w, c);

	memset(o, 0, sizeof(*o));
	if (c->task == MODEL_TASK_INFER) {
		o->weights_bytes = P * model_precision_bytes(c->precision);
		/* a forward pass keeps roughly two layers' outputs alive: a tenth of the training set */
		o->activations_bytes = w->s.act_bytes * e * b * TUNE_INFER_ACT_FRACTION;
	} else {
		o->weights_bytes = P * sb.weight / (c->zero >= 3 ? dp : 1);
		o->gradients_bytes = P * sb.grad / (c->zero >= 2 ? dp : 1);
		o->optimizer_bytes = P * sb.optim / (c->zero >= 1 ? dp : 1);
		if (c->offload != MODEL_OFFLOAD_NONE) {
			o->host_bytes = o->optimizer_bytes;
			o->optimizer_bytes = 0;
		}
		o->activations_bytes = w->s.act_bytes * e * b *
				       (c->recompute == MODEL_RECOMPUTE_FULL ? TUNE_CNN_CKPT_FRACTION : 1);
	}
	o->activations_layer_bytes = o->activations_bytes;
	o->microbatches_in_flight = 1;
	o->buffers_bytes = 2 * w->s.input_bytes * b + TUNE_WORKSPACE_BYTES +
			   (c->cudnn_benchmark ? TUNE_CUDNN_BENCH_BYTES : 0);
}

/* The path a run's 3D convolutions take through cuDNN (model/kernels.h). */
static enum model_conv3d_path conv3d_path(const struct model_config *c)
{
	if (c->conv3d_legacy)
		return MODEL_CONV3D_LEGACY;
	return model_channels_last(c) ? MODEL_CONV3D_NDHWC : MODEL_CONV3D_NCDHW;
}

/*
 * Time of one sample's memory-bound layers, s: their traffic (twice at
 * 32-bit, half at int8; TUNE_TRT_SAMPLE_TRAFFIC of it under TensorRT) at
 * the HBM stream rate.  A 3D network's unfused layers on the
 * current kernels reach TUNE_EAGER_MEM3D_EFF of it (an instance norm over a
 * few dozen planes); eager channels_last_3d adds the layout copies around
 * each norm, TUNE_CL3D_CONVERT more traffic at that same share
 * (docs/model.md, "3D convolutions").
 */
static double sample_mem_s(const struct workload *w, const struct model_config *c, const struct hw *h)
{
	double t = sample_scale(w, c) * w->s.mem_traffic_bytes * act_elem_rel(c) * h->inv_bw;
	/* TensorRT folds normalisation, activation and the residual add into each convolution */
	if (engine_of(c) == MODEL_ENGINE_TENSORRT)
		t *= TUNE_TRT_SAMPLE_TRAFFIC;
	if (w->s.input_dims != 3 || model_engine_info(engine_of(c))->fused || c->conv3d_legacy)
		return t;
	return t / TUNE_EAGER_MEM3D_EFF * (1 + (model_channels_last(c) ? TUNE_CL3D_CONVERT : 0));
}

/*
 * Forward time of one sample: convolutions/matmuls at the GEMM ceiling times
 * the convolution efficiency for their dimensions and path (model/kernels.c),
 * plus the memory-bound layers (sample_mem_s), both scaled by the input
 * size.  Backward: 2x both.
 */
double sample_fwd_s(const struct workload *w, const struct model_config *c, const struct hw *h)
{
	return sample_conv_s(w, c, h) + sample_mem_s(w, c, h);
}

/* The convolution (matmul) part of sample_fwd_s, s. */
double sample_conv_s(const struct workload *w, const struct model_config *c, const struct hw *h)
{
	int cuda_cores = c->precision == MODEL_FP32 || (c->precision == MODEL_TF32 && !(c->gpu->tf32_tflops > 0));
	enum model_conv3d_path path = conv3d_path(c);
	double ceff = w->s.conv_efficiency > 0 ? w->s.conv_efficiency :
						 model_conv_eff(w->s.input_dims, !cuda_cores, path);
	double tc = sample_scale(w, c) * w->s.fwd_flops / (h->peak * h->emax * ceff);
	/*
	 * TF32 convolutions reach a smaller share of their peak than 16-bit
	 * ones; cuDNN 8's 3D kernels (either layout) lose less than 2D ones
	 */
	if (c->precision == MODEL_TF32 && !cuda_cores)
		tc /= w->s.input_dims == 3 && path != MODEL_CONV3D_LEGACY ? TUNE_TF32_CONV3D_REL :
									    TUNE_TF32_CONV_REL;
	/* TensorRT's int8 convolutions: their own share of the INT8 peak (model/tune.h) */
	if (c->precision == MODEL_INT8)
		tc /= TUNE_INT8_CONV_REL;
	/* the default algorithm, not the fastest; TensorRT's builder times every tactic */
	if (!c->cudnn_benchmark && engine_of(c) != MODEL_ENGINE_TENSORRT)
		tc *= TUNE_CUDNN_BENCH_GAIN;
	return tc;
}

/* Per-sample inference: one forward of a batch, at least the launch time. */
void infer_per_sample(const struct workload *w, const struct model_config *c, const struct hw *h,
		      struct model_infer *o)
{
	enum model_engine eng = engine_of(c);
	double ops = w->s.kernels > 0 ? w->s.kernels : 50, kernels = model_engine_sample_kernels(eng, ops);
	double gpu = c->batch * sample_fwd_s(w, c, h);
	double cpu_s = model_engine_sample_host_s(eng, ops, c->batch);
	if (gpu < kernels * TUNE_KERNEL_MIN_S)
		gpu = kernels * TUNE_KERNEL_MIN_S;
	memset(o, 0, sizeof(*o));
	o->launch_s = cpu_s;
	o->prefill_s = gpu > cpu_s ? gpu : cpu_s;
	o->request_s = o->prefill_s;
	o->samples_per_s = c->dp * c->batch / o->request_s;
	o->tokens_per_s = w->s.tokens > 0 ? o->samples_per_s * w->s.tokens : 0;
}

/*
 * One training step: m micro-batches of forward + 2x backward (+ a forward
 * again with segment checkpointing), at least three launches' worth of
 * minimal kernels; gradient all-reduce (ZeRO: reduce-scatter + gather)
 * overlapped with backward; the optimizer over the local shard.  Returns
 * the GPU time of the step.
 */
double step_per_sample(const struct workload *w, const struct model_config *c, const struct hw *h,
		       struct model_result *r)
{
	struct model_time *tm = &r->time;
	double m_mb = (double)c->global_batch / ((double)c->dp * c->micro_batch);
	double ops = w->s.kernels > 0 ? w->s.kernels : 50,
	       kernels = model_engine_sample_kernels(engine_of(c), ops);
	double t_fwd = sample_fwd_s(w, c, h);
	double per_mb = c->micro_batch * t_fwd * (c->recompute == MODEL_RECOMPUTE_FULL ? 4 : 3);
	double floor_mb = 3 * kernels * TUNE_KERNEL_MIN_S;
	double params = w->params, grad_bytes = params * 4, step_gpu;
	int g_dp = per_node(c, c->dp, 1);

	if (per_mb < floor_mb)
		per_mb = floor_mb;
	tm->gemm_s = m_mb * c->micro_batch * 3 * sample_conv_s(w, c, h);
	tm->memory_bound_s = m_mb * per_mb - tm->gemm_s;
	tm->recompute_s = c->recompute == MODEL_RECOMPUTE_FULL ? m_mb * c->micro_batch * t_fwd : 0;
	tm->compute_s = m_mb * per_mb;
	if (c->dp > 1) {
		double window = TUNE_DP_OVERLAP * c->micro_batch * t_fwd * 2;
		double ar = coll_s(c, c->zero > 0 ? COLL_RS : COLL_AR, grad_bytes, c->dp, g_dp);
		if (c->zero > 0)
			ar += coll_s(c, COLL_AG, params * 2, c->dp, g_dp);
		tm->dp_comm_total_s = ar;
		tm->dp_comm_s = ar > window ? ar - window : 0;
	}
	tm->optimizer_s = optimizer_s_of(c, h, params / (c->zero >= 1 ? c->dp : 1));
	step_gpu = tm->compute_s + tm->dp_comm_s + tm->optimizer_s;
	/* the forward's module calls from Python; autograd launches the backward's two thirds from C++ */
	tm->overhead_s = m_mb * (model_engine_sample_host_s(engine_of(c), ops, 0) + 2 * kernels * launch_s_of(c)) -
			 step_gpu;
	if (tm->overhead_s < 0)
		tm->overhead_s = 0;
	r->model_flops_per_step = c->global_batch * 3 * w->s.fwd_flops * sample_scale(w, c);
	r->hw_flops_per_step = r->model_flops_per_step * (c->recompute == MODEL_RECOMPUTE_FULL ? 4.0 / 3 : 1);
	return step_gpu;
}
