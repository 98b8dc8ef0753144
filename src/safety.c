/*
 * safety.c - see safety.h.
 */
#include "safety.h"

#include <math.h>

/* The k-th smallest (from 0) of v[0..n), reordering v (Hoare's
 * selection with a three-way partition: rises tie often). */
static double safety_select(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		double p = v[lo + (hi - lo) / 2];
		size_t lt = lo, i = lo, gt = hi;

		while (i < gt) {
			if (v[i] < p) {
				double t = v[i];

				v[i++] = v[lt];
				v[lt++] = t;
			} else if (v[i] > p) {
				double t = v[i];

				v[i] = v[--gt];
				v[gt] = t;
			} else {
				i++;
			}
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return p;
	}
	return v[lo];
}

enum model_err safety_estimate(const double *vals, size_t n, double step_s,
			       double lead_s, double tau_s, double q,
			       struct safety *out)
{
	double u[SAFETY_POINTS_MAX];
	size_t dq[SAFETY_LEAD_MAX + 1];
	double a, level, lag, tw, need, peak = 0;
	size_t h, warm, i, m = 0, first, k, head = 0, len = 0, add;
	long x;

	if (!vals || !out || !(step_s > 0) || !isfinite(step_s) ||
	    !(lead_s > 0) || !isfinite(lead_s) || !(tau_s > 0) ||
	    !isfinite(tau_s) || !(q > 0) || !(q < 1))
		return MODEL_EINVAL;
	for (i = 0; i < n; i++)
		if (!(vals[i] >= 0) || !isfinite(vals[i]))
			return MODEL_EINVAL;
	lag = ceil(lead_s / step_s - 1e-9);
	tw = ceil(tau_s / step_s - 1e-9);
	if (lag > SAFETY_LEAD_MAX || tw > (double)n)
		return MODEL_ERANGE;
	h = lag < 1 ? 1 : (size_t)lag;
	warm = (size_t)tw;
	/* Rises one lead time apart are about independent: the quantile
	 * needs SAFETY_BEYOND of those lead times above it, or it is the
	 * highest rise seen (one step of traffic would set it). */
	need = ceil(SAFETY_BEYOND / (1 - q) - 1e-9) * (double)h;
	if (need < SAFETY_MIN_RISES)
		need = SAFETY_MIN_RISES;
	if ((double)n < (double)(warm + h) + need)
		return MODEL_ERANGE;
	/* Rises at i = first .. n - h - 1: the newest SAFETY_POINTS_MAX
	 * after the warm-up. */
	first = n - h - warm > SAFETY_POINTS_MAX ? n - h - SAFETY_POINTS_MAX
						 : warm;
	if ((double)(n - h - first) < need)
		return MODEL_ERANGE;
	/* The highest point of each window r[i+1 .. i+h], from the newest
	 * window back: a deque of indices, newest-added at the back, values
	 * falling from the front (which is the window's highest). */
	add = n;
	for (x = (long)(n - h - 1); x >= (long)first; x--) {
		while (add > (size_t)x + 1) {
			add--;
			while (len > 0 &&
			       vals[dq[(head + len - 1) % (h + 1)]] <=
			       vals[add])
				len--;
			dq[(head + len) % (h + 1)] = add;
			len++;
		}
		while (dq[head] > (size_t)x + h) {
			head = (head + 1) % (h + 1);
			len--;
		}
		u[(size_t)x - first] = vals[dq[head]];
	}
	for (i = first + 1; i < n; i++)
		if (vals[i] > peak)
			peak = vals[i];
	/* Each over the level at its start; a level of 0 says nothing. */
	a = 1 - exp(-step_s / tau_s);
	level = vals[0];
	for (i = 1; i < n; i++) {
		level += a * (vals[i] - level);
		if (i >= first && i + h < n && level > 0)
			u[m++] = u[i - first] / level;
	}
	if ((double)m < need || !(level > 0))
		return MODEL_ERANGE;
	/* Nearest rank: the ceil(q m)-th smallest. */
	k = (size_t)ceil(q * (double)m - 1e-9);
	if (k < 1)
		k = 1;
	out->level = level;
	out->ratio = safety_select(u, m, k - 1);
	out->value = out->level * out->ratio;
	if (out->value > peak)
		out->value = peak;
	out->peak = peak;
	out->rises = m;
	return MODEL_OK;
}
