/*
 * estimate's text and JSON (view/estimate.h).  The JSON is the field
 * tables of model/fields.h written by report/field.h, one object per
 * schema; the text reads the breakdowns' terms from the same rows, by
 * field name, so a term and its line cannot drift apart.
 */
#include "view/estimate.h"

#include <jansson.h>
#include <stdarg.h>
#include <string.h>

#include "report/fmt.h"
#include "report/html.h"
#include "report/svg.h"
#include "report/table.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "view/calib.h"

#define GIB 1073741824.0

static int is_decoder(const struct workload *w)
{
	return w->kind == WORKLOAD_TRANSFORMER && w->d.causal;
}

/* ---- rows ---- */

/* A part's row, filled; *shown gets the fields that belong (may be NULL).  Free with report_row_free(). */
static struct report_row *part_row(enum model_estimate_part p, const struct model_answer *a, uint64_t *shown)
{
	struct report_row *row = report_row_new(model_estimate_schema(p));
	uint64_t bits = model_estimate_row(p, a, row);
	if (shown)
		*shown = bits;
	return row;
}

/* A number of a row by field name; a name its schema lacks is a bug in the tables below. */
static double field_num(const struct report_row *row, const char *name)
{
	long i = report_field_index(report_row_schema(row), name);
	if (i < 0)
		BUG("%s has no field %s", report_row_schema(row)->name, name);
	return report_num(row, (size_t)i);
}

/* ---- JSON ---- */

/* The part's fields into obj, those that do not belong to this answer left out. */
static void part_into(enum model_estimate_part p, const struct model_answer *a, json_t *obj)
{
	const struct report_schema *s = model_estimate_schema(p);
	uint64_t shown;
	struct report_row *row = part_row(p, a, &shown);
	size_t i;
	report_row_json_into(row, obj);
	for (i = 0; i < s->nfields; i++)
		if (!(shown >> i & 1))
			json_object_del(obj, s->fields[i].name);
	report_row_free(row);
}

static void set_part(json_t *o, const char *key, enum model_estimate_part p, const struct model_answer *a)
{
	json_t *x = json_object();
	part_into(p, a, x);
	json_object_set_new(o, key, x);
}

/* The run over time: arrays of seconds, waiting requests, running sequences and KV-cache use. */
static json_t *timeline_json(const struct servesim_result *r)
{
	json_t *o = json_object(), *t = json_array(), *q = json_array(), *b = json_array(), *k = json_array();
	int i;
	for (i = 0; i < r->timeline_n; i++) {
		json_array_append_new(t, json_real(r->timeline_s[i]));
		json_array_append_new(q, json_real(r->timeline_queue[i]));
		json_array_append_new(b, json_real(r->timeline_batch[i]));
		json_array_append_new(k, json_real(r->timeline_kv_use[i]));
	}
	json_object_set_new(o, "t_s", t);
	json_object_set_new(o, "queue", q);
	json_object_set_new(o, "batch", b);
	json_object_set_new(o, "kv_use", k);
	return o;
}

static json_t *advice_json(const struct model_advice *adv, size_t n)
{
	json_t *arr = json_array();
	struct report_row *row = report_row_new(model_estimate_schema(MODEL_EST_ADVICE));
	size_t i;
	for (i = 0; i < n; i++) {
		report_row_clear(row);
		model_advice_row(&adv[i], row);
		json_array_append_new(arr, report_row_json(row));
	}
	report_row_free(row);
	return arr;
}

json_t *view_estimate_json(const struct model_answer *a)
{
	json_t *o = json_object(), *x = json_array();
	size_t i;
	const char *key;

	set_part(o, "workload", MODEL_EST_WORKLOAD, a);
	for (i = 0; a->notes && i < (size_t)a->notes->n; i++)
		json_array_append_new(x, json_string(a->notes->text[i]));
	json_object_set_new(o, "notes", x);
	set_part(o, "config", MODEL_EST_CONFIG, a);
	set_part(o, "memory", MODEL_EST_MEMORY, a);
	set_part(o, "time", MODEL_EST_TIME, a);
	if (a->c->task == MODEL_TASK_INFER)
		set_part(o, "inference", MODEL_EST_INFERENCE, a);
	if (a->sv)
		set_part(o, "serving", MODEL_EST_SERVING, a);
	if (a->q)
		set_part(o, "rate", MODEL_EST_RATE, a);
	if (a->sim && a->sched) {
		set_part(o, "simulation", MODEL_EST_SIMULATION, a);
		json_object_set_new(json_object_get(o, "simulation"), "timeline", timeline_json(a->sim));
	}
	set_part(o, "throughput", MODEL_EST_THROUGHPUT, a);
	part_into(MODEL_EST_SUMMARY, a, o);
	x = json_array();
	for (i = 0; (key = model_limit_key(i)); i++)
		if (a->r->limits & (1u << i))
			json_array_append_new(x, json_string(key));
	json_object_set_new(o, "limits", x);
	json_object_set_new(o, "fit_advice", advice_json(a->fix, a->nfix));
	json_object_set_new(o, "recommendations", advice_json(a->rec, a->nrec));
	json_object_set_new(o, "calibration", view_calibration_json(model_calibration_of(a->c->gpu)));
	return o;
}

/* ---- text: tables ---- */

/* A quantity/value table. */
static struct table *quantities_new(void)
{
	struct table *tb = table_new();
	table_column(tb, "quantity", ALIGN_LEFT);
	table_column(tb, "value", ALIGN_RIGHT);
	return tb;
}

/* One quantity/value row, the value formatted. */
static void GS_PRINTF(3, 4) quantity(struct table *tb, const char *name, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	table_row(tb);
	table_cell(tb, name);
	table_cell(tb, strbuf_str(&sb));
	strbuf_release(&sb);
}

static void table_done(struct table *tb, FILE *out)
{
	table_print(tb, out, 0);
	table_free(tb);
}

/* A breakdown of a whole into terms: term, amount (headed `amount`), share. */
static struct table *breakdown_new(const char *amount)
{
	struct table *tb = table_new();
	table_column(tb, "term", ALIGN_LEFT);
	table_column(tb, amount, ALIGN_RIGHT);
	table_column(tb, "share", ALIGN_RIGHT);
	return tb;
}

/* One term of a breakdown: its amount and its share of the whole, in percent with `decimals`. */
static void term_row(struct table *tb, const char *label, const char *amount, double part, double whole,
		     int decimals)
{
	table_row(tb);
	table_cell(tb, label);
	table_cell(tb, amount);
	table_cellf(tb, "%.*f%%", decimals, whole > 0 ? 100 * part / whole : 0);
}

/* Ends a breakdown with the whole, prints and frees it. */
static void breakdown_done(struct table *tb, FILE *out, const char *whole, const char *amount)
{
	table_row(tb);
	table_cell(tb, whole);
	table_cell(tb, amount);
	table_cell(tb, "");
	table_done(tb, out);
}

/* ---- text: the configuration ---- */

static void print_links(FILE *out, const struct model_config *c)
{
	if (c->intra_kind == MODEL_LINK_NONE)
		fprintf(out, "links: one GPU per server");
	else
		fprintf(out, "links: %s %.0f GB/s%s", model_link_name(c->intra_kind), c->intra_gbps,
			c->intra_nvls ? " NVLS" : "");
	if (c->gpus > c->gpus_per_node)
		fprintf(out, ", %.1f GB/s per GPU across servers", c->inter_gbps_per_gpu);
	fputc('\n', out);
}

static void print_layout(FILE *out, const struct model_config *c)
{
	char cp[32] = "", ep[32] = "", z[64] = "";
	if (c->task == MODEL_TASK_INFER) {
		fprintf(out,
			"layout: tp %d pp %d dp %d, %s compute, %s weights, KV cache %s, engine %s%s\n"
			"        batch %d, prompt %d tokens, output %d tokens\n",
			c->tp, c->pp, c->dp, model_precision_name(c->precision),
			model_precision_name(c->weight_precision >= 0 ? (enum model_precision)c->weight_precision :
									c->precision),
			model_precision_name(c->kv_precision), model_engine_name(c->engine),
			c->cuda_graphs ? ", CUDA Graphs" : "", c->batch, c->prompt_len, c->output_len);
		return;
	}
	if (c->cp > 1)
		snprintf(cp, sizeof(cp), " cp %d", c->cp);
	if (c->ep > 1)
		snprintf(ep, sizeof(ep), " ep %d", c->ep);
	if (c->zero >= 3 && (c->hsdp > 0 || !c->reshard_after_forward || c->zero3_impl != MODEL_ZERO3_FSDP))
		snprintf(z, sizeof(z), "%s%s%s%.0d%s", c->zero3_impl != MODEL_ZERO3_FSDP ? " " : "",
			 c->zero3_impl != MODEL_ZERO3_FSDP ? model_zero3_impl_name(c->zero3_impl) : "",
			 c->hsdp > 0 ? " hsdp " : "", c->hsdp,
			 c->reshard_after_forward ? "" : " (kept after forward)");
	fprintf(out,
		"layout: tp %d%s pp %d dp %d%s, zero %d%s, %s, micro-batch %d x %d, global batch %d\n"
		"        recompute %s%s, flash attention %s, %s%s%s%s%s\n",
		c->tp, cp, c->pp, c->dp, ep, c->zero, z, model_precision_name(c->precision), c->micro_batch,
		c->seq_len, c->global_batch, model_recompute_name(c->recompute),
		c->seq_parallel ? ", sequence parallel" : "", c->flash ? "on" : "off",
		model_optimizer_name(c->optimizer), c->offload ? ", offload " : "",
		c->offload ? model_offload_name(c->offload) : "",
		c->mlm_head == MODEL_MLM_HEAD_ALL ? ", MLM head on every position" : "",
		c->autocast ? ", autocast" : "");
}

static void print_header(FILE *out, const struct model_answer *a)
{
	const struct model_config *c = a->c;
	char b[FMT_LEN];
	int i;
	fprintf(out, "%s (%s params), %s on %d x %s\n", a->w->name,
		fmt_count(a->w->params, FMT_COUNT_SI, b, sizeof(b)), model_task_name(c->task), c->gpus,
		c->gpu->row.key);
	if (c->mig > 0)
		fprintf(out, "MIG: one %dg instance of the %s (its share of the SMs and memory slices)\n", c->mig,
			c->gpu->row.key);
	print_links(out, c);
	print_layout(out, c);
	if (a->w->kind == WORKLOAD_PER_SAMPLE && a->w->s.input_dims == 3)
		fprintf(out, "        3D convolutions %s%s, cudnn.benchmark %s\n",
			model_channels_last(c) ? "NDHWC (channels_last_3d)" : "NCDHW",
			c->conv3d_legacy ? " on legacy kernels" : "", c->cudnn_benchmark ? "on" : "off");
	for (i = 0; a->notes && i < a->notes->n; i++)
		table_wrap(out, "note: ", a->notes->text[i], 6, 80);
}

/* ---- text: memory and time ---- */

struct term {
	const char *field; /* in the part's schema */
	const char *label;
};

static void print_memory(FILE *out, const struct model_answer *a)
{
	static const struct term terms[] = {
		{"weights_bytes", "weights"},
		{"gradients_bytes", "gradients"},
		{"optimizer_bytes", "optimizer + master weights"},
		{"lora_bytes", "LoRA adapters + optimizer"},
		{"activations_bytes", "activations"},
		{"logits_bytes", "logits and loss"},
		{"kv_cache_bytes", "KV cache"},
		{"buffers_bytes", "buffers and workspaces"},
		{"reserve_bytes", "allocator reserve"},
		{"paged_bytes", "paged optimizer states"},
		{"context_bytes", "CUDA context and NCCL"},
	};
	const struct model_memory *m = &a->r->mem;
	int infer = a->c->task == MODEL_TASK_INFER;
	struct report_row *row = part_row(MODEL_EST_MEMORY, a, NULL);
	struct table *tb = breakdown_new("GiB");
	char b[FMT_LEN], label[64];
	size_t k;

	fprintf(out, "\nmemory per GPU (most loaded)\n");
	for (k = 0; k < sizeof(terms) / sizeof(terms[0]); k++) {
		double v = field_num(row, terms[k].field);
		const char *l = terms[k].label;
		if (!(v > 0))
			continue;
		if (!strcmp(terms[k].field, "weights_bytes") && a->c->task == MODEL_TASK_QLORA)
			l = "weights (4-bit base)";
		if (!strcmp(terms[k].field, "activations_bytes") && !infer && m->microbatches_in_flight > 1) {
			snprintf(label, sizeof(label), "activations (%d micro-batches)",
				 m->microbatches_in_flight);
			l = label;
		}
		term_row(tb, l, fmt_bytes(v, FMT_BYTES_GIB, b, sizeof(b)), v, m->total_bytes, 0);
	}
	report_row_free(row);
	breakdown_done(tb, out, "total", fmt_bytes(m->total_bytes, FMT_BYTES_GIB, b, sizeof(b)));
	fprintf(out, "%s: %.2f of %.2f GiB usable", m->fits ? "fits" : "DOES NOT FIT", m->total_bytes / GIB,
		m->capacity_bytes / GIB);
	if (!infer && a->max_micro_batch > 0)
		fprintf(out, "; largest micro-batch: %d", a->max_micro_batch);
	fprintf(out, "\nGiB as PyTorch counts: allocated %.2f, reserved %.2f; nvidia-smi: %.2f\n",
		m->allocated_bytes / GIB, m->reserved_bytes / GIB, m->total_bytes / GIB);
	if (m->host_bytes > 0) {
		fprintf(out, "offloaded: %.2f GiB per GPU in host memory", m->host_bytes / GIB);
		if (a->host_gib > 0)
			fprintf(out, ", %.0f of %.0f GiB per server%s", m->host_bytes * a->c->gpus_per_node / GIB,
				a->host_gib, model_host_fits(m, a->c, a->host_gib) ? "" : ": DOES NOT FIT");
		fputc('\n', out);
	}
}

static void print_step(FILE *out, const struct model_answer *a)
{
	static const struct term terms[] = {
		{"gemm_s", "matrix multiplies"},
		{"attention_s", "attention"},
		{"memory_bound_s", "memory-bound kernels"},
		{"recompute_s", "recomputed forward"},
		{"tp_comm_s", "tensor-parallel collectives"},
		{"ep_comm_s", "expert all-to-all"},
		{"cp_comm_s", "context-parallel K/V ring"},
		{"pp_bubble_s", "pipeline bubble"},
		{"pp_p2p_s", "pipeline sends"},
		{"dp_comm_s", "gradient sync (exposed)"},
		{"zero_comm_s", "ZeRO-3 gathers (exposed)"},
		{"optimizer_s", "optimizer step"},
		{"offload_s", "offload transfers"},
		{"overhead_s", "kernel launch overhead"},
		{"data_s", "data loading (exposed)"},
	};
	const struct model_time *t = &a->r->time;
	struct report_row *row = part_row(MODEL_EST_TIME, a, NULL);
	struct table *tb = breakdown_new("time");
	char b[FMT_LEN], b2[FMT_LEN];
	size_t k;

	fprintf(out, "\nstep time (one optimizer step, slowest GPU)\n");
	for (k = 0; k < sizeof(terms) / sizeof(terms[0]); k++) {
		double v = field_num(row, terms[k].field);
		if (v > 0)
			term_row(tb, terms[k].label, fmt_duration(v, FMT_DURATION_PRECISE, b, sizeof(b)), v,
				 t->step_s, 1);
	}
	report_row_free(row);
	breakdown_done(tb, out, "step", fmt_duration(t->step_s, FMT_DURATION_PRECISE, b, sizeof(b)));
	if (t->dp_comm_total_s > 0)
		fprintf(out, "data-parallel traffic per step: %s in all, %s exposed\n",
			fmt_duration(t->dp_comm_total_s, FMT_DURATION_PRECISE, b, sizeof(b)),
			fmt_duration(t->dp_comm_s + t->zero_comm_s, FMT_DURATION_PRECISE, b2, sizeof(b2)));
}

/* ---- text: inference, serving, rate ---- */

static void print_inference(FILE *out, const struct model_answer *a)
{
	const struct workload *w = a->w;
	const struct model_infer *in = &a->r->infer;
	struct table *tb = quantities_new();
	char b[FMT_LEN], b2[FMT_LEN];
#define DUR(v) fmt_duration(v, FMT_DURATION_PRECISE, b, sizeof(b))
	fprintf(out, "\ninference\n");
	quantity(tb, is_decoder(w) ? "time to first token (prefill)" : "forward pass of the batch", "%s",
		 DUR(in->prefill_s));
	if (w->kind == WORKLOAD_TRANSFORMER && a->c->output_len > 1) {
		quantity(tb, "time per output token", "%s", DUR(in->decode_token_s));
		quantity(tb, "request latency", "%s", DUR(in->request_s));
		quantity(tb, "weights read per token", "%.2f GiB", in->decode_weights_bytes / GIB);
		quantity(tb, "KV cache read per token", "%.2f GiB", in->decode_kv_bytes / GIB);
	}
	quantity(tb, "kernel launch time per forward", "%s", DUR(in->launch_s));
#undef DUR
	if (a->r->tokens_per_s > 0)
		quantity(tb,
			 is_decoder(w) ? "generated tokens/s (all replicas)" : "tokens processed/s (all replicas)",
			 "%.0f", a->r->tokens_per_s);
	table_row(tb);
	table_cellf(tb, "%s/s (all replicas)", w->sample_unit);
	table_cellf(tb, "%.1f", a->r->samples_per_s);
	if (a->latency_batch >= 0) {
		table_row(tb);
		table_cellf(tb, "batch within %s (dynamic batching)",
			    fmt_duration(a->latency_target_s, FMT_DURATION_PRECISE, b2, sizeof(b2)));
		if (a->latency_batch > 0)
			table_cellf(tb, "%d", a->latency_batch);
		else
			table_cell(tb, "none");
	}
	table_done(tb, out);
}

/* The serving view: how many sequences run together, what bounds it, and the latencies a client sees. */
static void print_serving(FILE *out, const struct model_answer *a)
{
	const struct model_serving *s = a->sv;
	struct table *tb = quantities_new();
	char b[FMT_LEN];
#define DUR(v) fmt_duration(v, FMT_DURATION_PRECISE, b, sizeof(b))
	fprintf(out, "\nserving (%s, %s batching)\n", model_engine_name(a->c->engine),
		strcmp(s->bound, "batch") ? "continuous" : "static");
	quantity(tb, "sequences decoded together", "%d (%s)", s->concurrency, s->bound);
	quantity(tb, "sequences the KV cache holds", "%d", s->kv_limit);
	quantity(tb, "weights per GPU, GiB", "%.2f", s->weights_bytes / GIB);
	quantity(tb, "working memory per GPU, GiB", "%.2f", s->workspace_bytes / GIB);
	quantity(tb, "KV cache per GPU, GiB", "%.2f", s->kv_budget_bytes / GIB);
	quantity(tb, "KV cache per token per GPU, KiB", "%.1f", s->kv_bytes_per_token / 1024);
	quantity(tb, "time to first token", "%s", DUR(s->ttft_s));
	quantity(tb, "time per output token", "%s", DUR(s->tpot_s));
	quantity(tb, "request latency", "%s", DUR(s->request_s));
	quantity(tb, "output tokens/s (all replicas)", "%.0f", s->tokens_per_s);
	quantity(tb, "requests/s (all replicas)", "%.2f", s->requests_per_s);
#undef DUR
	table_done(tb, out);
}

static void print_rate(FILE *out, const struct model_answer *a)
{
	const struct model_queue *q = a->q;
	const struct model_config *c = a->c;
	const char *p99 = is_decoder(a->w) ? "p99 time to first token" : "p99 latency";
	struct table *tb = quantities_new();
	char b[FMT_LEN], t[FMT_LEN];
	int per = c->gpus / c->dp;

	fprintf(out, "\nat %g requests/s\n", q->rate_per_s);
	if (a->replicas_given)
		quantity(tb, "replicas (given)", "%d: %s", q->replicas,
			 q->utilisation < 1 ? "keep up" : "cannot keep up");
	else
		quantity(tb, "replicas needed", "%d x %d GPU%s", q->replicas, per, per == 1 ? "" : "s");
	quantity(tb, "capacity, requests/s", "%.4g", q->capacity_per_s);
	quantity(tb, "utilisation", "%.0f%%", 100 * q->utilisation);
	quantity(tb, "p99 wait for a free slot", "%s",
		 fmt_duration(q->wait_p99_s, FMT_DURATION_PRECISE, b, sizeof(b)));
	fmt_duration(q->ttft_p99_s, FMT_DURATION_PRECISE, b, sizeof(b));
	if (a->ttft_target_s > 0)
		quantity(tb, p99, "%s (target %s%s)", b,
			 fmt_duration(a->ttft_target_s, FMT_DURATION_PRECISE, t, sizeof(t)),
			 q->ttft_p99_s <= a->ttft_target_s ? "" : ", MISSED");
	else
		quantity(tb, p99, "%s", b);
	table_done(tb, out);
}

/* --arrivals: the simulated run's latencies at p50/p90/p99, throughput, goodput and occupancy. */
static void print_simulation(FILE *out, const struct model_answer *a)
{
	const struct servesim_result *r = a->sim;
	struct table *tb = quantities_new();
	char b1[FMT_LEN], b2[FMT_LEN], b3[FMT_LEN];
#define DUR(v, b) fmt_duration(v, FMT_DURATION_PRECISE, b, sizeof(b))
#define DIST(label, d) quantity(tb, label, "%s / %s / %s", DUR((d).p50, b1), DUR((d).p90, b2), DUR((d).p99, b3))
	fprintf(out,
		"\nsimulated: %d requests, %s (%s %s: max %d sequences, %d tokens an iteration, chunked prefill %s)\n",
		r->requests, a->arrivals, a->sched->engine, a->sched->version, a->sched->max_seqs,
		a->sched->max_batched_tokens, a->sched->chunked_prefill ? "on" : "off");
	DIST("time to first token p50/p90/p99", r->ttft);
	DIST("time per output token p50/p90/p99", r->tpot);
	DIST("request latency p50/p90/p99", r->e2e);
	quantity(tb, "output tokens/s (one replica)", "%.0f", r->tokens_per_s);
	quantity(tb, "requests/s (one replica)", "%.3g", r->requests_per_s);
	if (a->ttft_target_s > 0 || a->tpot_target_s > 0)
		quantity(tb, "goodput (meet the targets)", "%.1f%% (%.3g requests/s)", 100 * r->goodput,
			 r->goodput_per_s);
	quantity(tb, "running sequences mean / max", "%.1f / %d", r->batch_mean, r->batch_max);
	quantity(tb, "waiting requests mean / max", "%.1f / %d", r->queue_mean, r->queue_max);
	quantity(tb, "KV cache in use mean / max", "%.0f%% / %.0f%%", 100 * r->kv_use_mean, 100 * r->kv_use_max);
	quantity(tb, "iterations, preemptions", "%ld, %ld", r->iterations, r->preemptions);
	quantity(tb, "makespan", "%s", DUR(r->makespan_s, b1));
#undef DIST
#undef DUR
	table_done(tb, out);
}

/* ---- text: throughput and advice ---- */

/* "compute, memory bandwidth": the limit keys in words. */
static void limit_words(unsigned limits, struct strbuf *sb)
{
	const char *key;
	size_t i, start;
	for (i = 0; (key = model_limit_key(i)); i++) {
		if (!(limits & (1u << i)))
			continue;
		if (sb->len)
			strbuf_addstr(sb, ", ");
		start = sb->len;
		strbuf_addstr(sb, key);
		for (; start < sb->len; start++)
			if (sb->buf[start] == '_')
				sb->buf[start] = ' ';
	}
}

static void print_throughput(FILE *out, const struct model_answer *a)
{
	const struct model_result *r = a->r;
	const struct model_config *c = a->c;
	struct table *tb = quantities_new();
	struct strbuf sb = STRBUF_INIT;
	char b[FMT_LEN];

	fprintf(out, "\nthroughput\n");
	if (c->task != MODEL_TASK_INFER) {
		if (r->tokens_per_s > 0)
			quantity(tb, "tokens/s", "%.0f", r->tokens_per_s);
		table_row(tb);
		table_cellf(tb, "%s/s", a->w->sample_unit);
		table_cellf(tb, "%.1f", r->samples_per_s);
	}
	quantity(tb, "MFU", "%.1f%%", 100 * r->mfu);
	quantity(tb, "model TFLOP/s per GPU", "%.1f", r->mfu_tflops_per_gpu);
	quantity(tb, "hardware TFLOP/s per GPU (HFU)", "%.1f of %.0f", r->hfu_tflops_per_gpu, r->peak_tflops);
	if (r->time_to_train_s > 0)
		quantity(tb, "time to train", "%s (%.0f step%s)",
			 fmt_duration(r->time_to_train_s, FMT_DURATION_TEXT, b, sizeof(b)), r->train_steps,
			 r->train_steps == 1 ? "" : "s");
	quantity(tb, r->time_to_train_s > 0 ? "energy (GPUs), kWh" : "energy per hour (GPUs), kWh", "%.1f",
		 r->energy_kwh);
	quantity(tb, "average power per GPU, W", "%.0f", r->power_w);
	if (r->data_cores_needed > 0 && c->cpu_cores_per_gpu > 0)
		quantity(tb, "CPU cores per GPU to feed it", "%.1f of %.1f", r->data_cores_needed,
			 c->cpu_cores_per_gpu);
	else if (r->data_cores_needed > 0)
		quantity(tb, "CPU cores per GPU to feed it", "%.1f", r->data_cores_needed);
	limit_words(r->limits, &sb);
	quantity(tb, "bounded by", "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	table_done(tb, out);
}

static void print_advice(FILE *out, const char *title, const struct model_advice *adv, size_t n, int infer)
{
	struct table *tb;
	size_t i;
	char b[FMT_LEN];
	if (!n)
		return;
	fprintf(out, "\n%s\n", title);
	tb = table_new();
	table_column(tb, "change", ALIGN_LEFT);
	table_column(tb, "flags", ALIGN_LEFT);
	table_column(tb, infer ? "latency" : "step", ALIGN_RIGHT);
	table_column(tb, "speed", ALIGN_RIGHT);
	table_column(tb, "GiB", ALIGN_RIGHT);
	for (i = 0; i < n; i++) {
		table_row(tb);
		table_cell(tb, adv[i].what);
		table_cell(tb, adv[i].flags);
		table_cell(tb, fmt_duration(adv[i].step_s, FMT_DURATION_PRECISE, b, sizeof(b)));
		table_cellf(tb, "x%.2f", adv[i].speedup);
		table_cell(tb, fmt_bytes(adv[i].total_bytes, FMT_BYTES_GIB, b, sizeof(b)));
	}
	table_done(tb, out);
}

void view_estimate_print(FILE *out, const struct model_answer *a)
{
	int infer = a->c->task == MODEL_TASK_INFER;
	print_header(out, a);
	if (a->sv) {
		print_serving(out, a);
	} else {
		print_memory(out, a);
		if (infer)
			print_inference(out, a);
		else
			print_step(out, a);
	}
	if (a->q)
		print_rate(out, a);
	if (a->sim && a->sched)
		print_simulation(out, a);
	print_throughput(out, a);
	print_advice(out, "to make it fit (cheapest first)", a->fix, a->nfix, infer);
	print_advice(out, "worth turning on", a->rec, a->nrec, infer);
	view_calibration_print(out, model_calibration_of(a->c->gpu));
}

/* ---- presets ---- */

void view_estimate_presets(FILE *out)
{
	size_t n, i;
	const char *const *names = workload_preset_names(&n);
	struct table *tb = table_new();
	char b[FMT_LEN];
	table_column(tb, "model", ALIGN_LEFT);
	table_column(tb, "kind", ALIGN_LEFT);
	table_column(tb, "params", ALIGN_RIGHT);
	table_column(tb, "shape", ALIGN_LEFT);
	table_column(tb, "unit", ALIGN_LEFT);
	for (i = 0; i < n; i++) {
		struct workload w;
		struct diag err;
		diag_clear(&err);
		if (workload_preset(&w, names[i], &err))
			continue;
		table_row(tb);
		table_cell(tb, w.name);
		table_cell(tb, w.kind == WORKLOAD_TRANSFORMER ? (w.d.experts > 1 ? "moe" :
								 w.d.causal      ? "decoder" :
										   "encoder") :
								"per-sample");
		table_cell(tb, fmt_count(w.params, FMT_COUNT_SI, b, sizeof(b)));
		if (w.kind == WORKLOAD_TRANSFORMER)
			table_cellf(tb, "L%d h%d a%d/%d f%d s%d", w.d.layers, w.d.hidden, w.d.heads, w.d.kv_heads,
				    w.d.ffn_hidden, w.d.seq_len);
		else
			table_cellf(tb, "%.3g GFLOP/sample", w.s.fwd_flops / 1e9);
		table_cell(tb, w.sample_unit);
	}
	table_done(tb, out);
}

/* ---- HTML report ---- */

/* TTFT and TPOT, p50 and p99, against the offered rate (log time: the two differ by 100x). */
static struct svg_chart *chart_load(const struct servesim_point *pts, int n)
{
	struct svg_chart *c = svg_chart_new(SVG_LINE, "latency-against-load", "Latency against load, one replica");
	int s[4], i;
	svg_chart_size(c, 820, 460);
	svg_axis(c, 'x', "offered rate", "requests/s", SVG_SCALE_LINEAR);
	svg_axis(c, 'y', "latency", "s", SVG_SCALE_LOG);
	s[0] = svg_series(c, "TTFT p50");
	s[1] = svg_series(c, "TTFT p99");
	s[2] = svg_series(c, "TPOT p50");
	s[3] = svg_series(c, "TPOT p99");
	for (i = 0; i < n; i++) {
		const double v[4] = {pts[i].ttft.p50, pts[i].ttft.p99, pts[i].tpot.p50, pts[i].tpot.p99};
		int k;
		for (k = 0; k < 4; k++)
			if (v[k] > 0)
				svg_point(c, s[k], pts[i].rate_per_s, v[k], pts[i].saturated ? "saturated" : NULL,
					  0);
	}
	return c;
}

int view_estimate_report(const struct model_answer *a, const struct servesim_point *pts, int n, const char *path,
			 struct diag *err)
{
	static const char *const head[] = {"requests/s", "TTFT p50", "TTFT p99",
					   "TPOT p50",   "TPOT p99", "output tokens/s"};
	struct strbuf sb = STRBUF_INIT;
	struct html_doc *d;
	struct svg_chart *c;
	char b[6][FMT_LEN];
	int i, rc;
	strbuf_addf(&sb, "gpuscope estimate: %s on %s, served by %s %s", a->w->name, a->c->gpu->row.key,
		    a->sched->engine, a->sched->version);
	d = html_new(strbuf_str(&sb));
	html_heading(d, 1, strbuf_str(&sb));
	strbuf_reset(&sb);
	strbuf_addf(&sb,
		    "One replica of %d GPU%s, %d prompt and %d output tokens (means). Simulated: %d requests, %s: "
		    "TTFT p50 %s, p99 %s; TPOT p50 %s; %s output tokens/s.",
		    a->c->gpus, a->c->gpus == 1 ? "" : "s", a->c->prompt_len, a->c->output_len, a->sim->requests,
		    a->arrivals, fmt_duration(a->sim->ttft.p50, FMT_DURATION_TEXT, b[0], sizeof(b[0])),
		    fmt_duration(a->sim->ttft.p99, FMT_DURATION_TEXT, b[1], sizeof(b[1])),
		    fmt_duration(a->sim->tpot.p50, FMT_DURATION_TEXT, b[2], sizeof(b[2])),
		    fmt_count(a->sim->tokens_per_s, FMT_COUNT_GROUPED, b[3], sizeof(b[3])));
	html_paragraph(d, strbuf_str(&sb));
	html_heading(d, 2, "Latency against load");
	html_paragraph(d,
		       "Poisson arrivals at rates up to what the replica sustains full (a burst of the same "
		       "requests), each simulated request by request (docs/model.md, \"Serving simulation\"). "
		       "Past the knee the queue grows and the TTFT with it; points marked saturated were "
		       "still queueing at the end of the run.");
	c = chart_load(pts, n);
	rc = html_chart(d, c, err);
	svg_chart_free(c);
	html_table_begin(d, "load-points", "The simulated points");
	html_table_head(d, head, 6);
	for (i = 0; i < n && !rc; i++) {
		const char *cells[6];
		snprintf(b[0], sizeof(b[0]), "%.3g%s", pts[i].rate_per_s, pts[i].saturated ? " (saturated)" : "");
		cells[0] = b[0];
		cells[1] = fmt_duration(pts[i].ttft.p50, FMT_DURATION_TEXT, b[1], sizeof(b[1]));
		cells[2] = fmt_duration(pts[i].ttft.p99, FMT_DURATION_TEXT, b[2], sizeof(b[2]));
		cells[3] = fmt_duration(pts[i].tpot.p50, FMT_DURATION_TEXT, b[3], sizeof(b[3]));
		cells[4] = fmt_duration(pts[i].tpot.p99, FMT_DURATION_TEXT, b[4], sizeof(b[4]));
		cells[5] = fmt_count(pts[i].tokens_per_s, FMT_COUNT_GROUPED, b[5], sizeof(b[5]));
		html_table_row(d, cells, 6);
	}
	html_table_end(d);
	if (!rc)
		rc = html_write_file(d, path, err);
	html_free(d);
	strbuf_release(&sb);
	return rc;
}
