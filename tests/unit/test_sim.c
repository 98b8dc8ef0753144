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

#include "check.h"
#include "sim/clients.h"
#include "sim/demand.h"
#include "sim/perf.h"
#include "sim/policy.h"
#include "sim/sim.h"
#include "sim/simheap.h"
#include "sim/simpool.h"
#include "sim/simprom.h"
#include "sim/simrng.h"
#include "sim/simroute.h"
#include "sim/simsort.h"
#include "sim/trace.h"

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

/* max_over_time and avg_over_time: the largest sample and the mean in the
 * left-open window, none when the window holds none. */
static void test_max_over(void **state)
{
	struct simseries s;
	double v[] = { 4, 9, 2, 1, 3 }, out = -1;
	int i;

	(void)state;
	assert_int_equal(simseries_init(&s, 8), 0);
	for (i = 0; i < 5; i++)          /* at 0, 15, 30, 45, 60 */
		simseries_add(&s, 15.0 * i, v[i]);
	assert_int_equal(simprom_max_over(&s, 60, 60, &out), 0);
	assert_near(out, 9, 0);          /* (0, 60]: 15 .. 60 */
	assert_int_equal(simprom_max_over(&s, 60, 45, &out), 0);
	assert_near(out, 3, 0);          /* (15, 60]: 30 .. 60 */
	assert_int_equal(simprom_max_over(&s, 50, 60, &out), 0);
	assert_near(out, 9, 0);          /* nothing after now */
	assert_int_equal(simprom_max_over(&s, 14, 10, &out), -1);
	assert_int_equal(simprom_max_over(&s, 200, 60, &out), -1);
	/* avg_over_time over the same windows */
	assert_int_equal(simprom_avg_over(&s, 60, 60, &out), 0);
	assert_near(out, (9 + 2 + 1 + 3) / 4.0, 1e-12);
	assert_int_equal(simprom_avg_over(&s, 50, 60, &out), 0);
	assert_near(out, (9 + 2 + 1) / 3.0, 1e-12);
	assert_int_equal(simprom_avg_over(&s, 200, 60, &out), -1);
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

/* ---- the replica table --------------------------------------------------- */

/* simpool by hand: slots reused lowest first, a table that is full, a
 * ready event once and not when stale, scale-down taking the starting
 * replica first and then draining the newest ready one, and the
 * replica-seconds inside [0, end_s]. */
static void test_pool_table(void **state)
{
	struct simpool_config c = { sizeof(long), 2, 3, 100, 10, 0, 1, 0 };
	struct simpool p;

	(void)state;
	simpool_init(&p, &c);
	assert_int_equal(simpool_add(&p, 0, 1), 0);
	p.spec = p.peak = 1;                          /* as the callers do */
	assert_int_equal(simpool_scale(&p, -1), -1);  /* spec 1 -> 0 */
	assert_int_equal(simpool_scale(&p, 3), 2);
	assert_int_equal(simpool_scale(&p, 3), 0);
	assert_int_equal(simpool_add(&p, 5, 0), 1);
	assert_int_equal(simpool_add(&p, 6, 0), 2);
	assert_int_equal(simpool_add(&p, 7, 0), -1); /* 3 slots at most */
	assert_int_equal(((long *)p.data)[2], 0);
	assert_true(p.rep[1].ready_at == 15);
	assert_int_equal(simpool_ready(&p, 1, 14), 0);
	assert_int_equal(simpool_ready(&p, 1, 15), 1);
	assert_int_equal(simpool_ready(&p, 1, 15), 0);
	assert_int_equal(p.n_ready, 2);
	assert_int_equal(p.n_starting, 1);
	assert_int_equal(simpool_scale(&p, 1), -2);
	assert_int_equal(simpool_drain(&p, 20), -1);  /* slot 2, starting */
	assert_int_equal(p.rep[2].state, SIMPOOL_GONE);
	assert_int_equal(simpool_drain(&p, 20), 1);   /* newer than slot 0 */
	assert_int_equal(p.rep[1].state, SIMPOOL_DRAINING);
	simpool_gone(&p, 1, 30);
	assert_int_equal(simpool_ready(&p, 2, 16), 0); /* stale */
	assert_int_equal(simpool_add(&p, 40, 1), 1);
	assert_int_equal(p.n_ready, 2);
	assert_int_equal(p.n_starting + p.n_draining, 0);
	assert_int_equal(p.spec, 1);
	assert_int_equal(p.peak, 3);
	assert_int_equal((int)p.scale_events, 3);
	assert_true(simpool_overlap(&p, 90, 120) == 10);
	assert_true(simpool_overlap(&p, 110, 120) == 0);
	/* 20 - 6 and 30 - 5 gone; 100 - 0 and 100 - 40 to the end */
	assert_true(simpool_replica_s(&p) == 199);
	simpool_free(&p);
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

/* Repeat: copy k is the trace k spans later, the span k times as long;
 * bad counts and a year's length are refused. */
static void test_trace_repeat(void **state)
{
	struct trace t;
	struct trace_synth s = { TRACE_POISSON, 5, 100, 100, 10 };
	struct simrng r;
	char err[TRACE_ERR_MAX];
	double first[8];
	size_t n, i, k;

	(void)state;
	simrng_seed(&r, 7);
	trace_init(&t);
	assert_int_equal(trace_synth(&t, &s, &r, err, sizeof(err)), 0);
	n = t.n;
	for (i = 0; i < 8; i++)
		first[i] = t.req[i].arrival_s;
	assert_int_equal(trace_repeat(&t, 1, err, sizeof(err)), 0);
	assert_int_equal(t.n, n);
	assert_int_equal(trace_repeat(&t, 3, err, sizeof(err)), 0);
	assert_int_equal(t.n, 3 * n);
	assert_near(t.span_s, 300, 1e-9);
	for (i = 1; i < t.n; i++)
		assert_true(t.req[i].arrival_s >= t.req[i - 1].arrival_s);
	for (k = 0; k < 3; k++)
		for (i = 0; i < 8; i++)
			assert_near(t.req[k * n + i].arrival_s,
				    first[i] + 100.0 * (double)k, 1e-9);
	assert_int_equal(trace_repeat(&t, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "repeat must be 1 to 100"));
	t.span_s = 86400 * 10;
	assert_int_equal(trace_repeat(&t, 100, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "longer than a year"));
	assert_int_equal(t.n, 3 * n);
	trace_free(&t);
}

/* A rate file: 3 windows of 600 s at 1 req/s, a gap (repeats 1), 3 req/s,
 * compressed x10 into 180 s, the rate linear between window midpoints. */
static void test_trace_rates(void **state)
{
	struct trace t;
	struct trace_rates o = { 10, 1, 0, 0, 100, 10, TRACE_ARR_AUTO };
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

/* ---- clients: renewal processes (clients.h) ------------------------- */

/* The largest client at its share, the others splitting the rest. */
static void test_clients_share(void **state)
{
	double sum = 0;
	size_t j;

	(void)state;
	assert_near(clients_share(0, 10, 0.5), 0.5, 1e-12);
	assert_near(clients_share(3, 10, 0.5), 0.5 / 9, 1e-12);
	assert_near(clients_share(10, 10, 0.5), 0, 0);
	for (j = 0; j < 10; j++)
		sum += clients_share(j, 10, 0.5);
	assert_near(sum, 1, 1e-12);
	/* a top below the even share is the even share; one client, all */
	assert_near(clients_share(0, 4, 0.1), 0.25, 1e-12);
	assert_near(clients_share(2, 4, 0.1), 0.25, 1e-12);
	assert_near(clients_share(0, 1, 0.3), 1, 0);
	assert_near(clients_share(0, 0, 0.3), 1, 0);
	assert_near(clients_share(0, 3, 7), 1, 0);
}

struct clients_acc {
	double at[64];
	size_t n;
};

static int clients_acc(void *arg, double at)
{
	struct clients_acc *a = arg;

	if (a->n < 64)
		a->at[a->n] = at;
	a->n++;
	return 0;
}

/* A nearly periodic client (CV 0.001) on a rate ramp: its arrivals fall
 * where the rate's integral passes whole numbers (after the residual it
 * starts with), so 1 -> 3 req/s over 10 s gives 20 of them. */
static void test_clients_ramp(void **state)
{
	struct clients_seg g = { 0, 10, 1, 3, 1, 1, 0.001, 1 };
	struct clients c;
	struct clients_acc a;
	struct simrng r;
	size_t i;

	(void)state;
	simrng_seed(&r, 5);
	memset(&a, 0, sizeof(a));
	clients_init(&c);
	assert_int_equal(clients_seg(&c, &g, &r, clients_acc, &a), 0);
	assert_true(a.n >= 19 && a.n <= 21);
	for (i = 1; i < a.n && i < 64; i++) {
		/* the integral between two arrivals is 1 */
		double x0 = a.at[i - 1], x1 = a.at[i];
		double area = (x1 - x0) * (1 + 0.1 * (x0 + x1));

		assert_true(x1 > x0 && x1 <= 10);
		assert_near(area, 1, 0.01);
	}
	/* a segment of zero rate emits nothing */
	g.y0 = g.y1 = 0;
	a.n = 0;
	assert_int_equal(clients_seg(&c, &g, &r, clients_acc, &a), 0);
	assert_int_equal(a.n, 0);
	clients_release(&c);
}

/* A rate file replayed as clients: the rate kept (the expected count), far
 * burstier than Poisson at the file's CV, the same for the same seed;
 * auto picks clients when the file has their columns; clients without
 * them is an error. */
static void test_trace_clients(void **state)
{
	struct trace a, b;
	struct trace_rates o = { 1, 1, 0, 0, 100, 10, TRACE_ARR_AUTO };
	struct simrng r;
	char err[TRACE_ERR_MAX];
	const char *path;
	double iod_c, iod_p, sum = 0;
	uint64_t seed;

	(void)state;
	path = write_tmp("window_start_s,total_rate_rps,active_clients,"
			 "top_client_share,rate_weighted_cv\n"
			 "0,20,10,0.4,4\n3600,20,10,0.4,4\n"
			 "7200,20,10,0.4,4\n");
	trace_init(&a);
	trace_init(&b);
	for (seed = 1; seed <= 4; seed++) {
		simrng_seed(&r, seed);
		assert_int_equal(trace_load_rates(&a, path, &o, &r, err,
						  sizeof(err)), 0);
		assert_true(a.from_clients);
		sum += (double)a.n;
	}
	/* 20 req/s for 3 x 3600 s, four times: 864,000 */
	assert_true(fabs(sum / 864000 - 1) < 0.03);
	iod_c = trace_dispersion(&a, 60, 600);
	simrng_seed(&r, 4);
	assert_int_equal(trace_load_rates(&b, path, &o, &r, err, sizeof(err)),
			 0);
	assert_int_equal(a.n, b.n);
	assert_memory_equal(a.req, b.req, a.n * sizeof(a.req[0]));
	o.arrivals = TRACE_ARR_POISSON;
	assert_int_equal(trace_load_rates(&b, path, &o, &r, err, sizeof(err)),
			 0);
	assert_false(b.from_clients);
	iod_p = trace_dispersion(&b, 60, 600);
	assert_true(iod_p > 0.5 && iod_p < 2);
	assert_true(iod_c > 4 * iod_p);
	unlink(path);
	trace_free(&a);
	trace_free(&b);

	path = write_tmp("window_start_s,total_rate_rps,active_clients\n"
			 "0,1,5\n600,2,5\n");
	o.arrivals = TRACE_ARR_CLIENTS;
	assert_int_equal(trace_load_rates(&a, path, &o, &r, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "top_client_share"));
	o.arrivals = TRACE_ARR_AUTO;
	assert_int_equal(trace_load_rates(&a, path, &o, &r, err, sizeof(err)),
			 0);
	assert_false(a.from_clients);
	trace_free(&a);
	unlink(path);
	path = write_tmp("window_start_s,total_rate_rps,active_clients,"
			 "top_client_share,rate_weighted_cv\n"
			 "0,20,10,1.5,4\n");
	assert_int_equal(trace_load_rates(&a, path, &o, &r, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "top_client_share from 0 to 1"));
	unlink(path);
}

/* The index of dispersion on counts worked by hand: one arrival every
 * half second is 0; 120 in every other minute, none in the rest, is
 * 4000 / 60 (sample variance of ten minutes). */
static void test_trace_dispersion(void **state)
{
	static double at[7200], svc[7200];
	struct trace t;
	size_t i, k = 0;

	(void)state;
	for (i = 0; i < 7200; i++) {
		at[i] = 0.5 * (double)i + 0.25;
		svc[i] = 1;
	}
	make_trace(&t, at, svc, 7200, 3600);
	assert_near(trace_dispersion(&t, 60, 600), 0, 1e-12);
	trace_free(&t);
	for (i = 0; i < 60; i += 2) {
		size_t j;

		for (j = 0; j < 120; j++)
			at[k++] = 60.0 * (double)i + 0.4 * (double)j + 0.1;
	}
	make_trace(&t, at, svc, k, 3600);
	assert_near(trace_dispersion(&t, 60, 600), 4000.0 / 60, 1e-9);
	assert_true(isnan(trace_dispersion(&t, 60, 30)));
	trace_free(&t);
}

/* The radix sorts against qsort: the same order, equal keys in index
 * order. */
static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void test_simsort(void **state)
{
	static double v[50000], w[50000];
	static uint32_t perm[50000];
	struct simrng r;
	size_t n, i;

	(void)state;
	simrng_seed(&r, 11);
	for (n = 0; n <= 50000; n = n ? n * 5 : 1) {
		if (n > 50000)
			n = 50000;
		for (i = 0; i < n; i++) {
			double x = simrng_uniform(&r);

			/* negatives, zeros of both signs, ties, big ranges */
			v[i] = i % 7 == 0 ? -x * 1e6 : i % 11 == 0 ? 0.0 :
			       i % 13 == 0 ? -0.0 : i % 3 == 0 ?
			       floor(x * 10) : x * 1e3;
			w[i] = v[i];
		}
		assert_int_equal(simsort_order(v, n, perm), 0);
		/* -0 sorts before +0 (simsort.h) */
		for (i = 1; i < n; i++) {
			double x = v[perm[i - 1]], y = v[perm[i]];
			int sx = !!signbit(x), sy = !!signbit(y);

			assert_true(x < y || (x == y && sx > sy) ||
				    (x == y && sx == sy &&
				     perm[i - 1] < perm[i]));
		}
		qsort(w, n, sizeof(*w), cmp_d);
		assert_int_equal(simsort_doubles(v, n), 0);
		for (i = 0; i < n; i++)
			assert_true(v[i] == w[i]);
		if (n == 50000)
			break;
	}
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

static const enum sim_routing all_routings[] = {
	SIM_ROUTE_SHARED, SIM_ROUTE_LEAST_LOADED, SIM_ROUTE_ROUND_ROBIN,
};

/* cold_s: the fleet's cold start, 0 for sim_config_init()'s. */
static void run_synth_cold(const char *spec, uint64_t seed,
			   enum sim_routing routing, double cold_s,
			   struct sim_result *r)
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
	c.routing = routing;
	if (cold_s > 0)
		c.cold_start_s = cold_s;
	assert_int_equal(sim_run(&c, &t, &d, &p, r, NULL, NULL, err,
				 sizeof(err)), 0);
	policy_release(&p);
	demand_free(&d);
	trace_free(&t);
}

static void run_synth_routed(const char *spec, uint64_t seed,
			     enum sim_routing routing, struct sim_result *r)
{
	run_synth_cold(spec, seed, routing, 0, r);
}

static void run_synth(const char *spec, uint64_t seed, struct sim_result *r)
{
	run_synth_routed(spec, seed, SIM_ROUTE_SHARED, r);
}

/* staffer's raw answer in the sample at 330 s. */
static void raw_sample(void *arg, const struct sim_sample *x)
{
	if (x->t == 330)
		*(int32_t *)arg = x->raw;
}

/* One request at 10 s (W is measured), then 40 at 300.5 s, 20 s each,
 * on two replicas of one slot, under policy spec; staffer's raw answer
 * at 330 s into *raw. */
static void run_burst(const char *spec, int32_t *raw)
{
	double at[41], svc[41];
	struct trace t;
	struct demand d;
	struct policy p;
	struct sim_config c;
	struct sim_result r;
	char err[512];
	size_t i;

	for (i = 0; i < 41; i++) {
		at[i] = i ? 300.5 : 10;
		svc[i] = 20;
	}
	make_trace(&t, at, svc, 41, 900);
	demand_init(&d);
	assert_int_equal(demand_build(&d, &t, err, sizeof(err)), 0);
	parse_policy(&p, spec, 1);
	sim_config_init(&c);
	c.initial_replicas = 2;
	c.queue_timeout_s = 3000;
	c.end_s = t.span_s;
	c.ts_step_s = 15;
	*raw = -2;
	assert_int_equal(sim_run(&c, &t, &d, &p, &r, raw_sample, raw, err,
				 sizeof(err)), 0);
	policy_release(&p);
	demand_free(&d);
	trace_free(&t);
}

/*
 * staffer:age=S: the queue scraped at 315 s reaches staffer's 322.5-s
 * decision only when its instant answers are younger than 7.5 s; 45 s
 * old, the decision still reads the empty queue of 277.5 s and asks for
 * less (22 against 73 here).  age=0 is the default.
 */
static void test_answer_age(void **state)
{
	int32_t raw_now, raw_zero, raw_aged;

	(void)state;
	run_burst("staffer", &raw_now);
	run_burst("staffer:age=0", &raw_zero);
	run_burst("staffer:age=45", &raw_aged);
	assert_true(raw_aged >= 0);
	assert_true(raw_now > raw_aged);
	assert_int_equal(raw_now, raw_zero);
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

/* Same seed, same output under every routing, scaling both ways (the
 * surge makes keda-queue add replicas and drain them again); and the
 * routings do differ. */
static void test_determinism_routing(void **state)
{
	static const char *const specs[] = { "keda-queue", "staffer",
					     "keda-sum" };
	struct sim_result a, b, shared;
	size_t i, k;

	for (k = 0; k < 3; k++) {
		run_synth_routed(specs[k], 3, SIM_ROUTE_SHARED, &shared);
		for (i = 1; i < 3; i++) {
			run_synth_routed(specs[k], 3, all_routings[i], &a);
			run_synth_routed(specs[k], 3, all_routings[i], &b);
			assert_memory_equal(&a, &b, sizeof(a));
			assert_int_equal(a.requests, shared.requests);
			assert_true(a.started + a.shed == a.requests);
			if (k == 0)
				assert_true(a.wait_mean != shared.wait_mean);
		}
	}
}

/* cold=measured answers coldStartQuery with the fleet's true cold start:
 * the same run as telling coldStartSeconds the truth, at the default and
 * at 300 s, and at 300 s not the run of the default 120 s. */
static void test_cold_measured(void **state)
{
	struct sim_result a, b;

	(void)state;
	/* At 120 s (coldStartSeconds' default) measured and told agree:
	 * coldStartQuery says 120 once a replica has started, and until
	 * then staffer falls back to coldStartSeconds, 120. */
	run_synth_cold("staffer:cold=measured", 3, SIM_ROUTE_SHARED, 0, &a);
	run_synth_cold("staffer", 3, SIM_ROUTE_SHARED, 0, &b);
	assert_memory_equal(&a, &b, sizeof(a));
	/* At 300 s measuring changes the answers, and is not told 300 from
	 * the start either. */
	run_synth_cold("staffer:cold=measured", 3, SIM_ROUTE_SHARED, 300,
		       &a);
	run_synth_cold("staffer", 3, SIM_ROUTE_SHARED, 300, &b);
	assert_true(a.replica_hours != b.replica_hours);
}

/* The policy hands coldStartQuery the view's median cold start; none
 * (NaN) falls back to coldStartSeconds. */
static void test_cold_measured_view(void **state)
{
	struct policy p;
	struct policy_run r;
	struct policy_view v;

	(void)state;
	parse_policy(&p, "staffer:cold=measured", 16);
	assert_int_equal(policy_run_init(&r, &p), 0);
	memset(&v, 0, sizeof(v));
	v.now = 100;
	v.arrival_rate = 10;
	v.service_rate = 20;
	v.completion_rate = 10;
	v.queue_depth = 0;
	v.shed_rate = 0;
	v.status = v.spec = 2;
	v.slots = 16;
	v.rate_window_s = 60;
	v.cold_start_s = 300;
	v.cold_seen = 250;
	assert_true(policy_proposal(&r, &v) >= 0);
	assert_true(r.have_last && r.last.cold_s == 250);
	assert_int_equal(r.last.cold, DECIDE_COLD_MEASURED);
	v.cold_seen = NAN;
	assert_true(policy_proposal(&r, &v) >= 0);
	assert_true(r.last.cold_s == 120);
	assert_int_equal(r.last.cold, DECIDE_COLD_NO_DATA);
	policy_run_free(&r);
	policy_release(&p);
}

struct cold_acc {
	int32_t starting[64];
	double seen[64];
};

static void cold_sample(void *arg, const struct sim_sample *x)
{
	struct cold_acc *a = arg;
	size_t i = (size_t)(x->t / 30);

	if (i < 64 && fmod(x->t, 30) == 0) {
		a->starting[i] = x->starting;
		a->seen[i] = x->cold_seen;
	}
}

/*
 * Cold starts that vary: with CV 0.5 the replicas a scale-up starts
 * become ready at different times (lognormal around the median 300 s),
 * the same k-th replica under every policy, and coldStartQuery's median
 * is NaN until the first is ready, then one of the cold starts seen.
 */
static void test_cold_vary(void **state)
{
	double at[40], svc[40];
	struct trace t;
	struct demand d;
	struct policy p;
	struct sim_config c;
	struct sim_result r;
	struct cold_acc a, b;
	char err[512];
	size_t i, steps = 0, steps0 = 0;

	(void)state;
	for (i = 0; i < 40; i++) {
		at[i] = 100;
		svc[i] = 2000;
	}
	make_trace(&t, at, svc, 40, 1800);
	demand_init(&d);
	assert_int_equal(demand_build(&d, &t, err, sizeof(err)), 0);
	sim_config_init(&c);
	c.slots = 1;
	c.initial_replicas = 1;
	c.cold_start_s = 300;
	c.cold_start_cv = 0.5;
	c.cold_seed = 9;
	c.queue_timeout_s = 5000;
	c.end_s = t.span_s;
	c.ts_step_s = 30;
	memset(&a, 0, sizeof(a));
	parse_policy(&p, "keda-queue:threshold=1", 1);
	assert_int_equal(sim_run(&c, &t, &d, &p, &r, cold_sample, &a, err,
				 sizeof(err)), 0);
	policy_release(&p);
	/* The starting count falls in more steps than with one cold start
	 * for all (below). */
	for (i = 1; i < 60; i++)
		if (a.starting[i] < a.starting[i - 1])
			steps++;
	/* NaN before the first is ready (t = 150: at most 30 s into the
	 * first cold starts), a value in a lognormal's plausible range
	 * after. */
	assert_true(isnan(a.seen[5]));
	assert_true(a.seen[40] > 300 * 0.3 && a.seen[40] < 300 * 3);
	/* Another policy that scales the same way draws the same pods. */
	memset(&b, 0, sizeof(b));
	parse_policy(&p, "keda-queue:threshold=1,minReplicaCount=1", 1);
	assert_int_equal(sim_run(&c, &t, &d, &p, &r, cold_sample, &b, err,
				 sizeof(err)), 0);
	policy_release(&p);
	assert_memory_equal(a.starting, b.starting, sizeof(a.starting));
	/* CV 0: one cold start for all, and the median is that one. */
	c.cold_start_cv = 0;
	memset(&a, 0, sizeof(a));
	parse_policy(&p, "keda-queue:threshold=1", 1);
	assert_int_equal(sim_run(&c, &t, &d, &p, &r, cold_sample, &a, err,
				 sizeof(err)), 0);
	policy_release(&p);
	demand_free(&d);
	trace_free(&t);
	assert_true(a.seen[40] == 300);
	for (i = 1; i < 60; i++)
		if (a.starting[i] < a.starting[i - 1])
			steps0++;
	assert_true(steps > steps0);
}

static void test_feedback_bound(void **state)
{
	struct sim_result ff, fb, bd;

	(void)state;
	run_synth("staffer:w=given,serviceTime=5", 3, &ff);
	run_synth("staffer:feedback=on,w=given,serviceTime=5", 3, &fb);
	run_synth("staffer:feedback=bound,w=given,serviceTime=5", 3, &bd);
	assert_true(ff.sla_attainment < 0.99);
	assert_true(bd.sla_attainment >= fb.sla_attainment);
	assert_true(bd.sla_attainment > ff.sla_attainment);
	/* After the first miss it asks for maxReplicaCount: hours beyond
	 * any the feedback's cap of 2 would buy. */
	assert_true(bd.replica_hours > 2 * ff.replica_hours);
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

/* ---- gateway routing ----------------------------------------------------- */

/* The least-loaded heap against a scan, through random additions,
 * removals and load changes (ties by birth order). */
static void test_simll_random(void **state)
{
	struct simll l;
	struct simrng g;
	uint64_t load[64], born[64];
	int in[64];
	size_t step, i;

	simll_init(&l);
	simrng_seed(&g, 9);
	memset(in, 0, sizeof(in));
	assert_int_equal(simll_reserve(&l, 32), 0);
	assert_int_equal(simll_reserve(&l, 64), 0);
	assert_int_equal(simll_min(&l), SIMLL_NONE);
	for (i = 0; i < 64; i++)
		born[i] = (i * 37) % 64;        /* distinct, not in id order */
	for (step = 0; step < 20000; step++) {
		uint32_t id = (uint32_t)(simrng_next(&g) % 64);
		uint32_t want = SIMLL_NONE;

		if (!in[id]) {
			load[id] = simrng_next(&g) % 5;
			simll_add(&l, id, load[id], born[id]);
			in[id] = 1;
		} else if (simrng_next(&g) % 3 == 0) {
			simll_del(&l, id);
			in[id] = 0;
		} else {
			load[id] = simrng_next(&g) % 5;
			simll_set(&l, id, load[id]);
		}
		for (i = 0; i < 64; i++)
			if (in[i] && (want == SIMLL_NONE ||
				      load[i] < load[want] ||
				      (load[i] == load[want] &&
				       born[i] < born[want])))
				want = (uint32_t)i;
		assert_int_equal(simll_min(&l), want);
	}
	simll_free(&l);
}

/* One hand-made world: requests (arrival, service), a policy, a fleet. */
struct world {
	const double *at, *svc;
	size_t n;
	double span;
	const char *policy;
	long slots;
	int32_t initial;
	double timeout, cold;
	enum sim_routing routing;
	double ts_step;
	sim_sample_fn *fn;
	void *arg;
};

static void world_init(struct world *w, const double *at, const double *svc,
		       size_t n, double span, const char *policy, long slots,
		       int32_t initial)
{
	memset(w, 0, sizeof(*w));
	w->at = at;
	w->svc = svc;
	w->n = n;
	w->span = span;
	w->policy = policy;
	w->slots = slots;
	w->initial = initial;
	w->timeout = 1000;
	w->cold = 120;
}

static void run_world(const struct world *w, struct sim_result *r)
{
	struct trace t;
	struct demand d;
	struct policy p;
	struct sim_config c;
	char err[512];

	make_trace(&t, w->at, w->svc, w->n, w->span);
	demand_init(&d);
	assert_int_equal(demand_build(&d, &t, err, sizeof(err)), 0);
	parse_policy(&p, w->policy, w->slots);
	sim_config_init(&c);
	c.slots = w->slots;
	c.initial_replicas = w->initial;
	c.queue_timeout_s = w->timeout;
	c.cold_start_s = w->cold;
	c.routing = w->routing;
	c.end_s = w->span;
	c.ts_step_s = w->ts_step;
	if (sim_run(&c, &t, &d, &p, r, w->fn, w->arg, err, sizeof(err))) {
		print_error("sim_run: %s\n", err);
		fail();
	}
	policy_release(&p);
	demand_free(&d);
	trace_free(&t);
}

static void test_routing_names(void **state)
{
	enum sim_routing r;
	struct sim_config c;
	char err[128];
	size_t i;

	for (i = 0; i < 3; i++) {
		assert_int_equal(sim_routing_parse(
			sim_routing_name(all_routings[i]), &r), 0);
		assert_int_equal(r, all_routings[i]);
	}
	assert_int_equal(sim_routing_parse("least_loaded", &r), -1);
	sim_config_init(&c);
	assert_int_equal(c.routing, SIM_ROUTE_SHARED);
	c.end_s = 10;
	assert_int_equal(sim_config_check(&c, err, sizeof(err)), 0);
	c.routing = (enum sim_routing)3;
	assert_int_equal(sim_config_check(&c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "routing"));
}

/* Three replicas of one slot; the first request holds replica 0 for
 * 1000 s, then nine short ones arrive 10 s apart.  Round-robin sends
 * every third to replica 0, behind the long one: requests 3, 6 and 9 wait
 * there until their 60 s timeout, exactly 3 of 9.  Least-loaded and the
 * shared queue never send anything to the busy replica. */
static void test_route_round_robin_cycles(void **state)
{
	double at[10], svc[10];
	struct world w;
	struct sim_result r;
	size_t i;

	for (i = 0; i < 10; i++) {
		at[i] = 10.0 * (double)i;
		svc[i] = i == 0 ? 1000 : 1;
	}
	world_init(&w, at, svc, 10, 200, "static", 1, 3);
	w.timeout = 60;
	w.routing = SIM_ROUTE_ROUND_ROBIN;
	run_world(&w, &r);
	assert_int_equal(r.shed, 3);
	assert_int_equal(r.started, 7);
	assert_near(r.wait_p99, 0, 0);
	/* Four replicas: every fourth, requests 4 and 8. */
	w.initial = 4;
	run_world(&w, &r);
	assert_int_equal(r.shed, 2);
	w.initial = 3;
	w.routing = SIM_ROUTE_LEAST_LOADED;
	run_world(&w, &r);
	assert_int_equal(r.shed, 0);
	assert_near(r.wait_p99, 0, 0);
	w.routing = SIM_ROUTE_SHARED;
	run_world(&w, &r);
	assert_int_equal(r.shed, 0);
}

/* Two replicas of one slot.  Request 0 holds replica 0 for 100 s;
 * request 1 is done on replica 1 at t = 2; request 2 arrives at t = 3.
 * Round-robin sends it to replica 0: it waits 97 s behind the long one
 * while replica 1 idles.  Least-loaded (load 0 against 1) and the shared
 * queue start it at once. */
static void test_route_wait_behind_long(void **state)
{
	double at[] = { 0, 1, 3 }, svc[] = { 100, 1, 1 };
	struct world w;
	struct sim_result r;

	world_init(&w, at, svc, 3, 200, "static", 1, 2);
	w.routing = SIM_ROUTE_ROUND_ROBIN;
	run_world(&w, &r);
	assert_int_equal(r.started, 3);
	assert_near(r.wait_p99, 97, 1e-9);
	assert_near(r.wait_mean, 97.0 / 3, 1e-9);
	assert_int_equal(r.within_sla, 2);
	w.routing = SIM_ROUTE_LEAST_LOADED;
	run_world(&w, &r);
	assert_near(r.wait_p99, 0, 0);
	assert_int_equal(r.within_sla, 3);
	w.routing = SIM_ROUTE_SHARED;
	run_world(&w, &r);
	assert_near(r.wait_p99, 0, 0);
}

/*
 * Two replicas of one slot, by hand:
 *   request  arrives  service
 *      0        0       100
 *      1        0.5      10
 *      2        1         1
 *      3        2         1
 *      4       11         1
 * least-loaded: 0 -> r0, 1 -> r1 (load 0 < 1), 2 -> r0 (1 = 1: the
 *   oldest; starts at 100, waits 99), 3 -> r1 (1 < 2; starts at 10.5,
 *   waits 8.5, done 11.5), 4 -> r1 (1 < 2; starts 11.5, waits 0.5).
 * round-robin: 0 r0, 1 r1, 2 r0, 3 r1 as above, 4 -> r0 behind request 2
 *   (100 .. 101): waits 90.
 * shared: 2 starts when r1 frees at 10.5 (9.5), 3 at 11.5 (9.5), 4 at
 *   12.5 (1.5).
 * (Between identical replicas the tie rule cannot show: the other rule
 * gives the same waits with the replicas' names swapped.  The drain test
 * below, where the newest replica is the one to go, tells them apart.)
 */
static void test_route_least_loaded_emptier(void **state)
{
	double at[] = { 0, 0.5, 1, 2, 11 }, svc[] = { 100, 10, 1, 1, 1 };
	struct world w;
	struct sim_result r;

	world_init(&w, at, svc, 5, 200, "static", 1, 2);
	w.routing = SIM_ROUTE_LEAST_LOADED;
	run_world(&w, &r);
	assert_int_equal(r.started, 5);
	assert_near(r.wait_mean, (99 + 8.5 + 0.5) / 5, 1e-9);
	assert_near(r.wait_p99, 99, 1e-9);
	assert_int_equal(r.within_sla, 3);
	w.routing = SIM_ROUTE_ROUND_ROBIN;
	run_world(&w, &r);
	assert_near(r.wait_mean, (99 + 8.5 + 90) / 5, 1e-9);
	assert_int_equal(r.within_sla, 2);
	w.routing = SIM_ROUTE_SHARED;
	run_world(&w, &r);
	assert_near(r.wait_mean, (9.5 + 9.5 + 1.5) / 5, 1e-9);
	assert_int_equal(r.within_sla, 3);
}

/*
 * A drain hands its queue back.  The oracle, capped at 2 replicas, holds
 * 2 until t = 15, when the demand ahead is 1 (request 1 until 15.05) and
 * it drains the newest, r1.  Both routings gave 0 and 2 to r0, 1 and 3
 * to r1: at t = 15 request 3 (arrived 0.3) still waits on r1, goes back
 * to the gateway and on to r0, behind request 2 (14.9 .. 15.4): it
 * starts at 15.4, a wait of 15.1 counted from its arrival.  With a 15 s
 * timeout its wait expires at 15.3 and it is shed, not restarted.
 * (Were least-loaded's ties to go to the newest, r1 would hold 0 and 2,
 * nothing would be queued on it at t = 15, and 3 would wait 14.75.)
 */
static void test_route_drain_reroutes(void **state)
{
	double at[] = { 0, 0.1, 0.2, 0.3 }, svc[] = { 14.9, 14.95, 0.5, 0.5 };
	struct world w;
	struct sim_result r;
	size_t i;

	for (i = 1; i < 3; i++) {
		world_init(&w, at, svc, 4, 60, "oracle:maxReplicaCount=2", 1,
			   2);
		w.cold = 0;
		w.routing = all_routings[i];
		run_world(&w, &r);
		assert_int_equal(r.scale_events, 1);
		assert_int_equal(r.started, 4);
		assert_near(r.wait_p99, 15.1, 1e-9);
		assert_near(r.wait_mean, (14.7 + 15.1) / 4, 1e-9);
		/* r0 for 60 s, r1 until its last request ends at 15.05 */
		assert_near(r.replica_hours, (60 + 15.05) / 3600, 1e-12);
		w.timeout = 15;
		run_world(&w, &r);
		assert_int_equal(r.shed, 1);
		assert_int_equal(r.started, 3);
		assert_near(r.wait_p99, 14.7, 1e-9);
	}
}

/*
 * No replica at all: the oracle starts two at t = 0 (demand 2), ready at
 * t = 30.  Requests of t = 1 and 2 wait at the gateway and are routed
 * once both replicas are ready, one each: waits 29 and 28 under every
 * routing (least-loaded does not pile both on the first one ready, where
 * the second would wait for the first to end at 130).
 */
static void test_route_gateway_waits(void **state)
{
	double at[] = { 1, 2 }, svc[] = { 100, 100 };
	struct world w;
	struct sim_result r;
	size_t i;

	for (i = 0; i < 3; i++) {
		world_init(&w, at, svc, 2, 200, "oracle", 1, 0);
		w.cold = 30;
		w.routing = all_routings[i];
		run_world(&w, &r);
		assert_int_equal(r.started, 2);
		assert_near(r.wait_p50, 28, 1e-9);
		assert_near(r.wait_p99, 29, 1e-9);
		assert_int_equal(r.peak_replicas, 2);
	}
}

struct queue_acc {
	uint64_t queue[64], shed[64];
};

static void queue_sample(void *arg, const struct sim_sample *x)
{
	struct queue_acc *a = arg;
	size_t i = (size_t)x->t;

	if (i < 64 && (double)i == x->t) {
		a->queue[i] = x->queue;
		a->shed[i] = x->shed;
	}
}

/*
 * Timeouts under every routing, exact at every sample: one replica of one
 * slot held 100 s by request 0; requests 1, 2, 3 (t = 1, 2, 3) queue
 * (at the gateway or on the replica) and reach their 10 s timeout at 11,
 * 12, 13, so they are gone by the next instant: the queue reads 3, 2, 1,
 * 0, 0 at t = 11 .. 15, one shed in each of the samples of t = 12, 13,
 * 14.  With no replica at all they are shed from the gateway.
 */
static void test_route_timeouts(void **state)
{
	double at[] = { 0, 1, 2, 3 }, svc[] = { 100, 1, 1, 1 };
	static const uint64_t q[] = { 3, 2, 1, 0, 0 }, sh[] = { 0, 1, 1, 1,
								 0 };
	struct queue_acc acc;
	struct world w;
	struct sim_result r;
	size_t i, k;

	for (i = 0; i < 3; i++) {
		world_init(&w, at, svc, 4, 60, "static", 1, 1);
		w.timeout = 10;
		w.routing = all_routings[i];
		w.ts_step = 1;
		w.fn = queue_sample;
		w.arg = &acc;
		memset(&acc, 0, sizeof(acc));
		run_world(&w, &r);
		assert_int_equal(r.shed, 3);
		assert_int_equal(r.started, 1);
		for (k = 0; k < 5; k++) {
			assert_int_equal(acc.queue[11 + k], q[k]);
			assert_int_equal(acc.shed[11 + k], sh[k]);
		}
		world_init(&w, at, svc, 4, 60, "static:replicas=0", 1, 1);
		w.timeout = 10;
		w.routing = all_routings[i];
		run_world(&w, &r);
		assert_int_equal(r.shed, 4);
		assert_int_equal(r.started, 0);
		assert_near(r.replica_hours, 0, 0);
	}
}

/* Little's law under least-loaded, as test_littles_law for the shared
 * queue: the routing must lose no request and no busy slot. */
static void test_littles_law_least_loaded(void **state)
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
	parse_policy(&p, "static", 16);
	sim_config_init(&c);
	c.slots = 16;
	c.initial_replicas = 10;
	c.routing = SIM_ROUTE_LEAST_LOADED;
	c.end_s = t.span_s;
	c.ts_step_s = 1;
	memset(&acc, 0, sizeof(acc));
	acc.t_from = 100;
	assert_int_equal(sim_run(&c, &t, &d, &p, &r, busy_sample, &acc, err,
				 sizeof(err)), 0);
	lw = (double)t.n / t.span_s * trace_work_s(&t) / (double)t.n;
	assert_near(acc.sum / acc.n, lw, 0.03 * lw);
	assert_int_equal(r.started, r.requests);
	assert_int_equal(r.shed, 0);
	assert_near(r.wait_p99, 0, 0);
	assert_int_equal(acc.queue_max, 0);
	policy_release(&p);
	demand_free(&d);
	trace_free(&t);
}

/* ---- static and keda-sum ------------------------------------------------- */

struct spec_acc {
	int32_t spec_min, spec_max, ready_min;
	size_t n;
};

static void spec_sample(void *arg, const struct sim_sample *x)
{
	struct spec_acc *a = arg;

	if (a->n == 0 || x->spec < a->spec_min)
		a->spec_min = x->spec;
	if (a->n == 0 || x->spec > a->spec_max)
		a->spec_max = x->spec;
	if (a->n == 0 || x->ready < a->ready_min)
		a->ready_min = x->ready;
	a->n++;
}

/* static holds exactly N replicas through a surge that would make any
 * autoscaler move, and nothing else: no scale event, N x span hours. */
static void test_static_fleet(void **state)
{
	double at[200], svc[200];
	struct spec_acc acc;
	struct world w;
	struct sim_result r;
	size_t i;

	for (i = 0; i < 200; i++) {
		at[i] = 100 + (double)i;        /* 1 req/s of 30 s: 30 busy */
		svc[i] = 30;
	}
	world_init(&w, at, svc, 200, 600, "static:replicas=3", 4, 5);
	w.timeout = 60;
	w.ts_step = 15;
	w.fn = spec_sample;
	w.arg = &acc;
	for (i = 0; i < 3; i++) {
		memset(&acc, 0, sizeof(acc));
		w.routing = all_routings[i];
		run_world(&w, &r);
		assert_int_equal(r.scale_events, 0);
		assert_int_equal(r.peak_replicas, 3);
		assert_near(r.replica_hours, 3 * 600.0 / 3600, 1e-12);
		assert_int_equal(acc.spec_min, 3);
		assert_int_equal(acc.spec_max, 3);
		assert_int_equal(acc.ready_min, 3);
		assert_true(r.never_scales_up);
		assert_true(r.shed > 0);        /* 12 slots for 30 busy */
	}
	/* Default: the run's initial replicas. */
	w.policy = "static";
	w.fn = NULL;
	run_world(&w, &r);
	assert_int_equal(r.scale_events, 0);
	assert_int_equal(r.peak_replicas, 5);
	assert_near(r.replica_hours, 5 * 600.0 / 3600, 1e-12);
}

static void test_static_parse(void **state)
{
	struct policy p;
	char err[POLICY_ERR_MAX];

	parse_policy(&p, "static", 16);
	assert_int_equal(p.kind, POLICY_STATIC);
	assert_int_equal(p.static_replicas, -1);
	policy_release(&p);
	parse_policy(&p, "static:replicas=0", 16);
	assert_int_equal(p.static_replicas, 0);
	policy_release(&p);
	assert_int_equal(policy_parse(&p, "static:minReplicaCount=2", NULL,
				      NULL, 0, 16, 100, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "allowed: replicas"));
	policy_release(&p);
	assert_int_equal(policy_parse(&p, "static:replicas=-1", NULL, NULL, 0,
				      16, 100, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'replicas'"));
	policy_release(&p);
	assert_int_equal(policy_parse(&p, "keda-sum:threshold=0", NULL, NULL,
				      0, 16, 100, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'threshold'"));
	policy_release(&p);
}

static void sum_view(struct policy_view *v, int32_t status, double inflight,
		     double queue)
{
	memset(v, 0, sizeof(*v));
	v->status = v->spec = v->ready = status;
	v->inflight = inflight;
	v->queue_depth = queue;
	v->slots = 16;
}

/*
 * keda-sum by hand, AverageValue on running + waiting per replica,
 * tolerance 0.1 (inclusive band):
 *  - default threshold = slots 16; 4 replicas, 50 running + 14 waiting:
 *    64 / (16 x 4) = 1.0, inside: 4;
 *  - 60 + 20 = 80: 1.25, outside: ceil(80 / 16) = 5;
 *  - 40 + 0: 0.625: ceil(40 / 16) = 3;
 *  - threshold 10 at 3 replicas: 33 + 0 = 1.1, on the band's edge: 3;
 *    34: 1.133: ceil(3.4) = 4;
 *  - the queue gauge without data: the sum has none, read as 0: 0.
 */
static void test_keda_sum(void **state)
{
	struct policy p;
	struct policy_run run;
	struct policy_view v;

	parse_policy(&p, "keda-sum", 16);
	assert_near(p.sum_threshold, 16, 0);
	assert_int_equal(policy_run_init(&run, &p), 0);
	sum_view(&v, 4, 50, 14);
	assert_int_equal(policy_proposal(&run, &v), 4);
	sum_view(&v, 4, 60, 20);
	assert_int_equal(policy_proposal(&run, &v), 5);
	sum_view(&v, 4, 40, 0);
	assert_int_equal(policy_proposal(&run, &v), 3);
	sum_view(&v, 4, 40, NAN);
	assert_int_equal(policy_proposal(&run, &v), 0);
	assert_int_equal(policy_active(&run, &v), 0);
	sum_view(&v, 4, 0, 1);
	assert_int_equal(policy_active(&run, &v), 1);
	policy_run_free(&run);
	policy_release(&p);

	parse_policy(&p, "keda-sum:threshold=10", 16);
	assert_int_equal(policy_run_init(&run, &p), 0);
	sum_view(&v, 3, 33, 0);
	assert_int_equal(policy_proposal(&run, &v), 3);
	sum_view(&v, 3, 30, 4);
	assert_int_equal(policy_proposal(&run, &v), 4);
	assert_false(policy_never_scales_up(&run, 16));
	policy_run_free(&run);
	policy_release(&p);
}

static int never_up(const char *spec, long slots)
{
	struct policy p;
	struct policy_run run;
	int v;

	parse_policy(&p, spec, slots);
	assert_int_equal(policy_run_init(&run, &p), 0);
	v = policy_never_scales_up(&run, slots);
	policy_run_free(&run);
	policy_release(&p);
	return v;
}

/*
 * keda-running with 16 slots and tolerance 0.1 scales up only if
 * 16 / threshold > 1.1, threshold in milli units: 16000 / 14545 =
 * 1.100034 can, 16000 / 14546 = 1.099959 cannot.  Then a real run at
 * both sides of the edge: 40 long requests on one full replica.
 */
static void test_never_scales_up(void **state)
{
	double at[40], svc[40];
	struct world w;
	struct sim_result r;
	size_t i;

	assert_false(never_up("keda-running:threshold=14.5", 16));
	assert_false(never_up("keda-running:threshold=14.545", 16));
	assert_true(never_up("keda-running:threshold=14.546", 16));
	assert_true(never_up("keda-running:threshold=14.6", 16));
	assert_true(never_up("keda-running:threshold=16", 16));
	assert_false(never_up("keda-running", 16));        /* 12 */
	/* Up-tolerance 0.2: the edge moves to 16 / 1.2 = 13.333. */
	assert_false(never_up("keda-running:upTolerance=0.2,threshold=13.333",
			      16));
	assert_true(never_up("keda-running:upTolerance=0.2,threshold=13.334",
			     16));
	/* Tolerance 0: any threshold below slots scales up. */
	assert_false(never_up("keda-running:tolerance=0,threshold=15.999",
			      16));
	assert_true(never_up("keda-running:tolerance=0,threshold=16", 16));
	assert_true(never_up("static", 16));
	assert_false(never_up("keda-combined:running=16", 16));
	assert_false(never_up("keda-queue", 16));
	assert_false(never_up("keda-sum:threshold=100", 16));
	assert_false(never_up("hpa-util", 16));
	assert_false(never_up("oracle", 16));
	assert_false(never_up("staffer", 16));

	for (i = 0; i < 40; i++) {
		at[i] = (double)i / 40;
		svc[i] = 1000;
	}
	world_init(&w, at, svc, 40, 400, "keda-running:threshold=14.545", 16,
		   1);
	run_world(&w, &r);
	assert_false(r.never_scales_up);
	assert_true(r.scale_events > 0);
	assert_true(r.peak_replicas >= 2);
	w.policy = "keda-running:threshold=14.546";
	run_world(&w, &r);
	assert_true(r.never_scales_up);
	assert_int_equal(r.scale_events, 0);
	assert_int_equal(r.peak_replicas, 1);
}

/* ---- warm starts --------------------------------------------------------- */

/*
 * First minute: requests at 0 (30 s), 10 (50 s) and 59.9 (100 s); the one
 * at 60 s (1000 s) starts after the minute.  At most 2 run at once in
 * [0, 60] (10-30 s, and 59.9-60 s), so: 2 slots: 1 replica; 1 slot: 2;
 * the floor: min 5 gives 5; a quiet first minute still 1.  "auto" peeks
 * ahead over the first cold start (and a sync): 2 at once there too.
 */
static void test_first_minute(void **state)
{
	double at[] = { 0, 10, 59.9, 62 }, svc[] = { 30, 50, 100, 1000 };
	double late[] = { 60, 61 }, lsvc[] = { 500, 500 };
	struct trace t;
	struct demand d;
	struct sim_config c;
	char err[256];

	make_trace(&t, at, svc, 4, 120);
	demand_init(&d);
	assert_int_equal(demand_build(&d, &t, err, sizeof(err)), 0);
	sim_config_init(&c);
	c.slots = 2;
	assert_int_equal(sim_first_minute_replicas(&c, &d, 1), 1);
	c.slots = 1;
	assert_int_equal(sim_first_minute_replicas(&c, &d, 1), 2);
	assert_int_equal(sim_first_minute_replicas(&c, &d, 0), 2);
	assert_int_equal(sim_first_minute_replicas(&c, &d, 5), 5);
	assert_int_equal(sim_initial_replicas(&c, &d, 1), 2);
	demand_free(&d);
	trace_free(&t);
	make_trace(&t, late, lsvc, 2, 120);
	demand_init(&d);
	assert_int_equal(demand_build(&d, &t, err, sizeof(err)), 0);
	c.slots = 1;
	assert_int_equal(sim_first_minute_replicas(&c, &d, 0), 1);
	demand_free(&d);
	trace_free(&t);
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
		{ "staffer:cold=yes", "allowed: given or measured" },
		{ "staffer:feedback=maybe", "or bound" },
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
		cmocka_unit_test(test_max_over),
		cmocka_unit_test(test_heap_order),
		cmocka_unit_test(test_pool_table),
		cmocka_unit_test(test_perf_model),
		cmocka_unit_test(test_perf_bytes),
		cmocka_unit_test(test_trace_csv),
		cmocka_unit_test(test_trace_csv_bytes),
		cmocka_unit_test(test_trace_overlay),
		cmocka_unit_test(test_trace_repeat),
		cmocka_unit_test(test_trace_rates),
		cmocka_unit_test(test_clients_share),
		cmocka_unit_test(test_clients_ramp),
		cmocka_unit_test(test_trace_clients),
		cmocka_unit_test(test_trace_dispersion),
		cmocka_unit_test(test_simsort),
		cmocka_unit_test(test_littles_law),
		cmocka_unit_test(test_queue_timeout),
		cmocka_unit_test(test_cold_start),
		cmocka_unit_test(test_answer_age),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_oracle),
		cmocka_unit_test(test_policy_parse_errors),
		cmocka_unit_test(test_cold_measured),
		cmocka_unit_test(test_cold_measured_view),
		cmocka_unit_test(test_cold_vary),
		cmocka_unit_test(test_feedback_bound),
		cmocka_unit_test(test_routing_names),
		cmocka_unit_test(test_simll_random),
		cmocka_unit_test(test_route_round_robin_cycles),
		cmocka_unit_test(test_route_wait_behind_long),
		cmocka_unit_test(test_route_least_loaded_emptier),
		cmocka_unit_test(test_route_drain_reroutes),
		cmocka_unit_test(test_route_gateway_waits),
		cmocka_unit_test(test_route_timeouts),
		cmocka_unit_test(test_littles_law_least_loaded),
		cmocka_unit_test(test_static_fleet),
		cmocka_unit_test(test_static_parse),
		cmocka_unit_test(test_keda_sum),
		cmocka_unit_test(test_never_scales_up),
		cmocka_unit_test(test_first_minute),
		cmocka_unit_test(test_determinism_routing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
