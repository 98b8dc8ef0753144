/*
 * test_mcache.c - parsed metadata cached by the exact map (mcache.h):
 * byte-for-byte hits only, deep copies, least-recently-used eviction;
 * and meta_copy() (meta.h), which the cache relies on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mcache.h"
#include "meta.h"

static const char *const keys[2] = { "arrivalRateQuery", "serviceTime" };

/* Parse {arrivalRateQuery: q, serviceTime: 10} into m. */
static void parse(struct meta *m, const char *q)
{
	const char *values[2] = { q, "10" };
	struct meta_error err;

	meta_init(m);
	assert_int_equal(meta_parse(m, keys, values, 2, &err), META_OK);
}

static void test_meta_copy(void **state)
{
	struct meta a, b;

	(void)state;
	parse(&a, "sum(rate(x[1m]))");
	assert_int_equal(meta_copy(&b, &a), 0);
	assert_string_equal(b.arrival_rate_query, a.arrival_rate_query);
	assert_ptr_not_equal(b.arrival_rate_query, a.arrival_rate_query);
	assert_true(b.service_time_s == 10);
	meta_release(&a);            /* b owns its own strings */
	assert_string_equal(b.arrival_rate_query, "sum(rate(x[1m]))");
	meta_release(&b);
}

static void test_mcache_exact(void **state)
{
	struct mcache *c = mcache_new(4);
	const char *v1[2] = { "q1", "10" }, *v2[2] = { "q1", "10 " };
	const char *k2[2] = { "arrivalRateQuery", "serviceTim" };
	const char *v3[2] = { "eserviceTime", "10" };
	char fp[FPRINT_HEX + 1] = "";
	const struct meta *hit;
	struct meta m;

	(void)state;
	assert_non_null(c);
	parse(&m, "q1");
	assert_null(mcache_get(c, keys, v1, 2, fp));
	assert_int_equal(mcache_put(c, keys, v1, 2, &m,
				    "0123456789abcdef0123456789abcdef"), 0);
	meta_release(&m);            /* the cache keeps a copy */
	hit = mcache_get(c, keys, v1, 2, fp);
	assert_non_null(hit);
	assert_string_equal(hit->arrival_rate_query, "q1");
	assert_string_equal(fp, "0123456789abcdef0123456789abcdef");
	/* one byte more, a pair fewer, or bytes moved across the pair's
	 * boundary: another map */
	assert_null(mcache_get(c, keys, v2, 2, fp));
	assert_null(mcache_get(c, keys, v1, 1, fp));
	assert_null(mcache_get(c, k2, v3, 2, fp));
	/* a fingerprint must be whole */
	parse(&m, "q1");
	assert_int_equal(mcache_put(c, keys, v2, 2, &m, "abc"), -1);
	meta_release(&m);
	assert_int_equal(mcache_count(c), 1);
	mcache_free(c);
}

static void test_mcache_lru(void **state)
{
	struct mcache *c = mcache_new(2);
	const char *va[2] = { "qa", "10" }, *vb[2] = { "qb", "10" },
		   *vc[2] = { "qc", "10" };
	const char *fp0 = "00000000000000000000000000000000";
	char fp[FPRINT_HEX + 1];
	struct meta m;

	(void)state;
	assert_non_null(c);
	parse(&m, "qa");
	assert_int_equal(mcache_put(c, keys, va, 2, &m, fp0), 0);
	meta_release(&m);
	parse(&m, "qb");
	assert_int_equal(mcache_put(c, keys, vb, 2, &m, fp0), 0);
	meta_release(&m);
	assert_non_null(mcache_get(c, keys, va, 2, fp)); /* a is newest */
	parse(&m, "qc");
	assert_int_equal(mcache_put(c, keys, vc, 2, &m, fp0), 0);
	meta_release(&m);
	assert_int_equal(mcache_count(c), 2);
	assert_null(mcache_get(c, keys, vb, 2, fp));     /* b went */
	assert_non_null(mcache_get(c, keys, va, 2, fp));
	assert_non_null(mcache_get(c, keys, vc, 2, fp));
	mcache_free(c);
}

/* More maps than buckets: entries share buckets, and each lookup must
 * still find its own map's meta, never a neighbour's. */
static void test_mcache_many(void **state)
{
	enum { N = 3000 };
	struct mcache *c = mcache_new(N);
	const char *fp0 = "00000000000000000000000000000000";
	char q[32], fp[FPRINT_HEX + 1];
	const char *v[2] = { q, "10" };
	const struct meta *hit;
	struct meta m;
	int i;

	(void)state;
	assert_non_null(c);
	for (i = 0; i < N; i++) {
		snprintf(q, sizeof(q), "q%d", i);
		parse(&m, q);
		assert_int_equal(mcache_put(c, keys, v, 2, &m, fp0), 0);
		meta_release(&m);
	}
	for (i = 0; i < N; i++) {
		snprintf(q, sizeof(q), "q%d", i);
		hit = mcache_get(c, keys, v, 2, fp);
		assert_non_null(hit);
		assert_string_equal(hit->arrival_rate_query, q);
	}
	snprintf(q, sizeof(q), "q%d", N);
	assert_null(mcache_get(c, keys, v, 2, fp));
	mcache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meta_copy),
		cmocka_unit_test(test_mcache_exact),
		cmocka_unit_test(test_mcache_lru),
		cmocka_unit_test(test_mcache_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
