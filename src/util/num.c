#include "util/num.h"

#include <math.h>
#include <stdio.h>

#include "util/units.h"

int num_check(double v, const struct num_range *r, char *why, size_t why_len)
{
	if (!isfinite(v)) {
		snprintf(why, why_len, "must be a finite number");
		return -1;
	}
	if (fpclassify(v) == FP_SUBNORMAL) {
		snprintf(why, why_len, "must not be as tiny as %g (a subnormal number)", v);
		return -1;
	}
	if (!r)
		return 0;
	if ((r->flags & NUM_WHOLE) && v != floor(v)) {
		snprintf(why, why_len, "must be a whole number, got %g", v);
		return -1;
	}
	if ((r->flags & NUM_ABOVE_MIN) ? !(v > r->min) : !(v >= r->min)) {
		snprintf(why, why_len, "must be %s %g, got %g",
			 r->flags & NUM_ABOVE_MIN ? "more than" : "at least", r->min, v);
		return -1;
	}
	if (v > r->max) {
		snprintf(why, why_len, "must be at most %g, got %g", r->max, v);
		return -1;
	}
	return 0;
}

int num_parse(const char *text, const char *unit, const struct num_range *r, double *out, char *why,
	      size_t why_len)
{
	double v;
	if (unit_parse(text, unit, &v, why, (unsigned)why_len))
		return -1;
	/* a finite number with a large unit can overflow: 1e308 TB */
	if (num_check(v, r, why, why_len))
		return -1;
	*out = v;
	return 0;
}

int num_mul_int(long a, long b, long max, long *out)
{
	long p;
	if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &p) || p > max)
		return -1;
	*out = p;
	return 0;
}
