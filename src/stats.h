/*
 * stats.h - staffer's own metrics, for its /metrics endpoint (httpd.h).
 *
 * What a platform team graphs and alerts on next to KEDA: the RPCs KEDA
 * makes (count by method and gRPC status code, latency histogram), the
 * StreamIsActive streams open and their pushes, and the backend traffic
 * (fetch.h's counters: requests, cache hits, coalesced answers).  Rendered
 * in the Prometheus text exposition format 0.0.4.
 *
 * Cardinality is bounded: methods and codes come from closed sets (an
 * unregistered method counts as "other", a code outside gRPC's 0..16 as
 * 2, UNKNOWN); the last target per ScaledObject is kept for at most
 * STATS_TARGETS_MAX of them, each forgotten STATS_TARGET_IDLE_S after
 * its last answer (label values escaped, cut at STATS_LABEL_MAX bytes).
 *
 * Threading: every function may be called from any thread.  The counters
 * the RPC threads bump have their own mutex, held only for a copy during
 * a scrape; the target table has another (the fetch thread and scrapes).
 */
#ifndef STAFFER_STATS_H
#define STAFFER_STATS_H

#include <stddef.h>

#include "fetch.h"

#define STATS_TARGETS_MAX 10000     /* ScaledObjects with a target gauge */
#define STATS_TARGET_IDLE_S 600.0   /* forget one unasked this long */
#define STATS_LABEL_MAX 253         /* bytes of a label value kept */

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

/* A StreamIsActive stream opened (+1) or ended (-1). */
void stats_stream(struct stats *s, int delta);

/* A StreamIsActive push with this value. */
void stats_push(struct stats *s, int active);

/* GetMetrics answered target replicas for namespace/name's metric at
 * monotonic time now; held: from the last good data (stale signals). */
void stats_target(struct stats *s, const char *ns, const char *name,
		  const char *metric, long long target, int held, double now);

/*
 * Render everything, with the backend counters fs (NULL: left out), into
 * buf[size], NUL-terminated; targets idle since before now -
 * STATS_TARGET_IDLE_S are dropped first.  Returns the length, or the size needed (>=
 * size) when buf is too small, as snprintf does.
 */
size_t stats_render(struct stats *s, const struct fetch_stats *fs,
		    double now, char *buf, size_t size);

#endif
