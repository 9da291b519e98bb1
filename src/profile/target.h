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
#include "profile/profile.h"

struct profile_target_class {
	const char *cls, *sub; /* borrowed from the profile */
	const char *ceiling;   /* "bf16 matmul", "memory bandwidth", "PCIe", "GPU link" */
	double source_ceiling; /* TFLOP/s or GB/s on the traced GPU */
	double target_ceiling; /* the same on the target */
	double measured_s;     /* the class's time over all steps, s */
	double factor;         /* source_ceiling / target_ceiling: the time's multiplier */
	double predicted_s;    /* measured_s * factor, s */
};

struct profile_target {
	const char *source, *target; /* catalog keys */
	double measured_step_s;      /* the mean step's wall time, s */
	double predicted_step_s;     /* the same step on the target, s */
	double speedup;              /* measured / predicted */
	double host_s;               /* the mean step's GPU idle time, kept, s */
	struct profile_target_class *classes;
	size_t nclasses;
};

/*
 * The GPU the trace ran on: given (a catalog name, --source-gpu) when not
 * NULL, else the trace's device name resolved with its memory and SM count
 * (catalog_gpu_for_device()).  NULL with why filled when neither resolves.
 */
const struct cat_gpu *profile_source_gpu(const struct catalog *cat, const struct profile_result *r,
					 const char *given, char *why, size_t why_len);
/*
 * Records g as r's source GPU (r->source_gpu borrows its key: the catalog
 * must outlive r) and fills each matrix class's peak and share of peak.
 */
void profile_set_source(struct profile_result *r, const struct cat_gpu *g);

/* Scales r's total from GPU src to GPU dst; never fails (a missing ceiling keeps factor 1). */
struct profile_target *profile_target_run(const struct profile_result *r, const struct cat_gpu *src,
					  const struct cat_gpu *dst);
void profile_target_free(struct profile_target *t);

const struct report_schema *profile_target_schema(void);
void profile_target_row(const struct profile_target *t, struct report_row *row);
const struct report_schema *profile_target_class_schema(void);
void profile_target_class_row(const struct profile_target_class *c, struct report_row *row);

#endif
