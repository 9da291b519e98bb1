/*
 * The command layer: one cmd_NAME() per file in src/cmd/, listed in the table
 * in src/main.c.  Commands may die(); library code may not.
 *
 * A command returns its exit code (see enum exit_code in util/error.h).
 */
#ifndef GPUSCOPE_CMD_CMD_H
#define GPUSCOPE_CMD_CMD_H

#include "catalog/catalog.h"
#include "report/table.h"
#include "util/opts.h"

/* Global options, parsed by main.c before the command name. */
struct global_opts {
	const char *catalog_dir; /* --catalog DIR, else $GPUSCOPE_CATALOG, else NULL */
};
extern struct global_opts global_opts;

int cmd_catalog(int argc, char **argv);
int cmd_estimate(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_tco(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_fields(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_bench(int argc, char **argv);

/*
 * Parses options; exits 0 after --help and 2 on a usage error.  Returns the
 * number of positional arguments, moved to argv[0..n).
 */
int parse_options_or_exit(const struct opts_cmd *cmd, int argc, char **argv);

/*
 * Loads the catalog (embedded + global_opts.catalog_dir), or dies with the
 * loader's located message and exit 2.  The catalog lives until exit.
 */
const struct catalog *load_catalog_or_die(void);
/*
 * One line on stderr when the GPU (or else the server) is past its end of
 * sale or its architecture is dropped by current CUDA or PyTorch: the fact
 * and where it comes from.  The command still answers: the part may be the
 * one a user already owns.
 */
void warn_lifecycle(const struct catalog *cat, const struct cat_gpu *g, const struct cat_server *s);
/* One line on stderr when row r's price_usd is dated over CAT_PRICE_STALE_MONTHS ago. */
void warn_stale_price(const struct cat_row *r, double price_usd);

/*
 * --calibration FILE and --no-calibration, for the commands that predict:
 * measured ceilings from `gpuscope bench` in place of the catalog's.
 */
extern const char *calibration_file;
extern int no_calibration;
#define CALIBRATION_OPTS \
	OPT_STRING_("calibration", &calibration_file, "FILE", \
		    "measured ceilings from 'gpuscope bench --output FILE' (default: bench --save's file)"), \
		OPT_FLAG_("no-calibration", &no_calibration, "ignore bench --save's calibration file")
/*
 * Loads --calibration FILE, else the default file when it exists, into the
 * model, saying so on stderr ("estimate: calibration: ..."); dies with the
 * file, line, column and field of a bad one (exit 2).
 */
void use_calibration_or_die(const char *cmdname, const struct catalog *cat);

/* Picks the output format from --json / --csv flags; dies if both are given. */
enum output_format output_format_from(int json, int csv, const char *cmdname);

#endif
