/*
 * test_hpa.c - the HPA and KEDA models against hand-worked cases from
 * kubernetes' horizontal.go / replica_calculator.go and KEDA's scale
 * executor (hpa.h, keda.h; docs/deploy.md, "The 10 % tolerance").
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "sim/hpa.h"
#include "sim/keda.h"

static struct hpa *new_hpa(const struct hpa_config *c)
{
	struct hpa *h = malloc(sizeof(*h));

	assert_non_null(h);
	hpa_init(h, c);
	return h;
}

/* docs/deploy.md, "The 10 % tolerance": the deadband with tolerance 0.1, AverageValue
 * target 1 (staffer's metric): at 10 replicas 11 is impossible, 12
 * scales; 9 holds, 8 scales. */
static void test_deadband_table(void **state)
{
	static const struct { int c, up, down; } rows[] = {
		{ 1, 2, 0 }, { 5, 6, 4 }, { 9, 10, 8 }, { 10, 12, 8 },
		{ 15, 17, 13 }, { 20, 23, 17 }, { 24, 27, 21 },
	};
	struct hpa_config c;
	struct hpa *h;
	size_t i;

	hpa_config_init(&c);
	h = new_hpa(&c);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int cur = rows[i].c, n;

		/* Everything strictly inside (down, up) holds. */
		for (n = rows[i].down + 1; n < rows[i].up; n++)
			assert_int_equal(hpa_calc_external_avg(h, cur, n, 1),
					 cur);
		assert_int_equal(hpa_calc_external_avg(h, cur, rows[i].up, 1),
				 rows[i].up);
		if (rows[i].down > 0)
			assert_int_equal(hpa_calc_external_avg(h, cur,
				rows[i].down, 1), rows[i].down);
	}
	/* The headline case. */
	assert_int_equal(hpa_calc_external_avg(h, 10, 11, 1), 10);
	assert_int_equal(hpa_calc_external_avg(h, 10, 12, 1), 12);
	free(h);
}

/* Tolerance 0 in behavior (staffer's recommendation): 10 -> 11 works;
 * per-direction tolerances apply to their side only. */
static void test_tolerance_zero_and_split(void **state)
{
	struct hpa_config c;
	struct hpa *h;

	hpa_config_init(&c);
	c.behavior = 1;
	c.up.tolerance = 0;
	c.down.tolerance = 0.5;
	h = new_hpa(&c);
	assert_int_equal(hpa_calc_external_avg(h, 10, 11, 1), 11);
	assert_int_equal(hpa_calc_external_avg(h, 10, 6, 1), 10);
	assert_int_equal(hpa_calc_external_avg(h, 10, 5, 1), 10);
	assert_int_equal(hpa_calc_external_avg(h, 10, 4, 1), 4);
	free(h);
}

/* AverageValue math: ceil(usage / target), values in milli units. */
static void test_average_value(void **state)
{
	struct hpa_config c;
	struct hpa *h;

	hpa_config_init(&c);
	h = new_hpa(&c);
	/* 5 replicas, usage 1000, target 150: ratio 1.33 -> ceil 6.67 */
	assert_int_equal(hpa_calc_external_avg(h, 5, 1000, 150), 7);
	/* queue 0 -> 0 (the controller then clamps to minReplicas) */
	assert_int_equal(hpa_calc_external_avg(h, 5, 0, 5), 0);
	/* 0.0004 rounds to 0 milli, as "%.3f" does */
	assert_int_equal(hpa_calc_external_avg(h, 3, 0.0004, 1), 0);
	/* 12.0004 is 12000 milli: exactly 12 */
	assert_int_equal(hpa_calc_external_avg(h, 3, 12.0004, 1), 12);
	free(h);
}

/* Pods metric (calcPlainMetricReplicas) with pods still starting. */
static void test_pods_metric(void **state)
{
	struct hpa_config c;
	struct hpa *h;

	hpa_config_init(&c);
	h = new_hpa(&c);
	/* 4 ready pods at 0.9, target 0.6: ratio 1.5 -> ceil(6) = 6 */
	assert_int_equal(hpa_calc_pods(h, 4, 4, 0, 0.9, 0.6), 6);
	/* within tolerance: 0.63 / 0.6 = 1.05 -> current */
	assert_int_equal(hpa_calc_pods(h, 4, 4, 0, 0.63, 0.6), 4);
	/* 4 ready at 0.9 + 2 starting (missing -> 0 on a scale-up):
	 * new ratio = 3.6 / 6 / 0.6 = 1.0 -> within -> current (6) */
	assert_int_equal(hpa_calc_pods(h, 6, 4, 2, 0.9, 0.6), 6);
	/* 4 ready at 1.0 + 2 starting: 4 / 6 / 0.6 = 1.111 -> ceil(6.67) */
	assert_int_equal(hpa_calc_pods(h, 6, 4, 2, 1.0, 0.6), 7);
	/* scale-down with a missing pod counted at the target:
	 * 3 ready at 0.3, 1 missing: (0.9 + 0.6) / 4 / 0.6 = 0.625 ->
	 * ceil(2.5) = 3 */
	assert_int_equal(hpa_calc_pods(h, 4, 3, 1, 0.3, 0.6), 3);
	/* no ready pod: no metrics */
	assert_int_equal(hpa_calc_pods(h, 2, 0, 2, 0, 0.6), -1);
	free(h);
}

/* Default behavior (spec.behavior nil): scale-down takes the max of the
 * recommendations of the last 300 s; a sample exactly 300 s old still
 * counts (not Before the cutoff). */
static void test_default_stabilization(void **state)
{
	struct hpa_config c;
	struct hpa *h;
	int32_t r = 10;
	double t;

	hpa_config_init(&c);
	h = new_hpa(&c);
	r = hpa_reconcile(h, 0, r, 10);        /* initial rec 10, rec 10 */
	assert_int_equal(r, 10);
	for (t = 15; t <= 300; t += 15) {
		r = hpa_reconcile(h, t, r, 2);
		assert_int_equal(r, 10);
	}
	/* At 315 the recs of t = 0 are older than 300 s. */
	r = hpa_reconcile(h, 315, r, 2);
	assert_int_equal(r, 2);
	/* No rate limit on scale-down without behavior: straight to min. */
	hpa_init(h, &c);
	r = hpa_reconcile(h, 0, 50, 1);
	assert_int_equal(r, 50);
	r = hpa_reconcile(h, 301, r, 1);
	assert_int_equal(r, 1);
	free(h);
}

/* Default scale-up limit: max(2 x current, 4) per sync, then max. */
static void test_default_scale_up_limit(void **state)
{
	struct hpa_config c;
	struct hpa *h;

	hpa_config_init(&c);
	h = new_hpa(&c);
	assert_int_equal(hpa_reconcile(h, 0, 1, 10), 4);
	assert_int_equal(hpa_reconcile(h, 15, 3, 10), 6);
	assert_int_equal(hpa_reconcile(h, 30, 10, 100), 20);
	assert_int_equal(hpa_reconcile(h, 45, 60, 1000), 100); /* max */
	/* outside [min, max]: snap back regardless of the metric */
	assert_int_equal(hpa_reconcile(h, 60, 150, 150), 100);
	assert_int_equal(hpa_reconcile(h, 75, 0, 5), 0); /* disabled */
	/* metrics failed: no change */
	assert_int_equal(hpa_reconcile(h, 90, 7, -1), 7);
	free(h);
}

/* Behavior set, only tolerance: API defaults fill the rest (up: Pods 4
 * and Percent 100 per 15 s, Max; down: 300 s window, Percent 100). */
static void test_behavior_defaults(void **state)
{
	struct hpa_config c;
	struct hpa *h;

	hpa_config_init(&c);
	c.behavior = 1;
	c.up.tolerance = 0;
	h = new_hpa(&c);
	assert_int_equal(h->cfg.up.window_s, 0);
	assert_int_equal(h->cfg.down.window_s, 300);
	assert_int_equal((int)h->cfg.up.npol, 2);
	assert_int_equal((int)h->cfg.down.npol, 1);
	/* 3 -> 100: max(3 + 4, 3 x 2) = 7 */
	assert_int_equal(hpa_reconcile(h, 0, 3, 100), 7);
	/* 15 s later the first event is exactly 15 s old: not After the
	 * cutoff, so the period starts afresh: max(7 + 4, 14) = 14 */
	assert_int_equal(hpa_reconcile(h, 15, 7, 100), 14);
	free(h);
}

/* Pods/Percent policies with periods, selectPolicy Max/Min/Disabled. */
static void test_policies(void **state)
{
	struct hpa_config c;
	struct hpa *h;
	char err[256];
	int32_t r;

	hpa_config_init(&c);
	c.behavior = 1;
	assert_int_equal(hpa_policies_parse("Pods/4/60", &c.up, err,
					    sizeof(err)), 0);
	h = new_hpa(&c);
	r = hpa_reconcile(h, 0, 10, 30);
	assert_int_equal(r, 14);
	r = hpa_reconcile(h, 15, r, 30);      /* 4 added in the last 60 s */
	assert_int_equal(r, 14);
	r = hpa_reconcile(h, 59, r, 30);
	assert_int_equal(r, 14);
	r = hpa_reconcile(h, 61, r, 30);      /* the event left the period */
	assert_int_equal(r, 18);
	free(h);

	/* Max of Pods 4 and Percent 100 per 60 s: 10 -> 20. */
	hpa_config_init(&c);
	c.behavior = 1;
	assert_int_equal(hpa_policies_parse("Pods/4/60+Percent/100/60",
					    &c.up, err, sizeof(err)), 0);
	h = new_hpa(&c);
	assert_int_equal(hpa_reconcile(h, 0, 10, 30), 20);
	free(h);
	/* Min of the two: 14. */
	c.up.select = HPA_SELECT_MIN;
	h = new_hpa(&c);
	assert_int_equal(hpa_reconcile(h, 0, 10, 30), 14);
	free(h);
	/* Disabled: no scale-up at all. */
	c.up.select = HPA_SELECT_DISABLED;
	h = new_hpa(&c);
	assert_int_equal(hpa_reconcile(h, 0, 10, 30), 10);
	free(h);

	/* Scale-down Percent 10 / 60 s, window 0: 20 -> int(18.0) = 18,
	 * held for the period, then int(18 x 0.9) = int(16.2) = 16. */
	hpa_config_init(&c);
	c.behavior = 1;
	c.down.window_s = 0;
	assert_int_equal(hpa_policies_parse("Percent/10/60", &c.down, err,
					    sizeof(err)), 0);
	h = new_hpa(&c);
	r = hpa_reconcile(h, 0, 20, 1);
	assert_int_equal(r, 18);
	r = hpa_reconcile(h, 15, r, 1);
	assert_int_equal(r, 18);
	r = hpa_reconcile(h, 61, r, 1);
	assert_int_equal(r, 16);
	/* Pods 1 / 15 s down: one at a time, but never below min. */
	free(h);

	/* Bad policy strings are refused with a sentence. */
	assert_int_equal(hpa_policies_parse("Pods/0/15", &c.up, err,
					    sizeof(err)), -1);
	assert_non_null(strstr(err, "Pods/VALUE/PERIOD"));
	assert_int_equal(hpa_policies_parse("Nodes/1/15", &c.up, err,
					    sizeof(err)), -1);
	assert_int_equal(hpa_policies_parse("Pods/1/1801", &c.up, err,
					    sizeof(err)), -1);
}

/* Stabilization with behavior: up takes the min over its window, down
 * the max over its window, the current count stays in between. */
static void test_behavior_stabilization(void **state)
{
	struct hpa_config c;
	struct hpa *h;
	int32_t r;

	hpa_config_init(&c);
	c.behavior = 1;
	c.up.window_s = 60;
	c.down.window_s = 60;
	h = new_hpa(&c);
	r = hpa_reconcile(h, 0, 5, 5);          /* recs: 5 (initial), 5 */
	assert_int_equal(r, 5);
	r = hpa_reconcile(h, 15, r, 9);         /* min(5, 9) = 5: held */
	assert_int_equal(r, 5);
	r = hpa_reconcile(h, 61, r, 9);         /* t=0 recs aged out */
	assert_int_equal(r, 9);
	r = hpa_reconcile(h, 76, r, 2);         /* max over (16, 76] = 9 */
	assert_int_equal(r, 9);
	r = hpa_reconcile(h, 137, r, 2);        /* only 2s left */
	assert_int_equal(r, 2);
	free(h);
}

static void test_config_check(void **state)
{
	struct hpa_config c;
	char err[256];

	hpa_config_init(&c);
	assert_int_equal(hpa_config_check(&c, err, sizeof(err)), 0);
	c.min_replicas = 5;
	c.max_replicas = 4;
	assert_int_equal(hpa_config_check(&c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "minReplicas"));
	hpa_config_init(&c);
	c.down.window_s = 4000;
	assert_int_equal(hpa_config_check(&c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "stabilizationWindowSeconds"));
}

/* KEDA: 0 -> 1 on activity, back to 0 after cooldownPeriod. */
static void test_keda_activation(void **state)
{
	struct keda_config c;
	struct keda k;

	keda_config_init(&c);
	c.min_replica_count = 0;
	c.cooldown_s = 300;
	keda_init(&k, &c);
	/* Never active: to zero at once (initialCooldownPeriod 0). */
	assert_int_equal(keda_poll(&k, 0, 0, 3), 0);
	assert_int_equal(keda_poll(&k, 30, 0, 0), -1);
	assert_int_equal(keda_poll(&k, 60, 1, 0), 1);
	assert_int_equal(keda_poll(&k, 90, 1, 4), -1);  /* the HPA's job */
	assert_int_equal(keda_poll(&k, 120, 0, 4), -1); /* cooling down */
	assert_int_equal(keda_poll(&k, 390, 0, 4), -1); /* 300 s: not yet */
	assert_int_equal(keda_poll(&k, 391, 0, 4), 0);
	/* minReplicaCount 2: active from 0 goes to 2; never to zero. */
	c.min_replica_count = 2;
	keda_init(&k, &c);
	assert_int_equal(keda_poll(&k, 0, 1, 0), 2);
	assert_int_equal(keda_poll(&k, 1000, 0, 2), -1);
	assert_int_equal(keda_poll(&k, 1030, 0, 1), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deadband_table),
		cmocka_unit_test(test_tolerance_zero_and_split),
		cmocka_unit_test(test_average_value),
		cmocka_unit_test(test_pods_metric),
		cmocka_unit_test(test_default_stabilization),
		cmocka_unit_test(test_default_scale_up_limit),
		cmocka_unit_test(test_behavior_defaults),
		cmocka_unit_test(test_policies),
		cmocka_unit_test(test_behavior_stabilization),
		cmocka_unit_test(test_config_check),
		cmocka_unit_test(test_keda_activation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
