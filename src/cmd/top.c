/*
 * gpuscope top: a live view of the GPUs in the spirit of nvtop and nvitop,
 * on the same backend as export: per-GPU bars (utilisation, memory, power,
 * temperature, and SM and tensor activity where GPM has them), clocks and
 * throttle reasons, the processes with their user, container and memory,
 * and the XIDs seen since it started.  export/live.h samples, view/top.h
 * draws; this file picks full screen or plain frames and answers keys.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "export/live.h"
#include "gpu/gpu.h"
#include "util/error.h"
#include "view/top.h"

static const char *nvml_path, *root_opt, *sort_opt = "index", *filter_opt;
static double interval_s = 1.0;
static long iterations;
static int once_flag, tui_flag, plain_flag, no_color, no_procs, compact_flag;

static const struct opt top_opts[] = {
	OPT_GROUP_("view"),
	OPT_DURATION_("interval", &interval_s, "DURATION", "refresh every DURATION (default 1s)"),
	OPT_INT_("iterations", &iterations, "N", "refresh N times, then exit (default: until q)", 1, 1000000),
	OPT_FLAG_("once", &once_flag, "print one frame as plain text and exit"),
	OPT_STRING_("sort", &sort_opt, "KEY", "index (default), util, memory, power or temp"),
	OPT_STRING_("filter", &filter_opt, "TEXT", "a GPU number, or text in the GPUs' names or UUIDs"),
	OPT_FLAG_("no-processes", &no_procs, "leave out the process list"),
	OPT_FLAG_("compact", &compact_flag, "a line per GPU (full screen: also when the bars do not fit)"),
	OPT_FLAG_("no-color", &no_color, "no colour (also when $NO_COLOR is set)"),
	OPT_FLAG_("plain", &plain_flag, "plain text frames even on a terminal"),
	OPT_FLAG_("tui", &tui_flag, "full screen even when stdout is not a terminal"),
	OPT_GROUP_("library"),
	OPT_STRING_("nvml", &nvml_path, "PATH", "load NVML from PATH, not libnvidia-ml.so.1"),
	OPT_STRING_("root", &root_opt, "DIR", "read /proc and /etc/passwd under DIR (a fixture)"),
	OPT_END_(),
};

static const struct opts_cmd top_cmd = {
	"top",
	"[--interval DURATION] [--iterations N | --once] [options]",
	"A live view of the GPUs, their processes and their errors.",
	"Per GPU: utilisation, memory, power and temperature bars, SM and tensor\n"
	"activity on GPUs with GPM (Hopper and later), clocks and throttle reasons.\n"
	"Below: the processes on each GPU with their user, container and memory, and\n"
	"the XIDs seen since top started.\n"
	"\n"
	"Keys: q quit, s next sort order, / filter (Enter applies, empty clears),\n"
	"p show or hide processes, c colour on or off, v a line per GPU or bars;\n"
	"up/down (j/k), PgUp/PgDn, Home/End scroll through the GPUs.  The view\n"
	"follows the terminal's size and turns to a line per GPU when the bars do\n"
	"not fit.  On a pipe or a dumb terminal it prints plain frames.\n"
	"Exit codes: 0 ok, 2 bad flags, 3 no NVML or no GPU.\n"
	"\nExamples:\n"
	"  gpuscope top\n"
	"  gpuscope top --once --sort util\n"
	"  gpuscope top --iterations 10 --interval 500ms > frames.txt\n",
	top_opts,
};

static void run_plain(struct live *t, long n)
{
	long it;
	for (it = 0; it < n; it++) {
		if (it) {
			live_sleep(interval_s);
			putchar('\n');
		}
		live_refresh_gpus(t);
		live_refresh_xids(t);
		view_top_print(stdout, t);
		fflush(stdout);
	}
}

/* Answers keys until the next frame is due; returns 1 when q was pressed. */
static int answer_keys(struct view_top_tui *ui, struct live *t)
{
	double left = interval_s;
	int k;
	while ((k = view_top_tui_key(ui, &left)) != VIEW_TOP_TIMEOUT) {
		if (k == 'q' || k == 'Q')
			return 1;
		else if (k == 's')
			t->sort = (enum live_sort)((t->sort + 1) % LIVE_NSORT);
		else if (k == 'p')
			t->procs = !t->procs;
		else if (k == 'c')
			view_top_tui_toggle_color(ui);
		else if (k == '/')
			view_top_tui_prompt(ui, t->filter, sizeof(t->filter));
		else if (k != VIEW_TOP_RESIZE && !view_top_tui_scroll(ui, t, k))
			continue;
		/* a key that changes the view, or a resize: draw again now */
		view_top_tui_draw(ui, t);
	}
	return 0;
}

/* Returns 0 when the full screen could not start (the caller falls back to plain). */
static int run_tui(struct live *t, long n, int color)
{
	struct view_top_tui *ui = view_top_tui_start(color);
	long it = 0;
	if (!ui)
		return 0;
	for (;;) {
		live_refresh_gpus(t);
		live_refresh_xids(t);
		view_top_tui_draw(ui, t);
		it++;
		if ((n && it >= n) || answer_keys(ui, t))
			break;
	}
	view_top_tui_end(ui);
	return 1;
}

/* The GPUs of the NVML backend, or dies with exit code 3. */
static const struct gpu_backend *open_gpus(struct gpu_device *const **devs, unsigned *n)
{
	const struct gpu_backend *b = gpu_backend_find("nvml");
	struct gpu_init_opts io = {nvml_path};
	int rc = b ? b->init(&io) : GPU_ERR_NO_LIBRARY;
	if (rc != GPU_OK)
		die_code(EXIT_ENV, "gpuscope top: %s", b ? b->last_error() : "no GPU backend");
	if (b->enumerate(devs, n) != GPU_OK || !*n) {
		b->shutdown();
		die_code(EXIT_ENV, "gpuscope top: the driver sees no GPU");
	}
	return b;
}

int cmd_top(int argc, char **argv)
{
	struct live t;
	struct gpu_device *const *devs = NULL;
	const struct gpu_backend *b;
	const char *term = getenv("TERM");
	unsigned n = 0;
	int sort, tui, color;

	if (parse_options_or_exit(&top_cmd, argc, argv) > 0)
		die_usage("gpuscope top: unexpected argument '%s'", argv[0]);
	sort = live_sort_from_name(sort_opt);
	if (sort < 0)
		die_usage("gpuscope top: option '--sort' must be index, util, memory, power or temp, got '%s'",
			  sort_opt);
	if (!(interval_s >= 0.05 && interval_s <= 3600))
		die_usage("gpuscope top: option '--interval' must be between 50ms and 1h");
	if (once_flag && iterations)
		die_usage("gpuscope top: --once and --iterations do not go together");
	color = !no_color && !getenv("NO_COLOR");

	b = open_gpus(&devs, &n);
	live_init(&t, b, devs, n, root_opt);
	t.sort = (enum live_sort)sort;
	if (filter_opt)
		snprintf(t.filter, sizeof(t.filter), "%s", filter_opt);
	t.procs = !no_procs;
	if (compact_flag)
		t.layout = LIVE_LAYOUT_COMPACT;
	tui = !once_flag && !plain_flag &&
	      (tui_flag || (isatty(STDOUT_FILENO) && term && *term && strcmp(term, "dumb")));
	if (once_flag) {
		/* GPM needs two samples: take the first, then the frame 100 ms later */
		live_refresh_gpus(&t);
		live_sleep(0.1);
		run_plain(&t, 1);
	} else if (!tui || !run_tui(&t, iterations, color)) {
		run_plain(&t, iterations ? iterations : 1000000000L);
	}
	b->shutdown();
	live_release(&t);
	return EXIT_OK;
}
