/*
 * What each fitted constant of the model was fitted on.  A constant whose
 * value was chosen to match published measurements names the cases it was
 * set against, so that `gpuscope validate` can say which sources are in
 * sample (some constant saw a case of theirs) and report their errors apart
 * from the sources no constant saw.  The list is data, not comments: a test
 * (tests/cli/23-validate-sources.sh) fails when a constant whose comment
 * says it was fitted has no entry here, or when an entry names no case of
 * the shipped case files.
 */
#ifndef GPUSCOPE_MODEL_FITTED_H
#define GPUSCOPE_MODEL_FITTED_H

#include <stddef.h>

struct fitted_const {
	const char *name;  /* the constant (a TUNE_* macro) or the catalog row it sets */
	const char *where; /* the source file that holds it, from the top of the tree */
	/*
	 * The cases it was fitted on, space-separated patterns on the case id:
	 * an id ("S6-001"), a glob ("S1-*"), a range of numbers ("S1-011..016"),
	 * each optionally followed by ":fit", which takes only the rows of the
	 * file's fit set.
	 */
	const char *cases;
	/*
	 * What `validate --refit` may do with it: its slot in tune_fitted[]
	 * (model/tune.h), or -1 when it is not a runtime value (a catalog row,
	 * a constant in a static table); the range it searches; and the prior,
	 * the value taken when leaving a source out leaves the constant no case
	 * to fit on (what one would pick without these measurements).
	 */
	int tune;
	/*
	 * or a field of a run-time table, "ROWS FIELD", NULL when none: where
	 * `where` is src/model/vendor.c, "ARCH[,ARCH...] FIELD" of its rows
	 * ("*": every row); where it is data/quant/kernels.csv, "KERNEL[,KERNEL...]
	 * COLUMN" of that file's rows (model/quant.h).
	 */
	const char *table;
	double lo, hi, prior;
};

/* 1 when `validate --refit` can set k (a tune_fitted[] slot or a table field). */
int fitted_refittable(const struct fitted_const *k);
/* Sets k's run-time value(s) to v; -1 when k is not refittable. */
int fitted_set(const struct fitted_const *k, double v);
/* Every refittable constant back to its shipped value. */
void fitted_reset(void);

/* The fitted constants, in a static table: *n gets their count. */
const struct fitted_const *fitted_consts(size_t *n);

/*
 * 1 when one pattern of `cases` (the fitted_const syntax) takes the case
 * with this id and set column ("" when the file has none), else 0.
 */
int fitted_pattern_match(const char *cases, const char *id, const char *set);

/* The first constant fitted on the case (id, set), or NULL when none was. */
const struct fitted_const *fitted_on(const char *id, const char *set);

/* The fields of one fitted constant (name, where, cases), declared once. */
struct report_schema;
struct report_row;
const struct report_schema *fitted_schema(void);
void fitted_row(const struct fitted_const *f, struct report_row *row);

#endif
