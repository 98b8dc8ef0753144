/*
 * budget.c - see budget.h.
 *
 * The callers holding bytes are kept in a small hash table, an entry
 * existing only while its caller holds bytes: their number is bounded by
 * the calls in flight, whatever number of callers there are over time.
 */
#include "budget.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BUDGET_BUCKETS 256

struct holder {
	struct holder *next;
	size_t bytes;
	char caller[];
};

struct budget {
	pthread_mutex_t mu;
	size_t limit, used, callers;
	unsigned long long refused;
	struct holder *buckets[BUDGET_BUCKETS];
};

struct budget *budget_new(size_t limit)
{
	struct budget *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	pthread_mutex_init(&b->mu, NULL);
	b->limit = limit ? limit : 1;
	return b;
}

void budget_free(struct budget *b)
{
	struct holder *h;
	size_t i;

	if (!b)
		return;
	for (i = 0; i < BUDGET_BUCKETS; i++)
		while ((h = b->buckets[i]) != NULL) {
			b->buckets[i] = h->next;
			free(h);
		}
	pthread_mutex_destroy(&b->mu);
	free(b);
}

size_t budget_cost(size_t len)
{
	return len > (SIZE_MAX - BUDGET_CALL_COST) / 2 ? SIZE_MAX :
	       2 * len + BUDGET_CALL_COST;
}

size_t budget_for_limit(size_t mem)
{
	size_t b = mem ? mem / BUDGET_SHARE : BUDGET_DEFAULT;

	return b < BUDGET_MIN ? BUDGET_MIN : b;
}

size_t budget_quota(size_t b)
{
	return b > SIZE_MAX / BUDGET_QUOTA_FACTOR ? SIZE_MAX :
	       b * BUDGET_QUOTA_FACTOR;
}

static struct holder **holder_slot(struct budget *b, const char *caller)
{
	uint32_t h = 2166136261u;
	const char *p;
	struct holder **pp;

	for (p = caller; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	pp = &b->buckets[h % BUDGET_BUCKETS];
	while (*pp && strcmp((*pp)->caller, caller))
		pp = &(*pp)->next;
	return pp;
}

int budget_take(struct budget *b, const char *caller, size_t n)
{
	struct holder **pp, *h;
	size_t len;
	int rc = -1;

	if (!caller)
		caller = "";
	pthread_mutex_lock(&b->mu);
	pp = holder_slot(b, caller);
	h = *pp;
	if (n > b->limit - b->used ||
	    (h ? h->bytes : 0) + n > b->limit / 2)
		goto out;
	if (!h) {
		len = strlen(caller);
		h = calloc(1, sizeof(*h) + len + 1);
		if (!h)
			goto out;
		memcpy(h->caller, caller, len + 1);
		*pp = h;
		b->callers++;
	}
	h->bytes += n;
	b->used += n;
	rc = 0;
out:
	if (rc)
		b->refused++;
	pthread_mutex_unlock(&b->mu);
	return rc;
}

void budget_give(struct budget *b, const char *caller, size_t n)
{
	struct holder **pp, *h;

	if (!caller)
		caller = "";
	pthread_mutex_lock(&b->mu);
	pp = holder_slot(b, caller);
	h = *pp;
	if (h) {
		if (n > h->bytes)
			n = h->bytes;
		h->bytes -= n;
		b->used -= n;
		if (!h->bytes) {
			*pp = h->next;
			free(h);
			b->callers--;
		}
	}
	pthread_mutex_unlock(&b->mu);
}

void budget_get_stats(struct budget *b, struct budget_stats *out)
{
	pthread_mutex_lock(&b->mu);
	out->limit = b->limit;
	out->used = b->used;
	out->callers = b->callers;
	out->refused = b->refused;
	pthread_mutex_unlock(&b->mu);
}
