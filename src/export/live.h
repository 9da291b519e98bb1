/*
 * The live model behind `gpuscope top`: what the last refresh read from
 * each GPU (static facts once, a sample with throttle reasons, GPM activity,
 * the processes with their user and container), the XIDs seen since it
 * started, and what a frame shows (the GPUs in sort order that pass the
 * filter, the processes in order).  view/top.h draws it.
 *
 * It sits beside the collector because it reads what the collector reads:
 * the GPU backend, export/procinfo.h for containers and host/host.h for
 * users; gpu/ is the layer below both and knows nothing of processes'
 * owners.  Unlike the collector it runs on the caller's thread: top
 * refreshes, then draws, so nothing here locks.
 */
#ifndef GPUSCOPE_EXPORT_LIVE_H
#define GPUSCOPE_EXPORT_LIVE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "gpu/gpu.h"

struct live_gpu {
	struct gpu_device *dev;
	int have_static; /* st was read (or at least its uuid) */
	struct gpu_static st;
	int rc; /* the last sample()'s gpu_rc */
	struct gpu_sample s;
	struct gpu_gpm gpm;
};

struct live_proc {
	unsigned gpu; /* the GPU's NVML index */
	unsigned pid;
	char user[32]; /* "" when unknown */
	char comm[32];
	char container[13]; /* the container id's first 12 digits, "" outside one */
	int mem_valid;
	uint64_t mem; /* bytes of GPU memory */
};

/* XIDs kept for the frame: the newest few */
#define LIVE_MAX_XIDS 8
struct live_xid {
	unsigned gpu;
	uint64_t code;
	time_t when; /* wall clock, seconds */
};

enum live_sort {
	LIVE_SORT_INDEX,
	LIVE_SORT_UTIL,
	LIVE_SORT_MEM,
	LIVE_SORT_POWER,
	LIVE_SORT_TEMP,
	LIVE_NSORT
};

/* One GPU a block of bars, or a line; auto: blocks while they fit the screen. */
enum live_layout {
	LIVE_LAYOUT_AUTO,
	LIVE_LAYOUT_FULL,
	LIVE_LAYOUT_COMPACT
};

struct live {
	const struct gpu_backend *b;
	const char *root; /* NULL or "": read /proc and /etc/passwd of this host */
	struct live_gpu *g;
	unsigned n;
	struct live_proc *p; /* every GPU's processes, from the last refresh */
	size_t np, pcap;
	struct live_xid xids[LIVE_MAX_XIDS];
	size_t nxids;
	uint64_t xids_total; /* since live_init() */
	enum live_sort sort;
	char filter[64]; /* "" shows every GPU */
	int procs;       /* read processes (top's p key turns them off) */
	enum live_layout layout;
	unsigned first; /* the first GPU of the frame shown, a position in the frame's order (scrolling) */
};

/* "index", "util", "memory", "power", "temp" */
const char *live_sort_name(enum live_sort k);
/* The sort order of a name, or -1. */
int live_sort_from_name(const char *name);

/* Starts a model of the devices of an initialised backend; free with live_release(). */
void live_init(struct live *t, const struct gpu_backend *b, struct gpu_device *const *devs, unsigned n,
	       const char *root);
void live_release(struct live *t);

/* Samples every GPU (and its processes when t->procs). */
void live_refresh_gpus(struct live *t);
/* Takes the XIDs that arrived since the last call (never waits). */
void live_refresh_xids(struct live *t);

/*
 * What a frame shows: the indices into t->g of the GPUs that pass the
 * filter, in sort order, into order (room for t->n); returns how many.
 * Puts t->p in display order too (by GPU, then most memory first).
 */
unsigned live_frame(struct live *t, unsigned *order);

/* The GPU's NVML index (its position when NVML did not say). */
unsigned live_gpu_index(const struct live *t, unsigned i);

/* Waits `seconds`, through signals. */
void live_sleep(double seconds);

#endif
