/*
 * csv.h - the comma-separated lines of traces and perf models.
 *
 * Plain CSV as request traces (docs/tuning.md, "Get your traffic into a
 * file") and Splitwise's perf model write it: no quoting, one record per
 * line.  Pure; thread-safe.
 */
#ifndef STAFFER_CSV_H
#define STAFFER_CSV_H

#include <stddef.h>
#include <stdio.h>

/*
 * Split line in place at commas into f[0..max-1].  Returns the field count,
 * or max + 1 when the line has more than max fields (f then holds the first
 * max, the last of them unsplit).  max must be >= 1.
 */
size_t csv_split(char *line, char **f, size_t max);

/* Trim spaces and tabs around s in place; returns the trimmed start. */
char *csv_trim(char *s);

/* Write s to fp as one CSV field, quoted when it must be (RFC 4180: a
 * comma, a quote or a line break in it), for the files the simulator
 * writes (a policy's name holds commas). */
void csv_put_field(FILE *fp, const char *s);

/* What csv_line() read. */
enum csv_line {
	CSV_LINE_OK,
	CSV_LINE_EOF,       /* no more lines (or a read error: ferror()) */
	CSV_LINE_LONG,      /* longer than size - 1 bytes */
	CSV_LINE_NUL,       /* holds a NUL byte: not a text file */
};

/*
 * Read one line of fp into line[size] (size >= 2) without its "\n" or
 * "\r\n", NUL-terminated.  fgets() cannot tell a NUL byte from the end of
 * the line, nor a long line from two short ones; this can.  On anything
 * but CSV_LINE_OK, line's content is unspecified and the caller should
 * stop reading.  fp must be the calling thread's alone (no stdio locking).
 */
enum csv_line csv_line(FILE *fp, char *line, size_t size);

/*
 * Write the error for a line csv_line() refused (CSV_LINE_LONG or
 * CSV_LINE_NUL) as "<what> '<path>' line N: ..." into err[errlen].
 * max is the longest line allowed, in bytes.
 */
void csv_line_error(char *err, size_t errlen, const char *what,
		    const char *path, size_t lineno, enum csv_line r,
		    size_t max);

#endif
