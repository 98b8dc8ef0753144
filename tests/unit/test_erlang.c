/*
 * test_erlang.c - Erlang C, P(wait > tau), and the two staffing searches.
 *
 * The reference values come from hand computation, a standard Erlang B
 * table, and an independent long double implementation in this file (direct
 * summation for small c; a plain recursion from k = 0 with no skipping for
 * large c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <time.h>

#include "check.h"
#include "erlang.h"

/* cmocka's assert_float_equal works in float; these keep double. */
/* Erlang C by direct summation of a^k / k! (terms built by ratio). */
static long double ref_c_sum(long c, long double a)
{
	long double term = 1.0L, sum = 0.0L, last;
	long k;

	for (k = 0; k < c; k++) {
		sum += term;
		term *= a / (long double)(k + 1);
	}
	last = term * (long double)c / ((long double)c - a);
	return last / (sum + last);
}

/* B(c) by the full recursion from B(0) = 1, no shortcuts. */
static long double ref_b_full(long c, long double a)
{
	long double b = 1.0L;
	long k;

	for (k = 1; k <= c; k++)
		b = a * b / ((long double)k + a * b);
	return b;
}

static long double ref_c_full(long c, long double a)
{
	long double b = ref_b_full(c, a);

	return (long double)c * b / ((long double)c - a * (1.0L - b));
}

static long double ref_tail(long c, double a, double w, double tau)
{
	if (a >= (double)c)
		return 1.0L;
	return ref_c_full(c, a) *
	       expl(-((long double)c - a) * (long double)tau / w);
}

static void test_hand_values(void **state)
{
	/* C(2, 1): (1/2 * 2/1) / (1 + 1 + 1) = 1/3. */
	assert_near(erlang_c(2, 1.0), 1.0 / 3.0, 1e-15);
	/* C(3, 2): (8/6 * 3/1) / (1 + 2 + 2 + 4) = 4/9. */
	assert_near(erlang_c(3, 2.0), 4.0 / 9.0, 1e-15);
	/* M/M/1: P(wait) = rho. */
	assert_near(erlang_c(1, 0.3), 0.3, 1e-15);
	assert_near(erlang_c(1, 0.9), 0.9, 1e-15);
}

static void test_table_value(void **state)
{
	/* Erlang B tables: 5 trunks, 2 E -> 0.0367; C = cB / (c - a(1 - B))
	 * = 5 * 0.0367 / (3 + 2 * 0.0367) = 0.0597. */
	assert_near(erlang_c(5, 2.0), 0.0597, 1e-4);
	/* Exact: B = (32/120) / (1 + 2 + 2 + 4/3 + 2/3 + 32/120) = 4/109. */
	assert_near(erlang_c(5, 2.0),
		    5.0 * (4.0 / 109) / (5.0 - 2.0 * (1.0 - 4.0 / 109)),
		    1e-15);
}

static void test_against_summation(void **state)
{
	long c;

	for (c = 1; c <= 50; c++) {
		double frac[] = { 0.001, 0.1, 0.5, 0.8, 0.95, 0.999 };
		size_t i;

		for (i = 0; i < sizeof(frac) / sizeof(frac[0]); i++) {
			double a = frac[i] * (double)c;

			assert_rel(erlang_c(c, a), (double)ref_c_sum(c, a),
				   1e-12);
		}
	}
}

static void test_edges(void **state)
{
	assert_near(erlang_c(10, 0.0), 0.0, 0.0);
	assert_near(erlang_c(10, 10.0), 1.0, 0.0);
	assert_near(erlang_c(10, 12.5), 1.0, 0.0);
	assert_true(isnan(erlang_c(0, 1.0)));
	assert_true(isnan(erlang_c(-3, 1.0)));
	assert_true(isnan(erlang_c(10, -1.0)));
	assert_true(isnan(erlang_c(10, NAN)));
	assert_true(isnan(erlang_c(10, INFINITY)));
	assert_true(isnan(erlang_c(10, 2e9)));
	/* Far above the load B underflows; the answer is 0, not NaN. */
	assert_near(erlang_c(100000, 1.0), 0.0, 1e-300);
	assert_near(erlang_c(2000000000L, 1e6), 0.0, 1e-300);
}

static void test_large_c(void **state)
{
	double prev = 1.0;
	long c;

	assert_rel(erlang_c(5000, 4900.0), (double)ref_c_full(5000, 4900.0L),
		   1e-12);
	for (c = 4901; c <= 5300; c++) {
		double v = erlang_c(c, 4900.0);

		assert_true(isfinite(v));
		assert_true(v > 0.0 && v < 1.0);
		assert_true(v < prev);
		prev = v;
	}
	/* A million servers: the skipped start agrees with a full walk. */
	assert_rel(erlang_c(1002000, 1e6),
		   (double)ref_c_full(1002000, 1e6L), 1e-11);
	assert_rel(erlang_c(1000001, 1e6),
		   (double)ref_c_full(1000001, 1e6L), 1e-11);
}

static void test_near_saturation(void **state)
{
	long cs[] = { 1, 10, 100, 5000, 1000000 };
	size_t i;

	for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		double v = erlang_c(cs[i], (double)cs[i] - 1e-9);

		assert_true(isfinite(v));
		assert_true(v <= 1.0);
		assert_near(v, 1.0, 1e-6);
	}
}

static void test_wait_tail(void **state)
{
	double c = erlang_c(25, 20.0);

	assert_near(erlang_wait_tail(25, 20.0, 10.0, 0.0), c, 1e-15);
	assert_rel(erlang_wait_tail(25, 20.0, 10.0, 2.0),
		   c * exp(-5.0 * 2.0 / 10.0), 1e-14);
	assert_near(erlang_wait_tail(20, 20.0, 10.0, 2.0), 1.0, 0.0);
	assert_near(erlang_wait_tail(25, 0.0, 10.0, 2.0), 0.0, 0.0);
	assert_true(isnan(erlang_wait_tail(25, 20.0, 0.0, 2.0)));
	assert_true(isnan(erlang_wait_tail(25, 20.0, 10.0, -1.0)));
	assert_true(isnan(erlang_wait_tail(25, 20.0, NAN, 1.0)));
	assert_true(isnan(erlang_wait_tail(0, 20.0, 10.0, 1.0)));
}

/* erlang_staff's answer meets the target and one fewer does not. */
static void check_staff(double a, double w, double tau, double eps)
{
	long c = -1;

	assert_int_equal(erlang_staff(a, w, tau, eps, &c), MODEL_OK);
	assert_true((double)c > a);
	assert_true(ref_tail(c, a, w, tau) <= (long double)eps * (1 + 1e-12));
	if ((double)(c - 1) > a)
		assert_true(ref_tail(c - 1, a, w, tau) >
			    (long double)eps * (1 - 1e-12));
}

static void test_staff_examples(void **state)
{
	long c = -1;

	check_staff(20.0, 10.0, 1.0, 0.05);
	check_staff(20.0, 10.0, 0.1, 0.01);
	check_staff(2.5, 300.0, 1e-9, 0.1);
	check_staff(0.3, 1.0, 0.5, 0.2);
	check_staff(150.0, 2.0, 0.2, 0.001);
	check_staff(999.5, 1.0, 0.05, 0.05);
	check_staff(4900.0, 30.0, 3.0, 0.01);
	check_staff(7.0, 5.0, 100.0, 0.5);     /* tail small at once */
	check_staff(12.0, 1000.0, 1e-6, 1e-12); /* long search */

	/* 30 calls/h, 5 min each (a = 2.5), P(delay) <= 10%.  By hand:
	 * C(5, 2.5) = 1.6276 / 12.484 = 0.130, C(6, 2.5) = 0.5813 / 12.252
	 * = 0.047, so 6.  (tau is ~0, so the exponential factor is ~1.) */
	assert_int_equal(erlang_staff(2.5, 300.0, 1e-9, 0.1, &c), MODEL_OK);
	assert_int_equal(c, 6);
	assert_near(erlang_c(5, 2.5), 0.13037, 1e-5);
	assert_near(erlang_c(6, 2.5), 0.047444, 1e-6);
}

static void test_staff_errors(void **state)
{
	long c = 77;

	assert_int_equal(erlang_staff(0.0, 10.0, 1.0, 0.05, &c), MODEL_OK);
	assert_int_equal(c, 0);
	c = 77;
	assert_int_equal(erlang_staff(5.0, 0.0, 1.0, 0.05, &c), MODEL_EINVAL);
	assert_int_equal(erlang_staff(5.0, 10.0, 0.0, 0.05, &c),
			 MODEL_EINVAL);
	assert_int_equal(erlang_staff(5.0, 10.0, 1.0, 0.0, &c), MODEL_EINVAL);
	assert_int_equal(erlang_staff(5.0, 10.0, 1.0, 1.0, &c), MODEL_EINVAL);
	assert_int_equal(erlang_staff(-1.0, 10.0, 1.0, 0.5, &c),
			 MODEL_EINVAL);
	assert_int_equal(erlang_staff(NAN, 10.0, 1.0, 0.5, &c), MODEL_EINVAL);
	assert_int_equal(erlang_staff(5.0, INFINITY, 1.0, 0.5, &c),
			 MODEL_EINVAL);
	assert_int_equal(erlang_staff(5.0, 10.0, 1.0, 0.5, NULL),
			 MODEL_EINVAL);
	assert_int_equal(c, 77);
	assert_int_equal(erlang_staff(2e9, 10.0, 1.0, 0.05, &c),
			 MODEL_ERANGE);
	/* Feasible c would be just above MODEL_SLOTS_MAX. */
	assert_int_equal(erlang_staff(1e9 - 0.5, 10.0, 1.0, 0.05, &c),
			 MODEL_ERANGE);
	assert_int_equal(c, 77);
}

/* One load of the grid below: the continuous c in (c - 1, c], above
 * the load, c its ceiling, not below the last one (*prev). */
static void check_frac(double a, double w, double tau, double eps,
		       double *prev)
{
	double f = -1;
	long c = -1;

	assert_int_equal(erlang_staff(a, w, tau, eps, &c), MODEL_OK);
	assert_int_equal(erlang_staff_frac(a, w, tau, eps, &f), MODEL_OK);
	assert_true(f > (double)(c - 1) && f <= (double)c);
	assert_true(f > a);
	assert_true(ceil(f) == (double)c);
	assert_true(f >= *prev - 1e-12);
	*prev = f;
}

/* The continuous c over a grid of loads, rising with the load; c itself
 * when the tail meets eps exactly at c; errors as erlang_staff, the
 * output untouched. */
static void test_staff_frac(void **state)
{
	static const double w[] = { 0.13, 1.0, 10.0 };
	static const double tau[] = { 0.5, 1.85, 20.0 };
	static const double eps[] = { 0.01, 0.05, 0.2 };
	double a, f, prev, out = 77;
	size_t i, j, k;
	long c;

	(void)state;
	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++)
			for (k = 0; k < 3; k++)
				for (prev = 0, a = 0.05; a < 60; a *= 1.07)
					check_frac(a, w[i], tau[j], eps[k],
						   &prev);
	/* eps set to the tail at c: c itself */
	assert_int_equal(erlang_staff(6, 0.13, 1.85, 0.01, &c), MODEL_OK);
	assert_int_equal(erlang_staff_frac(6, 0.13, 1.85,
					   erlang_wait_tail(c, 6, 0.13, 1.85),
					   &f), MODEL_OK);
	assert_near(f, (double)c, 1e-9);
	/* conv's prefill pool (docs/pools.md): a = 6, W 0.134 s, tau
	 * 1.85 s: c = 7, the load 0.3 of a replica below it */
	assert_int_equal(erlang_staff_frac(6, 0.134, 1.85, 0.01, &f),
			 MODEL_OK);
	assert_true(f > 6.1 && f < 6.5);
	assert_int_equal(erlang_staff_frac(0.0, 10.0, 1.0, 0.05, &f),
			 MODEL_OK);
	assert_true(f == 0);
	assert_int_equal(erlang_staff_frac(5.0, 0.0, 1.0, 0.05, &out),
			 MODEL_EINVAL);
	assert_int_equal(erlang_staff_frac(5.0, 10.0, 1.0, 1.0, &out),
			 MODEL_EINVAL);
	assert_int_equal(erlang_staff_frac(2e9, 10.0, 1.0, 0.05, &out),
			 MODEL_ERANGE);
	assert_int_equal(erlang_staff_frac(5.0, 10.0, 1.0, 0.05, NULL),
			 MODEL_EINVAL);
	assert_true(out == 77);
}

static void test_staff_large_fast(void **state)
{
	clock_t t0 = clock();
	double secs;
	long c = -1;

	assert_int_equal(erlang_staff(1e7, 10.0, 1.0, 0.01, &c), MODEL_OK);
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	assert_true(secs < 0.5);
	/* Square-root staffing puts c within a few sqrt(a) of a. */
	assert_true(c > 10000000L && c < 10000000L + 5 * 3163);
	/* The answer agrees with a full, unskipped recursion. */
	assert_true(ref_tail(c, 1e7, 10.0, 1.0) <= 0.01L * (1 + 1e-9));
	assert_true(ref_tail(c - 1, 1e7, 10.0, 1.0) > 0.01L * (1 - 1e-9));

	/* The top of the range is still quick. */
	t0 = clock();
	assert_int_equal(erlang_staff(9e8, 10.0, 1.0, 0.01, &c), MODEL_OK);
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	assert_true(secs < 0.5);
	assert_true(c > 900000000L && c < 900000000L + 5 * 30000);

	/* Worst cases: a walk to underflow (B must not stick at the smallest
	 * subnormal, which would take ~1e9 steps) and a search for a tail of
	 * 1e-300 that ends beyond MODEL_SLOTS_MAX. */
	t0 = clock();
	assert_near(erlang_c(2000000000L, 9.99e8), 0.0, 1e-300);
	assert_int_equal(erlang_staff(9.99e8, 10.0, 1e-9, 1e-300, &c),
			 MODEL_ERANGE);
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	assert_true(secs < 0.5);
}

/* Brute force: the cheapest stable r in 1..2000, by an independent
 * long double walk.  Unstable r (r n <= a) are outside the contract. */
struct cost_case {
	double a, w, tau;
	long n;
	double cost, penalty;
};

static long double ref_cost(const struct cost_case *k, long r,
			    long double b)
{
	long c = r * k->n;
	long double tail = 1.0L;

	if ((double)c > k->a)
		tail = (long double)c * b /
		       ((long double)c - k->a * (1.0L - b)) *
		       expl(-((long double)c - k->a) * k->tau / k->w);
	return (long double)k->cost * r + (long double)k->penalty * tail;
}

/* One long double walk of B from k = 0, priced at every multiple of n. */
static long brute_best_r(const struct cost_case *k, long double *cost_of)
{
	long double b = 1.0L, best = 0.0L;
	long r, j, best_r = -1;

	for (r = 1; r <= 2000; r++) {
		for (j = (r - 1) * k->n + 1; j <= r * k->n; j++)
			b = k->a * b / ((long double)j + k->a * b);
		cost_of[r] = ref_cost(k, r, b);
		if ((double)(r * k->n) <= k->a)
			continue;
		if (best_r < 0 || cost_of[r] < best) {
			best = cost_of[r];
			best_r = r;
		}
	}
	return best_r;
}

static void test_cost_brute_force(void **state)
{
	static const struct cost_case cases[] = {
		{ 20.0, 10.0, 1.0, 1, 1.0, 100.0 },
		{ 20.0, 10.0, 0.5, 4, 3.0, 1000.0 },
		{ 150.0, 2.0, 0.2, 8, 2.5, 5000.0 },
		{ 0.5, 1.0, 0.1, 1, 1.0, 0.0 },
		{ 75.3, 30.0, 5.0, 16, 4.0, 1e6 },
		{ 999.5, 1.0, 0.05, 1, 1.0, 1e4 },
		{ 3.0, 60.0, 2.0, 1, 40.0, 40.0 },
		{ 310.0, 5.0, 1.0, 32, 12.0, 1e5 },
		{ 1.0, 1.0, 1e-3, 2, 1.0, 1e9 },
	};
	static long double cost_of[2001];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct cost_case *k = &cases[i];
		long c = -1, r, want;

		assert_int_equal(erlang_cost_staff(k->a, k->w, k->tau, k->n,
						   k->cost, k->penalty, &c),
				 MODEL_OK);
		assert_true(c % k->n == 0);
		assert_true((double)c > k->a);
		r = c / k->n;
		want = brute_best_r(k, cost_of);
		assert_true(want > 0 && want < 2000);
		assert_true(r > 0 && r <= 2000);
		/* Same r, or a tie to within rounding. */
		if (r != want) {
			print_message("case %zu: r %ld vs %ld\n", i, r, want);
			assert_true(cost_of[r] - cost_of[want] <=
				    1e-12L * cost_of[want]);
		}
	}
}

static void test_cost_edges(void **state)
{
	long c = 77;

	/* No penalty: the smallest stable whole replica count. */
	assert_int_equal(erlang_cost_staff(20.0, 10.0, 1.0, 4, 1.0, 0.0, &c),
			 MODEL_OK);
	assert_int_equal(c, 24);
	assert_int_equal(erlang_cost_staff(20.0, 10.0, 1.0, 5, 1.0, 0.0, &c),
			 MODEL_OK);
	assert_int_equal(c, 25);
	assert_int_equal(erlang_cost_staff(0.0, 10.0, 1.0, 4, 1.0, 9.0, &c),
			 MODEL_OK);
	assert_int_equal(c, 0);
	/* A ratio that overflows still ends, with the tail driven to 0. */
	assert_int_equal(erlang_cost_staff(20.0, 10.0, 1.0, 1, 1e-300,
					   1e300, &c), MODEL_OK);
	assert_true(ref_tail(c, 20.0, 10.0, 1.0) < 1e-300L);

	c = 77;
	assert_int_equal(erlang_cost_staff(20.0, 10.0, 1.0, 0, 1.0, 9.0, &c),
			 MODEL_EINVAL);
	assert_int_equal(erlang_cost_staff(20.0, 10.0, 1.0, 1, 0.0, 9.0, &c),
			 MODEL_EINVAL);
	assert_int_equal(erlang_cost_staff(20.0, 10.0, 1.0, 1, 1.0, -9.0, &c),
			 MODEL_EINVAL);
	assert_int_equal(erlang_cost_staff(20.0, 10.0, 0.0, 1, 1.0, 9.0, &c),
			 MODEL_EINVAL);
	assert_int_equal(erlang_cost_staff(20.0, 0.0, 1.0, 1, 1.0, 9.0, &c),
			 MODEL_EINVAL);
	assert_int_equal(erlang_cost_staff(20.0, 10.0, 1.0, 1, NAN, 9.0, &c),
			 MODEL_EINVAL);
	assert_int_equal(erlang_cost_staff(2e9, 10.0, 1.0, 1, 1.0, 9.0, &c),
			 MODEL_ERANGE);
	assert_int_equal(erlang_cost_staff(1e9 - 10, 10.0, 1.0, 64, 1.0, 9.0,
					   &c), MODEL_ERANGE);
	assert_int_equal(c, 77);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_values),
		cmocka_unit_test(test_table_value),
		cmocka_unit_test(test_against_summation),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_large_c),
		cmocka_unit_test(test_near_saturation),
		cmocka_unit_test(test_wait_tail),
		cmocka_unit_test(test_staff_examples),
		cmocka_unit_test(test_staff_errors),
		cmocka_unit_test(test_staff_frac),
		cmocka_unit_test(test_staff_large_fast),
		cmocka_unit_test(test_cost_brute_force),
		cmocka_unit_test(test_cost_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
