/* slurp.c - see slurp.h. */
#include "slurp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* First buffer: most files read whole are far smaller than their cap. */
#define SLURP_FIRST (64u * 1024)

char *slurp_fd(int fd, size_t max, size_t *len, enum slurp_err *err)
{
	char *buf = NULL, *p;
	size_t n = 0, cap = 0;
	ssize_t r;
	int e;

	/* one byte more than allowed tells "too large" from "just fits";
	 * the buffer keeps one more for the NUL */
	for (;;) {
		if (cap - n < 2 && cap < max + 2) {
			size_t c = cap ? cap * 2 : SLURP_FIRST;

			if (c > max + 2 || c < cap)
				c = max + 2;
			p = realloc(buf, c);
			if (!p) {
				*err = SLURP_ENOMEM;
				goto fail;
			}
			buf = p;
			cap = c;
		}
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			*err = SLURP_EREAD;
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			*err = SLURP_EBIG;
			goto fail;
		}
	}
	buf[n] = '\0';
	*len = n;
	*err = SLURP_OK;
	return buf;
fail:
	e = errno;
	free(buf);
	errno = e;
	return NULL;
}

char *slurp_file(const char *path, size_t max, size_t *len, struct stat *st,
		 char *why, size_t whylen)
{
	enum slurp_err err;
	struct stat sb;
	char *buf = NULL;
	size_t n;
	int fd;

	/* O_NONBLOCK: opening a FIFO with no writer must not wait */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "cannot open '%s': %s", path,
			 strerror(errno));
		return NULL;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		snprintf(why, whylen, "'%s' is not a regular file", path);
		goto out;
	}
	buf = slurp_fd(fd, max, &n, &err);
	if (!buf) {
		if (err == SLURP_EREAD)
			snprintf(why, whylen, "cannot read '%s': %s", path,
				 strerror(errno));
		else if (err == SLURP_EBIG)
			snprintf(why, whylen, "'%s' is larger than %zu bytes",
				 path, max);
		else
			snprintf(why, whylen, "out of memory");
		goto out;
	}
	*len = n;
	if (st)
		*st = sb;
out:
	close(fd);
	return buf;
}
