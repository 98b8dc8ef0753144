/*
 * series.h - a range query's answer kept between fetches and extended,
 * so that a refresh asks the backend only for the points it lacks.
 *
 * The grid.  A range query that ends now is asked for the Unix times
 * (in ms) that are its phase plus whole multiples of its step
 * (series_grid()), the phase being a number the caller takes from the
 * query's text, reduced modulo the step: its newest point is at most a
 * step old, and its points fall on the same instants whenever, and by
 * whichever pod, it is asked.  So a point fetched a while ago is the
 * point a fetch now would return, once nothing behind it can change any
 * more.  Different queries' grids fall at different instants within the
 * step, so the requests that keep them fresh spread over it; one
 * query's grids at steps that divide each other share their instants
 * (p mod s is (p mod S) mod s when s divides S).  Phase 0 gives the
 * multiples of the step, which a backend that aligns a range's start to
 * its step (Thanos' and VictoriaMetrics' caches) also evaluates.
 *
 * Settled points.  A point at time t reads samples stamped at or before
 * t, and a sample reaches the backend some time after its stamp (a
 * scrape's duration, a remote write's queue).  A point is settled when
 * it was fetched at least settle_s (the backend's rangeSettleSeconds)
 * after its time.  A refresh asks from the first point not settled to
 * the grid's end (series_plan()), and series_merge() lays the reply over
 * the kept points.  A grid whose points are all settled needs no request
 * at all until it moves on (a long step: SERIES_NONE).
 *
 * Identity.  The result is the answer a full fetch of the grid would
 * give at the same time: the same points (a NaN point told from no
 * point), the same series, the same error for a range without a finite
 * point (series_status()), as long as the backend's samples older than
 * settle_s do not change (no backfill or out-of-order samples older
 * than that).  tests/integration/test_range.py compares the two against
 * a real Prometheus over counter resets and gaps.  What kept points
 * cannot tell, a full fetch answers (SERIES_REFETCH): a reply of another
 * series than the one kept (another label set: a full fetch would hold
 * two series) or points off the grid (a backend that does not evaluate at
 * start + k * step).  Nothing is kept across a restart: a new process
 * fetches the whole grid.
 *
 * Pure: no I/O, no clock, no locks, no logging; series_merge() and
 * series_of_range() allocate.  A series is immutable once made: a merge
 * makes a new one, so a reader holding the old one is never disturbed.
 * Its holders are counted (series_hold(), series_drop(); atomic, so a
 * reader on another thread may keep one its owner has replaced); a new
 * series has one, its maker's.
 */
#ifndef STAFFER_SERIES_H
#define STAFFER_SERIES_H

#include <limits.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "prom.h"

/* settled_ms of a reply kept as it came, never extended. */
#define SERIES_UNALIGNED LLONG_MIN

/* The grid of a range query ending now. */
struct series_grid {
	long long end_ms;   /* Unix ms of the newest point: the phase plus
			     * a multiple of step_ms */
	long long step_ms;  /* >= 1 */
	unsigned n;         /* points: floor(range / step) + 1 */
};

/*
 * The grid of range_s seconds at step_s and the given phase (ms, taken
 * modulo the step) ending at or just before now_s (Unix seconds).  0; -1
 * when step_s is not a whole number of milliseconds (>= 1), range_s is
 * negative or not finite, the grid has more than PROM_RANGE_MAX points,
 * or now_s is not a time: such a range is fetched whole, as asked, and
 * not kept.
 */
int series_grid(double range_s, double step_s, uint32_t phase,
		double now_s, struct series_grid *g);

/* The phase of query's grids: its text's FNV-1a hash, the same in every
 * process and for every range of the query. */
uint32_t series_phase(const char *query);

/* Unix ms of the grid's oldest point. */
long long series_grid_start(const struct series_grid *g);

struct series {
	long long end_ms;     /* Unix ms of slot n - 1 */
	long long step_ms;    /* ms between slots (0 when unaligned, n 1) */
	long long settled_ms; /* slots at or before this are final;
			       * SERIES_UNALIGNED: never extended */
	uint32_t labels;      /* prom_range.labels of the points kept */
	unsigned n;           /* slots, 1..PROM_RANGE_MAX */
	unsigned points;      /* slots with a finite value */
	atomic_uint refs;     /* holders: series_hold(), series_drop() */
	double vals[];        /* n values, oldest first: NaN where there
			       * is no point, prom_nan_point() where the
			       * point is NaN or +-Inf */
};

enum series_plan {
	SERIES_FULL,   /* fetch the whole grid */
	SERIES_TAIL,   /* fetch from *from_ms to the grid's end */
	SERIES_NONE,   /* s is the answer on g as it is: no request */
};

/*
 * What to fetch to bring s (NULL: nothing kept) to grid g: the whole
 * grid unless s is aligned on g's step, phase and length, not ahead of it, and
 * settled at or after g's start.  *from_ms is set for SERIES_TAIL (the
 * first slot not settled) and SERIES_FULL (g's start).
 */
enum series_plan series_plan(const struct series *s,
			     const struct series_grid *g, long long *from_ms);

/*
 * The newest slot of g settled by a fetch sent at sent_s (Unix seconds)
 * when samples may arrive up to settle_s late: the last slot of g's grid
 * at or before sent_s - settle_s, at most g's end.
 */
long long series_settled(const struct series_grid *g, double sent_s,
			 double settle_s);

enum series_merge {
	SERIES_MERGED = 0,   /* *out holds the new series */
	SERIES_REFETCH,      /* the answer needs a full fetch (above) */
	SERIES_ENOMEM,
};

/*
 * The answer on grid g made of old's points before from_ms (old may be
 * NULL: a full fetch, from_ms g's start) and tail, the reply to the
 * request from from_ms to g's end, parsed by prom_parse_range_nan() (NULL
 * when it held no series), settled up to settled_ms.  On SERIES_MERGED
 * *out is a new series, the caller's to free(); old is not changed.
 */
enum series_merge series_merge(const struct series *old,
			       const struct series_grid *g, long long from_ms,
			       const struct prom_range *tail,
			       long long settled_ms, struct series **out);

/*
 * Derived points.  A range query's point at t is the query evaluated at t,
 * whatever the step (Prometheus evaluates a range query step by step), so
 * a range on a coarser grid can be extended from a finer one of the same
 * query: every slot of a step that is a whole multiple of the finer step
 * is a slot of the finer grid when both have the same phase modulo the
 * finer step.  series_derive() makes the answer on the grid of step_ms,
 * n slots and the given phase ending where fine's grid ends (the coarse
 * grid at the time fine was fetched) out of old's settled points (NULL:
 * none) and fine's points for the rest, settled as far as fine is: what a
 * full fetch of that grid sent with fine's request would return, as long
 * as the backend's points do not depend on the step.  SERIES_REFETCH when
 * fine does not hold every slot needed (it starts too late, is not
 * aligned, its slots are not the coarse grid's, or step_ms is not a
 * multiple of its step) or holds another series than old; otherwise as
 * series_merge().
 */
enum series_merge series_derive(const struct series *old, long long step_ms,
				unsigned n, uint32_t phase,
				const struct series *fine, struct series **out);

/*
 * Whether a and b (aligned, either step) agree where both hold a settled
 * slot at the same time: the same value bit for bit, a NaN point for a
 * NaN point, a gap for a gap.  The number of such slots that hold a
 * point (gaps agree but say little), or -1 when one differs (the
 * backend's points depend on the step, or its settled samples changed).
 */
long series_agree(const struct series *a, const struct series *b);

/* r kept as it came (SERIES_UNALIGNED), or NULL when out of memory. */
struct series *series_of_range(const struct prom_range *r);

/*
 * The answer s gives: PROM_OK when it has a finite point; else what a
 * full fetch gives (prom_range_none()): PROM_ENAN with NaN points,
 * PROM_EEMPTY without any, with prom.c's text in err (may be NULL).
 */
enum prom_err series_status(const struct series *s, char *err,
			    size_t errlen);

/* The Unix time in seconds of slot k: the double "S.mmm" parses to. */
double series_time(const struct series *s, size_t k);

/* Whether s's newest slot holds a finite value: then 1, with it in
 * *value and its time (series_time()) in *ts; else 0 and neither set. */
int series_newest(const struct series *s, double *value, double *ts);

/* The finite points in time order, as prom_range_points(): ts and vals
 * hold s->points doubles each. */
void series_points(const struct series *s, double *ts, double *vals);

/* The time (series_time()) of s's newest slot with a finite value: 1,
 * with it in *ts; 0 when s has none (*ts untouched). */
int series_last(const struct series *s, double *ts);

/* 1 when series_points()'s times are step_s apart, give or take a
 * quarter step (no gaps between its points: what a caller checks of the
 * expanded points, without expanding them); 1 with fewer than 2 points. */
int series_even(const struct series *s, double step_s);

/* One more holder of s; returns s (NULL: NULL). */
const struct series *series_hold(const struct series *s);

/* One holder fewer of s, freed with the last (NULL: nothing). */
void series_drop(const struct series *s);

/* 1 when a and b give the same points (series_points()) and the same
 * answer: the same slots at the same times with bit-equal values. */
int series_same(const struct series *a, const struct series *b);

#endif
