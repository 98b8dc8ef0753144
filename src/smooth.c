/*
 * smooth.c - asymmetric smoothing of the replica target over time.
 *
 * The rule, in time rather than in calls: a drop is allowed when at least
 * period_s has passed since the previous drop, and then it is one step at
 * most.  Priming counts as a drop at the first evaluation: a fresh process
 * cannot know when the fleet last shrank, so it waits one period before its
 * first drop.  After that, a target that has been stable for a period or
 * more drops at once on the next dip (the previous drop is long past), and
 * then at most once per period.  A rise counts like a drop for the timer:
 * capacity asked for a moment ago is not surplus yet, so no drop comes
 * sooner than a period after the last change in either direction.  Drops happen at calls, so a caller whose
 * interval divides the period sees exactly the same staircase as a caller
 * asking every second; otherwise each stair lasts until the first call at
 * or after a full period.
 */
#include "smooth.h"

#include <math.h>

void smooth_init(struct smooth *s)
{
	s->target = 0;
	s->last_down_s = 0.0;
	s->primed = 0;
	s->hold_on = 0;
	s->basis = 0;
}

/* Start the clock at now: as if the fleet had just been scaled down. */
static void smooth_prime(struct smooth *s, double now_s)
{
	s->last_down_s = isfinite(now_s) ? now_s : 0.0;
	s->primed = 1;
}

/*
 * Seconds since the last drop, never negative.  A clock that went
 * backwards restarts the wait at now, so a backwards jump of an hour delays
 * the next drop by at most one period, not by an hour.  A non-finite now
 * means no time passed.
 */
static double smooth_elapsed(struct smooth *s, double now_s)
{
	if (!isfinite(now_s))
		return 0.0;
	if (now_s < s->last_down_s) {
		s->last_down_s = now_s;
		return 0.0;
	}
	return now_s - s->last_down_s;
}

int64_t smooth_step(struct smooth *s, int64_t raw, double now_s,
		    int64_t step, double period_s)
{
	/* Out-of-contract arguments get the nearest sane meaning. */
	if (raw < 0)
		raw = 0;
	if (step < 1)
		step = 1;
	if (!(period_s >= 0.0))
		period_s = 0.0;

	if (!s->primed) {
		smooth_prime(s, now_s);
		s->target = raw;
		return raw;
	}
	if (raw > s->target) {
		/* Capacity was just asked for: it is not surplus for at least a
		 * period, so the next drop waits a full period from now. */
		s->target = raw;
		if (isfinite(now_s))
			s->last_down_s = now_s;
		return raw;
	}
	if (raw == s->target)
		return raw;
	if (smooth_elapsed(s, now_s) >= period_s) {
		/* target > raw >= 0, so target - step cannot overflow. */
		s->target = s->target - step > raw ? s->target - step : raw;
		if (isfinite(now_s))
			s->last_down_s = now_s;
	}
	return s->target;
}

/* Spans of width a serve a hold of spans b when they differ by at most
 * an eighth: the hold is whole spans anyway (up to one more, smooth.h),
 * and a measured cold start that moves a little must not re-span the
 * answers on every call (each re-spanning keeps a span's highest a
 * little longer, which repeated would never age out). */
static int smooth_near(double a, double b)
{
	return fabs(a - b) <= b / SMOOTH_BUCKETS;
}

/* The same answers under spans of another width: each span's highest
 * goes to the new span holding that span's end (the latest it can have
 * been seen, so nothing is released earlier than under either width);
 * what is older than the new spans reach is dropped.  hold_since stays:
 * the answers were seen. */
static void smooth_rebucket(struct smooth *s, double width, double now_s)
{
	int64_t old[SMOOTH_SLOTS], j, kk, now_k, i;
	double ow = s->hold_width, kf;

	for (i = 0; i < SMOOTH_SLOTS; i++) {
		old[i] = s->hold_max[i];
		s->hold_max[i] = INT64_MIN;
	}
	now_k = (int64_t)floor((now_s - s->hold_t0) / width);
	for (j = s->hold_k - SMOOTH_SLOTS + 1; j <= s->hold_k; j++) {
		if (j < 0 || old[j % SMOOTH_SLOTS] == INT64_MIN)
			continue;
		kf = floor((double)(j + 1) * ow / width);
		kk = kf > (double)now_k ? now_k : (int64_t)kf;
		if (kk <= now_k - SMOOTH_SLOTS)
			continue;
		if (old[j % SMOOTH_SLOTS] > s->hold_max[kk % SMOOTH_SLOTS])
			s->hold_max[kk % SMOOTH_SLOTS] = old[j % SMOOTH_SLOTS];
	}
	s->hold_width = width;
	s->hold_k = now_k;
}

/* Spans counted since hold_t0 at most: exact in a double and an int64_t. */
#define SMOOTH_SPANS_MAX 1e15

int64_t smooth_hold(struct smooth *s, int64_t answer, double now_s,
		    double hold_s)
{
	double width = hold_s / SMOOTH_BUCKETS, kf;
	int64_t k, i, out = answer;
	int fresh;

	if (!(hold_s > 0) || !isfinite(now_s)) {
		s->hold_on = 0;
		return answer;
	}
	/* A first hold, a clock gone back before the newest span, nothing
	 * for a whole hold, or more spans since the first than an int64_t
	 * counts exactly (a hold shortened to a sliver: 1e-300 s is
	 * accepted): start afresh.  A hold that changes length (a measured
	 * cold start moves with every pod that starts) keeps what it has
	 * seen. */
	fresh = !s->hold_on ||
		(now_s - s->hold_t0) / s->hold_width < (double)s->hold_k ||
		(now_s - s->hold_t0) / s->hold_width - (double)s->hold_k >
		SMOOTH_SLOTS ||
		!((now_s - s->hold_t0) / width <= SMOOTH_SPANS_MAX);
	if (fresh) {
		s->hold_on = 1;
		s->hold_width = width;
		s->hold_t0 = now_s;
		s->hold_since = now_s;
		s->hold_k = 0;
		for (i = 0; i < SMOOTH_SLOTS; i++)
			s->hold_max[i] = INT64_MIN;
	} else {
		if (!smooth_near(s->hold_width, width))
			smooth_rebucket(s, width, now_s);
		width = s->hold_width;
	}
	kf = floor((now_s - s->hold_t0) / width);
	k = kf > (double)s->hold_k ? (int64_t)kf : s->hold_k;
	/* Spans that begin now (or were skipped) start empty. */
	for (i = s->hold_k + 1; i <= k && i <= s->hold_k + SMOOTH_SLOTS;
	     i++)
		s->hold_max[i % SMOOTH_SLOTS] = INT64_MIN;
	s->hold_k = k;
	if (answer > s->hold_max[k % SMOOTH_SLOTS])
		s->hold_max[k % SMOOTH_SLOTS] = answer;
	for (i = 0; i < SMOOTH_SLOTS; i++)
		if (s->hold_max[i] > out)
			out = s->hold_max[i];
	return out;
}

void smooth_hold_forget(struct smooth *s)
{
	int i;

	for (i = 0; i < SMOOTH_SLOTS; i++)
		s->hold_max[i] = INT64_MIN;
}

int smooth_hold_ready(const struct smooth *s, double now_s, double hold_s)
{
	return hold_s > 0 && s->hold_on &&
	       smooth_near(s->hold_width, hold_s / SMOOTH_BUCKETS) &&
	       now_s - s->hold_since >= hold_s &&
	       (now_s - s->hold_t0) / s->hold_width - (double)s->hold_k <=
	       SMOOTH_SLOTS;
}

void smooth_seed(struct smooth *s, int64_t current, double now_s)
{
	if (!s->primed)
		smooth_prime(s, now_s);
	s->target = current > 0 ? current : 0;
}
