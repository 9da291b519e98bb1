#include "report/field.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/fmt.h"
#include "util/csv.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

union report_value {
	double num;
	const char *text;
};

struct report_row {
	const struct report_schema *s;
	union report_value *v;
	unsigned char *set; /* v[i] was given */
	char **owned;       /* strings from report_printf()/report_scratch() */
	size_t nowned, capowned;
};

struct report_row *report_row_new(const struct report_schema *s)
{
	struct report_row *r = xcalloc(1, sizeof(*r));
	r->s = s;
	r->v = xcalloc(s->nfields ? s->nfields : 1, sizeof(*r->v));
	r->set = xcalloc(s->nfields ? s->nfields : 1, 1);
	return r;
}

void report_row_clear(struct report_row *r)
{
	size_t i;
	for (i = 0; i < r->nowned; i++)
		free(r->owned[i]);
	r->nowned = 0;
	memset(r->set, 0, r->s->nfields);
}

void report_row_free(struct report_row *r)
{
	if (!r)
		return;
	report_row_clear(r);
	free(r->owned);
	free(r->v);
	free(r->set);
	free(r);
}

static union report_value *slot(struct report_row *r, size_t i)
{
	/* a schema and its setter disagreeing is a programming error: stop loudly */
	if (i >= r->s->nfields)
		abort();
	r->set[i] = 1;
	return &r->v[i];
}

void report_set_num(struct report_row *r, size_t i, double v)
{
	slot(r, i)->num = v;
}

void report_set_bool(struct report_row *r, size_t i, int v)
{
	slot(r, i)->num = v != 0;
}

void report_set_text(struct report_row *r, size_t i, const char *borrowed)
{
	slot(r, i)->text = borrowed;
}

static char *own(struct report_row *r, char *s)
{
	XGROW(r->owned, r->capowned, r->nowned);
	r->owned[r->nowned++] = s;
	return s;
}

const char *report_printf(struct report_row *r, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return own(r, strbuf_detach(&sb, NULL));
}

char *report_scratch(struct report_row *r, size_t len)
{
	return own(r, xcalloc(len ? len : 1, 1));
}

const struct report_schema *report_row_schema(const struct report_row *r)
{
	return r->s;
}

long report_field_index(const struct report_schema *s, const char *name)
{
	size_t i;
	for (i = 0; i < s->nfields; i++)
		if (!strcmp(s->fields[i].name, name))
			return (long)i;
	return -1;
}

double report_num(const struct report_row *r, size_t i)
{
	if (i >= r->s->nfields || !r->set[i] || r->s->fields[i].type == REPORT_TEXT)
		return NAN;
	return r->v[i].num;
}

const char *report_text(const struct report_row *r, size_t i)
{
	if (i >= r->s->nfields || !r->set[i] || r->s->fields[i].type != REPORT_TEXT)
		return NULL;
	return r->v[i].text;
}

static json_t *value_json(const struct report_row *r, size_t i)
{
	const struct report_field *f = &r->s->fields[i];
	double v = r->v[i].num;
	if (!r->set[i])
		return json_null();
	switch (f->type) {
	case REPORT_TEXT:
		return r->v[i].text ? json_string(r->v[i].text) : json_null();
	case REPORT_BOOL:
		return json_boolean(v != 0);
	case REPORT_INT:
		return isfinite(v) ? json_integer((json_int_t)v) : json_null();
	case REPORT_NUM:
	default:
		return isfinite(v) ? json_real(v) : json_null();
	}
}

void report_row_json_into(const struct report_row *r, json_t *obj)
{
	size_t i;
	for (i = 0; i < r->s->nfields; i++)
		json_object_set_new(obj, r->s->fields[i].name, value_json(r, i));
}

json_t *report_row_json(const struct report_row *r)
{
	json_t *o = json_object();
	report_row_json_into(r, o);
	return o;
}

void report_csv_header(const struct report_schema *s, FILE *out)
{
	size_t i;
	for (i = 0; i < s->nfields; i++) {
		if (i)
			fputc(',', out);
		csv_write_cell(out, s->fields[i].name, CSV_CELL_TEXT);
	}
	fputc('\n', out);
}

void report_csv_row(const struct report_row *r, FILE *out)
{
	size_t i;
	char b[FMT_LEN];
	for (i = 0; i < r->s->nfields; i++) {
		double v = r->v[i].num;
		if (i)
			fputc(',', out);
		if (!r->set[i])
			continue;
		switch (r->s->fields[i].type) {
		case REPORT_TEXT:
			if (r->v[i].text)
				csv_write_cell(out, r->v[i].text, CSV_CELL_TEXT);
			break;
		case REPORT_BOOL:
			fputs(v != 0 ? "true" : "false", out);
			break;
		case REPORT_INT:
			if (isfinite(v)) {
				snprintf(b, sizeof(b), "%.0f", v);
				csv_write_cell(out, b, CSV_CELL_NUMBER);
			}
			break;
		case REPORT_NUM:
		default:
			if (isfinite(v)) {
				snprintf(b, sizeof(b), "%.10g", v);
				csv_write_cell(out, b, CSV_CELL_NUMBER);
			}
			break;
		}
	}
	fputc('\n', out);
}

static int unit_is(const char *u, const char *name)
{
	return u && !strcmp(u, name);
}

const char *report_value_text(const struct report_row *r, size_t i, char *buf, size_t len)
{
	const struct report_field *f;
	double v;
	if (i >= r->s->nfields || !r->set[i]) {
		snprintf(buf, len, "-");
		return buf;
	}
	f = &r->s->fields[i];
	v = r->v[i].num;
	switch (f->type) {
	case REPORT_TEXT:
		return r->v[i].text ? r->v[i].text : "-";
	case REPORT_BOOL:
		snprintf(buf, len, "%s", v != 0 ? "yes" : "no");
		return buf;
	case REPORT_INT:
		return fmt_count(v, FMT_COUNT_GROUPED, buf, len);
	case REPORT_NUM:
	default:
		break;
	}
	if (unit_is(f->unit, "s"))
		return fmt_duration(v, FMT_DURATION_TEXT, buf, len);
	if (unit_is(f->unit, "bytes"))
		return fmt_bytes(v, FMT_BYTES_BINARY, buf, len);
	if (unit_is(f->unit, "USD"))
		return fmt_money(v, FMT_MONEY_SHORT, buf, len);
	if (unit_is(f->unit, "fraction"))
		return fmt_pct(v, 1, buf, len);
	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (unit_is(f->unit, "%"))
		snprintf(buf, len, "%.1f%%", v);
	else if (f->unit && strchr(f->unit, '/'))
		fmt_rate(v, f->unit, buf, len);
	else if (f->unit)
		snprintf(buf, len, "%.4g %s", v, f->unit);
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
}

static int named(const char *const *only, const char *name)
{
	if (!only)
		return 1;
	for (; *only; only++)
		if (!strcmp(*only, name))
			return 1;
	return 0;
}

void report_row_print(const struct report_row *r, FILE *out, const char *const *only)
{
	size_t i, w = 0;
	char b[FMT_LEN];
	for (i = 0; i < r->s->nfields; i++)
		if (named(only, r->s->fields[i].name) && strlen(r->s->fields[i].name) > w)
			w = strlen(r->s->fields[i].name);
	for (i = 0; i < r->s->nfields; i++)
		if (named(only, r->s->fields[i].name))
			fprintf(out, "%-*s  %s\n", (int)w, r->s->fields[i].name,
				report_value_text(r, i, b, sizeof(b)));
}

const char *report_type_name(enum report_type t)
{
	static const char *const types[] = {"text", "number", "integer", "boolean"};
	return (unsigned)t < sizeof(types) / sizeof(types[0]) ? types[t] : "?";
}

void report_schema_markdown(const struct report_schema *s, FILE *out)
{
	size_t i;
	fputs("| field | type | unit | meaning |\n|---|---|---|---|\n", out);
	for (i = 0; i < s->nfields; i++) {
		const struct report_field *f = &s->fields[i];
		fprintf(out, "| `%s` | %s | %s | %s |\n", f->name, report_type_name(f->type),
			f->unit ? f->unit : "", f->help ? f->help : "");
	}
}
