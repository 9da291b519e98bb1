/*
 * Transformer inference: prefill and decode.  docs/model.md, "Inference".
 */

#include <math.h>
#include <string.h>

#include "model/model_int.h"

/* ------------------------------------------------------------------------- */
/* Inference                                                                  */

/* The engine that launches the work: --cuda-graphs on eager code replays it from a graph. */
enum model_engine engine_of(const struct model_config *c)
{
	return c->cuda_graphs && c->engine == MODEL_ENGINE_EAGER ? MODEL_ENGINE_CUDAGRAPHS : c->engine;
}

/* Host time to launch one kernel under the configured engine (model/engine.c). */
double launch_s_of(const struct model_config *c)
{
	return *model_engine_info(engine_of(c))->host_per_kernel_s;
}

/*
 * Linear layers of one transformer layer, as the engine runs them: unfused
 * code projects q, k, v, the attention output and the MLP's two or three
 * matrices apart (Hugging Face's LlamaDecoderLayer: 7); fused engines join
 * q, k, v and the gated MLP's gate and up (4, or 3 ungated).
 */
static double linears_per_layer(const struct workload_dims *d, enum model_engine eng)
{
	if (model_engine_info(eng)->fused)
		return d->gated_mlp ? 4 : 3;
	return d->gated_mlp ? 7 : 6;
}

/*
 * Decode time of the quantised linear layers, W_lin parameters of
 * `wb` bytes each, at batch B (docs/model.md, "Weight-only quantised
 * kernels"): below the kernel's dequantise batch it reads the packed weights
 * ceil(B / gemv_rows) times at bw_share of the stream rate, never faster
 * than the multiply-adds at the tensor rate with B padded to an MMA tile of
 * 16; above, it writes the weights out in 16 bits and the GEMM (gemm16_s,
 * the 16-bit GEMMs at m = B) reads them again.
 */
static double quant_linear_s(const struct model_quant_kernel *k, const struct hw *h, double W_lin, double wb,
			     double B, double gemm16_s)
{
	double passes, read_s, mma_s;
	if (B > k->dequant_above)
		return W_lin * (wb + 2) * h->inv_bw + gemm16_s;
	passes = k->gemv_rows > 0 ? ceil(B / k->gemv_rows) : 1;
	read_s = passes * W_lin * wb * h->inv_bw / k->bw_share;
	mma_s = 2 * (B > 16 ? B : 16) * W_lin * h->inv_gemm;
	return read_s > mma_s ? read_s : mma_s;
}

/*
 * Transformer inference (all pipeline stages in sequence):
 *   prefill  = L forward layers over B x P tokens + the last position's logits
 *   decode   = per token: weights read once (MoE: the experts the batch
 *              touches, E (1 - (1 - k/E)^B)), KV cache read for the average
 *              context P + O/2, small GEMMs at m = B, two TP all-reduces per
 *              layer (latency-bound), all at least the kernel-launch time.
 * The engine decides the launches: unfused eager code launches three times
 * the kernels of fused engines, each from Python; serving engines replay
 * decode from CUDA Graphs, add a scheduler step, and read a paged KV cache
 * at a lower share of the bandwidth (model/vendor.c).  Weights are read at
 * their stored precision with its block scales, the bytes the memory model
 * holds (weight-only int8/int4/fp8/nvfp4/mxfp4); a quantised kernel
 * (model/quant.h) reads them at its own share of the rate, may dequantise
 * them first, and adds launches and host time per linear layer.
 */
void infer_transformer(const struct workload *w, const struct model_config *c, const struct hw *h,
		       struct model_infer *o)
{
	const struct workload_dims *d = &w->d;
	struct layer_time lt;
	double L = d->layers, t = c->tp, B = c->batch, P = c->prompt_len, O = c->output_len;
	double eb = model_precision_bytes(c->precision), kvb = model_precision_bytes(c->kv_precision);
	double wb = stored_weight_bytes(c); /* as the memory model holds them */
	enum model_engine eng = engine_of(c);
	double ctx = P + O / 2.0;
	double gpu, cpu_s, kernels, weights, kvbytes, touched = 1;
	double pp_hop = 0, pp_hop_prefill = 0;
	const struct model_quant_kernel *qk = model_quant_kernel_at(c->quant_kernel);
	double lin = L * linears_per_layer(d, eng); /* linear layers a forward pass runs */

	memset(o, 0, sizeof(*o));
	if (c->pp > 1) {
		int stride = c->tp * c->dp;
		int g = stride >= c->gpus_per_node ? 1 : 2;
		pp_hop = coll_s(c, COLL_P2P, 2.0 * B * d->hidden, 2, g);
		pp_hop_prefill = coll_s(c, COLL_P2P, 2.0 * B * P * d->hidden, 2, g);
	}
	kernels = model_engine_layer_kernels(eng, d->gated_mlp, !d->learned_pos && d->causal) * L + 10;
	if (qk)
		kernels += lin * qk->launches_linear;

	/* prefill */
	layer_fwd(w, c, h, B * P, P, P, &lt);
	gpu = L * (lt.gemm + lt.attn_fwd + lt.mem + lt.tp_comm + lt.ep_comm) +
	      gemm_s(h, eb, B, d->vocab / t, d->hidden) + (c->pp - 1) * pp_hop_prefill +
	      kernels * TUNE_KERNEL_GAP_S;
	if (qk && B * P > qk->dequant_above) /* the prompt's GEMMs on weights dequantised once a layer */
		gpu += (w->params_active - w->params_embedding - w->params_head) / t *
		       (stored_weight_bytes(c) + 2) * h->inv_bw;
	if (gpu < kernels * TUNE_KERNEL_MIN_S)
		gpu = kernels * TUNE_KERNEL_MIN_S;
	cpu_s = model_engine_host_s(eng, kernels, B) + L * *model_engine_info(eng)->host_per_layer_s +
		(qk ? lin * qk->host_linear_s : 0);
	o->prefill_gpu_s = gpu;
	o->prefill_s = gpu > cpu_s ? gpu : cpu_s;
	o->launch_s = cpu_s;

	/* decode: one token for each of B sequences */
	if (d->experts > 1) {
		/* experts the batch touches per layer, in units of k (1 at batch 1, E/k when all) */
		double k = d->experts_active, E = d->experts;
		touched = E * (1 - pow(1 - k / E, B)) / k;
		if (touched > E / k)
			touched = E / k;
		if (touched < 1)
			touched = 1;
	}
	weights = (w->params_active - w->params_embedding) / t;
	if (d->experts > 1)
		weights += w->moe_layers * (touched - 1) * d->experts_active * w->params_layer_mlp / t;
	weights *= wb;
	kvbytes = d->causal ? L * kv_elems_gpu(w, c) * ctx * B * kvb : 0;
	layer_fwd(w, c, h, B, 1, ctx, &lt);
	if (qk) {
		/* the head stays in 16 bits (bitsandbytes and AWQ skip it), its GEMM in the compute term */
		double W_lin = weights / wb - w->params_head / t;
		double head = gemm_s(h, eb, B, d->vocab / t, d->hidden);
		double rest = L * (lt.mem + lt.attn_fwd);
		double kv_s = kvbytes / (model_engine_info(eng)->serving ? h->paged_kv : 1) * h->inv_bw;
		gpu = quant_linear_s(qk, h, W_lin, wb, B, L * lt.gemm) + head + (rest > kv_s ? rest : kv_s) +
		      L * (lt.tp_comm + lt.ep_comm) + (c->pp - 1) * pp_hop + kernels * TUNE_KERNEL_GAP_S;
		if (gpu < kernels * TUNE_KERNEL_MIN_S)
			gpu = kernels * TUNE_KERNEL_MIN_S;
	} else {
		double compute = L * (lt.gemm + lt.mem + lt.attn_fwd) + gemm_s(h, eb, B, d->vocab / t, d->hidden);
		double stream = (weights + kvbytes / (model_engine_info(eng)->serving ? h->paged_kv : 1)) *
				h->inv_bw;
		gpu = (compute > stream ? compute : stream) + L * (lt.tp_comm + lt.ep_comm) +
		      (c->pp - 1) * pp_hop + kernels * TUNE_KERNEL_GAP_S;
		if (gpu < kernels * TUNE_KERNEL_MIN_S)
			gpu = kernels * TUNE_KERNEL_MIN_S;
	}
	o->decode_gpu_s = gpu;
	o->decode_token_s = gpu > cpu_s ? gpu : cpu_s;
	o->decode_weights_bytes = weights;
	o->decode_kv_bytes = kvbytes;
	o->request_s = o->prefill_s + (O > 1 ? (O - 1) * o->decode_token_s : 0);
	/* generated tokens; an encoder generates none: the tokens it processed */
	o->tokens_per_s = c->dp * B * (d->causal && O > 0 ? O : P) / o->request_s;
	o->samples_per_s = c->dp * B / o->request_s;
}

double model_prefill_floor_s(const struct workload *w, const struct model_config *c, double prompt)
{
	double peak = c->gpu ? peak_of(c->gpu, c->precision) : NAN;
	double gpus = (c->tp > 1 ? c->tp : 1) * (c->pp > 1 ? c->pp : 1);
	double flops;

	if (w->kind != WORKLOAD_TRANSFORMER || !(peak > 0) || !(prompt > 0))
		return 0;
	flops = prompt * w->flops_token_dense + w->flops_token_attn * prompt * prompt / 2;
	return flops / (peak * gpus);
}
