/*
 * test_model.c - the decision model of docs/math.md, term by term.
 *
 * Expected values are worked by hand in the comments (seeds 000 and 002
 * give the first two).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "check.h"
#include "erlang.h"
#include "forecast.h"
#include "model.h"

static struct model_params defaults(void)
{
	struct model_params p;

	model_params_init(&p);
	return p;
}

static struct model_signals sig(double lambda, double w, double q,
				double s)
{
	struct model_signals x = { lambda, w, q, s, 0.0, 0.0, 0.0, 0.0, 0.0 };

	return x;
}

/* Evaluate and insist on success. */
static struct model_breakdown eval_ok(const struct model_params *p,
				      struct model_signals s)
{
	struct model_breakdown b;

	memset(&b, 0, sizeof(b));
	assert_int_equal(model_evaluate(p, &s, &b), MODEL_OK);
	return b;
}

/* Evaluate expecting err, and check that *out was not touched. */
static void eval_err(const struct model_params *p, struct model_signals s,
		     enum model_err err)
{
	struct model_breakdown b, before;

	memset(&b, 0xa5, sizeof(b));
	before = b;
	assert_int_equal(model_evaluate(p, &s, &b), err);
	assert_memory_equal(&b, &before, sizeof(b));
}

static void test_defaults(void **state)
{
	struct model_params p = defaults();

	assert_int_equal(p.slots_per_replica, 1);
	assert_int_equal(p.staffing, MODEL_STAFF_SQRT);
	assert_near(p.beta, 1.5, 0.0);
	assert_near(p.target_wait_s, 0.0, 0.0);
	assert_near(p.wait_probability, 0.0, 0.0);
	assert_near(p.drain_s, 15.0, 0.0);
	assert_int_equal(p.ablate, 0);
	assert_near(p.shed_threshold, 0.0, 0.0);
	assert_near(p.boost_factor, 1.0, 0.0);
	assert_near(p.cost_per_replica_hour, 0.0, 0.0);
	assert_near(p.sla_penalty_per_hour, 0.0, 0.0);
	assert_int_equal(p.max_replicas, 0);
	assert_near(p.activation_arrival_rate, 0.0, 0.0);
}

static void test_seed_sqrt(void **state)
{
	struct model_params p = defaults();
	/* Seed 000: 2 req/s, 10 s -> L = 20, 20 + 1.5 sqrt(20) = 26.708. */
	struct model_breakdown b = eval_ok(&p, sig(2.0, 10.0, 0.0, 0.0));

	assert_near(b.busy_slots, 20.0, 1e-12);
	assert_near(b.headroom_slots, 6.7082039, 1e-6);
	assert_near(b.drain_slots, 0.0, 0.0);
	assert_near(b.boost_slots, 0.0, 0.0);
	assert_near(b.total_slots, 26.7082039, 1e-6);
	assert_near(b.exact_replicas, 26.7082039, 1e-6);
	assert_int_equal(b.replicas, 27);
	assert_int_equal(b.capped, 0);
	assert_int_equal(b.active, 1);
}

static void test_seed_drain(void **state)
{
	struct model_params p = defaults();
	struct model_breakdown b;

	/* Seed 000 under v1's rule (the drain=excess ablation): Q = 100,
	 * L = 0.5 * 10 = 5, D = 300 -> 95 * 10 / 300. */
	p.staffing = MODEL_STAFF_NONE;
	p.drain_s = 300;
	p.ablate |= MODEL_ABLATE_DRAIN_EXCESS;
	b = eval_ok(&p, sig(0.5, 10.0, 100.0, 0.0));
	assert_near(b.busy_slots, 5.0, 1e-12);
	assert_near(b.headroom_slots, 0.0, 0.0);
	assert_near(b.drain_slots, 95.0 * 10.0 / 300.0, 1e-12);
	assert_near(b.drain_slots, 3.1667, 1e-4);
	assert_near(b.total_slots, 8.1667, 1e-4);
	assert_int_equal(b.replicas, 9);
	/* A queue the busy slots already hold adds nothing under v1. */
	b = eval_ok(&p, sig(0.5, 10.0, 5.0, 0.0));
	assert_near(b.drain_slots, 0.0, 0.0);

	/* staffer's rule: every waiting request needs a slot to be drained,
	 * Q * W / D = 100 * 10 / 300 = 3.333. */
	p.ablate &= ~MODEL_ABLATE_DRAIN_EXCESS;
	b = eval_ok(&p, sig(0.5, 10.0, 100.0, 0.0));
	assert_near(b.drain_slots, 100.0 * 10.0 / 300.0, 1e-12);
	assert_int_equal(b.replicas, 9);
	b = eval_ok(&p, sig(0.5, 10.0, 5.0, 0.0));
	assert_near(b.drain_slots, 5.0 * 10.0 / 300.0, 1e-12);

	/* The default D = 15 s with sqrt headroom: 5 + 1.5 sqrt(5) +
	 * 100 * 10 / 15 = 75.021 -> 76. */
	p = defaults();
	b = eval_ok(&p, sig(0.5, 10.0, 100.0, 0.0));
	assert_near(b.total_slots, 5.0 + 1.5 * sqrt(5.0) + 1000.0 / 15.0,
		    1e-12);
	assert_int_equal(b.replicas, 76);

	/* Queue alone (lambda = 0): L and headroom are 0, drain Q W / D. */
	p.drain_s = 60.0;
	b = eval_ok(&p, sig(0.0, 3.0, 50.0, 0.0));
	assert_near(b.headroom_slots, 0.0, 0.0);
	assert_near(b.drain_slots, 2.5, 1e-12);
	assert_int_equal(b.replicas, 3);
	assert_int_equal(b.active, 1);
}

static void test_boost(void **state)
{
	struct model_params p = defaults();
	struct model_breakdown b;

	p.shed_threshold = 1.0;
	p.boost_factor = 2.0;
	/* S = 3 > 1: 2 * 3 * 10 = 60 slots on top of 26.708. */
	b = eval_ok(&p, sig(2.0, 10.0, 0.0, 3.0));
	assert_near(b.boost_slots, 60.0, 1e-12);
	assert_int_equal(b.replicas, 87);
	/* Strictly above: S == threshold gives nothing. */
	b = eval_ok(&p, sig(2.0, 10.0, 0.0, 1.0));
	assert_near(b.boost_slots, 0.0, 0.0);
	assert_int_equal(b.replicas, 27);
	b = eval_ok(&p, sig(2.0, 10.0, 0.0, 1.000001));
	assert_near(b.boost_slots, 20.00002, 1e-9);
	/* Below the threshold shedding still makes us active. */
	b = eval_ok(&p, sig(0.0, 10.0, 0.0, 0.5));
	assert_int_equal(b.active, 1);
	assert_int_equal(b.replicas, 1);
	/* Shedding alone, with the default threshold 0. */
	p = defaults();
	b = eval_ok(&p, sig(0.0, 4.0, 0.0, 0.25));
	assert_near(b.boost_slots, 1.0, 1e-12);
	assert_int_equal(b.replicas, 1);
}

static void test_slots_per_replica(void **state)
{
	struct model_params p = defaults();
	struct model_breakdown b;

	/* 26.708 slots on 4-slot replicas: 6.677 -> 7. */
	p.slots_per_replica = 4;
	b = eval_ok(&p, sig(2.0, 10.0, 0.0, 0.0));
	assert_near(b.exact_replicas, 26.7082039 / 4.0, 1e-6);
	assert_int_equal(b.replicas, 7);
	/* A continuous-batching engine: 64 slots, L = 100 + 15 = 115 -> 2. */
	p.slots_per_replica = 64;
	b = eval_ok(&p, sig(10.0, 10.0, 0.0, 0.0));
	assert_near(b.total_slots, 115.0, 1e-9);
	assert_int_equal(b.replicas, 2);
}

static void test_cap(void **state)
{
	struct model_params p = defaults();
	struct model_breakdown b;

	p.max_replicas = 5;
	b = eval_ok(&p, sig(2.0, 10.0, 0.0, 0.0));
	assert_int_equal(b.replicas, 5);
	assert_int_equal(b.capped, 1);
	assert_near(b.exact_replicas, 26.7082039, 1e-6); /* still reported */
	p.max_replicas = 27;
	b = eval_ok(&p, sig(2.0, 10.0, 0.0, 0.0));
	assert_int_equal(b.replicas, 27);
	assert_int_equal(b.capped, 0);
	p.max_replicas = 26;
	b = eval_ok(&p, sig(2.0, 10.0, 0.0, 0.0));
	assert_int_equal(b.replicas, 26);
	assert_int_equal(b.capped, 1);
}

static void test_floor(void **state)
{
	struct model_params p = defaults();
	struct model_breakdown b;

	/* L = 1e-4 slots: a sliver of demand still gets one replica. */
	b = eval_ok(&p, sig(0.001, 0.1, 0.0, 0.0));
	assert_true(b.total_slots > 0.0 && b.total_slots < 0.1);
	assert_int_equal(b.replicas, 1);
	/* Nothing at all: zero replicas, inactive. */
	b = eval_ok(&p, sig(0.0, 10.0, 0.0, 0.0));
	assert_near(b.total_slots, 0.0, 0.0);
	assert_int_equal(b.replicas, 0);
	assert_int_equal(b.active, 0);
	/* W unknown (0) is fine without demand. */
	b = eval_ok(&p, sig(0.0, 0.0, 0.0, 0.0));
	assert_int_equal(b.replicas, 0);
	/* Shedding below the threshold with W = 0: no boost, floor 1. */
	p.shed_threshold = 5.0;
	b = eval_ok(&p, sig(0.0, 0.0, 0.0, 2.0));
	assert_int_equal(b.replicas, 1);
}

static void test_ceil(void **state)
{
	assert_near(model_ceil(27.000000001), 27.0, 0.0);
	assert_near(model_ceil(27.01), 28.0, 0.0);
	assert_near(model_ceil(27.0), 27.0, 0.0);
	assert_near(model_ceil(26.9999999), 27.0, 0.0);
	assert_near(model_ceil(0.0), 0.0, 0.0);
	assert_near(model_ceil(1e-12), 1.0, 0.0);
	assert_near(model_ceil(0.5), 1.0, 0.0);
	assert_near(model_ceil(1.0 + 1e-7), 2.0, 0.0);
	/* Near the top the forgiveness is capped, not a whole replica. */
	assert_near(model_ceil(1e9 + 0.5), 1e9 + 1.0, 0.0);
	assert_near(model_ceil(1e9 + 1e-7), 1e9, 0.0);
	/* The model uses it: 3 * 9 / 1 is 27 even if summed with noise. */
	assert_near(model_ceil(0.1 * 3.0 * 90.0), 27.0, 0.0);
}

static void test_range(void **state)
{
	struct model_params p = defaults();

	eval_err(&p, sig(1e9, 10.0, 0.0, 0.0), MODEL_ERANGE);
	eval_err(&p, sig(1e200, 1e200, 0.0, 0.0), MODEL_ERANGE);
	/* L fits, but the headroom pushes it past 1e9. */
	eval_err(&p, sig(1e8, 9.99999, 0.0, 0.0), MODEL_ERANGE);
	eval_err(&p, sig(0.0, 10.0, 1e300, 0.0), MODEL_ERANGE);
	eval_err(&p, sig(0.0, 10.0, 0.0, 1e300), MODEL_ERANGE);
	p.beta = 1e300;
	eval_err(&p, sig(1.0, 1.0, 0.0, 0.0), MODEL_ERANGE);
	p = defaults();
	p.staffing = MODEL_STAFF_ERLANGC;
	/* L = 999,990,000 leaves 10,000 slots, 0.32 sd: with tau ~ 0 the
	 * exponential factor cannot help, and C <= 1% needs ~2.5 sd. */
	p.target_wait_s = 1e-6;
	p.wait_probability = 0.01;
	eval_err(&p, sig(9.9999e7, 10.0, 0.0, 0.0), MODEL_ERANGE);
	/* With tau = W / 10 the factor exp(-(c - L) / 10) does it early. */
	p.target_wait_s = 1.0;
	(void)eval_ok(&p, sig(9.9999e7, 10.0, 0.0, 0.0));
	/* The largest demand we staff still works, and fast. */
	p = defaults();
	(void)eval_ok(&p, sig(9e7, 10.0, 0.0, 0.0));
}

static void test_invalid(void **state)
{
	struct model_params p = defaults();
	struct model_signals s = sig(2.0, 10.0, 0.0, 0.0);
	struct model_breakdown b;

	eval_err(&p, sig(NAN, 10.0, 0.0, 0.0), MODEL_EINVAL);
	eval_err(&p, sig(-1.0, 10.0, 0.0, 0.0), MODEL_EINVAL);
	eval_err(&p, sig(1.0, -10.0, 0.0, 0.0), MODEL_EINVAL);
	eval_err(&p, sig(1.0, 10.0, INFINITY, 0.0), MODEL_EINVAL);
	eval_err(&p, sig(1.0, 10.0, 0.0, -0.5), MODEL_EINVAL);
	eval_err(&p, sig(1.0, INFINITY, 0.0, 0.0), MODEL_EINVAL);
	/* W = 0 with demand would make the demand vanish. */
	eval_err(&p, sig(1.0, 0.0, 0.0, 0.0), MODEL_EINVAL);
	eval_err(&p, sig(0.0, 0.0, 3.0, 0.0), MODEL_EINVAL);
	eval_err(&p, sig(0.0, 0.0, 0.0, 3.0), MODEL_EINVAL);

	p.slots_per_replica = 0;
	eval_err(&p, s, MODEL_EINVAL);
	p = defaults();
	p.beta = -1.0;
	eval_err(&p, s, MODEL_EINVAL);
	p = defaults();
	p.drain_s = 0.0;
	eval_err(&p, s, MODEL_EINVAL);
	p = defaults();
	p.boost_factor = NAN;
	eval_err(&p, s, MODEL_EINVAL);
	p = defaults();
	p.max_replicas = -1;
	eval_err(&p, s, MODEL_EINVAL);
	p = defaults();
	p.staffing = (enum model_staffing)99;
	eval_err(&p, s, MODEL_EINVAL);
	/* erlangc needs tau and eps in (0, 1); cost needs tau and cost. */
	p = defaults();
	p.staffing = MODEL_STAFF_ERLANGC;
	eval_err(&p, s, MODEL_EINVAL);
	p.target_wait_s = 1.0;
	p.wait_probability = 1.0;
	eval_err(&p, s, MODEL_EINVAL);
	p = defaults();
	p.staffing = MODEL_STAFF_COST;
	p.target_wait_s = 1.0;
	eval_err(&p, s, MODEL_EINVAL);

	p = defaults();
	assert_int_equal(model_evaluate(NULL, &s, &b), MODEL_EINVAL);
	assert_int_equal(model_evaluate(&p, NULL, &b), MODEL_EINVAL);
	assert_int_equal(model_evaluate(&p, &s, NULL), MODEL_EINVAL);
}

static void test_erlangc_staffing(void **state)
{
	struct model_params p = defaults();
	struct model_breakdown b;
	long c = 0;

	p.staffing = MODEL_STAFF_ERLANGC;
	p.target_wait_s = 1.0;
	p.wait_probability = 0.05;
	b = eval_ok(&p, sig(2.0, 10.0, 0.0, 0.0));
	assert_int_equal(erlang_staff(20.0, 10.0, 1.0, 0.05, &c), MODEL_OK);
	assert_near(b.headroom_slots, (double)c - 20.0, 1e-9);
	assert_near(b.total_slots, (double)c, 1e-9);
	assert_int_equal(b.replicas, c);
	assert_true(erlang_wait_tail(b.replicas, 20.0, 10.0, 1.0) <= 0.05);
	assert_true(erlang_wait_tail(b.replicas - 1, 20.0, 10.0, 1.0) > 0.05);

	/* Non-integer L: total is still the integer c, not c + noise. */
	b = eval_ok(&p, sig(2.01, 10.0, 0.0, 0.0));
	assert_near(b.total_slots, model_ceil(b.total_slots), 1e-9);
	assert_int_equal(erlang_staff(20.1, 10.0, 1.0, 0.05, &c), MODEL_OK);
	assert_int_equal(b.replicas, c);

	/* Slots per replica 8: ceil(c / 8). */
	p.slots_per_replica = 8;
	b = eval_ok(&p, sig(2.0, 10.0, 0.0, 0.0));
	assert_int_equal(erlang_staff(20.0, 10.0, 1.0, 0.05, &c), MODEL_OK);
	assert_int_equal(b.replicas, (c + 7) / 8);

	/* No arrivals: no headroom; the queue still drains, 15 * 10 / 15. */
	b = eval_ok(&p, sig(0.0, 10.0, 15.0, 0.0));
	assert_near(b.headroom_slots, 0.0, 0.0);
	assert_near(b.drain_slots, 10.0, 1e-12);
	assert_int_equal(b.replicas, 2);
}

static void test_cost_staffing(void **state)
{
	struct model_params p = defaults();
	struct model_breakdown b;
	long c = 0;

	p.staffing = MODEL_STAFF_COST;
	p.slots_per_replica = 4;
	p.target_wait_s = 0.5;
	p.cost_per_replica_hour = 3.0;
	p.sla_penalty_per_hour = 1000.0;
	b = eval_ok(&p, sig(2.0, 10.0, 0.0, 0.0));
	assert_int_equal(erlang_cost_staff(20.0, 10.0, 0.5, 4, 3.0, 1000.0,
					   &c), MODEL_OK);
	assert_true(c % 4 == 0 && c > 20);
	assert_near(b.headroom_slots, (double)c - 20.0, 1e-9);
	assert_int_equal(b.replicas, c / 4);
	/* No penalty: the smallest stable whole replica count, 24 / 4. */
	p.sla_penalty_per_hour = 0.0;
	b = eval_ok(&p, sig(2.0, 10.0, 0.0, 0.0));
	assert_int_equal(b.replicas, 6);
	assert_near(b.headroom_slots, 4.0, 1e-12);
}

static void test_active(void **state)
{
	struct model_params p = defaults();
	struct model_signals s = sig(0.05, 1.0, 0.0, 0.0);

	assert_int_equal(model_is_active(&p, &s), 1);
	p.activation_arrival_rate = 1.0;
	assert_int_equal(model_is_active(&p, &s), 0);
	/* Inactive, yet the floor gives the demand (0.39 slots) a replica. */
	assert_int_equal(eval_ok(&p, s).replicas, 1);
	assert_int_equal(eval_ok(&p, s).active, 0);
	s.arrival_rate = 1.0; /* strictly above */
	assert_int_equal(model_is_active(&p, &s), 0);
	s.arrival_rate = 1.5;
	assert_int_equal(model_is_active(&p, &s), 1);
	s = sig(0.0, 10.0, 1.0, 0.0);
	assert_int_equal(model_is_active(&p, &s), 1);
	s = sig(0.0, 10.0, 0.0, 0.1);
	assert_int_equal(model_is_active(&p, &s), 1);
	s = sig(0.0, 10.0, 0.0, 0.0);
	assert_int_equal(model_is_active(&p, &s), 0);
	assert_int_equal(model_is_active(NULL, &s), 0);
}

/* sig() with a forecast. */
static struct model_signals sigf(double lambda, double w, double q, double s,
				 double fc)
{
	struct model_signals x = sig(lambda, w, q, s);

	x.arrival_forecast = fc;
	return x;
}

/* Zeroed signals with the four measured ones filled, as the server and the
 * simulator build them, behave as before the forecast existed. */
static void test_forecast_zero_is_none(void **state)
{
	static const double cases[][4] = {
		{ 2.0, 10.0, 0.0, 0.0 }, { 0.5, 10.0, 100.0, 0.0 },
		{ 0.0, 3.0, 50.0, 0.0 }, { 2.0, 10.0, 0.0, 3.0 },
		{ 0.0, 0.0, 0.0, 0.0 }, { 0.001, 0.1, 0.0, 0.0 },
	};
	struct model_params p = defaults();
	struct model_signals z;
	struct model_breakdown b;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&z, 0, sizeof(z));
		z.arrival_rate = cases[i][0];
		z.service_time_s = cases[i][1];
		z.queue_depth = cases[i][2];
		z.shed_rate = cases[i][3];
		b = eval_ok(&p, z);
		assert_near(b.arrival_used, cases[i][0], 0.0);
		assert_int_equal(b.forecast_used, 0);
		assert_near(b.busy_slots, cases[i][0] * cases[i][1], 0.0);
	}
	/* The seed answers are unchanged. */
	assert_int_equal(eval_ok(&p, sigf(2.0, 10.0, 0.0, 0.0, 0.0)).replicas,
			 27);
}

/* The hold's lambda raises L like the forecast does, and is reported as
 * the source when it is the highest; the boost ablation drops the boost. */
static void test_held_and_boost(void **state)
{
	struct model_params p = defaults();
	struct model_signals z = sig(0.5, 10.0, 0.0, 0.0);
	struct model_breakdown b;

	z.arrival_forecast = 1.0;
	z.arrival_held = 2.0;
	b = eval_ok(&p, z);
	assert_int_equal(b.source, MODEL_FROM_HELD);
	assert_int_equal(b.forecast_used, 0);
	assert_near(b.arrival_used, 2.0, 0.0);
	assert_int_equal(b.replicas, 27);
	z.arrival_forecast = 3.0;
	b = eval_ok(&p, z);
	assert_int_equal(b.source, MODEL_FROM_FORECAST);
	assert_int_equal(b.forecast_used, 1);
	/* Held demand alone is no activity, and W = 0 cannot staff it. */
	z = sig(0.0, 10.0, 0.0, 0.0);
	z.arrival_held = 2.0;
	b = eval_ok(&p, z);
	assert_int_equal(b.active, 0);
	assert_int_equal(b.replicas, 27);
	z.service_time_s = 0;
	eval_err(&p, z, MODEL_EINVAL);
	z = sig(1.0, 10.0, 0.0, 0.0);
	z.arrival_held = -1;
	eval_err(&p, z, MODEL_EINVAL);
	z.arrival_held = NAN;
	eval_err(&p, z, MODEL_EINVAL);

	z = sig(1.0, 10.0, 0.0, 2.0);            /* S 2 > 0: boost 20 */
	b = eval_ok(&p, z);
	assert_near(b.boost_slots, 20.0, 1e-12);
	p.ablate |= MODEL_ABLATE_BOOST_NET;
	b = eval_ok(&p, z);
	assert_near(b.boost_slots, 0.0, 0.0);
}

/* beta sqrt(z L) for sqrt; Hayward's z c*(L / z) for erlangc; z = 0 reads
 * as 1; out-of-range z is refused. */
static void test_peakedness(void **state)
{
	struct model_params p = defaults();
	struct model_signals z = sig(2.0, 10.0, 0.0, 0.0);
	struct model_breakdown b;
	long c = 0;

	z.peakedness = 4;
	b = eval_ok(&p, z);
	assert_near(b.peakedness, 4.0, 0.0);
	assert_near(b.headroom_slots, 1.5 * sqrt(80.0), 1e-12);
	z.peakedness = 0;
	b = eval_ok(&p, z);
	assert_near(b.peakedness, 1.0, 0.0);
	assert_near(b.headroom_slots, 1.5 * sqrt(20.0), 1e-12);

	p.staffing = MODEL_STAFF_ERLANGC;
	p.target_wait_s = 1.0;
	p.wait_probability = 0.05;
	z.peakedness = 4;
	b = eval_ok(&p, z);
	assert_int_equal(erlang_staff(5.0, 10.0, 1.0, 0.05, &c), MODEL_OK);
	assert_near(b.total_slots, 4.0 * (double)c, 1e-9);
	/* Poisson: the plain Erlang C answer. */
	z.peakedness = 1;
	b = eval_ok(&p, z);
	assert_int_equal(erlang_staff(20.0, 10.0, 1.0, 0.05, &c), MODEL_OK);
	assert_near(b.total_slots, (double)c, 1e-9);

	p = defaults();
	z.peakedness = -1;
	eval_err(&p, z, MODEL_EINVAL);
	z.peakedness = MODEL_PEAK_MAX * 2;
	eval_err(&p, z, MODEL_EINVAL);
	z.peakedness = INFINITY;
	eval_err(&p, z, MODEL_EINVAL);
}

static void test_forecast_raises(void **state)
{
	struct model_params p = defaults();
	struct model_breakdown b, ref;

	/* lambda 0.5, forecast 2, W 10: sized as lambda 2, L = 20. */
	b = eval_ok(&p, sigf(0.5, 10.0, 0.0, 0.0, 2.0));
	assert_int_equal(b.forecast_used, 1);
	assert_near(b.arrival_used, 2.0, 0.0);
	assert_near(b.busy_slots, 20.0, 1e-12);
	assert_near(b.headroom_slots, 1.5 * sqrt(20.0), 1e-12);
	assert_int_equal(b.replicas, 27);
	/* Every term equals the measured-lambda answer at lambda 2. */
	ref = eval_ok(&p, sig(2.0, 10.0, 0.0, 0.0));
	assert_near(b.total_slots, ref.total_slots, 0.0);

	/* Drain does not depend on L: the queue waits whatever the
	 * forecast, Q 100 -> 100 * 10 / 15. */
	b = eval_ok(&p, sigf(0.5, 10.0, 100.0, 0.0, 2.0));
	assert_near(b.drain_slots, 100.0 * 10.0 / 15.0, 1e-12);
	b = eval_ok(&p, sigf(0.5, 10.0, 100.0, 0.0, 10.0));
	assert_near(b.drain_slots, 100.0 * 10.0 / 15.0, 1e-12);
	/* Under v1's rule the raised L took the queue in: 80 * 10 / 15. */
	p.ablate |= MODEL_ABLATE_DRAIN_EXCESS;
	b = eval_ok(&p, sigf(0.5, 10.0, 100.0, 0.0, 2.0));
	assert_near(b.drain_slots, 80.0 * 10.0 / 15.0, 1e-12);
	p.ablate &= ~MODEL_ABLATE_DRAIN_EXCESS;

	/* A forecast below or equal to lambda is not used. */
	ref = eval_ok(&p, sig(2.0, 10.0, 30.0, 0.0));
	b = eval_ok(&p, sigf(2.0, 10.0, 30.0, 0.0, 1.0));
	assert_int_equal(b.forecast_used, 0);
	assert_near(b.arrival_used, 2.0, 0.0);
	assert_near(b.total_slots, ref.total_slots, 0.0);
	assert_int_equal(b.replicas, ref.replicas);
	b = eval_ok(&p, sigf(2.0, 10.0, 30.0, 0.0, 2.0));
	assert_int_equal(b.forecast_used, 0);
	assert_near(b.total_slots, ref.total_slots, 0.0);

	/* Erlang C staffs the raised load. */
	p.staffing = MODEL_STAFF_ERLANGC;
	p.target_wait_s = 1.0;
	p.wait_probability = 0.05;
	{
		long c = 0;

		b = eval_ok(&p, sigf(1.0, 10.0, 0.0, 0.0, 3.0));
		assert_int_equal(erlang_staff(30.0, 10.0, 1.0, 0.05, &c),
				 MODEL_OK);
		assert_int_equal(b.replicas, c);
	}
}

/* Activity stays on the measured lambda (model.h says why). */
static void test_forecast_activity(void **state)
{
	struct model_params p = defaults();
	struct model_breakdown b;
	struct model_signals s = sigf(0.0, 10.0, 0.0, 0.0, 3.0);

	/* Nothing measured, forecast 3: staffed (30 + 1.5 sqrt 30 -> 39) but
	 * not active. */
	b = eval_ok(&p, s);
	assert_int_equal(b.forecast_used, 1);
	assert_int_equal(b.replicas, 39);
	assert_int_equal(b.active, 0);
	assert_int_equal(model_is_active(&p, &s), 0);
	/* Below the activation threshold, whatever the forecast. */
	p.activation_arrival_rate = 1.0;
	s = sigf(0.5, 10.0, 0.0, 0.0, 50.0);
	b = eval_ok(&p, s);
	assert_int_equal(b.active, 0);
	assert_int_equal(model_is_active(&p, &s), 0);
	s.arrival_rate = 1.5;
	assert_int_equal(eval_ok(&p, s).active, 1);
	/* A tiny forecast alone still gets a replica. */
	p = defaults();
	b = eval_ok(&p, sigf(0.0, 0.1, 0.0, 0.0, 0.001));
	assert_int_equal(b.replicas, 1);
	assert_int_equal(b.active, 0);
}

static void test_forecast_invalid(void **state)
{
	struct model_params p = defaults();

	eval_err(&p, sigf(1.0, 10.0, 0.0, 0.0, NAN), MODEL_EINVAL);
	eval_err(&p, sigf(1.0, 10.0, 0.0, 0.0, -0.5), MODEL_EINVAL);
	eval_err(&p, sigf(1.0, 10.0, 0.0, 0.0, INFINITY), MODEL_EINVAL);
	eval_err(&p, sigf(1.0, 10.0, 0.0, 0.0, -INFINITY), MODEL_EINVAL);
	/* A forecast is demand: W = 0 would make it vanish. */
	eval_err(&p, sigf(0.0, 0.0, 0.0, 0.0, 1.0), MODEL_EINVAL);
	/* Too large to staff, like a measured lambda. */
	eval_err(&p, sigf(1.0, 10.0, 0.0, 0.0, 1e9), MODEL_ERANGE);
}

/* A ramp through forecast_ahead into the model, as serve and calc do:
 * 1, 1.5, 2, 2.5 at 15 s, 180 s ahead -> 8.5 req/s; W 10 -> 85 slots,
 * 85 + 1.5 sqrt(85) = 98.83 -> 99 (calc shows the same). */
static void test_forecast_pipeline(void **state)
{
	const double ramp[] = { 1.0, 1.5, 2.0, 2.5 };
	struct model_params p = defaults();
	struct model_breakdown b;
	struct forecast f;

	assert_int_equal(forecast_ahead(ramp, 4, forecast_step_seconds(600),
					180.0, 0.3, 0.15, 1.0, &f), MODEL_OK);
	assert_near(f.value, 8.5, 1e-12);
	b = eval_ok(&p, sigf(2.5, 10.0, 0.0, 0.0, f.value));
	assert_int_equal(b.forecast_used, 1);
	assert_near(b.busy_slots, 85.0, 1e-9);
	assert_int_equal(b.replicas, 99);
}

/* Demand beyond MODEL_SLOTS_MAX: the cap answers when it lies below. */
static void test_beyond_capped(void **state)
{
	struct model_params p = defaults();
	struct model_breakdown b;

	p.max_replicas = 100;
	/* L = 1e10 > 1e9. */
	b = eval_ok(&p, sig(1e9, 10.0, 0.0, 0.0));
	assert_int_equal(b.replicas, 100);
	assert_int_equal(b.capped, 1);
	assert_true(isinf(b.total_slots) && b.total_slots > 0);
	assert_true(isinf(b.exact_replicas) && b.exact_replicas > 0);
	assert_near(b.busy_slots, 1e10, 0.0);
	assert_near(b.headroom_slots, 0.0, 0.0);
	assert_int_equal(b.active, 1);
	/* Overflow to +Inf on the way. */
	b = eval_ok(&p, sig(1e200, 1e200, 0.0, 0.0));
	assert_int_equal(b.replicas, 100);
	assert_true(isinf(b.busy_slots));
	/* L fits, the headroom pushes the total past 1e9. */
	b = eval_ok(&p, sig(1e8, 9.99999, 0.0, 0.0));
	assert_int_equal(b.replicas, 100);
	assert_true(b.headroom_slots > 0.0);
	/* Queue or shedding alone. */
	assert_int_equal(eval_ok(&p, sig(0.0, 10.0, 1e300, 0.0)).replicas, 100);
	assert_int_equal(eval_ok(&p, sig(0.0, 10.0, 0.0, 1e300)).replicas, 100);
	/* A forecast beyond the limit, with nothing measured: still the cap,
	 * not active. */
	b = eval_ok(&p, sigf(0.0, 10.0, 0.0, 0.0, 1e9));
	assert_int_equal(b.replicas, 100);
	assert_int_equal(b.forecast_used, 1);
	assert_int_equal(b.active, 0);

	/* Erlang C search past the limit (see test_range). */
	p.staffing = MODEL_STAFF_ERLANGC;
	p.target_wait_s = 1e-6;
	p.wait_probability = 0.01;
	b = eval_ok(&p, sig(9.9999e7, 10.0, 0.0, 0.0));
	assert_int_equal(b.replicas, 100);
	assert_int_equal(b.capped, 1);
	assert_near(b.headroom_slots, 0.0, 0.0);
	assert_near(b.busy_slots, 9.9999e8, 1e-3);

	/* Cost search whose stable minimum is past the limit. */
	p = defaults();
	p.staffing = MODEL_STAFF_COST;
	p.target_wait_s = 1.0;
	p.cost_per_replica_hour = 1.0;
	p.sla_penalty_per_hour = 1.0;
	p.slots_per_replica = 1000;
	eval_err(&p, sig(9.99999e7, 10.0, 0.0, 0.0), MODEL_ERANGE);
	p.max_replicas = 1000;
	b = eval_ok(&p, sig(9.99999e7, 10.0, 0.0, 0.0));
	assert_int_equal(b.replicas, 1000);
	assert_int_equal(b.capped, 1);

	/* The cap exactly at the limit in slots still answers... */
	p = defaults();
	p.slots_per_replica = 10;
	p.max_replicas = 100000000; /* 1e9 slots */
	assert_int_equal(eval_ok(&p, sig(1e9, 10.0, 0.0, 0.0)).replicas,
			 100000000);
	/* ... one above it proves nothing: the exact answer could be below
	 * the cap, and we cannot compute it. */
	p.max_replicas = 100000001;
	eval_err(&p, sig(1e9, 10.0, 0.0, 0.0), MODEL_ERANGE);
	/* Without a cap it is still an error (test_range has more). */
	p.max_replicas = 0;
	eval_err(&p, sig(1e9, 10.0, 0.0, 0.0), MODEL_ERANGE);
	/* Invalid input stays invalid with a cap. */
	p.max_replicas = 5;
	eval_err(&p, sig(NAN, 10.0, 0.0, 0.0), MODEL_EINVAL);
}

static void test_names(void **state)
{
	assert_string_equal(model_staffing_name(MODEL_STAFF_SQRT), "sqrt");
	assert_string_equal(model_staffing_name(MODEL_STAFF_ERLANGC),
			    "erlangc");
	assert_string_equal(model_staffing_name(MODEL_STAFF_COST), "cost");
	assert_string_equal(model_staffing_name(MODEL_STAFF_NONE), "none");
	assert_string_equal(model_staffing_name((enum model_staffing)42),
			    "unknown");
	assert_string_equal(model_strerror(MODEL_OK), "success");
	assert_string_equal(model_strerror(MODEL_EINVAL),
			    "parameter out of domain");
	assert_string_equal(model_strerror(MODEL_ERANGE),
			    "demand too large to staff");
	assert_non_null(model_strerror((enum model_err)42));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_seed_sqrt),
		cmocka_unit_test(test_seed_drain),
		cmocka_unit_test(test_boost),
		cmocka_unit_test(test_slots_per_replica),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_ceil),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_erlangc_staffing),
		cmocka_unit_test(test_cost_staffing),
		cmocka_unit_test(test_active),
		cmocka_unit_test(test_forecast_zero_is_none),
		cmocka_unit_test(test_forecast_raises),
		cmocka_unit_test(test_held_and_boost),
		cmocka_unit_test(test_peakedness),
		cmocka_unit_test(test_forecast_activity),
		cmocka_unit_test(test_forecast_invalid),
		cmocka_unit_test(test_forecast_pipeline),
		cmocka_unit_test(test_beyond_capped),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
