/*
 * test_forecast.c - Holt's linear-trend forecast (forecast.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "check.h"
#include "forecast.h"

#define N_OF(x) (sizeof(x) / sizeof((x)[0]))

static void test_ramp(void **state)
{
	double v[20], out = -1, level = -1, trend = -1;
	size_t i;

	/* 10, 12, ..., 48: 4 steps past the end is 56. */
	for (i = 0; i < N_OF(v); i++)
		v[i] = 10.0 + 2.0 * (double)i;
	assert_int_equal(forecast_holt(v, N_OF(v), 0.3, 0.15, 4.0, &out,
				       &level, &trend), MODEL_OK);
	assert_near(level, 48.0, 1e-9);
	assert_near(trend, 2.0, 1e-9);
	assert_near(out, 56.0, 1e-9);
	/* A short window, as a 1-minute range gives: still exact. */
	assert_int_equal(forecast_holt(v, 4, 0.3, 0.15, 40.0, &out, NULL,
				       NULL), MODEL_OK);
	assert_near(out, 16.0 + 80.0, 1e-9);
	/* Fractional steps (horizon 50 s on a 15 s step). */
	assert_int_equal(forecast_holt(v, N_OF(v), 0.5, 0.5, 50.0 / 15.0,
				       &out, NULL, NULL), MODEL_OK);
	assert_near(out, 48.0 + 2.0 * 50.0 / 15.0, 1e-9);
}

static void test_constant(void **state)
{
	double v[30], out = -1, level = -1, trend = -1;
	size_t i;

	for (i = 0; i < N_OF(v); i++)
		v[i] = 7.25;
	assert_int_equal(forecast_holt(v, N_OF(v), 0.3, 0.15, 40.0, &out,
				       &level, &trend), MODEL_OK);
	assert_near(out, 7.25, 1e-12);
	assert_near(level, 7.25, 1e-12);
	assert_near(trend, 0.0, 1e-12);
}

static void test_falling_clamps(void **state)
{
	double v[10], out = -1, level = -1, trend = 1;
	size_t i;

	/* 100, 90, ..., 10: 5 steps ahead is -40, clamped to 0. */
	for (i = 0; i < N_OF(v); i++)
		v[i] = 100.0 - 10.0 * (double)i;
	assert_int_equal(forecast_holt(v, N_OF(v), 0.3, 0.15, 5.0, &out,
				       &level, &trend), MODEL_OK);
	assert_near(out, 0.0, 0.0);
	assert_near(level, 10.0, 1e-9);
	assert_near(trend, -10.0, 1e-9);
	/* Not far enough ahead to cross zero: no clamping. */
	assert_int_equal(forecast_holt(v, N_OF(v), 0.3, 0.15, 0.5, &out,
				       NULL, NULL), MODEL_OK);
	assert_near(out, 5.0, 1e-9);
}

static void test_by_hand(void **state)
{
	/* alpha 0.5, beta 0.5 on 10, 14, 12, starting trend 4:
	 *   x=14: level 0.5*14 + 0.5*(10+4) = 14, trend 0.5*4 + 0.5*4 = 4
	 *   x=12: level 0.5*12 + 0.5*(14+4) = 15, trend 0.5*1 + 0.5*4 = 2.5
	 * two steps ahead: 15 + 5 = 20. */
	double v[] = { 10.0, 14.0, 12.0 };
	double out = -1, level = -1, trend = -1;

	assert_int_equal(forecast_holt(v, N_OF(v), 0.5, 0.5, 2.0, &out,
				       &level, &trend), MODEL_OK);
	assert_near(level, 15.0, 1e-12);
	assert_near(trend, 2.5, 1e-12);
	assert_near(out, 20.0, 1e-12);
	/* beta 0 keeps the starting trend; alpha 1 follows the data. */
	assert_int_equal(forecast_holt(v, N_OF(v), 1.0, 0.0, 1.0, &out,
				       &level, &trend), MODEL_OK);
	assert_near(level, 12.0, 1e-12);
	assert_near(trend, 4.0, 1e-12);
	assert_near(out, 16.0, 1e-12);
}

static void test_single_and_zero_steps(void **state)
{
	double one = 3.5, v[] = { 1.0, 2.0, 3.0 };
	double out = -1, level = -1, trend = -1;

	assert_int_equal(forecast_holt(&one, 1, 0.3, 0.15, 10.0, &out,
				       &level, &trend), MODEL_OK);
	assert_near(out, 3.5, 0.0);
	assert_near(level, 3.5, 0.0);
	assert_near(trend, 0.0, 0.0);
	assert_int_equal(forecast_holt(v, N_OF(v), 0.3, 0.15, 0.0, &out,
				       &level, NULL), MODEL_OK);
	assert_near(out, level, 0.0);
	assert_near(out, 3.0, 1e-12);
}

/* Every bad argument is refused and leaves the outputs alone. */
static void test_invalid(void **state)
{
	double v[] = { 1.0, 2.0, 3.0 };
	double bad[] = { 1.0, NAN, 3.0 }, neg[] = { 1.0, -2.0, 3.0 };
	double inf[] = { 1.0, INFINITY, 3.0 };
	double out = -7, level = -7, trend = -7;

	assert_int_equal(forecast_holt(NULL, 3, 0.3, 0.15, 1.0, &out, &level,
				       &trend), MODEL_EINVAL);
	assert_int_equal(forecast_holt(v, 0, 0.3, 0.15, 1.0, &out, &level,
				       &trend), MODEL_EINVAL);
	assert_int_equal(forecast_holt(v, 3, 0.0, 0.15, 1.0, &out, &level,
				       &trend), MODEL_EINVAL);
	assert_int_equal(forecast_holt(v, 3, 1.01, 0.15, 1.0, &out, &level,
				       &trend), MODEL_EINVAL);
	assert_int_equal(forecast_holt(v, 3, NAN, 0.15, 1.0, &out, &level,
				       &trend), MODEL_EINVAL);
	assert_int_equal(forecast_holt(v, 3, 0.3, -0.01, 1.0, &out, &level,
				       &trend), MODEL_EINVAL);
	assert_int_equal(forecast_holt(v, 3, 0.3, 1.01, 1.0, &out, &level,
				       &trend), MODEL_EINVAL);
	assert_int_equal(forecast_holt(v, 3, 0.3, 0.15, -1.0, &out, &level,
				       &trend), MODEL_EINVAL);
	assert_int_equal(forecast_holt(v, 3, 0.3, 0.15, NAN, &out, &level,
				       &trend), MODEL_EINVAL);
	assert_int_equal(forecast_holt(v, 3, 0.3, 0.15, INFINITY, &out,
				       &level, &trend), MODEL_EINVAL);
	assert_int_equal(forecast_holt(bad, 3, 0.3, 0.15, 1.0, &out, &level,
				       &trend), MODEL_EINVAL);
	assert_int_equal(forecast_holt(neg, 3, 0.3, 0.15, 1.0, &out, &level,
				       &trend), MODEL_EINVAL);
	assert_int_equal(forecast_holt(inf, 3, 0.3, 0.15, 1.0, &out, &level,
				       &trend), MODEL_EINVAL);
	assert_int_equal(forecast_holt(v, 3, 0.3, 0.15, 1.0, NULL, &level,
				       &trend), MODEL_EINVAL);
	assert_near(out, -7.0, 0.0);
	assert_near(level, -7.0, 0.0);
	assert_near(trend, -7.0, 0.0);
}

static void test_overflow(void **state)
{
	double v[] = { 0.0, 1.5e308 };
	double out = -7, level = -7, trend = -7;

	/* level 1.5e308, trend 1.5e308: two steps ahead is +Inf. */
	assert_int_equal(forecast_holt(v, 2, 0.3, 0.15, 2.0, &out, &level,
				       &trend), MODEL_ERANGE);
	assert_near(out, -7.0, 0.0);
	assert_near(level, -7.0, 0.0);
	assert_near(trend, -7.0, 0.0);
}

static void test_step(void **state)
{
	/* clamp(window / 40, 5, 60): 15 s for the default 600 s. */
	assert_near(forecast_step_seconds(600.0), 15.0, 0.0);
	assert_near(forecast_step_seconds(400.0), 10.0, 0.0);
	assert_near(forecast_step_seconds(200.0), 5.0, 0.0);
	assert_near(forecast_step_seconds(60.0), 5.0, 0.0);
	assert_near(forecast_step_seconds(1.0), 5.0, 0.0);
	assert_near(forecast_step_seconds(2400.0), 60.0, 0.0);
	assert_near(forecast_step_seconds(3000.0), 60.0, 0.0);
	assert_near(forecast_step_seconds(86400.0), 60.0, 0.0);
	assert_near(forecast_step_seconds(900.0), 22.5, 0.0);
	/* Out of contract: the nearest end. */
	assert_near(forecast_step_seconds(0.0), 5.0, 0.0);
	assert_near(forecast_step_seconds(-600.0), 5.0, 0.0);
	assert_near(forecast_step_seconds(NAN), 5.0, 0.0);
	assert_near(forecast_step_seconds(INFINITY), 60.0, 0.0);
	assert_near(forecast_step_seconds(-INFINITY), 5.0, 0.0);
}

/* forecast_ahead with the default smoothing and an undamped trend. */
static enum model_err ahead(const double *v, size_t n, double step_s,
			    double horizon_s, struct forecast *f)
{
	return forecast_ahead(v, n, step_s, horizon_s, 0.3, 0.15, 1.0, f);
}

static void test_ahead(void **state)
{
	/* The example: 1, 1.5, 2, 2.5 at 15 s, 180 s ahead is 12
	 * steps of 0.5: 8.5. */
	const double ramp[] = { 1.0, 1.5, 2.0, 2.5 };
	double v[25], direct = -1;
	struct forecast f;
	size_t i;

	assert_int_equal(ahead(ramp, N_OF(ramp), 15.0, 180.0, &f), MODEL_OK);
	assert_near(f.steps, 12.0, 0.0);
	assert_near(f.level, 2.5, 1e-12);
	assert_near(f.trend, 0.5, 1e-12);
	assert_near(f.value, 8.5, 1e-12);
	/* A fractional horizon: 50 s on 15 s steps. */
	assert_int_equal(ahead(ramp, N_OF(ramp), 15.0, 50.0, &f), MODEL_OK);
	assert_near(f.steps, 50.0 / 15.0, 1e-15);
	assert_near(f.value, 2.5 + 0.5 * 50.0 / 15.0, 1e-12);
	/* Horizon 0: the level. */
	assert_int_equal(ahead(ramp, N_OF(ramp), 15.0, 0.0, &f), MODEL_OK);
	assert_near(f.value, f.level, 0.0);
	/* Same as forecast_holt with steps = horizon / step, noisy data. */
	for (i = 0; i < N_OF(v); i++)
		v[i] = 3.0 + 0.2 * (double)i + (i % 3 == 0 ? 0.7 : -0.4);
	assert_int_equal(forecast_ahead(v, N_OF(v), 22.5, 300.0, 0.4, 0.2,
					1.0, &f), MODEL_OK);
	assert_int_equal(forecast_holt(v, N_OF(v), 0.4, 0.2, 300.0 / 22.5,
				       &direct, NULL, NULL), MODEL_OK);
	assert_near(f.value, direct, 0.0);
	/* A fall is clamped at 0; level and trend say why. */
	for (i = 0; i < 10; i++)
		v[i] = 100.0 - 10.0 * (double)i;
	assert_int_equal(ahead(v, 10, 15.0, 180.0, &f), MODEL_OK);
	assert_near(f.value, 0.0, 0.0);
	assert_near(f.trend, -10.0, 1e-9);
}

static void test_ahead_damped(void **state)
{
	/* On an exact ramp level and trend are the same for any phi (the
	 * first difference starts the trend, every update agrees with it
	 * when phi is 1); with phi < 1 the trend is extrapolated by
	 * phi + ... + phi^h = phi (1 - phi^h) / (1 - phi) steps, at most
	 * phi / (1 - phi). */
	const double flat[] = { 4.0, 4.0, 4.0, 4.0, 4.0 };
	const double ramp[] = { 1.0, 1.5, 2.0, 2.5 };
	struct forecast f1, fd;
	double lvl = -1, tr = -1, out = -1;

	assert_int_equal(forecast_ahead(ramp, 4, 15.0, 180.0, 0.3, 0.15, 1.0,
					&f1), MODEL_OK);
	assert_int_equal(forecast_ahead(ramp, 4, 15.0, 180.0, 0.3, 0.15, 0.9,
					&fd), MODEL_OK);
	assert_true(fd.value < f1.value);
	assert_true(fd.value > fd.level);
	/* Far ahead the damped forecast is bounded by level +
	 * trend x phi / (1 - phi). */
	assert_int_equal(forecast_holt_damped(ramp, 4, 0.3, 0.15, 0.5, 1e6,
					      &out, &lvl, &tr), MODEL_OK);
	assert_near(out, lvl + tr * 0.5 / 0.5, 1e-9);
	/* A flat series does not care. */
	assert_int_equal(forecast_ahead(flat, 5, 15.0, 180.0, 0.3, 0.15, 0.7,
					&fd), MODEL_OK);
	assert_near(fd.value, 4.0, 1e-12);
	/* phi outside (0, 1] is refused. */
	assert_int_equal(forecast_ahead(ramp, 4, 15.0, 180.0, 0.3, 0.15, 0.0,
					&fd), MODEL_EINVAL);
	assert_int_equal(forecast_ahead(ramp, 4, 15.0, 180.0, 0.3, 0.15, 1.01,
					&fd), MODEL_EINVAL);
	assert_int_equal(forecast_ahead(ramp, 4, 15.0, 180.0, 0.3, 0.15, NAN,
					&fd), MODEL_EINVAL);
}

static void test_ahead_invalid(void **state)
{
	const double ramp[] = { 1.0, 1.5, 2.0, 2.5 };
	const double big[] = { 0.0, 1.5e308 };
	struct forecast f, before;

	memset(&f, 0x5a, sizeof(f));
	before = f;
	assert_int_equal(ahead(ramp, 4, 0.0, 180.0, &f), MODEL_EINVAL);
	assert_int_equal(ahead(ramp, 4, -15.0, 180.0, &f), MODEL_EINVAL);
	assert_int_equal(ahead(ramp, 4, NAN, 180.0, &f), MODEL_EINVAL);
	assert_int_equal(ahead(ramp, 4, INFINITY, 180.0, &f), MODEL_EINVAL);
	assert_int_equal(ahead(ramp, 4, 15.0, -1.0, &f), MODEL_EINVAL);
	assert_int_equal(ahead(ramp, 4, 15.0, NAN, &f), MODEL_EINVAL);
	assert_int_equal(ahead(ramp, 4, 15.0, INFINITY, &f), MODEL_EINVAL);
	/* A step so small that horizon / step overflows. */
	assert_int_equal(ahead(ramp, 4, 1e-320, 180.0, &f), MODEL_EINVAL);
	/* forecast_holt's own checks and errors come through. */
	assert_int_equal(ahead(NULL, 4, 15.0, 180.0, &f), MODEL_EINVAL);
	assert_int_equal(ahead(ramp, 0, 15.0, 180.0, &f), MODEL_EINVAL);
	assert_int_equal(forecast_ahead(ramp, 4, 15.0, 180.0, 0.0, 0.15, 1.0,
					&f), MODEL_EINVAL);
	assert_int_equal(ahead(big, 2, 15.0, 30.0, &f), MODEL_ERANGE);
	assert_memory_equal(&f, &before, sizeof(f));
	assert_int_equal(ahead(ramp, 4, 15.0, 180.0, NULL), MODEL_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ramp),
		cmocka_unit_test(test_constant),
		cmocka_unit_test(test_falling_clamps),
		cmocka_unit_test(test_by_hand),
		cmocka_unit_test(test_single_and_zero_steps),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_step),
		cmocka_unit_test(test_ahead),
		cmocka_unit_test(test_ahead_damped),
		cmocka_unit_test(test_ahead_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
