/*
 * A stand-in libcuda.so.1 with a virtual clock, for `gpuscope bench` tests.
 *
 * Nothing runs: every operation moves its stream's clock on by the time the
 * scenario's ceilings give it, and events read that clock, so the figures
 * bench measures are known in advance:
 *
 *   kernel launch      launch_us (latency of one launch, back to back)
 *   graph replay       graph_us
 *   HBM kernels        bytes / (hbm_gbps x clock share^0.1): read and write n x 16
 *                      bytes, copy 2 n x 16; the read-write turnaround costs copies
 *                      copy_eff of the rate
 *   H2D, D2H           bytes / h2d_gbps, bytes / d2h_gbps
 *   peer copies        bytes / p2p_gbps, pairs that cannot reach each other: pcie_p2p_gbps
 *
 * The scenario ($FAKE_CUDA_SCENARIO) is "key = value" lines, '#' starts a
 * comment; unknown keys are reported and make cuInit fail, so a typo cannot
 * pass.  Without a scenario cuInit fails with CUDA_ERROR_NO_DEVICE (100).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fake.h"

#define MAXGPU 16

static const char *const keys[] = {
	"gpus",      "name",        "sms",         "cc_major",  "cc_minor",  "mem_gib",          "driver_version",
	"clock_khz", "clock_share", "peak_fp32",   "peak_tf32", "peak_fp16", "peak_bf16",        "peak_fp8",
	"gemm_eff",  "gemm_x0",     "hbm_gbps",    "copy_eff",  "h2d_gbps",  "d2h_gbps",         "p2p_gbps",
	"p2p_none",  "bus_gbps",    "nccl_lat_us", "launch_us", "graph_us",  "cublaslt_version", "nccl_version",
	NULL};

static struct {
	int loaded, bad;
	double v[sizeof(keys) / sizeof(keys[0])];
	int set[sizeof(keys) / sizeof(keys[0])];
	char name[96];
} sc;

static void load(void)
{
	const char *path = getenv("FAKE_CUDA_SCENARIO");
	char line[256];
	FILE *f;
	int lineno = 0;
	if (sc.loaded)
		return;
	sc.loaded = 1;
	snprintf(sc.name, sizeof(sc.name), "NVIDIA Fake GPU");
	if (!path || !(f = fopen(path, "r"))) {
		sc.bad = 100;
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *k = line, *eq, *val, *end;
		size_t i, n;
		lineno++;
		line[strcspn(line, "#\n")] = '\0';
		while (isspace((unsigned char)*k))
			k++;
		if (!*k)
			continue;
		eq = strchr(k, '=');
		if (!eq) {
			fprintf(stderr, "fake-cuda: %s:%d: expected key = value\n", path, lineno);
			sc.bad = 999;
			continue;
		}
		for (end = eq; end > k && isspace((unsigned char)end[-1]); end--)
			;
		n = (size_t)(end - k);
		val = eq + 1;
		while (isspace((unsigned char)*val))
			val++;
		for (end = val + strlen(val); end > val && isspace((unsigned char)end[-1]); end--)
			;
		*end = '\0';
		for (i = 0; keys[i] && (strlen(keys[i]) != n || strncmp(keys[i], k, n)); i++)
			;
		if (!keys[i]) {
			fprintf(stderr, "fake-cuda: %s:%d: unknown key '%.*s'\n", path, lineno, (int)n, k);
			sc.bad = 999;
			continue;
		}
		if (!strcmp(keys[i], "name"))
			snprintf(sc.name, sizeof(sc.name), "%s", val);
		else
			sc.v[i] = strtod(val, NULL);
		sc.set[i] = 1;
	}
	fclose(f);
}

double fakecuda_num(const char *key, double def)
{
	size_t i;
	load();
	for (i = 0; keys[i]; i++)
		if (!strcmp(keys[i], key))
			return sc.set[i] ? sc.v[i] : def;
	return def;
}

struct CUctx_st {
	int dev;
};
struct CUstream_st {
	int dev;
	double t;
};
struct CUevent_st {
	double t;
};
struct CUmod_st {
	int loaded;
};
struct CUfunc_st {
	const char *name;
};
struct CUgraph_st {
	int launches; /* kernels captured */
};
struct CUgraphExec_st {
	int launches;
};

static struct CUctx_st ctxs[MAXGPU];
static struct CUstream_st null_streams[MAXGPU];
static int current = -1;
static int ngpus;
static struct CUstream_st *capturing;
static int captured;

static struct CUstream_st *stream_of(CUstream s)
{
	return s ? s : &null_streams[current < 0 ? 0 : current];
}

void fakecuda_advance(CUstream s, double seconds)
{
	stream_of(s)->t += seconds;
}
double fakecuda_now(CUstream s)
{
	return stream_of(s)->t;
}
void fakecuda_set(CUstream s, double t_s)
{
	stream_of(s)->t = t_s;
}

#define OK 0
#define ERR_INVALID_VALUE 1
#define ERR_NOT_INITIALIZED 3
#define ERR_INVALID_CONTEXT 201
#define ERR_NOT_FOUND 500
#define ERR_INVALID_IMAGE 200

FAKE_API CUresult cuInit(unsigned flags)
{
	load();
	if (sc.bad)
		return sc.bad;
	ngpus = (int)fakecuda_num("gpus", 1);
	if (ngpus > MAXGPU)
		ngpus = MAXGPU;
	return OK;
}
FAKE_API CUresult cuDriverGetVersion(int *v)
{
	*v = (int)fakecuda_num("driver_version", 13000);
	return OK;
}
FAKE_API CUresult cuGetErrorString(CUresult e, const char **s)
{
	*s = e == 100 ? "no CUDA-capable device is detected" : "fake error";
	return OK;
}
FAKE_API CUresult cuDeviceGetCount(int *n)
{
	*n = ngpus;
	return ngpus || !sc.bad ? OK : ERR_NOT_INITIALIZED;
}
FAKE_API CUresult cuDeviceGet(CUdevice *d, int i)
{
	if (i < 0 || i >= ngpus)
		return ERR_INVALID_VALUE;
	*d = i;
	return OK;
}
FAKE_API CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
	snprintf(name, (size_t)len, "%s", sc.name);
	return OK;
}
FAKE_API CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d)
{
	switch (attr) {
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
		*v = (int)fakecuda_num("sms", 132);
		return OK;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
		*v = (int)fakecuda_num("cc_major", 9);
		return OK;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
		*v = (int)fakecuda_num("cc_minor", 0);
		return OK;
	case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
		*v = (int)fakecuda_num("clock_khz", 1980000);
		return OK;
	}
	return ERR_INVALID_VALUE;
}
FAKE_API CUresult cuDeviceGetPCIBusId(char *id, int len, CUdevice d)
{
	/* the fake NVML's default bus: index + 1 */
	snprintf(id, (size_t)len, "0000:%02X:00.0", d + 1);
	return OK;
}
FAKE_API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d)
{
	*bytes = (size_t)(fakecuda_num("mem_gib", 80) * 1073741824.0);
	return OK;
}
FAKE_API CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
	if (d < 0 || d >= ngpus)
		return ERR_INVALID_VALUE;
	ctxs[d].dev = d;
	*c = &ctxs[d];
	return OK;
}
FAKE_API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d)
{
	return OK;
}
FAKE_API CUresult cuCtxSetCurrent(CUcontext c)
{
	current = c ? c->dev : -1;
	return OK;
}
FAKE_API CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
	/* the real driver compiles the PTX; this one checks it looks like PTX */
	if (!strstr((const char *)image, ".version") || !strstr((const char *)image, ".entry"))
		return ERR_INVALID_IMAGE;
	*m = calloc(1, sizeof(**m));
	return *m ? OK : 2;
}
FAKE_API CUresult cuModuleUnload(CUmodule m)
{
	free(m);
	return OK;
}
static struct CUfunc_st funcs[] = {{"gs_read"}, {"gs_write"}, {"gs_copy"}, {"gs_empty"}};
FAKE_API CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
	size_t i;
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (!strcmp(funcs[i].name, name)) {
			*f = &funcs[i];
			return OK;
		}
	return ERR_NOT_FOUND;
}

/* The HBM rate at this clock share: memory clocks do not drop with the SM clock, the fabric a little. */
static double hbm_bps(void)
{
	return fakecuda_num("hbm_gbps", 3000) * 1e9 * pow(fakecuda_num("clock_share", 1), 0.1);
}

FAKE_API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
				 unsigned bz, unsigned shared_bytes, CUstream s, void **params, void **extra)
{
	double t = fakecuda_num("launch_us", 2.5) * 1e-6, words;
	if (current < 0)
		return ERR_INVALID_CONTEXT;
	if (capturing && stream_of(s) == capturing) {
		captured++;
		return OK;
	}
	if (!strcmp(f->name, "gs_read")) {
		words = (double)*(unsigned long long *)params[1];
		t += words * 16 / hbm_bps();
	} else if (!strcmp(f->name, "gs_write")) {
		words = (double)*(unsigned long long *)params[1];
		t += words * 16 / hbm_bps();
	} else if (!strcmp(f->name, "gs_copy")) {
		words = (double)*(unsigned long long *)params[2];
		t += 2 * words * 16 / (hbm_bps() * fakecuda_num("copy_eff", 0.95));
	}
	fakecuda_advance(s, t);
	return OK;
}

static unsigned long long next_addr = 0x7f0000000000ull;
FAKE_API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes)
{
	/* device memory is never touched here: an address is enough */
	if (current < 0)
		return ERR_INVALID_CONTEXT;
	*p = next_addr;
	next_addr += (bytes + 0xfffff) & ~0xfffffull;
	return OK;
}
FAKE_API CUresult cuMemFree_v2(CUdeviceptr p)
{
	return OK;
}
FAKE_API CUresult cuMemAllocHost_v2(void **p, size_t bytes)
{
	void *m = mmap(NULL, bytes + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 2;
	*(size_t *)m = bytes + 4096;
	*p = (char *)m + 4096;
	return OK;
}
FAKE_API CUresult cuMemFreeHost(void *p)
{
	char *m = (char *)p - 4096;
	munmap(m, *(size_t *)m);
	return OK;
}
FAKE_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
	fakecuda_advance(s, (double)bytes / (fakecuda_num("h2d_gbps", 55) * 1e9));
	return OK;
}
FAKE_API CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
	fakecuda_advance(s, (double)bytes / (fakecuda_num("d2h_gbps", 55) * 1e9));
	return OK;
}
FAKE_API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s)
{
	fakecuda_advance(s, 2.0 * (double)bytes / (hbm_bps() * fakecuda_num("copy_eff", 0.95)));
	return OK;
}
/* p2p_none = 1: no peer access between GPUs of different halves (two PCIe switches) */
static int can_peer(int a, int b)
{
	return !(fakecuda_num("p2p_none", 0) > 0 && (a < ngpus / 2) != (b < ngpus / 2));
}
FAKE_API CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx, size_t bytes,
				    CUstream s)
{
	double bw = can_peer(dctx->dev, sctx->dev) ? fakecuda_num("p2p_gbps", 350) :
						     fakecuda_num("d2h_gbps", 55) / 2;
	fakecuda_advance(s, (double)bytes / (bw * 1e9));
	return OK;
}
FAKE_API CUresult cuDeviceCanAccessPeer(int *can, CUdevice d, CUdevice peer)
{
	*can = can_peer(d, peer);
	return OK;
}
FAKE_API CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned flags)
{
	return OK;
}
FAKE_API CUresult cuStreamCreate(CUstream *s, unsigned flags)
{
	if (current < 0)
		return ERR_INVALID_CONTEXT;
	*s = calloc(1, sizeof(**s));
	if (!*s)
		return 2;
	(*s)->dev = current;
	return OK;
}
FAKE_API CUresult cuStreamDestroy_v2(CUstream s)
{
	free(s);
	return OK;
}
FAKE_API CUresult cuStreamSynchronize(CUstream s)
{
	return OK;
}
FAKE_API CUresult cuEventCreate(CUevent *e, unsigned flags)
{
	*e = calloc(1, sizeof(**e));
	return *e ? OK : 2;
}
FAKE_API CUresult cuEventDestroy_v2(CUevent e)
{
	free(e);
	return OK;
}
FAKE_API CUresult cuEventRecord(CUevent e, CUstream s)
{
	e->t = stream_of(s)->t;
	return OK;
}
FAKE_API CUresult cuEventSynchronize(CUevent e)
{
	return OK;
}
FAKE_API CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b)
{
	*ms = (float)((b->t - a->t) * 1e3);
	return OK;
}
FAKE_API CUresult cuStreamBeginCapture_v2(CUstream s, int mode)
{
	if (!s || capturing)
		return ERR_INVALID_VALUE;
	capturing = s;
	captured = 0;
	return OK;
}
FAKE_API CUresult cuStreamEndCapture(CUstream s, CUgraph *g)
{
	if (capturing != s)
		return ERR_INVALID_VALUE;
	capturing = NULL;
	*g = calloc(1, sizeof(**g));
	if (!*g)
		return 2;
	(*g)->launches = captured;
	return OK;
}
FAKE_API CUresult cuGraphInstantiateWithFlags(CUgraphExec *e, CUgraph g, unsigned long long flags)
{
	*e = calloc(1, sizeof(**e));
	if (!*e)
		return 2;
	(*e)->launches = g->launches;
	return OK;
}
FAKE_API CUresult cuGraphLaunch(CUgraphExec e, CUstream s)
{
	/* a replay costs graph_us, whatever the (empty) kernels in it */
	fakecuda_advance(s, fakecuda_num("graph_us", 4.0) * 1e-6);
	return OK;
}
FAKE_API CUresult cuGraphExecDestroy(CUgraphExec e)
{
	free(e);
	return OK;
}
FAKE_API CUresult cuGraphDestroy(CUgraph g)
{
	free(g);
	return OK;
}
