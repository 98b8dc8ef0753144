/*
 * csv.h - the comma-separated lines of traces and perf models.
 *
 * Plain CSV as the traces in ../shared/traces and Splitwise's perf model
 * write it: no quoting, one record per line.  Pure; thread-safe.
 */
#ifndef STAFFER_CSV_H
#define STAFFER_CSV_H

#include <stddef.h>

/*
 * Split line in place at commas into f[0..max-1].  Returns the field count,
 * or max + 1 when the line has more than max fields (f then holds the first
 * max, the last of them unsplit).  max must be >= 1.
 */
size_t csv_split(char *line, char **f, size_t max);

/* Trim spaces and tabs around s in place; returns the trimmed start. */
char *csv_trim(char *s);

#endif
