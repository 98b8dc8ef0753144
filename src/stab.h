/*
 * stab.h - the scaler's state table: entries by key, with quotas per
 * caller and per (caller, namespace), regularly asked entries kept ahead
 * of new ones.
 *
 * Every trigger the scaler has answered keeps an entry (its smoothing and
 * hold state, scaler.c).  The table never refuses a new entry: when it is
 * full it evicts, so that a real new trigger always gets its hold and
 * smoothing however many entries someone else made.  An entry belongs to
 * the caller that made it (its owner: the mTLS identity or the address
 * that called, rpc.c) and to a namespace within that caller; the key
 * alone finds it, whoever asks.
 *
 * An entry is new until it is asked for again at least STAB_REGULAR_S
 * after it was made; then it is regular (KEDA asks every trigger every
 * 15-30 s, so its triggers become regular at their second cycle, while
 * entries made in a burst and never asked again stay new).  Which entry
 * goes when a new one needs room:
 *  - a (caller, namespace) at its quota (max_ns) loses its own least
 *    recently used entry, and a caller at its quota (max_owner) its own:
 *    one caller cannot push out another's entries by making up
 *    namespaces, nor claim a victim's namespace to push out its entries;
 *  - otherwise, when the table holds max entries, the least recently used
 *    entry of all goes;
 * and each time a new entry before a regular one (the least recently used
 * new one of that group, or of all): a burst of made-up triggers evicts
 * its own kind, not the triggers KEDA polls, even from KEDA's address.
 *
 * An entry is a caller's struct whose first member is a struct stab_node;
 * the table allocates it zeroed (node_size bytes, its key copied right
 * after them in the same block) and frees it.  Not thread-safe: the
 * scaler uses it under its own lock.
 */
#ifndef STAFFER_STAB_H
#define STAFFER_STAB_H

#include <stddef.h>

#define STAB_REGULAR_S 5.0   /* asked again this long after: regular */

struct stab_group;

/* The recency lists an entry is on, most recent first: all entries, its
 * (owner, namespace)'s and its owner's, and while it is new the new
 * entries' of each of these. */
enum {
	STAB_L_ALL, STAB_L_NS, STAB_L_OWNER,
	STAB_L_NEW, STAB_L_NS_NEW, STAB_L_OWNER_NEW,
	STAB_LISTS
};

struct stab_link {
	struct stab_node *prev, *next;
};

/* The head of an entry.  key, ns, owner and regular are read-only for the
 * caller. */
struct stab_node {
	struct stab_node *hnext;            /* hash chain */
	struct stab_link l[STAB_LISTS];
	struct stab_group *grp, *own;       /* (owner, namespace), owner */
	char *key;                          /* unique */
	const char *ns;                     /* its namespace's name */
	const char *owner;                  /* its owner's */
	double born;                        /* when made (the caller's clock) */
	int regular;
};

/* How many entries the table holds (each >= 1). */
struct stab_limits {
	size_t max;          /* in all */
	size_t max_owner;    /* of one owner (caller) */
	size_t max_ns;       /* of one (owner, namespace) */
};

struct stab;

/* A table of entries of node_size bytes (>= sizeof(struct stab_node)).
 * NULL when out of memory. */
struct stab *stab_new(size_t node_size);

/* Free the table and every entry.  NULL is fine. */
void stab_free(struct stab *t);

/* The entry for key, made the most recently used (and regular when it was
 * made at least STAB_REGULAR_S before now); NULL if absent. */
struct stab_node *stab_get(struct stab *t, const char *key, double now);

/*
 * The entry for key (as stab_get()), created new for owner and namespace
 * ns when absent, evicting as the file comment says (*lim; at most one
 * entry).  *evicted (may be NULL) is set to the number of entries evicted
 * (0 or 1).  NULL only when out of memory.  An existing entry keeps the
 * owner and namespace it was created with.  owner must not hold a
 * newline (one is read as '?').
 */
struct stab_node *stab_put(struct stab *t, const char *key, const char *owner,
			   const char *ns, const struct stab_limits *lim,
			   double now, int *evicted);

/* Make n regular now (a state restored from a file was asked for before
 * it was saved). */
void stab_promote(struct stab *t, struct stab_node *n);

/* Remove and free one entry. */
void stab_del(struct stab *t, struct stab_node *n);

/* Entries in all, new ones, of owner, and of (owner, namespace ns). */
size_t stab_count(const struct stab *t);
size_t stab_count_new(const struct stab *t);
size_t stab_count_owner(const struct stab *t, const char *owner);
size_t stab_count_ns(const struct stab *t, const char *owner, const char *ns);

/* The least recently used entry, and the next more recent one: for
 * sweeps (an entry may be deleted once the next one is taken) and saves. */
struct stab_node *stab_oldest(const struct stab *t);
struct stab_node *stab_newer(const struct stab_node *n);

#endif
