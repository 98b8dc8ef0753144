/*
 * fetch.h - backend reads off the gRPC thread: cached, coalesced, bounded.
 *
 * One background thread drives every HTTP transfer to the metrics backends
 * with libcurl's multi interface, so a slow backend delays only the callers
 * that asked it.  Answers are cached per (backend, query) for the config's
 * cache TTL, and identical queries in flight are coalesced: however many
 * ScaledObjects and RPCs ask the same PromQL within the TTL, the backend
 * sees one request.
 *
 * Fairness: each backend has at most maxConnections requests in flight,
 * and one namespace at most maxConnectionsPerNamespace of them (config.h).
 * A request waits for a free connection in its queue (a lane) for that
 * backend, one per (caller, namespace): the caller is who sent the RPC
 * (its mTLS identity, else its address: rpc.c), the namespace the one it
 * claims.  Callers take turns (round robin), and within a caller its
 * namespaces do, so a namespace with many slow queries delays its own
 * reads, not another namespace's, and a caller that makes up namespaces
 * gets one turn per round like any other caller, not one per namespace.
 * A backend's timeoutSeconds counts from when the request is sent, never
 * while it waits.  A (caller, namespace) has at most FETCH_TENANT_JOBS_MAX
 * jobs waiting and a caller FETCH_CALLER_JOBS_MAX.  A lane exists only
 * while it has requests waiting or in flight, so their number is bounded
 * by the jobs waiting (FETCH_JOBS_MAX), the refreshes queued
 * (FETCH_ENTRIES_MAX) and the connections in use, whatever number of
 * namespaces and callers there are over time.
 *
 * Refresh-ahead: an answer used since it arrived is fetched again in the
 * background as late as lets the request come back before the TTL ends
 * (the TTL less the backend's timeoutSeconds and FETCH_REFRESH_QUEUE_S
 * for its lane), never earlier than FETCH_REFRESH_AHEAD of the TTL, queued
 * in the lane of the (caller, namespace) that asked for it last; callers
 * get the cached answer until the TTL ends, never an older one.  A query
 * asked at least once per 0.75 x TTL is always warm (unless its refresh
 * waits longer than FETCH_REFRESH_QUEUE_S in its lane: then its callers
 * wait for it) and costs one request per refresh (17 s at the defaults:
 * TTL 20 s, timeout 2 s).
 * A kept range (below) whose step is longer than the TTL has its step
 * for TTL, at most FETCH_RANGE_TTLS times the TTL: it gains a point only
 * once a step.
 *
 * Range queries ending now (end_s 0), with a TTL above 0, are asked on
 * their grid (series.h: the query's phase plus multiples of the step;
 * phase 0 once the backend answered off it, as one that moves a range's
 * start to a multiple of its step does), their points
 * kept, and a refresh asks only for the points not yet settled
 * (series.h; the backend's rangeSettleSeconds), or nothing when the grid
 * has not moved and every point is settled (then the answer is renewed
 * as if fetched).  The answer is the one a full fetch of the grid gives;
 * its newest point is the last grid time before the request.
 * A kept range whose step is a whole multiple of the step of another
 * kept range of the same query on the same backend (the surge headroom's
 * 45-s range and the forecast's 15-s one) is extended from the finer
 * one's points, without a request, when the finer one was fetched after
 * it and less than the coarse range's TTL ago (series_derive(): the
 * answer is then the one a full fetch sent with the finer range's
 * request gives, and as old).  `staffer_backend_range_answers_total`
 * counts them (stats.c).  This holds on a backend whose points do not
 * depend on the step, as Prometheus'; each range is derived only once it
 * agreed with the finer one on at least FETCH_DERIVE_AGREE settled
 * points with a value, is fetched itself after every FETCH_DERIVE_RECHECK
 * derivations to compare again (agreement on a flat series, a rate of 0,
 * proves nothing: it reads the same at any step), and is never derived
 * again (a log line says so) once a fetch of its own disagrees; then its
 * points are fetched whole.  A query with `@` is never
 * derived: `@ start()`
 * and `@ end()` depend on the range asked.
 * An instant query of the same query as a kept range on the same backend
 * is answered from that range's newest point, without a request, when
 * the point is finite, newer than the instant answer held, and was at
 * most FETCH_INSTANT_LAG_S old when the range arrived, once a range of
 * the query agreed with a finer one and none disagreed (a range point at
 * t is the query evaluated at t, as the instant query at t is); a query
 * none of whose ranges was compared (asked at one step only: a prefill
 * pool's inputTokenRateQuery) takes the backend's word instead, once a
 * range of another query on it agreed and none differed, unless it has
 * `@` (its range depends on the range asked).  Such a
 * range, the finest of its query, is refreshed at its grid's instants
 * (FETCH_GRID_LATE_S after) when its step is no longer than its refresh
 * age and more than half of it, so that its newest point is the query's
 * value at the request (the arrival rate and the forecast's range at the
 * defaults: one request per object per 15 s instead of two per 17 s);
 * the first such refresh may come before FETCH_REFRESH_AHEAD of the
 * TTL, the next ones come a step apart.
 * `staffer_backend_instant_answers_from_range_total` counts them.  With a TTL
 * of 0, and for a past range (end_s > 0), the range is fetched whole, as
 * asked, ending when it is sent.
 *
 * Compression: a request asks for a gzip-compressed reply only when the
 * backend's `compression` says so (config.h): by default when the reply
 * is expected to exceed FETCH_COMPRESS_MIN_BYTES (fetch.c).
 *
 * Threading: fetch_submit() and fetch_lookup() may be called from any
 * thread.  Callbacks run on the fetch thread, one at a time, with no lock
 * of this module held, so a callback may take its caller's locks.  The
 * scaler's callbacks also run on the gRPC thread when fetch_lookup()
 * answers (scaler.h), so the scaler guards its states with its own lock.
 * Callbacks must not block.
 *
 * Locks, in the order they may be taken: the cache lock (entries, lanes,
 * refresh heap; held by the fetch thread while it works on them and by
 * fetch_lookup()), then the job lock (incoming jobs, counts, stats).
 * Neither is held while a job's callback runs or while the thread waits
 * in curl.  The observer (fetch_observe()) is called under the cache lock,
 * so it must take no lock but a leaf of its own (stats.h's).
 */
#ifndef STAFFER_FETCH_H
#define STAFFER_FETCH_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "prom.h"
#include "series.h"

#define FETCH_QUERIES_MAX 16      /* queries in one job */
#define FETCH_ENTRIES_MAX 100000  /* cached (backend, query) answers */
#define FETCH_JOBS_MAX 100000     /* jobs waiting at once */
#define FETCH_TENANT_JOBS_MAX 10000 /* ... of one (caller, namespace) */
#define FETCH_CALLER_JOBS_MAX 50000 /* ... of one caller */
#define FETCH_TENANT_MAX 256      /* bytes of a namespace, with NUL */
#define FETCH_CALLER_MAX 192      /* bytes of a caller, with NUL */
#define FETCH_REFRESH_AHEAD 0.75  /* of the TTL: refresh a used answer
				   * no earlier */
#define FETCH_REFRESH_QUEUE_S 1.0 /* s a refresh may wait in its lane */
#define FETCH_DERIVE_AGREE 3       /* settled points a range must share,
				   * equal, with a finer one to be derived
				   * from it */
#define FETCH_DERIVE_RECHECK 8     /* derivations in a row, then a fetch
				   * of its own compares again */
#define FETCH_RANGE_TTLS 3.0      /* a kept range's TTL: at most this many
				   * cacheTTLSeconds (above) */
#define FETCH_INSTANT_LAG_S 2.0   /* an instant answer is taken from a
				   * kept range's newest point only if that
				   * point was at most this old when the
				   * range arrived (above) */
#define FETCH_GRID_LATE_S 0.01    /* a range feeding an instant is asked
				   * this long after its grid's instant */

struct fetch;

struct fetch_query {
	const struct backend *backend; /* a backend of cfg */
	struct config *cfg;            /* held while the answer is cached
					* (config_hold()) */
	const char *query;             /* PromQL; copied by fetch_submit */
	double range_s;                /* 0: instant query; > 0: range query */
	double step_s;                 /* range step (range queries) */
	double end_s;                  /* range end, Unix seconds; 0: now
					* (a past range for `staffer tune`) */
	int kept_points;               /* a range: fetch_lookup() may hand
					* out its kept points (fetch_answer.
					* series) rather than ts and vals;
					* fetch_submit() ignores it */
};

/* One answer.  For a range query, ts/vals hold n points, owned by the
 * fetch module and valid only during the callback; or, from
 * fetch_lookup() for a query with kept_points, series holds them (n its
 * points, series_points() expands them) and ts/vals are NULL. */
struct fetch_answer {
	enum prom_err err;
	double value;                  /* instant queries */
	double sample_ts;              /* ... the sample's Unix time */
	const double *ts, *vals;       /* range queries */
	const struct series *series;   /* held until fetch_hit_release() */
	size_t n;
	uint64_t version;              /* a range's points: the same number
					* while they are the same points, a
					* new one (never reused, whatever the
					* query) when they change; 0 none */
	double age_s;                  /* how old the cached answer is */
	char msg[PROM_ERR_MAX];        /* why, when err != PROM_OK */
};

/* Called once per job on the fetch thread with one answer per query, in
 * the order submitted.  That thread blocks SIGPIPE (a backend that resets
 * a connection fails the request, never the process). */
typedef void fetch_done_fn(void *arg, const struct fetch_answer *answers,
			   size_t n);

/* Answers taken from the cache by fetch_lookup(). */
struct fetch_hit {
	struct fetch_answer ans[FETCH_QUERIES_MAX];
	size_t n;
	double *owned[FETCH_QUERIES_MAX]; /* range points (ts and vals in
					   * one block), one per answer */
};

/*
 * Answer n queries from the cache on the caller's thread, without the
 * fetch thread: 0 when every one has an answer younger than the TTL (h
 * then holds them, in order, until fetch_hit_release()); -1 when any
 * would need the backend (h holds nothing; submit the job instead).  A
 * hit counts as one (cache_hits), marks the answer as in use for
 * refresh-ahead, and notes (caller, tenant) as the lane a refresh queues
 * in.  Takes the cache lock only (see the lock order above); never blocks
 * on I/O.  A range of a query with kept_points comes as its kept
 * series, held (not copied: the series is immutable, and outlives its
 * replacement in the cache while h holds it).
 */
int fetch_lookup(struct fetch *f, const char *caller, const char *tenant,
		 const struct fetch_query *qs, size_t n, struct fetch_hit *h);
void fetch_hit_release(struct fetch_hit *h);

/* Create the module and start its thread.  Returns NULL on failure (curl
 * or thread creation). */
struct fetch *fetch_new(void);

/*
 * Queue a job of n (1..FETCH_QUERIES_MAX) queries for caller and
 * namespace tenant (the lane its requests wait in; at most
 * FETCH_CALLER_MAX - 1 and FETCH_TENANT_MAX - 1 bytes are told apart; a
 * newline in caller reads as '?'; NULL is "").  The queries' configs must
 * stay alive until cb has run.  Returns 0 and then cb is called exactly
 * once, later, on the fetch thread.  Returns -1 (cb never called) when
 * stopping, out of memory, over FETCH_JOBS_MAX, over
 * FETCH_TENANT_JOBS_MAX for (caller, tenant) or over FETCH_CALLER_JOBS_MAX
 * for caller.
 */
int fetch_submit(struct fetch *f, const char *caller, const char *tenant,
		 const struct fetch_query *qs, size_t n, fetch_done_fn *cb,
		 void *arg);

/*
 * Stop: refuse new jobs, abort transfers in flight, complete every pending
 * job with PROM_EHTTP "shutting down", join the thread.  Idempotent.
 */
void fetch_stop(struct fetch *f);

/* fetch_stop() and free everything.  NULL is fine. */
void fetch_free(struct fetch *f);

/*
 * How one request to a backend ended, as /metrics counts it by backend
 * (stats.h).  A closed set, in this order:
 *   ok           a number came back
 *   no_data      a well-formed answer without a value: no series, NaN/Inf
 *   query_error  the backend refused the query (an API error such as
 *                bad_data) or it gave several series
 *   bad_reply    not a Prometheus answer: malformed, or over a size cap
 *   http_error   an HTTP status other than 200 (404: a wrong base path)
 *   timeout      timeoutSeconds passed
 *   unreachable  connection, DNS or TLS failure
 *   not_sent     never sent: no credentials, an unreadable token file
 */
enum fetch_result {
	FETCH_R_OK,
	FETCH_R_NO_DATA,
	FETCH_R_QUERY_ERROR,
	FETCH_R_BAD_REPLY,
	FETCH_R_HTTP_ERROR,
	FETCH_R_TIMEOUT,
	FETCH_R_UNREACHABLE,
	FETCH_R_NOT_SENT,
	FETCH_R_COUNT
};

/* The label value of r ("ok", ...); "unknown" outside the set. */
const char *fetch_result_name(enum fetch_result r);

/* Called on the fetch thread when a request to be ends (cache hits and
 * coalesced answers are not requests): its result and the seconds from
 * sending to the end (0 when not sent).  Must not block. */
typedef void fetch_observe_fn(void *arg, const struct backend *be,
			      enum fetch_result r, double seconds);

/* Install the observer (NULL: none).  Any thread, any time; the next
 * request that ends sees it. */
void fetch_observe(struct fetch *f, fetch_observe_fn *fn, void *arg);

/* Counters for tests and logs. */
struct fetch_stats {
	unsigned long requests;   /* HTTP requests sent */
	unsigned long cache_hits; /* answers served from cache */
	unsigned long coalesced;  /* answers that joined a request in flight */
	unsigned long refreshed;  /* refreshes ahead queued (see fetch.c) */
	unsigned long cred_ok;    /* AWS credential refreshes that worked */
	unsigned long cred_failed;/* ... and that failed (awscred.h) */
	unsigned long lanes;      /* (backend, caller, namespace) queues now:
				   * those with requests waiting or in
				   * flight */
	unsigned long range_full; /* range requests for a whole grid */
	unsigned long range_tail; /* ... for the points not settled */
	unsigned long range_renewed; /* range answers taken as fetched
				   * again without a request (series.h) */
	unsigned long range_derived; /* range answers extended from a
				   * finer range of the same query */
	unsigned long instant_from_range; /* instant answers taken from a
					   * kept range's newest point */
	unsigned long range_derive_off; /* ranges found to differ from
				   * their finer one: never derived */
};
void fetch_get_stats(struct fetch *f, struct fetch_stats *out);

#endif
