/*
 * meta.c - fuzz targets: ScaledObject metadata and schedules (see fuzz.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

#include "config.h"
#include "decide.h"
#include "meta.h"
#include "model.h"
#include "num.h"
#include "scaler.h"
#include "sched.h"
#include "tz.h"

/* ---- ScaledObject metadata ----------------------------------------------- */

/*
 * A metadata map as text: pairs end in RS (0x1e), key and value are split
 * at the first US (0x1f).  Mutations may add, drop or merge pairs.
 */
#define KV(k, v) k "\x1f" v "\x1e"
#define META_PAIRS_MAX 256

static const char *const meta_corpus[] = {
	KV("arrivalRateQuery", "sum(rate(x[1m]))") KV("serviceTime", "10"),
	KV("scalerAddress", "staffer.keda.svc:9090")
	KV("arrivalRateQuery", "sum(rate(gateway_requests_total[1m])) or "
	   "vector(0)")
	KV("serviceTimeQuery", "sum(rate(a_sum[5m])) / sum(rate(a_count[5m]))")
	KV("serviceTime", "20") KV("queueDepthQuery", "sum(q)")
	KV("shedRateQuery", "sum(rate(shed[1m]))")
	KV("slotsPerReplica", "32") KV("beta", "1.5")
	KV("drainSeconds", "300") KV("maxReplicas", "40"),
	KV("arrivalRateQuery", "a") KV("serviceTime", "2.5")
	KV("staffing", "erlangc") KV("targetWaitSeconds", "2")
	KV("waitProbability", "0.05") KV("workload", "batch"),
	KV("arrivalRateQuery", "a") KV("serviceTime", "1")
	KV("schedule", "Mon-Fri 08:00-19:00 beta=2.0; 22:00-07:00 beta=1 "
	   "scaleDownStep=2") KV("timezone", "Europe/Berlin"),
	KV("arrivalRateQuery", "a") KV("serviceTime", "1")
	KV("schedule", "Sat,Sun 00:00-24:00 staffing=erlangc "
	   "targetWaitSeconds=1 waitProbability=0.1")
	KV("timezone", "Asia/Kolkata"),
	KV("arrivalRateQuery", "a") KV("serviceTimeQuery", "w")
	KV("coldStartSeconds", "30") KV("forecastWindowSeconds", "60")
	KV("forecastMethod", "holt")
	KV("forecastAlpha", "0.8") KV("forecastBeta", "0.5")
	KV("staleHoldSeconds", "4") KV("pushIntervalSeconds", "1")
	KV("metricName", "llama") KV("backend", "amp")
	KV("activationArrivalRate", "0.1") KV("enableTLS", "false"),
	KV("arrivalRateQuery", "a") KV("serviceTime", "3")
	KV("staffing", "cost") KV("targetWaitSeconds", "5")
	KV("costPerReplicaHour", "4") KV("slaPenaltyPerHour", "100")
	KV("shedRateQuery", "s") KV("shedThreshold", "0.5")
	KV("boostFactor", "2")
	KV("scaleDownStep", "3") KV("scaleDownPeriodSeconds", "60")
	KV("currentReplicasQuery", "c") KV("timezone", "UTC"),
	KV("arrivalRateQuery", "a") KV("serviceTime", "3")
	KV("surgeQuantile", "0.99") KV("surgeWindowSeconds", "86400")
	KV("scaleDownHoldOn", "rate") KV("forecastMethod", "none"),
	KV("arrivalRateQuery", "a") KV("pool", "prefill")
	KV("inputTokenRateQuery", "sum(rate(p[1m]))")
	KV("prefillTokensPerSecond", "8700") KV("ttftTargetSeconds", "2")
	KV("kvTransferSeconds", "0.05") KV("prefillCapacityQuery", "max(c)"),
	KV("arrivalRateQuery", "a") KV("pool", "decode")
	KV("outputTokenRateQuery", "sum(rate(g[1m]))")
	KV("inputTokenRateQuery", "sum(rate(p[1m]))")
	KV("itlTargetSeconds", "0.04")
	KV("decodeProfile", "1:0.029,16:0.033,32:0.037,64:0.052")
	KV("slotsPerReplica", "64") KV("kvCacheTokens", "400000")
	KV("kvCacheUsageQuery", "sum(kv)") KV("kvCacheTokensQuery", "max(k)"),
};

static const char *const meta_values[] = {
	"\x1f", "\x1e", "sqrt", "erlangc", "cost", "none", "batch",
	"holt", "answer", "rate",
	"interactive", "0.5", "2", "-1", "1e9", "300", "UTC",
	"Europe/Berlin", "America/New_York", "Australia/Lord_Howe",
	"../../etc/passwd", "/etc/passwd", "Europe/../Berlin", "right/UTC",
	"posix/Asia/Tokyo", "Europe", "Mon-Fri", "Fri-Mon", "08:00-19:00",
	"22:00-07:00", "00:00-24:00", "24:00", "23:59", ";", "=", ",",
	"beta=", "staffing=erlangc", " scaleDownStep=2", "Sun", "mon",
	"default", "amp", "sum(x)", "or vector(0)",
	"prefill", "decode", "unified", "1:0.03,32:0.04", "64:0.05,1:0.02",
	"1:0.02, 2 :0.019", ":", "100000:10",
};

static const char *meta_words[sizeof(meta_values) / sizeof(meta_values[0]) +
			      64];
static size_t meta_nwords;

static void meta_words_init(void)
{
	size_t i, n = meta_key_count();

	if (meta_nwords)
		return;
	for (i = 0; i < sizeof(meta_values) / sizeof(meta_values[0]); i++)
		meta_words[meta_nwords++] = meta_values[i];
	for (i = 0; i < n && meta_nwords < sizeof(meta_words) /
	     sizeof(meta_words[0]); i++)
		meta_words[meta_nwords++] = meta_key_name(i);
}

/* Split text (NUL-terminated, modified) into at most META_PAIRS_MAX pairs. */
static size_t meta_split(char *text, const char **keys, const char **values)
{
	size_t n = 0;
	char *p = text, *end, *us;

	while (*p && n < META_PAIRS_MAX) {
		end = strchr(p, '\x1e');
		if (end)
			*end = '\0';
		us = strchr(p, '\x1f');
		if (us)
			*us = '\0';
		keys[n] = p;
		values[n] = us ? us + 1 : "";
		n++;
		if (!end)
			break;
		p = end + 1;
	}
	return n;
}

static int fz_finite_all(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

/*
 * A parsed trigger the model must accept: every number finite, and with
 * any window of the schedule in force the parameters lie in the model's
 * domain (the ranges meta promises are the ones model_evaluate checks).
 */
void meta_check_result(const struct meta *m)
{
	/* small, and large enough for the staffing limits */
	static const struct model_signals sigs[] = {
		{ 2, 10, 3, 0, 0, 0, 0, 0, 0 },
		{ 500, 60, 1e4, 50, 800, 0, 0, 2, 0 },
	};
	struct model_breakdown b;
	struct meta at;
	const char *win;
	enum model_err me;
	int64_t t;
	unsigned i;

	FZ_CHECK(m->arrival_rate_query && m->arrival_rate_query[0],
		 "no arrivalRateQuery after success");
	FZ_CHECK(m->sched.n <= SCHED_WINDOWS_MAX, "%u windows", m->sched.n);
	FZ_CHECK(strnlen(m->metric_name, META_NAME_MAX) < META_NAME_MAX,
		 "metric name not terminated");
	/* Every half hour of a week, from a Monday, in the zone's time. */
	for (i = 0; i < 7 * 48; i++) {
		t = tz_from_local(m->tz, 1782691200LL + (int64_t)i * 1800);
		win = meta_at(m, (time_t)t, &at);
		FZ_CHECK(!win || strlen(win) < SCHED_TEXT_MAX,
			 "window text");
		{
			double d[] = {
				at.service_time_s, at.cold_start_s,
				at.forecast_window_s, at.forecast_alpha,
				at.forecast_beta, at.scale_down_period_s,
				at.stale_hold_s, at.push_interval_s,
				at.model.beta, at.model.target_wait_s,
				at.model.wait_probability, at.model.drain_s,
				at.model.shed_threshold,
				at.model.boost_factor,
				at.model.cost_per_replica_hour,
				at.model.sla_penalty_per_hour,
				at.model.activation_arrival_rate,
				at.scale_down_hold_s, at.rate_window_s,
				at.peakedness, at.peakedness_max,
			};

			FZ_CHECK(fz_finite_all(d, sizeof(d) / sizeof(d[0])),
				 "a number is not finite in window '%s'",
				 win ? win : "(none)");
		}
		FZ_CHECK(at.scale_down_step >= 1 &&
			 at.model.slots_per_replica >= 1 &&
			 at.model.max_replicas >= 0,
			 "step %ld slots %ld max %ld", at.scale_down_step,
			 at.model.slots_per_replica, at.model.max_replicas);
		me = model_evaluate(&at.model, &sigs[i % 2], &b);
		FZ_CHECK(me != MODEL_EINVAL, "model refuses the parameters "
			 "of window '%s'", win ? win : "(none)");
		FZ_CHECK(at.rate_window_s > 0 && meta_hold_seconds(&at) >= 0,
			 "rate window %g hold %g", at.rate_window_s,
			 meta_hold_seconds(&at));
		/* The whole decision, with a series that the forecast, the
		 * hold and the peakedness read. */
		{
			static const double series[] = {
				1, 3, 2, 5, 4, 6, 5, 8, 7, 9, 8, 10, 9, 12,
				11, 13, 12, 14, 13, 15, 14, 16, 15, 17,
			};
			struct decide_obs o;
			struct model_signals sg;
			struct decision d;
			enum decide_err de;

			memset(&o, 0, sizeof(o));
			o.arrival_rate = sigs[i % 2].arrival_rate;
			o.queue_depth = sigs[i % 2].queue_depth;
			o.w_measured = sigs[i % 2].service_time_s;
			o.series = series;
			o.n_series = sizeof(series) / sizeof(series[0]);
			o.series_step_s = 15;
			de = decide_observations(&at, &o, 0, NULL, &sg, &d,
						 &me);
			FZ_CHECK(de == DECIDE_OK || (de == DECIDE_EMODEL &&
						     me == MODEL_ERANGE),
				 "decide refuses window '%s' (%d/%d)",
				 win ? win : "(none)", (int)de, (int)me);
		}
	}
}

/* Keys that take numbers, and numbers at and around their bounds. */
static const char *const meta_num_keys[] = {
	"serviceTime", "slotsPerReplica", "beta", "targetWaitSeconds",
	"waitProbability", "drainSeconds", "shedThreshold", "boostFactor",
	"scaleDownStep", "scaleDownPeriodSeconds", "coldStartSeconds",
	"forecastWindowSeconds", "forecastAlpha", "forecastBeta",
	"costPerReplicaHour", "slaPenaltyPerHour", "maxReplicas",
	"activationArrivalRate", "staleHoldSeconds", "pushIntervalSeconds",
	"scaleDownHoldSeconds", "rateWindowSeconds", "metricsLagSeconds",
	"peakedness", "peakednessMax", "forecastDamping", "surgeQuantile",
	"surgeWindowSeconds", "prefillTokensPerSecond", "kvCacheTokens",
	"ttftTargetSeconds", "kvTransferSeconds", "itlTargetSeconds",
};

static const char *const meta_num_values[] = {
	"0", "-0", "1e-300", "4.9e-324", "1e-9", "0.5", "0.999999999", "1",
	"1.0000001", "2", "10", "59.999", "60", "3600", "3600.001", "86400",
	"86400.5", "1e6", "1e9", "1e9.5", "2147483647", "2147483648",
	"100000", "100001", "-1e-300", "-1", "auto", "off",
};

static const char *meta_pick(struct fz *r, const char *const *a, size_t n)
{
	return a[fz_below(r, n)];
}

#define META_PICK(r, a) meta_pick(r, a, sizeof(a) / sizeof((a)[0]))

/* A map of the required keys, numbers at their bounds, a staffing mode
 * and sometimes a schedule whose windows override numbers too. */
static void meta_gen(struct fz *r, struct fz_buf *b)
{
	static const char *const staffing[] = {
		"sqrt", "erlangc", "cost", "none",
	};
	static const char *const zones[] = {
		"UTC", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kolkata",
	};
	size_t i, n = fz_below(r, 8), w, k;

	fz_puts(b, KV("arrivalRateQuery", "a"));
	if (!fz_one_in(r, 8))
		fz_append(b, "serviceTime\x1f%s\x1e",
			  META_PICK(r, meta_num_values));
	if (fz_one_in(r, 2))
		fz_append(b, "staffing\x1f%s\x1e", META_PICK(r, staffing));
	for (i = 0; i < n; i++)
		fz_append(b, "%s\x1f%s\x1e", META_PICK(r, meta_num_keys),
			  META_PICK(r, meta_num_values));
	if (fz_one_in(r, 2)) {
		fz_puts(b, "schedule\x1f");
		for (w = 0, n = 1 + fz_below(r, 3); w < n; w++) {
			fz_append(b, "%s%s %02zu:00-%02zu:00", w ? "; " : "",
				  sched_day_name((int)w), fz_below(r, 24),
				  fz_below(r, 25));
			for (k = 0; k < 1 + fz_below(r, 3); k++)
				fz_append(b, " %s=%s",
					  fz_one_in(r, 4) ? "staffing" :
					  META_PICK(r, meta_num_keys),
					  META_PICK(r, meta_num_values));
		}
		fz_append(b, "\x1etimezone\x1f%s\x1e", META_PICK(r, zones));
	}
}

struct config meta_cfg;
struct scaler *meta_scaler;

static void check_meta(struct fz *r, const char *in, size_t len, int valid)
{
	const char *keys[META_PAIRS_MAX], *values[META_PAIRS_MAX];
	char *text = fz_copy(in, len, 1);
	char msg[SCALER_MSG_MAX], quoted[META_NAME_MAX + 2];
	struct meta_error err;
	struct meta m, m2;
	enum meta_err rc;
	enum scaler_err se;
	size_t n = meta_split(text, keys, values);

	(void)r;
	meta_init(&m);
	memset(&err, 'x', sizeof(err));
	rc = meta_parse(&m, keys, values, n, &err);
	FZ_CHECK(rc >= META_OK && rc <= META_ENOMEM, "unknown code %d",
		 (int)rc);
	FZ_CHECK(!valid || rc == META_OK, "valid metadata refused: %s",
		 err.msg);
	if (rc == META_OK) {
		fz_accepted++;
		meta_check_result(&m);
	} else {
		FZ_CHECK(err.code == rc, "err.code %d, returned %d",
			 (int)err.code, (int)rc);
		FZ_CHECK(strnlen(err.key, sizeof(err.key)) < sizeof(err.key),
			 "err.key not terminated");
		fz_check_msg(err.msg, sizeof(err.msg), "meta_parse");
		/* the message names the key it is about */
		snprintf(quoted, sizeof(quoted), "'%s'", err.key);
		FZ_CHECK(strstr(err.msg, quoted) != NULL,
			 "'%s' does not name key %s", err.msg, quoted);
	}
	/* What the server runs: the same verdict, plus the backend. */
	meta_init(&m2);
	memset(msg, 'x', sizeof(msg));
	se = scaler_parse(meta_scaler, "fuzz", &m2, keys, values, n, msg);
	FZ_CHECK(se == SCALER_OK || se == SCALER_EINVAL, "scaler code %d",
		 (int)se);
	FZ_CHECK((se == SCALER_OK) <= (rc == META_OK),
		 "scaler_parse accepts what meta_parse refuses");
	if (se != SCALER_OK)
		fz_check_msg(msg, sizeof(msg), "scaler_parse");
	meta_release(&m2);
	meta_release(&m);
	free(text);
}

void test_fuzz_meta(void **state)
{
	struct fz_target t = {
		"meta", meta_corpus,
		sizeof(meta_corpus) / sizeof(meta_corpus[0]),
		{ NULL, 0 }, 20000, check_meta, meta_gen, 3,
		NULL, NULL,
	};

	(void)state;
	meta_words_init();
	t.dict.w = meta_words;
	t.dict.n = meta_nwords;
	fz_run(&t);
}

/* ---- schedule ------------------------------------------------------------ */

static const char *const sched_corpus[] = {
	"Mon-Fri 08:00-19:00 beta=2.0; 22:00-07:00 beta=1 scaleDownStep=2",
	"Sat,Sun 00:00-24:00 beta=0.5",
	"Fri-Mon 22:00 - 07:00 beta = 3",
	"mon,WED , fri 12:00-12:30 beta=1;;; tue 00:00-24:00 x=2",
	"; 23:59-00:01 x=0 beta=9",
};

static const char *const sched_words[] = {
	"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", "mon", "SUN", "-",
	",", ";", "=", " ", "00:00", "24:00", "23:59", "12:30", "08:00-19:00",
	"22:00-07:00", "beta=1", "x=2", "scaleDownStep=3", "beta", "x",
	"unknown=1", "beta=abc", "99:99", "1:00", "0:0", "Mon-Mon",
	"Mon-Fri 08:00-19:00 beta=2;",
};

static const char *const sched_keys[] = { "beta", "scaleDownStep", "x" };

/* The test's keys: three known ones, values numbers from 0 to 100. */
static int sched_resolve(void *ctx, const char *key, const char *value,
			 struct sched_override *o, char *why, size_t size)
{
	double v;
	size_t i;

	(void)ctx;
	for (i = 0; i < sizeof(sched_keys) / sizeof(sched_keys[0]); i++) {
		if (strcmp(key, sched_keys[i]))
			continue;
		if (num_parse_double(value, &v) || v < 0 || v > 100) {
			snprintf(why, size, "a value that is not a number "
				 "from 0 to 100");
			return -1;
		}
		o->key = (int)i;
		o->value = v;
		return 0;
	}
	snprintf(why, size, "an unknown key");
	return -1;
}

/* Whether two parsed schedules are the same windows. */
static int sched_same(const struct sched *a, const struct sched *b)
{
	unsigned i, j;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++) {
		const struct sched_window *x = &a->w[i], *y = &b->w[i];

		if (x->days != y->days || x->start != y->start ||
		    x->len != y->len || x->n != y->n ||
		    strcmp(sched_window_text(a, i), sched_window_text(b, i)))
			return 0;
		for (j = 0; j < x->n; j++)
			if (a->o[x->first + j].key != b->o[y->first + j].key ||
			    a->o[x->first + j].value !=
			    b->o[y->first + j].value)
				return 0;
	}
	return 1;
}

static struct sched sched_a, sched_b;  /* big: not on the stack */

static void check_sched(struct fz *r, const char *in, size_t len, int valid)
{
	char *text = fz_copy(in, len, 1);
	char msg[SCHED_ERR_MAX], again[SCHED_TEXT_MAX * 2];
	enum sched_err rc;
	unsigned i, total = 0;
	int mow, found, covers;
	size_t at = 0;

	(void)r;
	memset(msg, 'x', sizeof(msg));
	rc = sched_parse(&sched_a, text, sched_resolve, NULL, msg,
			 sizeof(msg));
	FZ_CHECK(rc >= SCHED_OK && rc <= SCHED_ELIMIT, "unknown code %d",
		 (int)rc);
	FZ_CHECK(!valid || rc == SCHED_OK, "valid schedule refused: %s", msg);
	if (rc != SCHED_OK) {
		fz_check_msg(msg, sizeof(msg), "sched_parse");
		goto out;
	}
	fz_accepted++;
	FZ_CHECK(sched_a.n <= SCHED_WINDOWS_MAX, "%u windows", sched_a.n);
	for (i = 0; i < sched_a.n; i++) {
		const struct sched_window *w = &sched_a.w[i];

		FZ_CHECK(w->days >= 1 && w->days <= 0x7f, "days 0x%x",
			 w->days);
		FZ_CHECK(w->start < 1440 && w->len >= 1 && w->len <= 1440,
			 "start %u len %u", w->start, w->len);
		FZ_CHECK(w->n >= 1 && w->first + w->n <= SCHED_OVERRIDES_MAX,
			 "overrides %u..%u", w->first, w->first + w->n);
		FZ_CHECK(w->text < SCHED_TEXT_MAX &&
			 strnlen(sched_a.text + w->text,
				 SCHED_TEXT_MAX - w->text) <
			 SCHED_TEXT_MAX - w->text, "window %u text", i);
		total += w->n;
	}
	FZ_CHECK(total <= SCHED_OVERRIDES_MAX, "%u overrides", total);
	/* No minute in two windows, and sched_find agrees. */
	for (mow = 0; mow < SCHED_WEEK; mow++) {
		found = -1;
		covers = 0;
		for (i = 0; i < sched_a.n; i++) {
			if (sched_covers(&sched_a.w[i], mow)) {
				covers++;
				found = (int)i;
			}
		}
		FZ_CHECK(covers <= 1, "minute %d in %d windows", mow, covers);
		FZ_CHECK(sched_find(&sched_a, mow) == found,
			 "sched_find(%d) = %d, expected %d", mow,
			 sched_find(&sched_a, mow), found);
	}
	/* Idempotence: the windows' normalised texts parse to the same. */
	for (i = 0; i < sched_a.n; i++)
		at += (size_t)snprintf(again + at, sizeof(again) - at, "%s%s",
				       i ? "; " : "",
				       sched_window_text(&sched_a, i));
	FZ_CHECK(at < sizeof(again), "normalised text too long");
	rc = sched_parse(&sched_b, again, sched_resolve, NULL, msg,
			 sizeof(msg));
	FZ_CHECK(rc == SCHED_OK, "normalised '%s' refused: %s", again, msg);
	FZ_CHECK(sched_same(&sched_a, &sched_b), "normalised '%s' parses "
		 "differently", again);
out:
	free(text);
}

FZ_TEST(sched, sched_corpus, sched_words,
	20000, check_sched, NULL, 1)
