/*
 * XID counters from NVML events and the kernel log (see xid.h).
 */
#include "export/xid.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Unmatched reports kept per code and source; older ones can no longer match. */
#define PENDING_MAX 1024
/* Distinct codes per GPU: every XID NVIDIA defines fits. */
#define CODES_MAX 512

struct pending {
	double t[PENDING_MAX];
	unsigned head, n; /* FIFO of report times */
};

struct code_book {
	unsigned code;
	uint64_t total;
	unsigned *bucket;       /* window_n one-second buckets */
	int64_t *stamp;         /* the second each bucket holds */
	struct pending pend[2]; /* per source */
};

struct gpu_book {
	struct code_book *codes;
	size_t ncodes, cap;
	int has_last;
	unsigned last;
	double last_time;
};

struct xid_book {
	pthread_mutex_t lock;
	unsigned ngpus;
	unsigned window_n;
	double start_s;
	uint64_t duplicates;
	struct gpu_book *gpus;
};

struct xid_book *xid_book_new(unsigned ngpus, double window_s, double start_s)
{
	struct xid_book *b = xcalloc(1, sizeof(*b));
	pthread_mutex_init(&b->lock, NULL);
	b->ngpus = ngpus;
	if (!(window_s >= 1))
		window_s = 1;
	if (window_s > 3600)
		window_s = 3600;
	b->window_n = (unsigned)window_s;
	b->start_s = start_s;
	b->gpus = xcalloc(ngpus ? ngpus : 1, sizeof(*b->gpus));
	return b;
}

void xid_book_free(struct xid_book *b)
{
	unsigned g;
	size_t i;
	if (!b)
		return;
	for (g = 0; g < b->ngpus; g++) {
		for (i = 0; i < b->gpus[g].ncodes; i++) {
			free(b->gpus[g].codes[i].bucket);
			free(b->gpus[g].codes[i].stamp);
		}
		free(b->gpus[g].codes);
	}
	free(b->gpus);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

static struct code_book *code_get(struct xid_book *b, struct gpu_book *g, unsigned code)
{
	size_t i;
	struct code_book *c;
	for (i = 0; i < g->ncodes; i++)
		if (g->codes[i].code == code)
			return &g->codes[i];
	if (g->ncodes >= CODES_MAX)
		return NULL;
	XGROW(g->codes, g->cap, g->ncodes);
	c = &g->codes[g->ncodes++];
	memset(c, 0, sizeof(*c));
	c->code = code;
	c->bucket = xcalloc(b->window_n, sizeof(*c->bucket));
	c->stamp = xcalloc(b->window_n, sizeof(*c->stamp));
	for (i = 0; i < b->window_n; i++)
		c->stamp[i] = -1;
	return c;
}

static void pend_push(struct pending *p, double t)
{
	unsigned slot = (p->head + p->n) % PENDING_MAX;
	if (p->n == PENDING_MAX) {
		/* a storm: the oldest report can no longer be matched */
		p->head = (p->head + 1) % PENDING_MAX;
		p->n--;
		slot = (p->head + p->n) % PENDING_MAX;
	}
	p->t[slot] = t;
	p->n++;
}

/* Takes the other source's oldest report within XID_MATCH_S of t, dropping stale ones. */
static int pend_match(struct pending *p, double t)
{
	while (p->n) {
		double u = p->t[p->head];
		if (u < t - XID_MATCH_S) {
			p->head = (p->head + 1) % PENDING_MAX;
			p->n--;
			continue;
		}
		if (u > t + XID_MATCH_S)
			return 0;
		p->head = (p->head + 1) % PENDING_MAX;
		p->n--;
		return 1;
	}
	return 0;
}

static void window_add(struct xid_book *b, struct code_book *c, double t)
{
	int64_t sec = (int64_t)floor(t);
	unsigned slot = (unsigned)(((sec % b->window_n) + b->window_n) % b->window_n);
	if (c->stamp[slot] != sec) {
		if (c->stamp[slot] > sec)
			return; /* older than the window */
		c->stamp[slot] = sec;
		c->bucket[slot] = 0;
	}
	c->bucket[slot]++;
}

static unsigned window_count(const struct xid_book *b, const struct code_book *c, double now)
{
	int64_t now_sec = (int64_t)floor(now);
	unsigned i, n = 0;
	for (i = 0; i < b->window_n; i++)
		if (c->stamp[i] >= 0 && now_sec - c->stamp[i] < (int64_t)b->window_n && c->stamp[i] <= now_sec)
			n += c->bucket[i];
	return n;
}

int xid_book_add(struct xid_book *b, unsigned gpu, unsigned code, double time_s, enum xid_source src)
{
	struct gpu_book *g;
	struct code_book *c;
	int counted = 1;
	if (gpu >= b->ngpus)
		return -1;
	pthread_mutex_lock(&b->lock);
	g = &b->gpus[gpu];
	c = code_get(b, g, code);
	if (!c) {
		pthread_mutex_unlock(&b->lock);
		return -1;
	}
	if (src == XID_FROM_KMSG && time_s < b->start_s - XID_MATCH_S) {
		/* history from before the exporter started: no NVML event can match it */
	} else if (pend_match(&c->pend[!src], time_s)) {
		counted = 0;
		b->duplicates++;
	} else {
		pend_push(&c->pend[src], time_s);
	}
	if (counted) {
		c->total++;
		window_add(b, c, time_s);
		if (!g->has_last || time_s >= g->last_time) {
			g->has_last = 1;
			g->last = code;
			g->last_time = time_s;
		}
	}
	pthread_mutex_unlock(&b->lock);
	return counted;
}

static int cmp_code(const void *a, const void *b)
{
	const struct xid_count *x = a, *y = b;
	return (x->code > y->code) - (x->code < y->code);
}

size_t xid_book_view(struct xid_book *b, unsigned gpu, double now_s, struct xid_count **counts, int *has_last,
		     unsigned *last, double *last_time_s)
{
	struct gpu_book *g;
	size_t i, n;
	*counts = NULL;
	*has_last = 0;
	*last = 0;
	*last_time_s = 0;
	if (gpu >= b->ngpus)
		return 0;
	pthread_mutex_lock(&b->lock);
	g = &b->gpus[gpu];
	n = g->ncodes;
	if (n) {
		*counts = xcalloc(n, sizeof(**counts));
		for (i = 0; i < n; i++) {
			(*counts)[i].code = g->codes[i].code;
			(*counts)[i].total = g->codes[i].total;
			(*counts)[i].in_window = window_count(b, &g->codes[i], now_s);
		}
	}
	*has_last = g->has_last;
	*last = g->last;
	*last_time_s = g->last_time;
	pthread_mutex_unlock(&b->lock);
	if (n > 1)
		qsort(*counts, n, sizeof(**counts), cmp_code);
	return n;
}

uint64_t xid_book_duplicates(struct xid_book *b)
{
	uint64_t n;
	pthread_mutex_lock(&b->lock);
	n = b->duplicates;
	pthread_mutex_unlock(&b->lock);
	return n;
}
