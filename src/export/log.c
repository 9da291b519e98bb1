/*
 * The exporter's log (see log.h).
 */
#include "export/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static enum log_level min_level = LOG_INFO;
static enum log_format format = LOG_LOGFMT;
static const char *const level_names[] = {"debug", "info", "warn", "error"};

static double now_s(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Appends msg quoted for logfmt or JSON; returns the new length (capped at len - 1). */
static size_t put_quoted(char *buf, size_t n, size_t len, const char *msg)
{
	const unsigned char *p = (const unsigned char *)msg;
	if (n + 1 < len)
		buf[n++] = '"';
	for (; *p && n + 7 < len; p++) {
		if (*p == '"' || *p == '\\') {
			buf[n++] = '\\';
			buf[n++] = (char)*p;
		} else if (*p == '\n') {
			buf[n++] = '\\';
			buf[n++] = 'n';
		} else if (*p < 0x20) {
			n += (size_t)snprintf(buf + n, len - n, "\\u%04x", *p);
		} else {
			buf[n++] = (char)*p;
		}
	}
	if (n + 1 < len)
		buf[n++] = '"';
	buf[n] = '\0';
	return n;
}

size_t xlog_format(char *buf, size_t len, double wall_s, enum log_level lv, const char *msg)
{
	struct tm tm;
	time_t t = (time_t)wall_s;
	char ts[80];
	size_t n;
	int ms = (int)((wall_s - (double)t) * 1000);
	if (ms > 999)
		ms = 999;
	gmtime_r(&t, &tm);
	snprintf(ts, sizeof(ts), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
	if (format == LOG_JSON) {
		n = (size_t)snprintf(buf, len, "{\"time\":\"%s\",\"level\":\"%s\",\"msg\":", ts, level_names[lv]);
		if (n >= len)
			n = len - 1;
		n = put_quoted(buf, n, len - 2, msg);
		buf[n++] = '}';
	} else {
		n = (size_t)snprintf(buf, len, "time=%s level=%s msg=", ts, level_names[lv]);
		if (n >= len)
			n = len - 1;
		n = put_quoted(buf, n, len - 2, msg);
	}
	buf[n++] = '\n';
	buf[n] = '\0';
	return n;
}

static void emit(enum log_level lv, const char *msg)
{
	char line[2048];
	size_t n = xlog_format(line, sizeof(line), now_s(CLOCK_REALTIME), lv, msg), off = 0;
	/* one write: a line from another thread cannot land in the middle of this one */
	while (off < n) {
		ssize_t w = write(STDERR_FILENO, line + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
}

int xlog_enabled(enum log_level lv)
{
	return lv >= min_level;
}

static void vlog(enum log_level lv, const char *fmt, va_list ap)
{
	char msg[1536];
	if (!xlog_enabled(lv))
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	emit(lv, msg);
}

void xlog(enum log_level lv, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(lv, fmt, ap);
	va_end(ap);
}

void xlog_limited(struct xlog_limit *l, enum log_level lv, const char *fmt, ...)
{
	va_list ap;
	double now = now_s(CLOCK_MONOTONIC);
	unsigned long long dropped = 0;
	int pass;
	if (!xlog_enabled(lv))
		return;
	pthread_mutex_lock(&l->lock);
	if (now - l->start_s >= l->window_s) {
		l->start_s = now;
		l->n = 0;
	}
	pass = l->n < l->burst;
	if (pass) {
		l->n++;
		dropped = l->dropped;
		l->dropped = 0;
	} else {
		l->dropped++;
	}
	pthread_mutex_unlock(&l->lock);
	if (!pass)
		return;
	if (dropped)
		xlog(lv, "(%llu similar messages suppressed)", dropped);
	va_start(ap, fmt);
	vlog(lv, fmt, ap);
	va_end(ap);
}

/* warning(), error() and die() of the rest of gpuscope, in the log's format. */
static void from_error(const char *kind, const char *msg)
{
	enum log_level lv = !strcmp(kind, "warning") ? LOG_WARN : LOG_ERROR;
	if (xlog_enabled(lv))
		emit(lv, msg);
}

int xlog_setup(const char *level, const char *fmt, char *why, size_t why_len)
{
	unsigned i;
	int found = -1;
	for (i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (level && !strcasecmp(level, level_names[i]))
			found = (int)i;
	if (level && !strcasecmp(level, "warning"))
		found = LOG_WARN;
	if (found < 0) {
		snprintf(why, why_len, "option '--log-level' must be debug, info, warn or error, got '%s'",
			 level ? level : "");
		return -1;
	}
	if (fmt && !strcmp(fmt, "logfmt"))
		format = LOG_LOGFMT;
	else if (fmt && !strcmp(fmt, "json"))
		format = LOG_JSON;
	else {
		snprintf(why, why_len, "option '--log-format' must be logfmt or json, got '%s'", fmt ? fmt : "");
		return -1;
	}
	min_level = (enum log_level)found;
	error_set_handler(from_error);
	return 0;
}
