/*
 * A counters file: dcgm-exporter's CSV format ("field name, type, help" per
 * line, '#' starts a comment), so an operator's existing file selects what
 * `gpuscope export -f FILE` serves, unchanged:
 *
 *	# Format
 *	# DCGM FIELD, Prometheus metric type, help message
 *	DCGM_FI_DEV_SM_CLOCK,  gauge, SM clock frequency (in MHz).
 *	DCGM_FI_DRIVER_VERSION, label, Driver Version
 *	gpu_sm_active_ratio, gauge,            # a native name works too
 *
 * Types are gauge, counter and label (a label field is attached to every
 * series, as dcgm-exporter does with DCGM_FI_DRIVER_VERSION).  A dcgm name
 * is served with the file's type and help; a native name must keep its own
 * type.  Unknown names, bad types and duplicates are errors located at
 * file:line:column; DCGM fields that gpuscope knows but does not serve
 * (DCGM_FI_DEV_VGPU_LICENSE_STATUS ...) are skipped with a warning, so
 * dcgm-exporter's default file loads as it is.
 */
#ifndef GPUSCOPE_EXPORT_COUNTERS_H
#define GPUSCOPE_EXPORT_COUNTERS_H

#include <stddef.h>

#include "export/expo.h"
#include "util/error.h"

enum counter_type {
	COUNTER_GAUGE,
	COUNTER_COUNTER,
	COUNTER_LABEL
};

struct counters;

/*
 * Parses buf[0..len) (name is for messages).  Returns 0 with *out set (free
 * with counters_free()), or -1 with *err located and *out NULL.
 */
int counters_parse(const char *buf, size_t len, const char *name, struct counters **out, struct diag *err);
/* Reads and parses a file; as counters_parse(). */
int counters_load(const char *path, struct counters **out, struct diag *err);
void counters_free(struct counters *c);

/*
 * Is `name` (a dcgm or native metric name, or a label field) selected?
 * Returns 1 with its type and help (NULL when the file gave none; the
 * strings live as long as c), else 0.
 */
int counters_find(const struct counters *c, const char *name, enum counter_type *type, const char **help);
/* Lines read into the selection. */
size_t counters_count(const struct counters *c);
/* The fields that were skipped (known to DCGM, not served): n, and their names. */
size_t counters_skipped(const struct counters *c, size_t i, const char **name, int *line);

#endif
