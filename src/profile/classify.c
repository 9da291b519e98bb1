/*
 * Kernel classes from names (docs/profile.md "Classes"): the rules look for
 * the library's own spelling (cuBLAS, CUTLASS, cuDNN, Tensile, NCCL/RCCL,
 * PyTorch's ATen kernels), first match wins, in the order that keeps the
 * ambiguous cases right (cuDNN's implicit_gemm is a convolution; "bf16"
 * holds "f16").
 */
#include <ctype.h>
#include <string.h>

#include "profile/profile.h"
#include "profile/profile_int.h"

enum {
	DT_UNKNOWN,
	DT_FP64,
	DT_FP32,
	DT_TF32,
	DT_FP16,
	DT_BF16,
	DT_FP8,
	DT_INT8
};
static const char *const dtype_names[PROFILE_NSUB] = {"?", "fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8"};

enum {
	CO_OTHER,
	CO_ALLREDUCE,
	CO_ALLGATHER,
	CO_REDUCESCATTER,
	CO_BROADCAST,
	CO_REDUCE,
	CO_ALLTOALL,
	CO_SENDRECV
};
static const char *const coll_names[PROFILE_NSUB] = {"other",     "allreduce", "allgather", "reducescatter",
						     "broadcast", "reduce",    "alltoall",  "sendrecv"};

enum {
	CP_OTHER,
	CP_HTOD,
	CP_DTOH,
	CP_DTOD,
	CP_PTOP
};
static const char *const copy_names[PROFILE_NSUB] = {"other", "HtoD", "DtoH", "DtoD", "PtoP"};

static const char *const class_names[PC_NCLASSES] = {
	"gemm", "conv", "attention", "elementwise", "norm", "memcpy", "memset", "comm", "other",
};

const char *profile_class_name(enum profile_class c)
{
	return c < PC_NCLASSES ? class_names[c] : "other";
}

const char *profile_sub_name(enum profile_class c, int sub)
{
	const char *const *t = c == PC_GEMM || c == PC_CONV ? dtype_names :
			       c == PC_COMM                 ? coll_names :
			       c == PC_MEMCPY               ? copy_names :
							      NULL;
	if (!t || sub < 0 || sub >= PROFILE_NSUB)
		return "";
	return t[sub] ? t[sub] : "";
}

/* The lower-cased first 1 KiB of s into low (the rules look only there). */
static void lower(const char *s, char *low, size_t len)
{
	size_t i;
	for (i = 0; s[i] && i + 1 < len; i++)
		low[i] = (char)tolower((unsigned char)s[i]);
	low[i] = 0;
}

static int has(const char *low, const char *const *words)
{
	for (; *words; words++)
		if (strstr(low, *words))
			return 1;
	return 0;
}

/* Tensile (rocBLAS/hipBLASLt) names: Cijk_Ailk_Bljk_<TYPE>_...: S, H(HS), B(BS), D, I8, F8. */
static int tensile_dtype(const char *low)
{
	const char *p = strstr(low, "cijk_");
	int k;
	for (k = 0; p && k < 3; k++) {
		p = strchr(p, '_');
		if (p)
			p++;
	}
	if (!p)
		return DT_UNKNOWN;
	if (!strncmp(p, "f8", 2) || !strncmp(p, "b8", 2))
		return DT_FP8;
	switch (*p) {
	case 's':
		return strstr(p, "xf32") ? DT_TF32 : DT_FP32;
	case 'h':
		return DT_FP16;
	case 'b':
		return DT_BF16;
	case 'd':
		return DT_FP64;
	case 'i':
		return DT_INT8;
	default:
		return DT_UNKNOWN;
	}
}

static int name_dtype(const char *low)
{
	static const char *const fp8[] = {"fp8", "e4m3", "e5m2", NULL};
	static const char *const bf16[] = {"bf16", "bfloat16", NULL};
	static const char *const tf32[] = {"tf32", "tensorop_s1688", "tensorop_s16816", "xf32", NULL};
	static const char *const fp16[] = {"fp16",  "f16",     "half",   "h1688", "h16816",
					   "hgemm", "884gemm", "hcudnn", NULL};
	static const char *const int8[] = {"int8", "imma", "i8i8", "s8s8", NULL};
	static const char *const fp64[] = {"dgemm", "double", "fp64", "d884", NULL};
	static const char *const fp32[] = {"sgemm",  "float",  "f32", "fp32", "s1688",
					   "scudnn", "gcgemm", "fft", NULL};
	/* the order of the checks: "bf16" holds "f16", "tf32" holds "f32" */
	static const struct {
		const char *const *words;
		int dtype;
	} order[] = {{fp8, DT_FP8},   {bf16, DT_BF16}, {tf32, DT_TF32}, {fp16, DT_FP16},
		     {int8, DT_INT8}, {fp64, DT_FP64}, {fp32, DT_FP32}};
	int t = tensile_dtype(low);
	size_t i;
	for (i = 0; t == DT_UNKNOWN && i < sizeof(order) / sizeof(order[0]); i++)
		if (has(low, order[i].words))
			t = order[i].dtype;
	return t;
}

static int collective(const char *low)
{
	static const struct {
		const char *word;
		int co;
	} rules[] = {
		{"allreduce", CO_ALLREDUCE},
		{"all_reduce", CO_ALLREDUCE},
		{"allgather", CO_ALLGATHER},
		{"all_gather", CO_ALLGATHER},
		{"reducescatter", CO_REDUCESCATTER},
		{"reduce_scatter", CO_REDUCESCATTER},
		{"alltoall", CO_ALLTOALL},
		{"all_to_all", CO_ALLTOALL},
		{"broadcast", CO_BROADCAST},
		{"sendrecv", CO_SENDRECV},
		{"send", CO_SENDRECV},
		{"recv", CO_SENDRECV},
		{"reduce", CO_REDUCE},
	};
	size_t i;
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (strstr(low, rules[i].word))
			return rules[i].co;
	return CO_OTHER;
}

static int copy_dir(const char *low)
{
	static const char *const dirs[] = {"htod", "dtoh", "dtod", "ptop"};
	int k;
	for (k = 0; k < 4; k++)
		if (strstr(low, dirs[k]))
			return CP_HTOD + k;
	return strstr(low, "peer") ? CP_PTOP : CP_OTHER;
}

enum profile_class profile_classify(const char *cat, const char *name, const char *coll, int *sub)
{
	static const char *const comm[] = {"nccl", "rccl", NULL};
	static const char *const attention[] = {"flash", "fmha", "attention", "attn", "sdpa", "mha_", NULL};
	static const char *const conv[] = {"conv",   "implicit_gemm", "fprop",  "dgrad", "wgrad",  "winograd",
					   "im2col", "scudnn",        "hcudnn", "fft2d", "gcgemm", NULL};
	static const char *const gemm[] = {"gemm",         "cijk_", "matmul", "cublas", "gemv",
					   "splitkreduce", "_mma_", "wmma",   NULL};
	static const char *const norm[] = {"norm", "bn_fw", "bn_bw", "rms", NULL};
	static const char *const elementwise[] = {"elementwise", "reduce",  "softmax",    "at::native",
						  "triton",      "pool",    "nchwtonhwc", "nhwctonchw",
						  "transpose",   "copy",    "fill",       "relu",
						  "gelu",        "dropout", "adam",       NULL};
	char low[1024], ccat[32];
	lower(cat ? cat : "", ccat, sizeof(ccat));
	lower(name ? name : "", low, sizeof(low));
	*sub = 0;
	if (strstr(ccat, "memcpy")) {
		*sub = copy_dir(low);
		return PC_MEMCPY;
	}
	if (strstr(ccat, "memset"))
		return PC_MEMSET;
	if ((coll && *coll) || has(low, comm)) {
		char lc[64];
		lower(coll && *coll ? coll : "", lc, sizeof(lc));
		*sub = collective(*lc ? lc : low);
		return PC_COMM;
	}
	if (has(low, attention))
		return PC_ATTENTION;
	if (has(low, conv)) {
		*sub = name_dtype(low);
		return PC_CONV;
	}
	if (has(low, gemm)) {
		*sub = name_dtype(low);
		return PC_GEMM;
	}
	if (has(low, norm))
		return PC_NORM;
	if (has(low, elementwise))
		return PC_ELEMENTWISE;
	return PC_OTHER;
}

double profile_dtype_bytes(const char *dtype)
{
	static const struct {
		const char *name;
		double bytes;
	} sizes[] = {
		{"Float8", 1}, {"Float", 4}, {"Half", 2}, {"BFloat16", 2}, {"Double", 8}, {"Int", 4},
		{"Long", 8},   {"Short", 2}, {"Char", 1}, {"Byte", 1},     {"Bool", 1}}; /* Float8 before Float */
	size_t i;
	for (i = 0; dtype && i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (!strncmp(dtype, sizes[i].name, strlen(sizes[i].name)))
			return sizes[i].bytes;
	return 4;
}
