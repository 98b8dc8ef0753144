/*
 * clients.h - arrivals from windowed rates as the sum of clients'
 * renewal processes: the burstiness a rate file carries, kept.
 *
 * A ServeGen rate file gives, per 10-minute window, the total rate, the
 * number of active clients, the largest client's share of the rate and
 * the clients' inter-arrival coefficient of variation (weighted by rate).
 * A Poisson process at the total rate drops all but the first: real
 * clients send in bursts (CV 2-6 at the median, 30 and more in some
 * windows), and one client often sends a quarter to a half of the
 * traffic.  Here every client is a renewal process whose gaps are Gamma
 * with the window's CV, the largest client at its share and the others
 * splitting the rest evenly:
 *  - client j's rate is share_j x the total rate, the total piecewise
 *    linear as the caller's segments give it;
 *  - each client runs in its own operational time (the integral of its
 *    rate), where its gaps have mean 1 and CV cv (Gamma, shape 1/cv^2),
 *    so its arrivals keep the rate exactly in expectation however the
 *    rate moves (time rescaling);
 *  - at every window start each client's next arrival is drawn afresh
 *    from the stationary renewal process of the new window (the forward
 *    recurrence time: U x a length-biased gap, Gamma(shape + 1)), so each
 *    window is a stationary stretch of its own clients, as ServeGen's
 *    generator makes them, and no client starts in step with the others.
 * One CV for every client is the least bursty reading of a rate-weighted
 * mean CV (the superposition's long-run index of dispersion is the
 * rate-weighted mean of cv^2, which for a given mean of cv is least when
 * all are equal): kinder than the data, never harsher.
 *
 * Pure: no I/O, no globals; draws only from the simrng given, so the same
 * seed gives the same arrivals.
 */
#ifndef STAFFER_CLIENTS_H
#define STAFFER_CLIENTS_H

#include <stddef.h>

#include "simrng.h"

#define CLIENTS_MAX 10000      /* clients in one window */
#define CLIENTS_CV_MAX 1000.0  /* a larger CV is taken as this */

/* One stretch of time with the total rate linear from y0 to y1. */
struct clients_seg {
	double x0, x1;    /* seconds, x0 < x1 (else the segment is skipped) */
	double y0, y1;    /* total rate at x0 and x1, req/s, >= 0 */
	double clients;   /* active clients; rounded, at least 1 */
	double top_share; /* the largest client's share of the rate, clamped
			   * to [1 / clients, 1] */
	double cv;        /* inter-arrival CV; not > 0 or not finite: 1 */
	int fresh;        /* a new window starts at x0: every client's next
			   * arrival is drawn afresh */
};

/* Called once per arrival (in no particular order within a segment);
 * non-zero stops the replay with that value. */
typedef int clients_emit_fn(void *arg, double at);

/* The clients' state between segments: where each stands in its renewal
 * process.  Owns its memory: clients_release(). */
struct clients {
	double *rem;      /* operational distance to each one's next arrival */
	size_t have;
};

void clients_init(struct clients *c);
void clients_release(struct clients *c);

/*
 * Replay one segment; segments must come in time order.  Every arrival
 * of the segment lies in [x0, x1].  0 on success, else what emit
 * returned, or -1 when out of memory.
 */
int clients_seg(struct clients *c, const struct clients_seg *s,
		struct simrng *r, clients_emit_fn *emit, void *arg);

/* The share of the total rate client j of nc takes when the largest has
 * top_share (both as clients_seg takes them). */
double clients_share(size_t j, double clients, double top_share);

#endif
