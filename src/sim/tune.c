/*
 * tune.c - `staffer tune`: tune a trigger's metadata on its own history.
 *
 * It reads the trigger as `staffer explain` does (trigsel.h: --file,
 * --name, --trigger, key=value over it; the same metadata parser), reads
 * its own signals over --range from the same backend (tunehist.h: the
 * arrivalRateQuery at --step, serviceTimeQuery on the same grid, chunked
 * within Prometheus' points per query) or takes --trace FILE offline,
 * turns the rates into Poisson arrivals (trace_from_rates, as `staffer
 * simulate --rates` replays a rate file), gives each request a service
 * time of mean W at its arrival, cuts the traffic into a training part
 * and a held-out last part (tunesearch.h), searches the tunable keys on
 * the training part by simulating the fleet (sim.h, the server's own
 * decision code through policy.h), and checks the pick against the
 * current metadata on the held-out part.  docs/tuning.md documents it.
 *
 * Gaps: a point the backend does not return is missing, never zero; the
 * replay interpolates across it (tune_fill), and a part with less than
 * TUNE_COVERAGE_MIN of its points present is too sparse to tune on.
 *
 * The guard: on the training part a configuration counts as reaching the
 * target only with TUNE_GUARD of the misses the target allows to spare
 * (0.992 for a target of 0.99), so that a pick that only just reaches it
 * there still does on a day it has not seen; the held-out check uses the
 * target itself.
 *
 * Exit status as explain's: 0 an answer (a recommendation, or "keep"),
 * 1 the backend or the data is unavailable (failed queries, a history too
 * short or too sparse), 2 bad usage, file or metadata.
 */
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "config.h"
#include "demand.h"
#include "fetch.h"
#include "log.h"
#include "meta.h"
#include "num.h"
#include "opt.h"
#include "peak.h"
#include "policy.h"
#include "promql.h"
#include "sim.h"
#include "simplot.h"
#include "simrng.h"
#include "trace.h"
#include "trigsel.h"
#include "tunehist.h"
#include "tunesearch.h"
#include "tz.h"

#define TUNE_PROG "staffer tune"
#define TUNE_ERR_MAX 1024
#define TUNE_RANGE_MIN_S 3600.0
#define TUNE_RANGE_MAX_S (31 * 86400.0)
#define TUNE_STEP_DEFAULT_S 30.0
#define TUNE_RANGE_DEFAULT_S (7 * 86400.0)
#define TUNE_COVERAGE_MIN 0.8        /* present points of each part */
#define TUNE_MIN_REQUESTS 1000.0     /* arrivals in the training part */
#define TUNE_MARGIN_HOURS 0.02       /* tunesearch.h's margins */
#define TUNE_MARGIN_ATT 0.001
#define TUNE_PASSES 2
#define TUNE_GUARD 0.2            /* of the misses allowed, spared */
#define TUNE_TIMEOUT_MAX 3600.0
#define TUNE_SPEC_MAX 512
#define TUNE_PLOT_STEP_S 60.0

/* ---- options ---------------------------------------------------------- */

struct tune_opts {
	const char *cfg_path, *prom, *file, *sel, *trace, *plot, *end;
	long trigger;                 /* -1: any */
	double range_s, step_s, sla_s, target, cold_start_s, timeout_s;
	double queue_timeout_s, service_cv;
	int cold_given, json, quiet;
	long seed;
	struct trigsel_pairs args;
};

static void tune_usage(FILE *fp)
{
	fprintf(fp,
"usage: staffer tune (--prometheus URL | --config FILE | --trace FILE)\n"
"                    (--file FILE | key=value ...) [options]\n"
"  Replays the trigger's own history through the simulator with its\n"
"  current metadata and with a search over beta, peakednessMax (or\n"
"  peakedness), drainSeconds, scaleDownHoldSeconds and, with --cold-start,\n"
"  coldStartSeconds; tunes on all but the last day (the last sixth of\n"
"  histories under 2 days) and checks the pick on that held-out part.\n"
"history (one of):\n"
"  --config FILE      backends, as for serve (env STAFFER_CONFIG)\n"
"  --prometheus URL   one backend 'default' (env STAFFER_PROMETHEUS)\n"
"  --trace FILE       offline: a per-request CSV or a rate file, as\n"
"                     `staffer simulate` takes them\n"
"  --range DURATION   how far back, e.g. 7d, 36h, 90m (default 7d; 1h to\n"
"                     31d; at least 6h of data are needed)\n"
"  --end TIME         the end of the range (default now): 2026-07-01T12:00Z\n"
"                     or @UNIX_SECONDS\n"
"  --step SECONDS     the arrival rate's step (default 30; 1 to 3600)\n"
"  --timeout SECONDS  per range query (default: twice the backend's\n"
"                     timeoutSeconds + 10)\n"
"trigger:\n"
"  --file FILE        a ScaledObject YAML (- for stdin)\n"
"  --name NS/NAME     which ScaledObject of FILE (NAME: any namespace)\n"
"  --trigger N        which of its triggers (from 0, as lint counts)\n"
"  key=value          metadata over the file's (docs/metadata.md)\n"
"objective and fleet:\n"
"  --sla SECONDS      the wait SLA (default 2)\n"
"  --target FRACTION  attainment to reach within it (default 0.99)\n"
"  --cold-start S     the fleet's real cold start; also tunes\n"
"                     coldStartSeconds unless coldStartQuery is set\n"
"                     (default: 120, not tuned)\n"
"  --queue-timeout S  the gateway's queue timeout (default 60)\n"
"  --service-cv C     service times' coefficient of variation (default 1)\n"
"  --seed N           random seed (default 1); same seed, same answer\n"
"output:\n"
"  --json             one JSON object\n"
"  --plot FILE.png    the held-out part: both fleets over time (gnuplot)\n"
"  --quiet            no progress on stderr\n"
"exit status: 0 an answer (a change, or keep the current metadata), 1 the\n"
"backend or the history cannot give one (too short, too sparse), 2 bad\n"
"usage, file or metadata\n"
"example: staffer tune --prometheus http://localhost:9090 \\\n"
"           --file so.yaml --range 7d --sla 2 --target 0.99\n");
}

/* "7d", "36h", "90m", "600s", "3600": seconds, or -1. */
static double tune_duration(const char *s)
{
	char num[32];
	size_t len = strlen(s);
	double v, unit = 1;

	if (len == 0 || len >= sizeof(num))
		return -1;
	memcpy(num, s, len + 1);
	switch (num[len - 1]) {
	case 'd': unit = 86400; break;
	case 'h': unit = 3600; break;
	case 'm': unit = 60; break;
	case 's': unit = 1; break;
	default: len++; break;
	}
	num[len - 1] = '\0';
	if (num_parse_double(num, &v) || !(v > 0))
		return -1;
	return v * unit;
}

/* --range DURATION. */
static int tune_range(void *ctx, const char *prog, const char *name,
		      const char *v)
{
	struct tune_opts *o = ctx;
	double d = tune_duration(v);

	if (d < TUNE_RANGE_MIN_S || d > TUNE_RANGE_MAX_S) {
		fprintf(stderr, "%s: %s '%.60s': allowed: a duration from 1h "
			"to 31d, e.g. 7d, 36h, 90m or seconds\n", prog, name,
			v);
		return 2;
	}
	o->range_s = d;
	return 0;
}

/* --cold-start S: also tunes coldStartSeconds. */
static int tune_cold_start(void *ctx, const char *prog, const char *name,
			   const char *v)
{
	struct tune_opts *o = ctx;

	o->cold_given = 1;
	return opt_double(prog, name, v, 0, 3600, "seconds", 0,
			  &o->cold_start_s);
}

/* key=value: metadata over the file's. */
static int tune_arg(void *ctx, const char *prog, const char *a)
{
	return trigsel_pairs_arg(&((struct tune_opts *)ctx)->args, prog, a);
}

#define TO(f) offsetof(struct tune_opts, f)

static const struct opt tune_opts_table[] = {
	OPT_S("--config", TO(cfg_path), 0),
	OPT_S("--prometheus", TO(prom), 0),
	OPT_S("--file", TO(file), 0),
	OPT_S("--name", TO(sel), 0),
	OPT_S("--trace", TO(trace), 0),
	OPT_S("--plot", TO(plot), 0),
	OPT_S("--end", TO(end), 0),
	OPT_L("--trigger", TO(trigger), 0, 10000, NULL),
	OPT_CALL("--range", tune_range),
	OPT_D("--step", TO(step_s), 1, 3600, "seconds", 0),
	OPT_D("--sla", TO(sla_s), 0, 3600, "seconds", 0),
	OPT_D("--target", TO(target), 0, 1, NULL, OPT_ABOVE),
	OPT_CALL("--cold-start", tune_cold_start),
	OPT_D("--queue-timeout", TO(queue_timeout_s), 0.001, 86400,
	      "seconds", 0),
	OPT_D("--service-cv", TO(service_cv), 0, 10, NULL, 0),
	OPT_D("--timeout", TO(timeout_s), 0, TUNE_TIMEOUT_MAX, "seconds",
	      OPT_ABOVE),
	OPT_L("--seed", TO(seed), 0, 2147483647.0, NULL),
	OPT_F("--json", TO(json)),
	OPT_F("--quiet", TO(quiet)),
	OPT_END,
};

static const struct opt_spec tune_opt_spec = {
	TUNE_PROG, tune_opts_table, tune_usage, tune_arg
};

/* Parse argv into o.  -1 to exit 0 (help printed), 0 ok, 2 bad usage. */
static int tune_parse(int argc, char **argv, struct tune_opts *o)
{
	enum opt_rc r = opt_parse(&tune_opt_spec, argc, argv, o);

	if (r != OPT_OK)
		return r == OPT_HELP ? -1 : 2;
	if (trigsel_check_args(TUNE_PROG, o->file, o->sel, o->trigger,
			       o->args.n))
		return 2;
	if (o->trace && (o->prom || o->cfg_path)) {
		fprintf(stderr, TUNE_PROG ": --trace replays a file offline; "
			"give it or a backend (--prometheus, --config), not "
			"both\n");
		return 2;
	}
	if (o->trace && o->end) {
		fprintf(stderr, TUNE_PROG ": --end picks the backend's range; "
			"--trace uses the whole file\n");
		return 2;
	}
	if (o->plot && o->json) {
		fprintf(stderr, TUNE_PROG ": --plot and --json: pick one\n");
		return 2;
	}
	return 0;
}

/* ---- the history -------------------------------------------------------- */

/* What was read, for the report. */
struct tune_hist {
	double start_s, end_s;        /* Unix seconds of the data used */
	double step_s;
	size_t points, missing, runs, negative;
	double longest_gap_s;
	size_t fallback_points;       /* zeros the query's fallback made
				       * up (`or vector(0)`), now gaps */
	size_t fallback_runs;
	double fallback_longest_s;
	char fallback[96];            /* that fallback, as written */
	double rate_mean, rate_peak;  /* req/s over the data used */
	double w_mean;                /* s, arrival-weighted */
	const char *w_source;         /* "serviceTimeQuery", ... */
	size_t w_missing;
	double z;                     /* peakedness (raw), NaN: too little */
	double cold_s;                /* coldStartQuery's median, 0: none */
	size_t cold_points;           /* ... of this many usable points
				       * (0 without coldStartQuery) */
	int cold_asked;               /* coldStartQuery was read */
	double holdout_s, train_s;
	int offline;
};

struct tune_progress {
	const char *what;
	int quiet;
};

static void tune_chunk_progress(void *arg, size_t i, size_t n)
{
	const struct tune_progress *p = arg;

	if (!p->quiet && n > 1)
		fprintf(stderr, TUNE_PROG ": reading %s: range query %zu of "
			"%zu\n", p->what, i + 1, n);
}

static int tune_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of h's points that are a usable cold start (above 0, at most
 * META_COLD_START_MAX, as the server takes one), into *out with their
 * count; 0 with *count 0 when there is none.  -1: out of memory. */
static int tune_cold_median(const struct tunehist *h, double *out,
			    size_t *count)
{
	double *x;
	size_t i, k = 0;

	*out = 0;
	*count = 0;
	x = malloc((h->n ? h->n : 1) * sizeof(*x));
	if (!x)
		return -1;
	for (i = 0; i < h->n; i++)
		if (h->v[i] > 0 && h->v[i] <= META_COLD_START_MAX)
			x[k++] = h->v[i];
	if (k > 0) {
		qsort(x, k, sizeof(*x), tune_cmp_double);
		*out = k % 2 ? x[k / 2] : (x[k / 2 - 1] + x[k / 2]) / 2;
		*count = k;
	}
	free(x);
	return 0;
}

/* Fill the gaps: linear between the points either side (a gap's best
 * guess is neither zero nor the level it started at: traffic went on
 * changing), the first point's value before it, the last one's after
 * it.  Returns the values that were missing. */
static size_t tune_fill(double *v, size_t n)
{
	size_t i, j, a = n, filled = 0;   /* a: the last present index */

	for (i = 0; i < n; i++) {
		if (isnan(v[i]))
			continue;
		for (j = a == n ? 0 : a + 1; j < i; j++) {
			v[j] = a == n ? v[i] : v[a] + (v[i] - v[a]) *
			       (double)(j - a) / (double)(i - a);
			filled++;
		}
		a = i;
	}
	for (j = a == n ? n : a + 1; j < n; j++) {
		v[j] = v[a];
		filled++;
	}
	return filled;
}

/* A part [a, b) of the rate history must be covered. 0, or 1. */
static int tune_covered(const struct tunehist *h, size_t a, size_t b,
			const char *part)
{
	struct tunehist_gaps g;
	double cov;

	tunehist_gaps(h, a, b, &g);
	cov = b > a ? (double)g.present / (double)(b - a) : 0;
	if (cov >= TUNE_COVERAGE_MIN)
		return 0;
	fprintf(stderr, TUNE_PROG ": history too sparse to recommend "
		"anything: the %s part has %.0f %% of its points (%zu of "
		"%zu at %g s; %zu gaps, the longest %g s); tune needs %.0f "
		"%%\n", part, 100 * cov, g.present, b - a, h->step_s, g.runs,
		(double)g.longest * h->step_s, 100 * TUNE_COVERAGE_MIN);
	return 1;
}

/* ---- the traffic -------------------------------------------------------- */

/* Give every request of t a service time: mean w(arrival) (w(t) of the
 * series ws at step, or the constant w0 when ws is NULL), lognormal with
 * the given CV. */
static int tune_service(struct trace *t, const double *ws, size_t nws,
			double step, double w0, double cv, struct simrng *r,
			char *err, size_t errlen)
{
	size_t i, k;
	double s;

	/* mean 1, then scaled: CV 0 is every request taking exactly W */
	if (trace_set_service(t, TRACE_SVC_LOGNORMAL, NULL, 1, 1.0, cv, r,
			      err, errlen))
		return -1;
	for (i = 0; i < t->n; i++) {
		double w = w0;

		if (ws) {
			k = (size_t)(t->req[i].arrival_s / step);
			w = ws[k < nws ? k : nws - 1];
		}
		s = t->req[i].service_s * w;
		if (!isfinite(s)) {     /* a W the caller did not fill */
			snprintf(err, errlen, "no service time for the "
				 "request at %.0f s", t->req[i].arrival_s);
			return -1;
		}
		if (s < TRACE_SERVICE_MIN)
			s = TRACE_SERVICE_MIN;
		if (s > TRACE_SERVICE_MAX)
			s = TRACE_SERVICE_MAX;
		t->req[i].service_s = s;
	}
	t->has_service = 1;
	return 0;
}

/* The requests of all arriving in [from, to), shifted to start at 0. */
static int tune_cut(const struct trace *all, double from, double to,
		    struct trace *out)
{
	size_t a = all->n - trace_count(all, from, INFINITY);
	size_t n = trace_count(all, from, to), i;

	trace_free(out);
	out->req = n ? malloc(n * sizeof(*out->req)) : NULL;
	if (n && !out->req)
		return -1;
	for (i = 0; i < n; i++) {
		out->req[i] = all->req[a + i];
		out->req[i].arrival_s -= from;
	}
	out->n = out->cap = n;
	out->has_service = all->has_service;
	out->span_s = to - from;
	return 0;
}

/* ---- simulation ----------------------------------------------------------- */

struct tune_part {
	const char *name;             /* "train", "held-out" */
	struct trace t;
	struct demand d;
	struct sim_config sc;
};

struct tune_ctx {
	const struct tune_opts *o;
	const struct trigsel *ts;
	const struct tune_key *keys;
	size_t nkeys;
	char replicas[96];            /* "minReplicaCount=..," from spec */
	struct tune_part *part;       /* the one simulated */
	size_t sims, bound;
	char err[TUNE_ERR_MAX];
	int failed;                   /* a policy the simulator refused */
};

/* "staffer:key=value,..." for the keys given (values[i] NULL: as in the
 * metadata); the changes alone into changes (may be NULL). */
static void tune_spec(const struct tune_ctx *c, const char *const *values,
		      char spec[TUNE_SPEC_MAX], char *changes, size_t clen)
{
	size_t i, len;

	len = (size_t)snprintf(spec, TUNE_SPEC_MAX, "staffer:%s",
			       c->replicas);
	if (changes && clen)
		changes[0] = '\0';
	for (i = 0; i < c->nkeys && len < TUNE_SPEC_MAX; i++) {
		if (!values[i])
			continue;
		len += (size_t)snprintf(spec + len, TUNE_SPEC_MAX - len,
					"%s%s=%s", spec[len - 1] == ':' ? "" :
					",", c->keys[i].name, values[i]);
		if (changes && strlen(changes) + 1 < clen)
			snprintf(changes + strlen(changes),
				 clen - strlen(changes), "%s%s=%s",
				 changes[0] ? " " : "", c->keys[i].name,
				 values[i]);
	}
	if (spec[strlen(spec) - 1] == ':')
		spec[strlen(spec) - 1] = '\0';
}

/* Simulate values on c->part.  0 with *s (valid 0 when the metadata
 * rules refuse the combination), -1 on a simulator failure (c->err). */
static int tune_run(struct tune_ctx *c, const char *const *values,
		    struct tune_score *s, sim_sample_fn *fn, void *arg)
{
	struct policy p;
	struct sim_result r;
	char spec[TUNE_SPEC_MAX], changes[TUNE_SPEC_MAX];
	char perr[POLICY_ERR_MAX];
	int rc = -1;

	memset(&p, 0, sizeof(p));
	memset(s, 0, sizeof(*s));
	tune_spec(c, values, spec, changes, sizeof(changes));
	if (policy_parse(&p, spec, (const char *const *)c->ts->md.keys,
			 (const char *const *)c->ts->md.values, c->ts->md.n,
			 c->part->sc.slots, 100, perr, sizeof(perr))) {
		/* e.g. a hold with coldStartSeconds 0: not a configuration */
		if (!c->o->quiet)
			fprintf(stderr, TUNE_PROG ": skipped %s: %s\n",
				changes[0] ? changes : "current", perr);
		rc = 0;
		goto out;
	}
	if (sim_run(&c->part->sc, &c->part->t, &c->part->d, &p, &r, fn, arg,
		    c->err, sizeof(c->err)))
		goto out;
	s->valid = 1;
	s->attainment = r.sla_attainment;
	s->hours = r.replica_hours;
	s->events = r.scale_events;
	c->sims++;
	if (!c->o->quiet)
		fprintf(stderr, TUNE_PROG ": %s simulation %zu (at most %zu): "
			"%s: %.2f %% within %g s, %.1f replica-hours\n",
			c->part->name, c->sims, c->bound,
			changes[0] ? changes : "current metadata",
			100 * s->attainment, c->part->sc.sla_s, s->hours);
	rc = 0;
out:
	policy_release(&p);
	return rc;
}

/* tune_eval_fn: a training simulation. */
static int tune_eval(void *arg, const char *const *values,
		     struct tune_score *out)
{
	return tune_run(arg, values, out, NULL, NULL);
}

/* ---- the plot ------------------------------------------------------------- */

struct tune_plot {
	FILE *dat;
	size_t index;
	double demand_max;
};

static void tune_sample(void *arg, const struct sim_sample *x)
{
	struct tune_plot *pl = arg;

	if (x->demand > pl->demand_max)
		pl->demand_max = x->demand;
	fprintf(pl->dat, "%zu %.3f %d %.4f %llu %llu\n", pl->index, x->t,
		(int)x->spec, x->demand, (unsigned long long)x->queue,
		(unsigned long long)x->shed);
}

/* ---- the tunable keys ----------------------------------------------------- */

/* The value of key as the merged metadata gives it, or NULL. */
static const char *tune_given(const struct trigsel *ts, const char *key)
{
	size_t i;

	for (i = 0; i < ts->md.n; i++)
		if (!strcmp(ts->md.keys[i], key))
			return ts->md.values[i];
	return NULL;
}

static void tune_key(struct tune_key *k, const struct trigsel *ts,
		     const char *name, const char *deflt,
		     const char *const *values, size_t n)
{
	size_t i;

	memset(k, 0, sizeof(*k));
	k->name = name;
	k->current = tune_given(ts, name);
	k->deflt = deflt;
	for (i = 0; i < n && i < TUNE_VALUES_MAX; i++)
		k->values[i] = values[i];
	k->n = i;
}

#define TUNE_N(a) (sizeof(a) / sizeof((a)[0]))

/* The keys to search, in order, for metadata m.  cold[] holds the
 * coldStartSeconds candidates' text.  Returns how many. */
static size_t tune_keys(struct tune_key *keys, const struct meta *m,
			const struct trigsel *ts, const struct tune_opts *o,
			char cold[4][16])
{
	static const char *const beta[] = { "0.5", "1", "1.5", "2", "2.5",
					    "3" };
	static const char *const zmax[] = { "1", "1.5", "2", "3", "4" };
	static const char *const z[] = { "auto", "1", "1.5", "2", "3" };
	static const char *const drain[] = { "15", "30", "60", "120" };
	static const char *const hold[] = { "auto", "60", "120", "300", "600",
					    "1200" };
	static const double mult[] = { 0.5, 1, 1.5, 2 };
	const char *cv[4];
	size_t n = 0, i;

	if (m->model.staffing == MODEL_STAFF_SQRT)
		tune_key(&keys[n++], ts, "beta", "1.5", beta, TUNE_N(beta));
	if (m->model.staffing != MODEL_STAFF_NONE) {
		if (m->peakedness == META_AUTO)
			tune_key(&keys[n++], ts, "peakednessMax", "2", zmax,
				 TUNE_N(zmax));
		else
			tune_key(&keys[n++], ts, "peakedness", "auto", z,
				 TUNE_N(z));
	}
	if (m->queue_depth_query)
		tune_key(&keys[n++], ts, "drainSeconds", "30", drain,
			 TUNE_N(drain));
	tune_key(&keys[n++], ts, "scaleDownHoldSeconds", "auto", hold,
		 TUNE_N(hold));
	/* With coldStartQuery the replay measures the cold start (the
	 * simulator answers it with --cold-start): coldStartSeconds is only
	 * its fallback, and a search over it would compare equal runs. */
	if (o->cold_given && !m->cold_start_query) {
		for (i = 0; i < TUNE_N(mult); i++) {
			double v = round(mult[i] * o->cold_start_s);

			snprintf(cold[i], 16, "%g", v < 3600 ? v : 3600);
			cv[i] = cold[i];
		}
		tune_key(&keys[n++], ts, "coldStartSeconds", "120", cv,
			 TUNE_N(mult));
	}
	return n;
}

/* ---- reading the history -------------------------------------------------- */

/*
 * The zeros of the arrival rate that its fallback made up: a `... or
 * vector(0)` reads 0 through a failed scrape, which is a gap, not zero
 * traffic.  Reads the query's measured part (promql_measured()) over the
 * same grid, and max(up{...}) when an `up` guard is there, and marks
 * missing the points only the fallback answered (tunehist_unfallback()).
 * 0, or the exit status with the message printed.
 */
static int tune_unfallback(struct fetch *f, struct config *cfg,
			   const struct backend *be, const char *query,
			   double timeout, struct tunehist *rate,
			   struct tune_hist *hi, struct tune_progress *pr)
{
	struct promql_ast a;
	struct promql_fallback fb;
	struct tunehist meas, up;
	char measured[META_QUERY_MAX + 16], upq[512], sel[400];
	char err[TUNE_ERR_MAX];
	const struct promql_node *o;
	size_t at, runs = 0, longest = 0;
	int rc = 0, r;

	memset(&meas, 0, sizeof(meas));
	memset(&up, 0, sizeof(up));
	if (promql_parse(&a, query, strlen(query), NULL))
		return 0;       /* the backend took it: nothing to read here */
	if (!promql_fallback(&a, &fb) ||
	    !promql_measured(&a, measured, sizeof(measured)))
		goto out;
	o = &a.nodes[fb.node];
	for (at = a.nodes[o->lhs].end; at < o->end &&
	     (query[at] == ' ' || query[at] == '\t' || query[at] == '\n');
	     at++)
		;
	snprintf(hi->fallback, sizeof(hi->fallback), "%.*s",
		 (int)(o->end - at), query + at);
	rc = 1;
	if (tunehist_init(&meas, rate->start_s, rate->step_s, rate->n) ||
	    (fb.up >= 0 && tunehist_init(&up, rate->start_s, rate->step_s,
					 rate->n))) {
		fprintf(stderr, TUNE_PROG ": out of memory\n");
		goto out;
	}
	pr->what = "arrivalRateQuery without its fallback";
	r = tunehist_fetch(f, cfg, be, measured, timeout, &meas, NULL,
			   tune_chunk_progress, pr, err, sizeof(err));
	if (!r && fb.up >= 0) {
		snprintf(upq, sizeof(upq), "max(%s)",
			 promql_text(&a, fb.up, sel, sizeof(sel)));
		pr->what = "the fallback's up";
		r = tunehist_fetch(f, cfg, be, upq, timeout, &up, NULL,
				   tune_chunk_progress, pr, err, sizeof(err));
	}
	if (r) {
		fprintf(stderr, TUNE_PROG ": arrivalRateQuery without its "
			"fallback: %s (backend '%s')\n", err, be->name);
		rc = r;
		goto out;
	}
	hi->fallback_points = tunehist_unfallback(rate, &meas,
						  fb.up >= 0 ? &up : NULL,
						  &runs, &longest);
	hi->fallback_runs = runs;
	hi->fallback_longest_s = (double)longest * rate->step_s;
	rc = 0;
out:
	tunehist_release(&meas);
	tunehist_release(&up);
	promql_release(&a);
	return rc;
}

/*
 * The traffic from the backend: both series over the grid, the checks,
 * then one trace from the first point with data to the end, service
 * times from W.  0, or the exit status with the message printed.
 */
static int tune_from_backend(const struct tune_opts *o, const struct meta *m,
			     struct config *cfg, struct tune_hist *hi,
			     struct trace *all)
{
	const struct backend *be = config_backend(cfg, m->backend);
	struct tunehist rate, w, cold;
	struct tune_progress pr = { "arrivalRateQuery", o->quiet };
	struct trace_rates tr = { 1, 1, 0, 0, 0, 0, TRACE_ARR_AUTO };
	struct simrng rng;
	struct fetch *f = NULL;
	char err[TUNE_ERR_MAX], when[TZ_TIME_MAX];
	double end, timeout, *ws = NULL, sum = 0, wsum = 0, *wv = NULL, z;
	size_t n, first, split, i, k;
	int64_t t64;
	int rc = 1, r;

	memset(&rate, 0, sizeof(rate));
	memset(&w, 0, sizeof(w));
	memset(&cold, 0, sizeof(cold));
	if (o->end) {
		if (tz_parse_time(NULL, o->end, &t64)) {
			fprintf(stderr, TUNE_PROG ": --end '%.60s': allowed: "
				"an instant such as 2026-07-01T12:00:00Z or "
				"Unix seconds such as @1782907200\n", o->end);
			return 2;
		}
		end = (double)t64;
	} else {
		end = (double)time(NULL);
	}
	end = floor(end / o->step_s) * o->step_s;
	n = (size_t)floor(o->range_s / o->step_s + 1e-9) + 1;
	if (n > TUNEHIST_POINTS_MAX) {
		fprintf(stderr, TUNE_PROG ": --range %g s at --step %g s is "
			"%zu points; at most %u: use a longer --step\n",
			o->range_s, o->step_s, n, TUNEHIST_POINTS_MAX);
		return 2;
	}
	timeout = o->timeout_s > 0 ? o->timeout_s : 2 * be->timeout_s + 10;
	if (tunehist_init(&rate, end - (double)(n - 1) * o->step_s,
			  o->step_s, n) ||
	    tunehist_init(&w, rate.start_s, o->step_s, n)) {
		fprintf(stderr, TUNE_PROG ": out of memory\n");
		goto out;
	}
	f = fetch_new();
	if (!f) {
		fprintf(stderr, TUNE_PROG ": cannot start the fetch thread\n");
		goto out;
	}
	r = tunehist_fetch(f, cfg, be, m->arrival_rate_query, timeout, &rate,
			   &hi->negative, tune_chunk_progress, &pr, err,
			   sizeof(err));
	if (r) {
		fprintf(stderr, TUNE_PROG ": arrivalRateQuery: %s (backend "
			"'%s')\n", err, be->name);
		rc = r;
		goto out;
	}
	if (m->service_time_query) {
		pr.what = "serviceTimeQuery";
		r = tunehist_fetch(f, cfg, be, m->service_time_query, timeout,
				   &w, NULL, tune_chunk_progress, &pr, err,
				   sizeof(err));
		if (r) {
			fprintf(stderr, TUNE_PROG ": serviceTimeQuery: %s "
				"(backend '%s')\n", err, be->name);
			rc = r;
			goto out;
		}
	}
	/* The replay's cold start, unless --cold-start gave it: what the
	 * server would read, the median over the range. */
	if (m->cold_start_query && !o->cold_given) {
		hi->cold_asked = 1;
		pr.what = "coldStartQuery";
		if (tunehist_init(&cold, rate.start_s, o->step_s, n)) {
			fprintf(stderr, TUNE_PROG ": out of memory\n");
			goto out;
		}
		r = tunehist_fetch(f, cfg, be, m->cold_start_query, timeout,
				   &cold, NULL, tune_chunk_progress, &pr, err,
				   sizeof(err));
		if (r) {
			fprintf(stderr, TUNE_PROG ": coldStartQuery: %s "
				"(backend '%s')\n", err, be->name);
			rc = r;
			goto out;
		}
		if (tune_cold_median(&cold, &hi->cold_s, &hi->cold_points)) {
			fprintf(stderr, TUNE_PROG ": out of memory\n");
			goto out;
		}
	}
	/* zeros made up by a fallback (`or vector(0)`) are gaps */
	r = tune_unfallback(f, cfg, be, m->arrival_rate_query, timeout, &rate,
			    hi, &pr);
	if (r) {
		rc = r;
		goto out;
	}
	/* the points whose rate() window reaches into a gap read low */
	tunehist_trim(&rate, (size_t)ceil(m->rate_window_s / o->step_s -
					  1e-9));
	first = tunehist_first(&rate);
	if (first == n) {
		tz_format(NULL, (int64_t)rate.start_s, when, sizeof(when));
		fprintf(stderr, TUNE_PROG ": arrivalRateQuery has no data from "
			"%s over %g s: nothing to tune on (is the query right? "
			"`staffer explain` shows what it returns now)\n", when,
			o->range_s);
		goto out;
	}
	hi->start_s = rate.start_s + (double)first * o->step_s;
	hi->end_s = end;
	hi->step_s = o->step_s;
	hi->holdout_s = tune_holdout_s(end - hi->start_s, o->step_s);
	if (!(hi->holdout_s > 0)) {
		tz_format(NULL, (int64_t)hi->start_s, when, sizeof(when));
		fprintf(stderr, TUNE_PROG ": history too short to recommend "
			"anything: arrivalRateQuery has data from %s, %.1f h; "
			"tune needs at least %g h (a longer --range, or wait "
			"for more history)\n", when,
			(end - hi->start_s) / 3600, TUNE_MIN_SPAN_S / 3600);
		goto out;
	}
	hi->train_s = end - hi->start_s - hi->holdout_s;
	split = first + (size_t)llround(hi->train_s / o->step_s);
	if (tune_covered(&rate, first, split, "training") ||
	    tune_covered(&rate, split, n, "held-out"))
		goto out;
	{
		struct tunehist_gaps g;

		tunehist_gaps(&rate, first, n, &g);
		hi->points = g.present;
		hi->missing = g.missing;
		hi->runs = g.runs;
		hi->longest_gap_s = (double)g.longest * o->step_s;
	}
	/* W: the query's series; where it has none, serviceTime; with
	 * neither, no answer. */
	wv = w.v + first;
	hi->w_source = "serviceTimeQuery";
	/* no W from the first arrival-rate point on is no W: the replay
	 * reads only that part (a W that stopped before it left every
	 * request a NaN service time, and the simulator spun) */
	for (i = first; i < n && !isfinite(w.v[i]); i++)
		;
	if (!m->service_time_query || i == n) {
		if (!(m->service_time_s > 0)) {
			fprintf(stderr, TUNE_PROG ": serviceTimeQuery has no "
				"data over the range (from the arrival "
				"rate's first point on) and there is no "
				"serviceTime to fall back on: give "
				"serviceTime=SECONDS (the mean service time) "
				"or fix the query\n");
			goto out;
		}
		hi->w_source = m->service_time_query ?
			"serviceTime (serviceTimeQuery has no data)" :
			"serviceTime";
		for (i = first; i < n; i++)
			w.v[i] = m->service_time_s;
	}
	hi->w_missing = tune_fill(wv, n - first);
	tune_fill(rate.v + first, n - first);
	for (i = first; i < n; i++) {
		sum += rate.v[i];
		wsum += rate.v[i] * w.v[i];
		if (rate.v[i] > hi->rate_peak)
			hi->rate_peak = rate.v[i];
	}
	hi->rate_mean = sum / (double)(n - first);
	hi->w_mean = sum > 0 ? wsum / sum : w.v[first];
	if (hi->rate_mean * hi->train_s < TUNE_MIN_REQUESTS) {
		fprintf(stderr, TUNE_PROG ": history too sparse to recommend "
			"anything: about %.0f requests in the training part "
			"(mean %.4g req/s); tune needs %g\n",
			hi->rate_mean * hi->train_s, hi->rate_mean,
			TUNE_MIN_REQUESTS);
		goto out;
	}
	if (peak_estimate(rate.v + first, split - first, o->step_s,
			  m->rate_window_s, 100, &z, &hi->z) != MODEL_OK)
		hi->z = NAN;
	/* The replay: window k starts k steps after the first point. */
	ws = malloc((n - first) * sizeof(*ws));
	if (!ws) {
		fprintf(stderr, TUNE_PROG ": out of memory\n");
		goto out;
	}
	for (k = 0; k < n - first; k++)
		ws[k] = (double)k * o->step_s;
	simrng_seed(&rng, (uint64_t)o->seed);
	if (trace_from_rates(all, ws, rate.v + first, n - first, &tr, &rng,
			     "arrivalRateQuery", err, sizeof(err)) ||
	    tune_service(all, wv, n - first, o->step_s, 0, o->service_cv,
			 &rng, err, sizeof(err))) {
		fprintf(stderr, TUNE_PROG ": %s\n", err);
		goto out;
	}
	rc = 0;
out:
	free(ws);
	fetch_stop(f);
	fetch_free(f);
	tunehist_release(&rate);
	tunehist_release(&w);
	tunehist_release(&cold);
	return rc;
}

/* The traffic of --trace: a per-request CSV or a rate file.  0, or the
 * exit status with the message printed. */
static int tune_from_file(const struct tune_opts *o, const struct meta *m,
			  struct tune_hist *hi, struct trace *all)
{
	struct trace_rates tr = { 1, 1, 0, 0, 0, 0, TRACE_ARR_AUTO };
	struct simrng rng;
	char err[TUNE_ERR_MAX], head[64] = "";
	FILE *fp;
	int rates;

	hi->offline = 1;
	fp = fopen(o->trace, "r");
	if (!fp) {
		fprintf(stderr, TUNE_PROG ": --trace '%s': cannot open: %s\n",
			o->trace, strerror(errno));
		return 2;
	}
	if (!fgets(head, sizeof(head), fp))
		head[0] = '\0';
	fclose(fp);
	rates = !strncmp(head, "window_start_s,", 15);
	simrng_seed(&rng, (uint64_t)o->seed);
	if (rates ? trace_load_rates(all, o->trace, &tr, &rng, err,
				     sizeof(err)) :
	    trace_load_csv(all, o->trace, err, sizeof(err))) {
		fprintf(stderr, TUNE_PROG ": --trace: %s\n", err);
		return 2;
	}
	hi->w_source = "the trace's service_s column";
	if (!all->has_service) {
		if (!(m->service_time_s > 0)) {
			fprintf(stderr, TUNE_PROG ": --trace '%s' has no "
				"service_s column: give serviceTime=SECONDS, "
				"the mean service time\n", o->trace);
			return 2;
		}
		hi->w_source = "serviceTime";
		if (tune_service(all, NULL, 0, 1, m->service_time_s,
				 o->service_cv, &rng, err, sizeof(err))) {
			fprintf(stderr, TUNE_PROG ": %s\n", err);
			return 2;
		}
	}
	hi->w_mean = all->n ? trace_work_s(all) / (double)all->n : 0;
	hi->start_s = 0;
	hi->end_s = all->span_s;
	hi->rate_mean = all->span_s > 0 ? (double)all->n / all->span_s : 0;
	hi->z = NAN;
	hi->holdout_s = tune_holdout_s(all->span_s, 1);
	if (!(hi->holdout_s > 0)) {
		fprintf(stderr, TUNE_PROG ": history too short to recommend "
			"anything: --trace '%s' spans %.1f h; tune needs at "
			"least %g h\n", o->trace, all->span_s / 3600,
			TUNE_MIN_SPAN_S / 3600);
		return 1;
	}
	hi->train_s = all->span_s - hi->holdout_s;
	if ((double)trace_count(all, 0, hi->train_s) < TUNE_MIN_REQUESTS) {
		fprintf(stderr, TUNE_PROG ": history too sparse to recommend "
			"anything: %zu requests in the training part; tune "
			"needs %g\n", trace_count(all, 0, hi->train_s),
			TUNE_MIN_REQUESTS);
		return 1;
	}
	return 0;
}

/* ---- the report ------------------------------------------------------------- */

struct tune_outcome {
	const struct tune_key *keys;
	size_t nkeys;
	struct tune_result res;       /* the search, on the training part */
	struct tune_score cur_ho, pick_ho;
	int change;                   /* the recommendation is a change */
	const char *why;              /* ... and why (or why not) */
	size_t bound;
	int32_t min_r, max_r;
	long slots;
	double cold_s;
};

static void tune_row(const char *name, const struct tune_score *tr,
		     const struct tune_score *ho)
{
	printf("%-13s %8.2f %% %8.1f %6llu      %8.2f %% %8.1f %6llu\n", name,
	       100 * tr->attainment, tr->hours,
	       (unsigned long long)tr->events, 100 * ho->attainment,
	       ho->hours, (unsigned long long)ho->events);
}

static void tune_text(const struct tune_opts *o, const struct trigsel *ts,
		      const struct backend *be, const struct tune_hist *hi,
		      const struct tune_outcome *x)
{
	char a[TZ_TIME_MAX], b[TZ_TIME_MAX];
	size_t i;

	if (ts->who[0])
		printf("trigger    %s\n", ts->who);
	if (hi->offline) {
		printf("history    --trace %s: %.1f h\n", o->trace,
		       (hi->end_s - hi->start_s) / 3600);
	} else {
		tz_format(NULL, (int64_t)hi->start_s, a, sizeof(a));
		tz_format(NULL, (int64_t)hi->end_s, b, sizeof(b));
		printf("backend    '%s' %s\n", be->name, be->url);
		printf("history    %s to %s: %.1f h at %g s, %zu points",
		       a, b, (hi->end_s - hi->start_s) / 3600, hi->step_s,
		       hi->points);
		if (hi->missing)
			printf(", %zu missing in %zu gaps (the longest %g s, "
			       "interpolated)", hi->missing,
			       hi->runs, hi->longest_gap_s);
		if (hi->negative)
			printf(", %zu negative read as missing",
			       hi->negative);
		printf("\n");
		if (hi->fallback_points)
			printf("gaps       %zu points read 0 only through the "
			       "query's fallback '%s' (its measured part had "
			       "no data%s): %zu stretches, the longest %g s, "
			       "counted as gaps, not as zero traffic\n",
			       hi->fallback_points, hi->fallback,
			       strstr(hi->fallback, "up") ? " and up said the "
			       "exporter was not there" : "",
			       hi->fallback_runs, hi->fallback_longest_s);
	}
	printf("traffic    mean %.4g req/s", hi->rate_mean);
	if (!hi->offline)
		printf(", peak %.4g req/s", hi->rate_peak);
	printf("; W %.4g s (%s", hi->w_mean, hi->w_source);
	if (hi->w_missing && !strcmp(hi->w_source, "serviceTimeQuery"))
		printf(", %zu points missing, interpolated", hi->w_missing);
	printf(")");
	if (isfinite(hi->z))
		printf("; peakedness %.3g over the training part", hi->z);
	printf("\n");
	printf("fleet      %ld slots/replica, cold start %g s%s, queue "
	       "timeout %g s, replicas %d..%d\n", x->slots, x->cold_s,
	       o->cold_given ? "" : hi->cold_s > 0 ? " (coldStartQuery, the "
	       "median over the range)" : hi->cold_asked ? " (the default: "
	       "coldStartQuery has no data over the range)" : " (the "
	       "default; --cold-start S gives the real one)",
	       o->queue_timeout_s, (int)x->min_r,
	       (int)x->max_r);
	printf("objective  the fewest replica-hours with >= %g %% of "
	       "requests started within %g s (%g %% while\n"
	       "           training), else the most within it; a change "
	       "must win by %g %% of hours or %g points\n",
	       100 * o->target, o->sla_s,
	       100 * (o->target + TUNE_GUARD * (1 - o->target)),
	       100 * TUNE_MARGIN_HOURS, 100 * TUNE_MARGIN_ATT);
	printf("split      training: the first %.1f h; held out: the last "
	       "%.1f h\n", hi->train_s / 3600, hi->holdout_s / 3600);
	printf("search     over");
	for (i = 0; i < x->nkeys; i++)
		printf("%s %s", i ? "," : "", x->keys[i].name);
	printf(": %zu simulations (at most %zu)\n\n", x->res.sims, x->bound);
	printf("%-13s %-30s %s\n", "", "training", "held out");
	printf("%-13s %10s %8s %6s      %10s %8s %6s\n", "", "within SLA",
	       "rep-h", "scale", "within SLA", "rep-h", "scale");
	tune_row("current", &x->res.current, &x->cur_ho);
	if (x->res.changed)
		tune_row("search pick", &x->res.pick, &x->pick_ho);
	printf("\n");
	if (!x->change) {
		printf("recommendation keep the current metadata: %s\n",
		       x->why);
		return;
	}
	printf("recommendation change %s; under the trigger's metadata:\n",
	       x->why);
	for (i = 0; i < x->nkeys; i++)
		if (x->res.values[i])
			printf("        %s: \"%s\"\n", x->keys[i].name,
			       x->res.values[i]);
}

static cJSON *tune_json_score(const struct tune_score *s)
{
	cJSON *o = cJSON_CreateObject();

	if (o && (!cJSON_AddNumberToObject(o, "sla_attainment",
					   s->attainment) ||
		  !cJSON_AddNumberToObject(o, "replica_hours", s->hours) ||
		  !cJSON_AddNumberToObject(o, "scale_events",
					   (double)s->events))) {
		cJSON_Delete(o);
		o = NULL;
	}
	return o;
}

/* Add key: {"training": score, "held_out": score}.  0, or -1. */
static int tune_json_pair(cJSON *o, const char *key,
			  const struct tune_score *tr,
			  const struct tune_score *ho)
{
	cJSON *p = cJSON_AddObjectToObject(o, key);
	cJSON *a = tune_json_score(tr), *b = tune_json_score(ho);

	if (!p || !a || !b) {
		cJSON_Delete(a);
		cJSON_Delete(b);
		return -1;
	}
	cJSON_AddItemToObject(p, "training", a);
	cJSON_AddItemToObject(p, "held_out", b);
	return 0;
}

static int tune_json(const struct tune_opts *o, const struct trigsel *ts,
		     const struct tune_hist *hi, const struct tune_outcome *x)
{
	cJSON *j = cJSON_CreateObject(), *h, *ch, *keys;
	char *text = NULL;
	size_t i;
	int rc = -1;

	if (!j)
		return -1;
	if (ts->who[0] && !cJSON_AddStringToObject(j, "scaledobject",
						   ts->who))
		goto out;
	h = cJSON_AddObjectToObject(j, "history");
	if (!h || !cJSON_AddNumberToObject(h, "start", hi->start_s) ||
	    !cJSON_AddNumberToObject(h, "end", hi->end_s) ||
	    !cJSON_AddNumberToObject(h, "step_seconds", hi->step_s) ||
	    !cJSON_AddNumberToObject(h, "points", (double)hi->points) ||
	    !cJSON_AddNumberToObject(h, "missing", (double)hi->missing) ||
	    !cJSON_AddNumberToObject(h, "gaps", (double)hi->runs) ||
	    !cJSON_AddNumberToObject(h, "negative", (double)hi->negative) ||
	    !cJSON_AddNumberToObject(h, "fallback_zeros",
				     (double)hi->fallback_points) ||
	    !cJSON_AddNumberToObject(h, "fallback_zero_stretches",
				     (double)hi->fallback_runs) ||
	    !cJSON_AddNumberToObject(h, "rate_mean", hi->rate_mean) ||
	    !cJSON_AddNumberToObject(h, "service_time_mean", hi->w_mean) ||
	    !cJSON_AddStringToObject(h, "service_time_source",
				     hi->w_source) ||
	    !cJSON_AddNumberToObject(h, "cold_start", x->cold_s) ||
	    !cJSON_AddStringToObject(h, "cold_start_source",
				     o->cold_given ? "--cold-start" :
				     hi->cold_s > 0 ? "coldStartQuery" :
				     "default") ||
	    !cJSON_AddNumberToObject(h, "cold_start_points",
				     (double)hi->cold_points) ||
	    !cJSON_AddNumberToObject(h, "training_seconds", hi->train_s) ||
	    !cJSON_AddNumberToObject(h, "held_out_seconds", hi->holdout_s))
		goto out;
	keys = cJSON_AddArrayToObject(j, "searched");
	if (!keys)
		goto out;
	for (i = 0; i < x->nkeys; i++) {
		cJSON *s = cJSON_CreateString(x->keys[i].name);

		if (!s)
			goto out;
		cJSON_AddItemToArray(keys, s);
	}
	if (!cJSON_AddNumberToObject(j, "simulations", (double)x->res.sims) ||
	    !cJSON_AddNumberToObject(j, "target", o->target) ||
	    !cJSON_AddNumberToObject(j, "sla_seconds", o->sla_s) ||
	    tune_json_pair(j, "current", &x->res.current, &x->cur_ho) ||
	    (x->res.changed && tune_json_pair(j, "search_pick", &x->res.pick,
					      &x->pick_ho)) ||
	    !cJSON_AddStringToObject(j, "recommendation", x->change ?
				     "change" : "keep") ||
	    !cJSON_AddStringToObject(j, "reason", x->why))
		goto out;
	ch = cJSON_AddObjectToObject(j, "changes");
	if (!ch)
		goto out;
	for (i = 0; x->change && i < x->nkeys; i++)
		if (x->res.values[i] &&
		    !cJSON_AddStringToObject(ch, x->keys[i].name,
					     x->res.values[i]))
			goto out;
	text = cJSON_PrintUnformatted(j);
	if (!text)
		goto out;
	printf("%s\n", text);
	rc = 0;
out:
	free(text);
	cJSON_Delete(j);
	return rc;
}

/* ---- the command ------------------------------------------------------------ */

static void tune_part_init(struct tune_part *p, const char *name)
{
	memset(p, 0, sizeof(*p));
	p->name = name;
	trace_init(&p->t);
	demand_init(&p->d);
}

static void tune_part_release(struct tune_part *p)
{
	trace_free(&p->t);
	demand_free(&p->d);
}

/* Cut [from, to) of all into p with its demand and fleet.  0, or -1 with
 * the message printed. */
static int tune_part_make(struct tune_part *p, const struct trace *all,
			  double from, double to,
			  const struct sim_config *base, int32_t min_r)
{
	char err[TUNE_ERR_MAX];

	if (tune_cut(all, from, to, &p->t)) {
		fprintf(stderr, TUNE_PROG ": out of memory\n");
		return -1;
	}
	if (p->t.n == 0) {
		fprintf(stderr, TUNE_PROG ": the %s part has no requests\n",
			p->name);
		return -1;
	}
	if (demand_build(&p->d, &p->t, err, sizeof(err))) {
		fprintf(stderr, TUNE_PROG ": %s\n", err);
		return -1;
	}
	p->sc = *base;
	p->sc.end_s = p->t.span_s;
	p->sc.initial_replicas = sim_first_minute_replicas(&p->sc, &p->d,
							   min_r > 1 ? min_r :
							   1);
	if (sim_config_check(&p->sc, err, sizeof(err))) {
		fprintf(stderr, TUNE_PROG ": %s\n", err);
		return -1;
	}
	return 0;
}

/* The held-out simulations, with the plot's samples when asked.  0, or
 * 1 with the message printed. */
static int tune_holdout(struct tune_ctx *c, struct tune_outcome *x,
			const char *desc)
{
	static const char *const names[] = { "current", "search pick" };
	const char *none[TUNE_KEYS_MAX] = { NULL };
	struct tune_plot pl;
	char dat[64] = "", err[TUNE_ERR_MAX];
	int fd, rc = 1;

	memset(&pl, 0, sizeof(pl));
	if (c->o->plot) {
		const char *dir = getenv("TMPDIR");

		if (!dir || !dir[0] || strlen(dir) > 40)
			dir = "/tmp";
		snprintf(dat, sizeof(dat), "%s/staffer-tune-XXXXXX", dir);
		fd = mkstemp(dat);
		if (fd < 0 || !(pl.dat = fdopen(fd, "w"))) {
			fprintf(stderr, TUNE_PROG ": plot data: %s\n",
				strerror(errno));
			if (fd >= 0)
				close(fd);
			dat[0] = '\0';
			goto out;
		}
	}
	c->sims = 0;
	c->bound = x->res.changed ? 2 : 1;
	if (tune_run(c, none, &x->cur_ho, pl.dat ? tune_sample : NULL, &pl))
		goto fail;
	x->pick_ho = x->cur_ho;
	pl.index = 1;
	if (x->res.changed &&
	    tune_run(c, x->res.values, &x->pick_ho,
		     pl.dat ? tune_sample : NULL, &pl))
		goto fail;
	if (pl.dat) {
		int bad = fclose(pl.dat);

		pl.dat = NULL;
		if (bad) {
			fprintf(stderr, TUNE_PROG ": plot data: write error\n");
			goto out;
		}
		if (simplot_render(dat, c->o->plot, desc, names,
				   x->res.changed ? 2 : 1,
				   ceil(2.5 * pl.demand_max + 2), err,
				   sizeof(err))) {
			fprintf(stderr, TUNE_PROG ": %s\n", err);
			goto out;
		}
	}
	rc = 0;
	goto out;
fail:
	fprintf(stderr, TUNE_PROG ": held-out simulation: %s\n", c->err);
out:
	if (pl.dat)
		fclose(pl.dat);
	if (dat[0])
		unlink(dat);
	return rc;
}

/* The verdict from the search and the held-out part. */
static void tune_verdict(struct tune_outcome *x, const struct tune_goal *g,
			 char *why, size_t len)
{
	size_t i, n = 0;

	x->change = 0;
	if (!x->res.changed) {
		snprintf(why, len, "no configuration beats it by the margin "
			 "on the training part");
	} else if (tune_better(&x->cur_ho, &x->pick_ho, g, 0)) {
		snprintf(why, len, "the search's pick beats it on the "
			 "training part but loses on the held-out part");
	} else {
		for (i = 0; i < x->nkeys; i++)
			n += x->res.values[i] != NULL;
		snprintf(why, len, "%zu key%s", n, n == 1 ? "" : "s");
		x->change = 1;
	}
	x->why = why;
}

/* The metadata (m) and the replica bounds; 0 or 2 with the message. */
static int tune_meta(const struct tune_opts *o, const struct trigsel *ts,
		     const struct config *cfg, struct meta *m)
{
	struct meta_error me;
	size_t i;

	for (i = 0; i < ts->md.n; i++)
		if (meta_set(m, ts->md.keys[i], ts->md.values[i], &me) !=
		    META_OK)
			goto bad;
	if (meta_check(m, !o->trace, &me) != META_OK)
		goto bad;
	if (!o->trace && !config_backend(cfg, m->backend)) {
		fprintf(stderr, TUNE_PROG ": metadata 'backend': '%.60s' is "
			"not declared in staffer's config\n", m->backend);
		return 2;
	}
	if (ts->min_replicas == TRIGSEL_INVALID ||
	    ts->max_replicas == TRIGSEL_INVALID) {
		fprintf(stderr, TUNE_PROG ": %s: spec.minReplicaCount or "
			"maxReplicaCount is not a whole number >= 0\n",
			o->file);
		return 2;
	}
	return 0;
bad:
	fprintf(stderr, TUNE_PROG ": %s\n", me.msg);
	return 2;
}

int cmd_tune(int argc, char **argv)
{
	struct tune_opts o;
	struct trigsel ts;
	struct config cfg;
	struct meta m;
	struct tune_hist hi;
	struct trace all;
	struct tune_part train, held;
	struct tune_key keys[TUNE_KEYS_MAX];
	struct tune_outcome x;
	struct tune_ctx c;
	struct tune_goal g;
	struct sim_config sc;
	char err[CONFIG_ERR_MAX], cold[4][16], why[128], desc[256];
	const struct backend *be = NULL;
	int rc, curl_up = 0;

	memset(&o, 0, sizeof(o));
	memset(&hi, 0, sizeof(hi));
	memset(&x, 0, sizeof(x));
	memset(&c, 0, sizeof(c));
	o.trigger = -1;
	o.range_s = TUNE_RANGE_DEFAULT_S;
	o.step_s = TUNE_STEP_DEFAULT_S;
	o.sla_s = 2;
	o.target = 0.99;
	o.cold_start_s = META_COLD_START_DEFAULT;
	o.queue_timeout_s = 60;
	o.service_cv = 1;
	o.seed = 1;
	trigsel_init(&ts);
	config_init(&cfg);
	meta_init(&m);
	trace_init(&all);
	tune_part_init(&train, "training");
	tune_part_init(&held, "held-out");
	rc = tune_parse(argc, argv, &o);
	if (rc) {
		rc = rc < 0 ? 0 : rc;
		goto out;
	}
	rc = 2;
	if (log_set_level("error"))
		goto out;
	if (trigsel_gather(&ts, TUNE_PROG, o.file, o.sel, o.trigger, &o.args))
		goto out;
	if (!o.trace && config_from_flags(&cfg, o.cfg_path, o.prom, err)) {
		fprintf(stderr, TUNE_PROG ": %s\n", err);
		goto out;
	}
	rc = tune_meta(&o, &ts, &cfg, &m);
	if (rc)
		goto out;
	if (m.schedule && !o.quiet)
		fprintf(stderr, TUNE_PROG ": note: the trigger has a schedule; "
			"the simulator applies its windows at simulated "
			"times, not the history's, and tune searches the "
			"base keys\n");
	if (o.trace) {
		rc = tune_from_file(&o, &m, &hi, &all);
	} else {
		be = config_backend(&cfg, m.backend);
		rc = 1;
		if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
			fprintf(stderr, TUNE_PROG ": curl_global_init "
				"failed\n");
			goto out;
		}
		curl_up = 1;
		rc = tune_from_backend(&o, &m, &cfg, &hi, &all);
	}
	if (rc)
		goto out;
	rc = 1;
	/* The fleet: the trigger's slots, the real cold start, the SLA;
	 * Prometheus' rate window as the query's. */
	sim_config_init(&sc);
	sc.slots = m.model.slots_per_replica;
	sc.cold_start_s = hi.cold_s > 0 ? hi.cold_s : o.cold_start_s;
	sc.sla_s = o.sla_s;
	sc.queue_timeout_s = o.queue_timeout_s;
	if (m.rate_window_s > sc.scrape_s)
		sc.rate_window_s = m.rate_window_s;
	x.slots = sc.slots;
	x.cold_s = sc.cold_start_s;
	x.min_r = ts.min_replicas >= 0 ? (int32_t)ts.min_replicas : 1;
	x.max_r = ts.max_replicas >= 0 ? (int32_t)ts.max_replicas : 100;
	if (tune_part_make(&train, &all, 0, hi.train_s, &sc, x.min_r))
		goto out;
	/* the plot's samples, of the held-out part only */
	sc.ts_step_s = o.plot ? TUNE_PLOT_STEP_S : 0;
	if (tune_part_make(&held, &all, hi.train_s, all.span_s, &sc, x.min_r))
		goto out;
	trace_free(&all);
	x.keys = keys;
	x.nkeys = tune_keys(keys, &m, &ts, &o, cold);
	x.bound = tune_search_bound(keys, x.nkeys, TUNE_PASSES);
	c.o = &o;
	c.ts = &ts;
	c.keys = keys;
	c.nkeys = x.nkeys;
	snprintf(c.replicas, sizeof(c.replicas),
		 "minReplicaCount=%d,maxReplicaCount=%d", (int)x.min_r,
		 (int)x.max_r);
	c.part = &train;
	c.bound = x.bound;
	g.target = o.target + TUNE_GUARD * (1 - o.target);
	g.margin_hours = TUNE_MARGIN_HOURS;
	g.margin_att = TUNE_MARGIN_ATT;
	if (tune_search(keys, x.nkeys, &g, TUNE_PASSES, tune_eval, &c,
			&x.res)) {
		fprintf(stderr, TUNE_PROG ": training simulation: %s\n",
			c.err[0] ? c.err : "the search stopped");
		goto out;
	}
	if (!x.res.current.valid) {
		fprintf(stderr, TUNE_PROG ": the simulator refuses the current "
			"metadata (see above)\n");
		rc = 2;
		goto out;
	}
	c.part = &held;
	snprintf(desc, sizeof(desc), "%s: held-out %.1f h", ts.who[0] ?
		 ts.who : "staffer tune", hi.holdout_s / 3600);
	if (tune_holdout(&c, &x, desc))
		goto out;
	g.target = o.target;
	tune_verdict(&x, &g, why, sizeof(why));
	if (o.json) {
		if (tune_json(&o, &ts, &hi, &x)) {
			fprintf(stderr, TUNE_PROG ": out of memory\n");
			goto out;
		}
	} else {
		tune_text(&o, &ts, be, &hi, &x);
	}
	fflush(stdout);
	rc = 0;
out:
	tune_part_release(&train);
	tune_part_release(&held);
	trace_free(&all);
	meta_release(&m);
	config_release(&cfg);
	trigsel_release(&ts);
	trigsel_pairs_release(&o.args);
	if (curl_up)
		curl_global_cleanup();
	return rc;
}
