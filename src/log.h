/*
 * log.h - leveled logging to stderr, one line per event.
 *
 * Lines look like "2026-11-22T07:40:00.123Z info  <message>", or with the
 * json format one JSON object per line,
 * {"time":"2026-11-22T07:40:00.123Z","level":"info","msg":"<message>"},
 * the message escaped as JSON wants (invalid UTF-8 becomes U+FFFD), for
 * log pipelines that parse JSON.  A line may carry fields (log_fields_at()):
 * in JSON each is a member of its own after msg ("namespace":"llm",
 * "lambda":2.5), so a pipeline filters on them the way it reads KEDA's
 * zap logs; the text format shows the message alone, as before (the
 * message says the same).  In text lines control characters,
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

/*
 * A field of a structured line: key (a constant of the caller's, or
 * text it vouches for) and a string, a number or a whole number.  A
 * string field whose value is NULL is left out; a number that is not
 * finite is JSON null.  At most LOG_FIELDS_MAX per line; a line longer
 * than LOG_JSON_MAX keeps the fields that fit.
 */
#define LOG_FIELDS_MAX 48
#define LOG_JSON_MAX (2 * LOG_LINE_MAX)   /* bytes of one JSON line */

enum log_kind { LOG_STR, LOG_NUM, LOG_INT };

struct log_field {
	const char *key;
	enum log_kind kind;
	const char *s;
	double n;
	long long i;
};

#define LOG_F_STR(k, v) { (k), LOG_STR, (v), 0, 0 }
#define LOG_F_NUM(k, v) { (k), LOG_NUM, NULL, (v), 0 }
#define LOG_F_INT(k, v) { (k), LOG_INT, NULL, 0, (v) }

#define log_fields_at(lvl, f, n, ...) do { \
		if ((lvl) >= log__level) \
			log_write_fields((lvl), (f), (n), __VA_ARGS__); \
	} while (0)

void log_write_fields(enum log_level lvl, const struct log_field *f,
		      size_t n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The json format is in force. */
int log_is_json(void);

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

/* The same with fields (n of them; the text format ignores them). */
size_t log_format_fields(char *buf, size_t size, int json, const char *time,
			 enum log_level lvl, const char *msg,
			 const struct log_field *f, size_t n);

#endif
