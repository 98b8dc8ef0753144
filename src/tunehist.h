/*
 * tunehist.h - a trigger's history for `staffer tune`: one PromQL
 * expression over a past interval, on a fixed grid of instants, with its
 * gaps kept as gaps.
 *
 * The grid is start_s + i step_s, i < n.  A point Prometheus does not
 * return (no sample in the query's lookback, a NaN, a series that had not
 * started) stays missing (NaN): a gap is never zero traffic.  A negative
 * value (a query that subtracts, a deriv() across a counter reset) is not
 * a rate either: it stays missing too and is counted.  What to do with
 * the gaps is the caller's (tune.c carries the last rate across them, as
 * the simulator's rate files do, and refuses a history with too many).
 *
 * tunehist_fetch() asks the backend through fetch.h, in chunks of at most
 * PROM_RANGE_MAX points (Prometheus refuses more in one range query), one
 * after the other, each within timeout_s.  It blocks the calling thread;
 * the callback it gives fetch.h copies the points on the fetch thread.
 * Everything else is pure.
 */
#ifndef STAFFER_TUNEHIST_H
#define STAFFER_TUNEHIST_H

#include <stddef.h>

#include "config.h"
#include "fetch.h"

#define TUNEHIST_POINTS_MAX 2000000u   /* grid points of one history */
#define TUNEHIST_ERR_MAX 512

struct tunehist {
	double start_s;         /* Unix seconds of point 0 */
	double step_s;          /* > 0 */
	size_t n;
	double *v;              /* n values; NaN: missing */
};

/* n (1..TUNEHIST_POINTS_MAX) missing points from start_s, step_s apart.
 * 0, or -1 (bad arguments, out of memory) with h empty. */
int tunehist_init(struct tunehist *h, double start_s, double step_s,
		  size_t n);
void tunehist_release(struct tunehist *h);

/*
 * Put m points (ts Unix seconds, vals) on the grid: each at the nearest
 * grid instant when it is within step_s / 4 of it (a later point at the
 * same instant wins).  Non-finite values stay missing; negative ones too,
 * counted in *negative (may be NULL).  Returns the points placed.
 */
size_t tunehist_place(struct tunehist *h, const double *ts,
		      const double *vals, size_t m, size_t *negative);

/* The gaps of points [a, b). */
struct tunehist_gaps {
	size_t present, missing;
	size_t runs;            /* maximal runs of missing points */
	size_t longest;         /* points in the longest run */
};
void tunehist_gaps(const struct tunehist *h, size_t a, size_t b,
		   struct tunehist_gaps *out);

/*
 * Mark missing the k present points on either side of every run of
 * missing points (the start of the grid counts as the end of one when
 * point 0 is missing).  A rate() whose window reaches into a gap has
 * samples for part of its window only and reads low; with k = ceil(window
 * / step) those points are gaps too.  Returns the points marked.
 */
size_t tunehist_trim(struct tunehist *h, size_t k);

/*
 * Mark missing the points of h that its query's fallback made up: present
 * in h where measured (the query without its fallback, on the same grid)
 * has no point, unless up (the fallback's `up` guard as max(up{...}), or
 * NULL) says the exporter was there (>= 1) at that point.  A `... or
 * vector(0)` reads 0 through a failed scrape; those zeros are gaps, not
 * zero traffic.  Returns the points marked, with their runs and the
 * longest run in *runs and *longest (may be NULL).
 */
size_t tunehist_unfallback(struct tunehist *h, const struct tunehist *measured,
			   const struct tunehist *up, size_t *runs,
			   size_t *longest);

/* The index of the first present point, or h->n when there is none. */
size_t tunehist_first(const struct tunehist *h);

/* Called before each chunk is asked for (i from 0). */
typedef void tunehist_progress_fn(void *arg, size_t i, size_t nchunks);

/*
 * Fill h (tunehist_init()ed) with query over its grid from backend be of
 * f's config.  A chunk without any series (PROM_EEMPTY) is a gap, not an
 * error.  Returns 0 (the history may still be all missing), or 1 the
 * backend failed or gave no answer in time, 2 the backend refused the
 * query (bad PromQL, several series), with err naming the chunk's
 * interval and why.  On a timeout the fetch module has been stopped.
 */
int tunehist_fetch(struct fetch *f, struct config *cfg,
		   const struct backend *be,
		   const char *query, double timeout_s, struct tunehist *h,
		   size_t *negative, tunehist_progress_fn *progress,
		   void *parg, char *err, size_t errlen);

#endif
