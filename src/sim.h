/*
 * sim.h - the closed-loop simulator: a fleet serving a trace under one
 * autoscaling policy, event by event.
 *
 * The world (docs/benchmark.md states the same):
 *  - Fleet: replicas with `slots` request slots each.  A new replica is
 *    ready cold_start_s after it is created; it costs replica-seconds from
 *    creation.  Scale-down removes replicas that are still starting first
 *    (they vanish at once), then the newest ready ones, which drain: they
 *    get no new work, finish what they hold, and cost replica-seconds
 *    until empty (as a Deployment's terminating pods with a grace period).
 *  - Gateway: one FIFO queue.  A request starts on the ready, serving
 *    replica with the most free slots (ties: the oldest); a request that
 *    has waited longer than queue_timeout_s is shed.
 *  - Metrics: every scrape_s (at 0, scrape_s, ...) the simulated
 *    Prometheus scrapes the gateway's counters (arrivals, shed, completed
 *    service seconds sum and count, busy slot-seconds of serving
 *    replicas) and gauges (queue depth, in-flight requests); queries use
 *    simprom's rate() over rate_window_s and instant gauges.
 *  - Control: the HPA syncs every hpa_sync_s at w + hpa_sync_s / 2 + k
 *    hpa_sync_s (hpa.h); KEDA polls every pollingInterval at w +
 *    pollingInterval / 3 + k pollingInterval s (keda.h), w being the
 *    rate window: metrics only exist from t = 0, so for one window the
 *    fleet holds its warm start (a rate() over a window that is not yet
 *    full reads low, and only short requests have completed); the oracle
 *    decides every oracle_step_s at 0, oracle_step_s, ...  HPA and
 *    KEDA read the metrics as they stand at that instant.
 *  - Oracle: knows every future request; at time t it sets the replicas
 *    to ceil(max c(u) / slots) for u in [t, t + cold_start_s +
 *    oracle_step_s], c being demand.h's ideal concurrency, clamped to the
 *    policy's [minReplicaCount, maxReplicaCount]: replicas are started
 *    exactly one cold start before they are needed and kept through any
 *    dip shorter than a cold start.  No metrics, no HPA.
 *  - Start: initial_replicas ready replicas at t = 0 for every policy;
 *    staffer's smoothing starts from that count at its first decision,
 *    as a server that had been running would.
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

struct sim_config {
	long slots;              /* per replica, 1 .. SIM_SLOTS_MAX */
	double queue_timeout_s;  /* > 0 */
	double cold_start_s;     /* >= 0 */
	double sla_s;            /* >= 0 */
	double scrape_s;         /* > 0 */
	double rate_window_s;    /* > scrape_s */
	double hpa_sync_s;       /* >= 1 */
	double oracle_step_s;    /* > 0 */
	int32_t initial_replicas;/* >= 0 */
	double end_s;            /* accounting horizon, > 0 */
	double ts_step_s;        /* timeseries period, 0 = none */
};

void sim_config_init(struct sim_config *c);
int sim_config_check(const struct sim_config *c, char *err, size_t errlen);

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
};

/* One timeseries point. */
struct sim_sample {
	double t;
	int32_t spec, ready, starting, draining;
	double demand;           /* ideal concurrency / slots */
	uint64_t queue, inflight;
	uint64_t shed;           /* shed since the previous sample */
	int32_t raw;             /* staffer: the model's answer; else -1 */
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

/* The warm start used for every policy: ceil(max c(u) / slots) over
 * [0, cold_start_s + hpa_sync_s], at least min. */
int32_t sim_initial_replicas(const struct sim_config *c,
			     const struct demand *d, int32_t min);

#endif
