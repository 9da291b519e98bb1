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

#include "profile/profile_int.h"
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

const struct cat_gpu *profile_source_gpu(const struct catalog *cat, struct profile_result *r, const char *given,
					 char *why, size_t why_len)
{
	const struct cat_gpu *g = NULL;
	if (given)
		g = catalog_gpu(cat, given, why, why_len);
	else if (r->gpu)
		g = catalog_gpu_for_device(cat, r->gpu, r->gpu_mem_bytes, r->gpu_sms, why, why_len);
	else
		snprintf(why, why_len,
			 "the trace does not name its GPU (the 2021 schema has no deviceProperties)");
	if (g)
		profile_set_source(r, g);
	return g;
}

/* Wave efficiency of b thread blocks on sms SMs, one block resident per SM: b / (sms ceil(b / sms)). */
static double wave_eff(double b, double sms)
{
	return b / (sms * ceil(b / sms));
}

/* Links of n GPUs of g (one server, its own fabric) for the collective model; 0, or -1 when none. */
static int links_of(const struct catalog *cat, const struct cat_gpu *g, int n, struct model_config *c)
{
	struct diag err;
	memset(c, 0, sizeof(*c));
	c->gpu = g;
	c->gpus = n;
	return model_links_from_catalog(c, cat, NULL, NULL, &err);
}

/*
 * The multiplier of one event's duration beyond its class's ceiling ratio
 * k: for a matrix kernel with args.grid, the ratio of its wave efficiencies
 * on the two GPUs' SM counts; for a collective with a message size, the
 * model's time on the target's links over its time on the source's, each
 * for that message and group, in place of k (so divided by it); else 1.
 */
static double adjust(const struct gpu_ev *e, const struct cat_gpu *src, const struct cat_gpu *dst, double sms_src,
		     const struct catalog *cat, double k_ceiling)
{
	int k = e->bin / PROFILE_NSUB, n;
	struct model_config a, b;
	const char *coll;
	double bytes, ta, tb;
	if (k == PC_GEMM || k == PC_CONV || k == PC_ATTENTION) {
		if (!(e->grid >= 1) || !(sms_src > 0) || !cat_has(dst->sm_count) || !(dst->sm_count > 0))
			return 1;
		return wave_eff(e->grid, sms_src) / wave_eff(e->grid, dst->sm_count);
	}
	if (k != PC_COMM || !(e->msg_bytes > 0) || !isfinite(e->msg_bytes) || !cat)
		return 1;
	n = e->group >= 2 ? e->group : 2;
	coll = profile_sub_name(PC_COMM, e->bin % PROFILE_NSUB);
	bytes = !strcmp(coll, "allgather") ? e->msg_bytes * n : e->msg_bytes;
	if (links_of(cat, src, n, &a) || links_of(cat, dst, n, &b))
		return 1;
	ta = model_collective_s(&a, coll, bytes, n);
	tb = model_collective_s(&b, coll, bytes, n);
	ta = k_ceiling > 0 ? tb / ta / k_ceiling : NAN;
	return isfinite(ta) && ta > 0 ? ta : 1; /* an absurd message size keeps the ceiling ratio */
}

/* The old roofline step: W + R (k_R - 1) + X (k_comm - 1), from the classes' ceiling factors. */
static double scaled_step(const struct profile_result *r, const struct profile_target *t)
{
	const struct profile_step *s = &r->total;
	double n = r->nsteps ? (double)r->nsteps : 1, rest = 0, rest_k = 0, comm = 0, comm_k = 0;
	size_t i;
	for (i = 0; i < t->nclasses; i++) {
		const struct profile_target_class *c = &t->classes[i];
		if (!strcmp(c->cls, "comm")) {
			comm += c->measured_s;
			comm_k += c->measured_s * c->ceiling_factor;
		} else {
			rest += c->measured_s;
			rest_k += c->measured_s * c->ceiling_factor;
		}
	}
	return s->wall_s / n + (s->busy_s - s->comm_exposed_s) / n * ((rest > 0 ? rest_k / rest : 1) - 1) +
	       s->comm_exposed_s / n * ((comm > 0 ? comm_k / comm : 1) - 1);
}

struct profile_target *profile_target_run(const struct profile_result *r, const struct catalog *cat,
					  const struct cat_gpu *src, const struct cat_gpu *dst)
{
	struct profile_target *t = xcalloc(1, sizeof(*t));
	const struct profile_step *s = &r->total;
	const struct profile_data *d = r->data;
	double n = r->nsteps ? (double)r->nsteps : 1, *dur, *dur2, *adj_w;
	int at[PROFILE_NBINS], b;
	size_t i;

	t->source = src->row.key;
	t->target = dst->row.key;
	t->source_sms = r->gpu_sms > 0 ? r->gpu_sms : src->sm_count;
	t->target_sms = dst->sm_count;
	t->classes = xcalloc(s->nclasses ? s->nclasses : 1, sizeof(*t->classes));
	for (b = 0; b < PROFILE_NBINS; b++)
		at[b] = -1;
	for (i = 0; i < s->nclasses; i++) {
		struct profile_target_class *c = &t->classes[t->nclasses++];
		const char *w2;
		c->cls = s->classes[i].cls;
		c->sub = s->classes[i].sub;
		c->measured_s = s->classes[i].time_s / n;
		c->source_ceiling = ceiling(src, c->cls, c->sub, &c->ceiling);
		c->target_ceiling = ceiling(dst, c->cls, c->sub, &w2);
		c->ceiling_factor = c->source_ceiling > 0 && c->target_ceiling > 0 ?
					    c->source_ceiling / c->target_ceiling :
					    1;
		for (b = 0; b < PROFILE_NBINS; b++)
			if (profile_class_name((enum profile_class)(b / PROFILE_NSUB)) == c->cls &&
			    profile_sub_name((enum profile_class)(b / PROFILE_NSUB), b % PROFILE_NSUB) == c->sub)
				at[b] = (int)i;
	}
	/* each event's duration on the target; the classes' sums of the events in steps */
	dur = xcalloc(d->nev ? d->nev : 1, sizeof(*dur));
	dur2 = xcalloc(d->nev ? d->nev : 1, sizeof(*dur2));
	adj_w = xcalloc(t->nclasses ? t->nclasses : 1, sizeof(*adj_w));
	for (i = 0; i < d->nev; i++) {
		const struct gpu_ev *e = &d->ev[i];
		int c = at[e->bin];
		double kc = c >= 0 ? t->classes[c].ceiling_factor : 1;
		double a = adjust(e, src, dst, t->source_sms, cat, kc);
		dur[i] = e->end - e->ts;
		dur2[i] = dur[i] * kc * a;
		if (c >= 0 && e->step >= 0) {
			t->classes[c].predicted_s += dur2[i] * 1e-6 / n;
			adj_w[c] += dur[i] * a;
		}
	}
	for (i = 0; i < t->nclasses; i++) {
		struct profile_target_class *c = &t->classes[i];
		c->adjust = c->measured_s > 0 ? adj_w[i] * 1e-6 / n / c->measured_s : 1;
		c->factor = c->measured_s > 0 ? c->predicted_s / c->measured_s : c->ceiling_factor;
	}
	t->measured_step_s = s->wall_s / n;
	t->host_s = s->idle_s / n;
	t->scaled_step_s = scaled_step(r, t);
	t->replayed_step_s = profile_replay(d, dur, NULL) * 1e-6 / n;
	t->predicted_step_s = profile_replay(d, dur2, NULL) * 1e-6 / n;
	t->speedup = t->predicted_step_s > 0 ? t->measured_step_s / t->predicted_step_s : NAN;
	free(dur);
	free(dur2);
	free(adj_w);
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
	F(source_sms, NUM, NULL, "SMs of the traced GPU (numSms, else the catalog's), for the waves", \
	  t->source_sms) \
	F(target_sms, NUM, NULL, "SMs of the target (catalog)", t->target_sms) \
	F(measured_step_s, NUM, "s", "the mean step's wall time in the trace", t->measured_step_s) \
	F(replayed_step_s, NUM, "s", "the replay with the trace's own durations: the replay's check", \
	  t->replayed_step_s) \
	F(scaled_step_s, NUM, "s", "W + R (k_R - 1) + X (k_comm - 1) from the ceiling factors alone", \
	  t->scaled_step_s) \
	F(predicted_step_s, NUM, "s", "the replay with every event's duration on the target", \
	  t->predicted_step_s) \
	F(speedup, NUM, NULL, "measured_step_s / predicted_step_s", t->speedup) \
	F(host_s, NUM, "s", "the mean step's GPU idle time in the trace", t->host_s)

REPORT_DEFINE(profile_target_schema, profile_target_row, "profile-target", struct profile_target, t,
	      PROFILE_TARGET_FIELDS)

#define PROFILE_TARGET_CLASS_FIELDS(F) \
	F(class, TEXT, NULL, "the kernel class", c->cls) \
	F(sub, TEXT, NULL, "its dtype, collective or copy direction", c->sub) \
	F(ceiling, TEXT, NULL, "the roofline ceiling it scales by", c->ceiling) \
	F(source_ceiling, NUM, NULL, "the ceiling on the traced GPU (TFLOP/s, or GB/s)", c->source_ceiling) \
	F(target_ceiling, NUM, NULL, "the ceiling on the target (TFLOP/s, or GB/s)", c->target_ceiling) \
	F(ceiling_factor, NUM, NULL, "source_ceiling / target_ceiling (1 when either is missing)", \
	  c->ceiling_factor) \
	F(adjust, NUM, NULL, \
	  "time-weighted mean of the kernels' wave factors, or of re-timed / ceiling_factor (else 1)", c->adjust) \
	F(measured_s, NUM, "s", "the class's time in the mean step", c->measured_s) \
	F(factor, NUM, NULL, "predicted_s / measured_s", c->factor) \
	F(predicted_s, NUM, "s", "sum of its kernels' durations on the target, per step", c->predicted_s)

REPORT_DEFINE(profile_target_class_schema, profile_target_class_row, "profile-target-class",
	      struct profile_target_class, c, PROFILE_TARGET_CLASS_FIELDS)
