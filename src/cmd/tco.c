/*
 * gpuscope tco: the total cost of owning GPU servers, against renting them,
 * with the arithmetic shown term by term (the model is in cost/cost.h and
 * docs/tco.md).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "catalog/catalog.h"
#include "cmd/cmd.h"
#include "cost/bom.h"
#include "cost/cost.h"
#include "plan/plan.h"
#include "report/table.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "view/tco.h"

static int json_flag, rack_unit_space, no_cloud, tier_flag = -1;
static const char *server_name, *gpu_name, *cloud_name, *precision_name, *report_path, *have_s;
/* --have as given: "4x dgx-a100" (a bare count joins its next word) */
static struct opt_list have_list;
static long gpus_flag;
static double rack_kw_flag, storage_tb_flag = -1;
static double flag_value[TCO_NINPUTS];

/* A number flag for one TCO input; its name must be tco_input_desc(id)->flag (checked). */
#define NUM(id, name, argh, help) OPT_DOUBLE_(name, &flag_value[id], argh, help, 0, 0)

static const struct opt tco_opts[] = {
	OPT_GROUP_("what is owned"),
	OPT_STRING_("server", &server_name, "NAME", "a catalog server (gpuscope catalog servers)"),
	NUM(TCO_IN_COUNT, "count", "N", "number of servers (default 1)"),
	OPT_STRING_("gpu", &gpu_name, "NAME", "a generic build of this GPU instead of --server"),
	OPT_LIST_("have", &have_list, "N x SERVER",
		  "servers already owned (4x dgx-a100): a year of keeping them, no capex, against renting"),
	OPT_INT_("gpus", &gpus_flag, "N", "GPUs in the generic build", 1, 1024),
	NUM(TCO_IN_PRICE, "price", "USD", "price per server (default: catalog)"),
	NUM(TCO_IN_POWER, "power-kw", "KW", "full-load power per server, kW (default: catalog)"),
	NUM(TCO_IN_IDLE, "idle-kw", "KW", "idle power per server, kW (default: catalog)"),
	NUM(TCO_IN_RACK_UNITS, "rack-units", "U", "rack units per server (default: catalog)"),
	OPT_GROUP_("use"),
	NUM(TCO_IN_YEARS, "years", "Y", "years of service (default: facility table)"),
	NUM(TCO_IN_UTILISATION, "utilisation", "PCT", "% of hours the GPUs do paid work, 0-100 (default 70)"),
	OPT_STRING_("precision", &precision_name, "P", "precision of the $/PFLOP-hour figure (default bf16)"),
	OPT_GROUP_("facility and finance (defaults: gpuscope catalog facility)"),
	NUM(TCO_IN_ELECTRICITY, "electricity", "USD", "electricity price, USD/kWh"),
	NUM(TCO_IN_PUE, "pue", "R", "power usage effectiveness, >= 1"),
	NUM(TCO_IN_COLO, "colo", "USD", "colocation, USD per kW-month of full-load power"),
	OPT_FLAG_("rack-unit-space", &rack_unit_space, "bill space per rack unit instead of per kW"),
	NUM(TCO_IN_RACK_UNIT_PRICE, "rack-unit-price", "USD", "space, USD per U-month (with --rack-unit-space)"),
	NUM(TCO_IN_STAFF, "staff", "USD", "operations staff, USD per rack-year"),
	NUM(TCO_IN_SUPPORT, "support", "PCT", "support contract, % of the price per year"),
	NUM(TCO_IN_ADDON, "addon", "PCT", "flat add-on, % of the price, instead of the BOM"),
	OPT_DOUBLE_("rack-kw", &rack_kw_flag, "KW", "power per rack (default: air 41, liquid 132)", 0, 10000),
	OPT_DOUBLE_("storage-tb", &storage_tb_flag, "TB", "shared storage bought (default 2 TB a GPU)", 0, 1e9),
	NUM(TCO_IN_RESIDUAL, "residual", "PCT", "resale value at the end, % of the price"),
	NUM(TCO_IN_CAPITAL, "cost-of-capital", "PCT", "cost of capital, %/year (discount rate of the NPV)"),
	NUM(TCO_IN_INTEREST, "interest", "PCT", "interest on the capital, %/year (0: straight-line)"),
	OPT_GROUP_("cloud comparator"),
	OPT_STRING_("cloud", &cloud_name, "INSTANCE", "catalog instance (default: cheapest, same GPUs)"),
	OPT_ENUM_("price-tier", &tier_flag, "TIER", "on-demand (default), 1y, 3y (all hours paid), spot",
		  cat_tier_from_name, CAT_TIER_NAMES),
	NUM(TCO_IN_CLOUD_PRICE, "cloud-price", "USD", "instance price at the tier, USD/h (default: catalog)"),
	NUM(TCO_IN_DISCOUNT, "reserved", "PCT", "reserved term at this % off: every hour is paid"),
	OPT_FLAG_("no-cloud", &no_cloud, "no comparison with renting"),
	OPT_GROUP_("output"),
	OPT_FLAG_("json", &json_flag, "print JSON with every input, source and term"),
	OPT_STRING_("report", &report_path, "FILE", "write an HTML report with charts to FILE"),
	OPT_END_(),
};

static const struct opts_cmd tco_cmd = {
	"tco",
	"--server NAME [--count N] | --gpu NAME --gpus N  [options]",
	"Total cost of owning GPU servers against renting the same GPU-hours.",
	"Every line of the account shows its formula with the numbers in it.  Defaults\n"
	"come from the catalog (servers, clouds, facility) and are listed with their\n"
	"sources; any of them can be set by its flag.  The formulas and a worked\n"
	"example are in docs/tco.md.\n"
	"\nExamples:\n"
	"  gpuscope tco --server dgx-h100 --cloud p5.48xlarge\n"
	"  gpuscope tco --server dgx-a100-320gb --utilisation 40 --electricity 0.15\n"
	"  gpuscope tco --server gb200-nvl72 --count 16 --price-tier 3y\n"
	"  gpuscope tco --gpu l40s --gpus 4 --years 4 --report tco.html\n"
	"  gpuscope tco --have 4x dgx-a100 --price-tier 1y\n",
	tco_opts,
};

/* ---- parse ---- */

/* Each number flag of the table is the input it is named after (a table typo is a bug). */
static void check_flag_table(void)
{
	int i;
	for (i = 0; tco_opts[i].type != OPT_END; i++)
		if (tco_opts[i].type == OPT_DOUBLE && tco_opts[i].value != &rack_kw_flag &&
		    tco_opts[i].value != &storage_tb_flag) {
			long id = (double *)tco_opts[i].value - flag_value;
			if (strcmp(tco_opts[i].name, tco_input_desc((enum tco_input)id)->flag))
				BUG("flag '--%s' is not input %ld's", tco_opts[i].name, id);
		}
}

static void check_usage(int npos, char **argv)
{
	if (have_list.n > 1)
		die_usage("gpuscope tco: --have once: one server type and its count (plan --have takes several)");
	have_s = have_list.n ? have_list.v[0] : NULL;
	if (npos > 0)
		die_usage("gpuscope tco: unexpected argument '%s'", argv[0]);
	if (have_s && (server_name || gpu_name || gpus_flag || !isnan(flag_value[TCO_IN_COUNT]) || report_path))
		die_usage(
			"gpuscope tco: --have names the servers and their count; it excludes --server, --gpu, "
			"--gpus, --count and --report");
	if (have_s)
		return;
	if (!!server_name == !!gpu_name)
		die_usage("gpuscope tco: give --server NAME, or --gpu NAME with --gpus N");
	if (gpu_name && !gpus_flag)
		die_usage("gpuscope tco: --gpu needs --gpus N (GPUs in the build)");
	if (server_name && gpus_flag)
		die_usage("gpuscope tco: --gpus goes with --gpu; a server has its own GPU count");
	if (no_cloud && (cloud_name || !isnan(flag_value[TCO_IN_CLOUD_PRICE]) ||
			 !isnan(flag_value[TCO_IN_DISCOUNT]) || tier_flag >= 0))
		die_usage("gpuscope tco: --no-cloud excludes --cloud, --cloud-price, --reserved and --price-tier");
	if (tier_flag > CAT_TIER_ON_DEMAND && !isnan(flag_value[TCO_IN_DISCOUNT]))
		die_usage(
			"gpuscope tco: --reserved is a discount off the on-demand price; --price-tier %s takes "
			"the catalog's %s price (give --cloud-price for a quote)",
			cat_tier_name((enum cat_tier)tier_flag), cat_tier_name((enum cat_tier)tier_flag));
}

/* ---- resolve ---- */

static void die_input(const struct tco_inputs *in, const struct diag *err)
{
	int i;
	for (i = 0; i < TCO_NINPUTS; i++) {
		const struct tco_input_desc *d = tco_input_desc((enum tco_input)i);
		struct strbuf from = STRBUF_INIT;
		if (strcmp(err->field, d->flag))
			continue;
		if (in->source[i].from == TCO_FROM_FLAG || in->source[i].from == TCO_FROM_NONE)
			die_usage("gpuscope tco: --%s: %s", d->flag, err->msg);
		tco_input_source(in, (enum tco_input)i, &from);
		die_usage("gpuscope tco: %s (from %s; set --%s): %s", d->what, strbuf_str(&from), d->flag,
			  err->msg);
	}
	if (err->field[0])
		die_usage("gpuscope tco: --%s: %s", err->field, err->msg);
	die_usage("gpuscope tco: %s", err->msg);
}

/* A generic build of --gpus GPUs of --gpu: priced from the catalog, or by --price and --power-kw. */
static void resolve_build(const struct catalog *cat, struct tco_inputs *in, struct strbuf *notes)
{
	struct diag err;
	char why[512] = "";
	const struct cat_gpu *g = catalog_gpu(cat, gpu_name, why, sizeof(why));
	if (!g)
		die_usage("gpuscope tco: --gpu: %s", why);
	warn_lifecycle(cat, g, NULL);
	why[0] = 0;
	diag_clear(&err);
	if (!tco_inputs_generic(in, cat, g, (double)gpus_flag, why, sizeof(why), &err)) {
		strbuf_addf(notes, "%s\n", why);
		return;
	}
	/* with the price and power given, the build needs no host share */
	if (isnan(flag_value[TCO_IN_PRICE]) || isnan(flag_value[TCO_IN_POWER]))
		die_usage("gpuscope tco: --gpu: %s", err.msg);
	tco_inputs_build(in, g, (double)gpus_flag);
	if (isnan(flag_value[TCO_IN_IDLE])) {
		/* no host share to estimate idle from: count full power always */
		flag_value[TCO_IN_IDLE] = flag_value[TCO_IN_POWER];
		strbuf_addstr(notes, "no --idle-kw: the build is assumed to draw its full power at every hour\n");
	}
}

static void resolve_owned(const struct catalog *cat, struct tco_inputs *in, struct strbuf *notes)
{
	struct diag err;
	char why[512];
	const struct cat_server *s;
	const struct cat_gpu *g;
	double p;

	if (server_name) {
		s = catalog_server(cat, server_name, why, sizeof(why));
		if (!s)
			die_usage("gpuscope tco: --server: %s", why);
		diag_clear(&err);
		if (tco_inputs_server(in, cat, s, &err))
			die_usage("gpuscope tco: --server: %s", err.msg);
		warn_lifecycle(cat, NULL, s);
		if (isnan(flag_value[TCO_IN_PRICE]))
			warn_stale_price(&s->row, s->price_usd);
	} else {
		resolve_build(cat, in, notes);
	}
	if (!precision_name)
		return;
	g = in->gpu_key ? catalog_get(cat, CAT_GPUS, in->gpu_key) : NULL;
	p = g ? cat_gpu_peak_tflops(g, precision_name) : NAN;
	if (isnan(p))
		die_usage(
			"gpuscope tco: --precision: '%s' is not a precision %s has "
			"(fp64 fp32 tf32 fp16 bf16 fp8 int8 fp4)",
			precision_name, in->gpu_key ? in->gpu_key : "the GPU");
	in->precision = precision_name;
	in->peak_tflops_per_gpu = p;
}

/* --cloud, or the cheapest instance with the same GPUs at the tier; none with --no-cloud. */
static void resolve_cloud(const struct catalog *cat, struct tco_inputs *in, struct strbuf *notes)
{
	enum cat_tier tier = tier_flag >= 0 ? (enum cat_tier)tier_flag : CAT_TIER_ON_DEMAND;
	const struct cat_cloud *c = NULL;
	struct diag err;
	char why[512];
	int same = 0;

	if (no_cloud)
		return;
	if (cloud_name) {
		c = catalog_cloud(cat, cloud_name, why, sizeof(why));
		if (!c)
			die_usage("gpuscope tco: --cloud: %s", why);
	} else {
		c = tco_cloud_match(cat, in->gpu_key, in->gpus_per_server, tier, &same);
		if (c)
			strbuf_addf(notes,
				    "no --cloud given: comparing with %s, the cheapest instance with %s%s%s%s\n",
				    c->row.key, same ? "the same GPU and count" : "the same GPU",
				    same ? "" : " (per GPU-hour)", tier == CAT_TIER_ON_DEMAND ? "" : " at ",
				    tier == CAT_TIER_ON_DEMAND ? "" : cat_tier_name(tier));
		else if (tier != CAT_TIER_ON_DEMAND &&
			 tco_cloud_match(cat, in->gpu_key, in->gpus_per_server, CAT_TIER_ON_DEMAND, NULL))
			die_usage(
				"gpuscope tco: --price-tier %s: no catalog instance with %s GPUs has a %s price; "
				"choose another tier",
				cat_tier_name(tier), in->gpu_key, cat_tier_name(tier));
		else if (!isnan(flag_value[TCO_IN_CLOUD_PRICE]))
			die_usage("gpuscope tco: --cloud-price needs --cloud INSTANCE");
		else
			strbuf_addf(notes, "no catalog instance has %s GPUs: no cloud comparison\n",
				    in->gpu_key ? in->gpu_key : "these");
	}
	if (!c)
		return;
	diag_clear(&err);
	if (tco_inputs_cloud(in, c, tier, &err))
		die_usage("gpuscope tco: --price-tier: %s", err.msg);
	if (c->gpu && in->gpu_key && strcmp(c->gpu, in->gpu_key))
		strbuf_addf(notes,
			    "note: %s has %s GPUs, not %s: the comparison is per GPU-hour, not per "
			    "unit of work\n",
			    c->row.key, c->gpu, in->gpu_key);
}

/* Every input given by a flag replaces its default, with the flag as its source. */
static void apply_flags(struct tco_inputs *in)
{
	double count = flag_value[TCO_IN_COUNT], util = flag_value[TCO_IN_UTILISATION];
	int i;
	for (i = 0; i < TCO_NINPUTS; i++)
		if (!isnan(flag_value[i]))
			tco_inputs_set_flag(in, (enum tco_input)i, flag_value[i]);
	if (!isnan(flag_value[TCO_IN_DISCOUNT]))
		in->cloud_reserved = 1;
	if (!isnan(count) && count != floor(count))
		die_usage("gpuscope tco: --count: a whole number of servers, got %g", count);
	if (!isnan(util) && util > 0 && util <= 1)
		warning("--utilisation is a percentage: %g means %g %%, not %g %%", util, util, util * 100);
}

/* ---- command ---- */

/*
 * tco --have N x SERVER: the servers' inputs as --server SERVER --count N,
 * kept a year (no bill of materials is bought: staff by rack, as plan
 * --have keeps them) against renting their GPUs at each tier.
 */
static int run_keep(const struct catalog *cat, struct tco_inputs *in, struct strbuf *notes)
{
	struct plan_have h;
	struct tco_keep k;
	struct view_tco_keep v;
	struct diag err;
	char msg[1024];

	diag_clear(&err);
	if (plan_have_parse(cat, have_s, NULL, 0, &h, &err)) {
		diag_format(&err, msg, sizeof(msg));
		die_usage("gpuscope tco: --have: %s", msg);
	}
	diag_clear(&err);
	if (tco_inputs_server(in, cat, h.server, &err))
		die_usage("gpuscope tco: --have: %s", err.msg);
	flag_value[TCO_IN_COUNT] = h.count;
	resolve_cloud(cat, in, notes);
	apply_flags(in);
	diag_clear(&err);
	if (tco_keep(in, &k, &err))
		die_input(in, &err);
	v.in = in;
	v.k = &k;
	v.notes = strbuf_str(notes);
	if (output_format_from(json_flag, 0, "tco") == FORMAT_JSON) {
		json_t *o = view_tco_keep_json(&v);
		report_json_print(o);
		json_decref(o);
	} else {
		view_tco_keep_print(stdout, &v);
	}
	strbuf_release(notes);
	return EXIT_OK;
}

int cmd_tco(int argc, char **argv)
{
	static struct bom bill; /* the bill of materials of the servers owned */
	struct strbuf notes = STRBUF_INIT;
	struct tco_inputs in;
	struct tco_result r;
	struct view_tco v;
	struct diag err;
	int i, npos, rc;

	for (i = 0; i < TCO_NINPUTS; i++)
		flag_value[i] = NAN;
	check_flag_table();
	npos = parse_options_or_exit(&tco_cmd, argc, argv);
	check_usage(npos, argv);
	v.cat = load_catalog_or_die();
	diag_clear(&err);
	/* a facility key that is missing is reported below unless its flag is given */
	(void)tco_inputs_init(&in, v.cat, &err);
	if (rack_unit_space)
		in.space = TCO_SPACE_RACK_UNIT;
	if (have_s)
		return run_keep(v.cat, &in, &notes);
	resolve_owned(v.cat, &in, &notes);
	resolve_cloud(v.cat, &in, &notes);
	apply_flags(&in);
	diag_clear(&err);
	/* racks, fabric, storage and cooling; a flat --addon replaces the bill's parts, the racks stay */
	rc = tco_inputs_size_bom(&in, v.cat, rack_kw_flag, storage_tb_flag, flag_value[TCO_IN_PUE],
				 isnan(flag_value[TCO_IN_ADDON]), &bill, &err);
	if (rc < 0)
		die_usage("gpuscope tco: --%s: %s", err.field, err.msg);
	if (tco_compute(&in, &r, &err))
		die_input(&in, &err);

	v.in = &in;
	v.r = &r;
	v.bill = rc > 0 ? &bill : NULL;
	v.notes = strbuf_str(&notes);
	if (report_path && view_tco_report(&v, report_path, &err))
		die_code(EXIT_ENV, "gpuscope tco: --report: %s", err.msg);
	if (output_format_from(json_flag, 0, "tco") == FORMAT_JSON) {
		json_t *o = view_tco_json(&v);
		if (report_path)
			json_object_set_new(o, "report", json_string(report_path));
		report_json_print(o);
		json_decref(o);
	} else {
		view_tco_print(stdout, &v);
		if (report_path)
			printf("\nReport written to %s\n", report_path);
	}
	strbuf_release(&notes);
	return EXIT_OK;
}
