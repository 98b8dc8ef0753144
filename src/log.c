/* log.c - see log.h. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

enum log_level log__level = LOG_INFO;

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

void log_write(enum log_level lvl, const char *fmt, ...)
{
	char line[2048];
	struct timeval tv;
	struct tm tm;
	size_t len;
	int n;
	va_list ap;

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	len = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%S", &tm);
	n = snprintf(line + len, sizeof(line) - len, ".%03ldZ %-5s ",
		     (long)(tv.tv_usec / 1000), level_names[lvl]);
	if (n > 0)
		len += (size_t)n;
	va_start(ap, fmt);
	n = vsnprintf(line + len, sizeof(line) - len - 1, fmt, ap);
	va_end(ap);
	if (n > 0)
		len += (size_t)n < sizeof(line) - len - 1 ?
		       (size_t)n : sizeof(line) - len - 2;
	line[len++] = '\n';
	/* One write: lines from several threads never interleave. */
	if (write(STDERR_FILENO, line, len) < 0)
		return;
}
