/*
 * test_split.c - the split-fleet simulator (sim/split.h) and its policies
 * (sim/splitpol.h) on small cases worked by hand: one request's TTFT and
 * ITL, the prefill batch budget, the queue timeout, KV-cache admission,
 * replica-hours, the warm start, the bounds every policy keeps, llm-d's
 * minute of queue peaks, the planner's ITL correction, a policy's parse
 * errors, and determinism.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sim/perf.h"
#include "sim/split.h"
#include "sim/splitpol.h"
#include "sim/trace.h"

static struct perf perf;

/* A trace of n requests: arrival i at t[i], in[i] and out[i] tokens. */
static void trace_of(struct trace *t, const double *at, const int32_t *in,
		     const int32_t *out, size_t n, double span)
{
	size_t i;

	trace_init(t);
	t->req = calloc(n, sizeof(*t->req));
	assert_non_null(t->req);
	t->n = t->cap = n;
	for (i = 0; i < n; i++) {
		t->req[i].arrival_s = at[i];
		t->req[i].service_s = -1;
		t->req[i].input_tokens = in[i];
		t->req[i].output_tokens = out[i];
		t->req[i].seq = (uint32_t)i;
	}
	t->span_s = span;
}

static void config(struct split_config *c, int32_t p, int32_t d,
		   double end)
{
	perf_default(&perf);
	split_config_init(c);
	c->perf = &perf;
	c->initial[SPLIT_PREFILL] = p;
	c->initial[SPLIT_DECODE] = d;
	c->end_s = end;
}

/* Run the policy spec over t; 0 or the run's error. */
static int run(const struct split_config *c, const struct trace *t,
	       const char *spec, struct split_result *r)
{
	struct splitpol p;
	char err[SPLITPOL_ERR_MAX];
	int rc;

	if (splitpol_parse(&p, spec, c, 1000, err, sizeof(err)))
		fail_msg("%s: %s", spec, err);
	rc = split_run(c, t, &p, r, NULL, NULL, err, sizeof(err));
	splitpol_release(&p);
	return rc;
}

/*
 * One request alone on a static fleet: its TTFT is its prefill, the KV
 * transfer and one decode step at batch 1; its 9 later tokens each take a
 * step at batch 1 (29.4 ms, within 40 ms).  Two replicas for an hour.
 */
static void test_one_request(void **state)
{
	static const double at[] = { 10 };
	static const int32_t in[] = { 1000 }, out[] = { 10 };
	struct split_config c;
	struct split_result r;
	struct trace t;
	double ttft;

	(void)state;
	config(&c, 1, 1, 3600);
	trace_of(&t, at, in, out, 1, 3600);
	assert_int_equal(run(&c, &t, "static", &r), 0);
	ttft = perf_prefill_batch_s(&perf, 1000, 1000.0 * 1000) +
	       split_transfer_s(&c, 1000) + perf_token_s(&perf, 1);
	assert_near(perf_prefill_batch_s(&perf, 1000, 1000.0 * 1000),
		    perf_prefill_s(&perf, 1000), 1e-12);
	assert_near(split_transfer_s(&c, 1000), 0.005 + 0.0065, 1e-12);
	assert_int_equal(r.requests, 1);
	assert_int_equal(r.shed, 0);
	assert_near(r.ttft_p50, ttft, 1e-9);
	assert_int_equal(r.ttft_within, 1);
	assert_int_equal(r.tokens, 9);
	assert_int_equal(r.tokens_within, 9);
	assert_near(r.itl_mean, perf_token_s(&perf, 1), 1e-9);
	assert_near(r.replica_hours, 2, 1e-9);
	assert_int_equal(r.pool[SPLIT_PREFILL].peak, 1); /* the warm start */
	/* a TTFT target below it: missed */
	c.ttft_s = ttft - 1e-6;
	assert_int_equal(run(&c, &t, "static", &r), 0);
	assert_int_equal(r.ttft_within, 0);
	assert_near(r.ttft_attainment, 0, 0);
	/* an ITL target below batch 1's step: every later token missed */
	c.itl_s = 0.02;
	assert_int_equal(run(&c, &t, "static", &r), 0);
	assert_int_equal(r.tokens_within, 0);
	trace_free(&t);
}

/*
 * The prefill budget: three prompts of 3000 tokens at 0 on one replica.
 * The first finds the replica idle and runs alone; the other two wait
 * and, with a budget of 6000, run in one batch after it (each then on
 * its own decode replica, one step at batch 1).  With a budget of 5999
 * they run one after the other.
 */
static void test_prefill_batch(void **state)
{
	static const double at[] = { 0, 0, 0 };
	static const int32_t in[] = { 3000, 3000, 3000 }, out[] = { 1, 1, 1 };
	struct split_config c;
	struct split_result r;
	struct trace t;
	double b2, b1, tail;

	(void)state;
	config(&c, 1, 2, 600);
	c.prefill_budget = 6000;
	trace_of(&t, at, in, out, 3, 600);
	assert_int_equal(run(&c, &t, "static", &r), 0);
	b2 = perf_prefill_batch_s(&perf, 6000, 2 * 3000.0 * 3000);
	b1 = perf_prefill_s(&perf, 3000);
	tail = split_transfer_s(&c, 3000) + perf_token_s(&perf, 1);
	assert_true(b2 < 2 * b1);   /* a batch saves the cross attention */
	/* p50 and p99 of three: the second and the third */
	assert_near(r.ttft_p50, b1 + b2 + tail, 1e-9);
	assert_near(r.ttft_p99, b1 + b2 + tail, 1e-9);
	assert_int_equal(r.tokens, 0);  /* one token each: no ITL */
	assert_near(r.itl_attainment, 1, 0);
	c.prefill_budget = 5999;
	assert_int_equal(run(&c, &t, "static", &r), 0);
	assert_near(r.ttft_p50, 2 * b1 + tail, 1e-9);
	assert_near(r.ttft_p99, 3 * b1 + tail, 1e-9);
	trace_free(&t);
}

/*
 * The queue timeout: 0 prefill replicas, nothing ever served: every
 * request shed after 60 s, counted as a TTFT miss.
 */
static void test_shed(void **state)
{
	static const double at[] = { 0, 1, 2 };
	static const int32_t in[] = { 10, 10, 10 }, out[] = { 5, 5, 5 };
	struct split_config c;
	struct split_result r;
	struct trace t;

	(void)state;
	config(&c, 0, 1, 300);
	trace_of(&t, at, in, out, 3, 300);
	assert_int_equal(run(&c, &t, "static", &r), 0);
	assert_int_equal(r.shed, 3);
	assert_int_equal(r.ttft_within, 0);
	assert_true(isnan(r.ttft_p50));
	trace_free(&t);
}

/*
 * KV-cache admission: a replica of 3000 KV tokens holds one sequence of
 * 1000 + 1000 at a time; the second waits for the first to finish
 * (nothing is preempted), so its TTFT includes the first's decode.
 */
static void test_kv_admission(void **state)
{
	static const double at[] = { 0, 0 };
	static const int32_t in[] = { 1000, 1000 }, out[] = { 1000, 1000 };
	struct split_config c;
	struct split_result r;
	struct trace t;

	(void)state;
	config(&c, 2, 1, 600);
	c.kv_tokens = 3000;
	trace_of(&t, at, in, out, 2, 600);
	assert_int_equal(run(&c, &t, "static", &r), 0);
	/* the second's first token comes after the first's 1000 steps */
	assert_true(r.ttft_p99 > 1000 * perf_token_s(&perf, 1));
	assert_true(r.ttft_p50 < 1);
	/* with room for both, they decode together */
	c.kv_tokens = 4000;
	assert_int_equal(run(&c, &t, "static", &r), 0);
	assert_true(r.ttft_p99 < 1);
	trace_free(&t);
}

/*
 * The warm start: the first minute's peak 10-s input tokens over a
 * replica's throughput at the budget, and the most sequences at once
 * over the batch within the ITL target.
 */
static void test_first_minute(void **state)
{
	double at[200];
	int32_t in[200], out[200];
	struct split_config c;
	struct trace t;
	int32_t init[SPLIT_POOLS];
	size_t i;
	long b;
	double need;

	(void)state;
	config(&c, 1, 1, 600);
	for (i = 0; i < 200; i++) {
		at[i] = 20 + (double)i * 0.05;   /* 200 in [20, 30) */
		in[i] = 2000;
		out[i] = 500;
	}
	trace_of(&t, at, in, out, 200, 600);
	split_first_minute(&c, &t, init);
	need = ceil(200 * 2000 / 10.0 /
		    splitpol_prefill_tps(&perf, (double)c.prefill_budget));
	assert_int_equal(init[SPLIT_PREFILL], (int32_t)need);
	b = splitpol_batch_within(&perf, c.itl_s, c.decode_slots);
	assert_int_equal(b, 38);
	/* each decodes 500 x ITL(38) = 19.9 s: all 200 at once */
	assert_int_equal(init[SPLIT_DECODE], (int32_t)ceil(200.0 / 38));
	trace_free(&t);
}

/*
 * A step in load: 2 req/s for 10 minutes, then 20 req/s.  staffer and
 * the planner scale both pools up, within the bounds they are given
 * (maxReplicaCount binds the planner as it binds the HPA); staffer sheds
 * nothing where the warm fleet alone sheds most; same inputs, same
 * outputs.
 */
static void test_scaling(void **state)
{
	struct split_config c;
	struct split_result r, r2, st;
	struct trace t;
	double *at;
	int32_t *in, *out;
	size_t i, n = 0, cap = 30000;

	(void)state;
	at = malloc(cap * sizeof(*at));
	in = malloc(cap * sizeof(*in));
	out = malloc(cap * sizeof(*out));
	assert_true(at && in && out);
	for (i = 0; i < 1200; i++, n++)         /* 0 to 600 s: 2 req/s */
		at[n] = (double)i * 0.5;
	for (i = 0; i < 24000; i++, n++)        /* 600 to 1800 s: 20 */
		at[n] = 600 + (double)i * 0.05;
	for (i = 0; i < n; i++) {
		in[i] = 1500 + (int32_t)(i % 7) * 100;
		out[i] = 100 + (int32_t)(i % 5) * 20;
	}
	trace_of(&t, at, in, out, n, 1800);
	config(&c, 1, 1, 1800);
	c.cold_start_s = 60;
	split_first_minute(&c, &t, c.initial);
	assert_int_equal(run(&c, &t, "static", &st), 0);
	assert_int_equal(run(&c, &t, "staffer", &r), 0);
	assert_true(r.pool[SPLIT_PREFILL].peak > c.initial[SPLIT_PREFILL]);
	assert_true(r.pool[SPLIT_DECODE].peak > c.initial[SPLIT_DECODE]);
	/* a 10-fold step with a 60-s cold start: late first tokens while
	 * the new replicas start, none shed; the warm fleet sheds most */
	assert_true(r.ttft_attainment > 0.8);
	assert_true(r.itl_attainment > 0.8);
	assert_int_equal(r.shed, 0);
	assert_true(st.ttft_attainment < 0.1);
	assert_true(st.shed > 10000);
	assert_int_equal(r.metric_errors, 0);
	/* determinism */
	assert_int_equal(run(&c, &t, "staffer", &r2), 0);
	assert_memory_equal(&r, &r2, sizeof(r));
	/* the planner within maxReplicaCount */
	assert_int_equal(run(&c, &t, "planner:interval=60", &r), 0);
	assert_true(r.pool[SPLIT_PREFILL].peak > 2);
	assert_int_equal(run(&c, &t, "planner:interval=60,maxReplicaCount=2",
			     &r), 0);
	assert_int_equal(r.pool[SPLIT_PREFILL].peak, 2);
	assert_int_equal(run(&c, &t, "llm-d:maxReplicaCount=2", &r), 0);
	assert_true(r.pool[SPLIT_PREFILL].peak <= 2);
	assert_int_equal(run(&c, &t, "keda:maxReplicaCount=2", &r), 0);
	assert_true(r.pool[SPLIT_PREFILL].peak <= 2);
	assert_int_equal(run(&c, &t, "staffer:maxReplicaCount=2", &r), 0);
	assert_true(r.pool[SPLIT_PREFILL].peak <= 2);
	/* KEDA under staffer's behaviour runs too */
	assert_int_equal(run(&c, &t, "keda:prefill=sum,prefillThreshold=4,"
			     "behavior=staffer", &r), 0);
	assert_true(r.pool[SPLIT_PREFILL].peak > 2);
	trace_free(&t);
	free(at);
	free(in);
	free(out);
}

static void expect_parse_error(const char *spec, const char *needle)
{
	struct split_config c;
	struct splitpol p;
	char err[SPLITPOL_ERR_MAX];

	config(&c, 1, 1, 600);
	assert_int_equal(splitpol_parse(&p, spec, &c, 1000, err, sizeof(err)),
			 -1);
	splitpol_release(&p);
	check_contains(err, needle);
}

/* A direct policy (planner, llm-d) on a view built by hand: its run, the
 * series it reads (empty) and the view, every replica ready. */
struct viewfix {
	struct split_config c;
	struct splitpol p;
	struct splitpol_run r;
	struct simseries ser[SS_N];
	struct split_view v;
};

static void viewfix_init(struct viewfix *f, const char *spec, int32_t p,
			 int32_t d)
{
	char err[SPLITPOL_ERR_MAX];
	int k;

	config(&f->c, p, d, 3600);
	if (splitpol_parse(&f->p, spec, &f->c, 1000, err, sizeof(err)))
		fail_msg("%s: %s", spec, err);
	assert_int_equal(splitpol_run_init(&f->r, &f->p, &f->c), 0);
	for (k = 0; k < SS_N; k++)
		assert_int_equal(simseries_init(&f->ser[k], 64), 0);
	memset(&f->v, 0, sizeof(f->v));
	f->v.ser = f->ser;
	f->v.rate_window_s = 60;
	f->v.c = &f->c;
	for (k = 0; k < SPLIT_POOLS; k++)
		f->v.spec[k] = f->v.status[k] = f->v.ready[k] =
			f->c.initial[k];
}

static void viewfix_release(struct viewfix *f)
{
	int k;

	for (k = 0; k < SS_N; k++)
		simseries_free(&f->ser[k]);
	splitpol_run_free(&f->r);
	splitpol_release(&f->p);
}

/*
 * llm-d's analyzer: it reads the prefill queue's peak of the last minute
 * (max_over_time[1m]), not its last scrape; a scale-down blocks its next
 * decisions for that minute; a starting pod blocks them too.
 */
static void test_llmd_window(void **state)
{
	struct viewfix f;
	struct split_view *v = &f.v;
	struct simseries *q = &f.ser[SS_PQ];

	(void)state;
	viewfix_init(&f, "llm-d", 4, 1);
	/* 40 prompts waited at 255 s, none since: 10 a replica, saturated */
	simseries_add(q, 240, 0);
	simseries_add(q, 255, 40);
	simseries_add(q, 270, 0);
	simseries_add(q, 285, 0);
	simseries_add(q, 300, 0);
	v->now = 300;
	assert_int_equal(splitpol_direct(&f.r, SPLIT_PREFILL, v), 5);
	/* a minute later the peak has left the window: one fewer */
	simseries_add(q, 315, 0);
	v->now = 315;
	assert_int_equal(splitpol_direct(&f.r, SPLIT_PREFILL, v), 3);
	/* ... and nothing for the minute the removed pod stays in the
	 * query (the simulator applies the 3) */
	v->spec[SPLIT_PREFILL] = v->status[SPLIT_PREFILL] = 3;
	v->ready[SPLIT_PREFILL] = 3;
	v->now = 345;
	assert_int_equal(splitpol_direct(&f.r, SPLIT_PREFILL, v), -1);
	v->now = 375;
	assert_int_equal(splitpol_direct(&f.r, SPLIT_PREFILL, v), 2);
	/* a pod starting blocks it */
	v->now = 440;
	v->starting[SPLIT_PREFILL] = 1;
	v->status[SPLIT_PREFILL] = 3;
	v->ready[SPLIT_PREFILL] = 2;
	assert_int_equal(splitpol_direct(&f.r, SPLIT_PREFILL, v), -1);
	viewfix_release(&f);
}

/*
 * The planner's decode answer on 180 s of steady traffic built by hand
 * (10 req/s of 1000 input and 200 output tokens, 40 sequences decoding on
 * 2 replicas): with the observed ITL what the profile gives at 20
 * sequences a replica, it plans at the 40-ms target (b* 38: ceil(2000 /
 * (38 / ITL(38))) = 3); with twice that, the corrected target (20 ms) is
 * below any batch's ITL and it plans one sequence a replica (ceil(2000 x
 * ITL(1)) = 59).
 */
static int32_t planner_decode(double itl_factor)
{
	struct viewfix f;
	double itl = itl_factor * perf_token_s(&perf, 20), tr;
	int32_t n;
	int i;

	viewfix_init(&f, "planner", 2, 2);
	tr = split_transfer_s(&f.c, 1000);
	for (i = 0; i <= 24; i++) {
		double t = 15.0 * i;

		simseries_add(&f.ser[SS_ARR], t, 10 * t);
		simseries_add(&f.ser[SS_IN], t, 10000 * t);
		simseries_add(&f.ser[SS_DONE], t, 10 * t);
		simseries_add(&f.ser[SS_DONE_OUT], t, 2000 * t);
		simseries_add(&f.ser[SS_ITL_N], t, 1990 * t);
		simseries_add(&f.ser[SS_ITL_SUM], t, 1990 * t * itl);
		simseries_add(&f.ser[SS_PQ], t, 0);
		simseries_add(&f.ser[SS_PRUN], t, 0);
		simseries_add(&f.ser[SS_DQ], t, 0);
		/* less the KV transfers in flight: 20 a replica in all */
		simseries_add(&f.ser[SS_DRUN], t, 40 - 10 * tr);
	}
	f.v.now = 360;
	n = splitpol_direct(&f.r, SPLIT_DECODE, &f.v);
	viewfix_release(&f);
	return n;
}

static void test_planner_itl_correction(void **state)
{
	(void)state;
	assert_int_equal(planner_decode(1), 3);
	assert_int_equal(planner_decode(2), 59);
}

static void test_parse_errors(void **state)
{
	(void)state;
	expect_parse_error("stafer", "unknown policy 'stafer'");
	expect_parse_error("keda:prefill=kv", "allowed: queue, running, sum");
	expect_parse_error("keda:behavior=fast", "'behavior': 'fast'");
	expect_parse_error("planner:behavior=staffer", "unknown key");
	expect_parse_error("planner:scale=0", "'scale': '0'");
	expect_parse_error("static:prefill=-1", "'prefill': '-1'");
	expect_parse_error("staffer:decode.itlTargetSeconds=0.001",
			   "decode trigger");
	expect_parse_error("keda:minReplicaCount=5,maxReplicaCount=2",
			   "minReplicaCount is above maxReplicaCount");
	expect_parse_error("keda:prefill", "not key=value");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_request),
		cmocka_unit_test(test_prefill_batch),
		cmocka_unit_test(test_shed),
		cmocka_unit_test(test_kv_admission),
		cmocka_unit_test(test_first_minute),
		cmocka_unit_test(test_scaling),
		cmocka_unit_test(test_llmd_window),
		cmocka_unit_test(test_planner_itl_correction),
		cmocka_unit_test(test_parse_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
