/* gpuscope bench's output (view/bench.h). */
#include <jansson.h>
#include <math.h>
#include <string.h>

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

static const char *size_text(const struct bench_row *x, char *buf, size_t len)
{
	if (!strcmp(x->test, "gemm"))
		snprintf(buf, len, "%.0fx%.0fx%.0f", x->m, x->n, x->k);
	else if (x->bytes > 0)
		fmt_bytes(x->bytes, FMT_BYTES_BINARY, buf, len);
	else
		snprintf(buf, len, "-");
	return buf;
}

static const char *value_text(const struct bench_row *x, double v, char *buf, size_t len)
{
	if (!(v > 0) && !(v < 0))
		return "-";
	snprintf(buf, len, "%.1f", x->latency_s > 0 ? v * 1e6 : v);
	return buf;
}

static void print_table(FILE *out, const struct bench_result *r)
{
	struct table *t = table_new();
	size_t i;
	table_columns(t, ALIGN_LEFT, "test", "gpu", "size", NULL);
	table_columns(t, ALIGN_RIGHT, "measured", "expected", NULL);
	table_column(t, "unit", ALIGN_LEFT);
	table_columns(t, ALIGN_RIGHT, "SM MHz", "W", NULL);
	table_column(t, "clock events", ALIGN_LEFT);
	for (i = 0; i < r->nrows; i++) {
		const struct bench_row *x = &r->rows[i];
		char a[FMT_LEN], b[FMT_LEN], c[FMT_LEN], reasons[256];
		double v = x->tflops > 0     ? x->tflops :
			   x->busbw_gbps > 0 ? x->busbw_gbps :
			   x->gbps > 0       ? x->gbps :
					       x->latency_s;
		table_row(t);
		if (x->label)
			table_cellf(t, "%s %s", x->dtype, x->label);
		else if (x->dtype && !strcmp(x->test, "gemm"))
			table_cellf(t, "%s %s", x->test, x->dtype);
		else
			table_cell(t, x->test);
		if (x->gpu < 0)
			table_cell(t, "all");
		else if (x->peer >= 0)
			table_cellf(t, "%d>%d", x->gpu, x->peer);
		else
			table_cellf(t, "%d", x->gpu);
		table_cell(t, size_text(x, a, sizeof(a)));
		table_cell(t, value_text(x, v, b, sizeof(b)));
		table_cell(t, value_text(x, x->expected, c, sizeof(c)));
		table_cell(t, x->tflops > 0     ? "TFLOP/s" :
			      x->latency_s > 0  ? "us" :
			      x->busbw_gbps > 0 ? "GB/s bus" :
						  "GB/s");
		if (x->clk.sm_mhz > 0)
			table_cellf(t, "%.0f", x->clk.sm_mhz);
		else
			table_cell(t, NULL);
		if (x->clk.power_w > 0)
			table_cellf(t, "%.0f", x->clk.power_w);
		else
			table_cell(t, NULL);
		table_cell(t, x->clk.valid ?
				      (*bench_reasons_text(x->clk.reasons, reasons, sizeof(reasons)) ? reasons :
												       "none") :
				      NULL);
	}
	table_print(t, out, 0);
	table_free(t);
	fprintf(out, "collectives: bus bandwidth as nccl-tests computes it; launch, graph: one launch\n");
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
	char a[32], b[32], c[32];
	size_t i;
	for (i = 0; i < nv; i++) {
		if (!v[i].flagged) {
			fprintf(out, "gpu %d: as fast as %s (GEMM %s, HBM %s, host copies %s)\n", v[i].gpu, ref,
				pct(v[i].gemm_ratio, a, sizeof(a)), pct(v[i].hbm_ratio, b, sizeof(b)),
				pct(v[i].host_ratio, c, sizeof(c)));
			continue;
		}
		if (v[i].slower_pct >= BENCH_QUICK_SLOW_PCT)
			fprintf(out, "gpu %d: this GPU is %.0f %% slower than its peers", v[i].gpu,
				v[i].slower_pct);
		else
			fprintf(out, "gpu %d: its host link is %.0f %% slower than its peers", v[i].gpu,
				100 * (1 - v[i].host_ratio));
		fprintf(out, " (GEMM %s, HBM %s, host copies %s of %s); likely cause: %s\n",
			pct(v[i].gemm_ratio, a, sizeof(a)), pct(v[i].hbm_ratio, b, sizeof(b)),
			pct(v[i].host_ratio, c, sizeof(c)), ref, v[i].cause ? v[i].cause : "none that NVML shows");
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
			print_table(out, r);
		if (v)
			view_bench_verdicts(out, v, nv, "the catalog's figures");
	}
}
