/*
 * Column tables of the catalog files.  The loader, `catalog show`, the
 * CSV/JSON listings and the field lists of docs/catalog.md all work from
 * these, so a new column is one line here and one field in catalog.h.
 *
 * Each table is one list of C(name, member, kind, unit, flags, range, help)
 * lines, read twice: as the loader's struct cat_column array and as the
 * report/field.h schema of a row in --json (which adds "origin").
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "catalog/catalog.h"
#include "catalog/fields.h"
#include "util/names.h"
#include "util/strbuf.h"

/*
 * What a number may be, per quantity, in the column's unit: wide enough for
 * any real part, narrow enough that no product or quotient of the models
 * overflows.  A price, power or capacity of zero is refused (it would make
 * a free or weightless machine); counts are whole.
 */
/* clang-format off */
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
#define R_CUDA_MAJOR {1, 100, NUM_WHOLE}        /* a CUDA toolkit major version */

#define R_NONE {0, 0, 0}                        /* text */
/* clang-format on */

/* The key, name and aliases first in most tables, provenance last in all. */
#define ROW_COLS(C, T, namereq, keyhelp) \
	C(T, key, row.key, TEXT, NULL, CAT_REQUIRED, R_NONE, keyhelp) \
	C(T, name, row.name, TEXT, NULL, namereq, R_NONE, "display name") \
	ALIAS_COL(C, T)
#define ALIAS_COL(C, T) \
	C(T, aliases, row.aliases, TEXT, NULL, 0, R_NONE, "other spellings, `;`-separated, matched ignoring case")
#define META_COLS(C, T) \
	C(T, source, row.source, TEXT, NULL, CAT_REQUIRED, R_NONE, \
	  "short citation of where the figures come from, with the grade of the main figures when it " \
	  "differs from the row's") \
	C(T, as_of, row.as_of, TEXT, NULL, CAT_REQUIRED, R_NONE, \
	  "`YYYY-MM` or `YYYY-MM-DD`: when the figure applies or was read; for prices, the price date") \
	C(T, confidence, row.confidence, TEXT, NULL, 0, R_NONE, \
	  "the weakest mark among the row's figures: `Q` quoted, `D` derived, `R` recalled, `E` estimate")

#define END_OF_SALE_COL(C, T) \
	C(T, end_of_sale, end_of_sale, TEXT, NULL, CAT_DATE, R_NONE, \
	  "`YYYY-MM`: the month it stopped being sold (a later month: announced); empty while on sale. " \
	  "Its source follows `lifecycle:` in the source cell")

#define GPU_COLS(C, T) \
	ROW_COLS(C, T, CAT_REQUIRED, \
		 "slug, e.g. `a100-sxm4-80gb`, `h100-sxm5-80gb`, `h200-sxm-141gb`, `mi300x-192gb`") \
	C(T, vendor, vendor, TEXT, NULL, 0, R_NONE, "`nvidia`, `amd` or `intel`") \
	C(T, arch, arch, TEXT, NULL, 0, R_NONE, \
	  "`volta`, `turing`, `ampere`, `ada`, `hopper`, `blackwell`, `cdna2`, `cdna3`, `gaudi2`, `gaudi3`") \
	C(T, launch_year, launch_year, NUM, NULL, 0, R_YEAR, "year of first availability") \
	C(T, form_factor, form_factor, TEXT, NULL, 0, R_NONE, "`sxm`, `pcie`, `oam` or `superchip`") \
	C(T, memory_gib, memory_gib, NUM, "GiB", 0, R_GIB, "device memory") \
	C(T, memory_type, memory_type, TEXT, NULL, 0, R_NONE, \
	  "`HBM2`, `HBM2e`, `HBM3`, `HBM3e`, `GDDR6`, `GDDR6X`") \
	C(T, mem_bw_gbps, mem_bw_gbps, NUM, "GB/s", 0, R_GBPS, "peak memory bandwidth") \
	C(T, fp64_tflops, fp64_tflops, NUM, "TFLOPS", 0, R_TFLOPS, "higher of FP64 vector and FP64 tensor core") \
	C(T, fp32_tflops, fp32_tflops, NUM, "TFLOPS", 0, R_TFLOPS, "FP32 without tensor cores") \
	C(T, tf32_tflops, tf32_tflops, NUM, "TFLOPS", 0, R_TFLOPS, \
	  "TF32 tensor core, dense; empty where there is no TF32 (Volta, Turing, CDNA2, Gaudi: not published)") \
	C(T, fp16_tflops, fp16_tflops, NUM, "TFLOPS", 0, R_TFLOPS, "FP16 tensor core, dense, FP32 accumulate") \
	C(T, bf16_tflops, bf16_tflops, NUM, "TFLOPS", 0, R_TFLOPS, \
	  "BF16 tensor core, dense; empty on V100 and T4") \
	C(T, fp8_tflops, fp8_tflops, NUM, "TFLOPS", 0, R_TFLOPS, \
	  "FP8 tensor core, dense (Ada, Hopper, Blackwell, CDNA3, Gaudi)") \
	C(T, int8_tops, int8_tops, NUM, "TOPS", 0, R_TFLOPS, \
	  "INT8 tensor core, dense; empty where not a tensor-core path (V100) or not published") \
	C(T, fp4_tflops, fp4_tflops, NUM, "TFLOPS", 0, R_TFLOPS, "FP4, dense (Blackwell only)") \
	C(T, gemm16_tflops, gemm16_tflops, NUM, "TFLOPS", 0, R_TFLOPS, \
	  "the board's measured dense 16-bit GEMM ceiling (large square matmuls; bf16 where the board has " \
	  "it, else fp16): the model scales its generation's tensor-core fractions by it (docs/model.md, " \
	  "\"Boards off their generation\"); empty where the generation's fraction stands") \
	C(T, tdp_w, tdp_w, NUM, "W", 0, R_WATTS, "board power limit (module power for GH200)") \
	C(T, idle_w, idle_w, NUM, "W", 0, R_WATTS0, "typical idle power; estimate, about 10-15 % of TDP") \
	C(T, gpu_link, gpu_link, TEXT, NULL, CAT_REF_LINK, R_NONE, \
	  "key in `links.csv` of the GPU's own GPU-to-GPU link (NVLink generation or bridge, xGMI, Gaudi " \
	  "RoCE); empty if none") \
	C(T, gpu_link_gbps, gpu_link_gbps, NUM, "GB/s", 0, R_GBPS, \
	  "that link's bandwidth for this GPU, per direction (H100 SXM 450, A100 SXM 300, V100 SXM2 150, " \
	  "B200 900, A30 bridge 100): authoritative for the card; the links row gives the fabric's nominal figure") \
	C(T, pcie_gen, pcie_gen, NUM, NULL, 0, R_PCIE_GEN, \
	  "host PCIe generation (3-6); empty for superchips, whose host link is NVLink-C2C") \
	C(T, pcie_lanes, pcie_lanes, NUM, NULL, 0, R_COUNT, "host PCIe width; empty for superchips") \
	C(T, mig_slices, mig_slices, NUM, NULL, 0, R_COUNT0, \
	  "maximum MIG instances (7 on A100/H100/H200/B200, 4 on A30); for AMD CDNA3 the maximum compute " \
	  "partitions (CPX, 8); empty where there is no partitioning") \
	C(T, sm_count, sm_count, NUM, NULL, 0, R_COUNT, \
	  "streaming multiprocessors; compute units (CU) for AMD; empty for Gaudi and where unpublished") \
	C(T, l2_mib, l2_mib, NUM, "MiB", 0, R_MIB, \
	  "last-level on-die cache (L2); on-die SRAM for Gaudi; MI300X's 256 MiB Infinity Cache is not included") \
	C(T, compute_capability, compute_capability, TEXT, NULL, 0, R_NONE, \
	  "CUDA compute capability (`8.0`, `9.0`, `10.0`) or ROCm gfx target (`gfx90a`, `gfx942`); empty for Gaudi") \
	C(T, ecosystem, ecosystem, TEXT, NULL, 0, R_NONE, "`cuda`, `rocm` or `synapseai`") \
	C(T, price_usd, price_usd, NUM, "USD", 0, R_USD, \
	  "rough street price of one GPU around `as_of` (midpoint of a range; used-market for V100 and A100 " \
	  "40GB); empty where no figure was found") \
	C(T, node_gpus, node_gpus, TEXT, NULL, 0, R_NONE, \
	  "the GPU counts a node that can be bought holds: `4;8` (SXM/OAM baseboards), `36;72` (GB200 NVLink " \
	  "domains), `1-10` (PCIe servers); plan searches only these, estimate refuses other `--gpus-per-node`") \
	END_OF_SALE_COL(C, T) \
	C(T, cuda_last, cuda_last, NUM, NULL, 0, R_CUDA_MAJOR, \
	  "the last CUDA toolkit major version that supports the GPU's architecture (Volta: 12); empty while " \
	  "current toolkits do") \
	C(T, pytorch_last, pytorch_last, TEXT, NULL, CAT_VERSION, R_NONE, \
	  "the last PyTorch release whose binaries support the architecture (Volta: `2.14`); empty while " \
	  "current releases do") \
	META_COLS(C, T)

#define LINK_COLS(C, T) \
	ROW_COLS( \
		C, T, CAT_REQUIRED, \
		"`pcie3`...`pcie6`, `nvlink-c2c`, `nvlink1`...`nvlink5`, NVLink bridges, `xgmi-*`, `gaudi2-roce`, " \
		"`gaudi3-roce`, `nvswitch1`...`nvswitch4`, `ib-edr`...`ib-xdr`, `roce-100`...`roce-800`") \
	C(T, kind, kind, TEXT, NULL, 0, R_NONE, \
	  "`host` (PCIe, NVLink-C2C), `gpu` (direct GPU-GPU fabric or bridge), `switch` (NVSwitch), " \
	  "`scaleout` (between servers)") \
	C(T, generation, generation, TEXT, NULL, 0, R_NONE, \
	  "generation number, or the speed grade for networks (`HDR`, `400GbE`)") \
	C(T, bw_gbps_per_dir, bw_gbps_per_dir, NUM, "GB/s", 0, R_GBPS, \
	  "per direction: host = one x16 link; gpu = total per GPU over all its links; switch = what one GPU " \
	  "can send through the switch; scaleout = one port") \
	C(T, latency_us, latency_us, NUM, "us", 0, R_US, \
	  "typical small-message latency of one hop; estimates (PCIe and NVLink about 1 us, switched NVLink " \
	  "1.5, IB 0.8-1.0, RoCE about 2)") \
	C(T, lanes, lanes, NUM, NULL, 0, R_COUNT, "16 for PCIe rows, else empty") \
	C(T, domain_gpus, domain_gpus, NUM, NULL, 0, R_COUNT, \
	  "gpu and switch rows: the most GPUs one such fabric joins (4 for NVLink boards, 8 for HGX NVSwitch, " \
	  "72 for NVL72)") \
	C(T, switch_link, switch_link, TEXT, NULL, CAT_REF_LINK, R_NONE, \
	  "gpu rows: the NVSwitch row that joins boards larger than `domain_gpus` (empty: none, as in DGX-1's " \
	  "hybrid cube-mesh)") \
	C(T, max_nic_gbps, max_nic_gbps, NUM, "Gb/s", 0, R_GBPS, \
	  "host rows: the fastest NIC one x16 slot feeds (Gen4 200, Gen5 400, Gen6 800)") \
	C(T, scaleout_link, scaleout_link, TEXT, NULL, CAT_REF_LINK, R_NONE, \
	  "gpu rows with on-die network ports (Gaudi): the scale-out link, used instead of NICs") \
	C(T, scaleout_ports, scaleout_ports, NUM, NULL, 0, R_COUNT0, \
	  "gpu rows with on-die network ports: ports per GPU") \
	META_COLS(C, T)

#define SERVER_COLS(C, T) \
	ROW_COLS(C, T, CAT_REQUIRED, "slug, e.g. `dgx-h100`, `hgx-h100-8`, `dgx-a100-320gb`") \
	C(T, vendor, vendor, TEXT, NULL, 0, R_NONE, \
	  "`nvidia`, `dell`, `inspur`, `supermicro`, `lenovo`, or `oem` for generic HGX builds") \
	C(T, year, year, NUM, NULL, 0, R_YEAR, "year of introduction") \
	C(T, gpu, gpu, TEXT, NULL, CAT_REF_GPU | CAT_REQUIRED, R_NONE, \
	  "key in `gpus.csv`: the GPU of the configuration the row describes") \
	C(T, gpu_count, gpu_count, NUM, NULL, 0, R_COUNT, "GPUs in the server") \
	C(T, gpu_link, gpu_link, TEXT, NULL, CAT_REF_LINK, R_NONE, \
	  "key in `links.csv` of the fabric between the server's GPUs (`nvswitch3`, `nvlink2` for the DGX-1 " \
	  "hybrid cube-mesh, `pcie4` for PCIe servers)") \
	C(T, cpu, cpu, TEXT, NULL, CAT_REF_CPU, R_NONE, "key in `cpus.csv`") \
	C(T, cpu_count, cpu_count, NUM, NULL, 0, R_COUNT0, "CPU sockets") \
	C(T, nic, nic, TEXT, NULL, CAT_REF_LINK, R_NONE, \
	  "key in `links.csv` (scaleout) of the GPU-fabric NICs; storage and management NICs are not counted") \
	C(T, nic_count, nic_count, NUM, NULL, 0, R_COUNT0, "GPU-fabric NICs") \
	C(T, nic_gbps, nic_gbps, NUM, "Gb/s", 0, R_GBPS, "speed of one NIC") \
	C(T, ram_gib, ram_gib, NUM, "GiB", 0, R_GIB, "host memory of the configuration") \
	C(T, power_kw, power_kw, NUM, "kW", 0, R_KW, "maximum system draw (not the installed PSU capacity)") \
	C(T, idle_kw, idle_kw, NUM, "kW", 0, R_KW0, "idle draw; estimate") \
	C(T, rack_units, rack_units, NUM, NULL, 0, R_UNITS, "height in rack units, U (48 for a full rack)") \
	C(T, price_usd, price_usd, NUM, "USD", 0, R_USD, \
	  "whole system: launch list price where `as_of` is the launch date, otherwise an estimate") \
	C(T, cooling, cooling, TEXT, NULL, 0, R_NONE, \
	  "`air` or `liquid` (GB200 NVL72); sets the default rack power") \
	END_OF_SALE_COL(C, T) \
	META_COLS(C, T)

#define CPU_COLS(C, T) \
	ROW_COLS(C, T, CAT_REQUIRED, "slug of the CPU model, e.g. `epyc-9654`") \
	C(T, vendor, vendor, TEXT, NULL, 0, R_NONE, "`intel`, `amd` or `nvidia`") \
	C(T, year, year, NUM, NULL, 0, R_YEAR, "year of introduction") \
	C(T, cores, cores, NUM, NULL, 0, R_COUNT, "cores per socket") \
	C(T, threads, threads, NUM, NULL, 0, R_COUNT, "threads per socket") \
	C(T, base_ghz, base_ghz, NUM, NULL, 0, R_GHZ, "base clock, GHz") \
	C(T, boost_ghz, boost_ghz, NUM, NULL, 0, R_GHZ, "boost clock, GHz") \
	C(T, l3_mib, l3_mib, NUM, "MiB", 0, R_MIB, "L3 cache of one socket") \
	C(T, mem_channels, mem_channels, NUM, NULL, 0, R_COUNT, \
	  "memory channels; empty for Grace, whose LPDDR5X is on the package") \
	C(T, mem_type, mem_type, TEXT, NULL, 0, R_NONE, "DDR generation and speed, e.g. `DDR5-4800`") \
	C(T, mem_bw_gbps, mem_bw_gbps, NUM, "GB/s", 0, R_GBPS, "theoretical: channels x MT/s x 8 B") \
	C(T, tdp_w, tdp_w, NUM, "W", 0, R_WATTS, "thermal design power of one socket") \
	C(T, pcie_gen, pcie_gen, NUM, NULL, 0, R_PCIE_GEN, "PCIe generation") \
	C(T, pcie_lanes, pcie_lanes, NUM, NULL, 0, R_COUNT, "PCIe lanes of one socket in a one-socket system") \
	META_COLS(C, T)

/* clouds.csv has the provider between key and name */
#define CLOUD_COLS(C, T) \
	C(T, key, row.key, TEXT, NULL, CAT_REQUIRED, R_NONE, \
	  "instance name in lower case, with `_` turned into `-` (`p5.48xlarge`, `a3-highgpu-8g`, " \
	  "`nd96isr-h100-v5`, `gpu-8x-h100-sxm5`)") \
	C(T, provider, provider, TEXT, NULL, 0, R_NONE, "`aws`, `gcp`, `azure`, `lambda`, `coreweave`, `oci`") \
	C(T, name, row.name, TEXT, NULL, CAT_REQUIRED, R_NONE, \
	  "the provider's spelling (`Standard_ND96isr_H100_v5`, `gpu_8x_h100_sxm5`)") \
	ALIAS_COL(C, T) \
	C(T, gpu, gpu, TEXT, NULL, CAT_REF_GPU | CAT_REQUIRED, R_NONE, "key in `gpus.csv`") \
	C(T, gpu_count, gpu_count, NUM, NULL, 0, R_COUNT, "GPUs in the instance") \
	C(T, usd_per_hour, usd_per_hour, NUM, "USD", 0, R_USD_HOUR, \
	  "on-demand Linux price of the whole instance for one hour") \
	C(T, region, region, TEXT, NULL, 0, R_NONE, "region the price is for") \
	C(T, gpu_link, gpu_link, TEXT, NULL, CAT_REF_LINK, R_NONE, \
	  "key in `links.csv` of the GPU interconnect inside the instance; empty for one GPU") \
	C(T, network_gbps, network_gbps, NUM, "Gb/s", 0, R_GBPS, \
	  "total scale-out bandwidth of the instance; empty where not published") \
	C(T, usd_per_hour_1y, usd_per_hour_1y, NUM, "USD", 0, R_USD_HOUR, \
	  "the whole instance for one hour on a 1-year commitment (every hour of the term paid, no upfront); " \
	  "empty: not offered or not collected") \
	C(T, usd_per_hour_3y, usd_per_hour_3y, NUM, "USD", 0, R_USD_HOUR, "the same on a 3-year commitment") \
	C(T, usd_per_hour_spot, usd_per_hour_spot, NUM, "USD", 0, R_USD_HOUR, \
	  "the whole instance for one hour as spot (preemptible) capacity; empty: not offered or not collected") \
	C(T, tier_source, tier_source, TEXT, NULL, 0, R_NONE, \
	  "where the 1y, 3y and spot prices come from; required with any of them") \
	C(T, tier_as_of, tier_as_of, TEXT, NULL, 0, R_NONE, \
	  "`YYYY-MM` or `YYYY-MM-DD`: the date of those prices; required with any of them") \
	C(T, tier_confidence, tier_confidence, TEXT, NULL, 0, R_NONE, \
	  "the weakest mark among those prices: `Q` quoted, `D` derived, `R` recalled, `E` estimate") \
	META_COLS(C, T)

#define FACILITY_COLS(C, T) \
	C(T, key, row.key, TEXT, NULL, CAT_REQUIRED, R_NONE, \
	  "the constant's name, as `tco` uses it (`electricity_usd_per_kwh`, ...)") \
	C(T, value, value, NUM, NULL, CAT_REQUIRED, R_FACILITY, "the constant, in `unit`") \
	C(T, unit, unit, TEXT, NULL, 0, R_NONE, "`USD/kWh`, `ratio`, `USD/kW-month`, `years`, `percent` ...") \
	C(T, description, description, TEXT, NULL, 0, R_NONE, "what the constant is") \
	META_COLS(C, T)

#define PART_COLS(C, T) \
	ROW_COLS(C, T, CAT_REQUIRED, "slug, e.g. `sw-ib-ndr`") \
	C(T, kind, kind, TEXT, NULL, 0, R_NONE, \
	  "`switch`, `nic`, `optic`, `cable`, `storage`, `cooling`, `frontend`, `oob`, `pdu`, `install` or " \
	  "`licence`") \
	C(T, link, link, TEXT, NULL, CAT_REF_LINK, R_NONE, \
	  "the `links.csv` scale-out key the part serves (switch, nic, optic, cable, frontend)") \
	C(T, ports, ports, NUM, NULL, 0, R_COUNT, "switch radix; ports per NIC; front end: ports per 8 GPUs") \
	C(T, port_gbps, port_gbps, NUM, "Gb/s", 0, R_GBPS, "speed of one port") \
	C(T, power_w, power_w, NUM, "W", 0, R_WATTS0, "per item (storage: per TB; cooling: per kW)") \
	C(T, price_usd, price_usd, NUM, "USD", 0, R_USD, \
	  "per item (storage: per TB; cooling and pdu: per kW of IT load; install: per GPU; licence: per " \
	  "GPU-year)") \
	C(T, write_gbps, write_gbps, NUM, "GB/s", 0, R_GBPS, "storage: sustained write GB/s per TB") \
	META_COLS(C, T)

#define BOARD_COLS(C, T) \
	ROW_COLS(C, T, CAT_REQUIRED, "slug of the board name, e.g. `nvidia-a100-pg509-200`") \
	C(T, gpu, gpu, TEXT, NULL, CAT_REF_GPU | CAT_REQUIRED, R_NONE, \
	  "key in `gpus.csv` of the GPU the board carries") \
	META_COLS(C, T)

/* The loader's view of a column of row struct T. */
#define CAT_COLUMN(T, name, member, kind, unit, flags, range, help) \
	{#name, CAT_COL_##kind, unit, offsetof(T, member), flags, range, help},
/* The JSON's: the same names and units, and the row's origin after them. */
#define ROW_FIELD(T, name, member, kind, unit, flags, range, help) {#name, REPORT_##kind, unit, help},
#define ORIGIN_FIELD {"origin", REPORT_TEXT, NULL, "file:line the row was read from (--json and show only)"},
/* Fields computed against today after origin, for the tables whose parts are bought (catalog/life.c). */
#define LIFE_FIELDS \
	{"lifecycle", REPORT_TEXT, NULL, \
	 "the lifecycle facts against today: end of sale, the last CUDA and PyTorch releases (for a server, " \
	 "its GPU's too); null when current (--json and show only)"}, \
		{"price_stale", REPORT_BOOL, NULL, \
		 "price_usd is dated (as_of) more than 36 months before today (--json and show only)"},
#define NO_FIELDS

/* X(table, lower, row struct, columns, computed fields, file, what a row is, name) */
#define TABLES(X) \
	X(CAT_GPUS, gpu, struct cat_gpu, GPU_COLS, LIFE_FIELDS, "gpus.csv", "gpu", "gpus") \
	X(CAT_LINKS, link, struct cat_link, LINK_COLS, NO_FIELDS, "links.csv", "link", "links") \
	X(CAT_SERVERS, server, struct cat_server, SERVER_COLS, LIFE_FIELDS, "servers.csv", "server", "servers") \
	X(CAT_CPUS, cpu, struct cat_cpu, CPU_COLS, NO_FIELDS, "cpus.csv", "cpu", "cpus") \
	X(CAT_CLOUDS, cloud, struct cat_cloud, CLOUD_COLS, NO_FIELDS, "clouds.csv", "cloud instance", "clouds") \
	X(CAT_FACILITY, facility, struct cat_facility, FACILITY_COLS, NO_FIELDS, "facility.csv", \
	  "facility default", "facility") \
	X(CAT_PARTS, part, struct cat_part, PART_COLS, NO_FIELDS, "parts.csv", "part", "parts") \
	X(CAT_BOARDS, board, struct cat_board, BOARD_COLS, NO_FIELDS, "boards.csv", "board", "boards")

#define COLUMNS_DEFINE(table, lower, T, LIST, EXTRA, file, what, name) \
	static const struct cat_column lower##_cols[] = {LIST(CAT_COLUMN, T)}; \
	static const struct report_field lower##_fields[] = {LIST(ROW_FIELD, T) ORIGIN_FIELD EXTRA};
TABLES(COLUMNS_DEFINE)

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define SCHEMA_ENTRY(table, lower, T, LIST, EXTRA, file, what, name) \
	[table] = {file, what, sizeof(T), lower##_cols, N(lower##_cols)},
#define REPORT_ENTRY(table, lower, T, LIST, EXTRA, file, what, name) \
	[table] = REPORT_SCHEMA("catalog-" name, lower##_fields),
#define NAME_ENTRY(table, lower, T, LIST, EXTRA, file, what, name) [table] = name,
static const struct cat_schema schemas[CAT_NTABLES] = {TABLES(SCHEMA_ENTRY)};
static const struct report_schema row_schemas[CAT_NTABLES] = {TABLES(REPORT_ENTRY)};
static const char *const names[CAT_NTABLES] = {TABLES(NAME_ENTRY)};

const struct cat_schema *catalog_schema(enum cat_table t)
{
	return &schemas[t];
}

int catalog_table_from_name(const char *name)
{
	return names_index(names, CAT_NTABLES, name);
}

const char *catalog_table_name(enum cat_table t)
{
	return (unsigned)t < CAT_NTABLES ? names[t] : NULL;
}

const struct cat_column *catalog_column(enum cat_table t, const char *name)
{
	const struct cat_schema *s = &schemas[t];
	size_t i;
	for (i = 0; i < s->ncols; i++)
		if (!strcmp(s->cols[i].name, name))
			return &s->cols[i];
	return NULL;
}

const char *cat_cell_text(const struct cat_column *c, const void *row)
{
	return c->type == CAT_COL_TEXT ? *(char *const *)((const char *)row + c->offset) : NULL;
}

double cat_cell_num(const struct cat_column *c, const void *row)
{
	return c->type == CAT_COL_NUM ? *(const double *)((const char *)row + c->offset) : NAN;
}

const struct report_schema *catalog_row_schema(enum cat_table t)
{
	return &row_schemas[t];
}

void catalog_row_report(const struct catalog *c, enum cat_table t, const void *row, int now_month,
			struct report_row *out)
{
	const struct cat_schema *s = &schemas[t];
	const struct cat_row *r = row;
	struct strbuf life = STRBUF_INIT;
	double price = NAN;
	size_t i;
	for (i = 0; i < s->ncols; i++)
		if (s->cols[i].type == CAT_COL_TEXT)
			report_set_text(out, i, cat_cell_text(&s->cols[i], row));
		else
			report_set_num(out, i, cat_cell_num(&s->cols[i], row));
	report_set_text(out, i++, report_printf(out, "%s:%d", r->origin, r->line));
	if (t == CAT_GPUS) {
		cat_gpu_life_text(row, now_month, &life);
		price = ((const struct cat_gpu *)row)->price_usd;
	} else if (t == CAT_SERVERS) {
		cat_server_life_text(c, row, now_month, &life);
		price = ((const struct cat_server *)row)->price_usd;
	} else {
		return;
	}
	report_set_text(out, i++, life.len ? report_printf(out, "%s", strbuf_str(&life)) : NULL);
	report_set_bool(out, i, cat_price_stale(r, price, now_month));
	strbuf_release(&life);
}
