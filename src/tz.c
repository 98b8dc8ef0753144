/*
 * tz.c - IANA time zones from TZif files (RFC 8536); see tz.h.
 *
 * A zone is its transitions (UTC instants, ascending, each naming a local
 * time type) and, for instants after the last one, the POSIX TZ rule of the
 * file's footer.  Looking up an instant is a binary search, or a little
 * calendar arithmetic for the rule; neither allocates nor locks.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ascii.h"
#include "slurp.h"
#include "tz.h"

#define TZ_DIR_DEFAULT "/usr/share/zoneinfo"
#define TZ_PATH_MAX 4096

/* Instants are clamped to years 1..9999 before calendar arithmetic, so
 * that nothing overflows whatever a caller passes. */
#define TZ_T_MIN (-62135596800LL) /* 0001-01-01T00:00:00Z */
#define TZ_T_MAX 253402300799LL   /* 9999-12-31T23:59:59Z */

/* RFC 8536: offsets should lie in [-89999, 93599] seconds. */
#define TZ_OFF_MIN (-89999L)
#define TZ_OFF_MAX 93599L

struct tz_type {
	long off;            /* seconds east of UTC */
	int dst;
};

/* A date of a POSIX TZ rule and the local time of day of the change. */
struct tz_date {
	char kind;           /* 'M' month.week.day, 'J' Julian 1..365
			      * without Feb 29, 'N' zero-based 0..365 */
	int m, w, d;         /* 'M': month 1..12, week 1..5, day 0 (Sun)..6 */
	int n;               /* 'J', 'N' */
	long secs;           /* -167..167 hours, in seconds */
};

struct tz_rule {
	long std_off, dst_off; /* seconds east of UTC */
	int has_dst;
	struct tz_date start, end;
};

struct tz {
	char name[TZ_NAME_MAX];
	size_t n;                /* transitions */
	int64_t *at;             /* n instants, strictly ascending */
	unsigned char *idx;      /* n type indexes */
	size_t ntypes;           /* >= 1 */
	struct tz_type *types;
	int has_rule;
	struct tz_rule rule;
};

static struct tz_type tz_utc_type = { 0, 0 };
static struct tz tz_utc_zone = {
	.name = "UTC", .ntypes = 1, .types = &tz_utc_type,
};

const struct tz *tz_utc(void)
{
	return &tz_utc_zone;
}

const char *tz_name(const struct tz *z)
{
	return z ? z->name : "UTC";
}

const char *tz_strerror(enum tz_err e)
{
	switch (e) {
	case TZ_OK:
		return "success";
	case TZ_ENAME:
		return "not a time zone name";
	case TZ_ENOENT:
		return "no such time zone";
	case TZ_EFORMAT:
		return "unusable time zone file";
	case TZ_EIO:
		return "time zone file cannot be read";
	case TZ_EFULL:
		return "too many time zones in use";
	case TZ_ENOMEM:
		return "out of memory";
	}
	return "unknown error";
}

/* ---- calendar ------------------------------------------------------------ */

static int64_t tz_floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int64_t tz_clamp(int64_t t)
{
	return t < TZ_T_MIN ? TZ_T_MIN : t > TZ_T_MAX ? TZ_T_MAX : t;
}

static int tz_is_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int tz_month_days(int64_t y, int m)
{
	static const int days[12] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31,
	};

	return m == 2 && tz_is_leap(y) ? 29 : days[m - 1];
}

/* Howard Hinnant's days_from_civil. */
int64_t tz_days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = tz_floor_div(y, 400);
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

void tz_civil_from_days(int64_t days, int64_t *y, int *m, int *d)
{
	int64_t z = days + 719468, era, doe, yoe, doy, mp;

	era = tz_floor_div(z, 146097);
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

/* ---- the POSIX TZ rule --------------------------------------------------- */

/* Days since the epoch of rule date r in year y. */
static int64_t tz_rule_day(const struct tz_date *r, int64_t y)
{
	int64_t first;
	int wday, day, mdays;

	switch (r->kind) {
	case 'J':
		return tz_days_from_civil(y, 1, 1) + r->n - 1 +
		       (tz_is_leap(y) && r->n >= 60);
	case 'N':
		return tz_days_from_civil(y, 1, 1) + r->n;
	default:
		first = tz_days_from_civil(y, r->m, 1);
		/* 1970-01-01 was a Thursday: 0 Sunday ... 6 Saturday */
		wday = (int)(((first + 4) % 7 + 7) % 7);
		day = (r->d - wday + 7) % 7 + (r->w - 1) * 7;
		mdays = tz_month_days(y, r->m);
		while (day >= mdays)
			day -= 7;
		return first + day;
	}
}

static long tz_rule_offset(const struct tz_rule *r, int64_t t, int *isdst)
{
	int64_t y, start, end;
	int m, d, in;

	if (!r->has_dst) {
		*isdst = 0;
		return r->std_off;
	}
	tz_civil_from_days(tz_floor_div(t + r->std_off, 86400), &y, &m, &d);
	/* The start is given in standard time, the end in daylight time. */
	start = tz_rule_day(&r->start, y) * 86400 + r->start.secs - r->std_off;
	end = tz_rule_day(&r->end, y) * 86400 + r->end.secs - r->dst_off;
	if (start < end)
		in = t >= start && t < end;
	else /* southern hemisphere: DST spans the new year */
		in = !(t >= end && t < start);
	*isdst = in;
	return in ? r->dst_off : r->std_off;
}

/* A zone abbreviation: three or more letters, or <...> of letters, digits,
 * '+' and '-'.  Returns the end, or NULL. */
static const char *tz_p_abbr(const char *p)
{
	int n = 0;

	if (*p == '<') {
		for (p++; *p && *p != '>'; p++, n++)
			if (!ascii_is_alpha((unsigned char)*p) &&
			    !ascii_is_digit((unsigned char)*p) &&
			    *p != '+' && *p != '-')
				return NULL;
		return *p == '>' && n >= 3 ? p + 1 : NULL;
	}
	for (; ascii_is_alpha((unsigned char)*p); p++)
		n++;
	return n >= 3 ? p : NULL;
}

/* Up to max_digits digits as a number no larger than max. */
static const char *tz_p_num(const char *p, int max_digits, long max,
			    long *out)
{
	long v = 0;
	int n = 0;

	for (; ascii_is_digit((unsigned char)*p) && n < max_digits; p++, n++)
		v = v * 10 + (*p - '0');
	if (n == 0 || v > max)
		return NULL;
	*out = v;
	return p;
}

/* [+-]hh[:mm[:ss]] with hh <= max_h, in seconds. */
static const char *tz_p_hms(const char *p, long max_h, long *out)
{
	long sign = 1, h, mi = 0, s = 0;

	if (*p == '+' || *p == '-')
		sign = *p++ == '-' ? -1 : 1;
	p = tz_p_num(p, 3, max_h, &h);
	if (p && *p == ':') {
		p = tz_p_num(p + 1, 2, 59, &mi);
		if (p && *p == ':')
			p = tz_p_num(p + 1, 2, 59, &s);
	}
	if (!p)
		return NULL;
	*out = sign * (h * 3600 + mi * 60 + s);
	return p;
}

/* A rule date "Mm.w.d", "Jn" or "n", then an optional "/time". */
static const char *tz_p_date(const char *p, struct tz_date *r)
{
	long v;

	memset(r, 0, sizeof(*r));
	r->secs = 7200;
	if (*p == 'M') {
		r->kind = 'M';
		p = tz_p_num(p + 1, 2, 12, &v);
		if (!p || v < 1 || *p != '.')
			return NULL;
		r->m = (int)v;
		p = tz_p_num(p + 1, 1, 5, &v);
		if (!p || v < 1 || *p != '.')
			return NULL;
		r->w = (int)v;
		p = tz_p_num(p + 1, 1, 6, &v);
		if (!p)
			return NULL;
		r->d = (int)v;
	} else if (*p == 'J') {
		r->kind = 'J';
		p = tz_p_num(p + 1, 3, 365, &v);
		if (!p || v < 1)
			return NULL;
		r->n = (int)v;
	} else {
		r->kind = 'N';
		p = tz_p_num(p, 3, 365, &v);
		if (!p)
			return NULL;
		r->n = (int)v;
	}
	if (*p == '/')
		p = tz_p_hms(p + 1, 167, &r->secs);
	return p;
}

/* "STDoff[DST[off],start[/time],end[/time]]"; 0 on success.  POSIX
 * offsets count west of Greenwich; ours count east. */
static int tz_parse_rule(const char *p, struct tz_rule *r)
{
	long v;

	memset(r, 0, sizeof(*r));
	p = tz_p_abbr(p);
	if (!p)
		return -1;
	p = tz_p_hms(p, 24, &v);
	if (!p)
		return -1;
	r->std_off = -v;
	if (!*p)
		return 0;
	p = tz_p_abbr(p);
	if (!p)
		return -1;
	r->has_dst = 1;
	r->dst_off = r->std_off + 3600;
	if (*p && *p != ',') {
		p = tz_p_hms(p, 24, &v);
		if (!p)
			return -1;
		r->dst_off = -v;
	}
	/* Without dates POSIX leaves the rule to the implementation; zic
	 * always writes them. */
	if (*p != ',')
		return -1;
	p = tz_p_date(p + 1, &r->start);
	if (!p || *p != ',')
		return -1;
	p = tz_p_date(p + 1, &r->end);
	if (!p || *p)
		return -1;
	return 0;
}

/* ---- lookups ------------------------------------------------------------- */

long tz_offset(const struct tz *z, int64_t t, int *isdst)
{
	const struct tz_type *ty;
	size_t lo, hi, mid;
	int dst_scratch;

	if (!isdst)
		isdst = &dst_scratch;
	if (!z)
		z = &tz_utc_zone;
	t = tz_clamp(t);
	if (z->has_rule && (z->n == 0 || t >= z->at[z->n - 1]))
		return tz_rule_offset(&z->rule, t, isdst);
	if (z->n == 0 || t < z->at[0]) {
		ty = &z->types[0];
	} else {
		/* the last transition at or before t */
		lo = 0;
		hi = z->n;
		while (hi - lo > 1) {
			mid = lo + (hi - lo) / 2;
			if (z->at[mid] <= t)
				lo = mid;
			else
				hi = mid;
		}
		ty = &z->types[z->idx[lo]];
	}
	*isdst = ty->dst;
	return ty->off;
}

static int tz_valid_at(const struct tz *z, int64_t t, int64_t local)
{
	return t + tz_offset(z, t, NULL) == local;
}

int64_t tz_from_local(const struct tz *z, int64_t local)
{
	/* Offsets in force a day and a half either side: any change near
	 * `local` lies between them (real zones change at most a few times
	 * a year). */
	int64_t before, after;

	local = tz_clamp(local);
	before = local - tz_offset(z, local - 129600, NULL);
	after = local - tz_offset(z, local + 129600, NULL);
	if (tz_valid_at(z, before, local) && tz_valid_at(z, after, local))
		return before < after ? before : after;
	if (tz_valid_at(z, after, local))
		return after;
	return before; /* valid, or the skipped hour */
}

int64_t tz_local(const struct tz *z, int64_t t)
{
	t = tz_clamp(t);
	return t + tz_offset(z, t, NULL);
}

int tz_weekday(const struct tz *z, int64_t t)
{
	int64_t days;

	days = tz_floor_div(tz_local(z, t), 86400);
	/* 1970-01-01 was a Thursday: 3 with Monday 0 */
	return (int)(((days + 3) % 7 + 7) % 7);
}

int tz_format(const struct tz *z, int64_t t, char *buf, size_t size)
{
	int64_t local, days, secs, y;
	long off, a;
	int m, d;
	char zone[16];

	t = tz_clamp(t);
	off = tz_offset(z, t, NULL);
	local = t + off;
	days = tz_floor_div(local, 86400);
	secs = local - days * 86400;
	tz_civil_from_days(days, &y, &m, &d);
	/* offsets are within TZ_OFF_MIN..TZ_OFF_MAX: under 27 hours */
	a = (off < 0 ? -off : off) % 100000;
	if (!z || z == &tz_utc_zone)
		snprintf(zone, sizeof(zone), "Z");
	else if (a % 60)
		snprintf(zone, sizeof(zone), "%c%02d:%02d:%02d",
			 off < 0 ? '-' : '+', (int)(a / 3600),
			 (int)(a / 60 % 60), (int)(a % 60));
	else
		snprintf(zone, sizeof(zone), "%c%02d:%02d",
			 off < 0 ? '-' : '+', (int)(a / 3600),
			 (int)(a / 60 % 60));
	return snprintf(buf, size, "%04lld-%02d-%02dT%02d:%02d:%02d%s",
			(long long)y, m, d, (int)(secs / 3600),
			(int)(secs / 60 % 60), (int)(secs % 60), zone);
}

/* Exactly n digits as a number. */
static const char *tz_p_fixed(const char *p, int n, long *out)
{
	long v = 0;
	int i;

	for (i = 0; i < n; i++, p++) {
		if (!ascii_is_digit((unsigned char)*p))
			return NULL;
		v = v * 10 + (*p - '0');
	}
	*out = v;
	return p;
}

static int tz_parse_unix(const char *s, int64_t *out)
{
	int64_t v = 0;
	int neg = 0, n = 0;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	for (; ascii_is_digit((unsigned char)*s); s++, n++) {
		if (n >= 12)
			return -1;
		v = v * 10 + (*s - '0');
	}
	if (n == 0 || *s)
		return -1;
	v = neg ? -v : v;
	if (v < TZ_T_MIN || v > TZ_T_MAX)
		return -1;
	*out = v;
	return 0;
}

int tz_parse_time(const struct tz *z, const char *s, int64_t *out)
{
	long y, mo, d, h, mi, sec = 0, oh, om;
	int64_t local;
	const char *p = s;

	if (!s)
		return -1;
	if (*p == '@')
		return tz_parse_unix(p + 1, out);
	if (!(p = tz_p_fixed(p, 4, &y)) || *p++ != '-' ||
	    !(p = tz_p_fixed(p, 2, &mo)) || *p++ != '-' ||
	    !(p = tz_p_fixed(p, 2, &d)) || (*p != 'T' && *p != 't') ||
	    !(p = tz_p_fixed(p + 1, 2, &h)) || *p++ != ':' ||
	    !(p = tz_p_fixed(p, 2, &mi)))
		return -1;
	if (*p == ':' && !(p = tz_p_fixed(p + 1, 2, &sec)))
		return -1;
	if (y < 1 || mo < 1 || mo > 12 || d < 1 ||
	    d > tz_month_days(y, (int)mo) || h > 23 || mi > 59 || sec > 59)
		return -1;
	local = tz_days_from_civil(y, (int)mo, (int)d) * 86400 +
		h * 3600 + mi * 60 + sec;
	if (!*p) {
		*out = tz_from_local(z, local);
		return 0;
	}
	if ((*p == 'Z' || *p == 'z') && !p[1]) {
		*out = local;
		return 0;
	}
	if ((*p != '+' && *p != '-') || !tz_p_fixed(p + 1, 2, &oh) ||
	    p[3] != ':' || !tz_p_fixed(p + 4, 2, &om) || p[6] ||
	    oh > 23 || om > 59)
		return -1;
	*out = local - (*p == '-' ? -1 : 1) * (oh * 3600 + om * 60);
	return 0;
}

/* ---- TZif ---------------------------------------------------------------- */

#define TZ_HEADER 44

static uint32_t tz_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static int64_t tz_be64(const unsigned char *p)
{
	uint64_t v = (uint64_t)tz_be32(p) << 32 | tz_be32(p + 4);

	return (int64_t)v;
}

/* The six counts of a header, in file order. */
struct tz_counts {
	size_t isut, isstd, leap, time, type, chars;
};

static int tz_header(const unsigned char *p, size_t avail,
		     struct tz_counts *c)
{
	if (avail < TZ_HEADER || memcmp(p, "TZif", 4) != 0)
		return -1;
	/* Each count is at most TZ_FILE_MAX here, so no product below
	 * overflows. */
	c->isut = tz_be32(p + 20);
	c->isstd = tz_be32(p + 24);
	c->leap = tz_be32(p + 28);
	c->time = tz_be32(p + 32);
	c->type = tz_be32(p + 36);
	c->chars = tz_be32(p + 40);
	if (c->isut > TZ_FILE_MAX || c->isstd > TZ_FILE_MAX ||
	    c->leap > TZ_FILE_MAX || c->time > TZ_FILE_MAX ||
	    c->type > TZ_FILE_MAX || c->chars > TZ_FILE_MAX)
		return -1;
	return 0;
}

static size_t tz_block(const struct tz_counts *c, size_t time_size)
{
	return c->time * time_size + c->time + c->type * 6 + c->chars +
	       c->leap * (time_size + 4) + c->isstd + c->isut;
}

enum tz_err tz_parse(const char *name, const unsigned char *buf, size_t len,
		     struct tz **out)
{
	struct tz_counts c;
	const unsigned char *p, *end;
	struct tz *z = NULL;
	enum tz_err rc = TZ_EFORMAT;
	char footer[256];
	size_t off, i, n;
	long utoff;

	if (len < TZ_HEADER || memcmp(buf, "TZif", 4) != 0)
		return TZ_ENOENT;
	if (buf[4] < '2' || tz_header(buf, len, &c))
		goto out; /* version 1: 32-bit data only */
	off = TZ_HEADER + tz_block(&c, 4);
	if (off > len || tz_header(buf + off, len - off, &c))
		goto out;
	p = buf + off + TZ_HEADER;
	if (tz_block(&c, 8) > len - off - TZ_HEADER)
		goto out;
	end = p + tz_block(&c, 8);
	if (c.leap || c.type == 0 || c.type > 256 || c.chars == 0 ||
	    (c.isstd && c.isstd != c.type) || (c.isut && c.isut != c.type))
		goto out;

	rc = TZ_ENOMEM;
	z = calloc(1, sizeof(*z));
	if (!z)
		goto out;
	snprintf(z->name, sizeof(z->name), "%s", name ? name : "");
	z->n = c.time;
	z->ntypes = c.type;
	z->at = malloc((c.time ? c.time : 1) * sizeof(*z->at));
	z->idx = malloc(c.time ? c.time : 1);
	z->types = malloc(c.type * sizeof(*z->types));
	if (!z->at || !z->idx || !z->types)
		goto out;

	rc = TZ_EFORMAT;
	for (i = 0; i < c.time; i++) {
		z->at[i] = tz_be64(p + i * 8);
		if (i && z->at[i] <= z->at[i - 1])
			goto out;
	}
	p += c.time * 8;
	for (i = 0; i < c.time; i++)
		if ((z->idx[i] = p[i]) >= c.type)
			goto out;
	p += c.time;
	for (i = 0; i < c.type; i++, p += 6) {
		utoff = (long)(int32_t)tz_be32(p);
		if (utoff < TZ_OFF_MIN || utoff > TZ_OFF_MAX || p[4] > 1 ||
		    p[5] >= c.chars)
			goto out;
		z->types[i].off = utoff;
		z->types[i].dst = p[4];
	}

	/* The footer: "\n" TZ-string "\n", or nothing at all. */
	p = end;
	n = len - (size_t)(p - buf);
	if (n > 0) {
		if (n < 2 || p[0] != '\n' || p[n - 1] != '\n' ||
		    n - 2 >= sizeof(footer) || memchr(p + 1, '\n', n - 2))
			goto out;
		memcpy(footer, p + 1, n - 2);
		footer[n - 2] = '\0';
		if (footer[0]) {
			if (tz_parse_rule(footer, &z->rule))
				goto out;
			z->has_rule = 1;
		}
	}
	*out = z;
	z = NULL;
	rc = TZ_OK;
out:
	tz_free(z);
	return rc;
}

void tz_free(struct tz *z)
{
	if (!z || z == &tz_utc_zone)
		return;
	free(z->at);
	free(z->idx);
	free(z->types);
	free(z);
}

/* ---- names, files and the cache ------------------------------------------ */

int tz_check_name(const char *name)
{
	size_t i, len;
	int c;

	if (!name)
		return -1;
	len = strnlen(name, TZ_NAME_MAX);
	if (len == 0 || len >= TZ_NAME_MAX)
		return -1;
	for (i = 0; i < len; i++) {
		c = (unsigned char)name[i];
		if (!ascii_is_alpha(c) && !ascii_is_digit(c) && c != '_' &&
		    c != '+' && c != '-' && c != '/')
			return -1;
		/* no leading '/', no empty component, no trailing '/' */
		if (c == '/' && (i == 0 || name[i - 1] == '/' ||
				 i + 1 == len))
			return -1;
	}
	/* ".." cannot occur: '.' is not allowed at all. */
	return 0;
}

static enum tz_err tz_load(const char *name, struct tz **out)
{
	const char *dir = getenv("TZDIR");
	char path[TZ_PATH_MAX];
	unsigned char *buf = NULL;
	enum tz_err rc;
	struct stat st;
	enum slurp_err se;
	size_t len = 0;
	int fd;

	if (!dir || !*dir)
		dir = TZ_DIR_DEFAULT;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path))
		return TZ_ENOENT;
	/* O_NONBLOCK: opening a FIFO (or a device) must not wait for a
	 * writer; fstat() below then refuses anything but a regular file,
	 * where the flag does nothing. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ||
		       errno == ELOOP || errno == ENAMETOOLONG
			? TZ_ENOENT : TZ_EIO;
	rc = TZ_EIO;
	if (fstat(fd, &st))
		goto out;
	rc = TZ_ENOENT;
	if (!S_ISREG(st.st_mode))
		goto out;
	rc = TZ_EFORMAT;
	if (st.st_size > TZ_FILE_MAX)
		goto out;
	buf = (unsigned char *)slurp_fd(fd, TZ_FILE_MAX, &len, &se);
	if (!buf) {
		rc = se == SLURP_ENOMEM ? TZ_ENOMEM :
		     se == SLURP_EBIG ? TZ_EFORMAT : TZ_EIO;
		goto out;
	}
	rc = tz_parse(name, buf, len, out);
out:
	free(buf);
	close(fd);
	return rc;
}

static pthread_mutex_t tz_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tz *tz_cache[TZ_CACHE_MAX];  /* guarded by tz_lock */
static size_t tz_cached;                   /* guarded by tz_lock */

enum tz_err tz_get(const char *name, const struct tz **out)
{
	struct tz *z = NULL;
	enum tz_err rc = TZ_OK;
	size_t i;

	if (tz_check_name(name))
		return TZ_ENAME;
	if (strcmp(name, "UTC") == 0) {
		*out = &tz_utc_zone;
		return TZ_OK;
	}
	pthread_mutex_lock(&tz_lock);
	for (i = 0; i < tz_cached; i++) {
		if (strcmp(tz_cache[i]->name, name) == 0) {
			z = tz_cache[i];
			goto out;
		}
	}
	if (tz_cached == TZ_CACHE_MAX) {
		rc = TZ_EFULL;
		goto out;
	}
	rc = tz_load(name, &z);
	if (rc == TZ_OK)
		tz_cache[tz_cached++] = z;
out:
	pthread_mutex_unlock(&tz_lock);
	if (rc == TZ_OK)
		*out = z;
	return rc;
}
