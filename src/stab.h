/*
 * stab.h - the scaler's state table: entries by key, least recently used
 * first out, with a quota per namespace.
 *
 * Every trigger the scaler has answered keeps an entry (its smoothing and
 * hold state, scaler.c).  The table never refuses a new entry: when it is
 * full it evicts, so that a real new trigger always gets its hold and
 * smoothing however many entries someone else made.  Which entry goes:
 *  - a namespace at its quota (max_ns) loses its own least recently used
 *    entry, so one namespace cannot push out the others' entries;
 *  - otherwise, when the table holds max entries, the least recently used
 *    entry of all goes (KEDA asks every trigger every 15-30 s, so that is
 *    one nobody asks about any more).
 *
 * An entry is a caller's struct whose first member is a struct stab_node;
 * the table allocates it zeroed (node_size bytes, its key copied right
 * after them in the same block) and frees it.  Not
 * thread-safe: the scaler uses it on the fetch thread only.
 */
#ifndef STAFFER_STAB_H
#define STAFFER_STAB_H

#include <stddef.h>

struct stab_ns;

/* The head of an entry.  key and ns are read-only for the caller. */
struct stab_node {
	struct stab_node *hnext;            /* hash chain */
	struct stab_node *prev, *next;      /* all entries, most recent first */
	struct stab_node *nprev, *nnext;    /* its namespace's, likewise */
	struct stab_ns *nsp;
	char *key;                          /* unique */
	const char *ns;                     /* its namespace's name */
};

struct stab;

/* A table of entries of node_size bytes (>= sizeof(struct stab_node)).
 * NULL when out of memory. */
struct stab *stab_new(size_t node_size);

/* Free the table and every entry.  NULL is fine. */
void stab_free(struct stab *t);

/* The entry for key, made the most recently used; NULL if absent. */
struct stab_node *stab_get(struct stab *t, const char *key);

/*
 * The entry for key, created in namespace ns when absent (evicting as the
 * file comment says: at most max entries in all, max_ns in one namespace;
 * both >= 1).  Made the most recently used.  *evicted (may be NULL) is set
 * to the number of entries evicted (0 or 1).  NULL only when out of
 * memory.  An existing entry keeps the namespace it was created with.
 */
struct stab_node *stab_put(struct stab *t, const char *key, const char *ns,
			   size_t max, size_t max_ns, int *evicted);

/* Remove and free one entry. */
void stab_del(struct stab *t, struct stab_node *n);

/* Entries in all, and in namespace ns. */
size_t stab_count(const struct stab *t);
size_t stab_count_ns(const struct stab *t, const char *ns);

/* The least recently used entry, and the next more recent one: for
 * sweeps (an entry may be deleted once the next one is taken) and saves. */
struct stab_node *stab_oldest(const struct stab *t);
struct stab_node *stab_newer(const struct stab_node *n);

#endif
