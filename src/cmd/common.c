#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "cmd/cmd.h"
#include "bench/calib.h"
#include "util/strbuf.h"
#include "util/error.h"
#include "util/xalloc.h"

struct global_opts global_opts;

int parse_options_or_exit(const struct opts_cmd *cmd, int argc, char **argv)
{
	int n = 0, rc = opts_parse(cmd, argc, argv, &n);
	if (rc < 0)
		exit(EXIT_USAGE);
	if (rc > 0) {
		/* help to a full disk or a closed pipe: say so, as main() does for commands */
		if (fflush(stdout) || ferror(stdout)) {
			if (errno == EPIPE)
				exit(EXIT_ENV);
			die("write error on standard output: %s", strerror(errno ? errno : EIO));
		}
		exit(EXIT_OK);
	}
	return n;
}

static struct catalog *the_catalog;

static void free_catalog(void)
{
	catalog_free(the_catalog);
	the_catalog = NULL;
}

const struct catalog *load_catalog_or_die(void)
{
	struct diag err;
	char msg[1024];
	if (the_catalog)
		return the_catalog;
	diag_clear(&err);
	if (catalog_load(&the_catalog, global_opts.catalog_dir, &err)) {
		diag_format(&err, msg, sizeof(msg));
		die_code(EXIT_USAGE, "catalog: %s", msg);
	}
	atexit(free_catalog);
	return the_catalog;
}

enum output_format output_format_from(int json, int csv, const char *cmdname)
{
	if (json && csv)
		die_usage("gpuscope %s: --json and --csv exclude each other", cmdname);
	return json ? FORMAT_JSON : csv ? FORMAT_CSV : FORMAT_HUMAN;
}

void warn_lifecycle(const struct catalog *cat, const struct cat_gpu *g, const struct cat_server *s)
{
	struct strbuf sb = STRBUF_INIT;
	int now = cat_month_now();
	const struct cat_row *r = NULL;
	if (g && cat_gpu_life(g, now)) {
		cat_gpu_life_text(g, now, &sb);
		r = &g->row;
	} else if (s && cat_server_life(cat, s, now)) {
		cat_server_life_text(cat, s, now, &sb);
		r = &s->row;
	}
	if (r)
		warning("%s: %s (%s:%d, lifecycle: %s)", r->key, strbuf_str(&sb), r->origin, r->line,
			cat_life_source(r) ? cat_life_source(r) : "no source given");
	strbuf_release(&sb);
}

void warn_stale_price(const struct cat_row *r, double price_usd)
{
	if (cat_price_stale(r, price_usd, cat_month_now()))
		warning("%s: its price is from %s, over %d months old: a buyer pays what the market asks "
			"today (%s:%d; --price sets it)",
			r->key, r->as_of, CAT_PRICE_STALE_MONTHS, r->origin, r->line);
}

const char *calibration_file;
int no_calibration;

void use_calibration_or_die(const char *cmdname, const struct catalog *cat)
{
	struct bench_calibration cal;
	struct diag err;
	char *path = calibration_file ? xstrdup(calibration_file) : bench_calibration_default_path(), *summary;
	char msg[1024];
	if (!path || (!calibration_file && (no_calibration || access(path, F_OK)))) {
		free(path);
		return;
	}
	diag_clear(&err);
	if (bench_calibration_read_file(path, cat, &cal, &err)) {
		diag_format(&err, msg, sizeof(msg));
		free(path);
		die_code(EXIT_USAGE, "gpuscope %s: calibration: %s", cmdname, msg);
	}
	model_calibration_use(&cal.model);
	summary = bench_calibration_summary(&cal);
	if (model_calibration_has_ceilings(&cal.model))
		fprintf(stderr, "%s: calibration: measured ceilings of %s replace the catalog's for %s (%s)\n",
			cmdname, summary, cal.model.gpu->row.key, path);
	if (model_calibration_has_corrections(&cal.model))
		fprintf(stderr,
			"%s: calibration: each part of the step on %s is scaled by its traced/estimated "
			"ratio from %s\n",
			cmdname, cal.model.gpu->row.key, path);
	free(summary);
	bench_calibration_release(&cal);
	free(path);
}
