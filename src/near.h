/*
 * near.h - how far a misspelt name is from a known one, for "did you
 * mean" hints (meta_nearest_key() in meta.h, the config file's unknown
 * fields in config.c).  Each caller keeps its own policy of what is near
 * enough; this is only the distance.
 *
 * Pure: no allocation (the rows live on the stack), no state; thread-safe.
 */
#ifndef STAFFER_NEAR_H
#define STAFFER_NEAR_H

#include <stddef.h>

/* Longest name compared; longer ones are not typos of a known name. */
#define NEAR_MAX 64

/*
 * The edit distance between a (na bytes) and b (nb bytes), ASCII case
 * folded: insertions, deletions and substitutions, and with swaps != 0
 * also a swap of two neighbours as one edit (optimal string alignment;
 * "tiemout" is 1 from "timeout", not 2).  SIZE_MAX when na or nb is over
 * NEAR_MAX.
 */
size_t near_distance(const char *a, size_t na, const char *b, size_t nb,
		     int swaps);

#endif
