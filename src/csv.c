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

void csv_put_field(FILE *fp, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
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

enum csv_line csv_line(FILE *fp, char *line, size_t size)
{
	size_t n = 0;
	int c;

	while ((c = getc_unlocked(fp)) != EOF && c != '\n') {
		if (c == '\0')
			return CSV_LINE_NUL;
		if (n + 1 == size) {
			/* a CRLF's '\r' is not the line's: it fits */
			if (c == '\r' && ((c = getc_unlocked(fp)) == '\n' ||
					  c == EOF))
				break;
			return CSV_LINE_LONG;
		}
		line[n++] = (char)c;
	}
	if (c == EOF && n == 0)
		return CSV_LINE_EOF;
	if (n > 0 && line[n - 1] == '\r')
		n--;
	line[n] = '\0';
	return CSV_LINE_OK;
}

void csv_line_error(char *err, size_t errlen, const char *what,
		    const char *path, size_t lineno, enum csv_line r,
		    size_t max)
{
	if (r == CSV_LINE_NUL)
		snprintf(err, errlen, "%s '%s' line %zu: holds a NUL byte; "
			 "expected CSV text", what, path, lineno);
	else
		snprintf(err, errlen, "%s '%s' line %zu: longer than %zu "
			 "bytes", what, path, lineno, max);
}
