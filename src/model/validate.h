/*
 * Validation: published measurements ("cases", in the format of
 * docs/model.md "Case format") run through the same resolver and model as
 * estimate, each with its error (predicted - measured) / measured, and the
 * summaries of the absolute errors by metric, group of metrics, class and
 * set.  A case the model cannot express is skipped with its reason and
 * counts against coverage, not accuracy.
 *
 * Nothing here prints: `gpuscope validate` writes the result through its
 * field tables (src/view/validate.h).
 */
#ifndef GPUSCOPE_MODEL_VALIDATE_H
#define GPUSCOPE_MODEL_VALIDATE_H

#include <stddef.h>

#include "catalog/catalog.h"
#include "report/field.h"
#include "util/error.h"

/* One case and its prediction; strings owned by the validate_result. */
struct validate_case {
	char *id;         /* the id column, "?" when empty */
	char *model;      /* a preset, transformer, or a microbenchmark */
	char *metric;     /* what was measured; its name carries the unit */
	char *cls;        /* the class column, "" when absent */
	char *set;        /* the set column ("fit", "holdout"), "" when absent */
	double measured;  /* in the metric's unit; NaN when the value is not a positive number */
	double predicted; /* in the metric's unit; NaN when skipped */
	char *reason;     /* why it was skipped, or a note on the prediction; "" when none */
	/*
	 * The publication the case comes from, as validate_source_key() names it
	 * from the source column; "(none)" when the column is empty or absent.
	 */
	char *source;
	int fitted;           /* 1: in the fit set, or a fitted constant names it (model/fitted.h) */
	int source_in_sample; /* 1: some case of its source is fitted */
	int line;             /* the case's line in its file */
	/* the calibration file whose ceilings timed it (borrowed from model_calibration_of); NULL none */
	const char *calibration;
};

/* What a summary line counts. */
enum validate_scope {
	VALIDATE_METRIC,    /* the cases of one metric */
	VALIDATE_GROUP,     /* of one group: throughput, latency, memory, microbenchmark */
	VALIDATE_CLASS,     /* of one class */
	VALIDATE_CLASS_SET, /* of one class and one set */
	VALIDATE_SET,       /* of one set, all classes (only when the file has classes) */
	VALIDATE_SOURCE,    /* of one source */
	VALIDATE_SAMPLE,    /* of the sources in sample ("in"), or of those out of sample ("out") */
	VALIDATE_ALL,       /* every case */
};

/* Absolute errors over the cases of one scope. */
struct validate_stats {
	enum validate_scope scope;
	const char *name;        /* the metric, group or class; the set for VALIDATE_SET; NULL for ALL */
	const char *set;         /* VALIDATE_CLASS_SET: "fit" or "holdout"; else NULL */
	size_t cases;            /* cases given */
	size_t predicted;        /* of them predicted */
	size_t within_20pct;     /* predictions within 20 % of the measurement */
	double median_abs_error; /* fraction; NaN when none was predicted */
	double worst_abs_error;  /* fraction; NaN when none was predicted */
	const char *worst_id;    /* the case of the worst error; NULL when none was predicted */
	int in_sample;           /* VALIDATE_SOURCE: 1 when some case of the source is fitted; else -1 */
};

struct validate_result {
	struct validate_case *cases; /* in file order */
	size_t ncases;
	/*
	 * The summary in report order: each metric, then each group, then per
	 * class (file order) the class followed by its fit and holdout sets,
	 * then the fit and holdout sets of all classes, then each source (file
	 * order) and the in- and out-of-sample sources when any case names its
	 * source, and last VALIDATE_ALL.  Only scopes with cases appear, except
	 * ALL, which always does.
	 */
	struct validate_stats *stats;
	size_t nstats;
};

/* Which rows of the file to take: NULL takes every value. */
struct validate_filter {
	const char *metric; /* only cases of this metric */
	const char *set;    /* only cases whose set column is this */
	/* only cases it returns 1 for (before they are predicted); NULL takes every one */
	int (*take)(const char *id, const char *set, const char *source, void *ctx);
	void *ctx;
	/*
	 * An engine table in place of data/serve/engines.csv for the simulated
	 * serving cases (its text, borrowed; engines_name for messages), or NULL.
	 */
	const char *engines, *engines_name;
	size_t engines_len;
};

/*
 * Reads the cases in data[0..len) (CSV with a header line; '#' lines are
 * comments; `file` names it in messages), predicts each with the catalog's
 * hardware and summarises the errors.  Returns the result, which the caller
 * frees with validate_result_free(), or NULL with err (file:line:col) when
 * the file is not a case file: a CSV syntax error, no header line, or a
 * header without id, model, metric or value.  Cases the model cannot
 * express are not errors: they carry their reason.
 */
struct validate_result *validate_run(const struct catalog *cat, const char *file, const char *data, size_t len,
				     const struct validate_filter *filter, struct diag *err);
void validate_result_free(struct validate_result *r);

/*
 * Leave one source out.  For each source of the file with at least
 * min_cases cases: every fitted constant that saw a case of it and is a
 * runtime value (model/fitted.h) is refitted, one after another, on the
 * cases it was fitted on less that source's (the value with the lowest
 * median absolute error over its range; its prior when none is left), and
 * the source is predicted with them.  The constants are their defaults
 * again on return.  NULL with err when the file is not a case file.
 */
struct validate_refit_source {
	const char *source;     /* borrowed from the validate_refit's cases */
	size_t cases;           /* the source's cases */
	size_t predicted;       /* of them predicted with the shipped constants */
	double shipped_median;  /* median |error| with the shipped constants; NaN when none predicted */
	double left_out_median; /* ... with the constants refitted without the source */
	size_t constants;       /* fitted constants that saw a case of the source */
	size_t refit;           /* of them refitted (the others are catalog or table rows) */
	size_t at_prior;        /* of those, left with no case to fit on: at their prior */
};
struct validate_refit {
	struct validate_refit_source *rows; /* in file order of the sources */
	size_t nrows;
	struct validate_result *cases; /* every case with the shipped constants; owns the names */
};
struct validate_refit *validate_refit(const struct catalog *cat, const char *file, const char *data, size_t len,
				      size_t min_cases, struct diag *err);
void validate_refit_free(struct validate_refit *r);
const struct report_schema *validate_refit_schema(void);
void validate_refit_row(const struct validate_refit_source *r, struct report_row *row);

/* (predicted - measured) / measured; NaN when the case was skipped. */
double validate_error(const struct validate_case *c);

/*
 * The field tables: a case ("validate-case", the objects of --json's
 * "cases" and the columns of --csv), one summary line ("validate-stats",
 * the objects under "summary" by metric, group, class and set) and the
 * totals ("validate-summary", the fields of "summary" itself).  The
 * schemas are static; a row is filled for one case or line, borrowing its
 * strings from the result.
 */
const struct report_schema *validate_case_schema(void);
const struct report_schema *validate_stats_schema(void);
const struct report_schema *validate_summary_schema(void);
const struct report_schema *validate_source_schema(void);
void validate_case_row(const struct validate_case *c, struct report_row *row);
void validate_stats_row(const struct validate_stats *s, struct report_row *row);
void validate_summary_row(const struct validate_stats *all, struct report_row *row);
void validate_source_row(const struct validate_stats *s, struct report_row *row);

/*
 * The publication a source cell names, into out (reset first): its GitHub
 * repository when it starts with one ("owner/name ..."), else the text
 * before the first '(', ',' or ';' ("Narayanan et al. 2021 (arXiv ...)
 * Table 1" is "Narayanan et al. 2021"); "(none)" when empty.  Cases of
 * one publication are one source however their tables are cited.
 */
struct strbuf;
void validate_source_key(const char *cell, struct strbuf *out);

#endif
