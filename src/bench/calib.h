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

/*
 * Writes r as a calibration file for the catalog type g (NULL: written
 * without one, which the readers refuse) to f.  Returns 0, or -1 with err
 * when r has no figure the model uses.
 */
int bench_calibration_write(const struct bench_result *r, const struct cat_gpu *g, FILE *f, struct diag *err);

/*
 * Parses a calibration file's text (len bytes; `file` names it in
 * messages) into *out, resolving its GPU in cat.  *summary (malloc()ed,
 * the caller frees it) says what it holds: "h100-sxm, 8 x NVIDIA H100 80GB
 * HBM3 measured 2025-06-01T10:00:00Z: bf16 GEMM 405 TFLOP/s, HBM 2850 GB/s".
 * Returns 0, or -1 with err naming file, line, column and field.
 */
int bench_calibration_parse(const char *text, size_t len, const char *file, const struct catalog *cat,
			    struct model_calibration *out, char **summary, struct diag *err);
/* The same from a file. */
int bench_calibration_load(const char *path, const struct catalog *cat, struct model_calibration *out,
			   char **summary, struct diag *err);

/*
 * Where `bench --save` writes and the commands look without --calibration:
 * $GPUSCOPE_CALIBRATION, else $XDG_CONFIG_HOME/gpuscope/calibration.json,
 * else ~/.config/gpuscope/calibration.json.  malloc()ed; NULL without HOME.
 */
char *bench_calibration_default_path(void);

#endif
