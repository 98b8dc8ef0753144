/*
 * smooth.h - asymmetric smoothing of the replica target over time.
 *
 * Scale-up takes effect at once.  Scale-down is rate-limited in time, not in
 * calls: the target drops by at most `step` replicas, and only when at least
 * `period_s` seconds have passed since the previous change (a drop, or a
 * rise: capacity just asked for is not surplus yet), however often KEDA
 * and the HPA ask.  A drop never skips more than one step in a single
 * evaluation, so a long quiet spell followed by a dip still costs one step.
 *
 * The state is plain data (the caller stores it per ScaledObject); no I/O,
 * no locking, no allocation.
 */
#ifndef STAFFER_SMOOTH_H
#define STAFFER_SMOOTH_H

#include <stdint.h>

struct smooth {
	int64_t target;      /* last answer, replicas */
	double last_down_s;  /* time of the last change (s, any epoch) */
	int primed;          /* 0 until the first evaluation */
	/* The answer hold (smooth_hold): the highest answer in each span of
	 * hold_s / SMOOTH_BUCKETS since hold_t0, span k in slot
	 * k % SMOOTH_SLOTS, the newest hold_k; answers seen since
	 * hold_since. */
	int hold_on;
	double hold_t0, hold_width, hold_since;
	int64_t hold_k;
	int64_t hold_max[9];  /* SMOOTH_SLOTS */
	/* The caller's, never read here: what the answers held rest on
	 * (decide.c: whether a peakedness was assumed, then measured). */
	int basis;
};

/* The hold's spans, and the slots that keep them: one more, so that the
 * spans kept always cover the whole hold. */
#define SMOOTH_BUCKETS 8
#define SMOOTH_SLOTS (SMOOTH_BUCKETS + 1)
#define SMOOTH_INIT { 0, 0.0, 0, 0, 0.0, 0.0, 0.0, 0, { 0 }, 0 }

void smooth_init(struct smooth *s);

/*
 * Feed one raw target at time now_s and return the smoothed target, which
 * is also stored in s->target.  The first call returns raw unchanged and
 * primes the state with last_down_s = now_s: a fresh process does not know
 * when the fleet last shrank, so its first drop waits one period.  Later,
 * a drop is allowed as soon as period_s has passed since the previous one,
 * so after a stable stretch of a period or more the first dip drops one
 * step at once.  step >= 1; period_s >= 0 (0 means no limit in time: one
 * step per call).  A clock that goes backwards is treated as no time
 * passing, and restarts the wait from now.
 */
int64_t smooth_step(struct smooth *s, int64_t raw, double now_s,
		    int64_t step, double period_s);

/*
 * Seed the state from an outside view of the current replica count (the
 * currentReplicasQuery) before smooth_step: the smoothed value then starts
 * from `current` instead of the process's own memory.  Used so that every
 * staffer pod, and a restarted one, answers the same.  Sets target =
 * current (negative counts as 0); primes an unprimed state as smooth_step
 * does, and keeps last_down_s of a primed one.
 */
void smooth_seed(struct smooth *s, int64_t current, double now_s);

/*
 * The answer hold: capacity is released only once the answers have
 * stayed below it for hold_s.  Records the answer and returns the
 * highest answer of the last hold_s (up to hold_s / SMOOTH_BUCKETS
 * more: the spans are whole), so an answer at or above every recent one
 * takes effect at once and a lower one only as the higher ones age out
 * (the HPA's scale-down stabilization, with the hold as its window).  A
 * hold_s that changes keeps the answers seen: by up to an eighth, under
 * the spans it has; by more, re-spanned (none released earlier than
 * under either length).  A state that has not seen a whole
 * hold of answers (a fresh process, or no call for longer than the hold)
 * knows only what it has seen: the caller holds on something else until
 * smooth_hold_ready()
 * (decide.c: the arrival rate's series).  hold_s <= 0: the answer itself.
 */
int64_t smooth_hold(struct smooth *s, int64_t answer, double now_s,
		    double hold_s);

/*
 * Forget the answers the hold remembers, but not that it has been
 * running: the next answer is what is held, and smooth_hold_ready() says
 * what it said.  For a caller whose answers so far rested on an
 * assumption a measurement has since shown too high (decide.c).
 */
void smooth_hold_forget(struct smooth *s);

/* 1 when s has seen answers for at least hold_s under that hold, the
 * last of them within it: its hold stands on its own. */
int smooth_hold_ready(const struct smooth *s, double now_s, double hold_s);

#endif
