#include "util/names.h"

#include <string.h>

int names_index(const char *const *names, size_t n, const char *name)
{
	size_t i;
	for (i = 0; name && i < n; i++)
		if (!strcmp(name, names[i]))
			return (int)i;
	return -1;
}
