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
 *                  from the simulated spec.replicas gauge; the forecast,
 *                  the hold and the peakedness read the arrivals series,
 *                  all as scaler.c does (rateWindowSeconds defaults to the
 *                  simulated rate window).  slotsPerReplica defaults to
 *                  the fleet's slots.  One key is the simulator's own:
 *                  forecast=perfect replaces the forecast by the truth,
 *                  the highest true arrival rate over a rate window
 *                  within the fleet's true cold start (a reference: the
 *                  model with a perfect forecast, not a policy to run).
 *                  Ablations of the model's rules (model.h), for the
 *                  benchmark's tables: drain=excess drains max(0, Q - L)
 *                  instead of Q (v1's rule), boost=none leaves out the
 *                  shed boost (shed requests taken to be in lambda).
 *   keda-queue     KEDA Prometheus scaler on the queue depth, AverageValue
 *                  target threshold=T requests per replica (default 5).
 *   keda-running   the same on in-flight requests, threshold=T (default
 *                  0.75 x slots per replica).
 *   keda-combined  both triggers on one ScaledObject (the HPA takes the
 *                  larger proposal): queue=T, running=T.
 *   keda-sum       one KEDA Prometheus trigger on running + waiting
 *                  requests (the in-flight gauge plus the queue-depth
 *                  gauge: one PromQL sum, so no answer if either has
 *                  none), AverageValue threshold=T per replica (default
 *                  slots: a replica's worth of work); KEDA's default HPA
 *                  as keda-running.
 *   hpa-util       HPA on a Pods metric, the busy-slot fraction of each
 *                  ready replica averaged over the rate window (what a GPU
 *                  utilisation metric gives), target=U (default 0.7).
 *   oracle         clairvoyant (see the simulator): no keys but the
 *                  replica bounds.
 *   static         a fixed fleet, no HPA and no KEDA: replicas=N (default
 *                  -1: the run's initial replicas).  Its only key.
 * Keys every other policy takes (the ScaledObject's own fields):
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
 * Configurations that can never scale up (policy_never_scales_up):
 * static, and keda-running whose threshold a full replica cannot exceed
 * by more than the up-tolerance t.  In-flight requests per replica are
 * at most slots, so the HPA's ratio in-flight / (threshold x replicas)
 * is at most slots / threshold, and it scales up only above 1 + t:
 * keda-running scales up only if slots / threshold > 1 + t, threshold
 * read in milli units as the HPA reads it (policy.c asks the HPA's own
 * arithmetic about one full replica, so rounding cannot disagree).  With
 * 16 slots and t = 0.1: threshold 14.545 (16 / 14.545 = 1.10003) can
 * scale up, 14.546 (1.09996) and above cannot.  Such a fleet stays at
 * its warm start however the load grows: it is a static fleet that
 * merely scales down.  Two exceptions that do not answer load: KEDA's
 * activation 0 -> max(minReplicaCount, 1), and the in-flight gauge still
 * counting requests on draining replicas, which status.replicas does
 * not, for the length of a drain after a scale-down.  keda-combined is
 * never labelled (its queue trigger can always scale up).
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
#include "trace.h"

#define POLICY_NAME_MAX 256
#define POLICY_ERR_MAX 800

enum policy_kind {
	POLICY_STAFFER = 0,
	POLICY_KEDA_QUEUE,
	POLICY_KEDA_RUNNING,
	POLICY_KEDA_COMBINED,
	POLICY_HPA_UTIL,
	POLICY_ORACLE,
	POLICY_KEDA_SUM,
	POLICY_STATIC,
};

struct policy {
	enum policy_kind kind;
	char name[POLICY_NAME_MAX];  /* the spec as written */
	double queue_threshold;      /* per replica */
	double running_threshold;    /* per replica */
	double sum_threshold;        /* keda-sum, per replica */
	int32_t static_replicas;     /* static; -1: the initial replicas */
	double util_target;          /* busy fraction, (0, 1] */
	double activation;           /* KEDA activationThreshold */
	struct meta meta;            /* staffer's metadata; the simulator
				      * answers its coldStartQuery (set by
				      * cold=measured) with the median cold
				      * start of the replicas seen starting,
				      * as kube-state-metrics would (none
				      * before the first: coldStartSeconds) */
	int perfect_forecast;        /* staffer: forecast=perfect */
	int feedback;                /* staffer: feedback=on, the SLO
				      * feedback on the simulated gateway's
				      * wait histogram (slaMissQuery) */
	int feedback_bound;          /* staffer: feedback=bound, a bound on
				      * any SLO feedback: feed-forward until
				      * the first request misses the SLA,
				      * maxReplicaCount from then on */
	int w_given;                 /* staffer: w=given, W from the
				      * serviceTime metadata only (a
				      * serviceTime set wrong) */
	double answer_age_s;         /* staffer: age=S, its instant answers
				      * but the arrival rate S s old, as its
				      * server's answer cache serves them
				      * (0 to 17 s at the defaults, fetch.h;
				      * the arrival rate comes from a range
				      * refreshed on its grid); 0: now */
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
	/* The gateway's wait histogram as slaMissQuery reads it: requests
	 * that started after more than the SLA or were shed, and all that
	 * started or were shed (counters). */
	const struct simseries *misses;
	const struct simseries *finished;
	double rate_window_s;
	/* The future, for staffer:forecast=perfect only: every request of
	 * the run, sorted by arrival. */
	const struct trace *trace;
	double cold_start_s;    /* the cold start of the next replica the
				 * fleet would create (the truth) */
	double cold_seen;       /* coldStartQuery: the median cold start of
				 * the replicas seen starting (sim.h);
				 * NaN before the first */
};

/* One range query of the arrival rate as the server fetches it
 * (decide.h), on the grid of points at whole multiples of the step
 * ending at or before now (as the server's range cache asks for them).
 * raw holds the points of the last call, NaN where Prometheus has none:
 * a point's rate never changes once its time is past, so the next call
 * reuses them. */
struct policy_range {
	double *raw, *out;        /* DECIDE_SERIES_MAX each */
	double t0, step;          /* raw[k] is at t0 + k step, k < n */
	size_t n;
};

/* A range's buffers (DECIDE_SERIES_MAX points each): 0, or -1 when out
 * of memory (then free it).  The split fleet's staffer reads its pools'
 * series the same way (splitpol.h). */
int policy_range_init(struct policy_range *g);
void policy_range_free(struct policy_range *g);

/*
 * A policy key's number (policy.c's and splitpol.c's specs): in [lo, hi],
 * lo exclusive when lo_x; a whole number in [lo, hi].  0 with *out set,
 * or -1 with a sentence naming key, val and what is allowed in err.
 */
int policy_parse_num(const char *key, const char *val, double lo, int lo_x,
		     double hi, double *out, char *err, size_t errlen);
int policy_parse_int(const char *key, const char *val, long lo, long hi,
		     int32_t *out, char *err, size_t errlen);

/* A simulator ablation of one of the model's rules (policy.c's and
 * splitpol.c's specs, never metadata): key=rule keeps staffer's rule,
 * key=off sets bit (model.h's MODEL_ABLATE_*). */
struct policy_ablation {
	const char *key, *rule, *off;
	unsigned bit;
};

/*
 * Key k=v if it is one of the n ablations of table: 0 with the bit set
 * or cleared in *ablate, -1 with err when v is neither value, 1 (nothing
 * set) when k is none of them.
 */
int policy_ablation_set(const struct policy_ablation *table, size_t n,
			unsigned *ablate, const char *k, const char *v,
			char *err, size_t errlen);

/*
 * A policy spec, "name" or "name:key=value,key=value" (policy.c's and
 * splitpol.c's), read in two steps.  policy_spec_open takes spec if it
 * is shorter than POLICY_NAME_MAX bytes (the name a policy keeps), copies
 * it into s (s points at spec too: spec must outlive it) and looks its
 * name up in names[0..n): the index, or -1 with a sentence in err (too
 * long; or "unknown policy 'NAME'" followed by `allowed`, the caller's
 * words for where and which names are allowed).  policy_spec_keys then
 * hands each key=value, in order, to fn(arg, key, value, why, whylen),
 * which answers 0, or -1 with a sentence in why; it answers 0, or -1 at
 * the first that fails or is not key=value, with "policy 'SPEC': " and
 * why in err.  It reads the keys once: a second call sees none.
 */
struct policy_spec {
	const char *spec;           /* as written */
	char buf[POLICY_NAME_MAX];  /* its copy: the name, then the keys */
	char *keys;                 /* in buf after the ':'; NULL: none */
};

typedef int policy_key_fn(void *arg, const char *key, const char *val,
			  char *why, size_t whylen);

int policy_spec_open(struct policy_spec *s, const char *spec,
		     const char *const *names, size_t n, const char *allowed,
		     char *err, size_t errlen);
int policy_spec_keys(struct policy_spec *s, policy_key_fn *fn, void *arg,
		     char *err, size_t errlen);

/*
 * A range query of v->arrivals' rate over range_s at step_s, ending on
 * the grid at or before v->now (rate() over v->rate_window_s): *out and
 * *n the points after the first one with data (before the first scrape
 * Prometheus has none: the series is shorter); a gap after data began,
 * or no point, gives none (*n 0), as in the server.  Reads v->now,
 * v->arrivals and v->rate_window_s only.
 */
void policy_range_read(struct policy_range *g, double range_s,
		       double step_s, const struct policy_view *v,
		       const double **out, size_t *n);

/*
 * slaMissQuery as scaler.c reads it, over the series' range and step
 * (decide_series_query_cold() for m and o->size_cold_s): at each point
 * rate(v->misses[w]) / rate(v->finished[w]) in [0, 1], NaN where nothing
 * finished or the window is not full yet.  Fills buf (DECIDE_SERIES_MAX
 * doubles) and sets o->miss, o->n_miss (and o->series_step_s if unset);
 * leaves o alone when the range is empty or a series is missing.  The
 * split fleet's prefill trigger reads its TTFT misses the same way.
 */
void policy_miss_read(double *buf, const struct meta *m,
		      const struct policy_view *v, struct decide_obs *o);

struct policy_run {
	const struct policy *p;
	struct hpa *hpa;          /* allocated */
	struct keda keda;
	struct smooth sm;
	double last_w;            /* last good mean service time */
	double cold_seen;         /* coldStartQuery's last answer, s; 0 none:
				   * the ranges are sized for it, as the
				   * server's (decide_size_cold()) */
	struct policy_range series; /* staffer: arrivalRateQuery's range */
	struct policy_range surge;  /* ... and the surge headroom's */
	double *miss;             /* staffer with feedback: as many */
	struct decision last;     /* staffer's last decision */
	int have_last;
	uint64_t metric_errors;   /* GetMetrics that failed */
	uint64_t forecasts;       /* decisions the forecast raised */
	int tripped;              /* feedback=bound: a miss was seen */
};

int policy_run_init(struct policy_run *r, const struct policy *p);
void policy_run_free(struct policy_run *r);

/* The HPA's proposal from this policy's metric(s) (before stabilization
 * and limits), or -1 when the metric is unavailable. */
int32_t policy_proposal(struct policy_run *r, const struct policy_view *v);

/* KEDA's scale loop: GetMetrics, then IsActive.  1 active, 0 inactive,
 * -1 on a scaler error (KEDA then takes no action). */
int policy_active(struct policy_run *r, const struct policy_view *v);

/* 1 when this configuration can never scale up on a fleet of `slots`
 * slots per replica (the rule above), else 0.  r is initialised (its HPA
 * carries the tolerances in effect). */
int policy_never_scales_up(const struct policy_run *r, long slots);

const char *policy_kind_name(enum policy_kind k);

#endif
