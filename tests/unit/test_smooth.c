/*
 * test_smooth.c - asymmetric smoothing in time (smooth.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "check.h"
#include "smooth.h"

static void test_init(void **state)
{
	struct smooth a = SMOOTH_INIT, b;

	smooth_init(&b);
	assert_int_equal(a.target, b.target);
	assert_int_equal(a.primed, 0);
	assert_int_equal(b.primed, 0);
	assert_near(b.last_down_s, 0.0, 0.0);
}

static void test_first_call_and_up(void **state)
{
	struct smooth s = SMOOTH_INIT;

	/* The first answer is raw, whatever it is. */
	assert_int_equal(smooth_step(&s, 12, 1000.0, 1, 60.0), 12);
	assert_int_equal(s.primed, 1);
	assert_near(s.last_down_s, 1000.0, 0.0);
	/* Up takes effect at once, any size, any time. */
	assert_int_equal(smooth_step(&s, 40, 1000.5, 1, 60.0), 40);
	assert_int_equal(smooth_step(&s, 41, 1000.6, 1, 60.0), 41);
	assert_int_equal(s.target, 41);
	/* Negative raw means 0 replicas. */
	smooth_init(&s);
	assert_int_equal(smooth_step(&s, -5, 0.0, 1, 60.0), 0);
}

static void test_prime_waits_a_period(void **state)
{
	struct smooth s = SMOOTH_INIT;

	/* A fresh process does not know when the fleet last shrank. */
	smooth_step(&s, 10, 0.0, 1, 60.0);
	assert_int_equal(smooth_step(&s, 5, 30.0, 1, 60.0), 10);
	assert_int_equal(smooth_step(&s, 5, 59.9, 1, 60.0), 10);
	assert_int_equal(smooth_step(&s, 5, 60.0, 1, 60.0), 9);
	assert_near(s.last_down_s, 60.0, 0.0);
	assert_int_equal(smooth_step(&s, 5, 90.0, 1, 60.0), 9);
	assert_int_equal(smooth_step(&s, 5, 120.0, 1, 60.0), 8);
}

static void test_dip_costs_one_step(void **state)
{
	struct smooth s = SMOOTH_INIT;
	double t;

	/* An hour stable at 10, then a 30 s dip to 2. */
	for (t = 0.0; t < 3600.0; t += 15.0)
		assert_int_equal(smooth_step(&s, 10, t, 1, 300.0), 10);
	/* Stable for longer than a period: the first drop is immediate. */
	assert_int_equal(smooth_step(&s, 2, 3600.0, 1, 300.0), 9);
	assert_int_equal(smooth_step(&s, 2, 3615.0, 1, 300.0), 9);
	assert_int_equal(smooth_step(&s, 10, 3630.0, 1, 300.0), 10);
	/* A second dip soon after waits a full period from the rise at
	 * 3630 (not from the drop at 3600). */
	assert_int_equal(smooth_step(&s, 2, 3700.0, 1, 300.0), 10);
	assert_int_equal(smooth_step(&s, 2, 3900.0, 1, 300.0), 10);
	assert_int_equal(smooth_step(&s, 2, 3930.0, 1, 300.0), 9);
}

static void test_one_step_per_call(void **state)
{
	struct smooth s = SMOOTH_INIT;

	/* A day of quiet does not buy several steps at once. */
	smooth_step(&s, 20, 0.0, 4, 60.0);
	assert_int_equal(smooth_step(&s, 5, 86400.0, 4, 60.0), 16);
	assert_int_equal(smooth_step(&s, 5, 86401.0, 4, 60.0), 16);
	assert_int_equal(smooth_step(&s, 5, 86460.0, 4, 60.0), 12);
	assert_int_equal(smooth_step(&s, 5, 86520.0, 4, 60.0), 8);
	/* The last step stops at raw, not below it. */
	assert_int_equal(smooth_step(&s, 5, 86580.0, 4, 60.0), 5);
	assert_int_equal(smooth_step(&s, 5, 86640.0, 4, 60.0), 5);
}

/* The raw target over time for the staircase test. */
static int64_t staircase_raw(double t)
{
	if (t < 100.0)
		return 20;
	if (t < 700.0)
		return 3;
	if (t < 760.0)
		return 15;
	return 0;
}

static void test_call_rate_independent(void **state)
{
	struct smooth fast = SMOOTH_INIT, slow = SMOOTH_INIT;
	int64_t fast_at[1201];
	int t, drops = 0;

	/* One caller every second, one every 15 s, same raw signal. */
	for (t = 0; t <= 1200; t++) {
		int64_t prev = fast.target;

		fast_at[t] = smooth_step(&fast, staircase_raw(t), t, 2, 60.0);
		if (t > 0 && fast_at[t] < prev)
			drops++;
	}
	for (t = 0; t <= 1200; t += 15) {
		int64_t v = smooth_step(&slow, staircase_raw(t), t, 2, 60.0);

		assert_int_equal(v, fast_at[t]);
	}
	/* The staircase itself: 20 until 100, then -2 per minute. */
	assert_int_equal(fast_at[99], 20);
	assert_int_equal(fast_at[100], 18);
	assert_int_equal(fast_at[159], 18);
	assert_int_equal(fast_at[160], 16);
	assert_int_equal(fast_at[700], 15);
	assert_int_equal(fast_at[760], 13); /* stable > 60 s: at once */
	/* Drops never come closer than the period: <= 1 per minute. */
	assert_true(drops <= 1200 / 60 + 1);
	assert_true(drops >= 10);
}

static void test_backwards_clock(void **state)
{
	struct smooth s = SMOOTH_INIT;

	smooth_step(&s, 10, 1000.0, 1, 60.0);
	assert_int_equal(smooth_step(&s, 5, 1100.0, 1, 60.0), 9);
	/* The clock jumps back 600 s: no time has passed... */
	assert_int_equal(smooth_step(&s, 5, 500.0, 1, 60.0), 9);
	assert_int_equal(smooth_step(&s, 5, 530.0, 1, 60.0), 9);
	/* ...and the wait restarts from 500, not from 1100. */
	assert_int_equal(smooth_step(&s, 5, 560.0, 1, 60.0), 8);
	/* Up still works on a backwards clock, and restarts the wait. */
	assert_int_equal(smooth_step(&s, 30, 100.0, 1, 60.0), 30);
	assert_near(s.last_down_s, 100.0, 0.0);
	/* A non-finite clock is no time passing. */
	assert_int_equal(smooth_step(&s, 5, NAN, 1, 60.0), 30);
	assert_int_equal(smooth_step(&s, 5, INFINITY, 1, 60.0), 30);
	assert_near(s.last_down_s, 100.0, 0.0);
}

static void test_period_zero(void **state)
{
	struct smooth s = SMOOTH_INIT;

	/* No limit in time: one step per call, even at the same instant. */
	smooth_step(&s, 10, 5.0, 3, 0.0);
	assert_int_equal(smooth_step(&s, 0, 5.0, 3, 0.0), 7);
	assert_int_equal(smooth_step(&s, 0, 5.0, 3, 0.0), 4);
	assert_int_equal(smooth_step(&s, 0, 5.0, 3, 0.0), 1);
	assert_int_equal(smooth_step(&s, 0, 5.0, 3, 0.0), 0);
	/* Out-of-contract period and step are taken as 0 and 1. */
	smooth_step(&s, 10, 6.0, 3, 0.0);
	assert_int_equal(smooth_step(&s, 0, 6.0, 0, NAN), 9);
	assert_int_equal(smooth_step(&s, 0, 6.0, -2, -1.0), 8);
	/* A non-finite clock still steps, but does not poison the state. */
	assert_int_equal(smooth_step(&s, 0, NAN, 1, 0.0), 7);
	assert_near(s.last_down_s, 6.0, 0.0);
	assert_int_equal(smooth_step(&s, 0, 7.0, 1, 1.0), 6);
}

static void test_seed(void **state)
{
	struct smooth s = SMOOTH_INIT;

	/* Unprimed: seeding primes at now, so a drop waits a period. */
	smooth_seed(&s, 10, 1000.0);
	assert_int_equal(s.primed, 1);
	assert_int_equal(s.target, 10);
	assert_near(s.last_down_s, 1000.0, 0.0);
	assert_int_equal(smooth_step(&s, 5, 1010.0, 1, 60.0), 10);
	assert_int_equal(smooth_step(&s, 5, 1060.0, 1, 60.0), 9);

	/* Primed: the outside view replaces the target, the clock stays. */
	smooth_seed(&s, 12, 1090.0);
	assert_int_equal(s.target, 12);
	assert_near(s.last_down_s, 1060.0, 0.0);
	assert_int_equal(smooth_step(&s, 5, 1100.0, 1, 60.0), 12);
	assert_int_equal(smooth_step(&s, 5, 1120.0, 1, 60.0), 11);

	/* An outside view below raw: up at once. */
	smooth_seed(&s, 2, 1130.0);
	assert_int_equal(smooth_step(&s, 5, 1130.0, 1, 60.0), 5);
	smooth_seed(&s, -4, 1140.0);
	assert_int_equal(s.target, 0);
}

/*
 * The answer hold: the highest answer of the last hold (here 80 s, spans
 * of 10 s) is kept; an answer above it goes through at once.  A fresh
 * state knows only what it has seen, and says when it has seen a hold.
 */
static void test_hold(void **state)
{
	struct smooth s = SMOOTH_INIT;
	double t;

	(void)state;
	assert_int_equal(smooth_hold(&s, 10, 0, 80), 10);
	assert_false(smooth_hold_ready(&s, 0, 80));
	assert_int_equal(smooth_hold(&s, 4, 40, 80), 10);
	assert_false(smooth_hold_ready(&s, 79, 80));
	assert_int_equal(smooth_hold(&s, 4, 80, 80), 10);
	assert_true(smooth_hold_ready(&s, 80, 80));
	/* 10 ages out within 80 s plus a span */
	for (t = 85; t < 170; t += 5)
		if (smooth_hold(&s, 4, t, 80) == 4)
			break;
	assert_true(t >= 80 && t <= 90);
	/* up at once */
	assert_int_equal(smooth_hold(&s, 9, 175, 80), 9);
	/* down only once 9 has aged out: at least 80 s, at most 90 s on */
	for (t = 180; t < 255; t += 5)
		assert_int_equal(smooth_hold(&s, 5, t, 80), 9);
	for (; t < 275; t += 5)
		if (smooth_hold(&s, 5, t, 80) == 5)
			break;
	assert_true(t >= 255 && t <= 265);
	/* a shorter hold keeps what it saw within it (the 5s of the
	 * last 40 s), and stands on its own */
	assert_int_equal(smooth_hold(&s, 3, 300, 40), 5);
	assert_true(smooth_hold_ready(&s, 300, 40));
	/* a clock gone backwards starts afresh */
	assert_int_equal(smooth_hold(&s, 6, 100, 40), 6);
	assert_false(smooth_hold_ready(&s, 100, 40));
	/* no calls for longer than the hold: afresh too, and not ready */
	assert_int_equal(smooth_hold(&s, 6, 140, 40), 6);
	assert_true(smooth_hold_ready(&s, 140, 40));
	assert_false(smooth_hold_ready(&s, 1000, 40));
	assert_int_equal(smooth_hold(&s, 2, 1000, 40), 2);
	/* hold 0: the answer itself */
	assert_int_equal(smooth_hold(&s, 5, 1001, 0), 5);
	assert_false(smooth_hold_ready(&s, 1001, 0));
}

/*
 * A hold whose length moves (a measured cold start changes as pods
 * start): the answers seen are kept under the new length, none released
 * earlier than the new hold says, and the state stays ready.  Before,
 * every change started afresh and the hold fell back to the arrival
 * rate's series for a whole hold.
 */
static void test_hold_moves(void **state)
{
	struct smooth s = SMOOTH_INIT;
	double t;

	(void)state;
	for (t = 0; t <= 200; t += 5)
		smooth_hold(&s, t < 150 ? 10 : 4, t, 80);
	assert_true(smooth_hold_ready(&s, 200, 80));
	/* 80 -> 83 s (within an eighth): the 10 seen at 145 s is kept, and
	 * ages out as a hold of 80-83 s plus a span says */
	assert_int_equal(smooth_hold(&s, 4, 205, 83), 10);
	assert_true(smooth_hold_ready(&s, 205, 83));
	for (t = 206; t < 225; t += 1)
		assert_int_equal(smooth_hold(&s, 4, t, 83), 10);
	for (; t < 260; t += 1)
		if (smooth_hold(&s, 4, t, 83) == 4)
			break;
	assert_true(t >= 225 && t <= 145 + 83 + 11);
	/* 83 -> 160 s: re-spanned, the 7 seen is kept and the state ready;
	 * a much shorter hold drops what is older than it */
	assert_int_equal(smooth_hold(&s, 7, 262, 83), 7);
	assert_int_equal(smooth_hold(&s, 4, 263, 160), 7);
	assert_true(smooth_hold_ready(&s, 263, 160));
	assert_int_equal(smooth_hold(&s, 4, 300, 10), 4);
	assert_true(smooth_hold_ready(&s, 300, 10));
	/* a hold moving by a second on every call still releases */
	for (t = 400; t <= 420; t += 5)
		smooth_hold(&s, 9, t, 100);
	for (t = 425; t < 700; t += 5)
		if (smooth_hold(&s, 2, t, 100 + (t - 420) / 5) == 2)
			break;
	assert_true(t > 420 + 100 && t < 420 + 100 + 2 * 100 / 8.0 + 20);
}

/* A hold shortened to a sliver (scaleDownHoldSeconds 1e-300 in a
 * schedule window) counted more spans than an int64_t holds: the span
 * index overflowed and hold_max[-8] was written (ASan).  Now it starts
 * afresh, holds nothing, and a normal hold after it works again. */
static void test_hold_sliver(void **state)
{
	struct smooth s = SMOOTH_INIT;
	double t = 1704067200;
	int i;

	(void)state;
	for (i = 0; i < 20; i++)
		smooth_hold(&s, 15, t + 30 * i, 180);
	assert_int_equal(smooth_hold(&s, 4, t + 600, 1e-300), 4);
	assert_int_equal(smooth_hold(&s, 3, t + 615, 1e-300), 3);
	assert_true(s.hold_k >= 0 && s.hold_k < SMOOTH_SLOTS);
	assert_int_equal(smooth_hold(&s, 9, t + 630, 180), 9);
	assert_int_equal(smooth_hold(&s, 2, t + 645, 180), 9);
	/* and from a sliver to a normal hold and back again */
	assert_int_equal(smooth_hold(&s, 2, t + 660, 5e-324), 2);
	assert_int_equal(smooth_hold(&s, 2, t + 675, 180), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_first_call_and_up),
		cmocka_unit_test(test_prime_waits_a_period),
		cmocka_unit_test(test_dip_costs_one_step),
		cmocka_unit_test(test_one_step_per_call),
		cmocka_unit_test(test_call_rate_independent),
		cmocka_unit_test(test_backwards_clock),
		cmocka_unit_test(test_period_zero),
		cmocka_unit_test(test_seed),
		cmocka_unit_test(test_hold),
		cmocka_unit_test(test_hold_moves),
		cmocka_unit_test(test_hold_sliver),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
