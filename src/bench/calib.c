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

/* Writes root (consumed) to f as indented JSON. */
static int dump(json_t *root, FILE *f, struct diag *err)
{
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(root);
	if (!text)
		return diag_set(err, "", 0, 0, "", "out of memory");
	fprintf(f, "%s\n", text);
	free(text);
	return 0;
}

int bench_calibration_write(const struct bench_result *r, const struct cat_gpu *g, FILE *f, struct diag *err)
{
	json_t *root, *gpu, *ceil, *gemm, *eff;
	const struct bench_row *x, *clk_row = NULL;
	double hbm = mean_of(r, "hbm-copy");
	int p, any = 0;
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
	return dump(root, f, err);
}

int bench_calibration_write_corrections(const struct cat_gpu *g, const double corr[MODEL_NCORR], const char *from,
					const char *date, FILE *f, struct diag *err)
{
	json_t *root = json_object(), *gpu = json_object(), *sec = json_object(), *cls = json_object();
	int i, any = 0;
	json_object_set_new(root, "format", json_string("gpuscope-calibration"));
	json_object_set_new(root, "version", json_integer(BENCH_CALIBRATION_VERSION));
	json_object_set_new(root, "date", json_string(date));
	json_object_set_new(gpu, "name", json_string(g->row.name ? g->row.name : g->row.key));
	json_object_set_new(gpu, "catalog", json_string(g->row.key));
	json_object_set_new(gpu, "count", json_integer(1));
	json_object_set_new(root, "gpu", gpu);
	json_object_set_new(root, "ceilings", json_object());
	json_object_set_new(sec, "version", json_integer(BENCH_CORRECTIONS_VERSION));
	json_object_set_new(sec, "from", json_string(from));
	for (i = 0; i < MODEL_NCORR; i++)
		if (corr[i] > 0 && isfinite(corr[i])) {
			set_num(cls, model_corr_name(i), corr[i]);
			any = 1;
		}
	json_object_set_new(sec, "classes", cls);
	json_object_set_new(root, "corrections", sec);
	if (!any) {
		json_decref(root);
		return diag_set(err, "", 0, 0, "", "no part of the step has both a traced and an estimated time");
	}
	return dump(root, f, err);
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

/* o's value at the path's last key (o holds that key), or NULL. */
static json_t *at_last_key(json_t *o, const char *const *path)
{
	size_t i;
	for (i = 1; path[i]; i++)
		;
	return json_object_get(o, path[i - 1]);
}

/* A positive finite number at path, or NaN when absent; -1 on a bad value. */
static int get_pos(const struct reader *rd, json_t *o, const char *const *path, double *v)
{
	json_t *x = at_last_key(o, path);
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

/* The optional "corrections" section: {"version": 1, "from": "...", "classes": {"gemm": f, ...}}. */
static int parse_corrections(const struct reader *rd, json_t *root, struct model_calibration *out)
{
	const char *sp[] = {"corrections", NULL}, *vp[] = {"corrections", "version", NULL};
	const char *cp[] = {"corrections", "classes", NULL}, *key;
	json_t *sec = get_object(rd, root, sp, "corrections", 0), *cls, *v;
	int i;
	if (!sec)
		return json_object_get(root, "corrections") ? -1 : 0;
	v = json_object_get(sec, "version");
	if (!json_is_integer(v) || json_integer_value(v) != BENCH_CORRECTIONS_VERSION)
		return field_error(rd, vp, "expected %d, the corrections version this gpuscope reads",
				   BENCH_CORRECTIONS_VERSION);
	if (!(cls = get_object(rd, sec, cp, "classes", 1)))
		return -1;
	json_object_foreach(cls, key, v)
	{
		const char *kp[] = {"corrections", "classes", key, NULL};
		for (i = 0; i < MODEL_NCORR && strcmp(model_corr_name(i), key); i++)
			;
		if (i == MODEL_NCORR)
			return field_error(rd, kp,
					   "'%s' is not a part of the step (gemm, attention, memory_bound, "
					   "comm, host)",
					   key);
		if (get_pos(rd, cls, kp, &out->corr[i]))
			return -1;
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
		return field_error(rd, vp, "%s", v ? "expected an integer" : "missing");
	if (json_integer_value(v) != BENCH_CALIBRATION_VERSION) {
		char n[32];
		snprintf(n, sizeof(n), "%lld", (long long)json_integer_value(v));
		return field_error(rd, vp, "version %s is not one this gpuscope reads (1)", n);
	}
	return 0;
}

/* An optional text at o[path's last key] into *v (owned); -1 on a value of another kind. */
static int get_text(const struct reader *rd, json_t *o, const char *const *path, char **v)
{
	json_t *x = at_last_key(o, path);
	if (!x || json_is_null(x))
		return 0;
	if (!json_is_string(x))
		return field_error(rd, path, "expected a text");
	*v = xstrdup(json_string_value(x));
	return 0;
}

/* An optional whole number >= 0 at o[path's last key]; -1 on a value of another kind. */
static int get_count(const struct reader *rd, json_t *o, const char *const *path, long long *v)
{
	json_t *x = at_last_key(o, path);
	if (!x || json_is_null(x))
		return 0;
	if (!json_is_integer(x) || json_integer_value(x) < 0)
		return field_error(rd, path, "expected a whole number >= 0");
	*v = (long long)json_integer_value(x);
	return 0;
}

/* The software and GPU description: every one optional, each of its kind. */
static int parse_about(const struct reader *rd, json_t *root, json_t *gpu, struct bench_calibration *c)
{
	const char *dp[] = {"date", NULL}, *np[] = {"gpu", "name", NULL}, *up[] = {"gpu", "uuid", NULL};
	const char *cp[] = {"gpu", "count", NULL}, *vp[] = {"driver", NULL}, *cd[] = {"cuda_driver", NULL};
	const char *bl[] = {"cublaslt", NULL}, *nc[] = {"nccl", NULL};
	return get_text(rd, root, dp, &c->date) || get_text(rd, gpu, np, &c->gpu_name) ||
	       get_text(rd, gpu, up, &c->uuid) || get_count(rd, gpu, cp, &c->count) ||
	       get_text(rd, root, vp, &c->driver) || get_count(rd, root, cd, &c->cuda_driver) ||
	       get_count(rd, root, bl, &c->cublaslt) || get_count(rd, root, nc, &c->nccl);
}

static int parse_ceilings(const struct reader *rd, json_t *ceil, struct bench_calibration *c)
{
#define READ_CEILING(name, unit, help) \
	{ \
		const char *path[] = {"ceilings", #name, NULL}; \
		if (get_pos(rd, ceil, path, &c->name)) \
			return -1; \
	}
	BENCH_CAL_CEILINGS(READ_CEILING)
#undef READ_CEILING
	c->model.hbm_gbps = c->hbm_copy_gbps;
	return 0;
}

static int parse_clocks(const struct reader *rd, json_t *root, struct bench_calibration *c)
{
	const char *kp[] = {"clocks", NULL}, *sp[] = {"clocks", "sm_mhz", NULL},
		   *mp[] = {"clocks", "mem_mhz", NULL};
	const char *pp[] = {"clocks", "power_w", NULL}, *ep[] = {"clocks", "clock_events", NULL};
	json_t *clk = get_object(rd, root, kp, "clocks", 0);
	if (!clk)
		return json_object_get(root, "clocks") ? -1 : 0;
	return get_pos(rd, clk, sp, &c->sm_mhz) || get_pos(rd, clk, mp, &c->mem_mhz) ||
	       get_pos(rd, clk, pp, &c->power_w) || get_text(rd, clk, ep, &c->clock_events);
}

void bench_calibration_release(struct bench_calibration *c)
{
	free(c->file);
	free(c->date);
	free(c->gpu_name);
	free(c->uuid);
	free(c->driver);
	free(c->clock_events);
	memset(c, 0, sizeof(*c));
}

char *bench_calibration_summary(const struct bench_calibration *c)
{
	const struct model_calibration *m = &c->model;
	int p, best = -1;
	for (p = 0; p <= MODEL_FP8; p++)
		if (m->gemm_tflops[p] > 0 && (best < 0 || p == MODEL_BF16))
			best = p;
	return xasprintf("%s, %lld x %s measured %s: %s GEMM %.0f TFLOP/s, HBM %.0f GB/s", m->gpu->row.key,
			 c->count > 0 ? c->count : 1, c->gpu_name ? c->gpu_name : "?", c->date ? c->date : "?",
			 best >= 0 ? prec_names[best] : "no", best >= 0 ? m->gemm_tflops[best] : 0.0,
			 m->hbm_gbps > 0 ? m->hbm_gbps : 0.0);
}

/* Everything but the JSON syntax and the top-level kind, into c (which the caller releases on failure). */
static int parse_root(const struct reader *rd, json_t *root, const struct catalog *cat,
		      struct bench_calibration *c)
{
	const char *gp[] = {"gpu", NULL}, *cp[] = {"gpu", "catalog", NULL}, *ce[] = {"ceilings", NULL};
	const char *gm[] = {"ceilings", "gemm", NULL};
	json_t *gpu, *ceil, *gemm, *key;
	char why[256];
	if (check_header(rd, root) || !(gpu = get_object(rd, root, gp, "gpu", 1)))
		return -1;
	key = json_object_get(gpu, "catalog");
	if (!json_is_string(key))
		return field_error(rd, cp, "%s",
				   key ? "expected the catalog's GPU key (bench --gpu-type names it)" :
					 "missing: the catalog's GPU key (bench --gpu-type names it)");
	c->model.gpu = catalog_gpu(cat, json_string_value(key), why, sizeof(why));
	if (!c->model.gpu)
		return field_error(rd, cp, "%s", why);
	if (parse_about(rd, root, gpu, c) || !(ceil = get_object(rd, root, ce, "ceilings", 1)))
		return -1;
	gemm = get_object(rd, ceil, gm, "gemm", 0);
	if ((!gemm && json_object_get(ceil, "gemm")) || (gemm && parse_gemm(rd, gemm, &c->model)) ||
	    parse_ceilings(rd, ceil, c) || parse_clocks(rd, root, c) || parse_corrections(rd, root, &c->model))
		return -1;
	return 0;
}

int bench_calibration_read(const char *text, size_t len, const char *file, const struct catalog *cat,
			   struct bench_calibration *out, struct diag *err)
{
	struct reader rd = {text, len, file, err};
	struct bench_calibration c;
	json_error_t je;
	json_t *root;
	int p, rc;
	memset(&c, 0, sizeof(c));
	for (p = 0; p <= MODEL_FP8; p++)
		c.model.gemm_tflops[p] = NAN;
	c.model.hbm_gbps = c.sm_mhz = c.mem_mhz = c.power_w = NAN;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return diag_set(err, file, je.line > 0 ? je.line : 1, je.column > 0 ? je.column : 1, "",
				"not valid JSON: %s", je.text);
	if (!json_is_object(root)) {
		json_decref(root);
		return diag_set(err, file, 1, 1, "", "expected a JSON object (a gpuscope calibration file)");
	}
	rc = parse_root(&rd, root, cat, &c);
	json_decref(root);
	if (rc) {
		bench_calibration_release(&c);
		return -1;
	}
	c.file = xstrdup(file);
	c.model.file = c.file;
	c.model.date = c.date;
	c.model.gpu_name = c.gpu_name;
	*out = c;
	return 0;
}

int bench_calibration_parse(const char *text, size_t len, const char *file, const struct catalog *cat,
			    struct model_calibration *out, char **summary, struct diag *err)
{
	struct bench_calibration c;
	*summary = NULL;
	if (bench_calibration_read(text, len, file, cat, &c, err))
		return -1;
	*summary = bench_calibration_summary(&c);
	*out = c.model;
	out->file = out->date = out->gpu_name = NULL;
	bench_calibration_release(&c);
	return 0;
}

/* The whole file into *buf (malloc()ed; NUL-terminated past *len), or -1 with err. */
static int slurp(const char *path, char **buf, size_t *len, struct diag *err)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 0, n;
	*buf = NULL;
	*len = 0;
	if (!f)
		return diag_set(err, path, 0, 0, "", "cannot open: %s", strerror(errno));
	for (;;) {
		if (*len + 4096 > cap) {
			cap = cap ? 2 * cap : 8192;
			if (cap > (16u << 20)) {
				fclose(f);
				free(*buf);
				*buf = NULL;
				diag_set(err, path, 0, 0, "", "larger than 16 MiB: not a calibration file");
				return -1;
			}
			*buf = xrealloc(*buf, cap);
		}
		n = fread(*buf + *len, 1, cap - *len - 1, f);
		*len += n;
		if (n == 0)
			break;
	}
	(*buf)[*len] = 0;
	if (ferror(f)) {
		fclose(f);
		free(*buf);
		*buf = NULL;
		diag_set(err, path, 0, 0, "", "read error");
		return -1;
	}
	fclose(f);
	return 0;
}

int bench_calibration_read_file(const char *path, const struct catalog *cat, struct bench_calibration *out,
				struct diag *err)
{
	char *buf;
	size_t len;
	int rc;
	if (slurp(path, &buf, &len, err))
		return -1;
	rc = bench_calibration_read(buf, len, path, cat, out, err);
	free(buf);
	return rc;
}

int bench_calibration_load(const char *path, const struct catalog *cat, struct model_calibration *out,
			   char **summary, struct diag *err)
{
	char *buf;
	size_t len;
	int rc;
	*summary = NULL;
	if (slurp(path, &buf, &len, err))
		return -1;
	rc = bench_calibration_parse(buf, len, path, cat, out, summary, err);
	free(buf);
	return rc;
}
