/*
 * slurp.h - a small file read whole, bounded, never blocking on a FIFO.
 *
 * Secret files, TLS files: read at each use by threads that serve every
 * tenant, so a path that names a FIFO or a device must fail at once
 * instead of blocking, and a huge file must not be read.  Thread-safe.
 */
#ifndef STAFFER_SLURP_H
#define STAFFER_SLURP_H

#include <stddef.h>
#include <sys/stat.h>

/*
 * Read the regular file path whole: at most max bytes, NUL-terminated
 * (NULs inside are kept; *len tells).  Returns a malloc()ed buffer the
 * caller frees, with *len and, when st is not NULL, the file's stat; or
 * NULL with a sentence in why (cannot open, not a regular file, larger
 * than max, out of memory) and the outputs untouched.
 */
char *slurp_file(const char *path, size_t max, size_t *len, struct stat *st,
		 char *why, size_t whylen);

#endif
