/*
 * A trace against the model's estimate of the same workload (target.h;
 * docs/profile.md, "Calibrating the model from a trace").  The trace's
 * mean step is cut into the parts the model adds up for a training step:
 *
 *	gemm         T_gemm + T_conv                  vs gemm_s
 *	attention    T_attention                      vs attention_s
 *	memory_bound every other non-communication T_c vs memory_bound_s + optimizer_s
 *	comm         X, the exposed communication     vs the exposed collectives
 *	host         I, the GPU's idle time           vs overhead_s + data_s
 *
 * and each part's correction is traced / estimated.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench/calib.h"
#include "model/model.h"
#include "profile/target.h"
#include "report/outfile.h"
#include "util/xalloc.h"

static double ratio(double a, double b)
{
	return a > 0 && b > 0 ? a / b : 0;
}

void profile_calibrate(const struct profile_result *r, const struct cat_gpu *g, const char *model,
		       const struct model_time *est, struct profile_calib *k)
{
	static const char *const what[MODEL_NCORR] = {"gemm, conv", "attention",
						      "elementwise, norm, memcpy, memset, other", "comm_exposed_s",
						      "gpu_idle_s"};
	const struct profile_step *s = &r->total;
	double n = r->nsteps ? (double)r->nsteps : 1, traced[MODEL_NCORR] = {0}, model_s[MODEL_NCORR];
	struct model_time t = *est;
	struct model_calibration cal;
	size_t i;
	int p;
	for (i = 0; i < s->nclasses; i++) {
		const char *c = s->classes[i].cls;
		p = !strcmp(c, "gemm") || !strcmp(c, "conv") ? MODEL_CORR_GEMM :
		    !strcmp(c, "attention")                  ? MODEL_CORR_ATTENTION :
		    !strcmp(c, "comm")                       ? -1 :
							       MODEL_CORR_MEMORY;
		if (p >= 0)
			traced[p] += s->classes[i].time_s / n;
	}
	traced[MODEL_CORR_COMM] = s->comm_exposed_s / n;
	traced[MODEL_CORR_HOST] = s->idle_s / n;
	model_s[MODEL_CORR_GEMM] = est->gemm_s;
	model_s[MODEL_CORR_ATTENTION] = est->attention_s;
	model_s[MODEL_CORR_MEMORY] = est->memory_bound_s + est->optimizer_s;
	model_s[MODEL_CORR_COMM] = est->tp_comm_s + est->ep_comm_s + est->cp_comm_s + est->pp_p2p_s +
				   est->dp_comm_s + est->zero_comm_s;
	model_s[MODEL_CORR_HOST] = est->overhead_s + est->data_s;
	memset(k, 0, sizeof(*k));
	memset(&cal, 0, sizeof(cal));
	k->gpu = g->row.key;
	k->g = g;
	k->model = model;
	k->traced_step_s = s->wall_s / n;
	k->estimated_step_s = est->step_s;
	for (p = 0; p < MODEL_NCORR; p++) {
		struct profile_calib_part *x = &k->parts[p];
		x->part = model_corr_name(p);
		x->classes = what[p];
		x->traced_s = traced[p];
		x->estimated_s = model_s[p];
		x->factor = k->corr[p] = cal.corr[p] = ratio(traced[p], model_s[p]);
	}
	model_calibration_correct(&cal, &t);
	k->corrected_step_s = t.step_s;
}

int profile_calibrate_workload(const struct profile_result *r, const struct catalog *cat, const struct cat_gpu *g,
			       const struct workload *w, struct model_request *q, struct profile_calib *k,
			       struct diag *err)
{
	struct model_config c;
	struct model_result m;
	struct model_notes notes;
	int rc;
	q->gpu = g;
	if (q->gpus == MODEL_UNSET && q->dp == MODEL_UNSET)
		q->gpus = 1; /* one trace is one rank */
	memset(&notes, 0, sizeof(notes));
	rc = model_resolve(w, cat, q, &c, &notes, err);
	model_notes_release(&notes);
	if (rc)
		return -1;
	if (c.task == MODEL_TASK_INFER)
		return diag_set(err, "", 0, 0, "task", "a calibration compares training steps: not --task infer");
	if (model_estimate(w, &c, &m))
		return diag_set(err, "", 0, 0, "", "the model cannot evaluate this configuration");
	profile_calibrate(r, g, w->name, &m.time, k);
	return 0;
}

/* The default calibration path with its directories made (as mkdir -p); NULL with err. */
static char *default_path(struct diag *err)
{
	char *p = bench_calibration_default_path(), *slash;
	if (!p) {
		diag_set(err, "", 0, 0, "",
			 "--save: no $HOME or $XDG_CONFIG_HOME to save under; use --output FILE");
		return NULL;
	}
	for (slash = strchr(p + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(p, 0755) && errno != EEXIST) {
			diag_set(err, p, 0, 0, "", "cannot create the directory: %s", strerror(errno));
			free(p);
			return NULL;
		}
		*slash = '/';
	}
	return p;
}

int profile_calib_save(const struct profile_calib *k, const char *trace, const char *path, char **written,
		       struct diag *err)
{
	struct outfile o;
	const struct cat_gpu *g = NULL;
	char date[32], *from, *p = path ? xstrdup(path) : default_path(err);
	time_t now = time(NULL);
	int rc = -1;
	*written = NULL;
	if (!p)
		return -1;
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	from = xasprintf("profile of %s against %s", trace, k->model);
	g = k->g;
	if (!outfile_open(&o, p, err)) {
		if (bench_calibration_write_corrections(g, k->corr, from, date, o.f, err))
			outfile_abort(&o);
		else
			rc = outfile_commit(&o, err);
	}
	free(from);
	if (rc)
		free(p);
	else
		*written = p;
	return rc;
}

#define PROFILE_CALIB_FIELDS(F) \
	F(gpu, TEXT, NULL, "the traced GPU (catalog key) the model was asked about", k->gpu) \
	F(model, TEXT, NULL, "the workload estimated (--model)", k->model) \
	F(traced_step_s, NUM, "s", "the trace's mean step", k->traced_step_s) \
	F(estimated_step_s, NUM, "s", "the model's step for the same workload on the same GPU", \
	  k->estimated_step_s) \
	F(corrected_step_s, NUM, "s", "the model's step with every part's correction applied", k->corrected_step_s)

REPORT_DEFINE(profile_calib_schema, profile_calib_row, "profile-calib", struct profile_calib, k,
	      PROFILE_CALIB_FIELDS)

#define PROFILE_CALIB_PART_FIELDS(F) \
	F(part, TEXT, NULL, "gemm, attention, memory_bound, comm or host: a part of the model's step", p->part) \
	F(classes, TEXT, NULL, "the trace's classes or figures it sums", p->classes) \
	F(traced_s, NUM, "s", "the part in the trace's mean step", p->traced_s) \
	F(estimated_s, NUM, "s", "the part in the model's step", p->estimated_s) \
	F(factor, NUM, NULL, "traced_s / estimated_s: the correction; null when either is 0", \
	  p->factor > 0 ? p->factor : NAN)

REPORT_DEFINE(profile_calib_part_schema, profile_calib_part_row, "profile-calib-part", struct profile_calib_part,
	      p, PROFILE_CALIB_PART_FIELDS)
