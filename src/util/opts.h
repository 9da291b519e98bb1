/*
 * Command-line options, one table per command (git's parse-options habit).
 *
 * Every option is long ("--gpus 8" or "--gpus=8"); values are validated here
 * (type, range, duration syntax) so a command sees only good values.  Unknown
 * options get a suggestion for a close spelling.  "-h" and "--help" print the
 * command's help, built from the same table.
 */
#ifndef GPUSCOPE_UTIL_OPTS_H
#define GPUSCOPE_UTIL_OPTS_H

#include <stdio.h>

#include "util/num.h"

enum opt_type {
	OPT_END = 0,
	OPT_FLAG,      /* int *: set to 1 */
	OPT_STRING,    /* const char **: points into argv */
	OPT_INT,       /* long *: integer within [min, max] when max > min */
	OPT_DOUBLE,    /* double *: finite number within [min, max] when max > min */
	OPT_DURATION,  /* double *: seconds, from "30d", "36h", "90s", "5ms"; within
			* [min, max] when max > min, else [0, OPT_DURATION_MAX_S] */
	OPT_QUANTITY,  /* double *: a number with an optional unit, converted to `unit`;
			* within [min, max] when max > min, else >= 0 */
	OPT_GROUP,     /* a heading in --help; name is the heading */
};

struct opt {
	enum opt_type type;
	const char *name;     /* long name without dashes */
	void *value;
	const char *argh;     /* value placeholder in help: "N", "NAME" */
	const char *help;
	double min, max;      /* range check when max > min */
	const char *unit;     /* OPT_QUANTITY: canonical unit, e.g. "GB/s" */
	int *seen;            /* optional: set to 1 when the option was given */
	unsigned num_flags;   /* NUM_ABOVE_MIN, NUM_WHOLE (util/num.h) for the range check */
};

/* Longest duration a flag takes unless its range says otherwise: 1,000 years. */
#define OPT_DURATION_MAX_S 3.15576e10

#define OPT_GROUP_(h) {OPT_GROUP, h, NULL, NULL, NULL, 0, 0, NULL, NULL, 0}
#define OPT_FLAG_(n, v, h) {OPT_FLAG, n, v, NULL, h, 0, 0, NULL, NULL, 0}
#define OPT_STRING_(n, v, a, h) {OPT_STRING, n, v, a, h, 0, 0, NULL, NULL, 0}
#define OPT_INT_(n, v, a, h, lo, hi) {OPT_INT, n, v, a, h, lo, hi, NULL, NULL, 0}
#define OPT_DOUBLE_(n, v, a, h, lo, hi) {OPT_DOUBLE, n, v, a, h, lo, hi, NULL, NULL, 0}
#define OPT_DURATION_(n, v, a, h) {OPT_DURATION, n, v, a, h, 0, 0, NULL, NULL, 0}
#define OPT_QUANTITY_(n, v, a, h, u) {OPT_QUANTITY, n, v, a, h, 0, 0, u, NULL, 0}
#define OPT_END_() {OPT_END, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0}
/* Numbers that must be more than lo: zero is refused, never read as "unset". */
#define OPT_POSITIVE_(n, v, a, h, lo, hi) {OPT_DOUBLE, n, v, a, h, lo, hi, NULL, NULL, NUM_ABOVE_MIN}
#define OPT_DURATION_POSITIVE_(n, v, a, h, hi) \
	{OPT_DURATION, n, v, a, h, 0, hi, NULL, NULL, NUM_ABOVE_MIN}
#define OPT_QUANTITY_POSITIVE_(n, v, a, h, u, hi) \
	{OPT_QUANTITY, n, v, a, h, 0, hi, u, NULL, NUM_ABOVE_MIN}

struct opts_cmd {
	const char *name;      /* "plan", or "catalog gpus" */
	const char *usage;     /* "[options] [WORKLOAD]" */
	const char *summary;   /* one line */
	const char *description; /* paragraphs printed after usage; may be NULL */
	const struct opt *opts;
};

/*
 * Parses argv[1..argc) (argv[0] is the command name).  Positional arguments
 * are moved to argv[0..*npos).  Returns 0 on success, 1 when help was printed
 * to stdout, -1 on a usage error (already printed to stderr).
 */
int opts_parse(const struct opts_cmd *cmd, int argc, char **argv, int *npos);
/* Prints the command's help, generated from its table. */
void opts_usage(const struct opts_cmd *cmd, FILE *out);
/* Prints "usage error: gpuscope CMD: MSG" and "see 'gpuscope CMD --help'"; returns -1. */
int opts_error(const struct opts_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
