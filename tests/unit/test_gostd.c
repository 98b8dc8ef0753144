/*
 * test_gostd.c - Go's time.Parse formats of go-yaml's !!timestamp, Go's
 * base64 of its !!binary, and encoding/json's U+FFFD (src/gostd.h).
 *
 * Expected values: what sigs.k8s.io/yaml's YAMLToJSON (go-yaml v2.4.0)
 * said for `a: !!timestamp TEXT` and `a: !!binary TEXT` built with Go
 * 1.19, and for the cases where Go 1.23's time.Parse answers otherwise
 * (marked), what its source does (src/time/format.go: stdFracSecond9
 * takes every digit; a zone offset is two digits each, hour at most 24,
 * minute at most 60).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gostd.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void test_timestamp(void **state)
{
	static const struct {
		const char *s;
		int ok;
	} cases[] = {
		{ "2001-12-14", 1 }, { "2001-1-2", 1 }, { "0001-01-01", 1 },
		{ "0000-02-29", 1 }, { "2000-02-29", 1 }, { "1900-02-29", 0 },
		{ "2001-02-29", 0 }, { "2001-13-01", 0 }, { "2001-00-01", 0 },
		{ "2001-04-31", 0 }, { "2001-12-00", 0 }, { "2001-001-01", 0 },
		{ "2001-12-14T21:59:43.10-05:00", 1 },
		{ "2001-12-14t21:59:43.10-05:00", 1 },
		{ "2001-12-14 21:59:43.10", 1 }, { "2001-12-14   1:2:3", 1 },
		{ "2001-12-14 21:59:43.10 -5", 0 },   /* resolve.go's note */
		{ "2001-12-14T21:59:43", 0 },         /* no zone */
		{ "2001-12-14T21:59:43Z", 1 }, { "2001-12-14T21:59:43z", 0 },
		{ "2001-12-14T21:59:43,5Z", 1 }, { "2001-12-14T21:59:43.Z", 0 },
		{ "2001-12-14T24:00:00Z", 0 }, { "2001-12-14T23:60:00Z", 0 },
		{ "2001-12-14T23:00:60Z", 0 }, { "2001-12-14T23:00Z", 0 },
		{ "2001-12-14T21:59:43.10+0500", 0 },
		{ "2001-12-14T21:59:43+5:00", 0 },
		{ "2001-12-14T23:00:00+24:60", 1 },
		{ "2001-12-14 21:59:43 ", 0 }, { "2001-12-14 ", 0 },
		{ "2001-12-14\t21:59:43", 0 }, { "2001-12-14T", 0 },
		{ "200-12-14", 0 }, { "20011-12-14", 0 }, { "2001", 0 },
		{ "2001-", 0 }, { "x", 0 }, { "", 0 },
		/* Go 1.23; Go 1.19 answers the other way */
		{ "2001-12-14T21:59:43.1234567890123Z", 1 },
		{ "2001-12-14 21:59:43.1234567890", 1 },
		{ "2001-12-14T23:00:00+25:00", 0 },
		{ "2001-12-14T23:00:00+05:61", 0 },
		{ "2001-12-14T23:00:00+-1:00", 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < COUNT(cases); i++)
		if (gostd_timestamp(cases[i].s, strlen(cases[i].s)) !=
		    cases[i].ok)
			fail_msg("%s: want %d", cases[i].s, cases[i].ok);
	/* a NUL is a character no format takes; len, not the NUL, ends */
	assert_int_equal(gostd_timestamp("2001-12-14\0", 11), 0);
	assert_int_equal(gostd_timestamp("2001-12-14T0", 10), 1);
}

static void test_base64(void **state)
{
	static const struct {
		const char *s, *want;   /* want NULL: refused */
		size_t n;
	} cases[] = {
		{ "aGk=", "hi", 2 }, { "aGl=", "hi", 2 },  /* extra bits */
		{ "", "", 0 }, { "\n", "", 0 }, { "aGk", NULL, 0 },
		{ "aG\nk=", "hi", 2 }, { "aG\r\nk=\n", "hi", 2 },
		{ "aA=\n=", "h", 1 }, { "aA==", "h", 1 }, { "aA=", NULL, 0 },
		{ "aG k=", NULL, 0 }, { "aGk=\t", NULL, 0 },
		{ "aGk=aGk=", NULL, 0 }, { "a===", NULL, 0 },
		{ "====", NULL, 0 }, { "aGk==", NULL, 0 },
		{ "aGVsbG8=", "hello", 5 }, { "aGVsbG8h", "hello!", 6 },
		{ "/w==", "\xff", 1 }, { "AA==", "\0", 1 },
		{ "-_8=", NULL, 0 },    /* the URL alphabet is not Std's */
	};
	unsigned char out[16];
	size_t i, n;
	int r;

	(void)state;
	for (i = 0; i < COUNT(cases); i++) {
		r = gostd_base64(cases[i].s, strlen(cases[i].s), out, &n);
		if (r != (cases[i].want ? 0 : -1))
			fail_msg("'%s': %d", cases[i].s, r);
		if (gostd_base64(cases[i].s, strlen(cases[i].s), NULL,
				 NULL) != r)
			fail_msg("'%s': checked only, otherwise", cases[i].s);
		if (!cases[i].want)
			continue;
		assert_int_equal(n, cases[i].n);
		assert_memory_equal(out, cases[i].want, n);
	}
}

static void test_json_text(void **state)
{
	static const struct {
		const char *s;
		size_t n;
		const char *want;
		size_t wn;
	} cases[] = {
		{ "hi", 2, "hi", 2 }, { "\xc3\xa9", 2, "\xc3\xa9", 2 },
		{ "\xff", 1, "\xef\xbf\xbd", 3 },
		/* a surrogate: each byte its own U+FFFD */
		{ "\xed\xa0\x80", 3,
		  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 9 },
		/* cut short, then ASCII */
		{ "\xe2\x82" "A", 3, "\xef\xbf\xbd\xef\xbf\xbd" "A", 7 },
		{ "\xc0\x80", 2, "\xef\xbf\xbd\xef\xbf\xbd", 6 },
		{ "a\0b", 3, "a\0b", 3 }, { "", 0, "", 0 },
	};
	char out[32];
	size_t i;

	(void)state;
	for (i = 0; i < COUNT(cases); i++) {
		assert_int_equal(gostd_json_text((const unsigned char *)
						 cases[i].s, cases[i].n, NULL),
				 cases[i].wn);
		assert_int_equal(gostd_json_text((const unsigned char *)
						 cases[i].s, cases[i].n, out),
				 cases[i].wn);
		assert_memory_equal(out, cases[i].want, cases[i].wn);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timestamp),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_json_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
