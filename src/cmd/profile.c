/*
 * gpuscope profile: reads a PyTorch profiler (Kineto) trace, .json or
 * .json.gz, and says where each step's time goes (docs/profile.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "cmd/workload_opts.h"
#include "profile/profile.h"
#include "profile/target.h"
#include "util/error.h"
#include "view/profile.h"

static int json_flag, csv_flag, save, task = MODEL_UNSET, precision = MODEL_UNSET;
static const char *target_name, *source_name, *report_path, *output_path;
static long micro_batch = MODEL_UNSET, gpus = MODEL_UNSET;
static struct workload_opts wo = {.cmd = "profile", .model_hint = "use --model", .output_len = -1};

static const struct opt profile_opts[] = {
	OPT_STRING_("target", &target_name, "GPU", "predict the same steps on GPU (catalog key or name)"),
	OPT_STRING_("source-gpu", &source_name, "GPU",
		    "the traced GPU (catalog name), in place of the trace's device name"),
	OPT_STRING_("report", &report_path, "FILE", "also write an HTML report with charts to FILE"),
	OPT_FLAG_("json", &json_flag, "print JSON: {trace, steps: [... classes], total}"),
	OPT_FLAG_("csv", &csv_flag, "print the class breakdown of every step as CSV"),
	OPT_GROUP_("against the model (the trace's workload)"),
	WORKLOAD_OPT_MODEL(wo, "compare each part of the step with the model's estimate of this workload"),
	WORKLOAD_OPT_TASK_ENUM(&task, "pretrain, finetune, lora or qlora (default pretrain)"),
	WORKLOAD_OPT_DIMS(wo),
	WORKLOAD_OPT_SEQ_LEN(wo),
	WORKLOAD_OPT_GLOBAL_BATCH(wo, "samples per optimizer step"),
	OPT_INT_("micro-batch", &micro_batch, "N", "samples per micro-batch", 1, 1000000),
	OPT_INT_("gpus", &gpus, "N", "GPUs of the traced job (default 1)", 1, 1000000),
	OPT_ENUM_("precision", &precision, "P", "fp32, tf32, fp16, bf16 or fp8", model_precision_from_name,
		  "fp32, tf32, fp16, bf16, fp8"),
	OPT_STRING_("output", &output_path, "FILE", "--model: write the corrections as a calibration file"),
	OPT_FLAG_("save", &save, "--model: write it to the default calibration path (docs/bench.md)"),
	OPT_END_(),
};

#define PROFILE_HELP \
	"TRACE is a Chrome trace written by torch.profiler (Kineto), plain or gzipped,\n" \
	"in the current schema (cat kernel, cuda_runtime ...) or the 2021 one (cat\n" \
	"Kernel, Runtime), from CUDA or ROCm.  Per ProfilerStep# annotation (the whole\n" \
	"trace when there is none) it gives the GPU's busy and idle time, the time of\n" \
	"each kernel class (GEMM and convolution by dtype, attention, elementwise,\n" \
	"normalisation, copies, communication by collective), communication exposed\n" \
	"against overlapped, and names the bottleneck with its remedy.  The file is read\n" \
	"as a stream: memory grows with the number of GPU events, not the file's size.\n" \
	"--target GPU scales each kernel by the two GPUs' ceilings (matmul peak of its\n" \
	"dtype, memory bandwidth, PCIe, GPU link), matrix kernels by their waves on the\n" \
	"SMs, collectives by their message sizes on the links, and replays the step on\n" \
	"its streams; the traced GPU is the trace's device, or --source-gpu.\n" \
	"Several traces (one per rank), or a directory of them, compare the ranks: each\n" \
	"one's mean step, the GPU time it spends on other work than communication, and\n" \
	"whether one rank (a straggler) makes the others wait in their collectives.\n" \
	"--report FILE writes the same as an HTML page with charts.\n" \
	"--model MODEL (and estimate's workload flags) compares each part of the mean\n" \
	"step with the model's estimate on the traced GPU; --output FILE or --save writes\n" \
	"the ratios as a calibration file that estimate --calibration FILE applies.\n"

static const struct opts_cmd profile_cmd = {
	.name = "profile",
	.usage = "TRACE... | DIR [options]",
	.summary = "Where the time of a PyTorch job goes, from its profiler trace.",
	.description = PROFILE_HELP,
	.opts = profile_opts};

/* The target from the catalog, or death with the resolver's reason. */
static struct profile_target *predict_on_target(const struct profile_result *r, const struct cat_gpu *src)
{
	const struct catalog *cat = load_catalog_or_die();
	const struct cat_gpu *dst;
	char why[512];
	dst = catalog_gpu(cat, target_name, why, sizeof(why));
	if (!dst)
		die_usage("gpuscope profile: --target: %s", why);
	return profile_target_run(r, cat, src, dst);
}

/* --model: the trace against the model's estimate, reported, and its file written when asked. */
static void calibrate(const struct profile_result *r, const struct cat_gpu *src, enum output_format fmt)
{
	struct workload w;
	struct model_request q;
	struct profile_calib k;
	struct diag err;
	char msg[1024], *written = NULL;
	workload_opts_load(&wo, &w);
	model_request_init(&q);
	q.task = task, q.precision = precision, q.micro_batch = (int)micro_batch, q.gpus = (int)gpus;
	workload_opts_request(&wo, &q);
	diag_clear(&err);
	if (profile_calibrate_workload(r, load_catalog_or_die(), src, &w, &q, &k, &err))
		die_usage("gpuscope profile: --model: %s", err.msg);
	if ((output_path || save) && profile_calib_save(&k, r->file, output_path, &written, &err))
		die("gpuscope profile: %s", (diag_format(&err, msg, sizeof(msg)), msg));
	if (written)
		fprintf(stderr, "profile: calibration written to %s\n", written);
	free(written);
	view_profile_calib_write(stdout, &k, fmt);
}

/* The job of several traces (files, or the traces of one directory), reported; the exit status. */
static int profile_many(int npos, char **argv, enum output_format fmt)
{
	char **listed = NULL;
	const char *const *paths = (const char *const *)argv;
	size_t n = (size_t)npos;
	struct profile_job *j;
	struct diag err;
	char msg[1024];
	diag_clear(&err);
	if (npos == 1) {
		listed = profile_dir_traces(argv[0], &n, &err);
		paths = (const char *const *)listed;
	}
	j = listed || npos > 1 ? profile_job_run(paths, n, &err) : NULL;
	profile_paths_free(listed);
	if (!j) {
		diag_format(&err, msg, sizeof(msg));
		die_code(EXIT_USAGE, "gpuscope profile: %s", msg);
	}
	if (report_path && view_profile_job_report(j, report_path, &err))
		die_code(EXIT_ENV, "gpuscope profile: --report: %s", err.msg);
	view_profile_job_write(stdout, j, fmt);
	profile_job_free(j);
	return EXIT_OK;
}

static int is_dir(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int cmd_profile(int argc, char **argv)
{
	int npos = parse_options_or_exit(&profile_cmd, argc, argv);
	enum output_format fmt = output_format_from(json_flag, csv_flag, "profile");
	struct profile_result *r;
	struct profile_target *t = NULL;
	const struct cat_gpu *src;
	struct diag err;
	char msg[1024];

	if (npos < 1)
		die_usage(
			"gpuscope profile: expected a trace file, several (one per rank) or a directory of them");
	if (npos > 1 || is_dir(argv[0])) {
		if (target_name)
			die_usage("gpuscope profile: --target predicts one trace; give it one rank's file");
		return profile_many(npos, argv, fmt);
	}
	diag_clear(&err);
	r = profile_run(argv[0], &err);
	if (!r) {
		diag_format(&err, msg, sizeof(msg));
		die_code(EXIT_USAGE, "gpuscope profile: %s", msg);
	}
	src = profile_source_gpu(load_catalog_or_die(), r, source_name, msg, sizeof(msg));
	if (!src && (target_name || wo.model || source_name))
		die_usage("gpuscope profile: the traced GPU: %s%s", msg,
			  source_name ? "" : "; give it with --source-gpu GPU");
	if (wo.model) {
		calibrate(r, src, fmt);
		profile_result_free(r);
		return EXIT_OK;
	}
	if (target_name)
		t = predict_on_target(r, src);
	if (report_path && view_profile_report(r, report_path, &err))
		die_code(EXIT_ENV, "gpuscope profile: --report: %s", err.msg);
	view_profile_write(stdout, r, t, fmt);
	profile_target_free(t);
	profile_result_free(r);
	return EXIT_OK;
}
