/*
 * pool.c - see pool.h; the derivations are docs/math.md's "Prefill and
 * decode pools".
 */
#include "pool.h"

#include <math.h>
#include <string.h>

void pool_params_init(struct pool_params *p)
{
	memset(p, 0, sizeof(*p));
	p->kind = POOL_UNIFIED;
}

/* finite and >= 0 (false for NaN and the negatives that mean unknown). */
static int pool_known(double x)
{
	return x >= 0 && isfinite(x);
}

double pool_itl_at(const struct pool_profile *pr, double b)
{
	size_t i, n = pr->n;

	if (n == 0)
		return 0;
	if (n == 1 || b <= pr->batch[0])
		return pr->itl_s[0];
	for (i = 1; i < n - 1 && b > pr->batch[i]; i++)
		;
	return pr->itl_s[i - 1] + (pr->itl_s[i] - pr->itl_s[i - 1]) *
	       (b - pr->batch[i - 1]) / (pr->batch[i] - pr->batch[i - 1]);
}

long pool_batch_within(const struct pool_profile *pr, double itl_target_s)
{
	size_t i, n = pr->n;
	double b;

	if (n == 0 || !(itl_target_s >= pr->itl_s[0]))
		return 0;
	/* the first point above the target: the crossing is in the segment
	 * before it, which rises to it */
	for (i = 1; i < n && pr->itl_s[i] <= itl_target_s; i++)
		;
	if (i == n)
		return (long)fmin(pr->batch[n - 1], POOL_BATCH_MAX);
	b = pr->batch[i - 1] + (itl_target_s - pr->itl_s[i - 1]) *
	    (pr->batch[i] - pr->batch[i - 1]) /
	    (pr->itl_s[i] - pr->itl_s[i - 1]);
	/* a hair of rounding must not lose a whole batch at a point */
	b = floor(b + 1e-9);
	return b < 1 ? 1 : (long)fmin(b, POOL_BATCH_MAX);
}

/* Tokens a request: rate / lambda, 0 when unknown or none. */
static double pool_per_request(double rate, double lambda)
{
	if (!pool_known(rate) || !(lambda > 0) || !isfinite(lambda))
		return 0;
	return rate / lambda;
}

/* C in force: the measured one, else the given one (0: none). */
static double pool_capacity(const struct pool_params *p,
			    const struct pool_signals *ps, int *measured)
{
	*measured = ps->prefill_capacity > 0 && isfinite(ps->prefill_capacity);
	return *measured ? ps->prefill_capacity : p->prefill_tokens_per_s;
}

static double pool_kv(const struct pool_params *p,
		      const struct pool_signals *ps, int *measured)
{
	*measured = ps->kv_capacity > 0 && isfinite(ps->kv_capacity);
	return *measured ? ps->kv_capacity : p->kv_tokens;
}

/* The terms from the tokens alone (no W given yet). */
static void pool_token_terms(const struct pool_params *p,
			     const struct pool_signals *ps,
			     struct pool_terms *t)
{
	memset(t, 0, sizeof(*t));
	t->kind = p->kind;
	t->mean_input = pool_per_request(ps->input_rate, ps->arrival_rate);
	if (ps->output_arrivals > 0 && isfinite(ps->output_arrivals)) {
		t->output_arrivals = ps->output_arrivals;
		t->mean_output = pool_per_request(ps->output_rate,
						  ps->output_arrivals);
	} else {
		t->mean_output = pool_per_request(ps->output_rate,
						  ps->arrival_rate);
	}
	if (p->kind == POOL_PREFILL) {
		t->capacity = pool_capacity(p, ps, &t->capacity_measured);
		if (t->mean_input > 0 && t->capacity > 0) {
			t->service_s = t->mean_input / t->capacity;
			t->service_from_tokens = 1;
		}
		return;
	}
	if (p->itl_target_s > 0 && p->profile.n > 0) {
		t->batch_itl = pool_batch_within(&p->profile,
						 p->itl_target_s);
		if (t->batch_itl > 0)
			t->itl_s = pool_itl_at(&p->profile,
					       (double)t->batch_itl);
	}
	if (t->itl_s > 0 && t->mean_output > 0) {
		t->service_s = t->mean_output * t->itl_s;
		t->service_from_tokens = 1;
	}
}

enum model_err pool_service_time(const struct pool_params *p,
				 const struct pool_signals *ps, double *out)
{
	struct pool_terms t;

	if (!p || !ps || !out || p->kind == POOL_UNIFIED)
		return MODEL_EINVAL;
	pool_token_terms(p, ps, &t);
	*out = t.service_s;
	return MODEL_OK;
}

/* The smaller of n (0: none yet) and v (0: no bound), and whether v
 * became it. */
static long pool_min(long n, long v, int *took)
{
	*took = v > 0 && (n == 0 || v < n);
	return *took ? v : n;
}

/* Decode: the slots a replica has and what binds them; w the W used. */
static enum model_err pool_decode_slots(const struct pool_params *p,
					long slots_given,
					const struct pool_signals *ps, double w,
					struct pool_terms *t)
{
	/* the sequences in flight: those that arrived over the last W */
	double lam = t->output_arrivals > 0 ? t->output_arrivals :
		     ps->arrival_rate;
	double l = pool_known(lam) ? lam * w : 0;
	long n = 0;
	int took;

	n = pool_min(n, slots_given, &took);
	if (took)
		t->bind = POOL_BIND_SLOTS;
	n = pool_min(n, t->batch_itl, &took);
	if (took)
		t->bind = POOL_BIND_ITL;
	if (n == 0)
		return MODEL_EINVAL;
	t->kv_capacity = pool_kv(p, ps, &t->kv_measured);
	if (t->mean_input > 0 || t->mean_output > 0)
		t->kv_seq_rates = t->mean_input + t->mean_output / 2;
	/* what a sequence holds now, by Little's law on the pool's KV */
	if (pool_known(ps->kv_used) && l > 0)
		t->kv_seq_measured = ps->kv_used / l;
	t->kv_seq = fmax(t->kv_seq_rates, t->kv_seq_measured);
	if (t->kv_capacity > 0 && t->kv_seq > 0) {
		double k = floor(t->kv_capacity / t->kv_seq + 1e-9);

		t->slots_kv = k < 1 ? 1 : (long)fmin(k, POOL_BATCH_MAX);
		n = pool_min(n, t->slots_kv, &took);
		if (took)
			t->bind = POOL_BIND_KV;
	}
	t->slots = n;
	return MODEL_OK;
}

/* Erlang C's headroom for the TTFT target on s's signals, at the larger of
 * their z and tok (the prompt tokens' peakedness; <= 0: none): into *tb. */
static enum model_err pool_ttft(const struct model_params *mp,
				const struct pool_params *p,
				const struct model_signals *s, double tok,
				struct pool_terms *t,
				struct model_breakdown *tb)
{
	struct model_params e = *mp;
	struct model_signals x = *s;

	e.staffing = MODEL_STAFF_ERLANGC;
	e.erlang_frac = !(mp->ablate & MODEL_ABLATE_ERLANG_WHOLE);
	e.target_wait_s = t->ttft_wait_s;
	e.wait_probability = p->ttft_miss;
	if (!(x.peakedness > 0))
		x.peakedness = 1;
	/* the queue's work is tokens: their bursts in mean prompts */
	if (tok > x.peakedness && tok <= MODEL_PEAK_MAX) {
		x.peakedness = tok;
		t->ttft_token_peak = 1;
	}
	t->ttft_peakedness = x.peakedness;
	return model_evaluate(&e, &x, tb);
}

enum model_err pool_evaluate(const struct model_params *mp,
			     const struct pool_params *p, long slots_given,
			     const struct pool_signals *ps,
			     const struct model_signals *s,
			     struct model_breakdown *b, struct pool_terms *t)
{
	struct model_params q;
	struct model_signals x;
	struct model_breakdown mb, tb;
	struct pool_terms pt;
	enum model_err e;

	if (!mp || !p || !ps || !s || !b || !t || p->kind == POOL_UNIFIED)
		return MODEL_EINVAL;
	pool_token_terms(p, ps, &pt);
	x = *s;
	if (pt.service_from_tokens)
		x.service_time_s = pt.service_s;
	else
		pt.service_s = x.service_time_s;
	q = *mp;
	if (p->kind == POOL_PREFILL) {
		if (!(pt.capacity > 0))
			return MODEL_EINVAL;
		pt.slots = 1;
		pt.bind = POOL_BIND_COMPUTE;
	} else {
		e = pool_decode_slots(p, slots_given, ps, x.service_time_s,
				      &pt);
		if (e != MODEL_OK)
			return e;
	}
	q.slots_per_replica = pt.slots;
	if (p->kind == POOL_PREFILL && p->ttft_target_s > 0) {
		pt.ttft_wait_s = p->ttft_target_s - x.service_time_s -
				 p->kv_transfer_s;
		pt.ttft_reachable = pt.ttft_wait_s > 0;
	}
	/* With the TTFT target's Erlang C under it, which staffs Poisson
	 * arrivals to the target, the square root covers only what that
	 * queue does not model: the burstiness beyond Poisson, z - 1. */
	if (pt.ttft_reachable && q.staffing == MODEL_STAFF_SQRT) {
		double z = x.peakedness > 0 ? x.peakedness : 1;

		q.beta = mp->beta * sqrt(fmax(z - 1, 0) / z);
		pt.headroom_excess = 1;
	}
	e = model_evaluate(&q, &x, &mb);
	if (e != MODEL_OK)
		return e;
	q.beta = mp->beta;
	/* the TTFT target only adds (an Erlang search for an unreachable
	 * target is not run) */
	if (pt.ttft_reachable) {
		e = pool_ttft(&q, p, &x, ps->token_peakedness, &pt, &tb);
		if (e != MODEL_OK)
			return e;
		pt.ttft_slots = tb.total_slots;
		if (tb.total_slots > mb.total_slots) {
			pt.ttft_sets = 1;
			mb = tb;
		}
	}
	*b = mb;
	*t = pt;
	return MODEL_OK;
}

const char *pool_kind_name(enum pool_kind k)
{
	switch (k) {
	case POOL_UNIFIED:
		return "unified";
	case POOL_PREFILL:
		return "prefill";
	case POOL_DECODE:
		return "decode";
	}
	return "unknown";
}

const char *pool_bind_name(enum pool_bind b)
{
	switch (b) {
	case POOL_BIND_NONE:
		return "none";
	case POOL_BIND_COMPUTE:
		return "compute";
	case POOL_BIND_SLOTS:
		return "slots";
	case POOL_BIND_ITL:
		return "itl";
	case POOL_BIND_KV:
		return "kv-cache";
	}
	return "unknown";
}
