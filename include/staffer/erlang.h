/*
 * erlang.h - M/M/c queueing formulas.
 *
 * Erlang C is computed through the Erlang B recursion
 *   B(0) = 1,  B(k) = a B(k-1) / (k + a B(k-1)),
 *   C(c, a) = c B(c) / (c - a (1 - B(c))),
 * which is stable for thousands (millions) of servers; no factorials, no
 * powers.  Pure: no I/O, no logging, no allocation, thread-safe.
 *
 * a is the offered load in Erlangs (lambda * W, "busy slots"), c the number
 * of servers (slots).  W is the mean service time in seconds.
 */
#ifndef STAFFER_ERLANG_H
#define STAFFER_ERLANG_H

#include "model.h"

/* Erlang C: P(wait > 0) for c servers and offered load a.  Requires a >= 0
 * and c >= 1.  Returns 1.0 when a >= c (unstable queue).  Outside the
 * domain (also a above MODEL_SLOTS_MAX, or NaN) it returns NaN.  Costs
 * O(sqrt(a)) steps whatever c is (see erlang.c). */
double erlang_c(long c, double a);

/* P(wait > tau) = C(c, a) * exp(-(c - a) tau / W); 1.0 when a >= c.
 * NaN outside the domain of erlang_c, or for w <= 0 or tau < 0. */
double erlang_wait_tail(long c, double a, double w, double tau);

/*
 * Smallest integer c > a with P(wait > tau) <= eps.  Searches upward from
 * floor(a) + 1, extending the B recursion one step at a time (O(c) total).
 * a == 0 gives c = 0 (no demand, no servers).  Stores c in *out and returns
 * MODEL_OK; MODEL_EINVAL for bad arguments (w <= 0, tau <= 0, eps outside
 * (0, 1)); MODEL_ERANGE when c would exceed MODEL_SLOTS_MAX.
 */
enum model_err erlang_staff(double a, double w, double tau, double eps,
			    long *out);

/*
 * erlang_staff()'s c made continuous: the c where the tail, taken
 * geometrically between whole numbers of servers, meets eps.  Between
 * x0 = max(c - 1, a) (tail 1 at a: saturated) and c,
 *     c* = x0 + (c - x0) ln(t0 / eps) / ln(t0 / t_c),
 * so c* is in (c - 1, c] and ceil(c*) = c: the whole answer stands, and
 * a load a little under a step no longer reads as the whole step (a
 * caller's hysteresis then sees how far below c the load sits).  Stores
 * c* in *out; 0 for a == 0.  Errors as erlang_staff.
 */
enum model_err erlang_staff_frac(double a, double w, double tau, double eps,
				 double *out);

/*
 * Warm-capacity optimizer (seed 002): over whole replicas r (c = r * n
 * slots), the r minimising
 *   cost_per_hour * r + penalty_per_hour * P(wait > tau | c = r * n)
 * searching upward from the smallest stable r (r * n > a) and stopping once
 * the cost rises.  Stores c = r * n in *out.  a == 0 gives 0.  Errors as
 * erlang_staff, plus MODEL_EINVAL for n < 1 or cost_per_hour <= 0.
 */
enum model_err erlang_cost_staff(double a, double w, double tau, long n,
				 double cost_per_hour, double penalty_per_hour,
				 long *out);

#endif
