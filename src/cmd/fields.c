/*
 * gpuscope fields: the output fields of every result, from the one table
 * each result declares (report/field.h), so a user (or a dashboard, or a
 * spreadsheet) can see what --json and --csv hold, with units, without
 * reading the source.  docs/ carry the same lists; tools/docs-fields.sh
 * writes them and tests/cli check that the two agree.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "catalog/fields.h"
#include "bench/bench.h"
#include "cmd/cmd.h"
#include "cost/fields.h"
#include "host/fields.h"
#include "model/fields.h"
#include "model/fitted.h"
#include "model/validate.h"
#include "plan/fields.h"
#include "profile/profile.h"
#include "profile/target.h"
#include "report/field.h"
#include "util/error.h"
#include "util/suggest.h"

#define MAX_SCHEMAS 96

static const struct report_schema *schemas[MAX_SCHEMAS];
static size_t nschemas;

static void add(const struct report_schema *s)
{
	if (nschemas < MAX_SCHEMAS)
		schemas[nschemas++] = s;
}

/*
 * Every result that --json or --csv writes, in the order of the commands'
 * help; a result that gains a field table gains a line here.
 */
static void collect(void)
{
	static const struct report_schema *(*const plain[])(void) = {
		plan_choice_schema,
		plan_workload_schema,
		plan_request_schema,
		plan_search_schema,
		plan_closest_fit_schema,
		plan_explanation_schema,
		plan_alternative_schema,
		plan_optimisation_schema,
		plan_have_schema,
		plan_add_schema,
		tco_schema,
		tco_input_schema,
		tco_owned_schema,
		tco_cloud_schema,
		tco_compare_schema,
		tco_flip_schema,
		tco_sensitivity_schema,
		tco_tier_schema,
		tco_keep_schema,
		tco_keep_tier_schema,
		validate_case_schema,
		validate_summary_schema,
		validate_stats_schema,
		validate_source_schema,
		fitted_schema,
		validate_refit_schema,
		profile_trace_schema,
		profile_step_schema,
		profile_class_schema,
		profile_target_schema,
		profile_target_class_schema,
		profile_calib_schema,
		profile_calib_part_schema,
		profile_rank_schema,
		profile_job_schema,
		bench_row_schema,
		model_calibration_schema,
		model_ceiling_schema,
	};
	const struct report_schema *const *check;
	size_t i;
	if (nschemas)
		return;
	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		add(plain[i]());
	for (i = 0; i < MODEL_EST_PART_COUNT; i++)
		add(model_estimate_schema((enum model_estimate_part)i));
	for (i = 0; i < CAT_NTABLES; i++)
		add(catalog_row_schema((enum cat_table)i));
	for (check = check_schemas(); *check; check++)
		add(*check);
}

#define NSCHEMAS nschemas

static const struct report_schema *schema_at(size_t i)
{
	return schemas[i];
}

static int markdown_flag, json_flag, names_flag;

static const struct opt fields_opts[] = {
	OPT_FLAG_("markdown", &markdown_flag, "print the field table as markdown (as docs/ hold it)"),
	OPT_FLAG_("json", &json_flag, "print the fields as JSON"),
	OPT_FLAG_("names", &names_flag, "print only the results' names, one a line"),
	OPT_END_(),
};

static const struct opts_cmd fields_cmd = {
	"fields",
	"[options] [RESULT]",
	"the output fields of each result, with units and meaning",
	"Without RESULT, lists the results (with --json or --markdown, every result's fields);\n"
	"with it, that result's fields.\n",
	fields_opts,
};

static const struct report_schema *find_schema(const char *name)
{
	size_t i;
	const char *names[MAX_SCHEMAS];
	char hint[256];
	for (i = 0; i < NSCHEMAS; i++) {
		if (!strcmp(schema_at(i)->name, name))
			return schema_at(i);
		names[i] = schema_at(i)->name;
	}
	suggest_hint(name, names, NSCHEMAS, hint, sizeof(hint));
	die_usage("gpuscope fields: no result is called '%s'%s", name, hint);
	return NULL;
}

/* One result's fields as a JSON array of {name, type, unit, help}. */
static json_t *schema_json(const struct report_schema *s)
{
	json_t *a = json_array();
	size_t i;
	for (i = 0; i < s->nfields; i++) {
		const struct report_field *f = &s->fields[i];
		json_array_append_new(a, json_pack("{s:s, s:s, s:s?, s:s?}", "name", f->name, "type",
						   report_type_name(f->type), "unit", f->unit, "help", f->help));
	}
	return a;
}

static void print_schema(const struct report_schema *s)
{
	struct table *tb;
	size_t i;
	if (markdown_flag) {
		report_schema_markdown(s, stdout);
		return;
	}
	if (json_flag) {
		json_t *a = schema_json(s);
		report_json_print(a);
		json_decref(a);
		return;
	}
	tb = table_new();
	table_columns(tb, ALIGN_LEFT, "field", "type", "unit", "meaning", NULL);
	for (i = 0; i < s->nfields; i++) {
		const struct report_field *f = &s->fields[i];
		table_row(tb);
		table_cell(tb, f->name);
		table_cell(tb, report_type_name(f->type));
		table_cell(tb, f->unit ? f->unit : "");
		table_cell(tb, f->help);
	}
	table_print(tb, stdout, 0);
	table_free(tb);
}

/*
 * Every result at once: --json an object of the results' field arrays,
 * --markdown each result's table between the markers docs/ hold it in
 * ("<!-- fields:NAME -->" ... "<!-- /fields -->"), as tools/docs-fields.sh
 * reads it.
 */
static void print_all(void)
{
	size_t i;
	if (json_flag) {
		json_t *o = json_object();
		for (i = 0; i < NSCHEMAS; i++)
			json_object_set_new(o, schema_at(i)->name, schema_json(schema_at(i)));
		report_json_print(o);
		json_decref(o);
		return;
	}
	for (i = 0; i < NSCHEMAS; i++) {
		if (markdown_flag) {
			printf("%s<!-- fields:%s -->\n", i ? "\n" : "", schema_at(i)->name);
			report_schema_markdown(schema_at(i), stdout);
			printf("<!-- /fields -->\n");
		} else if (names_flag) {
			printf("%s\n", schema_at(i)->name);
		} else {
			printf("%-24s %3zu fields\n", schema_at(i)->name, schema_at(i)->nfields);
		}
	}
}

int cmd_fields(int argc, char **argv)
{
	int npos = parse_options_or_exit(&fields_cmd, argc, argv);
	collect();
	if (markdown_flag + json_flag + names_flag > 1)
		die_usage("gpuscope fields: --markdown, --json and --names exclude each other");
	if (npos > 1)
		die_usage("gpuscope fields: one RESULT at most, got %d", npos);
	if (npos == 1) {
		print_schema(find_schema(argv[0]));
		return EXIT_OK;
	}
	print_all();
	return EXIT_OK;
}
