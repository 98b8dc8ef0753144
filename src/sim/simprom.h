/*
 * simprom.h - the simulated Prometheus: scraped samples and the PromQL
 * functions the policies' queries use.
 *
 * A series keeps the last `cap` samples (time, value) in a ring; the
 * simulator appends one per scrape.  Queries evaluate at a time `now` and
 * see only samples at or before it, as Prometheus does:
 *  - simprom_rate: rate(x[w]) for a counter, Prometheus' extrapolatedRate
 *    (promql/functions.go): the samples in the left-open window
 *    (now - w, now] (Prometheus 3 range semantics), at least two of them,
 *    increase last - first with counter resets added back, extrapolated
 *    to each window edge when the edge is closer than 1.1 x the average
 *    sample spacing (else by half a spacing), the start extrapolation cut
 *    where the counter would reach zero, divided by w;
 *  - simprom_last: an instant selector on a gauge: the newest sample no
 *    older than the lookback (Prometheus' 5 minutes).
 * Both return 0 and the value, or -1 when the query would return no
 * series (too few samples): unknown, not zero.
 *
 * simprom_extrapolated_rate is the same arithmetic on plain arrays, for
 * tests.  No I/O, no globals; a series owns its arrays.
 */
#ifndef STAFFER_SIMPROM_H
#define STAFFER_SIMPROM_H

#include <stddef.h>

#define SIMPROM_LOOKBACK_S 300.0  /* instant-vector lookback */
#define SIMPROM_SAMPLES_MAX 100000 /* ring capacity bound */

struct simseries {
	double *t, *v;
	size_t cap, head, n;  /* samples live at (head - n .. head-1) mod cap */
};

/* Allocate a ring for cap samples (1 .. SIMPROM_SAMPLES_MAX); 0 or -1. */
int simseries_init(struct simseries *s, size_t cap);
void simseries_free(struct simseries *s);
/* Append a sample (times must not decrease); the oldest is dropped when
 * full. */
void simseries_add(struct simseries *s, double t, double v);

int simprom_rate(const struct simseries *s, double now, double window_s,
		 double *out);
int simprom_last(const struct simseries *s, double now, double *out);
/* max_over_time(s[window_s]) at now: the largest sample in (now -
 * window_s, now]; -1 when there is none. */
int simprom_max_over(const struct simseries *s, double now, double window_s,
		     double *out);
/* avg_over_time(s[window_s]) at now: the mean of the samples in (now -
 * window_s, now]; -1 when there is none. */
int simprom_avg_over(const struct simseries *s, double now, double window_s,
		     double *out);

/*
 * extrapolatedRate on n samples (t ascending) already selected for the
 * range [start, end]: is_counter handles resets and the zero cut,
 * is_rate divides by (end - start).  -1 when n < 2.
 */
int simprom_extrapolated_rate(const double *t, const double *v, size_t n,
			      double start, double end, int is_counter,
			      int is_rate, double *out);

#endif
