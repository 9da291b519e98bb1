/*
 * The Prometheus exposition formats: text 0.0.4 and OpenMetrics 1.0.
 *
 * A writer appends to a strbuf (util/strbuf.h).  Families are written one
 * at a time (expo_family() then its samples), which keeps every family one
 * contiguous group as both formats require.  Metric names are given as they appear in
 * the text format (a counter's name ends in "_total"); the writer derives the
 * OpenMetrics family name, TYPE and UNIT from it:
 *
 *	counter "gpu_energy_joules_total"  ->  # TYPE gpu_energy_joules counter
 *	                                      # UNIT gpu_energy_joules joules
 *	                                      gpu_energy_joules_total{...} 12
 *	counter "DCGM_FI_DEV_PCIE_REPLAY_COUNTER" (no _total)
 *	                                   ->  # TYPE ... unknown (the name is kept,
 *	                                      so dashboards that query it still work)
 *	info "gpu_info"                    ->  # TYPE gpu info; gpu_info{...} 1
 *
 * Escaping (exposition_formats.md, OpenMetrics 1.0): label values escape
 * backslash, double quote and newline; HELP escapes backslash and newline
 * (and the double quote in OpenMetrics).  Numbers are written in the
 * shortest form that reads back to the same double; NaN and infinities as
 * "NaN", "+Inf", "-Inf".
 */
#ifndef GPUSCOPE_EXPORT_EXPO_H
#define GPUSCOPE_EXPORT_EXPO_H

#include <stddef.h>

#include "util/strbuf.h"

enum expo_format {
	EXPO_TEXT = 0,        /* text/plain; version=0.0.4 */
	EXPO_OPENMETRICS = 1, /* application/openmetrics-text; version=1.0.0 */
	EXPO_NFORMATS
};

enum expo_type {
	EXPO_GAUGE = 0,
	EXPO_COUNTER,
	EXPO_INFO, /* a gauge of value 1 whose labels carry facts; name ends in _info */
	EXPO_UNTYPED,
};

/* Appends a label value with backslash, quote and newline escaped. */
void expo_escape_label_value(struct strbuf *b, const char *s);
/* Appends name="value" (value escaped), preceded by a comma unless first. */
void expo_label(struct strbuf *b, int first, const char *name, const char *value);
/* Appends a sample value: shortest round-trip form, NaN, +Inf, -Inf. */
void expo_value(struct strbuf *b, double v);

struct expo_writer {
	struct strbuf *out;
	enum expo_format format;
	const char *name; /* the current family's sample name */
	size_t name_len;  /* strlen(name), once per family instead of once per sample */
	enum expo_type type;
};

void expo_writer_init(struct expo_writer *w, struct strbuf *out, enum expo_format format);
/*
 * Writes HELP and TYPE (and UNIT in OpenMetrics, when unit is non-NULL and
 * the family name ends in "_UNIT").  name must stay valid until the next
 * expo_family() call.
 */
void expo_family(struct expo_writer *w, const char *name, enum expo_type type, const char *help, const char *unit);
/*
 * Writes one sample of the current family.  labels is a pre-built,
 * already escaped label list ("a=\"1\",b=\"2\"") or NULL/"" for none;
 * extra_name/extra_value add one more label (escaped here) when extra_name
 * is non-NULL.
 */
void expo_sample(struct expo_writer *w, const char *labels, const char *extra_name, const char *extra_value,
		 double value);
/* Same with two extra labels. */
void expo_sample2(struct expo_writer *w, const char *labels, const char *n1, const char *v1, const char *n2,
		  const char *v2, double value);
/* Ends the exposition: "# EOF\n" in OpenMetrics, nothing in text 0.0.4. */
void expo_finish(struct expo_writer *w);

/* The Content-Type header value of a format (static string). */
const char *expo_content_type(enum expo_format f);

/*
 * Picks the format for an HTTP Accept header (NULL: none sent), in the
 * manner of Prometheus' content negotiation: the highest q-value among the
 * media ranges this exporter can serve wins; on a tie the text format wins;
 * a header that names nothing servable falls back to text 0.0.4.  Sets
 * *content_type (static string) to the header value to send, which keeps
 * the OpenMetrics version the client asked for (1.0.0 or 0.0.1).
 */
enum expo_format expo_negotiate(const char *accept, const char **content_type);

/* Name checks: legacy metric names [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]*. */
int expo_valid_metric_name(const char *s);
int expo_valid_label_name(const char *s);

#endif
