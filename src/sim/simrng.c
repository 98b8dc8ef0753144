/*
 * simrng.c - see simrng.h.  xoshiro256** by Blackman and Vigna (public
 * domain algorithm), seeded with splitmix64 as its authors recommend.
 */
#include "simrng.h"

#include <math.h>

static uint64_t simrng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t simrng_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void simrng_seed(struct simrng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = simrng_splitmix(&seed);
}

uint64_t simrng_next(struct simrng *r)
{
	uint64_t *s = r->s;
	uint64_t out = simrng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = simrng_rotl(s[3], 45);
	return out;
}

double simrng_uniform(struct simrng *r)
{
	/* 53 random bits, shifted by half a step off 0 and 1. */
	return ((double)(simrng_next(r) >> 11) + 0.5) * 0x1.0p-53;
}

double simrng_exp(struct simrng *r, double mean)
{
	return -mean * log(simrng_uniform(r));
}

double simrng_normal(struct simrng *r)
{
	double u = simrng_uniform(r), v = simrng_uniform(r);

	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

double simrng_lognormal(struct simrng *r, double mean, double cv)
{
	double s2, mu;

	if (!(cv > 0))
		return mean;
	s2 = log(1.0 + cv * cv);
	mu = log(mean) - s2 / 2.0;
	return exp(mu + sqrt(s2) * simrng_normal(r));
}

double simrng_gamma(struct simrng *r, double shape)
{
	double d, c, x, v, u;

	if (shape < 1)
		return simrng_gamma(r, shape + 1) *
		       exp(log(simrng_uniform(r)) / shape);
	d = shape - 1.0 / 3.0;
	c = 1.0 / sqrt(9.0 * d);
	for (;;) {
		do {
			x = simrng_normal(r);
			v = 1.0 + c * x;
		} while (v <= 0);
		v = v * v * v;
		u = simrng_uniform(r);
		if (u < 1.0 - 0.0331 * x * x * x * x ||
		    log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
			return d * v;
	}
}

uint64_t simrng_poisson(struct simrng *r, double mean)
{
	double l, p;
	uint64_t k = 0;

	if (!(mean > 0))
		return 0;
	if (mean > 500) {
		double x = mean + sqrt(mean) * simrng_normal(r) + 0.5;

		return x > 0 ? (uint64_t)x : 0;
	}
	l = exp(-mean);
	p = simrng_uniform(r);
	while (p > l) {
		k++;
		p *= simrng_uniform(r);
	}
	return k;
}
