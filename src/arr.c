/* arr.c - see arr.h. */
#include <stdlib.h>

#include "arr.h"

void *arr_room(void *arr, size_t n, size_t *cap, size_t size)
{
	size_t c;
	void *p;

	if (n < *cap)
		return arr;
	c = *cap ? *cap * 2 : 8;
	if (c > ((size_t)-1) / size)
		return NULL;
	p = realloc(arr, c * size);
	if (p)
		*cap = c;
	return p;
}
