/* log.c - see log.h. */
#include "log.h"

#include <math.h>
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

int log_is_json(void)
{
	return log_json;
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

/* One field as a JSON member, ",\"key\":value", appended to buf[*len..]
 * only when all of it fits before size - 3 (room for "}\n" and the
 * NUL). */
static void append_field(char *buf, size_t size, size_t *len,
			 const struct log_field *f)
{
	char tmp[LOG_LINE_MAX];
	size_t t = 0;
	int n;

	if (!f->key || (f->kind == LOG_STR && !f->s))
		return;
	tmp[t++] = ',';
	tmp[t++] = '"';
	append_escaped(tmp, sizeof(tmp), &t, f->key, 1);
	tmp[t++] = '"';
	tmp[t++] = ':';
	switch (f->kind) {
	case LOG_STR:
		tmp[t++] = '"';
		append_escaped(tmp, sizeof(tmp) - 1, &t, f->s, 1);
		tmp[t++] = '"';
		break;
	case LOG_NUM:
		n = isfinite(f->n) ?
		    snprintf(tmp + t, sizeof(tmp) - t, "%.10g", f->n) :
		    snprintf(tmp + t, sizeof(tmp) - t, "null");
		t += n > 0 ? (size_t)n : 0;
		break;
	case LOG_INT:
		n = snprintf(tmp + t, sizeof(tmp) - t, "%lld", f->i);
		t += n > 0 ? (size_t)n : 0;
		break;
	}
	if (t >= sizeof(tmp) - 1 || *len + t > size - 3)
		return;
	memcpy(buf + *len, tmp, t);
	*len += t;
}

size_t log_format_fields(char *buf, size_t size, int json, const char *time,
			 enum log_level lvl, const char *msg,
			 const struct log_field *f, size_t n)
{
	size_t len = 0, i;
	int k;

	if (size < 4)
		return 0;
	if ((unsigned)lvl > LOG_ERROR)
		lvl = LOG_ERROR;
	if (json) {
		k = snprintf(buf, size, "{\"time\":\"%s\",\"level\":\"%s\","
			     "\"msg\":\"", time, level_names[lvl]);
		len = k > 0 && (size_t)k < size ? (size_t)k : 0;
		/* the message may take at most LOG_LINE_MAX of the line:
		 * the fields get the rest */
		append_escaped(buf, size - 2 < LOG_LINE_MAX + len ?
			       size - 2 : LOG_LINE_MAX + len, &len, msg, 1);
		buf[len++] = '"';
		for (i = 0; i < n && i < LOG_FIELDS_MAX; i++)
			append_field(buf, size, &len, &f[i]);
		buf[len++] = '}';
	} else {
		k = snprintf(buf, size - 1, "%s %-5s ", time,
			     level_names[lvl]);
		len = k < 0 ? 0 : (size_t)k < size - 1 ? (size_t)k : size - 2;
		append_escaped(buf, size, &len, msg, 0);
	}
	buf[len++] = '\n';
	buf[len] = '\0';
	return len;
}

size_t log_format_line(char *buf, size_t size, int json, const char *time,
		       enum log_level lvl, const char *msg)
{
	return log_format_fields(buf, size, json, time, lvl, msg, NULL, 0);
}

/* Format and write one line: a single write(2). */
static void log_emit(enum log_level lvl, const struct log_field *f,
		     size_t n, const char *fmt, va_list ap)
{
	char msg[LOG_LINE_MAX], line[LOG_JSON_MAX + 128], when[40];
	struct timeval tv;
	struct tm tm;
	size_t len;

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	len = strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + len, sizeof(when) - len, ".%03ldZ",
		 (long)(tv.tv_usec / 1000));
	vsnprintf(msg, sizeof(msg), fmt, ap);
	len = log_format_fields(line, sizeof(line), log_json, when, lvl, msg,
				f, n);
	/* One write: lines from several threads never interleave. */
	if (write(STDERR_FILENO, line, len) < 0)
		return;
}

void log_write(enum log_level lvl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_emit(lvl, NULL, 0, fmt, ap);
	va_end(ap);
}

void log_write_fields(enum log_level lvl, const struct log_field *f,
		      size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_emit(lvl, f, n, fmt, ap);
	va_end(ap);
}
