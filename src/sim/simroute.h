/*
 * simroute.h - the simulator's request queues: FIFO lists of request
 * indices threaded through one pair of link arrays.
 *
 * The gateway's queue and every replica's own queue are struct simq
 * lists over the same struct simq_links (one next/prev entry per request
 * of the trace).  A request is in at most one list at a time, so the
 * links cost 8 bytes per request whatever the number of queues, and a
 * request leaves any list in O(1) when it starts, is shed (its timeout
 * does not wait for it to reach the head) or is re-routed.
 *
 * The caller says which list a request is in; nothing here checks it.
 * simq_links owns its arrays; a simq is plain data.
 *
 * struct simll picks the least-loaded replica: a binary min-heap of
 * replica ids ordered by (load, born) with each id's heap position, so
 * the pick is O(1) and a load change or a replica coming or going
 * O(log replicas), instead of a scan of the fleet per request.  born is
 * unique, so the order is total and the pick the same as a scan's: the
 * fewest requests, ties to the oldest.  It owns its arrays.  No I/O.
 */
#ifndef STAFFER_SIMROUTE_H
#define STAFFER_SIMROUTE_H

#include <stddef.h>
#include <stdint.h>

#define SIMQ_NIL UINT32_MAX   /* no request: an empty list's ends */

struct simq_links {
	uint32_t *next, *prev;
	size_t n;               /* request indices 0 .. n - 1 */
};

struct simq {
	uint32_t head, tail;    /* SIMQ_NIL when empty */
	uint32_t len;
};

/* Links for n requests (n < SIMQ_NIL).  0, or -1 when out of memory
 * (then l holds nothing to free, but simq_links_free is harmless). */
int simq_links_init(struct simq_links *l, size_t n);
void simq_links_free(struct simq_links *l);

void simq_init(struct simq *q);

/* Append request i (in no list) at the tail. */
void simq_push(struct simq_links *l, struct simq *q, uint32_t i);

/* Remove and return the head, or SIMQ_NIL when q is empty. */
uint32_t simq_pop(struct simq_links *l, struct simq *q);

/* Remove request i, which is in q, from wherever it stands. */
void simq_unlink(struct simq_links *l, struct simq *q, uint32_t i);

#define SIMLL_NONE UINT32_MAX

struct simll_ent {
	uint64_t load, born;
	uint32_t id;
};

struct simll {
	struct simll_ent *h;    /* the heap, h[0] the least loaded */
	uint32_t *pos;          /* heap index of each id in it */
	size_t n, cap;          /* in the heap; ids 0 .. cap - 1 allowed */
};

void simll_init(struct simll *l);
void simll_free(struct simll *l);

/* Allow ids below `ids` (< SIMLL_NONE).  0, or -1 when out of memory
 * (l unchanged). */
int simll_reserve(struct simll *l, size_t ids);

/* Add id (not in the heap, below the reserved bound). */
void simll_add(struct simll *l, uint32_t id, uint64_t load, uint64_t born);

/* Remove id, which is in the heap. */
void simll_del(struct simll *l, uint32_t id);

/* Set the load of id, which is in the heap. */
void simll_set(struct simll *l, uint32_t id, uint64_t load);

/* The id with the least (load, born), or SIMLL_NONE when empty. */
uint32_t simll_min(const struct simll *l);

#endif
