/*
 * A replay of a trace's GPU work with other durations (docs/profile.md,
 * "The replay"): every kernel, copy and memset in the order the host
 * launched them, each after the one before it on its stream, after the
 * work its stream waits for (cudaStreamWaitEvent, seen as cuda_sync
 * "Stream Wait Event"), and not before its launch; the host shifted at
 * each synchronisation by how much later (or earlier) the GPU drains.
 *
 * What binds an event in the trace is b = max(launch, the end of its
 * stream's previous event, the work it waits for), and it started s - b
 * after that (the launch latency, or a wait the trace does not show).  The
 * replay keeps that gap: s' = b' + (s - b), e' = s' + d'.  So with d' = d
 * every event lands where it was and the steps come out as measured; a
 * faster kernel moves what waits on it, a kernel launched late by a busy
 * host stays late.
 *
 * The host runs as traced but shifted by delta.  A synchronisation [h0, h1]
 * waited for the GPU work launched before it, which ended at G (all
 * streams: a stream or event synchronisation is taken as a device one); it
 * returned h1 - max(h0, G) after the later of the two.  Replayed, it
 * returns at max(h0 + delta, G') + h1 - max(h0, G), and delta becomes that
 * minus h1.  A step's window [t0, t1] becomes [t0 + delta(t0), t1 +
 * delta(t1)], delta(t) the shift after the last synchronisation that
 * returned by t.
 */
#include <math.h>
#include <stdlib.h>

#include "profile/profile.h"
#include "profile/profile_int.h"
#include "profile/target.h"
#include "util/xalloc.h"

#define MAX_STREAMS 256 /* distinct (device, stream) pairs; more share the last slot */

struct lane {
	int device, stream;
	double end, end2;     /* the last event's end in the trace and replayed, µs */
	double ready, ready2; /* waits applied since: the awaited work's end, traced and replayed */
	/* the events so far in launch order: their launch and their two ends (for the waits) */
	double *launch, *ends, *ends2;
	size_t n, cap;
};

struct replay {
	struct lane lanes[MAX_STREAMS];
	int nlanes;
};

static struct lane *lane_of(struct replay *rp, int device, int stream)
{
	int i;
	for (i = 0; i < rp->nlanes; i++)
		if (rp->lanes[i].device == device && rp->lanes[i].stream == stream)
			return &rp->lanes[i];
	if (rp->nlanes == MAX_STREAMS)
		return &rp->lanes[MAX_STREAMS - 1];
	rp->lanes[rp->nlanes].device = device;
	rp->lanes[rp->nlanes].stream = stream;
	rp->lanes[rp->nlanes].end = rp->lanes[rp->nlanes].end2 = -INFINITY;
	rp->lanes[rp->nlanes].ready = rp->lanes[rp->nlanes].ready2 = -INFINITY;
	return &rp->lanes[rp->nlanes++];
}

/* The ends (traced, replayed) of the lane's last event launched before t; -inf when none. */
static void ends_before(const struct lane *l, double t, double *e, double *e2)
{
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->launch[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	*e = lo ? l->ends[lo - 1] : -INFINITY;
	*e2 = lo ? l->ends2[lo - 1] : -INFINITY;
}

static const struct profile_data *sort_data; /* qsort has no context argument */
static int cmp_launch_order(const void *a, const void *b)
{
	const struct gpu_ev *x = &sort_data->ev[*(const size_t *)a], *y = &sort_data->ev[*(const size_t *)b];
	if (x->launch != y->launch)
		return (x->launch > y->launch) - (x->launch < y->launch);
	return (x->ts > y->ts) - (x->ts < y->ts);
}
static int cmp_wait(const void *a, const void *b)
{
	const struct profile_wait *x = a, *y = b;
	return (x->launch > y->launch) - (x->launch < y->launch);
}

/* The host's shift after each synchronisation that returned by t (shifts[k] after syncs[k]). */
static double delta_at(const struct profile_data *d, const double *shift, double t)
{
	size_t lo = 0, hi = d->nsyncs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->syncs[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? shift[lo - 1] : 0;
}

/* Applies the waits of waits[*w..] launched before t to their lanes. */
static void apply_waits(struct replay *rp, const struct profile_wait *waits, size_t nwaits, size_t *w, double t)
{
	for (; *w < nwaits && waits[*w].launch < t; (*w)++) {
		const struct profile_wait *x = &waits[*w];
		struct lane *to = lane_of(rp, x->device, x->stream), *from = lane_of(rp, x->device, x->src_stream);
		double e, e2;
		if (isnan(x->record) || to == from)
			continue;
		ends_before(from, x->record, &e, &e2);
		to->ready = fmax(to->ready, e);
		to->ready2 = fmax(to->ready2, e2);
	}
}

double profile_replay(const struct profile_data *d, const double *dur_us, double *gpu_us)
{
	struct replay *rp = xcalloc(1, sizeof(*rp));
	size_t *order = xcalloc(d->nev ? d->nev : 1, sizeof(*order)), i, k = 0, w = 0;
	struct profile_wait *waits = xcalloc(d->nwaits ? d->nwaits : 1, sizeof(*waits));
	double *shift = xcalloc(d->nsyncs ? d->nsyncs : 1, sizeof(*shift));
	double delta = 0, g = -INFINITY, g2 = -INFINITY, lo2 = INFINITY, wall = 0;
	int j;
	for (i = 0; i < d->nev; i++)
		order[i] = i;
	sort_data = d;
	if (d->nev)
		qsort(order, d->nev, sizeof(*order), cmp_launch_order);
	for (i = 0; i < d->nwaits; i++)
		waits[i] = d->waits[i];
	if (d->nwaits)
		qsort(waits, d->nwaits, sizeof(*waits), cmp_wait);
	for (i = 0; i <= d->nev; i++) {
		const struct gpu_ev *e = i < d->nev ? &d->ev[order[i]] : NULL;
		double t = e ? e->launch : INFINITY, b, b2, s2;
		struct lane *l;
		for (; k < d->nsyncs && d->syncs[k].ts <= t; k++) { /* the host waits for what it launched */
			const struct span *h = &d->syncs[k];
			double back = fmax(h->ts + delta, g2) + fmax(0, h->end - fmax(h->ts, g));
			delta = back - h->end;
			shift[k] = delta;
		}
		if (!e)
			break;
		apply_waits(rp, waits, d->nwaits, &w, t);
		l = lane_of(rp, e->device, e->stream);
		b = fmax(e->launch, fmax(l->end, l->ready));
		b2 = fmax(e->launch + delta, fmax(l->end2, l->ready2));
		s2 = b2 + (e->ts - b);
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 256;
			l->launch = xrealloc(l->launch, l->cap * sizeof(double));
			l->ends = xrealloc(l->ends, l->cap * sizeof(double));
			l->ends2 = xrealloc(l->ends2, l->cap * sizeof(double));
		}
		l->launch[l->n] = e->launch;
		l->ends[l->n] = l->end = e->end;
		l->ends2[l->n++] = l->end2 = s2 + dur_us[order[i]];
		g = fmax(g, e->end);
		g2 = fmax(g2, l->end2);
		lo2 = fmin(lo2, s2);
	}
	if (!d->nsteps) {
		wall = d->nev ? g2 - lo2 : 0;
	} else {
		for (i = 0; i < d->nsteps; i++)
			wall += d->steps[i].end + delta_at(d, shift, d->steps[i].end) - d->steps[i].ts -
				delta_at(d, shift, d->steps[i].ts);
		/* GPU work running on past the last step's host end: only more of it than traced counts */
		i = d->nsteps - 1;
		wall += fmax(0, fmax(0, g2 - d->steps[i].end - delta_at(d, shift, d->steps[i].end)) -
					fmax(0, g - d->steps[i].end));
	}
	if (gpu_us)
		*gpu_us = g2;
	for (j = 0; j < rp->nlanes; j++) {
		free(rp->lanes[j].launch);
		free(rp->lanes[j].ends);
		free(rp->lanes[j].ends2);
	}
	free(rp);
	free(order);
	free(waits);
	free(shift);
	return wall;
}
