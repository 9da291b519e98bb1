#include "util/csv.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xalloc.h"

struct csv_reader {
	char name[256];
	const char *buf;
	size_t len, pos;
	int line; /* current line, 1-based */
	size_t line_start;
	int flags;
	/* per-record storage */
	char *text;
	size_t text_cap;
	size_t *offs;
	size_t offs_cap;
	char **fields;
	size_t fields_cap;
	int *cols;
	size_t cols_cap;
};

long utf8_check(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		unsigned char c = p[i];
		size_t n, k;
		unsigned cp;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			n = 1;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			n = 2;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			n = 3;
			cp = c & 0x07;
		} else {
			return (long)i;
		}
		for (k = 1; k <= n; k++) {
			if (i + k >= len || (p[i + k] & 0xc0) != 0x80)
				return (long)i;
			cp = (cp << 6) | (p[i + k] & 0x3f);
		}
		/* overlong forms, surrogates, beyond U+10FFFF */
		if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return (long)i;
		i += n + 1;
	}
	return -1;
}

void utf8_scrub(char *s)
{
	size_t len = strlen(s), i = 0;
	long bad;
	while (i < len && (bad = utf8_check(s + i, len - i)) >= 0) {
		s[i + (size_t)bad] = '?';
		i += (size_t)bad + 1;
	}
}

void text_scrub_controls(char *s)
{
	unsigned char *p = (unsigned char *)s;
	for (; *p; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			*p = '?';
		} else if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			/* two bytes become one '?': shift the rest down */
			p[0] = '?';
			memmove(p + 1, p + 2, strlen((char *)p + 2) + 1);
		}
	}
}

size_t utf8_prefix(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	/* step back over continuation bytes to the start of the last character */
	if (n == max && s[n]) {
		size_t k = n;
		while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
			k--;
		n = k;
	}
	return n;
}

struct csv_reader *csv_open(const char *name, const char *buf, size_t len, int flags)
{
	struct csv_reader *r = xcalloc(1, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->buf = buf;
	r->len = len;
	r->line = 1;
	r->flags = flags;
	/* a UTF-8 byte order mark is allowed and skipped */
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		r->pos = 3;
	return r;
}

void csv_free(struct csv_reader *r)
{
	if (!r)
		return;
	free(r->text);
	free(r->offs);
	free(r->fields);
	free(r->cols);
	free(r);
}

void csv_record_copy(struct csv_record *copy, const struct csv_record *rec)
{
	char **fields = xcalloc(rec->nfields, sizeof(*fields));
	int *cols = xcalloc(rec->nfields, sizeof(*cols));
	size_t i;
	for (i = 0; i < rec->nfields; i++) {
		fields[i] = xstrdup(rec->fields[i]);
		cols[i] = rec->cols ? rec->cols[i] : 0;
	}
	copy->nfields = rec->nfields;
	copy->fields = (const char *const *)fields;
	copy->cols = cols;
	copy->line = rec->line;
}

void csv_record_release(struct csv_record *rec)
{
	size_t i;
	for (i = 0; i < rec->nfields; i++)
		free((char *)rec->fields[i]);
	free((char **)rec->fields);
	free((int *)rec->cols);
	memset(rec, 0, sizeof(*rec));
}

int csv_header_columns(const struct csv_record *hdr, const char *name, const char *const *names, int n,
		       unsigned long optional, int *col, struct diag *err)
{
	size_t i;
	int k;
	for (k = 0; k < n; k++) {
		col[k] = -1;
		for (i = 0; i < hdr->nfields; i++)
			if (!strcmp(hdr->fields[i], names[k]))
				col[k] = (int)i;
		if (col[k] < 0 && !(optional >> k & 1))
			return diag_set(err, name, hdr->line, 1, names[k], "the header has no column '%s'",
					names[k]);
	}
	return 0;
}

static void put_char(struct csv_reader *r, size_t *n, char c)
{
	XGROW(r->text, r->text_cap, *n + 1);
	r->text[(*n)++] = c;
}

static void start_field(struct csv_reader *r, size_t nf, size_t tn, int col)
{
	XGROW(r->offs, r->offs_cap, nf);
	XGROW(r->cols, r->cols_cap, nf);
	r->offs[nf] = tn;
	r->cols[nf] = col;
}

static int col_of(const struct csv_reader *r, size_t pos)
{
	return (int)(pos - r->line_start) + 1;
}

/* Skips blank lines and, with CSV_COMMENTS, comment lines. */
static void skip_empty(struct csv_reader *r)
{
	while (r->pos < r->len) {
		const char *p = r->buf + r->pos;
		if (*p == '\n' || (*p == '\r' && r->pos + 1 < r->len && p[1] == '\n')) {
			r->pos += *p == '\n' ? 1 : 2;
			r->line++;
			r->line_start = r->pos;
		} else if ((r->flags & CSV_COMMENTS) && *p == '#') {
			while (r->pos < r->len && r->buf[r->pos] != '\n')
				r->pos++;
		} else {
			break;
		}
	}
}

int csv_next(struct csv_reader *r, struct csv_record *rec, struct diag *err)
{
	size_t tn = 0, nf = 0, i;
	int in_quotes = 0, after_quote = 0, rec_line;

	skip_empty(r);
	if (r->pos >= r->len)
		return 0;
	rec_line = r->line;
	start_field(r, nf, tn, col_of(r, r->pos));
	for (;;) {
		char c;
		if (r->pos - r->line_start > CSV_MAX_LINE)
			return diag_set(err, r->name, r->line, 1, NULL, "line longer than %d bytes", CSV_MAX_LINE);
		if (r->pos >= r->len) {
			if (in_quotes)
				return diag_set(err, r->name, rec_line, r->cols[nf], NULL,
						"unterminated quoted field");
			break;
		}
		c = r->buf[r->pos];
		if (c == '\0')
			return diag_set(err, r->name, r->line, col_of(r, r->pos), NULL, "NUL byte in text file");
		if (in_quotes) {
			if (c == '"') {
				if (r->pos + 1 < r->len && r->buf[r->pos + 1] == '"') {
					put_char(r, &tn, '"');
					r->pos += 2;
					continue;
				}
				in_quotes = 0;
				after_quote = 1;
				r->pos++;
				continue;
			}
			if (c == '\n') {
				r->line++;
				r->line_start = r->pos + 1;
			}
			put_char(r, &tn, c);
			r->pos++;
			continue;
		}
		if (c == ',') {
			put_char(r, &tn, '\0');
			nf++;
			r->pos++;
			start_field(r, nf, tn, col_of(r, r->pos));
			after_quote = 0;
			continue;
		}
		if (c == '\n' || (c == '\r' && r->pos + 1 < r->len && r->buf[r->pos + 1] == '\n')) {
			r->pos += c == '\n' ? 1 : 2;
			r->line++;
			r->line_start = r->pos;
			break;
		}
		if (after_quote)
			return diag_set(err, r->name, r->line, col_of(r, r->pos), NULL,
					"unexpected character after closing quote");
		if (c == '"') {
			if (tn != r->offs[nf])
				return diag_set(err, r->name, r->line, col_of(r, r->pos), NULL,
						"stray quote inside an unquoted field");
			in_quotes = 1;
			r->pos++;
			continue;
		}
		put_char(r, &tn, c);
		r->pos++;
	}
	put_char(r, &tn, '\0');
	nf++;
	XGROW(r->fields, r->fields_cap, nf);
	for (i = 0; i < nf; i++)
		r->fields[i] = r->text + r->offs[i];
	/* a complete multi-byte check per field catches truncated sequences */
	for (i = 0; i < nf; i++) {
		long bad = utf8_check(r->fields[i], strlen(r->fields[i]));
		if (bad >= 0)
			return diag_set(err, r->name, rec_line, r->cols[i] + (int)bad, NULL,
					"invalid UTF-8 sequence");
	}
	rec->nfields = nf;
	rec->fields = (const char *const *)r->fields;
	rec->cols = r->cols;
	rec->line = rec_line;
	return 1;
}

int csv_read_file(const char *path, char **buf, size_t *len, struct diag *err)
{
	/* O_NONBLOCK: a FIFO or a terminal under the name must be refused, not waited on */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	char *b = NULL;
	size_t cap = 0, n = 0;
	if (fd < 0)
		return diag_set(err, path, 0, 0, NULL, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return diag_set(err, path, 0, 0, NULL, "cannot read: not a regular file");
	}
	for (;;) {
		ssize_t got;
		XGROW(b, cap, n + 65536);
		got = read(fd, b + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;
			close(fd);
			free(b);
			return diag_set(err, path, 0, 0, NULL, "read error: %s", strerror(e));
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > (size_t)256 << 20) {
			close(fd);
			free(b);
			return diag_set(err, path, 0, 0, NULL, "file larger than 256 MiB");
		}
	}
	close(fd);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

int csv_is_number(const char *s)
{
	const char *p = s;
	int digits = 0;
	if (*p == '-' || *p == '+')
		p++;
	for (; isdigit((unsigned char)*p); p++)
		digits++;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			digits++;
	if (!digits)
		return 0;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (!isdigit((unsigned char)*p))
			return 0;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return *p == '\0';
}

void csv_write_cell(FILE *out, const char *s, enum csv_cell kind)
{
	/* OWASP's list: the formula starts, and tab and CR, which some spreadsheets skip before one */
	int formula = kind != CSV_CELL_NUMBER && s[0] && strchr("=+-@\t\r", s[0]) &&
		      !(kind == CSV_CELL_AUTO && csv_is_number(s));
	if (!formula && !strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	/* a neutralised cell is always quoted, so the quote is part of the text a reader sees */
	fputc('"', out);
	if (formula)
		fputc('\'', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}
