/*
 * test_safety.c - the surge headroom's estimate (safety.h): the level,
 * the rises over a lead time, the quantile, and how much history it takes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "safety.h"
#include "sim/simrng.h"

#define N_OF(x) (sizeof(x) / sizeof((x)[0]))

/* A flat series: the level is the rate, every rise is 1. */
static void test_flat(void **state)
{
	static double v[600];
	struct safety s;
	size_t i;

	(void)state;
	for (i = 0; i < N_OF(v); i++)
		v[i] = 7;
	assert_int_equal(safety_estimate(v, N_OF(v), 15, 180, 360, 0.95, &s),
			 MODEL_OK);
	assert_true(fabs(s.level - 7) < 1e-9);
	assert_true(fabs(s.ratio - 1) < 1e-9);
	assert_true(fabs(s.value - 7) < 1e-9);
	/* rises start after one tau (24 points) and need a lead time (12)
	 * after them */
	assert_int_equal(s.rises, N_OF(v) - 24 - 12 + 1 - 1);
}

/*
 * A worked case.  Every 5th point is 30, the rest 10 (mean 14), at 1 s;
 * lead time 2 s; tau 100 s, so the level sits at the mean, 14, give or
 * take a spike's share (0.16).  A window of the next two points holds a
 * 30 for 2 starting points in 5: 40 % of the rises are 30 / 14 = 2.14,
 * 60 % are 10 / 14 = 0.71.  The 0.5-quantile is 0.71 (nearest rank: 60 %
 * are at most that), the 0.7-quantile 2.14, and the value is the level
 * times the ratio: 10 and 30.
 */
static void test_quantile(void **state)
{
	static double v[3000];
	struct safety s;
	size_t i;

	(void)state;
	for (i = 0; i < N_OF(v); i++)
		v[i] = i % 5 == 4 ? 30 : 10;
	assert_int_equal(safety_estimate(v, N_OF(v), 1, 2, 100, 0.5, &s),
			 MODEL_OK);
	assert_true(fabs(s.level - 14) < 0.3);
	assert_true(fabs(s.ratio - 10.0 / 14) < 0.03);
	assert_true(fabs(s.value - 10) < 0.5);
	assert_true(fabs(s.value - s.level * s.ratio) < 1e-9);
	assert_int_equal(safety_estimate(v, N_OF(v), 1, 2, 100, 0.7, &s),
			 MODEL_OK);
	assert_true(fabs(s.ratio - 30.0 / 14) < 0.06);
	assert_true(fabs(s.value - 30) < 0.5);
	/* the newest SAFETY_POINTS_MAX rises only */
	assert_int_equal(s.rises, SAFETY_POINTS_MAX);
}

/* Too little history for the quantile: SAFETY_BEYOND / (1 - q) lead
 * times of rises after the warm-up, else no estimate. */
static void test_history(void **state)
{
	static double v[2000];
	struct safety s, keep;
	size_t i, need;

	(void)state;
	for (i = 0; i < N_OF(v); i++)
		v[i] = 5 + (double)(i % 7);
	memset(&keep, 0x5a, sizeof(keep));
	s = keep;
	/* q 0.95, lead 12 points: 40 lead times = 480 rises; tau 24 points
	 * of warm-up and 12 after the last rise: 516 points at least */
	need = 24 + 12 + 480;
	assert_int_equal(safety_estimate(v, need - 1, 15, 180, 360, 0.95, &s),
			 MODEL_ERANGE);
	assert_memory_equal(&s, &keep, sizeof(s));
	assert_int_equal(safety_estimate(v, need, 15, 180, 360, 0.95, &s),
			 MODEL_OK);
	assert_int_equal(s.rises, 480);
	/* q 0.99 needs 200 lead times: 2400 rises, more than the series */
	assert_int_equal(safety_estimate(v, N_OF(v), 15, 180, 360, 0.99, &s),
			 MODEL_ERANGE);
	/* a level of 0 (no traffic) says nothing */
	memset(v, 0, sizeof(v));
	assert_int_equal(safety_estimate(v, N_OF(v), 15, 180, 360, 0.9, &s),
			 MODEL_ERANGE);
}

/* One step of traffic in the history does not set the quantile: with
 * tau one lead time, the level has caught up two lead times after it, and
 * the rises it sets are those of about three lead times of the 63 here:
 * under 5 %. */
static void test_one_step(void **state)
{
	static double v[800];
	struct simrng r;
	struct safety s;
	size_t i;

	(void)state;
	simrng_seed(&r, 3);
	for (i = 0; i < N_OF(v); i++)
		v[i] = (i < 400 ? 10 : 30) + simrng_uniform(&r);
	assert_int_equal(safety_estimate(v, N_OF(v), 15, 180, 180, 0.95, &s),
			 MODEL_OK);
	assert_true(s.ratio < 1.2);
	assert_true(s.level > 29 && s.level < 32);
}

/*
 * A burst an hour, idle between: the server's grid (240 points 45 s
 * apart, lead 180 s, tau one lead).  The level decays towards 0 between
 * bursts, so the rise before each is many times the rate: l x U is 2.9
 * times the highest rate here, and reached 5.7e6 req/s with the bursts at
 * another phase.  The value is the highest rate the history holds, and
 * the same with a trickle between the bursts.
 */
static void test_idle_burst(void **state)
{
	static double v[240];
	struct safety s;
	size_t i;

	(void)state;
	for (i = 0; i < N_OF(v); i++)
		v[i] = i % 80 >= 76 ? 10 : 0;
	assert_int_equal(safety_estimate(v, N_OF(v), 45, 180, 180, 0.95, &s),
			 MODEL_OK);
	assert_true(s.level * s.ratio > 2 * s.peak);
	assert_true(s.peak == 10);
	assert_true(s.value == 10);
	for (i = 0; i < N_OF(v); i++)
		v[i] = i % 80 >= 76 ? 10 : 0.2;
	assert_int_equal(safety_estimate(v, N_OF(v), 45, 180, 180, 0.95, &s),
			 MODEL_OK);
	assert_true(s.value == 10);
	/* a peak before the rises' span does not count */
	for (i = 0; i < N_OF(v); i++)
		v[i] = 5 + (double)(i % 7);
	v[0] = 1000;
	assert_int_equal(safety_estimate(v, N_OF(v), 15, 180, 360, 0.5, &s),
			 MODEL_OK);
	assert_true(s.peak == 11);
	assert_true(s.value <= 11);
}

static void test_invalid(void **state)
{
	double v[100] = { 0 };
	struct safety s;

	(void)state;
	v[3] = NAN;
	assert_int_equal(safety_estimate(v, 100, 15, 180, 360, 0.9, &s),
			 MODEL_EINVAL);
	v[3] = -1;
	assert_int_equal(safety_estimate(v, 100, 15, 180, 360, 0.9, &s),
			 MODEL_EINVAL);
	v[3] = 1;
	assert_int_equal(safety_estimate(NULL, 100, 15, 180, 360, 0.9, &s),
			 MODEL_EINVAL);
	assert_int_equal(safety_estimate(v, 100, 0, 180, 360, 0.9, &s),
			 MODEL_EINVAL);
	assert_int_equal(safety_estimate(v, 100, 15, -1, 360, 0.9, &s),
			 MODEL_EINVAL);
	assert_int_equal(safety_estimate(v, 100, 15, 180, 0, 0.9, &s),
			 MODEL_EINVAL);
	assert_int_equal(safety_estimate(v, 100, 15, 180, 360, 1, &s),
			 MODEL_EINVAL);
	assert_int_equal(safety_estimate(v, 100, 15, 180, 360, 0, &s),
			 MODEL_EINVAL);
	assert_int_equal(safety_estimate(v, 100, 15, 180, 360, NAN, &s),
			 MODEL_EINVAL);
	/* a lead time beyond SAFETY_LEAD_MAX steps */
	assert_int_equal(safety_estimate(v, 100, 1, SAFETY_LEAD_MAX + 1, 5,
					 0.5, &s), MODEL_ERANGE);
	assert_int_equal(safety_estimate(v, 0, 15, 180, 360, 0.9, &s),
			 MODEL_ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flat),
		cmocka_unit_test(test_quantile),
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_one_step),
		cmocka_unit_test(test_idle_burst),
		cmocka_unit_test(test_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
