/*
 * The cost of GPU-hours: owning servers (total cost of ownership) against
 * renting cloud instances.  docs/tco.md derives every formula and works one
 * example by hand; the unit tests check each term against it.
 *
 * Two layers:
 *
 *   tco_*   the full account for `gpuscope tco`: inputs with their sources,
 *           every term (capex, energy, space, staff, support, residual),
 *           $/GPU-hour, $/PFLOP-hour, the cloud cost of the same GPU-hours,
 *           break-even month, ROI, NPV and the value of each input at which
 *           the own-or-rent decision flips.
 *
 *   cost_*  what `plan` needs in its search loop: a struct cost_basis
 *           computed once per server type or cloud instance, after which
 *           the cost of a run is one multiplication (cost_run_usd), with no
 *           allocation and no catalog look-up.
 *
 * Units are in the names: _usd, _usd_per_hour, _kw, _pct (0-100), _years.
 * Money is US dollars of the year of purchase; the totals are undiscounted
 * (the sum of cash paid), and the NPV discounts them at the cost of capital.
 *
 * Ownership: the const char * members of struct tco_inputs and struct
 * cost_basis point into the catalog (or static strings); this module neither
 * copies nor frees them, so the catalog must outlive the struct.  The
 * inputs hold no text of their own: the display name and each value's
 * source are kept as the catalog rows and static words they are made of and
 * written out whole by tco_inputs_name() and tco_input_source(), so a
 * struct tco_inputs is plain data that callers copy freely (plan keeps one
 * per hardware option and changes copies of it).
 */
#ifndef GPUSCOPE_COST_COST_H
#define GPUSCOPE_COST_COST_H

#include <stddef.h>

#include "catalog/catalog.h"
#include "util/error.h"
#include "util/strbuf.h"

/* Hours in a year of 365.25 days (leap years included). */
#define TCO_HOURS_PER_YEAR 8766.0

/* Every input that a flag or the facility table sets, for sources and checks. */
enum tco_input {
	TCO_IN_COUNT,           /* servers */
	TCO_IN_PRICE,           /* USD per server */
	TCO_IN_POWER,           /* kW per server at full load */
	TCO_IN_IDLE,            /* kW per server idle */
	TCO_IN_RACK_UNITS,      /* U per server */
	TCO_IN_YEARS,           /* years of service */
	TCO_IN_UTILISATION,     /* % of hours the GPUs do paid work */
	TCO_IN_ELECTRICITY,     /* USD/kWh */
	TCO_IN_PUE,             /* ratio >= 1 */
	TCO_IN_COLO,            /* USD per kW-month of provisioned power */
	TCO_IN_RACK_UNIT_PRICE, /* USD per U-month */
	TCO_IN_STAFF,           /* USD per rack-year */
	TCO_IN_SUPPORT,         /* % of price per year */
	TCO_IN_ADDON,           /* % of price, a flat add-on instead of the bill of materials */
	TCO_IN_RESIDUAL,        /* % of price recovered at the end */
	TCO_IN_CAPITAL,         /* % per year, discount rate of the NPV */
	TCO_IN_INTEREST,        /* % per year charged on the capital, in the owned cost */
	TCO_IN_CLOUD_PRICE,     /* USD per instance-hour, on-demand */
	TCO_IN_DISCOUNT,        /* % off the cloud price (reserved) */
	TCO_NINPUTS
};

struct tco_input_desc {
	const char *flag;         /* command-line flag without dashes: "electricity" */
	const char *facility_key; /* facility.csv key of the default, or NULL */
	const char *unit;         /* "USD/kWh" */
	const char *what;         /* "electricity price" */
	double min, max;          /* allowed range */
	int min_exclusive;        /* 1: the value must be > min */
};

/* Description of one input; never NULL for id < TCO_NINPUTS. */
const struct tco_input_desc *tco_input_desc(enum tco_input id);

enum tco_space {
	TCO_SPACE_KW,        /* colocation billed per kW of provisioned power */
	TCO_SPACE_RACK_UNIT, /* billed per rack unit */
};

/* Where an input's value came from: what tco_input_source() writes. */
enum tco_from {
	TCO_FROM_NONE,        /* nothing set it: "" */
	TCO_FROM_TEXT,        /* text: "default", "on-demand" */
	TCO_FROM_FLAG,        /* its flag: "--pue" */
	TCO_FROM_ROW,         /* a catalog row: "data/facility.csv:12", then text when not NULL */
	TCO_FROM_NO_FACILITY, /* its facility.csv key is missing: "facility.csv has no 'pue'" */
};
struct tco_source {
	enum tco_from from;
	const struct cat_row *row; /* TCO_FROM_ROW: the row (catalog-owned) */
	const char *text;          /* static words: TCO_FROM_TEXT's, or a note after the row; else NULL */
};

struct tco_inputs {
	/* what is owned */
	const char *name;       /* the server's catalog name, or a generic build's GPU's (tco_inputs_name) */
	int generic;            /* 1: a generic build of gpus_per_server GPUs; name is the GPU's */
	const char *server_key; /* servers.csv key, or NULL for a generic build */
	const char *gpu_key;    /* gpus.csv key */
	double gpus_per_server;
	double value[TCO_NINPUTS];             /* indexed by enum tco_input, in its unit */
	struct tco_source source[TCO_NINPUTS]; /* where each value came from (tco_input_source) */
	enum tco_space space;
	/* the precision of the $/PFLOP-hour figure and the GPU's dense peak there */
	const char *precision;
	double peak_tflops_per_gpu;
	/* the cloud comparator; cloud_key NULL when there is none */
	const char *cloud_key, *cloud_name;
	const char *cloud_gpu_key;
	double cloud_gpus;             /* GPUs per instance */
	int cloud_reserved;            /* 1: every hour of the period is paid, at the discount */
	const struct cat_cloud *cloud; /* its catalog row (for its other tiers); NULL when set by hand */
	enum cat_tier cloud_tier;      /* the tier of TCO_IN_CLOUD_PRICE */
	double hours_per_year;         /* TCO_HOURS_PER_YEAR unless a worked example says otherwise */
	/* from the bill of materials (tco_inputs_bom); NaN/0 without one */
	double racks;           /* racks the servers fill (a share of one counts as such); NaN: one per server */
	double extra_capex_usd; /* the bill beyond the servers: fabric, front end, storage, cooling, PDUs ... */
	double extra_kw;        /* switches, optics, storage: drawn around the clock */
	int bill_staff;         /* 1: staff_usd_per_year is the bill's, by cluster size; 0: racks x staff */
	double staff_usd_per_year;
	double licence_usd_per_year; /* the bill's software licences; 0: none */
};

/*
 * Fills in the facility defaults (with "data/facility.csv:LINE" sources) and
 * clears everything else: one server, 70 % utilisation, years = the
 * facility's depreciation_years.  Returns 0, or -1 with *err (field = the
 * flag) for the first facility key that is missing; every missing value is
 * left NaN, with a source saying so, for tco_inputs_check() to report if no
 * flag sets it.
 */
int tco_inputs_init(struct tco_inputs *in, const struct catalog *cat, struct diag *err);

/* Sets the owned hardware from a catalog server (price, power, idle, U). */
int tco_inputs_server(struct tco_inputs *in, const struct catalog *cat, const struct cat_server *s,
		      struct diag *err);

/*
 * Sets the owned hardware to a generic build of n GPUs of one type: the
 * GPUs' catalog price and power plus a host (CPUs, memory, chassis, NICs)
 * whose price, power and rack space per GPU are the mean of the catalog
 * servers with GPUs of the same form factor (their price minus their GPUs).
 * The servers used are listed in `why` (e.g. "host share from dgx-h100,
 * hgx-h100-8, ...").  Returns -1 when the GPU has no price or power, or no
 * server gives a host share; the caller then asks for --price / --power-kw.
 */
int tco_inputs_generic(struct tco_inputs *in, const struct catalog *cat, const struct cat_gpu *g, double n,
		       char *why, size_t why_len, struct diag *err);

struct bom;
/*
 * Takes the racks the servers fill, the capex beyond the servers and its
 * power, its staff and licences a year from a bill of materials sized for
 * in's servers; a liquid-cooled bill brings its PUE unless a flag set one.
 * Without with_parts (a flat --addon) nothing is taken: staff stays per
 * server.
 */
void tco_inputs_bom(struct tco_inputs *in, const struct bom *b, int with_parts);
/* 1: staff a year is the bill's (by cluster size); 0: racks x TCO_IN_STAFF (no bill, or --staff). */
int tco_staff_from_bill(const struct tco_inputs *in);

/*
 * Sets the cloud comparator from a catalog instance at a price tier: its
 * price there, and for a committed tier (1y, 3y) every hour of the period
 * paid for whole instances.  Returns 0, or -1 with *err (field
 * "price-tier") naming the instance and the tiers it has when it has no
 * price at t.
 */
int tco_inputs_cloud(struct tco_inputs *in, const struct cat_cloud *c, enum cat_tier t, struct diag *err);

/*
 * The catalog instance with a price at tier t and the same GPU and GPU count
 * as the owned server that is cheapest there; failing that, the one with the
 * same GPU that is cheapest per GPU-hour there.  NULL when no instance with
 * that GPU has a price at t.  *same_count tells which.
 */
const struct cat_cloud *tco_cloud_match(const struct catalog *cat, const char *gpu_key, double gpus,
					enum cat_tier t, int *same_count);

/* Checks every value against its range; -1 with err->field = the flag. */
int tco_inputs_check(const struct tco_inputs *in, struct diag *err);

struct tco_result {
	/* installation */
	double servers, gpus; /* total GPUs = servers x gpus_per_server */
	double hours;         /* years x hours per year */
	double utilisation;   /* fraction */
	/* one-off */
	double server_capex_usd; /* servers x price */
	double addon_usd;        /* fabric, storage and cooling (BOM), or server capex x add-on % */
	double capex_usd;        /* sum of the two */
	double racks;
	double residual_usd; /* server capex x residual %, returned at the end */
	/* per year */
	double load_fraction;       /* average power / full power of a server */
	double avg_power_kw;        /* per server */
	double energy_kwh_per_year; /* all servers, at the meter (with PUE) */
	double energy_usd_per_year;
	double space_usd_per_year;
	double staff_usd_per_year;
	double support_usd_per_year;
	double opex_usd_per_year; /* energy + space + staff + support */
	/* over the period */
	double capital_usd_per_month; /* level payment repaying capex less the residual at the interest */
	double interest_usd;          /* months x that payment - (capex - residual): 0 at no interest */
	double total_usd;             /* capex + opex x years - residual + interest */
	double gpu_hours_used;        /* gpus x hours x utilisation */
	double usd_per_gpu_hour;      /* total / GPU-hours used */
	double usd_per_pflop_hour;    /* at the GPU's dense peak; NaN without a peak */
	/* against the cloud (NaN without a comparator) */
	int has_cloud;
	double cloud_instances;        /* instances a reserved term pays for */
	double cloud_usd_per_gpu_hour; /* after the discount */
	double cloud_total_usd;        /* the same GPU-hours rented */
	double opex_usd_per_month;     /* opex / 12 */
	double owned_usd_per_month;    /* opex / 12 + interest / months */
	double cloud_usd_per_month;
	double breakeven_month;  /* months after purchase; NaN when never */
	int breakeven_in_period; /* 1 when breakeven_month <= years x 12 */
	double savings_usd;      /* cloud total - owned total (> 0: owning pays) */
	double roi_pct;          /* savings / capex x 100, over the period */
	double roi_pct_per_year; /* roi / years */
	double npv_usd;          /* NPV of owning instead of renting */
	/* the value of one input, others fixed, at which savings = 0; NaN: none in range */
	double flip[TCO_NINPUTS];
	/* terms the account shows on their own lines */
	double months;             /* years x 12 */
	double support_basis_usd;  /* server capex + bill: what support is a share of */
	double gain_usd_per_month; /* cloud/month - opex/month: the cash the NPV discounts (NaN without a cloud) */
	double savings_pct_of_cloud;        /* savings / cloud total x 100 (NaN without a cloud) */
	double cloud_usd_per_gpu_hour_used; /* cloud total / GPU-hours used: a reserved term pays idle hours */
};

/*
 * Computes every term.  Returns 0, or -1 with *err (field = the flag) when an
 * input is out of range or missing (a server without a price ...).
 */
int tco_compute(const struct tco_inputs *in, struct tco_result *out, struct diag *err);

/*
 * Keeping servers already owned: no capex, no residual, no interest; the
 * running costs of tco_compute() for in's count at its utilisation (power at
 * the wall with the PUE, space, staff by rack, support at the support % of
 * the catalog price, as the contract on a server keeps being paid), and the
 * same spread over the GPU-hours the servers work in a year
 * (docs/tco.md "Hardware already owned").
 */
struct tco_keep {
	double servers, gpus;
	double energy_usd_per_year, space_usd_per_year, staff_usd_per_year, support_usd_per_year;
	double usd_per_year;       /* the four together */
	double gpu_hours_per_year; /* gpus x hours a year x utilisation */
	double usd_per_gpu_hour;   /* usd_per_year / gpu_hours_per_year */
};
/* Returns 0, or -1 with *err (field = the flag) when an input is out of range or missing. */
int tco_keep(const struct tco_inputs *in, struct tco_keep *out, struct diag *err);

/* Cumulative cash paid after `month` months, owned (capex first) and rented. */
double tco_owned_cumulative_usd(const struct tco_result *r, double month);
double tco_cloud_cumulative_usd(const struct tco_result *r, double month);

/* Savings (cloud total - owned total) with one input replaced by v. */
double tco_savings_with(const struct tco_inputs *in, enum tco_input id, double v);
/* tco_compute() with one input replaced by v (flip points included). */
int tco_compute_with(const struct tco_inputs *in, enum tco_input id, double v, struct tco_result *out,
		     struct diag *err);

/*
 * Whether an input takes part in the account: it has a value, colocation
 * per kW or per rack unit as the space is billed, the cloud price and
 * discount only with a cloud.
 */
int tco_input_applies(const struct tco_inputs *in, enum tco_input id);
/* Sets input id to v given by its flag: the source reads "--FLAG". */
void tco_inputs_set_flag(struct tco_inputs *in, enum tco_input id, double v);
/*
 * Appends where input id came from to sb, whole: "--pue",
 * "data/facility.csv:12", "data/gpus.csv:40 GPUs + host share", "default";
 * nothing when no source was set.
 */
void tco_input_source(const struct tco_inputs *in, enum tco_input id, struct strbuf *sb);
/* Appends the display name to sb: "NVIDIA DGX H100 (...)", "generic build, 8 x NVIDIA L40S". */
void tco_inputs_name(const struct tco_inputs *in, struct strbuf *sb);
/*
 * The citation of a default taken from the facility table ("CBRE North
 * America ..."); NULL when a flag set the input or the row cites nothing.
 * Points into the catalog.
 */
const char *tco_input_citation(const struct catalog *cat, const struct tco_inputs *in, enum tco_input id);

/* The inputs whose flip point is reported, in the order they are shown. */
#define TCO_NFLIPS 9
enum tco_input tco_flip_input(size_t i);
/*
 * Which side of its flip point owning wins on: "above" or "below" (static
 * strings); NULL when the input has no flip point.
 */
const char *tco_flip_side(const struct tco_inputs *in, const struct tco_result *r, enum tco_input id);

/*
 * Owning against one price tier of the instance compared with, the other
 * inputs as they are.  The tier compared with keeps its inputs (a
 * --cloud-price, a --reserved discount); every other tier takes the
 * catalog's price, undiscounted, paid for every hour when committed.
 */
struct tco_tier_result {
	enum cat_tier tier;
	double usd_per_hour; /* the instance at this tier, after any discount */
	int committed;       /* 1: every hour of the period is paid */
	double cloud_usd_per_gpu_hour;
	double cloud_total_usd;           /* the same GPU-hours rented at this tier */
	double savings_usd;               /* cloud total - owned total */
	double savings_change_usd;        /* savings here - savings against on-demand; NaN without that tier */
	double breakeven_month;           /* NaN: never */
	double breakeven_utilisation_pct; /* owning wins on one side of it; NaN: no flip within 0-100 % */
	/*
	 * "above" or "below" that utilisation; without one, "always" or
	 * "never" when the decision is the same at every utilisation (a
	 * committed tier, paid every hour); NULL when neither is known
	 */
	const char *own_when;
};
/*
 * Fills out[] with one result per tier the instance has a price at, in tier
 * order; returns how many (0 without a catalog instance to compare with).
 */
size_t tco_tiers(const struct tco_inputs *in, struct tco_tier_result out[CAT_NTIERS]);

/*
 * Keeping servers already owned (tco_keep) against renting the same GPUs a
 * year at one price tier of in's instance (docs/tco.md "Hardware already
 * owned"): on-demand and spot pay the GPU-hours worked, a 1y or 3y term
 * every hour of whole instances.  No capex on either side.
 */
struct tco_keep_tier {
	enum cat_tier tier;
	int committed;                    /* 1: every hour of the year is paid */
	double usd_per_hour;              /* the instance at this tier, after any discount */
	double cloud_usd_per_gpu_hour;    /* that price / its GPUs */
	double rent_usd_per_year;         /* the same GPUs rented a year at this tier */
	double keep_usd_per_year;         /* keeping the owned ones (tco_keep's usd_per_year) */
	double savings_usd_per_year;      /* rent - keep (> 0: keeping pays) */
	double breakeven_utilisation_pct; /* where rent = keep; NaN: no such point within 0-100 % */
	const char *own_when;             /* "above" or "below" it keeping wins; NULL without one */
};
/*
 * One result per tier the instance has a price at, in tier order; returns
 * how many (0 without an instance to compare with).
 */
size_t tco_keep_tiers(const struct tco_inputs *in, struct tco_keep_tier out[CAT_NTIERS]);

/* The sensitivity grid: savings at 5 utilisations x 5 electricity prices. */
#define TCO_GRID_UTIL 5
#define TCO_GRID_ELEC 5
struct tco_point {
	double utilisation_pct;         /* 10 .. 100 */
	double electricity_usd_per_kwh; /* 0.05 .. 0.30 */
	double savings_usd;             /* cloud total - owned total there */
};
/* Fills grid[i][j]: utilisation i (rows), electricity price j (columns). */
void tco_sensitivity(const struct tco_inputs *in, struct tco_point grid[TCO_GRID_UTIL][TCO_GRID_ELEC]);

/* What the owned total is made of over the whole period, USD. */
struct tco_breakdown {
	double capex_less_residual_usd; /* capex - residual, not below 0 */
	double energy_usd, space_usd, staff_usd, support_usd;
	double interest_usd; /* the capital's cost at --interest */
};
void tco_owned_breakdown(const struct tco_inputs *in, const struct tco_result *r, struct tco_breakdown *out);

/*
 * Sizes the bill of materials of in's servers (cost/bom.h: racks, fabric,
 * storage, cooling) from their count, power, rack units and price and the
 * catalog server's cooling and NICs, then takes it into in
 * (tco_inputs_bom()).  rack_kw 0: the cooling's default; storage_tb < 0:
 * the per-GPU default; pue NaN: the facility's.  Returns 1 with *out
 * filled, 0 when in has no power or count to size a bill by, or -1 with
 * *err (field = the flag) when a server does not fit a rack.
 */
int tco_inputs_size_bom(struct tco_inputs *in, const struct catalog *cat, double rack_kw, double storage_tb,
			double pue, int with_parts, struct bom *out, struct diag *err);

/*
 * Names the owned hardware a build of n GPUs of g priced by hand (--price
 * and --power-kw, no host share): the name, the GPU and the bf16 peak.
 */
void tco_inputs_build(struct tco_inputs *in, const struct cat_gpu *g, double n);

/* ---- for plan ---- */

enum cost_kind {
	COST_OWNED,
	COST_RENTED
};

struct cost_basis {
	enum cost_kind kind;
	const char *key; /* servers.csv or clouds.csv key (or the generic name) */
	const char *gpu_key;
	double gpus;             /* GPUs per server or instance */
	double usd_per_gpu_hour; /* all-in price of one GPU-hour of work */
	double usd_per_hour;     /* the same for the whole server or instance */
};

/*
 * Owned: the effective $/GPU-hour of the whole account (capex, energy at the
 * given utilisation, space, staff, support, less residual) spread over the
 * GPU-hours used; identical to tco_compute()'s usd_per_gpu_hour.
 */
int cost_basis_owned(struct cost_basis *b, const struct tco_inputs *in, struct diag *err);
/* Rented: the instance's on-demand price less discount_pct, per GPU-hour. */
int cost_basis_rented(struct cost_basis *b, const struct cat_cloud *c, double discount_pct, struct diag *err);
/*
 * Rented at a price tier.  A committed tier's price is charged for the
 * hours of the run only, as if the rest of the term were put to other work
 * (as owned hardware is charged at its utilisation).  Returns -1 with *err
 * (field "price-tier") when the instance has no price at t.
 */
int cost_basis_rented_at(struct cost_basis *b, const struct cat_cloud *c, enum cat_tier t, struct diag *err);
/* Shorthand for cost_basis_owned(...)->usd_per_gpu_hour. */
int cost_owned_usd_per_gpu_hour(const struct tco_inputs *in, double *usd_per_gpu_hour, struct diag *err);

/* The cost of gpu_hours GPU-hours on a basis: one multiplication. */
static inline double cost_run_usd(const struct cost_basis *b, double gpu_hours)
{
	return b->usd_per_gpu_hour * gpu_hours;
}

#endif
