/*
 * bench_run: loads the libraries, opens every GPU, matches each to its
 * NVML device by PCI bus id, runs the parts asked for and adds what the
 * catalog and the model expect beside each figure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "bench/bench_int.h"
#include "gpu/gpu.h"
#include "model/model.h"
#include "util/xalloc.h"

const char *bench_ptx_text(void)
{
	return bench_ptx;
}

const char *bench_reasons_text(uint64_t reasons, char *buf, size_t len)
{
	size_t used = 0;
	int bit;
	if (len)
		buf[0] = '\0';
	for (bit = 0; bit < 64 && len; bit++) {
		const char *n;
		if (!(reasons >> bit & 1))
			continue;
		n = gpu_clock_event_name(1ull << bit);
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s", used ? "," : "",
					 n ? n : "other");
		if (used >= len)
			break;
	}
	return buf;
}

void bench_result_free(struct bench_result *r)
{
	size_t i;
	if (!r)
		return;
	for (i = 0; i < r->ngpus; i++) {
		free(r->gpus[i].name);
		free(r->gpus[i].uuid);
		free(r->gpus[i].bus_id);
	}
	for (i = 0; i < r->nrows; i++)
		free(r->rows[i].label);
	for (i = 0; i < r->nskipped; i++)
		free(r->skipped[i]);
	free(r->gpus);
	free(r->rows);
	free(r->skipped);
	free(r->driver_version);
	free(r->lib_cuda);
	free(r->lib_cublaslt);
	free(r->lib_nccl);
	free(r->date);
	free(r);
}

/* NVML's device of each CUDA device, by bus id; facts NVML knows into r->gpus. */
static void match_nvml(struct bench_ctx *b)
{
	struct gpu_init_opts io = {b->o->nvml_path};
	struct gpu_device *const *nv;
	unsigned n = 0, j;
	int i;
	if (gpu_backend_nvml.init(&io) || gpu_backend_nvml.enumerate(&nv, &n)) {
		bench_skip(b->r, "clocks and power: NVML (libnvidia-ml.so.1): %s", gpu_backend_nvml.last_error());
		return;
	}
	for (i = 0; i < b->ndevs; i++) {
		struct bench_gpu *g = &b->r->gpus[i];
		for (j = 0; j < n; j++) {
			struct gpu_static s;
			if (gpu_backend_nvml.static_info(nv[j], &s) || strcasecmp(s.pci_sysfs_id, g->bus_id))
				continue;
			b->devs[i].nvml = nv[j];
			g->uuid = xstrdup(s.uuid);
			if (!b->r->driver_version && GPU_STATIC_HAS(&s, driver_version))
				b->r->driver_version = xstrdup(s.driver_version);
			g->pcie_max_gen = GPU_STATIC_HAS(&s, pcie_max_gen) ? (int)s.pcie_max_gen : 0;
			g->pcie_max_width = GPU_STATIC_HAS(&s, pcie_max_width) ? (int)s.pcie_max_width : 0;
			g->ecc = GPU_STATIC_HAS(&s, ecc_mode) ? (int)s.ecc_mode : -1;
			if (GPU_STATIC_HAS(&s, clock_max_sm_mhz))
				g->clock_max_sm_mhz = s.clock_max_sm_mhz;
			if (GPU_STATIC_HAS(&s, power_default_limit_mw))
				g->power_default_limit_w = s.power_default_limit_mw / 1e3;
			if (GPU_STATIC_HAS(&s, power_limit_mw))
				g->power_limit_w = s.power_limit_mw / 1e3;
			{
				struct gpu_sample smp;
				if (!gpu_backend_nvml.sample(nv[j], GPU_SAMPLE_BASIC, &smp)) {
					g->pcie_gen = GPU_SAMPLE_HAS(&smp, pcie_gen) ? (int)smp.pcie_gen : 0;
					g->pcie_width = GPU_SAMPLE_HAS(&smp, pcie_width) ? (int)smp.pcie_width : 0;
				}
			}
			break;
		}
	}
}

static int open_devices(struct bench_ctx *b)
{
	const struct bench_cuda_api *cu = &b->libs->cu;
	int n = 0, i;
	char buf[128];
	if (cu->DeviceGetCount(&n) || n < 1)
		return diag_set(b->err, "", 0, 0, "", "no CUDA device visible");
	b->devs = xcalloc((size_t)n, sizeof(*b->devs));
	b->r->gpus = xcalloc((size_t)n, sizeof(*b->r->gpus));
	for (i = 0; i < n; i++) {
		struct bench_dev *d = &b->devs[i];
		struct bench_gpu *g = &b->r->gpus[i];
		size_t mem = 0;
		d->index = i;
		g->index = i;
		g->clock_max_sm_mhz = g->power_default_limit_w = g->power_limit_w = NAN;
		g->ecc = -1;
		if (cu->DeviceGet(&d->dev, i) || cu->PrimaryCtxRetain(&d->ctx, d->dev) ||
		    cu->CtxSetCurrent(d->ctx) || cu->StreamCreate(&d->stream, CU_STREAM_NON_BLOCKING))
			return diag_set(b->err, "", 0, 0, "", "cannot open a context on CUDA device %d", i);
		b->ndevs = i + 1;
		b->r->ngpus = (size_t)i + 1;
		g->name = xstrdup(cu->DeviceGetName(buf, sizeof(buf), d->dev) ? "?" : buf);
		g->bus_id = xstrdup(cu->DeviceGetPCIBusId(buf, sizeof(buf), d->dev) ? "" : buf);
		cu->DeviceGetAttribute(&g->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d->dev);
		cu->DeviceGetAttribute(&g->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->dev);
		cu->DeviceGetAttribute(&g->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->dev);
		if (!cu->DeviceTotalMem(&mem, d->dev))
			g->mem_bytes = (double)mem;
	}
	return 0;
}

/* Module and events live in GPU 0's context; every kernel launch there uses them. */
static int load_kernels(struct bench_ctx *b)
{
	const struct bench_cuda_api *cu = &b->libs->cu;
	int rc;
	if (!b->devs || !b->ndevs)
		return -1;
	cu->CtxSetCurrent(b->devs[0].ctx);
	if ((rc = cu->ModuleLoadData(&b->module, bench_ptx)) ||
	    (rc = cu->ModuleGetFunction(&b->f_read, b->module, "gs_read")) ||
	    (rc = cu->ModuleGetFunction(&b->f_write, b->module, "gs_write")) ||
	    (rc = cu->ModuleGetFunction(&b->f_copy, b->module, "gs_copy")) ||
	    (rc = cu->ModuleGetFunction(&b->f_empty, b->module, "gs_empty")) ||
	    (rc = cu->EventCreate(&b->e0, CU_EVENT_DEFAULT)) || (rc = cu->EventCreate(&b->e1, CU_EVENT_DEFAULT)))
		return diag_set(b->err, "", 0, 0, "", "the driver did not take the PTX kernels (CUDA error %d)",
				rc);
	return 0;
}

/* What the catalog and the model give for each figure, in its unit. */
void bench_set_expected(struct bench_result *r, const struct cat_gpu *g)
{
	size_t i;
	if (!g)
		return;
	for (i = 0; i < r->nrows; i++) {
		struct bench_row *row = &r->rows[i];
		if (!strcmp(row->test, "gemm")) {
			int p = model_precision_from_name(row->dtype);
			if (p >= 0)
				row->expected = model_gemm_tflops(g, (enum model_precision)p, row->m, row->n,
								  row->k);
		} else if (!strncmp(row->test, "hbm-", 4)) {
			row->expected = model_hbm_gbps(g);
		} else if (!strcmp(row->test, "h2d") || !strcmp(row->test, "d2h")) {
			row->expected = model_h2d_gbps(g);
		}
		if (!(row->expected > 0))
			row->expected = NAN;
	}
}

static void close_all(struct bench_ctx *b)
{
	const struct bench_cuda_api *cu = &b->libs->cu;
	int i;
	if (b->e0)
		cu->EventDestroy(b->e0);
	if (b->e1)
		cu->EventDestroy(b->e1);
	if (b->module)
		cu->ModuleUnload(b->module);
	for (i = 0; i < b->ndevs; i++) {
		cu->CtxSetCurrent(b->devs[i].ctx);
		if (b->devs[i].stream)
			cu->StreamDestroy(b->devs[i].stream);
		cu->PrimaryCtxRelease(b->devs[i].dev);
	}
	free(b->devs);
}

static void run_parts(struct bench_ctx *b)
{
	struct bench_libs *l = b->libs;
	unsigned p = b->o->parts;
	if (p & BENCH_GEMM) {
		if (l->lt_h)
			bench_gemm(b);
		else
			bench_skip(b->r, "gemm skipped: %s %s", bench_lib_label(BENCH_LIB_CUBLASLT),
				   l->error[BENCH_LIB_CUBLASLT]);
	}
	if (p & BENCH_HBM)
		bench_hbm(b);
	if (p & BENCH_HOST)
		bench_host(b);
	if (p & BENCH_P2P)
		bench_p2p(b);
	if (p & BENCH_NCCL) {
		if (!l->nccl_h)
			bench_skip(b->r, "collectives skipped: %s %s", bench_lib_label(BENCH_LIB_NCCL),
				   l->error[BENCH_LIB_NCCL]);
		else if (b->ndevs < 2)
			bench_skip(b->r, "collectives skipped: one GPU");
		else
			bench_nccl(b);
	}
	if (p & BENCH_LAUNCH)
		bench_launch(b);
}

int bench_run(const struct bench_opts *o, struct bench_result **out, struct diag *err)
{
	struct bench_ctx b;
	struct bench_result *r = xcalloc(1, sizeof(*r));
	char date[32];
	time_t now = time(NULL);
	int rc = -1, v = 0;
	memset(&b, 0, sizeof(b));
	b.o = o;
	b.r = r;
	b.err = err;
	*out = r;
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	r->date = xstrdup(date);
	b.libs = bench_libs_open(o->lib_dirs);
	if (!b.libs->cuda_h) {
		bench_skip(r, "everything skipped: %s %s", bench_lib_label(BENCH_LIB_CUDA),
			   b.libs->error[BENCH_LIB_CUDA]);
		diag_set(err, "", 0, 0, "", "%s %s", bench_lib_label(BENCH_LIB_CUDA),
			 b.libs->error[BENCH_LIB_CUDA]);
		goto out;
	}
	r->lib_cuda = xstrdup(b.libs->path[BENCH_LIB_CUDA]);
	if (b.libs->lt_h) {
		r->lib_cublaslt = xstrdup(b.libs->path[BENCH_LIB_CUBLASLT]);
		r->cublaslt_version = (long)b.libs->lt.GetVersion();
	}
	if (b.libs->nccl_h) {
		r->lib_nccl = xstrdup(b.libs->path[BENCH_LIB_NCCL]);
		if (!b.libs->nccl.GetVersion(&v))
			r->nccl_version = v;
	}
	if ((v = b.libs->cu.Init(0))) {
		diag_set(err, "", 0, 0, "", "cuInit failed (CUDA error %d): no usable GPU or driver", v);
		bench_skip(r, "everything skipped: cuInit failed (CUDA error %d)", v);
		goto out;
	}
	b.libs->cu.DriverGetVersion(&r->cuda_driver);
	if (open_devices(&b) || load_kernels(&b)) {
		bench_skip(r, "everything skipped: %s", err->msg);
		goto close;
	}
	match_nvml(&b);
	run_parts(&b);
	rc = 0;
close:
	close_all(&b);
	gpu_backend_nvml.shutdown();
out:
	bench_libs_close(b.libs);
	return rc;
}
