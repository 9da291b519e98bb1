/*
 * Serving simulation (docs/model.md "Serving simulation").  The loop keeps a
 * waiting queue and a running set; every iteration it
 *   1. admits arrivals that came by now;
 *   2. forms a batch: with chunked prefill, one decode token for each
 *      running sequence that has its prompt, then prompt chunks (running
 *      ones first, then newly admitted) within max_batched_tokens; without,
 *      whole waiting prompts first (a prefill-only iteration) and decode
 *      only when none can be admitted;
 *   3. grows each decoding sequence's KV blocks, preempting the newest
 *      running sequence (recompute) when the cache is full;
 *   4. advances time by the iteration's cost and records first tokens and
 *      completions.
 * The cost of an iteration (servesim_iteration_s) comes from tables of
 * model_estimate at a grid of batches, made once in servesim_new().
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/embedded.h"
#include "model/model_int.h"
#include "model/serving.h"
#include "model/servesim.h"
#include "util/csv.h"
#include "util/num.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* batches the decode cost is tabulated at: 1, 2, 3, 4, 6, 8, 12, ... (x1.5), interpolated between */
#define GRID_MAX 64

struct servesim {
	struct servesim_sched sched;
	int prompt, output;    /* mean lengths, tokens */
	int block_tokens;      /* KV-cache block */
	int kv_blocks;         /* the cache, blocks */
	int capacity;          /* running sequences at the mean lengths */
	double ctx0;           /* context the decode table was made at: P + O/2 */
	double kv_token_s;     /* decode time per KV token read beyond ctx0 per sequence */
	double prefill_tok_s;  /* GPU time per prompt token in a batch */
	double prefill_base_s; /* GPU time of a prefill-only iteration besides its tokens (weights, launches) */
	double host_kernels_s; /* host time launching one iteration's kernels */
	double swap_token_s;   /* copying one token's KV cache between a GPU and host memory, s */
	int grid_n;
	int grid_b[GRID_MAX];
	double grid_dec_s[GRID_MAX]; /* decode GPU time of a batch of grid_b sequences at ctx0 */
};

/* ---- engine rows ---- */

/*
 * The columns of an engine table, found by the header's names: tables
 * written before frontend_s have none (the front end's latency is then 0).
 */
enum {
	COL_ENGINE,
	COL_VERSION,
	COL_HOST_STEP,
	COL_HOST_SEQ,
	COL_HOST_REQ,
	COL_FRONTEND,
	COL_MAX_SEQS,
	COL_MAX_TOKENS,
	COL_CHUNKED,
	COL_PREEMPTION,
	COL_PREFIX_HIT,
	COL_SOURCE,
	NCOLS
};
static const char *const col_names[NCOLS] = {"engine",          "version",    "host_step_s", "host_seq_s",
					     "host_req_s",      "frontend_s", "max_seqs",    "max_batched_tokens",
					     "chunked_prefill", "preemption", "prefix_hit",  "source"};

static int sched_header(const struct csv_record *rec, const char *name, int *col, struct diag *err)
{
	/* frontend_s came later: a table without it reads as 0 */
	return csv_header_columns(rec, name, col_names, NCOLS, 1UL << COL_FRONTEND, col, err);
}

static int sched_row(const struct csv_record *rec, const char *name, const int *col, size_t ncol,
		     struct servesim_sched *s, struct diag *err)
{
	static const struct num_range r_s = {0, 1, 0}, r_n = {1, 1e7, NUM_WHOLE}, r_b = {0, 1, NUM_WHOLE},
				      r_h = {0, 0.99, 0};
	static const int num_col[8] = {COL_HOST_STEP, COL_HOST_SEQ,   COL_HOST_REQ, COL_FRONTEND,
				       COL_MAX_SEQS,  COL_MAX_TOKENS, COL_CHUNKED,  COL_PREFIX_HIT};
	const struct num_range *rg[8] = {&r_s, &r_s, &r_s, &r_s, &r_n, &r_n, &r_b, &r_h};
	double v[8] = {0};
	const char *pre;
	char why[160];
	int k;
	if (rec->nfields != ncol)
		return diag_set(err, name, rec->line, 1, "", "expected %zu fields as in the header, got %zu", ncol,
				rec->nfields);
	for (k = 0; k < 8; k++) {
		int c = col[num_col[k]];
		if (c >= 0 && num_parse(rec->fields[c], NULL, rg[k], &v[k], why, sizeof(why)))
			return diag_set(err, name, rec->line, rec->cols[c], col_names[num_col[k]], "%s", why);
	}
	pre = rec->fields[col[COL_PREEMPTION]];
	if (strcmp(pre, "recompute") && strcmp(pre, "swap"))
		return diag_set(err, name, rec->line, rec->cols[col[COL_PREEMPTION]], "preemption",
				"not recompute or swap");
	s->swap = !strcmp(pre, "swap");
	s->host_step_s = v[0];
	s->host_seq_s = v[1];
	s->host_req_s = v[2];
	s->frontend_s = v[3];
	s->max_seqs = (int)v[4];
	s->max_batched_tokens = (int)v[5];
	s->chunked_prefill = (int)v[6];
	s->prefix_hit = v[7];
	return 0;
}

void servesim_sched_release(struct servesim_sched *s)
{
	free(s->version);
	free(s->source);
	s->version = s->source = NULL;
}

int servesim_sched_find(const char *engine, const char *version, struct servesim_sched *out, struct diag *err)
{
	static const char name[] = "serve/engines.csv";
	const struct embedded_file *f = embedded_find(name);
	if (!f) {
		memset(out, 0, sizeof(*out));
		return diag_set(err, name, 0, 0, "", "not embedded");
	}
	return servesim_sched_find_in(name, f->data, f->len, engine, version, out, err);
}

int servesim_sched_find_in(const char *name, const char *buf, size_t len, const char *engine, const char *version,
			   struct servesim_sched *out, struct diag *err)
{
	struct csv_reader *r;
	struct csv_record rec;
	int rc, found = 0, header = 1, col[NCOLS] = {0};
	size_t ncol = 0;
	struct strbuf versions = STRBUF_INIT;
	memset(out, 0, sizeof(*out));
	r = csv_open(name, buf, len, CSV_COMMENTS);
	while ((rc = csv_next(r, &rec, err)) == 1) {
		if (header) {
			header = 0;
			ncol = rec.nfields;
			if (sched_header(&rec, name, col, err)) {
				rc = -1;
				break;
			}
			continue;
		}
		if (!engine) {
			/* checking the whole table: every row must read */
			struct servesim_sched tmp = {0};
			if (sched_row(&rec, name, col, ncol, &tmp, err)) {
				rc = -1;
				break;
			}
			found = 1;
			continue;
		}
		if (rec.nfields <= (size_t)col[COL_VERSION] || strcmp(rec.fields[col[COL_ENGINE]], engine))
			continue;
		strbuf_addf(&versions, "%s%s", versions.len ? ", " : "", rec.fields[col[COL_VERSION]]);
		if (found || (version && strcmp(rec.fields[col[COL_VERSION]], version)))
			continue;
		if (sched_row(&rec, name, col, ncol, out, err)) {
			rc = -1;
			break;
		}
		out->engine = model_engine_name(
			(enum model_engine)model_engine_from_name(rec.fields[col[COL_ENGINE]]));
		out->version = xstrdup(rec.fields[col[COL_VERSION]]);
		out->source = xstrdup(rec.fields[col[COL_SOURCE]]);
		found = 1;
	}
	csv_free(r);
	if (rc >= 0 && !found && !engine)
		rc = diag_set(err, name, 0, 0, "", "the engine table has no rows");
	else if (rc >= 0 && !found)
		rc = !versions.len ?
			     diag_set(err, "", 0, 0, "engine", "no scheduler row for --engine %s", engine) :
			     diag_set(err, "", 0, 0, "engine-version",
				      "--engine %s has no release %s; there are %s", engine,
				      version ? version : "?", strbuf_str(&versions));
	strbuf_release(&versions);
	return rc < 0 ? -1 : 0;
}

/* ---- arrivals ---- */

int servesim_load_parse(const char *spec, struct servesim_load *l, struct diag *err)
{
	static const struct num_range r_rate = {0, 1e7, NUM_ABOVE_MIN}, r_n = {1, 1e7, NUM_WHOLE};
	const char *colon = strchr(spec, ':');
	char why[160];
	double v;
	size_t k = colon ? (size_t)(colon - spec) : 0;
	if (!colon)
		return 1;
	if (k == 7 && !strncmp(spec, "poisson", 7)) {
		if (num_parse(colon + 1, "1/s", &r_rate, &v, why, sizeof(why)) &&
		    num_parse(colon + 1, NULL, &r_rate, &v, why, sizeof(why)))
			return diag_set(err, "", 0, 0, "arrivals", "poisson:RATE: %s", why);
		l->kind = SERVESIM_POISSON;
		l->rate_per_s = v;
		return 0;
	}
	if ((k == 5 && !strncmp(spec, "burst", 5)) || (k == 6 && !strncmp(spec, "closed", 6))) {
		if (num_parse(colon + 1, NULL, &r_n, &v, why, sizeof(why)))
			return diag_set(err, "", 0, 0, "arrivals", "%.*s:N: %s", (int)k, spec, why);
		l->kind = k == 5 ? SERVESIM_BURST : SERVESIM_CLOSED;
		l->count = (int)v;
		return 0;
	}
	return 1;
}

void servesim_trace_free(struct servesim_trace *t)
{
	if (!t)
		return;
	free(t->req);
	free(t);
}

int servesim_trace_parse(const char *name, const char *buf, size_t len, struct servesim_trace **out,
			 struct diag *err)
{
	static const char *const cols[3] = {"arrival_s", "prompt_tokens", "output_tokens"};
	static const struct num_range r_t = {0, 1e9, 0}, r_n = {1, 1e7, NUM_WHOLE};
	struct csv_reader *r = csv_open(name, buf, len, CSV_COMMENTS);
	struct servesim_trace *t = xcalloc(1, sizeof(*t));
	struct csv_record rec;
	size_t cap = 0, i;
	int rc, header = 1;
	char why[160];
	*out = NULL;
	while ((rc = csv_next(r, &rec, err)) == 1) {
		double v[3];
		if (header) {
			header = 0;
			for (i = 0; i < 3; i++)
				if (rec.nfields != 3 || strcmp(rec.fields[i < rec.nfields ? i : 0], cols[i])) {
					rc = diag_set(err, name, rec.line, i < rec.nfields ? rec.cols[i] : 1, "",
						      "the header must be arrival_s,prompt_tokens,output_tokens");
					goto done;
				}
			continue;
		}
		if (rec.nfields != 3) {
			rc = diag_set(err, name, rec.line, 1, "", "expected 3 fields, got %zu", rec.nfields);
			goto done;
		}
		for (i = 0; i < 3; i++)
			if (num_parse(rec.fields[i], NULL, i ? &r_n : &r_t, &v[i], why, sizeof(why))) {
				rc = diag_set(err, name, rec.line, rec.cols[i], cols[i], "%s", why);
				goto done;
			}
		if (t->n && v[0] < t->req[t->n - 1].arrival_s) {
			rc = diag_set(err, name, rec.line, rec.cols[0], cols[0],
				      "arrivals must not decrease (%g after %g)", v[0],
				      t->req[t->n - 1].arrival_s);
			goto done;
		}
		if (t->n == cap) {
			cap = cap ? 2 * cap : 64;
			t->req = xrealloc(t->req, cap * sizeof(*t->req));
		}
		t->req[t->n].arrival_s = v[0];
		t->req[t->n].prompt = (int)v[1];
		t->req[t->n].output = (int)v[2];
		t->n++;
	}
	if (rc == 0 && t->n == 0)
		rc = diag_set(err, name, 0, 0, "", "no requests");
done:
	csv_free(r);
	if (rc < 0) {
		servesim_trace_free(t);
		return -1;
	}
	*out = t;
	return 0;
}

int servesim_load_open(const char *spec, struct servesim_load *l, struct servesim_trace **trace, struct diag *err)
{
	char *buf;
	size_t len;
	int rc = servesim_load_parse(spec, l, err);
	*trace = NULL;
	if (rc <= 0)
		return rc;
	if (csv_read_file(spec, &buf, &len, err))
		return diag_set(err, spec, 0, 0, "arrivals",
				"not poisson:RATE, burst:N or closed:N, and no trace file can be read there");
	rc = servesim_trace_parse(spec, buf, len, trace, err);
	free(buf);
	if (rc)
		return -1;
	l->kind = SERVESIM_TRACE;
	l->trace = *trace;
	return 0;
}

/* ---- cost ---- */

static double interp_dec(const struct servesim *sim, int b)
{
	int i;
	if (b <= sim->grid_b[0])
		return sim->grid_dec_s[0] * b / sim->grid_b[0];
	for (i = 1; i < sim->grid_n; i++)
		if (b <= sim->grid_b[i]) {
			double f = (double)(b - sim->grid_b[i - 1]) / (sim->grid_b[i] - sim->grid_b[i - 1]);
			return sim->grid_dec_s[i - 1] + f * (sim->grid_dec_s[i] - sim->grid_dec_s[i - 1]);
		}
	/* past the table: the last segment's slope */
	i = sim->grid_n - 1;
	if (i == 0)
		return sim->grid_dec_s[0];
	return sim->grid_dec_s[i] + (double)(b - sim->grid_b[i]) * (sim->grid_dec_s[i] - sim->grid_dec_s[i - 1]) /
					    (sim->grid_b[i] - sim->grid_b[i - 1]);
}

double servesim_iteration_s(const struct servesim *sim, int decode, double context, int prefill, int seqs)
{
	double gpu = 0, host = sim->host_kernels_s + sim->sched.host_step_s + seqs * sim->sched.host_seq_s;
	if (decode > 0) {
		double kv = sim->kv_token_s * (context - decode * sim->ctx0);
		gpu = interp_dec(sim, decode) + kv;
		if (gpu < 0)
			gpu = 0;
	}
	if (prefill > 0)
		gpu += prefill * sim->prefill_tok_s + (decode > 0 ? 0 : sim->prefill_base_s);
	return gpu > host ? gpu : host;
}

static int estimate_at(const struct workload *w, const struct model_config *cfg, int batch, struct model_result *r)
{
	struct model_config c = *cfg;
	c.batch = batch;
	return model_estimate(w, &c, r);
}

struct servesim *servesim_new(const struct workload *w, const struct model_config *cfg,
			      const struct servesim_sched *s, struct diag *err)
{
	const struct model_engine_info *eng = model_engine_info(cfg->engine);
	struct model_serving_opts so;
	struct model_serving sv;
	struct model_result r1, r2, rb;
	struct servesim *sim;
	double P = cfg->prompt_len, O = cfg->output_len, b = 1;
	int b2, top;

	memset(&so, 0, sizeof(so));
	so.continuous = 1;
	so.max_seqs = s->max_seqs;
	so.mem_fraction = s->mem_fraction;
	if (!eng->serving) {
		diag_set(err, "", 0, 0, "engine",
			 "the serving simulation needs a serving engine (vllm, sglang, ...)");
		return NULL;
	}
	if (model_serving_estimate(w, cfg, &so, &sv, err))
		return NULL;
	if (estimate_at(w, cfg, 1, &r1)) {
		diag_set(err, "", 0, 0, "gpu", "the model cannot evaluate this configuration");
		return NULL;
	}
	sim = xcalloc(1, sizeof(*sim));
	sim->sched = *s;
	sim->sched.version = sim->sched.source = NULL; /* the caller's */
	sim->prompt = cfg->prompt_len;
	sim->output = cfg->output_len > 0 ? cfg->output_len : 1;
	sim->block_tokens = eng->kv_block_tokens > 0 ? eng->kv_block_tokens : 1;
	sim->kv_blocks = (int)fmin(1e8, floor(sv.kv_budget_bytes / sv.kv_bytes_per_token / sim->block_tokens));
	sim->capacity = sv.kv_limit < s->max_seqs ? sv.kv_limit : s->max_seqs;
	sim->ctx0 = P + O / 2.0;
	/*
	 * Host: what launching a pass costs besides the engine's per-step and
	 * per-sequence work (the release row replaces those).
	 */
	sim->host_kernels_s = r1.infer.launch_s - eng->host_per_step_s - eng->host_per_seq_s;
	if (sim->host_kernels_s < 0)
		sim->host_kernels_s = 0;
	/* decode: GPU time at a grid of batches up to the capacity, at the mean context */
	top = sim->capacity > 1 ? sim->capacity : 1;
	while (sim->grid_n < GRID_MAX) {
		int bi = (int)b;
		if (bi > top)
			bi = top;
		if (sim->grid_n && bi <= sim->grid_b[sim->grid_n - 1])
			break;
		if (estimate_at(w, cfg, bi, &rb))
			break;
		sim->grid_b[sim->grid_n] = bi;
		sim->grid_dec_s[sim->grid_n++] = rb.infer.decode_gpu_s;
		b = fmax(b + 1, ceil(b * 1.5));
	}
	/* swap preemption: one token's KV bytes per GPU over its host link (every GPU copies its share at once) */
	sim->swap_token_s = sv.kv_bytes_per_token / (model_h2d_gbps(cfg->gpu) * 1e9);
	if (!(sim->swap_token_s >= 0) || !isfinite(sim->swap_token_s))
		sim->swap_token_s = 0;
	/* KV reads past (or short of) the mean context: one token's bytes per GPU at the paged-read rate */
	{
		struct hw h;
		if (!hw_of(cfg, &h) && h.paged_kv > 0)
			sim->kv_token_s = r1.infer.decode_kv_bytes / sim->ctx0 * h.inv_bw / h.paged_kv;
	}
	/* prefill: the marginal cost of a prompt token, from one prompt and a full budget of them */
	b2 = (int)fmax(2, ceil(s->max_batched_tokens / fmax(P, 1)));
	if (estimate_at(w, cfg, b2, &r2)) {
		servesim_free(sim);
		diag_set(err, "", 0, 0, "gpu", "the model cannot evaluate this configuration");
		return NULL;
	}
	sim->prefill_tok_s = (r2.infer.prefill_gpu_s - r1.infer.prefill_gpu_s) / ((b2 - 1) * fmax(P, 1));
	if (sim->prefill_tok_s > r1.infer.prefill_gpu_s / fmax(P, 1))
		sim->prefill_tok_s = r1.infer.prefill_gpu_s / fmax(P, 1);
	if (sim->prefill_tok_s < 0)
		sim->prefill_tok_s = 0;
	sim->prefill_base_s = r1.infer.prefill_gpu_s - P * sim->prefill_tok_s;
	return sim;
}

void servesim_free(struct servesim *sim)
{
	free(sim);
}

int servesim_capacity(const struct servesim *sim)
{
	return sim->capacity;
}

/* ---- the loop ---- */

/* splitmix64: small, fast, and the same everywhere */
static unsigned long long next_u64(unsigned long long *s)
{
	unsigned long long z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double next_unit(unsigned long long *s)
{
	return ((next_u64(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/*
 * The ShareGPT shape: quantiles of prompt and output length relative to
 * their means (data/serve/sharegpt.csv), sampled by inverse transform with
 * linear interpolation between them.
 */
struct shape {
	int n;
	double q[32], prompt[32], output[32];
};

static int shape_load(struct shape *sh, struct diag *err)
{
	static const char name[] = "serve/sharegpt.csv";
	const struct embedded_file *f = embedded_find(name);
	struct csv_reader *r;
	struct csv_record rec;
	int rc, header = 1;
	char why[160];
	sh->n = 0;
	if (!f)
		return diag_set(err, name, 0, 0, "", "not embedded");
	r = csv_open(name, f->data, f->len, CSV_COMMENTS);
	while ((rc = csv_next(r, &rec, err)) == 1 && sh->n < 32) {
		static const struct num_range any = {0, 1e3, 0};
		double v[3];
		size_t i;
		if (header) {
			header = 0;
			continue;
		}
		for (i = 0; i < 3 && rec.nfields >= 3; i++)
			if (num_parse(rec.fields[i], NULL, &any, &v[i], why, sizeof(why))) {
				rc = diag_set(err, name, rec.line, rec.cols[i], "", "%s", why);
				break;
			}
		if (rc < 0 || rec.nfields < 3)
			break;
		sh->q[sh->n] = v[0];
		sh->prompt[sh->n] = v[1];
		sh->output[sh->n] = v[2];
		sh->n++;
	}
	csv_free(r);
	return rc < 0 || sh->n < 2 ? diag_set(err, name, 0, 0, "", "cannot read the length shape") : 0;
}

static double shape_at(const struct shape *sh, const double *col, double u)
{
	int i;
	if (sh->n < 2) /* shape_load refuses such a shape */
		return col[0];
	for (i = 1; i < sh->n; i++)
		if (u <= sh->q[i] || i == sh->n - 1) {
			double f = (u - sh->q[i - 1]) / (sh->q[i] - sh->q[i - 1]);
			return col[i - 1] + (f < 0 ? 0 : f > 1 ? 1 : f) * (col[i] - col[i - 1]);
		}
	return col[sh->n - 1];
}

static int draw_len(enum servesim_lengths k, const struct shape *sh, const double *col, int mean,
		    unsigned long long *seed)
{
	double u = next_unit(seed), v = mean;
	if (k == SERVESIM_LEN_UNIFORM)
		v = mean * (0.5 + u);
	else if (k == SERVESIM_LEN_SHAREGPT)
		v = mean * shape_at(sh, col, u);
	return v < 1 ? 1 : (int)fmin(1e7, floor(v + 0.5));
}

struct seq {
	double arrival_s, first_s;
	double ready_s; /* when the front end hands it to the scheduler: arrival plus its queue and host_req_s */
	int prompt, output;
	int todo;      /* prompt tokens still to prefill (a recompute prefills what it had generated too) */
	int generated; /* output tokens so far */
	int blocks;    /* KV blocks held */
	int swapped;   /* tokens whose KV cache is in host memory (swap preemption), to copy back on admission */
};

/* ring of request indices: preempted ones go back to the front */
struct ring {
	int *v;
	int cap, head, n;
};

static void ring_push_back(struct ring *r, int x)
{
	r->v[(r->head + r->n++) % r->cap] = x;
}
static void ring_push_front(struct ring *r, int x)
{
	r->head = (r->head + r->cap - 1) % r->cap;
	r->v[r->head] = x;
	r->n++;
}
static int ring_front(const struct ring *r)
{
	return r->v[r->head];
}
static void ring_pop(struct ring *r)
{
	r->head = (r->head + 1) % r->cap;
	r->n--;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * Sorts v[0..n) ascending as qsort(cmp_double) does.  Latencies are never
 * negative, and a non-negative double's bits order as an unsigned integer, so
 * an LSD radix sort (eight passes of a byte, a pass whose byte all share
 * skipped) does it in O(n): plan sorts three arrays per simulated run, and
 * qsort's comparisons were a quarter of plan's time.  Anything negative or
 * NaN takes qsort.
 */
static void sort_latencies(double *v, int n)
{
	uint64_t *a, *b, *t;
	size_t cnt[256], i, pass;
	for (i = 0; i < (size_t)n; i++)
		if (!(v[i] >= 0)) {
			qsort(v, (size_t)n, sizeof(*v), cmp_double);
			return;
		}
	a = xcalloc((size_t)n, sizeof(*a));
	b = xcalloc((size_t)n, sizeof(*b));
	for (i = 0; i < (size_t)n; i++)
		memcpy(&a[i], &v[i], sizeof(*a)), a[i] &= ~(UINT64_C(1) << 63); /* -0 as 0 */
	for (pass = 0; pass < 8; pass++) {
		unsigned sh = (unsigned)(8 * pass);
		size_t sum = 0, c;
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < (size_t)n; i++)
			cnt[(a[i] >> sh) & 0xff]++;
		if (cnt[(a[0] >> sh) & 0xff] == (size_t)n)
			continue;
		for (i = 0; i < 256; i++)
			c = cnt[i], cnt[i] = sum, sum += c;
		for (i = 0; i < (size_t)n; i++)
			b[cnt[(a[i] >> sh) & 0xff]++] = a[i];
		t = a, a = b, b = t;
	}
	for (i = 0; i < (size_t)n; i++)
		memcpy(&v[i], &a[i], sizeof(*v));
	free(a);
	free(b);
}

static void dist_of(double *v, int n, struct servesim_dist *d)
{
	double sum = 0;
	int i;
	memset(d, 0, sizeof(*d));
	if (n < 1)
		return;
	sort_latencies(v, n);
	for (i = 0; i < n; i++)
		sum += v[i];
	d->mean = sum / n;
	/* nearest rank */
	d->p50 = v[(int)ceil(0.50 * n) - 1];
	d->p90 = v[(int)ceil(0.90 * n) - 1];
	d->p99 = v[(int)ceil(0.99 * n) - 1];
}

static int blocks_for(const struct servesim *sim, int tokens)
{
	return (tokens + sim->block_tokens - 1) / sim->block_tokens;
}

/* the requests: arrivals and lengths, drawn up front (closed-loop arrivals are set as clients finish) */
static int make_requests(const struct servesim *sim, const struct servesim_load *l, struct seq **out, int *n,
			 struct diag *err)
{
	unsigned long long seed = l->seed ? l->seed : 1;
	struct shape sh = {0};
	struct seq *q;
	double t = 0;
	int i, want = l->requests;
	if (l->kind == SERVESIM_TRACE) {
		if (!l->trace || !l->trace->n) {
			diag_set(err, "", 0, 0, "arrivals", "the trace holds no requests");
			return -1;
		}
		if (want <= 0 || (size_t)want > l->trace->n)
			want = (int)fmin(1e8, (double)l->trace->n);
	} else if (l->kind == SERVESIM_BURST && want <= 0) {
		want = l->count;
	}
	if (want <= 0) {
		diag_set(err, "", 0, 0, "requests", "no requests to simulate");
		return -1;
	}
	if (l->lengths == SERVESIM_LEN_SHAREGPT && l->kind != SERVESIM_TRACE && shape_load(&sh, err))
		return -1;
	q = xcalloc((size_t)want, sizeof(*q));
	for (i = 0; i < want; i++) {
		struct seq *s = &q[i];
		if (l->kind == SERVESIM_TRACE) {
			s->arrival_s = l->trace->req[i].arrival_s;
			s->prompt = l->trace->req[i].prompt;
			s->output = l->trace->req[i].output;
		} else {
			if (l->kind == SERVESIM_POISSON)
				t += -log(next_unit(&seed)) / l->rate_per_s;
			s->arrival_s = l->kind == SERVESIM_POISSON ? t : l->kind == SERVESIM_CLOSED ? INFINITY : 0;
			s->prompt = draw_len(l->lengths, &sh, sh.prompt, sim->prompt, &seed);
			s->output = draw_len(l->lengths, &sh, sh.output, sim->output, &seed);
		}
		if (l->duration_s > 0 && s->arrival_s > l->duration_s && i > 0)
			break;
		if (blocks_for(sim, s->prompt + s->output) > sim->kv_blocks) {
			diag_set(
				err, "", 0, 0, "prompt-len",
				"cannot: a request of %d + %d tokens needs more than the whole KV cache (%d tokens)",
				s->prompt, s->output, sim->kv_blocks * sim->block_tokens);
			free(q);
			return -1;
		}
		s->first_s = -1;
		s->todo = s->prompt - (int)floor(s->prompt * sim->sched.prefix_hit);
		if (s->todo < 1)
			s->todo = 1;
	}
	*n = i;
	if (l->kind == SERVESIM_CLOSED)
		for (i = 0; i < *n && i < l->count; i++)
			q[i].arrival_s = 0;
	/*
	 * the front end takes requests one at a time in arrival order; each then
	 * spends frontend_s more on its way (not queued: process hops, streaming)
	 */
	for (i = 0, t = 0; i < *n; i++) {
		q[i].ready_s = isfinite(q[i].arrival_s) ? fmax(q[i].arrival_s, t) + sim->sched.host_req_s :
							  INFINITY;
		if (isfinite(q[i].ready_s)) {
			t = q[i].ready_s;
			q[i].ready_s += sim->sched.frontend_s;
		}
	}
	*out = q;
	return 0;
}

struct loop {
	struct servesim *sim;
	struct seq *q;
	int n;
	struct ring wait;
	int *run, nrun;
	int free_blocks;
	double t;
	double front_s; /* when the front end is next free */
	double swap_s;  /* KV copies to or from host memory the coming iteration waits for */
	/* time-weighted sums over the run, and the timeline: a sample every sample_dt from t0 */
	double w_batch, w_queue, w_kv, t0, sample_dt;
	int tl;
	long tokens;
};

/* One iteration of dt with inbatch sequences: the time-weighted state, the maxima and the timeline. */
static void record(struct loop *L, struct servesim_result *o, double dt, int inbatch)
{
	const struct servesim *sim = L->sim;
	double kv = (double)(sim->kv_blocks - L->free_blocks) / sim->kv_blocks;
	int i;
	o->iterations++;
	L->w_batch += dt * inbatch;
	L->w_queue += dt * L->wait.n;
	L->w_kv += dt * kv;
	if (inbatch > o->batch_max)
		o->batch_max = inbatch;
	if (L->wait.n > o->queue_max)
		o->queue_max = L->wait.n;
	if (kv > o->kv_use_max)
		o->kv_use_max = kv;
	if (L->sample_dt == 0)
		L->sample_dt = dt > 0 ? dt : 1e-6;
	while (L->tl < SERVESIM_TIMELINE && L->t >= L->t0 + L->tl * L->sample_dt) {
		o->timeline_s[L->tl] = L->t - L->t0;
		o->timeline_queue[L->tl] = L->wait.n;
		o->timeline_batch[L->tl] = inbatch;
		o->timeline_kv_use[L->tl] = kv;
		L->tl++;
	}
	if (L->tl == SERVESIM_TIMELINE) {
		/* keep every other sample and halve the rate */
		for (i = 0; i < SERVESIM_TIMELINE / 2; i++) {
			o->timeline_s[i] = o->timeline_s[2 * i];
			o->timeline_queue[i] = o->timeline_queue[2 * i];
			o->timeline_batch[i] = o->timeline_batch[2 * i];
			o->timeline_kv_use[i] = o->timeline_kv_use[2 * i];
		}
		L->tl = SERVESIM_TIMELINE / 2;
		L->sample_dt *= 2;
	}
}

/*
 * Runs of plain decode steps in one go.  With nothing waiting and every
 * running sequence past its prompt, the iterations until the next event (a
 * completion, an arrival reaching the scheduler, or the cache running out of
 * free blocks) decode the same sequences one token each: their lengths are
 * known without visiting the sequences, so only the clock advances, step by
 * step with the same cost function, and the sequences are brought up to
 * date once at the end.  Stops one step before the first completion, which
 * the full loop then runs.  Returns the steps taken (0: not such a run).
 */
static int fast_forward(struct loop *L, struct servesim_result *o, int next)
{
	const struct servesim *sim = L->sim;
	double ctx = 0;
	long need = 0;
	int k, j, left = INT32_MAX, bt = sim->block_tokens;
	if (L->wait.n || L->nrun < 1 || (sim->sched.chunked_prefill && L->nrun > sim->sched.max_batched_tokens))
		return 0;
	for (k = 0; k < L->nrun; k++) {
		const struct seq *s = &L->q[L->run[k]];
		if (s->todo > 0)
			return 0;
		if (s->output - s->generated < left)
			left = s->output - s->generated;
		ctx += s->prompt + s->generated;
	}
	/*
	 * Steps that leave the first completion to the full loop, and that the
	 * free blocks cover: j steps take each sequence at most ceil(j / bt) new
	 * blocks, so j <= (free / running) x bt never runs out.
	 */
	left -= 1;
	if (left > L->free_blocks / L->nrun * bt)
		left = L->free_blocks / L->nrun * bt;
	if (left < 2)
		return 0;
	for (j = 0; j < left && !(next < L->n && L->q[next].ready_s <= L->t); j++) {
		double dt = servesim_iteration_s(sim, L->nrun, ctx, 0, L->nrun);
		record(L, o, dt, L->nrun);
		L->t += dt;
		ctx += L->nrun;
	}
	for (k = 0; k < L->nrun; k++) {
		struct seq *s = &L->q[L->run[k]];
		int b;
		s->generated += j;
		b = blocks_for(sim, s->prompt + s->generated);
		if (b > s->blocks) {
			need += b - s->blocks;
			s->blocks = b;
		}
	}
	L->free_blocks -= (int)need;
	L->tokens += (long)j * L->nrun;
	return j;
}

/* Frees a running sequence's blocks and removes it from the running set (index k). */
static void drop_running(struct loop *L, int k)
{
	L->free_blocks += L->q[L->run[k]].blocks;
	L->q[L->run[k]].blocks = 0;
	memmove(&L->run[k], &L->run[k + 1], (size_t)(L->nrun - k - 1) * sizeof(*L->run));
	L->nrun--;
}

/* Admits the waiting request at the front when its prompt's blocks fit; 1 when it did. */
static int admit(struct loop *L)
{
	struct seq *s;
	int need;
	if (!L->wait.n || L->nrun >= L->sim->sched.max_seqs)
		return 0;
	s = &L->q[ring_front(&L->wait)];
	need = blocks_for(L->sim, s->prompt + s->generated + 1);
	if (need > L->free_blocks)
		return 0;
	s->blocks = need;
	L->free_blocks -= need;
	L->swap_s += s->swapped * L->sim->swap_token_s;
	s->swapped = 0;
	L->run[L->nrun++] = ring_front(&L->wait);
	ring_pop(&L->wait);
	return 1;
}

/*
 * Room for one more token of sequence k: a new block when it crosses one,
 * preempting the newest running sequences (recompute) until one is free.
 * Returns 0, or 1 when k itself was the one preempted.
 */
static int grow(struct loop *L, int k, long *preempted)
{
	struct seq *s = &L->q[L->run[k]];
	int need;
	/* the common case: the token fits the blocks held (no division) */
	if (s->prompt + s->generated + 1 <= s->blocks * L->sim->block_tokens)
		return 0;
	need = blocks_for(L->sim, s->prompt + s->generated + 1);
	while (need > s->blocks && L->free_blocks < need - s->blocks) {
		int victim = L->nrun - 1, id = L->run[victim];
		struct seq *v = &L->q[id];
		drop_running(L, victim);
		if (L->sim->sched.swap) {
			/* its cache goes to host memory and comes back whole: nothing to prefill again */
			v->swapped = v->prompt + v->generated;
			L->swap_s += v->swapped * L->sim->swap_token_s;
		} else {
			v->todo = v->prompt + v->generated;
		}
		ring_push_front(&L->wait, id);
		(*preempted)++;
		if (victim == k)
			return 1;
	}
	L->free_blocks -= need - s->blocks;
	s->blocks = need;
	return 0;
}

int servesim_run(struct servesim *sim, const struct servesim_load *load, const struct servesim_slo *slo,
		 struct servesim_result *o, struct diag *err)
{
	struct loop L;
	double *ttft, *tpot, *e2e;
	int done = 0, next = 0, good = 0, i, *chunk;
	int late_ttft = 0, late_tpot = 0, sure_miss; /* requests past a target; that many miss the p99 */

	memset(o, 0, sizeof(*o));
	memset(&L, 0, sizeof(L));
	L.sim = sim;
	if (make_requests(sim, load, &L.q, &L.n, err))
		return -1;
	L.wait.cap = L.n + 1;
	L.wait.v = xcalloc((size_t)L.wait.cap, sizeof(int));
	L.run = xcalloc((size_t)L.n + 1, sizeof(int));
	chunk = xcalloc((size_t)L.n + 1, sizeof(int));
	ttft = xcalloc((size_t)L.n, sizeof(double));
	tpot = xcalloc((size_t)L.n, sizeof(double));
	e2e = xcalloc((size_t)L.n, sizeof(double));
	L.free_blocks = sim->kv_blocks;
	for (i = 0; i < L.n; i++)
		if (isfinite(L.q[i].ready_s))
			L.front_s = L.q[i].ready_s - sim->sched.frontend_s;
	o->kv_blocks = sim->kv_blocks;
	o->block_tokens = sim->block_tokens;
	L.t0 = L.q[0].arrival_s;
	/* the p99 (nearest rank, dist_of()) is past a target once this many of the L.n are */
	sure_miss = L.n - ((int)ceil(0.99 * L.n) - 1);

	while (done < L.n && !o->stopped) {
		int decode = 0, prefill = 0, budget = sim->sched.max_batched_tokens, k, inbatch = 0;
		double ctx = 0, dt;
		while (next < L.n && L.q[next].ready_s <= L.t)
			ring_push_back(&L.wait, next++);
		if (!L.nrun && !L.wait.n) {
			L.t = L.q[next].ready_s; /* idle until the next arrival */
			continue;
		}
		if (fast_forward(&L, o, next))
			continue;
		if (!sim->sched.chunked_prefill) {
			/* prefill first: whole prompts while they fit the budget (the first always) */
			int admitted = 0;
			while (L.wait.n && (!admitted || L.q[ring_front(&L.wait)].todo <= budget) && admit(&L)) {
				int id = L.run[L.nrun - 1];
				chunk[L.nrun - 1] = L.q[id].todo;
				budget -= L.q[id].todo;
				prefill += L.q[id].todo;
				admitted++;
			}
			for (k = 0; k < L.nrun - admitted; k++)
				chunk[k] = 0;
			if (admitted) {
				inbatch = admitted;
			} else {
				for (k = 0; k < L.nrun; k++) {
					if (grow(&L, k, &o->preemptions)) {
						k--;
						continue;
					}
				}
				for (k = 0; k < L.nrun; k++) {
					chunk[k] = -1; /* decode */
					ctx += L.q[L.run[k]].prompt + L.q[L.run[k]].generated;
				}
				decode = inbatch = L.nrun;
			}
		} else {
			/* decode first, then prompt chunks of running sequences, then new ones */
			for (k = 0; k < L.nrun && budget > 0; k++) {
				struct seq *s = &L.q[L.run[k]];
				if (s->todo > 0)
					continue;
				if (grow(&L, k, &o->preemptions)) {
					k--;
					continue;
				}
			}
			for (k = 0; k < L.nrun; k++) {
				struct seq *s = &L.q[L.run[k]];
				chunk[k] = 0;
				if (s->todo == 0 && budget > 0) {
					chunk[k] = -1;
					ctx += s->prompt + s->generated;
					decode++;
					budget--;
				}
			}
			for (k = 0; k < L.nrun && budget > 0; k++) {
				struct seq *s = &L.q[L.run[k]];
				if (s->todo > 0 && chunk[k] == 0) {
					chunk[k] = s->todo < budget ? s->todo : budget;
					budget -= chunk[k];
					prefill += chunk[k];
				}
			}
			while (budget > 0 && admit(&L)) {
				struct seq *s = &L.q[L.run[L.nrun - 1]];
				chunk[L.nrun - 1] = s->todo < budget ? s->todo : budget;
				budget -= chunk[L.nrun - 1];
				prefill += chunk[L.nrun - 1];
			}
			for (k = 0; k < L.nrun; k++)
				inbatch += chunk[k] != 0;
		}
		if (!inbatch) {
			/* nothing can run: the cache is held by sequences that cannot grow (cannot happen with
			 * recompute), or the waiting request needs more than is free with nothing running */
			if (!L.nrun) {
				free(L.q), free(L.wait.v), free(L.run), free(chunk), free(ttft), free(tpot),
					free(e2e);
				return diag_set(
					err, "", 0, 0, "max-batched-tokens",
					"the scheduler cannot admit a request (prompt beyond the KV cache)");
			}
			continue;
		}
		dt = servesim_iteration_s(sim, decode, ctx, prefill, inbatch) + L.swap_s;
		L.swap_s = 0;
		record(&L, o, dt, inbatch);
		L.t += dt;
		/* outcomes */
		for (k = 0; k < L.nrun; k++) {
			int id = L.run[k];
			struct seq *s = &L.q[id];
			if (chunk[k] == 0)
				continue;
			if (chunk[k] > 0) {
				s->todo -= chunk[k];
				if (s->todo > 0)
					continue;
			}
			/* a prompt completed or a decode step: one token out */
			if (s->first_s < 0)
				s->first_s = L.t;
			s->generated++;
			L.tokens++;
			if (s->generated >= s->output) {
				double first = s->first_s - s->arrival_s, per = 0;
				if (s->output > 1)
					per = (L.t - s->first_s) / (s->output - 1);
				ttft[done] = first;
				tpot[done] = per;
				e2e[done] = L.t - s->arrival_s;
				good += (!(slo && slo->ttft_s > 0) || first <= slo->ttft_s) &&
					(!(slo && slo->tpot_s > 0) || per <= slo->tpot_s);
				late_ttft += slo && slo->ttft_s > 0 && first > slo->ttft_s;
				late_tpot += slo && slo->tpot_s > 0 && per > slo->tpot_s;
				done++;
				if (slo && slo->stop_on_miss &&
				    (late_ttft >= sure_miss || late_tpot >= sure_miss)) {
					o->stopped = 1;
					break;
				}
				memmove(&chunk[k], &chunk[k + 1], (size_t)(L.nrun - k - 1) * sizeof(*chunk));
				drop_running(&L, k);
				k--;
				/* a closed-loop client sends its next request now */
				if (load->kind == SERVESIM_CLOSED) {
					int nx = done + load->count - 1;
					if (nx < L.n && !isfinite(L.q[nx].arrival_s)) {
						L.q[nx].arrival_s = L.t;
						L.front_s = fmax(L.t, L.front_s) + sim->sched.host_req_s;
						L.q[nx].ready_s = L.front_s + sim->sched.frontend_s;
					}
				}
			}
		}
	}
	o->requests = done;
	o->makespan_s = L.t - L.t0;
	o->timeline_n = L.tl;
	if (o->makespan_s > 0) {
		o->tokens_per_s = L.tokens / o->makespan_s;
		o->requests_per_s = done / o->makespan_s;
		o->goodput_per_s = good / o->makespan_s;
		o->batch_mean = L.w_batch / o->makespan_s;
		o->queue_mean = L.w_queue / o->makespan_s;
		o->kv_use_mean = L.w_kv / o->makespan_s;
	}
	o->goodput = done ? (double)good / done : 0;
	dist_of(ttft, done, &o->ttft);
	dist_of(tpot, done, &o->tpot);
	dist_of(e2e, done, &o->e2e);
	free(L.q), free(L.wait.v), free(L.run), free(chunk), free(ttft), free(tpot), free(e2e);
	return 0;
}

int servesim_curve(struct servesim *sim, const struct servesim_load *like, double capacity_per_s, int n,
		   struct servesim_point *out, struct diag *err)
{
	struct servesim_load l = *like;
	struct servesim_result r;
	int i;
	if (n < 1 || n > SERVESIM_CURVE_MAX)
		return diag_set(err, "", 0, 0, "report", "1 to %d points of latency against load",
				SERVESIM_CURVE_MAX);
	if (l.requests < 1)
		l.requests = l.kind == SERVESIM_BURST && l.count > 0 ? l.count : 1000;
	l.trace = NULL;
	l.duration_s = 0;
	if (!(capacity_per_s > 0)) {
		l.kind = SERVESIM_BURST;
		l.count = l.requests;
		if (servesim_run(sim, &l, NULL, &r, err))
			return -1;
		capacity_per_s = r.requests_per_s;
	}
	l.kind = SERVESIM_POISSON;
	for (i = 0; i < n; i++) {
		l.rate_per_s = capacity_per_s * (i + 1) / n;
		if (servesim_run(sim, &l, NULL, &r, err))
			return -1;
		out[i].rate_per_s = l.rate_per_s;
		out[i].ttft = r.ttft;
		out[i].tpot = r.tpot;
		out[i].tokens_per_s = r.tokens_per_s;
		/* still queueing at the end: the last sample's queue holds more than a tenth of the requests */
		out[i].saturated = r.timeline_n > 0 && r.timeline_queue[r.timeline_n - 1] > 0.1 * l.requests;
	}
	return 0;
}
