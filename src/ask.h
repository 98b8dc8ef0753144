/*
 * ask.h - one question to a backend, waited for: the blocking call the
 * tools make over fetch.h (`staffer tune`'s history, a chunk at a time;
 * `staffer explain`'s second look at a query's measured part).  The
 * server never blocks like this: it answers from callbacks.
 *
 * Thread-safe: each call waits on a condition of its own.  The callback
 * runs on the fetch thread; the caller's thread waits for it.
 */
#ifndef STAFFER_ASK_H
#define STAFFER_ASK_H

#include "fetch.h"

/* The answer, on the fetch thread: a is valid during the call only. */
typedef void ask_fn(void *arg, const struct fetch_answer *a);

/*
 * Submit query q through f (as caller, in its one lane: the tools ask
 * one question at a time) and wait at most timeout_s for
 * its answer, which fn gets.  Returns 0 when fn ran with the answer; 1
 * when the fetch module refused the job (fn did not run); -1 when no
 * answer came in time: the fetch module has then been stopped, which
 * completes the job (fn ran with a "shutting down" answer), and f takes
 * no more questions.
 */
int ask_wait(struct fetch *f, const char *caller, const struct fetch_query *q,
	     double timeout_s, ask_fn *fn, void *arg);

#endif
