/*
 * gpuscope catalog: list, show and check the hardware catalog.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "cmd/cmd.h"
#include "report/table.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/suggest.h"
#include "util/xalloc.h"
#include "view/catalog.h"

static int json_flag, csv_flag, precision = -1;
static const char *vendor_filter, *provider_filter, *gpu_filter;
static double min_memory_gib = NAN;

static const struct opt catalog_opts[] = {
	OPT_GROUP_("output"),
	OPT_FLAG_("json", &json_flag, "print JSON with every column"),
	OPT_FLAG_("csv", &csv_flag, "print CSV with every column"),
	OPT_GROUP_("filters"),
	OPT_STRING_("vendor", &vendor_filter, "NAME", "only this vendor (nvidia, amd, intel, dell ...)"),
	OPT_QUANTITY_("min-memory", &min_memory_gib, "SIZE", "gpus: at least this much memory (80, 80GiB)", "GiB"),
	OPT_ENUM_("precision", &precision, "P", "gpus: show this precision's peak (" CAT_PRECISION_NAMES ")",
		  cat_precision_from_name, CAT_PRECISION_NAMES),
	OPT_STRING_("provider", &provider_filter, "NAME",
		    "clouds: only this provider (aws gcp azure lambda coreweave)"),
	OPT_STRING_("gpu", &gpu_filter, "NAME", "servers, clouds: only those with this GPU"),
	OPT_END_(),
};

static const struct opts_cmd catalog_cmd = {
	"catalog",
	"(gpus | links | servers | cpus | clouds | facility | show NAME | check DIR) [options]",
	"List and show the hardware facts gpuscope plans with; every figure has a source and a date.",
	"Subcommands:\n"
	"  gpus, links, servers, cpus, clouds, facility, parts   list one table\n"
	"  show NAME     every field of one row (any table), with its source\n"
	"  check DIR     validate a directory of catalog files without using it\n"
	"\nThe catalog is built in; '--catalog DIR' (a global option) or\n"
	"$GPUSCOPE_CATALOG adds or overrides rows by key from DIR/gpus.csv etc.\n"
	"See docs/catalog.md for the columns and their units.\n",
	catalog_opts,
};

/*
 * Whether a row passes the filters.  --gpu is resolved at the first row that
 * passes the others in a table with GPUs, so an unknown name is an error only
 * where it could have matched.
 */
static int keep_row(const struct catalog *cat, enum cat_table t, const void *row, struct cat_filter *f)
{
	char why[512];
	const struct cat_gpu *g;
	if (!catalog_row_matches(t, row, f))
		return 0;
	if (!gpu_filter || f->gpu_key || !catalog_column(t, "gpu"))
		return 1;
	g = catalog_gpu(cat, gpu_filter, why, sizeof(why));
	if (!g)
		die_usage("gpuscope catalog: --gpu: %s", why);
	f->gpu_key = g->row.key;
	return catalog_row_matches(t, row, f);
}

static int list_table(const struct catalog *cat, enum cat_table t, enum output_format fmt)
{
	struct cat_filter f = {vendor_filter, provider_filter, min_memory_gib, NULL};
	size_t i, n = 0, count = catalog_count(cat, t);
	const void **rows = xcalloc(count ? count : 1, sizeof(*rows));
	for (i = 0; i < count; i++)
		if (keep_row(cat, t, catalog_row(cat, t, i), &f))
			rows[n++] = catalog_row(cat, t, i);
	view_catalog_list(stdout, cat, t, rows, n, fmt, cat_precision_name(precision), cat_month_now());
	free(rows);
	return EXIT_OK;
}

static int check_dir(int n, char **argv)
{
	struct diag err;
	char msg[1024];
	int rows;
	if (n != 2)
		die_usage(
			"gpuscope catalog check: expected one directory, e.g. 'gpuscope catalog check ./my-catalog'");
	diag_clear(&err);
	rows = catalog_check_dir(argv[1], &err);
	if (rows < 0) {
		diag_format(&err, msg, sizeof(msg));
		fprintf(stderr, "gpuscope catalog check: error: %s\n", msg);
		return EXIT_USAGE;
	}
	printf("%s: ok, %d rows\n", argv[1], rows);
	return EXIT_OK;
}

int cmd_catalog(int argc, char **argv)
{
	static const char *const subs[] = {"gpus",   "links",    "servers", "cpus",
					   "clouds", "facility", "show",    "check"};
	int n = parse_options_or_exit(&catalog_cmd, argc, argv);
	enum output_format fmt = output_format_from(json_flag, csv_flag, "catalog");
	const struct catalog *cat;
	enum cat_table t;
	const void *row;
	char why[1024];
	int table;

	if (n < 1) {
		opts_usage(&catalog_cmd, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[0], "check"))
		return check_dir(n, argv);
	cat = load_catalog_or_die();
	if (!strcmp(argv[0], "show")) {
		if (n != 2)
			die_usage("gpuscope catalog show: expected one name, e.g. 'gpuscope catalog show h100'");
		row = catalog_resolve_any(cat, argv[1], &t, why, sizeof(why));
		if (!row)
			die_usage("gpuscope catalog show: %s", why);
		view_catalog_show(stdout, cat, t, row, fmt, cat_month_now());
		return EXIT_OK;
	}
	table = catalog_table_from_name(argv[0]);
	if (table < 0) {
		suggest_hint(argv[0], subs, sizeof(subs) / sizeof(subs[0]), why, sizeof(why));
		die_usage("gpuscope catalog: unknown subcommand '%s'%s", argv[0], why);
	}
	if (n > 1)
		die_usage("gpuscope catalog %s: unexpected argument '%s'", argv[0], argv[1]);
	return list_table(cat, (enum cat_table)table, fmt);
}
