/*
 * Files under data/, embedded at build time by cmake/embed.cmake.
 * The bytes are static and live for the whole program.
 */
#ifndef GPUSCOPE_CATALOG_EMBEDDED_H
#define GPUSCOPE_CATALOG_EMBEDDED_H

#include <stddef.h>

struct embedded_file {
	const char *name; /* path relative to data/, e.g. "gpus.csv", "compat/cuda.csv" */
	const char *data; /* NUL-terminated */
	size_t len;       /* bytes, without the NUL */
};

/* Terminated by an entry whose name is NULL. */
extern const struct embedded_file embedded_files[];

/* Returns the embedded file of that name, or NULL. */
const struct embedded_file *embedded_find(const char *name);

#endif
