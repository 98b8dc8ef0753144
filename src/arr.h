/*
 * arr.h - room in a growing array, for the modules that build arrays of
 * unknown length (ydoc's nodes and metadata maps, lint's findings,
 * trigsel's candidates).
 *
 * Thread-safe: no state of its own; the array is the caller's.
 */
#ifndef STAFFER_ARR_H
#define STAFFER_ARR_H

#include <stddef.h>

/*
 * arr (malloc'd or NULL) with room for element n, where it has cap
 * elements of size bytes now: arr itself when n < *cap, else arr moved by
 * realloc() to twice the capacity (8 the first time), *cap updated.
 * NULL when memory is short or the size would overflow: arr is then
 * untouched and still owned by the caller.
 */
void *arr_room(void *arr, size_t n, size_t *cap, size_t size);

#endif
