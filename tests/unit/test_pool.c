/*
 * test_pool.c - a prefill or a decode pool sized from tokens (pool.h):
 * the decode profile, each pool's W and slots, the KV bound, the TTFT
 * floor, and docs/math.md's worked examples to the replica.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"
#include "erlang.h"
#include "pool.h"

/* The Splitwise profile's token_time (llama2-70b, H100, TP4), s. */
static void profile(struct pool_profile *pr)
{
	static const double b[] = { 1, 2, 4, 8, 16, 32, 64 };
	static const double ms[] = { 29.4062, 29.9921, 29.9841, 31.4136,
				     32.8364, 36.9180, 51.9867 };
	size_t i;

	pr->n = sizeof(b) / sizeof(b[0]);
	for (i = 0; i < pr->n; i++) {
		pr->batch[i] = b[i];
		pr->itl_s[i] = ms[i] / 1000;
	}
}

static void test_itl_at(void **state)
{
	struct pool_profile pr;

	(void)state;
	profile(&pr);
	assert_near(pool_itl_at(&pr, 1), 0.0294062, 1e-12);
	assert_near(pool_itl_at(&pr, 0.5), 0.0294062, 1e-12); /* clamped */
	assert_near(pool_itl_at(&pr, 48), (36.9180 + 51.9867) / 2 / 1000,
		    1e-12);
	/* past the last point the last segment goes on: 96 is 64 + 32 */
	assert_near(pool_itl_at(&pr, 96), (51.9867 + 15.0687) / 1000, 1e-12);
	pr.n = 0;
	assert_near(pool_itl_at(&pr, 8), 0, 0);
}

static void test_batch_within(void **state)
{
	struct pool_profile pr;

	(void)state;
	profile(&pr);
	/* 0.040 s lies between 32 (0.0369) and 64 (0.0520): 32 + 32 x
	 * 3.082 / 15.0687 = 38.5 */
	assert_int_equal(pool_batch_within(&pr, 0.040), 38);
	/* exactly at a point, and past the last one */
	assert_int_equal(pool_batch_within(&pr, 0.0369180), 32);
	assert_int_equal(pool_batch_within(&pr, 0.06), 64);
	/* faster than batch 1 can go */
	assert_int_equal(pool_batch_within(&pr, 0.02), 0);
	/* 2 is a hair slower than 4: the search ends at the first point
	 * above the target (0.02995 < 0.0299921) */
	assert_int_equal(pool_batch_within(&pr, 0.02995), 1);
	pr.n = 0;
	assert_int_equal(pool_batch_within(&pr, 1), 0);
}

static void prefill_params(struct pool_params *p)
{
	pool_params_init(p);
	p->kind = POOL_PREFILL;
	p->prefill_tokens_per_s = 8000;
	p->ttft_miss = 0.01;
}

/* W = mean input / C, n = 1: L = lambda_in / C replicas. */
static void test_prefill_terms(void **state)
{
	struct model_params mp;
	struct pool_params p;
	struct pool_signals ps = { 10, 20000, 0, -1, 0, 0, 0, 0 };
	struct model_signals s = { 0 };
	struct model_breakdown b;
	struct pool_terms t;

	(void)state;
	model_params_init(&mp);
	mp.staffing = MODEL_STAFF_NONE;
	prefill_params(&p);
	s.arrival_rate = 10;
	assert_int_equal(pool_evaluate(&mp, &p, 32, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_near(t.mean_input, 2000, 1e-9);
	assert_near(t.service_s, 0.25, 1e-12);
	assert_true(t.service_from_tokens);
	assert_int_equal(t.slots, 1);           /* slots_given ignored */
	assert_int_equal(t.bind, POOL_BIND_COMPUTE);
	assert_near(b.busy_slots, 2.5, 1e-12);  /* 20000 / 8000 */
	assert_int_equal(b.replicas, 3);
	/* a measured C wins over the given one */
	ps.prefill_capacity = 10000;
	assert_int_equal(pool_evaluate(&mp, &p, 0, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_true(t.capacity_measured);
	assert_near(b.busy_slots, 2, 1e-12);
	/* no tokens a request: the W given stands */
	ps.input_rate = 0;
	s.service_time_s = 0.4;
	assert_int_equal(pool_evaluate(&mp, &p, 0, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_false(t.service_from_tokens);
	assert_near(t.service_s, 0.4, 0);
	assert_near(b.busy_slots, 4, 1e-12);
	/* no C at all */
	ps.prefill_capacity = 0;
	p.prefill_tokens_per_s = 0;
	assert_int_equal(pool_evaluate(&mp, &p, 0, &ps, &s, &b, &t),
			 MODEL_EINVAL);
}

/*
 * The TTFT target is a floor: Erlang C for the wait budget tau = T - W -
 * transfer.  docs/math.md's example: lambda 40 req/s of 2000 tokens, C
 * 8000: L = 10, W = 0.25 s.
 */
static void test_ttft_floor(void **state)
{
	struct model_params mp;
	struct pool_params p;
	struct pool_signals ps = { 40, 80000, 0, -1, 0, 0, 0, 0 };
	struct model_signals s = { 0 };
	struct model_breakdown b;
	struct pool_terms t;
	double cf = 0, zs;
	long c;

	(void)state;
	model_params_init(&mp);
	prefill_params(&p);
	s.arrival_rate = 40;
	/* a budget of 0.05 s (T 0.35, transfer 0.05): Erlang asks 17, more
	 * than the square root's 10 + 1.5 sqrt(10) = 14.74 */
	p.ttft_target_s = 0.35;
	p.kv_transfer_s = 0.05;
	assert_int_equal(erlang_staff(10, 0.25, 0.05, 0.01, &c), MODEL_OK);
	assert_int_equal(c, 17);
	assert_int_equal(pool_evaluate(&mp, &p, 0, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_near(t.ttft_wait_s, 0.05, 1e-12);
	assert_true(t.ttft_reachable);
	assert_true((double)c > 14.74);
	assert_true(t.ttft_sets);
	/* Erlang C's c continuous (erlang_staff_frac()): the load's
	 * distance below 17 shows, and the replicas are the same 17 */
	assert_int_equal(erlang_staff_frac(10, 0.25, 0.05, 0.01, &cf),
			 MODEL_OK);
	assert_true(cf > 16 && cf < 17);
	assert_near(b.total_slots, cf, 1e-9);
	assert_int_equal(b.replicas, c);
	/* the ablation: the whole c */
	mp.ablate |= MODEL_ABLATE_ERLANG_WHOLE;
	assert_int_equal(pool_evaluate(&mp, &p, 0, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_near(b.total_slots, (double)c, 1e-9);
	assert_int_equal(b.replicas, c);
	mp.ablate &= ~MODEL_ABLATE_ERLANG_WHOLE;
	/* a generous budget on Poisson arrivals (z 1): the square root
	 * covers z - 1 = 0 beyond the queue the TTFT's Erlang C staffs, so
	 * that answer stands */
	p.ttft_target_s = 2;
	assert_int_equal(pool_evaluate(&mp, &p, 0, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_true(t.headroom_excess);
	assert_true(t.ttft_sets);
	assert_near(b.total_slots, t.ttft_slots, 1e-9);
	assert_true(t.ttft_slots > 10 && t.ttft_slots < 10 + 1.5 *
		    sqrt(10.0));
	/* bursty arrivals (z 3): the square root of the excess, 10 + 1.5
	 * sqrt(2 x 10) = 16.71, above Erlang C's 3 c*(10 / 3) */
	s.peakedness = 3;
	assert_int_equal(erlang_staff_frac(10.0 / 3, 0.25, 1.7, 0.01, &cf),
			 MODEL_OK);
	assert_true(3.0 * cf < 10 + 1.5 * sqrt(20.0));
	assert_int_equal(pool_evaluate(&mp, &p, 0, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_false(t.ttft_sets);
	assert_near(b.total_slots, 10 + 1.5 * sqrt(20.0), 1e-9);
	assert_near(b.headroom_slots, 1.5 * sqrt(20.0), 1e-9);
	assert_near(t.ttft_slots, 3.0 * cf, 1e-9);
	/* the prompt tokens' peakedness: taken by the TTFT's Erlang C
	 * (Hayward at 8, 8 c*(10 / 8)) when above z, not by the square
	 * root; at or below z it changes nothing.  At a budget of 0.05 s,
	 * where Erlang C sets the answer at z 3 too (23.75). */
	p.ttft_target_s = 0.35;
	assert_int_equal(pool_evaluate(&mp, &p, 0, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_true(t.ttft_sets);
	assert_false(t.ttft_token_peak);
	assert_near(t.ttft_peakedness, 3, 1e-12);
	zs = t.ttft_slots;
	ps.token_peakedness = 8;
	assert_int_equal(erlang_staff_frac(10.0 / 8, 0.25, 0.05, 0.01, &cf),
			 MODEL_OK);
	assert_true(8.0 * cf > zs);
	assert_int_equal(pool_evaluate(&mp, &p, 0, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_true(t.ttft_sets);
	assert_true(t.ttft_token_peak);
	assert_near(t.ttft_peakedness, 8, 1e-12);
	assert_near(t.ttft_slots, 8.0 * cf, 1e-9);
	assert_near(b.total_slots, 8.0 * cf, 1e-9);
	assert_near(b.headroom_slots, 8.0 * cf - 10, 1e-9);
	ps.token_peakedness = 2;
	assert_int_equal(pool_evaluate(&mp, &p, 0, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_false(t.ttft_token_peak);
	assert_near(t.ttft_slots, zs, 1e-9);
	ps.token_peakedness = 0;
	p.ttft_target_s = 2;
	/* without a TTFT target the square root is the whole z's */
	p.ttft_target_s = 0;
	assert_int_equal(pool_evaluate(&mp, &p, 0, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_false(t.headroom_excess);
	assert_near(b.total_slots, 10 + 1.5 * sqrt(30.0), 1e-9);
	s.peakedness = 0;
	p.ttft_target_s = 2;
	/* staffing none: the TTFT target's headroom alone */
	mp.staffing = MODEL_STAFF_NONE;
	assert_int_equal(erlang_staff(10, 0.25, 1.7, 0.01, &c), MODEL_OK);
	assert_int_equal(pool_evaluate(&mp, &p, 0, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_true(t.ttft_sets);
	assert_int_equal(b.replicas, c);
	/* unreachable: W + transfer leave nothing; no Erlang search */
	p.ttft_target_s = 0.3;
	assert_int_equal(pool_evaluate(&mp, &p, 0, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_false(t.ttft_reachable);
	assert_false(t.ttft_sets);
	assert_false(t.headroom_excess);
	assert_near(t.ttft_slots, 0, 0);
	assert_int_equal(b.replicas, 10);
	/* ... and there the square root is the whole z's again */
	mp.staffing = MODEL_STAFF_SQRT;
	s.peakedness = 2;
	assert_int_equal(pool_evaluate(&mp, &p, 0, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_near(b.total_slots, 10 + 1.5 * sqrt(20.0), 1e-9);
}

static void decode_params(struct pool_params *p)
{
	pool_params_init(p);
	p->kind = POOL_DECODE;
	p->itl_target_s = 0.04;
	profile(&p->profile);
}

/*
 * docs/math.md's decode example: 5 req/s, 250 output and 1000 input
 * tokens a request.  b* = 38, ITL(38) = 0.0397313 s, W = 9.933 s,
 * L = 49.66 sequences; with slotsPerReplica 64 the ITL binds.
 */
static void test_decode_terms(void **state)
{
	struct model_params mp;
	struct pool_params p;
	struct pool_signals ps = { 5, 5000, 1250, -1, 0, 0, 0, 0 };
	struct model_signals s = { 0 };
	struct model_breakdown b;
	struct pool_terms t;
	double itl;

	(void)state;
	model_params_init(&mp);
	decode_params(&p);
	s.arrival_rate = 5;
	assert_int_equal(pool_evaluate(&mp, &p, 64, &ps, &s, &b, &t),
			 MODEL_OK);
	itl = (36.9180 + (51.9867 - 36.9180) * 6 / 32) / 1000;
	assert_int_equal(t.batch_itl, 38);
	assert_near(t.itl_s, itl, 1e-12);
	assert_near(t.service_s, 250 * itl, 1e-9);
	assert_near(b.busy_slots, 1250 * itl, 1e-9);
	assert_int_equal(t.slots, 38);
	assert_int_equal(t.bind, POOL_BIND_ITL);
	assert_near(b.headroom_slots, 1.5 * sqrt(1250 * itl), 1e-9);
	assert_int_equal(b.replicas, 2);
	/* the engine's own cap binds below b* */
	assert_int_equal(pool_evaluate(&mp, &p, 16, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_int_equal(t.slots, 16);
	assert_int_equal(t.bind, POOL_BIND_SLOTS);
	assert_int_equal(b.replicas, 4);     /* 60.24 / 16 */
}

/* The KV bound: floor(K / k), k from the rates or measured, the larger. */
static void test_decode_kv(void **state)
{
	struct model_params mp;
	struct pool_params p;
	struct pool_signals ps = { 5, 5000, 1250, -1, 0, 0, 0, 0 };
	struct model_signals s = { 0 };
	struct model_breakdown b;
	struct pool_terms t;
	double l;

	(void)state;
	model_params_init(&mp);
	decode_params(&p);
	s.arrival_rate = 5;
	/* 20000 tokens a replica: a sequence holds 1000 + 250 / 2 = 1125:
	 * 17 sequences, below b* = 38 */
	p.kv_tokens = 20000;
	assert_int_equal(pool_evaluate(&mp, &p, 64, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_near(t.kv_seq_rates, 1125, 1e-9);
	assert_int_equal(t.slots_kv, 17);
	assert_int_equal(t.slots, 17);
	assert_int_equal(t.bind, POOL_BIND_KV);
	assert_int_equal(b.replicas, 4);     /* 60.24 / 17 = 3.54 */
	/* measured: 100000 tokens in use over L = 49.66 is 2013 a
	 * sequence, above the rates' 1125: 9 sequences a replica */
	l = b.busy_slots;
	ps.kv_used = 100000;
	assert_int_equal(pool_evaluate(&mp, &p, 64, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_near(t.kv_seq_measured, 100000 / l, 1e-6);
	assert_near(t.kv_seq, 100000 / l, 1e-6);
	assert_int_equal(t.slots_kv, 9);
	/* a measured K wins */
	ps.kv_capacity = 400000;
	assert_int_equal(pool_evaluate(&mp, &p, 64, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_true(t.kv_measured);
	assert_int_equal(t.slots_kv, 198);
	assert_int_equal(t.bind, POOL_BIND_ITL);
	/* a sequence larger than a replica's KV: still one a replica */
	ps.kv_capacity = 1000;
	assert_int_equal(pool_evaluate(&mp, &p, 64, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_int_equal(t.slots, 1);
}

/* Without a profile: W is the one given (serviceTime chain), n the
 * engine's cap; nothing bounding the slots is an error. */
static void test_decode_no_profile(void **state)
{
	struct model_params mp;
	struct pool_params p;
	struct pool_signals ps = { 5, 0, 1250, -1, 0, 0, 0, 0 };
	struct model_signals s = { 0 };
	struct model_breakdown b;
	struct pool_terms t;
	double w;

	(void)state;
	model_params_init(&mp);
	pool_params_init(&p);
	p.kind = POOL_DECODE;
	s.arrival_rate = 5;
	s.service_time_s = 9;
	assert_int_equal(pool_service_time(&p, &ps, &w), MODEL_OK);
	assert_near(w, 0, 0);
	assert_int_equal(pool_evaluate(&mp, &p, 32, &ps, &s, &b, &t),
			 MODEL_OK);
	assert_false(t.service_from_tokens);
	assert_near(b.busy_slots, 45, 1e-12);
	assert_int_equal(t.slots, 32);
	assert_int_equal(pool_evaluate(&mp, &p, 0, &ps, &s, &b, &t),
			 MODEL_EINVAL);
}

static void test_invalid(void **state)
{
	struct model_params mp;
	struct pool_params p;
	struct pool_signals ps = { 1, 1, 1, -1, 0, 0, 0, 0 };
	struct model_signals s = { 0 };
	struct model_breakdown b;
	struct pool_terms t;
	double w;

	(void)state;
	model_params_init(&mp);
	pool_params_init(&p);
	assert_int_equal(pool_evaluate(&mp, &p, 1, &ps, &s, &b, &t),
			 MODEL_EINVAL);
	assert_int_equal(pool_service_time(&p, &ps, &w), MODEL_EINVAL);
	assert_int_equal(pool_evaluate(NULL, &p, 1, &ps, &s, &b, &t),
			 MODEL_EINVAL);
	assert_string_equal(pool_kind_name(POOL_DECODE), "decode");
	assert_string_equal(pool_bind_name(POOL_BIND_KV), "kv-cache");
	/* unknown rates (negative, NaN) say nothing */
	prefill_params(&p);
	ps.input_rate = NAN;
	assert_int_equal(pool_service_time(&p, &ps, &w), MODEL_OK);
	assert_near(w, 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_itl_at),
		cmocka_unit_test(test_batch_within),
		cmocka_unit_test(test_prefill_terms),
		cmocka_unit_test(test_ttft_floor),
		cmocka_unit_test(test_decode_terms),
		cmocka_unit_test(test_decode_kv),
		cmocka_unit_test(test_decode_no_profile),
		cmocka_unit_test(test_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
