/*
 * decide.h - one decision: signals, tuning and smoothing state in, the
 * replica target out.
 *
 * The single place where the model's raw answer meets smoothing and the
 * cap.  The server (scaler.c), `staffer calc` and `staffer simulate` all go
 * through it, so a decision replayed in the simulator is the decision the
 * server would have made.  Pure: no I/O, no logging, no allocation.
 */
#ifndef STAFFER_DECIDE_H
#define STAFFER_DECIDE_H

#include <stdint.h>

#include "forecast.h"
#include "meta.h"
#include "model.h"
#include "smooth.h"

#include <stddef.h>

struct decision {
	struct model_breakdown b;   /* every term of the model */
	int64_t raw;                /* the model's replicas (capped) */
	int64_t target;             /* after smoothing and the cap */
	int have_forecast;          /* decide_observations() made fc from */
	struct forecast fc;         /* the series (0 from decide*())  */
};

/*
 * Evaluate m's model on s at time now_s and smooth the result through st
 * (NULL: no smoothing, target = raw).  On success fills *out, updates *st
 * and returns MODEL_OK; on error returns the code and changes nothing.
 */
enum model_err decide(const struct meta *m, const struct model_signals *s,
		      double now_s, struct smooth *st, struct decision *out);

/*
 * The same decision smoothed from an outside view of the fleet instead of
 * a process's memory (metadata currentReplicasQuery), so that every staffer
 * pod, and a restarted one, gives the same answer:
 *   raw >= current              -> raw (scale up, or hold, at once)
 *   recent_max > current        -> current (the fleet shrank less than
 *                                  scaleDownPeriodSeconds ago: wait)
 *   otherwise                   -> max(raw, current - scaleDownStep)
 * current is the replica count now, recent_max the highest count seen over
 * the last scaleDownPeriodSeconds (both >= 0).  Errors as decide().
 */
enum model_err decide_observed(const struct meta *m,
			       const struct model_signals *s,
			       int64_t current, int64_t recent_max,
			       struct decision *out);

/*
 * What the server reads for one GetMetrics, already fetched: the whole
 * path from observations to the answer, shared by the server (scaler.c)
 * and the simulator (policy.c) so that neither can drift from the other.
 */
struct decide_obs {
	double arrival_rate;   /* lambda, req/s, >= 0 (negatives clamped) */
	double queue_depth;    /* Q, >= 0 */
	double shed_rate;      /* S, req/s, >= 0 */
	double w_measured;     /* serviceTimeQuery's answer; <= 0 or NaN: none */
	double w_last;         /* last good W; <= 0: none */
	const double *series;  /* arrivalRateQuery over forecastWindowSeconds, */
	size_t n_series;       /* evenly spaced, oldest first; n < 2: none */
	double series_step_s;
	int have_view;         /* currentReplicasQuery answered: */
	int64_t current;       /* replicas now */
	int64_t recent_max;    /* highest over scaleDownPeriodSeconds */
};

enum decide_err {
	DECIDE_OK = 0,
	DECIDE_ENOW,    /* W unknown while there is demand */
	DECIDE_EMODEL,  /* the model refused the signals (see *merr) */
};

/*
 * W is the measured value, else the last good one, else the serviceTime
 * metadata (0 when none and there is no demand).  The forecast comes from
 * the series when there is a W.  With have_view the decision is
 * decide_observed() and st (if any) is seeded with its answer, else it is
 * decide() through st.  On DECIDE_OK fills *sig (the signals used) and
 * *out; on DECIDE_EMODEL stores the model's code in *merr.
 */
enum decide_err decide_observations(const struct meta *m,
				    const struct decide_obs *o, double now_s,
				    struct smooth *st,
				    struct model_signals *sig,
				    struct decision *out,
				    enum model_err *merr);

#endif
