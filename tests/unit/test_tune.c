/*
 * test_tune.c - the pure parts of `staffer tune`: the split and the
 * objective and the search (tunesearch.h), the history's grid, gaps and
 * trimming (tunehist.h), and the replay of a rate series from memory
 * whose gaps are not zero traffic (trace_from_rates in trace.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/simrng.h"
#include "sim/trace.h"
#include "tunehist.h"
#include "sim/tunesearch.h"

static const struct tune_goal goal = { 0.99, 0.02, 0.001 };

static struct tune_score sc(double att, double hours)
{
	struct tune_score s = { 1, att, hours, 0 };

	return s;
}

static void test_holdout(void **state)
{
	(void)state;
	/* from 2 days on: the last day */
	assert_true(tune_holdout_s(2 * 86400, 30) == 86400);
	assert_true(tune_holdout_s(7 * 86400, 30) == 86400);
	/* below: the last sixth, whole steps */
	assert_true(tune_holdout_s(6 * 3600, 30) == 3600);
	assert_true(tune_holdout_s(36 * 3600, 60) == 6 * 3600);
	assert_true(tune_holdout_s(6 * 3600 + 50, 60) == 3600);
	/* too short, or nonsense: none */
	assert_true(tune_holdout_s(6 * 3600 - 1, 30) == 0);
	assert_true(tune_holdout_s(NAN, 30) == 0);
	assert_true(tune_holdout_s(86400, 0) == 0);
	assert_true(tune_holdout_s(INFINITY, 30) == 0);
}

static void test_better(void **state)
{
	struct tune_score bad = { 0, 1, 1, 0 };

	(void)state;
	/* reaching the target beats not reaching it, whatever it costs */
	assert_true(tune_better(&(struct tune_score){ 1, 0.99, 500, 0 },
				&(struct tune_score){ 1, 0.98, 100, 0 }, &goal,
				1));
	/* both reach it: the cheaper, by more than 2 % */
	{
		struct tune_score a = sc(0.995, 97), b = sc(1.0, 100);
		struct tune_score c = sc(0.995, 98.5);

		assert_true(tune_better(&a, &b, &goal, 1));
		assert_false(tune_better(&b, &a, &goal, 1));
		assert_false(tune_better(&c, &b, &goal, 1));  /* 1.5 % */
		assert_true(tune_better(&c, &b, &goal, 0));   /* exactly */
	}
	/* neither: the higher attainment, by more than 0.1 points */
	{
		struct tune_score a = sc(0.97, 200), b = sc(0.968, 100);
		struct tune_score c = sc(0.9695, 90);

		assert_true(tune_better(&a, &b, &goal, 1));
		/* within 0.1 points: the cheaper */
		assert_true(tune_better(&c, &a, &goal, 1));
		/* exactly: more is better, even if it costs more */
		assert_true(tune_better(&a, &c, &goal, 0));
	}
	/* a failed simulation loses to any valid one */
	assert_true(tune_better(&(struct tune_score){ 1, 0, 1e9, 0 }, &bad,
				&goal, 1));
	assert_false(tune_better(&bad, &(struct tune_score){ 1, 0, 1e9, 0 },
				 &goal, 1));
	assert_false(tune_better(&bad, &bad, &goal, 1));
	/* nothing beats itself */
	{
		struct tune_score a = sc(0.995, 50);

		assert_false(tune_better(&a, &a, &goal, 0));
		assert_false(tune_better(&a, &a, &goal, 1));
	}
}

static void test_same_value(void **state)
{
	(void)state;
	assert_true(tune_same_value("1.5", "1.50"));
	assert_true(tune_same_value("auto", "auto"));
	assert_false(tune_same_value("auto", "60"));
	assert_false(tune_same_value("2", "3"));
	assert_false(tune_same_value(NULL, "3"));
}

/* ---- the search on a made-up world ------------------------------------ */

/* Two keys, a and b.  Hours grow with a and b; attainment needs a >= 2
 * and b >= 1 (values as numbers; NULL is the current value). */
struct world {
	const char *cur[2];
	int calls;
	int stop_at;             /* fail the call with this number (0: never) */
	double flat;             /* > 0: every configuration costs this */
};

static int world_eval(void *arg, const char *const *v, struct tune_score *out)
{
	struct world *w = arg;
	double a = atof(v[0] ? v[0] : w->cur[0]);
	double b = atof(v[1] ? v[1] : w->cur[1]);

	w->calls++;
	if (w->stop_at && w->calls == w->stop_at)
		return -1;
	out->valid = 1;
	out->attainment = a >= 2 && b >= 1 ? 0.995 : 0.95 + 0.01 * a;
	out->hours = w->flat > 0 ? w->flat : 100 + 10 * a + 5 * b;
	out->events = 0;
	return 0;
}

static void keys2(struct tune_key *k, const char *a, const char *b)
{
	static const char *const av[] = { "1", "2", "3", "4" };
	static const char *const bv[] = { "0", "1", "2" };

	memset(k, 0, 2 * sizeof(*k));
	k[0].name = "a";
	k[0].current = a;
	k[0].deflt = "3";
	memcpy(k[0].values, av, sizeof(av));
	k[0].n = 4;
	k[1].name = "b";
	k[1].current = b;
	k[1].deflt = "2";
	memcpy(k[1].values, bv, sizeof(bv));
	k[1].n = 3;
}

static void test_search_finds_cheapest(void **state)
{
	struct tune_key k[2];
	struct world w = { { "4", "2" }, 0, 0, 0 };
	struct tune_result r;

	(void)state;
	keys2(k, "4", "2");
	assert_int_equal(tune_search(k, 2, &goal, 2, world_eval, &w, &r), 0);
	assert_true(r.changed);
	assert_string_equal(r.values[0], "2");
	assert_string_equal(r.values[1], "1");
	assert_true(r.pick.hours == 125);
	assert_true(r.current.hours == 150);
	/* every simulation is counted, none is repeated, the bound holds */
	assert_int_equal((int)r.sims, w.calls);
	assert_true(r.sims <= tune_search_bound(k, 2, 2));
	/* same inputs, same answer */
	{
		struct tune_result r2;
		struct world w2 = { { "4", "2" }, 0, 0, 0 };

		assert_int_equal(tune_search(k, 2, &goal, 2, world_eval, &w2,
					     &r2), 0);
		assert_string_equal(r2.values[0], r.values[0]);
		assert_string_equal(r2.values[1], r.values[1]);
		assert_int_equal((int)r2.sims, (int)r.sims);
	}
}

static void test_search_keeps_current_on_ties(void **state)
{
	struct tune_key k[2];
	struct world w = { { "3", "2" }, 0, 0, 500 };
	struct tune_result r;
	size_t i;

	(void)state;
	/* absent keys: the defaults stand for them; nothing is cheaper */
	keys2(k, NULL, NULL);
	assert_int_equal(tune_search(k, 2, &goal, 2, world_eval, &w, &r), 0);
	assert_false(r.changed);
	for (i = 0; i < 2; i++)
		assert_null(r.values[i]);
	/* the candidate equal to the default was not simulated again:
	 * 1 + (4 - 1) + (3 - 1), and one pass since nothing moved */
	assert_int_equal((int)r.sims, 6);
}

static void test_search_margin(void **state)
{
	struct tune_key k[2];
	struct world w = { { "2", "1" }, 0, 0, 0 };
	struct tune_result r;

	(void)state;
	/* at the optimum already: a = 2, b = 1 */
	keys2(k, "2", "1");
	assert_int_equal(tune_search(k, 2, &goal, 2, world_eval, &w, &r), 0);
	assert_false(r.changed);
	assert_true(r.pick.hours == r.current.hours);
}

static void test_search_stops(void **state)
{
	struct tune_key k[2];
	struct world w = { { "4", "2" }, 0, 3, 0 };
	struct tune_result r;

	(void)state;
	keys2(k, "4", "2");
	assert_int_equal(tune_search(k, 2, &goal, 2, world_eval, &w, &r), -1);
	assert_int_equal(tune_search(k, 2, &goal, 0, world_eval, &w, &r), -1);
	assert_int_equal(tune_search(k, TUNE_KEYS_MAX + 1, &goal, 1,
				     world_eval, &w, &r), -1);
}

/* ---- the history's grid ------------------------------------------------- */

static void test_hist_place_and_gaps(void **state)
{
	struct tunehist h;
	struct tunehist_gaps g;
	/* grid 1000, 1030, ... 1270 (10 points) */
	double ts[] = { 1000, 1030.2, 1060, 1090, 1180, 1210, 1240, 1270,
			1300, 1105, 1120 };
	double vs[] = { 1, 2, NAN, -3, 5, 6, 7, 8, 9, 99, 4 };
	size_t neg = 0, placed;

	(void)state;
	assert_int_equal(tunehist_init(&h, 1000, 30, 10), 0);
	assert_int_equal((int)tunehist_first(&h), 10);
	placed = tunehist_place(&h, ts, vs, 11, &neg);
	/* 1300 is off the grid, 1105 between two points, NaN missing, the
	 * negative counted and missing */
	assert_int_equal((int)placed, 7);
	assert_int_equal((int)neg, 1);
	assert_true(h.v[0] == 1 && h.v[1] == 2 && isnan(h.v[2]) &&
		    isnan(h.v[3]) && h.v[4] == 4 && isnan(h.v[5]) &&
		    h.v[6] == 5 && h.v[9] == 8);
	tunehist_gaps(&h, 0, 10, &g);
	assert_int_equal((int)g.present, 7);
	assert_int_equal((int)g.missing, 3);
	assert_int_equal((int)g.runs, 2);
	assert_int_equal((int)g.longest, 2);
	assert_int_equal((int)tunehist_first(&h), 0);
	tunehist_release(&h);
	/* bad grids are refused */
	assert_int_equal(tunehist_init(&h, 0, 0, 10), -1);
	assert_int_equal(tunehist_init(&h, 0, 30, 0), -1);
	assert_int_equal(tunehist_init(&h, NAN, 30, 10), -1);
	assert_int_equal(tunehist_init(&h, 0, 30, TUNEHIST_POINTS_MAX + 1),
			 -1);
}

static void test_hist_trim(void **state)
{
	struct tunehist h;
	size_t i, marked;

	(void)state;
	/* x x . . x x x x . x x x x x: gaps at 2-3 and 8; point 0 present */
	assert_int_equal(tunehist_init(&h, 0, 30, 14), 0);
	for (i = 0; i < 14; i++)
		h.v[i] = 1;
	h.v[2] = h.v[3] = h.v[8] = NAN;
	marked = tunehist_trim(&h, 1);
	/* one on either side of each gap: 1, 4, 7, 9 */
	assert_int_equal((int)marked, 4);
	for (i = 0; i < 14; i++)
		assert_int_equal(isnan(h.v[i]) ? 1 : 0,
				 i == 1 || i == 2 || i == 3 || i == 4 ||
				 i == 7 || i == 8 || i == 9);
	tunehist_release(&h);
	/* a series that starts late: its first points read low too */
	assert_int_equal(tunehist_init(&h, 0, 30, 6), 0);
	for (i = 3; i < 6; i++)
		h.v[i] = 1;
	assert_int_equal((int)tunehist_trim(&h, 2), 2);
	assert_int_equal((int)tunehist_first(&h), 5);
	assert_int_equal((int)tunehist_trim(&h, 0), 0);
	tunehist_release(&h);
}

/* ---- the replay from memory ------------------------------------------- */

static void test_rates_gap_is_not_zero(void **state)
{
	double ws[600], rs[600], gap[600];
	struct trace_rates o = { 1, 1, 0, 0, 0, 0, TRACE_ARR_AUTO };
	struct trace a, b;
	struct simrng r;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < 600; i++) {
		ws[i] = 60.0 * (double)i;
		rs[i] = 2;
		/* a gap of 200 minutes, NaN and negative points */
		gap[i] = i >= 200 && i < 400 ? (i % 2 ? NAN : -1) : 2;
	}
	trace_init(&a);
	trace_init(&b);
	simrng_seed(&r, 1);
	assert_int_equal(trace_from_rates(&a, ws, rs, 600, &o, &r, "x", err,
					  sizeof(err)), 0);
	simrng_seed(&r, 1);
	assert_int_equal(trace_from_rates(&b, ws, gap, 600, &o, &r, "x", err,
					  sizeof(err)), 0);
	/* the gap carries the rate: the same arrivals, not a third fewer */
	assert_int_equal((int)a.n, (int)b.n);
	assert_true(fabs((double)a.n / (600 * 60 * 2) - 1) < 0.02);
	assert_true(a.span_s == 600 * 60);
	/* the windows must go forward */
	ws[10] = ws[9];
	assert_int_equal(trace_from_rates(&a, ws, rs, 600, &o, &r, "series",
					  err, sizeof(err)), -1);
	assert_non_null(strstr(err, "series: window 10"));
	assert_int_equal(trace_from_rates(&a, ws, rs, 1, &o, &r, "series",
					  err, sizeof(err)), -1);
	assert_non_null(strstr(err, "fewer than 2 windows"));
	trace_free(&a);
	trace_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_holdout),
		cmocka_unit_test(test_better),
		cmocka_unit_test(test_same_value),
		cmocka_unit_test(test_search_finds_cheapest),
		cmocka_unit_test(test_search_keeps_current_on_ties),
		cmocka_unit_test(test_search_margin),
		cmocka_unit_test(test_search_stops),
		cmocka_unit_test(test_hist_place_and_gaps),
		cmocka_unit_test(test_hist_trim),
		cmocka_unit_test(test_rates_gap_is_not_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
