/*
 * What `gpuscope tco` writes: the account in text (every term a formula
 * with its numbers, results aligned, 80 columns), the JSON document of
 * cost/fields.h, and the HTML report with its charts.  The same account
 * lines feed all three.  None of these exits; the report returns errors.
 */
#ifndef GPUSCOPE_VIEW_TCO_H
#define GPUSCOPE_VIEW_TCO_H

#include <stdio.h>

#include "catalog/catalog.h"
#include "cost/bom.h"
#include "cost/cost.h"
#include "util/error.h"

/* One computed account and what it was computed from; everything borrowed. */
struct view_tco {
	const struct catalog *cat;
	const struct tco_inputs *in;
	const struct tco_result *r;
	const struct bom *bill; /* the bill of materials of the servers owned; NULL without one */
	const char *notes;      /* lines for the reader, each ending in '\n'; "" when none */
};

/* The whole account for a person: inputs, terms, verdict, flip points, grid. */
void view_tco_print(FILE *out, const struct view_tco *v);

struct json_t;
/* The tco --json document (docs/tco.md); the caller owns the reference. */
struct json_t *view_tco_json(const struct view_tco *v);

/*
 * Writes the self-contained HTML report to path (through path.tmp, so an
 * error never leaves a partial file).  Returns 0, or -1 with *err.
 */
int view_tco_report(const struct view_tco *v, const char *path, struct diag *err);

/*
 * tco --have: keeping servers already owned a year (no capex) against
 * renting the same GPUs at each price tier of the instance in names (none:
 * the keeping alone); everything borrowed.
 */
struct view_tco_keep {
	const struct tco_inputs *in; /* the owned servers, the instance and the tier named */
	const struct tco_keep *k;
	const char *notes; /* lines for the reader, each ending in '\n'; "" when none */
};
void view_tco_keep_print(FILE *out, const struct view_tco_keep *v);
/* {"keep": tco-keep, "cloud": instance and tier, "tiers": [tco-keep-tier], "verdict", "notes"} */
struct json_t *view_tco_keep_json(const struct view_tco_keep *v);

#endif
