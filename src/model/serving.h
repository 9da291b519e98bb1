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
	int continuous;          /* 1: continuous batching; 0: one static batch of cfg->batch */
	int batch;               /* continuous: the running sequences asked for (--batch), refused
				      when the KV cache cannot hold them; 0: not given (cfg->batch
				      is completed to 1 then, so it cannot say) */
	int max_seqs;            /* cap on running sequences; 0: the engine's default */
	double mem_fraction;     /* share of memory the engine may use; 0: the engine's */
	int block_tokens;        /* KV-cache block; 0: the engine's */
	double ttft_target_s;    /* 0: none */
	double tpot_target_s;    /* 0: none */
	double latency_target_s; /* a request end to end (request_s); 0: none */
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
	struct model_result at; /* the estimate at the concurrency */
};

/*
 * Fills *out for cfg (task infer, a causal transformer) under opts.  Returns
 * 0, or -1 with err when it cannot be served: the weights leave no room for
 * the KV cache, a batch larger than the cache holds, or a TTFT, TPOT or
 * request-latency target no concurrency meets (err, field "latency-target",
 * says the closest values reached).
 */
int model_serving_estimate(const struct workload *w, const struct model_config *cfg,
			   const struct model_serving_opts *opts, struct model_serving *out, struct diag *err);

/*
 * An explicit batch of a decoder's plain (static, unpaged) inference against
 * the memory model: 0 when it fits (or the workload is no decoder), else -1
 * with err "cannot: batch N needs X GiB of KV cache ..., Y GiB fit; the
 * largest that fits is Z" (Y: what the weights, activations and buffers of
 * that batch leave).  The serving model refuses a batch its cache cannot
 * hold the same way.
 */
int model_infer_batch_check(const struct workload *w, const struct model_config *cfg, struct diag *err);

/*
 * Queueing at an offered rate (docs/model.md "Serving", queueing).  A
 * replica that runs `slots` sequences at once is an M/M/c queue with c =
 * slots servers, each holding a request for `hold_s` (its life in the
 * batch): requests arrive as a Poisson stream of `rate_per_s`, and one that
 * finds every slot taken waits.  Erlang C gives the chance of waiting,
 * C(c, a) with a = rate x hold_s, and the wait beyond it is exponential with
 * rate c/hold_s - rate, so the q-quantile of the wait is
 *     W_q = max(0, ln(C / (1 - q)) / (c/hold_s - rate)).
 * Returns W_q in seconds, 0 when nobody waits that long, INFINITY at or past
 * saturation (utilisation rate x hold_s / c >= 1) or for meaningless input.
 */
double model_queue_wait_s(int slots, double hold_s, double rate_per_s, double q);

/*
 * Replicas of a deployment that serve `rate_per_s` requests/s with a p99
 * time to first token within `ttft_target_s` (0: no target, throughput
 * alone): each replica runs `slots` requests for `hold_s` each, and a
 * request's first token comes `ttft_service_s` after it is admitted.  At
 * least `min_replicas` (what the throughput needs; more where that leaves
 * the queue saturated, which never drains), at most `max_replicas`.
 * Sets *ttft_p99_s to the p99 TTFT with that many replicas (wait +
 * service) and returns the count.  When even max_replicas miss the target
 * (the service alone is longer than it) it returns the fewest that keep the
 * queue stable, with *ttft_p99_s above the target for the caller to see.
 */
int model_serving_replicas(double rate_per_s, int slots, double hold_s, double ttft_service_s,
			   double ttft_target_s, int min_replicas, int max_replicas, double *ttft_p99_s);

/*
 * What `replicas` replicas of `slots` slots each give at an offered rate:
 * the queueing of model_queue_wait_s() for one replica's share of the
 * stream (requests spread evenly), and the utilisation and capacity it
 * rests on.  hold_s is a request's life in the batch, ttft_service_s the
 * time from admission to its first token.  The wait (and so the TTFT) is
 * INFINITY when the rate is at or past the capacity.
 */
struct model_queue {
	int replicas;
	int slots;             /* sequences one replica runs at once */
	double rate_per_s;     /* offered, all replicas */
	double capacity_per_s; /* requests/s all replicas complete when always full: replicas x slots / hold_s */
	double utilisation;    /* share of the slots busy, rate / capacity (0-1; >= 1: saturated) */
	double wait_p99_s;     /* p99 wait for a free slot */
	double ttft_p99_s;     /* p99 time to first token: ttft_service_s + wait_p99_s */
};
void model_queue_at(double rate_per_s, int replicas, int slots, double hold_s, double ttft_service_s,
		    struct model_queue *q);

#endif
