/*
 * Serving simulation: a continuous-batching engine run request by request.
 * A discrete-event loop steps the engine one iteration at a time (each
 * iteration decodes one token for every running sequence that has its
 * prompt, and prefills prompts or chunks of them within the token budget),
 * with each iteration's length taken from the analytical model's prefill
 * and decode costs (model_estimate: GPU time for the tokens in the batch,
 * KV-cache reads, TP collectives, host time per iteration and per
 * sequence).  The engine's scheduler is data: one row per engine release in
 * data/serve/engines.csv.  docs/model.md "Serving simulation" derives it.
 *
 * Deterministic: the same inputs and seed give the same figures.  Pure: no
 * printing, no global state.
 */
#ifndef GPUSCOPE_MODEL_SERVESIM_H
#define GPUSCOPE_MODEL_SERVESIM_H

#include <stddef.h>

#include "model/model.h"

/*
 * An engine release's scheduler (a row of data/serve/engines.csv).  engine
 * is static; version and source are owned (servesim_sched_release()).
 */
struct servesim_sched {
	const char *engine;
	char *version, *source;
	double host_step_s; /* CPU time of one iteration besides kernel launches */
	double host_seq_s;  /* ... and per sequence in it */
	/*
	 * CPU time of the front end per request, s (HTTP, chat template,
	 * tokenising and detokenising): requests pass it one at a time before
	 * the scheduler sees them, so it bounds the requests/s of short ones.
	 */
	double host_req_s;
	/*
	 * latency a request spends in the front end besides that CPU time, s,
	 * paid by each at once (process hops, the first streamed chunk): it adds
	 * to every TTFT and end-to-end latency without bounding the requests/s
	 */
	double frontend_s;
	int max_seqs;           /* running sequences at most */
	int max_batched_tokens; /* tokens one iteration processes at most (prefill + decode) */
	int chunked_prefill;    /* 1: prompts in chunks, decode first; 0: whole prompts, prefill first */
	int swap;               /* preemption: 1 swaps the KV cache to host memory and back; 0 recomputes it */
	double prefix_hit;      /* share of prompt tokens the prefix cache already holds, 0-1 */
	/*
	 * share of the GPU's memory the engine may take (vLLM --gpu-memory-utilization,
	 * SGLang --mem-fraction-static), which sizes the KV cache; 0: the engine's
	 * default.  A run's setting, not a release's: no table row gives it.
	 */
	double mem_fraction;
};

/*
 * The row for `engine` at `version` (NULL: the newest listed).  Returns 0, or
 * -1 with err (field "engine-version") naming the versions there are.
 */
int servesim_sched_find(const char *engine, const char *version, struct servesim_sched *out, struct diag *err);
/*
 * The same from an engine table in buf[0..len) of the format of
 * data/serve/engines.csv (`name` for messages): a table of one's own
 * releases, or trial values while fitting them (`validate --engines`).
 * engine NULL checks the whole table: its header and every row (out is
 * left empty), so that a bad table is refused before any case runs.
 */
int servesim_sched_find_in(const char *name, const char *buf, size_t len, const char *engine, const char *version,
			   struct servesim_sched *out, struct diag *err);
/* Frees version and source; a zeroed row is a no-op. */
void servesim_sched_release(struct servesim_sched *s);

enum servesim_arrival {
	SERVESIM_POISSON, /* requests at `rate` per second, exponential gaps */
	SERVESIM_BURST,   /* `count` requests at t = 0 (a benchmark released at once) */
	SERVESIM_CLOSED,  /* `count` clients, each sending its next request when the last one ends */
	SERVESIM_TRACE,   /* the (arrival, prompt, output) rows of a file */
};

enum servesim_lengths {
	SERVESIM_LEN_FIXED,    /* every prompt and output as configured */
	SERVESIM_LEN_UNIFORM,  /* uniform over [L/2, 3L/2], mean L */
	SERVESIM_LEN_SHAREGPT, /* the empirical ShareGPT shape of data/serve/sharegpt.csv, scaled to mean L */
};

struct servesim_req {
	double arrival_s;
	int prompt, output; /* tokens */
};

/* A trace file read whole; free with servesim_trace_free(). */
struct servesim_trace {
	size_t n;
	struct servesim_req *req;
};

/*
 * Parses CSV rows "arrival_s,prompt_tokens,output_tokens" (a header row of
 * those names, '#' comments, arrivals not decreasing).  `name` is for
 * messages.  Returns 0 with *out (caller frees), or -1 with err naming
 * file, line, column and field.
 */
int servesim_trace_parse(const char *name, const char *buf, size_t len, struct servesim_trace **out,
			 struct diag *err);
void servesim_trace_free(struct servesim_trace *t);

struct servesim_load {
	enum servesim_arrival kind;
	double rate_per_s;                  /* SERVESIM_POISSON */
	int count;                          /* SERVESIM_BURST, SERVESIM_CLOSED: requests or clients */
	int requests;                       /* requests simulated (trace: its rows, when 0) */
	double duration_s;                  /* > 0: arrivals stop after this long (poisson, trace) */
	enum servesim_lengths lengths;      /* not for traces */
	unsigned long long seed;            /* arrivals and lengths */
	const struct servesim_trace *trace; /* SERVESIM_TRACE; borrowed */
};

/*
 * Parses "poisson:RATE", "burst:N" or "closed:N" into *l (kind and rate or
 * count).  Returns 1 when it names none of them (a trace file, the caller
 * reads), 0 on success, -1 with err (field "arrivals").
 */
int servesim_load_parse(const char *spec, struct servesim_load *l, struct diag *err);

/*
 * servesim_load_parse(), and for a spec that names none of the generators
 * the trace file at that path: *trace is then set (caller frees) and
 * l->trace points at it.  Returns 0, or -1 with err (the file's line and
 * column for a bad row).
 */
int servesim_load_open(const char *spec, struct servesim_load *l, struct servesim_trace **trace, struct diag *err);

/* Targets a request meets to count in the goodput; 0: none. */
struct servesim_slo {
	double ttft_s, tpot_s;
	/*
	 * 1: end the run as soon as enough requests have missed ttft_s or tpot_s
	 * that its p99 TTFT or TPOT is sure to miss (a search that only asks
	 * whether the targets are met); the result is then partial and says so
	 */
	int stop_on_miss;
};

#define SERVESIM_TIMELINE 48

struct servesim_dist {
	double p50, p90, p99, mean;
};

struct servesim_result {
	int requests;              /* completed */
	double makespan_s;         /* first arrival to last completion */
	struct servesim_dist ttft; /* time to first token, s */
	struct servesim_dist tpot; /* a request's (end - first token) / (output - 1), s: its mean ITL */
	struct servesim_dist e2e;  /* arrival to last token, s */
	double tokens_per_s;       /* output tokens / makespan, one replica */
	double requests_per_s;
	double goodput;       /* share of requests meeting every target of the SLO (1 with no targets) */
	double goodput_per_s; /* requests/s that meet it */
	double batch_mean;    /* running sequences per iteration, time-weighted */
	int batch_max;        /* the most sequences in one iteration */
	double queue_mean;    /* waiting requests, time-weighted */
	int queue_max;        /* the most waiting at once */
	double kv_use_mean;   /* share of KV-cache blocks held, time-weighted */
	double kv_use_max;    /* the most held at once */
	long iterations;      /* engine iterations run */
	long preemptions;     /* sequences preempted (recomputed, or swapped out) for KV-cache room */
	int stopped;          /* 1: ended early, its p99 TTFT or TPOT sure to miss (servesim_slo.stop_on_miss) */
	int kv_blocks;        /* the cache's blocks, one replica */
	int block_tokens;     /* tokens a block holds */
	int timeline_n;       /* samples below, at even times over the makespan */
	double timeline_s[SERVESIM_TIMELINE];
	double timeline_queue[SERVESIM_TIMELINE];  /* waiting requests */
	double timeline_batch[SERVESIM_TIMELINE];  /* running sequences */
	double timeline_kv_use[SERVESIM_TIMELINE]; /* share of blocks held */
};

struct servesim;

/*
 * A simulator of one replica of cfg (task infer, a decoder, a serving
 * engine's memory: model_serving_estimate sizes its KV cache) under the
 * scheduler `s`; cfg->prompt_len and output_len are the mean lengths.  Costs
 * are tabulated once here, so one simulator runs many loads cheaply.
 * Returns NULL with err when cfg cannot be served.  Free with
 * servesim_free().  w and cfg are copied.
 */
struct servesim *servesim_new(const struct workload *w, const struct model_config *cfg,
			      const struct servesim_sched *s, struct diag *err);
void servesim_free(struct servesim *sim);

/* Running sequences the KV cache holds at the mean lengths (at most the scheduler's max_seqs). */
int servesim_capacity(const struct servesim *sim);

/*
 * One iteration's length, s: `decode` sequences decoding one token each at
 * `context` KV tokens in all, and `prefill` prompt tokens, `seqs` sequences
 * in the batch.  The cost model the loop uses, for tests and docs.
 */
double servesim_iteration_s(const struct servesim *sim, int decode, double context, int prefill, int seqs);

/*
 * Runs `load` through the replica.  Returns 0 with *out, or -1 with err:
 * no requests, a request longer than the whole KV cache, or out of memory.
 */
int servesim_run(struct servesim *sim, const struct servesim_load *load, const struct servesim_slo *slo,
		 struct servesim_result *out, struct diag *err);

/* One point of the latency against load: Poisson arrivals at rate_per_s. */
struct servesim_point {
	double rate_per_s;
	struct servesim_dist ttft, tpot; /* s */
	double tokens_per_s;
	int saturated; /* 1: the queue grew over the whole run (the rate is past what the replica sustains) */
};

#define SERVESIM_CURVE_MAX 16

/*
 * The latency against load of one replica: n Poisson runs (n at most
 * SERVESIM_CURVE_MAX) of `like`'s requests, lengths and seed, at rates from
 * 1/n to 1 x `capacity_per_s` in even steps (0: the requests/s a burst of
 * them sustains, as plan bounds its replicas).  Returns 0 with out[0..n), or
 * -1 with err.
 */
int servesim_curve(struct servesim *sim, const struct servesim_load *like, double capacity_per_s, int n,
		   struct servesim_point *out, struct diag *err);

#endif
