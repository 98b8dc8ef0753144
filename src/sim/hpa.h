/*
 * hpa.h - the Kubernetes HorizontalPodAutoscaler, as a pure state machine.
 *
 * Follows kubernetes pkg/controller/podautoscaler (horizontal.go and
 * replica_calculator.go, 1.33+ with per-direction tolerances):
 *  - hpa_calc_external_avg: GetExternalPerPodMetricReplicas, the
 *    AverageValue math KEDA's metrics use: ratio = usage / (target x
 *    statusReplicas); inside the tolerance band (inclusive) the answer is
 *    statusReplicas, else ceil(usage / target).  Values go through milli
 *    units as the API's Quantity does (KEDA's "%.3f").
 *  - hpa_calc_pods: calcPlainMetricReplicas for a Pods metric (e.g. GPU
 *    busy fraction per pod): average over pods with a metric, pods still
 *    starting count as missing (0 on a scale-up, the target on a
 *    scale-down), with the direction-change guards.
 *  - hpa_reconcile: reconcileAutoscaler after the metrics: spec 0 with
 *    minReplicas > 0 disables scaling; outside [min, max] snaps back;
 *    then, without `behavior`, the max of the recommendations of the
 *    last downscale-stabilization window (default 300 s) and the scale-up
 *    limit max(2 x current, 4) (normalizeDesiredReplicas); with
 *    `behavior`, stabilizeRecommendationWithBehaviors (up: min over its
 *    window, down: max over its window, the current count in between)
 *    and the Pods/Percent policies over scale events in their periods
 *    with selectPolicy Max/Min/Disabled
 *    (convertDesiredReplicasWithBehaviorRate).  Times compare as in Go:
 *    a sample exactly at a cutoff is "not After" it.
 *
 * Setting any behavior field (tolerance included) makes spec.behavior
 * non-nil, and then the API server's defaults fill the rest (defaults.go):
 * scaleUp window 0, Max, Pods 4 / 15 s and Percent 100 / 15 s; scaleDown
 * window from the controller flag (300 s), Max, Percent 100 / 15 s.
 *
 * Plain data, no I/O, no allocation; struct hpa is large (history arrays)
 * so callers allocate it.
 */
#ifndef STAFFER_HPA_H
#define STAFFER_HPA_H

#include <stddef.h>
#include <stdint.h>

#define HPA_POLICIES_MAX 8
#define HPA_RECS_MAX 4096     /* > 3600 s window / 1 s sync */
#define HPA_EVENTS_MAX 2048   /* > 1800 s period / 1 s sync */
#define HPA_UNSET (-1)
#define HPA_WINDOW_MAX 3600   /* stabilizationWindowSeconds (API limit) */
#define HPA_PERIOD_MAX 1800   /* periodSeconds (API limit) */
#define HPA_REPLICAS_MAX 100000

enum hpa_ptype { HPA_PODS = 0, HPA_PERCENT };

enum hpa_select {
	HPA_SELECT_UNSET = 0,
	HPA_SELECT_MAX,
	HPA_SELECT_MIN,
	HPA_SELECT_DISABLED,
};

struct hpa_policy {
	enum hpa_ptype type;
	int32_t value;          /* > 0 */
	int32_t period_s;       /* 1 .. 1800 */
};

/* One direction of spec.behavior. */
struct hpa_rules {
	int32_t window_s;       /* stabilizationWindowSeconds; HPA_UNSET */
	enum hpa_select select;
	struct hpa_policy pol[HPA_POLICIES_MAX];
	size_t npol;            /* 0: the API default policies */
	double tolerance;       /* < 0: the controller's tolerance */
};

struct hpa_config {
	int32_t min_replicas;   /* >= 1 */
	int32_t max_replicas;   /* >= min */
	double tolerance;       /* controller flag, default 0.1 */
	int32_t downscale_window_s; /* controller flag, default 300 */
	int behavior;           /* 0: spec.behavior is nil */
	struct hpa_rules up, down;
};

struct hpa_rec {
	double t;
	int32_t replicas;
};

struct hpa_event {
	double t;
	int32_t change;
	int outdated;
};

struct hpa {
	struct hpa_config cfg;  /* with the API defaults filled in */
	struct hpa_rec recs[HPA_RECS_MAX];
	size_t nrecs;
	struct hpa_event up[HPA_EVENTS_MAX], down[HPA_EVENTS_MAX];
	size_t nup, ndown;
};

/* KEDA's HPA: min 1, max 100, tolerance 0.1, 300 s, no behavior. */
void hpa_config_init(struct hpa_config *c);

/* Check ranges; 0, or -1 with a sentence in err. */
int hpa_config_check(const struct hpa_config *c, char *err, size_t errlen);

/* Start a controller for one HPA (copies c, fills API defaults). */
void hpa_init(struct hpa *h, const struct hpa_config *c);

/* The tolerances in effect (behavior's, else the controller's). */
double hpa_tolerance_up(const struct hpa *h);
double hpa_tolerance_down(const struct hpa *h);

/* (1 - down) <= ratio <= (1 + up); NaN is never within. */
int hpa_within(double ratio, double tol_down, double tol_up);

/* AverageValue external metric: usage (sum of the metric) and target per
 * replica (> 0) in metric units. */
int32_t hpa_calc_external_avg(const struct hpa *h, int32_t status_replicas,
			      double usage, double target);

/*
 * Pods metric: `ready` pods report `per_pod` each, `missing` pods (not
 * ready yet) report nothing; target per pod > 0.  Returns the proposal,
 * or -1 when no pod reports (the HPA's "did not receive metrics").
 */
int32_t hpa_calc_pods(const struct hpa *h, int32_t current, int32_t ready,
		      int32_t missing, double per_pod, double target);

/*
 * One sync at time now: spec = the target's spec.replicas, status = its
 * status.replicas (pods not terminating), proposal = the max over the
 * metrics' proposals, or -1 when the metrics failed (no change, nothing
 * recorded).  Returns the new spec.replicas (== spec when not scaling).
 */
int32_t hpa_reconcile(struct hpa *h, double now, int32_t spec,
		      int32_t proposal);

/* Parse "Max", "Min", "Disabled"; 0 or -1. */
int hpa_select_parse(const char *s, enum hpa_select *out);

/*
 * Parse a policy list "Pods/4/15+Percent/100/15" (type/value/period,
 * joined by '+').  0, or -1 with a sentence in err.
 */
int hpa_policies_parse(const char *s, struct hpa_rules *r, char *err,
		       size_t errlen);

#endif
