/*
 * tz.c - fuzz targets: time zones: TZif files, POSIX TZ rules, zone names, times (see fuzz.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

#include "tz.h"

/* ---- time zones ---------------------------------------------------------- */

/* Zone files read from the system for the corpus (fixed names, never
 * fuzzed ones), plus built images. */
static const char *const tz_files[] = {
	"Europe/Berlin", "America/New_York", "Australia/Lord_Howe",
	"Asia/Kolkata", "America/Sao_Paulo", "Pacific/Chatham",
};
#define TZ_NFILES (sizeof(tz_files) / sizeof(tz_files[0]))
#define TZ_NBUILT 3

static char *tz_corpus[TZ_NFILES + TZ_NBUILT];
static size_t tz_corpus_len[TZ_NFILES + TZ_NBUILT];
static size_t tz_ncorpus;

static void tz_be32(struct fz_buf *b, uint32_t v)
{
	char c[4] = { (char)(v >> 24), (char)(v >> 16), (char)(v >> 8),
		      (char)v };

	fz_insert(b, b->len, c, 4);
}

/*
 * A version 2 TZif image: an empty v1 block, then ntimes transitions an
 * hour apart from t0 alternating between two types (off0, off1 with DST),
 * and the footer.
 */
static void tz_build(struct fz_buf *b, size_t ntimes, int64_t t0,
		     long off0, long off1, const char *footer)
{
	static const char zeros[15];
	size_t i;

	b->len = 0;
	fz_puts(b, "TZif2");
	fz_insert(b, b->len, zeros, 15);
	for (i = 0; i < 6; i++)
		tz_be32(b, 0);
	fz_puts(b, "TZif2");
	fz_insert(b, b->len, zeros, 15);
	tz_be32(b, 0);                 /* isut */
	tz_be32(b, 0);                 /* isstd */
	tz_be32(b, 0);                 /* leap */
	tz_be32(b, (uint32_t)ntimes);  /* time */
	tz_be32(b, 2);                 /* type */
	tz_be32(b, 8);                 /* chars */
	for (i = 0; i < ntimes; i++) {
		int64_t t = t0 + (int64_t)i * 3600;

		tz_be32(b, (uint32_t)((uint64_t)t >> 32));
		tz_be32(b, (uint32_t)t);
	}
	for (i = 0; i < ntimes; i++)
		fz_insert(b, b->len, i % 2 ? "\1" : "\0", 1);
	tz_be32(b, (uint32_t)off0);
	fz_insert(b, b->len, "\0\0", 2);
	tz_be32(b, (uint32_t)off1);
	fz_insert(b, b->len, "\1\4", 2);
	fz_insert(b, b->len, "STD\0DST\0", 8);
	fz_append(b, "\n%s\n", footer);
}

static void tz_corpus_init(void)
{
	static const struct {
		size_t n;
		int64_t t0;
		long off0, off1;
		const char *footer;
	} built[TZ_NBUILT] = {
		{ 0, 0, 12600, 16200, "<+0330>-3:30" },
		{ 4, 1700000000, -18000, -14400,
		  "EST5EDT,M3.2.0,M11.1.0" },
		{ 2, -2000000000, 37800, 39600,
		  "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0" },
	};
	const char *dir = getenv("TZDIR");
	struct fz_buf b;
	char path[512];
	size_t i;
	FILE *f;

	if (tz_ncorpus)
		return;
	if (!dir || !*dir)
		dir = "/usr/share/zoneinfo";
	for (i = 0; i < TZ_NFILES; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, tz_files[i]);
		f = fopen(path, "rb");
		if (!f)
			continue;   /* no tzdata: the built images remain */
		b.p = malloc(TZ_FILE_MAX);
		assert_non_null(b.p);
		b.len = fread(b.p, 1, TZ_FILE_MAX, f);
		fclose(f);
		tz_corpus[tz_ncorpus] = b.p;
		tz_corpus_len[tz_ncorpus++] = b.len;
	}
	for (i = 0; i < TZ_NBUILT; i++) {
		b.p = malloc(FZ_MAX);
		assert_non_null(b.p);
		tz_build(&b, built[i].n, built[i].t0, built[i].off0,
			 built[i].off1, built[i].footer);
		tz_corpus[tz_ncorpus] = b.p;
		tz_corpus_len[tz_ncorpus++] = b.len;
	}
}

void tz_corpus_release(void)
{
	while (tz_ncorpus)
		free(tz_corpus[--tz_ncorpus]);
}

/* A usable zone: offsets within RFC 8536's range at instants all over
 * the calendar, and the helpers that use them stay in bounds. */
static void tz_check_zone(struct fz *r, const struct tz *z)
{
	static const int64_t fixed[] = {
		INT64_MIN, -62135596800LL, -1, 0, 1700000000, 4102444800LL,
		253402300799LL, INT64_MAX,
	};
	char buf[TZ_TIME_MAX + 8];
	int64_t t, local;
	size_t i;
	long off;
	int dst, n, wd;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]) + 24; i++) {
		t = i < sizeof(fixed) / sizeof(fixed[0]) ? fixed[i] :
			(int64_t)(fz_next(r) % 600000000000ULL) -
			300000000000LL;
		dst = 7;
		off = tz_offset(z, t, &dst);
		FZ_CHECK(off >= -89999 && off <= 93599, "offset %ld at %lld",
			 off, (long long)t);
		FZ_CHECK(dst == 0 || dst == 1, "isdst %d", dst);
		n = tz_format(z, t, buf, TZ_TIME_MAX);
		FZ_CHECK(n > 0 && n < TZ_TIME_MAX, "tz_format gave %d", n);
		wd = tz_weekday(z, t);
		FZ_CHECK(wd >= 0 && wd <= 6, "weekday %d", wd);
		local = tz_local(z, t);
		(void)tz_from_local(z, local);
	}
}

static void check_tz_file(struct fz *r, const char *in, size_t len,
			  int valid)
{
	unsigned char *img = (unsigned char *)fz_copy(in, len, 0);
	struct tz *z = (struct tz *)&z;
	enum tz_err rc;

	rc = tz_parse("Fuzz/Zone", img, len, &z);
	FZ_CHECK(rc == TZ_OK || rc == TZ_EFORMAT || rc == TZ_ENOENT ||
		 rc == TZ_ENOMEM, "tz_parse code %d", (int)rc);
	FZ_CHECK(!valid || rc == TZ_OK, "valid image refused: %s",
		 tz_strerror(rc));
	if (rc == TZ_OK) {
		fz_accepted++;
		FZ_CHECK(!strcmp(tz_name(z), "Fuzz/Zone"), "name '%s'",
			 tz_name(z));
		tz_check_zone(r, z);
		tz_free(z);
	} else {
		FZ_CHECK(z == (struct tz *)&z, "zone set on error");
	}
	free(img);
}

/* Mostly a few bytes changed: a TZif image has many checks to get past
 * before the deep parts. */
static void tz_file_mutate(struct fz *r, struct fz_buf *b)
{
	static const struct fz_dict none = { NULL, 0 };
	size_t k, n = 1 + fz_below(r, 3);

	if (fz_one_in(r, 3)) {
		fz_mutate(r, b, &none, NULL, 0);
		return;
	}
	for (k = 0; k < n && b->len; k++)
		b->p[fz_below(r, b->len)] = (char)fz_next(r);
}

void test_fuzz_tz_file(void **state)
{
	struct fz_target t = {
		"tz_file", NULL, 0, { NULL, 0 }, 20000, check_tz_file, NULL, 1,
		NULL, tz_file_mutate,
	};

	(void)state;
	tz_corpus_init();
	t.corpus = (const char *const *)tz_corpus;
	t.ncorpus = tz_ncorpus;
	t.corpus_len = tz_corpus_len;
	fz_run(&t);
}

/* The footer alone: POSIX TZ strings in a built image. */
static const char *const tz_rule_corpus[] = {
	"CET-1CEST,M3.5.0,M10.5.0/3",
	"EST5EDT,M3.2.0,M11.1.0",
	"<+1030>-10:30<+11>-11,M10.1.0,M4.1.0",
	"NZST-12NZDT,M9.5.0,M4.1.0/3",
	"IST-2IDT,M3.4.4/26,M10.5.0",
	"<-03>3",
	"WGT3WGST,M3.5.0/-2,M10.5.0/-1",
	"EST5EDT,0/0,J365/25",
	"<+00>0<+02>-2,M3.5.0/1,M10.5.0/3",
	"AAA-24:59:59BBB,J1/-167,J365/167",
};

static const char *const tz_rule_words[] = {
	"M", "J", "/", ",", ".", "<", ">", "-", "+", ":", "167", "168", "24",
	"25", "365", "366", "M13.1.0", "M3.6.0", "M3.5.7", "EST", "<+05>",
	"<>", "<a>", "AB",
};

char *tz_rule_space;  /* the image being built, FZ_MAX bytes */

static void check_tz_rule(struct fz *r, const char *in, size_t len,
			  int valid)
{
	struct fz_buf b;
	struct tz *z = NULL;
	enum tz_err rc;

	if (memchr(in, '\n', len) || memchr(in, '\0', len))
		return;   /* not a footer: tz_file covers framing */
	if (!tz_rule_space)
		tz_rule_space = malloc(FZ_MAX);
	assert_non_null(tz_rule_space);
	b.p = tz_rule_space;
	tz_build(&b, fz_below(r, 3), 1600000000, 3600, 7200, "");
	b.len--;   /* the footer's closing newline */
	fz_insert(&b, b.len, in, len);
	fz_puts(&b, "\n");
	rc = tz_parse("Fuzz/Rule", (const unsigned char *)b.p, b.len, &z);
	FZ_CHECK(rc == TZ_OK || rc == TZ_EFORMAT, "tz_parse code %d",
		 (int)rc);
	FZ_CHECK(!valid || rc == TZ_OK, "valid rule refused");
	if (rc == TZ_OK) {
		fz_accepted++;
		tz_check_zone(r, z);
		tz_free(z);
	}
}

FZ_TEST(tz_rule, tz_rule_corpus, tz_rule_words,
	20000, check_tz_rule, NULL, 1)

/*
 * Zone names: tz_get() must refuse every name that could leave the zone
 * directory, and reads only names tz_check_name() accepts.  Names that
 * pass are looked up for real (under $TZDIR or /usr/share/zoneinfo, which
 * is all such a name can reach).
 */
static const char *const tz_name_corpus[] = {
	"Europe/Berlin", "America/Argentina/Buenos_Aires", "Etc/GMT+5",
	"UTC", "America/Port-au-Prince", "EST5EDT",
};

static const char *const tz_name_words[] = {
	"/", "..", ".", "../", "/..", "//", "\\", "Europe", "Berlin", "etc",
	"passwd", "posix/", "right/", "~", "%2e%2e", "\xc0\xae", "zone.tab",
	"tzdata.zi",
};

static void check_tz_name(struct fz *r, const char *in, size_t len,
			  int valid)
{
	char *name = fz_copy(in, len, 1);
	const struct tz *z = (const struct tz *)&z;
	size_t n = strlen(name), i;
	enum tz_err rc;
	int ok = tz_check_name(name) == 0;

	if (ok) {
		FZ_CHECK(n >= 1 && n < TZ_NAME_MAX, "length %zu accepted", n);
		FZ_CHECK(name[0] != '/' && !strchr(name, '.') &&
			 !strstr(name, "//") && name[n - 1] != '/',
			 "name '%s' accepted", name);
		for (i = 0; i < n; i++)
			FZ_CHECK(strchr("abcdefghijklmnopqrstuvwxyz"
					"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					"0123456789_+-/", name[i]),
				 "byte 0x%02x accepted",
				 (unsigned char)name[i]);
	}
	rc = tz_get(name, &z);
	FZ_CHECK(rc >= TZ_OK && rc <= TZ_ENOMEM, "tz_get code %d", (int)rc);
	FZ_CHECK((rc == TZ_ENAME) == !ok, "tz_get %d, tz_check_name %d",
		 (int)rc, ok);
	FZ_CHECK(!valid || rc == TZ_OK, "zone '%s' not found: %s", name,
		 tz_strerror(rc));
	if (rc == TZ_OK) {
		fz_accepted++;
		FZ_CHECK(!strcmp(tz_name(z), name), "name '%s' for '%s'",
			 tz_name(z), name);
		tz_check_zone(r, z);
	} else {
		FZ_CHECK(z == (const struct tz *)&z, "zone set on error");
		FZ_CHECK(tz_strerror(rc)[0], "no text for code %d", (int)rc);
	}
	free(name);
}

FZ_TEST(tz_name, tz_name_corpus, tz_name_words,
	10000, check_tz_name, NULL, 1)

/* tz_parse_time: instants from text (`staffer calc now=...`). */
static const char *const tz_time_corpus[] = {
	"2026-07-01T12:00:00Z", "2026-07-01T14:00+02:00", "2026-07-01T14:00",
	"@1782907200", "0001-01-01T00:00:00z", "9999-12-31t23:59:59-23:59",
	"2024-02-29T02:30", "@-62135596800",
};

static const char *const tz_time_words[] = {
	"T", "t", "Z", "z", ":", "-", "+", "@", "00", "59", "60", "99",
	"0000", "9999", "10000", "02-29", "02-30", "13", "+24:00",
};

static void check_tz_time(struct fz *r, const char *in, size_t len,
			  int valid)
{
	char *s = fz_copy(in, len, 1);
	const struct tz *z = NULL;
	int64_t t = 424242;
	int rc;

	if (fz_one_in(r, 2))
		assert_int_equal(tz_get("Europe/Berlin", &z) == TZ_OK ||
				 tz_get("UTC", &z) == TZ_OK, 1);
	rc = tz_parse_time(z, s, &t);
	FZ_CHECK(rc == 0 || rc == -1, "code %d", rc);
	FZ_CHECK(!valid || rc == 0, "valid time refused");
	fz_accepted += rc == 0;
	if (rc == 0)
		FZ_CHECK(t >= -62135596800LL - 90000 &&
			 t <= 253402300799LL + 90000, "time %lld",
			 (long long)t);
	else
		FZ_CHECK(t == 424242, "out set on error");
	free(s);
}

FZ_TEST(tz_time, tz_time_corpus, tz_time_words,
	20000, check_tz_time, NULL, 1)
