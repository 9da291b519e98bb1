/* gpuscope bench's output (view/bench.h). */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "view/bench.h"

static void version_text(char *buf, size_t len, long v, long major_div)
{
	/* cuBLASLt: major*10000 + minor*100 + patch; NCCL 2.9+: major*10000 + minor*100 + patch */
	if (v > 0)
		snprintf(buf, len, "%ld.%ld.%ld", v / major_div, v % major_div / 100, v % 100);
	else
		snprintf(buf, len, "none");
}

static void header(FILE *out, const struct bench_result *r, const struct cat_gpu *type)
{
	char lt[32], nc[32];
	size_t i;
	version_text(lt, sizeof(lt), r->cublaslt_version, 10000);
	version_text(nc, sizeof(nc), r->nccl_version, r->nccl_version >= 20900 ? 10000 : 1000);
	fprintf(out, "gpuscope bench: %zu x %s%s%s%s\n", r->ngpus, r->ngpus ? r->gpus[0].name : "no GPU",
		type ? " (" : "", type ? type->row.key : "", type ? ")" : "");
	fprintf(out, "driver %s, CUDA %d.%d, cuBLASLt %s, NCCL %s\n", r->driver_version ? r->driver_version : "?",
		r->cuda_driver / 1000, r->cuda_driver % 1000 / 10, lt, nc);
	for (i = 0; i < r->nskipped; i++)
		fprintf(out, "skipped: %s\n", r->skipped[i]);
}

/* ---- the human report: each part arranged for a person, at 80 columns ---- */

static int is(const struct bench_row *x, const char *test)
{
	return !strcmp(x->test, test);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The median of v[0..n) (sorts v); NaN when n is 0. */
static double median_of(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The clocks, power and reasons over every figure: lowest clocks, highest power, every reason. */
static void clocks_line(FILE *out, const struct bench_result *r)
{
	double sm_lo = INFINITY, sm_hi = 0, mem = INFINITY, w = 0, limit = 0, temp = 0;
	uint64_t reasons = 0;
	char buf[256];
	size_t i, n = 0;
	for (i = 0; i < r->nrows; i++) {
		const struct bench_clocks *c = &r->rows[i].clk;
		if (!c->valid)
			continue;
		n++;
		sm_lo = c->sm_mhz < sm_lo ? c->sm_mhz : sm_lo;
		sm_hi = c->sm_mhz > sm_hi ? c->sm_mhz : sm_hi;
		mem = c->mem_mhz < mem ? c->mem_mhz : mem;
		w = c->power_w > w ? c->power_w : w;
		temp = c->temp_c > temp ? c->temp_c : temp;
		reasons |= c->reasons;
	}
	for (i = 0; i < r->ngpus; i++)
		limit = r->gpus[i].power_limit_w > limit ? r->gpus[i].power_limit_w : limit;
	if (!n) {
		fprintf(out, "while measuring: no clocks or power (NVML not read)\n");
		return;
	}
	fprintf(out, "while measuring: SM %.0f", sm_lo);
	if (sm_hi > sm_lo)
		fprintf(out, "-%.0f", sm_hi);
	fprintf(out, " MHz, memory %.0f MHz, up to %.0f W", mem, w);
	if (limit > 0)
		fprintf(out, " of %.0f W", limit);
	if (temp > 0)
		fprintf(out, ", %.0f C", temp);
	bench_reasons_text(reasons, buf, sizeof(buf));
	fprintf(out, "\nclock events: %s\n", *buf ? buf : "none");
}

/* The GPU whose best 16-bit GEMM is the median of the GPUs' (GPU 0 when none has one). */
static int median_gemm_gpu(const struct bench_result *r)
{
	double *best = calloc(r->ngpus ? r->ngpus : 1, sizeof(*best)), *sorted, mid;
	size_t i, n = r->ngpus;
	int pick = 0;
	if (!best)
		return 0;
	for (i = 0; i < r->nrows; i++) {
		const struct bench_row *x = &r->rows[i];
		if (is(x, "gemm") && x->gpu >= 0 && (size_t)x->gpu < n && !x->label &&
		    (!strcmp(x->dtype, "bf16") || !strcmp(x->dtype, "fp16")) && x->tflops > best[x->gpu])
			best[x->gpu] = x->tflops;
	}
	sorted = calloc(n ? n : 1, sizeof(*sorted));
	if (sorted) {
		memcpy(sorted, best, n * sizeof(*best));
		qsort(sorted, n, sizeof(*sorted), cmp_double);
		mid = n ? sorted[(n - 1) / 2] : 0;
		for (i = 0; i < n; i++)
			if (best[i] == mid && mid > 0) {
				pick = (int)i;
				break;
			}
	}
	free(sorted);
	free(best);
	return pick;
}

/* v with `decimals` digits after the point; "-" when not a number. */
static void cell_num(struct table *t, double v, int decimals)
{
	if (isfinite(v))
		table_cellf(t, "%.*f", decimals, v);
	else
		table_cell(t, NULL);
}

/* Is x the fastest GEMM of its dtype (sweep and layers alike) on its GPU? */
static int best_of_dtype(const struct bench_result *r, const struct bench_row *x)
{
	size_t i;
	for (i = 0; i < r->nrows; i++) {
		const struct bench_row *y = &r->rows[i];
		if (is(y, "gemm") && y->gpu == x->gpu && !strcmp(y->dtype, x->dtype) && y->tflops > x->tflops)
			return 0;
	}
	return 1;
}

static void print_gemm(FILE *out, const struct bench_result *r)
{
	struct table *t = table_new();
	int gpu = median_gemm_gpu(r);
	size_t i;
	table_columns(t, ALIGN_LEFT, "dtype", "m x n x k", "layer", NULL);
	table_columns(t, ALIGN_RIGHT, "TFLOP/s", "expected", "of exp", NULL);
	table_column(t, "", ALIGN_LEFT);
	for (i = 0; i < r->nrows; i++) {
		const struct bench_row *x = &r->rows[i];
		if (!is(x, "gemm") || x->gpu != gpu)
			continue;
		table_row(t);
		table_cell(t, x->dtype);
		table_cellf(t, "%.0fx%.0fx%.0f", x->m, x->n, x->k);
		table_cell(t, x->label ? x->label : "");
		cell_num(t, x->tflops, 1);
		cell_num(t, x->expected, 1);
		if (isfinite(x->tflops / x->expected))
			table_cellf(t, "%.0f %%", 100 * x->tflops / x->expected);
		else
			table_cell(t, NULL);
		table_cell(t, best_of_dtype(r, x) ? "best" : "");
	}
	if (table_rows(t)) {
		fprintf(out, "\nGEMM on GPU %d (the median GPU; TFLOP/s = 2mnk / time)\n", gpu);
		table_print(t, out, 80);
	}
	table_free(t);
}

/*
 * One row of a per-GPU test: min / median / max over the GPUs and the
 * worst GPU when it is more than 5 % worse than the median (lower for a
 * bandwidth, higher for a latency).  scale turns the figure into the unit.
 */
static void spread_row(struct table *t, const struct bench_result *r, const char *test, const char *unit,
		       double scale)
{
	double *v = calloc(r->nrows ? r->nrows : 1, sizeof(*v)), med, expected = NAN, bytes = NAN, worst = NAN;
	int latency = !strcmp(unit, "us"), worst_gpu = -1;
	size_t i, n = 0;
	char b[FMT_LEN];
	if (!v)
		return;
	for (i = 0; i < r->nrows; i++) {
		const struct bench_row *x = &r->rows[i];
		double f = (latency ? x->latency_s : x->gbps) * scale;
		if (!is(x, test) || !isfinite(f))
			continue;
		if (worst_gpu < 0 || (latency ? f > worst : f < worst)) {
			worst = f;
			worst_gpu = x->gpu;
		}
		expected = isfinite(expected) ? expected : x->expected;
		bytes = x->bytes;
		v[n++] = f;
	}
	med = median_of(v, n);
	if (n) {
		table_row(t);
		table_cell(t, test);
		table_cell(t, bytes > 0 ? fmt_bytes(bytes, FMT_BYTES_BINARY, b, sizeof(b)) : "");
		table_cell(t, unit);
		cell_num(t, v[0], 1);
		cell_num(t, med, 1);
		cell_num(t, v[n - 1], 1);
		cell_num(t, expected, 1);
		if (latency ? worst > 1.05 * med : worst < 0.95 * med)
			table_cellf(t, "gpu %d %+.0f %%", worst_gpu, 100 * (worst / med - 1));
		else
			table_cell(t, "");
	}
	free(v);
}

static void print_spread(FILE *out, const struct bench_result *r)
{
	static const char *const bw[] = {"hbm-read", "hbm-write", "hbm-copy", "h2d", "d2h"};
	struct table *t = table_new();
	size_t i;
	table_columns(t, ALIGN_LEFT, "test", "size", "unit", NULL);
	table_columns(t, ALIGN_RIGHT, "min", "median", "max", "expected", NULL);
	table_column(t, "outlier", ALIGN_LEFT);
	for (i = 0; i < sizeof(bw) / sizeof(bw[0]); i++)
		spread_row(t, r, bw[i], "GB/s", 1);
	spread_row(t, r, "launch", "us", 1e6);
	spread_row(t, r, "graph", "us", 1e6);
	if (table_rows(t)) {
		fprintf(out,
			"\nMemory, host copies and launches over the GPUs (outlier: > 5 %% off the median)\n");
		table_print(t, out, 80);
	}
	table_free(t);
}

/* The measured peer-to-peer matrix, GB/s, row = source, in blocks of 12 destinations. */
#define P2P_BLOCK 12
static void print_p2p(FILE *out, const struct bench_result *r)
{
	size_t n = r->ngpus, c0, c, s, i, found = 0;
	for (i = 0; i < r->nrows; i++)
		found += is(&r->rows[i], "p2p");
	if (!found)
		return;
	fprintf(out, "\nPeer to peer, GB/s (row: source GPU, column: destination)\n");
	for (c0 = 0; c0 < n; c0 += P2P_BLOCK) {
		struct table *t = table_new();
		table_column(t, "", ALIGN_LEFT);
		for (c = c0; c < n && c < c0 + P2P_BLOCK; c++) {
			char name[24];
			snprintf(name, sizeof(name), "GPU%zu", c);
			table_column(t, name, ALIGN_RIGHT);
		}
		for (s = 0; s < n; s++) {
			table_row(t);
			table_cellf(t, "GPU%zu", s);
			for (c = c0; c < n && c < c0 + P2P_BLOCK; c++) {
				double v = NAN;
				for (i = 0; i < r->nrows && s != c; i++)
					if (is(&r->rows[i], "p2p") && r->rows[i].gpu == (int)s &&
					    r->rows[i].peer == (int)c)
						v = r->rows[i].gbps;
				if (s == c)
					table_cell(t, "X");
				else
					cell_num(t, v, 0);
			}
		}
		table_print(t, out, 80);
		table_free(t);
	}
}

/* Collectives: one row per message size, the bus bandwidth of each operation. */
static void print_collectives(FILE *out, const struct bench_result *r)
{
	static const char *const ops[] = {"all-reduce", "all-gather", "reduce-scatter"};
	struct table *t = table_new();
	double done[64];
	size_t i, j, o, ndone = 0;
	table_column(t, "size", ALIGN_LEFT);
	table_columns(t, ALIGN_RIGHT, "all-reduce", "all-gather", "reduce-scatter", NULL);
	for (i = 0; i < r->nrows; i++) {
		const struct bench_row *x = &r->rows[i];
		char b[FMT_LEN];
		if (x->gpu >= 0 || !x->dtype || !(x->busbw_gbps > 0))
			continue;
		for (j = 0; j < ndone && done[j] != x->bytes; j++)
			;
		if (j < ndone || ndone == sizeof(done) / sizeof(done[0]))
			continue;
		done[ndone++] = x->bytes;
		table_row(t);
		table_cell(t, fmt_bytes(x->bytes, FMT_BYTES_BINARY, b, sizeof(b)));
		for (o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
			double v = NAN;
			for (j = 0; j < r->nrows; j++)
				if (is(&r->rows[j], ops[o]) && r->rows[j].bytes == x->bytes)
					v = r->rows[j].busbw_gbps;
			cell_num(t, v, 1);
		}
	}
	if (table_rows(t)) {
		fprintf(out, "\nCollectives over %zu GPUs, bus GB/s (as nccl-tests computes it)\n", r->ngpus);
		table_print(t, out, 80);
	}
	table_free(t);
}

static void print_human(FILE *out, const struct bench_result *r)
{
	clocks_line(out, r);
	print_gemm(out, r);
	print_spread(out, r);
	print_p2p(out, r);
	print_collectives(out, r);
}

static const char *pct(double ratio, char *buf, size_t len)
{
	if (isfinite(ratio))
		snprintf(buf, len, "%.0f %%", 100 * ratio);
	else
		snprintf(buf, len, "-");
	return buf;
}

void view_bench_verdicts(FILE *out, const struct bench_verdict *v, size_t nv, const char *ref)
{
	char a[32], b[32], c[32], lead[32];
	size_t i;
	for (i = 0; i < nv; i++) {
		struct strbuf sb = STRBUF_INIT;
		pct(v[i].gemm_ratio, a, sizeof(a));
		pct(v[i].hbm_ratio, b, sizeof(b));
		pct(v[i].host_ratio, c, sizeof(c));
		snprintf(lead, sizeof(lead), "gpu %d: ", v[i].gpu);
		if (!v[i].flagged)
			strbuf_addf(&sb, "as fast as %s (GEMM %s, HBM %s, host copies %s)", ref, a, b, c);
		else if (v[i].slower_pct >= BENCH_QUICK_SLOW_PCT)
			strbuf_addf(&sb, "this GPU is %.0f %% slower than its peers", v[i].slower_pct);
		else
			strbuf_addf(&sb, "its host link is %.0f %% slower than its peers",
				    100 * (1 - v[i].host_ratio));
		if (v[i].flagged)
			strbuf_addf(&sb, " (GEMM %s, HBM %s, host copies %s of %s); likely cause: %s", a, b, c,
				    ref, v[i].cause ? v[i].cause : "none that NVML shows");
		/* wrapped at 80 columns, the lines after the first indented under the text */
		table_wrap(out, lead, strbuf_str(&sb), 7, 80);
		strbuf_release(&sb);
	}
}

static json_t *gpus_json(const struct bench_result *r)
{
	json_t *a = json_array();
	size_t i;
	for (i = 0; i < r->ngpus; i++) {
		const struct bench_gpu *g = &r->gpus[i];
		json_t *o = json_object();
		json_object_set_new(o, "index", json_integer(g->index));
		json_object_set_new(o, "name", json_string(g->name));
		json_object_set_new(o, "uuid", g->uuid ? json_string(g->uuid) : json_null());
		json_object_set_new(o, "bus_id", json_string(g->bus_id));
		json_object_set_new(o, "sms", json_integer(g->sms));
		json_object_set_new(o, "pcie_width", g->pcie_width ? json_integer(g->pcie_width) : json_null());
		json_object_set_new(o, "pcie_gen", g->pcie_gen ? json_integer(g->pcie_gen) : json_null());
		json_object_set_new(o, "power_limit_w",
				    isfinite(g->power_limit_w) ? json_real(g->power_limit_w) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *verdicts_json(const struct bench_verdict *v, size_t nv)
{
	json_t *a = json_array();
	size_t i;
	for (i = 0; i < nv; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "gpu", json_integer(v[i].gpu));
		json_object_set_new(o, "flagged", json_boolean(v[i].flagged));
		json_object_set_new(o, "slower_pct", json_real(v[i].slower_pct));
		json_object_set_new(o, "gemm_ratio",
				    isfinite(v[i].gemm_ratio) ? json_real(v[i].gemm_ratio) : json_null());
		json_object_set_new(o, "hbm_ratio",
				    isfinite(v[i].hbm_ratio) ? json_real(v[i].hbm_ratio) : json_null());
		json_object_set_new(o, "host_ratio",
				    isfinite(v[i].host_ratio) ? json_real(v[i].host_ratio) : json_null());
		json_object_set_new(o, "cause", v[i].cause ? json_string(v[i].cause) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *result_json(const struct bench_result *r, const struct cat_gpu *type, const struct bench_verdict *v,
			   size_t nv)
{
	json_t *root = json_object(), *rows = json_array(), *sk = json_array(), *libs = json_object();
	struct report_row *row = report_row_new(bench_row_schema());
	size_t i;
	json_object_set_new(root, "date", json_string(r->date));
	json_object_set_new(root, "gpu_type", type ? json_string(type->row.key) : json_null());
	json_object_set_new(root, "driver", r->driver_version ? json_string(r->driver_version) : json_null());
	json_object_set_new(root, "cuda_driver", json_integer(r->cuda_driver));
	json_object_set_new(libs, "cuda", r->lib_cuda ? json_string(r->lib_cuda) : json_null());
	json_object_set_new(libs, "cublaslt", r->lib_cublaslt ? json_string(r->lib_cublaslt) : json_null());
	json_object_set_new(libs, "cublaslt_version", json_integer(r->cublaslt_version));
	json_object_set_new(libs, "nccl", r->lib_nccl ? json_string(r->lib_nccl) : json_null());
	json_object_set_new(libs, "nccl_version", json_integer(r->nccl_version));
	json_object_set_new(root, "libraries", libs);
	json_object_set_new(root, "gpus", gpus_json(r));
	for (i = 0; i < r->nskipped; i++)
		json_array_append_new(sk, json_string(r->skipped[i]));
	json_object_set_new(root, "skipped", sk);
	for (i = 0; i < r->nrows; i++) {
		bench_row_fill(&r->rows[i], row);
		json_array_append_new(rows, report_row_json(row));
	}
	report_row_free(row);
	json_object_set_new(root, "results", rows);
	if (v)
		json_object_set_new(root, "quick", verdicts_json(v, nv));
	return root;
}

void view_bench_write(FILE *out, const struct bench_result *r, const struct cat_gpu *type,
		      const struct bench_verdict *v, size_t nv, enum output_format fmt)
{
	size_t i;
	if (fmt == FORMAT_JSON) {
		json_t *j = result_json(r, type, v, nv);
		report_json_print(j);
		json_decref(j);
	} else if (fmt == FORMAT_CSV) {
		struct report_row *row = report_row_new(bench_row_schema());
		report_csv_header(bench_row_schema(), out);
		for (i = 0; i < r->nrows; i++) {
			bench_row_fill(&r->rows[i], row);
			report_csv_row(row, out);
		}
		report_row_free(row);
	} else {
		header(out, r, type);
		if (r->nrows)
			print_human(out, r);
		if (v)
			view_bench_verdicts(out, v, nv, "the catalog's figures");
	}
}
