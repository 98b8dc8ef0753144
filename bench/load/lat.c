/* lat.c - see lat.h. */
#include "lat.h"

#include <math.h>
#include <stdlib.h>

void lat_init(struct lat *l)
{
	struct lat z = LAT_INIT;

	*l = z;
}

void lat_release(struct lat *l)
{
	free(l->v);
	lat_init(l);
}

void lat_reset(struct lat *l)
{
	l->n = 0;
	l->dropped = 0;
	l->sorted = 0;
}

void lat_add(struct lat *l, double s)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4096;
		double *v;

		if (cap > LAT_SAMPLES_MAX)
			cap = LAT_SAMPLES_MAX;
		v = cap > l->cap ? realloc(l->v, cap * sizeof(*v)) : NULL;
		if (!v) {
			l->dropped++;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = s;
	l->sorted = 0;
}

static int lat_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double lat_quantile(struct lat *l, double q)
{
	size_t i;

	if (!l->n)
		return NAN;
	if (!l->sorted) {
		qsort(l->v, l->n, sizeof(*l->v), lat_cmp);
		l->sorted = 1;
	}
	if (q <= 0)
		return l->v[0];
	/* nearest rank: the smallest sample with at least q of them at or
	 * below it */
	i = (size_t)ceil(q * (double)l->n);
	if (i < 1)
		i = 1;
	if (i > l->n)
		i = l->n;
	return l->v[i - 1];
}

double lat_max(struct lat *l)
{
	return lat_quantile(l, 1.0);
}
