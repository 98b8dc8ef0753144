/*
 * bstats.h - the fake backend's request counts (backend.h), read over
 * HTTP by the load client at the edges of a measurement window.
 *
 * Blocking libcurl calls of a millisecond or so on loopback: made only
 * between windows, or at a window's edge where the benchmark says so.
 */
#ifndef LOAD_BSTATS_H
#define LOAD_BSTATS_H

struct bstats {
	double requests;   /* since the last reset */
	double keys;       /* distinct queries ever seen */
	double used;       /* distinct queries asked since the reset */
	double max;        /* the most one query was asked since the reset */
	double slow;       /* slow requests in flight now */
};

/* GET base/-/stats into *out.  0, or -1 (then *out is zeroed). */
int bstats_get(const char *base, struct bstats *out);

/* GET base/-/reset.  0, or -1. */
int bstats_reset(const char *base);

#endif
