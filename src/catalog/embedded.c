#include "catalog/embedded.h"

#include <string.h>

const struct embedded_file *embedded_find(const char *name)
{
	const struct embedded_file *f;
	for (f = embedded_files; f->name; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}
