/*
 * The measurements.  Every one is timed the same way (docs/bench.md,
 * "Timing"): one untimed warm-up, then an event before and after `reps`
 * back-to-back operations on the device's stream; NVML is read after the
 * operations are queued (while the GPU runs them) and again after the end
 * event, and the figure keeps the lowest clocks, the highest power and
 * every clock-event reason of the two readings.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_int.h"
#include "gpu/gpu.h"
#include "util/xalloc.h"

struct bench_row *bench_add_row(struct bench_result *r, const char *test, int gpu)
{
	struct bench_row *row;
	if ((r->nrows & (r->nrows - 1)) == 0)
		r->rows = xrealloc(r->rows, (r->nrows ? 2 * r->nrows : 8) * sizeof(*r->rows));
	row = &r->rows[r->nrows++];
	memset(row, 0, sizeof(*row));
	row->test = test;
	row->gpu = gpu;
	row->peer = -1;
	row->m = row->n = row->k = row->bytes = row->time_s = NAN;
	row->tflops = row->gbps = row->busbw_gbps = row->latency_s = row->expected = NAN;
	row->clk.sm_mhz = row->clk.mem_mhz = row->clk.power_w = row->clk.power_limit_w = row->clk.temp_c = NAN;
	return row;
}

void bench_skip(struct bench_result *r, const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = xstrdup(fmt);
	va_end(ap);
	r->skipped = xrealloc(r->skipped, (r->nskipped + 1) * sizeof(*r->skipped));
	r->skipped[r->nskipped++] = s;
}

static double lowest(double a, double b)
{
	return isnan(a) || b < a ? b : a;
}

void bench_sample(struct bench_ctx *b, const struct bench_dev *d, struct bench_clocks *c)
{
	struct gpu_sample s;
	if (!d->nvml || gpu_backend_nvml.sample(d->nvml, GPU_SAMPLE_BASIC | GPU_SAMPLE_THROTTLE, &s))
		return;
	c->valid = 1;
	if (GPU_SAMPLE_HAS(&s, clock_sm_mhz))
		c->sm_mhz = lowest(c->sm_mhz, s.clock_sm_mhz);
	if (GPU_SAMPLE_HAS(&s, clock_mem_mhz))
		c->mem_mhz = lowest(c->mem_mhz, s.clock_mem_mhz);
	if (GPU_SAMPLE_HAS(&s, power_mw) && !(s.power_mw / 1e3 < c->power_w))
		c->power_w = s.power_mw / 1e3;
	if (GPU_SAMPLE_HAS(&s, temp_gpu_c) && !(s.temp_gpu_c < c->temp_c))
		c->temp_c = s.temp_gpu_c;
	if (GPU_SAMPLE_HAS(&s, clock_event_reasons))
		c->reasons |= s.clock_event_reasons & ~GPU_CLOCK_EVENT_GPU_IDLE;
}

double bench_timed(struct bench_ctx *b, struct bench_dev *d, bench_op op, void *arg, int reps, const char *what,
		   struct bench_clocks *clk)
{
	const struct bench_cuda_api *cu = &b->libs->cu;
	float ms = 0;
	int i, rc;
	if ((rc = op(b, d, arg)) != 0)
		goto fail;
	if ((rc = cu->EventRecord(b->e0, d->stream)))
		goto fail;
	for (i = 0; i < reps; i++)
		if ((rc = op(b, d, arg)) != 0)
			goto fail;
	if ((rc = cu->EventRecord(b->e1, d->stream)))
		goto fail;
	bench_sample(b, d, clk);
	if ((rc = cu->EventSynchronize(b->e1)) || (rc = cu->EventElapsedTime(&ms, b->e0, b->e1)))
		goto fail;
	bench_sample(b, d, clk);
	if (!(ms > 0))
		goto fail;
	return ms / 1e3 / reps;
fail:
	bench_skip(b->r, "%s on GPU %d failed (error %d)", what, d->index, rc);
	return NAN;
}

static int current(struct bench_ctx *b, struct bench_dev *d)
{
	return b->libs->cu.CtxSetCurrent(d->ctx);
}

/* ---- GEMM ---- */

struct gemm_dtype {
	const char *name;
	int type, out_type, compute;
	double bytes; /* per element of A and B */
};
static const struct gemm_dtype dtypes[] = {
	{"fp32", BENCH_CUDA_R_32F, BENCH_CUDA_R_32F, BENCH_CUBLAS_COMPUTE_32F, 4},
	{"tf32", BENCH_CUDA_R_32F, BENCH_CUDA_R_32F, BENCH_CUBLAS_COMPUTE_32F_FAST_TF32, 4},
	{"fp16", BENCH_CUDA_R_16F, BENCH_CUDA_R_16F, BENCH_CUBLAS_COMPUTE_32F, 2},
	{"bf16", BENCH_CUDA_R_16BF, BENCH_CUDA_R_16BF, BENCH_CUBLAS_COMPUTE_32F, 2},
	/* fp8 e4m3 inputs, bf16 out: the layout cuBLASLt supports on Hopper and Ada (TN only) */
	{"fp8", BENCH_CUDA_R_8F_E4M3, BENCH_CUDA_R_16BF, BENCH_CUBLAS_COMPUTE_32F, 1},
};
#define GEMM_WORKSPACE (32u << 20)

struct gemm_run {
	cublasLtHandle_t h;
	cublasLtMatmulDesc_t desc;
	cublasLtMatrixLayout_t a, bl, c;
	cublasLtMatmulHeuristicResult_t algo;
	CUdeviceptr A, B, C, ws;
};

static int gemm_op(struct bench_ctx *b, struct bench_dev *d, void *arg)
{
	struct gemm_run *g = arg;
	static const float one = 1, zero = 0;
	return b->libs->lt.Matmul(g->h, g->desc, &one, (void *)(uintptr_t)g->A, g->a, (void *)(uintptr_t)g->B,
				  g->bl, &zero, (void *)(uintptr_t)g->C, g->c, (void *)(uintptr_t)g->C, g->c,
				  &g->algo.algo, (void *)(uintptr_t)g->ws, GEMM_WORKSPACE, d->stream);
}

/* Fills n bytes at p with the write kernel's finite pattern (zeros would draw less power). */
static int fill(struct bench_ctx *b, struct bench_dev *d, CUdeviceptr p, double bytes)
{
	unsigned long long words = (unsigned long long)(bytes / 16);
	void *params[] = {&p, &words};
	return b->libs->cu.LaunchKernel(b->f_write, 1024, 1, 1, 256, 1, 1, 0, d->stream, params, NULL);
}

/* One shape in one dtype: a row, or nothing when the part has no kernel for it. */
static void gemm_one(struct bench_ctx *b, struct bench_dev *d, cublasLtHandle_t h, const struct gemm_dtype *t,
		     double m, double n, double k, const char *label)
{
	const struct bench_cublaslt_api *lt = &b->libs->lt;
	const struct bench_cuda_api *cu = &b->libs->cu;
	struct gemm_run g;
	cublasLtMatmulPreference_t pref = NULL;
	uint64_t ws = GEMM_WORKSPACE;
	int ta = BENCH_CUBLAS_OP_T, tb = BENCH_CUBLAS_OP_N, got = 0;
	double out_bytes = t->out_type == BENCH_CUDA_R_32F ? 4 : 2, secs;
	struct bench_row *row;
	struct bench_clocks clk = {0, NAN, NAN, NAN, NAN, NAN, 0};
	memset(&g, 0, sizeof(g));
	g.h = h;
	/* D (m x n, column-major) = op(A) B with A stored k x m (transposed) and B k x n: "TN" */
	if (lt->DescCreate(&g.desc, t->compute, BENCH_CUDA_R_32F) ||
	    lt->DescSetAttribute(g.desc, BENCH_CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)) ||
	    lt->DescSetAttribute(g.desc, BENCH_CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)) ||
	    lt->LayoutCreate(&g.a, t->type, (uint64_t)k, (uint64_t)m, (int64_t)k) ||
	    lt->LayoutCreate(&g.bl, t->type, (uint64_t)k, (uint64_t)n, (int64_t)k) ||
	    lt->LayoutCreate(&g.c, t->out_type, (uint64_t)m, (uint64_t)n, (int64_t)m) || lt->PrefCreate(&pref) ||
	    lt->PrefSetAttribute(pref, BENCH_CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)))
		goto out;
	if (lt->AlgoGetHeuristic(h, g.desc, g.a, g.bl, g.c, g.c, pref, 1, &g.algo, &got) || got < 1)
		goto out; /* no kernel for this dtype on this part: not a failure */
	if (cu->MemAlloc(&g.A, (size_t)(m * k * t->bytes)) || cu->MemAlloc(&g.B, (size_t)(k * n * t->bytes)) ||
	    cu->MemAlloc(&g.C, (size_t)(m * n * out_bytes)) || cu->MemAlloc(&g.ws, GEMM_WORKSPACE)) {
		bench_skip(b->r, "gemm %s %.0fx%.0fx%.0f on GPU %d: out of device memory", t->name, m, n, k,
			   d->index);
		goto out;
	}
	if (fill(b, d, g.A, m * k * t->bytes) || fill(b, d, g.B, k * n * t->bytes))
		goto out;
	secs = bench_timed(b, d, gemm_op, &g, b->o->quick ? 5 : 20, "gemm", &clk);
	if (isnan(secs))
		goto out;
	row = bench_add_row(b->r, "gemm", d->index);
	row->dtype = t->name;
	row->label = label ? xstrdup(label) : NULL;
	row->m = m;
	row->n = n;
	row->k = k;
	row->time_s = secs;
	row->tflops = 2 * m * n * k / secs / 1e12;
	row->clk = clk;
out:
	if (g.A)
		cu->MemFree(g.A);
	if (g.B)
		cu->MemFree(g.B);
	if (g.C)
		cu->MemFree(g.C);
	if (g.ws)
		cu->MemFree(g.ws);
	if (pref)
		lt->PrefDestroy(pref);
	if (g.a)
		lt->LayoutDestroy(g.a);
	if (g.bl)
		lt->LayoutDestroy(g.bl);
	if (g.c)
		lt->LayoutDestroy(g.c);
	if (g.desc)
		lt->DescDestroy(g.desc);
}

/*
 * Square sweep 1024..8192 in every dtype, then the caller's shapes (a
 * model's layers) in the 16-bit dtypes, on GPU 0: every GPU of a host is
 * one type.  --quick times 8192^3 alone, on each GPU.
 */
void bench_gemm(struct bench_ctx *b)
{
	static const double sizes[] = {1024, 2048, 4096, 8192};
	cublasLtHandle_t h;
	size_t t, s;
	int i;
	/* the sweep on GPU 0; --quick: 8192^3 on every GPU, to compare them */
	for (i = 0; i < (b->o->quick ? b->ndevs : 1); i++) {
		struct bench_dev *d = &b->devs[i];
		if (current(b, d) || b->libs->lt.Create(&h)) {
			bench_skip(b->r, "gemm: cublasLtCreate failed on GPU %d", i);
			return;
		}
		for (t = 0; t < sizeof(dtypes) / sizeof(dtypes[0]); t++)
			for (s = b->o->quick ? 3 : 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
				gemm_one(b, d, h, &dtypes[t], sizes[s], sizes[s], sizes[s], NULL);
		for (s = 0; i == 0 && s < b->o->nshapes; s++)
			for (t = 2; t < 4; t++)
				gemm_one(b, d, h, &dtypes[t], b->o->shapes[s].m, b->o->shapes[s].n,
					 b->o->shapes[s].k, b->o->shapes[s].label);
		b->libs->lt.Destroy(h);
	}
}

/* ---- HBM ---- */

struct kernel_run {
	CUfunction f;
	CUdeviceptr a, b2, sink;
	unsigned long long words;
	unsigned grid;
};

static int kernel_op(struct bench_ctx *b, struct bench_dev *d, void *arg)
{
	struct kernel_run *k = arg;
	void *read_params[] = {&k->a, &k->words, &k->sink};
	void *write_params[] = {&k->a, &k->words};
	void *copy_params[] = {&k->b2, &k->a, &k->words};
	void **p = k->f == b->f_read ? read_params : k->f == b->f_write ? write_params : copy_params;
	return b->libs->cu.LaunchKernel(k->f, k->grid, 1, 1, 256, 1, 1, 0, d->stream, p, NULL);
}

void bench_hbm(struct bench_ctx *b)
{
	const struct bench_cuda_api *cu = &b->libs->cu;
	static const char *const tests[] = {"hbm-read", "hbm-write", "hbm-copy"};
	int i, t;
	for (i = 0; i < b->ndevs; i++) {
		struct bench_dev *d = &b->devs[i];
		struct kernel_run k;
		int sms = 0;
		/* 1 GiB per buffer: far past any cache (H100's L2 is 50 MB) */
		double bytes = 1073741824.0;
		memset(&k, 0, sizeof(k));
		if (current(b, d) || cu->MemAlloc(&k.a, (size_t)bytes) || cu->MemAlloc(&k.b2, (size_t)bytes) ||
		    cu->MemAlloc(&k.sink, 16)) {
			bench_skip(b->r, "hbm on GPU %d: cannot allocate 2 GiB", d->index);
			goto next;
		}
		cu->DeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d->dev);
		k.grid = (unsigned)(sms > 0 ? sms * 8 : 1024);
		k.words = (unsigned long long)(bytes / 16);
		if (fill(b, d, k.a, bytes))
			goto next;
		for (t = 0; t < 3; t++) {
			struct bench_clocks clk = {0, NAN, NAN, NAN, NAN, NAN, 0};
			struct bench_row *row;
			double secs;
			k.f = t == 0 ? b->f_read : t == 1 ? b->f_write : b->f_copy;
			secs = bench_timed(b, d, kernel_op, &k, b->o->quick ? 3 : 10, tests[t], &clk);
			if (isnan(secs))
				continue;
			row = bench_add_row(b->r, tests[t], d->index);
			/* copy moves each word twice: a read and a write (STREAM's convention) */
			row->bytes = t == 2 ? 2 * bytes : bytes;
			row->time_s = secs;
			row->gbps = row->bytes / secs / 1e9;
			row->clk = clk;
		}
	next:
		if (k.a)
			cu->MemFree(k.a);
		if (k.b2)
			cu->MemFree(k.b2);
		if (k.sink)
			cu->MemFree(k.sink);
	}
}

/* ---- host copies and peers ---- */

struct copy_run {
	int kind; /* 0 h2d, 1 d2h, 2 peer */
	void *host;
	CUdeviceptr dev, peer_buf;
	CUcontext peer_ctx;
	size_t bytes;
};

static int copy_op(struct bench_ctx *b, struct bench_dev *d, void *arg)
{
	struct copy_run *c = arg;
	const struct bench_cuda_api *cu = &b->libs->cu;
	if (c->kind == 0)
		return cu->MemcpyHtoDAsync(c->dev, c->host, c->bytes, d->stream);
	if (c->kind == 1)
		return cu->MemcpyDtoHAsync(c->host, c->dev, c->bytes, d->stream);
	return cu->MemcpyPeerAsync(c->peer_buf, c->peer_ctx, c->dev, d->ctx, c->bytes, d->stream);
}

static void copy_row(struct bench_ctx *b, struct bench_dev *d, struct copy_run *c, const char *test, int peer)
{
	struct bench_clocks clk = {0, NAN, NAN, NAN, NAN, NAN, 0};
	double secs = bench_timed(b, d, copy_op, c, b->o->quick ? 3 : 10, test, &clk);
	struct bench_row *row;
	if (isnan(secs))
		return;
	row = bench_add_row(b->r, test, d->index);
	row->peer = peer;
	row->bytes = (double)c->bytes;
	row->time_s = secs;
	row->gbps = (double)c->bytes / secs / 1e9;
	row->clk = clk;
}

void bench_host(struct bench_ctx *b)
{
	const struct bench_cuda_api *cu = &b->libs->cu;
	struct copy_run c;
	int i;
	memset(&c, 0, sizeof(c));
	c.bytes = (size_t)256 << 20;
	if (current(b, &b->devs[0]) || cu->MemAllocHost(&c.host, c.bytes)) {
		bench_skip(b->r, "h2d/d2h: cannot pin 256 MiB of host memory");
		return;
	}
	for (i = 0; i < b->ndevs; i++) {
		struct bench_dev *d = &b->devs[i];
		c.dev = 0;
		if (current(b, d) || cu->MemAlloc(&c.dev, c.bytes))
			continue;
		c.kind = 0;
		copy_row(b, d, &c, "h2d", -1);
		c.kind = 1;
		copy_row(b, d, &c, "d2h", -1);
		cu->MemFree(c.dev);
	}
	current(b, &b->devs[0]);
	cu->MemFreeHost(c.host);
}

/* Every ordered pair: src's stream copies src -> dst (peer access on where the pair has it). */
void bench_p2p(struct bench_ctx *b)
{
	const struct bench_cuda_api *cu = &b->libs->cu;
	CUdeviceptr *buf = xcalloc((size_t)b->ndevs, sizeof(*buf));
	size_t bytes = (size_t)(b->o->quick ? 64 : 256) << 20;
	int i, j;
	if (b->ndevs < 2) {
		bench_skip(b->r, "p2p: one GPU");
		free(buf);
		return;
	}
	for (i = 0; i < b->ndevs; i++)
		if (current(b, &b->devs[i]) || cu->MemAlloc(&buf[i], bytes))
			buf[i] = 0;
	for (i = 0; i < b->ndevs; i++) {
		for (j = 0; j < b->ndevs; j++) {
			struct copy_run c;
			int can = 0;
			if (i == j || !buf[i] || !buf[j])
				continue;
			current(b, &b->devs[i]);
			if (cu->DeviceCanAccessPeer(&can, b->devs[i].dev, b->devs[j].dev) == 0 && can)
				cu->CtxEnablePeerAccess(b->devs[j].ctx, 0); /* already enabled is fine */
			memset(&c, 0, sizeof(c));
			c.kind = 2;
			c.dev = buf[i];
			c.peer_buf = buf[j];
			c.peer_ctx = b->devs[j].ctx;
			c.bytes = bytes;
			copy_row(b, &b->devs[i], &c, "p2p", j);
		}
	}
	for (i = 0; i < b->ndevs; i++)
		if (buf[i]) {
			current(b, &b->devs[i]);
			cu->MemFree(buf[i]);
		}
	free(buf);
}

/* ---- launches ---- */

static int empty_op(struct bench_ctx *b, struct bench_dev *d, void *arg)
{
	return b->libs->cu.LaunchKernel(b->f_empty, 1, 1, 1, 32, 1, 1, 0, d->stream, NULL, NULL);
}

static int graph_op(struct bench_ctx *b, struct bench_dev *d, void *arg)
{
	return b->libs->cu.GraphLaunch(*(CUgraphExec *)arg, d->stream);
}

static void latency_row(struct bench_ctx *b, struct bench_dev *d, const char *test, bench_op op, void *arg)
{
	struct bench_clocks clk = {0, NAN, NAN, NAN, NAN, NAN, 0};
	double secs = bench_timed(b, d, op, arg, 1000, test, &clk);
	struct bench_row *row;
	if (isnan(secs))
		return;
	row = bench_add_row(b->r, test, d->index);
	row->time_s = secs;
	row->latency_s = secs;
	row->clk = clk;
}

/*
 * 1,000 empty kernels back to back: the time per launch as the GPU sees it
 * (what a stream of small kernels costs); then a graph of one empty kernel,
 * captured once and replayed 1,000 times.
 */
void bench_launch(struct bench_ctx *b)
{
	const struct bench_cuda_api *cu = &b->libs->cu;
	struct bench_dev *d = &b->devs[0];
	CUgraph g = NULL;
	CUgraphExec e = NULL;
	if (current(b, d))
		return;
	latency_row(b, d, "launch", empty_op, NULL);
	if (cu->StreamBeginCapture(d->stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) || empty_op(b, d, NULL) ||
	    cu->StreamEndCapture(d->stream, &g) || cu->GraphInstantiate(&e, g, 0)) {
		bench_skip(b->r, "graph: capture of an empty kernel failed");
	} else {
		latency_row(b, d, "graph", graph_op, &e);
	}
	if (e)
		cu->GraphExecDestroy(e);
	if (g)
		cu->GraphDestroy(g);
}
