/*
 * The workload flags that estimate and plan share: --model, --task,
 * --optimizer, a transformer's dimensions (--layers ... --experts-active),
 * --seq-len, --global-batch, --lora-rank, --prompt-len, --output-len, the
 * amount of work (--tokens, --samples, --epochs) and --channels-last.
 *
 * A command keeps one static struct workload_opts, builds its option table
 * from the WORKLOAD_OPT*() entries below (so every command spells, ranges and
 * documents a flag alike; the help text of a flag whose default differs per
 * command is the command's), and after parsing turns the values into a
 * struct workload and the matching fields of a struct model_config.  --task
 * and --optimizer are left to the command, which knows its defaults.
 *
 * Command layer: the functions here die with exit 2 on bad input.
 */
#ifndef GPUSCOPE_CMD_WORKLOAD_OPTS_H
#define GPUSCOPE_CMD_WORKLOAD_OPTS_H

#include "model/model.h"
#include "util/opts.h"

struct workload_opts {
	/* how the command uses them: set in its initialiser */
	const char *cmd;           /* "estimate": messages read "gpuscope estimate: ..." */
	const char *default_model; /* with neither --model nor a dimension flag; NULL: a usage
				     * error that points at --list-models */
	const char *model_hint;    /* the other way to name a model: "use --model" */

	/* the flags; 0 or NULL when not given */
	const char *model, *task, *optimizer;
	long layers, hidden, heads, kv_heads, ffn_hidden, vocab, experts, experts_active;
	long seq_len, global_batch, lora_rank, prompt_len;
	long output_len; /* -1 when not given (the initialiser sets it): 0 is a value */
	double tokens, samples, epochs;
	/* how memory is held (WORKLOAD_OPT_MEMORY) */
	const char *master, *lora_targets, *logits, *tie_embeddings;
	const char *mlm_head;         /* an encoder's masked-LM head: masked|all */
	const char *autocast;         /* eager torch.autocast over fp32 weights: on|off */
	const char *weight_precision; /* stored weights: a served model's or a LoRA base's */
	const char *channels_last;    /* 3D convolutions on NDHWC tensors: on|off */
	const char *quant_kernel;     /* the kernel that runs quantised linears at inference */
	int optimizer_in_backward, activation_offload;
	double host_memory_gib; /* per server; 0 not given */
};

/* Entries whose help text says the command's own default. */
#define WORKLOAD_OPT_MODEL(o, help) OPT_STRING_("model", &(o).model, "NAME|FILE", help)
#define WORKLOAD_OPT_TASK(o, help) OPT_STRING_("task", &(o).task, "TASK", help)
#define WORKLOAD_OPT_OPTIMIZER(o, help) OPT_STRING_("optimizer", &(o).optimizer, "NAME", help)
#define WORKLOAD_OPT_GLOBAL_BATCH(o, help) OPT_INT_("global-batch", &(o).global_batch, "N", help, 1, 100000000)
#define WORKLOAD_OPT_TOKENS(o, help) OPT_DOUBLE_("tokens", &(o).tokens, "N", help, 1, 1e18)
#define WORKLOAD_OPT_SAMPLES(o, help) OPT_DOUBLE_("samples", &(o).samples, "N", help, 1, 1e18)

/*
 * --task and --optimizer as names the option parser checks (OPT_ENUM_): v is
 * an int * that keeps its value (MODEL_UNSET, say) when the flag is not given.
 */
#define WORKLOAD_TASK_NAMES "pretrain, finetune, lora, qlora, infer"
#define WORKLOAD_OPTIMIZER_NAMES \
	"adamw, adamw-bf16, adamw8bit, paged-adamw, paged-adamw8bit, adafactor, sgd-momentum, sgd"
#define WORKLOAD_OPT_TASK_ENUM(v, help) \
	OPT_ENUM_("task", v, "TASK", help, model_task_from_name, WORKLOAD_TASK_NAMES)
#define WORKLOAD_OPT_OPTIMIZER_ENUM(v, help) \
	OPT_ENUM_("optimizer", v, "NAME", help, model_optimizer_from_name, WORKLOAD_OPTIMIZER_NAMES)

/* Entries alike in every command. */
#define WORKLOAD_OPT_DIMS(o) \
	OPT_INT_("layers", &(o).layers, "N", "transformer layers (overrides the preset)", 1, 100000), \
		OPT_INT_("hidden", &(o).hidden, "N", "hidden size", 1, 10000000), \
		OPT_INT_("heads", &(o).heads, "N", "attention heads", 1, 1000000), \
		OPT_INT_("kv-heads", &(o).kv_heads, "N", "key/value heads (grouped-query attention)", 1, \
			 1000000), \
		OPT_INT_("ffn-hidden", &(o).ffn_hidden, "N", "MLP width", 1, 10000000), \
		OPT_INT_("vocab", &(o).vocab, "N", "vocabulary size", 1, 100000000), \
		OPT_INT_("experts", &(o).experts, "N", "mixture-of-experts: experts per layer", 1, 100000), \
		OPT_INT_("experts-active", &(o).experts_active, "N", "mixture-of-experts: experts per token", 1, \
			 100000)
#define WORKLOAD_OPT_SEQ_LEN(o) OPT_INT_("seq-len", &(o).seq_len, "N", "tokens per sample", 1, 10000000)
#define WORKLOAD_OPT_LORA_RANK(o) OPT_INT_("lora-rank", &(o).lora_rank, "R", "LoRA rank (default 16)", 1, 65536)
#define WORKLOAD_OPT_PROMPT_LEN(o) OPT_INT_("prompt-len", &(o).prompt_len, "N", "prompt tokens", 1, 10000000)
#define WORKLOAD_OPT_OUTPUT_LEN(o) \
	OPT_INT_("output-len", &(o).output_len, "N", "generated tokens (0: the prompt's forward pass only)", 0, \
		 10000000)
#define WORKLOAD_OPT_MEMORY(o) \
	OPT_STRING_("master-weights", &(o).master, "fp32|none", \
		    "fp32 master weights, or none (pure 16-bit training)"), \
		OPT_FLAG_("optimizer-in-backward", &(o).optimizer_in_backward, \
			  "apply and free each gradient during backward"), \
		OPT_FLAG_("activation-offload", &(o).activation_offload, \
			  "hold activations in host memory until backward"), \
		OPT_POSITIVE_("host-memory", &(o).host_memory_gib, "GIB", \
			      "host memory per server (needed by offload)", 0, 1e7), \
		OPT_STRING_("lora-targets", &(o).lora_targets, "SET", \
			    "LoRA on qv, qkv, qkvo, attn+mlp (default) or all"), \
		OPT_STRING_("logits", &(o).logits, "HOW", \
			    "logits for the loss: fp32 (default), bf16 or chunked"), \
		OPT_STRING_("mlm-head", &(o).mlm_head, "masked|all", \
			    "encoder pre-training: MLM head on the masked positions (default) or all"), \
		OPT_STRING_("autocast", &(o).autocast, "on|off", \
			    "eager fp16/bf16 training under torch.autocast: fp32 norms, residuals, softmax"), \
		OPT_STRING_("tie-embeddings", &(o).tie_embeddings, "on|off", \
			    "output head shares the input embedding"), \
		OPT_STRING_("weight-precision", &(o).weight_precision, "P", \
			    "stored weights: bf16, fp16, fp8, int8, int4, nf4, nvfp4 or mxfp4 (weight-only; a " \
			    "LoRA/QLoRA base)"), \
		OPT_STRING_( \
			"channels-last", &(o).channels_last, "on|off", \
			"3D convolutions on channels_last_3d (NDHWC) tensors (default: on under a compiler)"), \
		OPT_STRING_("quant-kernel", &(o).quant_kernel, "K", \
			    "kernel of quantised weights at inference: bnb-nf4, bnb-int8, awq-gemv, awq-gemm, " \
			    "exllama, gptq-cuda-old, exllamav2, marlin, none ... (data/quant/kernels.csv)")
#define WORKLOAD_OPT_EPOCHS(o) OPT_POSITIVE_("epochs", &(o).epochs, "E", "epochs over --samples", 0, 1e9)

/*
 * Fills *w from --model (else o->default_model): a preset name or a
 * config.json.  The dimension flags either describe a transformer on their
 * own (--layers, --hidden, --heads and --vocab at least; --ffn-hidden
 * defaults to 4 x hidden, --seq-len to 2048) or change a preset's shape.
 * Dies with exit 2 and a message naming the flag when the workload cannot
 * be built.
 */
void workload_opts_load(const struct workload_opts *o, struct workload *w);

/*
 * Copies --seq-len, --global-batch, --lora-rank, --prompt-len, --output-len,
 * --tokens, --samples, --epochs and the memory settings (--weight-precision
 * among them) into *c; 0 leaves the choice to
 * model_config_complete() or the planner.
 */
void workload_opts_apply(const struct workload_opts *o, struct model_config *c);

/* The same flags into a request for model_resolve(); what was not given stays MODEL_UNSET. */
void workload_opts_request(const struct workload_opts *o, struct model_request *q);

#endif
