/*
 * csv.c - see csv.h.
 */
#include "csv.h"

#include <string.h>

size_t csv_split(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *s = line;

	while (n < max) {
		f[n++] = s;
		s = strchr(s, ',');
		if (!s)
			break;
		*s++ = '\0';
	}
	return s ? max + 1 : n;
}

char *csv_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}
