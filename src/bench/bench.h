/*
 * bench: measures what this host's GPUs reach (docs/bench.md): dense GEMM
 * by shape and dtype through cuBLASLt, HBM read/write/copy with PTX
 * kernels, pinned host copies, the peer-to-peer matrix, NCCL collectives,
 * kernel launch and graph replay latency; each figure with the clocks,
 * power and clock-event ("throttle") reasons NVML read while it ran.
 *
 * The CUDA driver, cuBLASLt and NCCL are loaded at run time (loader.c; no
 * build-time CUDA): a library that is missing skips its part, named in
 * bench_result.skipped.  Library code: nothing is printed.
 */
#ifndef GPUSCOPE_BENCH_BENCH_H
#define GPUSCOPE_BENCH_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "model/model.h"
#include "report/field.h"
#include "util/error.h"

enum bench_part {
	BENCH_GEMM = 0x1,
	BENCH_HBM = 0x2,
	BENCH_HOST = 0x4, /* H2D and D2H over pinned memory */
	BENCH_P2P = 0x8,
	BENCH_NCCL = 0x10,
	BENCH_LAUNCH = 0x20, /* kernel launch and empty-graph replay */
	BENCH_ALL = 0x3f,
};

/* A GEMM shape to time besides the sweep (a model's layers). */
struct bench_shape {
	double m, n, k;
	const char *label; /* "qkv", "mlp-up" ...; borrowed */
};

struct bench_opts {
	const char *lib_dirs;  /* colon-separated directories searched alone; NULL: $GPUSCOPE_BENCH_LIBS, else
				  the search order of loader.c */
	const char *nvml_path; /* libnvidia-ml to load; NULL: the normal search */
	unsigned parts;        /* enum bench_part bits */
	int quick;             /* one large shape per dtype, fewer sizes and repeats: well under 60 s */
	const struct bench_shape *shapes; /* borrowed */
	size_t nshapes;
};

/* NVML readings while a figure was taken: the lowest clocks, the highest power, every reason seen. */
struct bench_clocks {
	int valid;     /* 0: NVML gave nothing (no library, an unmatched device) */
	double sm_mhz; /* NaN when not read */
	double mem_mhz;
	double power_w;
	double power_limit_w;
	double temp_c;
	uint64_t reasons; /* GPU_CLOCK_EVENT_* bits, idle bit removed */
};

/* One figure.  Numbers that do not apply are NaN. */
struct bench_row {
	const char *test;  /* "gemm", "hbm-read", "h2d", "p2p", "all-reduce", "launch" ... (static) */
	int gpu;           /* CUDA ordinal; -1: all GPUs (collectives) */
	int peer;          /* p2p: the destination; else -1 */
	const char *dtype; /* gemm: fp32, tf32, fp16, bf16, fp8; collectives: fp32; else NULL (static) */
	char *label;       /* model GEMM: its layer; else NULL (owned) */
	double m, n, k;    /* gemm */
	double bytes;      /* copies, kernels, collectives: bytes of one operation */
	double time_s;     /* one operation, mean of the timed repeats */
	double tflops;     /* gemm: 2mnk / time */
	double gbps;       /* copies and kernels: bytes / time; collectives: algorithm bandwidth */
	double busbw_gbps; /* collectives: NCCL's bus bandwidth */
	double latency_s;  /* launch, graph */
	double expected;   /* what the catalog and model say, in the figure's unit (TFLOP/s, GB/s); NaN */
	struct bench_clocks clk;
};

struct bench_gpu {
	int index;
	char *name, *uuid, *bus_id; /* owned; uuid NULL without NVML */
	int sms, cc_major, cc_minor;
	double mem_bytes;
	int pcie_gen, pcie_width, pcie_max_gen, pcie_max_width; /* NVML; 0 unknown */
	int ecc;                                                /* NVML: 1 on, 0 off, -1 unknown */
	double clock_max_sm_mhz;                                /* NVML; NaN unknown */
	double power_default_limit_w;
	double power_limit_w; /* enforced; NaN unknown */
};

struct bench_result {
	char *driver_version;                     /* NVML's "550.54.15"; NULL without NVML */
	int cuda_driver;                          /* cuDriverGetVersion: 12040 */
	long cublaslt_version;                    /* cublasLtGetVersion: 130000; 0 without it */
	int nccl_version;                         /* ncclGetVersion: 22105; 0 without it */
	char *lib_cuda, *lib_cublaslt, *lib_nccl; /* files loaded, or NULL (owned) */
	struct bench_gpu *gpus;
	size_t ngpus;
	struct bench_row *rows;
	size_t nrows;
	char **skipped; /* "cuBLASLt (libcublasLt.so.13): not found ...: GEMM skipped" (owned) */
	size_t nskipped;
	char *date; /* UTC, ISO 8601 */
};

/*
 * Runs the parts asked for.  Returns 0 with *out filled (the caller frees
 * it with bench_result_free), also when some parts were skipped; -1 with
 * err when nothing could run (no CUDA driver, no GPU): *out is then still
 * set, with the reason in skipped.
 */
int bench_run(const struct bench_opts *o, struct bench_result **out, struct diag *err);
void bench_result_free(struct bench_result *r);
/* Fills each row's `expected` from the catalog row g and the model (NaN where they give nothing). */
void bench_set_expected(struct bench_result *r, const struct cat_gpu *g);

/* `bench --quick`'s verdict on one GPU (quick.c). */
struct bench_verdict {
	int gpu;
	double gemm_ratio; /* best 16-bit GEMM / reference; NaN unmeasured */
	double hbm_ratio;  /* HBM copy / reference */
	double host_ratio; /* lower of H2D and D2H / the catalog's */
	double slower_pct; /* 100 x (1 - lower of gemm and hbm ratio); 0 when not slower */
	int flagged;       /* slower by BENCH_QUICK_SLOW_PCT or more, or its host link is */
	char *cause;       /* "power cap (350 of 700 W)", "PCIe x8 of x16" ...; NULL none found (owned) */
};
#define BENCH_QUICK_SLOW_PCT 10.0

/*
 * One verdict per GPU of r against the reference: `base` (a fleet's
 * calibration, model/model.h; NULL: none) where it has the figure, else the
 * catalog and model figures in the rows' `expected`.  *out malloc()ed;
 * free with bench_verdicts_free.  Returns the count.
 */
size_t bench_quick_verdicts(const struct bench_result *r, const struct model_calibration *base,
			    struct bench_verdict **out);
void bench_verdicts_free(struct bench_verdict *v, size_t n);

/*
 * `check --bench`: runs bench --quick on every part and adds one check per
 * GPU (id "gpu.bench": ok, or warn with the cause and what to do) to cr,
 * and a skip (id "bench") for each part that could not run, naming why;
 * without the CUDA driver the whole bench is one skip, never a failure.
 * The GPU type is the catalog's row for the device name (bench/check.c).
 */
struct check_report;
void bench_check(struct check_report *cr, const struct catalog *cat, const char *nvml_path, const char *lib_dirs);

/* The PTX text the driver compiles (NUL-terminated, static). */
const char *bench_ptx_text(void);

/* The fields of one row, for --json and --csv (docs/bench.md). */
const struct report_schema *bench_row_schema(void);
void bench_row_fill(const struct bench_row *r, struct report_row *row);

/* "sw_power_cap,hw_thermal": the names of the reason bits into buf; "" when none.  Returns buf. */
const char *bench_reasons_text(uint64_t reasons, char *buf, size_t len);

#endif
