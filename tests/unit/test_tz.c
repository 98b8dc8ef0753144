/*
 * test_tz.c - time zones from the system's TZif files: known offsets on
 * both sides of DST changes, the footer rule after the last transition,
 * names, broken files, the cache, and reading and writing times.
 *
 * Expected values come from Python's zoneinfo and glibc (`TZ=... date`)
 * on the same tzdata.  Needs Debian's tzdata (scripts/deps.sh).
 */
#include <dirent.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tz.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define ZONEINFO "/usr/share/zoneinfo"

static const struct tz *zone(const char *name)
{
	const struct tz *z = NULL;
	enum tz_err e = tz_get(name, &z);

	if (e != TZ_OK)
		fail_msg("tz_get(%s): %s", name, tz_strerror(e));
	assert_non_null(z);
	return z;
}

struct expect {
	int64_t t;
	long off;
	int dst;
};

static void expect_offsets(const struct tz *z, const struct expect *e,
			   size_t n)
{
	size_t i;
	long off;
	int dst;

	for (i = 0; i < n; i++) {
		dst = -1;
		off = tz_offset(z, e[i].t, &dst);
		if (off != e[i].off || dst != e[i].dst)
			fail_msg("%s at %lld: offset %ld dst %d, want %ld %d",
				 tz_name(z), (long long)e[i].t, off, dst,
				 e[i].off, e[i].dst);
	}
}

/* ---- offsets of real zones ---------------------------------------------- */

static void test_known_offsets(void **state)
{
	static const struct expect berlin[] = {
		{ 1782907200, 7200, 1 },  /* 2026-07-01T12:00Z: CEST */
		{ 1768478400, 3600, 0 },  /* 2026-01-15T12:00Z: CET */
		{ -5364662400, 3208, 0 }, /* 1800: local mean time */
	};
	static const struct expect ny[] = {
		{ 1782907200, -14400, 1 },
		{ 1768478400, -18000, 0 },
	};
	static const struct expect kolkata[] = {
		{ 1782907200, 19800, 0 },  /* +05:30 */
		{ 4118126400, 19800, 0 },  /* 2100 */
	};
	static const struct expect sydney[] = {
		{ 1768435200, 39600, 1 },  /* 2026-01-15: AEDT, summer */
		{ 1784073600, 36000, 0 },  /* 2026-07-15: AEST */
	};

	(void)state;
	expect_offsets(zone("Europe/Berlin"), berlin, COUNT(berlin));
	expect_offsets(zone("America/New_York"), ny, COUNT(ny));
	expect_offsets(zone("Asia/Kolkata"), kolkata, COUNT(kolkata));
	expect_offsets(zone("Australia/Sydney"), sydney, COUNT(sydney));
}

/* The second before and the second of each change. */
static void test_dst_switches(void **state)
{
	static const struct expect berlin[] = {
		{ 1774745999, 3600, 0 },  /* 2026-03-29T00:59:59Z */
		{ 1774746000, 7200, 1 },  /* 01:00Z = 03:00 CEST */
		{ 1792889999, 7200, 1 },  /* 2026-10-25T00:59:59Z */
		{ 1792890000, 3600, 0 },  /* 01:00Z = 02:00 CET */
	};
	static const struct expect ny[] = {
		{ 1772953199, -18000, 0 }, /* 2026-03-08T06:59:59Z */
		{ 1772953200, -14400, 1 }, /* 07:00Z = 03:00 EDT */
		{ 1793512799, -14400, 1 }, /* 2026-11-01T05:59:59Z */
		{ 1793512800, -18000, 0 }, /* 06:00Z = 01:00 EST */
	};

	(void)state;
	expect_offsets(zone("Europe/Berlin"), berlin, COUNT(berlin));
	expect_offsets(zone("America/New_York"), ny, COUNT(ny));
}

/* Debian's files list transitions up to 2037; 2100 is the footer's. */
static void test_far_future_footer(void **state)
{
	static const struct expect berlin[] = {
		{ 4118126400, 7200, 1 },  /* 2100-07-01T12:00Z */
		{ 4103697600, 3600, 0 },  /* 2100-01-15T12:00Z */
		{ 4109878799, 3600, 0 },  /* 2100-03-28T00:59:59Z */
		{ 4109878800, 7200, 1 },
		{ 4128627599, 7200, 1 },  /* 2100-10-31T00:59:59Z */
		{ 4128627600, 3600, 0 },
	};
	static const struct expect ny[] = {
		{ 4118126400, -14400, 1 },
		{ 4103697600, -18000, 0 },
	};
	static const struct expect sydney[] = {
		{ 4103654400, 39600, 1 }, /* 2100-01-15: DST over new year */
		{ 4119292800, 36000, 0 },
		{ 4110451199, 39600, 1 }, /* 2100-04-03T15:59:59Z */
		{ 4110451200, 36000, 0 },
		{ 4126175999, 36000, 0 }, /* 2100-10-02T15:59:59Z */
		{ 4126176000, 39600, 1 },
	};

	(void)state;
	expect_offsets(zone("Europe/Berlin"), berlin, COUNT(berlin));
	expect_offsets(zone("America/New_York"), ny, COUNT(ny));
	expect_offsets(zone("Australia/Sydney"), sydney, COUNT(sydney));
	/* far beyond anything: clamped, still the rule */
	assert_int_equal(tz_offset(zone("Europe/Berlin"), INT64_MAX, NULL),
			 3600);
	assert_int_equal(tz_offset(zone("Europe/Berlin"), INT64_MIN, NULL),
			 3208);
}

static void test_utc(void **state)
{
	const struct tz *z = NULL;
	int dst = -1;

	(void)state;
	assert_int_equal(tz_get("UTC", &z), TZ_OK);
	assert_ptr_equal(z, tz_utc());
	assert_string_equal(tz_name(z), "UTC");
	assert_string_equal(tz_name(NULL), "UTC");
	assert_int_equal(tz_offset(NULL, 1782907200, &dst), 0);
	assert_int_equal(dst, 0);
	assert_int_equal(tz_offset(z, 1782907200, NULL), 0);
	/* Etc/UTC is a file, and says the same */
	assert_int_equal(tz_offset(zone("Etc/UTC"), 1782907200, NULL), 0);
	assert_int_equal(tz_offset(zone("Etc/GMT+5"), 1782907200, NULL),
			 -18000);
}

/* ---- footer rules on crafted files --------------------------------------- */

/* A version 2 TZif image with no transitions, one type and `footer`. */
static size_t build_tzif(unsigned char *buf, size_t size, char version,
			 const char *footer)
{
	static const unsigned char data[] = {
		0, 0, 0, 0, 0, 0, 'A', 'A', 'A', 0,
	};
	size_t o = 0, i;

	for (i = 0; i < 2; i++) {
		assert_true(o + 44 + sizeof(data) <= size);
		memset(buf + o, 0, 44);
		memcpy(buf + o, "TZif", 4);
		buf[o + 4] = (unsigned char)version;
		buf[o + 39] = 1; /* typecnt */
		buf[o + 43] = 4; /* charcnt */
		o += 44;
		memcpy(buf + o, data, sizeof(data));
		o += sizeof(data);
		if (version == 0)
			return o;
	}
	if (footer) {
		assert_true(o + strlen(footer) + 2 <= size);
		o += (size_t)snprintf((char *)buf + o, size - o, "\n%s\n",
				      footer);
	}
	return o;
}

static struct tz *rule_zone(const char *footer)
{
	unsigned char buf[512];
	struct tz *z = NULL;
	size_t n = build_tzif(buf, sizeof(buf), '2', footer);
	enum tz_err e = tz_parse("test", buf, n, &z);

	if (e != TZ_OK)
		fail_msg("footer '%s': %s", footer, tz_strerror(e));
	return z;
}

static void expect_rule(const char *footer, const struct expect *e,
			size_t n)
{
	struct tz *z = rule_zone(footer);

	expect_offsets(z, e, n);
	tz_free(z);
}

static void test_footer_forms(void **state)
{
	/* Nuuk: changes at -01:00 and 00:00 local */
	static const struct expect nuuk[] = {
		{ 1901149199, -7200, 0 }, { 1901149200, -3600, 1 },
		{ 1919293199, -3600, 1 }, { 1919293200, -7200, 0 },
	};
	/* RFC 8536's DST all year */
	static const struct expect always[] = {
		{ 1893456000, -14400, 1 }, { 1906502400, -14400, 1 },
		{ 1924991999, -14400, 1 }, { 1988107200, -14400, 1 },
	};
	/* Jn skips Feb 29, n counts it (2032 is a leap year) */
	static const struct expect julian[] = {
		{ 1930085999, 10800, 0 }, { 1930086000, 14400, 1 },
		{ 1961668800, 10800, 0 }, { 1961708400, 14400, 1 },
		{ 1982440799, 14400, 1 }, { 1982440800, 10800, 0 },
		{ 1950904799, 14400, 1 }, { 1950904800, 10800, 0 },
	};
	/* Israel: 26:00 on the 4th Thursday */
	static const struct expect israel[] = {
		{ 1900972799, 7200, 0 }, { 1900972800, 10800, 1 },
		{ 1919285999, 10800, 1 }, { 1919286000, 7200, 0 },
	};
	static const struct expect quoted[] = {
		{ 1900972799, 19800, 0 },
	};

	(void)state;
	expect_rule("<-02>2<-01>,M3.5.0/-1,M10.5.0/0", nuuk, COUNT(nuuk));
	expect_rule("EST5EDT,0/0,J365/25", always, COUNT(always));
	expect_rule("AAA-3BBB-4,J60/2,300/2", julian, COUNT(julian));
	expect_rule("IST-2IDT,M3.4.4/26,M10.5.0", israel, COUNT(israel));
	expect_rule("<+0530>-5:30", quoted, COUNT(quoted));
}

static void test_bad_files(void **state)
{
	static const char *const footers[] = {
		"CET",                       /* no offset */
		"CE-1",                      /* name too short */
		"CET-1CEST",                 /* DST without dates */
		"CET-1CEST,M3.5.0",          /* one date */
		"CET-1CEST,M13.5.0,M10.5.0", /* month 13 */
		"CET-1CEST,M3.6.0,M10.5.0",  /* week 6 */
		"CET-1CEST,M3.5.7,M10.5.0",  /* day 7 */
		"CET-1CEST,J0,J365",         /* J from 1 */
		"CET-1CEST,M3.5.0/168,M10.5.0", /* hours above 167 */
		"CET-25",                    /* offset above 24 h */
		"<CE>-1",                    /* quoted name too short */
		"CET-1 ",                    /* trailing junk */
	};
	unsigned char buf[512];
	struct tz *z = NULL;
	size_t n, i;

	(void)state;
	for (i = 0; i < COUNT(footers); i++) {
		n = build_tzif(buf, sizeof(buf), '2', footers[i]);
		if (tz_parse("x", buf, n, &z) != TZ_EFORMAT)
			fail_msg("footer '%s' accepted", footers[i]);
	}
	/* version 1: no 64-bit data */
	n = build_tzif(buf, sizeof(buf), 0, NULL);
	assert_int_equal(tz_parse("x", buf, n, &z), TZ_EFORMAT);
	/* not TZif at all */
	assert_int_equal(tz_parse("x", (const unsigned char *)"hello", 5, &z),
			 TZ_ENOENT);
	/* every truncation of a good file fails cleanly, but the one that
	 * drops the whole footer */
	n = build_tzif(buf, sizeof(buf), '2', "CET-1CEST,M3.5.0,M10.5.0/3");
	for (i = 0; i < n; i++) {
		if (tz_parse("x", buf, i, &z) != TZ_OK)
			continue;
		tz_free(z);
		if (i != build_tzif(buf, sizeof(buf), '2', NULL))
			fail_msg("truncated to %zu bytes accepted", i);
		build_tzif(buf, sizeof(buf), '2',
			   "CET-1CEST,M3.5.0,M10.5.0/3");
	}
	assert_int_equal(tz_parse("x", buf, n, &z), TZ_OK);
	tz_free(z);
	/* no footer at all: the last type */
	n = build_tzif(buf, sizeof(buf), '2', NULL);
	assert_int_equal(tz_parse("x", buf, n, &z), TZ_OK);
	assert_int_equal(tz_offset(z, 0, NULL), 0);
	tz_free(z);
	/* an empty footer is allowed too */
	n = build_tzif(buf, sizeof(buf), '2', "");
	assert_int_equal(tz_parse("x", buf, n, &z), TZ_OK);
	tz_free(z);
	tz_free(NULL);
}

/* ---- every zone of the system -------------------------------------------- */

/* The footer of a TZif file, or "" when there is none. */
static void read_footer(const char *path, char *out, size_t size)
{
	unsigned char buf[TZ_FILE_MAX];
	FILE *f = fopen(path, "rb");
	size_t n, i;

	out[0] = '\0';
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (n < 2 || buf[n - 1] != '\n')
		return;
	for (i = n - 1; i > 0 && buf[i - 1] != '\n'; i--)
		;
	if (i == 0 || n - 1 - i >= size)
		return;
	memcpy(out, buf + i, n - 1 - i);
	out[n - 1 - i] = '\0';
}

/* Zones whose files list predicted changes (around Ramadan) up to 2037
 * that their footer, for later years, does not follow. */
static const char *const ramadan[] = {
	"Africa/Casablanca", "Africa/El_Aaiun", "Asia/Gaza", "Asia/Hebron",
};

/*
 * Load a zone, and where it has a footer, check the footer's rule alone
 * against the file's transitions (which zic writes up to 2037) in
 * 2027-2036: daily, then to the second around every change.
 */
static int check_zone(const char *name)
{
	char path[512], footer[256];
	const struct tz *z;
	struct tz *r;
	int64_t t, lo, hi, mid;
	const int64_t from = 1798761600, to = 2114380800; /* 2027..2037 */
	size_t i;

	z = zone(name);
	for (i = 0; i < COUNT(ramadan); i++)
		if (!strcmp(name, ramadan[i]))
			return 0;
	snprintf(path, sizeof(path), ZONEINFO "/%s", name);
	read_footer(path, footer, sizeof(footer));
	if (!footer[0])
		return 0;
	r = rule_zone(footer);
	for (t = from; t < to; t += 86400) {
		if (tz_offset(z, t, NULL) == tz_offset(z, t + 86400, NULL))
			continue;
		lo = t;
		hi = t + 86400;
		while (hi - lo > 1) {
			mid = lo + (hi - lo) / 2;
			if (tz_offset(z, mid, NULL) == tz_offset(z, lo, NULL))
				lo = mid;
			else
				hi = mid;
		}
		if (tz_offset(r, lo, NULL) != tz_offset(z, lo, NULL) ||
		    tz_offset(r, hi, NULL) != tz_offset(z, hi, NULL))
			fail_msg("%s: footer '%s' disagrees with the file at "
				 "%lld", name, footer, (long long)hi);
	}
	if (tz_offset(r, from, NULL) != tz_offset(z, from, NULL))
		fail_msg("%s: footer '%s' disagrees at %lld", name, footer,
			 (long long)from);
	tz_free(r);
	return 1;
}

static void walk(const char *rel, int *zones, int *rules)
{
	char path[512], child[256];
	struct dirent *d;
	struct stat st;
	DIR *dir;

	snprintf(path, sizeof(path), ZONEINFO "%s%s", *rel ? "/" : "", rel);
	dir = opendir(path);
	assert_non_null(dir);
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.' || strchr(d->d_name, '.'))
			continue;
		if ((size_t)snprintf(child, sizeof(child), "%s%s%s", rel,
				     *rel ? "/" : "", d->d_name) >=
		    sizeof(child))
			continue;
		/* right/: leap seconds; posix/: copies; not zones: */
		if (!strcmp(child, "right") || !strcmp(child, "posix") ||
		    !strcmp(child, "leapseconds") ||
		    !strcmp(child, "localtime"))
			continue;
		snprintf(path, sizeof(path), ZONEINFO "/%s", child);
		if (stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk(child, zones, rules);
			continue;
		}
		*rules += check_zone(child);
		++*zones;
	}
	closedir(dir);
}

static void test_every_zone(void **state)
{
	int zones = 0, rules = 0;

	(void)state;
	walk("", &zones, &rules);
	/* tzdata 2025b has about 600 names */
	if (zones < 300 || rules < 300)
		fail_msg("only %d zones, %d with a footer", zones, rules);
}

/* ---- names and the cache ------------------------------------------------- */

static void test_names(void **state)
{
	static const char *const good[] = {
		"Europe/Berlin", "America/Argentina/Buenos_Aires", "Etc/GMT+5",
		"Etc/GMT-14", "UTC",
	};
	static const char *const bad[] = {
		"", "/etc/passwd", "../etc/passwd", "Europe/../../etc/passwd",
		"Europe//Berlin", "Europe/", "Europe/Berlin\n", "Europe Berlin",
		"Europe/Berlin.", "Eur\xc3\xb6pe",
		"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
		"AAA", /* 65 */
	};
	const struct tz *z;
	size_t i;

	(void)state;
	for (i = 0; i < COUNT(good); i++) {
		assert_int_equal(tz_check_name(good[i]), 0);
		assert_int_equal(tz_get(good[i], &z), TZ_OK);
	}
	for (i = 0; i < COUNT(bad); i++) {
		if (tz_check_name(bad[i]) == 0)
			fail_msg("'%s' accepted", bad[i]);
		assert_int_equal(tz_get(bad[i], &z), TZ_ENAME);
	}
	assert_int_equal(tz_check_name(NULL), -1);
	assert_int_equal(tz_get("Mars/Olympus_Mons", &z), TZ_ENOENT);
	assert_int_equal(tz_get("Europe", &z), TZ_ENOENT);      /* a dir */
	assert_int_equal(tz_get("Europe/Berlin/x", &z), TZ_ENOENT);
	assert_int_equal(tz_get("leapseconds", &z), TZ_ENOENT); /* text */
	assert_int_equal(tz_get("right/UTC", &z), TZ_EFORMAT);  /* leaps */
	assert_string_equal(tz_strerror(TZ_ENOENT), "no such time zone");
}

#define THREADS 8

static void *get_many(void *arg)
{
	static const char *const names[] = {
		"Asia/Tokyo", "Europe/Paris", "America/Chicago",
		"Africa/Cairo", "Pacific/Auckland",
	};
	const struct tz **out = arg;
	size_t i, round;

	for (round = 0; round < 50; round++)
		for (i = 0; i < COUNT(names); i++)
			if (tz_get(names[i], &out[i]) != TZ_OK)
				out[i] = NULL;
	return NULL;
}

/* One load per zone, the same pointer for everyone, from any thread. */
static void test_cache_threads(void **state)
{
	const struct tz *got[THREADS][5];
	pthread_t th[THREADS];
	size_t i, j;

	(void)state;
	for (i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, get_many,
						got[i]), 0);
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	for (j = 0; j < 5; j++) {
		assert_non_null(got[0][j]);
		for (i = 1; i < THREADS; i++)
			assert_ptr_equal(got[i][j], got[0][j]);
	}
	assert_ptr_equal(zone("Europe/Paris"), zone("Europe/Paris"));
	assert_string_equal(tz_name(zone("Europe/Paris")), "Europe/Paris");
}

/* ---- calendar, reading and writing times --------------------------------- */

static void test_calendar(void **state)
{
	int64_t d, y;
	int m, dd;

	(void)state;
	assert_int_equal(tz_days_from_civil(1970, 1, 1), 0);
	assert_int_equal(tz_days_from_civil(2000, 3, 1), 11017);
	assert_int_equal(tz_days_from_civil(1969, 12, 31), -1);
	assert_int_equal(tz_days_from_civil(2026, 7, 1), 20635);
	for (d = -800000; d < 3000000; d += 997) {
		tz_civil_from_days(d, &y, &m, &dd);
		assert_int_equal(tz_days_from_civil(y, m, dd), d);
	}
	tz_civil_from_days(20635, &y, &m, &dd);
	assert_int_equal(y, 2026);
	assert_int_equal(m, 7);
	assert_int_equal(dd, 1);
}

static void expect_format(const struct tz *z, int64_t t, const char *want)
{
	char buf[TZ_TIME_MAX];

	tz_format(z, t, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_format(void **state)
{
	(void)state;
	expect_format(NULL, 1782907200, "2026-07-01T12:00:00Z");
	expect_format(zone("Europe/Berlin"), 1782907200,
		      "2026-07-01T14:00:00+02:00");
	expect_format(zone("Europe/Berlin"), 1768478400,
		      "2026-01-15T13:00:00+01:00");
	expect_format(zone("America/New_York"), 1782907200,
		      "2026-07-01T08:00:00-04:00");
	expect_format(zone("Asia/Kolkata"), 1782907200,
		      "2026-07-01T17:30:00+05:30");
	expect_format(zone("Europe/Berlin"), -5364662400,
		      "1800-01-01T00:53:28+00:53:28");
	expect_format(zone("Etc/UTC"), 0, "1970-01-01T00:00:00+00:00");
	/* Wednesday; in Berlin 23:30Z Sunday is already Monday */
	assert_int_equal(tz_weekday(NULL, 1782907200), 2);
	assert_int_equal(tz_weekday(NULL, 1783294200), 6);
	assert_int_equal(tz_weekday(zone("Europe/Berlin"), 1783294200), 0);
	assert_int_equal(tz_weekday(NULL, -1), 2); /* 1969-12-31 */
	assert_int_equal(tz_local(zone("Asia/Kolkata"), 0), 19800);
}

static void expect_time(const struct tz *z, const char *s, int64_t want)
{
	int64_t t = -1;

	if (tz_parse_time(z, s, &t))
		fail_msg("'%s' refused", s);
	if (t != want)
		fail_msg("'%s' in %s: %lld, want %lld", s, tz_name(z),
			 (long long)t, (long long)want);
}

static void test_parse_time(void **state)
{
	static const char *const bad[] = {
		"", "2026-07-01", "2026-07-01 12:00Z", "2026-07-01T12Z",
		"2026-07-01T12:00:00ZZ", "2026-02-29T00:00Z",
		"2026-13-01T00:00Z", "2026-07-01T24:00Z", "2026-07-01T12:60Z",
		"2026-07-01T12:00:60Z", "2026-07-01T12:00+2:00",
		"2026-07-01T12:00+02", "2026-07-01T12:00+24:00",
		"0000-01-01T00:00Z", "26-07-01T12:00Z", "@", "@12a", "@-",
		"@9999999999999", " 2026-07-01T12:00Z",
	};
	const struct tz *berlin = zone("Europe/Berlin");
	int64_t t;
	size_t i;

	(void)state;
	expect_time(NULL, "2026-07-01T12:00:00Z", 1782907200);
	expect_time(berlin, "2026-07-01T12:00:00Z", 1782907200);
	expect_time(berlin, "2026-07-01t12:00z", 1782907200);
	expect_time(NULL, "2026-07-01T14:00+02:00", 1782907200);
	expect_time(NULL, "2026-07-01T06:30:00-05:30", 1782907200);
	expect_time(NULL, "@1782907200", 1782907200);
	expect_time(NULL, "@-1", -1);
	expect_time(NULL, "2028-02-29T00:00Z", 1835395200);
	/* wall times: in the zone given */
	expect_time(NULL, "2026-07-01T12:00", 1782907200);
	expect_time(berlin, "2026-07-01T14:00", 1782907200);
	expect_time(berlin, "2026-01-15T13:00:00", 1768478400);
	/* skipped (02:30 on 2026-03-29): read with CET, so 03:30 CEST */
	expect_time(berlin, "2026-03-29T02:30", 1774747800);
	/* twice (02:30 on 2026-10-25): the first, in CEST */
	expect_time(berlin, "2026-10-25T02:30", 1792888200);
	expect_time(zone("America/New_York"), "2026-11-01T01:30",
		    1793511000);
	for (i = 0; i < COUNT(bad); i++)
		if (tz_parse_time(NULL, bad[i], &t) == 0)
			fail_msg("'%s' accepted", bad[i]);
	assert_int_equal(tz_parse_time(NULL, NULL, &t), -1);
}

/* A FIFO where a zone file should be: refused at once as "no such zone"
 * (opening it without O_NONBLOCK waited for a writer forever; the alarm
 * turns such a hang into a failure). */
static void test_fifo_zone(void **state)
{
	char dir[] = "/tmp/test_tz_XXXXXX", path[64];
	const char *old = getenv("TZDIR");
	const struct tz *z = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/Fifo_Zone", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	setenv("TZDIR", dir, 1);
	alarm(10);
	assert_int_equal(tz_get("Fifo_Zone", &z), TZ_ENOENT);
	alarm(0);
	assert_null(z);
	if (old)
		setenv("TZDIR", old, 1);
	else
		unsetenv("TZDIR");
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_offsets),
		cmocka_unit_test(test_dst_switches),
		cmocka_unit_test(test_far_future_footer),
		cmocka_unit_test(test_utc),
		cmocka_unit_test(test_footer_forms),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_every_zone),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_cache_threads),
		cmocka_unit_test(test_calendar),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_parse_time),
		cmocka_unit_test(test_fifo_zone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
