/*
 * Column tables of the catalog files.  The loader, `catalog show`, and the
 * CSV/JSON listings all work from these, so a new column is one line here,
 * one field in catalog.h and one paragraph in docs/catalog.md.
 */
#include <stddef.h>
#include <string.h>

#include "catalog/catalog.h"

#define ROWCOLS(T, namereq)                                                   \
	{"key", CAT_COL_TEXT, NULL, offsetof(T, row.key), CAT_REQUIRED},      \
	{"name", CAT_COL_TEXT, NULL, offsetof(T, row.name), namereq},         \
	{"aliases", CAT_COL_TEXT, NULL, offsetof(T, row.aliases), 0}
#define METACOLS(T)                                                           \
	{"source", CAT_COL_TEXT, NULL, offsetof(T, row.source), CAT_REQUIRED}, \
	{"as_of", CAT_COL_TEXT, NULL, offsetof(T, row.as_of), CAT_REQUIRED},   \
	{"confidence", CAT_COL_TEXT, NULL, offsetof(T, row.confidence), 0}
#define TXT(T, f) {#f, CAT_COL_TEXT, NULL, offsetof(T, f), 0}
#define REF(T, f, flag) {#f, CAT_COL_TEXT, NULL, offsetof(T, f), flag}
#define NUM(T, f, u) {#f, CAT_COL_NUM, u, offsetof(T, f), 0}

static const struct cat_column gpu_cols[] = {
	ROWCOLS(struct cat_gpu, CAT_REQUIRED),
	TXT(struct cat_gpu, vendor),
	TXT(struct cat_gpu, arch),
	NUM(struct cat_gpu, launch_year, NULL),
	TXT(struct cat_gpu, form_factor),
	NUM(struct cat_gpu, memory_gib, "GiB"),
	TXT(struct cat_gpu, memory_type),
	NUM(struct cat_gpu, mem_bw_gbps, "GB/s"),
	NUM(struct cat_gpu, fp64_tflops, "TFLOPS"),
	NUM(struct cat_gpu, fp32_tflops, "TFLOPS"),
	NUM(struct cat_gpu, tf32_tflops, "TFLOPS"),
	NUM(struct cat_gpu, fp16_tflops, "TFLOPS"),
	NUM(struct cat_gpu, bf16_tflops, "TFLOPS"),
	NUM(struct cat_gpu, fp8_tflops, "TFLOPS"),
	NUM(struct cat_gpu, int8_tops, "TOPS"),
	NUM(struct cat_gpu, fp4_tflops, "TFLOPS"),
	NUM(struct cat_gpu, tdp_w, "W"),
	NUM(struct cat_gpu, idle_w, "W"),
	REF(struct cat_gpu, gpu_link, CAT_REF_LINK),
	NUM(struct cat_gpu, gpu_link_gbps, "GB/s"),
	NUM(struct cat_gpu, pcie_gen, NULL),
	NUM(struct cat_gpu, pcie_lanes, NULL),
	NUM(struct cat_gpu, mig_slices, NULL),
	NUM(struct cat_gpu, sm_count, NULL),
	NUM(struct cat_gpu, l2_mib, "MiB"),
	TXT(struct cat_gpu, compute_capability),
	TXT(struct cat_gpu, ecosystem),
	NUM(struct cat_gpu, price_usd, "USD"),
	TXT(struct cat_gpu, node_gpus),
	METACOLS(struct cat_gpu),
};

static const struct cat_column link_cols[] = {
	ROWCOLS(struct cat_link, CAT_REQUIRED),
	TXT(struct cat_link, kind),
	TXT(struct cat_link, generation),
	NUM(struct cat_link, bw_gbps_per_dir, "GB/s"),
	NUM(struct cat_link, latency_us, "us"),
	NUM(struct cat_link, lanes, NULL),
	NUM(struct cat_link, domain_gpus, NULL),
	REF(struct cat_link, switch_link, CAT_REF_LINK),
	NUM(struct cat_link, max_nic_gbps, "Gb/s"),
	REF(struct cat_link, scaleout_link, CAT_REF_LINK),
	NUM(struct cat_link, scaleout_ports, NULL),
	METACOLS(struct cat_link),
};

static const struct cat_column server_cols[] = {
	ROWCOLS(struct cat_server, CAT_REQUIRED),
	TXT(struct cat_server, vendor),
	NUM(struct cat_server, year, NULL),
	REF(struct cat_server, gpu, CAT_REF_GPU | CAT_REQUIRED),
	NUM(struct cat_server, gpu_count, NULL),
	REF(struct cat_server, gpu_link, CAT_REF_LINK),
	REF(struct cat_server, cpu, CAT_REF_CPU),
	NUM(struct cat_server, cpu_count, NULL),
	REF(struct cat_server, nic, CAT_REF_LINK),
	NUM(struct cat_server, nic_count, NULL),
	NUM(struct cat_server, nic_gbps, "Gb/s"),
	NUM(struct cat_server, ram_gib, "GiB"),
	NUM(struct cat_server, power_kw, "kW"),
	NUM(struct cat_server, idle_kw, "kW"),
	NUM(struct cat_server, rack_units, NULL),
	NUM(struct cat_server, price_usd, "USD"),
	TXT(struct cat_server, cooling),
	METACOLS(struct cat_server),
};

static const struct cat_column cpu_cols[] = {
	ROWCOLS(struct cat_cpu, CAT_REQUIRED),
	TXT(struct cat_cpu, vendor),
	NUM(struct cat_cpu, year, NULL),
	NUM(struct cat_cpu, cores, NULL),
	NUM(struct cat_cpu, threads, NULL),
	NUM(struct cat_cpu, base_ghz, NULL),
	NUM(struct cat_cpu, boost_ghz, NULL),
	NUM(struct cat_cpu, l3_mib, "MiB"),
	NUM(struct cat_cpu, mem_channels, NULL),
	TXT(struct cat_cpu, mem_type),
	NUM(struct cat_cpu, mem_bw_gbps, "GB/s"),
	NUM(struct cat_cpu, tdp_w, "W"),
	NUM(struct cat_cpu, pcie_gen, NULL),
	NUM(struct cat_cpu, pcie_lanes, NULL),
	METACOLS(struct cat_cpu),
};

static const struct cat_column cloud_cols[] = {
	{"key", CAT_COL_TEXT, NULL, offsetof(struct cat_cloud, row.key), CAT_REQUIRED},
	TXT(struct cat_cloud, provider),
	{"name", CAT_COL_TEXT, NULL, offsetof(struct cat_cloud, row.name), CAT_REQUIRED},
	{"aliases", CAT_COL_TEXT, NULL, offsetof(struct cat_cloud, row.aliases), 0},
	REF(struct cat_cloud, gpu, CAT_REF_GPU | CAT_REQUIRED),
	NUM(struct cat_cloud, gpu_count, NULL),
	NUM(struct cat_cloud, usd_per_hour, "USD"),
	TXT(struct cat_cloud, region),
	REF(struct cat_cloud, gpu_link, CAT_REF_LINK),
	NUM(struct cat_cloud, network_gbps, "Gb/s"),
	METACOLS(struct cat_cloud),
};

static const struct cat_column facility_cols[] = {
	{"key", CAT_COL_TEXT, NULL, offsetof(struct cat_facility, row.key), CAT_REQUIRED},
	{"value", CAT_COL_NUM, NULL, offsetof(struct cat_facility, value), CAT_REQUIRED},
	TXT(struct cat_facility, unit),
	TXT(struct cat_facility, description),
	METACOLS(struct cat_facility),
};

static const struct cat_column part_cols[] = {
	ROWCOLS(struct cat_part, CAT_REQUIRED),
	TXT(struct cat_part, kind),
	REF(struct cat_part, link, CAT_REF_LINK),
	NUM(struct cat_part, ports, NULL),
	NUM(struct cat_part, port_gbps, "Gb/s"),
	NUM(struct cat_part, power_w, "W"),
	NUM(struct cat_part, price_usd, "USD"),
	NUM(struct cat_part, write_gbps, "GB/s"),
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
