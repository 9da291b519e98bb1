/*
 * Serving: how many sequences a deployment decodes together and what that
 * gives in output tokens/s, time to first token (TTFT) and time per output
 * token (TPOT).  Built on model_estimate(): a continuously batched engine in
 * steady state does the work of a static batch of its concurrency, so one
 * estimate at that batch gives the step times; this module finds the
 * concurrency (KV-cache capacity, the engine's caps, a latency target).
 */
#ifndef GPUSCOPE_MODEL_SERVING_H
#define GPUSCOPE_MODEL_SERVING_H

#include "model/model.h"

struct model_serving_opts {
	int continuous;            /* 1: continuous batching (cfg->batch, when > 0, caps the
				      running sequences); 0: one static batch of cfg->batch */
	int max_seqs;              /* cap on running sequences; 0: the engine's default */
	double mem_fraction;       /* share of memory the engine may use; 0: the engine's */
	int block_tokens;          /* KV-cache block; 0: the engine's */
	double ttft_target_s;      /* 0: none */
	double tpot_target_s;      /* 0: none */
};

struct model_serving {
	int concurrency;           /* sequences decoded together */
	int kv_limit;              /* sequences the KV cache holds */
	const char *bound;         /* what set the concurrency: "kv-cache", "max-seqs", "batch", "target" */
	double weights_bytes;      /* per GPU */
	double workspace_bytes;    /* per GPU: one prefill chunk's activations, graphs, context */
	double kv_budget_bytes;    /* per GPU, for the KV cache */
	double kv_bytes_per_token; /* per GPU */
	double tokens_per_seq;     /* KV tokens one running sequence holds (in blocks) */
	double ttft_s;             /* time to first token */
	double tpot_s;             /* time per output token, prefill interference included */
	double request_s;          /* one request end to end */
	double tokens_per_s;       /* output tokens/s, all data-parallel replicas */
	double requests_per_s;
	struct model_result at;    /* the estimate at the concurrency */
};

/*
 * Fills *out for cfg (task infer, a causal transformer) under opts.  Returns
 * 0, or -1 with err when it cannot be served: the weights leave no room for
 * the KV cache, a static batch larger than the cache holds, or a TTFT/TPOT
 * target no concurrency meets (err says the closest value reached).
 */
int model_serving_estimate(const struct workload *w, const struct model_config *cfg,
			   const struct model_serving_opts *opts, struct model_serving *out, struct diag *err);

#endif
