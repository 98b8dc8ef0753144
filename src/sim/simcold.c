/*
 * simcold.c - see simcold.h.
 */
#include "simcold.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void simcold_init(struct simcold *c, uint64_t seed)
{
	memset(c, 0, sizeof(*c));
	simrng_seed(&c->rng, seed);
}

void simcold_release(struct simcold *c)
{
	free(c->v);
	c->v = NULL;
	c->n = c->cap = 0;
}

int simcold_get(struct simcold *c, double median_s, double cv, size_t k,
		double *out)
{
	double sigma;

	if (!(cv > 0)) {
		*out = median_s;
		return 0;
	}
	sigma = sqrt(log(1 + cv * cv));
	while (c->n <= k) {
		if (c->n == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 256;
			double *p = realloc(c->v, cap * sizeof(*p));

			if (!p)
				return -1;
			c->v = p;
			c->cap = cap;
		}
		c->v[c->n++] = median_s * exp(sigma * simrng_normal(&c->rng));
	}
	*out = c->v[k];
	return 0;
}
