/*
 * secret.h - small secret files (tokens, passwords) read at each use, so
 * that a rotated Kubernetes Secret or projected token is picked up without
 * a restart.  Thread-safe (no shared state).
 */
#ifndef STAFFER_SECRET_H
#define STAFFER_SECRET_H

#include <stddef.h>

#define SECRET_FILE_MAX 16384      /* bytes of a secret file */

/* Read path whole, trailing white space trimmed.  Returns a malloc()ed
 * string the caller frees, or NULL with a sentence in why (cannot open,
 * not a regular file (a FIFO would block), larger than SECRET_FILE_MAX,
 * a control character such as CR, LF or NUL
 * left after the trim, out of memory). */
char *secret_read(const char *path, char *why, size_t whylen);

#endif
