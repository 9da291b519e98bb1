/*
 * Calibration files: written from a bench result, read back into the
 * model's measured ceilings.  jansson parses; a value of the wrong kind is
 * reported at its key, found again in the text (jansson keeps no offsets).
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench/calib.h"
#include "util/xalloc.h"

static const char *const prec_names[MODEL_FP8 + 1] = {"fp32", "tf32", "fp16", "bf16", "fp8"};

char *bench_calibration_default_path(void)
{
	const char *e = getenv("GPUSCOPE_CALIBRATION"), *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
	if (e && *e)
		return xstrdup(e);
	if (x && *x)
		return xasprintf("%s/gpuscope/calibration.json", x);
	if (h && *h)
		return xasprintf("%s/.config/gpuscope/calibration.json", h);
	return NULL;
}

/* The best figure of a test on GPU 0's sweep (gemm: square shapes of dtype), or NULL. */
static const struct bench_row *best(const struct bench_result *r, const char *test, const char *dtype)
{
	const struct bench_row *b = NULL;
	size_t i;
	for (i = 0; i < r->nrows; i++) {
		const struct bench_row *x = &r->rows[i];
		double v = x->tflops > 0 ? x->tflops : x->busbw_gbps > 0 ? x->busbw_gbps : x->gbps;
		double bv = !b ? -1 : b->tflops > 0 ? b->tflops : b->busbw_gbps > 0 ? b->busbw_gbps : b->gbps;
		if (strcmp(x->test, test) || (dtype && (!x->dtype || strcmp(x->dtype, dtype))) || x->label)
			continue;
		if (v > bv)
			b = x;
	}
	return b;
}

/* The mean figure of a test over every GPU (HBM, host copies, peers), NaN when none. */
static double mean_of(const struct bench_result *r, const char *test)
{
	double s = 0;
	size_t i, n = 0;
	for (i = 0; i < r->nrows; i++)
		if (!strcmp(r->rows[i].test, test) && r->rows[i].gbps > 0) {
			s += r->rows[i].gbps;
			n++;
		}
	return n ? s / (double)n : NAN;
}

static void set_num(json_t *o, const char *k, double v)
{
	if (isfinite(v))
		json_object_set_new(o, k, json_real(v));
}

static json_t *clocks_json(const struct bench_row *x)
{
	json_t *c = json_object();
	char buf[256];
	if (!x || !x->clk.valid)
		return c;
	set_num(c, "sm_mhz", x->clk.sm_mhz);
	set_num(c, "mem_mhz", x->clk.mem_mhz);
	set_num(c, "power_w", x->clk.power_w);
	json_object_set_new(c, "clock_events", json_string(bench_reasons_text(x->clk.reasons, buf, sizeof(buf))));
	return c;
}

int bench_calibration_write(const struct bench_result *r, const struct cat_gpu *g, FILE *f, struct diag *err)
{
	json_t *root, *gpu, *ceil, *gemm, *eff;
	const struct bench_row *x, *clk_row = NULL;
	double hbm = mean_of(r, "hbm-copy");
	int p, any = 0;
	char *text;
	if (!r->ngpus)
		return diag_set(err, "", 0, 0, "", "no GPU was measured");
	root = json_object();
	json_object_set_new(root, "format", json_string("gpuscope-calibration"));
	json_object_set_new(root, "version", json_integer(BENCH_CALIBRATION_VERSION));
	json_object_set_new(root, "date", json_string(r->date));
	gpu = json_object();
	json_object_set_new(gpu, "name", json_string(r->gpus[0].name));
	if (r->gpus[0].uuid)
		json_object_set_new(gpu, "uuid", json_string(r->gpus[0].uuid));
	json_object_set_new(gpu, "catalog", g ? json_string(g->row.key) : json_null());
	json_object_set_new(gpu, "count", json_integer((json_int_t)r->ngpus));
	json_object_set_new(root, "gpu", gpu);
	json_object_set_new(root, "driver", r->driver_version ? json_string(r->driver_version) : json_null());
	json_object_set_new(root, "cuda_driver", json_integer(r->cuda_driver));
	json_object_set_new(root, "cublaslt", json_integer(r->cublaslt_version));
	json_object_set_new(root, "nccl", json_integer(r->nccl_version));
	ceil = json_object();
	gemm = json_object();
	eff = json_object();
	for (p = 0; p <= MODEL_FP8; p++) {
		json_t *one;
		if (!(x = best(r, "gemm", prec_names[p])))
			continue;
		one = json_object();
		set_num(one, "tflops", x->tflops);
		json_object_set_new(one, "m", json_integer((json_int_t)x->m));
		json_object_set_new(one, "n", json_integer((json_int_t)x->n));
		json_object_set_new(one, "k", json_integer((json_int_t)x->k));
		json_object_set_new(gemm, prec_names[p], one);
		if (g) {
			double peak = p == MODEL_FP32 ? g->fp32_tflops :
				      p == MODEL_TF32 ? g->tf32_tflops :
				      p == MODEL_FP16 ? g->fp16_tflops :
				      p == MODEL_BF16 ? g->bf16_tflops :
							g->fp8_tflops;
			if (peak > 0)
				set_num(eff, prec_names[p], x->tflops / peak);
		}
		if (!clk_row || p == MODEL_BF16)
			clk_row = x;
		any = 1;
	}
	json_object_set_new(ceil, "gemm", gemm);
	set_num(ceil, "hbm_read_gbps", mean_of(r, "hbm-read"));
	set_num(ceil, "hbm_write_gbps", mean_of(r, "hbm-write"));
	set_num(ceil, "hbm_copy_gbps", hbm);
	set_num(ceil, "h2d_gbps", mean_of(r, "h2d"));
	set_num(ceil, "d2h_gbps", mean_of(r, "d2h"));
	set_num(ceil, "p2p_gbps", mean_of(r, "p2p"));
	if ((x = best(r, "all-reduce", NULL)))
		set_num(ceil, "allreduce_busbw_gbps", x->busbw_gbps);
	if ((x = best(r, "launch", NULL)))
		set_num(ceil, "launch_s", x->latency_s);
	if ((x = best(r, "graph", NULL)))
		set_num(ceil, "graph_s", x->latency_s);
	if (g && g->mem_bw_gbps > 0 && hbm > 0)
		set_num(eff, "hbm", hbm / g->mem_bw_gbps);
	json_object_set_new(root, "ceilings", ceil);
	json_object_set_new(root, "efficiencies", eff);
	json_object_set_new(root, "clocks", clocks_json(clk_row));
	if (!any && !(hbm > 0)) {
		json_decref(root);
		return diag_set(err, "", 0, 0, "",
				"neither a GEMM nor the HBM copy was measured: nothing to calibrate");
	}
	text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(root);
	if (!text)
		return diag_set(err, "", 0, 0, "", "out of memory");
	fprintf(f, "%s\n", text);
	free(text);
	return 0;
}

/* ---- reading ---- */

struct reader {
	const char *text;
	size_t len;
	const char *file;
	struct diag *err;
};

/* Line and column of the key path's last key in the text, each key searched after the one before. */
static void locate(const struct reader *rd, const char *const *path, int *line, int *col)
{
	const char *at = rd->text, *end = rd->text + rd->len, *p;
	size_t i;
	*line = 1;
	*col = 1;
	for (i = 0; path[i]; i++) {
		size_t kl = strlen(path[i]);
		const char *hit = NULL;
		for (p = at; p + kl + 2 <= end; p++)
			if (*p == '"' && !memcmp(p + 1, path[i], kl) && p[kl + 1] == '"') {
				hit = p;
				break;
			}
		if (!hit)
			break;
		at = hit;
	}
	for (p = rd->text; p < at; p++) {
		if (*p == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static int field_error(const struct reader *rd, const char *const *path, const char *fmt, ...) GS_PRINTF(3, 4);
static int field_error(const struct reader *rd, const char *const *path, const char *fmt, ...)
{
	char name[128] = "", msg[400];
	va_list ap;
	int line, col;
	size_t i, used = 0;
	for (i = 0; path[i]; i++)
		used += (size_t)snprintf(name + (used < sizeof(name) ? used : sizeof(name)),
					 used < sizeof(name) ? sizeof(name) - used : 0, "%s%s", i ? "." : "",
					 path[i]);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	locate(rd, path, &line, &col);
	return diag_set(rd->err, rd->file, line, col, name, "%s", msg);
}

/* A positive finite number at path, or NaN when absent; -1 on a bad value. */
static int get_pos(const struct reader *rd, json_t *o, const char *const *path, double *v)
{
	json_t *x;
	size_t i;
	for (i = 1; path[i]; i++) /* o holds the path's last key */
		;
	x = json_object_get(o, path[i - 1]);
	*v = NAN;
	if (!x)
		return 0;
	if (!json_is_number(x) || !isfinite(json_number_value(x)) || !(json_number_value(x) > 0))
		return field_error(rd, path, "expected a positive number");
	*v = json_number_value(x);
	return 0;
}

static json_t *get_object(const struct reader *rd, json_t *o, const char *const *path, const char *key, int need)
{
	json_t *x = json_object_get(o, key);
	if (!x && !need)
		return NULL;
	if (!x || !json_is_object(x)) {
		field_error(rd, path, "%s", x ? "expected an object" : "missing");
		return NULL;
	}
	return x;
}

static int parse_gemm(const struct reader *rd, json_t *gemm, struct model_calibration *out)
{
	int p;
	const char *key;
	json_t *v;
	json_object_foreach(gemm, key, v)
	{
		const char *path[] = {"ceilings", "gemm", key, NULL};
		for (p = 0; p <= MODEL_FP8 && strcmp(prec_names[p], key); p++)
			;
		if (p > MODEL_FP8)
			return field_error(rd, path, "'%s' is not a GEMM dtype (fp32, tf32, fp16, bf16, fp8)",
					   key);
		if (!json_is_object(v))
			return field_error(rd, path, "expected an object {tflops, m, n, k}");
		{
			const char *tp[] = {"ceilings", "gemm", key, "tflops", NULL};
			const char *mp[] = {"ceilings", "gemm", key, "m", NULL};
			const char *np[] = {"ceilings", "gemm", key, "n", NULL};
			const char *kp[] = {"ceilings", "gemm", key, "k", NULL};
			if (get_pos(rd, v, tp, &out->gemm_tflops[p]) ||
			    get_pos(rd, v, mp, &out->gemm_shape[p][0]) ||
			    get_pos(rd, v, np, &out->gemm_shape[p][1]) ||
			    get_pos(rd, v, kp, &out->gemm_shape[p][2]))
				return -1;
			if (isnan(out->gemm_tflops[p]))
				return field_error(rd, tp, "missing");
			if (isnan(out->gemm_shape[p][0]) || isnan(out->gemm_shape[p][1]) ||
			    isnan(out->gemm_shape[p][2]))
				return field_error(rd, path, "needs its shape: m, n and k");
		}
	}
	return 0;
}

static int check_header(const struct reader *rd, json_t *root)
{
	const char *fp[] = {"format", NULL}, *vp[] = {"version", NULL};
	json_t *f = json_object_get(root, "format"), *v = json_object_get(root, "version");
	if (!json_is_string(f) || strcmp(json_string_value(f), "gpuscope-calibration"))
		return field_error(rd, fp, "expected \"gpuscope-calibration\": not a calibration file");
	if (!json_is_integer(v))
		return field_error(rd, vp, "expected an integer");
	if (json_integer_value(v) != BENCH_CALIBRATION_VERSION) {
		char n[32];
		snprintf(n, sizeof(n), "%lld", (long long)json_integer_value(v));
		return field_error(rd, vp, "version %s is not one this gpuscope reads (1)", n);
	}
	return 0;
}

static char *describe(json_t *root, const struct model_calibration *c)
{
	json_t *gpu = json_object_get(root, "gpu");
	const char *name = json_string_value(json_object_get(gpu, "name"));
	const char *date = json_string_value(json_object_get(root, "date"));
	json_int_t count = json_integer_value(json_object_get(gpu, "count"));
	int p, best = -1;
	for (p = 0; p <= MODEL_FP8; p++)
		if (c->gemm_tflops[p] > 0 && (best < 0 || p == MODEL_BF16))
			best = p;
	return xasprintf("%s, %lld x %s measured %s: %s GEMM %.0f TFLOP/s, HBM %.0f GB/s", c->gpu->row.key,
			 (long long)(count > 0 ? count : 1), name ? name : "?", date ? date : "?",
			 best >= 0 ? prec_names[best] : "no", best >= 0 ? c->gemm_tflops[best] : 0.0,
			 c->hbm_gbps > 0 ? c->hbm_gbps : 0.0);
}

int bench_calibration_parse(const char *text, size_t len, const char *file, const struct catalog *cat,
			    struct model_calibration *out, char **summary, struct diag *err)
{
	struct reader rd = {text, len, file, err};
	const char *gp[] = {"gpu", NULL}, *cp[] = {"gpu", "catalog", NULL}, *ce[] = {"ceilings", NULL};
	const char *gm[] = {"ceilings", "gemm", NULL}, *hp[] = {"ceilings", "hbm_copy_gbps", NULL};
	json_error_t je;
	json_t *root, *gpu, *ceil, *gemm, *key;
	char why[256];
	int p;
	memset(out, 0, sizeof(*out));
	for (p = 0; p <= MODEL_FP8; p++)
		out->gemm_tflops[p] = NAN;
	out->hbm_gbps = NAN;
	*summary = NULL;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return diag_set(err, file, je.line > 0 ? je.line : 1, je.column > 0 ? je.column : 1, "",
				"not valid JSON: %s", je.text);
	if (!json_is_object(root)) {
		json_decref(root);
		return diag_set(err, file, 1, 1, "", "expected a JSON object (a gpuscope calibration file)");
	}
	if (check_header(&rd, root) || !(gpu = get_object(&rd, root, gp, "gpu", 1)))
		goto bad;
	key = json_object_get(gpu, "catalog");
	if (!json_is_string(key)) {
		field_error(&rd, cp, "expected the catalog's GPU key (bench --gpu-type names it)");
		goto bad;
	}
	out->gpu = catalog_gpu(cat, json_string_value(key), why, sizeof(why));
	if (!out->gpu) {
		field_error(&rd, cp, "%s", why);
		goto bad;
	}
	if (!(ceil = get_object(&rd, root, ce, "ceilings", 1)))
		goto bad;
	gemm = get_object(&rd, ceil, gm, "gemm", 0);
	if ((!gemm && json_object_get(ceil, "gemm")) || (gemm && parse_gemm(&rd, gemm, out)) ||
	    get_pos(&rd, ceil, hp, &out->hbm_gbps))
		goto bad;
	*summary = describe(root, out);
	json_decref(root);
	return 0;
bad:
	json_decref(root);
	return -1;
}

int bench_calibration_load(const char *path, const struct catalog *cat, struct model_calibration *out,
			   char **summary, struct diag *err)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int rc;
	if (!f)
		return diag_set(err, path, 0, 0, "", "cannot open: %s", strerror(errno));
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? 2 * cap : 8192;
			if (cap > (16u << 20)) {
				fclose(f);
				free(buf);
				return diag_set(err, path, 0, 0, "", "larger than 16 MiB: not a calibration file");
			}
			buf = xrealloc(buf, cap);
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return diag_set(err, path, 0, 0, "", "read error");
	}
	fclose(f);
	rc = bench_calibration_parse(buf ? buf : "", len, path, cat, out, summary, err);
	free(buf);
	return rc;
}
