/*
 * derivecheck.c - a range derived from a finer one (src/fetch.h) when the
 * backend misbehaves in the two ways that once left wrong points in the
 * answer, against tests/integration/scripted_prom.py:
 *
 *   A  the coarse range's own points differ from the fine one's (a
 *      backend whose points depend on the step) from time S on, and the
 *      whole-grid request that follows the disagreement fails once (503):
 *      the next request must ask for the whole grid again, so no answer
 *      once the disagreement is found (fetch_stats.range_derive_off) holds
 *      a derived point (a value below 1000 at or after S);
 *   B  from time S on every reply is off the grid and all NaN (a cache
 *      in front that moves starts, over an idle 0/0): the coarse range
 *      must not be derived from the fine one's old points, so it answers
 *      no finite point once its TTL has run out.
 *
 *     derivecheck URL A|B S_MS SECONDS
 *
 * A fine range F (20 s at 1 s) and a coarse one C (20 s at 2 s) of the
 * query "q", cacheTTLSeconds 1, rangeSettleSeconds 1, timeoutSeconds 0.5,
 * both asked every 0.25 s for SECONDS.  Prints
 * "result wrong=N answers=M off=K" (K: ranges found to differ from their
 * finer one) and exits 0 (the test judges N), 2 on bad
 * usage or a failure to run.  Built with ASan and UBSan.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "fetch.h"

#define DC_POINTS 64

struct got {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done;
	enum prom_err err;
	size_t n;
	double ts[DC_POINTS], vals[DC_POINTS];
};

static void on_done(void *arg, const struct fetch_answer *a, size_t n)
{
	struct got *g = arg;
	size_t i;

	(void)n;
	pthread_mutex_lock(&g->mu);
	g->err = a[0].err;
	g->n = a[0].n < DC_POINTS ? a[0].n : DC_POINTS;
	for (i = 0; i < g->n; i++) {
		g->ts[i] = a[0].ts[i];
		g->vals[i] = a[0].vals[i];
	}
	g->done = 1;
	pthread_cond_signal(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

static int ask(struct fetch *f, const struct fetch_query *q, struct got *g)
{
	g->done = 0;
	if (fetch_submit(f, "c", "ns", q, 1, on_done, g))
		return -1;
	pthread_mutex_lock(&g->mu);
	while (!g->done)
		pthread_cond_wait(&g->cv, &g->mu);
	pthread_mutex_unlock(&g->mu);
	return 0;
}

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char text[512], err[CONFIG_ERR_MAX];
	struct got gf = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			  0, PROM_OK, 0, { 0 }, { 0 } };
	struct got gc = gf;
	struct fetch_query fq, cq;
	struct timespec pause = { 0, 250000000 };
	struct fetch *f = NULL;
	struct config c;
	double s_ms, seconds, end;
	int scen_a, wrong = 0, answers = 0, rc = 2;
	size_t i;

	if (argc != 5 || (strcmp(argv[2], "A") && strcmp(argv[2], "B")) ||
	    !(s_ms = strtod(argv[3], NULL)) ||
	    !((seconds = strtod(argv[4], NULL)) > 0)) {
		fprintf(stderr, "usage: derivecheck URL A|B S_MS SECONDS\n");
		return 2;
	}
	scen_a = !strcmp(argv[2], "A");
	snprintf(text, sizeof(text), "{\"cacheTTLSeconds\":1,\"backends\":[{"
		 "\"name\":\"p\",\"url\":\"%s\",\"timeoutSeconds\":0.5,"
		 "\"rangeSettleSeconds\":1}]}", argv[1]);
	config_init(&c);
	if (config_load_text(&c, text, "derivecheck.json", err)) {
		fprintf(stderr, "derivecheck: %s\n", err);
		goto out;
	}
	f = fetch_new();
	if (!f)
		goto out;
	memset(&fq, 0, sizeof(fq));
	fq.backend = &c.backends[0];
	fq.cfg = &c;
	fq.query = "q";
	fq.range_s = 20;
	fq.step_s = 1;
	cq = fq;
	cq.step_s = 2;
	end = wall() + seconds;
	while (wall() < end) {
		int bad = 0;

		if (ask(f, &fq, &gf) || ask(f, &cq, &gc))
			goto out;
		answers++;
		if (scen_a) {
			struct fetch_stats st;

			/* a fetch of C gives v + 1000 from S on; until the
			 * two ranges are compared, derived points are all
			 * that can be known */
			fetch_get_stats(f, &st);
			for (i = 0; st.range_derive_off && i < gc.n; i++)
				if (gc.ts[i] * 1000 >= s_ms &&
				    gc.vals[i] < 1000)
					bad = 1;
		} else if (wall() * 1000 > s_ms + 2000) {
			/* all NaN from S on; C's TTL is 1 s */
			bad = gc.err == PROM_OK;
		}
		if (bad && gc.err == PROM_OK)
			wrong++;
		nanosleep(&pause, NULL);
	}
	{
		struct fetch_stats st;

		fetch_get_stats(f, &st);
		printf("result wrong=%d answers=%d off=%lu\n", wrong, answers,
		       st.range_derive_off);
	}
	rc = 0;
out:
	if (f) {
		fetch_stop(f);
		fetch_free(f);
	}
	config_release(&c);
	return rc;
}
