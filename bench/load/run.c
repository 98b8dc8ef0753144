/*
 * run.c - the closed loop and what every scenario prints (load.h).
 *
 * Closed loop: N calls are started; each completion starts the next
 * until the window ends, then the rest drain.  Only completions inside
 * the window count, for the rate and the latencies alike.
 */
#include "load.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "req.h"

struct load_loop {
	struct lc *c;
	enum lc_method m;
	const grpc_slice *reqs;
	size_t n, next;
	double t0, end, timeout_s;
	struct load_window *w;
	int failed_start;
};

static int loop_start(struct load_loop *l);

static void loop_done(void *arg, const struct lc_result *r)
{
	struct load_loop *l = arg;
	double now = r->started + r->latency_s;

	if (now <= l->end && r->started >= l->t0) {
		if (r->reply_ok) {
			l->w->ok++;
			lat_add(&l->w->lat, r->latency_s);
		} else {
			l->w->errors++;
		}
	}
	if (now < l->end)
		loop_start(l);
}

static int loop_start(struct load_loop *l)
{
	const grpc_slice req = l->reqs[l->next];

	l->next = (l->next + 1) % l->n;
	if (lc_unary(l->c, l->m, req, l->timeout_s, loop_done, l)) {
		l->failed_start++;
		return -1;
	}
	return 0;
}

int load_closed(struct lc *c, const struct load_opts *o, enum lc_method m,
		const grpc_slice *reqs, size_t n, int inflight,
		struct load_window *w)
{
	struct load_loop l;
	double drain;
	int i, started = 0;

	l.c = c;
	l.m = m;
	l.reqs = reqs;
	l.n = n;
	l.next = 0;
	l.timeout_s = o->timeout_s;
	l.w = w;
	l.failed_start = 0;
	w->ok = w->errors = 0;
	lat_reset(&w->lat);
	proc_read(o->pid, &w->srv0);
	proc_read(0, &w->me0);
	proc_machine(&w->all0);
	l.t0 = lc_now();
	l.end = l.t0 + o->seconds;
	for (i = 0; i < inflight; i++)
		if (loop_start(&l) == 0)
			started++;
	if (!started)
		return -1;
	while (lc_now() < l.end)
		lc_poll(c, l.end);
	w->seconds = lc_now() - l.t0;
	proc_read(o->pid, &w->srv1);
	proc_read(0, &w->me1);
	proc_machine(&w->all1);
	drain = lc_now() + o->timeout_s + 5;
	while (lc_unary_inflight(c) > 0 && lc_now() < drain)
		lc_poll(c, lc_now() + 1.0);
	w->errors += l.failed_start;
	return 0;
}

static double ms(double s)
{
	return isnan(s) ? -1 : s * 1e3;
}

void load_print_window(const char *kind, const char *labels,
		       struct load_window *w)
{
	printf("result %s %s rpcs=%.0f errors=%.0f seconds=%.3f rps=%.1f "
	       "p50_ms=%.4f p99_ms=%.4f max_ms=%.4f client_cpu=%.3f "
	       "server_cpu=%.3f machine_cpu=%.3f\n", kind, labels, w->ok,
	       w->errors,
	       w->seconds, w->seconds > 0 ? w->ok / w->seconds : 0,
	       ms(lat_quantile(&w->lat, 0.5)), ms(lat_quantile(&w->lat, 0.99)),
	       ms(lat_max(&w->lat)), proc_cpu_share(&w->me0, &w->me1),
	       proc_cpu_share(&w->srv0, &w->srv1),
	       proc_cpu_share(&w->all0, &w->all1));
	fflush(stdout);
}

void load_progress(const char *fmt, ...)
{
	va_list ap;

	fputs("staffer-load: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

grpc_slice *load_pack(const char *ns, const char *prefix, int n,
		      int metrics, const char *query_fmt)
{
	grpc_slice *reqs = calloc((size_t)(n > 0 ? n : 1), sizeof(*reqs));
	char name[REQ_NAME_MAX], query[REQ_NAME_MAX];
	int i;

	if (!reqs)
		return NULL;
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s-%d", prefix, i);
		if (!query_fmt)
			snprintf(query, sizeof(query), "%s_rate_%d", prefix, i);
		else if (req_subst(query, sizeof(query), query_fmt,
				   (unsigned long)i))
			goto fail;
		reqs[i] = metrics ? req_metrics(ns, name, query,
						(unsigned long)i) :
				    req_ref(ns, name, query, (unsigned long)i);
	}
	return reqs;
fail:
	load_unpack(reqs, i);
	return NULL;
}

void load_unpack(grpc_slice *reqs, int n)
{
	int i;

	if (!reqs)
		return;
	for (i = 0; i < n; i++)
		grpc_slice_unref(reqs[i]);
	free(reqs);
}

struct load_passer {
	struct lc *c;
	enum lc_method m;
	const grpc_slice *reqs;
	size_t n, next, done;
	double timeout_s, ok, errors;
};

static void pass_start(struct load_passer *p);

static void pass_done(void *arg, const struct lc_result *r)
{
	struct load_passer *p = arg;

	p->done++;
	if (r->reply_ok)
		p->ok++;
	else
		p->errors++;
	pass_start(p);
}

static void pass_start(struct load_passer *p)
{
	while (p->next < p->n) {
		size_t i = p->next++;

		if (lc_unary(p->c, p->m, p->reqs[i], p->timeout_s, pass_done,
			     p) == 0)
			return;
		p->done++;
		p->errors++;
	}
}

int load_pass(struct lc *c, const struct load_opts *o, enum lc_method m,
	      const grpc_slice *reqs, size_t n, int inflight, double *ok,
	      double *errors)
{
	struct load_passer p;
	int i;

	p.c = c;
	p.m = m;
	p.reqs = reqs;
	p.n = n;
	p.next = p.done = 0;
	p.timeout_s = o->timeout_s;
	p.ok = p.errors = 0;
	for (i = 0; i < inflight; i++)
		pass_start(&p);
	while (p.done < n)
		lc_poll(c, lc_now() + 1.0);
	if (ok)
		*ok += p.ok;
	if (errors)
		*errors += p.errors;
	return p.errors ? -1 : 0;
}
