/*
 * NCCL collectives over every local GPU: one communicator per GPU from
 * ncclCommInitAll, each operation issued on every GPU inside one group
 * (one thread drives them all) and timed by the events of GPU 0's stream.
 * Bus bandwidth follows nccl-tests (doc/PERFORMANCE.md): for a message of S
 * bytes (all-reduce: the buffer; all-gather, reduce-scatter: the gathered
 * whole) taking t, algbw = S / t and
 *   all-reduce      busbw = algbw x 2 (n-1) / n
 *   all-gather      busbw = algbw x (n-1) / n
 *   reduce-scatter  busbw = algbw x (n-1) / n
 * the rate each GPU's link moves, comparable with its peak.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_int.h"
#include "util/xalloc.h"

enum {
	ALL_REDUCE,
	ALL_GATHER,
	REDUCE_SCATTER
};
static const char *const names[] = {"all-reduce", "all-gather", "reduce-scatter"};

struct coll_run {
	int op;
	size_t bytes; /* S */
	ncclComm_t *comms;
	CUdeviceptr *send, *recv;
};

static int coll_op(struct bench_ctx *b, struct bench_dev *d0, void *arg)
{
	const struct bench_nccl_api *nc = &b->libs->nccl;
	struct coll_run *c = arg;
	size_t n = (size_t)b->ndevs, count = c->bytes / 4;
	int i, rc = nc->GroupStart();
	for (i = 0; i < b->ndevs && !rc; i++) {
		void *s = (void *)(uintptr_t)c->send[i], *r = (void *)(uintptr_t)c->recv[i];
		CUstream st = b->devs[i].stream;
		if (c->op == ALL_REDUCE)
			rc = nc->AllReduce(s, r, count, BENCH_NCCL_FLOAT, BENCH_NCCL_SUM, c->comms[i], st);
		else if (c->op == ALL_GATHER)
			rc = nc->AllGather(s, r, count / n, BENCH_NCCL_FLOAT, c->comms[i], st);
		else
			rc = nc->ReduceScatter(s, r, count / n, BENCH_NCCL_FLOAT, BENCH_NCCL_SUM, c->comms[i], st);
	}
	return nc->GroupEnd() ? -1 : rc;
}

void bench_nccl(struct bench_ctx *b)
{
	static const double mib[] = {1, 16, 256, 1024};
	const struct bench_cuda_api *cu = &b->libs->cu;
	struct coll_run c;
	int *devs = xcalloc((size_t)b->ndevs, sizeof(int));
	size_t max = (size_t)1 << 30, s;
	int i, op;
	memset(&c, 0, sizeof(c));
	c.comms = xcalloc((size_t)b->ndevs, sizeof(*c.comms));
	c.send = xcalloc((size_t)b->ndevs, sizeof(*c.send));
	c.recv = xcalloc((size_t)b->ndevs, sizeof(*c.recv));
	for (i = 0; i < b->ndevs; i++)
		devs[i] = b->devs[i].dev;
	if (b->libs->nccl.CommInitAll(c.comms, b->ndevs, devs)) {
		bench_skip(b->r, "collectives: ncclCommInitAll failed over %d GPUs", b->ndevs);
		goto out;
	}
	for (i = 0; i < b->ndevs; i++)
		if (cu->CtxSetCurrent(b->devs[i].ctx) || cu->MemAlloc(&c.send[i], max) ||
		    cu->MemAlloc(&c.recv[i], max)) {
			bench_skip(b->r, "collectives: cannot allocate 2 GiB on GPU %d", i);
			goto out;
		}
	cu->CtxSetCurrent(b->devs[0].ctx);
	for (op = 0; op < 3; op++)
		for (s = b->o->quick ? 2 : 0; s < sizeof(mib) / sizeof(mib[0]); s++) {
			struct bench_clocks clk = {0, NAN, NAN, NAN, NAN, NAN, 0};
			struct bench_row *row;
			double secs, n = b->ndevs;
			c.op = op;
			/* a whole number of fp32 words on every GPU */
			c.bytes = (size_t)(mib[s] * 1048576) / (4 * (size_t)b->ndevs) * 4 * (size_t)b->ndevs;
			secs = bench_timed(b, &b->devs[0], coll_op, &c, b->o->quick ? 3 : 10, names[op], &clk);
			if (isnan(secs))
				continue;
			row = bench_add_row(b->r, names[op], -1);
			row->dtype = "fp32";
			row->bytes = (double)c.bytes;
			row->time_s = secs;
			row->gbps = (double)c.bytes / secs / 1e9;
			row->busbw_gbps = row->gbps * (op == ALL_REDUCE ? 2 * (n - 1) / n : (n - 1) / n);
			row->clk = clk;
		}
out:
	for (i = 0; i < b->ndevs; i++) {
		cu->CtxSetCurrent(b->devs[i].ctx);
		if (c.send[i])
			cu->MemFree(c.send[i]);
		if (c.recv[i])
			cu->MemFree(c.recv[i]);
		if (c.comms[i])
			b->libs->nccl.CommDestroy(c.comms[i]);
	}
	free(c.comms);
	free(c.send);
	free(c.recv);
	free(devs);
}
