/*
 * forecast.c - Holt's linear-trend forecast (see forecast.h).
 *
 * Why the trend starts at vals[1] - vals[0] and not at 0: the series is
 * re-read from Prometheus on every evaluation, so the start-up transient
 * is in every forecast, not only the first one.  Starting at 0 makes the
 * method lag a ramp for tens of steps (with alpha 0.3, beta 0.15 and ten
 * points on a ramp, 40 steps ahead comes out ~20% low), which is exactly
 * the case the forecast exists for.  The first difference is exact on a
 * ramp, and a noisy one is damped by (1 - beta) per step like any other
 * trend error.  A wrong upward trend costs some warm capacity; a missed
 * ramp costs the SLA for a cold start.
 */
#include "forecast.h"

#include <math.h>

static int forecast_args_ok(const double *vals, size_t n, double alpha,
			    double beta, double steps_ahead, const double *out)
{
	size_t i;

	if (vals == NULL || n < 1 || out == NULL)
		return 0;
	if (!(alpha > 0.0 && alpha <= 1.0) || !(beta >= 0.0 && beta <= 1.0))
		return 0;
	if (!(steps_ahead >= 0.0) || !isfinite(steps_ahead))
		return 0;
	for (i = 0; i < n; i++)
		if (!(vals[i] >= 0.0) || !isfinite(vals[i]))
			return 0;
	return 1;
}

/* The damped trend's sum phi + phi^2 + ... + phi^h for a real h >= 0:
 * h itself when phi is 1 (Holt's linear trend). */
static double forecast_damped_steps(double phi, double h)
{
	if (phi >= 1.0)
		return h;
	return phi * (1.0 - pow(phi, h)) / (1.0 - phi);
}

enum model_err forecast_holt_damped(const double *vals, size_t n,
				    double alpha, double beta, double phi,
				    double steps_ahead, double *out,
				    double *level_out, double *trend_out)
{
	double level, trend, fc;
	size_t i;

	if (!forecast_args_ok(vals, n, alpha, beta, steps_ahead, out) ||
	    !(phi > 0.0 && phi <= 1.0))
		return MODEL_EINVAL;

	level = vals[0];
	trend = n > 1 ? vals[1] - vals[0] : 0.0;
	for (i = 1; i < n; i++) {
		double prev = level;

		level = alpha * vals[i] + (1.0 - alpha) *
			(level + phi * trend);
		trend = beta * (level - prev) + (1.0 - beta) * phi * trend;
	}
	fc = level + forecast_damped_steps(phi, steps_ahead) * trend;
	/* Overflow anywhere above shows up as Inf or NaN at the end. */
	if (!isfinite(level) || !isfinite(trend) || !isfinite(fc))
		return MODEL_ERANGE;

	*out = fc > 0.0 ? fc : 0.0;
	if (level_out != NULL)
		*level_out = level;
	if (trend_out != NULL)
		*trend_out = trend;
	return MODEL_OK;
}

enum model_err forecast_holt(const double *vals, size_t n, double alpha,
			     double beta, double steps_ahead, double *out,
			     double *level_out, double *trend_out)
{
	return forecast_holt_damped(vals, n, alpha, beta, 1.0, steps_ahead,
				    out, level_out, trend_out);
}

double forecast_step_seconds(double window_s)
{
	double step;

	if (!(window_s > 0.0))
		return FORECAST_STEP_MIN_S;
	step = window_s / FORECAST_STEP_POINTS;
	if (step < FORECAST_STEP_MIN_S)
		return FORECAST_STEP_MIN_S;
	if (step > FORECAST_STEP_MAX_S)
		return FORECAST_STEP_MAX_S;
	return step;
}

enum model_err forecast_ahead(const double *vals, size_t n, double step_s,
			      double horizon_s, double alpha, double beta,
			      double phi, struct forecast *out)
{
	struct forecast f;
	enum model_err err;

	if (out == NULL || !(step_s > 0.0) || !isfinite(step_s) ||
	    !(horizon_s >= 0.0) || !isfinite(horizon_s))
		return MODEL_EINVAL;
	f.steps = horizon_s / step_s;
	if (!isfinite(f.steps))
		return MODEL_EINVAL;
	err = forecast_holt_damped(vals, n, alpha, beta, phi, f.steps,
				   &f.value, &f.level, &f.trend);
	if (err != MODEL_OK)
		return err;
	*out = f;
	return MODEL_OK;
}

