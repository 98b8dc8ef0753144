/*
 * test_memory.c - the process's own memory: the anonymous part of RSS
 * (procstat.h) and its /metrics gauge, and the heap trimmer (memtrim.h).
 * What the trimmer gives back is measured by bench/service.py (under
 * ASan, malloc is the sanitizer's and malloc_trim() has nothing to do).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "check.h"
#include "memtrim.h"
#include "procstat.h"
#include "stats.h"

#define BUF (1 << 20)

static void test_parse_anon(void **state)
{
	static const char status[] =
		"Name:\tstaffer\nUmask:\t0022\nState:\tS (sleeping)\n"
		"VmRSS:\t   47312 kB\nRssAnon:\t   29424 kB\n"
		"RssFile:\t   17888 kB\nRssShmem:\t       0 kB\n";
	double v = -7;

	(void)state;
	assert_int_equal(procstat_parse_anon(status, sizeof(status) - 1, &v), 0);
	assert_true(v == 29424.0 * 1024);
	/* the last line, without a newline */
	assert_int_equal(procstat_parse_anon("RssAnon: 12 kB", 14, &v), 0);
	assert_true(v == 12.0 * 1024);
	/* only as much as len says */
	v = -7;
	assert_int_equal(procstat_parse_anon(status, 60, &v), -1);
	assert_true(v == -7);
	/* no such line (an old kernel), or not "N kB": untouched */
	assert_int_equal(procstat_parse_anon("VmRSS: 1 kB\n", 12, &v), -1);
	assert_int_equal(procstat_parse_anon("RssAnon: kB\n", 12, &v), -1);
	assert_int_equal(procstat_parse_anon("RssAnon: 12 MB\n", 15, &v), -1);
	assert_int_equal(procstat_parse_anon("RssAnon: 12\n", 12, &v), -1);
	assert_int_equal(procstat_parse_anon("RssAnon: 1x kB\n", 15, &v), -1);
	assert_int_equal(procstat_parse_anon("RssAnonX: 1 kB\n", 15, &v), -1);
	assert_int_equal(procstat_parse_anon("RssAnon: 9999999999999999 kB\n",
					     29, &v), -1);
	assert_int_equal(procstat_parse_anon("", 0, &v), -1);
	assert_true(v == -7);
}

/* The gauge: this process's RssAnon, at most its RSS. */
static void test_anon_gauge(void **state)
{
	struct stats *s = stats_new();
	struct procstat p;
	char *buf = malloc(BUF), *at;
	double anon, rss;

	(void)state;
	assert_non_null(s);
	assert_int_equal(procstat_read(&p), 0);
	assert_true(p.anon_bytes > 0 && p.anon_bytes <= p.resident_bytes);
	assert_true(stats_render(s, NULL, 0, buf, BUF) < BUF);
	check_contains(buf, "\n# TYPE staffer_anonymous_memory_bytes gauge\n");
	at = strstr(buf, "\nstaffer_anonymous_memory_bytes ");
	assert_non_null(at);
	anon = strtod(at + strlen("\nstaffer_anonymous_memory_bytes "), NULL);
	at = strstr(buf, "\nprocess_resident_memory_bytes ");
	assert_non_null(at);
	rss = strtod(at + strlen("\nprocess_resident_memory_bytes "), NULL);
	assert_true(anon > 0 && anon <= rss);
	free(buf);
	stats_free(s);
}

/* The trimmer trims every period and stops at once when asked. */
static void test_memtrim(void **state)
{
	struct timespec ts = { 0, 20000000L };
	struct memtrim *t;
	unsigned long trims = 0;
	double longest;
	clock_t c0;
	int i;

	(void)state;
	assert_null(memtrim_start(0));
	assert_null(memtrim_start(-1));
	t = memtrim_start(0.02);
	assert_non_null(t);
	for (i = 0; i < 250 && trims < 3; i++) {   /* up to 5 s */
		nanosleep(&ts, NULL);
		memtrim_stats(t, &trims, &longest);
	}
	assert_true(trims >= 3);
	assert_true(longest >= 0 && longest < 1);
	/* a long period: stop does not wait for it */
	memtrim_stop(t);
	t = memtrim_start(3600);
	assert_non_null(t);
	c0 = clock();
	memtrim_stop(t);
	assert_true((double)(clock() - c0) / CLOCKS_PER_SEC < 1.0);
	memtrim_stop(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_anon),
		cmocka_unit_test(test_anon_gauge),
		cmocka_unit_test(test_memtrim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
