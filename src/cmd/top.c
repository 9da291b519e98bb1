/*
 * gpuscope top: a live view of the GPUs in the spirit of nvtop and nvitop,
 * on the same backend as export: per-GPU bars (utilisation, memory, power,
 * temperature, and SM and tensor activity where GPM has them), clocks and
 * throttle reasons, the processes with their user, container and memory,
 * and the XIDs seen since it started.
 *
 * Each frame is drawn into a grid of cells with a colour per cell; on a
 * terminal ncurses shows the grid (it sends only what changed, so nothing
 * flickers) and follows resizes; anywhere else (a pipe, TERM=dumb, --once)
 * the grid is printed as plain text, one frame after another, which is how
 * the tests run it under the sanitizers (htop's --iterations habit).
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef GPUSCOPE_HAVE_CURSES
#include <curses.h>
#endif

#include "cmd/cmd.h"
#include "export/procinfo.h"
#include "gpu/gpu.h"
#include "host/host.h"
#include "util/error.h"
#include "util/xalloc.h"

static const char *nvml_path, *root_opt, *sort_opt = "index", *filter_opt;
static double interval_s = 1.0;
static long iterations;
static int once_flag, tui_flag, plain_flag, no_color, no_procs;

static const struct opt top_opts[] = {
	OPT_GROUP_("view"),
	OPT_DURATION_("interval", &interval_s, "DURATION", "refresh every DURATION (default 1s)"),
	OPT_INT_("iterations", &iterations, "N", "refresh N times, then exit (default: until q)", 1, 1000000),
	OPT_FLAG_("once", &once_flag, "print one frame as plain text and exit"),
	OPT_STRING_("sort", &sort_opt, "KEY", "index (default), util, memory, power or temp"),
	OPT_STRING_("filter", &filter_opt, "TEXT", "a GPU number, or text in the GPUs' names or UUIDs"),
	OPT_FLAG_("no-processes", &no_procs, "leave out the process list"),
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
	"p show or hide processes, c colour on or off.  The view follows the\n"
	"terminal's size.  On a pipe or a dumb terminal it prints plain frames.\n"
	"Exit codes: 0 ok, 2 bad flags, 3 no NVML or no GPU.\n"
	"\nExamples:\n"
	"  gpuscope top\n"
	"  gpuscope top --once --sort util\n"
	"  gpuscope top --iterations 10 --interval 500ms > frames.txt\n",
	top_opts,
};

/* ---- what one refresh read ---- */

struct tgpu {
	struct gpu_device *dev;
	int have_static;
	struct gpu_static st;
	int rc;                 /* the last sample()'s gpu_rc */
	struct gpu_sample s;
	struct gpu_gpm gpm;
};

struct tproc {
	unsigned gpu;
	unsigned pid;
	char user[32];
	char comm[32];
	char container[13];
	int mem_valid;
	uint64_t mem;
};

#define MAX_XIDS 8
struct txid {
	unsigned gpu;
	uint64_t code;
	time_t when;
};

enum sort_key { SORT_INDEX, SORT_UTIL, SORT_MEM, SORT_POWER, SORT_TEMP, NSORT };
static const char *const sort_names[NSORT] = {"index", "util", "memory", "power", "temp"};

struct top {
	const struct gpu_backend *b;
	struct tgpu *g;
	unsigned n;
	struct tproc *p;
	size_t np, pcap;
	struct txid xids[MAX_XIDS];
	size_t nxids;
	uint64_t xids_total;
	enum sort_key sort;
	char filter[64];
	int procs;
	int color;
};

static void refresh_gpus(struct top *t)
{
	unsigned i;
	size_t k;
	t->np = 0;
	for (i = 0; i < t->n; i++) {
		struct tgpu *g = &t->g[i];
		struct gpu_process *pr = NULL;
		size_t np = 0;
		if (!g->have_static)
			g->have_static = t->b->static_info(g->dev, &g->st) == GPU_OK ||
					 GPU_STATIC_HAS(&g->st, uuid);
		g->rc = t->b->sample(g->dev, GPU_SAMPLE_BASIC | GPU_SAMPLE_THROTTLE, &g->s);
		if (g->rc != GPU_OK)
			continue;
		if (t->b->gpm && t->b->gpm(g->dev, GPU_NO_INSTANCE, &g->gpm) != GPU_OK)
			memset(&g->gpm, 0, sizeof(g->gpm));
		if (!t->procs || !t->b->processes || t->b->processes(g->dev, &pr, &np) != GPU_OK)
			continue;
		for (k = 0; k < np; k++) {
			struct tproc *q;
			struct proc_container pc;
			XGROW(t->p, t->pcap, t->np + 1);
			q = &t->p[t->np++];
			memset(q, 0, sizeof(*q));
			q->gpu = GPU_STATIC_HAS(&g->st, index) ? g->st.index : i;
			q->pid = pr[k].pid;
			q->mem_valid = pr[k].used_bytes_valid;
			q->mem = pr[k].used_bytes;
			host_proc_user(root_opt ? root_opt : "", pr[k].pid, q->user, sizeof(q->user), q->comm,
				       sizeof(q->comm));
			if (proc_container_of(root_opt, pr[k].pid, &pc) == 1)
				snprintf(q->container, sizeof(q->container), "%.12s", pc.id);
		}
		free(pr);
	}
}

/* XIDs that arrived since the last refresh (never waits). */
static void refresh_xids(struct top *t)
{
	struct gpu_event ev[16];
	int n, i;
	if (!t->b->events)
		return;
	n = t->b->events(ev, 16, 0);
	for (i = 0; i < n; i++) {
		if (ev[i].type != GPU_EVENT_XID)
			continue;
		if (t->nxids == MAX_XIDS) {
			memmove(t->xids, t->xids + 1, (MAX_XIDS - 1) * sizeof(t->xids[0]));
			t->nxids--;
		}
		t->xids[t->nxids].gpu = ev[i].gpu_index;
		t->xids[t->nxids].code = ev[i].code;
		t->xids[t->nxids].when = (time_t)(ev[i].time_ns / 1000000000);
		t->nxids++;
		t->xids_total++;
	}
}

/* ---- the grid a frame is drawn into ---- */

enum color { C_NONE, C_LOW, C_MID, C_HIGH, C_HEAD, C_DIM, NCOLORS };

struct grid {
	int rows, cols;
	int grow;               /* plain text: rows grow as the frame needs */
	char *cell;
	unsigned char *color;
	int used;               /* rows written */
};

static void grid_init(struct grid *gr, int rows, int cols, int grow)
{
	gr->rows = rows;
	gr->cols = cols;
	gr->grow = grow;
	gr->cell = xmalloc((size_t)rows * (size_t)cols);
	gr->color = xcalloc((size_t)rows * (size_t)cols, 1);
	memset(gr->cell, ' ', (size_t)rows * (size_t)cols);
	gr->used = 0;
}

static void grid_free(struct grid *gr)
{
	free(gr->cell);
	free(gr->color);
}

/* Writes text at (row, col), clipped to the grid. */
static void put(struct grid *gr, int row, int col, enum color c, const char *text)
{
	size_t i;
	if (row >= gr->rows && gr->grow) {
		int nrows = row + 16;
		gr->cell = xrealloc(gr->cell, (size_t)nrows * (size_t)gr->cols);
		gr->color = xrealloc(gr->color, (size_t)nrows * (size_t)gr->cols);
		memset(gr->cell + (size_t)gr->rows * (size_t)gr->cols, ' ', (size_t)(nrows - gr->rows) * (size_t)gr->cols);
		memset(gr->color + (size_t)gr->rows * (size_t)gr->cols, 0, (size_t)(nrows - gr->rows) * (size_t)gr->cols);
		gr->rows = nrows;
	}
	if (row < 0 || row >= gr->rows)
		return;
	for (i = 0; text[i] && col + (int)i < gr->cols; i++) {
		size_t at = (size_t)row * (size_t)gr->cols + (size_t)col + i;
		unsigned char ch = (unsigned char)text[i];
		gr->cell[at] = ch >= 32 && ch < 127 ? (char)ch : '?';
		gr->color[at] = (unsigned char)c;
	}
	if (row + 1 > gr->used)
		gr->used = row + 1;
}

static void putf(struct grid *gr, int row, int col, enum color c, const char *fmt, ...) GS_PRINTF(5, 6);
static void putf(struct grid *gr, int row, int col, enum color c, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	put(gr, row, col, c, buf);
}

static enum color level(double frac)
{
	return frac >= 0.8 ? C_HIGH : frac >= 0.5 ? C_MID : C_LOW;
}

/*
 * A bar "LABEL[|||||     62%]" of `width` columns at (row, col); frac < 0
 * draws an absent reading as "n/a" rather than an empty bar.
 */
static void bar(struct grid *gr, int row, int col, int width, const char *label, double frac,
		const char *text)
{
	int inner, fill, i, lw = (int)strlen(label);
	char buf[256];
	put(gr, row, col, C_HEAD, label);
	inner = width - lw - 2;
	if (inner < 4)
		return;
	if (inner > (int)sizeof(buf) - 1)
		inner = (int)sizeof(buf) - 1;
	put(gr, row, col + lw, C_NONE, "[");
	put(gr, row, col + lw + inner + 1, C_NONE, "]");
	if (frac < 0) {
		put(gr, row, col + lw + 1 + inner - 3, C_DIM, "n/a");
		return;
	}
	if (frac > 1)
		frac = 1;
	fill = (int)(frac * inner + 0.5);
	for (i = 0; i < inner; i++)
		buf[i] = i < fill ? '|' : ' ';
	buf[inner] = '\0';
	put(gr, row, col + lw + 1, level(frac), buf);
	i = (int)strlen(text);
	if (i < inner)
		put(gr, row, col + lw + 1 + inner - i, C_NONE, text);
}

static double gib(uint64_t b)
{
	return (double)b / (1024.0 * 1024.0 * 1024.0);
}

/* Sort value of a GPU (larger first), -1 when it has none. */
static double sort_value(const struct tgpu *g, enum sort_key k)
{
	const struct gpu_sample *s = &g->s;
	if (g->rc != GPU_OK)
		return -1;
	switch (k) {
	case SORT_UTIL:
		if (GPU_GPM_HAS(&g->gpm, sm_active_pct))
			return g->gpm.sm_active_pct;
		return GPU_SAMPLE_HAS(s, util_gpu_pct) ? (double)s->util_gpu_pct : -1;
	case SORT_MEM:
		return GPU_SAMPLE_HAS(s, fb_used_bytes) ? (double)s->fb_used_bytes : -1;
	case SORT_POWER:
		return GPU_SAMPLE_HAS(s, power_mw) ? (double)s->power_mw : -1;
	case SORT_TEMP:
		return GPU_SAMPLE_HAS(s, temp_gpu_c) ? (double)s->temp_gpu_c : -1;
	default:
		return -1;
	}
}

static const struct top *sort_ctx;
static int cmp_gpu(const void *a, const void *b)
{
	const struct tgpu *x = sort_ctx->g + *(const unsigned *)a, *y = sort_ctx->g + *(const unsigned *)b;
	double vx = sort_value(x, sort_ctx->sort), vy = sort_value(y, sort_ctx->sort);
	if (vx != vy)
		return vx < vy ? 1 : -1;
	return *(const unsigned *)a < *(const unsigned *)b ? -1 : 1;
}

static int matches(const struct top *t, const struct tgpu *g, unsigned i)
{
	char idx[16];
	if (!t->filter[0])
		return 1;
	snprintf(idx, sizeof(idx), "%u", GPU_STATIC_HAS(&g->st, index) ? g->st.index : i);
	/* a number is an index ("3" is in every "HBM3"); other text a part of the name or UUID */
	if (strspn(t->filter, "0123456789") == strlen(t->filter))
		return !strcmp(idx, t->filter);
	return g->have_static && (strstr(g->st.name, t->filter) || strstr(g->st.uuid, t->filter));
}

/* The throttle reasons in force, "none" when clocks run free. */
static void throttle_text(const struct gpu_sample *s, char *buf, size_t len)
{
	uint64_t bit;
	size_t l = 0;
	buf[0] = '\0';
	if (!GPU_SAMPLE_HAS(s, clock_event_reasons)) {
		snprintf(buf, len, "n/a");
		return;
	}
	for (bit = GPU_CLOCK_EVENT_APP_CLOCKS; bit <= GPU_CLOCK_EVENT_DISPLAY_CLOCKS; bit <<= 1)
		if ((s->clock_event_reasons & bit) && gpu_clock_event_name(bit) && l < len)
			l += (size_t)snprintf(buf + l, len - l, "%s%s", l ? "," : "", gpu_clock_event_name(bit));
	if (!l)
		snprintf(buf, len, (s->clock_event_reasons & GPU_CLOCK_EVENT_GPU_IDLE) ? "idle" : "none");
}

/* Draws one GPU's block from row r; returns the next free row. */
static int draw_gpu(struct grid *gr, int r, const struct tgpu *g, unsigned i)
{
	const struct gpu_sample *s = &g->s;
	const struct gpu_static *st = &g->st;
	unsigned idx = GPU_STATIC_HAS(st, index) ? st->index : i;
	int w = gr->cols, half = (w - 1) / 2;
	char text[64], thr[160];
	double f;

	putf(gr, r, 0, C_HEAD, "GPU %-2u %.32s", idx, g->have_static ? st->name : "?");
	if (g->rc != GPU_OK) {
		putf(gr, r, 40, C_HIGH, "%s", g->rc == GPU_ERR_LOST ? "LOST: fell off the bus" : gpu_rc_name(g->rc));
		return r + 1;
	}
	text[0] = '\0';
	if (GPU_SAMPLE_HAS(s, pstate))
		putf(gr, r, 40, C_NONE, "P%u", s->pstate);
	if (GPU_SAMPLE_HAS(s, clock_sm_mhz))
		putf(gr, r, 45, C_NONE, "SM %4u MHz", s->clock_sm_mhz);
	if (GPU_SAMPLE_HAS(s, clock_mem_mhz))
		putf(gr, r, 58, C_NONE, "MEM %4u MHz", s->clock_mem_mhz);
	if (w >= 100 && g->have_static)
		putf(gr, r, 72, C_DIM, "%.27s", st->pci_bus_id);
	r++;

	f = GPU_SAMPLE_HAS(s, util_gpu_pct) ? s->util_gpu_pct / 100.0 : -1;
	snprintf(text, sizeof(text), "%.0f%%", f * 100);
	bar(gr, r, 1, half - 1, "util ", f, text);
	f = -1;
	if (GPU_SAMPLE_HAS(s, fb_used_bytes) && GPU_SAMPLE_HAS(s, fb_total_bytes) && s->fb_total_bytes) {
		f = (double)s->fb_used_bytes / (double)s->fb_total_bytes;
		snprintf(text, sizeof(text), "%.1f/%.1fG", gib(s->fb_used_bytes), gib(s->fb_total_bytes));
	}
	bar(gr, r, half + 1, w - half - 1, "mem  ", f, text);
	r++;

	f = -1;
	if (GPU_SAMPLE_HAS(s, power_mw) && GPU_STATIC_HAS(st, power_limit_mw) && st->power_limit_mw) {
		f = (double)s->power_mw / st->power_limit_mw;
		snprintf(text, sizeof(text), "%u/%uW", s->power_mw / 1000, st->power_limit_mw / 1000);
	} else if (GPU_SAMPLE_HAS(s, power_mw)) {
		f = 0;
		snprintf(text, sizeof(text), "%uW", s->power_mw / 1000);
	}
	bar(gr, r, 1, half - 1, "power", f, text);
	f = -1;
	if (GPU_SAMPLE_HAS(s, temp_gpu_c)) {
		unsigned lim = GPU_STATIC_HAS(st, temp_slowdown_c) && st->temp_slowdown_c ? st->temp_slowdown_c : 90;
		f = (double)s->temp_gpu_c / lim;
		snprintf(text, sizeof(text), "%uC", s->temp_gpu_c);
	}
	bar(gr, r, half + 1, w - half - 1, "temp ", f, text);
	r++;

	if (GPU_GPM_HAS(&g->gpm, sm_active_pct) || GPU_GPM_HAS(&g->gpm, tensor_active_pct)) {
		f = GPU_GPM_HAS(&g->gpm, sm_active_pct) ? g->gpm.sm_active_pct / 100.0 : -1;
		snprintf(text, sizeof(text), "%.0f%%", f * 100);
		bar(gr, r, 1, half - 1, "sm   ", f, text);
		f = GPU_GPM_HAS(&g->gpm, tensor_active_pct) ? g->gpm.tensor_active_pct / 100.0 : -1;
		snprintf(text, sizeof(text), "%.0f%%", f * 100);
		bar(gr, r, half + 1, w - half - 1, "tensr", f, text);
		r++;
	}
	throttle_text(s, thr, sizeof(thr));
	putf(gr, r, 1, C_HEAD, "throttle");
	put(gr, r, 10, !strcmp(thr, "none") || !strcmp(thr, "idle") || !strcmp(thr, "n/a") ? C_NONE : C_HIGH, thr);
	return r + 1;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct tproc *x = a, *y = b;
	if (x->gpu != y->gpu)
		return x->gpu < y->gpu ? -1 : 1;
	if (x->mem != y->mem)
		return x->mem < y->mem ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void draw(struct top *t, struct grid *gr)
{
	unsigned *order = xcalloc(t->n ? t->n : 1, sizeof(*order));
	unsigned i, shown = 0;
	int r = 0;
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	const struct gpu_static *st0 = t->n && t->g[0].have_static ? &t->g[0].st : NULL;

	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	for (i = 0; i < t->n; i++)
		order[i] = i;
	sort_ctx = t;
	if (t->sort != SORT_INDEX)
		qsort(order, t->n, sizeof(*order), cmp_gpu);
	putf(gr, r, 0, C_HEAD, "gpuscope top  %u GPU%s  driver %s  %s  sort %s%s%s", t->n, t->n == 1 ? "" : "s",
	     st0 && GPU_STATIC_HAS(st0, driver_version) ? st0->driver_version : "?", when,
	     sort_names[t->sort], t->filter[0] ? "  filter " : "", t->filter);
	r += 2;
	for (i = 0; i < t->n; i++) {
		const struct tgpu *g = &t->g[order[i]];
		if (!matches(t, g, order[i]))
			continue;
		r = draw_gpu(gr, r, g, order[i]);
		shown++;
	}
	if (!shown)
		put(gr, r++, 1, C_DIM, "no GPU matches the filter");
	r++;
	if (t->procs) {
		size_t k;
		putf(gr, r++, 0, C_HEAD, "%-4s %-8s %-12s %-13s %10s  %s", "GPU", "PID", "USER", "CONTAINER", "MEMORY",
		     "COMMAND");
		if (t->np)
			qsort(t->p, t->np, sizeof(*t->p), cmp_proc);
		for (k = 0; k < t->np; k++) {
			const struct tproc *q = &t->p[k];
			char mem[32];
			if (q->mem_valid)
				snprintf(mem, sizeof(mem), "%.1f GiB", gib(q->mem));
			else
				snprintf(mem, sizeof(mem), "n/a");
			putf(gr, r++, 0, C_NONE, "%-4u %-8u %-12.12s %-13s %10s  %s", q->gpu, q->pid,
			     q->user[0] ? q->user : "-", q->container[0] ? q->container : "-", mem,
			     q->comm[0] ? q->comm : "?");
		}
		if (!t->np)
			put(gr, r++, 1, C_DIM, "no process holds a GPU");
		r++;
	}
	putf(gr, r++, 0, C_HEAD, "XIDS since start: %llu", (unsigned long long)t->xids_total);
	for (i = 0; i < t->nxids; i++) {
		char ts[16];
		localtime_r(&t->xids[i].when, &tm);
		strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
		putf(gr, r++, 1, C_HIGH, "%s  gpu %u  xid %llu", ts, t->xids[i].gpu,
		     (unsigned long long)t->xids[i].code);
	}
	free(order);
}

/* ---- output ---- */

static void print_plain(const struct grid *gr, FILE *out)
{
	int r;
	for (r = 0; r < gr->used; r++) {
		const char *row = gr->cell + (size_t)r * (size_t)gr->cols;
		int n = gr->cols;
		while (n > 0 && row[n - 1] == ' ')
			n--;
		fprintf(out, "%.*s\n", n, row);
	}
}

static int plain_width(void)
{
	const char *c = getenv("COLUMNS");
	long w = c ? strtol(c, NULL, 10) : 0;
	return w >= 60 && w <= 400 ? (int)w : 100;
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void run_plain(struct top *t, long n)
{
	long it;
	for (it = 0; it < n; it++) {
		struct grid gr;
		if (it) {
			sleep_s(interval_s);
			putchar('\n');
		}
		refresh_gpus(t);
		refresh_xids(t);
		grid_init(&gr, 40, plain_width(), 1);
		draw(t, &gr);
		print_plain(&gr, stdout);
		grid_free(&gr);
		fflush(stdout);
	}
}

#ifdef GPUSCOPE_HAVE_CURSES
static const short pair_fg[NCOLORS] = {-1, COLOR_GREEN, COLOR_YELLOW, COLOR_RED, COLOR_CYAN, COLOR_BLUE};

static void show(const struct top *t, const struct grid *gr)
{
	int r, c;
	erase();
	for (r = 0; r < gr->rows && r < LINES; r++)
		for (c = 0; c < gr->cols && c < COLS;) {
			size_t at = (size_t)r * (size_t)gr->cols + (size_t)c;
			int color = gr->color[at], k = c;
			attr_t a;
			while (k < gr->cols && k < COLS && gr->color[(size_t)r * (size_t)gr->cols + (size_t)k] == color)
				k++;
			a = t->color && color ? COLOR_PAIR(color) : A_NORMAL;
			if (color == C_HEAD)
				a |= A_BOLD;
			attrset(a);
			mvaddnstr(r, c, gr->cell + at, k - c);
			c = k;
		}
	attrset(A_NORMAL);
	mvaddnstr(LINES - 1, 0, "q quit  s sort  / filter  p processes  c colour", COLS);
	/* ncurses sends only the cells that changed: no flicker */
	refresh();
}

/* Reads a filter at the bottom line; Enter applies, empty clears. */
static void prompt_filter(struct top *t)
{
	char buf[64] = "";
	move(LINES - 1, 0);
	clrtoeol();
	addstr("filter: ");
	echo();
	curs_set(1);
	timeout(-1);
	if (getnstr(buf, (int)sizeof(buf) - 1) == OK)
		snprintf(t->filter, sizeof(t->filter), "%s", buf);
	noecho();
	curs_set(0);
}

/*
 * getch() returned ERR before its timeout: a signal, or the end of input
 * (stdin is /dev/null, a closed pipe, a pty whose other side went away),
 * where every later getch() returns ERR at once.  Input has ended when
 * stdin reports a hang-up or error, or says it is readable although
 * ncurses just read nothing from it.
 */
static int input_ended(void)
{
	struct pollfd p = {STDIN_FILENO, POLLIN, 0};
	int rc;
	while ((rc = poll(&p, 1, 0)) < 0 && errno == EINTR)
		;
	return rc < 0 || (rc > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL | POLLIN)));
}

/* Returns 0 when curses could not start (the caller falls back to plain). */
static int run_tui(struct top *t, long n)
{
	const char *term = getenv("TERM");
	SCREEN *scr = newterm(term && *term ? term : "xterm", stdout, stdin);
	long it = 0;
	int quit = 0, k, no_input = 0;
	if (!scr)
		return 0;
	set_term(scr);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	if (t->color && has_colors()) {
		start_color();
		use_default_colors();
		for (k = 1; k < NCOLORS; k++)
			init_pair((short)k, pair_fg[k], -1);
	} else {
		t->color = 0;
	}
	while (!quit && (!n || it < n)) {
		struct grid gr;
		double next;
		refresh_gpus(t);
		refresh_xids(t);
		grid_init(&gr, LINES > 1 ? LINES - 1 : 1, COLS > 0 ? COLS : 80, 0);
		draw(t, &gr);
		show(t, &gr);
		grid_free(&gr);
		it++;
		if (n && it >= n)
			break;
		/* wait for the interval, answering keys as they come */
		next = interval_s;
		while (!quit && next > 0) {
			struct timespec a, b;
			if (no_input) {
				/* nothing to read any more: just wait for the next frame */
				sleep_s(next);
				break;
			}
			clock_gettime(CLOCK_MONOTONIC, &a);
			timeout((int)(next * 1000));
			k = getch();
			clock_gettime(CLOCK_MONOTONIC, &b);
			next -= (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
			if (k == ERR) {
				if (next <= 0.001)
					break;  /* the timeout: the next frame */
				/* ERR with time left is no timeout: at the end of input it comes at once, every time */
				if (input_ended())
					no_input = 1;
				continue;
			}
			if (k == 'q' || k == 'Q')
				quit = 1;
			else if (k == 's')
				t->sort = (enum sort_key)((t->sort + 1) % NSORT);
			else if (k == 'p')
				t->procs = !t->procs;
			else if (k == 'c')
				t->color = !t->color && has_colors();
			else if (k == '/')
				prompt_filter(t);
			else if (k != KEY_RESIZE)
				continue;
			/* a key that changes the view, or a resize: draw again now */
			grid_init(&gr, LINES > 1 ? LINES - 1 : 1, COLS > 0 ? COLS : 80, 0);
			draw(t, &gr);
			show(t, &gr);
			grid_free(&gr);
		}
	}
	endwin();
	delscreen(scr);
	return 1;
}
#endif

int cmd_top(int argc, char **argv)
{
	struct top t;
	struct gpu_device *const *devs = NULL;
	struct gpu_init_opts io;
	const char *term = getenv("TERM");
	unsigned i;
	int rc, k, tui;

	if (parse_options_or_exit(&top_cmd, argc, argv) > 0)
		die_usage("gpuscope top: unexpected argument '%s'", argv[0]);
	memset(&t, 0, sizeof(t));
	for (k = 0; k < NSORT && strcmp(sort_opt, sort_names[k]); k++)
		;
	if (k == NSORT)
		die_usage("gpuscope top: option '--sort' must be index, util, memory, power or temp, got '%s'",
			  sort_opt);
	t.sort = (enum sort_key)k;
	if (!(interval_s >= 0.05 && interval_s <= 3600))
		die_usage("gpuscope top: option '--interval' must be between 50ms and 1h");
	if (once_flag && iterations)
		die_usage("gpuscope top: --once and --iterations do not go together");
	if (filter_opt)
		snprintf(t.filter, sizeof(t.filter), "%s", filter_opt);
	t.procs = !no_procs;
	t.color = !no_color && !getenv("NO_COLOR");

	t.b = gpu_backend_find("nvml");
	io.library_path = nvml_path;
	rc = t.b ? t.b->init(&io) : GPU_ERR_NO_LIBRARY;
	if (rc != GPU_OK)
		die_code(EXIT_ENV, "gpuscope top: %s", t.b ? t.b->last_error() : "no GPU backend");
	if (t.b->enumerate(&devs, &t.n) != GPU_OK || !t.n) {
		t.b->shutdown();
		die_code(EXIT_ENV, "gpuscope top: the driver sees no GPU");
	}
	t.g = xcalloc(t.n, sizeof(*t.g));
	for (i = 0; i < t.n; i++)
		t.g[i].dev = devs[i];

	tui = !once_flag && !plain_flag && (tui_flag || (isatty(STDOUT_FILENO) && term && *term && strcmp(term, "dumb")));
	if (once_flag) {
		/* GPM needs two samples: take the first, then the frame 100 ms later */
		refresh_gpus(&t);
		sleep_s(0.1);
		run_plain(&t, 1);
	} else {
#ifdef GPUSCOPE_HAVE_CURSES
		if (!tui || !run_tui(&t, iterations))
#endif
			run_plain(&t, iterations ? iterations : 1000000000L);
	}
	(void)tui;
	t.b->shutdown();
	free(t.g);
	free(t.p);
	return EXIT_OK;
}
