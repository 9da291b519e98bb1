/*
 * The design-space search behind `gpuscope plan`: GPU types x servers x
 * counts x scale-out fabric x parallel layout for one workload, each
 * configuration sized by the memory model, timed by the performance model
 * (model/model.h) and priced by the cost model (cost/cost.h), then ranked
 * and explained.  docs/plan.md describes the search space, the pruning, the
 * ranking and every decision the search makes on the user's behalf.
 *
 * Shape of the search:
 *
 *   hardware options   catalog servers and generic nodes of 1, 2, 4 or 8 of
 *                      one GPU (on PCIe, or on the GPU's own NVLink/NVSwitch)
 *                      when owning; catalog cloud instances when renting
 *   x node counts      1, 2, 3, 4, 6, 8, 12 ... (2^k and 3 x 2^k) up to
 *                      max_gpus GPUs
 *   x fabric           several nodes: every scale-out link of the catalog
 *                      (one adapter per GPU) for generic nodes; the
 *                      server's or instance's own network otherwise
 *   x layout           tp (divides the heads; inside a node or across whole
 *                      nodes), pp (divides the layers), dp (the rest), ep
 *                      (MoE), vpp (divides layers / pp), ZeRO 0-3, recompute
 *                      none/full/per-op/selective, offload (where nothing
 *                      fits without it), micro-batch (divisors of the
 *                      per-replica batch), precision (bf16, or fp16 where
 *                      the GPU lacks bf16; fp8 too when allowed)
 *
 * The memory of a layout depends only on the GPU type, the GPU count and the
 * layout, so the search works in items of (GPU type, GPU count, precision):
 * it finds the layouts that fit once per item with model_memory(), then
 * times them with model_estimate() on every hardware option and fabric of
 * that item.  Each (hardware option, node count) keeps its fastest layout.
 * Items are shared among threads; every item writes only its own result
 * slots, and ranking happens after the search with a total order whose last
 * key is the stable (hardware, count) index, so the answer does not depend
 * on the number of threads or on their timing.
 *
 * Thread safety: plan_run() starts and joins its own threads; a struct plan
 * is not shared while it runs.  Other functions are not thread-safe per plan.
 */
#ifndef GPUSCOPE_PLAN_PLAN_H
#define GPUSCOPE_PLAN_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "cost/bom.h"
#include "cost/cost.h"
#include "model/model.h"
#include "util/error.h"

enum plan_objective {
	PLAN_OBJ_TIME,     /* time to finish (inference: request latency) */
	PLAN_OBJ_COST,     /* dollars for the whole run (inference: per hour) */
	PLAN_OBJ_ENERGY,   /* GPU energy, kWh */
	PLAN_OBJ_BALANCED, /* time x cost: the product ranks as their geometric mean does */
	PLAN_OBJ_CAPEX,    /* the cheapest cluster to buy (its bill of materials) */
	PLAN_OBJ_COUNT
};

const char *plan_objective_name(enum plan_objective o);
int plan_objective_from_name(const char *s); /* -1 when unknown */

/* What the user would do with the hardware. */
enum plan_buy {
	PLAN_BUY_OWN,   /* catalog servers and generic builds, priced by TCO */
	PLAN_BUY_CLOUD, /* catalog cloud instances, on-demand */
	PLAN_BUY_ANY,   /* both, owned and rented choices ranked together */
};

/*
 * Runs like the request's a year that owned hardware is charged for under
 * PLAN_BUY_ANY when the request gives none (training): one, the job alone.
 * An owned choice then pays the larger of its TCO share at --utilisation
 * and its yearly ownership cost over the runs a year (docs/plan.md "Rent or
 * buy"), so a purchase made for one short job is not priced as if other
 * paid work filled the rest of its hours.
 */
#define PLAN_RUNS_PER_YEAR_DEFAULT 1.0

/* Servers already owned: `--have 4x dgx-a100`. */
struct plan_have {
	const struct cat_server *server; /* catalog-owned */
	int count;                       /* >= 1 */
};

/*
 * One "N x SERVER" ("4x dgx-a100", "4 x dgx-a100", "4 dgx-a100"), the server
 * resolved as everywhere in gpuscope.  file and line name the text in
 * errors (file NULL: the flag "--have"; line 0: none), the column counted
 * from 1 in text.  Returns 0, or -1 with *err at the column.
 */
int plan_have_parse(const struct catalog *cat, const char *text, const char *file, int line, struct plan_have *out,
		    struct diag *err);
/*
 * A file of such lines, '#' starting a comment, blank lines skipped; a
 * server named twice adds up.  Returns 0 with *out (malloc()ed, the
 * caller's to free) and *n >= 1, or -1 with *err at file:line:column.
 */
int plan_have_parse_file(const struct catalog *cat, const char *buf, size_t len, const char *path,
			 struct plan_have **out, size_t *n, struct diag *err);

/*
 * A decoder's inference is sized by simulating vLLM (its newest release row)
 * unless an engine is named: the most deployed open serving engine, and the
 * one whose newest row is fitted on measured runs under load
 * (data/cases/serving.csv).  "static" keeps the static-batch model.
 */
#define PLAN_DEFAULT_ENGINE "vllm"
#define PLAN_STATIC_ENGINE "static"

struct plan_request {
	const struct workload *w; /* finished workload; must outlive the plan */
	/*
	 * Task, optimizer, amount of work (train_tokens, or train_samples x
	 * epochs), seq_len, global_batch (0: the default of docs/plan.md),
	 * lora_rank, inference lengths.  Hardware, counts, links and layout
	 * fields are ignored: the search sets them.
	 */
	struct model_config base;
	enum plan_objective objective;
	enum plan_buy buy;
	const char *provider; /* PLAN_BUY_CLOUD: "aws", "gcp" ...; NULL: any */
	/*
	 * PLAN_BUY_CLOUD: the enum cat_tier instances are priced at (0:
	 * on-demand); a committed tier charges the run's hours at its rate,
	 * as if the rest of the term were put to other work
	 */
	int price_tier;
	/*
	 * Training: runs like this one a year that owned hardware is bought
	 * for; an owned choice is charged at the utilisation they give when it
	 * is below --utilisation (plan_runs_per_year()).  0: none under
	 * PLAN_BUY_OWN (the hardware does other paid work),
	 * PLAN_RUNS_PER_YEAR_DEFAULT under PLAN_BUY_ANY.
	 */
	double runs_per_year;
	/*
	 * Servers already owned (owning only): searched whatever their
	 * lifecycle or --gpu, so that plan_have_answer() can weigh them; the
	 * ranking itself prices every choice as bought.
	 */
	const struct plan_have *have;
	size_t nhave;
	const struct cat_gpu *const *gpus; /* only these GPU types; NULL: all */
	size_t ngpus;
	const char *ecosystem; /* "cuda", "rocm" ...; NULL: any */
	int max_gpus;          /* > 0 */
	/*
	 * Precisions to try, a bit mask of 1u << enum model_precision; 0 means
	 * bf16.  bf16 falls back to fp16 on GPUs without bf16 (V100, T4); a GPU
	 * is tried at each listed precision it has a dense peak for.
	 */
	unsigned precisions;
	int servers_only; /* owning: catalog servers only, no generic builds */
	/*
	 * 0: parts past their end of sale (owning) and GPUs whose architecture
	 * current CUDA or PyTorch releases dropped (owning and renting) are
	 * left out and named in plan_skipped(); 1: they are searched too, each
	 * marked in its label (catalog/life.c).  Renting ignores the end of
	 * sale: an instance is rented, not bought.
	 */
	int include_eol;
	/* the month lifecycles are read against (cat_month_parse()'s count); 0: the clock's */
	int now_month;
	/*
	 * 0: catalog servers of more than 8 GPUs in a count that is not a power
	 * of two (GB200 NVL72) are also tried, for training, with the largest
	 * power of two of their GPUs at work and the rest held as spares
	 * (bought, powered, idle); 1: every GPU of a server trains.
	 */
	int no_spares;
	/*
	 * % of each GPU's usable memory (model_memory's capacity_bytes) a
	 * layout may fill, 50-100; 0: 100 - PLAN_MEMORY_HEADROOM_PCT.
	 * --memory-headroom H gives 100 - H.
	 */
	double memory_use_pct;
	double utilisation_pct; /* owning: % of the hours the GPUs do paid work; 0: tco default */
	double years;           /* owning: service life; 0: tco default (facility depreciation) */
	/* constraints; 0 = none */
	double deadline_s; /* time to finish (inference: latency target) */
	/* money committed (plan_committed_usd): the capex to buy owned hardware, the rent of the run (inference: an hour) */
	double budget_usd;
	double power_kw; /* full-load power of all the servers */
	/* the bill of materials (owning) */
	double rack_kw;                 /* power per rack; 0: by cooling (facility rack_kw_air/liquid) */
	double storage_tb;              /* shared storage bought, TB; 0: facility storage_tb_per_gpu */
	const struct cat_part *licence; /* software bought a GPU-year with owned hardware; NULL: none */
	/* goodput (training) */
	double checkpoint_every_s; /* 0: the optimum interval (Young/Daly) */
	/* inference */
	double rate_per_s;     /* requests per second to serve; 0: 1 */
	int max_batch;         /* largest batch a replica may run; 0: 256 */
	double ttft_s, tpot_s; /* inference: time to first token / per output token to meet; 0: none */
	/*
	 * A decoder's serving engine (model_engine_from_name; a serving one:
	 * replicas sized by the serving simulation under its scheduler, its
	 * release engine_version or the newest); NULL: PLAN_DEFAULT_ENGINE;
	 * PLAN_STATIC_ENGINE or a non-serving engine (eager ...): static
	 * batches and the M/M/c queue.
	 */
	const char *engine, *engine_version;
	/*
	 * 1: the narrower layout space (power-of-two micro-batches, vpp 1, 2, 4,
	 * recompute none or full, tensor parallelism inside a node, no offload,
	 * no context parallelism), for side-by-side benchmarks; 0: the full one
	 * of docs/plan.md.
	 */
	int basic_layouts;
	/* execution */
	int threads; /* 0: every online CPU */
	size_t top;  /* choices to rank; 0: 10 */
	/*
	 * Called from the calling thread about every 100 ms while the search
	 * runs (done <= total, in work items); may be NULL.
	 */
	void (*progress)(void *arg, size_t done, size_t total);
	void *progress_arg;
};

enum plan_hw_kind {
	PLAN_HW_SERVER,  /* a catalog server */
	PLAN_HW_CLOUD,   /* a catalog cloud instance */
	PLAN_HW_GENERIC, /* n GPUs of one type on PCIe or on the GPU's own fabric */
};

/* One kind of node the search may use. */
struct plan_hw {
	enum plan_hw_kind kind;
	char key[64];   /* an identifier: catalog key, or "h100-sxm5-80gb/8/nvswitch" */
	char label[80]; /* short by design, for tables: "dgx-h100", "h100-sxm5 nvs" */
	const struct cat_gpu *gpu;
	const struct cat_server *server; /* PLAN_HW_SERVER */
	const struct cat_cloud *cloud;   /* PLAN_HW_CLOUD */
	int gpus_per_node;               /* GPUs per node that train (a layout's nodes) */
	int spare_per_node;              /* GPUs per node bought but held idle as spares (0: none) */
	/* intra-node link fields filled by model_links_from_catalog() */
	enum model_link intra_kind;
	double intra_gbps, intra_lat_us;
	int intra_nvls;
	double host_gbps;
	/* the node's own scale-out network (servers, instances); 0: none */
	double own_inter_gbps_per_gpu, own_inter_lat_us;
	char own_network[48];     /* a short name of counts and a link key: "8x ib-ndr 400 Gb/s" */
	double cpu_cores_per_gpu; /* 0: unknown */
	double node_power_kw;     /* full load, per node */
	double rack_units;        /* U per node (NaN: unknown) */
	double max_nic_gbps;      /* generic: fastest NIC the host feeds (NaN: any) */
	/* the node's own scale-out ports (server NICs, on-die ports): link and count per node */
	const struct cat_link *own_link;
	double own_ports_per_node;
	const char *cooling;    /* server row's cooling; NULL: from the density */
	struct tco_inputs *tco; /* owned: the TCO inputs of one node (owned by the plan) */
	struct cost_basis cost;
	int max_nodes; /* 1 when it has no scale-out network */
	int mig;       /* a MIG instance of this many compute slices (0: whole GPUs) */
	unsigned life; /* CAT_LIFE_* of a part --include-eol let in (its label says so); 0: current */
};

/* One scale-out fabric for generic nodes (one adapter per GPU). */
struct plan_fabric {
	const struct cat_link *link;
	double gbps_per_gpu; /* GB/s per direction */
	double lat_us;
};

/*
 * The share of each GPU's memory, %, no layout of the search may fill: the
 * memory model (model/memory.c) counts the mean caching-allocator
 * fragmentation (4 %, 19 % under ZeRO-3), the CUDA context and the NCCL
 * buffers of each process group, but not the spikes around them (a
 * collective's or a kernel's transient workspace, an unlucky split of the
 * allocator's blocks, another process on the GPU) that make a run measured
 * at 97 % of its GPU's memory meet OOM on a later step.  10 %: what vLLM
 * leaves outside everything it plans for, weights, profiled activations and
 * KV cache included (gpu_memory_utilization, default 0.9: vLLM docs,
 * "Engine Arguments"); and PyTorch's caching allocator can hold free space
 * it cannot serve a request from under some allocation patterns, beyond any
 * mean (E. Yang, "When does fragmentation occur in the CUDA caching
 * allocator?", pytorch/devlogs, 2026-06).  --memory-headroom sets it.
 */
#define PLAN_MEMORY_HEADROOM_PCT 10.0

/* Constraint bits of struct plan_choice.violates. */
enum {
	PLAN_VIOL_DEADLINE = 1u << 0,
	PLAN_VIOL_BUDGET = 1u << 1,
	PLAN_VIOL_POWER = 1u << 2,
	PLAN_VIOL_RACK = 1u << 3, /* a node draws more than --rack-kw */
	PLAN_VIOL_LIFE = 1u << 4, /* owned: the run outlasts the hardware's service life (--years) */
	PLAN_VIOL_COUNT = 5       /* bits in use */
};

/*
 * Time lost at scale (training): checkpoints written every interval and
 * interruptions at the catalog's failure rate per GPU-hour, each costing a
 * restart and half an interval of lost work (docs/plan.md "Goodput").
 */
struct plan_goodput {
	double ideal_hours;   /* the model's time to train, with nothing lost */
	double goodput;       /* ideal / expected wall time, 0-1 */
	double ckpt_bytes;    /* one checkpoint: weights and optimizer state */
	double ckpt_write_s;  /* one checkpoint's write at the storage's bandwidth */
	double ckpt_every_s;  /* interval between checkpoints */
	double ckpt_hours;    /* time spent writing checkpoints */
	double interruptions; /* expected over the run */
	double fail_hours;    /* restarts and recomputed work */
	double fail_rate_per_gpu_hour;
};

/* The best layout found for one (hardware option, node count). */
struct plan_choice {
	uint32_t hw; /* index into plan_hw() */
	uint32_t nodes;
	int gpus;                /* GPUs at work (inference: every replica); the
					  hardware's spares, nodes x spare_per_node, come on top */
	int fabric;              /* index into plan_fabrics(); -1: none or the node's own */
	int fits;                /* some layout fits in memory and was timed */
	double min_bytes;        /* !fits: the least memory per GPU any layout needs */
	uint64_t layouts;        /* training: layouts of its GPU count this slot's nodes can run */
	struct model_config cfg; /* the layout, as timed */
	struct model_result res;
	/* training: one run; inference: one hour at the request rate */
	double hours; /* training: time to finish; inference: 1 */
	double cost_usd;
	double share_usd;          /* owned: the TCO share at --utilisation (cost_usd >= it); NaN: rented */
	double energy_kwh;         /* GPUs only (the model's power) */
	double power_kw;           /* full-load power of all the servers */
	double latency_s;          /* inference: one request's latency */
	int replicas;              /* inference: copies of the model serving the rate */
	double score;              /* the objective's value; lower is better */
	unsigned violates;         /* PLAN_VIOL_* */
	double miss;               /* the largest value/limit over the constraints (<= 1: met) */
	double fabric_best_step_s; /* generic multi-node: the fastest fabric's step time */
	int has_bom;               /* owned hardware: bom is a bill to buy */
	/* bom: a bill to buy (has_bom), or for cloud instances what is rented (bom.rented) */
	struct bom bom;
	struct plan_goodput gp;
};

struct plan_stats {
	uint64_t configs;        /* configurations decided: layouts x hardware x count x fabric */
	uint64_t memory_calls;   /* model_memory() calls */
	uint64_t estimate_calls; /* model_estimate() calls (and latency searches) */
	uint64_t bound_calls;    /* of those, on ideal links for the lower bounds */
	uint64_t items;          /* (GPU, count, precision) work items */
	uint64_t layouts;        /* layouts in the search space, summed over items (each sized,
					  timed, or ruled out by a smaller micro-batch that did not fit) */
	double wall_s;           /* search wall time */
	int threads;
};

struct plan;

/*
 * Builds the hardware options for req from the catalog and searches them.
 * Returns 0 and a plan to free with plan_free(), or -1 with *err set (field
 * names the flag: "gpu", "ecosystem", "buy" ...) when the request leaves
 * nothing to search.  The catalog and req->w must outlive the plan.
 */
int plan_run(struct plan **out, const struct catalog *cat, const struct plan_request *req, struct diag *err);
void plan_free(struct plan *p);

const struct plan_request *plan_request_of(const struct plan *p);
const struct plan_stats *plan_stats(const struct plan *p);
/*
 * The request's base configuration as the search completed it: amount of
 * work (train_tokens or train_samples x epochs), seq_len, inference lengths.
 */
const struct model_config *plan_base(const struct plan *p);
/* The global batch the search used, in samples (0 for inference). */
int plan_global_batch(const struct plan *p);
/* The share of each GPU's memory the search kept free, % (PLAN_MEMORY_HEADROOM_PCT unless asked). */
double plan_memory_headroom_pct(const struct plan *p);
/* The memory per GPU a layout may take, bytes: m's capacity less the headroom. */
double plan_memory_limit_bytes(const struct plan *p, const struct model_memory *m);
/* Whether m fits with the headroom kept free: what "fits" means everywhere in plan. */
int plan_memory_fits(const struct plan *p, const struct model_memory *m);
/*
 * The service life owned hardware is priced over and no run may outlast,
 * years: --years, else the TCO default (the facility's depreciation); NaN
 * when nothing owned was searched.
 */
double plan_service_years(const struct plan *p);
/*
 * The runs a year owned choices are charged for (struct plan_request
 * runs_per_year, its default applied); 0 when none applies: inference,
 * renting, or owning with none given.
 */
double plan_runs_per_year(const struct plan *p);
/*
 * The utilisation, %, owned hardware is priced at for a run of hours:
 * util_pct, or the share of the year runs_per_year such runs keep it busy
 * (100 x N x hours / 8766) when that is less; util_pct when no runs a year
 * apply.
 */
double plan_owned_utilisation(const struct plan *p, double util_pct, double hours);
/*
 * The names of the constraints in violates (PLAN_VIOL_*) but the rack's,
 * "deadline;life", joined by ';' in bit order ("" for none), into buf;
 * returns buf.
 */
const char *plan_violation_names(unsigned violates, char *buf, size_t len);

/*
 * What was searched and how it is priced, appended to sb: "owned and
 * rented hardware (catalog servers and generic builds, priced by TCO for 1
 * run like this a year (--runs-per-year); cloud instances at on-demand
 * prices)", "cloud instances at 3y prices", "aws".
 */
struct strbuf;
void plan_searched_words(const struct plan *p, struct strbuf *sb);

/*
 * Hardware the search left out and why ("servers or instances without a
 * price: dgx-a100-640gb, ..."), whole however long; "" when none.  Owned by
 * the plan.
 */
const char *plan_skipped(const struct plan *p);

/* Hardware options and fabrics; pointers live as long as the plan. */
const struct plan_hw *plan_hw(const struct plan *p, size_t *n);
const struct plan_fabric *plan_fabrics(const struct plan *p, size_t *n);

/* Every (hardware option, node count) searched, in stable order. */
const struct plan_choice *plan_all(const struct plan *p, size_t *n);
/*
 * The ranked choices that meet every constraint, best first (at most
 * req->top): the best configuration of each GPU type, so every row is a
 * different GPU.
 */
const struct plan_choice *plan_ranked(const struct plan *p, size_t i);
size_t plan_nranked(const struct plan *p);
/* The Pareto front of time against cost among choices meeting the constraints, fastest first. */
const struct plan_choice *plan_front(const struct plan *p, size_t i);
size_t plan_nfront(const struct plan *p);
/*
 * When nothing meets the constraints: the choice that misses them by the
 * least (smallest miss), else NULL.  Also NULL when nothing fits at all.
 */
const struct plan_choice *plan_nearest_miss(const struct plan *p);
/*
 * Why no training layout could be timed at all, when that is the reason
 * nothing was ranked: no layout's data-parallel degree divides the global
 * batch (with the nearest batches that would do), or no tensor/pipeline
 * degree suits the model on the GPU counts searched.  Writes buf and
 * returns 1; returns 0 (buf "") when some layout was timed or sized.
 */
int plan_no_layout_reason(const struct plan *p, char *buf, size_t len);
/* The choice that needs the least memory per GPU when nothing fits; else NULL. */
const struct plan_choice *plan_closest_fit(const struct plan *p);
/*
 * The best choice on a given hardware option by the objective: among those
 * meeting the constraints, else among those that fit; NULL when none fits.
 */
const struct plan_choice *plan_best_on(const struct plan *p, size_t hw);
/*
 * Whether the default ranking put c below the single-node choice one
 * because c costs several times as much to buy and is barely faster.
 */
int plan_demoted(const struct plan *p, const struct plan_choice *c, const struct plan_choice *one);
/* Whether a choice lies on the front. */
int plan_on_front(const struct plan *p, const struct plan_choice *c);
/* Cheapest and fastest of everything that fits, ignoring constraints (NULL when none). */
const struct plan_choice *plan_cheapest(const struct plan *p);
const struct plan_choice *plan_fastest(const struct plan *p);
/*
 * The money choice c commits, what --budget caps, USD: owned hardware, the
 * bill of materials to buy (NaN when no rack holds a node: no bill);
 * rented, the cost of the run (inference: of an hour).
 */
double plan_committed_usd(const struct plan *p, const struct plan_choice *c);
/* Of everything that fits, ignoring constraints, the choice that commits the least (NULL when none). */
const struct plan_choice *plan_least_committed(const struct plan *p);

/* ---- describing choices ---- */

/* "t2p4v2d8e8 z1 rs m2 fp8": the layout in the compact form of docs/plan.md. */
const char *plan_layout_code(const struct model_config *cfg, char *buf, size_t len);
/*
 * The arguments of `gpuscope estimate` that time choice c alone: model,
 * task, GPU, server, network and layout flags.
 */
const char *plan_estimate_args(const struct plan *p, const struct plan_choice *c, char *buf, size_t len);
/*
 * The fabric's short name ("ib-ndr", "own: 8x ib-ndr 400 Gb/s", "none"):
 * "none" where no GPU traffic crosses nodes, serving replicas of one node
 * each included (they do not talk to each other).
 */
const char *plan_network_name(const struct plan *p, const struct plan_choice *c, char *buf, size_t len);

/*
 * Whether the workload generates output tokens one at a time (a causal
 * transformer): only then has serving it a time to first token and a time
 * per output token; an encoder or a per-sample network answers a request
 * whole.
 */
int plan_generates(const struct plan *p);
/*
 * The nodes one replica of choice c spans (serving: tp x pp over the
 * node's GPUs, 1 when it fits in one; training: the choice's nodes).
 */
int plan_replica_nodes(const struct plan *p, const struct plan_choice *c);

/*
 * The seeds' architecture decision tree, as applied to a choice; for
 * serving, to one replica (the replicas are independent copies).
 */
enum plan_arch {
	PLAN_ARCH_ONE_GPU,         /* one GPU */
	PLAN_ARCH_NODE_NVLINK,     /* one node, several GPUs over NVLink/NVSwitch/xGMI */
	PLAN_ARCH_NODE_PCIE,       /* one node, several GPUs over PCIe */
	PLAN_ARCH_NODES_ONE_GPU,   /* several nodes of one GPU, PCIe + network */
	PLAN_ARCH_NODES_MANY_GPUS, /* several nodes of several GPUs over InfiniBand/RoCE */
	PLAN_ARCH_COUNT
};
enum plan_arch plan_arch_of(const struct plan *p, const struct plan_choice *c);
/* "one node, several GPUs over NVLink" */
const char *plan_arch_name(enum plan_arch a);

/* One line of the explanation, with the figures it rests on. */
struct plan_note {
	char kind[16];                 /* an identifier: "link", "memory", "fabric", "tier" ... */
	char *text;                    /* owned by the explanation; "" when the figures gave none */
	double step_s;                 /* the alternative's step time (NaN: none) */
	double ratio_time, ratio_cost; /* against the first choice (NaN: n/a) */
	/* the figures the text prints beside the ratios, NaN where it prints none: */
	double time_s;       /* its run's time to finish (serving: a request's latency) */
	double cost_usd;     /* its run's cost (serving: an hour's) */
	double capex_usd;    /* the bill of materials to buy it */
	double memory_bytes; /* the memory per GPU it needs */
	double comm_share;   /* exposed communication's share of its step, 0-1 */
	double link_gbps;    /* the GPU link it puts in place of the first choice's, GB/s a direction */
	int fits;
};

/*
 * Renting against owning the GPUs of a choice for its run: the same GPUs,
 * spares included, rented on demand (the catalog's cheapest instance with
 * the GPU, tco_cloud_match; a rented choice's own instance) and owned (the
 * plan's TCO and bill of materials; a rented choice's GPUs as a generic
 * build of the instance's size), and the utilisation above which owning
 * costs less (the tco module's flip point).  NaN: not priced; docs/plan.md
 * "Rent or buy".
 */
struct plan_rent_buy {
	const char *instance; /* the instance rented (catalog key); NULL: none has the GPU */
	int same_count;       /* it has the owned server's GPU count (else compared per GPU-hour) */
	/*
	 * the price tier it is rented at: the request's --price-tier, else
	 * on-demand when no instance with the GPU has that tier; a committed
	 * tier's rate is charged for the hours used, as the ranking does
	 */
	enum cat_tier tier;
	double rent_usd_per_gpu_hour; /* its price a GPU-hour at that tier */
	double rent_usd;              /* the run rented (inference: an hour of serving) */
	double own_usd;               /* the run owned, at own_pct (inference: an hour) */
	double own_share_usd;         /* the run's TCO share at utilisation_pct, other work filling the rest */
	double own_usd_per_year;      /* owning the GPUs a year at own_pct: the whole account / years */
	double own_pct;               /* the utilisation own_usd is priced at (plan_owned_utilisation) */
	double runs_per_year;   /* the runs a year that sets own_pct (0: none; then own_pct = utilisation_pct) */
	double own_capex_usd;   /* the capital owning commits: the bill of materials */
	double utilisation_pct; /* the utilisation own_usd assumes (--utilisation) */
	double years;           /* the service life owning is priced over */
	double breakeven_pct;   /* owning costs less above this utilisation; NaN: never (or no instance) */
	double breakeven_hours_per_year; /* the GPUs' busy hours a year at that utilisation */
	double breakeven_jobs_per_year;  /* training: runs like this one a year at that utilisation */
};

/*
 * Fills *rb for choice c and *text with its sentence (malloc()ed, the
 * caller's to free).  Returns 0, or -1 (*rb NaN, *text NULL) when c's GPUs
 * cannot be priced owned.
 */
int plan_rent_or_buy(const struct plan *p, const struct plan_choice *c, struct plan_rent_buy *rb, char **text);

/*
 * The text fields are malloc()ed and owned by the explanation: free them
 * with plan_explanation_release().  After plan_explain() returned 0 none is
 * NULL (an empty one is ""); a zeroed explanation has them all NULL.
 */
struct plan_explanation {
	enum plan_arch arch;
	char *arch_text;           /* which branch of the decision tree, and why */
	char *sizing;              /* what decides the size: memory, deadline, cost; "" when unknown */
	struct plan_rent_buy rent; /* the first choice's GPUs rented against owned */
	char *rent_text;           /* rent, owned and the break-even in words; "" when not priced */
	struct plan_note alt[12];  /* what would go wrong on the alternatives */
	size_t nalt;
	struct model_advice advice[8]; /* optimisations to turn on, best first */
	size_t nadvice;
	/* step-time shares of the first choice, 0-1 */
	double compute_share, comm_share, bubble_share, data_share, other_share;
};

/*
 * Inference: the queue of choice c's replicas at the requested rate (each
 * an M/M/c queue over its batch slots, model/serving.h): utilisation,
 * capacity, the p99 wait and TTFT.  Returns 0, or -1 (q zeroed) for
 * training or a choice that does not fit.
 */
struct model_queue;
int plan_queue_of(const struct plan *p, const struct plan_choice *c, struct model_queue *q);

/*
 * Explains choice c (normally plan_ranked(p, 0)): the architecture, the
 * alternatives, each timed by the model, and model_recommend()'s advice.
 * Returns 0, or -1 (*out zeroed) when c did not fit.  *out is written
 * afresh: release an explanation before filling it again.  Either way free
 * it with plan_explanation_release().
 */
int plan_explain(const struct plan *p, const struct plan_choice *c, struct plan_explanation *out);
/* Frees the explanation's text and zeroes it; a zeroed one is a no-op. */
void plan_explanation_release(struct plan_explanation *ex);

/* ---- what to add to hardware already owned (req->have) ---- */

enum plan_add_kind {
	PLAN_ADD_NOTHING, /* the owned fleet alone */
	PLAN_ADD_SAME,    /* more servers of the owned type, one pool with the owned ones */
	PLAN_ADD_OTHER,   /* other hardware bought, a second pool beside the owned one */
	PLAN_ADD_RENT,    /* cloud instances rented, a second pool beside the owned one */
	PLAN_ADD_COUNT
};
const char *plan_add_kind_name(enum plan_add_kind k); /* "nothing", "same", "other", "rent" */

/*
 * One way to run the job with the owned fleet.  Pools that are not one
 * machine share the work by throughput (each takes the share of the work
 * it finishes in the common time); docs/plan.md "Hardware already owned".
 */
struct plan_add {
	enum plan_add_kind kind;
	const struct plan *from;       /* the plan `add` is a choice of (the owned or the rented search) */
	const struct plan_choice *add; /* what is added (NOTHING: NULL; SAME: the whole pool, owned nodes in) */
	int added_nodes;               /* servers or instances added */
	int owned_nodes;               /* owned servers at work, over every owned type */
	int owned_total;               /* owned servers in all */
	double owned_share;            /* share of the work the owned servers do, 0-1 */
	double added_alone_hours;      /* the added pool alone on the whole job (NaN: none) */
	double hours;                  /* the job's time to finish */
	double owned_usd;              /* the owned servers' running cost over those hours */
	double added_usd;              /* the added hardware's cost over them (bought: its TCO share) */
	double cost_usd;               /* the two together */
	double capex_usd;              /* capital the addition commits (0: nothing bought) */
	int meets;                     /* 1: meets the deadline (or there is none) */
	int found;                     /* 0: no such choice fits (the rest is NaN) */
};

struct plan_have_answer {
	struct plan_add opt[PLAN_ADD_COUNT]; /* indexed by kind */
	int best;                            /* the kind to take: the cheapest that meets the deadline; -1: none */
	double owned_usd_per_year;           /* keeping the whole owned fleet a year (tco_keep) */
	double owned_usd_per_gpu_hour;       /* the same per GPU-hour worked */
	char *text;                          /* the answer in words (malloc()ed) */
};

/*
 * What to add to the owned fleet of own's request: the fleet alone, more
 * of the same, other hardware beside it (from own's search) and instances
 * rented beside it (from rent, a --buy cloud search of the same workload;
 * NULL: not weighed).  Returns 0, or -1 (*out zeroed) when own has no
 * fleet or it cannot be priced.  Free with plan_have_release().
 */
int plan_have_answer(const struct plan *own, const struct plan *rent, struct plan_have_answer *out);
void plan_have_release(struct plan_have_answer *a);

/*
 * Writes the self-contained HTML report: the Pareto front (one colour per
 * GPU type), the memory of the top choices as stacked bars, their step time
 * broken down, the ranked table, the explanation and, with have, what to
 * add to the servers owned.  title is the
 * workload line.  Returns 0, or -1 with *err naming the file.
 */
int plan_report_html(const struct plan *p, const struct plan_explanation *ex, const struct plan_have_answer *have,
		     const char *title, const char *path, struct diag *err);

#endif
