/*
 * test_decide.c - the path from observations to the answer, shared by the
 * server and the simulator: W's fallbacks, the forecast, the two kinds of
 * smoothing and the cap.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "decide.h"

static void meta_default(struct meta *m)
{
	struct meta_error err;

	meta_init(m);
	assert_int_equal(meta_check(m, 0, &err), META_OK);
}

static enum decide_err run(const struct meta *m, const struct decide_obs *o,
			   struct smooth *st, double now,
			   struct model_signals *sig, struct decision *d)
{
	enum model_err merr = MODEL_OK;

	return decide_observations(m, o, now, st, sig, d, &merr);
}

/* W: measured, else the last good one, else serviceTime, else an error
 * while there is demand. */
static void test_service_time_fallbacks(void **state)
{
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;

	(void)state;
	meta_default(&m);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 2;
	o.w_measured = 10;
	o.w_last = 5;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(sig.service_time_s == 10);
	assert_int_equal(d.target, 27);          /* the seed example */

	o.w_measured = NAN;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(sig.service_time_s == 5);

	o.w_last = 0;
	m.service_time_s = 7;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(sig.service_time_s == 7);

	m.service_time_s = 0;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_ENOW);

	/* No demand: W does not matter and the answer is 0. */
	o.arrival_rate = 0;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 0);
	meta_release(&m);
}

/* The forecast raises lambda on a ramp, and only with a cold start. */
static void test_forecast_from_series(void **state)
{
	static const double ramp[] = { 1, 1.5, 2, 2.5 };
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision with, without;

	(void)state;
	meta_default(&m);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 2.5;
	o.w_measured = 10;
	o.series = ramp;
	o.n_series = 4;
	o.series_step_s = 15;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &without), DECIDE_OK);
	assert_false(without.b.forecast_used);   /* coldStartSeconds 0 */
	assert_false(without.have_forecast);
	m.cold_start_s = 180;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &with), DECIDE_OK);
	assert_true(with.b.forecast_used);
	assert_true(fabs(sig.arrival_forecast - 8.5) < 1e-9);
	assert_true(with.target > without.target);
	/* The forecast made is kept, for explain: 180 s / 15 s = 12 steps of
	 * trend 0.5 from level 2.5. */
	assert_true(with.have_forecast);
	assert_true(fabs(with.fc.value - 8.5) < 1e-9);
	assert_true(fabs(with.fc.steps - 12) < 1e-9);
	assert_true(fabs(with.fc.level - 2.5) < 1e-9);
	assert_true(fabs(with.fc.trend - 0.5) < 1e-9);
	/* One point is no series. */
	o.n_series = 1;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &with), DECIDE_OK);
	assert_false(with.b.forecast_used);
	assert_false(with.have_forecast);
	meta_release(&m);
}

/* With a view of the fleet the answer does not depend on memory. */
static void test_observed_view(void **state)
{
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;
	struct smooth a = SMOOTH_INIT, b = SMOOTH_INIT;

	(void)state;
	meta_default(&m);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 0.2;                    /* raw 5 */
	o.w_measured = 10;
	o.have_view = 1;
	o.current = 10;
	o.recent_max = 10;
	/* Two pods, one fresh and one with other memory, agree. */
	smooth_step(&b, 30, 0, 1, 60);
	assert_int_equal(run(&m, &o, &a, 100, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 9);
	assert_int_equal(run(&m, &o, &b, 100, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 9);
	/* The fleet shrank within the period: hold. */
	o.current = 9;
	assert_int_equal(run(&m, &o, &a, 110, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 9);
	/* Scale-up is immediate. */
	o.arrival_rate = 2;
	assert_int_equal(run(&m, &o, &a, 120, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 27);
	meta_release(&m);
}

/* Without a view, smoothing from memory, and the cap applies last. */
static void test_memory_and_cap(void **state)
{
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;
	struct smooth st = SMOOTH_INIT;

	(void)state;
	meta_default(&m);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 2;
	o.w_measured = 10;
	assert_int_equal(run(&m, &o, &st, 0, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 27);
	o.arrival_rate = 0.2;
	assert_int_equal(run(&m, &o, &st, 61, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 26);          /* one step */
	assert_int_equal(d.raw, 5);         /* 2 + 1.5 sqrt(2) = 4.1 */
	m.model.max_replicas = 20;
	assert_int_equal(run(&m, &o, &st, 62, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 20);
	meta_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_service_time_fallbacks),
		cmocka_unit_test(test_forecast_from_series),
		cmocka_unit_test(test_observed_view),
		cmocka_unit_test(test_memory_and_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
