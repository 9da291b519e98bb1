#include "export/clockev.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define CLOCKEV_MAX 4096

struct entry {
	double t;
	uint16_t bits;
};

struct clockev {
	double window_s;
	struct entry *ring;
	unsigned cap, head, n; /* the oldest at head */
	uint16_t prev;
	int seen;
	uint64_t edges[CLOCKEV_NBITS];
};

struct clockev *clockev_new(double window_s, double interval_s)
{
	struct clockev *h = xcalloc(1, sizeof(*h));
	double want = interval_s > 0 ? ceil(window_s / interval_s) + 2 : CLOCKEV_MAX;
	h->window_s = window_s;
	h->cap = want < 2 ? 2 : want > CLOCKEV_MAX ? CLOCKEV_MAX : (unsigned)want;
	h->ring = xcalloc(h->cap, sizeof(*h->ring));
	return h;
}

void clockev_free(struct clockev *h)
{
	if (!h)
		return;
	free(h->ring);
	free(h);
}

void clockev_note(struct clockev *h, double t, uint64_t bits)
{
	uint16_t b = (uint16_t)(bits & ((1u << CLOCKEV_NBITS) - 1));
	unsigned k;
	/* a reason that was off (or nothing read yet) and is on now came on */
	for (k = 0; k < CLOCKEV_NBITS; k++)
		if ((b >> k & 1) && (!h->seen || !(h->prev >> k & 1)))
			h->edges[k]++;
	h->prev = b;
	h->seen = 1;
	if (h->n == h->cap) {
		h->head = (h->head + 1) % h->cap;
		h->n--;
	}
	h->ring[(h->head + h->n) % h->cap] = (struct entry){t, b};
	h->n++;
}

int clockev_counts(const struct clockev *h, double now, unsigned in_window[CLOCKEV_NBITS],
		   uint64_t edges[CLOCKEV_NBITS])
{
	unsigned i, k;
	memset(in_window, 0, CLOCKEV_NBITS * sizeof(*in_window));
	memcpy(edges, h->edges, sizeof(h->edges));
	for (i = 0; i < h->n; i++) {
		const struct entry *e = &h->ring[(h->head + i) % h->cap];
		if (e->t <= now - h->window_s || e->t > now)
			continue;
		for (k = 0; k < CLOCKEV_NBITS; k++)
			in_window[k] += e->bits >> k & 1;
	}
	return h->seen;
}
