/*
 * Spelling suggestions: "unknown command 'plna'; did you mean 'plan'?".
 */
#ifndef GPUSCOPE_UTIL_SUGGEST_H
#define GPUSCOPE_UTIL_SUGGEST_H

#include <stddef.h>

/* Edit distance (insert, delete, substitute, adjacent swap), case-insensitive. */
int suggest_distance(const char *a, const char *b);

/*
 * Picks up to `max` candidates closest to `word` and writes their indexes to
 * out[], best first.  Candidates farther than a distance that depends on the
 * word's length are dropped unless `always` is set.  Returns how many.
 */
size_t suggest_closest(const char *word, const char *const *cands, size_t n, size_t *out, size_t max, int always);

/*
 * Formats "; did you mean 'x'?" or "; did you mean one of 'x', 'y'?" into buf,
 * or "" when nothing is close.  Returns buf.
 */
const char *suggest_hint(const char *word, const char *const *cands, size_t n, char *buf, size_t len);

#endif
