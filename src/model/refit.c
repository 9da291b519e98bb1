/*
 * Leave one source out (validate_refit, model/validate.h): what the model
 * would have predicted for a publication had its fitted constants never
 * seen it.  docs/validation.md gives the method and the figures.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/fitted.h"
#include "model/tune.h"
#include "model/validate.h"
#include "report/field.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* grid points over a constant's range, then again over two steps around the best */
#define REFIT_GRID 21

struct refit_ctx {
	const struct fitted_const *k; /* take the cases this constant was fitted on ... */
	const char *source;           /* ... less this source's; or with k NULL, this source's alone */
};

static int take(const char *id, const char *set, const char *source, void *ctx)
{
	const struct refit_ctx *x = ctx;
	if (!x->k)
		return !strcmp(source, x->source);
	return strcmp(source, x->source) && fitted_pattern_match(x->k->cases, id, set);
}

struct refit_input {
	const struct catalog *cat;
	const char *file, *data;
	size_t len;
};

/* The median |error| of the cases ctx takes with the constants as they are now; NaN when none. */
static double median_of(const struct refit_input *in, struct refit_ctx *x, size_t *ncases, size_t *npred)
{
	struct validate_filter f = {NULL, NULL, take, x, NULL, NULL, 0};
	struct validate_result *r;
	struct diag err;
	double m;

	diag_clear(&err);
	r = validate_run(in->cat, in->file, in->data, in->len, &f, &err);
	if (!r)
		return NAN;
	m = r->stats[r->nstats - 1].median_abs_error;
	if (ncases)
		*ncases = r->ncases;
	if (npred)
		*npred = r->stats[r->nstats - 1].predicted;
	validate_result_free(r);
	return m;
}

/* Sets constant k to the value of [lo, hi] with the lowest median over its cases less the source's. */
static int refit_one(const struct refit_input *in, const struct fitted_const *k, const char *source)
{
	struct refit_ctx x = {k, source};
	double lo = k->lo, hi = k->hi, best = NAN, best_v = k->prior;
	size_t n = 0, pass, i;

	for (pass = 0; pass < 2; pass++) {
		double step = (hi - lo) / (REFIT_GRID - 1);
		for (i = 0; i < REFIT_GRID; i++) {
			double v = lo + step * (double)i, m;
			fitted_set(k, v);
			m = median_of(in, &x, &n, NULL);
			if (!n)
				break;
			if (!isnan(m) && (isnan(best) || m < best)) {
				best = m;
				best_v = v;
			}
		}
		if (!n)
			break;
		lo = fmax(k->lo, best_v - 2 * step);
		hi = fmin(k->hi, best_v + 2 * step);
	}
	fitted_set(k, isnan(best) ? k->prior : best_v);
	return isnan(best);
}

/* Each source of the file in file order, with at least min cases. */
static void sources_of(const struct validate_result *r, size_t min, struct validate_refit *out)
{
	size_t i, cap = 0;
	for (i = 0; i < r->nstats; i++) {
		const struct validate_stats *s = &r->stats[i];
		if (s->scope != VALIDATE_SOURCE || s->cases < min)
			continue;
		XGROW(out->rows, cap, out->nrows + 1);
		memset(&out->rows[out->nrows], 0, sizeof(out->rows[0]));
		out->rows[out->nrows].source = s->name;
		out->rows[out->nrows].cases = s->cases;
		out->rows[out->nrows].predicted = s->predicted;
		out->rows[out->nrows++].shipped_median = s->median_abs_error;
	}
}

/* 1 when constant k was fitted on a case of source in r. */
static int saw(const struct validate_result *r, const struct fitted_const *k, const char *source)
{
	size_t i;
	for (i = 0; i < r->ncases; i++)
		if (!strcmp(r->cases[i].source, source) &&
		    fitted_pattern_match(k->cases, r->cases[i].id, r->cases[i].set))
			return 1;
	return 0;
}

struct validate_refit *validate_refit(const struct catalog *cat, const char *file, const char *data, size_t len,
				      size_t min_cases, struct diag *err)
{
	const struct refit_input in = {cat, file, data, len};
	struct validate_refit *out;
	struct validate_result *all = validate_run(cat, file, data, len, NULL, err);
	const struct fitted_const *k;
	size_t nk, i, j;

	if (!all)
		return NULL;
	out = xcalloc(1, sizeof(*out));
	sources_of(all, min_cases, out);
	k = fitted_consts(&nk);
	for (i = 0; i < out->nrows; i++) {
		struct validate_refit_source *row = &out->rows[i];
		struct refit_ctx only = {NULL, row->source};
		for (j = 0; j < nk; j++) {
			if (!saw(all, &k[j], row->source))
				continue;
			row->constants++;
			if (!fitted_refittable(&k[j]))
				continue;
			row->refit++;
			row->at_prior += (size_t)refit_one(&in, &k[j], row->source);
		}
		row->left_out_median = row->refit ? median_of(&in, &only, NULL, NULL) : row->shipped_median;
		fitted_reset();
	}
	out->cases = all;
	return out;
}

void validate_refit_free(struct validate_refit *r)
{
	if (r)
		validate_result_free(r->cases);
	free(r ? r->rows : NULL);
	free(r);
}

#define REFIT_FIELDS(F) \
	F(source, TEXT, NULL, "the publication, as validate names it from the source column", r->source) \
	F(cases, INT, NULL, "the source's cases", (double)r->cases) \
	F(predicted, INT, NULL, "of them predicted", (double)r->predicted) \
	F(shipped_median, NUM, "fraction", "median absolute error with the constants as shipped", \
	  r->shipped_median) \
	F(left_out_median, NUM, "fraction", \
	  "median absolute error with the constants that saw the source refitted without it", r->left_out_median) \
	F(constants, INT, NULL, "fitted constants that saw a case of the source", (double)r->constants) \
	F(refit, INT, NULL, "of them refitted (the others are catalog or table rows, left as shipped)", \
	  (double)r->refit) \
	F(at_prior, INT, NULL, "of those, left no case to fit on and set to their prior", (double)r->at_prior)

/* clang-format off */
REPORT_DEFINE(validate_refit_schema, validate_refit_row, "validate-refit", struct validate_refit_source, r,
	      REFIT_FIELDS)
/* clang-format on */
