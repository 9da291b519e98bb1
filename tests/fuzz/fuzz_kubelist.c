/*
 * Fuzzes the decoder of the kubelet's pod-resources answer: any bytes give
 * a list or -1, never a crash, every listed device is an NVIDIA one, and
 * no more are listed than the bound (the rest counted).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export/kube.h"
#include "export/procinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kube_device *d = NULL;
	size_t n = 0, dropped = 0, i;
	/* a small bound, so inputs reach it */
	if (kube_parse_list(data, size, 16, &d, &n, &dropped) == 0) {
		if (n > 16 || (dropped && n != 16))
			abort();
		for (i = 0; i < n; i++)
			if (strncmp(d[i].resource, "nvidia.com/", 11))
				abort();
	} else if (d || n) {
		abort();
	}
	free(d);
	/* the same bytes as a cgroup file */
	{
		char *text = malloc(size + 1);
		struct proc_container c;
		memcpy(text, data, size);
		text[size] = '\0';
		if (proc_parse_cgroup(text, &c) == 1 && strlen(c.id) != 64)
			abort();
		free(text);
	}
	return 0;
}
