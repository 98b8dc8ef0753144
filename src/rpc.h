/*
 * rpc.h - KEDA's external-scaler protocol on a gRPC core completion queue.
 *
 * One thread (the caller of rpc_server_run) owns the completion queue and
 * every call's life cycle.  A unary call whose answers are all cached is
 * answered on this thread at once (scaler_evaluate_now()); one that needs
 * a backend is handed to the scaler and answered later from the fetch
 * thread (grpc_call_start_batch is thread-safe), so this thread never
 * blocks on HTTP.
 *
 * StreamIsActive calls are bound to a second, non-polling completion
 * queue drained by the stream thread, which runs their step functions;
 * their pending batches then cost the unary calls' queue nothing.  Streams
 * of the same trigger (namespace, name and metadata fingerprint) form a group
 * with one evaluation per push interval; groups wait in a min-heap by due
 * time (sheap.h) that the stream thread pops, so no event walks the
 * streams.  Stream evaluations always go through the fetch thread.
 *
 * Locks, in order: the server's stream mutex (groups, their heap, every
 * stream's send state; taken by the stream thread, by this thread when a
 * stream opens or the server stops, and by a group's evaluation callback
 * on the fetch thread), then the scaler's and fetch's own (scaler.h,
 * fetch.h), which are never held while a callback runs.  A unary call's
 * callback may run inside scaler_evaluate_now(), so no lock is held
 * around it.
 *
 * Every ExternalScaler call is first given its caller (under mTLS the
 * identity of its certificate, matched against the config's `clients`,
 * which refuses unlisted certificates and namespaces an entry may not
 * claim; else the connection's address without its port), whose queues
 * and quotas it counts in (fetch.h, stab.h), then takes its request's
 * cost from the request budget (budget.h) until it is answered, or is
 * answered RESOURCE_EXHAUSTED at once; its namespace and name must be
 * Kubernetes names (kname.h).  The health check needs none of this.
 * Served methods:
 *   /externalscaler.ExternalScaler/{IsActive,StreamIsActive,GetMetricSpec,
 *   GetMetrics}, /grpc.health.v1.Health/Check; every other method,
 *   StreamMetricSpec included, gets UNIMPLEMENTED.
 */
#ifndef STAFFER_RPC_H
#define STAFFER_RPC_H

#include <signal.h>

#include "fetch.h"
#include "scaler.h"

#define RPC_ERR_MAX 256
#define RPC_RECV_MAX (1u << 20)   /* bytes in one request message */

struct budget;
struct certs;
struct stats;

struct rpc_options {
	const char *listen;       /* "host:port"; ":port" means all addresses */
	double grace_s;           /* SIGTERM: time to finish calls */
	struct certs *certs;      /* TLS files (certs.h); NULL: plaintext.
				   * Must outlive the server. */
	int mtls;                 /* certs require client certificates */
	struct budget *budget;    /* request bytes in flight (budget.h);
				   * NULL: unbounded.  Must outlive the
				   * server. */
	size_t quota_bytes;       /* gRPC's own buffers, at most; 0: gRPC's
				   * default (unbounded) */
	struct stats *stats;      /* calls counted here (stats.h); NULL: not
				   * counted.  Must outlive the server. */
	/* SIGHUP: when *reload becomes non-zero, the serving thread sets it
	 * back to 0 and calls on_reload(reload_arg) between two events, so
	 * the callback may use the scaler (scaler_set_config()).  Streams
	 * and calls stay open. */
	volatile sig_atomic_t *reload;
	void (*on_reload)(void *arg);
	void *reload_arg;
};

struct rpc_server;

/* Create, bind and start.  NULL with a message in err on failure (e.g. the
 * port is taken).  sc and f must outlive the server. */
struct rpc_server *rpc_server_new(const struct rpc_options *o,
				  struct scaler *sc, struct fetch *f,
				  char err[RPC_ERR_MAX]);

/*
 * Serve until *stop becomes non-zero (set it from a signal handler), then
 * shut down: stop accepting, end streams with OK status, let calls in
 * flight finish for up to grace_s, cancel the rest (and stop f), and
 * return 0 once every call is gone.
 */
int rpc_server_run(struct rpc_server *s, volatile sig_atomic_t *stop);

/* Free a server after rpc_server_run returned and f has stopped
 * (fetch_stop()): a callback on the fetch thread may still be returning
 * from the reply it started when rpc_server_run returns.  NULL is fine. */
void rpc_server_free(struct rpc_server *s);

#endif
