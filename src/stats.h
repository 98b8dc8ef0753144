/*
 * stats.h - staffer's own metrics, for its /metrics endpoint (httpd.h).
 *
 * What a platform team graphs and alerts on next to KEDA: the RPCs KEDA
 * makes (count by method and gRPC status code, latency histogram), the
 * StreamIsActive streams open and their pushes, and the backend traffic
 * (fetch.h's counters: requests, cache hits, coalesced answers).  Rendered
 * in the Prometheus text exposition format 0.0.4.
 *
 * Cardinality is fixed: methods and codes come from closed sets (an
 * unregistered method counts as "other", a code outside gRPC's 0..16 as
 * 2, UNKNOWN); nothing per ScaledObject.
 *
 * Threading: every function may be called from any thread (one mutex).
 */
#ifndef STAFFER_STATS_H
#define STAFFER_STATS_H

#include <stddef.h>

#include "fetch.h"

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

/*
 * Render everything, with the backend counters fs (NULL: left out), into
 * buf[size], NUL-terminated.  Returns the length, or the size needed (>=
 * size) when buf is too small, as snprintf does.
 */
size_t stats_render(struct stats *s, const struct fetch_stats *fs,
		    char *buf, size_t size);

#endif
