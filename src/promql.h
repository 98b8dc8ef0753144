/*
 * promql.h - what staffer reads from a PromQL expression's text.
 *
 * Not a parser: the backend judges PromQL.  This only finds the range
 * selectors and subqueries ("[1m]", "[5m:30s]") outside string literals and
 * comments, to learn the rate window a query averages over (the metrics
 * lag of the scale-down hold, the timescale of the peakedness estimate).
 *
 * Pure: no I/O, no allocation, no state; thread-safe.
 */
#ifndef STAFFER_PROMQL_H
#define STAFFER_PROMQL_H

/*
 * The longest range in query, in seconds: "sum(rate(x[1m]))" gives 60,
 * "max_over_time(rate(x[30s])[5m:1m])" 300.  Durations are Prometheus'
 * ("1h30m", "90s", "500ms"; units y w d h m s ms, each at most once, in
 * that order).  Returns 1 and stores the seconds when there is at least one
 * range; 0 when there is none (a recording rule, an instant vector) or a
 * bracket holds something else; *out is then untouched.
 */
int promql_range_max(const char *query, double *out);

#endif
