/*
 * sim.h - the closed-loop simulator: a fleet serving a trace under one
 * autoscaling policy, event by event.
 *
 * The world (docs/benchmark.md states the same):
 *  - Fleet: replicas with `slots` request slots each.  A new replica is
 *    ready its cold start after it is created; it costs replica-seconds
 *    from creation.  The cold start is cold_start_s, or with
 *    cold_start_cv > 0 a lognormal draw with median cold_start_s and that
 *    CV, the k-th replica created after the start taking the k-th draw
 *    of a stream seeded by cold_seed: the same pods for every policy.  Scale-down removes replicas that are still starting first
 *    (they vanish at once), then the newest ready ones, which drain: they
 *    get no new work, finish what they hold, and cost replica-seconds
 *    until empty (as a Deployment's terminating pods with a grace period).
 *    Routed, what was queued on a draining replica and not started goes
 *    back to the gateway and is routed again, oldest arrival first,
 *    keeping its arrival time (its wait, and its timeout, keep counting).
 *  - Gateway, by `routing`:
 *     shared        one FIFO queue for the fleet: a request starts on the
 *                   ready, serving replica with the most free slots
 *                   (ties: the lowest slot in the replica table).
 *     least-loaded  on arrival the request goes to the ready, serving
 *                   replica with the fewest requests running and queued
 *                   on it (ties: the oldest replica) ...
 *     round-robin   ... or to the next of them in turn (oldest first,
 *                   cyclic).
 *    Routed, each replica serves its own FIFO queue with its slots; no
 *    work moves between replicas.  With no ready replica a request waits
 *    at the gateway, and those waiting there are routed, oldest first,
 *    once one becomes ready (after every replica ready at that instant
 *    is).  A request that has waited longer than queue_timeout_s,
 *    wherever it waits, is shed.
 *  - Metrics: every scrape_s (at 0, scrape_s, ...) the simulated
 *    Prometheus scrapes the gateway's counters (arrivals, shed, completed
 *    service seconds sum and count, busy slot-seconds of serving
 *    replicas) and gauges (queue depth: every waiting request, at the
 *    gateway and in every replica's queue; in-flight: running requests,
 *    draining replicas' too); queries use simprom's rate() over
 *    rate_window_s and instant gauges, but the mean service time W =
 *    rate(sum) / rate(count) over service_window_s (300 s by default,
 *    as docs/metadata.md recommends for serviceTimeQuery: over a short
 *    window the completions are the short requests of the last minute,
 *    and W swings with every change of the arrival rate).
 *  - Control: the HPA syncs every hpa_sync_s at w + hpa_sync_s / 2 + k
 *    hpa_sync_s (hpa.h); KEDA polls every pollingInterval at w +
 *    pollingInterval / 3 + k pollingInterval s (keda.h), w being the
 *    rate window: metrics only exist from t = 0, so for one window the
 *    fleet holds its warm start (a rate() over a window that is not yet
 *    full reads low, and only short requests have completed); the oracle
 *    decides every oracle_step_s at 0, oracle_step_s, ...  HPA and
 *    KEDA read the metrics as they stand at that instant.
 *  - Oracle: knows every future request and every pod's cold start; at
 *    time t it sets the replicas to the most of: ceil(max c(u) / slots)
 *    for u in [t, t + h + oracle_step_s], c being demand.h's ideal
 *    concurrency, h the nominal cold start or the longest remaining one
 *    of the replicas starting; and live + k + 1 where the k-th replica
 *    still to be created is needed within its own cold start (the same
 *    maximum over its draw); clamped to the policy's [minReplicaCount,
 *    maxReplicaCount]: each replica is started one of its own cold
 *    starts before it is needed and kept through any dip shorter than a
 *    cold start.  No metrics, no HPA.
 *  - Static: `static` holds its replicas (initial_replicas unless the
 *    policy says) ready from t = 0 to the end; no HPA, no KEDA.
 *  - Start: initial_replicas ready replicas at t = 0 for every policy;
 *    staffer's smoothing starts from that count at its first decision,
 *    as a server that had been running would.  The caller picks the
 *    count: sim_first_minute_replicas (what an operator measured before
 *    switching the autoscaler on, the default of `staffer simulate`) or
 *    sim_initial_replicas (which peeks at the first cold start).
 *  - Accounting: replica-seconds over [0, end_s]; requests arriving
 *    before end_s are all followed until they start or are shed.
 *
 * Same inputs, same outputs: no clocks, no randomness (the trace carries
 * it).  sim_run allocates per run and frees everything it allocated.
 */
#ifndef STAFFER_SIM_H
#define STAFFER_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "demand.h"
#include "policy.h"
#include "trace.h"

#define SIM_SLOTS_MAX 100000L
#define SIM_REPLICAS_MAX 200000u  /* replicas alive at once, draining too */
#define SIM_WARM_WINDOW_S 60.0    /* the first-minute warm start's window */
#define SIM_COLD_CV_MAX 3.0       /* the cold starts' largest CV */
/* coldStartQuery's answer: the median cold start of the replicas that
 * became ready within the last SIM_COLD_SEEN_S, at most the last
 * SIM_COLD_SEEN_MAX of them (kube-state-metrics keeps pods that exist;
 * the docs' query takes the median over a day of them). */
#define SIM_COLD_SEEN_S 86400.0
#define SIM_COLD_SEEN_MAX 1024

enum sim_routing {
	SIM_ROUTE_SHARED = 0,     /* one gateway queue (the default) */
	SIM_ROUTE_LEAST_LOADED,   /* per-replica queues, fewest requests */
	SIM_ROUTE_ROUND_ROBIN,    /* per-replica queues, in turn */
};

struct sim_config {
	long slots;              /* per replica, 1 .. SIM_SLOTS_MAX */
	double queue_timeout_s;  /* > 0 */
	double cold_start_s;     /* >= 0; the median with cold_start_cv */
	double cold_start_cv;    /* 0 to SIM_COLD_CV_MAX: lognormal spread */
	uint64_t cold_seed;      /* the cold starts' random stream */
	double sla_s;            /* >= 0 */
	double scrape_s;         /* > 0 */
	double rate_window_s;    /* > scrape_s */
	double service_window_s; /* > scrape_s: W's rate() window */
	double hpa_sync_s;       /* >= 1 */
	double oracle_step_s;    /* > 0 */
	int32_t initial_replicas;/* >= 0 */
	double end_s;            /* accounting horizon, > 0 */
	double ts_step_s;        /* timeseries period, 0 = none */
	enum sim_routing routing;
};

/* Defaults: 1 slot, 60 s timeout, 120 s cold start, 2 s SLA, 15 s
 * scrape, 60 s rate window, 15 s sync and oracle step, 1 replica, shared
 * routing; end_s must be set. */
void sim_config_init(struct sim_config *c);
int sim_config_check(const struct sim_config *c, char *err, size_t errlen);

/* "shared", "least-loaded", "round-robin": 0, or -1 when unknown. */
int sim_routing_parse(const char *s, enum sim_routing *out);
const char *sim_routing_name(enum sim_routing r);

struct sim_result {
	uint64_t requests;       /* arrivals */
	uint64_t started;
	uint64_t within_sla;     /* started with wait <= sla */
	uint64_t shed;
	double sla_attainment;   /* within_sla / requests */
	double shed_fraction;    /* shed / requests */
	double wait_p50, wait_p95, wait_p99; /* of started requests,
					      * nearest rank; NaN if none */
	double wait_mean;
	double replica_hours;
	double lower_bound_hours;/* the requests' service inside [0, end_s]
				  * / slots / 3600: the work's bound */
	uint64_t scale_events;   /* changes of spec.replicas */
	uint64_t metric_errors;  /* GetMetrics failures (staffer) */
	int32_t peak_replicas;
	int never_scales_up;     /* policy_never_scales_up: a fixed fleet
				  * in disguise, whatever the load */
};

/* One timeseries point. */
struct sim_sample {
	double t;
	int32_t spec, ready, starting, draining;
	double demand;           /* ideal concurrency / slots */
	uint64_t queue, inflight;
	uint64_t shed;           /* shed since the previous sample */
	int32_t raw;             /* staffer: the model's answer; else -1 */
	double cold_seen;        /* what coldStartQuery answers (the median
				  * cold start of the replicas seen
				  * starting); NaN before the first */
};

typedef void sim_sample_fn(void *arg, const struct sim_sample *s);

/*
 * Run policy p over trace t (sorted, service times set) with demand d
 * (built from t).  Fills *out.  fn (may be NULL) gets a sample every
 * ts_step_s.  0 on success; -1 with err (out of memory, too many
 * replicas).
 */
int sim_run(const struct sim_config *c, const struct trace *t,
	    const struct demand *d, const struct policy *p,
	    struct sim_result *out, sim_sample_fn *fn, void *arg, char *err,
	    size_t errlen);

/* A warm start that peeks into the future ("auto"): ceil(max c(u) /
 * slots) over [0, cold_start_s + hpa_sync_s], c being the ideal
 * concurrency, at least min. */
int32_t sim_initial_replicas(const struct sim_config *c,
			     const struct demand *d, int32_t min);

/* The warm start an operator could have measured ("first-minute"): the
 * fleet the first minute needed at its peak, ceil(max c(u) / slots) over
 * [0, SIM_WARM_WINDOW_S], c being the ideal concurrency (every request
 * started on arrival): measured, not foreseen, and the same for every
 * policy; at least min and at least 1. */
int32_t sim_first_minute_replicas(const struct sim_config *c,
				  const struct demand *d, int32_t min);

#endif
