/*
 * Achieved fractions of the datasheet peaks by generation and software
 * stack.  Sources (calibration-cases.csv = C, published.csv = P; "fitted"
 * rows were set against P's fit rows only, never its holdout rows):
 *
 *   volta      HGEMM 0.85 as Ampere (ResNet-50 AMP on V100, C S6-006, fits with it); SGEMM 0.90
 *   turing     T4 runs at 70 W and drops clocks under tensor load: 0.75 (estimate)
 *   ampere     cuBLAS 16-bit 0.81-0.87 (C S8-001/002/035/038/040), TF32 0.80, SGEMM 0.90
 *   ada        0.80 16-bit, 0.70 fp8 (estimates: consumer/workstation boards clock down under load)
 *   hopper     cuBLAS bf16 792-829 of 989 TFLOP/s at large shapes (C S8-036/039/041) and fp8
 *              1290-1403 of 1979 (C S8-016/017/029/037): 0.85 and 0.72 before the shape and wave
 *              losses of an 8192^3 product on 132 SMs (0.94), as on Ampere
 *   blackwell  bf16 0.75 (estimate); fp8 2,744 of 5,000 TFLOP/s sustained and HBM 7.35 of 8 TB/s
 *              measured on GB200 (Microsoft Azure HPC blog, "Azure's ND GB200 v6 delivers record
 *              performance for inference workloads", 2025): 0.55 and 0.92
 *              fp4 (nvfp4, mxfp4): the fp8 fraction, 0.55, until a measured block-scaled GEMM is
 *              found: no public FP4 GEMM figure outside the reserved publications was used
 *   cdna2      0.60, HBM 0.80 (estimates)
 *   cdna3      MI300X through ROCm, hipBLASLt and vLLM: fp8 GEMMs at 0.30 of 2,615 TFLOP/s and
 *              framework kernels at 0.56 of a 0.80 stream rate (0.45 of 5.3 TB/s), fitted by a
 *              grid search to vLLM on MI300X (P4-001..003, P4-005/006, P5-001..003, P5-005..007;
 *              fit median 5.6 %); 16-bit and the stream rate are estimates
 *   gaudi2     SynapseAI MME: fp8 0.64 and bf16 0.80, fitted to Gaudi 2 Megatron-DeepSpeed LLM training
 *              (the 13 fit rows of P9 and V4: SynapseAI 1.16-1.19, layouts as Intel prints them;
 *              fp8 refitted by a grid 0.55-0.66 once attention ran at the bf16 rate: fit median
 *              4.3 %, held-aside median 6.3 %)
 *   gaudi3     fp8 0.53 of 1,835 TFLOP/s and framework bandwidth 0.78 of a 0.80 stream rate,
 *              fitted to Gaudi 3 static-batch generation (the 15 P3 fit rows; fit median 6.0 %)
 *
 * mesh_links: MI300X/MI325X platforms join their 8 GPUs by 7 Infinity Fabric links, one to each
 * peer (AMD MI300X datasheet), HLS-Gaudi 2/3 by 21 RoCE ports, 3 to each peer (Intel Hot Chips
 * 2024): a collective of g GPUs of one server has g - 1 of the 7 links (model/comm.c).
 * tp_hidden: SynapseAI runs HCCL collectives on the DMA/NIC engines while MME and TPC compute
 * (Intel Gaudi documentation, "Intel Gaudi Software Suite"); the hidden share of the TP
 * collectives, 0.5, was fitted on the Gaudi 2 training fit rows (0.4-0.6 tie) and carried to Gaudi 3.
 *
 * paged_kv: decode kernels that read a paged KV cache (vLLM's PagedAttention, FlashInfer) reach
 * less of the stream bandwidth than contiguous reads; fitted to vLLM on one H100 (P6-001; P6-002
 * held out).  HBM stream 0.86 on NVIDIA HBM parts: BabelStream 0.79-0.95 (C S8-005..007, S8-019..021, S8-030/031, S8-049).
 *
 * serve_compute: the share of the GEMM and flash-attention rates above that a serving engine's
 * inference reaches (vLLM, SGLang, TensorRT-LLM, LMDeploy, TGI: mixed prefill-decode batches of
 * changing shape, paged varlen attention, fused and quantised kernels beside cuBLAS).  Hopper 0.50,
 * fitted by a grid over 0.40-0.70 (steps of 0.025-0.05) to the serving runs on one H100 of
 * data/cases/serving.csv's fit set (SV-001..036, the Qwen3-14B H100 page), minimising the mean
 * |log(predicted / measured)| over every metric: 0.218 at 0.50, 0.232-0.233 at 0.45 and 0.55, and
 * 0.50 still the least (0.213) once the engines' host times were refitted after it.  The Qwen3-32B
 * H100 and Qwen3-8B latency pages were held aside.  Compute only: the stream rate stays, so the
 * decode-bound vLLM runs P6-001/002 move by 3-4 %.  Every other row 1 (the A100 serving rows fit
 * without it; no serving run was fitted for the others).
 */
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "model/vendor.h"

#define TUNE_PAGED_KV_EFF 0.70
#define TUNE_SERVE_COMPUTE_HOPPER 0.50

static struct model_vendor_eff table[] = {
	/* arch, 16-bit, tf32, fp32, fp8, fp4, hbm stream, framework share of it, paged kv, serving-engine
	 * compute share, mesh peers, TP collectives hidden, fp8 casts in kernels of their own */
	{"volta", 0.85, 0.90, 0.90, 0.72, 0.72, 0.86, 1.0, TUNE_PAGED_KV_EFF, 1.0, 0, 0, 1},
	{"turing", 0.75, 0.90, 0.90, 0.72, 0.72, 0.86, 1.0, TUNE_PAGED_KV_EFF, 1.0, 0, 0, 1},
	{"ampere", 0.85, 0.80, 0.90, 0.72, 0.72, 0.86, 1.0, TUNE_PAGED_KV_EFF, 1.0, 0, 0, 1},
	{"ada", 0.80, 0.75, 0.90, 0.70, 0.70, 0.86, 1.0, TUNE_PAGED_KV_EFF, 1.0, 0, 0, 1},
	{"hopper", 0.85, 0.80, 0.90, 0.72, 0.72, 0.86, 1.0, TUNE_PAGED_KV_EFF, TUNE_SERVE_COMPUTE_HOPPER, 0, 0, 1},
	{"blackwell", 0.75, 0.70, 0.90, 0.55, 0.55, 0.92, 1.0, TUNE_PAGED_KV_EFF, 1.0, 0, 0, 1},
	{"cdna2", 0.60, 0.60, 0.80, 0.50, 0.50, 0.80, 0.80, TUNE_PAGED_KV_EFF, 1.0, 0, 0, 1},
	{"cdna3", 0.60, 0.60, 0.80, 0.30, 0.30, 0.80, 0.56, TUNE_PAGED_KV_EFF, 1.0, 7, 0, 1},
	{"gaudi2", 0.80, 0.80, 0.80, 0.64, 0.64, 0.80, 1.0, TUNE_PAGED_KV_EFF, 1.0, 7, 0.5, 0},
	{"gaudi3", 0.60, 0.60, 0.80, 0.53, 0.53, 0.80, 0.78, TUNE_PAGED_KV_EFF, 1.0, 7, 0.5, 0},
	/* fallbacks by ecosystem: the nearest generation's row */
	{"*cuda", 0.85, 0.80, 0.90, 0.72, 0.72, 0.86, 1.0, TUNE_PAGED_KV_EFF, 1.0, 0, 0, 1},
	{"*rocm", 0.60, 0.60, 0.80, 0.30, 0.30, 0.80, 0.56, TUNE_PAGED_KV_EFF, 1.0, 7, 0, 1},
	{"*synapseai", 0.60, 0.60, 0.80, 0.53, 0.53, 0.80, 0.78, TUNE_PAGED_KV_EFF, 1.0, 7, 0.5, 0},
};
#define NROWS (sizeof(table) / sizeof(table[0]))

static const struct model_vendor_eff *find(const char *key)
{
	size_t i;
	for (i = 0; key && i < NROWS; i++)
		if (!strcmp(table[i].arch, key))
			return &table[i];
	return NULL;
}

/* The row by the names: the architecture, else the ecosystem's fallback, else CUDA's. */
static const struct model_vendor_eff *lookup(const struct cat_gpu *g)
{
	const struct model_vendor_eff *e = g ? find(g->arch) : NULL;
	char eco[32];
	if (e)
		return e;
	if (g && g->ecosystem) {
		eco[0] = '*';
		strncpy(eco + 1, g->ecosystem, sizeof(eco) - 2);
		eco[sizeof(eco) - 1] = '\0';
		if ((e = find(eco)))
			return e;
	}
	return find("*cuda");
}

/*
 * The names are compared once per GPU: the row's index is kept in the
 * catalog row (cat_gpu.model_vendor_row), which the model otherwise treats
 * as read-only.  A relaxed atomic suffices: every thread that races to fill
 * it stores the same index.
 */
const struct model_vendor_eff *model_vendor_eff(const struct cat_gpu *g)
{
	const struct model_vendor_eff *e;
	int i;
	if (!g)
		return lookup(NULL);
	i = atomic_load_explicit((atomic_int *)&g->model_vendor_row, memory_order_relaxed);
	if (i > 0)
		return &table[i - 1];
	e = lookup(g);
	atomic_store_explicit((atomic_int *)&g->model_vendor_row, (int)(e - table) + 1, memory_order_relaxed);
	return e;
}

/* The rows as shipped, kept at the first model_vendor_set(). */
static struct model_vendor_eff shipped[NROWS];
static int have_shipped;

static const struct {
	const char *name;
	size_t offset;
} fields[] = {
	{"gemm16", offsetof(struct model_vendor_eff, gemm16)},
	{"gemm_tf32", offsetof(struct model_vendor_eff, gemm_tf32)},
	{"gemm_fp32", offsetof(struct model_vendor_eff, gemm_fp32)},
	{"gemm_fp8", offsetof(struct model_vendor_eff, gemm_fp8)},
	{"gemm_fp4", offsetof(struct model_vendor_eff, gemm_fp4)},
	{"hbm", offsetof(struct model_vendor_eff, hbm)},
	{"fw_bw", offsetof(struct model_vendor_eff, fw_bw)},
	{"paged_kv", offsetof(struct model_vendor_eff, paged_kv)},
	{"serve_compute", offsetof(struct model_vendor_eff, serve_compute)},
	{"tp_hidden", offsetof(struct model_vendor_eff, tp_hidden)},
};

int model_vendor_set(const char *archs, const char *field, double v)
{
	size_t f, i, len;
	const char *p;
	int hit = 0;

	for (f = 0; f < sizeof(fields) / sizeof(fields[0]) && strcmp(fields[f].name, field); f++)
		;
	if (f == sizeof(fields) / sizeof(fields[0]))
		return -1;
	if (!have_shipped) {
		memcpy(shipped, table, sizeof(table));
		have_shipped = 1;
	}
	for (i = 0; i < NROWS; i++) {
		for (p = archs; *p; p += len + (p[len] == ',')) {
			len = strcspn(p, ",");
			if ((len == 1 && *p == '*') ||
			    (strlen(table[i].arch) == len && !strncmp(table[i].arch, p, len))) {
				*(double *)((char *)&table[i] + fields[f].offset) = v;
				hit = 1;
				break;
			}
		}
	}
	return hit ? 0 : -1;
}

void model_vendor_reset(void)
{
	if (have_shipped)
		memcpy(table, shipped, sizeof(table));
}
