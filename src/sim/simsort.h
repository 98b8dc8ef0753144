/*
 * simsort.h - sorting the simulator's big arrays: a week of traffic is
 * tens of millions of arrivals, completions and waits, and qsort's
 * comparison calls cost more than the simulation itself.
 *
 * LSD radix sorts on the bits of doubles (11-bit digits, a pass skipped
 * when every key shares its digit), so O(n) per pass and stable.  Doubles
 * order as numbers: negative before positive, -0 before +0; NaN is not
 * allowed (its place is unspecified).  Below SIMSORT_SMALL elements they
 * fall back to qsort.  Pure: no I/O, no globals; -1 only when out of
 * memory, the input then unchanged.
 */
#ifndef STAFFER_SIMSORT_H
#define STAFFER_SIMSORT_H

#include <stddef.h>
#include <stdint.h>

#define SIMSORT_SMALL 4096

/* Sort v[0..n) ascending. */
int simsort_doubles(double *v, size_t n);

/* The stable ascending order of key[0..n): perm[r] is the index of the
 * r-th smallest key, equal keys in index order.  n < 2^32. */
int simsort_order(const double *key, size_t n, uint32_t *perm);

#endif
