/*
 * Clock events over time, for dcgm-exporter's DCGM_EXP_CLOCK_EVENTS_COUNT
 * and _TOTAL: per GPU, the clock-event reasons of each collection kept for
 * a sliding window (how many collections in the window saw each reason
 * hold the clocks, as dcgm-exporter counts the field's samples), and the
 * times each reason came on since the start (a reason on in the first
 * collection counts once: a GPU already throttled at start is seen).
 * Not thread-safe: the collector calls it under its lock.
 */
#ifndef GPUSCOPE_EXPORT_CLOCKEV_H
#define GPUSCOPE_EXPORT_CLOCKEV_H

#include <stdint.h>

/* GPU_CLOCK_EVENT_* bits 0 (0x1) to 8 (0x100) */
#define CLOCKEV_NBITS 9

struct clockev;

/*
 * A history for one GPU over window_s seconds of collections interval_s
 * apart (room for window / interval + 2 of them, at most 4096: at a shorter
 * interval the oldest in the window drop out first, and the count is a
 * lower bound).  Free with clockev_free().
 */
struct clockev *clockev_new(double window_s, double interval_s);
void clockev_free(struct clockev *h);

/* One collection at t (seconds, CLOCK_MONOTONIC) that read the reasons in bits. */
void clockev_note(struct clockev *h, double t, uint64_t bits);

/*
 * Per bit k (reason 1 << k): in_window[k] collections in (now - window, now]
 * with the reason on, edges[k] times it came on since the start.  Returns 0
 * when no collection has read the reasons yet (the series are absent).
 */
int clockev_counts(const struct clockev *h, double now, unsigned in_window[CLOCKEV_NBITS],
		   uint64_t edges[CLOCKEV_NBITS]);

#endif
