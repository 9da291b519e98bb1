/*
 * gpuscope check: inspect this host's GPUs, driver, CUDA stack and PyTorch,
 * and say what is wrong and what to do.  The rules live in host/check.c;
 * this file parses options and prints the report as a table, JSON, CSV or
 * node_exporter's textfile format.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "host/check.h"
#include "model/model.h"
#include "report/outfile.h"
#include "report/table.h"
#include "util/error.h"
#include "util/xalloc.h"

static int json_flag, csv_flag, all_flag, no_python, no_libs;
static const char *lib_dir_opt, *root_opt, *nvml_opt, *kmsg_opt, *python_opt = "python3", *format_opt, *output_opt;
static const char *symptom_opt, *workload_opt, *task_opt = "finetune", *precision_opt;
static long gpu_opt = -1, micro_batch_opt = 0, seq_len_opt = 0, zero_opt = 0;
static double python_timeout_s = 60, events_wait_s = 0;

static const struct opt check_opts[] = {
	OPT_GROUP_("what to read"),
	OPT_STRING_("root", &root_opt, "DIR", "read /proc, /sys, /etc and /dev under DIR (a copy or fixture of a host)"),
	OPT_STRING_("nvml", &nvml_opt, "PATH", "load this libnvidia-ml.so.1 instead of searching the library path"),
	OPT_STRING_("kmsg", &kmsg_opt, "FILE", "read Xids from FILE (dmesg or /dev/kmsg text) instead of /dev/kmsg"),
	OPT_STRING_("python", &python_opt, "PATH", "the Python that runs PyTorch (default python3 on $PATH)"),
	OPT_FLAG_("no-python", &no_python, "do not look for PyTorch"),
	OPT_DURATION_RANGE_("python-timeout", &python_timeout_s, "TIME",
			    "give up on the PyTorch probe after TIME (default 60s)", 0.001, 3600),
	OPT_FLAG_("no-libs", &no_libs, "do not load libcuda, libcudart, libcudnn and libnccl"),
	OPT_STRING_("lib-dir", &lib_dir_opt, "DIRS", "load those libraries from DIRS (':'-separated) instead of the loader's search"),
	OPT_DURATION_RANGE_("events-wait", &events_wait_s, "TIME",
			    "also wait TIME for Xid events from NVML (default 0)", 0, 3600),
	OPT_GROUP_("runbooks"),
	OPT_STRING_("symptom", &symptom_opt, "NAME", "walk a runbook: launch-failed, oom, busy, slow, lost"),
	OPT_INT_("gpu", &gpu_opt, "N", "limit the runbook's per-GPU steps to GPU N", 0, 1023),
	OPT_STRING_("workload", &workload_opt, "NAME", "oom: the workload (preset or config.json) whose memory to estimate"),
	OPT_STRING_("task", &task_opt, "TASK", "oom: pretrain, finetune, lora, qlora, infer (default finetune)"),
	OPT_STRING_("precision", &precision_opt, "P", "oom: fp32, fp16, bf16, fp8 (default bf16 where the GPU has it)"),
	OPT_INT_("micro-batch", &micro_batch_opt, "N", "oom: samples per micro-batch (default 1)", 1, 1 << 20),
	OPT_INT_("seq-len", &seq_len_opt, "N", "oom: tokens per sample (default: the workload's)", 1, 1 << 24),
	OPT_INT_("zero", &zero_opt, "N", "oom: ZeRO stage 0-3 across the GPUs of this host", 0, 3),
	OPT_GROUP_("output"),
	OPT_FLAG_("json", &json_flag, "print JSON (docs/check.md describes the fields)"),
	OPT_FLAG_("csv", &csv_flag, "print the checks as CSV"),
	OPT_STRING_("format", &format_opt, "F", "table, json, csv, or prom (node_exporter textfile format)"),
	OPT_STRING_("output", &output_opt, "FILE", "write to FILE (atomically: for node_exporter's textfile directory)"),
	OPT_FLAG_("all", &all_flag, "list every check of every GPU (default: one line per healthy GPU)"),
	OPT_END_(),
};

static const struct opts_cmd check_cmd = {
	"check",
	"[topo] [options]",
	"Inspect this host's GPUs, driver, CUDA stack and PyTorch, and say what is wrong and what to do.",
	"Reads the driver (/proc/driver/nvidia, kernel modules, nouveau blacklists), NVML\n"
	"(libnvidia-ml.so.1, loaded at run time), the CUDA libraries a process would load\n"
	"(libcuda, libcudart, libcudnn, libnccl), PyTorch through Python, the kernel log's\n"
	"Xids, PCIe links and topology in /sys, InfiniBand ports and the container toolkit.\n"
	"Each check is ok, warn or fail with a one-line remedy; docs/check.md lists them.\n"
	"\n"
	"  gpuscope check                  the checks\n"
	"  gpuscope check topo             the GPU/NIC matrix (nvidia-smi topo -m) and its findings\n"
	"  gpuscope check --symptom oom    walk a runbook step by step against this host\n"
	"\n"
	"Exit status: 0 all checks ok, 1 a warning or failure, 2 usage error, 3 no GPU to\n"
	"check (no NVIDIA library, driver not loaded, or no GPU visible).\n",
	check_opts,
};

enum fmt { FMT_TABLE, FMT_JSON, FMT_CSV, FMT_PROM };

static FILE *out;
static struct outfile out_file;

static void open_output(void)
{
	struct diag err;
	out = stdout;
	if (!output_opt)
		return;
	if (outfile_open(&out_file, output_opt, &err))
		die("%s", err.msg);
	out = out_file.f;
}

static void close_output(void)
{
	struct diag err;
	if (out == stdout)
		return;
	/* the rename is atomic: node_exporter never reads half a file */
	if (outfile_commit(&out_file, &err))
		die("%s", err.msg);
}

/* Prints text wrapped at `width` columns, each line after the first indented by `indent`. */
static void wrap(FILE *f, const char *first, const char *text, int indent, int width)
{
	int col = fprintf(f, "%s", first), line_start = 0;
	const char *p = text;
	while (*p == ' ')
		p++;
	while (*p) {
		size_t n = strcspn(p, " ");
		if (!line_start && col + 1 + (int)n > width && col > indent) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			line_start = 1;
		}
		if (!line_start) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, n, f);
		col += (int)n;
		line_start = 0;
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

static const char *status_word(enum check_status s)
{
	return check_status_name(s);
}

/* ---- the table ---- */

static int gpu_all_ok(const struct check_report *r, int gpu, size_t *nchecks)
{
	size_t i;
	*nchecks = 0;
	for (i = 0; i < r->nitems; i++)
		if (r->items[i].gpu == gpu) {
			if (r->items[i].status == CHECK_WARN || r->items[i].status == CHECK_FAIL)
				return 0;
			(*nchecks)++;
		}
	return 1;
}

static void header_line(const struct check_report *r)
{
	const char *name = NULL, *drv = NULL;
	int cuda = -1;
	unsigned i;
	int mixed = 0;
	for (i = 0; i < r->ngpus; i++) {
		const struct gpu_static *st = &r->gpus[i].st;
		if (GPU_STATIC_HAS(st, name)) {
			if (name && strcmp(name, st->name))
				mixed = 1;
			if (!name)
				name = st->name;
		}
		if (GPU_STATIC_HAS(st, driver_version))
			drv = st->driver_version;
		if (GPU_STATIC_HAS(st, cuda_driver_version))
			cuda = st->cuda_driver_version;
	}
	fprintf(out, "gpuscope check: %u GPU%s", r->ngpus, r->ngpus == 1 ? "" : "s");
	if (name)
		fprintf(out, " (%s%s)", name, mixed ? ", mixed" : "");
	if (drv)
		fprintf(out, ", driver %s", drv);
	if (cuda > 0)
		fprintf(out, ", CUDA %d.%d", cuda / 1000, cuda % 1000 / 10);
	fprintf(out, "\n\n");
}

static void print_table(const struct check_report *r)
{
	struct table *t = table_new();
	size_t i, n[4];
	unsigned g;
	int any_fix = 0;

	table_column(t, "status", ALIGN_LEFT);
	table_column(t, "check", ALIGN_LEFT);
	table_column(t, "gpu", ALIGN_RIGHT);
	table_column(t, "finding", ALIGN_LEFT);
	for (i = 0; i < r->nitems; i++)
		if (r->items[i].gpu < 0) {
			table_row(t);
			table_cell(t, status_word(r->items[i].status));
			table_cell(t, r->items[i].title);
			table_cell(t, "-");
			table_cell(t, r->items[i].finding);
		}
	/* per GPU: one row for a healthy GPU (runs of alike GPUs merged), every row otherwise */
	for (g = 0; g < r->ngpus; g++) {
		size_t nc, nc2;
		if (!all_flag && gpu_all_ok(r, (int)g, &nc)) {
			unsigned last = g;
			const char *name = GPU_STATIC_HAS(&r->gpus[g].st, name) ? r->gpus[g].st.name : "GPU";
			while (last + 1 < r->ngpus && gpu_all_ok(r, (int)last + 1, &nc2) && nc2 == nc &&
			       GPU_STATIC_HAS(&r->gpus[last + 1].st, name) && !strcmp(r->gpus[last + 1].st.name, name))
				last++;
			table_row(t);
			table_cell(t, "ok");
			table_cell(t, "gpu");
			if (last > g)
				table_cellf(t, "%u-%u", g, last);
			else
				table_cellf(t, "%u", g);
			table_cellf(t, "all %zu checks ok: %s", nc, name);
			g = last;
			continue;
		}
		for (i = 0; i < r->nitems; i++)
			if (r->items[i].gpu == (int)g) {
				table_row(t);
				table_cell(t, status_word(r->items[i].status));
				table_cell(t, r->items[i].title);
				table_cellf(t, "%u", g);
				table_cell(t, r->items[i].finding);
			}
	}
	table_print(t, out, 0);
	table_free(t);

	for (i = 0; i < r->nitems; i++) {
		const struct check_item *it = &r->items[i];
		char first[128];
		if (it->status != CHECK_WARN && it->status != CHECK_FAIL)
			continue;
		if (!any_fix)
			fprintf(out, "\nwhat to do:\n");
		any_fix = 1;
		if (it->gpu >= 0)
			snprintf(first, sizeof(first), "  %-4s %s, gpu %d:", status_word(it->status), it->title, it->gpu);
		else
			snprintf(first, sizeof(first), "  %-4s %s:", status_word(it->status), it->title);
		wrap(out, first, it->finding, 7, 80);
		if (it->remedy)
			wrap(out, "       ->", it->remedy, 10, 80);
	}
	check_count(r, n);
	fprintf(out, "\n%zu ok, %zu warning%s, %zu failure%s, %zu skipped\n", n[CHECK_OK], n[CHECK_WARN],
		n[CHECK_WARN] == 1 ? "" : "s", n[CHECK_FAIL], n[CHECK_FAIL] == 1 ? "" : "s", n[CHECK_SKIP]);
}

static void print_csv(const struct check_report *r)
{
	struct table *t = table_new();
	size_t i;
	table_column(t, "id", ALIGN_LEFT);
	table_column(t, "gpu", ALIGN_LEFT);
	table_column(t, "status", ALIGN_LEFT);
	table_column(t, "finding", ALIGN_LEFT);
	table_column(t, "remedy", ALIGN_LEFT);
	for (i = 0; i < r->nitems; i++) {
		const struct check_item *it = &r->items[i];
		table_row(t);
		table_cell(t, it->id);
		if (it->gpu >= 0)
			table_cellf(t, "%d", it->gpu);
		else
			table_cell(t, "");
		table_cell(t, status_word(it->status));
		table_cell(t, it->finding);
		table_cell(t, it->remedy ? it->remedy : "");
	}
	table_print_csv(t, out);
	table_free(t);
}

/* ---- JSON ---- */

#define JV(v) _Generic((v), \
	char *: json_string_nocheck_, \
	int: json_int_, \
	unsigned: json_uint_, \
	unsigned long: json_ulong_, \
	unsigned long long: json_ullong_)(v)

static json_t *json_string_nocheck_(const char *s)
{
	json_t *j = json_string(s);
	return j ? j : json_string("?");
}
static json_t *json_int_(int v) { return json_integer(v); }
static json_t *json_uint_(unsigned v) { return json_integer((json_int_t)v); }
static json_t *json_ulong_(unsigned long v) { return json_integer((json_int_t)v); }
static json_t *json_ullong_(unsigned long long v) { return json_integer((json_int_t)v); }

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

static json_t *report_json(const struct check_report *r)
{
	json_t *o = json_object(), *host = json_object(), *gpus = json_array(), *checks = json_array();
	json_t *libs = json_array(), *xids = json_array(), *events = json_array(), *sum = json_object();
	size_t i, k, n[4];
	unsigned g;

	check_count(r, n);
	json_object_set_new(o, "exit_code", json_integer(check_exit_code(r)));
	json_object_set_new(sum, "ok", json_integer((json_int_t)n[CHECK_OK]));
	json_object_set_new(sum, "warn", json_integer((json_int_t)n[CHECK_WARN]));
	json_object_set_new(sum, "fail", json_integer((json_int_t)n[CHECK_FAIL]));
	json_object_set_new(sum, "skip", json_integer((json_int_t)n[CHECK_SKIP]));
	json_object_set_new(o, "summary", sum);

	json_object_set_new(host, "root", json_string(r->root[0] ? r->root : "/"));
	json_object_set_new(host, "nvml_status", json_string(gpu_rc_name(r->backend_rc)));
	json_object_set_new(host, "nvml_error", r->backend_error[0] ? json_string(r->backend_error) : json_null());
	json_object_set_new(host, "nvml_library", r->nvml_library[0] ? json_string(r->nvml_library) : json_null());
	json_object_set_new(host, "nvml_file_version",
			    r->nvml_file_version[0] ? json_string(r->nvml_file_version) : json_null());
	json_object_set_new(host, "kernel_module_version",
			    r->driver.version[0] ? json_string(r->driver.version) : json_null());
	json_object_set_new(host, "kernel_module_open",
			    r->driver.open_module < 0 ? json_null() : json_boolean(r->driver.open_module));
	if (r->modules.readable) {
		json_t *m = json_object();
		json_object_set_new(m, "nvidia", json_boolean(r->modules.nvidia));
		json_object_set_new(m, "nvidia_uvm", json_boolean(r->modules.nvidia_uvm));
		json_object_set_new(m, "nvidia_drm", json_boolean(r->modules.nvidia_drm));
		json_object_set_new(m, "nvidia_modeset", json_boolean(r->modules.nvidia_modeset));
		json_object_set_new(m, "nvidia_peermem", json_boolean(r->modules.nvidia_peermem));
		json_object_set_new(m, "nouveau", json_boolean(r->modules.nouveau));
		json_object_set_new(host, "modules", m);
	}
	json_object_set_new(host, "nouveau_blacklisted",
			    json_boolean(r->blacklist.nouveau_blacklisted || r->blacklist.nouveau_modeset0));
	json_object_set_new(host, "in_container", json_boolean(r->container.in_container));
	json_object_set_new(host, "nvidia_pci_devices", json_integer((json_int_t)r->n_nvidia_pci));
	if (r->libs_probed)
		for (k = 0; k < HOST_LIB_N; k++) {
			const struct host_lib *l = &r->libs[k];
			json_t *lo = json_object();
			json_object_set_new(lo, "name", json_string(l->name));
			json_object_set_new(lo, "found", json_boolean(l->found));
			json_object_set_new(lo, "path", l->path[0] ? json_string(l->path) : json_null());
			json_object_set_new(lo, "version", l->found && !l->error[0] ?
					    (k == HOST_LIB_CUDA || k == HOST_LIB_CUDART ?
					     json_sprintf("%d.%d", l->major, l->minor) :
					     json_sprintf("%d.%d.%d", l->major, l->minor, l->patch)) : json_null());
			json_object_set_new(lo, "raw", l->found && !l->error[0] ? json_integer(l->raw) : json_null());
			json_array_append_new(libs, lo);
		}
	json_object_set_new(host, "libraries", libs);
	if (r->torch_probed && r->torch.torch_found) {
		json_t *t = json_object();
		json_object_set_new(t, "version", json_string(r->torch.version));
		json_object_set_new(t, "cuda", r->torch.cuda[0] ? json_string(r->torch.cuda) : json_null());
		json_object_set_new(t, "cudnn", r->torch.cudnn ? json_integer(r->torch.cudnn) : json_null());
		json_object_set_new(t, "arch_list", json_string(r->torch.arch_list));
		json_object_set_new(t, "cuda_available", json_boolean(r->torch.cuda_available));
		json_object_set_new(t, "device_count", json_integer(r->torch.device_count));
		json_object_set_new(host, "pytorch", t);
	} else {
		json_object_set_new(host, "pytorch", json_null());
	}
	json_object_set_new(o, "host", host);

	for (g = 0; g < r->ngpus; g++) {
		const struct check_gpu *cg = &r->gpus[g];
		json_t *go = json_object(), *procs = json_array();
		json_object_set_new(go, "index", json_integer(g));
		json_object_set_new(go, "status", json_string(cg->status == GPU_STATUS_LOST ? "lost" :
								cg->status == GPU_STATUS_RESET_REQUIRED ? "reset_required" :
								cg->static_rc ? gpu_rc_name(cg->static_rc) : "ok"));
		json_object_set_new(go, "static", static_json(&cg->st));
		json_object_set_new(go, "sample", sample_json(&cg->s));
		for (k = 0; k < cg->nprocs; k++) {
			const struct check_proc *p = &cg->procs[k];
			json_t *po = json_object();
			json_object_set_new(po, "pid", json_integer(p->pid));
			json_object_set_new(po, "type", json_string(p->type & GPU_PROCESS_COMPUTE ? "compute" :
								    p->type & GPU_PROCESS_GRAPHICS ? "graphics" : "mps"));
			json_object_set_new(po, "used_bytes", p->used_valid ? json_integer((json_int_t)p->used_bytes) : json_null());
			json_object_set_new(po, "user", p->visible ? json_string(p->user) : json_null());
			json_object_set_new(po, "command", p->visible ? json_string(p->comm) : json_null());
			json_array_append_new(procs, po);
		}
		json_object_set_new(go, "processes", procs);
		if (cg->nmig) {
			json_t *mig = json_array();
			for (k = 0; k < cg->nmig; k++) {
				json_t *mo = json_object();
				json_object_set_new(mo, "gpu_instance", json_integer(cg->mig[k].gpu_instance));
				json_object_set_new(mo, "compute_instance", json_integer(cg->mig[k].compute_instance));
				json_object_set_new(mo, "uuid", json_string(cg->mig[k].uuid));
				json_object_set_new(mo, "memory_total_bytes", cg->mig[k].memory_valid ?
						    json_integer((json_int_t)cg->mig[k].memory_total_bytes) : json_null());
				json_array_append_new(mig, mo);
			}
			json_object_set_new(go, "mig", mig);
		}
		if (cg->pci.present) {
			json_t *p = json_object();
			json_object_set_new(p, "path", json_string(cg->pci.path));
			json_object_set_new(p, "numa_node", json_integer(cg->pci.numa_node));
			if (cg->pci.link_valid) {
				json_object_set_new(p, "current_gen", json_integer(cg->pci.cur_gen));
				json_object_set_new(p, "max_gen", json_integer(cg->pci.max_gen));
				json_object_set_new(p, "current_width", json_integer(cg->pci.cur_width));
				json_object_set_new(p, "max_width", json_integer(cg->pci.max_width));
			}
			json_object_set_new(go, "sysfs", p);
		}
		json_array_append_new(gpus, go);
	}
	json_object_set_new(o, "gpus", gpus);

	for (i = 0; i < r->nxids; i++) {
		const struct host_xid *x = &r->xids[i];
		const struct xid_info *info = xid_lookup(x->code);
		json_t *xo = json_object();
		json_object_set_new(xo, "code", json_integer(x->code));
		json_object_set_new(xo, "pci", json_string(x->pci));
		json_object_set_new(xo, "pid", x->pid >= 0 ? json_integer(x->pid) : json_null());
		json_object_set_new(xo, "process", x->process[0] ? json_string(x->process) : json_null());
		json_object_set_new(xo, "detail", json_string(x->detail));
		json_object_set_new(xo, "uptime_s", x->uptime_s >= 0 ? json_real(x->uptime_s) : json_null());
		json_object_set_new(xo, "count", json_integer((json_int_t)x->count));
		json_object_set_new(xo, "first_uptime_s",
				    x->first_uptime_s >= 0 ? json_real(x->first_uptime_s) : json_null());
		json_object_set_new(xo, "name", info ? json_string(info->name) : json_null());
		json_object_set_new(xo, "bucket", info ? json_string(info->bucket) : json_null());
		json_object_set_new(xo, "action", info ? json_string(info->action) : json_null());
		json_array_append_new(xids, xo);
	}
	json_object_set_new(o, "xids", xids);
	for (i = 0; i < r->nevents; i++) {
		const struct gpu_event *e = &r->events[i];
		json_t *eo = json_object();
		json_object_set_new(eo, "gpu", json_integer(e->gpu_index));
		json_object_set_new(eo, "type", json_string(e->type == GPU_EVENT_XID ? "xid" : e->type == GPU_EVENT_LOST ? "lost" :
							    e->type == GPU_EVENT_DBE ? "dbe" : e->type == GPU_EVENT_SBE ? "sbe" : "other"));
		json_object_set_new(eo, "code", json_integer((json_int_t)e->code));
		json_array_append_new(events, eo);
	}
	json_object_set_new(o, "events", events);

	for (i = 0; i < r->nitems; i++) {
		const struct check_item *it = &r->items[i];
		json_t *co = json_object();
		json_object_set_new(co, "id", json_string(it->id));
		json_object_set_new(co, "title", json_string(it->title));
		json_object_set_new(co, "gpu", it->gpu >= 0 ? json_integer(it->gpu) : json_null());
		json_object_set_new(co, "status", json_string(status_word(it->status)));
		json_object_set_new(co, "finding", json_string(it->finding));
		json_object_set_new(co, "remedy", it->remedy ? json_string(it->remedy) : json_null());
		json_array_append_new(checks, co);
	}
	json_object_set_new(o, "checks", checks);
	return o;
}

static void print_json(json_t *o)
{
	char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fprintf(out, "%s\n", s ? s : "null");
	free(s);
}

/* ---- node_exporter textfile ---- */

static void prom_escape(const char *s, char *buf, size_t len)
{
	size_t o = 0;
	for (; *s && o + 3 < len; s++) {
		if (*s == '\\' || *s == '"') {
			buf[o++] = '\\';
			buf[o++] = *s;
		} else if (*s == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
		} else {
			buf[o++] = *s;
		}
	}
	buf[o] = '\0';
}

static void print_prom(const struct check_report *r)
{
	size_t i, k, n[4];
	int *done = xcalloc(r->nitems ? r->nitems : 1, sizeof(*done));
	char a[256], b[64];

	fprintf(out, "# HELP gpuscope_check_status Result of a gpuscope check (worst when repeated): 0 ok, 1 warn, 2 fail.\n"
		     "# TYPE gpuscope_check_status gauge\n");
	for (i = 0; i < r->nitems; i++) {
		enum check_status worst = r->items[i].status;
		if (done[i] || worst == CHECK_SKIP)
			continue;
		for (k = i; k < r->nitems; k++)
			if (!strcmp(r->items[k].id, r->items[i].id) && r->items[k].gpu == r->items[i].gpu) {
				done[k] = 1;
				if (r->items[k].status > worst && r->items[k].status != CHECK_SKIP)
					worst = r->items[k].status;
			}
		prom_escape(r->items[i].id, a, sizeof(a));
		if (r->items[i].gpu >= 0)
			fprintf(out, "gpuscope_check_status{check=\"%s\",gpu=\"%d\"} %d\n", a, r->items[i].gpu,
				worst == CHECK_FAIL ? 2 : worst == CHECK_WARN ? 1 : 0);
		else
			fprintf(out, "gpuscope_check_status{check=\"%s\"} %d\n", a,
				worst == CHECK_FAIL ? 2 : worst == CHECK_WARN ? 1 : 0);
	}
	free(done);
	check_count(r, n);
	fprintf(out, "# HELP gpuscope_check_results Checks by result.\n# TYPE gpuscope_check_results gauge\n");
	fprintf(out, "gpuscope_check_results{result=\"ok\"} %zu\n", n[CHECK_OK]);
	fprintf(out, "gpuscope_check_results{result=\"warn\"} %zu\n", n[CHECK_WARN]);
	fprintf(out, "gpuscope_check_results{result=\"fail\"} %zu\n", n[CHECK_FAIL]);
	fprintf(out, "gpuscope_check_results{result=\"skip\"} %zu\n", n[CHECK_SKIP]);
	fprintf(out, "# HELP gpuscope_check_gpus GPUs the NVIDIA driver lists.\n# TYPE gpuscope_check_gpus gauge\n"
		     "gpuscope_check_gpus %u\n", r->ngpus);
	fprintf(out, "# HELP gpuscope_check_gpu_lost Whether a GPU has fallen off the bus.\n"
		     "# TYPE gpuscope_check_gpu_lost gauge\n");
	for (i = 0; i < r->ngpus; i++)
		fprintf(out, "gpuscope_check_gpu_lost{gpu=\"%zu\"} %d\n", i, r->gpus[i].status == GPU_STATUS_LOST);
	fprintf(out, "# HELP gpuscope_check_xid_records Xid records in the kernel log since boot.\n"
		     "# TYPE gpuscope_check_xid_records gauge\n");
	{
		int *seen = xcalloc(r->nxids ? r->nxids : 1, sizeof(*seen));
		for (i = 0; i < r->nxids; i++) {
			size_t c = 0;
			if (seen[i])
				continue;
			for (k = i; k < r->nxids; k++)
				if (r->xids[k].code == r->xids[i].code && !strcmp(r->xids[k].pci, r->xids[i].pci)) {
					seen[k] = 1;
					c++;
				}
			prom_escape(r->xids[i].pci, b, sizeof(b));
			fprintf(out, "gpuscope_check_xid_records{xid=\"%d\",pci=\"%s\"} %zu\n", r->xids[i].code, b, c);
		}
		free(seen);
	}
	fprintf(out, "# HELP gpuscope_check_exit_code The exit code of the check (0 ok, 1 findings, 3 no GPU).\n"
		     "# TYPE gpuscope_check_exit_code gauge\ngpuscope_check_exit_code %d\n", check_exit_code(r));
	fprintf(out, "# HELP gpuscope_check_timestamp_seconds When the check ran.\n"
		     "# TYPE gpuscope_check_timestamp_seconds gauge\ngpuscope_check_timestamp_seconds %lld\n",
		(long long)time(NULL));
}

/* ---- topo ---- */

static const char *const topo_legend =
	"Legend:\n"
	"  X    = self\n"
	"  SYS  = PCIe and the interconnect between NUMA nodes (UPI, Infinity Fabric)\n"
	"  NODE = PCIe and the link between host bridges inside one NUMA node\n"
	"  PHB  = PCIe and a PCIe host bridge (the CPU)\n"
	"  PXB  = several PCIe bridges, no host bridge\n"
	"  PIX  = at most one PCIe switch\n"
	"  NV#  = # NVLinks (through NVSwitches: the links each GPU has)\n";

static int cmd_topo(const struct check_report *r, enum fmt f)
{
	struct check_topo *t = check_topo_build(r);
	size_t i, j, c0;
	int rc = check_exit_code(r) == EXIT_ENV ? EXIT_ENV : EXIT_OK;

	for (i = 0; i < t->nitems; i++)
		if (t->items[i].status == CHECK_WARN || t->items[i].status == CHECK_FAIL)
			rc = rc == EXIT_ENV ? rc : EXIT_FINDINGS;
	if (f == FMT_JSON) {
		json_t *o = json_object(), *dev = json_array(), *m = json_array(), *items = json_array();
		for (i = 0; i < t->n; i++) {
			json_t *d = json_object(), *row = json_array();
			json_object_set_new(d, "name", json_string(t->names[i]));
			json_object_set_new(d, "label", json_string(t->labels[i]));
			json_object_set_new(d, "numa_node", t->numa[i] >= 0 ? json_integer(t->numa[i]) : json_null());
			json_object_set_new(d, "cpus", t->cpus[i][0] ? json_string(t->cpus[i]) : json_null());
			json_array_append_new(dev, d);
			for (j = 0; j < t->n; j++)
				json_array_append_new(row, json_string(t->cells[i * t->n + j]));
			json_array_append_new(m, row);
		}
		for (i = 0; i < t->nitems; i++) {
			json_t *co = json_object();
			json_object_set_new(co, "id", json_string(t->items[i].id));
			json_object_set_new(co, "gpu", t->items[i].gpu >= 0 ? json_integer(t->items[i].gpu) : json_null());
			json_object_set_new(co, "status", json_string(status_word(t->items[i].status)));
			json_object_set_new(co, "finding", json_string(t->items[i].finding));
			json_object_set_new(co, "remedy", t->items[i].remedy ? json_string(t->items[i].remedy) : json_null());
			json_array_append_new(items, co);
		}
		json_object_set_new(o, "devices", dev);
		json_object_set_new(o, "matrix", m);
		json_object_set_new(o, "checks", items);
		json_object_set_new(o, "exit_code", json_integer(rc));
		print_json(o);
		json_decref(o);
		check_topo_free(t);
		return rc;
	}
	if (!t->n) {
		fprintf(out, "no GPU or NIC to show\n");
		check_topo_free(t);
		return rc;
	}
	/* columns in blocks of 14, so a block fits 80 columns (6 + 14 x 5) */
	for (c0 = 0; c0 < t->n; c0 += 14) {
		size_t c1 = c0 + 14 < t->n ? c0 + 14 : t->n;
		fprintf(out, "%-6s", "");
		for (j = c0; j < c1; j++)
			fprintf(out, j + 1 < c1 ? "%-5s" : "%s", t->names[j]);
		fprintf(out, "\n");
		for (i = 0; i < t->n; i++) {
			fprintf(out, "%-6s", t->names[i]);
			for (j = c0; j < c1; j++)
				fprintf(out, j + 1 < c1 ? "%-5s" : "%s", t->cells[i * t->n + j]);
			fprintf(out, "\n");
		}
		fprintf(out, "\n");
	}
	{
		struct table *tb = table_new();
		table_column(tb, "device", ALIGN_LEFT);
		table_column(tb, "bus id / name", ALIGN_LEFT);
		table_column(tb, "numa", ALIGN_RIGHT);
		table_column(tb, "cpu affinity", ALIGN_LEFT);
		for (i = 0; i < t->n; i++) {
			table_row(tb);
			table_cell(tb, t->names[i]);
			table_cell(tb, t->labels[i]);
			if (t->numa[i] >= 0)
				table_cellf(tb, "%d", t->numa[i]);
			else
				table_cell(tb, NULL);
			table_cell(tb, t->cpus[i][0] ? t->cpus[i] : NULL);
		}
		table_print(tb, out, 0);
		table_free(tb);
	}
	fprintf(out, "\n%s", topo_legend);
	if (t->nitems) {
		fprintf(out, "\n");
		for (i = 0; i < t->nitems; i++) {
			char first[96];
			if (t->items[i].gpu >= 0)
				snprintf(first, sizeof(first), "%-4s %s, gpu %d:", status_word(t->items[i].status), t->items[i].title,
					 t->items[i].gpu);
			else
				snprintf(first, sizeof(first), "%-4s %s:", status_word(t->items[i].status), t->items[i].title);
			wrap(out, first, t->items[i].finding, 5, 80);
			if (t->items[i].remedy)
				wrap(out, "     ->", t->items[i].remedy, 8, 80);
		}
	}
	check_topo_free(t);
	return rc;
}

/* ---- runbooks ---- */

/*
 * The memory a workload needs per GPU on this host's GPU, from the model:
 * the GPU is the catalog's row for NVML's name; the job spans every GPU
 * of the host (ZeRO shards over them).  Returns bytes, or dies on bad input.
 */
static double workload_need(const struct check_report *r, char *what, size_t len)
{
	const struct catalog *cat = load_catalog_or_die();
	struct workload w;
	struct model_config cfg;
	struct model_memory mem;
	struct diag err;
	char why[512], msg[1024];
	const struct cat_gpu *gpu = NULL;
	struct model_request q;
	unsigned i;

	diag_clear(&err);
	if (workload_load(&w, workload_opt, &err)) {
		diag_format(&err, msg, sizeof(msg));
		die_usage("gpuscope check: --workload: %s", msg);
	}
	for (i = 0; i < r->ngpus && !gpu; i++)
		if (GPU_STATIC_HAS(&r->gpus[i].st, name))
			gpu = catalog_gpu(cat, r->gpus[i].st.name, why, sizeof(why));
	if (!gpu)
		die_code(EXIT_ENV, "gpuscope check: --workload: no GPU of this host is in the catalog to estimate on");
	model_request_init(&q);
	q.gpu = gpu;
	q.task = model_task_from_name(task_opt);
	if (q.task < 0)
		die_usage("gpuscope check: --task '%s' is not one of pretrain, finetune, lora, qlora, infer", task_opt);
	if (precision_opt) {
		q.precision = model_precision_from_name(precision_opt);
		if (q.precision < 0)
			die_usage("gpuscope check: --precision '%s' is not one of fp32, tf32, fp16, bf16, fp8",
				  precision_opt);
	}
	/* data parallel over every GPU of this host, one server */
	q.gpus = r->ngpus ? (int)r->ngpus : 1;
	q.gpus_per_node = q.gpus;
	q.tp = q.pp = 1;
	q.zero = (int)zero_opt;
	if (micro_batch_opt)
		q.micro_batch = (int)micro_batch_opt;
	if (seq_len_opt)
		q.seq_len = (int)seq_len_opt;
	diag_clear(&err);
	if (model_resolve(&w, cat, &q, &cfg, NULL, &err))
		die_usage("gpuscope check: %s", err.msg);
	if (model_memory(&w, &cfg, &mem))
		die_usage("gpuscope check: the model cannot estimate this configuration");
	snprintf(what, len, "%s, %s, %s, micro-batch %d on %d x %s: weights %.1f, gradients %.1f, optimizer %.1f, "
		 "activations %.1f, other %.1f GiB", w.name, model_task_name(cfg.task), model_precision_name(cfg.precision),
		 cfg.micro_batch, cfg.gpus, gpu->row.key, mem.weights_bytes / 1073741824.0,
		 mem.gradients_bytes / 1073741824.0, mem.optimizer_bytes / 1073741824.0,
		 mem.activations_bytes / 1073741824.0,
		 (mem.total_bytes - mem.weights_bytes - mem.gradients_bytes - mem.optimizer_bytes - mem.activations_bytes) /
			 1073741824.0);
	return mem.total_bytes;
}

static int cmd_symptom(const struct check_report *r, enum fmt f)
{
	int s = check_symptom_from_name(symptom_opt);
	struct check_step *steps;
	size_t n, i;
	double need = 0;
	char what[512] = "";
	int rc;

	if (s < 0)
		die_usage("gpuscope check: --symptom '%s' is not one of launch-failed, oom, busy, slow, lost", symptom_opt);
	if (workload_opt) {
		if (s != SYMPTOM_OOM)
			die_usage("gpuscope check: --workload goes with --symptom oom");
		need = workload_need(r, what, sizeof(what));
	}
	/* with no GPU enumerated at all the runbook still walks the host steps */
	if (gpu_opt >= 0 && r->ngpus && (unsigned long)gpu_opt >= r->ngpus)
		die_usage("gpuscope check: --gpu %ld: this host has GPUs 0 to %u", gpu_opt, r->ngpus - 1);
	n = check_runbook(r, (enum check_symptom)s, (int)gpu_opt, need, &steps);
	rc = check_exit_code(r) == EXIT_ENV ? EXIT_ENV : EXIT_OK;
	for (i = 0; i < n; i++)
		if ((steps[i].status == CHECK_WARN || steps[i].status == CHECK_FAIL) && rc != EXIT_ENV)
			rc = EXIT_FINDINGS;
	if (f == FMT_JSON) {
		json_t *o = json_object(), *a = json_array();
		json_object_set_new(o, "symptom", json_string(symptom_opt));
		json_object_set_new(o, "workload", what[0] ? json_string(what) : json_null());
		json_object_set_new(o, "need_bytes", need > 0 ? json_real(need) : json_null());
		for (i = 0; i < n; i++) {
			json_t *so = json_object();
			json_object_set_new(so, "step", json_integer((json_int_t)i + 1));
			json_object_set_new(so, "title", json_string(steps[i].title));
			json_object_set_new(so, "status", json_string(status_word(steps[i].status)));
			json_object_set_new(so, "finding", json_string(steps[i].finding));
			json_object_set_new(so, "action", steps[i].action ? json_string(steps[i].action) : json_null());
			json_array_append_new(a, so);
		}
		json_object_set_new(o, "steps", a);
		json_object_set_new(o, "exit_code", json_integer(rc));
		print_json(o);
		json_decref(o);
	} else {
		fprintf(out, "gpuscope check --symptom %s: %zu steps\n", symptom_opt, n);
		if (what[0])
			wrap(out, "workload:", what, 2, 80);
		fprintf(out, "\n");
		for (i = 0; i < n; i++) {
			char first[96];
			snprintf(first, sizeof(first), "%2zu. %-4s %s:", i + 1, status_word(steps[i].status), steps[i].title);
			wrap(out, first, steps[i].finding, 9, 80);
			if (steps[i].action)
				wrap(out, "         ->", steps[i].action, 12, 80);
		}
	}
	check_steps_free(steps, n);
	return rc;
}

int cmd_check(int argc, char **argv)
{
	int npos = parse_options_or_exit(&check_cmd, argc, argv);
	struct check_opts o;
	struct check_report *r;
	enum fmt f = FMT_TABLE;
	int rc, topo = 0;

	if (npos > 1 || (npos == 1 && strcmp(argv[0], "topo")))
		die_usage("gpuscope check: unexpected argument '%s'; the only subcommand is 'topo'", argv[0]);
	topo = npos == 1;
	if (json_flag && csv_flag)
		die_usage("gpuscope check: --json and --csv exclude each other");
	if (format_opt) {
		if (json_flag || csv_flag)
			die_usage("gpuscope check: --format and --json/--csv exclude each other");
		if (!strcmp(format_opt, "table"))
			f = FMT_TABLE;
		else if (!strcmp(format_opt, "json"))
			f = FMT_JSON;
		else if (!strcmp(format_opt, "csv"))
			f = FMT_CSV;
		else if (!strcmp(format_opt, "prom"))
			f = FMT_PROM;
		else
			die_usage("gpuscope check: --format '%s' is not one of table, json, csv, prom", format_opt);
	} else if (json_flag) {
		f = FMT_JSON;
	} else if (csv_flag) {
		f = FMT_CSV;
	}
	if ((topo || symptom_opt) && (f == FMT_CSV || f == FMT_PROM))
		die_usage("gpuscope check: %s prints a table or --json", topo ? "topo" : "--symptom");
	if (topo && symptom_opt)
		die_usage("gpuscope check: topo and --symptom exclude each other");
	if (symptom_opt && check_symptom_from_name(symptom_opt) < 0)
		die_usage("gpuscope check: --symptom '%s' is not one of launch-failed, oom, busy, slow, lost", symptom_opt);
	if (workload_opt && (!symptom_opt || strcmp(symptom_opt, "oom")))
		die_usage("gpuscope check: --workload goes with --symptom oom");
	if (gpu_opt >= 0 && !symptom_opt)
		die_usage("gpuscope check: --gpu goes with --symptom");
	if (!symptom_opt && (workload_opt || micro_batch_opt || seq_len_opt || zero_opt))
		die_usage("gpuscope check: --workload and its options go with --symptom oom");

	memset(&o, 0, sizeof(o));
	o.root = root_opt;
	o.nvml_path = nvml_opt;
	o.kmsg_path = kmsg_opt;
	o.python = no_python || topo ? NULL : python_opt;
	o.python_timeout_ms = (unsigned)(python_timeout_s * 1000);
	o.events_wait_ms = (unsigned)(events_wait_s * 1000);
	o.skip_libs = no_libs || topo;
	o.lib_dirs = lib_dir_opt;
	if (root_opt && access(root_opt, R_OK | X_OK))
		die_usage("gpuscope check: --root '%s': %m", root_opt);

	r = check_run(&o);
	open_output();
	if (topo) {
		rc = cmd_topo(r, f);
	} else if (symptom_opt) {
		rc = cmd_symptom(r, f);
	} else {
		rc = check_exit_code(r);
		switch (f) {
		case FMT_JSON: {
			json_t *j = report_json(r);
			print_json(j);
			json_decref(j);
			break;
		}
		case FMT_CSV:
			print_csv(r);
			break;
		case FMT_PROM:
			print_prom(r);
			break;
		default:
			if (rc == EXIT_ENV && r->ngpus == 0)
				fprintf(out, "gpuscope check: no NVIDIA GPU to check\n\n");
			else
				header_line(r);
			print_table(r);
			break;
		}
	}
	close_output();
	if (rc == EXIT_ENV) {
		/* say it plainly, whatever the format */
		if (r->backend_rc == GPU_ERR_NO_LIBRARY)
			fprintf(stderr, "gpuscope check: no NVIDIA GPU library on this host: %s\n", r->backend_error);
		else if (r->backend_rc == GPU_ERR_NO_DRIVER)
			fprintf(stderr, "gpuscope check: the NVIDIA driver is not loaded: %s\n", r->backend_error);
		else
			fprintf(stderr, "gpuscope check: the NVIDIA driver sees no GPU\n");
	}
	check_report_free(r);
	return rc;
}
