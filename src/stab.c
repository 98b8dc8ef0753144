/*
 * stab.c - see stab.h.
 *
 * Two hash tables (entries by key, namespaces by name) with chaining, and
 * two doubly linked recency lists: all entries, and each namespace's.
 * Every operation is O(1) but the hash chains.
 */
#include "stab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STAB_BUCKETS 16384       /* entries; a chain of ~6 at 100000 */
#define STAB_NS_BUCKETS 1024

struct stab_ns {
	struct stab_ns *hnext;
	struct stab_node *head, *tail;   /* most recent first */
	size_t n;
	char name[];
};

struct stab {
	size_t node_size, n;
	struct stab_node *head, *tail;   /* most recent first */
	struct stab_node *buckets[STAB_BUCKETS];
	struct stab_ns *ns_buckets[STAB_NS_BUCKETS];
};

static uint32_t stab_hash(const char *p)
{
	uint32_t h = 2166136261u;

	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return h;
}

struct stab *stab_new(size_t node_size)
{
	struct stab *t;

	if (node_size < sizeof(struct stab_node))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (t)
		t->node_size = node_size;
	return t;
}

/* ---- recency lists ------------------------------------------------------ */

static void unlink_all(struct stab *t, struct stab_node *n)
{
	if (n->prev)
		n->prev->next = n->next;
	else
		t->head = n->next;
	if (n->next)
		n->next->prev = n->prev;
	else
		t->tail = n->prev;
	n->prev = n->next = NULL;
}

static void unlink_ns(struct stab_node *n)
{
	struct stab_ns *s = n->nsp;

	if (n->nprev)
		n->nprev->nnext = n->nnext;
	else
		s->head = n->nnext;
	if (n->nnext)
		n->nnext->nprev = n->nprev;
	else
		s->tail = n->nprev;
	n->nprev = n->nnext = NULL;
}

static void push_front(struct stab *t, struct stab_node *n)
{
	struct stab_ns *s = n->nsp;

	n->next = t->head;
	if (t->head)
		t->head->prev = n;
	t->head = n;
	if (!t->tail)
		t->tail = n;
	n->nnext = s->head;
	if (s->head)
		s->head->nprev = n;
	s->head = n;
	if (!s->tail)
		s->tail = n;
}

/* ---- namespaces ------------------------------------------------------------ */

static struct stab_ns **ns_slot(struct stab *t, const char *ns)
{
	struct stab_ns **pp = &t->ns_buckets[stab_hash(ns) % STAB_NS_BUCKETS];

	while (*pp && strcmp((*pp)->name, ns))
		pp = &(*pp)->hnext;
	return pp;
}

static struct stab_ns *ns_get(struct stab *t, const char *ns, int create)
{
	struct stab_ns **pp = ns_slot(t, ns);
	size_t len;

	if (*pp || !create)
		return *pp;
	len = strlen(ns);
	*pp = calloc(1, sizeof(**pp) + len + 1);
	if (*pp)
		memcpy((*pp)->name, ns, len + 1);
	return *pp;
}

/* ---- entries ----------------------------------------------------------------- */

static struct stab_node **node_slot(struct stab *t, const char *key)
{
	struct stab_node **pp = &t->buckets[stab_hash(key) % STAB_BUCKETS];

	while (*pp && strcmp((*pp)->key, key))
		pp = &(*pp)->hnext;
	return pp;
}

void stab_del(struct stab *t, struct stab_node *n)
{
	struct stab_node **pp = node_slot(t, n->key);
	struct stab_ns *s = n->nsp;

	if (*pp == n)
		*pp = n->hnext;
	unlink_all(t, n);
	unlink_ns(n);
	t->n--;
	if (--s->n == 0) {
		struct stab_ns **sp = ns_slot(t, s->name);

		if (*sp == s)
			*sp = s->hnext;
		free(s);
	}
	free(n);
}

struct stab_node *stab_get(struct stab *t, const char *key)
{
	struct stab_node *n = *node_slot(t, key);

	if (n && t->head != n) {
		unlink_all(t, n);
		unlink_ns(n);
		push_front(t, n);
	}
	return n;
}

struct stab_node *stab_put(struct stab *t, const char *key, const char *ns,
			   size_t max, size_t max_ns, int *evicted)
{
	struct stab_node *n = stab_get(t, key);
	struct stab_ns *s;
	size_t klen;
	int ev = 0;

	if (n)
		goto out;
	s = ns_get(t, ns, 1);
	if (!s)
		goto out;
	/* Room first: the namespace's own oldest, else the oldest of all. */
	if (max_ns < 1)
		max_ns = 1;
	if (max < 1)
		max = 1;
	if (s->n >= max_ns && s->tail) {
		stab_del(t, s->tail);
		ev = 1;
	} else if (t->n >= max && t->tail) {
		stab_del(t, t->tail);
		ev = 1;
	}
	/* the eviction may have freed an emptied s: look it up again */
	s = ns_get(t, ns, 1);
	/* the key in the same block, after the caller's struct: one
	 * allocation per trigger instead of two (stab.h) */
	klen = strlen(key);
	n = s ? calloc(1, t->node_size + klen + 1) : NULL;
	if (!n)
		goto out;
	n->key = (char *)n + t->node_size;
	memcpy(n->key, key, klen + 1);
	n->nsp = s;
	n->ns = s->name;
	s->n++;
	t->n++;
	*node_slot(t, key) = n;
	push_front(t, n);
out:
	if (evicted)
		*evicted = ev;
	return n;
}

void stab_free(struct stab *t)
{
	if (!t)
		return;
	while (t->tail)
		stab_del(t, t->tail);
	free(t);
}

size_t stab_count(const struct stab *t)
{
	return t->n;
}

size_t stab_count_ns(const struct stab *t, const char *ns)
{
	struct stab_ns *s = ns_get((struct stab *)t, ns, 0);

	return s ? s->n : 0;
}

struct stab_node *stab_oldest(const struct stab *t)
{
	return t->tail;
}

struct stab_node *stab_newer(const struct stab_node *n)
{
	return n->prev;
}
