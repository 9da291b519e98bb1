/*
 * Fuzzes the parser of the PyTorch probe's output (what a Python on the
 * host printed) and the arch-list matcher fed from it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct host_torch t;
	char via[64];
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&t, 0, sizeof(t));
	if (host_parse_torch(text, &t) == 0) {
		compat_arch_runs(t.arch_list, 9, 0, via, sizeof(via));
		compat_cuda_parse(t.cuda);
		compat_torch_rows(t.version, &(const struct compat_torch *){NULL});
	}
	host_torch_release(&t);
	compat_arch_runs(text, 8, 6, via, sizeof(via));
	free(text);
	return 0;
}
