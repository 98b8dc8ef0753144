/*
 * secret.c - see secret.h.
 */
#include "secret.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *secret_read(const char *path, char *why, size_t whylen)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	size_t n;

	if (!fp) {
		snprintf(why, whylen, "cannot open '%s': %s", path,
			 strerror(errno));
		return NULL;
	}
	buf = malloc(SECRET_FILE_MAX + 1);
	if (!buf) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	n = fread(buf, 1, SECRET_FILE_MAX + 1, fp);
	if (n > SECRET_FILE_MAX) {
		snprintf(why, whylen, "'%s' is larger than %d bytes", path,
			 SECRET_FILE_MAX);
		free(buf);
		buf = NULL;
		goto out;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' ||
			 buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
out:
	fclose(fp);
	return buf;
}
