/*
 * A stand-in libnvidia-ml.so.1 for gpuscope's tests.
 *
 * It exports the NVML functions gpuscope uses, with the real names (versioned
 * and plain), the real enum values and the real struct layouts (declared in
 * src/gpu/nvml_abi.h, checked there against the sizes of nvml.h), and answers
 * them from a scenario file named by $FAKE_NVML_SCENARIO.  README.md in this
 * directory describes the file.  A reading the scenario does not give answers
 * NVML_ERROR_NOT_SUPPORTED, as a real GPU without that feature would.
 *
 * Faults it can inject: nvmlInit failing with any NVML code (18 = driver and
 * library versions differ), a GPU that is lost after N calls or after it
 * delivered its XIDs, a call that blocks for N ms, NOT_SUPPORTED for any
 * function, and the 32-byte process records of the R535 driver.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/nvml_abi.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_GPUS 128
#define MAX_MIG 8

struct kv {
	char *key, *val;
	int line;
	struct kv *next;
};

struct section {
	struct kv *head, **tail;
};

struct fmig {
	unsigned magic;
	unsigned parent;
	unsigned gi, ci;
	unsigned long long total_mib, used_mib;
	char profile[32];              /* "3g.40gb", or "" */
	double sm_active;              /* GPM SM activity of the instance, %; < 0: the GPU's */
	unsigned long long gone_after; /* the instance vanishes after this many calls on the GPU; 0 never */
};

struct fdev {
	unsigned magic;
	unsigned index;
	atomic_uint calls;
	atomic_int lost;
	atomic_llong lost_at_ms;  /* CLOCK_MONOTONIC when it was lost */
	atomic_int returned;      /* back after back_after_ms: lost_after_calls no longer applies */
	atomic_uint fail_seen[8]; /* calls seen by the GPU's fail_first lines, in order */
	atomic_uint reason_reads; /* reads of the current clock-event reasons (clock_events_toggle) */
	struct fmig mig[MAX_MIG];
	unsigned nmig;
};

#define DEV_MAGIC 0x6e766d6cu
#define MIG_MAGIC 0x6d696721u

struct event {
	struct fdev *dev;
	unsigned long long type, data;
	int lose_after;
};

struct nvmlEventSet_st {
	struct event q[256];
	unsigned head, tail;
	int lost_told[MAX_GPUS];
	int registered[MAX_GPUS];
};

static struct {
	pthread_mutex_t lock;
	int refs;
	char path[1024];
	struct section sys, all, gpu[MAX_GPUS];
	unsigned ngpu;
	struct fdev dev[MAX_GPUS];
} S = {PTHREAD_MUTEX_INITIALIZER, 0, "", {NULL, NULL}, {NULL, NULL}, {{NULL, NULL}}, 0, {{0}}};

/* ---- scenario file ---- */

/* the keys laid out by group, as the scenario files use them */
/* clang-format off */
static const char *const sys_keys[] = {
	"gpus", "driver_version", "nvml_version", "cuda_driver_version", "init_error",
	/* read by the stand-ins of fake_stack.c, not by NVML */
	"cuda_runtime_version", "cudnn_version", "nccl_version",
	NULL,
};

static const char *const gpu_keys[] = {
	"name", "uuid", "serial", "vbios", "minor",
	"brand", "inforom_image", "inforom_oem", "inforom_ecc", "inforom_power",
	"pci_domain", "pci_bus", "pci_device", "pci_device_id", "pci_subsystem_id",
	"memory_total_mib", "memory_used_mib", "memory_reserved_mib",
	"pcie_gen", "pcie_width", "pcie_max_gen", "pcie_max_width", "pcie_gpu_max_gen",
	"pcie_tx_kbps", "pcie_rx_kbps", "pcie_replay",
	"power_mw", "energy_mj", "power_limit_mw", "power_default_limit_mw",
	"temp_c", "temp_mem_c", "temp_slowdown_c", "temp_shutdown_c", "temp_gpu_max_c", "temp_mem_max_c",
	"clock_sm", "clock_mem", "clock_graphics", "clock_video",
	"clock_max_sm", "clock_max_mem", "clock_max_graphics",
	"util_gpu", "util_mem", "util_enc", "util_dec", "fan_pct", "pstate",
	"persistence", "mig", "mig_pending", "max_mig", "mig_instance", "ecc", "ecc_pending", "cc",
	"ecc_sbe_vol", "ecc_dbe_vol", "ecc_sbe_agg", "ecc_dbe_agg",
	"retired_sbe", "retired_dbe", "retired_pending",
	"remapped_cor", "remapped_unc", "remap_pending", "remap_failure",
	"clock_events", "clock_events_supported", "clock_events_toggle", "p2p_nvlink",
	"violation_power_ns", "violation_thermal_ns", "violation_sync_boost_ns",
	"violation_board_limit_ns", "violation_low_util_ns", "violation_reliability_ns",
	"nvlinks", "nvlink_version", "nvlink_remote", "nvlink_switch_bus", "nvlink_peers",
	"nvlink_down", "nvlink_error", "nvlink_tx_kib", "nvlink_rx_kib",
	"process", "process_stride", "xid", "lost_on_xid", "lost_after_calls", "block", "unsupported",
	"back_after_ms", "fail_first",
	"mig_gone_after_calls",
	"gpm", "gpm_graphics", "gpm_sm_active", "gpm_sm_occupancy", "gpm_tensor", "gpm_fp64", "gpm_fp32",
	"gpm_fp16", "gpm_dram", "gpm_pcie_tx_mibps", "gpm_pcie_rx_mibps", "gpm_nvlink_tx_mibps",
	"gpm_nvlink_rx_mibps", "gpm_backwards_after",
	NULL,
};
/* clang-format on */

static void fail(int line, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "fake-nvml: %s:%d: ", S.path, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static char *trim(char *s)
{
	char *e;
	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

static int known(const char *const *keys, const char *k)
{
	for (; *keys; keys++)
		if (!strcmp(*keys, k))
			return 1;
	return 0;
}

static void add_kv(struct section *s, const char *k, const char *v, int line)
{
	struct kv *e = calloc(1, sizeof(*e));
	if (!e)
		abort();
	e->key = strdup(k);
	e->val = strdup(v);
	e->line = line;
	if (!e->key || !e->val)
		abort();
	if (!s->tail)
		s->tail = &s->head;
	*s->tail = e;
	s->tail = &e->next;
}

static void free_section(struct section *s)
{
	struct kv *e = s->head, *n;
	for (; e; e = n) {
		n = e->next;
		free(e->key);
		free(e->val);
		free(e);
	}
	s->head = NULL;
	s->tail = NULL;
}

static void unload(void)
{
	unsigned i;
	free_section(&S.sys);
	free_section(&S.all);
	for (i = 0; i < MAX_GPUS; i++)
		free_section(&S.gpu[i]);
	memset(S.dev, 0, sizeof(S.dev));
	S.ngpu = 0;
}

static const char *sys_get(const char *k)
{
	struct kv *e;
	for (e = S.sys.head; e; e = e->next)
		if (!strcmp(e->key, k))
			return e->val;
	return NULL;
}

static int load(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	struct section *cur = NULL;
	const char *const *keys = NULL;
	int ln = 0, ok = 1;
	const char *v;

	snprintf(S.path, sizeof(S.path), "%s", path);
	if (!f) {
		fprintf(stderr, "fake-nvml: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s, *eq, *hash;
		ln++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		s = trim(line);
		if (!*s)
			continue;
		if (*s == '[') {
			unsigned idx;
			char *end = strchr(s, ']');
			if (!end) {
				fail(ln, "unterminated section header");
				ok = 0;
				break;
			}
			*end = '\0';
			s = trim(s + 1);
			if (!strcmp(s, "system")) {
				cur = &S.sys;
				keys = sys_keys;
			} else if (!strcmp(s, "all")) {
				cur = &S.all;
				keys = gpu_keys;
			} else if (sscanf(s, "gpu %u", &idx) == 1 && idx < MAX_GPUS) {
				cur = &S.gpu[idx];
				keys = gpu_keys;
			} else {
				fail(ln, "unknown section '[%s]'", s);
				ok = 0;
				break;
			}
			continue;
		}
		eq = strchr(s, '=');
		if (!eq || !cur) {
			fail(ln, "expected 'key = value' inside a section");
			ok = 0;
			break;
		}
		*eq = '\0';
		if (!known(keys, trim(s))) {
			fail(ln, "unknown key '%s'", trim(s));
			ok = 0;
			break;
		}
		add_kv(cur, trim(s), trim(eq + 1), ln);
	}
	fclose(f);
	if (!ok)
		return -1;
	v = sys_get("gpus");
	S.ngpu = v ? (unsigned)strtoul(v, NULL, 0) : 0;
	if (S.ngpu > MAX_GPUS) {
		fail(0, "at most %d gpus", MAX_GPUS);
		return -1;
	}
	return 0;
}

/* Value of a GPU's key: its own section first, then [all]. */
static const char *get(const struct fdev *d, const char *k)
{
	struct kv *e;
	for (e = S.gpu[d->index].head; e; e = e->next)
		if (!strcmp(e->key, k))
			return e->val;
	for (e = S.all.head; e; e = e->next)
		if (!strcmp(e->key, k))
			return e->val;
	return NULL;
}

/* The section whose lines give a repeated key (a GPU's own lines replace [all]'s). */
static struct kv *list_head(const struct fdev *d, const char *k)
{
	struct kv *e;
	for (e = S.gpu[d->index].head; e; e = e->next)
		if (!strcmp(e->key, k))
			return S.gpu[d->index].head;
	return S.all.head;
}

static int get_u64(const struct fdev *d, const char *k, unsigned long long *out)
{
	const char *v = get(d, k);
	if (!v)
		return 0;
	*out = strtoull(v, NULL, 0);
	return 1;
}

static int get_uint(const struct fdev *d, const char *k, unsigned *out)
{
	unsigned long long v;
	if (!get_u64(d, k, &v))
		return 0;
	*out = (unsigned)v;
	return 1;
}

/* Does the space-separated list under key k contain word w? */
static int list_has(const struct fdev *d, const char *k, const char *w)
{
	const char *v = get(d, k);
	size_t n = strlen(w);
	while (v && *v) {
		while (*v == ' ')
			v++;
		if (!strncmp(v, w, n) && (v[n] == ' ' || v[n] == '\0'))
			return 1;
		v = strchr(v, ' ');
	}
	return 0;
}

/* The i-th number of a space-separated list, or -1. */
static long long list_nth(const struct fdev *d, const char *k, unsigned i, unsigned *count)
{
	const char *v = get(d, k);
	unsigned n = 0;
	long long found = -1;
	while (v && *v) {
		char *end;
		unsigned long long x = strtoull(v, &end, 0);
		if (end == v)
			break;
		if (n == i)
			found = (long long)x;
		n++;
		v = end;
	}
	if (count)
		*count = n;
	return found;
}

/* Copies a string value, with "{i}" replaced by the GPU's index. */
static nvmlReturn_t put_str(const struct fdev *d, const char *k, char *buf, unsigned len)
{
	const char *v = get(d, k), *p;
	char out[256];
	size_t o = 0;
	if (!v)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!buf)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (p = v; *p && o + 12 < sizeof(out); p++) {
		if (!strncmp(p, "{i}", 3)) {
			o += (size_t)snprintf(out + o, sizeof(out) - o, "%u", d->index);
			p += 2;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
	if (o + 1 > len)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(buf, out, o + 1);
	return NVML_SUCCESS;
}

/* ---- per-call checks ---- */

static void sleep_ms(unsigned long ms)
{
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static long long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The GPU falls off the bus (once; back_after_ms counts from here). */
static void lose(struct fdev *d)
{
	if (!atomic_exchange(&d->lost, 1))
		atomic_store(&d->lost_at_ms, mono_ms());
}

/* fail_first = FUNCTION N: the first N calls of FUNCTION fail with NVML_ERROR_UNKNOWN (a transient error). */
static int fail_now(struct fdev *d, const char *fn)
{
	struct kv *e;
	unsigned k = 0;
	for (e = list_head(d, "fail_first"); e && k < 8; e = e->next) {
		char name[128];
		unsigned long n;
		if (strcmp(e->key, "fail_first"))
			continue;
		if (sscanf(e->val, "%127s %lu", name, &n) == 2 && !strcmp(name, fn) &&
		    atomic_fetch_add(&d->fail_seen[k], 1) < n)
			return 1;
		k++;
	}
	return 0;
}

static struct fdev *as_dev(nvmlDevice_t h)
{
	struct fdev *d = (struct fdev *)h;
	if (d < S.dev || d >= S.dev + S.ngpu || d->magic != DEV_MAGIC)
		return NULL;
	return d;
}

static struct fmig *as_mig(nvmlDevice_t h)
{
	unsigned i, k;
	for (i = 0; i < S.ngpu; i++)
		for (k = 0; k < S.dev[i].nmig; k++)
			if ((void *)&S.dev[i].mig[k] == (void *)h)
				return &S.dev[i].mig[k];
	return NULL;
}

/*
 * Every device function starts here: counts the call, applies the faults
 * of the scenario, and returns the device or NULL with *rc set.
 */
static struct fdev *enter(nvmlDevice_t h, const char *fn, nvmlReturn_t *rc)
{
	struct fdev *d;
	unsigned long long limit;
	struct kv *e;
	unsigned n;

	if (!S.refs) {
		*rc = NVML_ERROR_UNINITIALIZED;
		return NULL;
	}
	d = as_dev(h);
	if (!d) {
		*rc = NVML_ERROR_INVALID_ARGUMENT;
		return NULL;
	}
	n = atomic_fetch_add(&d->calls, 1) + 1;
	if (!atomic_load(&d->returned) && get_u64(d, "lost_after_calls", &limit) && n > limit)
		lose(d);
	if (atomic_load(&d->lost)) {
		/* back_after_ms = T: back on the bus T ms after it was lost (a reset) */
		if (!get_u64(d, "back_after_ms", &limit) ||
		    mono_ms() - atomic_load(&d->lost_at_ms) < (long long)limit) {
			*rc = NVML_ERROR_GPU_IS_LOST;
			return NULL;
		}
		atomic_store(&d->returned, 1);
		atomic_store(&d->lost, 0);
	}
	for (e = list_head(d, "block"); e; e = e->next) {
		char name[128];
		unsigned long ms;
		if (strcmp(e->key, "block") || sscanf(e->val, "%127s %lu", name, &ms) != 2)
			continue;
		if (!strcmp(name, fn))
			sleep_ms(ms);
	}
	if (list_has(d, "unsupported", fn)) {
		*rc = NVML_ERROR_NOT_SUPPORTED;
		return NULL;
	}
	if (fail_now(d, fn)) {
		*rc = NVML_ERROR_UNKNOWN;
		return NULL;
	}
	*rc = NVML_SUCCESS;
	return d;
}

#define ENTER(h) \
	nvmlReturn_t rc_; \
	struct fdev *d = enter((h), __func__, &rc_); \
	if (!d) \
	return rc_

#define U_OR_UNSUPPORTED(key, out) \
	do { \
		unsigned u_; \
		if (!(out)) \
			return NVML_ERROR_INVALID_ARGUMENT; \
		if (!get_uint(d, key, &u_)) \
			return NVML_ERROR_NOT_SUPPORTED; \
		*(out) = u_; \
		return NVML_SUCCESS; \
	} while (0)

/* ---- init ---- */

static nvmlReturn_t do_init(void)
{
	const char *path = getenv("FAKE_NVML_SCENARIO");
	const char *v;
	unsigned i, k;

	pthread_mutex_lock(&S.lock);
	if (S.refs) {
		S.refs++;
		pthread_mutex_unlock(&S.lock);
		return NVML_SUCCESS;
	}
	if (!path || !*path) {
		pthread_mutex_unlock(&S.lock);
		return NVML_ERROR_DRIVER_NOT_LOADED;
	}
	if (load(path) < 0) {
		unload();
		pthread_mutex_unlock(&S.lock);
		return NVML_ERROR_UNKNOWN;
	}
	v = sys_get("init_error");
	if (v && strtol(v, NULL, 0) != 0) {
		nvmlReturn_t rc = (nvmlReturn_t)strtol(v, NULL, 0);
		unload();
		pthread_mutex_unlock(&S.lock);
		return rc;
	}
	for (i = 0; i < S.ngpu; i++) {
		struct fdev *d = &S.dev[i];
		struct kv *e;
		d->magic = DEV_MAGIC;
		d->index = i;
		atomic_init(&d->calls, 0);
		atomic_init(&d->lost, 0);
		atomic_init(&d->lost_at_ms, 0);
		atomic_init(&d->returned, 0);
		for (k = 0; k < 8; k++)
			atomic_init(&d->fail_seen[k], 0);
		for (e = list_head(d, "mig_instance"); e && d->nmig < MAX_MIG; e = e->next) {
			struct fmig *m = &d->mig[d->nmig];
			if (strcmp(e->key, "mig_instance"))
				continue;
			m->profile[0] = '\0';
			m->sm_active = -1;
			m->gone_after = 0;
			if (sscanf(e->val, "%u %u %llu %llu %31s %lf", &m->gi, &m->ci, &m->total_mib, &m->used_mib,
				   m->profile, &m->sm_active) < 4) {
				fail(e->line,
				     "mig_instance wants 'GI CI TOTAL_MIB USED_MIB [PROFILE [SM_ACTIVE_PCT]]'");
				continue;
			}
			{
				unsigned gi;
				unsigned long long after;
				const char *g = get(d, "mig_gone_after_calls");
				if (g && sscanf(g, "%u %llu", &gi, &after) == 2 && gi == m->gi)
					m->gone_after = after;
			}
			m->magic = MIG_MAGIC;
			m->parent = i;
			d->nmig++;
		}
	}
	S.refs = 1;
	pthread_mutex_unlock(&S.lock);
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlInit_v2(void)
{
	return do_init();
}
EXPORT nvmlReturn_t nvmlInit(void)
{
	return do_init();
}
EXPORT nvmlReturn_t nvmlInitWithFlags(unsigned flags)
{
	(void)flags;
	return do_init();
}

EXPORT nvmlReturn_t nvmlShutdown(void)
{
	pthread_mutex_lock(&S.lock);
	if (!S.refs) {
		pthread_mutex_unlock(&S.lock);
		return NVML_ERROR_UNINITIALIZED;
	}
	if (--S.refs == 0)
		unload();
	pthread_mutex_unlock(&S.lock);
	return NVML_SUCCESS;
}

EXPORT const char *nvmlErrorString(nvmlReturn_t rc)
{
	switch (rc) {
	case NVML_SUCCESS:
		return "Success";
	case NVML_ERROR_UNINITIALIZED:
		return "Uninitialized";
	case NVML_ERROR_INVALID_ARGUMENT:
		return "Invalid Argument";
	case NVML_ERROR_NOT_SUPPORTED:
		return "Not Supported";
	case NVML_ERROR_NO_PERMISSION:
		return "Insufficient Permissions";
	case NVML_ERROR_NOT_FOUND:
		return "Not Found";
	case NVML_ERROR_INSUFFICIENT_SIZE:
		return "Insufficient Size";
	case NVML_ERROR_DRIVER_NOT_LOADED:
		return "Driver Not Loaded";
	case NVML_ERROR_TIMEOUT:
		return "Timeout";
	case NVML_ERROR_GPU_IS_LOST:
		return "GPU is lost";
	case NVML_ERROR_RESET_REQUIRED:
		return "GPU requires reset";
	case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
		return "Driver/library version mismatch";
	default:
		return "Unknown Error";
	}
}

/* ---- system ---- */

static nvmlReturn_t sys_str(const char *k, char *buf, unsigned len)
{
	const char *v;
	if (!S.refs)
		return NVML_ERROR_UNINITIALIZED;
	v = sys_get(k);
	if (!v)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!buf)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (strlen(v) + 1 > len)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(buf, v, strlen(v) + 1);
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned len)
{
	return sys_str("driver_version", buf, len);
}
EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char *buf, unsigned len)
{
	return sys_str("nvml_version", buf, len);
}

static nvmlReturn_t cuda_version(int *v)
{
	const char *s;
	if (!S.refs)
		return NVML_ERROR_UNINITIALIZED;
	if (!v)
		return NVML_ERROR_INVALID_ARGUMENT;
	s = sys_get("cuda_driver_version");
	if (!s)
		return NVML_ERROR_NOT_SUPPORTED;
	*v = (int)strtol(s, NULL, 0);
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v)
{
	return cuda_version(v);
}
EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v)
{
	return cuda_version(v);
}

static nvmlReturn_t get_count(unsigned *n)
{
	if (!S.refs)
		return NVML_ERROR_UNINITIALIZED;
	if (!n)
		return NVML_ERROR_INVALID_ARGUMENT;
	*n = S.ngpu;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *n)
{
	return get_count(n);
}
EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned *n)
{
	return get_count(n);
}

static nvmlReturn_t by_index(unsigned i, nvmlDevice_t *h)
{
	if (!S.refs)
		return NVML_ERROR_UNINITIALIZED;
	if (!h || i >= S.ngpu)
		return NVML_ERROR_INVALID_ARGUMENT;
	*h = (nvmlDevice_t)&S.dev[i];
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *h)
{
	return by_index(i, h);
}
EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned i, nvmlDevice_t *h)
{
	return by_index(i, h);
}

/* The handle of the GPU with this UUID; like the real library, it does not ask the GPU. */
EXPORT nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *h)
{
	unsigned i;
	char buf[96];
	if (!S.refs)
		return NVML_ERROR_UNINITIALIZED;
	if (!uuid || !h)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (i = 0; i < S.ngpu; i++)
		if (put_str(&S.dev[i], "uuid", buf, sizeof(buf)) == NVML_SUCCESS && !strcmp(buf, uuid)) {
			*h = (nvmlDevice_t)&S.dev[i];
			return NVML_SUCCESS;
		}
	return NVML_ERROR_NOT_FOUND;
}

/* ---- identity ---- */

EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t h, char *buf, unsigned len)
{
	struct fmig *m = as_mig(h);
	if (m) {
		/* the real library names a MIG device "<GPU name> MIG <profile>" */
		char parent[96], tmp[160];
		int n;
		if (!buf)
			return NVML_ERROR_INVALID_ARGUMENT;
		if (put_str(&S.dev[m->parent], "name", parent, sizeof(parent)) != NVML_SUCCESS)
			snprintf(parent, sizeof(parent), "NVIDIA GPU");
		n = snprintf(tmp, sizeof(tmp), "%s MIG %s", parent, m->profile[0] ? m->profile : "unknown");
		if ((unsigned)n + 1 > len)
			return NVML_ERROR_INSUFFICIENT_SIZE;
		memcpy(buf, tmp, (size_t)n + 1);
		return NVML_SUCCESS;
	}
	{
		ENTER(h);
		return put_str(d, "name", buf, len);
	}
}

EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t h, char *buf, unsigned len)
{
	struct fmig *m = as_mig(h);
	if (m) {
		char tmp[96];
		int n = snprintf(tmp, sizeof(tmp), "MIG-%08x-0000-4000-8000-%04x%04x%04x", 0x5eed0000u + m->parent,
				 m->parent, m->gi, m->ci);
		if (!buf)
			return NVML_ERROR_INVALID_ARGUMENT;
		if ((unsigned)n + 1 > len)
			return NVML_ERROR_INSUFFICIENT_SIZE;
		memcpy(buf, tmp, (size_t)n + 1);
		return NVML_SUCCESS;
	}
	{
		ENTER(h);
		return put_str(d, "uuid", buf, len);
	}
}

EXPORT nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t h, char *buf, unsigned len)
{
	ENTER(h);
	return put_str(d, "serial", buf, len);
}

EXPORT nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t h, char *buf, unsigned len)
{
	ENTER(h);
	return put_str(d, "vbios", buf, len);
}

/* brand is the nvmlBrandType_t number: 2 Tesla, 14 NVIDIA (nvml.h) */
EXPORT nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t h, int *v)
{
	unsigned u;
	ENTER(h);
	if (!v)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!get_uint(d, "brand", &u))
		return NVML_ERROR_NOT_SUPPORTED;
	*v = (int)u;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetInforomImageVersion(nvmlDevice_t h, char *buf, unsigned len)
{
	ENTER(h);
	return put_str(d, "inforom_image", buf, len);
}

/* object: nvmlInforomObject_t, 0 OEM, 1 ECC, 2 power */
EXPORT nvmlReturn_t nvmlDeviceGetInforomVersion(nvmlDevice_t h, int object, char *buf, unsigned len)
{
	static const char *const keys[] = {"inforom_oem", "inforom_ecc", "inforom_power"};
	ENTER(h);
	if (object < 0 || object > 2)
		return NVML_ERROR_INVALID_ARGUMENT;
	return put_str(d, keys[object], buf, len);
}

EXPORT nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t h, unsigned *v)
{
	ENTER(h);
	if (!v)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!get_uint(d, "minor", v))
		*v = d->index;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t h, unsigned *v)
{
	ENTER(h);
	if (!v)
		return NVML_ERROR_INVALID_ARGUMENT;
	*v = d->index;
	return NVML_SUCCESS;
}

static void fill_pci(const struct fdev *d, nvmlPciInfo_t *p)
{
	unsigned u;
	memset(p, 0, sizeof(*p));
	p->domain = get_uint(d, "pci_domain", &u) ? u : 0;
	p->bus = get_uint(d, "pci_bus", &u) ? u : d->index + 1;
	p->device = get_uint(d, "pci_device", &u) ? u : 0;
	p->pciDeviceId = get_uint(d, "pci_device_id", &u) ? u : 0x000010de;
	p->pciSubSystemId = get_uint(d, "pci_subsystem_id", &u) ? u : 0;
	snprintf(p->busIdLegacy, sizeof(p->busIdLegacy), "%04X:%02X:%02X.0", p->domain & 0xffff, p->bus & 0xff,
		 p->device & 0xff);
	snprintf(p->busId, sizeof(p->busId), "%08X:%02X:%02X.0", p->domain, p->bus & 0xff, p->device & 0xff);
}

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t h, nvmlPciInfo_t *p)
{
	ENTER(h);
	if (!p)
		return NVML_ERROR_INVALID_ARGUMENT;
	fill_pci(d, p);
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t h, nvmlPciInfo_t *p)
{
	return nvmlDeviceGetPciInfo_v3(h, p);
}

EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t h, int *major, int *minor)
{
	const char *v;
	ENTER(h);
	if (!major || !minor)
		return NVML_ERROR_INVALID_ARGUMENT;
	v = get(d, "cc");
	if (!v || sscanf(v, "%d.%d", major, minor) != 2)
		return NVML_ERROR_NOT_SUPPORTED;
	return NVML_SUCCESS;
}

/* ---- memory ---- */

static int mem_values(const struct fdev *d, unsigned long long *total, unsigned long long *used,
		      unsigned long long *reserved)
{
	unsigned long long t, u = 0, r = 0;
	if (!get_u64(d, "memory_total_mib", &t))
		return 0;
	get_u64(d, "memory_used_mib", &u);
	get_u64(d, "memory_reserved_mib", &r);
	*total = t << 20;
	*used = u << 20;
	*reserved = r << 20;
	return 1;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t h, nvmlMemory_t *m)
{
	unsigned long long t, u, r;
	struct fmig *mg = as_mig(h);
	if (mg) {
		if (!m)
			return NVML_ERROR_INVALID_ARGUMENT;
		m->total = mg->total_mib << 20;
		m->used = mg->used_mib << 20;
		m->free = m->total - m->used;
		return NVML_SUCCESS;
	}
	{
		ENTER(h);
		if (!m)
			return NVML_ERROR_INVALID_ARGUMENT;
		if (!mem_values(d, &t, &u, &r))
			return NVML_ERROR_NOT_SUPPORTED;
		/* v1 counts the driver's reservation as used (R510+) */
		m->total = t;
		m->used = u + r;
		m->free = t - u - r;
		return NVML_SUCCESS;
	}
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t h, nvmlMemory_v2_t *m)
{
	unsigned long long t, u, r;
	ENTER(h);
	if (!m)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (m->version != NVML_MEMORY_V2_VERSION)
		return 25; /* NVML_ERROR_ARGUMENT_VERSION_MISMATCH */
	if (!mem_values(d, &t, &u, &r))
		return NVML_ERROR_NOT_SUPPORTED;
	m->total = t;
	m->used = u;
	m->reserved = r;
	m->free = t - u - r;
	return NVML_SUCCESS;
}

/* ---- PCIe ---- */

EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t h, unsigned *v)
{
	ENTER(h);
	U_OR_UNSUPPORTED("pcie_max_gen", v);
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t h, unsigned *v)
{
	ENTER(h);
	U_OR_UNSUPPORTED("pcie_max_width", v);
}

EXPORT nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t h, unsigned *v)
{
	ENTER(h);
	U_OR_UNSUPPORTED("pcie_gpu_max_gen", v);
}

EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t h, unsigned *v)
{
	ENTER(h);
	U_OR_UNSUPPORTED("pcie_gen", v);
}

EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t h, unsigned *v)
{
	ENTER(h);
	U_OR_UNSUPPORTED("pcie_width", v);
}

EXPORT nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t h, int counter, unsigned *v)
{
	ENTER(h);
	if (counter == NVML_PCIE_UTIL_TX_BYTES)
		U_OR_UNSUPPORTED("pcie_tx_kbps", v);
	if (counter == NVML_PCIE_UTIL_RX_BYTES)
		U_OR_UNSUPPORTED("pcie_rx_kbps", v);
	return NVML_ERROR_INVALID_ARGUMENT;
}

EXPORT nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t h, unsigned *v)
{
	ENTER(h);
	U_OR_UNSUPPORTED("pcie_replay", v);
}

/* ---- power, thermal, clocks ---- */

EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t h, unsigned *v)
{
	ENTER(h);
	U_OR_UNSUPPORTED("power_mw", v);
}

EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t h, unsigned long long *v)
{
	ENTER(h);
	if (!v)
		return NVML_ERROR_INVALID_ARGUMENT;
	return get_u64(d, "energy_mj", v) ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t h, unsigned *v)
{
	ENTER(h);
	U_OR_UNSUPPORTED("power_limit_mw", v);
}

EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t h, unsigned *v)
{
	ENTER(h);
	U_OR_UNSUPPORTED("power_default_limit_mw", v);
}

EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t h, int sensor, unsigned *v)
{
	ENTER(h);
	if (sensor != NVML_TEMPERATURE_GPU)
		return NVML_ERROR_INVALID_ARGUMENT;
	U_OR_UNSUPPORTED("temp_c", v);
}

EXPORT nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t h, int t, unsigned *v)
{
	ENTER(h);
	switch (t) {
	case NVML_TEMPERATURE_THRESHOLD_SHUTDOWN:
		U_OR_UNSUPPORTED("temp_shutdown_c", v);
	case NVML_TEMPERATURE_THRESHOLD_SLOWDOWN:
		U_OR_UNSUPPORTED("temp_slowdown_c", v);
	case NVML_TEMPERATURE_THRESHOLD_MEM_MAX:
		U_OR_UNSUPPORTED("temp_mem_max_c", v);
	case NVML_TEMPERATURE_THRESHOLD_GPU_MAX:
		U_OR_UNSUPPORTED("temp_gpu_max_c", v);
	case 4:
	case 5:
	case 6:
	case 7:
		return NVML_ERROR_NOT_SUPPORTED;
	default:
		return NVML_ERROR_INVALID_ARGUMENT;
	}
}

EXPORT nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t h, unsigned *v)
{
	ENTER(h);
	U_OR_UNSUPPORTED("fan_pct", v);
}

EXPORT nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t h, int *v)
{
	unsigned u;
	ENTER(h);
	if (!v)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!get_uint(d, "pstate", &u))
		return NVML_ERROR_NOT_SUPPORTED;
	*v = (int)u;
	return NVML_SUCCESS;
}

static const char *clock_key(int type, int max)
{
	static const char *const cur[] = {"clock_graphics", "clock_sm", "clock_mem", "clock_video"};
	static const char *const mx[] = {"clock_max_graphics", "clock_max_sm", "clock_max_mem", NULL};
	if (type < 0 || type > 3)
		return NULL;
	return max ? mx[type] : cur[type];
}

EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t h, int type, unsigned *v)
{
	const char *k = clock_key(type, 0);
	ENTER(h);
	if (!k)
		return NVML_ERROR_INVALID_ARGUMENT;
	U_OR_UNSUPPORTED(k, v);
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t h, int type, unsigned *v)
{
	const char *k = clock_key(type, 1);
	ENTER(h);
	if (type < 0 || type > 3)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!k)
		return NVML_ERROR_NOT_SUPPORTED;
	U_OR_UNSUPPORTED(k, v);
}

static nvmlReturn_t reasons(struct fdev *d, const char *k, unsigned long long *v)
{
	if (!v)
		return NVML_ERROR_INVALID_ARGUMENT;
	return get_u64(d, k, v) ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

/* clock_events_toggle = N: the reasons hold for N reads, then none for N reads, and so on */
static nvmlReturn_t current_reasons(struct fdev *d, unsigned long long *v)
{
	nvmlReturn_t rc = reasons(d, "clock_events", v);
	unsigned long long n;
	if (rc == NVML_SUCCESS && get_u64(d, "clock_events_toggle", &n) && n &&
	    (atomic_fetch_add(&d->reason_reads, 1) / n) % 2)
		*v = 0;
	return rc;
}

EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t h, unsigned long long *v)
{
	ENTER(h);
	return current_reasons(d, v);
}

EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t h, unsigned long long *v)
{
	ENTER(h);
	return current_reasons(d, v);
}

EXPORT nvmlReturn_t nvmlDeviceGetSupportedClocksEventReasons(nvmlDevice_t h, unsigned long long *v)
{
	ENTER(h);
	return reasons(d, "clock_events_supported", v);
}

EXPORT nvmlReturn_t nvmlDeviceGetSupportedClocksThrottleReasons(nvmlDevice_t h, unsigned long long *v)
{
	ENTER(h);
	return reasons(d, "clock_events_supported", v);
}

EXPORT nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t h, int policy, nvmlViolationTime_t *v)
{
	static const char *const keys[] = {"violation_power_ns",      "violation_thermal_ns",
					   "violation_sync_boost_ns", "violation_board_limit_ns",
					   "violation_low_util_ns",   "violation_reliability_ns"};
	unsigned long long x;
	ENTER(h);
	if (!v || policy < 0 || policy > 11)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (policy > 5 || !get_u64(d, keys[policy], &x))
		return NVML_ERROR_NOT_SUPPORTED;
	v->referenceTime = 1700000000000000ull;
	v->violationTime = x;
	return NVML_SUCCESS;
}

/* ---- utilisation ---- */

/* Has a MIG instance not vanished yet (mig_gone_after_calls)? */
static int mig_alive(struct fdev *d, const struct fmig *m)
{
	return !m->gone_after || atomic_load(&d->calls) <= m->gone_after;
}

static int mig_on(const struct fdev *d)
{
	unsigned u;
	return get_uint(d, "mig", &u) && u == 1;
}

EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t h, nvmlUtilization_t *u)
{
	unsigned g, m;
	ENTER(h);
	if (!u)
		return NVML_ERROR_INVALID_ARGUMENT;
	/* not supported on MIG-enabled GPUs (nvml.h) */
	if (mig_on(d) || !get_uint(d, "util_gpu", &g) || !get_uint(d, "util_mem", &m))
		return NVML_ERROR_NOT_SUPPORTED;
	u->gpu = g;
	u->memory = m;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t h, unsigned *v, unsigned *period)
{
	ENTER(h);
	if (!period)
		return NVML_ERROR_INVALID_ARGUMENT;
	*period = 167000;
	U_OR_UNSUPPORTED("util_enc", v);
}

EXPORT nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t h, unsigned *v, unsigned *period)
{
	ENTER(h);
	if (!period)
		return NVML_ERROR_INVALID_ARGUMENT;
	*period = 167000;
	U_OR_UNSUPPORTED("util_dec", v);
}

/* ---- modes ---- */

EXPORT nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t h, int *v)
{
	unsigned u;
	ENTER(h);
	if (!v)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!get_uint(d, "persistence", &u))
		return NVML_ERROR_NOT_SUPPORTED;
	*v = (int)u;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t h, unsigned *cur, unsigned *pending)
{
	unsigned c, p;
	ENTER(h);
	if (!cur || !pending)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!get_uint(d, "mig", &c))
		return NVML_ERROR_NOT_SUPPORTED;
	*cur = c;
	*pending = get_uint(d, "mig_pending", &p) ? p : c;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t h, int *cur, int *pending)
{
	unsigned c, p;
	ENTER(h);
	if (!cur || !pending)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!get_uint(d, "ecc", &c))
		return NVML_ERROR_NOT_SUPPORTED;
	*cur = (int)c;
	*pending = (int)(get_uint(d, "ecc_pending", &p) ? p : c);
	return NVML_SUCCESS;
}

/* ---- ECC, retired pages, row remapping ---- */

EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t h, int type, int counter, unsigned long long *v)
{
	static const char *const keys[2][2] = {{"ecc_sbe_vol", "ecc_sbe_agg"}, {"ecc_dbe_vol", "ecc_dbe_agg"}};
	unsigned on;
	ENTER(h);
	if (!v || type < 0 || type > 1 || counter < 0 || counter > 1)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!get_uint(d, "ecc", &on) || !on)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!get_u64(d, keys[type][counter], v))
		*v = 0;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t h, int cause, unsigned *count,
					      unsigned long long *addrs)
{
	unsigned n, i;
	ENTER(h);
	if (!count || cause < 0 || cause > 1)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!get(d, "retired_sbe") && !get(d, "retired_dbe") && !get(d, "retired_pending"))
		return NVML_ERROR_NOT_SUPPORTED;
	if (!get_uint(d, cause ? "retired_dbe" : "retired_sbe", &n))
		n = 0;
	if (*count < n || (!addrs && n)) {
		*count = n;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	for (i = 0; i < n; i++)
		addrs[i] = 0x1000ull * (i + 1) + (unsigned long long)cause;
	*count = n;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetRetiredPages_v2(nvmlDevice_t h, int cause, unsigned *count,
						 unsigned long long *addrs, unsigned long long *times)
{
	nvmlReturn_t rc = nvmlDeviceGetRetiredPages(h, cause, count, addrs);
	unsigned i;
	if (rc == NVML_SUCCESS && times)
		for (i = 0; i < *count; i++)
			times[i] = 1700000000ull + i;
	return rc;
}

EXPORT nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t h, int *v)
{
	unsigned u;
	ENTER(h);
	if (!v)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!get(d, "retired_sbe") && !get(d, "retired_dbe") && !get(d, "retired_pending"))
		return NVML_ERROR_NOT_SUPPORTED;
	*v = get_uint(d, "retired_pending", &u) ? (int)u : 0;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t h, unsigned *cor, unsigned *unc, unsigned *pending,
					      unsigned *failure)
{
	ENTER(h);
	if (!cor || !unc || !pending || !failure)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!get(d, "remapped_cor") && !get(d, "remapped_unc") && !get(d, "remap_pending") &&
	    !get(d, "remap_failure"))
		return NVML_ERROR_NOT_SUPPORTED;
	/* not supported on MIG with active instances (nvml.h) */
	if (mig_on(d) && d->nmig)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!get_uint(d, "remapped_cor", cor))
		*cor = 0;
	if (!get_uint(d, "remapped_unc", unc))
		*unc = 0;
	if (!get_uint(d, "remap_pending", pending))
		*pending = 0;
	if (!get_uint(d, "remap_failure", failure))
		*failure = 0;
	return NVML_SUCCESS;
}

/* ---- NVLink ---- */

static nvmlReturn_t link_ok(const struct fdev *d, unsigned link)
{
	unsigned n;
	if (!get_uint(d, "nvlinks", &n) || n == 0)
		return NVML_ERROR_NOT_SUPPORTED;
	if (link >= n)
		return NVML_ERROR_INVALID_ARGUMENT;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t h, unsigned link, int *v)
{
	char w[16];
	nvmlReturn_t rc;
	ENTER(h);
	if (!v)
		return NVML_ERROR_INVALID_ARGUMENT;
	rc = link_ok(d, link);
	if (rc)
		return rc;
	snprintf(w, sizeof(w), "%u", link);
	*v = list_has(d, "nvlink_down", w) ? NVML_FEATURE_DISABLED : NVML_FEATURE_ENABLED;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t h, unsigned link, unsigned *v)
{
	nvmlReturn_t rc;
	ENTER(h);
	rc = link_ok(d, link);
	if (rc)
		return rc;
	U_OR_UNSUPPORTED("nvlink_version", v);
}

/* The peer of a link: a GPU of this scenario or an NVSwitch. */
static int link_remote(const struct fdev *d, unsigned link, nvmlPciInfo_t *p, int *type)
{
	const char *r = get(d, "nvlink_remote");
	unsigned n;
	long long x;
	memset(p, 0, sizeof(*p));
	if (!r)
		return 0;
	if (!strcmp(r, "switch")) {
		list_nth(d, "nvlink_switch_bus", 0, &n);
		if (!n)
			return 0;
		x = list_nth(d, "nvlink_switch_bus", link % n, NULL);
		p->bus = (unsigned)x;
		p->pciDeviceId = 0x22a310de; /* an NVSwitch (GH100 generation) */
		snprintf(p->busIdLegacy, sizeof(p->busIdLegacy), "0000:%02X:00.0", p->bus & 0xff);
		snprintf(p->busId, sizeof(p->busId), "00000000:%02X:00.0", p->bus & 0xff);
		*type = NVML_NVLINK_DEVICE_TYPE_SWITCH;
		return 1;
	}
	if (!strcmp(r, "gpu")) {
		x = list_nth(d, "nvlink_peers", link, NULL);
		if (x < 0 || (unsigned long long)x >= S.ngpu)
			return 0;
		fill_pci(&S.dev[x], p);
		*type = NVML_NVLINK_DEVICE_TYPE_GPU;
		return 1;
	}
	return 0;
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t h, unsigned link, nvmlPciInfo_t *p)
{
	int t;
	nvmlReturn_t rc;
	ENTER(h);
	if (!p)
		return NVML_ERROR_INVALID_ARGUMENT;
	rc = link_ok(d, link);
	if (rc)
		return rc;
	return link_remote(d, link, p, &t) ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t h, unsigned link, int *type)
{
	nvmlPciInfo_t p;
	nvmlReturn_t rc;
	ENTER(h);
	if (!type)
		return NVML_ERROR_INVALID_ARGUMENT;
	rc = link_ok(d, link);
	if (rc)
		return rc;
	return link_remote(d, link, &p, type) ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t h, unsigned link, int counter,
						    unsigned long long *v)
{
	static const char *const names[] = {"replay", "recovery", "crc_flit", "crc_data", "ecc_data"};
	struct kv *e;
	nvmlReturn_t rc;
	ENTER(h);
	if (!v || counter < 0 || counter > 4)
		return NVML_ERROR_INVALID_ARGUMENT;
	rc = link_ok(d, link);
	if (rc)
		return rc;
	/* the last line that applies wins: "LINK COUNTER VALUE AFTER" applies
	 * once the GPU has had more than AFTER calls (a burst during the run) */
	*v = 0;
	for (e = list_head(d, "nvlink_error"); e; e = e->next) {
		unsigned l;
		char name[32];
		unsigned long long x, after = 0;
		int n;
		if (strcmp(e->key, "nvlink_error"))
			continue;
		n = sscanf(e->val, "%u %31s %llu %llu", &l, name, &x, &after);
		if (n < 3 || (n == 4 && atomic_load(&d->calls) <= after))
			continue;
		if (l == link && !strcmp(name, names[counter]))
			*v = x;
	}
	return NVML_SUCCESS;
}

/* ---- field values ---- */

EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t h, int count, nvmlFieldValue_t *values)
{
	int i;
	ENTER(h);
	if (count < 0 || (count && !values))
		return NVML_ERROR_INVALID_ARGUMENT;
	for (i = 0; i < count; i++) {
		nvmlFieldValue_t *f = &values[i];
		unsigned long long x;
		f->timestamp = 1700000000000000ll;
		f->latencyUsec = 0;
		f->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
		switch (f->fieldId) {
		case NVML_FI_DEV_MEMORY_TEMP:
			if (get_u64(d, "temp_mem_c", &x)) {
				f->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
				f->value.uiVal = (unsigned)x;
				f->nvmlReturn = NVML_SUCCESS;
			}
			break;
		case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX:
		case NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX:
			if (link_ok(d, f->scopeId) == NVML_SUCCESS &&
			    get_u64(d,
				    f->fieldId == NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX ? "nvlink_tx_kib" :
											  "nvlink_rx_kib",
				    &x)) {
				f->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
				f->value.ullVal = x;
				f->nvmlReturn = NVML_SUCCESS;
			}
			break;
		default:
			break;
		}
	}
	return NVML_SUCCESS;
}

/* ---- processes ---- */

enum {
	PT_COMPUTE,
	PT_GRAPHICS,
	PT_MPS
};

static nvmlReturn_t procs(nvmlDevice_t h, const char *fn, int type, int version, unsigned *count, void *buf)
{
	static const char *const tnames[] = {"compute", "graphics", "mps"};
	unsigned n = 0, stride, sv;
	struct kv *e;
	nvmlReturn_t rc_;
	struct fdev *d = enter(h, fn, &rc_);
	if (!d)
		return rc_;
	if (!count)
		return NVML_ERROR_INVALID_ARGUMENT;
	stride = version == 1 ? 16 : 24;
	if (version == 3 && get_uint(d, "process_stride", &sv) && sv == 32)
		stride = 32; /* the R535 ABI break */
	for (e = list_head(d, "process"); e; e = e->next) {
		unsigned pid;
		char t[16];
		unsigned long long mib;
		if (strcmp(e->key, "process") || sscanf(e->val, "%u %15s %llu", &pid, t, &mib) != 3)
			continue;
		if (strcmp(t, tnames[type]))
			continue;
		if (buf && n < *count) {
			unsigned char *rec = (unsigned char *)buf + (size_t)n * stride;
			unsigned long long bytes = mib << 20;
			unsigned none = 0xFFFFFFFFu;
			memset(rec, 0, stride);
			memcpy(rec, &pid, 4);
			memcpy(rec + 8, &bytes, 8);
			if (version >= 2) {
				memcpy(rec + 16, &none, 4);
				memcpy(rec + 20, &none, 4);
			}
		}
		n++;
	}
	if (!buf || *count < n) {
		*count = n;
		return n == 0 ? NVML_SUCCESS : NVML_ERROR_INSUFFICIENT_SIZE;
	}
	*count = n;
	return NVML_SUCCESS;
}

#define PROC_FN(name, type, version) \
	EXPORT nvmlReturn_t name(nvmlDevice_t h, unsigned *count, void *buf) \
	{ \
		return procs(h, #name, type, version, count, buf); \
	}
PROC_FN(nvmlDeviceGetComputeRunningProcesses_v3, PT_COMPUTE, 3)
PROC_FN(nvmlDeviceGetComputeRunningProcesses_v2, PT_COMPUTE, 2)
PROC_FN(nvmlDeviceGetComputeRunningProcesses, PT_COMPUTE, 1)
PROC_FN(nvmlDeviceGetGraphicsRunningProcesses_v3, PT_GRAPHICS, 3)
PROC_FN(nvmlDeviceGetGraphicsRunningProcesses_v2, PT_GRAPHICS, 2)
PROC_FN(nvmlDeviceGetGraphicsRunningProcesses, PT_GRAPHICS, 1)
PROC_FN(nvmlDeviceGetMPSComputeRunningProcesses_v3, PT_MPS, 3)
PROC_FN(nvmlDeviceGetMPSComputeRunningProcesses_v2, PT_MPS, 2)
PROC_FN(nvmlDeviceGetMPSComputeRunningProcesses, PT_MPS, 1)

/* ---- MIG ---- */

EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t h, unsigned *v)
{
	unsigned u;
	ENTER(h);
	if (!v)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!get(d, "mig"))
		return NVML_ERROR_NOT_SUPPORTED;
	*v = get_uint(d, "max_mig", &u) ? u : 7;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t h, unsigned i, nvmlDevice_t *mig)
{
	ENTER(h);
	if (!mig)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!mig_on(d))
		return NVML_ERROR_INVALID_ARGUMENT;
	/* index i among the instances that still exist */
	{
		unsigned k, seen = 0;
		for (k = 0; k < d->nmig; k++) {
			if (!mig_alive(d, &d->mig[k]))
				continue;
			if (seen++ == i) {
				*mig = (nvmlDevice_t)&d->mig[k];
				return NVML_SUCCESS;
			}
		}
	}
	return NVML_ERROR_NOT_FOUND;
}

EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t h, unsigned *v)
{
	struct fmig *m = as_mig(h);
	if (!m || !v)
		return as_dev(h) ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
	*v = m->gi;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t h, unsigned *v)
{
	struct fmig *m = as_mig(h);
	if (!m || !v)
		return as_dev(h) ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
	*v = m->ci;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t h, unsigned *v)
{
	if (!v)
		return NVML_ERROR_INVALID_ARGUMENT;
	*v = as_mig(h) != NULL;
	return as_mig(h) || as_dev(h) ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

/* ---- GPM ---- */

struct nvmlGpmSample_st {
	unsigned magic;
	struct fdev *dev;
	unsigned gi;            /* 0xFFFFFFFF: the whole GPU */
	unsigned long long seq; /* samples taken on the GPU before this one */
	long long t_ns;
	int taken;
};
#define GPM_MAGIC 0x67706d21u

static int gpm_on(const struct fdev *d)
{
	unsigned u;
	return get_uint(d, "gpm", &u) && u == 1;
}

EXPORT nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t h, nvmlGpmSupport_t *sup)
{
	ENTER(h);
	if (!sup || sup->version != NVML_GPM_SUPPORT_VERSION)
		return NVML_ERROR_INVALID_ARGUMENT;
	sup->isSupportedDevice = gpm_on(d);
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *out)
{
	if (!S.refs)
		return NVML_ERROR_UNINITIALIZED;
	if (!out)
		return NVML_ERROR_INVALID_ARGUMENT;
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return NVML_ERROR_MEMORY;
	(*out)->magic = GPM_MAGIC;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t smp)
{
	if (!smp || smp->magic != GPM_MAGIC)
		return NVML_ERROR_INVALID_ARGUMENT;
	smp->magic = 0;
	free(smp);
	return NVML_SUCCESS;
}

static nvmlReturn_t gpm_take(struct fdev *d, unsigned gi, nvmlGpmSample_t smp)
{
	static atomic_ullong seqs[MAX_GPUS];
	struct timespec ts;
	if (!smp || smp->magic != GPM_MAGIC)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!gpm_on(d))
		return NVML_ERROR_NOT_SUPPORTED;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	smp->dev = d;
	smp->gi = gi;
	smp->seq = atomic_fetch_add(&seqs[d->index], 1);
	smp->t_ns = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	smp->taken = 1;
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t h, nvmlGpmSample_t smp)
{
	ENTER(h);
	return gpm_take(d, 0xFFFFFFFFu, smp);
}

EXPORT nvmlReturn_t nvmlGpmMigSampleGet(nvmlDevice_t h, unsigned gi, nvmlGpmSample_t smp)
{
	unsigned k;
	ENTER(h);
	if (!mig_on(d))
		return NVML_ERROR_NOT_SUPPORTED;
	for (k = 0; k < d->nmig; k++)
		if (d->mig[k].gi == gi && mig_alive(d, &d->mig[k]))
			return gpm_take(d, gi, smp);
	return NVML_ERROR_NOT_FOUND;
}

/*
 * The metrics between two samples: the scenario's values, as if the
 * counters ran at that rate.  From sample gpm_backwards_after on, the
 * counters run backwards (the values come out negative), as a counter
 * reset would make them.
 */
EXPORT nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *req)
{
	static const struct {
		unsigned id;
		const char *key;
	} keys[] = {
		{NVML_GPM_METRIC_GRAPHICS_UTIL, "gpm_graphics"},
		{NVML_GPM_METRIC_SM_UTIL, "gpm_sm_active"},
		{NVML_GPM_METRIC_SM_OCCUPANCY, "gpm_sm_occupancy"},
		{NVML_GPM_METRIC_ANY_TENSOR_UTIL, "gpm_tensor"},
		{NVML_GPM_METRIC_FP64_UTIL, "gpm_fp64"},
		{NVML_GPM_METRIC_FP32_UTIL, "gpm_fp32"},
		{NVML_GPM_METRIC_FP16_UTIL, "gpm_fp16"},
		{NVML_GPM_METRIC_DRAM_BW_UTIL, "gpm_dram"},
		{NVML_GPM_METRIC_PCIE_TX_PER_SEC, "gpm_pcie_tx_mibps"},
		{NVML_GPM_METRIC_PCIE_RX_PER_SEC, "gpm_pcie_rx_mibps"},
		{NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, "gpm_nvlink_tx_mibps"},
		{NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, "gpm_nvlink_rx_mibps"},
	};
	nvmlGpmSample_t a, b;
	struct fdev *d;
	unsigned i, k;
	unsigned long long back = 0;
	int backwards;

	if (!S.refs)
		return NVML_ERROR_UNINITIALIZED;
	if (!req || req->version != NVML_GPM_METRICS_GET_VERSION || req->numMetrics > NVML_GPM_METRIC_MAX)
		return NVML_ERROR_INVALID_ARGUMENT;
	a = req->sample1;
	b = req->sample2;
	if (!a || !b || a->magic != GPM_MAGIC || b->magic != GPM_MAGIC || !a->taken || !b->taken ||
	    a->dev != b->dev || a->gi != b->gi || b->t_ns < a->t_ns)
		return NVML_ERROR_INVALID_ARGUMENT;
	d = b->dev;
	backwards = get_u64(d, "gpm_backwards_after", &back) && b->seq >= back;
	for (i = 0; i < req->numMetrics; i++) {
		nvmlGpmMetric_t *m = &req->metrics[i];
		const char *v = NULL;
		m->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
		m->value = 0;
		m->metricInfo.shortName = m->metricInfo.longName = m->metricInfo.unit = NULL;
		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (keys[k].id == m->metricId)
				v = get(d, keys[k].key);
		if (v)
			m->value = strtod(v, NULL);
		if (b->gi != 0xFFFFFFFFu &&
		    (m->metricId == NVML_GPM_METRIC_SM_UTIL || m->metricId == NVML_GPM_METRIC_GRAPHICS_UTIL)) {
			for (k = 0; k < d->nmig; k++)
				if (d->mig[k].gi == b->gi && d->mig[k].sm_active >= 0) {
					m->value = d->mig[k].sm_active;
					v = "";
				}
		}
		if (!v)
			continue;
		if (backwards)
			m->value = -m->value - 1;
		m->nvmlReturn = NVML_SUCCESS;
	}
	return NVML_SUCCESS;
}

/* ---- events ---- */

EXPORT nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set)
{
	if (!S.refs)
		return NVML_ERROR_UNINITIALIZED;
	if (!set)
		return NVML_ERROR_INVALID_ARGUMENT;
	*set = calloc(1, sizeof(**set));
	return *set ? NVML_SUCCESS : NVML_ERROR_MEMORY;
}

EXPORT nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set)
{
	free(set);
	return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t h, unsigned long long *types)
{
	unsigned on;
	ENTER(h);
	if (!types)
		return NVML_ERROR_INVALID_ARGUMENT;
	*types = nvmlEventTypeXidCriticalError | 0x4ull | 0x10ull;
	if (get_uint(d, "ecc", &on) && on)
		*types |= nvmlEventTypeSingleBitEccError | nvmlEventTypeDoubleBitEccError;
	return NVML_SUCCESS;
}

/*
 * NVLink P2P between two GPUs: p2p_nvlink = STATUS on either GPU (the
 * larger wins), else OK (0) where both have NVLinks, NOT_SUPPORTED (5) where
 * one has none.  Other capability indices are not modelled.
 */
EXPORT nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t h1, nvmlDevice_t h2, int index, int *status)
{
	struct fdev *peer;
	unsigned a = 0, b = 0, la = 0, lb = 0;
	int have_a, have_b;
	ENTER(h1);
	peer = enter(h2, __func__, &rc_);
	if (!peer)
		return rc_;
	if (!status || index != 2)
		return index != 2 ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
	have_a = get_uint(d, "p2p_nvlink", &a);
	have_b = get_uint(peer, "p2p_nvlink", &b);
	if (have_a || have_b) {
		*status = (int)(a > b ? a : b);
		return NVML_SUCCESS;
	}
	get_uint(d, "nvlinks", &la);
	get_uint(peer, "nvlinks", &lb);
	*status = la && lb ? 0 : 5;
	return NVML_SUCCESS;
}

/* Registering queues the GPU's scenario XIDs, as if they happened right after. */
EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t h, unsigned long long types, nvmlEventSet_t set)
{
	struct kv *e, *last = NULL;
	unsigned lose;
	ENTER(h);
	if (!set)
		return NVML_ERROR_INVALID_ARGUMENT;
	pthread_mutex_lock(&S.lock);
	set->registered[d->index] = 1;
	/* registered again (a GPU back from a reset): a later loss is told again */
	set->lost_told[d->index] = 0;
	if (types & nvmlEventTypeXidCriticalError) {
		for (e = list_head(d, "xid"); e; e = e->next)
			if (!strcmp(e->key, "xid"))
				last = e;
		for (e = list_head(d, "xid"); e; e = e->next) {
			struct event *ev;
			if (strcmp(e->key, "xid") || set->tail - set->head >= 256)
				continue;
			ev = &set->q[set->tail++ % 256];
			ev->dev = d;
			ev->type = nvmlEventTypeXidCriticalError;
			ev->data = strtoull(e->val, NULL, 0);
			ev->lose_after = e == last && get_uint(d, "lost_on_xid", &lose) && lose;
		}
	}
	pthread_mutex_unlock(&S.lock);
	return NVML_SUCCESS;
}

static nvmlReturn_t wait_event(nvmlEventSet_t set, nvmlEventData_t *data, unsigned timeout_ms)
{
	unsigned i;
	if (!S.refs)
		return NVML_ERROR_UNINITIALIZED;
	if (!set || !data)
		return NVML_ERROR_INVALID_ARGUMENT;
	pthread_mutex_lock(&S.lock);
	if (set->head != set->tail) {
		struct event *ev = &set->q[set->head++ % 256];
		memset(data, 0, sizeof(*data));
		data->device = (nvmlDevice_t)ev->dev;
		data->eventType = ev->type;
		data->eventData = ev->data;
		data->gpuInstanceId = 0xFFFFFFFFu;
		data->computeInstanceId = 0xFFFFFFFFu;
		if (ev->lose_after)
			lose(ev->dev);
		pthread_mutex_unlock(&S.lock);
		return NVML_SUCCESS;
	}
	for (i = 0; i < S.ngpu; i++)
		if (set->registered[i] && atomic_load(&S.dev[i].lost) && !set->lost_told[i]) {
			set->lost_told[i] = 1;
			memset(data, 0, sizeof(*data));
			data->device = (nvmlDevice_t)&S.dev[i];
			pthread_mutex_unlock(&S.lock);
			return NVML_ERROR_GPU_IS_LOST;
		}
	pthread_mutex_unlock(&S.lock);
	if (timeout_ms)
		sleep_ms(timeout_ms);
	return NVML_ERROR_TIMEOUT;
}

EXPORT nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned timeout_ms)
{
	return wait_event(set, data, timeout_ms);
}

EXPORT nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t *data, unsigned timeout_ms)
{
	return wait_event(set, data, timeout_ms);
}
