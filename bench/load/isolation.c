/*
 * isolation.c - `staffer-load isolation`: one namespace's slow queries
 * against another's GetMetrics, both on the same backend host.
 *
 * The quiet namespace sends GetMetrics at a steady --rate, each for a
 * ScaledObject with a query of its own, so each one is a cache miss
 * and a real backend request (the first call of a cycle).  The noisy
 * namespace keeps --noisy GetMetrics in flight whose queries start with
 * "slow" (the fake backend answers them after --slow-ms) and never
 * repeat, so none is served from the cache.  Each repetition measures
 * the quiet namespace alone for --seconds, then beside the noisy one:
 * latency of every quiet call (failures included: a slow failure is
 * the worse answer) and how many did not answer OK.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bstats.h"
#include "load.h"
#include "req.h"

#define ISO_RAMP_S 0.5            /* noisy calls reach the backend */
#define ISO_DRAIN_S 120.0         /* longest wait for calls to end */

struct iso {
	struct lc *c;
	const struct load_opts *o;
	unsigned long seq;        /* makes every query unique */
	int noisy_on;
	double noisy_inflight, noisy_ok, noisy_errors;
	double quiet_inflight, quiet_ok, quiet_errors;
	struct lat lat;
	double slow_peak;
};

static void iso_noisy_done(void *arg, const struct lc_result *r);
static void iso_quiet_done(void *arg, const struct lc_result *r);

/* Start one GetMetrics in namespace ns for ScaledObject "<ns>-<name_n>"
 * with the query "<query_prefix>_<seq>", never asked before. */
static void iso_start(struct iso *s, const char *ns, unsigned long name_n,
		      const char *query_prefix, lc_done_fn *cb,
		      double *inflight, double *errors)
{
	char name[REQ_NAME_MAX], query[REQ_NAME_MAX];
	grpc_slice req;

	snprintf(name, sizeof(name), "%s-%lu", ns, name_n);
	snprintf(query, sizeof(query), "%s_%lu", query_prefix, s->seq++);
	req = req_metrics(ns, name, query, name_n);
	if (lc_unary(s->c, LC_GET_METRICS, req, s->o->timeout_s, cb, s) == 0)
		(*inflight)++;
	else
		(*errors)++;
	grpc_slice_unref(req);
}

/* The noisy namespace: the backend answers "slow..." queries late. */
static void iso_noisy_start(struct iso *s)
{
	iso_start(s, "noisy", s->seq % (unsigned long)(s->o->noisy ?
						       s->o->noisy : 1),
		  "slow_rate", iso_noisy_done, &s->noisy_inflight,
		  &s->noisy_errors);
}

static void iso_noisy_done(void *arg, const struct lc_result *r)
{
	struct iso *s = arg;

	s->noisy_inflight--;
	if (r->reply_ok)
		s->noisy_ok++;
	else
		s->noisy_errors++;
	if (s->noisy_on)
		iso_noisy_start(s);
}

/* The quiet namespace: a ScaledObject of its own each time. */
static void iso_quiet_start(struct iso *s)
{
	iso_start(s, "quiet", s->seq, "quiet_rate", iso_quiet_done,
		  &s->quiet_inflight, &s->quiet_errors);
}

static void iso_quiet_done(void *arg, const struct lc_result *r)
{
	struct iso *s = arg;

	s->quiet_inflight--;
	lat_add(&s->lat, r->latency_s);
	if (r->reply_ok)
		s->quiet_ok++;
	else
		s->quiet_errors++;
}

/* Quiet calls at o->rate for o->seconds, then wait for them. */
static void iso_quiet_window(struct iso *s)
{
	double t0 = lc_now(), end = t0 + s->o->seconds, due = t0, now;
	struct bstats bs;

	s->quiet_ok = s->quiet_errors = 0;
	lat_reset(&s->lat);
	s->slow_peak = 0;
	while ((now = lc_now()) < end) {
		while (due <= now) {
			iso_quiet_start(s);
			due += 1.0 / s->o->rate;
		}
		lc_poll(s->c, due < end ? due : end);
	}
	if (bstats_get(s->o->backend, &bs) == 0)
		s->slow_peak = bs.slow;
	end = lc_now() + ISO_DRAIN_S;
	while (s->quiet_inflight > 0 && lc_now() < end)
		lc_poll(s->c, lc_now() + 0.5);
}

static void iso_print(struct iso *s, const char *phase, int rep)
{
	double p50 = lat_quantile(&s->lat, 0.5), p99 = lat_quantile(&s->lat,
								      0.99);

	printf("result isolation phase=%s rep=%d quiet_calls=%.0f "
	       "quiet_errors=%.0f p50_ms=%.4f p99_ms=%.4f max_ms=%.4f "
	       "noisy_ok=%.0f noisy_errors=%.0f backend_slow=%.0f\n", phase,
	       rep, s->quiet_ok + s->quiet_errors, s->quiet_errors, p50 * 1e3,
	       p99 * 1e3, lat_max(&s->lat) * 1e3, s->noisy_ok,
	       s->noisy_errors, s->slow_peak);
	fflush(stdout);
	load_progress("isolation: %s, rep %d: quiet p99 %.1f ms, %.0f not OK",
		      phase, rep, p99 * 1e3, s->quiet_errors);
}

int load_isolation(struct lc *c, const struct load_opts *o)
{
	struct iso s = { 0 };
	double end;
	int r, i;

	s.c = c;
	s.o = o;
	lat_init(&s.lat);
	for (r = 1; r <= o->reps; r++) {
		s.noisy_ok = s.noisy_errors = 0;
		iso_quiet_window(&s);
		iso_print(&s, "alone", r);

		s.noisy_on = 1;
		for (i = 0; i < o->noisy; i++)
			iso_noisy_start(&s);
		end = lc_now() + ISO_RAMP_S;
		while (lc_now() < end)
			lc_poll(c, end);
		iso_quiet_window(&s);
		s.noisy_on = 0;
		end = lc_now() + ISO_DRAIN_S;
		while (s.noisy_inflight > 0 && lc_now() < end)
			lc_poll(c, lc_now() + 0.5);
		iso_print(&s, "noisy", r);
	}
	lat_release(&s.lat);
	return 0;
}
