/*
 * What `gpuscope plan` writes: the answer for a person (the title and
 * search line, the ranked table, the Pareto front and the explanation of
 * the first choice, or why nothing was ranked), the --json document and the
 * --csv rows, both from plan's field tables (plan/fields.h, docs/plan.md),
 * and the HTML report.  Nothing here exits; the report returns errors.
 *
 * ex is the explanation of plan_ranked(p, 0), or NULL when there is none
 * (--no-explain, nothing ranked, or it did not fit).
 */
#ifndef GPUSCOPE_VIEW_PLAN_H
#define GPUSCOPE_VIEW_PLAN_H

#include <stdio.h>

#include "plan/plan.h"
#include "util/error.h"

/* The answer as text, 80 columns. */
/* have: what to add to the servers owned (NULL: none given); so for the JSON and the report */
void view_plan_print(FILE *out, const struct plan *p, const struct plan_explanation *ex,
		     const struct plan_have_answer *have);

struct json_t;
/*
 * The --json document (docs/plan.md); all: with "all", every slot that fits.
 * The caller owns the reference.
 */
struct json_t *view_plan_json(const struct plan *p, const struct plan_explanation *ex,
			      const struct plan_have_answer *have, int all);

/*
 * The --csv rows: a header and one line per ranked choice (all: per slot
 * that fits), or nothing at all when no choice fits.
 */
void view_plan_csv(FILE *out, const struct plan *p, int all);

/* Writes the HTML report to path (plan_report_html()).  Returns 0, or -1 with *err. */
int view_plan_report(const struct plan *p, const struct plan_explanation *ex, const struct plan_have_answer *have,
		     const char *path, struct diag *err);

#endif
