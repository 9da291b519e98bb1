/*
 * Allocation wrappers that abort on out-of-memory (redis's zmalloc habit), so
 * callers never check for NULL.  Everything they return is freed with free().
 */
#ifndef GPUSCOPE_UTIL_XALLOC_H
#define GPUSCOPE_UTIL_XALLOC_H

#include <stddef.h>
#include "util/error.h"

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
/* Grows *p (holding *cap elements of size elem) so index `need` fits. */
void xgrow(void **p, size_t *cap, size_t need, size_t elem);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Formatted string; caller frees. */
char *xasprintf(const char *fmt, ...) GS_PRINTF(1, 2);

#define XGROW(ptr, cap, need) xgrow((void **)&(ptr), &(cap), (need), sizeof(*(ptr)))

#endif
