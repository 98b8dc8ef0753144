/*
 * meta.c - ScaledObject trigger metadata: parse, range-check, explain.
 *
 * Everything about a key lives in one row of meta_keys[]: its type, range,
 * default, unit, the words that explain it and where it is stored.
 * meta_set() finds the row and dispatches on its type, meta_init() stores
 * the rows' defaults, and every error message is built from the row, so
 * the range a user is told is the range that is checked.
 * docs/metadata.md documents the same rows in the same order.
 *
 * Numbers are read by num.h's strict parser; a row adds its range.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "meta.h"
#include "near.h"
#include "num.h"
#include "promql.h"
#include "show.h"
#include "sched.h"
#include "tz.h"
#include "utf8.h"

/* ---- the key table ------------------------------------------------------- */

/* How a value is parsed and where it goes. */
enum meta_type {
	META_T_DOUBLE,  /* finite decimal number, stored as double at off */
	META_T_LONG,    /* whole decimal number, stored as long at off */
	META_T_ENUM,    /* one of choices[], stored through store() */
	META_T_QUERY,   /* PromQL, owned char * at off */
	META_T_NAME,    /* short name checked by check(): owned char * at
			 * off, or char[META_NAME_MAX] with META_F_ARRAY */
	META_T_TEXT,    /* free text (schedule), owned char * at off */
	META_T_IGNORED, /* KEDA's own keys: accepted, never stored */
};

#define META_F_MINX  0x1u /* min is exclusive */
#define META_F_MAXX  0x2u /* max is exclusive */
#define META_F_ARRAY 0x4u /* META_T_NAME kept in a char[META_NAME_MAX] */
#define META_F_WINDOW 0x8u /* a schedule window may set it */

/* Row indexes, so that the cross-key rules can name keys at compile time.
 * The order is the order of docs/metadata.md. */
enum meta_key_id {
	MK_BACKEND,
	MK_ARRIVAL_RATE_QUERY,
	MK_SERVICE_TIME_QUERY,
	MK_SERVICE_TIME,
	MK_QUEUE_DEPTH_QUERY,
	MK_SHED_RATE_QUERY,
	MK_CURRENT_REPLICAS_QUERY,
	MK_SLA_MISS_QUERY,
	MK_COLD_START_QUERY,
	MK_SLOTS_PER_REPLICA,
	MK_WORKLOAD,
	MK_STAFFING,
	MK_BETA,
	MK_TARGET_WAIT,
	MK_WAIT_PROBABILITY,
	MK_DRAIN,
	MK_SHED_THRESHOLD,
	MK_BOOST_FACTOR,
	MK_SCALE_DOWN_STEP,
	MK_SCALE_DOWN_PERIOD,
	MK_SCALE_DOWN_HOLD,
	MK_SCALE_DOWN_HOLD_ON,
	MK_COLD_START,
	MK_RATE_WINDOW,
	MK_METRICS_LAG,
	MK_PEAKEDNESS,
	MK_PEAKEDNESS_MAX,
	MK_SURGE_QUANTILE,
	MK_SURGE_WINDOW,
	MK_FORECAST_METHOD,
	MK_FORECAST_WINDOW,
	MK_FORECAST_ALPHA,
	MK_FORECAST_BETA,
	MK_FORECAST_DAMPING,
	MK_SLA_TARGET,
	MK_FEEDBACK_WINDOW,
	MK_COST_PER_REPLICA_HOUR,
	MK_SLA_PENALTY,
	MK_SCHEDULE,
	MK_TIMEZONE,
	MK_MAX_REPLICAS,
	MK_ACTIVATION_RATE,
	MK_STALE_HOLD,
	MK_PUSH_INTERVAL,
	MK_METRIC_NAME,
	MK_POOL,
	MK_INPUT_TOKEN_RATE_QUERY,
	MK_OUTPUT_TOKEN_RATE_QUERY,
	MK_KV_CACHE_USAGE_QUERY,
	MK_PREFILL_TOKENS,
	MK_PREFILL_CAPACITY_QUERY,
	MK_KV_CACHE_TOKENS,
	MK_KV_CACHE_TOKENS_QUERY,
	MK_TTFT_TARGET,
	MK_KV_TRANSFER,
	MK_ITL_TARGET,
	MK_DECODE_PROFILE,
	MK_SCALER_ADDRESS,
	MK_ENABLE_TLS,
	MK_UNSAFE_SSL,
	MK_COUNT
};

/* struct meta.given has one bit per row. */
_Static_assert(MK_COUNT <= 64, "struct meta.given holds 64 bits");

struct meta_choice {
	const char *name;
	int value;
};

/* A word a number key takes besides numbers ("auto"), and what it
 * stores. */
struct meta_word {
	const char *name;
	double value;
};

struct meta_key {
	const char *name;
	enum meta_type type;
	unsigned flags;
	double min, max;     /* numbers: the range; strings: length in bytes */
	double def;          /* numbers and enums: what meta_init stores */
	const char *defs;    /* META_F_ARRAY names: what meta_init stores */
	const char *note;    /* in "(...)" after the allowed values; NULL
			      * means "default <def>" */
	const char *unit;    /* after numbers in messages, or NULL */
	const char *allowed; /* strings: allowed values; numbers and enums
			      * have theirs generated from the row */
	const char *what;    /* meaning, for "is required" messages */
	const char *example; /* a good value, for messages and docs */
	size_t off;          /* the field in struct meta */
	const struct meta_choice *choices; /* META_T_ENUM, NULL-terminated */
	const struct meta_word *words; /* numbers: words besides numbers,
					* NULL-terminated, or NULL */
	void (*store)(struct meta *m, int value);          /* META_T_ENUM */
	const char *(*check)(const char *v, size_t len);   /* strings */
};

/* Lengths as text for the descriptions; the asserts keep them in step
 * with meta.h. */
#define META_QUERY_LEN "4095"
#define META_NAME_LEN "63"
#define META_TEXT_LEN "1023"
_Static_assert(META_QUERY_MAX == 4096, "update META_QUERY_LEN");
_Static_assert(META_NAME_MAX == 64, "update META_NAME_LEN");
_Static_assert(META_TEXT_MAX == 1024, "update META_TEXT_LEN");
_Static_assert(META_TEXT_MAX <= SCHED_TEXT_MAX, "a schedule fits sched");
_Static_assert(META_NAME_MAX <= TZ_NAME_MAX, "a timezone fits tz");
_Static_assert(META_ERR_MAX >= SCHED_ERR_MAX + 32,
	       "a schedule's message fits with its prefix");

static const struct meta_choice meta_workloads[] = {
	{ "interactive", 0 },
	{ "batch", 1 },
	{ NULL, 0 },
};

static const struct meta_choice meta_staffings[] = {
	{ "sqrt", MODEL_STAFF_SQRT },
	{ "erlangc", MODEL_STAFF_ERLANGC },
	{ "cost", MODEL_STAFF_COST },
	{ "none", MODEL_STAFF_NONE },
	{ NULL, 0 },
};

static const struct meta_choice meta_hold_ons[] = {
	{ "answer", META_HOLD_ANSWER },
	{ "rate", META_HOLD_RATE },
	{ NULL, 0 },
};

static const struct meta_choice meta_forecasts[] = {
	{ "auto", META_FORECAST_AUTO },
	{ "holt", META_FORECAST_HOLT },
	{ "none", META_FORECAST_NONE },
	{ NULL, 0 },
};

static const struct meta_choice meta_pools[] = {
	{ "unified", POOL_UNIFIED },
	{ "prefill", POOL_PREFILL },
	{ "decode", POOL_DECODE },
	{ NULL, 0 },
};

static const struct meta_word meta_auto[] = {
	{ "auto", META_AUTO },
	{ NULL, 0 },
};

static const struct meta_word meta_peak_words[] = {
	{ "auto", META_AUTO },
	{ "off", 1 },
	{ NULL, 0 },
};

static void meta_store_workload(struct meta *m, int value);
static void meta_store_staffing(struct meta *m, int value);
static void meta_store_hold_on(struct meta *m, int value);
static void meta_store_forecast(struct meta *m, int value);
static void meta_store_pool(struct meta *m, int value);
static const char *meta_check_text(const char *v, size_t len);
static const char *meta_check_profile(const char *v, size_t len);
static const char *meta_check_backend(const char *v, size_t len);
static const char *meta_check_metric(const char *v, size_t len);
static const char *meta_check_timezone(const char *v, size_t len);

#define MOFF(field) offsetof(struct meta, field)

static const char meta_query_allowed[] =
	"a PromQL expression returning one series, 1 to " META_QUERY_LEN
	" bytes, no control characters but tab and newline";

static const struct meta_key meta_keys[MK_COUNT] = {
	[MK_BACKEND] = {
		.name = "backend", .type = META_T_NAME,
		.min = 1, .max = META_NAME_MAX - 1,
		.note = "default: the config's default backend",
		.allowed = "the name of a backend in staffer's config, 1 to "
			META_NAME_LEN " characters of A-Z, a-z, 0-9, '_', "
			"'.' and '-'",
		.what = "the metrics backend to query, by its name in "
			"staffer's config",
		.example = "thanos",
		.off = MOFF(backend), .check = meta_check_backend,
	},
	[MK_ARRIVAL_RATE_QUERY] = {
		.name = "arrivalRateQuery", .type = META_T_QUERY,
		.min = 1, .max = META_QUERY_MAX - 1,
		.note = "required", .allowed = meta_query_allowed,
		.what = "PromQL giving the arrival rate in req/s",
		.example = "sum(rate(gateway_requests_total[1m]))",
		.off = MOFF(arrival_rate_query), .check = meta_check_text,
	},
	[MK_SERVICE_TIME_QUERY] = {
		.name = "serviceTimeQuery", .type = META_T_QUERY,
		.min = 1, .max = META_QUERY_MAX - 1,
		.note = "required unless 'serviceTime' is given",
		.allowed = meta_query_allowed,
		.what = "PromQL giving the mean service time in seconds",
		.example = "sum(rate(gateway_request_seconds_sum[1m])) / "
			"sum(rate(gateway_request_seconds_count[1m]))",
		.off = MOFF(service_time_query), .check = meta_check_text,
	},
	[MK_SERVICE_TIME] = {
		.name = "serviceTime", .type = META_T_DOUBLE,
		.flags = META_F_MINX, .min = 0, .max = 86400,
		.note = "default: none", .unit = "seconds",
		.what = "the mean service time in seconds, used without "
			"'serviceTimeQuery' or while it has no data",
		.example = "12",
		.off = MOFF(service_time_s),
	},
	[MK_QUEUE_DEPTH_QUERY] = {
		.name = "queueDepthQuery", .type = META_T_QUERY,
		.min = 1, .max = META_QUERY_MAX - 1,
		.note = "default: none, the queue is taken as empty",
		.allowed = meta_query_allowed,
		.what = "PromQL giving the requests waiting to start",
		.example = "sum(gateway_queue_depth)",
		.off = MOFF(queue_depth_query), .check = meta_check_text,
	},
	[MK_SHED_RATE_QUERY] = {
		.name = "shedRateQuery", .type = META_T_QUERY,
		.min = 1, .max = META_QUERY_MAX - 1,
		.note = "default: none, nothing is taken as shed",
		.allowed = meta_query_allowed,
		.what = "PromQL giving the rate of requests rejected for "
			"lack of capacity, in req/s",
		.example = "sum(rate(gateway_requests_total"
			"{code=~\"429|503|504\"}[1m]))",
		.off = MOFF(shed_rate_query), .check = meta_check_text,
	},
	[MK_CURRENT_REPLICAS_QUERY] = {
		.name = "currentReplicasQuery", .type = META_T_QUERY,
		.min = 1, .max = META_QUERY_MAX - 1,
		.note = "default: none", .allowed = meta_query_allowed,
		.what = "PromQL giving the current replica count, for "
			"restart-safe smoothing",
		.example = "sum(kube_deployment_status_replicas"
			"{namespace=\"llm\",deployment=\"chat\"})",
		.off = MOFF(current_replicas_query), .check = meta_check_text,
	},
	[MK_SLA_MISS_QUERY] = {
		.name = "slaMissQuery", .type = META_T_QUERY,
		.min = 1, .max = META_QUERY_MAX - 1,
		.note = "default: none, no SLO feedback",
		.allowed = meta_query_allowed,
		.what = "PromQL giving the share of requests (0 to 1) that "
			"waited longer than the wait SLA, for the SLO feedback",
		.example = "1 - sum(rate(gateway_wait_seconds_bucket"
			"{le=\"2\"}[5m])) / sum(rate("
			"gateway_wait_seconds_count[5m]))",
		.off = MOFF(sla_miss_query), .check = meta_check_text,
	},
	[MK_COLD_START_QUERY] = {
		.name = "coldStartQuery", .type = META_T_QUERY,
		.min = 1, .max = META_QUERY_MAX - 1,
		.note = "default: none, 'coldStartSeconds' is the cold start",
		.allowed = meta_query_allowed,
		.what = "PromQL giving how long a new replica takes to become "
			"ready, in seconds; used in place of "
			"'coldStartSeconds' while it answers",
		.example = "quantile(0.5, kube_pod_status_ready_time{"
			"namespace=\"llm\",pod=~\"chat-.*\"} - "
			"kube_pod_created{namespace=\"llm\",pod=~\"chat-.*\"})",
		.off = MOFF(cold_start_query), .check = meta_check_text,
	},
	[MK_SLOTS_PER_REPLICA] = {
		.name = "slotsPerReplica", .type = META_T_LONG,
		.flags = META_F_WINDOW,
		.min = 1, .max = 100000, .def = 1,
		.what = "the requests one replica serves at once at its "
			"SLA-safe operating point",
		.example = "64",
		.off = MOFF(model.slots_per_replica),
	},
	[MK_WORKLOAD] = {
		.name = "workload", .type = META_T_ENUM,
		.def = 0, .note = "default interactive",
		.what = "interactive (staffing sqrt) or batch (staffing none)",
		.example = "batch",
		.choices = meta_workloads, .store = meta_store_workload,
	},
	[MK_STAFFING] = {
		.name = "staffing", .type = META_T_ENUM,
		.flags = META_F_WINDOW,
		.def = MODEL_STAFF_SQRT, .note = "default: from workload",
		.what = "how headroom for bursts is sized",
		.example = "erlangc",
		.choices = meta_staffings, .store = meta_store_staffing,
	},
	[MK_BETA] = {
		.name = "beta", .type = META_T_DOUBLE,
		.flags = META_F_WINDOW,
		.min = 0, .max = 10, .def = MODEL_BETA_DEFAULT,
		.what = "the square-root staffing factor",
		.example = "2",
		.off = MOFF(model.beta),
	},
	[MK_TARGET_WAIT] = {
		.name = "targetWaitSeconds", .type = META_T_DOUBLE,
		.flags = META_F_MINX | META_F_WINDOW,
		.min = 0, .max = 3600,
		.note = "required for staffing erlangc and cost",
		.unit = "seconds",
		.what = "the wait before start, in seconds, that only a few "
			"requests may exceed",
		.example = "2",
		.off = MOFF(model.target_wait_s),
	},
	[MK_WAIT_PROBABILITY] = {
		.name = "waitProbability", .type = META_T_DOUBLE,
		.flags = META_F_MINX | META_F_MAXX | META_F_WINDOW,
		.min = 0, .max = 1,
		.note = "required for staffing erlangc",
		.what = "the share of requests that may wait longer than "
			"'targetWaitSeconds'",
		.example = "0.05",
		.off = MOFF(model.wait_probability),
	},
	[MK_DRAIN] = {
		.name = "drainSeconds", .type = META_T_DOUBLE,
		.flags = META_F_WINDOW,
		.min = 1, .max = 86400, .def = MODEL_DRAIN_S_DEFAULT,
		.unit = "seconds",
		.what = "the time to work off a backlog in",
		.example = "120",
		.off = MOFF(model.drain_s),
	},
	[MK_SHED_THRESHOLD] = {
		.name = "shedThreshold", .type = META_T_DOUBLE,
		.flags = META_F_WINDOW,
		.min = 0, .max = 1e6, .def = 0, .unit = "req/s",
		.what = "the shed rate above which capacity is boosted",
		.example = "0.5",
		.off = MOFF(model.shed_threshold),
	},
	[MK_BOOST_FACTOR] = {
		.name = "boostFactor", .type = META_T_DOUBLE,
		.flags = META_F_WINDOW,
		.min = 0, .max = 100, .def = MODEL_BOOST_DEFAULT,
		.what = "the scale of the boost on shedding",
		.example = "1.5",
		.off = MOFF(model.boost_factor),
	},
	[MK_SCALE_DOWN_STEP] = {
		.name = "scaleDownStep", .type = META_T_LONG,
		.flags = META_F_WINDOW,
		.min = 1, .max = 100000, .def = 1, .unit = "replicas",
		.what = "the most replicas removed per scale-down period",
		.example = "2",
		.off = MOFF(scale_down_step),
	},
	[MK_SCALE_DOWN_PERIOD] = {
		.name = "scaleDownPeriodSeconds", .type = META_T_DOUBLE,
		.flags = META_F_WINDOW,
		.min = 0, .max = 86400, .def = 60, .unit = "seconds",
		.what = "the period of the scale-down limit",
		.example = "120",
		.off = MOFF(scale_down_period_s),
	},
	[MK_SCALE_DOWN_HOLD] = {
		.name = "scaleDownHoldSeconds", .type = META_T_DOUBLE,
		.flags = META_F_WINDOW,
		.min = 0, .max = 86400, .def = META_AUTO, .unit = "seconds",
		.note = "default auto: coldStartSeconds + rateWindowSeconds / "
			"2 + metricsLagSeconds, or 0 when coldStartSeconds is "
			"0",
		.what = "how long the arrival rate must stay below what the "
			"fleet serves before capacity is released",
		.example = "300",
		.off = MOFF(scale_down_hold_s), .words = meta_auto,
	},
	[MK_SCALE_DOWN_HOLD_ON] = {
		.name = "scaleDownHoldOn", .type = META_T_ENUM,
		.flags = META_F_WINDOW,
		.def = META_HOLD_ANSWER, .note = "default answer",
		.what = "what must stay lower for the hold before capacity is "
			"released: the answer (remembered by the server) or "
			"the arrival rate (read from its range query)",
		.example = "rate",
		.choices = meta_hold_ons, .store = meta_store_hold_on,
	},
	[MK_COLD_START] = {
		.name = "coldStartSeconds", .type = META_T_DOUBLE,
		.min = 0, .max = META_COLD_START_MAX,
		.def = META_COLD_START_DEFAULT,
		.unit = "seconds",
		.note = "default 120; 0 turns the forecast and the hold off",
		.what = "how long a new replica takes to become ready; the "
			"forecast horizon",
		.example = "180",
		.off = MOFF(cold_start_s),
	},
	[MK_RATE_WINDOW] = {
		.name = "rateWindowSeconds", .type = META_T_DOUBLE,
		.min = 1, .max = 86400, .def = META_AUTO, .unit = "seconds",
		.note = "default auto: the longest range in arrivalRateQuery, "
			"else 60",
		.what = "the window arrivalRateQuery averages its rate over",
		.example = "60",
		.off = MOFF(rate_window_s), .words = meta_auto,
	},
	[MK_METRICS_LAG] = {
		.name = "metricsLagSeconds", .type = META_T_DOUBLE,
		.min = 0, .max = 600, .def = META_METRICS_LAG_DEFAULT,
		.unit = "seconds",
		.what = "how long after a scrape the fleet acts on it: the "
			"scrape interval plus the HPA's sync period",
		.example = "45",
		.off = MOFF(metrics_lag_s),
	},
	[MK_PEAKEDNESS] = {
		.name = "peakedness", .type = META_T_DOUBLE,
		.flags = META_F_WINDOW,
		.min = 0.1, .max = 100, .def = META_AUTO,
		.note = "default auto: measured, from 1 to peakednessMax; off "
			"is 1",
		.what = "how much burstier than Poisson the arrivals are, for "
			"the headroom",
		.example = "4",
		.off = MOFF(peakedness), .words = meta_peak_words,
	},
	[MK_PEAKEDNESS_MAX] = {
		.name = "peakednessMax", .type = META_T_DOUBLE,
		.flags = META_F_WINDOW,
		.min = 1, .max = 100, .def = META_PEAKEDNESS_MAX_DEFAULT,
		.note = "default 2; 3 on a prefill pool with "
			"ttftTargetSeconds",
		.what = "the ceiling on a measured peakedness",
		.example = "8",
		.off = MOFF(peakedness_max),
	},
	[MK_SURGE_QUANTILE] = {
		.name = "surgeQuantile", .type = META_T_DOUBLE,
		.flags = META_F_WINDOW | META_F_MAXX,
		.min = 0, .max = 1, .def = META_SURGE_QUANTILE_DEFAULT,
		.note = "default 0.95; 0 turns the surge headroom off",
		.what = "how many of the rate's rises over one lead time "
			"(cold start + metrics lag) the fleet covers, as a "
			"quantile of those the series saw",
		.example = "0.95",
		.off = MOFF(surge_quantile),
	},
	[MK_SURGE_WINDOW] = {
		.name = "surgeWindowSeconds", .type = META_T_DOUBLE,
		.flags = META_F_WINDOW,
		.min = 1800, .max = 86400, .def = META_AUTO,
		.unit = "seconds",
		.note = "default auto: 3 / (1 - surgeQuantile) lead times, "
			"from 1800 to 86400",
		.what = "the history of the arrival rate the surge headroom "
			"reads its rises from",
		.example = "14400",
		.off = MOFF(surge_window_s), .words = meta_auto,
	},
	[MK_FORECAST_METHOD] = {
		.name = "forecastMethod", .type = META_T_ENUM,
		.flags = META_F_WINDOW,
		.def = META_FORECAST_AUTO, .note = "default auto",
		.what = "how the arrival rate one lead time ahead is "
			"forecast: Holt's linear trend while it beats \"no "
			"change\" on the series (auto), always (holt), or "
			"not at all",
		.example = "none",
		.choices = meta_forecasts, .store = meta_store_forecast,
	},
	[MK_FORECAST_WINDOW] = {
		.name = "forecastWindowSeconds", .type = META_T_DOUBLE,
		.flags = META_F_WINDOW,
		.min = 60, .max = 86400, .def = 600, .unit = "seconds",
		.what = "the history the forecast reads",
		.example = "900",
		.off = MOFF(forecast_window_s),
	},
	[MK_FORECAST_ALPHA] = {
		.name = "forecastAlpha", .type = META_T_DOUBLE,
		.flags = META_F_MINX | META_F_WINDOW,
		.min = 0, .max = 1, .def = 0.3,
		.what = "the Holt level smoothing factor",
		.example = "0.5",
		.off = MOFF(forecast_alpha),
	},
	[MK_FORECAST_BETA] = {
		.name = "forecastBeta", .type = META_T_DOUBLE,
		.flags = META_F_WINDOW,
		.min = 0, .max = 1, .def = 0.15,
		.what = "the Holt trend smoothing factor",
		.example = "0.1",
		.off = MOFF(forecast_beta),
	},
	[MK_FORECAST_DAMPING] = {
		.name = "forecastDamping", .type = META_T_DOUBLE,
		.flags = META_F_MINX | META_F_WINDOW,
		.min = 0, .max = 1, .def = META_FORECAST_DAMPING_DEFAULT,
		.what = "how much of the Holt trend is kept per step ahead "
			"(1: no damping)",
		.example = "0.9",
		.off = MOFF(forecast_damping),
	},
	[MK_SLA_TARGET] = {
		.name = "slaTarget", .type = META_T_DOUBLE,
		.min = 0.5, .max = 0.9999, .def = META_SLA_TARGET_DEFAULT,
		.what = "the share of requests that must start within the "
			"wait SLA, for the SLO feedback",
		.example = "0.995",
		.off = MOFF(sla_target),
	},
	[MK_FEEDBACK_WINDOW] = {
		.name = "feedbackWindowSeconds", .type = META_T_DOUBLE,
		.min = 600, .max = 86400, .def = META_FEEDBACK_WINDOW_DEFAULT,
		.unit = "seconds",
		.what = "the history of slaMissQuery the SLO feedback reads",
		.example = "7200",
		.off = MOFF(feedback_window_s),
	},
	[MK_COST_PER_REPLICA_HOUR] = {
		.name = "costPerReplicaHour", .type = META_T_DOUBLE,
		.flags = META_F_MINX | META_F_WINDOW,
		.min = 0, .max = 1e6,
		.note = "required for staffing cost",
		.unit = "per replica-hour",
		.what = "what one replica costs per hour, in any currency",
		.example = "4.5",
		.off = MOFF(model.cost_per_replica_hour),
	},
	[MK_SLA_PENALTY] = {
		.name = "slaPenaltyPerHour", .type = META_T_DOUBLE,
		.flags = META_F_WINDOW,
		.min = 0, .max = 1e9,
		.note = "required for staffing cost", .unit = "per hour",
		.what = "what an hour costs when every request waits "
			"longer than 'targetWaitSeconds', in the same "
			"currency",
		.example = "500",
		.off = MOFF(model.sla_penalty_per_hour),
	},
	[MK_SCHEDULE] = {
		.name = "schedule", .type = META_T_TEXT,
		.min = 1, .max = META_TEXT_MAX - 1,
		.note = "default: none",
		.allowed = "windows '[days] HH:MM-HH:MM key=value ...' "
			"separated by ';', 1 to " META_TEXT_LEN " bytes",
		.what = "time-of-day overrides of tuning keys",
		.example = "Mon-Fri 08:00-19:00 beta=2.0",
		.off = MOFF(schedule), .check = meta_check_text,
	},
	[MK_TIMEZONE] = {
		.name = "timezone", .type = META_T_NAME,
		.min = 1, .max = META_NAME_MAX - 1,
		.note = "default UTC",
		.allowed = "an IANA time zone name, 1 to " META_NAME_LEN
			" characters of A-Z, a-z, 0-9, '_', '+', '-' and "
			"'/', starting with a letter",
		.what = "the time zone of 'schedule'",
		.example = "Europe/Paris",
		.off = MOFF(timezone), .check = meta_check_timezone,
	},
	[MK_MAX_REPLICAS] = {
		.name = "maxReplicas", .type = META_T_LONG,
		.flags = META_F_WINDOW,
		.min = 1, .max = 2147483647.0, .def = 0,
		.note = "default: no cap", .unit = "replicas",
		.what = "the cap on the answer",
		.example = "40",
		.off = MOFF(model.max_replicas),
	},
	[MK_ACTIVATION_RATE] = {
		.name = "activationArrivalRate", .type = META_T_DOUBLE,
		.flags = META_F_WINDOW,
		.min = 0, .max = 1e9, .def = 0, .unit = "req/s",
		.what = "the arrival rate above which the target is active",
		.example = "0.01",
		.off = MOFF(model.activation_arrival_rate),
	},
	[MK_STALE_HOLD] = {
		.name = "staleHoldSeconds", .type = META_T_DOUBLE,
		.min = 0, .max = 86400, .def = 300, .unit = "seconds",
		.what = "how long the last target is held on unknown data",
		.example = "600",
		.off = MOFF(stale_hold_s),
	},
	[MK_PUSH_INTERVAL] = {
		.name = "pushIntervalSeconds", .type = META_T_DOUBLE,
		.min = 1, .max = 3600, .def = 5, .unit = "seconds",
		.what = "how often StreamIsActive re-checks activity",
		.example = "10",
		.off = MOFF(push_interval_s),
	},
	[MK_METRIC_NAME] = {
		.name = "metricName", .type = META_T_NAME,
		.flags = META_F_ARRAY, .min = 1, .max = META_NAME_MAX - 1,
		.defs = "staffer",
		.allowed = "1 to " META_NAME_LEN " characters of a-z, 0-9 "
			"and '-', starting and ending with a letter or digit",
		.what = "the metric name reported to KEDA",
		.example = "chat-replicas",
		.off = MOFF(metric_name), .check = meta_check_metric,
	},
	/* Pools of a disaggregated fleet (pool.h, docs/math.md). */
	[MK_POOL] = {
		.name = "pool", .type = META_T_ENUM,
		.def = POOL_UNIFIED, .note = "default unified",
		.what = "which pool of the model the trigger sizes: one "
			"fleet doing both phases (unified), or the prefill or "
			"the decode pool of a disaggregated fleet",
		.example = "prefill",
		.choices = meta_pools, .store = meta_store_pool,
	},
	[MK_INPUT_TOKEN_RATE_QUERY] = {
		.name = "inputTokenRateQuery", .type = META_T_QUERY,
		.min = 1, .max = META_QUERY_MAX - 1,
		.note = "required with pool prefill",
		.allowed = meta_query_allowed,
		.what = "PromQL giving the input (prompt) tokens arriving per "
			"second",
		.example = "sum(rate(vllm:prompt_tokens_total[1m]))",
		.off = MOFF(input_token_rate_query), .check = meta_check_text,
	},
	[MK_OUTPUT_TOKEN_RATE_QUERY] = {
		.name = "outputTokenRateQuery", .type = META_T_QUERY,
		.min = 1, .max = META_QUERY_MAX - 1,
		.note = "required with pool decode",
		.allowed = meta_query_allowed,
		.what = "PromQL giving the output (generated) tokens per "
			"second",
		.example = "sum(rate(vllm:generation_tokens_total[1m]))",
		.off = MOFF(output_token_rate_query), .check = meta_check_text,
	},
	[MK_KV_CACHE_USAGE_QUERY] = {
		.name = "kvCacheUsageQuery", .type = META_T_QUERY,
		.min = 1, .max = META_QUERY_MAX - 1,
		.note = "default: none, the KV a sequence holds comes from "
			"the token rates",
		.allowed = meta_query_allowed,
		.what = "PromQL giving the KV-cache tokens in use in the "
			"decode pool (tokens in flight)",
		.example = "sum(sglang:num_used_tokens)",
		.off = MOFF(kv_cache_usage_query), .check = meta_check_text,
	},
	[MK_PREFILL_TOKENS] = {
		.name = "prefillTokensPerSecond", .type = META_T_DOUBLE,
		.flags = META_F_MINX, .min = 0, .max = 1e9,
		.note = "required with pool prefill",
		.unit = "tokens/s",
		.what = "the input tokens one prefill replica processes per "
			"second at full load (the engine's profile)",
		.example = "9000",
		.off = MOFF(pool.prefill_tokens_per_s),
	},
	[MK_PREFILL_CAPACITY_QUERY] = {
		.name = "prefillCapacityQuery", .type = META_T_QUERY,
		.min = 1, .max = META_QUERY_MAX - 1,
		.note = "default: none, 'prefillTokensPerSecond' is the "
			"capacity",
		.allowed = meta_query_allowed,
		.what = "PromQL giving the input tokens one prefill replica "
			"processes per second at full load; used in place of "
			"'prefillTokensPerSecond' while it answers",
		.example = "max(prefill_capacity_tokens_per_second"
			"{model=\"llama-70b\"})",
		.off = MOFF(prefill_capacity_query), .check = meta_check_text,
	},
	[MK_KV_CACHE_TOKENS] = {
		.name = "kvCacheTokens", .type = META_T_DOUBLE,
		.flags = META_F_MINX, .min = 0, .max = 1e12,
		.note = "default: none, no KV-cache bound",
		.unit = "tokens",
		.what = "the KV-cache tokens one decode replica holds",
		.example = "400000",
		.off = MOFF(pool.kv_tokens),
	},
	[MK_KV_CACHE_TOKENS_QUERY] = {
		.name = "kvCacheTokensQuery", .type = META_T_QUERY,
		.min = 1, .max = META_QUERY_MAX - 1,
		.note = "default: none, 'kvCacheTokens' is the capacity",
		.allowed = meta_query_allowed,
		.what = "PromQL giving the KV-cache tokens one decode replica "
			"holds; used in place of 'kvCacheTokens' while it "
			"answers",
		.example = "max(sglang:max_total_num_tokens)",
		.off = MOFF(kv_cache_tokens_query), .check = meta_check_text,
	},
	[MK_TTFT_TARGET] = {
		.name = "ttftTargetSeconds", .type = META_T_DOUBLE,
		.flags = META_F_MINX, .min = 0, .max = 3600,
		.note = "default: none", .unit = "seconds",
		.what = "the time to first token (queue wait, prefill and KV "
			"transfer) that only 1 - slaTarget of requests may "
			"exceed",
		.example = "2",
		.off = MOFF(pool.ttft_target_s),
	},
	[MK_KV_TRANSFER] = {
		.name = "kvTransferSeconds", .type = META_T_DOUBLE,
		.min = 0, .max = 600, .def = 0, .unit = "seconds",
		.what = "the time the KV cache of a mean request takes to "
			"reach the decode pool, part of the TTFT",
		.example = "0.05",
		.off = MOFF(pool.kv_transfer_s),
	},
	[MK_ITL_TARGET] = {
		.name = "itlTargetSeconds", .type = META_T_DOUBLE,
		.flags = META_F_MINX, .min = 0, .max = 10,
		.note = "default: none", .unit = "seconds",
		.what = "the inter-token latency (time per output token) the "
			"decode pool's batches must stay within",
		.example = "0.04",
		.off = MOFF(pool.itl_target_s),
	},
	[MK_DECODE_PROFILE] = {
		.name = "decodeProfile", .type = META_T_TEXT,
		.min = 1, .max = META_TEXT_MAX - 1,
		.note = "required with 'itlTargetSeconds'",
		.allowed = "the engine's inter-token latency by batch, "
			"'batch:seconds' pairs separated by ',' (1 to "
			"16 of them, batches whole numbers from 1 to 100000 "
			"rising, seconds above 0 up to 10)",
		.what = "the decode profile: inter-token latency (s) by batch "
			"size, as measured for the engine",
		.example = "1:0.029,16:0.033,32:0.037,64:0.052",
		.off = MOFF(decode_profile), .check = meta_check_profile,
	},
	/* KEDA's own trigger keys, which it passes on verbatim. */
	[MK_SCALER_ADDRESS] = {
		.name = "scalerAddress", .type = META_T_IGNORED,
		.note = "read by KEDA", .allowed = "any value",
		.what = "the address KEDA calls staffer at",
		.example = "staffer.keda.svc:9090",
	},
	[MK_ENABLE_TLS] = {
		.name = "enableTLS", .type = META_T_IGNORED,
		.note = "read by KEDA", .allowed = "any value",
		.what = "whether KEDA calls staffer over TLS",
		.example = "true",
	},
	[MK_UNSAFE_SSL] = {
		.name = "unsafeSsl", .type = META_T_IGNORED,
		.note = "read by KEDA", .allowed = "any value",
		.what = "whether KEDA skips verifying staffer's certificate",
		.example = "false",
	},
};

static void meta_store_workload(struct meta *m, int value)
{
	m->workload_batch = value;
}

static void meta_store_hold_on(struct meta *m, int value)
{
	m->hold_on = (enum meta_hold_on)value;
}

static void meta_store_forecast(struct meta *m, int value)
{
	m->forecast_method = (enum meta_forecast)value;
}

static void meta_store_pool(struct meta *m, int value)
{
	m->pool.kind = (enum pool_kind)value;
}

static void meta_store_staffing(struct meta *m, int value)
{
	m->model.staffing = (enum model_staffing)value;
}

static unsigned long long meta_bit(enum meta_key_id id)
{
	return 1ULL << id;
}

static int meta_given(const struct meta *m, enum meta_key_id id)
{
	return (m->given & meta_bit(id)) != 0;
}

static void *meta_field(struct meta *m, const struct meta_key *k)
{
	return (char *)m + k->off;
}

/* The row of an exact (case-sensitive, as in KEDA) key name, or NULL. */
static const struct meta_key *meta_lookup(const char *key)
{
	size_t i;

	for (i = 0; i < MK_COUNT; i++)
		if (strcmp(meta_keys[i].name, key) == 0)
			return &meta_keys[i];
	return NULL;
}

/*
 * KEDA resolves a trigger key ending in "FromEnv" from the scale target's
 * container environment and sends it under the same name with the value in
 * place of the variable's name (pkg/scalers/external_scaler.go).  So
 * "slotsPerReplicaFromEnv" carries slotsPerReplica, e.g. from vLLM's
 * MAX_NUM_SEQS.  The row of the key it stands for, or NULL.
 */
#define META_FROM_ENV "FromEnv"

static const struct meta_key *meta_lookup_env(const char *key)
{
	size_t len = strlen(key), sl = sizeof(META_FROM_ENV) - 1;
	char base[META_NAME_MAX];

	if (len <= sl || len - sl >= sizeof(base) ||
	    strcmp(key + len - sl, META_FROM_ENV) != 0)
		return NULL;
	memcpy(base, key, len - sl);
	base[len - sl] = '\0';
	return meta_lookup(base);
}

/* ---- value checks of the string keys ------------------------------------- */
/* Each gets a value of 1 to max bytes and returns NULL when it is fine, or
 * what is wrong, worded to follow the quoted value. */

/* PromQL and free text: YAML block scalars bring tabs and newlines; any
 * other control character is a paste accident or an attack on log lines. */
static const char *meta_check_text(const char *v, size_t len)
{
	size_t i, k;
	int blank = 1;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)v[i];

		if (c == '\t' || c == '\n' || c == ' ')
			continue;
		if (c < 0x20 || c == 0x7f)
			return "contains a control character";
		blank = 0;
		/* text: valid UTF-8, as a protobuf string and a YAML file
		 * are (a stray byte would reach logs and JSON as is) */
		if (c >= 0x80) {
			k = utf8_len((const unsigned char *)v + i, len - i);
			if (!k)
				return "is not valid UTF-8";
			i += k - 1;
		}
	}
	return blank ? "is blank" : NULL;
}

static const char *meta_check_backend(const char *v, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!ascii_is_alnum((unsigned char)v[i]) &&
		    v[i] != '_' && v[i] != '.' && v[i] != '-')
			return "contains a character that is not allowed";
	return NULL;
}

/* KEDA puts the name into the HPA's metric name "s0-<name>" unsanitised,
 * so keep it a plain DNS-label-like word. */
static const char *meta_check_metric(const char *v, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!ascii_is_lower((unsigned char)v[i]) &&
		    !ascii_is_digit((unsigned char)v[i]) && v[i] != '-')
			return "contains a character that is not allowed";
	if (v[0] == '-' || v[len - 1] == '-')
		return "does not start and end with a letter or digit";
	return NULL;
}

/* IANA names ("Europe/Paris", "Etc/GMT+5").  Starting with a letter keeps
 * out absolute paths; '.' is not allowed, so ".." cannot occur either.
 * Whether the zone exists is meta_check()'s business (it reads a file). */
static const char *meta_check_timezone(const char *v, size_t len)
{
	size_t i;

	if (!ascii_is_alpha((unsigned char)v[0]))
		return "does not start with a letter";
	for (i = 0; i < len; i++)
		if (!ascii_is_alnum((unsigned char)v[i]) && v[i] != '_' &&
		    v[i] != '+' && v[i] != '-' && v[i] != '/')
			return "contains a character that is not allowed";
	if (tz_check_name(v))
		return "has an empty part (a '/' at the end, or '//')";
	return NULL;
}

/*
 * decodeProfile: "batch:seconds" pairs separated by ',' (white space
 * around either allowed), batches whole numbers from 1 to POOL_BATCH_MAX
 * rising, seconds above 0 up to META_ITL_MAX (measured: a point may be a
 * hair faster than the one before), 1 to
 * POOL_PROFILE_MAX pairs.  Into *out (may be NULL: check only); NULL when
 * fine, else what is wrong, worded to follow the quoted value.
 */
#define META_ITL_MAX 10.0

static const char *meta_profile_parse(const char *v, struct pool_profile *out)
{
	struct pool_profile pr;
	char num[64];
	const char *p = v, *q;
	double x;
	long b;
	size_t len;

	memset(&pr, 0, sizeof(pr));
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (pr.n == POOL_PROFILE_MAX)
			return "has more than 16 points";
		for (q = p; ascii_is_digit((unsigned char)*q); q++)
			;
		len = (size_t)(q - p);
		if (len == 0 || len >= sizeof(num))
			return "has a point that does not start with a whole "
			       "batch size";
		memcpy(num, p, len);
		num[len] = '\0';
		if (num_read_long(num, &b) != NUM_OK || b < 1 ||
		    (double)b > POOL_BATCH_MAX)
			return "has a batch size outside 1 to 100000";
		if (pr.n > 0 && (double)b <= pr.batch[pr.n - 1])
			return "has batch sizes that do not rise";
		for (p = q; *p == ' ' || *p == '\t'; p++)
			;
		if (*p != ':')
			return "has a point without ':' between batch and "
			       "seconds";
		for (p++; *p == ' ' || *p == '\t'; p++)
			;
		for (q = p; *q && *q != ',' && *q != ' ' && *q != '\t'; q++)
			;
		len = (size_t)(q - p);
		if (len == 0 || len >= sizeof(num))
			return "has a point without seconds after ':'";
		memcpy(num, p, len);
		num[len] = '\0';
		if (num_read_double(num, &x) != NUM_OK || !(x > 0) ||
		    x > META_ITL_MAX)
			return "has an inter-token latency that is not a number "
			       "above 0 up to 10 seconds";
		pr.batch[pr.n] = (double)b;
		pr.itl_s[pr.n] = x;
		pr.n++;
		for (p = q; *p == ' ' || *p == '\t'; p++)
			;
		if (*p == '\0')
			break;
		if (*p != ',')
			return "has something other than ',' between points";
		p++;
	}
	if (out)
		*out = pr;
	return NULL;
}

static const char *meta_check_profile(const char *v, size_t len)
{
	const char *bad = meta_check_text(v, len);

	return bad ? bad : meta_profile_parse(v, NULL);
}

/* ---- numbers ------------------------------------------------------------- */

static int meta_in_range(const struct meta_key *k, double v)
{
	if ((k->flags & META_F_MINX) ? v <= k->min : v < k->min)
		return 0;
	if ((k->flags & META_F_MAXX) ? v >= k->max : v > k->max)
		return 0;
	return 1;
}

/* ---- messages ------------------------------------------------------------ */

/* A user's string as shown in a message: control and non-ASCII bytes
 * escaped (messages go to logs and gRPC status text), cut after
 * META_SHOW_MAX characters with "...". */
#define META_SHOW_MAX 60
#define META_SHOW_BUF (META_SHOW_MAX + 4)
_Static_assert(META_SHOW_BUF <= META_NAME_MAX, "a shown key fits err->key");

static void meta_show(char buf[META_SHOW_BUF], const char *s)
{
	show_escaped(buf, META_SHOW_MAX, s, (size_t)-1);
}

/* Room for any row's "allowed (note)" text. */
#define META_EXPLAIN_MAX 320

/* "a whole number", "auto or a number", "auto, off or a number": the kind
 * of value a number key takes, its words first. */
static void meta_number_kind(const struct meta_key *k, char *buf,
			     size_t size)
{
	const struct meta_word *wd;
	size_t o = 0;

	buf[0] = '\0';
	for (wd = k->words; wd && wd->name && o < size; wd++)
		o += (size_t)snprintf(buf + o, size - o, "%s%s", wd->name,
				      wd[1].name ? ", " : " or ");
	if (o < size)
		snprintf(buf + o, size - o, "%s", k->type == META_T_LONG ?
			 "a whole number" : "a number");
}

/* "a number from 0 to 10 (default 1.5)": what a key allows, generated from
 * its row so that it always matches the checks. */
static void meta_explain(const struct meta_key *k, char *buf, size_t size)
{
	char allowed[META_EXPLAIN_MAX], note[160], lo[32], hi[32], kind[64];
	const char *unit = k->unit ? k->unit : "";
	const char *sep = k->unit ? " " : "";
	const struct meta_choice *c;
	size_t o;

	switch (k->type) {
	case META_T_DOUBLE:
	case META_T_LONG:
		meta_number_kind(k, kind, sizeof(kind));
		snprintf(lo, sizeof(lo), "%.15g", k->min);
		snprintf(hi, sizeof(hi), "%.15g", k->max);
		if ((k->flags & META_F_MINX) && (k->flags & META_F_MAXX))
			snprintf(allowed, sizeof(allowed),
				 "%s strictly between %s and %s%s%s",
				 kind, lo, hi, sep, unit);
		else if (k->flags & META_F_MINX)
			snprintf(allowed, sizeof(allowed),
				 "%s greater than %s and at most %s%s%s",
				 kind, lo, hi, sep, unit);
		else if (k->flags & META_F_MAXX)
			snprintf(allowed, sizeof(allowed),
				 "%s from %s to less than %s%s%s",
				 kind, lo, hi, sep, unit);
		else
			snprintf(allowed, sizeof(allowed),
				 "%s from %s to %s%s%s",
				 kind, lo, hi, sep, unit);
		break;
	case META_T_ENUM:
		o = 0;
		allowed[0] = '\0';
		for (c = k->choices; c->name && o < sizeof(allowed); c++)
			o += (size_t)snprintf(allowed + o, sizeof(allowed) - o,
					      "%s%s", o ? ", " : "", c->name);
		break;
	default:
		snprintf(allowed, sizeof(allowed), "%s", k->allowed);
		break;
	}
	if (k->note)
		snprintf(note, sizeof(note), "%s", k->note);
	else if (k->defs)
		snprintf(note, sizeof(note), "default %s", k->defs);
	else
		snprintf(note, sizeof(note), "default %.15g", k->def);
	snprintf(buf, size, "%s (%s)", allowed, note);
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static enum meta_err meta_fail(struct meta_error *err, enum meta_err code,
			       const char *key, const char *fmt, ...)
{
	va_list ap;

	err->code = code;
	meta_show(err->key, key);
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

/* "metadata 'beta': '-1' is out of range; allowed: ...", naming the key as
 * the user wrote it (name: "beta" or "betaFromEnv"). */
static enum meta_err meta_bad_value_as(struct meta_error *err,
				       const struct meta_key *k,
				       const char *name, const char *v,
				       const char *why)
{
	char shown[META_SHOW_BUF], key[META_SHOW_BUF], explain[META_EXPLAIN_MAX];

	meta_show(shown, v);
	meta_show(key, name);
	meta_explain(k, explain, sizeof(explain));
	return meta_fail(err, META_EVALUE, name,
			 "metadata '%s': '%s' %s; allowed: %s",
			 key, shown, why, explain);
}

static enum meta_err meta_bad_value(struct meta_error *err,
				    const struct meta_key *k, const char *v,
				    const char *why)
{
	return meta_bad_value_as(err, k, k->name, v, why);
}

/* "beta" and "betaFromEnv" together (name: the one given second): which
 * would win depends on the order of a Go map. */
static enum meta_err meta_both_given(struct meta_error *err,
				     const struct meta_key *k,
				     const char *name)
{
	char shown[META_SHOW_BUF];

	meta_show(shown, k->name);
	return meta_fail(err, META_EVALUE, name, "metadata '%s' and '%s%s' "
			 "are both given; keep one", shown, shown,
			 META_FROM_ENV);
}

static enum meta_err meta_unknown(struct meta_error *err, const char *key)
{
	char shown[META_SHOW_BUF], near[META_SHOW_BUF];
	const char *n = meta_nearest_key(key);

	meta_show(shown, key);
	if (!n)
		return meta_fail(err, META_EUNKNOWN, key,
				 "metadata '%s' is not a known key; the keys "
				 "are listed in docs/metadata.md", shown);
	meta_show(near, n);
	return meta_fail(err, META_EUNKNOWN, key,
			 "metadata '%s' is not a known key; did you mean "
			 "'%s'?", shown, near);
}

/* "metadata 'x' is required<when>: <what>, e.g. <example>" */
static enum meta_err meta_missing(struct meta_error *err,
				  enum meta_key_id id, const char *when)
{
	const struct meta_key *k = &meta_keys[id];

	return meta_fail(err, META_EMISSING, k->name,
			 "metadata '%s' is required%s: %s, e.g. %s",
			 k->name, when, k->what, k->example);
}

static void meta_error_clear(struct meta_error *err)
{
	err->code = META_OK;
	err->key[0] = '\0';
	err->msg[0] = '\0';
}

/* ---- setting one key ----------------------------------------------------- */

static enum meta_err meta_set_number(struct meta *m, const struct meta_key *k,
				     const char *name,
				     const char *v, struct meta_error *err)
{
	const struct meta_word *wd;
	enum num_why r;
	double d = 0;
	long l = 0;

	for (wd = k->words; wd && wd->name; wd++)
		if (strcmp(wd->name, v) == 0) {
			*(double *)meta_field(m, k) = wd->value;
			return META_OK;
		}
	if (k->type == META_T_LONG) {
		r = num_read_long(v, &l);
		d = (double)l;
	} else {
		r = num_read_double(v, &d);
	}
	if (r == NUM_OK && !meta_in_range(k, d))
		r = NUM_RANGE;
	if (r != NUM_OK)
		return meta_bad_value_as(err, k, name, v,
					 num_why_text(r));
	if (k->type == META_T_LONG)
		*(long *)meta_field(m, k) = l;
	else
		*(double *)meta_field(m, k) = d;
	return META_OK;
}

static enum meta_err meta_set_enum(struct meta *m, const struct meta_key *k,
				   const char *name,
				   const char *v, struct meta_error *err)
{
	const struct meta_choice *c;

	for (c = k->choices; c->name; c++) {
		if (strcmp(c->name, v) == 0) {
			k->store(m, c->value);
			return META_OK;
		}
	}
	return meta_bad_value_as(err, k, name, v, "is not allowed");
}

/* Strings are checked whole before the old value is replaced, so a bad
 * or unstorable value leaves the previous one in place. */
static enum meta_err meta_set_string(struct meta *m, const struct meta_key *k,
				     const char *name,
				     const char *v, struct meta_error *err)
{
	size_t max = (size_t)k->max, len = strnlen(v, max + 1);
	char why[64], *copy, **slot;
	const char *bad;

	if (len > max) {
		snprintf(why, sizeof(why), "is too long (more than %zu bytes)",
			 max);
		return meta_bad_value_as(err, k, name, v, why);
	}
	bad = k->check(v, len);
	if (bad)
		return meta_bad_value_as(err, k, name, v, bad);
	if (k->flags & META_F_ARRAY) {
		/* max < META_NAME_MAX for every array row (see the table) */
		memcpy(meta_field(m, k), v, len + 1);
		return META_OK;
	}
	copy = malloc(len + 1);
	if (!copy)
		return meta_fail(err, META_ENOMEM, k->name,
				 "out of memory storing metadata '%s'",
				 k->name);
	memcpy(copy, v, len + 1);
	slot = (char **)meta_field(m, k);
	free(*slot);
	*slot = copy;
	return META_OK;
}

enum meta_err meta_set(struct meta *m, const char *key, const char *value,
		       struct meta_error *err)
{
	struct meta_error scratch;
	const struct meta_key *k;
	unsigned long long bit = 0, env = 0;
	enum meta_err rc;
	char explain[META_EXPLAIN_MAX], shown[META_SHOW_BUF];
	const char *name;

	if (!err)
		err = &scratch;
	meta_error_clear(err);
	k = key ? meta_lookup(key) : NULL;
	if (!k && key && (k = meta_lookup_env(key)) != NULL)
		env = 1;
	if (!k) {
		rc = meta_unknown(err, key ? key : "");
		goto out;
	}
	name = env ? key : k->name;
	bit = meta_bit((enum meta_key_id)(k - meta_keys));
	if (!value)
		value = "";
	if ((m->given & bit) && !(m->from_env & bit) != !env) {
		rc = meta_both_given(err, k, name);
		goto out;
	}
	if (k->type == META_T_IGNORED) {
		rc = META_OK;
		goto out;
	}
	/* An empty value is not "use the default": a template that rendered
	 * nothing is a mistake worth seeing. */
	if (!*value) {
		meta_explain(k, explain, sizeof(explain));
		meta_show(shown, name);
		rc = meta_fail(err, META_EVALUE, name,
			       "metadata '%s' is empty; allowed: %s",
			       shown, explain);
		goto out;
	}
	switch (k->type) {
	case META_T_DOUBLE:
	case META_T_LONG:
		rc = meta_set_number(m, k, name, value, err);
		break;
	case META_T_ENUM:
		rc = meta_set_enum(m, k, name, value, err);
		break;
	default:
		rc = meta_set_string(m, k, name, value, err);
		break;
	}
out:
	if (rc == META_OK && k) {
		m->given |= bit;
		m->from_env = env ? m->from_env | bit : m->from_env & ~bit;
	}
	return rc;
}

const char *meta_from_env_base(const char *key)
{
	const struct meta_key *k;

	if (!key || meta_lookup(key))
		return NULL;
	k = meta_lookup_env(key);
	return k ? k->name : NULL;
}

enum meta_err meta_defer(struct meta *m, const char *key,
			 const char *env_name, struct meta_error *err)
{
	struct meta_error scratch;
	const struct meta_key *k = key ? meta_lookup_env(key) : NULL;
	unsigned long long bit;
	char shown[META_SHOW_BUF];
	const char *c;
	enum meta_err rc = META_OK;

	if (!err)
		err = &scratch;
	meta_error_clear(err);
	if (!k || meta_lookup(key)) {
		rc = meta_unknown(err, key ? key : "");
		goto out;
	}
	bit = meta_bit((enum meta_key_id)(k - meta_keys));
	if ((m->given & bit) && !(m->from_env & bit)) {
		rc = meta_both_given(err, k, key);
		goto out;
	}
	if (!env_name)
		env_name = "";
	for (c = env_name; *c; c++)
		if (*c <= ' ' || *c >= 0x7f || *c == '=')
			break;
	if (!*env_name || *c) {
		meta_show(shown, env_name);
		rc = meta_fail(err, META_EVALUE, key,
			       "metadata '%s': '%s' is not an environment "
			       "variable name; allowed: the name of a variable "
			       "of the scale target's container (printable, "
			       "no spaces or '='), e.g. MAX_NUM_SEQS",
			       key, shown);
		goto out;
	}
	m->given |= bit;
	m->from_env |= bit;
out:
	return rc;
}

/* ---- cross-key checks ---------------------------------------------------- */

/* Keys a staffing method cannot work without. */
static const struct meta_need {
	enum model_staffing staffing;
	enum meta_key_id key;
	const char *when;
} meta_needs[] = {
	{ MODEL_STAFF_ERLANGC, MK_TARGET_WAIT, " with staffing 'erlangc'" },
	{ MODEL_STAFF_ERLANGC, MK_WAIT_PROBABILITY,
	  " with staffing 'erlangc'" },
	{ MODEL_STAFF_COST, MK_COST_PER_REPLICA_HOUR,
	  " with staffing 'cost'" },
	{ MODEL_STAFF_COST, MK_SLA_PENALTY, " with staffing 'cost'" },
	{ MODEL_STAFF_COST, MK_TARGET_WAIT, " with staffing 'cost'" },
};

/*
 * Tuning keys that cannot have any effect with the rest of the metadata.
 * A user who sets one believes it acts, so like an unknown key it is an
 * error rather than silently ignored.  Keys that describe the service
 * (targetWaitSeconds, waitProbability, the costs, workload) are not here:
 * they are true whatever the staffing, and calc, explain and simulate
 * report against them.
 *
 * idle() returns NULL when the key acts, else why not, worded to follow
 * "has no effect".
 */
struct meta_rule {
	enum meta_key_id key;
	const char *(*idle)(const struct meta *m, int need_queries);
	const char *only;
};

static const char *meta_idle_beta(const struct meta *m, int need_queries)
{
	static const char *const why[] = {
		[MODEL_STAFF_SQRT] = NULL,
		[MODEL_STAFF_ERLANGC] = "with staffing 'erlangc'",
		[MODEL_STAFF_COST] = "with staffing 'cost'",
		[MODEL_STAFF_NONE] = "with staffing 'none'",
	};

	(void)need_queries;
	if (m->model.staffing == MODEL_STAFF_NONE &&
	    !meta_given(m, MK_STAFFING))
		return "with staffing 'none' (from workload 'batch')";
	if ((size_t)m->model.staffing >= sizeof(why) / sizeof(why[0]))
		return NULL;
	return why[m->model.staffing];
}

static const char *meta_idle_peak(const struct meta *m, int need_queries)
{
	(void)need_queries;
	return m->peakedness == META_AUTO ? NULL
		: "unless 'peakedness' is auto";
}

static const char *meta_idle_forecast(const struct meta *m,
				      int need_queries)
{
	(void)need_queries;
	return m->cold_start_s > 0 ? NULL : "while 'coldStartSeconds' is 0";
}

static const char *meta_idle_holt(const struct meta *m, int need_queries)
{
	const char *idle = meta_idle_forecast(m, need_queries);

	if (idle)
		return idle;
	return m->forecast_method != META_FORECAST_NONE ? NULL
		: "while 'forecastMethod' is none";
}

/* calc and simulate take S and Q as numbers, not queries. */
static const char *meta_idle_shed(const struct meta *m, int need_queries)
{
	return !need_queries || m->shed_rate_query ? NULL
						   : "without 'shedRateQuery'";
}

static const char *meta_idle_drain(const struct meta *m, int need_queries)
{
	return !need_queries || m->queue_depth_query
		? NULL : "without 'queueDepthQuery'";
}

static const char *meta_idle_feedback(const struct meta *m,
				      int need_queries)
{
	return !need_queries || m->sla_miss_query ? NULL
						  : "without 'slaMissQuery'";
}

static const char *meta_idle_hold(const struct meta *m, int need_queries)
{
	(void)need_queries;
	return meta_hold_seconds(m) > 0 ? NULL
		: "while the hold is 0 ('scaleDownHoldSeconds' 0, or auto "
		  "with 'coldStartSeconds' 0)";
}

/* slaTarget: the SLO feedback's share, and a prefill pool's TTFT
 * target's. */
static const char *meta_idle_sla(const struct meta *m, int need_queries)
{
	if (m->pool.kind == POOL_PREFILL && meta_given(m, MK_TTFT_TARGET))
		return NULL;
	return meta_idle_feedback(m, need_queries);
}

/* ---- pools ---- */

static const char *meta_idle_pooled(const struct meta *m, int need_queries)
{
	(void)need_queries;
	return m->pool.kind == POOL_UNIFIED ? "with pool unified (the "
	       "default)" : NULL;
}

static const char *meta_idle_prefill(const struct meta *m, int need_queries)
{
	const char *idle = meta_idle_pooled(m, need_queries);

	return idle ? idle : m->pool.kind != POOL_PREFILL ? "with pool decode"
							   : NULL;
}

static const char *meta_idle_decode(const struct meta *m, int need_queries)
{
	const char *idle = meta_idle_pooled(m, need_queries);

	return idle ? idle : m->pool.kind != POOL_DECODE ? "with pool prefill"
							  : NULL;
}

static const char *meta_idle_transfer(const struct meta *m, int need_queries)
{
	const char *idle = meta_idle_prefill(m, need_queries);

	return idle ? idle : meta_given(m, MK_TTFT_TARGET) ? NULL
		: "without 'ttftTargetSeconds'";
}

static const char *meta_idle_profile(const struct meta *m, int need_queries)
{
	const char *idle = meta_idle_decode(m, need_queries);

	return idle ? idle : meta_given(m, MK_ITL_TARGET) ? NULL
		: "without 'itlTargetSeconds'";
}

/* K bounds the slots only with the KV a sequence holds: from the input
 * tokens, or measured (calc takes both as numbers). */
static const char *meta_idle_kv(const struct meta *m, int need_queries)
{
	const char *idle = meta_idle_decode(m, need_queries);

	if (idle)
		return idle;
	return !need_queries || m->input_token_rate_query ||
	       m->kv_cache_usage_query ? NULL
		: "without 'inputTokenRateQuery' or 'kvCacheUsageQuery' (the "
		  "KV a sequence holds)";
}

static const char *meta_idle_kv_usage(const struct meta *m, int need_queries)
{
	const char *idle = meta_idle_decode(m, need_queries);

	if (idle)
		return idle;
	return meta_given(m, MK_KV_CACHE_TOKENS) ||
	       meta_given(m, MK_KV_CACHE_TOKENS_QUERY) ? NULL
		: "without 'kvCacheTokens' or 'kvCacheTokensQuery'";
}

static const char *meta_idle_slots(const struct meta *m, int need_queries)
{
	(void)need_queries;
	return m->pool.kind == POOL_PREFILL ? "with pool prefill (a prefill "
	       "replica is one server of 'prefillTokensPerSecond')" : NULL;
}

static const char *meta_idle_surge(const struct meta *m, int need_queries)
{
	(void)need_queries;
	if (!(m->cold_start_s > 0))
		return "while 'coldStartSeconds' is 0";
	return m->surge_quantile > 0 ? NULL : "while 'surgeQuantile' is 0";
}

static const struct meta_rule meta_rules[] = {
	{ MK_BETA, meta_idle_beta, "with staffing 'sqrt'" },
	{ MK_COLD_START_QUERY, meta_idle_forecast,
	  "when the forecast is on ('coldStartSeconds' above 0)" },
	{ MK_FORECAST_WINDOW, meta_idle_forecast,
	  "when the forecast is on ('coldStartSeconds' above 0)" },
	{ MK_FORECAST_ALPHA, meta_idle_holt,
	  "to Holt's forecast ('forecastMethod' auto or holt, "
	  "'coldStartSeconds' above 0)" },
	{ MK_FORECAST_BETA, meta_idle_holt,
	  "to Holt's forecast ('forecastMethod' auto or holt, "
	  "'coldStartSeconds' above 0)" },
	{ MK_FORECAST_DAMPING, meta_idle_holt,
	  "to Holt's forecast ('forecastMethod' auto or holt, "
	  "'coldStartSeconds' above 0)" },
	{ MK_FORECAST_METHOD, meta_idle_forecast,
	  "when the forecast is on ('coldStartSeconds' above 0)" },
	{ MK_SCALE_DOWN_HOLD_ON, meta_idle_hold,
	  "when there is a hold ('scaleDownHoldSeconds' above 0, or auto "
	  "with 'coldStartSeconds' above 0)" },
	{ MK_SURGE_QUANTILE, meta_idle_forecast,
	  "with a lead time ('coldStartSeconds' above 0)" },
	{ MK_SHED_THRESHOLD, meta_idle_shed,
	  "to the shed rate that 'shedRateQuery' reads" },
	{ MK_BOOST_FACTOR, meta_idle_shed,
	  "to the shed rate that 'shedRateQuery' reads" },
	{ MK_DRAIN, meta_idle_drain,
	  "to the queue that 'queueDepthQuery' reads" },
	{ MK_PEAKEDNESS_MAX, meta_idle_peak,
	  "to a measured peakedness ('peakedness' auto)" },
	{ MK_SURGE_WINDOW, meta_idle_surge,
	  "to the surge headroom ('surgeQuantile' above 0, "
	  "'coldStartSeconds' above 0)" },
	{ MK_SLA_TARGET, meta_idle_sla,
	  "to the SLO feedback, which 'slaMissQuery' turns on, and to a "
	  "prefill pool's 'ttftTargetSeconds'" },
	{ MK_SLOTS_PER_REPLICA, meta_idle_slots,
	  "to a unified fleet and a decode pool" },
	{ MK_INPUT_TOKEN_RATE_QUERY, meta_idle_pooled,
	  "to a pool ('pool' prefill or decode)" },
	{ MK_OUTPUT_TOKEN_RATE_QUERY, meta_idle_decode,
	  "to a decode pool ('pool' decode)" },
	{ MK_PREFILL_TOKENS, meta_idle_prefill,
	  "to a prefill pool ('pool' prefill)" },
	{ MK_PREFILL_CAPACITY_QUERY, meta_idle_prefill,
	  "to a prefill pool ('pool' prefill)" },
	{ MK_TTFT_TARGET, meta_idle_prefill,
	  "to a prefill pool ('pool' prefill)" },
	{ MK_KV_TRANSFER, meta_idle_transfer,
	  "to a prefill pool's 'ttftTargetSeconds'" },
	{ MK_ITL_TARGET, meta_idle_decode,
	  "to a decode pool ('pool' decode)" },
	{ MK_DECODE_PROFILE, meta_idle_profile,
	  "to a decode pool's 'itlTargetSeconds'" },
	{ MK_KV_CACHE_TOKENS, meta_idle_kv,
	  "to a decode pool that knows the KV a sequence holds" },
	{ MK_KV_CACHE_TOKENS_QUERY, meta_idle_kv,
	  "to a decode pool that knows the KV a sequence holds" },
	{ MK_KV_CACHE_USAGE_QUERY, meta_idle_kv_usage,
	  "to a decode pool with a KV-cache capacity" },
	{ MK_FEEDBACK_WINDOW, meta_idle_feedback,
	  "to the SLO feedback, which 'slaMissQuery' turns on" },
};

#define META_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The staffing needs and the no-effect rules on m.  Only keys whose bit is
 * in `keys` are held to the no-effect rules (a schedule window answers
 * for the keys it sets, not for the base keys it makes idle).
 */
static enum meta_err meta_check_pairs(const struct meta *m, int need_queries,
				      unsigned long long keys,
				      struct meta_error *err)
{
	const char *idle;
	size_t i;

	for (i = 0; i < META_COUNT(meta_needs); i++)
		if (m->model.staffing == meta_needs[i].staffing &&
		    !meta_given(m, meta_needs[i].key))
			return meta_missing(err, meta_needs[i].key,
					    meta_needs[i].when);

	for (i = 0; i < META_COUNT(meta_rules); i++) {
		if (!meta_given(m, meta_rules[i].key) ||
		    !(keys & meta_bit(meta_rules[i].key)))
			continue;
		idle = meta_rules[i].idle(m, need_queries);
		if (idle)
			return meta_fail(err, META_ECONFLICT,
					 meta_keys[meta_rules[i].key].name,
					 "metadata '%s' has no effect %s; it "
					 "only applies %s",
					 meta_keys[meta_rules[i].key].name,
					 idle, meta_rules[i].only);
	}
	return META_OK;
}

/* ---- timezone and schedule ----------------------------------------------- */

static enum meta_err meta_zone(struct meta *m, struct meta_error *err)
{
	const struct meta_key *k = &meta_keys[MK_TIMEZONE];
	char shown[META_SHOW_BUF], explain[META_EXPLAIN_MAX];
	const struct tz *z = NULL;
	enum tz_err e;

	e = tz_get(m->timezone, &z);
	if (e == TZ_OK) {
		m->tz = z;
		return META_OK;
	}
	meta_show(shown, m->timezone);
	meta_explain(k, explain, sizeof(explain));
	switch (e) {
	case TZ_ENAME:
		return meta_bad_value(err, k, m->timezone,
				      "is not a time zone name");
	case TZ_ENOENT:
		return meta_fail(err, META_EVALUE, k->name,
				 "metadata '%s': unknown time zone '%s'; "
				 "allowed: %s", k->name, shown, explain);
	case TZ_ENOMEM:
		return meta_fail(err, META_ENOMEM, k->name,
				 "out of memory loading time zone '%s'",
				 shown);
	default:
		return meta_fail(err, META_EVALUE, k->name,
				 "metadata '%s': time zone '%s' cannot be "
				 "used: %s", k->name, shown, tz_strerror(e));
	}
}

/* A message of this module without its leading "metadata ", to follow
 * "window 'W': ". */
static const char *meta_inner(const char *msg)
{
	static const char prefix[] = "metadata ";

	return strncmp(msg, prefix, sizeof(prefix) - 1) == 0
		? msg + sizeof(prefix) - 1 : msg;
}

/* "beta, staffing, ...": the keys a window may set. */
static void meta_window_keys(char *buf, size_t size)
{
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < MK_COUNT && o < size; i++)
		if (meta_keys[i].flags & META_F_WINDOW)
			o += (size_t)snprintf(buf + o, size - o, "%s%s",
					      o ? ", " : "",
					      meta_keys[i].name);
}

/* sched_resolve_fn: check one key=value of a window by setting it on a
 * scratch copy of the base metadata (ctx), so that its ranges and words
 * are those of the key itself. */
static int meta_resolve(void *ctx, const char *key, const char *value,
			struct sched_override *o, char *why, size_t size)
{
	struct meta *scratch = ctx;
	const struct meta_key *k = meta_lookup(key);
	const struct meta_choice *c;
	char shown[META_SHOW_BUF], list[META_EXPLAIN_MAX * 2];
	struct meta_error err;
	const char *near;

	meta_show(shown, key);
	if (!k) {
		near = meta_nearest_key(key);
		if (near) {
			snprintf(why, size, "'%s' is not a known key; did "
				 "you mean '%s'?", shown, near);
		} else {
			meta_window_keys(list, sizeof(list));
			snprintf(why, size, "'%s' is not a known key; a "
				 "window can set %s", shown, list);
		}
		return -1;
	}
	if (!(k->flags & META_F_WINDOW)) {
		meta_window_keys(list, sizeof(list));
		snprintf(why, size, "'%s' cannot be set in a window; a "
			 "window can set %s", shown, list);
		return -1;
	}
	/* A window overrides the base's value however the base gave it: a
	 * base's <key>FromEnv is not a second value of the key here. */
	scratch->given &= ~meta_bit((enum meta_key_id)(k - meta_keys));
	scratch->from_env &= ~meta_bit((enum meta_key_id)(k - meta_keys));
	if (meta_set(scratch, key, value, &err) != META_OK) {
		snprintf(why, size, "%s", meta_inner(err.msg));
		return -1;
	}
	o->key = (int)(k - meta_keys);
	switch (k->type) {
	case META_T_DOUBLE:
		o->value = *(double *)meta_field(scratch, k);
		break;
	case META_T_LONG:
		o->value = (double)*(long *)meta_field(scratch, k);
		break;
	default: /* META_T_ENUM; meta_set() found the word */
		for (c = k->choices; c->name && strcmp(c->name, value); c++)
			;
		o->value = c->value;
		break;
	}
	return 0;
}

/* Window wi of sched on top of m. */
static void meta_apply(struct meta *m, const struct sched *sched,
		       unsigned wi)
{
	const struct sched_window *w = &sched->w[wi];
	const struct sched_override *o;
	const struct meta_key *k;
	unsigned i;

	for (i = 0; i < w->n; i++) {
		o = &sched->o[w->first + i];
		k = &meta_keys[o->key];
		m->given |= meta_bit((enum meta_key_id)o->key);
		switch (k->type) {
		case META_T_DOUBLE:
			*(double *)meta_field(m, k) = o->value;
			break;
		case META_T_LONG:
			*(long *)meta_field(m, k) = (long)o->value;
			break;
		case META_T_ENUM:
			k->store(m, (int)o->value);
			break;
		default: /* never: meta_resolve() takes numbers and words */
			break;
		}
	}
}

/* Parse m->schedule into m->sched, then check each window as a whole: the
 * base metadata with the window applied must pass the cross-key rules. */
static enum meta_err meta_schedule(struct meta *m, int need_queries,
				   struct meta_error *err)
{
	struct meta scratch = *m; /* shallow: never released */
	struct meta_error inner;
	char msg[META_ERR_MAX], shown[META_SHOW_BUF];
	unsigned long long set;
	enum meta_err rc;
	unsigned i, j;

	if (sched_parse(&m->sched, m->schedule, meta_resolve, &scratch,
			msg, sizeof(msg)) != SCHED_OK) {
		m->sched.n = 0;
		return meta_fail(err, META_EVALUE, "schedule",
				 "metadata 'schedule': %s", msg);
	}
	for (i = 0; i < m->sched.n; i++) {
		const struct sched_window *w = &m->sched.w[i];

		scratch = *m;
		set = 0;
		for (j = 0; j < w->n; j++)
			set |= meta_bit((enum meta_key_id)
					m->sched.o[w->first + j].key);
		meta_apply(&scratch, &m->sched, i); /* marks them given */
		rc = meta_check_pairs(&scratch, need_queries, set, &inner);
		if (rc != META_OK) {
			m->sched.n = 0;
			meta_show(shown, sched_window_text(&scratch.sched, i));
			return meta_fail(err, rc, "schedule",
					 "metadata 'schedule': window '%s': %s",
					 shown, meta_inner(inner.msg));
		}
	}
	return META_OK;
}

const char *meta_at(const struct meta *m, time_t now, struct meta *out)
{
	int wi;

	if (out != m)
		*out = *m;
	if (m->sched.n == 0)
		return NULL;
	wi = sched_find(&m->sched,
			sched_minute_of_week(tz_local(m->tz, (int64_t)now)));
	if (wi < 0)
		return NULL;
	meta_apply(out, &m->sched, (unsigned)wi);
	return sched_window_text(&m->sched, (unsigned)wi);
}

double meta_lag_seconds(const struct meta *m)
{
	return m->rate_window_s / 2 + m->metrics_lag_s;
}

double meta_horizon_seconds(const struct meta *m)
{
	return m->cold_start_s > 0 ? m->cold_start_s + meta_lag_seconds(m) : 0;
}

double meta_hold_seconds(const struct meta *m)
{
	if (m->scale_down_hold_s >= 0)
		return m->scale_down_hold_s;
	return meta_horizon_seconds(m);
}

int meta_step_limited(const struct meta *m)
{
	return meta_given(m, MK_SCALE_DOWN_STEP) ||
	       meta_given(m, MK_SCALE_DOWN_PERIOD) ||
	       !(meta_hold_seconds(m) > 0);
}

void meta_pool_params(const struct meta *m, struct pool_params *out)
{
	*out = m->pool;
	out->ttft_miss = 1.0 - m->sla_target;
}

int meta_slots_given(const struct meta *m)
{
	return meta_given(m, MK_SLOTS_PER_REPLICA);
}

const char *meta_rate_window_source(const struct meta *m)
{
	double q;

	if (meta_given(m, MK_RATE_WINDOW))
		return "given";
	if (promql_range_max(m->arrival_rate_query, &q))
		return "arrivalRateQuery";
	return "default";
}

enum meta_err meta_parse_time(const struct meta *m, const char *s,
			      time_t *out, struct meta_error *err)
{
	struct meta_error scratch;
	char shown[META_SHOW_BUF];
	int64_t t;

	if (!err)
		err = &scratch;
	meta_error_clear(err);
	if (s && tz_parse_time(m->tz, s, &t) == 0 && (time_t)t == t) {
		*out = (time_t)t;
		return META_OK;
	}
	meta_show(shown, s ? s : "");
	return meta_fail(err, META_EVALUE, "now",
			 "'now': '%s' is not a time; allowed: an instant "
			 "such as 2026-07-01T12:00:00Z or "
			 "2026-07-01T14:00+02:00, a wall time in %s such as "
			 "2026-07-01T14:00, or Unix seconds such as "
			 "@1782907200", shown, tz_name(m->tz));
}

/*
 * What a pool needs (pool.h): the token signals and capacities its terms
 * read, a decode profile that can meet the ITL target, a TTFT target
 * above the KV transfer.  Parses decodeProfile into m->pool.profile.
 */
static enum meta_err meta_check_pool(struct meta *m, int need_queries,
				     struct meta_error *err)
{
	struct pool_profile *pr = &m->pool.profile;

	memset(pr, 0, sizeof(*pr));
	if (m->decode_profile &&
	    meta_profile_parse(m->decode_profile, pr) != NULL)
		memset(pr, 0, sizeof(*pr)); /* never: meta_set checked it */
	switch (m->pool.kind) {
	case POOL_PREFILL:
		if (need_queries && !m->input_token_rate_query)
			return meta_missing(err, MK_INPUT_TOKEN_RATE_QUERY,
					    " with pool prefill");
		/* the capacity in force while prefillCapacityQuery has no
		 * value: without it the pool could not be sized at all */
		if (!meta_given(m, MK_PREFILL_TOKENS))
			return meta_missing(err, MK_PREFILL_TOKENS,
					    " with pool prefill (the capacity "
					    "while 'prefillCapacityQuery', if "
					    "any, has no value)");
		if (meta_given(m, MK_TTFT_TARGET) &&
		    !meta_given(m, MK_PEAKEDNESS_MAX))
			m->peakedness_max = META_PEAKEDNESS_MAX_PREFILL;
		if (meta_given(m, MK_TTFT_TARGET) &&
		    !(m->pool.ttft_target_s > m->pool.kv_transfer_s))
			return meta_fail(err, META_ECONFLICT, "ttftTargetSeconds",
					 "metadata 'ttftTargetSeconds' (%g s) must "
					 "be above 'kvTransferSeconds' (%g s): the "
					 "KV transfer is part of the time to "
					 "first token", m->pool.ttft_target_s,
					 m->pool.kv_transfer_s);
		break;
	case POOL_DECODE:
		if (need_queries && !m->output_token_rate_query)
			return meta_missing(err, MK_OUTPUT_TOKEN_RATE_QUERY,
					    " with pool decode");
		if (!meta_given(m, MK_SLOTS_PER_REPLICA) &&
		    !meta_given(m, MK_ITL_TARGET))
			return meta_missing(err, MK_SLOTS_PER_REPLICA,
					    " with pool decode unless "
					    "'itlTargetSeconds' is given");
		/* the KV bound while kvCacheTokensQuery has no value: its
		 * loss would lower the answer */
		if (m->kv_cache_tokens_query &&
		    !meta_given(m, MK_KV_CACHE_TOKENS))
			return meta_missing(err, MK_KV_CACHE_TOKENS,
					    " with 'kvCacheTokensQuery' (the "
					    "capacity while the query has no "
					    "value)");
		if (meta_given(m, MK_ITL_TARGET) && !m->decode_profile)
			return meta_missing(err, MK_DECODE_PROFILE,
					    " with 'itlTargetSeconds'");
		if (meta_given(m, MK_ITL_TARGET) && pr->n > 0 &&
		    m->pool.itl_target_s < pr->itl_s[0])
			return meta_fail(err, META_ECONFLICT, "itlTargetSeconds",
					 "metadata 'itlTargetSeconds' (%g s) is "
					 "below the fastest inter-token latency of "
					 "'decodeProfile' (%g s at batch %g): no "
					 "batch meets it", m->pool.itl_target_s,
					 pr->itl_s[0], pr->batch[0]);
		break;
	case POOL_UNIFIED:
		break;
	}
	return META_OK;
}

enum meta_err meta_check(struct meta *m, int need_queries,
			 struct meta_error *err)
{
	struct meta_error scratch;
	enum meta_err rc = META_OK;

	if (!err)
		err = &scratch;
	meta_error_clear(err);

	if (need_queries && !meta_given(m, MK_ARRIVAL_RATE_QUERY)) {
		rc = meta_missing(err, MK_ARRIVAL_RATE_QUERY, "");
		goto out;
	}
	/* A pool's W may come from its tokens alone (pool.h). */
	if (need_queries && !meta_given(m, MK_SERVICE_TIME_QUERY) &&
	    !meta_given(m, MK_SERVICE_TIME) && m->pool.kind != POOL_PREFILL &&
	    !(m->pool.kind == POOL_DECODE && meta_given(m, MK_ITL_TARGET))) {
		rc = meta_missing(err, MK_SERVICE_TIME_QUERY,
				  m->pool.kind == POOL_DECODE ?
				  " with pool decode unless 'serviceTime' or "
				  "'itlTargetSeconds' is given" :
				  " unless 'serviceTime' is given");
		goto out;
	}
	rc = meta_check_pool(m, need_queries, err);
	if (rc != META_OK)
		goto out;

	/* An explicit staffing wins over workload, in whatever order the
	 * keys came. */
	if (!meta_given(m, MK_STAFFING))
		m->model.staffing = m->workload_batch ? MODEL_STAFF_NONE
						      : MODEL_STAFF_SQRT;

	/* "auto" is the default spelt out: as if not given (it stored
	 * META_AUTO, which no rate window is).  Resolved before the pairs
	 * are checked: the hold they test depends on it.  The query's
	 * longest range is held to the key's own range. */
	if (meta_given(m, MK_RATE_WINDOW) && m->rate_window_s == META_AUTO)
		m->given &= ~meta_bit(MK_RATE_WINDOW);
	if (!meta_given(m, MK_RATE_WINDOW)) {
		const struct meta_key *k = &meta_keys[MK_RATE_WINDOW];

		if (!promql_range_max(m->arrival_rate_query,
				      &m->rate_window_s))
			m->rate_window_s = META_RATE_WINDOW_DEFAULT;
		else if (!(m->rate_window_s >= k->min &&
			   m->rate_window_s <= k->max)) {
			rc = meta_fail(err, META_EVALUE, k->name,
				       "metadata 'rateWindowSeconds' auto "
				       "takes the longest range in "
				       "'arrivalRateQuery', %.10g seconds, "
				       "which is out of range; allowed: a "
				       "rate window from %g to %g seconds: "
				       "set 'rateWindowSeconds' to the "
				       "query's rate window",
				       m->rate_window_s, k->min, k->max);
			goto out;
		}
	}

	rc = meta_check_pairs(m, need_queries, ~0ULL, err);
	if (rc != META_OK)
		goto out;

	m->tz = NULL;
	if (meta_given(m, MK_TIMEZONE)) {
		rc = meta_zone(m, err);
		if (rc != META_OK)
			goto out;
	}
	m->sched.n = 0;
	if (meta_given(m, MK_SCHEDULE))
		rc = meta_schedule(m, need_queries, err);
out:
	return rc;
}

enum meta_err meta_parse(struct meta *m, const char *const *keys,
			 const char *const *values, size_t n,
			 struct meta_error *err)
{
	enum meta_err rc = META_OK;
	size_t i;

	for (i = 0; i < n; i++) {
		rc = meta_set(m, keys[i], values[i], err);
		if (rc != META_OK)
			goto out;
	}
	rc = meta_check(m, 1, err);
out:
	return rc;
}

/* ---- lifecycle ----------------------------------------------------------- */

/* The defaults, built once from the key table: meta_init() is on the
 * path of every RPC, and copying them costs a fifth of building them. */
static struct meta meta_defaults;
static pthread_once_t meta_defaults_once = PTHREAD_ONCE_INIT;

static void meta_build_defaults(void)
{
	struct meta *m = &meta_defaults;
	const struct meta_key *k;
	size_t i;

	memset(m, 0, sizeof(*m));
	/* Model fields without a key keep the model's own defaults. */
	model_params_init(&m->model);
	for (i = 0; i < MK_COUNT; i++) {
		k = &meta_keys[i];
		switch (k->type) {
		case META_T_DOUBLE:
			*(double *)meta_field(m, k) = k->def;
			break;
		case META_T_LONG:
			*(long *)meta_field(m, k) = (long)k->def;
			break;
		case META_T_ENUM:
			k->store(m, (int)k->def);
			break;
		case META_T_QUERY:
		case META_T_NAME:
		case META_T_TEXT:
			if (k->flags & META_F_ARRAY)
				snprintf((char *)meta_field(m, k),
					 META_NAME_MAX, "%s",
					 k->defs ? k->defs : "");
			else
				*(char **)meta_field(m, k) = NULL;
			break;
		case META_T_IGNORED:
			break;
		}
	}
	m->sched.n = 0;
	m->tz = NULL;
	m->given = 0;
	m->from_env = 0;
}

void meta_init(struct meta *m)
{
	pthread_once(&meta_defaults_once, meta_build_defaults);
	*m = meta_defaults;    /* no strings: the defaults own none */
}

int meta_copy(struct meta *dst, const struct meta *src)
{
	const struct meta_key *k;
	char **slot;
	size_t i;
	int rc = 0;

	*dst = *src;             /* plain values; the strings are src's yet */
	for (i = 0; i < MK_COUNT; i++) {
		k = &meta_keys[i];
		if ((k->type != META_T_QUERY && k->type != META_T_NAME &&
		     k->type != META_T_TEXT) || (k->flags & META_F_ARRAY))
			continue;
		slot = (char **)meta_field(dst, k);
		if (!*slot)
			continue;
		*slot = rc ? NULL : strdup(*slot);
		if (!*slot)
			rc = -1;    /* the rest are set to NULL, then freed */
	}
	if (rc) {
		meta_release(dst);
		meta_init(dst);
	}
	return rc;
}

void meta_release(struct meta *m)
{
	const struct meta_key *k;
	char **slot;
	size_t i;

	for (i = 0; i < MK_COUNT; i++) {
		k = &meta_keys[i];
		if ((k->type != META_T_QUERY && k->type != META_T_NAME &&
		     k->type != META_T_TEXT) || (k->flags & META_F_ARRAY))
			continue;
		slot = (char **)meta_field(m, k);
		free(*slot);
		*slot = NULL;
	}
	m->sched.n = 0;
	m->tz = NULL;
	m->given = 0;
	m->from_env = 0;
}

/* ---- key names ----------------------------------------------------------- */

size_t meta_key_count(void)
{
	return MK_COUNT;
}

const char *meta_key_name(size_t i)
{
	return i < MK_COUNT ? meta_keys[i].name : NULL;
}

/* A suggestion is worth making when at most a third of the known name
 * (and at least 2 edits) differs; ties go to the earlier row. */
const char *meta_nearest_key(const char *key)
{
	const char *best = NULL;
	size_t n, nb, i, d, limit, best_d = (size_t)-1;

	if (!key)
		return NULL;
	n = strnlen(key, NEAR_MAX + 1);
	if (n > NEAR_MAX)
		return NULL;
	for (i = 0; i < MK_COUNT; i++) {
		nb = strlen(meta_keys[i].name);
		if (nb > NEAR_MAX)
			continue; /* never: no key is that long */
		limit = nb / 3 < 2 ? 2 : nb / 3;
		d = near_distance(key, n, meta_keys[i].name, nb, 1);
		if (d <= limit && d < best_d) {
			best = meta_keys[i].name;
			best_d = d;
		}
	}
	return best;
}
