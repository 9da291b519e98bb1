/*
 * Roofline scaling of a profile to another GPU (target.h; docs/profile.md).
 *
 * With R the busy time of everything but communication, X the exposed
 * communication and W the wall time of the mean step, the predicted step is
 *
 *	W' = W + R (k_R - 1) + X (k_comm - 1)
 *
 * where k_R is the time-weighted mean factor of the non-communication
 * classes and k_comm the communication factor: each part of the busy time
 * shrinks or grows by its ceiling's ratio, the host's share stays.  On the
 * traced GPU itself every factor is 1 and W' = W.
 */
#include "profile/target.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Host-device copy bandwidth ∝ PCIe lanes × 2^(generation - 1) (each generation doubles the rate). */
static double pcie_gbps(const struct cat_gpu *g)
{
	double lanes = isfinite(g->pcie_lanes) && g->pcie_lanes > 0 ? g->pcie_lanes : 16;
	return isfinite(g->pcie_gen) && g->pcie_gen > 0 ? lanes * pow(2, g->pcie_gen - 1) : NAN;
}

/* The ceiling a class runs against on g: its name into *what, the value (TFLOP/s or GB/s). */
static double ceiling(const struct cat_gpu *g, const char *cls, const char *sub, const char **what)
{
	static const char *const matmul[] = {"fp64 matmul", "fp32 matmul", "tf32 matmul", "fp16 matmul",
					     "bf16 matmul", "fp8 matmul",  "int8 matmul"};
	static const char *const prec[] = {"fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8"};
	size_t i;
	if (!strcmp(cls, "gemm") || !strcmp(cls, "conv") || !strcmp(cls, "attention")) {
		for (i = 0; i < sizeof(prec) / sizeof(prec[0]); i++)
			if (!strcmp(sub, prec[i]))
				break;
		if (i == sizeof(prec) / sizeof(prec[0]))
			i = 3; /* attention, or a dtype the name did not say: half precision */
		*what = matmul[i];
		return cat_gpu_peak_tflops(g, prec[i]);
	}
	if (!strcmp(cls, "comm")) {
		*what = "GPU link";
		return g->gpu_link_gbps;
	}
	if (!strcmp(cls, "memcpy") && (!strcmp(sub, "HtoD") || !strcmp(sub, "DtoH"))) {
		*what = "PCIe";
		return pcie_gbps(g);
	}
	*what = "memory bandwidth";
	return g->mem_bw_gbps;
}

const struct cat_gpu *profile_source_gpu(const struct catalog *cat, const struct profile_result *r,
					 const char *given, char *why, size_t why_len)
{
	if (given)
		return catalog_gpu(cat, given, why, why_len);
	if (!r->gpu) {
		snprintf(why, why_len,
			 "the trace does not name its GPU (the 2021 schema has no deviceProperties)");
		return NULL;
	}
	return catalog_gpu_for_device(cat, r->gpu, r->gpu_mem_bytes, r->gpu_sms, why, why_len);
}

static void set_peaks(struct profile_step *s, const struct cat_gpu *g)
{
	size_t i;
	for (i = 0; i < s->nclasses; i++) {
		struct profile_class_time *c = &s->classes[i];
		const char *what;
		if (strcmp(c->cls, "gemm") && strcmp(c->cls, "conv") && strcmp(c->cls, "attention"))
			continue;
		c->peak_tflops = ceiling(g, c->cls, c->sub, &what);
		c->of_peak = c->peak_tflops > 0 ? c->tflops / c->peak_tflops : NAN;
	}
}

void profile_set_source(struct profile_result *r, const struct cat_gpu *g)
{
	size_t i;
	r->source_gpu = g->row.key;
	for (i = 0; i < r->nsteps; i++)
		set_peaks(&r->steps[i], g);
	set_peaks(&r->total, g);
}

struct profile_target *profile_target_run(const struct profile_result *r, const struct cat_gpu *src,
					  const struct cat_gpu *dst)
{
	struct profile_target *t = xcalloc(1, sizeof(*t));
	const struct profile_step *s = &r->total;
	double n = r->nsteps ? (double)r->nsteps : 1, rest = 0, rest_scaled = 0, comm = 0, comm_scaled = 0, k_comm;
	size_t i;

	t->source = src->row.key;
	t->target = dst->row.key;
	t->classes = xcalloc(s->nclasses ? s->nclasses : 1, sizeof(*t->classes));
	for (i = 0; i < s->nclasses; i++) {
		struct profile_target_class *c = &t->classes[t->nclasses++];
		const char *w2;
		c->cls = s->classes[i].cls;
		c->sub = s->classes[i].sub;
		c->measured_s = s->classes[i].time_s / n;
		c->source_ceiling = ceiling(src, c->cls, c->sub, &c->ceiling);
		c->target_ceiling = ceiling(dst, c->cls, c->sub, &w2);
		c->factor = c->source_ceiling > 0 && c->target_ceiling > 0 ?
				    c->source_ceiling / c->target_ceiling :
				    1;
		c->predicted_s = c->measured_s * c->factor;
		if (!strcmp(c->cls, "comm")) {
			comm += c->measured_s;
			comm_scaled += c->predicted_s;
		} else {
			rest += c->measured_s;
			rest_scaled += c->predicted_s;
		}
	}
	k_comm = comm > 0 ? comm_scaled / comm : 1;
	t->measured_step_s = s->wall_s / n;
	t->host_s = s->idle_s / n;
	{
		double k_rest = rest > 0 ? rest_scaled / rest : 1;
		double busy_rest = (s->busy_s - s->comm_exposed_s) / n, exposed = s->comm_exposed_s / n;
		t->predicted_step_s = t->measured_step_s + busy_rest * (k_rest - 1) + exposed * (k_comm - 1);
	}
	t->speedup = t->predicted_step_s > 0 ? t->measured_step_s / t->predicted_step_s : NAN;
	return t;
}

void profile_target_free(struct profile_target *t)
{
	if (!t)
		return;
	free(t->classes);
	free(t);
}

#define PROFILE_TARGET_FIELDS(F) \
	F(source, TEXT, NULL, "the traced GPU (catalog key)", t->source) \
	F(target, TEXT, NULL, "the GPU the step is predicted on (catalog key)", t->target) \
	F(measured_step_s, NUM, "s", "the mean step's wall time in the trace", t->measured_step_s) \
	F(predicted_step_s, NUM, "s", "W + R (k_R - 1) + X (k_comm - 1): the same step on the target", \
	  t->predicted_step_s) \
	F(speedup, NUM, NULL, "measured_step_s / predicted_step_s", t->speedup) \
	F(host_s, NUM, "s", "the mean step's GPU idle time, kept as measured", t->host_s)

REPORT_DEFINE(profile_target_schema, profile_target_row, "profile-target", struct profile_target, t,
	      PROFILE_TARGET_FIELDS)

#define PROFILE_TARGET_CLASS_FIELDS(F) \
	F(class, TEXT, NULL, "the kernel class", c->cls) \
	F(sub, TEXT, NULL, "its dtype, collective or copy direction", c->sub) \
	F(ceiling, TEXT, NULL, "the roofline ceiling it scales by", c->ceiling) \
	F(source_ceiling, NUM, NULL, "the ceiling on the traced GPU (TFLOP/s, or GB/s)", c->source_ceiling) \
	F(target_ceiling, NUM, NULL, "the ceiling on the target (TFLOP/s, or GB/s)", c->target_ceiling) \
	F(measured_s, NUM, "s", "the class's time in the mean step", c->measured_s) \
	F(factor, NUM, NULL, "source_ceiling / target_ceiling (1 when either is missing)", c->factor) \
	F(predicted_s, NUM, "s", "measured_s * factor", c->predicted_s)

REPORT_DEFINE(profile_target_class_schema, profile_target_class_row, "profile-target-class",
	      struct profile_target_class, c, PROFILE_TARGET_CLASS_FIELDS)
