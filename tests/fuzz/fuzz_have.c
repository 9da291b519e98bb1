/*
 * Fuzzes the reader of owned servers (--have N x SERVER, and @FILE of such
 * lines): any input gives a list of known servers with counts of at least
 * one, or an error at a line and column inside the input, never a crash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "plan/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct catalog *cat;
	struct plan_have *v = NULL, one;
	struct diag err;
	size_t n = 0, i, lines = 1;
	char *buf;

	diag_clear(&err);
	if (!cat && catalog_load(&cat, NULL, &err))
		abort();
	buf = malloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (i = 0; i < size; i++)
		lines += buf[i] == '\n';
	if (plan_have_parse_file(cat, buf, size, "fuzz.txt", &v, &n, &err) == 0) {
		if (!n || !v)
			abort();
		for (i = 0; i < n; i++)
			if (!v[i].server || v[i].count < 1)
				abort();
	} else if (v || err.line < 0 || (size_t)err.line > lines || !err.msg[0]) {
		abort();
	}
	free(v);
	/* one value, as the flag gives it: the text up to the first NUL */
	diag_clear(&err);
	if (plan_have_parse(cat, buf, NULL, 0, &one, &err) == 0 && (!one.server || one.count < 1))
		abort();
	free(buf);
	return 0;
}
