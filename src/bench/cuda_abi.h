/*
 * The few types, enums and entry points of the CUDA driver API, cuBLASLt
 * and NCCL that `bench` calls, declared here instead of the SDK's cuda.h,
 * cublasLt.h and nccl.h, so that gpuscope builds without CUDA and loads
 * the libraries at run time (src/bench/loader.c).  Values are those of
 * CUDA 13.0's headers (cuda.h, library_types.h, cublas_api.h, cublasLt.h)
 * and NCCL 2.x's nccl.h; each has been the same since CUDA 11 / NCCL 2.7.
 *
 * Each BENCH_*_SYMBOLS(X) list names an entry point once: X(return type,
 * member, argument list, symbol names newest first).  loader.c derives the
 * function-pointer tables from them and resolves every name in turn.
 */
#ifndef GPUSCOPE_BENCH_CUDA_ABI_H
#define GPUSCOPE_BENCH_CUDA_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult; /* CUDA_SUCCESS = 0 */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef unsigned long long CUdeviceptr;
typedef struct {
	unsigned char bytes[16];
} CUuuid;

#define CU_DEVICE_ATTRIBUTE_CLOCK_RATE 13 /* kHz */
#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_STREAM_NON_BLOCKING 0x1
#define CU_EVENT_DEFAULT 0x0
#define CU_STREAM_CAPTURE_MODE_THREAD_LOCAL 1

/* cuBLASLt */
typedef int cublasStatus_t; /* CUBLAS_STATUS_SUCCESS = 0 */
typedef struct cublasLtContext *cublasLtHandle_t;
typedef struct cublasLtMatmulDescOpaque_st *cublasLtMatmulDesc_t;
typedef struct cublasLtMatrixLayoutOpaque_st *cublasLtMatrixLayout_t;
typedef struct cublasLtMatmulPreferenceOpaque_st *cublasLtMatmulPreference_t;
typedef struct {
	uint64_t data[8];
} cublasLtMatmulAlgo_t;
typedef struct {
	cublasLtMatmulAlgo_t algo;
	size_t workspaceSize;
	cublasStatus_t state;
	float wavesCount;
	int reserved[4];
} cublasLtMatmulHeuristicResult_t;

enum bench_cuda_data_type {
	BENCH_CUDA_R_32F = 0,
	BENCH_CUDA_R_16F = 2,
	BENCH_CUDA_R_16BF = 14,
	BENCH_CUDA_R_8F_E4M3 = 28,
};
enum bench_cublas_compute {
	BENCH_CUBLAS_COMPUTE_32F = 68,
	BENCH_CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
};
#define BENCH_CUBLAS_OP_N 0
#define BENCH_CUBLAS_OP_T 1
#define BENCH_CUBLASLT_MATMUL_DESC_TRANSA 3
#define BENCH_CUBLASLT_MATMUL_DESC_TRANSB 4
#define BENCH_CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES 1

/* NCCL */
typedef int ncclResult_t; /* ncclSuccess = 0 */
typedef struct ncclComm *ncclComm_t;
#define BENCH_NCCL_FLOAT 7 /* ncclFloat32 */
#define BENCH_NCCL_SUM 0

/* X(ret, member, (args), "name", "older name" or NULL) */
#define BENCH_CUDA_SYMBOLS(X) \
	X(CUresult, Init, (unsigned flags), "cuInit", NULL) \
	X(CUresult, DriverGetVersion, (int *v), "cuDriverGetVersion", NULL) \
	X(CUresult, GetErrorString, (CUresult e, const char **s), "cuGetErrorString", NULL) \
	X(CUresult, DeviceGetCount, (int *n), "cuDeviceGetCount", NULL) \
	X(CUresult, DeviceGet, (CUdevice * d, int ordinal), "cuDeviceGet", NULL) \
	X(CUresult, DeviceGetName, (char *name, int len, CUdevice d), "cuDeviceGetName", NULL) \
	X(CUresult, DeviceGetAttribute, (int *v, int attr, CUdevice d), "cuDeviceGetAttribute", NULL) \
	X(CUresult, DeviceGetPCIBusId, (char *id, int len, CUdevice d), "cuDeviceGetPCIBusId", NULL) \
	X(CUresult, DeviceTotalMem, (size_t * bytes, CUdevice d), "cuDeviceTotalMem_v2", "cuDeviceTotalMem") \
	X(CUresult, PrimaryCtxRetain, (CUcontext * c, CUdevice d), "cuDevicePrimaryCtxRetain", NULL) \
	X(CUresult, PrimaryCtxRelease, (CUdevice d), "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease") \
	X(CUresult, CtxSetCurrent, (CUcontext c), "cuCtxSetCurrent", NULL) \
	X(CUresult, ModuleLoadData, (CUmodule * m, const void *image), "cuModuleLoadData", NULL) \
	X(CUresult, ModuleUnload, (CUmodule m), "cuModuleUnload", NULL) \
	X(CUresult, ModuleGetFunction, (CUfunction * f, CUmodule m, const char *name), "cuModuleGetFunction", \
	  NULL) \
	X(CUresult, LaunchKernel, \
	  (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, \
	   unsigned shared_bytes, CUstream s, void **params, void **extra), \
	  "cuLaunchKernel", NULL) \
	X(CUresult, MemAlloc, (CUdeviceptr * p, size_t bytes), "cuMemAlloc_v2", "cuMemAlloc") \
	X(CUresult, MemFree, (CUdeviceptr p), "cuMemFree_v2", "cuMemFree") \
	X(CUresult, MemAllocHost, (void **p, size_t bytes), "cuMemAllocHost_v2", "cuMemAllocHost") \
	X(CUresult, MemFreeHost, (void *p), "cuMemFreeHost", NULL) \
	X(CUresult, MemcpyHtoDAsync, (CUdeviceptr dst, const void *src, size_t bytes, CUstream s), \
	  "cuMemcpyHtoDAsync_v2", "cuMemcpyHtoDAsync") \
	X(CUresult, MemcpyDtoHAsync, (void *dst, CUdeviceptr src, size_t bytes, CUstream s), \
	  "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoHAsync") \
	X(CUresult, MemcpyDtoDAsync, (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s), \
	  "cuMemcpyDtoDAsync_v2", "cuMemcpyDtoDAsync") \
	X(CUresult, MemcpyPeerAsync, \
	  (CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx, size_t bytes, CUstream s), \
	  "cuMemcpyPeerAsync", NULL) \
	X(CUresult, DeviceCanAccessPeer, (int *can, CUdevice d, CUdevice peer), "cuDeviceCanAccessPeer", NULL) \
	X(CUresult, CtxEnablePeerAccess, (CUcontext peer, unsigned flags), "cuCtxEnablePeerAccess", NULL) \
	X(CUresult, StreamCreate, (CUstream * s, unsigned flags), "cuStreamCreate", NULL) \
	X(CUresult, StreamDestroy, (CUstream s), "cuStreamDestroy_v2", "cuStreamDestroy") \
	X(CUresult, StreamSynchronize, (CUstream s), "cuStreamSynchronize", NULL) \
	X(CUresult, EventCreate, (CUevent * e, unsigned flags), "cuEventCreate", NULL) \
	X(CUresult, EventDestroy, (CUevent e), "cuEventDestroy_v2", "cuEventDestroy") \
	X(CUresult, EventRecord, (CUevent e, CUstream s), "cuEventRecord", NULL) \
	X(CUresult, EventSynchronize, (CUevent e), "cuEventSynchronize", NULL) \
	X(CUresult, EventElapsedTime, (float *ms, CUevent start, CUevent end), "cuEventElapsedTime_v2", \
	  "cuEventElapsedTime") \
	X(CUresult, StreamBeginCapture, (CUstream s, int mode), "cuStreamBeginCapture_v2", \
	  "cuStreamBeginCapture") \
	X(CUresult, StreamEndCapture, (CUstream s, CUgraph * g), "cuStreamEndCapture", NULL) \
	X(CUresult, GraphInstantiate, (CUgraphExec * e, CUgraph g, unsigned long long flags), \
	  "cuGraphInstantiateWithFlags", NULL) \
	X(CUresult, GraphLaunch, (CUgraphExec e, CUstream s), "cuGraphLaunch", NULL) \
	X(CUresult, GraphExecDestroy, (CUgraphExec e), "cuGraphExecDestroy", NULL) \
	X(CUresult, GraphDestroy, (CUgraph g), "cuGraphDestroy", NULL)

#define BENCH_CUBLASLT_SYMBOLS(X) \
	X(size_t, GetVersion, (void), "cublasLtGetVersion", NULL) \
	X(cublasStatus_t, Create, (cublasLtHandle_t * h), "cublasLtCreate", NULL) \
	X(cublasStatus_t, Destroy, (cublasLtHandle_t h), "cublasLtDestroy", NULL) \
	X(cublasStatus_t, DescCreate, (cublasLtMatmulDesc_t * d, int compute, int scale_type), \
	  "cublasLtMatmulDescCreate", NULL) \
	X(cublasStatus_t, DescDestroy, (cublasLtMatmulDesc_t d), "cublasLtMatmulDescDestroy", NULL) \
	X(cublasStatus_t, DescSetAttribute, (cublasLtMatmulDesc_t d, int attr, const void *buf, size_t size), \
	  "cublasLtMatmulDescSetAttribute", NULL) \
	X(cublasStatus_t, LayoutCreate, \
	  (cublasLtMatrixLayout_t * l, int type, uint64_t rows, uint64_t cols, int64_t ld), \
	  "cublasLtMatrixLayoutCreate", NULL) \
	X(cublasStatus_t, LayoutDestroy, (cublasLtMatrixLayout_t l), "cublasLtMatrixLayoutDestroy", NULL) \
	X(cublasStatus_t, PrefCreate, (cublasLtMatmulPreference_t * p), "cublasLtMatmulPreferenceCreate", NULL) \
	X(cublasStatus_t, PrefDestroy, (cublasLtMatmulPreference_t p), "cublasLtMatmulPreferenceDestroy", NULL) \
	X(cublasStatus_t, PrefSetAttribute, \
	  (cublasLtMatmulPreference_t p, int attr, const void *buf, size_t size), \
	  "cublasLtMatmulPreferenceSetAttribute", NULL) \
	X(cublasStatus_t, AlgoGetHeuristic, \
	  (cublasLtHandle_t h, cublasLtMatmulDesc_t d, cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b, \
	   cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t dd, cublasLtMatmulPreference_t p, int want, \
	   cublasLtMatmulHeuristicResult_t *out, int *got), \
	  "cublasLtMatmulAlgoGetHeuristic", NULL) \
	X(cublasStatus_t, Matmul, \
	  (cublasLtHandle_t h, cublasLtMatmulDesc_t d, const void *alpha, const void *A, \
	   cublasLtMatrixLayout_t a, const void *B, cublasLtMatrixLayout_t b, const void *beta, const void *C, \
	   cublasLtMatrixLayout_t c, void *D, cublasLtMatrixLayout_t dd, const cublasLtMatmulAlgo_t *algo, \
	   void *ws, size_t ws_bytes, CUstream s), \
	  "cublasLtMatmul", NULL)

#define BENCH_NCCL_SYMBOLS(X) \
	X(ncclResult_t, GetVersion, (int *v), "ncclGetVersion", NULL) \
	X(ncclResult_t, CommInitAll, (ncclComm_t * comms, int n, const int *devs), "ncclCommInitAll", NULL) \
	X(ncclResult_t, CommDestroy, (ncclComm_t c), "ncclCommDestroy", NULL) \
	X(const char *, GetErrorString, (ncclResult_t r), "ncclGetErrorString", NULL) \
	X(ncclResult_t, GroupStart, (void), "ncclGroupStart", NULL) \
	X(ncclResult_t, GroupEnd, (void), "ncclGroupEnd", NULL) \
	X(ncclResult_t, AllReduce, \
	  (const void *s, void *r, size_t count, int type, int op, ncclComm_t c, CUstream st), "ncclAllReduce", \
	  NULL) \
	X(ncclResult_t, AllGather, (const void *s, void *r, size_t count, int type, ncclComm_t c, CUstream st), \
	  "ncclAllGather", NULL) \
	X(ncclResult_t, ReduceScatter, \
	  (const void *s, void *r, size_t count, int type, int op, ncclComm_t c, CUstream st), \
	  "ncclReduceScatter", NULL)

#define BENCH_GEN_PTR(ret, member, args, name, old) ret(*member) args;

struct bench_cuda_api {
	BENCH_CUDA_SYMBOLS(BENCH_GEN_PTR)
};
struct bench_cublaslt_api {
	BENCH_CUBLASLT_SYMBOLS(BENCH_GEN_PTR)
};
struct bench_nccl_api {
	BENCH_NCCL_SYMBOLS(BENCH_GEN_PTR)
};

#endif
