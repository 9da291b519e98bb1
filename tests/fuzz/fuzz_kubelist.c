/*
 * Fuzzes the decoder of the kubelet's pod-resources answer: any bytes give
 * a list or -1, never a crash, and every listed device is an NVIDIA one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export/kube.h"
#include "export/procinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kube_device *d = NULL;
	size_t n = 0, i;
	if (kube_parse_list(data, size, &d, &n) == 0) {
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
