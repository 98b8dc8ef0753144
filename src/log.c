/* log.c - see log.h. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "utf8.h"

enum log_level log__level = LOG_INFO;
static int log_json;         /* set once at start-up */

static const char *const level_names[] = { "debug", "info", "warn", "error" };

int log_set_level(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
		if (!strcmp(name, level_names[i])) {
			log__level = (enum log_level)i;
			return 0;
		}
	}
	return -1;
}

int log_set_format(const char *name)
{
	if (!strcmp(name, "text"))
		log_json = 0;
	else if (!strcmp(name, "json"))
		log_json = 1;
	else
		return -1;
	return 0;
}

/*
 * The escape for the character at s (k bytes, 0: not UTF-8) into esc, or
 * NULL to copy it.  JSON: what a JSON string needs, invalid UTF-8 as
 * U+FFFD.  Text: bytes that could end the line, start a terminal escape or
 * are not UTF-8 (\n, \r, \t, \xNN; C1 controls as \u0080..\u009f), so
 * a ScaledObject name or a backend's reply quoted in a message can neither
 * forge a line nor drive the terminal.  *k may be changed to what the
 * escape stands for.
 */
static const char *escape_of(const unsigned char *s, size_t *k, int json,
			     char esc[8])
{
	if (*s == '\n' || *s == '\t' || (!json && *s == '\r')) {
		esc[0] = '\\';
		esc[1] = *s == '\n' ? 'n' : *s == '\t' ? 't' : 'r';
		esc[2] = '\0';
		return esc;
	}
	if (json && (*s == '"' || *s == '\\')) {
		esc[0] = '\\';
		esc[1] = (char)*s;
		esc[2] = '\0';
		*k = 1;
		return esc;
	}
	if (*s < 0x20 || *s == 0x7f || *k == 0) {
		if (json && *k == 0)
			snprintf(esc, 8, "\\ufffd");
		else if (json)
			snprintf(esc, 8, "\\u%04x", *s);
		else
			snprintf(esc, 8, "\\x%02x", *s);
		*k = 1;
		return esc;
	}
	if (!json && *k == 2 && s[0] == 0xc2 && s[1] < 0xa0) {
		snprintf(esc, 8, "\\u%04x", s[1]);
		return esc;
	}
	return NULL;
}

/* Append msg to buf[*len..size - 2], escaped for the format (see
 * escape_of()); stops before an escape that would not fit. */
static void append_escaped(char *buf, size_t size, size_t *len,
			   const char *msg, int json)
{
	const unsigned char *s = (const unsigned char *)msg;
	size_t n = strlen(msg), k, olen;
	char esc[8];
	const char *out;

	while (n) {
		k = utf8_len(s, n);
		out = escape_of(s, &k, json, esc);
		olen = out ? strlen(out) : k;
		if (!out)
			out = (const char *)s;
		if (*len + olen > size - 2)
			break;
		memcpy(buf + *len, out, olen);
		*len += olen;
		s += k;
		n -= k;
	}
}

size_t log_format_line(char *buf, size_t size, int json, const char *time,
		       enum log_level lvl, const char *msg)
{
	size_t len = 0;
	int n;

	if (size < 4)
		return 0;
	if ((unsigned)lvl > LOG_ERROR)
		lvl = LOG_ERROR;
	if (json) {
		n = snprintf(buf, size, "{\"time\":\"%s\",\"level\":\"%s\","
			     "\"msg\":\"", time, level_names[lvl]);
		len = n > 0 && (size_t)n < size ? (size_t)n : 0;
		append_escaped(buf, size - 2, &len, msg, 1);
		buf[len++] = '"';
		buf[len++] = '}';
	} else {
		n = snprintf(buf, size - 1, "%s %-5s ", time,
			     level_names[lvl]);
		len = n < 0 ? 0 : (size_t)n < size - 1 ? (size_t)n : size - 2;
		append_escaped(buf, size, &len, msg, 0);
	}
	buf[len++] = '\n';
	buf[len] = '\0';
	return len;
}

void log_write(enum log_level lvl, const char *fmt, ...)
{
	char msg[LOG_LINE_MAX], line[LOG_LINE_MAX + 128], when[40];
	struct timeval tv;
	struct tm tm;
	size_t len;
	va_list ap;

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	len = strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + len, sizeof(when) - len, ".%03ldZ",
		 (long)(tv.tv_usec / 1000));
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	len = log_format_line(line, sizeof(line), log_json, when, lvl, msg);
	/* One write: lines from several threads never interleave. */
	if (write(STDERR_FILENO, line, len) < 0)
		return;
}
