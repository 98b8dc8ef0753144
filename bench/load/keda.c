/*
 * keda.c - `staffer-load keda`: the calls KEDA makes for many
 * ScaledObjects, spread over time as KEDA spreads them.
 *
 * For each ScaledObject KEDA's operator runs GetMetricSpec, GetMetrics
 * and IsActive, one after the other on one connection, at every HPA
 * read of the external metric (the HPA syncs every 15 s) and at every
 * scale-loop poll (pollingInterval, 30 s by default): two bursts of
 * three calls per object per 30 s, each object at its own phase (drawn
 * uniformly, seeded).  The burst's GetMetrics is the first call that
 * needs the backend, so its latency is the "first call of the cycle".
 *
 * --compress C runs time C times faster (periods 15/C and 30/C s); the
 * server's cacheTTLSeconds must then be divided by C too (bench/
 * service.py does), or the cache would look C times better.
 *
 * After --warmup seconds (uncompressed), --windows windows of --window
 * seconds each are measured: latencies of the bursts that start in the
 * window, and the fake backend's counts of requests per distinct query
 * (reset at the window's start).  "Per cycle" means per 15 s HPA cycle.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bstats.h"
#include "load.h"
#include "req.h"
#include "sim/simheap.h"
#include "sim/simrng.h"

#define KEDA_HPA_S 15.0           /* HPA sync period */
#define KEDA_POLL_S 30.0          /* KEDA's default pollingInterval */
#define KEDA_WINDOWS_MAX 100

enum keda_ev { KEDA_EV_HPA, KEDA_EV_POLL };

struct keda_win {
	struct lat first, all, lag;
	double bursts, calls, errors;
	double wrong;             /* GetMetrics answers not as --expect */
	struct proc_sample s0, s1, m0, m1, b0, b1, a0, a1;
	struct bstats bs;
	int bs_ok;                /* the backend's counts could be read */
};

struct keda {
	struct lc *c;
	const struct load_opts *o;
	grpc_slice *refs, *metrics;
	double t_m0, win_s;       /* first window's start; window length */
	struct keda_win win[KEDA_WINDOWS_MAX];
	double started, finished, start_failed;
};

struct keda_burst {
	struct keda *k;
	uint32_t obj;
	int step;                 /* 0 GetMetricSpec, 1 GetMetrics, 2 IsActive */
	int w;                    /* window, or -1 */
};

static const enum lc_method keda_steps[3] = {
	LC_GET_METRIC_SPEC, LC_GET_METRICS, LC_IS_ACTIVE
};

static void keda_next(struct keda_burst *b);

static void keda_done(void *arg, const struct lc_result *r)
{
	struct keda_burst *b = arg;
	struct keda *k = b->k;

	if (b->w >= 0) {
		struct keda_win *w = &k->win[b->w];

		w->calls++;
		if (!r->reply_ok)
			w->errors++;
		lat_add(&w->all, r->latency_s);
		if (b->step == 1)
			lat_add(&w->first, r->latency_s);
		if (b->step == 1 && r->reply_ok && k->o->n_expect &&
		    r->value != k->o->expect[b->obj %
					     (uint32_t)k->o->n_expect])
			w->wrong++;
	}
	b->step++;
	keda_next(b);
}

/* Start the burst's current step, or end the burst. */
static void keda_next(struct keda_burst *b)
{
	struct keda *k = b->k;
	enum lc_method m;

	while (b->step < 3) {
		m = keda_steps[b->step];
		if (lc_unary(k->c, m, m == LC_GET_METRICS ?
			     k->metrics[b->obj] : k->refs[b->obj],
			     k->o->timeout_s, keda_done, b) == 0)
			return;
		k->start_failed++;
		if (b->w >= 0)
			k->win[b->w].errors++;
		b->step++;
	}
	k->finished++;
	free(b);
}

static void keda_burst(struct keda *k, uint32_t obj, double due, double now)
{
	struct keda_burst *b = calloc(1, sizeof(*b));
	int w = -1;

	if (!b) {
		k->start_failed++;
		return;
	}
	if (due >= k->t_m0) {
		w = (int)floor((due - k->t_m0) / k->win_s);
		if (w >= k->o->windows)
			w = -1;
	}
	b->k = k;
	b->obj = obj;
	b->w = w;
	k->started++;
	if (w >= 0) {
		k->win[w].bursts++;
		lat_add(&k->win[w].lag, now - due);
	}
	keda_next(b);
}

static double ms(struct lat *l, double q)
{
	double v = lat_quantile(l, q);

	return isnan(v) ? -1 : v * 1e3;
}

static void keda_win_open(struct keda *k, int i)
{
	struct keda_win *w = &k->win[i];

	bstats_reset(k->o->backend);
	proc_read(k->o->pid, &w->s0);
	proc_read(0, &w->m0);
	proc_read(k->o->backend_pid, &w->b0);
	proc_machine(&w->a0);
}

static void keda_win_close(struct keda *k, int i)
{
	struct keda_win *w = &k->win[i];
	const struct load_opts *o = k->o;

	w->bs_ok = bstats_get(o->backend, &w->bs) == 0;
	proc_read(o->pid, &w->s1);
	proc_read(0, &w->m1);
	proc_read(o->backend_pid, &w->b1);
	proc_machine(&w->a1);
	load_progress("keda: window %d: %.0f bursts, backend %.0f requests "
		      "for %.0f queries", i + 1, w->bursts, w->bs.requests,
		      w->bs.used);
}

static void keda_win_print(struct keda *k, int i)
{
	struct keda_win *w = &k->win[i];
	const struct load_opts *o = k->o;
	double cycles = o->window_s / KEDA_HPA_S;

	printf("result keda window=%d objects=%d compress=%g bursts=%.0f "
	       "calls=%.0f errors=%.0f wrong=%.0f first_p50_ms=%.4f "
	       "first_p99_ms=%.4f "
	       "first_max_ms=%.4f all_p50_ms=%.4f all_p99_ms=%.4f "
	       "all_max_ms=%.4f lag_p99_ms=%.4f lag_max_ms=%.4f "
	       "backend_requests=%.0f backend_used=%.0f backend_max=%.0f "
	       "cycles=%.3f per_query_cycle=%.4f max_query_cycle=%.4f "
	       "server_cpu=%.4f client_cpu=%.4f backend_cpu=%.4f "
	       "machine_cpu=%.4f backend_ok=%d\n",
	       i + 1, o->objects, o->compress, w->bursts, w->calls, w->errors,
	       w->wrong,
	       ms(&w->first, 0.5), ms(&w->first, 0.99), ms(&w->first, 1),
	       ms(&w->all, 0.5), ms(&w->all, 0.99), ms(&w->all, 1),
	       ms(&w->lag, 0.99), ms(&w->lag, 1), w->bs.requests,
	       w->bs.used, w->bs.max, cycles,
	       w->bs.used > 0 ? w->bs.requests / w->bs.used / cycles : 0,
	       w->bs.max / cycles, proc_cpu_share(&w->s0, &w->s1),
	       proc_cpu_share(&w->m0, &w->m1),
	       proc_cpu_share(&w->b0, &w->b1),
	       proc_cpu_share(&w->a0, &w->a1), w->bs_ok);
	fflush(stdout);
}

int load_keda(struct lc *c, const struct load_opts *o)
{
	struct keda *k = calloc(1, sizeof(*k));
	struct simheap h;
	struct simrng rng;
	struct simev ev;
	double hpa = KEDA_HPA_S / o->compress, poll = KEDA_POLL_S / o->compress;
	double t_base, t_end, now, next;
	int i, open = -1, rc = -1;

	simheap_init(&h);
	if (!k)
		return -1;
	if (o->windows > KEDA_WINDOWS_MAX)
		goto out;
	for (i = 0; i < o->windows; i++) {
		lat_init(&k->win[i].first);
		lat_init(&k->win[i].all);
		lat_init(&k->win[i].lag);
	}
	k->c = c;
	k->o = o;
	k->refs = load_pack(o->ns, "obj", o->objects, 0, o->query);
	k->metrics = load_pack(o->ns, "obj", o->objects, 1, o->query);
	if (!k->refs || !k->metrics)
		goto out;
	simrng_seed(&rng, o->seed);
	t_base = lc_now() + 0.5;
	k->win_s = o->window_s / o->compress;
	k->t_m0 = t_base + o->warmup_s / o->compress;
	t_end = k->t_m0 + k->win_s * o->windows;
	for (i = 0; i < o->objects; i++)
		if (simheap_push(&h, t_base + simrng_uniform(&rng) * hpa,
				 KEDA_EV_HPA, (uint32_t)i) ||
		    simheap_push(&h, t_base + simrng_uniform(&rng) * poll,
				 KEDA_EV_POLL, (uint32_t)i))
			goto out;
	load_progress("keda: %d objects, HPA every %gs, poll every %gs; "
		      "warm-up %gs, %d windows of %gs", o->objects, hpa, poll,
		      o->warmup_s / o->compress, o->windows, k->win_s);
	for (;;) {
		const struct simev *top;

		now = lc_now();
		/* window edges */
		while (open + 1 < o->windows &&
		       now >= k->t_m0 + k->win_s * (open + 1)) {
			if (open >= 0)
				keda_win_close(k, open);
			open++;
			keda_win_open(k, open);
		}
		if (open == o->windows - 1 && now >= t_end) {
			keda_win_close(k, open);
			open++;
		}
		if (open >= o->windows)
			break;
		while ((top = simheap_peek(&h)) && top->t <= now) {
			simheap_pop(&h, &ev);
			keda_burst(k, ev.arg, ev.t, now);
			if (ev.t + (ev.type == KEDA_EV_HPA ? hpa : poll) < t_end)
				simheap_push(&h, ev.t + (ev.type == KEDA_EV_HPA ?
						 hpa : poll), ev.type, ev.arg);
		}
		next = k->t_m0 + k->win_s * (open + 1);
		top = simheap_peek(&h);
		if (top && top->t < next)
			next = top->t;
		lc_poll(c, next);
	}
	while (lc_unary_inflight(c) > 0)
		lc_poll(c, lc_now() + 1.0);
	for (i = 0; i < o->windows; i++)
		keda_win_print(k, i);
	printf("result keda_total bursts=%.0f finished=%.0f start_failed=%.0f"
	       "\n", k->started, k->finished, k->start_failed);
	rc = 0;
out:
	simheap_free(&h);
	for (i = 0; i < o->windows && i < KEDA_WINDOWS_MAX; i++) {
		lat_release(&k->win[i].first);
		lat_release(&k->win[i].all);
		lat_release(&k->win[i].lag);
	}
	load_unpack(k->refs, o->objects);
	load_unpack(k->metrics, o->objects);
	free(k);
	return rc;
}
