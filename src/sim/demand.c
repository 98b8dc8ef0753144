/*
 * demand.c - see demand.h.  One sweep over arrivals (sorted) and ends
 * (sorted here); an end at the same instant as an arrival goes first, as
 * in the simulator, where a completion frees its slot before a request
 * arriving at that instant is dispatched.
 */
#include "demand.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simsort.h"

void demand_init(struct demand *d)
{
	memset(d, 0, sizeof(*d));
}

void demand_free(struct demand *d)
{
	free(d->maxc);
	free(d->blockmax);
	demand_init(d);
}

static size_t demand_bucket(const struct demand *d, double t)
{
	double b = floor(t / d->step_s);

	if (!(b > 0))
		return 0;
	if (b >= (double)(d->n - 1))
		return d->n - 1;
	return (size_t)b;
}

/* Raise buckets (from, to] to at least c. */
static void demand_fill(struct demand *d, size_t from, size_t to, uint32_t c)
{
	size_t b;

	for (b = from + 1; b <= to; b++)
		if (d->maxc[b] < c)
			d->maxc[b] = c;
}

int demand_build(struct demand *d, const struct trace *t, char *err,
		 size_t errlen)
{
	double *ends = NULL, last = 0;
	size_t i, j, b, lb = 0;
	uint32_t c = 0;
	int rc = -1;

	demand_free(d);
	if (t->n == 0) {
		snprintf(err, errlen, "demand: empty trace");
		return -1;
	}
	ends = malloc(t->n * sizeof(*ends));
	if (!ends)
		goto oom;
	for (i = 0; i < t->n; i++) {
		ends[i] = t->req[i].arrival_s + t->req[i].service_s;
		if (ends[i] > last)
			last = ends[i];
	}
	if (simsort_doubles(ends, t->n))
		goto oom;
	d->step_s = 1.0;
	if (last / d->step_s + 2 > DEMAND_BUCKETS_MAX)
		d->step_s = (last + 2) / (DEMAND_BUCKETS_MAX - 2);
	d->n = (size_t)(last / d->step_s) + 2;
	d->nblocks = (d->n + DEMAND_BLOCK - 1) / DEMAND_BLOCK;
	d->maxc = calloc(d->n, sizeof(*d->maxc));
	d->blockmax = calloc(d->nblocks, sizeof(*d->blockmax));
	if (!d->maxc || !d->blockmax)
		goto oom;
	for (i = 0, j = 0; i < t->n || j < t->n;) {
		int is_end = i == t->n ||
			     (j < t->n && ends[j] <= t->req[i].arrival_s);
		double at = is_end ? ends[j] : t->req[i].arrival_s;

		b = demand_bucket(d, at);
		demand_fill(d, lb, b, c);
		if (is_end) {
			c--;
			j++;
		} else {
			c++;
			i++;
		}
		if (d->maxc[b] < c)
			d->maxc[b] = c;
		lb = b;
	}
	for (b = 0; b < d->n; b++)
		if (d->blockmax[b / DEMAND_BLOCK] < d->maxc[b])
			d->blockmax[b / DEMAND_BLOCK] = d->maxc[b];
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "demand: out of memory");
	demand_free(d);
out:
	free(ends);
	return rc;
}

uint32_t demand_max(const struct demand *d, double from, double to)
{
	size_t a, z, b;
	uint32_t m = 0;

	if (!d->n || to < from || to < 0 || from > d->n * d->step_s)
		return 0;
	a = demand_bucket(d, from);
	z = demand_bucket(d, to);
	b = a;
	while (b <= z) {
		if (b % DEMAND_BLOCK == 0 && b + DEMAND_BLOCK - 1 <= z) {
			if (d->blockmax[b / DEMAND_BLOCK] > m)
				m = d->blockmax[b / DEMAND_BLOCK];
			b += DEMAND_BLOCK;
			continue;
		}
		if (d->maxc[b] > m)
			m = d->maxc[b];
		b++;
	}
	return m;
}
