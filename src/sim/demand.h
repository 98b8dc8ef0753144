/*
 * demand.h - the trace's ideal concurrency: how many slots would be busy
 * if every request started the moment it arrived.
 *
 * c(t) = number of requests i with arrival_i <= t < arrival_i + service_i.
 * Kept as the maximum of c over each bucket of `step` seconds (1 s, or
 * coarser for very long traces so that there are at most DEMAND_BUCKETS_MAX
 * buckets).  The clairvoyant oracle staffs from it, the timeseries plots
 * it as "demand", and the simulator derives its warm start from it.
 * Built once per trace; read-only afterwards, so runs can share it.
 */
#ifndef STAFFER_DEMAND_H
#define STAFFER_DEMAND_H

#include <stddef.h>
#include <stdint.h>

#include "trace.h"

#define DEMAND_BUCKETS_MAX 20000000u
#define DEMAND_BLOCK 64

struct demand {
	double step_s;
	uint32_t *maxc;      /* per bucket */
	uint32_t *blockmax;  /* per DEMAND_BLOCK buckets */
	size_t n, nblocks;
};

void demand_init(struct demand *d);
/* 0, or -1 with err (out of memory, empty trace). */
int demand_build(struct demand *d, const struct trace *t, char *err,
		 size_t errlen);
void demand_free(struct demand *d);

/* The largest c(t) for t in [from, to] (bucket resolution, so at least
 * the true maximum).  0 outside the trace. */
uint32_t demand_max(const struct demand *d, double from, double to);

#endif
