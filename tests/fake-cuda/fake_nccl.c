/*
 * A stand-in libnccl.so.2 on fake_cuda.c's clock.  Collectives between
 * ncclGroupStart and ncclGroupEnd run together: every stream of the group
 * waits for the last one, then all move on by
 *
 *   t = nccl_lat_us + bus bytes / bus_gbps,  bus bytes = S x 2 (n-1)/n (all-reduce), S (n-1)/n (gathers)
 *
 * where S is the message (the all-reduce buffer, the gathered output), the
 * ring algorithm's traffic per GPU (NCCL's doc/PERFORMANCE.md, "bus bandwidth").
 */
#include <stdlib.h>

#include "fake.h"

struct ncclComm {
	int dev, n;
};

#define MAXOPS 64
static struct {
	CUstream s;
	double bus_bytes;
} ops[MAXOPS];
static int nops, depth;

FAKE_API ncclResult_t ncclGetVersion(int *v)
{
	*v = (int)fakecuda_num("nccl_version", 22105);
	return 0;
}
FAKE_API const char *ncclGetErrorString(ncclResult_t r)
{
	return "fake nccl error";
}
FAKE_API ncclResult_t ncclCommInitAll(ncclComm_t *comms, int n, const int *devs)
{
	int i;
	for (i = 0; i < n; i++) {
		comms[i] = calloc(1, sizeof(*comms[i]));
		if (!comms[i])
			return 1;
		comms[i]->dev = devs ? devs[i] : i;
		comms[i]->n = n;
	}
	return 0;
}
FAKE_API ncclResult_t ncclCommDestroy(ncclComm_t c)
{
	free(c);
	return 0;
}

static void run_ops(void)
{
	double start = 0, t = 0;
	int i;
	for (i = 0; i < nops; i++) {
		double now = fakecuda_now(ops[i].s);
		double ti = fakecuda_num("nccl_lat_us", 20) * 1e-6 +
			    ops[i].bus_bytes / (fakecuda_num("bus_gbps", 360) * 1e9);
		if (now > start)
			start = now;
		if (ti > t)
			t = ti;
	}
	for (i = 0; i < nops; i++)
		fakecuda_set(ops[i].s, start + t);
	nops = 0;
}

static ncclResult_t add(CUstream s, double bus_bytes)
{
	if (nops == MAXOPS)
		return 4; /* ncclInvalidUsage */
	ops[nops].s = s;
	ops[nops].bus_bytes = bus_bytes;
	nops++;
	if (!depth)
		run_ops();
	return 0;
}

FAKE_API ncclResult_t ncclGroupStart(void)
{
	depth++;
	return 0;
}
FAKE_API ncclResult_t ncclGroupEnd(void)
{
	if (depth <= 0)
		return 4;
	if (--depth == 0)
		run_ops();
	return 0;
}
static double elem_bytes(int type)
{
	return type == 7 || type == 2 || type == 3 ? 4 :
	       type == 6 || type == 9              ? 2 :
	       type == 8 || type == 4 || type == 5 ? 8 :
						     1;
}
FAKE_API ncclResult_t ncclAllReduce(const void *sb, void *rb, size_t count, int type, int op, ncclComm_t c,
				    CUstream s)
{
	double S = (double)count * elem_bytes(type);
	return add(s, S * 2 * (c->n - 1) / c->n);
}
FAKE_API ncclResult_t ncclAllGather(const void *sb, void *rb, size_t count, int type, ncclComm_t c, CUstream s)
{
	double S = (double)count * elem_bytes(type) * c->n;
	return add(s, S * (c->n - 1) / c->n);
}
FAKE_API ncclResult_t ncclReduceScatter(const void *sb, void *rb, size_t count, int type, int op, ncclComm_t c,
					CUstream s)
{
	double S = (double)count * elem_bytes(type) * c->n;
	return add(s, S * (c->n - 1) / c->n);
}
