/*
 * The estimate's field tables (model/fields.h).  Each line is one JSON key:
 * its name, type, unit, meaning, the expression that reads it and when it
 * is shown; the order of the lines is the order of the keys in
 * `gpuscope estimate --json`, which is part of the interface.
 *
 * The last column says when a field belongs to an answer: ALWAYS;
 * ONLY_IF(cond), else it is absent from the object (a transformer's shape
 * for a per-sample workload); NULL_UNLESS(cond), else it is there as null
 * (time to train without an amount of work).  The expression is read only
 * when the field has a value.
 */
#include "model/fields.h"
#include "model/model_int.h"
#include "model/quant.h"

#include <math.h>

enum {
	SHOWN_NOT,
	SHOWN_VALUE,
	SHOWN_NULL
};
#define ALWAYS SHOWN_VALUE
#define ONLY_IF(cond) ((cond) ? SHOWN_VALUE : SHOWN_NOT)
#define NULL_UNLESS(cond) ((cond) ? SHOWN_VALUE : SHOWN_NULL)

#define TRANSFORMER ONLY_IF(w->kind == WORKLOAD_TRANSFORMER)
#define INFER ONLY_IF(c->task == MODEL_TASK_INFER)
/* a network of 3D convolutions (unet3d) */
#define VOLUMES (w->kind == WORKLOAD_PER_SAMPLE && w->s.input_dims == 3)
/* A text the answer owns, read as a field: NULL (not filled) is "", as an empty text. */
#define TEXT_OF(s) ((s) ? (s) : "")

#define WORKLOAD_FIELDS(F) \
	F(name, TEXT, NULL, "preset name, config.json name, or \"transformer\" for dimension flags", w->name, \
	  ALWAYS) \
	F(kind, TEXT, NULL, "transformer or per-sample", \
	  w->kind == WORKLOAD_TRANSFORMER ? "transformer" : "per-sample", ALWAYS) \
	F(sample_unit, TEXT, NULL, "what one sample is: sequences, images, volumes, graphs ...", w->sample_unit, \
	  ALWAYS) \
	F(params, NUM, "parameters", "parameters in all", w->params, ALWAYS) \
	F(params_active, NUM, "parameters", "parameters used per token (mixture of experts: the top-k)", \
	  w->params_active, ALWAYS) \
	F(layers, INT, NULL, "transformer blocks", w->d.layers, TRANSFORMER) \
	F(hidden, INT, NULL, "model width", w->d.hidden, TRANSFORMER) \
	F(heads, INT, NULL, "attention (query) heads", w->d.heads, TRANSFORMER) \
	F(kv_heads, INT, NULL, "key/value heads (grouped-query attention)", w->d.kv_heads, TRANSFORMER) \
	F(ffn_hidden, INT, NULL, "MLP width (per expert)", w->d.ffn_hidden, TRANSFORMER) \
	F(vocab, INT, NULL, "vocabulary", w->d.vocab, TRANSFORMER) \
	F(experts, INT, NULL, "mixture-of-experts experts per layer; 0 or 1 dense", w->d.experts, TRANSFORMER) \
	F(experts_active, INT, NULL, "experts per token", w->d.experts_active, TRANSFORMER) \
	F(fwd_flops_per_sample, NUM, "FLOP", "per-sample workloads: forward FLOPs of one sample", w->s.fwd_flops, \
	  ONLY_IF(w->kind != WORKLOAD_TRANSFORMER))

#define CONFIG_FIELDS(F) \
	F(task, TEXT, NULL, "pretrain, finetune, lora, qlora or infer", model_task_name(c->task), ALWAYS) \
	F(gpu, TEXT, NULL, "gpus.csv key", c->gpu->row.key, ALWAYS) \
	F(gpus, INT, NULL, "GPUs in the job: tp x cp x pp x dp", c->gpus, ALWAYS) \
	F(gpus_per_node, INT, NULL, "GPUs per server", c->gpus_per_node, ALWAYS) \
	F(intra_link, TEXT, NULL, "how a server's GPUs talk: none, pcie, nvlink, nvswitch", \
	  model_link_name(c->intra_kind), ALWAYS) \
	F(intra_gbps, NUM, "GB/s", "per GPU per direction inside a server", c->intra_gbps, ALWAYS) \
	F(inter_gbps_per_gpu, NUM, "GB/s", "scale-out per GPU per direction; 0 none", c->inter_gbps_per_gpu, \
	  ALWAYS) \
	F(precision, TEXT, NULL, "compute precision: fp32, tf32, fp16, bf16, fp8, nvfp4, mxfp4", \
	  model_precision_name(c->precision), ALWAYS) \
	F(tp, INT, NULL, "tensor-parallel degree", c->tp, ALWAYS) \
	F(pp, INT, NULL, "pipeline-parallel degree", c->pp, ALWAYS) \
	F(dp, INT, NULL, "data-parallel degree (replicas)", c->dp, ALWAYS) \
	F(ep, INT, NULL, "expert-parallel degree, within data parallelism", c->ep, ALWAYS) \
	F(vpp, INT, NULL, "interleaved pipeline stages per GPU", c->vpp, ALWAYS) \
	F(cp, INT, NULL, "context-parallel degree: GPUs one sequence is split over", c->cp, ALWAYS) \
	F(zero, INT, NULL, "ZeRO stage, 0-3", c->zero, ALWAYS) \
	F(hsdp, INT, NULL, "ZeRO-3 hybrid shard group, ranks; 0 full shard", c->hsdp, ONLY_IF(c->zero >= 3)) \
	F(reshard_after_forward, BOOL, NULL, "ZeRO-3: gathered weights freed after forward", \
	  c->reshard_after_forward, ONLY_IF(c->zero >= 3)) \
	F(zero3_impl, TEXT, NULL, "ZeRO-3 implementation: fsdp, deepspeed-2021", \
	  model_zero3_impl_name(c->zero3_impl), ONLY_IF(c->zero >= 3)) \
	F(comm_overlap, TEXT, NULL, "communication hidden behind compute: grad, grad+param, grad+param+tp", \
	  model_overlap_name(c->overlap), ONLY_IF(c->task != MODEL_TASK_INFER)) \
	F(fp8_saved_weights, BOOL, NULL, "torchao float8: fp8 weights kept for backward", c->fp8_saved_weights, \
	  ONLY_IF(c->precision == MODEL_FP8 && c->engine == MODEL_ENGINE_COMPILE)) \
	F(mlm_head, TEXT, NULL, "encoder masked-LM pre-training: output layer on the masked positions or all", \
	  model_mlm_head_name(c->mlm_head), ONLY_IF(mlm_pretrain(w, c))) \
	F(autocast, BOOL, NULL, "eager torch.autocast: fp32 norms, residual stream and softmax, 16-bit matmuls", \
	  c->autocast, ONLY_IF(autocast_applies(c))) \
	F(recompute, TEXT, NULL, "activation recompute: none, selective, selective-op, full", \
	  model_recompute_name(c->recompute), ALWAYS) \
	F(seq_parallel, BOOL, NULL, "sequence parallelism", c->seq_parallel, ALWAYS) \
	F(flash_attention, BOOL, NULL, "fused (flash) attention", c->flash, ALWAYS) \
	F(micro_batch, INT, NULL, "samples per micro-batch", c->micro_batch, ALWAYS) \
	F(global_batch, INT, NULL, "samples per optimizer step, all replicas", c->global_batch, ALWAYS) \
	F(seq_len, INT, NULL, "tokens per sample", c->seq_len, ALWAYS) \
	F(optimizer, TEXT, NULL, "adamw, adamw8bit, sgd ...", model_optimizer_name(c->optimizer), ALWAYS) \
	F(offload, TEXT, NULL, "none, optimizer or optimizer+params (to host memory)", \
	  model_offload_name(c->offload), ALWAYS) \
	F(lora_rank, INT, NULL, "LoRA and QLoRA: adapter rank", c->lora_rank, \
	  ONLY_IF(c->task == MODEL_TASK_LORA || c->task == MODEL_TASK_QLORA)) \
	F(batch, INT, NULL, "inference: concurrent requests (served: the concurrency)", c->batch, INFER) \
	F(prompt_len, INT, NULL, "inference: prompt tokens", c->prompt_len, INFER) \
	F(output_len, INT, NULL, "inference: generated tokens", c->output_len, INFER) \
	F(kv_cache_precision, TEXT, NULL, "inference: KV-cache precision", model_precision_name(c->kv_precision), \
	  INFER) \
	F(cuda_graphs, BOOL, NULL, "inference: forward passes captured as CUDA Graphs", c->cuda_graphs, INFER) \
	F(weight_precision, TEXT, NULL, \
	  "inference: precision of the stored weights, block scales included in their size", \
	  model_precision_name(c->weight_precision >= 0 ? (enum model_precision)c->weight_precision : \
							  c->precision), \
	  INFER) \
	F(quant_kernel, TEXT, NULL, \
	  "inference: the kernel that runs the quantised linear layers (data/quant/kernels.csv), or none", \
	  model_quant_kernel_at(c->quant_kernel) ? model_quant_kernel_at(c->quant_kernel)->name : "none", INFER) \
	F(engine, TEXT, NULL, "eager, hf, compile, cudagraphs, tensorrt, trtllm, vllm, sglang, lmdeploy or tgi", \
	  model_engine_name(c->engine), ALWAYS) \
	F(mig, INT, NULL, "compute slices of the MIG instance; 0 the whole GPU", c->mig, ALWAYS) \
	F(channels_last, BOOL, NULL, "3D convolutions on channels_last_3d (NDHWC) tensors", \
	  model_channels_last(c), ONLY_IF(VOLUMES)) \
	F(conv3d, TEXT, NULL, "the 3D convolutions' kernels: current (cuDNN 8.0.2 on) or legacy", \
	  model_conv3d_name(c->conv3d_legacy), ONLY_IF(VOLUMES)) \
	F(cudnn_benchmark, BOOL, NULL, "cudnn.benchmark picks each convolution's algorithm", c->cudnn_benchmark, \
	  ONLY_IF(w->kind == WORKLOAD_PER_SAMPLE)) \
	F(input_elems, NUM, "elements", "--input-shape: elements of one input", c->input_elems, \
	  ONLY_IF(c->input_elems > 0))

#define MEMORY_FIELDS(F) \
	F(weights_bytes, NUM, "bytes", "working weights (LoRA: the frozen base; QLoRA: 4-bit)", m->weights_bytes, \
	  ALWAYS) \
	F(gradients_bytes, NUM, "bytes", "gradients", m->gradients_bytes, ALWAYS) \
	F(optimizer_bytes, NUM, "bytes", "optimizer states and fp32 master weights", m->optimizer_bytes, ALWAYS) \
	F(activations_bytes, NUM, "bytes", "activations stored for backward, all micro-batches in flight", \
	  m->activations_bytes, ALWAYS) \
	F(activations_layer_bytes, NUM, "bytes", "activations of one layer, one micro-batch", \
	  m->activations_layer_bytes, ALWAYS) \
	F(microbatches_in_flight, INT, NULL, "micro-batches whose activations are held at once", \
	  m->microbatches_in_flight, ALWAYS) \
	F(logits_bytes, NUM, "bytes", "output layer and loss buffers", m->logits_bytes, ALWAYS) \
	F(lora_bytes, NUM, "bytes", "LoRA adapters with their gradients and optimizer", m->lora_bytes, ALWAYS) \
	F(kv_cache_bytes, NUM, "bytes", "inference: KV cache", m->kv_cache_bytes, ALWAYS) \
	F(buffers_bytes, NUM, "bytes", "ZeRO gather buffers, communication buckets, workspaces", \
	  m->buffers_bytes, ALWAYS) \
	F(allocated_bytes, NUM, "bytes", "the terms above: torch.cuda.max_memory_allocated", m->allocated_bytes, \
	  ALWAYS) \
	F(reserve_bytes, NUM, "bytes", "caching allocator fragmentation", m->reserve_bytes, ALWAYS) \
	F(reserved_bytes, NUM, "bytes", "allocated + reserve: torch.cuda.max_memory_reserved", m->reserved_bytes, \
	  ALWAYS) \
	F(paged_bytes, NUM, "bytes", "paged optimizer states in unified memory", m->paged_bytes, ALWAYS) \
	F(device_bytes, NUM, "bytes", "the device's used memory as nvidia-smi shows it (= total_bytes)", \
	  m->total_bytes, ALWAYS) \
	F(context_bytes, NUM, "bytes", "CUDA context, library handles, NCCL", m->context_bytes, ALWAYS) \
	F(total_bytes, NUM, "bytes", "reserved + paged + context", m->total_bytes, ALWAYS) \
	F(capacity_bytes, NUM, "bytes", "the GPU's (or MIG instance's) memory", m->capacity_bytes, ALWAYS) \
	F(host_bytes, NUM, "bytes", "offloaded to host memory, per GPU", m->host_bytes, ALWAYS) \
	F(host_fits, BOOL, NULL, \
	  "the offloaded state of a server's GPUs fits its host memory; null when unknown", \
	  model_host_fits(m, c, a->host_gib), NULL_UNLESS(a->host_gib > 0)) \
	F(fits, BOOL, NULL, "total_bytes <= capacity_bytes", m->fits, ALWAYS) \
	F(max_micro_batch, INT, NULL, "training: the largest micro-batch that fits (0: none)", \
	  a->max_micro_batch, ONLY_IF(c->task != MODEL_TASK_INFER))

#define TIME_FIELDS(F) \
	F(step_s, NUM, "s", "one optimizer step", t->step_s, ALWAYS) \
	F(compute_s, NUM, "s", "busy GPU time: gemm + attention + memory-bound + recompute", t->compute_s, \
	  ALWAYS) \
	F(gemm_s, NUM, "s", "matrix multiplies, forward and backward", t->gemm_s, ALWAYS) \
	F(attention_s, NUM, "s", "attention scores and softmax", t->attention_s, ALWAYS) \
	F(memory_bound_s, NUM, "s", "normalisation, activations, elementwise kernels", t->memory_bound_s, ALWAYS) \
	F(recompute_s, NUM, "s", "forward work repeated in backward", t->recompute_s, ALWAYS) \
	F(optimizer_s, NUM, "s", "optimizer update", t->optimizer_s, ALWAYS) \
	F(tp_comm_s, NUM, "s", "tensor-parallel collectives", t->tp_comm_s, ALWAYS) \
	F(ep_comm_s, NUM, "s", "expert-parallel all-to-all", t->ep_comm_s, ALWAYS) \
	F(cp_comm_s, NUM, "s", "context-parallel K/V ring, the part attention does not hide", t->cp_comm_s, \
	  ALWAYS) \
	F(pp_bubble_s, NUM, "s", "pipeline fill and drain", t->pp_bubble_s, ALWAYS) \
	F(pp_p2p_s, NUM, "s", "pipeline sends between stages", t->pp_p2p_s, ALWAYS) \
	F(dp_comm_s, NUM, "s", "gradient sync, exposed part", t->dp_comm_s, ALWAYS) \
	F(dp_comm_total_s, NUM, "s", "gradient sync, whole", t->dp_comm_total_s, ALWAYS) \
	F(zero_comm_s, NUM, "s", "ZeRO-3 parameter gathers, exposed part", t->zero_comm_s, ALWAYS) \
	F(offload_s, NUM, "s", "host transfers and CPU optimizer, exposed part", t->offload_s, ALWAYS) \
	F(data_s, NUM, "s", "data loading, exposed part", t->data_s, ALWAYS) \
	F(overhead_s, NUM, "s", "kernel launches and framework overhead", t->overhead_s, ALWAYS) \
	F(straggler_s, NUM, "s", "waiting for the slowest server at the step's synchronisations", t->straggler_s, \
	  ALWAYS)

#define LATENCY_ASKED ONLY_IF(a->latency_batch >= 0)
#define INFERENCE_FIELDS(F) \
	F(first_token_s, NUM, "s", "prefill of the batch: time to first token (a forward pass)", in->prefill_s, \
	  ALWAYS) \
	F(token_s, NUM, "s", "one output token for the whole batch", in->decode_token_s, ALWAYS) \
	F(request_s, NUM, "s", "prefill + output_len decode steps", in->request_s, ALWAYS) \
	F(decode_weights_bytes, NUM, "bytes", "weights read per decode step", in->decode_weights_bytes, ALWAYS) \
	F(decode_kv_bytes, NUM, "bytes", "KV cache read per decode step (average over the output)", \
	  in->decode_kv_bytes, ALWAYS) \
	F(launch_s, NUM, "s", "kernel launch time per forward pass", in->launch_s, ALWAYS) \
	F(latency_target_s, NUM, "s", "--latency-target", a->latency_target_s, LATENCY_ASKED) \
	F(batch_for_latency, INT, NULL, "the largest batch within it under dynamic batching; 0 none", \
	  a->latency_batch, LATENCY_ASKED)

#define SERVING_FIELDS(F) \
	F(concurrency, INT, NULL, "sequences decoded together", sv->concurrency, ALWAYS) \
	F(bound, TEXT, NULL, "what set it: kv-cache, max-seqs, batch or target", sv->bound, ALWAYS) \
	F(kv_limit, INT, NULL, "sequences the KV cache holds", sv->kv_limit, ALWAYS) \
	F(weights_bytes, NUM, "bytes", "weights per GPU", sv->weights_bytes, ALWAYS) \
	F(workspace_bytes, NUM, "bytes", "per GPU: a prefill chunk's activations, graphs, context", \
	  sv->workspace_bytes, ALWAYS) \
	F(kv_budget_bytes, NUM, "bytes", "KV cache per GPU", sv->kv_budget_bytes, ALWAYS) \
	F(kv_bytes_per_token, NUM, "bytes", "KV cache per token per GPU", sv->kv_bytes_per_token, ALWAYS) \
	F(ttft_s, NUM, "s", "time to first token", sv->ttft_s, ALWAYS) \
	F(tpot_s, NUM, "s", "time per output token, prefill interference included", sv->tpot_s, ALWAYS) \
	F(request_s, NUM, "s", "one request end to end", sv->request_s, ALWAYS) \
	F(tokens_per_s, NUM, "tokens/s", "output tokens, all replicas", sv->tokens_per_s, ALWAYS) \
	F(requests_per_s, NUM, "requests/s", "all replicas", sv->requests_per_s, ALWAYS)

#define TTFT_TARGET NULL_UNLESS(a->ttft_target_s > 0)
#define RATE_FIELDS(F) \
	F(rate_per_s, NUM, "requests/s", "--rate, offered to all replicas", q->rate_per_s, ALWAYS) \
	F(replicas, INT, NULL, "replicas of tp x pp x cp GPUs", q->replicas, ALWAYS) \
	F(replicas_given, BOOL, NULL, "the replicas are the user's (--gpus or --dp), not sized to the rate", \
	  a->replicas_given, ALWAYS) \
	F(slots, INT, NULL, "requests one replica runs at once", q->slots, ALWAYS) \
	F(capacity_per_s, NUM, "requests/s", "what all replicas complete when always full", q->capacity_per_s, \
	  ALWAYS) \
	F(utilisation, NUM, "fraction", "share of the slots busy: rate / capacity", q->utilisation, ALWAYS) \
	F(wait_p99_s, NUM, "s", "p99 wait for a free slot", q->wait_p99_s, ALWAYS) \
	F(ttft_p99_s, NUM, "s", "p99 time to first token (latency for encoders): wait + service", q->ttft_p99_s, \
	  ALWAYS) \
	F(ttft_target_s, NUM, "s", "--ttft-target; null without one", a->ttft_target_s, TTFT_TARGET) \
	F(meets_ttft_target, BOOL, NULL, "ttft_p99_s <= ttft_target_s; null without a target", \
	  q->ttft_p99_s <= a->ttft_target_s, TTFT_TARGET)

#define SIM_TARGET(t) NULL_UNLESS((t) > 0)
#define SIMULATION_FIELDS(F) \
	F(engine_version, TEXT, NULL, "the engine release whose scheduler ran (data/serve/engines.csv)", \
	  sc->version, ALWAYS) \
	F(arrivals, TEXT, NULL, "--arrivals: poisson:RATE, burst:N, closed:N or a trace file", a->arrivals, \
	  ALWAYS) \
	F(max_seqs, INT, NULL, "running sequences at most", sc->max_seqs, ALWAYS) \
	F(max_batched_tokens, INT, NULL, "tokens one iteration processes at most", sc->max_batched_tokens, \
	  ALWAYS) \
	F(chunked_prefill, BOOL, NULL, "prompts in chunks beside decode (else whole, before it)", \
	  sc->chunked_prefill, ALWAYS) \
	F(preemption, TEXT, NULL, "a preempted sequence's cache: recompute or swap (to host memory and back)", \
	  sc->swap ? "swap" : "recompute", ALWAYS) \
	F(requests, INT, NULL, "requests simulated, one replica", sm->requests, ALWAYS) \
	F(makespan_s, NUM, "s", "first arrival to last completion", sm->makespan_s, ALWAYS) \
	F(ttft_p50_s, NUM, "s", "time to first token, median", sm->ttft.p50, ALWAYS) \
	F(ttft_p90_s, NUM, "s", "time to first token, p90", sm->ttft.p90, ALWAYS) \
	F(ttft_p99_s, NUM, "s", "time to first token, p99", sm->ttft.p99, ALWAYS) \
	F(tpot_p50_s, NUM, "s", "a request's mean time per output token after the first, median", sm->tpot.p50, \
	  ALWAYS) \
	F(tpot_p90_s, NUM, "s", "... p90", sm->tpot.p90, ALWAYS) \
	F(tpot_p99_s, NUM, "s", "... p99", sm->tpot.p99, ALWAYS) \
	F(e2e_p50_s, NUM, "s", "arrival to last token, median", sm->e2e.p50, ALWAYS) \
	F(e2e_p90_s, NUM, "s", "arrival to last token, p90", sm->e2e.p90, ALWAYS) \
	F(e2e_p99_s, NUM, "s", "arrival to last token, p99", sm->e2e.p99, ALWAYS) \
	F(tokens_per_s, NUM, "tokens/s", "output tokens over the makespan, one replica", sm->tokens_per_s, \
	  ALWAYS) \
	F(requests_per_s, NUM, "requests/s", "completed over the makespan, one replica", sm->requests_per_s, \
	  ALWAYS) \
	F(ttft_target_s, NUM, "s", "--ttft-target; null without one", a->ttft_target_s, \
	  SIM_TARGET(a->ttft_target_s)) \
	F(tpot_target_s, NUM, "s", "--tpot-target; null without one", a->tpot_target_s, \
	  SIM_TARGET(a->tpot_target_s)) \
	F(goodput, NUM, "fraction", "share of requests meeting both targets (1 without targets)", sm->goodput, \
	  ALWAYS) \
	F(goodput_per_s, NUM, "requests/s", "requests meeting both targets, over the makespan", \
	  sm->goodput_per_s, ALWAYS) \
	F(batch_mean, NUM, "sequences", "sequences per iteration, time-weighted", sm->batch_mean, ALWAYS) \
	F(batch_max, INT, NULL, "the most sequences in one iteration", sm->batch_max, ALWAYS) \
	F(queue_mean, NUM, "requests", "waiting requests, time-weighted", sm->queue_mean, ALWAYS) \
	F(queue_max, INT, NULL, "the most waiting at once", sm->queue_max, ALWAYS) \
	F(kv_use_mean, NUM, "fraction", "share of KV-cache blocks held, time-weighted", sm->kv_use_mean, ALWAYS) \
	F(kv_use_max, NUM, "fraction", "the most held at once", sm->kv_use_max, ALWAYS) \
	F(kv_blocks, INT, NULL, "KV-cache blocks, one replica", sm->kv_blocks, ALWAYS) \
	F(iterations, INT, NULL, "engine iterations run", sm->iterations, ALWAYS) \
	F(preemptions, INT, NULL, "sequences preempted for cache room (recomputed)", sm->preemptions, ALWAYS)

#define THROUGHPUT_FIELDS(F) \
	F(tokens_per_s, NUM, "tokens/s", "whole job: tokens trained, or generated; null for image workloads", \
	  r->tokens_per_s, NULL_UNLESS(r->tokens_per_s > 0)) \
	F(samples_per_s, NUM, "samples/s", "whole job, in the workload's sample_unit", r->samples_per_s, ALWAYS) \
	F(data_samples_per_s, NUM, "samples/s", "what the data loader supplies, whole job; 0 no loading", \
	  r->data_samples_per_s, ALWAYS) \
	F(data_cores_per_gpu, NUM, "cores", "CPU cores per GPU the loader needs to keep up", \
	  r->data_cores_needed, ALWAYS) \
	F(cpu_cores_per_gpu, NUM, "cores", \
	  "the supply: --cpu-cores or the --server's cores per GPU; null unknown", c->cpu_cores_per_gpu, \
	  NULL_UNLESS(c->cpu_cores_per_gpu > 0))

#define SUMMARY_FIELDS(F) \
	F(mfu, NUM, "fraction", "model FLOPs utilisation: model FLOPs / (step time x GPUs x dense peak)", r->mfu, \
	  ALWAYS) \
	F(mfu_tflops_per_gpu, NUM, "TFLOP/s", "model FLOPs per GPU per second", r->mfu_tflops_per_gpu, ALWAYS) \
	F(hfu_tflops_per_gpu, NUM, "TFLOP/s", "hardware FLOPs per GPU per second (recomputation included)", \
	  r->hfu_tflops_per_gpu, ALWAYS) \
	F(peak_tflops, NUM, "TFLOP/s", "dense peak of one GPU at the precision", r->peak_tflops, ALWAYS) \
	F(model_flops_per_step, NUM, "FLOP", "6N per token + attention, all GPUs", r->model_flops_per_step, \
	  ALWAYS) \
	F(time_to_train_s, NUM, "s", "for --tokens or --samples x --epochs; null without them", \
	  r->time_to_train_s, NULL_UNLESS(r->time_to_train_s > 0)) \
	F(train_steps, NUM, "steps", "optimizer steps of that run; null without it", r->train_steps, \
	  NULL_UNLESS(r->train_steps > 0)) \
	F(energy_kwh, NUM, "kWh", "GPUs only, over energy_basis", r->energy_kwh, ALWAYS) \
	F(energy_basis, TEXT, NULL, "time_to_train, or one_hour without an amount of work", \
	  r->time_to_train_s > 0 ? "time_to_train" : "one_hour", ALWAYS) \
	F(power_w_per_gpu, NUM, "W", "average draw of one GPU", r->power_w, ALWAYS)

#define ADVICE_FIELDS(F) \
	F(change, TEXT, NULL, "the change, in words", TEXT_OF(adv->what), ALWAYS) \
	F(flags, TEXT, NULL, "the estimate flags that ask for it", TEXT_OF(adv->flags), ALWAYS) \
	F(step_s, NUM, "s", "step time (inference: request latency) with the change", adv->step_s, ALWAYS) \
	F(total_bytes, NUM, "bytes", "memory per GPU with the change", adv->total_bytes, ALWAYS) \
	F(speedup, NUM, "ratio", "old step time / new; below 1 slower", adv->speedup, ALWAYS) \
	F(fits, BOOL, NULL, "the configuration fits with the change", adv->fits, ALWAYS)

#define DECL(name, type, unit, help, expr, shown) REPORT_FIELD_DECL(name, type, unit, help, expr)
/* one field into row: its bit in `shown` when it belongs; its value unless absent or null */
#define FILL(name, type, unit, help, expr, when) \
	do { \
		int s_ = (when); \
		if (s_ != SHOWN_NOT) \
			shown |= (uint64_t)1 << i; \
		if (s_ == SHOWN_VALUE) { \
			REPORT_FIELD_SET(name, type, unit, help, expr) \
		} else { \
			i++; \
		} \
	} while (0);

#define SCHEMA(var, sname, list) \
	static const struct report_field var##_fields[] = {list(DECL)}; \
	static const struct report_schema var##_schema = REPORT_SCHEMA(sname, var##_fields); \
	_Static_assert(sizeof(var##_fields) / sizeof(var##_fields[0]) <= 64, "one bit per field in a uint64_t");

SCHEMA(workload, "estimate-workload", WORKLOAD_FIELDS)
SCHEMA(config, "estimate-config", CONFIG_FIELDS)
SCHEMA(memory, "estimate-memory", MEMORY_FIELDS)
SCHEMA(time, "estimate-time", TIME_FIELDS)
SCHEMA(inference, "estimate-inference", INFERENCE_FIELDS)
SCHEMA(serving, "estimate-serving", SERVING_FIELDS)
SCHEMA(rate, "estimate-rate", RATE_FIELDS)
SCHEMA(simulation, "estimate-simulation", SIMULATION_FIELDS)
SCHEMA(throughput, "estimate-throughput", THROUGHPUT_FIELDS)
SCHEMA(summary, "estimate", SUMMARY_FIELDS)
SCHEMA(advice, "estimate-advice", ADVICE_FIELDS)

const struct report_schema *model_estimate_schema(enum model_estimate_part part)
{
	static const struct report_schema *const all[MODEL_EST_PART_COUNT] = {
		[MODEL_EST_WORKLOAD] = &workload_schema,
		[MODEL_EST_CONFIG] = &config_schema,
		[MODEL_EST_MEMORY] = &memory_schema,
		[MODEL_EST_TIME] = &time_schema,
		[MODEL_EST_INFERENCE] = &inference_schema,
		[MODEL_EST_SERVING] = &serving_schema,
		[MODEL_EST_RATE] = &rate_schema,
		[MODEL_EST_SIMULATION] = &simulation_schema,
		[MODEL_EST_THROUGHPUT] = &throughput_schema,
		[MODEL_EST_SUMMARY] = &summary_schema,
		[MODEL_EST_ADVICE] = &advice_schema,
	};
	return (unsigned)part < MODEL_EST_PART_COUNT ? all[part] : NULL;
}

/* Every list's expressions read these names. */
static uint64_t fill(enum model_estimate_part part, const struct model_answer *a, struct report_row *row)
{
	const struct workload *w = a->w;
	const struct model_config *c = a->c;
	const struct model_result *r = a->r;
	const struct model_memory *m = &r->mem;
	const struct model_time *t = &r->time;
	const struct model_infer *in = &r->infer;
	const struct model_serving *sv = a->sv;
	const struct model_queue *q = a->q;
	const struct servesim_result *sm = a->sim;
	const struct servesim_sched *sc = a->sched;
	uint64_t shown = 0;
	size_t i = 0;
	switch (part) {
	case MODEL_EST_WORKLOAD:
		WORKLOAD_FIELDS(FILL) break;
	case MODEL_EST_CONFIG:
		CONFIG_FIELDS(FILL) break;
	case MODEL_EST_MEMORY:
		MEMORY_FIELDS(FILL) break;
	case MODEL_EST_TIME:
		TIME_FIELDS(FILL) break;
	case MODEL_EST_INFERENCE:
		INFERENCE_FIELDS(FILL) break;
	case MODEL_EST_SERVING:
		SERVING_FIELDS(FILL) break;
	case MODEL_EST_RATE:
		RATE_FIELDS(FILL) break;
	case MODEL_EST_SIMULATION:
		SIMULATION_FIELDS(FILL) break;
	case MODEL_EST_THROUGHPUT:
		THROUGHPUT_FIELDS(FILL) break;
	case MODEL_EST_SUMMARY:
		SUMMARY_FIELDS(FILL) break;
	default:
		break;
	}
	return shown;
}

uint64_t model_estimate_row(enum model_estimate_part part, const struct model_answer *a, struct report_row *row)
{
	/* the serving and rate parts read answers that only some estimates have */
	if ((part == MODEL_EST_SERVING && !a->sv) || (part == MODEL_EST_RATE && !a->q) ||
	    (part == MODEL_EST_SIMULATION && (!a->sim || !a->sched)) || part == MODEL_EST_ADVICE ||
	    (unsigned)part >= MODEL_EST_PART_COUNT)
		return 0;
	return fill(part, a, row);
}

void model_advice_row(const struct model_advice *adv, struct report_row *row)
{
	uint64_t shown = 0;
	size_t i = 0;
	ADVICE_FIELDS(FILL)
	(void)shown;
}

const char *model_limit_key(size_t i)
{
	/* in the order of the bits of enum model_limit */
	static const char *const keys[] = {"compute",      "memory_bandwidth", "communication",  "pipeline_bubble",
					   "data_loading", "kernel_launches",  "memory_capacity"};
	return i < sizeof(keys) / sizeof(keys[0]) ? keys[i] : NULL;
}

/* ---- the calibration in use (docs/bench.md, "The calibration in the output") ---- */

#define CALIBRATION_FIELDS(F) \
	F(file, TEXT, NULL, "the calibration file read (--calibration, or bench --save's default)", c->file) \
	F(gpu, TEXT, NULL, "the gpus.csv key whose ceilings it replaces; no other type's change", \
	  c->gpu ? c->gpu->row.key : NULL) \
	F(gpu_name, TEXT, NULL, "the measured GPU's own name", c->gpu_name) \
	F(date, TEXT, NULL, "when bench measured, ISO 8601 UTC", c->date)

#define CEILING_FIELDS(F) \
	F(ceiling, TEXT, NULL, "gemm-fp32, gemm-tf32, gemm-fp16, gemm-bf16, gemm-fp8 or hbm", e->name) \
	F(unit, TEXT, NULL, "TFLOP/s or GB/s: the unit of measured and catalog", e->unit) \
	F(measured, NUM, NULL, "what bench measured (GEMM: at its best shape), in unit", e->measured) \
	F(catalog, NUM, NULL, "what the catalog and model gave in its place (GEMM: at the same shape), in unit", \
	  e->catalog) \
	F(of_catalog, NUM, "fraction", "measured / catalog", e->measured / e->catalog) \
	F(time_factor, NUM, NULL, "catalog / measured: what the calibration multiplies such work's time by", \
	  e->catalog / e->measured)

REPORT_DEFINE(model_calibration_schema, model_calibration_row, "calibration", struct model_calibration, c,
	      CALIBRATION_FIELDS)
REPORT_DEFINE(model_ceiling_schema, model_ceiling_row, "calibration-ceiling", struct model_ceiling, e,
	      CEILING_FIELDS)
