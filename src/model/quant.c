/*
 * Weight-only quantised kernels: the table of data/quant/kernels.csv, read
 * once.  docs/model.md, "Weight-only quantised kernels", gives the formula
 * and the sources of each column.
 */
#include "model/quant.h"

#include <math.h>
#include <stddef.h>
#include <pthread.h>
#include <string.h>

#include "catalog/embedded.h"
#include "model/model.h"
#include "util/csv.h"
#include "util/num.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define QUANT_MAX 32

enum {
	C_KERNEL,
	C_RELEASE,
	C_PRECISION,
	C_SHARE,
	C_DEQUANT,
	C_ROWS,
	C_LAUNCHES,
	C_HOST,
	C_SOURCE,
	NCOLS
};
static const char *const col_names[NCOLS] = {
	"kernel",        "release",   "precision",           "bw_share",
	"dequant_above", "gemv_rows", "launches_per_linear", "host_per_linear_s",
	"source"};

static struct model_quant_kernel table[QUANT_MAX];
/* the rows as read, kept at the first model_quant_set() */
static struct model_quant_kernel shipped[QUANT_MAX];
static int have_shipped;
static int nrows;
static struct diag table_err;
static struct strbuf names = STRBUF_INIT;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The row named s among those read so far, or -1 (load() itself asks while the table grows). */
static int find(const char *s)
{
	int i;
	for (i = 0; s && i < nrows; i++)
		if (!strcmp(table[i].name, s))
			return i;
	return -1;
}

static int read_row(const struct csv_record *rec, const char *name, const int *col, struct model_quant_kernel *k,
		    struct diag *err)
{
	static const struct num_range r_share = {0, 1, NUM_ABOVE_MIN}, r_batch = {0, 1e6, NUM_WHOLE},
				      r_launch = {0, 100, 0}, r_host = {0, 0.01, 0};
	static const int num_col[5] = {C_SHARE, C_DEQUANT, C_ROWS, C_LAUNCHES, C_HOST};
	const struct num_range *rg[5] = {&r_share, &r_batch, &r_batch, &r_launch, &r_host};
	double v[5];
	char why[160];
	int i, p;
	for (i = 0; i < NCOLS; i++)
		if ((size_t)col[i] >= rec->nfields)
			return diag_set(err, name, rec->line, 1, col_names[i], "the row has no '%s'",
					col_names[i]);
	for (i = 0; i < 5; i++) {
		const char *t = rec->fields[col[num_col[i]]];
		if (num_col[i] == C_DEQUANT && !*t) {
			v[i] = INFINITY; /* empty: never */
			continue;
		}
		if (num_parse(t, NULL, rg[i], &v[i], why, sizeof(why)))
			return diag_set(err, name, rec->line, rec->cols[col[num_col[i]]], col_names[num_col[i]],
					"%s", why);
	}
	p = model_precision_from_name(rec->fields[col[C_PRECISION]]);
	if (p != MODEL_INT4 && p != MODEL_INT8 && p != MODEL_NF4)
		return diag_set(err, name, rec->line, rec->cols[col[C_PRECISION]], "precision",
				"'%s' is not int4, int8 or nf4", rec->fields[col[C_PRECISION]]);
	if (!*rec->fields[col[C_KERNEL]])
		return diag_set(err, name, rec->line, rec->cols[col[C_KERNEL]], "kernel", "empty");
	k->name = xstrdup(rec->fields[col[C_KERNEL]]);
	k->release = xstrdup(rec->fields[col[C_RELEASE]]);
	k->source = xstrdup(rec->fields[col[C_SOURCE]]);
	k->precision = p;
	k->bw_share = v[0];
	k->dequant_above = v[1];
	k->gemv_rows = v[2];
	k->launches_linear = v[3];
	k->host_linear_s = v[4];
	return 0;
}

static void load(void)
{
	static const char name[] = "quant/kernels.csv";
	const struct embedded_file *f = embedded_find(name);
	struct csv_reader *r;
	struct csv_record rec;
	int header = 1, col[NCOLS];
	if (!f) {
		diag_set(&table_err, name, 0, 0, "", "not embedded");
		return;
	}
	r = csv_open(name, f->data, f->len, CSV_COMMENTS);
	while (csv_next(r, &rec, &table_err) == 1) {
		if (header) {
			header = 0;
			if (csv_header_columns(&rec, name, col_names, NCOLS, 0, col, &table_err))
				break;
			continue;
		}
		if (nrows == QUANT_MAX) {
			diag_set(&table_err, name, rec.line, 1, "", "more than %d kernels", QUANT_MAX);
			break;
		}
		if (read_row(&rec, name, col, &table[nrows], &table_err))
			break;
		if (find(table[nrows].name) >= 0) {
			diag_set(&table_err, name, rec.line, rec.cols[col[C_KERNEL]], "kernel", "'%s' twice",
				 table[nrows].name);
			break;
		}
		strbuf_addf(&names, "%s%s", nrows ? ", " : "", table[nrows].name);
		nrows++;
	}
	if (table_err.msg[0])
		nrows = 0;
	csv_free(r);
}

int model_quant_kernel_count(void)
{
	pthread_once(&once, load);
	return nrows;
}

const struct model_quant_kernel *model_quant_kernel_at(int i)
{
	return i >= 0 && i < model_quant_kernel_count() ? &table[i] : NULL;
}

int model_quant_kernel_from_name(const char *s)
{
	model_quant_kernel_count();
	return find(s);
}

const char *model_quant_kernel_names_text(void)
{
	model_quant_kernel_count();
	return names.len ? strbuf_str(&names) : "(the kernel table did not read)";
}

int model_quant_kernel_default(int precision, int serving_engine, int fused_engine)
{
	const char *name = NULL;
	if (precision == MODEL_NF4)
		name = "bnb-nf4";
	else if (precision == MODEL_INT8 && !fused_engine)
		name = "bnb-int8";
	else if (precision == MODEL_INT4)
		name = serving_engine ? "marlin" : "exllamav2";
	return model_quant_kernel_from_name(name);
}

int model_quant_kernel_check(int k, int precision, struct diag *err)
{
	const struct model_quant_kernel *q = model_quant_kernel_at(k);
	if (!model_quant_kernel_count())
		return diag_set(err, table_err.file, table_err.line, table_err.col, table_err.field, "%s",
				table_err.msg);
	if (!q)
		return diag_set(err, "", 0, 0, "quant-kernel", "use --quant-kernel %s",
				model_quant_kernel_names_text());
	if (precision != q->precision)
		return diag_set(err, "", 0, 0, "quant-kernel", "--quant-kernel %s reads %s weights, not %s",
				q->name, model_precision_name((enum model_precision)q->precision),
				precision >= 0 ? model_precision_name((enum model_precision)precision) :
						 "the working precision's");
	return 0;
}

/* the numeric columns a refit may set, by their names in the file */
static const struct {
	int col;
	size_t offset;
} num_fields[] = {
	{C_SHARE, offsetof(struct model_quant_kernel, bw_share)},
	{C_DEQUANT, offsetof(struct model_quant_kernel, dequant_above)},
	{C_ROWS, offsetof(struct model_quant_kernel, gemv_rows)},
	{C_LAUNCHES, offsetof(struct model_quant_kernel, launches_linear)},
	{C_HOST, offsetof(struct model_quant_kernel, host_linear_s)},
};

int model_quant_set(const char *kernels, const char *field, double v)
{
	size_t f, len;
	const char *p;
	int hit = 0, i;

	for (f = 0; f < sizeof(num_fields) / sizeof(num_fields[0]) && strcmp(col_names[num_fields[f].col], field);
	     f++)
		;
	if (f == sizeof(num_fields) / sizeof(num_fields[0]) || !model_quant_kernel_count())
		return -1;
	if (!have_shipped) {
		memcpy(shipped, table, sizeof(table));
		have_shipped = 1;
	}
	for (p = kernels; *p; p += len + (p[len] == ',')) {
		len = strcspn(p, ",");
		for (i = 0; i < nrows; i++)
			if (strlen(table[i].name) == len && !strncmp(table[i].name, p, len)) {
				*(double *)((char *)&table[i] + num_fields[f].offset) = v;
				hit = 1;
			}
	}
	return hit ? 0 : -1;
}

void model_quant_reset(void)
{
	if (have_shipped)
		memcpy(table, shipped, sizeof(table));
}
