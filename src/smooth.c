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

void smooth_seed(struct smooth *s, int64_t current, double now_s)
{
	if (!s->primed)
		smooth_prime(s, now_s);
	s->target = current > 0 ? current : 0;
}
