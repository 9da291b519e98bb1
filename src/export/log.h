/*
 * The exporter's log: leveled (--log-level debug|info|warn|error), in
 * logfmt or JSON (--log-format), as Prometheus exporters log.  Every line
 * goes out with one write(2), so lines from concurrent threads never
 * interleave; a limiter caps lines a client can provoke (bad requests,
 * refused connections) and reports how many it dropped.
 *
 *	time=2026-01-02T03:04:05.678Z level=warn msg="export: http: ..."
 *	{"time":"2026-01-02T03:04:05.678Z","level":"warn","msg":"export: http: ..."}
 */
#ifndef GPUSCOPE_EXPORT_LOG_H
#define GPUSCOPE_EXPORT_LOG_H

#include <pthread.h>
#include <stddef.h>

#include "util/error.h"

enum log_level {
	LOG_DEBUG = 0,
	LOG_INFO,
	LOG_WARN,
	LOG_ERROR
};
enum log_format {
	LOG_LOGFMT = 0,
	LOG_JSON
};

/*
 * Sets the level and format from the flags' words; returns 0, or -1 with
 * the reason in why.  Also routes warning(), error() and die() through
 * the log, so library messages get the same format.
 */
int xlog_setup(const char *level, const char *format, char *why, size_t why_len);
/* Would a line of this level be written? */
int xlog_enabled(enum log_level lv);
void xlog(enum log_level lv, const char *fmt, ...) GS_PRINTF(2, 3);

/* At most `burst` lines per `window_s` seconds; the rest are counted. */
struct xlog_limit {
	pthread_mutex_t lock;
	unsigned burst;
	double window_s;
	double start_s;             /* CLOCK_MONOTONIC start of the current window */
	unsigned n;                 /* lines in this window */
	unsigned long long dropped; /* since the last line written */
};
#define XLOG_LIMIT_INIT(burst, window_s) \
	{ \
		PTHREAD_MUTEX_INITIALIZER, (burst), (window_s), 0, 0, 0 \
	}
void xlog_limited(struct xlog_limit *l, enum log_level lv, const char *fmt, ...) GS_PRINTF(3, 4);

/* Formats one line into buf (for tests); returns its length. */
size_t xlog_format(char *buf, size_t len, double wall_s, enum log_level lv, const char *msg);

#endif
