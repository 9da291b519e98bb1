/* Configurations: defaults, completion from the workload, checks. */

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/model_int.h"

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
	c->tp = c->pp = c->dp = c->ep = c->vpp = c->cp = 1;
	c->recompute = MODEL_RECOMPUTE_NONE;
	c->flash = -1;
	c->optimizer = MODEL_OPTIM_ADAMW;
	c->offload = MODEL_OFFLOAD_NONE;
	c->kv_precision = MODEL_BF16;
	c->output_len = MODEL_UNSET;
	c->master = MODEL_MASTER_FP32;
	c->lora_targets = MODEL_LORA_ATTN_MLP;
	c->weight_precision = -1;
	c->quant_kernel = MODEL_QUANT_DEFAULT;
	c->logits = MODEL_LOGITS_FP32;
	c->mlm_head = MODEL_MLM_HEAD_MASKED;
	c->loader = MODEL_LOADER_CPU;
	c->cudnn_benchmark = 1;
	c->channels_last = -1;
	c->engine = MODEL_ENGINE_EAGER;
	c->reshard_after_forward = 1;
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
	if (c->cp <= 0)
		c->cp = 1;
	/* tp x cp x pp may not fit an int: model_validate() refuses such a layout */
	mp = (long)c->tp * c->pp * c->cp > MODEL_MAX_GPUS ? 1 : c->tp * c->pp * c->cp;
	if (c->dp <= 0)
		c->dp = c->gpus > 0 && c->gpus % mp == 0 ? c->gpus / mp : 1;
	if (c->gpus <= 0)
		c->gpus = (long)mp * c->dp > MODEL_MAX_GPUS ? MODEL_MAX_GPUS + 1 : mp * c->dp;
	if (c->gpus_per_node <= 0)
		c->gpus_per_node = c->gpus < 8 ? c->gpus : 8;
	/* a kernel named without --weight-precision: the weights it reads */
	if (c->quant_kernel >= 0 && c->weight_precision < 0 && model_quant_kernel_at(c->quant_kernel))
		c->weight_precision = model_quant_kernel_at(c->quant_kernel)->precision;
	if (c->quant_kernel == MODEL_QUANT_DEFAULT) {
		const struct model_engine_info *e = model_engine_info(engine_of(c));
		c->quant_kernel = model_quant_kernel_default(c->weight_precision, e->serving, e->fused);
	}
	if (c->seq_len <= 0)
		c->seq_len = w->kind == WORKLOAD_TRANSFORMER ? w->d.seq_len :
							       (int)(w->s.tokens > 0 ? w->s.tokens : 1);
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
		if (c->output_len < 0) /* 0 is a value: the prompt's forward pass only */
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
		off += (size_t)snprintf(buf + off, len - off, "%s%d", k == 1 ? "" : k == total ? " or " : ", ", i);
	}
}

/*
 * Context parallelism: training a transformer with flash attention, each
 * sequence cut into cp equal chunks, 2 x cp for a decoder (Megatron-LM's
 * causal load balancing gives each rank one early and one late chunk).
 */
static int context_check(const struct workload *w, const struct model_config *c, struct diag *err)
{
	int chunks, k, n = 0;
	char dv[160];
	size_t off = 0;
	if (c->cp <= 1)
		return 0;
	if (w->kind != WORKLOAD_TRANSFORMER)
		return diag_set(err, "", 0, 0, "cp",
				"--cp %d splits sequences; '%s' is modelled per sample "
				"and runs data parallel only; use --cp 1",
				c->cp, w->name);
	if (c->task == MODEL_TASK_INFER)
		return diag_set(err, "", 0, 0, "cp",
				"--cp %d is modelled for training only; use --cp 1 "
				"(or --tp, --pp) to serve",
				c->cp);
	if (!flash_on(c))
		return diag_set(err, "", 0, 0, "cp",
				"--cp %d needs flash attention: the ring passes blocks of "
				"K and V through it; use --flash-attention on",
				c->cp);
	chunks = w->d.causal ? 2 * c->cp : c->cp;
	if (c->seq_len % chunks == 0)
		return 0;
	dv[0] = '\0';
	for (k = 2; k <= 64 && off < sizeof(dv); k++)
		if (c->seq_len % (w->d.causal ? 2 * k : k) == 0)
			off += (size_t)snprintf(dv + off, sizeof(dv) - off, "%s%d", n++ ? ", " : "", k);
	return diag_set(err, "", 0, 0, "cp",
			"--cp %d does not cut the %d-token sequence into %d equal chunks%s; "
			"use %s",
			c->cp, c->seq_len, chunks, w->d.causal ? " (2 per rank, causal balance)" : "",
			n ? dv : "--cp 1");
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
			return diag_set(err, "", 0, 0, "vpp", "--vpp %d needs pipeline parallelism (--pp > 1)",
					c->vpp);
	} else {
		if (c->batch < 1 || c->batch > 1000000)
			return diag_set(err, "", 0, 0, "batch", "--batch %d is not between 1 and 1000000",
					c->batch);
		if (c->prompt_len < 1 || c->output_len < 0 || c->prompt_len > 10000000 || c->output_len > 10000000)
			return diag_set(
				err, "", 0, 0,
				c->prompt_len < 1 || c->prompt_len > 10000000 ? "prompt-len" : "output-len",
				"prompt length must be between 1 and 10000000 tokens, output length between 0 and 10000000");
	}
	return 0;
}

/* How the work runs: the engine, the stored weight precision, the input shape. */
static int check_how(const struct workload *w, const struct model_config *c, struct diag *err)
{
	int wp = c->weight_precision;
	if ((int)c->engine < 0 || c->engine >= MODEL_ENGINE_COUNT)
		return diag_set(err, "", 0, 0, "engine", "use --engine %s", model_engine_names_text());
	if (model_engine_check(c->engine, c->task != MODEL_TASK_INFER, err))
		return -1;
	if (c->channels_last < -1 || c->channels_last > 1)
		return diag_set(err, "", 0, 0, "channels-last", "is on or off, not %d", c->channels_last);
	if (c->conv3d_legacy < 0 || c->conv3d_legacy > 1)
		return diag_set(err, "", 0, 0, "conv3d", "is current or legacy, not %d", c->conv3d_legacy);
	if (wp >= 0) {
		if (wp >= MODEL_PRECISION_COUNT || wp == MODEL_FP32 || wp == MODEL_TF32)
			return diag_set(err, "", 0, 0, "weight-precision",
					"use bf16, fp16, fp8, int8, int4, nf4, nvfp4 or mxfp4");
	}
	if (c->quant_kernel >= 0 && model_quant_kernel_check(c->quant_kernel, wp, err))
		return -1;
	if (c->mig > 0) {
		double cs, ms;
		const struct cat_gpu *g = c->gpu;
		if (!(g->mig_slices > 0))
			return diag_set(err, "", 0, 0, "mig",
					"%s has no MIG (Multi-Instance GPU); A30, A100, H100, H200 and B200 do",
					g->row.key);
		if (model_mig_share(g, c->mig, &cs, &ms))
			return diag_set(err, "", 0, 0, "mig", "%s has no %dg MIG profile; use %s", g->row.key,
					c->mig, g->mig_slices == 7 ? "1, 2, 3, 4 or 7" : "1, 2 or 4");
		if (c->gpus > 1 || c->tp > 1 || c->pp > 1)
			return diag_set(err, "", 0, 0, "mig",
					"a MIG instance runs alone: no collectives span instances; use --gpus 1 "
					"(replicas are separate instances)");
	}
	if (c->input_elems > 0) {
		if (w->kind != WORKLOAD_PER_SAMPLE || !(w->s.input_elems > 0))
			return diag_set(
				err, "", 0, 0, "input-shape",
				"--input-shape applies to image, volume and audio networks; '%s' has no input shape to scale",
				w->name);
		if (c->input_dims != w->s.input_dims)
			return diag_set(err, "", 0, 0, "input-shape",
					"--input-shape has %d dimension%s; '%s' takes %d (%s)", c->input_dims,
					c->input_dims == 1 ? "" : "s", w->name, w->s.input_dims,
					w->s.input_dims == 3 ? "depth x height x width" :
					w->s.input_dims == 2 ? "height x width" :
							       "samples");
	}
	return 0;
}

int model_weight_precision_check(enum model_task task, int precision, int wp, struct diag *err)
{
	int lora = task == MODEL_TASK_LORA || task == MODEL_TASK_QLORA;
	if (wp >= 0 && (precision < 0 || wp != precision) && task != MODEL_TASK_INFER && !lora)
		return diag_set(err, "", 0, 0, "weight-precision",
				"--weight-precision %s stores a frozen base, but a %s run trains every weight; "
				"use --task lora or qlora, or drop --weight-precision",
				model_precision_name((enum model_precision)wp), model_task_name(task));
	if (task == MODEL_TASK_QLORA && wp >= 0 && wp != MODEL_NF4 && wp != MODEL_INT4)
		return diag_set(err, "", 0, 0, "weight-precision",
				"--task qlora keeps its base in 4 bits; --weight-precision %s is a LoRA base "
				"(use --task lora)",
				model_precision_name((enum model_precision)wp));
	return 0;
}

int model_mlm_head_check(const struct workload *w, const struct model_config *c, struct diag *err)
{
	if ((int)c->mlm_head < 0 || c->mlm_head >= MODEL_MLM_HEAD_COUNT)
		return diag_set(err, "", 0, 0, "mlm-head", "is masked or all, not %d", (int)c->mlm_head);
	if (c->mlm_head != MODEL_MLM_HEAD_MASKED && !mlm_pretrain(w, c))
		return diag_set(
			err, "", 0, 0, "mlm-head",
			"where the masked-LM head runs (--mlm-head) is a setting of an encoder's pre-training: "
			"it needs --task pretrain on an encoder (bert-base, bert-large); %s %s is not one",
			w->name, model_task_name(c->task));
	return 0;
}

int autocast_applies(const struct model_config *c)
{
	return (c->task == MODEL_TASK_PRETRAIN || c->task == MODEL_TASK_FINETUNE) &&
	       c->engine == MODEL_ENGINE_EAGER && (c->precision == MODEL_FP16 || c->precision == MODEL_BF16) &&
	       c->master == MODEL_MASTER_FP32;
}

int model_autocast_check(const struct model_config *c, struct diag *err)
{
	if (c->autocast != 0 && c->autocast != 1)
		return diag_set(err, "", 0, 0, "autocast", "is on or off, not %d", c->autocast);
	if (!c->autocast)
		return 0;
	/* torch.autocast over an fp32 model is eager PyTorch's mixed-precision training, nothing else */
	if (!autocast_applies(c))
		return diag_set(
			err, "", 0, 0, "autocast",
			"--autocast on is eager PyTorch's mixed precision (fp32 weights, 16-bit matmuls): "
			"it needs --task pretrain or finetune with --engine eager, --precision fp16 or bf16 and "
			"--master-weights fp32; %s %s %s is not that",
			model_task_name(c->task), model_engine_name(c->engine),
			model_precision_name(c->precision));
	return 0;
}

/* Memory settings that contradict each other or the task, each naming its flag. */
static int memory_settings_check(const struct workload *w, const struct model_config *c, struct diag *err)
{
	int lora = c->task == MODEL_TASK_LORA || c->task == MODEL_TASK_QLORA;
	if (model_weight_precision_check(c->task, (int)c->precision, c->weight_precision, err))
		return -1;
	if (lora && w->kind == WORKLOAD_TRANSFORMER && c->lora_rank > w->d.hidden)
		return diag_set(err, "", 0, 0, "lora-rank",
				"--lora-rank %d exceeds the hidden size %d of '%s': "
				"a low-rank adapter has a rank below it",
				c->lora_rank, w->d.hidden, w->name);
	if (c->optimizer_in_backward && c->task != MODEL_TASK_INFER &&
	    (long)c->micro_batch * c->dp != c->global_batch)
		return diag_set(
			err, "", 0, 0, "optimizer-in-backward",
			"--optimizer-in-backward applies each gradient as it arrives: it cannot accumulate "
			"micro-batches (global batch %d, micro-batch x dp = %ld)",
			c->global_batch, (long)c->micro_batch * c->dp);
	if (c->fp8_saved_weights != 0 && c->fp8_saved_weights != 1)
		return diag_set(err, "", 0, 0, "fp8-saved-weights", "is on or off, not %d", c->fp8_saved_weights);
	if (c->fp8_saved_weights && !fp8_torchao(c))
		return diag_set(err, "", 0, 0, "fp8-saved-weights",
				"--fp8-saved-weights is torchao's float8 training: it needs --precision fp8 "
				"--engine compile on a GPU whose fp8 casts are kernels of their own");
	if (model_mlm_head_check(w, c, err) || model_autocast_check(c, err))
		return -1;
	if (c->master == MODEL_MASTER_NONE && (c->precision == MODEL_FP32 || c->precision == MODEL_TF32))
		return diag_set(err, "", 0, 0, "master-weights",
				"--master-weights none is pure 16-bit training; --precision %s has no lower copy",
				model_precision_name(c->precision));
	return 0;
}

const char *config_low_degree(const struct model_config *c, int dp_least)
{
	if (c->tp < 1)
		return "tp";
	if (c->pp < 1)
		return "pp";
	if (c->dp < dp_least)
		return "dp";
	if (c->ep < 1)
		return "ep";
	if (c->vpp < 1)
		return "vpp";
	return c->cp < 1 ? "cp" : NULL;
}

/*
 * MoE parallel folding (Megatron-LM): the expert layers run on their own
 * grid etp x ep x edp over the same tp x cp x dp GPUs of a pipeline stage,
 * so ep x etp must divide tp x cp x dp, and etp the experts' width.
 */
static int moe_layout_check(const struct workload *w, const struct model_config *c, struct diag *err)
{
	char dv[160];
	long grid = (long)c->tp * cp_of(c) * c->dp, et = etp_of(c);
	int fe = w->d.moe_ffn > 0 ? w->d.moe_ffn : w->d.ffn_hidden;
	if (c->etp < 0)
		return diag_set(err, "", 0, 0, "etp", "parallel degrees must be at least 1");
	if (c->etp > 0 && c->etp != c->tp && w->d.experts <= 1)
		return diag_set(err, "", 0, 0, "etp", "--etp %d needs a mixture-of-experts model; '%s' is dense",
				c->etp, w->name);
	if (w->d.experts > 1 && fe % et) {
		divisors_text(fe, 64, dv, sizeof(dv));
		return diag_set(
			err, "", 0, 0, c->etp > 0 ? "etp" : "tp",
			"expert tensor parallelism %ld does not divide the experts' MLP width %d; use %s%s", et,
			fe, dv, c->etp > 0 ? "" : " (or set --etp)");
	}
	if (grid % ((long)c->ep * et))
		return diag_set(err, "", 0, 0, "ep",
				"--ep %d x expert tensor parallelism %ld = %ld does not divide tp x cp x dp = "
				"%d x %d x %d = %ld, the GPUs of a pipeline stage the experts are folded over",
				c->ep, et, (long)c->ep * et, c->tp, cp_of(c), c->dp, grid);
	return 0;
}

/*
 * ZeRO-3's own options: hybrid sharding shards the states over groups of
 * --hsdp ranks, so the group divides the dp x cp ranks; it and
 * --reshard-after-forward off need stage 3, a transformer (its layers are
 * the units) and dense layers (experts shard over their own ranks).
 */
static int sharding_check(const struct workload *w, const struct model_config *c, struct diag *err)
{
	int n = c->dp * cp_of(c), node = c->tp > 0 ? c->gpus_per_node / c->tp : 0;
	const char *field = c->hsdp ? "hsdp" : !c->reshard_after_forward ? "reshard-after-forward" : "zero3-impl";
	const char *flag = c->hsdp                   ? "--hsdp" :
			   !c->reshard_after_forward ? "--reshard-after-forward off" :
						       "--zero3-impl deepspeed-2021";
	if (c->reshard_after_forward != 0 && c->reshard_after_forward != 1)
		return diag_set(err, "", 0, 0, "reshard-after-forward", "is on or off, not %d",
				c->reshard_after_forward);
	if (c->hsdp < 0)
		return diag_set(err, "", 0, 0, "hsdp", "--hsdp %d is not a group size; use 1 or more", c->hsdp);
	if ((int)c->zero3_impl < 0 || c->zero3_impl >= MODEL_ZERO3_IMPL_COUNT)
		return diag_set(err, "", 0, 0, "zero3-impl", "is fsdp or deepspeed-2021, not %d",
				(int)c->zero3_impl);
	if ((int)c->overlap < 0 || c->overlap >= MODEL_OVERLAP_COUNT)
		return diag_set(err, "", 0, 0, "comm-overlap", "is grad, grad+param or grad+param+tp, not %d",
				(int)c->overlap);
	if (c->zero3_impl == MODEL_ZERO3_DEEPSPEED_2021 && c->hsdp > 0)
		return diag_set(
			err, "", 0, 0, "zero3-impl",
			"--zero3-impl deepspeed-2021 shards over every data-parallel rank; it has no --hsdp");
	if (!c->hsdp && c->reshard_after_forward && c->zero3_impl == MODEL_ZERO3_FSDP)
		return 0;
	if (c->zero != 3)
		return diag_set(err, "", 0, 0, field,
				"%s needs --zero 3 (it is how ZeRO-3/FSDP shards the parameters)", flag);
	if (w->kind != WORKLOAD_TRANSFORMER || w->d.experts > 1)
		return diag_set(err, "", 0, 0, field, "%s is modelled for dense transformers; '%s' is %s", flag,
				w->name,
				w->kind != WORKLOAD_TRANSFORMER ? "not a transformer" : "a mixture of experts");
	if (c->hsdp > 0 && (c->hsdp > n || n % c->hsdp))
		return diag_set(err, "", 0, 0, "hsdp",
				"--hsdp %d does not divide the %d data-parallel ranks (dp x cp): the shard "
				"groups must tile them; use a divisor of %d such as %d",
				c->hsdp, n, n, node > 1 && n % node == 0 ? node : 1);
	return 0;
}

int model_config_check(const struct workload *w, const struct model_config *c, struct diag *err)
{
	char dv[160];
	int mp;
	const struct cat_gpu *g = c->gpu;
	int transformer = w->kind == WORKLOAD_TRANSFORMER;

	if (!g)
		return diag_set(err, "", 0, 0, "gpu",
				"no GPU given; use --gpu NAME (see 'gpuscope catalog gpus')");
	if (config_low_degree(c, 1))
		return diag_set(err, "", 0, 0, config_low_degree(c, 1), "parallel degrees must be at least 1");
	if ((long)c->tp * c->pp > MODEL_MAX_GPUS || (long)c->tp * c->pp * c->dp > MODEL_MAX_GPUS)
		return diag_set(err, "", 0, 0, (long)c->tp * c->pp > MODEL_MAX_GPUS ? "tp" : "dp",
				"tp x pp x dp = %d x %d x %d is more than %d GPUs", c->tp, c->pp, c->dp,
				MODEL_MAX_GPUS);
	if ((long)c->tp * c->pp * c->cp > MODEL_MAX_GPUS)
		return diag_set(err, "", 0, 0, "cp", "tp x cp x pp = %d x %d x %d is more than %d GPUs", c->tp,
				c->cp, c->pp, MODEL_MAX_GPUS);
	if (c->gpus < 1 || c->gpus > MODEL_MAX_GPUS)
		return diag_set(err, "", 0, 0, "gpus", "--gpus %d is not between 1 and %d", c->gpus,
				MODEL_MAX_GPUS);
	if (c->gpus_per_node < 1 || c->gpus_per_node > 1024)
		return diag_set(err, "", 0, 0, "gpus-per-node", "--gpus-per-node %d is not between 1 and 1024",
				c->gpus_per_node);
	mp = c->tp * c->pp * c->cp;
	if (c->cp > 1 && (long)mp * c->dp != c->gpus)
		return diag_set(
			err, "", 0, 0, "gpus",
			"--gpus %d is not tp x cp x pp x dp = %d x %d x %d x %d = %ld; give --dp %s or --gpus %ld",
			c->gpus, c->tp, c->cp, c->pp, c->dp, (long)mp * c->dp,
			c->gpus % mp == 0 ? "" : "(none fits)", (long)mp * c->dp);
	if ((long)mp * c->dp != c->gpus)
		return diag_set(err, "", 0, 0, "gpus",
				"--gpus %d is not tp x pp x dp = %d x %d x %d = %ld; give --dp %s or --gpus %ld",
				c->gpus, c->tp, c->pp, c->dp, (long)mp * c->dp,
				c->gpus % mp == 0 ? "" : "(none fits)", (long)mp * c->dp);
	if (!(peak_of(g, c->precision) > 0)) {
		/* the nearest it has: fp8 for fp4 where there is one (FP4 weights alone need no FP4 tensor cores) */
		const char *alt = model_precision_fp4(c->precision) && g->fp8_tflops > 0 ?
					  "fp8, or --weight-precision nvfp4 for 4-bit weights" :
				  g->bf16_tflops > 0 ? "bf16" :
				  g->fp16_tflops > 0 ? "fp16" :
						       "fp32";
		char has[96];
		return diag_set(err, "", 0, 0, "precision", "%s has no %s support; it has %s: use --precision %s",
				g->row.key, model_precision_name(c->precision),
				model_gpu_precisions_text(g, has, sizeof(has)), alt);
	}
	if (c->precision == MODEL_INT4)
		return diag_set(err, "", 0, 0, "precision",
				"--precision int4 is for the KV cache only; use fp32, tf32, fp16, bf16 or fp8");
	if (c->precision == MODEL_INT8 && (c->task != MODEL_TASK_INFER || c->engine != MODEL_ENGINE_TENSORRT))
		return diag_set(
			err, "", 0, 0, "precision", "%s",
			c->task != MODEL_TASK_INFER ?
				"--precision int8 computes in INT8 for TensorRT inference only; train in bf16, "
				"fp16 or fp8" :
				"--precision int8 (INT8 activations and weights) needs --engine tensorrt; "
				"for int8 weights alone use --weight-precision int8");
	if (check_how(w, c, err))
		return -1;
	if (c->zero < 0 || c->zero > 3)
		return diag_set(err, "", 0, 0, "zero", "--zero %d is not a ZeRO stage; use 0, 1, 2 or 3", c->zero);
	if (c->offload == MODEL_OFFLOAD_PARAMS && c->zero != 3)
		return diag_set(err, "", 0, 0, "offload",
				"--offload params needs --zero 3 (parameters are offloaded from their shards)");
	if (sharding_check(w, c, err))
		return -1;
	if (memory_settings_check(w, c, err))
		return -1;
	if (c->micro_batch < 1 || c->micro_batch > 1000000)
		return diag_set(err, "", 0, 0, "micro-batch", "--micro-batch %d is not between 1 and 1000000",
				c->micro_batch);
	if (c->seq_len < 1 || c->seq_len > 10000000)
		return diag_set(err, "", 0, 0, "seq-len", "--seq-len %d is not between 1 and 10000000",
				c->seq_len);
	if ((c->task == MODEL_TASK_LORA || c->task == MODEL_TASK_QLORA) &&
	    (c->lora_rank < 1 || c->lora_rank > 65536))
		return diag_set(err, "", 0, 0, "lora-rank", "--lora-rank %d is not between 1 and 65536",
				c->lora_rank);
	if (c->gpus > c->gpus_per_node && !(c->inter_gbps_per_gpu > 0))
		return diag_set(
			err, "", 0, 0, "network",
			"%d GPUs span %d servers of %d but no scale-out network is known; give --network (e.g. ib-hdr-8x200)",
			c->gpus, (c->gpus + c->gpus_per_node - 1) / c->gpus_per_node, c->gpus_per_node);
	if (context_check(w, c, err))
		return -1;
	if (!transformer) {
		if (c->tp > 1 || c->pp > 1 || c->ep > 1)
			return diag_set(
				err, "", 0, 0,
				c->tp > 1 ? "tp" :
				c->pp > 1 ? "pp" :
					    "ep",
				"'%s' is modelled per sample and runs data parallel only; use --tp 1 --pp 1 --ep 1",
				w->name);
		if (c->task == MODEL_TASK_LORA || c->task == MODEL_TASK_QLORA)
			return diag_set(err, "", 0, 0, "task", "LoRA/QLoRA apply to transformers; '%s' is not one",
					w->name);
		return check_batches(c, err);
	}
	if (!model_tp_valid(w, c->tp)) {
		if (w->d.heads % c->tp) {
			divisors_text(w->d.heads, 64, dv, sizeof(dv));
			return diag_set(err, "", 0, 0, "tp",
					"--tp %d does not divide the %d attention heads; use %s", c->tp,
					w->d.heads, dv);
		}
		divisors_text(w->d.ffn_hidden, 64, dv, sizeof(dv));
		return diag_set(err, "", 0, 0, "tp", "--tp %d does not divide the MLP width %d; use %s", c->tp,
				w->d.ffn_hidden, dv);
	}
	if (!model_pp_valid(w, c->pp, c->vpp, 0)) {
		if (c->vpp > 1)
			return diag_set(err, "", 0, 0, "vpp", "pp x vpp = %d x %d does not divide the %d layers",
					c->pp, c->vpp, w->d.layers);
		return diag_set(err, "", 0, 0, "pp", "--pp %d exceeds the %d layers", c->pp, w->d.layers);
	}
	if (c->ep > 1) {
		if (w->d.experts <= 1)
			return diag_set(err, "", 0, 0, "ep",
					"--ep %d needs a mixture-of-experts model; '%s' is dense", c->ep, w->name);
		if (w->d.experts % c->ep) {
			divisors_text(w->d.experts, 1024, dv, sizeof(dv));
			return diag_set(err, "", 0, 0, "ep", "--ep %d does not divide the %d experts; use %s",
					c->ep, w->d.experts, dv);
		}
	}
	if (moe_layout_check(w, c, err))
		return -1;
	if (c->seq_parallel && c->tp == 1)
		return diag_set(err, "", 0, 0, "seq-parallel",
				"--seq-parallel needs tensor parallelism (--tp > 1)");
	if (c->seq_len > w->d.max_seq && w->d.learned_pos)
		return diag_set(err, "", 0, 0, "seq-len", "--seq-len %d exceeds the %d learned positions of '%s'",
				c->seq_len, w->d.max_seq, w->name);
	if (c->task == MODEL_TASK_INFER && !w->d.causal && c->output_len > 1)
		return diag_set(err, "", 0, 0, "output-len",
				"'%s' is an encoder: it does not generate; use --output-len 1", w->name);
	if (c->task == MODEL_TASK_INFER && w->d.learned_pos &&
	    (long)c->prompt_len + (w->d.causal ? c->output_len : 0) > (long)w->d.max_seq)
		return diag_set(err, "", 0, 0, "prompt-len",
				"prompt + output = %ld tokens exceeds the %d positions of '%s'",
				(long)c->prompt_len + (w->d.causal ? c->output_len : 0), w->d.max_seq, w->name);
	if (c->kv_precision != MODEL_FP16 && c->kv_precision != MODEL_BF16 && c->kv_precision != MODEL_FP8 &&
	    c->kv_precision != MODEL_INT8 && c->kv_precision != MODEL_INT4 && c->kv_precision != MODEL_FP32)
		return diag_set(err, "", 0, 0, "kv-cache-precision", "use fp32, fp16, bf16, fp8, int8 or int4");
	return check_batches(c, err);
}
