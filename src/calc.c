/*
 * calc.c - `staffer calc key=value ...`: the model on given numbers.
 *
 * Takes every metadata key (same parser, same messages as the server) and
 * the signals arrivalRate, serviceTime, queueDepth and shedRate, and prints
 * each term of the decision, or one JSON object with --json.
 *
 * arrivalRateSeries=v1,v2,... stands for the range query the server makes
 * (oldest first, the last value now, stepSeconds apart; default
 * forecast_step_seconds(forecastWindowSeconds)): the forecast, the hold and
 * the peakedness come from it exactly as the server makes them
 * (decide_observations).  Without arrivalRate, arrivalRate is the series'
 * last value: the instant query and the range query's last point read the
 * same expression at the same time.  currentReplicas=N stands for
 * currentReplicasQuery's answer, to see what scale-down would do.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ascii.h"
#include "cmd.h"
#include "decide.h"
#include "forecast.h"
#include "meta.h"
#include "num.h"
#include "opt.h"
#include "model.h"
#include "report.h"
#include "sched.h"
#include "tz.h"

#define SIGNAL_MAX 1e9   /* req/s or requests; far beyond any fleet */
#define SERIES_MAX 1000  /* values in arrivalRateSeries */
#define SERIES_NUM_MAX 64 /* bytes in one value of it, with NUL */
#define STEP_MAX 86400.0 /* stepSeconds */

/* The series calc was given and the forecast made from it. */
struct calc_series {
	double vals[SERIES_MAX];
	size_t n;             /* 0: no series */
	double miss[SERIES_MAX]; /* slaMissSeries */
	size_t n_miss;        /* 0: none, no SLO feedback */
	double tokens[SERIES_MAX]; /* inputTokenRateSeries */
	size_t n_tokens;      /* 0: none */
	double step_s;        /* 0: not given */
	int have_rate;        /* arrivalRate was given */
	int have_signal;      /* any signal was given, 0 included */
	int have_tokens;      /* a pool's token signal was given */
	int have_input;       /* inputTokenRate was given */
	long current;         /* currentReplicas, or -1 */
	double cold;          /* coldStart, as coldStartQuery; 0: none */
	/* the time of the decision (now=) and the schedule window then */
	const char *now_arg;  /* NULL: the current time */
	char when[TZ_TIME_MAX];
	const char *day, *zone, *window;
	struct pool_signals pool; /* a pool's token signals (pool.h) */
};

/* A pool's signals calc takes (pool prefill or decode). */
static const struct {
	const char *key;
	size_t off;
	const char *unit;
} pool_signals[] = {
	{ "inputTokenRate", offsetof(struct pool_signals, input_rate),
	  "tokens/s" },
	{ "outputTokenRate", offsetof(struct pool_signals, output_rate),
	  "tokens/s" },
	{ "kvCacheUsage", offsetof(struct pool_signals, kv_used), "tokens" },
};

/* The signals calc takes besides metadata (serviceTime is both). */
static const struct {
	const char *key;
	size_t off;
	const char *unit;
} signals[] = {
	{ "arrivalRate", offsetof(struct model_signals, arrival_rate),
	  "req/s" },
	{ "queueDepth", offsetof(struct model_signals, queue_depth),
	  "requests" },
	{ "shedRate", offsetof(struct model_signals, shed_rate), "req/s" },
};

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: staffer calc [--json] key=value ...\n"
"  signals: arrivalRate (req/s), serviceTime (s), queueDepth (requests),\n"
"           shedRate (req/s); missing ones are 0\n"
"  series:  arrivalRateSeries=v1,v2,... (req/s, oldest first, up to %d)\n"
"           stepSeconds (default forecastWindowSeconds / 40, 5 to 60):\n"
"           the range query behind the forecast, the hold and the\n"
"           peakedness; arrivalRate defaults to the last value\n"
"  inputTokenRateSeries=t1,t2,...  a prefill pool's input tokens/s at\n"
"           stepSeconds, ending now, as inputTokenRateQuery's range: the\n"
"           prompt tokens' peakedness, for ttftTargetSeconds;\n"
"           inputTokenRate defaults to the last value\n"
"  slaMissSeries=m1,m2,...  the share of requests that missed the wait\n"
"           SLA (0 to 1, oldest first, at stepSeconds, ending now), as\n"
"           slaMissQuery's range query: the SLO feedback's correction\n"
"  currentReplicas=N  the replicas now (as currentReplicasQuery), to see\n"
"           what scale-down does\n"
"  coldStart=S  the cold start coldStartQuery measured (s, above 0, at\n"
"           most %g), in place of coldStartSeconds\n"
"  pools:   with pool=prefill or pool=decode, inputTokenRate and\n"
"           outputTokenRate (tokens/s) and kvCacheUsage (KV tokens in\n"
"           use in the pool), as their queries read them\n"
"  tuning:  any ScaledObject metadata key (docs/metadata.md), e.g.\n"
"           beta=2 slotsPerReplica=32 staffing=erlangc\n"
"  now=TIME the time of the decision, for schedule windows: an ISO time\n"
"           (2026-07-01T09:00, in the trigger's timezone, or with Z or an\n"
"           offset) or @unixseconds; default: the current time\n"
"example: staffer calc arrivalRate=2 serviceTime=10 beta=1.5   -> 27\n",
		SERIES_MAX, META_COLD_START_MAX);
}

/* A signal's value: 0 ok, -1 bad (message printed). */
static int read_signal(const char *key, const char *val, const char *unit,
		       double *out)
{
	double v;

	if (num_parse_double(val, &v)) {
		fprintf(stderr, "staffer calc: '%s': '%.60s' is not a "
			"number; allowed: a number from 0 to %g %s\n",
			key, val, SIGNAL_MAX, unit);
		return -1;
	}
	if (v < 0 || v > SIGNAL_MAX) {
		fprintf(stderr, "staffer calc: '%s': '%.60s' is out of "
			"range; allowed: a number from 0 to %g %s\n",
			key, val, SIGNAL_MAX, unit);
		return -1;
	}
	*out = v;
	return 0;
}

/* Parse one signal; 1 if key is not a signal, 0 ok, -1 bad value. */
static int set_signal(struct model_signals *s, struct pool_signals *ps,
		      const char *key, const char *val)
{
	size_t i;

	for (i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (!strcmp(key, signals[i].key))
			return read_signal(key, val, signals[i].unit,
					   (double *)((char *)s +
						      signals[i].off));
	for (i = 0; i < sizeof(pool_signals) / sizeof(pool_signals[0]); i++)
		if (!strcmp(key, pool_signals[i].key))
			return read_signal(key, val, pool_signals[i].unit,
					   (double *)((char *)ps +
						      pool_signals[i].off));
	return 1;
}

/* A comma-separated list of numbers: arrivalRateSeries (0 to SIGNAL_MAX
 * req/s), slaMissSeries (shares, 0 to 1) or inputTokenRateSeries (0 to
 * SIGNAL_MAX tokens/s). */
struct calc_list {
	const char *key;
	double max;
	const char *unit;
};

static const struct calc_list list_rate = { "arrivalRateSeries",
					    SIGNAL_MAX, " req/s" };
static const struct calc_list list_miss = { "slaMissSeries", 1,
					    " (shares of requests)" };
static const struct calc_list list_tokens = { "inputTokenRateSeries",
					      SIGNAL_MAX, " tokens/s" };

/* Ends every list message: what is allowed. */
static void list_allowed(const struct calc_list *l)
{
	fprintf(stderr, "; allowed: 1 to %d comma-separated numbers from 0 "
		"to %g%s, oldest first\n", SERIES_MAX, l->max, l->unit);
}

/* Parse a list into vals[SERIES_MAX] and *n; 0 ok, -1 bad value (message
 * printed). */
static int set_list(const struct calc_list *l, double *vals, size_t *nout,
		    const char *val)
{
	char num[SERIES_NUM_MAX];
	const char *p, *end, *bad;
	size_t i, n = 1, len;
	double v;

	if (!*val) {
		fprintf(stderr, "staffer calc: '%s' is empty", l->key);
		list_allowed(l);
		return -1;
	}
	for (p = val; *p; p++)
		n += *p == ',';
	if (n > SERIES_MAX) {
		fprintf(stderr, "staffer calc: '%s': %zu values, more than %d",
			l->key, n, SERIES_MAX);
		list_allowed(l);
		return -1;
	}
	for (i = 0, p = val; i < n; i++, p = end + 1) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		len = (size_t)(end - p);
		if (len == 0) {
			fprintf(stderr, "staffer calc: '%s': value %zu of %zu "
				"is empty", l->key, i + 1, n);
			list_allowed(l);
			return -1;
		}
		/* Cut for the message only: a value this long is refused,
		 * never read from its first bytes. */
		memcpy(num, p, len < sizeof(num) ? len : sizeof(num) - 1);
		num[len < sizeof(num) ? len : sizeof(num) - 1] = '\0';
		bad = len >= sizeof(num) ? "too long to be a number" :
		      num_parse_double(num, &v) ? "not a number" :
		      v < 0 || v > l->max ? "out of range" : NULL;
		if (bad) {
			fprintf(stderr, "staffer calc: '%s': value %zu of %zu, "
				"'%.40s', is %s", l->key, i + 1, n, num, bad);
			list_allowed(l);
			return -1;
		}
		vals[i] = v;
	}
	*nout = n;
	return 0;
}

static int set_step(struct calc_series *c, const char *val)
{
	const char *bad;
	double v;

	bad = num_parse_double(val, &v) ? "not a number" :
	      !(v > 0) || v > STEP_MAX ? "out of range" : NULL;
	if (bad) {
		fprintf(stderr, "staffer calc: 'stepSeconds': '%.60s' is %s; "
			"allowed: a number above 0 up to %g seconds "
			"(default: forecastWindowSeconds / 40, 5 to 60)\n",
			val, bad, STEP_MAX);
		return -1;
	}
	c->step_s = v;
	return 0;
}

/* Print the decision through report.h.  0, or -1 (out of memory). */
static int print_decision(const struct meta *m, const struct calc_series *c,
			  const struct model_signals *s,
			  const struct decision *d, const struct decide_obs *o,
			  int json)
{
	struct report r;
	cJSON *j;
	char *text = NULL;

	memset(&r, 0, sizeof(r));
	r.m = m;
	r.s = s;
	r.d = d;
	r.o = o;
	r.lambda_note = c->n > 0 && !c->have_rate ? " (last of series)" : NULL;
	r.no_series = "no arrivalRateSeries given";
	r.when = c->when;
	r.day = c->day;
	r.zone = c->zone;
	r.window = c->window;
	if (!json) {
		report_text(stdout, &r);
		return 0;
	}
	j = cJSON_CreateObject();
	if (j && !report_json(j, &r))
		text = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	if (!text)
		return -1;
	printf("%s\n", text);
	free(text);
	return 0;
}

/* calc's own keys, which are not metadata. */
static const char *const calc_keys[] = {
	"arrivalRate", "queueDepth", "shedRate", "arrivalRateSeries",
	"slaMissSeries", "stepSeconds", "currentReplicas", "coldStart", "now",
	"inputTokenRate", "outputTokenRate", "kvCacheUsage",
	"inputTokenRateSeries",
};

/* A key that is one of calc's own but for case ("arrivalrate"): say so
 * (metadata's suggestion would name a metadata key); 1 when said. */
static int calc_own_near(const char *key)
{
	size_t i, j;

	for (i = 0; i < sizeof(calc_keys) / sizeof(calc_keys[0]); i++) {
		for (j = 0; key[j] && calc_keys[i][j] &&
		     ascii_fold((unsigned char)key[j]) ==
		     ascii_fold((unsigned char)calc_keys[i][j]); j++)
			;
		if (!key[j] && !calc_keys[i][j]) {
			fprintf(stderr, "staffer calc: '%.60s' is not a known "
				"key; did you mean '%s'?\n", key,
				calc_keys[i]);
			return 1;
		}
	}
	return 0;
}

/* Parse currentReplicas; 0 ok, -1 bad value (message printed). */
static int set_current(struct calc_series *c, const char *val)
{
	long v;

	if (num_parse_long(val, &v) || v < 0 || v > MODEL_REPLICAS_MAX) {
		fprintf(stderr, "staffer calc: 'currentReplicas': '%.60s' is "
			"not allowed; allowed: a whole number from 0 to %lld\n",
			val, (long long)MODEL_REPLICAS_MAX);
		return -1;
	}
	c->current = v;
	return 0;
}

/* Parse coldStart; 0 ok, -1 bad value (message printed). */
static int set_cold(struct calc_series *c, const char *val)
{
	double v;

	if (num_parse_double(val, &v) || !(v > 0) ||
	    v > META_COLD_START_MAX) {
		fprintf(stderr, "staffer calc: 'coldStart': '%.60s' is not "
			"allowed; allowed: seconds above 0, at most %g\n", val,
			META_COLD_START_MAX);
		return -1;
	}
	c->cold = v;
	return 0;
}

/* Take one key=value that is not metadata; 1 if key is none of ours,
 * 0 ok, -1 bad value (message printed). */
static int set_input(struct model_signals *s, struct calc_series *c,
		     const char *key, const char *val)
{
	int r;

	if (!strcmp(key, "arrivalRateSeries"))
		return set_list(&list_rate, c->vals, &c->n, val);
	if (!strcmp(key, "slaMissSeries"))
		return set_list(&list_miss, c->miss, &c->n_miss, val);
	if (!strcmp(key, "inputTokenRateSeries"))
		return set_list(&list_tokens, c->tokens, &c->n_tokens, val);
	if (!strcmp(key, "stepSeconds"))
		return set_step(c, val);
	if (!strcmp(key, "currentReplicas"))
		return set_current(c, val);
	if (!strcmp(key, "coldStart"))
		return set_cold(c, val);
	r = set_signal(s, &c->pool, key, val);
	if (r == 0)
		c->have_signal = 1;
	if (r == 0 && (!strcmp(key, "inputTokenRate") ||
		       !strcmp(key, "outputTokenRate") ||
		       !strcmp(key, "kvCacheUsage")))
		c->have_tokens = 1;
	if (r == 0 && !strcmp(key, "arrivalRate"))
		c->have_rate = 1;
	if (r == 0 && !strcmp(key, "inputTokenRate"))
		c->have_input = 1;
	return r;
}

/*
 * The observations the server would have, from what calc was given: the
 * signals, the series (step defaulted) and currentReplicas.  0 ok, 2 bad
 * input (message printed).
 */
static int observations(const struct meta *m, const struct model_signals *s,
			struct calc_series *c, struct decide_obs *o)
{
	double range, step;

	if (c->step_s > 0 && c->n == 0 && c->n_miss == 0) {
		fprintf(stderr, "staffer calc: 'stepSeconds' has no effect "
			"without 'arrivalRateSeries' or 'slaMissSeries'\n");
		return 2;
	}
	if (c->cold > 0 && !(m->cold_start_s > 0)) {
		fprintf(stderr, "staffer calc: 'coldStart' has no effect while "
			"'coldStartSeconds' is 0 (the forecast and the hold are "
			"off)\n");
		return 2;
	}
	if (c->have_tokens && m->pool.kind == POOL_UNIFIED) {
		fprintf(stderr, "staffer calc: 'inputTokenRate', "
			"'outputTokenRate' and 'kvCacheUsage' have no effect "
			"with pool unified; give pool=prefill or pool=decode\n");
		return 2;
	}
	if (c->n_tokens > 0 && !(m->pool.kind == POOL_PREFILL &&
				 m->pool.ttft_target_s > 0)) {
		fprintf(stderr, "staffer calc: 'inputTokenRateSeries' has no "
			"effect without pool=prefill and ttftTargetSeconds "
			"(its peakedness is the TTFT target's)\n");
		return 2;
	}
	if (c->n_tokens > 0 && c->n == 0) {
		fprintf(stderr, "staffer calc: 'inputTokenRateSeries' needs "
			"'arrivalRateSeries' at the same step (the mean "
			"prompt is the one over the other)\n");
		return 2;
	}
	memset(o, 0, sizeof(*o));
	o->arrival_rate = s->arrival_rate;
	o->pool = c->pool;
	if (c->cold > 0) {
		o->have_cold = 1;
		o->cold_measured = c->cold;
	}
	o->queue_depth = s->queue_depth;
	o->shed_rate = s->shed_rate;
	if (c->n > 0 || c->n_miss > 0) {
		decide_series_query(m, &range, &step);
		if (!(c->step_s > 0))
			c->step_s = step;
	}
	if (c->n_miss > 0) {
		o->miss = c->miss;
		o->n_miss = c->n_miss;
		o->series_step_s = c->step_s;
	}
	if (c->n > 0) {
		if (!c->have_rate)
			o->arrival_rate = c->vals[c->n - 1];
		o->series = c->vals;
		o->n_series = c->n;
		o->series_step_s = c->step_s;
	}
	if (c->n_tokens > 0) {
		if (!c->have_input)
			o->pool.input_rate = c->tokens[c->n_tokens - 1];
		o->tokens = c->tokens;
		o->n_tokens = c->n_tokens;
	}
	if (c->current >= 0) {
		o->have_view = 1;
		o->current = c->current;
		o->recent_max = c->current;
	}
	return 0;
}

/* What calc's arguments fill. */
struct calc_args {
	struct meta *m;
	struct model_signals *s;
	struct calc_series *c;
	int json;
};

/* One key=value: a signal, now=, or metadata. */
static int calc_arg(void *ctx, const char *prog, const char *a)
{
	struct calc_args *ca = ctx;
	struct meta_error err;
	char key[META_NAME_MAX];
	size_t klen = opt_key_value(prog, a, sizeof(key));
	const char *v = a + klen + 1;
	int r;

	if (!klen)
		return 2;
	memcpy(key, a, klen);
	key[klen] = '\0';
	if (!strcmp(key, "now")) {
		ca->c->now_arg = v;
		return 0;
	}
	r = set_input(ca->s, ca->c, key, v);
	if (r <= 0)
		return r < 0 ? 2 : 0;
	if (calc_own_near(key))
		return 2;
	if (meta_set(ca->m, key, v, &err) != META_OK) {
		fprintf(stderr, "%s: %s\n", prog, err.msg);
		return 2;
	}
	return 0;
}

static const struct opt calc_opts[] = {
	OPT_F("--json", offsetof(struct calc_args, json)),
	OPT_END,
};

static const struct opt_spec calc_spec = {
	"staffer calc", calc_opts, usage, calc_arg
};

int cmd_calc(int argc, char **argv)
{
	enum opt_rc r;
	struct meta m;
	struct meta_error err;
	struct model_signals s;
	struct decide_obs o;
	struct decision d;
	struct calc_series *c;
	enum model_err merr = MODEL_OK;
	struct calc_args ca;
	time_t now;
	int json = 0, rc = 2;

	meta_init(&m);
	memset(&s, 0, sizeof(s));
	c = calloc(1, sizeof(*c));
	if (!c) {
		fprintf(stderr, "staffer calc: out of memory\n");
		rc = 1;
		goto out;
	}
	c->current = -1;
	ca.m = &m;
	ca.s = &s;
	ca.c = c;
	ca.json = 0;
	r = opt_parse(&calc_spec, argc, argv, &ca);
	if (r != OPT_OK) {
		rc = opt_status(r);
		goto out;
	}
	json = ca.json;
	if (!c->n && !c->have_signal) {
		fprintf(stderr, "staffer calc: no signal given; give "
			"arrivalRate (req/s) and serviceTime (s), or "
			"arrivalRateSeries, queueDepth or shedRate\n");
		usage(stderr);
		goto out;
	}
	if (meta_check(&m, 0, &err) != META_OK) {
		fprintf(stderr, "staffer calc: %s\n", err.msg);
		goto out;
	}
	/* The schedule window in force at now= (or now) tunes the answer,
	 * exactly as the server applies it at the time of the call. */
	now = time(NULL);
	if (c->now_arg && meta_parse_time(&m, c->now_arg, &now, &err) !=
	    META_OK) {
		fprintf(stderr, "staffer calc: %s\n", err.msg);
		goto out;
	}
	c->window = meta_at(&m, now, &m);
	tz_format(m.tz, (int64_t)now, c->when, sizeof(c->when));
	c->day = sched_day_name(tz_weekday(m.tz, (int64_t)now));
	c->zone = tz_name(m.tz);
	rc = observations(&m, &s, c, &o);
	if (rc != 0)
		goto out;
	switch (decide_observations(&m, &o, (double)now, NULL, &s, &d,
				    &merr)) {
	case DECIDE_OK:
		break;
	case DECIDE_ENOW:
		fprintf(stderr, "staffer calc: there is demand but no service "
			"time: give serviceTime > 0\n");
		rc = 2;
		goto out;
	case DECIDE_EMODEL:
		fprintf(stderr, "staffer calc: cannot staff these signals: "
			"%s\n", model_strerror(merr));
		rc = 1;
		goto out;
	}
	if (print_decision(&m, c, &s, &d, &o, json)) {
		rc = 1;
		goto out;
	}
	rc = 0;
out:
	free(c);
	meta_release(&m);
	return rc;
}
