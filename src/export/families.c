/*
 * The metric families: each reading with its dcgm-exporter name and its
 * Prometheus-convention name, and the renderer that writes them.
 *
 * Values are read in the backend's units (percent, mW, mJ, MHz, ns, KiB)
 * and scaled at this edge: `nscale` gives the native base unit (ratio,
 * watts, joules, hertz, seconds, bytes) and `dscale` dcgm-exporter's unit
 * (percent, W, mJ, MHz, ns, MiB).  dcgm-exporter's names, types and help
 * follow its etc/default-counters.csv and DCGM's field list.
 *
 * Rendering order: the dcgm pass (entries that have a dcgm name), then the
 * native pass (every entry with a native name under --names native or both;
 * under --names dcgm only those dcgm has no name for, so nothing is lost),
 * then the exporter's own families.  Entries that share a native name (one
 * family split by a constant label) are adjacent in the table, so every
 * family is one contiguous group.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/view.h"
#include "host/host.h"
#include "util/xalloc.h"

int names_mode_parse(const char *s, enum names_mode *out)
{
	if (!strcmp(s, "dcgm"))
		*out = NAMES_DCGM;
	else if (!strcmp(s, "native"))
		*out = NAMES_NATIVE;
	else if (!strcmp(s, "both"))
		*out = NAMES_BOTH;
	else
		return -1;
	return 0;
}

/* Which series an entry has per GPU. */
enum scope {
	SC_GPU,          /* one per answering GPU */
	SC_ALL,          /* one per GPU, answering or not (up, lost) */
	SC_LINK,         /* one per NVLink: label link */
	SC_ONE_LINK,     /* one per GPU, of the link the entry names (dcgm's *_L0 ... fields) */
	SC_REASON,       /* one per clock event reason bit: label reason */
	SC_XID,          /* one per XID code seen: label xid (any GPU, lost ones too) */
	SC_XID_WINDOW,   /* dcgm's windowed XID count: labels xid, window_size_in_ms */
	SC_XID_LAST,     /* the last XID (dcgm: labels err_code, err_msg) */
	SC_CLOCK_WINDOW, /* dcgm's windowed clock-event count: labels clock_event, window_size_in_ms */
	SC_CLOCK_TOTAL,  /* dcgm's clock events since the start: label clock_event */
	SC_P2P,          /* one per peer GPU: labels peer_gpu, link_status */
	SC_MIG,          /* one per MIG device */
	SC_PROC,         /* one per process (--processes) */
	SC_GPM,          /* profiling: one per GPU, or per MIG GPU instance when MIG is on */
	SC_INFO,         /* gpu_info: identity labels, value 1 */
};

/* Entry flags. */
#define F_DCGM_FLOOR 0x1 /* dcgm value is an integer count of its unit (MiB) */
#define F_DCGM_MIG 0x2   /* dcgm: on a MIG-enabled GPU, one series per MIG device instead */
#define F_LISTED 0x4     /* only when a counters file lists it (N x (N - 1) series: 5,112 at 72 GPUs) */
/* SC_ONE_LINK: the link, kept in the flags' high bits */
#define F_LINK(n) ((unsigned)(n) << 8)
#define LINK_OF(f) ((f)->flags >> 8)

typedef int (*getter)(const struct xgpu *g, unsigned sub, double *raw);

struct fam {
	const char *native;
	enum expo_type ntype;
	const char *unit; /* OpenMetrics unit of the native name */
	double nscale;
	const char *nlabel, *nvalue; /* constant label of the native series */
	const char *dcgm;
	enum expo_type dtype;
	double dscale;
	enum scope scope;
	unsigned flags;
	getter get;
	const char *nhelp, *dhelp;
};

#define S_HAS(g, m) GPU_SAMPLE_HAS(&(g)->s, m)
#define ST_HAS(g, m) ((g)->have_static && GPU_STATIC_HAS(&(g)->st, m))

#define GET_SAMPLE(fn, member) \
	static int fn(const struct xgpu *g, unsigned sub, double *raw) \
	{ \
		if (!S_HAS(g, member)) \
			return 0; \
		*raw = (double)g->s.member; \
		return 1; \
	}
#define GET_STATIC(fn, member) \
	static int fn(const struct xgpu *g, unsigned sub, double *raw) \
	{ \
		if (!ST_HAS(g, member)) \
			return 0; \
		*raw = (double)g->st.member; \
		return 1; \
	}
#define GET_LINK(fn, member) \
	static int fn(const struct xgpu *g, unsigned sub, double *raw) \
	{ \
		const struct gpu_link_sample *l = &g->s.links[sub]; \
		if (!GPU_LINK_HAS(l, member)) \
			return 0; \
		*raw = (double)l->member; \
		return 1; \
	}
/* The sum over every link that reports the counter (dcgm's *_TOTAL fields). */
#define GET_LINK_SUM(fn, member) \
	static int fn(const struct xgpu *g, unsigned sub, double *raw) \
	{ \
		unsigned i, any = 0; \
		double sum = 0; \
		for (i = 0; i < g->s.nlinks && i < GPU_MAX_NVLINKS; i++) \
			if (GPU_LINK_HAS(&g->s.links[i], member)) { \
				sum += (double)g->s.links[i].member; \
				any = 1; \
			} \
		*raw = sum; \
		return any; \
	}

/* dcgm's DCGM_FI_DEV_NVLINK_BANDWIDTH_Ln: bytes over link n, transmit plus receive. */
static int get_link_bytes(const struct xgpu *g, unsigned link, double *raw)
{
	const struct gpu_link_sample *l = &g->s.links[link];
	if (link >= g->s.nlinks || link >= GPU_MAX_NVLINKS || !GPU_LINK_HAS(l, tx_kib) || !GPU_LINK_HAS(l, rx_kib))
		return 0;
	*raw = ((double)l->tx_kib + (double)l->rx_kib) * 1024.0;
	return 1;
}

static int get_up(const struct xgpu *g, unsigned sub, double *raw)
{
	*raw = g->answered && !g->stalled && !g->lost;
	return 1;
}

static int get_lost(const struct xgpu *g, unsigned sub, double *raw)
{
	*raw = g->lost;
	return 1;
}

static int get_one(const struct xgpu *g, unsigned sub, double *raw)
{
	*raw = 1;
	return 1;
}

GET_SAMPLE(get_util_gpu, util_gpu_pct)
GET_SAMPLE(get_util_mem, util_mem_pct)
GET_SAMPLE(get_util_enc, util_enc_pct)
GET_SAMPLE(get_util_dec, util_dec_pct)
GET_SAMPLE(get_fb_total, fb_total_bytes)
GET_SAMPLE(get_fb_used, fb_used_bytes)
GET_SAMPLE(get_fb_free, fb_free_bytes)
GET_SAMPLE(get_fb_reserved, fb_reserved_bytes)
GET_SAMPLE(get_power, power_mw)
GET_STATIC(get_power_limit, power_limit_mw)
GET_SAMPLE(get_energy, energy_mj)
GET_SAMPLE(get_temp_gpu, temp_gpu_c)
GET_SAMPLE(get_temp_mem, temp_mem_c)
GET_STATIC(get_temp_slowdown, temp_slowdown_c)
GET_STATIC(get_temp_shutdown, temp_shutdown_c)
GET_SAMPLE(get_fan, fan_pct)
GET_SAMPLE(get_pstate, pstate)
GET_SAMPLE(get_clock_sm, clock_sm_mhz)
GET_SAMPLE(get_clock_mem, clock_mem_mhz)
GET_SAMPLE(get_clock_gr, clock_graphics_mhz)
GET_SAMPLE(get_clock_video, clock_video_mhz)
GET_STATIC(get_clock_max_sm, clock_max_sm_mhz)
GET_STATIC(get_clock_max_mem, clock_max_mem_mhz)
/* PCIe rates: GPM's average over the interval where the GPU has it, else the 20 ms window. */
static int get_pcie_tx(const struct xgpu *g, unsigned sub, double *raw)
{
	if (GPU_GPM_HAS(&g->gpm, pcie_tx_bytes_per_s)) {
		*raw = g->gpm.pcie_tx_bytes_per_s;
		return 1;
	}
	if (!S_HAS(g, pcie_tx_bytes_per_s))
		return 0;
	*raw = (double)g->s.pcie_tx_bytes_per_s;
	return 1;
}

static int get_pcie_rx(const struct xgpu *g, unsigned sub, double *raw)
{
	if (GPU_GPM_HAS(&g->gpm, pcie_rx_bytes_per_s)) {
		*raw = g->gpm.pcie_rx_bytes_per_s;
		return 1;
	}
	if (!S_HAS(g, pcie_rx_bytes_per_s))
		return 0;
	*raw = (double)g->s.pcie_rx_bytes_per_s;
	return 1;
}

/* GPM readings: sub is GPU_NO_INSTANCE for the whole GPU, else an index into mig[]. */
#define GET_GPM(fn, member) \
	static int fn(const struct xgpu *g, unsigned sub, double *raw) \
	{ \
		const struct gpu_gpm *m = sub == GPU_NO_INSTANCE ? &g->gpm : \
					  g->mig_gpm             ? &g->mig_gpm[sub] : \
								   NULL; \
		if (!m || !GPU_GPM_HAS(m, member)) \
			return 0; \
		*raw = m->member; \
		return 1; \
	}
GET_GPM(get_gpm_gr, graphics_active_pct)
GET_GPM(get_gpm_sm, sm_active_pct)
GET_GPM(get_gpm_occ, sm_occupancy_pct)
GET_GPM(get_gpm_tensor, tensor_active_pct)
GET_GPM(get_gpm_fp64, fp64_active_pct)
GET_GPM(get_gpm_fp32, fp32_active_pct)
GET_GPM(get_gpm_fp16, fp16_active_pct)
GET_GPM(get_gpm_dram, dram_active_pct)
GET_GPM(get_gpm_nvl_tx, nvlink_tx_bytes_per_s)
GET_GPM(get_gpm_nvl_rx, nvlink_rx_bytes_per_s)
GET_SAMPLE(get_pcie_replay, pcie_replay_count)
GET_SAMPLE(get_pcie_gen, pcie_gen)
GET_SAMPLE(get_pcie_width, pcie_width)
GET_STATIC(get_pcie_max_gen, pcie_max_gen)
GET_STATIC(get_pcie_max_width, pcie_max_width)
GET_SAMPLE(get_ecc_sbe_vol, ecc_sbe_volatile)
GET_SAMPLE(get_ecc_dbe_vol, ecc_dbe_volatile)
GET_SAMPLE(get_ecc_sbe_agg, ecc_sbe_aggregate)
GET_SAMPLE(get_ecc_dbe_agg, ecc_dbe_aggregate)
GET_STATIC(get_ecc_mode, ecc_mode)
GET_SAMPLE(get_retired_sbe, retired_pages_sbe)
GET_SAMPLE(get_retired_dbe, retired_pages_dbe)
GET_SAMPLE(get_retired_pending, retired_pages_pending)
GET_SAMPLE(get_remap_cor, remapped_rows_correctable)
GET_SAMPLE(get_remap_unc, remapped_rows_uncorrectable)
GET_SAMPLE(get_remap_pending, remapped_rows_pending)
GET_SAMPLE(get_remap_failure, remapped_rows_failure)
GET_SAMPLE(get_clock_events, clock_event_reasons)
GET_SAMPLE(get_viol_power, violation_power_ns)
GET_SAMPLE(get_viol_thermal, violation_thermal_ns)
GET_SAMPLE(get_viol_sync, violation_sync_boost_ns)
GET_SAMPLE(get_viol_board, violation_board_limit_ns)
GET_SAMPLE(get_viol_low_util, violation_low_util_ns)
GET_SAMPLE(get_viol_reliability, violation_reliability_ns)
GET_STATIC(get_mig_mode, mig_mode)
GET_STATIC(get_persistence, persistence_mode)
GET_LINK(get_link_up, active)
GET_LINK(get_link_tx, tx_kib)
GET_LINK(get_link_rx, rx_kib)
GET_LINK(get_link_replay, err_replay)
GET_LINK(get_link_recovery, err_recovery)
GET_LINK(get_link_crc_flit, err_crc_flit)
GET_LINK(get_link_crc_data, err_crc_data)
GET_LINK(get_link_ecc_data, err_ecc_data)
GET_LINK_SUM(get_links_crc_flit, err_crc_flit)
GET_LINK_SUM(get_links_crc_data, err_crc_data)
GET_LINK_SUM(get_links_replay, err_replay)
GET_LINK_SUM(get_links_recovery, err_recovery)

static const uint64_t reason_bits[] = {
	GPU_CLOCK_EVENT_GPU_IDLE,    GPU_CLOCK_EVENT_APP_CLOCKS,     GPU_CLOCK_EVENT_SW_POWER_CAP,
	GPU_CLOCK_EVENT_HW_SLOWDOWN, GPU_CLOCK_EVENT_SYNC_BOOST,     GPU_CLOCK_EVENT_SW_THERMAL,
	GPU_CLOCK_EVENT_HW_THERMAL,  GPU_CLOCK_EVENT_HW_POWER_BRAKE, GPU_CLOCK_EVENT_DISPLAY_CLOCKS,
};
#define NREASONS (sizeof(reason_bits) / sizeof(reason_bits[0]))

static int get_reason(const struct xgpu *g, unsigned sub, double *raw)
{
	uint64_t bit = reason_bits[sub];
	if (!S_HAS(g, clock_event_reasons))
		return 0;
	/* A reason the GPU cannot report is absent, not 0. */
	if (ST_HAS(g, clock_event_reasons_supported) && !(g->st.clock_event_reasons_supported & bit))
		return 0;
	*raw = (g->s.clock_event_reasons & bit) != 0;
	return 1;
}

/* dcgm-exporter's clock_event label values, by bit (the names dcgmi prints) */
static const char *const dcgm_clock_names[CLOCKEV_NBITS] = {
	"gpu_idle",   "clocks_setting", "power_cap",      "hw_slowdown",    "sync_boost",
	"sw_thermal", "hw_thermal",     "hw_power_brake", "display_clocks",
};

/* Collections in the window that saw the reason; absent at 0, as dcgm-exporter. */
static int get_clock_window(const struct xgpu *g, unsigned sub, double *raw)
{
	if (!g->clock_tracked || !g->clock_in_window[sub])
		return 0;
	*raw = g->clock_in_window[sub];
	return 1;
}

/* Times the reason came on; 0 from the start for every reason the GPU reports, so increase() sees the first. */
static int get_clock_total(const struct xgpu *g, unsigned sub, double *raw)
{
	if (!g->clock_tracked ||
	    (ST_HAS(g, clock_event_reasons_supported) && !(g->st.clock_event_reasons_supported & (1ull << sub))))
		return 0;
	*raw = (double)g->clock_edges[sub];
	return 1;
}

/* dcgm-exporter's link_status values, by GPU_P2P_* */
static const char *const p2p_names[] = {
	"OK",
	"ChipsetNotSupported",
	"GPUNotSupported",
	"TopologyNotSupported",
	"DisabledByRegKey",
	"NotSupported",
	"Unknown",
};

/* The status toward the view's GPU sub; absent where it was not read. */
static int get_p2p(const struct xgpu *g, unsigned sub, double *raw)
{
	if (sub >= g->np2p || g->p2p[sub] < 0)
		return 0;
	*raw = g->p2p[sub];
	return 1;
}

static int get_nvlink_rate(const struct xgpu *g, unsigned sub, double *raw)
{
	if (!g->nvlink_rate_valid)
		return 0;
	/* DCGM divides KiB/s by 1000 and calls it MB/s (DcgmCacheManager.cpp). */
	*raw = g->nvlink_kib_per_s / 1000.0;
	return 1;
}

static int get_xid_total(const struct xgpu *g, unsigned sub, double *raw)
{
	*raw = (double)g->xids[sub].total;
	return 1;
}

static int get_xid_window(const struct xgpu *g, unsigned sub, double *raw)
{
	if (!g->xids[sub].in_window)
		return 0;
	*raw = g->xids[sub].in_window;
	return 1;
}

static int get_xid_last(const struct xgpu *g, unsigned sub, double *raw)
{
	if (!g->has_last_xid)
		return 0;
	*raw = g->last_xid;
	return 1;
}

/* dcgm-exporter shows 0 until the first XID. */
static int get_xid_last_dcgm(const struct xgpu *g, unsigned sub, double *raw)
{
	*raw = g->has_last_xid ? g->last_xid : 0;
	return 1;
}

static int get_xid_last_time(const struct xgpu *g, unsigned sub, double *raw)
{
	if (!g->has_last_xid)
		return 0;
	*raw = g->last_xid_time_s;
	return 1;
}

static int get_mig_total(const struct xgpu *g, unsigned sub, double *raw)
{
	if (!g->mig[sub].memory_valid)
		return 0;
	*raw = (double)g->mig[sub].memory_total_bytes;
	return 1;
}

static int get_mig_used(const struct xgpu *g, unsigned sub, double *raw)
{
	if (!g->mig[sub].memory_valid)
		return 0;
	*raw = (double)g->mig[sub].memory_used_bytes;
	return 1;
}

static int get_mig_free(const struct xgpu *g, unsigned sub, double *raw)
{
	const struct gpu_mig_instance *m = &g->mig[sub];
	if (!m->memory_valid || m->memory_used_bytes > m->memory_total_bytes)
		return 0;
	*raw = (double)(m->memory_total_bytes - m->memory_used_bytes);
	return 1;
}

static int get_proc_mem(const struct xgpu *g, unsigned sub, double *raw)
{
	if (!g->procs[sub].used_valid)
		return 0;
	*raw = (double)g->procs[sub].used_bytes;
	return 1;
}

#define MIB (1.0 / 1048576.0)
#define G EXPO_GAUGE
#define C EXPO_COUNTER

/*
 * native name, type, unit, scale, const label, value, dcgm name, type, scale,
 * scope, flags, getter, native help, dcgm help
 */
static const struct fam fams[] = {
	{"gpu_up", G, NULL, 1, NULL, NULL, NULL, G, 1, SC_ALL, 0, get_up,
	 "1 when the GPU answered the last collection, 0 when it is lost, hung or failing", NULL},
	{"gpu_lost", G, NULL, 1, NULL, NULL, NULL, G, 1, SC_ALL, 0, get_lost,
	 "1 when the driver reported that the GPU fell off the bus (NVML_ERROR_GPU_IS_LOST)", NULL},
	{"gpu_info", EXPO_INFO, NULL, 1, NULL, NULL, NULL, G, 1, SC_INFO, 0, get_one,
	 "Identity of the GPU: model, PCI bus id, device node, driver and CUDA versions, host", NULL},
	{"gpu_utilization_ratio", G, "ratio", 0.01, NULL, NULL, "DCGM_FI_DEV_GPU_UTIL", G, 1, SC_GPU, 0,
	 get_util_gpu, "Fraction of the last sample period in which a kernel ran on the GPU (not reported on MIG)",
	 "GPU utilization (in %)."},
	{"gpu_memory_copy_utilization_ratio", G, "ratio", 0.01, NULL, NULL, "DCGM_FI_DEV_MEM_COPY_UTIL", G, 1,
	 SC_GPU, 0, get_util_mem, "Fraction of the last sample period in which device memory was read or written",
	 "Memory utilization (in %)."},
	{"gpu_encoder_utilization_ratio", G, "ratio", 0.01, NULL, NULL, "DCGM_FI_DEV_ENC_UTIL", G, 1, SC_GPU, 0,
	 get_util_enc, "Fraction of time the video encoder was busy", "Encoder utilization (in %)."},
	{"gpu_decoder_utilization_ratio", G, "ratio", 0.01, NULL, NULL, "DCGM_FI_DEV_DEC_UTIL", G, 1, SC_GPU, 0,
	 get_util_dec, "Fraction of time the video decoder was busy", "Decoder utilization (in %)."},
	{"gpu_memory_total_bytes", G, "bytes", 1, NULL, NULL, "DCGM_FI_DEV_FB_TOTAL", G, MIB, SC_GPU,
	 F_DCGM_FLOOR | F_DCGM_MIG, get_fb_total, "Framebuffer memory of the GPU",
	 "Framebuffer memory total (in MiB)."},
	{"gpu_memory_used_bytes", G, "bytes", 1, NULL, NULL, "DCGM_FI_DEV_FB_USED", G, MIB, SC_GPU,
	 F_DCGM_FLOOR | F_DCGM_MIG, get_fb_used,
	 "Framebuffer memory in use (excluding the driver's reservation where the driver reports it)",
	 "Framebuffer memory used (in MiB)."},
	{"gpu_memory_free_bytes", G, "bytes", 1, NULL, NULL, "DCGM_FI_DEV_FB_FREE", G, MIB, SC_GPU,
	 F_DCGM_FLOOR | F_DCGM_MIG, get_fb_free, "Framebuffer memory free", "Framebuffer memory free (in MiB)."},
	{"gpu_memory_reserved_bytes", G, "bytes", 1, NULL, NULL, "DCGM_FI_DEV_FB_RESERVED", G, MIB, SC_GPU,
	 F_DCGM_FLOOR, get_fb_reserved, "Framebuffer memory reserved by the driver and firmware",
	 "Framebuffer memory reserved (in MiB)."},
	{"gpu_power_watts", G, "watts", 0.001, NULL, NULL, "DCGM_FI_DEV_POWER_USAGE", G, 0.001, SC_GPU, 0,
	 get_power, "Power draw of the board", "Power draw (in W)."},
	{"gpu_power_limit_watts", G, "watts", 0.001, NULL, NULL, "DCGM_FI_DEV_ENFORCED_POWER_LIMIT", G, 0.001,
	 SC_GPU, 0, get_power_limit, "Power limit the driver enforces",
	 "Effective power limit that the driver enforces (in W)."},
	{"gpu_energy_joules_total", C, "joules", 0.001, NULL, NULL, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", C, 1,
	 SC_GPU, 0, get_energy, "Energy used by the GPU since the driver was loaded",
	 "Total energy consumption since boot (in mJ)."},
	{"gpu_temperature_celsius", G, "celsius", 1, NULL, NULL, "DCGM_FI_DEV_GPU_TEMP", G, 1, SC_GPU, 0,
	 get_temp_gpu, "GPU die temperature", "GPU temperature (in C)."},
	{"gpu_memory_temperature_celsius", G, "celsius", 1, NULL, NULL, "DCGM_FI_DEV_MEMORY_TEMP", G, 1, SC_GPU, 0,
	 get_temp_mem, "HBM memory temperature", "Memory temperature (in C)."},
	{"gpu_slowdown_temperature_celsius", G, "celsius", 1, NULL, NULL, "DCGM_FI_DEV_SLOWDOWN_TEMP", G, 1,
	 SC_GPU, 0, get_temp_slowdown, "Temperature at which the GPU slows its clocks down",
	 "Slowdown temperature for the device (in C)."},
	{"gpu_shutdown_temperature_celsius", G, "celsius", 1, NULL, NULL, "DCGM_FI_DEV_SHUTDOWN_TEMP", G, 1,
	 SC_GPU, 0, get_temp_shutdown, "Temperature at which the GPU shuts down",
	 "Shutdown temperature for the device (in C)."},
	{"gpu_fan_speed_ratio", G, "ratio", 0.01, NULL, NULL, "DCGM_FI_DEV_FAN_SPEED", G, 1, SC_GPU, 0, get_fan,
	 "Fan speed as a fraction of its maximum (absent on passively cooled boards)",
	 "Fan speed for the device in percent 0-100."},
	{"gpu_performance_state", G, NULL, 1, NULL, NULL, "DCGM_FI_DEV_PSTATE", G, 1, SC_GPU, 0, get_pstate,
	 "Performance state, 0 (P0, highest) to 15", "Performance state (P-State) 0-15."},
	{"gpu_sm_clock_hertz", G, "hertz", 1e6, NULL, NULL, "DCGM_FI_DEV_SM_CLOCK", G, 1, SC_GPU, 0, get_clock_sm,
	 "SM clock frequency", "SM clock frequency (in MHz)."},
	{"gpu_memory_clock_hertz", G, "hertz", 1e6, NULL, NULL, "DCGM_FI_DEV_MEM_CLOCK", G, 1, SC_GPU, 0,
	 get_clock_mem, "Memory clock frequency", "Memory clock frequency (in MHz)."},
	{"gpu_graphics_clock_hertz", G, "hertz", 1e6, NULL, NULL, NULL, G, 1, SC_GPU, 0, get_clock_gr,
	 "Graphics clock frequency", NULL},
	{"gpu_video_clock_hertz", G, "hertz", 1e6, NULL, NULL, "DCGM_FI_DEV_VIDEO_CLOCK", G, 1, SC_GPU, 0,
	 get_clock_video, "Video encoder/decoder clock frequency",
	 "Video encoder/decoder clock frequency (in MHz)."},
	{"gpu_sm_clock_max_hertz", G, "hertz", 1e6, NULL, NULL, "DCGM_FI_DEV_MAX_SM_CLOCK", G, 1, SC_GPU, 0,
	 get_clock_max_sm, "Highest SM clock the GPU supports",
	 "Maximum supported SM clock for the device (in MHz)."},
	{"gpu_memory_clock_max_hertz", G, "hertz", 1e6, NULL, NULL, "DCGM_FI_DEV_MAX_MEM_CLOCK", G, 1, SC_GPU, 0,
	 get_clock_max_mem, "Highest memory clock the GPU supports",
	 "Maximum supported memory clock for the device (in MHz)."},
	{"gpu_graphics_engine_active_ratio", G, "ratio", 0.01, NULL, NULL, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", G,
	 0.01, SC_GPM, 0, get_gpm_gr,
	 "Fraction of the interval the graphics/compute engine was busy (GPM, Hopper and later)",
	 "Ratio of time the graphics engine is active."},
	{"gpu_sm_active_ratio", G, "ratio", 0.01, NULL, NULL, "DCGM_FI_PROF_SM_ACTIVE", G, 0.01, SC_GPM, 0,
	 get_gpm_sm, "Fraction of SM cycles with at least one warp resident, averaged over the SMs (GPM)",
	 "The ratio of cycles an SM has at least 1 warp assigned."},
	{"gpu_sm_occupancy_ratio", G, "ratio", 0.01, NULL, NULL, "DCGM_FI_PROF_SM_OCCUPANCY", G, 0.01, SC_GPM, 0,
	 get_gpm_occ, "Resident warps as a fraction of the SMs' maximum (GPM)",
	 "The ratio of number of warps resident on an SM."},
	{"gpu_pipe_active_ratio", G, "ratio", 0.01, "pipe", "tensor", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", G, 0.01,
	 SC_GPM, 0, get_gpm_tensor, "Fraction of cycles an execution pipe was busy, by pipe (GPM)",
	 "Ratio of cycles the tensor (HMMA) pipe is active."},
	{"gpu_pipe_active_ratio", G, "ratio", 0.01, "pipe", "fp64", "DCGM_FI_PROF_PIPE_FP64_ACTIVE", G, 0.01,
	 SC_GPM, 0, get_gpm_fp64, NULL, "Ratio of cycles the fp64 pipes are active."},
	{"gpu_pipe_active_ratio", G, "ratio", 0.01, "pipe", "fp32", "DCGM_FI_PROF_PIPE_FP32_ACTIVE", G, 0.01,
	 SC_GPM, 0, get_gpm_fp32, NULL, "Ratio of cycles the fp32 pipes are active."},
	{"gpu_pipe_active_ratio", G, "ratio", 0.01, "pipe", "fp16", "DCGM_FI_PROF_PIPE_FP16_ACTIVE", G, 0.01,
	 SC_GPM, 0, get_gpm_fp16, NULL, "Ratio of cycles the fp16 pipes are active."},
	{"gpu_dram_active_ratio", G, "ratio", 0.01, NULL, NULL, "DCGM_FI_PROF_DRAM_ACTIVE", G, 0.01, SC_GPM, 0,
	 get_gpm_dram, "Fraction of cycles the device memory interface was busy (GPM)",
	 "Ratio of cycles the device memory interface is active sending or receiving data."},
	{"gpu_nvlink_transmit_bytes_per_second", G, NULL, 1, NULL, NULL, "DCGM_FI_PROF_NVLINK_TX_BYTES", G, 1,
	 SC_GPM, 0, get_gpm_nvl_tx, "NVLink transmit rate over all links, averaged over the interval (GPM)",
	 "The rate of data transmitted over NVLink, not including protocol headers, in bytes per second."},
	{"gpu_nvlink_receive_bytes_per_second", G, NULL, 1, NULL, NULL, "DCGM_FI_PROF_NVLINK_RX_BYTES", G, 1,
	 SC_GPM, 0, get_gpm_nvl_rx, "NVLink receive rate over all links, averaged over the interval (GPM)",
	 "The rate of data received over NVLink, not including protocol headers, in bytes per second."},
	{"gpu_pcie_transmit_bytes_per_second", G, NULL, 1, NULL, NULL, "DCGM_FI_PROF_PCIE_TX_BYTES", G, 1, SC_GPU,
	 0, get_pcie_tx,
	 "PCIe transmit rate, headers included: GPM's interval average on Hopper and later, else the driver's last 20 ms window",
	 "The rate of data transmitted over the PCIe bus - including both protocol headers and data payloads - in bytes per second."},
	{"gpu_pcie_receive_bytes_per_second", G, NULL, 1, NULL, NULL, "DCGM_FI_PROF_PCIE_RX_BYTES", G, 1, SC_GPU,
	 0, get_pcie_rx,
	 "PCIe receive rate, headers included: GPM's interval average on Hopper and later, else the driver's last 20 ms window",
	 "The rate of data received over the PCIe bus - including both protocol headers and data payloads - in bytes per second."},
	{"gpu_pcie_replays_total", C, NULL, 1, NULL, NULL, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", C, 1, SC_GPU, 0,
	 get_pcie_replay, "PCIe link-level replays (retries) since the driver was loaded",
	 "Total number of PCIe retries."},
	{"gpu_pcie_link_generation", G, NULL, 1, NULL, NULL, "DCGM_FI_DEV_PCIE_LINK_GEN", G, 1, SC_GPU, 0,
	 get_pcie_gen, "Current PCIe link generation (drops at idle to save power)",
	 "PCIe Current Link Generation."},
	{"gpu_pcie_link_width", G, NULL, 1, NULL, NULL, "DCGM_FI_DEV_PCIE_LINK_WIDTH", G, 1, SC_GPU, 0,
	 get_pcie_width, "Current PCIe link width in lanes", "PCIe Current Link Width."},
	{"gpu_pcie_link_generation_max", G, NULL, 1, NULL, NULL, "DCGM_FI_DEV_PCIE_MAX_LINK_GEN", G, 1, SC_GPU, 0,
	 get_pcie_max_gen, "Highest PCIe generation the GPU and the slot support", "PCIe Max Link Generation."},
	{"gpu_pcie_link_width_max", G, NULL, 1, NULL, NULL, "DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH", G, 1, SC_GPU, 0,
	 get_pcie_max_width, "Widest PCIe link the GPU and the slot support, in lanes", "PCIe Max Link Width."},
	{"gpu_ecc_volatile_errors_total", C, NULL, 1, "type", "corrected", "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", C, 1,
	 SC_GPU, 0, get_ecc_sbe_vol, "ECC errors since the driver was loaded, by type",
	 "Total single bit volatile ECC errors."},
	{"gpu_ecc_volatile_errors_total", C, NULL, 1, "type", "uncorrected", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", C, 1,
	 SC_GPU, 0, get_ecc_dbe_vol, "ECC errors since the driver was loaded, by type",
	 "Total double bit volatile ECC errors."},
	{"gpu_ecc_aggregate_errors_total", C, NULL, 1, "type", "corrected", "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", C, 1,
	 SC_GPU, 0, get_ecc_sbe_agg, "ECC errors over the GPU's lifetime (kept in its InfoROM), by type",
	 "Total single bit aggregate (persistent) ECC errors."},
	{"gpu_ecc_aggregate_errors_total", C, NULL, 1, "type", "uncorrected", "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", C,
	 1, SC_GPU, 0, get_ecc_dbe_agg, "ECC errors over the GPU's lifetime (kept in its InfoROM), by type",
	 "Total double bit aggregate (persistent) ECC errors."},
	{"gpu_ecc_enabled", G, NULL, 1, NULL, NULL, "DCGM_FI_DEV_ECC_CURRENT", G, 1, SC_GPU, 0, get_ecc_mode,
	 "1 when ECC is enabled", "Current ECC mode for the device."},
	{"gpu_retired_pages", G, NULL, 1, "cause", "single_bit", "DCGM_FI_DEV_RETIRED_SBE", C, 1, SC_GPU, 0,
	 get_retired_sbe, "Memory pages retired (pre-Ampere page retirement), by cause",
	 "Total number of retired pages due to single-bit errors."},
	{"gpu_retired_pages", G, NULL, 1, "cause", "double_bit", "DCGM_FI_DEV_RETIRED_DBE", C, 1, SC_GPU, 0,
	 get_retired_dbe, "Memory pages retired (pre-Ampere page retirement), by cause",
	 "Total number of retired pages due to double-bit errors."},
	{"gpu_retired_pages_pending", G, NULL, 1, NULL, NULL, "DCGM_FI_DEV_RETIRED_PENDING", G, 1, SC_GPU, 0,
	 get_retired_pending, "1 when pages wait for retirement at the next reset",
	 "Total number of pages pending retirement."},
	{"gpu_remapped_rows", G, NULL, 1, "cause", "correctable", "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", C, 1,
	 SC_GPU, 0, get_remap_cor,
	 "Memory rows remapped to spares (Ampere and later), by the error that caused it",
	 "Number of remapped rows for correctable errors"},
	{"gpu_remapped_rows", G, NULL, 1, "cause", "uncorrectable", "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", C,
	 1, SC_GPU, 0, get_remap_unc,
	 "Memory rows remapped to spares (Ampere and later), by the error that caused it",
	 "Number of remapped rows for uncorrectable errors"},
	{"gpu_row_remap_pending", G, NULL, 1, NULL, NULL, "DCGM_FI_DEV_ROW_REMAP_PENDING", G, 1, SC_GPU, 0,
	 get_remap_pending, "1 when a row remap waits for a GPU reset", "Whether remapping of rows is pending"},
	{"gpu_row_remap_failed", G, NULL, 1, NULL, NULL, "DCGM_FI_DEV_ROW_REMAP_FAILURE", G, 1, SC_GPU, 0,
	 get_remap_failure, "1 when a row remap failed (the GPU needs service)",
	 "Whether remapping of rows has failed"},
	{"gpu_clock_event_active", G, NULL, 1, NULL, NULL, NULL, G, 1, SC_REASON, 0, get_reason,
	 "1 while this reason holds the clocks down (throttling), by reason", NULL},
	{NULL, G, NULL, 1, NULL, NULL, "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", G, 1, SC_GPU, 0, get_clock_events, NULL,
	 "Current clock event reasons (bitmask of DCGM_CLOCKS_EVENT_REASON_*)."},
	{"gpu_throttled_seconds_total", C, "seconds", 1e-9, "reason", "power", "DCGM_FI_DEV_POWER_VIOLATION", C, 1,
	 SC_GPU, 0, get_viol_power, "Time the clocks were held below the requested clocks, by policy",
	 "Power Violation time in ns."},
	{"gpu_throttled_seconds_total", C, "seconds", 1e-9, "reason", "thermal", "DCGM_FI_DEV_THERMAL_VIOLATION",
	 C, 1, SC_GPU, 0, get_viol_thermal, "Time the clocks were held below the requested clocks, by policy",
	 "Thermal Violation time in ns."},
	{"gpu_throttled_seconds_total", C, "seconds", 1e-9, "reason", "sync_boost",
	 "DCGM_FI_DEV_SYNC_BOOST_VIOLATION", C, 1, SC_GPU, 0, get_viol_sync,
	 "Time the clocks were held below the requested clocks, by policy", "Sync Boost Violation time in ns."},
	{"gpu_throttled_seconds_total", C, "seconds", 1e-9, "reason", "board_limit",
	 "DCGM_FI_DEV_BOARD_LIMIT_VIOLATION", C, 1, SC_GPU, 0, get_viol_board,
	 "Time the clocks were held below the requested clocks, by policy", "Board Limit Violation time in ns."},
	{"gpu_throttled_seconds_total", C, "seconds", 1e-9, "reason", "low_utilization",
	 "DCGM_FI_DEV_LOW_UTIL_VIOLATION", C, 1, SC_GPU, 0, get_viol_low_util,
	 "Time the clocks were held below the requested clocks, by policy",
	 "Low Utilization Violation time in ns."},
	{"gpu_throttled_seconds_total", C, "seconds", 1e-9, "reason", "reliability",
	 "DCGM_FI_DEV_RELIABILITY_VIOLATION", C, 1, SC_GPU, 0, get_viol_reliability,
	 "Time the clocks were held below the requested clocks, by policy", "Reliability Violation time in ns."},
	{"gpu_nvlink_up", G, NULL, 1, NULL, NULL, NULL, G, 1, SC_LINK, 0, get_link_up,
	 "1 when the NVLink is active, by link", NULL},
	{"gpu_nvlink_transmit_bytes_total", C, NULL, 1024, NULL, NULL, NULL, G, 1, SC_LINK, 0, get_link_tx,
	 "NVLink data payload transmitted, by link", NULL},
	{"gpu_nvlink_receive_bytes_total", C, NULL, 1024, NULL, NULL, NULL, G, 1, SC_LINK, 0, get_link_rx,
	 "NVLink data payload received, by link", NULL},
	{"gpu_nvlink_errors_total", C, NULL, 1, "type", "replay", NULL, G, 1, SC_LINK, 0, get_link_replay,
	 "NVLink data-link errors by link and type: replay (retransmission), recovery, crc_flit, crc_data, ecc_data",
	 NULL},
	{"gpu_nvlink_errors_total", C, NULL, 1, "type", "recovery", NULL, G, 1, SC_LINK, 0, get_link_recovery,
	 NULL, NULL},
	{"gpu_nvlink_errors_total", C, NULL, 1, "type", "crc_flit", NULL, G, 1, SC_LINK, 0, get_link_crc_flit,
	 NULL, NULL},
	{"gpu_nvlink_errors_total", C, NULL, 1, "type", "crc_data", NULL, G, 1, SC_LINK, 0, get_link_crc_data,
	 NULL, NULL},
	{"gpu_nvlink_errors_total", C, NULL, 1, "type", "ecc_data", NULL, G, 1, SC_LINK, 0, get_link_ecc_data,
	 NULL, NULL},
	{NULL, G, NULL, 1, NULL, NULL, "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", G, 1, SC_GPU, 0, get_nvlink_rate,
	 NULL,
	 "NVLink throughput over all links, transmit plus receive, KiB/s divided by 1000 as DCGM reports it."},
#define BW_LINK(n) \
	{ \
		NULL, G, NULL, 1, NULL, NULL, "DCGM_FI_DEV_NVLINK_BANDWIDTH_L" #n, C, 1, SC_ONE_LINK, F_LINK(n), \
			get_link_bytes, NULL, \
			"The number of bytes of active NVLink rx or tx data including both header and payload." \
	}
	/* NVLink 4 has 18 links per GPU, NVLink 5 18; DCGM names L0 to L17 */
	BW_LINK(0),
	BW_LINK(1),
	BW_LINK(2),
	BW_LINK(3),
	BW_LINK(4),
	BW_LINK(5),
	BW_LINK(6),
	BW_LINK(7),
	BW_LINK(8),
	BW_LINK(9),
	BW_LINK(10),
	BW_LINK(11),
	BW_LINK(12),
	BW_LINK(13),
	BW_LINK(14),
	BW_LINK(15),
	BW_LINK(16),
	BW_LINK(17),
#undef BW_LINK
	{NULL, G, NULL, 1, NULL, NULL, "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", C, 1, SC_GPU, 0,
	 get_links_crc_flit, NULL, "Total number of NVLink flow-control CRC errors."},
	{NULL, G, NULL, 1, NULL, NULL, "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", C, 1, SC_GPU, 0,
	 get_links_crc_data, NULL, "Total number of NVLink data CRC errors."},
	{NULL, G, NULL, 1, NULL, NULL, "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", C, 1, SC_GPU, 0,
	 get_links_replay, NULL, "Total number of NVLink retries."},
	{NULL, G, NULL, 1, NULL, NULL, "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", C, 1, SC_GPU, 0,
	 get_links_recovery, NULL, "Total number of NVLink recovery errors."},
	{"gpu_xid_errors_total", C, NULL, 1, NULL, NULL, NULL, G, 1, SC_XID, 0, get_xid_total,
	 "XID errors by code: every occurrence counts, from NVML events and the kernel log (since boot as far as the log reaches)",
	 NULL},
	{"gpu_xid_last_code", G, NULL, 1, NULL, NULL, "DCGM_FI_DEV_XID_ERRORS", G, 1, SC_XID_LAST, 0, get_xid_last,
	 "Code of the most recent XID error (absent until one is seen)",
	 "Value of the last XID error encountered."},
	{"gpu_xid_last_timestamp_seconds", G, NULL, 1, NULL, NULL, NULL, G, 1, SC_XID_LAST, 0, get_xid_last_time,
	 "Unix time of the most recent XID error", NULL},
	{NULL, G, NULL, 1, NULL, NULL, "DCGM_EXP_XID_ERRORS_COUNT", G, 1, SC_XID_WINDOW, 0, get_xid_window, NULL,
	 "Count of XID Errors within user-specified time window (see xid-count-window-size param)."},
	{NULL, G, NULL, 1, NULL, NULL, "DCGM_EXP_CLOCK_EVENTS_COUNT", G, 1, SC_CLOCK_WINDOW, 0, get_clock_window,
	 NULL,
	 "Count of clock events within the user-specified time window (see clock-events-count-window-size param)."},
	{NULL, C, NULL, 1, NULL, NULL, "DCGM_EXP_CLOCK_EVENTS_TOTAL", C, 1, SC_CLOCK_TOTAL, 0, get_clock_total,
	 NULL, "Total clock events observed since exporter start."},
	{NULL, G, NULL, 1, NULL, NULL, "DCGM_EXP_P2P_STATUS", G, 1, SC_P2P, F_LISTED, get_p2p, NULL,
	 "P2P status between GPUs (0: OK, 1: ChipsetNotSupported, 2: GPUNotSupported, 3: TopologyNotSupported, "
	 "4: DisabledByRegKey, 5: NotSupported, 6: Unknown)."},
	{"gpu_mig_mode", G, NULL, 1, NULL, NULL, "DCGM_FI_DEV_MIG_MODE", G, 1, SC_GPU, 0, get_mig_mode,
	 "1 when MIG is enabled", "MIG mode for the device."},
	{"gpu_mig_memory_total_bytes", G, "bytes", 1, NULL, NULL, NULL, G, 1, SC_MIG, 0, get_mig_total,
	 "Memory of a MIG device", NULL},
	{"gpu_mig_memory_used_bytes", G, "bytes", 1, NULL, NULL, NULL, G, 1, SC_MIG, 0, get_mig_used,
	 "Memory in use on a MIG device", NULL},
	{"gpu_persistence_mode", G, NULL, 1, NULL, NULL, "DCGM_FI_DEV_PERSISTENCE_MODE", G, 1, SC_GPU, 0,
	 get_persistence, "1 when persistence mode is on", "Persistence mode for the device."},
	{"gpu_process_memory_used_bytes", G, "bytes", 1, NULL, NULL, NULL, G, 1, SC_PROC, 0, get_proc_mem,
	 "GPU memory used by a process (only with --processes)", NULL},
};
#define NFAMS (sizeof(fams) / sizeof(fams[0]))

#undef G
#undef C

size_t families_count(void)
{
	return NFAMS;
}

void families_names(size_t i, const char **native, const char **dcgm, int *native_counter, int *dcgm_counter,
		    const char **native_help)
{
	*native = fams[i].native;
	*dcgm = fams[i].dcgm;
	*native_counter = fams[i].ntype == EXPO_COUNTER;
	*dcgm_counter = fams[i].dtype == EXPO_COUNTER;
	*native_help = fams[i].nhelp;
}

/* dcgm's err_msg: the XID's name in gpuscope's XID catalogue (data/compat/xid.csv). */
static const char *xid_meaning(unsigned code)
{
	const struct xid_info *x;
	if (!code)
		return "No Error";
	x = xid_lookup((int)code);
	return x && x->name ? x->name : "Unknown Error";
}

/* Per-GPU label lists, built once per render. */
struct glabels {
	struct strbuf native;
	struct strbuf dcgm;
};

/* dcgm-exporter's Kubernetes labels, when a pod holds the device. */
static void pod_labels(struct strbuf *b, const struct xpod *p)
{
	if (!p || !p->valid)
		return;
	expo_label(b, 0, "container", p->container);
	expo_label(b, 0, "namespace", p->namespace_);
	expo_label(b, 0, "pod", p->pod);
}

/*
 * dcgm-exporter's label fields: DCGM_FI_DRIVER_VERSION by default, the
 * others when a counters file lists them (its default file has them
 * commented out).  A field the GPU does not report is left out, not "".
 */
#define LABEL_FIELD(name, member) \
	{ \
		name, offsetof(struct gpu_static, member), gpu_static_##member##_valid \
	}
static void label_fields(const struct xview *v, const struct xgpu *g, struct strbuf *b)
{
	static const struct {
		const char *name;
		size_t off;     /* a char array of struct gpu_static */
		unsigned valid; /* its enum gpu_static_field */
	} fields[] = {
		LABEL_FIELD("DCGM_FI_DRIVER_VERSION", driver_version),
		LABEL_FIELD("DCGM_FI_DEV_SERIAL", serial),
		LABEL_FIELD("DCGM_FI_DEV_VBIOS_VERSION", vbios_version),
		LABEL_FIELD("DCGM_FI_NVML_VERSION", nvml_version),
		LABEL_FIELD("DCGM_FI_DEV_BRAND", brand),
		LABEL_FIELD("DCGM_FI_DEV_OEM_INFOROM_VER", inforom_oem),
		LABEL_FIELD("DCGM_FI_DEV_ECC_INFOROM_VER", inforom_ecc),
		LABEL_FIELD("DCGM_FI_DEV_POWER_INFOROM_VER", inforom_power),
		LABEL_FIELD("DCGM_FI_DEV_INFOROM_IMAGE_VER", inforom_image),
	};
	size_t i;
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const char *val;
		if (v->counters ? !counters_find(v->counters, fields[i].name, NULL, NULL) : i > 0)
			continue;
		val = (const char *)&g->st + fields[i].off;
		/* the driver version is always a label of dcgm-exporter's, "" when unread */
		if (i == 0 && !g->have_static)
			val = "";
		else if (i > 0 && (!g->have_static || !GPU_BIT_TEST(g->st.valid, fields[i].valid) || !val[0]))
			continue;
		expo_label(b, 0, fields[i].name, val);
	}
}
#undef LABEL_FIELD

static void build_labels(const struct xview *v, const struct xgpu *g, struct glabels *l)
{
	char num[32];
	strbuf_init(&l->native, 0);
	strbuf_init(&l->dcgm, 0);
	snprintf(num, sizeof(num), "%u", g->index);
	expo_label(&l->native, 1, "gpu", num);
	expo_label(&l->native, 0, "uuid", g->have_static ? g->st.uuid : "");
	/* dcgm-exporter's render template: gpu, UUID, pci_bus_id, device, modelName, Hostname, label fields */
	expo_label(&l->dcgm, 1, "gpu", num);
	expo_label(&l->dcgm, 0, "UUID", g->have_static ? g->st.uuid : "");
	expo_label(&l->dcgm, 0, "pci_bus_id", g->have_static ? g->st.pci_bus_id : "");
	if (g->have_static && GPU_STATIC_HAS(&g->st, minor_number))
		snprintf(num, sizeof(num), "nvidia%u", g->st.minor_number);
	else
		snprintf(num, sizeof(num), "nvidia%u", g->index);
	expo_label(&l->dcgm, 0, "device", num);
	expo_label(&l->dcgm, 0, "modelName", g->have_static ? g->st.name : "");
	if (v->hostname)
		expo_label(&l->dcgm, 0, v->hostname_label ? v->hostname_label : "Hostname", v->hostname);
	label_fields(v, g, &l->dcgm);
	pod_labels(&l->dcgm, &g->pod);
	pod_labels(&l->native, &g->pod);
}

static double scaled(double raw, double scale, unsigned flags, int dcgm)
{
	/* 88.25 / 100 prints as 0.8825; 88.25 * 0.01 as 0.8825000000000001 */
	double inv = scale < 1 ? 1.0 / scale : 0;
	double x = inv == floor(inv) && inv > 0 ? raw / inv : raw * scale;
	if (dcgm && (flags & F_DCGM_FLOOR))
		x = floor(x);
	return x;
}

static int gpu_in_scope(const struct xgpu *g, enum scope sc)
{
	switch (sc) {
	case SC_ALL:
		return 1;
	case SC_XID:
	case SC_XID_WINDOW:
	case SC_XID_LAST:
	case SC_INFO:
		return g->have_static || g->nxids;
	default:
		return g->answered && !g->stalled && !g->lost;
	}
}

/* labels + the MIG GPU instance of mig[i]: dcgm's GPU_I_PROFILE/GPU_I_ID or gpu_instance/mig_profile. */
static void mig_labels(struct strbuf *out, const char *labels, const struct xgpu *g, size_t i, int dcgm)
{
	char a[16];
	snprintf(a, sizeof(a), "%u", g->mig[i].gpu_instance);
	strbuf_init(out, 0);
	strbuf_addstr(out, labels);
	if (dcgm) {
		expo_label(out, 0, "GPU_I_PROFILE", g->mig[i].profile);
		expo_label(out, 0, "GPU_I_ID", a);
	} else {
		expo_label(out, 0, "gpu_instance", a);
		expo_label(out, 0, "mig_profile", g->mig[i].profile);
	}
	if (g->mig_pod)
		pod_labels(out, &g->mig_pod[i]);
}

/* Is mig[i] the first MIG device of its GPU instance?  (Compute instances share the GI's memory and counters.) */
static int first_of_gi(const struct xgpu *g, size_t i)
{
	size_t k;
	for (k = 0; k < i; k++)
		if (g->mig[k].gpu_instance == g->mig[i].gpu_instance)
			return 0;
	return 1;
}

/* Writes the series of entry f for one GPU. */
static void entry_gpu(struct expo_writer *w, const struct fam *f, const struct xview *v, const struct xgpu *g,
		      const struct glabels *gl, int dcgm)
{
	const char *labels = strbuf_str(dcgm ? &gl->dcgm : &gl->native);
	double scale = dcgm ? f->dscale : f->nscale;
	const char *cl = dcgm ? NULL : f->nlabel, *cv = dcgm ? NULL : f->nvalue;
	char a[48], b[48];
	double raw;
	unsigned i;

	if (!gpu_in_scope(g, f->scope))
		return;
	switch (f->scope) {
	case SC_ALL:
	case SC_GPU:
		if (dcgm && (f->flags & F_DCGM_MIG) && g->nmig) {
			/* dcgm-exporter reports a MIG-enabled GPU's memory per GPU instance */
			for (i = 0; i < g->nmig; i++) {
				getter mg = f->get == get_fb_total ? get_mig_total :
					    f->get == get_fb_used  ? get_mig_used :
								     get_mig_free;
				struct strbuf ml;
				if (!first_of_gi(g, i) || !mg(g, i, &raw))
					continue;
				mig_labels(&ml, labels, g, i, 1);
				expo_sample(w, strbuf_str(&ml), NULL, NULL, scaled(raw, scale, f->flags, dcgm));
				strbuf_release(&ml);
			}
			return;
		}
		if (f->get(g, 0, &raw))
			expo_sample(w, labels, cl, cv, scaled(raw, scale, f->flags, dcgm));
		return;
	case SC_GPM:
		if (!g->nmig) {
			if (f->get(g, GPU_NO_INSTANCE, &raw))
				expo_sample(w, labels, cl, cv, scaled(raw, scale, f->flags, dcgm));
			return;
		}
		/* a MIG-enabled GPU: per GPU instance only, so sums over a GPU stay right */
		for (i = 0; i < g->nmig; i++) {
			struct strbuf ml;
			if (!first_of_gi(g, i) || !f->get(g, i, &raw))
				continue;
			mig_labels(&ml, labels, g, i, dcgm);
			expo_sample(w, strbuf_str(&ml), cl, cv, scaled(raw, scale, f->flags, dcgm));
			strbuf_release(&ml);
		}
		return;
	case SC_LINK:
		for (i = 0; i < g->s.nlinks && i < GPU_MAX_NVLINKS; i++) {
			if (!f->get(g, i, &raw))
				continue;
			snprintf(a, sizeof(a), "%u", i);
			expo_sample2(w, labels, "link", a, cl, cv, scaled(raw, scale, f->flags, dcgm));
		}
		return;
	case SC_ONE_LINK:
		if (f->get(g, LINK_OF(f), &raw))
			expo_sample(w, labels, NULL, NULL, raw);
		return;
	case SC_REASON:
		for (i = 0; i < NREASONS; i++)
			if (f->get(g, i, &raw))
				expo_sample(w, labels, "reason", gpu_clock_event_name(reason_bits[i]), raw);
		return;
	case SC_XID:
		for (i = 0; i < g->nxids; i++) {
			if (!f->get(g, i, &raw))
				continue;
			snprintf(a, sizeof(a), "%u", g->xids[i].code);
			expo_sample(w, labels, "xid", a, raw);
		}
		return;
	case SC_CLOCK_WINDOW:
		snprintf(b, sizeof(b), "%.0f", v->clock_events_window_s * 1000.0);
		for (i = 0; i < CLOCKEV_NBITS; i++)
			if (f->get(g, i, &raw))
				expo_sample2(w, labels, "clock_event", dcgm_clock_names[i], "window_size_in_ms", b,
					     raw);
		return;
	case SC_CLOCK_TOTAL:
		for (i = 0; i < CLOCKEV_NBITS; i++)
			if (f->get(g, i, &raw))
				expo_sample(w, labels, "clock_event", dcgm_clock_names[i], raw);
		return;
	case SC_P2P:
		for (i = 0; i < g->np2p && i < v->ngpus; i++) {
			if (!f->get(g, i, &raw))
				continue;
			snprintf(a, sizeof(a), "%u", v->gpus[i].index);
			expo_sample2(w, labels, "peer_gpu", a, "link_status", p2p_names[g->p2p[i]], raw);
		}
		return;
	case SC_XID_WINDOW:
		snprintf(b, sizeof(b), "%.0f", v->xid_window_s * 1000.0);
		for (i = 0; i < g->nxids; i++) {
			if (!f->get(g, i, &raw))
				continue;
			snprintf(a, sizeof(a), "%u", g->xids[i].code);
			expo_sample2(w, labels, "xid", a, "window_size_in_ms", b, raw);
		}
		return;
	case SC_XID_LAST:
		if (dcgm) {
			get_xid_last_dcgm(g, 0, &raw);
			snprintf(a, sizeof(a), "%.0f", raw);
			expo_sample2(w, labels, "err_code", a, "err_msg", xid_meaning((unsigned)raw), raw);
		} else if (f->get(g, 0, &raw)) {
			expo_sample(w, labels, NULL, NULL, raw);
		}
		return;
	case SC_MIG:
		for (i = 0; i < g->nmig; i++) {
			if (!f->get(g, i, &raw))
				continue;
			snprintf(a, sizeof(a), "%u", g->mig[i].gpu_instance);
			snprintf(b, sizeof(b), "%u", g->mig[i].compute_instance);
			{
				struct strbuf extra = STRBUF_INIT;
				strbuf_addstr(&extra, labels);
				expo_label(&extra, 0, "gpu_instance", a);
				expo_label(&extra, 0, "compute_instance", b);
				expo_label(&extra, 0, "mig_profile", g->mig[i].profile);
				expo_sample(w, strbuf_str(&extra), "mig_uuid", g->mig[i].uuid, raw * scale);
				strbuf_release(&extra);
			}
		}
		return;
	case SC_PROC:
		if (!v->processes)
			return;
		for (i = 0; i < g->nprocs; i++) {
			if (!f->get(g, i, &raw))
				continue;
			snprintf(a, sizeof(a), "%u", g->procs[i].pid);
			{
				/* the container only when there is one, so host processes keep their series */
				struct strbuf pl = STRBUF_INIT;
				strbuf_addstr(&pl, labels);
				expo_label(&pl, 0, "pid", a);
				if (g->procs[i].container[0])
					expo_label(&pl, 0, "container_id", g->procs[i].container);
				expo_sample(w, strbuf_str(&pl), "process", g->procs[i].comm, raw * scale);
				strbuf_release(&pl);
			}
		}
		return;
	case SC_INFO: {
		struct strbuf l = STRBUF_INIT;
		char num[32];
		strbuf_addstr(&l, labels);
		expo_label(&l, 0, "name", g->have_static ? g->st.name : "");
		expo_label(&l, 0, "pci_bus_id", g->have_static ? g->st.pci_bus_id : "");
		if (g->have_static && GPU_STATIC_HAS(&g->st, minor_number))
			snprintf(num, sizeof(num), "nvidia%u", g->st.minor_number);
		else
			snprintf(num, sizeof(num), "nvidia%u", g->index);
		expo_label(&l, 0, "device", num);
		expo_label(&l, 0, "driver_version", g->have_static ? g->st.driver_version : "");
		if (g->have_static && GPU_STATIC_HAS(&g->st, cuda_driver_version))
			snprintf(num, sizeof(num), "%d.%d", g->st.cuda_driver_version / 1000,
				 g->st.cuda_driver_version % 1000 / 10);
		else
			num[0] = '\0';
		expo_label(&l, 0, "cuda_version", num);
		expo_label(&l, 0, "vbios_version", g->have_static ? g->st.vbios_version : "");
		expo_label(&l, 0, "serial", g->have_static ? g->st.serial : "");
		if (v->hostname)
			expo_label(&l, 0, "hostname", v->hostname);
		expo_sample(w, strbuf_str(&l), NULL, NULL, 1);
		strbuf_release(&l);
		return;
	}
	}
}

/* Does any GPU have a series for entry f?  Families without samples are left out. */
static int entry_has_series(const struct fam *f, const struct xview *v, int dcgm)
{
	unsigned gi, i;
	double raw;
	for (gi = 0; gi < v->ngpus; gi++) {
		const struct xgpu *g = &v->gpus[gi];
		if (!gpu_in_scope(g, f->scope))
			continue;
		switch (f->scope) {
		case SC_ALL:
		case SC_INFO:
			return 1;
		case SC_XID_LAST:
			if (dcgm || g->has_last_xid)
				return 1;
			break;
		case SC_GPU:
			if (dcgm && (f->flags & F_DCGM_MIG) && g->nmig)
				return 1;
			if (f->get(g, 0, &raw))
				return 1;
			break;
		case SC_GPM:
			if (!g->nmig && f->get(g, GPU_NO_INSTANCE, &raw))
				return 1;
			for (i = 0; i < g->nmig; i++)
				if (f->get(g, i, &raw))
					return 1;
			break;
		case SC_LINK:
			for (i = 0; i < g->s.nlinks && i < GPU_MAX_NVLINKS; i++)
				if (f->get(g, i, &raw))
					return 1;
			break;
		case SC_ONE_LINK:
			if (f->get(g, LINK_OF(f), &raw))
				return 1;
			break;
		case SC_REASON:
			for (i = 0; i < NREASONS; i++)
				if (f->get(g, i, &raw))
					return 1;
			break;
		case SC_CLOCK_WINDOW:
		case SC_CLOCK_TOTAL:
			for (i = 0; i < CLOCKEV_NBITS; i++)
				if (f->get(g, i, &raw))
					return 1;
			break;
		case SC_P2P:
			for (i = 0; i < g->np2p; i++)
				if (f->get(g, i, &raw))
					return 1;
			break;
		case SC_XID:
		case SC_XID_WINDOW:
			for (i = 0; i < g->nxids; i++)
				if (f->get(g, i, &raw))
					return 1;
			break;
		case SC_MIG:
			for (i = 0; i < g->nmig; i++)
				if (f->get(g, i, &raw))
					return 1;
			break;
		case SC_PROC:
			if (!v->processes)
				return 0;
			for (i = 0; i < g->nprocs; i++)
				if (f->get(g, i, &raw))
					return 1;
			break;
		}
	}
	return 0;
}

/* The help text of a native family: the first entry of its run that has one. */
static const char *native_help(size_t i)
{
	const char *name = fams[i].native;
	while (i > 0 && fams[i - 1].native && !strcmp(fams[i - 1].native, name))
		i--;
	for (; i < NFAMS && fams[i].native && !strcmp(fams[i].native, name); i++)
		if (fams[i].nhelp)
			return fams[i].nhelp;
	return "";
}

/*
 * Does entry f have series in this pass?  Without a counters file: every
 * dcgm name in the dcgm pass but those it must list (F_LISTED); in the native pass every native name, except
 * under --names dcgm those that dcgm names.  With one: exactly the names the
 * file lists, and under --names native or both the native twins of its dcgm
 * names.
 */
static int entry_selected(const struct xview *v, const struct fam *f, int dcgm, enum names_mode names)
{
	if (dcgm)
		return f->dcgm &&
		       (v->counters ? counters_find(v->counters, f->dcgm, NULL, NULL) : !(f->flags & F_LISTED));
	if (!f->native)
		return 0;
	if (!v->counters)
		return !(names == NAMES_DCGM && f->dcgm);
	return counters_find(v->counters, f->native, NULL, NULL) ||
	       ((names & NAMES_NATIVE) && f->dcgm && counters_find(v->counters, f->dcgm, NULL, NULL));
}

static void render_pass(struct expo_writer *w, const struct xview *v, struct glabels *gl, int dcgm,
			enum names_mode names)
{
	size_t i = 0;
	while (i < NFAMS) {
		const struct fam *f = &fams[i];
		size_t j, end = i + 1;
		int any = 0;
		unsigned gi;
		if (!dcgm && f->native) {
			/* the run of entries that share this native name */
			while (end < NFAMS && fams[end].native && !strcmp(fams[end].native, f->native))
				end++;
		}
		for (j = i; j < end && !any; j++)
			any = entry_selected(v, &fams[j], dcgm, names) && entry_has_series(&fams[j], v, dcgm);
		if (any) {
			if (dcgm) {
				enum counter_type ct;
				const char *help = NULL;
				enum expo_type t = f->dtype;
				/* dcgm-exporter serves a field with the file's type and help */
				if (counters_find(v->counters, f->dcgm, &ct, &help))
					t = ct == COUNTER_COUNTER ? EXPO_COUNTER : EXPO_GAUGE;
				expo_family(w, f->dcgm, t, help ? help : f->dhelp, NULL);
			} else {
				expo_family(w, f->native, f->ntype, native_help(i), f->unit);
			}
			for (j = i; j < end; j++) {
				if (!entry_selected(v, &fams[j], dcgm, names))
					continue;
				for (gi = 0; gi < v->ngpus; gi++)
					entry_gpu(w, &fams[j], v, &v->gpus[gi], &gl[gi], dcgm);
			}
		}
		i = end;
	}
}

static void exporter_gauge(struct expo_writer *w, const char *name, const char *help, const char *unit,
			   double value)
{
	if (isnan(value))
		return;
	expo_family(w, name, EXPO_GAUGE, help, unit);
	expo_sample(w, NULL, NULL, NULL, value);
}

static void exporter_counter(struct expo_writer *w, const char *name, const char *help, const char *unit,
			     double value)
{
	if (isnan(value))
		return;
	expo_family(w, name, EXPO_COUNTER, help, unit);
	expo_sample(w, NULL, NULL, NULL, value);
}

static void render_exporter(struct expo_writer *w, const struct xview *v)
{
	const struct xstats *s = &v->stats;
	expo_family(w, "gpuscope_exporter_build_info", EXPO_INFO, "The gpuscope version that serves these metrics",
		    NULL);
	expo_sample(w, NULL, "version", GPUSCOPE_VERSION, 1);
	expo_family(w, "gpuscope_exporter_backend_up", EXPO_GAUGE,
		    "1 when the GPU library (NVML) is loaded and initialised", NULL);
	expo_sample(w, NULL, "backend", s->backend ? s->backend : "nvml", s->backend_up);
	exporter_gauge(w, "gpuscope_exporter_gpus", "GPUs the library enumerated", NULL, v->ngpus);
	exporter_gauge(w, "gpuscope_exporter_collect_interval_seconds",
		       "Interval between collections (--interval); samples are served from the latest collection",
		       "seconds", s->interval_s);
	exporter_gauge(w, "gpuscope_exporter_collect_duration_seconds", "Wall time of the latest collection",
		       "seconds", s->collect_duration_s);
	exporter_gauge(w, "gpuscope_exporter_slow_collect_duration_seconds",
		       "Wall time of the latest PCIe throughput pass, which runs off the scrape path", "seconds",
		       s->slow_duration_s);
	exporter_gauge(w, "gpuscope_exporter_last_collect_timestamp_seconds",
		       "Unix time the latest collection finished", "seconds", s->last_collect_time_s);
	exporter_counter(w, "gpuscope_exporter_collections_total", "Collections made", NULL,
			 (double)s->collections);
	exporter_counter(w, "gpuscope_exporter_collect_errors_total",
			 "GPU library calls that failed (unsupported readings are not errors)", NULL,
			 (double)s->collect_errors);
	exporter_counter(w, "gpuscope_exporter_stalled_calls_total",
			 "GPU library calls that ran past the collection timeout", NULL, (double)s->stalled_calls);
	expo_family(w, "gpuscope_exporter_xid_source_up", EXPO_GAUGE,
		    "1 when XIDs arrive from this source (NVML events, the kernel log)", NULL);
	expo_sample(w, NULL, "source", "nvml", s->nvml_events_up);
	expo_sample(w, NULL, "source", "kmsg", s->kmsg_up);
	exporter_counter(w, "gpuscope_exporter_xid_duplicates_total",
			 "XIDs that both sources reported, counted once", NULL, (double)s->xid_duplicates);
	exporter_counter(w, "gpuscope_exporter_xid_unmatched_total",
			 "Kernel-log XIDs whose PCI bus id matches no enumerated GPU", NULL,
			 (double)s->xid_unmatched);
	if (s->pod_resources) {
		exporter_gauge(w, "gpuscope_exporter_pod_resources_up",
			       "1 when the kubelet's pod-resources API answered the last call (--kubernetes)",
			       NULL, s->pod_resources_up);
		exporter_gauge(w, "gpuscope_exporter_pod_resources_devices",
			       "NVIDIA devices the kubelet's last answer assigns to pods, with pod labels", NULL,
			       (double)s->pod_resources_devices);
		exporter_gauge(
			w, "gpuscope_exporter_pod_resources_dropped_devices",
			"NVIDIA devices of the kubelet's last answer past the exporter's bound, without pod labels",
			NULL, (double)s->pod_resources_dropped);
	}
	exporter_counter(w, "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
			 "seconds", s->cpu_seconds);
	exporter_gauge(w, "process_resident_memory_bytes", "Resident memory size in bytes.", "bytes",
		       s->resident_bytes);
	exporter_gauge(w, "process_virtual_memory_bytes", "Virtual memory size in bytes.", "bytes",
		       s->virtual_bytes);
	exporter_gauge(w, "process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
		       "seconds", s->start_time_s);
	exporter_gauge(w, "process_open_fds", "Number of open file descriptors.", NULL, s->open_fds);
	exporter_gauge(w, "process_max_fds", "Maximum number of open file descriptors.", NULL, s->max_fds);
	exporter_gauge(w, "process_threads", "Number of OS threads in the process.", NULL, s->threads);
}

void families_render(const struct xview *v, enum names_mode names, enum expo_format f, struct strbuf *out)
{
	struct expo_writer w;
	struct glabels *gl = xcalloc(v->ngpus ? v->ngpus : 1, sizeof(*gl));
	unsigned gi;
	for (gi = 0; gi < v->ngpus; gi++)
		build_labels(v, &v->gpus[gi], &gl[gi]);
	expo_writer_init(&w, out, f);
	if (names & NAMES_DCGM)
		render_pass(&w, v, gl, 1, names);
	render_pass(&w, v, gl, 0, names);
	render_exporter(&w, v);
	export_bench_render(v->bench, &w);
	for (gi = 0; gi < v->ngpus; gi++) {
		strbuf_release(&gl[gi].native);
		strbuf_release(&gl[gi].dcgm);
	}
	free(gl);
}

void families_render_tail(enum expo_format f, double sample_age_s, uint64_t scrapes, struct strbuf *out)
{
	struct expo_writer w;
	/* what follows is under 512 bytes (419 in OpenMetrics): one allocation
	 * per scrape instead of six (strbuf grows 64, 96, 144 ... 486) */
	strbuf_grow(out, 512);
	expo_writer_init(&w, out, f);
	expo_family(&w, "gpuscope_exporter_sample_age_seconds", EXPO_GAUGE,
		    "Age of the served collection at the time of this scrape", "seconds");
	expo_sample(&w, NULL, NULL, NULL, sample_age_s);
	expo_family(&w, "gpuscope_exporter_scrapes_total", EXPO_COUNTER, "Requests for /metrics served", NULL);
	expo_sample(&w, NULL, NULL, NULL, (double)scrapes);
	expo_finish(&w);
}
