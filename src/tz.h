/*
 * tz.h - IANA time zones from the system's TZif files, without TZ or
 * localtime().
 *
 * A zone is read once from <dir>/<name>, where dir is $TZDIR or
 * /usr/share/zoneinfo (Debian package tzdata), and kept for the life of
 * the process in a small cache.  Only version 2+ files are read, and only
 * their 64-bit data.  For an instant after the file's last transition the
 * POSIX TZ string of the file's footer decides (forms "STDoff",
 * "STDoffDST[off],start[/time],end[/time]" with Mm.w.d, Jn and n dates,
 * the extensions of RFC 8536 included); a file without a footer keeps its
 * last local time type.  Before the first transition the first type (type
 * 0) applies, as RFC 8536 says.  Leap-second ("right/") files are refused.
 *
 * Threading: tz_get() is thread-safe (a mutex guards the cache, and a
 * zone's file is read with the mutex held, once).  A zone, once returned,
 * is immutable and never freed, so every other function may be called from
 * any thread without locks.  No function logs; only tz_get() does I/O.
 *
 * A `const struct tz *` of NULL means UTC everywhere.
 */
#ifndef STAFFER_TZ_H
#define STAFFER_TZ_H

#include <stddef.h>
#include <stdint.h>

#define TZ_NAME_MAX 64      /* bytes in a zone name, with NUL */
#define TZ_CACHE_MAX 1024   /* distinct zones one process can load */
#define TZ_FILE_MAX 65536   /* bytes in a TZif file we read */
#define TZ_TIME_MAX 40      /* bytes tz_format() writes, with NUL */

enum tz_err {
	TZ_OK = 0,
	TZ_ENAME,    /* not a well-formed zone name */
	TZ_ENOENT,   /* no such zone (no file, or not a TZif file) */
	TZ_EFORMAT,  /* a TZif file we cannot use (v1, leap seconds, bad) */
	TZ_EIO,      /* the file exists but could not be read */
	TZ_EFULL,    /* TZ_CACHE_MAX zones are loaded already */
	TZ_ENOMEM,
};

struct tz;

/* The built-in UTC zone (never NULL; tz_get("UTC") returns it too). */
const struct tz *tz_utc(void);

/*
 * The zone called name ("Europe/Berlin"), loaded on first use.  Names are
 * 1 to TZ_NAME_MAX - 1 characters of [A-Za-z0-9_+/-], with no leading
 * '/', no "..", and no empty or "." component.  "UTC" is built in and
 * needs no file.  On success stores the zone in *out (valid until the
 * process ends) and returns TZ_OK; failures are not cached.
 */
enum tz_err tz_get(const char *name, const struct tz **out);

/* 0 when name is a well-formed zone name (see tz_get), -1 otherwise. */
int tz_check_name(const char *name);

/*
 * Parse a TZif image (buf, len) into a new zone named name, outside the
 * cache; release it with tz_free().  tz_get() uses it; tests and tools may
 * too.  Returns TZ_OK, TZ_EFORMAT, TZ_ENOENT (no "TZif" magic) or
 * TZ_ENOMEM.
 */
enum tz_err tz_parse(const char *name, const unsigned char *buf, size_t len,
		     struct tz **out);
void tz_free(struct tz *z);

/* The zone's name as given to tz_get() ("UTC" for NULL). */
const char *tz_name(const struct tz *z);

/* Short English text for an error code ("no such time zone"). */
const char *tz_strerror(enum tz_err e);

/*
 * The UTC offset in seconds east of Greenwich (Berlin in summer: 7200) at
 * the UTC instant t (Unix seconds).  *isdst, if not NULL, is set to 1 in
 * daylight saving time, else 0.  Never fails; no allocation, no locks.
 */
long tz_offset(const struct tz *z, int64_t t, int *isdst);

/*
 * The UTC instant at which the wall clock of z shows local (Unix seconds
 * counted as if the zone were UTC).  A wall time that occurs twice (the
 * hour repeated when DST ends) gives the first; one that is skipped (the
 * hour lost when DST starts) is read with the offset in force before the
 * change, so 02:30 on the day Berlin springs forward is 01:30Z (03:30
 * CEST).
 */
int64_t tz_from_local(const struct tz *z, int64_t local);

/* The wall clock of z at instant t, as Unix seconds counted as if the
 * zone were UTC (t + offset; t is first clamped to the years 1..9999). */
int64_t tz_local(const struct tz *z, int64_t t);

/* Day of the week at instant t in z: 0 Monday ... 6 Sunday. */
int tz_weekday(const struct tz *z, int64_t t);

/*
 * t as local RFC 3339 text in z, "2026-07-01T14:00:00+02:00" ("Z" for UTC
 * itself; an offset with seconds, as of old local mean times, keeps them:
 * "+00:53:28").  Writes at most size bytes with the NUL; returns what
 * snprintf() does.
 */
int tz_format(const struct tz *z, int64_t t, char *buf, size_t size);

/*
 * Read a time for `staffer calc now=...`:
 *   2026-07-01T12:00:00Z, 2026-07-01T14:00+02:00   an instant (seconds
 *                                                   optional, 't'/'z' too)
 *   2026-07-01T14:00[:SS]                           wall time in z (see
 *                                                   tz_from_local)
 *   @1782907200                                     Unix seconds
 * Years 1 to 9999.  Returns 0 and stores the instant, or -1.
 */
int tz_parse_time(const struct tz *z, const char *s, int64_t *out);

/* Calendar arithmetic (proleptic Gregorian), exported for tests:
 * days since 1970-01-01 of y-m-d (m 1..12, d 1..31), and back. */
int64_t tz_days_from_civil(int64_t y, int m, int d);
void tz_civil_from_days(int64_t days, int64_t *y, int *m, int *d);

#endif
