/*
 * req.h - the requests the benchmark sends, packed once into slices.
 *
 * Every ScaledObject of the benchmark is a staffer trigger as a user
 * would write it: an arrivalRateQuery of its own, a fixed serviceTime,
 * and the keys KEDA adds (scalerAddress).  Packing is done before a
 * measurement, so the client's hot path only takes a slice reference.
 */
#ifndef LOAD_REQ_H
#define LOAD_REQ_H

#include <grpc/slice.h>

#define REQ_NAME_MAX 128          /* a name, namespace or query we make */

/* A ScaledObjectRef (IsActive, GetMetricSpec, StreamIsActive) or a
 * GetMetricsRequest for metricName "staffer", packed into a new slice
 * the caller unrefs (gRPC's allocator aborts rather than fail). */
grpc_slice req_ref(const char *ns, const char *name, const char *query);
grpc_slice req_metrics(const char *ns, const char *name, const char *query);

/* One more metadata pair, "key=value", on every request packed after
 * this call (before the measurement starts; not thread-safe).  0; -1
 * when kv has no '=' or an empty key. */
int req_set_meta(const char *kv);

/* A grpc.health.v1 HealthCheckRequest for the server as a whole. */
grpc_slice req_health(void);

#endif
