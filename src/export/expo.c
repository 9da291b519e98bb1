/*
 * Prometheus text 0.0.4 and OpenMetrics 1.0 writer (see expo.h).
 */
#include "export/expo.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0 when it is not one.
 */
static size_t utf8_seq_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n, i;
	unsigned lo = 0x80, hi = 0xbf;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	/* the second byte's range rules out overlongs, surrogates and > U+10FFFF */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

void expo_escape_label_value(struct strbuf *b, const char *s)
{
	const char *run = s;
	while (*s) {
		const char *esc = NULL;
		size_t n = 1, elen = 2;
		if (*s == '\\')
			esc = "\\\\";
		else if (*s == '"')
			esc = "\\\"";
		else if (*s == '\n')
			esc = "\\n";
		else if ((unsigned char)*s >= 0x80 && !(n = utf8_seq_len((const unsigned char *)s))) {
			/* Prometheus rejects a whole scrape over one bad byte: U+FFFD instead */
			esc = "\xef\xbf\xbd";
			elen = 3;
			n = 1;
		}
		if (!esc) {
			s += n;
			continue;
		}
		strbuf_add(b, run, (size_t)(s - run));
		strbuf_add(b, esc, elen);
		s += n;
		run = s;
	}
	strbuf_add(b, run, (size_t)(s - run));
}

static void escape_help(struct strbuf *b, const char *s, enum expo_format f)
{
	/* copies the runs between escapes whole: help texts are most of a family's header */
	const char *stop = f == EXPO_OPENMETRICS ? "\\\n\"" : "\\\n";
	for (;;) {
		size_t n = strcspn(s, stop);
		strbuf_add(b, s, n);
		s += n;
		if (!*s)
			return;
		strbuf_add(b, *s == '\\' ? "\\\\" : *s == '\n' ? "\\n" : "\\\"", 2);
		s++;
	}
}

void expo_label(struct strbuf *b, int first, const char *name, const char *value)
{
	if (!first)
		strbuf_addch(b, ',');
	strbuf_addstr(b, name);
	strbuf_add(b, "=\"", 2);
	expo_escape_label_value(b, value ? value : "");
	strbuf_addch(b, '"');
}

/* Integers are most samples; write them without printf. */
static void put_uint(struct strbuf *b, unsigned long long u, int neg)
{
	char tmp[24];
	int i = (int)sizeof(tmp);
	do {
		tmp[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (neg)
		tmp[--i] = '-';
	strbuf_add(b, tmp + i, sizeof(tmp) - (size_t)i);
}

void expo_value(struct strbuf *b, double v)
{
	char tmp[40];
	int prec;
	if (isnan(v)) {
		strbuf_add(b, "NaN", 3);
		return;
	}
	if (isinf(v)) {
		strbuf_addstr(b, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	/* 2^53: every integer below it is exact in a double. */
	if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		put_uint(b, (unsigned long long)fabs(v), v < 0);
		return;
	}
	for (prec = 15; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	strbuf_addstr(b, tmp);
}

void expo_writer_init(struct expo_writer *w, struct strbuf *out, enum expo_format format)
{
	w->out = out;
	w->format = format;
	w->name = NULL;
	w->name_len = 0;
	w->type = EXPO_GAUGE;
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && !memcmp(s + n - k, suffix, k);
}

void expo_family(struct expo_writer *w, const char *name, enum expo_type type, const char *help, const char *unit)
{
	struct strbuf *b = w->out;
	size_t n = strlen(name), fam_len = n;
	const char *type_word;

	w->name = name;
	w->name_len = n;
	w->type = type;
	if (w->format == EXPO_TEXT) {
		switch (type) {
		case EXPO_COUNTER:
			type_word = "counter";
			break;
		case EXPO_UNTYPED:
			type_word = "untyped";
			break;
		default:
			type_word = "gauge";
			break;
		}
	} else {
		switch (type) {
		case EXPO_COUNTER:
			/* A counter's samples must be FAMILY_total; keep other names as they are. */
			if (ends_with(name, n, "_total") && n > 6) {
				fam_len = n - 6;
				type_word = "counter";
			} else {
				type_word = "unknown";
			}
			break;
		case EXPO_INFO:
			if (ends_with(name, n, "_info") && n > 5) {
				fam_len = n - 5;
				type_word = "info";
			} else {
				type_word = "gauge";
			}
			break;
		case EXPO_UNTYPED:
			type_word = "unknown";
			break;
		default:
			type_word = "gauge";
			break;
		}
	}
	strbuf_add(b, "# HELP ", 7);
	strbuf_add(b, name, fam_len);
	strbuf_addch(b, ' ');
	escape_help(b, help ? help : "", w->format);
	strbuf_add(b, "\n# TYPE ", 8);
	strbuf_add(b, name, fam_len);
	strbuf_addch(b, ' ');
	strbuf_addstr(b, type_word);
	strbuf_addch(b, '\n');
	if (w->format == EXPO_OPENMETRICS && unit && *unit) {
		char suffix[64];
		snprintf(suffix, sizeof(suffix), "_%s", unit);
		if (ends_with(name, fam_len, suffix)) {
			strbuf_add(b, "# UNIT ", 7);
			strbuf_add(b, name, fam_len);
			strbuf_addch(b, ' ');
			strbuf_addstr(b, unit);
			strbuf_addch(b, '\n');
		}
	}
}

static void sample_head(struct expo_writer *w, const char *labels)
{
	strbuf_add(w->out, w->name, w->name_len);
	if (labels && *labels) {
		strbuf_addch(w->out, '{');
		strbuf_addstr(w->out, labels);
	}
}

static void sample_tail(struct expo_writer *w, int opened, double value)
{
	if (opened)
		strbuf_addch(w->out, '}');
	strbuf_addch(w->out, ' ');
	expo_value(w->out, value);
	strbuf_addch(w->out, '\n');
}

void expo_sample2(struct expo_writer *w, const char *labels, const char *n1, const char *v1, const char *n2,
		  const char *v2, double value)
{
	int has_labels = labels && *labels;
	int opened = has_labels;
	sample_head(w, labels);
	if (n1) {
		if (!opened)
			strbuf_addch(w->out, '{');
		expo_label(w->out, !opened, n1, v1);
		opened = 1;
	}
	if (n2) {
		if (!opened)
			strbuf_addch(w->out, '{');
		expo_label(w->out, !opened, n2, v2);
		opened = 1;
	}
	sample_tail(w, opened, value);
}

void expo_sample(struct expo_writer *w, const char *labels, const char *extra_name, const char *extra_value,
		 double value)
{
	expo_sample2(w, labels, extra_name, extra_value, NULL, NULL, value);
}

void expo_finish(struct expo_writer *w)
{
	if (w->format == EXPO_OPENMETRICS)
		strbuf_add(w->out, "# EOF\n", 6);
}

const char *expo_content_type(enum expo_format f)
{
	return f == EXPO_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8" :
				       "text/plain; version=0.0.4; charset=utf-8";
}

static const char CT_OM_001[] = "application/openmetrics-text; version=0.0.1; charset=utf-8";

/* Copies [s, e) trimmed of blanks into buf. */
static void trimmed(const char *s, const char *e, char *buf, size_t len)
{
	size_t n;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	n = (size_t)(e - s);
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

/*
 * One media range of an Accept header, e.g.
 * "application/openmetrics-text;version=1.0.0;q=0.5".  Returns what it
 * can be served as: 0 text, 1 OpenMetrics 1.0.0, 2 OpenMetrics 0.0.1,
 * -1 nothing; *q gets its quality.
 */
static int media_range(const char *s, const char *e, double *q)
{
	char type[96], param[96], version[32] = "";
	const char *semi = memchr(s, ';', (size_t)(e - s));
	const char *p;
	*q = 1.0;
	trimmed(s, semi ? semi : e, type, sizeof(type));
	for (p = semi; p && p < e;) {
		const char *next = memchr(p + 1, ';', (size_t)(e - p - 1));
		char *eq;
		trimmed(p + 1, next ? next : e, param, sizeof(param));
		eq = strchr(param, '=');
		if (eq) {
			char *val = eq + 1;
			*eq = '\0';
			if (*val == '"') {
				size_t vl = strlen(val);
				val++;
				if (vl >= 2 && val[vl - 2] == '"')
					val[vl - 2] = '\0';
			}
			if (!strcasecmp(param, "q")) {
				char *end;
				double v = strtod(val, &end);
				*q = (end != val && v >= 0 && v <= 1) ? v : 0;
			} else if (!strcasecmp(param, "version")) {
				snprintf(version, sizeof(version), "%s", val);
			}
		}
		p = next;
	}
	if (!strcasecmp(type, "application/openmetrics-text")) {
		if (!*version || !strcmp(version, "1.0.0"))
			return 1;
		if (!strcmp(version, "0.0.1"))
			return 2;
		return -1;
	}
	if (!strcasecmp(type, "text/plain")) {
		if (!*version || !strcmp(version, "0.0.4") || !strcmp(version, "1.0.0"))
			return 0;
		return -1;
	}
	if (!strcmp(type, "*/*") || !strcasecmp(type, "text/*"))
		return 0;
	if (!strcasecmp(type, "application/*"))
		return 1;
	return -1;
}

enum expo_format expo_negotiate(const char *accept, const char **content_type)
{
	double best_text = -1, best_om = -1, q;
	int om_kind = 1;
	const char *s = accept;
	*content_type = expo_content_type(EXPO_TEXT);
	if (!accept)
		return EXPO_TEXT;
	while (*s) {
		const char *e = strchr(s, ',');
		int kind;
		if (!e)
			e = s + strlen(s);
		kind = media_range(s, e, &q);
		if (q > 0) {
			if (kind == 0 && q > best_text)
				best_text = q;
			else if (kind > 0 && (q > best_om || (q == best_om && kind == 1))) {
				best_om = q;
				om_kind = kind;
			}
		}
		s = *e ? e + 1 : e;
	}
	if (best_om > best_text) {
		*content_type = om_kind == 2 ? CT_OM_001 : expo_content_type(EXPO_OPENMETRICS);
		return EXPO_OPENMETRICS;
	}
	return EXPO_TEXT;
}

static int name_char(char c, int first, int colon)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
		return 1;
	if (colon && c == ':')
		return 1;
	return !first && c >= '0' && c <= '9';
}

int expo_valid_metric_name(const char *s)
{
	const char *p;
	if (!s || !*s)
		return 0;
	for (p = s; *p; p++)
		if (!name_char(*p, p == s, 1))
			return 0;
	return 1;
}

int expo_valid_label_name(const char *s)
{
	const char *p;
	if (!s || !*s || (s[0] == '_' && s[1] == '_'))
		return 0;
	for (p = s; *p; p++)
		if (!name_char(*p, p == s, 0))
			return 0;
	return 1;
}
