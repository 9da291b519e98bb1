/*
 * The calibration file `bench --output FILE` / `--save` writes and
 * `estimate`, `plan` and `validate --calibration FILE` read: versioned JSON
 * with the GPU, the software, the clocks, the date and the measured
 * ceilings (docs/bench.md, "Calibration file").  Library code.
 */
#ifndef GPUSCOPE_BENCH_CALIB_H
#define GPUSCOPE_BENCH_CALIB_H

#include <stdio.h>

#include "bench/bench.h"
#include "model/model.h"

#define BENCH_CALIBRATION_VERSION 1
#define BENCH_CORRECTIONS_VERSION 1 /* of the optional "corrections" section */

/*
 * Writes r as a calibration file for the catalog type g (NULL: written
 * without one, which the readers refuse) to f.  Returns 0, or -1 with err
 * when r has no figure the model uses.
 */
int bench_calibration_write(const struct bench_result *r, const struct cat_gpu *g, FILE *f, struct diag *err);

/*
 * The calibration file's other ceilings, each a positive number or absent
 * (NaN): name (the key under "ceilings", also the exporter's series,
 * docs/export.md), unit, meaning.  The model reads only `gemm` and
 * hbm_copy_gbps (struct model_calibration); these are for people and fleets.
 */
#define BENCH_CAL_CEILINGS(F) \
	F(hbm_read_gbps, "GB/s", "HBM read kernel, mean over the GPUs") \
	F(hbm_write_gbps, "GB/s", "HBM write kernel, mean over the GPUs") \
	F(hbm_copy_gbps, "GB/s", "HBM copy kernel (read + written bytes), mean over the GPUs") \
	F(h2d_gbps, "GB/s", "host to device copy from pinned memory, mean over the GPUs") \
	F(d2h_gbps, "GB/s", "device to host copy to pinned memory, mean over the GPUs") \
	F(p2p_gbps, "GB/s", "peer copy, mean over the ordered pairs") \
	F(allreduce_busbw_gbps, "GB/s", "NCCL all-reduce bus bandwidth at its best size") \
	F(launch_s, "s", "one empty kernel launch") \
	F(graph_s, "s", "one CUDA graph replay")

/*
 * Everything a calibration file holds, read back.  The strings are owned
 * (bench_calibration_release frees them); model.file, model.date and
 * model.gpu_name point at file, date and gpu_name.
 */
struct bench_calibration {
	struct model_calibration model;        /* what the model reads: GEMM by dtype, HBM copy */
	char *file;                            /* the name it was read as */
	char *date;                            /* when bench measured, ISO 8601 UTC; NULL absent */
	char *gpu_name, *uuid;                 /* GPU 0's name and UUID; NULL absent */
	long long count;                       /* GPUs measured; 0 absent */
	char *driver;                          /* the driver's version text; NULL absent */
	long long cuda_driver, cublaslt, nccl; /* the libraries' version numbers; 0 absent */
#define BENCH_CAL_MEMBER(name, unit, help) double name;
	BENCH_CAL_CEILINGS(BENCH_CAL_MEMBER)
#undef BENCH_CAL_MEMBER
	double sm_mhz, mem_mhz, power_w; /* clocks.*: NaN absent */
	char *clock_events;              /* clocks.clock_events; NULL absent */
};

/*
 * Parses a calibration file's text (len bytes; `file` names it in messages
 * and is copied into out->file) into *out, resolving its GPU in cat.
 * Returns 0 with *out filled (release it), or -1 with err naming file,
 * line, column and field and *out untouched: a bad file applies nothing.
 */
int bench_calibration_read(const char *text, size_t len, const char *file, const struct catalog *cat,
			   struct bench_calibration *out, struct diag *err);
/* The same from a file (at most 16 MiB). */
int bench_calibration_read_file(const char *path, const struct catalog *cat, struct bench_calibration *out,
				struct diag *err);
/* Frees what c owns and zeroes it; a zeroed c is fine. */
void bench_calibration_release(struct bench_calibration *c);
/*
 * One line for a person (malloc()ed, the caller frees it): "h100-sxm5-80gb,
 * 8 x NVIDIA H100 80GB HBM3 measured 2025-06-01T10:00:00Z: bf16 GEMM 405
 * TFLOP/s, HBM 2850 GB/s".
 */
char *bench_calibration_summary(const struct bench_calibration *c);

/*
 * bench_calibration_read, keeping only the model's part (*out; its text
 * pointers are NULL) and the summary (*summary, malloc()ed, the caller
 * frees it; NULL on error).
 */
int bench_calibration_parse(const char *text, size_t len, const char *file, const struct catalog *cat,
			    struct model_calibration *out, char **summary, struct diag *err);
/* The same from a file. */
int bench_calibration_load(const char *path, const struct catalog *cat, struct model_calibration *out,
			   char **summary, struct diag *err);

/*
 * Writes a calibration file of step-time corrections (a profile's traced
 * time over the model's, per part of the step: model_corr_name()) for GPU
 * g: the header, gpu and an empty ceilings section as bench writes them,
 * and the optional section "corrections": {"version": 1, "from": from,
 * "classes": {"gemm": f, ...}} (docs/bench.md; parts with corr[i] <= 0 are
 * left out).  date is ISO 8601 UTC.  Returns 0, or -1 with err when no part
 * has a correction.
 */
int bench_calibration_write_corrections(const struct cat_gpu *g, const double corr[MODEL_NCORR], const char *from,
					const char *date, FILE *f, struct diag *err);

/*
 * Where `bench --save` writes and the commands look without --calibration:
 * $GPUSCOPE_CALIBRATION, else $XDG_CONFIG_HOME/gpuscope/calibration.json,
 * else ~/.config/gpuscope/calibration.json.  malloc()ed; NULL without HOME.
 */
char *bench_calibration_default_path(void);

#endif
