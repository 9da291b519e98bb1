#include "export/live.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/procinfo.h"
#include "host/host.h"
#include "util/xalloc.h"

static const char *const sort_names[LIVE_NSORT] = {"index", "util", "memory", "power", "temp"};

const char *live_sort_name(enum live_sort k)
{
	return k < LIVE_NSORT ? sort_names[k] : "?";
}

int live_sort_from_name(const char *name)
{
	int k;
	for (k = 0; k < LIVE_NSORT; k++)
		if (!strcmp(name, sort_names[k]))
			return k;
	return -1;
}

void live_init(struct live *t, const struct gpu_backend *b, struct gpu_device *const *devs, unsigned n,
	       const char *root)
{
	unsigned i;
	memset(t, 0, sizeof(*t));
	t->b = b;
	t->root = root;
	t->n = n;
	t->g = xcalloc(n ? n : 1, sizeof(*t->g));
	for (i = 0; i < n; i++)
		t->g[i].dev = devs[i];
	t->procs = 1;
}

void live_release(struct live *t)
{
	free(t->g);
	free(t->p);
	t->g = NULL;
	t->p = NULL;
	t->n = 0;
	t->np = t->pcap = 0;
}

unsigned live_gpu_index(const struct live *t, unsigned i)
{
	return GPU_STATIC_HAS(&t->g[i].st, index) ? t->g[i].st.index : i;
}

/* Adds GPU i's processes, with their users and containers. */
static void add_procs(struct live *t, unsigned i)
{
	struct gpu_process *pr = NULL;
	size_t np = 0, k;
	if (!t->b->processes || t->b->processes(t->g[i].dev, &pr, &np) != GPU_OK)
		return;
	for (k = 0; k < np; k++) {
		struct live_proc *q;
		struct proc_container pc;
		XGROW(t->p, t->pcap, t->np + 1);
		q = &t->p[t->np++];
		memset(q, 0, sizeof(*q));
		q->gpu = live_gpu_index(t, i);
		q->pid = pr[k].pid;
		q->mem_valid = pr[k].used_bytes_valid;
		q->mem = pr[k].used_bytes;
		host_proc_user(t->root ? t->root : "", pr[k].pid, q->user, sizeof(q->user), q->comm,
			       sizeof(q->comm));
		if (proc_container_of(t->root, pr[k].pid, &pc) == 1)
			snprintf(q->container, sizeof(q->container), "%.12s", pc.id);
	}
	free(pr);
}

void live_refresh_gpus(struct live *t)
{
	unsigned i;
	t->np = 0;
	for (i = 0; i < t->n; i++) {
		struct live_gpu *g = &t->g[i];
		if (!g->have_static)
			g->have_static = t->b->static_info(g->dev, &g->st) == GPU_OK ||
					 GPU_STATIC_HAS(&g->st, uuid);
		g->rc = t->b->sample(g->dev, GPU_SAMPLE_BASIC | GPU_SAMPLE_THROTTLE, &g->s);
		if (g->rc != GPU_OK)
			continue;
		if (t->b->gpm && t->b->gpm(g->dev, GPU_NO_INSTANCE, &g->gpm) != GPU_OK)
			memset(&g->gpm, 0, sizeof(g->gpm));
		if (t->procs)
			add_procs(t, i);
	}
}

void live_refresh_xids(struct live *t)
{
	struct gpu_event ev[16];
	int n, i;
	if (!t->b->events)
		return;
	n = t->b->events(ev, 16, 0);
	for (i = 0; i < n; i++) {
		if (ev[i].type != GPU_EVENT_XID)
			continue;
		/* the oldest makes room */
		if (t->nxids == LIVE_MAX_XIDS) {
			memmove(t->xids, t->xids + 1, (LIVE_MAX_XIDS - 1) * sizeof(t->xids[0]));
			t->nxids--;
		}
		t->xids[t->nxids].gpu = ev[i].gpu_index;
		t->xids[t->nxids].code = ev[i].code;
		t->xids[t->nxids].when = (time_t)(ev[i].time_ns / 1000000000);
		t->nxids++;
		t->xids_total++;
	}
}

/* Sort value of a GPU (larger first), -1 when it has none. */
static double sort_value(const struct live_gpu *g, enum live_sort k)
{
	const struct gpu_sample *s = &g->s;
	if (g->rc != GPU_OK)
		return -1;
	switch (k) {
	case LIVE_SORT_UTIL:
		if (GPU_GPM_HAS(&g->gpm, sm_active_pct))
			return g->gpm.sm_active_pct;
		return GPU_SAMPLE_HAS(s, util_gpu_pct) ? (double)s->util_gpu_pct : -1;
	case LIVE_SORT_MEM:
		return GPU_SAMPLE_HAS(s, fb_used_bytes) ? (double)s->fb_used_bytes : -1;
	case LIVE_SORT_POWER:
		return GPU_SAMPLE_HAS(s, power_mw) ? (double)s->power_mw : -1;
	case LIVE_SORT_TEMP:
		return GPU_SAMPLE_HAS(s, temp_gpu_c) ? (double)s->temp_gpu_c : -1;
	default:
		return -1;
	}
}

/* GPU a before GPU b: the larger value first, then the lower position. */
static int gpu_before(const struct live *t, unsigned a, unsigned b)
{
	double va = sort_value(&t->g[a], t->sort), vb = sort_value(&t->g[b], t->sort);
	return va != vb ? va > vb : a < b;
}

static int matches(const struct live *t, unsigned i)
{
	const struct live_gpu *g = &t->g[i];
	char idx[16];
	if (!t->filter[0])
		return 1;
	snprintf(idx, sizeof(idx), "%u", live_gpu_index(t, i));
	/* a number is an index ("3" is in every "HBM3"); other text a part of the name or UUID */
	if (strspn(t->filter, "0123456789") == strlen(t->filter))
		return !strcmp(idx, t->filter);
	return g->have_static && (strstr(g->st.name, t->filter) || strstr(g->st.uuid, t->filter));
}

static int cmp_proc(const void *a, const void *b)
{
	const struct live_proc *x = a, *y = b;
	if (x->gpu != y->gpu)
		return x->gpu < y->gpu ? -1 : 1;
	if (x->mem != y->mem)
		return x->mem < y->mem ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

unsigned live_frame(struct live *t, unsigned *order)
{
	unsigned i, j, n = 0;
	/* insertion by a total order: a handful of GPUs, and no state shared with a qsort callback */
	for (i = 0; i < t->n; i++) {
		if (!matches(t, i))
			continue;
		for (j = n; j > 0 && t->sort != LIVE_SORT_INDEX && gpu_before(t, i, order[j - 1]); j--)
			order[j] = order[j - 1];
		order[j] = i;
		n++;
	}
	if (t->np)
		qsort(t->p, t->np, sizeof(*t->p), cmp_proc);
	return n;
}

void live_sleep(double seconds)
{
	struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}
