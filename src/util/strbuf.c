#include "util/strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	if (hint) {
		strbuf_grow(sb, hint);
		sb->buf[0] = 0;
	}
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	/* len + extra + 1 would wrap (extra == SIZE_MAX among them): ask for SIZE_MAX,
	 * which xrealloc() cannot give and aborts on */
	size_t need = extra < SIZE_MAX - sb->len ? sb->len + extra + 1 : SIZE_MAX;
	if (need <= sb->alloc)
		return;
	/* 1.5x growth, at least 64 bytes: amortised O(1) appends */
	size_t cap = sb->alloc ? sb->alloc + sb->alloc / 2 : 64;
	if (cap < need)
		cap = need;
	sb->buf = xrealloc(sb->buf, cap);
	sb->alloc = cap;
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	if (s)
		strbuf_add(sb, s, strlen(s));
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	strbuf_grow(sb, 64);
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0) {
		sb->buf[sb->len] = 0;
		return;
	}
	if ((size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, (size_t)n);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (len < sb->len) {
		sb->len = len;
		sb->buf[len] = 0;
	}
}

void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

const char *strbuf_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *s = sb->buf ? sb->buf : xstrdup("");
	if (len)
		*len = sb->len;
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	return s;
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}
