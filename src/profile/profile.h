/*
 * Where the time of a PyTorch job goes, from its profiler trace
 * (profile/trace.h reads it): per step, the GPU's busy time by kernel class,
 * communication exposed against overlapped, the GPU's idle time, and the
 * bottleneck with a remedy.  docs/profile.md derives every figure.
 *
 * Ownership: profile_run() returns a result the caller frees with
 * profile_result_free(); every string in it belongs to the result.
 */
#ifndef GPUSCOPE_PROFILE_PROFILE_H
#define GPUSCOPE_PROFILE_PROFILE_H

#include <stddef.h>

#include "report/field.h"
#include "util/error.h"

/* Kernel classes; each has up to PROFILE_NSUB subclasses (dtype, collective, copy direction). */
enum profile_class {
	PC_GEMM,        /* matrix multiplies (cuBLAS, CUTLASS, Tensile), by dtype */
	PC_CONV,        /* convolutions (cuDNN implicit GEMM, fprop/dgrad/wgrad), by dtype */
	PC_ATTENTION,   /* fused attention (flash, fmha, SDPA) */
	PC_ELEMENTWISE, /* elementwise, reductions, softmax, layout copies, optimizer */
	PC_NORM,        /* batch, layer, group and RMS normalisation */
	PC_MEMCPY,      /* copies (gpu_memcpy), by direction */
	PC_MEMSET,      /* gpu_memset */
	PC_COMM,        /* NCCL/RCCL kernels, by collective */
	PC_OTHER,       /* kernels no rule names */
	PC_NCLASSES
};
#define PROFILE_NSUB 8
#define PROFILE_NBINS (PC_NCLASSES * PROFILE_NSUB)

/* The class of a GPU event from its category and name; *sub gets the subclass. */
enum profile_class profile_classify(const char *cat, const char *name, const char *collective, int *sub);
/* "gemm", "conv" ... and the subclass: "tf32", "allreduce", "HtoD" ...; "" when the class has none. */
const char *profile_class_name(enum profile_class c);
const char *profile_sub_name(enum profile_class c, int sub);

/* The time of one class (and subclass) in a step. */
struct profile_class_time {
	const char *step;      /* the step's name (borrowed from the step) */
	const char *cls, *sub; /* static names */
	double time_s;         /* sum of the kernels' durations, s */
	double share;          /* time_s / the step's wall time */
	long long kernels;     /* kernels (or copies) counted */
	double bytes;          /* bytes the class's copies and memsets moved (args.bytes), else 0 */
	double bandwidth_gbs;  /* bytes / time_s, GB/s (1e9 bytes); NaN without bytes */
	double flops;          /* FLOPs of the operators whose kernels lead in this class (shapes recorded) */
	double flop_time_s;    /* time of the matrix kernels those operators launched, s */
	double tflops;         /* flops / flop_time_s, TFLOP/s; NaN without flops */
	double peak_tflops;    /* the source GPU's dense peak for the class's dtype; NaN when unknown */
	double of_peak;        /* tflops / peak_tflops */
};
/* Field tables of the three results (profile/fields.c), each after its struct. */
const struct report_schema *profile_class_schema(void);
void profile_class_row(const struct profile_class_time *c, struct report_row *row);

struct profile_step {
	char *name;              /* "ProfilerStep#4", or "trace" when the trace has no steps */
	double wall_s;           /* the step annotation's duration (the GPU span without steps), s */
	double busy_s;           /* union of all GPU intervals of the step, s */
	double idle_s;           /* wall_s - busy_s, floored at 0, s */
	double idle_frac;        /* idle_s / wall_s */
	double idle_launch_s;    /* of idle_s: the host busy launching (no wait below), s */
	double idle_loader_s;    /* of idle_s: the host in a DataLoader fetch, s */
	double idle_sync_s;      /* of idle_s: the host in a synchronisation or a blocking copy, s */
	double kernel_sum_s;     /* sum of every GPU event's duration (streams overlap: may exceed busy_s), s */
	double comm_s;           /* union of the communication kernels, s */
	double comm_exposed_s;   /* communication while no other GPU work runs, s */
	double comm_overlap_s;   /* comm_s - comm_exposed_s, s */
	long long kernels;       /* GPU events of the step */
	const char *bottleneck;  /* static: "gpu idle: data loader", "exposed communication", "matmul" ... */
	const char *remedy;      /* static text */
	double bottleneck_share; /* the bottleneck's time / wall_s */
	double max_gain;         /* speed-up bound if the bottleneck vanished: 1/(1-share) - 1 */
	struct profile_class_time *classes; /* nonzero bins, largest first */
	size_t nclasses;
};
const struct report_schema *profile_step_schema(void);
void profile_step_row(const struct profile_step *s, struct report_row *row);

struct profile_result {
	char *file;
	char *gpu;              /* deviceProperties[0].name, or NULL */
	double gpu_mem_bytes;   /* deviceProperties[0].totalGlobalMem, bytes; NaN when absent */
	double gpu_sms;         /* deviceProperties[0].numSms; NaN when absent */
	const char *source_gpu; /* the catalog key of the traced GPU once profile_set_source() ran, or NULL */
	const char *schema;     /* "kineto" (current) or "kineto-2021" (cat Kernel/Runtime) */
	long long events;       /* traceEvents read */
	long long gpu_events;   /* kernels, copies and sets read */
	long long unassigned;   /* GPU events launched outside every step (in no step's figures) */
	int devices;            /* distinct args.device of the GPU events */
	long long rank;         /* distributedInfo.rank, or -1 */
	long long world_size;   /* distributedInfo.world_size, or -1 */
	struct profile_step *steps;
	size_t nsteps;
	struct profile_step total; /* the steps summed ("all steps"), bottleneck recomputed */
	struct profile_data *data; /* the events, for --target's replay (profile/profile_int.h) */
};
const struct report_schema *profile_trace_schema(void);
void profile_trace_row(const struct profile_result *r, struct report_row *row);

struct trace_event;
struct profile_data;
/* FLOPs of one operator from its recorded shapes (profile/flops.c); NaN when not known. */
double profile_op_flops(const struct trace_event *ev);

/* Reads and analyses the trace at path; NULL with err filled on any error. */
struct profile_result *profile_run(const char *path, struct diag *err);
/* The same over len bytes at data (uncompressed), named name in errors. */
struct profile_result *profile_run_mem(const char *name, const char *data, size_t len, struct diag *err);
void profile_result_free(struct profile_result *r);

/*
 * A job traced on several ranks (one file per rank): each rank's mean step,
 * and whether one rank holds the others back.  docs/profile.md derives it.
 */
struct profile_rank {
	const struct profile_result *r; /* borrowed from the job */
	long long rank;                 /* distributedInfo.rank, or the file's position */
	double step_s;                  /* mean wall time per step, s */
	double busy_s;                  /* mean GPU busy time per step, s */
	double compute_s;               /* mean GPU time per step with other work than communication, s */
	double comm_exposed_s;          /* mean exposed communication per step, s */
	double idle_frac;               /* the rank's gpu_idle over all its steps */
	double vs_mean;                 /* compute_s / the ranks' mean compute_s - 1 */
	const char *bottleneck;         /* the rank's own (static) */
};
const struct report_schema *profile_rank_schema(void);
void profile_rank_row(const struct profile_rank *k, struct report_row *row);

struct profile_job {
	struct profile_result **results; /* owned, one per file, in the order given */
	struct profile_rank *ranks;      /* by rank number */
	size_t nranks;
	long long world_size;  /* distributedInfo.world_size of the first rank, or -1 */
	int ranks_from_files;  /* 1 when the traces lack distinct ranks: numbered by position */
	double step_mean_s;    /* mean of the ranks' step_s, s */
	double step_max_s;     /* the slowest rank's step_s, s */
	double compute_mean_s; /* mean of the ranks' compute_s, s */
	double compute_spread; /* (max - min) / mean of compute_s */
	double wait_s; /* mean over ranks of (max compute_s - own compute_s): time lost to the straggler, s */
	long long slowest_rank;   /* the rank with the largest step_s */
	long long straggler_rank; /* the rank with the largest compute_s */
	const char *verdict;      /* static: "balanced", "straggler", "exposed communication" */
	const char *advice;       /* static text that goes with the verdict */
};
const struct report_schema *profile_job_schema(void);
void profile_job_row(const struct profile_job *j, struct report_row *row);

/*
 * The trace files of a directory: names ending in .json or .json.gz, sorted.
 * A NULL-terminated array the caller frees with profile_paths_free(); NULL
 * with err filled when the directory cannot be read or holds no trace.
 */
char **profile_dir_traces(const char *dir, size_t *n, struct diag *err);
void profile_paths_free(char **paths);
/* Reads and analyses each of the n traces; NULL with err (naming the file) on the first error. */
struct profile_job *profile_job_run(const char *const *paths, size_t n, struct diag *err);
void profile_job_free(struct profile_job *j);

#endif
