/*
 * Fuzzes the catalog loader: the first byte picks the table, the rest is the
 * file.  Any input must give a row count or a located error, never a crash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct catalog *c;
	struct diag err;
	char *buf, msg[1024];
	if (size < 1)
		return 0;
	c = catalog_new();
	buf = malloc(size);
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	diag_clear(&err);
	if (catalog_load_buffer(c, data[0] % CAT_NTABLES, "fuzz.csv", buf, size - 1, &err) < 0)
		diag_format(&err, msg, sizeof(msg));
	else
		catalog_validate(c, &err);
	catalog_free(c);
	free(buf);
	return 0;
}
