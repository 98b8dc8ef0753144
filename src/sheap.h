/*
 * sheap.h - the stream scheduler's queue: an intrusive binary min-heap of
 * nodes keyed by due time.
 *
 * rpc.c keeps one node per group of StreamIsActive streams (streams of the
 * same trigger share one evaluation) so that the completion-queue thread
 * finds the next due group in O(1) and re-schedules it in O(log n), never
 * walking every stream.  A node lives inside the caller's struct and knows
 * its own position, so it can be removed or moved without a search.  Ties
 * come out in push order, so a run is deterministic.  The heap owns only
 * its array of pointers, which grows by doubling up to SHEAP_MAX nodes.
 * No locks, no I/O: one thread owns a heap.
 */
#ifndef STAFFER_SHEAP_H
#define STAFFER_SHEAP_H

#include <stddef.h>
#include <stdint.h>

#define SHEAP_MAX (1u << 24)     /* nodes at once */
#define SHEAP_NONE ((size_t)-1)  /* sheap_node.idx of a node not queued */

struct sheap_node {
	double due;       /* when, seconds (the caller's clock) */
	uint64_t seq;     /* push order, breaks ties */
	size_t idx;       /* position in the heap; SHEAP_NONE: not in it */
};

struct sheap {
	struct sheap_node **v;
	size_t n, cap;
	uint64_t seq;
};

void sheap_init(struct sheap *h);

/* Free the array (the nodes are the caller's). */
void sheap_free(struct sheap *h);

/* Mark a node as not queued (do this once before its first push). */
void sheap_node_init(struct sheap_node *x);

/* Queue x due at `due`, or move it there if it is queued already.  0; -1
 * when out of memory or full (x is then unchanged and not queued anew). */
int sheap_push(struct sheap *h, struct sheap_node *x, double due);

/* The earliest node, or NULL when empty.  Stays queued. */
struct sheap_node *sheap_peek(const struct sheap *h);

/* Remove and return the earliest node, or NULL when empty. */
struct sheap_node *sheap_pop(struct sheap *h);

/* Remove x if it is queued; a no-op otherwise. */
void sheap_remove(struct sheap *h, struct sheap_node *x);

static inline int sheap_queued(const struct sheap_node *x)
{
	return x->idx != SHEAP_NONE;
}

#endif
