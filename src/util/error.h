/*
 * Error reporting, in git's manner.
 *
 * Library code reports with error() and returns its -1; only the command layer
 * (src/cmd/, src/main.c) calls die(). BUG() marks a broken invariant.
 * Messages are lower case, without a full stop, and quote what they are about.
 *
 * Exit codes used throughout gpuscope:
 */
#ifndef GPUSCOPE_UTIL_ERROR_H
#define GPUSCOPE_UTIL_ERROR_H

#include <stdarg.h>
#include <stddef.h>

enum exit_code {
	EXIT_OK = 0,       /* success, all checks passed */
	EXIT_FINDINGS = 1, /* a check found problems */
	EXIT_USAGE = 2,    /* bad flags or bad input files */
	EXIT_ENV = 3,      /* environment: no GPU, no library, I/O failure */
};

#if defined(__GNUC__)
#define GS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define GS_NORETURN __attribute__((noreturn))
#else
#define GS_PRINTF(a, b)
#define GS_NORETURN
#endif

/* Prints "error: ..." to stderr; returns -1 so callers can `return error(...)`. */
int error(const char *fmt, ...) GS_PRINTF(1, 2);
/* Prints "warning: ..." to stderr. */
void warning(const char *fmt, ...) GS_PRINTF(1, 2);
/* Prints "fatal: ..." and exits with EXIT_ENV; command layer only. */
GS_NORETURN void die(const char *fmt, ...) GS_PRINTF(1, 2);
/* Prints "fatal: ..." and exits with the given code; command layer only. */
GS_NORETURN void die_code(int code, const char *fmt, ...) GS_PRINTF(2, 3);
/* Prints "usage error: ..." and exits with EXIT_USAGE; command layer only. */
GS_NORETURN void die_usage(const char *fmt, ...) GS_PRINTF(1, 2);
GS_NORETURN void bug_fl(const char *file, int line, const char *fmt, ...) GS_PRINTF(3, 4);
#define BUG(...) bug_fl(__FILE__, __LINE__, __VA_ARGS__)

/* Program name used as the prefix of messages ("gpuscope"). */
void error_set_progname(const char *name);
/*
 * Sends error(), warning() and die() messages to fn instead of stderr
 * (kind: "error", "warning", "fatal" or "usage error"); a daemon's log.
 */
void error_set_handler(void (*fn)(const char *kind, const char *msg));

/*
 * A located diagnostic, like jansson's json_error_t: library parsers fill one
 * instead of printing, so the caller decides how to report.  line and col are
 * 1-based; 0 means "not applicable".  field is the column or key concerned
 * ("" when none).
 */
struct diag {
	char file[256];
	int line;
	int col;
	char field[64];
	char msg[512];
};

void diag_clear(struct diag *d);
/* Fills d and returns -1. */
int diag_set(struct diag *d, const char *file, int line, int col, const char *field, const char *fmt, ...)
	GS_PRINTF(6, 7);
/* "FILE:LINE:COL: field 'F': MSG" into buf (always NUL-terminated). */
void diag_format(const struct diag *d, char *buf, size_t len);

#endif
