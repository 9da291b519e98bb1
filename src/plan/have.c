/*
 * Hardware already owned (--have N x SERVER): reading it, and what to add
 * to it for a training run (struct plan_have_answer, docs/plan.md
 * "Hardware already owned").
 *
 * The owned servers cost nothing to buy; each hour of the run they work is
 * charged at their running cost (cost/cost.h tco_keep: power at the wall,
 * space, staff, support) spread over the GPU-hours they work in a year at
 * the plan's utilisation.  Four ways to run the job are weighed: the owned
 * fleet alone; more servers of an owned type, one pool with the owned ones
 * (the search's choice of that many servers); other hardware bought, or
 * instances rented, as a second pool beside the owned one.  Separate pools
 * share the work by throughput: a pool that alone finishes the job in h_i
 * hours does 1/h_i of it an hour, so together they finish in
 * T = 1 / sum(1/h_i) hours, pool i doing T/h_i of the work.  An added
 * pool is charged its own cost for the hours it works, T/h of the cost of
 * running the whole job on it.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_int.h"
#include "report/fmt.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* The most servers of one type a fleet may hold: far above any site. */
#define HAVE_MAX_COUNT 1000000

/* ---- reading "N x SERVER" ---- */

static int have_error(struct diag *err, const char *file, int line, int col, const char *text, const char *msg)
{
	if (file)
		return diag_set(err, file, line, col, "have", "%s", msg);
	return diag_set(err, "", 0, 0, "have", "'%s', column %d: %s", text, col, msg);
}

int plan_have_parse(const struct catalog *cat, const char *text, const char *file, int line, struct plan_have *out,
		    struct diag *err)
{
	const char *s = text, *name, *end;
	char why[512], *key;
	long n = 0;

	memset(out, 0, sizeof(*out));
	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s))
		return have_error(err, file, line, (int)(s - text) + 1, text,
				  "expected a server count, as in '4x dgx-a100'");
	for (; isdigit((unsigned char)*s); s++) {
		n = n * 10 + (*s - '0');
		if (n > HAVE_MAX_COUNT)
			return have_error(err, file, line, (int)(s - text) + 1, text,
					  "more servers than any site holds (at most 1000000)");
	}
	if (n < 1)
		return have_error(err, file, line, (int)(s - text), text, "the count must be at least 1");
	if (*s && *s != ' ' && *s != '\t' && *s != 'x' && *s != 'X')
		return have_error(err, file, line, (int)(s - text) + 1, text,
				  "expected 'x' or a space after the count, as in '4x dgx-a100'");
	while (*s == ' ' || *s == '\t')
		s++;
	if ((*s == 'x' || *s == 'X') && (s[1] == ' ' || s[1] == '\t' || s[-1] != ' '))
		s++;
	while (*s == ' ' || *s == '\t')
		s++;
	name = s;
	for (end = s; *end && *end != ' ' && *end != '\t' && *end != '\r' && *end != '\n'; end++)
		;
	if (end == name)
		return have_error(err, file, line, (int)(name - text) + 1, text,
				  "expected a server after the count, as in '4x dgx-a100'");
	for (s = end; *s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'; s++)
		;
	if (*s)
		return have_error(err, file, line, (int)(s - text) + 1, text,
				  "one server a line: 'N x SERVER' and nothing after it");
	key = xstrndup(name, (size_t)(end - name));
	out->server = catalog_server(cat, key, why, sizeof(why));
	free(key);
	if (!out->server)
		return have_error(err, file, line, (int)(name - text) + 1, text, why);
	out->count = (int)n;
	return 0;
}

int plan_have_parse_file(const struct catalog *cat, const char *buf, size_t len, const char *path,
			 struct plan_have **out, size_t *n, struct diag *err)
{
	struct plan_have *v = NULL, h;
	size_t nv = 0, cap = 0, at = 0, k;
	int line = 0;

	*out = NULL;
	*n = 0;
	while (at < len) {
		size_t e = at;
		char *text, *hash;
		while (e < len && buf[e] != '\n')
			e++;
		line++;
		if (memchr(buf + at, '\0', e - at)) {
			free(v);
			return diag_set(err, path, line,
					(int)((const char *)memchr(buf + at, '\0', e - at) - (buf + at)) + 1,
					"have", "a NUL byte: the file is not text");
		}
		text = xstrndup(buf + at, e - at);
		at = e + 1;
		hash = strchr(text, '#');
		if (hash)
			*hash = '\0';
		if (!text[strspn(text, " \t\r")]) {
			free(text);
			continue;
		}
		if (plan_have_parse(cat, text, path, line, &h, err)) {
			free(text);
			free(v);
			return -1;
		}
		free(text);
		for (k = 0; k < nv && v[k].server != h.server; k++)
			;
		if (k < nv) {
			if (v[k].count > HAVE_MAX_COUNT - h.count) {
				free(v);
				return diag_set(err, path, line, 1, "have", "more servers than any site holds");
			}
			v[k].count += h.count;
			continue;
		}
		XGROW(v, cap, nv);
		v[nv++] = h;
	}
	if (!nv)
		return diag_set(err, path, 0, 0, "have", "no 'N x SERVER' line in the file");
	*out = v;
	*n = nv;
	return 0;
}

/* ---- what to add ---- */

const char *plan_add_kind_name(enum plan_add_kind k)
{
	static const char *const names[PLAN_ADD_COUNT] = {"nothing", "same", "other", "rent"};
	return (unsigned)k < PLAN_ADD_COUNT ? names[k] : "?";
}

/* One owned type: its hardware option, its running cost and its best pool of at most count servers. */
struct owned_pool {
	size_t hw;
	int count;
	struct tco_keep keep;
	const struct plan_choice *best; /* fastest that fits on <= count servers; NULL: none */
};

struct fleet {
	struct owned_pool *pool;
	size_t n;
	double rate; /* jobs an hour the pools do together (sum of 1/hours) */
	int used;    /* servers at work */
	int total;   /* servers owned */
	double deadline_h, budget_usd;
};

/* The owned type index of hardware option hw, or -1: a catalog server of the fleet, no spares. */
static int owned_of(const struct plan *p, const struct fleet *f, size_t hw)
{
	size_t k;
	for (k = 0; k < f->n; k++)
		if (f->pool[k].hw == hw)
			return (int)k;
	(void)p;
	return -1;
}

static int fleet_build(const struct plan *p, struct fleet *f)
{
	const struct plan_request *rq = &p->req;
	size_t k, i, h;
	struct diag err;

	memset(f, 0, sizeof(*f));
	f->pool = xcalloc(rq->nhave, sizeof(*f->pool));
	f->deadline_h = rq->deadline_s > 0 ? rq->deadline_s / 3600 : INFINITY;
	f->budget_usd = rq->budget_usd > 0 ? rq->budget_usd : INFINITY;
	for (k = 0; k < rq->nhave; k++) {
		struct owned_pool *o = &f->pool[f->n];
		struct tco_inputs in;
		for (h = 0; h < p->nhw; h++)
			if (p->hw[h].kind == PLAN_HW_SERVER && p->hw[h].server == rq->have[k].server &&
			    !p->hw[h].spare_per_node && p->hw[h].tco)
				break;
		if (h == p->nhw)
			return -1;
		o->hw = h;
		o->count = rq->have[k].count;
		in = *p->hw[h].tco;
		in.value[TCO_IN_COUNT] = o->count;
		diag_clear(&err);
		if (tco_keep(&in, &o->keep, &err))
			return -1;
		for (i = 0; i < p->nall; i++) {
			const struct plan_choice *c = &p->all[i];
			if (c->hw == h && c->fits && c->hours > 0 && (int)c->nodes <= o->count &&
			    (!o->best || c->hours < o->best->hours))
				o->best = c;
		}
		f->total += o->count;
		if (o->best) {
			f->rate += 1 / o->best->hours;
			f->used += (int)o->best->nodes;
		}
		f->n++;
	}
	return 0;
}

/* The owned pools' running cost over t hours, pool `except` left out (-1: none). */
static double fleet_usd(const struct plan *p, const struct fleet *f, double t, int except)
{
	double usd = 0;
	size_t k;
	for (k = 0; k < f->n; k++)
		if ((int)k != except && f->pool[k].best)
			usd += f->pool[k].keep.usd_per_gpu_hour * f->pool[k].best->nodes *
			       p->hw[f->pool[k].hw].gpus_per_node * t;
	return usd;
}

/* Whether candidate a is better than b: meeting the limits first, then cheaper; failing both, faster. */
static int better(const struct plan_add *a, const struct plan_add *b)
{
	if (!b->found)
		return 1;
	if (a->meets != b->meets)
		return a->meets;
	return a->meets ? a->cost_usd < b->cost_usd : a->hours < b->hours;
}

static void add_finish(struct plan_add *a, const struct fleet *f, double committed)
{
	a->cost_usd = a->owned_usd + a->added_usd;
	a->owned_total = f->total;
	a->meets = a->hours <= f->deadline_h * (1 + 1e-9) && !(committed > f->budget_usd);
	a->found = 1;
}

/* More servers of owned type k: choice c of more than the owned count, one pool. */
static void try_same(const struct plan *p, const struct fleet *f, int k, const struct plan_choice *c,
		     struct plan_add *best)
{
	const struct owned_pool *o = &f->pool[k];
	const struct plan_hw *hw = &p->hw[o->hw];
	double rest = f->rate - (o->best ? 1 / o->best->hours : 0), share;
	struct plan_add a = {.kind = PLAN_ADD_SAME, .from = p, .add = c};

	a.added_nodes = (int)c->nodes - o->count;
	share = (double)a.added_nodes / c->nodes;
	a.hours = 1 / (1 / c->hours + rest);
	a.added_alone_hours = c->hours;
	a.owned_nodes = f->used - (o->best ? (int)o->best->nodes : 0) + o->count;
	a.owned_share = 1 - share * a.hours / c->hours;
	a.owned_usd = fleet_usd(p, f, a.hours, k) +
		      o->keep.usd_per_gpu_hour * o->count * hw->gpus_per_node * a.hours;
	a.added_usd = c->cost_usd * share * a.hours / c->hours;
	a.capex_usd = c->has_bom ? c->bom.capex_usd * share : NAN;
	add_finish(&a, f, a.capex_usd);
	if (better(&a, best))
		*best = a;
}

/* Choice c of plan from as a second pool beside the whole owned fleet. */
static void try_beside(const struct plan *p, const struct fleet *f, const struct plan *from,
		       const struct plan_choice *c, enum plan_add_kind kind, struct plan_add *best)
{
	struct plan_add a = {.kind = kind, .from = from, .add = c};

	a.added_nodes = (int)c->nodes;
	a.hours = 1 / (1 / c->hours + f->rate);
	a.added_alone_hours = c->hours;
	a.owned_nodes = f->rate > 0 ? f->used : 0;
	a.owned_share = f->rate * a.hours;
	a.owned_usd = fleet_usd(p, f, a.hours, -1);
	a.added_usd = c->cost_usd * a.hours / c->hours;
	a.capex_usd = kind == PLAN_ADD_RENT ? 0 : c->has_bom ? c->bom.capex_usd : NAN;
	add_finish(&a, f, kind == PLAN_ADD_RENT ? a.added_usd : a.capex_usd);
	if (better(&a, best))
		*best = a;
}

/* Whether hardware option h of from is of a generation no older than every owned GPU. */
static int not_older(const struct plan *p, const struct fleet *f, const struct plan_hw *h)
{
	size_t k;
	for (k = 0; k < f->n; k++) {
		const struct cat_gpu *g = p->hw[f->pool[k].hw].gpu;
		if (cat_has(g->launch_year) && cat_has(h->gpu->launch_year) &&
		    h->gpu->launch_year < g->launch_year)
			return 0;
	}
	return 1;
}

static void weigh(const struct plan *p, const struct plan *rent, const struct fleet *f, struct plan_have_answer *a)
{
	size_t i;
	int k;

	for (i = 0; i < PLAN_ADD_COUNT; i++) {
		a->opt[i].kind = (enum plan_add_kind)i;
		a->opt[i].hours = a->opt[i].cost_usd = a->opt[i].capex_usd = NAN;
		a->opt[i].added_alone_hours = a->opt[i].owned_share = NAN;
		a->opt[i].owned_usd = a->opt[i].added_usd = NAN;
	}
	if (f->rate > 0) {
		struct plan_add *o = &a->opt[PLAN_ADD_NOTHING];
		o->from = p;
		o->hours = 1 / f->rate;
		o->owned_nodes = f->used;
		o->owned_share = 1;
		o->owned_usd = fleet_usd(p, f, o->hours, -1);
		o->added_usd = o->capex_usd = 0;
		add_finish(o, f, 0);
	}
	for (i = 0; i < p->nall; i++) {
		const struct plan_choice *c = &p->all[i];
		const struct plan_hw *h = &p->hw[c->hw];
		if (!c->fits || !(c->hours > 0))
			continue;
		k = owned_of(p, f, c->hw);
		if (k >= 0 && (int)c->nodes > f->pool[k].count)
			try_same(p, f, k, c, &a->opt[PLAN_ADD_SAME]);
		else if (k < 0 && h->kind != PLAN_HW_CLOUD && not_older(p, f, h))
			try_beside(p, f, p, c, PLAN_ADD_OTHER, &a->opt[PLAN_ADD_OTHER]);
	}
	for (i = 0; rent && i < rent->nall; i++) {
		const struct plan_choice *c = &rent->all[i];
		if (c->fits && c->hours > 0)
			try_beside(p, f, rent, c, PLAN_ADD_RENT, &a->opt[PLAN_ADD_RENT]);
	}
	a->best = -1;
	for (i = 0; i < PLAN_ADD_COUNT; i++)
		if (a->opt[i].found && a->opt[i].meets &&
		    (a->best < 0 || a->opt[i].cost_usd < a->opt[a->best].cost_usd))
			a->best = (int)i;
}

/* "4x dgx-a100 (eos) and 2x dgx-h100" */
static void fleet_words(const struct plan *p, const struct fleet *f, struct strbuf *sb)
{
	size_t k;
	for (k = 0; k < f->n; k++)
		strbuf_addf(sb, "%s%dx %s",
			    !k            ? "" :
			    k + 1 == f->n ? " and " :
					    ", ",
			    f->pool[k].count, p->hw[f->pool[k].hw].label);
}

static void answer_text(const struct plan *p, const struct fleet *f, const struct plan_have_answer *a)
{
	struct strbuf sb = STRBUF_INIT;
	const struct plan_add *o = &a->opt[PLAN_ADD_NOTHING];
	char m1[FMT_LEN], m2[FMT_LEN], d1[FMT_LEN], d2[FMT_LEN];

	fleet_words(p, f, &sb);
	strbuf_addf(&sb, " owned: %s a year to keep (%s a GPU-hour worked), nothing to buy; ",
		    fmt_money(a->owned_usd_per_year, FMT_MONEY_SHORT, m1, sizeof(m1)),
		    fmt_money(a->owned_usd_per_gpu_hour, FMT_MONEY_CENTS, m2, sizeof(m2)));
	if (!o->found)
		strbuf_addstr(&sb, "the job fits on none of them");
	else
		strbuf_addf(&sb, "alone, %d of the %d servers finish the job in %s for %s%s", o->owned_nodes,
			    f->total, fmt_duration(o->hours * 3600, FMT_DURATION_TEXT, d1, sizeof(d1)),
			    fmt_money(o->cost_usd, FMT_MONEY_SHORT, m1, sizeof(m1)),
			    o->meets ? ", within the limits" : ", later than the deadline");
	if (a->best < 0) {
		strbuf_addstr(&sb, "; no addition searched meets the limits: the fastest of each is listed");
	} else if (a->best != PLAN_ADD_NOTHING) {
		const struct plan_add *b = &a->opt[a->best];
		const struct plan_hw *h = &b->from->hw[b->add->hw];
		strbuf_addf(&sb, "; the cheapest way within the limits: add %d x %s (%s)", b->added_nodes,
			    h->label,
			    b->kind == PLAN_ADD_SAME ? "more of the same, one pool" :
			    b->kind == PLAN_ADD_RENT ? "rented beside the owned pool" :
						       "bought beside the owned pool");
		strbuf_addf(&sb, ", done in %s for %s",
			    fmt_duration(b->hours * 3600, FMT_DURATION_TEXT, d1, sizeof(d1)),
			    fmt_money(b->cost_usd, FMT_MONEY_SHORT, m1, sizeof(m1)));
		if (b->kind != PLAN_ADD_SAME)
			strbuf_addf(
				&sb,
				", the owned servers doing %.0f%% of the work and the new pool the rest (a "
				"framework that trains across unlike pools is needed; the new pool alone takes %s)",
				100 * b->owned_share,
				fmt_duration(b->added_alone_hours * 3600, FMT_DURATION_TEXT, d2, sizeof(d2)));
	} else {
		strbuf_addstr(&sb, ": add nothing");
	}
	((struct plan_have_answer *)a)->text = strbuf_detach(&sb, NULL);
}

int plan_have_answer(const struct plan *own, const struct plan *rent, struct plan_have_answer *out)
{
	struct fleet f;
	double gh = 0;
	size_t k;

	memset(out, 0, sizeof(*out));
	if (!own->req.nhave || own->req.base.task == MODEL_TASK_INFER)
		return -1;
	if (fleet_build(own, &f)) {
		free(f.pool);
		return -1;
	}
	for (k = 0; k < f.n; k++) {
		out->owned_usd_per_year += f.pool[k].keep.usd_per_year;
		gh += f.pool[k].keep.gpu_hours_per_year;
	}
	out->owned_usd_per_gpu_hour = out->owned_usd_per_year / gh;
	weigh(own, rent, &f, out);
	answer_text(own, &f, out);
	free(f.pool);
	return 0;
}

void plan_have_release(struct plan_have_answer *a)
{
	free(a->text);
	memset(a, 0, sizeof(*a));
}
