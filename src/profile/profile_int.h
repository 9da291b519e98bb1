/*
 * What the analysis (profile.c) keeps of a trace's events beyond the
 * figures, for the replay of --target (replay.c): internal to src/profile.
 * Times are µs as in the trace.
 */
#ifndef GPUSCOPE_PROFILE_PROFILE_INT_H
#define GPUSCOPE_PROFILE_PROFILE_INT_H

#include <stddef.h>
#include <stdint.h>

/* A CPU interval: a synchronisation, a DataLoader fetch, a step's window. */
struct span {
	double ts, end; /* µs */
};

/* One kernel, copy or memset (72 bytes: memory grows with these). */
struct gpu_ev {
	double ts, end;  /* µs */
	double launch;   /* the CPU launch (by correlation), at most ts; ts without one */
	double bytes;    /* args.bytes of a copy or memset, else 0 */
	long long corr;  /* args.correlation, or -1 */
	int step;        /* index into steps, -1 unassigned, filled after the read */
	int op;          /* the operator that launched it (ops index), or -1 */
	int stream;      /* args.stream, or -1 */
	float grid;      /* thread blocks launched (args.grid, x y z), NaN when absent */
	float msg_bytes; /* a collective's input, bytes ("In msg nelems" x the dtype's size); NaN */
	uint16_t bin;    /* class * PROFILE_NSUB + sub */
	int16_t device;
	int16_t group; /* a collective's "Group size", or -1 */
	uint8_t lead;  /* the longest matrix kernel of its operator: carries the operator's FLOPs */
};

/* A cross-stream wait (cuda_sync "Stream Wait Event"): stream waits for src_stream's work up to the record. */
struct profile_wait {
	double launch; /* the cudaStreamWaitEvent call on the host, µs */
	double record; /* the cudaEventRecord call it waits on, µs; NaN when not in the trace */
	long long corr, record_corr;
	int16_t device;
	int stream, src_stream;
};

struct profile_data {
	struct gpu_ev *ev; /* sorted by step (unassigned first), then start */
	size_t nev;
	struct profile_wait *waits;
	size_t nwaits;
	struct span *syncs; /* host synchronisations, by start */
	size_t nsyncs;
	struct span *steps; /* the steps' windows, by start; none: the trace is one step */
	size_t nsteps;
};
void profile_data_free(struct profile_data *d);

/*
 * Replays d's events with the durations dur_us[i] (µs, of d->ev[i]) in
 * their launch order, streams and cross-stream waits, the host shifted at
 * its synchronisations (replay.c).  Returns the sum of the steps' replayed
 * wall times (without steps: the GPU's span), µs; *gpu_us, when not NULL,
 * gets the last replayed end.
 */
double profile_replay(const struct profile_data *d, const double *dur_us, double *gpu_us);

/* Bytes of one element of a collective's dtype ("Float" 4, "BFloat16" 2 ...); 4 when unknown. */
double profile_dtype_bytes(const char *dtype);

#endif
