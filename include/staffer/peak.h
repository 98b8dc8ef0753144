/*
 * peak.h - peakedness: how much burstier than Poisson the arrivals are.
 *
 * Square-root staffing sizes headroom for Poisson arrivals: in an
 * infinite-server system fed by a Poisson stream the busy slots have
 * variance equal to their mean L.  Real LLM traffic is burstier (sessions,
 * agents, batch clients), and the variance is z times the mean, z being
 * the stream's peakedness (Whitt, "Heavy-traffic approximations for
 * service systems with blocking", 1984; for G/GI/n the staffing rule
 * becomes c = L + beta * sqrt(z L)).  docs/math.md derives it.
 *
 * z is estimated from the range query the forecast already reads: rates
 * x[k] = rate(arrivals[w]) at step s, w the rate window.  Over one window
 * the count of a Poisson stream has variance = mean = x w, so the index of
 * dispersion of counts at that timescale is
 *     z = w Var(x) / mean(x).
 * A trend (a diurnal ramp) would count as variance, so the variance comes
 * from second differences of points one window apart,
 *     d[k] = x[k] - 2 x[k - j] + x[k - 2j],   j = ceil(w / s),
 * which cancel a linear trend and, the three windows being disjoint, have
 * variance 6 Var(x) for a stationary stream.  Hence
 *     z = w mean(d^2) / (6 mean(x)).
 *
 * Pure: no I/O, no logging, no allocation, no state; thread-safe.
 */
#ifndef STAFFER_PEAK_H
#define STAFFER_PEAK_H

#include <stddef.h>

#include "model.h"

/* Fewer second differences than this, or fewer arrivals per window on
 * average than PEAK_MIN_COUNT, say too little: the estimate is 1. */
#define PEAK_MIN_DIFFS 8
#define PEAK_MIN_COUNT 10.0

/* The floor of an estimate (metadata peakedness: auto): below 1 is
 * smoother than Poisson, which LLM traffic is not; a reading under 1 is
 * sampling noise.  The ceiling is the caller's (metadata peakednessMax):
 * far above it a burst is not noise to be covered by headroom but a change
 * of level, which the forecast and the hold follow. */
#define PEAK_MIN 1.0

/*
 * Estimate z from vals[0..n-1] (oldest first, step_s apart, every value
 * finite and >= 0), each a rate over window_s.  On MODEL_OK stores the
 * estimate clamped to [PEAK_MIN, max] in *out, and 1.0 when the series
 * says too little (see above); *raw_out (may be NULL) gets the unclamped
 * estimate, or NaN when there was too little.  MODEL_EINVAL for bad
 * arguments (step_s or window_s not finite and > 0, max not finite and
 * >= PEAK_MIN, a value negative or not finite, vals or out NULL); outputs
 * then untouched.
 */
enum model_err peak_estimate(const double *vals, size_t n, double step_s,
			     double window_s, double max, double *out,
			     double *raw_out);

/*
 * The low end of an estimate's one-standard-error interval:
 *     z / (1 + sqrt(2 w / span)),   span = (n - 1) step_s.
 * The squared second differences average over about span / w disjoint
 * windows, so their mean is a chi-square of m = span / w degrees of
 * freedom over m, whose relative standard error is sqrt(2 / m); the z
 * whose estimate's upper end is the reading is the one above.  On a
 * Poisson stream the reading's spread matches it (docs/math.md: 0.43 at
 * span 600 s and w 60 s, 0.30 at 1200 s; tests/unit/test_peak.c).  For a caller whose headroom
 * has no slope to spare at z = 1 (a prefill pool's sqrt(z - 1)), where
 * that noise would become headroom.  z as peak_estimate()'s raw reading;
 * NaN when any argument is not finite and > 0 or n < 2.  Pure.
 */
double peak_lower(double z, size_t n, double step_s, double window_s);

#endif
