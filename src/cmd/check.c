/*
 * gpuscope check: inspect this host's GPUs, driver, CUDA stack and PyTorch,
 * and say what is wrong and what to do.  The rules live in host/check.c,
 * the fields in host/fields.c and the text in view/check.c; this file
 * parses options, runs the check and picks what to print.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "cmd/cmd.h"
#include "host/check.h"
#include "host/fields.h"
#include "model/model.h"
#include "report/outfile.h"
#include "util/error.h"
#include "util/names.h"
#include "util/strbuf.h"
#include "view/check.h"

enum fmt {
	FMT_TABLE,
	FMT_JSON,
	FMT_CSV,
	FMT_PROM,
	FMT_NPD,
	FMT_NHC,
	FMT_SLURM
};

static int json_flag, csv_flag, all_flag, no_python, no_libs, slurm_flag, bench_flag;
static const char *lib_dir_opt, *root_opt, *nvml_opt, *kmsg_opt, *python_opt, *output_opt;
static const char *node_opt, *scontrol_opt = "scontrol";
static const char *workload_opt;
static int format_opt = -1, symptom_opt = -1, task_opt = MODEL_TASK_FINETUNE, precision_opt = -1;
static long gpu_opt = -1, micro_batch_opt = 0, seq_len_opt = 0, zero_opt = 0;
static double python_timeout_s = 60, events_wait_s = 0, deadline_s = 40;
static long message_max_opt = 0;

/* --format: the names in enum fmt's order */
static int format_from_name(const char *s)
{
	static const char *const names[] = {"table", "json", "csv", "prom", "npd", "nhc", "slurm"};
	return names_index(names, sizeof(names) / sizeof(names[0]), s);
}

static const struct opt check_opts[] = {
	OPT_GROUP_("what to read"),
	OPT_STRING_("root", &root_opt, "DIR",
		    "read /proc, /sys, /etc and /dev under DIR (a copy or fixture of a host)"),
	OPT_STRING_("nvml", &nvml_opt, "PATH",
		    "load this libnvidia-ml.so.1 instead of searching the library path"),
	OPT_STRING_("kmsg", &kmsg_opt, "FILE",
		    "read Xids from FILE (dmesg or /dev/kmsg text) instead of /dev/kmsg"),
	OPT_STRING_("python", &python_opt, "PATH", "the Python that runs PyTorch (default python3 on $PATH)"),
	OPT_FLAG_("no-python", &no_python, "do not look for PyTorch"),
	OPT_DURATION_RANGE_("python-timeout", &python_timeout_s, "TIME",
			    "give up on the PyTorch probe after TIME (default 60s)", 0.001, 3600),
	OPT_FLAG_("no-libs", &no_libs, "do not load libcuda, libcudart, libcudnn and libnccl"),
	OPT_STRING_("lib-dir", &lib_dir_opt, "DIRS",
		    "load those libraries from DIRS (':'-separated) instead of the loader's search"),
	OPT_DURATION_RANGE_("events-wait", &events_wait_s, "TIME",
			    "also wait TIME for Xid events from NVML (default 0)", 0, 3600),
	OPT_FLAG_("bench", &bench_flag, "also run bench --quick and add its verdict per GPU (docs/bench.md)"),
	OPT_GROUP_("runbooks"),
	OPT_ENUM_("symptom", &symptom_opt, "NAME", "walk a runbook: launch-failed, oom, busy, slow, lost",
		  check_symptom_from_name, "launch-failed, oom, busy, slow, lost"),
	OPT_INT_("gpu", &gpu_opt, "N", "limit the runbook's per-GPU steps to GPU N", 0, 1023),
	OPT_STRING_("workload", &workload_opt, "NAME",
		    "oom: the workload (preset or config.json) whose memory to estimate"),
	OPT_ENUM_("task", &task_opt, "TASK", "oom: pretrain, finetune, lora, qlora, infer (default finetune)",
		  model_task_from_name, "pretrain, finetune, lora, qlora, infer"),
	OPT_ENUM_("precision", &precision_opt, "P",
		  "oom: fp32, fp16, bf16, fp8 (default bf16 where the GPU has it)", model_precision_from_name,
		  "fp32, tf32, fp16, bf16, fp8"),
	OPT_INT_("micro-batch", &micro_batch_opt, "N", "oom: samples per micro-batch (default 1)", 1, 1 << 20),
	OPT_INT_("seq-len", &seq_len_opt, "N", "oom: tokens per sample (default: the workload's)", 1, 1 << 24),
	OPT_INT_("zero", &zero_opt, "N", "oom: ZeRO stage 0-3 across the GPUs of this host", 0, 3),
	OPT_GROUP_("output"),
	OPT_FLAG_("json", &json_flag, "print JSON (docs/check.md describes the fields)"),
	OPT_FLAG_("csv", &csv_flag, "print the checks as CSV"),
	OPT_ENUM_("format", &format_opt, "F",
		  "table, json, csv, prom (textfile), or npd, nhc, slurm (fleet engines)", format_from_name,
		  "table, json, csv, prom, npd, nhc, slurm"),
	OPT_STRING_("output", &output_opt, "FILE",
		    "write to FILE (atomically: for node_exporter's textfile directory)"),
	OPT_FLAG_("all", &all_flag, "list every check of every GPU (default: one line per healthy GPU)"),
	OPT_GROUP_("fleet engines (--format npd, nhc, slurm)"),
	OPT_FLAG_("slurm", &slurm_flag, "the same as --format slurm"),
	OPT_STRING_("node", &node_opt, "NAME", "slurm: the node (default $SLURMD_NODENAME, else hostname -s)"),
	OPT_STRING_("scontrol", &scontrol_opt, "PATH", "slurm: the scontrol to run (default scontrol)"),
	OPT_DURATION_RANGE_("deadline", &deadline_s, "TIME", "give up after TIME, exit 2 (default 40s)", 1, 3600),
	OPT_INT_("message-max", &message_max_opt, "N", "cut the message to N bytes (npd 80, else 256)", 16, 4096),
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

/* ---- runbooks ---- */

/*
 * The memory a workload needs per GPU on this host's GPU, from the model:
 * the GPU is the catalog's row for NVML's name; the job spans every GPU
 * of the host (ZeRO shards over them).  Returns bytes and says what was
 * estimated in `what`, or dies on bad input.
 */
static double workload_need(const struct check_report *r, struct strbuf *what)
{
	const struct catalog *cat = load_catalog_or_die();
	const struct cat_gpu *gpu = NULL;
	const double gib = 1073741824.0;
	struct workload w;
	struct model_request q;
	struct model_config cfg;
	struct model_memory mem;
	struct diag err;
	char why[512], msg[1024];
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
		die_code(EXIT_ENV,
			 "gpuscope check: --workload: no GPU of this host is in the catalog to estimate on");
	model_request_init(&q);
	q.gpu = gpu;
	q.task = (enum model_task)task_opt;
	if (precision_opt >= 0)
		q.precision = (enum model_precision)precision_opt;
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
	strbuf_addf(what,
		    "%s, %s, %s, micro-batch %d on %d x %s: weights %.1f, gradients %.1f, optimizer %.1f, "
		    "activations %.1f, other %.1f GiB",
		    w.name, model_task_name(cfg.task), model_precision_name(cfg.precision), cfg.micro_batch,
		    cfg.gpus, gpu->row.key, mem.weights_bytes / gib, mem.gradients_bytes / gib,
		    mem.optimizer_bytes / gib, mem.activations_bytes / gib,
		    (mem.total_bytes - mem.weights_bytes - mem.gradients_bytes - mem.optimizer_bytes -
		     mem.activations_bytes) /
			    gib);
	return mem.total_bytes;
}

static int needs_action(enum check_status s)
{
	return s == CHECK_WARN || s == CHECK_FAIL;
}

/* 3 when there is no GPU to check, else 1 when a finding warns or fails, else 0. */
static int findings_rc(const struct check_report *r, int any)
{
	if (check_exit_code(r) == EXIT_ENV)
		return EXIT_ENV;
	return any ? EXIT_FINDINGS : EXIT_OK;
}

static int cmd_symptom(const struct check_report *r, enum fmt f)
{
	struct strbuf what = STRBUF_INIT;
	double need = workload_opt ? workload_need(r, &what) : 0;
	const char *name = check_symptom_name((enum check_symptom)symptom_opt);
	const char *workload = what.len ? strbuf_str(&what) : NULL;
	struct check_step *steps;
	size_t n, i;
	int any = 0, rc;

	/* with no GPU enumerated at all the runbook still walks the host steps */
	if (gpu_opt >= 0 && r->ngpus && (unsigned long)gpu_opt >= r->ngpus)
		die_usage("gpuscope check: --gpu %ld: this host has GPUs 0 to %u", gpu_opt, r->ngpus - 1);
	n = check_runbook(r, (enum check_symptom)symptom_opt, (int)gpu_opt, need, &steps);
	for (i = 0; i < n; i++)
		any |= needs_action(steps[i].status);
	rc = findings_rc(r, any);
	if (f == FMT_JSON)
		view_check_json(out, check_runbook_json(name, workload, need, steps, n, rc));
	else
		view_check_runbook(out, name, workload, steps, n);
	check_steps_free(steps, n);
	strbuf_release(&what);
	return rc;
}

static int cmd_topo(const struct check_report *r, enum fmt f)
{
	struct check_topo *t = check_topo_build(r);
	size_t i;
	int any = 0, rc;
	for (i = 0; i < t->nitems; i++)
		any |= needs_action(t->items[i].status);
	rc = findings_rc(r, any);
	if (f == FMT_JSON)
		view_check_json(out, check_topo_json(t, rc));
	else
		view_check_topo(out, t);
	check_topo_free(t);
	return rc;
}

static int cmd_report(const struct check_report *r, enum fmt f)
{
	switch (f) {
	case FMT_JSON:
		view_check_json(out, check_report_json(r));
		break;
	case FMT_CSV:
		view_check_csv(out, r);
		break;
	case FMT_PROM:
		view_check_prom(out, r, time(NULL));
		break;
	default:
		view_check_table(out, r, all_flag);
		break;
	}
	return check_exit_code(r);
}

/* ---- fleet engines ---- */

/* npd, nhc, slurm: the last three of enum fmt */
#define fleet_format(f) ((f) >= FMT_NPD)

/* npd's message (exit 0 OK, 1 NonOK), NHC's (1 offlines), or Slurm's drain reason. */
static int cmd_fleet(const struct check_report *r, enum fmt f)
{
	struct strbuf line = STRBUF_INIT, node = STRBUF_INIT;
	int fail = check_has_failure(r), rc = fail ? EXIT_FINDINGS : EXIT_OK;
	size_t max = message_max_opt ? (size_t)message_max_opt : f == FMT_NPD ? 80 : 256;
	check_summary(r, max, &line);
	if (f == FMT_SLURM) {
		struct check_slurm_opts so = {check_slurm_node_name(node_opt, &node), scontrol_opt, 10000};
		enum check_slurm_done done;
		struct diag err;
		if (!so.node)
			die("gpuscope check: cannot read the host name: %m; give --node");
		if (check_slurm_apply(&so, fail ? strbuf_str(&line) : NULL, &done, &err)) {
			fprintf(stderr, "gpuscope check: node %s: %s\n", so.node, err.msg);
			rc = EXIT_ENV;
		}
		fprintf(out, "gpuscope: node %s %s: %s\n", so.node, check_slurm_done_name(done),
			strbuf_str(&line));
	} else {
		fprintf(out, "%s\n", strbuf_str(&line));
	}
	strbuf_release(&line);
	strbuf_release(&node);
	return rc;
}

/* Written from the SIGALRM handler, so it is made before the check starts. */
static char *deadline_msg;
static size_t deadline_len;
static int deadline_fd;

static void deadline_hit(int sig)
{
	(void)sig;
	(void)!write(deadline_fd, deadline_msg, deadline_len); /* nothing to do if it fails */
	_exit(2);
}

/* Ends a check that runs too long before the engine kills it: exit 2 (npd's Unknown), nothing changed. */
static void arm_deadline(enum fmt f)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%sthe check did not finish in %g s (a hung GPU or driver?); nothing changed\n",
		    f == FMT_SLURM ? "gpuscope check: " : "gpuscope: ", deadline_s);
	deadline_msg = strbuf_detach(&sb, &deadline_len);
	/* npd and NHC read the message on stdout; slurmd logs nothing of it */
	deadline_fd = f == FMT_SLURM ? 2 : 1;
	signal(SIGALRM, deadline_hit);
	alarm((unsigned)(deadline_s + 0.999));
}

/* ---- options ---- */

/* The output from --format, --json and --csv; dies when they disagree. */
static enum fmt output_format(int topo)
{
	enum fmt f = json_flag ? FMT_JSON : csv_flag ? FMT_CSV : FMT_TABLE;
	if (json_flag && csv_flag)
		die_usage("gpuscope check: --json and --csv exclude each other");
	if (format_opt >= 0) {
		if (json_flag || csv_flag)
			die_usage("gpuscope check: --format and --json/--csv exclude each other");
		f = (enum fmt)format_opt;
	}
	if (slurm_flag) {
		if (format_opt >= 0 && format_opt != FMT_SLURM)
			die_usage("gpuscope check: --slurm and --format exclude each other");
		f = FMT_SLURM;
	}
	if ((topo || symptom_opt >= 0) && f != FMT_TABLE && f != FMT_JSON)
		die_usage("gpuscope check: %s prints a table or --json", topo ? "topo" : "--symptom");
	if (fleet_format(f) && output_opt)
		die_usage(
			"gpuscope check: --format npd, nhc and slurm print to stdout; --output is for the others");
	if (!fleet_format(f) && (node_opt || message_max_opt))
		die_usage("gpuscope check: --node and --message-max go with --format npd, nhc or slurm");
	return f;
}

/* The options that go only with a runbook. */
static void runbook_opts_only(int topo)
{
	if (topo && symptom_opt >= 0)
		die_usage("gpuscope check: topo and --symptom exclude each other");
	if (workload_opt && symptom_opt != SYMPTOM_OOM)
		die_usage("gpuscope check: --workload goes with --symptom oom");
	if (gpu_opt >= 0 && symptom_opt < 0)
		die_usage("gpuscope check: --gpu goes with --symptom");
	if (symptom_opt < 0 && (workload_opt || micro_batch_opt || seq_len_opt || zero_opt))
		die_usage("gpuscope check: --workload and its options go with --symptom oom");
}

/* Why there is no GPU to check, said plainly on stderr whatever the format. */
static void say_no_gpu(const struct check_report *r)
{
	if (r->backend_rc == GPU_ERR_NO_LIBRARY)
		fprintf(stderr, "gpuscope check: no NVIDIA GPU library on this host: %s\n", r->backend_error);
	else if (r->backend_rc == GPU_ERR_NO_DRIVER)
		fprintf(stderr, "gpuscope check: the NVIDIA driver is not loaded: %s\n", r->backend_error);
	else
		fprintf(stderr, "gpuscope check: the NVIDIA driver sees no GPU\n");
}

int cmd_check(int argc, char **argv)
{
	int npos = parse_options_or_exit(&check_cmd, argc, argv), topo = npos == 1, rc;
	struct check_opts o = {0};
	struct check_report *r;
	enum fmt f;

	if (npos > 1 || (npos == 1 && strcmp(argv[0], "topo")))
		die_usage("gpuscope check: unexpected argument '%s'; the only subcommand is 'topo'", argv[0]);
	f = output_format(topo);
	runbook_opts_only(topo);
	if (root_opt && access(root_opt, R_OK | X_OK))
		die_usage("gpuscope check: --root '%s': %m", root_opt);
	o.root = root_opt;
	o.nvml_path = nvml_opt;
	o.kmsg_path = kmsg_opt;
	/* a health check runs every minute beside jobs: PyTorch only when asked for */
	o.python = no_python || topo ? NULL : python_opt ? python_opt : fleet_format(f) ? NULL : "python3";
	o.python_timeout_ms = (unsigned)(python_timeout_s * 1000);
	o.events_wait_ms = (unsigned)(events_wait_s * 1000);
	o.skip_libs = no_libs || topo;
	o.lib_dirs = lib_dir_opt;

	if (fleet_format(f))
		arm_deadline(f);
	r = check_run(&o);
	alarm(0);
	if (bench_flag && !topo && symptom_opt < 0)
		bench_check(r, load_catalog_or_die(), nvml_opt, lib_dir_opt);
	open_output();
	rc = topo             ? cmd_topo(r, f) :
	     symptom_opt >= 0 ? cmd_symptom(r, f) :
	     fleet_format(f)  ? cmd_fleet(r, f) :
				cmd_report(r, f);
	close_output();
	if (rc == EXIT_ENV && !fleet_format(f))
		say_no_gpu(r);
	check_report_free(r);
	return rc;
}
