/*
 * simrng.h - the simulator's random numbers: small, fast, reproducible.
 *
 * xoshiro256** seeded through splitmix64, so one 64-bit seed gives the
 * same stream on every platform and every run.  The state is plain data
 * owned by the caller; no globals, no allocation, no I/O.  Not for
 * cryptography.
 */
#ifndef STAFFER_SIMRNG_H
#define STAFFER_SIMRNG_H

#include <stdint.h>

struct simrng {
	uint64_t s[4];
};

/* Seed the generator; any seed (0 included) is fine. */
void simrng_seed(struct simrng *r, uint64_t seed);

/* The next 64 random bits. */
uint64_t simrng_next(struct simrng *r);

/* Uniform in the open interval (0, 1): never 0, never 1. */
double simrng_uniform(struct simrng *r);

/* Exponential with the given mean (> 0). */
double simrng_exp(struct simrng *r, double mean);

/* Standard normal (Box-Muller, one value per call). */
double simrng_normal(struct simrng *r);

/* Lognormal with the given mean (> 0) and coefficient of variation
 * (>= 0; 0 gives the mean itself). */
double simrng_lognormal(struct simrng *r, double mean, double cv);

/* Gamma with the given shape (> 0) and scale 1 (Marsaglia and Tsang's
 * method; below shape 1 through Gamma(shape + 1) U^(1 / shape), which
 * underflows to 0 for the tiny shapes of very bursty renewal processes:
 * a gap of 0 is then an arrival at the same instant). */
double simrng_gamma(struct simrng *r, double shape);

/* Poisson-distributed count with the given mean (>= 0); exact for small
 * means, a rounded normal approximation above 500. */
uint64_t simrng_poisson(struct simrng *r, double mean);

#endif
