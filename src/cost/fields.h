/*
 * The fields of `gpuscope tco`'s result, declared once with report/field.h:
 * tco --json and the field lists of docs/tco.md are written from these
 * tables.  One schema per JSON object; view/tco.c nests the objects as the
 * JSON has always been laid out (docs/tco.md):
 *
 *   { tco..., "inputs": {flag: tco_input}, "owned": tco_owned, "bom": ...,
 *     "cloud": tco_cloud, tco_compare..., "flips": {flag: tco_flip},
 *     "sensitivity": [tco_sensitivity], "tiers": [tco_tier], "arithmetic", "verdict", "notes" }
 *
 * Money is USD, power kW, energy kWh, percentages 0-100 ("%"); a value
 * that does not exist (no peak at a precision, never breaking even) is
 * JSON null.
 *
 * Ownership: the rows borrow the strings of the inputs and the catalog
 * (report_set_text()), which must outlive the row's use.
 */
#ifndef GPUSCOPE_COST_FIELDS_H
#define GPUSCOPE_COST_FIELDS_H

#include "cost/cost.h"
#include "report/field.h"

/* The top of tco --json: what is owned and how the account is kept. */
const struct report_schema *tco_schema(void);
/* inputs.FLAG: one input's value, unit, source and, for a facility default, its citation */
const struct report_schema *tco_input_schema(void);
/* owned: every term of owning */
const struct report_schema *tco_owned_schema(void);
/* cloud: the instance compared with and the cost of renting (absent without one) */
const struct report_schema *tco_cloud_schema(void);
/* after cloud, at the top: owning against renting (absent without a cloud) */
const struct report_schema *tco_compare_schema(void);
/* flips.FLAG: the value of one input at which the decision flips */
const struct report_schema *tco_flip_schema(void);
/* sensitivity[]: the savings at one utilisation and electricity price */
const struct report_schema *tco_sensitivity_schema(void);
/* tiers[]: owning against one price tier of the instance (absent without a cloud) */
const struct report_schema *tco_tier_schema(void);

/* tco --have: keeping servers already owned a year (struct tco_keep) */
const struct report_schema *tco_keep_schema(void);
/* tco --have, tiers[]: keeping them against one price tier of the instance */
const struct report_schema *tco_keep_tier_schema(void);

void tco_row(const struct tco_inputs *in, struct report_row *row);
/* The citation field is left unset (null) where the input has none. */
void tco_input_row(const struct catalog *cat, const struct tco_inputs *in, enum tco_input id,
		   struct report_row *row);
void tco_owned_row(const struct tco_inputs *in, const struct tco_result *r, struct report_row *row);
void tco_cloud_row(const struct tco_inputs *in, const struct tco_result *r, struct report_row *row);
void tco_compare_row(const struct tco_result *r, struct report_row *row);
void tco_flip_row(const struct tco_inputs *in, const struct tco_result *r, enum tco_input id,
		  struct report_row *row);
void tco_sensitivity_row(const struct tco_point *p, struct report_row *row);
void tco_tier_row(const struct tco_tier_result *t, struct report_row *row);
void tco_keep_row(const struct tco_keep *k, struct report_row *row);
void tco_keep_tier_row(const struct tco_keep_tier *t, struct report_row *row);

#endif
