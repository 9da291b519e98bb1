/*
 * Compute time of transformers: one layer forward (GEMMs, attention,
 * memory-bound work, tensor- and expert-parallel collectives) and the
 * training micro-batch built from it.  docs/model.md, "Time".
 */

#include <math.h>
#include <string.h>

#include "model/kernels.h"
#include "model/model_int.h"
#include "model/vendor.h"

/* ------------------------------------------------------------------------- */
/* Time: transformers                                                         */

/*
 * Context parallelism (ring attention: Liu et al. 2023, "Ring Attention with
 * Blockwise Transformers"; Megatron-LM's context_parallel, NVIDIA
 * Transformer Engine): each of the cp ranks holds T tokens of every
 * sequence (s/cp of it) and their queries; K and V blocks of e T kv/t bytes
 * each go round the ring, cp - 1 sends per layer forward, each overlapped
 * with the attention of the block in hand.  Backward sends K and V again
 * with their gradients: twice the bytes, overlapped with the attention
 * backward.  Exposed = max(0, ring - attention).  The ring crosses servers
 * (g = 1) unless the tp x cp GPUs of a group share one.
 */
static void ring_attention(const struct workload *w, const struct model_config *c, double T, struct layer_time *lt)
{
	int cp = cp_of(c);
	double e = act_elem_bytes(c), kv = (double)w->kv_dim / c->tp, ring;
	lt->cp_fwd = lt->cp_bwd = 0;
	if (cp <= 1)
		return;
	/* KV heads fewer than tp are replicated: at least one head per GPU */
	if (kv < w->d.head_dim)
		kv = w->d.head_dim;
	ring = (cp - 1) * coll_s(c, COLL_P2P, 2 * e * T * kv, 2, (long)c->tp * cp <= c->gpus_per_node ? 2 : 1);
	lt->cp_fwd = ring > lt->attn_fwd ? ring - lt->attn_fwd : 0;
	lt->cp_bwd = 2 * ring > lt->attn_bwd ? 2 * ring - lt->attn_bwd : 0;
}

/*
 * HBM bytes per element of the quantisation ahead of a low-precision GEMM
 * (docs/model.md, "FP4"): fp8 TUNE_FP8_CAST_BYTES (read 2, write the fp8
 * copy and its transpose).  NVFP4 scales each tensor by its amax first, so
 * a pass reads the 16-bit tensor for it (2 B, Transformer Engine's NVFP4
 * recipe: per-tensor fp32 scale, then per-16 E4M3 block scales), then the
 * cast reads it again (2) and writes the row-wise and the column-wise
 * (transposed) copies with their block scales (2 x 4.5/8): 5.125 B.  MXFP4
 * needs no tensor amax (each 32-block's power-of-two scale is found inside
 * the cast): 2 + 2 x 4.25/8 = 3.0625 B.  The random Hadamard transform
 * NVFP4 training applies to the weight-gradient inputs is fused into the
 * cast; its arithmetic is not counted.
 */
static double cast_bytes(enum model_precision p)
{
	if (!model_precision_fp4(p))
		return TUNE_FP8_CAST_BYTES;
	return (p == MODEL_NVFP4 ? 2.0 : 0.0) + 2.0 + 2.0 * model_precision_bytes(p);
}

/*
 * One batched GEMM of the unfused attention (torch.bmm, cuBLAS strided
 * batched): `batch` products of m x n x k, one per sequence and head.  The
 * batch fills the SMs with output tiles, so a tile of a 128 x 128 score
 * block is used whole and only the short K loop (k = the head dimension
 * for QK^T, the keys for AV) pays its prologue, s(k) = k / (k + x0); the
 * last wave counts as for one GEMM of batch x m rows.  Memory: the two
 * operands that are not the s x ctx score matrix (Q and K, or V and the
 * context), whose traffic the softmax term counts.
 */
static double unfused_bmm_s(const struct hw *h, double eb, double batch, double m, double n, double k)
{
	double tc, tm, sq = fmin(m, n) * k, x0 = TUNE_GEMM_X0;
	if (batch <= 0 || m <= 0 || n <= 0 || k <= 0)
		return 0;
	tc = 2 * batch * m * n * (k + x0) / (h->attn_peak * h->attn_emax) /
	     model_gemm_wave_eff(h->sms, batch * m, n, k);
	tm = eb * batch * 2 * sq * h->inv_bw;
	return tc > tm ? tc : tm;
}

/*
 * FP8 and FP4 training with Transformer Engine (CUDA and ROCm;
 * docs/model.md, "FP8 casts"): bytes of the quantisation kernels of one
 * layer, per token and per weight element, as TE's modules fuse them.
 * A GEMM in fp8 needs its inputs in fp8, and the weight-gradient GEMM
 * their transposes (Hopper's fp8 tensor cores take only the TN layout).
 * Per element, cast = TUNE_FP8_CAST_BYTES (read 2, write the fp8 copy and
 * its transpose; cast_bytes() for FP4) and transpose = 2 (read and write
 * 1 B).  Forward:
 *   QKV and MLP-up inputs: LayerNormLinear / LayerNormMLP write the norm's
 *     output in fp8 (1 B instead of 2) and transpose it for the weight
 *     gradient: -1 + 2 = 1 B per element of h, each;
 *   the attention output (16-bit, from the attention kernel): a cast,
 *     per element of q/t;
 *   the MLP-down input: the activation kernel writes it in fp8 (GeLU) and
 *     it is transposed: 1 B per element of f/t (SwiGLU alike);
 *   the weights: a cast each micro-batch, 4 B per element (the transposed
 *     copy is kept for backward).
 * Backward, the output gradients of the four GEMMs in fused
 * cast-transpose(-bias-gradient) kernels: a cast per element of
 * (q + 2kv)/t, h and h; the MLP-up one is fused into the activation's
 * backward (dGeLU + cast + transpose: the same 2 B written as the 16-bit
 * dGeLU would): 0.  The scaling factors of delayed scaling (TE's default
 * recipe, recipe.DelayedScaling) come from the amax each cast kernel
 * records as it runs, with one fused amax-and-scale update per step over
 * all tensors: no pass of its own.
 */
/* Elements of the four linears' weights of a layer on one GPU (QKV, output, MLP up with its gate, down). */
static double linear_weights(const struct workload *w, const struct model_config *c)
{
	double hd = w->d.hidden, q = w->q_dim, kv = w->kv_dim, f = w->ffn_active;
	return (hd * (q + 2 * kv) + q * hd + hd * f * ((w->d.gated_mlp ? 2 : 1) + 1)) / c->tp;
}

static void te_casts(const struct workload *w, const struct model_config *c, const struct hw *h, double T,
		     struct layer_time *lt)
{
	const struct workload_dims *d = &w->d;
	double t = c->tp, hd = d->hidden, q = w->q_dim, kv = w->kv_dim, f = w->ffn_active;
	double cast = cast_bytes(c->precision), tr = 2.0 * model_precision_bytes(c->precision);
	/* the norm's or activation's saved write, then the transpose; FP4 needs the tensor's amax first: a cast,
	 * forward and for the MLP-up gradient too */
	double ln = model_precision_fp4(c->precision) ? cast : tr - (2 - model_precision_bytes(c->precision));
	double wts = linear_weights(w, c);
	double fwd = T * (2 * ln * hd + cast * q / t + ln * f / t) + cast * wts;
	double bwd = T * cast *
		     ((q + 2 * kv) / t + 2 * hd +
		      (model_precision_fp4(c->precision) ? (d->gated_mlp ? 2 : 1) * f / t : 0));
	lt->cast_fwd = fwd * h->inv_bw;
	lt->cast_bwd = bwd * h->inv_bw;
}

/* fp8 or fp4 training on a stack that casts the linears' inputs in kernels of their own */
static int casts_apart(const struct model_config *c)
{
	return low_precision(c->precision) && c->task != MODEL_TASK_INFER && model_vendor_eff(c->gpu)->fp8_casts;
}

int fp8_torchao(const struct model_config *c)
{
	return c->precision == MODEL_FP8 && c->engine == MODEL_ENGINE_COMPILE && casts_apart(c);
}

/*
 * torchao's float8 linears under torch.compile (docs/model.md, "FP8 under
 * torch.compile"): tensorwise dynamic scaling reads each tensor once more
 * for its amax before the cast, so every cast costs TUNE_FP8_CAST_BYTES + 2
 * = 6 B an element (read 2 for the amax, read 2, write the fp8 copy and its
 * transpose).  Forward: the four linears' inputs, T (h + q/t + h + f/t);
 * the weights under FSDP2's float8 all-gather cast on the shard before the
 * gather, a 1/N of them on each of the N ranks (amax, read, write: 5 B),
 * and the gathered fp8 weight transposed for the backward (read 1, write
 * 1: 2 B); without ZeRO-3 the weights cost 6 B like the inputs.  Backward:
 * the four GEMMs' output gradients, T ((q + 2kv)/t + h + (1 or 2) f/t + h).
 */
static void torchao_casts(const struct workload *w, const struct model_config *c, const struct hw *h, double T,
			  struct layer_time *lt)
{
	const struct workload_dims *d = &w->d;
	double t = c->tp, hd = d->hidden, q = w->q_dim, kv = w->kv_dim, f = w->ffn_active;
	double cast = TUNE_FP8_CAST_BYTES + 2, n = shard_ranks(c), gated = d->gated_mlp ? 2 : 1;
	double wts = linear_weights(w, c);
	double wcast = c->zero >= 3 && n > 1 ? wts * (5 / n + 2) : cast * wts;
	lt->cast_fwd = (cast * T * (hd + q / t + hd + f / t) + wcast) * h->inv_bw;
	lt->cast_bwd = cast * T * ((q + 2 * kv) / t + hd + gated * f / t + hd) * h->inv_bw;
}

/*
 * Eager PyTorch under torch.autocast over fp32 weights (docs/model.md,
 * "Autocast in eager code"): the HBM bytes it adds to a layer's 16-bit
 * activations, per micro-batch of T tokens.  Autocast runs layer_norm and
 * softmax in fp32 and an add of a 16-bit and an fp32 tensor gives fp32, so
 * the norms' outputs and the residual stream are fp32 (4 B, not 2), and
 * each linear casts an fp32 input to 16 bits in a kernel of its own (read
 * 4, write 2), its weight once per forward (autocast's cache).  Per token,
 * in B, with n the linears that read a norm's output (Q, K and V apart as
 * eager modules run them, the MLP up with its gate):
 *   forward: two norms (read and write +2h each: 8h), two residual adds
 *     (read the stream and write it, +2h each: 8h), n casts of h (6h);
 *   backward: the norms (input, gradient, gradient out: +6h each), the
 *     gradient joins (+6h each), the n casts' gradients up to fp32 (read
 *     2, write 4: 6h each) and each residual add's gradient down into its
 *     16-bit branch (read 4, write 2: 6h each).
 * The weights: a cast forward and its gradient's backward, 6 B an element
 * each.  Replicated over TP ranks unless sequence parallel, as the norms.
 * Unfused attention (per element of the a s ctx scores): the mask, in the
 * parameters' fp32, makes the scores fp32 (+2 written, +2 read by the
 * softmax), the softmax writes fp32 P (+2), dropout reads and writes it
 * (+4 m) and AV's cast reads 4 and writes 2 (+6): 12 + 4m; backward, dP
 * cast up (6), dropout on fp32 (+4 m), the softmax's three fp32 passes
 * (+6) and the gradient cast down at the mask's add (6): 18 + 4m.  Flash
 * attention (SDPA) runs in 16 bits inside one kernel: nothing.
 */
void autocast_bytes(const struct workload *w, const struct model_config *c, double T, double el,
		    struct autocast_cost *a)
{
	double hd = w->d.hidden, n = 3 + (w->d.gated_mlp ? 2 : 1), m = w->d.dropout > 0 ? 1 : 0;
	double repl = c->seq_parallel ? 1.0 / c->tp : 1, wts = 6 * linear_weights(w, c);
	memset(a, 0, sizeof(*a));
	if (!c->autocast)
		return;
	a->mem_fwd = T * repl * (16 + 6 * n) * hd + wts;
	a->mem_bwd = T * repl * (36 + 6 * n) * hd + wts;
	/* n input casts and n + 2 weight casts forward; their gradients' casts and the two downcasts backward */
	a->kernels_fwd = n + n + 2;
	a->kernels_bwd = a->kernels_fwd + 2;
	if (flash_on(c))
		return;
	a->attn_fwd = el * (12 + 4 * m);
	a->attn_bwd = el * (18 + 4 * m);
	/* AV's input cast; backward, its gradient's and the mask add's */
	a->kernels_fwd += 1;
	a->kernels_bwd += 2;
}

/*
 * Host seconds of Transformer Engine's fp8 modules per micro-batch
 * (docs/model.md, "FP8 host cost"): TUNE_TE_FP8_MODULE_S for each of the
 * four fp8 linears of a layer (QKV, output projection, MLP up and down:
 * the GEMMs whose weights te_casts() casts), forward and backward.  Only
 * eager Transformer Engine pays it: torchao's compiled float8 has no
 * module of its own to call, and modules replayed from CUDA Graphs
 * (te.make_graphed_callables) run none of their Python.
 */
double te_host_s(const struct model_config *c, double layers)
{
	if (!casts_apart(c) || fp8_torchao(c) || engine_of(c) == MODEL_ENGINE_CUDAGRAPHS)
		return 0;
	return 4 * layers * TUNE_TE_FP8_MODULE_S;
}

void layer_fwd(const struct workload *w, const struct model_config *c, const struct hw *h, double T, double s,
	       double ctx, struct layer_time *lt)
{
	const struct workload_dims *d = &w->d;
	double t = c->tp, eb = model_precision_bytes(c->precision);
	double hd = d->hidden, q = w->q_dim, kv = w->kv_dim, f = d->ffn_hidden;
	double e = (c->precision == MODEL_FP32 || c->precision == MODEL_TF32) ? 4 : 2;
	double heads = d->heads / t, hdim = d->head_dim;
	double bytes;

	/* GEMM operands in 8 or 4 bits (block scales included) only where the matrix engine takes them */
	if (eb < 2 && !low_precision(c->precision))
		eb = 2;
	/*
	 * QKV and output projections.  Latent attention (DeepSeek-V2/V3): the
	 * down-projections to the query latent and to the KV latent with its
	 * rotary key (replicated over TP, as Megatron-LM's MLA runs them), the
	 * up-projections to the heads and the output projection split by head.
	 */
	if (d->kv_lora_rank > 0) {
		double ql = d->q_lora_rank, kl = d->kv_lora_rank, a = d->heads / t;
		double qk = d->qk_nope_dim + d->qk_rope_dim;
		lt->gemm = gemm_s(h, eb, T, ql + kl + d->qk_rope_dim, hd) +
			   (ql > 0 ? gemm_s(h, eb, T, a * qk, ql) : gemm_s(h, eb, T, a * qk, hd)) +
			   gemm_s(h, eb, T, a * (d->qk_nope_dim + d->v_head_dim), kl) +
			   gemm_s(h, eb, T, hd, a * d->v_head_dim);
	} else {
		lt->gemm = gemm_s(h, eb, T, (q + 2 * kv) / t, hd) + gemm_s(h, eb, T, hd, q / t);
	}
	/*
	 * MLP: dense, or the local experts (E/ep) that the R = T ep etp / tp
	 * tokens routed to this GPU's group touch, E/ep (1 - (1 - k/E)^R) of
	 * them on average, sharing the R k / ep token-expert pairs.  Large
	 * batches touch all; one decoded token touches k.  Each expert's
	 * matrices split over etp GPUs, which share their tokens; the tp ranks
	 * of an attention group hold the same T tokens, a tp-th of them each
	 * entering the experts (etp = tp: R = T ep).  Models that mix layers (dense layers first, MoE every n-th
	 * layer) and shared experts run, per average layer, the MoE layers'
	 * share moe_layers / L of the routed work and the MLPs every token
	 * passes through (dense layers' MLP, shared experts) as one dense MLP
	 * of their mean width.
	 */
	if (d->experts > 1) {
		double local = (double)d->experts / c->ep, k = d->experts_active, E = d->experts;
		double et = etp_of(c), routed = T * c->ep * et / t, touched, tok, frac = w->moe_layers / d->layers;
		double fe = d->moe_ffn > 0 ? d->moe_ffn : f;
		double fd = w->ffn_active - frac * k * fe; /* the dense MLPs' mean width */
		touched = routed * k / E > 30 ? local : local * (1 - pow(1 - k / E, routed));
		if (touched < 1)
			touched = 1;
		tok = routed * k / (c->ep * touched);
		lt->gemm += frac * (touched * (gemm_s(h, eb, tok, fe * (d->gated_mlp ? 2 : 1) / et, hd) +
					       gemm_s(h, eb, tok, hd, fe / et)) +
				    gemm_s(h, eb, T, d->experts, hd));
		if (fd > 0.5)
			lt->gemm += gemm_s(h, eb, T, fd * (d->gated_mlp ? 2 : 1) / t, hd) +
				    gemm_s(h, eb, T, hd, fd / t);
	} else {
		lt->gemm += gemm_s(h, eb, T, f * (d->gated_mlp ? 2 : 1) / t, hd) + gemm_s(h, eb, T, hd, f / t);
	}

	/*
	 * Attention scores QK^T and AV over `ctx` keys: 4 T ctx q / t FLOPs.
	 * Flash attention (Dao 2023) skips masked blocks (causal: half) and
	 * runs at TUNE_FLASH_EFF of peak, scaled by d/(d + 32) for small head
	 * dimensions; its backward does 2.5x the forward's FLOPs.  Without it:
	 * batched GEMMs plus the softmax's s^2 traffic through HBM.  Both run
	 * at the attention's own precision: 16-bit under fp8 training
	 * (attn_precision_of, h->attn_peak).
	 */
	{
		/* per token of context: 4 q (QK^T and AV); latent attention 2 a (qk + v) */
		double full = T * ctx * (w->flops_token_attn / d->layers) / t;
		double causal = d->causal && ctx == s ? 0.5 : 1.0;
		if (flash_on(c)) {
			double eff = TUNE_FLASH_EFF * hdim / (hdim + 32);
			lt->attn_flops = full * causal;
			lt->attn_fwd = lt->attn_flops / (h->attn_peak * eff);
			lt->attn_bwd = 2.5 * lt->attn_flops / (h->attn_peak * eff * TUNE_FLASH_BWD_REL);
		} else {
			double seqs = T / s, el = seqs * heads * s * ctx;
			double m = d->dropout > 0 ? 1 : 0, ea = model_precision_bytes(attn_precision_of(c));
			lt->attn_flops = full;
			double bmm = unfused_bmm_s(h, ea, seqs * heads, s, ctx, hdim) +
				     unfused_bmm_s(h, ea, seqs * heads, s, hdim, ctx);
			/*
			 * eager modelling code (Hugging Face's BertSelfAttention and
			 * LlamaAttention's eager path, NVIDIA's PyTorch BERT) scales
			 * the scores and adds the mask as two kernels of their own
			 * before the softmax: each reads and writes the s x ctx
			 * scores, and the scale's backward does once more (the add's
			 * gradient passes through).  Fused engines fold both into the
			 * softmax (docs/model.md, "Unfused attention").
			 */
			double apart = model_engine_info(engine_of(c))->fused ? 0 : 2;
			/* scores written, masked, softmaxed, dropped out (mask 1 B), read by AV */
			lt->attn_fwd = bmm + el * ((5 + 2 * apart) * e + m * (1 + e)) * h->inv_bw;
			/*
			 * backward: four batched GEMMs (dV, dP, dQ, dK); dP written,
			 * dropout's backward (read dP and the mask, write), softmax's
			 * (read dP and P, write dS), dS read twice and P once
			 */
			lt->attn_bwd = 2 * bmm + el * ((7 + apart) * e + m * (2 * e + 1)) * h->inv_bw;
		}
	}

	/*
	 * Memory-bound work per token (elements): two norms (read + write h
	 * each), two residual adds (read 2h, write h), dropout (read, write,
	 * mask), the activation function (SwiGLU: read 2f write f; GeLU: read f
	 * write f) and rotary embeddings (read + write q + kv).  Norms, adds and
	 * dropout are replicated across TP ranks unless sequence parallel.
	 * Backward, kernel by kernel: each norm reads its input and the
	 * gradient and writes one (3h); each residual join sums the gradients
	 * of its two branches (read 2h, write h); dropout reads the gradient
	 * and the mask and writes one (2.5h); GeLU reads the gradient and its
	 * input and writes one (3f), SwiGLU reads the gradient and both
	 * inputs and writes two (5f); rotary as forward.  About 1.1-1.3 x the
	 * forward's bytes, not 2 x.
	 */
	{
		double drop = d->dropout > 0 ? 2 * (2 * hd + 0.5 * hd) : 0;
		double rope = d->learned_pos || !d->causal ? 0 : 2 * (q + kv);
		double repl = 4 * hd + 6 * hd + drop, repl_b = 6 * hd + 6 * hd + drop;
		double split = (d->gated_mlp ? 3 : 2) * w->ffn_active + rope;
		double split_b = (d->gated_mlp ? 5 : 3) * w->ffn_active + rope;
		bytes = e * T * ((c->seq_parallel ? repl / t : repl) + split / t);
		lt->mem = bytes * h->inv_bw;
		lt->mem_bwd = e * T * ((c->seq_parallel ? repl_b / t : repl_b) + split_b / t) * h->inv_bw;
	}

	{
		struct autocast_cost a;
		autocast_bytes(w, c, T, T / s * heads * s * ctx, &a);
		lt->mem += a.mem_fwd * h->inv_bw;
		lt->mem_bwd += a.mem_bwd * h->inv_bw;
		lt->attn_fwd += a.attn_fwd * h->inv_bw;
		lt->attn_bwd += a.attn_bwd * h->inv_bw;
		lt->autocast_kernels[0] = a.kernels_fwd;
		lt->autocast_kernels[1] = a.kernels_bwd;
	}

	lt->cast_fwd = lt->cast_bwd = 0;
	if (fp8_torchao(c))
		torchao_casts(w, c, h, T, lt);
	else if (casts_apart(c))
		te_casts(w, c, h, T, lt);

	/*
	 * Tensor parallelism: two all-reduces of e T h bytes per layer forward
	 * (Megatron, Shoeybi 2019), or all-gather + reduce-scatter pairs of
	 * the same volume with sequence parallelism; inside the server when tp
	 * fits in it.  Stacks that run collectives on engines of their own
	 * (Gaudi's DMA/NIC engines) hide a share of them under compute
	 * (model/vendor.c, tp_hidden).
	 */
	if (c->tp > 1) {
		int g = per_node(c, c->tp, 1);
		double hidden = model_vendor_eff(c->gpu)->tp_hidden;
		/* --tp-comm-overlap: chunked collectives beside the GEMMs (docs/model.md, "Overlap") */
		if (c->overlap >= MODEL_OVERLAP_GRAD_PARAM_TP && TUNE_TP_OVERLAP > hidden)
			hidden = TUNE_TP_OVERLAP;
		lt->tp_comm = 2 * coll_s(c, COLL_AR, e * T * hd, c->tp, g) * (1 - hidden);
	} else {
		lt->tp_comm = 0;
	}
	/*
	 * Expert parallelism: dispatch and combine all-to-alls of k e T (etp /
	 * tp) h bytes (the tokens that enter the experts on this GPU) in the MoE layers (their share of an average layer).  MoE parallel
	 * folding (Megatron-LM) lays the expert grid etp x ep x edp over the tp
	 * x cp x dp ranks with etp fastest: the ep ranks of a group lie etp
	 * apart, inside a server while ep x etp GPUs fit in one, across the
	 * scale-out network beyond.
	 */
	if (d->experts > 1 && c->ep > 1) {
		int g = per_node(c, c->ep, etp_of(c));
		lt->ep_comm = w->moe_layers / d->layers * 2 *
			      coll_s(c, COLL_A2A, d->experts_active * e * T * etp_of(c) / t * hd, c->ep, g);
	} else {
		lt->ep_comm = 0;
	}
	ring_attention(w, c, T, lt);
}

int mlm_pretrain(const struct workload *w, const struct model_config *c)
{
	return w->kind == WORKLOAD_TRANSFORMER && !w->d.causal && c->task == MODEL_TASK_PRETRAIN;
}

/*
 * Positions of a micro-batch that the output layer sees (model_int.h).
 * BERT's masked-LM pre-training masks 15 % of the tokens (Devlin et al.
 * 2019, sec. 3.1) and its reference implementation gathers those
 * positions before the MLM head (google-research/bert run_pretraining.py,
 * gather_indexes over masked_lm_positions; max_predictions_per_seq 20 of
 * 128 and 80 of 512): the head's GEMM and its logits are 0.15 of the
 * decoder's, the default.  Hugging Face's BertForMaskedLM computes the
 * logits of every position and the loss ignores the unmasked ones
 * (labels -100): --mlm-head all, the decoder's whole head.  A fine-tuned
 * encoder (classification, question answering) has a head of a few
 * outputs.
 */
double head_share(const struct workload *w, const struct model_config *c)
{
	if (w->kind != WORKLOAD_TRANSFORMER || w->d.causal || c->task == MODEL_TASK_INFER)
		return 1;
	if (!mlm_pretrain(w, c))
		return 0;
	return c->mlm_head == MODEL_MLM_HEAD_ALL ? 1 : MODEL_MLM_SHARE;
}

void train_transformer(const struct workload *w, const struct model_config *c, const struct hw *h,
		       struct train_parts *tp)
{
	const struct workload_dims *d = &w->d;
	struct layer_time lt;
	double s = c->seq_len, T = tokens_gpu(c, c->micro_batch);
	double Ls = model_stage_layers(w, c), t = c->tp;
	double eb = model_precision_bytes(c->precision);
	double e = (c->precision == MODEL_FP32 || c->precision == MODEL_TF32) ? 4 : 2;
	int lora = c->task == MODEL_TASK_LORA || c->task == MODEL_TASK_QLORA;
	double fwd, bwd, rec = 0, head_fwd = 0, head_mem = 0;
	double bwd_gemm_factor = lora ? 1.0 : 2.0;
	double qlora_dq = 0;

	layer_fwd(w, c, h, T, s, s, &lt);
	if (c->task == MODEL_TASK_QLORA) {
		/* NF4 weights are dequantized to 16-bit before each matmul, forward and backward */
		double mats = layer_params_gpu(w, c);
		qlora_dq = mats * (0.5 + 2 + 2) * h->inv_bw;
	}
	fwd = lt.gemm + lt.attn_fwd + lt.mem + lt.cast_fwd + lt.tp_comm + lt.ep_comm + lt.cp_fwd + qlora_dq;
	bwd = bwd_gemm_factor * lt.gemm + lt.attn_bwd + lt.mem_bwd + lt.cast_bwd + lt.tp_comm + lt.ep_comm +
	      lt.cp_bwd + qlora_dq;
	if (lora) {
		/* adapters: forward, and both gradients, of r x (in + out) per matrix: small GEMMs */
		double ad = c->lora_rank * lora_params_per_rank(w, c) / d->layers / t;
		double tad = 2 * T * ad / (h->peak * h->emax * 0.3);
		fwd += tad;
		bwd += 2 * tad;
	}
	if (c->recompute == MODEL_RECOMPUTE_FULL)
		rec = fwd - qlora_dq * 0;
	else if (c->recompute == MODEL_RECOMPUTE_SELECTIVE && !flash_on(c))
		rec = lt.attn_fwd;
	else if (c->recompute == MODEL_RECOMPUTE_SELECTIVE_OP)
		/* the matmuls whose outputs were not kept run again, with the cheap ops between them */
		rec = (1 - TUNE_SELECTIVE_OP_KEEP) * (lt.gemm + lt.mem);

	/* output layer and loss on the last stage, over the positions that are predicted */
	if (d->vocab > 0 && head_share(w, c) > 0) {
		double Th = T * head_share(w, c);
		/*
		 * fp8 and fp4 recipes that cast in kernels of their own keep the
		 * output layer in 16 bits: Megatron's output layer is not a
		 * Transformer Engine module, and torchao's conversions filter it
		 * out (its logits are the loss's inputs); it runs at the 16-bit
		 * peak, the attention's (h->attn_peak).
		 */
		struct hw hh = *h;
		double ehead = eb;
		if (casts_apart(c)) {
			hh.inv_gemm = 1 / (h->attn_peak * h->attn_emax);
			ehead = 2;
		}
		head_fwd = gemm_s(&hh, ehead, Th, d->vocab / t, d->hidden);
		/* logits written, upcast, log-softmax, gradient: about 24 B per logit */
		head_mem = 24.0 * Th * d->vocab / t * h->inv_bw;
		if (c->tp > 1)
			head_mem += coll_s(c, COLL_AR, 4.0 * Th, c->tp, per_node(c, c->tp, 1)) * 3;
	}

	tp->mb_fwd = Ls * fwd + head_fwd + head_mem / 3;
	tp->mb_bwd = Ls * bwd + bwd_gemm_factor * head_fwd + head_mem * 2 / 3;
	tp->mb_recompute = Ls * rec;
	tp->layer_fwd = fwd;
	tp->layer_bwd = bwd + rec;
	tp->gemm = Ls * (1 + bwd_gemm_factor) * lt.gemm + (1 + bwd_gemm_factor) * head_fwd;
	tp->attn = Ls * (lt.attn_fwd + lt.attn_bwd);
	tp->mem = Ls * (lt.mem + lt.mem_bwd + lt.cast_fwd + lt.cast_bwd) + head_mem + Ls * 2 * qlora_dq;
	tp->recompute = tp->mb_recompute;
	tp->tp = Ls * 2 * lt.tp_comm * (c->recompute == MODEL_RECOMPUTE_FULL ? 1.5 : 1);
	tp->ep = Ls * 2 * lt.ep_comm * (c->recompute == MODEL_RECOMPUTE_FULL ? 1.5 : 1);
	tp->cp = Ls * (lt.cp_bwd + lt.cp_fwd * (c->recompute == MODEL_RECOMPUTE_FULL ? 2 : 1));
	/* multi-token prediction: each module a layer (with its 2h x h projection) and a head more, last stage */
	if (d->mtp_layers > 0) {
		double mtp = d->mtp_layers, proj = gemm_s(h, eb, T, d->hidden / t, 2.0 * d->hidden);
		tp->mb_fwd += mtp * (fwd + proj + head_fwd + head_mem / 3);
		tp->mb_bwd += mtp * (bwd + bwd_gemm_factor * (proj + head_fwd) + head_mem * 2 / 3);
		tp->gemm += mtp * (1 + bwd_gemm_factor) * (lt.gemm + proj + head_fwd);
		tp->attn += mtp * (lt.attn_fwd + lt.attn_bwd);
		tp->mem += mtp * (lt.mem + lt.mem_bwd + lt.cast_fwd + lt.cast_bwd + head_mem);
	}
	/* the ring runs one attention kernel per block: cp - 1 more per layer, forward and backward */
	tp->kernels_mb = 3 * (TUNE_KERNELS_PER_LAYER * Ls + 10 + Ls * (cp_of(c) - 1)) *
			 (c->recompute == MODEL_RECOMPUTE_FULL ? 4.0 / 3 : 1);
	/* Transformer Engine's casts (te_casts): 4 weight casts, 4 input casts or transposes, 3 gradient casts */
	if (lt.cast_fwd > 0)
		tp->kernels_mb += 11 * Ls;
	tp->kernels_mb += Ls * (lt.autocast_kernels[0] * (c->recompute == MODEL_RECOMPUTE_FULL ? 2 : 1) +
				lt.autocast_kernels[1]);
	tp->host_mb = te_host_s(c, Ls);

	/*
	 * FLOPs per token (Megatron eq. 3 / PaLM convention: full attention,
	 * no causal halving): model = 3 x forward (forward + 2 x backward),
	 * LoRA 2 x forward (no weight gradients); hardware adds the recomputed
	 * forward (full) or attention scores (selective, without flash attention:
	 * with it nothing extra runs).
	 */
	{
		double f_head = w->flops_token_head * head_share(w, c);
		double f_fwd = w->flops_token_dense + w->flops_token_attn * s + f_head + w->flops_token_mtp +
			       d->mtp_layers * w->flops_token_attn / d->layers * s;
		double f_attn = w->flops_token_attn * s;
		tp->flops_model_token = (lora ? 2 : 3) * f_fwd;
		tp->flops_hw_token = tp->flops_model_token +
				     (c->recompute == MODEL_RECOMPUTE_FULL                      ? f_fwd - f_head :
				      c->recompute == MODEL_RECOMPUTE_SELECTIVE && !flash_on(c) ? f_attn :
												  0);
	}
	(void)e;
}
