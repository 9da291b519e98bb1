/*
 * The memory and time model.  Pure arithmetic on the workload's derived
 * constants, the config and the GPU's numbers: no allocation, no I/O.
 * docs/model.md explains each formula with its source; the block comment
 * above each function gives the formula it implements.
 *
 * Notation: L layers (Ls on one pipeline stage), h hidden, a heads, d head
 * dimension, q = a*d, kv = kv_heads*d, f MLP width, V vocabulary, s sequence
 * length, b micro-batch, T = s*b tokens per micro-batch, t = tp, p = pp,
 * v = vpp, e = bytes per activation element.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"

/*
 * Calibration constants.  Each says where its value comes from; those fitted
 * to data were fitted only against data/cases/calibration.csv (the
 * "calibration-cases" set) and the figures named beside them.
 */
/* GEMM: best fraction of dense peak (cuBLAS; S8-001/002/016/017/035-041) */
#define TUNE_EMAX_16 0.85
#define TUNE_EMAX_TF32 0.80
#define TUNE_EMAX_FP32 0.90
#define TUNE_EMAX_FP8 0.72
/* GEMM dimension at which a tile grid is half used (shape roofline) */
#define TUNE_GEMM_X0 96.0
/* training GEMMs sustain less than a microbenchmark loop (fitted: S1-*) */
#define TUNE_TRAIN_GEMM 0.86
/* HBM stream efficiency (BabelStream 0.79-0.95 of peak; S8-005/006/007/019-021/030/031/049) */
#define TUNE_HBM_EFF 0.86
/* usable fraction of the nominal memory (ECC, driver reservations) */
#define TUNE_USABLE_MEM 0.985
/* pinned host-to-device copies reach 0.81-0.83 of PCIe x16 (S8-008/022/032) */
#define TUNE_H2D_EFF 0.82
/* NCCL bus bandwidth / link rate: NVLink/NVSwitch 0.77 (S8-011/012/044), NVLS all-reduce 1.065 (S8-025/026/033/042/046/047) */
#define TUNE_NVLINK_EFF 0.77
#define TUNE_NVLS_EFF 1.065
#define TUNE_PCIE_COLL_EFF 0.70
/* scale-out: busbw / NIC line rate (86 of 100 GB/s per node, S8-045) */
#define TUNE_INTER_EFF 0.86
/* fixed cost of one NCCL collective launch */
#define TUNE_COLL_BASE_S 10e-6
/* cuBLAS/cuDNN workspaces and temporary buffers */
#define TUNE_WORKSPACE_BYTES (128.0 * 1048576)
/* DDP gradient buckets in flight (2 x 25 MiB) */
#define TUNE_BUCKET_BYTES (50.0 * 1048576)
/* inference activations of a per-sample network relative to its training set */
#define TUNE_INFER_ACT_FRACTION 0.1
/* segment checkpointing of a CNN keeps about a quarter of its activations */
#define TUNE_CNN_CKPT_FRACTION 0.25
/* extra workspace cudnn.benchmark may pick */
#define TUNE_CUDNN_BENCH_BYTES (256.0 * 1048576)
/* caching-allocator fragmentation, share of allocated bytes */
#define TUNE_RESERVE_FRACTION 0.06
/* CUDA context with cuBLAS/cuDNN handles; NCCL buffers per process group */
#define TUNE_CONTEXT_BYTES (512.0 * 1048576)
#define TUNE_NCCL_BYTES (256.0 * 1048576)
/* flash attention forward: fraction of peak at large head dims (FlashAttention-2 paper, 50-73 % on A100); backward relative */
#define TUNE_FLASH_EFF 0.72
#define TUNE_FLASH_BWD_REL 0.8
/* kernels per transformer layer forward with fused norms and attention */
#define TUNE_KERNELS_PER_LAYER 14
/* share of the last backward that hides the DDP gradient all-reduce */
#define TUNE_DP_OVERLAP 0.8
/*
 * share of the compute that hides ZeRO-3 prefetched gathers: NCCL kernels
 * share SMs and HBM with the compute, so not all of it hides (fitted: the
 * six ZeRO-3 rows of Narayanan 2021 Table 2, S1-011..016)
 */
#define TUNE_ZERO3_OVERLAP 0.8
/* DeepSpeed CPU Adam, parameters updated per second per GPU's share of host cores (estimate) */
#define TUNE_CPU_ADAM_PARAMS_PER_S 1e9
/*
 * convolutions: fraction of the tensor-core GEMM ceiling cuDNN reaches on
 * ResNet-style layers (fitted: S6-002/006, the geometric mean of A100 and
 * V100 AMP); TF32 convolutions relative to that (fitted: S6-001); FP32
 * convolutions on CUDA cores relative to the FP32 peak, above the direct
 * count because Winograd kernels do fewer multiplies for 3x3 layers
 * (fitted: S6-005)
 */
#define TUNE_CONV_EFF 0.59
#define TUNE_TF32_CONV_REL 0.57
#define TUNE_CONV_EFF_FP32 1.0
/* what cudnn.benchmark's algorithm search gains on convolutions (estimate) */
#define TUNE_CUDNN_BENCH_GAIN 1.1
/* host cost per kernel launch: eager PyTorch, and replayed from a CUDA Graph */
#define TUNE_LAUNCH_S 6e-6
#define TUNE_LAUNCH_GRAPH_S 0.6e-6
/* shortest GPU time of one kernel, however small its work (launch latency, ramp, drain) */
#define TUNE_KERNEL_MIN_S 2.5e-6
/* idle gap between dependent kernels in a latency-bound forward pass (estimate) */
#define TUNE_KERNEL_GAP_S 1.0e-6
/* DALI: CPU work left per sample (reading, batching) relative to a full decode, and GPU time share of decoding */
#define TUNE_DALI_CPU_RELIEF 10.0
#define TUNE_DALI_GPU_SHARE 0.1

/* ------------------------------------------------------------------------- */
/* Names                                                                      */

static const char *const task_names[] = {"pretrain", "finetune", "lora", "qlora", "infer"};
static const char *const precision_names[] = {"fp32", "tf32", "fp16", "bf16", "fp8", "int8", "int4"};
static const char *const recompute_names[] = {"none", "selective", "full"};
static const char *const optimizer_names[] = {"adamw", "sgd", "adam8bit"};
static const char *const offload_names[] = {"none", "optimizer", "params"};
static const char *const loader_names[] = {"cpu", "dali"};
static const char *const link_names[] = {"none", "pcie", "nvlink", "nvswitch"};

static int name_index(const char *const *names, int n, const char *s)
{
	int i;
	if (!s)
		return -1;
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

#define NAMEFN(type, tbl, count)                                                   \
	const char *model_##type##_name(enum model_##type x)                       \
	{                                                                          \
		return (int)x >= 0 && (int)x < (count) ? tbl[x] : "?";             \
	}                                                                          \
	int model_##type##_from_name(const char *s)                                \
	{                                                                          \
		return name_index(tbl, (count), s);                                \
	}
NAMEFN(task, task_names, MODEL_TASK_COUNT)
NAMEFN(precision, precision_names, MODEL_PRECISION_COUNT)
NAMEFN(recompute, recompute_names, MODEL_RECOMPUTE_COUNT)
NAMEFN(optimizer, optimizer_names, MODEL_OPTIM_COUNT)
NAMEFN(offload, offload_names, MODEL_OFFLOAD_COUNT)
NAMEFN(loader, loader_names, MODEL_LOADER_COUNT)
#undef NAMEFN

const char *model_link_name(enum model_link l)
{
	return (int)l >= 0 && l < MODEL_LINK_COUNT ? link_names[l] : "?";
}

double model_precision_bytes(enum model_precision p)
{
	switch (p) {
	case MODEL_FP32:
	case MODEL_TF32:
		return 4;
	case MODEL_FP16:
	case MODEL_BF16:
		return 2;
	case MODEL_FP8:
	case MODEL_INT8:
		return 1;
	case MODEL_INT4:
		return 0.5;
	default:
		return 2;
	}
}

/* ------------------------------------------------------------------------- */
/* GPU numbers                                                                */

struct hw {
	double peak;      /* dense FLOP/s at the precision */
	double emax;      /* best achievable fraction of it for large GEMMs */
	double bw;        /* achievable HBM B/s */
	double inv_gemm;  /* 1 / (peak x emax) */
	double inv_bw;    /* 1 / bw */
	double mem;       /* usable bytes */
	double tdp_w, idle_w;
};

/* Dense peak at a precision, FLOP/s; NaN when the GPU lacks it. */
static double peak_of(const struct cat_gpu *g, enum model_precision p)
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
	default:
		v = g->fp16_tflops;
		break;
	}
	return v * 1e12;
}

/*
 * Achievable fraction of the dense peak for large GEMMs: cuBLAS on A100
 * reaches 81-87 % in 16-bit (Azure ND A100 v4 253.7-256.5 of 312 TFLOP/s at
 * 8192^3-16384^3; mamf-finder 267.9-271.2), H100 80 % (792-795 of 989),
 * FP8 65-71 % (1290-1403 of 1979): calibration-cases.csv S8-*.  FP32 SGEMM
 * on CUDA cores reaches about 90 %.
 */
static double emax_of(enum model_precision p)
{
	switch (p) {
	case MODEL_FP32:
		return TUNE_EMAX_FP32;
	case MODEL_TF32:
		return TUNE_EMAX_TF32;
	case MODEL_FP8:
		return TUNE_EMAX_FP8;
	default:
		return TUNE_EMAX_16;
	}
}

static int hw_of(const struct model_config *c, struct hw *h)
{
	const struct cat_gpu *g = c->gpu;
	if (!g)
		return -1;
	h->peak = peak_of(g, c->precision);
	if (!(h->peak > 0))
		return -1;
	h->emax = emax_of(c->precision) * TUNE_TRAIN_GEMM;
	h->bw = (g->mem_bw_gbps > 0 ? g->mem_bw_gbps : 1000) * 1e9 * TUNE_HBM_EFF;
	h->mem = (g->memory_gib > 0 ? g->memory_gib : 0) * 1073741824.0 * TUNE_USABLE_MEM;
	h->tdp_w = g->tdp_w > 0 ? g->tdp_w : 300;
	h->idle_w = g->idle_w > 0 ? g->idle_w : h->tdp_w * 0.12;
	h->inv_gemm = 1 / (h->peak * h->emax);
	h->inv_bw = 1 / h->bw;
	return 0;
}

/*
 * Flash attention: as configured, or when left automatic (-1), on where
 * PyTorch's SDPA has flash kernels: GPUs with bf16 tensor cores (Ampere,
 * CDNA2 and later) running 16-bit or fp8.
 */
static int flash_on(const struct model_config *c)
{
	if (c->flash >= 0)
		return c->flash > 0;
	return c->gpu && c->gpu->bf16_tflops > 0 &&
	       (c->precision == MODEL_FP16 || c->precision == MODEL_BF16 || c->precision == MODEL_FP8);
}

/*
 * Time of one m x n x k GEMM: a roofline.  Compute at peak x emax x s(m)
 * s(n) s(k), where s(x) = x / (x + x0) models tiles left idle by small
 * dimensions (x0 = TUNE_GEMM_X0); memory at the HBM rate for reading A and
 * B and writing C once (decode GEMMs with m = batch are memory bound).
 */
static double gemm_s(const struct hw *h, double eb, double m, double n, double k)
{
	double x0 = TUNE_GEMM_X0;
	double tc, tm;
	if (m <= 0 || n <= 0 || k <= 0)
		return 0;
	/* 2mnk / (peak emax s(m) s(n) s(k)) = 2 (m+x0)(n+x0)(k+x0) / (peak emax) */
	tc = 2 * (m + x0) * (n + x0) * (k + x0) * h->inv_gemm;
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
	h.emax = emax_of(p);
	h.inv_gemm = 1 / (h.peak * h.emax);
	return 2 * m * n * k / gemm_s(&h, model_precision_bytes(p), m, n, k) / 1e12;
}

double model_hbm_gbps(const struct cat_gpu *gpu)
{
	return gpu && gpu->mem_bw_gbps > 0 ? gpu->mem_bw_gbps * TUNE_HBM_EFF : NAN;
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

/* ------------------------------------------------------------------------- */
/* Collectives                                                                */

enum coll { COLL_AR, COLL_AG, COLL_RS, COLL_A2A, COLL_P2P };

/*
 * Achieved bus bandwidth inside a server, B/s per GPU: the per-direction
 * link rate times the NCCL efficiency (nccl-tests busbw on DGX A100 is
 * 228-233 GB/s of 300, 0.77; calibration-cases.csv S8-011/012/044).  With
 * in-switch reduction (NVLS, NVSwitch gen 3) all-reduce busbw exceeds the
 * link rate: 466-480 GB/s on 450 GB/s H100/H200 links, 215 on H800's 200
 * (S8-025/026/033/042/046/047).  PCIe all-reduce goes through host bridges.
 */
static double intra_busbw(const struct model_config *c, enum coll k)
{
	double bw = c->intra_gbps * 1e9;
	switch (c->intra_kind) {
	case MODEL_LINK_NVSWITCH:
		return bw * (k == COLL_AR && c->intra_nvls ? TUNE_NVLS_EFF : TUNE_NVLINK_EFF);
	case MODEL_LINK_NVLINK:
		return bw * TUNE_NVLINK_EFF;
	case MODEL_LINK_PCIE:
		return bw * TUNE_PCIE_COLL_EFF;
	default:
		return bw * TUNE_PCIE_COLL_EFF;
	}
}

/* ceil(log2(n)) for n >= 1, without libm: tree depth of a collective */
static double ceil_log2(int n)
{
	int d = 0;
	unsigned v = (unsigned)(n - 1);
	while (v) {
		d++;
		v >>= 1;
	}
	return d;
}

/*
 * One collective of `bytes` per rank over n ranks, g of them per server:
 *   t = base + factor(n) x bytes / B + 2 ceil(log2 n) x latency
 * with the NCCL bus factors (2(n-1)/n all-reduce, (n-1)/n all-gather,
 * reduce-scatter, all-to-all; 1 for a send) and B the bottleneck bus
 * bandwidth: the server link when the group fits in one server, else
 * min(server link, g x per-GPU scale-out rate x efficiency): a ring that
 * crosses servers uses the NICs of the g GPUs of the group on each server
 * (nccl-tests: 2 x 8 A100 on 4 x HDR per node reach 86 GB/s busbw, S8-045).
 * `flat` collectives (ZeRO-3 parameter gathers) reach one NIC's share per
 * GPU whatever g is (fitted to Narayanan et al. 2021 Table 2: ZeRO-3 throughput
 * of GPT-3 175B and 530B flattens at about one HDR port per GPU).
 */
static double coll_s(const struct model_config *c, enum coll k, double bytes, int n, int g, int flat)
{
	double factor, bw, lat, intra;
	if (n <= 1 || bytes <= 0)
		return 0;
	switch (k) {
	case COLL_AR:
		factor = 2.0 * (n - 1) / n;
		break;
	case COLL_P2P:
		factor = 1;
		break;
	default:
		factor = (double)(n - 1) / n;
		break;
	}
	if (g > n)
		g = n;
	if (g < 1)
		g = 1;
	intra = intra_busbw(c, k);
	if (g >= n) {
		bw = intra;
		lat = c->intra_lat_us * 1e-6;
	} else {
		double nic = (c->inter_gbps_per_gpu > 0 ? c->inter_gbps_per_gpu : 0.01) * 1e9 * TUNE_INTER_EFF;
		bw = nic * (flat ? 1 : g);
		if (g > 1 && intra > 0 && intra < bw)
			bw = intra;
		lat = c->inter_lat_us > 0 ? c->inter_lat_us * 1e-6 : 2e-6;
	}
	if (!(bw > 0))
		bw = 1e9;
	if (!(lat >= 0))
		lat = 0;
	return TUNE_COLL_BASE_S + factor * bytes / bw + 2 * ceil_log2(n) * lat;
}

double model_allreduce_busbw_gbps(const struct model_config *c)
{
	/* a large message (8 GiB) makes the fixed terms vanish, as in nccl-tests */
	double bytes = 8.0 * 1073741824.0;
	int n = c->gpus, g = c->gpus_per_node > 0 ? c->gpus_per_node : n;
	double t;
	if (n <= 1)
		return NAN;
	t = coll_s(c, COLL_AR, bytes, n, g, 0);
	return bytes / t * (2.0 * (n - 1) / n) / 1e9;
}

/* GPUs of a group of n ranks spaced `stride` apart that share one server. */
static int per_node(const struct model_config *c, int n, int stride)
{
	int gpn = c->gpus_per_node > 0 ? c->gpus_per_node : 1;
	int g;
	if (stride >= gpn)
		return 1;
	g = gpn / stride;
	return g < n ? g : n;
}

/* ------------------------------------------------------------------------- */
/* Configurations                                                             */

void model_config_defaults(struct model_config *c)
{
	memset(c, 0, sizeof(*c));
	c->gpus = 1;
	c->gpus_per_node = 1;
	c->intra_kind = MODEL_LINK_NONE;
	c->intra_lat_us = 1;
	c->inter_lat_us = 1;
	c->host_gbps = 25;
	c->task = MODEL_TASK_PRETRAIN;
	c->precision = MODEL_BF16;
	c->tp = c->pp = c->dp = c->ep = c->vpp = 1;
	c->recompute = MODEL_RECOMPUTE_NONE;
	c->flash = -1;
	c->optimizer = MODEL_OPTIM_ADAMW;
	c->offload = MODEL_OFFLOAD_NONE;
	c->kv_precision = MODEL_BF16;
	c->loader = MODEL_LOADER_CPU;
	c->cudnn_benchmark = 1;
}

void model_config_complete(const struct workload *w, struct model_config *c)
{
	int mp;
	if (c->tp <= 0)
		c->tp = 1;
	if (c->pp <= 0)
		c->pp = 1;
	if (c->ep <= 0)
		c->ep = 1;
	if (c->vpp <= 0)
		c->vpp = 1;
	mp = c->tp * c->pp;
	if (c->dp <= 0)
		c->dp = c->gpus > 0 && c->gpus % mp == 0 ? c->gpus / mp : 1;
	if (c->gpus <= 0)
		c->gpus = mp * c->dp;
	if (c->gpus_per_node <= 0)
		c->gpus_per_node = c->gpus < 8 ? c->gpus : 8;
	if (c->seq_len <= 0)
		c->seq_len = w->kind == WORKLOAD_TRANSFORMER ? w->d.seq_len : (int)(w->s.tokens > 0 ? w->s.tokens : 1);
	if (c->micro_batch <= 0) {
		/*
		 * Decoders: one sequence per micro-batch (Megatron's usual choice
		 * for large models).  Encoders (BERT, ViT) and per-sample networks:
		 * 32 per GPU, or the whole per-rank batch when it is smaller.
		 */
		int per_rank = c->global_batch > 0 && c->global_batch % c->dp == 0 ? c->global_batch / c->dp : 0;
		if (w->kind == WORKLOAD_PER_SAMPLE && per_rank)
			c->micro_batch = per_rank;
		else if (w->kind == WORKLOAD_PER_SAMPLE || !w->d.causal)
			c->micro_batch = per_rank && per_rank < 32 ? per_rank : 32;
		else
			c->micro_batch = 1;
	}
	if (c->global_batch <= 0)
		c->global_batch = c->micro_batch * c->dp;
	if (c->task == MODEL_TASK_INFER) {
		int gen = w->kind == WORKLOAD_TRANSFORMER && w->d.causal;
		if (c->batch <= 0)
			c->batch = 1;
		if (c->output_len <= 0)
			c->output_len = gen ? 256 : 1;
		if (c->prompt_len <= 0) {
			/* a prompt of up to 2048 tokens that leaves room for the output */
			int p = c->seq_len < 2048 ? c->seq_len : 2048;
			if (gen && w->d.max_seq > 0 && p + c->output_len > w->d.max_seq)
				p = w->d.max_seq - c->output_len;
			c->prompt_len = w->kind == WORKLOAD_TRANSFORMER ? (p > 0 ? p : 1) : 1;
		}
	}
	if ((c->task == MODEL_TASK_LORA || c->task == MODEL_TASK_QLORA) && c->lora_rank <= 0)
		c->lora_rank = 16;
	if (c->flash < 0 && c->gpu)
		c->flash = flash_on(c);
}

/* Writes "1, 2, 4 or 8": the divisors of n up to `limit`. */
static void divisors_text(int n, int limit, char *buf, size_t len)
{
	int i, k = 0, total = 0;
	size_t off = 0;
	for (i = 1; i <= n && i <= limit; i++)
		if (n % i == 0)
			total++;
	buf[0] = '\0';
	for (i = 1; i <= n && i <= limit && off < len; i++) {
		if (n % i)
			continue;
		k++;
		off += (size_t)snprintf(buf + off, len - off, "%s%d",
					k == 1 ? "" : k == total ? " or " : ", ", i);
	}
}

/* Batch and inference sizes, checked after the layout. */
static int check_batches(const struct model_config *c, struct diag *err)
{
	if (c->task != MODEL_TASK_INFER) {
		long per_step = (long)c->micro_batch * c->dp;
		if (c->global_batch < 1 || c->global_batch % per_step)
			return diag_set(err, "", 0, 0, "global-batch",
					"--global-batch %d is not a multiple of micro-batch x dp = %d x %d = %ld",
					c->global_batch, c->micro_batch, c->dp, per_step);
		if (c->vpp > 1 && c->pp == 1)
			return diag_set(err, "", 0, 0, "vpp", "--vpp %d needs pipeline parallelism (--pp > 1)", c->vpp);
	} else {
		if (c->batch < 1 || c->batch > 1000000)
			return diag_set(err, "", 0, 0, "batch", "--batch %d is not between 1 and 1000000", c->batch);
		if (c->prompt_len < 1 || c->output_len < 1 || c->prompt_len > 10000000 || c->output_len > 10000000)
			return diag_set(err, "", 0, 0, c->prompt_len < 1 || c->prompt_len > 10000000 ? "prompt-len" : "output-len",
					"prompt and output lengths must be between 1 and 10000000 tokens");
	}
	return 0;
}

int model_config_check(const struct workload *w, const struct model_config *c, struct diag *err)
{
	char dv[160];
	int mp;
	const struct cat_gpu *g = c->gpu;
	int transformer = w->kind == WORKLOAD_TRANSFORMER;

	if (!g)
		return diag_set(err, "", 0, 0, "gpu", "no GPU given; use --gpu NAME (see 'gpuscope catalog gpus')");
	if (c->tp < 1 || c->pp < 1 || c->dp < 1 || c->ep < 1 || c->vpp < 1)
		return diag_set(err, "", 0, 0, c->tp < 1 ? "tp" : c->pp < 1 ? "pp" : c->dp < 1 ? "dp" : c->ep < 1 ? "ep" : "vpp",
				"parallel degrees must be at least 1");
	if (c->gpus < 1 || c->gpus > 1000000)
		return diag_set(err, "", 0, 0, "gpus", "--gpus %d is not between 1 and 1000000", c->gpus);
	if (c->gpus_per_node < 1 || c->gpus_per_node > 1024)
		return diag_set(err, "", 0, 0, "gpus-per-node", "--gpus-per-node %d is not between 1 and 1024",
				c->gpus_per_node);
	mp = c->tp * c->pp;
	if ((long)mp * c->dp != c->gpus)
		return diag_set(err, "", 0, 0, "gpus",
				"--gpus %d is not tp x pp x dp = %d x %d x %d = %ld; give --dp %s or --gpus %ld",
				c->gpus, c->tp, c->pp, c->dp, (long)mp * c->dp,
				c->gpus % mp == 0 ? "" : "(none fits)", (long)mp * c->dp);
	if (!(peak_of(g, c->precision) > 0)) {
		const char *alt = g->bf16_tflops > 0 ? "bf16" : g->fp16_tflops > 0 ? "fp16" : "fp32";
		return diag_set(err, "", 0, 0, "precision", "%s has no %s support; use --precision %s",
				g->row.key, model_precision_name(c->precision), alt);
	}
	if (c->precision == MODEL_INT8 || c->precision == MODEL_INT4)
		return diag_set(err, "", 0, 0, "precision",
				"--precision %s is for the KV cache only; use fp32, tf32, fp16, bf16 or fp8",
				model_precision_name(c->precision));
	if (c->zero < 0 || c->zero > 3)
		return diag_set(err, "", 0, 0, "zero", "--zero %d is not a ZeRO stage; use 0, 1, 2 or 3", c->zero);
	if (c->offload == MODEL_OFFLOAD_PARAMS && c->zero != 3)
		return diag_set(err, "", 0, 0, "offload", "--offload params needs --zero 3 (parameters are offloaded from their shards)");
	if (c->micro_batch < 1 || c->micro_batch > 1000000)
		return diag_set(err, "", 0, 0, "micro-batch", "--micro-batch %d is not between 1 and 1000000", c->micro_batch);
	if (c->seq_len < 1 || c->seq_len > 10000000)
		return diag_set(err, "", 0, 0, "seq-len", "--seq-len %d is not between 1 and 10000000", c->seq_len);
	if ((c->task == MODEL_TASK_LORA || c->task == MODEL_TASK_QLORA) && (c->lora_rank < 1 || c->lora_rank > 65536))
		return diag_set(err, "", 0, 0, "lora-rank", "--lora-rank %d is not between 1 and 65536", c->lora_rank);
	if (c->gpus > c->gpus_per_node && !(c->inter_gbps_per_gpu > 0))
		return diag_set(err, "", 0, 0, "network",
				"%d GPUs span %d servers of %d but no scale-out network is known; give --network (e.g. ib-hdr-8x200)",
				c->gpus, (c->gpus + c->gpus_per_node - 1) / c->gpus_per_node, c->gpus_per_node);
	if (!transformer) {
		if (c->tp > 1 || c->pp > 1 || c->ep > 1)
			return diag_set(err, "", 0, 0, c->tp > 1 ? "tp" : c->pp > 1 ? "pp" : "ep",
					"'%s' is modelled per sample and runs data parallel only; use --tp 1 --pp 1 --ep 1",
					w->name);
		if (c->task == MODEL_TASK_LORA || c->task == MODEL_TASK_QLORA)
			return diag_set(err, "", 0, 0, "task", "LoRA/QLoRA apply to transformers; '%s' is not one", w->name);
		return check_batches(c, err);
	}
	if (w->d.heads % c->tp) {
		divisors_text(w->d.heads, 64, dv, sizeof(dv));
		return diag_set(err, "", 0, 0, "tp", "--tp %d does not divide the %d attention heads; use %s",
				c->tp, w->d.heads, dv);
	}
	if (w->d.ffn_hidden % c->tp) {
		divisors_text(w->d.ffn_hidden, 64, dv, sizeof(dv));
		return diag_set(err, "", 0, 0, "tp", "--tp %d does not divide the MLP width %d; use %s",
				c->tp, w->d.ffn_hidden, dv);
	}
	if (w->d.layers % (c->pp * c->vpp)) {
		if (c->vpp > 1)
			return diag_set(err, "", 0, 0, "vpp", "pp x vpp = %d x %d does not divide the %d layers",
					c->pp, c->vpp, w->d.layers);
		divisors_text(w->d.layers, 128, dv, sizeof(dv));
		return diag_set(err, "", 0, 0, "pp", "--pp %d does not divide the %d layers; use %s",
				c->pp, w->d.layers, dv);
	}
	if (c->ep > 1) {
		if (w->d.experts <= 1)
			return diag_set(err, "", 0, 0, "ep", "--ep %d needs a mixture-of-experts model; '%s' is dense",
					c->ep, w->name);
		if (w->d.experts % c->ep) {
			divisors_text(w->d.experts, 1024, dv, sizeof(dv));
			return diag_set(err, "", 0, 0, "ep", "--ep %d does not divide the %d experts; use %s",
					c->ep, w->d.experts, dv);
		}
		if (c->dp % c->ep)
			return diag_set(err, "", 0, 0, "ep", "--ep %d does not divide the data-parallel degree %d "
					"(experts are sharded across data-parallel ranks)", c->ep, c->dp);
	}
	if (c->seq_parallel && c->tp == 1)
		return diag_set(err, "", 0, 0, "seq-parallel", "--seq-parallel needs tensor parallelism (--tp > 1)");
	if (c->seq_len > w->d.max_seq && w->d.learned_pos)
		return diag_set(err, "", 0, 0, "seq-len", "--seq-len %d exceeds the %d learned positions of '%s'",
				c->seq_len, w->d.max_seq, w->name);
	if (c->task == MODEL_TASK_INFER && !w->d.causal && c->output_len > 1)
		return diag_set(err, "", 0, 0, "output-len", "'%s' is an encoder: it does not generate; use --output-len 1",
				w->name);
	if (c->task == MODEL_TASK_INFER && w->d.learned_pos &&
	    (long)c->prompt_len + (w->d.causal ? c->output_len : 0) > (long)w->d.max_seq)
		return diag_set(err, "", 0, 0, "prompt-len", "prompt + output = %ld tokens exceeds the %d positions of '%s'",
				(long)c->prompt_len + (w->d.causal ? c->output_len : 0), w->d.max_seq, w->name);
	if (c->kv_precision != MODEL_FP16 && c->kv_precision != MODEL_BF16 && c->kv_precision != MODEL_FP8 &&
	    c->kv_precision != MODEL_INT8 && c->kv_precision != MODEL_INT4 && c->kv_precision != MODEL_FP32)
		return diag_set(err, "", 0, 0, "kv-cache-precision", "use fp32, fp16, bf16, fp8, int8 or int4");
	return check_batches(c, err);
}

/* ------------------------------------------------------------------------- */
/* Memory                                                                     */

/* Bytes per parameter of each training state (Megatron/DeepSpeed mixed precision). */
struct state_bytes {
	double weight, grad, optim;   /* optim includes the fp32 master copy */
};

/*
 * Mixed precision (fp16/bf16/fp8): 16-bit working weights 2 B, fp32
 * gradients 4 B (accumulated in fp32), fp32 master copy 4 B + optimizer
 * states (AdamW 8 B, SGD momentum 4 B, 8-bit Adam 2 B): 18 B/parameter with
 * AdamW (Megatron theoretical_memory_usage, Korthikanti 2022; Transformer
 * Math 101).  FP32/TF32: weights 4, gradients 4, states only: 16 B.
 */
/* Optimizer states per parameter: AdamW two fp32 moments, SGD one momentum, 8-bit Adam two bytes. */
static double optim_states_bytes(const struct model_config *c)
{
	return c->optimizer == MODEL_OPTIM_SGD ? 4 : c->optimizer == MODEL_OPTIM_ADAM8BIT ? 2 : 8;
}

static struct state_bytes state_bytes_of(const struct model_config *c)
{
	struct state_bytes s;
	double states = optim_states_bytes(c);
	int full = c->precision == MODEL_FP32 || c->precision == MODEL_TF32;
	s.weight = full ? 4 : 2;
	s.grad = 4;
	s.optim = states + (full ? 0 : 4);
	return s;
}

/*
 * Parameters held by one GPU of one pipeline stage, for one layer: matrices
 * split by TP, norms replicated, experts split by EP then TP.
 */
static double layer_params_gpu(const struct workload *w, const struct model_config *c)
{
	double norms = 2.0 * w->d.hidden * (w->d.has_bias ? 2 : 1);
	double experts = w->d.experts > 1 ? (double)w->d.experts / c->ep : 1;
	return (w->params_layer_attn - norms) / c->tp + norms +
	       experts * w->params_layer_mlp / c->tp + w->params_layer_router;
}

/*
 * Activation bytes of one transformer layer for one micro-batch, stored for
 * the backward pass (Korthikanti et al. 2022, sec. 4, generalised to GQA,
 * gated MLPs, mixture of experts and flash attention):
 *
 *   replicated unless sequence parallel:  (4e + 2m) T h
 *       two norm inputs, the QKV and MLP inputs, two dropout masks (m = 1 B
 *       when dropout is used, else 0)
 *   split by t:  e T (q + 2kv) + e T q                       Q, K, V, attention output
 *                + k_act (2 or 4) e T f                      MLP (GeLU in/out; SwiGLU gate, up, silu, product)
 *                + k_act 2 e T h  (MoE dispatch/combine)
 *                + a s^2 b (e + m + m e)  (attention scores; 0 with flash or selective recompute)
 *                + 4 a T  (flash: fp32 log-sum-exp)
 *
 * With e = 2 and m = 1, MHA, f = 4h: 34 s b h + 5 a s^2 b, Korthikanti's eq. (1).
 */
/* Attention scores, softmax and dropout of one layer, s^2 per head (0 with flash attention). */
static double attn_scores_bytes(const struct workload *w, const struct model_config *c, double e, double b)
{
	double m = w->d.dropout > 0 ? 1 : 0;
	if (flash_on(c))
		return 0;
	return (double)w->d.heads / c->tp * c->seq_len * c->seq_len * b * (e + m + m * e);
}

static double act_layer_bytes(const struct workload *w, const struct model_config *c, double e, double b)
{
	const struct workload_dims *d = &w->d;
	double T = (double)c->seq_len * b, t = c->tp;
	double h = d->hidden, q = w->q_dim, kv = w->kv_dim, f = d->ffn_hidden;
	double m = d->dropout > 0 ? 1 : 0;
	double k_act = d->experts > 1 ? d->experts_active : 1;
	double repl, split, scores = 0;

	repl = (4 * e + 2 * m) * T * h;
	split = e * T * (q + 2 * kv) + e * T * q + k_act * (d->gated_mlp ? 4 : 2) * e * T * f;
	if (d->experts > 1)
		split += k_act * 2 * e * T * h;
	if (flash_on(c))
		split += 4.0 * d->heads * T;
	else if (c->recompute == MODEL_RECOMPUTE_NONE)
		scores = attn_scores_bytes(w, c, e, b);
	return (c->seq_parallel ? repl / t : repl) + split / t + scores;
}

/* Per-GPU memory of a transformer at pipeline stage `stage` (0 first, 1 last). */
static void mem_transformer_stage(const struct workload *w, const struct model_config *c, int stage,
				  struct model_memory *o)
{
	const struct workload_dims *d = &w->d;
	struct state_bytes sb = state_bytes_of(c);
	double t = c->tp, p = c->pp, dp = c->dp;
	double Ls = (double)d->layers / p;
	double e = (c->precision == MODEL_FP32 || c->precision == MODEL_TF32) ? 4 : 2;
	double b = c->micro_batch, s = c->seq_len, T = s * b;
	double lp = layer_params_gpu(w, c);
	double block = Ls * lp, embed = 0, head = 0, params, frozen16 = 0;
	double m_mb = (double)c->global_batch / ((double)c->dp * c->micro_batch);
	double inflight, act_layer;
	int first = stage == 0 || p == 1, last = stage == 1 || p == 1;
	int lora = c->task == MODEL_TASK_LORA || c->task == MODEL_TASK_QLORA;

	memset(o, 0, sizeof(*o));
	if (first)
		embed = w->params_embedding / t + w->s.extra_params;
	if (last) {
		/* output layer and the final norm */
		head = w->params_head / t + (double)d->hidden * (d->has_bias ? 2 : 1);
		/* tied output layer: the last stage keeps its own copy of the embedding */
		if (p > 1 && d->tied_embeddings)
			head += (double)d->vocab * d->hidden / t;
	}
	params = block + embed + head;

	if (c->task == MODEL_TASK_INFER) {
		double wb = model_precision_bytes(c->precision);
		double kvb = model_precision_bytes(c->kv_precision);
		double B = c->batch, ctx = (double)c->prompt_len + c->output_len;
		double kv_gpu = w->kv_dim / t;
		double Tp = B * c->prompt_len;
		double work;
		/* KV heads fewer than tp are replicated: at least one head per GPU */
		if (kv_gpu < d->head_dim)
			kv_gpu = d->head_dim;
		/* inference loads all layers: pipeline stages hold L/p each */
		o->weights_bytes = params * wb;
		o->kv_cache_bytes = d->causal ? 2.0 * Ls * kv_gpu * ctx * B * kvb : 0;
		/* transient working set of one layer in prefill (flash attention) */
		work = 2 * Tp * (d->hidden + (w->q_dim + 2.0 * w->kv_dim) / t +
				 (d->gated_mlp ? 3.0 : 2.0) * d->ffn_hidden *
				 (d->experts > 1 ? d->experts_active : 1) / t);
		o->activations_layer_bytes = work;
		o->activations_bytes = work;
		o->microbatches_in_flight = 1;
		/* logits of the last position, fp32 */
		o->logits_bytes = last ? B * d->vocab / t * 4.0 : 0;
		o->buffers_bytes = TUNE_WORKSPACE_BYTES;
		return;
	}

	if (lora) {
		/*
		 * LoRA: the base is frozen (no gradients, no optimizer) in 16-bit;
		 * QLoRA stores the block matrices in 4-bit NF4 with double
		 * quantization, 4.127 bits per parameter (Dettmers et al. 2023,
		 * sec. 3), keeping embeddings, head and norms in 16-bit.  Adapters
		 * train in fp32 with AdamW: 16 B per adapter parameter.
		 */
		double wb16 = (c->precision == MODEL_FP32 || c->precision == MODEL_TF32) ? 4 : 2;
		double adapters = c->lora_rank * w->params_lora_per_rank / (t * p);
		if (c->task == MODEL_TASK_QLORA) {
			double norms = 2.0 * d->hidden * (d->has_bias ? 2 : 1) * Ls;
			double mats = block - norms;
			o->weights_bytes = mats * (4.127 / 8) + (norms + embed + head) * wb16;
			/* one layer dequantized to 16-bit for its matmuls */
			frozen16 = lp * 2;
		} else {
			o->weights_bytes = params * wb16;
		}
		/* fp32 adapter weights and gradients, plus optimizer states (no master copy: already fp32) */
		o->lora_bytes = adapters * (4 + 4 + optim_states_bytes(c));
	} else {
		double zw = c->zero >= 3 ? dp : 1, zg = c->zero >= 2 ? dp : 1, zo = c->zero >= 1 ? dp : 1;
		o->weights_bytes = params * sb.weight / zw;
		o->gradients_bytes = params * sb.grad / zg;
		o->optimizer_bytes = params * sb.optim / zo;
		if (c->offload != MODEL_OFFLOAD_NONE) {
			/* ZeRO-Offload: optimizer states and master weights live in host memory */
			o->host_bytes += o->optimizer_bytes;
			o->optimizer_bytes = 0;
			if (c->offload == MODEL_OFFLOAD_PARAMS) {
				o->host_bytes += o->weights_bytes;
				o->weights_bytes = 0;
			}
		}
		if (c->zero >= 3) {
			/* gathered parameters of the layer in use and the one prefetched */
			frozen16 = 2 * lp * sb.weight;
		}
	}

	/* activations: Korthikanti 2022 with the 1F1B in-flight count */
	act_layer = act_layer_bytes(w, c, e, b);
	o->activations_layer_bytes = act_layer;
	if (first && p > 1) {
		/*
		 * 1F1B: the first stage holds min(m, p) micro-batches; the
		 * interleaved schedule raises that by 1 + (p-1)/(p v) (Korthikanti
		 * 2022 sec. 4.2.3; Narayanan 2021 sec. 2.2.2).
		 */
		inflight = m_mb < p ? m_mb : p;
		if (c->vpp > 1)
			inflight *= 1 + (p - 1) / (p * c->vpp);
	} else {
		inflight = 1;
	}
	o->microbatches_in_flight = (int)ceil(inflight);
	if (c->recompute == MODEL_RECOMPUTE_FULL) {
		/*
		 * The checkpointed layer inputs, e T h each (/t with sequence
		 * parallelism), one of which is rebuilt into a whole layer during
		 * its backward, with its attention scores.
		 */
		double ckpt = e * T * d->hidden / (c->seq_parallel ? t : 1);
		double n = Ls * inflight;
		o->activations_bytes = (n > 1 ? (n - 1) * ckpt : 0) + act_layer + attn_scores_bytes(w, c, e, b);
	} else if (c->recompute == MODEL_RECOMPUTE_SELECTIVE) {
		/* scores are not stored; the layer in backward rebuilds its own */
		o->activations_bytes = Ls * inflight * act_layer + attn_scores_bytes(w, c, e, b);
	} else {
		o->activations_bytes = Ls * inflight * act_layer;
	}
	/* embedding output (+ its dropout mask) on the first stage */
	if (first)
		o->activations_bytes += inflight * (e + (d->dropout > 0 ? 1 : 0)) * T * d->hidden /
					(c->seq_parallel ? t : 1);
	/*
	 * Output layer and loss on the last stage: fp32 logits and their
	 * log-softmax, 8 B per logit (models that upcast logits for the loss),
	 * plus the 16-bit logits: (e + 8) T V / t.
	 */
	if (last && d->vocab > 0)
		o->logits_bytes = (e + 8) * T * d->vocab / t;
	o->buffers_bytes = frozen16 + TUNE_WORKSPACE_BYTES;
	if (c->dp > 1 && c->zero < 3 && !lora)
		o->buffers_bytes += TUNE_BUCKET_BYTES;
}

/*
 * Per-sample workloads: weights, gradients and optimizer as for
 * transformers; activations = act_bytes x micro-batch, doubled at 32-bit;
 * full recompute (segment checkpointing) keeps about a quarter; the input
 * batch is double-buffered; cuDNN workspace.
 */
static void mem_per_sample(const struct workload *w, const struct model_config *c, struct model_memory *o)
{
	struct state_bytes sb = state_bytes_of(c);
	double e = (c->precision == MODEL_FP32 || c->precision == MODEL_TF32) ? 2 : 1;
	double P = w->params, dp = c->dp;
	double b = c->task == MODEL_TASK_INFER ? c->batch : c->micro_batch;

	memset(o, 0, sizeof(*o));
	if (c->task == MODEL_TASK_INFER) {
		o->weights_bytes = P * model_precision_bytes(c->precision);
		/* a forward pass keeps roughly two layers' outputs alive: a tenth of the training set */
		o->activations_bytes = w->s.act_bytes * e * b * TUNE_INFER_ACT_FRACTION;
	} else {
		o->weights_bytes = P * sb.weight / (c->zero >= 3 ? dp : 1);
		o->gradients_bytes = P * sb.grad / (c->zero >= 2 ? dp : 1);
		o->optimizer_bytes = P * sb.optim / (c->zero >= 1 ? dp : 1);
		if (c->offload != MODEL_OFFLOAD_NONE) {
			o->host_bytes = o->optimizer_bytes;
			o->optimizer_bytes = 0;
		}
		o->activations_bytes = w->s.act_bytes * e * b *
				       (c->recompute == MODEL_RECOMPUTE_FULL ? TUNE_CNN_CKPT_FRACTION : 1);
	}
	o->activations_layer_bytes = o->activations_bytes;
	o->microbatches_in_flight = 1;
	o->buffers_bytes = 2 * w->s.input_bytes * b + TUNE_WORKSPACE_BYTES +
			   (c->cudnn_benchmark ? TUNE_CUDNN_BENCH_BYTES : 0);
}

/* Allocated total, allocator reserve, CUDA context and the fit test. */
static void mem_finish(const struct model_config *c, const struct hw *h, struct model_memory *o)
{
	int groups = (c->tp > 1) + (c->pp > 1) + (c->dp > 1) + (c->ep > 1);
	o->allocated_bytes = o->weights_bytes + o->gradients_bytes + o->optimizer_bytes +
			     o->activations_bytes + o->logits_bytes + o->lora_bytes +
			     o->kv_cache_bytes + o->buffers_bytes;
	o->reserve_bytes = o->allocated_bytes * TUNE_RESERVE_FRACTION;
	o->context_bytes = TUNE_CONTEXT_BYTES + groups * TUNE_NCCL_BYTES;
	o->total_bytes = o->allocated_bytes + o->reserve_bytes + o->context_bytes;
	o->capacity_bytes = h->mem;
	o->fits = o->total_bytes <= o->capacity_bytes;
}

int model_memory(const struct workload *w, const struct model_config *c, struct model_memory *out)
{
	struct hw h;
	if (!w || !c || hw_of(c, &h) || c->tp < 1 || c->pp < 1 || c->dp < 1 || c->ep < 1 || c->vpp < 1 ||
	    c->micro_batch < 1 || c->seq_len < 1)
		return -1;
	if (w->kind == WORKLOAD_PER_SAMPLE) {
		mem_per_sample(w, c, out);
	} else {
		mem_transformer_stage(w, c, 0, out);
		if (c->pp > 1) {
			struct model_memory last;
			mem_transformer_stage(w, c, 1, &last);
			mem_finish(c, &h, &last);
			mem_finish(c, &h, out);
			if (last.total_bytes > out->total_bytes)
				*out = last;
			return 0;
		}
	}
	mem_finish(c, &h, out);
	return 0;
}

/* ------------------------------------------------------------------------- */
/* Time: transformers                                                         */

/* Forward times of one layer for T tokens of sequences of length s (per GPU). */
struct layer_time {
	double gemm, attn_fwd, attn_bwd, mem, tp_comm, ep_comm;
	double attn_flops;    /* attention-score FLOPs executed forward (per GPU) */
};

static void layer_fwd(const struct workload *w, const struct model_config *c, const struct hw *h,
		      double T, double s, double ctx, struct layer_time *lt)
{
	const struct workload_dims *d = &w->d;
	double t = c->tp, eb = model_precision_bytes(c->precision);
	double hd = d->hidden, q = w->q_dim, kv = w->kv_dim, f = d->ffn_hidden;
	double e = (c->precision == MODEL_FP32 || c->precision == MODEL_TF32) ? 4 : 2;
	double heads = d->heads / t, hdim = d->head_dim;
	double bytes;

	if (eb < 2 && c->precision != MODEL_FP8)
		eb = 2;
	/* QKV and output projections */
	lt->gemm = gemm_s(h, eb, T, (q + 2 * kv) / t, hd) + gemm_s(h, eb, T, hd, q / t);
	/*
	 * MLP: dense, or the local experts (E/ep) that the T ep tokens routed
	 * to this GPU's group touch, E/ep (1 - (1 - k/E)^(T ep)) of them on
	 * average, sharing the T k token-expert pairs.  Large batches touch
	 * all; one decoded token touches k.
	 */
	if (d->experts > 1) {
		double local = (double)d->experts / c->ep, k = d->experts_active, E = d->experts;
		double routed = T * c->ep, touched, tok;
		touched = routed * k / E > 30 ? local : local * (1 - pow(1 - k / E, routed));
		if (touched < 1)
			touched = 1;
		tok = T * k / touched;
		lt->gemm += touched * (gemm_s(h, eb, tok, f * (d->gated_mlp ? 2 : 1) / t, hd) +
				       gemm_s(h, eb, tok, hd, f / t));
		lt->gemm += gemm_s(h, eb, T, d->experts, hd);
	} else {
		lt->gemm += gemm_s(h, eb, T, f * (d->gated_mlp ? 2 : 1) / t, hd) + gemm_s(h, eb, T, hd, f / t);
	}

	/*
	 * Attention scores QK^T and AV over `ctx` keys: 4 T ctx q / t FLOPs.
	 * Flash attention (Dao 2023) skips masked blocks (causal: half) and
	 * runs at TUNE_FLASH_EFF of peak, scaled by d/(d + 32) for small head
	 * dimensions; its backward does 2.5x the forward's FLOPs.  Without it:
	 * batched GEMMs plus the softmax's s^2 traffic through HBM.
	 */
	{
		double full = 4.0 * T * ctx * q / t;
		double causal = d->causal && ctx == s ? 0.5 : 1.0;
		if (flash_on(c)) {
			double eff = TUNE_FLASH_EFF * hdim / (hdim + 32);
			lt->attn_flops = full * causal;
			lt->attn_fwd = lt->attn_flops / (h->peak * eff);
			lt->attn_bwd = 2.5 * lt->attn_flops / (h->peak * eff * TUNE_FLASH_BWD_REL);
		} else {
			double seqs = T / s, el = seqs * heads * s * ctx;
			double m = d->dropout > 0 ? 1 : 0;
			lt->attn_flops = full;
			lt->attn_fwd = seqs * heads * (gemm_s(h, eb, s, ctx, hdim) + gemm_s(h, eb, s, hdim, ctx));
			/* scores written, masked, softmaxed, dropped out, read by AV */
			lt->attn_fwd += el * (5 * e + m * (1 + e)) * h->inv_bw;
			lt->attn_bwd = 2 * lt->attn_fwd;
		}
	}

	/*
	 * Memory-bound work per token (elements): two norms (read + write h
	 * each), two residual adds (read 2h, write h), dropout (read, write,
	 * mask), the activation function (SwiGLU: read 2f write f; GeLU: read f
	 * write f) and rotary embeddings (read + write q + kv).  Norms, adds and
	 * dropout are replicated across TP ranks unless sequence parallel.
	 */
	{
		double repl = 4 * hd + 6 * hd + (d->dropout > 0 ? 2 * (2 * hd + 0.5 * hd) : 0);
		double split = (d->experts > 1 ? d->experts_active : 1) * (d->gated_mlp ? 3 : 2) * f +
			       (d->learned_pos || !d->causal ? 0 : 2 * (q + kv));
		bytes = e * T * ((c->seq_parallel ? repl / t : repl) + split / t);
		lt->mem = bytes * h->inv_bw;
	}

	/*
	 * Tensor parallelism: two all-reduces of e T h bytes per layer forward
	 * (Megatron, Shoeybi 2019), or all-gather + reduce-scatter pairs of
	 * the same volume with sequence parallelism; inside the server when tp
	 * fits in it.
	 */
	if (c->tp > 1) {
		int g = per_node(c, c->tp, 1);
		lt->tp_comm = 2 * coll_s(c, COLL_AR, e * T * hd, c->tp, g, 0);
	} else {
		lt->tp_comm = 0;
	}
	/* expert parallelism: dispatch and combine all-to-alls of k e T h bytes */
	if (d->experts > 1 && c->ep > 1) {
		int g = per_node(c, c->ep, c->tp);
		lt->ep_comm = 2 * coll_s(c, COLL_A2A, d->experts_active * e * T * hd, c->ep, g, 0);
	} else {
		lt->ep_comm = 0;
	}
}

/* Intermediate results of the training-step model, shared with the result. */
struct train_parts {
	double mb_fwd, mb_bwd, mb_recompute;     /* one micro-batch on the slowest stage */
	double gemm, attn, mem, recompute, tp, ep; /* per micro-batch, by kind (fwd + bwd) */
	double flops_model_token, flops_hw_token; /* per token, whole model */
	double kernels_mb;                        /* kernel launches per micro-batch */
};

static void train_transformer(const struct workload *w, const struct model_config *c, const struct hw *h,
			      struct train_parts *tp)
{
	const struct workload_dims *d = &w->d;
	struct layer_time lt;
	double s = c->seq_len, T = s * c->micro_batch;
	double Ls = (double)d->layers / c->pp, t = c->tp;
	double eb = model_precision_bytes(c->precision);
	double e = (c->precision == MODEL_FP32 || c->precision == MODEL_TF32) ? 4 : 2;
	int lora = c->task == MODEL_TASK_LORA || c->task == MODEL_TASK_QLORA;
	double fwd, bwd, rec = 0, head_fwd = 0, head_mem = 0;
	double bwd_gemm_factor = lora ? 1.0 : 2.0;
	double qlora_dq = 0;

	layer_fwd(w, c, h, T, s, s, &lt);
	if (c->task == MODEL_TASK_QLORA) {
		/* NF4 weights are dequantized to 16-bit before each matmul, forward and backward */
		double mats = layer_params_gpu(w, c);
		qlora_dq = mats * (0.5 + 2 + 2) * h->inv_bw;
	}
	fwd = lt.gemm + lt.attn_fwd + lt.mem + lt.tp_comm + lt.ep_comm + qlora_dq;
	bwd = bwd_gemm_factor * lt.gemm + lt.attn_bwd + 2 * lt.mem + lt.tp_comm + lt.ep_comm + qlora_dq;
	if (lora) {
		/* adapters: forward, and both gradients, of r x (in + out) per matrix: small GEMMs */
		double ad = c->lora_rank * w->params_lora_per_rank / d->layers / t;
		double tad = 2 * T * ad / (h->peak * h->emax * 0.3);
		fwd += tad;
		bwd += 2 * tad;
	}
	if (c->recompute == MODEL_RECOMPUTE_FULL)
		rec = fwd - qlora_dq * 0;
	else if (c->recompute == MODEL_RECOMPUTE_SELECTIVE && !flash_on(c))
		rec = lt.attn_fwd;

	/* output layer and loss on the last stage */
	if (d->vocab > 0) {
		head_fwd = gemm_s(h, eb, T, d->vocab / t, d->hidden);
		/* logits written, upcast, log-softmax, gradient: about 24 B per logit */
		head_mem = 24.0 * T * d->vocab / t * h->inv_bw;
		if (c->tp > 1)
			head_mem += coll_s(c, COLL_AR, 4.0 * T, c->tp, per_node(c, c->tp, 1), 0) * 3;
	}

	tp->mb_fwd = Ls * fwd + head_fwd + head_mem / 3;
	tp->mb_bwd = Ls * bwd + bwd_gemm_factor * head_fwd + head_mem * 2 / 3;
	tp->mb_recompute = Ls * rec;
	tp->gemm = Ls * (1 + bwd_gemm_factor) * lt.gemm + (1 + bwd_gemm_factor) * head_fwd;
	tp->attn = Ls * (lt.attn_fwd + lt.attn_bwd);
	tp->mem = Ls * 3 * lt.mem + head_mem + Ls * 2 * qlora_dq;
	tp->recompute = tp->mb_recompute;
	tp->tp = Ls * 2 * lt.tp_comm * (c->recompute == MODEL_RECOMPUTE_FULL ? 1.5 : 1);
	tp->ep = Ls * 2 * lt.ep_comm * (c->recompute == MODEL_RECOMPUTE_FULL ? 1.5 : 1);
	tp->kernels_mb = 3 * (TUNE_KERNELS_PER_LAYER * Ls + 10) * (c->recompute == MODEL_RECOMPUTE_FULL ? 4.0 / 3 : 1);

	/*
	 * FLOPs per token (Megatron eq. 3 / PaLM convention: full attention,
	 * no causal halving): model = 3 x forward (forward + 2 x backward),
	 * LoRA 2 x forward (no weight gradients); hardware adds the recomputed
	 * forward (full) or attention scores (selective, without flash attention:
	 * with it nothing extra runs).
	 */
	{
		double f_fwd = w->flops_token_dense + w->flops_token_attn * s + w->flops_token_head;
		double f_attn = w->flops_token_attn * s;
		tp->flops_model_token = (lora ? 2 : 3) * f_fwd;
		tp->flops_hw_token = tp->flops_model_token +
				     (c->recompute == MODEL_RECOMPUTE_FULL ? f_fwd - w->flops_token_head :
				      c->recompute == MODEL_RECOMPUTE_SELECTIVE && !flash_on(c) ? f_attn : 0);
	}
	(void)e;
}

/* ------------------------------------------------------------------------- */
/* Time: per-sample workloads                                                 */

/*
 * Forward time of one sample: convolutions/matmuls at the GEMM ceiling times
 * the convolution efficiency, plus memory-bound layers at HBM speed (twice
 * the traffic at 32-bit).  Backward: 2x both.
 */
static double sample_fwd_s(const struct workload *w, const struct model_config *c, const struct hw *h)
{
	int cuda_cores = c->precision == MODEL_FP32 || (c->precision == MODEL_TF32 && !(c->gpu->tf32_tflops > 0));
	double ceff = w->s.conv_efficiency > 0 ? w->s.conv_efficiency :
		      cuda_cores ? TUNE_CONV_EFF_FP32 : TUNE_CONV_EFF;
	double e = (c->precision == MODEL_FP32 || c->precision == MODEL_TF32) ? 2 : 1;
	double tc = w->s.fwd_flops / (h->peak * h->emax * ceff);
	/* TF32 convolutions reach a smaller share of their peak than 16-bit ones */
	if (c->precision == MODEL_TF32 && !cuda_cores)
		tc /= TUNE_TF32_CONV_REL;
	if (!c->cudnn_benchmark)
		tc /= TUNE_CUDNN_BENCH_GAIN;
	return tc + w->s.mem_traffic_bytes * e * h->inv_bw;
}

/* ------------------------------------------------------------------------- */
/* Inference                                                                  */

static double launch_s_of(const struct model_config *c)
{
	return c->cuda_graphs ? TUNE_LAUNCH_GRAPH_S : TUNE_LAUNCH_S;
}

/*
 * Transformer inference (all pipeline stages in sequence):
 *   prefill  = L forward layers over B x P tokens + the last position's logits
 *   decode   = per token: weights read once (MoE: the experts the batch
 *              touches, E (1 - (1 - k/E)^B)), KV cache read for the average
 *              context P + O/2, small GEMMs at m = B, two TP all-reduces per
 *              layer (latency-bound), all at least the kernel-launch time.
 */
static void infer_transformer(const struct workload *w, const struct model_config *c, const struct hw *h,
			      struct model_infer *o)
{
	const struct workload_dims *d = &w->d;
	struct layer_time lt;
	double L = d->layers, t = c->tp, B = c->batch, P = c->prompt_len, O = c->output_len;
	double eb = model_precision_bytes(c->precision), kvb = model_precision_bytes(c->kv_precision);
	double ctx = P + O / 2.0, kv_gpu = w->kv_dim / t;
	double gpu, cpu_s, kernels, weights, kvbytes, touched = 1;
	double pp_hop = 0, pp_hop_prefill = 0;

	memset(o, 0, sizeof(*o));
	if (kv_gpu < d->head_dim)
		kv_gpu = d->head_dim;
	if (c->pp > 1) {
		int stride = c->tp * c->dp;
		int g = stride >= c->gpus_per_node ? 1 : 2;
		pp_hop = coll_s(c, COLL_P2P, 2.0 * B * d->hidden, 2, g, 0);
		pp_hop_prefill = coll_s(c, COLL_P2P, 2.0 * B * P * d->hidden, 2, g, 0);
	}
	kernels = TUNE_KERNELS_PER_LAYER * L + 10;

	/* prefill */
	layer_fwd(w, c, h, B * P, P, P, &lt);
	gpu = L * (lt.gemm + lt.attn_fwd + lt.mem + lt.tp_comm + lt.ep_comm) +
	      gemm_s(h, eb, B, d->vocab / t, d->hidden) + (c->pp - 1) * pp_hop_prefill +
	      kernels * TUNE_KERNEL_GAP_S;
	if (gpu < kernels * TUNE_KERNEL_MIN_S)
		gpu = kernels * TUNE_KERNEL_MIN_S;
	cpu_s = kernels * launch_s_of(c);
	o->prefill_s = gpu > cpu_s ? gpu : cpu_s;
	o->launch_s = cpu_s;

	/* decode: one token for each of B sequences */
	if (d->experts > 1) {
		/* experts the batch touches per layer, in units of k (1 at batch 1, E/k when all) */
		double k = d->experts_active, E = d->experts;
		touched = E * (1 - pow(1 - k / E, B)) / k;
		if (touched > E / k)
			touched = E / k;
		if (touched < 1)
			touched = 1;
	}
	weights = (w->params_active - w->params_embedding) / t;
	if (d->experts > 1)
		weights += L * (touched - 1) * d->experts_active * w->params_layer_mlp / t;
	weights *= eb;
	kvbytes = d->causal ? 2.0 * L * kv_gpu * ctx * B * kvb : 0;
	layer_fwd(w, c, h, B, 1, ctx, &lt);
	{
		double compute = L * (lt.gemm + lt.mem + lt.attn_fwd) + gemm_s(h, eb, B, d->vocab / t, d->hidden);
		double stream = (weights + kvbytes) * h->inv_bw;
		gpu = (compute > stream ? compute : stream) + L * (lt.tp_comm + lt.ep_comm) + (c->pp - 1) * pp_hop +
		      kernels * TUNE_KERNEL_GAP_S;
		if (gpu < kernels * TUNE_KERNEL_MIN_S)
			gpu = kernels * TUNE_KERNEL_MIN_S;
	}
	o->decode_token_s = gpu > cpu_s ? gpu : cpu_s;
	o->decode_weights_bytes = weights;
	o->decode_kv_bytes = kvbytes;
	o->request_s = o->prefill_s + (O > 1 ? (O - 1) * o->decode_token_s : 0);
	/* generated tokens; an encoder generates none: the tokens it processed */
	o->tokens_per_s = c->dp * B * (d->causal ? O : P) / o->request_s;
	o->samples_per_s = c->dp * B / o->request_s;
}

/* Per-sample inference: one forward of a batch, at least the launch time. */
static void infer_per_sample(const struct workload *w, const struct model_config *c, const struct hw *h,
			     struct model_infer *o)
{
	double kernels = w->s.kernels > 0 ? w->s.kernels : 50;
	double gpu = c->batch * sample_fwd_s(w, c, h);
	double cpu_s = kernels * launch_s_of(c);
	if (gpu < kernels * TUNE_KERNEL_MIN_S)
		gpu = kernels * TUNE_KERNEL_MIN_S;
	memset(o, 0, sizeof(*o));
	o->launch_s = cpu_s;
	o->prefill_s = gpu > cpu_s ? gpu : cpu_s;
	o->request_s = o->prefill_s;
	o->samples_per_s = c->dp * c->batch / o->request_s;
	o->tokens_per_s = w->s.tokens > 0 ? o->samples_per_s * w->s.tokens : 0;
}

/* ------------------------------------------------------------------------- */
/* The estimate                                                               */

/* Optimizer update: memory-bound over the local shard (AdamW ~ 30 B/param). */
static double optimizer_s_of(const struct model_config *c, const struct hw *h, double params_local)
{
	double per = c->optimizer == MODEL_OPTIM_SGD ? 16 : c->optimizer == MODEL_OPTIM_ADAM8BIT ? 18 : 30;
	return params_local * per * h->inv_bw;
}

/*
 * Data loading: CPU cores decode at decode_per_core samples/s each; DALI
 * decodes on the GPU at dali_per_gpu, leaving the CPU a tenth of the work
 * and costing the GPU TUNE_DALI_GPU_SHARE of the decode time.
 */
static void data_rates(const struct workload *w, const struct model_config *c, double need_per_gpu,
		       double *supply_per_gpu, double *cores_needed, double *gpu_cost_per_sample)
{
	double per_core = w->s.decode_per_core;
	*supply_per_gpu = 0;
	*cores_needed = 0;
	*gpu_cost_per_sample = 0;
	if (!(per_core > 0))
		return;
	if (c->loader == MODEL_LOADER_DALI && w->s.dali_per_gpu > 0) {
		per_core *= TUNE_DALI_CPU_RELIEF;
		*gpu_cost_per_sample = TUNE_DALI_GPU_SHARE / w->s.dali_per_gpu;
		*supply_per_gpu = c->cpu_cores_per_gpu > 0 ? c->cpu_cores_per_gpu * per_core : 0;
		if (*supply_per_gpu == 0 || *supply_per_gpu > w->s.dali_per_gpu)
			*supply_per_gpu = w->s.dali_per_gpu;
	} else {
		*supply_per_gpu = c->cpu_cores_per_gpu > 0 ? c->cpu_cores_per_gpu * per_core : 0;
	}
	*cores_needed = need_per_gpu / per_core;
}

static int estimate_with_memory(const struct workload *w, const struct model_config *c,
				struct model_result *r);

int model_estimate(const struct workload *w, const struct model_config *c, struct model_result *r)
{
	memset(r, 0, sizeof(*r));
	if (model_memory(w, c, &r->mem))
		return -1;
	return estimate_with_memory(w, c, r);
}

int model_estimate_mem(const struct workload *w, const struct model_config *c,
		       const struct model_memory *mem, struct model_result *r)
{
	memset(r, 0, sizeof(*r));
	r->mem = *mem;
	return estimate_with_memory(w, c, r);
}

/* Everything model_estimate() does once r->mem holds model_memory()'s answer. */
static int estimate_with_memory(const struct workload *w, const struct model_config *c,
				struct model_result *r)
{
	struct hw h;
	struct model_time *tm = &r->time;
	double step_gpu, m_mb, samples_step, tokens_sample, gpu_busy;

	hw_of(c, &h);
	r->peak_tflops = h.peak / 1e12;
	if (!r->mem.fits)
		r->limits |= MODEL_LIMIT_CAPACITY;

	if (c->task == MODEL_TASK_INFER) {
		double flops_token, tokens;
		if (w->kind == WORKLOAD_TRANSFORMER)
			infer_transformer(w, c, &h, &r->infer);
		else
			infer_per_sample(w, c, &h, &r->infer);
		r->tokens_per_s = r->infer.tokens_per_s;
		r->samples_per_s = r->infer.samples_per_s;
		tm->step_s = r->infer.request_s;
		tm->compute_s = r->infer.request_s;
		/* model FLOPs of one request batch: 2N per token processed + attention */
		if (w->kind == WORKLOAD_TRANSFORMER) {
			double P = c->prompt_len, O = c->output_len;
			flops_token = w->flops_token_dense + w->flops_token_head;
			tokens = c->batch * (P + O - 1);
			r->model_flops_per_step = c->dp * (tokens * flops_token +
				c->batch * w->flops_token_attn * (P * P / 2 + (O - 1) * (P + O / 2.0)));
		} else {
			r->model_flops_per_step = c->dp * c->batch * w->s.fwd_flops;
		}
		r->hw_flops_per_step = r->model_flops_per_step;
		r->limits |= r->infer.launch_s >= r->infer.request_s * 0.999 ? MODEL_LIMIT_LAUNCH :
			     r->infer.decode_token_s > 0 &&
			     (r->infer.decode_weights_bytes + r->infer.decode_kv_bytes) / h.bw > 0.5 * r->infer.decode_token_s ?
			     MODEL_LIMIT_MEMORY_BW : MODEL_LIMIT_COMPUTE;
		gpu_busy = 0.6;
		goto finish;
	}

	m_mb = (double)c->global_batch / ((double)c->dp * c->micro_batch);
	samples_step = c->global_batch;
	tokens_sample = w->kind == WORKLOAD_TRANSFORMER ? c->seq_len : w->s.tokens;

	if (w->kind == WORKLOAD_TRANSFORMER) {
		struct train_parts tp;
		double t_mb, Ls_params, grad_bytes, wbytes;
		int lora = c->task == MODEL_TASK_LORA || c->task == MODEL_TASK_QLORA;
		int g_dp = per_node(c, c->dp, c->tp);
		struct state_bytes sb = state_bytes_of(c);

		train_transformer(w, c, &h, &tp);
		t_mb = tp.mb_fwd + tp.mb_bwd + tp.mb_recompute;
		tm->gemm_s = m_mb * tp.gemm;
		tm->attention_s = m_mb * tp.attn;
		tm->memory_bound_s = m_mb * tp.mem;
		tm->recompute_s = m_mb * tp.recompute;
		tm->tp_comm_s = m_mb * tp.tp;
		tm->ep_comm_s = m_mb * tp.ep;
		tm->compute_s = m_mb * t_mb - tm->tp_comm_s - tm->ep_comm_s;
		/*
		 * Pipeline (Narayanan 2021 sec. 2.2): bubble = (p - 1)/v micro-batch
		 * times; sends of e T h / t bytes (scatter-gather) forward and
		 * backward, v times per micro-batch with interleaving.
		 */
		if (c->pp > 1) {
			double e = (c->precision == MODEL_FP32 || c->precision == MODEL_TF32) ? 4 : 2;
			int stride = c->tp * c->dp;
			int g = stride >= c->gpus_per_node ? 1 : 2;
			double bytes = e * c->seq_len * c->micro_batch * w->d.hidden / c->tp;
			tm->pp_bubble_s = (c->pp - 1.0) / c->vpp * t_mb;
			tm->pp_p2p_s = 2.0 * c->vpp * m_mb * coll_s(c, COLL_P2P, bytes, 2, g, 0);
		}
		/* parameters on this GPU (largest stage) */
		Ls_params = layer_params_gpu(w, c) * w->d.layers / c->pp +
			    (w->params_embedding / c->tp) * (c->pp == 1 ? 1 : 0.5) +
			    w->params_head / c->tp;
		if (lora)
			Ls_params = c->lora_rank * w->params_lora_per_rank / (c->tp * c->pp);
		grad_bytes = Ls_params * (lora ? 4 : sb.grad);
		wbytes = Ls_params * (lora ? 4 : sb.weight);
		if (c->dp > 1) {
			/*
			 * Data parallelism.  ZeRO 0: all-reduce of the gradients,
			 * overlapped with the last micro-batch's backward (PyTorch DDP
			 * buckets).  ZeRO 1-2: reduce-scatter (overlapped) + all-gather
			 * of the updated 16-bit weights (exposed).  ZeRO 3 (FSDP): per
			 * micro-batch two weight all-gathers (forward, backward) and a
			 * gradient reduce-scatter, prefetched under the compute.
			 */
			double window = TUNE_DP_OVERLAP * (tp.mb_bwd + tp.mb_recompute);
			if (c->zero <= 0) {
				double ar = coll_s(c, COLL_AR, grad_bytes, c->dp, g_dp, 0);
				tm->dp_comm_total_s = ar;
				tm->dp_comm_s = ar > window ? ar - window : 0;
			} else if (c->zero <= 2) {
				double rs = coll_s(c, COLL_RS, grad_bytes, c->dp, g_dp, 0);
				double ag = coll_s(c, COLL_AG, wbytes, c->dp, g_dp, 0);
				tm->dp_comm_total_s = rs + ag;
				tm->dp_comm_s = (rs > window ? rs - window : 0) + ag;
			} else {
				double per_mb = 2 * coll_s(c, COLL_AG, wbytes, c->dp, g_dp, 1) +
						coll_s(c, COLL_RS, grad_bytes, c->dp, g_dp, 1);
				double total = m_mb * per_mb;
				double cover = m_mb * t_mb * TUNE_ZERO3_OVERLAP;
				tm->dp_comm_total_s = total;
				tm->zero_comm_s = total > cover ? total - cover : 0;
			}
		}
		/* optimizer step over the local shard; ZeRO-Offload runs it on the CPU */
		{
			double shard = Ls_params / (c->zero >= 1 ? c->dp : 1);
			if (c->offload != MODEL_OFFLOAD_NONE) {
				double pcie = (c->host_gbps > 0 ? c->host_gbps : 25) * 1e9 * TUNE_H2D_EFF;
				/* fp32 gradients down, 16-bit weights up; the CPU Adam step */
				tm->offload_s = shard * (4 + 2) / pcie + shard / TUNE_CPU_ADAM_PARAMS_PER_S;
				if (c->offload == MODEL_OFFLOAD_PARAMS) {
					/* parameters streamed in for forward and backward of every micro-batch */
					double stream = m_mb * 2 * wbytes / pcie;
					double cover = m_mb * t_mb;
					tm->offload_s += stream > cover ? stream - cover : 0;
				}
			} else {
				tm->optimizer_s = optimizer_s_of(c, &h, shard);
			}
		}
		step_gpu = m_mb * t_mb + tm->pp_bubble_s + tm->pp_p2p_s + tm->dp_comm_s + tm->zero_comm_s +
			   tm->optimizer_s + tm->offload_s;
		/* the CPU must launch every kernel: eager PyTorch costs TUNE_LAUNCH_S per kernel */
		tm->overhead_s = m_mb * tp.kernels_mb * launch_s_of(c) - step_gpu;
		if (tm->overhead_s < 0)
			tm->overhead_s = 0;
		r->model_flops_per_step = samples_step * c->seq_len * tp.flops_model_token;
		r->hw_flops_per_step = samples_step * c->seq_len * tp.flops_hw_token;
	} else {
		double t_fwd = sample_fwd_s(w, c, &h);
		double per_mb = c->micro_batch * t_fwd * (c->recompute == MODEL_RECOMPUTE_FULL ? 4 : 3);
		double floor_mb = 3 * (w->s.kernels > 0 ? w->s.kernels : 50) * TUNE_KERNEL_MIN_S;
		if (per_mb < floor_mb)
			per_mb = floor_mb;
		double params = w->params;
		double grad_bytes = params * 4;
		int g_dp = per_node(c, c->dp, 1);
		tm->gemm_s = m_mb * c->micro_batch * 3 * (t_fwd - w->s.mem_traffic_bytes *
			((c->precision == MODEL_FP32 || c->precision == MODEL_TF32) ? 2 : 1) / h.bw);
		tm->memory_bound_s = m_mb * per_mb - tm->gemm_s;
		tm->recompute_s = c->recompute == MODEL_RECOMPUTE_FULL ? m_mb * c->micro_batch * t_fwd : 0;
		tm->compute_s = m_mb * per_mb;
		if (c->dp > 1) {
			double window = TUNE_DP_OVERLAP * c->micro_batch * t_fwd * 2;
			double ar = coll_s(c, c->zero > 0 ? COLL_RS : COLL_AR, grad_bytes, c->dp, g_dp, 0);
			if (c->zero > 0)
				ar += coll_s(c, COLL_AG, params * 2, c->dp, g_dp, c->zero >= 3);
			tm->dp_comm_total_s = ar;
			tm->dp_comm_s = ar > window ? ar - window : 0;
		}
		tm->optimizer_s = optimizer_s_of(c, &h, params / (c->zero >= 1 ? c->dp : 1));
		step_gpu = tm->compute_s + tm->dp_comm_s + tm->optimizer_s;
		tm->overhead_s = m_mb * 3 * (w->s.kernels > 0 ? w->s.kernels : 50) * launch_s_of(c) - step_gpu;
		if (tm->overhead_s < 0)
			tm->overhead_s = 0;
		r->model_flops_per_step = samples_step * 3 * w->s.fwd_flops;
		r->hw_flops_per_step = r->model_flops_per_step *
				       (c->recompute == MODEL_RECOMPUTE_FULL ? 4.0 / 3 : 1);
	}

	/* data loading, overlapped with compute by prefetching */
	{
		double step0 = step_gpu + tm->overhead_s;
		double need = samples_step / c->dp / step0;
		double supply, cores, cost;
		data_rates(w, c, need, &supply, &cores, &cost);
		r->data_cores_needed = cores;
		if (cost > 0) {
			double extra = cost * samples_step / c->dp;
			step_gpu += extra;
			tm->compute_s += extra;
		}
		if (supply > 0) {
			double load = samples_step / c->dp / supply;
			r->data_samples_per_s = supply * c->dp;
			step0 = step_gpu + tm->overhead_s;
			tm->data_s = load > step0 ? load - step0 : 0;
		}
	}
	tm->step_s = step_gpu + tm->overhead_s + tm->data_s;
	r->samples_per_s = samples_step / tm->step_s;
	r->tokens_per_s = tokens_sample > 0 ? r->samples_per_s * tokens_sample : 0;
	{
		double comm = tm->tp_comm_s + tm->ep_comm_s + tm->dp_comm_s + tm->zero_comm_s + tm->pp_p2p_s;
		double biggest = tm->compute_s;
		r->limits |= MODEL_LIMIT_COMPUTE;
		if (comm > 0.25 * tm->step_s) {
			r->limits |= MODEL_LIMIT_COMM;
			if (comm > biggest)
				r->limits &= ~(unsigned)MODEL_LIMIT_COMPUTE;
		}
		if (tm->pp_bubble_s > 0.15 * tm->step_s)
			r->limits |= MODEL_LIMIT_BUBBLE;
		if (tm->data_s > 0.05 * tm->step_s)
			r->limits |= MODEL_LIMIT_DATA;
		if (tm->overhead_s > 0.05 * tm->step_s)
			r->limits |= MODEL_LIMIT_LAUNCH;
		if (tm->memory_bound_s > 0.5 * tm->compute_s)
			r->limits |= MODEL_LIMIT_MEMORY_BW;
	}
	gpu_busy = tm->compute_s / tm->step_s;

finish:
	if (tm->step_s > 0) {
		double gpus = c->gpus;
		r->mfu = r->model_flops_per_step / (tm->step_s * gpus * h.peak);
		r->mfu_tflops_per_gpu = r->model_flops_per_step / tm->step_s / gpus / 1e12;
		r->hfu_tflops_per_gpu = r->hw_flops_per_step / tm->step_s / gpus / 1e12;
	}
	/*
	 * Time to train: tokens / tokens per second, or samples x epochs /
	 * samples per second.  Energy: GPUs only, drawing idle + (TDP - idle) x
	 * (0.3 + 0.7 x busy fraction) (an estimate: training GPUs sit near TDP
	 * while computing and well above idle while communicating).
	 */
	if (c->train_tokens > 0 && r->tokens_per_s > 0)
		r->time_to_train_s = c->train_tokens / r->tokens_per_s;
	else if (c->train_samples > 0 && r->samples_per_s > 0)
		r->time_to_train_s = c->train_samples * (c->epochs > 0 ? c->epochs : 1) / r->samples_per_s;
	if (gpu_busy > 1)
		gpu_busy = 1;
	if (gpu_busy < 0)
		gpu_busy = 0;
	r->power_w = h.idle_w + (h.tdp_w - h.idle_w) * (0.3 + 0.7 * gpu_busy);
	r->energy_kwh = r->power_w * c->gpus * (r->time_to_train_s > 0 ? r->time_to_train_s : 3600) / 3.6e6;
	return 0;
}
