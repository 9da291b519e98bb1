/*
 * The field tables of check's results and the JSON documents built from
 * them.  Each X-macro line is one JSON key: its type, unit, help line for
 * docs/check.md and the expression that reads it.  The GPUs' own readings
 * (static, sample, nvlinks) are named by gpu/gpu.h's field lists instead,
 * so a reading the GPU lacks stays absent rather than null.
 */
#include "host/fields.h"

#include <jansson.h>
#include <math.h>

/* the row setters, by field type; a negative BOOL is unknown and stays null */
#define SET(name, type, unit, help, expr) SET_##type(row, i++, (expr));
#define SET_TEXT report_set_text
#define SET_NUM report_set_num
#define SET_INT report_set_num
#define SET_BOOL set_known_bool
#define SKIP(name, type, unit, help, expr)
/* an optional number: NaN, written as null */
#define OPT(cond, v) ((cond) ? (double)(v) : NAN)
/* text that is "" (or, for a string the report owns, NULL) when unknown: null */
static const char *opt_text(const char *s)
{
	return s && *s ? s : NULL;
}
#define OPT_TEXT(s) opt_text(s)
/* a string the report owns, as it reads: NULL (not there) is "" */
#define TEXT_OF(s) ((s) ? (s) : "")

static void set_known_bool(struct report_row *row, size_t i, int v)
{
	if (v >= 0)
		report_set_bool(row, i, v);
}

/* TITLE(...) is the title, which CSV rows and topo's findings leave out */
#define CHECK_ITEM_FIELDS(F, TITLE) \
	F(id, TEXT, NULL, "stable id of the check: gpu.pcie_link, driver.nouveau ...", it->id) \
	TITLE(title, TEXT, NULL, "short label of the check for tables", it->title) \
	F(gpu, INT, NULL, "GPU index; null for a check of the host", OPT(it->gpu >= 0, it->gpu)) \
	F(status, TEXT, NULL, "ok, warn, fail or skip", check_status_name(it->status)) \
	F(finding, TEXT, NULL, "what was read, one line", it->finding) \
	F(remedy, TEXT, NULL, "what to do, one line; null when nothing", it->remedy)

#define CHECK_SUMMARY_FIELDS(F) \
	F(ok, INT, NULL, "checks that passed", n[CHECK_OK]) \
	F(warn, INT, NULL, "checks that warn", n[CHECK_WARN]) \
	F(fail, INT, NULL, "checks that failed", n[CHECK_FAIL]) \
	F(skip, INT, NULL, "checks skipped: not applicable, or their input could not be read", n[CHECK_SKIP])

#define CHECK_HOST_FIELDS(F) \
	F(root, TEXT, NULL, "the tree read (--root), \"/\" for this host", opt_text(r->root) ? r->root : "/") \
	F(nvml_status, TEXT, NULL, "how NVML loaded: ok, no library, driver not loaded ...", \
	  gpu_rc_name(r->backend_rc)) \
	F(nvml_error, TEXT, NULL, "why NVML did not load; null when it did", OPT_TEXT(r->backend_error)) \
	F(nvml_library, TEXT, NULL, "the NVML file loaded", OPT_TEXT(r->nvml_library)) \
	F(nvml_file_version, TEXT, NULL, "the driver version in the NVML file's name", \
	  OPT_TEXT(r->nvml_file_version)) \
	F(kernel_module_version, TEXT, NULL, "from /proc/driver/nvidia/version", OPT_TEXT(r->driver.version)) \
	F(kernel_module_open, BOOL, NULL, "the open GPU kernel module; null when unknown", r->driver.open_module)

#define CHECK_MODULES_FIELDS(F) \
	F(nvidia, BOOL, NULL, "nvidia loaded", r->modules.nvidia) \
	F(nvidia_uvm, BOOL, NULL, "nvidia_uvm loaded (CUDA needs it)", r->modules.nvidia_uvm) \
	F(nvidia_drm, BOOL, NULL, "nvidia_drm loaded", r->modules.nvidia_drm) \
	F(nvidia_modeset, BOOL, NULL, "nvidia_modeset loaded", r->modules.nvidia_modeset) \
	F(nvidia_peermem, BOOL, NULL, "nvidia_peermem loaded (GPUDirect RDMA)", r->modules.nvidia_peermem) \
	F(nouveau, BOOL, NULL, "nouveau loaded", r->modules.nouveau)

#define CHECK_HOST_SETUP_FIELDS(F) \
	F(nouveau_blacklisted, BOOL, NULL, "nouveau blacklisted or modeset=0", \
	  r->blacklist.nouveau_blacklisted || r->blacklist.nouveau_modeset0) \
	F(in_container, BOOL, NULL, "running in a container", r->container.in_container) \
	F(nvidia_pci_devices, INT, NULL, "NVIDIA display devices on the PCI bus", r->n_nvidia_pci)

#define CHECK_LIBRARY_FIELDS(F) \
	F(name, TEXT, NULL, "libcuda, libcudart, libcudnn or libnccl", l->name) \
	F(found, BOOL, NULL, "it loaded", l->found) \
	F(path, TEXT, NULL, "the file the loader picked", OPT_TEXT(l->path)) \
	F(version, TEXT, NULL, "\"12.4\", \"9.1.0\"; null when unknown", lib_version(row, l)) \
	F(raw, INT, NULL, "the version as the library encodes it", OPT(l->found && !l->error, l->raw))

#define CHECK_PYTORCH_FIELDS(F) \
	F(version, TEXT, NULL, "torch.__version__", t->version) \
	F(cuda, TEXT, NULL, "torch.version.cuda; null for a CPU build", OPT_TEXT(t->cuda)) \
	F(cudnn, INT, NULL, "torch.backends.cudnn.version()", OPT(t->cudnn, t->cudnn)) \
	F(arch_list, TEXT, NULL, "torch.cuda.get_arch_list()", t->arch_list) \
	F(cuda_available, BOOL, NULL, "torch.cuda.is_available()", t->cuda_available) \
	F(device_count, INT, NULL, "torch.cuda.device_count()", t->device_count)

#define CHECK_GPU_FIELDS(F) \
	F(index, INT, NULL, "NVML index", g) \
	F(status, TEXT, NULL, "ok, lost, reset_required, or the error of the static readings", gpu_status(cg))

#define CHECK_PROCESS_FIELDS(F) \
	F(pid, INT, NULL, "process id", p->pid) \
	F(type, TEXT, NULL, "compute, graphics or mps", proc_type(p->type)) \
	F(used_bytes, INT, "bytes", "GPU memory it holds; null when NVML does not say", \
	  OPT(p->used_valid, p->used_bytes)) \
	F(user, TEXT, NULL, "its user; null when not in this PID namespace", p->visible ? p->user : NULL) \
	F(command, TEXT, NULL, "its command; null when not in this PID namespace", p->visible ? p->comm : NULL)

#define CHECK_MIG_FIELDS(F) \
	F(gpu_instance, INT, NULL, "GPU instance id", m->gpu_instance) \
	F(compute_instance, INT, NULL, "compute instance id", m->compute_instance) \
	F(uuid, TEXT, NULL, "MIG-... UUID", m->uuid) \
	F(memory_total_bytes, INT, "bytes", "memory of the instance", OPT(m->memory_valid, m->memory_total_bytes))

#define CHECK_PCI_FIELDS(F) \
	F(path, TEXT, NULL, "the PCIe path below /sys/devices", TEXT_OF(p->path)) \
	F(numa_node, INT, NULL, "NUMA node, -1 when none", p->numa_node)

#define CHECK_PCI_LINK_FIELDS(F) \
	F(current_gen, INT, NULL, "PCIe generation now", p->cur_gen) \
	F(max_gen, INT, NULL, "highest PCIe generation", p->max_gen) \
	F(current_width, INT, NULL, "PCIe lanes now", p->cur_width) \
	F(max_width, INT, NULL, "most PCIe lanes", p->max_width)

#define CHECK_XID_FIELDS(F) \
	F(code, INT, NULL, "Xid number", x->code) \
	F(pci, TEXT, NULL, "the GPU as the driver names it: 0000:c1:00", x->pci) \
	F(pid, INT, NULL, "the process named; null when none", OPT(x->pid >= 0, x->pid)) \
	F(process, TEXT, NULL, "its name; null when none", OPT_TEXT(x->process)) \
	F(detail, TEXT, NULL, "the rest of the message", TEXT_OF(x->detail)) \
	F(uptime_s, NUM, "s", "when, since boot (the last record)", OPT(x->uptime_s >= 0, x->uptime_s)) \
	F(count, INT, NULL, "records of this GPU and code", x->count) \
	F(first_uptime_s, NUM, "s", "when the first record came, since boot", \
	  OPT(x->first_uptime_s >= 0, x->first_uptime_s)) \
	F(name, TEXT, NULL, "NVIDIA's name of the Xid", info ? info->name : NULL) \
	F(bucket, TEXT, NULL, "its catalog bucket: RESET_GPU, RESTART_APP ...", info ? info->bucket : NULL) \
	F(action, TEXT, NULL, "the recommended action", info ? info->action : NULL)

#define CHECK_EVENT_FIELDS(F) \
	F(gpu, INT, NULL, "GPU index", e->gpu_index) \
	F(type, TEXT, NULL, "xid, lost, dbe, sbe or other", event_type(e->type)) \
	F(code, INT, NULL, "the Xid number, or the event's code", e->code)

#define CHECK_TOPO_DEVICE_FIELDS(F) \
	F(name, TEXT, NULL, "GPU0 ... then NIC0 ...", t->names[k]) \
	F(label, TEXT, NULL, "a GPU's bus id, a NIC's device name (mlx5_0)", t->labels[k]) \
	F(numa_node, INT, NULL, "NUMA node; null when unknown", OPT(t->numa[k] >= 0, t->numa[k])) \
	F(cpus, TEXT, NULL, "local CPU list; null when unknown", OPT_TEXT(t->cpus[k]))

#define CHECK_RUNBOOK_FIELDS(F) \
	F(symptom, TEXT, NULL, "launch-failed, oom, busy, slow or lost", symptom) \
	F(workload, TEXT, NULL, "oom with --workload: the estimate; else null", workload) \
	F(need_bytes, NUM, "bytes", "oom with --workload: memory needed per GPU; else null", \
	  OPT(need_bytes > 0, need_bytes))

#define CHECK_STEP_FIELDS(F) \
	F(step, INT, NULL, "1, 2, ... in order", k + 1) \
	F(title, TEXT, NULL, "what the step looks at", s->title) \
	F(status, TEXT, NULL, "ok, warn, fail or skip", check_status_name(s->status)) \
	F(finding, TEXT, NULL, "what it found", s->finding) \
	F(action, TEXT, NULL, "what to do; null when nothing", s->action)

#define SCHEMA(fn, sname, list) \
	static const struct report_field fn##_fields[] = {list(REPORT_FIELD_DECL)}; \
	static const struct report_schema fn##_s = REPORT_SCHEMA(sname, fn##_fields); \
	const struct report_schema *fn##_schema(void) \
	{ \
		return &fn##_s; \
	}

#define ITEM_FIELDS(F) CHECK_ITEM_FIELDS(F, F)
#define FINDING_FIELDS(F) CHECK_ITEM_FIELDS(F, SKIP)
SCHEMA(check_item, "check-item", ITEM_FIELDS)
SCHEMA(check_finding, "check-finding", FINDING_FIELDS)
SCHEMA(check_summary, "check-summary", CHECK_SUMMARY_FIELDS)
SCHEMA(check_host, "check-host", CHECK_HOST_FIELDS)
SCHEMA(check_modules, "check-modules", CHECK_MODULES_FIELDS)
SCHEMA(check_host_setup, "check-host-setup", CHECK_HOST_SETUP_FIELDS)
SCHEMA(check_library, "check-library", CHECK_LIBRARY_FIELDS)
SCHEMA(check_pytorch, "check-pytorch", CHECK_PYTORCH_FIELDS)
SCHEMA(check_gpu, "check-gpu", CHECK_GPU_FIELDS)
SCHEMA(check_process, "check-process", CHECK_PROCESS_FIELDS)
SCHEMA(check_mig, "check-mig", CHECK_MIG_FIELDS)
SCHEMA(check_pci, "check-pci", CHECK_PCI_FIELDS)
SCHEMA(check_pci_link, "check-pci-link", CHECK_PCI_LINK_FIELDS)
SCHEMA(check_xid, "check-xid", CHECK_XID_FIELDS)
SCHEMA(check_event, "check-event", CHECK_EVENT_FIELDS)
SCHEMA(check_topo_device, "check-topo-device", CHECK_TOPO_DEVICE_FIELDS)
SCHEMA(check_runbook, "check-runbook", CHECK_RUNBOOK_FIELDS)
SCHEMA(check_step, "check-step", CHECK_STEP_FIELDS)

const struct report_schema *const *check_schemas(void)
{
	static const struct report_schema *const all[] = {
		&check_item_s,        &check_finding_s, &check_summary_s,  &check_host_s, &check_modules_s,
		&check_host_setup_s,  &check_library_s, &check_pytorch_s,  &check_gpu_s,  &check_process_s,
		&check_mig_s,         &check_pci_s,     &check_pci_link_s, &check_xid_s,  &check_event_s,
		&check_topo_device_s, &check_runbook_s, &check_step_s,     NULL,
	};
	return all;
}

/* ---- what some fields read ---- */

static const char *lib_version(struct report_row *row, const struct host_lib *l)
{
	if (!l->found || l->error)
		return NULL;
	/* CUDA versions have no patch level */
	if (l->kind == HOST_LIB_CUDA || l->kind == HOST_LIB_CUDART)
		return report_printf(row, "%d.%d", l->major, l->minor);
	return report_printf(row, "%d.%d.%d", l->major, l->minor, l->patch);
}

static const char *gpu_status(const struct check_gpu *cg)
{
	if (cg->status == GPU_STATUS_LOST)
		return "lost";
	if (cg->status == GPU_STATUS_RESET_REQUIRED)
		return "reset_required";
	return cg->static_rc ? gpu_rc_name(cg->static_rc) : "ok";
}

static const char *proc_type(unsigned type)
{
	return type & GPU_PROCESS_COMPUTE ? "compute" : type & GPU_PROCESS_GRAPHICS ? "graphics" : "mps";
}

static const char *event_type(enum gpu_event_type t)
{
	switch (t) {
	case GPU_EVENT_XID:
		return "xid";
	case GPU_EVENT_LOST:
		return "lost";
	case GPU_EVENT_DBE:
		return "dbe";
	case GPU_EVENT_SBE:
		return "sbe";
	default:
		return "other";
	}
}

/* ---- rows ---- */

void check_item_row(const struct check_item *it, struct report_row *row)
{
	size_t i = 0;
	if (report_row_schema(row) == &check_item_s) {
		ITEM_FIELDS(SET)
	} else {
		FINDING_FIELDS(SET)
	}
}

/* Fills row with element k of the array ctx. */
typedef void fill_fn(struct report_row *row, const void *ctx, size_t k);

/*
 * The fill functions of the plain schemas: an element of an array
 * (ctx + k), or one whole object (ctx).
 */
#define FILL_ELEM(fn, type, var, list) \
	static void fn(struct report_row *row, const void *ctx, size_t k) \
	{ \
		const type *var = (const type *)ctx + k; \
		size_t i = 0; \
		list(SET) \
	}
#define FILL_ONE(fn, type, var, list) \
	static void fn(struct report_row *row, const void *ctx, size_t k) \
	{ \
		const type *var = ctx; \
		size_t i = 0; \
		list(SET) \
	}
FILL_ELEM(fill_library, struct host_lib, l, CHECK_LIBRARY_FIELDS)
FILL_ELEM(fill_process, struct check_proc, p, CHECK_PROCESS_FIELDS)
FILL_ELEM(fill_mig, struct gpu_mig_instance, m, CHECK_MIG_FIELDS)
FILL_ELEM(fill_event, struct gpu_event, e, CHECK_EVENT_FIELDS)
FILL_ONE(fill_pci, struct host_pci, p, CHECK_PCI_FIELDS)
FILL_ONE(fill_pci_link, struct host_pci, p, CHECK_PCI_LINK_FIELDS)
FILL_ONE(fill_host, struct check_report, r, CHECK_HOST_FIELDS)
FILL_ONE(fill_modules, struct check_report, r, CHECK_MODULES_FIELDS)
FILL_ONE(fill_host_setup, struct check_report, r, CHECK_HOST_SETUP_FIELDS)
FILL_ONE(fill_pytorch, struct host_torch, t, CHECK_PYTORCH_FIELDS)

static void fill_item(struct report_row *row, const void *ctx, size_t k)
{
	check_item_row((const struct check_item *)ctx + k, row);
}

static void fill_xid(struct report_row *row, const void *ctx, size_t k)
{
	const struct host_xid *x = (const struct host_xid *)ctx + k;
	const struct xid_info *info = xid_lookup(x->code);
	size_t i = 0;
	CHECK_XID_FIELDS(SET)
}

static void fill_topo_device(struct report_row *row, const void *ctx, size_t k)
{
	const struct check_topo *t = ctx;
	size_t i = 0;
	CHECK_TOPO_DEVICE_FIELDS(SET)
}

static void fill_step(struct report_row *row, const void *ctx, size_t k)
{
	const struct check_step *s = (const struct check_step *)ctx + k;
	size_t i = 0;
	CHECK_STEP_FIELDS(SET)
}

/* Adds the fields of one row of schema s, filled by fill, to obj. */
static void row_into(json_t *obj, const struct report_schema *s, fill_fn *fill, const void *ctx, size_t k)
{
	struct report_row *row = report_row_new(s);
	fill(row, ctx, k);
	report_row_json_into(row, obj);
	report_row_free(row);
}

static json_t *row_json(const struct report_schema *s, fill_fn *fill, const void *ctx, size_t k)
{
	json_t *o = json_object();
	row_into(o, s, fill, ctx, k);
	return o;
}

/* An array of n objects of schema s, element k filled by fill(ctx, k). */
static json_t *rows_json(const struct report_schema *s, fill_fn *fill, const void *ctx, size_t n)
{
	json_t *a = json_array();
	size_t k;
	for (k = 0; k < n; k++)
		json_array_append_new(a, row_json(s, fill, ctx, k));
	return a;
}

/* ---- the GPUs' readings, named by gpu/gpu.h ---- */

#define JV(v) \
	_Generic((v), \
	char *: json_text_, \
	int: json_int_, \
	unsigned: json_uint_, \
	unsigned long: json_ulong_, \
	unsigned long long: json_ullong_)(v)

static json_t *json_text_(const char *s)
{
	json_t *j = json_string(s);
	return j ? j : json_string("?");
}
static json_t *json_int_(int v)
{
	return json_integer(v);
}
static json_t *json_uint_(unsigned v)
{
	return json_integer((json_int_t)v);
}
static json_t *json_ulong_(unsigned long v)
{
	return json_integer((json_int_t)v);
}
static json_t *json_ullong_(unsigned long long v)
{
	return json_integer((json_int_t)v);
}

static json_t *static_json(const struct gpu_static *st)
{
	json_t *o = json_object();
#define X(type, member, dims) \
	if (GPU_STATIC_HAS(st, member)) \
		json_object_set_new(o, #member, JV(((struct gpu_static *)st)->member));
	GPU_STATIC_FIELDS(X)
#undef X
	return o;
}

static json_t *sample_json(const struct gpu_sample *s)
{
	json_t *o = json_object(), *links = json_array();
	unsigned l;
#define X(type, member, dims) \
	if (GPU_SAMPLE_HAS(s, member)) \
		json_object_set_new(o, #member, JV(((struct gpu_sample *)s)->member));
	GPU_SAMPLE_FIELDS(X)
#undef X
	for (l = 0; l < s->nlinks; l++) {
		json_t *lo = json_object();
		const struct gpu_link_sample *ls = &s->links[l];
		json_object_set_new(lo, "link", json_integer(l));
#define X(type, member, dims) \
	if (GPU_LINK_HAS(ls, member)) \
		json_object_set_new(lo, #member, JV(((struct gpu_link_sample *)ls)->member));
		GPU_LINK_FIELDS(X)
#undef X
		json_array_append_new(links, lo);
	}
	if (s->nlinks)
		json_object_set_new(o, "nvlinks", links);
	else
		json_decref(links);
	return o;
}

/* ---- the documents ---- */

static void fill_gpu(struct report_row *row, const void *ctx, size_t k)
{
	const struct check_gpu *cg = (const struct check_gpu *)ctx + k;
	unsigned g = (unsigned)k;
	size_t i = 0;
	CHECK_GPU_FIELDS(SET)
}

static json_t *gpu_json(const struct check_report *r, unsigned g)
{
	const struct check_gpu *cg = &r->gpus[g];
	json_t *go = row_json(&check_gpu_s, fill_gpu, r->gpus, g);
	json_object_set_new(go, "static", static_json(&cg->st));
	json_object_set_new(go, "sample", sample_json(&cg->s));
	json_object_set_new(go, "processes", rows_json(&check_process_s, fill_process, cg->procs, cg->nprocs));
	if (cg->nmig)
		json_object_set_new(go, "mig", rows_json(&check_mig_s, fill_mig, cg->mig, cg->nmig));
	if (cg->pci.present) {
		json_t *p = row_json(&check_pci_s, fill_pci, &cg->pci, 0);
		/* the link fields are absent, not null, when sysfs had no link attributes */
		if (cg->pci.link_valid)
			row_into(p, &check_pci_link_s, fill_pci_link, &cg->pci, 0);
		json_object_set_new(go, "sysfs", p);
	}
	return go;
}

static void fill_summary(struct report_row *row, const void *ctx, size_t k)
{
	size_t n[4], i = 0;
	check_count(ctx, n);
	CHECK_SUMMARY_FIELDS(SET)
}

static json_t *host_json(const struct check_report *r)
{
	json_t *host = row_json(&check_host_s, fill_host, r, 0);
	if (r->modules.readable)
		json_object_set_new(host, "modules", row_json(&check_modules_s, fill_modules, r, 0));
	row_into(host, &check_host_setup_s, fill_host_setup, r, 0);
	json_object_set_new(host, "libraries",
			    rows_json(&check_library_s, fill_library, r->libs, r->libs_probed ? HOST_LIB_N : 0));
	json_object_set_new(host, "pytorch",
			    r->torch_probed && r->torch.torch_found ?
				    row_json(&check_pytorch_s, fill_pytorch, &r->torch, 0) :
				    json_null());
	return host;
}

json_t *check_report_json(const struct check_report *r)
{
	json_t *o = json_object(), *gpus = json_array();
	unsigned g;

	json_object_set_new(o, "exit_code", json_integer(check_exit_code(r)));
	json_object_set_new(o, "summary", row_json(&check_summary_s, fill_summary, r, 0));
	json_object_set_new(o, "host", host_json(r));
	for (g = 0; g < r->ngpus; g++)
		json_array_append_new(gpus, gpu_json(r, g));
	json_object_set_new(o, "gpus", gpus);
	json_object_set_new(o, "xids", rows_json(&check_xid_s, fill_xid, r->xids, r->nxids));
	json_object_set_new(o, "events", rows_json(&check_event_s, fill_event, r->events, r->nevents));
	json_object_set_new(o, "checks", rows_json(&check_item_s, fill_item, r->items, r->nitems));
	return o;
}

json_t *check_topo_json(const struct check_topo *t, int exit_code)
{
	json_t *o = json_object(), *m = json_array();
	size_t i, j;
	for (i = 0; i < t->n; i++) {
		json_t *row = json_array();
		for (j = 0; j < t->n; j++)
			json_array_append_new(row, json_string(t->cells[i * t->n + j]));
		json_array_append_new(m, row);
	}
	json_object_set_new(o, "devices", rows_json(&check_topo_device_s, fill_topo_device, t, t->n));
	json_object_set_new(o, "matrix", m);
	json_object_set_new(o, "checks", rows_json(&check_finding_s, fill_item, t->items, t->nitems));
	json_object_set_new(o, "exit_code", json_integer(exit_code));
	return o;
}

json_t *check_runbook_json(const char *symptom, const char *workload, double need_bytes,
			   const struct check_step *steps, size_t n, int exit_code)
{
	struct report_row *row = report_row_new(&check_runbook_s);
	json_t *o;
	size_t i = 0;
	CHECK_RUNBOOK_FIELDS(SET)
	o = report_row_json(row);
	report_row_free(row);
	json_object_set_new(o, "steps", rows_json(&check_step_s, fill_step, steps, n));
	json_object_set_new(o, "exit_code", json_integer(exit_code));
	return o;
}
