/*
 * Calibration files (bench_calibration_read): whatever the bytes, the
 * parser either refuses them with a message and a line, or returns a
 * calibration for a catalog GPU whose figures are positive where given,
 * leaving its output untouched when it refuses.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/calib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct catalog *cat;
	struct bench_calibration c, before;
	struct diag err;
	char *summary;
	int p;
	diag_clear(&err);
	if (!cat && catalog_load(&cat, NULL, &err))
		abort();
	memset(&before, 0x5a, sizeof(before));
	c = before;
	if (bench_calibration_read((const char *)data, size, "fuzz.json", cat, &c, &err)) {
		if (!err.msg[0] || err.line < 1 || memcmp(&c, &before, sizeof(c)))
			abort();
		return 0;
	}
	if (!c.model.gpu || strcmp(c.file, "fuzz.json"))
		abort();
	for (p = 0; p <= MODEL_FP8; p++)
		if (!isnan(c.model.gemm_tflops[p]) &&
		    !(c.model.gemm_tflops[p] > 0 && c.model.gemm_shape[p][0] > 0))
			abort();
#define CHECK_CEILING(name, unit, help) \
	if (!isnan(c.name) && !(c.name > 0 && isfinite(c.name))) \
		abort();
	BENCH_CAL_CEILINGS(CHECK_CEILING)
	if (!isnan(c.model.hbm_gbps) && !(c.model.hbm_gbps > 0))
		abort();
	summary = bench_calibration_summary(&c);
	free(summary);
	bench_calibration_release(&c);
	return 0;
}
