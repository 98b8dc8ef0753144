/*
 * feedback.h - the SLO correction: the model's answer scaled up when the
 * measured waits say it is short.
 *
 * The model is feed-forward: it is as right as W, slotsPerReplica and the
 * headroom are, and in production they drift (a new engine version,
 * prefix caching, a gateway that balances imperfectly).  The share of
 * requests that waited longer than the wait SLA, m (slaMissQuery, a rate
 * over the gateway's wait histogram), says when the fleet was too small.
 * With the allowance a = 1 - slaTarget, at each point of the series
 *
 *   e = clamp((m - a/2) / (a/2), 0, FEEDBACK_GROW_MAX)
 *
 * (misses above half the allowance), g = the mean of e over the
 * FEEDBACK_TAU_UP_S before the point (exponentially weighted), and
 *
 *   c = min(exp(FEEDBACK_GAIN_UP x max of g over the window), FEEDBACK_MAX)
 *
 * The model's total slots are multiplied by c >= 1.
 *
 * Why this shape.  The correction is a function of the miss share's
 * history only, read with one range query on every call, so every staffer
 * pod and a restarted one compute the same c with no memory.  Taking the
 * highest g of the window keeps a need once shown for the window (an hour
 * by default) instead of letting the correction decay the moment the
 * misses it caused stop, which would bring them back; after a window
 * without misses c is 1 again: "shrinks back towards the model's own
 * answer".  It never goes below 1: below the fleet's need the misses rise
 * as a cliff, with no slope to stop at, so the evidence of no misses
 * cannot tell how much capacity is spare, and each probe below the need
 * costs a cold start of queueing (docs/math.md has the measurement).
 *
 * Two kinds of points are no evidence of a biased model and are left out:
 * points without a miss share (no requests: 0/0), and points where the
 * arrival rate had risen by more than FEEDBACK_RISE over the horizon
 * before them (a cold start plus the metrics lag): then the fleet was
 * catching up with demand, which the forecast and the drain answer for.
 * Nothing winds up: the window forgets, and FEEDBACK_MAX bounds c.
 *
 * Pure: no I/O, no logging, no allocation, no state; thread-safe.
 */
#ifndef STAFFER_FEEDBACK_H
#define STAFFER_FEEDBACK_H

#include <stddef.h>

#include "model.h"

#define FEEDBACK_MAX 2.0          /* the ceiling of the correction */
#define FEEDBACK_GROW_MAX 2.0     /* e at most: m = 1.5 a */
#define FEEDBACK_GAIN_UP 1.0      /* e = ln 1.3 holds c at 1.3 */
#define FEEDBACK_TAU_UP_S 600.0   /* the mean's time constant */
#define FEEDBACK_RISE 0.1         /* demand up 10 % over the horizon */

/* What the correction was made of, for calc, explain and the logs. */
struct feedback_info {
	size_t used;         /* points of the window with evidence */
	size_t rising;       /* points left out: demand was rising */
	size_t empty;        /* points left out: no miss share */
	double miss_mean;    /* the mean miss share of the used points */
	double u;            /* ln c before the ceiling */
};

/*
 * The correction c from the miss share miss[0..n-1] (oldest first, the
 * last one now, step_s apart; a value that is not finite or outside
 * [0, 1] is "no miss share") and the arrival rate rate[0..n-1] at the
 * same times (finite, >= 0; NULL: no point is left out as rising), over
 * the last window_s of them (points before the window only warm the mean
 * up), with the allowance (0 < allowance < 1) and the horizon_s (>= 0) of
 * the rising test.  Without points with evidence c is 1.  On MODEL_OK
 * stores c in *out and the details in *info (may be NULL); MODEL_EINVAL
 * for bad arguments (out NULL, miss NULL with n > 0, step_s or window_s
 * not finite and > 0, allowance or horizon_s out of range, a rate
 * negative or not finite), outputs untouched.
 */
enum model_err feedback_correction(const double *miss, const double *rate,
				   size_t n, double step_s, double window_s,
				   double allowance, double horizon_s,
				   double *out, struct feedback_info *info);

#endif
