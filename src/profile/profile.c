/*
 * The analysis behind `gpuscope profile` (profile.h; docs/profile.md).
 *
 * While the reader streams the trace, three compact arrays are kept: the
 * step annotations, the launches (correlation id and CPU time, 16 bytes
 * each) and the GPU events (40 bytes each) and the host intervals that make the GPU wait (16 bytes each); nothing else of an event stays.
 * A GPU event belongs to the step during which the CPU launched it, found
 * through the correlation id, or, with no launch in the trace, to the step
 * its own start falls in.  Then, per step, one pass over its events sorted by
 * start gives every union of intervals the figures need.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "profile/profile.h"
#include "profile/profile_int.h"
#include "profile/trace.h"
#include "util/xalloc.h"

struct step_mark {
	char *name;
	double ts, end; /* µs */
};
struct launch {
	long long corr;
	double ts;     /* µs */
	long long tid; /* the launching thread, -1 when the trace does not say */
	int op;        /* the innermost operator with FLOPs around it (index into ops), or -1 */
};
/* An operator whose FLOPs its recorded shapes give (profile/flops.c). */
struct fop {
	double ts, end; /* µs */
	long long tid;
	double flops;
};

struct collect {
	struct step_mark *steps;
	size_t nsteps, asteps;
	struct launch *launches;
	size_t nlaunches, alaunches;
	struct gpu_ev *gpu;
	size_t ngpu, agpu;
	struct fop *ops;
	size_t nops, aops;
	uint16_t *op_bin;           /* per op: the bin of its longest matrix kernel */
	struct span *loader, *wait; /* DataLoader fetches; fetches and synchronisations */
	size_t nloader, aloader, nwait, await_;
	struct span *syncs; /* synchronisations alone, for the replay */
	size_t nsyncs, asyncs;
	struct profile_wait *waits;
	size_t nwaits, awaits;
	int legacy;
	long long devmask; /* devices 0..62 seen */
};

#define PUSH(arr, n, a) \
	do { \
		if ((n) == (a)) { \
			(a) = (a) ? 2 * (a) : 1024; \
			(arr) = xrealloc((arr), (a) * sizeof(*(arr))); \
		} \
	} while (0)

static int cat_is(const char *cat, const char *a, const char *b)
{
	return !strcmp(cat, a) || (b && !strcmp(cat, b));
}

/*
 * Runtime calls during which the host waits for the GPU: the explicit
 * synchronisations, and the synchronous copies (cudaMemcpy without Async
 * returns once the copy, and all work before it on the stream, is done).
 */
static int is_sync_call(const char *name)
{
	if (strstr(name, "Synchronize"))
		return 1;
	if (!strncmp(name, "cudaMemcpy", 10) || !strncmp(name, "hipMemcpy", 9))
		return !strstr(name, "Async");
	return 0;
}

/* The DataLoader's __next__, as torch.profiler annotates it: "enumerate(DataLoader)#_...Iter.__next__". */
static int is_loader(const char *name)
{
	return !strncmp(name, "enumerate(DataLoader)", 21);
}

static void push_span(struct span **arr, size_t *n, size_t *a, double ts, double end)
{
	PUSH(*arr, *n, *a);
	(*arr)[*n].ts = ts;
	(*arr)[(*n)++].end = end;
}

static int on_event(const struct trace_event *ev, void *ctx)
{
	struct collect *c = ctx;
	const char *cat = ev->cat;
	if (ev->ph != 'X' || !isfinite(ev->ts_us) || !isfinite(ev->dur_us) || ev->dur_us < 0)
		return 0;
	if (!strcmp(cat, "Kernel") || !strcmp(cat, "Runtime") || !strcmp(cat, "Operator"))
		c->legacy = 1;
	if (is_loader(ev->name)) {
		push_span(&c->loader, &c->nloader, &c->aloader, ev->ts_us, ev->ts_us + ev->dur_us);
		push_span(&c->wait, &c->nwait, &c->await_, ev->ts_us, ev->ts_us + ev->dur_us);
		return 0;
	}
	if (cat_is(cat, "kernel", "Kernel") || cat_is(cat, "gpu_memcpy", "Memcpy") ||
	    cat_is(cat, "gpu_memset", "Memset")) {
		int sub;
		enum profile_class k = profile_classify(cat, ev->name, ev->collective, &sub);
		struct gpu_ev *g;
		PUSH(c->gpu, c->ngpu, c->agpu);
		g = &c->gpu[c->ngpu++];
		g->ts = ev->ts_us;
		g->end = ev->ts_us + ev->dur_us;
		g->bin = (uint16_t)(k * PROFILE_NSUB + sub);
		g->device = (int16_t)(ev->device >= 0 && ev->device < 32767 ? ev->device : -1);
		g->corr = ev->correlation;
		g->bytes = isfinite(ev->bytes) && ev->bytes > 0 ? ev->bytes : 0;
		g->step = -1;
		g->op = -1;
		g->lead = 0;
		g->stream = ev->stream >= 0 && ev->stream < 2147483647 ? (int)ev->stream : -1;
		g->grid = (float)ev->grid;
		g->group = (int16_t)(ev->group_size > 0 && ev->group_size < 32767 ? ev->group_size : -1);
		g->msg_bytes = (float)(isfinite(ev->in_nelems) && ev->in_nelems > 0 ?
					       ev->in_nelems * profile_dtype_bytes(ev->dtype) :
					       NAN);
		if (ev->device >= 0 && ev->device < 63)
			c->devmask |= 1LL << ev->device;
	} else if (cat_is(cat, "cuda_runtime", "Runtime") || !strcmp(cat, "cuda_driver")) {
		if (is_sync_call(ev->name)) {
			push_span(&c->wait, &c->nwait, &c->await_, ev->ts_us, ev->ts_us + ev->dur_us);
			push_span(&c->syncs, &c->nsyncs, &c->asyncs, ev->ts_us, ev->ts_us + ev->dur_us);
		}
		if (ev->correlation >= 0) {
			PUSH(c->launches, c->nlaunches, c->alaunches);
			c->launches[c->nlaunches].corr = ev->correlation;
			c->launches[c->nlaunches].tid = ev->tid;
			c->launches[c->nlaunches].op = -1;
			c->launches[c->nlaunches++].ts = ev->ts_us;
		}
	} else if (!strcmp(cat, "cuda_sync") && ev->wait_corr >= 0 && ev->wait_stream >= 0 && ev->stream >= 0) {
		struct profile_wait *w;
		PUSH(c->waits, c->nwaits, c->awaits);
		w = &c->waits[c->nwaits++];
		w->launch = ev->ts_us; /* the wait on the GPU, until its launch on the host is known */
		w->corr = ev->correlation;
		w->record_corr = ev->wait_corr;
		w->device = (int16_t)(ev->device >= 0 && ev->device < 32767 ? ev->device : -1);
		w->stream = ev->stream < 2147483647 ? (int)ev->stream : -1;
		w->src_stream = ev->wait_stream < 2147483647 ? (int)ev->wait_stream : -1;
	} else if ((cat_is(cat, "cpu_op", "Operator")) && ev->ninputs >= 2) {
		double f = profile_op_flops(ev);
		if (isfinite(f)) {
			PUSH(c->ops, c->nops, c->aops);
			c->ops[c->nops].ts = ev->ts_us;
			c->ops[c->nops].end = ev->ts_us + ev->dur_us;
			c->ops[c->nops].tid = ev->tid;
			c->ops[c->nops++].flops = f;
		}
	} else if (cat_is(cat, "user_annotation", NULL) && !strncmp(ev->name, "ProfilerStep#", 13)) {
		PUSH(c->steps, c->nsteps, c->asteps);
		c->steps[c->nsteps].name = xstrdup(ev->name);
		c->steps[c->nsteps].ts = ev->ts_us;
		c->steps[c->nsteps++].end = ev->ts_us + ev->dur_us;
	}
	return 0;
}

static int cmp_launch(const void *a, const void *b)
{
	const struct launch *x = a, *y = b;
	return (x->corr > y->corr) - (x->corr < y->corr);
}
static int cmp_step(const void *a, const void *b)
{
	const struct step_mark *x = a, *y = b;
	return (x->ts > y->ts) - (x->ts < y->ts);
}
static int cmp_gpu(const void *a, const void *b)
{
	const struct gpu_ev *x = a, *y = b;
	if (x->step != y->step)
		return (x->step > y->step) - (x->step < y->step);
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* The launch with correlation id corr, or NULL. */
static const struct launch *launch_of(const struct collect *c, long long corr)
{
	struct launch key = {corr, 0, -1, -1};
	if (corr < 0 || !c->nlaunches)
		return NULL;
	return bsearch(&key, c->launches, c->nlaunches, sizeof(key), cmp_launch);
}

static int cmp_op(const void *a, const void *b)
{
	const struct fop *x = a, *y = b;
	if (x->tid != y->tid)
		return (x->tid > y->tid) - (x->tid < y->tid);
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/*
 * The innermost operator with FLOPs on the launch's thread whose interval
 * holds the launch (ops sorted by thread, then start): operators nest, so
 * walking back from the last one starting at or before the launch, the
 * first that still holds it is the innermost.  aten::linear holding
 * aten::addmm gives the kernel to addmm, and its FLOPs are counted once.
 */
static int op_around(const struct collect *c, const struct launch *l)
{
	size_t lo = 0, hi = c->nops, k;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct fop *o = &c->ops[mid];
		if (o->tid < l->tid || (o->tid == l->tid && o->ts <= l->ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = 0; k < 64 && lo > k; k++) {
		const struct fop *o = &c->ops[lo - 1 - k];
		if (o->tid != l->tid)
			break;
		if (l->ts < o->end)
			return (int)(lo - 1 - k);
	}
	return -1;
}

static int is_matrix_bin(int bin)
{
	int k = bin / PROFILE_NSUB;
	return k == PC_GEMM || k == PC_CONV || k == PC_ATTENTION;
}

/*
 * Links each GPU event to the operator that launched it, and marks, per
 * operator, its longest matrix kernel (GEMM, convolution or attention
 * class): that kernel's bin is where the operator's FLOPs are counted.
 */
static void link_ops(struct collect *c)
{
	double *lead_us;
	size_t *lead_at, i;
	if (!c->nops)
		return;
	qsort(c->ops, c->nops, sizeof(*c->ops), cmp_op);
	for (i = 0; i < c->nlaunches; i++)
		c->launches[i].op = op_around(c, &c->launches[i]);
	lead_us = xcalloc(c->nops, sizeof(*lead_us));
	lead_at = xcalloc(c->nops, sizeof(*lead_at));
	c->op_bin = xcalloc(c->nops, sizeof(*c->op_bin));
	for (i = 0; i < c->ngpu; i++) {
		struct gpu_ev *g = &c->gpu[i];
		const struct launch *l = launch_of(c, g->corr);
		g->op = l ? l->op : -1;
		if (g->op >= 0 && is_matrix_bin(g->bin) && g->end - g->ts >= lead_us[g->op]) {
			lead_us[g->op] = g->end - g->ts;
			lead_at[g->op] = i + 1;
			c->op_bin[g->op] = g->bin;
		}
	}
	for (i = 0; i < c->nops; i++)
		if (lead_at[i])
			c->gpu[lead_at[i] - 1].lead = 1;
	free(lead_us);
	free(lead_at);
}

/* The last step starting at or before t, if t falls inside it; -1 otherwise. */
static int step_at(const struct collect *c, double t)
{
	size_t lo = 0, hi = c->nsteps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->steps[mid].ts <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || t >= c->steps[lo - 1].end)
		return -1;
	return (int)(lo - 1);
}

/* One union of intervals fed in order of start: the covered length so far. */
struct cover {
	double len, start, end; /* µs; end < start while empty */
};
static void cover_add(struct cover *u, double ts, double end)
{
	if (u->end < u->start || ts > u->end) {
		if (u->end > u->start)
			u->len += u->end - u->start;
		u->start = ts;
		u->end = end;
	} else if (end > u->end) {
		u->end = end;
	}
}
static double cover_len(const struct cover *u)
{
	return u->len + (u->end > u->start ? u->end - u->start : 0);
}

static const struct {
	const char *what, *remedy;
} remedies[] = {
	{"gpu idle: host-bound",
	 "the GPU waits while the host launches work: CUDA Graphs or torch.compile "
	 "(mode=\"reduce-overhead\") against launch overhead, fewer and larger kernels, "
	 "a larger batch per step"},
	{"gpu idle: data loader",
	 "the GPU waits for the DataLoader: more workers (num_workers), pin_memory=True, "
	 "persistent_workers and prefetch_factor, decoding on the GPU (DALI)"},
	{"gpu idle: synchronisation",
	 "the GPU waits across host synchronisations: keep .item(), .cpu(), printing and "
	 "torch.cuda.synchronize() out of the step, copies with non_blocking=True"},
	{"exposed communication",
	 "overlap communication with compute: DDP gradient bucketing "
	 "(bucket_cap_mb), FSDP prefetch, a larger batch per GPU, a faster fabric"},
	{"matmul in fp32",
	 "matrix math runs in FP32: enable TF32 (torch.backends.cuda.matmul.allow_tf32) "
	 "or AMP with bfloat16"},
	{"matmul",
	 "compute-bound in matrix math: a larger batch, dimensions in multiples of 64, "
	 "lower precision (bf16, fp8 where supported), or a GPU with a higher matmul peak"},
	{"attention",
	 "fused attention dominates: FlashAttention through scaled_dot_product_attention, "
	 "packed sequences"},
	{"memory-bound kernels",
	 "memory-bound elementwise and normalisation kernels: fuse them "
	 "(torch.compile), fused optimizers (fused=True), AMP halves their bytes"},
	{"copies",
	 "copies: pinned memory with non_blocking=True, keep tensors on the GPU, prefetch "
	 "the next batch"},
	{"other kernels", "unclassified kernels: look at the largest ones by name"},
};
enum {
	REM_LAUNCH,
	REM_LOADER,
	REM_SYNC,
	REM_COMM,
	REM_FP32,
	REM_MATMUL,
	REM_ATTN,
	REM_MEMBOUND,
	REM_COPY,
	REM_OTHER
};

/* The bottleneck's row in remedies[] for a class (bin). */
static size_t remedy_of_bin(int bin)
{
	int k = bin / PROFILE_NSUB, sub = bin % PROFILE_NSUB;
	switch (k) {
	case PC_GEMM:
	case PC_CONV:
		return !strcmp(profile_sub_name((enum profile_class)k, sub), "fp32") ? REM_FP32 : REM_MATMUL;
	case PC_ATTENTION:
		return REM_ATTN;
	case PC_ELEMENTWISE:
	case PC_NORM:
		return REM_MEMBOUND;
	case PC_MEMCPY:
	case PC_MEMSET:
		return REM_COPY;
	default:
		return REM_OTHER;
	}
}

/*
 * Names the largest of: idle, exposed communication, each non-communication
 * class.  Idle time takes the remedy of its largest part.
 */
static void name_bottleneck(struct profile_step *s, const double *bins)
{
	double best = s->idle_s;
	size_t which = REM_LAUNCH;
	int b;
	if (s->idle_loader_s > s->idle_launch_s && s->idle_loader_s >= s->idle_sync_s)
		which = REM_LOADER;
	else if (s->idle_sync_s > s->idle_launch_s)
		which = REM_SYNC;
	if (s->comm_exposed_s > best) {
		best = s->comm_exposed_s;
		which = REM_COMM;
	}
	for (b = 0; b < PROFILE_NBINS; b++) {
		if (b / PROFILE_NSUB == PC_COMM || bins[b] * 1e-6 <= best)
			continue;
		best = bins[b] * 1e-6;
		which = remedy_of_bin(b);
	}
	s->bottleneck = remedies[which].what;
	s->remedy = remedies[which].remedy;
	s->bottleneck_share = s->wall_s > 0 ? best / s->wall_s : 0;
	s->max_gain = s->bottleneck_share < 1 ? 1 / (1 - s->bottleneck_share) - 1 : INFINITY;
}

static int cmp_class(const void *a, const void *b)
{
	const struct profile_class_time *x = a, *y = b;
	return (x->time_s < y->time_s) - (x->time_s > y->time_s);
}

/* Per class (bin): the summed durations (µs), bytes moved and events. */
struct bins {
	double us[PROFILE_NBINS], bytes[PROFILE_NBINS];
	double flops[PROFILE_NBINS], flop_us[PROFILE_NBINS]; /* operators' FLOPs, their matrix kernels' time */
	long long n[PROFILE_NBINS];
};

/* The step's class list from its bins. */
static void fill_classes(struct profile_step *s, const struct bins *bn)
{
	int b;
	s->classes = xcalloc(PROFILE_NBINS, sizeof(*s->classes));
	for (b = 0; b < PROFILE_NBINS; b++) {
		struct profile_class_time *c;
		enum profile_class k = (enum profile_class)(b / PROFILE_NSUB);
		if (!bn->n[b])
			continue;
		c = &s->classes[s->nclasses++];
		c->step = s->name;
		c->cls = profile_class_name(k);
		c->sub = profile_sub_name(k, b % PROFILE_NSUB);
		c->time_s = bn->us[b] * 1e-6;
		c->share = s->wall_s > 0 ? c->time_s / s->wall_s : 0;
		c->kernels = bn->n[b];
		c->bytes = bn->bytes[b];
		c->bandwidth_gbs = bn->bytes[b] > 0 && c->time_s > 0 ? bn->bytes[b] / c->time_s * 1e-9 : NAN;
		c->flops = bn->flops[b];
		c->flop_time_s = bn->flop_us[b] * 1e-6;
		c->tflops = c->flops > 0 && c->flop_time_s > 0 ? c->flops / c->flop_time_s * 1e-12 : NAN;
		c->peak_tflops = c->of_peak = NAN;
	}
	if (s->nclasses)
		qsort(s->classes, s->nclasses, sizeof(*s->classes), cmp_class);
	name_bottleneck(s, bn->us);
}

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* Sorts spans and merges the overlapping ones in place: a union as disjoint, ordered intervals. */
static void merge_spans(struct span *sp, size_t *n)
{
	size_t i, m = 0;
	if (!*n)
		return;
	qsort(sp, *n, sizeof(*sp), cmp_span);
	for (i = 1; i < *n; i++) {
		if (sp[i].ts <= sp[m].end) {
			if (sp[i].end > sp[m].end)
				sp[m].end = sp[i].end;
		} else {
			sp[++m] = sp[i];
		}
	}
	*n = m + 1;
}

/* Length of [a, b) covered by the union u[0..n) (disjoint, ordered), µs. */
static double overlap(const struct span *u, size_t n, double a, double b)
{
	size_t lo = 0, hi = n;
	double len = 0;
	while (lo < hi) { /* the first interval ending after a */
		size_t mid = lo + (hi - lo) / 2;
		if (u[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && u[lo].ts < b; lo++)
		len += fmin(b, u[lo].end) - fmax(a, u[lo].ts);
	return len;
}

/* The GPU's idle gaps inside a step's window, and how much of them the host spent waiting. */
struct gaps {
	double w0, w1;            /* the window, µs */
	double len, loader, wait; /* gap length in the window; of it under a DataLoader fetch, under any wait */
	const struct collect *c;
};
static void gap_add(struct gaps *g, double a, double b)
{
	a = fmax(a, g->w0);
	b = fmin(b, g->w1);
	if (b <= a)
		return;
	g->len += b - a;
	g->loader += overlap(g->c->loader, g->c->nloader, a, b);
	g->wait += overlap(g->c->wait, g->c->nwait, a, b);
}

/*
 * Splits the step's idle time I by what the host did during the GPU's gaps
 * in the window: a DataLoader fetch, else a synchronisation, else launching
 * (the host was busy with Python and launches).  The gaps inside the window
 * add up to at least I (GPU work of the step may run past its end), so each
 * part is I times its share of the gaps.
 */
static void split_idle(struct profile_step *s, const struct gaps *g)
{
	double loader = 0, sync = 0;
	if (g->len > 0) {
		loader = s->idle_s * g->loader / g->len;
		sync = s->idle_s * (g->wait - g->loader) / g->len;
	}
	s->idle_loader_s = loader;
	s->idle_sync_s = fmax(0, sync);
	s->idle_launch_s = fmax(0, s->idle_s - s->idle_loader_s - s->idle_sync_s);
}

/* Figures of one step from its GPU events ev[0..n), sorted by start, in the window of g; bins accumulate. */
static void analyse_step(struct profile_step *s, const struct gpu_ev *ev, size_t n, struct gaps *g,
			 struct bins *total)
{
	struct cover all = {0, 0, -1}, comm = {0, 0, -1}, rest = {0, 0, -1};
	double sum = 0;
	struct bins *bn = xcalloc(1, sizeof(*bn));
	size_t i;
	for (i = 0; i < n; i++) {
		double d = ev[i].end - ev[i].ts;
		gap_add(g, all.end < all.start ? g->w0 : all.end, ev[i].ts);
		cover_add(&all, ev[i].ts, ev[i].end);
		cover_add(ev[i].bin / PROFILE_NSUB == PC_COMM ? &comm : &rest, ev[i].ts, ev[i].end);
		bn->us[ev[i].bin] += d;
		bn->bytes[ev[i].bin] += ev[i].bytes;
		if (ev[i].op >= 0 && is_matrix_bin(ev[i].bin)) {
			int ob = g->c->op_bin[ev[i].op];
			bn->flop_us[ob] += d;
			if (ev[i].lead)
				bn->flops[ob] += g->c->ops[ev[i].op].flops;
		}
		bn->n[ev[i].bin]++;
		sum += d;
	}
	gap_add(g, all.end < all.start ? g->w0 : all.end, g->w1);
	s->kernels = (long long)n;
	s->busy_s = cover_len(&all) * 1e-6;
	s->kernel_sum_s = sum * 1e-6;
	s->comm_s = cover_len(&comm) * 1e-6;
	s->comm_exposed_s = (cover_len(&all) - cover_len(&rest)) * 1e-6;
	s->comm_overlap_s = s->comm_s - s->comm_exposed_s;
	s->idle_s = s->wall_s > s->busy_s ? s->wall_s - s->busy_s : 0;
	s->idle_frac = s->wall_s > 0 ? s->idle_s / s->wall_s : 0;
	split_idle(s, g);
	for (i = 0; i < PROFILE_NBINS; i++) {
		total->us[i] += bn->us[i];
		total->bytes[i] += bn->bytes[i];
		total->flops[i] += bn->flops[i];
		total->flop_us[i] += bn->flop_us[i];
		total->n[i] += bn->n[i];
	}
	fill_classes(s, bn);
	free(bn);
}

/* The total over the steps: sums of their figures, classes from the summed bins. */
static void sum_steps(struct profile_result *r, const struct bins *bn)
{
	struct profile_step *t = &r->total;
	size_t i;
	t->name = xstrdup("all steps");
	for (i = 0; i < r->nsteps; i++) {
		const struct profile_step *s = &r->steps[i];
		t->wall_s += s->wall_s;
		t->busy_s += s->busy_s;
		t->idle_s += s->idle_s;
		t->idle_launch_s += s->idle_launch_s;
		t->idle_loader_s += s->idle_loader_s;
		t->idle_sync_s += s->idle_sync_s;
		t->kernel_sum_s += s->kernel_sum_s;
		t->comm_s += s->comm_s;
		t->comm_exposed_s += s->comm_exposed_s;
		t->comm_overlap_s += s->comm_overlap_s;
		t->kernels += s->kernels;
	}
	t->idle_frac = t->wall_s > 0 ? t->idle_s / t->wall_s : 0;
	fill_classes(t, bn);
}

static void assign_steps(struct collect *c, struct profile_result *r)
{
	size_t i;
	if (c->nlaunches)
		qsort(c->launches, c->nlaunches, sizeof(*c->launches), cmp_launch);
	if (c->nsteps)
		qsort(c->steps, c->nsteps, sizeof(*c->steps), cmp_step);
	merge_spans(c->loader, &c->nloader);
	merge_spans(c->wait, &c->nwait);
	link_ops(c);
	for (i = 0; i < c->ngpu; i++) {
		struct gpu_ev *g = &c->gpu[i];
		const struct launch *l = launch_of(c, g->corr);
		double t = l ? l->ts : NAN;
		g->launch = l && l->ts <= g->ts ? l->ts : g->ts;
		if (!c->nsteps) {
			g->step = 0;
			continue;
		}
		g->step = step_at(c, isnan(t) ? g->ts : t);
		if (g->step < 0)
			r->unassigned++;
	}
	if (c->ngpu)
		qsort(c->gpu, c->ngpu, sizeof(*c->gpu), cmp_gpu);
	for (i = 0; i < c->nwaits; i++) { /* the wait and the record at their launches on the host */
		const struct launch *w = launch_of(c, c->waits[i].corr),
				    *rec = launch_of(c, c->waits[i].record_corr);
		c->waits[i].launch = w ? w->ts : c->waits[i].launch;
		c->waits[i].record = rec ? rec->ts : NAN;
	}
}

static void analyse(struct collect *c, struct profile_result *r)
{
	struct bins *bn = xcalloc(1, sizeof(*bn));
	double lo = INFINITY, hi = -INFINITY;
	size_t i, j, k;

	assign_steps(c, r);
	r->nsteps = c->nsteps ? c->nsteps : 1;
	r->steps = xcalloc(r->nsteps, sizeof(*r->steps));
	if (!c->nsteps) {
		for (i = 0; i < c->ngpu; i++) {
			lo = fmin(lo, c->gpu[i].ts);
			hi = fmax(hi, c->gpu[i].end);
		}
		r->steps[0].name = xstrdup("trace");
		r->steps[0].wall_s = c->ngpu ? (hi - lo) * 1e-6 : 0;
	}
	for (k = 0; k < c->nsteps; k++) {
		r->steps[k].name = c->steps[k].name;
		c->steps[k].name = NULL;
		r->steps[k].wall_s = (c->steps[k].end - c->steps[k].ts) * 1e-6;
	}
	/* events sorted by step (unassigned, -1, first), then start */
	for (i = 0; i < c->ngpu && c->gpu[i].step < 0; i++)
		;
	for (k = 0; k < r->nsteps; k++) {
		struct gaps g = {lo, hi, 0, 0, 0, c};
		if (c->nsteps) {
			g.w0 = c->steps[k].ts;
			g.w1 = c->steps[k].end;
		}
		for (j = i; j < c->ngpu && c->gpu[j].step == (int)k; j++)
			;
		analyse_step(&r->steps[k], c->gpu + i, j - i, &g, bn);
		i = j;
	}
	sum_steps(r, bn);
	free(bn);
	r->gpu_events = (long long)c->ngpu;
	r->schema = c->legacy ? "kineto-2021" : "kineto";
	for (i = 0; i < 63; i++)
		r->devices += (c->devmask >> i) & 1;
}

static void collect_free(struct collect *c)
{
	size_t i;
	for (i = 0; i < c->nsteps; i++)
		free(c->steps[i].name);
	free(c->steps);
	free(c->launches);
	free(c->gpu);
	free(c->ops);
	free(c->op_bin);
	free(c->syncs);
	free(c->waits);
	free(c->loader);
	free(c->wait);
}

/* Moves what the replay needs (profile_int.h) from c into r. */
static void keep_data(struct collect *c, struct profile_result *r)
{
	struct profile_data *d = xcalloc(1, sizeof(*d));
	size_t i;
	d->ev = c->gpu;
	d->nev = c->ngpu;
	d->waits = c->waits;
	d->nwaits = c->nwaits;
	d->syncs = c->syncs;
	d->nsyncs = c->nsyncs;
	if (d->nsyncs)
		qsort(d->syncs, d->nsyncs, sizeof(*d->syncs), cmp_span);
	d->steps = xcalloc(c->nsteps ? c->nsteps : 1, sizeof(*d->steps));
	d->nsteps = c->nsteps;
	for (i = 0; i < c->nsteps; i++) {
		d->steps[i].ts = c->steps[i].ts;
		d->steps[i].end = c->steps[i].end;
	}
	c->gpu = NULL;
	c->waits = NULL;
	c->syncs = NULL;
	c->ngpu = c->nwaits = c->nsyncs = 0;
	r->data = d;
}

void profile_data_free(struct profile_data *d)
{
	if (!d)
		return;
	free(d->ev);
	free(d->waits);
	free(d->syncs);
	free(d->steps);
	free(d);
}

static struct profile_result *run(struct trace_reader *tr, const char *name, struct diag *err)
{
	struct collect c;
	struct profile_result *r;
	const struct trace_info *info;
	memset(&c, 0, sizeof(c));
	if (trace_reader_run(tr, on_event, &c, err)) {
		collect_free(&c);
		trace_reader_free(tr);
		return NULL;
	}
	info = trace_reader_info(tr);
	r = xcalloc(1, sizeof(*r));
	r->file = xstrdup(name);
	r->gpu = info->gpu_name ? xstrdup(info->gpu_name) : NULL;
	r->gpu_mem_bytes = info->gpu_mem_bytes;
	r->gpu_sms = info->gpu_sms;
	r->events = info->events;
	r->rank = info->rank;
	r->world_size = info->world_size;
	analyse(&c, r);
	keep_data(&c, r);
	collect_free(&c);
	trace_reader_free(tr);
	return r;
}

struct profile_result *profile_run(const char *path, struct diag *err)
{
	struct trace_reader *tr = trace_reader_open(path, err);
	return tr ? run(tr, path, err) : NULL;
}

struct profile_result *profile_run_mem(const char *name, const char *data, size_t len, struct diag *err)
{
	return run(trace_reader_mem(name, data, len), name, err);
}

static void step_free(struct profile_step *s)
{
	free(s->name);
	free(s->classes);
}

void profile_result_free(struct profile_result *r)
{
	size_t i;
	if (!r)
		return;
	for (i = 0; i < r->nsteps; i++)
		step_free(&r->steps[i]);
	free(r->steps);
	step_free(&r->total);
	profile_data_free(r->data);
	free(r->file);
	free(r->gpu);
	free(r);
}
