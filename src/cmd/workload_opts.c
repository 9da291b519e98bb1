/*
 * The workload flags that estimate and plan share (cmd/workload_opts.h).
 */
#include <string.h>

#include "cmd/workload_opts.h"
#include "model/quant.h"
#include "util/error.h"

/* A transformer from the four dimensions it cannot do without. */
static void load_dims(const struct workload_opts *o, struct workload *w)
{
	struct workload_dims d;
	struct diag err;

	if (!o->layers || !o->hidden || !o->heads || !o->vocab)
		die_usage(
			"gpuscope %s: a model given by dimensions needs --layers, --hidden, --heads "
			"and --vocab (and usually --ffn-hidden); or %s",
			o->cmd, o->model_hint);
	memset(&d, 0, sizeof(d));
	d.layers = (int)o->layers;
	d.hidden = (int)o->hidden;
	d.heads = (int)o->heads;
	d.ffn_hidden = o->ffn_hidden ? (int)o->ffn_hidden : (int)(4 * o->hidden);
	d.vocab = (int)o->vocab;
	d.causal = 1;
	d.seq_len = o->seq_len ? (int)o->seq_len : 2048;
	d.max_seq = d.seq_len;
	diag_clear(&err);
	if (workload_from_dims(w, "transformer", &d, &err))
		die_usage("gpuscope %s: --%s: %s", o->cmd, err.field, err.msg);
}

void workload_opts_load(const struct workload_opts *o, struct workload *w)
{
	struct diag err;
	char msg[1024];
	int dims = o->layers || o->hidden || o->heads || o->kv_heads || o->ffn_hidden || o->vocab || o->experts;
	const char *spec = o->model ? o->model : dims ? NULL : o->default_model;

	diag_clear(&err);
	if (spec) {
		if (workload_load(w, spec, &err)) {
			diag_format(&err, msg, sizeof(msg));
			die_usage("gpuscope %s: --model: %s", o->cmd, msg);
		}
		if (dims && w->kind != WORKLOAD_TRANSFORMER)
			die_usage(
				"gpuscope %s: '%s' is modelled per sample; --layers and the other "
				"dimension flags apply to transformers",
				o->cmd, w->name);
	} else if (dims) {
		load_dims(o, w);
	} else {
		die_usage(
			"gpuscope %s: give --model NAME (see --list-models), --model config.json, "
			"or --layers/--hidden/--heads/--vocab",
			o->cmd);
	}
	if (o->tie_embeddings) {
		int tie = !strcmp(o->tie_embeddings, "on") ? 1 : !strcmp(o->tie_embeddings, "off") ? 0 : -1;
		if (tie < 0)
			die_usage("gpuscope %s: --tie-embeddings expects on or off, got '%s'", o->cmd,
				  o->tie_embeddings);
		if (w->kind != WORKLOAD_TRANSFORMER)
			die_usage("gpuscope %s: --tie-embeddings applies to transformers", o->cmd);
		w->d.tied_embeddings = tie;
		if (!dims && workload_finish(w, &err))
			die_usage("gpuscope %s: --%s: %s", o->cmd, err.field, err.msg);
	}
	if (!dims)
		return;

	/* the flags given win over the preset's (or the base's) shape */
	if (o->layers)
		w->d.layers = (int)o->layers;
	if (o->hidden) {
		w->d.hidden = (int)o->hidden;
		w->d.head_dim = 0;
	}
	if (o->heads) {
		w->d.heads = (int)o->heads;
		w->d.head_dim = 0;
		if (!o->kv_heads && w->d.kv_heads > (int)o->heads)
			w->d.kv_heads = (int)o->heads;
	}
	if (o->kv_heads)
		w->d.kv_heads = (int)o->kv_heads;
	if (o->ffn_hidden)
		w->d.ffn_hidden = (int)o->ffn_hidden;
	if (o->vocab)
		w->d.vocab = (int)o->vocab;
	if (o->experts)
		w->d.experts = (int)o->experts;
	if (o->experts_active)
		w->d.experts_active = (int)o->experts_active;
	if (w->d.experts > 1 && w->d.experts_active <= 0)
		w->d.experts_active = 2;
	if (workload_finish(w, &err))
		die_usage("gpuscope %s: --%s: %s", o->cmd, err.field, err.msg);
}

void workload_opts_apply(const struct workload_opts *o, struct model_config *c)
{
	c->seq_len = (int)o->seq_len;
	c->global_batch = (int)o->global_batch;
	c->lora_rank = (int)o->lora_rank;
	c->prompt_len = (int)o->prompt_len;
	c->output_len = (int)o->output_len;
	c->train_tokens = o->tokens;
	c->train_samples = o->samples;
	c->epochs = o->epochs;
	{
		/* the memory settings, through the request so they are parsed in one place */
		struct model_request q;
		model_request_init(&q);
		workload_opts_request(o, &q);
		if (q.master != MODEL_UNSET)
			c->master = (enum model_master)q.master;
		if (q.lora_targets != MODEL_UNSET)
			c->lora_targets = (enum model_lora_targets)q.lora_targets;
		if (q.logits != MODEL_UNSET)
			c->logits = (enum model_logits)q.logits;
		if (q.mlm_head != MODEL_UNSET)
			c->mlm_head = (enum model_mlm_head)q.mlm_head;
		if (q.autocast != MODEL_UNSET)
			c->autocast = q.autocast;
		if (q.weight_precision != MODEL_UNSET)
			c->weight_precision = q.weight_precision;
		if (q.channels_last != MODEL_UNSET)
			c->channels_last = q.channels_last;
		c->quant_kernel = q.quant_kernel;
		c->optimizer_in_backward = o->optimizer_in_backward;
		c->activation_offload = o->activation_offload;
	}
}

/* A named value of one of the model's enumerations, or die naming the flag. */
static int named(const struct workload_opts *o, const char *flag, const char *v, int value, const char *valid)
{
	if (value < 0)
		die_usage("gpuscope %s: --%s '%s' is not one of %s", o->cmd, flag, v, valid);
	return value;
}

static int on_off(const char *v)
{
	return !strcmp(v, "on") ? 1 : !strcmp(v, "off") ? 0 : -1;
}

void workload_opts_request(const struct workload_opts *o, struct model_request *q)
{
	if (o->master)
		q->master = named(o, "master-weights", o->master, model_master_from_name(o->master), "fp32, none");
	if (o->lora_targets)
		q->lora_targets = named(o, "lora-targets", o->lora_targets,
					model_lora_targets_from_name(o->lora_targets),
					"qv, qkv, qkvo, attn+mlp, all");
	if (o->logits)
		q->logits = named(o, "logits", o->logits, model_logits_from_name(o->logits),
				  "fp32, bf16, chunked");
	if (o->mlm_head)
		q->mlm_head = named(o, "mlm-head", o->mlm_head, model_mlm_head_from_name(o->mlm_head),
				    "masked, all");
	if (o->weight_precision)
		q->weight_precision = named(o, "weight-precision", o->weight_precision,
					    model_precision_from_name(o->weight_precision),
					    "bf16, fp16, fp8, int8, int4, nf4, nvfp4, mxfp4");
	if (o->autocast)
		q->autocast = named(o, "autocast", o->autocast, on_off(o->autocast), "on, off");
	if (o->channels_last)
		q->channels_last = named(o, "channels-last", o->channels_last, on_off(o->channels_last),
					 "on, off");
	if (o->quant_kernel && strcmp(o->quant_kernel, "none"))
		q->quant_kernel = named(o, "quant-kernel", o->quant_kernel,
					model_quant_kernel_from_name(o->quant_kernel),
					model_quant_kernel_names_text());
	else if (o->quant_kernel)
		q->quant_kernel = MODEL_QUANT_NONE;
	if (o->optimizer_in_backward)
		q->optimizer_in_backward = 1;
	if (o->activation_offload)
		q->activation_offload = 1;
	q->seq_len = o->seq_len ? (int)o->seq_len : MODEL_UNSET;
	q->global_batch = o->global_batch ? (int)o->global_batch : MODEL_UNSET;
	q->lora_rank = o->lora_rank ? (int)o->lora_rank : MODEL_UNSET;
	q->prompt_len = o->prompt_len ? (int)o->prompt_len : MODEL_UNSET;
	q->output_len = o->output_len >= 0 ? (int)o->output_len : MODEL_UNSET;
	q->train_tokens = o->tokens;
	q->train_samples = o->samples;
	q->epochs = o->epochs;
}
