/*
 * The field tables of plan's results (report/field.h): each field of a
 * choice, of the workload, request and search lines, of the closest fit and
 * of the explanation is declared once here, and report/ writes the JSON
 * objects, the CSV rows and the field lists of docs/plan.md from them.
 * Names are the JSON keys and CSV columns: part of the interface, never
 * renamed.  Numbers are in base units: seconds, bytes, USD, GB/s a
 * direction, fractions 0-1 unless the unit says "%".
 */
#include "plan/fields.h"

#include <math.h>
#include <stdio.h>

#include "model/serving.h"

/* Longest `gpuscope estimate` line a choice prints (plan_estimate_args()). */
#define ARGS_LEN 2048
/* The layout code and the network name are short: "t2p4v2d8e8 z1 rs oo m2 fp8", a link key. */
#define NAME_LEN 96
/* A text the explanation owns, read as a field: NULL (not filled) is "", as an empty text. */
#define TEXT_OF(s) ((s) ? (s) : "")

/* The schema NAME of the fields FIELDS, and plan_FN_schema() that returns it. */
#define PLAN_SCHEMA(fn, name, FIELDS) \
	static const struct report_field fn##_fields[] = {FIELDS(REPORT_FIELD_DECL)}; \
	static const struct report_schema fn##_schema = REPORT_SCHEMA(name, fn##_fields); \
	const struct report_schema *plan_##fn##_schema(void) \
	{ \
		return &fn##_schema; \
	}

/*
 * PLAN_SCHEMA, and plan_FN_row(const TYPE *VAR, row) that fills a row from
 * one object, the FIELDS reading it as VAR.
 */
#define PLAN_ITEM_SCHEMA(fn, name, FIELDS, type, var) \
	PLAN_SCHEMA(fn, name, FIELDS) \
	void plan_##fn##_row(const type *var, struct report_row *row) \
	{ \
		size_t i = 0; \
		report_row_clear(row); \
		FIELDS(REPORT_FIELD_SET) \
	}

/* ---- a choice: the rows of "ranked", "front", "all" and of the CSV ---- */

/* The bill's lines beside servers, fabric and storage (cost/bom.h), and its running cost; null when rented. */
#define BOM_OF(x) (c->has_bom ? c->bom.x : NAN)
#define BOM_FIELDS(F) \
	F(bom_frontend_usd, NUM, "USD", "front-end and storage Ethernet: switches, optics, cables", \
	  BOM_OF(frontend.usd)) \
	F(bom_oob_usd, NUM, "USD", "out-of-band management switches, 1 GbE", BOM_OF(oob_usd)) \
	F(bom_power_distribution_usd, NUM, "USD", "rack PDUs on A and B feeds for the IT load", BOM_OF(pdu_usd)) \
	F(bom_install_usd, NUM, "USD", "installation and integration", BOM_OF(install_usd)) \
	F(bom_staff_engineers, NUM, "engineers", "operations engineers: GPUs / facility gpus_per_ops_engineer", \
	  BOM_OF(staff_engineers)) \
	F(bom_staff_usd_per_year, NUM, "USD/year", "the engineers at facility ops_engineer_usd_per_year", \
	  BOM_OF(staff_usd_per_year)) \
	F(bom_licence_usd_per_year, NUM, "USD/year", "software licences (--licence; 0: none)", \
	  BOM_OF(licence_usd_per_year))

/*
 * Context of the expressions: p, c (the choice), hw (its hardware), g (its
 * layout), m (memory), t (step time terms), q (inference: the queue of its
 * replicas; queued: q is filled), llm (q holds a transformer's queue), gen
 * (and the transformer generates tokens), reps (replicas, at least 1).
 */
#define PLAN_CHOICE_FIELDS(F) \
	F(rank, INT, NULL, "place in the ranked list, 1-based; 0 when not listed", (double)plan_rank_of(p, c)) \
	F(hardware, TEXT, NULL, "catalog server or instance key, or GPU/N/LINK for a generic build", hw->key) \
	F(hardware_kind, TEXT, NULL, "server, cloud or generic", hw_kinds[hw->kind]) \
	F(label, TEXT, NULL, "the short name of the tables", hw->label) \
	F(lifecycle, TEXT, NULL, \
	  "with --include-eol: eos (past its end of sale), sw (its GPU's architecture dropped by current CUDA " \
	  "or PyTorch) or eos+sw; null when current", \
	  hw->life ? cat_life_marks(hw->life) : NULL) \
	F(gpu, TEXT, NULL, "GPU key", hw->gpu->row.key) \
	F(nodes, INT, NULL, "servers", c->nodes) \
	F(gpus_per_node, INT, NULL, "GPUs at work in each server", hw->gpus_per_node) \
	F(gpus, INT, NULL, "GPUs at work in all (inference: all replicas)", c->gpus) \
	F(spare_gpus, INT, NULL, "GPUs bought but held as hot spares (nodes x the node's spares)", \
	  (double)c->nodes * hw->spare_per_node) \
	F(intra_link, TEXT, NULL, "link inside a node: none, pcie, nvlink, nvswitch", \
	  model_link_name(g->intra_kind)) \
	F(intra_gbps, NUM, "GB/s", "bandwidth of the link inside a node, a direction per GPU", g->intra_gbps) \
	F(network, TEXT, NULL, "scale-out fabric: none, a catalog link key, or the node's own", \
	  plan_network_name(p, c, report_scratch(row, NAME_LEN), NAME_LEN)) \
	F(inter_gbps_per_gpu, NUM, "GB/s", "bandwidth of the scale-out fabric, a direction per GPU", \
	  g->inter_gbps_per_gpu) \
	F(architecture, TEXT, NULL, "the decision-tree branch", plan_arch_name(plan_arch_of(p, c))) \
	F(layout, TEXT, NULL, "the layout code: t2p4v2d8 z1 rf m2 fp8 (see Output)", \
	  plan_layout_code(g, report_scratch(row, NAME_LEN), NAME_LEN)) \
	F(precision, TEXT, NULL, "number format of the layout", model_precision_name(g->precision)) \
	F(tp, INT, NULL, "tensor-parallel degree", g->tp) \
	F(pp, INT, NULL, "pipeline-parallel degree", g->pp) \
	F(vpp, INT, NULL, "virtual pipeline stages per GPU", g->vpp) \
	F(dp, INT, NULL, "data-parallel degree", g->dp) \
	F(ep, INT, NULL, "expert-parallel degree", g->ep) \
	F(zero, INT, NULL, "ZeRO stage", g->zero) \
	F(hsdp, INT, NULL, "ZeRO-3 hybrid shard group, ranks; 0 full shard", g->hsdp) \
	F(recompute, TEXT, NULL, "activation recompute mode", model_recompute_name(g->recompute)) \
	F(seq_parallel, BOOL, NULL, "sequence parallelism with tensor parallelism", g->seq_parallel) \
	F(micro_batch, INT, NULL, "samples per micro-batch", g->micro_batch) \
	F(global_batch, INT, NULL, "samples per optimizer step", g->global_batch) \
	F(loader, TEXT, NULL, "data loader", model_loader_name(g->loader)) \
	F(batch, INT, NULL, "inference: requests a replica runs at once (0 for training)", \
	  g->task == MODEL_TASK_INFER ? g->batch : 0) \
	F(replicas, INT, NULL, "inference: copies of the model serving the rate", c->replicas) \
	F(memory_total_bytes, NUM, "bytes", "memory per GPU; the memory terms sum to it", m->total_bytes) \
	F(memory_capacity_bytes, NUM, "bytes", "usable memory of the GPU", m->capacity_bytes) \
	F(memory_pct, NUM, "%", "memory per GPU in % of the usable capacity", \
	  100 * m->total_bytes / m->capacity_bytes) \
	F(weights_bytes, NUM, "bytes", "memory term: weights (docs/model.md)", m->weights_bytes) \
	F(gradients_bytes, NUM, "bytes", "memory term: gradients", m->gradients_bytes) \
	F(optimizer_bytes, NUM, "bytes", "memory term: optimizer state", m->optimizer_bytes) \
	F(activations_bytes, NUM, "bytes", "memory term: activations", m->activations_bytes) \
	F(logits_bytes, NUM, "bytes", "memory term: logits", m->logits_bytes) \
	F(lora_bytes, NUM, "bytes", "memory term: LoRA adapters and their state", m->lora_bytes) \
	F(kv_cache_bytes, NUM, "bytes", "memory term: KV cache", m->kv_cache_bytes) \
	F(buffers_bytes, NUM, "bytes", "memory term: communication and work buffers", m->buffers_bytes) \
	F(reserve_bytes, NUM, "bytes", "memory term: allocator reserve", m->reserve_bytes) \
	F(context_bytes, NUM, "bytes", "memory term: CUDA context", m->context_bytes) \
	F(microbatches_in_flight, INT, NULL, "micro-batches whose activations the first pipeline stage holds", \
	  m->microbatches_in_flight) \
	F(step_s, NUM, "s", "one optimizer step (inference: one request batch)", t->step_s) \
	F(compute_s, NUM, "s", "compute term of the step", t->compute_s) \
	F(gemm_s, NUM, "s", "compute term: matrix multiplications", t->gemm_s) \
	F(attention_s, NUM, "s", "compute term: attention", t->attention_s) \
	F(memory_bound_s, NUM, "s", "compute term: memory-bound kernels", t->memory_bound_s) \
	F(recompute_s, NUM, "s", "compute term: activation recompute", t->recompute_s) \
	F(optimizer_s, NUM, "s", "compute term: the optimizer update", t->optimizer_s) \
	F(tp_comm_s, NUM, "s", "exposed tensor-parallel communication", t->tp_comm_s) \
	F(ep_comm_s, NUM, "s", "exposed expert-parallel all-to-all", t->ep_comm_s) \
	F(pp_bubble_s, NUM, "s", "pipeline bubble", t->pp_bubble_s) \
	F(pp_p2p_s, NUM, "s", "exposed pipeline sends and receives", t->pp_p2p_s) \
	F(dp_comm_s, NUM, "s", "exposed gradient collective", t->dp_comm_s) \
	F(dp_comm_total_s, NUM, "s", "the whole gradient collective, hidden or not", t->dp_comm_total_s) \
	F(zero_comm_s, NUM, "s", "exposed ZeRO parameter gathers", t->zero_comm_s) \
	F(data_s, NUM, "s", "exposed data loading", t->data_s) \
	F(overhead_s, NUM, "s", "launch and framework overhead", t->overhead_s) \
	F(tokens_per_s, NUM, "tokens/s", "throughput of the whole job (inference: all replicas)", \
	  reps * c->res.tokens_per_s) \
	F(samples_per_s, NUM, "samples/s", "throughput of the whole job (inference: all replicas)", \
	  reps * c->res.samples_per_s) \
	F(mfu, NUM, "fraction", "model FLOPs utilisation", c->res.mfu) \
	F(mfu_tflops_per_gpu, NUM, "TFLOP/s", "achieved model TFLOP/s per GPU", c->res.mfu_tflops_per_gpu) \
	F(hfu_tflops_per_gpu, NUM, "TFLOP/s", "achieved hardware TFLOP/s per GPU (recompute included)", \
	  c->res.hfu_tflops_per_gpu) \
	F(peak_tflops, NUM, "TFLOP/s", "dense peak of the GPU at the precision", c->res.peak_tflops) \
	F(latency_s, NUM, "s", "inference: one request's latency (0 for training)", c->latency_s) \
	F(ttft_p99_s, NUM, "s", \
	  "inference of a transformer: p99 time to first token of a replica at its share of --rate (an " \
	  "encoder's: to its answer), the wait for a free batch slot included (Erlang C; under a serving " \
	  "engine the simulated replica's, which estimate_args reruns); null otherwise", \
	  llm ? q.ttft_p99_s : NAN) \
	F(tpot_s, NUM, "s", \
	  "inference of a decoder: time per output token, the figure --tpot-target is held to (one decode " \
	  "step of the batch; under a serving engine the simulated replica's p99); null otherwise, an " \
	  "encoder's included: it produces no output tokens", \
	  gen ? c->res.infer.decode_token_s : NAN) \
	F(utilisation, NUM, "fraction", \
	  "inference: share of the replicas' batch slots the rate keeps busy, rate x request time / " \
	  "(replicas x batch); null for training", \
	  infer ? q.utilisation : NAN) \
	F(capacity_per_s, NUM, "requests/s", \
	  "inference: requests/s the replicas complete with every batch slot busy, replicas x batch / " \
	  "request time; null for training", \
	  queued ? q.capacity_per_s : NAN) \
	F(time_to_finish_s, NUM, "s", \
	  "the run: train_steps steps, checkpoints and interruptions added (inference: 0)", \
	  infer ? 0 : c->hours * 3600) \
	F(train_steps, NUM, NULL, "optimizer steps of the run, whole and at least one (inference: 0)", \
	  infer ? 0 : c->res.train_steps) \
	F(hours, NUM, "h", "the run's wall time (inference: 1)", c->hours) \
	F(cost_usd, NUM, "USD", \
	  "cost of the run (inference: per hour); owned, the larger of share_usd and the yearly cost of " \
	  "owning over runs_per_year", \
	  c->cost_usd) \
	F(share_usd, NUM, "USD", \
	  "owned: the run's TCO share at the utilisation, other paid work filling the rest; null when rented", \
	  c->share_usd) \
	F(usd_per_gpu_hour, NUM, "USD", "the rate per GPU-hour", hw->cost.usd_per_gpu_hour) \
	F(cost_basis, TEXT, NULL, "owned or rented", hw->cost.kind == COST_OWNED ? "owned" : "rented") \
	F(energy_kwh, NUM, "kWh", "GPU energy of the run (inference: per hour)", c->energy_kwh) \
	F(gpu_power_w, NUM, "W", "average GPU draw", c->res.power_w) \
	F(power_kw, NUM, "kW", "full-load power of the servers", c->power_kw) \
	F(score, NUM, NULL, "the objective's value (lower is better)", c->score) \
	F(on_front, BOOL, NULL, "on the Pareto front of time against cost", plan_on_front(p, c)) \
	F(meets_constraints, BOOL, NULL, "meets every constraint", !c->violates) \
	F(violates, TEXT, NULL, "the constraints it breaks: deadline, budget, power, life, joined by ;", \
	  plan_violation_names(c->violates, report_scratch(row, NAME_LEN), NAME_LEN)) \
	F(miss, NUM, NULL, "the largest value/limit over the constraints (<= 1: met)", c->miss) \
	F(fabric_best_step_s, NUM, "s", \
	  "generic builds on several nodes: the fastest fabric's step time (0 otherwise)", c->fabric_best_step_s) \
	F(capex_usd, NUM, "USD", "the bill of materials' total (null when rented)", \
	  c->has_bom ? c->bom.capex_usd : NAN) \
	BOM_FIELDS(F) \
	F(goodput, NUM, "fraction", "the fraction of the wall time that trains (1 for inference)", c->gp.goodput) \
	F(ideal_hours, NUM, "h", "the model's time to train with nothing lost", c->gp.ideal_hours) \
	F(checkpoint_bytes, NUM, "bytes", "one checkpoint: weights and optimizer state", c->gp.ckpt_bytes) \
	F(checkpoint_write_s, NUM, "s", "one checkpoint's write", c->gp.ckpt_write_s) \
	F(checkpoint_every_s, NUM, "s", "interval between checkpoints", c->gp.ckpt_every_s) \
	F(checkpoint_hours, NUM, "h", "hours spent writing checkpoints", c->gp.ckpt_hours) \
	F(interruptions, NUM, NULL, "expected interruptions over the run", c->gp.interruptions) \
	F(interruption_hours, NUM, "h", "hours the interruptions cost: restarts and recomputed work", \
	  c->gp.fail_hours) \
	F(estimate_args, TEXT, NULL, \
	  "the arguments of gpuscope estimate that time this configuration alone (add --tokens for its time to " \
	  "train); a choice sized by the serving simulation: the simulated run of one replica (--arrivals)", \
	  plan_estimate_args(p, c, report_scratch(row, ARGS_LEN), ARGS_LEN)) \
	F(calibration, TEXT, NULL, \
	  "the calibration file whose measured ceilings timed it (docs/bench.md); null: the catalog's", \
	  calibration_file_of(hw->gpu))

static const char *const hw_kinds[] = {"server", "cloud", "generic"};

static const char *calibration_file_of(const struct cat_gpu *g)
{
	const struct model_calibration *cal = model_calibration_of(g);
	return cal ? cal->file : NULL;
}

PLAN_SCHEMA(choice, "plan", PLAN_CHOICE_FIELDS)

long plan_rank_of(const struct plan *p, const struct plan_choice *c)
{
	size_t r;
	for (r = 0; r < plan_nranked(p); r++)
		if (plan_ranked(p, r) == c)
			return (long)r + 1;
	return 0;
}

void plan_choice_row(const struct plan *p, const struct plan_choice *c, struct report_row *row)
{
	size_t nhw, i = 0;
	const struct plan_hw *hw = plan_hw(p, &nhw) + c->hw;
	const struct model_config *g = &c->cfg;
	const struct model_memory *m = &c->res.mem;
	const struct model_time *t = &c->res.time;
	struct model_queue q;
	int queued = !plan_queue_of(p, c, &q);
	int llm = queued && plan_request_of(p)->w->kind == WORKLOAD_TRANSFORMER, gen = queued && plan_generates(p);
	int infer = g->task == MODEL_TASK_INFER;
	double reps = c->replicas > 1 ? c->replicas : 1;

	report_row_clear(row);
	PLAN_CHOICE_FIELDS(REPORT_FIELD_SET)
}

/* ---- the workload, the request and the search ---- */

#define PLAN_WORKLOAD_FIELDS(F) \
	F(name, TEXT, NULL, "the model's name", w->name) \
	F(kind, TEXT, NULL, "transformer or per-sample", \
	  w->kind == WORKLOAD_TRANSFORMER ? "transformer" : "per-sample") \
	F(params, NUM, NULL, "parameters", w->params) \
	F(task, TEXT, NULL, "pretrain, finetune, lora, qlora or infer", model_task_name(req->base.task)) \
	F(seq_len, INT, NULL, "tokens per sample", b->seq_len) \
	F(global_batch, INT, NULL, "samples per optimizer step the search used (0 for inference)", \
	  plan_global_batch(p)) \
	F(train_tokens, NUM, NULL, "tokens to train on (0: counted in samples)", b->train_tokens) \
	F(train_samples, NUM, NULL, "samples per epoch", b->train_samples) \
	F(epochs, NUM, NULL, "epochs over the samples", b->epochs)

PLAN_SCHEMA(workload, "plan-workload", PLAN_WORKLOAD_FIELDS)

void plan_workload_row(const struct plan *p, struct report_row *row)
{
	const struct plan_request *req = plan_request_of(p);
	const struct workload *w = req->w;
	const struct model_config *b = plan_base(p);
	size_t i = 0;
	report_row_clear(row);
	PLAN_WORKLOAD_FIELDS(REPORT_FIELD_SET)
}

/* The JSON adds "precisions" and "gpus", lists of names, after max_gpus. */
#define PLAN_REQUEST_FIELDS(F) \
	F(objective, TEXT, NULL, "time, cost, energy, balanced or capex", plan_objective_name(req->objective)) \
	F(buy, TEXT, NULL, "any (owned and rented together), onprem or cloud", buy_names[req->buy]) \
	F(runs_per_year, NUM, "runs/year", \
	  "training: runs like this one a year owned hardware is charged for (--runs-per-year; any: default " \
	  "1); null when none applies (renting, inference, onprem without the flag)", \
	  plan_runs_per_year(p) > 0 ? plan_runs_per_year(p) : NAN) \
	F(provider, TEXT, NULL, "the cloud provider asked for; null: any", req->provider) \
	F(max_gpus, INT, NULL, "largest GPU count searched", req->max_gpus) \
	F(ecosystem, TEXT, NULL, "cuda, rocm, synapseai, oneapi or any", req->ecosystem ? req->ecosystem : "any") \
	F(include_eol, BOOL, NULL, \
	  "parts past their end of sale or dropped by current CUDA or PyTorch are searched (--include-eol)", \
	  req->include_eol) \
	F(deadline_s, NUM, "s", "time to finish (inference: latency target); null when not given", \
	  req->deadline_s > 0 ? req->deadline_s : NAN) \
	F(budget_usd, NUM, "USD", \
	  "the most a choice may commit: the capex to buy, or the rent of the run (inference: an hour); " \
	  "null when not given", \
	  req->budget_usd > 0 ? req->budget_usd : NAN) \
	F(power_kw, NUM, "kW", "full-load power limit of all servers; null when not given", \
	  req->power_kw > 0 ? req->power_kw : NAN) \
	F(memory_headroom_pct, NUM, "%", \
	  "share of each GPU's usable memory no layout may fill (--memory-headroom; default 10)", \
	  plan_memory_headroom_pct(p)) \
	F(years, NUM, "years", \
	  "owned: the service life the hardware is priced over and no run may outlast (--years, else the " \
	  "facility's depreciation); null when renting", \
	  plan_service_years(p)) \
	F(rate_per_s, NUM, "requests/s", "inference: requests per second to serve; null for training", \
	  req->base.task != MODEL_TASK_INFER ? NAN : \
	  req->rate_per_s > 0                ? req->rate_per_s : \
					       1) \
	F(ttft_target_s, NUM, "s", "inference: time to first token each request must meet; null when not given", \
	  req->ttft_s > 0 ? req->ttft_s : NAN) \
	F(tpot_target_s, NUM, "s", "inference: time per output token to meet; null when not given", \
	  req->tpot_s > 0 ? req->tpot_s : NAN)

static const char *const buy_names[] = {"onprem", "cloud", "any"};

PLAN_SCHEMA(request, "plan-request", PLAN_REQUEST_FIELDS)

void plan_request_row(const struct plan *p, struct report_row *row)
{
	const struct plan_request *req = plan_request_of(p);
	size_t i = 0;
	report_row_clear(row);
	PLAN_REQUEST_FIELDS(REPORT_FIELD_SET)
}

/* The JSON adds "fabrics", the catalog keys of the fabrics searched, after hardware_options. */
#define PLAN_SEARCH_FIELDS(F) \
	F(hardware_options, INT, NULL, "kinds of node searched", (double)nhw) \
	F(slots, INT, NULL, "(hardware option, node count) pairs", (double)nall) \
	F(items, INT, NULL, "(GPU, count, precision) work items", (double)st->items) \
	F(layouts, INT, NULL, "layouts in the search space, summed over items", (double)st->layouts) \
	F(configurations, INT, NULL, "configurations decided: layouts x hardware x count x fabric", \
	  (double)st->configs) \
	F(memory_calls, INT, NULL, "memory model calls", (double)st->memory_calls) \
	F(estimate_calls, INT, NULL, "time model calls (and latency searches)", (double)st->estimate_calls) \
	F(bound_calls, INT, NULL, "of those, on ideal links for the lower bounds", (double)st->bound_calls) \
	F(threads, INT, NULL, "search threads", st->threads) \
	F(wall_s, NUM, "s", "search wall time", st->wall_s) \
	F(left_out, TEXT, NULL, "hardware left out and why, as the header's \"left out:\" line; null when none", \
	  *plan_skipped(p) ? plan_skipped(p) : NULL)

PLAN_SCHEMA(search, "plan-search", PLAN_SEARCH_FIELDS)

void plan_search_row(const struct plan *p, struct report_row *row)
{
	const struct plan_stats *st = plan_stats(p);
	size_t nhw, nall, i = 0;
	plan_hw(p, &nhw);
	plan_all(p, &nall);
	report_row_clear(row);
	PLAN_SEARCH_FIELDS(REPORT_FIELD_SET)
}

#define PLAN_CLOSEST_FIT_FIELDS(F) \
	F(hardware, TEXT, NULL, "hardware key of the choice that needs the least memory per GPU", hw[c->hw].key) \
	F(gpus, INT, NULL, "its GPUs", c->gpus) \
	F(min_bytes, NUM, "bytes", "the least memory per GPU any of its layouts needs", c->min_bytes)

PLAN_SCHEMA(closest_fit, "plan-closest-fit", PLAN_CLOSEST_FIT_FIELDS)

void plan_closest_fit_row(const struct plan *p, const struct plan_choice *c, struct report_row *row)
{
	size_t nhw, i = 0;
	const struct plan_hw *hw = plan_hw(p, &nhw);
	report_row_clear(row);
	PLAN_CLOSEST_FIT_FIELDS(REPORT_FIELD_SET)
}

/* ---- the explanation of the first choice ---- */

/* The JSON adds the lists "alternatives" and "optimisations" at the end. */
#define PLAN_EXPLANATION_FIELDS(F) \
	F(architecture, TEXT, NULL, "the decision-tree branch", plan_arch_name(ex->arch)) \
	F(architecture_text, TEXT, NULL, "which branch, and why", TEXT_OF(ex->arch_text)) \
	F(sizing, TEXT, NULL, "what decides the size: memory, deadline, cost", TEXT_OF(ex->sizing)) \
	F(rent_or_buy, TEXT, NULL, "the run rented against owned, and when owning pays, in words", \
	  TEXT_OF(ex->rent_text)) \
	F(rent_instance, TEXT, NULL, \
	  "the cloud instance rented for the comparison: the cheapest with the GPU; null: none has it", \
	  ex->rent.instance) \
	F(rent_tier, TEXT, NULL, \
	  "the price tier it is rented at: --price-tier, else on-demand where no instance has that tier", \
	  ex->rent.instance ? cat_tier_name(ex->rent.tier) : NULL) \
	F(rent_usd_per_gpu_hour, NUM, "USD", "its price a GPU-hour at rent_tier", ex->rent.rent_usd_per_gpu_hour) \
	F(rent_usd, NUM, "USD", \
	  "the run on the same GPUs rented at rent_tier, a committed rate for the hours used (inference: an hour)", \
	  ex->rent.rent_usd) \
	F(own_usd, NUM, "USD", \
	  "the run on the same GPUs owned, at own_priced_pct: what the ranking charges (inference: an hour)", \
	  ex->rent.own_usd) \
	F(own_share_usd, NUM, "USD", "the run owned at own_utilisation_pct, other paid work filling the rest", \
	  ex->rent.own_share_usd) \
	F(own_usd_per_year, NUM, "USD/year", \
	  "owning the GPUs a year at own_priced_pct: the whole account over the service life, per year", \
	  ex->rent.own_usd_per_year) \
	F(own_priced_pct, NUM, "%", \
	  "the utilisation own_usd is priced at: own_utilisation_pct, or what runs_per_year such runs keep " \
	  "busy when less", \
	  ex->rent.own_pct) \
	F(runs_per_year, NUM, "runs/year", "training: the runs a year owned hardware is charged for; null: none", \
	  ex->rent.runs_per_year > 0 ? ex->rent.runs_per_year : NAN) \
	F(own_capex_usd, NUM, "USD", "the capital owning them commits: the bill of materials", \
	  ex->rent.own_capex_usd) \
	F(own_utilisation_pct, NUM, "%", "the share of hours the owned GPUs work that own_usd assumes", \
	  ex->rent.utilisation_pct) \
	F(breakeven_utilisation_pct, NUM, "%", \
	  "owning costs less than renting above this utilisation over the service life; null: never", \
	  ex->rent.breakeven_pct) \
	F(breakeven_hours_per_year, NUM, "h", "the GPUs' busy hours a year at that utilisation", \
	  ex->rent.breakeven_hours_per_year) \
	F(breakeven_jobs_per_year, NUM, NULL, \
	  "training: runs like this one a year at that utilisation (for this run alone owning pays at " \
	  "1 / years or fewer); null for inference", \
	  ex->rent.breakeven_jobs_per_year) \
	F(compute_share, NUM, "fraction", "compute's share of the step", ex->compute_share) \
	F(comm_share, NUM, "fraction", "exposed communication's share of the step", ex->comm_share) \
	F(bubble_share, NUM, "fraction", "the pipeline bubble's share of the step", ex->bubble_share) \
	F(data_share, NUM, "fraction", "exposed data loading's share of the step", ex->data_share) \
	F(other_share, NUM, "fraction", "optimizer and overhead's share of the step", ex->other_share)

PLAN_ITEM_SCHEMA(explanation, "plan-explanation", PLAN_EXPLANATION_FIELDS, struct plan_explanation, ex)

#define PLAN_ALTERNATIVE_FIELDS(F) \
	F(kind, TEXT, NULL, "alternative, memory, fabric, tier ...", n->kind) \
	F(text, TEXT, NULL, "what would go wrong, with its figures", TEXT_OF(n->text)) \
	F(step_s, NUM, "s", "the alternative's step time; null: none", n->step_s) \
	F(ratio_time, NUM, NULL, "its time against the first choice's; null: n/a", n->ratio_time) \
	F(ratio_cost, NUM, NULL, "its cost against the first choice's; null: n/a", n->ratio_cost) \
	F(time_s, NUM, "s", "its run's time to finish (inference: a request's latency); null: not said", \
	  n->time_s) \
	F(cost_usd, NUM, "USD", "its run's cost (inference: an hour's); null: not said", n->cost_usd) \
	F(capex_usd, NUM, "USD", "the bill of materials to buy it; null: not said", n->capex_usd) \
	F(memory_bytes, NUM, "bytes", "the memory per GPU it needs; null: not said", n->memory_bytes) \
	F(comm_share, NUM, "fraction", "exposed communication's share of its step; null: not said", \
	  n->comm_share) \
	F(link_gbps, NUM, "GB/s", \
	  "the GPU link it puts in place of the first choice's, a direction per GPU; null: none", n->link_gbps) \
	F(fits, BOOL, NULL, "it fits in memory", n->fits)

PLAN_ITEM_SCHEMA(alternative, "plan-alternative", PLAN_ALTERNATIVE_FIELDS, struct plan_note, n)

#define PLAN_OPTIMISATION_FIELDS(F) \
	F(what, TEXT, NULL, "the change", TEXT_OF(a->what)) \
	F(flags, TEXT, NULL, "how to ask gpuscope estimate for it", TEXT_OF(a->flags)) \
	F(step_s, NUM, "s", "predicted step time with the change", a->step_s) \
	F(total_bytes, NUM, "bytes", "predicted memory per GPU with the change", a->total_bytes) \
	F(speedup, NUM, NULL, "old step time / new (below 1: slower)", a->speedup) \
	F(fits, BOOL, NULL, "it fits in memory", a->fits)

PLAN_ITEM_SCHEMA(optimisation, "plan-optimisation", PLAN_OPTIMISATION_FIELDS, struct model_advice, a)

/* ---- what to add to hardware already owned ---- */

/* The hardware added, "6x8 dgx-a100 (eos)" (the whole pool, for more of the same); NULL: nothing added. */
static const char *add_hw_text(const struct plan_add *a, struct report_row *row)
{
	size_t n;
	const struct plan_hw *h;
	if (!a->found || !a->add)
		return NULL;
	h = &plan_hw(a->from, &n)[a->add->hw];
	return report_printf(row, "%ux%d %s", a->add->nodes, h->gpus_per_node, h->label);
}

#define NAN_UNLESS(a, v) ((a)->found ? (v) : NAN)
#define PLAN_ADD_FIELDS(F) \
	F(kind, TEXT, NULL, \
	  "nothing (the owned servers alone), same (more of an owned type, one pool), other (other " \
	  "hardware bought beside them) or rent (instances rented beside them)", \
	  plan_add_kind_name(a->kind)) \
	F(hardware, TEXT, NULL, "the pool added (same: the whole pool, owned servers in); null: nothing", \
	  add_hw_text(a, row)) \
	F(found, BOOL, NULL, "some such choice fits in memory (else the figures are null)", a->found) \
	F(added_nodes, NUM, NULL, "servers or instances added", NAN_UNLESS(a, a->added_nodes)) \
	F(owned_servers_at_work, NUM, NULL, "owned servers the job uses", NAN_UNLESS(a, a->owned_nodes)) \
	F(owned_servers, NUM, NULL, "owned servers in all", (double)a->owned_total) \
	F(owned_work_share, NUM, "fraction", "share of the work the owned servers do", \
	  NAN_UNLESS(a, a->owned_share)) \
	F(time_s, NUM, "s", "the job's time to finish, the pools working together", \
	  NAN_UNLESS(a, a->hours * 3600)) \
	F(added_alone_s, NUM, "s", "the added pool alone on the whole job; null: nothing added", \
	  a->found && a->add ? a->added_alone_hours * 3600 : NAN) \
	F(owned_usd, NUM, "USD", "the owned servers' running cost over the job (no capex)", \
	  NAN_UNLESS(a, a->owned_usd)) \
	F(added_usd, NUM, "USD", "the added hardware's cost over the job: its TCO share, or its rent", \
	  NAN_UNLESS(a, a->added_usd)) \
	F(cost_usd, NUM, "USD", "the job's cost: owned_usd + added_usd", NAN_UNLESS(a, a->cost_usd)) \
	F(capex_usd, NUM, "USD", "capital the addition commits (0: nothing bought)", NAN_UNLESS(a, a->capex_usd)) \
	F(within_limits, BOOL, NULL, "meets --deadline and --budget", a->found && a->meets)

PLAN_ITEM_SCHEMA(add, "plan-add", PLAN_ADD_FIELDS, struct plan_add, a)

#define PLAN_HAVE_FIELDS(F) \
	F(owned_usd_per_year, NUM, "USD/year", \
	  "keeping every owned server a year: power at the wall, space, staff, support", h->owned_usd_per_year) \
	F(owned_usd_per_gpu_hour, NUM, "USD", "the same per GPU-hour worked at the plan's utilisation", \
	  h->owned_usd_per_gpu_hour) \
	F(best, TEXT, NULL, "the kind to take: the cheapest within the limits; null: none is", \
	  h->best >= 0 ? plan_add_kind_name((enum plan_add_kind)h->best) : NULL) \
	F(text, TEXT, NULL, "the answer in words", TEXT_OF(h->text))

PLAN_ITEM_SCHEMA(have, "plan-have", PLAN_HAVE_FIELDS, struct plan_have_answer, h)

const char *const plan_add_columns[PLAN_ADD_NCOLUMNS] = {
	"kind",     "hardware",  "owned_servers_at_work", "owned_work_share", "time_s",
	"cost_usd", "capex_usd", "within_limits"};
const char *const plan_add_headings[PLAN_ADD_NCOLUMNS] = {"add",  "hardware", "owned", "share",
							  "time", "cost",     "capex", "ok"};

void plan_add_cells(const struct plan_add *a, struct report_row *row, char cells[PLAN_ADD_NCOLUMNS][FMT_LEN])
{
	size_t k;
	plan_add_row(a, row);
	for (k = 0; k < PLAN_ADD_NCOLUMNS; k++) {
		long i = report_field_index(plan_add_schema(), plan_add_columns[k]);
		const char *t = report_value_text(row, (size_t)i, cells[k], FMT_LEN);
		if (t != cells[k])
			snprintf(cells[k], FMT_LEN, "%s", t ? t : "-");
	}
}
