/*
 * Memory per GPU: weights, gradients, optimizer states, activations,
 * logits, KV cache, buffers, allocator reserve and CUDA context.
 * docs/model.md, "Memory".
 */

#include <math.h>
#include <string.h>

#include "model/model_int.h"

/* ------------------------------------------------------------------------- */
/* Memory                                                                     */

/*
 * Optimizer state per trained parameter, bytes: AdamW two fp32 moments (8),
 * or two bf16 ones (4) when it runs on bf16 parameters without master
 * weights (torch.optim keeps states in the parameter's dtype); 8-bit AdamW
 * two block-quantised bytes (bitsandbytes, Dettmers et al. 2022: 2 B plus
 * one fp32 absmax per 2048 values); Adafactor a factored second moment, a
 * row and a column per matrix (about 4 (1/h + 1/f) B per parameter,
 * TUNE_ADAFACTOR_BYTES); SGD with momentum one buffer, plain SGD none.
 * Paged variants hold the same bytes in unified memory (paged_states()).
 */
double optim_states_bytes(const struct model_config *c)
{
	int pure = c->master == MODEL_MASTER_NONE && c->precision != MODEL_FP32 && c->precision != MODEL_TF32;
	switch (c->optimizer) {
	case MODEL_OPTIM_ADAMW:
	case MODEL_OPTIM_PAGED_ADAMW:
		return pure ? 4 : 8;
	case MODEL_OPTIM_ADAMW_BF16:
		return 4;
	case MODEL_OPTIM_ADAMW8BIT:
	case MODEL_OPTIM_PAGED_ADAMW8BIT:
		return 2 + 8.0 / 2048;
	case MODEL_OPTIM_ADAFACTOR:
		return TUNE_ADAFACTOR_BYTES;
	case MODEL_OPTIM_SGD_MOMENTUM:
		return pure ? 2 : 4;
	default:
		return 0;
	}
}

/* Paged optimizers keep their states in CUDA unified memory, outside PyTorch's allocator. */
static int paged_states(const struct model_config *c)
{
	return c->optimizer == MODEL_OPTIM_PAGED_ADAMW || c->optimizer == MODEL_OPTIM_PAGED_ADAMW8BIT;
}

/*
 * Bytes per parameter of each training state.  Mixed precision
 * (fp16/bf16/fp8) with fp32 master weights: 16-bit working weights 2 B,
 * fp32 gradients 4 B (accumulated in fp32), master copy 4 B + the states:
 * 18 B with AdamW (Megatron theoretical_memory_usage, Korthikanti 2022;
 * Transformer Math 101).  Pure 16-bit training (no master weights): 2 B
 * weights, 2 B gradients, states in 16 bits: 8 B with AdamW.  FP32/TF32:
 * weights 4, gradients 4, states only: 16 B.
 */
struct state_bytes state_bytes_of(const struct model_config *c)
{
	struct state_bytes s;
	double states = optim_states_bytes(c);
	int full = c->precision == MODEL_FP32 || c->precision == MODEL_TF32;
	int pure = c->master == MODEL_MASTER_NONE && !full;
	s.weight = full ? 4 : 2;
	s.grad = full ? 4 : pure ? 2 : 4;
	s.optim = states + (full || pure ? 0 : 4);
	return s;
}

/*
 * Bytes per stored weight: NF4 and GPTQ/AWQ int4 with their block scales,
 * int8/fp8 one byte, nvfp4/mxfp4 with their block scales.  Training at
 * nvfp4/mxfp4 keeps 16-bit working weights (state_bytes_of): only the
 * GEMM inputs are quantised, each micro-batch (compute.c, cast_bytes).
 */
double stored_weight_bytes(const struct model_config *c)
{
	int p = c->weight_precision >= 0    ? c->weight_precision :
		c->task == MODEL_TASK_QLORA ? MODEL_NF4 :
					      (int)c->precision;
	switch (p) {
	case MODEL_NF4:
		return TUNE_NF4_BITS / 8;
	case MODEL_INT4:
		return TUNE_INT4_BITS / 8;
	case MODEL_INT8:
	case MODEL_FP8:
		return 1;
	case MODEL_NVFP4:
	case MODEL_MXFP4:
		/* 4-bit values with their block scales: 4.5 and 4.25 bits (model_int.h) */
		return model_precision_bytes((enum model_precision)p);
	case MODEL_FP32:
	case MODEL_TF32:
		return 4;
	default:
		return 2;
	}
}

/*
 * LoRA adapter parameters per unit of rank, whole model: r (in + out) for
 * each adapted matrix of each block (q: h to q, k and v: h to kv, o: q to h,
 * the MLP's two or three h-f matrices per expert), and with "all" the
 * output head (h to V).
 */
double lora_params_per_rank(const struct workload *w, const struct model_config *c)
{
	const struct workload_dims *d = &w->d;
	double h = d->hidden, q = w->q_dim, kv = w->kv_dim, L = d->layers;
	double qm = h + q, km = h + kv, vm = h + kv, om = q + h;
	/* the MLPs' share of workload_finish's whole-model count, per layer */
	double mlp = (w->params_lora_per_rank - L * (qm + km + vm + om)) / L;
	double per_layer;
	switch (c->lora_targets) {
	case MODEL_LORA_QV:
		per_layer = qm + vm;
		break;
	case MODEL_LORA_QKV:
		per_layer = qm + km + vm;
		break;
	case MODEL_LORA_QKVO:
		per_layer = qm + km + vm + om;
		break;
	default:
		per_layer = qm + km + vm + om + mlp;
		break;
	}
	return d->layers * per_layer + (c->lora_targets == MODEL_LORA_ALL ? h + d->vocab : 0);
}

/*
 * Parameters held by one GPU of one pipeline stage, for an average layer:
 * matrices split by TP, norms replicated; the MLPs every token passes
 * through (dense layers, shared experts) split by TP; routed experts, in
 * the share moe_layers / L of the layers that have them, split E/ep by
 * expert parallelism and by the expert-tensor degree etp (Megatron's MoE
 * parallel folding); the router replicated.
 */
double layer_params_gpu(const struct workload *w, const struct model_config *c)
{
	double norms = 2.0 * w->d.hidden * (w->d.has_bias ? 2 : 1);
	if (w->d.experts <= 1)
		return (w->params_layer_attn - norms) / c->tp + norms + w->params_layer_mlp / c->tp;
	return (w->params_layer_attn - norms) / c->tp + norms + w->params_layer_dense_mlp / c->tp +
	       w->moe_layers / w->d.layers *
		       ((double)w->d.experts / c->ep * w->params_layer_mlp / etp_of(c) + w->params_layer_router);
}

/* The routed experts' share of layer_params_gpu(). */
double layer_expert_params_gpu(const struct workload *w, const struct model_config *c)
{
	if (w->d.experts <= 1)
		return 0;
	return w->moe_layers / w->d.layers * (double)w->d.experts / c->ep * w->params_layer_mlp / etp_of(c);
}

/*
 * KV-cache elements per token per layer on one GPU: K and V of the KV heads
 * split by tp (a rank below one head keeps one, replicated); latent attention
 * caches its kv_lora_rank + qk_rope_dim latent once per token, whole on every
 * TP rank (it is not split by head).
 */
double kv_elems_gpu(const struct workload *w, const struct model_config *c)
{
	double kv = (double)w->kv_dim / c->tp;
	if (w->d.kv_lora_rank > 0)
		return w->kv_cache_elems;
	if (kv < w->d.head_dim)
		kv = w->d.head_dim;
	return 2 * kv;
}

/*
 * Activation bytes of one transformer layer for one micro-batch, stored for
 * the backward pass (Korthikanti et al. 2022, sec. 4, generalised to GQA,
 * gated MLPs, mixture of experts and flash attention):
 *
 *   replicated unless sequence parallel:  (4e + 2m) T h
 *       two norm inputs, the QKV and MLP inputs, two dropout masks (m = 1 B
 *       when dropout is used, else 0)
 *   split by t:  e T (q + 2kv) + e T q                       Q, K, V, attention output
 *                + k_act (2 or 4) e T f                      MLP (GeLU in/out; SwiGLU gate, up, silu, product)
 *                + k_act 2 e T h  (MoE dispatch/combine)
 *                + a s^2 b (e + m + m e)  (attention scores; 0 with flash or selective recompute)
 *                + 4 a T  (flash: fp32 log-sum-exp)
 *
 * With e = 2 and m = 1, MHA, f = 4h: 34 s b h + 5 a s^2 b, Korthikanti's eq. (1).
 */
/* Attention scores, softmax and dropout of one layer, s^2 per head (0 with flash attention). */
double attn_scores_bytes(const struct workload *w, const struct model_config *c, double e, double b)
{
	double m = w->d.dropout > 0 ? 1 : 0;
	/*
	 * P kept by the softmax (e), the dropout mask (1 B) and the dropped P
	 * that AV keeps (e); under --autocast the softmax keeps P in fp32 and
	 * AV its 16-bit cast, dropped or not: 4 + m + 2.
	 */
	double per = c->autocast ? 4 + m + 2 : e + m + m * e;
	if (flash_on(c))
		return 0;
	/* a context-parallel rank holds the scores of its own queries: s/cp rows of s */
	return (double)w->d.heads / c->tp * tokens_gpu(c, b) * c->seq_len * per;
}

/*
 * The linear layers' inputs and the activation function's outputs that a
 * layer keeps (per token; the rest of act_layer_bytes is common), in the
 * replicated (*repl, h-sized) and TP-split (*split) parts.
 *
 * Eager PyTorch keeps what Korthikanti counts: the two norms' outputs (the
 * QKV and MLP inputs, e h each) and, with f the MLP width, SwiGLU's SiLU
 * output and product (2 e f) or GeLU's output (e f).
 *
 * torch.compile (Inductor's min-cut rematerialisation of the joint forward
 * and backward graph, torch/_functorch/partitioners.py) saves the cheapest
 * cut: pointwise and norm results it can rebuild from tensors it keeps
 * anyway are recomputed in the backward's fused kernels.  A norm's output is
 * rebuilt from its input (kept for the residual and the norm's backward)
 * and the per-token rstd; SwiGLU's SiLU and product from the gate and up
 * projections; GeLU's output from its input.  None of these is kept, except
 * in 16-bit runs sharded by FSDP/ZeRO-3, where the published runs measure
 * the eager set (chosen on M6-001 and M7-*, model/fitted.c; docs/model.md).
 *
 * Under --autocast each linear keeps the 16-bit copy its input was cast
 * to, not the fp32 norm output: one copy a linear, n e h with n the
 * linears that read a norm (Q, K and V apart, the MLP up and its gate).
 *
 * fp8 training (Transformer Engine, torchao) keeps each fp8 linear's input
 * as its fp8 copy for the weight gradient, 1 B per element (QKV and MLP
 * inputs h each, the output projection's q, the down projection's f), in
 * place of the 16-bit norm outputs and product; the attention output stays
 * at e (flash attention's own saved output).
 */
static void act_linear_inputs(const struct workload *w, const struct model_config *c, double e, double *repl,
			      double *split)
{
	double h = w->d.hidden, q = w->q_dim, f = w->ffn_active;
	double gated = w->d.gated_mlp ? 1 : 0;
	int fp8 = low_precision(c->precision) && c->task != MODEL_TASK_INFER;
	int fused = c->engine == MODEL_ENGINE_COMPILE && (fp8 || !(c->zero >= 3 && shard_ranks(c) > 1));

	if (fp8) {
		*repl = 2 * h;
		*split = q + f + (fused ? 0 : gated * e * f);
	} else if (c->autocast) {
		*repl = (3 + 1 + gated) * e * h;
		*split = (1 + gated) * e * f;
	} else {
		*repl = fused ? 0 : 2 * e * h;
		*split = fused ? 0 : (1 + gated) * e * f;
	}
}

static double act_layer_bytes(const struct workload *w, const struct model_config *c, double e, double b)
{
	const struct workload_dims *d = &w->d;
	double T = tokens_gpu(c, b), t = c->tp;
	double h = d->hidden, q = w->q_dim, kv = w->kv_dim;
	double m = d->dropout > 0 ? 1 : 0;
	double k_act = d->experts > 1 ? d->experts_active : 1;
	double repl, split, scores = 0, lin_repl, lin_split;

	/*
	 * Kept always: the two norms' inputs (2 e h), dropout masks, Q, K, V
	 * and the attention output, and the activation function's inputs:
	 * SwiGLU's gate and up (2 e f), GeLU's input (e f), with f the MLP
	 * width a token passes through, averaged over dense and MoE layers
	 * (w->ffn_active).  Inductor draws dropout from a seed in the backward
	 * (philox): no masks under compile.  Under --autocast the norms'
	 * inputs are the fp32 residual stream: 4 B each.
	 */
	if (c->engine == MODEL_ENGINE_COMPILE)
		m = 0;
	act_linear_inputs(w, c, e, &lin_repl, &lin_split);
	repl = (2 * (c->autocast ? 4 : e) + 2 * m) * T * h + lin_repl * T;
	split = e * T * (q + 2 * kv) + e * T * q + (d->gated_mlp ? 2 : 1) * e * T * w->ffn_active + lin_split * T;
	if (d->experts > 1)
		split += w->moe_layers / d->layers * k_act * 2 * e * T * h;
	if (flash_on(c))
		split += 4.0 * d->heads * T;
	else if (c->recompute == MODEL_RECOMPUTE_NONE)
		scores = attn_scores_bytes(w, c, e, b);
	return (c->seq_parallel ? repl / t : repl) + split / t + scores;
}

double gathered_layer_bytes(const struct workload *w, const struct model_config *c, double layer_params)
{
	double norms = 2.0 * w->d.hidden * (w->d.has_bias ? 2 : 1);
	if (fp8_torchao(c) && c->zero >= 3 && layer_params > norms)
		return (layer_params - norms) + 2 * norms;
	return layer_params * state_bytes_of(c).weight;
}

/* Per-GPU memory of a transformer at pipeline stage `stage` (0 first, 1 last). */
static void mem_transformer_stage(const struct workload *w, const struct model_config *c, int stage,
				  struct model_memory *o)
{
	const struct workload_dims *d = &w->d;
	struct state_bytes sb = state_bytes_of(c);
	/* ZeRO shards over the gradient group, dp x cp; a micro-batch's tokens split over cp */
	double t = c->tp, p = c->pp, dp = dp_cp(c);
	double Ls = model_stage_layers(w, c);
	double e = (c->precision == MODEL_FP32 || c->precision == MODEL_TF32) ? 4 : 2;
	double b = c->micro_batch, T = tokens_gpu(c, b);
	double lp = layer_params_gpu(w, c);
	double block = Ls * lp, embed = 0, head = 0, params, frozen16 = 0;
	double m_mb = (double)c->global_batch / ((double)c->dp * c->micro_batch);
	double inflight, act_layer;
	int first = stage == 0 || p == 1, last = stage == 1 || p == 1;
	int lora = c->task == MODEL_TASK_LORA || c->task == MODEL_TASK_QLORA;

	memset(o, 0, sizeof(*o));
	if (first)
		embed = w->params_embedding / t + w->s.extra_params;
	if (last) {
		/* output layer and the final norm */
		head = w->params_head / t + (double)d->hidden * (d->has_bias ? 2 : 1);
		/* tied output layer: the last stage keeps its own copy of the embedding */
		if (p > 1 && d->tied_embeddings)
			head += (double)d->vocab * d->hidden / t;
		/* multi-token-prediction modules are trained after the last layer, experts split like the blocks' */
		if (c->task != MODEL_TASK_INFER)
			head += (w->params_mtp - w->params_mtp_experts) / t +
				w->params_mtp_experts / ((double)c->ep * etp_of(c));
	}
	params = block + embed + head;

	if (c->task == MODEL_TASK_INFER) {
		double wb = stored_weight_bytes(c);
		double kvb = model_precision_bytes(c->kv_precision);
		double B = c->batch, ctx = (double)c->prompt_len + c->output_len;
		double Tp = B * c->prompt_len;
		double work;
		/* inference loads all layers: pipeline stages hold L/p each */
		o->weights_bytes = params * wb;
		o->kv_cache_bytes = d->causal ? Ls * kv_elems_gpu(w, c) * ctx * B * kvb : 0;
		/* transient working set of one layer in prefill (flash attention) */
		work = 2 * Tp *
		       (d->hidden + (w->q_dim + 2.0 * w->kv_dim) / t +
			(d->gated_mlp ? 3.0 : 2.0) * w->ffn_active / t);
		o->activations_layer_bytes = work;
		o->activations_bytes = work;
		o->microbatches_in_flight = 1;
		/* logits of the last position, fp32 */
		o->logits_bytes = last ? B * d->vocab / t * 4.0 : 0;
		o->buffers_bytes = TUNE_WORKSPACE_BYTES;
		return;
	}

	if (lora) {
		/*
		 * LoRA: the base is frozen (no gradients, no optimizer) at its
		 * stored precision: 16-bit, or for QLoRA the block matrices in NF4
		 * with double quantisation, 4.127 bits per parameter (Dettmers et
		 * al. 2023, sec. 3), int4/int8/fp8 likewise, embeddings, head and
		 * norms in 16-bit.  Under ZeRO-3/FSDP the frozen base is sharded
		 * like any parameter, with the layer in use and the one prefetched
		 * gathered.  Adapters train in fp32 (PEFT's default: 4 B weights,
		 * 4 B gradients, the states) or in 16 bits without master weights.
		 */
		double wb16 = (c->precision == MODEL_FP32 || c->precision == MODEL_TF32) ? 4 : 2;
		double adapters = c->lora_rank * lora_params_per_rank(w, c) / (t * p);
		double zw = c->zero >= 3 ? shard_ranks(c) : 1;
		double ab = c->master == MODEL_MASTER_NONE ? wb16 : 4;
		double norms = 2.0 * d->hidden * (d->has_bias ? 2 : 1) * Ls;
		double mats = block - norms, wq = stored_weight_bytes(c);
		o->weights_bytes = (mats * wq + (norms + embed + head) * wb16) / zw;
		/* one layer dequantized to 16-bit for its matmuls */
		if (wq < 2)
			frozen16 = lp * 2;
		if (c->zero >= 3)
			frozen16 += 2 * lp * wq;
		if (c->offload == MODEL_OFFLOAD_PARAMS) {
			o->host_bytes += o->weights_bytes;
			o->weights_bytes = 0;
		}
		o->lora_bytes = adapters * (ab + ab + optim_states_bytes(c)) / zw;
	} else {
		/*
		 * ZeRO shards each state over the ranks that hold the same copy:
		 * dp x cp for the dense parameters, the expert-data-parallel
		 * ranks edp = tp cp dp / (ep etp) for the routed experts (each
		 * expert lives on edp GPUs only).
		 */
		double xp = Ls * layer_expert_params_gpu(w, c) +
			    (last ? w->params_mtp_experts / ((double)c->ep * etp_of(c)) : 0);
		double edp = (double)c->tp * dp / ((double)c->ep * etp_of(c));
		double zr = shard_ranks(c);
		double zw = c->zero >= 3 ? zr : 1, zg = c->zero >= 2 ? zr : 1, zo = c->zero >= 1 ? zr : 1;
		double ew = c->zero >= 3 ? edp : 1, eg = c->zero >= 2 ? edp : 1, eo = c->zero >= 1 ? edp : 1;
		if (edp < 1)
			ew = eg = eo = 1;
		o->weights_bytes = ((params - xp) / zw + xp / ew) * sb.weight;
		o->gradients_bytes = ((params - xp) / zg + xp / eg) * sb.grad;
		o->optimizer_bytes = ((params - xp) / zo + xp / eo) * sb.optim;
		if (c->optimizer_in_backward) {
			/* gradients are applied and freed as they arrive: the largest tensor's at most */
			double largest = fmax(lp, (double)d->vocab * d->hidden / t);
			o->gradients_bytes = fmin(o->gradients_bytes, largest * sb.grad / zg);
		}
		if (c->offload != MODEL_OFFLOAD_NONE) {
			/* ZeRO-Offload: optimizer states and master weights live in host memory */
			o->host_bytes += o->optimizer_bytes;
			o->optimizer_bytes = 0;
			if (c->offload == MODEL_OFFLOAD_PARAMS) {
				o->host_bytes += o->weights_bytes + o->gradients_bytes;
				o->weights_bytes = 0;
				o->gradients_bytes = 0;
			}
		} else if (paged_states(c)) {
			/* paged states live in unified memory: on the device, outside the allocator */
			o->paged_bytes = ((params - xp) / zo + xp / eo) * optim_states_bytes(c);
			o->optimizer_bytes -= o->paged_bytes;
		}
		if (c->zero >= 3 || c->offload == MODEL_OFFLOAD_PARAMS) {
			/*
			 * gathered parameters of the layer in use and the one
			 * prefetched; kept from forward to backward
			 * (--reshard-after-forward off), every layer of the stage
			 */
			frozen16 = (c->reshard_after_forward || Ls < 2 ? 2 : Ls) * gathered_layer_bytes(w, c, lp);
		}
		/*
		 * torchao float8 before force_recompute_fp8_weight_in_bwd: each
		 * fp8 linear keeps its transposed fp8 weight (1 B an element) from
		 * forward to backward, every layer of the stage.
		 */
		if (c->fp8_saved_weights && fp8_torchao(c))
			frozen16 += Ls * (lp - 2.0 * d->hidden * (d->has_bias ? 2 : 1));
	}

	/* activations: Korthikanti 2022 with the 1F1B in-flight count */
	act_layer = act_layer_bytes(w, c, e, b);
	o->activations_layer_bytes = act_layer;
	if (first && p > 1) {
		/*
		 * 1F1B: the first stage holds min(m, p) micro-batches; the
		 * interleaved schedule raises that by 1 + (p-1)/(p v) (Korthikanti
		 * 2022 sec. 4.2.3; Narayanan 2021 sec. 2.2.2).
		 */
		inflight = m_mb < p ? m_mb : p;
		if (c->vpp > 1)
			inflight *= 1 + (p - 1) / (p * c->vpp);
	} else {
		inflight = 1;
	}
	o->microbatches_in_flight = (int)ceil(inflight);
	if (c->recompute == MODEL_RECOMPUTE_FULL) {
		/*
		 * The checkpointed layer inputs, e T h each (/t with sequence
		 * parallelism), one of which is rebuilt into a whole layer during
		 * its backward, with its attention scores.
		 */
		double ckpt = e * T * d->hidden / (c->seq_parallel ? t : 1);
		double n = Ls * inflight;
		o->activations_bytes = (n > 1 ? (n - 1) * ckpt : 0) + act_layer + attn_scores_bytes(w, c, e, b);
	} else if (c->recompute == MODEL_RECOMPUTE_SELECTIVE) {
		/* scores are not stored; the layer in backward rebuilds its own */
		o->activations_bytes = Ls * inflight * act_layer + attn_scores_bytes(w, c, e, b);
	} else if (c->recompute == MODEL_RECOMPUTE_SELECTIVE_OP) {
		/* PyTorch per-op checkpointing saves every other matmul's output (TUNE_SELECTIVE_OP_KEEP) */
		o->activations_bytes = Ls * inflight * act_layer * TUNE_SELECTIVE_OP_KEEP + act_layer;
	} else {
		o->activations_bytes = Ls * inflight * act_layer;
	}
	/* embedding output (+ its dropout mask) on the first stage */
	if (first)
		o->activations_bytes += inflight * (e + (d->dropout > 0 ? 1 : 0)) * T * d->hidden /
					(c->seq_parallel ? t : 1);
	/*
	 * Activation offload: what backward needs later waits in host memory;
	 * the layer being computed and the one being copied stay.
	 */
	if (c->activation_offload && o->activations_bytes > 2 * act_layer) {
		o->host_bytes += o->activations_bytes - 2 * act_layer;
		o->activations_bytes = 2 * act_layer;
	}
	/*
	 * Output layer and loss on the last stage.  Upcast for the loss (fp32):
	 * the 16-bit logits, their fp32 copy and its log-softmax, (e + 8) T V / t.
	 * Whole in 16 bits: the logits and the log-softmax, 2e T V / t.  Chunked
	 * cross-entropy: the fp32 path over one chunk of TUNE_LOGIT_CHUNKS at a
	 * time, with the 16-bit logits of all of them kept for backward.
	 */
	if (last && d->vocab > 0) {
		double logits = T * head_share(w, c) * d->vocab / t;
		o->logits_bytes = c->logits == MODEL_LOGITS_BF16 ?
					  2 * e * logits :
				  c->logits == MODEL_LOGITS_CHUNKED ?
					  e * logits + TUNE_LOGITS_FP32_BYTES * logits / TUNE_LOGIT_CHUNKS :
					  (e + TUNE_LOGITS_FP32_BYTES) * logits;
	}
	o->buffers_bytes = frozen16 + TUNE_WORKSPACE_BYTES;
	if (dp > 1 && c->zero < 3 && !lora)
		o->buffers_bytes += TUNE_BUCKET_BYTES;
}

/* Allocated total, allocator reserve, CUDA context and the fit test. */
static void mem_finish(const struct model_config *c, const struct hw *h, struct model_memory *o)
{
	int groups = (c->tp > 1) + (c->pp > 1) + (c->dp > 1) + (c->ep > 1) + (c->cp > 1);
	o->allocated_bytes = o->weights_bytes + o->gradients_bytes + o->optimizer_bytes + o->activations_bytes +
			     o->logits_bytes + o->lora_bytes + o->kv_cache_bytes + o->buffers_bytes;
	/*
	 * FSDP/ZeRO-3 all-gathers a layer's parameters into blocks freed on
	 * another stream (record_stream): the allocator keeps more in reserve.
	 */
	o->reserve_bytes = o->allocated_bytes *
			   (TUNE_RESERVE_FRACTION + (c->zero >= 3 && c->dp > 1 ? TUNE_RESERVE_SHARDED : 0));
	o->reserved_bytes = o->allocated_bytes + o->reserve_bytes;
	o->context_bytes = TUNE_CONTEXT_BYTES + groups * TUNE_NCCL_BYTES;
	o->total_bytes = o->reserved_bytes + o->paged_bytes + o->context_bytes;
	o->capacity_bytes = h->mem;
	o->fits = o->total_bytes <= o->capacity_bytes;
}

int model_memory(const struct workload *w, const struct model_config *c, struct model_memory *out)
{
	struct hw h;
	if (!w || !c || hw_of(c, &h) || c->tp < 1 || c->pp < 1 || c->dp < 1 || c->ep < 1 || c->vpp < 1 ||
	    c->micro_batch < 1 || c->seq_len < 1)
		return -1;
	if (w->kind == WORKLOAD_PER_SAMPLE) {
		mem_per_sample(w, c, out);
	} else {
		mem_transformer_stage(w, c, 0, out);
		if (c->pp > 1) {
			struct model_memory last;
			mem_transformer_stage(w, c, 1, &last);
			mem_finish(c, &h, &last);
			mem_finish(c, &h, out);
			if (last.total_bytes > out->total_bytes)
				*out = last;
			return 0;
		}
	}
	mem_finish(c, &h, out);
	return 0;
}

int model_host_fits(const struct model_memory *m, const struct model_config *c, double host_gib)
{
	int gpn = c->gpus_per_node > 0 ? c->gpus_per_node : 1;
	if (!(m->host_bytes > 0))
		return 1;
	return host_gib > 0 && m->host_bytes * gpn <= host_gib * 1073741824.0;
}
