/*
 * Calibration files (bench_calibration_parse): whatever the bytes, the
 * parser either refuses them with a message and a line, or returns a
 * calibration for a catalog GPU whose figures are positive where given.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "bench/calib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct catalog *cat;
	struct model_calibration c;
	struct diag err;
	char *summary = NULL;
	int p;
	diag_clear(&err);
	if (!cat && catalog_load(&cat, NULL, &err))
		abort();
	if (bench_calibration_parse((const char *)data, size, "fuzz.json", cat, &c, &summary, &err)) {
		if (summary || !err.msg[0] || err.line < 1)
			abort();
		return 0;
	}
	if (!c.gpu || !summary)
		abort();
	for (p = 0; p <= MODEL_FP8; p++)
		if (!isnan(c.gemm_tflops[p]) && !(c.gemm_tflops[p] > 0 && c.gemm_shape[p][0] > 0))
			abort();
	if (!isnan(c.hbm_gbps) && !(c.hbm_gbps > 0))
		abort();
	free(summary);
	return 0;
}
