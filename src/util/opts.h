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
	OPT_FLAG,     /* int *: set to 1 */
	OPT_STRING,   /* const char **: points into argv */
	OPT_INT,      /* long *: integer within [min, max] when max > min */
	OPT_DOUBLE,   /* double *: finite number within [min, max] when max > min */
	OPT_DURATION, /* double *: seconds, from "30d", "36h", "90s", "5ms"; within
			* [min, max] when max > min, else [0, OPT_DURATION_MAX_S] */
	OPT_QUANTITY, /* double *: a number with an optional unit, converted to `unit`;
			* within [min, max] when max > min, else >= 0 */
	OPT_ENUM,     /* int *: a name turned into its value by `from_name`; an unknown
			* name is a usage error listing `choices` */
	OPT_GROUP,    /* a heading in --help; name is the heading */
	OPT_LIST,     /* struct opt_list *: each use appends its value (pointing into
			* argv, or malloc()ed when joined); a value that is a count
			* and "x" alone ("4x") takes the next argument as its rest, so
			* "--have 4x dgx-a100" is one value "4x dgx-a100" */
};

/* The values of a repeatable option, in the order given. */
struct opt_list {
	const char **v;
	size_t n, cap;
};

struct opt {
	enum opt_type type;
	const char *name; /* long name without dashes */
	void *value;
	const char *argh; /* value placeholder in help: "N", "NAME" */
	const char *help;
	double min, max;                    /* range check when max > min */
	const char *unit;                   /* OPT_QUANTITY: canonical unit, e.g. "GB/s" */
	int *seen;                          /* optional: set to 1 when the option was given */
	unsigned num_flags;                 /* NUM_ABOVE_MIN, NUM_WHOLE (util/num.h) for the range check */
	int (*from_name)(const char *name); /* OPT_ENUM: the value, or < 0 when unknown */
	const char *choices;                /* OPT_ENUM: the names, for --help and errors: "fp32, fp16, bf16" */
};

/* Longest duration a flag takes unless its range says otherwise: 1,000 years. */
#define OPT_DURATION_MAX_S 3.15576e10

/*
 * Table entries.  Each names its fields, and the value pointer's type is
 * checked against the option's type at compile time (_Generic has no
 * default branch, so a long * given to a double option does not build).
 */
#define OPT_PTR_(T, v) _Generic((v), T : (v))
#define OPT_GROUP_(h) \
	{ \
		.type = OPT_GROUP, .name = h \
	}
#define OPT_FLAG_(n, v, h) \
	{ \
		.type = OPT_FLAG, .name = n, .value = OPT_PTR_(int *, v), .help = h \
	}
#define OPT_STRING_(n, v, a, h) \
	{ \
		.type = OPT_STRING, .name = n, .value = OPT_PTR_(const char **, v), .argh = a, .help = h \
	}
#define OPT_INT_(n, v, a, h, lo, hi) \
	{ \
		.type = OPT_INT, .name = n, .value = OPT_PTR_(long *, v), .argh = a, .help = h, .min = lo, \
		.max = hi \
	}
#define OPT_DOUBLE_(n, v, a, h, lo, hi) \
	{ \
		.type = OPT_DOUBLE, .name = n, .value = OPT_PTR_(double *, v), .argh = a, .help = h, .min = lo, \
		.max = hi \
	}
#define OPT_DURATION_(n, v, a, h) \
	{ \
		.type = OPT_DURATION, .name = n, .value = OPT_PTR_(double *, v), .argh = a, .help = h \
	}
#define OPT_DURATION_RANGE_(n, v, a, h, lo, hi) \
	{ \
		.type = OPT_DURATION, .name = n, .value = OPT_PTR_(double *, v), .argh = a, .help = h, .min = lo, \
		.max = hi \
	}
#define OPT_QUANTITY_(n, v, a, h, u) \
	{ \
		.type = OPT_QUANTITY, .name = n, .value = OPT_PTR_(double *, v), .argh = a, .help = h, .unit = u \
	}
/* A name from a fixed set, e.g. OPT_ENUM_("precision", &prec, "P", "...", model_precision_from_name,
 * "fp32, tf32, fp16, bf16, fp8"); *v keeps its value when the option is not given. */
#define OPT_ENUM_(n, v, a, h, parse, names) \
	{ \
		.type = OPT_ENUM, .name = n, .value = OPT_PTR_(int *, v), .argh = a, .help = h, \
		.from_name = parse, .choices = names \
	}
#define OPT_LIST_(n, v, a, h) \
	{ \
		.type = OPT_LIST, .name = n, .value = OPT_PTR_(struct opt_list *, v), .argh = a, .help = h \
	}
#define OPT_END_() \
	{ \
		.type = OPT_END \
	}
/* Numbers that must be more than lo: zero is refused, never read as "unset". */
#define OPT_POSITIVE_(n, v, a, h, lo, hi) \
	{ \
		.type = OPT_DOUBLE, .name = n, .value = OPT_PTR_(double *, v), .argh = a, .help = h, .min = lo, \
		.max = hi, .num_flags = NUM_ABOVE_MIN \
	}
#define OPT_DURATION_POSITIVE_(n, v, a, h, hi) \
	{ \
		.type = OPT_DURATION, .name = n, .value = OPT_PTR_(double *, v), .argh = a, .help = h, .max = hi, \
		.num_flags = NUM_ABOVE_MIN \
	}
#define OPT_QUANTITY_POSITIVE_(n, v, a, h, u, hi) \
	{ \
		.type = OPT_QUANTITY, .name = n, .value = OPT_PTR_(double *, v), .argh = a, .help = h, .max = hi, \
		.unit = u, .num_flags = NUM_ABOVE_MIN \
	}

struct opts_cmd {
	const char *name;        /* "plan", or "catalog gpus" */
	const char *usage;       /* "[options] [WORKLOAD]" */
	const char *summary;     /* one line */
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
int opts_error(const struct opts_cmd *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
