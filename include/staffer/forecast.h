/*
 * forecast.h - Holt's linear-trend forecast of an evenly spaced series.
 *
 * Design section 2: with coldStartSeconds > 0, the arrival rate is replaced
 * by max(lambda, forecast) where the forecast looks coldStartSeconds ahead.
 * The series comes fresh from a Prometheus range query on every
 * evaluation, so this is a pure function of the series: no state kept
 * between calls, no I/O, no logging, no allocation, thread-safe.
 */
#ifndef STAFFER_FORECAST_H
#define STAFFER_FORECAST_H

#include <stddef.h>

#include "model.h"

/*
 * Run Holt's method over vals[0..n-1] (oldest first, one value per step)
 *   level' = alpha x + (1 - alpha) (level + trend)
 *   trend' = beta (level' - level) + (1 - beta) trend
 * starting from level = vals[0], trend = vals[1] - vals[0] (0 when n == 1),
 * and forecast steps_ahead steps past the last value:
 *   *out = max(0, level + steps_ahead * trend).
 * steps_ahead is in units of the series spacing (horizon / step) and may
 * be fractional.
 *
 * Requires vals != NULL, n >= 1, every value finite and >= 0, alpha in
 * (0, 1], beta in [0, 1], steps_ahead finite and >= 0, out != NULL; else
 * MODEL_EINVAL.  MODEL_ERANGE when the values are so large that the
 * arithmetic overflows.  level_out and trend_out may be NULL; the final
 * level (not clamped, it may be negative on a steep fall) and trend go
 * there.  Outputs are written only on MODEL_OK.
 */
enum model_err forecast_holt(const double *vals, size_t n, double alpha,
			     double beta, double steps_ahead, double *out,
			     double *level_out, double *trend_out);

/*
 * Holt's method with a damped trend (Gardner and McKenzie, 1985): the
 * trend fades by phi per step, in the updates and ahead,
 *   level' = alpha x + (1 - alpha) (level + phi trend)
 *   trend' = beta (level' - level) + (1 - beta) phi trend
 *   *out   = max(0, level + (phi + phi^2 + ... + phi^h) trend)
 * so a trend seen for a few steps (a step in the rate read through a
 * rate window looks like one) is extrapolated at most phi / (1 - phi)
 * steps, while a lasting ramp keeps feeding it.  phi 1 is forecast_holt.
 * phi must be in (0, 1]; the rest as forecast_holt.
 */
enum model_err forecast_holt_damped(const double *vals, size_t n,
				    double alpha, double beta, double phi,
				    double steps_ahead, double *out,
				    double *level_out, double *trend_out);

/*
 * The step of the range query that feeds the forecast:
 *   clamp(window_s / FORECAST_STEP_POINTS, FORECAST_STEP_MIN_S,
 *         FORECAST_STEP_MAX_S)
 * so 15 s for the default 600 s window.  About 40 points are plenty for
 * Holt's method (with alpha 0.3 and beta 0.15 the level remembers ~3
 * steps and the trend ~7), keep the query cheap, and match a 15 s scrape
 * interval at the default window.  Below 5 s the points would repeat
 * samples of a usual scrape interval; above 60 s a ramp of a few minutes
 * would be only a few points long.  Long windows therefore get more
 * points, not coarser ones: 86400 s gives 1441.
 * NaN or window_s <= 0 gives the minimum, +Inf the maximum.
 */
#define FORECAST_STEP_POINTS 40.0
#define FORECAST_STEP_MIN_S 5.0
#define FORECAST_STEP_MAX_S 60.0

double forecast_step_seconds(double window_s);

/* One forecast with what produced it, for logs and calc. */
struct forecast {
	double value;   /* lambda-hat at the horizon, >= 0 */
	double level;   /* final Holt level (may be < 0 on a steep fall) */
	double trend;   /* final Holt trend, per step */
	double steps;   /* horizon_s / step_s, the steps ahead */
};

/*
 * The forecast the model uses: Holt's method over vals[0..n-1], the values
 * of a range query at step_s spacing, oldest first, the last one now;
 * forecast horizon_s ahead with the trend damped by phi (1: none), i.e.
 * steps_ahead = horizon_s / step_s, which may be fractional.  Needs
 * step_s > 0 and
 * horizon_s >= 0, both finite, with a finite ratio; the rest is
 * forecast_holt's contract and errors.  *out is written only on MODEL_OK.
 * The series must be evenly spaced: a range query with gaps is not.
 */
enum model_err forecast_ahead(const double *vals, size_t n, double step_s,
			      double horizon_s, double alpha, double beta,
			      double phi, struct forecast *out);

#endif
