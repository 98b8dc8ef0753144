/*
 * test_series.c - range answers kept and extended (series.h): the grid,
 * the plan, the merge, and a long run against a model backend whose late
 * samples, gaps, NaN points and changes of series a full fetch sees, with
 * the answer compared to a full fetch's at every refresh.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "prom.h"
#include "series.h"

static void test_series_grid(void **state)
{
	struct series_grid g;

	(void)state;
	/* 200 s at 5 s: 41 points ending at the last multiple of 5 s */
	assert_int_equal(series_grid(200, 5, 0, 1700000003.7, &g), 0);
	assert_int_equal(g.step_ms, 5000);
	assert_int_equal(g.n, 41);
	assert_true(g.end_ms == 1700000000000LL);
	assert_true(series_grid_start(&g) == 1700000000000LL - 200000);
	/* on a multiple: that point is the end */
	assert_int_equal(series_grid(200, 5, 0, 1700000005.0, &g), 0);
	assert_true(g.end_ms == 1700000005000LL);
	/* a range that is no multiple of the step: floor + 1 points */
	assert_int_equal(series_grid(100, 7.5, 0, 1700000000.0, &g), 0);
	assert_int_equal(g.n, 14);
	assert_int_equal(g.step_ms, 7500);
	assert_int_equal(g.end_ms % 7500, 0);
	/* 0: one point */
	assert_int_equal(series_grid(0, 15, 0, 1700000000.0, &g), 0);
	assert_int_equal(g.n, 1);
	/* no whole milliseconds, too many points, not a time: not kept */
	assert_int_equal(series_grid(100, 10.0 / 3, 0, 1700000000.0, &g), -1);
	assert_int_equal(series_grid(100, 0.0004, 0, 1700000000.0, &g), -1);
	assert_int_equal(series_grid(11000, 1, 0, 1700000000.0, &g), -1);
	assert_int_equal(series_grid(10999, 1, 0, 1700000000.0, &g), 0);
	assert_int_equal(series_grid(-1, 1, 0, 1700000000.0, &g), -1);
	assert_int_equal(series_grid(100, 1, 0, 0, &g), -1);
	assert_int_equal(series_grid(100, 1, 0, NAN, &g), -1);
	assert_int_equal(series_grid(NAN, 1, 0, 1700000000.0, &g), -1);
	/* a phase: the grid is phase mod step plus multiples of the step,
	 * ending at or just before now */
	assert_int_equal(series_grid(200, 5, 1234, 1700000003.7, &g), 0);
	assert_true(g.end_ms == 1700000001234LL);
	assert_int_equal(series_grid(200, 5, 1234, 1700000001.233, &g), 0);
	assert_true(g.end_ms == 1699999996234LL);
	assert_int_equal(series_grid(200, 5, 1234, 1700000001.234, &g), 0);
	assert_true(g.end_ms == 1700000001234LL);
	/* taken modulo the step: 4000000000 % 5000 is 0 */
	assert_int_equal(series_grid(200, 5, 4000000000u, 1700000003.7, &g),
			 0);
	assert_true(g.end_ms == 1700000000000LL);
	/* one phase, steps that divide each other: shared instants */
	{
		struct series_grid f, c;
		uint32_t ph = 2166136261u;
		double now = 1700000000.0;
		int i;

		for (i = 0; i < 1000; i++, now += 7.919) {
			assert_int_equal(series_grid(600, 15, ph, now, &f), 0);
			assert_int_equal(series_grid(10800, 45, ph, now, &c),
					 0);
			assert_true(c.end_ms <= f.end_ms);
			assert_true((f.end_ms - c.end_ms) % 15000 == 0);
			assert_true(f.end_ms <= (long long)(now * 1000) &&
				    f.end_ms > (long long)(now * 1000) - 15000);
		}
	}
}

/* A reply body of one series {k="label"} with points at start + i*step
 * for i < n, values from val(i) ("NaN" where isnan), absent where
 * skip(i). */
static char *body_of(const char *label, long long start_ms, long long step_ms,
		     int n, const double *vals, const int *absent)
{
	size_t cap = 256 + (size_t)n * 64, len;
	char *b = malloc(cap);
	int i, first = 1;

	assert_non_null(b);
	len = (size_t)snprintf(b, cap, "{\"status\":\"success\",\"data\":{"
			       "\"resultType\":\"matrix\",\"result\":[");
	if (label)
		len += (size_t)snprintf(b + len, cap - len, "{\"metric\":{\"k\":"
					"\"%s\"},\"values\":[", label);
	for (i = 0; label && i < n; i++) {
		long long t = start_ms + (long long)i * step_ms;

		if (absent && absent[i])
			continue;
		len += (size_t)snprintf(b + len, cap - len, "%s[%lld.%03lld,",
					first ? "" : ",", t / 1000, t % 1000);
		if (isnan(vals[i]))
			len += (size_t)snprintf(b + len, cap - len, "\"NaN\"]");
		else
			len += (size_t)snprintf(b + len, cap - len, "\"%.17g\"]",
						vals[i]);
		first = 0;
	}
	snprintf(b + len, cap - len, "%s]}}", label ? "]}" : "");
	return b;
}

static void test_series_parse_nan(void **state)
{
	static const double v[4] = { 1, NAN, 3, NAN };
	static const int gap[4] = { 0, 0, 1, 0 };
	struct prom_range r, r2;
	char *b = body_of("a", 1000, 1000, 4, v, gap), *c;
	char err[PROM_ERR_MAX];

	(void)state;
	assert_int_equal(prom_parse_range_nan(b, strlen(b), &r, err,
					      sizeof(err)), PROM_OK);
	assert_int_equal(r.n, 4);
	assert_int_equal(r.points, 1);
	assert_true(r.vals[0] == 1);
	assert_true(prom_is_nan_point(r.vals[1]));
	assert_true(isnan(r.vals[2]) && !prom_is_nan_point(r.vals[2]));
	assert_true(prom_is_nan_point(r.vals[3]));
	/* the plain parse: NaN points are gaps */
	assert_int_equal(prom_parse_range(b, strlen(b), &r2, err, sizeof(err)),
			 PROM_OK);
	assert_false(prom_is_nan_point(r2.vals[1]));
	assert_true(r.labels == r2.labels && r.labels != 0);
	prom_range_release(&r2);
	free(b);
	/* every point NaN: OK with 0 points here, PROM_ENAN plainly */
	b = body_of("a", 1000, 1000, 2, (const double[]){ NAN, NAN }, NULL);
	assert_int_equal(prom_parse_range_nan(b, strlen(b), &r2, err,
					      sizeof(err)), PROM_OK);
	assert_int_equal(r2.points, 0);
	prom_range_release(&r2);
	assert_int_equal(prom_parse_range(b, strlen(b), &r2, err, sizeof(err)),
			 PROM_ENAN);
	free(b);
	/* another label set, another hash */
	c = body_of("b", 1000, 1000, 4, v, gap);
	assert_int_equal(prom_parse_range_nan(c, strlen(c), &r2, err,
					      sizeof(err)), PROM_OK);
	assert_true(r2.labels != r.labels);
	prom_range_release(&r2);
	prom_range_release(&r);
	free(c);
	/* no series: PROM_EEMPTY either way */
	b = body_of(NULL, 0, 0, 0, NULL, NULL);
	assert_int_equal(prom_parse_range_nan(b, strlen(b), &r2, err,
					      sizeof(err)), PROM_EEMPTY);
	free(b);
}

/*
 * The model backend.  Time in ms, a step of STEP ms.  The point at t of
 * the series has the value val(t) once the backend has its samples, LAG
 * ms after t; asked earlier it shows a provisional value (a sample not
 * in yet), or none at all for some t.  Some t have no point (a gap: the
 * target was down), some a NaN point (0/0), and the series' label set
 * changes at the times in `relabel` (a pod replaced under a query without
 * sum()): a range over both has two series.
 */
static long long STEP = 5000;   /* the grids' step, ms */
static uint32_t PHASE;          /* the grids' phase (series_grid()) */
/* The model's own time scale (gaps, replaced pods): its points do not
 * depend on the step they are asked at, as Prometheus' do not. */
#define GAP 5000LL
#define NPTS 41
#define LAG 12000LL

#define RELABELS 32

struct model {
	long long relabel[RELABELS];
	int nrelabel;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static int label_at(const struct model *m, long long t)
{
	int i, l = 0;

	for (i = 0; i < m->nrelabel; i++)
		if (t >= m->relabel[i])
			l = i + 1;
	return l;
}

/* The point at t as seen at wall time w: 0 none, 1 a value in *v, 2 a
 * NaN point. */
static int point_at(const struct model *m, long long t, long long w,
		    double *v)
{
	uint64_t h = mix((uint64_t)t);
	int i;

	if (h % 11 == 0 || (t / GAP) % 97 < 9)    /* gaps, one long one */
		return 0;
	for (i = 0; i < m->nrelabel; i++)          /* a pod replaced */
		if (t < m->relabel[i] && t >= m->relabel[i] - 6 * GAP)
			return 0;
	if (h % 13 == 0)
		return 2;
	if (w < t + LAG) {                       /* samples still coming */
		if (h % 3 == 0)
			return 0;
		/* more of them the later it is asked */
		*v = (double)(h % 1000) + 0.5 + (double)((w - t) / 1000);
		return 1;
	}
	*v = (double)(mix(h) % 100000) / 7.0;
	return 1;
}

/* The reply to [from, end] at step st, at wall time w: its body (no
 * series, one, or two when the label set changes within it). */
static char *reply(const struct model *m, long long from, long long end,
		   long long st, long long w)
{
	size_t cap = 512 + (size_t)((end - from) / st + 1) * 160, len;
	char *b = malloc(cap);
	int l, first_series = 1;

	assert_non_null(b);
	len = (size_t)snprintf(b, cap, "{\"status\":\"success\",\"data\":{"
			       "\"resultType\":\"matrix\",\"result\":[");
	for (l = 0; l <= m->nrelabel; l++) {
		long long t;
		int first = 1;
		double v = 0;

		for (t = from; t <= end; t += st) {
			int p;

			if (label_at(m, t) != l)
				continue;
			p = point_at(m, t, w, &v);
			if (!p)
				continue;
			if (first)
				len += (size_t)snprintf(b + len, cap - len,
					"%s{\"metric\":{\"pod\":\"p%d\"},"
					"\"values\":[", first_series ? "" : ",",
					l);
			len += (size_t)snprintf(b + len, cap - len,
						"%s[%lld.%03lld,\"", first ? "" :
						",", t / 1000, t % 1000);
			if (p == 2)
				len += (size_t)snprintf(b + len, cap - len,
							"NaN\"]");
			else
				len += (size_t)snprintf(b + len, cap - len,
							"%.17g\"]", v);
			first = 0;
			first_series = 0;
		}
		if (!first)
			len += (size_t)snprintf(b + len, cap - len, "]}");
	}
	snprintf(b + len, cap - len, "]}}");
	return b;
}

/* What a fetch module holding `kept` does for grid g at wall w (fetch.c's
 * order: plan, request, merge, and a full fetch when the merge cannot
 * take the reply).  Returns the answer's error; *kept is replaced. */
static enum prom_err refresh(const struct model *m, struct series **kept,
			     const struct series_grid *g, long long w,
			     double settle_s, long *requests, long *asked)
{
	long long from = 0;
	enum series_plan plan = series_plan(*kept, g, &from);
	int full = plan == SERIES_FULL;

	if (plan == SERIES_NONE)
		return series_status(*kept, NULL, 0);
	for (;;) {
		struct prom_range r;
		struct series *s = NULL;
		char *b = reply(m, from, g->end_ms, g->step_ms, w);
		char err[PROM_ERR_MAX];
		enum prom_err e = prom_parse_range_nan(b, strlen(b), &r, err,
						       sizeof(err));

		++*requests;
		*asked += (g->end_ms - from) / g->step_ms + 1;
		free(b);
		if (e != PROM_OK && e != PROM_EEMPTY) {
			if (full) {
				free(*kept);
				*kept = NULL;
			}
			return e;
		}
		switch (series_merge(full ? NULL : *kept, g, from,
				     e == PROM_OK ? &r : NULL,
				     series_settled(g, (double)w / 1000.0,
						    settle_s), &s)) {
		case SERIES_MERGED:
			if (e == PROM_OK)
				prom_range_release(&r);
			free(*kept);
			*kept = s;
			return series_status(s, NULL, 0);
		case SERIES_REFETCH:
			assert_false(full);    /* the model is on the grid */
			if (e == PROM_OK)
				prom_range_release(&r);
			full = 1;
			from = series_grid_start(g);
			continue;
		case SERIES_ENOMEM:
			fail();
		}
	}
}

/* A full fetch of g at w: its error, and its points in ts/vals. */
static enum prom_err full_fetch(const struct model *m,
				const struct series_grid *g, long long w,
				double *ts, double *vals, size_t *n)
{
	char *b = reply(m, series_grid_start(g), g->end_ms, g->step_ms, w);
	char err[PROM_ERR_MAX];
	struct prom_range r;
	enum prom_err e = prom_parse_range(b, strlen(b), &r, err, sizeof(err));

	free(b);
	*n = 0;
	if (e == PROM_OK) {
		prom_range_points(&r, ts, vals);
		*n = r.points;
		prom_range_release(&r);
	}
	return e;
}

/* A long run: the kept answer refreshed at random times against the
 * full fetch at the same time.  Returns the refreshes that differed. */
static int run(double settle_s, int rounds, long *requests, long *asked)
{
	struct model m = { { 0 }, 0 };
	struct series *kept = NULL;
	double ts[NPTS], vals[NPTS], kts[NPTS], kvals[NPTS];
	long long w = 1700000000000LL;
	uint64_t rng = 42;
	int i, differ = 0;

	*requests = *asked = 0;
	while (m.nrelabel < RELABELS) {
		m.relabel[m.nrelabel] = w + (m.nrelabel + 1) * 1237 * STEP;
		m.nrelabel++;
	}
	for (i = 0; i < rounds; i++) {
		struct series_grid g;
		enum prom_err ek, ef;
		size_t n;

		rng = mix(rng + 1);
		/* 0 to 20 s, or now and then a long gap between calls */
		w += (long long)(rng % 4000) * 5 +
		     (rng % 61 == 0 ? 41 * STEP : 0);
		assert_int_equal(series_grid((NPTS - 1) * STEP / 1000.0,
					     STEP / 1000.0, PHASE,
					     (double)w / 1000.0, &g), 0);
		ek = refresh(&m, &kept, &g, w, settle_s, requests, asked);
		ef = full_fetch(&m, &g, w, ts, vals, &n);
		if (ek != ef) {
			differ++;
			continue;
		}
		if (ek != PROM_OK)
			continue;
		if (kept->points != n) {
			differ++;
			continue;
		}
		series_points(kept, kts, kvals);
		if (memcmp(ts, kts, n * sizeof(double)) ||
		    memcmp(vals, kvals, n * sizeof(double)))
			differ++;
	}
	free(kept);
	return differ;
}

static void test_series_long_run(void **state)
{
	long requests, asked;
	int differ;

	(void)state;
	/* settled after the lag: every answer is the full fetch's */
	differ = run((double)LAG / 1000.0, 20000, &requests, &asked);
	print_message("settle = lag: %d of 20000 differ; %ld requests for "
		      "%ld points (full fetches: %d)\n", differ, requests,
		      asked, 20000 * NPTS);
	assert_int_equal(differ, 0);
	/* a few points a refresh, not the grid; more requests than
	 * refreshes where a series was replaced (REFETCH) */
	assert_true(requests > 20000);
	assert_true(asked < 20000L * NPTS / 4);
	/* settled too soon: late samples are kept as they were, and the
	 * comparison sees it (the check can fail) */
	differ = run((double)LAG / 1000.0 - 6, 20000, &requests, &asked);
	print_message("settle = lag - 6 s: %d differ\n", differ);
	assert_true(differ > 100);
	/* a step longer than the refreshes (a seasonal range at 60 s):
	 * most refreshes need no request at all */
	STEP = 60000;
	differ = run((double)LAG / 1000.0, 20000, &requests, &asked);
	print_message("step 60 s: %d of 20000 differ; %ld requests for %ld "
		      "points\n", differ, requests, asked);
	STEP = 5000;
	assert_int_equal(differ, 0);
	assert_true(requests < 20000 / 2);
	/* a grid with a phase (a query's, fetch.c) */
	PHASE = 2166136261u;
	differ = run((double)LAG / 1000.0, 20000, &requests, &asked);
	print_message("phase %u: %d of 20000 differ\n", PHASE, differ);
	PHASE = 0;
	assert_int_equal(differ, 0);
	assert_true(asked < 20000L * NPTS / 4);
}

/* A coarse range (1200 s at 15 s) extended from a fine one (the model's
 * 41 points at 5 s) refreshed at random times, as fetch.c's entry_derive()
 * does, against a full fetch of the coarse grid at the same time; where
 * the fine one cannot tell (REFETCH) the coarse one is refreshed itself.
 * Returns the answers that differed; *derived, how many were derived. */
#define COARSE_STEP 15000LL
#define COARSE_N 81
static int run_derived(int rounds, long *derived)
{
	struct model m = { { 0 }, 0 };
	struct series *fine = NULL, *coarse = NULL;
	double ts[COARSE_N], vals[COARSE_N], kts[COARSE_N], kvals[COARSE_N];
	long long w = 1700000000000LL;
	long requests = 0, asked = 0;
	uint64_t rng = 7;
	int i, differ = 0;

	*derived = 0;
	while (m.nrelabel < RELABELS) {
		m.relabel[m.nrelabel] = w + (m.nrelabel + 1) * 1237 * GAP;
		m.nrelabel++;
	}
	for (i = 0; i < rounds; i++) {
		struct series_grid gf, gc;
		struct series *s = NULL;
		enum prom_err ek, ef;
		size_t n;

		rng = mix(rng + 1);
		w += (long long)(rng % 4000) * 5 +
		     (rng % 61 == 0 ? 41 * GAP : 0);
		assert_int_equal(series_grid((NPTS - 1) * GAP / 1000.0,
					     GAP / 1000.0, PHASE,
					     (double)w / 1000.0, &gf), 0);
		assert_int_equal(series_grid((COARSE_N - 1) * COARSE_STEP /
					     1000.0, COARSE_STEP / 1000.0,
					     PHASE, (double)w / 1000.0, &gc),
				 0);
		ek = refresh(&m, &fine, &gf, w, (double)LAG / 1000.0,
			     &requests, &asked);
		if (i > 0 && fine && coarse && ek == PROM_OK &&
		    series_derive(coarse, COARSE_STEP, COARSE_N, PHASE, fine,
				  &s) == SERIES_MERGED) {
			free(coarse);
			coarse = s;
			ek = series_status(coarse, NULL, 0);
			++*derived;
		} else {
			ek = refresh(&m, &coarse, &gc, w, (double)LAG / 1000.0,
				     &requests, &asked);
		}
		ef = full_fetch(&m, &gc, w, ts, vals, &n);
		if (ek != ef) {
			differ++;
			continue;
		}
		if (ek != PROM_OK)
			continue;
		assert_true(coarse->end_ms == gc.end_ms);
		if (coarse->points != n) {
			differ++;
			continue;
		}
		series_points(coarse, kts, kvals);
		if (memcmp(ts, kts, n * sizeof(double)) ||
		    memcmp(vals, kvals, n * sizeof(double)))
			differ++;
	}
	free(fine);
	free(coarse);
	return differ;
}

static void test_series_derive(void **state)
{
	struct series *a, *b, *s = NULL;
	long derived;
	int differ;
	unsigned k;

	(void)state;
	differ = run_derived(20000, &derived);
	print_message("derived: %d of 20000 differ, %ld derived\n", differ,
		      derived);
	assert_int_equal(differ, 0);
	assert_true(derived > 20000 / 2);
	PHASE = 2166136261u;   /* both grids with the query's phase */
	differ = run_derived(20000, &derived);
	print_message("derived, phase %u: %d of 20000 differ, %ld derived\n",
		      PHASE, differ, derived);
	PHASE = 0;
	assert_int_equal(differ, 0);
	assert_true(derived > 20000 / 2);

	/* by hand: fine at 5 s, 5 slots ending at 100 s, settled to 90 s;
	 * coarse at 10 s, 5 slots ending at 80 s, settled to 80 s; a value
	 * is its slot's time */
	a = malloc(sizeof(*a) + 5 * sizeof(double));
	b = malloc(sizeof(*b) + 5 * sizeof(double));
	assert_non_null(a);
	assert_non_null(b);
	a->end_ms = 100000;
	a->step_ms = 5000;
	a->settled_ms = 90000;
	a->labels = 1;
	a->n = a->points = 5;
	for (k = 0; k < 5; k++)
		a->vals[k] = 80 + 5 * k;
	b->end_ms = 80000;
	b->step_ms = 10000;
	b->settled_ms = 80000;
	b->labels = 1;
	b->n = b->points = 5;
	for (k = 0; k < 5; k++)
		b->vals[k] = 40 + 10 * k;
	/* common settled slots: 80 s only */
	assert_int_equal(series_agree(b, a), 1);
	assert_int_equal(series_agree(a, b), 1);
	/* extended to 100 s: up to 80 kept, 90 and 100 from fine, settled
	 * to 90 */
	assert_int_equal(series_derive(b, 10000, 5, 0, a, &s), SERIES_MERGED);
	assert_true(s->end_ms == 100000 && s->settled_ms == 90000);
	for (k = 0; k < 5; k++)
		assert_true(s->vals[k] == 60 + 10 * k);
	assert_int_equal(series_agree(s, a), 2);   /* 80 and 90 */
	free(s);
	/* a step that is no multiple of fine's, or not coarser */
	assert_int_equal(series_derive(b, 7500, 5, 0, a, &s), SERIES_REFETCH);
	assert_int_equal(series_derive(b, 2500, 5, 0, a, &s), SERIES_REFETCH);
	/* fine does not reach back to the first slot not settled (70 s) */
	b->settled_ms = 60000;
	assert_int_equal(series_derive(b, 10000, 5, 0, a, &s), SERIES_REFETCH);
	/* nothing kept: fine must hold the whole grid, 3 slots from 80 s
	 * but not 4 from 70 s */
	assert_int_equal(series_derive(NULL, 10000, 4, 0, a, &s), SERIES_REFETCH);
	assert_int_equal(series_derive(NULL, 10000, 3, 0, a, &s), SERIES_MERGED);
	assert_true(s->vals[0] == 80 && s->vals[2] == 100);
	free(s);
	/* a phase whose coarse slots are not fine's (90 s + 2.5 s) */
	assert_int_equal(series_derive(NULL, 10000, 3, 2500, a, &s),
			 SERIES_REFETCH);
	/* one that is, 5 s past the multiples of 10 s: 3 slots (75, 85
	 * and 95 s) reach before fine's first; 2 are fine's 85 and 95 */
	assert_int_equal(series_derive(NULL, 10000, 3, 5000, a, &s),
			 SERIES_REFETCH);
	assert_int_equal(series_derive(NULL, 10000, 2, 5000, a, &s),
			 SERIES_MERGED);
	assert_true(s->end_ms == 95000 && s->vals[0] == 85 &&
		    s->vals[1] == 95);
	free(s);
	/* another series than the one kept: a full fetch holds both */
	b->settled_ms = 80000;
	a->labels = 2;
	assert_int_equal(series_derive(b, 10000, 5, 0, a, &s), SERIES_REFETCH);
	a->labels = 1;
	/* a backend whose points depend on the step: they disagree */
	b->vals[4] = 81;
	assert_int_equal(series_agree(b, a), -1);
	/* a gap against a point differs; a gap against a gap does not,
	 * and is not counted */
	b->vals[4] = NAN;
	assert_int_equal(series_agree(b, a), -1);
	a->vals[0] = NAN;
	assert_int_equal(series_agree(b, a), 0);
	/* unaligned: nothing to compare, nothing derived */
	a->settled_ms = SERIES_UNALIGNED;
	assert_int_equal(series_agree(b, a), 0);
	assert_int_equal(series_derive(b, 10000, 5, 0, a, &s), SERIES_REFETCH);
	/* the newest slot: a value and its time; a gap or a NaN: none */
	{
		double v = -1, t = -1;

		assert_int_equal(series_newest(a, &v, &t), 1);
		assert_true(v == 100 && t == 100.0);
		a->vals[4] = prom_nan_point();
		v = t = -1;
		assert_int_equal(series_newest(a, &v, &t), 0);
		a->vals[4] = NAN;
		assert_int_equal(series_newest(a, &v, &t), 0);
		assert_true(v == -1 && t == -1);
	}
	free(a);
	free(b);
}

/* The plan and the merge step by step. */
static void test_series_plan_merge(void **state)
{
	struct series_grid g, g2;
	struct series *s = NULL, *s2 = NULL;
	struct prom_range r;
	long long from;
	char *b, err[PROM_ERR_MAX];
	double v[41];
	int i;

	(void)state;
	for (i = 0; i < 41; i++)
		v[i] = i;
	assert_int_equal(series_grid(200, 5, 0, 1700000000.0, &g), 0);
	assert_int_equal(series_plan(NULL, &g, &from), SERIES_FULL);
	assert_true(from == series_grid_start(&g));
	b = body_of("a", from, 5000, 41, v, NULL);
	assert_int_equal(prom_parse_range_nan(b, strlen(b), &r, err,
					      sizeof(err)), PROM_OK);
	free(b);
	/* sent 3 s after the end, settling 60 s: up to end - 60 s final */
	assert_int_equal(series_merge(NULL, &g, from, &r,
				      series_settled(&g, 1700000003.0, 60),
				      &s), SERIES_MERGED);
	prom_range_release(&r);
	assert_true(s->settled_ms == g.end_ms - 60000);
	assert_int_equal(s->points, 41);
	assert_int_equal(series_status(s, NULL, 0), PROM_OK);
	/* the same grid later: the 12 points not settled, and the end */
	assert_int_equal(series_plan(s, &g, &from), SERIES_TAIL);
	assert_true(from == g.end_ms - 55000);
	/* 10 s on: the grid moved by 2; a tail of 14 points */
	assert_int_equal(series_grid(200, 5, 0, 1700000010.0, &g2), 0);
	assert_int_equal(series_plan(s, &g2, &from), SERIES_TAIL);
	assert_true(from == g.end_ms - 55000);
	b = body_of("a", from, 5000, 14, v + 27, NULL);
	assert_int_equal(prom_parse_range_nan(b, strlen(b), &r, err,
					      sizeof(err)), PROM_OK);
	free(b);
	assert_int_equal(series_merge(s, &g2, from, &r,
				      series_settled(&g2, 1700000070.0, 60),
				      &s2), SERIES_MERGED);
	prom_range_release(&r);
	/* slots 0..26 of s2 are s's 2..28, 27..40 the tail's */
	assert_true(s2->vals[0] == 2 && s2->vals[26] == 28 &&
		    s2->vals[27] == 27 && s2->vals[40] == 40);
	assert_true(s2->settled_ms == g2.end_ms);
	/* all settled, the grid unchanged: nothing to fetch */
	assert_int_equal(series_plan(s2, &g2, &from), SERIES_NONE);
	/* the same grid at another phase (the backend moved it to phase
	 * 0, fetch.c): none of s2's slots is its, so the whole grid */
	{
		struct series_grid g3;

		assert_int_equal(series_grid(200, 5, 2500, 1700000013.0, &g3),
				 0);
		assert_int_equal(series_plan(s2, &g3, &from), SERIES_FULL);
		assert_true(from == series_grid_start(&g3));
	}
	/* series_same(): itself, not s (moved on), not a changed value;
	 * the same tail merged again gives the same points */
	assert_true(series_same(s2, s2));
	assert_false(series_same(s, s2));
	{
		struct series *s3 = NULL;

		b = body_of("a", g2.end_ms - 5000, 5000, 2, v + 39, NULL);
		assert_int_equal(prom_parse_range_nan(b, strlen(b), &r, err,
						      sizeof(err)), PROM_OK);
		free(b);
		assert_int_equal(series_merge(s2, &g2, g2.end_ms - 5000, &r,
					      series_settled(&g2, 1700000070.0,
							     60), &s3),
				 SERIES_MERGED);
		prom_range_release(&r);
		assert_true(series_same(s2, s3));
		s3->vals[40] = 41;
		assert_false(series_same(s2, s3));
		free(s3);
	}
	/* another label set in the tail while points of "a" are kept:
	 * a full fetch would hold two series */
	b = body_of("b", g2.end_ms, 5000, 1, v, NULL);
	assert_int_equal(prom_parse_range_nan(b, strlen(b), &r, err,
					      sizeof(err)), PROM_OK);
	free(b);
	free(s);
	s = NULL;
	assert_int_equal(series_merge(s2, &g2, g2.end_ms, &r, g2.end_ms, &s),
			 SERIES_REFETCH);
	assert_null(s);
	prom_range_release(&r);
	/* points off the grid: refetch */
	b = body_of("a", g2.end_ms - 2500, 5000, 1, v, NULL);
	assert_int_equal(prom_parse_range_nan(b, strlen(b), &r, err,
					      sizeof(err)), PROM_OK);
	free(b);
	assert_int_equal(series_merge(s2, &g2, g2.end_ms - 5000, &r, g2.end_ms,
				      &s), SERIES_REFETCH);
	prom_range_release(&r);
	/* an empty tail over kept points: they stay */
	assert_int_equal(series_merge(s2, &g2, g2.end_ms, NULL, g2.end_ms, &s),
			 SERIES_MERGED);
	assert_int_equal(s->points, 40);
	free(s);
	/* clock gone back, other step, a gap longer than the range: whole */
	assert_int_equal(series_grid(200, 5, 0, 1699999000.0, &g), 0);
	assert_int_equal(series_plan(s2, &g, &from), SERIES_FULL);
	assert_int_equal(series_grid(200, 10, 0, 1700000100.0, &g), 0);
	assert_int_equal(series_plan(s2, &g, &from), SERIES_FULL);
	assert_int_equal(series_grid(200, 5, 0, 1700001000.0, &g), 0);
	assert_int_equal(series_plan(s2, &g, &from), SERIES_FULL);
	/* nothing but empty replies: no series; NaN points: ENAN */
	assert_int_equal(series_merge(NULL, &g, series_grid_start(&g), NULL,
				      g.end_ms, &s), SERIES_MERGED);
	assert_int_equal(series_status(s, err, sizeof(err)), PROM_EEMPTY);
	check_contains(err, "no series");
	free(s);
	b = body_of("a", g.end_ms, 5000, 1, (const double[]){ NAN }, NULL);
	assert_int_equal(prom_parse_range_nan(b, strlen(b), &r, err,
					      sizeof(err)), PROM_OK);
	free(b);
	assert_int_equal(series_merge(NULL, &g, series_grid_start(&g), &r,
				      g.end_ms, &s), SERIES_MERGED);
	assert_int_equal(series_status(s, err, sizeof(err)), PROM_ENAN);
	check_contains(err, "NaN");
	free(s);
	prom_range_release(&r);
	free(s2);
}

/* range_even() of src/scaler.c over series_points(): the spec of
 * series_even(). */
static int even_expanded(const struct series *s, double step_s)
{
	double *ts = malloc((s->points + 1) * sizeof(double));
	double *vals = malloc((s->points + 1) * sizeof(double));
	unsigned i;
	int even = 1;

	assert_non_null(ts);
	assert_non_null(vals);
	series_points(s, ts, vals);
	for (i = 1; i < s->points; i++)
		if (fabs(ts[i] - ts[i - 1] - step_s) > step_s / 4)
			even = 0;
	free(ts);
	free(vals);
	return even;
}

/* A series of n slots step_ms apart ending at end_ms, a gap where the
 * bit of gaps is set (slot k: bit k % 64). */
static struct series *series_with(long long end_ms, long long step_ms,
				  unsigned n, uint64_t gaps)
{
	struct prom_range r;
	struct series *s;
	unsigned k;

	memset(&r, 0, sizeof(r));
	r.n = n;
	r.step_ms = n > 1 ? step_ms : 0;
	r.start_ms = end_ms - (long long)(n - 1) * r.step_ms;
	r.vals = malloc(n * sizeof(double));
	assert_non_null(r.vals);
	for (k = 0; k < n; k++) {
		r.vals[k] = gaps >> (k % 64) & 1 ? NAN : 0.5 * k;
		r.points += !isnan(r.vals[k]);
	}
	s = series_of_range(&r);
	assert_non_null(s);
	free(r.vals);
	return s;
}

/* series_even() and series_last() say of the kept slots what the
 * expanded points would, and a held series outlives its maker's drop. */
static void test_series_read_kept(void **state)
{
	static const long long steps[] = { 1, 1000, 15000, 30000, 45000 };
	static const double ratio[] = { 1, 0.5, 0.76, 0.8, 1.2, 1.25, 1.3,
					1.9, 2, 2.1 };
	static const uint64_t gaps[] = {
		0, 1, 1ull << 40, 0x8000000000000000ull, 0x10, 0x30,
		0xAAAAAAAAAAAAAAAAull, 0x5555555555555555ull,
		0xFFFFFFFFFFFFFFFEull, 0x7FFFFFFFFFFFFFFFull,
		0xFFFFFFFFFFFFFFFFull, 0x0F0F0F0F0F0F0F0Full,
	};
	static const unsigned ns[] = { 1, 2, 3, 41, 64, 241 };
	size_t a, b, c, d;
	long checked = 0, uneven = 0;

	(void)state;
	for (a = 0; a < sizeof(steps) / sizeof(steps[0]); a++)
	for (b = 0; b < sizeof(gaps) / sizeof(gaps[0]); b++)
	for (c = 0; c < sizeof(ns) / sizeof(ns[0]); c++) {
		struct series *s = series_with(1700000001234LL, steps[a],
					       ns[c], gaps[b]);
		double *ts = malloc((s->points + 1) * sizeof(double));
		double *vals = malloc((s->points + 1) * sizeof(double));
		double t = -1;

		assert_non_null(ts);
		assert_non_null(vals);
		series_points(s, ts, vals);
		if (s->points > 0) {
			assert_int_equal(series_last(s, &t), 1);
			assert_true(t == ts[s->points - 1]);
		} else {
			assert_int_equal(series_last(s, &t), 0);
			assert_true(t == -1);      /* untouched */
		}
		for (d = 0; d < sizeof(ratio) / sizeof(ratio[0]); d++) {
			double step_s = (double)steps[a] / 1000 * ratio[d];
			int want = even_expanded(s, step_s);

			assert_int_equal(series_even(s, step_s), want);
			checked++;
			uneven += !want;
		}
		free(ts);
		free(vals);
		/* a second holder keeps it past the first one's drop
		 * (ASan: a use after free or a leak fails the test) */
		assert_ptr_equal(series_hold(s), s);
		series_drop(s);
		assert_true(s->n == ns[c]);
		series_drop(s);
	}
	/* both answers were seen many times */
	assert_true(uneven > 100 && checked - uneven > 100);
	series_drop(NULL);
	assert_null(series_hold(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_series_grid),
		cmocka_unit_test(test_series_parse_nan),
		cmocka_unit_test(test_series_plan_merge),
		cmocka_unit_test(test_series_long_run),
		cmocka_unit_test(test_series_derive),
		cmocka_unit_test(test_series_read_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
