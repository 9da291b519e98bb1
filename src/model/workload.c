/*
 * Workloads: built-in presets (data/models/presets.csv), Hugging Face
 * config.json files and explicit dimensions, and the constants derived from
 * them once (parameter counts, FLOPs per token).
 *
 * Parameter counts follow the layer structure of the Hugging Face
 * implementations: attention W_q (h x a*d), W_k and W_v (h x kv*d), W_o
 * (a*d x h); an MLP of two matrices (h x f, f x h) or three when gated
 * (SwiGLU: gate, up, down); two norms per block; biases where the
 * architecture has them; input embedding V x h, a learned position table
 * when there is one, and an output layer V x h unless tied.  The unit tests
 * check the totals against the published counts (Llama 2 7B: 6.74 B ...).
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/embedded.h"
#include "model/model.h"
#include "util/csv.h"
#include "util/strbuf.h"
#include "util/suggest.h"

#define PRESET_FILE "models/presets.csv"
#define MAX_PRESETS 64
#define MAX_DIM 10000000 /* any width or count above this is not a real model */

/* ------------------------------------------------------------------------- */
/* Derived constants                                                          */

/* The dimensions of latent attention, shared experts and layer patterns. */
static int arch_check(struct workload *w, struct diag *err)
{
	struct workload_dims *d = &w->d;
	const int v[] = {d->q_lora_rank,    d->kv_lora_rank, d->qk_nope_dim, d->qk_rope_dim, d->v_head_dim,
			 d->shared_experts, d->dense_layers, d->moe_every,   d->moe_ffn,     d->mtp_layers};
	static const char *const names[] = {"q_lora_rank",
					    "kv_lora_rank",
					    "qk_nope_head_dim",
					    "qk_rope_head_dim",
					    "v_head_dim",
					    "n_shared_experts",
					    "first_k_dense_replace",
					    "interleave_moe_layer_step",
					    "moe_intermediate_size",
					    "num_nextn_predict_layers"};
	size_t i;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (v[i] < 0 || v[i] > MAX_DIM)
			return diag_set(err, w->name, 0, 0, names[i], "%s %d is not valid", names[i], v[i]);
	if (d->kv_lora_rank > 0 && (d->qk_nope_dim + d->qk_rope_dim <= 0 || d->v_head_dim <= 0))
		return diag_set(err, w->name, 0, 0, "v_head_dim",
				"latent attention (kv_lora_rank %d) needs qk_nope_head_dim + qk_rope_head_dim and "
				"v_head_dim",
				d->kv_lora_rank);
	if (d->kv_lora_rank == 0 && (d->q_lora_rank || d->qk_rope_dim))
		return diag_set(err, w->name, 0, 0, "kv_lora_rank",
				"q_lora_rank and qk_rope_head_dim describe latent attention; give kv_lora_rank");
	if (d->experts <= 1 && (d->shared_experts || d->dense_layers || d->moe_every > 1 || d->moe_ffn))
		return diag_set(err, w->name, 0, 0, "experts",
				"shared experts, dense layers and expert widths need a mixture of experts");
	if (d->dense_layers >= d->layers || (d->moe_every > d->layers))
		return diag_set(err, w->name, 0, 0,
				d->dense_layers >= d->layers ? "first_k_dense_replace" :
							       "interleave_moe_layer_step",
				"%d layers leave no mixture-of-experts layer (first_k_dense_replace %d, "
				"interleave_moe_layer_step %d)",
				d->layers, d->dense_layers, d->moe_every);
	return 0;
}

int workload_finish(struct workload *w, struct diag *err)
{
	struct workload_dims *d = &w->d;
	double h, q, kv, f, fe, mlp_matrix, mlpe_matrix, attn_matrix, norms, experts, k_act, shared;
	double L, moe_l, latent_norms, score_flops, dense_mlp;
	int mla;

	if (!w->sample_unit[0])
		snprintf(w->sample_unit, sizeof(w->sample_unit), "%s",
			 w->kind == WORKLOAD_TRANSFORMER ? "sequences" : "samples");
	if (w->kind == WORKLOAD_PER_SAMPLE) {
		struct workload_sample *s = &w->s;
		if (!(s->params > 0) || !isfinite(s->params))
			return diag_set(err, w->name, 0, 0, "params", "parameter count must be positive");
		if (!(s->fwd_flops > 0) || !isfinite(s->fwd_flops))
			return diag_set(err, w->name, 0, 0, "fwd_gflops",
					"forward FLOPs per sample must be positive");
		if (!(s->act_bytes >= 0) || !(s->mem_traffic_bytes >= 0) || !(s->kernels >= 0))
			return diag_set(err, w->name, 0, 0, "act_mib",
					"activation, traffic and kernel figures must not be negative");
		w->params = w->params_active = s->params;
		w->params_embedding = w->params_head = 0;
		w->params_layer = w->params_layer_attn = w->params_layer_mlp = w->params_layer_router = 0;
		w->params_lora_per_rank = 0;
		w->flops_token_dense = s->fwd_flops;
		w->flops_token_attn = w->flops_token_head = 0;
		w->kv_dim = w->q_dim = 0;
		return 0;
	}

	if (d->layers <= 0 || d->layers > 100000)
		return diag_set(err, w->name, 0, 0, "layers", "layer count %d is not between 1 and 100000",
				d->layers);
	if (d->hidden <= 0 || d->hidden > MAX_DIM)
		return diag_set(err, w->name, 0, 0, "hidden", "hidden size %d is not between 1 and %d", d->hidden,
				MAX_DIM);
	if (d->heads <= 0 || d->heads > d->hidden)
		return diag_set(err, w->name, 0, 0, "heads",
				"attention heads %d must be between 1 and the hidden size %d", d->heads,
				d->hidden);
	if (d->kv_heads == 0)
		d->kv_heads = d->heads;
	if (d->kv_heads < 0 || d->kv_heads > d->heads || d->heads % d->kv_heads)
		return diag_set(err, w->name, 0, 0, "kv-heads",
				"key/value heads %d must divide the %d attention heads", d->kv_heads, d->heads);
	if (d->head_dim == 0) {
		if (d->hidden % d->heads)
			return diag_set(err, w->name, 0, 0, "heads",
					"%d heads do not divide the hidden size %d (give head_dim)", d->heads,
					d->hidden);
		d->head_dim = d->hidden / d->heads;
	}
	if (d->head_dim < 0 || d->head_dim > MAX_DIM)
		return diag_set(err, w->name, 0, 0, "head_dim", "head dimension %d is not valid", d->head_dim);
	if ((double)d->heads * d->head_dim > MAX_DIM)
		return diag_set(err, w->name, 0, 0, "head_dim", "heads x head_dim = %.0f is wider than any model",
				(double)d->heads * d->head_dim);
	if (d->ffn_hidden <= 0 || d->ffn_hidden > MAX_DIM)
		return diag_set(err, w->name, 0, 0, "ffn-hidden", "MLP width %d is not between 1 and %d",
				d->ffn_hidden, MAX_DIM);
	if (d->vocab < 0 || d->vocab > 100000000)
		return diag_set(err, w->name, 0, 0, "vocab", "vocabulary %d is not valid", d->vocab);
	if (d->experts < 0 || d->experts > 100000)
		return diag_set(err, w->name, 0, 0, "experts", "expert count %d is not valid", d->experts);
	if (d->experts > 1 && (d->experts_active <= 0 || d->experts_active > d->experts))
		return diag_set(err, w->name, 0, 0, "experts_active",
				"experts per token %d must be between 1 and %d", d->experts_active, d->experts);
	if (d->seq_len <= 0)
		d->seq_len = d->max_seq > 0 ? (d->max_seq < 4096 ? d->max_seq : 4096) : 2048;
	if (d->seq_len > MAX_DIM)
		return diag_set(err, w->name, 0, 0, "seq-len", "sequence length %d is not valid", d->seq_len);
	if (d->max_seq <= 0)
		d->max_seq = d->seq_len;
	if (!(d->dropout >= 0 && d->dropout < 1))
		return diag_set(err, w->name, 0, 0, "dropout", "dropout must be in [0, 1)");

	if (arch_check(w, err))
		return -1;
	mla = d->kv_lora_rank > 0;
	h = d->hidden;
	if (mla) {
		/* scores over nope + rope wide heads, values of v_head_dim */
		double qk = d->qk_nope_dim + d->qk_rope_dim, v = d->v_head_dim;
		d->head_dim = (int)qk;
		q = d->heads * qk;
		kv = d->heads * (qk + v) / 2;
		attn_matrix = (d->q_lora_rank ? h * d->q_lora_rank + d->q_lora_rank * q : h * q) +
			      h * (d->kv_lora_rank + d->qk_rope_dim) +
			      (double)d->kv_lora_rank * d->heads * (d->qk_nope_dim + v) + d->heads * v * h;
		/* RMSNorms of the two latents */
		latent_norms = d->q_lora_rank + d->kv_lora_rank;
		w->kv_cache_elems = d->kv_lora_rank + d->qk_rope_dim;
		score_flops = 2.0 * d->heads * (qk + v);
	} else {
		q = (double)d->heads * d->head_dim;
		kv = (double)d->kv_heads * d->head_dim;
		attn_matrix = h * (2 * q + 2 * kv);
		latent_norms = 0;
		w->kv_cache_elems = 2 * kv;
		/* QK^T and AV: 2 x q_dim each per token of context (full, not causal) */
		score_flops = 4.0 * q;
	}
	f = d->ffn_hidden;
	fe = d->moe_ffn > 0 ? d->moe_ffn : f;
	experts = d->experts > 1 ? d->experts : 1;
	k_act = d->experts > 1 ? d->experts_active : 1;
	shared = d->experts > 1 ? d->shared_experts : 0;
	L = d->layers;
	/* HF's layer rule: MoE where i >= first_k_dense_replace and (i + 1) % step == 0 */
	moe_l = 0;
	if (d->experts > 1) {
		int i, step = d->moe_every > 1 ? d->moe_every : 1;
		for (i = d->dense_layers; i < d->layers; i++)
			moe_l += (i + 1) % step == 0;
	}

	mlp_matrix = (d->gated_mlp ? 3 : 2) * h * f;
	mlpe_matrix = (d->gated_mlp ? 3 : 2) * h * fe;
	/* LayerNorm has a weight and a bias (architectures with biases); RMSNorm a weight only */
	norms = 2 * h * (d->has_bias ? 2 : 1);

	w->q_dim = (int)q;
	w->kv_dim = (int)kv;
	w->moe_layers = moe_l;
	w->params_layer_attn = attn_matrix + norms + latent_norms + (d->has_bias ? q + 2 * kv + h : 0);
	/* one routed expert (a dense model: its MLP) */
	dense_mlp = mlp_matrix + (d->has_bias ? f * (d->gated_mlp ? 2 : 1) + h : 0);
	w->params_layer_mlp = d->experts > 1 ? mlpe_matrix + (d->has_bias ? fe * (d->gated_mlp ? 2 : 1) + h : 0) :
					       dense_mlp;
	w->params_layer_router = d->experts > 1 ? h * d->experts : 0;
	w->params_layer_dense_mlp = ((L - moe_l) * dense_mlp + moe_l * shared * w->params_layer_mlp) / L;
	if (d->experts <= 1)
		w->params_layer_dense_mlp = 0;
	w->ffn_active = ((L - moe_l) * f + moe_l * (k_act + shared) * fe) / L;
	/* an average layer: the rest of the MLPs in the MoE layers' share */
	w->params_layer = w->params_layer_attn + w->params_layer_dense_mlp +
			  (d->experts > 1 ? moe_l / L : 1) *
				  (experts * w->params_layer_mlp + w->params_layer_router);
	w->params_embedding = (double)d->vocab * h + (d->learned_pos ? (double)d->max_seq * h : 0);
	w->params_head = (d->tied_embeddings || d->vocab == 0) ? 0 : (double)d->vocab * h;
	w->params = L * w->params_layer + w->params_embedding + w->params_head +
		    h * (d->has_bias ? 2 : 1) /* final norm */ + w->s.extra_params;
	w->params_active = w->params - moe_l * (experts - k_act) * w->params_layer_mlp;

	/* 2 FLOPs per multiply-add of every weight matrix a token passes through */
	w->flops_token_dense = d->experts > 1 ?
				       2.0 * (L * attn_matrix + (L - moe_l) * mlp_matrix +
					      moe_l * ((k_act + shared) * mlpe_matrix + w->params_layer_router)) :
				       2.0 * L * (attn_matrix + mlp_matrix);
	w->flops_token_attn = L * score_flops;
	w->flops_token_head = 2.0 * h * d->vocab;

	/*
	 * Multi-token prediction (DeepSeek-V3 sec. 2.2): each module joins the
	 * normed hidden state and the next token's embedding (2h x h
	 * projection, two norms), runs one block (an MoE block in an MoE
	 * model), a norm, and shares the embedding and output head.
	 */
	{
		double mtp = d->mtp_layers, moe_blk = d->experts > 1;
		double blk_mlp = moe_blk ? (experts + shared) * w->params_layer_mlp + w->params_layer_router :
					   dense_mlp;
		w->params_mtp = mtp * (2 * h * h + 3 * h + w->params_layer_attn + blk_mlp);
		w->params_mtp_experts = moe_blk ? mtp * experts * w->params_layer_mlp : 0;
		w->flops_token_mtp = mtp *
				     (2.0 * (2 * h * h + attn_matrix +
					     (moe_blk ? (k_act + shared) * mlpe_matrix + w->params_layer_router :
							mlp_matrix)) +
				      w->flops_token_head);
	}
	/* LoRA on every linear layer of a block: r x (in + out) per matrix */
	w->params_lora_per_rank = L * ((h + q) + 2 * (h + kv) + (q + h)) +
				  (d->gated_mlp ? 3 : 2) *
					  ((L - moe_l) * (h + f) + moe_l * (experts + shared) * (h + fe));
	if (w->s.tokens <= 0)
		w->s.tokens = d->seq_len;
	return 0;
}

int workload_from_dims(struct workload *w, const char *name, const struct workload_dims *d, struct diag *err)
{
	memset(w, 0, sizeof(*w));
	snprintf(w->name, sizeof(w->name), "%s", name ? name : "transformer");
	w->kind = WORKLOAD_TRANSFORMER;
	w->dtype = -1;
	w->d = *d;
	return workload_finish(w, err);
}

/* ------------------------------------------------------------------------- */
/* Presets                                                                    */

/* Names and aliases of the presets, read once; static storage, never freed. */
struct preset_table {
	size_t n;
	const char *names[MAX_PRESETS];
	char name_buf[MAX_PRESETS][64];
	char aliases[MAX_PRESETS][256];
	int line[MAX_PRESETS];
	int bad;
	struct diag err;
};

static struct preset_table presets;
static pthread_once_t presets_once = PTHREAD_ONCE_INIT;

/* Column index by name in a header record; -1 when absent. */
static int col_index(const struct csv_record *hdr, const char *name)
{
	size_t i;
	for (i = 0; i < hdr->nfields; i++)
		if (!strcmp(hdr->fields[i], name))
			return (int)i;
	return -1;
}

static void load_preset_names(void)
{
	const struct embedded_file *f = embedded_find(PRESET_FILE);
	struct csv_reader *r;
	struct csv_record rec;
	int kkey = -1, kalias = -1, first = 1, rc;

	diag_clear(&presets.err);
	if (!f) {
		presets.bad = 1;
		diag_set(&presets.err, PRESET_FILE, 0, 0, "", "preset table is not embedded");
		return;
	}
	r = csv_open("data/" PRESET_FILE, f->data, f->len, CSV_COMMENTS);
	while ((rc = csv_next(r, &rec, &presets.err)) > 0) {
		if (first) {
			kkey = col_index(&rec, "key");
			kalias = col_index(&rec, "aliases");
			first = 0;
			continue;
		}
		if (kkey < 0 || (size_t)kkey >= rec.nfields || presets.n >= MAX_PRESETS)
			continue;
		snprintf(presets.name_buf[presets.n], sizeof(presets.name_buf[0]), "%s", rec.fields[kkey]);
		presets.names[presets.n] = presets.name_buf[presets.n];
		snprintf(presets.aliases[presets.n], sizeof(presets.aliases[0]), "%s",
			 kalias >= 0 && (size_t)kalias < rec.nfields ? rec.fields[kalias] : "");
		presets.line[presets.n] = rec.line;
		presets.n++;
	}
	if (rc < 0)
		presets.bad = 1;
	csv_free(r);
}

const char *const *workload_preset_names(size_t *n)
{
	pthread_once(&presets_once, load_preset_names);
	*n = presets.n;
	return presets.names;
}

/* Case- and punctuation-insensitive equality ("Llama-2-7b" == "llama2 7b"). */
static int loose_eq(const char *a, const char *b)
{
	for (;;) {
		while (*a && !((*a >= 'a' && *a <= 'z') || (*a >= 'A' && *a <= 'Z') || (*a >= '0' && *a <= '9')))
			a++;
		while (*b && !((*b >= 'a' && *b <= 'z') || (*b >= 'A' && *b <= 'Z') || (*b >= '0' && *b <= '9')))
			b++;
		if (!*a || !*b)
			return !*a && !*b;
		if ((*a | 0x20) != (*b | 0x20))
			return 0;
		a++;
		b++;
	}
}

static int alias_match(const char *aliases, const char *name)
{
	char buf[512], *p, *save = NULL;
	snprintf(buf, sizeof(buf), "%s", aliases);
	for (p = strtok_r(buf, ";", &save); p; p = strtok_r(NULL, ";", &save))
		if (loose_eq(p, name))
			return 1;
	return 0;
}

static double num_or(const char *s, double dflt)
{
	char *end;
	double v;
	if (!s || !*s)
		return dflt;
	errno = 0;
	v = strtod(s, &end);
	if (*end || errno || !isfinite(v))
		return NAN;
	return v;
}

int workload_parse_shape(const char *s, double *elems, int *dims)
{
	double p = 1;
	int n = 0;
	if (!s)
		return -1;
	while (*s) {
		char *end;
		double v = strtod(s, &end);
		if (end == s || !(v >= 1) || v > 1e7 || v != floor(v) || n >= 4)
			return -1;
		p *= v;
		n++;
		s = end;
		if (*s == 'x' && s[1])
			s++;
		else if (*s)
			return -1;
	}
	if (!n)
		return -1;
	*elems = p;
	*dims = n;
	return 0;
}

/* Reads one preset row into w. */
static int preset_row(struct workload *w, const struct csv_record *hdr, const struct csv_record *rec,
		      struct diag *err)
{
	struct workload_dims *d = &w->d;
	struct workload_sample *s = &w->s;
	static const struct {
		const char *col;
		int is_int;
		size_t off;
		double scale;
	} cols[] = {
#define DI(c, f) {c, 1, offsetof(struct workload_dims, f), 1}
		DI("layers", layers),
		DI("hidden", hidden),
		DI("heads", heads),
		DI("kv_heads", kv_heads),
		DI("head_dim", head_dim),
		DI("ffn_hidden", ffn_hidden),
		DI("vocab", vocab),
		DI("max_seq", max_seq),
		DI("seq_len", seq_len),
		DI("gated_mlp", gated_mlp),
		DI("tied", tied_embeddings),
		DI("learned_pos", learned_pos),
		DI("causal", causal),
		DI("experts", experts),
		DI("experts_active", experts_active),
		DI("bias", has_bias),
		DI("q_lora_rank", q_lora_rank),
		DI("kv_lora_rank", kv_lora_rank),
		DI("qk_nope_dim", qk_nope_dim),
		DI("qk_rope_dim", qk_rope_dim),
		DI("v_head_dim", v_head_dim),
		DI("shared_experts", shared_experts),
		DI("dense_layers", dense_layers),
		DI("moe_every", moe_every),
		DI("moe_ffn", moe_ffn),
		DI("mtp_layers", mtp_layers),
#undef DI
	};
	static const struct {
		const char *col;
		size_t off;
		double scale;
	} scols[] = {
		{"params_m", offsetof(struct workload_sample, params), 1e6},
		{"fwd_gflops", offsetof(struct workload_sample, fwd_flops), 1e9},
		{"act_mib", offsetof(struct workload_sample, act_bytes), 1048576.0},
		{"traffic_mib", offsetof(struct workload_sample, mem_traffic_bytes), 1048576.0},
		{"kernels", offsetof(struct workload_sample, kernels), 1},
		{"input_kib", offsetof(struct workload_sample, input_bytes), 1024.0},
		{"decode_per_core", offsetof(struct workload_sample, decode_per_core), 1},
		{"dali_per_gpu", offsetof(struct workload_sample, dali_per_gpu), 1},
		{"tokens", offsetof(struct workload_sample, tokens), 1},
		{"extra_params_m", offsetof(struct workload_sample, extra_params), 1e6},
	};
	size_t i;
	int k;
	const char *kind, *unit;

	memset(w, 0, sizeof(*w));
	w->dtype = -1;
	k = col_index(hdr, "key");
	snprintf(w->name, sizeof(w->name), "%s", rec->fields[k]);
	k = col_index(hdr, "kind");
	kind = k >= 0 && (size_t)k < rec->nfields ? rec->fields[k] : "";
	k = col_index(hdr, "unit");
	unit = k >= 0 && (size_t)k < rec->nfields ? rec->fields[k] : "";
	snprintf(w->sample_unit, sizeof(w->sample_unit), "%s", unit);
	if (!strcmp(kind, "transformer"))
		w->kind = WORKLOAD_TRANSFORMER;
	else if (!strcmp(kind, "per-sample"))
		w->kind = WORKLOAD_PER_SAMPLE;
	else
		return diag_set(err, "data/" PRESET_FILE, rec->line, 0, "kind",
				"kind '%s' is not transformer or per-sample", kind);
	for (i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		double v;
		k = col_index(hdr, cols[i].col);
		v = num_or(k >= 0 && (size_t)k < rec->nfields ? rec->fields[k] : NULL, 0);
		if (isnan(v) || v < 0 || v > MAX_DIM * 100.0)
			return diag_set(err, "data/" PRESET_FILE, rec->line, 0, cols[i].col, "not a valid count");
		*(int *)((char *)d + cols[i].off) = (int)v;
	}
	for (i = 0; i < sizeof(scols) / sizeof(scols[0]); i++) {
		double v;
		k = col_index(hdr, scols[i].col);
		v = num_or(k >= 0 && (size_t)k < rec->nfields ? rec->fields[k] : NULL, 0);
		if (isnan(v) || v < 0)
			return diag_set(err, "data/" PRESET_FILE, rec->line, 0, scols[i].col,
					"not a valid number");
		*(double *)((char *)s + scols[i].off) = v * scols[i].scale;
	}
	k = col_index(hdr, "input_shape");
	if (k >= 0 && (size_t)k < rec->nfields && rec->fields[k][0] &&
	    workload_parse_shape(rec->fields[k], &s->input_elems, &s->input_dims))
		return diag_set(err, "data/" PRESET_FILE, rec->line, 0, "input_shape",
				"'%s' is not like 224x224 or 128x128x128", rec->fields[k]);
	k = col_index(hdr, "dropout");
	d->dropout = num_or(k >= 0 && (size_t)k < rec->nfields ? rec->fields[k] : NULL, 0);
	if (isnan(d->dropout))
		return diag_set(err, "data/" PRESET_FILE, rec->line, 0, "dropout", "not a number");
	if (workload_finish(w, err)) {
		char msg[sizeof(err->msg)];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		return diag_set(err, "data/" PRESET_FILE, rec->line, 0, err->field, "%s", msg);
	}
	return 0;
}

/* what a command line names to load w again (workload_flags()) */
static void remember_origin(struct workload *w, const char *spec)
{
	snprintf(w->origin, sizeof(w->origin), "%s", spec);
	w->origin_d = w->d;
}

int workload_preset(struct workload *w, const char *name, struct diag *err)
{
	const struct embedded_file *f;
	struct csv_reader *r;
	struct csv_record rec;
	struct csv_record hdr;
	size_t i, n, found = (size_t)-1;
	const char *const *names = workload_preset_names(&n);
	int rc, ret = -1, first = 1;

	if (presets.bad) {
		*err = presets.err;
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!strcasecmp(names[i], name) || loose_eq(names[i], name) ||
		    alias_match(presets.aliases[i], name)) {
			found = i;
			break;
		}
	if (found == (size_t)-1) {
		char hint[256];
		suggest_hint(name, names, n, hint, sizeof(hint));
		return diag_set(err, "", 0, 0, "model",
				"unknown model '%s'%s; presets: see 'gpuscope estimate --list-models'", name,
				hint);
	}
	f = embedded_find(PRESET_FILE);
	r = csv_open("data/" PRESET_FILE, f->data, f->len, CSV_COMMENTS);
	memset(&hdr, 0, sizeof(hdr));
	while ((rc = csv_next(r, &rec, err)) > 0) {
		if (first) {
			csv_record_copy(&hdr, &rec);
			first = 0;
			continue;
		}
		if (rec.line == presets.line[found]) {
			ret = preset_row(w, &hdr, &rec, err);
			break;
		}
	}
	csv_record_release(&hdr);
	csv_free(r);
	if (rc < 0)
		return -1;
	if (!ret)
		remember_origin(w, names[found]);
	return ret;
}

/* ------------------------------------------------------------------------- */
/* Hugging Face config.json                                                   */

/*
 * Integer key, trying each spelling in turn.  Returns 1 and *v when found,
 * 0 when absent (or null), -1 with err when present but not a valid count.
 */
static int hf_int(json_t *root, const char *const *keys, long *v, const char *file, struct diag *err)
{
	size_t i;
	for (i = 0; keys[i]; i++) {
		json_t *x = json_object_get(root, keys[i]);
		double d;
		if (!x || json_is_null(x))
			continue;
		if (json_is_integer(x))
			d = (double)json_integer_value(x);
		else if (json_is_real(x))
			d = json_real_value(x);
		else
			return diag_set(err, file, 0, 0, keys[i], "'%s' must be a number", keys[i]);
		if (!(d >= 0) || d > 1e9 || d != floor(d))
			return diag_set(err, file, 0, 0, keys[i], "'%s' must be a non-negative integer, got %g",
					keys[i], d);
		*v = (long)d;
		return 1;
	}
	return 0;
}

static const char *hf_str(json_t *root, const char *key)
{
	json_t *x = json_object_get(root, key);
	return json_is_string(x) ? json_string_value(x) : NULL;
}

/*
 * The stored weight precision a config.json's quantization_config names
 * (Hugging Face transformers' quantizers): quant_method "mxfp4" (gpt-oss),
 * "modelopt" with quant_algo "NVFP4" or "FP8" (NVIDIA TensorRT Model
 * Optimizer checkpoints), "fp8", "compressed-tensors" with format
 * "nvfp4-pack-quantized" (llm-compressor), "gptq"/"awq" with bits 4 or 8.
 * MODEL_FP32 for none or one the model does not express.
 */
static enum model_precision hf_quant(json_t *q)
{
	const char *m = json_is_object(q) ? hf_str(q, "quant_method") : NULL;
	const char *algo, *fmt;
	json_t *bits;
	if (!m)
		return MODEL_FP32;
	algo = hf_str(q, "quant_algo");
	fmt = hf_str(q, "format");
	bits = json_object_get(q, "bits");
	if (!strcmp(m, "mxfp4"))
		return MODEL_MXFP4;
	if (!strcmp(m, "modelopt") && algo)
		return !strcmp(algo, "NVFP4") ? MODEL_NVFP4 : !strcmp(algo, "FP8") ? MODEL_FP8 : MODEL_FP32;
	if (!strcmp(m, "fp8"))
		return MODEL_FP8;
	if (!strcmp(m, "compressed-tensors") && fmt && !strcmp(fmt, "nvfp4-pack-quantized"))
		return MODEL_NVFP4;
	if ((!strcmp(m, "gptq") || !strcmp(m, "awq")) && json_is_integer(bits))
		return json_integer_value(bits) == 4 ? MODEL_INT4 :
		       json_integer_value(bits) == 8 ? MODEL_INT8 :
						       MODEL_FP32;
	return MODEL_FP32;
}

static int in_list(const char *s, const char *const *list)
{
	size_t i;
	if (!s)
		return 0;
	for (i = 0; list[i]; i++)
		if (!strcasecmp(s, list[i]))
			return 1;
	return 0;
}

int workload_from_hf_json(struct workload *w, const char *name, const char *buf, size_t len, struct diag *err)
{
	static const char *const k_hidden[] = {"hidden_size", "n_embd", "d_model", "dim", NULL};
	static const char *const k_layers[] = {"num_hidden_layers", "n_layer", "num_layers", "n_layers", NULL};
	static const char *const k_heads[] = {"num_attention_heads", "n_head", "num_heads", "n_heads", NULL};
	static const char *const k_kv[] = {"num_key_value_heads", "n_kv_heads", "num_kv_heads",
					   "multi_query_group_num", NULL};
	static const char *const k_ffn[] = {"intermediate_size", "ffn_dim", "n_inner",
					    "ffn_hidden_size",   "d_ff",    NULL};
	static const char *const k_vocab[] = {"vocab_size", "padded_vocab_size", NULL};
	static const char *const k_pos[] = {"max_position_embeddings", "n_positions", "max_sequence_length",
					    "seq_length", NULL};
	static const char *const k_experts[] = {"num_local_experts", "num_experts", "n_routed_experts",
						"moe_num_experts", NULL};
	static const char *const k_topk[] = {"num_experts_per_tok", "moe_top_k", "top_k", NULL};
	static const char *const k_headdim[] = {"head_dim", NULL};
	/* latent attention, shared experts and layer patterns, in the order of struct arch_keys */
	static const char *const k_arch[][3] = {
		{"q_lora_rank", NULL, NULL},
		{"kv_lora_rank", NULL, NULL},
		{"qk_nope_head_dim", NULL, NULL},
		{"qk_rope_head_dim", NULL, NULL},
		{"v_head_dim", NULL, NULL},
		{"n_shared_experts", NULL, NULL},
		{"first_k_dense_replace", NULL, NULL},
		{"interleave_moe_layer_step", "decoder_sparse_step", NULL},
		{"moe_intermediate_size", NULL, NULL},
		{"num_nextn_predict_layers", NULL, NULL},
		{"intermediate_size_mlp", NULL, NULL},
	};
	/* architectures whose MLP is gated (SwiGLU/GeGLU: gate, up and down matrices) */
	static const char *const gated_types[] = {"llama",     "mistral",     "mixtral",     "qwen2",
						  "qwen2_moe", "qwen3",       "qwen3_moe",   "gemma",
						  "gemma2",    "gemma3",      "phi3",        "olmo",
						  "olmo2",     "internlm2",   "deepseek",    "yi",
						  "baichuan",  "granite",     "cohere",      "starcoder2x",
						  "exaone",    "smollm3",     "deepseek_v2", "deepseek_v3",
						  "llama4",    "llama4_text", NULL};
	static const char *const gated_acts[] = {"silu",  "swiglu", "geglu", "gelu_pytorch_tanh_gated",
						 "swish", NULL};
	static const char *const encoder_types[] = {"bert",       "roberta",     "deberta", "deberta-v2",
						    "electra",    "xlm-roberta", "vit",     "albert",
						    "distilbert", "camembert",   NULL};
	static const char *const learned_pos_types[] = {"gpt2",       "opt",         "bert",    "roberta",
							"gpt_neo",    "vit",         "electra", "xlm-roberta",
							"distilbert", "gpt_bigcode", "biogpt",  "camembert",
							NULL};
	static const char *const bias_types[] = {"gpt2",        "opt",        "bloom",       "bert", "roberta",
						 "gpt_neox",    "gpt_neo",    "falcon",      "vit",  "electra",
						 "xlm-roberta", "distilbert", "gpt_bigcode", "phi",  "camembert",
						 "starcoder2",  "qwen2",      NULL};
	json_error_t jerr;
	json_t *root, *x, *outer = NULL;
	long ax[sizeof(k_arch) / sizeof(k_arch[0])];
	size_t ai;
	long hidden = 0, layers = 0, heads = 0, kv = 0, ffn = 0, vocab = 0, pos = 0, experts = 0, topk = 0, hd = 0;
	int hh, hl, ha, hf, hv;
	const char *mtype, *act, *dtype;
	char missing[256] = "";
	struct workload_dims d;

	memset(w, 0, sizeof(*w));
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return diag_set(err, name, jerr.line > 0 ? jerr.line : 1, jerr.column > 0 ? jerr.column : 1, "",
				"not valid JSON: %s", jerr.text);
	if (!json_is_object(root)) {
		json_decref(root);
		json_decref(outer);
		return diag_set(err, name, 1, 1, "",
				"expected a JSON object of model settings (a Hugging Face config.json)");
	}
	/* multimodal configs keep the language model in text_config */
	x = json_object_get(root, "text_config");
	if (json_is_object(x) && !json_object_get(root, "hidden_size")) {
		json_incref(x);
		outer = root;
		root = x;
	}
	for (ai = 0; ai < sizeof(k_arch) / sizeof(k_arch[0]); ai++) {
		ax[ai] = 0;
		if (hf_int(root, k_arch[ai], &ax[ai], name, err) < 0) {
			json_decref(root);
			json_decref(outer);
			return -1;
		}
	}
	if ((hh = hf_int(root, k_hidden, &hidden, name, err)) < 0 ||
	    (hl = hf_int(root, k_layers, &layers, name, err)) < 0 ||
	    (ha = hf_int(root, k_heads, &heads, name, err)) < 0 || hf_int(root, k_kv, &kv, name, err) < 0 ||
	    (hf = hf_int(root, k_ffn, &ffn, name, err)) < 0 ||
	    (hv = hf_int(root, k_vocab, &vocab, name, err)) < 0 || hf_int(root, k_pos, &pos, name, err) < 0 ||
	    hf_int(root, k_experts, &experts, name, err) < 0 || hf_int(root, k_topk, &topk, name, err) < 0 ||
	    hf_int(root, k_headdim, &hd, name, err) < 0) {
		json_decref(root);
		json_decref(outer);
		return -1;
	}
	mtype = hf_str(root, "model_type");
	act = hf_str(root, "hidden_act");
	if (!act)
		act = hf_str(root, "activation_function");
	if (!hh)
		strcat(missing, ", hidden_size");
	if (!hl)
		strcat(missing, ", num_hidden_layers");
	if (!ha)
		strcat(missing, ", num_attention_heads");
	if (!hv && !in_list(mtype, encoder_types))
		strcat(missing, ", vocab_size");
	else if (hv && !vocab) {
		/* as wrong as a missing one: there is nothing to embed */
		json_decref(root);
		json_decref(outer);
		return diag_set(err, name, 0, 0, "vocab_size", "'vocab_size' must be at least 1, got 0");
	}
	if (missing[0]) {
		diag_set(
			err, name, 0, 0, missing + 2,
			"missing keys %s%s%s%s; gpuscope reads transformer configs (llama, mistral, mixtral, qwen2, "
			"gpt2, opt, bloom, bert ...)",
			missing + 2, mtype ? " (model_type '" : "", mtype ? mtype : "", mtype ? "')" : "");
		json_decref(root);
		json_decref(outer);
		return -1;
	}
	if (!hf) {
		/* GPT-2 style configs leave n_inner null: 4 x hidden */
		ffn = 4 * hidden;
	}
	memset(&d, 0, sizeof(d));
	d.hidden = (int)hidden;
	d.layers = (int)layers;
	d.heads = (int)heads;
	d.kv_heads = (int)(kv ? kv : heads);
	d.head_dim = (int)hd;
	d.ffn_hidden = (int)ffn;
	d.vocab = (int)vocab;
	d.max_seq = (int)pos;
	d.seq_len = pos > 0 ? (int)(pos < 4096 ? pos : 4096) : 2048;
	d.experts = (int)(experts > 1 ? experts : 0);
	d.experts_active = (int)(experts > 1 ? (topk ? topk : 2) : 0);
	d.q_lora_rank = (int)ax[0];
	d.kv_lora_rank = (int)ax[1];
	d.qk_nope_dim = (int)ax[2];
	d.qk_rope_dim = (int)ax[3];
	d.v_head_dim = (int)ax[4];
	if (d.kv_lora_rank > 0)
		d.head_dim = d.qk_nope_dim + d.qk_rope_dim;
	if (d.experts > 1) {
		d.shared_experts = (int)ax[5];
		d.dense_layers = (int)ax[6];
		d.moe_every = (int)ax[7];
		d.moe_ffn = (int)ax[8];
		/* Llama 4: intermediate_size is the experts' width, intermediate_size_mlp the dense layers',
		   and every MoE layer has one shared expert */
		if (ax[10] > 0) {
			d.moe_ffn = (int)ffn;
			d.ffn_hidden = (int)ax[10];
			d.shared_experts = 1;
		}
	}
	d.mtp_layers = (int)ax[9];
	d.causal = !in_list(mtype, encoder_types);
	d.gated_mlp = in_list(mtype, gated_types) || (in_list(act, gated_acts) && !in_list(mtype, bias_types));
	d.learned_pos = in_list(mtype, learned_pos_types);
	d.has_bias = in_list(mtype, bias_types) || json_is_true(json_object_get(root, "attention_bias"));
	/* HF's PretrainedConfig default is tied (true) when the key is absent; Llama 4 says it outside text_config */
	x = json_object_get(root, "tie_word_embeddings");
	if (!x && outer)
		x = json_object_get(outer, "tie_word_embeddings");
	d.tied_embeddings = x ? json_is_true(x) : 1;
	x = json_object_get(root, "hidden_dropout_prob");
	if (!x)
		x = json_object_get(root, "hidden_dropout");
	if (!x)
		x = json_object_get(root, "resid_pdrop");
	if (!x)
		x = json_object_get(root, "dropout");
	if (json_is_number(x)) {
		double p = json_number_value(x);
		d.dropout = p >= 0 && p < 1 ? p : 0;
	}
	if (workload_from_dims(w, NULL, &d, err)) {
		char msg[sizeof(err->msg)], field[sizeof(err->field)];
		snprintf(msg, sizeof(msg), "%s", err->msg);
		snprintf(field, sizeof(field), "%s", err->field);
		json_decref(root);
		json_decref(outer);
		return diag_set(err, name, 0, 0, field, "%s", msg);
	}
	{
		/* name: the file's stem directory or model_type, e.g. "llama" */
		const char *arch = NULL;
		json_t *a = json_object_get(root, "architectures");
		if (json_is_array(a) && json_array_size(a) > 0 && json_is_string(json_array_get(a, 0)))
			arch = json_string_value(json_array_get(a, 0));
		const char *nm = arch ? arch : mtype ? mtype : "config.json";
		/* cut on a character boundary: JSON output takes only whole UTF-8 */
		snprintf(w->name, sizeof(w->name), "%.*s", (int)utf8_prefix(nm, sizeof(w->name) - 1), nm);
		utf8_scrub(w->name);
	}
	w->weight_quant = hf_quant(json_object_get(root, "quantization_config"));
	dtype = hf_str(root, "torch_dtype");
	if (!dtype)
		dtype = hf_str(root, "dtype");
	w->dtype = !dtype                     ? -1 :
		   !strcmp(dtype, "bfloat16") ? MODEL_BF16 :
		   !strcmp(dtype, "float16")  ? MODEL_FP16 :
		   !strcmp(dtype, "float32")  ? MODEL_FP32 :
						-1;
	json_decref(root);
	json_decref(outer);
	return 0;
}

int workload_from_hf_config(struct workload *w, const char *path, struct diag *err)
{
	char *buf;
	size_t len;
	int rc;
	if (csv_read_file(path, &buf, &len, err))
		return -1;
	rc = workload_from_hf_json(w, path, buf, len, err);
	free(buf);
	if (!rc)
		remember_origin(w, path);
	return rc;
}

int workload_load(struct workload *w, const char *spec, struct diag *err)
{
	size_t n = strlen(spec);
	FILE *f;
	if (strchr(spec, '/') || (n > 5 && !strcasecmp(spec + n - 5, ".json")))
		return workload_from_hf_config(w, spec, err);
	if (!workload_preset(w, spec, err))
		return 0;
	f = fopen(spec, "rb");
	if (f) {
		fclose(f);
		return workload_from_hf_config(w, spec, err);
	}
	return -1;
}

/* spec as one word of a POSIX shell: bare when it holds only safe characters */
static void add_shell_word(struct strbuf *out, const char *spec)
{
	if (*spec && strspn(spec, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/+:=,@") ==
			     strlen(spec)) {
		strbuf_addstr(out, spec);
		return;
	}
	strbuf_addch(out, '\'');
	for (; *spec; spec++) {
		if (*spec == '\'')
			strbuf_addstr(out, "'\\''");
		else
			strbuf_addch(out, *spec);
	}
	strbuf_addch(out, '\'');
}

void workload_flags(const struct workload *w, struct strbuf *out)
{
	static const struct {
		const char *flag;
		size_t off;
	} dims[] = {
		{"layers", offsetof(struct workload_dims, layers)},
		{"hidden", offsetof(struct workload_dims, hidden)},
		{"heads", offsetof(struct workload_dims, heads)},
		{"kv-heads", offsetof(struct workload_dims, kv_heads)},
		{"ffn-hidden", offsetof(struct workload_dims, ffn_hidden)},
		{"vocab", offsetof(struct workload_dims, vocab)},
		{"experts", offsetof(struct workload_dims, experts)},
		{"experts-active", offsetof(struct workload_dims, experts_active)},
	};
	int loaded = w->origin[0] != '\0';
	const char *sep = "";

	if (loaded) {
		strbuf_addstr(out, "--model ");
		add_shell_word(out, w->origin);
		sep = " ";
	}
	if (w->kind != WORKLOAD_TRANSFORMER)
		return;
	for (size_t i = 0; i < sizeof(dims) / sizeof(dims[0]); i++) {
		int v, was;
		memcpy(&v, (const char *)&w->d + dims[i].off, sizeof(v));
		memcpy(&was, (const char *)&w->origin_d + dims[i].off, sizeof(was));
		/* a dense model given by dimensions has no expert flags to repeat */
		if (loaded ? v == was : v <= (i >= 6 ? 1 : 0))
			continue;
		strbuf_addf(out, "%s--%s %d", sep, dims[i].flag, v);
		sep = " ";
	}
}
