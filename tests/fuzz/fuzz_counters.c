/*
 * Fuzzes the counters-file parser: any bytes give a selection or a located
 * error, never a crash, and a selection finds every name it holds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export/counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct counters *c = NULL;
	struct diag err;
	char msg[1024];
	diag_clear(&err);
	if (counters_parse((const char *)data, size, "fuzz.csv", &c, &err) < 0) {
		if (c || err.line < 1 || !err.msg[0])
			abort();
		diag_format(&err, msg, sizeof(msg));
		return 0;
	}
	if (!c || !counters_count(c))
		abort();
	{
		const char *name;
		int line;
		size_t i, n = counters_skipped(c, 0, &name, &line);
		for (i = 0; i < n; i++) {
			counters_skipped(c, i, &name, &line);
			if (counters_find(c, name, NULL, NULL))
				abort();
		}
	}
	counters_free(c);
	return 0;
}
