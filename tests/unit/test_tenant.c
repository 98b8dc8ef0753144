/*
 * test_tenant.c - the pieces that keep tenants apart: the state table's
 * eviction and quota (stab.h), trigger fingerprints (fprint.h), secret
 * files with control characters (secret.h), escaped log lines (log.h) and
 * sample times (prom.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fprint.h"
#include "log.h"
#include "prom.h"
#include "secret.h"
#include "stab.h"

struct item {
	struct stab_node node;
	int value;
};

/* Entry ns/i of owner "keda" at time now (in seconds). */
static struct stab_node *put_at(struct stab *t, const char *owner,
				const char *ns, int i, size_t max,
				size_t max_owner, size_t max_ns, double now,
				int *ev)
{
	struct stab_limits lim = { max, max_owner, max_ns };
	char key[64];

	snprintf(key, sizeof(key), "%s/%d", ns, i);
	return stab_put(t, key, owner, ns, &lim, now, ev);
}

static struct stab_node *put(struct stab *t, const char *ns, int i,
			     size_t max, size_t max_ns, int *ev)
{
	return put_at(t, "keda", ns, i, max, max, max_ns, 0, ev);
}

/* One namespace at its quota evicts its own oldest; the others keep
 * theirs however many entries it makes. */
static void test_stab_quota(void **state)
{
	struct stab *t = stab_new(sizeof(struct item));
	struct stab_node *n;
	int i, ev;

	(void)state;
	assert_non_null(t);
	for (i = 0; i < 3; i++)
		assert_non_null(put(t, "calm", i, 1000, 50, &ev));
	for (i = 0; i < 10000; i++) {
		n = put(t, "flood", i, 1000, 50, &ev);
		assert_non_null(n);
		assert_int_equal(ev, i >= 50);
	}
	assert_int_equal(stab_count_ns(t, "keda", "flood"), 50);
	assert_int_equal(stab_count_ns(t, "keda", "calm"), 3);
	assert_non_null(stab_get(t, "calm/0", 0));
	assert_null(stab_get(t, "flood/0", 0));
	assert_non_null(stab_get(t, "flood/9999", 0));
	/* a new trigger always gets its entry */
	n = put(t, "new", 1, 1000, 50, &ev);
	assert_non_null(n);
	assert_string_equal(n->ns, "new");
	assert_string_equal(n->owner, "keda");
	assert_int_equal(ev, 0);
	stab_free(t);
}

/* A full table drops the least recently used entry; a lookup renews. */
static void test_stab_lru(void **state)
{
	struct stab *t = stab_new(sizeof(struct item));
	struct stab_node *n;
	struct item *it;
	int i, ev;

	(void)state;
	for (i = 0; i < 100; i++) {
		n = put(t, i % 2 ? "b" : "a", i, 100, 100, &ev);
		((struct item *)n)->value = i;
	}
	assert_int_equal(stab_count(t), 100);
	assert_non_null(stab_get(t, "a/0", 0));   /* now the newest */
	n = put(t, "c", 0, 100, 100, &ev);
	assert_int_equal(ev, 1);
	assert_int_equal(stab_count(t), 100);
	assert_null(stab_get(t, "b/1", 0));       /* the oldest went */
	it = (struct item *)stab_get(t, "a/0", 0);
	assert_non_null(it);
	assert_int_equal(it->value, 0);
	/* oldest first, then newer: the sweep's and the save's order */
	n = stab_oldest(t);
	assert_string_equal(n->key, "a/2");
	assert_string_equal(stab_newer(n)->key, "b/3");
	/* an existing key keeps its entry, its owner and its namespace */
	n = stab_put(t, "a/2", "other", "other",
		     &(struct stab_limits){ 100, 100, 100 }, 0, &ev);
	assert_string_equal(n->ns, "a");
	assert_string_equal(n->owner, "keda");
	assert_int_equal(ev, 0);
	while ((n = stab_oldest(t)))
		stab_del(t, n);
	assert_int_equal(stab_count(t), 0);
	assert_int_equal(stab_count_ns(t, "keda", "a"), 0);
	assert_int_equal(stab_count_owner(t, "keda"), 0);
	stab_free(t);
	stab_free(NULL);
}

/*
 * The attack of issue 23 (4), in the table: a trigger asked every 30 s
 * by KEDA, and a burst of made-up triggers over 40 namespaces, each under
 * its quota, from another caller, filling the table many times over
 * between two polls.  The victim became regular at its second poll and
 * is never evicted while new entries are left; the burst evicts its own.
 * Then the same burst from KEDA's own address: the regular entry still
 * stays.  And a caller at its own quota evicts its own entries even when
 * the table has room.
 */
static void test_stab_regular(void **state)
{
	struct stab *t = stab_new(sizeof(struct item));
	struct stab_node *n;
	char ns[16];
	int i, ev, round;
	double now = 1000;

	(void)state;
	n = put_at(t, "keda", "calm", 0, 1000, 1000, 100, now, &ev);
	assert_int_equal(n->regular, 0);
	now += 30;
	n = put_at(t, "keda", "calm", 0, 1000, 1000, 100, now, &ev);
	assert_int_equal(n->regular, 1);           /* its second poll */
	assert_int_equal(stab_count_new(t), 0);
	for (round = 0; round < 2; round++) {
		const char *who = round ? "keda" : "flood";

		for (i = 0; i < 12000; i++) {
			snprintf(ns, sizeof(ns), "ns%d", i % 40);
			/* asked once each, a burst within a second */
			n = put_at(t, who, ns, 10000 * round + i, 1000, 1000,
				   100, now + i / 12000.0, &ev);
			assert_non_null(n);
			assert_int_equal(n->regular, 0);
		}
		assert_int_equal(stab_count(t), 1000);
		assert_non_null(stab_get(t, "calm/0", now + 1));
		now += 30;
		n = stab_get(t, "calm/0", now);
		assert_non_null(n);
		assert_int_equal(n->regular, 1);
	}
	/* a caller at its quota evicts its own, not another's new ones */
	stab_free(t);
	t = stab_new(sizeof(struct item));
	for (i = 0; i < 10; i++)
		assert_non_null(put_at(t, "a", "x", i, 1000, 50, 100, 0, &ev));
	for (i = 0; i < 200; i++) {
		snprintf(ns, sizeof(ns), "ns%d", i);
		assert_non_null(put_at(t, "b", ns, i, 1000, 50, 100, 0, &ev));
		assert_int_equal(ev, i >= 50);
	}
	assert_int_equal(stab_count_owner(t, "a"), 10);
	assert_int_equal(stab_count_owner(t, "b"), 50);
	/* namespaces are the caller's: another caller claiming "x" has its
	 * own quota there */
	for (i = 0; i < 200; i++)
		assert_non_null(put_at(t, "b", "x", 100 + i, 1000, 1000, 5, 0,
				       &ev));
	assert_int_equal(stab_count_ns(t, "a", "x"), 10);
	assert_int_equal(stab_count_ns(t, "b", "x"), 5);
	stab_free(t);
}

static void test_fprint(void **state)
{
	const char *k1[] = { "arrivalRateQuery", "serviceTime", "beta" };
	const char *v1[] = { "sum(rate(x[1m]))", "10", "1.5" };
	const char *k2[] = { "beta", "arrivalRateQuery", "serviceTime" };
	const char *v2[] = { "1.5", "sum(rate(x[1m]))", "10" };
	const char *k3[] = { "arrivalRateQuery", "serviceTime", "beta" };
	const char *v3[] = { "vector(5000)", "10", "1.5" };
	const char *k4[] = { "ab", "c" }, *v4[] = { "c", "d" };
	const char *k5[] = { "a", "bc" }, *v5[] = { "c", "d" };
	char a[FPRINT_HEX + 1], b[FPRINT_HEX + 1], c[FPRINT_HEX + 1];

	(void)state;
	assert_int_equal(fprint_metadata(k1, v1, 3, a), 0);
	assert_int_equal(strlen(a), FPRINT_HEX);
	/* the order KEDA sends a map in does not matter */
	assert_int_equal(fprint_metadata(k2, v2, 3, b), 0);
	assert_string_equal(a, b);
	/* any other value is another trigger */
	assert_int_equal(fprint_metadata(k3, v3, 3, c), 0);
	assert_string_not_equal(a, c);
	/* lengths keep boundaries apart */
	assert_int_equal(fprint_metadata(k4, v4, 2, a), 0);
	assert_int_equal(fprint_metadata(k5, v5, 2, b), 0);
	assert_string_not_equal(a, b);
	assert_int_equal(fprint_metadata(NULL, NULL, 0, a), 0);
	strcpy(c, "untouched");
	assert_int_equal(fprint_metadata(k1, v1, FPRINT_PAIRS_MAX + 1, c), -1);
	assert_string_equal(c, "untouched");
}

static char *write_tmp(const char *text, size_t len)
{
	char *path = strdup("/tmp/staffer-secret-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

static void test_secret_control(void **state)
{
	static const struct {
		const char *text;
		size_t len;
		const char *says;     /* NULL: accepted as "abc" */
	} cases[] = {
		{ "abc\n", 4, NULL },
		{ "abc \r\n\t", 7, NULL },
		{ "abc\r\nX-Evil: 1\n", 16, "byte 0x0d at offset 3" },
		{ "abc\nX-Evil: 1", 13, "byte 0x0a at offset 3" },
		{ "ab\0c", 4, "byte 0x00 at offset 2" },
		{ "a\x1b[2Jb", 6, "byte 0x1b" },
	};
	char why[256], *path, *tok;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		path = write_tmp(cases[i].text, cases[i].len);
		why[0] = '\0';
		tok = secret_read(path, why, sizeof(why));
		if (!cases[i].says) {
			assert_non_null(tok);
			assert_string_equal(tok, "abc");
		} else {
			assert_null(tok);
			if (!strstr(why, cases[i].says) ||
			    !strstr(why, "control character")) {
				print_error("case %zu: %s\n", i, why);
				fail();
			}
		}
		free(tok);
		unlink(path);
		free(path);
	}
	/* a FIFO would block the fetch thread: refused at once */
	assert_int_equal(mkfifo("/tmp/staffer-secret-fifo", 0600) == 0 ||
			 errno == EEXIST, 1);
	tok = secret_read("/tmp/staffer-secret-fifo", why, sizeof(why));
	assert_null(tok);
	assert_non_null(strstr(why, "not a regular file"));
	unlink("/tmp/staffer-secret-fifo");
}

/* Text lines: nothing a message quotes can end the line or reach the
 * terminal as an escape. */
static void test_log_escape(void **state)
{
	char buf[256];
	size_t n;

	(void)state;
	n = log_format_line(buf, sizeof(buf), 0, "T", LOG_WARN,
			    "ns/evil\n2026-01-01T00:00:00.000Z error  forged");
	assert_int_equal(n, strlen(buf));
	assert_string_equal(buf, "T warn  ns/evil\\n2026-01-01T00:00:00.000Z "
			    "error  forged\n");
	log_format_line(buf, sizeof(buf), 0, "T", LOG_INFO,
			"a\x1b[2Jb\rc\td\x7f\xff\xc2\x9b\xc3\xa9");
	assert_string_equal(buf, "T info  a\\x1b[2Jb\\rc\\td\\x7f\\xff\\u009b"
			    "\xc3\xa9\n");
	/* cut, still one line */
	memset(buf, 0, sizeof(buf));
	n = log_format_line(buf, 16, 0, "T", LOG_INFO, "\n\n\n\n\n\n\n\n");
	assert_true(n < 16);
	assert_int_equal(strchr(buf, '\n') - buf, (long)n - 1);
}

static void test_prom_sample_time(void **state)
{
	const char *body = "{\"status\":\"success\",\"data\":{\"resultType\":"
			   "\"vector\",\"result\":[{\"metric\":{},\"value\":"
			   "[1700000000.5,\"3\"]}]}}";
	double v = -1, ts = -1;

	(void)state;
	assert_int_equal(prom_parse_sample(body, strlen(body), &v, &ts, NULL,
					   0), PROM_OK);
	assert_true(v == 3.0);
	assert_true(ts == 1700000000.5);
	v = ts = -1;
	assert_int_equal(prom_parse_sample("{}", 2, &v, &ts, NULL, 0),
			 PROM_EPARSE);
	assert_true(v == -1 && ts == -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stab_quota),
		cmocka_unit_test(test_stab_lru),
		cmocka_unit_test(test_stab_regular),
		cmocka_unit_test(test_fprint),
		cmocka_unit_test(test_secret_control),
		cmocka_unit_test(test_log_escape),
		cmocka_unit_test(test_prom_sample_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
