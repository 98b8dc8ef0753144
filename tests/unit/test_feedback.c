/*
 * test_feedback.c - the SLO correction (feedback.h), worked by hand.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "check.h"
#include "feedback.h"

#define N 241          /* an hour at 15 s, the one now included */
#define STEP 15.0
#define WINDOW 3600.0
#define A 0.01         /* slaTarget 0.99 */

static double miss[N], rate[N];

static void fill(double *v, size_t n, double x)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = x;
}

static double corr(const double *r, struct feedback_info *fi)
{
	double c = -1;

	assert_int_equal(feedback_correction(miss, r, N, STEP, WINDOW, A,
					     180, &c, fi), MODEL_OK);
	return c;
}

/* A constant miss share over exactly one window: the mean at the last
 * point is e itself (its weights are the normaliser's), and the highest. */
static void test_constant(void **state)
{
	struct feedback_info fi;

	(void)state;
	fill(rate, N, 10);
	/* No misses: no correction. */
	fill(miss, N, 0);
	assert_near(corr(rate, &fi), 1.0, 0);
	assert_int_equal(fi.used, N);
	assert_near(fi.u, 0, 0);
	/* Under half the allowance: none either. */
	fill(miss, N, 0.005);
	assert_near(corr(rate, NULL), 1.0, 0);
	/* 0.63 a: e = (0.0063 - 0.005) / 0.005 = 0.26, c = exp(0.26). */
	fill(miss, N, 0.0063);
	assert_near(corr(rate, &fi), exp(0.26), 1e-9);
	assert_near(fi.miss_mean, 0.0063, 1e-15);
	/* At the allowance e = 1, exp(1) beyond the ceiling. */
	fill(miss, N, A);
	assert_near(corr(rate, &fi), FEEDBACK_MAX, 0);
	assert_near(fi.u, 1.0, 1e-12);
	/* Everything missed: e is clipped at FEEDBACK_GROW_MAX. */
	fill(miss, N, 1);
	corr(rate, &fi);
	assert_near(fi.u, FEEDBACK_GROW_MAX, 1e-12);
}

/* Points without a miss share, and points where demand had risen, are
 * left out; with none left there is no correction. */
static void test_left_out(void **state)
{
	struct feedback_info fi;
	size_t i;

	(void)state;
	fill(rate, N, 10);
	fill(miss, N, NAN);
	assert_near(corr(rate, &fi), 1.0, 0);
	assert_int_equal(fi.used, 0);
	assert_int_equal(fi.empty, N);
	/* -1 and 2 are not shares either. */
	miss[0] = -1;
	miss[1] = 2;
	miss[2] = INFINITY;
	corr(rate, &fi);
	assert_int_equal(fi.empty, N);
	/* A ramp of 20 % per 180 s (12 steps): from the 13th point on each
	 * is 20 % above the one 12 before; the first 12 compare with the
	 * first point, and are more than 10 % above it from i = 7 on
	 * (1.2^(7/12) = 1.112, 1.2^(6/12) = 1.095). */
	for (i = 0; i < N; i++)
		rate[i] = 10 * pow(1.2, (double)i / 12);
	fill(miss, N, 0.5);
	assert_true(corr(rate, &fi) > 1.0);
	assert_int_equal(fi.rising, N - 7);
	assert_int_equal(fi.used, 7);
	/* Misses only while demand rose: no correction. */
	fill(miss, 7, 0);
	assert_near(corr(rate, &fi), 1.0, 0);
	/* Without the rate nothing is rising. */
	corr(NULL, &fi);
	assert_int_equal(fi.rising, 0);
	assert_int_equal(fi.used, N);
	/* A fall is not left out. */
	for (i = 0; i < N; i++)
		rate[i] = 100 - 0.3 * (double)i;
	corr(rate, &fi);
	assert_int_equal(fi.rising, 0);
}

/* The same constant over a window shorter than the series and its
 * warm-up: the mean is still e (it read 1.5 e at a 600-s window, the
 * normaliser having the window's weights and the sum the warm-up's too). */
static void test_short_window(void **state)
{
	double c, longer[2 * N];
	size_t n;

	(void)state;
	fill(longer, 2 * N, 0.0063);
	for (n = 41; n <= 2 * N; n += 100) {
		assert_int_equal(feedback_correction(longer, NULL, n, STEP,
						     600, A, 180, &c, NULL),
				 MODEL_OK);
		assert_near(c, exp(0.26), 1e-9);
	}
}

/* A need once shown is kept for the window, then forgotten; points
 * before the window only warm the mean up. */
static void test_window(void **state)
{
	double c, big[2 * N], d = exp(-STEP / FEEDBACK_TAU_UP_S);
	double norm = (1 - pow(d, N)) / (1 - d);
	struct feedback_info fi;

	(void)state;
	/* Misses at the allowance (e = 1) for the first 10 points of the
	 * window, none since: the mean peaked at the 10th point, at
	 * (1 + d + ... + d^9) / norm, and the correction keeps it. */
	fill(miss, N, 0);
	fill(miss, 10, A);
	c = corr(NULL, &fi);
	assert_near(log(c), (1 - pow(d, 10)) / (1 - d) / norm, 1e-12);
	assert_true(c > 1.0);
	/* Once they are older than the window and its warm-up (3 time
	 * constants, 120 points): nothing.  Heavy misses, then 130 points
	 * and a whole window of none. */
	fill(big, 2 * N, 0);
	fill(big, 2 * N - N - 130, 0.5);
	assert_int_equal(feedback_correction(big, NULL, 2 * N, STEP, WINDOW,
					     A, 180, &c, &fi), MODEL_OK);
	assert_near(c, 1.0, 0);
	assert_int_equal(fi.used, N);
	/* ...but misses just before the window still weigh in the mean at
	 * its first points (warming up): c > 1. */
	fill(big, 2 * N, 0);
	fill(big + N - 5, 5, 0.5);
	assert_int_equal(feedback_correction(big, NULL, 2 * N, STEP, WINDOW,
					     A, 180, &c, &fi), MODEL_OK);
	assert_true(c > 1.0);
	/* The ceiling holds however bad. */
	fill(miss, N, 1);
	assert_true(corr(NULL, NULL) <= FEEDBACK_MAX);
}

static void test_invalid(void **state)
{
	double c = 42;

	(void)state;
	fill(miss, N, 0);
	fill(rate, N, 1);
	assert_int_equal(feedback_correction(miss, rate, N, 0, WINDOW, A, 0,
					     &c, NULL), MODEL_EINVAL);
	assert_int_equal(feedback_correction(miss, rate, N, STEP, NAN, A, 0,
					     &c, NULL), MODEL_EINVAL);
	assert_int_equal(feedback_correction(miss, rate, N, STEP, WINDOW, 0,
					     0, &c, NULL), MODEL_EINVAL);
	assert_int_equal(feedback_correction(miss, rate, N, STEP, WINDOW, 1,
					     0, &c, NULL), MODEL_EINVAL);
	assert_int_equal(feedback_correction(miss, rate, N, STEP, WINDOW, A,
					     -1, &c, NULL), MODEL_EINVAL);
	assert_int_equal(feedback_correction(NULL, rate, N, STEP, WINDOW, A,
					     0, &c, NULL), MODEL_EINVAL);
	assert_int_equal(feedback_correction(miss, rate, N, STEP, WINDOW, A,
					     0, NULL, NULL), MODEL_EINVAL);
	rate[3] = -1;
	assert_int_equal(feedback_correction(miss, rate, N, STEP, WINDOW, A,
					     0, &c, NULL), MODEL_EINVAL);
	rate[3] = NAN;
	assert_int_equal(feedback_correction(miss, rate, N, STEP, WINDOW, A,
					     0, &c, NULL), MODEL_EINVAL);
	assert_near(c, 42, 0);
	/* No points at all is no evidence: c = 1. */
	assert_int_equal(feedback_correction(NULL, NULL, 0, STEP, WINDOW, A,
					     0, &c, NULL), MODEL_OK);
	assert_near(c, 1, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constant),
		cmocka_unit_test(test_short_window),
		cmocka_unit_test(test_left_out),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
