/*
 * gpuscope bench: what this host's GPUs really reach (docs/bench.md), and
 * the calibration file that lets estimate, plan and validate use it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/bench.h"
#include "bench/calib.h"
#include "cmd/cmd.h"
#include "model/model.h"
#include "report/outfile.h"
#include "util/error.h"
#include "util/xalloc.h"
#include "view/bench.h"

static int json_flag, csv_flag, quick, save, print_ptx;
static const char *output_s, *model_s, *only_s, *nvml_s, *libs_s, *type_s, *baseline_s;
static long micro_batch = 1, seq_len;

static const struct opt bench_opts[] = {
	OPT_FLAG_("quick", &quick,
		  "one large shape per dtype, fewer sizes; verdict against the catalog or --baseline"),
	OPT_STRING_("baseline", &baseline_s, "FILE", "--quick: a calibration file of a good GPU of the fleet"),
	OPT_STRING_("model", &model_s, "NAME", "also time this model's layer GEMMs (preset or config.json)"),
	OPT_INT_("micro-batch", &micro_batch, "N", "--model: sequences per micro-batch (default 1)", 1, 65536),
	OPT_INT_("seq-len", &seq_len, "N", "--model: tokens per sequence (default: the model's)", 1, 1 << 22),
	OPT_STRING_("only", &only_s, "PARTS", "comma-separated: gemm, hbm, host, p2p, nccl, launch"),
	OPT_STRING_("gpu-type", &type_s, "GPU", "the catalog GPU these are (default: from the device name)"),
	OPT_STRING_("output", &output_s, "FILE", "write the calibration file there"),
	OPT_FLAG_("save", &save, "write the calibration file to the default place (docs/bench.md)"),
	OPT_STRING_("nvml", &nvml_s, "PATH", "libnvidia-ml to load for clocks and power"),
	OPT_STRING_("lib-dir", &libs_s, "DIRS",
		    "look for libcuda, cuBLASLt and NCCL only there (also $GPUSCOPE_BENCH_LIBS)"),
	OPT_FLAG_("json", &json_flag, "print JSON: {gpus, libraries, skipped, results: [...], quick}"),
	OPT_FLAG_("csv", &csv_flag, "print the results as CSV"),
	OPT_FLAG_("print-ptx", &print_ptx, "print the PTX kernels bench ships and exit"),
	OPT_END_(),
};

#define BENCH_HELP \
	"Measures dense GEMM by shape and dtype (cuBLASLt), HBM read/write/copy (PTX kernels\n" \
	"the driver compiles), pinned host copies, the peer-to-peer matrix, NCCL collectives\n" \
	"and kernel launch / graph replay latency, each with the clocks, power and clock-event\n" \
	"reasons NVML read while it ran.  CUDA, cuBLASLt and NCCL are loaded at run time from\n" \
	"the system or a PyTorch install; a missing one skips its part.  --output/--save write\n" \
	"a calibration file that estimate, plan and validate read (--calibration FILE).\n"

static const struct opts_cmd bench_cmd = {.name = "bench",
					  .usage = "[options]",
					  .summary = "Measure what this host's GPUs really do.",
					  .description = BENCH_HELP,
					  .opts = bench_opts};

static unsigned parts_or_die(const char *s)
{
	static const struct {
		const char *name;
		unsigned bit;
	} names[] = {{"gemm", BENCH_GEMM}, {"hbm", BENCH_HBM},   {"host", BENCH_HOST},
		     {"p2p", BENCH_P2P},   {"nccl", BENCH_NCCL}, {"launch", BENCH_LAUNCH}};
	unsigned bits = 0;
	size_t i, len;
	if (!s)
		return BENCH_ALL;
	for (; *s; s += len + (s[len] == ',')) {
		len = strcspn(s, ",");
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == len && !strncmp(names[i].name, s, len))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			die_usage(
				"gpuscope bench: --only: '%.*s' is not a part (gemm, hbm, host, p2p, nccl, launch)",
				(int)len, s);
		bits |= names[i].bit;
	}
	return bits;
}

/* The model's layer GEMMs at --micro-batch x --seq-len. */
static size_t model_shapes_or_die(struct bench_shape *out)
{
	struct workload w;
	struct model_gemm g[5];
	struct diag err;
	char msg[1024];
	size_t i, n;
	diag_clear(&err);
	if (workload_load(&w, model_s, &err)) {
		diag_format(&err, msg, sizeof(msg));
		die_usage("gpuscope bench: --model: %s", msg);
	}
	if (!seq_len)
		seq_len = w.d.seq_len > 0 ? w.d.seq_len : 2048;
	n = model_workload_gemms(&w, (int)micro_batch, (int)seq_len, g);
	if (!n)
		die_usage("gpuscope bench: --model %s has no transformer layers to time", model_s);
	for (i = 0; i < n; i++)
		out[i] = (struct bench_shape){g[i].m, g[i].n, g[i].k, g[i].label};
	return n;
}

static void write_calibration_or_die(const struct bench_result *r, const struct cat_gpu *type, const char *path)
{
	struct outfile o;
	struct diag err;
	char msg[1024];
	diag_clear(&err);
	if (!type)
		die_code(EXIT_USAGE,
			 "gpuscope bench: the GPU '%s' is not in the catalog: name it with --gpu-type GPU",
			 r->ngpus ? r->gpus[0].name : "?");
	if (outfile_open(&o, path, &err))
		goto fail;
	if (bench_calibration_write(r, type, o.f, &err)) {
		outfile_abort(&o);
		goto fail;
	}
	if (outfile_commit(&o, &err))
		goto fail;
	fprintf(stderr, "bench: calibration written to %s\n", path);
	return;
fail:
	diag_format(&err, msg, sizeof(msg));
	die("gpuscope bench: %s", msg);
}

static char *default_path_or_die(void)
{
	char *p = bench_calibration_default_path(), *slash;
	if (!p)
		die("gpuscope bench: --save: no $HOME or $XDG_CONFIG_HOME to save under; use --output FILE");
	/* make the directories when missing, as mkdir -p */
	for (slash = strchr(p + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			die("gpuscope bench: --save: cannot create %s: %s", p, strerror(errno));
		*slash = '/';
	}
	return p;
}

static const struct cat_gpu *gpu_type(const struct catalog *cat, const struct bench_result *r)
{
	char why[512];
	const struct cat_gpu *g;
	if (type_s) {
		if (!(g = catalog_gpu(cat, type_s, why, sizeof(why))))
			die_usage("gpuscope bench: --gpu-type: %s", why);
		return g;
	}
	/* the device's own name, as NVML and CUDA give it ("NVIDIA H100 80GB HBM3") */
	return r->ngpus ? catalog_gpu(cat, r->gpus[0].name, why, sizeof(why)) : NULL;
}

int cmd_bench(int argc, char **argv)
{
	int npos = parse_options_or_exit(&bench_cmd, argc, argv);
	enum output_format fmt = output_format_from(json_flag, csv_flag, "bench");
	const struct catalog *cat;
	struct bench_shape shapes[5];
	struct bench_opts o = {0};
	struct bench_result *r;
	struct bench_verdict *v = NULL;
	struct model_calibration base;
	struct diag err;
	const struct cat_gpu *type;
	size_t nv = 0, i;
	int rc, flagged = 0;
	if (npos)
		die_usage("gpuscope bench: no arguments expected, got '%s'", argv[0]);
	if (print_ptx)
		return fputs(bench_ptx_text(), stdout) < 0 ? EXIT_ENV : EXIT_OK;
	cat = load_catalog_or_die();
	if (baseline_s) {
		char *summary, msg[1024];
		diag_clear(&err);
		if (bench_calibration_load(baseline_s, cat, &base, &summary, &err)) {
			diag_format(&err, msg, sizeof(msg));
			die_code(EXIT_USAGE, "gpuscope bench: --baseline: %s", msg);
		}
		free(summary);
	}
	o.lib_dirs = libs_s;
	o.nvml_path = nvml_s;
	o.parts = parts_or_die(only_s);
	o.quick = quick;
	o.shapes = shapes;
	o.nshapes = model_s ? model_shapes_or_die(shapes) : 0;
	diag_clear(&err);
	rc = bench_run(&o, &r, &err);
	type = gpu_type(cat, r);
	bench_set_expected(r, type);
	if (quick && !rc)
		nv = bench_quick_verdicts(r, baseline_s ? &base : NULL, &v);
	view_bench_write(stdout, r, type, v, nv, fmt);
	if (rc) {
		char msg[1024];
		diag_format(&err, msg, sizeof(msg));
		fflush(stdout);
		bench_result_free(r);
		die_code(EXIT_ENV, "gpuscope bench: %s", msg);
	}
	if (output_s || save) {
		char *path = output_s ? xstrdup(output_s) : default_path_or_die();
		write_calibration_or_die(r, type, path);
		free(path);
	}
	for (i = 0; i < nv; i++)
		flagged |= v[i].flagged;
	bench_verdicts_free(v, nv);
	bench_result_free(r);
	return flagged ? EXIT_FINDINGS : EXIT_OK;
}
