/*
 * model.c - signals in, replica count out (docs/math.md).
 *
 * Pure arithmetic on validated inputs.  Every intermediate is checked
 * against MODEL_SLOTS_MAX before it is used, so the only values that reach
 * the rounding are finite and bounded; overflow to infinity along the way
 * compares as "too large".  Too large is MODEL_ERANGE, unless a cap answers
 * for it (model_beyond).
 */
#include "model.h"

#include <math.h>
#include <stddef.h>

#include "erlang.h"

/* model_ceil forgives this much relative noise above an integer.  The terms
 * are sums and products of a handful of doubles, each good to ~1e-16, so
 * 1e-9 is far above the noise and far below anything meaningful.  The
 * absolute cap keeps it so near MODEL_SLOTS_MAX, where 1e-9 relative would
 * be a whole replica; it is still ~10 ulps there. */
#define MODEL_CEIL_RTOL 1e-9
#define MODEL_CEIL_ATOL_MAX 1e-6

void model_params_init(struct model_params *p)
{
	p->slots_per_replica = 1;
	p->staffing = MODEL_STAFF_SQRT;
	p->beta = MODEL_BETA_DEFAULT;
	p->target_wait_s = 0.0;    /* unset: erlangc and cost require it */
	p->wait_probability = 0.0; /* unset: erlangc requires it */
	p->drain_s = MODEL_DRAIN_S_DEFAULT;
	p->shed_threshold = 0.0;
	p->boost_factor = MODEL_BOOST_DEFAULT;
	p->cost_per_replica_hour = 0.0;
	p->sla_penalty_per_hour = 0.0;
	p->max_replicas = 0;
	p->activation_arrival_rate = 0.0;
	p->erlang_frac = 0;
	p->ablate = 0;
}

/* finite and >= 0 (false for NaN). */
static int model_nonneg(double x)
{
	return x >= 0.0 && isfinite(x);
}

static int model_params_ok(const struct model_params *p)
{
	if (p->slots_per_replica < 1 ||
	    (double)p->slots_per_replica > MODEL_SLOTS_MAX)
		return 0;
	if (!model_nonneg(p->beta) || !model_nonneg(p->target_wait_s) ||
	    !model_nonneg(p->wait_probability) ||
	    !model_nonneg(p->shed_threshold) ||
	    !model_nonneg(p->boost_factor) ||
	    !model_nonneg(p->cost_per_replica_hour) ||
	    !model_nonneg(p->sla_penalty_per_hour) ||
	    !model_nonneg(p->activation_arrival_rate))
		return 0;
	if (!(p->drain_s > 0.0) || !isfinite(p->drain_s))
		return 0;
	if (p->max_replicas < 0)
		return 0;

	/* Staffing-specific requirements; the rest may stay unset (0). */
	switch (p->staffing) {
	case MODEL_STAFF_SQRT:
	case MODEL_STAFF_NONE:
		return 1;
	case MODEL_STAFF_ERLANGC:
		return p->target_wait_s > 0.0 && p->wait_probability > 0.0 &&
		       p->wait_probability < 1.0;
	case MODEL_STAFF_COST:
		return p->target_wait_s > 0.0 &&
		       p->cost_per_replica_hour > 0.0;
	}
	return 0; /* not a staffing we know */
}

/* The shed boost applies: strictly above the threshold, and non-zero. */
static int model_boosting(const struct model_params *p,
			  const struct model_signals *s)
{
	return s->shed_rate > p->shed_threshold && p->boost_factor > 0.0;
}

static int model_signals_ok(const struct model_params *p,
			    const struct model_signals *s)
{
	if (!model_nonneg(s->arrival_rate) ||
	    !model_nonneg(s->service_time_s) ||
	    !model_nonneg(s->queue_depth) || !model_nonneg(s->shed_rate) ||
	    !model_nonneg(s->arrival_forecast) ||
	    !model_nonneg(s->arrival_held) ||
	    !model_nonneg(s->arrival_surge) || !model_nonneg(s->peakedness) ||
	    s->peakedness > MODEL_PEAK_MAX ||
	    !model_nonneg(s->correction) ||
	    s->correction > MODEL_CORRECTION_MAX)
		return 0;
	/* W = 0 with demand would silently turn that demand into 0 slots;
	 * a forecast or a held rate is demand too. */
	if (s->service_time_s == 0.0 &&
	    (s->arrival_rate > 0.0 || s->arrival_forecast > 0.0 ||
	     s->arrival_held > 0.0 || s->arrival_surge > 0.0 ||
	     s->queue_depth > 0.0 ||
	     model_boosting(p, s)))
		return 0;
	return 1;
}

/*
 * Headroom in slots above the busy slots l (0 < l <= MODEL_SLOTS_MAX) for
 * arrivals of peakedness z > 0.  sqrt: beta sqrt(z l), Whitt's rule for
 * G/GI/n.  erlangc: Hayward's approximation, a peaked stream of load l on
 * c slots waits as a Poisson stream of load l / z on c / z slots, so
 * c = z c*(l / z) (docs/math.md).  cost keeps the Poisson answer: its
 * search is over whole replicas, which z would split.
 */
static enum model_err model_headroom(const struct model_params *p,
				     double l, double w, double z,
				     double *out)
{
	enum model_err err = MODEL_OK;
	double cf = 0;
	long c = 0;

	switch (p->staffing) {
	case MODEL_STAFF_SQRT:
		*out = p->beta * sqrt(z * l);
		break;
	case MODEL_STAFF_ERLANGC:
		if (p->erlang_frac) {
			err = erlang_staff_frac(l / z, w, p->target_wait_s,
						p->wait_probability, &cf);
		} else {
			err = erlang_staff(l / z, w, p->target_wait_s,
					   p->wait_probability, &c);
			cf = (double)c;
		}
		if (err == MODEL_OK)
			*out = fmax(0.0, z * cf - l);
		break;
	case MODEL_STAFF_COST:
		err = erlang_cost_staff(l, w, p->target_wait_s,
					p->slots_per_replica,
					p->cost_per_replica_hour,
					p->sla_penalty_per_hour, &c);
		if (err == MODEL_OK)
			*out = (double)c - l;
		break;
	case MODEL_STAFF_NONE:
		*out = 0.0;
		break;
	default:
		err = MODEL_EINVAL;
		break;
	}
	return err;
}

/* Slots to replicas: ceil with tolerance, floor at 1 with demand, caps. */
static void model_round(const struct model_params *p, int demand,
			struct model_breakdown *b)
{
	/* exact <= MODEL_SLOTS_MAX here, so the conversion is exact. */
	int64_t r = (int64_t)model_ceil(b->exact_replicas);

	b->capped = 0;
	if (demand && r < 1)
		r = 1;
	if (p->max_replicas > 0 && r > (int64_t)p->max_replicas) {
		r = p->max_replicas;
		b->capped = 1;
	}
	if (r > MODEL_REPLICAS_MAX) {
		r = MODEL_REPLICAS_MAX;
		b->capped = 1;
	}
	b->replicas = r;
}

/*
 * The demand in b is beyond MODEL_SLOTS_MAX.  A cap of at most
 * MODEL_SLOTS_MAX slots is then provably below the exact answer
 * (total > MODEL_SLOTS_MAX >= max_replicas * n), so the cap is the answer,
 * as it would be for any demand above it.  A cap above that bound (or
 * none) proves nothing: the exact answer might lie below it, and we
 * cannot compute it.
 */
static enum model_err model_beyond(const struct model_params *p,
				   const struct model_signals *s,
				   struct model_breakdown *b)
{
	double n = (double)p->slots_per_replica;

	if (p->max_replicas <= 0 ||
	    !((double)p->max_replicas * n <= MODEL_SLOTS_MAX))
		return MODEL_ERANGE;
	b->total_slots = INFINITY;
	b->exact_replicas = INFINITY;
	b->replicas = p->max_replicas;
	b->capped = 1;
	b->active = model_is_active(p, s);
	return MODEL_OK;
}

enum model_err model_evaluate(const struct model_params *p,
			      const struct model_signals *s,
			      struct model_breakdown *out)
{
	struct model_breakdown b = { 0 };
	enum model_err err;
	double w, q, excess;
	int demand, beyond;

	if (p == NULL || s == NULL || out == NULL)
		return MODEL_EINVAL;
	if (!model_params_ok(p) || !model_signals_ok(p, s))
		return MODEL_EINVAL;
	w = s->service_time_s;
	q = s->queue_depth;
	/* The forecast and the hold only raise lambda (decide.h); demand and
	 * activity stay on what is measured, see model.h. */
	b.source = MODEL_FROM_MEASURED;
	b.arrival_used = s->arrival_rate;
	if (s->arrival_forecast > b.arrival_used) {
		b.source = MODEL_FROM_FORECAST;
		b.arrival_used = s->arrival_forecast;
	}
	if (s->arrival_held > b.arrival_used) {
		b.source = MODEL_FROM_HELD;
		b.arrival_used = s->arrival_held;
	}
	if (s->arrival_surge > b.arrival_used) {
		b.source = MODEL_FROM_SURGE;
		b.arrival_used = s->arrival_surge;
	}
	b.forecast_used = b.source == MODEL_FROM_FORECAST;
	b.peakedness = s->peakedness > 0.0 ? s->peakedness : 1.0;
	demand = s->arrival_rate > 0.0 || q > 0.0 || s->shed_rate > 0.0;

	b.busy_slots = b.arrival_used * w;
	beyond = !(b.busy_slots <= MODEL_SLOTS_MAX);

	if (!beyond && b.busy_slots > 0.0) {
		err = model_headroom(p, b.busy_slots, w, b.peakedness,
				     &b.headroom_slots);
		if (err == MODEL_ERANGE) {
			b.headroom_slots = 0.0;
			beyond = 1;
		} else if (err != MODEL_OK) {
			return err;
		}
	}

	/* The backlog: Q requests wait for a slot, on top of the L that
	 * the arrivals keep busy; cleared in D.  (v1 drained only
	 * max(0, Q - L), as if busy slots could also take the waiting.) */
	excess = p->ablate & MODEL_ABLATE_DRAIN_EXCESS ? q - b.busy_slots : q;
	if (excess > 0.0)
		b.drain_slots = excess * w / p->drain_s;

	if (model_boosting(p, s) && !(p->ablate & MODEL_ABLATE_BOOST_NET))
		b.boost_slots = p->boost_factor * s->shed_rate * w;

	b.total_slots = b.busy_slots + b.headroom_slots + b.drain_slots +
			b.boost_slots;
	/* The SLO feedback scales the whole answer: a wrong W (the usual
	 * cause) is wrong in busy, drain and boost alike. */
	b.correction = s->correction > 0.0 ? s->correction : 1.0;
	if (b.correction != 1.0 && !beyond) {
		b.feedback_slots = (b.correction - 1.0) * b.total_slots;
		b.total_slots += b.feedback_slots;
	}
	if (beyond || !(b.total_slots <= MODEL_SLOTS_MAX)) {
		err = model_beyond(p, s, &b);
		if (err != MODEL_OK)
			return err;
		*out = b;
		return MODEL_OK;
	}

	b.exact_replicas = b.total_slots / (double)p->slots_per_replica;
	model_round(p, demand, &b);
	b.active = model_is_active(p, s);
	*out = b;
	return MODEL_OK;
}

/*
 * NaN signals compare false and count as no activity here; model_evaluate
 * rejects them, and the caller decides what unknown data means.  The
 * forecast is not read (see model.h).
 */
int model_is_active(const struct model_params *p, const struct model_signals *s)
{
	if (p == NULL || s == NULL)
		return 0;
	return s->arrival_rate > p->activation_arrival_rate ||
	       s->queue_depth > 0.0 || s->shed_rate > 0.0;
}

/*
 * The tolerance is relative: the noise in a sum of terms grows with its
 * size.  A positive x never rounds to 0 (no relative noise can make
 * something out of nothing), so any demand at all costs a slot.
 */
double model_ceil(double x)
{
	double f = floor(x);

	if (x - f <= fmin(x * MODEL_CEIL_RTOL, MODEL_CEIL_ATOL_MAX))
		return f;
	return f + 1.0;
}

const char *model_strerror(enum model_err e)
{
	switch (e) {
	case MODEL_OK:
		return "success";
	case MODEL_EINVAL:
		return "parameter out of domain";
	case MODEL_ERANGE:
		return "demand too large to staff";
	}
	return "unknown error";
}

const char *model_staffing_name(enum model_staffing s)
{
	switch (s) {
	case MODEL_STAFF_SQRT:
		return "sqrt";
	case MODEL_STAFF_ERLANGC:
		return "erlangc";
	case MODEL_STAFF_COST:
		return "cost";
	case MODEL_STAFF_NONE:
		return "none";
	}
	return "unknown";
}
