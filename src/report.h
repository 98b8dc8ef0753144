/*
 * report.h - one decision, term by term, as text or JSON.
 *
 * `staffer calc` (the model on given numbers) and `staffer explain` (the
 * model on live metrics) print a decision the same way, through here: the
 * signals, what the arrival rate series says (forecast, hold, peakedness),
 * L = busy, headroom, drain, boost, the total, the model's replicas, the
 * scale-down and the answer, the activity, and the schedule window in
 * force.  docs/tuning.md reads these lines.
 *
 * Pure but for writing to the FILE it is given; no state; thread-safe.
 */
#ifndef STAFFER_REPORT_H
#define STAFFER_REPORT_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>

#include "decide.h"
#include "meta.h"
#include "model.h"

/* What one decision is shown from.  Everything is borrowed. */
struct report {
	const struct meta *m;           /* the tuning in force */
	const struct model_signals *s;  /* the signals used */
	const struct decision *d;       /* the decision */
	const struct decide_obs *o;     /* what it was made from */
	const char *lambda_note;        /* shown after lambda, or NULL */
	const char *no_series;          /* why there is no series though
					 * one was wanted, or NULL */
	/* the time of the decision, shown when m has a schedule */
	const char *when, *day, *zone;
	const char *window;             /* the window in force, or NULL */
};

/* The decision as calc prints it: one line a term, aligned. */
void report_text(FILE *fp, const struct report *r);

/* The same as members of JSON object o (calc's keys: arrival_rate,
 * busy_slots, replicas, target, ...).  0, or -1 when memory ran out (o may
 * then hold some of them). */
int report_json(cJSON *o, const struct report *r);

#endif
