/*
 * secret.c - see secret.h.
 */
#include "secret.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurp.h"

char *secret_read(const char *path, char *why, size_t whylen)
{
	char *buf;
	size_t n, i;

	buf = slurp_file(path, SECRET_FILE_MAX, &n, NULL, why, whylen);
	if (!buf)
		return NULL;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' ||
			 buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	/* A token goes into a header line: CR or LF would add headers of
	 * the file's choosing, NUL would cut it.  Refused, never cleaned. */
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)buf[i];

		if (ch < 0x20 || ch == 0x7f) {
			snprintf(why, whylen, "'%s' contains a control "
				 "character (byte 0x%02x at offset %zu); a "
				 "secret file holds one line of printable "
				 "text (trailing white space is ignored)",
				 path, ch, i);
			explicit_bzero(buf, n);
			free(buf);
			return NULL;
		}
	}
	return buf;
}
