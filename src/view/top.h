/*
 * What `gpuscope top` draws: one frame of the live model (export/live.h)
 * into a grid of cells with a colour per cell.  On a terminal ncurses
 * shows the grid (it sends only what changed, so nothing flickers) and
 * follows resizes; anywhere else (a pipe, TERM=dumb, --once) the grid is
 * printed as plain text, which is how the tests run top under the
 * sanitizers.  Nothing here samples a GPU or exits.
 */
#ifndef GPUSCOPE_VIEW_TOP_H
#define GPUSCOPE_VIEW_TOP_H

#include <stddef.h>
#include <stdio.h>

#include "export/live.h"

/*
 * One frame as plain text, $COLUMNS wide (60 to 400; else 100), trailing
 * blanks cut: every GPU, a block each, or a line each with t->layout compact.
 */
void view_top_print(FILE *out, struct live *t);

/* ---- the full screen ---- */

struct view_top_tui;

/*
 * Takes over the terminal on stdin/stdout ($TERM, "xterm" when unset);
 * color: use colours where the terminal has them.  NULL when curses cannot
 * start or gpuscope was built without it (the caller prints plain frames).
 * End with view_top_tui_end().
 */
struct view_top_tui *view_top_tui_start(int color);
void view_top_tui_end(struct view_top_tui *ui);
/* Draws a frame with the key help on the bottom line. */
void view_top_tui_draw(struct view_top_tui *ui, struct live *t);

/* view_top_tui_key(): the time is up; the terminal changed size */
#define VIEW_TOP_TIMEOUT (-1)
#define VIEW_TOP_RESIZE (-2)
/*
 * Waits for a key until *left_s seconds have passed, counting them down;
 * returns the key, VIEW_TOP_RESIZE, or VIEW_TOP_TIMEOUT when the time is up.
 * Once input has ended (stdin closed or hung up) it just sleeps the time out.
 */
int view_top_tui_key(struct view_top_tui *ui, double *left_s);
/* Reads a filter on the bottom line into filter (len bytes); Enter applies, empty clears. */
void view_top_tui_prompt(struct view_top_tui *ui, char *filter, size_t len);
/*
 * Answers the keys that move through many GPUs: up/down (j/k) a GPU,
 * PgUp/PgDn (space) a screen, Home/End (g/G), v between a block of bars
 * per GPU and a line per GPU.  Returns 1 when key was one of them.
 */
int view_top_tui_scroll(struct view_top_tui *ui, struct live *t, int key);
/* Colour on or off (off stays off on a terminal without colours). */
void view_top_tui_toggle_color(struct view_top_tui *ui);

#endif
