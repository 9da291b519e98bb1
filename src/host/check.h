/*
 * The host diagnosis behind `gpuscope check`: reads the host (host.h) and
 * the GPUs (gpu/gpu.h), applies the rules, and returns a report of checks,
 * each ok / warn / fail with a one-line finding and a one-line remedy.
 * Runbooks for symptoms (launch failures, out of memory, a busy GPU, slow
 * training, a lost GPU) walk the same report step by step.
 *
 * Nothing here prints or exits; src/cmd/check.c formats the report.
 * docs/check.md lists every check id.
 */
#ifndef GPUSCOPE_HOST_CHECK_H
#define GPUSCOPE_HOST_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"
#include "host/host.h"
#include "util/strbuf.h"

enum check_status {
	CHECK_OK = 0,
	CHECK_SKIP = 1, /* not applicable here, or the input could not be read */
	CHECK_WARN = 2,
	CHECK_FAIL = 3,
};
/* "ok", "skip", "warn", "fail" */
const char *check_status_name(enum check_status s);

struct check_item {
	char id[40];    /* stable: "gpu.pcie_link", "driver.nouveau" (docs/check.md) */
	char title[24]; /* short label for tables: "pcie link" */
	int gpu;        /* GPU index, or -1 for the host */
	enum check_status status;
	char *finding; /* one line: what was read */
	char *remedy;  /* one line: what to do; NULL when nothing */
};

struct check_proc {
	unsigned pid;
	unsigned type; /* GPU_PROCESS_* */
	int used_valid;
	uint64_t used_bytes;
	int visible;   /* found in ROOT/proc */
	int error;     /* when not visible: ENOENT another PID namespace, else unreadable */
	char user[64]; /* identifiers: a login name (32 at most) and a comm (16) */
	char comm[64];
};

struct check_gpu {
	unsigned index;
	int static_rc, sample_rc, procs_rc; /* gpu_rc of each call */
	enum gpu_status status;
	struct gpu_static st;
	struct gpu_sample s;
	struct check_proc *procs;
	size_t nprocs;
	struct gpu_mig_instance *mig;
	size_t nmig;
	struct host_pci pci; /* sysfs view of the same device */
};

/*
 * The char * members are malloc()ed, owned by the report and freed by
 * check_report_free(); check_run() leaves none of them NULL ("" when there
 * is nothing to say), and a reader takes NULL as "".
 */
struct check_report {
	/* the GPU library */
	int backend_rc;             /* gpu_rc of init (GPU_OK when it loaded) */
	char *backend_error;        /* why it did not load; "" when it did */
	char *nvml_library;         /* the file loaded */
	char nvml_file_version[32]; /* a driver version, "550.54.15", from the file name; "" when unknown */
	unsigned ngpus;
	struct check_gpu *gpus;
	struct gpu_event *events; /* events delivered during the check */
	size_t nevents;

	/* the host */
	char *root; /* the tree read (--root); "" for this host */
	struct host_driver driver;
	struct host_modules modules;
	struct host_blacklist blacklist;
	struct host_container container;
	struct host_ib_port *ib;
	size_t nib;
	struct host_unreadable ib_unreadable; /* /sys/class/infiniband or a device's ports */
	char (*nvidia_pci)[16];               /* NVIDIA display devices in sysfs */
	size_t n_nvidia_pci;
	struct host_unreadable pci_unreadable; /* /sys/bus/pci/devices or an entry of it */
	struct host_xid *xids;                 /* one per GPU and code, counted */
	size_t nxids;
	size_t xids_dropped; /* records of pairs past HOST_XID_GROUPS */
	int kmsg_rc;         /* 0 read, -1 not readable */
	char *kmsg_error;    /* why the kernel log could not be read; "" when it was */
	char *kmsg_path;     /* the kernel log read: --kmsg, or ROOT/dev/kmsg */
	int libs_probed;
	struct host_lib libs[HOST_LIB_N];
	int torch_probed;
	struct host_torch torch;
	int torch_rc;
	char *cuda_visible_devices; /* $CUDA_VISIBLE_DEVICES (eight GPU UUIDs are 320 bytes); "" when unset */

	/* the verdict */
	struct check_item *items;
	size_t nitems;
};

struct check_opts {
	const char *root;      /* NULL or "": the real host */
	const char *nvml_path; /* NULL: the normal dlopen() search */
	const char *kmsg_path; /* NULL: ROOT/dev/kmsg */
	const char *python;    /* NULL: no PyTorch probe */
	unsigned python_timeout_ms;
	unsigned events_wait_ms; /* how long to wait for NVML events at the end */
	int skip_libs;           /* do not dlopen the CUDA stack */
	const char *lib_dirs;    /* NULL: the loader's search; else ':'-separated directories */
};

/*
 * Runs every check.  Never fails: what cannot be read becomes a finding,
 * a skip that names the input ("cannot read PATH: ..."), never a verdict
 * drawn from its absence; a check whose input cannot be read is still
 * reported, so the summary counts every check.
 * The report is malloc()ed; free it with check_report_free().
 */
struct check_report *check_run(const struct check_opts *o);
void check_report_free(struct check_report *r);

/*
 * Adds a check to the report (gpuscope check --bench adds bench's verdicts
 * this way); the report takes ownership of finding and remedy (malloc()ed;
 * remedy may be NULL).  id and title are copied, cut to their fields.
 */
void check_report_add(struct check_report *r, const char *id, const char *title, int gpu, enum check_status st,
		      char *finding, char *remedy);

/*
 * 0 every check ok (or skipped), 1 a warning or failure, 3 no GPU to check
 * (no GPU library, driver not loaded, or no GPU visible).
 */
int check_exit_code(const struct check_report *r);
/* Counts by status into n[4] (indexed by enum check_status). */
void check_count(const struct check_report *r, size_t n[4]);

/* ---- findings grouped across GPUs (host/fleet.c) ---- */

/*
 * Items of one check id, status and remedy on several GPUs: 72 GPUs with
 * persistence off are one group.  Host items are groups of their own.
 */
struct check_group {
	size_t item;      /* the group's first item, an index into r->items */
	int *gpus;        /* owned: its GPUs, ascending; NULL for a host item */
	size_t ngpus;     /* 0 for a host item */
	int same_finding; /* every item of the group reads the same finding */
};
/*
 * The groups of r's items whose status is at least `min` (CHECK_WARN:
 * what needs action), in the items' order; *g is malloc()ed, free it with
 * check_groups_free().  Returns the count.
 */
size_t check_groups(const struct check_report *r, enum check_status min, struct check_group **g);
void check_groups_free(struct check_group *g, size_t n);
/* GPU indexes as runs: "0-3,5,7-71". */
void check_gpu_list(const int *gpus, size_t n, struct strbuf *out);

/*
 * One line for a fleet engine's message: "gpuscope: 2 failures: xid, gpu
 * 1: ...; gpu status, gpu 1: ..." (the failures, grouped), or the
 * warnings when no check failed, or "gpuscope: 25 checks ok on 2 GPUs".
 * No control characters; cut to at most max bytes (>= 16) at a character
 * boundary, ending in "~" when cut.
 */
void check_summary(const struct check_report *r, size_t max, struct strbuf *out);
/* Does a check fail (the condition a fleet engine acts on)? */
int check_has_failure(const struct check_report *r);

/* ---- Slurm's HealthCheckProgram (host/slurm.c) ---- */

/* A node as `scontrol -o show node NAME` prints it. */
struct check_slurm_node {
	char *state;  /* owned: "IDLE+DRAIN"; NULL when not printed */
	char *reason; /* owned: the reason without its "[user@time]" stamp; NULL when none */
	int drain;    /* the state has DRAIN (draining or drained) */
};
/* Parses one node's line; -1 when it has no State=.  Release with check_slurm_node_release(). */
int check_slurm_parse_node(const char *text, struct check_slurm_node *out);
void check_slurm_node_release(struct check_slurm_node *n);

/*
 * The node's Slurm name: `given` (--node), else $SLURMD_NODENAME (slurmd
 * sets it), else the host name up to its first dot, kept in buf; NULL
 * with errno when the host name cannot be read.
 */
const char *check_slurm_node_name(const char *given, struct strbuf *buf);

/* The reason gpuscope drains with starts with this, so it resumes only its own drains. */
#define CHECK_SLURM_REASON_PREFIX "gpuscope:"

enum check_slurm_done {
	SLURM_HEALTHY,  /* nothing to do */
	SLURM_DRAINED,  /* drained it now */
	SLURM_STILL,    /* already drained by gpuscope, for the same reason */
	SLURM_NOT_OURS, /* drained by someone else: reason left alone */
	SLURM_RESUMED,  /* a drain gpuscope set is cleared */
};
const char *check_slurm_done_name(enum check_slurm_done d);

struct check_slurm_opts {
	const char *node;     /* the node's Slurm name */
	const char *scontrol; /* the scontrol to run (a path or a name on $PATH) */
	unsigned timeout_ms;  /* for each scontrol call */
};
/*
 * Reads the node's state, then drains it with `reason` (not NULL: a
 * critical finding) unless someone else drained it, or resumes it when
 * reason is NULL and the drain is gpuscope's.  Returns 0 with *done, or
 * -1 with err->msg saying which scontrol call failed and how.
 */
int check_slurm_apply(const struct check_slurm_opts *o, const char *reason, enum check_slurm_done *done,
		      struct diag *err);

/* ---- topology (gpuscope check topo) ---- */

/* One cell of the GPU/NIC matrix: "X", "NV18", "PIX", ... */
struct check_topo {
	size_t n; /* GPUs first, then NIC ports (one per device) */
	size_t ngpus;
	char (*names)[16];        /* "GPU0", "NIC0" */
	char (*labels)[48];       /* NIC device names ("mlx5_0"), GPU bus ids */
	char (*cells)[16];        /* n*n, row-major */
	int *numa;                /* per device, -1 unknown */
	char **cpus;              /* owned: local_cpulist per device, whole; NULL when unknown */
	struct check_item *items; /* GPUDirect / NCCL findings */
	size_t nitems;
};
/* Builds the matrix from the report; free with check_topo_free(). */
struct check_topo *check_topo_build(const struct check_report *r);
void check_topo_free(struct check_topo *t);

/* ---- runbooks (gpuscope check --symptom) ---- */

enum check_symptom {
	SYMPTOM_LAUNCH_FAILED, /* CUDA_ERROR_LAUNCH_FAILED / illegal address */
	SYMPTOM_OOM,           /* CUDA out of memory */
	SYMPTOM_BUSY,          /* the GPU is held by a process / busy or unavailable */
	SYMPTOM_SLOW,          /* training slower than expected */
	SYMPTOM_LOST,          /* GPU disappeared / fell off the bus */
	SYMPTOM_COUNT
};
/* "launch-failed", "oom", "busy", "slow", "lost" */
const char *check_symptom_name(enum check_symptom s);
int check_symptom_from_name(const char *s);

/* A runbook step: what it looks at, what it found, what to do. */
struct check_step {
	char title[64]; /* the runbook's own short words: "memory per gpu" */
	enum check_status status;
	char *finding;
	char *action; /* NULL when nothing to do */
};

/*
 * Walks the runbook of a symptom against the report.  *steps is malloc()ed
 * (free with check_steps_free).  `gpu` limits per-GPU steps to one GPU (-1: all).
 * For SYMPTOM_OOM, need_bytes (> 0) is the memory a workload needs per GPU
 * (from the model), compared with each GPU's free memory.
 */
size_t check_runbook(const struct check_report *r, enum check_symptom s, int gpu, double need_bytes,
		     struct check_step **steps);
void check_steps_free(struct check_step *steps, size_t n);

#endif
