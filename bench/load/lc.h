/*
 * lc.h - the load client's gRPC side: channels, one completion queue,
 * unary calls and StreamIsActive streams, on gRPC core's C API.
 *
 * One thread owns a struct lc: it starts calls and runs lc_poll(), which
 * calls every callback on that thread, so scenario code needs no lock.
 * Calls are spread round-robin over the channels; each channel is its own
 * HTTP/2 connection (a local subchannel pool), as KEDA keeps one
 * connection per scaler address.  A call's latency is measured from just
 * before grpc_call_start_batch() to the moment its completion is taken
 * off the queue, on CLOCK_MONOTONIC.
 *
 * Every reply is unpacked and checked (a GetMetrics answer must hold one
 * non-negative value, a health answer must say SERVING, ...): a fast
 * wrong answer counts as an error, not as a fast answer.
 */
#ifndef LOAD_LC_H
#define LOAD_LC_H

#include <grpc/grpc.h>
#include <stddef.h>

#define LC_ERR_MAX 256
#define LC_CHANNELS_MAX 64
#define LC_REPLY_MAX 4096         /* bytes of one reply we unpack */

enum lc_method {
	LC_HEALTH,                /* grpc.health.v1.Health/Check */
	LC_IS_ACTIVE,
	LC_GET_METRIC_SPEC,
	LC_GET_METRICS,
	LC_STREAM_IS_ACTIVE,
	LC_METHODS
};

/* One finished unary call, one stream message, or a stream's end. */
struct lc_result {
	enum lc_method method;
	grpc_status_code status;  /* of the call; OK for a stream message */
	int reply_ok;             /* the reply unpacked and made sense */
	int active;               /* IsActive / StreamIsActive: the result */
	double value;             /* GetMetrics: the metric's value */
	int ended;                /* streams: 1 on the final callback */
	double started;           /* monotonic seconds the call started */
	double latency_s;         /* unary: start to completion */
};

typedef void lc_done_fn(void *arg, const struct lc_result *r);

struct lc;
struct lc_call;

/* Monotonic clock, seconds. */
double lc_now(void);

/* The method's name for reports ("GetMetrics", "Check", ...). */
const char *lc_method_name(enum lc_method m);

/*
 * Connect to addr ("host:port", plaintext) over n channels (1 ..
 * LC_CHANNELS_MAX).  Calls grpc_init(); lc_free() calls grpc_shutdown().
 * NULL with a message in err on failure.  The connections are made
 * lazily by the first calls: use lc_wait_ready() first.
 */
struct lc *lc_new(const char *addr, int channels, char err[LC_ERR_MAX]);

/* Wait up to timeout_s until a health check on every channel answers
 * SERVING.  0, or -1. */
int lc_wait_ready(struct lc *c, double timeout_s);

/*
 * Start one unary call of method m (not LC_STREAM_IS_ACTIVE) with the
 * packed request req (a reference is taken: the caller keeps its own).
 * cb(arg, result) runs exactly once from lc_poll().  0, or -1 (out of
 * memory, or gRPC refused the batch: cb is never called).
 */
int lc_unary(struct lc *c, enum lc_method m, grpc_slice req,
	     double timeout_s, lc_done_fn *cb, void *arg);

/*
 * Open a StreamIsActive stream with the packed ScaledObjectRef req.
 * cb runs from lc_poll() for every message the server sends (ended 0)
 * and once when the stream is over (ended 1, status set); the stream
 * object is freed after that last call.  NULL when the call cannot start
 * (cb never called).
 */
struct lc_call *lc_stream_open(struct lc *c, grpc_slice req,
				 lc_done_fn *cb, void *arg);

/* Cancel a stream; its ended callback follows from lc_poll(). */
void lc_stream_cancel(struct lc_call *s);

/*
 * Take completions off the queue and run their callbacks until the
 * monotonic time `until` passes.  Returns early, after at least one
 * event, when nothing is in flight any more.  Returns the number of
 * completions handled.
 */
size_t lc_poll(struct lc *c, double until);

/* Unary calls plus streams not yet ended. */
size_t lc_inflight(const struct lc *c);

/* Unary calls not yet ended. */
size_t lc_unary_inflight(const struct lc *c);

/* Cancel every stream, wait (up to 30 s) for every call to end, close
 * the channels and the queue, grpc_shutdown().  NULL is fine. */
void lc_free(struct lc *c);

#endif
