/*
 * stab.c - see stab.h.
 *
 * Two hash tables (entries by key; groups by name, a group being an owner
 * or an (owner, namespace) named "owner\nnamespace") with chaining, and
 * four doubly linked recency lists (stab.h's STAB_L_*): all entries, each
 * (owner, namespace)'s, each owner's, and the new entries'.  Every
 * operation is O(1) but the hash chains.
 */
#include "stab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STAB_BUCKETS 16384       /* entries; a chain of ~6 at 100000 */
#define STAB_GROUP_BUCKETS 1024

struct stab_list {
	struct stab_node *head, *tail;   /* most recent first */
	size_t n;
};

/* An owner, or an (owner, namespace): its entries, and its new ones, by
 * recency. */
struct stab_group {
	struct stab_group *hnext;
	struct stab_list list, fresh;
	char name[];
};

struct stab {
	size_t node_size;
	struct stab_list all, fresh;     /* every entry; the new ones */
	struct stab_node *buckets[STAB_BUCKETS];
	struct stab_group *groups[STAB_GROUP_BUCKETS];
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

static void list_unlink(struct stab_list *L, struct stab_node *n, int i)
{
	struct stab_link *k = &n->l[i];

	if (k->prev)
		k->prev->l[i].next = k->next;
	else
		L->head = k->next;
	if (k->next)
		k->next->l[i].prev = k->prev;
	else
		L->tail = k->prev;
	k->prev = k->next = NULL;
	L->n--;
}

static void list_push(struct stab_list *L, struct stab_node *n, int i)
{
	struct stab_link *k = &n->l[i];

	k->prev = NULL;
	k->next = L->head;
	if (L->head)
		L->head->l[i].prev = n;
	L->head = n;
	if (!L->tail)
		L->tail = n;
	L->n++;
}

/* The lists n is on, in list index order. */
static void node_lists(struct stab *t, struct stab_node *n,
		       struct stab_list *ls[STAB_LISTS])
{
	ls[STAB_L_ALL] = &t->all;
	ls[STAB_L_NS] = &n->grp->list;
	ls[STAB_L_OWNER] = &n->own->list;
	ls[STAB_L_NEW] = n->regular ? NULL : &t->fresh;
	ls[STAB_L_NS_NEW] = n->regular ? NULL : &n->grp->fresh;
	ls[STAB_L_OWNER_NEW] = n->regular ? NULL : &n->own->fresh;
}

static void node_unlink(struct stab *t, struct stab_node *n)
{
	struct stab_list *ls[STAB_LISTS];
	int i;

	node_lists(t, n, ls);
	for (i = 0; i < STAB_LISTS; i++)
		if (ls[i])
			list_unlink(ls[i], n, i);
}

static void node_push(struct stab *t, struct stab_node *n)
{
	struct stab_list *ls[STAB_LISTS];
	int i;

	node_lists(t, n, ls);
	for (i = 0; i < STAB_LISTS; i++)
		if (ls[i])
			list_push(ls[i], n, i);
}

/* ---- groups ------------------------------------------------------------------ */

/* "owner" or "owner\nns" into buf (newlines in owner made '?'); its
 * length, or 0 when it does not fit. */
static size_t group_name(char *buf, size_t size, const char *owner,
			 const char *ns)
{
	size_t n = 0, i;

	for (i = 0; owner[i]; i++) {
		if (n + 1 >= size)
			return 0;
		buf[n++] = owner[i] == '\n' ? '?' : owner[i];
	}
	if (ns) {
		size_t l = strlen(ns);

		if (n + l + 2 > size)
			return 0;
		buf[n++] = '\n';
		memcpy(buf + n, ns, l);
		n += l;
	}
	buf[n] = '\0';
	return n;
}

static struct stab_group **group_slot(struct stab *t, const char *name)
{
	struct stab_group **pp =
		&t->groups[stab_hash(name) % STAB_GROUP_BUCKETS];

	while (*pp && strcmp((*pp)->name, name))
		pp = &(*pp)->hnext;
	return pp;
}

static struct stab_group *group_get(struct stab *t, const char *name,
				    int create)
{
	struct stab_group **pp = group_slot(t, name);
	size_t len;

	if (*pp || !create)
		return *pp;
	len = strlen(name);
	*pp = calloc(1, sizeof(**pp) + len + 1);
	if (*pp)
		memcpy((*pp)->name, name, len + 1);
	return *pp;
}

static void group_maybe_free(struct stab *t, struct stab_group *g)
{
	struct stab_group **pp;

	if (g->list.n)
		return;
	pp = group_slot(t, g->name);
	if (*pp == g)
		*pp = g->hnext;
	free(g);
}

/* A group's entry count by its name parts; 0 when absent. */
static size_t group_count(const struct stab *t, const char *owner,
			  const char *ns)
{
	char name[1024];
	struct stab_group *g;

	if (!group_name(name, sizeof(name), owner, ns))
		return 0;
	g = group_get((struct stab *)t, name, 0);
	return g ? g->list.n : 0;
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
	struct stab_group *g = n->grp, *o = n->own;

	if (*pp == n)
		*pp = n->hnext;
	node_unlink(t, n);
	group_maybe_free(t, g);
	group_maybe_free(t, o);
	free(n);
}

void stab_promote(struct stab *t, struct stab_node *n)
{
	if (n->regular)
		return;
	list_unlink(&t->fresh, n, STAB_L_NEW);
	list_unlink(&n->grp->fresh, n, STAB_L_NS_NEW);
	list_unlink(&n->own->fresh, n, STAB_L_OWNER_NEW);
	n->regular = 1;
}

struct stab_node *stab_get(struct stab *t, const char *key, double now)
{
	struct stab_node *n = *node_slot(t, key);

	if (!n)
		return NULL;
	if (!n->regular && now - n->born >= STAB_REGULAR_S)
		stab_promote(t, n);
	if (t->all.head != n) {
		node_unlink(t, n);
		node_push(t, n);
	}
	return n;
}

/* The entry of all (fresh: its new ones) to evict: the least recently
 * used new one, else the least recently used. */
static struct stab_node *victim(const struct stab_list *all,
				const struct stab_list *fresh)
{
	return fresh->tail ? fresh->tail : all->tail;
}

/* Make room for one entry of (owner o, group g) as stab.h says: 1 when
 * an entry was evicted. */
static int make_room(struct stab *t, struct stab_group *g,
		     struct stab_group *o, const struct stab_limits *lim)
{
	size_t max = lim->max ? lim->max : 1;
	size_t max_owner = lim->max_owner ? lim->max_owner : 1;
	size_t max_ns = lim->max_ns ? lim->max_ns : 1;

	if (g && g->list.n >= max_ns) {
		stab_del(t, victim(&g->list, &g->fresh));
		return 1;
	}
	if (o && o->list.n >= max_owner) {
		stab_del(t, victim(&o->list, &o->fresh));
		return 1;
	}
	if (t->all.n >= max && t->all.tail) {
		stab_del(t, victim(&t->all, &t->fresh));
		return 1;
	}
	return 0;
}

struct stab_node *stab_put(struct stab *t, const char *key, const char *owner,
			   const char *ns, const struct stab_limits *lim,
			   double now, int *evicted)
{
	char gname[1024], oname[1024];
	struct stab_node *n = stab_get(t, key, now);
	struct stab_group *g, *o;
	size_t klen;
	int ev = 0;

	if (n)
		goto out;
	if (!group_name(gname, sizeof(gname), owner, ns) ||
	    !group_name(oname, sizeof(oname), owner, NULL))
		goto out;
	/* Room first, with the groups as they are (an absent one is
	 * empty); the eviction may free a group, so they are made after. */
	ev = make_room(t, group_get(t, gname, 0), group_get(t, oname, 0),
		       lim);
	g = group_get(t, gname, 1);
	o = g ? group_get(t, oname, 1) : NULL;
	/* the key in the same block, after the caller's struct: one
	 * allocation per trigger instead of two (stab.h) */
	klen = strlen(key);
	n = o ? calloc(1, t->node_size + klen + 1) : NULL;
	if (!n) {
		if (g)
			group_maybe_free(t, g);
		if (o)
			group_maybe_free(t, o);
		goto out;
	}
	n->key = (char *)n + t->node_size;
	memcpy(n->key, key, klen + 1);
	n->grp = g;
	n->own = o;
	n->ns = strchr(g->name, '\n') + 1;
	n->owner = o->name;
	n->born = now;
	*node_slot(t, key) = n;
	node_push(t, n);
out:
	if (evicted)
		*evicted = ev;
	return n;
}

void stab_free(struct stab *t)
{
	if (!t)
		return;
	while (t->all.tail)
		stab_del(t, t->all.tail);
	free(t);
}

size_t stab_count(const struct stab *t)
{
	return t->all.n;
}

size_t stab_count_new(const struct stab *t)
{
	return t->fresh.n;
}

size_t stab_count_owner(const struct stab *t, const char *owner)
{
	return group_count(t, owner, NULL);
}

size_t stab_count_ns(const struct stab *t, const char *owner, const char *ns)
{
	return group_count(t, owner, ns);
}

struct stab_node *stab_oldest(const struct stab *t)
{
	return t->all.tail;
}

struct stab_node *stab_newer(const struct stab_node *n)
{
	return n->l[STAB_L_ALL].prev;
}
