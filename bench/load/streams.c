/*
 * streams.c - `staffer-load streams` and `staffer-load memory`: what open
 * StreamIsActive streams cost the server.
 *
 * streams: per repetition, two phases in the same server, their order
 * alternating (with streams first on even repetitions): without
 * streams, and with K open (K distinct ScaledObjects over --queries
 * distinct queries, so the backend is polled for a few queries only;
 * opened, each with its first message, then closed again).  Each phase
 * is an idle window (the server's CPU from /proc) and a GetMetrics window
 * at --inflight.  The ratio of a repetition's two windows compares one
 * server with itself: fresh servers on this machine differ by a third.
 *
 * memory: the server's RSS idle, after each --steps count of distinct
 * ScaledObjects has been asked GetMetrics and IsActive once, and after
 * each --streams count of streams is open on those objects; with it its
 * anonymous and file-backed parts (proc.h: proc_rss_parts()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bstats.h"
#include "load.h"
#include "req.h"

#define ST_OPEN_WAIT_S 180.0      /* longest wait for first messages */
#define ST_SETTLE_S 2.0           /* after opening, before measuring */

struct st_set;

struct st_one {
	struct st_set *set;
	struct lc_call *call;     /* NULL once ended */
	int got_first;
};

struct st_set {
	struct lc *c;
	struct st_one *one;
	size_t n, opened, first, ended, failed, bad;
	double msgs;
	int cancelling;
	size_t ended_early;       /* before we cancelled: server ended it */
};

static void st_cb(void *arg, const struct lc_result *r)
{
	struct st_one *s = arg;
	struct st_set *set = s->set;

	if (r->ended) {
		s->call = NULL;
		set->ended++;
		if (!set->cancelling)
			set->ended_early++;
		return;
	}
	set->msgs++;
	if (!r->reply_ok)
		set->bad++;
	if (!s->got_first) {
		s->got_first = 1;
		set->first++;
	}
}

static int st_init(struct st_set *set, struct lc *c, size_t n)
{
	memset(set, 0, sizeof(*set));
	set->c = c;
	set->one = calloc(n ? n : 1, sizeof(*set->one));
	set->n = n;
	return set->one ? 0 : -1;
}

/* Open streams [from, to) with requests reqs[i] and wait for their first
 * messages.  0 when every one of them answered. */
static int st_open(struct st_set *set, const grpc_slice *reqs, size_t from,
		   size_t to)
{
	double end;
	size_t i, want;

	for (i = from; i < to && i < set->n; i++) {
		set->one[i].set = set;
		set->one[i].call = lc_stream_open(set->c, reqs[i], st_cb,
						  &set->one[i]);
		if (set->one[i].call)
			set->opened++;
		else
			set->failed++;
		if (i % 256 == 255)       /* keep the queue drained */
			lc_poll(set->c, lc_now());
	}
	want = set->opened;
	end = lc_now() + ST_OPEN_WAIT_S;
	while (set->first + set->ended_early < want && lc_now() < end)
		lc_poll(set->c, lc_now() + 0.5);
	return set->first == want && !set->failed ? 0 : -1;
}

/* Cancel every open stream and wait for their ends. */
static void st_close(struct st_set *set)
{
	double t0 = lc_now(), end = t0 + 60;
	size_t i;

	set->cancelling = 1;
	for (i = 0; i < set->n; i++)
		if (set->one[i].call)
			lc_stream_cancel(set->one[i].call);
	while (set->ended < set->opened && lc_now() < end)
		lc_poll(set->c, lc_now() + 0.5);
	printf("result streams_closed ended=%zu of=%zu seconds=%.3f\n",
	       set->ended, set->opened, lc_now() - t0);
	fflush(stdout);
}

static void st_release(struct st_set *set)
{
	free(set->one);
	set->one = NULL;
}

/* Poll (serving stream messages) for s seconds. */
static void st_wait(struct lc *c, double s)
{
	double end = lc_now() + s;

	while (lc_now() < end)
		lc_poll(c, end);
}

static void st_print_open(const char *what, struct st_set *set, double t0)
{
	printf("result %s opened=%zu first=%zu failed=%zu ended_early=%zu "
	       "bad=%zu seconds=%.3f\n", what, set->opened, set->first,
	       set->failed, set->ended_early, set->bad, lc_now() - t0);
	fflush(stdout);
}

/* One phase of repetition r: k streams open (0: none) from reqs, an
 * idle window and a GetMetrics window at --inflight beside them; the
 * streams are closed again at its end.  0 on success. */
static int st_phase(struct lc *c, const struct load_opts *o, size_t k,
		    const grpc_slice *reqs, const grpc_slice *metrics, int r,
		    struct load_window *w)
{
	struct st_set set;
	struct proc_sample s0, s1, m0, m1, b0, b1, a0, a1;
	struct bstats bs0, bs1;
	char labels[128];
	double t0;
	int rc = -1;

	if (st_init(&set, c, k))
		return -1;
	if (k) {
		load_progress("streams: rep %d: opening %zu", r, k);
		t0 = lc_now();
		st_open(&set, reqs, 0, k);
		st_print_open("streams_open", &set, t0);
	}
	st_wait(c, ST_SETTLE_S);
	bstats_get(o->backend, &bs0);
	proc_read(o->pid, &s0);
	proc_read(0, &m0);
	proc_read(o->backend_pid, &b0);
	proc_machine(&a0);
	st_wait(c, o->idle_s);
	proc_read(o->pid, &s1);
	proc_read(0, &m1);
	proc_read(o->backend_pid, &b1);
	proc_machine(&a1);
	bstats_get(o->backend, &bs1);
	printf("result idle streams=%zu rep=%d seconds=%.3f "
	       "server_cpu=%.4f client_cpu=%.4f backend_cpu=%.4f "
	       "machine_cpu=%.4f backend_requests=%.0f rss_kib=%.0f\n",
	       k, r, a1.at - a0.at, proc_cpu_share(&s0, &s1),
	       proc_cpu_share(&m0, &m1), proc_cpu_share(&b0, &b1),
	       proc_cpu_share(&a0, &a1), bs1.requests - bs0.requests,
	       s1.rss_bytes / 1024);
	fflush(stdout);
	load_progress("streams: %zu open, rep %d: idle server CPU %.1f %%",
		      k, r, 100 * proc_cpu_share(&s0, &s1));
	if (load_closed(c, o, LC_GET_METRICS, metrics, (size_t)o->objects,
			o->inflights[0], w))
		goto out;
	snprintf(labels, sizeof(labels),
		 "method=GetMetrics inflight=%d streams=%zu rep=%d",
		 o->inflights[0], k, r);
	load_print_window("unary", labels, w);
	load_progress("streams: %zu open, rep %d: GetMetrics %.0f RPC/s", k,
		      r, w->ok / w->seconds);
	if (k)
		printf("result streams_alive open=%zu ended_early=%zu "
		       "msgs=%.0f bad=%zu\n", set.opened - set.ended,
		       set.ended_early, set.msgs, set.bad);
	rc = 0;
out:
	if (k)
		st_close(&set);
	st_release(&set);
	return rc;
}

int load_streams(struct lc *c, const struct load_opts *o)
{
	size_t k = (size_t)o->stream_steps[0], i;
	grpc_slice *sreqs = NULL, *metrics = NULL;
	struct load_window w;
	char name[REQ_NAME_MAX], query[REQ_NAME_MAX];
	int r, rc = -1;

	lat_init(&w.lat);
	sreqs = calloc(k ? k : 1, sizeof(*sreqs));
	metrics = load_pack(o->ns, "obj", o->objects, 1, NULL);
	if (!sreqs || !metrics)
		goto out;
	for (i = 0; i < k; i++) {
		snprintf(name, sizeof(name), "st-%zu", i);
		snprintf(query, sizeof(query), "st_rate_%zu",
			 i % (size_t)o->queries);
		sreqs[i] = req_ref("bench-streams", name, query,
				   (unsigned long)i);
	}
	load_pass(c, o, LC_GET_METRICS, metrics, (size_t)o->objects, 8, NULL,
		  NULL);
	for (r = 1; r <= o->reps; r++) {
		/* alternate the order: a trend over the run (the machine
		 * warming, the heap growing) falls on both phases alike */
		size_t first = r % 2 ? 0 : k, second = r % 2 ? k : 0;

		if (st_phase(c, o, first, sreqs, metrics, r, &w) ||
		    (k && st_phase(c, o, second, sreqs, metrics, r, &w)))
			goto out;
	}
	rc = 0;
out:
	lat_release(&w.lat);
	load_unpack(sreqs, (int)k);
	load_unpack(metrics, o->objects);
	return rc;
}

static void mem_print(const struct load_opts *o, struct lc *c, int objects,
		      int streams)
{
	struct proc_sample s;
	double anon = 0, file = 0;

	st_wait(c, 1.0);          /* let the server finish what it started */
	proc_read(o->pid, &s);
	/* RSS is what the target is judged on; its anonymous part is
	 * what staffer's own data costs, the file-backed part mostly shared
	 * libraries' pages (0 and 0 where /proc/PID/status cannot be read) */
	proc_rss_parts(o->pid, &anon, &file);
	printf("result rss objects=%d streams=%d kib=%.0f anon_kib=%.0f "
	       "file_kib=%.0f\n", objects, streams, s.rss_bytes / 1024,
	       anon / 1024, file / 1024);
	fflush(stdout);
	load_progress("memory: %d objects, %d streams: %.1f MiB (anonymous "
		      "%.1f)", objects, streams, s.rss_bytes / 1048576,
		      anon / 1048576);
}

int load_memory(struct lc *c, const struct load_opts *o)
{
	int most = o->steps[o->n_steps - 1], prev = 0, i, rc = -1;
	grpc_slice *metrics = NULL, *refs = NULL;
	struct st_set set;
	double ok = 0, errors = 0, t0;
	size_t opened = 0;

	for (i = 0; i < o->n_steps; i++)
		if (o->steps[i] > most)
			most = o->steps[i];
	for (i = 0; i < o->n_stream_steps; i++)
		if (o->stream_steps[i] > most)
			most = o->stream_steps[i];
	if (st_init(&set, c, (size_t)most))
		return -1;
	metrics = load_pack(o->ns, "obj", most, 1, NULL);
	refs = load_pack(o->ns, "obj", most, 0, NULL);
	if (!metrics || !refs)
		goto out;
	mem_print(o, c, 0, 0);
	for (i = 0; i < o->n_steps; i++) {
		int to = o->steps[i];

		if (to > prev) {
			load_pass(c, o, LC_GET_METRICS, metrics + prev,
				  (size_t)(to - prev), o->inflights[0], &ok,
				  &errors);
			load_pass(c, o, LC_IS_ACTIVE, refs + prev,
				  (size_t)(to - prev), o->inflights[0], &ok,
				  &errors);
			prev = to;
		}
		mem_print(o, c, prev, 0);
	}
	printf("result objects ok=%.0f errors=%.0f\n", ok, errors);
	for (i = 0; i < o->n_stream_steps; i++) {
		size_t to = (size_t)o->stream_steps[i];

		if (to <= opened)
			continue;
		t0 = lc_now();
		st_open(&set, refs, opened, to);
		opened = to;
		st_print_open("streams_open", &set, t0);
		st_wait(c, ST_SETTLE_S);
		mem_print(o, c, prev, (int)opened);
	}
	rc = 0;
out:
	st_close(&set);
	st_release(&set);
	load_unpack(metrics, most);
	load_unpack(refs, most);
	return rc;
}
