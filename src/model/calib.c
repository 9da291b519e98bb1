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
#include <string.h>

#include "model/kernels.h"
#include "model/model_int.h"

#define MAX_CAL 8
static struct model_calibration cals[MAX_CAL];
static int ncals;

void model_calibration_use(const struct model_calibration *c)
{
	int i;
	if (!c) {
		ncals = 0;
		return;
	}
	for (i = 0; i < ncals && cals[i].gpu != c->gpu; i++)
		;
	if (i == MAX_CAL)
		return;
	cals[i] = *c;
	if (i == ncals)
		ncals++;
}

const struct model_calibration *model_calibration_of(const struct cat_gpu *g)
{
	int i;
	for (i = 0; g && i < ncals; i++)
		if (cals[i].gpu == g || (cals[i].gpu && !strcmp(cals[i].gpu->row.key, g->row.key)))
			return &cals[i];
	return NULL;
}

double model_calibration_emax(const struct model_calibration *c, enum model_precision p)
{
	const struct cat_gpu *g = c->gpu;
	double x0 = TUNE_GEMM_X0, peak, m, n, k, shape;
	if ((int)p < 0 || p > MODEL_FP8 || !(c->gemm_tflops[p] > 0) || !g)
		return NAN;
	peak = peak_of(g, p);
	m = c->gemm_shape[p][0];
	n = c->gemm_shape[p][1];
	k = c->gemm_shape[p][2];
	if (!(peak > 0) || !(m > 0) || !(n > 0) || !(k > 0))
		return NAN;
	shape = m / (m + x0) * n / (n + x0) * k / (k + x0) *
		model_gemm_wave_eff(g->sm_count > 0 ? g->sm_count : 0, m, n, k);
	return c->gemm_tflops[p] * 1e12 / (peak * shape);
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
