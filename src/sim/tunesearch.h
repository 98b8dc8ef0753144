/*
 * tunesearch.h - what `staffer tune` optimises, and how it searches.
 *
 * The split.  A history of span_s seconds is cut into a training part
 * and a held-out part, the last one: from TUNE_SPLIT_DAY_FROM_S (2 days)
 * on the held-out part is the last day (86400 s), below it the last sixth
 * of the span (so 6 h of history hold out the last hour).  Both are whole
 * steps.  Histories shorter than TUNE_MIN_SPAN_S (6 h) are too short to
 * recommend anything.
 *
 * The objective.  A configuration's outcome on a part is its attainment
 * (requests started within the SLA, of all requests) and its replica-hours.
 * x is better than y when
 *   - x reaches the target attainment and y does not; or
 *   - both reach it and x costs fewer hours, by more than margin_hours of
 *     y's (a relative margin); or
 *   - neither reaches it and x attains more, by more than margin_att; or
 *     they attain the same within margin_att and x costs fewer hours, by
 *     more than margin_hours.
 * So: the cheapest configuration that reaches the target, else the one
 * that comes closest; "by more than a margin" keeps differences within
 * the noise of one simulation from counting.  Outcomes that failed to
 * simulate (valid 0) are worse than any valid one.
 *
 * The search.  A coordinate search from the current metadata: for each
 * tunable key in turn, every candidate value (and, from the second pass,
 * the current value) is simulated with the other keys at the incumbent's
 * values; the best of them replaces the incumbent's value only if it is
 * better than the incumbent by the margin.  Up to `passes` passes over
 * the keys, stopping after a pass that changed nothing.  A candidate
 * equal to the value in force (numerically, or the key's default when it
 * is absent) is not simulated again; neither is any configuration already
 * simulated.  At most 1 + passes * (sum of candidates + keys)
 * simulations; tune_search_bound() says how many.  Ties (nothing better
 * by the margin) keep the value in force, so the current metadata wins
 * every tie.  Deterministic: the order is the keys' and the values'.
 *
 * Pure: no I/O, no logging, no clocks; the evaluator is the caller's.
 */
#ifndef STAFFER_TUNESEARCH_H
#define STAFFER_TUNESEARCH_H

#include <stddef.h>
#include <stdint.h>

#define TUNE_SPLIT_DAY_FROM_S (2 * 86400.0)
#define TUNE_HOLDOUT_DAY_S 86400.0
#define TUNE_MIN_SPAN_S (6 * 3600.0)
#define TUNE_KEYS_MAX 8
#define TUNE_VALUES_MAX 8
#define TUNE_PASSES_MAX 4
#define TUNE_SIMS_MAX (1 + TUNE_PASSES_MAX * TUNE_KEYS_MAX * \
		       (TUNE_VALUES_MAX + 1))

/* The held-out seconds of a history of span_s seconds at step_s (whole
 * steps, at least one); 0 when span_s is below TUNE_MIN_SPAN_S or either
 * is not finite and > 0. */
double tune_holdout_s(double span_s, double step_s);

struct tune_score {
	int valid;               /* 0: the simulation failed */
	double attainment;       /* 0..1 */
	double hours;            /* replica-hours */
	uint64_t events;         /* scale events */
};

struct tune_goal {
	double target;           /* attainment to reach, (0, 1] */
	double margin_hours;     /* relative, e.g. 0.02 */
	double margin_att;       /* absolute, e.g. 0.001 */
};

/* 1 when x is better than y (above); with_margin 0 compares exactly. */
int tune_better(const struct tune_score *x, const struct tune_score *y,
		const struct tune_goal *g, int with_margin);

/* One tunable key: its name, its value as written (NULL: absent), the
 * default that stands for an absent value, and the candidates (strings
 * as they go into the metadata, borrowed). */
struct tune_key {
	const char *name;
	const char *current;
	const char *deflt;
	const char *values[TUNE_VALUES_MAX];
	size_t n;
};

/* Simulate the configuration whose key i has value values[i] (NULL: as
 * in the current metadata).  0 with *out set (valid 0 for a configuration
 * the metadata rules refuse), or -1 to stop the search (out of memory:
 * the caller keeps its own message). */
typedef int tune_eval_fn(void *arg, const char *const *values,
			 struct tune_score *out);

struct tune_result {
	const char *values[TUNE_KEYS_MAX]; /* the pick; NULL: current */
	struct tune_score pick, current;
	size_t sims;                       /* evaluations made */
	int changed;                       /* the pick differs */
};

/* The most evaluations tune_search makes for these keys and passes. */
size_t tune_search_bound(const struct tune_key *keys, size_t nkeys,
			 int passes);

/* Search (above).  nkeys <= TUNE_KEYS_MAX, passes 1..TUNE_PASSES_MAX.
 * 0 with *out set, or -1 when fn stopped it or the arguments are bad. */
int tune_search(const struct tune_key *keys, size_t nkeys,
		const struct tune_goal *g, int passes, tune_eval_fn *fn,
		void *arg, struct tune_result *out);

/* The same value: both numbers and equal, or the same text. */
int tune_same_value(const char *a, const char *b);

#endif
