/*
 * The streaming trace reader (trace.h): a hand-written JSON pull parser over
 * a 256 KiB buffer.  Only whitespace may hold a newline in valid JSON, so the
 * line count is kept there and nowhere else; the column is the distance from
 * the last newline in bytes.
 */
#include "profile/trace.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

#define BUFSZ (256u << 10)

struct trace_reader {
	gzFile gz;                /* NULL for a memory reader */
	const unsigned char *buf; /* the bytes at hand: own[] or the caller's memory */
	unsigned char *own;
	size_t pos, len;
	unsigned long long base; /* offset of buf[0] in the stream */
	unsigned long long line, line_start;
	int ioerr, failed;
	char *name;
	struct diag *err;
	struct strbuf key, val, cat, ename, coll, dtype, gpu, itype; /* released by trace_reader_free() */
	int elem;                                                    /* index in the array being read */
	struct trace_event ev;
	struct trace_info info;
	trace_event_fn fn;
	void *ctx;
};

/* ---- input ---- */

/* Makes bytes available; 0 at the end of the input (or on an I/O error, noted in ioerr). */
static int refill(struct trace_reader *r)
{
	int n;
	if (!r->gz || r->ioerr)
		return 0;
	r->base += r->len;
	r->pos = r->len = 0;
	n = gzread(r->gz, r->own, BUFSZ);
	if (n < 0) {
		r->ioerr = 1;
		return 0;
	}
	r->len = (size_t)n;
	return n > 0;
}

/* The next byte without consuming it, or -1 at the end. */
static inline int peek(struct trace_reader *r)
{
	if (r->pos < r->len)
		return r->buf[r->pos];
	return refill(r) ? r->buf[r->pos] : -1;
}

static unsigned long long offset_of(const struct trace_reader *r)
{
	return r->base + r->pos;
}

static int fail(struct trace_reader *r, const char *field, const char *fmt, ...) GS_PRINTF(3, 4);
static int fail(struct trace_reader *r, const char *field, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned long long off = offset_of(r);
	va_list ap;
	if (r->failed)
		return -1;
	r->failed = 1;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (r->ioerr)
		strbuf_addstr(&sb, " (read error: the file is damaged or not gzip)");
	diag_set(r->err, r->name, (int)(r->line > 2147483647ULL ? 0 : r->line),
		 (int)(off - r->line_start + 1 > 2147483647ULL ? 0 : off - r->line_start + 1), field ? field : "",
		 "byte %llu: %s", off, strbuf_str(&sb));
	strbuf_release(&sb);
	return -1;
}

/* What stands at the current position, for "expected X, found Y". */
static const char *found(struct trace_reader *r, struct strbuf *sb)
{
	int c = peek(r);
	strbuf_reset(sb);
	if (c < 0)
		strbuf_addstr(sb, "the end of the file");
	else if (c >= 0x21 && c < 0x7f)
		strbuf_addf(sb, "'%c'", c);
	else
		strbuf_addf(sb, "byte 0x%02x", (unsigned)c);
	return strbuf_str(sb);
}

static int expected(struct trace_reader *r, const char *field, const char *what)
{
	struct strbuf sb = STRBUF_INIT;
	int rc = fail(r, field, "expected %s, found %s", what, found(r, &sb));
	strbuf_release(&sb);
	return rc;
}

/* Skips whitespace; returns the next byte (not consumed) or -1. */
static int skip_ws(struct trace_reader *r)
{
	for (;;) {
		int c = peek(r);
		if (c == ' ' || c == '\t' || c == '\r') {
			r->pos++;
		} else if (c == '\n') {
			r->pos++;
			r->line++;
			r->line_start = offset_of(r);
		} else {
			return c;
		}
	}
}

/* Consumes c after whitespace, or fails with "expected WHAT". */
static int want(struct trace_reader *r, int c, const char *field, const char *what)
{
	if (skip_ws(r) != c)
		return expected(r, field, what);
	r->pos++;
	return 0;
}

/* ---- tokens ---- */

static void put_utf8(struct strbuf *sb, unsigned long cp)
{
	if (cp < 0x80) {
		strbuf_addch(sb, (int)cp);
	} else if (cp < 0x800) {
		strbuf_addch(sb, (int)(0xc0 | (cp >> 6)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		strbuf_addch(sb, (int)(0xe0 | (cp >> 12)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	} else {
		strbuf_addch(sb, (int)(0xf0 | (cp >> 18)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 12) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	}
}

static int hex4(struct trace_reader *r, const char *field, unsigned long *out)
{
	int k;
	*out = 0;
	for (k = 0; k < 4; k++) {
		int c = peek(r), v;
		if (c >= '0' && c <= '9')
			v = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v = (c | 0x20) - 'a' + 10;
		else
			return expected(r, field, "four hex digits after \\u");
		*out = *out * 16 + (unsigned long)v;
		r->pos++;
	}
	return 0;
}

/* One escape after its backslash (consumed), appended to sb unless sb is NULL. */
static int read_escape(struct trace_reader *r, struct strbuf *sb, const char *field)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	unsigned long cp, lo;
	int c = peek(r);
	const char *p = c > 0 ? strchr(from, c) : NULL;
	if (p) {
		r->pos++;
		if (sb)
			strbuf_addch(sb, to[p - from]);
		return 0;
	}
	if (c != 'u')
		return expected(r, field, "an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
	r->pos++;
	if (hex4(r, field, &cp))
		return -1;
	if (cp >= 0xd800 && cp < 0xdc00 && peek(r) == '\\') {
		r->pos++;
		if (peek(r) != 'u')
			return expected(r, field, "the low half of a surrogate pair (\\uDC00-\\uDFFF)");
		r->pos++;
		if (hex4(r, field, &lo))
			return -1;
		cp = (lo >= 0xdc00 && lo < 0xe000) ? 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00) : 0xfffd;
	} else if (cp >= 0xd800 && cp < 0xe000) {
		cp = 0xfffd; /* a lone surrogate: the replacement character */
	}
	if (sb)
		put_utf8(sb, cp);
	return 0;
}

/*
 * A string, its opening quote next; decoded into sb (reset first), or only
 * checked and skipped when sb is NULL.  Both obey TRACE_MAX_STRING.
 */
static int read_string(struct trace_reader *r, struct strbuf *sb, const char *field)
{
	size_t n = 0;
	if (want(r, '"', field, "a string"))
		return -1;
	if (sb)
		strbuf_reset(sb);
	for (;;) {
		size_t start = r->pos, end = r->pos;
		int c;
		while (end < r->len && r->buf[end] != '"' && r->buf[end] != '\\' && r->buf[end] >= 0x20)
			end++;
		n += end - start;
		if (n > TRACE_MAX_STRING) {
			r->pos = end;
			return fail(r, field, "a string longer than %u bytes", TRACE_MAX_STRING);
		}
		if (sb && end > start)
			strbuf_add(sb, r->buf + start, end - start);
		r->pos = end;
		c = peek(r);
		if (c == '"') {
			r->pos++;
			return 0;
		}
		if (c == '\\') {
			r->pos++;
			if (read_escape(r, sb, field))
				return -1;
			n++;
		} else if (c >= 0 && c < 0x20) {
			return fail(r, field, "a control byte 0x%02x inside a string (it must be escaped)",
				    (unsigned)c);
		} else if (c < 0) {
			return fail(r, field, "the end of the file inside a string");
		}
	}
}

static inline int is_number_char(int c)
{
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* A JSON number; its value into *out unless out is NULL (then only checked). */
static int read_number(struct trace_reader *r, double *out, const char *field)
{
	char tok[TRACE_MAX_NUMBER + 1];
	size_t n = 0, i = 0;
	int c, digits = 0;
	skip_ws(r);
	while ((c = peek(r)) >= 0 && is_number_char(c)) {
		if (n == TRACE_MAX_NUMBER)
			return fail(r, field, "a number longer than %d characters", TRACE_MAX_NUMBER);
		tok[n++] = (char)c;
		r->pos++;
	}
	tok[n] = 0;
	/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
	if (tok[i] == '-')
		i++;
	if (tok[i] == '0') {
		i++;
		digits = 1;
	} else {
		while (tok[i] >= '0' && tok[i] <= '9')
			i++, digits++;
	}
	if (digits && tok[i] == '.') {
		i++;
		for (digits = 0; tok[i] >= '0' && tok[i] <= '9'; i++)
			digits++;
	}
	if (digits && (tok[i] == 'e' || tok[i] == 'E')) {
		i++;
		if (tok[i] == '+' || tok[i] == '-')
			i++;
		for (digits = 0; tok[i] >= '0' && tok[i] <= '9'; i++)
			digits++;
	}
	if (!digits || i != n) {
		if (!n)
			return expected(r, field, "a number");
		return fail(r, field, "'%s' is not a JSON number", tok);
	}
	if (out) {
		*out = strtod(tok, NULL);
		if (!isfinite(*out))
			return fail(r, field, "the number %s is out of range", tok);
	}
	return 0;
}

static int read_literal(struct trace_reader *r, const char *word, const char *field)
{
	const char *p;
	for (p = word; *p; p++) {
		if (peek(r) != *p)
			return expected(r, field, "true, false or null");
		r->pos++;
	}
	return 0;
}

typedef int (*member_fn)(struct trace_reader *r, int depth);
static int read_container(struct trace_reader *r, int depth, int close, member_fn each, const char *field);
static int skip_value(struct trace_reader *r, int depth, const char *field);
/* An element or member's value skipped; depth is its container's. */
static int skip_member(struct trace_reader *r, int depth)
{
	return skip_value(r, depth, strbuf_str(&r->key));
}

/* Checks and skips one value of any type, depth levels deep already. */
static int skip_value(struct trace_reader *r, int depth, const char *field)
{
	int c = skip_ws(r);
	if (c == '"')
		return read_string(r, NULL, field);
	if (c == '-' || (c >= '0' && c <= '9'))
		return read_number(r, NULL, field);
	if (c == 't')
		return read_literal(r, "true", field);
	if (c == 'f')
		return read_literal(r, "false", field);
	if (c == 'n')
		return read_literal(r, "null", field);
	if (c != '{' && c != '[')
		return expected(r, field, "a value");
	return read_container(r, depth, c == '{' ? '}' : ']', skip_member, field);
}

/*
 * Walks an object (close '}') or an array (close ']'), its opening byte
 * next: calls each(r, depth) for every element, with an object member's
 * key in r->key and its value next.
 */
static int read_container(struct trace_reader *r, int depth, int close, member_fn each, const char *field)
{
	static const char *const seps[] = {"',' or '}'", "',' or ']'"};
	const char *sep = seps[close == ']'];
	int c;
	if (depth >= TRACE_MAX_DEPTH)
		return fail(r, field, "nesting deeper than %d levels", TRACE_MAX_DEPTH);
	if (want(r, close == '}' ? '{' : '[', field, close == '}' ? "an object" : "an array"))
		return -1;
	if (skip_ws(r) == close) {
		r->pos++;
		return 0;
	}
	for (;;) {
		if (close == '}' && (read_string(r, each == skip_member ? NULL : &r->key, field) ||
				     want(r, ':', strbuf_str(&r->key), "':' after the key")))
			return -1;
		if (each(r, depth + 1))
			return -1;
		c = skip_ws(r);
		r->pos++;
		if (c == close)
			return 0;
		if (c != ',') {
			r->pos--;
			return expected(r, close == '}' ? NULL : field, sep);
		}
	}
}
#define read_object(r, depth, each, what) read_container(r, depth, '}', each, NULL)
#define read_array(r, depth, each, field) read_container(r, depth, ']', each, field)

/* ---- the trace's structure ---- */

static int is_key(const struct trace_reader *r, const char *k)
{
	return !strcmp(strbuf_str(&r->key), k);
}

/* A number member, or a wrong-type error naming the field. */
static int number_member(struct trace_reader *r, double *out)
{
	int c = skip_ws(r);
	if (c != '-' && !(c >= '0' && c <= '9'))
		return expected(r, strbuf_str(&r->key), "a number");
	return read_number(r, out, strbuf_str(&r->key));
}

/* A number element of one input's dims (r->elem: the input, the dim count in ndims). */
static int dim_elem(struct trace_reader *r, int depth)
{
	struct trace_event *ev = &r->ev;
	int i = r->elem, c = skip_ws(r);
	double v = 0;
	if (c != '-' && !(c >= '0' && c <= '9')) {
		ev->ndims[i] = -1; /* not a shape: the input is not used */
		return skip_value(r, depth, "Input Dims");
	}
	if (read_number(r, &v, "Input Dims"))
		return -1;
	if (ev->ndims[i] >= 0 && ev->ndims[i] < TRACE_MAX_DIMS)
		ev->dims[i][ev->ndims[i]++] = v;
	else
		ev->ndims[i] = -1;
	return 0;
}

/* One input of "Input Dims": a list of numbers (a tensor's shape), else skipped. */
static int input_elem(struct trace_reader *r, int depth)
{
	struct trace_event *ev = &r->ev;
	int i = ev->ninputs++, rc;
	if (i >= TRACE_MAX_INPUTS || skip_ws(r) != '[')
		return skip_value(r, depth, "Input Dims");
	ev->ndims[i] = 0;
	r->elem = i;
	rc = read_array(r, depth, dim_elem, "Input Dims");
	return rc;
}

/* One "Input type": the first naming a tensor type is kept. */
static int type_elem(struct trace_reader *r, int depth)
{
	if (skip_ws(r) != '"' || r->itype.len)
		return skip_value(r, depth, "Input type");
	if (read_string(r, &r->itype, "Input type"))
		return -1;
	if (!strcmp(strbuf_str(&r->itype), "Scalar") || !strcmp(strbuf_str(&r->itype), "ScalarList") ||
	    !strncmp(strbuf_str(&r->itype), "GenericList", 11))
		strbuf_reset(&r->itype);
	return 0;
}

/* One "Concrete Inputs" string: "1", "[2, 2]", "" ...: up to 3 integers. */
static int concrete_elem(struct trace_reader *r, int depth)
{
	struct trace_event *ev = &r->ev;
	int i = r->elem++, n = 0;
	const char *p;
	char *end;
	if (i >= 12 || skip_ws(r) != '"')
		return skip_value(r, depth, "Concrete Inputs");
	if (read_string(r, &r->val, "Concrete Inputs"))
		return -1;
	for (p = strbuf_str(&r->val); *p && n < 3;) {
		long long v;
		if (!(*p == '-' || (*p >= '0' && *p <= '9'))) {
			p++;
			continue;
		}
		v = strtoll(p, &end, 10);
		if (end == p)
			break;
		ev->concrete[i][n++] = v;
		p = end;
	}
	ev->nconcrete[i] = n ? n : -1;
	return 0;
}

/* The product of a list of numbers (grid, block), into *out; anything else leaves NaN. */
static int product_elem(struct trace_reader *r, int depth)
{
	double v = 0, *out = r->elem ? &r->ev.block : &r->ev.grid;
	int c = skip_ws(r);
	if (c != '-' && !(c >= '0' && c <= '9'))
		return skip_value(r, depth, strbuf_str(&r->key));
	if (read_number(r, &v, "grid"))
		return -1;
	*out = isnan(*out) ? v : *out * v;
	return 0;
}

/* args members: numbers and text the analysis reads; anything else (or of another type) is skipped. */
static int args_member(struct trace_reader *r, int depth)
{
	struct trace_event *ev = &r->ev;
	int c = skip_ws(r);
	int num = c == '-' || (c >= '0' && c <= '9');
	long long *ip = is_key(r, "device")                            ? &ev->device :
			is_key(r, "stream")                            ? &ev->stream :
			is_key(r, "correlation")                       ? &ev->correlation :
			is_key(r, "Group size")                        ? &ev->group_size :
			is_key(r, "wait_on_stream")                    ? &ev->wait_stream :
			is_key(r, "wait_on_cuda_event_record_corr_id") ? &ev->wait_corr :
									 NULL;
	double v = 0;
	if (ip && num) {
		if (read_number(r, &v, strbuf_str(&r->key)))
			return -1;
		*ip = v >= 0 && v < 9e18 ? (long long)v : -1;
		return 0;
	}
	if (num && is_key(r, "In msg nelems"))
		return read_number(r, &ev->in_nelems, strbuf_str(&r->key));
	if (num && is_key(r, "bytes"))
		return read_number(r, &ev->bytes, strbuf_str(&r->key));
	if (c == '"' && is_key(r, "Collective name")) {
		ev->collective = "";
		return read_string(r, &r->coll, strbuf_str(&r->key));
	}
	if (c == '"' && is_key(r, "dtype")) {
		ev->dtype = "";
		return read_string(r, &r->dtype, strbuf_str(&r->key));
	}
	if (c == '[' && is_key(r, "Input Dims")) {
		ev->ninputs = 0;
		return read_array(r, depth, input_elem, "Input Dims");
	}
	if (c == '[' && is_key(r, "Input type"))
		return read_array(r, depth, type_elem, "Input type");
	if (c == '[' && is_key(r, "Concrete Inputs")) {
		r->elem = 0;
		return read_array(r, depth, concrete_elem, "Concrete Inputs");
	}
	if (c == '[' && (is_key(r, "grid") || is_key(r, "block"))) {
		r->elem = is_key(r, "block");
		return read_array(r, depth, product_elem, strbuf_str(&r->key));
	}
	return skip_value(r, depth, strbuf_str(&r->key));
}

static int event_member(struct trace_reader *r, int depth)
{
	struct trace_event *ev = &r->ev;
	if (is_key(r, "ph")) {
		if (read_string(r, &r->val, "ph"))
			return -1;
		ev->ph = r->val.len ? r->val.buf[0] : 0;
		return 0;
	}
	if (is_key(r, "cat"))
		return read_string(r, &r->cat, "cat");
	if (is_key(r, "name"))
		return read_string(r, &r->ename, "name");
	if (is_key(r, "ts"))
		return number_member(r, &ev->ts_us);
	if (is_key(r, "dur"))
		return number_member(r, &ev->dur_us);
	if (is_key(r, "tid")) {
		int c = skip_ws(r);
		double v = 0;
		if (c != '-' && !(c >= '0' && c <= '9'))
			return skip_value(r, depth, "tid"); /* Kineto names some threads with a string */
		if (read_number(r, &v, "tid"))
			return -1;
		ev->tid = v >= 0 && v < 9e18 ? (long long)v : -1;
		return 0;
	}
	if (is_key(r, "args") && skip_ws(r) == '{')
		return read_object(r, depth, args_member, "an object");
	return skip_value(r, depth, strbuf_str(&r->key));
}

static int event_elem(struct trace_reader *r, int depth)
{
	struct trace_event *ev = &r->ev;
	memset(ev, 0, sizeof(*ev));
	ev->ts_us = ev->dur_us = ev->in_nelems = ev->bytes = ev->grid = ev->block = NAN;
	ev->device = ev->stream = ev->correlation = ev->group_size = ev->tid = ev->wait_stream = ev->wait_corr =
		-1;
	memset(ev->nconcrete, 0xff, sizeof(ev->nconcrete));
	strbuf_reset(&r->cat);
	strbuf_reset(&r->itype);
	strbuf_reset(&r->ename);
	if (skip_ws(r) != '{')
		return expected(r, "traceEvents", "an event object");
	if (read_object(r, depth, event_member, "an event object"))
		return -1;
	ev->cat = strbuf_str(&r->cat);
	ev->name = strbuf_str(&r->ename);
	if (ev->collective)
		ev->collective = strbuf_str(&r->coll);
	if (ev->dtype)
		ev->dtype = strbuf_str(&r->dtype);
	ev->input_type = strbuf_str(&r->itype);
	r->info.events++;
	if (r->fn(ev, r->ctx))
		return fail(r, "traceEvents", "the reader was stopped");
	return 0;
}

static int device_member(struct trace_reader *r, int depth)
{
	if (r->info.ndevices == 1 && is_key(r, "name") && skip_ws(r) == '"') {
		if (read_string(r, &r->gpu, "deviceProperties.name"))
			return -1;
		r->info.gpu_name = strbuf_str(&r->gpu);
		return 0;
	}
	if (r->info.ndevices == 1 && (is_key(r, "totalGlobalMem") || is_key(r, "numSms"))) {
		int c = skip_ws(r);
		if (c == '-' || (c >= '0' && c <= '9'))
			return read_number(r, is_key(r, "numSms") ? &r->info.gpu_sms : &r->info.gpu_mem_bytes,
					   strbuf_str(&r->key));
	}
	return skip_value(r, depth, strbuf_str(&r->key));
}

static int device_elem(struct trace_reader *r, int depth)
{
	r->info.ndevices++;
	if (skip_ws(r) != '{')
		return skip_value(r, depth, "deviceProperties");
	return read_object(r, depth, device_member, "an object");
}

/* distributedInfo: the rank and world size, when they are numbers. */
static int dist_member(struct trace_reader *r, int depth)
{
	long long *ip = is_key(r, "rank") ? &r->info.rank : is_key(r, "world_size") ? &r->info.world_size : NULL;
	int c = skip_ws(r);
	double v;
	if (ip && (c == '-' || (c >= '0' && c <= '9'))) {
		if (read_number(r, &v, strbuf_str(&r->key)))
			return -1;
		*ip = v >= 0 && v < 1e9 ? (long long)v : -1;
		return 0;
	}
	return skip_value(r, depth, strbuf_str(&r->key));
}

static int top_member(struct trace_reader *r, int depth)
{
	if (is_key(r, "traceEvents"))
		return read_array(r, depth, event_elem, "traceEvents");
	if (is_key(r, "deviceProperties") && skip_ws(r) == '[')
		return read_array(r, depth, device_elem, "deviceProperties");
	if (is_key(r, "distributedInfo") && skip_ws(r) == '{')
		return read_object(r, depth, dist_member, "an object");
	return skip_value(r, depth, strbuf_str(&r->key));
}

/* ---- the reader ---- */

static struct trace_reader *reader_new(const char *name)
{
	struct trace_reader *r = xcalloc(1, sizeof(*r));
	r->name = xstrdup(name);
	r->line = 1;
	r->info.rank = r->info.world_size = -1;
	r->info.gpu_mem_bytes = r->info.gpu_sms = NAN;
	return r;
}

struct trace_reader *trace_reader_open(const char *path, struct diag *err)
{
	struct trace_reader *r;
	gzFile gz = gzopen(path, "rb");
	if (!gz) {
		diag_set(err, path, 0, 0, "", "cannot open: %s", errno ? strerror(errno) : "out of memory");
		return NULL;
	}
	gzbuffer(gz, BUFSZ);
	r = reader_new(path);
	r->gz = gz;
	r->own = xmalloc(BUFSZ);
	r->buf = r->own;
	return r;
}

struct trace_reader *trace_reader_mem(const char *name, const char *data, size_t len)
{
	struct trace_reader *r = reader_new(name);
	r->buf = (const unsigned char *)data;
	r->len = len;
	return r;
}

void trace_reader_free(struct trace_reader *r)
{
	if (!r)
		return;
	if (r->gz)
		gzclose(r->gz);
	free(r->own);
	free(r->name);
	{
		struct strbuf *all[] = {&r->key,  &r->val,   &r->cat, &r->ename,
					&r->coll, &r->dtype, &r->gpu, &r->itype};
		size_t i;
		for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
			strbuf_release(all[i]);
	}
	free(r);
}

int trace_reader_run(struct trace_reader *r, trace_event_fn fn, void *ctx, struct diag *err)
{
	int c, rc;
	r->err = err;
	r->fn = fn;
	r->ctx = ctx;
	c = skip_ws(r);
	if (c == '[') /* the Chrome format's bare array of events */
		rc = read_array(r, 1, event_elem, "traceEvents");
	else if (c == '{')
		rc = read_object(r, 0, top_member, "a JSON object with traceEvents");
	else
		rc = expected(r, NULL, "a JSON object with traceEvents");
	if (rc)
		return -1;
	if (skip_ws(r) >= 0)
		return fail(r, NULL, "unexpected data after the end of the trace");
	if (r->ioerr)
		return fail(r, NULL, "cannot read the file");
	return 0;
}

const struct trace_info *trace_reader_info(const struct trace_reader *r)
{
	return &r->info;
}

unsigned long long trace_reader_offset(const struct trace_reader *r)
{
	return offset_of(r);
}
