/*
 * The estimate: a training step (transformer or per-sample) or an inference
 * request built from the compute, communication and memory parts, then
 * throughput, MFU, time to train and energy.  docs/model.md, "Time".
 */

#include <math.h>
#include <string.h>

#include "model/model_int.h"

/*
 * Optimizer update: memory-bound over the local shard, bytes read and
 * written per parameter: AdamW ~30 (weights, gradient, master, two moments),
 * 8-bit AdamW ~18, bf16 AdamW ~16, SGD with momentum ~16, Adafactor ~12,
 * plain SGD ~10.
 */
double optimizer_s_of(const struct model_config *c, const struct hw *h, double params_local)
{
	double per;
	switch (c->optimizer) {
	case MODEL_OPTIM_SGD_MOMENTUM:
	case MODEL_OPTIM_ADAMW_BF16:
		per = 16;
		break;
	case MODEL_OPTIM_ADAMW8BIT:
	case MODEL_OPTIM_PAGED_ADAMW8BIT:
		per = 18;
		break;
	case MODEL_OPTIM_ADAFACTOR:
		per = 12;
		break;
	case MODEL_OPTIM_SGD:
		per = 10;
		break;
	default:
		per = 30;
		break;
	}
	return params_local * per * h->inv_bw;
}

/*
 * Data loading: CPU cores decode at decode_per_core samples/s each; DALI
 * decodes on the GPU at dali_per_gpu, leaving the CPU a tenth of the work
 * and costing the GPU TUNE_DALI_GPU_SHARE of the decode time.
 */
static void data_rates(const struct workload *w, const struct model_config *c, double need_per_gpu,
		       double *supply_per_gpu, double *cores_needed, double *gpu_cost_per_sample)
{
	double per_core = w->s.decode_per_core;
	*supply_per_gpu = 0;
	*cores_needed = 0;
	*gpu_cost_per_sample = 0;
	if (!(per_core > 0))
		return;
	if (c->loader == MODEL_LOADER_DALI && w->s.dali_per_gpu > 0) {
		per_core *= TUNE_DALI_CPU_RELIEF;
		*gpu_cost_per_sample = TUNE_DALI_GPU_SHARE / w->s.dali_per_gpu;
		*supply_per_gpu = c->cpu_cores_per_gpu > 0 ? c->cpu_cores_per_gpu * per_core : 0;
		if (*supply_per_gpu == 0 || *supply_per_gpu > w->s.dali_per_gpu)
			*supply_per_gpu = w->s.dali_per_gpu;
	} else {
		*supply_per_gpu = c->cpu_cores_per_gpu > 0 ? c->cpu_cores_per_gpu * per_core : 0;
	}
	*cores_needed = need_per_gpu / per_core;
}

/*
 * Inference: one request batch (prefill + decode), its model FLOPs (2N per
 * token processed + attention) and what bounds it.  Returns the GPU busy
 * fraction for the power model.
 */
static double estimate_infer(const struct workload *w, const struct model_config *c, const struct hw *h,
			     struct model_result *r)
{
	struct model_time *tm = &r->time;
	if (w->kind == WORKLOAD_TRANSFORMER)
		infer_transformer(w, c, h, &r->infer);
	else
		infer_per_sample(w, c, h, &r->infer);
	r->tokens_per_s = r->infer.tokens_per_s;
	r->samples_per_s = r->infer.samples_per_s;
	tm->step_s = r->infer.request_s;
	tm->compute_s = r->infer.request_s;
	if (w->kind == WORKLOAD_TRANSFORMER) {
		/* decode steps after the prefill's first token (none with --output-len 0) */
		double P = c->prompt_len, O = c->output_len, steps = O > 1 ? O - 1 : 0;
		double flops_token = w->flops_token_dense + w->flops_token_head;
		double tokens = c->batch * (P + steps);
		r->model_flops_per_step = c->dp *
					  (tokens * flops_token +
					   c->batch * w->flops_token_attn * (P * P / 2 + steps * (P + O / 2.0)));
	} else {
		r->model_flops_per_step = c->dp * c->batch * w->s.fwd_flops * sample_scale(w, c);
	}
	r->hw_flops_per_step = r->model_flops_per_step;
	r->limits |= r->infer.launch_s >= r->infer.request_s * 0.999 ? MODEL_LIMIT_LAUNCH :
		     r->infer.decode_token_s > 0 &&
				     (r->infer.decode_weights_bytes + r->infer.decode_kv_bytes) / h->bw >
					     0.5 * r->infer.decode_token_s ?
								       MODEL_LIMIT_MEMORY_BW :
								       MODEL_LIMIT_COMPUTE;
	return 0.6;
}

/*
 * Pipeline (Narayanan 2021 sec. 2.2): bubble = (p - 1)/v micro-batch times;
 * sends of e T h / t bytes (scatter-gather) forward and backward, v times
 * per micro-batch with interleaving.
 */
static void pipeline_time(const struct workload *w, const struct model_config *c, double m_mb, double t_mb,
			  struct model_time *tm)
{
	int stride = c->tp * dp_cp(c);
	int g = stride >= c->gpus_per_node ? 1 : 2;
	double bytes = act_elem_bytes(c) * tokens_gpu(c, c->micro_batch) * w->d.hidden / c->tp;
	tm->pp_bubble_s = (c->pp - 1.0) / c->vpp * t_mb;
	tm->pp_p2p_s = 2.0 * c->vpp * m_mb * coll_s(c, COLL_P2P, bytes, 2, g);
}

/*
 * Data parallelism.  ZeRO 0: all-reduce of the gradients, overlapped with
 * the last micro-batch's backward (PyTorch DDP buckets).  ZeRO 1-2:
 * reduce-scatter (overlapped) + all-gather of the updated 16-bit weights
 * (exposed).  ZeRO 3 (FSDP): each layer's gathers and reduce-scatters,
 * prefetched under the layers beside them, every micro-batch (shard.c).
 */
static void dp_time(const struct model_config *c, const struct train_parts *tp, const struct zero3_layers *z,
		    double m_mb, double params, double grad_bytes, double wbytes, struct model_time *tm)
{
	/* the gradient group: dp x cp ranks, tp apart (context-parallel ranks hold the same weights) */
	int n = dp_cp(c), g_dp = per_node(c, n, c->tp);
	double window = TUNE_DP_OVERLAP * (tp->mb_bwd + tp->mb_recompute);
	/* Megatron-Core's buckets: max(4e7, 1e6 n) parameters each, every one its own collective */
	double bucket = n * 1e6 > 4e7 ? n * 1e6 : 4e7, b = ceil(params / bucket);
	if (b < 1)
		b = 1;
	if (c->zero <= 0) {
		double ar = b * coll_s(c, COLL_AR, grad_bytes / b, n, g_dp);
		tm->dp_comm_total_s = ar;
		tm->dp_comm_s = ar > window ? ar - window : 0;
	} else if (c->zero <= 2) {
		double rs = b * coll_s(c, COLL_RS, grad_bytes / b, n, g_dp);
		double ag = b * coll_s(c, COLL_AG, wbytes / b, n, g_dp);
		/* --overlap-param-gather: each bucket's gather runs under the next step's first forward */
		double fwd = c->overlap >= MODEL_OVERLAP_GRAD_PARAM ? TUNE_DP_OVERLAP * tp->mb_fwd : 0;
		tm->dp_comm_total_s = rs + ag;
		tm->dp_comm_s = (rs > window ? rs - window : 0) + (ag > fwd ? ag - fwd : 0);
	} else {
		struct zero3_time zt;
		zero3_time(c, z, &zt);
		tm->dp_comm_total_s = m_mb * zt.total_s;
		tm->zero_comm_s = m_mb * zt.exposed_s;
	}
}

/* Optimizer step over the local shard; ZeRO-Offload runs it on the CPU. */
static void optimizer_time(const struct model_config *c, const struct hw *h, double params_local, double wbytes,
			   double m_mb, double t_mb, struct model_time *tm)
{
	double shard = params_local / (c->zero >= 1 ? dp_cp(c) : 1);
	if (c->offload != MODEL_OFFLOAD_NONE) {
		double pcie = (c->host_gbps > 0 ? c->host_gbps : 25) * 1e9 * TUNE_H2D_EFF;
		/* fp32 gradients down, 16-bit weights up; the CPU Adam step */
		tm->offload_s = shard * (4 + 2) / pcie + shard / TUNE_CPU_ADAM_PARAMS_PER_S;
		if (c->offload == MODEL_OFFLOAD_PARAMS) {
			/* parameters streamed in for forward and backward of every micro-batch */
			double stream = m_mb * 2 * wbytes / pcie;
			double cover = m_mb * t_mb;
			tm->offload_s += stream > cover ? stream - cover : 0;
		}
	} else {
		tm->optimizer_s = optimizer_s_of(c, h, shard);
	}
}

/*
 * Activation offload: what waits in host memory goes down after forward and
 * back up before backward, over PCIe at the pinned-copy rate; copies overlap
 * the compute of one micro-batch, the rest is exposed.
 */
static double activation_offload_s(const struct model_config *c, const struct model_memory *m, double m_mb,
				   double t_mb)
{
	double pcie = (c->host_gbps > 0 ? c->host_gbps : 25) * 1e9 * TUNE_H2D_EFF;
	double moved = 2 * m->host_bytes * m_mb / pcie;
	double cover = m_mb * t_mb;
	return moved > cover ? moved - cover : 0;
}

/* One training step of a transformer; returns its GPU time. */
static double step_transformer(const struct workload *w, const struct model_config *c, const struct hw *h,
			       struct model_result *r)
{
	struct model_time *tm = &r->time;
	struct train_parts tp;
	struct state_bytes sb = state_bytes_of(c);
	int lora = c->task == MODEL_TASK_LORA || c->task == MODEL_TASK_QLORA;
	double m_mb = (double)c->global_batch / ((double)c->dp * c->micro_batch);
	double t_mb, params_local, step_gpu;

	train_transformer(w, c, h, &tp);
	t_mb = tp.mb_fwd + tp.mb_bwd + tp.mb_recompute;
	tm->gemm_s = m_mb * tp.gemm;
	tm->attention_s = m_mb * tp.attn;
	tm->memory_bound_s = m_mb * tp.mem;
	tm->recompute_s = m_mb * tp.recompute;
	tm->tp_comm_s = m_mb * tp.tp;
	tm->ep_comm_s = m_mb * tp.ep;
	tm->cp_comm_s = m_mb * tp.cp;
	tm->compute_s = m_mb * t_mb - tm->tp_comm_s - tm->ep_comm_s - tm->cp_comm_s;
	if (c->pp > 1)
		pipeline_time(w, c, m_mb, t_mb, tm);
	/* parameters on this GPU (largest stage); LoRA trains its adapters only */
	params_local = layer_params_gpu(w, c) * model_stage_layers(w, c) +
		       (w->params_embedding / c->tp) * (c->pp == 1 ? 1 : 0.5) + w->params_head / c->tp;
	if (lora)
		params_local = c->lora_rank * lora_params_per_rank(w, c) / (c->tp * c->pp);
	{
		double wbytes = params_local * (lora ? 4 : sb.weight), Ls = model_stage_layers(w, c);
		/* ZeRO-3's units: the layers, and the rest (embedding, head) as the root */
		struct zero3_layers z = {Ls,
					 lora ? wbytes / Ls : gathered_layer_bytes(w, c, layer_params_gpu(w, c)),
					 0,
					 tp.layer_fwd,
					 tp.layer_bwd,
					 2.0 + (w->d.gated_mlp ? 3 : 2)};
		z.root_bytes = wbytes > Ls * z.layer_bytes ? wbytes - Ls * z.layer_bytes : 0;
		if (dp_cp(c) > 1)
			dp_time(c, &tp, &z, m_mb, params_local, params_local * (lora ? 4 : sb.grad), wbytes, tm);
		/* a LoRA base offloaded with its parameters streams in like full weights */
		if (lora && c->offload == MODEL_OFFLOAD_PARAMS)
			wbytes += r->mem.host_bytes;
		optimizer_time(c, h, params_local, wbytes, m_mb, t_mb, tm);
		if (c->activation_offload)
			tm->offload_s += activation_offload_s(c, &r->mem, m_mb, t_mb);
	}
	/* every server's micro-batches wait for the slowest server's (scale.c) */
	tm->straggler_s = straggler_s(c, m_mb * t_mb);
	step_gpu = m_mb * t_mb + tm->pp_bubble_s + tm->pp_p2p_s + tm->dp_comm_s + tm->zero_comm_s +
		   tm->optimizer_s + tm->offload_s + tm->straggler_s;
	/* the CPU must launch every kernel (TUNE_LAUNCH_S each, eager) and run Transformer Engine's fp8 modules */
	tm->overhead_s = m_mb * (tp.kernels_mb * launch_s_of(c) + tp.host_mb) - step_gpu;
	if (tm->overhead_s < 0)
		tm->overhead_s = 0;
	r->model_flops_per_step = c->global_batch * (double)c->seq_len * tp.flops_model_token;
	r->hw_flops_per_step = c->global_batch * (double)c->seq_len * tp.flops_hw_token;
	return step_gpu;
}

/* Data loading, overlapped with compute by prefetching; may lengthen *step_gpu (DALI). */
static void data_time(const struct workload *w, const struct model_config *c, struct model_result *r,
		      double *step_gpu)
{
	struct model_time *tm = &r->time;
	double per_rank = (double)c->global_batch / c->dp;
	double step0 = *step_gpu + tm->overhead_s;
	double supply, cores, cost;
	data_rates(w, c, per_rank / step0, &supply, &cores, &cost);
	r->data_cores_needed = cores;
	if (cost > 0) {
		double extra = cost * c->global_batch / c->dp;
		*step_gpu += extra;
		tm->compute_s += extra;
	}
	if (supply > 0) {
		double load = per_rank / supply;
		r->data_samples_per_s = supply * c->dp;
		step0 = *step_gpu + tm->overhead_s;
		tm->data_s = load > step0 ? load - step0 : 0;
	}
}

/* Which resources bound a training step. */
static unsigned train_limits(const struct model_time *tm)
{
	double comm = tm->tp_comm_s + tm->ep_comm_s + tm->cp_comm_s + tm->dp_comm_s + tm->zero_comm_s +
		      tm->pp_p2p_s;
	unsigned l = MODEL_LIMIT_COMPUTE;
	if (comm > 0.25 * tm->step_s) {
		l |= MODEL_LIMIT_COMM;
		if (comm > tm->compute_s)
			l &= ~(unsigned)MODEL_LIMIT_COMPUTE;
	}
	if (tm->pp_bubble_s > 0.15 * tm->step_s)
		l |= MODEL_LIMIT_BUBBLE;
	if (tm->data_s > 0.05 * tm->step_s)
		l |= MODEL_LIMIT_DATA;
	if (tm->overhead_s > 0.05 * tm->step_s)
		l |= MODEL_LIMIT_LAUNCH;
	if (tm->memory_bound_s > 0.5 * tm->compute_s)
		l |= MODEL_LIMIT_MEMORY_BW;
	return l;
}

/*
 * MFU/HFU, time to train and energy.  Time to train: whole steps times the
 * step, the steps being tokens / tokens per step, or samples x epochs /
 * samples per step, rounded up (at least one).  Energy: GPUs only,
 * drawing idle + (TDP - idle) x (0.3 + 0.7 x busy fraction) (an estimate:
 * training GPUs sit near TDP while computing and well above idle while
 * communicating).
 */
static void result_finish(const struct model_config *c, const struct hw *h, double gpu_busy,
			  struct model_result *r)
{
	const struct model_time *tm = &r->time;
	if (tm->step_s > 0) {
		double gpus = c->gpus;
		r->mfu = r->model_flops_per_step / (tm->step_s * gpus * h->peak);
		r->mfu_tflops_per_gpu = r->model_flops_per_step / tm->step_s / gpus / 1e12;
		r->hfu_tflops_per_gpu = r->hw_flops_per_step / tm->step_s / gpus / 1e12;
	}
	/* whole optimizer steps, at least one: a run cannot stop inside a step */
	if (c->train_tokens > 0 && r->tokens_per_s > 0 && tm->step_s > 0)
		r->train_steps = ceil(c->train_tokens / (r->tokens_per_s * tm->step_s) - 1e-9);
	else if (c->train_samples > 0 && r->samples_per_s > 0 && tm->step_s > 0)
		r->train_steps = ceil(c->train_samples * (c->epochs > 0 ? c->epochs : 1) /
					      (r->samples_per_s * tm->step_s) -
				      1e-9);
	if (r->train_steps > 0)
		r->time_to_train_s = r->train_steps * tm->step_s;
	if (gpu_busy > 1)
		gpu_busy = 1;
	if (gpu_busy < 0)
		gpu_busy = 0;
	r->power_w = h->idle_w + (h->tdp_w - h->idle_w) * (0.3 + 0.7 * gpu_busy);
	r->energy_kwh = r->power_w * c->gpus * (r->time_to_train_s > 0 ? r->time_to_train_s : 3600) / 3.6e6;
}

/* Everything model_estimate() does once r->mem holds model_memory()'s answer. */
static int estimate_with_memory(const struct workload *w, const struct model_config *c, struct model_result *r)
{
	struct hw h;
	struct model_time *tm = &r->time;
	double step_gpu, tokens_sample, gpu_busy;

	if (hw_of(c, &h))
		return -1;
	r->peak_tflops = h.peak / 1e12;
	if (!r->mem.fits)
		r->limits |= MODEL_LIMIT_CAPACITY;
	if (c->task == MODEL_TASK_INFER) {
		gpu_busy = estimate_infer(w, c, &h, r);
		result_finish(c, &h, gpu_busy, r);
		return 0;
	}
	if (w->kind == WORKLOAD_TRANSFORMER)
		step_gpu = step_transformer(w, c, &h, r);
	else
		step_gpu = step_per_sample(w, c, &h, r);
	data_time(w, c, r, &step_gpu);
	tm->step_s = step_gpu + tm->overhead_s + tm->data_s;
	model_calibration_correct(model_calibration_of(c->gpu), tm);
	tokens_sample = w->kind == WORKLOAD_TRANSFORMER ? c->seq_len : w->s.tokens;
	r->samples_per_s = c->global_batch / tm->step_s;
	r->tokens_per_s = tokens_sample > 0 ? r->samples_per_s * tokens_sample : 0;
	r->limits |= train_limits(tm);
	result_finish(c, &h, tm->compute_s / tm->step_s, r);
	return 0;
}

int model_estimate(const struct workload *w, const struct model_config *c, struct model_result *r)
{
	memset(r, 0, sizeof(*r));
	if (model_memory(w, c, &r->mem))
		return -1;
	return estimate_with_memory(w, c, r);
}

int model_estimate_mem(const struct workload *w, const struct model_config *c, const struct model_memory *mem,
		       struct model_result *r)
{
	memset(r, 0, sizeof(*r));
	r->mem = *mem;
	return estimate_with_memory(w, c, r);
}
