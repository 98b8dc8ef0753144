/*
 * test_decide.c - the path from observations to the answer, shared by the
 * server, calc and the simulator: W's fallbacks, the series query, the
 * forecast, the peakedness, the scale-down hold, the margin, the step
 * limit, and the cap.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "decide.h"
#include "peak.h"

#define N_OF(x) (sizeof(x) / sizeof((x)[0]))

/* Default metadata with these keys set (NULL-terminated pairs). */
static void meta_with(struct meta *m, ...)
{
	struct meta_error err;
	const char *k, *v;
	va_list ap;

	meta_init(m);
	va_start(ap, m);
	while ((k = va_arg(ap, const char *)) != NULL) {
		v = va_arg(ap, const char *);
		assert_int_equal(meta_set(m, k, v, &err), META_OK);
	}
	va_end(ap);
	assert_int_equal(meta_check(m, 0, &err), META_OK);
}

static enum decide_err run(const struct meta *m, const struct decide_obs *o,
			   struct smooth *st, double now,
			   struct model_signals *sig, struct decision *d)
{
	enum model_err merr = MODEL_OK;

	return decide_observations(m, o, now, st, sig, d, &merr);
}

/* A series of n points at 15 s: the first `head` at a, the rest at b. */
static void series_fill(double *v, size_t n, size_t head, double a, double b)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = i < head ? a : b;
}

static void obs_series(struct decide_obs *o, const double *v, size_t n)
{
	o->series = v;
	o->n_series = n;
	o->series_step_s = 15;
}

/* The forecast's ramp: 21 points at 15 s from 1 to 11 req/s, lambda 11,
 * W 10, into a zeroed o.  Holt on it: level 11, trend 0.5 per step. */
static void obs_ramp(struct decide_obs *o, double ramp[21])
{
	size_t i;

	for (i = 0; i < 21; i++)
		ramp[i] = 1 + 0.5 * (double)i;
	memset(o, 0, sizeof(*o));
	o->arrival_rate = 11;
	o->w_measured = 10;
	obs_series(o, ramp, 21);
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
	meta_with(&m, NULL);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 2;
	o.w_measured = 10;
	o.w_last = 5;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(sig.service_time_s == 10);
	assert_int_equal(d.target, 27);          /* the seed example */
	assert_int_equal(d.down, DECIDE_DOWN_FREE);

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

/* What the range query covers: the forecast window when the forecast or
 * the peakedness reads it, the hold when longer; the step never moves
 * with the hold. */
static void test_series_query(void **state)
{
	struct meta m;
	double range, step;

	(void)state;
	meta_with(&m, NULL);
	decide_series_query(&m, &range, &step);
	assert_true(range == 600 && step == 15);
	assert_true(meta_hold_seconds(&m) == 180);  /* 120 + 60 / 2 + 30 */
	assert_true(meta_horizon_seconds(&m) == 180);
	meta_release(&m);

	meta_with(&m, "scaleDownHoldSeconds", "3600", NULL);
	decide_series_query(&m, &range, &step);
	assert_true(range == 3600 && step == 15);
	meta_release(&m);

	/* A day's hold at 5 s would be 17281 points, beyond Prometheus'
	 * 11000: 8 s steps, 10801 points. */
	meta_with(&m, "scaleDownHoldSeconds", "86400",
		  "forecastWindowSeconds", "60", NULL);
	decide_series_query(&m, &range, &step);
	assert_true(range == 86400 && step == 8);
	assert_true(range / step + 1 <= DECIDE_SERIES_MAX);
	meta_release(&m);

	/* A rate window read from the query lengthens the lag. */
	meta_with(&m, "arrivalRateQuery", "sum(rate(x[5m]))", NULL);
	assert_true(m.rate_window_s == 300);
	assert_true(meta_hold_seconds(&m) == 120 + 150 + 30);
	meta_release(&m);

	/* Nothing reads it: no forecast, no hold, peakedness given. */
	meta_with(&m, "coldStartSeconds", "0", "peakedness", "off", NULL);
	decide_series_query(&m, &range, &step);
	assert_true(range == 0);
	assert_true(meta_hold_seconds(&m) == 0);
	assert_true(meta_step_limited(&m));
	meta_release(&m);

	/* Peakedness alone reads it. */
	meta_with(&m, "coldStartSeconds", "0", NULL);
	decide_series_query(&m, &range, &step);
	assert_true(range == 600);
	meta_release(&m);
}

/* Holt's forecast (forecastMethod: holt) raises lambda on a ramp, once
 * the series covers half of forecastWindowSeconds, and looks
 * coldStartSeconds + the lag ahead; auto (the default) only once its
 * past forecasts can be judged, none never. */
static void test_forecast_from_series(void **state)
{
	double ramp[21];
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision with, without;

	(void)state;
	meta_with(&m, "peakedness", "off", NULL);
	obs_ramp(&o, ramp);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &without), DECIDE_OK);
	assert_false(without.have_forecast);
	assert_int_equal(without.forecast_unearned, DECIDE_UNEARNED_SHORT);
	assert_true(sig.arrival_forecast == 0);
	meta_release(&m);
	meta_with(&m, "peakedness", "off", "forecastMethod", "none", NULL);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &without), DECIDE_OK);
	assert_false(without.have_forecast);
	assert_int_equal(without.forecast_unearned, 0);
	meta_release(&m);
	meta_with(&m, "peakedness", "off", "forecastMethod", "holt", NULL);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &with), DECIDE_OK);
	assert_true(with.b.forecast_used);
	assert_true(with.have_forecast);
	/* 180 s / 15 s = 12 steps of trend 0.5 from level 11. */
	assert_true(fabs(with.fc.steps - 12) < 1e-9);
	assert_true(fabs(with.fc.level - 11) < 1e-9);
	assert_true(fabs(with.fc.trend - 0.5) < 1e-9);
	assert_true(fabs(sig.arrival_forecast - 17) < 1e-9);
	assert_true(with.b.source == MODEL_FROM_FORECAST);

	/* 20 points: less than half of the 41 the window holds. */
	assert_int_equal(decide_forecast_points(&m, 15), 21);
	assert_int_equal(decide_forecast_points(&m, 60), 6);  /* 11 / 2 */
	assert_int_equal(decide_forecast_points(&m, 1e9), 2);
	assert_int_equal(decide_forecast_points(&m, 0), 2);
	obs_series(&o, ramp + 1, 20);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &without), DECIDE_OK);
	assert_false(without.have_forecast);
	assert_true(without.target < with.target);
	meta_release(&m);

	/* coldStartSeconds 0: no forecast. */
	meta_with(&m, "peakedness", "off", "coldStartSeconds", "0", NULL);
	obs_series(&o, ramp, N_OF(ramp));
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &without), DECIDE_OK);
	assert_false(without.have_forecast);
	assert_false(without.b.forecast_used);

	/* The simulator's truth stands in for Holt (forecast=perfect). */
	meta_release(&m);
	meta_with(&m, "peakedness", "off", "forecastMethod", "holt", NULL);
	o.have_truth = 1;
	o.truth = 30;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &with), DECIDE_OK);
	assert_true(with.have_forecast && sig.arrival_forecast == 30);
	meta_release(&m);
}

/*
 * The hold: the highest lambda of the series over the last hold seconds
 * (the point now included) sets the busy slots.  41 points at 15 s, 20
 * req/s for the first 28, then 5 req/s for the last 13 (180 s): with the
 * default 180 s hold the 20s have left it, with 195 s one is still in.
 */
static void test_hold(void **state)
{
	double v[41];
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;

	(void)state;
	series_fill(v, N_OF(v), 28, 20, 5);
	meta_with(&m, "peakedness", "off", "staffing", "none", NULL);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 5;
	o.w_measured = 2;
	obs_series(&o, v, N_OF(v));
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(sig.arrival_held == 5);
	assert_int_equal(d.target, 10);
	meta_release(&m);

	meta_with(&m, "peakedness", "off", "staffing", "none",
		  "scaleDownHoldSeconds", "195", NULL);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(sig.arrival_held == 20);
	assert_true(d.b.source == MODEL_FROM_HELD);
	assert_int_equal(d.down, DECIDE_DOWN_HOLD);
	assert_int_equal(d.target, 40);
	assert_true(d.hold_s == 195);
	/* The hold never lowers an answer: a rising lambda wins. */
	o.arrival_rate = 30;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 60);
	assert_true(d.b.source != MODEL_FROM_HELD);
	/* Without W there is nothing to staff the held rate with. */
	o.arrival_rate = 0;
	o.w_measured = 0;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(sig.arrival_held == 0);
	meta_release(&m);
}

/* Replica- and restart-safe: the hold on the rate (v2's, and every
 * process's first hold) comes from the series, so two pods with different
 * memories (one fresh) give the same answer. */
static void test_hold_stateless(void **state)
{
	double v[41];
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision a, b;
	struct smooth fresh = SMOOTH_INIT, old = SMOOTH_INIT;

	(void)state;
	series_fill(v, N_OF(v), 30, 20, 5);
	meta_with(&m, "peakedness", "off", "scaleDownHoldOn", "rate", NULL);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 5;
	o.w_measured = 2;
	obs_series(&o, v, N_OF(v));
	smooth_seed(&old, 300, 0);               /* a pod that knew 300 */
	assert_int_equal(run(&m, &o, &fresh, 1000, &sig, &a), DECIDE_OK);
	assert_int_equal(run(&m, &o, &old, 1000, &sig, &b), DECIDE_OK);
	assert_int_equal(a.target, b.target);
	assert_int_equal(a.target, a.raw);
	/* and both remember it */
	assert_int_equal(fresh.target, a.target);
	assert_int_equal(old.target, b.target);
	meta_release(&m);
}

/* Without the series the hold cannot tell that demand stayed below:
 * nothing is released, from memory or from the observed replicas; a rise
 * still goes through. */
static void test_no_series(void **state)
{
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;
	struct smooth st = SMOOTH_INIT;

	(void)state;
	meta_with(&m, NULL);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 2;
	o.w_measured = 10;
	assert_int_equal(run(&m, &o, &st, 0, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 27);
	o.arrival_rate = 0.2;                    /* raw 5 */
	assert_int_equal(run(&m, &o, &st, 3600, &sig, &d), DECIDE_OK);
	assert_int_equal(d.raw, 5);
	assert_int_equal(d.target, 27);
	assert_int_equal(d.down, DECIDE_DOWN_NO_SERIES);
	/* The observed replicas stand in for memory. */
	o.have_view = 1;
	o.current = 12;
	o.recent_max = 12;
	assert_int_equal(run(&m, &o, NULL, 3600, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 12);
	o.arrival_rate = 2;
	assert_int_equal(run(&m, &o, NULL, 3600, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 27);
	assert_int_equal(d.down, DECIDE_DOWN_FREE);
	/* No memory and no view: the model's answer. */
	o.have_view = 0;
	o.arrival_rate = 0.2;
	assert_int_equal(run(&m, &o, NULL, 3600, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 5);
	/* A series younger than the hold (a new metric, a Prometheus that
	 * has just started) is no evidence that demand stayed below for the
	 * hold: nothing is released until it spans it (13 points of 15 s for
	 * the default 180 s), then the answer comes down. */
	{
		static const double low[13] = { 0.2, 0.2, 0.2, 0.2, 0.2, 0.2,
						 0.2, 0.2, 0.2, 0.2, 0.2, 0.2,
						 0.2 };

		o.have_view = 1;
		o.current = 12;
		o.recent_max = 12;
		obs_series(&o, low, 1);
		assert_int_equal(run(&m, &o, NULL, 3600, &sig, &d), DECIDE_OK);
		assert_int_equal(d.target, 12);
		assert_int_equal(d.down, DECIDE_DOWN_NO_SERIES);
		assert_true(sig.arrival_held == 0.2);
		obs_series(&o, low, 12);
		assert_int_equal(run(&m, &o, NULL, 3600, &sig, &d), DECIDE_OK);
		assert_int_equal(d.target, 12);
		obs_series(&o, low, 13);
		assert_int_equal(run(&m, &o, NULL, 3600, &sig, &d), DECIDE_OK);
		assert_int_equal(d.target, 5);
		/* A rise needs no evidence. */
		o.arrival_rate = 2;
		obs_series(&o, low, 1);
		assert_int_equal(run(&m, &o, NULL, 3600, &sig, &d), DECIDE_OK);
		assert_int_equal(d.target, 27);
	}
	meta_release(&m);
}

/* A lower answer must clear half a replica: exact 8.7 from 10 stays 10,
 * exact 8.4 goes to 9.  (staffing none, n 1: exact = lambda W.) */
static void test_margin(void **state)
{
	double v[41];
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;

	(void)state;
	meta_with(&m, "peakedness", "off", "staffing", "none", NULL);
	memset(&o, 0, sizeof(o));
	o.w_measured = 1;
	o.have_view = 1;
	o.current = 10;
	o.recent_max = 10;
	series_fill(v, N_OF(v), 0, 0, 8.7);
	obs_series(&o, v, N_OF(v));
	o.arrival_rate = 8.7;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_int_equal(d.raw, 9);
	assert_int_equal(d.target, 10);
	assert_int_equal(d.down, DECIDE_DOWN_MARGIN_HELD);
	series_fill(v, N_OF(v), 0, 0, 8.4);
	o.arrival_rate = 8.4;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 9);
	/* 5.2 is far below: straight to 6. */
	series_fill(v, N_OF(v), 0, 0, 5.2);
	o.arrival_rate = 5.2;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 6);
	assert_int_equal(d.down, DECIDE_DOWN_FREE);
	meta_release(&m);
}

/* scaleDownStep given: the hold, then at most a step per period, from
 * memory or from the observed replicas (v1's rule on top of the hold). */
static void test_step_limit(void **state)
{
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;
	struct smooth a = SMOOTH_INIT, b = SMOOTH_INIT;

	(void)state;
	meta_with(&m, "scaleDownStep", "2", NULL);
	assert_true(meta_step_limited(&m));
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 2;
	o.w_measured = 10;
	assert_int_equal(run(&m, &o, &a, 0, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 27);
	o.arrival_rate = 0.2;
	assert_int_equal(run(&m, &o, &a, 61, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 25);
	assert_int_equal(d.down, DECIDE_DOWN_STEP);
	assert_int_equal(run(&m, &o, &a, 62, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 25);         /* within the period */
	/* With a view, every pod agrees whatever it remembers. */
	smooth_step(&b, 30, 0, 1, 60);
	o.have_view = 1;
	o.current = 10;
	o.recent_max = 10;
	assert_int_equal(run(&m, &o, &a, 100, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 8);
	assert_int_equal(run(&m, &o, &b, 100, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 8);
	/* The fleet shrank within the period: wait. */
	o.recent_max = 12;
	assert_int_equal(run(&m, &o, &a, 110, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 10);
	/* Scale-up is immediate. */
	o.arrival_rate = 2;
	assert_int_equal(run(&m, &o, &a, 120, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 27);
	meta_release(&m);

	/* No hold (scaleDownHoldSeconds 0): v1's step, 1 per 60 s. */
	meta_with(&m, "scaleDownHoldSeconds", "0", NULL);
	assert_true(meta_step_limited(&m));
	meta_release(&m);
}

/* Headroom beta sqrt(z L): measured and clamped to peakednessMax, given,
 * or off. */
static void test_peakedness(void **state)
{
	double v[16];
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;
	size_t i;

	(void)state;
	/* test_peak.c's hand-worked series: z = 64 measured. */
	for (i = 0; i < N_OF(v); i++)
		v[i] = 10 + ((i / 4) % 2 ? -2 : 2);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 10;
	o.w_measured = 2;                        /* L = 20 at least */
	obs_series(&o, v, N_OF(v));
	meta_with(&m, "coldStartSeconds", "0", "scaleDownHoldSeconds", "0",
		  NULL);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.peak_measured);
	assert_true(fabs(d.peak_raw - 64) < 1e-9);
	assert_true(d.b.peakedness == 2);        /* peakednessMax 2 */
	assert_true(fabs(d.b.headroom_slots - 1.5 * sqrt(2 * 20)) < 1e-9);
	meta_release(&m);

	meta_with(&m, "coldStartSeconds", "0", "scaleDownHoldSeconds", "0",
		  "peakednessMax", "100", NULL);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(fabs(d.b.peakedness - 64) < 1e-9);
	meta_release(&m);

	meta_with(&m, "coldStartSeconds", "0", "scaleDownHoldSeconds", "0",
		  "peakedness", "4", NULL);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_false(d.peak_measured);
	assert_true(fabs(d.b.headroom_slots - 1.5 * sqrt(4 * 20)) < 1e-9);
	meta_release(&m);

	meta_with(&m, "peakedness", "off", NULL);
	o.n_series = 0;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.b.peakedness == 1);
	meta_release(&m);

	/* auto without a series: 1. */
	meta_with(&m, NULL);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_false(d.peak_measured);
	assert_true(d.b.peakedness == 1);
	meta_release(&m);
}

/* The SLO correction multiplies the total slots: seed signals (26.708
 * slots) with a constant miss share of 0.63 % over the 3600 s window at
 * 15 s (241 points): c = exp(0.26); the series of the arrival rate, when
 * there is one, is aligned with it by their ends and leaves out the
 * points where demand was rising. */
static void test_feedback(void **state)
{
	static double miss[241], flat[241], ramp[241];
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;
	double range, step;
	size_t i;

	(void)state;
	for (i = 0; i < 241; i++) {
		miss[i] = 0.0063;
		flat[i] = 2;
		ramp[i] = 0.5 * pow(1.03, (double)i); /* +12.5 % per 60 s */
	}
	meta_with(&m, "peakedness", "off", "coldStartSeconds", "0",
		  "slaMissQuery", "sum(m)", NULL);
	/* the range covers the feedback window */
	decide_series_query(&m, &range, &step);
	assert_true(range == 3600 && step == 15);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 2;
	o.w_measured = 10;
	/* Without o.miss there is no feedback, whatever the metadata. */
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_false(d.have_feedback);
	assert_int_equal(d.target, 27);
	o.miss = miss;
	o.n_miss = 241;
	o.series_step_s = 15;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.have_feedback);
	assert_true(fabs(d.b.correction - exp(0.26)) < 1e-9);
	assert_true(fabs(d.b.total_slots - 26.708203932 * exp(0.26)) < 1e-6);
	assert_int_equal(d.target, 35);
	assert_int_equal(d.fb.used, 241);
	/* A flat arrival series changes nothing; a steep ramp leaves every
	 * point out: no correction. */
	obs_series(&o, flat, 241);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 35);
	obs_series(&o, ramp, 241);
	o.arrival_rate = 2;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	/* only the first 4 points (under 10 % above the first) count */
	assert_int_equal(d.fb.rising, 237);
	assert_int_equal(d.fb.used, 4);
	assert_true(d.b.correction > 1 && d.b.correction < 1.03);
	/* No miss share at all (no requests): no correction. */
	o.n_series = 0;
	o.n_miss = 0;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.have_feedback && d.b.correction == 1);
	meta_release(&m);
}

/* maxReplicas applies last, also to an answer held up. */
static void test_cap(void **state)
{
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;
	struct smooth st = SMOOTH_INIT;

	(void)state;
	meta_with(&m, NULL);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 2;
	o.w_measured = 10;
	assert_int_equal(run(&m, &o, &st, 0, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 27);
	o.arrival_rate = 0.2;
	m.model.max_replicas = 20;
	assert_int_equal(run(&m, &o, &st, 62, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 20);          /* held at 27, capped */
	assert_int_equal(st.target, 20);
	meta_release(&m);
}

/*
 * coldStartQuery: a measured cold start in (0, 3600] replaces
 * coldStartSeconds for the forecast's horizon and the automatic hold;
 * anything else falls back to coldStartSeconds; coldStartSeconds 0 keeps
 * both off.  The hold is cut to the series' range (sized from
 * coldStartSeconds), never left uncovered.
 */
static void test_cold_start(void **state)
{
	double ramp[21], v[41];
	const double bad[] = { NAN, 0, -5, 3600.5, INFINITY };
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;
	size_t i;

	(void)state;
	meta_with(&m, "peakedness", "off", "forecastMethod", "holt", NULL);
	obs_ramp(&o, ramp);
	/* Without coldStartQuery: coldStartSeconds, 180 s ahead. */
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_int_equal(d.cold, DECIDE_COLD_META);
	assert_true(d.cold_s == 120 && d.hold_s == 180);
	assert_true(fabs(sig.arrival_forecast - 17) < 1e-9);
	/* Measured 300 s: 360 s ahead, 24 steps of 0.5 from 11. */
	o.have_cold = 1;
	o.cold_measured = 300;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_int_equal(d.cold, DECIDE_COLD_MEASURED);
	assert_true(d.cold_s == 300 && d.hold_s == 360);
	assert_false(d.hold_capped);
	assert_true(fabs(d.fc.steps - 24) < 1e-9);
	assert_true(fabs(sig.arrival_forecast - 23) < 1e-9);
	o.cold_measured = META_COLD_START_MAX;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_int_equal(d.cold, DECIDE_COLD_MEASURED);
	/* No data, or out of range: coldStartSeconds again. */
	for (i = 0; i < N_OF(bad); i++) {
		o.cold_measured = bad[i];
		assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
		assert_int_equal(d.cold, DECIDE_COLD_NO_DATA);
		assert_true(d.cold_s == 120 && d.hold_s == 180);
		assert_true(fabs(sig.arrival_forecast - 17) < 1e-9);
	}

	/* The hold follows the measurement: 20 req/s until 180 s ago is
	 * outside the default 180 s hold, inside a 360 s one. */
	series_fill(v, N_OF(v), 28, 20, 5);
	o.arrival_rate = 5;
	o.w_measured = 2;
	obs_series(&o, v, N_OF(v));
	o.cold_measured = NAN;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(sig.arrival_held == 5);
	o.cold_measured = 300;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(sig.arrival_held == 20);
	assert_int_equal(d.down, DECIDE_DOWN_HOLD);
	/* Longer than the series (600 s at the defaults): cut to it, so
	 * that the hold still releases what it covers. */
	o.cold_measured = 1000;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.hold_capped && d.hold_s == 600);
	assert_true(d.cold_s == 1000);
	assert_true(d.down != DECIDE_DOWN_NO_SERIES);
	meta_release(&m);

	/* scaleDownHoldSeconds given: the hold is the user's, the horizon
	 * still the measurement's. */
	meta_with(&m, "peakedness", "off", "scaleDownHoldSeconds", "195",
		  NULL);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.hold_s == 195 && !d.hold_capped && d.cold_s == 1000);
	meta_release(&m);

	/* coldStartSeconds 0: no measurement turns the forecast on. */
	meta_with(&m, "peakedness", "off", "coldStartSeconds", "0", NULL);
	o.cold_measured = 300;
	obs_series(&o, ramp, N_OF(ramp));
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_int_equal(d.cold, DECIDE_COLD_OFF);
	assert_true(d.cold_s == 0 && d.hold_s == 0);
	assert_false(d.have_forecast);
	meta_release(&m);
}

/* z reads the last forecastWindowSeconds only: bursts older than that, in
 * a range a long hold made longer, do not raise it, and a long hold gives
 * the z of the default range. */
static void test_peak_tail(void **state)
{
	double v[241];
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d, d41;
	size_t i;

	(void)state;
	for (i = 0; i < N_OF(v); i++)      /* 12,12,12,12,8,8,8,8,... */
		v[i] = i < 200 ? ((i / 4) % 2 ? 8 : 12) : 10;
	meta_with(&m, "scaleDownHoldSeconds", "3600", NULL);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 10;
	o.w_measured = 2;
	obs_series(&o, v, N_OF(v));
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	obs_series(&o, v + N_OF(v) - 41, 41);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d41), DECIDE_OK);
	assert_true(d.b.peakedness == 1);
	assert_true(d.b.peakedness == d41.b.peakedness);
	/* The bursts inside the window do count. */
	obs_series(&o, v + 200 - 41, 41);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.b.peakedness == 2);
	meta_release(&m);
}

/*
 * forecastMethod auto: Holt's forecast counts while its past forecasts
 * on the series beat "no change" by DECIDE_FORECAST_EARN: on a ramp of 41
 * points it does (its trend is exact), on a rate that swings every 8
 * points it does not, and holt uses it there all the same.
 */
static void test_forecast_auto(void **state)
{
	double ramp[41], swing[41];
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;
	size_t i;

	(void)state;
	for (i = 0; i < 41; i++) {
		ramp[i] = 1 + 0.25 * (double)i;
		swing[i] = (i / 8) % 2 ? 18 : 10;
	}
	meta_with(&m, "peakedness", "off", NULL);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = ramp[40];
	o.w_measured = 10;
	obs_series(&o, ramp, 41);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.have_forecast && d.b.forecast_used);
	assert_int_equal(d.forecast_unearned, 0);
	/* 180 s ahead: 12 steps of 0.25 from 11 */
	assert_true(fabs(sig.arrival_forecast - 14) < 1e-9);
	o.arrival_rate = swing[40];
	obs_series(&o, swing, 41);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_false(d.have_forecast);
	assert_int_equal(d.forecast_unearned, DECIDE_UNEARNED_WORSE);
	meta_release(&m);
	meta_with(&m, "peakedness", "off", "forecastMethod", "holt", NULL);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.have_forecast);
	meta_release(&m);
}

/*
 * The answer hold (scaleDownHoldOn: answer, the default): what was asked
 * for within the last hold is kept.  A process that has not yet seen a
 * whole hold of answers holds on the rate's series as v2 did (the
 * restart case); once it has, the rate's hold is left out and the answers
 * it remembers decide.  Without memory (calc) it is the rate's hold.
 */
static void test_answer_hold(void **state)
{
	double v[41];
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;
	struct smooth st = SMOOTH_INIT;
	double t;

	(void)state;
	series_fill(v, N_OF(v), 41, 5, 5);   /* 5 req/s all along */
	meta_with(&m, "peakedness", "off", "staffing", "none", NULL);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 5;
	o.w_measured = 2;
	obs_series(&o, v, N_OF(v));
	/* 10 slots a replica of 1 slot: 10 replicas, every 15 s for a hold. */
	for (t = 0; t <= 180; t += 15) {
		assert_int_equal(run(&m, &o, &st, t, &sig, &d), DECIDE_OK);
		assert_int_equal(d.target, 10);
	}
	assert_true(d.hold_memory);
	assert_true(sig.arrival_held == 0);   /* memory stands on its own */
	/* A spike to 20 req/s for one call: asked at once, then kept while
	 * it is within the hold though lambda is back at 5. */
	o.arrival_rate = 20;
	assert_int_equal(run(&m, &o, &st, 195, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 40);
	o.arrival_rate = 5;
	for (t = 210; t < 195 + 180; t += 15) {
		assert_int_equal(run(&m, &o, &st, t, &sig, &d), DECIDE_OK);
		assert_int_equal(d.target, 40);
		assert_int_equal(d.down, DECIDE_DOWN_ANSWER_HELD);
		assert_int_equal(d.raw, 10);
	}
	/* A hold (plus at most a span of it) later it is released, all of
	 * it but the margin: the answers since are 11 (10.5 rounded up). */
	for (; t < 195 + 180 + 180.0 / SMOOTH_BUCKETS + 15; t += 15)
		assert_int_equal(run(&m, &o, &st, t, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 11);
	assert_int_equal(d.down, DECIDE_DOWN_MARGIN_HELD);

	/* rate: the same spike is the series' business, and a series of 5s
	 * releases it at once. */
	meta_release(&m);
	meta_with(&m, "peakedness", "off", "staffing", "none",
		  "scaleDownHoldOn", "rate", NULL);
	smooth_init(&st);
	o.arrival_rate = 20;
	assert_int_equal(run(&m, &o, &st, 0, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 40);
	o.arrival_rate = 5;
	assert_int_equal(run(&m, &o, &st, 15, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 11);
	meta_release(&m);
}

/* A fresh process (a restart) has no answers to hold on: its first hold
 * is the rate's, from the series, so it releases no more than v2 would,
 * and a fresh state with no series releases nothing. */
static void test_answer_hold_restart(void **state)
{
	double v[41];
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;
	struct smooth st = SMOOTH_INIT;

	(void)state;
	series_fill(v, N_OF(v), 30, 20, 5);  /* 20 req/s until 165 s ago */
	meta_with(&m, "peakedness", "off", "staffing", "none", NULL);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 5;
	o.w_measured = 2;
	obs_series(&o, v, N_OF(v));
	o.have_view = 1;                     /* the fleet runs 40 */
	o.current = o.recent_max = 40;
	assert_int_equal(run(&m, &o, &st, 1000, &sig, &d), DECIDE_OK);
	assert_false(d.hold_memory);
	assert_true(sig.arrival_held == 20);
	assert_int_equal(d.target, 40);
	/* No series, no memory: nothing released. */
	smooth_init(&st);
	o.series = NULL;
	o.n_series = 0;
	assert_int_equal(run(&m, &o, &st, 1000, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 40);
	assert_int_equal(d.down, DECIDE_DOWN_NO_SERIES);
	meta_release(&m);
}

/* The surge headroom raises lambda to the level times the rise the
 * series saw at the surge quantile, from surgeWindowSeconds' query or,
 * without one (calc), from the series; off at surgeQuantile 0. */
static void test_surge(void **state)
{
	static double v[1200];
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;
	double range, step;
	size_t i;

	(void)state;
	/* Every 10th point (of 15 s) at 20, the rest at 10: a rise to 2x
	 * within any 180 s lead time. */
	for (i = 0; i < N_OF(v); i++)
		v[i] = i % 10 == 9 ? 20 : 10;
	meta_with(&m, "peakedness", "off", "staffing", "none", NULL);
	decide_surge_query(&m, &range, &step);
	/* lead 180 s: 3 / (1 - 0.95) = 60 lead times = 3 h, 45 s a point */
	assert_true(range == 10800 && step == 45);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 10;
	o.w_measured = 1;
	o.surge = v;
	o.n_surge = N_OF(v);
	o.surge_step_s = 15;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.have_surge);
	/* level x ratio, at most the highest rate read (20 here) */
	assert_true(d.sg.peak == 20);
	assert_true(fabs(fmin(d.sg.ratio * d.sg.level, d.sg.peak) -
			 d.sg.value) < 1e-9);
	assert_true(d.sg.ratio > 1.5);
	assert_true(sig.arrival_surge == d.sg.value);
	assert_true(d.b.source == MODEL_FROM_SURGE);
	/* calc: the series stands in */
	o.surge = NULL;
	o.n_surge = 0;
	obs_series(&o, v, N_OF(v));
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.have_surge);
	meta_release(&m);
	meta_with(&m, "peakedness", "off", "surgeQuantile", "0", NULL);
	decide_surge_query(&m, &range, &step);
	assert_true(range == 0);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_false(d.have_surge);
	assert_true(sig.arrival_surge == 0);
	meta_release(&m);
}

/*
 * The ranges follow a measured cold start longer than coldStartSeconds
 * (decide_size_cold()): in steps of 2^(1/4), at most 4x, so that the
 * surge range holds its lead times and the hold its span; a shorter or
 * unusable measurement sizes them for coldStartSeconds, as before.
 */
static void test_size_cold(void **state)
{
	const double none[] = { 0, -1, NAN, 60, 120, META_COLD_START_MAX + 1 };
	double range, step, r0, s0, v[81];
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;
	size_t i;

	(void)state;
	meta_with(&m, "peakedness", "off", NULL);   /* coldStartSeconds 120 */
	for (i = 0; i < N_OF(none); i++)
		assert_true(decide_size_cold(&m, none[i]) == 120);
	/* 121 s: one step, 120 x 2^(1/4) = 142.7, whole seconds up */
	assert_true(decide_size_cold(&m, 121) == 143);
	assert_true(decide_size_cold(&m, 142) == 143);
	assert_true(decide_size_cold(&m, 143) == 170);
	/* 150 s: two steps, 120 x 2^(1/2) = 169.7 */
	assert_true(decide_size_cold(&m, 150) == 170);
	assert_true(decide_size_cold(&m, 240) == 240);
	assert_true(decide_size_cold(&m, 300) == 340);
	/* at most 4x */
	assert_true(decide_size_cold(&m, 479) == 480);
	assert_true(decide_size_cold(&m, 3000) == 480);
	/* coldStartSeconds 0: nothing is sized */
	meta_release(&m);
	meta_with(&m, "coldStartSeconds", "0", NULL);
	assert_true(decide_size_cold(&m, 300) == 0);
	meta_release(&m);

	meta_with(&m, "peakedness", "off", NULL);
	decide_surge_query(&m, &r0, &s0);
	decide_surge_query_cold(&m, 0, &range, &step);
	assert_true(range == r0 && step == s0);
	decide_surge_query_cold(&m, 120, &range, &step);
	assert_true(range == r0 && step == s0);
	/* 300 s measured, sized for 340: lead 400 s, 60 of them, 100 s a
	 * point: the estimate's 40 lead times of rises fit again (sized
	 * for 120 s, 10800 s held only 30 lead times of 360 s) */
	decide_surge_query_cold(&m, decide_size_cold(&m, 300), &range,
				&step);
	assert_true(range == 24000 && step == 100);
	assert_true(range / (300 + 60) >= 2.0 / (1 - 0.95));
	decide_series_query(&m, &r0, &s0);
	decide_series_query_cold(&m, 340, &range, &step);
	assert_true(r0 == 600 && range == 600 && step == s0);
	decide_series_query_cold(&m, 900, &range, &step);
	assert_true(range == 960 && step == s0);

	/* The hold of a measured 700 s (760 s) is cut to the 600 s of a
	 * series sized for coldStartSeconds, and whole on one sized for
	 * the measurement. */
	for (i = 0; i < N_OF(v); i++)
		v[i] = 5;
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 5;
	o.w_measured = 2;
	obs_series(&o, v, N_OF(v));
	o.have_cold = 1;
	o.cold_measured = 700;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.hold_capped && d.hold_s == 600);
	o.size_cold_s = 700;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_false(d.hold_capped);
	assert_true(d.hold_s == 760);
	meta_release(&m);
}

/*
 * The memo (decide.h): decisions through it equal those made afresh; an
 * entry is used while the points' version and the inputs are the same
 * (shown by changing the points under the same version), and a new
 * version or another input derives again.
 */
static void test_memo(void **state)
{
	double ramp[21], v[241];
	struct meta m;
	struct decide_obs o;
	struct decide_memo mo;
	struct model_signals sig;
	struct decision d0, d1, d2;
	size_t i;

	(void)state;
	for (i = 0; i < N_OF(v); i++)
		v[i] = i % 10 == 9 ? 20 : 10;
	meta_with(&m, "peakedness", "off", NULL);   /* forecastMethod auto */
	obs_ramp(&o, ramp);
	o.surge = v;
	o.n_surge = N_OF(v);
	o.surge_step_s = 45;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d0), DECIDE_OK);
	assert_true(d0.have_surge && d0.fc.value > 11);
	memset(&mo, 0, sizeof(mo));
	o.memo = &mo;
	o.series_version = 7;
	o.surge_version = 8;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d1), DECIDE_OK);
	assert_true(d1.target == d0.target && d1.raw == d0.raw);
	assert_true(d1.sg.value == d0.sg.value && d1.fc.value == d0.fc.value);
	assert_true(d1.forecast_unearned == d0.forecast_unearned);
	assert_true(mo.sg_ver == 8 && mo.fc_ver == 7);
	/* the same versions: the memo answers, not the (changed) points */
	for (i = 0; i < N_OF(v); i++)
		v[i] *= 3;
	for (i = 0; i < N_OF(ramp); i++)
		ramp[i] = 11;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d2), DECIDE_OK);
	assert_true(d2.sg.value == d1.sg.value && d2.fc.value == d1.fc.value);
	/* new versions: derived from the points again */
	o.series_version = 9;
	o.surge_version = 10;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d2), DECIDE_OK);
	assert_true(fabs(d2.sg.value - 3 * d1.sg.value) < 1e-9 * d2.sg.value);
	assert_true(d2.fc.value == 11);
	/* another input (the quantile) under the same version: again */
	meta_release(&m);
	meta_with(&m, "peakedness", "off", "surgeQuantile", "0.5", NULL);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d1), DECIDE_OK);
	o.memo = NULL;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d0), DECIDE_OK);
	assert_true(d1.sg.value == d0.sg.value && d1.sg.ratio == d0.sg.ratio);
	assert_true(mo.sg_in[2] == 0.5);
	meta_release(&m);
}

/* surge_points for test_surge_on_demand: counts its calls; NULL after
 * `give` of them (out of memory). */
struct lazy {
	const double *v;
	int calls, give;
};

static const double *lazy_points(void *arg)
{
	struct lazy *z = arg;

	return z->calls++ < z->give ? z->v : NULL;
}

/*
 * The surge range's points on demand (decide_obs.surge_points): the same
 * decision as with the points given; read once when the memo has not
 * seen the version, not at all when it has; none to be had: no surge
 * headroom, and the memo keeps what it had.
 */
static void test_surge_on_demand(void **state)
{
	double ramp[21], v[241];
	struct meta m;
	struct decide_obs o;
	struct decide_memo mo;
	struct model_signals sig;
	struct decision d0, d1;
	struct lazy z = { NULL, 0, 1 };
	size_t i;

	(void)state;
	for (i = 0; i < N_OF(v); i++)
		v[i] = i % 10 == 9 ? 20 : 10;
	z.v = v;
	meta_with(&m, "peakedness", "off", NULL);
	obs_ramp(&o, ramp);
	o.surge = v;
	o.n_surge = N_OF(v);
	o.surge_step_s = 45;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d0), DECIDE_OK);
	assert_true(d0.have_surge);
	/* on demand, through a memo: read once, the same decision */
	memset(&mo, 0, sizeof(mo));
	o.memo = &mo;
	o.surge_version = 8;
	o.surge = NULL;
	o.surge_points = lazy_points;
	o.surge_arg = &z;
	assert_true(decide_own_surge(&o));
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d1), DECIDE_OK);
	assert_int_equal(z.calls, 1);
	assert_true(d1.have_surge && d1.sg.value == d0.sg.value &&
		    d1.target == d0.target && d1.raw == d0.raw);
	/* the memo holds version 8: not read again */
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d1), DECIDE_OK);
	assert_int_equal(z.calls, 1);
	assert_true(d1.sg.value == d0.sg.value && d1.target == d0.target);
	/* a new version whose points cannot be had: no surge headroom, and
	 * the memo still holds version 8's */
	o.surge_version = 9;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d1), DECIDE_OK);
	assert_int_equal(z.calls, 2);
	assert_false(d1.have_surge);
	assert_true(mo.sg_ver == 8);
	/* without points or a way to them, the series stands in (calc) */
	o.surge_points = NULL;
	o.n_surge = 0;
	assert_false(decide_own_surge(&o));
	meta_release(&m);
}

/*
 * A unified fleet answers as before: pool unset and 'pool: unified' give
 * the model's own answer (model_evaluate on the same signals) to the
 * bit, and the token signals, even when present, are not read.
 */
static void test_pool_unified(void **state)
{
	struct meta m, u;
	struct decide_obs o;
	struct model_signals sig, sig2;
	struct decision d, d2;
	struct model_breakdown b;

	(void)state;
	meta_with(&m, NULL);
	meta_with(&u, "pool", "unified", NULL);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 2;
	o.w_measured = 10;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_int_equal(d.target, 27);          /* the seed example */
	assert_false(d.have_pool);
	assert_int_equal(model_evaluate(&m.model, &sig, &b), MODEL_OK);
	assert_memory_equal(&b, &d.b, sizeof(b));
	/* token signals a unified fleet never reads */
	o.pool.input_rate = 1e6;
	o.pool.output_rate = 1e6;
	o.pool.kv_used = 1e9;
	o.pool.prefill_capacity = 1;
	o.pool.kv_capacity = 1;
	assert_int_equal(run(&u, &o, NULL, 0, &sig2, &d2), DECIDE_OK);
	assert_false(d2.have_pool);
	assert_int_equal(d2.target, d.target);
	assert_memory_equal(&sig2, &sig, sizeof(sig));
	assert_memory_equal(&d2.b, &d.b, sizeof(d.b));
	meta_release(&u);
	meta_release(&m);
}

/* A prefill and a decode pool through decide: W from the tokens, the
 * pool's slots, the pool terms in the decision. */
static void test_pool_decide(void **state)
{
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;

	(void)state;
	meta_with(&m, "pool", "prefill", "prefillTokensPerSecond", "8000",
		  "staffing", "none", NULL);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 10;
	o.w_measured = 99;                    /* the tokens' W wins */
	o.pool.input_rate = 20000;
	o.pool.kv_used = -1;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.have_pool);
	assert_int_equal(d.pool.kind, POOL_PREFILL);
	assert_true(sig.service_time_s == 0.25);
	assert_int_equal(d.pool.slots, 1);
	assert_int_equal(d.target, 3);         /* 20000 / 8000 = 2.5 */
	meta_release(&m);

	meta_with(&m, "pool", "decode", "itlTargetSeconds", "0.04",
		  "decodeProfile", "1:0.0294062,32:0.036918,64:0.0519867",
		  "staffing", "none", NULL);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 5;
	o.pool.input_rate = 5000;
	o.pool.output_rate = 1250;
	o.pool.kv_used = -1;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.have_pool);
	assert_int_equal(d.pool.batch_itl, 38);
	assert_int_equal(d.pool.bind, POOL_BIND_ITL);
	assert_int_equal(d.target, 2);         /* 49.66 sequences / 38 */
	meta_release(&m);
}

/* A prefill pool's signals, into a zeroed o: 40 req/s of 2000-token
 * prompts (W 0.25 s, L = 10 at C 8000), no KV measured. */
static void obs_prefill(struct decide_obs *o)
{
	memset(o, 0, sizeof(*o));
	o->arrival_rate = 40;
	o->pool.input_rate = 80000;
	o->pool.kv_used = -1;
}

/* A prefill pool with a TTFT target: peakednessMax 3 by default, z at it
 * until the series measures one (then what it measures), the square root
 * on z - 1.  Without the target, or a unified trigger: 2 and 1 as
 * before. */
static void test_pool_peak_prior(void **state)
{
	double v[16];
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;
	size_t i;

	(void)state;
	obs_prefill(&o);
	meta_with(&m, "pool", "prefill", "prefillTokensPerSecond", "8000",
		  "ttftTargetSeconds", "2", "coldStartSeconds", "0",
		  "scaleDownHoldSeconds", "0", NULL);
	assert_true(m.peakedness_max == 3);
	assert_true(decide_peak_prior(&m));
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_false(d.peak_measured);
	assert_true(d.b.peakedness == 3);
	assert_true(d.peak_prior);
	assert_true(d.pool.headroom_excess);
	assert_true(fabs(d.b.headroom_slots - 1.5 * sqrt(2 * 10)) < 1e-9);
	/* a smooth series measured: z 1, no square root above the queue */
	for (i = 0; i < N_OF(v); i++)
		v[i] = 40;
	obs_series(&o, v, N_OF(v));
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.peak_measured);
	assert_true(d.b.peakedness == 1);
	assert_true(d.pool.ttft_sets);
	assert_true(d.b.total_slots < 10 + 1.5 * sqrt(10.0));

	/* a target W and the transfer leave no wait for: no floor, the
	 * whole z's square root, and z 1 until measured */
	o.n_series = 0;
	o.pool.input_rate = 40 * 20000;        /* W = 2.5 s > T */
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_false(d.pool.ttft_reachable);
	assert_false(d.peak_prior);
	assert_true(d.b.peakedness == 1);
	assert_false(d.pool.headroom_excess);
	o.pool.input_rate = 80000;
	meta_release(&m);

	/* peakednessMax given: that ceiling, the prior at it */
	o.n_series = 0;
	meta_with(&m, "pool", "prefill", "prefillTokensPerSecond", "8000",
		  "ttftTargetSeconds", "2", "peakednessMax", "2",
		  "coldStartSeconds", "0", "scaleDownHoldSeconds", "0", NULL);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.b.peakedness == 2);
	meta_release(&m);
	/* peakedness given: it stands */
	meta_with(&m, "pool", "prefill", "prefillTokensPerSecond", "8000",
		  "ttftTargetSeconds", "2", "peakedness", "1.5",
		  "coldStartSeconds", "0", "scaleDownHoldSeconds", "0", NULL);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.b.peakedness == 1.5);
	meta_release(&m);
	/* no TTFT target: the whole z's square root, z 1 unmeasured */
	meta_with(&m, "pool", "prefill", "prefillTokensPerSecond", "8000",
		  "coldStartSeconds", "0", "scaleDownHoldSeconds", "0", NULL);
	assert_true(m.peakedness_max == 2);
	assert_false(decide_peak_prior(&m));
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.b.peakedness == 1);
	assert_false(d.pool.headroom_excess);
	assert_true(fabs(d.b.headroom_slots - 1.5 * sqrt(10.0)) < 1e-9);
	meta_release(&m);
	/* a unified trigger keeps 2 and 1 */
	meta_with(&m, NULL);
	assert_false(decide_peak_prior(&m));
	assert_true(m.peakedness_max == 2);
	meta_release(&m);
}

/* The prior's phase on a prefill pool's state: lambda 60 for two calls,
 * then 40, every 15 s to t = 60, with a series too short to measure z
 * but covering the 60-s hold.  The target the prior left. */
static int64_t prior_phase(const struct meta *m, struct decide_obs *o,
			   struct smooth *st, double *v)
{
	struct model_signals sig;
	struct decision d;
	double t;

	series_fill(v, 5, 5, 40, 40);
	obs_series(o, v, 5);
	for (t = 0; t <= 60; t += 15) {
		o->arrival_rate = t < 30 ? 60 : 40;
		o->pool.input_rate = 2000 * o->arrival_rate;
		assert_int_equal(run(m, o, st, t, &sig, &d), DECIDE_OK);
		assert_true(d.peak_prior);
		assert_false(d.hold_forgot);
	}
	assert_true(d.hold_memory);
	assert_int_equal(d.down, DECIDE_DOWN_ANSWER_HELD);
	return d.target;
}

/* The answers a prefill pool's state asked for before it first measured
 * z rested on the prior (z at peakednessMax): a first measurement below
 * it makes the answer hold forget them; one at the prior, or any later
 * one, leaves the hold as it is. */
static void test_pool_prior_forget(void **state)
{
	double v[16], w[5];
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d, got;
	struct smooth st = SMOOTH_INIT;
	int64_t held;
	size_t i;

	(void)state;
	obs_prefill(&o);
	meta_with(&m, "pool", "prefill", "prefillTokensPerSecond", "8000",
		  "ttftTargetSeconds", "2", "coldStartSeconds", "0",
		  "scaleDownHoldSeconds", "60", NULL);
	held = prior_phase(&m, &o, &st, w);

	/* smooth traffic measured at t = 75: z 1, and the hold forgets */
	series_fill(v, N_OF(v), N_OF(v), 40, 40);
	obs_series(&o, v, N_OF(v));
	assert_int_equal(run(&m, &o, NULL, 75, &sig, &got), DECIDE_OK);
	assert_true(got.b.peakedness == 1);
	assert_true(got.raw < held);
	assert_int_equal(run(&m, &o, &st, 75, &sig, &d), DECIDE_OK);
	assert_true(d.peak_measured);
	assert_true(d.hold_forgot);
	assert_int_equal(d.raw, got.raw);
	/* down to the model's answer but the scale-down margin */
	assert_true(d.target < held);
	assert_int_equal(d.target,
			 (int64_t)ceil(d.b.exact_replicas + 0.5) > d.raw ?
			 (int64_t)ceil(d.b.exact_replicas + 0.5) : d.raw);
	/* only the first measurement: the series fails, z goes back to the
	 * prior and its answer is held again, and a later measurement below
	 * it keeps that */
	obs_series(&o, w, N_OF(w));
	assert_int_equal(run(&m, &o, &st, 90, &sig, &d), DECIDE_OK);
	assert_true(d.peak_prior);
	held = d.target;
	obs_series(&o, v, N_OF(v));
	assert_int_equal(run(&m, &o, &st, 105, &sig, &d), DECIDE_OK);
	assert_true(d.peak_measured);
	assert_false(d.hold_forgot);
	assert_int_equal(d.target, held);

	/* a call after the prior that measures nothing (W = 2.5 s leaves
	 * the 2-s target no wait budget, so no prior either) ends it: a
	 * measurement after that forgets nothing */
	smooth_init(&st);
	held = prior_phase(&m, &o, &st, w);
	o.arrival_rate = 40;
	o.pool.input_rate = 40 * 20000;
	assert_int_equal(run(&m, &o, &st, 75, &sig, &d), DECIDE_OK);
	assert_false(d.peak_prior);
	assert_false(d.peak_measured);
	assert_false(d.hold_forgot);
	o.pool.input_rate = 80000;
	obs_series(&o, v, N_OF(v));
	assert_int_equal(run(&m, &o, &st, 90, &sig, &d), DECIDE_OK);
	assert_true(d.peak_measured);
	assert_false(d.hold_forgot);
	assert_true(d.target >= held);

	/* bursty traffic measured at or above the prior: nothing forgotten,
	 * the answer of the prior's busier first seconds still held */
	smooth_init(&st);
	held = prior_phase(&m, &o, &st, w);
	for (i = 0; i < N_OF(v); i++)
		v[i] = 40 + ((i / 4) % 2 ? -4 : 4);
	obs_series(&o, v, N_OF(v));
	assert_int_equal(run(&m, &o, &st, 75, &sig, &d), DECIDE_OK);
	assert_true(d.peak_measured);
	assert_true(d.b.peakedness == 3);
	assert_false(d.hold_forgot);
	assert_true(d.raw < held);
	assert_int_equal(d.target, held);
	meta_release(&m);
}

/* A prefill pool with a TTFT target takes the measured z at the low end
 * of its standard error (peak_lower()): the readings of smooth traffic
 * spread by +-45 % over the default 600 s, and sqrt(z - 1) would turn
 * that spread into headroom.  Other pools take it as read, and so does
 * the simulator's ablation. */
static void test_pool_peak_low(void **state)
{
	double v[41], raw = 0, z = 0, low;
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;
	size_t i;

	(void)state;
	obs_prefill(&o);
	/* test_peak.c's hand-worked pattern: z = 4 a^2 = 1.96 at a 0.7 */
	for (i = 0; i < N_OF(v); i++)
		v[i] = 40 + ((i / 4) % 2 ? -0.7 : 0.7);
	obs_series(&o, v, N_OF(v));
	assert_int_equal(peak_estimate(v, N_OF(v), 15, 60, 100, &z, &raw),
			 MODEL_OK);
	assert_true(raw > 1.9 && raw < 2);
	low = peak_lower(raw, N_OF(v), 15, 60);
	assert_true(low > 1.3 && low < 1.4);
	meta_with(&m, "pool", "prefill", "prefillTokensPerSecond", "8000",
		  "ttftTargetSeconds", "2", "coldStartSeconds", "0",
		  "scaleDownHoldSeconds", "0", NULL);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.peak_measured);
	assert_false(d.peak_prior);
	assert_true(fabs(d.peak_raw - raw) < 1e-9);
	assert_true(fabs(d.peak_low - low) < 1e-9);
	assert_true(fabs(d.b.peakedness - low) < 1e-9);
	assert_true(fabs(d.b.headroom_slots - 1.5 * sqrt((low - 1) * 10)) <
		    1e-9);
	/* the ablation: as read */
	m.model.ablate |= MODEL_ABLATE_PEAK_AS_READ;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(isnan(d.peak_low));
	assert_true(fabs(d.b.peakedness - raw) < 1e-9);
	m.model.ablate &= ~MODEL_ABLATE_PEAK_AS_READ;
	/* a reading of 1.2, within the noise: z 1, no square root */
	for (i = 0; i < N_OF(v); i++)
		v[i] = 40 + ((i / 4) % 2 ? -0.55 : 0.55);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.peak_raw > 1.15 && d.peak_raw < 1.25);
	assert_true(d.peak_low < 1);
	assert_true(d.b.peakedness == 1);
	assert_true(d.pool.ttft_sets);
	meta_release(&m);
	/* a unified trigger: as read, to peakednessMax 2 */
	for (i = 0; i < N_OF(v); i++)
		v[i] = 40 + ((i / 4) % 2 ? -0.7 : 0.7);
	o.pool.input_rate = 0;
	o.w_measured = 0.25;
	meta_with(&m, "coldStartSeconds", "0", "scaleDownHoldSeconds", "0",
		  NULL);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(isnan(d.peak_low));
	assert_true(fabs(d.b.peakedness - raw) < 1e-9);
	meta_release(&m);
}

/* A prefill pool's prompt tokens' peakedness in mean prompts: read on
 * inputTokenRateQuery's range over the mean prompt, at the low end of
 * its standard error, kept to 1..peakednessMax, and taken by the TTFT's
 * Erlang C when above the arrivals' z (the square root keeps theirs). */
static void test_pool_token_peak(void **state)
{
	double v[41], tk[41], range = 0, step = 0, slots;
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;
	size_t i;

	(void)state;
	obs_prefill(&o);
	/* smooth arrivals (a reading of 1.2: z 1) of 2000-token prompts */
	for (i = 0; i < N_OF(v); i++) {
		v[i] = 40 + ((i / 4) % 2 ? -0.55 : 0.55);
		tk[i] = 2000 * v[i];
	}
	obs_series(&o, v, N_OF(v));
	meta_with(&m, "pool", "prefill", "prefillTokensPerSecond", "8000",
		  "ttftTargetSeconds", "0.35", "kvTransferSeconds", "0.05",
		  "coldStartSeconds", "0", "scaleDownHoldSeconds", "0", NULL);
	decide_token_query_cold(&m, 0, &range, &step);
	assert_true(range == m.forecast_window_s);
	assert_true(step == 15);
	/* no token range: nothing measured, the arrivals' z */
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.peak_measured);
	assert_false(d.tok_measured);
	assert_true(isnan(d.tok_z));
	assert_false(d.pool.ttft_token_peak);
	assert_true(d.pool.ttft_peakedness == 1);
	slots = d.pool.ttft_slots;
	/* tokens that follow the arrivals: in mean prompts, the same
	 * reading, so z 1 on both */
	o.tokens = tk;
	o.n_tokens = N_OF(tk);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.tok_measured);
	assert_true(fabs(d.tok_raw - d.peak_raw) < 1e-9);
	assert_true(fabs(d.tok_low - d.peak_low) < 1e-9);
	assert_true(d.tok_z == 1);
	assert_false(d.pool.ttft_token_peak);
	assert_true(fabs(d.pool.ttft_slots - slots) < 1e-9);
	/* the same arrivals, twice the swing in tokens (long prompts come
	 * together): 4 x 1.96 read, 5.42 at the low end, kept to 3 */
	for (i = 0; i < N_OF(tk); i++)
		tk[i] = 2000 * (40 + ((i / 4) % 2 ? -1.4 : 1.4));
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.tok_measured);
	assert_true(d.tok_raw > 7.6 && d.tok_raw < 8);
	assert_true(d.tok_low > 5.2 && d.tok_low < 5.6);
	assert_true(d.tok_z == 3);
	assert_true(sig.peakedness == 1);      /* the square root's */
	assert_true(d.pool.ttft_token_peak);
	assert_true(d.pool.ttft_peakedness == 3);
	assert_true(d.pool.ttft_slots > slots + 1);
	assert_true(d.pool.ttft_sets);
	/* the simulator's ablation: the arrivals' z */
	m.model.ablate |= MODEL_ABLATE_TOKEN_PEAK;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_false(d.tok_measured);
	assert_false(d.pool.ttft_token_peak);
	m.model.ablate &= ~MODEL_ABLATE_TOKEN_PEAK;
	/* the arrivals' z unmeasured (too short a series): nor the tokens' */
	o.n_series = 4;
	o.series = v + N_OF(v) - 4;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_false(d.tok_measured);
	assert_true(d.peak_prior);
	obs_series(&o, v, N_OF(v));
	meta_release(&m);
	/* peakedness given: it stands for both, nothing read */
	meta_with(&m, "pool", "prefill", "prefillTokensPerSecond", "8000",
		  "ttftTargetSeconds", "0.35", "kvTransferSeconds", "0.05",
		  "peakedness", "1.5", "coldStartSeconds", "0",
		  "scaleDownHoldSeconds", "0", NULL);
	decide_token_query_cold(&m, 0, &range, &step);
	assert_true(range == 0);
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_false(d.tok_measured);
	assert_true(d.pool.ttft_peakedness == 1.5);
	meta_release(&m);
	/* no TTFT target, or a decode pool: no token range */
	meta_with(&m, "pool", "prefill", "prefillTokensPerSecond", "8000",
		  NULL);
	decide_token_query_cold(&m, 0, &range, &step);
	assert_true(range == 0);
	meta_release(&m);
	meta_with(&m, NULL);
	decide_token_query_cold(&m, 0, &range, &step);
	assert_true(range == 0);
	meta_release(&m);
}

/* A decode pool in a lull: 250 output tokens a request arrived at 5
 * req/s for the last ten minutes, then 1 req/s in the last minute, while
 * the tokens of the busier minutes are still decoding (1250 tokens/s).
 * Over lambda now that would be 1250 tokens a request and a W of 50 s;
 * over the arrivals of the last W + rate window it is 250 and 9.93 s,
 * and the KV in use is spread over the sequences in flight, not over
 * lambda now times W. */
static void test_pool_decode_lull(void **state)
{
	double v[41];
	struct meta m;
	struct decide_obs o;
	struct model_signals sig;
	struct decision d;
	size_t i;

	(void)state;
	for (i = 0; i < N_OF(v); i++)
		v[i] = i + 4 < N_OF(v) ? 5 : 1;
	meta_with(&m, "pool", "decode", "itlTargetSeconds", "0.04",
		  "decodeProfile", "1:0.0294062,32:0.036918,64:0.0519867",
		  "kvCacheTokens", "400000", "staffing", "none",
		  "coldStartSeconds", "0", "scaleDownHoldSeconds", "0", NULL);
	memset(&o, 0, sizeof(o));
	o.arrival_rate = 1;
	o.pool.input_rate = 1000;
	o.pool.output_rate = 1250;
	o.pool.kv_used = 5 * 9.93281 * 1125;   /* 1000 in + 250 / 2 each */
	/* without a series: over lambda now, as before */
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(fabs(d.pool.mean_output - 1250) < 1e-9);
	assert_true(d.pool.output_arrivals == 0);
	/* with one: the arrivals of the span the tokens came from */
	obs_series(&o, v, N_OF(v));
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.pool.output_arrivals > 1 && d.pool.output_arrivals < 5);
	assert_true(fabs(d.pool.mean_output * d.pool.output_arrivals - 1250)
		    < 1e-9);
	assert_true(sig.service_time_s < 1250 * 0.0397313 / 2);
	/* KV in use over the sequences in flight: about what each holds */
	assert_true(d.pool.kv_seq_measured < 2 * 1125);
	assert_int_equal(d.pool.bind, POOL_BIND_ITL);
	/* arrivals rising: lambda now is the larger, and stands */
	for (i = 0; i < N_OF(v); i++)
		v[i] = 1;
	o.arrival_rate = 5;
	assert_int_equal(run(&m, &o, NULL, 0, &sig, &d), DECIDE_OK);
	assert_true(d.pool.output_arrivals == 0);
	assert_true(fabs(d.pool.mean_output - 250) < 1e-9);
	meta_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_service_time_fallbacks),
		cmocka_unit_test(test_series_query),
		cmocka_unit_test(test_forecast_from_series),
		cmocka_unit_test(test_hold),
		cmocka_unit_test(test_hold_stateless),
		cmocka_unit_test(test_forecast_auto),
		cmocka_unit_test(test_answer_hold),
		cmocka_unit_test(test_answer_hold_restart),
		cmocka_unit_test(test_surge),
		cmocka_unit_test(test_surge_on_demand),
		cmocka_unit_test(test_no_series),
		cmocka_unit_test(test_margin),
		cmocka_unit_test(test_step_limit),
		cmocka_unit_test(test_peakedness),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_feedback),
		cmocka_unit_test(test_cold_start),
		cmocka_unit_test(test_size_cold),
		cmocka_unit_test(test_memo),
		cmocka_unit_test(test_peak_tail),
		cmocka_unit_test(test_pool_unified),
		cmocka_unit_test(test_pool_decide),
		cmocka_unit_test(test_pool_peak_prior),
		cmocka_unit_test(test_pool_peak_low),
		cmocka_unit_test(test_pool_token_peak),
		cmocka_unit_test(test_pool_prior_forget),
		cmocka_unit_test(test_pool_decode_lull),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
