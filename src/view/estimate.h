/*
 * What `gpuscope estimate` writes: the answer for a person (the resolved
 * layout, memory and step-time breakdowns, inference or serving latencies,
 * queueing at a rate, throughput, what bounds it and what would help) and
 * the --json document, both from the estimate's field tables
 * (model/fields.h, docs/estimate.md).  Nothing here exits.
 */
#ifndef GPUSCOPE_VIEW_ESTIMATE_H
#define GPUSCOPE_VIEW_ESTIMATE_H

#include <stdio.h>

#include "model/fields.h"

/* The built-in workload presets as a table (--list-models). */
void view_estimate_presets(FILE *out);

/* The answer as text, 80 columns. */
void view_estimate_print(FILE *out, const struct model_answer *a);

struct json_t;
/* The --json document, one object per schema of model/fields.h; the caller owns the reference. */
struct json_t *view_estimate_json(const struct model_answer *a);

/*
 * --report with --arrivals: a self-contained HTML page of the simulated run
 * and its latency against load (TTFT and TPOT p50 and p99 at the n points of
 * servesim_curve), drawn with the tree's SVG charts.  0, or -1 with err
 * (nothing written).
 */
int view_estimate_report(const struct model_answer *a, const struct servesim_point *pts, int n, const char *path,
			 struct diag *err);

#endif
