/* decide.c - see decide.h. */
#include "decide.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "forecast.h"
#include "peak.h"

/* The surge headroom needs a lead time: the cold start in force. */
static int decide_surge_on(const struct meta *m)
{
	return m->surge_quantile > 0 && m->cold_start_s > 0;
}

/* The lead time and the hold for ranges sized for cold_s (<= 0:
 * coldStartSeconds), as meta_horizon_seconds() and meta_hold_seconds()
 * give them for coldStartSeconds. */
static double decide_size_lead(const struct meta *m, double cold_s)
{
	return cold_s > 0 && m->cold_start_s > 0 ?
	       cold_s + meta_lag_seconds(m) : meta_horizon_seconds(m);
}

static double decide_size_hold(const struct meta *m, double cold_s)
{
	if (m->scale_down_hold_s >= 0)
		return m->scale_down_hold_s;
	return decide_size_lead(m, cold_s);
}

int decide_cold_usable(double measured_s)
{
	return measured_s > 0 && measured_s <= META_COLD_START_MAX;
}

double decide_size_cold(const struct meta *m, double measured_s)
{
	double c = m->cold_start_s, k, cap;

	if (!(c > 0))
		return 0;
	if (!decide_cold_usable(measured_s) || !(measured_s > c))
		return c;
	cap = c * DECIDE_SIZE_COLD_MAX;
	if (cap > META_COLD_START_MAX)
		cap = META_COLD_START_MAX;
	if (measured_s >= cap)
		return cap;
	k = ceil(DECIDE_SIZE_STEPS_PER_OCTAVE * log2(measured_s / c) - 1e-9);
	c = ceil(c * exp2(k / DECIDE_SIZE_STEPS_PER_OCTAVE));
	return c < cap ? c : cap;
}

void decide_surge_query_cold(const struct meta *m, double cold_s,
			     double *range_s, double *step_s)
{
	double lead = decide_size_lead(m, cold_s), range, step;

	*range_s = 0;
	*step_s = 0;
	if (!decide_surge_on(m) || !(lead > 0))
		return;
	step = floor(lead / DECIDE_SURGE_STEPS_PER_LEAD);
	if (step < DECIDE_SURGE_STEP_MIN)
		step = DECIDE_SURGE_STEP_MIN;
	range = m->surge_window_s;
	if (!(range > 0)) {
		range = DECIDE_SURGE_LEADS / (1 - m->surge_quantile) * lead;
		range = range < DECIDE_SURGE_RANGE_MIN ? DECIDE_SURGE_RANGE_MIN
		      : range > DECIDE_SURGE_RANGE_MAX ? DECIDE_SURGE_RANGE_MAX
		      : ceil(range);
	}
	if (range / step + 1 > DECIDE_SERIES_MAX)
		step = ceil(range / (DECIDE_SERIES_MAX - 1));
	*range_s = range;
	*step_s = step;
}

void decide_surge_query(const struct meta *m, double *range_s,
			double *step_s)
{
	decide_surge_query_cold(m, 0, range_s, step_s);
}

void decide_series_query_cold(const struct meta *m, double cold_s,
			      double *range_s, double *step_s)
{
	double range = 0, hold = decide_size_hold(m, cold_s), step;

	if (m->cold_start_s > 0 || m->peakedness == META_AUTO)
		range = m->forecast_window_s;
	if (hold > range)
		range = hold;
	if (m->sla_miss_query && m->feedback_window_s > range)
		range = m->feedback_window_s;
	step = forecast_step_seconds(m->forecast_window_s);
	/* A hold of hours at a few seconds a point would pass Prometheus'
	 * limit of points per series: then coarser points, whole seconds. */
	if (range / step + 1 > DECIDE_SERIES_MAX)
		step = ceil(range / (DECIDE_SERIES_MAX - 1));
	*step_s = step;
	*range_s = range;
}

void decide_series_query(const struct meta *m, double *range_s,
			 double *step_s)
{
	decide_series_query_cold(m, 0, range_s, step_s);
}

void decide_token_query_cold(const struct meta *m, double cold_s,
			     double *range_s, double *step_s)
{
	double range, step;

	decide_series_query_cold(m, cold_s, &range, &step);
	*step_s = step;
	*range_s = decide_peak_prior(m) && m->peakedness == META_AUTO &&
		   range > 0 ? m->forecast_window_s : 0;
}

/* How far below a whole number of replicas the exact answer must fall
 * before the answer comes down to it. */
#define DECIDE_DOWN_MARGIN 0.5

/* The share of forecastWindowSeconds the series must cover for a
 * forecast. */
#define DECIDE_FORECAST_MIN_SHARE 0.5

/* The points of a series of n at step_s that fall within the last span_s
 * (the one now included), at most n. */
static size_t decide_tail(size_t n, double step_s, double span_s)
{
	double k = floor(span_s / step_s + 1e-9) + 1;

	return k >= (double)n ? n : (size_t)k;
}

/* The step limit from the observed replica count (currentReplicasQuery),
 * so that every pod gives the same answer:
 *   raw >= current          -> raw (scale up, or hold, at once)
 *   recent_max > current    -> current (the fleet shrank less than
 *                              scaleDownPeriodSeconds ago: wait)
 *   otherwise               -> max(raw, current - scaleDownStep) */
static int64_t decide_step_observed(const struct meta *m, int64_t raw,
				    int64_t current, int64_t recent_max)
{
	int64_t step = m->scale_down_step > 0 ? m->scale_down_step : 1;

	if (current < 0)
		current = 0;
	if (raw >= current)
		return raw;
	if (recent_max > current)
		return current;
	return current - step > raw ? current - step : raw;
}

size_t decide_hold_points(double hold_s, double step_s)
{
	if (!(step_s > 0) || !(hold_s > 0))
		return 1;
	return decide_tail(SIZE_MAX, step_s, hold_s);
}

size_t decide_forecast_points(const struct meta *m, double step_s)
{
	double k;

	if (!(step_s > 0) || !(m->forecast_window_s > 0))
		return 2;
	k = ceil(DECIDE_FORECAST_MIN_SHARE *
		 (floor(m->forecast_window_s / step_s + 1e-9) + 1) - 1e-9);
	return k < 2 ? 2 : k > (double)DECIDE_SERIES_MAX ?
	       (size_t)DECIDE_SERIES_MAX : (size_t)k;
}

/* Lambda-hat at the horizon: the simulator's truth, else Holt over the
 * last forecastWindowSeconds of the series.  1 when there is one. */
static int decide_forecast(const struct meta *m, const struct decide_obs *o,
			   double horizon_s, struct forecast *fc)
{
	size_t k;

	if (!(horizon_s > 0))
		return 0;
	if (o->have_truth) {
		memset(fc, 0, sizeof(*fc));
		fc->value = o->truth > 0 ? o->truth : 0;
		fc->level = fc->value;
		return 1;
	}
	if (o->n_series < 2)
		return 0;
	/* Holt needs history: on a short series (a new metric) the first
	 * difference that starts its trend dominates the forecast. */
	k = decide_tail(o->n_series, o->series_step_s, m->forecast_window_s);
	if (k < decide_forecast_points(m, o->series_step_s))
		return 0;
	return forecast_ahead(o->series + o->n_series - k, k,
			      o->series_step_s, horizon_s,
			      m->forecast_alpha, m->forecast_beta,
			      m->forecast_damping, fc) ==
	       MODEL_OK;
}

/*
 * forecastMethod auto: Holt's forecast earns its place when, over the
 * last forecastWindowSeconds of the series, its forecasts hb steps ahead
 * (the horizon, at most a quarter of the window) missed the rate by less
 * than DECIDE_FORECAST_EARN times what "no change" missed it by.  A ramp
 * it follows; a burst or an on/off swing it extrapolates into the air.
 * 0: it earned it; DECIDE_UNEARNED_WORSE or DECIDE_UNEARNED_SHORT (fewer
 * than DECIDE_FORECAST_TESTS past forecasts to judge it by).
 */
static int decide_forecast_earns(const struct meta *m,
				 const struct decide_obs *o, double horizon_s)
{
	size_t k = decide_tail(o->n_series, o->series_step_s,
			       m->forecast_window_s);
	const double *v = o->series + o->n_series - k;
	size_t hb = (size_t)ceil(horizon_s / o->series_step_s - 1e-9);
	size_t i, first = decide_forecast_points(m, o->series_step_s), used = 0;
	double eh = 0, en = 0, f, lv, tr;

	if (hb > k / 4)
		hb = k / 4;
	for (i = first - 1; hb >= 1 && i + hb < k; i++) {
		if (forecast_holt_damped(v, i + 1, m->forecast_alpha,
					 m->forecast_beta,
					 m->forecast_damping, (double)hb, &f,
					 &lv, &tr) != MODEL_OK)
			return DECIDE_UNEARNED_WORSE;
		eh += fabs(f - v[i + hb]);
		en += fabs(v[i] - v[i + hb]);
		used++;
	}
	if (used < DECIDE_FORECAST_TESTS)
		return DECIDE_UNEARNED_SHORT;
	return eh < DECIDE_FORECAST_EARN * en ? 0 : DECIDE_UNEARNED_WORSE;
}

/* The SLO correction from the miss share, the arrival series aligned with
 * it by their ends (both end now at the same step). */
static enum model_err decide_feedback(const struct meta *m,
				      const struct decide_obs *o,
				      double horizon_s, double *c,
				      struct feedback_info *fb)
{
	size_t k = o->n_miss;
	const double *rate = NULL;
	double horizon = horizon_s > 0 ? horizon_s : meta_lag_seconds(m);
	double step = o->series_step_s > 0 ? o->series_step_s : 1;

	if (o->series && o->n_series > 0) {
		if (o->n_series < k)
			k = o->n_series;
		rate = o->series + o->n_series - k;
	}
	return feedback_correction(o->miss + o->n_miss - k, rate, k, step,
				   m->feedback_window_s, 1.0 - m->sla_target,
				   horizon, c, fb);
}

/* The cold start in force: coldStartQuery's answer when it gave one in
 * (0, META_COLD_START_MAX], else coldStartSeconds; 0 when that is 0 (the
 * forecast and the hold are off, and a measurement does not turn them
 * on). */
static double decide_cold(const struct meta *m, const struct decide_obs *o,
			  enum decide_cold *src)
{
	double x = o->cold_measured;

	if (!(m->cold_start_s > 0)) {
		*src = DECIDE_COLD_OFF;
		return 0;
	}
	if (!o->have_cold) {
		*src = DECIDE_COLD_META;
		return m->cold_start_s;
	}
	if (decide_cold_usable(x)) {
		*src = DECIDE_COLD_MEASURED;
		return x;
	}
	*src = DECIDE_COLD_NO_DATA;
	return m->cold_start_s;
}

/* The hold in force for cold start cold_s: scaleDownHoldSeconds when
 * given, else cold_s + the metrics lag (0 when cold_s is 0).  The series
 * is sized before this measurement is known, for size_cold_s (the last
 * one's step, decide_size_cold()), so the hold of a longer measured cold
 * start is cut to the span the series covers: beyond it there is no
 * evidence, and a hold without evidence would release nothing ever. */
static double decide_hold(const struct meta *m, double cold_s,
			  double size_cold_s, int *capped)
{
	double hold, range, step;

	*capped = 0;
	if (m->scale_down_hold_s >= 0)
		return m->scale_down_hold_s;
	if (!(cold_s > 0))
		return 0;
	hold = cold_s + meta_lag_seconds(m);
	decide_series_query_cold(m, size_cold_s, &range, &step);
	if (hold > range && range > 0) {
		*capped = 1;
		hold = range;
	}
	return hold;
}

/* z from the last forecastWindowSeconds of the series, the span it has
 * at the defaults: a longer range (a long hold, the SLO feedback's window,
 * a coldStartSeconds above the measured cold start) must not change the
 * headroom through the estimate. */
static enum model_err decide_peak(const struct meta *m,
				  const struct decide_obs *o, double *z,
				  double *raw, double *low)
{
	size_t k = decide_tail(o->n_series, o->series_step_s,
			       m->forecast_window_s);
	enum model_err e;
	double l;

	e = peak_estimate(o->series + o->n_series - k, k, o->series_step_s,
			  m->rate_window_s, m->peakedness_max, z, raw);
	if (e != MODEL_OK || !low || isnan(*raw))
		return e;
	l = peak_lower(*raw, k, o->series_step_s, m->rate_window_s);
	if (isnan(l))
		return e;
	*low = l;
	*z = l < PEAK_MIN ? PEAK_MIN : l > m->peakedness_max ?
	     m->peakedness_max : l;
	return e;
}

/* The mean of the last k of vals[0..n-1] (k <= n, k > 0). */
static double decide_tail_mean(const double *vals, size_t n, size_t k)
{
	double sum = 0;
	size_t i;

	for (i = n - k; i < n; i++)
		sum += vals[i];
	return sum / (double)k;
}

/*
 * A prefill pool's prompt tokens' peakedness in mean prompts, into d's
 * tok_*: their index of dispersion over the last forecastWindowSeconds
 * (the span the arrivals' z reads) over the mean prompt there, the
 * tokens' mean over the arrivals' mean: a window's tokens counted in
 * mean prompts vary as z_tok prompts would.  Bursts of long prompts
 * raise it above the arrivals' z, and so does the spread of sizes
 * alone: z + cv^2 for sizes independent of the arrivals, of which the
 * exponential prompts Erlang C already models are cv^2 = 1.  That share
 * is counted twice, knowingly: taking it out left bursts of long
 * prompts uncovered (docs/math.md, docs/pools.md's steady operation).  Taken
 * as the arrivals' z is (decide_peak()): at the low end of its
 * standard error unless low is 0, then kept to 1..peakednessMax, the
 * ceiling of a prefill pool's z on either stream.  The caller has
 * measured the arrivals' z, so the windows hold enough requests.
 * Nothing set when the series say nothing.
 */
static void decide_peak_tokens(const struct meta *m,
			       const struct decide_obs *o, int low,
			       struct decision *d)
{
	size_t ka, kt;
	double prompt, z, raw, l;

	if (!o->tokens || o->n_tokens < 2 || o->n_series < 1 ||
	    !(o->series_step_s > 0))
		return;
	ka = decide_tail(o->n_series, o->series_step_s, m->forecast_window_s);
	kt = decide_tail(o->n_tokens, o->series_step_s, m->forecast_window_s);
	prompt = decide_tail_mean(o->tokens, o->n_tokens, kt) /
		 decide_tail_mean(o->series, o->n_series, ka);
	if (!(prompt > 0) || !isfinite(prompt))
		return;
	if (peak_estimate(o->tokens + o->n_tokens - kt, kt, o->series_step_s,
			  m->rate_window_s, MODEL_PEAK_MAX, &z, &raw) !=
	    MODEL_OK || isnan(raw))
		return;
	raw /= prompt;
	l = low ? peak_lower(raw, kt, o->series_step_s, m->rate_window_s) :
		  raw;
	if (isnan(l))
		return;
	d->tok_measured = 1;
	d->tok_raw = raw;
	d->tok_low = l;
	d->tok_z = l < PEAK_MIN ? PEAK_MIN : l > m->peakedness_max ?
		   m->peakedness_max : l;
}

/*
 * A decode pool's output tokens now come from requests that arrived over
 * the last W (and the rate window before that), not the last minute:
 * after a lull in arrivals, the tokens of the busier minutes before it
 * over the lull's rate would make the mean output, and W, many times too
 * long, and the forecast, the hold and the surge multiply that W.  So
 * the mean output is taken over the larger of lambda and the series'
 * mean over the last W + rateWindowSeconds (w_s: W from lambda).  Never
 * lower than lambda: in a rise the tokens lag too, and lambda is what
 * the answer has always used there.  1 when ps->output_arrivals was set.
 */
static int decide_output_arrivals(const struct meta *m,
				  const struct decide_obs *o, double w_s,
				  struct pool_signals *ps)
{
	double mean;
	size_t k;

	if (m->pool.kind != POOL_DECODE || !o->series || o->n_series < 1 ||
	    !(o->series_step_s > 0) || !(w_s > 0) || !isfinite(w_s))
		return 0;
	k = decide_tail(o->n_series, o->series_step_s,
			w_s + m->rate_window_s);
	mean = decide_tail_mean(o->series, o->n_series, k);
	if (!(mean > ps->arrival_rate) || !isfinite(mean))
		return 0;
	ps->output_arrivals = mean;
	return 1;
}

/* What the answers a state holds rest on (struct smooth's basis): none
 * yet, the prior, or past the prior (the first call after it, measured
 * or not). */
enum { DECIDE_BASIS_NONE, DECIDE_BASIS_PRIOR, DECIDE_BASIS_PAST };

/* The answers a state asked for before it first measured z rested on
 * the prior, z at peakednessMax: the prior's cushion is in every one of
 * them, whatever demand asked for besides.  When the first call after
 * them measures z below the prior, the hold forgets them, and what the
 * pool holds from then on is what the measured z asks for; the
 * scale-down margin still releases no more than half a replica below the
 * exact answer.  Only that call: a series that fails later takes z back
 * to the prior, and the hold then keeps what it saw, as it keeps any
 * answer; a call after the prior that measures nothing (the TTFT target
 * left no wait budget) ends it without forgetting.  A measurement at the
 * prior changes nothing.  1 when it forgot. */
static int decide_prior_forget(struct smooth *st, const struct decision *d,
			       double z, double prior)
{
	int forget;

	if (st->basis == DECIDE_BASIS_PAST)
		return 0;
	if (d->peak_prior) {
		st->basis = DECIDE_BASIS_PRIOR;
		return 0;
	}
	forget = st->basis == DECIDE_BASIS_PRIOR && d->peak_measured &&
		 z < prior;
	if (forget)
		smooth_hold_forget(st);
	if (st->basis == DECIDE_BASIS_PRIOR || d->peak_measured)
		st->basis = DECIDE_BASIS_PAST;
	return forget;
}

int decide_peak_prior(const struct meta *m)
{
	return m->pool.kind == POOL_PREFILL && m->pool.ttft_target_s > 0;
}

int decide_own_surge(const struct decide_obs *o)
{
	return o->surge || (o->surge_points && o->n_surge > 0);
}

/* The surge headroom at lead time horizon_s (the cold start in force
 * and the metrics lag), read from surgeWindowSeconds' range query, or
 * from the series when there is none (calc); the level smoothed over two
 * lead times.  1 when there is an estimate. */
static int decide_surge(const struct meta *m, const struct decide_obs *o,
			double horizon_s, struct safety *sg)
{
	int own = decide_own_surge(o);
	const double *v = own ? o->surge : o->series;
	size_t n = own ? o->n_surge : o->n_series;
	double step = own ? o->surge_step_s : o->series_step_s;
	uint64_t ver = own ? o->surge_version : o->series_version;
	struct decide_memo *mo = ver ? o->memo : NULL;
	const double in[3] = { step, horizon_s, m->surge_quantile };
	int have;

	if (!decide_surge_on(m) || !(horizon_s > 0) || n < 2 || !(step > 0))
		return 0;
	if (mo && mo->sg_ver == ver && mo->sg_n == n &&
	    !memcmp(mo->sg_in, in, sizeof(in))) {
		*sg = mo->sg;
		return mo->sg_have;
	}
	if (!v && own)
		v = o->surge_points(o->surge_arg);
	if (!v)
		return 0;
	have = safety_estimate(v, n, step, horizon_s,
			       DECIDE_SURGE_TAU_LEADS * horizon_s,
			       m->surge_quantile, sg) == MODEL_OK;
	if (mo) {
		mo->sg_ver = ver;
		mo->sg_n = n;
		memcpy(mo->sg_in, in, sizeof(in));
		mo->sg_have = have;
		if (have)
			mo->sg = *sg;
	}
	return have;
}

/* Holt's forecast at horizon_s and, with forecastMethod auto, whether it
 * is unearned (decide_forecast_earns()), through o's memo when it has
 * one for these points and inputs.  1 when there is a forecast. */
static int decide_forecast_memo(const struct meta *m,
				const struct decide_obs *o, double horizon_s,
				struct forecast *fc, int *unearned)
{
	struct decide_memo *mo = o->series_version && !o->have_truth ?
				 o->memo : NULL;
	const double in[7] = { o->series_step_s, horizon_s, m->forecast_alpha,
			       m->forecast_beta, m->forecast_damping,
			       m->forecast_window_s,
			       (double)m->forecast_method };
	int have;

	*unearned = 0;
	if (mo && mo->fc_ver == o->series_version &&
	    mo->fc_n == o->n_series && !memcmp(mo->fc_in, in, sizeof(in))) {
		if (mo->fc_have)
			*fc = mo->fc;
		*unearned = mo->fc_unearned;
		return mo->fc_have;
	}
	have = decide_forecast(m, o, horizon_s, fc);
	if (have && !o->have_truth && m->forecast_method == META_FORECAST_AUTO)
		*unearned = decide_forecast_earns(m, o, horizon_s);
	if (mo) {
		mo->fc_ver = o->series_version;
		mo->fc_n = o->n_series;
		memcpy(mo->fc_in, in, sizeof(in));
		mo->fc_have = have;
		mo->fc_unearned = *unearned;
		if (have)
			mo->fc = *fc;
	}
	return have;
}

/* The highest lambda of the series over the hold; 0 without one. */
static double decide_held(const struct decide_obs *o, double hold_s)
{
	double best = 0;
	size_t k, i;

	if (!(hold_s > 0) || o->n_series < 1)
		return 0;
	k = decide_tail(o->n_series, o->series_step_s, hold_s);
	for (i = o->n_series - k; i < o->n_series; i++)
		if (o->series[i] > best)
			best = o->series[i];
	return best;
}

/* The answer before the cap, from the model's raw answer.  memory: the
 * answer hold has a whole hold of answers (decide_observations()). */
static int64_t decide_down(const struct meta *m, const struct decide_obs *o,
			   double now_s, struct smooth *st, int64_t raw,
			   int have_series, int memory, struct decision *d)
{
	int64_t prev = o->have_view ? o->current :
		       st && st->primed ? st->target : -1;
	int64_t ans = raw;

	d->prev = prev;
	if (meta_step_limited(m)) {
		d->down = DECIDE_DOWN_STEP;
		if (o->have_view)
			return decide_step_observed(m, raw, o->current,
						    o->recent_max > o->current ?
						    o->recent_max : o->current);
		if (st)
			return smooth_step(st, raw, now_s, m->scale_down_step,
					   m->scale_down_period_s);
		return raw;
	}
	if (!memory && !have_series && prev > raw) {
		/* No evidence that demand stayed below for the whole hold
		 * (no series, or one younger than the hold: a new metric, a
		 * Prometheus that has just started), and no memory of the
		 * answers over it: release nothing. */
		d->down = DECIDE_DOWN_NO_SERIES;
		ans = prev;
	} else {
		d->down = d->b.source == MODEL_FROM_HELD ? DECIDE_DOWN_HOLD
							 : DECIDE_DOWN_FREE;
	}
	/* A lower answer must clear DECIDE_DOWN_MARGIN of a replica: an
	 * answer that hovers at a whole number (W and lambda move by a few
	 * percent from one call to the next) must not release a replica and
	 * ask for it again a minute later, each time paying a cold start. */
	if (d->down != DECIDE_DOWN_NO_SERIES && prev > raw &&
	    isfinite(d->b.exact_replicas)) {
		double up = model_ceil(d->b.exact_replicas +
					DECIDE_DOWN_MARGIN);

		if (up > (double)prev)
			up = (double)prev;
		if (up > (double)raw) {
			d->down = DECIDE_DOWN_MARGIN_HELD;
			ans = (int64_t)up;
		}
	}
	/* The answer hold: every answer is remembered, and what was asked
	 * for within the hold is kept (smooth.h). */
	if (m->hold_on == META_HOLD_ANSWER && st && d->hold_s > 0) {
		int64_t held = smooth_hold(st, ans, now_s, d->hold_s);

		if (held > ans) {
			if (d->down != DECIDE_DOWN_NO_SERIES)
				d->down = DECIDE_DOWN_ANSWER_HELD;
			ans = held;
		}
	}
	return ans;
}

enum decide_err decide_observations(const struct meta *m,
				    const struct decide_obs *o, double now_s,
				    struct smooth *st,
				    struct model_signals *sig,
				    struct decision *out,
				    enum model_err *merr)
{
	struct model_signals s;
	struct decision d;
	struct pool_params pp = { 0 };
	struct pool_signals ps = { 0 };
	enum model_err e;
	int demand, have_series, hold_covered, memory, excess;
	double z = 1, horizon, *low;

	memset(&s, 0, sizeof(s));
	memset(&d, 0, sizeof(d));
	s.arrival_rate = o->arrival_rate;
	s.queue_depth = o->queue_depth;
	s.shed_rate = o->shed_rate;
	if (o->w_measured > 0 && isfinite(o->w_measured))
		s.service_time_s = o->w_measured;
	else if (o->w_last > 0)
		s.service_time_s = o->w_last;
	else
		s.service_time_s = m->service_time_s;
	if (m->pool.kind != POOL_UNIFIED) {
		double wt = 0;

		meta_pool_params(m, &pp);
		ps = o->pool;
		ps.arrival_rate = o->arrival_rate;
		ps.token_peakedness = 0;  /* measured below */
		if (pool_service_time(&pp, &ps, &wt) == MODEL_OK && wt > 0) {
			if (decide_output_arrivals(m, o, wt, &ps) &&
			    pool_service_time(&pp, &ps, &wt) != MODEL_OK)
				wt = 0;
			if (wt > 0)
				s.service_time_s = wt;
		}
	}
	demand = s.arrival_rate > 0 || s.queue_depth > 0 || s.shed_rate > 0;
	if (!(s.service_time_s > 0)) {
		if (demand)
			return DECIDE_ENOW;
		s.service_time_s = 0;
	}
	d.cold_s = decide_cold(m, o, &d.cold);
	horizon = d.cold_s > 0 ? d.cold_s + meta_lag_seconds(m) : 0;
	d.hold_s = decide_hold(m, d.cold_s, o->size_cold_s, &d.hold_capped);
	have_series = o->n_series >= 1 && o->series_step_s > 0;
	/* The peakedness reads any series; the hold's evidence must span
	 * the hold. */
	hold_covered = have_series &&
		       o->n_series >= decide_hold_points(d.hold_s,
							 o->series_step_s);

	/* With a whole hold of answers remembered, the answer hold keeps
	 * what the arrival rate's hold would: that one is for a process
	 * that has just started (and for calc, which remembers nothing). */
	memory = m->hold_on == META_HOLD_ANSWER && st &&
		 smooth_hold_ready(st, now_s, d.hold_s);
	d.hold_memory = memory;

	/* Without W neither a forecast nor a held rate can be staffed;
	 * without demand nothing is lost by leaving them out. */
	if (s.service_time_s > 0) {
		/* The simulator's perfect forecast stands in for any
		 * method, none included. */
		if (m->forecast_method != META_FORECAST_NONE ||
		    o->have_truth) {
			d.have_forecast = decide_forecast_memo(m, o, horizon,
					&d.fc, &d.forecast_unearned);
			if (d.forecast_unearned)
				d.have_forecast = 0;
			if (d.have_forecast)
				s.arrival_forecast = d.fc.value;
		}
		if (!memory)
			s.arrival_held = decide_held(o, d.hold_s);
		d.have_surge = decide_surge(m, o, horizon, &d.sg);
		if (d.have_surge)
			s.arrival_surge = d.sg.value;
	}
	/* A prefill pool's square root covers the burstiness beyond
	 * Poisson (pool.h), sqrt(z - 1): steep at z = 1, where the
	 * estimate's noise on smooth traffic would become headroom, so it
	 * takes z at the low end of the estimate's standard error; and
	 * until the series shows how much burstiness there is, it assumes
	 * the ceiling, the cushion shrinking once the history shows smooth
	 * traffic. */
	excess = m->peakedness == META_AUTO && decide_peak_prior(m) &&
		 m->pool.ttft_target_s - s.service_time_s -
		 m->pool.kv_transfer_s > 0;
	d.peak_low = NAN;
	low = excess && !(m->model.ablate & MODEL_ABLATE_PEAK_AS_READ) ?
	      &d.peak_low : NULL;
	if (m->peakedness != META_AUTO) {
		z = m->peakedness;
	} else if (have_series &&
		   decide_peak(m, o, &z, &d.peak_raw, low) == MODEL_OK) {
		d.peak_measured = !isnan(d.peak_raw);
	} else {
		z = 1;
	}
	if (excess && !d.peak_measured) {
		z = m->peakedness_max;
		d.peak_prior = 1;
	}
	s.peakedness = z;
	d.tok_raw = d.tok_low = d.tok_z = NAN;
	if (excess && d.peak_measured &&
	    !(m->model.ablate & MODEL_ABLATE_TOKEN_PEAK)) {
		decide_peak_tokens(m, o, low != NULL, &d);
		if (d.tok_measured)
			ps.token_peakedness = d.tok_z;
	}
	if (st && m->peakedness == META_AUTO && decide_peak_prior(m) &&
	    !(m->model.ablate & MODEL_ABLATE_PRIOR_HELD))
		d.hold_forgot = decide_prior_forget(st, &d, z,
						    m->peakedness_max);
	if (o->miss) {
		if (decide_feedback(m, o, horizon, &s.correction, &d.fb) !=
		    MODEL_OK)
			return DECIDE_EMODEL;
		d.have_feedback = 1;
	}

	if (m->pool.kind != POOL_UNIFIED) {
		e = pool_evaluate(&m->model, &pp, meta_slots_given(m) ?
				  m->model.slots_per_replica : 0, &ps, &s,
				  &d.b, &d.pool);
		d.have_pool = e == MODEL_OK;
	} else {
		e = model_evaluate(&m->model, &s, &d.b);
	}
	if (e != MODEL_OK) {
		*merr = e;
		return DECIDE_EMODEL;
	}
	d.raw = d.b.replicas;
	d.target = decide_down(m, o, now_s, st, d.raw, hold_covered, memory,
			       &d);
	/* maxReplicas may have been lowered since the answer rose. */
	if (m->model.max_replicas > 0 && d.target > m->model.max_replicas)
		d.target = m->model.max_replicas;
	/* The memory follows every answer, so that a call without the
	 * series, or under the step limit, continues from it. */
	if (st) {
		if (d.down == DECIDE_DOWN_STEP && !o->have_view)
			st->target = d.target;
		else
			smooth_seed(st, d.target, now_s);
	}
	*sig = s;
	*out = d;
	return DECIDE_OK;
}

const char *decide_down_name(enum decide_down d)
{
	switch (d) {
	case DECIDE_DOWN_FREE:
		return "free";
	case DECIDE_DOWN_HOLD:
		return "hold";
	case DECIDE_DOWN_NO_SERIES:
		return "hold-no-series";
	case DECIDE_DOWN_STEP:
		return "step";
	case DECIDE_DOWN_MARGIN_HELD:
		return "margin";
	case DECIDE_DOWN_ANSWER_HELD:
		return "answer-hold";
	}
	return "?";
}
