/*
 * Probes of the host around the GPUs: the driver in /proc, kernel modules
 * and blacklists, the kernel log's XIDs, PCIe links and topology in /sys,
 * InfiniBand ports, the CUDA stack's libraries as a process loads them,
 * PyTorch, processes and containers, and the compatibility rules that tie
 * their versions together.
 *
 * Every file path is read under a root directory (`root`: "" or NULL for
 * "/", or a fixture tree in tests), so nothing here reads the real host when
 * a root is given.  Libraries are loaded with dlopen() as any process on
 * this host would load them; the root does not apply to them.
 *
 * Parsers take text and never fail on bad input: they return -1 (or 0
 * matches) and leave the output zeroed.  They are fuzzed
 * (tests/fuzz/fuzz_host_*.c).
 *
 * Nothing here is thread-safe unless it says so; the check runs in one
 * thread.
 */
#ifndef GPUSCOPE_HOST_HOST_H
#define GPUSCOPE_HOST_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* ---- files under a root ---- */

/* ROOT + PATH ("/proc/modules"); caller frees. */
char *host_path(const char *root, const char *path);
/*
 * Reads ROOT+PATH whole (up to max_bytes) into a NUL-terminated malloc()ed
 * buffer; returns its length, or -1 with errno set (the file is absent or
 * unreadable).  Caller frees *buf.
 */
long host_read(const char *root, const char *path, size_t max_bytes, char **buf);
/* Reads the first line of a small file (sysfs attribute) without its newline. 0 or -1 with errno. */
int host_read_line(const char *root, const char *path, char *out, size_t len);

/*
 * The first input of a probe that is there but could not be read: no
 * permission (EACCES, EPERM: not root), a symlink loop (ELOOP), an I/O
 * error.  A check that depends on it is skipped and names it; it is never
 * graded as if the input were absent ("no nvidia runtime", "port down").
 */
struct host_unreadable {
	int error;  /* errno; 0 when every input was read or is absent */
	char *path; /* owned; as on the host, without the root: "/etc/docker/daemon.json" */
};
/* Is errno `err` "cannot read" rather than "absent" (ENOENT, ENOTDIR)? */
int host_is_unreadable(int err);
/*
 * Notes path (the first one only; u starts zeroed) when err is unreadable;
 * returns host_is_unreadable(err).
 */
int host_note_unreadable(struct host_unreadable *u, const char *path, int err);
/* Frees the path and zeroes u. */
void host_unreadable_release(struct host_unreadable *u);
/*
 * "cannot read PATH: Permission denied; run as root to check it" (the hint
 * for EACCES and EPERM only); malloc()ed, caller frees.
 */
char *host_unreadable_text(const struct host_unreadable *u);

/* ---- the NVIDIA kernel driver ---- */

struct host_driver {
	int present;      /* /proc/driver/nvidia/version was readable */
	char version[32]; /* an identifier: "550.54.15" */
	int open_module;  /* 1 open GPU kernel module, 0 proprietary, -1 unknown */
	int error;        /* errno when not read: ENOENT absent, EACCES, ELOOP ... */
};

/*
 * Parses /proc/driver/nvidia/version:
 *   "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar ..."
 *   "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build ..."
 * Returns 0 with out filled, -1 when no version is found.
 */
int host_parse_driver_version(const char *text, struct host_driver *out);
/* Reads it under root; out->present = 0 when the file is absent. */
void host_read_driver(const char *root, struct host_driver *out);

/* Kernel modules of interest, from /proc/modules. */
struct host_modules {
	int readable;
	int error; /* errno when not readable */
	int nvidia, nvidia_uvm, nvidia_drm, nvidia_modeset, nvidia_peermem, nouveau, ib_core;
	int nvidia_fs; /* GPUDirect Storage */
};
int host_parse_modules(const char *text, struct host_modules *out);
void host_read_modules(const char *root, struct host_modules *out);

/* Where nouveau is kept away: modprobe.d files or the kernel command line. */
struct host_blacklist {
	int nouveau_blacklisted;           /* "blacklist nouveau" or modprobe.blacklist=nouveau */
	int nouveau_modeset0;              /* "options nouveau modeset=0" or nouveau.modeset=0 */
	char *where;                       /* owned: the file (under root) or "/proc/cmdline"; NULL: nowhere */
	struct host_unreadable unreadable; /* a modprobe.d directory or file, or the command line */
};
/* Frees what host_read_blacklist() noted and zeroes b. */
void host_blacklist_release(struct host_blacklist *b);
/* Scans a modprobe.d file's text; sets the flags found. */
void host_parse_modprobe(const char *text, struct host_blacklist *out);
/* Scans a kernel command line. */
void host_parse_cmdline(const char *text, struct host_blacklist *out);
/* etc/modprobe.d, run/modprobe.d, usr/lib/modprobe.d, lib/modprobe.d, proc/cmdline; release with host_blacklist_release() */
void host_read_blacklist(const char *root, struct host_blacklist *out);

/* ---- XIDs in the kernel log ---- */

struct host_xid {
	char pci[32]; /* an identifier, as the driver prints it: "0000:c1:00" (no function) */
	int code;
	long pid;         /* -1 when not given */
	char process[64]; /* a comm (TASK_COMM_LEN 16) or its name; "" when not given */
	char *detail;     /* owned: the rest of the message, whole; "" when nothing follows */
	double uptime_s;  /* seconds since boot from the log prefix, or -1 */
	/* host_read_xids(): records of this GPU and code; the fields above are the last one's */
	size_t count;
	double first_uptime_s; /* the first record's uptime_s */
};

/*
 * Parses one kernel log record, in /dev/kmsg form ("4,1234,5678901,-;NVRM:
 * Xid (PCI:0000:c1:00): 79, pid=..., GPU has fallen off the bus.") or dmesg
 * form ("[ 5678.901234] NVRM: Xid (...): 79, ...").  Returns 1 for an Xid
 * record (out filled: free its detail with host_xid_release()), 0
 * otherwise (nothing to free).
 */
int host_parse_xid(const char *line, size_t len, struct host_xid *out);
/* Frees x's detail (the other fields stay readable). */
void host_xid_release(struct host_xid *x);
/* Frees n records, their details with them, and the array. */
void host_xids_free(struct host_xid *x, size_t n);

/*
 * Reads the kernel log's Xid records from `path` (a /dev/kmsg device, read
 * without blocking, or a regular file of kmsg or dmesg lines) and counts
 * them per GPU and code: *out holds one entry per (pci, code), in order of
 * first appearance, with the count and the last record's text, so a storm
 * of millions of lines stays a few entries.  At most HOST_XID_GROUPS
 * entries; records of further pairs are counted in *dropped (may be NULL).
 * A device is read up to HOST_KMSG_MAX_BYTES and must look like /dev/kmsg
 * (/dev/zero does not); a regular file up to HOST_KMSG_MAX_TEXT_BYTES, a
 * line at a time.  *out is malloc()ed (free it with host_xids_free()), *n its length.
 * Returns 0, or -1 with errno (EPERM/EACCES: dmesg_restrict) and "cannot
 * read PATH: why" in err (a directory, a FIFO, a read error).
 */
#define HOST_XID_GROUPS 1024
#define HOST_KMSG_MAX_BYTES (64u << 20)
/* A text log is read up to this much (a kernel log of years). */
#define HOST_KMSG_MAX_TEXT_BYTES ((size_t)4 << 30)
int host_read_xids(const char *path, struct host_xid **out, size_t *n, struct diag *err);
int host_read_xids_counted(const char *path, struct host_xid **out, size_t *n, size_t *dropped, struct diag *err);

/* The XID catalogue (data/compat/xid.csv). */
struct xid_info {
	int code;
	const char *name; /* "GPU has fallen off the bus" */
	const char *description;
	const char *action; /* the recommended action, one line */
	const char *bucket; /* "RESTART_BM", "RESET_GPU", "RESTART_APP", "IGNORE" ... */
	const char *source;
	int severity; /* 0 info, 1 warn, 2 fail */
};
/* The entry for a code, or NULL.  Entries live for the whole program. Thread-safe. */
const struct xid_info *xid_lookup(int code);
/* Severity of an XID for a check: 0 informational, 1 warn, 2 fail. */
int xid_severity(const struct xid_info *x);

/* ---- PCI devices in sysfs ---- */

struct host_pci {
	int present;          /* /sys/bus/pci/devices/ID exists */
	int link_valid;       /* the four link attributes were read */
	int cur_gen, max_gen; /* from "32.0 GT/s PCIe": 1..6, 0 unknown */
	int cur_width, max_width;
	int numa_node; /* -1 when none */
	char *cpulist; /* owned: local_cpulist ("0-55,112-167"; interleaved CPUs list one by one); NULL absent */
	unsigned vendor, device, class_code;
	/* owned: components below /sys/devices: "pci0000:17", "0000:17:01.0", ... the device; NULL unknown */
	char *path;
	long aer_fatal, aer_nonfatal, aer_correctable; /* totals, -1 when absent */
	/* the device's entry (a symlink loop: present 0) or an attribute that could not be read */
	struct host_unreadable unreadable;
};

/* "32.0 GT/s PCIe" -> 5; 0 for unknown text. */
int host_pcie_gen(const char *speed);
/*
 * Reads one device (sysfs form "0000:17:00.0") under root into *out,
 * written afresh (release a device read before).  Returns 0, -1 when
 * absent or unreadable (then out->unreadable says which); either way free
 * it with host_pci_release().
 */
int host_pci_read(const char *root, const char *sysfs_id, struct host_pci *out);
/* Frees the device's path and what it could not read, and zeroes it. */
void host_pci_release(struct host_pci *p);
/*
 * Lists NVIDIA (vendor 0x10de) display/3D controllers; ids into
 * out[max][16]; returns the count.  Entries that cannot be read are noted
 * in *u (may be NULL).
 */
size_t host_pci_nvidia(const char *root, char (*out)[16], size_t max, struct host_unreadable *u);

/*
 * The path between two PCI devices in nvidia-smi topo -m terms:
 * PIX (at most one PCIe switch), PXB (several bridges, no host bridge),
 * PHB (through the host bridge), NODE (between host bridges of one NUMA
 * node), SYS (across the CPU interconnect).
 */
enum host_topo {
	HOST_TOPO_X = 0,
	HOST_TOPO_PIX,
	HOST_TOPO_PXB,
	HOST_TOPO_PHB,
	HOST_TOPO_NODE,
	HOST_TOPO_SYS,
	HOST_TOPO_UNKNOWN,
};
enum host_topo host_topo_pci(const struct host_pci *a, const struct host_pci *b);
const char *host_topo_name(enum host_topo t);

/* ---- RDMA NICs ---- */

/* The text fields are sysfs attributes: identifiers the kernel writes short. */
struct host_ib_port {
	char device[32]; /* "mlx5_0" */
	int port;
	char state[32];      /* "ACTIVE" (from "4: ACTIVE") */
	char phys_state[32]; /* "LinkUp" */
	char link_layer[32]; /* "InfiniBand" or "Ethernet" (RoCE) */
	char rate[64];       /* "400 Gb/sec (4X NDR)" */
	double rate_gbps;    /* 400 */
	char pci[16];        /* sysfs id of the adapter, "" when unknown */
	struct host_pci pcidev;
	struct host_unreadable unreadable; /* an attribute of the port that could not be read */
};
/*
 * Every port of /sys/class/infiniband; *out malloc()ed (free it with
 * host_ib_ports_free()). Returns the count.  The directories that cannot
 * be read (the class, a device's ports) are noted in *u (may be NULL).
 */
size_t host_ib_ports(const char *root, struct host_ib_port **out, struct host_unreadable *u);
void host_ib_ports_free(struct host_ib_port *ports, size_t n);

/* ---- the CUDA stack's libraries ---- */

enum host_lib_kind {
	HOST_LIB_CUDA,
	HOST_LIB_CUDART,
	HOST_LIB_CUDNN,
	HOST_LIB_NCCL,
	HOST_LIB_N
};

struct host_lib {
	enum host_lib_kind kind;
	const char *name; /* "libcuda" */
	int found;
	char soname[64]; /* the name that loaded, one of probe's list: "libcudnn.so.9" */
	char *path;      /* owned: the file the loader picked; NULL when none */
	int raw;         /* the version as the library encodes it */
	int major, minor, patch;
	char *error; /* owned: why it was not found or the call failed; NULL when nothing failed */
};

/*
 * Loads each library by dlopen() (newest soname first), reads its version,
 * unloads it.  dirs: NULL for the loader's own search (LD_LIBRARY_PATH, the
 * ld.so cache, as a process would), or a ':'-separated list of directories
 * to load from instead (a virtualenv's site-packages/nvidia/cudnn/lib ...).
 * Free the text with host_libs_release().
 */
void host_probe_libs(const char *dirs, struct host_lib out[HOST_LIB_N]);
void host_libs_release(struct host_lib libs[HOST_LIB_N]);
/* cuDNN 8 encodes major*1000+minor*100+patch, cuDNN 9 major*10000+minor*100+patch. */
int host_cudnn_decode(long v, int *major, int *minor, int *patch);
/* NCCL: X*1000+Y*100+Z up to 2.8, X*10000+Y*100+Z from 2.9. */
int host_nccl_decode(long v, int *major, int *minor, int *patch);

/* ---- child processes ---- */

struct host_child {
	int status;    /* waitpid() status */
	int timed_out; /* killed (SIGKILL) at the time limit */
	char *out;     /* owned: stdout, NUL-terminated, the first 1 MiB; NULL when it printed nothing */
	size_t len;
};
/*
 * Runs argv[0] (a path, or a name searched on $PATH, or /bin:/usr/bin
 * without one) with stdin on /dev/null, reading its stdout (and its stderr
 * with_stderr, else stderr goes to /dev/null) for at most timeout_ms.  Returns 0 when it was started (*c filled, even when
 * it could not be executed: status 127) and -1 with errno when no pipe or
 * fork could be had.  Release *c with host_child_release() after 0.
 */
int host_run(const char *const argv[], unsigned timeout_ms, int with_stderr, struct host_child *c);
/* Did the child exit by itself with this code? */
int host_child_exited(const struct host_child *c, int code);
void host_child_release(struct host_child *c);

/* ---- PyTorch ---- */

struct host_torch {
	int python_found;
	int torch_found;
	char *python;        /* owned: the interpreter asked (a path or a name on $PATH) */
	char version[64];    /* an identifier: "2.3.1+cu121" */
	char cuda[16];       /* an identifier, torch.version.cuda: "12.1", "" for a CPU build */
	int cudnn;           /* torch.backends.cudnn.version(): 8902, 90100; 0 absent */
	char arch_list[512]; /* "sm_50 sm_60 ... sm_90": the CUDA architectures, a score at most */
	int cuda_available;  /* torch.cuda.is_available() */
	int device_count;
	char nccl[32]; /* an identifier: "2.20.5" */
	char *error;   /* owned: the import error or why the probe failed; NULL when none */
};
/*
 * Runs `python -c SCRIPT` (python: a path or a name on $PATH) with a time
 * limit and parses the JSON it prints into *out, written afresh.  Returns
 * 0 when Python ran, -1 when it could not be started; either way free it
 * with host_torch_release().
 */
int host_probe_torch(const char *python, unsigned timeout_ms, struct host_torch *out);
/* Parses the probe's output into *out (zeroed, or filled before: a text it replaces is freed). */
int host_parse_torch(const char *json, struct host_torch *out);
/* Frees the text and zeroes t. */
void host_torch_release(struct host_torch *t);

/* ---- processes ---- */

/*
 * User and command of a pid from ROOT/proc/PID/status and ROOT/etc/passwd.
 * 0, or -1 with errno: ENOENT not visible (another PID namespace), EACCES
 * and others unreadable.
 */
int host_proc_user(const char *root, unsigned pid, char *user, size_t ulen, char *comm, size_t clen);

/* A process holding /dev/nvidia* open (the fuser -v /dev/nvidia* view). */
struct host_holder {
	unsigned pid;
	char comm[64]; /* identifiers: a comm (16) and a login name (32 at most) */
	char user[64];
	char *devices; /* owned: the device files it holds, "nvidia0 nvidiactl nvidia-uvm" */
};
/*
 * Scans ROOT/proc/[0-9]*\/fd; *out malloc()ed (free it with
 * host_holders_free()).  Returns the count.  The
 * processes whose fd directory cannot be read (another user's, when not
 * root) are counted in *unreadable and the first noted in *u (both may be
 * NULL): they may hold a GPU too.
 */
size_t host_dev_holders(const char *root, struct host_holder **out, size_t *unreadable, struct host_unreadable *u);
void host_holders_free(struct host_holder *h, size_t n);

/* ---- containers ---- */

struct host_container {
	int in_container;       /* /.dockerenv, /run/.containerenv or a container cgroup */
	char *visible_devices;  /* owned: $NVIDIA_VISIBLE_DEVICES; NULL when unset */
	char *driver_caps;      /* owned: $NVIDIA_DRIVER_CAPABILITIES; NULL when unset */
	int toolkit_cli;        /* nvidia-container-cli installed */
	int runtime_hook;       /* nvidia-container-runtime or -hook installed */
	int toolkit_config;     /* etc/nvidia-container-runtime/config.toml */
	int docker_runtime;     /* "nvidia" runtime in etc/docker/daemon.json */
	int containerd_runtime; /* nvidia runtime in etc/containerd/config.toml */
	int cdi_spec;           /* etc/cdi/nvidia.yaml or var/run/cdi/nvidia.yaml */
	int docker_installed, containerd_installed;
	struct host_unreadable unreadable; /* a file above that is there but could not be read */
};
/* Fills *out afresh; free it with host_container_release(). */
void host_probe_container(const char *root, struct host_container *out);
void host_container_release(struct host_container *c);

/* ---- compatibility rules (the CSV files of data/compat) ---- */

/* Versions as integers: CUDA 12.4 = 12040 (NVML's encoding); drivers compare field by field. */
int compat_cuda_parse(const char *text);              /* "12.4" -> 12040; -1 */
int compat_version_cmp(const char *a, const char *b); /* "535.104.05" vs "550.54.15": <0, 0, >0 */

struct compat_cuda {
	int cuda;                      /* 12040 */
	const char *min_driver;        /* toolkit driver: "550.54.14" */
	const char *min_driver_compat; /* minor-version compatibility floor: "525.60.13" */
	const char *source;
};
struct compat_arch {
	int cc_major, cc_minor;
	const char *arch; /* "hopper" */
	const char *gpus;
	int min_cuda, max_cuda; /* max_cuda -1: still supported */
	const char *source;
};
struct compat_torch {
	const char *torch;     /* "2.3" */
	int cuda;              /* a CUDA build it ships: 12010 */
	const char *cudnn;     /* "8.9.2" */
	const char *arch_list; /* "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90" */
	const char *source;
};
struct compat_cudnn {
	int major, minor;       /* 9.1 */
	int cuda_min, cuda_max; /* CUDA releases it was built for */
	int cc_min_major, cc_min_minor;
	const char *source;
};

/*
 * Loads the embedded rules once (thread-safe).  Returns 0, or -1 with err
 * (only if the embedded data is broken, which the unit tests rule out).
 */
int compat_load(struct diag *err);
/* The row for a CUDA release (major.minor), or NULL. */
const struct compat_cuda *compat_cuda_row(int cuda);
/* The newest CUDA release whose minimum driver is <= driver; -1 if none. */
int compat_max_cuda_for_driver(const char *driver);
const struct compat_arch *compat_arch_row(int cc_major, int cc_minor);
/* Rows for a torch release ("2.3.1+cu121" matches "2.3"); returns the count, *rows points into the table. */
size_t compat_torch_rows(const char *torch_version, const struct compat_torch **rows);
/* The row for a cuDNN release (or the older row it falls between), NULL beyond the table. */
const struct compat_cudnn *compat_cudnn_row(int major, int minor);
/*
 * Does an arch list ("sm_80 sm_86 sm_90 compute_90") run on a GPU of compute
 * capability major.minor?  Cubins run on the same major and a minor at least
 * theirs; PTX compiles for any later GPU.  Returns 1 yes, 0 no, and writes
 * the best entry to `via` ("sm_80", "compute_90 (PTX JIT)").
 */
int compat_arch_runs(const char *arch_list, int cc_major, int cc_minor, char *via, size_t len);

#endif
