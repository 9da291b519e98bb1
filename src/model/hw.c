/*
 * What the model takes from a GPU: dense peaks, achievable GEMM and HBM
 * rates, PCIe copies.  docs/model.md, "GPU numbers".
 */

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/kernels.h"
#include "model/model_int.h"
#include "model/vendor.h"

/* ------------------------------------------------------------------------- */
/* GPU numbers                                                                */

/* Dense peak at a precision, FLOP/s; NaN when the GPU lacks it. */
double peak_of(const struct cat_gpu *g, enum model_precision p)
{
	double v;
	switch (p) {
	case MODEL_FP32:
		v = g->fp32_tflops;
		break;
	case MODEL_TF32:
		/* without TF32 tensor cores (Volta) "tf32" runs as fp32 */
		v = isnan(g->tf32_tflops) ? g->fp32_tflops : g->tf32_tflops;
		break;
	case MODEL_FP16:
		v = g->fp16_tflops;
		break;
	case MODEL_BF16:
		v = g->bf16_tflops;
		break;
	case MODEL_FP8:
		v = g->fp8_tflops;
		break;
	case MODEL_INT8:
		/* dense INT8 tensor-core TOP/s (Turing on): TensorRT's int8 engines, inference only */
		v = g->int8_tops;
		break;
	case MODEL_NVFP4:
	case MODEL_MXFP4:
		/*
		 * Blackwell's block-scaled MMA runs NVFP4 (16-element E4M3
		 * scales) and MXFP4 (32-element E8M0 scales) at the one FP4
		 * rate its datasheets give (PTX ISA kind::mxf4nvf4)
		 */
		v = g->fp4_tflops;
		break;
	default:
		v = g->fp16_tflops;
		break;
	}
	return v * 1e12;
}

/*
 * Achievable fraction of the dense peak for large GEMMs, by generation and
 * software stack (model/vendor.c lists each with its source): cuBLAS on A100
 * reaches 81-87 % in 16-bit, H100 80 %, FP8 on H100/H200 66-71 %; ROCm and
 * SynapseAI rows are fitted to published runs.
 */
static double emax_from(const struct model_vendor_eff *v, const struct cat_gpu *g, enum model_precision p)
{
	switch (p) {
	case MODEL_FP32:
		return v->gemm_fp32;
	case MODEL_TF32:
		return g && g->tf32_tflops > 0 ? v->gemm_tf32 : v->gemm_fp32;
	case MODEL_FP8:
		return v->gemm_fp8;
	case MODEL_INT8:
		/* IMMA kernels reach their own share of the INT8 peak (TUNE_INT8_GEMM_REL of the 16-bit one) */
		return v->gemm16 * TUNE_INT8_GEMM_REL;
	case MODEL_NVFP4:
	case MODEL_MXFP4:
		return v->gemm_fp4;
	default:
		return v->gemm16;
	}
}

/*
 * Boards off their generation (docs/model.md): a catalog row that gives the
 * board's measured dense 16-bit GEMM ceiling (gemm16_tflops) scales its
 * generation's tensor-core fractions by that ceiling over what they give for
 * the same 8192^3 product (gemm_s, at bf16 where the board has it).  GeForce
 * boards hold clocks above the boost clock their datasheet peak assumes;
 * workstation and low-power boards fall below their generation's datacenter
 * parts.  FP32 runs on the SIMT pipes and keeps its fraction.  1 for a board
 * without the figure.
 */
static double board_factor(const struct cat_gpu *g, const struct model_vendor_eff *v, enum model_precision p)
{
	enum model_precision p16;
	struct hw h;
	double n = 8192;

	if (!g || !(g->gemm16_tflops > 0) || p == MODEL_FP32)
		return 1;
	p16 = g->bf16_tflops > 0 ? MODEL_BF16 : MODEL_FP16;
	memset(&h, 0, sizeof(h));
	h.peak = peak_of(g, p16);
	if (!(h.peak > 0) || !(v->gemm16 > 0))
		return 1;
	h.sms = g->sm_count > 0 ? g->sm_count : 0;
	h.inv_gemm = 1 / (h.peak * v->gemm16);
	/* 8192^3 is compute-bound on every board: no memory floor */
	h.inv_bw = 0;
	return g->gemm16_tflops * 1e12 / (2 * n * n * n / gemm_s(&h, 2, n, n, n));
}

static double board_emax(const struct model_vendor_eff *v, const struct cat_gpu *g, enum model_precision p)
{
	return emax_from(v, g, p) * board_factor(g, v, p);
}

double emax_of(const struct cat_gpu *g, enum model_precision p)
{
	return board_emax(model_vendor_eff(g), g, p);
}

/*
 * Measured ceilings in place of the catalog's (model/calib.c): emax from the
 * GEMM bench measured at c's precision (and the attention matmuls' own), the
 * stream rate from its HBM copy, both scaled as the catalog's are (the
 * training GEMM share and the framework share of the stream).  A MIG
 * instance keeps the whole GPU's fraction; its share of SMs and memory
 * slices applies after.
 */
static void calibrate(const struct model_config *c, const struct model_vendor_eff *v, struct hw *h)
{
	const struct model_calibration *cal = model_calibration_of(c->gpu);
	double e;
	if (!cal)
		return;
	if ((e = model_calibration_emax(cal, c->precision)) > 0)
		h->emax = e * TUNE_TRAIN_GEMM;
	/*
	 * the attention matmuls run on the same tensor cores at the same clocks
	 * and power as the GEMMs: the measured share of the catalog's GEMM rate
	 * scales their peak, so flash attention (a share of attn_peak) slows on
	 * a capped GPU too; attn_peak x attn_emax is the measured GEMM rate
	 */
	if ((e = model_calibration_emax(cal, attn_precision_of(c))) > 0 && h->attn_emax > 0)
		h->attn_peak *= e * TUNE_TRAIN_GEMM / h->attn_emax;
	if (cal->hbm_gbps > 0)
		h->bw = cal->hbm_gbps * 1e9 * v->fw_bw;
}

int hw_of(const struct model_config *c, struct hw *h)
{
	const struct cat_gpu *g = c->gpu;
	const struct model_vendor_eff *v;
	if (!g)
		return -1;
	h->peak = peak_of(g, c->precision);
	if (!(h->peak > 0))
		return -1;
	/* looked up once: the hot functions call this for every configuration */
	v = model_vendor_eff(g);
	h->emax = board_emax(v, g, c->precision) * TUNE_TRAIN_GEMM;
	h->bw = (g->mem_bw_gbps > 0 ? g->mem_bw_gbps : 1000) * 1e9 * v->hbm * v->fw_bw;
	h->sms = g->sm_count > 0 ? g->sm_count : 0;
	h->paged_kv = v->paged_kv;
	h->attn_peak = h->peak;
	h->attn_emax = h->emax;
	if (attn_precision_of(c) != c->precision && peak_of(g, attn_precision_of(c)) > 0) {
		h->attn_peak = peak_of(g, attn_precision_of(c));
		h->attn_emax = board_emax(v, g, attn_precision_of(c)) * TUNE_TRAIN_GEMM;
	}
	calibrate(c, v, h);
	if (c->task == MODEL_TASK_INFER && model_engine_info(engine_of(c))->serving && v->serve_compute > 0) {
		/* a serving engine's share of the GEMM and attention rates (model/vendor.c) */
		h->emax *= v->serve_compute;
		h->attn_emax *= v->serve_compute;
		h->attn_peak *= v->serve_compute;
	}
	h->mem = (g->memory_gib > 0 ? g->memory_gib : 0) * 1073741824.0 * TUNE_USABLE_MEM;
	h->tdp_w = g->tdp_w > 0 ? g->tdp_w : 300;
	h->idle_w = g->idle_w > 0 ? g->idle_w : h->tdp_w * 0.12;
	if (c->mig > 0) {
		/* a MIG instance: its share of the SMs, and of the memory slices (capacity and bandwidth) */
		double cs, ms;
		if (model_mig_share(g, c->mig, &cs, &ms))
			return -1;
		h->peak *= cs;
		h->attn_peak *= cs;
		h->sms *= cs;
		h->bw *= ms;
		h->mem *= ms;
		h->tdp_w *= cs;
		h->idle_w *= cs;
	}
	h->inv_gemm = 1 / (h->peak * h->emax);
	h->inv_bw = 1 / h->bw;
	return 0;
}

/*
 * Flash attention: as configured, or when left automatic (-1), on where
 * PyTorch's SDPA has flash kernels: GPUs with bf16 tensor cores (Ampere,
 * CDNA2 and later) running 16-bit or fp8; TensorRT's int8 fused
 * multi-head attention keeps the scores on chip likewise.
 */
int flash_on(const struct model_config *c)
{
	if (c->flash >= 0)
		return c->flash > 0;
	return c->gpu && c->gpu->bf16_tflops > 0 &&
	       (c->precision == MODEL_FP16 || c->precision == MODEL_BF16 || low_precision(c->precision) ||
		c->precision == MODEL_INT8);
}

/*
 * The precision of the attention score and context matmuls QK^T and AV.
 * fp8 training recipes cast only the linear layers to fp8: Transformer
 * Engine's fp8 autocast covers its Linear/LayerNormLinear/LayerNormMLP
 * modules while DotProductAttention runs the fused (flash) attention in
 * the 16-bit input type, and Intel Gaudi's fp8 training recipes do the
 * same (fp8 matmuls in linear layers, attention in bf16).  Inference
 * with an fp8 KV cache is the exception: fp8 attention kernels
 * (FlashAttention-3, TensorRT-LLM's fp8 context FMHA) read fp8 Q, K, V.
 * Under fp8 the 16-bit type is bf16, else fp16 on a part without bf16.
 * NVFP4 and MXFP4 recipes do the same: Transformer Engine's NVFP4 and
 * MXFP4 recipes quantise the linear layers' GEMM inputs only, and FP4
 * serving (TensorRT-LLM, vLLM) runs attention in bf16, or in fp8 over an
 * fp8 KV cache.
 */
enum model_precision attn_precision_of(const struct model_config *c)
{
	if (!low_precision(c->precision))
		return c->precision;
	if (c->task == MODEL_TASK_INFER && c->kv_precision == MODEL_FP8)
		return MODEL_FP8;
	return c->gpu && c->gpu->bf16_tflops > 0 ? MODEL_BF16 : MODEL_FP16;
}

const char *model_gpu_precisions_text(const struct cat_gpu *g, char *buf, size_t len)
{
	static const enum model_precision all[] = {MODEL_FP32, MODEL_TF32,  MODEL_FP16, MODEL_BF16,
						   MODEL_FP8,  MODEL_NVFP4, MODEL_MXFP4};
	size_t i, at = 0;
	if (len)
		buf[0] = '\0';
	for (i = 0; g && i < sizeof(all) / sizeof(all[0]) && at < len; i++) {
		int n;
		/* tf32 only where the GPU has TF32 tensor cores (peak_of runs it as fp32 elsewhere) */
		if (!(peak_of(g, all[i]) > 0) || (all[i] == MODEL_TF32 && !(g->tf32_tflops > 0)))
			continue;
		n = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", model_precision_name(all[i]));
		if (n < 0)
			break;
		at += (size_t)n < len - at ? (size_t)n : len - at - 1;
	}
	return buf;
}

int model_flash_on(const struct model_config *c)
{
	return flash_on(c);
}

/*
 * Time of one m x n x k GEMM: a roofline.  Compute at peak x emax x s(m)
 * s(n) s(k) x wave(m, n), where s(x) = x / (x + x0) models tiles left idle
 * by small dimensions (x0 = TUNE_GEMM_X0) and wave() the last, partly idle
 * wave of output tiles over the SMs (model/kernels.c); memory at the HBM
 * rate for reading A and B and writing C once (decode GEMMs with m = batch
 * are memory bound).
 */
double gemm_s(const struct hw *h, double eb, double m, double n, double k)
{
	double x0 = TUNE_GEMM_X0;
	double tc, tm;
	if (m <= 0 || n <= 0 || k <= 0)
		return 0;
	/* 2mnk / (peak emax s(m) s(n) s(k)) = 2 (m+x0)(n+x0)(k+x0) / (peak emax) */
	tc = 2 * (m + x0) * (n + x0) * (k + x0) * h->inv_gemm;
	tc /= model_gemm_wave_eff(h->sms, m, n, k);
	tm = eb * (m * k + k * n + m * n) * h->inv_bw;
	return tc > tm ? tc : tm;
}

double model_gemm_tflops(const struct cat_gpu *gpu, enum model_precision p, double m, double n, double k)
{
	struct hw h;
	struct model_config c;
	model_config_defaults(&c);
	c.gpu = gpu;
	c.precision = p;
	if (hw_of(&c, &h))
		return NAN;
	h.emax = emax_of(gpu, p);
	h.inv_gemm = 1 / (h.peak * h.emax);
	return 2 * m * n * k / gemm_s(&h, model_precision_bytes(p), m, n, k) / 1e12;
}

double model_hbm_gbps(const struct cat_gpu *gpu)
{
	return gpu && gpu->mem_bw_gbps > 0 ? gpu->mem_bw_gbps * model_vendor_eff(gpu)->hbm : NAN;
}

/* PCIe x16 per direction by generation, GB/s (PCI-SIG: 15.75, 31.5, 63, 121). */
static double pcie_gbps(double gen)
{
	if (gen >= 6)
		return 121;
	if (gen >= 5)
		return 63;
	if (gen >= 4)
		return 31.5;
	if (gen >= 3)
		return 15.75;
	return 15.75;
}

double model_h2d_gbps(const struct cat_gpu *gpu)
{
	if (!gpu)
		return NAN;
	if (isnan(gpu->pcie_gen))
		return NAN;
	return pcie_gbps(gpu->pcie_gen) * TUNE_H2D_EFF;
}

/*
 * MIG profiles (NVIDIA Multi-Instance GPU User Guide, "Supported MIG
 * profiles"): a 7-compute-slice part has 8 memory slices; 1g, 2g, 3g, 4g
 * and 7g instances get 1, 2, 4, 4 and 8 of them.  A30 (4 slices) splits
 * compute and memory alike.
 */
int model_mig_share(const struct cat_gpu *g, int slices, double *compute, double *memory)
{
	static const int mem7[8] = {0, 1, 2, 4, 4, 0, 0, 8};
	int n = g && g->mig_slices > 0 ? (int)g->mig_slices : 0;
	if (n < 2 || slices < 1 || slices > n)
		return -1;
	*compute = (double)slices / n;
	if (n == 7) {
		if (!mem7[slices])
			return -1;
		*memory = mem7[slices] / 8.0;
	} else {
		if (n % slices)
			return -1;
		*memory = *compute;
	}
	return 0;
}
