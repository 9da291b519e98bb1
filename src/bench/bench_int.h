/* Inside src/bench/: the loaded libraries and the measurement helpers. */
#ifndef GPUSCOPE_BENCH_BENCH_INT_H
#define GPUSCOPE_BENCH_BENCH_INT_H

#include "bench/bench.h"
#include "bench/cuda_abi.h"

extern const char bench_ptx[];

/* loader.c: the three libraries, each NULL-handled when missing. */
struct bench_libs {
	void *cuda_h, *lt_h, *nccl_h;
	struct bench_cuda_api cu;
	struct bench_cublaslt_api lt;
	struct bench_nccl_api nccl;
	char *path[3];  /* file loaded, or NULL */
	char *error[3]; /* why not, or NULL */
};
enum {
	BENCH_LIB_CUDA,
	BENCH_LIB_CUBLASLT,
	BENCH_LIB_NCCL
};

/* Loads what it finds; never fails as a whole.  Free with bench_libs_close. */
struct bench_libs *bench_libs_open(const char *dirs);
void bench_libs_close(struct bench_libs *l);
/* The library's name for messages: "CUDA driver (libcuda.so.1)". */
const char *bench_lib_label(int which);

/* One CUDA device with its context and stream. */
struct bench_dev {
	int index;
	CUdevice dev;
	CUcontext ctx;
	CUstream stream;
	void *nvml; /* struct gpu_device *, or NULL */
};

struct bench_ctx {
	const struct bench_opts *o;
	struct bench_libs *libs;
	struct bench_result *r;
	struct bench_dev *devs;
	int ndevs;
	CUmodule module;
	CUfunction f_read, f_write, f_copy, f_empty;
	CUevent e0, e1;
	struct diag *err;
};

/* measure.c */
struct bench_row *bench_add_row(struct bench_result *r, const char *test, int gpu);
void bench_skip(struct bench_result *r, const char *fmt, ...) GS_PRINTF(2, 3);
/* Reads NVML for device d into *c, merging with what is there (lowest clocks, highest power). */
void bench_sample(struct bench_ctx *b, const struct bench_dev *d, struct bench_clocks *c);
/* One operation of a timed loop; returns 0 or a library error code. */
typedef int (*bench_op)(struct bench_ctx *b, struct bench_dev *d, void *arg);
/*
 * Mean time of one op over `reps` (s) on d's stream, with NVML's view in
 * *clk; NaN when an op or the timing failed (the reason goes to skipped).
 */
double bench_timed(struct bench_ctx *b, struct bench_dev *d, bench_op op, void *arg, int reps, const char *what,
		   struct bench_clocks *clk);
void bench_gemm(struct bench_ctx *b);
void bench_hbm(struct bench_ctx *b);
void bench_host(struct bench_ctx *b);
void bench_p2p(struct bench_ctx *b);
void bench_nccl(struct bench_ctx *b);
void bench_launch(struct bench_ctx *b);

#endif
