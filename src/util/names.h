/*
 * Names of an enumeration, kept as an array in the enumeration's order: the
 * one lookup from a name to its value that options, catalog tables and
 * runbooks share.
 */
#ifndef GPUSCOPE_UTIL_NAMES_H
#define GPUSCOPE_UTIL_NAMES_H

#include <stddef.h>

/* The index of `name` in names[0..n) (exact, case-sensitive); -1 when absent or NULL. */
int names_index(const char *const *names, size_t n, const char *name);

#endif
