/*
 * The collector: samples every GPU off the scrape path and publishes the
 * rendered expositions as immutable, reference-counted snapshots.
 *
 * Threads:
 *   - a pool of workers, one per GPU up to 8, makes the library calls; a
 *     worker holds one GPU at a time and no two ever call for the same GPU,
 *     so a call that hangs stalls only its GPU: the stuck worker gets a
 *     stand-in (8 at most) and leaves when its call returns.  The fast
 *     readings of every GPU come first, then the second GPM samples, then
 *     the slow PCIe throughput calls (two 20 ms windows) whose result the
 *     next collection uses.  A lost GPU is looked for again every 5 s
 *     (a new handle by its UUID) and served again when it answers;
 *   - the publisher wakes every interval, hands each worker a job, waits
 *     for them up to a deadline, renders text 0.0.4 and OpenMetrics once
 *     and swaps the new snapshot in.  A worker still busy after the
 *     collection timeout marks its GPU stalled (gpu_up 0, its readings
 *     dropped) until its call returns;
 *   - an event thread takes XIDs and lost-GPU reports from the library;
 *   - a kernel-log thread reads /dev/kmsg for "NVRM: Xid" lines.
 * A scrape only takes a reference to the current snapshot: it never waits
 * on the GPU library.
 */
#ifndef GPUSCOPE_EXPORT_COLLECTOR_H
#define GPUSCOPE_EXPORT_COLLECTOR_H

#include <stddef.h>

#include "export/expo.h"
#include "export/view.h"
#include "gpu/gpu.h"

struct collector_opts {
	const struct gpu_backend *backend; /* initialised; NULL: no GPU library */
	struct gpu_device *const *devs;    /* from backend->enumerate() */
	unsigned ndevs;
	double interval_s;
	double timeout_s;             /* a library call longer than this stalls its GPU */
	double xid_window_s;          /* dcgm's DCGM_EXP_XID_ERRORS_COUNT window */
	double clock_events_window_s; /* and DCGM_EXP_CLOCK_EVENTS_COUNT's */
	enum names_mode names;
	int processes;                   /* per-process series */
	int pcie_throughput;             /* run the slow PCIe throughput call */
	int events;                      /* take XIDs and lost-GPU reports from the library */
	const char *kmsg_path;           /* NULL: no kernel log */
	const char *hostname;            /* NULL: no hostname label */
	const char *hostname_label;      /* its name under the dcgm names: "Hostname" or "hostname" */
	const struct counters *counters; /* -f FILE: only its fields (lives as long as the collector) */
	struct kube *kube;               /* --kubernetes: pod labels; NULL: none (outlives the collector) */
	const char *bench_file;          /* --bench-file: served as gpuscope_bench_*; NULL: none (copied) */
};

/* A published collection; read-only once published. */
struct snapshot {
	char *body[EXPO_NFORMATS]; /* without the per-scrape tail */
	size_t len[EXPO_NFORMATS];
	double mono_s;    /* CLOCK_MONOTONIC when published */
	int healthy;      /* no GPU stalled */
	char health[512]; /* why not, or "ok" */
	char notes[512];  /* what is missing and why, for /health; "" when nothing */
	int refs;         /* private */
};

struct collector;

/*
 * Starts the threads.  The first collection is made before this returns
 * (waiting up to timeout_s for slow GPUs), so the first scrape has data.
 * Returns NULL with a message in err when a thread cannot start.
 */
struct collector *collector_start(const struct collector_opts *o, char *err, size_t err_len);

/*
 * Stops every thread.  Waits up to grace_s for workers stuck in a library
 * call; returns 1 when all stopped (the backend may then be shut down), 0
 * when some are still inside the library (leave it loaded: exiting is the
 * only way out of a hung driver call).  Frees the collector either way.
 */
int collector_stop(struct collector *c, double grace_s);

/* The current snapshot with a reference taken; NULL before the first collection. */
struct snapshot *collector_acquire(struct collector *c);
void snapshot_release(struct snapshot *s);

/* CLOCK_MONOTONIC now, in seconds. */
double mono_now(void);

#endif
