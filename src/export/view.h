/*
 * What one collection knows, and how it becomes metric families.
 *
 * The collector fills a struct xview per interval (one struct xgpu per
 * enumerated GPU plus the exporter's own figures); families_render() turns
 * it into an exposition in the chosen names and format.  The family table in
 * families.c pairs every reading with its dcgm-exporter name and its
 * Prometheus-convention ("native") name, units and help text.
 */
#ifndef GPUSCOPE_EXPORT_VIEW_H
#define GPUSCOPE_EXPORT_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "export/benchfile.h"
#include "export/clockev.h"
#include "export/counters.h"
#include "export/expo.h"
#include "gpu/gpu.h"

enum names_mode {
	NAMES_DCGM = 1,   /* dcgm-exporter's names and labels; native names only where dcgm has none */
	NAMES_NATIVE = 2, /* Prometheus-convention names only */
	NAMES_BOTH = 3,
};

/* Parses "dcgm", "native" or "both"; returns 0 or -1. */
int names_mode_parse(const char *s, enum names_mode *out);

/* A process holding a GPU (only with --processes). */
struct xproc {
	unsigned pid;
	char comm[32]; /* /proc/PID/comm, "" when unreadable */
	int used_valid;
	uint64_t used_bytes;
	unsigned gpu_instance; /* GPU_NO_INSTANCE outside MIG */
	unsigned compute_instance;
	char container[13]; /* short container id from its cgroup, "" when none */
};

/* XIDs seen on one GPU, one entry per code. */
struct xid_count {
	unsigned code;
	uint64_t total;     /* since boot as far as the kernel log reaches, then counted live */
	unsigned in_window; /* within the last window (dcgm's DCGM_EXP_XID_ERRORS_COUNT) */
};

/* The Kubernetes pod holding a GPU or MIG device (--kubernetes). */
struct xpod {
	int valid;
	char pod[254];
	char namespace_[64];
	char container[254];
};

struct xgpu {
	unsigned index;       /* NVML index (the gpu label) */
	struct xpod pod;      /* the pod holding the whole GPU */
	struct xpod *mig_pod; /* per MIG device, parallel to mig[]; NULL without */
	int have_static;
	struct gpu_static st;
	int answered;            /* sample() succeeded for this collection */
	int lost;                /* the driver reported the GPU fell off the bus */
	int stalled;             /* a library call for it has run past the timeout */
	int rc;                  /* the last sample()'s gpu_rc */
	struct gpu_sample s;     /* meaningful when answered */
	int nvlink_rate_valid;   /* DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL */
	double nvlink_kib_per_s; /* tx + rx over all links, KiB/s */
	struct gpu_mig_instance *mig;
	size_t nmig;
	struct gpu_gpm gpm;      /* profiling metrics of the whole GPU (GPM) */
	struct gpu_gpm *mig_gpm; /* per MIG device, parallel to mig[]; NULL without */
	struct xproc *procs;
	size_t nprocs;
	struct xid_count *xids;
	size_t nxids;
	int has_last_xid;
	unsigned last_xid;
	double last_xid_time_s; /* Unix time */
	/* clock events (export/clockev.h); clock_tracked 0: none read yet */
	int clock_tracked;
	unsigned clock_in_window[CLOCKEV_NBITS];
	uint64_t clock_edges[CLOCKEV_NBITS];
	/* NVLink P2P status toward GPU j of the view (GPU_P2P_*, -1 unread); NULL with one GPU */
	int *p2p;
	unsigned np2p;
};

/* Exporter-level figures that go with a collection. */
struct xstats {
	double interval_s;
	double collect_duration_s;  /* the last collection, wall time */
	double slow_duration_s;     /* the last PCIe throughput pass (NaN: none yet) */
	double last_collect_time_s; /* Unix time it finished */
	uint64_t collections;
	uint64_t collect_errors; /* failed library calls */
	uint64_t stalled_calls;  /* calls that ran past the timeout, cumulative */
	int backend_up;          /* the GPU library is loaded and initialised */
	const char *backend;     /* "nvml" or NULL */
	int nvml_events_up;      /* XIDs arrive from the library */
	int kmsg_up;             /* XIDs arrive from the kernel log */
	int pod_resources;       /* pod labels asked for (--kubernetes); the next three mean nothing without */
	int pod_resources_up;    /* the kubelet answered the last call */
	size_t pod_resources_devices; /* NVIDIA devices with pod labels */
	size_t pod_resources_dropped; /* NVIDIA devices the kubelet assigns past the bound, without */
	uint64_t xid_unmatched;       /* kernel-log XIDs of a bus id no GPU has */
	uint64_t xid_duplicates;      /* XIDs seen by both sources, counted once */
	/* process figures (Prometheus client conventions) */
	double cpu_seconds;
	double resident_bytes;
	double virtual_bytes;
	double start_time_s;
	double open_fds;
	double max_fds;
	double threads;
};

struct xview {
	unsigned ngpus;
	struct xgpu *gpus;
	struct xstats stats;
	const char *hostname;
	const char *hostname_label; /* "Hostname" (dcgm-exporter before 4.x) or "hostname" */
	double xid_window_s;
	double clock_events_window_s;
	int processes;                    /* --processes: per-process series */
	const struct counters *counters;  /* -f FILE: only its fields; NULL: every family */
	const struct export_bench *bench; /* --bench-file's figures (export/benchfile.h); NULL: none */
};

/*
 * Appends the exposition of v (every GPU family, then the exporter's own
 * collection figures) to out.  Does not write the per-scrape families or the
 * OpenMetrics "# EOF": see families_render_tail().
 */
void families_render(const struct xview *v, enum names_mode names, enum expo_format f, struct strbuf *out);

/*
 * Appends the families that change with every scrape (the age of the
 * served sample, the scrape count) and ends the exposition.
 */
void families_render_tail(enum expo_format f, double sample_age_s, uint64_t scrapes, struct strbuf *out);

/* For tests: the family table's size and the names of entry i (NULL when absent). */
size_t families_count(void);
void families_names(size_t i, const char **native, const char **dcgm, int *native_counter, int *dcgm_counter,
		    const char **native_help);

#endif
