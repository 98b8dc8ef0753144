/* scaler.c - see scaler.h. */
#include "scaler.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"
#include "log.h"
#include "smooth.h"

/* Which answer slot holds which signal. */
enum { SIG_ARRIVAL, SIG_SERVICE, SIG_QUEUE, SIG_SHED, SIG_N };

static const char *const sig_keys[SIG_N] = {
	"arrivalRateQuery", "serviceTimeQuery", "queueDepthQuery",
	"shedRateQuery",
};

/* Smoothing state of one ScaledObject trigger, keyed by
 * "namespace/name/metricName".  Fetch thread only. */
struct state {
	struct state *next;
	char *key;
	struct smooth sm;
	double last_seen;
};

#define STATE_BUCKETS 1024

struct scaler {
	const struct config *cfg;
	struct fetch *fetch;
	struct state *buckets[STATE_BUCKETS]; /* fetch thread only */
	size_t n_states;
	double last_sweep;
};

/* One evaluation in flight. */
struct eval {
	struct scaler *s;
	struct meta m;
	enum scaler_kind kind;
	char *key;
	int slot[SIG_N];             /* answer index per signal, -1 if none */
	scaler_done_fn *cb;
	void *arg;
};

struct scaler *scaler_new(const struct config *cfg, struct fetch *f)
{
	struct scaler *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->cfg = cfg;
	s->fetch = f;
	s->last_sweep = fetch_now();
	return s;
}

void scaler_free(struct scaler *s)
{
	size_t b;

	if (!s)
		return;
	for (b = 0; b < STATE_BUCKETS; b++) {
		while (s->buckets[b]) {
			struct state *st = s->buckets[b];

			s->buckets[b] = st->next;
			free(st->key);
			free(st);
		}
	}
	free(s);
}

enum scaler_err scaler_parse(const struct scaler *s, struct meta *m,
			     const char *const *keys,
			     const char *const *values, size_t n,
			     char msg[SCALER_MSG_MAX])
{
	struct meta_error err;

	if (meta_parse(m, keys, values, n, &err) != META_OK) {
		snprintf(msg, SCALER_MSG_MAX, "%s", err.msg);
		return SCALER_EINVAL;
	}
	if (!config_backend(s->cfg, m->backend)) {
		size_t i, len;

		len = (size_t)snprintf(msg, SCALER_MSG_MAX,
				       "metadata 'backend': '%.60s' is not "
				       "declared in staffer's config; "
				       "declared:", m->backend);
		for (i = 0; i < s->cfg->n_backends && len < SCALER_MSG_MAX;
		     i++)
			len += (size_t)snprintf(msg + len, SCALER_MSG_MAX - len,
						"%s '%s'", i ? "," : "",
						s->cfg->backends[i].name);
		return SCALER_EINVAL;
	}
	return SCALER_OK;
}

static uint32_t hash_str(const char *p)
{
	uint32_t h = 2166136261u;

	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return h;
}

/* Forget ScaledObjects nobody asked about for an hour. */
static void states_sweep(struct scaler *s, double now)
{
	size_t b;

	if (now - s->last_sweep < 60)
		return;
	s->last_sweep = now;
	for (b = 0; b < STATE_BUCKETS; b++) {
		struct state **pp = &s->buckets[b];

		while (*pp) {
			struct state *st = *pp;

			if (now - st->last_seen > SCALER_STATE_IDLE_S) {
				*pp = st->next;
				free(st->key);
				free(st);
				s->n_states--;
			} else {
				pp = &st->next;
			}
		}
	}
}

/* The state for key, created on first use; NULL when full. */
static struct state *state_get(struct scaler *s, const char *key, double now)
{
	struct state **slot = &s->buckets[hash_str(key) % STATE_BUCKETS];
	struct state *st;

	states_sweep(s, now);
	for (st = *slot; st; st = st->next)
		if (!strcmp(st->key, key))
			goto out;
	if (s->n_states >= SCALER_STATES_MAX)
		return NULL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->key = strdup(key);
	if (!st->key) {
		free(st);
		return NULL;
	}
	smooth_init(&st->sm);
	st->next = *slot;
	*slot = st;
	s->n_states++;
out:
	st->last_seen = now;
	return st;
}

static void eval_free(struct eval *e)
{
	meta_release(&e->m);
	free(e->key);
	free(e);
}

/* Read one signal from the answers.  Unknown is an error, never zero;
 * negative values are clamped (design section 2) and logged. */
static int read_signal(const struct eval *e, const struct fetch_answer *a,
		       int sig, double *out, struct scaler_result *r)
{
	const struct fetch_answer *x;

	if (e->slot[sig] < 0) {
		*out = 0.0;
		return 0;
	}
	x = &a[e->slot[sig]];
	if (x->err != PROM_OK) {
		r->err = SCALER_EUNAVAIL;
		snprintf(r->msg, sizeof(r->msg),
			 "%s: %s (backend '%s'); the signal is unknown, "
			 "not zero", sig_keys[sig], x->msg,
			 config_backend(e->s->cfg, e->m.backend)->name);
		return -1;
	}
	*out = x->value;
	if (*out < 0) {
		log_warn("%s: %s returned %g; clamped to 0", e->key,
			 sig_keys[sig], *out);
		*out = 0.0;
	}
	return 0;
}

static void log_decision(const struct eval *e, const struct scaler_result *r,
			 int64_t raw)
{
	const struct model_signals *g = &r->sig;
	const struct model_breakdown *b = &r->b;

	log_info("decision ref=%s lambda=%.4g W=%.4g Q=%.4g S=%.4g "
		 "busy=%.3f headroom=%.3f drain=%.3f boost=%.3f total=%.3f "
		 "raw=%lld target=%lld active=%d%s", e->key,
		 g->arrival_rate, g->service_time_s, g->queue_depth,
		 g->shed_rate, b->busy_slots, b->headroom_slots,
		 b->drain_slots, b->boost_slots, b->total_slots,
		 (long long)raw, (long long)r->target, b->active,
		 b->capped ? " capped=1" : "");
}

static void on_answers(void *arg, const struct fetch_answer *a, size_t n)
{
	struct eval *e = arg;
	struct scaler_result r;
	struct model_signals *g = &r.sig;
	double w = 0.0, now;
	enum model_err merr;
	struct decision d;
	struct state *st;
	int demand;

	(void)n;
	memset(&r, 0, sizeof(r));
	memcpy(r.metric_name, e->m.metric_name, sizeof(r.metric_name));
	if (read_signal(e, a, SIG_ARRIVAL, &g->arrival_rate, &r) ||
	    read_signal(e, a, SIG_QUEUE, &g->queue_depth, &r) ||
	    read_signal(e, a, SIG_SHED, &g->shed_rate, &r))
		goto done;
	demand = g->arrival_rate > 0 || g->queue_depth > 0 ||
		 g->shed_rate > 0;

	/* W: the query when it has a positive answer, else serviceTime.
	 * With no demand W does not matter. */
	if (e->slot[SIG_SERVICE] >= 0) {
		const struct fetch_answer *x = &a[e->slot[SIG_SERVICE]];

		if (x->err == PROM_OK && x->value > 0) {
			w = x->value;
		} else if (e->m.service_time_s > 0) {
			w = e->m.service_time_s;
			log_debug("%s: serviceTimeQuery gave %s; using "
				  "serviceTime %g", e->key,
				  x->err ? x->msg : "no positive value", w);
		} else if (demand) {
			r.err = SCALER_EUNAVAIL;
			snprintf(r.msg, sizeof(r.msg),
				 "serviceTimeQuery: %s while there is demand, "
				 "and no serviceTime fallback is set",
				 x->err ? x->msg : "no positive value");
			goto done;
		}
	} else {
		w = e->m.service_time_s;
	}
	g->service_time_s = w;

	now = fetch_now();
	st = e->kind == SCALER_METRICS ? state_get(e->s, e->key, now) : NULL;
	if (e->kind == SCALER_METRICS && !st)
		log_warn("%s: too many ScaledObjects (%d); answering without "
			 "smoothing", e->key, SCALER_STATES_MAX);
	merr = decide(&e->m, g, now, st ? &st->sm : NULL, &d);
	if (merr != MODEL_OK) {
		r.err = SCALER_EUNAVAIL;
		snprintf(r.msg, sizeof(r.msg), "cannot staff these signals "
			 "(lambda=%g W=%g Q=%g S=%g): %s", g->arrival_rate,
			 g->service_time_s, g->queue_depth, g->shed_rate,
			 model_strerror(merr));
		goto done;
	}
	r.b = d.b;
	r.active = d.b.active;
	r.target = d.target;
	if (e->kind == SCALER_METRICS)
		log_decision(e, &r, d.raw);
done:
	if (r.err != SCALER_OK)
		log_warn("%s: %s", e->key, r.msg);
	e->cb(e->arg, &r);
	eval_free(e);
}

int scaler_evaluate(struct scaler *s, const char *ns, const char *name,
		    struct meta *m, enum scaler_kind kind,
		    scaler_done_fn *cb, void *arg)
{
	const struct backend *be = config_backend(s->cfg, m->backend);
	const char *queries[SIG_N];
	struct fetch_query q[SIG_N];
	struct eval *e;
	size_t n = 0, len;
	int i;

	e = calloc(1, sizeof(*e));
	if (!e) {
		meta_release(m);
		meta_init(m);
		return -1;
	}
	e->s = s;
	e->m = *m;           /* move: m's strings now belong to e */
	meta_init(m);
	e->kind = kind;
	e->cb = cb;
	e->arg = arg;
	len = strlen(ns) + strlen(name) + strlen(e->m.metric_name) + 3;
	e->key = malloc(len);
	if (!e->key || !be)
		goto fail;
	snprintf(e->key, len, "%s/%s/%s", ns, name, e->m.metric_name);

	queries[SIG_ARRIVAL] = e->m.arrival_rate_query;
	queries[SIG_SERVICE] = e->m.service_time_query;
	queries[SIG_QUEUE] = e->m.queue_depth_query;
	queries[SIG_SHED] = e->m.shed_rate_query;
	for (i = 0; i < SIG_N; i++) {
		e->slot[i] = -1;
		if (!queries[i])
			continue;
		memset(&q[n], 0, sizeof(q[n]));
		q[n].backend = be;
		q[n].query = queries[i];
		e->slot[i] = (int)n++;
	}
	if (fetch_submit(s->fetch, q, n, on_answers, e))
		goto fail;
	return 0;
fail:
	eval_free(e);
	return -1;
}
