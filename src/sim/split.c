/*
 * split.c - see split.h.
 *
 * Time moves at events: arrivals from the sorted trace, the rest from a
 * binary heap (simheap.h; at equal times heap events first, in push
 * order).  Prompts and sequences wait on simroute lists: the prefill
 * queue and the decode queue share one pair of link arrays, a request
 * being in at most one of them.  A prefill replica holds the batch it
 * runs; a decode replica its sequences, those running the current step
 * first and those that join at the next after them.
 */
#include "split.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "simheap.h"
#include "simpool.h"
#include "simroute.h"
#include "simrng.h"
#include "simsort.h"
#include "splitpol.h"

enum { EV_PREFILL_DONE, EV_KV_ARRIVE, EV_STEP, EV_READY, EV_SCRAPE,
       EV_HPA, EV_KEDA, EV_DIRECT, EV_SAMPLE };

/* Event arguments of replica events: the pool in the top bit. */
/* How long after end_s the run follows what is left. */
#define SPLIT_DRAIN_MAX_S 86400.0

#define SPLIT_ARG(k, r) ((uint32_t)(r) | ((uint32_t)(k) << 31))
#define SPLIT_ARG_POOL(a) ((int)((a) >> 31))
#define SPLIT_ARG_REP(a) ((size_t)((a) & 0x7fffffffu))

/* What a pool keeps per replica beside its state (simpool.h's data). */
struct split_rep {
	uint32_t *work;          /* prefill: its batch; decode: its
				  * sequences, running then joining */
	uint32_t nrun, njoin;    /* decode: running, joining (prefill:
				  * nrun the batch, a batch in progress) */
	double kv;               /* decode: KV tokens reserved (input +
				  * output of its sequences) */
	double kv_used;          /* ... in use (input + generated) */
	double step_start;       /* decode: the step in progress began */
};

struct split {
	const struct split_config *c;
	const struct trace *t;
	struct splitpol_run run;
	struct simheap heap;
	struct simpool pool[SPLIT_POOLS]; /* each with its own cold starts */
	struct simq_links links;
	struct simq pq, dq;       /* prompts, sequences waiting */
	uint32_t *gen;            /* tokens generated per request */
	double *ttft;             /* per request; < 0: none yet */
	uint64_t prun, drun;      /* prompts in batches, sequences decoding */
	double kv;                /* KV reserved in the decode pool */
	double kv_used;           /* ... in use */
	size_t next;              /* next arrival */
	double now;
	double cnt[SS_N];
	struct simseries ser[SS_N];
	double *kv_util;          /* per ready decode replica, for views */
	size_t cap_kv_util;
	/* of the requests counted (split_config.count_from_s) */
	uint64_t shed, tokens, tokens_within, ttft_within, served;
	double itl_sum;
	double *ttfts;            /* of requests served */
	size_t nttfts;
	/* of every request: the time series', and the run's end */
	uint64_t ttft_missed, tokens_missed, ended;
	uint64_t sampled_ttft_missed, sampled_tokens_missed;
};

void split_config_init(struct split_config *c)
{
	memset(c, 0, sizeof(*c));
	c->queue_timeout_s = 60;
	c->cold_start_s = 120;
	c->cold_start_cv = 0;
	c->cold_seed = 1;
	c->scrape_s = 15;
	c->rate_window_s = 60;
	c->hpa_sync_s = 15;
	c->prefill_budget = 8192;
	c->decode_slots = 64;
	c->kv_tokens = 400000;
	c->kv_base_s = 0.005;
	c->kv_per_token_s = 6.5e-6;
	c->ttft_s = 2;
	c->itl_s = 0.04;
	c->initial[SPLIT_PREFILL] = 1;
	c->initial[SPLIT_DECODE] = 1;
}

int split_config_check(const struct split_config *c, char *err,
		       size_t errlen)
{
	const char *what = NULL;

	if (!c->perf || c->perf->nprompt == 0 || c->perf->nbatch == 0)
		what = "no engine profile";
	else if (!(c->queue_timeout_s > 0) || c->queue_timeout_s > 86400)
		what = "queue timeout must be above 0 and up to 86400 s";
	else if (!(c->cold_start_s >= 0) || c->cold_start_s > 86400)
		what = "cold start must be 0 to 86400 s";
	else if (!(c->cold_start_cv >= 0) ||
		 c->cold_start_cv > SIM_COLD_CV_MAX)
		what = "cold start CV must be 0 to 3";
	else if (!(c->scrape_s >= 1) || c->scrape_s > 3600)
		what = "scrape interval must be 1 to 3600 s";
	else if (!(c->rate_window_s > c->scrape_s) ||
		 c->rate_window_s > 86400)
		what = "rate window must be longer than the scrape interval, "
		       "up to 86400 s";
	else if (!(c->hpa_sync_s >= 1) || c->hpa_sync_s > 3600)
		what = "HPA sync period must be 1 to 3600 s";
	else if (c->prefill_budget < 1 || c->prefill_budget > 10000000)
		what = "prefill budget must be 1 to 10000000 tokens";
	else if (c->decode_slots < 1 || c->decode_slots > SPLIT_SLOTS_MAX)
		what = "decode slots must be 1 to 4096";
	else if (!(c->kv_tokens >= 1) || c->kv_tokens > 1e12)
		what = "KV-cache tokens must be 1 to 1e12";
	else if (!(c->kv_base_s >= 0) || c->kv_base_s > 600 ||
		 !(c->kv_per_token_s >= 0) || c->kv_per_token_s > 1)
		what = "KV transfer must be 0 to 600 s and 0 to 1 s a token";
	else if (!(c->ttft_s > 0) || c->ttft_s > 3600 || !(c->itl_s > 0) ||
		 c->itl_s > 10)
		what = "targets: TTFT above 0 up to 3600 s, ITL above 0 up to "
		       "10 s";
	else if (c->initial[SPLIT_PREFILL] < 0 ||
		 c->initial[SPLIT_DECODE] < 0 ||
		 (uint32_t)c->initial[SPLIT_PREFILL] > SPLIT_REPLICAS_MAX ||
		 (uint32_t)c->initial[SPLIT_DECODE] > SPLIT_REPLICAS_MAX)
		what = "initial replicas must be 0 to 20000 a pool";
	else if (!(c->end_s > 0) || c->end_s > TRACE_TIME_MAX)
		what = "the trace must last more than 0 s";
	else if (!(c->count_from_s >= 0) || !(c->count_from_s < c->end_s))
		what = "counting must start at 0 s or later, before the "
		       "trace's end";
	else if (!(c->ts_step_s >= 0) ||
		 (c->ts_step_s > 0 && c->end_s / c->ts_step_s > 1e7))
		what = "timeseries step must be >= 0 and give at most 1e7 "
		       "points";
	if (what) {
		snprintf(err, errlen, "%s", what);
		return -1;
	}
	return 0;
}

double split_transfer_s(const struct split_config *c, double tokens)
{
	return c->kv_base_s + tokens * c->kv_per_token_s;
}

/* A request's output tokens, at least one. */
static uint32_t split_out(const struct trace_req *q)
{
	return q->output_tokens > 0 ? (uint32_t)q->output_tokens : 1;
}

static double split_need_kv(const struct split_config *c,
			    const struct trace_req *q)
{
	double need = (double)(q->input_tokens > 0 ? q->input_tokens : 0) +
		      (double)split_out(q);

	/* a sequence larger than a replica's KV takes a whole one */
	return need > c->kv_tokens ? c->kv_tokens : need;
}

/* Decode ends by arrival order for the warm start's sweep. */
static int split_cmp_double(const void *a, const void *b);

void split_first_minute(const struct split_config *c, const struct trace *t,
			int32_t out[SPLIT_POOLS])
{
	const double bin = 10;
	double bins[6] = { 0 }, peak = 0, need, itl, *end = NULL;
	long b = splitpol_batch_within(c->perf, c->itl_s, c->decode_slots);
	size_t i, j, n, live = 0, most = 0;

	if (b < 1)
		b = 1;
	itl = perf_token_s(c->perf, (double)b);
	for (n = 0; n < t->n && t->req[n].arrival_s < SIM_WARM_WINDOW_S; n++)
		bins[(size_t)(t->req[n].arrival_s / bin) % 6] +=
			t->req[n].input_tokens > 0 ? t->req[n].input_tokens : 0;
	for (i = 0; i < 6; i++)
		if (bins[i] / bin > peak)
			peak = bins[i] / bin;
	need = ceil(peak / splitpol_prefill_tps(c->perf,
						(double)c->prefill_budget));
	out[SPLIT_PREFILL] = need < 1 ? 1 : need > SPLIT_REPLICAS_MAX ?
			     (int32_t)SPLIT_REPLICAS_MAX : (int32_t)need;
	/* the most sequences decoding at once, each from its arrival for
	 * its output at the ITL target's batch */
	if (n > 0)
		end = malloc(n * sizeof(*end));
	for (i = 0; end && i < n; i++)
		end[i] = t->req[i].arrival_s + (double)split_out(&t->req[i]) *
			 itl;
	if (end)
		qsort(end, n, sizeof(*end), split_cmp_double);
	for (i = 0, j = 0; end && i < n; i++) {
		while (j < n && end[j] <= t->req[i].arrival_s) {
			j++;
			live--;
		}
		if (++live > most)
			most = live;
	}
	free(end);
	need = ceil((double)most / (double)b);
	out[SPLIT_DECODE] = need < 1 ? 1 : need > SPLIT_REPLICAS_MAX ?
			    (int32_t)SPLIT_REPLICAS_MAX : (int32_t)need;
}

/* ---- replicas ----------------------------------------------------------- */

/* The replica in slot r of pool k's table. */
static struct split_rep *split_rep_at(const struct split *s, int k, size_t r)
{
	return (struct split_rep *)s->pool[k].data + r;
}

static int split_new_replica(struct split *s, int k, int ready)
{
	size_t cap_work = k == SPLIT_PREFILL ? SPLIT_BATCH_MAX :
			  (size_t)s->c->decode_slots;
	long r = simpool_add(&s->pool[k], s->now, ready);
	struct split_rep *x;

	if (r < 0)
		return -1;
	x = split_rep_at(s, k, (size_t)r);
	/* a slot made new holds no work array yet; a reused one keeps its
	 * own (the same size: the pool's) */
	if (!x->work)
		x->work = malloc(cap_work * sizeof(uint32_t));
	if (!x->work)
		return -1;
	x->nrun = x->njoin = 0;
	x->kv = 0;
	x->kv_used = 0;
	x->step_start = 0;
	if (ready)
		return 0;
	return simheap_push(&s->heap, s->pool[k].rep[r].ready_at, EV_READY,
			    SPLIT_ARG(k, r));
}

static void split_remove_one(struct split *s, int k)
{
	long r = simpool_drain(&s->pool[k], s->now);
	struct split_rep *x;

	if (r < 0)
		return;
	x = split_rep_at(s, k, (size_t)r);
	if (x->nrun + x->njoin == 0)
		simpool_gone(&s->pool[k], (size_t)r, s->now);
}

static int split_dispatch(struct split *s);
static int split_admit(struct split *s);

/* A policy's answer is held within what a pool's table takes. */
static int split_set_spec(struct split *s, int k, int32_t target)
{
	int32_t n = simpool_scale(&s->pool[k],
				  target > (int32_t)SPLIT_REPLICAS_MAX ?
				  (int32_t)SPLIT_REPLICAS_MAX : target);

	for (; n > 0; n--)
		if (split_new_replica(s, k, 0))
			return -1;
	for (; n < 0; n++)
		split_remove_one(s, k);
	return 0;
}

/* ---- prefill ------------------------------------------------------------ */

/* Shed the prompts that have waited longer than the timeout before t:
 * the queue is in arrival order, so its head is the oldest. */
static void split_expire(struct split *s, double t)
{
	uint32_t q;

	while ((q = s->pq.head) != SIMQ_NIL &&
	       s->t->req[q].arrival_s + s->c->queue_timeout_s < t) {
		simq_unlink(&s->links, &s->pq, q);
		s->ttft_missed++;
		s->ended++;
		if (s->t->req[q].arrival_s >= s->c->count_from_s)
			s->shed++;
		s->cnt[SS_SHED] += 1;
		s->cnt[SS_FIRST] += 1;
		s->cnt[SS_TTFT_MISS] += 1;
	}
}

/* Idle ready prefill replicas take batches from the queue. */
static int split_dispatch(struct split *s)
{
	const struct simpool *p = &s->pool[SPLIT_PREFILL];
	size_t r;

	for (r = 0; r < p->nrep && s->pq.len > 0; r++) {
		struct split_rep *x = split_rep_at(s, SPLIT_PREFILL, r);
		double tokens = 0, sq = 0;
		uint32_t q;

		if (p->rep[r].state != SIMPOOL_READY || x->nrun > 0)
			continue;
		while ((q = s->pq.head) != SIMQ_NIL &&
		       x->nrun < SPLIT_BATCH_MAX) {
			double in = s->t->req[q].input_tokens > 0 ?
				    s->t->req[q].input_tokens : 0;

			if (x->nrun > 0 &&
			    tokens + in > (double)s->c->prefill_budget)
				break;
			simq_unlink(&s->links, &s->pq, q);
			x->work[x->nrun++] = q;
			tokens += in;
			sq += in * in;
		}
		s->prun += x->nrun;
		if (simheap_push(&s->heap, s->now +
				 perf_prefill_batch_s(s->c->perf, tokens, sq),
				 EV_PREFILL_DONE, SPLIT_ARG(SPLIT_PREFILL, r)))
			return -1;
	}
	return 0;
}

static int split_prefill_done(struct split *s, size_t r)
{
	struct split_rep *x = split_rep_at(s, SPLIT_PREFILL, r);
	uint32_t i;

	for (i = 0; i < x->nrun; i++) {
		const struct trace_req *q = &s->t->req[x->work[i]];

		if (simheap_push(&s->heap, s->now + split_transfer_s(s->c,
				 q->input_tokens > 0 ? q->input_tokens : 0),
				 EV_KV_ARRIVE, x->work[i]))
			return -1;
	}
	s->prun -= x->nrun;
	x->nrun = 0;
	if (s->pool[SPLIT_PREFILL].rep[r].state == SIMPOOL_DRAINING) {
		simpool_gone(&s->pool[SPLIT_PREFILL], r, s->now);
		return 0;
	}
	return split_dispatch(s);
}

/* ---- decode ------------------------------------------------------------- */

/* Start a step on decode replica r if it has sequences and none runs:
 * the joining ones run too. */
static int split_kick(struct split *s, size_t r)
{
	struct split_rep *x = split_rep_at(s, SPLIT_DECODE, r);

	if (x->nrun > 0 || x->njoin == 0)
		return 0;
	x->nrun = x->njoin;
	x->njoin = 0;
	x->step_start = s->now;
	return simheap_push(&s->heap, s->now +
			    perf_token_s(s->c->perf, (double)x->nrun),
			    EV_STEP, SPLIT_ARG(SPLIT_DECODE, r));
}

/* The decode queue's head goes to the ready replica with the fewest
 * sequences that has a slot and KV room for it; the queue waits while
 * it fits nowhere. */
static int split_admit(struct split *s)
{
	const struct simpool *p = &s->pool[SPLIT_DECODE];
	uint32_t q;

	while ((q = s->dq.head) != SIMQ_NIL) {
		double need = split_need_kv(s->c, &s->t->req[q]);
		struct split_rep *b = NULL;
		long best = -1;
		size_t r;

		for (r = 0; r < p->nrep; r++) {
			struct split_rep *x = split_rep_at(s, SPLIT_DECODE, r);
			uint32_t n = x->nrun + x->njoin;

			if (p->rep[r].state != SIMPOOL_READY ||
			    n >= (uint32_t)s->c->decode_slots ||
			    x->kv + need > s->c->kv_tokens)
				continue;
			if (best < 0 || n < b->nrun + b->njoin) {
				best = (long)r;
				b = x;
			}
		}
		if (best < 0)
			return 0;
		simq_unlink(&s->links, &s->dq, q);
		b->work[b->nrun + b->njoin++] = q;
		b->kv += need;
		s->kv += need;
		need = s->t->req[q].input_tokens > 0 ?
		       s->t->req[q].input_tokens : 0;
		b->kv_used += need;
		s->kv_used += need;
		s->drun++;
		if (split_kick(s, (size_t)best))
			return -1;
	}
	return 0;
}

/* A step ended on decode replica r: one token for each running
 * sequence; the finished leave; the joining run from the next step. */
static int split_step(struct split *s, size_t r)
{
	struct split_rep *x = split_rep_at(s, SPLIT_DECODE, r);
	double d = s->now - x->step_start;
	uint32_t i, kept = 0, n = x->nrun;

	s->cnt[SS_OUT] += (double)n;
	x->kv_used += (double)n;
	s->kv_used += (double)n;
	for (i = 0; i < n; i++) {
		uint32_t q = x->work[i];
		const struct trace_req *rq = &s->t->req[q];
		int counted = rq->arrival_s >= s->c->count_from_s;

		if (++s->gen[q] == 1) {
			double ttft = s->now - rq->arrival_s;
			int late = !(ttft <= s->c->ttft_s);

			s->cnt[SS_FIRST] += 1;
			s->cnt[SS_TTFT_MISS] += late;
			s->ttft_missed += (uint64_t)late;
			s->ended++;
			if (counted) {
				s->ttfts[s->nttfts++] = ttft;
				s->served++;
				s->ttft_within += (uint64_t)!late;
			}
		} else {
			int late = !(d <= s->c->itl_s);

			s->cnt[SS_ITL_SUM] += d;
			s->cnt[SS_ITL_N] += 1;
			s->tokens_missed += (uint64_t)late;
			if (counted) {
				s->tokens++;
				s->itl_sum += d;
				s->tokens_within += (uint64_t)!late;
			}
		}
		if (s->gen[q] >= split_out(rq)) {
			double need = split_need_kv(s->c, rq);
			double used = (double)(rq->input_tokens > 0 ?
					       rq->input_tokens : 0) +
				      (double)s->gen[q];

			x->kv -= need;
			s->kv -= need;
			x->kv_used -= used;
			s->kv_used -= used;
			s->drun--;
			s->cnt[SS_DONE] += 1;
			s->cnt[SS_DONE_OUT] += (double)split_out(rq);
			continue;
		}
		x->work[kept++] = q;
	}
	/* the joining move down behind the survivors */
	memmove(x->work + kept, x->work + n, x->njoin * sizeof(*x->work));
	x->nrun = 0;
	x->njoin += kept;
	if (x->nrun + x->njoin == 0 &&
	    s->pool[SPLIT_DECODE].rep[r].state == SIMPOOL_DRAINING) {
		simpool_gone(&s->pool[SPLIT_DECODE], r, s->now);
		return split_admit(s);
	}
	if (s->pool[SPLIT_DECODE].rep[r].state == SIMPOOL_READY &&
	    split_admit(s))
		return -1;
	return split_kick(s, r);
}

/* ---- control ------------------------------------------------------------ */

static void split_scrape(struct split *s)
{
	int k;

	s->cnt[SS_PQ] = (double)s->pq.len;
	s->cnt[SS_PRUN] = (double)s->prun;
	s->cnt[SS_DQ] = (double)s->dq.len;
	s->cnt[SS_DRUN] = (double)s->drun;
	s->cnt[SS_KV] = s->kv_used;
	s->cnt[SS_PSPEC] = (double)s->pool[SPLIT_PREFILL].spec;
	s->cnt[SS_DSPEC] = (double)s->pool[SPLIT_DECODE].spec;
	for (k = 0; k < SS_N; k++)
		simseries_add(&s->ser[k], s->now, s->cnt[k]);
}

static int split_view(struct split *s, struct split_view *v)
{
	const struct simpool *d = &s->pool[SPLIT_DECODE];
	size_t r, n = 0;
	int k;

	memset(v, 0, sizeof(*v));
	v->now = s->now;
	v->ser = s->ser;
	v->rate_window_s = s->c->rate_window_s;
	v->c = s->c;
	for (k = 0; k < SPLIT_POOLS; k++) {
		v->spec[k] = s->pool[k].spec;
		v->status[k] = s->pool[k].n_starting + s->pool[k].n_ready;
		v->ready[k] = s->pool[k].n_ready;
		v->starting[k] = s->pool[k].n_starting;
	}
	if ((size_t)d->n_ready > s->cap_kv_util) {
		double *x = realloc(s->kv_util, (size_t)d->n_ready *
				    sizeof(*x));

		if (!x)
			return -1;
		s->kv_util = x;
		s->cap_kv_util = (size_t)d->n_ready;
	}
	for (r = 0; r < d->nrep; r++) {
		const struct split_rep *x = split_rep_at(s, SPLIT_DECODE, r);

		if (d->rep[r].state == SIMPOOL_READY)
			s->kv_util[n++] = x->kv_used / s->c->kv_tokens;
	}
	v->kv_util = s->kv_util;
	v->n_kv_util = n;
	return 0;
}

static int split_hpa(struct split *s, int k)
{
	struct split_view v;
	int32_t prop, next;

	if (split_view(s, &v))
		return -1;
	prop = splitpol_proposal(&s->run, k, &v);
	next = hpa_reconcile(s->run.pool[k].hpa, s->now, s->pool[k].spec,
			     prop);
	return split_set_spec(s, k, next);
}

static int split_keda(struct split *s, int k)
{
	struct split_view v;
	int active;
	int32_t next;

	if (split_view(s, &v))
		return -1;
	active = splitpol_active(&s->run, k, &v);
	if (active < 0)
		return 0;
	next = keda_poll(&s->run.pool[k].keda, s->now, active,
			 s->pool[k].spec);
	return next >= 0 ? split_set_spec(s, k, next) : 0;
}

static int split_direct(struct split *s, int k)
{
	struct split_view v;
	int32_t next;

	if (split_view(s, &v))
		return -1;
	next = splitpol_direct(&s->run, k, &v);
	return next >= 0 ? split_set_spec(s, k, next) : 0;
}

static void split_sample(struct split *s, split_sample_fn *fn, void *arg)
{
	struct split_sample x;
	int k;

	memset(&x, 0, sizeof(x));
	x.t = s->now;
	for (k = 0; k < SPLIT_POOLS; k++) {
		x.spec[k] = s->pool[k].spec;
		x.ready[k] = s->pool[k].n_ready;
	}
	x.pq = s->pq.len;
	x.dq = s->dq.len;
	x.drun = s->drun;
	x.kv = s->kv_used;
	x.ttft_missed = s->ttft_missed - s->sampled_ttft_missed;
	x.tokens_missed = s->tokens_missed - s->sampled_tokens_missed;
	s->sampled_ttft_missed += x.ttft_missed;
	s->sampled_tokens_missed += x.tokens_missed;
	fn(arg, &x);
}

static int split_ready(struct split *s, int k, size_t r)
{
	if (!simpool_ready(&s->pool[k], r, s->now))
		return 0;
	return k == SPLIT_PREFILL ? split_dispatch(s) : split_admit(s);
}

static int split_event(struct split *s, const struct simev *e,
		       split_sample_fn *fn, void *arg)
{
	const struct split_config *c = s->c;
	int k = SPLIT_ARG_POOL(e->arg);
	const struct splitpol *p = s->run.p;

	switch (e->type) {
	case EV_PREFILL_DONE:
		return split_prefill_done(s, SPLIT_ARG_REP(e->arg));
	case EV_KV_ARRIVE:
		simq_push(&s->links, &s->dq, e->arg);
		return split_admit(s);
	case EV_STEP:
		return split_step(s, SPLIT_ARG_REP(e->arg));
	case EV_READY:
		return split_ready(s, k, SPLIT_ARG_REP(e->arg));
	case EV_SCRAPE:
		split_scrape(s);
		return simheap_push(&s->heap, s->now + c->scrape_s, EV_SCRAPE,
				    0);
	case EV_HPA:
		if (split_hpa(s, k))
			return -1;
		return simheap_push(&s->heap, s->now + c->hpa_sync_s, EV_HPA,
				    e->arg);
	case EV_KEDA:
		if (split_keda(s, k))
			return -1;
		return simheap_push(&s->heap, s->now + p->keda.poll_s, EV_KEDA,
				    e->arg);
	case EV_DIRECT:
		if (split_direct(s, k))
			return -1;
		return simheap_push(&s->heap, s->now + p->interval_s,
				    EV_DIRECT, e->arg);
	case EV_SAMPLE:
		if (fn)
			split_sample(s, fn, arg);
		return simheap_push(&s->heap, s->now + c->ts_step_s,
				    EV_SAMPLE, 0);
	}
	return 0;
}

/* ---- the run ------------------------------------------------------------ */

static int split_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double split_rank(const double *v, size_t n, double q)
{
	double k;

	if (n == 0)
		return NAN;
	k = ceil(q * (double)n);
	if (k < 1)
		k = 1;
	return v[(size_t)k - 1];
}

static void split_results(struct split *s, struct split_result *o)
{
	size_t i;
	int k;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < s->t->n; i++)
		o->requests += s->t->req[i].arrival_s >= s->c->count_from_s;
	o->shed = s->shed;
	o->ttft_within = s->ttft_within;
	o->ttft_attainment = o->requests ? (double)s->ttft_within /
					   (double)o->requests : 1;
	if (simsort_doubles(s->ttfts, s->nttfts))
		qsort(s->ttfts, s->nttfts, sizeof(*s->ttfts),
		      split_cmp_double);
	o->ttft_p50 = split_rank(s->ttfts, s->nttfts, 0.50);
	o->ttft_p99 = split_rank(s->ttfts, s->nttfts, 0.99);
	o->tokens = s->tokens;
	o->tokens_within = s->tokens_within;
	o->itl_attainment = s->tokens ? (double)s->tokens_within /
					(double)s->tokens : 1;
	o->itl_mean = s->tokens ? s->itl_sum / (double)s->tokens : NAN;
	for (k = 0; k < SPLIT_POOLS; k++) {
		const struct simpool *p = &s->pool[k];

		o->pool[k].replica_hours = simpool_replica_s(p) / 3600.0;
		o->pool[k].peak = p->peak;
		o->pool[k].scale_events = p->scale_events;
		o->replica_hours += o->pool[k].replica_hours;
	}
	o->metric_errors = s->run.metric_errors;
}

static void split_free(struct split *s)
{
	size_t r;
	int k;

	splitpol_run_free(&s->run);
	simheap_free(&s->heap);
	for (k = 0; k < SS_N; k++)
		simseries_free(&s->ser[k]);
	for (k = 0; k < SPLIT_POOLS; k++) {
		for (r = 0; r < s->pool[k].nrep; r++)
			free(split_rep_at(s, k, r)->work);
		simpool_free(&s->pool[k]);
	}
	simq_links_free(&s->links);
	free(s->gen);
	free(s->ttfts);
	free(s->kv_util);
}

/* Keep what the longest query looks back over: the rate window, the
 * planner's interval, staffer's ranges. */
static size_t split_series_cap(const struct split_config *c,
			       const struct splitpol *p)
{
	double span = c->rate_window_s, range, step;
	size_t cap;
	int k;

	if (p->interval_s > span)
		span = p->interval_s;
	if (p->kind == SPLITPOL_LLMD && SPLITPOL_LLMD_WINDOW_S > span)
		span = SPLITPOL_LLMD_WINDOW_S;
	for (k = 0; k < SPLIT_POOLS && p->kind == SPLITPOL_STAFFER; k++) {
		decide_series_query(&p->meta[k], &range, &step);
		if (range + c->rate_window_s > span)
			span = range + c->rate_window_s;
		decide_surge_query(&p->meta[k], &range, &step);
		if (range + c->rate_window_s > span)
			span = range + c->rate_window_s;
	}
	span += p->answer_age_s;        /* staffer's answers that old */
	cap = (size_t)(span / c->scrape_s) + 4;
	return cap > SIMPROM_SAMPLES_MAX ? SIMPROM_SAMPLES_MAX : cap;
}

int split_run(const struct split_config *c, const struct trace *t,
	      const struct splitpol *p, struct split_result *out,
	      split_sample_fn *fn, void *arg, char *err, size_t errlen)
{
	struct split s;
	struct simev e;
	size_t cap;
	int32_t i, start;
	int k, rc = -1;

	memset(&s, 0, sizeof(s));
	simheap_init(&s.heap);
	if (split_config_check(c, err, errlen))
		return -1;
	if (t->n == 0) {
		snprintf(err, errlen, "the trace has no requests");
		return -1;
	}
	s.c = c;
	s.t = t;
	for (k = 0; k < SPLIT_POOLS; k++) {
		struct simpool_config pc = {
			sizeof(struct split_rep), 32, SPLIT_REPLICAS_MAX,
			c->end_s, c->cold_start_s, c->cold_start_cv,
			c->cold_seed + (uint64_t)k, c->count_from_s,
		};

		simpool_init(&s.pool[k], &pc);
	}
	cap = split_series_cap(c, p);
	for (k = 0; k < SS_N; k++)
		if (simseries_init(&s.ser[k], cap))
			goto oom;
	s.gen = calloc(t->n, sizeof(*s.gen));
	s.ttfts = malloc(t->n * sizeof(*s.ttfts));
	if (simq_links_init(&s.links, t->n) || !s.gen || !s.ttfts ||
	    splitpol_run_init(&s.run, p, c))
		goto oom;
	simq_init(&s.pq);
	simq_init(&s.dq);
	for (k = 0; k < SPLIT_POOLS; k++) {
		start = c->initial[k];
		if (p->kind == SPLITPOL_STATIC && p->fixed[k] >= 0)
			start = p->fixed[k];
		for (i = 0; i < start; i++)
			if (split_new_replica(&s, k, 1))
				goto oom;
		s.pool[k].spec = s.pool[k].peak = start;
	}
	if (simheap_push(&s.heap, 0, EV_SCRAPE, 0))
		goto oom;
	for (k = 0; k < SPLIT_POOLS; k++) {
		uint32_t a = SPLIT_ARG(k, 0);

		if (splitpol_uses_hpa(p) &&
		    (simheap_push(&s.heap, c->rate_window_s +
				  c->hpa_sync_s / 2, EV_HPA, a) ||
		     simheap_push(&s.heap, c->rate_window_s +
				  p->keda.poll_s / 3, EV_KEDA, a)))
			goto oom;
		if ((p->kind == SPLITPOL_PLANNER || p->kind == SPLITPOL_LLMD) &&
		    simheap_push(&s.heap, p->interval_s, EV_DIRECT, a))
			goto oom;
	}
	if (c->ts_step_s > 0 && simheap_push(&s.heap, 0, EV_SAMPLE, 0))
		goto oom;

	while (s.next < t->n || s.pq.len > 0 || s.dq.len > 0 ||
	       s.prun > 0 || s.drun > 0 || s.now < c->end_s ||
	       s.ended < t->n) {
		const struct simev *top = simheap_peek(&s.heap);
		int arrival = s.next < t->n &&
			      (!top || t->req[s.next].arrival_s < top->t);
		double at = arrival ? t->req[s.next].arrival_s :
			    top ? top->t : s.now;

		/* a pool left with no replica by its policy would wait for
		 * ever: what has not ended a day after the end never will */
		if ((!arrival && !top) || at > c->end_s + SPLIT_DRAIN_MAX_S)
			break;
		split_expire(&s, at);
		if (at > s.now)
			s.now = at;
		if (arrival) {
			uint32_t q = (uint32_t)s.next++;

			s.cnt[SS_ARR] += 1;
			s.cnt[SS_IN] += t->req[q].input_tokens > 0 ?
					t->req[q].input_tokens : 0;
			simq_push(&s.links, &s.pq, q);
			if (split_dispatch(&s))
				goto oom;
			continue;
		}
		simheap_pop(&s.heap, &e);
		if (split_event(&s, &e, fn, arg))
			goto oom;
	}
	split_results(&s, out);
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "split simulation: out of memory or more than "
		 "%u replicas in a pool", SPLIT_REPLICAS_MAX);
out:
	split_free(&s);
	return rc;
}
