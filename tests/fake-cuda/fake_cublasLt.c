/*
 * A stand-in libcublasLt.so.13: matmuls take the time the scenario's
 * ceilings give them on the caller's stream (fake_cuda.c's clock):
 *
 *   t = 2 m n k / (peak(dtype) x gemm_eff x clock_share x s(m) s(n) s(k)),  s(x) = x / (x + gemm_x0)
 *
 * peak(dtype) is peak_fp32 / peak_tf32 / peak_fp16 / peak_bf16 / peak_fp8
 * (TFLOP/s); a dtype whose peak is 0 has no kernel (no heuristic result).
 */
#include <stdlib.h>
#include <string.h>

#include "fake.h"

struct cublasLtContext {
	int unused;
};
struct cublasLtMatmulDescOpaque_st {
	int compute, transa, transb;
};
struct cublasLtMatrixLayoutOpaque_st {
	int type;
	uint64_t rows, cols;
};
struct cublasLtMatmulPreferenceOpaque_st {
	size_t ws;
};

FAKE_API size_t cublasLtGetVersion(void)
{
	return (size_t)fakecuda_num("cublaslt_version", 130000);
}
FAKE_API cublasStatus_t cublasLtCreate(cublasLtHandle_t *h)
{
	*h = calloc(1, sizeof(**h));
	return *h ? 0 : 3;
}
FAKE_API cublasStatus_t cublasLtDestroy(cublasLtHandle_t h)
{
	free(h);
	return 0;
}
FAKE_API cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *d, int compute, int scale_type)
{
	*d = calloc(1, sizeof(**d));
	if (!*d)
		return 3;
	(*d)->compute = compute;
	return 0;
}
FAKE_API cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d)
{
	free(d);
	return 0;
}
FAKE_API cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d, int attr, const void *buf,
						       size_t size)
{
	if (size != sizeof(int))
		return 7; /* CUBLAS_STATUS_INVALID_VALUE */
	if (attr == BENCH_CUBLASLT_MATMUL_DESC_TRANSA)
		memcpy(&d->transa, buf, sizeof(int));
	else if (attr == BENCH_CUBLASLT_MATMUL_DESC_TRANSB)
		memcpy(&d->transb, buf, sizeof(int));
	return 0;
}
FAKE_API cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *l, int type, uint64_t rows,
						   uint64_t cols, int64_t ld)
{
	if (ld < (int64_t)rows)
		return 7;
	*l = calloc(1, sizeof(**l));
	if (!*l)
		return 3;
	(*l)->type = type;
	(*l)->rows = rows;
	(*l)->cols = cols;
	return 0;
}
FAKE_API cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l)
{
	free(l);
	return 0;
}
FAKE_API cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *p)
{
	*p = calloc(1, sizeof(**p));
	return *p ? 0 : 3;
}
FAKE_API cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t p)
{
	free(p);
	return 0;
}
FAKE_API cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t p, int attr,
							     const void *buf, size_t size)
{
	if (attr == BENCH_CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES && size == sizeof(uint64_t))
		memcpy(&p->ws, buf, sizeof(uint64_t));
	return 0;
}

/* TFLOP/s of the dtype the layouts and compute type name; 0 when the part has none. */
static double peak_of(int compute, int type)
{
	if (type == BENCH_CUDA_R_8F_E4M3)
		return fakecuda_num("peak_fp8", 0);
	if (type == BENCH_CUDA_R_16BF)
		return fakecuda_num("peak_bf16", 0);
	if (type == BENCH_CUDA_R_16F)
		return fakecuda_num("peak_fp16", 0);
	if (compute == BENCH_CUBLAS_COMPUTE_32F_FAST_TF32)
		return fakecuda_num("peak_tf32", 0);
	return fakecuda_num("peak_fp32", 0);
}

FAKE_API cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t h, cublasLtMatmulDesc_t d,
						       cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
						       cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t dd,
						       cublasLtMatmulPreference_t p, int want,
						       cublasLtMatmulHeuristicResult_t *out, int *got)
{
	*got = 0;
	/* fp8 needs A transposed (the "TN" layout), as on Hopper */
	if (!(peak_of(d->compute, a->type) > 0) ||
	    (a->type == BENCH_CUDA_R_8F_E4M3 && d->transa != BENCH_CUBLAS_OP_T))
		return 15; /* CUBLAS_STATUS_NOT_SUPPORTED */
	if (want < 1)
		return 7;
	memset(out, 0, sizeof(*out));
	out->wavesCount = 1;
	*got = 1;
	return 0;
}

FAKE_API cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t d, const void *alpha,
				       const void *A, cublasLtMatrixLayout_t a, const void *B,
				       cublasLtMatrixLayout_t b, const void *beta, const void *C,
				       cublasLtMatrixLayout_t c, void *D, cublasLtMatrixLayout_t dd,
				       const cublasLtMatmulAlgo_t *algo, void *ws, size_t ws_bytes, CUstream s)
{
	/* D is m x n; op(A) is m x k: A's layout is k x m when transposed */
	double m = (double)dd->rows, n = (double)dd->cols;
	double k = (double)(d->transa == BENCH_CUBLAS_OP_T ? a->rows : a->cols);
	double x0 = fakecuda_num("gemm_x0", 128);
	double rate = peak_of(d->compute, a->type) * 1e12 * fakecuda_num("gemm_eff", 0.8) *
		      fakecuda_num("clock_share", 1) * m / (m + x0) * n / (n + x0) * k / (k + x0);
	if (!(rate > 0))
		return 15;
	fakecuda_advance(s, fakecuda_num("launch_us", 2.5) * 1e-6 + 2 * m * n * k / rate);
	return 0;
}
