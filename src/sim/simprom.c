/*
 * simprom.c - see simprom.h.
 */
#include "simprom.h"

#include <stdlib.h>

int simseries_init(struct simseries *s, size_t cap)
{
	s->t = s->v = NULL;
	s->cap = s->head = s->n = 0;
	if (cap < 1 || cap > SIMPROM_SAMPLES_MAX)
		return -1;
	s->t = malloc(cap * sizeof(*s->t));
	s->v = malloc(cap * sizeof(*s->v));
	if (!s->t || !s->v) {
		simseries_free(s);
		return -1;
	}
	s->cap = cap;
	return 0;
}

void simseries_free(struct simseries *s)
{
	free(s->t);
	free(s->v);
	s->t = s->v = NULL;
	s->cap = s->head = s->n = 0;
}

void simseries_add(struct simseries *s, double t, double v)
{
	if (!s->cap)
		return;
	s->t[s->head] = t;
	s->v[s->head] = v;
	s->head = (s->head + 1) % s->cap;
	if (s->n < s->cap)
		s->n++;
}

/* Index of the i-th oldest live sample. */
static size_t simseries_at(const struct simseries *s, size_t i)
{
	return (s->head + s->cap - s->n + i) % s->cap;
}

int simprom_extrapolated_rate(const double *t, const double *v, size_t n,
			      double start, double end, int is_counter,
			      int is_rate, double *out)
{
	double result, to_start, to_end, sampled, avg, thresh, interval;
	size_t i;

	if (n < 2)
		return -1;
	result = v[n - 1] - v[0];
	if (is_counter)
		for (i = 1; i < n; i++)
			if (v[i] < v[i - 1])
				result += v[i - 1];
	to_start = t[0] - start;
	to_end = end - t[n - 1];
	sampled = t[n - 1] - t[0];
	if (!(sampled > 0))
		return -1;
	avg = sampled / (double)(n - 1);
	if (is_counter && result > 0 && v[0] >= 0) {
		double to_zero = sampled * (v[0] / result);

		if (to_zero < to_start)
			to_start = to_zero;
	}
	thresh = avg * 1.1;
	interval = sampled;
	interval += to_start < thresh ? to_start : avg / 2;
	interval += to_end < thresh ? to_end : avg / 2;
	result *= interval / sampled;
	if (is_rate)
		result /= end - start;
	*out = result;
	return 0;
}

#define SIMPROM_RATE_MAX 4096 /* samples one rate() looks at */

/* Logical index of the first sample with time > t (samples are sorted). */
static size_t simseries_after(const struct simseries *s, double t)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->t[simseries_at(s, mid)] > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int simprom_rate(const struct simseries *s, double now, double window_s,
		 double *out)
{
	double t[SIMPROM_RATE_MAX], v[SIMPROM_RATE_MAX];
	double start = now - window_s;
	size_t i, end, n = 0;

	if (!(window_s > 0))
		return -1;
	end = simseries_after(s, now);
	for (i = simseries_after(s, start); i < end; i++) {
		size_t k = simseries_at(s, i);

		if (n == SIMPROM_RATE_MAX)
			return -1;
		t[n] = s->t[k];
		v[n] = s->v[k];
		n++;
	}
	return simprom_extrapolated_rate(t, v, n, start, now, 1, 1, out);
}

int simprom_max_over(const struct simseries *s, double now, double window_s,
		     double *out)
{
	size_t i, end = simseries_after(s, now);
	double best = 0;
	int seen = 0;

	for (i = simseries_after(s, now - window_s); i < end; i++) {
		size_t k = simseries_at(s, i);

		if (!seen || s->v[k] > best)
			best = s->v[k];
		seen = 1;
	}
	if (!seen)
		return -1;
	*out = best;
	return 0;
}

int simprom_avg_over(const struct simseries *s, double now, double window_s,
		     double *out)
{
	size_t i, n = 0, end = simseries_after(s, now);
	double sum = 0;

	for (i = simseries_after(s, now - window_s); i < end; i++, n++)
		sum += s->v[simseries_at(s, i)];
	if (n == 0)
		return -1;
	*out = sum / (double)n;
	return 0;
}

int simprom_last(const struct simseries *s, double now, double *out)
{
	size_t i = simseries_after(s, now), k;

	if (i == 0)
		return -1;
	k = simseries_at(s, i - 1);
	if (s->t[k] < now - SIMPROM_LOOKBACK_S)
		return -1;
	*out = s->v[k];
	return 0;
}
