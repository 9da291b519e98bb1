#include "model/fitted.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "model/quant.h"
#include "model/tune.h"
#include "model/vendor.h"
#include "report/field.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/*
 * Each entry repeats what the comment beside the constant says it was fitted
 * on (calibration = data/cases/calibration.csv, S*; published.csv, P*, E*, V*;
 * memory.csv, M*).  Constants that are estimates or come from a datasheet or
 * a paper's own figure, not from these cases, have no entry.
 */
/* the quantised-kernel table, whose rows' fields are set by name (model/quant.h) */
#define QUANT_FILE "data/quant/kernels.csv"

double tune_fitted[TUNE_NFITTED] = {TUNE_FITTED_DEFAULTS};
_Static_assert(sizeof((double[]){TUNE_FITTED_DEFAULTS}) == TUNE_NFITTED * sizeof(double),
	       "TUNE_FITTED_DEFAULTS has one value per tune_fitted_id");

/*
 * Priors (the value when no case is left to fit on): a GEMM at its
 * microbenchmark rate (TRAIN_GEMM 1), a 128-wide tile (X0), 80 % of a link's
 * rate for copies and collectives, NVLS at its link rate, no extra sharded
 * reserve and no SM share for hidden gathers, 8 fp32 bytes a logit
 * (Megatron's loss), convolutions at a GEMM's 80 %, TF32 at half the 16-bit
 * rate as the datasheets give it, FP32 convolutions at SGEMM's 90 %.  Host
 * costs: an eager launch at the few microseconds PyTorch's dispatcher and
 * cudaLaunchKernel are commonly put at (6 us); a per-sample network's module
 * call at three such launches (20 us: the call, its dispatch, cuDNN's host
 * side); no Python per layer of transformers' code besides its launches;
 * DeepSpeed's per-rank copy of a gather's output at one eager launch (the
 * copy kernel each rank's slice costs); Transformer Engine's fp8 module at
 * the 1.5 ms its issue #445 times for one te.Linear over bf16.  Quantised
 * kernels as data/quant/kernels.csv puts its unfitted rows: the packed
 * weights read at the stream rate (share 1), no host time besides the
 * launches (0).  Ranges bound the search to what is physical.
 */
static const struct fitted_const consts[] = {
	{"TUNE_GEMM_X0", "src/model/tune.h", "S1-*", TUNE_K_GEMM_X0, NULL, 32, 256, 128},
	{"TUNE_TRAIN_GEMM", "src/model/tune.h", "S1-*", TUNE_K_TRAIN_GEMM, NULL, 0.6, 1, 1},
	{"TUNE_H2D_EFF", "src/model/tune.h", "S8-008 S8-022 S8-032", TUNE_K_H2D_EFF, NULL, 0.6, 0.95, 0.8},
	{"TUNE_NVLINK_EFF", "src/model/tune.h", "S8-011 S8-012 S8-044", TUNE_K_NVLINK_EFF, NULL, 0.6, 0.95, 0.8},
	{"TUNE_NVLS_EFF", "src/model/tune.h", "S8-025 S8-026 S8-033 S8-042 S8-046 S8-047", TUNE_K_NVLS_EFF, NULL,
	 0.8, 1.3, 1},
	{"TUNE_INTER_EFF", "src/model/tune.h", "S8-045", TUNE_K_INTER_EFF, NULL, 0.6, 0.95, 0.8},
	{"TUNE_RESERVE_SHARDED", "src/model/tune.h", "M*:fit", TUNE_K_RESERVE_SHARDED, NULL, 0, 0.4, 0},
	{"TUNE_LOGITS_FP32_BYTES", "src/model/tune.h", "M*:fit", TUNE_K_LOGITS_FP32_BYTES, NULL, 4, 16, 8},
	{"TUNE_ZERO3_SM_SHARE", "src/model/tune.h", "P10-001..005 P14-*:fit", TUNE_K_ZERO3_SM_SHARE, NULL, 0, 0.4,
	 0},
	{"TUNE_CONV_EFF", "src/model/tune.h", "S6-002 S6-006", TUNE_K_CONV_EFF, NULL, 0.3, 0.9, 0.8},
	{"TUNE_TF32_CONV_REL", "src/model/tune.h", "S6-001", TUNE_K_TF32_CONV_REL, NULL, 0.3, 1, 0.5},
	{"TUNE_CONV_EFF_FP32", "src/model/tune.h", "S6-005", TUNE_K_CONV_EFF_FP32, NULL, 0.5, 1.5, 0.9},
	{"TUNE_STRAGGLER_SIGMA", "src/model/tune.h", "P16-006..009 P21-* S1-006..010 S1-019 S1-021 S1-022",
	 TUNE_K_STRAGGLER_SIGMA, NULL, 0, 0.05, 0},
	{"TUNE_TP_OVERLAP", "src/model/tune.h", "P16-002..009", TUNE_K_TP_OVERLAP, NULL, 0, 0.9, 0},
	{"TUNE_EAGER_LAUNCH_S", "src/model/tune.h", "P7-003", TUNE_K_EAGER_LAUNCH_S, NULL, 2e-6, 15e-6, 6e-6},
	{"TUNE_DS_RANK_COPY_S", "src/model/tune.h", "S1-011..016", TUNE_K_DS_RANK_COPY_S, NULL, 0, 150e-6, 6e-6},
	{"TUNE_EAGER_MODULE_OP_S", "src/model/tune.h", "E5-*:fit", TUNE_K_EAGER_MODULE_OP_S, NULL, 10e-6, 80e-6,
	 20e-6},
	{"TUNE_CONV3D_EFF_CL", "src/model/tune.h", "P11-*:fit", TUNE_K_CONV3D_EFF_CL, NULL, 0.2, 0.8, 0.59},
	{"TUNE_CONV3D_EFF_LEGACY", "src/model/tune.h", "P8-001 P8-002 P8-005 P8-006 P8-009..011",
	 TUNE_K_CONV3D_EFF_LEGACY, NULL, 0.05, 0.5, 0.59},
	{"TUNE_CONV3D_EFF_FP32", "src/model/tune.h", "P8-001 P8-002 P8-005 P8-006 P8-009..011",
	 TUNE_K_CONV3D_EFF_FP32, NULL, 0.2, 1, 0.9},
	{"TUNE_TF32_CONV3D_REL", "src/model/tune.h", "P11-002 P11-004 P11-008 P11-010 P11-025 P11-026",
	 TUNE_K_TF32_CONV3D_REL, NULL, 0.3, 1, 0.5},
	{"TUNE_EAGER_MEM3D_EFF", "src/model/tune.h", "P19-*:fit", TUNE_K_EAGER_MEM3D_EFF, NULL, 0.05, 1, 1},
	{"compiled 16-bit runs under FSDP keep the eager activations (act_linear_inputs)", "src/model/memory.c",
	 "M6-001 M7-*", -1, NULL, 0, 0, 0},
	{"TUNE_PAGED_KV_EFF", "src/model/vendor.c", "P6-001", -1, "* paged_kv", 0.4, 1, 1},
	{"TUNE_SERVE_COMPUTE_HOPPER", "src/model/vendor.c", "SV-001..036", -1, "hopper serve_compute", 0.3, 1, 1},
	{"TUNE_HF_LAYER_S", "src/model/tune.h", "P24-*:fit P26-*:fit", TUNE_K_HF_LAYER_S, NULL, 0, 1e-3, 0},
	{"TUNE_TE_FP8_MODULE_S", "src/model/tune.h", "P12-*:fit P13-*:fit", TUNE_K_TE_FP8_MODULE_S, NULL, 0, 3e-3,
	 1.5e-3},
	{"TUNE_INT8_CONV_REL", "src/model/tune.h", "P35-001 P35-002 P36-001", -1, NULL, 0, 0, 0},
	{"TUNE_TRT_SAMPLE_TRAFFIC", "src/model/tune.h", "P35-001 P35-002 P36-001", -1, NULL, 0, 0, 0},
	{"bnb-nf4 host_per_linear_s", QUANT_FILE, "P24-*:fit", -1, "bnb-nf4 host_per_linear_s", 0, 400e-6, 0},
	{"bnb-nf4-0.44 host_per_linear_s", QUANT_FILE, "P24-*:fit", -1, "bnb-nf4-0.44 host_per_linear_s", 0,
	 400e-6, 0},
	{"bnb-int8 host_per_linear_s", QUANT_FILE, "P24-*:fit", -1, "bnb-int8 host_per_linear_s", 0, 600e-6, 0},
	{"bnb-int8-0.44 host_per_linear_s", QUANT_FILE, "P24-*:fit", -1, "bnb-int8-0.44 host_per_linear_s", 0,
	 600e-6, 0},
	{"awq-gemv bw_share", QUANT_FILE, "P25-*:fit", -1, "awq-gemv bw_share", 0.2, 1, 1},
	{"awq-gemm bw_share", QUANT_FILE, "P25-*:fit", -1, "awq-gemm bw_share", 0.2, 1, 1},
	{"exllama bw_share", QUANT_FILE, "P26-*:fit", -1, "exllama bw_share", 0.2, 1, 1},
	{"gptq-cuda-old bw_share", QUANT_FILE, "P26-*:fit", -1, "gptq-cuda-old bw_share", 0.1, 1, 1},
	{"vllm 0.11 host times (host_step_s, host_seq_s, host_req_s)", "data/serve/engines.csv", "SV-*:fit", -1,
	 NULL, 0, 0, 0},
	{"sglang 0.5 host times", "data/serve/engines.csv", "SV-*:fit", -1, NULL, 0, 0, 0},
	{"trtllm 1.2 host times", "data/serve/engines.csv", "SV-*:fit", -1, NULL, 0, 0, 0},
	{"volta 16-bit GEMM", "src/model/vendor.c", "S6-006", -1, "volta gemm16", 0.5, 0.95, 0.8},
	{"ampere 16-bit GEMM", "src/model/vendor.c", "S8-001 S8-002 S8-035 S8-038 S8-040", -1, "ampere gemm16",
	 0.5, 0.95, 0.8},
	{"hopper bf16 GEMM", "src/model/vendor.c", "S8-036 S8-039 S8-041", -1, "hopper,*cuda gemm16", 0.5, 0.95,
	 0.8},
	{"hopper fp8 GEMM", "src/model/vendor.c", "S8-016 S8-017 S8-029 S8-037", -1, "hopper,*cuda gemm_fp8", 0.3,
	 0.95, 0.8},
	{"HBM stream efficiency", "src/model/vendor.c", "S8-005..007 S8-019..021 S8-030 S8-031 S8-049", -1,
	 "volta,turing,ampere,ada,hopper,*cuda hbm", 0.6, 0.98, 0.9},
	{"cdna3 fp8 GEMM", "src/model/vendor.c", "P4-001..003 P4-005 P4-006 P5-001..003 P5-005..007", -1,
	 "cdna3,*rocm gemm_fp8", 0.1, 0.9, 0.8},
	{"cdna3 framework bandwidth", "src/model/vendor.c", "P4-001..003 P4-005 P4-006 P5-001..003 P5-005..007",
	 -1, "cdna3,*rocm fw_bw", 0.3, 1, 1},
	{"gaudi2 fp8 GEMM", "src/model/vendor.c", "P9-*:fit V4-*:fit", -1, "gaudi2 gemm_fp8", 0.3, 0.95, 0.8},
	{"gaudi2 bf16 GEMM", "src/model/vendor.c", "P9-*:fit V4-*:fit", -1, "gaudi2 gemm16", 0.5, 0.95, 0.8},
	{"Gaudi hidden TP collectives", "src/model/vendor.c", "P9-*:fit V4-*:fit", -1,
	 "gaudi2,gaudi3,*synapseai tp_hidden", 0, 1, 0},
	{"gaudi3 fp8 GEMM", "src/model/vendor.c", "P3-*:fit", -1, "gaudi3,*synapseai gemm_fp8", 0.3, 0.95, 0.8},
	{"gaudi3 framework bandwidth", "src/model/vendor.c", "P3-*:fit", -1, "gaudi3,*synapseai fw_bw", 0.3, 1, 1},
};

static const double tune_shipped[TUNE_NFITTED] = {TUNE_FITTED_DEFAULTS};

int fitted_refittable(const struct fitted_const *k)
{
	return k->tune >= 0 || k->table;
}

int fitted_set(const struct fitted_const *k, double v)
{
	struct strbuf rows = STRBUF_INIT;
	const char *sp;
	int rc;

	if (k->tune >= 0) {
		tune_fitted[k->tune] = v;
		return 0;
	}
	if (!k->table || !(sp = strchr(k->table, ' ')))
		return -1;
	strbuf_add(&rows, k->table, (size_t)(sp - k->table));
	if (!strcmp(k->where, QUANT_FILE))
		rc = model_quant_set(strbuf_str(&rows), sp + 1, v);
	else
		rc = model_vendor_set(strbuf_str(&rows), sp + 1, v);
	strbuf_release(&rows);
	return rc;
}

void fitted_reset(void)
{
	memcpy(tune_fitted, tune_shipped, sizeof(tune_fitted));
	model_vendor_reset();
	model_quant_reset();
}

const struct fitted_const *fitted_consts(size_t *n)
{
	*n = sizeof(consts) / sizeof(consts[0]);
	return consts;
}

/* "PFX-A..B" takes PFX-N for A <= N <= B with N's digits as wide as A's; 1 when it does. */
static int range_match(const char *pat, size_t len, const char *id)
{
	const char *dots = memchr(pat, '.', len), *dash;
	size_t plen, ilen = strlen(id);
	char *end;
	long lo, hi, v;

	if (!dots || dots + 2 >= pat + len || dots[1] != '.')
		return 0;
	for (dash = dots; dash > pat && dash[-1] != '-'; dash--)
		;
	plen = (size_t)(dash - pat);
	if (!plen || ilen <= plen || strncmp(id, pat, plen))
		return 0;
	lo = strtol(dash, &end, 10);
	if (end != dots)
		return 0;
	hi = strtol(dots + 2, &end, 10);
	if (end != pat + len)
		return 0;
	if (strlen(id + plen) != (size_t)(dots - dash))
		return 0;
	v = strtol(id + plen, &end, 10);
	return *end == '\0' && v >= lo && v <= hi;
}

int fitted_pattern_match(const char *cases, const char *id, const char *set)
{
	const char *p = cases;

	while (*p) {
		size_t len = strcspn(p, " "), plen = len;
		const char *colon = memchr(p, ':', len);
		int fit_only = 0, hit;
		char *pat;

		if (colon) {
			plen = (size_t)(colon - p);
			fit_only = len - plen == 4 && !strncmp(colon, ":fit", 4);
		}
		if (plen && (!colon || fit_only) && (!fit_only || !strcmp(set, "fit"))) {
			pat = xstrndup(p, plen);
			hit = strstr(pat, "..") ? range_match(pat, plen, id) : !fnmatch(pat, id, 0);
			free(pat);
			if (hit)
				return 1;
		}
		p += len;
		p += strspn(p, " ");
	}
	return 0;
}

const struct fitted_const *fitted_on(const char *id, const char *set)
{
	size_t i;
	for (i = 0; i < sizeof(consts) / sizeof(consts[0]); i++)
		if (fitted_pattern_match(consts[i].cases, id, set ? set : ""))
			return &consts[i];
	return NULL;
}

#define FITTED_FIELDS(F) \
	F(name, TEXT, NULL, "the constant (a TUNE_* macro) or the catalog row it sets", f->name) \
	F(where, TEXT, NULL, "the source file that holds it", f->where) \
	F(cases, TEXT, NULL, "the case ids it was fitted on: ids, globs, ranges; \":fit\": fit-set rows only", \
	  f->cases)

/* clang-format off */
REPORT_DEFINE(fitted_schema, fitted_row, "validate-fitted", struct fitted_const, f, FITTED_FIELDS)
/* clang-format on */
