/*
 * Fuzzes the kernel log's Xid parser: every line of the input (kmsg,
 * dmesg or journal form) must parse or be refused, never crash or read
 * past the line.  The line is copied to an exact-size buffer so ASan sees
 * any overread.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t start = 0, i;
	for (i = 0; i <= size; i++) {
		if (i == size || data[i] == '\n') {
			size_t n = i - start;
			char *line = malloc(n ? n : 1);
			struct host_xid x;
			memcpy(line, data + start, n);
			if (host_parse_xid(line, n, &x) == 1) {
				/* what came out is NUL-terminated and printable */
				if (strlen(x.pci) >= sizeof(x.pci) || !x.detail || strlen(x.detail) > n)
					abort();
				xid_lookup(x.code);
				host_xid_release(&x);
			}
			free(line);
			start = i + 1;
		}
	}
	return 0;
}
