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
 * Mixed precision (fp16/bf16/fp8): 16-bit working weights 2 B, fp32
 * gradients 4 B (accumulated in fp32), fp32 master copy 4 B + optimizer
 * states (AdamW 8 B, SGD momentum 4 B, 8-bit Adam 2 B): 18 B/parameter with
 * AdamW (Megatron theoretical_memory_usage, Korthikanti 2022; Transformer
 * Math 101).  FP32/TF32: weights 4, gradients 4, states only: 16 B.
 */
/* Optimizer states per parameter: AdamW two fp32 moments, SGD one momentum, 8-bit Adam two bytes. */
double optim_states_bytes(const struct model_config *c)
{
	return c->optimizer == MODEL_OPTIM_SGD ? 4 : c->optimizer == MODEL_OPTIM_ADAM8BIT ? 2 : 8;
}

struct state_bytes state_bytes_of(const struct model_config *c)
{
	struct state_bytes s;
	double states = optim_states_bytes(c);
	int full = c->precision == MODEL_FP32 || c->precision == MODEL_TF32;
	s.weight = full ? 4 : 2;
	s.grad = 4;
	s.optim = states + (full ? 0 : 4);
	return s;
}

/*
 * Parameters held by one GPU of one pipeline stage, for one layer: matrices
 * split by TP, norms replicated, experts split by EP then TP.
 */
double layer_params_gpu(const struct workload *w, const struct model_config *c)
{
	double norms = 2.0 * w->d.hidden * (w->d.has_bias ? 2 : 1);
	double experts = w->d.experts > 1 ? (double)w->d.experts / c->ep : 1;
	return (w->params_layer_attn - norms) / c->tp + norms +
	       experts * w->params_layer_mlp / c->tp + w->params_layer_router;
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
	if (flash_on(c))
		return 0;
	return (double)w->d.heads / c->tp * c->seq_len * c->seq_len * b * (e + m + m * e);
}

static double act_layer_bytes(const struct workload *w, const struct model_config *c, double e, double b)
{
	const struct workload_dims *d = &w->d;
	double T = (double)c->seq_len * b, t = c->tp;
	double h = d->hidden, q = w->q_dim, kv = w->kv_dim, f = d->ffn_hidden;
	double m = d->dropout > 0 ? 1 : 0;
	double k_act = d->experts > 1 ? d->experts_active : 1;
	double repl, split, scores = 0;

	repl = (4 * e + 2 * m) * T * h;
	split = e * T * (q + 2 * kv) + e * T * q + k_act * (d->gated_mlp ? 4 : 2) * e * T * f;
	if (d->experts > 1)
		split += k_act * 2 * e * T * h;
	if (flash_on(c))
		split += 4.0 * d->heads * T;
	else if (c->recompute == MODEL_RECOMPUTE_NONE)
		scores = attn_scores_bytes(w, c, e, b);
	return (c->seq_parallel ? repl / t : repl) + split / t + scores;
}

/* Per-GPU memory of a transformer at pipeline stage `stage` (0 first, 1 last). */
static void mem_transformer_stage(const struct workload *w, const struct model_config *c, int stage,
				  struct model_memory *o)
{
	const struct workload_dims *d = &w->d;
	struct state_bytes sb = state_bytes_of(c);
	double t = c->tp, p = c->pp, dp = c->dp;
	double Ls = model_stage_layers(w, c);
	double e = (c->precision == MODEL_FP32 || c->precision == MODEL_TF32) ? 4 : 2;
	double b = c->micro_batch, s = c->seq_len, T = s * b;
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
	}
	params = block + embed + head;

	if (c->task == MODEL_TASK_INFER) {
		double wb = model_precision_bytes(c->weight_precision >= 0 ? (enum model_precision)c->weight_precision :
						   c->precision);
		double kvb = model_precision_bytes(c->kv_precision);
		double B = c->batch, ctx = (double)c->prompt_len + c->output_len;
		double kv_gpu = w->kv_dim / t;
		double Tp = B * c->prompt_len;
		double work;
		/* KV heads fewer than tp are replicated: at least one head per GPU */
		if (kv_gpu < d->head_dim)
			kv_gpu = d->head_dim;
		/* inference loads all layers: pipeline stages hold L/p each */
		o->weights_bytes = params * wb;
		o->kv_cache_bytes = d->causal ? 2.0 * Ls * kv_gpu * ctx * B * kvb : 0;
		/* transient working set of one layer in prefill (flash attention) */
		work = 2 * Tp * (d->hidden + (w->q_dim + 2.0 * w->kv_dim) / t +
				 (d->gated_mlp ? 3.0 : 2.0) * d->ffn_hidden *
				 (d->experts > 1 ? d->experts_active : 1) / t);
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
		 * LoRA: the base is frozen (no gradients, no optimizer) in 16-bit;
		 * QLoRA stores the block matrices in 4-bit NF4 with double
		 * quantization, 4.127 bits per parameter (Dettmers et al. 2023,
		 * sec. 3), keeping embeddings, head and norms in 16-bit.  Adapters
		 * train in fp32 with AdamW: 16 B per adapter parameter.
		 */
		double wb16 = (c->precision == MODEL_FP32 || c->precision == MODEL_TF32) ? 4 : 2;
		double adapters = c->lora_rank * w->params_lora_per_rank / (t * p);
		if (c->task == MODEL_TASK_QLORA) {
			double norms = 2.0 * d->hidden * (d->has_bias ? 2 : 1) * Ls;
			double mats = block - norms;
			o->weights_bytes = mats * (4.127 / 8) + (norms + embed + head) * wb16;
			/* one layer dequantized to 16-bit for its matmuls */
			frozen16 = lp * 2;
		} else {
			o->weights_bytes = params * wb16;
		}
		/* fp32 adapter weights and gradients, plus optimizer states (no master copy: already fp32) */
		o->lora_bytes = adapters * (4 + 4 + optim_states_bytes(c));
	} else {
		double zw = c->zero >= 3 ? dp : 1, zg = c->zero >= 2 ? dp : 1, zo = c->zero >= 1 ? dp : 1;
		o->weights_bytes = params * sb.weight / zw;
		o->gradients_bytes = params * sb.grad / zg;
		o->optimizer_bytes = params * sb.optim / zo;
		if (c->offload != MODEL_OFFLOAD_NONE) {
			/* ZeRO-Offload: optimizer states and master weights live in host memory */
			o->host_bytes += o->optimizer_bytes;
			o->optimizer_bytes = 0;
			if (c->offload == MODEL_OFFLOAD_PARAMS) {
				o->host_bytes += o->weights_bytes;
				o->weights_bytes = 0;
			}
		}
		if (c->zero >= 3) {
			/* gathered parameters of the layer in use and the one prefetched */
			frozen16 = 2 * lp * sb.weight;
		}
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
	} else {
		o->activations_bytes = Ls * inflight * act_layer;
	}
	/* embedding output (+ its dropout mask) on the first stage */
	if (first)
		o->activations_bytes += inflight * (e + (d->dropout > 0 ? 1 : 0)) * T * d->hidden /
					(c->seq_parallel ? t : 1);
	/*
	 * Output layer and loss on the last stage: fp32 logits and their
	 * log-softmax, 8 B per logit (models that upcast logits for the loss),
	 * plus the 16-bit logits: (e + 8) T V / t.
	 */
	if (last && d->vocab > 0)
		o->logits_bytes = (e + 8) * T * d->vocab / t;
	o->buffers_bytes = frozen16 + TUNE_WORKSPACE_BYTES;
	if (c->dp > 1 && c->zero < 3 && !lora)
		o->buffers_bytes += TUNE_BUCKET_BYTES;
}

/* Allocated total, allocator reserve, CUDA context and the fit test. */
static void mem_finish(const struct model_config *c, const struct hw *h, struct model_memory *o)
{
	int groups = (c->tp > 1) + (c->pp > 1) + (c->dp > 1) + (c->ep > 1);
	o->allocated_bytes = o->weights_bytes + o->gradients_bytes + o->optimizer_bytes +
			     o->activations_bytes + o->logits_bytes + o->lora_bytes +
			     o->kv_cache_bytes + o->buffers_bytes;
	o->reserve_bytes = o->allocated_bytes * TUNE_RESERVE_FRACTION;
	o->context_bytes = TUNE_CONTEXT_BYTES + groups * TUNE_NCCL_BYTES;
	o->total_bytes = o->allocated_bytes + o->reserve_bytes + o->context_bytes;
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
