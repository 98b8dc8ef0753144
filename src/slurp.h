/*
 * slurp.h - a file read whole, bounded, failing loudly: the one way
 * staffer reads a whole file (config.c's backends file, tz.c's zones,
 * ydoc.c's YAML, scaler.c's state file, secret.c's secrets, certs.c's
 * TLS files).
 *
 * Never a silent truncation: more than max bytes is an error, and so is
 * any read error (the caller is told which).  Thread-safe: no state.
 */
#ifndef STAFFER_SLURP_H
#define STAFFER_SLURP_H

#include <stddef.h>
#include <sys/stat.h>

/* Why a read failed. */
enum slurp_err {
	SLURP_OK = 0,
	SLURP_EOPEN,    /* open() failed (errno says why) */
	SLURP_ETYPE,    /* not a regular file (slurp_file() only) */
	SLURP_EBIG,     /* more than max bytes */
	SLURP_EREAD,    /* read() failed (errno says why) */
	SLURP_ENOMEM,
};

/*
 * Read the open descriptor fd to its end: at most max bytes,
 * NUL-terminated (NULs inside are kept; *len tells).  The buffer grows as
 * the bytes come, so a FIFO or stdin works and a small file costs little.
 * Returns a malloc()ed buffer the caller frees, with *len; or NULL with
 * *err (errno kept for SLURP_EREAD) and *len untouched.  fd stays open
 * and is the caller's.
 */
char *slurp_fd(int fd, size_t max, size_t *len, enum slurp_err *err);

/*
 * Read the regular file path whole, never blocking on a FIFO or a device
 * (secret and TLS files, read at each use by threads that serve every
 * tenant): slurp_fd() on path opened O_NONBLOCK, refusing anything but a
 * regular file.  Returns the buffer with *len and, when st is not NULL,
 * the file's stat; or NULL with a sentence in why (cannot open, not a
 * regular file, larger than max, cannot read, out of memory) and the
 * outputs untouched.
 */
char *slurp_file(const char *path, size_t max, size_t *len, struct stat *st,
		 char *why, size_t whylen);

#endif
