/*
 * gpuscope catalog: list, show and check the hardware catalog.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/catalog.h"
#include "cmd/cmd.h"
#include "report/table.h"
#include "util/error.h"
#include "util/suggest.h"
#include "util/xalloc.h"

static int json_flag, csv_flag;
static const char *vendor_filter, *precision_col, *provider_filter, *gpu_filter;
static double min_memory_gib = NAN;

static const struct opt catalog_opts[] = {
	OPT_GROUP_("output"),
	OPT_FLAG_("json", &json_flag, "print JSON with every column"),
	OPT_FLAG_("csv", &csv_flag, "print CSV with every column"),
	OPT_GROUP_("filters"),
	OPT_STRING_("vendor", &vendor_filter, "NAME", "only this vendor (nvidia, amd, intel, dell ...)"),
	OPT_QUANTITY_("min-memory", &min_memory_gib, "SIZE", "gpus: at least this much memory (80, 80GiB)", "GiB"),
	OPT_STRING_("precision", &precision_col, "P", "gpus: show this precision's peak (fp64 fp32 tf32 fp16 bf16 fp8 int8 fp4)"),
	OPT_STRING_("provider", &provider_filter, "NAME", "clouds: only this provider (aws gcp azure lambda coreweave)"),
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

static const char *const table_names[CAT_NTABLES] = {"gpus", "links", "servers", "cpus", "clouds", "facility", "parts"};

static json_t *row_json(enum cat_table t, const void *row)
{
	const struct cat_schema *s = catalog_schema(t);
	const struct cat_row *r = row;
	json_t *o = json_object();
	size_t i;
	for (i = 0; i < s->ncols; i++) {
		const struct cat_column *c = &s->cols[i];
		const char *p = (const char *)row + c->offset;
		if (c->type == CAT_COL_TEXT) {
			const char *v = *(char *const *)p;
			json_object_set_new(o, c->name, v ? json_string(v) : json_null());
		} else {
			double v = *(const double *)p;
			json_object_set_new(o, c->name, isnan(v) ? json_null() : json_real(v));
		}
	}
	json_object_set_new(o, "origin", json_sprintf("%s:%d", r->origin, r->line));
	return o;
}

/* Text of a cell for CSV: numbers in full precision, empty when absent. */
static void cell_text(const struct cat_column *c, const void *row, char *buf, size_t len)
{
	const char *p = (const char *)row + c->offset;
	if (c->type == CAT_COL_TEXT) {
		const char *v = *(char *const *)p;
		snprintf(buf, len, "%s", v ? v : "-");
	} else {
		double v = *(const double *)p;
		if (isnan(v))
			snprintf(buf, len, "-");
		else
			snprintf(buf, len, "%.10g", v);
	}
}

static int gpu_matches(const struct catalog *cat, const char *key)
{
	char why[512];
	const struct cat_gpu *g;
	if (!gpu_filter)
		return 1;
	g = catalog_gpu(cat, gpu_filter, why, sizeof(why));
	if (!g)
		die_usage("gpuscope catalog: --gpu: %s", why);
	return key && !strcmp(g->row.key, key);
}

static int keep_row(const struct catalog *cat, enum cat_table t, const void *row)
{
	switch (t) {
	case CAT_GPUS: {
		const struct cat_gpu *g = row;
		if (vendor_filter && (!g->vendor || strcasecmp(g->vendor, vendor_filter)))
			return 0;
		if (!isnan(min_memory_gib) && !(g->memory_gib >= min_memory_gib))
			return 0;
		return 1;
	}
	case CAT_SERVERS: {
		const struct cat_server *s = row;
		if (vendor_filter && (!s->vendor || strcasecmp(s->vendor, vendor_filter)))
			return 0;
		return gpu_matches(cat, s->gpu);
	}
	case CAT_CPUS: {
		const struct cat_cpu *c = row;
		return !vendor_filter || (c->vendor && !strcasecmp(c->vendor, vendor_filter));
	}
	case CAT_CLOUDS: {
		const struct cat_cloud *c = row;
		if (provider_filter && (!c->provider || strcasecmp(c->provider, provider_filter)))
			return 0;
		return gpu_matches(cat, c->gpu);
	}
	default:
		return 1;
	}
}

static void human_columns(struct table *tb, enum cat_table t)
{
	switch (t) {
	case CAT_GPUS:
		table_column(tb, "gpu", ALIGN_LEFT);
		table_column(tb, "GiB", ALIGN_RIGHT);
		table_column(tb, "TB/s", ALIGN_RIGHT);
		if (precision_col) {
			table_column(tb, precision_col, ALIGN_RIGHT);
		} else {
			table_column(tb, "bf16", ALIGN_RIGHT);
			table_column(tb, "fp8", ALIGN_RIGHT);
		}
		table_column(tb, "TDP W", ALIGN_RIGHT);
		table_column(tb, "link GB/s", ALIGN_RIGHT);
		table_column(tb, "eco", ALIGN_LEFT);
		table_column(tb, "USD", ALIGN_RIGHT);
		break;
	case CAT_LINKS:
		table_column(tb, "link", ALIGN_LEFT);
		table_column(tb, "kind", ALIGN_LEFT);
		table_column(tb, "GB/s/dir", ALIGN_RIGHT);
		table_column(tb, "lat us", ALIGN_RIGHT);
		table_column(tb, "name", ALIGN_LEFT);
		break;
	case CAT_SERVERS:
		table_column(tb, "server", ALIGN_LEFT);
		table_column(tb, "GPUs", ALIGN_LEFT);
		table_column(tb, "GPU link", ALIGN_LEFT);
		table_column(tb, "NICs", ALIGN_LEFT);
		table_column(tb, "kW", ALIGN_RIGHT);
		table_column(tb, "U", ALIGN_RIGHT);
		table_column(tb, "USD", ALIGN_RIGHT);
		break;
	case CAT_CPUS:
		table_column(tb, "cpu", ALIGN_LEFT);
		table_column(tb, "cores", ALIGN_RIGHT);
		table_column(tb, "mem ch", ALIGN_RIGHT);
		table_column(tb, "mem GB/s", ALIGN_RIGHT);
		table_column(tb, "PCIe", ALIGN_RIGHT);
		table_column(tb, "TDP W", ALIGN_RIGHT);
		table_column(tb, "name", ALIGN_LEFT);
		break;
	case CAT_CLOUDS:
		table_column(tb, "instance", ALIGN_LEFT);
		table_column(tb, "provider", ALIGN_LEFT);
		table_column(tb, "GPUs", ALIGN_LEFT);
		table_column(tb, "USD/h", ALIGN_RIGHT);
		table_column(tb, "USD/GPU-h", ALIGN_RIGHT);
		table_column(tb, "as of", ALIGN_LEFT);
		break;
	case CAT_PARTS:
		table_column(tb, "part", ALIGN_LEFT);
		table_column(tb, "kind", ALIGN_LEFT);
		table_column(tb, "link", ALIGN_LEFT);
		table_column(tb, "ports", ALIGN_RIGHT);
		table_column(tb, "Gb/s", ALIGN_RIGHT);
		table_column(tb, "W", ALIGN_RIGHT);
		table_column(tb, "USD", ALIGN_RIGHT);
		table_column(tb, "as of", ALIGN_LEFT);
		break;
	default:
		table_column(tb, "key", ALIGN_LEFT);
		table_column(tb, "value", ALIGN_RIGHT);
		table_column(tb, "unit", ALIGN_LEFT);
		table_column(tb, "source", ALIGN_LEFT);
		break;
	}
}

static void human_row(struct table *tb, enum cat_table t, const void *row)
{
	char b[64];
	switch (t) {
	case CAT_GPUS: {
		const struct cat_gpu *g = row;
		table_cell(tb, g->row.key);
		table_cell(tb, fmt_num(g->memory_gib, 0, b, sizeof(b)));
		table_cell(tb, fmt_num(g->mem_bw_gbps / 1000, 2, b, sizeof(b)));
		if (precision_col) {
			table_cell(tb, fmt_num(cat_gpu_peak_tflops(g, precision_col), 1, b, sizeof(b)));
		} else {
			table_cell(tb, fmt_num(isnan(g->bf16_tflops) ? NAN : g->bf16_tflops, 0, b, sizeof(b)));
			table_cell(tb, fmt_num(g->fp8_tflops, 0, b, sizeof(b)));
		}
		table_cell(tb, fmt_num(g->tdp_w, 0, b, sizeof(b)));
		table_cell(tb, fmt_num(g->gpu_link_gbps, 0, b, sizeof(b)));
		table_cell(tb, g->ecosystem);
		table_cell(tb, fmt_num(g->price_usd, 0, b, sizeof(b)));
		break;
	}
	case CAT_LINKS: {
		const struct cat_link *l = row;
		table_cell(tb, l->row.key);
		table_cell(tb, l->kind);
		table_cell(tb, fmt_num(l->bw_gbps_per_dir, 1, b, sizeof(b)));
		table_cell(tb, fmt_num(l->latency_us, 2, b, sizeof(b)));
		table_cell(tb, l->row.name);
		break;
	}
	case CAT_SERVERS: {
		const struct cat_server *s = row;
		table_cell(tb, s->row.key);
		table_cellf(tb, "%gx %s", s->gpu_count, s->gpu);
		table_cell(tb, s->gpu_link);
		if (s->nic && !isnan(s->nic_count))
			table_cellf(tb, "%gx %s", s->nic_count, s->nic);
		else
			table_cell(tb, s->nic);
		table_cell(tb, fmt_num(s->power_kw, 1, b, sizeof(b)));
		table_cell(tb, fmt_num(s->rack_units, 0, b, sizeof(b)));
		table_cell(tb, fmt_num(s->price_usd, 0, b, sizeof(b)));
		break;
	}
	case CAT_CPUS: {
		const struct cat_cpu *c = row;
		table_cell(tb, c->row.key);
		table_cell(tb, fmt_num(c->cores, 0, b, sizeof(b)));
		table_cell(tb, fmt_num(c->mem_channels, 0, b, sizeof(b)));
		table_cell(tb, fmt_num(c->mem_bw_gbps, 1, b, sizeof(b)));
		table_cell(tb, fmt_num(c->pcie_lanes, 0, b, sizeof(b)));
		table_cell(tb, fmt_num(c->tdp_w, 0, b, sizeof(b)));
		table_cell(tb, c->row.name);
		break;
	}
	case CAT_CLOUDS: {
		const struct cat_cloud *c = row;
		table_cell(tb, c->row.key);
		table_cell(tb, c->provider);
		table_cellf(tb, "%gx %s", c->gpu_count, c->gpu);
		table_cell(tb, fmt_num(c->usd_per_hour, 2, b, sizeof(b)));
		table_cell(tb, fmt_num(c->usd_per_hour / c->gpu_count, 2, b, sizeof(b)));
		table_cell(tb, c->row.as_of);
		break;
	}
	case CAT_PARTS: {
		const struct cat_part *x = row;
		table_cell(tb, x->row.key);
		table_cell(tb, x->kind);
		table_cell(tb, x->link);
		table_cell(tb, fmt_num(x->ports, 0, b, sizeof(b)));
		table_cell(tb, fmt_num(x->port_gbps, 0, b, sizeof(b)));
		table_cell(tb, fmt_num(x->power_w, 0, b, sizeof(b)));
		table_cell(tb, fmt_num(x->price_usd, 0, b, sizeof(b)));
		table_cell(tb, x->row.as_of);
		break;
	}
	default: {
		const struct cat_facility *f = row;
		table_cell(tb, f->row.key);
		table_cellf(tb, "%g", f->value);
		table_cell(tb, f->unit);
		table_cell(tb, f->row.source);
		break;
	}
	}
}

static int known_precision(const char *p)
{
	static const char *const ps[] = {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "fp4"};
	size_t i;
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		if (!strcmp(p, ps[i]))
			return 1;
	return 0;
}

static int list_table(const struct catalog *cat, enum cat_table t, enum output_format fmt)
{
	const struct cat_schema *s = catalog_schema(t);
	size_t i, k, shown = 0;
	struct table *tb = table_new();
	json_t *arr = json_array();
	char buf[4096];

	if (precision_col && !known_precision(precision_col))
		die_usage("gpuscope catalog: --precision '%s' is not one of fp64 fp32 tf32 fp16 bf16 fp8 int8 fp4",
			  precision_col);
	if (fmt == FORMAT_CSV)
		for (k = 0; k < s->ncols; k++)
			table_column(tb, s->cols[k].name, ALIGN_LEFT);
	else
		human_columns(tb, t);
	for (i = 0; i < catalog_count(cat, t); i++) {
		const void *row = catalog_row(cat, t, i);
		if (!keep_row(cat, t, row))
			continue;
		shown++;
		if (fmt == FORMAT_JSON) {
			json_array_append_new(arr, row_json(t, row));
			continue;
		}
		table_row(tb);
		if (fmt == FORMAT_CSV) {
			for (k = 0; k < s->ncols; k++) {
				cell_text(&s->cols[k], row, buf, sizeof(buf));
				table_cell(tb, buf);
			}
		} else {
			human_row(tb, t, row);
		}
	}
	if (fmt == FORMAT_JSON)
		report_json_print(arr);
	else if (fmt == FORMAT_CSV)
		table_print_csv(tb, stdout);
	else if (!shown)
		printf("no %s rows match the filters\n", table_names[t]);
	else
		table_print(tb, stdout, 0);
	json_decref(arr);
	table_free(tb);
	return EXIT_OK;
}

/* "name                value..." with the value wrapped at 80 columns. */
static void print_wrapped(const char *name, const char *value)
{
	const int indent = 20, width = 80 - indent;
	const char *p = value;
	int first = 1;
	do {
		int len = (int)strlen(p), cut = len;
		if (len > width) {
			cut = width;
			while (cut > width / 2 && p[cut] != ' ')
				cut--;
			if (p[cut] != ' ')
				cut = width;
		}
		printf("%-*s%.*s\n", indent, first ? name : "", cut, p);
		p += cut;
		while (*p == ' ')
			p++;
		first = 0;
	} while (*p);
}

static int show_row(const struct catalog *cat, const char *name, enum output_format fmt)
{
	const void *found = NULL;
	enum cat_table ft = CAT_GPUS;
	int t, nfound = 0;
	char why[CAT_NTABLES][1024];
	const struct cat_schema *s;
	struct table *tb;
	size_t k;

	for (t = 0; t < CAT_NTABLES; t++)
		if (catalog_get(cat, t, name)) {
			found = catalog_get(cat, t, name);
			ft = t;
			nfound = 1;
			break;
		}
	for (t = 0; !found && t < CAT_NTABLES; t++) {
		const void *r = catalog_resolve(cat, t, name, why[t], sizeof(why[t]));
		if (r) {
			if (nfound++ == 0) {
				found = r;
				ft = t;
			}
		}
	}
	if (!found) {
		/* the GPU table's message is the most useful one for an unknown name */
		for (t = 0; t < CAT_NTABLES; t++)
			if (strstr(why[t], "ambiguous"))
				die_usage("gpuscope catalog show: %s", why[t]);
		die_usage("gpuscope catalog show: %s", why[CAT_GPUS]);
	}
	s = catalog_schema(ft);
	if (fmt == FORMAT_JSON) {
		json_t *o = row_json(ft, found);
		json_object_set_new(o, "table", json_string(table_names[ft]));
		report_json_print(o);
		json_decref(o);
		return EXIT_OK;
	}
	if (fmt == FORMAT_CSV) {
		tb = table_new();
		table_column(tb, "field", ALIGN_LEFT);
		table_column(tb, "value", ALIGN_LEFT);
		table_column(tb, "unit", ALIGN_LEFT);
		for (k = 0; k < s->ncols; k++) {
			char buf[1024];
			cell_text(&s->cols[k], found, buf, sizeof(buf));
			table_row(tb);
			table_cell(tb, s->cols[k].name);
			table_cell(tb, buf);
			table_cell(tb, s->cols[k].unit ? s->cols[k].unit : "");
		}
		table_print_csv(tb, stdout);
		table_free(tb);
		return EXIT_OK;
	}
	/* field and value, long values wrapped under the value column */
	for (k = 0; k <= s->ncols; k++) {
		char buf[1200];
		const char *field = k < s->ncols ? s->cols[k].name : "origin";
		if (k < s->ncols) {
			size_t n;
			cell_text(&s->cols[k], found, buf, sizeof(buf) - 32);
			n = strlen(buf);
			if (s->cols[k].unit && strcmp(buf, "-"))
				snprintf(buf + n, sizeof(buf) - n, " %s", s->cols[k].unit);
		} else {
			snprintf(buf, sizeof(buf), "%s:%d", ((const struct cat_row *)found)->origin,
				 ((const struct cat_row *)found)->line);
		}
		print_wrapped(field, buf);
	}
	return EXIT_OK;
}

int cmd_catalog(int argc, char **argv)
{
	int n = parse_options_or_exit(&catalog_cmd, argc, argv);
	enum output_format fmt = output_format_from(json_flag, csv_flag, "catalog");
	const struct catalog *cat;
	int t;
	const char *subs[] = {"gpus", "links", "servers", "cpus", "clouds", "facility", "show", "check"};
	char hint[200];

	if (n < 1) {
		opts_usage(&catalog_cmd, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[0], "check")) {
		struct diag err;
		char msg[1024];
		int rows;
		if (n != 2)
			die_usage("gpuscope catalog check: expected one directory, e.g. 'gpuscope catalog check ./my-catalog'");
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
	cat = load_catalog_or_die();
	if (!strcmp(argv[0], "show")) {
		if (n != 2)
			die_usage("gpuscope catalog show: expected one name, e.g. 'gpuscope catalog show h100'");
		return show_row(cat, argv[1], fmt);
	}
	t = catalog_table_from_name(argv[0]);
	if (t < 0) {
		suggest_hint(argv[0], subs, sizeof(subs) / sizeof(subs[0]), hint, sizeof(hint));
		die_usage("gpuscope catalog: unknown subcommand '%s'%s", argv[0], hint);
	}
	if (n > 1)
		die_usage("gpuscope catalog %s: unexpected argument '%s'", argv[0], argv[1]);
	return list_table(cat, t, fmt);
}
