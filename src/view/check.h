/*
 * What `gpuscope check` prints: the table of checks with what to do, the
 * CSV, node_exporter's textfile format, the topology matrix and the
 * runbook walk, and the JSON documents of host/fields.h.  Each function
 * writes to `out` and keeps nothing; none exits.  Text fits 80 columns.
 */
#ifndef GPUSCOPE_VIEW_CHECK_H
#define GPUSCOPE_VIEW_CHECK_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "host/check.h"

/*
 * The header line, the table (all: every check of every GPU; else one row
 * for a run of alike healthy GPUs), what to do for each warning and
 * failure, and the counts.
 */
void view_check_table(FILE *out, const struct check_report *r, int all);
/* id,gpu,status,finding,remedy: one line per check. */
void view_check_csv(FILE *out, const struct check_report *r);
/* node_exporter's textfile collector format; now: when the check ran. */
void view_check_prom(FILE *out, const struct check_report *r, time_t now);
/* check topo: the matrix in blocks of 14 columns, the devices, the legend, the findings. */
void view_check_topo(FILE *out, const struct check_topo *t);
/* check --symptom: the steps in order; workload: the estimate's text or NULL. */
void view_check_runbook(FILE *out, const char *symptom, const char *workload, const struct check_step *steps,
			size_t n);

struct json_t;
/* Prints a document of host/fields.h, indented, and drops the reference to it. */
void view_check_json(FILE *out, struct json_t *doc);

#endif
