/*
 * Validation cases: a file's rows become cases with their predictions or
 * skip reasons, a bad file is an error at its line and column, the summary
 * lists every metric, group, class and set that has cases, and the field
 * tables write the JSON keys `gpuscope validate --json` has always had.
 * Sources: one publication is one source however its tables are cited, and
 * a source is in sample when a fitted constant saw one of its cases.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "model/engine.h"
#include "model/fitted.h"
#include "model/quant.h"
#include "model/tune.h"
#include "model/vendor.h"
#include "model/validate.h"
#include "report/field.h"
#include "util/strbuf.h"

static struct catalog *cat;

static int setup(void **state)
{
	struct diag err;
	(void)state;
	diag_clear(&err);
	return catalog_load(&cat, NULL, &err);
}

static int teardown(void **state)
{
	(void)state;
	catalog_free(cat);
	return 0;
}

static struct validate_result *run(const char *csv, const struct validate_filter *f, struct diag *err)
{
	diag_clear(err);
	return validate_run(cat, "t.csv", csv, strlen(csv), f, err);
}

static const struct validate_case *find_case(const struct validate_result *r, const char *id)
{
	size_t i;
	for (i = 0; i < r->ncases; i++)
		if (!strcmp(r->cases[i].id, id))
			return &r->cases[i];
	fail_msg("no case %s", id);
	return NULL;
}

static const struct validate_stats *find_stats(const struct validate_result *r, enum validate_scope scope,
					       const char *name, const char *set)
{
	size_t i;
	for (i = 0; i < r->nstats; i++) {
		const struct validate_stats *s = &r->stats[i];
		if (s->scope == scope && (!name || !strcmp(s->name, name)) && (!set || !strcmp(s->set, set)))
			return s;
	}
	return NULL;
}

static const char cases_csv[] =
	"# a comment line\n"
	"id,model,task,gpu,gpus,tp,pp,global_batch,micro_batch,precision,metric,value,class,set\n"
	"G1,gemm,bench,h100-sxm5-80gb,1,,,,,bf16,gemm_tflops,700,micro,fit\n"
	"H1,hbm-stream,bench,h100-sxm5-80gb,1,,,,,,hbm_gbps,3000,micro,holdout\n"
	"T1,llama2-7b,pretrain,h100-sxm5-80gb,8,1,1,64,1,bf16,tokens_per_s,20000,train,fit\n"
	"T2,llama2-7b,pretrain,h100-sxm5-80gb,8,1,1,64,1,bf16,bogus_metric,1,train,holdout\n"
	"T3,llama2-7b,pretrain,h100-sxm5-80gb,8,1,1,64,1,bf16,tokens_per_s,abc,train,fit\n"
	",llama9-1t,pretrain,h100-sxm5-80gb,8,1,1,64,1,bf16,tokens_per_s,100,,\n";

static void test_cases_and_reasons(void **state)
{
	struct diag err;
	struct validate_result *r = run(cases_csv, NULL, &err);
	const struct validate_case *c;
	(void)state;
	assert_non_null(r);
	assert_int_equal(r->ncases, 6);

	c = find_case(r, "G1");
	assert_true(isfinite(c->predicted) && c->predicted > 100);
	assert_string_equal(c->reason, "");
	assert_int_equal(c->line, 3);
	assert_true(fabs(validate_error(c) - (c->predicted - 700) / 700) < 1e-12);
	assert_true(isfinite(find_case(r, "T1")->predicted));

	c = find_case(r, "T2");
	assert_true(isnan(c->predicted) && isnan(validate_error(c)));
	assert_string_equal(c->reason, "unknown metric 'bogus_metric'");
	c = find_case(r, "T3");
	assert_true(isnan(c->measured));
	assert_non_null(strstr(c->reason, "line 7: value: "));
	/* an empty id is "?"; an unknown preset is a reason, not an error */
	c = find_case(r, "?");
	assert_non_null(strstr(c->reason, "llama9-1t"));
	assert_string_equal(c->cls, "");
	validate_result_free(r);
}

static void test_summary(void **state)
{
	struct diag err;
	struct validate_result *r = run(cases_csv, NULL, &err);
	const struct validate_stats *s, *all;
	size_t i;
	(void)state;
	assert_non_null(r);
	all = &r->stats[r->nstats - 1];
	assert_int_equal(all->scope, VALIDATE_ALL);
	assert_int_equal(all->cases, 6);
	assert_int_equal(all->predicted, 3);
	/* only scopes with cases: no latency or memory group */
	assert_null(find_stats(r, VALIDATE_GROUP, "latency", NULL));
	s = find_stats(r, VALIDATE_GROUP, "microbenchmark", NULL);
	assert_non_null(s);
	assert_int_equal(s->cases, 2);
	assert_int_equal(s->predicted, 2);
	s = find_stats(r, VALIDATE_METRIC, "tokens_per_s", NULL);
	assert_int_equal(s->cases, 3);
	assert_int_equal(s->predicted, 1);
	assert_string_equal(s->worst_id, "T1");
	assert_true(s->median_abs_error == s->worst_abs_error);
	/* classes in file order, each followed by its sets */
	s = find_stats(r, VALIDATE_CLASS, "micro", NULL);
	assert_true(s == find_stats(r, VALIDATE_CLASS, NULL, NULL));
	assert_int_equal(s[1].scope, VALIDATE_CLASS_SET);
	assert_string_equal(s[1].set, "fit");
	assert_string_equal(s[2].set, "holdout");
	s = find_stats(r, VALIDATE_CLASS_SET, "train", "holdout");
	assert_int_equal(s->cases, 1);
	assert_int_equal(s->predicted, 0);
	assert_true(isnan(s->median_abs_error));
	assert_null(s->worst_id);
	s = find_stats(r, VALIDATE_SET, "fit", NULL);
	assert_int_equal(s->cases, 3);
	/* report order: metrics, groups, classes, sets, all */
	for (i = 1; i < r->nstats; i++)
		assert_true(r->stats[i - 1].scope <= r->stats[i].scope ||
			    (r->stats[i - 1].scope == VALIDATE_CLASS_SET && r->stats[i].scope == VALIDATE_CLASS));
	validate_result_free(r);
}

static void test_median_and_within(void **state)
{
	/* four GEMM cases: errors known from one prediction, median of an even count */
	struct diag err;
	struct validate_result *r =
		run("id,model,gpu,precision,metric,value\n"
		    "A,gemm,h100-sxm5-80gb,bf16,gemm_tflops,1\n",
		    NULL, &err);
	double p;
	struct strbuf sb = STRBUF_INIT;
	const struct validate_stats *s;
	(void)state;
	assert_non_null(r);
	p = r->cases[0].predicted;
	validate_result_free(r);
	strbuf_addstr(&sb, "id,model,gpu,precision,metric,value\n");
	/* errors +10 %, -30 %, +50 %, 0 %: median 20 %, half within 20 %, worst C */
	strbuf_addf(&sb, "A,gemm,h100-sxm5-80gb,bf16,gemm_tflops,%.17g\n", p / 1.1);
	strbuf_addf(&sb, "B,gemm,h100-sxm5-80gb,bf16,gemm_tflops,%.17g\n", p / 0.7);
	strbuf_addf(&sb, "C,gemm,h100-sxm5-80gb,bf16,gemm_tflops,%.17g\n", p / 1.5);
	strbuf_addf(&sb, "D,gemm,h100-sxm5-80gb,bf16,gemm_tflops,%.17g\n", p);
	r = run(strbuf_str(&sb), NULL, &err);
	assert_non_null(r);
	s = find_stats(r, VALIDATE_METRIC, "gemm_tflops", NULL);
	assert_int_equal(s->predicted, 4);
	assert_true(fabs(s->median_abs_error - 0.2) < 1e-9);
	assert_true(fabs(s->worst_abs_error - 0.5) < 1e-9);
	assert_string_equal(s->worst_id, "C");
	assert_int_equal(s->within_20pct, 2);
	validate_result_free(r);
	strbuf_release(&sb);
}

static void test_filter(void **state)
{
	struct diag err;
	struct validate_filter f = {"tokens_per_s", NULL, NULL, NULL, NULL, NULL, 0};
	struct validate_result *r = run(cases_csv, &f, &err);
	(void)state;
	assert_int_equal(r->ncases, 3);
	validate_result_free(r);
	f.metric = NULL;
	f.set = "holdout";
	r = run(cases_csv, &f, &err);
	assert_int_equal(r->ncases, 2);
	validate_result_free(r);
	f.set = "nope";
	r = run(cases_csv, &f, &err);
	assert_int_equal(r->ncases, 0);
	assert_int_equal(r->nstats, 1);
	validate_result_free(r);
}

static void test_bad_files(void **state)
{
	struct diag err;
	char msg[1024];
	(void)state;
	assert_null(run("# only\n", NULL, &err));
	diag_format(&err, msg, sizeof(msg));
	assert_string_equal(msg, "t.csv: no header line");
	assert_null(run("# c\nid,model,value\nX,llama2-7b,1\n", NULL, &err));
	diag_format(&err, msg, sizeof(msg));
	assert_string_equal(msg,
			    "t.csv:2:1: header lacks the column 'metric' (needed: id, model, metric, value; "
			    "see docs/model.md)");
	assert_null(run("id,model,metric,value\n\"X,llama2-7b,mfu,1\n", NULL, &err));
	assert_string_equal(err.file, "t.csv");
	assert_int_equal(err.line, 2);
}

static void test_every_class(void **state)
{
	/* far more classes than any fixed list held: each one is summarised */
	struct strbuf sb = STRBUF_INIT;
	struct diag err;
	struct validate_result *r;
	char name[32];
	int i;
	(void)state;
	strbuf_addstr(&sb, "id,model,metric,value,class,set\n");
	for (i = 0; i < 50; i++)
		strbuf_addf(&sb, "C%d,llama2-7b,mfu,0.4,class-%d,fit\n", i, i);
	r = run(strbuf_str(&sb), NULL, &err);
	assert_non_null(r);
	for (i = 0; i < 50; i++) {
		snprintf(name, sizeof(name), "class-%d", i);
		assert_non_null(find_stats(r, VALIDATE_CLASS, name, NULL));
		assert_non_null(find_stats(r, VALIDATE_CLASS_SET, name, "fit"));
	}
	validate_result_free(r);
	strbuf_release(&sb);
}

static void test_long_reason(void **state)
{
	/* a reason quoting a long cell is whole, not cut at a buffer's size */
	struct strbuf sb = STRBUF_INIT;
	struct diag err;
	struct validate_result *r;
	int i;
	(void)state;
	strbuf_addstr(&sb, "id,model,metric,value\nL,llama2-7b,");
	for (i = 0; i < 3000; i++)
		strbuf_addch(&sb, 'm');
	strbuf_addstr(&sb, ",1\n");
	r = run(strbuf_str(&sb), NULL, &err);
	assert_non_null(r);
	assert_int_equal(strlen(r->cases[0].reason), strlen("unknown metric ''") + 3000);
	validate_result_free(r);
	strbuf_release(&sb);
}

/* Keys unique, each number with a unit or a count, except the figures in the metric's own unit. */
static void check_schema(const struct report_schema *s)
{
	size_t i, j;
	assert_true(s->nfields > 0);
	for (i = 0; i < s->nfields; i++) {
		const struct report_field *f = &s->fields[i];
		for (j = 0; j < i; j++)
			assert_string_not_equal(f->name, s->fields[j].name);
		assert_non_null(f->help);
		assert_null(strchr(f->help, '|')); /* a markdown table cell */
		if (f->type == REPORT_INT)
			assert_null(f->unit);
		if (f->type == REPORT_NUM && strcmp(f->name, "measured") && strcmp(f->name, "predicted"))
			assert_non_null(f->unit);
	}
}

static void assert_keys(json_t *o, const char *const *keys)
{
	const char *k;
	json_t *v;
	size_t n = 0;
	json_object_foreach(o, k, v)
	{
		assert_non_null(keys[n]);
		assert_string_equal(k, keys[n]);
		n++;
	}
	assert_null(keys[n]);
}

static void test_fields(void **state)
{
	static const char *const case_keys[] = {"id",    "model",  "metric",      "measured", "predicted",
						"error", "reason", "calibration", NULL};
	static const char *const stats_keys[] = {
		"cases",    "predicted", "within_20pct", "coverage", "median_abs_error", "worst_abs_error",
		"worst_id", NULL};
	static const char *const summary_keys[] = {"cases",           "predicted", "coverage", "median_abs_error",
						   "worst_abs_error", NULL};
	struct diag err;
	struct validate_result *r = run(cases_csv, NULL, &err);
	struct report_row *row;
	json_t *o;
	(void)state;
	check_schema(validate_case_schema());
	check_schema(validate_stats_schema());
	check_schema(validate_summary_schema());
	assert_string_equal(validate_case_schema()->name, "validate-case");

	row = report_row_new(validate_case_schema());
	validate_case_row(find_case(r, "T2"), row);
	o = report_row_json(row);
	assert_keys(o, case_keys);
	assert_true(json_is_null(json_object_get(o, "predicted")));
	assert_true(json_is_null(json_object_get(o, "error")));
	json_decref(o);
	/* a case without a reason leaves it unset, which the writer omits */
	validate_case_row(find_case(r, "G1"), row);
	assert_null(report_text(row, (size_t)report_field_index(validate_case_schema(), "reason")));
	/* without a calibration in use, no case names one */
	assert_null(report_text(row, (size_t)report_field_index(validate_case_schema(), "calibration")));
	report_row_free(row);

	row = report_row_new(validate_stats_schema());
	validate_stats_row(find_stats(r, VALIDATE_METRIC, "tokens_per_s", NULL), row);
	o = report_row_json(row);
	assert_keys(o, stats_keys);
	assert_true(json_is_integer(json_object_get(o, "cases")));
	assert_true(fabs(json_real_value(json_object_get(o, "coverage")) - 1.0 / 3) < 1e-12);
	json_decref(o);
	report_row_free(row);

	row = report_row_new(validate_summary_schema());
	validate_summary_row(&r->stats[r->nstats - 1], row);
	o = report_row_json(row);
	assert_keys(o, summary_keys);
	json_decref(o);
	report_row_free(row);
	validate_result_free(r);
}

/* The key of a source cell: a repository, or the text before the first '(', ',' or ';'. */
static void test_source_key(void **state)
{
	static const char *const cases[][2] = {
		{"Narayanan et al. 2021 (arXiv 2104.04473) Table 1, p.8", "Narayanan et al. 2021"},
		{"Narayanan et al. 2021 (arXiv 2104.04473) Table 2", "Narayanan et al. 2021"},
		{"NVIDIA/nccl-tests issue #212 (sjeaugey)", "NVIDIA/nccl-tests"},
		{"  huggingface/transformers. docs", "huggingface/transformers"},
		{"Intel, Model Performance Data", "Intel"},
		{"a/ b", "a/ b"},
		{"", "(none)"},
		{" ; x", "(none)"},
	};
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		validate_source_key(cases[i][0], &sb);
		assert_string_equal(strbuf_str(&sb), cases[i][1]);
	}
	strbuf_release(&sb);
}

/* Patterns: ids, globs, ranges as wide as written, ":fit" for fit-set rows only. */
static void test_fitted_patterns(void **state)
{
	(void)state;
	assert_true(fitted_pattern_match("S6-001", "S6-001", ""));
	assert_false(fitted_pattern_match("S6-001", "S6-0011", ""));
	assert_true(fitted_pattern_match("X S1-*", "S1-999", "holdout"));
	assert_true(fitted_pattern_match("S1-011..016", "S1-011", ""));
	assert_true(fitted_pattern_match("S1-011..016", "S1-016", ""));
	assert_false(fitted_pattern_match("S1-011..016", "S1-017", ""));
	assert_false(fitted_pattern_match("S1-011..016", "S1-10", ""));
	assert_false(fitted_pattern_match("S1-011..016", "S11-012", ""));
	assert_true(fitted_pattern_match("P3-*:fit", "P3-002", "fit"));
	assert_false(fitted_pattern_match("P3-*:fit", "P3-002", "holdout"));
	assert_false(fitted_pattern_match("P3-*:bogus", "P3-002", "fit"));
	assert_false(fitted_pattern_match("", "P3-002", "fit"));
	assert_non_null(fitted_on("S1-012", ""));
	assert_null(fitted_on("Z9-001", "holdout"));
}

/* In sample: a source with a fitted case (by the registry or the fit set); the others out. */
static void test_sources(void **state)
{
	static const char csv[] =
		"id,source,model,task,gpu,gpus,precision,metric,value,set\n"
		"S1-001,\"Narayanan et al. 2021 (arXiv) Table 1\",gemm,bench,h100-sxm5-80gb,1,bf16,gemm_tflops,700,\n"
		"Z9-001,\"Narayanan et al. 2021, Table 9\",gemm,bench,h100-sxm5-80gb,1,bf16,gemm_tflops,650,holdout\n"
		"Z9-002,My lab 2026,gemm,bench,h100-sxm5-80gb,1,bf16,gemm_tflops,600,holdout\n"
		"Z9-003,Other lab,gemm,bench,h100-sxm5-80gb,1,bf16,gemm_tflops,610,fit\n"
		"Z9-004,,gemm,bench,h100-sxm5-80gb,1,bf16,gemm_tflops,620,\n";
	struct diag err;
	struct validate_result *r = run(csv, NULL, &err);
	const struct validate_stats *s;
	(void)state;
	assert_non_null(r);
	assert_int_equal(find_case(r, "S1-001")->fitted, 1);
	assert_int_equal(find_case(r, "Z9-001")->fitted, 0);
	/* held aside, but its source is not blind */
	assert_int_equal(find_case(r, "Z9-001")->source_in_sample, 1);
	assert_int_equal(find_case(r, "Z9-002")->source_in_sample, 0);
	assert_int_equal(find_case(r, "Z9-003")->source_in_sample, 1);
	assert_string_equal(find_case(r, "Z9-004")->source, "(none)");
	s = find_stats(r, VALIDATE_SOURCE, "Narayanan et al. 2021", NULL);
	assert_non_null(s);
	assert_int_equal(s->cases, 2);
	assert_int_equal(s->in_sample, 1);
	assert_int_equal(find_stats(r, VALIDATE_SOURCE, "My lab 2026", NULL)->in_sample, 0);
	s = find_stats(r, VALIDATE_SAMPLE, "in", NULL);
	assert_int_equal(s->cases, 3);
	s = find_stats(r, VALIDATE_SAMPLE, "out", NULL);
	assert_int_equal(s->cases, 2);
	assert_true(r->stats[r->nstats - 1].scope == VALIDATE_ALL);
	validate_result_free(r);
	/* a file whose cases name no source has no source lines */
	r = run(cases_csv, NULL, &err);
	assert_null(find_stats(r, VALIDATE_SOURCE, NULL, NULL));
	assert_null(find_stats(r, VALIDATE_SAMPLE, NULL, NULL));
	validate_result_free(r);
}

/*
 * Leave one source out: NVLink all-reduce rows of two sources that imply
 * different link efficiencies.  Without source A the constant is fitted on
 * B alone, so A is predicted at B's efficiency; the defaults come back.
 */
static void test_refit(void **state)
{
	static const char csv[] =
		"id,source,model,task,gpu,gpus,gpus_per_node,precision,metric,value\n"
		"S8-011,Lab A,nccl-allreduce,bench,a100-sxm4-80gb,8,8,fp32,allreduce_busbw_gbps,270\n"
		"S8-044,Lab A (again),nccl-allreduce,bench,a100-sxm4-80gb,8,8,fp32,allreduce_busbw_gbps,270\n"
		"S8-012,Lab B,nccl-allreduce,bench,a100-sxm4-80gb,8,8,fp32,allreduce_busbw_gbps,210\n";
	const double eff = TUNE_NVLINK_EFF;
	struct diag err;
	struct validate_result *r = run(csv, NULL, &err);
	struct validate_refit *rf;
	double p, want;
	(void)state;
	assert_non_null(r);
	/* the shipped prediction is linear in the efficiency */
	p = find_case(r, "S8-011")->predicted;
	validate_result_free(r);
	diag_clear(&err);
	rf = validate_refit(cat, "t.csv", csv, strlen(csv), 1, &err);
	assert_non_null(rf);
	assert_int_equal(rf->nrows, 2);
	assert_string_equal(rf->rows[0].source, "Lab A");
	assert_int_equal(rf->rows[0].cases, 2);
	assert_int_equal(rf->rows[0].constants, 1);
	assert_int_equal(rf->rows[0].refit, 1);
	assert_int_equal(rf->rows[0].at_prior, 0);
	assert_true(fabs(rf->rows[0].shipped_median - fabs(p - 270) / 270) < 1e-9);
	/* fitted on B alone: B's 210 exactly, so A is off by 210/270 - 1 */
	want = fabs(p * (210 / p) - 270) / 270;
	assert_true(fabs(rf->rows[0].left_out_median - want) < 0.005);
	/* and B, predicted from A's 270 */
	want = fabs(270.0 - 210) / 210;
	assert_true(fabs(rf->rows[1].left_out_median - want) < 0.005);
	assert_true(TUNE_NVLINK_EFF == eff);
	validate_refit_free(rf);
}

/* A vendor row's fraction is set by name for a refit and put back as shipped. */
static void test_fitted_set(void **state)
{
	const struct fitted_const *k = NULL, *all;
	double was = model_vendor_eff(NULL)->gemm16;
	size_t n, i;
	(void)state;
	all = fitted_consts(&n);
	for (i = 0; i < n; i++)
		if (!strcmp(all[i].name, "hopper bf16 GEMM"))
			k = &all[i];
	assert_non_null(k);
	assert_true(fitted_refittable(k));
	assert_int_equal(fitted_set(k, 0.5), 0);
	/* the CUDA fallback row is named with it */
	assert_true(model_vendor_eff(NULL)->gemm16 == 0.5);
	assert_int_equal(model_vendor_set("nosuch", "gemm16", 0.1), -1);
	assert_int_equal(model_vendor_set("*", "nosuch", 0.1), -1);
	fitted_reset();
	assert_true(model_vendor_eff(NULL)->gemm16 == was);
}

/* The named constant of the fitted list, or fails. */
static const struct fitted_const *named(const char *name)
{
	size_t n, i;
	const struct fitted_const *all = fitted_consts(&n);
	for (i = 0; i < n; i++)
		if (!strcmp(all[i].name, name))
			return &all[i];
	fail_msg("%s is not in the fitted list", name);
	return NULL;
}

/* The engines' fitted host costs are run-time values: a refit moves what the engine table gives. */
static void test_fitted_set_engine(void **state)
{
	double was = model_engine_host_s(MODEL_ENGINE_HF, 100, 1);
	(void)state;
	assert_true(fitted_refittable(named("TUNE_EAGER_LAUNCH_S")));
	assert_int_equal(fitted_set(named("TUNE_EAGER_LAUNCH_S"), 10e-6), 0);
	assert_true(fabs(model_engine_host_s(MODEL_ENGINE_HF, 100, 1) - was - 100 * 4e-6) < 1e-12);
	assert_int_equal(fitted_set(named("TUNE_HF_LAYER_S"), 0), 0);
	assert_true(*model_engine_info(MODEL_ENGINE_HF)->host_per_layer_s == 0);
	assert_int_equal(fitted_set(named("TUNE_DS_RANK_COPY_S"), 1e-6), 0);
	assert_true(TUNE_DS_RANK_COPY_S == 1e-6);
	fitted_reset();
	assert_true(model_engine_host_s(MODEL_ENGINE_HF, 100, 1) == was);
	assert_true(*model_engine_info(MODEL_ENGINE_HF)->host_per_layer_s == 0.5e-3);
	assert_true(TUNE_DS_RANK_COPY_S == 60e-6);
}

/* A quantised kernel's fitted column is set by the row's name and put back as read. */
static void test_fitted_set_quant(void **state)
{
	const struct model_quant_kernel *q = model_quant_kernel_at(model_quant_kernel_from_name("awq-gemv"));
	double was;
	(void)state;
	assert_non_null(q);
	was = q->bw_share;
	assert_true(fitted_refittable(named("awq-gemv bw_share")));
	assert_int_equal(fitted_set(named("awq-gemv bw_share"), 0.5), 0);
	assert_true(q->bw_share == 0.5);
	assert_int_equal(model_quant_set("nosuch", "bw_share", 0.1), -1);
	assert_int_equal(model_quant_set("awq-gemv", "source", 0.1), -1);
	assert_int_equal(model_quant_set("bnb-nf4,bnb-nf4-0.44", "host_per_linear_s", 0), 0);
	assert_true(model_quant_kernel_at(model_quant_kernel_from_name("bnb-nf4-0.44"))->host_linear_s == 0);
	fitted_reset();
	assert_true(q->bw_share == was);
	assert_true(model_quant_kernel_at(model_quant_kernel_from_name("bnb-nf4-0.44"))->host_linear_s == 60e-6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases_and_reasons), cmocka_unit_test(test_summary),
		cmocka_unit_test(test_median_and_within), cmocka_unit_test(test_filter),
		cmocka_unit_test(test_bad_files),         cmocka_unit_test(test_every_class),
		cmocka_unit_test(test_long_reason),       cmocka_unit_test(test_fields),
		cmocka_unit_test(test_source_key),        cmocka_unit_test(test_fitted_patterns),
		cmocka_unit_test(test_sources),           cmocka_unit_test(test_refit),
		cmocka_unit_test(test_fitted_set),        cmocka_unit_test(test_fitted_set_engine),
		cmocka_unit_test(test_fitted_set_quant),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
