/*
 * The output of `gpuscope validate`: the cases and the summary of their
 * errors (model/validate.h) as a person reads them, as CSV and as JSON,
 * written from the result's field tables.
 */
#ifndef GPUSCOPE_VIEW_VALIDATE_H
#define GPUSCOPE_VIEW_VALIDATE_H

#include <stdio.h>

#include "model/validate.h"

struct json_t;

/*
 * The case table (id, metric, measured, predicted, error in %, note), then
 * the summary table of absolute errors in %: each metric, each group, each
 * class by set, each set, and all cases.
 */
void view_validate_print(FILE *out, const struct validate_result *r);

/* The cases as CSV: id,metric,measured,predicted,error,model,reason. */
void view_validate_csv(FILE *out, const struct validate_result *r);

/*
 * {"cases": [...], "summary": {totals, "metrics": {...}, "groups": {...},
 * and when the file has classes "classes": {CLASS: {... "fit", "holdout"}},
 * "sets": {...}}}.  A new reference the caller owns (json_decref()).
 */
struct json_t *view_validate_json(const struct validate_result *r);

#endif
