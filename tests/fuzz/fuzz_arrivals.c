/*
 * Arrival traces (servesim_trace_parse): whatever the bytes, the parser
 * either refuses them with a position or returns rows whose arrivals do
 * not decrease and whose token counts are whole and positive.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "model/servesim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct servesim_trace *t = NULL;
	struct diag err;
	size_t i;
	diag_clear(&err);
	if (servesim_trace_parse("fuzz.csv", (const char *)data, size, &t, &err)) {
		if (t || !err.msg[0])
			abort();
		return 0;
	}
	if (!t || !t->n)
		abort();
	for (i = 0; i < t->n; i++)
		if (t->req[i].prompt < 1 || t->req[i].output < 1 ||
		    (i && t->req[i].arrival_s < t->req[i - 1].arrival_s))
			abort();
	servesim_trace_free(t);
	return 0;
}
