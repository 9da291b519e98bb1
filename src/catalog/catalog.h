/*
 * The hardware catalog: GPUs, links and fabrics, servers, CPUs, cloud
 * instances and facility defaults.
 *
 * Rows come from data/NAME.csv embedded in the binary, then from a user's
 * directory (--catalog DIR or $GPUSCOPE_CATALOG) holding files of the same
 * names, whose rows add to or replace embedded rows by key.  Both go through
 * the same loader.  docs/catalog.md describes every column.
 *
 * Numbers are doubles in the column's unit; NaN means "not applicable / not
 * published" (test with isnan or cat_has()), never 0.  Strings are never NULL
 * for required columns and NULL for an empty optional cell.
 *
 * Ownership: every pointer handed out by catalog_* points into the catalog
 * and lives until catalog_free().
 */
#ifndef GPUSCOPE_CATALOG_CATALOG_H
#define GPUSCOPE_CATALOG_CATALOG_H

#include <math.h>
#include <stdatomic.h>
#include <stddef.h>

#include "util/error.h"
#include "util/num.h"

enum cat_table {
	CAT_GPUS,
	CAT_LINKS,
	CAT_SERVERS,
	CAT_CPUS,
	CAT_CLOUDS,
	CAT_FACILITY,
	CAT_PARTS,
	CAT_BOARDS,
	CAT_NTABLES
};

/* Fields every row has, first in every row struct. */
struct cat_row {
	char *key;          /* lowercase slug, unique in its table */
	char *name;         /* display name (NULL for facility rows) */
	char *aliases;      /* ';'-separated other spellings, or NULL */
	char *source;       /* citation */
	char *as_of;        /* YYYY-MM or YYYY-MM-DD */
	char *confidence;   /* Q quoted, D derived, R recalled, E estimate; or NULL */
	const char *origin; /* file the row came from ("data/gpus.csv" when embedded) */
	int line;           /* line in that file */
};

struct cat_gpu {
	struct cat_row row;
	char *vendor; /* nvidia | amd | intel */
	char *arch;
	double launch_year;
	char *form_factor; /* sxm | pcie | oam | superchip ... */
	double memory_gib; /* GiB */
	char *memory_type;
	double mem_bw_gbps; /* GB/s (1e9 B/s) */
	/* dense peaks, TFLOP/s (int8: TOP/s); NaN where the GPU lacks the type */
	double fp64_tflops, fp32_tflops, tf32_tflops, fp16_tflops, bf16_tflops;
	double fp8_tflops, int8_tops, fp4_tflops;
	/* measured dense 16-bit GEMM ceiling of the board, TFLOP/s; NaN where none is given */
	double gemm16_tflops;
	double tdp_w, idle_w; /* W */
	char *gpu_link;       /* links.csv key of the GPU-GPU fabric, or NULL */
	double gpu_link_gbps; /* GB/s per direction per GPU */
	double pcie_gen, pcie_lanes;
	double mig_slices;
	double sm_count;
	double l2_mib;            /* MiB */
	char *compute_capability; /* "9.0", or gfx target for AMD */
	char *ecosystem;          /* cuda | rocm | synapseai */
	double price_usd;         /* street price per GPU, USD */
	/*
	 * GPU counts a buyable node of this GPU holds: "4;8" (SXM and OAM
	 * baseboards), "36;72" (GB200 NVLink domains), "1-10" (PCIe slots);
	 * NULL: any count.  cat_node_sizes() reads it.
	 */
	char *node_gpus;
	/*
	 * Lifecycle (catalog/life.c): the month the GPU stopped being sold,
	 * "YYYY-MM" (NULL: on sale); the last CUDA toolkit major and the last
	 * PyTorch release ("2.14") that support its architecture (NaN / NULL:
	 * current releases do).  The source cell cites them after "lifecycle:".
	 */
	char *end_of_sale;
	double cuda_last;
	char *pytorch_last;
	/*
	 * The performance model's per-architecture row (model/vendor.c), 0
	 * until first looked up, then its index + 1: resolved once per GPU
	 * rather than by comparing names on every call.  Zero in a new row;
	 * atomic because plan's threads look it up at once.
	 */
	atomic_int model_vendor_row;
};

struct cat_link {
	struct cat_row row;
	char *kind; /* host | gpu | switch | scaleout */
	char *generation;
	double bw_gbps_per_dir; /* GB/s per direction (per port for scale-out) */
	double latency_us;      /* typical latency, us */
	double lanes;
	/* gpu and switch rows: the most GPUs one such fabric joins (NaN: no limit) */
	double domain_gpus;
	/* gpu rows: the switch row that joins boards larger than domain_gpus, or NULL */
	char *switch_link;
	/* host rows: the fastest NIC (Gb/s) one x16 slot of this generation can feed */
	double max_nic_gbps;
	/* gpu rows with on-die network ports (Gaudi): the scale-out link and ports per GPU */
	char *scaleout_link;
	double scaleout_ports;
};

struct cat_server {
	struct cat_row row;
	char *vendor;
	double year;
	char *gpu; /* gpus.csv key */
	double gpu_count;
	char *gpu_link; /* links.csv key */
	char *cpu;      /* cpus.csv key */
	double cpu_count;
	char *nic; /* links.csv key of the scale-out fabric, or NULL */
	double nic_count;
	double nic_gbps; /* Gb/s per NIC */
	double ram_gib;
	double power_kw, idle_kw;
	double rack_units;
	double price_usd;
	char *cooling; /* air | liquid; NULL: decided from the power density */
	/* "YYYY-MM" the system stopped being sold; NULL: on sale (catalog/life.c) */
	char *end_of_sale;
};

struct cat_cpu {
	struct cat_row row;
	char *vendor;
	double year, cores, threads, base_ghz, boost_ghz, l3_mib, mem_channels;
	char *mem_type;
	double mem_bw_gbps, tdp_w, pcie_gen, pcie_lanes;
};

struct cat_cloud {
	struct cat_row row;
	char *provider; /* aws | gcp | azure | lambda | coreweave */
	char *gpu;      /* gpus.csv key */
	double gpu_count;
	double usd_per_hour; /* on-demand, whole instance */
	char *region;
	char *gpu_link;      /* links.csv key */
	double network_gbps; /* scale-out Gb/s for the instance */
	/* the other price tiers, whole instance, USD/h; NaN: not offered or not collected */
	double usd_per_hour_1y, usd_per_hour_3y;          /* committed for 1 or 3 years: every hour paid */
	double usd_per_hour_spot;                         /* preemptible */
	char *tier_source, *tier_as_of, *tier_confidence; /* provenance of those three */
};

/*
 * The price tiers of a cloud instance.  A committed tier (1y, 3y) is paid
 * for every hour of its term whether the GPUs work or not; on-demand and
 * spot only for the hours used.
 */
enum cat_tier {
	CAT_TIER_ON_DEMAND,
	CAT_TIER_1Y,
	CAT_TIER_3Y,
	CAT_TIER_SPOT,
	CAT_NTIERS
};
#define CAT_TIER_NAMES "on-demand, 1y, 3y, spot"
/* A tier from its name ("on-demand", "1y", "3y", "spot"); -1 when unknown. */
int cat_tier_from_name(const char *name);
/* The name of a tier (a static string); NULL when out of range. */
const char *cat_tier_name(enum cat_tier t);
/* Whether a tier is a commitment whose every hour is paid (1y, 3y). */
int cat_tier_committed(enum cat_tier t);
/* An instance's price at a tier, USD per instance-hour; NaN when it has none. */
double cat_cloud_usd_per_hour(const struct cat_cloud *c, enum cat_tier t);
struct strbuf;
/* Appends the tiers an instance has a price for to sb: "on-demand, 1y, 3y"; "none" when none. */
void cat_cloud_tiers(const struct cat_cloud *c, struct strbuf *sb);

struct catalog;
/*
 * The scale-out bandwidth, Gb/s for the whole instance, with which an
 * instance may be one of several nodes of a run; NaN when it is to be used
 * alone: it publishes no network, or it holds a single GPU whose network is
 * below the fastest NIC that GPU's host slot feeds (cat_host_max_nic_gbps():
 * 200 Gb/s on PCIe Gen4, 400 on Gen5).  A one-GPU instance has no GPU
 * fabric, so every byte of tensor, pipeline and data parallelism crosses
 * its network; training clusters give each GPU a NIC of its slot's speed
 * (DGX H100: eight 400G NICs for eight GPUs), while general-purpose
 * instances share 10-25 Gb/s without RDMA.  Instances of several GPUs
 * reduce inside the node first and keep their published network, unless
 * they are a slice of a larger NVLink domain (the 4-GPU nodes of a GB200
 * NVL72 rack: not a node shape of the GPU, cat_node_shape_ok()), whose
 * GPUs reach the rest of the rack over NVLink, not the network.
 */
double cat_cloud_cluster_gbps(const struct catalog *cat, const struct cat_cloud *c);

struct cat_facility {
	struct cat_row row;
	double value;
	char *unit;
	char *description;
};

/*
 * Parts a cluster is bought from beyond its servers: scale-out switches,
 * NICs, optics and cables (each for one links.csv scale-out link), shared
 * storage and liquid-cooling plant.  The bill of materials (cost/bom.h)
 * prices itself from these rows.
 */
struct cat_part {
	struct cat_row row;
	char *kind;        /* switch | nic | optic | cable | storage | cooling */
	char *link;        /* links.csv scale-out key (switch, nic, optic, cable) */
	double ports;      /* switch radix; ports per NIC */
	double port_gbps;  /* Gb/s per port */
	double power_w;    /* W per item (storage: per TB; cooling: per kW) */
	double price_usd;  /* USD per item (storage: per TB; cooling: per kW of IT load) */
	double write_gbps; /* storage: sustained write GB/s per TB */
};

/*
 * A board name a driver or profiler reports for a GPU (Kineto's
 * deviceProperties name: "NVIDIA A100-PG509-200"), mapped to its gpus.csv
 * row.  catalog_gpu_for_device() reads them.
 */
struct cat_board {
	struct cat_row row;
	char *gpu; /* gpus.csv key */
};

struct catalog;

/* Column description, for generic listing (catalog show, --csv, --json). */
enum cat_col_type {
	CAT_COL_TEXT,
	CAT_COL_NUM
};
struct cat_column {
	const char *name;
	enum cat_col_type type;
	const char *unit;       /* canonical unit for numbers ("GB/s"), or NULL */
	size_t offset;          /* into the row struct */
	unsigned flags;         /* CAT_REQUIRED, CAT_REF_* */
	struct num_range range; /* numbers: what a cell may hold, in `unit` */
	const char *help;       /* one line for docs/catalog.md and `gpuscope fields` */
};
#define CAT_REQUIRED 1u
#define CAT_REF_GPU 2u
#define CAT_REF_LINK 4u
#define CAT_REF_CPU 8u
#define CAT_DATE 16u    /* text: YYYY-MM or YYYY-MM-DD */
#define CAT_VERSION 32u /* text: a release number, digits and dots ("2.14") */

struct cat_schema {
	const char *file; /* "gpus.csv" */
	const char *what; /* "gpu" */
	size_t row_size;
	const struct cat_column *cols;
	size_t ncols;
};

const struct cat_schema *catalog_schema(enum cat_table t);
/* Table from its name ("gpus", "links" ...); -1 when unknown. */
int catalog_table_from_name(const char *name);
/* The name of a table: "gpus", "links" ... (a static string). */
const char *catalog_table_name(enum cat_table t);
/* A table's column by name; NULL when the table has none of that name. */
const struct cat_column *catalog_column(enum cat_table t, const char *name);
/* A cell of a row: the text (NULL when empty) of a text column, the number (NaN) of a number column. */
const char *cat_cell_text(const struct cat_column *c, const void *row);
double cat_cell_num(const struct cat_column *c, const void *row);

/*
 * Filters of a listing, each applied to the tables that have its column:
 * vendor (gpus, servers, cpus), provider (clouds), memory_gib (gpus), gpu
 * (servers, clouds).  Text compares ignoring case, except the gpu key.
 */
struct cat_filter {
	const char *vendor;    /* NULL: any */
	const char *provider;  /* NULL: any */
	double min_memory_gib; /* NaN: any */
	const char *gpu_key;   /* a gpus.csv key; NULL: any */
};
/* Whether a row of table t passes every filter that applies to t. */
int catalog_row_matches(enum cat_table t, const void *row, const struct cat_filter *f);

/*
 * A row of any table by name, for `catalog show`: an exact key in any
 * table first, then catalog_resolve() table by table.  Returns the row
 * with *table set, or NULL with why filled: the first table's "ambiguous"
 * message, else the GPU table's (the most useful for an unknown name).
 */
const void *catalog_resolve_any(const struct catalog *c, const char *name, enum cat_table *table, char *why,
				size_t why_len);

/*
 * Loads the embedded catalog, then `user_dir` when not NULL.  Returns 0 and a
 * catalog to free with catalog_free(), or -1 with *err naming file, line,
 * column and field.
 */
int catalog_load(struct catalog **out, const char *user_dir, struct diag *err);
/*
 * Loads only `dir` on top of the embedded rows and checks it, for
 * `catalog check DIR`.  Returns the number of rows read from dir, or -1.
 */
int catalog_check_dir(const char *dir, struct diag *err);
/* Loads one table from a buffer into c (tests, fuzzers).  name is used in messages. */
int catalog_load_buffer(struct catalog *c, enum cat_table t, const char *name, const char *buf, size_t len,
			struct diag *err);
/* An empty catalog (tests, fuzzers). */
struct catalog *catalog_new(void);
/* Checks cross-table references (server.gpu exists ...). */
int catalog_validate(const struct catalog *c, struct diag *err);
void catalog_free(struct catalog *c);

size_t catalog_count(const struct catalog *c, enum cat_table t);
/* i-th row of a table, in file order (user rows replace in place, new ones append). */
const void *catalog_row(const struct catalog *c, enum cat_table t, size_t i);

#define catalog_gpu_at(c, i) ((const struct cat_gpu *)catalog_row(c, CAT_GPUS, i))
#define catalog_link_at(c, i) ((const struct cat_link *)catalog_row(c, CAT_LINKS, i))
#define catalog_server_at(c, i) ((const struct cat_server *)catalog_row(c, CAT_SERVERS, i))
#define catalog_cpu_at(c, i) ((const struct cat_cpu *)catalog_row(c, CAT_CPUS, i))
#define catalog_cloud_at(c, i) ((const struct cat_cloud *)catalog_row(c, CAT_CLOUDS, i))
#define catalog_facility_at(c, i) ((const struct cat_facility *)catalog_row(c, CAT_FACILITY, i))
#define catalog_part_at(c, i) ((const struct cat_part *)catalog_row(c, CAT_PARTS, i))
#define catalog_board_at(c, i) ((const struct cat_board *)catalog_row(c, CAT_BOARDS, i))

/* Exact key lookup; NULL when absent. */
const void *catalog_get(const struct catalog *c, enum cat_table t, const char *key);

/*
 * Name resolution for user input: exact key, then key/name/alias compared
 * case-insensitively ignoring punctuation and vendor words ("NVIDIA",
 * "Tesla"), then a unique partial match.  Returns the row, or NULL with
 * why filled: "unknown gpu 'x'; closest: a, b, c" or "ambiguous gpu 'a100':
 * matches a100-sxm4-40gb, a100-sxm4-80gb, ...".
 */
const void *catalog_resolve(const struct catalog *c, enum cat_table t, const char *name, char *why,
			    size_t why_len);

#define catalog_gpu(c, n, w, l) ((const struct cat_gpu *)catalog_resolve(c, CAT_GPUS, n, w, l))
#define catalog_server(c, n, w, l) ((const struct cat_server *)catalog_resolve(c, CAT_SERVERS, n, w, l))
#define catalog_cloud(c, n, w, l) ((const struct cat_cloud *)catalog_resolve(c, CAT_CLOUDS, n, w, l))
#define catalog_link(c, n, w, l) ((const struct cat_link *)catalog_resolve(c, CAT_LINKS, n, w, l))
#define catalog_cpu(c, n, w, l) ((const struct cat_cpu *)catalog_resolve(c, CAT_CPUS, n, w, l))

/*
 * The GPU a device name stands for, as a driver or profiler writes it
 * (Kineto's deviceProperties: name, totalGlobalMem, numSms): the rows of
 * boards.csv and the GPUs' own keys, names and aliases whose spelling
 * matches (exactly, else in part), kept only where the GPU's memory is
 * within 8 % of mem_bytes and its SM (compute unit) count is sms; either
 * NaN skips that test.  Returns the one GPU left, or NULL with why filled:
 * "ambiguous ..." with the candidates, or "unknown ..." with the GPUs of
 * the same memory and SM count and the closest names.
 */
const struct cat_gpu *catalog_gpu_for_device(const struct catalog *c, const char *name, double mem_bytes,
					     double sms, char *why, size_t why_len);

/* Facility default by key; NaN when absent. */
double catalog_facility(const struct catalog *c, const char *key);

/*
 * Dense peak of a GPU at a precision name ("fp32", "tf32", "fp16", "bf16",
 * "fp8", "int8", "fp4", "fp64"), TFLOP/s; NaN when unsupported.
 */
double cat_gpu_peak_tflops(const struct cat_gpu *g, const char *precision);
/* Those precision names, for an option's choices: an index, or -1 when unknown. */
#define CAT_PRECISION_NAMES "fp64 fp32 tf32 fp16 bf16 fp8 int8 fp4"
int cat_precision_from_name(const char *name);
/* The name of a precision index ("fp8"); NULL when out of range. */
const char *cat_precision_name(int i);

static inline int cat_has(double v)
{
	return !isnan(v);
}

/* ---- shapes that can be bought (catalog/shape.c) ---- */

/*
 * The GPU counts a node of g may hold, ascending, at most max of them, from
 * its node_gpus cell ("4;8", "1-10"); returns how many (0: any count).
 */
size_t cat_node_sizes(const struct cat_gpu *g, int *out, size_t max);
/*
 * Whether a node of n GPUs of g exists: n is one of its node sizes, and
 * the GPU's fabric (or the switch that extends it) joins n GPUs.  Returns
 * 1, or 0 with why filled ("an SXM baseboard holds 4 or 8 GPUs, not 2").
 */
int cat_node_shape_ok(const struct catalog *c, const struct cat_gpu *g, int n, char *why, size_t why_len);
/* The fastest NIC (Gb/s) g's host PCIe slots can feed; NaN when unknown. */
double cat_host_max_nic_gbps(const struct catalog *c, const struct cat_gpu *g);
/*
 * CPU cores per GPU of a catalog server: cores x sockets / GPUs, the share
 * of the host's cores that feeds each GPU's data loading; 0 when unknown.
 */
double cat_server_cores_per_gpu(const struct catalog *c, const struct cat_server *s);
/* The first part of a kind for a scale-out link key (NULL link: any); NULL when none. */
const struct cat_part *cat_part_for(const struct catalog *c, const char *kind, const char *link);

/* ---- lifecycle: what can still be bought and run (catalog/life.c) ---- */

/*
 * Months are counted as year x 12 + month - 1, so that they compare and
 * subtract: 2024-08 is 24295.
 */
/* The month of "YYYY-MM" or "YYYY-MM-DD"; -1 when s is NULL or not a date. */
int cat_month_parse(const char *s);
/* The current month (UTC) by the system clock. */
int cat_month_now(void);
/* A price whose as_of lies more than this many months before now is stale. */
#define CAT_PRICE_STALE_MONTHS 36

/* Why a part should not be bought or run today, a bit mask; 0: current. */
#define CAT_LIFE_END_OF_SALE 1u /* its end_of_sale (or its GPU's) is this month or earlier */
#define CAT_LIFE_UNSUPPORTED 2u /* current CUDA or PyTorch releases dropped its architecture */
#define CAT_LIFE_PRICE_STALE 4u /* in catalog tables: its price is over CAT_PRICE_STALE_MONTHS old */
unsigned cat_gpu_life(const struct cat_gpu *g, int now_month);
/* A server's own end of sale and its GPU's lifecycle. */
unsigned cat_server_life(const struct catalog *c, const struct cat_server *s, int now_month);
/*
 * The short marks of a life mask for tables, "eos", "sw" or "eos+sw"
 * (a static string; "" for 0).
 */
const char *cat_life_marks(unsigned life);
/*
 * What the marks of a life mask mean, for the note under a table, appended to
 * sb: " <open>eos<close> past its end of sale;" and the like for sw and a
 * stale price ($), each mark written between open and close ("(" and ")"
 * where the table puts it after a name), then where the dates and sources are.
 */
void cat_life_legend(unsigned life, const char *open, const char *close, struct strbuf *sb);
struct strbuf;
/*
 * The facts of a GPU's lifecycle in words, appended to sb: "end of sale
 * 2024-08", "volta: CUDA 12 and PyTorch 2.14 were the last releases to
 * support it", joined by "; "; with a future end of sale, "end of sale
 * 2027-03 (announced)".  Appends nothing for a current GPU.
 */
void cat_gpu_life_text(const struct cat_gpu *g, int now_month, struct strbuf *sb);
/* The same for a server: its own end of sale, then its GPU's facts. */
void cat_server_life_text(const struct catalog *c, const struct cat_server *s, int now_month, struct strbuf *sb);
/*
 * Where a row's lifecycle cells come from: the text of its source cell
 * after "lifecycle:", up to the end of the cell; NULL when it has none.
 * Points into the row.
 */
const char *cat_life_source(const struct cat_row *r);
/* Whether a dated price is stale at now: its row's as_of is over CAT_PRICE_STALE_MONTHS old. */
int cat_price_stale(const struct cat_row *r, double price_usd, int now_month);

#endif
