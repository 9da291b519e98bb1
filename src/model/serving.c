/*
 * Serving model.  The argument, in short: an engine that batches
 * continuously keeps `C` sequences running; every step decodes one token for
 * each and, chunk by chunk, prefills the prompts of the requests that replace
 * finished ones.  Over a request's life that is the work of one static batch
 * of C: C prefills and O decode steps at the average context P + O/2.  So
 * throughput = C x O / (prefill(C) + (O - 1) x step(C)), the time per output
 * token a client sees is the step plus its share of the prefills mixed in,
 * step(C) + prefill(C)/O, and the first token waits for its own prefill and
 * the step in flight.  C is what the KV cache holds, capped by the engine's
 * limit on running sequences or by a latency target.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/engine.h"
#include "model/model_int.h"
#include "model/serving.h"

/*
 * Tokens of one prefill chunk an engine profiles its activation peak with
 * (vLLM max_num_batched_tokens 8192 on large GPUs with chunked prefill;
 * TensorRT-LLM max_num_tokens 8192).
 */
#define TUNE_SERVE_CHUNK_TOKENS 8192.0
/* the TTFT the serving targets name: p99 */
#define TTFT_QUANTILE 0.99
/* CUDA Graph pools, sampler buffers and non-torch allocations an engine keeps besides the cache (estimate) */
#define TUNE_SERVE_RESERVE_BYTES (1.5 * 1073741824.0)

/* KV-cache bytes per token on one GPU: its layers' K and V (model_int.h, kv_elems_gpu: latent attention's latent). */
static double kv_per_token(const struct workload *w, const struct model_config *c)
{
	return (double)w->d.layers / c->pp * kv_elems_gpu(w, c) * model_precision_bytes(c->kv_precision);
}

/* Activations of one prefill chunk on one GPU: residual stream, QKV, MLP intermediate (16-bit). */
static double chunk_bytes(const struct workload *w, const struct model_config *c)
{
	double h = w->d.hidden, f = w->d.ffn_hidden * (w->d.gated_mlp ? 3.0 : 2.0);
	double qkv = (double)(w->q_dim + 2 * w->kv_dim);
	return TUNE_SERVE_CHUNK_TOKENS * (4 * h + (qkv + f) / c->tp) * 2;
}

static int fail(struct diag *err, const char *field, const char *msg)
{
	return diag_set(err, "", 0, 0, field, "%s", msg);
}

/*
 * Memory as a serving engine holds it, in place of the static-batch figure
 * of model_memory (every sequence at P + O tokens, the whole batch's prompts
 * prefilled at once): the weights, one prefill chunk's activations, the
 * graph pools and sampler buffers, and the KV cache's blocks, which the
 * engine allocates whole at start-up (vLLM's profile run, TensorRT-LLM's
 * free_gpu_memory_fraction), however many sequences fill them.  Within the
 * capacity by construction: the budget is what the rest leaves.
 */
static void engine_memory(const struct model_serving *s, struct model_memory *m)
{
	double chunk = s->workspace_bytes - m->context_bytes - TUNE_SERVE_RESERVE_BYTES;
	m->weights_bytes = s->weights_bytes;
	m->activations_bytes = m->activations_layer_bytes = chunk > 0 ? chunk : 0;
	m->kv_cache_bytes = s->kv_budget_bytes;
	m->buffers_bytes = TUNE_SERVE_RESERVE_BYTES;
	m->allocated_bytes = m->weights_bytes + m->activations_bytes + m->logits_bytes + m->kv_cache_bytes +
			     m->buffers_bytes;
	m->reserve_bytes = 0; /* preallocated pools: nothing for the caching allocator to fragment */
	m->reserved_bytes = m->allocated_bytes;
	m->total_bytes = m->reserved_bytes + m->paged_bytes + m->context_bytes;
	m->fits = m->total_bytes <= m->capacity_bytes;
}

/* "cannot: batch N needs X GiB of KV cache, Y GiB fit; the largest that fits is Z" */
static int batch_too_big(struct diag *err, int n, double need_bytes, double room_bytes, int largest,
			 const char *how)
{
	char tail[160];
	if (largest > 0)
		snprintf(tail, sizeof(tail), "the largest that fits is %d", largest);
	else
		snprintf(tail, sizeof(tail),
			 "not even one sequence fits; use more tensor parallelism or smaller "
			 "weights (--weight-precision)");
	return diag_set(err, "", 0, 0, "batch", "cannot: batch %d needs %.1f GiB of KV cache, %.1f GiB fit%s; %s",
			n, need_bytes / 1073741824.0, room_bytes > 0 ? room_bytes / 1073741824.0 : 0.0, how, tail);
}

/* One estimate at concurrency n, folded into the serving figures. */
static int at_concurrency(const struct workload *w, const struct model_config *cfg, int continuous, int n,
			  double prefill1_s, struct model_serving *s)
{
	struct model_config c = *cfg;
	double O = cfg->output_len;
	c.batch = n;
	if (model_estimate(w, &c, &s->at))
		return -1;
	engine_memory(s, &s->at.mem);
	s->concurrency = n;
	s->request_s = s->at.infer.request_s;
	if (continuous) {
		s->tpot_s = s->at.infer.decode_token_s + s->at.infer.prefill_s / O;
		s->ttft_s = prefill1_s + s->at.infer.decode_token_s;
	} else {
		s->tpot_s = s->at.infer.decode_token_s;
		s->ttft_s = s->at.infer.prefill_s;
	}
	s->tokens_per_s = cfg->dp * n * O / s->request_s;
	s->requests_per_s = cfg->dp * n / s->request_s;
	return 0;
}

static int meets(const struct model_serving *s, const struct model_serving_opts *o)
{
	return (!(o->tpot_target_s > 0) || s->tpot_s <= o->tpot_target_s) &&
	       (!(o->ttft_target_s > 0) || s->ttft_s <= o->ttft_target_s) &&
	       (!(o->latency_target_s > 0) || s->request_s <= o->latency_target_s);
}

/* A target for the message: "none", "200.0 ms", "0.001 ms" (1 us stays visible). */
static const char *target_text(double s, char *buf, size_t len)
{
	if (!(s > 0))
		snprintf(buf, len, "none");
	else if (s >= 1e-3)
		snprintf(buf, len, "%.1f ms", s * 1e3);
	else
		snprintf(buf, len, "%.3g ms", s * 1e3);
	return buf;
}

int model_serving_estimate(const struct workload *w, const struct model_config *cfg,
			   const struct model_serving_opts *o, struct model_serving *s, struct diag *err)
{
	const struct model_engine_info *eng = model_engine_info(cfg->engine);
	struct model_config one = *cfg;
	struct model_memory mem;
	struct model_result r1;
	double frac, block, seq_tokens, cap, used, prefill1 = 0;
	int limit, n, asked;
	char msg[512];

	memset(s, 0, sizeof(*s));
	if (w->kind != WORKLOAD_TRANSFORMER || !w->d.causal)
		return fail(err, "model", "serving estimates need a decoder (a causal transformer)");
	if (cfg->task != MODEL_TASK_INFER)
		return fail(err, "task", "serving estimates need --task infer");

	/* memory: the weights and a one-sequence working set from the memory model */
	one.batch = 1;
	if (model_memory(w, &one, &mem))
		return fail(err, "gpu", "the model cannot evaluate this configuration");
	cap = mem.capacity_bytes;
	s->weights_bytes = mem.weights_bytes;
	s->workspace_bytes = chunk_bytes(w, cfg) + mem.context_bytes + TUNE_SERVE_RESERVE_BYTES;
	frac = o->mem_fraction > 0 ? o->mem_fraction : eng->serving ? eng->mem_fraction : 1.0;
	used = s->weights_bytes + s->workspace_bytes;
	s->kv_budget_bytes = eng->mem_of_free ? frac * (cap - used) : frac * cap - used;
	s->kv_bytes_per_token = kv_per_token(w, cfg);

	/* tokens a sequence holds: all of P + O for a static batch, P + O/2 on average when staggered */
	seq_tokens = o->continuous ? cfg->prompt_len + cfg->output_len / 2.0 :
				     (double)cfg->prompt_len + cfg->output_len;
	block = o->block_tokens > 0 ? o->block_tokens : eng->serving ? eng->kv_block_tokens : 1;
	s->tokens_per_seq = ceil(seq_tokens / block) * block;
	limit = s->kv_budget_bytes > 0 ?
			(int)fmin(1e7, floor(s->kv_budget_bytes / (s->tokens_per_seq * s->kv_bytes_per_token))) :
			0;
	s->kv_limit = limit;
	if (limit < 1) {
		snprintf(
			msg, sizeof(msg),
			"cannot serve: %.1f GiB of weights and %.1f GiB of working memory leave %.1f GiB of the %.1f GiB "
			"for the KV cache, and one sequence of %.0f tokens needs %.2f GiB; use more tensor parallelism "
			"or smaller weights (--weight-precision)",
			s->weights_bytes / 1073741824.0, s->workspace_bytes / 1073741824.0,
			s->kv_budget_bytes > 0 ? s->kv_budget_bytes / 1073741824.0 : 0.0, cap / 1073741824.0,
			s->tokens_per_seq, s->tokens_per_seq * s->kv_bytes_per_token / 1073741824.0);
		return fail(err, "batch", msg);
	}

	/* the batch asked for: continuous batching's comes apart, as cfg->batch is completed to 1 */
	asked = o->continuous ? o->batch : cfg->batch;
	if (asked > limit) {
		/* an explicit batch the cache cannot hold is refused, not quietly lowered */
		snprintf(msg, sizeof(msg), " (%.0f tokens a sequence, in %g-token blocks)", s->tokens_per_seq,
			 block);
		return batch_too_big(err, asked, asked * s->tokens_per_seq * s->kv_bytes_per_token,
				     s->kv_budget_bytes, limit, msg);
	}
	if (o->continuous) {
		int cap_seqs = o->max_seqs > 0   ? o->max_seqs :
			       asked > 0         ? asked :
			       eng->max_seqs > 0 ? eng->max_seqs :
						   limit;
		n = limit < cap_seqs ? limit : cap_seqs;
		s->bound = limit < cap_seqs ? "kv-cache" : "max-seqs";
		one.batch = 1;
		if (model_estimate(w, &one, &r1))
			return fail(err, "gpu", "the model cannot evaluate this configuration");
		prefill1 = r1.infer.prefill_s;
	} else {
		n = cfg->batch > 0 ? cfg->batch : 1;
		s->bound = "batch";
	}
	if (at_concurrency(w, cfg, o->continuous, n, prefill1, s))
		return fail(err, "gpu", "the model cannot evaluate this configuration");
	if (meets(s, o))
		return 0;

	/* a latency target: the largest concurrency that meets it (TTFT and TPOT grow with it) */
	{
		struct model_serving best = *s, t = *s;
		int lo = 0, hi = n;
		while (hi - lo > 1) {
			int mid = lo + (hi - lo) / 2;
			if (at_concurrency(w, cfg, o->continuous, mid, prefill1, &t))
				return fail(err, "gpu", "the model cannot evaluate this configuration");
			if (meets(&t, o)) {
				lo = mid;
				best = t;
			} else {
				hi = mid;
			}
		}
		if (lo == 0) {
			if (at_concurrency(w, cfg, o->continuous, 1, prefill1, &t))
				return fail(err, "gpu", "the model cannot evaluate this configuration");
			if (!meets(&t, o)) {
				char tt[48], tp[48], tl[48];
				snprintf(
					msg, sizeof(msg),
					"cannot meet the target: the closest is one sequence at a time, with a time to first "
					"token of %.1f ms, %.2f ms per output token and %.1f ms a request (targets: TTFT %s, "
					"TPOT %s, request latency %s); more tensor parallelism, a faster GPU or smaller "
					"weights would be needed",
					t.ttft_s * 1e3, t.tpot_s * 1e3, t.request_s * 1e3,
					target_text(o->ttft_target_s, tt, sizeof(tt)),
					target_text(o->tpot_target_s, tp, sizeof(tp)),
					target_text(o->latency_target_s, tl, sizeof(tl)));
				return fail(err, "latency-target", msg);
			}
			best = t;
		}
		best.bound = "target";
		*s = best;
	}
	return 0;
}

/*
 * Erlang C by way of the Erlang B recursion, B(0) = 1, B(k) = a B(k-1) /
 * (k + a B(k-1)), which stays within [0, 1] for thousands of servers where
 * a^c / c! would overflow; then C = B / (1 - rho (1 - B)), rho = a / c
 * (Kleinrock, Queueing Systems vol. 1, 1975, sec. 3.5; Gross and Harris,
 * Fundamentals of Queueing Theory, M/M/c waiting-time distribution).
 */
static double erlang_c(int c, double a)
{
	double b = 1, rho = a / c;
	int k;
	for (k = 1; k <= c; k++)
		b = a * b / (k + a * b);
	return b / (1 - rho * (1 - b));
}

double model_queue_wait_s(int slots, double hold_s, double rate_per_s, double q)
{
	double a, drain, pw;
	if (slots < 1 || !(hold_s > 0) || !(rate_per_s >= 0) || !(q > 0 && q < 1) || !isfinite(hold_s))
		return INFINITY;
	a = rate_per_s * hold_s;
	if (a >= slots)
		return INFINITY;
	if (a == 0)
		return 0;
	pw = erlang_c(slots, a);
	drain = slots / hold_s - rate_per_s;
	return pw > 1 - q ? log(pw / (1 - q)) / drain : 0;
}

int model_serving_replicas(double rate_per_s, int slots, double hold_s, double ttft_service_s,
			   double ttft_target_s, int min_replicas, int max_replicas, double *ttft_p99_s)
{
	int lo, hi, n = min_replicas > 1 ? min_replicas : 1;
	double t;
#define TTFT_AT(r) (ttft_service_s + model_queue_wait_s(slots, hold_s, rate_per_s / (r), TTFT_QUANTILE))
	if (max_replicas < n)
		max_replicas = n;
	/* a queue at (or, rounded, just past) saturation never drains: one replica more, target or not */
	while (!isfinite(TTFT_AT(n)) && n < max_replicas)
		n++;
	t = TTFT_AT(n);
	/* throughput's count already meets it (or nothing is asked): the common case */
	if (!(ttft_target_s > 0) || t <= ttft_target_s) {
		*ttft_p99_s = t;
		return n;
	}
	if (!(TTFT_AT(max_replicas) <= ttft_target_s)) {
		*ttft_p99_s = t; /* no count meets it (the prefill alone is longer): the caller sees the miss */
		return n;
	}
	/* the wait falls as replicas are added: the fewest that meet the target, by bisection */
	lo = n;
	hi = max_replicas;
	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;
		if (TTFT_AT(mid) <= ttft_target_s)
			hi = mid;
		else
			lo = mid;
	}
	*ttft_p99_s = TTFT_AT(hi);
#undef TTFT_AT
	return hi;
}

void model_queue_at(double rate_per_s, int replicas, int slots, double hold_s, double ttft_service_s,
		    struct model_queue *q)
{
	memset(q, 0, sizeof(*q));
	q->replicas = replicas;
	q->slots = slots;
	q->rate_per_s = rate_per_s;
	if (replicas < 1 || slots < 1 || !(hold_s > 0)) {
		q->utilisation = q->wait_p99_s = q->ttft_p99_s = INFINITY;
		return;
	}
	q->capacity_per_s = (double)replicas * slots / hold_s;
	q->utilisation = rate_per_s / q->capacity_per_s;
	q->wait_p99_s = model_queue_wait_s(slots, hold_s, rate_per_s / replicas, TTFT_QUANTILE);
	q->ttft_p99_s = ttft_service_s + q->wait_p99_s;
}

int model_infer_batch_check(const struct workload *w, const struct model_config *cfg, struct diag *err)
{
	struct model_config c = *cfg;
	struct model_memory m;
	double need, room;
	int lo = 0, hi = cfg->batch;
	if (w->kind != WORKLOAD_TRANSFORMER || !w->d.causal || cfg->task != MODEL_TASK_INFER || cfg->batch < 1)
		return 0;
	if (model_memory(w, cfg, &m))
		return diag_set(err, "", 0, 0, "gpu", "the model cannot evaluate this configuration");
	if (m.fits)
		return 0;
	need = m.kv_cache_bytes;
	room = m.capacity_bytes - (m.total_bytes - m.kv_cache_bytes);
	/* memory grows with the batch (KV cache, prefill activations, logits): the largest that fits, by bisection */
	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;
		c.batch = mid;
		if (!model_memory(w, &c, &m) && m.fits)
			lo = mid;
		else
			hi = mid;
	}
	return batch_too_big(err, cfg->batch, need, room, lo,
			     " beside the weights and the batch's prefill activations");
}
