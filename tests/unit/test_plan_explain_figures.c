/*
 * The "Why #1" text of `plan` says what its numbers say: every figure it
 * prints with a unit (money, time, bytes, power, energy, GB/s, %, ratios,
 * rates, TB, engineers, runs) is, within the rounding it was printed with,
 * a value of the field tables the JSON is written from: the first choice's
 * fields and bill, the explanation's, the alternative's or optimisation's
 * its line is about, the request's, or a figure the sentence derives from
 * those (a limit less the headroom, a ratio of two capexes, a share of the
 * run).  A figure printed as 0 of a quantity that is not 0 fails, as a
 * "0 kW" server would.  Presets: a fine-tune, a pretraining run over
 * several nodes, LoRA, a decoder and an encoder served, and speech
 * recognition trained and served.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "model/model.h"
#include "plan/fields.h"
#include "plan/plan_int.h"
#include "report/fmt.h"
#include "util/strbuf.h"
#include "view/plan.h"

#define YEAR_S (365.25 * 86400)

enum dim {
	D_USD,
	D_S,
	D_BYTES,
	D_GBPS,
	D_W,
	D_WH,
	D_PCT,
	D_RATIO,
	D_RATE,
	D_TB,
	D_ENGINEERS,
	D_RUNS,
	D_COUNT
};
static const char *const dim_names[] = {"USD", "s", "bytes", "GB/s", "W",         "Wh",
					"%",   "x", "/s",    "TB",   "engineers", "runs"};

struct value {
	enum dim dim;
	double v;
	const char *name;
};

struct pool {
	struct value v[4096];
	size_t n;
};

static struct catalog *cat;

static int setup(void **state)
{
	struct diag err;
	(void)state;
	diag_clear(&err);
	if (catalog_load(&cat, NULL, &err)) {
		fprintf(stderr, "catalog: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	catalog_free(cat);
	return 0;
}

static void add(struct pool *pl, enum dim d, double v, const char *name)
{
	if (!isfinite(v) || pl->n >= sizeof(pl->v) / sizeof(pl->v[0]))
		return;
	pl->v[pl->n].dim = d;
	pl->v[pl->n].v = v;
	pl->v[pl->n].name = name;
	pl->n++;
}

/* Every number of a field-table row, in the dimension its unit names. */
static void add_row(struct pool *pl, const struct report_row *row)
{
	const struct report_schema *s = report_row_schema(row);
	size_t i;
	for (i = 0; i < s->nfields; i++) {
		const struct report_field *f = &s->fields[i];
		const char *u = f->unit;
		double v;
		if (f->type != REPORT_NUM)
			continue;
		v = report_num(row, i);
		if (!u) {
			if (!strcmp(f->name, "ratio_time") || !strcmp(f->name, "ratio_cost") ||
			    !strcmp(f->name, "speedup"))
				add(pl, D_RATIO, v, f->name);
			else if (!strcmp(f->name, "breakeven_jobs_per_year"))
				add(pl, D_RUNS, v, f->name);
		} else if (!strcmp(u, "s")) {
			add(pl, D_S, v, f->name);
		} else if (!strcmp(u, "h")) {
			add(pl, D_S, 3600 * v, f->name);
		} else if (!strcmp(u, "years")) {
			add(pl, D_S, YEAR_S * v, f->name);
		} else if (!strcmp(u, "bytes")) {
			add(pl, D_BYTES, v, f->name);
		} else if (!strncmp(u, "USD", 3)) {
			add(pl, D_USD, v, f->name);
		} else if (!strcmp(u, "GB/s")) {
			add(pl, D_GBPS, v, f->name);
		} else if (!strcmp(u, "W")) {
			add(pl, D_W, v, f->name);
		} else if (!strcmp(u, "kW")) {
			add(pl, D_W, 1000 * v, f->name);
		} else if (!strcmp(u, "kWh")) {
			add(pl, D_WH, 1000 * v, f->name);
		} else if (!strcmp(u, "%")) {
			add(pl, D_PCT, v, f->name);
		} else if (!strcmp(u, "fraction")) {
			add(pl, D_PCT, 100 * v, f->name);
		} else if (!strcmp(u, "requests/s") || !strcmp(u, "tokens/s") || !strcmp(u, "samples/s")) {
			add(pl, D_RATE, v, f->name);
		} else if (!strcmp(u, "engineers")) {
			add(pl, D_ENGINEERS, v, f->name);
		}
	}
}

/* A choice's fields and, owned, its bill (the JSON's "bom"). */
static void add_choice(struct pool *pl, const struct plan *p, const struct plan_choice *c)
{
	struct report_row *row = report_row_new(plan_choice_schema());
	const struct bom *b = &c->bom;
	plan_choice_row(p, c, row);
	add_row(pl, row);
	report_row_free(row);
	if (!c->has_bom)
		return;
	add(pl, D_USD, b->server_usd, "bom.servers.usd");
	add(pl, D_USD, b->fabric_usd, "bom.fabric.usd");
	add(pl, D_USD, b->switch_usd, "bom.switch_usd");
	add(pl, D_USD, b->storage_usd, "bom.storage.usd");
	add(pl, D_USD, b->cooling_usd, "bom.cooling.usd");
	add(pl, D_USD, b->frontend.usd, "bom.frontend.usd");
	add(pl, D_USD, b->oob_usd, "bom.management.usd");
	add(pl, D_USD, b->pdu_usd, "bom.power_distribution.usd");
	add(pl, D_USD, b->install_usd, "bom.installation.usd");
	add(pl, D_W, 1000 * b->rack_kw, "bom.rack_kw");
	add(pl, D_W, 1000 * b->pdu_kw, "bom.power_distribution.kw");
	add(pl, D_W, 1000 * b->it_kw, "bom.it_kw");
	add(pl, D_W, 1000 * b->power_kw, "bom.power_kw");
	add(pl, D_TB, b->storage_tb, "bom.storage.tb");
}

/* What every line may print: the first choice, the explanation, the request, and what they derive. */
static void add_common(struct pool *pl, const struct plan *p, const struct plan_choice *c,
		       const struct plan_explanation *ex)
{
	struct report_row *row = report_row_new(plan_explanation_schema());
	double cap = c->res.mem.capacity_bytes;
	add_choice(pl, p, c);
	plan_explanation_row(ex, row);
	add_row(pl, row);
	report_row_free(row);
	row = report_row_new(plan_request_schema());
	plan_request_row(p, row);
	add_row(pl, row);
	report_row_free(row);
	/* derived: the memory a layout may take, the ring's and the run's shares, host memory a server */
	add(pl, D_BYTES, cap * (1 - plan_memory_headroom_pct(p) / 100), "capacity less the headroom");
	add(pl, D_PCT, 100 * c->res.time.cp_comm_s / c->res.time.step_s, "cp_comm_s / step_s");
	add(pl, D_PCT, 100 * c->gp.ckpt_hours / c->hours, "checkpoint_hours / hours");
	add(pl, D_PCT, 100 * c->gp.fail_hours / c->hours, "interruption_hours / hours");
	add(pl, D_BYTES, c->res.mem.host_bytes * p->hw[c->hw].gpus_per_node, "host memory a server");
	add(pl, D_S, YEAR_S * ex->rent.years, "rent.years");
}

/* A note's own fields and what its sentence derives from them against the first choice. */
static void add_note(struct pool *pl, const struct plan_choice *c, const struct plan_note *n)
{
	struct report_row *row = report_row_new(plan_alternative_schema());
	plan_alternative_row(n, row);
	add_row(pl, row);
	report_row_free(row);
	if (c->has_bom) {
		add(pl, D_RATIO, n->capex_usd / c->bom.capex_usd, "capex_usd / first capex");
		add(pl, D_USD, fabs(n->capex_usd - c->bom.capex_usd), "capex difference");
	}
	add(pl, D_RATIO, 1 / n->ratio_time, "1 / ratio_time (speed)");
	add(pl, D_PCT, 100 * (1 - n->ratio_time), "1 - ratio_time (gain)");
}

struct figure {
	enum dim dim;
	double v;   /* in the dimension's base unit */
	double tol; /* half the last printed digit, in the base unit */
	char text[48];
};

static int word_is(const char *w, size_t n, const char *unit)
{
	return strlen(unit) == n && !strncmp(w, unit, n);
}

/*
 * The figure starting at s[*i] (a digit, or '$' before one), its unit read
 * after it; returns 0 (and moves *i past the number) when the number has no
 * unit this test knows.
 */
static int read_figure(const char *s, size_t *i, struct figure *f)
{
	size_t j = *i, start = *i, w0, wn;
	int money = 0, decimals = 0, seen_dot = 0;
	double v = 0, mul = 1, frac = 0.1;
	if (s[j] == '$') {
		money = 1;
		j++;
	}
	for (; isdigit((unsigned char)s[j]) || (s[j] == ',' && isdigit((unsigned char)s[j + 1])) ||
	       (s[j] == '.' && !seen_dot && isdigit((unsigned char)s[j + 1]));
	     j++) {
		if (s[j] == ',')
			continue;
		if (s[j] == '.') {
			seen_dot = 1;
			continue;
		}
		if (seen_dot) {
			v += (s[j] - '0') * frac;
			frac /= 10;
			decimals++;
		} else {
			v = 10 * v + (s[j] - '0');
		}
	}
	*i = j;
	/* an SI letter attached to the number, before a space or a stop */
	if (strchr("kMGT", s[j]) && s[j] && !isalpha((unsigned char)s[j + 1]) && s[j + 1] != '%') {
		mul = s[j] == 'k' ? 1e3 : s[j] == 'M' ? 1e6 : s[j] == 'G' ? 1e9 : 1e12;
		j++;
	}
	f->v = v * mul;
	f->tol = 0.5 * pow(10, -decimals) * mul;
	snprintf(f->text, sizeof(f->text), "%.*s", (int)(j - start + 12 < 40 ? j - start + 12 : 40), s + start);
	if (money) {
		f->dim = D_USD;
		*i = j;
		return 1;
	}
	if (s[j] == '%') {
		f->dim = D_PCT;
		*i = j + 1;
		return 1;
	}
	/* a ratio: "1.21x the time", "1.26x" closing an item; "8x ib-ndr" counts ports */
	if (s[j] == 'x' && (!strncmp(s + j + 1, " the ", 5) || !s[j + 1] || strchr(",;)", s[j + 1]))) {
		f->dim = D_RATIO;
		*i = j + 1;
		return 1;
	}
	if (s[j] == '-' && !strncmp(s + j, "-year", 5)) {
		f->dim = D_S;
		f->v *= YEAR_S;
		f->tol *= YEAR_S;
		*i = j + 5;
		return 1;
	}
	w0 = j;
	if (s[w0] == ' ')
		w0++;
	for (wn = 0; isalpha((unsigned char)s[w0 + wn]) || s[w0 + wn] == '/'; wn++)
		;
	/* "s" after "GB/" or "requests/" is part of the word; a word ends before a stop */
	{
		static const struct {
			const char *unit;
			enum dim dim;
			double factor;
			int attached; /* only right after the number: "6.7h", "38m" */
		} units[] = {
			{"us", D_S, 1e-6, 0},
			{"ms", D_S, 1e-3, 0},
			{"s", D_S, 1, 0},
			{"min", D_S, 60, 0},
			{"m", D_S, 60, 1},
			{"h", D_S, 3600, 0},
			{"hours", D_S, 3600, 0},
			{"d", D_S, 86400, 0},
			{"years", D_S, YEAR_S, 0},
			{"year", D_S, YEAR_S, 0},
			{"y", D_S, YEAR_S, 1},
			{"B", D_BYTES, 1, 0},
			{"KiB", D_BYTES, 1024, 0},
			{"MiB", D_BYTES, 1048576, 0},
			{"GiB", D_BYTES, 1073741824.0, 0},
			{"TiB", D_BYTES, 1099511627776.0, 0},
			{"GB/s", D_GBPS, 1, 0},
			{"W", D_W, 1, 0},
			{"kW", D_W, 1e3, 0},
			{"MW", D_W, 1e6, 0},
			{"GW", D_W, 1e9, 0},
			{"Wh", D_WH, 1, 0},
			{"kWh", D_WH, 1e3, 0},
			{"MWh", D_WH, 1e6, 0},
			{"GWh", D_WH, 1e9, 0},
			{"requests/s", D_RATE, 1, 0},
			{"tokens/s", D_RATE, 1, 0},
			{"TB", D_TB, 1, 0},
			{"engineers", D_ENGINEERS, 1, 0},
			{"runs", D_RUNS, 1, 0},
		};
		size_t k;
		for (k = 0; k < sizeof(units) / sizeof(units[0]); k++) {
			if (!word_is(s + w0, wn, units[k].unit) || (units[k].attached && w0 != j))
				continue;
			f->dim = units[k].dim;
			f->v *= units[k].factor;
			f->tol *= units[k].factor;
			*i = w0 + wn;
			return 1;
		}
	}
	return 0;
}

/* Whether some value of the pool reads as f, within f's rounding (and 0 only for 0). */
static const struct value *match(const struct pool *pl, const struct figure *f)
{
	size_t k;
	for (k = 0; k < pl->n; k++) {
		const struct value *x = &pl->v[k];
		if (x->dim != f->dim)
			continue;
		if (f->v == 0 && f->dim != D_PCT) {
			if (fabs(x->v) < 1e-12)
				return x;
			continue;
		}
		if (fabs(x->v - f->v) <= f->tol * (1 + 1e-9) + 1e-12 * fabs(f->v))
			return x;
	}
	return NULL;
}

/* Checks every figure of one paragraph against pl; returns how many it checked. */
static size_t check_paragraph(const char *preset, const char *para, const struct pool *pl)
{
	size_t i = 0, checked = 0;
	while (para[i]) {
		char prev = i ? para[i - 1] : ' ';
		int starts = (para[i] == '$' && isdigit((unsigned char)para[i + 1]) && prev != '<') ||
			     (isdigit((unsigned char)para[i]) && strchr(" (", prev));
		struct figure f;
		if (!starts) {
			i++;
			continue;
		}
		if (!read_figure(para, &i, &f))
			continue;
		checked++;
		if (!match(pl, &f))
			fail_msg("%s: \"%s\" (%g %s) is no value of the fields the line names\n  in: %s", preset,
				 f.text, f.v, dim_names[f.dim], para);
	}
	return checked;
}

/* The "Why #1" block as paragraphs: each label's or list item's wrapped lines joined. */
static size_t paragraphs(const char *out, char ***list)
{
	const char *why = strstr(out, "\nWhy #1");
	struct strbuf cur = STRBUF_INIT;
	size_t n = 0;
	const char *line, *end;
	*list = NULL;
	assert_non_null(why);
	for (line = strchr(why + 1, '\n') + 1; *line; line = end + (*end == '\n')) {
		size_t len;
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		len = (size_t)(end - line);
		/* a new paragraph: a label at column 2 or a list item; else a continuation */
		if (len > 3 && line[0] == ' ' && line[1] == ' ' && line[2] != ' ') {
			if (cur.len) {
				*list = realloc(*list, (n + 1) * sizeof(**list));
				(*list)[n++] = strbuf_detach(&cur, NULL);
			}
			strbuf_add(&cur, line + 2, len - 2);
		} else if (len && line[0] != ' ') {
			/* a heading: Alternatives, Optimisations to turn on */
			if (cur.len) {
				*list = realloc(*list, (n + 1) * sizeof(**list));
				(*list)[n++] = strbuf_detach(&cur, NULL);
			}
			strbuf_add(&cur, line, len);
		} else {
			size_t k = 0;
			while (k < len && line[k] == ' ')
				k++;
			strbuf_addch(&cur, ' ');
			strbuf_add(&cur, line + k, len - k);
		}
	}
	if (cur.len) {
		*list = realloc(*list, (n + 1) * sizeof(**list));
		(*list)[n++] = strbuf_detach(&cur, NULL);
	}
	strbuf_release(&cur);
	return n;
}

struct preset {
	const char *name, *model;
	enum model_task task;
	enum plan_objective objective;
	int max_gpus;
	double tokens, rate;
	const char *gpus[4];
	size_t min_checked; /* figures the text must hold, so the test cannot pass on an empty text */
};

static const struct preset presets[] = {
	{"fine-tune",
	 "llama2-7b",
	 MODEL_TASK_FINETUNE,
	 PLAN_OBJ_COST,
	 16,
	 0,
	 0,
	 {"h100-sxm5-80gb", "a100-sxm4-80gb", "l40s-48gb", NULL},
	 40},
	{"pretrain multi-node",
	 "llama3-70b",
	 MODEL_TASK_PRETRAIN,
	 PLAN_OBJ_TIME,
	 64,
	 1e11,
	 0,
	 {"h100-sxm5-80gb", "a100-sxm4-80gb", NULL, NULL},
	 40},
	{"lora",
	 "llama2-7b",
	 MODEL_TASK_LORA,
	 PLAN_OBJ_COST,
	 8,
	 0,
	 0,
	 {"h100-sxm5-80gb", "a100-sxm4-80gb", "l40s-48gb", NULL},
	 30},
	{"infer LLM",
	 "llama3-8b",
	 MODEL_TASK_INFER,
	 PLAN_OBJ_COST,
	 16,
	 0,
	 30,
	 {"h100-nvl-94gb", "a100-sxm4-80gb", "l40s-48gb", NULL},
	 25},
	{"infer BERT",
	 "bert-large",
	 MODEL_TASK_INFER,
	 PLAN_OBJ_COST,
	 8,
	 0,
	 100,
	 {"h100-pcie-80gb", "l40s-48gb", NULL, NULL},
	 20},
	{"ASR train",
	 "asr",
	 MODEL_TASK_FINETUNE,
	 PLAN_OBJ_COST,
	 8,
	 0,
	 0,
	 {"h100-nvl-94gb", "l40s-48gb", NULL, NULL},
	 25},
	{"ASR infer",
	 "asr",
	 MODEL_TASK_INFER,
	 PLAN_OBJ_COST,
	 8,
	 0,
	 0,
	 {"a100-pcie-40gb", "l40s-48gb", NULL, NULL},
	 20},
};

static void check_preset(const struct preset *ps)
{
	struct workload w;
	struct plan_request req;
	const struct cat_gpu *gpus[4];
	struct plan_explanation ex;
	struct plan *p;
	struct diag err;
	const struct plan_choice *c;
	char *out = NULL, **para;
	size_t len = 0, n, i, alt = 0, adv = 0, checked = 0, ng = 0;
	FILE *f;

	diag_clear(&err);
	if (workload_preset(&w, ps->model, &err))
		fail_msg("preset %s: %s", ps->model, err.msg);
	memset(&req, 0, sizeof(req));
	req.w = &w;
	model_config_defaults(&req.base);
	req.base.task = ps->task;
	if (ps->tokens > 0)
		req.base.train_tokens = ps->tokens;
	req.rate_per_s = ps->rate;
	req.objective = ps->objective;
	req.max_gpus = ps->max_gpus;
	req.threads = 2;
	for (ng = 0; ng < 4 && ps->gpus[ng]; ng++) {
		gpus[ng] = catalog_get(cat, CAT_GPUS, ps->gpus[ng]);
		assert_non_null(gpus[ng]);
	}
	req.gpus = gpus;
	req.ngpus = ng;
	if (plan_run(&p, cat, &req, &err))
		fail_msg("%s: plan_run: %s", ps->name, err.msg);
	assert_true(plan_nranked(p) > 0);
	c = plan_ranked(p, 0);
	assert_int_equal(plan_explain(p, c, &ex), 0);
	if (!strcmp(ps->name, "pretrain multi-node"))
		assert_true(c->nodes > 1);

	f = open_memstream(&out, &len);
	view_plan_print(f, p, &ex, NULL);
	fclose(f);
	n = paragraphs(out, &para);
	for (i = 0; i < n; i++) {
		struct pool *pl = calloc(1, sizeof(*pl));
		const char *t = para[i];
		add_common(pl, p, c, &ex);
		if (!strncmp(t, "check it", 8) || !strcmp(t, "Alternatives") ||
		    !strcmp(t, "Optimisations to turn on")) {
			if (!strcmp(t, "Optimisations to turn on"))
				alt = ex.nalt; /* the list items that follow are the advice */
			free(pl);
			continue;
		}
		if (!strncmp(t, "size ", 5)) {
			/* the fewest GPUs that fit and the fastest count: choices on the same hardware */
			size_t k, nall;
			const struct plan_choice *all = plan_all(p, &nall);
			for (k = 0; k < nall; k++)
				if (all[k].hw == c->hw && all[k].fits)
					add_choice(pl, p, &all[k]);
		}
		if (!strncmp(t, "- ", 2)) {
			if (alt < ex.nalt) {
				add_note(pl, c, &ex.alt[alt++]);
			} else {
				struct report_row *row = report_row_new(plan_optimisation_schema());
				assert_true(adv < ex.nadvice);
				plan_optimisation_row(&ex.advice[adv++], row);
				add_row(pl, row);
				report_row_free(row);
			}
		}
		checked += check_paragraph(ps->name, t, pl);
		free(pl);
	}
	if (checked < ps->min_checked)
		fail_msg("%s: only %zu figures checked in:\n%s", ps->name, checked, strstr(out, "\nWhy #1"));
	print_message("%s: %zu figures checked\n", ps->name, checked);
	for (i = 0; i < n; i++)
		free(para[i]);
	free(para);
	free(out);
	plan_explanation_release(&ex);
	plan_free(p);
}

static void test_fine_tune(void **state)
{
	(void)state;
	check_preset(&presets[0]);
}

static void test_pretrain_nodes(void **state)
{
	(void)state;
	check_preset(&presets[1]);
}

static void test_lora(void **state)
{
	(void)state;
	check_preset(&presets[2]);
}

static void test_infer_llm(void **state)
{
	(void)state;
	check_preset(&presets[3]);
}

static void test_infer_bert(void **state)
{
	(void)state;
	check_preset(&presets[4]);
}

static void test_asr(void **state)
{
	(void)state;
	check_preset(&presets[5]);
	check_preset(&presets[6]);
}

/* A plan of a preset, searched over its GPUs (the caller frees it and the request's GPU list). */
static struct plan *plan_preset(const struct preset *ps, struct workload *w, struct plan_request *req,
				const struct cat_gpu **gpus, struct diag *err)
{
	struct plan *p = NULL;
	size_t ng;
	diag_clear(err);
	assert_int_equal(workload_preset(w, ps->model, err), 0);
	memset(req, 0, sizeof(*req));
	req->w = w;
	model_config_defaults(&req->base);
	req->base.task = ps->task;
	req->rate_per_s = ps->rate;
	req->objective = ps->objective;
	req->max_gpus = ps->max_gpus;
	req->threads = 2;
	for (ng = 0; ng < 4 && ps->gpus[ng]; ng++)
		gpus[ng] = catalog_get(cat, CAT_GPUS, ps->gpus[ng]);
	req->gpus = gpus;
	req->ngpus = ng;
	if (plan_run(&p, cat, req, err))
		return NULL;
	return p;
}

/* The table's throughput column counts what its heading says: an ASR model's utterances, not its frames. */
static void test_asr_table(void **state)
{
	struct workload w;
	struct plan_request req;
	const struct cat_gpu *gpus[4];
	struct diag err;
	struct plan *p = plan_preset(&presets[5], &w, &req, gpus, &err);
	char *out = NULL, want[FMT_LEN], *head, *row, *at;
	size_t len = 0, col;
	FILE *f;
	(void)state;
	assert_non_null(p);
	f = open_memstream(&out, &len);
	view_plan_print(f, p, NULL, NULL);
	fclose(f);
	at = strstr(out, "utt/s");
	assert_non_null(at);
	for (head = at; head > out && head[-1] != '\n'; head--)
		;
	col = (size_t)(at - head) + 5;            /* right-aligned: the cell ends where the heading does */
	row = strchr(strchr(at, '\n') + 1, '\n'); /* past the rule under the heading */
	assert_non_null(row);
	row++;
	fmt_count(plan_ranked(p, 0)->res.samples_per_s, FMT_COUNT_SI_SHORT, want, sizeof(want));
	assert_true(col >= strlen(want));
	assert_memory_equal(row + col - strlen(want), want, strlen(want));
	assert_true(plan_ranked(p, 0)->res.tokens_per_s > 10 * plan_ranked(p, 0)->res.samples_per_s);
	free(out);
	plan_free(p);
}

/*
 * An encoder served has no time per output token (null, and --tpot-target
 * is refused), and replicas of one GPU each use no network between them.
 */
static void test_encoder_and_replicas(void **state)
{
	struct workload w;
	struct plan_request req;
	const struct cat_gpu *gpus[4];
	struct diag err;
	struct plan *p = plan_preset(&presets[4], &w, &req, gpus, &err);
	struct report_row *row = report_row_new(plan_choice_schema());
	struct plan_explanation ex;
	const struct plan_choice *c;
	char net[64];
	long k;
	(void)state;
	assert_non_null(p);
	c = plan_ranked(p, 0);
	plan_choice_row(p, c, row);
	k = report_field_index(plan_choice_schema(), "tpot_s");
	assert_true(k >= 0 && isnan(report_num(row, (size_t)k)));
	k = report_field_index(plan_choice_schema(), "latency_s");
	assert_true(k >= 0 && report_num(row, (size_t)k) == c->latency_s && c->latency_s > 0);
	assert_int_equal(plan_explain(p, c, &ex), 0);
	assert_null(strstr(ex.sizing, "TPOT"));
	assert_non_null(strstr(ex.sizing, "answers a request in"));
	plan_explanation_release(&ex);
	plan_free(p);

	req.tpot_s = 0.05;
	assert_int_not_equal(plan_run(&p, cat, &req, &err), 0);
	assert_string_equal(err.field, "tpot-target");
	assert_non_null(strstr(err.msg, "no output tokens"));

	/* a decoder at 30 requests/s on one-GPU servers: several replicas, no network between them */
	p = plan_preset(&presets[3], &w, &req, gpus, &err);
	assert_non_null(p);
	c = plan_ranked(p, 0);
	assert_true(c->replicas > 1 && c->cfg.tp * c->cfg.pp <= p->hw[c->hw].gpus_per_node);
	assert_string_equal(plan_network_name(p, c, net, sizeof(net)), "none");
	assert_int_equal(plan_explain(p, c, &ex), 0);
	assert_null(strstr(ex.arch_text, "gradients"));
	assert_non_null(strstr(ex.arch_text, "do not talk to each other"));
	plan_choice_row(p, c, row);
	k = report_field_index(plan_choice_schema(), "tpot_s");
	assert_true(report_num(row, (size_t)k) == c->res.infer.decode_token_s);
	plan_explanation_release(&ex);
	plan_free(p);
	report_row_free(row);
}

/* The checker itself: a figure off by more than its rounding, or 0 of a quantity, fails. */
static void test_checker(void **state)
{
	struct pool pl = {.n = 0};
	size_t i = 0;
	struct figure f;
	(void)state;
	add(&pl, D_W, 129, "power");
	add(&pl, D_USD, 4.73e6, "cost");
	add(&pl, D_S, 8.01, "ttft");
	assert_true(read_figure("0 kW at the wall", &i, &f));
	assert_int_equal(f.dim, D_W);
	assert_null(match(&pl, &f)); /* 129 W is not "0 kW" */
	i = 0;
	assert_true(read_figure("129 W", &i, &f));
	assert_non_null(match(&pl, &f));
	i = 0;
	assert_true(read_figure("$4.73M", &i, &f));
	assert_non_null(match(&pl, &f));
	i = 0;
	assert_true(read_figure("$4.75M", &i, &f));
	assert_null(match(&pl, &f));
	i = 0;
	assert_true(read_figure("8.0 s", &i, &f));
	assert_non_null(match(&pl, &f));
	i = 0;
	assert_true(read_figure("8.1 s", &i, &f));
	assert_null(match(&pl, &f));
	i = 0;
	assert_false(read_figure("8 GPUs", &i, &f));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker),
		cmocka_unit_test(test_fine_tune),
		cmocka_unit_test(test_pretrain_nodes),
		cmocka_unit_test(test_lora),
		cmocka_unit_test(test_infer_llm),
		cmocka_unit_test(test_infer_bert),
		cmocka_unit_test(test_asr),
		cmocka_unit_test(test_asr_table),
		cmocka_unit_test(test_encoder_and_replicas),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
