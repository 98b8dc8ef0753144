/*
 * fetch.c - backend reads on one thread with curl_multi; see fetch.h.
 *
 * Data structures, all owned by the fetch thread except `incoming`:
 *  - entry: one (backend, query, range) with its cached answer, its
 *    transfer while one is in flight, and the waiters for that transfer;
 *  - job: what one caller submitted; it completes when its last answer
 *    arrives;
 *  - incoming: jobs handed over by fetch_submit() under the mutex;
 *  - bstate: one per backend name: requests in flight, and the callers
 *    with requests waiting for a connection, taken in turn;
 *  - cqueue: one per (backend, caller): its lanes with requests waiting,
 *    taken in turn when the caller's turn comes;
 *  - lane: one per (backend, caller, namespace): its tickets (entries
 *    waiting to be sent) in order, and its requests in flight;
 *  - tcount: jobs per (caller, namespace) and per caller, under the mutex
 *    (FETCH_TENANT_JOBS_MAX, FETCH_CALLER_JOBS_MAX);
 *  - tname: a (caller, namespace) key, shared by the entries it asked
 *    last;
 *  - xfer: a transfer's handle, headers and body, only while it runs.
 *
 * A lane's key is "caller\nnamespace" (fetch_key(); a caller holds no
 * newline), so lanes, tnames and tcounts are keyed by one string; a
 * caller's own count is keyed by the caller alone.
 *
 * An entry that needs a transfer is QUEUED with a ticket in the lane of
 * the namespace that asked; a namespace that joins it while it waits gets
 * a ticket of its own, so it is sent at whichever turn comes first.  A
 * ticket whose entry is no longer QUEUED is dropped when its turn comes.
 * Only dispatch() moves an entry from QUEUED to INFLIGHT, and
 * entry_complete() gives its connection back.
 */
#include "fetch.h"

#include <curl/curl.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "awscred.h"
#include "http.h"
#include "log.h"
#include "mono.h"
#include "secret.h"
#include "series.h"
#include "sheap.h"

#include <stdatomic.h>

/* fetch_answer.version: a new number whenever a range's points change,
 * across every query and fetch instance. */
static atomic_uint_least64_t fetch_versions;

#define BUCKETS 4096
#define LANE_BUCKETS 1024
#define CQUEUE_BUCKETS 256
/* a lane's key: caller, '\n', namespace, NUL */
#define FETCH_KEY_MAX (FETCH_CALLER_MAX + FETCH_TENANT_MAX)
#define TCOUNT_BUCKETS 256
#define TNAME_BUCKETS 256
#define SWEEP_EVERY_S 10.0
/* An idle entry is freed after ENTRY_IDLE_TTLS times its cacheTTLSeconds,
 * and never sooner than ENTRY_IDLE_MIN_S. */
#define ENTRY_IDLE_TTLS 10
#define ENTRY_IDLE_MIN_S 60.0
/*
 * Compression (docs/config.md, "compression").  gzip costs Prometheus
 * about 1 ms of CPU a reply whatever its size (a new compressor each
 * time), 5-6 times what a small query costs it, and saves nothing a
 * reader notices on a reply that fits in one round trip.  So by default
 * only a reply expected to be larger than TCP's first window (about
 * 14 KiB) asks for it: a range of more than about 500 points at
 * FETCH_POINT_BYTES each.
 */
#define FETCH_COMPRESS_MIN_BYTES 16384
#define FETCH_IDLE_CONNS_MAX 256    /* open connections kept, all backends:
				     * CONFIG_CONNECTIONS_MAX */
#define FETCH_POINT_BYTES 32        /* [1700000000.000,"12.345678901"], */

enum entry_state { ENTRY_IDLE, ENTRY_QUEUED, ENTRY_INFLIGHT, ENTRY_READY };
/* entry.derive: not yet compared with a finer range, agreed, disagreed */
enum { DERIVE_UNKNOWN, DERIVE_OK, DERIVE_OFF };

struct job;
struct lane;

struct ticket {
	struct ticket *next;
	struct entry *e;
};

/* One backend (by name, across config reloads). */
struct bstate {
	struct bstate *next;
	char name[CONFIG_NAME_MAX];
	int inflight;
	int max, max_ns, max_caller; /* from the newest backend seen */
	struct cqueue *ring;        /* callers with tickets; the next turn */
	size_t nring;               /* callers on the ring */
	/* What its ranges showed (bstate_ranges()): DERIVE_OK once one
	 * agreed with a finer range of its query, DERIVE_OFF for good once
	 * one differed; about the backend at ranges_url (a hash of its URL):
	 * a reload that points the name elsewhere starts again. */
	unsigned char ranges;
	uint32_t ranges_url;
};

/* One caller's lanes on one backend: it exists while it has lanes. */
struct cqueue {
	struct cqueue *hnext;       /* fetch.cqueues chain */
	struct cqueue *rnext, *rprev; /* bstate.ring, circular; NULL: out */
	struct bstate *bs;
	struct lane *ring;          /* its lanes with tickets; the next turn */
	size_t nring;               /* lanes on that ring */
	size_t lanes;               /* lanes of this caller */
	int inflight;               /* requests of its lanes in flight */
	char caller[FETCH_CALLER_MAX];
};

struct lane {
	struct lane *hnext;         /* fetch.lanes chain */
	struct lane *rnext, *rprev; /* cqueue.ring, circular; NULL: out */
	struct bstate *bs;
	struct cqueue *cq;
	struct ticket *head, *tail;
	size_t queued;
	int inflight;
	char tenant[FETCH_KEY_MAX]; /* "caller\nnamespace" */
};

/* A namespace's name, shared by the entries it asked last (fetch.cmu):
 * one copy per namespace rather than one per entry. */
struct tname {
	struct tname *next;
	size_t refs;                /* entries pointing here */
	char name[];
};

/* Jobs of one (caller, namespace), or of one caller (fetch.mu). */
struct tcount {
	struct tcount *next;
	size_t jobs;
	char name[FETCH_KEY_MAX];
};

struct waiter {
	struct waiter *next;
	struct job *job;
	size_t idx;
};

/* What a transfer needs while it is set up and runs (entry_start() to
 * entry_complete()): kept out of the entry, which lives as long as its
 * cached answer, one per query (fetch.h's FETCH_ENTRIES_MAX). */
struct xfer {
	CURL *easy;
	struct curl_slist *headers;
	struct http_body body;       /* capped at the config's maxBodyBytes */
	double sent_at;              /* mono_now() when the transfer began */
	/* a range request on its grid (series.h), and what it asks for */
	struct series_grid grid;
	long long from_ms;           /* the first point asked */
	double sent_wall;            /* Unix seconds it was planned */
	unsigned char aligned;       /* on the grid: merged into the kept
				      * points (else kept as it comes) */
	unsigned char full;          /* ... asking for the whole grid */
	char curl_err[CURL_ERROR_SIZE];
};

/* Kept per (backend, query, range) for as long as its answer may be
 * asked for: fields ordered so that none pads, the query text inline. */
struct entry {
	struct entry *next;          /* hash chain */
	struct sheap_node rnode;     /* fetch.refresh: a refresh ahead due */
	struct tname *tenant;        /* who asked last: refreshes queue there */
	const struct backend *be;
	struct config *cfg;          /* held: be lives in it */
	struct lane *lane;           /* INFLIGHT: whose connection it uses */
	struct lane *last_ticket;    /* QUEUED: the lane of its last ticket */
	size_t tickets;              /* tickets pointing here: not swept */
	double range_s, step_s, end_s;
	double fetched_at, last_used;
	uint64_t version;            /* of series (fetch_answer.version) */
	uint32_t hash;
	enum entry_state state;
	/* the cached answer (READY) */
	enum prom_err err;
	unsigned char have_answer;   /* a fetched answer is held below */
	unsigned char full_next;     /* a range: the next request asks for
				      * the whole grid (series.h), until a
				      * whole-grid reply is parsed */
	unsigned char derive;        /* DERIVE_*: may it be extended from a
				      * finer range (entry_derive())? */
	unsigned char derived;       /* its points include derived ones
				      * (since its last whole fetch) */
	unsigned char derivations;   /* derived in a row since its own
				      * last fetch (FETCH_DERIVE_RECHECK) */
	unsigned char unphased;      /* its backend answered off its
				      * phase's grid: phase 0 from then on
				      * (entry_phase()) */
	union {                      /* which one: range_s > 0 */
		struct {             /* an instant query's sample */
			double value, sample_ts;
		};
		struct series *series; /* a range query's points on their
					* grid, no timestamps (series.h);
					* the answer when err is PROM_OK,
					* kept through a failed refresh to
					* be extended by the next; NULL:
					* none */
	};
	char *msg;                   /* why, when err != PROM_OK; malloc()ed,
				      * NULL when OK (or out of memory): an
				      * entry is kept per query, and most
				      * answers need no message */
	struct waiter *waiters;      /* QUEUED, INFLIGHT: jobs to answer */
	struct entry *aws_next;      /* on fetch.aws_wait: no transfer yet */
	struct xfer *x;              /* the transfer; NULL when none */
	char query[];                /* PromQL, NUL-terminated */
};

struct job {
	struct job *next;
	struct tcount *tc;           /* its namespace's count (fetch.mu) */
	struct tcount *tcc;          /* its caller's */
	char tenant[FETCH_KEY_MAX];  /* fetch_key() */
	fetch_done_fn *cb;
	void *arg;
	size_t n, remaining;
	/* n of each, and the query texts, in the job's own block
	 * (fetch_submit()): a job lives while its reads wait, and a stream
	 * group's or a cache miss's costs only what it asks for */
	struct fetch_answer *ans;
	struct fetch_query *q;
	double **owned;              /* range points handed out
				      * (range_expand()) */
};

struct fetch {
	CURLM *multi;
	pthread_t thread;
	int started;

	pthread_mutex_t mu;          /* guards the fields up to `stats` */
	struct job *incoming, **incoming_tail;
	size_t jobs;                 /* submitted and not yet completed */
	int stopping;
	struct fetch_stats stats;
	fetch_observe_fn *observe;   /* stats.h: results by backend */
	void *observe_arg;
	struct tcount *tcounts[TCOUNT_BUCKETS];

	/* cmu guards the cache: buckets, every entry, the lanes and the
	 * refresh heap.  The fetch thread holds it while it works on them
	 * (never while it waits in curl or runs callbacks); fetch_lookup()
	 * takes it on the caller's thread.  Order: cmu before mu. */
	pthread_mutex_t cmu;
	struct job *done, **done_tail; /* finished jobs: their callbacks run
					* once cmu is released (fetch thread) */
	struct entry *buckets[BUCKETS];
	struct sheap refresh;        /* entries in use, by refresh-ahead time */
	struct bstate *bstates;
	struct lane *lanes[LANE_BUCKETS];
	struct cqueue *cqueues[CQUEUE_BUCKETS];
	struct tname *tnames[TNAME_BUCKETS];
	size_t n_entries;
	double last_sweep;

	/* SigV4 credentials (awscred.h): their refresh in flight, and the
	 * entries waiting for it */
	struct awscred_src *aws;
	CURL *aws_easy;
	struct entry *aws_wait;
};

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint32_t hash_query(const struct fetch_query *q)
{
	uint32_t h = 2166136261u;
	const unsigned char *p;
	uintptr_t b = (uintptr_t)q->backend;
	size_t i;

	for (p = (const unsigned char *)q->query; *p; p++)
		h = (h ^ *p) * 16777619u;
	for (i = 0; i < sizeof(b); i++, b >>= 8)
		h = (h ^ (b & 0xff)) * 16777619u;
	/* not the range: a query's ranges share a chain, so that a range
	 * finds the finer one it may be derived from (entry_finer()) */
	return h;
}

static int entry_matches(const struct entry *e, const struct fetch_query *q,
			 uint32_t h)
{
	return e->hash == h && e->be == q->backend &&
	       e->range_s == q->range_s && e->step_s == q->step_s &&
	       e->end_s == q->end_s && !strcmp(e->query, q->query);
}

static int refresh_plan(struct fetch *f, struct entry *e);
static void lane_maybe_free(struct fetch *f, struct lane *l);

static void entry_free_answer(struct entry *e)
{
	if (e->range_s > 0) {
		series_drop(e->series);
		e->series = NULL;
	} else {
		e->value = 0.0;
		e->sample_ts = 0.0;
	}
}

/*
 * The points of e's range answer as an answer hands them out (fetch.h:
 * parallel arrays, gaps left out), in one malloc()ed block that *block
 * owns: the times are rebuilt from the grid, the same doubles the reply
 * held; or, when kept, the kept series itself, held (fetch.h).  0 (a
 * NULL block for an answer without points), or -1 when out of memory.
 */
static int range_expand(const struct entry *e, int kept,
			struct fetch_answer *a, double **block)
{
	const struct series *r = e->range_s > 0 ? e->series : NULL;
	double *p;

	*block = NULL;
	a->ts = a->vals = NULL;
	a->series = NULL;
	a->n = 0;
	a->version = 0;
	if (!r || e->err != PROM_OK || r->points == 0)
		return 0;
	if (kept) {
		a->series = series_hold(r);
		a->n = r->points;
		a->version = e->version;
		return 0;
	}
	p = malloc(2 * (size_t)r->points * sizeof(double));
	if (!p)
		return -1;
	series_points(r, p, p + r->points);
	a->ts = p;
	a->vals = p + r->points;
	a->n = r->points;
	a->version = e->version;
	*block = p;
	return 0;
}

/* Free e's transfer (its handle must be out of the multi handle). */
static void xfer_free(struct entry *e)
{
	struct xfer *x = e->x;

	if (!x)
		return;
	curl_easy_cleanup(x->easy);
	curl_slist_free_all(x->headers);
	http_body_release(&x->body);
	free(x);
	e->x = NULL;
}

static void tname_drop(struct fetch *f, struct tname *t);

static void entry_free(struct fetch *f, struct entry *e)
{
	entry_free_answer(e);
	free(e->msg);
	xfer_free(e);
	tname_drop(f, e->tenant);
	config_drop(e->cfg);
	free(e);
}

/* The entry for q, or NULL (cmu held). */
static struct entry *entry_find(struct fetch *f, const struct fetch_query *q,
				uint32_t h)
{
	struct entry *e;

	for (e = f->buckets[h % BUCKETS]; e; e = e->next)
		if (entry_matches(e, q, h))
			return e;
	return NULL;
}

/* Find the entry for q, creating it if needed.  NULL when the cache is
 * full or memory runs out. */
static struct entry *entry_get(struct fetch *f, const struct fetch_query *q)
{
	uint32_t h = hash_query(q);
	struct entry **slot = &f->buckets[h % BUCKETS];
	struct entry *e = entry_find(f, q, h);
	size_t qlen;

	if (e)
		return e;
	if (f->n_entries >= FETCH_ENTRIES_MAX)
		return NULL;
	qlen = strlen(q->query);
	e = calloc(1, sizeof(*e) + qlen + 1);
	if (!e)
		return NULL;
	memcpy(e->query, q->query, qlen + 1);
	sheap_node_init(&e->rnode);
	e->be = q->backend;
	e->cfg = config_hold(q->cfg);
	e->range_s = q->range_s;
	e->step_s = q->step_s;
	e->end_s = q->end_s;
	e->hash = h;
	e->next = *slot;
	*slot = e;
	f->n_entries++;
	return e;
}

/* Copy e's answer into a, its range points into a block *owned takes
 * or, when kept, its kept series (cmu held).  0, or -1 when out of
 * memory. */
static int answer_fill(struct fetch_answer *a, double **owned,
		       const struct entry *e, int kept, double now)
{
	a->err = e->err;
	a->value = e->range_s > 0 ? 0.0 : e->value;
	a->sample_ts = e->range_s > 0 ? 0.0 : e->sample_ts;
	a->age_s = now - e->fetched_at;
	/* the message only when there is one: it is most of the struct */
	if (e->err != PROM_OK && e->msg)
		snprintf(a->msg, sizeof(a->msg), "%s", e->msg);
	else
		a->msg[0] = '\0';
	return range_expand(e, kept, a, owned);
}

/* Copy the entry's answer into slot idx of job j. */
static void job_fill(struct job *j, size_t idx, const struct entry *e,
		     double now)
{
	struct fetch_answer *a = &j->ans[idx];

	if (answer_fill(a, &j->owned[idx], e, 0, now)) {
		a->err = PROM_ENOMEM;
		snprintf(a->msg, sizeof(a->msg), "out of memory");
	}
}

static uint32_t hash_str(const char *p, uint32_t h)
{
	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return h;
}

/* The job count of namespace name (f->mu held); NULL when out of memory.
 * A count exists while its namespace has jobs (tcount_drop()). */
static struct tcount *tcount_get(struct fetch *f, const char *name)
{
	struct tcount **pp = &f->tcounts[hash_str(name, 2166136261u) %
					 TCOUNT_BUCKETS];

	while (*pp && strcmp((*pp)->name, name))
		pp = &(*pp)->next;
	if (!*pp) {
		*pp = calloc(1, sizeof(**pp));
		if (*pp)
			snprintf((*pp)->name, sizeof((*pp)->name), "%s", name);
	}
	return *pp;
}

/* Free a count that reached 0 (f->mu held). */
static void tcount_drop(struct fetch *f, struct tcount *tc)
{
	struct tcount **pp = &f->tcounts[hash_str(tc->name, 2166136261u) %
					 TCOUNT_BUCKETS];

	while (*pp && *pp != tc)
		pp = &(*pp)->next;
	if (*pp)
		*pp = tc->next;
	free(tc);
}

static void job_finish(struct fetch *f, struct job *j)
{
	size_t i;

	j->cb(j->arg, j->ans, j->n);
	for (i = 0; i < j->n; i++)
		free(j->owned[i]);
	pthread_mutex_lock(&f->mu);
	f->jobs--;
	if (j->tc && --j->tc->jobs == 0)
		tcount_drop(f, j->tc);
	if (j->tcc && --j->tcc->jobs == 0)
		tcount_drop(f, j->tcc);
	pthread_mutex_unlock(&f->mu);
	free(j);
}

/* Job j is complete: its callback runs once cmu is released. */
static void job_done(struct fetch *f, struct job *j)
{
	j->next = NULL;
	*f->done_tail = j;
	f->done_tail = &j->next;
}

/* One answer for job j arrived (cmu held). */
static void job_answered(struct fetch *f, struct job *j)
{
	if (--j->remaining == 0)
		job_done(f, j);
}

/* Run the callbacks of the finished jobs (fetch thread, cmu not held:
 * a callback may take the caller's locks, which may be held around
 * fetch_lookup()). */
static void jobs_run_done(struct fetch *f)
{
	struct job *j;

	while ((j = f->done)) {
		f->done = j->next;
		if (!f->done)
			f->done_tail = &f->done;
		job_finish(f, j);
	}
}

static int entry_kept(const struct entry *e);
static uint32_t entry_phase(const struct entry *e);

/* A range answer on its grid whose points are all settled and whose grid
 * has not moved on is what a fetch would return now (series.h): take it
 * as fetched now, with no request.  1 when so (cmu held). */
static int entry_renew(struct fetch *f, struct entry *e, double now)
{
	struct series_grid g;
	long long from;

	if (!entry_kept(e) || e->state != ENTRY_READY ||
	    series_grid(e->range_s, e->step_s, entry_phase(e), wall_now(),
			&g) ||
	    series_plan(e->series, &g, &from) != SERIES_NONE)
		return 0;
	e->fetched_at = now;
	pthread_mutex_lock(&f->mu);
	f->stats.range_renewed++;
	pthread_mutex_unlock(&f->mu);
	return 1;
}

/* A kept range's points on its grid, its answer as a full fetch gives it
 * (series.h): the points of an answer that was not an error, or an empty
 * or NaN one. */
static int entry_on_grid(const struct entry *e)
{
	return e->range_s > 0 && !(e->end_s > 0) && e->series &&
	       e->series->settled_ms != SERIES_UNALIGNED;
}

static int answer_kept(enum prom_err err)
{
	return err == PROM_OK || err == PROM_EEMPTY || err == PROM_ENAN;
}

static int entry_kept(const struct entry *e)
{
	return entry_on_grid(e) && e->have_answer && answer_kept(e->err);
}

/* The phase of e's grids (series.h): the query's, so that its grids at
 * steps that divide each other share their instants and different
 * queries' refreshes spread over the step; 0 once the backend answered
 * off it. */
static uint32_t entry_phase(const struct entry *e)
{
	return e->unphased ? 0 : series_phase(e->query);
}

/* Whether x is an entry of e's query and backend, other than e. */
static int entry_same_query(const struct entry *e, const struct entry *x)
{
	return x != e && x->hash == e->hash && x->be == e->be &&
	       !strcmp(x->query, e->query);
}

/* Whether x is a kept range of e's query and backend, other than e. */
static int entry_sibling(const struct entry *e, const struct entry *x)
{
	return entry_kept(x) && entry_same_query(e, x);
}

/* The most recently fetched kept range of e's query and backend whose
 * step divides e's, shorter than e's (cmu held); NULL when none. */
static struct entry *entry_finer(struct fetch *f, const struct entry *e)
{
	struct entry *x, *best = NULL;

	for (x = f->buckets[e->hash % BUCKETS]; x; x = x->next) {
		if (!entry_sibling(e, x) ||
		    x->series->step_ms >= e->series->step_ms ||
		    e->series->step_ms % x->series->step_ms)
			continue;
		if (!best || x->fetched_at > best->fetched_at)
			best = x;
	}
	return best;
}

static double entry_ttl(const struct entry *e);
static uint32_t hash_str(const char *p, uint32_t h);

/* be's bstate, or NULL when it has none yet (cmu held). */
static struct bstate *bstate_find(struct fetch *f, const struct backend *be)
{
	struct bstate *bs;

	for (bs = f->bstates; bs; bs = bs->next)
		if (!strcmp(bs->name, be->name))
			return bs;
	return NULL;
}

/* The hash of be's URL its bstate's ranges are about. */
static uint32_t bstate_url(const struct backend *be)
{
	return hash_str(be->url ? be->url : "", 2166136261u);
}

/*
 * What a range of be said of the backend: its points do not depend on
 * the step (DERIVE_OK, the first such comparison) or they do (DERIVE_OFF,
 * for good).  A query whose range is never compared, asked at one step
 * only (a prefill pool's inputTokenRateQuery), then takes it as its own
 * (entry_instant()): Prometheus evaluates every point of a range as the
 * instant query at that time, whatever the query.  The evidence is the
 * backend's at its URL then: another URL under the name starts again
 * (cmu held).
 */
static void bstate_ranges(struct fetch *f, const struct backend *be,
			  unsigned char d)
{
	struct bstate *bs = bstate_find(f, be);
	uint32_t url = bstate_url(be);

	if (!bs || d == DERIVE_UNKNOWN)
		return;
	if (bs->ranges_url != url) {
		bs->ranges = DERIVE_UNKNOWN;
		bs->ranges_url = url;
	}
	if (d == DERIVE_OFF || bs->ranges == DERIVE_UNKNOWN)
		bs->ranges = d;
}

/* Whether be's ranges were seen to agree, and none to differ (cmu held). */
static int bstate_ranges_agree(struct fetch *f, const struct backend *be)
{
	struct bstate *bs = bstate_find(f, be);

	return bs && bs->ranges == DERIVE_OK &&
	       bs->ranges_url == bstate_url(be);
}

/* Compare e's points with those of the finer range x where both are
 * settled (series_agree()) and note what that says of e, and of its
 * backend (cmu held). */
static void entry_compare(struct fetch *f, struct entry *e,
			  const struct entry *x)
{
	long n = series_agree(e->series, x->series);

	if (n < 0 && e->derive != DERIVE_OFF) {
		struct log_field lf[2] = {
			LOG_F_STR("backend", e->be->name),
			LOG_F_STR("query", e->query),
		};

		e->derive = DERIVE_OFF;
		pthread_mutex_lock(&f->mu);
		f->stats.range_derive_off++;
		pthread_mutex_unlock(&f->mu);
		log_fields_at(LOG_INFO, lf, 2, "backend '%s' query '%s': its "
			      "range at a %gs step differs from the one at "
			      "%gs where both are settled; it is fetched, "
			      "never derived", e->be->name, e->query,
			      e->step_s, x->step_s);
	} else if (n >= FETCH_DERIVE_AGREE && e->derive == DERIVE_UNKNOWN) {
		e->derive = DERIVE_OK;
	}
	bstate_ranges(f, e->be, e->derive);
}

/*
 * Extend e, a kept range, from a finer range of the same query fetched
 * after it and recently enough to serve as e's answer (fetch.h; the
 * answer is as old as that one's): 1 when so, with no request (cmu held).
 */
static int entry_derive(struct fetch *f, struct entry *e, double now)
{
	struct series_grid g;
	struct entry *x;
	struct series *s = NULL;
	char why[PROM_ERR_MAX];

	if (e->derive == DERIVE_OFF || e->state != ENTRY_READY ||
	    e->derivations >= FETCH_DERIVE_RECHECK ||
	    !entry_kept(e) || !(e->cfg->cache_ttl_s > 0) ||
	    strchr(e->query, '@') ||
	    !(x = entry_finer(f, e)) || !(x->fetched_at > e->fetched_at) ||
	    now - x->fetched_at >= entry_ttl(e))
		return 0;
	if (e->derive == DERIVE_UNKNOWN)
		entry_compare(f, e, x);
	if (e->derive != DERIVE_OK ||
	    series_grid(e->range_s, e->step_s, entry_phase(e), wall_now(),
			&g) ||
	    series_derive(e->series, g.step_ms, g.n, entry_phase(e),
			  x->series, &s) != SERIES_MERGED)
		return 0;
	e->err = series_status(s, why, sizeof(why));
	free(e->msg);
	e->msg = e->err == PROM_OK ? NULL : strdup(why);
	if (!series_same(e->series, s))
		e->version = atomic_fetch_add(&fetch_versions, 1) + 1;
	series_drop(e->series);
	e->series = s;
	e->derived = 1;
	e->derivations++;
	e->fetched_at = x->fetched_at;
	pthread_mutex_lock(&f->mu);
	f->stats.range_derived++;
	pthread_mutex_unlock(&f->mu);
	return 1;
}

/*
 * A fetch of e's own came back (its reply merged, its answer err):
 * compare it with the finer range it may be derived from.  1 when they
 * disagree and e's points include derived ones: then those may be wrong,
 * and the whole grid is fetched again (cmu held).
 */
static int entry_recheck(struct fetch *f, struct entry *e,
			 enum prom_err err)
{
	struct entry *x;

	if (e->derive == DERIVE_OFF || !answer_kept(err) ||
	    !entry_on_grid(e) || !(x = entry_finer(f, e)))
		return 0;
	entry_compare(f, e, x);
	return e->derive == DERIVE_OFF && e->derived;
}

/* How long e's answer serves (fetch.h): cacheTTLSeconds, or for a kept
 * range whose step is longer, that step, at most FETCH_RANGE_TTLS times
 * the TTL.  Such a range gains a point once a step, so refreshing it
 * every 0.75 x TTL would ask for the same unsettled tail again and again
 * (the surge headroom's range at 45 s a point cost a request per object
 * per KEDA cycle); its newest point is then up to a step older when
 * used, which the readers' freshness check allows for (scaler.c,
 * answer_fresh()), and the TTL the user chose still bounds it. */
static double entry_ttl(const struct entry *e)
{
	double ttl = e->cfg->cache_ttl_s, step = e->step_s;

	if (!(ttl > 0) || !(e->range_s > 0) || e->end_s > 0 || !(step > ttl))
		return ttl;
	return step < FETCH_RANGE_TTLS * ttl ? step : FETCH_RANGE_TTLS * ttl;
}

/*
 * Answer e, an instant query, from the newest point of a kept range of
 * the same query (fetch.h): a range query's point at t is the query
 * evaluated at t, so that point is what an instant query evaluated at t
 * returns.  Only a finite point newer than e's sample, of a range whose
 * answer is fresh and whose newest point was at most FETCH_INSTANT_LAG_S
 * old when it arrived; and only once a range of the query agreed with a
 * finer one (entry_compare(): the backend's points do not depend on the
 * step) and none disagreed, or, for a query none of whose ranges was
 * compared, once a range of another query on the backend agreed and none
 * differed (bstate_ranges()), but for a query with `@`, whose range
 * depends on the range asked.  1 when so (cmu held).
 */
static int entry_instant(struct fetch *f, struct entry *e, double now)
{
	struct entry *x, *best = NULL;
	double v, t, bv = 0.0, bt = 0.0, wall = wall_now();
	int agreed = 0;

	if (e->range_s > 0 || e->end_s > 0 || e->state != ENTRY_READY ||
	    !(e->cfg->cache_ttl_s > 0))
		return 0;
	for (x = f->buckets[e->hash % BUCKETS]; x; x = x->next) {
		if (!entry_sibling(e, x))
			continue;
		if (x->derive == DERIVE_OFF)
			return 0;
		agreed |= x->derive == DERIVE_OK;
		if (!(now - x->fetched_at < entry_ttl(e)) ||
		    !series_newest(x->series, &v, &t) ||
		    wall - (now - x->fetched_at) - t > FETCH_INSTANT_LAG_S ||
		    (e->have_answer && e->err == PROM_OK &&
		     !(t > e->sample_ts)) || (best && !(t > bt)))
			continue;
		best = x;
		bv = v;
		bt = t;
	}
	if (!best || (!agreed && (strchr(e->query, '@') ||
				  !bstate_ranges_agree(f, e->be))))
		return 0;
	e->err = PROM_OK;
	e->value = bv;
	e->sample_ts = bt;
	free(e->msg);
	e->msg = NULL;
	e->have_answer = 1;
	e->fetched_at = best->fetched_at;
	pthread_mutex_lock(&f->mu);
	f->stats.instant_from_range++;
	pthread_mutex_unlock(&f->mu);
	return 1;
}

/* Whether e, a kept range, has an instant query of its own query to
 * answer (entry_instant()) and no finer range to be derived from: then
 * it is refreshed at its grid's instants (refresh_plan()).  A coarser
 * range is not: its instants are the finer one's too, and refreshed
 * then it would be derived from the finer one before that came back. */
static int entry_feeds_instant(struct fetch *f, const struct entry *e)
{
	const struct entry *x;

	if (!entry_kept(e) || entry_finer(f, e))
		return 0;
	for (x = f->buckets[e->hash % BUCKETS]; x; x = x->next)
		if (!(x->range_s > 0) && !(x->end_s > 0) &&
		    entry_same_query(e, x))
			return 1;
	return 0;
}

static double settle_of(const struct backend *be)
{
	return be->range_settle_s > 0 ? be->range_settle_s :
	       CONFIG_SETTLE_DEFAULT;
}

/*
 * Read the reply of e's transfer (HTTP 200) into e's answer: an instant
 * query's sample, or a range query's points, merged into the points kept
 * when the request was on the grid (series.h).  Returns the answer's
 * error, why in why.  *refetch: the reply cannot be merged and the whole
 * grid must be asked for (nothing was changed).
 */
static enum prom_err entry_parse(struct entry *e, int *refetch, char *why,
				 size_t whylen)
{
	const struct xfer *x = e->x;
	const struct http_body *b = &x->body;
	struct prom_range r;
	struct series *s = NULL;
	enum prom_err err;
	double v = 0.0, t = 0.0;

	*refetch = 0;
	memset(&r, 0, sizeof(r));
	if (!(e->range_s > 0)) {
		err = prom_parse_sample(b->buf, b->len, &v, &t, why, whylen);
		e->value = err == PROM_OK ? v : 0.0;
		e->sample_ts = err == PROM_OK ? t : 0.0;
		return err;
	}
	if (!x->aligned) {           /* kept as it comes, never extended */
		err = prom_parse_range(b->buf, b->len, &r, why, whylen);
		if (err == PROM_OK && !(s = series_of_range(&r)))
			err = PROM_ENOMEM;
		goto out;
	}
	/* A whole grid answered, whatever it says: the next request may
	 * ask for a tail again.  Not before the reply: a whole-grid request
	 * that fails (a timeout, a 503) must be asked whole again, or the
	 * points it was to replace (found to differ, entry_recheck()) stay
	 * in the answer. */
	if (x->full)
		e->full_next = 0;
	err = prom_parse_range_nan(b->buf, b->len, &r, why, whylen);
	if (err != PROM_OK && err != PROM_EEMPTY) {
		if (x->full) {       /* the points kept are not the answer */
			series_drop(e->series);
			e->series = NULL;
		}
		goto out;
	}
	switch (series_merge(x->full ? NULL : e->series, &x->grid, x->from_ms,
			     err == PROM_OK ? &r : NULL,
			     series_settled(&x->grid, x->sent_wall,
					    settle_of(e->be)), &s)) {
	case SERIES_MERGED:
		err = series_status(s, why, whylen);
		break;
	case SERIES_REFETCH:
		if (!x->full) {
			*refetch = 1;
			err = PROM_OK;
			goto out;
		}
		/* points off the grid even when asked whole: a backend
		 * that does not evaluate at start + k * step, or one that
		 * moves the start to a multiple of the step (a cache in
		 * front of it): from now on the grid has phase 0 */
		if (entry_phase(e))
			e->unphased = 1;
		err = r.points ? PROM_OK : prom_range_none(1, why, whylen);
		if (err == PROM_OK && !(s = series_of_range(&r)))
			err = PROM_ENOMEM;
		if (!s) {     /* NaN points only: the kept ones are not it */
			series_drop(e->series);
			e->series = NULL;
		}
		break;
	case SERIES_ENOMEM:
		err = PROM_ENOMEM;
		break;
	}
out:
	if (err == PROM_ENOMEM)
		snprintf(why, whylen, "out of memory");
	if (s && x->full)
		e->derived = 0;
	if (s)
		e->derivations = 0;   /* a fetch of its own: compared again */
	if (s) {
		/* the same points keep their version: what is derived
		 * from them (decide.h's memo) stays valid */
		if (!e->series || !series_same(e->series, s))
			e->version = atomic_fetch_add(&fetch_versions, 1) + 1;
		series_drop(e->series);
		e->series = s;
	}
	prom_range_release(&r);
	return err;
}

/* The transfer of e ended (or could not start): store the answer (the
 * reply was read by entry_parse()) and hand it to every waiter. */
static void entry_complete(struct fetch *f, struct entry *e,
			   enum prom_err err, const char *msg)
{
	struct waiter *w, *next;
	double now = mono_now();
	char why[PROM_ERR_MAX];

	if (e->lane) {            /* its connection is free again */
		struct lane *l = e->lane;

		e->lane = NULL;
		l->inflight--;
		l->cq->inflight--;
		l->bs->inflight--;
		lane_maybe_free(f, l);
	}
	e->err = err;
	snprintf(why, sizeof(why), "%s", msg ? msg : "");
	if (err != PROM_OK && !(e->range_s > 0)) {
		e->value = 0.0;
		e->sample_ts = 0.0;
	} else if (err != PROM_OK && e->series &&
		   e->series->settled_ms == SERIES_UNALIGNED) {
		series_drop(e->series);         /* never extended: no use */
		e->series = NULL;
	}
	xfer_free(e);            /* the transfer is over */
	e->fetched_at = now;
	e->have_answer = 1;
	e->state = ENTRY_READY;
	free(e->msg);
	e->msg = NULL;
	if (e->err != PROM_OK) {
		e->msg = strdup(why);   /* NULL: the answer says "" */
		struct log_field lf[2] = {
			LOG_F_STR("backend", e->be->name),
			LOG_F_STR("query", e->query),
		};

		log_fields_at(LOG_DEBUG, lf, 2, "backend '%s' query '%s': %s",
			      e->be->name, e->query, why);
	}

	w = e->waiters;
	e->waiters = NULL;
	if (w) {                 /* used at once: keep it warm */
		e->last_used = now;
		refresh_plan(f, e);
	}
	for (; w; w = next) {
		next = w->next;
		job_fill(w->job, w->idx, e, now);
		job_answered(f, w->job);
		free(w);
	}
}


/* Set up authentication on the handle (cred: SigV4's credentials, else
 * NULL).  0, or -1 with a reason. */
static int setup_auth(struct entry *e, const struct awscred *cred,
		      char *why, size_t whylen)
{
	const struct backend *be = e->be;
	char *tok = NULL, *user = NULL, *pass = NULL;
	int rc = -1;

	switch (be->auth) {
	case CONFIG_AUTH_NONE:
		rc = 0;
		break;
	case CONFIG_AUTH_BEARER: {
		char *hdr;
		size_t len;
		struct curl_slist *l;

		tok = secret_read(be->bearer_token_file, why, whylen);
		if (!tok)
			goto out;
		len = strlen(tok) + sizeof("Authorization: Bearer ");
		hdr = malloc(len);
		if (!hdr)
			goto out;
		snprintf(hdr, len, "Authorization: Bearer %s", tok);
		l = curl_slist_append(e->x->headers, hdr);
		free(hdr);
		if (!l)
			goto out;
		e->x->headers = l;
		rc = 0;
		break;
	}
	case CONFIG_AUTH_BASIC:
		user = secret_read(be->basic_user_file, why, whylen);
		pass = user ? secret_read(be->basic_password_file, why,
					  whylen) : NULL;
		if (!user || !pass)
			goto out;
		curl_easy_setopt(e->x->easy, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl_easy_setopt(e->x->easy, CURLOPT_USERNAME, user);
		curl_easy_setopt(e->x->easy, CURLOPT_PASSWORD, pass);
		rc = 0;
		break;
	case CONFIG_AUTH_SIGV4: {
		/* cred: from entry_start(), which got it from the chain */
		char sig[128];

		snprintf(sig, sizeof(sig), "aws:amz:%s:aps", be->sigv4_region);
		curl_easy_setopt(e->x->easy, CURLOPT_AWS_SIGV4, sig);
		curl_easy_setopt(e->x->easy, CURLOPT_USERNAME, cred->id);
		curl_easy_setopt(e->x->easy, CURLOPT_PASSWORD, cred->secret);
		if (cred->token[0]) {
			char hdr[AWSCRED_TOKEN_MAX + 32];
			struct curl_slist *l;

			snprintf(hdr, sizeof(hdr), "x-amz-security-token: %s",
				 cred->token);
			l = curl_slist_append(e->x->headers, hdr);
			if (!l) {
				snprintf(why, whylen, "out of memory");
				goto out;
			}
			e->x->headers = l;
		}
		rc = 0;
		break;
	}
	}
out:
	free(tok);
	free(user);
	free(pass);
	return rc;
}

/*
 * SigV4 credentials for e into *cred: 0 ready; 1 parked on f->aws_wait
 * until the refresh in flight ends (e is then INFLIGHT without a
 * transfer, so that other callers coalesce on it); -1 with why.
 */
static int entry_cred(struct fetch *f, struct entry *e,
		      struct awscred *cred, char *why, size_t whylen)
{
	double now = wall_now();
	CURL *easy;

	if (!f->aws) {
		f->aws = awscred_new();
		if (!f->aws) {
			snprintf(why, whylen, "out of memory");
			return -1;
		}
	}
	easy = awscred_refresh(f->aws, e->be->sigv4_region, now);
	if (easy) {
		if (curl_multi_add_handle(f->multi, easy) != CURLM_OK) {
			awscred_cancel(f->aws, easy);
			snprintf(why, whylen, "sigv4: curl_multi_add_handle "
				 "failed");
			return -1;
		}
		f->aws_easy = easy;
	}
	switch (awscred_get(f->aws, now, cred, why, whylen)) {
	case AWSCRED_READY:
		return 0;
	case AWSCRED_WAIT:
		e->state = ENTRY_INFLIGHT;
		e->aws_next = f->aws_wait;
		f->aws_wait = e;
		return 1;
	default:
		return -1;
	}
}

/*
 * The URL of e's range request, planned into e->x: on the query's grid
 * (series.h) from the first point not settled, or the whole grid; off
 * any grid (a past range, a step of no whole milliseconds, a config that
 * reuses nothing) the range as asked, ending now.  *points: how many the
 * reply may hold.  NULL when out of memory.
 */
static char *range_url(struct fetch *f, struct entry *e, double *points)
{
	struct xfer *x = e->x;
	double now = wall_now(), end;
	long long from = 0;

	x->sent_wall = now;
	/* With cacheTTLSeconds 0 nothing is reused, and a range ends now. */
	if (e->end_s > 0 || !(e->cfg->cache_ttl_s > 0) ||
	    series_grid(e->range_s, e->step_s, entry_phase(e), now,
			&x->grid)) {
		end = e->end_s > 0 ? e->end_s : now;
		*points = e->step_s > 0 ? floor(e->range_s / e->step_s) + 1 : 1;
		return prom_range_url(e->be->url, e->query, end - e->range_s,
				      end, e->step_s);
	}
	x->aligned = 1;
	switch (e->full_next ? SERIES_FULL :
		series_plan(e->series, &x->grid, &from)) {
	case SERIES_FULL:
		from = series_grid_start(&x->grid);
		x->full = 1;
		break;
	case SERIES_NONE:        /* queued while current: its last point */
		from = x->grid.end_ms;
		break;
	case SERIES_TAIL:
		break;
	}
	x->from_ms = from;
	*points = (double)((x->grid.end_ms - from) / x->grid.step_ms + 1);
	pthread_mutex_lock(&f->mu);
	if (x->full)
		f->stats.range_full++;
	else
		f->stats.range_tail++;
	pthread_mutex_unlock(&f->mu);
	return prom_range_url(e->be->url, e->query, (double)from / 1000.0,
			      (double)x->grid.end_ms / 1000.0,
			      (double)x->grid.step_ms / 1000.0);
}

/* Whether a request for a reply of about `points` points asks for it
 * compressed (FETCH_COMPRESS_MIN_BYTES; docs/config.md). */
static int want_gzip(const struct backend *be, double points)
{
	switch (be->compression) {
	case CONFIG_COMPRESS_ALWAYS:
		return 1;
	case CONFIG_COMPRESS_NEVER:
		return 0;
	case CONFIG_COMPRESS_AUTO:
		break;
	}
	return points * FETCH_POINT_BYTES >= FETCH_COMPRESS_MIN_BYTES;
}

/* Start the transfer for e.  0 (started, or parked for credentials), or
 * -1 with why filled (e untouched). */
static int entry_start(struct fetch *f, struct entry *e, char *why,
		       size_t whylen)
{
	const struct backend *be = e->be;
	struct awscred sigv4, *cred = NULL;
	char *url = NULL;
	double points = 1;
	size_t i;
	int rc = -1, r;

	if (be->auth == CONFIG_AUTH_SIGV4) {
		cred = &sigv4;
		r = entry_cred(f, e, cred, why, whylen);
		if (r < 0) {
			snprintf(why + strlen(why), whylen - strlen(why), "%s",
				 "; refusing to send an unsigned request");
			goto out;
		}
		if (r > 0) {
			rc = 0;
			goto out;
		}
	}

	e->x = calloc(1, sizeof(*e->x));
	if (!e->x) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	if (e->range_s > 0)
		url = range_url(f, e, &points);
	else
		url = prom_query_url(be->url, e->query, 0);
	if (!url) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	e->x->easy = curl_easy_init();
	if (!e->x->easy) {
		snprintf(why, whylen, "curl_easy_init failed");
		goto out;
	}
	http_body_reset(&e->x->body, e->cfg->max_body_bytes);
	for (i = 0; i < be->n_headers; i++) {
		struct curl_slist *l = curl_slist_append(e->x->headers,
							 be->headers[i]);
		if (!l) {
			snprintf(why, whylen, "out of memory");
			goto out;
		}
		e->x->headers = l;
	}
	if (setup_auth(e, cred, why, whylen))
		goto out;
	http_easy_setup(e->x->easy, url, &e->x->body, e->x->curl_err,
			be->timeout_s);
	curl_easy_setopt(e->x->easy, CURLOPT_PRIVATE, e);
	if (want_gzip(be, points))   /* "": every encoding curl reads */
		curl_easy_setopt(e->x->easy, CURLOPT_ACCEPT_ENCODING, "");
	if (e->x->headers)
		curl_easy_setopt(e->x->easy, CURLOPT_HTTPHEADER,
				 e->x->headers);
	if (be->ca_file)
		curl_easy_setopt(e->x->easy, CURLOPT_CAINFO, be->ca_file);
	if (be->cert_file)
		curl_easy_setopt(e->x->easy, CURLOPT_SSLCERT, be->cert_file);
	if (be->key_file)
		curl_easy_setopt(e->x->easy, CURLOPT_SSLKEY, be->key_file);
	if (curl_multi_add_handle(f->multi, e->x->easy) != CURLM_OK) {
		snprintf(why, whylen, "curl_multi_add_handle failed");
		goto out;
	}
	e->state = ENTRY_INFLIGHT;
	e->x->sent_at = mono_now();
	rc = 0;
out:
	if (cred)      /* the secret does not linger on the stack */
		explicit_bzero(cred, sizeof(*cred));
	free(url);
	if (rc)
		xfer_free(e);
	return rc;
}

const char *fetch_result_name(enum fetch_result r)
{
	static const char *const names[FETCH_R_COUNT] = {
		[FETCH_R_OK] = "ok",
		[FETCH_R_NO_DATA] = "no_data",
		[FETCH_R_QUERY_ERROR] = "query_error",
		[FETCH_R_BAD_REPLY] = "bad_reply",
		[FETCH_R_HTTP_ERROR] = "http_error",
		[FETCH_R_TIMEOUT] = "timeout",
		[FETCH_R_UNREACHABLE] = "unreachable",
		[FETCH_R_NOT_SENT] = "not_sent",
	};

	return (unsigned)r < FETCH_R_COUNT ? names[r] : "unknown";
}

void fetch_observe(struct fetch *f, fetch_observe_fn *fn, void *arg)
{
	pthread_mutex_lock(&f->mu);
	f->observe = fn;
	f->observe_arg = arg;
	pthread_mutex_unlock(&f->mu);
}

/* Tell the observer, if any, how a request to be ended (fetch thread). */
static void observe(struct fetch *f, const struct backend *be,
		    enum fetch_result r, double seconds)
{
	fetch_observe_fn *fn;
	void *arg;

	pthread_mutex_lock(&f->mu);
	fn = f->observe;
	arg = f->observe_arg;
	pthread_mutex_unlock(&f->mu);
	if (fn)
		fn(arg, be, r, seconds);
}

/* The result of a finished transfer: curl's code, then the answer's. */
static enum fetch_result result_of(CURLcode res, enum prom_err err)
{
	if (res == CURLE_OPERATION_TIMEDOUT)
		return FETCH_R_TIMEOUT;
	switch (err) {
	case PROM_OK:
		return FETCH_R_OK;
	case PROM_EEMPTY:
	case PROM_ENAN:
		return FETCH_R_NO_DATA;
	case PROM_EAPI:
	case PROM_EQUERY:
	case PROM_EMULTI:
		return FETCH_R_QUERY_ERROR;
	case PROM_ESTATUS:
		return FETCH_R_HTTP_ERROR;
	case PROM_EHTTP:
		return FETCH_R_UNREACHABLE;
	case PROM_EPARSE:
	case PROM_ETOOBIG:
	case PROM_ENOMEM:     /* the reply could not be read */
		break;
	}
	return FETCH_R_BAD_REPLY;
}

/* "HTTP status N", and for a 404 the path asked for and where the API
 * usually lives: a 404 almost always means a url without (or with the
 * wrong) base path, and the path is what the user must compare. */
static void status_msg(CURL *easy, long status, char *msg, size_t size)
{
	char *url = NULL, *path = NULL;
	CURLU *u;

	if (status != 404) {
		snprintf(msg, size, "HTTP status %ld", status);
		return;
	}
	curl_easy_getinfo(easy, CURLINFO_EFFECTIVE_URL, &url);
	u = curl_url();
	if (u && url && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK)
		curl_url_get(u, CURLUPART_PATH, &path, 0);
	snprintf(msg, size, "HTTP status 404 for path '%.64s': no Prometheus "
		 "API there; check the base path of the backend's url (e.g. "
		 "Mimir: /prometheus, AMP: /workspaces/ID)",
		 path ? path : "?");
	curl_free(path);
	curl_url_cleanup(u);
}

/* A transfer that could not start: answer it, and count it unsent. */
static void entry_unsent(struct fetch *f, struct entry *e, const char *why)
{
	entry_complete(f, e, PROM_EHTTP, why);
	observe(f, e->be, FETCH_R_NOT_SENT, 0);
}

/* A transfer ended: turn curl's and HTTP's verdict into an answer. */
static void entry_done(struct fetch *f, struct entry *e, CURLcode res)
{
	struct xfer *x = e->x;   /* freed by entry_complete() */
	double sent_at = x->sent_at;
	long status = 0;
	char msg[PROM_ERR_MAX];
	enum prom_err err = PROM_OK;
	int refetch = 0;

	curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
	msg[0] = '\0';
	if (res == CURLE_OK && status != 200)
		status_msg(x->easy, status, msg, sizeof(msg));
	curl_multi_remove_handle(f->multi, x->easy);
	curl_easy_cleanup(x->easy);
	x->easy = NULL;
	curl_slist_free_all(x->headers);
	x->headers = NULL;

	if (x->body.too_big || res == CURLE_FILESIZE_EXCEEDED) {
		err = PROM_ETOOBIG;
		snprintf(msg, sizeof(msg), "response body larger than %zu "
			 "bytes", e->cfg->max_body_bytes);
	} else if (res != CURLE_OK) {
		err = PROM_EHTTP;
		snprintf(msg, sizeof(msg), "%.80s: %.160s", curl_easy_strerror(res),
			 x->curl_err[0] ? x->curl_err :
			 "no detail");
	} else if (status != 200) {
		char why[PROM_ERR_MAX];
		double v;

		/* Prometheus explains bad queries in a JSON body (400/422). */
		err = prom_parse_instant(x->body.buf, x->body.len, &v, why,
					 sizeof(why));
		if (err == PROM_EAPI || err == PROM_EQUERY)
			memcpy(msg, why, sizeof(msg));
		else
			err = PROM_ESTATUS;
	} else {
		err = entry_parse(e, &refetch, msg, sizeof(msg));
		if (!refetch && entry_recheck(f, e, err))
			refetch = 1;
	}
	if (refetch) {
		/* a reply the kept points cannot take (series.h): ask for
		 * the whole grid on the same connection */
		observe(f, e->be, FETCH_R_OK, mono_now() - sent_at);
		xfer_free(e);
		e->full_next = 1;
		pthread_mutex_lock(&f->mu);
		f->stats.requests++;
		pthread_mutex_unlock(&f->mu);
		if (entry_start(f, e, msg, sizeof(msg)))
			entry_unsent(f, e, msg);
		return;
	}
	entry_complete(f, e, err, msg);
	observe(f, e->be, result_of(res, e->err), mono_now() - sent_at);
}

/* The credentials refresh ended: start (or fail) the entries that waited
 * for it. */
static void aws_done(struct fetch *f, CURLcode res)
{
	struct entry *e = f->aws_wait, *next;
	char why[PROM_ERR_MAX];
	int ok;

	curl_multi_remove_handle(f->multi, f->aws_easy);
	ok = awscred_done(f->aws, f->aws_easy, res, wall_now()) == 0;
	f->aws_easy = NULL;
	pthread_mutex_lock(&f->mu);
	if (ok)
		f->stats.cred_ok++;
	else
		f->stats.cred_failed++;
	pthread_mutex_unlock(&f->mu);
	f->aws_wait = NULL;
	for (; e; e = next) {
		next = e->aws_next;
		e->aws_next = NULL;
		e->state = ENTRY_IDLE;
		if (entry_start(f, e, why, sizeof(why)))
			entry_unsent(f, e, why);
	}
}

/* ---- fair queueing (see the file comment) ---------------------------------- */


/* The state of backend be's name, created on first use; NULL when out of
 * memory.  Its limits follow the newest config's backend. */
static struct bstate *bstate_get(struct fetch *f, const struct backend *be)
{
	struct bstate *bs = bstate_find(f, be);

	if (!bs) {
		bs = calloc(1, sizeof(*bs));
		if (!bs)
			return NULL;
		snprintf(bs->name, sizeof(bs->name), "%s", be->name);
		bs->next = f->bstates;
		f->bstates = bs;
	}
	bs->max = be->max_connections > 0 ? be->max_connections :
		  CONFIG_CONNECTIONS_DEFAULT;
	bs->max_ns = be->max_connections_ns > 0 ? be->max_connections_ns :
		     bs->max;
	bs->max_caller = be->max_connections_caller > 0 ?
			 be->max_connections_caller : bs->max;
	return bs;
}

/* The caller part of a lane's key (before its '\n') into out. */
static void key_caller(const char *key, char out[FETCH_CALLER_MAX])
{
	size_t n = strcspn(key, "\n");

	if (n >= FETCH_CALLER_MAX)
		n = FETCH_CALLER_MAX - 1;
	memcpy(out, key, n);
	out[n] = '\0';
}

static struct cqueue **cqueue_slot(struct fetch *f, const struct bstate *bs,
				   const char *caller)
{
	uint32_t h = hash_str(caller, hash_str(bs->name, 2166136261u));
	struct cqueue **pp = &f->cqueues[h % CQUEUE_BUCKETS];

	while (*pp && ((*pp)->bs != bs || strcmp((*pp)->caller, caller)))
		pp = &(*pp)->hnext;
	return pp;
}

static struct lane **lane_slot(struct fetch *f, const struct bstate *bs,
			       const char *tenant)
{
	uint32_t h = hash_str(tenant, hash_str(bs->name, 2166136261u));
	struct lane **pp = &f->lanes[h % LANE_BUCKETS];

	while (*pp && ((*pp)->bs != bs || strcmp((*pp)->tenant, tenant)))
		pp = &(*pp)->hnext;
	return pp;
}

/* The lane of key tenant ("caller\nnamespace") on bs, made with its
 * caller's queue when new; NULL when out of memory. */
static struct lane *lane_get(struct fetch *f, struct bstate *bs,
			     const char *tenant)
{
	struct lane **pp = lane_slot(f, bs, tenant);
	struct cqueue **cp;
	char caller[FETCH_CALLER_MAX];

	if (*pp)
		return *pp;
	key_caller(tenant, caller);
	cp = cqueue_slot(f, bs, caller);
	if (!*cp) {
		*cp = calloc(1, sizeof(**cp));
		if (!*cp)
			return NULL;
		(*cp)->bs = bs;
		memcpy((*cp)->caller, caller, sizeof(caller));
	}
	*pp = calloc(1, sizeof(**pp));
	if (!*pp) {
		if (!(*cp)->lanes) {
			struct cqueue *q = *cp;

			*cp = q->hnext;
			free(q);
		}
		return NULL;
	}
	(*pp)->bs = bs;
	(*pp)->cq = *cp;
	(*cp)->lanes++;
	snprintf((*pp)->tenant, sizeof((*pp)->tenant), "%s", tenant);
	pthread_mutex_lock(&f->mu);
	f->stats.lanes++;
	pthread_mutex_unlock(&f->mu);
	return *pp;
}

/* Put lane l on its caller's ring, and the caller on the backend's:
 * each just before the next turn, so the newest goes last. */
static void ring_add(struct lane *l)
{
	struct cqueue *q = l->cq;
	struct bstate *bs = l->bs;

	if (l->rnext)
		return;
	q->nring++;
	if (!q->ring) {
		l->rnext = l->rprev = l;
		q->ring = l;
	} else {
		l->rnext = q->ring;
		l->rprev = q->ring->rprev;
		l->rprev->rnext = l;
		q->ring->rprev = l;
	}
	if (q->rnext)
		return;
	bs->nring++;
	if (!bs->ring) {
		q->rnext = q->rprev = q;
		bs->ring = q;
		return;
	}
	q->rnext = bs->ring;
	q->rprev = bs->ring->rprev;
	q->rprev->rnext = q;
	bs->ring->rprev = q;
}

/* Take lane l off its caller's ring, and the caller off the backend's
 * when that was its last lane with tickets. */
static void ring_remove(struct lane *l)
{
	struct cqueue *q = l->cq;
	struct bstate *bs = l->bs;

	if (!l->rnext)
		return;
	q->nring--;
	if (l->rnext == l) {
		q->ring = NULL;
	} else {
		l->rprev->rnext = l->rnext;
		l->rnext->rprev = l->rprev;
		if (q->ring == l)
			q->ring = l->rnext;
	}
	l->rnext = l->rprev = NULL;
	if (q->ring || !q->rnext)
		return;
	bs->nring--;
	if (q->rnext == q) {
		bs->ring = NULL;
	} else {
		q->rprev->rnext = q->rnext;
		q->rnext->rprev = q->rprev;
		if (bs->ring == q)
			bs->ring = q->rnext;
	}
	q->rnext = q->rprev = NULL;
}

/* Free a lane that has nothing waiting and nothing in flight, and its
 * caller's queue with its last lane: a lane exists only while it has
 * work, so lanes and callers' queues are bounded by the jobs and
 * refreshes waiting and the connections in use, never by the namespaces
 * or callers ever seen (fetch.h).  Every path that empties a lane calls
 * this: entry_queue() on failure, dispatch() for a dropped ticket,
 * entry_complete() for a connection given back. */
static void lane_maybe_free(struct fetch *f, struct lane *l)
{
	struct lane **pp;
	struct cqueue *q = l->cq, **cp;

	if (l->head || l->inflight)
		return;
	ring_remove(l);
	pp = lane_slot(f, l->bs, l->tenant);
	if (*pp == l)
		*pp = l->hnext;
	free(l);
	pthread_mutex_lock(&f->mu);
	f->stats.lanes--;
	pthread_mutex_unlock(&f->mu);
	if (--q->lanes)
		return;
	cp = cqueue_slot(f, q->bs, q->caller);
	if (*cp == q)
		*cp = q->hnext;
	free(q);
}

/* Queue entry e for tenant: a ticket in its lane.  0, or -1 when out of
 * memory (e untouched). */
static int entry_queue(struct fetch *f, struct entry *e, const char *tenant)
{
	struct bstate *bs = bstate_get(f, e->be);
	struct lane *l = bs ? lane_get(f, bs, tenant) : NULL;
	struct ticket *t;

	if (!l)
		return -1;
	if (e->state == ENTRY_QUEUED && e->last_ticket == l)
		return 0;        /* this lane will send it already */
	t = malloc(sizeof(*t));
	if (!t) {
		lane_maybe_free(f, l);
		return -1;
	}
	t->e = e;
	t->next = NULL;
	if (l->tail)
		l->tail->next = t;
	else
		l->head = t;
	l->tail = t;
	l->queued++;
	e->tickets++;
	ring_add(l);
	e->state = ENTRY_QUEUED;
	e->last_ticket = l;
	return 0;
}

/* The next lane of caller q below the per-namespace limit, its turn
 * taken (q's ring moves past it); NULL when every one is at the limit or
 * the caller at its own. */
static struct lane *cqueue_turn(struct cqueue *q)
{
	size_t k;

	if (q->inflight >= q->bs->max_caller)
		return NULL;
	for (k = 0; k < q->nring; k++) {
		struct lane *l = q->ring;

		q->ring = l->rnext;
		if (l->inflight < l->bs->max_ns)
			return l;
	}
	return NULL;
}

/*
 * Send what backend bs has room for: callers in turn, and within a
 * caller its namespaces' lanes in turn, one ticket a turn, none from a
 * lane at its per-namespace limit.  So a caller that makes up many
 * namespaces gets one turn in as many as there are callers waiting, not
 * one per namespace.  Stops when the backend is full or a whole round
 * sent nothing.
 */
static void dispatch(struct fetch *f, struct bstate *bs)
{
	char why[PROM_ERR_MAX];
	size_t skipped = 0;

	while (bs->ring && bs->inflight < bs->max) {
		struct cqueue *q = bs->ring;
		struct lane *l;
		struct ticket *t;
		struct entry *e;

		bs->ring = q->rnext;     /* the next turn is the next caller's */
		l = cqueue_turn(q);
		if (!l) {
			/* every lane at its limit: wait for a completion */
			if (++skipped >= bs->nring)
				break;
			continue;
		}
		skipped = 0;
		t = l->head;
		l->head = t->next;
		if (!l->head)
			l->tail = NULL;
		l->queued--;
		e = t->e;
		e->tickets--;
		free(t);
		if (!l->head)
			ring_remove(l);
		if (e->state != ENTRY_QUEUED) {
			lane_maybe_free(f, l);   /* a stale ticket */
			continue;
		}
		if (e->last_ticket == l)
			e->last_ticket = NULL;
		e->state = ENTRY_IDLE;
		e->lane = l;
		l->inflight++;
		l->cq->inflight++;
		bs->inflight++;
		pthread_mutex_lock(&f->mu);
		f->stats.requests++;
		pthread_mutex_unlock(&f->mu);
		/* l is e's now: entry_complete() frees it once idle, maybe
		 * already inside entry_unsent(), so l is not used below. */
		if (entry_start(f, e, why, sizeof(why)))
			entry_unsent(f, e, why);
	}
}

static void dispatch_all(struct fetch *f)
{
	struct bstate *bs;

	for (bs = f->bstates; bs; bs = bs->next)
		dispatch(f, bs);
}

/*
 * Refresh-ahead (fetch.h): an answer that was used is fetched again in the
 * background before the TTL ends (refresh_age()), while callers keep
 * getting it from the cache until the TTL ends.  So a query asked at
 * least once per 0.75 x TTL never misses, and costs one backend request
 * per refresh_age() however often it is asked.  An answer nobody used
 * since it arrived is not refreshed: the entry goes cold and, later, is
 * swept.
 */
static struct entry *entry_of_rnode(struct sheap_node *x)
{
	return (struct entry *)(void *)((char *)x -
					offsetof(struct entry, rnode));
}

/* How old e's answer is when it is refreshed (fetch.h): as late as
 * still lets the refresh come back before the TTL ends, that is the
 * backend's timeout (counted from when the request is sent) and
 * FETCH_REFRESH_QUEUE_S for the lane it waits in, and never earlier than
 * FETCH_REFRESH_AHEAD of the TTL.  Each refresh then serves as many of
 * the callers' visits as the TTL allows: at the default 20 s and a 2-s
 * timeout, one request per 17 s instead of one per KEDA cycle. */
static double refresh_age(const struct entry *e)
{
	double ttl = entry_ttl(e);
	double late = ttl - e->be->timeout_s - FETCH_REFRESH_QUEUE_S;

	return late > FETCH_REFRESH_AHEAD * ttl ? late :
	       FETCH_REFRESH_AHEAD * ttl;
}

/* Plan e's refresh, if it holds a fresh answer that can be refreshed (a
 * fixed past range cannot change).  Out of memory: no refresh ahead; the
 * next caller after the TTL waits for the backend as before. */
static int refresh_plan(struct fetch *f, struct entry *e)
{
	double due, step;

	if (e->state != ENTRY_READY || e->end_s > 0 || !e->tenant ||
	    !(e->cfg->cache_ttl_s > 0) || sheap_queued(&e->rnode))
		return 0;
	due = e->fetched_at + refresh_age(e);
	if (entry_feeds_instant(f, e) &&
	    (step = (double)e->series->step_ms / 1000.0) <= refresh_age(e) &&
	    2 * step > refresh_age(e)) {
		/* the grid's next instant, on the monotonic clock: asked
		 * then, the range's newest point is the query's value now,
		 * which its instant query reads (entry_instant()).  Taken
		 * when the step is no longer than the refresh's age, so
		 * that it comes before the refresh would, and more than
		 * half of it, so that one request a step is fewer than the
		 * range's and the instant's own, one each a refresh.  The
		 * first such refresh may come early; from then on they
		 * come once a step. */
		double now = mono_now();
		double next = (double)(e->series->end_ms +
				       e->series->step_ms) / 1000.0 -
			      wall_now() + now + FETCH_GRID_LATE_S;

		if (next > now && next < due)
			due = next;
	}
	if (sheap_push(&f->refresh, &e->rnode, due))
		return 0;
	return sheap_peek(&f->refresh) == &e->rnode; /* 1: the earliest */
}

/* Queue the refreshes that are due, in the lane of the namespace that
 * asked last (so they wait their turn like its own requests). */
static void refresh_due(struct fetch *f, double now)
{
	struct sheap_node *x;

	while ((x = sheap_peek(&f->refresh)) && x->due <= now) {
		struct entry *e = entry_of_rnode(x);

		sheap_pop(&f->refresh);
		if (e->state != ENTRY_READY || e->last_used < e->fetched_at ||
		    now - e->fetched_at >= entry_ttl(e))
			continue;    /* busy, unused, or expired already */
		if (entry_renew(f, e, now) || entry_derive(f, e, now) ||
		    entry_instant(f, e, now)) {
			refresh_plan(f, e);
			continue;
		}
		if (entry_queue(f, e, e->tenant->name))
			continue;
		pthread_mutex_lock(&f->mu);
		f->stats.refreshed++;
		pthread_mutex_unlock(&f->mu);
	}
}

/* Milliseconds until the next refresh is due, at most max_ms. */
static int refresh_wait_ms(const struct fetch *f, double now, int max_ms)
{
	const struct sheap_node *x = sheap_peek(&f->refresh);
	double ms;

	if (!x)
		return max_ms;
	ms = (x->due - now) * 1000 + 1;
	return ms <= 0 ? 0 : ms >= max_ms ? max_ms : (int)ms;
}

static struct tname **tname_slot(struct fetch *f, const char *name)
{
	struct tname **pp = &f->tnames[hash_str(name, 2166136261u) %
				       TNAME_BUCKETS];

	while (*pp && strcmp((*pp)->name, name))
		pp = &(*pp)->next;
	return pp;
}

/* The shared name, one more reference taken (cmu held); NULL when out of
 * memory. */
static struct tname *tname_get(struct fetch *f, const char *name)
{
	struct tname **pp = tname_slot(f, name);
	size_t len;

	if (!*pp) {
		len = strlen(name);
		*pp = calloc(1, sizeof(**pp) + len + 1);
		if (!*pp)
			return NULL;
		memcpy((*pp)->name, name, len + 1);
	}
	(*pp)->refs++;
	return *pp;
}

/* Drop a reference (cmu held); the last frees the name.  NULL is fine. */
static void tname_drop(struct fetch *f, struct tname *t)
{
	struct tname **pp;

	if (!t || --t->refs > 0)
		return;
	pp = tname_slot(f, t->name);
	if (*pp == t)
		*pp = t->next;
	free(t);
}

/* Remember the namespace that asked last (kept on failure: a refresh
 * then queues for the one before). */
static void entry_note_tenant(struct fetch *f, struct entry *e,
			      const char *tenant)
{
	struct tname *t;

	if (e->tenant && !strcmp(e->tenant->name, tenant))
		return;
	t = tname_get(f, tenant);
	if (!t)
		return;
	tname_drop(f, e->tenant);
	e->tenant = t;
}

/* Hand job j's queries to their entries. */
static void job_start(struct fetch *f, struct job *j)
{
	double now = mono_now();
	size_t i;

	j->remaining = j->n + 1; /* +1 so it cannot finish inside the loop */
	for (i = 0; i < j->n; i++) {
		struct entry *e = entry_get(f, &j->q[i]);
		struct waiter *w;

		if (!e) {
			j->ans[i].err = PROM_ENOMEM;
			snprintf(j->ans[i].msg, sizeof(j->ans[i].msg),
				 "query cache full (%d entries)",
				 FETCH_ENTRIES_MAX);
			j->remaining--;
			continue;
		}
		e->last_used = now;
		entry_note_tenant(f, e, j->tenant);
		/* A refresh ahead may be under way: its answer still holds. */
		if (e->have_answer &&
		    (now - e->fetched_at < entry_ttl(e) ||
		     entry_renew(f, e, now) || entry_derive(f, e, now) ||
		     entry_instant(f, e, now))) {
			job_fill(j, i, e, now);
			refresh_plan(f, e);
			j->remaining--;
			pthread_mutex_lock(&f->mu);
			f->stats.cache_hits++;
			pthread_mutex_unlock(&f->mu);
			continue;
		}
		w = malloc(sizeof(*w));
		if (!w || (e->state != ENTRY_INFLIGHT &&
			   entry_queue(f, e, j->tenant))) {
			free(w);
			j->ans[i].err = PROM_ENOMEM;
			snprintf(j->ans[i].msg, sizeof(j->ans[i].msg),
				 "out of memory");
			j->remaining--;
			continue;
		}
		w->job = j;
		w->idx = i;
		w->next = e->waiters;
		e->waiters = w;
		if (e->state == ENTRY_INFLIGHT || w->next) {
			pthread_mutex_lock(&f->mu);
			f->stats.coalesced++;
			pthread_mutex_unlock(&f->mu);
		}
	}
	job_answered(f, j);
}

/* Drop cache entries nobody asked for in a while. */
static void sweep(struct fetch *f, double now)
{
	size_t b;

	if (now - f->last_sweep < SWEEP_EVERY_S)
		return;
	f->last_sweep = now;
	for (b = 0; b < BUCKETS; b++) {
		struct entry **pp = &f->buckets[b];

		while (*pp) {
			struct entry *e = *pp;
			double idle = ENTRY_IDLE_TTLS * e->cfg->cache_ttl_s;

			if (idle < ENTRY_IDLE_MIN_S)
				idle = ENTRY_IDLE_MIN_S;
			if (e->state != ENTRY_INFLIGHT &&
			    e->state != ENTRY_QUEUED && !e->tickets &&
			    now - e->last_used > idle) {
				*pp = e->next;
				sheap_remove(&f->refresh, &e->rnode);
				entry_free(f, e);
				f->n_entries--;
			} else {
				pp = &e->next;
			}
		}
	}
}

/* Complete everything with "shutting down" (fetch thread, at exit). */
static void abort_all(struct fetch *f, struct job *incoming)
{
	size_t b, i;

	if (f->aws_easy) {
		curl_multi_remove_handle(f->multi, f->aws_easy);
		awscred_cancel(f->aws, f->aws_easy);
		f->aws_easy = NULL;
	}
	f->aws_wait = NULL;      /* INFLIGHT without a transfer: below */
	for (b = 0; b < BUCKETS; b++) {
		struct entry *e;

		for (e = f->buckets[b]; e; e = e->next) {
			if (e->state != ENTRY_INFLIGHT &&
			    e->state != ENTRY_QUEUED)
				continue;
			if (e->x && e->x->easy)
				curl_multi_remove_handle(f->multi, e->x->easy);
			xfer_free(e);
			entry_complete(f, e, PROM_EHTTP, "shutting down");
		}
	}
	while (incoming) {
		struct job *j = incoming;

		incoming = j->next;
		for (i = 0; i < j->n; i++) {
			j->ans[i].err = PROM_EHTTP;
			snprintf(j->ans[i].msg, sizeof(j->ans[i].msg),
				 "shutting down");
		}
		job_done(f, j);
	}
}

static void *fetch_main(void *arg)
{
	struct fetch *f = arg;
	sigset_t mask;

	/* Every transfer runs here, with CURLOPT_NOSIGNAL (http.c), under
	 * which libcurl no longer ignores SIGPIPE for us, and a send to a
	 * connection the backend reset may still raise it (libcurl warns
	 * of such corner cases, TLS among them): blocked on this thread,
	 * that send fails with EPIPE and the request ends in an error, in
	 * every command (serve ignores SIGPIPE as well; explain and tune
	 * did not). */
	sigemptyset(&mask);
	sigaddset(&mask, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	for (;;) {
		struct job *list, *j;
		CURLMsg *m;
		int running, left, stopping;

		int wait_ms;

		pthread_mutex_lock(&f->mu);
		list = f->incoming;
		f->incoming = NULL;
		f->incoming_tail = &f->incoming;
		stopping = f->stopping;
		pthread_mutex_unlock(&f->mu);
		pthread_mutex_lock(&f->cmu);
		if (stopping) {
			abort_all(f, list);
			pthread_mutex_unlock(&f->cmu);
			jobs_run_done(f);
			break;
		}
		while (list) {
			j = list;
			list = j->next;
			job_start(f, j);
		}
		dispatch_all(f);
		pthread_mutex_unlock(&f->cmu);
		jobs_run_done(f);
		curl_multi_perform(f->multi, &running);
		pthread_mutex_lock(&f->cmu);
		while ((m = curl_multi_info_read(f->multi, &left))) {
			struct entry *e = NULL;

			if (m->msg != CURLMSG_DONE)
				continue;
			if (m->easy_handle == f->aws_easy) {
				aws_done(f, m->data.result);
				continue;
			}
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE,
					  (char **)&e);
			entry_done(f, e, m->data.result);
		}
		refresh_due(f, mono_now());
		dispatch_all(f);         /* connections freed just now */
		sweep(f, mono_now());
		wait_ms = refresh_wait_ms(f, mono_now(), 1000);
		pthread_mutex_unlock(&f->cmu);
		jobs_run_done(f);
		curl_multi_poll(f->multi, NULL, 0, wait_ms, NULL);
	}
	return NULL;
}

struct fetch *fetch_new(void)
{
	struct fetch *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->incoming_tail = &f->incoming;
	f->done_tail = &f->done;
	f->last_sweep = mono_now();
	sheap_init(&f->refresh);
	pthread_mutex_init(&f->mu, NULL);
	pthread_mutex_init(&f->cmu, NULL);
	f->multi = curl_multi_init();
	if (!f->multi)
		goto fail;
	/* No host limit of curl's: its queue would count waiting time
	 * against the timeout and serve first come first; dispatch() limits
	 * each backend (maxConnections) instead. */
	/* Keep the connections open: curl's cache holds 4 per transfer
	 * added, so after a lull it closed what the next burst opened again
	 * (at 10,000 triggers one request in 16 opened a connection). */
	curl_multi_setopt(f->multi, CURLMOPT_MAXCONNECTS,
			  (long)FETCH_IDLE_CONNS_MAX);
	if (pthread_create(&f->thread, NULL, fetch_main, f))
		goto fail;
	f->started = 1;
	return f;
fail:
	if (f->multi)
		curl_multi_cleanup(f->multi);
	pthread_mutex_destroy(&f->mu);
	pthread_mutex_destroy(&f->cmu);
	free(f);
	return NULL;
}

/* The lane key of (caller, tenant) into key: "caller\nnamespace", each
 * cut to its bytes told apart, a newline in caller made '?'. */
static void fetch_key(char key[FETCH_KEY_MAX], const char *caller,
		      const char *tenant)
{
	size_t i, n = 0;

	for (i = 0; caller && caller[i] && n < FETCH_CALLER_MAX - 1; i++)
		key[n++] = caller[i] == '\n' ? '?' : caller[i];
	key[n++] = '\n';
	snprintf(key + n, FETCH_TENANT_MAX, "%s", tenant ? tenant : "");
}

int fetch_submit(struct fetch *f, const char *caller, const char *tenant,
		 const struct fetch_query *qs, size_t n, fetch_done_fn *cb,
		 void *arg)
{
	char who[FETCH_CALLER_MAX];
	struct job *j;
	struct tcount *tc, *tcc;
	size_t i, len[FETCH_QUERIES_MAX], size;
	char *text;

	if (n == 0 || n > FETCH_QUERIES_MAX || !cb)
		return -1;
	size = sizeof(*j) + n * (sizeof(*j->ans) + sizeof(*j->q) +
				 sizeof(*j->owned));
	for (i = 0; i < n; i++) {
		len[i] = strlen(qs[i].query) + 1;
		size += len[i];
	}
	j = calloc(1, size);
	if (!j)
		return -1;
	j->ans = (struct fetch_answer *)(void *)(j + 1);
	j->q = (struct fetch_query *)(void *)(j->ans + n);
	j->owned = (double **)(void *)(j->q + n);
	text = (char *)(j->owned + n);
	j->cb = cb;
	j->arg = arg;
	j->n = n;
	fetch_key(j->tenant, caller, tenant);
	key_caller(j->tenant, who);
	for (i = 0; i < n; i++) {
		j->q[i] = qs[i];
		memcpy(text, qs[i].query, len[i]);
		j->q[i].query = text;
		text += len[i];
	}
	pthread_mutex_lock(&f->mu);
	tc = tcount_get(f, j->tenant);
	tcc = tc ? tcount_get(f, who) : NULL;
	if (f->stopping || f->jobs >= FETCH_JOBS_MAX || !tc || !tcc ||
	    tc->jobs >= FETCH_TENANT_JOBS_MAX ||
	    tcc->jobs >= FETCH_CALLER_JOBS_MAX) {
		if (tc && tc->jobs == 0)
			tcount_drop(f, tc);
		if (tcc && tcc->jobs == 0)
			tcount_drop(f, tcc);
		pthread_mutex_unlock(&f->mu);
		goto fail;
	}
	f->jobs++;
	tc->jobs++;
	tcc->jobs++;
	j->tc = tc;
	j->tcc = tcc;
	*f->incoming_tail = j;
	f->incoming_tail = &j->next;
	pthread_mutex_unlock(&f->mu);
	curl_multi_wakeup(f->multi);
	return 0;
fail:
	free(j);
	return -1;
}

void fetch_stop(struct fetch *f)
{
	if (!f || !f->started)
		return;
	pthread_mutex_lock(&f->mu);
	f->stopping = 1;
	pthread_mutex_unlock(&f->mu);
	curl_multi_wakeup(f->multi);
	pthread_join(f->thread, NULL);
	f->started = 0;
}

void fetch_free(struct fetch *f)
{
	size_t b;

	if (!f)
		return;
	fetch_stop(f);
	for (b = 0; b < LANE_BUCKETS; b++) {
		while (f->lanes[b]) {
			struct lane *l = f->lanes[b];

			f->lanes[b] = l->hnext;
			while (l->head) {
				struct ticket *t = l->head;

				l->head = t->next;
				free(t);
			}
			free(l);
		}
	}
	for (b = 0; b < CQUEUE_BUCKETS; b++) {
		while (f->cqueues[b]) {
			struct cqueue *q = f->cqueues[b];

			f->cqueues[b] = q->hnext;
			free(q);
		}
	}
	while (f->bstates) {
		struct bstate *bs = f->bstates;

		f->bstates = bs->next;
		free(bs);
	}
	for (b = 0; b < TCOUNT_BUCKETS; b++) {
		while (f->tcounts[b]) {
			struct tcount *tc = f->tcounts[b];

			f->tcounts[b] = tc->next;
			free(tc);
		}
	}
	for (b = 0; b < BUCKETS; b++) {
		while (f->buckets[b]) {
			struct entry *e = f->buckets[b];

			f->buckets[b] = e->next;
			entry_free(f, e);
		}
	}
	sheap_free(&f->refresh);
	awscred_free(f->aws);
	curl_multi_cleanup(f->multi);
	pthread_mutex_destroy(&f->mu);
	pthread_mutex_destroy(&f->cmu);
	free(f);
}

void fetch_hit_release(struct fetch_hit *h)
{
	size_t i;

	for (i = 0; i < h->n; i++) {
		free(h->owned[i]);
		h->owned[i] = NULL;
		series_drop(h->ans[i].series);
		h->ans[i].series = NULL;
	}
	h->n = 0;
}

int fetch_lookup(struct fetch *f, const char *caller, const char *tenant,
		 const struct fetch_query *qs, size_t n, struct fetch_hit *h)
{
	struct entry *es[FETCH_QUERIES_MAX];
	char key[FETCH_KEY_MAX];
	double now = mono_now();
	int rc = -1, wake = 0;
	size_t i;

	h->n = 0;
	if (n == 0 || n > FETCH_QUERIES_MAX)
		return -1;
	pthread_mutex_lock(&f->cmu);
	for (i = 0; i < n; i++) {
		es[i] = entry_find(f, &qs[i], hash_query(&qs[i]));
		if (!es[i] || !es[i]->have_answer)
			goto out;
		/* an expired answer is renewed here only when that takes
		 * no copying (deriving one is the fetch thread's work) */
		if (!(now - es[i]->fetched_at < entry_ttl(es[i])) &&
		    !entry_renew(f, es[i], now))
			goto out;
	}
	for (i = 0; i < n; i++) {
		h->n = i + 1;
		if (answer_fill(&h->ans[i], &h->owned[i], es[i],
				qs[i].kept_points, now))
			goto out;
	}
	fetch_key(key, caller, tenant);
	for (i = 0; i < n; i++) {
		es[i]->last_used = now;
		entry_note_tenant(f, es[i], key);
		wake |= refresh_plan(f, es[i]);
	}
	rc = 0;
out:
	pthread_mutex_unlock(&f->cmu);
	if (rc) {
		fetch_hit_release(h);
		return -1;
	}
	pthread_mutex_lock(&f->mu);
	f->stats.cache_hits += n;
	pthread_mutex_unlock(&f->mu);
	if (wake)    /* the fetch thread may sleep past the new refresh */
		curl_multi_wakeup(f->multi);
	return 0;
}

void fetch_get_stats(struct fetch *f, struct fetch_stats *out)
{
	pthread_mutex_lock(&f->mu);
	*out = f->stats;
	pthread_mutex_unlock(&f->mu);
}
