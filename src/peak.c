/*
 * peak.c - peakedness from a rate series (see peak.h).
 *
 * The lag j rounds up so that the three windows of a second difference
 * never overlap: overlapping windows share arrivals, which would make the
 * differences smaller and read bursty traffic as smooth.
 */
#include "peak.h"

#include <math.h>

enum model_err peak_estimate(const double *vals, size_t n, double step_s,
			     double window_s, double max, double *out,
			     double *raw_out)
{
	double sum = 0, sq = 0, mean, z, lag;
	size_t i, j, k, nd;

	if (vals == NULL || out == NULL || !(step_s > 0) || !isfinite(step_s) ||
	    !(window_s > 0) || !isfinite(window_s) || !(max >= PEAK_MIN) ||
	    !isfinite(max))
		return MODEL_EINVAL;
	for (i = 0; i < n; i++)
		if (!(vals[i] >= 0) || !isfinite(vals[i]))
			return MODEL_EINVAL;

	lag = ceil(window_s / step_s - 1e-9);
	z = NAN;
	/* a lag beyond the series (a step of 1e-300 s) measures nothing;
	 * tested in double, before it becomes a size_t */
	if (!(2 * lag < (double)n))
		goto out;
	j = lag < 1 ? 1 : (size_t)lag;
	if (n <= 2 * j || n - 2 * j < PEAK_MIN_DIFFS)
		goto out;
	for (i = 0; i < n; i++)
		sum += vals[i];
	mean = sum / (double)n;
	if (!(mean * window_s >= PEAK_MIN_COUNT))
		goto out;
	nd = n - 2 * j;
	for (k = 2 * j; k < n; k++) {
		double d = vals[k] - 2 * vals[k - j] + vals[k - 2 * j];

		sq += d * d;
	}
	z = window_s * (sq / (double)nd) / (6 * mean);
	if (!isfinite(z))
		z = max; /* squares overflowed: as bursty as it gets */
out:
	if (raw_out)
		*raw_out = z;
	*out = isnan(z) ? 1.0 : z < PEAK_MIN ? PEAK_MIN : z > max ? max : z;
	return MODEL_OK;
}

double peak_lower(double z, size_t n, double step_s, double window_s)
{
	double span = (double)(n < 2 ? 0 : n - 1) * step_s;

	if (!(z > 0) || !isfinite(z) || !(span > 0) || !isfinite(span) ||
	    !(window_s > 0) || !isfinite(window_s))
		return NAN;
	return z / (1 + sqrt(2 * window_s / span));
}
