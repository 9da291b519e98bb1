/*
 * Internals shared by the files of src/plan/: the plan object, the work
 * items of the search and the functions that build and rank them.  Not for
 * use outside src/plan/.
 *
 * plan_run() (plan.c) calls plan_build_space(), plan_search() and
 * plan_rank() in that order; space.c and search.c use rank.c's scores and
 * fabric prices, and none of the three calls back into plan.c.
 */
#ifndef GPUSCOPE_PLAN_PLAN_INT_H
#define GPUSCOPE_PLAN_PLAN_INT_H

#include "model/servesim.h"
#include "plan/plan.h"
#include "util/strbuf.h"

/*
 * Requests the simulated replica of a choice is judged on, and the seed of
 * their arrivals (search.c served_replicas()); the check line of a simulated
 * choice (plan_estimate_args()) reruns the same.  The p99 TTFT of Llama 3 8B
 * near its target spreads 9-17% of its value over five seeds at 2,000
 * requests, 10-35% at 1,000 and 45-61% at 200 (docs/plan.md); 10,000 (6-9%)
 * would take plan past its two seconds.
 */
#define PLAN_SIM_REQUESTS 2000
#define PLAN_SIM_SEED 1

/* A (GPU type, GPU count) and the (hardware option, node count) slots that realise it. */
struct plan_item {
	const struct cat_gpu *gpu;
	int gpus;
	size_t *slots; /* indexes into plan->all */
	size_t nslots;
	int max_gpn; /* largest gpus_per_node among the slots */
	double work; /* rough cost, to start the big items first */
};

/* The fabrics' link fields for one generic hardware option (from model_links_from_catalog). */
struct plan_net {
	double gbps_per_gpu, lat_us;
};

struct plan {
	const struct catalog *cat;
	struct plan_request req;
	int simulate;                /* inference sized by the serving simulation under sched */
	enum model_engine engine;    /* its engine */
	struct servesim_sched sched; /* owned */
	struct model_config base;    /* the request's base, completed */
	int global_batch;            /* samples per step; 0: micro-batch x dp */
	double memory_use;           /* share of each GPU's capacity a layout may fill, 0.5-1 */
	unsigned precisions;

	struct plan_hw *hw;
	size_t nhw;
	struct plan_fabric *fab; /* slowest first */
	size_t nfab;
	struct plan_net *net; /* [hw * nfab + f], generic options only */

	struct plan_choice *all; /* every slot, hardware order then node count */
	size_t nall;
	struct plan_item *items;
	size_t nitems;

	size_t *ranked, nranked;
	size_t *front, nfront;
	size_t *best_on_hw;                                          /* per hw: index into all, or SIZE_MAX */
	size_t nearest, closest, cheapest, fastest, least_committed; /* SIZE_MAX: none */

	struct plan_stats stats;
	char *skipped;                /* owned: hardware left out, and why (no price ...); NULL: none */
	struct strbuf skip_lists[6];  /* space.c's working lists, by reason; released once composed */
	struct strbuf skip_detail[6]; /* space.c: per list, the detail its last keys share, said after them */
};

#define PLAN_NONE ((size_t)-1)

/* space.c: hardware options, fabrics, node counts and work items. */
int plan_build_space(struct plan *p, struct diag *err);
/* The precisions tried on a GPU, as a list; returns how many (0: none). */
size_t plan_gpu_precisions(const struct plan *p, const struct cat_gpu *g, enum model_precision *out, size_t max);
/* Whether generic option hw may use fabric f (its host can feed that NIC speed). */
int plan_fabric_allowed(const struct plan *p, size_t hw, size_t f);
/* Fills the hardware and network fields of cfg for a slot; fabric -1: none/own. */
void plan_slot_config(const struct plan *p, const struct plan_choice *c, int fabric, struct model_config *cfg);
/*
 * Of the fabrics whose best step is within PLAN_FABRIC_SLACK of the fastest
 * (step_s[f] finite, ok[f] set), the one whose fabric costs least to buy
 * (plan_fabric_capex); ties go to the slower.  -1 when none.
 */
int plan_pick_fabric(const struct plan *p, size_t hw, uint32_t nodes, const double *step_s,
		     const unsigned char *ok, size_t nfab);
#define PLAN_FABRIC_SLACK 1.02

/* search.c */
int plan_search(struct plan *p);
/*
 * Sets cfg's links to ones no slot beats: nodes of gpn GPUs (at most
 * cfg->gpus) joined inside by an unbounded switch, between them at
 * inter_gbps_per_gpu GB/s and inter_lat_us, host links of host_gbps; no
 * data-loading limit.  The step time it gives is a lower bound of the step
 * on any slot whose nodes have at most gpn GPUs and whose scale-out and host
 * links are no faster (the search's pruning, search.c).
 */
void plan_bound_links(struct model_config *cfg, int gpn, double inter_gbps_per_gpu, double inter_lat_us,
		      double host_gbps);

/* explain.c */
enum plan_cmp {
	PLAN_CMP_FASTER = -1,
	PLAN_CMP_SAME = 0,
	PLAN_CMP_SLOWER = 1,
};
/* Steps whose ratio is within this of 1 are the same to a reader: "1.00x" either way. */
#define PLAN_CMP_SAME_WITHIN 0.005
/*
 * An alternative's step time against the choice's, as its sentence prints
 * them: "0.0256 s instead of 0.0249 s, 1.03x the time", "11.3 s either way"
 * (the two print alike at three figures) or "... within 0.5%" (same, below
 * PLAN_CMP_SAME_WITHIN), into buf; returns which it is, so the sentence's
 * words follow the figures it prints.
 */
enum plan_cmp plan_compare_steps(double alt_s, double cur_s, char *buf, size_t len);

/* rank.c: scores, constraints, ranking, front. */
void plan_rank(struct plan *p);
void plan_score_choice(const struct plan *p, struct plan_choice *c);
/*
 * Owned hardware of inputs in for a run of hours, a GPU-hour: *share at the
 * inputs' utilisation, *charged at plan_owned_utilisation() (the larger);
 * both left as they are when in cannot be priced.
 */
void plan_owned_rates(const struct plan *p, const struct tco_inputs *in, double hours, double *share,
		      double *charged);
/* The bill of materials' fabric (switches, NICs, optics, cables) for nodes of hw on fabric f. */
double plan_fabric_capex(const struct plan *p, size_t hw, uint32_t nodes, int fabric);

#endif
