/*
 * rangecheck.c - range answers kept and extended (src/series.h, through
 * src/fetch.c) against full fetches of the same grid, on a real backend.
 * tests/integration/test_range.py runs it beside Prometheus while it
 * changes the data (counter resets, gaps, NaN points, a series replaced).
 *
 *   rangecheck URL SECONDS RANGE STEP SETTLE QUERY...
 *
 * Every round, for all the queries at once: a full fetch of each one's
 * grid (libcurl and prom_parse_range(): what any client gets), then the
 * fetch module's answers (cacheTTLSeconds 0.001, so that every round asks
 * the backend, for the points not settled or the whole grid; at 0 nothing
 * is reused), then a second
 * full fetch.  A round whose grid moved between the two full fetches is
 * not compared.  Otherwise each answer must equal one of the two full
 * fetches (a scrape landing between them may change the newest points):
 * the same error, or the same points, times and values bit for bit.
 *
 * RANGECHECK_COMPRESSION in the environment sets the backend's
 * `compression` (docs/config.md; default auto).
 *
 * RANGECHECK_FINE=RANGE:STEP checks ranges derived from finer ones
 * (fetch.h): every round first asks for each query's range at that finer
 * step, then for the range under test, whose step must be a multiple of
 * it.  The cache TTL is then 0.1 s and rounds 0.5 s further apart, so that
 * every answer of a round, refreshed ahead or not, has expired by the
 * next: the range under test is derived from the finer one just fetched
 * (when it may be) or fetched, and compared as above.  Then each query is
 * asked as an instant query: answered from the finer range's newest point
 * (fetch.h) or fetched, its value must equal, bit for bit, what the
 * backend's instant query evaluated at the answer's sample time returns
 * (an error, which only a fetch of its own gives, is not compared).  One
 * that differs is not counted as such when a scrape was still in flight
 * for it: the backend's newest scrape at or before the sample time
 * (scrape_duration_seconds) ended, plus RC_COMMIT_S, after the request
 * that answered was sent.  The sample was not in the backend yet; any
 * client asking then got the same.  Those are counted as raced.
 *
 * RANGECHECK_ALONE=QUERY (with RANGECHECK_FINE) adds a query asked only
 * at the range under test and as an instant, never at the finer step, as
 * a prefill pool's inputTokenRateQuery is: its ranges are never compared,
 * and its instants may come from its range's newest point once the other
 * queries' ranges agreed on the backend (fetch.h).  They are checked as
 * the others', and those whose time is a point of its range's grid are
 * counted as alone_from_range.
 *
 * RANGECHECK_PHASE0=1: the full fetches use phase 0 instead of the
 * query's (series_phase()), for a backend that moves a range's start to a
 * multiple of its step (fetch.c then drops the phase); the first round is
 * not compared.
 *
 * Prints a line per difference and, last,
 *   rangecheck: rounds R compared C differed D tail T full F renewed N
 *       requests Q derived V off O instants I from_range X raced A
 *       alone_from_range L
 * (counts of answers; requests from fetch_get_stats()).  Exit 0 when
 * none differed, 1 when some did or the backend could not be read, 2 on
 * bad usage.
 */
#include <curl/curl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "fetch.h"
#include "http.h"
#include "mono.h"
#include "num.h"
#include "prom.h"
#include "series.h"

#define RC_QUERIES_MAX FETCH_QUERIES_MAX

/* From the end of a scrape to its samples being readable: parsing and
 * committing a few series, with room for a loaded machine. */
#define RC_COMMIT_S 0.05

/* Wall-clock end of the backend's newest scrape at or before t, as the
 * backend knows it now. */
#define RC_SCRAPE_END \
	"max(timestamp(scrape_duration_seconds) + scrape_duration_seconds)"

/* One full fetch: its grid's end, its error and points. */
struct full {
	long long end_ms;
	enum prom_err err;
	double *ts, *vals;
	size_t n;
};

/* The module's answers to one job, copied while they live. */
struct got {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done;
	size_t n;
	struct full a[RC_QUERIES_MAX];
};

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void full_release(struct full *x)
{
	free(x->ts);
	free(x->vals);
	memset(x, 0, sizeof(*x));
}

static int copy_points(struct full *x, const double *ts, const double *vals,
		       size_t n)
{
	x->n = n;
	x->ts = malloc((n ? n : 1) * sizeof(double));
	x->vals = malloc((n ? n : 1) * sizeof(double));
	if (!x->ts || !x->vals)
		return -1;
	memcpy(x->ts, ts, n * sizeof(double));
	memcpy(x->vals, vals, n * sizeof(double));
	return 0;
}

static void on_done(void *arg, const struct fetch_answer *a, size_t n)
{
	struct got *g = arg;
	size_t i;

	pthread_mutex_lock(&g->mu);
	for (i = 0; i < n; i++) {
		g->a[i].err = a[i].err;
		if (a[i].err == PROM_OK && !a[i].ts) {    /* an instant */
			double ts = a[i].sample_ts, v = a[i].value;

			if (copy_points(&g->a[i], &ts, &v, 1))
				g->a[i].err = PROM_ENOMEM;
		} else if (a[i].err == PROM_OK &&
		    copy_points(&g->a[i], a[i].ts, a[i].vals, a[i].n))
			g->a[i].err = PROM_ENOMEM;
	}
	g->n = n;
	g->done = 1;
	pthread_cond_signal(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

/* A full fetch of query q's grid (range_s, step_s) now, as any client
 * makes it.  0, or -1 when the backend could not be read at all. */
static int phase0;   /* RANGECHECK_PHASE0 */

static int full_fetch(CURL *easy, const char *base, const char *q,
		      double range_s, double step_s, struct full *out)
{
	struct series_grid g;
	struct http_body body = { NULL, 0, 0, 0, 0 };
	struct prom_range r;
	char errbuf[CURL_ERROR_SIZE], why[PROM_ERR_MAX];
	char *url = NULL;
	long status = 0;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (series_grid(range_s, step_s, phase0 ? 0 : series_phase(q), wall(),
			&g))
		return -1;
	url = prom_range_url(base, q, (double)series_grid_start(&g) / 1000.0,
			     (double)g.end_ms / 1000.0,
			     (double)g.step_ms / 1000.0);
	if (!url)
		return -1;
	http_body_reset(&body, 64u << 20);
	http_easy_setup(easy, url, &body, errbuf, 10);
	if (curl_easy_perform(easy) != CURLE_OK)
		goto out;
	curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200)
		goto out;
	out->end_ms = g.end_ms;
	out->err = prom_parse_range(body.buf, body.len, &r, why, sizeof(why));
	rc = 0;
	if (out->err != PROM_OK)
		goto out;
	out->ts = malloc(r.points * sizeof(double));
	out->vals = malloc(r.points * sizeof(double));
	if (!out->ts || !out->vals) {
		rc = -1;
	} else {
		prom_range_points(&r, out->ts, out->vals);
		out->n = r.points;
	}
	prom_range_release(&r);
out:
	http_body_release(&body);
	free(url);
	return rc;
}

/* The backend's instant query q evaluated at t: err, and the value in
 * *v when PROM_OK.  -1 when the backend could not be read. */
static int instant_at(CURL *easy, const char *base, const char *q, double t,
		      enum prom_err *err, double *v)
{
	struct http_body body = { NULL, 0, 0, 0, 0 };
	char errbuf[CURL_ERROR_SIZE], why[PROM_ERR_MAX];
	char *url = prom_query_url(base, q, t);
	long status = 0;
	double ts;
	int rc = -1;

	if (!url)
		return -1;
	http_body_reset(&body, 1u << 20);
	http_easy_setup(easy, url, &body, errbuf, 10);
	if (curl_easy_perform(easy) == CURLE_OK &&
	    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status) ==
	    CURLE_OK && status == 200) {
		*err = prom_parse_sample(body.buf, body.len, v, &ts, why,
					 sizeof(why));
		rc = 0;
	}
	http_body_release(&body);
	free(url);
	return rc;
}

/* Wait for the job on g to finish. */
static void got_wait(struct got *g)
{
	pthread_mutex_lock(&g->mu);
	while (!g->done)
		pthread_cond_wait(&g->cv, &g->mu);
	pthread_mutex_unlock(&g->mu);
}

static int same(const struct full *a, const struct full *b)
{
	if (a->err != b->err)
		return 0;
	if (a->err != PROM_OK)
		return 1;
	return a->n == b->n &&
	       !memcmp(a->ts, b->ts, a->n * sizeof(double)) &&
	       !memcmp(a->vals, b->vals, a->n * sizeof(double));
}

static void show(const char *what, const struct full *x)
{
	size_t i;

	fprintf(stderr, "  %s: %s, %zu points:", what, prom_strerror(x->err),
		x->n);
	for (i = 0; i < x->n; i++)
		fprintf(stderr, " %.3f=%.17g", x->ts[i], x->vals[i]);
	fprintf(stderr, "\n");
}

/* Whether t is an instant of query q's grids at step_s (its phase, or 0
 * under RANGECHECK_PHASE0): where a range's newest point lies, and an
 * instant query evaluated when asked almost never does. */
static int on_grid(const char *q, double range_s, double step_s, double t)
{
	struct series_grid g;
	long long ms = llround(t * 1000.0);

	if (series_grid(range_s, step_s, phase0 ? 0 : series_phase(q), t,
			&g))
		return 0;
	return g.end_ms == ms;
}

static void usage(void)
{
	fprintf(stderr, "usage: rangecheck URL SECONDS RANGE STEP SETTLE "
		"QUERY...\n");
}

int main(int argc, char **argv)
{
	struct config c, *cfg = NULL;
	struct fetch *f = NULL;
	struct fetch_query q[RC_QUERIES_MAX];
	struct fetch_stats st;
	struct full r1[RC_QUERIES_MAX], r2[RC_QUERIES_MAX];
	struct got got;
	CURL *easy = NULL;
	char text[1024], err[CONFIG_ERR_MAX];
	const char *gz = getenv("RANGECHECK_COMPRESSION");
	const char *fine = getenv("RANGECHECK_FINE");
	const char *alone = getenv("RANGECHECK_ALONE");
	long alone_from_range = 0;
	size_t nf;
	struct fetch_query fq[RC_QUERIES_MAX], iq[RC_QUERIES_MAX];
	long instants = 0, raced = 0;
	double sent_fine = 0, sent_inst = 0;
	double seconds, range_s, step_s, settle_s, end, frange = 0, fstep = 0;
	long rounds = 0, compared = 0, differed = 0;
	size_t n, i;
	int rc = 2;

	if (argc < 7 || argc - 6 > RC_QUERIES_MAX ||
	    num_parse_double(argv[2], &seconds) ||
	    num_parse_double(argv[3], &range_s) ||
	    num_parse_double(argv[4], &step_s) ||
	    num_parse_double(argv[5], &settle_s)) {
		usage();
		return 2;
	}
	n = (size_t)(argc - 6);
	nf = n;                  /* the queries asked at the finer step */
	if (alone && *alone && (!fine || !*fine || n >= RC_QUERIES_MAX)) {
		fprintf(stderr, "rangecheck: RANGECHECK_ALONE needs "
			"RANGECHECK_FINE, and room for one more query\n");
		return 2;
	}
	if (fine && *fine && (sscanf(fine, "%lf:%lf", &frange, &fstep) != 2 ||
			      !(fstep > 0) || !(frange > 0))) {
		fprintf(stderr, "rangecheck: RANGECHECK_FINE is RANGE:STEP\n");
		return 2;
	}
	snprintf(text, sizeof(text), "{\"cacheTTLSeconds\":%s,\"backends\":"
		 "[{\"name\":\"p\",\"url\":\"%s\",\"timeoutSeconds\":10,"
		 "\"rangeSettleSeconds\":%g,\"compression\":\"%s\"}]}",
		 fstep > 0 ? "0.1" : "0.001", argv[1], settle_s,
		 gz && *gz ? gz : "auto");
	config_init(&c);
	if (config_load_text(&c, text, "rangecheck", err)) {
		fprintf(stderr, "rangecheck: %s\n", err);
		return 2;
	}
	rc = 1;
	cfg = config_share(&c);
	f = cfg ? fetch_new() : NULL;
	easy = curl_easy_init();
	if (!f || !easy)
		goto out;
	for (i = 0; i < n; i++) {
		memset(&q[i], 0, sizeof(q[i]));
		q[i].backend = &cfg->backends[0];
		q[i].cfg = cfg;
		q[i].query = argv[6 + i];
		q[i].range_s = range_s;
		q[i].step_s = step_s;
		fq[i] = q[i];
		fq[i].range_s = frange;
		fq[i].step_s = fstep;
		iq[i] = q[i];
		iq[i].range_s = iq[i].step_s = 0;
	}
	if (alone && *alone) {
		q[n] = q[0];
		q[n].query = alone;
		iq[n] = q[n];
		iq[n].range_s = iq[n].step_s = 0;
		n++;
	}
	phase0 = getenv("RANGECHECK_PHASE0") &&
		 !strcmp(getenv("RANGECHECK_PHASE0"), "1");
	pthread_mutex_init(&got.mu, NULL);
	pthread_cond_init(&got.cv, NULL);
	end = mono_now() + seconds;
	while (mono_now() < end) {
		int moved = 0;

		memset(r1, 0, sizeof(r1));
		memset(r2, 0, sizeof(r2));
		memset(got.a, 0, sizeof(got.a));
		got.done = 0;
		for (i = 0; i < n; i++)
			if (full_fetch(easy, argv[1], q[i].query, range_s,
				       step_s, &r1[i]))
				goto out;
		if (fstep > 0) {     /* the finer ranges first */
			sent_fine = wall();
			if (fetch_submit(f, "rangecheck", "", fq, nf, on_done,
					 &got))
				goto out;
			got_wait(&got);
			for (i = 0; i < nf; i++)
				full_release(&got.a[i]);
			got.done = 0;
		}
		if (fetch_submit(f, "rangecheck", "", q, n, on_done, &got))
			goto out;
		got_wait(&got);
		for (i = 0; i < n; i++) {
			if (full_fetch(easy, argv[1], q[i].query, range_s,
				       step_s, &r2[i]))
				goto out;
			moved |= r1[i].end_ms != r2[i].end_ms;
		}
		rounds++;
		moved |= phase0 && rounds == 1;
		for (i = 0; i < n && !moved; i++) {
			compared++;
			if (same(&got.a[i], &r1[i]) || same(&got.a[i], &r2[i]))
				continue;
			differed++;
			fprintf(stderr, "rangecheck: round %ld, '%s' differs "
				"from a full fetch of the grid ending %lld\n",
				rounds, q[i].query, r1[i].end_ms);
			show("kept and extended", &got.a[i]);
			show("full fetch before", &r1[i]);
			show("full fetch after", &r2[i]);
		}
		for (i = 0; i < n; i++) {
			full_release(&r1[i]);
			full_release(&r2[i]);
			full_release(&got.a[i]);
		}
		if (fstep > 0) {     /* the instants, after the ranges */
			got.done = 0;
			sent_inst = wall();
			if (fetch_submit(f, "rangecheck", "", iq, n, on_done,
					 &got))
				goto out;
			got_wait(&got);
			for (i = 0; i < n; i++) {
				struct full *a = &got.a[i];
				enum prom_err ierr = PROM_OK, serr = PROM_OK;
				double v = 0, ended = 0, sent;

				instants++;
				if (i >= nf && a->err == PROM_OK &&
				    on_grid(q[i].query, range_s, step_s,
					    a->ts[0]))
					alone_from_range++;
				if (a->err == PROM_OK &&
				    instant_at(easy, argv[1], q[i].query,
					       a->ts[0], &ierr, &v))
					goto out;
				/* an error is a fetch's own (one from the
				 * range has a value), and has no time */
				if (a->err != PROM_OK || (ierr == PROM_OK &&
				    !memcmp(&v, &a->vals[0], sizeof(v)))) {
					full_release(a);
					continue;
				}
				/* a fetch of its own is evaluated when asked
				 * (its time in whole ms); a range's point is
				 * no newer than the range's fetch */
				sent = a->ts[0] >= sent_inst - 0.001 ?
				       sent_inst : sent_fine;
				if (instant_at(easy, argv[1], RC_SCRAPE_END,
					       a->ts[0], &serr, &ended))
					goto out;
				if (serr == PROM_OK &&
				    ended + RC_COMMIT_S >= sent) {
					raced++;
					fprintf(stderr, "rangecheck: round %ld, "
						"instant '%s' at %.3f asked at "
						"%.3f, a scrape ended %.3f: "
						"%.17g, the backend's now "
						"%.17g (raced)\n", rounds,
						q[i].query, a->ts[0], sent,
						ended, a->vals[0], v);
					full_release(a);
					continue;
				}
				differed++;
				fprintf(stderr, "rangecheck: round %ld, instant "
					"'%s': %s %.17g at %.3f, the backend's "
					"at that time: %s %.17g\n", rounds,
					q[i].query, prom_strerror(a->err),
					a->n ? a->vals[0] : 0.0,
					a->n ? a->ts[0] : 0.0,
					prom_strerror(ierr), v);
				full_release(a);
			}
		}
		/* a few rounds a step, at varying phases */
		{
			struct timespec ts = { 0, 150000000L +
					       (rounds % 7) * 40000000L +
					       (fstep > 0 ? 500000000L : 0) };

			nanosleep(&ts, NULL);
		}
	}
	fetch_get_stats(f, &st);
	printf("rangecheck: rounds %ld compared %ld differed %ld tail %lu "
	       "full %lu renewed %lu requests %lu derived %lu off %lu "
	       "instants %ld from_range %lu raced %ld alone_from_range %ld\n",
	       rounds, compared, differed, st.range_tail, st.range_full,
	       st.range_renewed, st.requests, st.range_derived,
	       st.range_derive_off, instants, st.instant_from_range, raced,
	       alone_from_range);
	rc = differed ? 1 : 0;
out:
	if (rc == 1 && !differed)
		fprintf(stderr, "rangecheck: the backend could not be read\n");
	fetch_free(f);
	if (easy)
		curl_easy_cleanup(easy);
	config_drop(cfg);
	return rc;
}
