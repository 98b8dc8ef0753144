/* log.c - see log.h. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

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

/* The length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/* Append msg to buf[*len..size - 2] as the inside of a JSON string;
 * stops before an escape that would not fit. */
static void json_append(char *buf, size_t size, size_t *len, const char *msg)
{
	const unsigned char *s = (const unsigned char *)msg;
	size_t n = strlen(msg), k;
	char esc[8];
	const char *out;
	size_t olen;

	while (n) {
		k = utf8_len(s, n);
		if (*s == '"' || *s == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*s;
			out = esc, olen = 2, k = 1;
		} else if (*s == '\n') {
			out = "\\n", olen = 2;
		} else if (*s == '\t') {
			out = "\\t", olen = 2;
		} else if (*s < 0x20 || *s == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", *s);
			out = esc, olen = 6;
		} else if (k == 0) {
			out = "\\ufffd", olen = 6, k = 1;
		} else {
			out = (const char *)s, olen = k;
		}
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
		json_append(buf, size - 2, &len, msg);
		buf[len++] = '"';
		buf[len++] = '}';
	} else {
		n = snprintf(buf, size - 1, "%s %-5s %s", time,
			     level_names[lvl], msg);
		len = n < 0 ? 0 : (size_t)n < size - 1 ? (size_t)n : size - 2;
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
