/* series.c - range answers kept and extended on an aligned grid; see
 * series.h. */
#include "series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Beyond this a double holds no milliseconds of a time (prom.c's bound). */
#define SERIES_TIME_MAX_S 1e12

/* t rounded down to the grid of step st (>= 1) through `at`, for any
 * sign of t - at. */
static long long series_floor(long long t, long long at, long long st)
{
	long long r = (t - at) % st;

	return r < 0 ? t - r - st : t - r;
}

int series_grid(double range_s, double step_s, uint32_t phase,
		double now_s, struct series_grid *g)
{
	double step_ms = step_s * 1000.0, n;
	long long st, now_ms;

	if (!isfinite(range_s) || range_s < 0 || !isfinite(step_ms) ||
	    !(now_s > 0) || !(now_s < SERIES_TIME_MAX_S))
		return -1;
	st = llround(step_ms);
	/* A step Prometheus would cut to whole ms: its points would not be
	 * where the grid says. */
	if (st < 1 || fabs(step_ms - (double)st) > 1e-6)
		return -1;
	n = floor(range_s * 1000.0 / (double)st + 1e-9) + 1;
	if (n > PROM_RANGE_MAX)
		return -1;
	now_ms = (long long)floor(now_s * 1000.0);
	g->end_ms = series_floor(now_ms, (long long)phase % st, st);
	g->step_ms = st;
	g->n = (unsigned)n;
	return 0;
}

uint32_t series_phase(const char *query)
{
	const unsigned char *p;
	uint32_t h = 2166136261u;

	for (p = (const unsigned char *)query; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

long long series_grid_start(const struct series_grid *g)
{
	return g->end_ms - (long long)(g->n - 1) * g->step_ms;
}

enum series_plan series_plan(const struct series *s,
			     const struct series_grid *g, long long *from_ms)
{
	long long start = series_grid_start(g);

	if (!s || s->settled_ms == SERIES_UNALIGNED ||
	    s->step_ms != g->step_ms || s->n != g->n ||
	    s->end_ms > g->end_ms || (g->end_ms - s->end_ms) % g->step_ms ||
	    s->settled_ms < start) {
		*from_ms = start;
		return SERIES_FULL;
	}
	if (s->settled_ms >= g->end_ms)
		return SERIES_NONE;   /* then s->end_ms == g->end_ms too */
	*from_ms = s->settled_ms + g->step_ms;
	return SERIES_TAIL;
}

long long series_settled(const struct series_grid *g, double sent_s,
			 double settle_s)
{
	double t = (sent_s - settle_s) * 1000.0;
	long long ms, none = series_grid_start(g) - g->step_ms;

	if (!(t > 0) || !(t < SERIES_TIME_MAX_S * 1000.0))
		return none;
	ms = series_floor((long long)floor(t), g->end_ms, g->step_ms);
	if (ms < none)
		return none;
	return ms < g->end_ms ? ms : g->end_ms;
}

/* A point: a finite value or a NaN point, not a gap. */
static int series_has_point(double v)
{
	return !isnan(v) || prom_is_nan_point(v);
}

enum series_merge series_merge(const struct series *old,
			       const struct series_grid *g, long long from_ms,
			       const struct prom_range *tail,
			       long long settled_ms, struct series **out)
{
	long long start = series_grid_start(g), st = g->step_ms, t;
	struct series *s;
	int kept = 0, fresh = 0;
	unsigned k, j, points = 0;

	if (from_ms < start || from_ms > g->end_ms || (from_ms - start) % st)
		return SERIES_REFETCH;
	s = malloc(sizeof(*s) + (size_t)g->n * sizeof(s->vals[0]));
	if (!s)
		return SERIES_ENOMEM;
	atomic_init(&s->refs, 1);
	s->end_ms = g->end_ms;
	s->step_ms = st;
	s->settled_ms = settled_ms;
	s->n = g->n;
	for (k = 0; k < g->n; k++)
		s->vals[k] = NAN;
	/* the kept points before from_ms; old is on the same step, so a
	 * slot's time is a slot of old's too */
	if (old && old->settled_ms != SERIES_UNALIGNED && old->step_ms == st) {
		long long ostart = old->end_ms - (long long)(old->n - 1) * st;

		for (k = 0; k < g->n; k++) {
			t = start + (long long)k * st;
			if (t >= from_ms)
				break;
			if (t < ostart || t > old->end_ms || (t - ostart) % st)
				continue;
			s->vals[k] = old->vals[(t - ostart) / st];
			kept |= series_has_point(s->vals[k]);
		}
	}
	if (tail && tail->n > 0) {
		long long tstep = tail->n > 1 ? tail->step_ms : st;
		long long last = tail->start_ms + (long long)(tail->n - 1) * tstep;

		/* every point on the grid, within what was asked */
		if (tail->start_ms < from_ms || last > g->end_ms ||
		    (tail->start_ms - start) % st || tstep <= 0 || tstep % st)
			goto refetch;
		for (j = 0; j < tail->n; j++) {
			double v = tail->vals[j];

			if (!series_has_point(v))
				continue;
			fresh = 1;
			t = tail->start_ms + (long long)j * tstep;
			s->vals[(t - start) / st] = v;
		}
		/* two label sets in one range: a full fetch holds both */
		if (fresh && kept && tail->labels != old->labels)
			goto refetch;
	}
	s->labels = fresh ? tail->labels : kept ? old->labels : 0;
	for (k = 0; k < g->n; k++)
		points += !isnan(s->vals[k]);
	s->points = points;
	*out = s;
	return SERIES_MERGED;
refetch:
	free(s);
	return SERIES_REFETCH;
}

enum series_merge series_derive(const struct series *old, long long step_ms,
				unsigned n, uint32_t phase,
				const struct series *fine, struct series **out)
{
	struct series_grid g;
	struct prom_range tail;
	long long fstart, from = 0, settled, at;
	enum series_merge rc;
	unsigned j;

	if (!fine || fine->settled_ms == SERIES_UNALIGNED ||
	    fine->step_ms < 1 || step_ms < 1 || step_ms % fine->step_ms ||
	    n < 1 || n > PROM_RANGE_MAX)
		return SERIES_REFETCH;
	/* the coarse grid's slots, phase + k * step_ms, are fine's slots
	 * when they fall on fine's grid modulo its step */
	at = (long long)phase % step_ms;
	if ((fine->end_ms - at) % fine->step_ms)
		return SERIES_REFETCH;
	g.step_ms = step_ms;
	g.n = n;
	g.end_ms = series_floor(fine->end_ms, at, step_ms);
	switch (series_plan(old, &g, &from)) {
	case SERIES_FULL:
		old = NULL;
		break;
	case SERIES_NONE:     /* renewed: the newest slot again */
		from = g.end_ms;
		break;
	case SERIES_TAIL:
		break;
	}
	/* fine's slots from `from` on are settled as far as fine is; old's
	 * before it as far as old is */
	settled = series_floor(fine->settled_ms, at, step_ms);
	if (old && old->settled_ms > settled)
		settled = old->settled_ms;
	if (settled > g.end_ms)
		settled = g.end_ms;
	fstart = fine->end_ms - (long long)(fine->n - 1) * fine->step_ms;
	if (from < fstart)
		return SERIES_REFETCH;
	memset(&tail, 0, sizeof(tail));
	tail.n = (unsigned)((g.end_ms - from) / step_ms + 1);
	tail.start_ms = from;
	tail.step_ms = tail.n > 1 ? step_ms : 0;
	tail.labels = fine->labels;
	tail.vals = malloc((size_t)tail.n * sizeof(tail.vals[0]));
	if (!tail.vals)
		return SERIES_ENOMEM;
	for (j = 0; j < tail.n; j++) {
		long long t = from + (long long)j * step_ms;

		/* a slot of fine's grid: both are on it (checked above),
		 * and t is at most g's end, which is at most fine's */
		tail.vals[j] = fine->vals[(t - fstart) / fine->step_ms];
		tail.points += !isnan(tail.vals[j]);
	}
	rc = series_merge(old, &g, from, &tail, settled, out);
	free(tail.vals);
	return rc;
}

long series_agree(const struct series *a, const struct series *b)
{
	long long as, bs, hi, t;
	unsigned k;
	long n = 0;

	if (a->settled_ms == SERIES_UNALIGNED ||
	    b->settled_ms == SERIES_UNALIGNED || a->step_ms < 1 ||
	    b->step_ms < 1)
		return 0;
	as = a->end_ms - (long long)(a->n - 1) * a->step_ms;
	bs = b->end_ms - (long long)(b->n - 1) * b->step_ms;
	hi = a->settled_ms < b->settled_ms ? a->settled_ms : b->settled_ms;
	if (hi > b->end_ms)
		hi = b->end_ms;
	for (k = 0; k < a->n; k++) {
		t = as + (long long)k * a->step_ms;
		if (t > hi)
			break;
		if (t < bs || (t - bs) % b->step_ms)
			continue;
		if (memcmp(&a->vals[k], &b->vals[(t - bs) / b->step_ms],
			   sizeof(a->vals[0])))
			return -1;
		n += series_has_point(a->vals[k]);
	}
	return n;
}

struct series *series_of_range(const struct prom_range *r)
{
	struct series *s = malloc(sizeof(*s) + (size_t)r->n *
				  sizeof(s->vals[0]));

	if (!s)
		return NULL;
	atomic_init(&s->refs, 1);
	s->end_ms = r->start_ms + (long long)(r->n - 1) * r->step_ms;
	s->step_ms = r->step_ms;
	s->settled_ms = SERIES_UNALIGNED;
	s->labels = r->labels;
	s->n = r->n;
	s->points = r->points;
	memcpy(s->vals, r->vals, (size_t)r->n * sizeof(s->vals[0]));
	return s;
}

enum prom_err series_status(const struct series *s, char *err,
			    size_t errlen)
{
	unsigned k;
	int nan_points = 0;

	if (s->points > 0)
		return PROM_OK;
	for (k = 0; k < s->n && !nan_points; k++)
		nan_points = prom_is_nan_point(s->vals[k]);
	return prom_range_none(nan_points, err, errlen);
}

double series_time(const struct series *s, size_t k)
{
	long long start = s->end_ms - (long long)(s->n - 1) * s->step_ms;

	/* ms / 1000 rounded once: the double strtod() gives for "S.mmm" */
	return (double)(start + (long long)k * s->step_ms) / 1000.0;
}

int series_same(const struct series *a, const struct series *b)
{
	return a->end_ms == b->end_ms && a->step_ms == b->step_ms &&
	       a->n == b->n && a->points == b->points &&
	       a->labels == b->labels &&
	       (a->settled_ms == SERIES_UNALIGNED) ==
	       (b->settled_ms == SERIES_UNALIGNED) &&
	       !memcmp(a->vals, b->vals, (size_t)a->n * sizeof(a->vals[0]));
}

int series_newest(const struct series *s, double *value, double *ts)
{
	double v = s->vals[s->n - 1];

	if (!isfinite(v))
		return 0;
	*value = v;
	*ts = series_time(s, s->n - 1);
	return 1;
}

int series_last(const struct series *s, double *ts)
{
	size_t k;

	for (k = s->n; k > 0; k--)
		if (!isnan(s->vals[k - 1])) {
			*ts = series_time(s, k - 1);
			return 1;
		}
	return 0;
}

int series_even(const struct series *s, double step_s)
{
	double prev = 0, t, d = (double)s->step_ms / 1000.0 - step_s;
	size_t k, first = 0, last = s->n;
	int any = 0;

	if (s->points < 2)
		return 1;
	while (isnan(s->vals[first]))
		first++;
	while (isnan(s->vals[last - 1]))
		last--;
	/* Every slot from the first point to the last a point (they are
	 * s->points), and a step within an eighth of step_s: each
	 * difference of two times is the step give or take their rounding
	 * (under 1e-6 s for any Unix time), far inside the quarter step the
	 * test allows. */
	if (last - first == s->points && fabs(d) <= step_s / 8)
		return 1;
	/* else range_even() in src/scaler.c over series_points()'s times:
	 * the same doubles, the same test */
	for (k = first; k < last; k++) {
		if (isnan(s->vals[k]))
			continue;
		t = series_time(s, k);
		if (any && fabs(t - prev - step_s) > step_s / 4)
			return 0;
		prev = t;
		any = 1;
	}
	return 1;
}

const struct series *series_hold(const struct series *s)
{
	if (s)
		atomic_fetch_add_explicit(&((struct series *)s)->refs, 1,
					  memory_order_relaxed);
	return s;
}

void series_drop(const struct series *s)
{
	struct series *w = (struct series *)s;

	/* release: this holder's reads happen before the free; acquire on
	 * the last: every other holder's too */
	if (w && atomic_fetch_sub_explicit(&w->refs, 1,
					   memory_order_acq_rel) == 1)
		free(w);
}

void series_points(const struct series *s, double *ts, double *vals)
{
	size_t k, j = 0;

	for (k = 0; k < s->n; k++) {
		if (isnan(s->vals[k]))
			continue;
		ts[j] = series_time(s, k);
		vals[j++] = s->vals[k];
	}
}
