/* slurp.c - see slurp.h. */
#include "slurp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *slurp_file(const char *path, size_t max, size_t *len, struct stat *st,
		 char *why, size_t whylen)
{
	struct stat sb;
	char *buf = NULL;
	size_t n = 0;
	ssize_t r;
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
	buf = malloc(max + 1);
	if (!buf) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	/* one byte more than allowed tells "too large" from "just fits" */
	while (n <= max && (r = read(fd, buf + n, max + 1 - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(why, whylen, "cannot read '%s': %s", path,
				 strerror(errno));
			goto fail;
		}
		n += (size_t)r;
	}
	if (n > max) {
		snprintf(why, whylen, "'%s' is larger than %zu bytes", path,
			 max);
		goto fail;
	}
	buf[n] = '\0';
	*len = n;
	if (st)
		*st = sb;
	goto out;
fail:
	free(buf);
	buf = NULL;
out:
	close(fd);
	return buf;
}
