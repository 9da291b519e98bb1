/*
 * catalog's listings and `show` (view/catalog.h).  CSV, JSON and show
 * walk a table's columns (catalog/schema.c); the human table shows the
 * columns of a layout, one line per column below, read by name from the
 * same schema.
 */
#include "view/catalog.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "catalog/fields.h"
#include "report/field.h"
#include "report/fmt.h"
#include "util/strbuf.h"

enum cell_kind {
	CELL_TEXT,     /* the text; "-" when empty */
	CELL_NUM,      /* the number / scale, with `decimals` decimals; "-" when empty */
	CELL_G,        /* the number as %g */
	CELL_COUNT_OF, /* "8x h100-sxm5-80gb": col counts col2's key; the key alone without a count */
	CELL_PER,      /* col / col2, with `decimals` decimals */
	CELL_PEAK,     /* a dense peak; --precision shows its own in the first of these instead */
	CELL_LIFE,     /* the lifecycle marks (cat_life_marks()) and "$" for a stale price */
};

struct list_col {
	const char *head;
	enum table_align align;
	enum cell_kind kind;
	const char *col, *col2; /* columns of the table's schema */
	int decimals;
	double scale; /* CELL_NUM: the value is divided by it (0: 1) */
};

static const struct list_col gpu_list[] = {
	{"gpu", ALIGN_LEFT, CELL_TEXT, "key", NULL, 0, 0},
	{"GiB", ALIGN_RIGHT, CELL_NUM, "memory_gib", NULL, 0, 0},
	{"TB/s", ALIGN_RIGHT, CELL_NUM, "mem_bw_gbps", NULL, 2, 1000},
	{"bf16", ALIGN_RIGHT, CELL_PEAK, "bf16_tflops", NULL, 0, 0},
	{"fp8", ALIGN_RIGHT, CELL_PEAK, "fp8_tflops", NULL, 0, 0},
	{"TDP W", ALIGN_RIGHT, CELL_NUM, "tdp_w", NULL, 0, 0},
	{"link GB/s", ALIGN_RIGHT, CELL_NUM, "gpu_link_gbps", NULL, 0, 0},
	{"eco", ALIGN_LEFT, CELL_TEXT, "ecosystem", NULL, 0, 0},
	{"USD", ALIGN_RIGHT, CELL_NUM, "price_usd", NULL, 0, 0},
	{"life", ALIGN_LEFT, CELL_LIFE, "price_usd", NULL, 0, 0},
	{NULL, ALIGN_LEFT, CELL_TEXT, NULL, NULL, 0, 0},
};
static const struct list_col link_list[] = {
	{"link", ALIGN_LEFT, CELL_TEXT, "key", NULL, 0, 0},
	{"kind", ALIGN_LEFT, CELL_TEXT, "kind", NULL, 0, 0},
	{"GB/s/dir", ALIGN_RIGHT, CELL_NUM, "bw_gbps_per_dir", NULL, 1, 0},
	{"lat us", ALIGN_RIGHT, CELL_NUM, "latency_us", NULL, 2, 0},
	{"name", ALIGN_LEFT, CELL_TEXT, "name", NULL, 0, 0},
	{NULL, ALIGN_LEFT, CELL_TEXT, NULL, NULL, 0, 0},
};
static const struct list_col server_list[] = {
	{"server", ALIGN_LEFT, CELL_TEXT, "key", NULL, 0, 0},
	{"GPUs", ALIGN_LEFT, CELL_COUNT_OF, "gpu_count", "gpu", 0, 0},
	{"GPU link", ALIGN_LEFT, CELL_TEXT, "gpu_link", NULL, 0, 0},
	{"NICs", ALIGN_LEFT, CELL_COUNT_OF, "nic_count", "nic", 0, 0},
	{"kW", ALIGN_RIGHT, CELL_NUM, "power_kw", NULL, 1, 0},
	{"U", ALIGN_RIGHT, CELL_NUM, "rack_units", NULL, 0, 0},
	{"USD", ALIGN_RIGHT, CELL_NUM, "price_usd", NULL, 0, 0},
	{"life", ALIGN_LEFT, CELL_LIFE, "price_usd", NULL, 0, 0},
	{NULL, ALIGN_LEFT, CELL_TEXT, NULL, NULL, 0, 0},
};
static const struct list_col cpu_list[] = {
	{"cpu", ALIGN_LEFT, CELL_TEXT, "key", NULL, 0, 0},
	{"cores", ALIGN_RIGHT, CELL_NUM, "cores", NULL, 0, 0},
	{"mem ch", ALIGN_RIGHT, CELL_NUM, "mem_channels", NULL, 0, 0},
	{"mem GB/s", ALIGN_RIGHT, CELL_NUM, "mem_bw_gbps", NULL, 1, 0},
	{"PCIe", ALIGN_RIGHT, CELL_NUM, "pcie_lanes", NULL, 0, 0},
	{"TDP W", ALIGN_RIGHT, CELL_NUM, "tdp_w", NULL, 0, 0},
	{"name", ALIGN_LEFT, CELL_TEXT, "name", NULL, 0, 0},
	{NULL, ALIGN_LEFT, CELL_TEXT, NULL, NULL, 0, 0},
};
static const struct list_col cloud_list[] = {
	{"instance", ALIGN_LEFT, CELL_TEXT, "key", NULL, 0, 0},
	{"provider", ALIGN_LEFT, CELL_TEXT, "provider", NULL, 0, 0},
	{"GPUs", ALIGN_LEFT, CELL_COUNT_OF, "gpu_count", "gpu", 0, 0},
	/* each tier per GPU-hour; whole-instance prices, dates and sources are in show, --csv and --json */
	{"USD/GPU-h", ALIGN_RIGHT, CELL_PER, "usd_per_hour", "gpu_count", 2, 0},
	{"1y", ALIGN_RIGHT, CELL_PER, "usd_per_hour_1y", "gpu_count", 2, 0},
	{"3y", ALIGN_RIGHT, CELL_PER, "usd_per_hour_3y", "gpu_count", 2, 0},
	{"spot", ALIGN_RIGHT, CELL_PER, "usd_per_hour_spot", "gpu_count", 2, 0},
	{NULL, ALIGN_LEFT, CELL_TEXT, NULL, NULL, 0, 0},
};
static const struct list_col facility_list[] = {
	{"key", ALIGN_LEFT, CELL_TEXT, "key", NULL, 0, 0},
	{"value", ALIGN_RIGHT, CELL_G, "value", NULL, 0, 0},
	{"unit", ALIGN_LEFT, CELL_TEXT, "unit", NULL, 0, 0},
	{"source", ALIGN_LEFT, CELL_TEXT, "source", NULL, 0, 0},
	{NULL, ALIGN_LEFT, CELL_TEXT, NULL, NULL, 0, 0},
};
static const struct list_col part_list[] = {
	{"part", ALIGN_LEFT, CELL_TEXT, "key", NULL, 0, 0},
	{"kind", ALIGN_LEFT, CELL_TEXT, "kind", NULL, 0, 0},
	{"link", ALIGN_LEFT, CELL_TEXT, "link", NULL, 0, 0},
	{"ports", ALIGN_RIGHT, CELL_NUM, "ports", NULL, 0, 0},
	{"Gb/s", ALIGN_RIGHT, CELL_NUM, "port_gbps", NULL, 0, 0},
	{"W", ALIGN_RIGHT, CELL_NUM, "power_w", NULL, 0, 0},
	{"USD", ALIGN_RIGHT, CELL_NUM, "price_usd", NULL, 0, 0},
	{"as of", ALIGN_LEFT, CELL_TEXT, "as_of", NULL, 0, 0},
	{NULL, ALIGN_LEFT, CELL_TEXT, NULL, NULL, 0, 0},
};

static const struct list_col board_list[] = {
	{"board", ALIGN_LEFT, CELL_TEXT, "key", NULL, 0, 0},
	{"gpu", ALIGN_LEFT, CELL_TEXT, "gpu", NULL, 0, 0},
	{"name", ALIGN_LEFT, CELL_TEXT, "name", NULL, 0, 0},
	{NULL, ALIGN_LEFT, CELL_TEXT, NULL, NULL, 0, 0},
};

static const struct list_col *const layouts[CAT_NTABLES] = {
	[CAT_GPUS] = gpu_list,   [CAT_LINKS] = link_list,   [CAT_SERVERS] = server_list,
	[CAT_CPUS] = cpu_list,   [CAT_CLOUDS] = cloud_list, [CAT_FACILITY] = facility_list,
	[CAT_PARTS] = part_list, [CAT_BOARDS] = board_list,
};

static void print_json(FILE *out, json_t *v)
{
	/* report_json_print()'s form, to out */
	json_dumpf(v, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	fputc('\n', out);
}

static json_t *row_json(const struct catalog *cat, enum cat_table t, const void *row, int now_month)
{
	struct report_row *r = report_row_new(catalog_row_schema(t));
	json_t *o;
	catalog_row_report(cat, t, row, now_month, r);
	o = report_row_json(r);
	report_row_free(r);
	return o;
}

/* A cell in full: numbers to ten figures, "-" when empty. */
static const char *cell_text(const struct cat_column *c, const void *row, struct strbuf *sb)
{
	strbuf_reset(sb);
	if (c->type == CAT_COL_TEXT)
		strbuf_addstr(sb, cat_cell_text(c, row) ? cat_cell_text(c, row) : "-");
	else if (isnan(cat_cell_num(c, row)))
		strbuf_addstr(sb, "-");
	else
		strbuf_addf(sb, "%.10g", cat_cell_num(c, row));
	return strbuf_str(sb);
}

/* The value of a column of a row by name, NaN or NULL when empty. */
static double num_of(enum cat_table t, const void *row, const char *col)
{
	return cat_cell_num(catalog_column(t, col), row);
}

static const char *text_of(enum cat_table t, const void *row, const char *col)
{
	return cat_cell_text(catalog_column(t, col), row);
}

/* The lifecycle of a gpus or servers row as a life mask (CAT_LIFE_*); 0 for other tables. */
static unsigned row_life(const struct catalog *cat, enum cat_table t, const void *row, int now_month)
{
	if (t == CAT_GPUS)
		return cat_gpu_life(row, now_month);
	if (t == CAT_SERVERS)
		return cat_server_life(cat, row, now_month);
	return 0;
}

/* A row's marks for the life column: "eos", "sw", "eos+sw", then "$" when the price column c->col is stale. */
static const char *life_marks(const struct catalog *cat, enum cat_table t, const struct list_col *c,
			      const void *row, int now_month, struct strbuf *sb)
{
	strbuf_reset(sb);
	strbuf_addstr(sb, cat_life_marks(row_life(cat, t, row, now_month)));
	if (cat_price_stale(row, num_of(t, row, c->col), now_month))
		strbuf_addch(sb, '$');
	return sb->len ? strbuf_str(sb) : NULL;
}

static void human_cell(struct table *tb, const struct catalog *cat, enum cat_table t, const struct list_col *c,
		       const void *row, const char *precision, int now_month)
{
	struct strbuf sb = STRBUF_INIT;
	char b[FMT_LEN];
	const char *key;
	double v;
	switch (c->kind) {
	case CELL_LIFE:
		table_cell(tb, life_marks(cat, t, c, row, now_month, &sb));
		strbuf_release(&sb);
		return;
	case CELL_TEXT:
		table_cell(tb, text_of(t, row, c->col));
		return;
	case CELL_G:
		table_cellf(tb, "%g", num_of(t, row, c->col));
		return;
	case CELL_COUNT_OF:
		key = text_of(t, row, c->col2);
		v = num_of(t, row, c->col);
		if (key && !isnan(v))
			table_cellf(tb, "%gx %s", v, key);
		else
			table_cell(tb, key);
		return;
	case CELL_PER:
		v = num_of(t, row, c->col) / num_of(t, row, c->col2);
		break;
	case CELL_PEAK:
		if (precision) {
			table_cell(tb, fmt_num(cat_gpu_peak_tflops(row, precision), 1, b, sizeof(b)));
			return;
		}
		v = num_of(t, row, c->col);
		break;
	case CELL_NUM:
	default:
		v = num_of(t, row, c->col) / (c->scale > 0 ? c->scale : 1);
		break;
	}
	table_cell(tb, fmt_num(v, c->decimals, b, sizeof(b)));
}

/* Whether a layout column is shown: --precision puts one peak where bf16 and fp8 were. */
static int shown(const struct list_col *layout, const struct list_col *c, const char *precision)
{
	return c->kind != CELL_PEAK || !precision || c == layout || c[-1].kind != CELL_PEAK;
}

/*
 * The table, and which life marks its rows carry (1: eos, 2: sw, 4: $old)
 * for the legend under it.
 */
static unsigned human_table(struct table *tb, const struct catalog *cat, enum cat_table t, const void *const *rows,
			    size_t n, const char *precision, int now_month)
{
	const struct list_col *layout = layouts[t], *c;
	unsigned marks = 0;
	size_t i;
	for (c = layout; c->head; c++)
		if (shown(layout, c, precision))
			table_column(tb, c->kind == CELL_PEAK && precision ? precision : c->head, c->align);
	for (i = 0; i < n; i++) {
		table_row(tb);
		for (c = layout; c->head; c++) {
			if (!shown(layout, c, precision))
				continue;
			human_cell(tb, cat, t, c, rows[i], precision, now_month);
			if (c->kind == CELL_LIFE)
				marks |= row_life(cat, t, rows[i], now_month) |
					 (cat_price_stale(rows[i], num_of(t, rows[i], c->col), now_month) ?
						  CAT_LIFE_PRICE_STALE :
						  0);
		}
	}
	return marks;
}

void view_catalog_life_note(FILE *out, const char *lead, unsigned life, const char *open, const char *close)
{
	struct strbuf sb = STRBUF_INIT;
	if (!life)
		return;
	strbuf_addstr(&sb, lead);
	cat_life_legend(life, open, close, &sb);
	table_wrap(out, "", strbuf_str(&sb), 0, 80);
	strbuf_release(&sb);
}

void view_catalog_list(FILE *out, const struct catalog *cat, enum cat_table t, const void *const *rows, size_t n,
		       enum output_format fmt, const char *precision, int now_month)
{
	const struct cat_schema *s = catalog_schema(t);
	struct strbuf sb = STRBUF_INIT;
	struct table *tb;
	size_t i, k;

	if (fmt == FORMAT_JSON) {
		json_t *arr = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(arr, row_json(cat, t, rows[i], now_month));
		print_json(out, arr);
		json_decref(arr);
		return;
	}
	tb = table_new();
	if (fmt == FORMAT_CSV) {
		for (k = 0; k < s->ncols; k++)
			table_column(tb, s->cols[k].name, ALIGN_LEFT);
		for (i = 0; i < n; i++) {
			table_row(tb);
			for (k = 0; k < s->ncols; k++)
				table_cell(tb, cell_text(&s->cols[k], rows[i], &sb));
		}
		table_print_csv(tb, out);
	} else if (!n) {
		fprintf(out, "no %s rows match the filters\n", catalog_table_name(t));
	} else {
		unsigned marks = human_table(tb, cat, t, rows, n, precision, now_month);
		table_print(tb, out, 0);
		view_catalog_life_note(out, "life:", marks, "", "");
	}
	table_free(tb);
	strbuf_release(&sb);
}

/* "name                value..." with the value wrapped at 80 columns. */
static void print_wrapped(FILE *out, const char *name, const char *value)
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
		fprintf(out, "%-*s%.*s\n", indent, first ? name : "", cut, p);
		p += cut;
		while (*p == ' ')
			p++;
		first = 0;
	} while (*p);
}

/* The lifecycle and the price's age of a gpus or servers row, after its cells. */
static void show_life(FILE *out, const struct catalog *cat, enum cat_table t, const void *row, int now_month)
{
	struct strbuf sb = STRBUF_INIT;
	const char *src = cat_life_source(row);
	double price = t == CAT_GPUS    ? ((const struct cat_gpu *)row)->price_usd :
		       t == CAT_SERVERS ? ((const struct cat_server *)row)->price_usd :
					  NAN;
	if (t == CAT_GPUS)
		cat_gpu_life_text(row, now_month, &sb);
	else if (t == CAT_SERVERS)
		cat_server_life_text(cat, row, now_month, &sb);
	else
		return;
	if (!sb.len)
		strbuf_addstr(&sb, "current");
	if (src)
		strbuf_addf(&sb, " (lifecycle: %s)", src);
	print_wrapped(out, "lifecycle", strbuf_str(&sb));
	if (cat_price_stale(row, price, now_month)) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, "yes: price_usd is from %s, over %d years ago",
			    ((const struct cat_row *)row)->as_of, CAT_PRICE_STALE_MONTHS / 12);
		print_wrapped(out, "price_stale", strbuf_str(&sb));
	}
	strbuf_release(&sb);
}

void view_catalog_show(FILE *out, const struct catalog *cat, enum cat_table t, const void *row,
		       enum output_format fmt, int now_month)
{
	const struct cat_schema *s = catalog_schema(t);
	const struct cat_row *r = row;
	struct strbuf sb = STRBUF_INIT;
	struct table *tb;
	size_t k;

	if (fmt == FORMAT_JSON) {
		json_t *o = row_json(cat, t, row, now_month);
		json_object_set_new(o, "table", json_string(catalog_table_name(t)));
		print_json(out, o);
		json_decref(o);
	} else if (fmt == FORMAT_CSV) {
		tb = table_new();
		table_columns(tb, ALIGN_LEFT, "field", "value", "unit", NULL);
		for (k = 0; k < s->ncols; k++) {
			table_row(tb);
			table_cell(tb, s->cols[k].name);
			table_cell(tb, cell_text(&s->cols[k], row, &sb));
			table_cell(tb, s->cols[k].unit ? s->cols[k].unit : "");
		}
		table_print_csv(tb, out);
		table_free(tb);
	} else {
		/* field and value, long values wrapped under the value column */
		for (k = 0; k < s->ncols; k++) {
			cell_text(&s->cols[k], row, &sb);
			if (s->cols[k].unit && strcmp(strbuf_str(&sb), "-"))
				strbuf_addf(&sb, " %s", s->cols[k].unit);
			print_wrapped(out, s->cols[k].name, strbuf_str(&sb));
		}
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s:%d", r->origin, r->line);
		print_wrapped(out, "origin", strbuf_str(&sb));
		show_life(out, cat, t, row, now_month);
	}
	strbuf_release(&sb);
}
