/*
 * Column tables of the catalog files.  The loader, `catalog show`, and the
 * CSV/JSON listings all work from these, so a new column is one line here,
 * one field in catalog.h and one paragraph in docs/catalog.md.
 */
#include <stddef.h>
#include <string.h>

#include "catalog/catalog.h"

#define ROWCOLS(T, namereq)                                                   \
	{"key", CAT_COL_TEXT, NULL, offsetof(T, row.key), CAT_REQUIRED, {0, 0, 0}},      \
	{"name", CAT_COL_TEXT, NULL, offsetof(T, row.name), namereq, {0, 0, 0}},         \
	{"aliases", CAT_COL_TEXT, NULL, offsetof(T, row.aliases), 0, {0, 0, 0}}
#define METACOLS(T)                                                           \
	{"source", CAT_COL_TEXT, NULL, offsetof(T, row.source), CAT_REQUIRED, {0, 0, 0}}, \
	{"as_of", CAT_COL_TEXT, NULL, offsetof(T, row.as_of), CAT_REQUIRED, {0, 0, 0}},   \
	{"confidence", CAT_COL_TEXT, NULL, offsetof(T, row.confidence), 0, {0, 0, 0}}
#define TXT(T, f) {#f, CAT_COL_TEXT, NULL, offsetof(T, f), 0, {0, 0, 0}}
#define REF(T, f, flag) {#f, CAT_COL_TEXT, NULL, offsetof(T, f), flag, {0, 0, 0}}
#define NUM(T, f, u, r) {#f, CAT_COL_NUM, u, offsetof(T, f), 0, r}

/*
 * What a number may be, per quantity, in the column's unit: wide enough for
 * any real part, narrow enough that no product or quotient of the models
 * overflows.  A price, power or capacity of zero is refused (it would make
 * a free or weightless machine); counts are whole.
 */
#define R_YEAR {1990, 2100, NUM_WHOLE}
#define R_COUNT {1, 1e6, NUM_WHOLE}             /* GPUs, CPUs, cores, lanes, ports */
#define R_COUNT0 {0, 1e6, NUM_WHOLE}            /* may be none: MIG slices, NICs */
#define R_GIB {0, 1e6, NUM_ABOVE_MIN}           /* a memory, GiB */
#define R_MIB {0, 1e9, NUM_ABOVE_MIN}           /* a cache, MiB */
#define R_GBPS {0, 1e6, NUM_ABOVE_MIN}          /* a bandwidth, GB/s or Gb/s */
#define R_TFLOPS {0, 1e7, NUM_ABOVE_MIN}        /* a compute rate */
#define R_WATTS {0, 1e5, NUM_ABOVE_MIN}         /* one part's power */
#define R_WATTS0 {0, 1e5, 0}                    /* idle power, a passive part's: may be nil */
#define R_KW {0, 1e4, NUM_ABOVE_MIN}            /* one server's power */
#define R_KW0 {0, 1e4, 0}
#define R_USD {0, 1e10, NUM_ABOVE_MIN}          /* a price */
#define R_USD_HOUR {0, 1e6, NUM_ABOVE_MIN}      /* a rental price per hour */
#define R_PCIE_GEN {1, 10, NUM_WHOLE}
#define R_US {0, 1e6, NUM_ABOVE_MIN}            /* a latency */
#define R_GHZ {0, 100, NUM_ABOVE_MIN}
#define R_UNITS {0, 1000, NUM_ABOVE_MIN}        /* rack units */
#define R_FACILITY {0, 1e12, 0}                 /* facility defaults: rates, ratios, prices */

static const struct cat_column gpu_cols[] = {
	ROWCOLS(struct cat_gpu, CAT_REQUIRED),
	TXT(struct cat_gpu, vendor),
	TXT(struct cat_gpu, arch),
	NUM(struct cat_gpu, launch_year, NULL, R_YEAR),
	TXT(struct cat_gpu, form_factor),
	NUM(struct cat_gpu, memory_gib, "GiB", R_GIB),
	TXT(struct cat_gpu, memory_type),
	NUM(struct cat_gpu, mem_bw_gbps, "GB/s", R_GBPS),
	NUM(struct cat_gpu, fp64_tflops, "TFLOPS", R_TFLOPS),
	NUM(struct cat_gpu, fp32_tflops, "TFLOPS", R_TFLOPS),
	NUM(struct cat_gpu, tf32_tflops, "TFLOPS", R_TFLOPS),
	NUM(struct cat_gpu, fp16_tflops, "TFLOPS", R_TFLOPS),
	NUM(struct cat_gpu, bf16_tflops, "TFLOPS", R_TFLOPS),
	NUM(struct cat_gpu, fp8_tflops, "TFLOPS", R_TFLOPS),
	NUM(struct cat_gpu, int8_tops, "TOPS", R_TFLOPS),
	NUM(struct cat_gpu, fp4_tflops, "TFLOPS", R_TFLOPS),
	NUM(struct cat_gpu, tdp_w, "W", R_WATTS),
	NUM(struct cat_gpu, idle_w, "W", R_WATTS0),
	REF(struct cat_gpu, gpu_link, CAT_REF_LINK),
	NUM(struct cat_gpu, gpu_link_gbps, "GB/s", R_GBPS),
	NUM(struct cat_gpu, pcie_gen, NULL, R_PCIE_GEN),
	NUM(struct cat_gpu, pcie_lanes, NULL, R_COUNT),
	NUM(struct cat_gpu, mig_slices, NULL, R_COUNT0),
	NUM(struct cat_gpu, sm_count, NULL, R_COUNT),
	NUM(struct cat_gpu, l2_mib, "MiB", R_MIB),
	TXT(struct cat_gpu, compute_capability),
	TXT(struct cat_gpu, ecosystem),
	NUM(struct cat_gpu, price_usd, "USD", R_USD),
	TXT(struct cat_gpu, node_gpus),
	METACOLS(struct cat_gpu),
};

static const struct cat_column link_cols[] = {
	ROWCOLS(struct cat_link, CAT_REQUIRED),
	TXT(struct cat_link, kind),
	TXT(struct cat_link, generation),
	NUM(struct cat_link, bw_gbps_per_dir, "GB/s", R_GBPS),
	NUM(struct cat_link, latency_us, "us", R_US),
	NUM(struct cat_link, lanes, NULL, R_COUNT),
	NUM(struct cat_link, domain_gpus, NULL, R_COUNT),
	REF(struct cat_link, switch_link, CAT_REF_LINK),
	NUM(struct cat_link, max_nic_gbps, "Gb/s", R_GBPS),
	REF(struct cat_link, scaleout_link, CAT_REF_LINK),
	NUM(struct cat_link, scaleout_ports, NULL, R_COUNT0),
	METACOLS(struct cat_link),
};

static const struct cat_column server_cols[] = {
	ROWCOLS(struct cat_server, CAT_REQUIRED),
	TXT(struct cat_server, vendor),
	NUM(struct cat_server, year, NULL, R_YEAR),
	REF(struct cat_server, gpu, CAT_REF_GPU | CAT_REQUIRED),
	NUM(struct cat_server, gpu_count, NULL, R_COUNT),
	REF(struct cat_server, gpu_link, CAT_REF_LINK),
	REF(struct cat_server, cpu, CAT_REF_CPU),
	NUM(struct cat_server, cpu_count, NULL, R_COUNT0),
	REF(struct cat_server, nic, CAT_REF_LINK),
	NUM(struct cat_server, nic_count, NULL, R_COUNT0),
	NUM(struct cat_server, nic_gbps, "Gb/s", R_GBPS),
	NUM(struct cat_server, ram_gib, "GiB", R_GIB),
	NUM(struct cat_server, power_kw, "kW", R_KW),
	NUM(struct cat_server, idle_kw, "kW", R_KW0),
	NUM(struct cat_server, rack_units, NULL, R_UNITS),
	NUM(struct cat_server, price_usd, "USD", R_USD),
	TXT(struct cat_server, cooling),
	METACOLS(struct cat_server),
};

static const struct cat_column cpu_cols[] = {
	ROWCOLS(struct cat_cpu, CAT_REQUIRED),
	TXT(struct cat_cpu, vendor),
	NUM(struct cat_cpu, year, NULL, R_YEAR),
	NUM(struct cat_cpu, cores, NULL, R_COUNT),
	NUM(struct cat_cpu, threads, NULL, R_COUNT),
	NUM(struct cat_cpu, base_ghz, NULL, R_GHZ),
	NUM(struct cat_cpu, boost_ghz, NULL, R_GHZ),
	NUM(struct cat_cpu, l3_mib, "MiB", R_MIB),
	NUM(struct cat_cpu, mem_channels, NULL, R_COUNT),
	TXT(struct cat_cpu, mem_type),
	NUM(struct cat_cpu, mem_bw_gbps, "GB/s", R_GBPS),
	NUM(struct cat_cpu, tdp_w, "W", R_WATTS),
	NUM(struct cat_cpu, pcie_gen, NULL, R_PCIE_GEN),
	NUM(struct cat_cpu, pcie_lanes, NULL, R_COUNT),
	METACOLS(struct cat_cpu),
};

static const struct cat_column cloud_cols[] = {
	{"key", CAT_COL_TEXT, NULL, offsetof(struct cat_cloud, row.key), CAT_REQUIRED, {0, 0, 0}},
	TXT(struct cat_cloud, provider),
	{"name", CAT_COL_TEXT, NULL, offsetof(struct cat_cloud, row.name), CAT_REQUIRED, {0, 0, 0}},
	{"aliases", CAT_COL_TEXT, NULL, offsetof(struct cat_cloud, row.aliases), 0, {0, 0, 0}},
	REF(struct cat_cloud, gpu, CAT_REF_GPU | CAT_REQUIRED),
	NUM(struct cat_cloud, gpu_count, NULL, R_COUNT),
	NUM(struct cat_cloud, usd_per_hour, "USD", R_USD_HOUR),
	TXT(struct cat_cloud, region),
	REF(struct cat_cloud, gpu_link, CAT_REF_LINK),
	NUM(struct cat_cloud, network_gbps, "Gb/s", R_GBPS),
	METACOLS(struct cat_cloud),
};

static const struct cat_column facility_cols[] = {
	{"key", CAT_COL_TEXT, NULL, offsetof(struct cat_facility, row.key), CAT_REQUIRED, {0, 0, 0}},
	{"value", CAT_COL_NUM, NULL, offsetof(struct cat_facility, value), CAT_REQUIRED, R_FACILITY},
	TXT(struct cat_facility, unit),
	TXT(struct cat_facility, description),
	METACOLS(struct cat_facility),
};

static const struct cat_column part_cols[] = {
	ROWCOLS(struct cat_part, CAT_REQUIRED),
	TXT(struct cat_part, kind),
	REF(struct cat_part, link, CAT_REF_LINK),
	NUM(struct cat_part, ports, NULL, R_COUNT),
	NUM(struct cat_part, port_gbps, "Gb/s", R_GBPS),
	NUM(struct cat_part, power_w, "W", R_WATTS0),
	NUM(struct cat_part, price_usd, "USD", R_USD),
	NUM(struct cat_part, write_gbps, "GB/s", R_GBPS),
	METACOLS(struct cat_part),
};

#define N(a) (sizeof(a) / sizeof((a)[0]))
static const struct cat_schema schemas[CAT_NTABLES] = {
	[CAT_GPUS] = {"gpus.csv", "gpu", sizeof(struct cat_gpu), gpu_cols, N(gpu_cols)},
	[CAT_LINKS] = {"links.csv", "link", sizeof(struct cat_link), link_cols, N(link_cols)},
	[CAT_SERVERS] = {"servers.csv", "server", sizeof(struct cat_server), server_cols, N(server_cols)},
	[CAT_CPUS] = {"cpus.csv", "cpu", sizeof(struct cat_cpu), cpu_cols, N(cpu_cols)},
	[CAT_CLOUDS] = {"clouds.csv", "cloud instance", sizeof(struct cat_cloud), cloud_cols, N(cloud_cols)},
	[CAT_FACILITY] = {"facility.csv", "facility default", sizeof(struct cat_facility), facility_cols, N(facility_cols)},
	[CAT_PARTS] = {"parts.csv", "part", sizeof(struct cat_part), part_cols, N(part_cols)},
};

const struct cat_schema *catalog_schema(enum cat_table t)
{
	return &schemas[t];
}

int catalog_table_from_name(const char *name)
{
	static const char *names[CAT_NTABLES] = {"gpus", "links", "servers", "cpus", "clouds", "facility", "parts"};
	int i;
	for (i = 0; i < CAT_NTABLES; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}
