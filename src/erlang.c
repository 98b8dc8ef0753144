/*
 * erlang.c - M/M/c queueing formulas through the Erlang B recursion.
 *
 * Everything here walks the recursion
 *   B(0) = 1,  B(k) = a B(k-1) / (k + a B(k-1))
 * upward and turns B into Erlang C with C = c B / (c - a (1 - B)).  B stays
 * in [0, 1] at every step (a B / (k + a B) < 1 for k >= 1), so nothing can
 * overflow; for c far above a, B underflows to 0 (we flush it there, see
 * erlang_walk_to), which is the correct limit and ends the walk early.  No
 * factorials, no powers, no NaN.
 *
 * Skipping the bottom of the recursion.  With I(k) = 1 / B(k) the recursion
 * is linear, I(k) = 1 + (k / a) I(k-1), and I(k) = F(k) / p(k) where p and
 * F are the Poisson(a) pmf and cdf.  Starting at k0 from the guess B = 1
 * (I = 1) instead of the true value leaves a relative error in I(k) of
 * exactly F(k0 - 1) / F(k) for every k > k0.  For k > a, F(k) >= 1/2 (the
 * Poisson median is at least a - ln 2), and the Chernoff bound for the lower
 * Poisson tail gives F(a - t) <= exp(-t^2 / (2a)).  So starting at
 * k0 = a - 10 sqrt(a) gives a relative error below 2 exp(-50), ~4e-22,
 * far under double rounding, for every c > a.
 *
 * Cost.  One step is a multiply, an add and a divide.  From k0 to c is
 * 10 sqrt(a) + (c - a) steps.  Above a, B shrinks by a factor a / k per
 * step, so it leaves the normal range within ~39 sqrt(a) + 1100 steps
 * (exp(-m^2 / 2a) < DBL_MIN), and a zero B ends every walk and every
 * search (the tail is then 0).  So any call costs O(sqrt(a)) steps: at most
 * ~1.6 million (~10 ms) at the largest a we accept, MODEL_SLOTS_MAX, and
 * ~0.2 ms at a = 1e7.  A search that meets its target earlier stops
 * earlier.
 */
#include "erlang.h"

#include <float.h>
#include <math.h>
#include <stddef.h>

/* How many standard deviations below a the B walk starts (see above). */
#define ERLANG_SKIP_SIGMAS 10.0

/* A running position of the B recursion: B(k) for offered load a. */
struct erlang_walk {
	double a;
	long k;
	double b;
};

/*
 * Position w at the first k worth computing for load a (0 < a <=
 * MODEL_SLOTS_MAX): k0 = floor(a - 10 sqrt(a)) with B taken as 1, or the
 * exact start B(0) = 1 for small a.
 */
static void erlang_walk_start(struct erlang_walk *w, double a)
{
	double k0 = floor(a - ERLANG_SKIP_SIGMAS * sqrt(a));

	w->a = a;
	w->k = k0 > 0 ? (long)k0 : 0;
	w->b = 1.0;
}

/*
 * Advance w to k = c (c >= w->k); stops early once B reaches 0.  B is
 * flushed to 0 as soon as it leaves the normal range: a subnormal B can
 * stick at the smallest subnormal (a B / k rounds back to it while k < 2a),
 * which would turn a walk of O(sqrt(a)) steps into one of O(a) steps, each
 * slow.  The probabilities lost are below 1e-298 (c <= 1e9 times DBL_MIN).
 */
static void erlang_walk_to(struct erlang_walk *w, long c)
{
	double a = w->a, b = w->b;
	long k;

	for (k = w->k + 1; k <= c && b > 0.0; k++) {
		double ab = a * b;

		b = ab / ((double)k + ab);
		if (b < DBL_MIN)
			b = 0.0;
	}
	w->k = c;
	w->b = b;
}

/* Erlang C from B(c); requires c > a. */
static double erlang_c_from_b(long c, double a, double b)
{
	double dc = (double)c;

	/* c - a (1 - b) >= c - a > 0, so no division by zero. */
	return dc * b / (dc - a * (1.0 - b));
}

/* P(wait > tau) from B(c); requires c > a, w > 0, tau >= 0. */
static double erlang_tail_from_b(long c, double a, double b, double w,
				 double tau)
{
	double dc = (double)c;

	return erlang_c_from_b(c, a, b) * exp(-(dc - a) * tau / w);
}

/* a is an offered load we can work with: finite, >= 0, bounded. */
static int erlang_load_ok(double a)
{
	return a >= 0.0 && a <= MODEL_SLOTS_MAX;
}

/*
 * Outside the domain (c < 1, a negative, NaN or above MODEL_SLOTS_MAX) the
 * answer is NaN: there is no error channel, and NaN cannot be mistaken for
 * a probability.
 */
double erlang_c(long c, double a)
{
	struct erlang_walk w;

	if (c < 1 || !erlang_load_ok(a))
		return NAN;
	if (a >= (double)c)
		return 1.0;
	if (a == 0.0)
		return 0.0;
	erlang_walk_start(&w, a);
	erlang_walk_to(&w, c);
	return erlang_c_from_b(c, a, w.b);
}

/* NaN outside the domain, as erlang_c, and also for w <= 0 or tau < 0. */
double erlang_wait_tail(long c, double a, double w, double tau)
{
	double pc;

	if (!(w > 0.0) || !isfinite(w) || !(tau >= 0.0) || !isfinite(tau))
		return NAN;
	pc = erlang_c(c, a);
	if (isnan(pc) || pc >= 1.0)
		return pc;
	return pc * exp(-((double)c - a) * tau / w);
}

/* Arguments shared by both searches. */
static int erlang_search_args_ok(double a, double w, double tau,
				 const long *out)
{
	return out != NULL && a >= 0.0 && isfinite(a) &&
	       w > 0.0 && isfinite(w) && tau > 0.0 && isfinite(tau);
}

/*
 * The walk moves one step per candidate c, so the whole search is one pass
 * of the recursion.  It ends: the tail falls with c and reaches exactly 0
 * once B underflows (see the cost note at the top).
 */
enum model_err erlang_staff(double a, double w, double tau, double eps,
			    long *out)
{
	struct erlang_walk walk;
	long c;

	if (!erlang_search_args_ok(a, w, tau, out) ||
	    !(eps > 0.0 && eps < 1.0))
		return MODEL_EINVAL;
	if (a == 0.0) {
		*out = 0;
		return MODEL_OK;
	}
	if (!(floor(a) + 1.0 <= MODEL_SLOTS_MAX))
		return MODEL_ERANGE;

	c = (long)floor(a) + 1;
	erlang_walk_start(&walk, a);
	for (;;) {
		erlang_walk_to(&walk, c);
		if (erlang_tail_from_b(c, a, walk.b, w, tau) <= eps)
			break;
		if ((double)c + 1.0 > MODEL_SLOTS_MAX)
			return MODEL_ERANGE;
		c++;
	}
	*out = c;
	return MODEL_OK;
}

enum model_err erlang_staff_frac(double a, double w, double tau, double eps,
				 double *out)
{
	enum model_err e;
	double x0, l0, lc, f;
	long c;

	if (!out)
		return MODEL_EINVAL;
	e = erlang_staff(a, w, tau, eps, &c);
	if (e != MODEL_OK)
		return e;
	if (c == 0) {
		*out = 0;
		return MODEL_OK;
	}
	x0 = (double)(c - 1) > a ? (double)(c - 1) : a;
	l0 = x0 > a ? log(erlang_wait_tail(c - 1, a, w, tau)) : 0.0;
	lc = log(erlang_wait_tail(c, a, w, tau));
	/* l0 > log(eps) >= lc; a tail underflowed to 0 (lc -inf) or no
	 * gap (lc == l0, unreachable) leaves c itself */
	f = l0 > lc && isfinite(lc) ? (l0 - log(eps)) / (l0 - lc) : 1.0;
	if (!(f > 0.0) || f > 1.0)
		f = 1.0;
	*out = x0 + ((double)c - x0) * f;
	return MODEL_OK;
}

/*
 * Work with cost / cost_per_hour = r + (penalty / cost) P: the same
 * minimiser, and it cannot overflow (r <= 1e9, P <= 1).  The cost is convex
 * in r (Erlang C is convex and decreasing in c, and so is the exponential
 * factor; so is their product), hence the first rise marks the minimum.
 * Ties keep the smaller r.  Once the tail underflows to 0 the cost is r, and
 * it rises at the next step, so the loop is bounded like erlang_staff's.
 */
enum model_err erlang_cost_staff(double a, double w, double tau, long n,
				 double cost_per_hour, double penalty_per_hour,
				 long *out)
{
	struct erlang_walk walk;
	double ratio, best_cost, r;
	long best_r;

	if (!erlang_search_args_ok(a, w, tau, out) || n < 1 ||
	    !(cost_per_hour > 0.0) || !isfinite(cost_per_hour) ||
	    !(penalty_per_hour >= 0.0) || !isfinite(penalty_per_hour))
		return MODEL_EINVAL;
	if (a == 0.0) {
		*out = 0;
		return MODEL_OK;
	}
	/* Smallest r with r n > a, computed in double so nothing overflows. */
	r = floor(a / (double)n) + 1.0;
	if (r > 1.0 && (r - 1.0) * (double)n > a)
		r -= 1.0;
	if (r * (double)n <= a)
		r += 1.0;
	if (!(r * (double)n <= MODEL_SLOTS_MAX))
		return MODEL_ERANGE;

	/* Clamped so that ratio * 0 stays 0 when the quotient overflows. */
	ratio = fmin(penalty_per_hour / cost_per_hour, DBL_MAX);
	best_r = -1;
	best_cost = 0.0;
	erlang_walk_start(&walk, a);
	for (;;) {
		long c = (long)r * n;
		double cost;

		erlang_walk_to(&walk, c);
		cost = r + ratio * erlang_tail_from_b(c, a, walk.b, w, tau);
		if (best_r < 0 || cost < best_cost) {
			best_r = (long)r;
			best_cost = cost;
		} else if (cost > best_cost) {
			break;
		}
		if ((r + 1.0) * (double)n > MODEL_SLOTS_MAX)
			return MODEL_ERANGE;
		r += 1.0;
	}
	*out = best_r * n;
	return MODEL_OK;
}
