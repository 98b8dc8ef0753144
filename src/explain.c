/*
 * explain.c - `staffer explain`: the model on live metrics.
 *
 * For one trigger, what `staffer serve` would answer KEDA now, and why:
 * every query as sent with its value or its error, then the breakdown as
 * `staffer calc` prints it (report.h), the smoothing, the target and the
 * activity.  It goes the server's own way, not a copy of it: the metadata
 * through scaler_parse() (same messages), the answer through
 * scaler_evaluate() with SCALER_METRICS and then SCALER_ACTIVE, over the
 * fetch thread, against the backends of --config or --prometheus.
 *
 * The metadata comes from key=value arguments and/or --file, a ScaledObject
 * YAML read by ydoc.c as `staffer lint` reads it; --name NS/NAME and
 * --trigger N pick one staffer trigger when the file holds several, and
 * key=value arguments override the file's keys (trigsel.h, which `staffer
 * tune` shares).
 *
 * A fresh process has no smoothing memory: without currentReplicasQuery
 * the target is the model's raw answer (a running server may still be
 * stepping down from a higher one); with it, the target is smoothed from
 * the replicas it reads, as every server pod does.  The output says which.
 *
 * Threading: the scaler's callback runs on the fetch thread and renders
 * the report there (the result's borrowed pointers live only during it);
 * the main thread waits on a condition variable with a deadline.
 *
 * Exit status: 0 an answer was computed, 1 the backend or the data is
 * unavailable (the message names the query and why), 2 bad usage, input
 * or metadata (the server's INVALID_ARGUMENT messages), or a ScaledObject
 * whose namespace (from --file) its backend's allowlist leaves out (the
 * server's PERMISSION_DENIED message, from the same check).
 */
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ask.h"
#include "cmd.h"
#include "config.h"
#include "fetch.h"
#include "log.h"
#include "meta.h"
#include "opt.h"
#include "promql.h"
#include "report.h"
#include "scaler.h"
#include "sched.h"
#include "show.h"
#include "trigsel.h"
#include "tz.h"

#define EXPLAIN_TIMEOUT_MAX 3600.0  /* --timeout, s */
#define EXPLAIN_PROG "staffer explain"
#define EXPLAIN_ZEROS_MAX 12        /* instant queries of one trigger */
#define EXPLAIN_NOTE_MAX 1024


/* ---- one evaluation, rendered on the fetch thread ----------------------- */

struct explain {
	const struct config *cfg;
	int json;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done;                    /* under mu: the callback has run */
	int timed_out;               /* under mu: gave up waiting */
	char lost[96];               /* what an abandoned query shows */
	/* the result, written by the callback before done */
	enum scaler_err err;
	char msg[SCALER_MSG_MAX];
	int active;
	char *text;                  /* the text report (METRICS, text) */
	size_t text_len;
	cJSON *o;                    /* the JSON object (METRICS, --json) */
	int nomem;
	/* the instant queries that read 0 (copied on the fetch thread), and
	 * what the second look at them found (main thread) */
	struct explain_zero {
		char *key, *query;
		char *note;              /* NULL: a 0 that was measured */
	} zero[EXPLAIN_ZEROS_MAX];
	size_t n_zero;
};

/* What a failed answer shows: its error, or, after a timeout, that. */
static const char *why_failed(const struct fetch_answer *a, const char *lost)
{
	return lost ? lost : a->msg;
}

/* One query and its answer, as a text line; lost: NULL, or what a
 * failed answer shows after a timeout. */
static void text_read(FILE *fp, const struct scaler_read *rd,
		      const char *lost)
{
	const struct fetch_answer *a = rd->answer;
	char q[META_QUERY_MAX + 4];

	show_escaped(q, META_QUERY_MAX, rd->query, strlen(rd->query));
	fprintf(fp, "query      %s", rd->key);
	if (rd->range_s > 0)
		fprintf(fp, " over %g s at %g s", rd->range_s, rd->step_s);
	if (!a)
		fprintf(fp, ": not answered\n");
	else if (a->err != PROM_OK)
		fprintf(fp, ": error: %s\n", why_failed(a, lost));
	else if (rd->range_s > 0 && a->n > 0)
		fprintf(fp, ": %zu point%s, last %g\n", a->n,
			a->n == 1 ? "" : "s", a->vals[a->n - 1]);
	else if (rd->range_s > 0)
		fprintf(fp, ": no points\n");
	else
		fprintf(fp, " = %g\n", a->value);
	fprintf(fp, "           %s\n", q);
}

/* One query and its answer, as a JSON object in array arr. */
static int json_read(cJSON *arr, const struct scaler_read *rd,
		     const char *lost)
{
	const struct fetch_answer *a = rd->answer;
	cJSON *o = cJSON_CreateObject();
	int ok;

	if (!o)
		return -1;
	cJSON_AddItemToArray(arr, o);
	ok = cJSON_AddStringToObject(o, "key", rd->key) &&
	     cJSON_AddStringToObject(o, "query", rd->query) &&
	     cJSON_AddNumberToObject(o, "range_seconds", rd->range_s) &&
	     cJSON_AddNumberToObject(o, "step_seconds", rd->step_s);
	if (!ok || !a)
		return ok ? 0 : -1;
	if (a->err != PROM_OK)
		return cJSON_AddStringToObject(o, "error",
					       why_failed(a, lost)) ? 0 : -1;
	if (rd->range_s > 0)
		return cJSON_AddNumberToObject(o, "points", (double)a->n) &&
		       (a->n == 0 || cJSON_AddNumberToObject(o, "value",
					a->vals[a->n - 1])) ? 0 : -1;
	return cJSON_AddNumberToObject(o, "value", a->value) ? 0 : -1;
}

/* Why there is no series though the decision wanted one. */
static const char *no_series(const struct scaler_result *r)
{
	size_t i;

	for (i = 0; i < r->n_reads; i++) {
		const struct fetch_answer *a = r->reads[i].answer;

		if (!strstr(r->reads[i].key, "(range)"))
			continue;
		if (!a)
			return "its range query was not answered";
		if (a->err != PROM_OK)
			return "its range query failed (see above)";
		if (a->n < 2)
			return "its range query returned fewer than 2 points";
		return "its range query has gaps (the forecast and the "
		       "peakedness need evenly spaced points)";
	}
	return "there was no range query";
}

/* The report of one decision; the time shown is now, in the trigger's
 * zone (the scaler took the window at the call). */
static void fill_report(struct report *rep, const struct scaler_result *r,
			char when[TZ_TIME_MAX])
{
	const struct meta *m = r->meta;
	time_t now = time(NULL);

	memset(rep, 0, sizeof(*rep));
	rep->m = m;
	rep->s = &r->sig;
	rep->d = r->d;
	rep->o = r->obs;
	rep->no_series = no_series(r);
	tz_format(m->tz, (int64_t)now, when, TZ_TIME_MAX);
	rep->when = when;
	rep->day = sched_day_name(tz_weekday(m->tz, (int64_t)now));
	rep->zone = tz_name(m->tz);
	rep->window = r->window;
}

static void text_metrics(FILE *fp, const struct explain *x,
			 const struct scaler_result *r, const char *lost)
{
	const struct meta *m = r->meta;
	const struct backend *be = config_backend(x->cfg, m->backend);
	struct report rep;
	char when[TZ_TIME_MAX];
	size_t i;

	fprintf(fp, "backend    '%s' %s\n", be ? be->name : "?",
		be ? be->url : "?");
	for (i = 0; i < r->n_reads; i++)
		text_read(fp, &r->reads[i], lost);
	if (!r->d)
		return;
	fill_report(&rep, r, when);
	report_text(fp, &rep);
	if (!r->obs->have_view)
		fprintf(fp, "memory     none: this is a fresh process (a "
			"server's margin and step limit start from its last "
			"answer;\n           currentReplicasQuery makes every "
			"pod and explain agree)\n");
	fprintf(fp, "target     %lld replicas (GetMetrics)\n",
		(long long)r->target);
}

static int json_metrics(cJSON *o, const struct explain *x,
			const struct scaler_result *r, const char *lost)
{
	const struct meta *m = r->meta;
	const struct backend *be = config_backend(x->cfg, m->backend);
	struct report rep;
	char when[TZ_TIME_MAX];
	cJSON *arr, *b;
	size_t i;

	b = cJSON_AddObjectToObject(o, "backend");
	if (!b || !cJSON_AddStringToObject(b, "name", be ? be->name : "?") ||
	    !cJSON_AddStringToObject(b, "url", be ? be->url : "?"))
		return -1;
	arr = cJSON_AddArrayToObject(o, "queries");
	if (!arr)
		return -1;
	for (i = 0; i < r->n_reads; i++)
		if (json_read(arr, &r->reads[i], lost))
			return -1;
	if (!r->d)
		return 0;
	fill_report(&rep, r, when);
	if (report_json(o, &rep))
		return -1;
	if (!cJSON_AddNumberToObject(o, "raw_replicas", (double)r->d->raw) ||
	    !cJSON_AddStringToObject(o, "smoothing", r->obs->have_view ?
				     "observed" : "none"))
		return -1;
	if (r->obs->have_view &&
	    (!cJSON_AddNumberToObject(o, "current_replicas",
				      (double)r->obs->current) ||
	     !cJSON_AddNumberToObject(o, "recent_max_replicas",
				      (double)r->obs->recent_max)))
		return -1;
	return 0;
}

/* The end of either callback: the outcome, and wake the main thread. */
static void eval_done(struct explain *x, const struct scaler_result *r)
{
	pthread_mutex_lock(&x->mu);
	x->err = r->err;
	memcpy(x->msg, r->msg, sizeof(x->msg));
	x->active = r->active;
	x->done = 1;
	pthread_cond_signal(&x->cv);
	pthread_mutex_unlock(&x->mu);
}

/* ---- a 0 made up by a fallback (`or vector(0)`) -------------------------- */

/* Copy the instant queries that read 0: the second look happens on the
 * main thread, after the evaluation (the fetch thread must not wait for
 * itself). */
static void zeros_note(struct explain *x, const struct scaler_result *r)
{
	size_t i;

	for (i = 0; i < r->n_reads && x->n_zero < EXPLAIN_ZEROS_MAX; i++) {
		const struct scaler_read *rd = &r->reads[i];
		struct explain_zero *z = &x->zero[x->n_zero];

		if (rd->range_s > 0 || !rd->answer ||
		    rd->answer->err != PROM_OK || rd->answer->value != 0)
			continue;
		z->key = strdup(rd->key);
		z->query = strdup(rd->query);
		z->note = NULL;
		if (!z->key || !z->query) {
			free(z->key);
			free(z->query);
			x->nomem = 1;
			continue;
		}
		x->n_zero++;
	}
}

/* One instant answer, kept (ask_fn). */
struct explain_look {
	enum prom_err err;
	double value;
};

static void look_done(void *arg, const struct fetch_answer *a)
{
	struct explain_look *l = arg;

	l->err = a->err;
	l->value = a->value;
}

/* Ask backend be for query now: 1 when it has a finite value (into
 * *v), 0 when it has none (no series, NaN), -1 when it failed. */
static int explain_look(struct fetch *f, struct config *cfg,
			const struct backend *be, const char *query,
			double timeout_s, double *v)
{
	struct fetch_query q;
	struct explain_look l = { PROM_EHTTP, 0 };

	memset(&q, 0, sizeof(q));
	q.backend = be;
	q.cfg = cfg;
	q.query = query;
	if (ask_wait(f, "staffer-explain", &q, timeout_s, look_done, &l))
		return -1;
	if (l.err == PROM_EEMPTY || l.err == PROM_ENAN)
		return 0;
	if (l.err != PROM_OK)
		return -1;
	*v = l.value;
	return 1;
}

/*
 * For each query that read 0: is the 0 its fallback's?  It is when the
 * query has one (promql.h) and its measured part has no series, unless
 * the fallback is guarded by `up` and up says the exporter is there (then
 * the 0 is idle traffic, as meant).  The note says so and what to do.
 */
static void zeros_look(struct explain *x, struct fetch *f, struct config *cfg,
		       const struct backend *be, double timeout_s)
{
	struct promql_ast a;
	struct promql_fallback fb;
	char measured[META_QUERY_MAX + 16], up[512], fbtext[160], shown[200];
	double v;
	size_t i, at;
	int m, u = 0;

	for (i = 0; i < x->n_zero; i++) {
		struct explain_zero *z = &x->zero[i];
		const struct promql_node *o;

		if (promql_parse(&a, z->query, strlen(z->query), NULL))
			continue;
		if (!promql_fallback(&a, &fb) ||
		    !promql_measured(&a, measured, sizeof(measured)))
			goto next;
		m = explain_look(f, cfg, be, measured, timeout_s, &v);
		if (m != 0)         /* measured (or unknown): not our case */
			goto next;
		if (fb.up >= 0) {
			snprintf(up, sizeof(up), "max(%s)",
				 promql_text(&a, fb.up, fbtext, sizeof(fbtext)));
			u = explain_look(f, cfg, be, up, timeout_s, &v);
			if (u < 0 || (u == 1 && v >= 1))
				goto next;  /* the exporter is up: idle */
		}
		o = &a.nodes[fb.node];
		at = a.nodes[o->lhs].end;
		while (at < o->end && (z->query[at] == ' ' ||
				       z->query[at] == '\t' ||
				       z->query[at] == '\n'))
			at++;
		show_text(fbtext, sizeof(fbtext) - 4, z->query + at, o->end - at);
		show_text(shown, sizeof(shown) - 4, measured, strlen(measured));
		z->note = malloc(EXPLAIN_NOTE_MAX);
		if (!z->note) {
			x->nomem = 1;
			goto next;
		}
		snprintf(z->note, EXPLAIN_NOTE_MAX, "%s = 0 only because of its "
			 "fallback '%s': its measured part, %s, has no series%s. "
			 "A failed scrape, pods that are gone or a renamed metric "
			 "read as 0 this way, not as missing data; %s "
			 "(docs/cookbook.md)", z->key, fbtext, shown,
			 fb.up >= 0 ? ", and up says the exporter is not there" :
			 "", fb.up >= 0 ? "keep only targets that are up in the "
			 "guard: max(up{...} == 1)" : "guard the fallback so that "
			 "it reads 0 only while the exporter is up: ... or (0 * "
			 "max(up{job=\"...\"} == 1))");
next:
		promql_release(&a);
	}
}

/* scaler_done_fn for SCALER_METRICS: render while r's pointers live. */
static void on_metrics(void *arg, const struct scaler_result *r)
{
	struct explain *x = arg;
	const char *lost;
	FILE *fp;

	pthread_mutex_lock(&x->mu);
	lost = x->timed_out ? x->lost : NULL;
	pthread_mutex_unlock(&x->mu);
	zeros_note(x, r);
	if (x->json) {
		x->o = cJSON_CreateObject();
		if (!x->o || json_metrics(x->o, x, r, lost))
			x->nomem = 1;
	} else {
		fp = open_memstream(&x->text, &x->text_len);
		if (fp) {
			text_metrics(fp, x, r, lost);
			if (fclose(fp))
				x->nomem = 1;
		} else {
			x->nomem = 1;
		}
	}
	eval_done(x, r);
}

/* scaler_done_fn for SCALER_ACTIVE. */
static void on_active(void *arg, const struct scaler_result *r)
{
	eval_done(arg, r);
}

/*
 * Evaluate m (borrowed) and wait for the callback until *deadline.  0 when
 * it ran; -1 when the fetch module refused the job; 1 on timeout, after
 * which the fetch thread has been stopped (the callback has then run too,
 * with "shutting down" answers).
 */
static int evaluate(struct explain *x, struct scaler *sc, struct fetch *f,
		    const char *ns, const char *name, struct meta *m,
		    enum scaler_kind kind, const struct timespec *deadline)
{
	int rc = 0, e = 0;

	x->done = 0;
	if (scaler_evaluate(sc, "explain", ns, name, NULL, m, kind,
			    kind == SCALER_METRICS ?
			    on_metrics : on_active, x))
		return -1;
	pthread_mutex_lock(&x->mu);
	while (!x->done && e != ETIMEDOUT)
		e = pthread_cond_timedwait(&x->cv, &x->mu, deadline);
	if (!x->done) {
		rc = 1;
		x->timed_out = 1;
	}
	pthread_mutex_unlock(&x->mu);
	if (rc)
		fetch_stop(f);   /* completes the job: the callback runs */
	return rc;
}

/* ---- the command ---------------------------------------------------------- */

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: staffer explain [options] [key=value ...]\n"
"  What `staffer serve` would answer now for one trigger, and why: each\n"
"  query with its value or error, then every term as `staffer calc` shows\n"
"  it, the smoothing, the target and IsActive.\n"
"  --config FILE      backends, as for serve (env STAFFER_CONFIG)\n"
"  --prometheus URL   one backend 'default' (env STAFFER_PROMETHEUS)\n"
"  --file FILE        a ScaledObject YAML (- for stdin): its staffer\n"
"                     trigger's metadata; key=value arguments override it\n"
"  --name NS/NAME     which ScaledObject of FILE (NAME: any namespace)\n"
"  --trigger N        which of its triggers (from 0, as lint counts)\n"
"  --json             one JSON object: calc's keys, the queries, target\n"
"  --timeout SECONDS  give up after this long (default: twice the\n"
"                     backend's timeoutSeconds + 10)\n"
"  --log-level LEVEL  the server's own log lines (default error)\n"
"  key=value          ScaledObject metadata (docs/metadata.md)\n"
"exit status: 0 answered, 1 backend or data unavailable, 2 bad usage or\n"
"metadata (the server's INVALID_ARGUMENT message) or a namespace its\n"
"backend is not open to (PERMISSION_DENIED)\n"
"example: staffer explain --prometheus http://localhost:9090 \\\n"
"           arrivalRateQuery='sum(rate(requests_total[1m]))' "
"serviceTime=10\n");
}

/* The options and key=value arguments. */
struct opts {
	const char *cfg_path, *prom, *file, *sel, *level;
	long trigger;                 /* -1: any */
	double timeout_s;             /* 0: the default */
	int json;
	struct trigsel_pairs args;
};

/* A key=value argument: metadata over the file's. */
static int explain_arg(void *ctx, const char *prog, const char *a)
{
	return trigsel_pairs_arg(&((struct opts *)ctx)->args, prog, a);
}

#define EO(f) offsetof(struct opts, f)

static const struct opt explain_opts[] = {
	OPT_S("--config", EO(cfg_path), 0),
	OPT_S("--prometheus", EO(prom), 0),
	OPT_S("--file", EO(file), 0),
	OPT_S("--name", EO(sel), 0),
	OPT_S("--log-level", EO(level), 0),
	OPT_L("--trigger", EO(trigger), 0, 10000, NULL),
	OPT_D("--timeout", EO(timeout_s), 0,
	      EXPLAIN_TIMEOUT_MAX, "seconds", OPT_ABOVE),
	OPT_F("--json", EO(json)),
	OPT_END,
};

static const struct opt_spec explain_spec = {
	EXPLAIN_PROG, explain_opts, usage, explain_arg
};

/* Parse argv into o.  -1 to exit 0 (help printed), 0 ok, 2 bad usage
 * (message printed). */
static int parse_args(int argc, char **argv, struct opts *o)
{
	enum opt_rc r = opt_parse(&explain_spec, argc, argv, o);

	if (r != OPT_OK)
		return r == OPT_HELP ? -1 : 2;
	switch (trigsel_check_args(EXPLAIN_PROG, o->file, o->sel, o->trigger,
				   o->args.n)) {
	case 0:
		break;
	case -2:
		usage(stderr);
		return 2;
	default:
		return 2;
	}
	return 0;
}


/* "notes": the zeros a fallback made up (none: no member).  0, or -1
 * out of memory. */
static int json_notes(struct explain *x)
{
	cJSON *arr = NULL, *n;
	size_t i;

	for (i = 0; i < x->n_zero; i++) {
		if (!x->zero[i].note)
			continue;
		if (!arr && !(arr = cJSON_AddArrayToObject(x->o, "notes")))
			return -1;
		n = cJSON_CreateObject();
		if (!n)
			return -1;
		cJSON_AddItemToArray(arr, n);
		if (!cJSON_AddStringToObject(n, "key", x->zero[i].key) ||
		    !cJSON_AddStringToObject(n, "message", x->zero[i].note))
			return -1;
	}
	return 0;
}

/* Print what was found, ending in err and msg (the evaluation's, or
 * ours); active is IsActive's answer.  Returns the exit status. */
static int finish(struct explain *x, enum scaler_err err, const char *msg,
		  int active, const char *who)
{
	int rc = err == SCALER_EINVAL ? 2 : err == SCALER_EUNAVAIL ? 1 : 0;
	char *text;
	size_t i;

	if (x->json && x->o) {
		if (who && !cJSON_AddStringToObject(x->o, "scaledobject", who))
			x->nomem = 1;
		if (rc == 0 && !cJSON_AddBoolToObject(x->o, "is_active",
						      active))
			x->nomem = 1;
		if (rc && (!cJSON_AddStringToObject(x->o, "error", msg) ||
			   !cJSON_AddStringToObject(x->o, "status", rc == 2 ?
				"invalid_argument" : "unavailable")))
			x->nomem = 1;
		if (json_notes(x))
			x->nomem = 1;
		text = cJSON_PrintUnformatted(x->o);
		if (text)
			printf("%s\n", text);
		else
			x->nomem = 1;
		free(text);
	} else if (x->text) {
		if (who)
			printf("trigger    %s\n", who);
		fwrite(x->text, 1, x->text_len, stdout);
		if (rc == 0)
			printf("IsActive   %s\n", active ? "yes" : "no");
		for (i = 0; i < x->n_zero; i++)
			if (x->zero[i].note)
				printf("note       %s\n", x->zero[i].note);
	}
	fflush(stdout);
	if (x->nomem) {
		fprintf(stderr, EXPLAIN_PROG ": out of memory\n");
		return 1;
	}
	if (rc)
		fprintf(stderr, EXPLAIN_PROG ": %s\n", msg);
	return rc;
}

int cmd_explain(int argc, char **argv)
{
	struct opts o;
	struct trigsel ts;
	struct config cfg;
	struct explain x;
	struct fetch *f = NULL;
	struct scaler *sc = NULL;
	struct meta m;
	struct timespec deadline;
	const struct backend *be;
	char err[CONFIG_ERR_MAX > SCALER_MSG_MAX ? CONFIG_ERR_MAX :
		 SCALER_MSG_MAX];
	char mmsg[SCALER_MSG_MAX];
	const char *ns, *name;
	enum scaler_err merr = SCALER_OK;
	int rc = 2, metrics_rc = 0, active_rc = 0, mactive = 0, sync = 0;
	int curl_up = 0;

	memset(&o, 0, sizeof(o));
	trigsel_init(&ts);
	memset(&x, 0, sizeof(x));
	o.trigger = -1;
	config_init(&cfg);
	meta_init(&m);
	rc = parse_args(argc, argv, &o);
	if (rc) {
		rc = rc < 0 ? 0 : rc;
		goto out;
	}
	rc = 2;
	if (log_set_level(o.level ? o.level : "error")) {
		fprintf(stderr, EXPLAIN_PROG ": log level '%.60s': allowed: "
			"debug, info, warn, error\n", o.level);
		goto out;
	}
	if (trigsel_gather(&ts, EXPLAIN_PROG, o.file, o.sel, o.trigger,
			   &o.args))
		goto out;
	if (config_from_flags(&cfg, o.cfg_path, o.prom, err)) {
		fprintf(stderr, EXPLAIN_PROG ": %s\n", err);
		goto out;
	}
	rc = 1;
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		fprintf(stderr, EXPLAIN_PROG ": curl_global_init failed\n");
		goto out;
	}
	curl_up = 1;
	if (pthread_mutex_init(&x.mu, NULL))
		goto out;
	if (pthread_cond_init(&x.cv, NULL)) {
		pthread_mutex_destroy(&x.mu);
		goto out;
	}
	sync = 1;
	x.cfg = &cfg;
	x.json = o.json;
	f = fetch_new();
	sc = f ? scaler_new(&cfg, f, NULL) : NULL;
	if (!sc) {
		fprintf(stderr, EXPLAIN_PROG ": cannot start the fetch "
			"thread\n");
		goto out;
	}
	/* The server's parser, messages and namespace check: bad metadata
	 * is exit 2, and so is a namespace its backend is not open to,
	 * which the server refuses before it reads anything.  The check
	 * needs the ScaledObject's namespace, which only a file gives. */
	merr = scaler_parse(sc, ts.ns, &m, (const char *const *)ts.md.keys,
			    (const char *const *)ts.md.values, ts.md.n, err);
	if (merr != SCALER_OK) {
		fprintf(stderr, EXPLAIN_PROG ": %s%s\n",
			merr == SCALER_EDENIED ?
			"the server answers PERMISSION_DENIED: " : "", err);
		rc = 2;
		goto out;
	}
	be = config_backend(&cfg, m.backend);
	if (!ts.ns && be->n_namespaces > 0)
		fprintf(stderr, EXPLAIN_PROG ": note: backend '%s' is open to "
			"the namespaces of its 'namespaces' list only, and no "
			"namespace was given (--file with metadata.namespace): "
			"not checked\n", be->name);
	if (!(o.timeout_s > 0))
		o.timeout_s = 2 * be->timeout_s + 10;
	snprintf(x.lost, sizeof(x.lost), "no answer within %g s (--timeout)",
		 o.timeout_s);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += (time_t)o.timeout_s;
	deadline.tv_nsec += (long)((o.timeout_s - (double)(time_t)o.timeout_s)
				   * 1e9);
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	ns = ts.ns ? ts.ns : "default";
	name = ts.name ? ts.name : "explain";
	/* GetMetrics, then IsActive, as KEDA asks; the second reads what the
	 * first fetched while the config's cache keeps it. */
	metrics_rc = evaluate(&x, sc, f, ns, name, &m, SCALER_METRICS,
			      &deadline);
	merr = x.err;
	memcpy(mmsg, x.msg, sizeof(mmsg));
	mactive = x.active;
	if (metrics_rc == 0 && merr == SCALER_OK) {
		/* m is borrowed by an evaluation, so it serves both */
		active_rc = evaluate(&x, sc, f, ns, name, &m, SCALER_ACTIVE,
				     &deadline);
		mactive = x.active;
	}
	if (metrics_rc < 0 || active_rc < 0) {
		merr = SCALER_EUNAVAIL;
		snprintf(mmsg, sizeof(mmsg), "the fetch thread refused the "
			 "evaluation (out of memory?)");
	} else if (metrics_rc || active_rc) {
		merr = SCALER_EUNAVAIL;
		snprintf(mmsg, sizeof(mmsg), "backend '%s': %s", be->name,
			 x.lost);
	} else if (merr == SCALER_OK) {
		merr = x.err;        /* IsActive's */
		memcpy(mmsg, x.msg, sizeof(mmsg));
	}
	/* a second look at the queries that read 0: their fallback's? */
	if (metrics_rc == 0 && active_rc == 0 && x.n_zero)
		zeros_look(&x, f, &cfg, be, o.timeout_s);
	rc = finish(&x, merr, mmsg, mactive, o.file ? ts.who : NULL);
out:
	fetch_stop(f);
	scaler_free(sc);
	fetch_free(f);
	if (sync) {
		pthread_cond_destroy(&x.cv);
		pthread_mutex_destroy(&x.mu);
	}
	free(x.text);
	cJSON_Delete(x.o);
	for (size_t i = 0; i < x.n_zero; i++) {
		free(x.zero[i].key);
		free(x.zero[i].query);
		free(x.zero[i].note);
	}
	meta_release(&m);
	trigsel_release(&ts);
	trigsel_pairs_release(&o.args);
	config_release(&cfg);
	if (curl_up)
		curl_global_cleanup();
	return rc;
}
