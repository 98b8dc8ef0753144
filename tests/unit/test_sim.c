/*
 * test_sim.c - the simulator's pieces and the whole loop: Prometheus
 * rate() by hand, the perf model, trace parsing, Little's law, queue
 * timeouts, cold starts, the oracle and determinism (sim.h and friends).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demand.h"
#include "perf.h"
#include "policy.h"
#include "sim.h"
#include "simheap.h"
#include "simprom.h"
#include "simrng.h"
#include "trace.h"

#define assert_near(a, b, tol) \
	near_impl((a), (b), (tol), #a, __FILE__, __LINE__)

static void near_impl(double a, double b, double tol, const char *what,
		      const char *file, int line)
{
	if (!(fabs(a - b) <= tol)) {
		print_error("%s = %.17g, want %.17g (tolerance %g)\n",
			    what, a, b, tol);
		_fail(file, line);
	}
}

/* ---- rate() by hand ------------------------------------------------------ */

static void test_rate_hand_worked(void **state)
{
	double t1[] = { 5, 20, 35, 50 }, v1[] = { 100, 115, 130, 145 };
	double t2[] = { 30, 45 }, v2[] = { 0, 30 };
	double t3[] = { 40, 55 }, v3[] = { 1000, 1015 };
	double t4[] = { 0, 15, 30, 45 }, v4[] = { 10, 20, 5, 15 };
	double out;

	/* Window (0, 60]: edges 5 s and 10 s away, under 1.1 x 15 s:
	 * extrapolate fully: 45 x 60 / 45 / 60 = 1.0 /s. */
	assert_int_equal(simprom_extrapolated_rate(t1, v1, 4, 0, 60, 1, 1,
						   &out), 0);
	assert_near(out, 1.0, 1e-12);
	/* Start 30 s away (beyond the threshold) but the counter starts at
	 * 0: extrapolation stops at zero, i.e. 0 s; end 15 s: 30 x 30 / 15
	 * / 60 = 1.0 /s. */
	assert_int_equal(simprom_extrapolated_rate(t2, v2, 2, 0, 60, 1, 1,
						   &out), 0);
	assert_near(out, 1.0, 1e-12);
	/* Start 40 s away, counter far from zero: half an interval (7.5 s);
	 * end 5 s: 15 x 27.5 / 15 / 60. */
	assert_int_equal(simprom_extrapolated_rate(t3, v3, 2, 0, 60, 1, 1,
						   &out), 0);
	assert_near(out, 27.5 / 60, 1e-12);
	/* A counter reset (20 -> 5) adds 20 back: increase 25; start 15 s
	 * (zero cut at 45 x 10 / 25 = 18 s does not bite), end 0:
	 * 25 x 60 / 45 / 60. */
	assert_int_equal(simprom_extrapolated_rate(t4, v4, 4, -15, 45, 1, 1,
						   &out), 0);
	assert_near(out, 25.0 / 45, 1e-12);
	/* increase() is the same without the division. */
	assert_int_equal(simprom_extrapolated_rate(t1, v1, 4, 0, 60, 1, 0,
						   &out), 0);
	assert_near(out, 60.0, 1e-12);
	/* One sample: no result. */
	assert_int_equal(simprom_extrapolated_rate(t1, v1, 1, 0, 60, 1, 1,
						   &out), -1);
}

/* The ring, the left-open window and the gauge lookback. */
static void test_rate_series(void **state)
{
	struct simseries s;
	double out;
	int i;

	assert_int_equal(simseries_init(&s, 8), 0);
	for (i = 0; i <= 20; i++)       /* 1 req/s, scraped every 15 s */
		simseries_add(&s, 15.0 * i, 15.0 * i);
	/* (240, 300]: samples 255, 270, 285, 300 (240 is excluded). */
	assert_int_equal(simprom_rate(&s, 300, 60, &out), 0);
	assert_near(out, 1.0, 1e-12);
	/* At 307.5 the end is 7.5 s past the last sample. */
	assert_int_equal(simprom_rate(&s, 307.5, 60, &out), 0);
	assert_near(out, 1.0, 1e-12);
	/* Only what is at or before now is seen. */
	assert_int_equal(simprom_last(&s, 250, &out), 0);
	assert_near(out, 240, 0);
	/* Before the oldest kept sample: nothing. */
	assert_int_equal(simprom_last(&s, 100, &out), -1);
	/* Older than the ring: gone; beyond the lookback: no data. */
	assert_int_equal(simprom_rate(&s, 60, 30, &out), -1);
	assert_int_equal(simprom_last(&s, 300 + SIMPROM_LOOKBACK_S + 1,
				      &out), -1);
	simseries_free(&s);
}

/* ---- the heap ------------------------------------------------------------ */

static void test_heap_order(void **state)
{
	struct simheap h;
	struct simev e;
	double ts[] = { 5, 1, 3, 1, 2, 5, 0 };
	double last = -1;
	size_t i;
	uint32_t last_arg = 0;

	simheap_init(&h);
	for (i = 0; i < sizeof(ts) / sizeof(ts[0]); i++)
		assert_int_equal(simheap_push(&h, ts[i], 0, (uint32_t)i), 0);
	for (i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		assert_int_equal(simheap_pop(&h, &e), 0);
		assert_true(e.t >= last);
		if (e.t == last)        /* ties in push order */
			assert_true(e.arg > last_arg);
		last = e.t;
		last_arg = e.arg;
	}
	assert_int_equal(simheap_pop(&h, &e), -1);
	simheap_free(&h);
}

/* ---- perf model and traces ----------------------------------------------- */

static void test_perf_model(void **state)
{
	struct perf p;

	perf_default(&p);
	assert_near(perf_prefill_s(&p, 1024), 0.106314, 1e-9);
	/* halfway between 512 and 1024 */
	assert_near(perf_prefill_s(&p, 768), (0.0610427 + 0.106314) / 2,
		    1e-9);
	/* below the table: the smallest size's time */
	assert_near(perf_prefill_s(&p, 10), 0.0488891, 1e-9);
	/* beyond: the last slope continues */
	assert_near(perf_prefill_s(&p, 16384),
		    0.9432766 + 2 * (0.9432766 - 0.4663972), 1e-9);
	assert_near(perf_token_s(&p, 16), 0.0328364, 1e-9);
	assert_near(perf_token_s(&p, 128), 0.0519867, 1e-9); /* clamped */
	assert_near(perf_service_s(&p, 1024, 100, 16),
		    0.106314 + 100 * 0.0328364, 1e-9);
}

static const char *write_tmp(const char *text)
{
	static char path[64];
	FILE *fp;
	int fd;

	snprintf(path, sizeof(path), "/tmp/test_sim_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	return path;
}

static void expect_csv_error(const char *text, const char *needle)
{
	struct trace t;
	char err[TRACE_ERR_MAX];
	const char *path = write_tmp(text);

	trace_init(&t);
	assert_int_equal(trace_load_csv(&t, path, err, sizeof(err)), -1);
	if (!strstr(err, needle)) {
		print_error("error '%s' lacks '%s'\n", err, needle);
		fail();
	}
	unlink(path);
	trace_free(&t);
}

static void test_trace_csv(void **state)
{
	struct trace t;
	char err[TRACE_ERR_MAX];
	const char *path;

	path = write_tmp("arrival_s,input_tokens,output_tokens,service_s\n"
			 "2.5,10,20,1.5\r\n0,1,2,3\n\n1.0,5,5,0.5\n");
	trace_init(&t);
	assert_int_equal(trace_load_csv(&t, path, err, sizeof(err)), 0);
	unlink(path);
	assert_int_equal(t.n, 3);
	assert_true(t.has_service);
	assert_near(t.req[0].arrival_s, 0, 0);      /* sorted */
	assert_near(t.req[2].service_s, 1.5, 0);
	assert_near(t.span_s, 2.5, 0);
	trace_free(&t);

	expect_csv_error("", "empty file");
	expect_csv_error("time,in,out\n1,2,3\n", "header must be");
	expect_csv_error("arrival_s,input_tokens,output_tokens\n1,2\n",
			 "line 2: 2 fields");
	expect_csv_error("arrival_s,input_tokens,output_tokens\n1,x,3\n",
			 "input_tokens 'x'");
	expect_csv_error("arrival_s,input_tokens,output_tokens\n-1,2,3\n",
			 "arrival_s '-1'");
	expect_csv_error("arrival_s,input_tokens,output_tokens\nnan,2,3\n",
			 "arrival_s 'nan'");
	expect_csv_error("arrival_s,input_tokens,output_tokens,service_s\n"
			 "1,2,3,0\n", "service_s '0'");
	expect_csv_error("arrival_s,input_tokens,output_tokens\n", "no "
			 "requests");
}

/* Found by test_fuzz: bytes a text editor would not show.  A NUL byte
 * is named as such (fgets() read it as the end of the line and called it
 * too long, or cut the last line short); a control byte in a field is
 * quoted escaped, not raw. */
static void test_trace_csv_bytes(void **state)
{
	static const char nul_mid[] = "arrival_s,input_tokens,output_tokens\n"
				      "1,2\0,3\n4,5,6\n";
	static const char nul_end[] = "arrival_s,input_tokens,output_tokens\n"
				      "1,2,3\0junk";
	const char *const bytes[] = { nul_mid, nul_end };
	const size_t lens[] = { sizeof(nul_mid) - 1, sizeof(nul_end) - 1 };
	char err[TRACE_ERR_MAX], path[64];
	struct trace t;
	size_t i;
	FILE *fp;
	int fd;

	(void)state;
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/tmp/test_sim_XXXXXX");
		fd = mkstemp(path);
		assert_true(fd >= 0);
		fp = fdopen(fd, "wb");
		assert_non_null(fp);
		assert_int_equal(fwrite(bytes[i], 1, lens[i], fp), lens[i]);
		fclose(fp);
		trace_init(&t);
		assert_int_equal(trace_load_csv(&t, path, err, sizeof(err)),
				 -1);
		if (!strstr(err, "line 2: holds a NUL byte")) {
			print_error("error '%s'\n", err);
			fail();
		}
		unlink(path);
	}
	expect_csv_error("arrival_s,input_tokens,output_tokens\n"
			 "1\x7f\x1b[2J,2,3\n",
			 "arrival_s '1\\x7f\\x1b[2J' is not a number");
}

/* The perf model reads its lines as the traces do: a NUL byte or a line
 * past the limit is named, not read as two lines or a short one. */
static void test_perf_bytes(void **state)
{
	static const char nul[] = "model,hardware\0,tensor_parallel\n";
	char err[256], path[64], long_line[1200];
	struct perf p;
	FILE *fp;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/test_sim_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	fp = fdopen(fd, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(nul, 1, sizeof(nul) - 1, fp),
			 sizeof(nul) - 1);
	fclose(fp);
	assert_int_equal(perf_load(&p, path, "m", "h", 1, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "line 1: holds a NUL byte"));

	memset(long_line, 'x', sizeof(long_line) - 1);
	long_line[sizeof(long_line) - 1] = '\0';
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "%s\n", long_line);
	fclose(fp);
	assert_int_equal(perf_load(&p, path, "m", "h", 1, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "line 1: longer than 1024 bytes"));
	unlink(path);
}

static void test_trace_overlay(void **state)
{
	struct trace t;
	struct trace_synth s = { TRACE_POISSON, 5, 100, 100, 10 };
	struct simrng r;
	char err[TRACE_ERR_MAX];
	size_t n, i;

	simrng_seed(&r, 7);
	trace_init(&t);
	assert_int_equal(trace_synth(&t, &s, &r, err, sizeof(err)), 0);
	n = t.n;
	assert_true(n > 350 && n < 650);
	assert_int_equal(trace_transform(&t, 4, 2, err, sizeof(err)), 0);
	assert_int_equal(t.n, 4 * n);
	assert_near(t.span_s, 50, 1e-9);
	for (i = 1; i < t.n; i++)
		assert_true(t.req[i].arrival_s >= t.req[i - 1].arrival_s);
	assert_true(t.req[t.n - 1].arrival_s < 50);
	assert_int_equal(trace_transform(&t, 0, 1, err, sizeof(err)), -1);
	trace_free(&t);
}

/* A rate file: 3 windows of 600 s at 1 req/s, a gap (repeats 1), 3 req/s,
 * compressed x10 into 180 s, the rate linear between window midpoints. */
static void test_trace_rates(void **state)
{
	struct trace t;
	struct trace_rates o = { 10, 1, 0, 0, 100, 10 };
	struct simrng r;
	char err[TRACE_ERR_MAX];
	const char *path;
	double expect;

	path = write_tmp("window_start_s,total_rate_rps,active_clients\n"
			 "0,1,5\n600,0,0\n1200,3,5\n");
	simrng_seed(&r, 1);
	trace_init(&t);
	assert_int_equal(trace_load_rates(&t, path, &o, &r, err, sizeof(err)),
			 0);
	assert_near(t.span_s, 180, 1e-9);
	/* Integral of the rate: flat 1 to 30 s, 1 to 90 s, 1 -> 3 from 90
	 * to 150 s, flat 3 to 180 s: 30 + 60 + 120 + 90 = 300. */
	expect = 300;
	assert_true(fabs((double)t.n - expect) < 4 * sqrt(expect));
	trace_free(&t);
	o.start_s = 1200;
	assert_int_equal(trace_load_rates(&t, path, &o, &r, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "fewer than 2 windows"));
	unlink(path);
	path = write_tmp("window_start_s,total_rate_rps,active_clients\n"
			 "0,1,5\n0,2,5\n");
	o.start_s = 0;
	assert_int_equal(trace_load_rates(&t, path, &o, &r, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "is not after"));
	unlink(path);
	/* Found by test_fuzz: a line longer than the limit was read as two
	 * lines, its tail as a window of its own. */
	{
		char text[2 * TRACE_LINE_MAX];

		snprintf(text, sizeof(text), "window_start_s,total_rate_rps,"
			 "active_clients\n0,1,5\n600,1,5,%0*d\n",
			 TRACE_LINE_MAX, 0);
		path = write_tmp(text);
		assert_int_equal(trace_load_rates(&t, path, &o, &r, err,
						  sizeof(err)), -1);
		assert_non_null(strstr(err, "line 3: longer than 512 bytes"));
		unlink(path);
	}
	path = write_tmp("time,rate\n0,1\n");
	assert_int_equal(trace_load_rates(&t, path, &o, &r, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "header"));
	unlink(path);
}

/* ---- whole runs ---------------------------------------------------------- */

/* A trace of given (arrival, service) pairs. */
static void make_trace(struct trace *t, const double *at, const double *svc,
		       size_t n, double span)
{
	size_t i;

	trace_init(t);
	t->req = calloc(n, sizeof(*t->req));
	assert_non_null(t->req);
	t->n = t->cap = n;
	for (i = 0; i < n; i++) {
		t->req[i].arrival_s = at[i];
		t->req[i].service_s = svc[i];
		t->req[i].seq = (uint32_t)i;
	}
	t->has_service = 1;
	t->span_s = span;
}

static void parse_policy(struct policy *p, const char *spec, long slots)
{
	char err[POLICY_ERR_MAX];

	if (policy_parse(p, spec, NULL, NULL, 0, slots, 100, err,
			 sizeof(err))) {
		print_error("policy '%s': %s\n", spec, err);
		fail();
	}
}

struct busy_acc {
	double sum;
	double n;
	double t_from;
	uint64_t queue_max;
	int32_t starting_at[8];
	double probe[8];
};

static void busy_sample(void *arg, const struct sim_sample *x)
{
	struct busy_acc *a = arg;
	size_t i;

	if (x->t >= a->t_from) {
		a->sum += (double)x->inflight;
		a->n += 1;
	}
	if (x->queue > a->queue_max)
		a->queue_max = x->queue;
	for (i = 0; i < 8; i++)
		if (a->probe[i] == x->t)
			a->starting_at[i] = x->starting;
}

/* Little's law: a steady Poisson run on a fixed, ample fleet keeps
 * lambda x W slots busy on average, and nobody waits. */
static void test_littles_law(void **state)
{
	struct trace t;
	struct demand d;
	struct policy p;
	struct sim_config c;
	struct sim_result r;
	struct trace_synth s = { TRACE_POISSON, 10, 7200, 100, 10 };
	struct busy_acc acc;
	struct simrng rng;
	char err[512];
	double lw;

	simrng_seed(&rng, 42);
	trace_init(&t);
	demand_init(&d);
	assert_int_equal(trace_synth(&t, &s, &rng, err, sizeof(err)), 0);
	assert_int_equal(trace_set_service(&t, TRACE_SVC_EXP, NULL, 1, 5, 1,
					   &rng, err, sizeof(err)), 0);
	assert_int_equal(demand_build(&d, &t, err, sizeof(err)), 0);
	parse_policy(&p, "keda-running:minReplicaCount=10,"
		     "maxReplicaCount=10", 16);
	sim_config_init(&c);
	c.slots = 16;
	c.initial_replicas = 10;
	c.end_s = t.span_s;
	c.ts_step_s = 1;
	memset(&acc, 0, sizeof(acc));
	acc.t_from = 100;       /* past the empty start */
	assert_int_equal(sim_run(&c, &t, &d, &p, &r, busy_sample, &acc, err,
				 sizeof(err)), 0);
	lw = (double)t.n / t.span_s * trace_work_s(&t) / (double)t.n;
	assert_near(acc.sum / acc.n, lw, 0.03 * lw);
	assert_near(r.sla_attainment, 1.0, 0);
	assert_int_equal(r.shed, 0);
	assert_near(r.wait_p99, 0, 0);
	assert_int_equal(r.scale_events, 0);
	/* 10 replicas for 2 h */
	assert_near(r.replica_hours, 20.0, 1e-9);
	assert_near(r.lower_bound_hours, trace_work_s(&t) / 16 / 3600,
		    0.002 * r.lower_bound_hours); /* the tail past 2 h */
	policy_release(&p);
	demand_free(&d);
	trace_free(&t);
}

/* One slot: a long request holds it; the two behind it are shed once
 * they have waited longer than the queue timeout. */
static void test_queue_timeout(void **state)
{
	double at[] = { 0, 1, 2, 3 }, svc[] = { 100, 1, 1, 1 };
	struct trace t;
	struct demand d;
	struct policy p;
	struct sim_config c;
	struct sim_result r;
	char err[512];

	make_trace(&t, at, svc, 4, 200);
	demand_init(&d);
	assert_int_equal(demand_build(&d, &t, err, sizeof(err)), 0);
	parse_policy(&p, "keda-running:minReplicaCount=1,"
		     "maxReplicaCount=1", 1);
	sim_config_init(&c);
	c.slots = 1;
	c.initial_replicas = 1;
	c.queue_timeout_s = 10;
	c.end_s = t.span_s;
	assert_int_equal(sim_run(&c, &t, &d, &p, &r, NULL, NULL, err,
				 sizeof(err)), 0);
	assert_int_equal(r.requests, 4);
	assert_int_equal(r.started, 1);
	assert_int_equal(r.shed, 3);
	assert_near(r.shed_fraction, 0.75, 1e-12);
	assert_near(r.sla_attainment, 0.25, 1e-12);
	/* A timeout longer than the long request: all start, waits 99,
	 * 99, 99... the first waiter starts at 100 (waited 99), the next at
	 * 101 (waited 100), then 102 (waited 100). */
	c.queue_timeout_s = 150;
	assert_int_equal(sim_run(&c, &t, &d, &p, &r, NULL, NULL, err,
				 sizeof(err)), 0);
	assert_int_equal(r.shed, 0);
	assert_int_equal(r.started, 4);
	assert_near(r.wait_p50, 99, 1e-9);  /* ranks: 0, 99, 99, 99 */
	assert_near(r.wait_p99, 99, 1e-9);
	policy_release(&p);
	demand_free(&d);
	trace_free(&t);
}

/* A new replica serves only after the cold start: requests queued at
 * t = 100 wait for the HPA sync that sees the queue (scrape at 105, sync
 * at 112.5) plus 120 s. */
static void test_cold_start(void **state)
{
	double at[] = { 100, 100, 100, 100, 100 };
	double svc[] = { 1000, 1000, 1000, 1000, 1000 };
	struct trace t;
	struct demand d;
	struct policy p;
	struct sim_config c;
	struct sim_result r;
	struct busy_acc acc;
	char err[512];

	make_trace(&t, at, svc, 5, 400);
	demand_init(&d);
	assert_int_equal(demand_build(&d, &t, err, sizeof(err)), 0);
	parse_policy(&p, "keda-queue:threshold=1", 1);
	sim_config_init(&c);
	c.slots = 1;
	c.initial_replicas = 1;
	c.cold_start_s = 120;
	c.queue_timeout_s = 1000;
	c.end_s = t.span_s;
	c.ts_step_s = 15;
	memset(&acc, 0, sizeof(acc));
	acc.probe[0] = 225;
	acc.probe[1] = 240;
	assert_int_equal(sim_run(&c, &t, &d, &p, &r, busy_sample, &acc, err,
				 sizeof(err)), 0);
	/* Queue 4 -> ceil(4 / 1) = 4 = max(2 x 1, 4): 3 new replicas. */
	assert_int_equal(acc.starting_at[0], 3);
	assert_int_equal(acc.starting_at[1], 0);
	/* Three start when the new replicas are ready; the fifth waits for
	 * the first request to finish (1000 s). */
	assert_int_equal(r.started, 5);
	assert_near(r.wait_p50, 112.5 + 120 - 100, 1e-9);
	assert_near(r.wait_p99, 1000, 1e-9);
	policy_release(&p);
	demand_free(&d);
	trace_free(&t);
}

static void run_synth(const char *spec, uint64_t seed, struct sim_result *r)
{
	struct trace t;
	struct demand d;
	struct policy p;
	struct sim_config c;
	struct trace_synth s = { TRACE_SURGE, 20, 1800, 1000, 250 };
	struct simrng rng;
	struct perf pf;
	char err[512];

	simrng_seed(&rng, seed);
	perf_default(&pf);
	trace_init(&t);
	demand_init(&d);
	assert_int_equal(trace_synth(&t, &s, &rng, err, sizeof(err)), 0);
	assert_int_equal(trace_set_service(&t, TRACE_SVC_PERF, &pf, 16, 0, 0,
					   &rng, err, sizeof(err)), 0);
	assert_int_equal(demand_build(&d, &t, err, sizeof(err)), 0);
	parse_policy(&p, spec, 16);
	sim_config_init(&c);
	c.slots = 16;
	c.end_s = t.span_s;
	c.initial_replicas = sim_initial_replicas(&c, &d, 1);
	assert_int_equal(sim_run(&c, &t, &d, &p, r, NULL, NULL, err,
				 sizeof(err)), 0);
	policy_release(&p);
	demand_free(&d);
	trace_free(&t);
}

static void test_determinism(void **state)
{
	struct sim_result a, b, x;

	run_synth("staffer", 3, &a);
	run_synth("staffer", 3, &b);
	assert_memory_equal(&a, &b, sizeof(a));
	run_synth("staffer", 4, &x);
	assert_true(x.requests != a.requests ||
		    x.replica_hours != a.replica_hours);
	run_synth("hpa-util", 3, &a);
	run_synth("hpa-util", 3, &b);
	assert_memory_equal(&a, &b, sizeof(a));
}

/* The clairvoyant oracle never makes anyone wait, surge included. */
static void test_oracle(void **state)
{
	struct sim_result r;

	run_synth("oracle", 5, &r);
	assert_near(r.sla_attainment, 1.0, 0);
	assert_near(r.wait_p99, 0, 0);
	assert_true(r.replica_hours >= r.lower_bound_hours);
}

static void test_policy_parse_errors(void **state)
{
	struct policy p;
	char err[POLICY_ERR_MAX];
	static const struct { const char *spec, *needle; } bad[] = {
		{ "kedaqueue", "unknown policy" },
		{ "keda-queue:threshold=0", "'threshold'" },
		{ "keda-queue:beta=2", "unknown key 'beta'" },
		{ "staffer:beta=abc", "beta" },
		{ "staffer:bogusKey=1", "bogusKey" },
		{ "hpa-util:target=1.5", "'target'" },
		{ "keda-running:upPolicies=Pods/0/15", "Pods/VALUE/PERIOD" },
		{ "keda-running:minReplicaCount=5,maxReplicaCount=2",
		  "above maxReplicaCount" },
		{ "staffer:noequals", "not key=value" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(policy_parse(&p, bad[i].spec, NULL, NULL, 0,
					      16, 100, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].needle)) {
			print_error("'%s': error '%s' lacks '%s'\n",
				    bad[i].spec, err, bad[i].needle);
			fail();
		}
		policy_release(&p);
	}
	/* Staffer defaults: its recommended behavior, slots from the
	 * fleet. */
	assert_int_equal(policy_parse(&p, "staffer:beta=2", NULL, NULL, 0, 16,
				      100, err, sizeof(err)), 0);
	assert_int_equal(p.meta.model.slots_per_replica, 16);
	assert_true(p.hpa.behavior);
	assert_near(p.hpa.up.tolerance, 0, 0);
	assert_int_equal(p.hpa.down.window_s, 0);
	policy_release(&p);
	assert_int_equal(policy_parse(&p, "staffer:behavior=none", NULL, NULL,
				      0, 16, 100, err, sizeof(err)), 0);
	assert_false(p.hpa.behavior);
	policy_release(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rate_hand_worked),
		cmocka_unit_test(test_rate_series),
		cmocka_unit_test(test_heap_order),
		cmocka_unit_test(test_perf_model),
		cmocka_unit_test(test_perf_bytes),
		cmocka_unit_test(test_trace_csv),
		cmocka_unit_test(test_trace_csv_bytes),
		cmocka_unit_test(test_trace_overlay),
		cmocka_unit_test(test_trace_rates),
		cmocka_unit_test(test_littles_law),
		cmocka_unit_test(test_queue_timeout),
		cmocka_unit_test(test_cold_start),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_oracle),
		cmocka_unit_test(test_policy_parse_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
