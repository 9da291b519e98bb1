/*
 * The output of `gpuscope validate`: the cases and the summary of their
 * errors (model/validate.h) as a person reads them, as CSV and as JSON,
 * written from the result's field tables.
 */
#ifndef GPUSCOPE_VIEW_VALIDATE_H
#define GPUSCOPE_VIEW_VALIDATE_H

#include <stdio.h>

#include "model/validate.h"
#include "report/table.h"

struct json_t;

/*
 * The case table (id, metric, measured, predicted, error in %, note), then
 * the summary table of absolute errors in %: each metric, each group, each
 * class by set, each set, and all cases.
 */
void view_validate_print(FILE *out, const struct validate_result *r);

/*
 * The errors by source (--by-source): each source with "in" (a fitted
 * constant saw a case of it) or "out", its coverage, median, share within
 * 20 %, worst; then the in- and out-of-sample totals.  csv: the source
 * fields as CSV, fractions kept.
 */
void view_validate_sources(FILE *out, const struct validate_result *r, int csv);

/* The fitted constants (model/fitted.h): name, file, cases; as a table, CSV or JSON. */
void view_validate_fitted(FILE *out, enum output_format fmt);

/* Leave one source out (validate --refit): one line per source, as a table, CSV or JSON. */
void view_validate_refit(FILE *out, const struct validate_refit *r, enum output_format fmt);

/* The cases as CSV: id,metric,measured,predicted,error,model,reason. */
void view_validate_csv(FILE *out, const struct validate_result *r);

/*
 * {"cases": [...], "summary": {totals, "metrics": {...}, "groups": {...},
 * and when the file has classes "classes": {CLASS: {... "fit", "holdout"}},
 * "sets": {...}, and when cases name their source "sources": {SOURCE: {...
 * "in_sample"}} and "samples": {"in": {...}, "out": {...}}}}.  A new reference the caller owns (json_decref()).
 */
struct json_t *view_validate_json(const struct validate_result *r);

#endif
