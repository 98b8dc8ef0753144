/* mcache.c - see mcache.h. */
#include "mcache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MCACHE_BUCKETS 1024

struct mentry {
	struct mentry *hnext;          /* bucket chain */
	struct mentry *newer, *older;  /* recency list */
	uint32_t hash;
	size_t n;                      /* pairs in the map */
	size_t len;                    /* bytes of map */
	char *map;                     /* key NUL value NUL ..., n pairs */
	char fprint[FPRINT_HEX + 1];
	struct meta m;
};

struct mcache {
	struct mentry *b[MCACHE_BUCKETS];
	struct mentry *newest, *oldest;
	size_t count, max;
};

struct mcache *mcache_new(size_t max)
{
	struct mcache *c = calloc(1, sizeof(*c));

	if (c)
		c->max = max ? max : 1;
	return c;
}

static void mentry_free(struct mentry *e)
{
	meta_release(&e->m);
	free(e->map);
	free(e);
}

void mcache_free(struct mcache *c)
{
	struct mentry *e, *older;

	if (!c)
		return;
	for (e = c->newest; e; e = older) {
		older = e->older;
		mentry_free(e);
	}
	free(c);
}

size_t mcache_count(const struct mcache *c)
{
	return c->count;
}

/* FNV-1a over the map, each string with its NUL, so that pairs cannot run
 * into each other. */
static uint32_t mcache_hash(const char *const *keys,
			    const char *const *values, size_t n, size_t *len)
{
	uint32_t h = 2166136261u;
	size_t i, total = 0;
	const char *p;

	for (i = 0; i < 2 * n; i++) {
		p = i % 2 ? values[i / 2] : keys[i / 2];
		for (;; p++, total++) {
			h = (h ^ (unsigned char)*p) * 16777619u;
			if (!*p)
				break;
		}
		total++;
	}
	*len = total;
	return h;
}

static int mentry_matches(const struct mentry *e, const char *const *keys,
			  const char *const *values, size_t n, uint32_t h,
			  size_t len)
{
	const char *p = e->map;
	size_t i, l;

	if (e->hash != h || e->n != n || e->len != len)
		return 0;
	for (i = 0; i < 2 * n; i++) {
		const char *s = i % 2 ? values[i / 2] : keys[i / 2];

		l = strlen(s) + 1;
		if (memcmp(p, s, l))
			return 0;
		p += l;
	}
	return 1;
}

static void lru_unlink(struct mcache *c, struct mentry *e)
{
	if (e->newer)
		e->newer->older = e->older;
	else
		c->newest = e->older;
	if (e->older)
		e->older->newer = e->newer;
	else
		c->oldest = e->newer;
	e->newer = e->older = NULL;
}

static void lru_push(struct mcache *c, struct mentry *e)
{
	e->older = c->newest;
	e->newer = NULL;
	if (c->newest)
		c->newest->newer = e;
	c->newest = e;
	if (!c->oldest)
		c->oldest = e;
}

static void mcache_del(struct mcache *c, struct mentry *e)
{
	struct mentry **pp = &c->b[e->hash % MCACHE_BUCKETS];

	while (*pp && *pp != e)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = e->hnext;
	lru_unlink(c, e);
	c->count--;
	mentry_free(e);
}

const struct meta *mcache_get(struct mcache *c, const char *const *keys,
			      const char *const *values, size_t n,
			      char fprint[FPRINT_HEX + 1])
{
	size_t len;
	uint32_t h = mcache_hash(keys, values, n, &len);
	struct mentry *e;

	for (e = c->b[h % MCACHE_BUCKETS]; e; e = e->hnext)
		if (mentry_matches(e, keys, values, n, h, len))
			break;
	if (!e)
		return NULL;
	if (c->newest != e) {
		lru_unlink(c, e);
		lru_push(c, e);
	}
	memcpy(fprint, e->fprint, FPRINT_HEX + 1);
	return &e->m;
}

int mcache_put(struct mcache *c, const char *const *keys,
	       const char *const *values, size_t n, const struct meta *m,
	       const char *fp)
{
	size_t len, i, l;
	uint32_t h = mcache_hash(keys, values, n, &len);
	struct mentry *e;
	char *p;

	if (len > MCACHE_MAP_MAX || strlen(fp) != FPRINT_HEX)
		return -1;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -1;
	e->map = malloc(len ? len : 1);
	if (!e->map || meta_copy(&e->m, m)) {
		free(e->map);
		free(e);
		return -1;
	}
	for (p = e->map, i = 0; i < 2 * n; i++) {
		const char *s = i % 2 ? values[i / 2] : keys[i / 2];

		l = strlen(s) + 1;
		memcpy(p, s, l);
		p += l;
	}
	e->hash = h;
	e->n = n;
	e->len = len;
	memcpy(e->fprint, fp, FPRINT_HEX + 1);
	while (c->count >= c->max && c->oldest)
		mcache_del(c, c->oldest);
	e->hnext = c->b[h % MCACHE_BUCKETS];
	c->b[h % MCACHE_BUCKETS] = e;
	lru_push(c, e);
	c->count++;
	return 0;
}
