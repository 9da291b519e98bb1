/*
 * The one growable string of the tree (git's strbuf shape): text of any
 * length, always NUL-terminated, so no fixed char[N] ever cuts a line.
 *
 *	struct strbuf sb = STRBUF_INIT;
 *	strbuf_addf(&sb, "%zu GPUs", n);
 *	puts(strbuf_str(&sb));
 *	strbuf_release(&sb);
 *
 * Ownership: the strbuf owns buf until strbuf_detach() hands it to the
 * caller (who frees it with free()).  Allocation failure aborts (xalloc.h).
 */
#ifndef GPUSCOPE_UTIL_STRBUF_H
#define GPUSCOPE_UTIL_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "util/error.h"

struct strbuf {
	char *buf;      /* NULL until the first addition; read it with strbuf_str() */
	size_t len;     /* bytes of text, not counting the NUL */
	size_t alloc;   /* bytes allocated at buf */
};

#define STRBUF_INIT {NULL, 0, 0}

/* Empties sb and, when hint > 0, allocates room for hint bytes of text at once. */
void strbuf_init(struct strbuf *sb, size_t hint);
/* Makes room for `extra` more bytes of text (and the NUL). */
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
/* NULL adds nothing. */
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) GS_PRINTF(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap) GS_PRINTF(2, 0);
/* Shortens the text to len bytes (no-op when already shorter). */
void strbuf_setlen(struct strbuf *sb, size_t len);
/* Empties the text, keeping the allocation for reuse. */
void strbuf_reset(struct strbuf *sb);
/* The text; "" while nothing was added.  Valid until the next change. */
const char *strbuf_str(const struct strbuf *sb);
/* Hands the text to the caller (never NULL; free() it) and empties sb. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
/* Frees the text; sb is empty and reusable afterwards. */
void strbuf_release(struct strbuf *sb);

#endif
