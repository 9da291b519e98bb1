/*
 * XID bookkeeping: a counter per GPU and code, the last XID, and a sliding
 * window count, fed by two sources that report the same errors:
 *
 *   - NVML events (nvmlEventSetWait), which see only what happens after the
 *     exporter registered for them;
 *   - the kernel log (/dev/kmsg, "NVRM: Xid (PCI:0000:3b:00): 79, ..."), which
 *     also holds what happened before the exporter started.
 *
 * An XID that both sources report is counted once: a report from one source
 * is matched with an unmatched report of the same GPU and code from the other
 * source less than XID_MATCH_S seconds apart.  Kernel-log entries older than
 * the book's start are history no NVML event can match, and count directly,
 * so a restarted exporter shows the same totals as before.
 *
 * Thread-safe: the event and kernel-log threads add, the collector reads.
 */
#ifndef GPUSCOPE_EXPORT_XID_H
#define GPUSCOPE_EXPORT_XID_H

#include <stddef.h>
#include <stdint.h>

#include "export/view.h"

/* Two reports of one XID are at most this far apart, in seconds. */
#define XID_MATCH_S 10.0

enum xid_source {
	XID_FROM_NVML = 0,
	XID_FROM_KMSG = 1
};

struct xid_book;

/*
 * A book for ngpus GPUs, with dcgm's sliding window of window_s seconds
 * (1..3600).  start_s is the Unix time the exporter started.  Free with
 * xid_book_free().
 */
struct xid_book *xid_book_new(unsigned ngpus, double window_s, double start_s);
void xid_book_free(struct xid_book *b);

/*
 * Records an XID on GPU slot `gpu` at Unix time time_s.  Returns 1 when it
 * was counted, 0 when it matched the other source's report of the same
 * error (a duplicate), -1 when gpu is out of range.
 */
int xid_book_add(struct xid_book *b, unsigned gpu, unsigned code, double time_s, enum xid_source src);

/*
 * Copies GPU slot gpu's figures at Unix time now_s: *counts (malloc()ed,
 * caller frees; NULL when none) sorted by code, and the last XID.
 * Returns the number of codes.
 */
size_t xid_book_view(struct xid_book *b, unsigned gpu, double now_s, struct xid_count **counts, int *has_last,
		     unsigned *last, double *last_time_s);

/* XIDs that were reported by both sources (and counted once). */
uint64_t xid_book_duplicates(struct xid_book *b);

#endif
