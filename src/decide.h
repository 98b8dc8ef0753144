/*
 * decide.h - one decision: what the backend answered, the tuning and the
 * smoothing state in, the replica target out.
 *
 * The single place where the model meets time: the forecast, the
 * peakedness and the scale-down hold (all three read from the arrival rate
 * series of one range query), the smoothing and the cap.  The server
 * (scaler.c), `staffer calc` and `staffer simulate` (policy.c) all go
 * through decide_observations(), so a decision replayed in the simulator or
 * worked by hand is the decision the server makes.  Glue above the pure
 * model: it reads struct meta (meta.h) for the tuning.  Pure: no I/O, no
 * logging, no allocation; thread-safe for distinct state.
 *
 * Scale-down (docs/math.md, "Releasing capacity"):
 *  - The hold.  A replica released and needed again costs a cold start of
 *    queueing; one kept idle costs only its hours.  So capacity is released
 *    only after the arrival rate has stayed below what it serves for
 *    meta_hold_seconds() (by default cold start + rate window + 30 s, the
 *    time a released replica takes to come back), and then all of the
 *    excess at once: lambda is raised to the highest point of the series
 *    over the hold.  The series comes from Prometheus on every call, so
 *    every staffer pod, and a restarted one, gives the same answer without
 *    any state.  Without the series (the range query failed) nothing is
 *    released: the answer is at least the current replicas (with
 *    currentReplicasQuery) or the last answer (from memory).
 *  - The step limit.  With scaleDownStep or scaleDownPeriodSeconds given,
 *    or without a hold, the answer also comes down by at most
 *    scaleDownStep per scaleDownPeriodSeconds, from the observed replicas
 *    (currentReplicasQuery) or from memory (struct smooth).
 */
#ifndef STAFFER_DECIDE_H
#define STAFFER_DECIDE_H

#include <stddef.h>
#include <stdint.h>

#include "feedback.h"
#include "forecast.h"
#include "meta.h"
#include "model.h"
#include "pool.h"
#include "safety.h"
#include "smooth.h"

/* The points of one series the server asks for at most (Prometheus
 * refuses more than 11,000 per series). */
#define DECIDE_SERIES_MAX 11000

/* How the answer came down, or did not. */
enum decide_down {
	DECIDE_DOWN_FREE = 0,  /* no limit: the answer is the model's */
	DECIDE_DOWN_HOLD,      /* the hold's lambda is in the model's answer */
	DECIDE_DOWN_NO_SERIES, /* a hold but no series: nothing released */
	DECIDE_DOWN_STEP,      /* the step limit (after the hold, if any) */
	DECIDE_DOWN_MARGIN_HELD, /* kept up: not half a replica below */
	DECIDE_DOWN_ANSWER_HELD, /* kept up: the answers have not stayed
				  * lower for the hold */
};

/* Where the cold start in force came from (coldStartQuery). */
enum decide_cold {
	DECIDE_COLD_META = 0,  /* coldStartSeconds: no coldStartQuery */
	DECIDE_COLD_MEASURED,  /* coldStartQuery's answer */
	DECIDE_COLD_NO_DATA,   /* coldStartQuery gave nothing usable:
				* coldStartSeconds */
	DECIDE_COLD_OFF,       /* coldStartSeconds 0: no forecast, no hold */
};

struct decision {
	struct model_breakdown b;   /* every term of the model */
	int64_t raw;                /* the model's replicas (capped) */
	int64_t target;             /* after smoothing and the cap */
	enum decide_down down;      /* how scale-down was limited */
	int64_t prev;               /* the answer before (current replicas
				     * or memory); -1: none */
	double hold_s;              /* the hold in force, 0: none */
	double cold_s;              /* the cold start in force: measured, or
				     * coldStartSeconds (0: forecast off) */
	enum decide_cold cold;      /* where cold_s came from */
	int hold_capped;            /* the measured cold start's hold was
				     * cut to the span of the series */
	int have_feedback;          /* fb and the correction were made */
	struct feedback_info fb;
	int have_forecast;          /* fc holds the forecast made */
	int forecast_unearned;      /* forecastMethod auto: Holt's forecast
				     * is left out: DECIDE_UNEARNED_* */
	struct forecast fc;
	int peak_measured;          /* z was estimated from the series */
	int peak_prior;             /* z unmeasured, taken at peakednessMax
				     * (decide_peak_prior()) */
	int hold_forgot;            /* the first measured z, below the
				     * prior: the answer hold forgot the
				     * answers the prior asked for */
	double peak_raw;            /* the estimate before clamping */
	double peak_low;            /* a prefill pool's: the estimate at the
				     * low end of its standard error
				     * (peak_lower()), z before clamping;
				     * NaN when not taken */
	/* A prefill pool's prompt tokens' peakedness in mean prompts
	 * (decide_token_query()): measured when the arrivals' z was, with
	 * the input tokens' series; its reading, that reading's low end
	 * and what the TTFT's Erlang C was offered, the low end kept to
	 * 1..peakednessMax (pool.h's token_peakedness; it takes it
	 * only above z).  NaN when not measured. */
	int tok_measured;
	double tok_raw, tok_low, tok_z;
	int have_surge;             /* sg holds the surge headroom made */
	struct safety sg;
	int hold_memory;            /* the answer hold had a whole hold of
				     * answers: the arrival rate's hold was
				     * not needed */
	int have_pool;              /* pool prefill or decode: pool holds
				     * its terms, b is in its slots */
	struct pool_terms pool;
};

/*
 * The range query of arrivalRateQuery that feeds the forecast, the hold
 * and the peakedness: *range_s = max(forecastWindowSeconds when the
 * forecast is on or peakedness is auto, meta_hold_seconds()), *step_s =
 * forecast_step_seconds(forecastWindowSeconds), the points ending now.
 * With slaMissQuery the range covers feedbackWindowSeconds too (the
 * same range and step serve slaMissQuery's query).
 * *range_s = 0 when nothing needs the series.  The step depends on the
 * hold only when the points would be more than DECIDE_SERIES_MAX (a hold
 * of hours at a short forecast window): then it is the whole number of
 * seconds that keeps them within it.  Otherwise a long hold adds points,
 * not coarser ones.
 *
 * The hold releases capacity only on a series that spans it (a new
 * metric, or a Prometheus that has just started, releases nothing until
 * it does); the forecast needs half of forecastWindowSeconds
 * (decide_forecast_points()); the peakedness any series, of which it
 * reads the last forecastWindowSeconds (so that a longer range does not
 * change it).
 */
void decide_series_query(const struct meta *m, double *range_s,
			 double *step_s);

/*
 * A prefill pool's range query of inputTokenRateQuery, whose peakedness
 * in mean prompts the TTFT target's Erlang C takes when it is above the
 * arrivals' (pool.h): the last forecastWindowSeconds, the span the
 * arrivals' z reads, at the series' step (decide_series_query_cold()
 * for cold_s), the points ending now.  *range_s = 0 when nothing reads
 * it: not a prefill pool with ttftTargetSeconds, peakedness not auto.
 */
void decide_token_query_cold(const struct meta *m, double cold_s,
			     double *range_s, double *step_s);

/*
 * The cold start the range queries are sized for (decide_series_query()
 * and decide_surge_query() take coldStartSeconds; the _cold variants take
 * this): coldStartSeconds, or, when coldStartQuery's last answer
 * (measured, seconds; <= 0 or NaN: none) was longer, coldStartSeconds x
 * 2^(k/DECIDE_SIZE_STEPS_PER_OCTAVE) for the smallest whole k that
 * covers it, at most DECIDE_SIZE_COLD_MAX x coldStartSeconds and
 * META_COLD_START_MAX.  Without it a measured cold start well above
 * coldStartSeconds would find the surge range holding too few lead times
 * for an estimate and the hold cut to the series' span.  The steps keep
 * the queries, their grids and so the points kept from changing with
 * every new measurement (a changed range is a new query, fetched whole),
 * and each one keeps the range within 2^(1/4) of what the measurement
 * needs.  0 when coldStartSeconds is 0.
 */
#define DECIDE_SIZE_STEPS_PER_OCTAVE 4
#define DECIDE_SIZE_COLD_MAX 4.0
double decide_size_cold(const struct meta *m, double measured_s);

/* 1 when coldStartQuery's answer measured_s (seconds) is one decide uses:
 * in (0, META_COLD_START_MAX]; NaN, 0 or less, or longer: not. */
int decide_cold_usable(double measured_s);

/* decide_series_query() and decide_surge_query() for ranges sized for a
 * cold start of cold_s seconds (decide_size_cold()) rather than
 * coldStartSeconds; cold_s <= 0: coldStartSeconds. */
void decide_series_query_cold(const struct meta *m, double cold_s,
			      double *range_s, double *step_s);
void decide_surge_query_cold(const struct meta *m, double cold_s,
			     double *range_s, double *step_s);

/* forecastMethod auto: Holt's forecast must have missed by less than this
 * share of what "no change" missed by, over at least this many of its
 * past forecasts on the series (decide.c). */
#define DECIDE_FORECAST_EARN 0.8
#define DECIDE_FORECAST_TESTS 3
#define DECIDE_UNEARNED_WORSE 1  /* no better than "no change" */
#define DECIDE_UNEARNED_SHORT 2  /* too few past forecasts to judge */

/*
 * The surge headroom's range query of arrivalRateQuery (safety.h):
 * surgeWindowSeconds (auto: DECIDE_SURGE_LEADS / (1 - surgeQuantile)
 * lead times, from DECIDE_SURGE_RANGE_MIN to DECIDE_SURGE_RANGE_MAX) at
 * a step of a lead time / DECIDE_SURGE_STEPS_PER_LEAD (at least
 * DECIDE_SURGE_STEP_MIN seconds), the lead time being coldStartSeconds
 * plus the metrics lag (meta_horizon_seconds()).  *range_s = 0 when the
 * surge headroom is off.  A measured cold start longer than
 * coldStartSeconds makes the lead time longer than the range was sized
 * for: fewer lead times fit, and below what safety.h needs there is no
 * estimate.
 */
#define DECIDE_SURGE_LEADS 3.0
#define DECIDE_SURGE_STEPS_PER_LEAD 4.0
#define DECIDE_SURGE_STEP_MIN 15.0
#define DECIDE_SURGE_RANGE_MIN 1800.0
#define DECIDE_SURGE_RANGE_MAX 86400.0
/* The level's time constant, in lead times. */
#define DECIDE_SURGE_TAU_LEADS 1.0
void decide_surge_query(const struct meta *m, double *range_s,
			double *step_s);

/*
 * What decide_observations() derives from the range answers alone: Holt's
 * forecast with forecastMethod auto's backtest, and the surge headroom's
 * estimate, which read every point (a quarter of a cached call's
 * instructions).  A caller that asks again and again on the same points
 * (the server: a trigger's state, scaler.c) keeps one and passes it in
 * decide_obs with the points' versions (fetch_answer.version); an entry
 * is used only when the version and every input the derivation reads are
 * the same, so the answer is the one derived afresh.  Zeroed: empty.
 */
struct decide_memo {
	uint64_t fc_ver;            /* 0: none */
	size_t fc_n;
	double fc_in[7];            /* step, horizon, alpha, beta, damping,
				     * window, method */
	int fc_have, fc_unearned;
	struct forecast fc;
	uint64_t sg_ver;            /* 0: none */
	size_t sg_n;
	double sg_in[3];            /* step, horizon, quantile */
	int sg_have;
	struct safety sg;
};

/* What the server reads for one GetMetrics, already fetched. */
struct decide_obs {
	double arrival_rate;   /* lambda, req/s, >= 0 (negatives clamped) */
	double queue_depth;    /* Q, >= 0 */
	double shed_rate;      /* S, req/s, >= 0 */
	double w_measured;     /* serviceTimeQuery's answer; <= 0 or NaN: none */
	double w_last;         /* last good W; <= 0: none */
	/* coldStartQuery: have_cold 0 without it; else cold_measured is its
	 * answer in seconds, used when in (0, META_COLD_START_MAX] (outside,
	 * NaN included: coldStartSeconds, DECIDE_COLD_NO_DATA). */
	int have_cold;
	double cold_measured;
	/* The cold start the series and the surge range were sized for
	 * (decide_size_cold()); 0: coldStartSeconds. */
	double size_cold_s;
	/* The derivations' memo (may be NULL: none) and the versions of the
	 * series' and the surge range's points (0: unknown, not memoized). */
	struct decide_memo *memo;
	uint64_t series_version, surge_version;
	const double *series;  /* decide_series_query()'s answer, evenly */
	size_t n_series;       /* spaced, oldest first, the last one now; */
	double series_step_s;  /* n 0: none (a new metric may have 1) */
	/* decide_surge_query()'s answer, the same way; NULL: none (calc:
	 * then the surge headroom reads the series above).  Or, with surge
	 * NULL, its n_surge points on demand: surge_points(surge_arg) is
	 * called at most once, only when the memo cannot answer for
	 * surge_version, and returns them (NULL: none to be had, e.g. out
	 * of memory; then no surge headroom).  A server's cached answer
	 * so costs no copy of the points the memo already read. */
	const double *surge;
	size_t n_surge;
	double surge_step_s;
	const double *(*surge_points)(void *surge_arg);
	void *surge_arg;
	/* decide_token_query_cold()'s answer for size_cold_s, at
	 * series_step_s, the same way; NULL: none (the TTFT's Erlang C then
	 * takes the arrivals' z). */
	const double *tokens;
	size_t n_tokens;
	/* slaMissQuery's range at the same step, ending now (a value that
	 * is NaN or outside [0, 1]: no requests then); NULL: no SLO
	 * feedback, else the correction of feedback.h (n_miss 0: c = 1). */
	const double *miss;
	size_t n_miss;
	int have_view;         /* currentReplicasQuery answered: */
	int64_t current;       /* replicas now */
	int64_t recent_max;    /* highest over scaleDownPeriodSeconds */
	/* The simulator's reference policy only: the true arrival rate at the
	 * horizon, used instead of the Holt forecast (a perfect forecast). */
	int have_truth;
	double truth;
	/* A pool's token signals (meta.h's pool; pool.h): input and output
	 * tokens/s, KV tokens in use, the measured capacities; 0 (or
	 * negative) where not asked or unknown, as pool.h reads them.
	 * Its arrival_rate is decide's (arrival_rate above).  Unread for a
	 * unified fleet. */
	struct pool_signals pool;
};

/* 1 when an unmeasured peakedness may be taken at peakednessMax rather
 * than 1: a prefill pool with a TTFT target, whose square root covers
 * only the burstiness beyond Poisson (pool.h); it is, while that target
 * leaves a wait budget at the W in force.  With peakedness given, the
 * given z stands. */
int decide_peak_prior(const struct meta *m);

/* 1 when o has the surge range of its own (surge, or surge_points to
 * read it): then the surge headroom reads it, else the series. */
int decide_own_surge(const struct decide_obs *o);

enum decide_err {
	DECIDE_OK = 0,
	DECIDE_ENOW,    /* W unknown while there is demand */
	DECIDE_EMODEL,  /* the model refused the signals (see *merr) */
};

/*
 * W is the measured value, else the last good one, else the serviceTime
 * metadata (0 when none and there is no demand); for a pool (pool prefill
 * or decode) the one its tokens give when they give one
 * (pool_service_time()), and the model is then pool_evaluate()'s.  From the series (when
 * there is a W): the forecast coldStartSeconds ahead, the highest lambda
 * over the hold, and with peakedness auto the estimate of z (peak.h; 1
 * without a series).  With o->miss the SLO correction (feedback.h) over
 * the last feedbackWindowSeconds, leaving out points where the series
 * says demand was rising over the horizon (coldStartSeconds + the metrics
 * lag).  Then the model, then scale-down as described above,
 * through st (may be NULL: no memory; it is seeded with every answer so
 * that a later call without the series or with the step limit continues
 * from it), then maxReplicas.  On DECIDE_OK fills *sig (the signals used)
 * and *out; on DECIDE_EMODEL stores the model's code in *merr; on error st
 * is unchanged.
 */
enum decide_err decide_observations(const struct meta *m,
				    const struct decide_obs *o, double now_s,
				    struct smooth *st,
				    struct model_signals *sig,
				    struct decision *out,
				    enum model_err *merr);

const char *decide_down_name(enum decide_down d);

/*
 * How many points of the series at step_s the forecast needs: those of
 * half of forecastWindowSeconds (a short series, as a new metric has,
 * lets the first difference that starts Holt's trend dominate), at least
 * 2.  For messages: decide() applies it.
 */
size_t decide_forecast_points(const struct meta *m, double step_s);

/* How many points at step_s span a hold of hold_s (the one now included):
 * floor(hold_s / step_s) + 1, at least 1.  For messages: decide() applies
 * it. */
size_t decide_hold_points(double hold_s, double step_s);

#endif
