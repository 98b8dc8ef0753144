/*
 * policy.h - the autoscaling policies the simulator compares, and the
 * metric each one feeds to KEDA and the HPA.
 *
 * A policy is written "name" or "name:key=value,key=value":
 *   staffer        staffer's external scaler: GetMetrics answers decide()
 *                  (model + smoothing + cap, the server's code) on the
 *                  simulated Prometheus signals; AverageValue target 1.
 *                  Keys: any ScaledObject metadata key (docs/metadata.md).
 *                  HPA behavior by default: the one staffer recommends,
 *                  scaleUp and scaleDown tolerance 0, scaleDown
 *                  stabilizationWindowSeconds 0 (staffer smooths
 *                  scale-down itself); behavior=none gives KEDA's default
 *                  HPA instead.  The query keys are accepted and not
 *                  used: the simulator supplies lambda, W, Q and S as if
 *                  all four queries were set; currentReplicasQuery (any
 *                  text) turns on the observed-replicas smoothing, fed
 *                  from the simulated spec.replicas gauge; coldStartSeconds
 *                  turns on the forecast from the arrivals series, both as
 *                  scaler.c does.  slotsPerReplica defaults to the fleet's
 *                  slots.
 *   keda-queue     KEDA Prometheus scaler on the queue depth, AverageValue
 *                  target threshold=T requests per replica (default 5).
 *   keda-running   the same on in-flight requests, threshold=T (default
 *                  0.75 x slots per replica).
 *   keda-combined  both triggers on one ScaledObject (the HPA takes the
 *                  larger proposal): queue=T, running=T.
 *   hpa-util       HPA on a Pods metric, the busy-slot fraction of each
 *                  ready replica averaged over the rate window (what a GPU
 *                  utilisation metric gives), target=U (default 0.7).
 *   oracle         clairvoyant (see the simulator): no keys but the
 *                  replica bounds.
 * Keys every policy takes (the ScaledObject's own fields):
 * minReplicaCount (default 1; 0 enables scale to zero), maxReplicaCount
 * (default 100), cooldownPeriod (300 s), pollingInterval (30 s),
 * activationThreshold (KEDA Prometheus triggers, default 0).  HPA keys
 * (any of them sets spec.behavior, as in a ScaledObject's
 * advanced.horizontalPodAutoscalerConfig.behavior):
 * tolerance (both directions), upTolerance, downTolerance, upWindow,
 * downWindow (stabilizationWindowSeconds), upSelect, downSelect
 * (Max|Min|Disabled), upPolicies, downPolicies ("Pods/4/15+Percent/
 * 100/15"), behavior=none (spec.behavior nil: KEDA's default).
 *
 * policy_parse fills a struct policy (it owns its metadata: release it);
 * struct policy_run holds one run's controller state.
 */
#ifndef STAFFER_POLICY_H
#define STAFFER_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "decide.h"
#include "hpa.h"
#include "keda.h"
#include "meta.h"
#include "simprom.h"

#define POLICY_NAME_MAX 256
#define POLICY_ERR_MAX 600

enum policy_kind {
	POLICY_STAFFER = 0,
	POLICY_KEDA_QUEUE,
	POLICY_KEDA_RUNNING,
	POLICY_KEDA_COMBINED,
	POLICY_HPA_UTIL,
	POLICY_ORACLE,
};

struct policy {
	enum policy_kind kind;
	char name[POLICY_NAME_MAX];  /* the spec as written */
	double queue_threshold;      /* per replica */
	double running_threshold;    /* per replica */
	double util_target;          /* busy fraction, (0, 1] */
	double activation;           /* KEDA activationThreshold */
	struct meta meta;            /* staffer's metadata */
	struct hpa_config hpa;
	struct keda_config keda;
};

/*
 * Parse one policy spec.  base_keys/base_vals (nbase pairs) are metadata
 * applied to a staffer policy before its own keys (the command line's
 * bare key=value arguments).  slots is the fleet's slots per replica (the
 * default slotsPerReplica and running threshold), max_replicas the
 * default maxReplicas.  0 on success; -1 with a sentence in err.  On
 * either, release p afterwards.
 */
int policy_parse(struct policy *p, const char *spec,
		 const char *const *base_keys, const char *const *base_vals,
		 size_t nbase, long slots, int32_t max_replicas, char *err,
		 size_t errlen);
void policy_release(struct policy *p);

/* What the policies can read at one instant: Prometheus answers (NaN when
 * the query has no data) and the pod counts the HPA sees directly. */
struct policy_view {
	double now;
	double arrival_rate;    /* rate(arrivals_total[w]) */
	double service_rate;    /* rate(service_seconds_sum[w]) */
	double completion_rate; /* rate(service_seconds_count[w]) */
	double queue_depth;     /* gauge */
	double shed_rate;       /* rate(shed_total[w]) */
	double inflight;        /* gauge, all replicas */
	double busy_rate;       /* rate(busy_slot_seconds_total[w]) on
				 * serving (not draining) replicas */
	int32_t spec;           /* spec.replicas */
	int32_t status;         /* pods not terminating */
	int32_t ready;          /* serving and ready */
	long slots;
	/* For staffer's range queries: the arrivals counter (the forecast
	 * reads rate() over forecastWindowSeconds) and the spec.replicas
	 * gauge (currentReplicasQuery, as kube-state-metrics exports it). */
	const struct simseries *arrivals;
	const struct simseries *replicas;
	double rate_window_s;
};

struct policy_run {
	const struct policy *p;
	struct hpa *hpa;          /* allocated */
	struct keda keda;
	struct smooth sm;
	double last_w;            /* last good mean service time */
	double *series;           /* staffer: DECIDE_SERIES_MAX points */
	struct decision last;     /* staffer's last decision */
	int have_last;
	uint64_t metric_errors;   /* GetMetrics that failed */
	uint64_t forecasts;       /* decisions the forecast raised */
};

int policy_run_init(struct policy_run *r, const struct policy *p);
void policy_run_free(struct policy_run *r);

/* The HPA's proposal from this policy's metric(s) (before stabilization
 * and limits), or -1 when the metric is unavailable. */
int32_t policy_proposal(struct policy_run *r, const struct policy_view *v);

/* KEDA's scale loop: GetMetrics, then IsActive.  1 active, 0 inactive,
 * -1 on a scaler error (KEDA then takes no action). */
int policy_active(struct policy_run *r, const struct policy_view *v);

const char *policy_kind_name(enum policy_kind k);

#endif
