/*
 * log.h - leveled logging to stderr, one line per event.
 *
 * Lines look like "2026-11-22T07:40:00.123Z info  <message>", or with the
 * json format one JSON object per line,
 * {"time":"2026-11-22T07:40:00.123Z","level":"info","msg":"<message>"},
 * the message escaped as JSON wants (invalid UTF-8 becomes U+FFFD), for
 * log pipelines that parse JSON.  In text lines control characters,
 * C1 controls and invalid UTF-8 are escaped (\n, \x1b, ...): messages
 * quote untrusted text (names, metadata, backend replies), which must not
 * forge a line or drive a terminal.  Each line is written with a single
 * write(2), so lines from different threads never interleave.  A message
 * longer than LOG_LINE_MAX is cut.  The level is checked before any
 * formatting happens.
 * Only the I/O layers log (rpc, fetch, scaler, serve); the pure modules
 * (model, erlang, smooth, meta, prom, config) return codes instead.
 */
#ifndef STAFFER_LOG_H
#define STAFFER_LOG_H

#include <stddef.h>

#define LOG_LINE_MAX 2048  /* bytes of one line, newline included */

enum log_level { LOG_DEBUG = 0, LOG_INFO, LOG_WARN, LOG_ERROR };

/* Current threshold; read without locking (set once at start-up). */
extern enum log_level log__level;

#define log_at(lvl, ...) do { \
		if ((lvl) >= log__level) \
			log_write((lvl), __VA_ARGS__); \
	} while (0)
#define log_debug(...) log_at(LOG_DEBUG, __VA_ARGS__)
#define log_info(...)  log_at(LOG_INFO, __VA_ARGS__)
#define log_warn(...)  log_at(LOG_WARN, __VA_ARGS__)
#define log_error(...) log_at(LOG_ERROR, __VA_ARGS__)

void log_write(enum log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Set the threshold by name (debug, info, warn, error): 0, or -1 if the
 * name is unknown (level unchanged).  Call at start-up, before threads. */
int log_set_level(const char *name);

/* Set the format by name (text, json): 0, or -1 if the name is unknown
 * (format unchanged).  Call at start-up, before threads. */
int log_set_format(const char *name);

/*
 * The line log_write() would write, without the time, into buf[size]
 * (NUL-terminated, newline included): for tests.  json selects the
 * format; time is the timestamp text.  Returns the length.
 */
size_t log_format_line(char *buf, size_t size, int json, const char *time,
		       enum log_level lvl, const char *msg);

#endif
