/*
 * tunehist.c - a trigger's history on a grid; see tunehist.h.
 */
#include "tunehist.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prom.h"

int tunehist_init(struct tunehist *h, double start_s, double step_s,
		  size_t n)
{
	size_t i;

	memset(h, 0, sizeof(*h));
	if (!isfinite(start_s) || !isfinite(step_s) || !(step_s > 0) ||
	    n == 0 || n > TUNEHIST_POINTS_MAX)
		return -1;
	h->v = malloc(n * sizeof(*h->v));
	if (!h->v)
		return -1;
	for (i = 0; i < n; i++)
		h->v[i] = NAN;
	h->start_s = start_s;
	h->step_s = step_s;
	h->n = n;
	return 0;
}

void tunehist_release(struct tunehist *h)
{
	free(h->v);
	memset(h, 0, sizeof(*h));
}

size_t tunehist_place(struct tunehist *h, const double *ts,
		      const double *vals, size_t m, size_t *negative)
{
	size_t i, placed = 0;
	double k;

	for (i = 0; i < m; i++) {
		if (!isfinite(ts[i]))
			continue;
		k = round((ts[i] - h->start_s) / h->step_s);
		if (k < 0 || k >= (double)h->n ||
		    fabs(ts[i] - (h->start_s + k * h->step_s)) >
		    h->step_s / 4)
			continue;
		if (!isfinite(vals[i]))
			continue;
		if (vals[i] < 0) {
			if (negative)
				(*negative)++;
			continue;
		}
		h->v[(size_t)k] = vals[i];
		placed++;
	}
	return placed;
}

void tunehist_gaps(const struct tunehist *h, size_t a, size_t b,
		   struct tunehist_gaps *out)
{
	size_t i, run = 0;

	memset(out, 0, sizeof(*out));
	if (b > h->n)
		b = h->n;
	for (i = a; i < b; i++) {
		if (!isnan(h->v[i])) {
			out->present++;
			run = 0;
			continue;
		}
		out->missing++;
		if (run++ == 0)
			out->runs++;
		if (run > out->longest)
			out->longest = run;
	}
}

size_t tunehist_trim(struct tunehist *h, size_t k)
{
	size_t i, j, marked = 0;
	unsigned char *gap;

	if (k == 0 || h->n == 0)
		return 0;
	/* decide on the gaps as read, then mark: a trimmed point must not
	 * make a new gap edge */
	gap = malloc(h->n);
	if (!gap)
		return 0;
	for (i = 0; i < h->n; i++)
		gap[i] = isnan(h->v[i]);
	for (i = 0; i < h->n; i++) {
		if (!gap[i])
			continue;
		if (i > 0 && !gap[i - 1])       /* a gap starts at i */
			for (j = i; j > 0 && i - j < k; j--)
				if (!isnan(h->v[j - 1])) {
					h->v[j - 1] = NAN;
					marked++;
				}
		if (i + 1 < h->n && !gap[i + 1]) /* a gap ends at i */
			for (j = i + 1; j < h->n && j - i <= k; j++)
				if (!isnan(h->v[j])) {
					h->v[j] = NAN;
					marked++;
				}
	}
	free(gap);
	return marked;
}

size_t tunehist_first(const struct tunehist *h)
{
	size_t i;

	for (i = 0; i < h->n && isnan(h->v[i]); i++)
		;
	return i;
}

/* ---- the backend ----------------------------------------------------- */

/* One chunk in flight: the callback fills it on the fetch thread. */
struct tunehist_wait {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done;
	struct tunehist *h;
	size_t *negative;
	enum prom_err err;
	char msg[PROM_ERR_MAX];
};

/* fetch_done_fn: copy the points while they live. */
static void tunehist_done(void *arg, const struct fetch_answer *a, size_t n)
{
	struct tunehist_wait *w = arg;

	pthread_mutex_lock(&w->mu);
	w->err = n ? a[0].err : PROM_EHTTP;
	if (n && a[0].err == PROM_OK)
		tunehist_place(w->h, a[0].ts, a[0].vals, a[0].n, w->negative);
	else if (n)
		snprintf(w->msg, sizeof(w->msg), "%s", a[0].msg);
	w->done = 1;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

/* "2026-07-01T12:00:00Z" */
static void tunehist_time(double t, char buf[32])
{
	time_t s = (time_t)t;
	struct tm tm;

	if (gmtime_r(&s, &tm))
		strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
	else
		snprintf(buf, 32, "%.0f", t);
}

/* Ask for points [a, b) (b - a >= 2) and wait.  0, 1 or 2 as
 * tunehist_fetch. */
static int tunehist_chunk(struct fetch *f, struct config *cfg,
			  const struct backend *be,
			  const char *query, double timeout_s,
			  struct tunehist_wait *w, size_t a, size_t b,
			  char *err, size_t errlen)
{
	struct tunehist *h = w->h;
	struct fetch_query q;
	struct timespec dl;
	char from[32], to[32];
	int e = 0, rc = 0;

	memset(&q, 0, sizeof(q));
	q.backend = be;
	q.cfg = cfg;
	q.query = query;
	q.step_s = h->step_s;
	q.end_s = h->start_s + (double)(b - 1) * h->step_s;
	q.range_s = (double)(b - 1 - a) * h->step_s;
	tunehist_time(q.end_s - q.range_s, from);
	tunehist_time(q.end_s, to);
	w->done = 0;
	w->msg[0] = '\0';
	/* One reader: the fetch module's fair queues are for servers. */
	if (fetch_submit(f, "staffer-tune", "", &q, 1, tunehist_done, w)) {
		snprintf(err, errlen, "the fetch thread refused the query "
			 "(out of memory?)");
		return 1;
	}
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += (time_t)ceil(timeout_s);
	pthread_mutex_lock(&w->mu);
	while (!w->done && e != ETIMEDOUT)
		e = pthread_cond_timedwait(&w->cv, &w->mu, &dl);
	if (!w->done)
		rc = -1;
	pthread_mutex_unlock(&w->mu);
	if (rc) {
		fetch_stop(f);      /* completes the job: the callback runs */
		snprintf(err, errlen, "range %s to %s: no answer within %g s "
			 "(--timeout)", from, to, timeout_s);
		return 1;
	}
	if (w->err == PROM_OK || w->err == PROM_EEMPTY)
		return 0;
	snprintf(err, errlen, "range %s to %s at %g s: %s", from, to,
		 h->step_s, w->msg[0] ? w->msg : prom_strerror(w->err));
	return w->err == PROM_EQUERY || w->err == PROM_EMULTI ? 2 : 1;
}

int tunehist_fetch(struct fetch *f, struct config *cfg,
		   const struct backend *be,
		   const char *query, double timeout_s, struct tunehist *h,
		   size_t *negative, tunehist_progress_fn *progress,
		   void *parg, char *err, size_t errlen)
{
	struct tunehist_wait w;
	size_t a, b, i, nchunks, per = PROM_RANGE_MAX;
	int rc = 1;

	memset(&w, 0, sizeof(w));
	if (h->n < 2) {
		snprintf(err, errlen, "a history needs at least 2 points");
		return 1;
	}
	if (pthread_mutex_init(&w.mu, NULL)) {
		snprintf(err, errlen, "pthread_mutex_init failed");
		return 1;
	}
	if (pthread_cond_init(&w.cv, NULL)) {
		pthread_mutex_destroy(&w.mu);
		snprintf(err, errlen, "pthread_cond_init failed");
		return 1;
	}
	w.h = h;
	w.negative = negative;
	nchunks = (h->n + per - 1) / per;
	for (i = 0; i < nchunks; i++) {
		a = i * per;
		b = a + per < h->n ? a + per : h->n;
		if (b - a < 2)   /* one point is an instant query: overlap */
			a = b - 2;
		if (progress)
			progress(parg, i, nchunks);
		rc = tunehist_chunk(f, cfg, be, query, timeout_s, &w, a, b,
				    err, errlen);
		if (rc)
			goto out;
	}
	rc = 0;
out:
	pthread_cond_destroy(&w.cv);
	pthread_mutex_destroy(&w.mu);
	return rc;
}
