/*
 * simheap.h - the simulator's event queue: a binary min-heap of timed
 * events.
 *
 * Events are ordered by time, then by the order they were pushed, so two
 * events at the same instant always come out in the same order and a run
 * is deterministic.  The heap owns its array; it grows by doubling up to
 * SIMHEAP_MAX events.  No I/O, no globals.
 */
#ifndef STAFFER_SIMHEAP_H
#define STAFFER_SIMHEAP_H

#include <stddef.h>
#include <stdint.h>

#define SIMHEAP_MAX (1u << 26) /* events at once; far beyond any fleet */

struct simev {
	double t;       /* when, seconds */
	uint64_t seq;   /* push order, breaks ties */
	int type;       /* caller's event kind */
	uint32_t arg;   /* caller's argument (e.g. a replica index) */
};

struct simheap {
	struct simev *ev;
	size_t n, cap;
	uint64_t seq;
};

void simheap_init(struct simheap *h);
void simheap_free(struct simheap *h);

/* Add an event.  0 on success; -1 when out of memory or full (the heap
 * is unchanged then). */
int simheap_push(struct simheap *h, double t, int type, uint32_t arg);

/* Remove the earliest event into *out.  0 on success, -1 when empty. */
int simheap_pop(struct simheap *h, struct simev *out);

/* The earliest event, or NULL when empty.  Valid until the next push or
 * pop. */
const struct simev *simheap_peek(const struct simheap *h);

#endif
