/*
 * The NVML backend: dlopen()s libnvidia-ml.so.1 (then libnvidia-ml.so),
 * resolves versioned symbols newest first, and fills gpu.h's structures.
 * Every symbol except init/shutdown/count/handle is optional: a missing
 * function or a NOT_SUPPORTED answer leaves the reading invalid.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/gpu.h"
#include "gpu/nvml_abi.h"
#include "util/xalloc.h"

typedef unsigned long long ull;

struct nvml_syms {
	/* required */
	nvmlReturn_t (*Init)(void);
	nvmlReturn_t (*Shutdown)(void);
	nvmlReturn_t (*DeviceGetCount)(unsigned *);
	nvmlReturn_t (*DeviceGetHandleByIndex)(unsigned, nvmlDevice_t *);
	/* optional */
	const char *(*ErrorString)(nvmlReturn_t);
	nvmlReturn_t (*SystemGetDriverVersion)(char *, unsigned);
	nvmlReturn_t (*SystemGetNVMLVersion)(char *, unsigned);
	nvmlReturn_t (*SystemGetCudaDriverVersion)(int *);
	nvmlReturn_t (*DeviceGetName)(nvmlDevice_t, char *, unsigned);
	nvmlReturn_t (*DeviceGetUUID)(nvmlDevice_t, char *, unsigned);
	nvmlReturn_t (*DeviceGetHandleByUUID)(const char *, nvmlDevice_t *);
	nvmlReturn_t (*DeviceGetSerial)(nvmlDevice_t, char *, unsigned);
	nvmlReturn_t (*DeviceGetVbiosVersion)(nvmlDevice_t, char *, unsigned);
	nvmlReturn_t (*DeviceGetBrand)(nvmlDevice_t, int *);
	nvmlReturn_t (*DeviceGetInforomImageVersion)(nvmlDevice_t, char *, unsigned);
	nvmlReturn_t (*DeviceGetInforomVersion)(nvmlDevice_t, int, char *, unsigned);
	nvmlReturn_t (*DeviceGetMinorNumber)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetPciInfo)(nvmlDevice_t, nvmlPciInfo_t *);
	nvmlReturn_t (*DeviceGetMemoryInfo)(nvmlDevice_t, nvmlMemory_t *);
	nvmlReturn_t (*DeviceGetMemoryInfo_v2)(nvmlDevice_t, nvmlMemory_v2_t *);
	nvmlReturn_t (*DeviceGetMaxPcieLinkGeneration)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetMaxPcieLinkWidth)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetGpuMaxPcieLinkGeneration)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetCurrPcieLinkGeneration)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetCurrPcieLinkWidth)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetEnforcedPowerLimit)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetPowerManagementDefaultLimit)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetTemperatureThreshold)(nvmlDevice_t, int, unsigned *);
	nvmlReturn_t (*DeviceGetMaxClockInfo)(nvmlDevice_t, int, unsigned *);
	nvmlReturn_t (*DeviceGetClockInfo)(nvmlDevice_t, int, unsigned *);
	nvmlReturn_t (*DeviceGetMigMode)(nvmlDevice_t, unsigned *, unsigned *);
	nvmlReturn_t (*DeviceGetPersistenceMode)(nvmlDevice_t, int *);
	nvmlReturn_t (*DeviceGetEccMode)(nvmlDevice_t, int *, int *);
	nvmlReturn_t (*DeviceGetCudaComputeCapability)(nvmlDevice_t, int *, int *);
	nvmlReturn_t (*DeviceGetNvLinkState)(nvmlDevice_t, unsigned, int *);
	nvmlReturn_t (*DeviceGetNvLinkVersion)(nvmlDevice_t, unsigned, unsigned *);
	nvmlReturn_t (*DeviceGetNvLinkRemotePciInfo)(nvmlDevice_t, unsigned, nvmlPciInfo_t *);
	nvmlReturn_t (*DeviceGetNvLinkRemoteDeviceType)(nvmlDevice_t, unsigned, int *);
	nvmlReturn_t (*DeviceGetNvLinkErrorCounter)(nvmlDevice_t, unsigned, int, ull *);
	nvmlReturn_t (*DeviceGetSupportedClocksEventReasons)(nvmlDevice_t, ull *);
	nvmlReturn_t (*DeviceGetCurrentClocksEventReasons)(nvmlDevice_t, ull *);
	nvmlReturn_t (*DeviceGetViolationStatus)(nvmlDevice_t, int, nvmlViolationTime_t *);
	nvmlReturn_t (*DeviceGetUtilizationRates)(nvmlDevice_t, nvmlUtilization_t *);
	nvmlReturn_t (*DeviceGetEncoderUtilization)(nvmlDevice_t, unsigned *, unsigned *);
	nvmlReturn_t (*DeviceGetDecoderUtilization)(nvmlDevice_t, unsigned *, unsigned *);
	nvmlReturn_t (*DeviceGetPowerUsage)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetTotalEnergyConsumption)(nvmlDevice_t, ull *);
	nvmlReturn_t (*DeviceGetTemperature)(nvmlDevice_t, int, unsigned *);
	nvmlReturn_t (*DeviceGetFieldValues)(nvmlDevice_t, int, nvmlFieldValue_t *);
	nvmlReturn_t (*DeviceGetFanSpeed)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetPerformanceState)(nvmlDevice_t, int *);
	nvmlReturn_t (*DeviceGetPcieThroughput)(nvmlDevice_t, int, unsigned *);
	nvmlReturn_t (*DeviceGetPcieReplayCounter)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetTotalEccErrors)(nvmlDevice_t, int, int, ull *);
	nvmlReturn_t (*DeviceGetRetiredPages)(nvmlDevice_t, int, unsigned *, ull *);
	nvmlReturn_t (*DeviceGetRetiredPagesPendingStatus)(nvmlDevice_t, int *);
	nvmlReturn_t (*DeviceGetRemappedRows)(nvmlDevice_t, unsigned *, unsigned *, unsigned *, unsigned *);
	nvmlReturn_t (*DeviceGetComputeRunningProcesses)(nvmlDevice_t, unsigned *, void *);
	nvmlReturn_t (*DeviceGetGraphicsRunningProcesses)(nvmlDevice_t, unsigned *, void *);
	nvmlReturn_t (*DeviceGetMPSComputeRunningProcesses)(nvmlDevice_t, unsigned *, void *);
	nvmlReturn_t (*DeviceGetMaxMigDeviceCount)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetMigDeviceHandleByIndex)(nvmlDevice_t, unsigned, nvmlDevice_t *);
	nvmlReturn_t (*DeviceGetGpuInstanceId)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*DeviceGetComputeInstanceId)(nvmlDevice_t, unsigned *);
	nvmlReturn_t (*EventSetCreate)(nvmlEventSet_t *);
	nvmlReturn_t (*DeviceGetSupportedEventTypes)(nvmlDevice_t, ull *);
	nvmlReturn_t (*DeviceRegisterEvents)(nvmlDevice_t, ull, nvmlEventSet_t);
	/* (device1, device2, nvmlGpuP2PCapsIndex_t, nvmlGpuP2PStatus_t *) */
	nvmlReturn_t (*DeviceGetP2PStatus)(nvmlDevice_t, nvmlDevice_t, int, int *);
	nvmlReturn_t (*EventSetWait)(nvmlEventSet_t, nvmlEventData_t *, unsigned);
	nvmlReturn_t (*EventSetFree)(nvmlEventSet_t);
	nvmlReturn_t (*GpmQueryDeviceSupport)(nvmlDevice_t, nvmlGpmSupport_t *);
	nvmlReturn_t (*GpmSampleAlloc)(nvmlGpmSample_t *);
	nvmlReturn_t (*GpmSampleFree)(nvmlGpmSample_t);
	nvmlReturn_t (*GpmSampleGet)(nvmlDevice_t, nvmlGpmSample_t);
	nvmlReturn_t (*GpmMigSampleGet)(nvmlDevice_t, unsigned, nvmlGpmSample_t);
	nvmlReturn_t (*GpmMetricsGet)(nvmlGpmMetricsGet_t *);
};

/*
 * Each slot with its candidate names, newest first (operations.md 5.2).
 * `version` records which candidate answered where the layout depends on it.
 */
struct sym_spec {
	size_t offset;
	int required;
	const char *names[4];
};

#define SLOT(f) offsetof(struct nvml_syms, f)
static const struct sym_spec sym_specs[] = {
	{SLOT(Init), 1, {"nvmlInit_v2", "nvmlInit"}},
	{SLOT(Shutdown), 1, {"nvmlShutdown"}},
	{SLOT(DeviceGetCount), 1, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"}},
	{SLOT(DeviceGetHandleByIndex), 1, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"}},
	{SLOT(ErrorString), 0, {"nvmlErrorString"}},
	{SLOT(SystemGetDriverVersion), 0, {"nvmlSystemGetDriverVersion"}},
	{SLOT(SystemGetNVMLVersion), 0, {"nvmlSystemGetNVMLVersion"}},
	{SLOT(SystemGetCudaDriverVersion),
	 0,
	 {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"}},
	{SLOT(DeviceGetName), 0, {"nvmlDeviceGetName"}},
	{SLOT(DeviceGetUUID), 0, {"nvmlDeviceGetUUID"}},
	{SLOT(DeviceGetHandleByUUID), 0, {"nvmlDeviceGetHandleByUUID"}},
	{SLOT(DeviceGetSerial), 0, {"nvmlDeviceGetSerial"}},
	{SLOT(DeviceGetVbiosVersion), 0, {"nvmlDeviceGetVbiosVersion"}},
	{SLOT(DeviceGetBrand), 0, {"nvmlDeviceGetBrand"}},
	{SLOT(DeviceGetInforomImageVersion), 0, {"nvmlDeviceGetInforomImageVersion"}},
	{SLOT(DeviceGetInforomVersion), 0, {"nvmlDeviceGetInforomVersion"}},
	{SLOT(DeviceGetMinorNumber), 0, {"nvmlDeviceGetMinorNumber"}},
	{SLOT(DeviceGetMemoryInfo), 0, {"nvmlDeviceGetMemoryInfo"}},
	{SLOT(DeviceGetMemoryInfo_v2), 0, {"nvmlDeviceGetMemoryInfo_v2"}},
	{SLOT(DeviceGetMaxPcieLinkGeneration), 0, {"nvmlDeviceGetMaxPcieLinkGeneration"}},
	{SLOT(DeviceGetMaxPcieLinkWidth), 0, {"nvmlDeviceGetMaxPcieLinkWidth"}},
	{SLOT(DeviceGetGpuMaxPcieLinkGeneration), 0, {"nvmlDeviceGetGpuMaxPcieLinkGeneration"}},
	{SLOT(DeviceGetCurrPcieLinkGeneration), 0, {"nvmlDeviceGetCurrPcieLinkGeneration"}},
	{SLOT(DeviceGetCurrPcieLinkWidth), 0, {"nvmlDeviceGetCurrPcieLinkWidth"}},
	{SLOT(DeviceGetEnforcedPowerLimit), 0, {"nvmlDeviceGetEnforcedPowerLimit"}},
	{SLOT(DeviceGetPowerManagementDefaultLimit), 0, {"nvmlDeviceGetPowerManagementDefaultLimit"}},
	{SLOT(DeviceGetTemperatureThreshold), 0, {"nvmlDeviceGetTemperatureThreshold"}},
	{SLOT(DeviceGetMaxClockInfo), 0, {"nvmlDeviceGetMaxClockInfo"}},
	{SLOT(DeviceGetClockInfo), 0, {"nvmlDeviceGetClockInfo"}},
	{SLOT(DeviceGetMigMode), 0, {"nvmlDeviceGetMigMode"}},
	{SLOT(DeviceGetPersistenceMode), 0, {"nvmlDeviceGetPersistenceMode"}},
	{SLOT(DeviceGetEccMode), 0, {"nvmlDeviceGetEccMode"}},
	{SLOT(DeviceGetCudaComputeCapability), 0, {"nvmlDeviceGetCudaComputeCapability"}},
	{SLOT(DeviceGetNvLinkState), 0, {"nvmlDeviceGetNvLinkState"}},
	{SLOT(DeviceGetNvLinkVersion), 0, {"nvmlDeviceGetNvLinkVersion"}},
	{SLOT(DeviceGetNvLinkRemotePciInfo),
	 0,
	 {"nvmlDeviceGetNvLinkRemotePciInfo_v2", "nvmlDeviceGetNvLinkRemotePciInfo"}},
	{SLOT(DeviceGetNvLinkRemoteDeviceType), 0, {"nvmlDeviceGetNvLinkRemoteDeviceType"}},
	{SLOT(DeviceGetNvLinkErrorCounter), 0, {"nvmlDeviceGetNvLinkErrorCounter"}},
	{SLOT(DeviceGetSupportedClocksEventReasons),
	 0,
	 {"nvmlDeviceGetSupportedClocksEventReasons", "nvmlDeviceGetSupportedClocksThrottleReasons"}},
	{SLOT(DeviceGetCurrentClocksEventReasons),
	 0,
	 {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"}},
	{SLOT(DeviceGetViolationStatus), 0, {"nvmlDeviceGetViolationStatus"}},
	{SLOT(DeviceGetUtilizationRates), 0, {"nvmlDeviceGetUtilizationRates"}},
	{SLOT(DeviceGetEncoderUtilization), 0, {"nvmlDeviceGetEncoderUtilization"}},
	{SLOT(DeviceGetDecoderUtilization), 0, {"nvmlDeviceGetDecoderUtilization"}},
	{SLOT(DeviceGetPowerUsage), 0, {"nvmlDeviceGetPowerUsage"}},
	{SLOT(DeviceGetTotalEnergyConsumption), 0, {"nvmlDeviceGetTotalEnergyConsumption"}},
	{SLOT(DeviceGetTemperature), 0, {"nvmlDeviceGetTemperature"}},
	{SLOT(DeviceGetFieldValues), 0, {"nvmlDeviceGetFieldValues"}},
	{SLOT(DeviceGetFanSpeed), 0, {"nvmlDeviceGetFanSpeed"}},
	{SLOT(DeviceGetPerformanceState), 0, {"nvmlDeviceGetPerformanceState"}},
	{SLOT(DeviceGetPcieThroughput), 0, {"nvmlDeviceGetPcieThroughput"}},
	{SLOT(DeviceGetPcieReplayCounter), 0, {"nvmlDeviceGetPcieReplayCounter"}},
	{SLOT(DeviceGetTotalEccErrors), 0, {"nvmlDeviceGetTotalEccErrors"}},
	{SLOT(DeviceGetRetiredPages), 0, {"nvmlDeviceGetRetiredPages"}},
	{SLOT(DeviceGetRetiredPagesPendingStatus), 0, {"nvmlDeviceGetRetiredPagesPendingStatus"}},
	{SLOT(DeviceGetRemappedRows), 0, {"nvmlDeviceGetRemappedRows"}},
	{SLOT(DeviceGetMaxMigDeviceCount), 0, {"nvmlDeviceGetMaxMigDeviceCount"}},
	{SLOT(DeviceGetMigDeviceHandleByIndex), 0, {"nvmlDeviceGetMigDeviceHandleByIndex"}},
	{SLOT(DeviceGetGpuInstanceId), 0, {"nvmlDeviceGetGpuInstanceId"}},
	{SLOT(DeviceGetComputeInstanceId), 0, {"nvmlDeviceGetComputeInstanceId"}},
	{SLOT(EventSetCreate), 0, {"nvmlEventSetCreate"}},
	{SLOT(DeviceGetSupportedEventTypes), 0, {"nvmlDeviceGetSupportedEventTypes"}},
	{SLOT(DeviceRegisterEvents), 0, {"nvmlDeviceRegisterEvents"}},
	{SLOT(DeviceGetP2PStatus), 0, {"nvmlDeviceGetP2PStatus"}},
	{SLOT(EventSetWait), 0, {"nvmlEventSetWait_v2", "nvmlEventSetWait"}},
	{SLOT(EventSetFree), 0, {"nvmlEventSetFree"}},
	{SLOT(GpmQueryDeviceSupport), 0, {"nvmlGpmQueryDeviceSupport"}},
	{SLOT(GpmSampleAlloc), 0, {"nvmlGpmSampleAlloc"}},
	{SLOT(GpmSampleFree), 0, {"nvmlGpmSampleFree"}},
	{SLOT(GpmSampleGet), 0, {"nvmlGpmSampleGet"}},
	{SLOT(GpmMigSampleGet), 0, {"nvmlGpmMigSampleGet"}},
	{SLOT(GpmMetricsGet), 0, {"nvmlGpmMetricsGet"}},
};

/* Symbols whose record layout depends on the version found. */
static const char *const pci_names[] = {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2",
					"nvmlDeviceGetPciInfo"};
static const char *const proc_names[3][3] = {
	{"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
	 "nvmlDeviceGetComputeRunningProcesses"},
	{"nvmlDeviceGetGraphicsRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v2",
	 "nvmlDeviceGetGraphicsRunningProcesses"},
	{"nvmlDeviceGetMPSComputeRunningProcesses_v3", "nvmlDeviceGetMPSComputeRunningProcesses_v2",
	 "nvmlDeviceGetMPSComputeRunningProcesses"},
};

/* GPM samples kept between calls: [0] the whole GPU, [1 + gi] MIG GPU instance gi. */
#define GPM_SLOTS 33

struct gpm_slot {
	nvmlGpmSample_t prev;
	uint64_t prev_ns; /* CLOCK_MONOTONIC of prev; 0: none */
};

struct gpu_device {
	nvmlDevice_t h;
	unsigned index;
	int handle_rc;     /* gpu_rc of nvmlDeviceGetHandleByIndex */
	atomic_int status; /* enum gpu_status */
	atomic_int lost_reported;
	atomic_int nlinks; /* -1: not probed yet */
	/* GPM, touched only by the one thread that calls gpm() for this device */
	int gpm_support; /* 0 not asked, 1 yes, negative: the gpu_rc why not */
	struct gpm_slot gpm[GPM_SLOTS];
	nvmlGpmMetricsGet_t *gpm_req;
};

static struct {
	void *dl;
	char path[4096];
	struct nvml_syms f;
	int pci_version; /* 3, 2, 1 or 0 (absent) */
	nvmlReturn_t (*proc_fn[3])(nvmlDevice_t, unsigned *, void *);
	int proc_version[3]; /* 3, 2, 1 or 0 */
	int inited;
	struct gpu_device *devs;
	struct gpu_device **devp;
	unsigned ndevs;
	nvmlEventSet_t evset;
	atomic_int ev_state; /* 0 not tried, 1 registered, -1 unavailable (set by the event thread) */
} N;

static _Thread_local char errbuf[512];
/* the file the last init loaded; kept after a failed init to name it */
static char loaded_path[4096];

static void set_error(const char *fmt, ...) GS_PRINTF(1, 2);
static void set_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(errbuf, sizeof(errbuf), fmt, ap);
	va_end(ap);
}

static const char *nvml_last_error(void)
{
	return errbuf;
}

static const char *nv_str(nvmlReturn_t rc)
{
	const char *s = N.f.ErrorString ? N.f.ErrorString(rc) : NULL;
	return s ? s : "unknown error";
}

static int map_rc(nvmlReturn_t rc)
{
	switch (rc) {
	case NVML_SUCCESS:
		return GPU_OK;
	case NVML_ERROR_NOT_SUPPORTED:
		return GPU_ERR_NOT_SUPPORTED;
	case NVML_ERROR_NO_PERMISSION:
		return GPU_ERR_NO_PERMISSION;
	case NVML_ERROR_DRIVER_NOT_LOADED:
		return GPU_ERR_NO_DRIVER;
	case NVML_ERROR_TIMEOUT:
		return GPU_ERR_TIMEOUT;
	case NVML_ERROR_GPU_IS_LOST:
		return GPU_ERR_LOST;
	case NVML_ERROR_RESET_REQUIRED:
		return GPU_ERR_RESET_REQUIRED;
	case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
		return GPU_ERR_VERSION_MISMATCH;
	case NVML_ERROR_LIBRARY_NOT_FOUND:
		return GPU_ERR_NO_LIBRARY;
	case NVML_ERROR_GPU_NOT_FOUND:
		return GPU_ERR_NO_GPU;
	default:
		return GPU_ERR;
	}
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * One device's calls within one static_info()/sample(): times each call,
 * keeps the slowest, and notices a lost GPU.
 */
struct ctx {
	struct gpu_device *dev;
	uint64_t t0;
	uint64_t slowest_ns;
	const char *slowest;
	nvmlReturn_t stop; /* LOST or RESET_REQUIRED seen: stop calling */
};

static void ctx_begin(struct ctx *c)
{
	c->t0 = now_ns(CLOCK_MONOTONIC);
}

static nvmlReturn_t ctx_end(struct ctx *c, const char *name, nvmlReturn_t rc)
{
	uint64_t dt = now_ns(CLOCK_MONOTONIC) - c->t0;
	if (dt >= c->slowest_ns) {
		c->slowest_ns = dt;
		c->slowest = name;
	}
	if (rc == NVML_ERROR_GPU_IS_LOST) {
		atomic_store(&c->dev->status, GPU_STATUS_LOST);
		c->stop = rc;
	} else if (rc == NVML_ERROR_RESET_REQUIRED) {
		int ok = GPU_STATUS_OK;
		atomic_compare_exchange_strong(&c->dev->status, &ok, GPU_STATUS_RESET_REQUIRED);
		c->stop = rc;
	}
	return rc;
}

/* Calls N.f.FN(args) unless it is absent or the device stopped answering. */
#define NV(c, fn, ...) \
	((c)->stop ? (c)->stop : \
	 !N.f.fn   ? NVML_ERROR_FUNCTION_NOT_FOUND : \
		     (ctx_begin(c), ctx_end((c), "nvml" #fn, N.f.fn(__VA_ARGS__))))

static void *resolve(const char *name)
{
	return dlsym(N.dl, name);
}

static void gpm_release(void)
{
	unsigned i, k;
	for (i = 0; N.devs && i < N.ndevs; i++) {
		for (k = 0; k < GPM_SLOTS; k++)
			if (N.devs[i].gpm[k].prev && N.f.GpmSampleFree)
				N.f.GpmSampleFree(N.devs[i].gpm[k].prev);
		free(N.devs[i].gpm_req);
	}
}

static void unload(void)
{
	if (N.dl)
		dlclose(N.dl);
	free(N.devs);
	free(N.devp);
	memset(&N, 0, sizeof(N));
}

static int load_symbols(void)
{
	size_t i, k;
	for (i = 0; i < sizeof(sym_specs) / sizeof(sym_specs[0]); i++) {
		const struct sym_spec *s = &sym_specs[i];
		void *p = NULL;
		for (k = 0; k < 4 && s->names[k] && !p; k++)
			p = resolve(s->names[k]);
		if (!p && s->required) {
			set_error("'%s' lacks the required function '%s'", N.path, s->names[0]);
			return -1;
		}
		memcpy((char *)&N.f + s->offset, &p, sizeof(p));
	}
	for (k = 0; k < 3; k++) {
		void *p = resolve(pci_names[k]);
		if (p) {
			memcpy(&N.f.DeviceGetPciInfo, &p, sizeof(p));
			N.pci_version = 3 - (int)k;
			break;
		}
	}
	for (i = 0; i < 3; i++)
		for (k = 0; k < 3; k++) {
			void *p = resolve(proc_names[i][k]);
			if (p) {
				memcpy(&N.proc_fn[i], &p, sizeof(p));
				N.proc_version[i] = 3 - (int)k;
				break;
			}
		}
	return 0;
}

static int nvml_init(const struct gpu_init_opts *opts)
{
	static const char *const defaults[] = {"libnvidia-ml.so.1", "libnvidia-ml.so"};
	const char *want = opts ? opts->library_path : NULL;
	nvmlReturn_t rc;
	Dl_info info;
	size_t i;

	if (N.inited || N.dl) {
		set_error("the nvml backend is already initialised");
		return GPU_ERR;
	}
	loaded_path[0] = '\0';
	if (want) {
		N.dl = dlopen(want, RTLD_NOW | RTLD_LOCAL);
		if (!N.dl) {
			const char *e = dlerror();
			set_error("cannot load '%s': %s", want, e ? e : "unknown dlopen error");
			return GPU_ERR_NO_LIBRARY;
		}
	} else {
		for (i = 0; i < 2 && !N.dl; i++)
			N.dl = dlopen(defaults[i], RTLD_NOW | RTLD_LOCAL);
		if (!N.dl) {
			set_error(
				"cannot load 'libnvidia-ml.so.1' (the NVIDIA driver's NVML library); "
				"no NVIDIA driver is installed or it is not on the library path");
			return GPU_ERR_NO_LIBRARY;
		}
	}
	snprintf(N.path, sizeof(N.path), "%s", want ? want : defaults[0]);
	if (load_symbols() < 0) {
		unload();
		return GPU_ERR_NO_LIBRARY;
	}
	{
		void *p;
		memcpy(&p, &N.f.Init, sizeof(p));
		if (dladdr(p, &info) && info.dli_fname)
			snprintf(N.path, sizeof(N.path), "%s", info.dli_fname);
		memcpy(loaded_path, N.path, sizeof(loaded_path));
	}
	rc = N.f.Init();
	if (rc != NVML_SUCCESS) {
		int g = map_rc(rc);
		if (g == GPU_ERR_VERSION_MISMATCH)
			set_error(
				"nvml init failed: %s (the NVML library and the loaded kernel module "
				"are different driver versions)",
				nv_str(rc));
		else
			set_error("nvml init failed: %s (nvml error %d)", nv_str(rc), rc);
		unload();
		return g == GPU_OK ? GPU_ERR : g;
	}
	N.inited = 1;
	return GPU_OK;
}

static void nvml_shutdown(void)
{
	if (N.evset && N.f.EventSetFree)
		N.f.EventSetFree(N.evset);
	if (N.inited)
		gpm_release();
	if (N.inited)
		N.f.Shutdown();
	unload();
}

static const char *nvml_library(void)
{
	return loaded_path[0] ? loaded_path : NULL;
}

static int nvml_enumerate(struct gpu_device *const **devs, unsigned *count)
{
	unsigned n = 0, i;
	nvmlReturn_t rc;

	*devs = NULL;
	*count = 0;
	if (!N.inited) {
		set_error("nvml is not initialised");
		return GPU_ERR;
	}
	if (!N.devs) {
		rc = N.f.DeviceGetCount(&n);
		if (rc != NVML_SUCCESS) {
			set_error("cannot count GPUs: %s", nv_str(rc));
			return map_rc(rc);
		}
		N.devs = xcalloc(n ? n : 1, sizeof(*N.devs));
		N.devp = xcalloc(n ? n : 1, sizeof(*N.devp));
		for (i = 0; i < n; i++) {
			struct gpu_device *d = &N.devs[i];
			d->index = i;
			atomic_init(&d->nlinks, -1);
			atomic_init(&d->lost_reported, 0);
			rc = N.f.DeviceGetHandleByIndex(i, &d->h);
			d->handle_rc = map_rc(rc);
			atomic_init(&d->status, rc == NVML_ERROR_GPU_IS_LOST    ? GPU_STATUS_LOST :
						rc == NVML_ERROR_RESET_REQUIRED ? GPU_STATUS_RESET_REQUIRED :
										  GPU_STATUS_OK);
			N.devp[i] = d;
		}
		N.ndevs = n;
	}
	*devs = N.devp;
	*count = N.ndevs;
	return GPU_OK;
}

/*
 * A lost GPU back on the bus (after a reset): a handle by its UUID, else
 * by its index, that answers for the same UUID.  Its GPM samples start
 * afresh.  Events are not registered again: its XIDs then come from the
 * kernel log.
 */
static int register_device(struct gpu_device *d);

static int nvml_revive(struct gpu_device *dev, const char *uuid)
{
	nvmlDevice_t h = NULL;
	nvmlReturn_t r = NVML_ERROR_NOT_FOUND;
	char got[GPU_UUID_LEN] = "";
	size_t k;
	if (atomic_load(&dev->status) != GPU_STATUS_LOST)
		return GPU_OK;
	if (uuid && *uuid && N.f.DeviceGetHandleByUUID)
		r = N.f.DeviceGetHandleByUUID(uuid, &h);
	if (r != NVML_SUCCESS)
		r = N.f.DeviceGetHandleByIndex(dev->index, &h);
	if (r == NVML_SUCCESS && N.f.DeviceGetUUID)
		r = N.f.DeviceGetUUID(h, got, sizeof(got) - 1);
	if (r != NVML_SUCCESS || (uuid && *uuid && strcmp(got, uuid))) {
		set_error("gpu %u is still lost: %s", dev->index, r != NVML_SUCCESS ? nv_str(r) : "another GPU");
		return r == NVML_ERROR_GPU_IS_LOST || r == NVML_SUCCESS ? GPU_ERR_LOST : map_rc(r);
	}
	/* the library keeps one handle per device: only a new one is stored */
	if (h != dev->h)
		__atomic_store_n(&dev->h, h, __ATOMIC_RELEASE);
	dev->handle_rc = GPU_OK;
	atomic_store(&dev->nlinks, -1);
	dev->gpm_support = 0;
	for (k = 0; k < GPM_SLOTS; k++) {
		if (dev->gpm[k].prev && N.f.GpmSampleFree)
			N.f.GpmSampleFree(dev->gpm[k].prev);
		dev->gpm[k].prev = NULL;
		dev->gpm[k].prev_ns = 0;
	}
	atomic_store(&dev->lost_reported, 0);
	atomic_store(&dev->status, GPU_STATUS_OK);
	/*
	 * a GPU back from a reset raises its XIDs on the set again only once
	 * registered again (and one lost at start never was); NVML's calls are
	 * thread-safe, so beside the event thread's wait is fine
	 */
	if (atomic_load(&N.ev_state) == 1)
		register_device(dev);
	return GPU_OK;
}

/* NVML_P2P_CAPS_INDEX_NVLINK */
#define P2P_CAPS_NVLINK 2

static int nvml_p2p_status(struct gpu_device *a, struct gpu_device *b, int *status)
{
	nvmlReturn_t r;
	int st = GPU_P2P_UNKNOWN;
	if (!N.f.DeviceGetP2PStatus) {
		set_error("nvmlDeviceGetP2PStatus is not in this library");
		return GPU_ERR_NOT_SUPPORTED;
	}
	r = N.f.DeviceGetP2PStatus(a->h, b->h, P2P_CAPS_NVLINK, &st);
	if (r != NVML_SUCCESS) {
		set_error("nvmlDeviceGetP2PStatus(%u, %u): %s", a->index, b->index, nv_str(r));
		return map_rc(r);
	}
	*status = st >= GPU_P2P_OK && st <= GPU_P2P_UNKNOWN ? st : GPU_P2P_UNKNOWN;
	return GPU_OK;
}

static enum gpu_status nvml_status(struct gpu_device *dev)
{
	return (enum gpu_status)atomic_load(&dev->status);
}

/* Refuses a device that cannot be talked to; sets the error text. */
static int usable(struct gpu_device *dev)
{
	if (atomic_load(&dev->status) == GPU_STATUS_LOST) {
		set_error("gpu %u has fallen off the bus (gpu is lost)", dev->index);
		return GPU_ERR_LOST;
	}
	if (dev->handle_rc != GPU_OK) {
		set_error("gpu %u: cannot get a handle: %s", dev->index, gpu_rc_name(dev->handle_rc));
		return dev->handle_rc;
	}
	return GPU_OK;
}

static int finish_ctx(struct ctx *c)
{
	if (c->stop == NVML_ERROR_GPU_IS_LOST) {
		set_error("gpu %u has fallen off the bus (gpu is lost)", c->dev->index);
		return GPU_ERR_LOST;
	}
	if (c->stop == NVML_ERROR_RESET_REQUIRED) {
		set_error("gpu %u needs a reset", c->dev->index);
		return GPU_ERR_RESET_REQUIRED;
	}
	return GPU_OK;
}

static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Probes the NVLink slots once: links answer until NOT_SUPPORTED / INVALID_ARGUMENT. */
static int probe_links(struct ctx *c)
{
	int n = atomic_load(&c->dev->nlinks);
	unsigned l;
	if (n >= 0)
		return n;
	n = 0;
	for (l = 0; l < GPU_MAX_NVLINKS; l++) {
		int st;
		nvmlReturn_t rc = NV(c, DeviceGetNvLinkState, c->dev->h, l, &st);
		if (rc != NVML_SUCCESS)
			break;
		n++;
	}
	if (c->stop)
		return 0;
	atomic_store(&c->dev->nlinks, n);
	return n;
}

/*
 * The text DCGM gives DCGM_FI_DEV_BRAND for each nvmlBrandType_t, so that the
 * label reads as dcgm-exporter's does (DCGM's cache manager spells them as
 * nvidia-smi's report does).
 */
static const char *nvml_brand_name(int brand)
{
	static const char *const names[] = {
		"Unknown",
		"Quadro",
		"Tesla",
		"NVS",
		"Grid",
		"GeForce",
		"Titan",
		"NVIDIA Virtual Applications",
		"NVIDIA Virtual PC",
		"NVIDIA Virtual Compute Server",
		"NVIDIA RTX Virtual Workstation",
		"NVIDIA vGaming",
		"Quadro RTX",
		"NVIDIA RTX",
		"NVIDIA",
		"GeForce RTX",
		"Titan RTX",
	};
	return brand >= 0 && (size_t)brand < sizeof(names) / sizeof(names[0]) ? names[brand] : "Unknown";
}

static int nvml_static_info(struct gpu_device *dev, struct gpu_static *out)
{
	struct ctx c = {dev, 0, 0, NULL, 0};
	char buf[128];
	unsigned u, u2;
	int i1, i2;
	nvmlPciInfo_t pci;
	int rc;

	memset(out, 0, sizeof(*out));
	GPU_STATIC_SET(out, index, dev->index);
	rc = usable(dev);
	if (rc)
		return rc;
#define STR(fn, member) \
	do { \
		memset(buf, 0, sizeof(buf)); \
		if (NV(&c, fn, dev->h, buf, sizeof(buf) - 1) == NVML_SUCCESS) { \
			copy_str(out->member, sizeof(out->member), buf); \
			GPU_STATIC_MARK(out, member); \
		} \
	} while (0)
	STR(DeviceGetName, name);
	STR(DeviceGetUUID, uuid);
	STR(DeviceGetSerial, serial);
	STR(DeviceGetVbiosVersion, vbios_version);
	STR(DeviceGetInforomImageVersion, inforom_image);
#undef STR
#define INFOROM(object, member) \
	do { \
		memset(buf, 0, sizeof(buf)); \
		if (NV(&c, DeviceGetInforomVersion, dev->h, object, buf, \
		       NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE) == NVML_SUCCESS) { \
			copy_str(out->member, sizeof(out->member), buf); \
			GPU_STATIC_MARK(out, member); \
		} \
	} while (0)
	INFOROM(NVML_INFOROM_OEM, inforom_oem);
	INFOROM(NVML_INFOROM_ECC, inforom_ecc);
	INFOROM(NVML_INFOROM_POWER, inforom_power);
#undef INFOROM
	if (NV(&c, DeviceGetBrand, dev->h, &i1) == NVML_SUCCESS) {
		copy_str(out->brand, sizeof(out->brand), nvml_brand_name(i1));
		GPU_STATIC_MARK(out, brand);
	}
	if (NV(&c, DeviceGetMinorNumber, dev->h, &u) == NVML_SUCCESS)
		GPU_STATIC_SET(out, minor_number, u);
	memset(&pci, 0, sizeof(pci));
	if (NV(&c, DeviceGetPciInfo, dev->h, &pci) == NVML_SUCCESS) {
		GPU_STATIC_SET(out, pci_domain, pci.domain);
		GPU_STATIC_SET(out, pci_bus, pci.bus);
		GPU_STATIC_SET(out, pci_device, pci.device);
		GPU_STATIC_SET(out, pci_device_id, pci.pciDeviceId);
		if (N.pci_version >= 2)
			GPU_STATIC_SET(out, pci_subsystem_id, pci.pciSubSystemId);
		if (N.pci_version >= 2 && pci.busId[0])
			copy_str(out->pci_bus_id, sizeof(out->pci_bus_id), pci.busId);
		else
			snprintf(out->pci_bus_id, sizeof(out->pci_bus_id), "%08X:%02X:%02X.0", pci.domain, pci.bus,
				 pci.device);
		GPU_STATIC_MARK(out, pci_bus_id);
		snprintf(out->pci_sysfs_id, sizeof(out->pci_sysfs_id), "%04x:%02x:%02x.0", pci.domain & 0xffff,
			 pci.bus & 0xff, pci.device & 0x1f);
		GPU_STATIC_MARK(out, pci_sysfs_id);
	}
	{
		nvmlMemory_v2_t m2;
		nvmlMemory_t m1;
		memset(&m2, 0, sizeof(m2));
		m2.version = NVML_MEMORY_V2_VERSION;
		if (NV(&c, DeviceGetMemoryInfo_v2, dev->h, &m2) == NVML_SUCCESS)
			GPU_STATIC_SET(out, memory_total_bytes, m2.total);
		else if (NV(&c, DeviceGetMemoryInfo, dev->h, &m1) == NVML_SUCCESS)
			GPU_STATIC_SET(out, memory_total_bytes, m1.total);
	}
	if (NV(&c, DeviceGetMaxPcieLinkGeneration, dev->h, &u) == NVML_SUCCESS)
		GPU_STATIC_SET(out, pcie_max_gen, u);
	if (NV(&c, DeviceGetMaxPcieLinkWidth, dev->h, &u) == NVML_SUCCESS)
		GPU_STATIC_SET(out, pcie_max_width, u);
	if (NV(&c, DeviceGetGpuMaxPcieLinkGeneration, dev->h, &u) == NVML_SUCCESS)
		GPU_STATIC_SET(out, pcie_gpu_max_gen, u);
	if (NV(&c, DeviceGetEnforcedPowerLimit, dev->h, &u) == NVML_SUCCESS)
		GPU_STATIC_SET(out, power_limit_mw, u);
	if (NV(&c, DeviceGetPowerManagementDefaultLimit, dev->h, &u) == NVML_SUCCESS)
		GPU_STATIC_SET(out, power_default_limit_mw, u);
	if (NV(&c, DeviceGetTemperatureThreshold, dev->h, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &u) == NVML_SUCCESS)
		GPU_STATIC_SET(out, temp_slowdown_c, u);
	if (NV(&c, DeviceGetTemperatureThreshold, dev->h, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, &u) == NVML_SUCCESS)
		GPU_STATIC_SET(out, temp_shutdown_c, u);
	if (NV(&c, DeviceGetTemperatureThreshold, dev->h, NVML_TEMPERATURE_THRESHOLD_GPU_MAX, &u) == NVML_SUCCESS)
		GPU_STATIC_SET(out, temp_gpu_max_c, u);
	if (NV(&c, DeviceGetTemperatureThreshold, dev->h, NVML_TEMPERATURE_THRESHOLD_MEM_MAX, &u) == NVML_SUCCESS)
		GPU_STATIC_SET(out, temp_mem_max_c, u);
	if (NV(&c, DeviceGetMaxClockInfo, dev->h, NVML_CLOCK_SM, &u) == NVML_SUCCESS)
		GPU_STATIC_SET(out, clock_max_sm_mhz, u);
	if (NV(&c, DeviceGetMaxClockInfo, dev->h, NVML_CLOCK_MEM, &u) == NVML_SUCCESS)
		GPU_STATIC_SET(out, clock_max_mem_mhz, u);
	if (NV(&c, DeviceGetMaxClockInfo, dev->h, NVML_CLOCK_GRAPHICS, &u) == NVML_SUCCESS)
		GPU_STATIC_SET(out, clock_max_graphics_mhz, u);
	memset(buf, 0, sizeof(buf));
	if (N.f.SystemGetDriverVersion &&
	    N.f.SystemGetDriverVersion(buf, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE) == NVML_SUCCESS) {
		copy_str(out->driver_version, sizeof(out->driver_version), buf);
		GPU_STATIC_MARK(out, driver_version);
	}
	memset(buf, 0, sizeof(buf));
	if (N.f.SystemGetNVMLVersion &&
	    N.f.SystemGetNVMLVersion(buf, NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE) == NVML_SUCCESS) {
		copy_str(out->nvml_version, sizeof(out->nvml_version), buf);
		GPU_STATIC_MARK(out, nvml_version);
	}
	if (N.f.SystemGetCudaDriverVersion && N.f.SystemGetCudaDriverVersion(&i1) == NVML_SUCCESS)
		GPU_STATIC_SET(out, cuda_driver_version, i1);
	if (NV(&c, DeviceGetMigMode, dev->h, &u, &u2) == NVML_SUCCESS) {
		GPU_STATIC_SET(out, mig_mode, u);
		GPU_STATIC_SET(out, mig_mode_pending, u2);
	}
	if (NV(&c, DeviceGetPersistenceMode, dev->h, &i1) == NVML_SUCCESS)
		GPU_STATIC_SET(out, persistence_mode, (unsigned)i1);
	if (NV(&c, DeviceGetEccMode, dev->h, &i1, &i2) == NVML_SUCCESS) {
		GPU_STATIC_SET(out, ecc_mode, (unsigned)i1);
		GPU_STATIC_SET(out, ecc_mode_pending, (unsigned)i2);
	}
	if (NV(&c, DeviceGetCudaComputeCapability, dev->h, &i1, &i2) == NVML_SUCCESS) {
		GPU_STATIC_SET(out, cc_major, i1);
		GPU_STATIC_SET(out, cc_minor, i2);
	}
	{
		ull r;
		if (NV(&c, DeviceGetSupportedClocksEventReasons, dev->h, &r) == NVML_SUCCESS)
			GPU_STATIC_SET(out, clock_event_reasons_supported, (uint64_t)r);
	}
	if (N.f.DeviceGetNvLinkState && !c.stop) {
		int n = probe_links(&c);
		unsigned l;
		GPU_STATIC_SET(out, nvlink_count, (unsigned)n);
		out->nlinks = (unsigned)n;
		for (l = 0; l < (unsigned)n; l++) {
			struct gpu_link_static *ls = &out->links[l];
			int t;
			if (NV(&c, DeviceGetNvLinkVersion, dev->h, l, &u) == NVML_SUCCESS) {
				ls->version = u;
				GPU_BIT_SET(ls->valid, gpu_link_static_version_valid);
			}
			memset(&pci, 0, sizeof(pci));
			if (NV(&c, DeviceGetNvLinkRemotePciInfo, dev->h, l, &pci) == NVML_SUCCESS) {
				if (pci.busId[0])
					copy_str(ls->remote_bus_id, sizeof(ls->remote_bus_id), pci.busId);
				else
					snprintf(ls->remote_bus_id, sizeof(ls->remote_bus_id), "%08X:%02X:%02X.0",
						 pci.domain, pci.bus, pci.device);
				GPU_BIT_SET(ls->valid, gpu_link_static_remote_bus_id_valid);
			}
			if (NV(&c, DeviceGetNvLinkRemoteDeviceType, dev->h, l, &t) == NVML_SUCCESS) {
				ls->remote_type = (unsigned)t;
				GPU_BIT_SET(ls->valid, gpu_link_static_remote_type_valid);
			}
		}
	}
	return finish_ctx(&c);
}

/* Reads one field value as an unsigned 64-bit number; 0 when absent. */
static int field_u64(const nvmlFieldValue_t *fv, uint64_t *out)
{
	if (fv->nvmlReturn != NVML_SUCCESS)
		return 0;
	switch (fv->valueType) {
	case NVML_VALUE_TYPE_DOUBLE:
		if (!(fv->value.dVal >= 0))
			return 0;
		*out = (uint64_t)fv->value.dVal;
		return 1;
	case NVML_VALUE_TYPE_UNSIGNED_INT:
		*out = fv->value.uiVal;
		return 1;
	case NVML_VALUE_TYPE_UNSIGNED_LONG:
		*out = fv->value.ulVal;
		return 1;
	case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
		*out = fv->value.ullVal;
		return 1;
	case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
		if (fv->value.sllVal < 0)
			return 0;
		*out = (uint64_t)fv->value.sllVal;
		return 1;
	case NVML_VALUE_TYPE_SIGNED_INT:
		if (fv->value.siVal < 0)
			return 0;
		*out = (uint64_t)fv->value.siVal;
		return 1;
	case NVML_VALUE_TYPE_UNSIGNED_SHORT:
		*out = fv->value.usVal;
		return 1;
	default:
		return 0;
	}
}

static void sample_basic(struct ctx *c, struct gpu_sample *out)
{
	nvmlDevice_t h = c->dev->h;
	nvmlUtilization_t ut;
	nvmlMemory_v2_t m2;
	nvmlMemory_t m1;
	unsigned u, period;
	ull e;
	int i;

	if (NV(c, DeviceGetUtilizationRates, h, &ut) == NVML_SUCCESS) {
		GPU_SAMPLE_SET(out, util_gpu_pct, ut.gpu);
		GPU_SAMPLE_SET(out, util_mem_pct, ut.memory);
	}
	if (NV(c, DeviceGetEncoderUtilization, h, &u, &period) == NVML_SUCCESS)
		GPU_SAMPLE_SET(out, util_enc_pct, u);
	if (NV(c, DeviceGetDecoderUtilization, h, &u, &period) == NVML_SUCCESS)
		GPU_SAMPLE_SET(out, util_dec_pct, u);
	memset(&m2, 0, sizeof(m2));
	m2.version = NVML_MEMORY_V2_VERSION;
	if (NV(c, DeviceGetMemoryInfo_v2, h, &m2) == NVML_SUCCESS) {
		GPU_SAMPLE_SET(out, fb_total_bytes, m2.total);
		GPU_SAMPLE_SET(out, fb_used_bytes, m2.used);
		GPU_SAMPLE_SET(out, fb_free_bytes, m2.free);
		GPU_SAMPLE_SET(out, fb_reserved_bytes, m2.reserved);
	} else if (NV(c, DeviceGetMemoryInfo, h, &m1) == NVML_SUCCESS) {
		/* v1 "used" includes the driver's reservation on R510+ */
		GPU_SAMPLE_SET(out, fb_total_bytes, m1.total);
		GPU_SAMPLE_SET(out, fb_used_bytes, m1.used);
		GPU_SAMPLE_SET(out, fb_free_bytes, m1.free);
	}
	if (NV(c, DeviceGetPowerUsage, h, &u) == NVML_SUCCESS)
		GPU_SAMPLE_SET(out, power_mw, u);
	if (NV(c, DeviceGetTotalEnergyConsumption, h, &e) == NVML_SUCCESS)
		GPU_SAMPLE_SET(out, energy_mj, (uint64_t)e);
	if (NV(c, DeviceGetTemperature, h, NVML_TEMPERATURE_GPU, &u) == NVML_SUCCESS)
		GPU_SAMPLE_SET(out, temp_gpu_c, u);
	{
		nvmlFieldValue_t fv;
		uint64_t v;
		memset(&fv, 0, sizeof(fv));
		fv.fieldId = NVML_FI_DEV_MEMORY_TEMP;
		if (NV(c, DeviceGetFieldValues, h, 1, &fv) == NVML_SUCCESS && field_u64(&fv, &v))
			GPU_SAMPLE_SET(out, temp_mem_c, (unsigned)v);
	}
	if (NV(c, DeviceGetFanSpeed, h, &u) == NVML_SUCCESS)
		GPU_SAMPLE_SET(out, fan_pct, u);
	/* 32 is NVML_PSTATE_UNKNOWN: absent, not a state */
	if (NV(c, DeviceGetPerformanceState, h, &i) == NVML_SUCCESS && i >= 0 && i <= 15)
		GPU_SAMPLE_SET(out, pstate, (unsigned)i);
	if (NV(c, DeviceGetClockInfo, h, NVML_CLOCK_SM, &u) == NVML_SUCCESS)
		GPU_SAMPLE_SET(out, clock_sm_mhz, u);
	if (NV(c, DeviceGetClockInfo, h, NVML_CLOCK_MEM, &u) == NVML_SUCCESS)
		GPU_SAMPLE_SET(out, clock_mem_mhz, u);
	if (NV(c, DeviceGetClockInfo, h, NVML_CLOCK_GRAPHICS, &u) == NVML_SUCCESS)
		GPU_SAMPLE_SET(out, clock_graphics_mhz, u);
	if (NV(c, DeviceGetClockInfo, h, NVML_CLOCK_VIDEO, &u) == NVML_SUCCESS)
		GPU_SAMPLE_SET(out, clock_video_mhz, u);
	if (NV(c, DeviceGetCurrPcieLinkGeneration, h, &u) == NVML_SUCCESS)
		GPU_SAMPLE_SET(out, pcie_gen, u);
	if (NV(c, DeviceGetCurrPcieLinkWidth, h, &u) == NVML_SUCCESS)
		GPU_SAMPLE_SET(out, pcie_width, u);
}

static void sample_health(struct ctx *c, struct gpu_sample *out)
{
	nvmlDevice_t h = c->dev->h;
	unsigned u, a, b, d;
	nvmlReturn_t rc;
	int i;
	ull e;

	if (NV(c, DeviceGetTotalEccErrors, h, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, &e) ==
	    NVML_SUCCESS)
		GPU_SAMPLE_SET(out, ecc_sbe_volatile, (uint64_t)e);
	if (NV(c, DeviceGetTotalEccErrors, h, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &e) ==
	    NVML_SUCCESS)
		GPU_SAMPLE_SET(out, ecc_dbe_volatile, (uint64_t)e);
	if (NV(c, DeviceGetTotalEccErrors, h, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC, &e) ==
	    NVML_SUCCESS)
		GPU_SAMPLE_SET(out, ecc_sbe_aggregate, (uint64_t)e);
	if (NV(c, DeviceGetTotalEccErrors, h, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC, &e) ==
	    NVML_SUCCESS)
		GPU_SAMPLE_SET(out, ecc_dbe_aggregate, (uint64_t)e);
	/* A zero-sized query returns the count (as SUCCESS or INSUFFICIENT_SIZE). */
	u = 0;
	rc = NV(c, DeviceGetRetiredPages, h, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, &u, NULL);
	if (rc == NVML_SUCCESS || rc == NVML_ERROR_INSUFFICIENT_SIZE)
		GPU_SAMPLE_SET(out, retired_pages_sbe, u);
	u = 0;
	rc = NV(c, DeviceGetRetiredPages, h, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &u, NULL);
	if (rc == NVML_SUCCESS || rc == NVML_ERROR_INSUFFICIENT_SIZE)
		GPU_SAMPLE_SET(out, retired_pages_dbe, u);
	if (NV(c, DeviceGetRetiredPagesPendingStatus, h, &i) == NVML_SUCCESS)
		GPU_SAMPLE_SET(out, retired_pages_pending, (unsigned)(i != 0));
	if (NV(c, DeviceGetRemappedRows, h, &a, &b, &u, &d) == NVML_SUCCESS) {
		GPU_SAMPLE_SET(out, remapped_rows_correctable, a);
		GPU_SAMPLE_SET(out, remapped_rows_uncorrectable, b);
		GPU_SAMPLE_SET(out, remapped_rows_pending, (unsigned)(u != 0));
		GPU_SAMPLE_SET(out, remapped_rows_failure, (unsigned)(d != 0));
	}
	if (NV(c, DeviceGetPcieReplayCounter, h, &u) == NVML_SUCCESS)
		GPU_SAMPLE_SET(out, pcie_replay_count, u);
}

static void sample_throttle(struct ctx *c, struct gpu_sample *out)
{
	nvmlDevice_t h = c->dev->h;
	nvmlViolationTime_t v;
	ull r;

	if (NV(c, DeviceGetCurrentClocksEventReasons, h, &r) == NVML_SUCCESS)
		GPU_SAMPLE_SET(out, clock_event_reasons, (uint64_t)r);
#define VIOL(policy, member) \
	if (NV(c, DeviceGetViolationStatus, h, policy, &v) == NVML_SUCCESS) \
	GPU_SAMPLE_SET(out, member, (uint64_t)v.violationTime)
	VIOL(NVML_PERF_POLICY_POWER, violation_power_ns);
	VIOL(NVML_PERF_POLICY_THERMAL, violation_thermal_ns);
	VIOL(NVML_PERF_POLICY_SYNC_BOOST, violation_sync_boost_ns);
	VIOL(NVML_PERF_POLICY_BOARD_LIMIT, violation_board_limit_ns);
	VIOL(NVML_PERF_POLICY_LOW_UTILIZATION, violation_low_util_ns);
	VIOL(NVML_PERF_POLICY_RELIABILITY, violation_reliability_ns);
#undef VIOL
}

static void sample_nvlink(struct ctx *c, struct gpu_sample *out)
{
	static const struct {
		int counter;
		enum gpu_link_field field;
	} errs[] = {
		{NVML_NVLINK_ERROR_DL_REPLAY, gpu_link_err_replay_valid},
		{NVML_NVLINK_ERROR_DL_RECOVERY, gpu_link_err_recovery_valid},
		{NVML_NVLINK_ERROR_DL_CRC_FLIT, gpu_link_err_crc_flit_valid},
		{NVML_NVLINK_ERROR_DL_CRC_DATA, gpu_link_err_crc_data_valid},
		{NVML_NVLINK_ERROR_DL_ECC_DATA, gpu_link_err_ecc_data_valid},
	};
	nvmlDevice_t h = c->dev->h;
	nvmlFieldValue_t fv[2 * GPU_MAX_NVLINKS];
	unsigned l, n, k;

	if (!N.f.DeviceGetNvLinkState)
		return;
	n = (unsigned)probe_links(c);
	out->nlinks = n;
	for (l = 0; l < n && !c->stop; l++) {
		struct gpu_link_sample *ls = &out->links[l];
		int st;
		if (NV(c, DeviceGetNvLinkState, h, l, &st) == NVML_SUCCESS)
			GPU_LINK_SET(ls, active, (unsigned)(st == NVML_FEATURE_ENABLED));
		for (k = 0; k < sizeof(errs) / sizeof(errs[0]); k++) {
			ull v;
			if (NV(c, DeviceGetNvLinkErrorCounter, h, l, errs[k].counter, &v) != NVML_SUCCESS)
				continue;
			switch (errs[k].field) {
			case gpu_link_err_replay_valid:
				ls->err_replay = v;
				break;
			case gpu_link_err_recovery_valid:
				ls->err_recovery = v;
				break;
			case gpu_link_err_crc_flit_valid:
				ls->err_crc_flit = v;
				break;
			case gpu_link_err_crc_data_valid:
				ls->err_crc_data = v;
				break;
			default:
				ls->err_ecc_data = v;
				break;
			}
			GPU_BIT_SET(ls->valid, errs[k].field);
		}
	}
	if (!n || c->stop)
		return;
	memset(fv, 0, sizeof(fv));
	for (l = 0; l < n; l++) {
		fv[2 * l].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
		fv[2 * l].scopeId = l;
		fv[2 * l + 1].fieldId = NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX;
		fv[2 * l + 1].scopeId = l;
	}
	if (NV(c, DeviceGetFieldValues, h, (int)(2 * n), fv) != NVML_SUCCESS)
		return;
	for (l = 0; l < n; l++) {
		uint64_t v;
		if (field_u64(&fv[2 * l], &v))
			GPU_LINK_SET(&out->links[l], tx_kib, v);
		if (field_u64(&fv[2 * l + 1], &v))
			GPU_LINK_SET(&out->links[l], rx_kib, v);
	}
}

static int nvml_sample(struct gpu_device *dev, unsigned what, struct gpu_sample *out)
{
	struct ctx c = {dev, 0, 0, NULL, 0};
	uint64_t start = now_ns(CLOCK_MONOTONIC);
	int rc;

	memset(out, 0, sizeof(*out));
	GPU_SAMPLE_SET(out, timestamp_ns, start);
	rc = usable(dev);
	if (rc) {
		GPU_SAMPLE_SET(out, duration_ns, now_ns(CLOCK_MONOTONIC) - start);
		return rc;
	}
	if (what & GPU_SAMPLE_BASIC)
		sample_basic(&c, out);
	if ((what & GPU_SAMPLE_HEALTH) && !c.stop)
		sample_health(&c, out);
	if ((what & GPU_SAMPLE_THROTTLE) && !c.stop)
		sample_throttle(&c, out);
	if ((what & GPU_SAMPLE_NVLINK) && !c.stop)
		sample_nvlink(&c, out);
	if ((what & GPU_SAMPLE_PCIE_THROUGHPUT) && !c.stop) {
		unsigned kb;
		/* NVML reports KB/s, 1 KB = 1024 B, each call a 20 ms window */
		if (NV(&c, DeviceGetPcieThroughput, dev->h, NVML_PCIE_UTIL_TX_BYTES, &kb) == NVML_SUCCESS)
			GPU_SAMPLE_SET(out, pcie_tx_bytes_per_s, (uint64_t)kb * 1024);
		if (NV(&c, DeviceGetPcieThroughput, dev->h, NVML_PCIE_UTIL_RX_BYTES, &kb) == NVML_SUCCESS)
			GPU_SAMPLE_SET(out, pcie_rx_bytes_per_s, (uint64_t)kb * 1024);
	}
	rc = finish_ctx(&c);
	if (rc == GPU_ERR_LOST) {
		/* nothing read from a GPU that is gone can be trusted */
		memset(out, 0, sizeof(*out));
		GPU_SAMPLE_SET(out, timestamp_ns, start);
	}
	GPU_SAMPLE_SET(out, duration_ns, now_ns(CLOCK_MONOTONIC) - start);
	if (c.slowest) {
		GPU_SAMPLE_SET(out, slowest_call_ns, c.slowest_ns);
		copy_str(out->slowest_call, sizeof(out->slowest_call), c.slowest);
		GPU_BIT_SET(out->valid, gpu_sample_slowest_call_valid);
	}
	return rc;
}

/*
 * Record stride of a process list.  v3/v2 records are 24 bytes, except that
 * the R535 driver briefly wrote 32-byte records through _v3 (nvitop probes
 * the same way): with 32-byte records read at 24, the second record starts
 * on the first one's zero "usedGpuCcProtectedMemory" and shows pid 0.
 */
static size_t proc_stride(int version, const unsigned char *buf, unsigned n)
{
	unsigned i;
	if (version == 1)
		return sizeof(nvmlProcessInfo_v1_t);
	if (n < 2)
		return sizeof(nvmlProcessInfo_t);
	for (i = 0; i < n; i++) {
		nvmlProcessInfo_t p;
		memcpy(&p, buf + i * sizeof(nvmlProcessInfo_t), sizeof(p));
		if (p.pid == 0)
			break;
	}
	if (i == n)
		return sizeof(nvmlProcessInfo_t);
	for (i = 0; i < n; i++) {
		nvmlProcessInfo_t p;
		memcpy(&p, buf + (size_t)i * NVML_PROCESS_INFO_R535_STRIDE, sizeof(p));
		if (p.pid == 0)
			return sizeof(nvmlProcessInfo_t);
	}
	return NVML_PROCESS_INFO_R535_STRIDE;
}

static void merge_proc(struct gpu_process **procs, size_t *n, size_t *cap, unsigned type,
		       const nvmlProcessInfo_t *p, int has_ids)
{
	size_t i;
	int have_mem = p->usedGpuMemory != (ull)NVML_VALUE_NOT_AVAILABLE;
	for (i = 0; i < *n; i++)
		if ((*procs)[i].pid == p->pid)
			break;
	if (i == *n) {
		XGROW(*procs, *cap, *n + 1);
		memset(&(*procs)[i], 0, sizeof((*procs)[i]));
		(*procs)[i].pid = p->pid;
		(*procs)[i].gpu_instance = has_ids ? p->gpuInstanceId : GPU_NO_INSTANCE;
		(*procs)[i].compute_instance = has_ids ? p->computeInstanceId : GPU_NO_INSTANCE;
		(*n)++;
	}
	(*procs)[i].type |= type;
	/* the same allocation shows in every list a pid is in: keep the largest */
	if (have_mem && (!(*procs)[i].used_bytes_valid || p->usedGpuMemory > (*procs)[i].used_bytes)) {
		(*procs)[i].used_bytes = p->usedGpuMemory;
		(*procs)[i].used_bytes_valid = 1;
	}
}

static int nvml_processes(struct gpu_device *dev, struct gpu_process **procs, size_t *count)
{
	static const unsigned types[3] = {GPU_PROCESS_COMPUTE, GPU_PROCESS_GRAPHICS, GPU_PROCESS_MPS};
	struct ctx c = {dev, 0, 0, NULL, 0};
	size_t n = 0, cap = 0;
	int k, rc, any = 0;

	*procs = NULL;
	*count = 0;
	rc = usable(dev);
	if (rc)
		return rc;
	for (k = 0; k < 3 && !c.stop; k++) {
		unsigned char *buf = NULL;
		unsigned want = 0, got, i, tries;
		nvmlReturn_t r;
		size_t stride;
		if (!N.proc_fn[k])
			continue;
		c.t0 = now_ns(CLOCK_MONOTONIC);
		r = ctx_end(&c, proc_names[k][0], N.proc_fn[k](dev->h, &want, NULL));
		if (r != NVML_SUCCESS && r != NVML_ERROR_INSUFFICIENT_SIZE)
			continue;
		for (tries = 0; tries < 4 && r == NVML_ERROR_INSUFFICIENT_SIZE; tries++) {
			/* room for processes that start between the calls, and the 32-byte layout */
			want += 8;
			free(buf);
			buf = xcalloc(want, NVML_PROCESS_INFO_R535_STRIDE);
			got = want;
			c.t0 = now_ns(CLOCK_MONOTONIC);
			r = ctx_end(&c, proc_names[k][0], N.proc_fn[k](dev->h, &got, buf));
			want = got;
		}
		if (r != NVML_SUCCESS) {
			free(buf);
			continue;
		}
		any = 1;
		if (!buf) /* SUCCESS on the sizing call: no processes */
			continue;
		stride = proc_stride(N.proc_version[k], buf, got);
		for (i = 0; i < got; i++) {
			nvmlProcessInfo_t p;
			memset(&p, 0, sizeof(p));
			memcpy(&p, buf + (size_t)i * stride, stride < sizeof(p) ? stride : sizeof(p));
			merge_proc(procs, &n, &cap, types[k], &p, N.proc_version[k] >= 2);
		}
		free(buf);
	}
	rc = finish_ctx(&c);
	if (rc) {
		free(*procs);
		*procs = NULL;
		return rc;
	}
	if (!any) {
		set_error("gpu %u: the process lists are not available", dev->index);
		return GPU_ERR_NOT_SUPPORTED;
	}
	*count = n;
	return GPU_OK;
}

static int nvml_mig_instances(struct gpu_device *dev, struct gpu_mig_instance **out, size_t *count)
{
	struct ctx c = {dev, 0, 0, NULL, 0};
	unsigned cur, pend, max = 0, i;
	size_t n = 0, cap = 0;
	int rc;

	*out = NULL;
	*count = 0;
	rc = usable(dev);
	if (rc)
		return rc;
	if (NV(&c, DeviceGetMigMode, dev->h, &cur, &pend) != NVML_SUCCESS || cur != 1)
		return finish_ctx(&c);
	if (NV(&c, DeviceGetMaxMigDeviceCount, dev->h, &max) != NVML_SUCCESS)
		return finish_ctx(&c);
	for (i = 0; i < max && !c.stop; i++) {
		nvmlDevice_t mh;
		struct gpu_mig_instance *m;
		nvmlMemory_t mem;
		char buf[128];
		unsigned id;
		if (NV(&c, DeviceGetMigDeviceHandleByIndex, dev->h, i, &mh) != NVML_SUCCESS)
			continue;
		XGROW(*out, cap, n + 1);
		m = &(*out)[n++];
		memset(m, 0, sizeof(*m));
		m->gpu_instance = m->compute_instance = GPU_NO_INSTANCE;
		if (NV(&c, DeviceGetGpuInstanceId, mh, &id) == NVML_SUCCESS)
			m->gpu_instance = id;
		if (NV(&c, DeviceGetComputeInstanceId, mh, &id) == NVML_SUCCESS)
			m->compute_instance = id;
		memset(buf, 0, sizeof(buf));
		if (NV(&c, DeviceGetUUID, mh, buf, sizeof(buf) - 1) == NVML_SUCCESS)
			copy_str(m->uuid, sizeof(m->uuid), buf);
		/* a MIG device's name ends in its profile: "NVIDIA A100-SXM4-80GB MIG 3g.40gb" */
		memset(buf, 0, sizeof(buf));
		if (NV(&c, DeviceGetName, mh, buf, NVML_DEVICE_NAME_V2_BUFFER_SIZE) == NVML_SUCCESS) {
			const char *p = strstr(buf, "MIG ");
			if (p)
				copy_str(m->profile, sizeof(m->profile), p + 4);
		}
		if (NV(&c, DeviceGetMemoryInfo, mh, &mem) == NVML_SUCCESS) {
			m->memory_valid = 1;
			m->memory_total_bytes = mem.total;
			m->memory_used_bytes = mem.used;
		}
	}
	rc = finish_ctx(&c);
	if (rc) {
		free(*out);
		*out = NULL;
		return rc;
	}
	*count = n;
	return GPU_OK;
}

/*
 * GPM: NVML derives each profiling metric from two samples of the GPU's
 * performance counters.  The previous sample is kept per device and per MIG
 * GPU instance, and each call asks for the metrics between it and a new one,
 * so one call per collection gives averages over exactly one interval.
 */
static const struct {
	unsigned id;
	unsigned field; /* enum gpu_gpm_field */
	size_t offset;
	double scale; /* to gpu.h's unit */
	double max;   /* larger values are nonsense: dropped */
} gpm_metrics[] = {
#define GPM_PCT(id, m) \
	{ \
		id, gpu_gpm_##m##_valid, offsetof(struct gpu_gpm, m), 1.0, 100.5 \
	}
#define GPM_MIBS(id, m) \
	{ \
		id, gpu_gpm_##m##_valid, offsetof(struct gpu_gpm, m), 1048576.0, 1e15 \
	}
	GPM_PCT(NVML_GPM_METRIC_GRAPHICS_UTIL, graphics_active_pct),
	GPM_PCT(NVML_GPM_METRIC_SM_UTIL, sm_active_pct),
	GPM_PCT(NVML_GPM_METRIC_SM_OCCUPANCY, sm_occupancy_pct),
	GPM_PCT(NVML_GPM_METRIC_ANY_TENSOR_UTIL, tensor_active_pct),
	GPM_PCT(NVML_GPM_METRIC_FP64_UTIL, fp64_active_pct),
	GPM_PCT(NVML_GPM_METRIC_FP32_UTIL, fp32_active_pct),
	GPM_PCT(NVML_GPM_METRIC_FP16_UTIL, fp16_active_pct),
	GPM_PCT(NVML_GPM_METRIC_DRAM_BW_UTIL, dram_active_pct),
	GPM_MIBS(NVML_GPM_METRIC_PCIE_TX_PER_SEC, pcie_tx_bytes_per_s),
	GPM_MIBS(NVML_GPM_METRIC_PCIE_RX_PER_SEC, pcie_rx_bytes_per_s),
	GPM_MIBS(NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, nvlink_tx_bytes_per_s),
	GPM_MIBS(NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, nvlink_rx_bytes_per_s),
#undef GPM_PCT
#undef GPM_MIBS
};
#define NGPM_METRICS (sizeof(gpm_metrics) / sizeof(gpm_metrics[0]))

/* Is GPM there for this device?  Asks once; sets the error text when not. */
static int gpm_supported(struct ctx *c)
{
	struct gpu_device *dev = c->dev;
	if (!N.f.GpmSampleAlloc || !N.f.GpmSampleFree || !N.f.GpmSampleGet || !N.f.GpmMetricsGet ||
	    !N.f.GpmQueryDeviceSupport) {
		set_error("the NVML library has no GPM functions (drivers before R520)");
		return GPU_ERR_NOT_SUPPORTED;
	}
	if (!dev->gpm_support) {
		nvmlGpmSupport_t sup = {NVML_GPM_SUPPORT_VERSION, 0};
		nvmlReturn_t r = NV(c, GpmQueryDeviceSupport, dev->h, &sup);
		if (c->stop)
			return finish_ctx(c);
		if (r == NVML_SUCCESS && sup.isSupportedDevice)
			dev->gpm_support = 1;
		else if (r == NVML_SUCCESS || r == NVML_ERROR_NOT_SUPPORTED)
			dev->gpm_support = GPU_ERR_NOT_SUPPORTED;
		else {
			/* a transient failure (a timeout, an unknown error): not kept, asked again next call */
			set_error("gpu %u: GPM support query failed: %s (asked again next time)", dev->index,
				  nv_str(r));
			return map_rc(r) == GPU_OK ? GPU_ERR : map_rc(r);
		}
	}
	if (dev->gpm_support < 0) {
		/* no index: the collector groups GPUs by this text */
		set_error("the GPU has no GPM profiling counters (Hopper and later GPUs have them)");
		return dev->gpm_support;
	}
	return GPU_OK;
}

static int nvml_gpm(struct gpu_device *dev, unsigned gi, struct gpu_gpm *out)
{
	struct ctx c = {dev, 0, 0, NULL, 0};
	struct gpm_slot *slot;
	nvmlGpmSample_t now_sample = NULL;
	nvmlGpmMetricsGet_t *req;
	nvmlReturn_t r;
	uint64_t now;
	size_t i;
	int rc, dropped = 0;

	memset(out, 0, sizeof(*out));
	rc = usable(dev);
	if (rc)
		return rc;
	rc = gpm_supported(&c);
	if (rc)
		return rc;
	if (gi != GPU_NO_INSTANCE && (gi >= GPM_SLOTS - 1 || !N.f.GpmMigSampleGet)) {
		set_error("gpu %u: no GPM counters for MIG GPU instance %u", dev->index, gi);
		return GPU_ERR_NOT_SUPPORTED;
	}
	slot = &dev->gpm[gi == GPU_NO_INSTANCE ? 0 : 1 + gi];
	if (N.f.GpmSampleAlloc(&now_sample) != NVML_SUCCESS || !now_sample) {
		set_error("gpu %u: cannot allocate a GPM sample", dev->index);
		return GPU_ERR;
	}
	r = gi == GPU_NO_INSTANCE ? NV(&c, GpmSampleGet, dev->h, now_sample) :
				    NV(&c, GpmMigSampleGet, dev->h, gi, now_sample);
	now = now_ns(CLOCK_MONOTONIC);
	if (r != NVML_SUCCESS) {
		/* an instance that went away: forget its sample too */
		N.f.GpmSampleFree(now_sample);
		if (slot->prev)
			N.f.GpmSampleFree(slot->prev);
		slot->prev = NULL;
		slot->prev_ns = 0;
		rc = finish_ctx(&c);
		if (rc)
			return rc;
		if (gi == GPU_NO_INSTANCE)
			set_error("gpu %u: GPM sample failed: %s", dev->index, nv_str(r));
		else
			set_error("gpu %u: GPM sample of GPU instance %u failed: %s", dev->index, gi, nv_str(r));
		return map_rc(r) == GPU_OK ? GPU_ERR : map_rc(r);
	}
	rc = GPU_OK;
	if (slot->prev) {
		if (!dev->gpm_req)
			dev->gpm_req = xcalloc(1, sizeof(*dev->gpm_req));
		req = dev->gpm_req;
		memset(req, 0, offsetof(nvmlGpmMetricsGet_t, metrics) + NGPM_METRICS * sizeof(req->metrics[0]));
		req->version = NVML_GPM_METRICS_GET_VERSION;
		req->numMetrics = (unsigned)NGPM_METRICS;
		req->sample1 = slot->prev;
		req->sample2 = now_sample;
		for (i = 0; i < NGPM_METRICS; i++)
			req->metrics[i].metricId = gpm_metrics[i].id;
		c.t0 = now_ns(CLOCK_MONOTONIC);
		r = ctx_end(&c, "nvmlGpmMetricsGet", N.f.GpmMetricsGet(req));
		if (r == NVML_SUCCESS) {
			for (i = 0; i < NGPM_METRICS; i++) {
				double v = req->metrics[i].value;
				if (req->metrics[i].nvmlReturn != NVML_SUCCESS)
					continue;
				/* counters that went backwards give negative or absurd rates */
				if (!(v >= 0 && v <= gpm_metrics[i].max)) {
					dropped++;
					continue;
				}
				*(double *)((char *)out + gpm_metrics[i].offset) = v * gpm_metrics[i].scale;
				GPU_BIT_SET(out->valid, gpm_metrics[i].field);
			}
			GPU_GPM_SET(out, interval_s, (double)(now - slot->prev_ns) * 1e-9);
			if (dropped)
				set_error(
					"gpu %u: %d GPM metric%s out of range (a sample went backwards); left out",
					dev->index, dropped, dropped == 1 ? "" : "s");
		} else if (!c.stop) {
			set_error(
				"gpu %u: GPM metrics between two samples failed: %s (the next interval starts afresh)",
				dev->index, nv_str(r));
			rc = GPU_ERR;
		}
		N.f.GpmSampleFree(slot->prev);
	}
	slot->prev = now_sample;
	slot->prev_ns = now;
	if (c.stop) {
		memset(out, 0, sizeof(*out));
		return finish_ctx(&c);
	}
	return rc;
}

static struct gpu_device *dev_by_handle(nvmlDevice_t h)
{
	unsigned i;
	for (i = 0; i < N.ndevs; i++)
		if (N.devs[i].h == h)
			return &N.devs[i];
	return NULL;
}

/*
 * Registers d for the events it supports on the event set; 1 when it took.
 * A device lost (or without a handle) now is skipped: revive registers it.
 */
static int register_device(struct gpu_device *d)
{
	ull mask = nvmlEventTypeXidCriticalError | nvmlEventTypeDoubleBitEccError | nvmlEventTypeSingleBitEccError,
	    sup;
	nvmlReturn_t rc;
	if (d->handle_rc != GPU_OK || atomic_load(&d->status) == GPU_STATUS_LOST)
		return 0;
	if (N.f.DeviceGetSupportedEventTypes) {
		rc = N.f.DeviceGetSupportedEventTypes(d->h, &sup);
		if (rc == NVML_ERROR_GPU_IS_LOST)
			atomic_store(&d->status, GPU_STATUS_LOST);
		if (rc != NVML_SUCCESS)
			return 0;
		mask &= sup;
	}
	if (!mask)
		return 0;
	/* NOT_SUPPORTED leaves the set usable (nvml.h) */
	rc = N.f.DeviceRegisterEvents(d->h, mask, N.evset);
	if (rc == NVML_ERROR_GPU_IS_LOST)
		atomic_store(&d->status, GPU_STATUS_LOST);
	return rc == NVML_SUCCESS;
}

static void register_events(void)
{
	unsigned i, any = 0;
	if (!N.f.EventSetCreate || !N.f.DeviceRegisterEvents || !N.f.EventSetWait ||
	    N.f.EventSetCreate(&N.evset) != NVML_SUCCESS) {
		N.evset = NULL;
		atomic_store(&N.ev_state, -1);
		return;
	}
	for (i = 0; i < N.ndevs; i++)
		any |= register_device(&N.devs[i]);
	atomic_store(&N.ev_state, any ? 1 : -1);
}

/* Emits LOST once per device that is known lost. */
static size_t lost_events(struct gpu_event *out, size_t max, size_t n)
{
	unsigned i;
	for (i = 0; i < N.ndevs && n < max; i++) {
		struct gpu_device *d = &N.devs[i];
		int zero = 0;
		if (atomic_load(&d->status) != GPU_STATUS_LOST)
			continue;
		if (!atomic_compare_exchange_strong(&d->lost_reported, &zero, 1))
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].gpu_index = d->index;
		out[n].type = GPU_EVENT_LOST;
		out[n].code = NVML_ERROR_GPU_IS_LOST;
		out[n].gpu_instance = out[n].compute_instance = GPU_NO_INSTANCE;
		out[n].time_ns = (int64_t)now_ns(CLOCK_REALTIME);
		n++;
	}
	return n;
}

/* After the wait reported a lost GPU without saying which: ask each. */
static void find_lost(void)
{
	unsigned i;
	for (i = 0; i < N.ndevs; i++) {
		struct gpu_device *d = &N.devs[i];
		unsigned u;
		if (d->handle_rc != GPU_OK || !N.f.DeviceGetPowerUsage)
			continue;
		if (N.f.DeviceGetPowerUsage(d->h, &u) == NVML_ERROR_GPU_IS_LOST)
			atomic_store(&d->status, GPU_STATUS_LOST);
	}
}

static int nvml_events(struct gpu_event *out, size_t max, unsigned timeout_ms)
{
	size_t n = 0;
	unsigned wait = timeout_ms;

	if (!N.inited) {
		set_error("nvml is not initialised");
		return GPU_ERR;
	}
	if (!max)
		return 0;
	if (!atomic_load(&N.ev_state))
		register_events();
	n = lost_events(out, max, 0);
	if (atomic_load(&N.ev_state) < 0) {
		if (!n && timeout_ms) {
			struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
			nanosleep(&ts, NULL);
		}
		return (int)n;
	}
	while (n < max) {
		nvmlEventData_t ed;
		nvmlReturn_t rc;
		struct gpu_device *d;
		memset(&ed, 0, sizeof(ed));
		rc = N.f.EventSetWait(N.evset, &ed, n ? 0 : wait);
		if (rc == NVML_ERROR_TIMEOUT)
			break;
		if (rc == NVML_ERROR_GPU_IS_LOST) {
			d = dev_by_handle(ed.device);
			if (d)
				atomic_store(&d->status, GPU_STATUS_LOST);
			else
				find_lost();
			n = lost_events(out, max, n);
			break;
		}
		if (rc != NVML_SUCCESS) {
			if (n)
				break;
			set_error("waiting for nvml events failed: %s", nv_str(rc));
			return map_rc(rc);
		}
		d = dev_by_handle(ed.device);
		memset(&out[n], 0, sizeof(out[n]));
		out[n].gpu_index = d ? d->index : GPU_NO_INSTANCE;
		if (ed.eventType & nvmlEventTypeXidCriticalError) {
			out[n].type = GPU_EVENT_XID;
			out[n].code = ed.eventData;
		} else if (ed.eventType & nvmlEventTypeDoubleBitEccError) {
			out[n].type = GPU_EVENT_DBE;
			out[n].code = ed.eventData;
		} else if (ed.eventType & nvmlEventTypeSingleBitEccError) {
			out[n].type = GPU_EVENT_SBE;
			out[n].code = ed.eventData;
		} else {
			out[n].type = GPU_EVENT_OTHER;
			out[n].code = ed.eventType;
		}
		out[n].gpu_instance = ed.gpuInstanceId;
		out[n].compute_instance = ed.computeInstanceId;
		out[n].time_ns = (int64_t)now_ns(CLOCK_REALTIME);
		n++;
	}
	return (int)n;
}

const struct gpu_backend gpu_backend_nvml = {
	.name = "nvml",
	.init = nvml_init,
	.shutdown = nvml_shutdown,
	.last_error = nvml_last_error,
	.enumerate = nvml_enumerate,
	.static_info = nvml_static_info,
	.sample = nvml_sample,
	.processes = nvml_processes,
	.mig_instances = nvml_mig_instances,
	.gpm = nvml_gpm,
	.events = nvml_events,
	.status = nvml_status,
	.revive = nvml_revive,
	.p2p_status = nvml_p2p_status,
	.library = nvml_library,
};
