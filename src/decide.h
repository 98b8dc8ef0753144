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

#include "meta.h"
#include "model.h"
#include "smooth.h"

struct decision {
	struct model_breakdown b;   /* every term of the model */
	int64_t raw;                /* the model's replicas (capped) */
	int64_t target;             /* after smoothing and the cap */
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

#endif
