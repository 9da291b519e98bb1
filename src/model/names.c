/* Names of the model's enumerations and element sizes. */

#include <math.h>
#include <string.h>

#include "model/model_int.h"

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
