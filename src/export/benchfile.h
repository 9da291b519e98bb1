/*
 * The last `gpuscope bench` result as metrics (`export --bench-file FILE`,
 * docs/export.md, "Bench results"): the calibration file bench --output or
 * --save writes, read again whenever its modification time, size or inode
 * changes, and served as gpuscope_bench_* gauges.  A file that is absent or
 * refused serves none of its figures, only gpuscope_bench_file_up 0 and the
 * error counter; the exporter carries on.
 */
#ifndef GPUSCOPE_EXPORT_BENCHFILE_H
#define GPUSCOPE_EXPORT_BENCHFILE_H

#include "export/expo.h"

struct export_bench;

/*
 * A watcher of path (copied).  Nothing is read until the first poll.
 * Returns a new watcher; free it with export_bench_free().
 */
struct export_bench *export_bench_new(const char *path);
void export_bench_free(struct export_bench *b);

/*
 * Looks at the file (one stat) and reads it again when it changed since
 * the last poll: 1 when it was read and is served, 0 when nothing changed,
 * -1 when it is absent or refused (logged once per change, and counted in
 * gpuscope_bench_file_errors_total when refused).  now_s: Unix time, for
 * gpuscope_bench_age_seconds.  Call from one thread at a time, as
 * export_bench_render().
 */
int export_bench_poll(struct export_bench *b, double now_s);

/* Writes the gpuscope_bench_* families of the last poll; nothing when b is NULL. */
void export_bench_render(const struct export_bench *b, struct expo_writer *w);

#endif
