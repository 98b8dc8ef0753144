/*
 * meta.h - ScaledObject trigger metadata: parse, range-check, explain.
 *
 * KEDA passes the trigger's `metadata` map verbatim with every call.  This
 * module turns it into a struct meta or into one clear error that names the
 * key, the bad value and what is allowed (for an unknown key, the nearest
 * known one).  One table in meta.c drives parsing, bounds, defaults and the
 * text of errors; docs/metadata.md documents the same table.
 *
 * Pure but for one thing: no logging, no globals besides the constant key
 * table, and no I/O except that meta_check() has tz.c read a `timezone`'s
 * file the first time the process meets that zone (tz.h: cached, under a
 * mutex).  Thread-safe.
 *
 * Time-of-day overrides: meta_check() parses `schedule` (sched.h) and
 * resolves `timezone` into the struct; meta_at() then gives the tuning in
 * force at an instant, without I/O, locks or allocation.
 */
#ifndef STAFFER_META_H
#define STAFFER_META_H

#include <stddef.h>
#include <time.h>

#include "model.h"
#include "pool.h"
#include "sched.h"

struct tz;

#define META_QUERY_MAX 4096   /* bytes in one PromQL expression */
#define META_NAME_MAX 64      /* bytes in backend / metric names, with NUL */
#define META_TEXT_MAX 1024    /* bytes in schedule and timezone values */
#define META_ERR_MAX 704      /* bytes in an error message, with NUL */
#define META_KEYS_MAX 128     /* entries in one scalerMetadata map */

/* What a number key stores for "auto" (scaleDownHoldSeconds,
 * rateWindowSeconds, peakedness): resolved where it is used. */
#define META_AUTO (-1.0)
/* coldStartSeconds by default: a typical LLM replica (image pulled and
 * cached, weights loaded from local or network storage). */
#define META_COLD_START_DEFAULT 120.0
/* The longest cold start coldStartSeconds or coldStartQuery may give. */
#define META_COLD_START_MAX 3600.0
/* forecastDamping by default. */
#define META_FORECAST_DAMPING_DEFAULT 1.0
/* peakednessMax by default. */
#define META_PEAKEDNESS_MAX_DEFAULT 2.0
/* ... on a prefill pool with ttftTargetSeconds, whose square root covers
 * z - 1 (pool.h): traffic at the ceiling keeps the square root of z = 2
 * it had before the excess (docs/math.md, "Prefill and decode pools"). */
#define META_PEAKEDNESS_MAX_PREFILL 3.0
/* surgeQuantile by default (docs/math.md, "Surge headroom"); 0: off. */
#define META_SURGE_QUANTILE_DEFAULT 0.95
/* What a hold is kept on (scaleDownHoldOn). */
enum meta_hold_on {
	META_HOLD_ANSWER = 0,  /* the whole answer, remembered (v3) */
	META_HOLD_RATE,        /* the arrival rate's series (v2) */
};
/* The forecast of the arrival rate (forecastMethod). */
enum meta_forecast {
	META_FORECAST_HOLT = 0,
	META_FORECAST_NONE,
	META_FORECAST_AUTO,    /* Holt's, while it has beaten "no change"
				* on the series (decide.h) */
};
/* slaTarget and feedbackWindowSeconds by default. */
#define META_SLA_TARGET_DEFAULT 0.99
#define META_FEEDBACK_WINDOW_DEFAULT 3600.0
/* rateWindowSeconds when arrivalRateQuery has no range to read it from. */
#define META_RATE_WINDOW_DEFAULT 60.0
/* metricsLagSeconds by default: the metrics lag beyond half the rate
 * window, a scrape interval and an HPA sync (15 s each by default).  See
 * meta_lag_seconds(). */
#define META_METRICS_LAG_DEFAULT 30.0

enum meta_err {
	META_OK = 0,
	META_EUNKNOWN,   /* unknown key */
	META_EVALUE,     /* value does not parse or is out of range */
	META_EMISSING,   /* a required key is missing */
	META_ECONFLICT,  /* keys that do not go together */
	META_ENOMEM,
};

/* An error: the code, the key it is about and a full sentence for users,
 * e.g. "metadata 'beta': 'abc' is not a number; allowed: a number from 0
 * to 10 (default 1.5)". */
struct meta_error {
	enum meta_err code;
	char key[META_NAME_MAX];
	char msg[META_ERR_MAX];
};

/* The parsed metadata of one trigger.  Strings are owned by the struct. */
struct meta {
	char *backend;                /* NULL: the config's default backend */
	char *arrival_rate_query;     /* required */
	char *service_time_query;     /* NULL unless given */
	char *queue_depth_query;      /* NULL: Q = 0 */
	char *shed_rate_query;        /* NULL: S = 0 */
	char *current_replicas_query; /* NULL unless given */
	char *sla_miss_query;         /* NULL: no SLO feedback */
	char *cold_start_query;       /* NULL: coldStartSeconds only */
	double service_time_s;        /* W fallback; 0 when not given */

	int workload_batch;           /* workload: 0 interactive, 1 batch */
	struct model_params model;    /* staffing, beta, tau, eps, D, ... */

	double cold_start_s;          /* forecast horizon; 0 = off */
	double forecast_window_s;     /* history for the forecast */
	double forecast_alpha;        /* Holt level smoothing */
	double forecast_beta;         /* Holt trend smoothing */
	double forecast_damping;      /* Holt trend damping phi, (0, 1] */

	long scale_down_step;         /* replicas per period */
	double scale_down_period_s;
	double scale_down_hold_s;     /* META_AUTO or seconds; see
				       * meta_hold_seconds() */
	enum meta_hold_on hold_on;    /* what the hold keeps */
	enum meta_forecast forecast_method;
	double rate_window_s;         /* > 0 after meta_check() (resolved
				       * from arrivalRateQuery or 60) */
	double metrics_lag_s;         /* scrape + HPA sync, seconds */
	double sla_target;            /* share within the SLA (feedback) */
	double feedback_window_s;     /* slaMissQuery's history read */
	double peakedness;            /* META_AUTO (measured) or z */
	double peakedness_max;        /* ceiling of a measured z */
	double surge_quantile;        /* q of the rise over a lead time the
				       * fleet covers; 0 = off */
	double surge_window_s;        /* META_AUTO or seconds: the history
				       * the rises are read from */

	double stale_hold_s;          /* hold the last target on unknown data */
	double push_interval_s;       /* StreamIsActive re-check period */
	char metric_name[META_NAME_MAX];

	/* Pools (docs/metadata.md, "pool"): the pool this trigger sizes, its
	 * capacities, SLA targets and decode profile (parsed from
	 * decodeProfile by meta_check()), and the token queries (NULL unless
	 * given).  pool.kind POOL_UNIFIED (the default) is the model as it
	 * is, and then none of these may be given. */
	struct pool_params pool;
	char *input_token_rate_query;
	char *output_token_rate_query;
	char *kv_cache_usage_query;
	char *prefill_capacity_query;
	char *kv_cache_tokens_query;
	char *decode_profile;

	char *schedule;               /* NULL unless given */
	char *timezone;               /* NULL: UTC */

	/* Set by meta_check() from `schedule` and `timezone`: the windows
	 * (sched.n == 0 without a schedule) and the zone (NULL: UTC; owned
	 * by tz.c's cache for the life of the process).  Plain values, so a
	 * struct meta may still be moved with '='. */
	struct sched sched;
	const struct tz *tz;

	/* Private to meta.c: bit i is set once key i of its table was given,
	 * so meta_check can tell "staffing: sqrt" from the default and knows
	 * which required keys are present; from_env marks those given as
	 * '<key>FromEnv'.  Cleared by meta_init. */
	unsigned long long given;
	unsigned long long from_env;
};

/* Set every field to its default (no allocation). */
void meta_init(struct meta *m);
/* Free the strings; m may then be passed to meta_init again. */
void meta_release(struct meta *m);
/* A deep copy of src into dst (whose old contents are ignored, not
 * freed).  0; -1 when out of memory, dst then meta_init()ed. */
int meta_copy(struct meta *dst, const struct meta *src);

/*
 * Parse a whole metadata map (keys[i] = values[i], n pairs) into m, which
 * must have been meta_init()ed.  Checks every key and value, then the
 * cross-key rules (required keys, erlangc needs targetWaitSeconds and
 * waitProbability, ...).  Returns META_OK, or an error code with *err
 * filled; on error m holds partial data and must still be released.
 * KEDA's own trigger keys (`scalerAddress`, `enableTLS`, `unsafeSsl`),
 * which it passes on verbatim, are accepted and ignored.
 */
enum meta_err meta_parse(struct meta *m, const char *const *keys,
			 const char *const *values, size_t n,
			 struct meta_error *err);

/*
 * Parse one key.  Used by meta_parse and by `staffer calc`, which takes the
 * same keys on its command line.  Does not run the cross-key checks.
 */
enum meta_err meta_set(struct meta *m, const char *key, const char *value,
		       struct meta_error *err);

/*
 * For `staffer lint` and `staffer explain`, which see a ScaledObject
 * before KEDA does: KEDA replaces the value of "<key>FromEnv" (the name of
 * an environment variable of the scale target's container) by the
 * variable's value, which exists only in the cluster.
 * meta_from_env_base() gives the known key such a key stands for
 * ("slotsPerReplicaFromEnv" -> "slotsPerReplica", a static string), or
 * NULL for any other key.  meta_defer() takes such a key with the
 * variable's name: checks the name (not empty, printable ASCII without
 * spaces or '=') and that the base key is not also given, and marks the
 * key given with its default value in m, so that meta_check() counts it
 * as present.  Same errors and contract as meta_set().
 */
const char *meta_from_env_base(const char *key);
enum meta_err meta_defer(struct meta *m, const char *key,
			 const char *env_name, struct meta_error *err);

/* The cross-key checks meta_parse runs after the last meta_set.  With
 * need_queries 0 (staffer calc) the query keys are not required.  It also
 * resolves `timezone` (tz.h) and parses `schedule` (sched.h) into m: each
 * window's key=value is checked like the key itself, and the cross-key
 * rules are run again with each window applied. */
enum meta_err meta_check(struct meta *m, int need_queries,
			 struct meta_error *err);

/*
 * The tuning in force at instant `now`: *out becomes *m with the overrides
 * of the schedule window that covers `now` (in m's time zone) applied.
 * Returns that window's text as written (trimmed, white space runs as one
 * space; it lives in m) or NULL when no window covers `now`, and then *out
 * is *m unchanged.  m must have passed meta_check().
 *
 * out may be m itself: the overrides are then applied in place, for a
 * struct meta that serves one evaluation only (m stays owned as before).
 * Otherwise *out is a shallow copy: its strings are borrowed from m, it is
 * valid while m is, and it must NOT be given to meta_release() or
 * meta_set().  Only numeric fields and model.staffing ever change.
 *
 * No I/O, no locks, no allocation; a struct copy, a binary search and a
 * scan of at most SCHED_WINDOWS_MAX windows.  Thread-safe for distinct out.
 */
const char *meta_at(const struct meta *m, time_t now, struct meta *out);

/*
 * Read a time for `staffer calc now=...` (tz_parse_time() in tz.h):
 * "2026-07-01T12:00:00Z", "2026-07-01T14:00+02:00", a wall time in m's
 * zone "2026-07-01T14:00", or Unix seconds "@1782907200".  m must have
 * passed meta_check().  Returns META_OK and stores the instant, or
 * META_EVALUE with *err naming 'now' and the forms allowed.
 */
enum meta_err meta_parse_time(const struct meta *m, const char *s,
			      time_t *out, struct meta_error *err);

/* The known key whose name is nearest to `key` (edit distance, case
 * folded), or NULL if none is reasonably close. */
const char *meta_nearest_key(const char *key);

/*
 * The metrics lag, in seconds: how old the arrival rate staffer reads is
 * when a replica it asks for gets its first request, less the cold start.
 * rate() over a window of w seconds describes the window's middle, w / 2
 * ago; a scrape interval and an HPA sync pass before the answer acts:
 *     lag = rateWindowSeconds / 2 + metricsLagSeconds   (60 s by default)
 * m must have passed meta_check().
 */
double meta_lag_seconds(const struct meta *m);

/*
 * How far ahead the forecast looks: coldStartSeconds + meta_lag_seconds()
 * (180 s by default), the moment a replica asked for now is ready,
 * measured from the data the answer is made of; 0 when coldStartSeconds
 * is 0 (no forecast).
 */
double meta_horizon_seconds(const struct meta *m);

/*
 * The scale-down hold in force, in seconds: scaleDownHoldSeconds, or for
 * auto the same coldStartSeconds + meta_lag_seconds() (0 when
 * coldStartSeconds is 0): a replica released now and needed again is back
 * that long after demand returns, so keeping it idle for that long is the
 * break-even (docs/math.md).  m must have passed meta_check().
 */
double meta_hold_seconds(const struct meta *m);

/*
 * 1 when scale-down is limited to scaleDownStep replicas per
 * scaleDownPeriodSeconds: either key is given (in the metadata or the
 * schedule window in force), or there is no hold (meta_hold_seconds() is
 * 0), where the step limit is all that keeps a dip from costing a cold
 * start.
 */
int meta_step_limited(const struct meta *m);

/*
 * The pool parameters in force for a decision: m->pool with the share of
 * requests the TTFT target may miss, 1 - slaTarget.  m must have passed
 * meta_check().
 */
void meta_pool_params(const struct meta *m, struct pool_params *out);

/* 1 when slotsPerReplica was given (a decode pool's engine batch cap). */
int meta_slots_given(const struct meta *m);

/* Where rate_window_s came from, for calc and explain: "given",
 * "arrivalRateQuery" or "default". */
const char *meta_rate_window_source(const struct meta *m);

/* Known keys, for docs and lint: number of keys and the i-th name. */
size_t meta_key_count(void);
const char *meta_key_name(size_t i);

#endif
