/*
 * test_budget.c - the request budget (budget.h), the container's memory
 * limit and sizes (memlimit.h), and Kubernetes names (kname.h): the
 * pieces of issue 23's bounds that need no server.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "budget.h"
#include "check.h"
#include "kname.h"
#include "memlimit.h"

/* The sum is bounded, one caller holds at most half, a refusal takes
 * nothing and is counted, giving back frees the caller's entry. */
static void test_budget_take(void **state)
{
	struct budget *b = budget_new(1000);
	struct budget_stats s;

	(void)state;
	assert_non_null(b);
	assert_int_equal(budget_take(b, "a", 400), 0);
	assert_int_equal(budget_take(b, "a", 101), -1);   /* a's half */
	assert_int_equal(budget_take(b, "a", 100), 0);
	assert_int_equal(budget_take(b, "b", 400), 0);
	assert_int_equal(budget_take(b, "c", 101), -1);   /* the sum */
	assert_int_equal(budget_take(b, "c", 100), 0);
	budget_get_stats(b, &s);
	assert_int_equal(s.used, 1000);
	assert_int_equal(s.callers, 3);
	assert_int_equal(s.refused, 2);
	budget_give(b, "a", 500);
	budget_give(b, "c", 100);
	budget_give(b, "nobody", 100);                    /* ignored */
	budget_get_stats(b, &s);
	assert_int_equal(s.used, 400);
	assert_int_equal(s.callers, 1);
	assert_int_equal(budget_take(b, NULL, 500), 0);   /* "" is a caller */
	budget_free(b);
	budget_free(NULL);
}

static void test_budget_sizes(void **state)
{
	(void)state;
	assert_int_equal(budget_for_limit(256u << 20), 64u << 20);
	assert_int_equal(budget_for_limit(0), BUDGET_DEFAULT);
	assert_int_equal(budget_for_limit(1u << 20), BUDGET_MIN);
	assert_int_equal(budget_quota(64u << 20), 128u << 20);
	assert_int_equal(budget_cost(1000), 2000 + BUDGET_CALL_COST);
	assert_int_equal(budget_cost(SIZE_MAX), SIZE_MAX);
}

static void test_memlimit_parse(void **state)
{
	static const struct {
		const char *in;
		size_t out;
	} good[] = {
		{ "1", 1 }, { "268435456", 268435456 }, { "256Mi", 256u << 20 },
		{ "64Ki", 64u << 10 }, { "2Gi", (size_t)2 << 30 },
		{ "1Ti", (size_t)1 << 40 },
	};
	static const char *const bad[] = {
		"", "0", "-1", "1.5Mi", "256M", "256mi", " 1", "1 ", "Mi",
		"99999999999999999999", "2000Ti",
	};
	char err[MEMLIMIT_ERR_MAX];
	size_t i, v;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(memlimit_parse(good[i].in, &v, err), 0);
		assert_int_equal(v, good[i].out);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		if (memlimit_parse(bad[i], &v, err) != -1 || v != 7) {
			print_error("'%s' was taken\n", bad[i]);
			fail();
		}
		check_contains(err, "is not a size; allowed: a whole number of "
			       "bytes");
	}
	/* whatever this machine has: a number, or 0 for none */
	print_message("memory limit here: %zu\n", memlimit_cgroup());
}

/* apimachinery's IsDNS1123Label and IsDNS1123Subdomain. */
static void test_kname(void **state)
{
	static const char *const labels[] = {
		"a", "team-a", "0", "a-0-b", "ml",
		"123456789012345678901234567890123456789012345678901234567890123",
	};
	static const struct {
		const char *in, *why;
	} bad_labels[] = {
		{ "", "is empty" }, { "Team", "character 1 is not allowed (byte 0x54)" },
		{ "-a", "character 1 starts or ends a part" },
		{ "a-", "character 2 starts or ends a part" },
		{ "a.b", "character 2 is not allowed (byte 0x2e)" },
		{ "rt\xff\xfe", "character 3 is not allowed (byte 0xff)" },
		{ "a\nb", "character 2 is not allowed (byte 0x0a)" },
		{ "a/b", "not allowed (byte 0x2f)" },
		{ "1234567890123456789012345678901234567890123456789012345678901234",
		  "is 64 bytes long" },
	};
	static const char *const subs[] = {
		"a", "chat.v1", "llama-70b", "a.b.c", "x-1.y-2",
	};
	static const struct {
		const char *in, *why;
	} bad_subs[] = {
		{ "a..b", "character 2 starts or ends a part" },
		{ ".a", "character 1 starts or ends a part" },
		{ "a.", "character 2 starts or ends a part" },
		{ "a-.b", "character 2 starts or ends a part" },
		{ "a_b", "character 2 is not allowed (byte 0x5f)" },
		{ "A", "not allowed (byte 0x41)" },
	};
	char why[KNAME_WHY_MAX], big[300];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(labels) / sizeof(labels[0]); i++) {
		assert_int_equal(kname_check(KNAME_LABEL, labels[i], why), 0);
		assert_int_equal(kname_check(KNAME_SUBDOMAIN, labels[i], why), 0);
	}
	for (i = 0; i < sizeof(bad_labels) / sizeof(bad_labels[0]); i++) {
		assert_int_equal(kname_check(KNAME_LABEL, bad_labels[i].in, why),
				 -1);
		check_contains(why, bad_labels[i].why);
		check_contains(why, "a DNS-1123 label is 1 to 63");
	}
	for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		assert_int_equal(kname_check(KNAME_SUBDOMAIN, subs[i], why), 0);
	for (i = 0; i < sizeof(bad_subs) / sizeof(bad_subs[0]); i++) {
		assert_int_equal(kname_check(KNAME_SUBDOMAIN, bad_subs[i].in, why),
				 -1);
		check_contains(why, bad_subs[i].why);
		check_contains(why, "a DNS-1123 subdomain");
	}
	memset(big, 'x', 253);
	big[253] = '\0';
	assert_int_equal(kname_check(KNAME_SUBDOMAIN, big, why), 0);
	big[253] = 'x';
	big[254] = '\0';
	assert_int_equal(kname_check(KNAME_SUBDOMAIN, big, why), -1);
	check_contains(why, "is 254 bytes long");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_budget_take),
		cmocka_unit_test(test_budget_sizes),
		cmocka_unit_test(test_memlimit_parse),
		cmocka_unit_test(test_kname),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
