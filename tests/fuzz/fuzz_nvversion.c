/*
 * Fuzzes the parsers of small /proc and /etc texts: the driver's version
 * file, /proc/modules, modprobe.d files and the kernel command line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct host_driver d;
	struct host_modules m;
	struct host_blacklist b;
	memcpy(text, data, size);
	text[size] = '\0';
	if (host_parse_driver_version(text, &d) == 0 && (!d.version[0] || strlen(d.version) >= sizeof(d.version)))
		abort();
	host_parse_modules(text, &m);
	memset(&b, 0, sizeof(b));
	host_parse_modprobe(text, &b);
	host_parse_cmdline(text, &b);
	free(text);
	return 0;
}
