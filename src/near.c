/* near.c - see near.h. */
#include <stdint.h>

#include "ascii.h"
#include "near.h"

size_t near_distance(const char *a, size_t na, const char *b, size_t nb,
		     int swaps)
{
	size_t rows[3][NEAR_MAX + 1];
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2], *t;
	size_t i, j, cost, d;

	if (na > NEAR_MAX || nb > NEAR_MAX)
		return SIZE_MAX;
	for (j = 0; j <= nb; j++)
		prev[j] = j;
	for (i = 1; i <= na; i++) {
		cur[0] = i;
		for (j = 1; j <= nb; j++) {
			cost = ascii_fold((unsigned char)a[i - 1]) !=
			       ascii_fold((unsigned char)b[j - 1]);
			d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (prev[j - 1] + cost < d)
				d = prev[j - 1] + cost;
			if (swaps && i > 1 && j > 1 &&
			    ascii_fold((unsigned char)a[i - 1]) ==
			    ascii_fold((unsigned char)b[j - 2]) &&
			    ascii_fold((unsigned char)a[i - 2]) ==
			    ascii_fold((unsigned char)b[j - 1]) &&
			    prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[nb];
}
