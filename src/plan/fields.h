/*
 * The fields of plan's results, each declared once (report/field.h): one
 * schema per JSON object of `gpuscope plan --json`, in the order of its
 * keys, with the unit and meaning docs/plan.md lists; the choice schema is
 * also the CSV's columns.  Pure data and the functions that fill a row;
 * nothing here prints.
 *
 * The schemas are static.  A row filled here borrows strings from the plan
 * (or the explanation) and owns the ones it formats (report_scratch()), so
 * it is valid while the plan lives and until it is cleared or refilled.
 */
#ifndef GPUSCOPE_PLAN_FIELDS_H
#define GPUSCOPE_PLAN_FIELDS_H

#include "plan/plan.h"
#include "report/field.h"
#include "report/fmt.h"

/*
 * "plan": one choice, flat: each object of "ranked", "front", "all" and
 * "nearest_miss" (which add its "bom", cost/bom.h) and each CSV row.
 */
const struct report_schema *plan_choice_schema(void);
void plan_choice_row(const struct plan *p, const struct plan_choice *c, struct report_row *row);
/* Place of c in plan_ranked(), 1-based; 0 when it is not ranked. */
long plan_rank_of(const struct plan *p, const struct plan_choice *c);

/*
 * The JSON's header objects: "plan-workload", "plan-request" (the JSON adds
 * the lists "precisions" and "gpus" after max_gpus) and "plan-search" (adds
 * "fabrics" after hardware_options).
 */
const struct report_schema *plan_workload_schema(void);
void plan_workload_row(const struct plan *p, struct report_row *row);
const struct report_schema *plan_request_schema(void);
void plan_request_row(const struct plan *p, struct report_row *row);
const struct report_schema *plan_search_schema(void);
void plan_search_row(const struct plan *p, struct report_row *row);

/* "plan-closest-fit": c is plan_closest_fit(p). */
const struct report_schema *plan_closest_fit_schema(void);
void plan_closest_fit_row(const struct plan *p, const struct plan_choice *c, struct report_row *row);

/*
 * The explanation: "plan-explanation" (the JSON adds the lists
 * "alternatives" and "optimisations" at its end), and their items,
 * "plan-alternative" and "plan-optimisation".
 */
const struct report_schema *plan_explanation_schema(void);
void plan_explanation_row(const struct plan_explanation *ex, struct report_row *row);
const struct report_schema *plan_alternative_schema(void);
void plan_alternative_row(const struct plan_note *n, struct report_row *row);
const struct report_schema *plan_optimisation_schema(void);
void plan_optimisation_row(const struct model_advice *a, struct report_row *row);

const struct report_schema *plan_add_schema(void);
void plan_add_row(const struct plan_add *a, struct report_row *row);
const struct report_schema *plan_have_schema(void);
void plan_have_row(const struct plan_have_answer *h, struct report_row *row);
/* The plan-add fields a table of the options shows, in order (human table and HTML). */
#define PLAN_ADD_NCOLUMNS 8
extern const char *const plan_add_columns[PLAN_ADD_NCOLUMNS];
extern const char *const plan_add_headings[PLAN_ADD_NCOLUMNS]; /* their table headings */
/* The cells of option a's table row, plan_add_columns as report_value_text() writes them; row: plan_add_schema(). */
void plan_add_cells(const struct plan_add *a, struct report_row *row, char cells[PLAN_ADD_NCOLUMNS][FMT_LEN]);

#endif
