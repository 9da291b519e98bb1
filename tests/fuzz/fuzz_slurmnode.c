/*
 * Fuzzes the reader of `scontrol -o show node` output (State= and the
 * Reason= with its "[user@time]" stamp), which the Slurm health-check mode
 * acts on.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct check_slurm_node n;
	memcpy(text, data, size);
	text[size] = '\0';
	if (check_slurm_parse_node(text, &n) == 0 && n.reason && strlen(n.reason) > size)
		abort();
	check_slurm_node_release(&n);
	free(text);
	return 0;
}
