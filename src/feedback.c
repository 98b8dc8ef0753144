/* feedback.c - see feedback.h. */
#include "feedback.h"

#include <math.h>
#include <string.h>

static int feedback_args_ok(const double *miss, const double *rate,
			    size_t n, double step_s, double window_s,
			    double allowance, double horizon_s)
{
	size_t i;

	if (n > 0 && miss == NULL)
		return 0;
	if (!(step_s > 0) || !isfinite(step_s) || !(window_s > 0) ||
	    !isfinite(window_s))
		return 0;
	if (!(allowance > 0 && allowance < 1))
		return 0;
	if (!(horizon_s >= 0) || !isfinite(horizon_s))
		return 0;
	for (i = 0; rate && i < n; i++)
		if (!(rate[i] >= 0) || !isfinite(rate[i]))
			return 0;
	return 1;
}

/* Demand at point i had risen by more than FEEDBACK_RISE over the last
 * `back` points: the fleet was still catching up. */
static int feedback_rising(const double *rate, size_t i, size_t back)
{
	double before;

	if (rate == NULL || back == 0)
		return 0;
	before = rate[i >= back ? i - back : 0];
	return rate[i] > before * (1.0 + FEEDBACK_RISE) && rate[i] > 0;
}

enum model_err feedback_correction(const double *miss, const double *rate,
				   size_t n, double step_s, double window_s,
				   double allowance, double horizon_s,
				   double *out, struct feedback_info *info)
{
	struct feedback_info fi;
	double span, back, warm, decay, norm = 0, sum = 0, best = 0;
	double msum = 0;
	double grow_at = allowance / 2, c, m;
	size_t i, first, k;

	if (out == NULL || !feedback_args_ok(miss, rate, n, step_s, window_s,
					     allowance, horizon_s))
		return MODEL_EINVAL;
	memset(&fi, 0, sizeof(fi));
	span = floor(window_s / step_s + 1e-9) + 1;
	back = ceil(horizon_s / step_s - 1e-9);
	k = back > (double)n ? n : (size_t)back;
	/* The growth signal at each point is a mean of e+ over the
	 * FEEDBACK_TAU_UP_S before it (exponentially weighted, a point with
	 * no evidence counting as 0); the correction is the highest of them
	 * over the window, so a need once shown is kept for the window. */
	decay = exp(-step_s / FEEDBACK_TAU_UP_S);
	warm = ceil(3 * FEEDBACK_TAU_UP_S / step_s);
	first = span + warm >= (double)n ? 0 : n - (size_t)(span + warm);
	/* The weights of the points summed, the warm-up's too, so that a
	 * constant e has a mean of e at the newest point (the window's
	 * points alone weighed less: 1.5 x the mean at feedbackWindowSeconds
	 * 600 s); before the series, no evidence counts as 0. */
	for (i = first; i < n; i++)
		norm = norm * decay + 1;
	for (i = first; i < n; i++) {
		int counted = 0;

		m = miss[i];
		sum *= decay;
		if (!isfinite(m) || m < 0 || m > 1) {
			if (i + (size_t)span >= n)
				fi.empty++;
		} else if (feedback_rising(rate, i, k)) {
			if (i + (size_t)span >= n)
				fi.rising++;
		} else {
			if (m > grow_at)
				sum += fmin((m - grow_at) / grow_at,
					    FEEDBACK_GROW_MAX);
			counted = 1;
		}
		if (i + (size_t)span < n)
			continue;       /* warming the mean up, not in it */
		if (counted) {
			fi.used++;
			msum += m;
		}
		if (sum / norm > best)
			best = sum / norm;
	}
	if (fi.used > 0)
		fi.miss_mean = msum / (double)fi.used;
	fi.u = FEEDBACK_GAIN_UP * best;
	c = exp(fi.u);
	if (c > FEEDBACK_MAX)
		c = FEEDBACK_MAX;
	*out = c;
	if (info)
		*info = fi;
	return MODEL_OK;
}
