/*
 * simsort.c - see simsort.h.
 */
#include "simsort.h"

#include <stdlib.h>
#include <string.h>

/* 11-bit digits: 2048 buckets stay in the cache while a pass scatters. */
#define SIMSORT_BITS 11
#define SIMSORT_DIGITS 6
#define SIMSORT_RADIX (1 << SIMSORT_BITS)
#define SIMSORT_MASK (SIMSORT_RADIX - 1)

/* A double's bits as an unsigned key in the same order. */
static uint64_t simsort_key(double x)
{
	uint64_t u;

	memcpy(&u, &x, sizeof(u));
	return u >> 63 ? ~u : u | (1ULL << 63);
}

static double simsort_unkey(uint64_t u)
{
	double x;

	u = u >> 63 ? u & ~(1ULL << 63) : ~u;
	memcpy(&x, &u, sizeof(x));
	return x;
}

struct simsort_item {
	uint64_t k;
	uint32_t i;
};

/* Stable LSD passes over a[0..n), tmp as scratch; the result in a. */
static void simsort_items(struct simsort_item *a, struct simsort_item *tmp,
			  size_t n, size_t *count)
{
	struct simsort_item *src = a, *dst = tmp, *t;
	int d;

	for (d = 0; d < SIMSORT_DIGITS; d++) {
		int shift = SIMSORT_BITS * d;
		size_t i, sum = 0;

		memset(count, 0, SIMSORT_RADIX * sizeof(*count));
		for (i = 0; i < n; i++)
			count[(src[i].k >> shift) & SIMSORT_MASK]++;
		if (count[(src[0].k >> shift) & SIMSORT_MASK] == n)
			continue;       /* every key has this digit */
		for (i = 0; i < SIMSORT_RADIX; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[(src[i].k >> shift) & SIMSORT_MASK]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

static int simsort_cmp_item(const void *a, const void *b)
{
	const struct simsort_item *x = a, *y = b;

	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Items of key[0..n) sorted by (key, index). */
static struct simsort_item *simsort_sorted(const double *key, size_t n)
{
	struct simsort_item *a = malloc(n * sizeof(*a)), *tmp = NULL;
	size_t *count = NULL, i;

	if (!a)
		return NULL;
	for (i = 0; i < n; i++) {
		a[i].k = simsort_key(key[i]);
		a[i].i = (uint32_t)i;
	}
	if (n < SIMSORT_SMALL) {
		qsort(a, n, sizeof(*a), simsort_cmp_item);
		return a;
	}
	tmp = malloc(n * sizeof(*tmp));
	count = malloc(SIMSORT_RADIX * sizeof(*count));
	if (!tmp || !count) {
		free(a);
		a = NULL;
	} else {
		simsort_items(a, tmp, n, count);
	}
	free(tmp);
	free(count);
	return a;
}

int simsort_order(const double *key, size_t n, uint32_t *perm)
{
	struct simsort_item *a;
	size_t i;

	if (n == 0)
		return 0;
	a = simsort_sorted(key, n);
	if (!a)
		return -1;
	for (i = 0; i < n; i++)
		perm[i] = a[i].i;
	free(a);
	return 0;
}

int simsort_doubles(double *v, size_t n)
{
	struct simsort_item *a;
	size_t i;

	if (n == 0)
		return 0;
	a = simsort_sorted(v, n);
	if (!a)
		return -1;
	for (i = 0; i < n; i++)
		v[i] = simsort_unkey(a[i].k);
	free(a);
	return 0;
}
