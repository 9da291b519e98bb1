/* Names of the model's enumerations and element sizes. */

#include <math.h>
#include <string.h>

#include "model/model_int.h"

/* ------------------------------------------------------------------------- */
/* Names                                                                      */

static const char *const task_names[] = {"pretrain", "finetune", "lora", "qlora", "infer"};
static const char *const precision_names[] = {"fp32", "tf32", "fp16", "bf16",  "fp8",
					      "int8", "int4", "nf4",  "nvfp4", "mxfp4"};
static const char *const recompute_names[] = {"none", "selective", "full", "selective-op"};
static const char *const optimizer_names[] = {"adamw",       "sgd-momentum",    "adamw8bit", "adamw-bf16",
					      "paged-adamw", "paged-adamw8bit", "adafactor", "sgd"};
static const char *const offload_names[] = {"none", "optimizer", "optimizer+params"};
static const char *const master_names[] = {"fp32", "none"};
static const char *const lora_targets_names[] = {"attn+mlp", "qv", "qkv", "qkvo", "all"};
static const char *const logits_names[] = {"fp32", "bf16", "chunked"};
static const char *const mlm_head_names[] = {"masked", "all"};
static const char *const memory_stat_names[] = {"reserved", "allocated", "device"};
static const char *const zero3_impl_names[] = {"fsdp", "deepspeed-2021"};
static const char *const conv3d_names[] = {"current", "legacy"};
static const char *const overlap_names[] = {"grad", "grad+param", "grad+param+tp"};

/* Older spellings still accepted. */
static const char *const aliases[][2] = {{"adam8bit", "adamw8bit"},
					 {"params", "optimizer+params"},
					 {"fp4", "nvfp4"}};
static const char *const loader_names[] = {"cpu", "dali"};
static const char *const link_names[] = {"none", "pcie", "nvlink", "nvswitch"};

static int name_index(const char *const *names, int n, const char *s)
{
	size_t a;
	int i;
	if (!s)
		return -1;
	for (a = 0; a < sizeof(aliases) / sizeof(aliases[0]); a++)
		if (!strcmp(s, aliases[a][0]))
			s = aliases[a][1];
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

#define NAMEFN(type, tbl, count) \
	const char *model_##type##_name(enum model_##type x) \
	{ \
		return (int)x >= 0 && (int)x < (count) ? tbl[x] : "?"; \
	} \
	int model_##type##_from_name(const char *s) \
	{ \
		return name_index(tbl, (count), s); \
	}
NAMEFN(task, task_names, MODEL_TASK_COUNT)
NAMEFN(precision, precision_names, MODEL_PRECISION_COUNT)
NAMEFN(recompute, recompute_names, MODEL_RECOMPUTE_COUNT)
NAMEFN(optimizer, optimizer_names, MODEL_OPTIM_COUNT)
NAMEFN(offload, offload_names, MODEL_OFFLOAD_COUNT)
NAMEFN(loader, loader_names, MODEL_LOADER_COUNT)
NAMEFN(master, master_names, MODEL_MASTER_COUNT)
NAMEFN(lora_targets, lora_targets_names, MODEL_LORA_TARGETS_COUNT)
NAMEFN(logits, logits_names, MODEL_LOGITS_COUNT)
NAMEFN(mlm_head, mlm_head_names, MODEL_MLM_HEAD_COUNT)
NAMEFN(memory_stat, memory_stat_names, MODEL_MEM_STAT_COUNT)
NAMEFN(zero3_impl, zero3_impl_names, MODEL_ZERO3_IMPL_COUNT)
NAMEFN(overlap, overlap_names, MODEL_OVERLAP_COUNT)
#undef NAMEFN

const char *model_conv3d_name(int legacy)
{
	return conv3d_names[legacy != 0];
}

int model_conv3d_from_name(const char *s)
{
	return name_index(conv3d_names, 2, s);
}

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
	case MODEL_NF4:
		return TUNE_NF4_BITS / 8;
	case MODEL_NVFP4:
		return MODEL_NVFP4_BITS / 8;
	case MODEL_MXFP4:
		return MODEL_MXFP4_BITS / 8;
	default:
		return 2;
	}
}

int model_precision_fp4(enum model_precision p)
{
	return p == MODEL_NVFP4 || p == MODEL_MXFP4;
}
