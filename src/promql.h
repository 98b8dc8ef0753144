/*
 * promql.h - what staffer reads from a PromQL expression's text.
 *
 * Not a parser: the backend judges PromQL.  This only finds the range
 * selectors and subqueries ("[1m]", "[5m:30s]") outside string literals and
 * comments, to learn the rate window a query averages over (the metrics
 * lag of the scale-down hold, the timescale of the peakedness estimate),
 * and guesses whether a query returns one series (lint's warning).
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

/*
 * 1 unless query is sure to be able to return several series, for
 * `staffer lint`'s warning on a trigger that must return one number.
 * A heuristic, not a PromQL parser: a query is taken to return one series
 * when every operand at its top level (between binary operators, outside
 * brackets) is
 *   - a number or a string;
 *   - an aggregation that collapses to one series: sum, avg, min, max,
 *     count, group, stddev, stdvar or quantile, without `by` or `without`
 *     (`by ()` and `by (le)`, histogram_quantile's form, are accepted);
 *   - vector(), scalar(), time(), absent() or absent_over_time();
 *   - a parenthesised expression, or a call of another function, whose
 *     arguments all pass these rules (clamp_min(sum(x), 0) passes,
 *     rate(x[1m]) does not).
 * The right side of `and` and `unless` does not count.  Anything it cannot
 * follow (a syntax error, nesting deeper than PROMQL_DEPTH) passes: the
 * backend judges PromQL, `staffer lint` only warns.
 */
int promql_one_series(const char *query);

#endif
