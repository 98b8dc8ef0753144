/*
 * sim.c - see sim.h.
 *
 * Time only moves at events.  Arrivals come straight from the sorted
 * trace; completions, replicas becoming ready and the periodic ticks
 * (scrape, HPA, KEDA, oracle, timeseries) come from a binary heap.  At
 * equal times heap events go first (a completion frees its slot before a
 * request arriving at that instant is placed), in push order.  Before any
 * event at time t, requests whose wait exceeded the queue timeout before
 * t are shed, oldest first, wherever they wait, so the shed counter is
 * exact at every scrape: a cursor walks the requests in arrival order
 * and sheds those still waiting, so the check costs O(1) per event and
 * O(requests) in all, whatever the number of queues.
 *
 * Waiting requests sit on simroute lists: the gateway's, and with routing
 * each ready replica's own.  The queue-depth gauge counts them all.
 */
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simheap.h"
#include "simpool.h"
#include "simprom.h"
#include "simroute.h"
#include "simsort.h"

enum { EV_DONE, EV_READY, EV_SCRAPE, EV_HPA, EV_KEDA, EV_ORACLE,
       EV_SAMPLE, EV_ROUTE };

/* Where a request is: not arrived (or over: done or shed), waiting at the
 * gateway, waiting in a replica's own queue, running. */
enum { Q_OUT = 0, Q_GATEWAY, Q_REPLICA, Q_RUNNING };

#define SIM_NONE UINT32_MAX      /* no replica: the ready list's ends */

/* What the fleet keeps per replica beside its state (simpool.h's data). */
struct sim_replica {
	long busy;
	uint64_t born;           /* creation order: routing's "oldest" */
	/* Routed gateways only: */
	struct simq q;           /* routed here, not started yet */
	uint32_t rnext, rprev;   /* the ready list, oldest first */
};

enum { S_ARR, S_SVC_SUM, S_SVC_CNT, S_SHED, S_BUSY, S_QUEUE, S_INFLIGHT,
       S_SPEC, S_MISS, S_FINISHED, S_N };

struct sim {
	const struct sim_config *c;
	const struct trace *t;
	const struct demand *d;
	const struct policy *p;
	struct policy_run run;
	struct simheap heap;

	/* The replicas, their counts, spec.replicas and cold starts (the
	 * k-th replica created after the start takes the k-th draw). */
	struct simpool pool;
	uint64_t free_ready;        /* free slots on ready serving replicas */

	struct simq_links links;    /* every queue's links */
	struct simq gw;             /* the gateway's FIFO */
	size_t qlen;                /* waiting anywhere: the queue gauge */
	uint8_t *where;             /* Q_* of each request */
	uint32_t *req_rep;          /* replica serving (or queueing) each
				     * request */
	size_t expire;              /* next request the timeout looks at */
	uint64_t born;              /* replicas created so far */
	/* Routed gateways: the ready replicas oldest first and round-robin's
	 * next pick (SIM_NONE: the oldest); least-loaded's heap of them; a
	 * flush of the gateway pending; the queues of replicas put to drain,
	 * to route again. */
	uint32_t rhead, rtail, rrnext;
	struct simll ll;
	int route_pending;
	uint32_t *moved;
	size_t nmoved, capmoved;
	double *waits;              /* the positive waits of started requests */
	size_t nwaits;
	uint64_t started, nowait;   /* started; of them, without waiting */
	size_t next;                /* next arrival */

	double now, last_acct;
	uint64_t inflight, busy_serving;
	/* counters as Prometheus would scrape them */
	double cnt[S_N];
	struct simseries ser[S_N];

	uint64_t shed, within, shed_sampled;

	/* The cold starts seen (ready - created), a ring of the last
	 * SIM_COLD_SEEN_MAX with when each was seen. */
	double seen[SIM_COLD_SEEN_MAX], seen_at[SIM_COLD_SEEN_MAX];
	size_t nseen, seen_next;
};

void sim_config_init(struct sim_config *c)
{
	c->slots = 1;
	c->queue_timeout_s = 60;
	c->cold_start_s = 120;
	c->cold_start_cv = 0;
	c->cold_seed = 1;
	c->sla_s = 2;
	c->scrape_s = 15;
	c->rate_window_s = 60;
	c->service_window_s = 300;
	c->hpa_sync_s = 15;
	c->oracle_step_s = 15;
	c->initial_replicas = 1;
	c->end_s = 0;
	c->ts_step_s = 0;
	c->routing = SIM_ROUTE_SHARED;
}

static const char *const sim_routing_names[] = {
	[SIM_ROUTE_SHARED] = "shared",
	[SIM_ROUTE_LEAST_LOADED] = "least-loaded",
	[SIM_ROUTE_ROUND_ROBIN] = "round-robin",
};

#define SIM_NROUTINGS (sizeof(sim_routing_names) / \
		       sizeof(sim_routing_names[0]))

int sim_routing_parse(const char *s, enum sim_routing *out)
{
	size_t i;

	for (i = 0; i < SIM_NROUTINGS; i++)
		if (!strcmp(s, sim_routing_names[i])) {
			*out = (enum sim_routing)i;
			return 0;
		}
	return -1;
}

const char *sim_routing_name(enum sim_routing r)
{
	return (size_t)r < SIM_NROUTINGS ? sim_routing_names[r] : "?";
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
	else if (!(c->cold_start_cv >= 0) ||
		 c->cold_start_cv > SIM_COLD_CV_MAX)
		what = "cold start CV must be 0 to 3";
	else if (!(c->sla_s >= 0) || c->sla_s > 86400)
		what = "SLA must be 0 to 86400 s";
	else if (!(c->scrape_s >= 1) || c->scrape_s > 3600)
		what = "scrape interval must be 1 to 3600 s";
	else if (!(c->rate_window_s > c->scrape_s) ||
		 c->rate_window_s > 86400 ||
		 c->rate_window_s / c->scrape_s > 4000)
		what = "rate window must be longer than the scrape interval, "
		       "up to 86400 s and 4000 scrapes";
	else if (!(c->service_window_s > c->scrape_s) ||
		 c->service_window_s > 86400 ||
		 c->service_window_s / c->scrape_s > 4000)
		what = "service window must be longer than the scrape "
		       "interval, up to 86400 s and 4000 scrapes";
	else if (!(c->hpa_sync_s >= 1) || c->hpa_sync_s > 3600)
		what = "HPA sync period must be 1 to 3600 s";
	else if (!(c->oracle_step_s >= 1) || c->oracle_step_s > 3600)
		what = "oracle step must be 1 to 3600 s";
	else if (c->initial_replicas < 0 ||
		 (uint32_t)c->initial_replicas > SIM_REPLICAS_MAX)
		what = "initial replicas must be 0 to 200000";
	else if (!(c->end_s > 0))
		what = "the trace must last more than 0 s";
	else if (c->end_s > TRACE_TIME_MAX)
		what = "the trace must last at most 366 days (31622400 s)";
	else if (!(c->ts_step_s >= 0) || (c->ts_step_s > 0 &&
		  c->end_s / c->ts_step_s > 1e7))
		what = "timeseries step must be >= 0 and give at most 1e7 "
		       "points";
	else if ((size_t)c->routing >= SIM_NROUTINGS)
		what = "routing must be shared, least-loaded or round-robin";
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

int32_t sim_first_minute_replicas(const struct sim_config *c,
				  const struct demand *d, int32_t min)
{
	double need = ceil((double)demand_max(d, 0, SIM_WARM_WINDOW_S) /
			   (double)c->slots);

	if (need < min)
		need = min;
	if (need < 1)
		need = 1;
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

/* ---- the fleet ----------------------------------------------------------- */

/* The replica in slot r of the fleet's table. */
static struct sim_replica *sim_rep(const struct sim *s, size_t r)
{
	return (struct sim_replica *)s->pool.data + r;
}

static int sim_routed(const struct sim *s)
{
	return s->c->routing != SIM_ROUTE_SHARED;
}

static int sim_ll(const struct sim *s)
{
	return s->c->routing == SIM_ROUTE_LEAST_LOADED;
}

/* Routed: what least-loaded compares, requests running and queued. */
static uint64_t sim_load(const struct sim_replica *x)
{
	return (uint64_t)x->busy + x->q.len;
}

/* Least-loaded: tell the heap replica r's load changed (only ready
 * replicas are in it). */
static void sim_touch(struct sim *s, uint32_t r)
{
	if (sim_ll(s) && s->pool.rep[r].state == SIMPOOL_READY)
		simll_set(&s->ll, r, sim_load(sim_rep(s, r)));
}

/* Routed: replica r joins the ready list at its end, so the list is in
 * the order replicas became ready (their creation order when every cold
 * start is the same). */
static void sim_list_add(struct sim *s, uint32_t r)
{
	struct sim_replica *x = sim_rep(s, r);

	x->rnext = SIM_NONE;
	x->rprev = s->rtail;
	if (s->rtail == SIM_NONE)
		s->rhead = r;
	else
		sim_rep(s, s->rtail)->rnext = r;
	s->rtail = r;
	if (sim_ll(s))
		simll_add(&s->ll, r, sim_load(x), x->born);
}

static void sim_list_del(struct sim *s, uint32_t r)
{
	struct sim_replica *x = sim_rep(s, r);

	if (sim_ll(s))
		simll_del(&s->ll, r);
	if (s->rrnext == r)
		s->rrnext = x->rnext;
	if (x->rprev == SIM_NONE)
		s->rhead = x->rnext;
	else
		sim_rep(s, x->rprev)->rnext = x->rnext;
	if (x->rnext == SIM_NONE)
		s->rtail = x->rprev;
	else
		sim_rep(s, x->rnext)->rprev = x->rprev;
}

/* A replica became ready after its cold start: remember it for
 * coldStartQuery. */
static void sim_seen(struct sim *s, double cold)
{
	s->seen[s->seen_next] = cold;
	s->seen_at[s->seen_next] = s->now;
	s->seen_next = (s->seen_next + 1) % SIM_COLD_SEEN_MAX;
	if (s->nseen < SIM_COLD_SEEN_MAX)
		s->nseen++;
}

static int sim_cmp_double(const void *a, const void *b);

/* The median of the cold starts seen within the last SIM_COLD_SEEN_S (of
 * the last SIM_COLD_SEEN_MAX); NaN when none. */
static double sim_seen_median(const struct sim *s)
{
	double v[SIM_COLD_SEEN_MAX];
	size_t i, n = 0;

	for (i = 0; i < s->nseen; i++)
		if (s->seen_at[i] >= s->now - SIM_COLD_SEEN_S)
			v[n++] = s->seen[i];
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), sim_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int sim_new_replica(struct sim *s, int ready)
{
	struct sim_replica *x;
	long r = simpool_add(&s->pool, s->now, ready);

	if (r < 0 || (sim_ll(s) && simll_reserve(&s->ll, s->pool.cap)))
		return -1;
	x = sim_rep(s, (size_t)r);
	x->busy = 0;
	x->born = s->born++;
	simq_init(&x->q);
	x->rnext = x->rprev = SIM_NONE;
	if (ready) {
		s->free_ready += (uint64_t)s->c->slots;
		if (sim_routed(s))
			sim_list_add(s, (uint32_t)r);
		return 0;
	}
	return simheap_push(&s->heap, s->pool.rep[r].ready_at, EV_READY,
			    (uint32_t)r);
}

/* ---- requests ------------------------------------------------------------ */

/* Shared queue: the ready serving replica with the most free slots, or
 * -1. */
static long sim_pick(const struct sim *s)
{
	long best = -1, slots = s->c->slots;
	size_t r;

	if (s->free_ready == 0)
		return -1;
	for (r = 0; r < s->pool.nrep; r++) {
		const struct sim_replica *x = sim_rep(s, r);

		if (s->pool.rep[r].state != SIMPOOL_READY || x->busy >= slots)
			continue;
		if (best < 0 || x->busy < sim_rep(s, (size_t)best)->busy)
			best = (long)r;
	}
	return best;
}

/* Routed: the replica the next request goes to, or SIM_NONE when none is
 * ready.  Least-loaded: fewest requests running and queued on it, ties
 * to the oldest (the heap); round-robin: the ready list in turn. */
static uint32_t sim_pick_routed(struct sim *s)
{
	uint32_t r;

	if (sim_ll(s))
		return simll_min(&s->ll);
	r = s->rrnext != SIM_NONE ? s->rrnext : s->rhead;
	if (r != SIM_NONE)
		s->rrnext = sim_rep(s, r)->rnext;
	return r;
}

static int sim_start(struct sim *s, uint32_t q, size_t r)
{
	const struct trace_req *req = &s->t->req[q];
	double wait = s->now - req->arrival_s;

	s->started++;
	if (wait > 0)
		s->waits[s->nwaits++] = wait;
	else
		s->nowait++;
	if (wait <= s->c->sla_s)
		s->within++;
	else
		s->cnt[S_MISS] += 1;
	s->cnt[S_FINISHED] += 1;
	sim_rep(s, r)->busy++;
	s->free_ready--;
	s->inflight++;
	s->busy_serving++;
	s->req_rep[q] = (uint32_t)r;
	s->where[q] = Q_RUNNING;
	return simheap_push(&s->heap, s->now + req->service_s, EV_DONE, q);
}

static void sim_wait_gateway(struct sim *s, uint32_t q)
{
	simq_push(&s->links, &s->gw, q);
	s->where[q] = Q_GATEWAY;
	s->qlen++;
}

/* Routed: send request q (in no queue) to a replica: it starts there at
 * once if a slot is free (then its queue is empty), else joins that
 * replica's queue; with no ready replica it waits at the gateway. */
static int sim_route(struct sim *s, uint32_t q)
{
	uint32_t r = sim_pick_routed(s);
	struct sim_replica *x;

	if (r == SIM_NONE) {
		sim_wait_gateway(s, q);
		return 0;
	}
	x = sim_rep(s, r);
	if (x->busy < s->c->slots) {
		if (sim_start(s, q, r))
			return -1;
	} else {
		simq_push(&s->links, &x->q, q);
		s->where[q] = Q_REPLICA;
		s->req_rep[q] = r;
		s->qlen++;
	}
	sim_touch(s, r);
	return 0;
}

/* Shared: start gateway requests while a slot is free anywhere. */
static int sim_dispatch(struct sim *s)
{
	while (s->gw.len > 0) {
		long r = sim_pick(s);
		uint32_t q;

		if (r < 0)
			break;
		q = simq_pop(&s->links, &s->gw);
		s->qlen--;
		if (sim_start(s, q, (size_t)r))
			return -1;
	}
	return 0;
}

/* Routed: route what waits at the gateway, oldest first, while a replica
 * is ready (sim_route never sends back to the gateway then). */
static int sim_flush(struct sim *s)
{
	uint32_t q;

	s->route_pending = 0;
	while (s->rhead != SIM_NONE && s->gw.len > 0) {
		q = simq_pop(&s->links, &s->gw);
		s->where[q] = Q_OUT;
		s->qlen--;
		if (sim_route(s, q))
			return -1;
	}
	return 0;
}

/* Shed every waiting request whose wait exceeds the timeout before t.
 * Arrival order is expiry order, so the cursor never goes back. */
static void sim_expire(struct sim *s, double t)
{
	while (s->expire < s->next &&
	       s->t->req[s->expire].arrival_s + s->c->queue_timeout_s < t) {
		uint32_t q = (uint32_t)s->expire++;

		if (s->where[q] == Q_GATEWAY)
			simq_unlink(&s->links, &s->gw, q);
		else if (s->where[q] == Q_REPLICA) {
			uint32_t r = s->req_rep[q];

			simq_unlink(&s->links, &sim_rep(s, r)->q, q);
			sim_touch(s, r);
		} else {
			continue;
		}
		s->where[q] = Q_OUT;
		s->qlen--;
		s->shed++;
		s->cnt[S_SHED] += 1;
		s->cnt[S_MISS] += 1;
		s->cnt[S_FINISHED] += 1;
	}
}

static int sim_arrive(struct sim *s)
{
	uint32_t q = (uint32_t)s->next++;

	s->cnt[S_ARR] += 1;
	if (!sim_routed(s)) {
		sim_wait_gateway(s, q);
		return sim_dispatch(s);
	}
	/* FIFO at the gateway: nobody overtakes those already waiting
	 * there (they are on their way to a replica just made ready). */
	if (s->gw.len > 0) {
		sim_wait_gateway(s, q);
		return 0;
	}
	return sim_route(s, q);
}

static int sim_done(struct sim *s, uint32_t q)
{
	size_t r = s->req_rep[q];
	struct sim_replica *x = sim_rep(s, r);
	uint32_t next;

	x->busy--;
	s->inflight--;
	s->where[q] = Q_OUT;
	s->cnt[S_SVC_SUM] += s->t->req[q].service_s;
	s->cnt[S_SVC_CNT] += 1;
	if (s->pool.rep[r].state == SIMPOOL_DRAINING) {
		if (x->busy == 0)
			simpool_gone(&s->pool, r, s->now);
		return 0;
	}
	s->busy_serving--;
	s->free_ready++;
	if (!sim_routed(s))
		return sim_dispatch(s);
	next = simq_pop(&s->links, &x->q);
	if (next != SIMQ_NIL) {
		s->qlen--;
		if (sim_start(s, next, r))
			return -1;
	}
	sim_touch(s, (uint32_t)r);
	return 0;
}

static int sim_ready(struct sim *s, uint32_t r)
{
	const struct simpool_rep *x;

	/* A replica removed while starting may have left this event behind
	 * (its slot possibly reused by a later replica). */
	if (!simpool_ready(&s->pool, r, s->now))
		return 0;
	x = &s->pool.rep[r];
	sim_seen(s, x->ready_at - x->created);
	s->free_ready += (uint64_t)s->c->slots;
	if (!sim_routed(s))
		return sim_dispatch(s);
	sim_list_add(s, r);
	/* Flush the gateway once every replica ready at this instant is on
	 * the list (their events were pushed before this one), so a backlog
	 * is spread over all of them, not all sent to the first. */
	if (s->gw.len > 0 && !s->route_pending) {
		s->route_pending = 1;
		return simheap_push(&s->heap, s->now, EV_ROUTE, 0);
	}
	return 0;
}

/* ---- scaling ------------------------------------------------------------- */

/* Routed: keep the requests queued on a replica put to drain, to route
 * again (sim_reroute); they keep their arrival time. */
static int sim_take_queue(struct sim *s, struct sim_replica *x)
{
	uint32_t q;

	if (s->nmoved + x->q.len > s->capmoved) {
		size_t cap = s->capmoved ? s->capmoved : 256;
		uint32_t *m;

		while (cap < s->nmoved + x->q.len)
			cap *= 2;
		if (cap > s->t->n)
			cap = s->t->n;
		m = realloc(s->moved, cap * sizeof(*m));
		if (!m)
			return -1;
		s->moved = m;
		s->capmoved = cap;
	}
	while ((q = simq_pop(&s->links, &x->q)) != SIMQ_NIL) {
		s->moved[s->nmoved++] = q;
		s->where[q] = Q_OUT;
		s->qlen--;
	}
	return 0;
}

static int sim_remove_one(struct sim *s)
{
	long r = simpool_drain(&s->pool, s->now);
	struct sim_replica *x;

	if (r < 0)
		return 0;
	x = sim_rep(s, (size_t)r);
	s->busy_serving -= (uint64_t)x->busy;
	s->free_ready -= (uint64_t)(s->c->slots - x->busy);
	if (sim_routed(s)) {
		sim_list_del(s, (uint32_t)r);
		if (sim_take_queue(s, x))
			return -1;
	}
	if (x->busy == 0)
		simpool_gone(&s->pool, (size_t)r, s->now);
	return 0;
}

static int sim_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Route the drained queues again, oldest arrival first.  The gateway is
 * empty here (it only holds requests while no replica is ready, and one
 * was, to be drained), so those that find no replica keep FIFO order in
 * it. */
static int sim_reroute(struct sim *s)
{
	size_t i;

	qsort(s->moved, s->nmoved, sizeof(*s->moved), sim_cmp_u32);
	for (i = 0; i < s->nmoved; i++)
		if (sim_route(s, s->moved[i]))
			return -1;
	s->nmoved = 0;
	return 0;
}

static int sim_set_spec(struct sim *s, int32_t target)
{
	int32_t n = simpool_scale(&s->pool, target);

	for (; n > 0; n--)
		if (sim_new_replica(s, 0))
			return -1;
	for (; n < 0; n++)
		if (sim_remove_one(s))
			return -1;
	return s->nmoved > 0 ? sim_reroute(s) : 0;
}

/* ---- control ------------------------------------------------------------- */

static double sim_rate_over(const struct sim *s, int k, double t,
			    double window_s)
{
	double v;

	return simprom_rate(&s->ser[k], t, window_s, &v) ? NAN : v;
}

static double sim_rate(const struct sim *s, int k, double t)
{
	return sim_rate_over(s, k, t, s->c->rate_window_s);
}

static double sim_gauge(const struct sim *s, int k, double t)
{
	double v;

	return simprom_last(&s->ser[k], t, &v) ? NAN : v;
}

/*
 * What the policy reads now.  staffer's server reads the arrival rate, and
 * its ranges, from the newest point of a range refreshed on its grid
 * (fetch.h), which is what is read here at now: the points on the grid
 * at or before it.  Its other instant answers come from its answer cache,
 * answer_age_s old (staffer:age=S).  The pod counts are the API's, as of
 * now.
 */
static void sim_view(struct sim *s, struct policy_view *v)
{
	double t = s->now;

	v->now = t;
	v->arrival_rate = sim_rate(s, S_ARR, t);
	t -= s->p->answer_age_s;        /* 0 but for staffer:age=S */
	v->service_rate = sim_rate_over(s, S_SVC_SUM, t,
					s->c->service_window_s);
	v->completion_rate = sim_rate_over(s, S_SVC_CNT, t,
					   s->c->service_window_s);
	v->shed_rate = sim_rate(s, S_SHED, t);
	v->busy_rate = sim_rate(s, S_BUSY, t);
	v->queue_depth = sim_gauge(s, S_QUEUE, t);
	v->inflight = sim_gauge(s, S_INFLIGHT, t);
	v->spec = s->pool.spec;
	v->status = s->pool.n_starting + s->pool.n_ready;
	v->ready = s->pool.n_ready;
	v->slots = s->c->slots;
	v->arrivals = &s->ser[S_ARR];
	v->replicas = &s->ser[S_SPEC];
	v->misses = &s->ser[S_MISS];
	v->finished = &s->ser[S_FINISHED];
	v->rate_window_s = s->c->rate_window_s;
	v->trace = s->t;
	if (simpool_cold(&s->pool, 0, &v->cold_start_s))
		v->cold_start_s = s->c->cold_start_s;
	v->cold_seen = sim_seen_median(s);
}

static void sim_scrape(struct sim *s)
{
	int k;

	s->cnt[S_QUEUE] = (double)s->qlen;
	s->cnt[S_INFLIGHT] = (double)s->inflight;
	s->cnt[S_SPEC] = (double)s->pool.spec;
	for (k = 0; k < S_N; k++)
		simseries_add(&s->ser[k], s->now, s->cnt[k]);
}

static int sim_hpa(struct sim *s)
{
	struct policy_view v;
	int32_t prop, next;

	sim_view(s, &v);
	prop = policy_proposal(&s->run, &v);
	next = hpa_reconcile(s->run.hpa, s->now, s->pool.spec, prop);
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
	next = keda_poll(&s->run.keda, s->now, active, s->pool.spec);
	return next >= 0 ? sim_set_spec(s, next) : 0;
}

/* The oracle's replicas over a horizon of h s (clamped to the policy's
 * bounds). */
static double sim_oracle_need(const struct sim *s, double h)
{
	const struct policy *p = s->p;
	double need = ceil((double)demand_max(s->d, s->now, s->now + h +
					      s->c->oracle_step_s) /
			   (double)s->c->slots);

	if (need < p->keda.min_replica_count)
		need = p->keda.min_replica_count;
	if (need > p->hpa.max_replicas)
		need = p->hpa.max_replicas;
	return need;
}

/*
 * Each replica in time for its own cold start: the k-th replica still to
 * be created (its cold start x_k drawn already, simpool_cold()) is ordered
 * now when the demand within x_k needs more than the live ones and the k
 * before it; a replica still starting is kept while the demand before it
 * is ready needs it; and never fewer than the demand within the nominal
 * cold start needs.  A horizon of the nominal cold start alone saw a rise
 * too late for the replicas whose start is longer, and let the next step
 * drop those it had ordered (74 % on the synthetic surge at 300 s, where
 * a fixed cold start gives 100 %).
 */
static int sim_oracle(struct sim *s)
{
	double h = s->c->cold_start_s, need, x;
	int32_t live = s->pool.n_starting + s->pool.n_ready;
	int32_t max = s->p->hpa.max_replicas;
	size_t k, r;

	for (r = 0; r < s->pool.nrep; r++)
		if (s->pool.rep[r].state == SIMPOOL_STARTING &&
		    s->pool.rep[r].ready_at - s->now > h)
			h = s->pool.rep[r].ready_at - s->now;
	need = sim_oracle_need(s, h);
	for (k = 0; live + (int32_t)k < max; k++) {
		if (simpool_cold(&s->pool, k, &x))
			return -1;
		if (sim_oracle_need(s, x) > (double)live + (double)k &&
		    need < (double)live + (double)k + 1)
			need = (double)live + (double)k + 1;
	}
	return sim_set_spec(s, (int32_t)need);
}

static void sim_sample(struct sim *s, sim_sample_fn *fn, void *arg)
{
	struct sim_sample x;

	x.t = s->now;
	x.spec = s->pool.spec;
	x.ready = s->pool.n_ready;
	x.starting = s->pool.n_starting;
	x.draining = s->pool.n_draining;
	x.demand = (double)demand_max(s->d, s->now, s->now) /
		   (double)s->c->slots;
	x.queue = s->qlen;
	x.inflight = s->inflight;
	x.shed = s->shed - s->shed_sampled;
	s->shed_sampled = s->shed;
	x.raw = s->run.have_last ? (int32_t)s->run.last.raw : -1;
	x.cold_seen = sim_seen_median(s);
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
		if (sim_oracle(s))
			return -1;
		return simheap_push(&s->heap, s->now + c->oracle_step_s,
				    EV_ORACLE, 0);
	case EV_SAMPLE:
		if (fn)
			sim_sample(s, fn, arg);
		return simheap_push(&s->heap, s->now + c->ts_step_s,
				    EV_SAMPLE, 0);
	case EV_ROUTE:
		return sim_flush(s);
	}
	return 0;
}

static int sim_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank percentile p of the started requests' waits: the
 * first `zero` of them 0, then v[0..n) sorted.  NaN when none started. */
static double sim_rank(const double *v, size_t n, uint64_t zero, double p)
{
	double k, all = (double)zero + (double)n;

	if (!(all > 0))
		return NAN;
	k = ceil(p * all);
	if (k < 1)
		k = 1;
	return k <= (double)zero ? 0 : v[(size_t)(k - (double)zero) - 1];
}

static void sim_results(struct sim *s, struct sim_result *o)
{
	size_t i;
	double sum = 0;

	memset(o, 0, sizeof(*o));
	o->requests = s->t->n;
	o->started = s->started;
	o->within_sla = s->within;
	o->shed = s->shed;
	o->sla_attainment = (double)s->within / (double)s->t->n;
	o->shed_fraction = (double)s->shed / (double)s->t->n;
	if (simsort_doubles(s->waits, s->nwaits))
		qsort(s->waits, s->nwaits, sizeof(*s->waits),
		      sim_cmp_double);
	for (i = 0; i < s->nwaits; i++)
		sum += s->waits[i];
	o->wait_mean = s->started ? sum / (double)s->started : NAN;
	o->wait_p50 = sim_rank(s->waits, s->nwaits, s->nowait, 0.50);
	o->wait_p95 = sim_rank(s->waits, s->nwaits, s->nowait, 0.95);
	o->wait_p99 = sim_rank(s->waits, s->nwaits, s->nowait, 0.99);
	o->replica_hours = simpool_replica_s(&s->pool) / 3600.0;
	for (i = 0, sum = 0; i < s->t->n; i++)
		sum += simpool_overlap(&s->pool, s->t->req[i].arrival_s,
				       s->t->req[i].arrival_s +
				       s->t->req[i].service_s);
	o->lower_bound_hours = sum / (double)s->c->slots / 3600.0;
	o->scale_events = s->pool.scale_events;
	o->metric_errors = s->run.metric_errors;
	o->peak_replicas = s->pool.peak;
	o->never_scales_up = policy_never_scales_up(&s->run, s->c->slots);
}

static void sim_free(struct sim *s)
{
	int k;

	policy_run_free(&s->run);
	simheap_free(&s->heap);
	for (k = 0; k < S_N; k++)
		simseries_free(&s->ser[k]);
	simpool_free(&s->pool);
	simq_links_free(&s->links);
	simll_free(&s->ll);
	free(s->where);
	free(s->req_rep);
	free(s->waits);
	free(s->moved);
}

int sim_run(const struct sim_config *c, const struct trace *t,
	    const struct demand *d, const struct policy *p,
	    struct sim_result *out, sim_sample_fn *fn, void *arg, char *err,
	    size_t errlen)
{
	struct sim s;
	struct simev e;
	struct simpool_config pc = {
		sizeof(struct sim_replica), 64, SIM_REPLICAS_MAX, c->end_s,
		c->cold_start_s, c->cold_start_cv, c->cold_seed, 0,
	};
	double span;
	size_t cap;
	int32_t i, start;
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
	simpool_init(&s.pool, &pc);
	/* Keep what the longest query looks back over. */
	span = c->rate_window_s > c->service_window_s ? c->rate_window_s
						      : c->service_window_s;
	if (p->kind == POLICY_STAFFER) {
		/* the longest ranges a measured cold start can size */
		double range, step, cold = p->meta.cold_start_query ?
			decide_size_cold(&p->meta, META_COLD_START_MAX) : 0;

		decide_series_query_cold(&p->meta, cold, &range, &step);
		span += range;
		decide_surge_query_cold(&p->meta, cold, &range, &step);
		if (range + c->rate_window_s > span)
			span = range + c->rate_window_s;
	}
	if (p->kind == POLICY_STAFFER && p->meta.current_replicas_query &&
	    p->meta.scale_down_period_s + SIMPROM_LOOKBACK_S > span)
		span = p->meta.scale_down_period_s + SIMPROM_LOOKBACK_S;
	span += p->answer_age_s;        /* 0 but for staffer:age=S */
	cap = (size_t)(span / c->scrape_s) + 4;
	if (cap > SIMPROM_SAMPLES_MAX)
		cap = SIMPROM_SAMPLES_MAX;
	for (k = 0; k < S_N; k++)
		if (simseries_init(&s.ser[k], cap))
			goto oom;
	s.where = calloc(t->n, sizeof(*s.where));
	s.req_rep = malloc(t->n * sizeof(*s.req_rep));
	s.waits = malloc(t->n * sizeof(*s.waits));
	if (simq_links_init(&s.links, t->n) || !s.where || !s.req_rep ||
	    !s.waits || policy_run_init(&s.run, p))
		goto oom;
	simq_init(&s.gw);
	simll_init(&s.ll);
	s.rhead = s.rtail = s.rrnext = SIM_NONE;
	/* A static fleet is its own size from the start, for the whole
	 * run: no HPA, no KEDA. */
	start = c->initial_replicas;
	if (p->kind == POLICY_STATIC && p->static_replicas >= 0)
		start = p->static_replicas;
	for (i = 0; i < start; i++)
		if (sim_new_replica(&s, 1))
			goto oom;
	s.pool.spec = s.pool.peak = start;
	if (simheap_push(&s.heap, 0, EV_SCRAPE, 0))
		goto oom;
	if (p->kind == POLICY_ORACLE) {
		if (simheap_push(&s.heap, 0, EV_ORACLE, 0))
			goto oom;
	} else if (p->kind != POLICY_STATIC &&
		   (simheap_push(&s.heap, c->rate_window_s +
				 c->hpa_sync_s / 2, EV_HPA, 0) ||
		    simheap_push(&s.heap, c->rate_window_s +
				 p->keda.poll_s / 3, EV_KEDA, 0))) {
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
