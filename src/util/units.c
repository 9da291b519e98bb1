#include "util/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct unit {
	const char *name;
	enum unit_dim dim;
	double factor;
};

/* Case matters where it changes meaning: Gb/s (bits) is not GB/s (bytes). */
static const struct unit units[] = {
	{"B", DIM_BYTES, 1},
	{"KB", DIM_BYTES, 1e3},
	{"MB", DIM_BYTES, 1e6},
	{"GB", DIM_BYTES, 1e9},
	{"TB", DIM_BYTES, 1e12},
	{"PB", DIM_BYTES, 1e15},
	{"KiB", DIM_BYTES, 1024.0},
	{"MiB", DIM_BYTES, 1048576.0},
	{"GiB", DIM_BYTES, 1073741824.0},
	{"TiB", DIM_BYTES, 1099511627776.0},
	{"B/s", DIM_BANDWIDTH, 1},
	{"MB/s", DIM_BANDWIDTH, 1e6},
	{"GB/s", DIM_BANDWIDTH, 1e9},
	{"TB/s", DIM_BANDWIDTH, 1e12},
	{"Mb/s", DIM_BANDWIDTH, 1e6 / 8},
	{"Gb/s", DIM_BANDWIDTH, 1e9 / 8},
	{"Tb/s", DIM_BANDWIDTH, 1e12 / 8},
	{"Gbps", DIM_BANDWIDTH, 1e9 / 8},
	{"GBps", DIM_BANDWIDTH, 1e9},
	{"FLOPS", DIM_COMPUTE, 1},
	{"GFLOPS", DIM_COMPUTE, 1e9},
	{"TFLOPS", DIM_COMPUTE, 1e12},
	{"PFLOPS", DIM_COMPUTE, 1e15},
	{"TFLOP/s", DIM_COMPUTE, 1e12},
	{"PFLOP/s", DIM_COMPUTE, 1e15},
	{"TOPS", DIM_COMPUTE, 1e12},
	{"POPS", DIM_COMPUTE, 1e15},
	{"W", DIM_POWER, 1},
	{"kW", DIM_POWER, 1e3},
	{"MW", DIM_POWER, 1e6},
	{"mW", DIM_POWER, 1e-3},
	{"ns", DIM_TIME, 1e-9},
	{"us", DIM_TIME, 1e-6},
	{"\xc2\xb5s", DIM_TIME, 1e-6},
	{"ms", DIM_TIME, 1e-3},
	{"s", DIM_TIME, 1},
	{"min", DIM_TIME, 60},
	{"h", DIM_TIME, 3600},
	{"d", DIM_TIME, 86400},
	{"USD", DIM_MONEY, 1},
	{"$", DIM_MONEY, 1},
	{"J", DIM_ENERGY, 1},
	{"kWh", DIM_ENERGY, 3.6e6},
	{"MWh", DIM_ENERGY, 3.6e9},
};

static const char *dim_name(enum unit_dim d)
{
	switch (d) {
	case DIM_BYTES:
		return "a size";
	case DIM_BANDWIDTH:
		return "a bandwidth";
	case DIM_COMPUTE:
		return "a compute rate";
	case DIM_POWER:
		return "a power";
	case DIM_TIME:
		return "a time";
	case DIM_MONEY:
		return "an amount of money";
	case DIM_ENERGY:
		return "an energy";
	default:
		return "a plain number";
	}
}

int unit_lookup(const char *name, enum unit_dim *dim, double *factor)
{
	size_t i;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(units[i].name, name)) {
			*dim = units[i].dim;
			*factor = units[i].factor;
			return 0;
		}
	return -1;
}

/* strtod that refuses hex, inf, nan and leading spaces. */
static int parse_number(const char *s, double *v, const char **end)
{
	char *e;
	const char *p = s;
	if (*p == '+' || *p == '-')
		p++;
	if (!((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')))
		return -1;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return -1;
	*v = strtod(s, &e);
	if (e == s || !isfinite(*v))
		return -1;
	*end = e;
	return 0;
}

int unit_parse(const char *text, const char *canonical, double *out, char *why, unsigned why_len)
{
	const char *end;
	double v, cf = 1, f = 1;
	enum unit_dim cdim = DIM_NONE, dim;

	if (canonical && *canonical && unit_lookup(canonical, &cdim, &cf))
		cdim = DIM_NONE, cf = 1; /* a descriptive unit ("ratio"): plain number */
	if (parse_number(text, &v, &end)) {
		snprintf(why, why_len, "'%s' is not a number", text);
		return -1;
	}
	if (*end == ' ')
		end++;
	if (!*end) {
		*out = v; /* a bare number is in the canonical unit */
		return 0;
	}
	{
		if (unit_lookup(end, &dim, &f)) {
			snprintf(why, why_len, "unknown unit '%s'", end);
			return -1;
		}
		if (dim != cdim) {
			snprintf(why, why_len, "'%s' is not %s%s%s%s", end, dim_name(cdim),
				 cdim ? " (expected like '" : "", cdim ? canonical : "", cdim ? "')" : "");
			return -1;
		}
	}
	*out = v * f / cf;
	return 0;
}

int unit_parse_duration(const char *text, double *seconds, char *why, unsigned why_len)
{
	const char *end;
	double v, f = 1;
	if (parse_number(text, &v, &end)) {
		snprintf(why, why_len, "'%s' is not a duration (like 90s, 5m, 36h, 30d)", text);
		return -1;
	}
	if (*end == ' ')
		end++;
	if (!*end || !strcmp(end, "s") || !strcasecmp(end, "sec"))
		f = 1;
	else if (!strcmp(end, "ms"))
		f = 1e-3;
	else if (!strcmp(end, "us"))
		f = 1e-6;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		f = 60;
	else if (!strcmp(end, "h"))
		f = 3600;
	else if (!strcmp(end, "d"))
		f = 86400;
	else if (!strcmp(end, "w"))
		f = 7 * 86400;
	else if (!strcmp(end, "y"))
		f = 365.25 * 86400;
	else {
		snprintf(why, why_len, "unknown duration unit '%s' (use ms, s, m, h, d, w, y)", end);
		return -1;
	}
	if (v < 0) {
		snprintf(why, why_len, "duration '%s' is negative", text);
		return -1;
	}
	if (!isfinite(v * f)) {
		snprintf(why, why_len, "duration '%s' is too long", text);
		return -1;
	}
	*seconds = v * f;
	return 0;
}
