/*
 * Field tables: a result declares each of its fields once, in the module
 * that owns the result, and this module writes the result every way from
 * that one list: JSON objects, CSV rows, a human key/value list, one value
 * formatted for a table cell, and the field list in docs/ (markdown).
 *
 * A module declares its fields with an X-macro, so the name, type, unit,
 * help and the expression that reads the value sit on one line:
 *
 *	#define ESTIMATE_FIELDS(F) \
 *		F(step_s, NUM, "s", "time of one optimizer step", r->time.step_s) \
 *		F(gpus, INT, NULL, "GPUs in the job", c->gpus)
 *
 *	static const struct report_field est_fields[] = {
 *		ESTIMATE_FIELDS(REPORT_FIELD_DECL)
 *	};
 *	const struct report_schema estimate_schema =
 *		REPORT_SCHEMA("estimate", est_fields);
 *
 *	void estimate_row(const struct model_result *r, ..., struct report_row *row)
 *	{
 *		size_t i = 0;
 *		ESTIMATE_FIELDS(REPORT_FIELD_SET)
 *	}
 *
 * REPORT_FIELD_SET expects a `struct report_row *row` and a `size_t i` in
 * scope; the expression's C type is checked against the field's type (a
 * text field takes a const char *, the others a number).
 *
 * Units name what a number's base is, in the spelling docs use: "s",
 * "bytes", "USD", "W", "kWh", "tokens/s", "fraction" (0..1, printed as a
 * percentage), "%" (already a percentage).  Machine formats write numbers
 * in that base unit; the human forms pick the formatter by unit
 * (report/fmt.h).
 */
#ifndef GPUSCOPE_REPORT_FIELD_H
#define GPUSCOPE_REPORT_FIELD_H

#include <stddef.h>
#include <stdio.h>

#include "util/error.h"

enum report_type {
	REPORT_TEXT, /* a string; NULL is JSON null and an empty CSV cell */
	REPORT_NUM,  /* a double; NaN or infinity is JSON null and an empty CSV cell */
	REPORT_INT,  /* a whole number held in a double */
	REPORT_BOOL, /* 0 or not */
};

/* "text", "number", "integer" or "boolean", as docs and `gpuscope fields` name the types. */
const char *report_type_name(enum report_type t);

struct report_field {
	const char *name; /* JSON key and CSV column: part of the interface, never renamed */
	enum report_type type;
	const char *unit; /* base unit of a number, or NULL */
	const char *help; /* one line for docs and `gpuscope fields` */
};

struct report_schema {
	const char *name; /* "plan", "estimate", "tco" ... */
	const struct report_field *fields;
	size_t nfields;
};

#define REPORT_SCHEMA(name, array) \
	{ \
		name, array, sizeof(array) / sizeof((array)[0]) \
	}
#define REPORT_FIELD_DECL(name, type, unit, help, expr) {#name, REPORT_##type, unit, help},
#define REPORT_FIELD_SET(name, type, unit, help, expr) REPORT_SET_##type(row, i++, (expr));
/*
 * One result's schema and its row writer from its field list, so that the
 * list is the only thing written per result:
 *
 *	REPORT_DEFINE(validate_case_schema, validate_case_row, "validate-case",
 *		      struct validate_case, c, VALIDATE_CASE_FIELDS)
 *
 * defines `const struct report_schema *validate_case_schema(void)` and
 * `void validate_case_row(const struct validate_case *c, struct report_row *row)`.
 */
#define REPORT_DEFINE(schema_fn, row_fn, jname, type, var, FIELDS) \
	static const struct report_field schema_fn##_fields[] = {FIELDS(REPORT_FIELD_DECL)}; \
	static const struct report_schema schema_fn##_s = REPORT_SCHEMA(jname, schema_fn##_fields); \
	const struct report_schema *schema_fn(void) \
	{ \
		return &schema_fn##_s; \
	} \
	void row_fn(const type *var, struct report_row *row) \
	{ \
		size_t i = 0; \
		report_row_clear(row); \
		FIELDS(REPORT_FIELD_SET) \
	}
#define REPORT_SET_TEXT report_set_text
#define REPORT_SET_NUM report_set_num
#define REPORT_SET_INT report_set_num
#define REPORT_SET_BOOL report_set_bool

/*
 * One result's values, in its schema's order.  The row owns the strings it
 * was given through report_keep() / report_printf(); the ones given to
 * report_set_text() are borrowed and must outlive the row's use.
 */
struct report_row;

struct report_row *report_row_new(const struct report_schema *s);
void report_row_free(struct report_row *r);
/* Forgets the values and frees the strings the row owns, to fill it again. */
void report_row_clear(struct report_row *r);

void report_set_num(struct report_row *r, size_t i, double v);
void report_set_bool(struct report_row *r, size_t i, int v);
void report_set_text(struct report_row *r, size_t i, const char *borrowed);
/* Formats a string owned by the row (freed with it); for computed text fields. */
const char *report_printf(struct report_row *r, const char *fmt, ...) GS_PRINTF(2, 3);
/* Scratch bytes owned by the row, for functions that format into a buffer. */
char *report_scratch(struct report_row *r, size_t len);

const struct report_schema *report_row_schema(const struct report_row *r);
/* Index of a field by name, or -1. */
long report_field_index(const struct report_schema *s, const char *name);
double report_num(const struct report_row *r, size_t i);
/* The text of a text field; NULL when unset. */
const char *report_text(const struct report_row *r, size_t i);

/* ---- writers ---- */

struct json_t;
/* A new JSON object with every field (caller owns the reference). */
struct json_t *report_row_json(const struct report_row *r);
/* Adds every field to an existing JSON object. */
void report_row_json_into(const struct report_row *r, struct json_t *obj);
/* The CSV header line of the schema. */
void report_csv_header(const struct report_schema *s, FILE *out);
/* One CSV line: numbers in base units ("%.10g"), text neutralised (util/csv.h). */
void report_csv_row(const struct report_row *r, FILE *out);
/*
 * A value for a person, formatted by its unit (report/fmt.h): "12.5 ms",
 * "79.6 GiB", "$433k", "12.5%"; "-" when unset.  Returns buf (FMT_LEN bytes
 * suffice) or, for a text field, its text.
 */
const char *report_value_text(const struct report_row *r, size_t i, char *buf, size_t len);
/* "name  value" lines for every field (or only those named, NULL-ended). */
void report_row_print(const struct report_row *r, FILE *out, const char *const *only);
/*
 * The schema as a markdown table: | field | type | unit | meaning |.  docs/
 * holds this text between "<!-- fields:NAME -->" and "<!-- /fields -->" and
 * a test compares the two.
 */
void report_schema_markdown(const struct report_schema *s, FILE *out);

#endif
