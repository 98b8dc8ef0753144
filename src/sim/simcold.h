/*
 * simcold.h - the cold starts of a simulated pool of replicas (sim.h's
 * fleet, split.h's two pools): the k-th replica created after the start
 * takes the k-th draw, so every policy of a run meets the same pods.
 *
 * A draw is the nominal cold start, or lognormal with that median and
 * coefficient of variation cv; draws are made as needed from the pool's
 * own seeded stream and kept.  The struct is plain data owned by the
 * caller; simcold_release frees what simcold_get allocated.
 */
#ifndef STAFFER_SIMCOLD_H
#define STAFFER_SIMCOLD_H

#include <stddef.h>
#include <stdint.h>

#include "simrng.h"

struct simcold {
	struct simrng rng;
	double *v;          /* the draws so far */
	size_t n, cap;
};

void simcold_init(struct simcold *c, uint64_t seed);
void simcold_release(struct simcold *c);

/*
 * The k-th cold start (k from 0): median_s when cv is 0, else the k-th
 * lognormal draw with median median_s and coefficient of variation cv.
 * 0 with *out set; -1 when out of memory.
 */
int simcold_get(struct simcold *c, double median_s, double cv, size_t k,
		double *out);

#endif
