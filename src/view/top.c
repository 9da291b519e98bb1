#include "view/top.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef GPUSCOPE_HAVE_CURSES
#include <curses.h>
#endif

#include "util/error.h"
#include "util/xalloc.h"

/* ---- the grid a frame is drawn into ---- */

enum color {
	C_NONE,
	C_LOW,
	C_MID,
	C_HIGH,
	C_HEAD,
	C_DIM,
	NCOLORS
};

struct grid {
	int rows, cols;
	int grow; /* plain text: rows grow as the frame needs */
	char *cell;
	unsigned char *color;
	int used; /* rows written */
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
		memset(gr->cell + (size_t)gr->rows * (size_t)gr->cols, ' ',
		       (size_t)(nrows - gr->rows) * (size_t)gr->cols);
		memset(gr->color + (size_t)gr->rows * (size_t)gr->cols, 0,
		       (size_t)(nrows - gr->rows) * (size_t)gr->cols);
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
static void bar(struct grid *gr, int row, int col, int width, const char *label, double frac, const char *text)
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

/* A bar of a percentage: frac 0..1, < 0 when absent. */
static void pct_bar(struct grid *gr, int row, int col, int width, const char *label, double frac)
{
	char text[16];
	snprintf(text, sizeof(text), "%.0f%%", frac * 100);
	bar(gr, row, col, width, label, frac, text);
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

/* The GPU's title line: name, then P-state and clocks (or why it has no sample). */
static void gpu_title(struct grid *gr, int r, const struct live_gpu *g, unsigned idx)
{
	const struct gpu_sample *s = &g->s;
	putf(gr, r, 0, C_HEAD, "GPU %-2u %.32s", idx, g->have_static ? g->st.name : "?");
	if (g->rc != GPU_OK) {
		putf(gr, r, 40, C_HIGH, "%s",
		     g->rc == GPU_ERR_LOST ? "LOST: fell off the bus" : gpu_rc_name(g->rc));
		return;
	}
	if (GPU_SAMPLE_HAS(s, pstate))
		putf(gr, r, 40, C_NONE, "P%u", s->pstate);
	if (GPU_SAMPLE_HAS(s, clock_sm_mhz))
		putf(gr, r, 45, C_NONE, "SM %4u MHz", s->clock_sm_mhz);
	if (GPU_SAMPLE_HAS(s, clock_mem_mhz))
		putf(gr, r, 58, C_NONE, "MEM %4u MHz", s->clock_mem_mhz);
	if (gr->cols >= 100 && g->have_static)
		putf(gr, r, 72, C_DIM, "%.27s", g->st.pci_bus_id);
}

/*
 * What a GPU's bars and line show, each a share 0..1 (< 0 when the GPU does
 * not report it) and its text: power against the limit, temperature against
 * the slowdown threshold (90 C when unknown).
 */
struct readings {
	double util, mem, power, temp, sm, tensor;
	char mem_t[32], power_t[32], temp_t[16];
};

static void readings_of(const struct live_gpu *g, struct readings *o)
{
	const struct gpu_sample *s = &g->s;
	const struct gpu_static *st = &g->st;
	memset(o, 0, sizeof(*o));
	o->util = GPU_SAMPLE_HAS(s, util_gpu_pct) ? s->util_gpu_pct / 100.0 : -1;
	o->mem = o->power = o->temp = -1;
	if (GPU_SAMPLE_HAS(s, fb_used_bytes) && GPU_SAMPLE_HAS(s, fb_total_bytes) && s->fb_total_bytes) {
		o->mem = (double)s->fb_used_bytes / (double)s->fb_total_bytes;
		snprintf(o->mem_t, sizeof(o->mem_t), "%.1f/%.1fG", gib(s->fb_used_bytes), gib(s->fb_total_bytes));
	}
	if (GPU_SAMPLE_HAS(s, power_mw) && GPU_STATIC_HAS(st, power_limit_mw) && st->power_limit_mw) {
		o->power = (double)s->power_mw / st->power_limit_mw;
		snprintf(o->power_t, sizeof(o->power_t), "%u/%uW", s->power_mw / 1000, st->power_limit_mw / 1000);
	} else if (GPU_SAMPLE_HAS(s, power_mw)) {
		o->power = 0;
		snprintf(o->power_t, sizeof(o->power_t), "%uW", s->power_mw / 1000);
	}
	if (GPU_SAMPLE_HAS(s, temp_gpu_c)) {
		unsigned lim = GPU_STATIC_HAS(st, temp_slowdown_c) && st->temp_slowdown_c ? st->temp_slowdown_c :
											    90;
		o->temp = (double)s->temp_gpu_c / lim;
		snprintf(o->temp_t, sizeof(o->temp_t), "%uC", s->temp_gpu_c);
	}
	o->sm = GPU_GPM_HAS(&g->gpm, sm_active_pct) ? g->gpm.sm_active_pct / 100.0 : -1;
	o->tensor = GPU_GPM_HAS(&g->gpm, tensor_active_pct) ? g->gpm.tensor_active_pct / 100.0 : -1;
}

/* The rows draw_gpu() takes for g. */
static int gpu_rows(const struct live_gpu *g)
{
	if (g->rc != GPU_OK)
		return 1;
	return GPU_GPM_HAS(&g->gpm, sm_active_pct) || GPU_GPM_HAS(&g->gpm, tensor_active_pct) ? 5 : 4;
}

static void put_throttle(struct grid *gr, int r, int c, const struct gpu_sample *s)
{
	char thr[160];
	throttle_text(s, thr, sizeof(thr));
	put(gr, r, c, !strcmp(thr, "none") || !strcmp(thr, "idle") || !strcmp(thr, "n/a") ? C_NONE : C_HIGH, thr);
}

/* Draws one GPU's block from row r; returns the next free row. */
static int draw_gpu(struct grid *gr, int r, const struct live_gpu *g, unsigned idx)
{
	int w = gr->cols, half = (w - 1) / 2;
	struct readings o;

	gpu_title(gr, r++, g, idx);
	if (g->rc != GPU_OK)
		return r;
	readings_of(g, &o);
	pct_bar(gr, r, 1, half - 1, "util ", o.util);
	bar(gr, r++, half + 1, w - half - 1, "mem  ", o.mem, o.mem_t);
	bar(gr, r, 1, half - 1, "power", o.power, o.power_t);
	bar(gr, r++, half + 1, w - half - 1, "temp ", o.temp, o.temp_t);
	if (gpu_rows(g) == 5) {
		pct_bar(gr, r, 1, half - 1, "sm   ", o.sm);
		pct_bar(gr, r++, half + 1, w - half - 1, "tensr", o.tensor);
	}
	putf(gr, r, 1, C_HEAD, "throttle");
	put_throttle(gr, r, 10, &g->s);
	return r + 1;
}

/* A share as "62%" in its level's colour at (r, c), "-" when absent. */
static void put_share(struct grid *gr, int r, int c, double frac, const char *text)
{
	char pct[16];
	if (frac < 0) {
		put(gr, r, c, C_DIM, "-");
		return;
	}
	if (!text) {
		snprintf(pct, sizeof(pct), "%.0f%%", frac * 100);
		text = pct;
	}
	put(gr, r, c, level(frac), text);
}

/* The compact layout: a GPU a line under one header, 80 columns, for the hosts of 72 GPUs. */
#define LINE_HEAD "GPU NAME               UTIL  MEM          POWER      TEMP  SM    THROTTLE"
static void draw_gpu_line(struct grid *gr, int r, const struct live_gpu *g, unsigned idx)
{
	struct readings o;
	const char *name = g->have_static ? g->st.name : "?";
	/* 80 columns: the vendor's prefix is the same on every line */
	if (!strncmp(name, "NVIDIA ", 7))
		name += 7;
	putf(gr, r, 0, C_HEAD, "%3u", idx);
	putf(gr, r, 4, C_NONE, "%.18s", name);
	if (g->rc != GPU_OK) {
		put(gr, r, 23, C_HIGH, g->rc == GPU_ERR_LOST ? "LOST: fell off the bus" : gpu_rc_name(g->rc));
		return;
	}
	readings_of(g, &o);
	put_share(gr, r, 23, o.util, NULL);
	put_share(gr, r, 29, o.mem, o.mem_t);
	put_share(gr, r, 42, o.power, o.power_t);
	put_share(gr, r, 53, o.temp, o.temp_t);
	put_share(gr, r, 59, o.sm, NULL);
	put_throttle(gr, r, 65, &g->s);
}

static int draw_procs(struct grid *gr, int r, const struct live *t)
{
	size_t k;
	putf(gr, r++, 0, C_HEAD, "%-4s %-8s %-12s %-13s %10s  %s", "GPU", "PID", "USER", "CONTAINER", "MEMORY",
	     "COMMAND");
	for (k = 0; k < t->np; k++) {
		const struct live_proc *q = &t->p[k];
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
	return r + 1;
}

/* The rows the processes and XIDs below the GPUs want. */
static int bottom_rows(const struct live *t)
{
	return (t->procs ? (int)(t->np ? t->np : 1) + 2 : 0) + 1 + (int)t->nxids;
}

/*
 * The GPUs from t->first (clamped) that fit `avail` rows, in the layout
 * chosen; returns how many.  Sets *compact.  avail 0: every GPU (plain text).
 * The last page is kept full: scrolling past the end shows the last GPUs.
 */
static unsigned fit_gpus(struct live *t, const unsigned *order, unsigned shown, int avail, int *compact)
{
	unsigned i, k, lo;
	int need = 0, add;
	for (i = 0; i < shown; i++)
		need += gpu_rows(&t->g[order[i]]);
	*compact = t->layout == LIVE_LAYOUT_COMPACT || (t->layout == LIVE_LAYOUT_AUTO && avail && need > avail);
	if (!avail || (!*compact && need <= avail) || (*compact && (int)shown + 1 <= avail)) {
		t->first = 0;
		return shown;
	}
	if (*compact)
		avail--; /* the header line */
	lo = t->first < shown ? t->first : shown - 1;
	/* back up while the GPUs from lo to the end leave room */
	for (need = 0, i = lo; i < shown; i++)
		need += *compact ? 1 : gpu_rows(&t->g[order[i]]);
	while (lo > 0) {
		add = *compact ? 1 : gpu_rows(&t->g[order[lo - 1]]);
		if (need + add > avail)
			break;
		need += add;
		lo--;
	}
	t->first = lo;
	for (need = 0, k = 0; lo + k < shown; k++) {
		need += *compact ? 1 : gpu_rows(&t->g[order[lo + k]]);
		if (need > avail)
			break;
	}
	return k ? k : 1;
}

/*
 * Draws a frame; rows: the screen's rows (0: as many as the frame needs).
 * Returns how many GPUs it showed (a page, for scrolling); *compact says in
 * which layout.
 */
static unsigned draw(struct live *t, struct grid *gr, int rows, int *compact)
{
	unsigned *order = xcalloc(t->n ? t->n : 1, sizeof(*order));
	unsigned i, shown = live_frame(t, order), k;
	int r = 0, avail = 0;
	char when[32], range[48] = "";
	time_t now = time(NULL);
	struct tm tm;
	const struct gpu_static *st0 = t->n && t->g[0].have_static ? &t->g[0].st : NULL;

	if (rows) {
		/* the GPUs get what the header and at most a third for the processes and XIDs leave */
		int below = bottom_rows(t) + 1;
		avail = rows - 2 - (below < rows / 3 ? below : rows / 3);
		if (avail < 1)
			avail = 1;
	}
	k = fit_gpus(t, order, shown, avail, compact);
	if (k < shown)
		snprintf(range, sizeof(range), "  GPUs %u-%u of %u", t->first + 1, t->first + k, shown);
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	putf(gr, r, 0, C_HEAD, "gpuscope top  %u GPU%s  driver %s  %s  sort %s%s%s%s", t->n, t->n == 1 ? "" : "s",
	     st0 && GPU_STATIC_HAS(st0, driver_version) ? st0->driver_version : "?", when, live_sort_name(t->sort),
	     t->filter[0] ? "  filter " : "", t->filter, range);
	r += 2;
	if (*compact && shown)
		put(gr, r++, 0, C_HEAD, LINE_HEAD);
	for (i = t->first; i < t->first + k; i++) {
		const struct live_gpu *g = &t->g[order[i]];
		if (*compact)
			draw_gpu_line(gr, r++, g, live_gpu_index(t, order[i]));
		else
			r = draw_gpu(gr, r, g, live_gpu_index(t, order[i]));
	}
	if (!shown)
		put(gr, r++, 1, C_DIM, "no GPU matches the filter");
	r++;
	if (t->procs)
		r = draw_procs(gr, r, t);
	putf(gr, r++, 0, C_HEAD, "XIDS since start: %llu", (unsigned long long)t->xids_total);
	for (i = 0; i < t->nxids; i++) {
		char ts[16];
		localtime_r(&t->xids[i].when, &tm);
		strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
		putf(gr, r++, 1, C_HIGH, "%s  gpu %u  xid %llu", ts, t->xids[i].gpu,
		     (unsigned long long)t->xids[i].code);
	}
	free(order);
	return k;
}

/* ---- plain text ---- */

static int plain_width(void)
{
	const char *c = getenv("COLUMNS");
	long w = c ? strtol(c, NULL, 10) : 0;
	return w >= 60 && w <= 400 ? (int)w : 100;
}

void view_top_print(FILE *out, struct live *t)
{
	struct grid gr;
	int r;
	int compact;
	grid_init(&gr, 40, plain_width(), 1);
	draw(t, &gr, 0, &compact);
	for (r = 0; r < gr.used; r++) {
		const char *row = gr.cell + (size_t)r * (size_t)gr.cols;
		int n = gr.cols;
		while (n > 0 && row[n - 1] == ' ')
			n--;
		fprintf(out, "%.*s\n", n, row);
	}
	grid_free(&gr);
}

/* ---- the full screen ---- */

#ifdef GPUSCOPE_HAVE_CURSES
struct view_top_tui {
	SCREEN *scr;
	int color;
	unsigned page; /* the GPUs the last frame showed */
	int compact;   /* the last frame's layout */
	int no_input;  /* stdin has ended: every getch() fails at once */
};

static const short pair_fg[NCOLORS] = {-1, COLOR_GREEN, COLOR_YELLOW, COLOR_RED, COLOR_CYAN, COLOR_BLUE};

struct view_top_tui *view_top_tui_start(int color)
{
	const char *term = getenv("TERM");
	SCREEN *scr = newterm(term && *term ? term : "xterm", stdout, stdin);
	struct view_top_tui *ui;
	short k;
	if (!scr)
		return NULL;
	ui = xcalloc(1, sizeof(*ui));
	ui->scr = scr;
	set_term(scr);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	ui->color = color && has_colors();
	if (ui->color) {
		start_color();
		use_default_colors();
		for (k = 1; k < NCOLORS; k++)
			init_pair(k, pair_fg[k], -1);
	}
	return ui;
}

void view_top_tui_end(struct view_top_tui *ui)
{
	endwin();
	delscreen(ui->scr);
	free(ui);
}

void view_top_tui_draw(struct view_top_tui *ui, struct live *t)
{
	struct grid gr;
	int r, c;
	grid_init(&gr, LINES > 1 ? LINES - 1 : 1, COLS > 0 ? COLS : 80, 0);
	ui->page = draw(t, &gr, gr.rows, &ui->compact);
	erase();
	for (r = 0; r < gr.rows && r < LINES; r++)
		for (c = 0; c < gr.cols && c < COLS;) {
			size_t at = (size_t)r * (size_t)gr.cols + (size_t)c;
			int color = gr.color[at], k = c;
			attr_t a;
			while (k < gr.cols && k < COLS &&
			       gr.color[(size_t)r * (size_t)gr.cols + (size_t)k] == color)
				k++;
			a = ui->color && color ? COLOR_PAIR(color) : A_NORMAL;
			if (color == C_HEAD)
				a |= A_BOLD;
			attrset(a);
			mvaddnstr(r, c, gr.cell + at, k - c);
			c = k;
		}
	attrset(A_NORMAL);
	mvaddnstr(LINES - 1, 0,
		  "q quit  s sort  / filter  p processes  v layout  c colour  arrows PgUp PgDn scroll", COLS);
	/* ncurses sends only the cells that changed: no flicker */
	refresh();
	grid_free(&gr);
}

void view_top_tui_prompt(struct view_top_tui *ui, char *filter, size_t len)
{
	char buf[64] = "";
	move(LINES - 1, 0);
	clrtoeol();
	addstr("filter: ");
	echo();
	curs_set(1);
	timeout(-1);
	if (getnstr(buf, (int)sizeof(buf) - 1) == OK)
		snprintf(filter, len, "%s", buf);
	noecho();
	curs_set(0);
}

void view_top_tui_toggle_color(struct view_top_tui *ui)
{
	ui->color = !ui->color && has_colors();
}

int view_top_tui_scroll(struct view_top_tui *ui, struct live *t, int key)
{
	unsigned page = ui->page ? ui->page : 1;
	switch (key) {
	case KEY_DOWN:
	case 'j':
		t->first++;
		break;
	case KEY_UP:
	case 'k':
		t->first -= t->first > 0;
		break;
	case KEY_NPAGE:
	case ' ':
		t->first += page;
		break;
	case KEY_PPAGE:
		t->first = t->first > page ? t->first - page : 0;
		break;
	case KEY_HOME:
	case 'g':
		t->first = 0;
		break;
	case KEY_END:
	case 'G':
		t->first = t->n; /* the next frame backs up to the last page */
		break;
	case 'v':
		t->layout = ui->compact ? LIVE_LAYOUT_FULL : LIVE_LAYOUT_COMPACT;
		break;
	default:
		return 0;
	}
	/* most of the screen changes: repaint it whole rather than as a diff */
	clearok(stdscr, TRUE);
	return 1;
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

int view_top_tui_key(struct view_top_tui *ui, double *left_s)
{
	while (*left_s > 0) {
		struct timespec a, b;
		int k;
		if (ui->no_input) {
			/* nothing to read any more: just wait for the next frame */
			live_sleep(*left_s);
			*left_s = 0;
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &a);
		timeout((int)(*left_s * 1000));
		k = getch();
		clock_gettime(CLOCK_MONOTONIC, &b);
		*left_s -= (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
		if (k == KEY_RESIZE)
			return VIEW_TOP_RESIZE;
		if (k != ERR)
			return k;
		if (*left_s <= 0.001)
			break; /* the timeout: the next frame */
		/* ERR with time left is no timeout: at the end of input it comes at once, every time */
		if (input_ended())
			ui->no_input = 1;
	}
	return VIEW_TOP_TIMEOUT;
}
#else
struct view_top_tui *view_top_tui_start(int color)
{
	return NULL;
}
void view_top_tui_end(struct view_top_tui *ui)
{
}
void view_top_tui_draw(struct view_top_tui *ui, struct live *t)
{
}
int view_top_tui_key(struct view_top_tui *ui, double *left_s)
{
	return VIEW_TOP_TIMEOUT;
}
void view_top_tui_prompt(struct view_top_tui *ui, char *filter, size_t len)
{
}
void view_top_tui_toggle_color(struct view_top_tui *ui)
{
}
int view_top_tui_scroll(struct view_top_tui *ui, struct live *t, int key)
{
	return 0;
}
#endif
