/*
 * test_sched.c - time-of-day overrides: the schedule grammar and its
 * errors (with a toy resolver), overlaps, and the windows in force at
 * given instants through meta (UTC, Europe/Berlin and America/New_York on
 * both sides of their DST changes, the issue's example).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "meta.h"
#include "sched.h"
#include "tz.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(d, h, m) ((d) * 1440 + (h) * 60 + (m))
enum { MON, TUE, WED, THU, FRI, SAT, SUN };

static void assert_contains(const char *haystack, const char *needle)
{
	if (!strstr(haystack, needle))
		fail_msg("'%s' does not contain '%s'", haystack, needle);
}

/* ---- the grammar, with keys a, b and c taking numbers ------------------- */

static int toy_resolve(void *ctx, const char *key, const char *value,
		       struct sched_override *o, char *why, size_t size)
{
	char *end;

	(void)ctx;
	if (strlen(key) != 1 || key[0] < 'a' || key[0] > 'c') {
		snprintf(why, size, "'%s' is not a toy key", key);
		return -1;
	}
	o->key = key[0] - 'a';
	o->value = strtod(value, &end);
	if (*end) {
		snprintf(why, size, "'%s': '%s' is not a number", key, value);
		return -1;
	}
	return 0;
}

static void parse_ok(struct sched *s, const char *text)
{
	char msg[SCHED_ERR_MAX];

	if (sched_parse(s, text, toy_resolve, NULL, msg, sizeof(msg)) !=
	    SCHED_OK)
		fail_msg("'%s': %s", text, msg);
}

/* Expect code, and a message that contains `want`. */
static void parse_bad(const char *text, enum sched_err code,
		      const char *want)
{
	char msg[SCHED_ERR_MAX];
	struct sched s;
	enum sched_err rc;

	rc = sched_parse(&s, text, toy_resolve, NULL, msg, sizeof(msg));
	if (rc != code)
		fail_msg("'%s': code %d, want %d (%s)", text, rc, code, msg);
	assert_contains(msg, want);
}

static void test_days(void **state)
{
	static const struct {
		const char *text;
		unsigned days;
	} cases[] = {
		{ "08:00-09:00 a=1", 0x7f },
		{ "Mon-Fri 08:00-09:00 a=1", 0x1f },
		{ "Sat,Sun 08:00-09:00 a=1", 0x60 },
		{ "Mon,Wed,Fri 08:00-09:00 a=1", 0x15 },
		{ "Mon-Sun 08:00-09:00 a=1", 0x7f },
		{ "Fri-Mon 08:00-09:00 a=1", 0x71 },
		{ "Sun-Mon 08:00-09:00 a=1", 0x41 },
		{ "mon-FRI 08:00-09:00 a=1", 0x1f },
		{ "Mon-Wed,Fri 08:00-09:00 a=1", 0x17 },
		{ "Tue 08:00-09:00 a=1", 0x02 },
		{ "Sat , Sun 08:00-09:00 a=1", 0x60 },
		{ "Mon - Fri 08:00-09:00 a=1", 0x1f },
		{ "Mon,Mon 08:00-09:00 a=1", 0x01 },
	};
	struct sched s;
	size_t i;

	(void)state;
	for (i = 0; i < COUNT(cases); i++) {
		parse_ok(&s, cases[i].text);
		assert_int_equal(s.n, 1);
		if (s.w[0].days != cases[i].days)
			fail_msg("'%s': days 0x%x, want 0x%x", cases[i].text,
				 s.w[0].days, cases[i].days);
	}
}

static void test_times(void **state)
{
	static const struct {
		const char *text;
		unsigned start, len;
	} cases[] = {
		{ "08:00-19:00 a=1", 480, 660 },
		{ "22:00-07:00 a=1", 1320, 540 },
		{ "00:00-24:00 a=1", 0, 1440 },
		{ "22:00-24:00 a=1", 1320, 120 },
		{ "22:00-00:00 a=1", 1320, 120 },
		{ "23:59-00:00 a=1", 1439, 1 },
		{ "00:01-00:00 a=1", 1, 1439 },
		{ "08:00 - 19:00 a=1", 480, 660 },
	};
	struct sched s;
	size_t i;

	(void)state;
	for (i = 0; i < COUNT(cases); i++) {
		parse_ok(&s, cases[i].text);
		if (s.w[0].start != cases[i].start ||
		    s.w[0].len != cases[i].len)
			fail_msg("'%s': %u+%u, want %u+%u", cases[i].text,
				 s.w[0].start, s.w[0].len, cases[i].start,
				 cases[i].len);
	}
}

static void test_windows_and_overrides(void **state)
{
	struct sched s;

	(void)state;
	parse_ok(&s, "  Mon-Fri\t08:00-19:00  a = 2.5 b=3 ;\n"
		 "22:00-07:00 c=1;;  ;");
	assert_int_equal(s.n, 2);
	assert_string_equal(sched_window_text(&s, 0),
			    "Mon-Fri 08:00-19:00 a = 2.5 b=3");
	assert_string_equal(sched_window_text(&s, 1), "22:00-07:00 c=1");
	assert_null(sched_window_text(&s, 2));
	assert_int_equal(s.w[0].n, 2);
	assert_int_equal(s.w[0].first, 0);
	assert_int_equal(s.o[0].key, 0);
	assert_true(s.o[0].value == 2.5);
	assert_int_equal(s.o[1].key, 1);
	assert_true(s.o[1].value == 3);
	assert_int_equal(s.w[1].first, 2);
	assert_int_equal(s.w[1].n, 1);
	assert_int_equal(s.o[2].key, 2);

	/* a schedule is a plain value */
	{
		struct sched copy = s;

		assert_string_equal(sched_window_text(&copy, 1),
				    "22:00-07:00 c=1");
	}
}

static void test_syntax_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "Mon-Fry 08:00-19:00 a=1",
		  "window 'Mon-Fry 08:00-19:00 a=1': 'Fry' is not a day in "
		  "'Mon-Fry'; allowed: Mon, Tue, Wed, Thu, Fri, Sat, Sun (any "
		  "case), a range such as Mon-Fri or Fri-Mon, or a list such "
		  "as Sat,Sun" },
		{ "Monday 08:00-19:00 a=1", "'Monday' is not a day" },
		{ "Mon,,Tue 08:00-19:00 a=1", "is not a day in 'Mon,,Tue'" },
		{ "Mon- 08:00-19:00 a=1", "'08' is not a day" },
		{ "M\xc3\xb6n 08:00-19:00 a=1",
		  "window 'M\\xc3\\xb6n 08:00-19:00 a=1'" },
		{ "Mon-Mon 08:00-19:00 a=1",
		  "'Mon-Mon' is a range from a day to itself" },
		{ "Mon-Fri 8:00-19:00 a=1",
		  "'8:00-19:00' is not a time range; allowed: HH:MM-HH:MM on "
		  "a 24-hour clock, e.g. 08:00-19:00, 22:00-07:00 across "
		  "midnight, 00:00-24:00 for the whole day" },
		{ "08:00-25:00 a=1", "'08:00-25:00' is not a time range" },
		{ "24:00-08:00 a=1", "'24:00-08:00' is not a time range" },
		{ "08:60-09:00 a=1", "is not a time range" },
		{ "08:00-24:01 a=1", "is not a time range" },
		{ "08:00-090:00 a=1", "is not a time range" },
		{ "08:00 a=1", "'08:00' is not a time range" },
		{ "08:00-09:00a=1", "is not a time range" },
		{ "08:00-08:00 a=1",
		  "'08:00-08:00' starts where it ends; for the whole day "
		  "write 00:00-24:00" },
		{ "00:00-00:00 a=1", "starts where it ends" },
		{ "Mon-Fri a=1", "there is no time range; a window is [days] "
		  "HH:MM-HH:MM key=value ..., e.g. 'Mon-Fri 08:00-19:00 "
		  "beta=2'; windows are separated by ';'" },
		{ "Mon-Fri", "there is no time range" },
		{ "a=1", "window 'a=1': there is no time range" },
		{ "08:00-19:00", "window '08:00-19:00': it sets no key" },
		{ "Sat 08:00-19:00 a", "'a' is not key=value" },
		{ "08:00-19:00 a=", "'a=' has no value" },
		{ "08:00-19:00 =1", "'=1' is not key=value" },
		{ "08:00-19:00 a=1 10:00-11:00 b=1",
		  "'10:00-11:00' is not key=value; a window is [days] "
		  "HH:MM-HH:MM key=value ..." },
		{ "08:00-19:00 a=1 a=2", "'a' is set twice" },
		{ ";", "';' has no window" },
		{ " ; ; ", "has no window" },
		{ "", "has no window" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < COUNT(cases); i++)
		parse_bad(cases[i].text, SCHED_ESYNTAX, cases[i].want);
	parse_bad("08:00-19:00 z=1", SCHED_EKEY,
		  "window '08:00-19:00 z=1': 'z' is not a toy key");
	parse_bad("08:00-19:00 a=x", SCHED_EKEY, "'a': 'x' is not a number");
}

static void test_limits(void **state)
{
	char text[SCHED_TEXT_MAX + 16], msg[SCHED_ERR_MAX];
	struct sched s;
	size_t o = 0;
	int i;

	(void)state;
	/* 32 one-minute windows are fine, 33 are not */
	for (i = 0; i < 33; i++)
		o += (size_t)snprintf(text + o, sizeof(text) - o,
				      "00:%02d-00:%02d a=1;", i, i + 1);
	parse_bad(text, SCHED_ELIMIT, "the schedule has more than 32 "
		  "windows");
	text[strlen(text) - strlen("00:32-00:33 a=1;")] = '\0';
	parse_ok(&s, text);
	assert_int_equal(s.n, SCHED_WINDOWS_MAX);

	/* 64 key=value pairs in all */
	o = 0;
	for (i = 0; i < 22; i++)
		o += (size_t)snprintf(text + o, sizeof(text) - o,
				      "00:%02d-00:%02d a=1 b=2 c=3;", i, i + 1);
	parse_bad(text, SCHED_ELIMIT, "more than 64 key=value pairs");

	/* the text */
	memset(text, ' ', SCHED_TEXT_MAX);
	memcpy(text, "08:00-09:00 a=1", 15);
	text[SCHED_TEXT_MAX] = '\0';
	parse_bad(text, SCHED_ELIMIT, "longer than 1023 bytes");
	text[SCHED_TEXT_MAX - 1] = '\0';
	parse_ok(&s, text);
	assert_int_equal(sched_parse(&s, NULL, toy_resolve, NULL, msg,
				     sizeof(msg)), SCHED_ESYNTAX);
}

/* ---- overlaps ------------------------------------------------------------ */

static void test_overlaps(void **state)
{
	struct sched s;

	(void)state;
	parse_bad("Mon-Fri 08:00-19:00 a=2; 18:00-07:00 a=1",
		  SCHED_EOVERLAP,
		  "windows 'Mon-Fri 08:00-19:00 a=2' and '18:00-07:00 a=1' "
		  "overlap on Mon 18:00; a minute of the week can belong to "
		  "one window only");
	/* a window that crosses midnight, into the next day's window */
	parse_bad("Mon 22:00-07:00 a=1; Tue 06:00-08:00 a=2",
		  SCHED_EOVERLAP,
		  "'Mon 22:00-07:00 a=1' and 'Tue 06:00-08:00 a=2' overlap "
		  "on Tue 06:00");
	/* ... and the other way round */
	parse_bad("Tue 06:00-08:00 a=2; Mon 22:00-07:00 a=1",
		  SCHED_EOVERLAP, "overlap on Tue 06:00");
	/* across the end of the week */
	parse_bad("Sun 22:00-07:00 a=1; Mon 00:00-01:00 a=2",
		  SCHED_EOVERLAP, "overlap on Mon 00:00");
	/* the earliest shared minute of the week, naming the first window */
	parse_bad("Sat 10:00-11:00 a=1; Wed 10:00-11:00 b=1; "
		  "10:30-12:00 c=1", SCHED_EOVERLAP,
		  "windows 'Wed 10:00-11:00 b=1' and '10:30-12:00 c=1' "
		  "overlap on Wed 10:30");
	parse_bad("00:00-24:00 a=1; Sun 23:59-00:00 b=1", SCHED_EOVERLAP,
		  "overlap on Sun 23:59");
	parse_bad("Fri-Mon 12:00-13:00 a=1; Sun 12:59-14:00 b=1",
		  SCHED_EOVERLAP, "overlap on Sun 12:59");

	/* touching is not overlapping */
	parse_ok(&s, "08:00-19:00 a=1; 19:00-08:00 a=2");
	parse_ok(&s, "Mon-Fri 08:00-19:00 a=2; 22:00-07:00 a=1");
	parse_ok(&s, "Mon 22:00-07:00 a=1; Tue 07:00-08:00 a=2");
	parse_ok(&s, "Sat,Sun 00:00-24:00 a=1; Mon-Fri 00:00-24:00 a=2");
}

/* ---- finding the window of a minute ------------------------------------- */

static void test_find(void **state)
{
	struct sched s;
	int mw;

	(void)state;
	parse_ok(&s, "Mon-Fri 08:00-19:00 a=2; 22:00-07:00 a=1");
	assert_int_equal(sched_find(&s, MIN(MON, 8, 0)), 0);
	assert_int_equal(sched_find(&s, MIN(FRI, 18, 59)), 0);
	assert_int_equal(sched_find(&s, MIN(FRI, 19, 0)), -1);
	assert_int_equal(sched_find(&s, MIN(SAT, 8, 0)), -1);
	assert_int_equal(sched_find(&s, MIN(MON, 7, 59)), -1);
	assert_int_equal(sched_find(&s, MIN(MON, 6, 59)), 1);
	assert_int_equal(sched_find(&s, MIN(MON, 0, 0)), 1); /* from Sun */
	assert_int_equal(sched_find(&s, MIN(SUN, 23, 59)), 1);
	assert_int_equal(sched_find(&s, MIN(SAT, 22, 0)), 1);
	assert_int_equal(sched_find(&s, MIN(SAT, 21, 59)), -1);
	assert_int_equal(sched_find(&s, -1), -1);
	assert_int_equal(sched_find(&s, SCHED_WEEK), -1);

	/* a window belongs to the day it starts on */
	parse_ok(&s, "Fri 22:00-07:00 a=1");
	assert_int_equal(sched_find(&s, MIN(FRI, 22, 0)), 0);
	assert_int_equal(sched_find(&s, MIN(SAT, 6, 59)), 0);
	assert_int_equal(sched_find(&s, MIN(SAT, 7, 0)), -1);
	assert_int_equal(sched_find(&s, MIN(THU, 23, 0)), -1);
	assert_int_equal(sched_find(&s, MIN(FRI, 6, 0)), -1);

	/* day ranges that wrap */
	parse_ok(&s, "Fri-Mon 00:00-24:00 a=1");
	for (mw = 0; mw < SCHED_WEEK; mw++) {
		int day = mw / 1440, in = day == MON || day >= FRI;

		assert_int_equal(sched_find(&s, mw), in ? 0 : -1);
	}
}

static void test_minute_of_week(void **state)
{
	(void)state;
	/* 1970-01-01 was a Thursday */
	assert_int_equal(sched_minute_of_week(0), MIN(THU, 0, 0));
	assert_int_equal(sched_minute_of_week(59), MIN(THU, 0, 0));
	assert_int_equal(sched_minute_of_week(60), MIN(THU, 0, 1));
	assert_int_equal(sched_minute_of_week(-1), MIN(WED, 23, 59));
	assert_int_equal(sched_minute_of_week(-86400 * 3), MIN(MON, 0, 0));
	/* 2026-07-01T12:00:00 is a Wednesday */
	assert_int_equal(sched_minute_of_week(1782907200LL),
			 MIN(WED, 12, 0));
	assert_string_equal(sched_day_name(0), "Mon");
	assert_string_equal(sched_day_name(6), "Sun");
	assert_string_equal(sched_day_name(7), "?");
}

/* ---- through meta -------------------------------------------------------- */

#define ISSUE "Mon-Fri 08:00-19:00 beta=2.0; 22:00-07:00 beta=1.0 " \
	      "scaleDownPeriodSeconds=300"

/* Parse key/value pairs for `staffer calc` (no queries needed). */
static enum meta_err calc_meta(struct meta *m, struct meta_error *err, ...)
{
	enum meta_err rc = META_OK;
	const char *k, *v;
	va_list ap;

	meta_init(m);
	va_start(ap, err);
	while ((k = va_arg(ap, const char *))) {
		v = va_arg(ap, const char *);
		rc = meta_set(m, k, v, err);
		if (rc != META_OK)
			break;
	}
	va_end(ap);
	if (rc == META_OK)
		rc = meta_check(m, 0, err);
	return rc;
}

static time_t at(const char *iso)
{
	int64_t t;

	if (tz_parse_time(NULL, iso, &t))
		fail_msg("bad time '%s'", iso);
	return (time_t)t;
}

/* The window and beta in force at iso. */
static void expect_at(const struct meta *m, const char *iso,
		      const char *window, double beta)
{
	struct meta eff;
	const char *w = meta_at(m, at(iso), &eff);

	if (window ? !w || strcmp(w, window) : w != NULL)
		fail_msg("at %s: window '%s', want '%s'", iso,
			 w ? w : "(none)", window ? window : "(none)");
	if (eff.model.beta != beta)
		fail_msg("at %s: beta %g, want %g", iso, eff.model.beta,
			 beta);
}

static void test_issue_example(void **state)
{
	static const char day[] = "Mon-Fri 08:00-19:00 beta=2.0";
	static const char night[] =
		"22:00-07:00 beta=1.0 scaleDownPeriodSeconds=300";
	struct meta_error err;
	struct meta m, eff;

	(void)state;
	if (calc_meta(&m, &err, "schedule", ISSUE, NULL) != META_OK)
		fail_msg("%s", err.msg);
	assert_null(m.tz); /* UTC */
	assert_int_equal(m.sched.n, 2);
	/* 2026-07-01 is a Wednesday */
	expect_at(&m, "2026-07-01T12:00Z", day, 2.0);
	expect_at(&m, "2026-07-01T07:59:59Z", NULL, 1.5);
	expect_at(&m, "2026-07-01T08:00Z", day, 2.0);
	expect_at(&m, "2026-07-01T18:59:59Z", day, 2.0);
	expect_at(&m, "2026-07-01T19:00Z", NULL, 1.5);
	expect_at(&m, "2026-07-01T21:59Z", NULL, 1.5);
	expect_at(&m, "2026-07-01T22:00Z", night, 1.0);
	expect_at(&m, "2026-07-02T06:59Z", night, 1.0);
	expect_at(&m, "2026-07-02T07:00Z", NULL, 1.5);
	/* weekend: nights only; Sunday's night runs into Monday */
	expect_at(&m, "2026-07-04T12:00Z", NULL, 1.5);
	expect_at(&m, "2026-07-04T23:00Z", night, 1.0);
	expect_at(&m, "2026-07-06T06:30Z", night, 1.0);
	expect_at(&m, "2026-07-06T07:30Z", NULL, 1.5);
	expect_at(&m, "2026-07-06T08:00Z", day, 2.0);

	/* the other keys of the window, and the base untouched */
	assert_non_null(meta_at(&m, at("2026-07-01T23:00Z"), &eff));
	assert_true(eff.scale_down_period_s == 300);
	assert_true(m.scale_down_period_s == 60);
	assert_true(m.model.beta == 1.5);
	assert_null(meta_at(&m, at("2026-07-01T20:00Z"), &eff));
	assert_true(eff.scale_down_period_s == 60);
	meta_release(&m);
}

static void test_meta_at_copy_and_in_place(void **state)
{
	struct meta_error err;
	struct meta m, eff;
	const char *w;

	(void)state;
	/* no schedule: an exact copy, no window */
	if (calc_meta(&m, &err, "beta", "2", NULL) != META_OK)
		fail_msg("%s", err.msg);
	assert_null(meta_at(&m, at("2026-07-01T12:00Z"), &eff));
	assert_true(eff.model.beta == 2);
	assert_int_equal(eff.given, m.given);
	assert_int_equal(eff.sched.n, 0);
	meta_release(&m);

	/* in place: strings stay m's, released once */
	meta_init(&m);
	assert_int_equal(meta_set(&m, "arrivalRateQuery", "sum(a)", &err),
			 META_OK);
	assert_int_equal(meta_set(&m, "serviceTime", "10", &err), META_OK);
	assert_int_equal(meta_set(&m, "schedule", "00:00-24:00 "
				  "slotsPerReplica=8 maxReplicas=40 "
				  "staffing=none", &err), META_OK);
	assert_int_equal(meta_check(&m, 1, &err), META_OK);
	w = meta_at(&m, at("2026-07-01T12:00Z"), &m);
	assert_string_equal(w, "00:00-24:00 slotsPerReplica=8 "
			    "maxReplicas=40 staffing=none");
	assert_int_equal(m.model.slots_per_replica, 8);
	assert_int_equal(m.model.max_replicas, 40);
	assert_int_equal(m.model.staffing, MODEL_STAFF_NONE);
	assert_string_equal(m.arrival_rate_query, "sum(a)");
	meta_release(&m);
}

/* Europe/Berlin springs forward on 2026-03-29 and falls back on
 * 2026-10-25: a window at 08:00 local starts at 07:00Z in winter and at
 * 06:00Z in summer. */
static void test_dst_berlin(void **state)
{
	static const char day[] = "Mon-Fri 08:00-19:00 beta=2";
	static const char sun[] = "Sun 01:00-04:00 beta=3";
	struct meta_error err;
	struct meta m;

	(void)state;
	if (calc_meta(&m, &err, "timezone", "Europe/Berlin", "schedule",
		      "Mon-Fri 08:00-19:00 beta=2; Sun 01:00-04:00 beta=3",
		      NULL) != META_OK)
		fail_msg("%s", err.msg);
	assert_string_equal(tz_name(m.tz), "Europe/Berlin");
	/* Friday before: CET */
	expect_at(&m, "2026-03-27T06:59:59Z", NULL, 1.5);
	expect_at(&m, "2026-03-27T07:00Z", day, 2);
	expect_at(&m, "2026-03-27T17:59:59Z", day, 2);
	expect_at(&m, "2026-03-27T18:00Z", NULL, 1.5);
	/* Monday after: CEST */
	expect_at(&m, "2026-03-30T05:59:59Z", NULL, 1.5);
	expect_at(&m, "2026-03-30T06:00Z", day, 2);
	expect_at(&m, "2026-03-30T16:59:59Z", day, 2);
	expect_at(&m, "2026-03-30T17:00Z", NULL, 1.5);
	/* the night of the change: 01:00 CET to 04:00 CEST, two hours */
	expect_at(&m, "2026-03-28T23:59:59Z", NULL, 1.5);
	expect_at(&m, "2026-03-29T00:00Z", sun, 3);
	expect_at(&m, "2026-03-29T01:00Z", sun, 3);  /* 03:00 CEST */
	expect_at(&m, "2026-03-29T01:59:59Z", sun, 3);
	expect_at(&m, "2026-03-29T02:00Z", NULL, 1.5);
	/* autumn: Friday CEST, Monday CET */
	expect_at(&m, "2026-10-23T05:59:59Z", NULL, 1.5);
	expect_at(&m, "2026-10-23T06:00Z", day, 2);
	expect_at(&m, "2026-10-26T06:30Z", NULL, 1.5);
	expect_at(&m, "2026-10-26T07:00Z", day, 2);
	expect_at(&m, "2026-10-26T17:59Z", day, 2);
	expect_at(&m, "2026-10-26T18:00Z", NULL, 1.5);
	/* the night of the change: 01:00 CEST to 04:00 CET, four hours */
	expect_at(&m, "2026-10-24T22:59:59Z", NULL, 1.5);
	expect_at(&m, "2026-10-24T23:00Z", sun, 3);
	expect_at(&m, "2026-10-25T02:59:59Z", sun, 3);
	expect_at(&m, "2026-10-25T03:00Z", NULL, 1.5);
	/* 2100: after the file's transitions, the footer's rule */
	expect_at(&m, "2100-07-01T06:00Z", day, 2); /* Thursday, CEST */
	expect_at(&m, "2100-07-01T05:59Z", NULL, 1.5);
	expect_at(&m, "2100-01-14T07:00Z", day, 2); /* Thursday, CET */
	expect_at(&m, "2100-01-14T06:59Z", NULL, 1.5);
	meta_release(&m);
}

/* America/New_York: 2026-03-08 and 2026-11-01. */
static void test_dst_new_york(void **state)
{
	static const char day[] = "Mon-Fri 09:00-17:00 beta=2";
	static const char night[] = "22:00-06:00 beta=1";
	struct meta_error err;
	struct meta m;

	(void)state;
	if (calc_meta(&m, &err, "timezone", "America/New_York", "schedule",
		      "Mon-Fri 09:00-17:00 beta=2; 22:00-06:00 beta=1",
		      NULL) != META_OK)
		fail_msg("%s", err.msg);
	expect_at(&m, "2026-03-06T13:59Z", NULL, 1.5);  /* Fri, EST */
	expect_at(&m, "2026-03-06T14:00Z", day, 2);
	expect_at(&m, "2026-03-09T12:59Z", NULL, 1.5);  /* Mon, EDT */
	expect_at(&m, "2026-03-09T13:00Z", day, 2);
	expect_at(&m, "2026-03-09T21:00Z", NULL, 1.5);
	/* Saturday 22:00 EST to Sunday 06:00 EDT: seven hours */
	expect_at(&m, "2026-03-08T02:59Z", NULL, 1.5);
	expect_at(&m, "2026-03-08T03:00Z", night, 1);
	expect_at(&m, "2026-03-08T09:59Z", night, 1);
	expect_at(&m, "2026-03-08T10:00Z", NULL, 1.5);
	expect_at(&m, "2026-10-30T12:59Z", NULL, 1.5);  /* Fri, EDT */
	expect_at(&m, "2026-10-30T13:00Z", day, 2);
	expect_at(&m, "2026-11-02T13:30Z", NULL, 1.5);  /* Mon, EST */
	expect_at(&m, "2026-11-02T14:00Z", day, 2);
	/* Saturday 22:00 EDT to Sunday 06:00 EST: nine hours */
	expect_at(&m, "2026-11-01T01:59Z", NULL, 1.5);
	expect_at(&m, "2026-11-01T02:00Z", night, 1);
	expect_at(&m, "2026-11-01T10:59Z", night, 1);
	expect_at(&m, "2026-11-01T11:00Z", NULL, 1.5);
	meta_release(&m);
}

static void test_utc_default_and_zones(void **state)
{
	struct meta_error err;
	struct meta m;

	(void)state;
	if (calc_meta(&m, &err, "schedule", "Mon 00:00-01:00 beta=2",
		      NULL) != META_OK)
		fail_msg("%s", err.msg);
	assert_null(m.tz);
	expect_at(&m, "2026-07-06T00:30Z", "Mon 00:00-01:00 beta=2", 2);
	meta_release(&m);

	/* Kolkata, +05:30: Monday 00:00 local is Sunday 18:30Z */
	if (calc_meta(&m, &err, "timezone", "Asia/Kolkata", "schedule",
		      "Mon 00:00-01:00 beta=2", NULL) != META_OK)
		fail_msg("%s", err.msg);
	expect_at(&m, "2026-07-05T18:29Z", NULL, 1.5);
	expect_at(&m, "2026-07-05T18:30Z", "Mon 00:00-01:00 beta=2", 2);
	expect_at(&m, "2026-07-06T00:30Z", NULL, 1.5);
	meta_release(&m);
}

static void test_meta_parse_time(void **state)
{
	struct meta_error err;
	struct meta m;
	time_t t = 0;

	(void)state;
	if (calc_meta(&m, &err, "timezone", "Europe/Berlin", NULL) !=
	    META_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(meta_parse_time(&m, "2026-07-01T14:00", &t, &err),
			 META_OK);
	assert_int_equal(t, 1782907200);
	assert_int_equal(meta_parse_time(&m, "2026-07-01T12:00:00Z", &t,
					 &err), META_OK);
	assert_int_equal(t, 1782907200);
	assert_int_equal(meta_parse_time(&m, "@0", &t, &err), META_OK);
	assert_int_equal(t, 0);
	assert_int_equal(meta_parse_time(&m, "tomorrow", &t, &err),
			 META_EVALUE);
	assert_string_equal(err.key, "now");
	assert_string_equal(err.msg, "'now': 'tomorrow' is not a time; "
			    "allowed: an instant such as 2026-07-01T12:00:00Z "
			    "or 2026-07-01T14:00+02:00, a wall time in "
			    "Europe/Berlin such as 2026-07-01T14:00, or Unix "
			    "seconds such as @1782907200");
	meta_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_days),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_windows_and_overrides),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_overlaps),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_minute_of_week),
		cmocka_unit_test(test_issue_example),
		cmocka_unit_test(test_meta_at_copy_and_in_place),
		cmocka_unit_test(test_dst_berlin),
		cmocka_unit_test(test_dst_new_york),
		cmocka_unit_test(test_utc_default_and_zones),
		cmocka_unit_test(test_meta_parse_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
