/*
 * stats.h - staffer's own metrics, for its /metrics endpoint (httpd.h).
 *
 * What a platform team graphs and alerts on next to KEDA: the RPCs KEDA
 * makes (count by method and gRPC status code, latency histogram), the
 * StreamIsActive streams open and their pushes, the backend traffic
 * (fetch.h's counters: requests, cache hits, coalesced answers; each
 * backend's responses by result and their latency), each ScaledObject's
 * last answer with the signals and terms it was made of, the build and
 * the process (CPU, memory, file descriptors, start time: procstat.h).
 * Rendered in the Prometheus text exposition format 0.0.4;
 * docs/observability.md lists every family.
 *
 * Cardinality is bounded: methods, codes and results come from closed
 * sets (an unregistered method counts as "other", a code outside gRPC's
 * 0..16 as 2, UNKNOWN); backends are at most STATS_BACKENDS_MAX (the
 * config's own limit); the last answer per ScaledObject is kept for at
 * most STATS_TARGETS_MAX of them, each forgotten STATS_TARGET_IDLE_S
 * after its last answer (label values escaped, invalid UTF-8 as U+FFFD,
 * cut at STATS_LABEL_MAX bytes).  STATS_TARGET_LINES lines per
 * ScaledObject: with Kubernetes' longest names (63-byte namespace,
 * 253-byte name) the full table would take about 75 MB, so a page keeps
 * within a size of its own (stats_page(), httpd.h's HTTPD_PAGE_MAX) and
 * counts the ScaledObjects it leaves out (tests/unit/test_stats.c).
 *
 * Threading: every function may be called from any thread.  The counters
 * the RPC threads bump have their own mutex, held only for a copy during
 * a scrape; the target table has another (the fetch thread and scrapes;
 * a scrape copies it a chunk at a time and renders without it); the
 * backend table a third (the fetch thread and scrapes).
 */
#ifndef STAFFER_STATS_H
#define STAFFER_STATS_H

#include <stddef.h>

#include "certs.h"
#include "fetch.h"

#define STATS_TARGETS_MAX 10000     /* ScaledObjects with a target gauge */
#define STATS_TARGET_IDLE_S 600.0   /* forget one unasked this long */
#define STATS_LABEL_MAX 253         /* bytes of a label value kept */
#define STATS_LABEL_OUT (3 * STATS_LABEL_MAX + 1) /* ... escaped, at most */
#define STATS_BACKENDS_MAX CONFIG_BACKENDS_MAX /* backends with series */
#define STATS_TARGET_LINES 17       /* lines per ScaledObject at most:
				     * 12 gauges and 5 terms, the SLO
				     * feedback's and the cold start's
				     * included */
#define STATS_PAGE_RESERVE 4096     /* bytes kept for the counters that
				     * follow the targets on a page */

struct stats;

/* NULL when out of memory. */
struct stats *stats_new(void);
void stats_free(struct stats *s);   /* NULL is fine */

/* One RPC answered: its method (the gRPC path's last part, e.g.
 * "GetMetrics"; NULL or unknown: "other"), status code and the seconds
 * from its arrival to its answer.  For a stream, its end (seconds: how
 * long it was open). */
void stats_rpc(struct stats *s, const char *method, int code,
	       double seconds);

/* A gRPC status code's name as the metrics label it ("OK",
 * "UNAVAILABLE"); "UNKNOWN" for one outside 0..16. */
const char *stats_code_name(int code);

/* A request's metadata map was found parsed in rpc.c's parsed-metadata
 * cache (hit 1; mcache.h) or parsed (hit 0). */
void stats_meta_cache(struct stats *s, int hit);

/* A StreamIsActive stream opened (+1) or ended (-1). */
void stats_stream(struct stats *s, int delta);

/* A StreamIsActive push with this value. */
void stats_push(struct stats *s, int active);

/* What one answer was made of (scaler.h's struct scaler_result: sig, b
 * and the decision's raw count). */
struct stats_terms {
	double arrival_rate;      /* lambda, req/s */
	double arrival_surge;     /* lambda-surge, the surge headroom's rate
				   * (0: none) */
	double arrival_forecast;  /* lambda-hat at the cold-start horizon, 0:
				   * none */
	double service_time_s;    /* W */
	double queue_depth;       /* Q */
	double shed_rate;         /* S, req/s */
	double busy_slots, headroom_slots, drain_slots, boost_slots;
	int feedback;             /* the SLO feedback is on (slaMissQuery):
				   * its two series are rendered */
	double correction;        /* its factor, 1: none */
	double feedback_slots;    /* its share of the total slots */
	int have_cold;            /* coldStartQuery is given: cold_start_s
				   * is rendered */
	double cold_start_s;      /* the cold start in force */
	long long raw;            /* the model's replicas, before smoothing */
	int capped;               /* 1: maxReplicas (or int32) cut the answer */
};

/*
 * GetMetrics answered target replicas for namespace/name's metric at
 * monotonic time now.  terms: what the answer was made of; NULL when it
 * was held (stale signals: the last good target), which leaves the
 * terms of the last decision shown and sets the held gauge.
 */
void stats_target(struct stats *s, const char *ns, const char *name,
		  const char *metric, long long target,
		  const struct stats_terms *terms, double now);

/* One request to backend `backend` (a config name) ended with result r
 * after seconds (0 for FETCH_R_NOT_SENT).  Names are kept for the life of
 * the process, so reloads that rename backends can exceed the
 * STATS_BACKENDS_MAX of one config: a name beyond the first
 * STATS_BACKENDS_MAX seen is counted as STATS_BACKEND_OTHER, which no
 * backend name can be (a config name has no parentheses), so its series
 * never duplicates a backend's. */
#define STATS_BACKEND_OTHER "(other)"
void stats_backend(struct stats *s, const char *backend,
		   enum fetch_result r, double seconds);

/* The fetch_observe_fn that feeds stats_backend(): arg is the struct
 * stats. */
fetch_observe_fn stats_fetch_observer;

/* What the metrics endpoint did to a client (httpd.h). */
enum stats_http {
	STATS_HTTP_SLOW_REQUEST,   /* closed: no whole request in time */
	STATS_HTTP_SLOW_RESPONSE,  /* closed: its answer not read in time */
	STATS_HTTP_LIMITED,        /* a scrape answered 429: too many bytes */
	STATS_HTTP_COUNT
};
void stats_http(struct stats *s, enum stats_http e);

/* Render b's figures too (budget.h; NULL: none): the request budget, the
 * bytes in flight and the calls refused.  b must outlive s. */
struct budget;
void stats_watch_budget(struct stats *s, struct budget *b);

/* The certs_observe_fn (certs.h) for the gRPC server's TLS files: the
 * expiry of the certificate in use, and the files read again by result.
 * arg is the struct stats.  Without it no staffer_tls_* series are
 * rendered. */
certs_observe_fn stats_certs_observer;

/*
 * Render everything, with the backend counters fs (NULL: left out), into
 * buf[size], NUL-terminated; targets idle since before now -
 * STATS_TARGET_IDLE_S are dropped first.  The process_* metrics are read
 * now (procstat.h; left out where /proc cannot be read).  Returns the
 * length, or the size needed (>= size) when buf is too small, as
 * snprintf does.  Every target is shown (for tests; /metrics uses
 * stats_page()).
 */
size_t stats_render(struct stats *s, const struct fetch_stats *fs,
		    double now, char *buf, size_t size);

/*
 * The /metrics page: as stats_render(), into the buffer *buf of *size
 * bytes (malloc()ed, or NULL and 0), grown with realloc() as needed, of
 * the returned length plus a NUL, at most max bytes (>= STATS_PAGE_RESERVE
 * plus the fixed families, some 100 KB): ScaledObjects whose series would
 * pass max are left out of the page and counted in
 * staffer_target_series_omitted_total, never an error.  Give back the
 * buffer of an earlier page to spare the allocator a page's worth of
 * fresh memory at each rendering.  The targets are copied
 * STATS_SNAP_CHUNK hash buckets at a time under their lock and rendered
 * without it, so a large page never holds up stats_target() (GetMetrics).
 * (size_t)-1 when out of memory (*buf and *size still the caller's to
 * free).
 */
size_t stats_page(struct stats *s, const struct fetch_stats *fs, double now,
		  size_t max, char **buf, size_t *size);

#endif
