/*
 * req.h - the requests the benchmark sends, packed once into slices.
 *
 * Every ScaledObject of the benchmark is a staffer trigger as a user
 * would write it: an arrivalRateQuery of its own, a fixed serviceTime,
 * and the keys KEDA adds (scalerAddress), plus the pairs req_add_meta()
 * was given (`staffer-load --meta`), each "{i}" in their values replaced
 * by the object's index.  Packing is done before a measurement, so the
 * client's hot path only takes a slice reference.
 */
#ifndef LOAD_REQ_H
#define LOAD_REQ_H

#include <stddef.h>

#include <grpc/slice.h>

#define REQ_NAME_MAX 128          /* a name, namespace or query we make */
#define REQ_META_MAX 8            /* pairs req_add_meta() keeps */
#define REQ_VALUE_MAX 512         /* one of their values, "{i}" replaced */
#define REQ_INDEX_DIGITS 20       /* an index as decimal, at most
				   * (ULONG_MAX on 64 bits) */

/* A ScaledObjectRef (IsActive, GetMetricSpec, StreamIsActive) or a
 * GetMetricsRequest for metricName "staffer", packed into a new slice
 * the caller unrefs (gRPC's allocator aborts rather than fail).  i is
 * the object's index, for "{i}" in req_add_meta()'s values. */
grpc_slice req_ref(const char *ns, const char *name, const char *query,
		   unsigned long i);
grpc_slice req_metrics(const char *ns, const char *name, const char *query,
		       unsigned long i);

/* One more metadata pair, "key=value", on every request packed after
 * this call (before the measurement starts; not thread-safe); each
 * "{i}" in value becomes the object's index when a request is packed.
 * A key the client sends anyway (scalerAddress, arrivalRateQuery,
 * serviceTime) takes value in place of its own, and an empty value
 * leaves it out.  0; -1 with why (at most len bytes) when kv has no
 * '=', an empty or overlong key, a key given before, a value that could
 * outgrow REQ_VALUE_MAX, or REQ_META_MAX pairs were given already. */
int req_add_meta(const char *kv, char *why, size_t len);

/* fmt with each "{i}" replaced by i, into out[size]: 0, or -1 when it
 * does not fit. */
int req_subst(char *out, size_t size, const char *fmt, unsigned long i);

/* A grpc.health.v1 HealthCheckRequest for the server as a whole. */
grpc_slice req_health(void);

#endif
