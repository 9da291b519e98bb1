/*
 * The fields of an estimate's answer, each declared once (report/field.h):
 * one schema per JSON object of `gpuscope estimate --json`, in the order of
 * its keys, with the unit and meaning docs/estimate.md lists.  Pure data
 * and the functions that fill a row from an answer; nothing here prints.
 */
#ifndef GPUSCOPE_MODEL_FIELDS_H
#define GPUSCOPE_MODEL_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "model/servesim.h"
#include "model/serving.h"
#include "report/field.h"

/*
 * Everything one estimate answers: the model's result and what was decided
 * around it.  Every pointer is borrowed and must outlive the rows filled
 * from it; the optional ones are NULL when that part was not asked for.
 */
struct model_answer {
	const struct workload *w;
	const struct model_config *c;    /* resolved: every default decided */
	const struct model_result *r;    /* served: memory as the engine holds it */
	const struct model_notes *notes; /* what the resolver chose unasked; may be NULL */
	const struct model_serving *sv;  /* the serving model's answer, or NULL */
	const struct model_queue *q;     /* --rate: the replicas as queues, or NULL */
	const struct model_advice *fix;  /* changes that make it fit, cheapest first */
	size_t nfix;
	const struct model_advice *rec; /* optimisations worth turning on, best first */
	size_t nrec;
	double host_gib;     /* host memory per server, GiB; 0 unknown */
	int max_micro_batch; /* training: the largest micro-batch that fits; 0 none */
	int latency_batch;   /* inference: the batch within latency_target_s (0 none);
					       -1 when no target was asked */
	double latency_target_s;
	double ttft_target_s;               /* --ttft-target, seconds; 0 none */
	int replicas_given;                 /* the rate's replicas are the user's (--gpus or --dp) */
	const struct servesim_result *sim;  /* --arrivals: the simulated run, or NULL */
	const struct servesim_sched *sched; /* ... and the scheduler it ran */
	const char *arrivals;               /* ... and the --arrivals given */
	double tpot_target_s;               /* --tpot-target, seconds; 0 none */
};

/* The JSON objects of an answer, in the order --json writes them. */
enum model_estimate_part {
	MODEL_EST_WORKLOAD,   /* "workload" */
	MODEL_EST_CONFIG,     /* "config" */
	MODEL_EST_MEMORY,     /* "memory": per GPU, the most loaded */
	MODEL_EST_TIME,       /* "time": one optimizer step, the slowest GPU */
	MODEL_EST_INFERENCE,  /* "inference": task infer only */
	MODEL_EST_SERVING,    /* "serving": answers of the serving model only */
	MODEL_EST_RATE,       /* "rate": with --rate only */
	MODEL_EST_SIMULATION, /* "simulation": with --arrivals only */
	MODEL_EST_THROUGHPUT, /* "throughput" */
	MODEL_EST_SUMMARY,    /* the top-level numbers: MFU, time to train, energy */
	MODEL_EST_ADVICE,     /* one element of "fit_advice" and "recommendations" */
	MODEL_EST_PART_COUNT
};

/* The schema of one part (static).  Names: "estimate", "estimate-memory" ... */
const struct report_schema *model_estimate_schema(enum model_estimate_part part);

/*
 * Fills row, made for model_estimate_schema(part), from a (not for
 * MODEL_EST_ADVICE: model_advice_row()).  Returns the fields that belong to
 * this answer, bit i for field i; the others (a LoRA rank outside LoRA, the
 * inference settings of a training run ...) are left out of its JSON object
 * rather than written as null.  A field that belongs but is unknown (host
 * memory not given) is left unset: null.
 */
uint64_t model_estimate_row(enum model_estimate_part part, const struct model_answer *a, struct report_row *row);

/* Fills row, made for model_estimate_schema(MODEL_EST_ADVICE), from one suggested change. */
void model_advice_row(const struct model_advice *adv, struct report_row *row);

/*
 * The JSON name of limit i, the bit 1u << i of enum model_limit: "compute",
 * "memory_bandwidth" ... "memory_capacity"; NULL past the last.  Static.
 */
const char *model_limit_key(size_t i);

/*
 * The calibration in use for a GPU type (model_calibration_of) and each
 * ceiling it replaces (model_calibration_ceilings): "calibration" and
 * "calibration-ceiling" (static schemas; the rows borrow c's and e's text).
 */
const struct report_schema *model_calibration_schema(void);
void model_calibration_row(const struct model_calibration *c, struct report_row *row);
const struct report_schema *model_ceiling_schema(void);
void model_ceiling_row(const struct model_ceiling *e, struct report_row *row);

#endif
