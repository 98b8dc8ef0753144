/* ask.c - see ask.h. */
#include "ask.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <time.h>

struct ask {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done;
	ask_fn *fn;
	void *arg;
};

/* fetch_done_fn: hand the answer over while it lives. */
static void ask_done(void *arg, const struct fetch_answer *a, size_t n)
{
	struct ask *k = arg;
	struct fetch_answer none = { .err = PROM_EHTTP, .msg = "no answer" };

	k->fn(k->arg, n ? &a[0] : &none);
	pthread_mutex_lock(&k->mu);
	k->done = 1;
	pthread_cond_signal(&k->cv);
	pthread_mutex_unlock(&k->mu);
}

int ask_wait(struct fetch *f, const char *caller, const struct fetch_query *q,
	     double timeout_s, ask_fn *fn, void *arg)
{
	struct ask k;
	struct timespec dl;
	int e = 0, rc = 0;

	k.done = 0;
	k.fn = fn;
	k.arg = arg;
	if (pthread_mutex_init(&k.mu, NULL))
		return 1;
	if (pthread_cond_init(&k.cv, NULL)) {
		pthread_mutex_destroy(&k.mu);
		return 1;
	}
	if (fetch_submit(f, caller, "", q, 1, ask_done, &k)) {
		rc = 1;
		goto out;
	}
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += (time_t)ceil(timeout_s);
	pthread_mutex_lock(&k.mu);
	while (!k.done && e != ETIMEDOUT)
		e = pthread_cond_timedwait(&k.cv, &k.mu, &dl);
	rc = k.done ? 0 : -1;
	pthread_mutex_unlock(&k.mu);
	if (rc) {
		/* completes the job: the callback runs, then we may go */
		fetch_stop(f);
		pthread_mutex_lock(&k.mu);
		while (!k.done)
			pthread_cond_wait(&k.cv, &k.mu);
		pthread_mutex_unlock(&k.mu);
	}
out:
	pthread_cond_destroy(&k.cv);
	pthread_mutex_destroy(&k.mu);
	return rc;
}
