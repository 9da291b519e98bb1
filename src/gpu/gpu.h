/*
 * GPU backends: one table of functions per vendor library, in nvtop's shape.
 *
 * A backend is a `struct gpu_backend` (see below); gpu_backends[] lists them
 * in a fixed order (today only "nvml", which dlopen()s libnvidia-ml.so.1).
 * Callers use one backend at a time:
 *
 *	const struct gpu_backend *b = gpu_backend_find("nvml");
 *	struct gpu_init_opts o = { .library_path = NULL };
 *	if (b->init(&o) < 0) { puts(b->last_error()); ... }
 *	b->enumerate(&devs, &n);
 *	b->static_info(devs[0], &st);
 *	b->sample(devs[0], GPU_SAMPLE_DEFAULT, &s);
 *	if (GPU_SAMPLE_HAS(&s, power_mw)) printf("%u mW\n", s.power_mw);
 *	b->shutdown();
 *
 * Every reading carries a validity bit: a reading the GPU, the driver or the
 * library does not support is absent (its bit clear), never 0 or a sentinel.
 * Test with GPU_STATIC_HAS(st, member) / GPU_SAMPLE_HAS(s, member) /
 * GPU_LINK_HAS(l, member); the member's value is meaningless when its bit is
 * clear (it is zeroed).
 *
 * Thread safety:
 *   - init(), shutdown() and enumerate(): one thread, never concurrently with
 *     anything else on the same backend.
 *   - static_info(), sample(), processes(), mig_instances(), status() and
 *     last_error(): thread-safe; may run concurrently from several threads,
 *     also on the same device (the NVML library serialises what it must).
 *     last_error() is per thread: it describes the calling thread's last
 *     failed call.
 *   - events(): one consumer thread at a time (it may run concurrently with
 *     sample() and friends on other threads).
 *
 * Units are in the member names (_bytes, _mw, _mj, _c, _mhz, _ns, _pct);
 * values are converted at the backend's edge (e.g. NVML's PCIe KB/s becomes
 * bytes/s here).
 */
#ifndef GPUSCOPE_GPU_GPU_H
#define GPUSCOPE_GPU_GPU_H

#include <stddef.h>
#include <stdint.h>

/* Return codes of the backend functions (0 or a negative code). */
enum gpu_rc {
	GPU_OK = 0,
	GPU_ERR = -1,                  /* anything else; see last_error() */
	GPU_ERR_NO_LIBRARY = -2,       /* the vendor library cannot be loaded or lacks required symbols */
	GPU_ERR_NO_DRIVER = -3,        /* library loaded, kernel driver not loaded */
	GPU_ERR_VERSION_MISMATCH = -4, /* library and kernel driver versions differ (NVML 18) */
	GPU_ERR_NO_PERMISSION = -5,
	GPU_ERR_LOST = -6, /* the GPU fell off the bus (NVML 15); see status() */
	GPU_ERR_NOT_SUPPORTED = -7,
	GPU_ERR_TIMEOUT = -8,
	GPU_ERR_RESET_REQUIRED = -9, /* NVML 16 */
	GPU_ERR_NO_GPU = -10,        /* driver loaded, no GPU visible */
};

/* Short lower-case name of a code: "gpu lost", "no library" ... (static string). */
const char *gpu_rc_name(int rc);

/* Opaque device handle; owned by the backend, valid until shutdown(). */
struct gpu_device;

/* Health of a device as far as the backend can tell, without a new call. */
enum gpu_status {
	GPU_STATUS_OK = 0,
	GPU_STATUS_LOST = 1,           /* a call returned "GPU is lost": every later reading fails */
	GPU_STATUS_RESET_REQUIRED = 2, /* a call returned "reset required" */
};

#define GPU_NAME_LEN 96
#define GPU_UUID_LEN 96
#define GPU_BUS_ID_LEN 32
#define GPU_SERIAL_LEN 32
#define GPU_VERSION_LEN 80
/* NVML_NVLINK_MAX_LINKS of the newest header; older GPUs have fewer links. */
#define GPU_MAX_NVLINKS 36
/* MIG: no instance (NVML's 0xFFFFFFFF). */
#define GPU_NO_INSTANCE 0xFFFFFFFFu

/* Validity bitmaps: one bit per member, indexed by the generated enums. */
#define GPU_VALID_WORDS 2
#define GPU_BIT_TEST(v, i) ((((v)[(i) / 64]) >> ((i) % 64)) & 1u)
#define GPU_BIT_SET(v, i) ((v)[(i) / 64] |= (uint64_t)1 << ((i) % 64))

/*
 * Static facts: read once per device (they may still change across a
 * reconfiguration: MIG mode, persistence, ECC mode, power limit).
 * X(type, member, array-suffix)
 */
#define GPU_STATIC_FIELDS(X) \
	X(unsigned, index, )                    /* NVML index (0-based) */ \
	X(unsigned, minor_number, )             /* N in /dev/nvidiaN */ \
	X(char, name, [GPU_NAME_LEN])           /* "NVIDIA H100 80GB HBM3" */ \
	X(char, uuid, [GPU_UUID_LEN])           /* "GPU-xxxxxxxx-..." */ \
	X(char, pci_bus_id, [GPU_BUS_ID_LEN])   /* NVML form "00000000:17:00.0" */ \
	X(char, pci_sysfs_id, [GPU_BUS_ID_LEN]) /* sysfs form "0000:17:00.0" (lower case) */ \
	X(unsigned, pci_domain, ) \
	X(unsigned, pci_bus, ) \
	X(unsigned, pci_device, ) \
	X(uint32_t, pci_device_id, ) /* (device id << 16) | 0x10de */ \
	X(uint32_t, pci_subsystem_id, ) \
	X(char, serial, [GPU_SERIAL_LEN]) \
	X(char, vbios_version, [GPU_SERIAL_LEN]) \
	X(char, brand, [GPU_SERIAL_LEN])         /* DCGM's name for nvmlDeviceGetBrand: "NVIDIA", "Tesla" */ \
	X(char, inforom_image, [GPU_SERIAL_LEN]) /* InfoROM image version "G520.0200.00.05" */ \
	X(char, inforom_oem, [GPU_SERIAL_LEN])   /* InfoROM object versions: OEM "2.1" */ \
	X(char, inforom_ecc, [GPU_SERIAL_LEN])   /* ECC "7.16" */ \
	X(char, inforom_power, [GPU_SERIAL_LEN]) /* power management; absent on most data-centre GPUs */ \
	X(uint64_t, memory_total_bytes, ) \
	X(unsigned, pcie_max_gen, )     /* max of device and system */ \
	X(unsigned, pcie_max_width, )   /* lanes, max of device and system */ \
	X(unsigned, pcie_gpu_max_gen, ) /* the GPU's own max */ \
	X(unsigned, power_limit_mw, )   /* enforced power limit */ \
	X(unsigned, power_default_limit_mw, ) \
	X(unsigned, temp_slowdown_c, ) /* HW slowdown threshold */ \
	X(unsigned, temp_shutdown_c, ) \
	X(unsigned, temp_gpu_max_c, ) /* max operating temperature, GPU */ \
	X(unsigned, temp_mem_max_c, ) /* max operating temperature, memory */ \
	X(unsigned, clock_max_sm_mhz, ) \
	X(unsigned, clock_max_mem_mhz, ) \
	X(unsigned, clock_max_graphics_mhz, ) \
	X(char, driver_version, [GPU_VERSION_LEN]) /* "550.54.15" */ \
	X(char, nvml_version, [GPU_VERSION_LEN])   /* "12.550.54.15" */ \
	X(int, cuda_driver_version, )              /* 1000*major + 10*minor: 12040 */ \
	X(unsigned, mig_mode, )                    /* 0 disabled, 1 enabled (current) */ \
	X(unsigned, mig_mode_pending, ) \
	X(unsigned, persistence_mode, ) /* 0/1 */ \
	X(unsigned, ecc_mode, )         /* 0/1, current */ \
	X(unsigned, ecc_mode_pending, ) \
	X(int, cc_major, ) /* CUDA compute capability */ \
	X(int, cc_minor, ) \
	X(unsigned, nvlink_count, )                  /* links whose state NVML reports */ \
	X(uint64_t, clock_event_reasons_supported, ) /* GPU_CLOCK_EVENT_* mask */

/* Per-link static facts (index = link number). */
struct gpu_link_static {
	uint64_t valid[1];
	unsigned version;                   /* NVLink version (1..5) */
	char remote_bus_id[GPU_BUS_ID_LEN]; /* NVML form of the peer: a GPU or an NVSwitch */
	unsigned remote_type;               /* GPU_LINK_REMOTE_* */
};
enum {
	gpu_link_static_version_valid,
	gpu_link_static_remote_bus_id_valid,
	gpu_link_static_remote_type_valid
};
enum {
	GPU_LINK_REMOTE_GPU = 0,
	GPU_LINK_REMOTE_IBMNPU = 1,
	GPU_LINK_REMOTE_SWITCH = 2,
	GPU_LINK_REMOTE_UNKNOWN = 0xFF
};

#define GPU_GEN_MEMBER(type, member, dims) type member dims;
#define GPU_GEN_STATIC_ENUM(type, member, dims) gpu_static_##member##_valid,

enum gpu_static_field {
	GPU_STATIC_FIELDS(GPU_GEN_STATIC_ENUM) gpu_static_nfields
};

struct gpu_static {
	uint64_t valid[GPU_VALID_WORDS];
	GPU_STATIC_FIELDS(GPU_GEN_MEMBER)
	/* links 0 .. nlinks-1; nlinks is the number of link slots probed */
	unsigned nlinks;
	struct gpu_link_static links[GPU_MAX_NVLINKS];
};

#define GPU_STATIC_HAS(s, member) GPU_BIT_TEST((s)->valid, gpu_static_##member##_valid)
#define GPU_STATIC_SET(s, member, v) ((s)->member = (v), GPU_BIT_SET((s)->valid, gpu_static_##member##_valid))
#define GPU_STATIC_MARK(s, member) GPU_BIT_SET((s)->valid, gpu_static_##member##_valid)

/* Clock event ("throttle") reason bits, NVML's values (operations.md 5.4). */
#define GPU_CLOCK_EVENT_GPU_IDLE 0x1ull
#define GPU_CLOCK_EVENT_APP_CLOCKS 0x2ull
#define GPU_CLOCK_EVENT_SW_POWER_CAP 0x4ull
#define GPU_CLOCK_EVENT_HW_SLOWDOWN 0x8ull
#define GPU_CLOCK_EVENT_SYNC_BOOST 0x10ull
#define GPU_CLOCK_EVENT_SW_THERMAL 0x20ull
#define GPU_CLOCK_EVENT_HW_THERMAL 0x40ull
#define GPU_CLOCK_EVENT_HW_POWER_BRAKE 0x80ull
#define GPU_CLOCK_EVENT_DISPLAY_CLOCKS 0x100ull
/* Name of one bit ("sw_power_cap", "hw_thermal" ...), or NULL if unknown. */
const char *gpu_clock_event_name(uint64_t bit);

/*
 * Dynamic readings, one call to sample().  X(type, member, array-suffix)
 */
#define GPU_SAMPLE_FIELDS(X) \
	X(uint64_t, timestamp_ns, )    /* CLOCK_MONOTONIC when sampled; always valid */ \
	X(uint64_t, duration_ns, )     /* how long this sample() took; always valid */ \
	X(uint64_t, slowest_call_ns, ) /* the slowest library call of this sample() */ \
	X(char, slowest_call, [48])    /* its name, e.g. "nvmlDeviceGetPowerUsage" */ \
	X(unsigned, util_gpu_pct, )    /* % of time a kernel ran (not on MIG) */ \
	X(unsigned, util_mem_pct, )    /* % of time memory was read/written */ \
	X(unsigned, util_enc_pct, ) \
	X(unsigned, util_dec_pct, ) \
	X(uint64_t, fb_total_bytes, ) \
	X(uint64_t, fb_used_bytes, ) /* excludes reserved when the v2 call works */ \
	X(uint64_t, fb_free_bytes, ) \
	X(uint64_t, fb_reserved_bytes, ) /* driver/firmware reservation (v2 only) */ \
	X(unsigned, power_mw, ) \
	X(uint64_t, energy_mj, ) /* since the driver was loaded */ \
	X(unsigned, temp_gpu_c, ) \
	X(unsigned, temp_mem_c, ) /* HBM, field 82 */ \
	X(unsigned, fan_pct, ) \
	X(unsigned, pstate, ) /* 0 = P0 .. 15 */ \
	X(unsigned, clock_sm_mhz, ) \
	X(unsigned, clock_mem_mhz, ) \
	X(unsigned, clock_graphics_mhz, ) \
	X(unsigned, clock_video_mhz, ) \
	X(unsigned, pcie_gen, )            /* current; drops at idle to save power */ \
	X(unsigned, pcie_width, )          /* current lanes */ \
	X(uint64_t, pcie_tx_bytes_per_s, ) /* only with GPU_SAMPLE_PCIE_THROUGHPUT */ \
	X(uint64_t, pcie_rx_bytes_per_s, ) \
	X(uint64_t, pcie_replay_count, ) \
	X(uint64_t, ecc_sbe_volatile, )  /* corrected, since driver load */ \
	X(uint64_t, ecc_dbe_volatile, )  /* uncorrected, since driver load */ \
	X(uint64_t, ecc_sbe_aggregate, ) /* corrected, lifetime */ \
	X(uint64_t, ecc_dbe_aggregate, ) /* uncorrected, lifetime */ \
	X(unsigned, retired_pages_sbe, ) /* pre-Ampere page retirement */ \
	X(unsigned, retired_pages_dbe, ) \
	X(unsigned, retired_pages_pending, )     /* 0/1: a reset will retire pages */ \
	X(unsigned, remapped_rows_correctable, ) /* Ampere+ row remapping */ \
	X(unsigned, remapped_rows_uncorrectable, ) \
	X(unsigned, remapped_rows_pending, ) /* 0/1: a reset is needed to remap */ \
	X(unsigned, remapped_rows_failure, ) /* 0/1: remapping failed (RMA) */ \
	X(uint64_t, clock_event_reasons, )   /* active GPU_CLOCK_EVENT_* bits */ \
	X(uint64_t, violation_power_ns, )    /* accumulated time clocks were held down */ \
	X(uint64_t, violation_thermal_ns, ) \
	X(uint64_t, violation_sync_boost_ns, ) \
	X(uint64_t, violation_board_limit_ns, ) \
	X(uint64_t, violation_low_util_ns, ) \
	X(uint64_t, violation_reliability_ns, )

/* Per-link dynamic readings (only with GPU_SAMPLE_NVLINK). */
#define GPU_LINK_FIELDS(X) \
	X(unsigned, active, ) /* 1 up, 0 down */ \
	X(uint64_t, tx_kib, ) /* data payload counters, KiB (fields 138/139) */ \
	X(uint64_t, rx_kib, ) \
	X(uint64_t, err_replay, )   /* DL replay */ \
	X(uint64_t, err_recovery, ) /* DL recovery */ \
	X(uint64_t, err_crc_flit, ) \
	X(uint64_t, err_crc_data, ) \
	X(uint64_t, err_ecc_data, )

#define GPU_GEN_SAMPLE_ENUM(type, member, dims) gpu_sample_##member##_valid,
#define GPU_GEN_LINK_ENUM(type, member, dims) gpu_link_##member##_valid,
enum gpu_sample_field {
	GPU_SAMPLE_FIELDS(GPU_GEN_SAMPLE_ENUM) gpu_sample_nfields
};
enum gpu_link_field {
	GPU_LINK_FIELDS(GPU_GEN_LINK_ENUM) gpu_link_nfields
};

struct gpu_link_sample {
	uint64_t valid[1];
	GPU_LINK_FIELDS(GPU_GEN_MEMBER)
};

struct gpu_sample {
	uint64_t valid[GPU_VALID_WORDS];
	GPU_SAMPLE_FIELDS(GPU_GEN_MEMBER)
	unsigned nlinks; /* link slots probed (GPU_SAMPLE_NVLINK) */
	struct gpu_link_sample links[GPU_MAX_NVLINKS];
};

#define GPU_SAMPLE_HAS(s, member) GPU_BIT_TEST((s)->valid, gpu_sample_##member##_valid)
#define GPU_SAMPLE_SET(s, member, v) ((s)->member = (v), GPU_BIT_SET((s)->valid, gpu_sample_##member##_valid))
#define GPU_LINK_HAS(l, member) GPU_BIT_TEST((l)->valid, gpu_link_##member##_valid)
#define GPU_LINK_SET(l, member, v) ((l)->member = (v), GPU_BIT_SET((l)->valid, gpu_link_##member##_valid))

/* What sample() reads; OR them.  PCIe throughput blocks ~2 x 20 ms per GPU. */
enum gpu_sample_what {
	GPU_SAMPLE_BASIC = 0x1,            /* util, memory, power, energy, temps, fan, pstate, clocks, PCIe link */
	GPU_SAMPLE_HEALTH = 0x2,           /* ECC, retired pages, remapped rows, PCIe replays */
	GPU_SAMPLE_THROTTLE = 0x4,         /* clock event reasons and violation times */
	GPU_SAMPLE_NVLINK = 0x8,           /* per-link state, counters, errors */
	GPU_SAMPLE_PCIE_THROUGHPUT = 0x10, /* slow: two 20 ms sampling windows */
	GPU_SAMPLE_DEFAULT = 0xf,
	GPU_SAMPLE_ALL = 0x1f,
};

/* Names of a field (the member name, e.g. "power_mw"), for debugging and tests. */
const char *gpu_static_field_name(enum gpu_static_field f);
const char *gpu_sample_field_name(enum gpu_sample_field f);
const char *gpu_link_field_name(enum gpu_link_field f);

/*
 * Profiling readings from GPM (NVML's GPU performance monitoring, Hopper and
 * later): averages over the time between two gpm() calls on the same device
 * or MIG instance.  X(type, member, array-suffix)
 */
#define GPU_GPM_FIELDS(X) \
	X(double, interval_s, )          /* time between the two samples */ \
	X(double, graphics_active_pct, ) /* graphics/compute engine busy, % of time */ \
	X(double, sm_active_pct, )       /* SMs with a warp resident, % of cycles x SMs */ \
	X(double, sm_occupancy_pct, )    /* resident warps / max warps, % */ \
	X(double, tensor_active_pct, )   /* any tensor pipe busy, % of cycles */ \
	X(double, fp64_active_pct, ) \
	X(double, fp32_active_pct, ) \
	X(double, fp16_active_pct, ) \
	X(double, dram_active_pct, ) /* memory interface busy, % of cycles */ \
	X(double, pcie_tx_bytes_per_s, ) \
	X(double, pcie_rx_bytes_per_s, ) \
	X(double, nvlink_tx_bytes_per_s, ) \
	X(double, nvlink_rx_bytes_per_s, )

#define GPU_GEN_GPM_ENUM(type, member, dims) gpu_gpm_##member##_valid,
enum gpu_gpm_field {
	GPU_GPM_FIELDS(GPU_GEN_GPM_ENUM) gpu_gpm_nfields
};

struct gpu_gpm {
	uint64_t valid[1];
	GPU_GPM_FIELDS(GPU_GEN_MEMBER)
};

#define GPU_GPM_HAS(g, member) GPU_BIT_TEST((g)->valid, gpu_gpm_##member##_valid)
#define GPU_GPM_SET(g, member, v) ((g)->member = (v), GPU_BIT_SET((g)->valid, gpu_gpm_##member##_valid))
const char *gpu_gpm_field_name(enum gpu_gpm_field f);

/* A process holding a GPU. */
enum gpu_process_type {
	GPU_PROCESS_COMPUTE = 0x1,
	GPU_PROCESS_GRAPHICS = 0x2,
	GPU_PROCESS_MPS = 0x4,
};

struct gpu_process {
	unsigned pid;
	unsigned type;        /* GPU_PROCESS_* bits: one pid may be several */
	int used_bytes_valid; /* 0 when the driver cannot tell (e.g. without privileges) */
	uint64_t used_bytes;
	unsigned gpu_instance; /* MIG, or GPU_NO_INSTANCE */
	unsigned compute_instance;
};

/* A MIG device (GPU instance + compute instance) of a MIG-enabled GPU. */
struct gpu_mig_instance {
	unsigned gpu_instance;
	unsigned compute_instance;
	char uuid[GPU_UUID_LEN]; /* "MIG-..." */
	int memory_valid;
	uint64_t memory_total_bytes;
	uint64_t memory_used_bytes;
	char profile[32]; /* "3g.40gb"; "" when unknown */
};

/* Asynchronous events (XIDs and friends). */
enum gpu_event_type {
	GPU_EVENT_XID = 1,   /* code = the XID number (999 = unknown) */
	GPU_EVENT_SBE = 2,   /* single-bit ECC error */
	GPU_EVENT_DBE = 3,   /* double-bit ECC error */
	GPU_EVENT_LOST = 4,  /* the GPU fell off the bus while waiting */
	GPU_EVENT_OTHER = 5, /* code = the library's raw event type */
};

struct gpu_event {
	unsigned gpu_index; /* gpu_static.index of the device */
	enum gpu_event_type type;
	uint64_t code;
	unsigned gpu_instance; /* MIG attribution, or GPU_NO_INSTANCE */
	unsigned compute_instance;
	int64_t time_ns; /* CLOCK_REALTIME when the backend received it */
};

struct gpu_init_opts {
	const char *library_path; /* NULL: the normal dlopen() search */
};

struct gpu_backend {
	const char *name; /* "nvml" */

	/*
	 * Loads the vendor library and initialises it.  Returns GPU_OK or a
	 * negative gpu_rc (GPU_ERR_NO_LIBRARY when nothing could be loaded).
	 * After a failed init only last_error() and shutdown() may be called.
	 */
	int (*init)(const struct gpu_init_opts *opts);
	/* Releases everything, including every device handle.  Safe after a failed init. */
	void (*shutdown)(void);
	/* Text of the calling thread's last failure; static or thread-local storage. */
	const char *(*last_error)(void);

	/*
	 * Lists the devices.  *devs points to an array owned by the backend,
	 * valid until shutdown(); *count may be 0.  Returns 0 or a gpu_rc.
	 */
	int (*enumerate)(struct gpu_device *const **devs, unsigned *count);

	/* Fills *out (zeroed first).  Returns 0, GPU_ERR_LOST, or another gpu_rc. */
	int (*static_info)(struct gpu_device *dev, struct gpu_static *out);

	/*
	 * Reads the groups in `what` (gpu_sample_what) into *out (zeroed first).
	 * Readings that fail are left invalid.  Returns 0 when the device
	 * answered, GPU_ERR_LOST when it has fallen off the bus (then nothing
	 * but timestamp_ns is valid), or another gpu_rc.
	 */
	int (*sample)(struct gpu_device *dev, unsigned what, struct gpu_sample *out);

	/*
	 * The processes holding the GPU (compute, graphics and MPS lists merged
	 * by pid).  *procs is malloc()ed, the caller free()s it; NULL when
	 * *count is 0.  Returns 0 or a gpu_rc.
	 */
	int (*processes)(struct gpu_device *dev, struct gpu_process **procs, size_t *count);

	/*
	 * The MIG devices of a MIG-enabled GPU; *out malloc()ed, caller
	 * free()s.  *count is 0 when MIG is off.  May be NULL in a backend.
	 */
	int (*mig_instances)(struct gpu_device *dev, struct gpu_mig_instance **out, size_t *count);

	/*
	 * Pending events of every enumerated device, at most `max` into out[].
	 * Waits up to timeout_ms for the first one (0: do not wait); returns
	 * the number stored (0 on timeout) or a negative gpu_rc.  The first
	 * call registers for events, so events raised before it are not seen
	 * (read the kernel log for those).  Devices that cannot deliver
	 * events are skipped.
	 */
	int (*events)(struct gpu_event *out, size_t max, unsigned timeout_ms);

	/*
	 * Profiling metrics (GPM) between this call and the previous one for
	 * the same device and gpu_instance (GPU_NO_INSTANCE: the whole GPU,
	 * else a MIG GPU instance id).  Fills *out (zeroed first).  The first
	 * call only takes a sample: GPU_OK with nothing valid.  Returns
	 * GPU_ERR_NOT_SUPPORTED, with last_error() saying why, when the GPU,
	 * the driver or the library has no GPM.  Never call it from two
	 * threads at once for one device.  May be NULL in a backend.
	 */
	int (*gpm)(struct gpu_device *dev, unsigned gpu_instance, struct gpu_gpm *out);

	/* Last known status of a device (no library call). */
	enum gpu_status (*status)(struct gpu_device *dev);

	/*
	 * Looks again for a lost device (back after a reset): a new handle
	 * for the same UUID (uuid may be NULL or "": the same index).  GPU_OK
	 * when it answers again, and then its status is OK; GPU_ERR_LOST while
	 * it is still gone.  Call it from the thread that samples the device.
	 * May be NULL in a backend.
	 */
	int (*revive)(struct gpu_device *dev, const char *uuid);

	/*
	 * Whether a and b can reach each other's memory over NVLink: *status
	 * a GPU_P2P_* value.  Returns 0, GPU_ERR_NOT_SUPPORTED when the library
	 * cannot say, or another gpu_rc.  May be NULL in a backend.
	 */
	int (*p2p_status)(struct gpu_device *a, struct gpu_device *b, int *status);

	/*
	 * The file the library was really loaded from (dladdr), e.g.
	 * "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15"; NULL when
	 * nothing was loaded.  After an init that loaded the library and then
	 * failed (a driver/library mismatch) it still names the file.  Static
	 * storage, valid until the next init().
	 */
	const char *(*library)(void);
};

/* NVLink peer-to-peer status between two GPUs (NVML's nvmlGpuP2PStatus_t) */
enum gpu_p2p {
	GPU_P2P_OK,
	GPU_P2P_CHIPSET_NOT_SUPPORTED,
	GPU_P2P_GPU_NOT_SUPPORTED,
	GPU_P2P_TOPOLOGY_NOT_SUPPORTED,
	GPU_P2P_DISABLED_BY_REGKEY,
	GPU_P2P_NOT_SUPPORTED,
	GPU_P2P_UNKNOWN,
};

/* NULL-terminated, in a fixed order. */
extern const struct gpu_backend *const gpu_backends[];
/* The backend of that name, or NULL. */
const struct gpu_backend *gpu_backend_find(const char *name);

extern const struct gpu_backend gpu_backend_nvml;

#endif
