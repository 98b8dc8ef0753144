/* memtrim.c - free heap pages back to the kernel; see memtrim.h. */
#include "memtrim.h"

#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "mono.h"

struct memtrim {
	pthread_t thread;
	pthread_mutex_t mu;          /* guards the fields below */
	pthread_cond_t cv;           /* stop */
	int stop;
	double period_s;
	unsigned long trims;
	double longest_s;
};

static void *memtrim_main(void *arg)
{
	struct memtrim *t = arg;
	struct timespec until;
	double t0, took;

	pthread_mutex_lock(&t->mu);
	while (!t->stop) {
		mono_deadline(t->period_s, &until);
		while (!t->stop &&
		       pthread_cond_timedwait(&t->cv, &t->mu, &until) == 0)
			;         /* woken early: only stop counts */
		if (t->stop)
			break;
		pthread_mutex_unlock(&t->mu);
		t0 = mono_now();
		malloc_trim(0);
		took = mono_now() - t0;
		pthread_mutex_lock(&t->mu);
		t->trims++;
		if (took > t->longest_s)
			t->longest_s = took;
	}
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

struct memtrim *memtrim_start(double period_s)
{
	struct memtrim *t;
	pthread_condattr_t ca;

	if (!(period_s > 0) || !(t = calloc(1, sizeof(*t))))
		return NULL;
	t->period_s = period_s;
	pthread_mutex_init(&t->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&t->thread, NULL, memtrim_main, t)) {
		pthread_cond_destroy(&t->cv);
		pthread_mutex_destroy(&t->mu);
		free(t);
		return NULL;
	}
	return t;
}

void memtrim_stop(struct memtrim *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->mu);
	t->stop = 1;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
	pthread_join(t->thread, NULL);
	pthread_cond_destroy(&t->cv);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

void memtrim_stats(struct memtrim *t, unsigned long *trims,
		   double *longest_s)
{
	pthread_mutex_lock(&t->mu);
	*trims = t->trims;
	*longest_s = t->longest_s;
	pthread_mutex_unlock(&t->mu);
}
