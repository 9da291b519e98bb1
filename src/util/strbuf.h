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
#include <string.h>

#include "util/error.h"

struct strbuf {
	char *buf;    /* NULL until the first addition; read it with strbuf_str() */
	size_t len;   /* bytes of text, not counting the NUL */
	size_t alloc; /* bytes allocated at buf */
};

#define STRBUF_INIT \
	{ \
		NULL, 0, 0 \
	}

/* Empties sb and, when hint > 0, allocates room for hint bytes of text at once. */
void strbuf_init(struct strbuf *sb, size_t hint);
/* Makes room for `extra` more bytes of text (and the NUL). */
void strbuf_grow(struct strbuf *sb, size_t extra);
/*
 * strbuf_add() and strbuf_addch() are inline (git inlines the second): the
 * exporter writes 300 KB a collection a few bytes at a time, and a call per
 * piece cost it 6 % more instructions.  alloc is 0 or more than len, so the
 * room checks cannot wrap.
 */
static inline void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (sb->alloc - sb->len <= len)
		strbuf_grow(sb, len);
	if (len)
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = 0;
}
/* NULL adds nothing. */
void strbuf_addstr(struct strbuf *sb, const char *s);
static inline void strbuf_addch(struct strbuf *sb, int c)
{
	if (sb->alloc - sb->len < 2)
		strbuf_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = 0;
}
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
