/*
 * simpool.h - the replicas of a simulated pool (sim.h's fleet, split.h's
 * two pools): the table they live in, their states and counts,
 * spec.replicas, their cold starts and the replica-seconds they cost.
 *
 * A replica is created ready (the warm start) or starting; a starting
 * one is ready its cold start later (simcold.h: the k-th replica created
 * starting takes the k-th draw), when the caller's event for it calls
 * simpool_ready.  Scale-down removes the newest starting replica (gone
 * at once), else puts the newest ready one to drain; the caller ends a
 * draining replica (simpool_gone) once it holds no work.  A replica
 * costs replica-seconds from its creation to its end, inside [start_s,
 * end_s].
 *
 * A gone replica's slot is reused by the next one created (the lowest
 * first), so the table is as long as the most replicas alive at once.
 * What the caller keeps per replica (its work) is `data`: cfg.size bytes
 * a slot at the same index, zeroed when the slot is first made, left as
 * the last replica left it when the slot is reused.  The pool owns both
 * arrays and its cold starts: simpool_free frees them (and is harmless
 * on a zeroed struct).  No I/O, no globals.
 */
#ifndef STAFFER_SIMPOOL_H
#define STAFFER_SIMPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "simcold.h"

enum simpool_state {
	SIMPOOL_STARTING = 0,
	SIMPOOL_READY,
	SIMPOOL_DRAINING,     /* takes no new work; gone once empty */
	SIMPOOL_GONE,         /* its slot is free */
};

struct simpool_rep {
	double created, ready_at;
	int state;            /* enum simpool_state */
};

struct simpool_config {
	size_t size;          /* the caller's bytes a replica, > 0 */
	size_t first, max;    /* the table's first length; its most */
	double end_s;         /* the accounting horizon */
	double cold_start_s;  /* simcold_get's median ... */
	double cold_start_cv; /* ... and coefficient of variation */
	uint64_t cold_seed;   /* the cold starts' stream */
	double start_s;       /* the accounting's start (0: the start) */
};

struct simpool {
	struct simpool_config cfg;
	struct simpool_rep *rep;    /* nrep slots in use, gone ones too */
	void *data;                 /* cfg.size bytes a slot, as many */
	size_t nrep, cap;
	int32_t spec, n_starting, n_ready, n_draining, peak;
	uint64_t scale_events;      /* changes of spec */
	double replica_s;           /* of the replicas gone */
	struct simcold cold;
	size_t made;                /* replicas created starting so far */
};

void simpool_init(struct simpool *p, const struct simpool_config *c);
void simpool_free(struct simpool *p);

/* The cold start of the k-th replica still to be created starting (k
 * from 0: the next).  0 with *out set; -1 when out of memory. */
int simpool_cold(struct simpool *p, size_t k, double *out);

/* A new replica at now, ready at once or starting (its cold start
 * drawn; the caller schedules its ready event at rep[r].ready_at).  Its
 * slot, or -1 when out of memory or cfg.max slots are in use (the pool
 * is then still consistent, to be freed). */
long simpool_add(struct simpool *p, double now, int ready);

/* The ready event of slot r at now: 1 when it made r ready; 0 when it is
 * stale (that replica was removed while starting, its slot maybe taken
 * by a later one). */
int simpool_ready(struct simpool *p, size_t r, double now);

/* Scale-down by one replica at now: the newest starting one is gone
 * (-1); else the newest ready one drains and its slot is returned, for
 * the caller to take its work away and end it once empty; -1 when none
 * is starting or ready. */
long simpool_drain(struct simpool *p, double now);

/* The starting or draining replica in slot r is gone at now. */
void simpool_gone(struct simpool *p, size_t r, double now);

/* spec.replicas to target (below 0: 0): how many replicas the caller
 * creates (> 0) or drains (< 0) to get there from those starting and
 * ready; 0 when target is the spec already.  A change is a scale event
 * and may be the peak. */
int32_t simpool_scale(struct simpool *p, int32_t target);

/* Seconds of [from, to] inside [start_s, end_s]. */
double simpool_overlap(const struct simpool *p, double from, double to);

/* The replica-seconds over [start_s, end_s]: the gone replicas' and the
 * rest's from their creation to end_s. */
double simpool_replica_s(const struct simpool *p);

#endif
