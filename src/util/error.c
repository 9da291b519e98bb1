#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *progname = "gpuscope";
static void (*handler)(const char *kind, const char *msg);

void error_set_handler(void (*fn)(const char *kind, const char *msg))
{
	handler = fn;
}

void error_set_progname(const char *name)
{
	progname = name;
}

/* Formats the whole line first and writes it at once: threads' messages never interleave. */
static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char msg[2048];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	fflush(stdout);
	if (handler) {
		char kind[16];
		snprintf(kind, sizeof(kind), "%.*s", (int)strcspn(prefix, ":"), prefix);
		handler(kind, msg);
		return;
	}
	flockfile(stderr);
	fprintf(stderr, "%s: %s%s\n", progname, prefix, msg);
	fflush(stderr);
	funlockfile(stderr);
}

/* The body every reporter shares: the message of its own fmt and arguments, after prefix. */
#define REPORT_ARGS(prefix) \
	do { \
		va_list ap; \
		va_start(ap, fmt); \
		vreport(prefix, fmt, ap); \
		va_end(ap); \
	} while (0)

int error(const char *fmt, ...)
{
	REPORT_ARGS("error: ");
	return -1;
}

void warning(const char *fmt, ...)
{
	REPORT_ARGS("warning: ");
}

void die(const char *fmt, ...)
{
	REPORT_ARGS("fatal: ");
	exit(EXIT_ENV);
}

void die_code(int code, const char *fmt, ...)
{
	REPORT_ARGS("fatal: ");
	exit(code);
}

void die_usage(const char *fmt, ...)
{
	REPORT_ARGS("usage error: ");
	exit(EXIT_USAGE);
}

void bug_fl(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: BUG: %s:%d: ", progname, file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void diag_clear(struct diag *d)
{
	if (d)
		memset(d, 0, sizeof(*d));
}

int diag_set(struct diag *d, const char *file, int line, int col, const char *field, const char *fmt, ...)
{
	va_list ap;
	if (!d)
		return -1;
	snprintf(d->file, sizeof(d->file), "%s", file ? file : "");
	d->line = line;
	d->col = col;
	snprintf(d->field, sizeof(d->field), "%s", field ? field : "");
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void diag_format(const struct diag *d, char *buf, size_t len)
{
	char where[320] = "";
	if (d->file[0] && d->line > 0 && d->col > 0)
		snprintf(where, sizeof(where), "%s:%d:%d: ", d->file, d->line, d->col);
	else if (d->file[0] && d->line > 0)
		snprintf(where, sizeof(where), "%s:%d: ", d->file, d->line);
	else if (d->file[0])
		snprintf(where, sizeof(where), "%s: ", d->file);
	if (d->field[0])
		snprintf(buf, len, "%sfield '%s': %s", where, d->field, d->msg);
	else
		snprintf(buf, len, "%s%s", where, d->msg);
}
