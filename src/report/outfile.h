/*
 * Files the commands write (--report, check --output), replaced atomically
 * so a reader (a browser, node_exporter's textfile collector) never sees
 * half a file:
 *
 *   - a regular file or a name not yet there: written to a temporary made
 *     with mkstemp() (O_EXCL, a fresh name) in the same directory, then
 *     renamed over the name.  No fixed "PATH.tmp" that a planted symlink
 *     could redirect, and two runs writing the same name each get their own
 *     temporary: the last rename wins, whole.
 *   - a symbolic link: followed on purpose, once resolved with realpath():
 *     the file it points to is replaced as above and the link is kept.  A
 *     link to nothing is refused.
 *   - a device, FIFO or socket (/dev/stdout, /dev/null, a pipe): written in
 *     place; it is never replaced by a regular file.
 *
 * Library code: errors come back in struct diag, nothing is printed.
 */
#ifndef GPUSCOPE_REPORT_OUTFILE_H
#define GPUSCOPE_REPORT_OUTFILE_H

#include <stdio.h>

#include "util/error.h"

struct outfile {
	FILE *f;      /* write here */
	char *path;   /* as given, for messages */
	char *target; /* the regular file replaced at commit; NULL when written in place */
	char *tmp;    /* the temporary beside target; NULL when written in place */
};

/* Opens o->f for path.  Returns 0, or -1 with err naming the file. */
int outfile_open(struct outfile *o, const char *path, struct diag *err);
/*
 * Flushes, syncs and closes o->f, then renames the temporary over the
 * target.  Returns 0, or -1 with err (the temporary is removed).  Frees
 * what outfile_open() allocated either way.
 */
int outfile_commit(struct outfile *o, struct diag *err);
/* Closes and removes the temporary without replacing anything. */
void outfile_abort(struct outfile *o);

#endif
