/*
 * Quantities with units, as users write them in data files and flags:
 * "3.35 TB/s", "80 GiB", "700 W", "30d", "1.5e12".
 */
#ifndef GPUSCOPE_UTIL_UNITS_H
#define GPUSCOPE_UTIL_UNITS_H

enum unit_dim {
	DIM_NONE = 0,  /* a plain number: counts, ratios, years */
	DIM_BYTES,     /* base: byte */
	DIM_BANDWIDTH, /* base: byte/s */
	DIM_COMPUTE,   /* base: op/s (FLOP/s or integer op/s) */
	DIM_POWER,     /* base: watt */
	DIM_TIME,      /* base: second */
	DIM_MONEY,     /* base: USD */
	DIM_ENERGY,    /* base: joule */
};

/*
 * Looks a unit name up ("GiB", "GB/s", "Gb/s", "TFLOPS", "kW", "ms", "USD").
 * Returns 0 and sets *dim and *factor (multiply by factor to get the base
 * unit), or -1 when unknown.
 */
int unit_lookup(const char *name, enum unit_dim *dim, double *factor);

/*
 * Parses "NUMBER" or "NUMBER UNIT" (one optional space) into the unit named
 * by `canonical` (which must be a known unit, or NULL/"" for a plain number).
 * Returns 0 on success; on failure -1 with a lower-case reason in why
 * (e.g. "unknown unit 'GHz/s'", "'TB' is not a bandwidth").
 */
int unit_parse(const char *text, const char *canonical, double *out, char *why, unsigned why_len);

/* Parses a duration: "90s", "5m", "36h", "30d", "2w", "1y", "250ms", or seconds. */
int unit_parse_duration(const char *text, double *seconds, char *why, unsigned why_len);

/* Printing values for people: report/fmt.h. */

#endif
