/*
 * lat.h - latency samples of one measurement and their percentiles.
 *
 * Every sample is kept (bounded by LAT_SAMPLES_MAX), so p99 and the worst
 * call are exact rather than read from histogram buckets: a measurement
 * of a few seconds at tens of thousands of calls a second is a few
 * megabytes.  Not thread-safe: one load client thread owns it.
 */
#ifndef LOAD_LAT_H
#define LOAD_LAT_H

#include <stddef.h>

#define LAT_SAMPLES_MAX (16u << 20)  /* samples kept; later ones counted */

struct lat {
	double *v;          /* seconds, in arrival order until lat_sort() */
	size_t n, cap;
	size_t dropped;     /* samples past LAT_SAMPLES_MAX (or no memory) */
	int sorted;
};

#define LAT_INIT { NULL, 0, 0, 0, 0 }

void lat_init(struct lat *l);

/* Free the samples; l is then as after lat_init(). */
void lat_release(struct lat *l);

/* Forget the samples but keep the memory. */
void lat_reset(struct lat *l);

/* Add one sample (seconds).  Past the cap, or without memory, it is only
 * counted in l->dropped: a measurement never fails half-way. */
void lat_add(struct lat *l, double s);

/* The q-quantile (0..1, nearest rank) in seconds; NaN without samples.
 * Sorts the samples the first time. */
double lat_quantile(struct lat *l, double q);

/* The largest sample, NaN without samples. */
double lat_max(struct lat *l);

#endif
