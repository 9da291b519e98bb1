/*
 * Weight-only quantised kernels: how a linear layer whose weights are stored
 * in 4 or 8 bits runs at decode.  One row of data/quant/kernels.csv per
 * kernel family and release (bitsandbytes NF4 and LLM.int8(), AWQ GEMV and
 * GEMM, GPTQ's exllama and cuda-old, exllamav2, Marlin); docs/model.md,
 * "Weight-only quantised kernels", derives the decode time from them.
 * The table is read from the embedded file once, on first use, and lives for
 * the process; every pointer returned below points into it.
 */
#ifndef GPUSCOPE_MODEL_QUANT_H
#define GPUSCOPE_MODEL_QUANT_H

#include "util/error.h"

struct model_quant_kernel {
	const char *name;       /* e.g. "bnb-nf4", "awq-gemv" (the --quant-kernel value) */
	const char *release;    /* the library release the row describes */
	int precision;          /* enum model_precision of the weights it reads: int4, int8, nf4 */
	double bw_share;        /* share of the stream rate at which it reads the packed weights */
	double dequant_above;   /* batch above which it dequantises the whole weight to 16 bits and
				 * runs the GEMM (INFINITY: never, 0: always) */
	double gemv_rows;       /* sequences one pass over the packed weights serves (0: all) */
	double launches_linear; /* kernels a quantised linear launches besides its one matmul */
	double host_linear_s;   /* host time of a quantised linear besides its launches, s */
	const char *source;
};

/* Rows in the table (0 when it did not read: model_quant_kernel_find says why). */
int model_quant_kernel_count(void);
/* Row i (0 <= i < count), or NULL. */
const struct model_quant_kernel *model_quant_kernel_at(int i);
/* The index of the row named s, or -1. */
int model_quant_kernel_from_name(const char *s);
/* "bnb-nf4, bnb-int8, ..." for messages and help; static, lives for the process. */
const char *model_quant_kernel_names_text(void);
/*
 * The kernel a run of `precision` stored weights uses when none is named
 * (docs/model.md): nf4 bitsandbytes' 4-bit kernel; int8 LLM.int8() under
 * eager code (what load_in_8bit runs) and none under the fused engines;
 * int4 Marlin under a serving engine and exllamav2 elsewhere (what GPTQ
 * checkpoints load with in transformers); -1 (none: the weights read at the
 * stream rate, nothing else) for 16-bit, fp8 and FP4 weights.
 */
int model_quant_kernel_default(int precision, int serving_engine, int fused_engine);
/*
 * Whether kernel k can read weights stored at `precision`; -1 with err
 * naming the option ("quant-kernel") when it cannot.
 */
int model_quant_kernel_check(int k, int precision, struct diag *err);

/*
 * For `validate --refit` (model/fitted.h), from one thread while no estimate
 * runs: sets the column named `field` (a numeric column of the file:
 * "bw_share", "host_per_linear_s", ...) of each row in `kernels`
 * ("awq-gemv" or "bnb-nf4,bnb-nf4-0.44") to v; -1 when the field or every
 * kernel is unknown.  model_quant_reset puts every row back as read.
 */
int model_quant_set(const char *kernels, const char *field, double v);
void model_quant_reset(void);

#endif
