/*
 * test_peak.c - peakedness from a rate series (peak.h) and the range of a
 * PromQL expression (promql.h), the two things the scale-down hold and the
 * headroom read from arrivalRateQuery.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "peak.h"
#include "promql.h"
#include "sim/simrng.h"

#define N_OF(x) (sizeof(x) / sizeof((x)[0]))

/*
 * The series Prometheus would give for arrivals of a known process: counts
 * per step, each point the rate over the last `window` seconds (window a
 * multiple of step).  counts[] holds one count per step.
 */
static void rates_from_counts(const double *counts, size_t n, size_t per,
			      double window, double *out, size_t *nout)
{
	size_t i, k;

	*nout = 0;
	for (i = per - 1; i < n; i++) {
		double c = 0;

		for (k = 0; k < per; k++)
			c += counts[i - k];
		out[(*nout)++] = c / window;
	}
}

static double poisson(struct simrng *r, double mean)
{
	return (double)simrng_poisson(r, mean);
}

/* Poisson arrivals read as z ~ 1, and a constant series with no noise at
 * all is clamped up to 1: a reading below 1 is sampling noise. */
static void test_poisson(void **state)
{
	static double counts[2400], rates[2400];
	struct simrng r;
	double z = 0, raw = 0;
	size_t i, n;

	(void)state;
	simrng_seed(&r, 7);
	for (i = 0; i < N_OF(counts); i++)
		counts[i] = poisson(&r, 20 * 15); /* 20 req/s, 15 s steps */
	rates_from_counts(counts, N_OF(counts), 4, 60, rates, &n);
	assert_int_equal(peak_estimate(rates, n, 15, 60, 16, &z, &raw), MODEL_OK);
	assert_true(raw > 0.85 && raw < 1.15);
	assert_true(z >= PEAK_MIN && z < 1.15);

	for (i = 0; i < 50; i++)
		rates[i] = 20;
	assert_int_equal(peak_estimate(rates, 50, 15, 60, 16, &z, &raw), MODEL_OK);
	assert_true(raw == 0);
	assert_true(z == PEAK_MIN);
}

/* Bursty arrivals: each arrival brings a batch of b requests at once, so
 * the counts' variance is b times a Poisson stream's: z ~ b (the batch
 * size is fixed here, so E[b^2]/E[b] = b). */
static void test_batches(void **state)
{
	static double counts[2400], rates[2400];
	struct simrng r;
	double z = 0, raw = 0;
	size_t i, n;

	(void)state;
	simrng_seed(&r, 11);
	for (i = 0; i < N_OF(counts); i++)
		counts[i] = 4 * poisson(&r, 5 * 15); /* 5 batches/s of 4 */
	rates_from_counts(counts, N_OF(counts), 4, 60, rates, &n);
	assert_int_equal(peak_estimate(rates, n, 15, 60, 16, &z, &raw), MODEL_OK);
	assert_true(raw > 3.4 && raw < 4.6);
	assert_true(fabs(z - raw) < 1e-12);
}

/* A linear ramp adds nothing: second differences cancel it.  The same
 * Poisson noise on a steep ramp reads as it does on a flat rate. */
static void test_ramp(void **state)
{
	static double counts[1200], rates[1200];
	struct simrng r;
	double z = 0, raw = 0;
	size_t i, n;

	(void)state;
	simrng_seed(&r, 3);
	for (i = 0; i < N_OF(counts); i++)
		counts[i] = poisson(&r, (10 + 0.05 * (double)i) * 15);
	rates_from_counts(counts, N_OF(counts), 4, 60, rates, &n);
	assert_int_equal(peak_estimate(rates, n, 15, 60, 16, &z, &raw), MODEL_OK);
	assert_true(raw > 0.8 && raw < 1.25);

	/* Without noise at all, a ramp gives exactly 0 (clamped to 1). */
	for (i = 0; i < 100; i++)
		rates[i] = 5 + 0.5 * (double)i;
	assert_int_equal(peak_estimate(rates, 100, 15, 60, 16, &z, &raw), MODEL_OK);
	assert_true(fabs(raw) < 1e-9);
	assert_true(z == PEAK_MIN);
}

/* The lag is ceil(window / step): windows of 90 s on a 60 s step are two
 * steps apart.  A hand-worked series: values alternate a, b with period 2
 * steps of lag, so every second difference is known. */
static void test_hand_worked(void **state)
{
	double v[20], z = 0, raw = 0;
	size_t i;

	(void)state;
	/* window 60, step 15: j = 4.  v[k] = 10 + 2 (-1)^(k / 4): every
	 * d = v[k] - 2 v[k-4] + v[k-8] is 10+-2 - 2(10-+2) + 10+-2 = +-8,
	 * so mean(d^2) = 64, mean(v) = 10 (n = 16, balanced):
	 * z = 60 * 64 / (6 * 10) = 64. */
	for (i = 0; i < 16; i++)
		v[i] = 10 + ((i / 4) % 2 ? -2 : 2);
	assert_int_equal(peak_estimate(v, 16, 15, 60, 16, &z, &raw), MODEL_OK);
	assert_true(fabs(raw - 64) < 1e-9);
	assert_true(z == 16);
	assert_int_equal(peak_estimate(v, 16, 15, 60, 100, &z, &raw), MODEL_OK);
	assert_true(fabs(z - 64) < 1e-9);

	/* window 90, step 60: j = 2, and 2 j + 8 = 12 points needed: with 11
	 * there are 7 differences, too few: the estimate is 1. */
	for (i = 0; i < 12; i++)
		v[i] = 10 + (i % 2 ? 1 : 0);
	assert_int_equal(peak_estimate(v, 11, 60, 90, 16, &z, &raw), MODEL_OK);
	assert_true(isnan(raw) && z == 1);
	assert_int_equal(peak_estimate(v, 12, 60, 90, 16, &z, &raw), MODEL_OK);
	/* d = v[k] - 2 v[k-2] + v[k-4] = 0 for a period-2 pattern. */
	assert_true(fabs(raw) < 1e-12);
}

/* Too few arrivals per window to say anything: 1. */
static void test_sparse(void **state)
{
	double v[40], z = 0, raw = 0;
	size_t i;

	(void)state;
	for (i = 0; i < N_OF(v); i++)
		v[i] = i % 7 == 0 ? 0.1 : 0; /* ~ one arrival per window */
	assert_int_equal(peak_estimate(v, N_OF(v), 15, 60, 16, &z, &raw), MODEL_OK);
	assert_true(z == 1 && isnan(raw));
}

/*
 * Poisson arrivals read as staffer reads them (points of 60-s rates 15 s
 * apart, np of them: a span of (np - 1) 15 s), over many draws: the
 * readings' relative spread, and the shares read above 1 as they are and
 * at their low end (peak_lower()).
 */
static void poisson_readings(struct simrng *r, size_t np, size_t runs,
			     double *spread, double *above, double *low_above)
{
	static double counts[84], rates[84];
	double z, raw, sum = 0, sq = 0, mean;
	size_t i, k, n, up = 0, low_up = 0;

	assert_true(np + 3 <= N_OF(counts));
	for (k = 0; k < runs; k++) {
		for (i = 0; i < np + 3; i++)
			counts[i] = poisson(r, 20 * 15);
		rates_from_counts(counts, np + 3, 4, 60, rates, &n);
		assert_int_equal(n, np);
		assert_int_equal(peak_estimate(rates, n, 15, 60, 16, &z, &raw),
				 MODEL_OK);
		sum += raw;
		sq += raw * raw;
		up += raw > 1;
		low_up += peak_lower(raw, n, 15, 60) > 1;
	}
	mean = sum / (double)runs;
	assert_true(mean > 0.95 && mean < 1.05);
	*spread = sqrt(sq / (double)runs - mean * mean) / mean;
	*above = (double)up / (double)runs;
	*low_above = (double)low_up / (double)runs;
}

/*
 * The low end of the estimate (peak_lower()).  Its premise, measured: on
 * Poisson arrivals the readings spread by about sqrt(2 w / span) of their
 * mean, 0.447 over the default 600 s (41 points) and 0.316 over 1200 s
 * (81), so that half of them would be read above 1 and taken as
 * burstiness; at the low end about one in seven (docs/math.md).
 */
static void test_lower(void **state)
{
	static const size_t np[] = { 41, 81 };
	struct simrng r;
	double spread, above, low_above, want;
	size_t i;

	(void)state;
	/* by hand: 2 / (1 + sqrt(2 * 60 / 600)) = 1.38197 */
	assert_true(fabs(peak_lower(2, 41, 15, 60) - 1.381966) < 1e-6);
	/* a longer span, a narrower interval */
	assert_true(peak_lower(2, 81, 15, 60) > peak_lower(2, 41, 15, 60));
	simrng_seed(&r, 11);
	for (i = 0; i < N_OF(np); i++) {
		poisson_readings(&r, np[i], 2000, &spread, &above, &low_above);
		want = sqrt(2 * 60 / ((double)(np[i] - 1) * 15));
		assert_true(spread > want * 0.85 && spread < want * 1.15);
		assert_true(above > 0.4);
		assert_true(low_above > 0.1 && low_above < 0.2);
	}

	assert_true(isnan(peak_lower(NAN, 41, 15, 60)));
	assert_true(isnan(peak_lower(0, 41, 15, 60)));
	assert_true(isnan(peak_lower(2, 1, 15, 60)));
	assert_true(isnan(peak_lower(2, 41, 0, 60)));
	assert_true(isnan(peak_lower(2, 41, 15, INFINITY)));
	assert_true(isnan(peak_lower(INFINITY, 41, 15, 60)));
}

static void test_invalid(void **state)
{
	double v[20] = { 0 }, z = 42, raw = 42;

	(void)state;
	assert_int_equal(peak_estimate(NULL, 20, 15, 60, 16, &z, &raw),
			 MODEL_EINVAL);
	assert_int_equal(peak_estimate(v, 20, 0, 60, 16, &z, &raw), MODEL_EINVAL);
	assert_int_equal(peak_estimate(v, 20, 15, NAN, 16, &z, &raw),
			 MODEL_EINVAL);
	assert_int_equal(peak_estimate(v, 20, INFINITY, 60, 16, &z, &raw),
			 MODEL_EINVAL);
	v[3] = -1;
	assert_int_equal(peak_estimate(v, 20, 15, 60, 16, &z, &raw), MODEL_EINVAL);
	v[3] = NAN;
	assert_int_equal(peak_estimate(v, 20, 15, 60, 16, &z, &raw), MODEL_EINVAL);
	v[3] = 0;
	assert_int_equal(peak_estimate(v, 20, 15, 60, 0.5, &z, &raw),
			 MODEL_EINVAL);
	assert_int_equal(peak_estimate(v, 20, 15, 60, INFINITY, &z, &raw),
			 MODEL_EINVAL);
	assert_true(z == 42 && raw == 42);
	assert_int_equal(peak_estimate(v, 20, 15, 60, 16, NULL, &raw),
			 MODEL_EINVAL);
	/* A step so short that the lag is beyond any size_t (1e-300 s,
	 * calc's stepSeconds): too short to measure, no conversion */
	{
		double w[20];
		size_t i;

		for (i = 0; i < 20; i++)
			w[i] = 10 + (double)(i % 3);
		assert_int_equal(peak_estimate(w, 20, 1e-300, 60, 16, &z,
					       &raw), MODEL_OK);
		assert_true(z == 1 && isnan(raw));
	}
	/* Huge values overflow the squares: as bursty as it gets. */
	v[10] = 1e300;
	assert_int_equal(peak_estimate(v, 20, 15, 60, 16, &z, &raw), MODEL_OK);
	assert_true(z == 16);
}

static void test_promql_range(void **state)
{
	static const struct {
		const char *q;
		int found;
		double s;
	} cases[] = {
		{ "sum(rate(x[1m]))", 1, 60 },
		{ "sum(rate(x[30s])) + sum(rate(y[2m]))", 1, 120 },
		{ "max_over_time(sum(rate(x[30s]))[5m:1m])", 1, 300 },
		{ "max_over_time(sum(rate(x[30s]))[5m:])", 1, 300 },
		{ "rate(x[1h30m])", 1, 5400 },
		{ "rate(x[1d])", 1, 86400 },
		{ "rate(x[1w])", 1, 604800 },
		{ "rate(x[1y])", 1, 31536000 },
		{ "rate(x[500ms])", 1, 0.5 },
		{ "rate(x[1m30s500ms])", 1, 90.5 },
		{ "rate(x[ 2m ])", 1, 120 },
		/* brackets inside strings and comments are not ranges */
		{ "sum(rate(x{path=~\"/v1/[a-z]+\"}[1m]))", 1, 60 },
		{ "sum(rate(x{path=~'[9h]'}[1m]))", 1, 60 },
		{ "sum(rate(x{path=~`[9h]`}[1m]))", 1, 60 },
		{ "sum(rate(x{a=\"\\\"[9h]\"}[1m]))", 1, 60 },
		{ "# rate(x[9h])\nsum(rate(x[1m]))", 1, 60 },
		/* none */
		{ "job:requests:rate1m", 0, 0 },
		{ "sum(gateway_queue_depth)", 0, 0 },
		{ "vector(0)", 0, 0 },
		{ "", 0, 0 },
		{ "rate(x[])", 0, 0 },
		{ "rate(x[m])", 0, 0 },
		{ "rate(x[1])", 0, 0 },
		{ "rate(x[1m1h])", 0, 0 },  /* out of order */
		{ "rate(x[1m1m])", 0, 0 },  /* twice */
		{ "rate(x[1ms1s])", 0, 0 },
		{ "rate(x[1q])", 0, 0 },
		{ "rate(x[1m", 0, 0 },
		{ "rate(x[9999999999999m])", 0, 0 }, /* too many digits */
		{ "x{a=\"[1m]", 0, 0 },     /* unterminated string */
	};
	size_t i;

	(void)state;
	for (i = 0; i < N_OF(cases); i++) {
		double out = -7;
		int r = promql_range_max(cases[i].q, &out);

		if (r != cases[i].found || (r && fabs(out - cases[i].s) > 1e-9) ||
		    (!r && out != -7)) {
			print_error("'%s': got %d %g, want %d %g\n", cases[i].q,
				    r, out, cases[i].found, cases[i].s);
			fail();
		}
	}
	assert_int_equal(promql_range_max(NULL, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_poisson),
		cmocka_unit_test(test_batches),
		cmocka_unit_test(test_ramp),
		cmocka_unit_test(test_hand_worked),
		cmocka_unit_test(test_sparse),
		cmocka_unit_test(test_lower),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_promql_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
