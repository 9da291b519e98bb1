/*
 * The one way numbers come in: flags, config.json, case files and catalog
 * rows all go through num_parse() or num_check() with the range of the
 * quantity they hold, so every input refuses the same things alike:
 *
 *   - text that is not a plain decimal number (hex, inf, nan, spaces);
 *   - values outside [min, max] (or (min, max] with NUM_ABOVE_MIN: zero is
 *     then refused, never taken as "unset");
 *   - subnormal values (1e-320): nothing gpuscope models is that small, and
 *     dividing by one gives infinity;
 *   - fractions where a whole number is needed (NUM_WHOLE).
 *
 * Products of parallel degrees and counts go through num_mul_int(), which
 * refuses a result that does not fit.
 */
#ifndef GPUSCOPE_UTIL_NUM_H
#define GPUSCOPE_UTIL_NUM_H

#include <stddef.h>

enum {
	NUM_ABOVE_MIN = 1, /* min itself is refused: "must be more than 0" */
	NUM_WHOLE = 2,     /* a whole number */
};

struct num_range {
	double min, max;
	unsigned flags; /* NUM_ABOVE_MIN, NUM_WHOLE */
};

/*
 * Checks v against r.  Returns 0, or -1 with a lower-case reason in why
 * ("must be more than 0, got 0", "must be at most 1e+06, got 1e+308").
 */
int num_check(double v, const struct num_range *r, char *why, size_t why_len);

/*
 * Parses text as a number with an optional unit converted to `unit` (see
 * unit_parse(); NULL or "" for a plain number) and checks it against r
 * (NULL: any finite number that is not subnormal).  Returns 0 and sets
 * *out, or -1 with a reason in why.
 */
int num_parse(const char *text, const char *unit, const struct num_range *r, double *out, char *why,
	      size_t why_len);

/*
 * *out = a x b when the product fits in [0, max]; -1 otherwise (a and b
 * must be >= 0).  For products of parallel degrees and GPU counts.
 */
int num_mul_int(long a, long b, long max, long *out);

#endif
