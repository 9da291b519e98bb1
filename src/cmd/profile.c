/*
 * gpuscope profile: reads a PyTorch profiler (Kineto) trace, .json or
 * .json.gz, and says where each step's time goes (docs/profile.md).
 */
#include <stdio.h>

#include "cmd/cmd.h"
#include "profile/profile.h"
#include "util/error.h"
#include "view/profile.h"

static int json_flag, csv_flag;

static const struct opt profile_opts[] = {
	OPT_FLAG_("json", &json_flag, "print JSON: {trace, steps: [... classes], total}"),
	OPT_FLAG_("csv", &csv_flag, "print the class breakdown of every step as CSV"),
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
	"as a stream: memory grows with the number of GPU events, not the file's size.\n"

static const struct opts_cmd profile_cmd = {
	.name = "profile",
	.usage = "TRACE [options]",
	.summary = "Where the time of a PyTorch job goes, from its profiler trace.",
	.description = PROFILE_HELP,
	.opts = profile_opts};

int cmd_profile(int argc, char **argv)
{
	int npos = parse_options_or_exit(&profile_cmd, argc, argv);
	enum output_format fmt = output_format_from(json_flag, csv_flag, "profile");
	struct profile_result *r;
	struct diag err;
	char msg[1024];

	if (npos != 1)
		die_usage("gpuscope profile: expected one trace file, got %d arguments", npos);
	diag_clear(&err);
	r = profile_run(argv[0], &err);
	if (!r) {
		diag_format(&err, msg, sizeof(msg));
		die_code(EXIT_USAGE, "gpuscope profile: %s", msg);
	}
	view_profile_write(stdout, r, fmt);
	profile_result_free(r);
	return EXIT_OK;
}
