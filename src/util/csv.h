/*
 * An RFC 4180 CSV reader that knows where every field came from, so loaders
 * can report "FILE:LINE:COL: field 'x': ..." for any cell.
 *
 * The reader works on a caller-owned buffer (the embedded catalog, or a file
 * read whole); it never copies the buffer, and the strings it hands out live
 * until the next csv_next() call or csv_free().
 */
#ifndef GPUSCOPE_UTIL_CSV_H
#define GPUSCOPE_UTIL_CSV_H

#include <stddef.h>
#include <stdio.h>
#include "util/error.h"

/* Longest line accepted, bytes: a guard against a runaway or binary file. */
#define CSV_MAX_LINE (64 * 1024)

struct csv_reader;

struct csv_record {
	size_t nfields;
	const char *const *fields; /* NUL-terminated, unquoted */
	const int *cols;           /* 1-based byte column where each field starts */
	int line;                  /* 1-based line where the record starts */
};

enum csv_flags {
	CSV_COMMENTS = 1, /* lines whose first byte is '#' are skipped */
};

/* name is used in diagnostics only.  Free with csv_free(). */
struct csv_reader *csv_open(const char *name, const char *buf, size_t len, int flags);
/*
 * Reads the next record, skipping blank lines (and comments with
 * CSV_COMMENTS).  Returns 1 with *rec filled, 0 at end of input, -1 on a
 * syntax error with *err filled (unterminated quote, stray quote, a line over
 * CSV_MAX_LINE, invalid UTF-8, a NUL byte).
 */
int csv_next(struct csv_reader *r, struct csv_record *rec, struct diag *err);
void csv_free(struct csv_reader *r);

/*
 * Copies a record (typically the header) so that it outlives the next
 * csv_next(): fields, columns and line.  *copy owns the copies; free them
 * with csv_record_release().
 */
void csv_record_copy(struct csv_record *copy, const struct csv_record *rec);
/* Frees what csv_record_copy() allocated and zeroes *rec; a zeroed record is a no-op. */
void csv_record_release(struct csv_record *rec);
/*
 * Finds each of names[0..n-1] among the header's fields: col[k] its index,
 * -1 when absent.  Returns 0, or -1 with err naming the file (`name`), line
 * and the first column absent that bit k of `optional` does not excuse.
 */
int csv_header_columns(const struct csv_record *hdr, const char *name, const char *const *names, int n,
		       unsigned long optional, int *col, struct diag *err);

/* ---- writing ---- */

/*
 * What a cell holds, for csv_write_cell().  A spreadsheet runs a cell that
 * starts with '=', '+', '-' or '@' (or a tab or carriage return before one)
 * as a formula, so a text cell that starts so is written as "'TEXT" (OWASP's
 * CSV injection advice): the quote makes the spreadsheet show it as text.
 * Numbers the program wrote (-0.5, -12) are left as they are.
 */
enum csv_cell {
	CSV_CELL_AUTO,   /* a number if csv_is_number(), else text */
	CSV_CELL_TEXT,   /* names, sources, notes: neutralised when they start as a formula */
	CSV_CELL_NUMBER, /* written by the program from a double or an integer: never changed */
};
/* Is s a decimal number and nothing else ("-0.5", "+8", "1e-05", "12")? */
int csv_is_number(const char *s);
/*
 * Writes one cell to out: RFC 4180 quoting when it holds ',', '"', CR or LF,
 * and the formula neutralisation above for text.
 */
void csv_write_cell(FILE *out, const char *s, enum csv_cell kind);

/* Reads a whole file into a NUL-terminated buffer; caller frees. -1 + err on failure. */
int csv_read_file(const char *path, char **buf, size_t *len, struct diag *err);

/* Checks that s[0..len) is valid UTF-8; returns the byte offset of the first bad byte or -1. */
long utf8_check(const char *s, size_t len);
/*
 * Replaces every byte of s that is not part of valid UTF-8 with '?', in
 * place, so text read from the system (process names, kernel log lines)
 * can go into JSON, which takes only valid UTF-8.
 */
void utf8_scrub(char *s);
/*
 * Replaces control characters in s with '?', in place: C0 (tab and line
 * breaks too), DEL, and C1 as UTF-8 (U+0080..U+009F), so text read from the
 * system (a process name, a kernel log line) cannot move a terminal's cursor
 * or start an escape sequence when printed.  Run utf8_scrub() first.
 */
void text_scrub_controls(char *s);
/* The longest prefix of s, at most max bytes, that does not end inside a character. */
size_t utf8_prefix(const char *s, size_t max);

#endif
