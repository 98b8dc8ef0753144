/*
 * safety.h - safety stock: the arrival rate the series shows it can reach
 * within one lead time.
 *
 * A replica asked for now serves one lead time later (the cold start plus
 * the metrics lag).  What arrives meanwhile is not known, but the recent
 * history says how far the rate can rise over such a span: inventory
 * theory's safety stock, which covers demand over the replenishment lead
 * time at a stated service level.  From a range query of the arrival
 * rate, r[0..n) at step s:
 *
 *   level    l[i] = an exponentially weighted mean of r up to i, time
 *            constant tau (smooth: a burst moves it a little, a change
 *            of level moves it within a few tau);
 *   rise     u[i] = max(r[i+1 .. i+h]) / l[i], h = ceil(lead / s): how
 *            far above its level the rate went within one lead time;
 *   ratio    U    = the q-quantile of u over the history (nearest rank);
 *   value    min(l[n-1] x U, the highest r the rises read).
 *
 * Sizing for value covers the rate of the next lead time as often as the
 * history says q of such spans were covered, and it moves with the level,
 * not with every burst.  It is never more than the history's highest rate:
 * after an idle stretch the level decays towards 0 while staying above
 * it, so the rise before the next burst is huge, and l x U alone would
 * ask for many times any rate ever seen (a burst an hour asked for
 * millions of replicas).  Rises one lead time apart are about independent,
 * so the history must hold SAFETY_BEYOND / (1 - q) lead times of rises:
 * then at least SAFETY_BEYOND of them lie above the quantile, and one
 * rare event (a single step of traffic) cannot set it on its own.  With
 * less history there is no estimate.  docs/math.md derives and measures
 * it.
 *
 * Pure: no I/O, no logging, no allocation, no state; thread-safe.  The
 * quantile reads at most the newest SAFETY_POINTS_MAX rises; a lead time
 * of more than SAFETY_LEAD_MAX steps gets no estimate.
 */
#ifndef STAFFER_SAFETY_H
#define STAFFER_SAFETY_H

#include <stddef.h>

#include "model.h"

#define SAFETY_POINTS_MAX 2048
#define SAFETY_LEAD_MAX 256
#define SAFETY_BEYOND 2.0
#define SAFETY_MIN_RISES 30

struct safety {
	double level;      /* l now, req/s */
	double ratio;      /* U (may be below 1: the rate fell) */
	double value;      /* min(level x ratio, peak), req/s */
	double peak;       /* the highest rate the rises read, req/s */
	size_t rises;      /* how many rises the quantile read */
};

/*
 * From vals[0..n-1] (oldest first, step_s apart, finite and >= 0): lead_s
 * and tau_s > 0, q in (0, 1).  MODEL_OK with *out filled; MODEL_ERANGE
 * when the series is too short for q (see above, after the level's
 * warm-up of one tau) or its level is 0: *out untouched, no estimate;
 * MODEL_EINVAL for bad arguments.
 */
enum model_err safety_estimate(const double *vals, size_t n, double step_s,
			       double lead_s, double tau_s, double q,
			       struct safety *out);

#endif
