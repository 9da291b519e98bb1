/*
 * The numeric parser every flag, catalog cell and case-file value goes
 * through: whatever the bytes, num_parse() either refuses them or returns a
 * finite, non-subnormal number inside the range asked for.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/num.h"
#include "util/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const units[] = {NULL, "GiB", "GB/s", "TFLOPS", "W", "kW", "USD", "us", "s"};
	static const struct num_range ranges[] = {
		{0, 100, NUM_ABOVE_MIN},
		{1, 1e6, NUM_WHOLE},
		{0, 1e10, 0},
		{-1e9, 1e9, 0},
	};
	char text[256], why[200];
	size_t i, k;
	double v, d;
	if (size < 1)
		return 0;
	/* the first byte picks the unit and the range; the rest is the text */
	k = data[0];
	size--;
	if (size >= sizeof(text))
		size = sizeof(text) - 1;
	memcpy(text, data + 1, size);
	text[size] = '\0';
	for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		const struct num_range *r = &ranges[(k + i) % (sizeof(ranges) / sizeof(ranges[0]))];
		const char *u = units[k % (sizeof(units) / sizeof(units[0]))];
		if (num_parse(text, u, r, &v, why, sizeof(why)))
			continue;
		if (!isfinite(v) || fpclassify(v) == FP_SUBNORMAL || v > r->max || v < r->min ||
		    ((r->flags & NUM_ABOVE_MIN) && v == r->min) || ((r->flags & NUM_WHOLE) && v != floor(v)))
			abort();
	}
	/* durations too: finite and never negative */
	if (!unit_parse_duration(text, &d, why, sizeof(why)) && (!isfinite(d) || d < 0))
		abort();
	return 0;
}
