/*
 * sim.c - see sim.h.
 *
 * Time only moves at events.  Arrivals come straight from the sorted
 * trace; completions, replicas becoming ready and the periodic ticks
 * (scrape, HPA, KEDA, oracle, timeseries) come from a binary heap.  At
 * equal times heap events go first (a completion frees its slot before a
 * request arriving at that instant is placed), in push order.  Before any
 * event at time t, requests whose wait exceeded the queue timeout before
 * t are shed, in FIFO order, so the shed counter is exact at every scrape.
 */
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simheap.h"
#include "simprom.h"

enum { EV_DONE, EV_READY, EV_SCRAPE, EV_HPA, EV_KEDA, EV_ORACLE,
       EV_SAMPLE };

enum { R_STARTING, R_READY, R_DRAINING, R_GONE };

struct sim_replica {
	double created, ready_at;
	long busy;
	int state;
};

enum { S_ARR, S_SVC_SUM, S_SVC_CNT, S_SHED, S_BUSY, S_QUEUE, S_INFLIGHT,
       S_SPEC, S_N };

struct sim {
	const struct sim_config *c;
	const struct trace *t;
	const struct demand *d;
	const struct policy *p;
	struct policy_run run;
	struct simheap heap;

	struct sim_replica *rep;
	size_t nrep, caprep;
	int32_t spec, n_starting, n_ready, n_draining, peak;
	uint64_t free_ready;        /* free slots on ready serving replicas */

	uint32_t *queue;            /* FIFO ring of request indices */
	size_t qhead, qlen;
	uint32_t *req_rep;          /* replica serving each request */
	double *waits;
	size_t nwaits;
	size_t next;                /* next arrival */

	double now, last_acct;
	uint64_t inflight, busy_serving;
	/* counters as Prometheus would scrape them */
	double cnt[S_N];
	struct simseries ser[S_N];

	double replica_s;
	uint64_t scale_events, shed, within, shed_sampled;
};

void sim_config_init(struct sim_config *c)
{
	c->slots = 1;
	c->queue_timeout_s = 60;
	c->cold_start_s = 120;
	c->sla_s = 2;
	c->scrape_s = 15;
	c->rate_window_s = 60;
	c->hpa_sync_s = 15;
	c->oracle_step_s = 15;
	c->initial_replicas = 1;
	c->end_s = 0;
	c->ts_step_s = 0;
}

int sim_config_check(const struct sim_config *c, char *err, size_t errlen)
{
	const char *what = NULL;

	if (c->slots < 1 || c->slots > SIM_SLOTS_MAX)
		what = "slots must be 1 to 100000";
	else if (!(c->queue_timeout_s > 0) || c->queue_timeout_s > 86400)
		what = "queue timeout must be above 0 and up to 86400 s";
	else if (!(c->cold_start_s >= 0) || c->cold_start_s > 86400)
		what = "cold start must be 0 to 86400 s";
	else if (!(c->sla_s >= 0) || c->sla_s > 86400)
		what = "SLA must be 0 to 86400 s";
	else if (!(c->scrape_s >= 1) || c->scrape_s > 3600)
		what = "scrape interval must be 1 to 3600 s";
	else if (!(c->rate_window_s > c->scrape_s) ||
		 c->rate_window_s > 86400 ||
		 c->rate_window_s / c->scrape_s > 4000)
		what = "rate window must be longer than the scrape interval, "
		       "up to 86400 s and 4000 scrapes";
	else if (!(c->hpa_sync_s >= 1) || c->hpa_sync_s > 3600)
		what = "HPA sync period must be 1 to 3600 s";
	else if (!(c->oracle_step_s >= 1) || c->oracle_step_s > 3600)
		what = "oracle step must be 1 to 3600 s";
	else if (c->initial_replicas < 0 ||
		 (uint32_t)c->initial_replicas > SIM_REPLICAS_MAX)
		what = "initial replicas must be 0 to 200000";
	else if (!(c->end_s > 0) || c->end_s > TRACE_TIME_MAX)
		what = "the trace must last more than 0 s";
	else if (!(c->ts_step_s >= 0) || (c->ts_step_s > 0 &&
		  c->end_s / c->ts_step_s > 1e7))
		what = "timeseries step must be >= 0 and give at most 1e7 "
		       "points";
	if (what) {
		snprintf(err, errlen, "%s", what);
		return -1;
	}
	return 0;
}

int32_t sim_initial_replicas(const struct sim_config *c,
			     const struct demand *d, int32_t min)
{
	double need = ceil((double)demand_max(d, 0, c->cold_start_s +
					      c->hpa_sync_s) /
			   (double)c->slots);

	if (need < min)
		need = min;
	if (need > SIM_REPLICAS_MAX)
		need = SIM_REPLICAS_MAX;
	return (int32_t)need;
}

/* ---- accounting ---------------------------------------------------------- */

/* Integrate busy slot-seconds of serving replicas up to now. */
static void sim_account(struct sim *s)
{
	if (s->now > s->last_acct) {
		s->cnt[S_BUSY] += (double)s->busy_serving *
				  (s->now - s->last_acct);
		s->last_acct = s->now;
	}
}

/* Replica-seconds of [from, to] inside [0, end_s]. */
static double sim_overlap(const struct sim *s, double from, double to)
{
	double e = s->c->end_s;

	if (from > e)
		return 0;
	if (to > e)
		to = e;
	return to > from ? to - from : 0;
}

/* ---- the fleet ----------------------------------------------------------- */

static void sim_gone(struct sim *s, size_t r)
{
	struct sim_replica *x = &s->rep[r];

	s->replica_s += sim_overlap(s, x->created, s->now);
	if (x->state == R_STARTING)
		s->n_starting--;
	else if (x->state == R_DRAINING)
		s->n_draining--;
	x->state = R_GONE;
}

static int sim_new_replica(struct sim *s, int ready)
{
	struct sim_replica *x;
	size_t r;

	for (r = 0; r < s->nrep; r++)
		if (s->rep[r].state == R_GONE)
			break;
	if (r == s->nrep) {
		if (s->nrep == s->caprep) {
			size_t cap = s->caprep ? s->caprep * 2 : 64;

			if (cap > SIM_REPLICAS_MAX)
				cap = SIM_REPLICAS_MAX;
			if (s->nrep == cap)
				return -1;
			x = realloc(s->rep, cap * sizeof(*x));
			if (!x)
				return -1;
			s->rep = x;
			s->caprep = cap;
		}
		s->nrep++;
	}
	x = &s->rep[r];
	x->created = s->now;
	x->ready_at = ready ? s->now : s->now + s->c->cold_start_s;
	x->busy = 0;
	if (ready) {
		x->state = R_READY;
		s->n_ready++;
		s->free_ready += (uint64_t)s->c->slots;
		return 0;
	}
	x->state = R_STARTING;
	s->n_starting++;
	return simheap_push(&s->heap, x->ready_at, EV_READY, (uint32_t)r);
}

/* The newest replica in state st (latest creation, then highest index). */
static long sim_newest(const struct sim *s, int st)
{
	long best = -1;
	size_t r;

	for (r = 0; r < s->nrep; r++)
		if (s->rep[r].state == st &&
		    (best < 0 || s->rep[r].created >= s->rep[best].created))
			best = (long)r;
	return best;
}

static void sim_remove_one(struct sim *s)
{
	long r = sim_newest(s, R_STARTING);
	struct sim_replica *x;

	if (r >= 0) {
		sim_gone(s, (size_t)r);
		return;
	}
	r = sim_newest(s, R_READY);
	if (r < 0)
		return;
	x = &s->rep[r];
	s->n_ready--;
	s->busy_serving -= (uint64_t)x->busy;
	s->free_ready -= (uint64_t)(s->c->slots - x->busy);
	x->state = R_DRAINING;
	s->n_draining++;
	if (x->busy == 0)
		sim_gone(s, (size_t)r);
}

static int sim_set_spec(struct sim *s, int32_t target)
{
	int32_t live = s->n_starting + s->n_ready;

	if (target < 0)
		target = 0;
	if (target == s->spec)
		return 0;
	s->scale_events++;
	s->spec = target;
	if (target > s->peak)
		s->peak = target;
	for (; live < target; live++)
		if (sim_new_replica(s, 0))
			return -1;
	for (; live > target; live--)
		sim_remove_one(s);
	return 0;
}

/* ---- requests ------------------------------------------------------------ */

/* The ready serving replica with the most free slots, or -1. */
static long sim_pick(const struct sim *s)
{
	long best = -1, slots = s->c->slots;
	size_t r;

	if (s->free_ready == 0)
		return -1;
	for (r = 0; r < s->nrep; r++) {
		const struct sim_replica *x = &s->rep[r];

		if (x->state != R_READY || x->busy >= slots)
			continue;
		if (best < 0 || x->busy < s->rep[best].busy)
			best = (long)r;
	}
	return best;
}

static int sim_start(struct sim *s, uint32_t q, size_t r)
{
	const struct trace_req *req = &s->t->req[q];
	double wait = s->now - req->arrival_s;

	s->waits[s->nwaits++] = wait;
	if (wait <= s->c->sla_s)
		s->within++;
	s->rep[r].busy++;
	s->free_ready--;
	s->inflight++;
	s->busy_serving++;
	s->req_rep[q] = (uint32_t)r;
	return simheap_push(&s->heap, s->now + req->service_s, EV_DONE, q);
}

static int sim_dispatch(struct sim *s)
{
	while (s->qlen > 0) {
		long r = sim_pick(s);
		uint32_t q;

		if (r < 0)
			break;
		q = s->queue[s->qhead];
		s->qhead = (s->qhead + 1) % s->t->n;
		s->qlen--;
		if (sim_start(s, q, (size_t)r))
			return -1;
	}
	return 0;
}

/* Shed every queued request whose wait exceeds the timeout before t. */
static void sim_expire(struct sim *s, double t)
{
	while (s->qlen > 0) {
		uint32_t q = s->queue[s->qhead];

		if (!(s->t->req[q].arrival_s + s->c->queue_timeout_s < t))
			break;
		s->qhead = (s->qhead + 1) % s->t->n;
		s->qlen--;
		s->shed++;
		s->cnt[S_SHED] += 1;
	}
}

static int sim_arrive(struct sim *s)
{
	uint32_t q = (uint32_t)s->next++;

	s->cnt[S_ARR] += 1;
	s->queue[(s->qhead + s->qlen) % s->t->n] = q;
	s->qlen++;
	return sim_dispatch(s);
}

static int sim_done(struct sim *s, uint32_t q)
{
	size_t r = s->req_rep[q];
	struct sim_replica *x = &s->rep[r];

	x->busy--;
	s->inflight--;
	s->cnt[S_SVC_SUM] += s->t->req[q].service_s;
	s->cnt[S_SVC_CNT] += 1;
	if (x->state == R_DRAINING) {
		if (x->busy == 0)
			sim_gone(s, r);
		return 0;
	}
	s->busy_serving--;
	s->free_ready++;
	return sim_dispatch(s);
}

static int sim_ready(struct sim *s, uint32_t r)
{
	struct sim_replica *x;

	/* A replica removed while starting may have left this event behind
	 * (its slot possibly reused by a later replica). */
	if (r >= s->nrep)
		return 0;
	x = &s->rep[r];
	if (x->state != R_STARTING || x->ready_at != s->now)
		return 0;
	x->state = R_READY;
	s->n_starting--;
	s->n_ready++;
	s->free_ready += (uint64_t)s->c->slots;
	return sim_dispatch(s);
}

/* ---- control ------------------------------------------------------------- */

static double sim_rate(const struct sim *s, int k)
{
	double v;

	return simprom_rate(&s->ser[k], s->now, s->c->rate_window_s, &v) ?
	       NAN : v;
}

static double sim_gauge(const struct sim *s, int k)
{
	double v;

	return simprom_last(&s->ser[k], s->now, &v) ? NAN : v;
}

static void sim_view(const struct sim *s, struct policy_view *v)
{
	v->now = s->now;
	v->arrival_rate = sim_rate(s, S_ARR);
	{
		double ww = getenv("SX_WWIN") ? atof(getenv("SX_WWIN")) : s->c->rate_window_s, x;
		v->service_rate = simprom_rate(&s->ser[S_SVC_SUM], s->now, ww, &x) ? NAN : x;
		v->completion_rate = simprom_rate(&s->ser[S_SVC_CNT], s->now, ww, &x) ? NAN : x;
	}
	v->shed_rate = sim_rate(s, S_SHED);
	v->busy_rate = sim_rate(s, S_BUSY);
	v->queue_depth = sim_gauge(s, S_QUEUE);
	v->inflight = sim_gauge(s, S_INFLIGHT);
	v->spec = s->spec;
	v->status = s->n_starting + s->n_ready;
	v->ready = s->n_ready;
	v->slots = s->c->slots;
	v->arrivals = &s->ser[S_ARR];
	v->replicas = &s->ser[S_SPEC];
	v->rate_window_s = s->c->rate_window_s;
}

static void sim_scrape(struct sim *s)
{
	int k;

	s->cnt[S_QUEUE] = (double)s->qlen;
	s->cnt[S_INFLIGHT] = (double)s->inflight;
	s->cnt[S_SPEC] = (double)s->spec;
	for (k = 0; k < S_N; k++)
		simseries_add(&s->ser[k], s->now, s->cnt[k]);
}

static int sim_hpa(struct sim *s)
{
	struct policy_view v;
	int32_t prop, next;

	sim_view(s, &v);
	prop = policy_proposal(&s->run, &v);
	next = hpa_reconcile(s->run.hpa, s->now, s->spec, prop);
	return sim_set_spec(s, next);
}

static int sim_keda(struct sim *s)
{
	struct policy_view v;
	int active;
	int32_t next;

	sim_view(s, &v);
	active = policy_active(&s->run, &v);
	if (active < 0)
		return 0;
	next = keda_poll(&s->run.keda, s->now, active, s->spec);
	return next >= 0 ? sim_set_spec(s, next) : 0;
}

static int32_t sim_oracle_target(const struct sim *s)
{
	const struct policy *p = s->p;
	double need = ceil((double)demand_max(s->d, s->now, s->now +
				s->c->cold_start_s + s->c->oracle_step_s) /
			   (double)s->c->slots);

	if (need < p->keda.min_replica_count)
		need = p->keda.min_replica_count;
	if (need > p->hpa.max_replicas)
		need = p->hpa.max_replicas;
	return (int32_t)need;
}

static void sim_sample(struct sim *s, sim_sample_fn *fn, void *arg)
{
	struct sim_sample x;

	x.t = s->now;
	x.spec = s->spec;
	x.ready = s->n_ready;
	x.starting = s->n_starting;
	x.draining = s->n_draining;
	x.demand = (double)demand_max(s->d, s->now, s->now) /
		   (double)s->c->slots;
	x.queue = s->qlen;
	x.inflight = s->inflight;
	x.shed = s->shed - s->shed_sampled;
	s->shed_sampled = s->shed;
	x.raw = s->run.have_last ? (int32_t)s->run.last.raw : -1;
	fn(arg, &x);
}

/* ---- the loop ------------------------------------------------------------ */

static int sim_event(struct sim *s, const struct simev *e, sim_sample_fn *fn,
		     void *arg)
{
	const struct sim_config *c = s->c;

	switch (e->type) {
	case EV_DONE:
		return sim_done(s, e->arg);
	case EV_READY:
		return sim_ready(s, e->arg);
	case EV_SCRAPE:
		sim_scrape(s);
		return simheap_push(&s->heap, s->now + c->scrape_s,
				    EV_SCRAPE, 0);
	case EV_HPA:
		if (sim_hpa(s))
			return -1;
		return simheap_push(&s->heap, s->now + c->hpa_sync_s, EV_HPA,
				    0);
	case EV_KEDA:
		if (sim_keda(s))
			return -1;
		return simheap_push(&s->heap, s->now + s->p->keda.poll_s,
				    EV_KEDA, 0);
	case EV_ORACLE:
		if (sim_set_spec(s, sim_oracle_target(s)))
			return -1;
		return simheap_push(&s->heap, s->now + c->oracle_step_s,
				    EV_ORACLE, 0);
	case EV_SAMPLE:
		if (fn)
			sim_sample(s, fn, arg);
		return simheap_push(&s->heap, s->now + c->ts_step_s,
				    EV_SAMPLE, 0);
	}
	return 0;
}

static int sim_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double sim_rank(const double *v, size_t n, double p)
{
	double k;

	if (n == 0)
		return NAN;
	k = ceil(p * (double)n);
	if (k < 1)
		k = 1;
	return v[(size_t)k - 1];
}

static void sim_results(struct sim *s, struct sim_result *o)
{
	size_t i;
	double sum = 0;

	memset(o, 0, sizeof(*o));
	o->requests = s->t->n;
	o->started = s->nwaits;
	o->within_sla = s->within;
	o->shed = s->shed;
	o->sla_attainment = (double)s->within / (double)s->t->n;
	o->shed_fraction = (double)s->shed / (double)s->t->n;
	qsort(s->waits, s->nwaits, sizeof(*s->waits), sim_cmp_double);
	for (i = 0; i < s->nwaits; i++)
		sum += s->waits[i];
	o->wait_mean = s->nwaits ? sum / (double)s->nwaits : NAN;
	o->wait_p50 = sim_rank(s->waits, s->nwaits, 0.50);
	o->wait_p95 = sim_rank(s->waits, s->nwaits, 0.95);
	o->wait_p99 = sim_rank(s->waits, s->nwaits, 0.99);
	for (i = 0; i < s->nrep; i++)
		if (s->rep[i].state != R_GONE)
			s->replica_s += sim_overlap(s, s->rep[i].created,
						    s->c->end_s);
	o->replica_hours = s->replica_s / 3600.0;
	for (i = 0, sum = 0; i < s->t->n; i++)
		sum += sim_overlap(s, s->t->req[i].arrival_s,
				   s->t->req[i].arrival_s +
				   s->t->req[i].service_s);
	o->lower_bound_hours = sum / (double)s->c->slots / 3600.0;
	o->scale_events = s->scale_events;
	o->metric_errors = s->run.metric_errors;
	o->peak_replicas = s->peak;
}

static void sim_free(struct sim *s)
{
	int k;

	policy_run_free(&s->run);
	simheap_free(&s->heap);
	for (k = 0; k < S_N; k++)
		simseries_free(&s->ser[k]);
	free(s->rep);
	free(s->queue);
	free(s->req_rep);
	free(s->waits);
}

int sim_run(const struct sim_config *c, const struct trace *t,
	    const struct demand *d, const struct policy *p,
	    struct sim_result *out, sim_sample_fn *fn, void *arg, char *err,
	    size_t errlen)
{
	struct sim s;
	struct simev e;
	double span;
	size_t cap;
	int32_t i;
	int k, rc = -1;

	memset(&s, 0, sizeof(s));
	simheap_init(&s.heap);
	if (sim_config_check(c, err, errlen))
		return -1;
	if (t->n == 0) {
		snprintf(err, errlen, "the trace has no requests");
		return -1;
	}
	s.c = c;
	s.t = t;
	s.d = d;
	s.p = p;
	/* Keep what the longest query looks back over. */
	span = c->rate_window_s + 300;
	if (p->kind == POLICY_STAFFER) {
		double range, step;

		decide_series_query(&p->meta, &range, &step);
		span += range;
	}
	if (p->kind == POLICY_STAFFER && p->meta.current_replicas_query &&
	    p->meta.scale_down_period_s + SIMPROM_LOOKBACK_S > span)
		span = p->meta.scale_down_period_s + SIMPROM_LOOKBACK_S;
	cap = (size_t)(span / c->scrape_s) + 4;
	if (cap > SIMPROM_SAMPLES_MAX)
		cap = SIMPROM_SAMPLES_MAX;
	for (k = 0; k < S_N; k++)
		if (simseries_init(&s.ser[k], cap))
			goto oom;
	s.queue = malloc(t->n * sizeof(*s.queue));
	s.req_rep = malloc(t->n * sizeof(*s.req_rep));
	s.waits = malloc(t->n * sizeof(*s.waits));
	if (!s.queue || !s.req_rep || !s.waits ||
	    policy_run_init(&s.run, p))
		goto oom;
	for (i = 0; i < c->initial_replicas; i++)
		if (sim_new_replica(&s, 1))
			goto oom;
	s.spec = s.peak = c->initial_replicas;
	if (simheap_push(&s.heap, 0, EV_SCRAPE, 0))
		goto oom;
	if (p->kind == POLICY_ORACLE) {
		if (simheap_push(&s.heap, 0, EV_ORACLE, 0))
			goto oom;
	} else if (simheap_push(&s.heap, c->rate_window_s +
				c->hpa_sync_s / 2, EV_HPA, 0) ||
		   simheap_push(&s.heap, c->rate_window_s +
				p->keda.poll_s / 3, EV_KEDA, 0)) {
		goto oom;
	}
	if (c->ts_step_s > 0 && simheap_push(&s.heap, 0, EV_SAMPLE, 0))
		goto oom;

	while (s.next < t->n || s.qlen > 0 || s.now < c->end_s) {
		const struct simev *top = simheap_peek(&s.heap);
		int arrival = s.next < t->n &&
			      (!top || t->req[s.next].arrival_s < top->t);
		double at = arrival ? t->req[s.next].arrival_s : top->t;

		sim_expire(&s, at);
		if (at > s.now)
			s.now = at;
		sim_account(&s);
		if (arrival) {
			if (sim_arrive(&s))
				goto oom;
			continue;
		}
		simheap_pop(&s.heap, &e);
		if (sim_event(&s, &e, fn, arg))
			goto oom;
	}
	sim_results(&s, out);
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "simulation: out of memory or more than %u "
		 "replicas", SIM_REPLICAS_MAX);
out:
	sim_free(&s);
	return rc;
}
