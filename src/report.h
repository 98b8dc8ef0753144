/*
 * report.h - one decision of the model, term by term, as text or JSON.
 *
 * `staffer calc` (the model on given numbers) and `staffer explain` (the
 * model on live metrics) print a decision the same way, through here: the
 * signals, the forecast, L = busy, headroom, drain, boost, the total, the
 * replicas and the activity, and the schedule window in force.  docs/
 * tuning.md reads these lines.
 *
 * Pure but for writing to the FILE it is given; no state; thread-safe.
 */
#ifndef STAFFER_REPORT_H
#define STAFFER_REPORT_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>

#include "forecast.h"
#include "meta.h"
#include "model.h"

/* What one decision is shown from.  Everything is borrowed. */
struct report {
	const struct meta *m;           /* the tuning in force */
	const struct model_signals *s;  /* the signals used */
	const struct model_breakdown *b;
	const char *lambda_note;        /* shown after lambda, or NULL */
	/* the forecast */
	const struct forecast *fc;      /* the one made, or NULL */
	double fc_step_s;               /* its series' spacing, s */
	size_t fc_points;               /* its series' length */
	const char *no_forecast;        /* why none, with coldStartSeconds */
	int series_off;                 /* a series, but coldStartSeconds 0 */
	/* the time of the decision, shown when m has a schedule */
	const char *when, *day, *zone;
	const char *window;             /* the window in force, or NULL */
};

/* The breakdown as calc prints it: one line a term, aligned. */
void report_text(FILE *fp, const struct report *r);

/* The same as members of JSON object o (calc's keys: arrival_rate,
 * busy_slots, replicas, ...).  0, or -1 when memory ran out (o may then
 * hold some of them). */
int report_json(cJSON *o, const struct report *r);

#endif
