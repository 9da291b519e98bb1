/*
 * The same job on another GPU (docs/profile.md "--target"): each kernel
 * class of a profiled trace scaled by the ratio of the two GPUs' roofline
 * ceilings from the catalog: matrix classes by the dense matmul peak of
 * their dtype, memory-bound classes by memory bandwidth, host copies by
 * PCIe bandwidth, communication by the GPU-GPU link.  Host time (the GPU's
 * idle time) is kept as measured.
 *
 * Ownership: the result borrows the profile and the catalog rows; free it
 * with profile_target_free().
 */
#ifndef GPUSCOPE_PROFILE_TARGET_H
#define GPUSCOPE_PROFILE_TARGET_H

#include "catalog/catalog.h"
#include "model/model.h"
#include "profile/profile.h"

struct profile_target_class {
	const char *cls, *sub; /* borrowed from the profile */
	const char *ceiling;   /* "bf16 matmul", "memory bandwidth", "PCIe", "GPU link" */
	double source_ceiling; /* TFLOP/s or GB/s on the traced GPU */
	double target_ceiling; /* the same on the target */
	double ceiling_factor; /* source_ceiling / target_ceiling, 1 when either is missing */
	double adjust;         /* time-weighted mean of the kernels' wave or re-timing factors */
	double measured_s;     /* the class's time in the mean step, s */
	double factor;         /* predicted_s / measured_s */
	double predicted_s;    /* its kernels' durations on the target, per step, s */
};

struct profile_target {
	const char *source, *target;   /* catalog keys */
	double source_sms, target_sms; /* SM counts the waves are counted on */
	double measured_step_s;        /* the mean step's wall time, s */
	double replayed_step_s;        /* the replay with the trace's durations (= measured, by construction) */
	double scaled_step_s;          /* the roofline formula from the ceiling factors alone, s */
	double predicted_step_s;       /* the replay with the durations on the target, s */
	double speedup;                /* measured / predicted */
	double host_s;                 /* the mean step's GPU idle time, kept, s */
	struct profile_target_class *classes;
	size_t nclasses;
};

/*
 * The GPU the trace ran on: given (a catalog name, --source-gpu) when not
 * NULL, else the trace's device name resolved with its memory and SM count
 * (catalog_gpu_for_device()), recorded in r by profile_set_source().  NULL
 * with why filled when neither resolves.
 */
const struct cat_gpu *profile_source_gpu(const struct catalog *cat, struct profile_result *r, const char *given,
					 char *why, size_t why_len);
/*
 * Records g as r's source GPU (r->source_gpu borrows its key: the catalog
 * must outlive r) and fills each matrix class's peak and share of peak.
 */
void profile_set_source(struct profile_result *r, const struct cat_gpu *g);

/*
 * The mean step of r on GPU dst instead of src: every event's duration
 * scaled by its class's ceiling ratio, with wave quantisation for matrix
 * kernels and collectives re-timed on the target's links (cat: the links;
 * NULL skips the re-timing), then the events replayed in launch order with
 * their streams and waits.  Never fails (a missing figure keeps factor 1).
 */
struct profile_target *profile_target_run(const struct profile_result *r, const struct catalog *cat,
					  const struct cat_gpu *src, const struct cat_gpu *dst);
void profile_target_free(struct profile_target *t);

const struct report_schema *profile_target_schema(void);
void profile_target_row(const struct profile_target *t, struct report_row *row);
const struct report_schema *profile_target_class_schema(void);
void profile_target_class_row(const struct profile_target_class *c, struct report_row *row);

/*
 * The trace's mean step against the model's estimate of the same workload
 * on the traced GPU (docs/profile.md, "Calibrating the model from a
 * trace"), part by part of the step (enum model_corr): traced / estimated
 * is the part's correction, which a calibration file carries to estimate.
 */
struct profile_calib_part {
	const char *part;    /* model_corr_name() */
	const char *classes; /* the trace's figures it sums, static text */
	double traced_s;     /* in the trace's mean step, s */
	double estimated_s;  /* in the model's step, s */
	double factor;       /* traced_s / estimated_s; 0 when either is 0 */
};
struct profile_calib {
	const struct cat_gpu *g; /* the traced GPU (borrowed) */
	const char *gpu;         /* its catalog key */
	const char *model;       /* the workload's name (borrowed) */
	double traced_step_s;    /* the trace's mean step, s */
	double estimated_step_s; /* the model's step, s */
	double corrected_step_s; /* the model's step with every correction applied, s */
	struct profile_calib_part parts[MODEL_NCORR];
	double corr[MODEL_NCORR]; /* the factors, for bench_calibration_write_corrections() */
};
/* Fills *k from r's mean step and the model's time est on GPU g for the workload named model. */
void profile_calibrate(const struct profile_result *r, const struct cat_gpu *g, const char *model,
		       const struct model_time *est, struct profile_calib *k);

/*
 * Estimates workload w on GPU g with the request q (the command's workload
 * flags; q->gpu is set to g, q->gpus to 1 when neither it nor dp is set) through model_resolve() and model_estimate(),
 * and fills *k against r.  0, or -1 with err when the model cannot run it.
 */
int profile_calibrate_workload(const struct profile_result *r, const struct catalog *cat, const struct cat_gpu *g,
			       const struct workload *w, struct model_request *q, struct profile_calib *k,
			       struct diag *err);
/*
 * Writes k's corrections as a calibration file at path (whole or not at
 * all), naming the trace it came from; with path NULL, at the default
 * place (bench_calibration_default_path(), its directories made), whose
 * name goes to *written (malloc()ed, the caller frees it).  0, or -1 with err.
 */
int profile_calib_save(const struct profile_calib *k, const char *trace, const char *path, char **written,
		       struct diag *err);

const struct report_schema *profile_calib_schema(void);
void profile_calib_row(const struct profile_calib *k, struct report_row *row);
const struct report_schema *profile_calib_part_schema(void);
void profile_calib_part_row(const struct profile_calib_part *p, struct report_row *row);

#endif
