/*
 * gpuscope validate: runs published measurements (cases, in the format of
 * docs/model.md "Validation cases") through the same model as estimate and
 * reports the error of every prediction, then per metric the median and
 * worst absolute error and the coverage.  With no file it uses the embedded
 * calibration set (data/cases/calibration.csv).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "catalog/embedded.h"
#include "cmd/cmd.h"
#include "model/servesim.h"
#include "model/validate.h"
#include "util/csv.h"
#include "util/error.h"
#include "view/validate.h"

#define CAL_FILE "cases/calibration.csv"

static int json_flag, csv_flag, by_source_flag, fitted_flag, refit_flag;
static const char *metric_filter, *set_filter, *engines_file;

static const struct opt validate_opts[] = {
	OPT_STRING_("metric", &metric_filter, "NAME", "only cases of this metric"),
	OPT_STRING_("set", &set_filter, "NAME", "only cases whose set column is NAME (fit, holdout)"),
	OPT_FLAG_("by-source", &by_source_flag, "the errors by source, in or out of sample, instead of the cases"),
	OPT_FLAG_("fitted", &fitted_flag, "list the fitted constants and the cases each was fitted on"),
	OPT_FLAG_("refit", &refit_flag, "leave one source out: refit without each source of 5+ cases, predict it"),
	OPT_STRING_("engines", &engines_file, "FILE",
		    "simulate serving cases with this engine table (the format of data/serve/engines.csv)"),
	OPT_GROUP_("output"),
	OPT_FLAG_("json", &json_flag, "print JSON: {cases: [...], summary: {...}}"),
	OPT_FLAG_("csv", &csv_flag, "print the cases as CSV"),
	CALIBRATION_OPTS,
	OPT_END_(),
};

static const struct opts_cmd validate_cmd = {
	"validate",
	"[FILE.csv] [options]",
	"Predict published measurements with the model and report the errors.",
	"FILE.csv holds cases in the format described in docs/model.md (id, model,\n"
	"dimensions, task, layout, gpu, network, metric, value ...).  Without FILE the\n"
	"built-in calibration set is used.  error = (predicted - measured) / measured;\n"
	"a case the model cannot express is skipped with its reason and counts against\n"
	"coverage, not accuracy.  A source is in sample when a fitted constant of the\n"
	"model saw one of its cases (--fitted lists them) or it has fit-set rows; the\n"
	"summary gives the in- and out-of-sample errors apart.\n",
	validate_opts,
};

static void die_diag(const struct diag *err)
{
	char msg[1024];
	diag_format(err, msg, sizeof(msg));
	die_code(EXIT_USAGE, "gpuscope validate: %s", msg);
}

int cmd_validate(int argc, char **argv)
{
	int npos = parse_options_or_exit(&validate_cmd, argc, argv);
	enum output_format fmt = output_format_from(json_flag, csv_flag, "validate");
	struct validate_filter filter = {metric_filter, set_filter, NULL, NULL, NULL, NULL, 0};
	char *engines = NULL;
	const struct catalog *cat;
	struct validate_result *res;
	char *buf = NULL;
	const char *data, *name;
	size_t len;
	struct diag err;

	if (fitted_flag) {
		if (npos || by_source_flag || metric_filter || set_filter)
			die_usage(
				"gpuscope validate: --fitted lists the model's constants; it takes no file or filter");
		view_validate_fitted(stdout, fmt);
		return EXIT_OK;
	}
	if (npos > 1)
		die_usage("gpuscope validate: expected at most one file, got '%s' and '%s'", argv[0], argv[1]);
	diag_clear(&err);
	if (npos == 1) {
		if (csv_read_file(argv[0], &buf, &len, &err))
			die_diag(&err);
		data = buf;
		name = argv[0];
	} else {
		const struct embedded_file *f = embedded_find(CAL_FILE);
		if (!f)
			die("gpuscope validate: the calibration set is not built in");
		data = f->data;
		len = f->len;
		name = "data/" CAL_FILE;
	}
	if (engines_file) {
		struct servesim_sched whole;
		if (csv_read_file(engines_file, &engines, &filter.engines_len, &err) ||
		    servesim_sched_find_in(engines_file, engines, filter.engines_len, NULL, NULL, &whole, &err))
			die_diag(&err);
		filter.engines = engines;
		filter.engines_name = engines_file;
	}
	cat = load_catalog_or_die();
	use_calibration_or_die("validate", cat);
	if (refit_flag) {
		struct validate_refit *rf;
		if (by_source_flag || metric_filter || set_filter)
			die_usage(
				"gpuscope validate: --refit takes every case of the file; no filter or --by-source");
		rf = validate_refit(cat, name, data, len, 5, &err);
		if (!rf)
			die_diag(&err);
		view_validate_refit(stdout, rf, fmt);
		validate_refit_free(rf);
		free(buf);
		return EXIT_OK;
	}
	res = validate_run(cat, name, data, len, &filter, &err);
	if (!res)
		die_diag(&err);
	if (by_source_flag && fmt != FORMAT_JSON) {
		view_validate_sources(stdout, res, fmt == FORMAT_CSV);
	} else if (fmt == FORMAT_JSON) {
		json_t *o = view_validate_json(res);
		report_json_print(o);
		json_decref(o);
	} else if (fmt == FORMAT_CSV) {
		view_validate_csv(stdout, res);
	} else {
		view_validate_print(stdout, res);
	}
	validate_result_free(res);
	free(buf);
	free(engines);
	return EXIT_OK;
}
