/*
 * test_meta.c - metadata parsing: every kind of error, its text, the
 * defaults and the cross-key rules.
 *
 * Messages are users' only guide to a broken ScaledObject, so several
 * tests compare whole sentences, not just codes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "meta.h"
#include "num.h"
#include "tz.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Set one key on a fresh struct meta and return the code; err is filled. */
static enum meta_err set_one(const char *key, const char *value,
			     struct meta_error *err)
{
	struct meta m;
	enum meta_err rc;

	meta_init(&m);
	rc = meta_set(&m, key, value, err);
	meta_release(&m);
	return rc;
}

static void assert_contains(const char *haystack, const char *needle)
{
	if (!strstr(haystack, needle))
		fail_msg("'%s' does not contain '%s'", haystack, needle);
}

/* Expect meta_set(key, value) to fail with META_EVALUE and a message that
 * names the key and the value and says why. */
static void expect_bad(const char *key, const char *value, const char *why)
{
	struct meta_error err;
	char quoted[128];

	assert_int_equal(set_one(key, value, &err), META_EVALUE);
	assert_string_equal(err.key, key);
	snprintf(quoted, sizeof(quoted), "metadata '%s': '%s' %s; allowed: ",
		 key, value, why);
	assert_contains(err.msg, quoted);
}

static void expect_ok(const char *key, const char *value)
{
	struct meta_error err;

	if (set_one(key, value, &err) != META_OK)
		fail_msg("%s=%s: %s", key, value, err.msg);
}

/* A parsed and checked set of pairs, for the cross-key tests. */
static enum meta_err parse_pairs(struct meta *m, const char *const *kv,
				 size_t n, struct meta_error *err)
{
	const char *keys[32], *values[32];
	size_t i;

	assert_true(n % 2 == 0 && n / 2 <= COUNT(keys));
	for (i = 0; i < n / 2; i++) {
		keys[i] = kv[2 * i];
		values[i] = kv[2 * i + 1];
	}
	meta_init(m);
	return meta_parse(m, keys, values, n / 2, err);
}

#define ARRIVAL "arrivalRateQuery", "sum(rate(req_total[1m]))"
#define SERVICE "serviceTime", "10"

/* ---- unknown keys ------------------------------------------------------ */

static void test_unknown_key_suggests(void **state)
{
	struct meta_error err;

	(void)state;
	assert_int_equal(set_one("betta", "1", &err), META_EUNKNOWN);
	assert_string_equal(err.key, "betta");
	assert_string_equal(err.msg, "metadata 'betta' is not a known key; "
			    "did you mean 'beta'?");

	/* transposition, case, a dropped letter */
	assert_string_equal(meta_nearest_key("staffnig"), "staffing");
	assert_string_equal(meta_nearest_key("BETA"), "beta");
	assert_string_equal(meta_nearest_key("arrivalratequery"),
			    "arrivalRateQuery");
	assert_string_equal(meta_nearest_key("maxReplica"), "maxReplicas");
	assert_string_equal(meta_nearest_key("metricname"), "metricName");

	assert_int_equal(set_one("BETA", "1", &err), META_EUNKNOWN);
	assert_contains(err.msg, "did you mean 'beta'?");
}

static void test_unknown_key_no_suggestion(void **state)
{
	struct meta_error err;
	char big[300];

	(void)state;
	assert_null(meta_nearest_key("xyzzy"));
	assert_null(meta_nearest_key(""));
	assert_null(meta_nearest_key(NULL));
	assert_null(meta_nearest_key("max"));
	assert_int_equal(set_one("xyzzy", "1", &err), META_EUNKNOWN);
	assert_string_equal(err.msg, "metadata 'xyzzy' is not a known key; "
			    "the keys are listed in docs/metadata.md");

	/* A huge key is cut in the message and the key field. */
	memset(big, 'k', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_null(meta_nearest_key(big));
	assert_int_equal(set_one(big, "1", &err), META_EUNKNOWN);
	assert_contains(err.msg, "kkk...' is not a known key");
	assert_true(strlen(err.key) < sizeof(err.key));
	assert_true(strlen(err.msg) < 200);

	/* A NULL key is an unknown key, not a crash. */
	assert_int_equal(set_one(NULL, "1", &err), META_EUNKNOWN);
}

/* ---- numbers ----------------------------------------------------------- */

static void test_not_a_number(void **state)
{
	struct meta_error err;

	(void)state;
	assert_int_equal(set_one("beta", "abc", &err), META_EVALUE);
	assert_string_equal(err.msg, "metadata 'beta': 'abc' is not a number; "
			    "allowed: a number from 0 to 10 (default 1.5)");
	expect_bad("beta", "-", "is not a number");
	expect_bad("beta", ".", "is not a number");
	expect_bad("beta", "e5", "is not a number");
	expect_bad("beta", "1,5", "is not a number");
	expect_bad("beta", "1_0", "is not a number");
}

static void test_trailing_junk(void **state)
{
	(void)state;
	expect_bad("beta", "1.5x", "is not a number");
	expect_bad("beta", "1.5.2", "is not a number");
	expect_bad("beta", "1e", "is not a number");
	expect_bad("beta", "1e+", "is not a number");
	expect_bad("drainSeconds", "300s", "is not a number");
	expect_bad("beta", "1.5 ", "has spaces around it");
	expect_bad("beta", " 1.5", "has spaces around it");
	expect_bad("beta", "1.5\\n", "is not a number");
}

static void test_hex(void **state)
{
	(void)state;
	expect_bad("beta", "0x1", "is not a decimal number");
	expect_bad("beta", "-0X1p3", "is not a decimal number");
	expect_bad("slotsPerReplica", "0x10", "is not a decimal number");
}

static void test_nan_inf(void **state)
{
	(void)state;
	expect_bad("beta", "nan", "is not a finite number");
	expect_bad("beta", "NaN", "is not a finite number");
	expect_bad("beta", "inf", "is not a finite number");
	expect_bad("beta", "-Infinity", "is not a finite number");
	expect_bad("slotsPerReplica", "inf", "is not a finite number");
	expect_bad("beta", "nan(1)", "is not a number");
}

static void test_overflow(void **state)
{
	struct meta_error err;
	char digits[80];

	(void)state;
	expect_bad("beta", "1e400", "is out of range");
	expect_bad("beta", "-1e400", "is out of range");
	expect_bad("slotsPerReplica", "99999999999999999999",
		   "is out of range");
	expect_bad("maxReplicas", "2147483648", "is out of range");
	expect_ok("maxReplicas", "2147483647");
	/* underflow reads as the tiny number it is */
	expect_ok("beta", "1e-400");

	memset(digits, '1', sizeof(digits) - 1);
	digits[sizeof(digits) - 1] = '\0';
	assert_int_equal(set_one("beta", digits, &err), META_EVALUE);
	assert_contains(err.msg, "111...' is too long for a number");
}

static void test_out_of_range(void **state)
{
	struct meta_error err;

	(void)state;
	assert_int_equal(set_one("beta", "-1", &err), META_EVALUE);
	assert_string_equal(err.msg, "metadata 'beta': '-1' is out of range; "
			    "allowed: a number from 0 to 10 (default 1.5)");
	expect_bad("beta", "10.000001", "is out of range");
	expect_ok("beta", "0");
	expect_ok("beta", "10");
	expect_bad("drainSeconds", "0.5", "is out of range");
	expect_bad("drainSeconds", "86401", "is out of range");
	expect_bad("slotsPerReplica", "0", "is out of range");
	expect_bad("slotsPerReplica", "100001", "is out of range");
	expect_bad("forecastWindowSeconds", "59", "is out of range");
	expect_bad("pushIntervalSeconds", "0", "is out of range");
	expect_bad("costPerReplicaHour", "1000001", "is out of range");
	expect_bad("slaPenaltyPerHour", "-0.01", "is out of range");
	expect_bad("maxReplicas", "0", "is out of range");
	expect_bad("maxReplicas", "-5", "is out of range");

	assert_int_equal(set_one("drainSeconds", "0", &err), META_EVALUE);
	assert_string_equal(err.msg, "metadata 'drainSeconds': '0' is out of "
			    "range; allowed: a number from 1 to 86400 seconds "
			    "(default 15)");
}

static void test_exclusive_bounds(void **state)
{
	struct meta_error err;

	(void)state;
	assert_int_equal(set_one("waitProbability", "0", &err), META_EVALUE);
	assert_string_equal(err.msg, "metadata 'waitProbability': '0' is out "
			    "of range; allowed: a number strictly between 0 "
			    "and 1 (required for staffing erlangc)");
	expect_bad("waitProbability", "1", "is out of range");
	expect_bad("waitProbability", "-0", "is out of range");
	expect_ok("waitProbability", "0.999");
	expect_ok("waitProbability", "1e-9");

	expect_bad("forecastAlpha", "0", "is out of range");
	expect_ok("forecastAlpha", "1");
	expect_bad("targetWaitSeconds", "0", "is out of range");
	expect_ok("targetWaitSeconds", "3600");
	expect_bad("serviceTime", "0", "is out of range");
	assert_int_equal(set_one("costPerReplicaHour", "0", &err),
			 META_EVALUE);
	assert_contains(err.msg, "allowed: a number greater than 0 and at "
			"most 1000000 per replica-hour");
}

static void test_fraction_for_integer(void **state)
{
	struct meta_error err;

	(void)state;
	assert_int_equal(set_one("slotsPerReplica", "3.0", &err), META_EVALUE);
	assert_string_equal(err.msg, "metadata 'slotsPerReplica': '3.0' is "
			    "not a whole number; allowed: a whole number "
			    "from 1 to 100000 (default 1)");
	expect_bad("slotsPerReplica", "2.5", "is not a whole number");
	expect_bad("scaleDownStep", "1e2", "is not a whole number");
	expect_bad("maxReplicas", "10.", "is not a whole number");
	expect_ok("slotsPerReplica", "3");
	expect_ok("slotsPerReplica", "+3");
	expect_ok("scaleDownStep", "007");
}

static void test_parse_number_functions(void **state)
{
	static const char *const good[] = {
		"0", "-0", "1", "+1", "1.5", ".5", "5.", "1e3", "1E-3",
		"-2.5e+2",
	};
	static const char *const bad[] = {
		"", " ", " 1", "1 ", "0x1", "nan", "inf", "1e400", "1e",
		"abc", "1.2.3", "--1", "+-1", "1e5x",
	};
	double d = 42;
	long l = 42;
	size_t i;

	(void)state;
	for (i = 0; i < COUNT(good); i++)
		if (num_parse_double(good[i], &d) != 0)
			fail_msg("'%s' should parse", good[i]);
	assert_int_equal(num_parse_double("-2.5e+2", &d), 0);
	assert_true(d == -250.0);
	for (i = 0; i < COUNT(bad); i++) {
		d = 42;
		if (num_parse_double(bad[i], &d) == 0)
			fail_msg("'%s' should not parse", bad[i]);
		assert_true(d == 42); /* untouched */
	}
	assert_int_equal(num_parse_double(NULL, &d), -1);

	assert_int_equal(num_parse_long("-17", &l), 0);
	assert_int_equal(l, -17);
	l = 42;
	assert_int_equal(num_parse_long("3.0", &l), -1);
	assert_int_equal(num_parse_long("1e3", &l), -1);
	assert_int_equal(num_parse_long("99999999999999999999", &l), -1);
	assert_int_equal(num_parse_long(" 3", &l), -1);
	assert_int_equal(num_parse_long("", &l), -1);
	assert_int_equal(num_parse_long(NULL, &l), -1);
	assert_int_equal(l, 42);
}

static void test_empty_value(void **state)
{
	struct meta_error err;

	(void)state;
	assert_int_equal(set_one("beta", "", &err), META_EVALUE);
	assert_string_equal(err.msg, "metadata 'beta' is empty; allowed: a "
			    "number from 0 to 10 (default 1.5)");
	assert_int_equal(set_one("beta", NULL, &err), META_EVALUE);
	assert_int_equal(set_one("workload", "", &err), META_EVALUE);
	assert_int_equal(set_one("metricName", "", &err), META_EVALUE);
	assert_int_equal(set_one("arrivalRateQuery", "", &err), META_EVALUE);
	assert_contains(err.msg, "metadata 'arrivalRateQuery' is empty");
}

/* ---- enums and strings ------------------------------------------------- */

static void test_bad_enum(void **state)
{
	struct meta_error err;

	(void)state;
	assert_int_equal(set_one("staffing", "erlang", &err), META_EVALUE);
	assert_string_equal(err.msg, "metadata 'staffing': 'erlang' is not "
			    "allowed; allowed: sqrt, erlangc, cost, none "
			    "(default: from workload)");
	assert_int_equal(set_one("workload", "Interactive", &err),
			 META_EVALUE);
	assert_string_equal(err.msg, "metadata 'workload': 'Interactive' is "
			    "not allowed; allowed: interactive, batch "
			    "(default interactive)");
	expect_bad("staffing", "SQRT", "is not allowed");
	expect_bad("staffing", "sqrt ", "is not allowed");
}

static void test_bad_metric_name(void **state)
{
	struct meta_error err;
	char name[META_NAME_MAX + 1];

	(void)state;
	assert_int_equal(set_one("metricName", "Staffer", &err), META_EVALUE);
	assert_string_equal(err.msg, "metadata 'metricName': 'Staffer' "
			    "contains a character that is not allowed; "
			    "allowed: 1 to 63 characters of a-z, 0-9 and '-', "
			    "starting and ending with a letter or digit "
			    "(default staffer)");
	expect_bad("metricName", "chat_replicas",
		   "contains a character that is not allowed");
	expect_bad("metricName", "-chat",
		   "does not start and end with a letter or digit");
	expect_bad("metricName", "chat-",
		   "does not start and end with a letter or digit");
	expect_ok("metricName", "a");
	expect_ok("metricName", "0");
	expect_ok("metricName", "chat-7b-replicas");

	memset(name, 'a', META_NAME_MAX - 1);
	name[META_NAME_MAX - 1] = '\0';
	expect_ok("metricName", name);
	name[META_NAME_MAX - 1] = 'a';
	name[META_NAME_MAX] = '\0';
	assert_int_equal(set_one("metricName", name, &err), META_EVALUE);
	assert_contains(err.msg, "is too long (more than 63 bytes)");
}

static void test_backend_and_timezone(void **state)
{
	(void)state;
	expect_ok("backend", "amp-us-east-1");
	expect_ok("backend", "Thanos_2.prod");
	expect_bad("backend", "http://prom:9090",
		   "contains a character that is not allowed");
	expect_bad("backend", "a b", "contains a character that is not "
		   "allowed");

	expect_ok("timezone", "UTC");
	expect_ok("timezone", "America/Argentina/Buenos_Aires");
	expect_ok("timezone", "Etc/GMT+5");
	expect_bad("timezone", "/etc/passwd", "does not start with a letter");
	expect_bad("timezone", "Europe/../x",
		   "contains a character that is not allowed");
	expect_bad("timezone", "Europe/Paris ",
		   "contains a character that is not allowed");
	expect_bad("timezone", "Europe/",
		   "has an empty part (a '/' at the end, or '//')");
	expect_bad("timezone", "Europe//Paris",
		   "has an empty part (a '/' at the end, or '//')");
}

static void test_empty_query(void **state)
{
	struct meta_error err;

	(void)state;
	assert_int_equal(set_one("arrivalRateQuery", "", &err), META_EVALUE);
	assert_int_equal(set_one("arrivalRateQuery", " \t", &err),
			 META_EVALUE);
	assert_contains(err.msg, "' \\t' is blank; allowed: a PromQL");
	assert_int_equal(set_one("queueDepthQuery", "sum(q)\r", &err),
			 META_EVALUE);
	assert_contains(err.msg, "'sum(q)\\r' contains a control character");
	assert_int_equal(set_one("queueDepthQuery", "sum(\x1b[31mq)", &err),
			 META_EVALUE);
	assert_contains(err.msg, "'sum(\\x1b[31mq)' contains a control");
	/* YAML block scalars bring tabs and newlines: fine. */
	expect_ok("arrivalRateQuery", "sum(\n\trate(req_total[1m])\n)\n");
	/* UTF-8 in label values is fine. */
	expect_ok("arrivalRateQuery", "sum(rate(req_total{m=\"caf\xc3\xa9\"}"
		  "[1m]))");
	/* a stray byte is not (it reached explain --json as is) */
	assert_int_equal(set_one("arrivalRateQuery", "sum(rate(r\xff_total"
				 "[1m]))", &err), META_EVALUE);
	assert_contains(err.msg, "is not valid UTF-8");
	assert_int_equal(set_one("arrivalRateQuery", "caf\xc3", &err),
			 META_EVALUE);
}

static void test_too_long_query(void **state)
{
	struct meta_error err;
	struct meta m;
	char *q = malloc(META_QUERY_MAX + 1);

	(void)state;
	assert_non_null(q);
	memset(q, 'x', META_QUERY_MAX + 1);
	q[META_QUERY_MAX - 1] = '\0'; /* exactly the limit: 4095 bytes */
	meta_init(&m);
	assert_int_equal(meta_set(&m, "arrivalRateQuery", q, &err), META_OK);
	assert_int_equal(strlen(m.arrival_rate_query), META_QUERY_MAX - 1);

	q[META_QUERY_MAX - 1] = 'x'; /* one over */
	q[META_QUERY_MAX] = '\0';
	assert_int_equal(meta_set(&m, "arrivalRateQuery", q, &err),
			 META_EVALUE);
	assert_string_equal(err.key, "arrivalRateQuery");
	assert_contains(err.msg, "metadata 'arrivalRateQuery': 'xxxx");
	assert_contains(err.msg, "xxx...' is too long (more than 4095 bytes)"
			"; allowed: a PromQL expression");
	assert_true(strlen(err.msg) < 300);
	/* the failed set left the previous value */
	assert_int_equal(strlen(m.arrival_rate_query), META_QUERY_MAX - 1);
	meta_release(&m);
	free(q);
}

/* ---- schedule and timezone ---------------------------------------------- */

/* Parse ARRIVAL, SERVICE, the extra pairs and schedule=text; expect code
 * and, if want is not NULL, exactly that message about `key`. */
static void expect_schedule(const char *text, const char *const *extra,
			    size_t n_extra, enum meta_err code,
			    const char *key, const char *want)
{
	const char *kv[24] = { ARRIVAL, SERVICE, "schedule", text };
	struct meta_error err;
	struct meta m;
	enum meta_err rc;
	size_t i, n = 6;

	assert_true(n + n_extra <= COUNT(kv));
	for (i = 0; i < n_extra; i++)
		kv[n++] = extra[i];
	rc = parse_pairs(&m, kv, n, &err);
	if (rc != code)
		fail_msg("'%s': code %d, want %d: %s", text, rc, code,
			 err.msg);
	if (code != META_OK) {
		assert_string_equal(err.key, key);
		assert_int_equal(m.sched.n, 0);
		if (want)
			assert_string_equal(err.msg, want);
	}
	meta_release(&m);
}

#define WINDOW_KEYS "slotsPerReplica, staffing, beta, targetWaitSeconds, " \
	"waitProbability, drainSeconds, shedThreshold, boostFactor, " \
	"scaleDownStep, scaleDownPeriodSeconds, scaleDownHoldSeconds, " \
	"scaleDownHoldOn, peakedness, peakednessMax, surgeQuantile, " \
	"surgeWindowSeconds, forecastMethod, forecastWindowSeconds, " \
	"forecastAlpha, forecastBeta, forecastDamping, costPerReplicaHour, " \
	"slaPenaltyPerHour, maxReplicas, activationArrivalRate"

static void test_schedule_accepted(void **state)
{
	struct meta_error err;
	struct meta m;
	static const char *const kv[] = {
		ARRIVAL, SERVICE,
		"schedule", "Mon-Fri 08:00-19:00 beta=2.0; 22:00-07:00 "
			    "beta=1.0 scaleDownPeriodSeconds=300",
		"timezone", "Europe/Paris",
	};

	(void)state;
	if (parse_pairs(&m, kv, COUNT(kv), &err) != META_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(m.sched.n, 2);
	assert_non_null(m.tz);
	assert_string_equal(m.timezone, "Europe/Paris");
	assert_string_equal(sched_window_text(&m.sched, 1),
			    "22:00-07:00 beta=1.0 scaleDownPeriodSeconds=300");
	/* the base is the base */
	assert_true(m.model.beta == 1.5);
	meta_release(&m);
	assert_int_equal(m.sched.n, 0);
	assert_null(m.tz);

	/* timezone alone is harmless, but must exist */
	{
		static const char *const tz[] = {
			ARRIVAL, SERVICE, "timezone", "Europe/Paris",
		};
		assert_int_equal(parse_pairs(&m, tz, COUNT(tz), &err),
				 META_OK);
		assert_string_equal(m.timezone, "Europe/Paris");
		assert_int_equal(m.sched.n, 0);
		meta_release(&m);
	}
	/* no timezone: UTC */
	expect_schedule("00:00-24:00 maxReplicas=4", NULL, 0, META_OK, NULL,
			NULL);
}

static void test_schedule_grammar_errors(void **state)
{
	(void)state;
	expect_schedule("Mon-Fri 8:00-19:00 beta=2", NULL, 0, META_EVALUE,
			"schedule",
			"metadata 'schedule': window 'Mon-Fri 8:00-19:00 "
			"beta=2': '8:00-19:00' is not a time range; allowed: "
			"HH:MM-HH:MM on a 24-hour clock, e.g. 08:00-19:00, "
			"22:00-07:00 across midnight, 00:00-24:00 for the "
			"whole day");
	expect_schedule("Mon-Fri 08:00-19:00 beta=2; 18:00-07:00 beta=1",
			NULL, 0, META_EVALUE, "schedule",
			"metadata 'schedule': windows 'Mon-Fri 08:00-19:00 "
			"beta=2' and '18:00-07:00 beta=1' overlap on Mon "
			"18:00; a minute of the week can belong to one window "
			"only");
	expect_schedule("Wochentags 08:00-19:00 beta=2", NULL, 0,
			META_EVALUE, "schedule", NULL);
	expect_schedule(";", NULL, 0, META_EVALUE, "schedule",
			"metadata 'schedule': ';' has no window; a window is "
			"[days] HH:MM-HH:MM key=value ..., e.g. 'Mon-Fri "
			"08:00-19:00 beta=2'; windows are separated by ';'");
}

static void test_schedule_key_errors(void **state)
{
	static const char *const not_in_window[] = {
		"arrivalRateQuery=x", "backend=b", "metricName=m",
		"workload=batch", "serviceTime=3", "coldStartSeconds=60",
		"staleHoldSeconds=1", "pushIntervalSeconds=2", "timezone=UTC",
		"schedule=x", "scalerAddress=x",
	};
	char text[128], want[META_ERR_MAX];
	size_t i;

	(void)state;
	expect_schedule("Mon-Fri 08:00-19:00 betta=2", NULL, 0, META_EVALUE,
			"schedule",
			"metadata 'schedule': window 'Mon-Fri 08:00-19:00 "
			"betta=2': 'betta' is not a known key; did you mean "
			"'beta'?");
	expect_schedule("08:00-09:00 xyzzy=1", NULL, 0, META_EVALUE,
			"schedule",
			"metadata 'schedule': window '08:00-09:00 xyzzy=1': "
			"'xyzzy' is not a known key; a window can set "
			WINDOW_KEYS);
	for (i = 0; i < COUNT(not_in_window); i++) {
		snprintf(text, sizeof(text), "08:00-09:00 %s",
			 not_in_window[i]);
		snprintf(want, sizeof(want), "metadata 'schedule': window "
			 "'%s': '%.*s' cannot be set in a window; a window "
			 "can set " WINDOW_KEYS, text,
			 (int)strcspn(not_in_window[i], "="),
			 not_in_window[i]);
		expect_schedule(text, NULL, 0, META_EVALUE, "schedule", want);
	}

	/* the longest such message is not cut */
	{
		const char *kv[] = { ARRIVAL, SERVICE, "schedule", NULL };
		struct meta_error err;
		struct meta m;
		size_t len;

		snprintf(text, sizeof(text), "08:00-09:00 %.63s=1",
			 "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"
			 "qqqqqqqqqqqqqqqqqqqqqqqqq");
		kv[5] = text;
		assert_int_equal(parse_pairs(&m, kv, COUNT(kv), &err),
				 META_EVALUE);
		len = strlen(err.msg);
		assert_true(len < sizeof(err.msg) - 1);
		assert_string_equal(err.msg + len - 21,
				    "activationArrivalRate");
		meta_release(&m);
	}

	/* values: the key's own checks and words */
	expect_schedule("08:00-09:00 beta=abc", NULL, 0, META_EVALUE,
			"schedule",
			"metadata 'schedule': window '08:00-09:00 beta=abc': "
			"'beta': 'abc' is not a number; allowed: a number "
			"from 0 to 10 (default 1.5)");
	expect_schedule("08:00-09:00 beta=11", NULL, 0, META_EVALUE,
			"schedule",
			"metadata 'schedule': window '08:00-09:00 beta=11': "
			"'beta': '11' is out of range; allowed: a number from "
			"0 to 10 (default 1.5)");
	expect_schedule("08:00-09:00 scaleDownStep=1.5", NULL, 0,
			META_EVALUE, "schedule",
			"metadata 'schedule': window '08:00-09:00 "
			"scaleDownStep=1.5': 'scaleDownStep': '1.5' is not a "
			"whole number; allowed: a whole number from 1 to "
			"100000 replicas (default 1)");
	expect_schedule("08:00-09:00 maxReplicas=0x10", NULL, 0,
			META_EVALUE, "schedule", NULL);
	expect_schedule("08:00-09:00 staffing=erlang", NULL, 0, META_EVALUE,
			"schedule",
			"metadata 'schedule': window '08:00-09:00 "
			"staffing=erlang': 'staffing': 'erlang' is not "
			"allowed; allowed: sqrt, erlangc, cost, none "
			"(default: from workload)");
	expect_schedule("08:00-09:00 beta=1 beta=2", NULL, 0, META_EVALUE,
			"schedule",
			"metadata 'schedule': window '08:00-09:00 beta=1 "
			"beta=2': 'beta' is set twice");
}

/* Each window, applied to the base, must pass the cross-key rules. */
static void test_schedule_window_rules(void **state)
{
	static const char *const erlangc[] = {
		"staffing", "erlangc", "targetWaitSeconds", "2",
		"waitProbability", "0.05",
	};
	static const char *const tau_eps[] = {
		"targetWaitSeconds", "2", "waitProbability", "0.05",
	};
	static const char *const beta[] = { "beta", "2" };
	static const char *const cold[] = { "coldStartSeconds", "60" };
	static const char *const nocold[] = { "coldStartSeconds", "0" };
	static const char *const fnone[] = { "forecastMethod", "none" };
	static const char *const queue[] = { "queueDepthQuery", "sum(q)" };

	(void)state;
	expect_schedule("08:00-09:00 staffing=erlangc", NULL, 0,
			META_EMISSING, "schedule",
			"metadata 'schedule': window '08:00-09:00 "
			"staffing=erlangc': 'targetWaitSeconds' is required "
			"with staffing 'erlangc': the wait before start, in "
			"seconds, that only a few requests may exceed, e.g. "
			"2");
	/* ... from the base or the window */
	expect_schedule("08:00-09:00 staffing=erlangc", tau_eps,
			COUNT(tau_eps), META_OK, NULL, NULL);
	expect_schedule("08:00-09:00 staffing=erlangc targetWaitSeconds=1 "
			"waitProbability=0.1", NULL, 0, META_OK, NULL, NULL);
	expect_schedule("08:00-09:00 staffing=cost targetWaitSeconds=1 "
			"costPerReplicaHour=3", NULL, 0, META_EMISSING,
			"schedule", NULL);

	expect_schedule("08:00-09:00 beta=2", erlangc, COUNT(erlangc),
			META_ECONFLICT, "schedule",
			"metadata 'schedule': window '08:00-09:00 beta=2': "
			"'beta' has no effect with staffing 'erlangc'; it "
			"only applies with staffing 'sqrt'");
	expect_schedule("08:00-09:00 staffing=sqrt beta=2", erlangc,
			COUNT(erlangc), META_OK, NULL, NULL);
	/* a window may make a base key idle for its time */
	expect_schedule("22:00-06:00 staffing=erlangc", beta, COUNT(beta),
			META_EMISSING, "schedule", NULL);
	{
		static const char *const both[] = {
			"beta", "2", "targetWaitSeconds", "2",
			"waitProbability", "0.05",
		};
		expect_schedule("22:00-06:00 staffing=erlangc", both,
				COUNT(both), META_OK, NULL, NULL);
	}
	expect_schedule("08:00-09:00 drainSeconds=60", NULL, 0,
			META_ECONFLICT, "schedule",
			"metadata 'schedule': window '08:00-09:00 "
			"drainSeconds=60': 'drainSeconds' has no effect "
			"without 'queueDepthQuery'; it only applies to the "
			"queue that 'queueDepthQuery' reads");
	expect_schedule("08:00-09:00 drainSeconds=60", queue, COUNT(queue),
			META_OK, NULL, NULL);
	expect_schedule("08:00-09:00 forecastAlpha=0.5", nocold,
			COUNT(nocold), META_ECONFLICT, "schedule", NULL);
	expect_schedule("08:00-09:00 forecastAlpha=0.5", cold, COUNT(cold),
			META_OK, NULL, NULL);
	expect_schedule("08:00-09:00 forecastAlpha=0.5", NULL, 0, META_OK,
			NULL, NULL);
	/* Holt's knobs need Holt's forecast (auto or holt). */
	expect_schedule("08:00-09:00 forecastAlpha=0.5", fnone, COUNT(fnone),
			META_ECONFLICT, "schedule",
			"metadata 'schedule': window '08:00-09:00 "
			"forecastAlpha=0.5': 'forecastAlpha' has no effect "
			"while 'forecastMethod' is none; it only applies to "
			"Holt's forecast ('forecastMethod' auto or holt, "
			"'coldStartSeconds' above 0)");
	expect_schedule("08:00-09:00 forecastMethod=holt forecastAlpha=0.5",
			fnone, COUNT(fnone), META_OK, NULL, NULL);
	/* The surge headroom's window needs the surge headroom on. */
	expect_schedule("08:00-09:00 surgeQuantile=0 surgeWindowSeconds=3600",
			NULL, 0, META_ECONFLICT, "schedule", NULL);
	expect_schedule("08:00-09:00 surgeQuantile=0.9", NULL, 0, META_OK,
			NULL, NULL);
	/* peakednessMax needs a measured peakedness. */
	expect_schedule("08:00-09:00 peakedness=3 peakednessMax=4", NULL, 0,
			META_ECONFLICT, "schedule", NULL);
	expect_schedule("08:00-09:00 peakedness=off", NULL, 0, META_OK, NULL,
			NULL);
}

static void test_timezone_resolved(void **state)
{
	static const char *const mars[] = {
		ARRIVAL, SERVICE, "timezone", "Mars/Olympus_Mons",
	};
	static const char *const dir[] = {
		ARRIVAL, SERVICE, "timezone", "Europe",
	};
	static const char *const leaps[] = {
		ARRIVAL, SERVICE, "timezone", "right/UTC",
	};
	static const char *const utc[] = {
		ARRIVAL, SERVICE, "timezone", "UTC",
	};
	struct meta_error err;
	struct meta m;

	(void)state;
	assert_int_equal(parse_pairs(&m, mars, COUNT(mars), &err),
			 META_EVALUE);
	assert_string_equal(err.key, "timezone");
	assert_string_equal(err.msg, "metadata 'timezone': unknown time "
			    "zone 'Mars/Olympus_Mons'; allowed: an IANA time "
			    "zone name, 1 to 63 characters of A-Z, a-z, 0-9, "
			    "'_', '+', '-' and '/', starting with a letter "
			    "(default UTC)");
	meta_release(&m);
	assert_int_equal(parse_pairs(&m, dir, COUNT(dir), &err),
			 META_EVALUE);
	assert_contains(err.msg, "unknown time zone 'Europe'");
	meta_release(&m);
	assert_int_equal(parse_pairs(&m, leaps, COUNT(leaps), &err),
			 META_EVALUE);
	assert_string_equal(err.msg, "metadata 'timezone': time zone "
			    "'right/UTC' cannot be used: unusable time zone "
			    "file");
	meta_release(&m);
	assert_int_equal(parse_pairs(&m, utc, COUNT(utc), &err), META_OK);
	assert_ptr_equal(m.tz, tz_utc());
	meta_release(&m);
}

/* ---- required keys ----------------------------------------------------- */

static void test_missing_required(void **state)
{
	struct meta_error err;
	struct meta m;
	static const char *const none[] = { "beta", "2" };
	static const char *const no_w[] = { ARRIVAL };
	static const char *const w_query[] = {
		ARRIVAL, "serviceTimeQuery", "avg(w)",
	};
	static const char *const w_number[] = { ARRIVAL, SERVICE };

	(void)state;
	assert_int_equal(parse_pairs(&m, none, COUNT(none), &err),
			 META_EMISSING);
	assert_string_equal(err.key, "arrivalRateQuery");
	assert_string_equal(err.msg, "metadata 'arrivalRateQuery' is "
			    "required: PromQL giving the arrival rate in "
			    "req/s, e.g. "
			    "sum(rate(gateway_requests_total[1m]))");
	meta_release(&m);

	assert_int_equal(parse_pairs(&m, no_w, COUNT(no_w), &err),
			 META_EMISSING);
	assert_string_equal(err.key, "serviceTimeQuery");
	assert_contains(err.msg, "metadata 'serviceTimeQuery' is required "
			"unless 'serviceTime' is given: PromQL giving the "
			"mean service time in seconds, e.g. ");
	meta_release(&m);

	assert_int_equal(parse_pairs(&m, w_query, COUNT(w_query), &err),
			 META_OK);
	meta_release(&m);
	assert_int_equal(parse_pairs(&m, w_number, COUNT(w_number), &err),
			 META_OK);
	assert_true(m.service_time_s == 10.0);
	meta_release(&m);

	/* staffer calc gives the signals as numbers: no query needed. */
	meta_init(&m);
	assert_int_equal(meta_check(&m, 0, &err), META_OK);
	meta_release(&m);
}

static void test_erlangc_needs_tau_eps(void **state)
{
	struct meta_error err;
	struct meta m;
	static const char *const bare[] = {
		ARRIVAL, SERVICE, "staffing", "erlangc",
	};
	static const char *const tau[] = {
		ARRIVAL, SERVICE, "staffing", "erlangc",
		"targetWaitSeconds", "2",
	};
	static const char *const both[] = {
		ARRIVAL, SERVICE, "staffing", "erlangc",
		"waitProbability", "0.05", "targetWaitSeconds", "2",
	};

	(void)state;
	assert_int_equal(parse_pairs(&m, bare, COUNT(bare), &err),
			 META_EMISSING);
	assert_string_equal(err.key, "targetWaitSeconds");
	assert_string_equal(err.msg, "metadata 'targetWaitSeconds' is "
			    "required with staffing 'erlangc': the wait "
			    "before start, in seconds, that only a few "
			    "requests may exceed, e.g. 2");
	meta_release(&m);

	assert_int_equal(parse_pairs(&m, tau, COUNT(tau), &err),
			 META_EMISSING);
	assert_string_equal(err.key, "waitProbability");
	assert_contains(err.msg, "with staffing 'erlangc'");
	meta_release(&m);

	assert_int_equal(parse_pairs(&m, both, COUNT(both), &err), META_OK);
	assert_int_equal(m.model.staffing, MODEL_STAFF_ERLANGC);
	assert_true(m.model.target_wait_s == 2.0);
	assert_true(m.model.wait_probability == 0.05);
	meta_release(&m);
}

static void test_cost_needs_costs(void **state)
{
	struct meta_error err;
	struct meta m;
	static const char *const steps[][2] = {
		{ "costPerReplicaHour", "4.5" },
		{ "slaPenaltyPerHour", "0" },
		{ "targetWaitSeconds", "2" },
	};
	static const char *const expect[] = {
		"costPerReplicaHour", "slaPenaltyPerHour",
		"targetWaitSeconds",
	};
	size_t i, j;

	(void)state;
	/* Add the required keys one at a time; each check names the next. */
	for (i = 0; i <= COUNT(steps); i++) {
		meta_init(&m);
		assert_int_equal(meta_set(&m, "staffing", "cost", &err), 0);
		for (j = 0; j < i; j++)
			assert_int_equal(meta_set(&m, steps[j][0],
						  steps[j][1], &err), 0);
		if (i < COUNT(steps)) {
			assert_int_equal(meta_check(&m, 0, &err),
					 META_EMISSING);
			assert_string_equal(err.key, expect[i]);
			assert_contains(err.msg, "is required with staffing "
					"'cost'");
		} else {
			assert_int_equal(meta_check(&m, 0, &err), META_OK);
			assert_true(m.model.sla_penalty_per_hour == 0);
			assert_true(m.model.cost_per_replica_hour == 4.5);
		}
		meta_release(&m);
	}
}

/* ---- cross-key rules --------------------------------------------------- */

static void test_no_effect_rules(void **state)
{
	struct meta_error err;
	struct meta m;

	(void)state;
	/* beta only acts with sqrt staffing */
	meta_init(&m);
	meta_set(&m, "beta", "2", NULL);
	meta_set(&m, "staffing", "erlangc", NULL);
	meta_set(&m, "targetWaitSeconds", "2", NULL);
	meta_set(&m, "waitProbability", "0.1", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_ECONFLICT);
	assert_string_equal(err.key, "beta");
	assert_string_equal(err.msg, "metadata 'beta' has no effect with "
			    "staffing 'erlangc'; it only applies with "
			    "staffing 'sqrt'");
	meta_release(&m);

	meta_init(&m);
	meta_set(&m, "beta", "2", NULL);
	meta_set(&m, "workload", "batch", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_ECONFLICT);
	assert_contains(err.msg, "with staffing 'none' (from workload "
			"'batch')");
	/* ... and is fine once staffing says sqrt */
	meta_set(&m, "staffing", "sqrt", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_OK);
	meta_release(&m);

	/* the forecast knobs need the forecast: Holt's (auto by default) */
	meta_init(&m);
	meta_set(&m, "forecastAlpha", "0.5", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_OK);
	meta_set(&m, "forecastMethod", "none", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_ECONFLICT);
	assert_string_equal(err.msg, "metadata 'forecastAlpha' has no effect "
			    "while 'forecastMethod' is none; it only applies "
			    "to Holt's forecast ('forecastMethod' auto or "
			    "holt, 'coldStartSeconds' above 0)");
	meta_set(&m, "forecastMethod", "holt", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_OK);
	meta_set(&m, "coldStartSeconds", "0", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_ECONFLICT);
	assert_string_equal(err.msg, "metadata 'forecastAlpha' has no effect "
			    "while 'coldStartSeconds' is 0; it only applies "
			    "to Holt's forecast ('forecastMethod' auto or "
			    "holt, 'coldStartSeconds' above 0)");
	meta_release(&m);
	meta_init(&m);
	meta_set(&m, "forecastAlpha", "0.5", NULL);
	meta_set(&m, "forecastMethod", "holt", NULL);
	meta_set(&m, "coldStartSeconds", "120", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_OK);
	meta_release(&m);

	/* the hold's kind needs a hold; the surge headroom needs a lead
	 * time, its window the headroom */
	meta_init(&m);
	meta_set(&m, "scaleDownHoldOn", "rate", NULL);
	meta_set(&m, "scaleDownHoldSeconds", "0", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_ECONFLICT);
	assert_string_equal(err.key, "scaleDownHoldOn");
	meta_set(&m, "scaleDownHoldSeconds", "60", NULL);
	meta_set(&m, "coldStartSeconds", "0", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_OK);
	meta_release(&m);
	meta_init(&m);
	meta_set(&m, "surgeQuantile", "0.9", NULL);
	meta_set(&m, "coldStartSeconds", "0", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_ECONFLICT);
	assert_string_equal(err.key, "surgeQuantile");
	meta_release(&m);
	meta_init(&m);
	meta_set(&m, "surgeWindowSeconds", "7200", NULL);
	meta_set(&m, "surgeQuantile", "0", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_ECONFLICT);
	assert_contains(err.msg, "while 'surgeQuantile' is 0");
	meta_release(&m);

	/* peakednessMax bounds a measured peakedness only */
	meta_init(&m);
	meta_set(&m, "peakednessMax", "8", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_OK);
	meta_set(&m, "peakedness", "off", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_ECONFLICT);
	assert_string_equal(err.msg, "metadata 'peakednessMax' has no effect "
			    "unless 'peakedness' is auto; it only applies to a "
			    "measured peakedness ('peakedness' auto)");
	meta_release(&m);

	/* boost and drain knobs need their queries, but not in calc */
	meta_init(&m);
	meta_set(&m, "arrivalRateQuery", "sum(a)", NULL);
	meta_set(&m, "serviceTime", "3", NULL);
	meta_set(&m, "boostFactor", "2", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_OK);
	assert_int_equal(meta_check(&m, 1, &err), META_ECONFLICT);
	assert_string_equal(err.key, "boostFactor");
	assert_contains(err.msg, "has no effect without 'shedRateQuery'");
	meta_set(&m, "shedRateQuery", "sum(s)", NULL);
	assert_int_equal(meta_check(&m, 1, &err), META_OK);
	meta_set(&m, "drainSeconds", "60", NULL);
	assert_int_equal(meta_check(&m, 1, &err), META_ECONFLICT);
	assert_string_equal(err.key, "drainSeconds");
	meta_set(&m, "queueDepthQuery", "sum(q)", NULL);
	assert_int_equal(meta_check(&m, 1, &err), META_OK);
	meta_release(&m);

	/* facts about the service are fine with any staffing */
	meta_init(&m);
	meta_set(&m, "targetWaitSeconds", "2", NULL);
	meta_set(&m, "waitProbability", "0.1", NULL);
	meta_set(&m, "costPerReplicaHour", "3", NULL);
	meta_set(&m, "workload", "batch", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_OK);
	assert_int_equal(m.model.staffing, MODEL_STAFF_NONE);
	meta_release(&m);
}

static void test_workload_staffing_order(void **state)
{
	static const struct {
		const char *k1, *v1, *k2, *v2;
		enum model_staffing want;
		int batch;
	} cases[] = {
		{ "workload", "batch", NULL, NULL, MODEL_STAFF_NONE, 1 },
		{ "workload", "interactive", NULL, NULL, MODEL_STAFF_SQRT, 0 },
		{ "workload", "batch", "staffing", "sqrt", MODEL_STAFF_SQRT,
		  1 },
		{ "staffing", "sqrt", "workload", "batch", MODEL_STAFF_SQRT,
		  1 },
		{ "workload", "interactive", "staffing", "none",
		  MODEL_STAFF_NONE, 0 },
		{ "staffing", "none", "workload", "interactive",
		  MODEL_STAFF_NONE, 0 },
		{ "staffing", "none", NULL, NULL, MODEL_STAFF_NONE, 0 },
		{ "workload", "batch", "workload", "interactive",
		  MODEL_STAFF_SQRT, 0 },
	};
	struct meta_error err;
	struct meta m;
	size_t i;

	(void)state;
	for (i = 0; i < COUNT(cases); i++) {
		meta_init(&m);
		assert_int_equal(meta_set(&m, cases[i].k1, cases[i].v1, &err),
				 META_OK);
		if (cases[i].k2)
			assert_int_equal(meta_set(&m, cases[i].k2,
						  cases[i].v2, &err), META_OK);
		assert_int_equal(meta_check(&m, 0, &err), META_OK);
		assert_int_equal(m.model.staffing, cases[i].want);
		assert_int_equal(m.workload_batch, cases[i].batch);
		/* checking twice gives the same answer */
		assert_int_equal(meta_check(&m, 0, &err), META_OK);
		assert_int_equal(m.model.staffing, cases[i].want);
		meta_release(&m);
	}
}

/* ---- defaults ---------------------------------------------------------- */

static void test_defaults(void **state)
{
	struct meta_error err;
	struct meta m;

	(void)state;
	meta_init(&m);
	assert_int_equal(meta_check(&m, 0, &err), META_OK);
	assert_int_equal(err.code, META_OK);
	assert_null(m.backend);
	assert_null(m.arrival_rate_query);
	assert_null(m.service_time_query);
	assert_null(m.queue_depth_query);
	assert_null(m.shed_rate_query);
	assert_null(m.current_replicas_query);
	assert_null(m.schedule);
	assert_null(m.timezone);
	assert_true(m.service_time_s == 0);
	assert_int_equal(m.workload_batch, 0);
	assert_int_equal(m.model.slots_per_replica, 1);
	assert_int_equal(m.model.staffing, MODEL_STAFF_SQRT);
	assert_true(m.model.beta == 1.5);
	assert_true(m.model.target_wait_s == 0);
	assert_true(m.model.wait_probability == 0);
	assert_true(m.model.drain_s == 15);
	assert_true(m.model.shed_threshold == 0);
	assert_true(m.model.boost_factor == 1.0);
	assert_true(m.model.cost_per_replica_hour == 0);
	assert_true(m.model.sla_penalty_per_hour == 0);
	assert_int_equal(m.model.max_replicas, 0);
	assert_true(m.model.activation_arrival_rate == 0);
	assert_true(m.cold_start_s == 120);
	assert_true(m.scale_down_hold_s == META_AUTO);
	assert_true(m.rate_window_s == 60);  /* resolved by meta_check */
	assert_true(m.peakedness == META_AUTO);
	assert_true(m.peakedness_max == 2);
	assert_true(m.forecast_window_s == 600);
	assert_true(m.forecast_alpha == 0.3);
	assert_true(m.forecast_beta == 0.15);
	assert_int_equal(m.scale_down_step, 1);
	assert_true(m.scale_down_period_s == 60);
	assert_true(m.stale_hold_s == 300);
	assert_true(m.push_interval_s == 5);
	assert_string_equal(m.metric_name, "staffer");
	meta_release(&m);

	/* release then init again is allowed */
	meta_init(&m);
	meta_release(&m);
	meta_release(&m);
}

/* Number keys that take words: "auto" stores META_AUTO, "off" 1; the
 * message lists the words before the numbers. */
static void test_words(void **state)
{
	struct meta_error err;
	struct meta m;

	(void)state;
	meta_init(&m);
	assert_int_equal(meta_set(&m, "peakedness", "4", &err), META_OK);
	assert_int_equal(meta_set(&m, "peakedness", "auto", &err), META_OK);
	assert_true(m.peakedness == META_AUTO);
	assert_int_equal(meta_set(&m, "peakedness", "off", &err), META_OK);
	assert_true(m.peakedness == 1);
	assert_int_equal(meta_set(&m, "peakedness", "Auto", &err),
			 META_EVALUE);
	assert_string_equal(err.msg, "metadata 'peakedness': 'Auto' is not a "
			    "number; allowed: auto, off or a number from 0.1 "
			    "to 100 (default auto: measured, from 1 to "
			    "peakednessMax; off is 1)");
	assert_int_equal(meta_set(&m, "scaleDownHoldSeconds", "-1", &err),
			 META_EVALUE);
	assert_contains(err.msg, "allowed: auto or a number from 0 to 86400 "
			"seconds");
	assert_int_equal(meta_set(&m, "scaleDownHoldSeconds", "0", &err),
			 META_OK);
	assert_true(m.scale_down_hold_s == 0);
	assert_int_equal(meta_set(&m, "rateWindowSeconds", "auto", &err),
			 META_OK);
	assert_int_equal(meta_set(&m, "rateWindowSeconds", "0", &err),
			 META_EVALUE);
	meta_release(&m);
}

/* rateWindowSeconds: given, else the longest range of arrivalRateQuery,
 * else 60; the hold follows it. */
static void test_rate_window(void **state)
{
	struct meta_error err;
	struct meta m;

	(void)state;
	meta_init(&m);
	assert_int_equal(meta_check(&m, 0, &err), META_OK);
	assert_true(m.rate_window_s == 60);
	assert_string_equal(meta_rate_window_source(&m), "default");
	assert_true(meta_hold_seconds(&m) == 180);
	meta_release(&m);

	meta_init(&m);
	meta_set(&m, "arrivalRateQuery", "sum(rate(x{a=\"[9h]\"}[2m]))", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_OK);
	assert_true(m.rate_window_s == 120);
	assert_string_equal(meta_rate_window_source(&m), "arrivalRateQuery");
	assert_true(meta_hold_seconds(&m) == 120 + 60 + 30);
	meta_release(&m);

	meta_init(&m);
	meta_set(&m, "arrivalRateQuery", "sum(rate(x[2m]))", NULL);
	meta_set(&m, "rateWindowSeconds", "30", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_OK);
	assert_true(m.rate_window_s == 30);
	assert_string_equal(meta_rate_window_source(&m), "given");
	meta_set(&m, "scaleDownHoldSeconds", "500", NULL);
	assert_true(meta_hold_seconds(&m) == 500);
	assert_false(meta_step_limited(&m));
	meta_set(&m, "scaleDownStep", "2", NULL);
	assert_true(meta_step_limited(&m));
	meta_release(&m);

	/* The query's longest range is held to the key's range: a helper
	 * term's [2w] or a [1ms] is no rate window (2w made a 7-day hold) */
	meta_init(&m);
	meta_set(&m, "arrivalRateQuery", "sum(rate(x[1m])) * on() "
		 "group_left() (max_over_time(up[2w]) > bool 0)", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_EVALUE);
	assert_string_equal(err.key, "rateWindowSeconds");
	assert_contains(err.msg, "longest range in 'arrivalRateQuery', "
			"1209600 seconds, which is out of range");
	meta_set(&m, "rateWindowSeconds", "60", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_OK);
	assert_true(m.rate_window_s == 60);
	meta_release(&m);
	meta_init(&m);
	meta_set(&m, "arrivalRateQuery", "sum(rate(x[1ms]))", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_EVALUE);
	meta_release(&m);

	/* The rules between keys see the resolved window: the hold of a
	 * 0.4-s cold start is 0.4 + 60 / 2 s, so scaleDownHoldOn applies */
	meta_init(&m);
	meta_set(&m, "coldStartSeconds", "0.4", NULL);
	meta_set(&m, "metricsLagSeconds", "0", NULL);
	meta_set(&m, "scaleDownHoldOn", "rate", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_OK);
	assert_true(meta_hold_seconds(&m) > 30.39 && meta_hold_seconds(&m) < 30.41);
	meta_release(&m);

	/* A step given in the schedule window in force limits too. */
	meta_init(&m);
	meta_set(&m, "schedule", "00:00-23:59 scaleDownStep=3", NULL);
	assert_int_equal(meta_check(&m, 0, &err), META_OK);
	assert_false(meta_step_limited(&m));
	{
		struct meta w;

		assert_non_null(meta_at(&m, 1782907200, &w));
		assert_true(meta_step_limited(&w));
	}
	meta_release(&m);
}

/* Values land in the right fields (the table's offsets). */
static void test_values_stored(void **state)
{
	static const char *const kv[] = {
		"backend", "thanos",
		ARRIVAL,
		"serviceTimeQuery", "avg(w)",
		"serviceTime", "12.5",
		"queueDepthQuery", "sum(q)",
		"shedRateQuery", "sum(s)",
		"currentReplicasQuery", "sum(r)",
		"slotsPerReplica", "64",
		"drainSeconds", "120",
		"shedThreshold", "0.5",
		"boostFactor", "2",
		"scaleDownStep", "3",
		"scaleDownPeriodSeconds", "90",
		"coldStartSeconds", "180",
		"forecastWindowSeconds", "900",
		"forecastMethod", "holt",
		"scaleDownHoldOn", "rate",
		"surgeQuantile", "0.9",
		"surgeWindowSeconds", "14400",
		"forecastAlpha", "0.4",
		"forecastBeta", "0.2",
		"maxReplicas", "40",
		"activationArrivalRate", "0.01",
		"staleHoldSeconds", "600",
		"pushIntervalSeconds", "10",
		"metricName", "chat",
		"scalerAddress", "staffer.keda.svc:9090",
		"enableTLS", "true",
		"unsafeSsl", "false",
	};
	struct meta_error err;
	struct meta m;

	(void)state;
	assert_int_equal(parse_pairs(&m, kv, COUNT(kv), &err), META_OK);
	assert_string_equal(m.backend, "thanos");
	assert_string_equal(m.arrival_rate_query, "sum(rate(req_total[1m]))");
	assert_string_equal(m.service_time_query, "avg(w)");
	assert_true(m.service_time_s == 12.5);
	assert_string_equal(m.queue_depth_query, "sum(q)");
	assert_string_equal(m.shed_rate_query, "sum(s)");
	assert_string_equal(m.current_replicas_query, "sum(r)");
	assert_int_equal(m.model.slots_per_replica, 64);
	assert_true(m.model.drain_s == 120);
	assert_true(m.model.shed_threshold == 0.5);
	assert_true(m.model.boost_factor == 2);
	assert_int_equal(m.scale_down_step, 3);
	assert_true(m.scale_down_period_s == 90);
	assert_true(m.cold_start_s == 180);
	assert_true(m.forecast_window_s == 900);
	assert_true(m.forecast_alpha == 0.4);
	assert_true(m.forecast_beta == 0.2);
	assert_int_equal(m.forecast_method, META_FORECAST_HOLT);
	assert_int_equal(m.hold_on, META_HOLD_RATE);
	assert_true(m.surge_quantile == 0.9);
	assert_true(m.surge_window_s == 14400);
	assert_int_equal(m.model.max_replicas, 40);
	assert_true(m.model.activation_arrival_rate == 0.01);
	assert_true(m.stale_hold_s == 600);
	assert_true(m.push_interval_s == 10);
	assert_string_equal(m.metric_name, "chat");
	meta_release(&m);
}

/* ---- message form ------------------------------------------------------ */

static void test_message_form(void **state)
{
	struct meta_error err;
	char v[200];
	size_t n;

	(void)state;
	/* key, value and the allowed range with its unit and default */
	assert_int_equal(set_one("staleHoldSeconds", "99999", &err),
			 META_EVALUE);
	assert_string_equal(err.msg, "metadata 'staleHoldSeconds': '99999' "
			    "is out of range; allowed: a number from 0 to "
			    "86400 seconds (default 300)");
	assert_int_equal(set_one("activationArrivalRate", "-1", &err),
			 META_EVALUE);
	assert_string_equal(err.msg, "metadata 'activationArrivalRate': '-1' "
			    "is out of range; allowed: a number from 0 to "
			    "1000000000 req/s (default 0)");
	assert_int_equal(set_one("maxReplicas", "0", &err), META_EVALUE);
	assert_string_equal(err.msg, "metadata 'maxReplicas': '0' is out of "
			    "range; allowed: a whole number from 1 to "
			    "2147483647 replicas (default: no cap)");

	/* a long value is cut at 60 characters */
	memset(v, 'a', sizeof(v) - 1);
	v[sizeof(v) - 1] = '\0';
	assert_int_equal(set_one("beta", v, &err), META_EVALUE);
	v[0] = '\'';
	strcpy(v + 61, "...' is too long for a number");
	assert_contains(err.msg, v);

	/* control characters and non-ASCII bytes are escaped */
	assert_int_equal(set_one("staffing", "a\nb\tc\x01\xff", &err),
			 META_EVALUE);
	assert_contains(err.msg, "'a\\nb\\tc\\x01\\xff' is not allowed");

	/* git style: lower case start, no final period */
	n = strlen(err.msg);
	assert_true(err.msg[0] == 'm');
	assert_true(err.msg[n - 1] != '.');

	/* a NULL err is allowed */
	assert_int_equal(set_one("beta", "x", NULL), META_EVALUE);

	/* success clears err */
	assert_int_equal(set_one("beta", "2", &err), META_OK);
	assert_int_equal(err.code, META_OK);
	assert_string_equal(err.msg, "");
}

/* ---- ownership --------------------------------------------------------- */

/* Run under ASan/LSan: replacing a string must free the old one. */
static void test_set_twice_no_leak(void **state)
{
	struct meta_error err;
	struct meta m;
	int i;

	(void)state;
	meta_init(&m);
	for (i = 0; i < 3; i++) {
		assert_int_equal(meta_set(&m, "arrivalRateQuery",
					  i ? "sum(b)" : "sum(a)", &err), 0);
		assert_int_equal(meta_set(&m, "backend", "b1", &err), 0);
		assert_int_equal(meta_set(&m, "timezone", "UTC", &err), 0);
		assert_int_equal(meta_set(&m, "schedule", "x", &err), 0);
		assert_int_equal(meta_set(&m, "metricName", "m", &err), 0);
		assert_int_equal(meta_set(&m, "beta", "1", &err), 0);
	}
	assert_string_equal(m.arrival_rate_query, "sum(b)");
	/* a failed set keeps the old value */
	assert_int_equal(meta_set(&m, "backend", "bad name", &err),
			 META_EVALUE);
	assert_string_equal(m.backend, "b1");
	assert_int_equal(meta_set(&m, "beta", "11", &err), META_EVALUE);
	assert_true(m.model.beta == 1);
	meta_release(&m);
	assert_null(m.arrival_rate_query);
	assert_null(m.backend);
}

/* meta_parse stops at the first bad pair, and m can still be released. */
static void test_parse_first_error(void **state)
{
	static const char *const kv[] = {
		ARRIVAL, "beta", "x", "betta", "1",
	};
	struct meta_error err;
	struct meta m;

	(void)state;
	assert_int_equal(parse_pairs(&m, kv, COUNT(kv), &err), META_EVALUE);
	assert_string_equal(err.key, "beta");
	meta_release(&m);
}

/* ---- keys KEDA resolved from the workload's environment ------------------ */

/* "<key>FromEnv" carries <key>'s value (KEDA replaced the variable's name
 * with its value); it is checked and stored exactly like <key>. */
static void test_from_env(void **state)
{
	static const char *const kv[] = {
		"arrivalRateQueryFromEnv", "sum(rate(req_total[1m]))",
		SERVICE, "slotsPerReplicaFromEnv", "64", "betaFromEnv", "2",
		"stafffingFromEnv", "none",
	};
	struct meta_error err;
	struct meta m;

	(void)state;
	assert_int_equal(parse_pairs(&m, kv, COUNT(kv) - 2, &err), META_OK);
	assert_string_equal(m.arrival_rate_query, "sum(rate(req_total[1m]))");
	assert_int_equal(m.model.slots_per_replica, 64);
	assert_true(m.model.beta == 2.0);
	meta_release(&m);

	/* a bad value names the key as written */
	expect_bad("slotsPerReplicaFromEnv", "many", "is not a number");
	expect_bad("betaFromEnv", "-1", "is out of range");
	assert_int_equal(set_one("betaFromEnv", "", &err), META_EVALUE);
	assert_string_equal(err.key, "betaFromEnv");
	assert_contains(err.msg, "metadata 'betaFromEnv' is empty");

	/* a schedule window overrides a key the base took from the
	 * environment, as it overrides a plain one */
	{
		static const char *const win[] = {
			"arrivalRateQuery", "sum(rate(req_total[1m]))",
			SERVICE, "slotsPerReplicaFromEnv", "8", "schedule",
			"Mon-Fri 08:00-19:00 slotsPerReplica=16",
		};

		assert_int_equal(parse_pairs(&m, win, COUNT(win), &err),
				 META_OK);
		assert_int_equal(m.model.slots_per_replica, 8);
		meta_release(&m);
		meta_init(&m);
		assert_int_equal(meta_defer(&m, "slotsPerReplicaFromEnv",
					    "SLOTS", &err), META_OK);
		assert_int_equal(meta_set(&m, "schedule", win[7], &err),
				 META_OK);
		meta_release(&m);
	}

	/* only known keys have a FromEnv form */
	assert_int_equal(parse_pairs(&m, kv, COUNT(kv), &err), META_EUNKNOWN);
	assert_string_equal(err.key, "stafffingFromEnv");
	meta_release(&m);
	assert_int_equal(set_one("FromEnv", "1", &err), META_EUNKNOWN);
}

/* staffer lint's view: "<key>FromEnv" holds a variable's name, which is
 * checked as a name and counts as the key being given. */
static void test_defer(void **state)
{
	struct meta_error err;
	struct meta m;

	(void)state;
	assert_string_equal(meta_from_env_base("slotsPerReplicaFromEnv"),
			    "slotsPerReplica");
	assert_null(meta_from_env_base("slotsPerReplica"));
	assert_null(meta_from_env_base("stafffingFromEnv"));
	assert_null(meta_from_env_base("FromEnv"));
	assert_null(meta_from_env_base(NULL));

	/* a required key given from the environment satisfies meta_check */
	meta_init(&m);
	assert_int_equal(meta_defer(&m, "arrivalRateQueryFromEnv", "RATE_Q",
				    &err), META_OK);
	assert_int_equal(meta_defer(&m, "serviceTimeFromEnv", "SVC", &err),
			 META_OK);
	assert_int_equal(meta_check(&m, 1, &err), META_OK);
	meta_release(&m);

	/* the name: not empty, no spaces, no '=' */
	meta_init(&m);
	assert_int_equal(meta_defer(&m, "betaFromEnv", "MY BETA", &err),
			 META_EVALUE);
	assert_string_equal(err.key, "betaFromEnv");
	assert_contains(err.msg, "'MY BETA' is not an environment variable");
	assert_int_equal(meta_defer(&m, "betaFromEnv", "", &err),
			 META_EVALUE);
	assert_int_equal(meta_defer(&m, "betaFromEnv", "A=B", &err),
			 META_EVALUE);
	assert_int_equal(meta_defer(&m, "betaFromEnv", NULL, &err),
			 META_EVALUE);
	/* not a FromEnv key at all */
	assert_int_equal(meta_defer(&m, "beta", "X", &err), META_EUNKNOWN);
	meta_release(&m);

	/* both spellings, in either order */
	meta_init(&m);
	assert_int_equal(meta_set(&m, "beta", "2", &err), META_OK);
	assert_int_equal(meta_defer(&m, "betaFromEnv", "B", &err),
			 META_EVALUE);
	assert_contains(err.msg, "are both given");
	meta_release(&m);
	meta_init(&m);
	assert_int_equal(meta_defer(&m, "betaFromEnv", "B", &err), META_OK);
	assert_int_equal(meta_set(&m, "beta", "2", &err), META_EVALUE);
	assert_contains(err.msg, "are both given");
	meta_release(&m);
}

/* Both spellings of one key: refused whichever comes first. */
static void test_from_env_and_plain(void **state)
{
	static const char *const order[2][4] = {
		{ "beta", "1.5", "betaFromEnv", "2" },
		{ "betaFromEnv", "2", "beta", "1.5" },
	};
	struct meta_error err;
	struct meta m;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		meta_init(&m);
		assert_int_equal(meta_set(&m, order[i][0], order[i][1], &err),
				 META_OK);
		assert_int_equal(meta_set(&m, order[i][2], order[i][3], &err),
				 META_EVALUE);
		assert_string_equal(err.msg, "metadata 'beta' and "
				    "'betaFromEnv' are both given; keep one");
		meta_release(&m);
	}
	/* the same spelling twice (calc key=value overrides) is fine */
	meta_init(&m);
	assert_int_equal(meta_set(&m, "betaFromEnv", "2", &err), META_OK);
	assert_int_equal(meta_set(&m, "betaFromEnv", "3", &err), META_OK);
	assert_true(m.model.beta == 3.0);
	meta_release(&m);
}

/* ---- the table --------------------------------------------------------- */

/* One good value per key; a key added to the table without one here
 * fails this test (and needs a docs/metadata.md entry too). */
static const struct {
	const char *key, *value;
} examples[] = {
	{ "backend", "thanos" },
	{ "arrivalRateQuery", "sum(rate(gateway_requests_total[1m]))" },
	{ "serviceTimeQuery", "sum(rate(d_sum[1m])) / sum(rate(d_count[1m]))" },
	{ "serviceTime", "12" },
	{ "queueDepthQuery", "sum(gateway_queue_depth) or vector(0)" },
	{ "shedRateQuery", "sum(rate(shed_total[1m])) or vector(0)" },
	{ "currentReplicasQuery", "sum(kube_deployment_status_replicas)" },
	{ "slaMissQuery", "sum(gateway_wait_miss_ratio)" },
	{ "coldStartQuery", "quantile(0.5, kube_pod_status_ready_time - "
	  "kube_pod_created)" },
	{ "slotsPerReplica", "64" },
	{ "workload", "batch" },
	{ "staffing", "erlangc" },
	{ "beta", "2" },
	{ "targetWaitSeconds", "2" },
	{ "waitProbability", "0.05" },
	{ "drainSeconds", "120" },
	{ "shedThreshold", "0.5" },
	{ "boostFactor", "1.5" },
	{ "scaleDownStep", "2" },
	{ "scaleDownPeriodSeconds", "120" },
	{ "scaleDownHoldSeconds", "300" },
	{ "scaleDownHoldOn", "rate" },
	{ "coldStartSeconds", "180" },
	{ "rateWindowSeconds", "60" },
	{ "metricsLagSeconds", "45" },
	{ "peakedness", "4" },
	{ "peakednessMax", "8" },
	{ "surgeQuantile", "0.99" },
	{ "surgeWindowSeconds", "14400" },
	{ "forecastMethod", "holt" },
	{ "forecastWindowSeconds", "900" },
	{ "forecastAlpha", "0.5" },
	{ "forecastBeta", "0.1" },
	{ "forecastDamping", "0.9" },
	{ "slaTarget", "0.995" },
	{ "feedbackWindowSeconds", "7200" },
	{ "costPerReplicaHour", "4.5" },
	{ "slaPenaltyPerHour", "500" },
	{ "schedule", "Mon-Fri 08:00-19:00 beta=2.0" },
	{ "timezone", "Europe/Paris" },
	{ "maxReplicas", "40" },
	{ "activationArrivalRate", "0.01" },
	{ "staleHoldSeconds", "600" },
	{ "pushIntervalSeconds", "10" },
	{ "metricName", "chat-replicas" },
	{ "pool", "prefill" },
	{ "inputTokenRateQuery", "sum(rate(vllm:prompt_tokens_total[1m]))" },
	{ "outputTokenRateQuery",
	  "sum(rate(vllm:generation_tokens_total[1m]))" },
	{ "kvCacheUsageQuery", "sum(sglang:num_used_tokens)" },
	{ "prefillTokensPerSecond", "9000" },
	{ "prefillCapacityQuery", "max(prefill_capacity_tokens_per_second)" },
	{ "kvCacheTokens", "400000" },
	{ "kvCacheTokensQuery", "max(sglang:max_total_num_tokens)" },
	{ "ttftTargetSeconds", "2" },
	{ "kvTransferSeconds", "0.05" },
	{ "itlTargetSeconds", "0.04" },
	{ "decodeProfile", "1:0.029,16:0.033,32:0.037,64:0.052" },
	{ "scalerAddress", "staffer.keda.svc:9090" },
	{ "enableTLS", "true" },
	{ "unsafeSsl", "false" },
};

/* A pool's keys: what each pool needs, what a unified fleet refuses,
 * the profile's syntax and the cross-key checks, each error naming the
 * key. */
static void pool_case(const char *const *kv, size_t n, enum meta_err want,
		      const char *key, const char *needle)
{
	struct meta m;
	struct meta_error err;
	enum meta_err rc = parse_pairs(&m, kv, n, &err);

	if (rc != want)
		fail_msg("code %d, want %d: %s", rc, want, err.msg);
	if (want != META_OK) {
		assert_string_equal(err.key, key);
		assert_contains(err.msg, needle);
	}
	meta_release(&m);
}

#define INPUT "inputTokenRateQuery", "sum(rate(prompt_total[1m]))"
#define OUTPUT "outputTokenRateQuery", "sum(rate(gen_total[1m]))"
#define PROFILE "decodeProfile", "1:0.029,32:0.037,64:0.052"

static void test_pool_keys(void **state)
{
	static const char *const prefill[] = {
		ARRIVAL, "pool", "prefill", INPUT,
		"prefillTokensPerSecond", "8000", "ttftTargetSeconds", "2",
		"kvTransferSeconds", "0.05",
	};
	static const char *const prefill_no_c[] = {
		ARRIVAL, "pool", "prefill", INPUT,
	};
	static const char *const prefill_no_in[] = {
		ARRIVAL, "pool", "prefill", "prefillTokensPerSecond", "8000",
	};
	static const char *const prefill_ttft[] = {
		ARRIVAL, "pool", "prefill", INPUT,
		"prefillTokensPerSecond", "8000",
		"prefillCapacityQuery", "max(cap)", "ttftTargetSeconds", "0.1",
		"kvTransferSeconds", "0.2",
	};
	static const char *const prefill_query_only[] = {
		ARRIVAL, "pool", "prefill", INPUT,
		"prefillCapacityQuery", "max(cap)",
	};
	static const char *const decode_kq_only[] = {
		ARRIVAL, "pool", "decode", OUTPUT, "itlTargetSeconds", "0.04",
		PROFILE, "kvCacheTokensQuery", "max(k)",
	};
	static const char *const decode[] = {
		ARRIVAL, "pool", "decode", OUTPUT, INPUT,
		"itlTargetSeconds", "0.04", PROFILE, "kvCacheTokens", "400000",
		"kvCacheUsageQuery", "sum(kv_used)",
	};
	static const char *const decode_no_profile[] = {
		ARRIVAL, "pool", "decode", OUTPUT, "itlTargetSeconds", "0.04",
	};
	static const char *const decode_no_bound[] = {
		ARRIVAL, "pool", "decode", OUTPUT, SERVICE,
	};
	static const char *const decode_fast[] = {
		ARRIVAL, "pool", "decode", OUTPUT, "itlTargetSeconds", "0.02",
		PROFILE,
	};
	static const char *const unified_tokens[] = {
		ARRIVAL, SERVICE, INPUT,
	};
	static const char *const prefill_itl[] = {
		ARRIVAL, "pool", "prefill", INPUT,
		"prefillTokensPerSecond", "8000", "itlTargetSeconds", "0.04",
	};
	struct meta m;
	struct meta_error err;

	(void)state;
	pool_case(prefill, COUNT(prefill), META_OK, NULL, NULL);
	assert_int_equal(parse_pairs(&m, prefill, COUNT(prefill), &err),
			 META_OK);
	assert_int_equal(m.pool.kind, POOL_PREFILL);
	assert_true(m.pool.prefill_tokens_per_s == 8000);
	meta_release(&m);
	pool_case(decode, COUNT(decode), META_OK, NULL, NULL);
	assert_int_equal(parse_pairs(&m, decode, COUNT(decode), &err),
			 META_OK);
	assert_int_equal(m.pool.profile.n, 3);
	assert_true(m.pool.profile.itl_s[2] == 0.052);
	meta_release(&m);
	pool_case(prefill_no_c, COUNT(prefill_no_c), META_EMISSING,
		  "prefillTokensPerSecond", "with pool prefill");
	/* a capacity query needs the given capacity as its fallback */
	pool_case(prefill_query_only, COUNT(prefill_query_only),
		  META_EMISSING, "prefillTokensPerSecond",
		  "while 'prefillCapacityQuery', if any, has no value");
	pool_case(decode_kq_only, COUNT(decode_kq_only), META_EMISSING,
		  "kvCacheTokens", "with 'kvCacheTokensQuery'");
	pool_case(prefill_no_in, COUNT(prefill_no_in), META_EMISSING,
		  "inputTokenRateQuery", "with pool prefill");
	pool_case(prefill_ttft, COUNT(prefill_ttft), META_ECONFLICT,
		  "ttftTargetSeconds", "must be above 'kvTransferSeconds'");
	pool_case(decode_no_profile, COUNT(decode_no_profile), META_EMISSING,
		  "decodeProfile", "with 'itlTargetSeconds'");
	pool_case(decode_no_bound, COUNT(decode_no_bound), META_EMISSING,
		  "slotsPerReplica", "unless 'itlTargetSeconds'");
	pool_case(decode_fast, COUNT(decode_fast), META_ECONFLICT,
		  "itlTargetSeconds", "no batch meets it");
	pool_case(unified_tokens, COUNT(unified_tokens), META_ECONFLICT,
		  "inputTokenRateQuery", "no effect with pool unified");
	pool_case(prefill_itl, COUNT(prefill_itl), META_ECONFLICT,
		  "itlTargetSeconds", "decode");
	/* rateWindowSeconds "auto" is the default spelt out: the longest
	 * range of arrivalRateQuery (1m), not META_AUTO's -1 (a fuzz find) */
	{
		static const char *const rw[] = {
			ARRIVAL, SERVICE, "rateWindowSeconds", "auto",
		};

		assert_int_equal(parse_pairs(&m, rw, COUNT(rw), &err),
				 META_OK);
		assert_true(m.rate_window_s == 60);
		assert_string_equal(meta_rate_window_source(&m),
				    "arrivalRateQuery");
		meta_release(&m);
	}
	expect_bad("pool", "sideways", "is not allowed");
	expect_bad("decodeProfile", "2:0.1,1:0.2",
		   "has batch sizes that do not rise");
	expect_bad("decodeProfile", "1:0", "has an inter-token latency that "
		   "is not a number above 0 up to 10 seconds");
	expect_bad("decodeProfile", "1:x", "has an inter-token latency that "
		   "is not a number above 0 up to 10 seconds");
	expect_bad("prefillTokensPerSecond", "0", "is out of range");
}

static void test_every_key_has_example(void **state)
{
	size_t i, j;
	const char *name;

	(void)state;
	assert_int_equal(meta_key_count(), COUNT(examples));
	assert_null(meta_key_name(meta_key_count()));
	for (i = 0; i < meta_key_count(); i++) {
		name = meta_key_name(i);
		assert_non_null(name);
		/* the table's order is the order of the docs */
		assert_string_equal(name, examples[i].key);
		expect_ok(name, examples[i].value);
		/* names are unique, and each is its own nearest key */
		for (j = 0; j < i; j++)
			assert_string_not_equal(name, meta_key_name(j));
		assert_string_equal(meta_nearest_key(name), name);
	}
}

/* Every key of the table has its entry in docs/metadata.md: a "### key"
 * heading (one heading may name several keys, comma-separated).  The test
 * runs from the repository's root, as `make unit` runs it. */
static void test_every_key_documented(void **state)
{
	static char doc[256 * 1024];
	char want[META_NAME_MAX + 8];
	const char *name, *p;
	FILE *fp = fopen("docs/metadata.md", "r");
	size_t n, i, len;
	int found;

	(void)state;
	if (fp == NULL)
		fail_msg("docs/metadata.md: cannot open (run from the "
			 "repository's root)");
	n = fread(doc, 1, sizeof(doc) - 1, fp);
	assert_int_equal(ferror(fp), 0);
	assert_true(feof(fp));
	fclose(fp);
	doc[n] = '\0';
	for (i = 0; i < meta_key_count(); i++) {
		name = meta_key_name(i);
		len = strlen(name);
		found = 0;
		snprintf(want, sizeof(want), "\n### ");
		for (p = strstr(doc, want); p && !found;
		     p = strstr(p + 1, want)) {
			const char *q = p + 5, *end = strchr(q, '\n');

			while (q && end && q < end) {
				while (*q == ' ' || *q == ',' || *q == '`')
					q++;
				if (!strncmp(q, name, len) &&
				    (q[len] == ',' || q[len] == '\n' ||
				     q[len] == '`' || q[len] == ' '))
					found = 1;
				q = strchr(q, ',');
				if (q && q > end)
					q = NULL;
			}
		}
		if (!found)
			fail_msg("metadata key '%s' has no '### %s' entry in "
				 "docs/metadata.md", name, name);
	}
}

/* The trigger of the full example in docs/metadata.md, as KEDA passes it
 * (YAML block scalars end in a newline). */
static void test_docs_example(void **state)
{
	static const char *const kv[] = {
		"scalerAddress", "staffer.keda.svc:9090",
		"backend", "default",
		"arrivalRateQuery",
		"sum(rate(gateway_requests_admitted_total{model=\"chat\"}"
		"[1m]))\nor vector(0)\n",
		"serviceTimeQuery",
		"sum(rate(vllm:request_inference_time_seconds_sum"
		"{model_name=\"chat\"}[5m]))\n"
		"/ sum(rate(vllm:request_inference_time_seconds_count"
		"{model_name=\"chat\"}[5m]))\n",
		"serviceTime", "8",
		"queueDepthQuery",
		"sum(vllm:num_requests_waiting{model_name=\"chat\"}) "
		"or vector(0)\n",
		"shedRateQuery",
		"sum(rate(gateway_requests_total"
		"{model=\"chat\",code=~\"429|503|504\"}[1m]))\n"
		"or vector(0)\n",
		"currentReplicasQuery",
		"sum(kube_deployment_status_replicas"
		"{namespace=\"llm\",deployment=\"chat\"})\n",
		"slotsPerReplica", "32",
		"staffing", "erlangc",
		"targetWaitSeconds", "2",
		"waitProbability", "0.05",
		"coldStartSeconds", "180",
		"scaleDownStep", "1",
		"scaleDownPeriodSeconds", "60",
		"maxReplicas", "40",
		"metricName", "chat-replicas",
	};
	struct meta_error err;
	struct meta m;

	(void)state;
	if (parse_pairs(&m, kv, COUNT(kv), &err) != META_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(m.model.staffing, MODEL_STAFF_ERLANGC);
	assert_int_equal(m.model.slots_per_replica, 32);
	assert_int_equal(m.model.max_replicas, 40);
	assert_string_equal(m.metric_name, "chat-replicas");
	meta_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_key_suggests),
		cmocka_unit_test(test_unknown_key_no_suggestion),
		cmocka_unit_test(test_from_env),
		cmocka_unit_test(test_defer),
		cmocka_unit_test(test_from_env_and_plain),
		cmocka_unit_test(test_not_a_number),
		cmocka_unit_test(test_trailing_junk),
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_nan_inf),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_out_of_range),
		cmocka_unit_test(test_exclusive_bounds),
		cmocka_unit_test(test_fraction_for_integer),
		cmocka_unit_test(test_parse_number_functions),
		cmocka_unit_test(test_empty_value),
		cmocka_unit_test(test_bad_enum),
		cmocka_unit_test(test_bad_metric_name),
		cmocka_unit_test(test_backend_and_timezone),
		cmocka_unit_test(test_empty_query),
		cmocka_unit_test(test_too_long_query),
		cmocka_unit_test(test_schedule_accepted),
		cmocka_unit_test(test_schedule_grammar_errors),
		cmocka_unit_test(test_schedule_key_errors),
		cmocka_unit_test(test_schedule_window_rules),
		cmocka_unit_test(test_timezone_resolved),
		cmocka_unit_test(test_missing_required),
		cmocka_unit_test(test_erlangc_needs_tau_eps),
		cmocka_unit_test(test_cost_needs_costs),
		cmocka_unit_test(test_no_effect_rules),
		cmocka_unit_test(test_workload_staffing_order),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_rate_window),
		cmocka_unit_test(test_values_stored),
		cmocka_unit_test(test_message_form),
		cmocka_unit_test(test_set_twice_no_leak),
		cmocka_unit_test(test_parse_first_error),
		cmocka_unit_test(test_pool_keys),
		cmocka_unit_test(test_every_key_has_example),
		cmocka_unit_test(test_every_key_documented),
		cmocka_unit_test(test_docs_example),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
