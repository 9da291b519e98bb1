/*
 * Measured ceilings in place of the catalog's (docs/bench.md, "How the
 * figures feed the model").
 *
 * The model times an m x n x k GEMM at
 *     peak x emax x s(m) s(n) s(k) x wave(m, n),   s(x) = x / (x + x0)
 * (model/hw.c, gemm_s).  bench measures R TFLOP/s at its best shape
 * (m, n, k), so the fraction that reproduces R there is
 *     emax' = R / (peak x s(m) s(n) s(k) x wave(m, n))
 * and every other shape follows from emax' by the same curve.  The HBM copy
 * rate B replaces datasheet x stream fraction.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/kernels.h"
#include "model/model_int.h"
#include "model/vendor.h"
#include "util/xalloc.h"

#define MAX_CAL 8
static struct model_calibration cals[MAX_CAL];
static int ncals;

static void forget_text(struct model_calibration *c)
{
	free((char *)c->file);
	free((char *)c->date);
	free((char *)c->gpu_name);
	c->file = c->date = c->gpu_name = NULL;
}

void model_calibration_use(const struct model_calibration *c)
{
	int i;
	if (!c) {
		for (i = 0; i < ncals; i++)
			forget_text(&cals[i]);
		ncals = 0;
		return;
	}
	for (i = 0; i < ncals && cals[i].gpu != c->gpu; i++)
		;
	if (i == MAX_CAL)
		return;
	if (i < ncals)
		forget_text(&cals[i]);
	cals[i] = *c;
	cals[i].file = c->file ? xstrdup(c->file) : NULL;
	cals[i].date = c->date ? xstrdup(c->date) : NULL;
	cals[i].gpu_name = c->gpu_name ? xstrdup(c->gpu_name) : NULL;
	if (i == ncals)
		ncals++;
}

const struct model_calibration *model_calibration_at(size_t i)
{
	return i < (size_t)ncals ? &cals[i] : NULL;
}

const struct model_calibration *model_calibration_of(const struct cat_gpu *g)
{
	int i;
	for (i = 0; g && i < ncals; i++)
		if (cals[i].gpu == g || (cals[i].gpu && !strcmp(cals[i].gpu->row.key, g->row.key)))
			return &cals[i];
	return NULL;
}

/* The model's loss at a GEMM shape: s(m) s(n) s(k) x wave(m, n) (model/hw.c, gemm_s). */
static double shape_eff(const struct cat_gpu *g, double m, double n, double k)
{
	double x0 = TUNE_GEMM_X0;
	return m / (m + x0) * n / (n + x0) * k / (k + x0) *
	       model_gemm_wave_eff(g->sm_count > 0 ? g->sm_count : 0, m, n, k);
}

double model_calibration_emax(const struct model_calibration *c, enum model_precision p)
{
	const struct cat_gpu *g = c->gpu;
	double peak, m, n, k;
	if ((int)p < 0 || p > MODEL_FP8 || !(c->gemm_tflops[p] > 0) || !g)
		return NAN;
	peak = peak_of(g, p);
	m = c->gemm_shape[p][0];
	n = c->gemm_shape[p][1];
	k = c->gemm_shape[p][2];
	if (!(peak > 0) || !(m > 0) || !(n > 0) || !(k > 0))
		return NAN;
	return c->gemm_tflops[p] * 1e12 / (peak * shape_eff(g, m, n, k));
}

size_t model_calibration_ceilings(const struct model_calibration *c, struct model_ceiling out[MODEL_CEILINGS_MAX])
{
	static const char *const gemm_names[MODEL_FP8 + 1] = {"gemm-fp32", "gemm-tf32", "gemm-fp16", "gemm-bf16",
							      "gemm-fp8"};
	const struct cat_gpu *g = c->gpu;
	size_t n = 0;
	int p;
	if (!g)
		return 0;
	for (p = 0; p <= MODEL_FP8; p++) {
		const double *s = c->gemm_shape[p];
		if (!(model_calibration_emax(c, (enum model_precision)p) > 0))
			continue;
		/* TFLOP/s = peak (FLOP/s) x emax x shape losses / 1e12, as model/hw.c times it */
		out[n++] = (struct model_ceiling){gemm_names[p], "TFLOP/s", c->gemm_tflops[p],
						  peak_of(g, (enum model_precision)p) *
							  emax_of(g, (enum model_precision)p) *
							  shape_eff(g, s[0], s[1], s[2]) / 1e12};
	}
	if (c->hbm_gbps > 0)
		out[n++] = (struct model_ceiling){"hbm", "GB/s", c->hbm_gbps,
						  (g->mem_bw_gbps > 0 ? g->mem_bw_gbps : 1000) *
							  model_vendor_eff(g)->hbm};
	return n;
}

/* The shapes compute.c times (layer_times, output layer), at tp = 1. */
size_t model_workload_gemms(const struct workload *w, int micro_batch, int seq_len, struct model_gemm out[5])
{
	const struct workload_dims *d = &w->d;
	double T = (double)micro_batch * seq_len, hd = d->hidden;
	double head = d->head_dim > 0 ? d->head_dim : (d->heads > 0 ? hd / d->heads : 0);
	double q = d->heads * head, kv = (d->kv_heads > 0 ? d->kv_heads : d->heads) * head;
	double f = d->ffn_hidden * (d->gated_mlp ? 2 : 1);
	size_t n = 0;
	if (w->kind != WORKLOAD_TRANSFORMER || !(T > 0) || !(hd > 0) || !(q > 0))
		return 0;
	out[n++] = (struct model_gemm){"qkv", T, q + 2 * kv, hd};
	out[n++] = (struct model_gemm){"attn-out", T, hd, q};
	if (d->ffn_hidden > 0) {
		out[n++] = (struct model_gemm){"mlp-up", T, f, hd};
		out[n++] = (struct model_gemm){"mlp-down", T, hd, d->ffn_hidden};
	}
	if (d->vocab > 0)
		out[n++] = (struct model_gemm){"logits", T, d->vocab, hd};
	return n;
}

const char *model_corr_name(int i)
{
	static const char *const names[MODEL_NCORR] = {"gemm", "attention", "memory_bound", "comm", "host"};
	return i >= 0 && i < MODEL_NCORR ? names[i] : NULL;
}

/* Scales *part by f (when f > 0) and returns how much it grew, s. */
static double scale(double *part, double f)
{
	double was = *part;
	if (!(f > 0) || !isfinite(f))
		return 0;
	*part *= f;
	return *part - was;
}

/*
 * Each part p of the step with a correction f_p = measured_p / estimated_p
 * becomes f_p times itself, and the step moves by the sum of the changes:
 * the parts the model adds into step_s (compute, exposed communication,
 * overhead and data loading) are corrected where they enter it.  A part of
 * several terms (the exposed collectives, overhead + data) scales each term
 * by the same factor.
 */
void model_calibration_correct(const struct model_calibration *c, struct model_time *t)
{
	double d = 0, dc = 0;
	if (!c)
		return;
	dc += scale(&t->gemm_s, c->corr[MODEL_CORR_GEMM]);
	dc += scale(&t->attention_s, c->corr[MODEL_CORR_ATTENTION]);
	dc += scale(&t->memory_bound_s, c->corr[MODEL_CORR_MEMORY]);
	d += scale(&t->optimizer_s, c->corr[MODEL_CORR_MEMORY]);
	d += scale(&t->tp_comm_s, c->corr[MODEL_CORR_COMM]) + scale(&t->ep_comm_s, c->corr[MODEL_CORR_COMM]) +
	     scale(&t->cp_comm_s, c->corr[MODEL_CORR_COMM]) + scale(&t->pp_p2p_s, c->corr[MODEL_CORR_COMM]) +
	     scale(&t->dp_comm_s, c->corr[MODEL_CORR_COMM]) + scale(&t->zero_comm_s, c->corr[MODEL_CORR_COMM]);
	d += scale(&t->overhead_s, c->corr[MODEL_CORR_HOST]) + scale(&t->data_s, c->corr[MODEL_CORR_HOST]);
	t->compute_s += dc;
	t->step_s += d + dc;
}

int model_calibration_has_corrections(const struct model_calibration *c)
{
	int i;
	for (i = 0; c && i < MODEL_NCORR; i++)
		if (c->corr[i] > 0)
			return 1;
	return 0;
}

int model_calibration_has_ceilings(const struct model_calibration *c)
{
	int p;
	for (p = 0; c && p <= MODEL_FP8; p++)
		if (c->gemm_tflops[p] > 0)
			return 1;
	return c && c->hbm_gbps > 0;
}
