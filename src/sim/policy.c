/*
 * policy.c - see policy.h.
 */
#include "policy.h"

#include "forecast.h"
#include "num.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const policy_names[] = {
	[POLICY_STAFFER] = "staffer",
	[POLICY_KEDA_QUEUE] = "keda-queue",
	[POLICY_KEDA_RUNNING] = "keda-running",
	[POLICY_KEDA_COMBINED] = "keda-combined",
	[POLICY_HPA_UTIL] = "hpa-util",
	[POLICY_ORACLE] = "oracle",
	[POLICY_KEDA_SUM] = "keda-sum",
	[POLICY_STATIC] = "static",
};

#define POLICY_NKINDS (sizeof(policy_names) / sizeof(policy_names[0]))
#define POLICY_THRESHOLD_MAX 1e6

const char *policy_kind_name(enum policy_kind k)
{
	return (size_t)k < POLICY_NKINDS ? policy_names[k] : "?";
}

void policy_release(struct policy *p)
{
	meta_release(&p->meta);
	meta_init(&p->meta);
}

int policy_parse_num(const char *key, const char *val, double lo, int lo_x,
		     double hi, double *out, char *err, size_t errlen)
{
	double v;

	if (num_parse_double(val, &v) || (lo_x ? v <= lo : v < lo) ||
	    v > hi) {
		snprintf(err, errlen, "'%s': '%.40s' is not allowed; allowed: "
			 "a number %s %g and up to %g", key, val,
			 lo_x ? "above" : "from", lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

int policy_parse_int(const char *key, const char *val, long lo, long hi,
		     int32_t *out, char *err, size_t errlen)
{
	long v;

	if (num_parse_long(val, &v) || v < lo || v > hi) {
		snprintf(err, errlen, "'%s': '%.40s' is not allowed; allowed: "
			 "a whole number from %ld to %ld", key, val, lo, hi);
		return -1;
	}
	*out = (int32_t)v;
	return 0;
}

int policy_ablation_set(const struct policy_ablation *table, size_t n,
			unsigned *ablate, const char *k, const char *v,
			char *err, size_t errlen)
{
	const struct policy_ablation *a;
	size_t i;

	for (i = 0; i < n; i++) {
		a = &table[i];
		if (strcmp(k, a->key))
			continue;
		if (strcmp(v, a->rule) && strcmp(v, a->off)) {
			snprintf(err, errlen, "'%s': '%.40s' is not allowed; "
				 "allowed: %s (staffer's rule) or %s", k, v,
				 a->rule, a->off);
			return -1;
		}
		if (!strcmp(v, a->off))
			*ablate |= a->bit;
		else
			*ablate &= ~a->bit;
		return 0;
	}
	return 1;
}

/* The unified fleet's ablations (the v1 rules): drain=excess, boost=none. */
static const struct policy_ablation policy_ablations[] = {
	{ "drain", "queue", "excess", MODEL_ABLATE_DRAIN_EXCESS },
	{ "boost", "gross", "none", MODEL_ABLATE_BOOST_NET },
};

int policy_spec_open(struct policy_spec *s, const char *spec,
		     const char *const *names, size_t n, const char *allowed,
		     char *err, size_t errlen)
{
	size_t i, len = strlen(spec);

	s->spec = spec;
	s->keys = NULL;
	if (len >= sizeof(s->buf)) {
		snprintf(err, errlen, "policy '%.60s...': longer than %d bytes",
			 spec, POLICY_NAME_MAX - 1);
		return -1;
	}
	memcpy(s->buf, spec, len + 1);
	s->keys = strchr(s->buf, ':');
	if (s->keys)
		*s->keys++ = '\0';
	for (i = 0; i < n; i++)
		if (!strcmp(s->buf, names[i]))
			return (int)i;
	snprintf(err, errlen, "unknown policy '%.60s'%s", s->buf, allowed);
	return -1;
}

int policy_spec_keys(struct policy_spec *s, policy_key_fn *fn, void *arg,
		     char *err, size_t errlen)
{
	char why[POLICY_ERR_MAX], *tok, *save = NULL;
	char *keys = s->keys;

	s->keys = NULL;
	for (tok = keys ? strtok_r(keys, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq || eq == tok) {
			snprintf(err, errlen, "policy '%.80s': '%.60s' is not "
				 "key=value", s->spec, tok);
			return -1;
		}
		*eq = '\0';
		if (fn(arg, tok, eq + 1, why, sizeof(why))) {
			snprintf(err, errlen, "policy '%.80s': %s", s->spec,
				 why);
			return -1;
		}
	}
	return 0;
}

/* HPA and ScaledObject keys shared by every policy.  1 = not one of
 * them, 0 = set, -1 = bad value. */
static int policy_common(struct policy *p, const char *k, const char *v,
			 char *err, size_t errlen)
{
	struct hpa_config *h = &p->hpa;
	double d;
	int32_t i;

	if (!strcmp(k, "minReplicaCount")) {
		if (policy_parse_int(k, v, 0, HPA_REPLICAS_MAX, &i, err, errlen))
			return -1;
		p->keda.min_replica_count = i;
		h->min_replicas = i > 0 ? i : 1;
		return 0;
	}
	if (!strcmp(k, "maxReplicaCount"))
		return policy_parse_int(k, v, 1, HPA_REPLICAS_MAX, &h->max_replicas,
				  err, errlen) ? -1 : 0;
	if (!strcmp(k, "cooldownPeriod"))
		return policy_parse_num(k, v, 0, 0, 86400, &p->keda.cooldown_s, err,
				  errlen) ? -1 : 0;
	if (!strcmp(k, "pollingInterval"))
		return policy_parse_num(k, v, 1, 0, 3600, &p->keda.poll_s, err,
				  errlen) ? -1 : 0;
	if (!strcmp(k, "activationThreshold"))
		return policy_parse_num(k, v, 0, 0, POLICY_THRESHOLD_MAX,
				  &p->activation, err, errlen) ? -1 : 0;
	if (!strcmp(k, "behavior")) {
		if (strcmp(v, "none")) {
			snprintf(err, errlen, "'behavior': '%.40s' is not "
				 "allowed; allowed: none (set behavior "
				 "fields with the up*/down* keys)", v);
			return -1;
		}
		h->behavior = 0;
		h->up.window_s = h->down.window_s = HPA_UNSET;
		h->up.tolerance = h->down.tolerance = -1;
		h->up.select = h->down.select = HPA_SELECT_UNSET;
		h->up.npol = h->down.npol = 0;
		return 0;
	}
	if (!strcmp(k, "tolerance") || !strcmp(k, "upTolerance") ||
	    !strcmp(k, "downTolerance")) {
		if (policy_parse_num(k, v, 0, 0, 10, &d, err, errlen))
			return -1;
		if (k[0] != 'd')
			h->up.tolerance = d;
		if (k[0] != 'u')
			h->down.tolerance = d;
		h->behavior = 1;
		return 0;
	}
	if (!strcmp(k, "upWindow") || !strcmp(k, "downWindow")) {
		if (policy_parse_int(k, v, 0, HPA_WINDOW_MAX, &i, err, errlen))
			return -1;
		if (k[0] == 'u')
			h->up.window_s = i;
		else
			h->down.window_s = i;
		h->behavior = 1;
		return 0;
	}
	if (!strcmp(k, "upSelect") || !strcmp(k, "downSelect")) {
		if (hpa_select_parse(v, k[0] == 'u' ? &h->up.select
						    : &h->down.select)) {
			snprintf(err, errlen, "'%s': '%.40s' is not allowed; "
				 "allowed: Max, Min, Disabled", k, v);
			return -1;
		}
		h->behavior = 1;
		return 0;
	}
	if (!strcmp(k, "upPolicies") || !strcmp(k, "downPolicies")) {
		if (hpa_policies_parse(v, k[0] == 'u' ? &h->up : &h->down,
				       err, errlen))
			return -1;
		h->behavior = 1;
		return 0;
	}
	return 1;
}

/* staffer as v2 shipped it: the rules v3 changed, set back through their
 * metadata keys (docs/benchmark.md lists them). */
static int policy_v2(struct meta *m, char *err, size_t errlen)
{
	static const char *const kv[][2] = {
		{ "scaleDownHoldOn", "rate" },
		{ "forecastMethod", "holt" },
		{ "drainSeconds", "30" },
		{ "surgeQuantile", "0" },
	};
	struct meta_error me;
	size_t i;

	for (i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
		if (meta_set(m, kv[i][0], kv[i][1], &me) != META_OK) {
			snprintf(err, errlen, "%s", me.msg);
			return -1;
		}
	return 0;
}

/* Keys of one policy kind.  1 = unknown key, 0 = set, -1 = bad value. */
static int policy_own(struct policy *p, const char *k, const char *v,
		      char *err, size_t errlen)
{
	struct meta_error me;
	int r;

	switch (p->kind) {
	case POLICY_STAFFER:
		if (!strcmp(k, "forecast")) {
			if (strcmp(v, "perfect")) {
				snprintf(err, errlen, "'forecast': '%.40s' is "
					 "not allowed; allowed: perfect (the "
					 "simulator's reference)", v);
				return -1;
			}
			p->perfect_forecast = 1;
			return 0;
		}
		if (!strcmp(k, "feedback") || !strcmp(k, "w")) {
			int *flag = k[0] == 'f' ? &p->feedback : &p->w_given;
			const char *yes = k[0] == 'f' ? "on" : "given";
			const char *no = k[0] == 'f' ? "off" : "measured";
			int bound = k[0] == 'f' && !strcmp(v, "bound");

			if (strcmp(v, yes) && strcmp(v, no) && !bound) {
				snprintf(err, errlen, "'%s': '%.40s' is not "
					 "allowed; allowed: %s or %s (the "
					 "simulator's %s)", k, v, no,
					 k[0] == 'f' ? "on, or bound (a bound "
					 "on any SLO feedback: maxReplicaCount "
					 "from the first miss)" : yes,
					 k[0] == 'f' ? "SLO feedback on its "
					 "wait histogram" : "W: from its "
					 "Prometheus, or serviceTime only");
				return -1;
			}
			*flag = !strcmp(v, yes);
			if (k[0] == 'f')
				p->feedback_bound = bound;
			/* The SLO feedback reads slaMissQuery, which the
			 * simulator answers from its gateway. */
			if (k[0] == 'f') {
				free(p->meta.sla_miss_query);
				p->meta.sla_miss_query = NULL;
				if (*flag &&
				    !(p->meta.sla_miss_query =
				      strdup("(the simulated gateway)"))) {
					snprintf(err, errlen, "out of memory");
					return -1;
				}
			}
			return 0;
		}
		if (!strcmp(k, "age"))
			return policy_parse_num(k, v, 0, 0, 3600,
						&p->answer_age_s, err, errlen);
		if (!strcmp(k, "rules")) {
			if (strcmp(v, "v2") && strcmp(v, "v3")) {
				snprintf(err, errlen, "'rules': '%.40s' is not "
					 "allowed; allowed: v3 (the defaults) or "
					 "v2 (the rules v3 added, off)", v);
				return -1;
			}
			return strcmp(v, "v2") ? 0 : policy_v2(&p->meta, err,
								 errlen);
		}
		if (!strcmp(k, "cold")) {
			if (strcmp(v, "measured") && strcmp(v, "given")) {
				snprintf(err, errlen, "'cold': '%.40s' is not "
					 "allowed; allowed: given or measured "
					 "(the cold start: coldStartSeconds "
					 "only, or coldStartQuery answered "
					 "with the simulator's)", v);
				return -1;
			}
			free(p->meta.cold_start_query);
			p->meta.cold_start_query = NULL;
			if (!strcmp(v, "measured") &&
			    !(p->meta.cold_start_query =
			      strdup("(the simulated kube-state-metrics)"))) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			return 0;
		}
		/* Ablations of the model's rules (model.h), to show what
		 * the rules staffer does not use would have done. */
		r = policy_ablation_set(policy_ablations,
					sizeof(policy_ablations) /
					sizeof(policy_ablations[0]),
					&p->meta.model.ablate, k, v, err,
					errlen);
		if (r <= 0)
			return r;
		if (meta_set(&p->meta, k, v, &me) == META_OK)
			return 0;
		snprintf(err, errlen, "%s", me.msg);
		return -1;
	case POLICY_KEDA_QUEUE:
	case POLICY_KEDA_RUNNING:
		if (strcmp(k, "threshold"))
			return 1;
		return policy_parse_num(k, v, 0, 1, POLICY_THRESHOLD_MAX,
				  p->kind == POLICY_KEDA_QUEUE ?
				  &p->queue_threshold : &p->running_threshold,
				  err, errlen) ? -1 : 0;
	case POLICY_KEDA_COMBINED:
		if (!strcmp(k, "queue"))
			return policy_parse_num(k, v, 0, 1, POLICY_THRESHOLD_MAX,
					  &p->queue_threshold, err, errlen)
				? -1 : 0;
		if (!strcmp(k, "running"))
			return policy_parse_num(k, v, 0, 1, POLICY_THRESHOLD_MAX,
					  &p->running_threshold, err, errlen)
				? -1 : 0;
		return 1;
	case POLICY_HPA_UTIL:
		if (strcmp(k, "target"))
			return 1;
		return policy_parse_num(k, v, 0, 1, 1, &p->util_target, err,
				  errlen) ? -1 : 0;
	case POLICY_KEDA_SUM:
		if (strcmp(k, "threshold"))
			return 1;
		return policy_parse_num(k, v, 0, 1, POLICY_THRESHOLD_MAX,
				  &p->sum_threshold, err, errlen) ? -1 : 0;
	case POLICY_STATIC:
		if (strcmp(k, "replicas"))
			return 1;
		return policy_parse_int(k, v, 0, HPA_REPLICAS_MAX,
				  &p->static_replicas, err, errlen) ? -1 : 0;
	case POLICY_ORACLE:
		return 1;
	}
	return 1;
}

static const char *policy_own_keys(enum policy_kind k)
{
	switch (k) {
	case POLICY_STAFFER:
		return "any ScaledObject metadata key; forecast=perfect, "
		       "drain=queue|excess, boost=gross|none, rules=v2|v3";
	case POLICY_KEDA_QUEUE:
	case POLICY_KEDA_RUNNING:
	case POLICY_KEDA_SUM:
		return "threshold";
	case POLICY_STATIC:
		return "replicas";
	case POLICY_KEDA_COMBINED:
		return "queue, running";
	case POLICY_HPA_UTIL:
		return "target";
	case POLICY_ORACLE:
		return "none";
	}
	return "none";
}

/* Apply one key=value to policy arg (policy_key_fn); 0 or -1 with
 * err. */
static int policy_set(void *arg, const char *k, const char *v, char *err,
		      size_t errlen)
{
	struct policy *p = arg;
	int r;

	/* A static fleet has no ScaledObject and no HPA to configure. */
	if (p->kind == POLICY_STATIC) {
		r = policy_own(p, k, v, err, errlen);
		if (r <= 0)
			return r;
		snprintf(err, errlen, "unknown key '%.60s' for policy "
			 "'static'; allowed: replicas", k);
		return -1;
	}
	r = policy_common(p, k, v, err, errlen);
	if (r <= 0)
		return r;
	r = policy_own(p, k, v, err, errlen);
	if (r <= 0)
		return r;
	snprintf(err, errlen, "unknown key '%.60s' for policy '%s'; "
		 "allowed: %s; minReplicaCount, maxReplicaCount, "
		 "cooldownPeriod, pollingInterval, activationThreshold; "
		 "tolerance, upTolerance, downTolerance, upWindow, "
		 "downWindow, upSelect, downSelect, upPolicies, "
		 "downPolicies, behavior", k, policy_kind_name(p->kind),
		 policy_own_keys(p->kind));
	return -1;
}

static void policy_defaults(struct policy *p, long slots,
			    int32_t max_replicas)
{
	hpa_config_init(&p->hpa);
	p->hpa.max_replicas = max_replicas;
	keda_config_init(&p->keda);
	p->queue_threshold = 5;
	p->running_threshold = 0.75 * (double)slots;
	p->sum_threshold = (double)slots;
	p->static_replicas = -1;
	p->util_target = 0.7;
	p->activation = 0;
	if (p->kind == POLICY_STAFFER) {
		/* The behavior staffer recommends (docs/benchmark.md):
		 * no HPA deadband, no second scale-down smoothing. */
		p->hpa.behavior = 1;
		p->hpa.up.tolerance = 0;
		p->hpa.down.tolerance = 0;
		p->hpa.down.window_s = 0;
	}
}

int policy_parse(struct policy *p, const char *spec,
		 const char *const *base_keys, const char *const *base_vals,
		 size_t nbase, long slots, int32_t max_replicas, char *err,
		 size_t errlen)
{
	struct policy_spec ps;
	char num[32];
	struct meta_error me;
	size_t i;
	char prefix[POLICY_ERR_MAX];
	int kind;

	memset(p, 0, sizeof(*p));
	meta_init(&p->meta);
	kind = policy_spec_open(&ps, spec, policy_names, POLICY_NKINDS,
				"; allowed: staffer, keda-queue, keda-running, "
				"keda-combined, keda-sum, hpa-util, oracle, "
				"static", err, errlen);
	if (kind < 0)
		return -1;
	memcpy(p->name, spec, strlen(spec) + 1);
	p->kind = (enum policy_kind)kind;
	policy_defaults(p, slots, max_replicas);
	if (p->kind == POLICY_STAFFER) {
		snprintf(num, sizeof(num), "%ld", slots);
		if (meta_set(&p->meta, "slotsPerReplica", num, &me) !=
		    META_OK) {
			snprintf(err, errlen, "%s", me.msg);
			return -1;
		}
		for (i = 0; i < nbase; i++)
			if (meta_set(&p->meta, base_keys[i], base_vals[i],
				     &me) != META_OK) {
				snprintf(err, errlen, "%s", me.msg);
				return -1;
			}
	}
	if (policy_spec_keys(&ps, policy_set, p, err, errlen))
		return -1;
	if (p->kind == POLICY_STAFFER &&
	    meta_check(&p->meta, 0, &me) != META_OK) {
		snprintf(err, errlen, "policy '%.80s': %s", spec, me.msg);
		return -1;
	}
	if (p->kind == POLICY_STAFFER && p->w_given &&
	    !(p->meta.service_time_s > 0)) {
		snprintf(err, errlen, "policy '%.80s': 'w=given' needs "
			 "'serviceTime' (the W staffer is told)", spec);
		return -1;
	}
	if (p->hpa.min_replicas > p->hpa.max_replicas) {
		snprintf(err, errlen, "policy '%.80s': minReplicaCount %d is "
			 "above maxReplicaCount %d", spec,
			 (int)p->keda.min_replica_count,
			 (int)p->hpa.max_replicas);
		return -1;
	}
	if (hpa_config_check(&p->hpa, prefix, sizeof(prefix))) {
		snprintf(err, errlen, "policy '%.80s': %s", spec, prefix);
		return -1;
	}
	return 0;
}

/* ---- running ----------------------------------------------------------- */

int policy_range_init(struct policy_range *g)
{
	memset(g, 0, sizeof(*g));
	g->raw = malloc(DECIDE_SERIES_MAX * sizeof(*g->raw));
	g->out = malloc(DECIDE_SERIES_MAX * sizeof(*g->out));
	return g->raw && g->out ? 0 : -1;
}

void policy_range_free(struct policy_range *g)
{
	free(g->raw);
	free(g->out);
	memset(g, 0, sizeof(*g));
}

int policy_run_init(struct policy_run *r, const struct policy *p)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	r->hpa = malloc(sizeof(*r->hpa));
	if (!r->hpa)
		return -1;
	if (p->kind == POLICY_STAFFER) {
		int bad = policy_range_init(&r->series) |
			  policy_range_init(&r->surge);

		/* slaMissQuery, given or from feedback=on, is answered from
		 * the simulated gateway. */
		if (p->meta.sla_miss_query)
			r->miss = malloc(DECIDE_SERIES_MAX * sizeof(*r->miss));
		if (bad || (p->meta.sla_miss_query && !r->miss)) {
			policy_run_free(r);
			return -1;
		}
	}
	hpa_init(r->hpa, &p->hpa);
	keda_init(&r->keda, &p->keda);
	smooth_init(&r->sm);
	return 0;
}

void policy_run_free(struct policy_run *r)
{
	free(r->hpa);
	r->hpa = NULL;
	policy_range_free(&r->series);
	policy_range_free(&r->surge);
	free(r->miss);
	r->miss = NULL;
}

/*
 * The signals as staffer's server reads them (scaler.c):
 * lambda = rate(arrivals), W = rate(service sum) / rate(service count),
 * Q = the queue gauge, S = rate(shed).  A query without data is unknown:
 * then -1 (GetMetrics fails, the HPA keeps its replicas).  W's fallbacks
 * are decide_observations()'s, as in the server.
 */
static int policy_staffer_obs(struct policy_run *r,
			      const struct policy_view *v,
			      struct decide_obs *o)
{
	memset(o, 0, sizeof(*o));
	if (isnan(v->arrival_rate) || isnan(v->queue_depth) ||
	    isnan(v->shed_rate))
		return -1;
	o->arrival_rate = v->arrival_rate > 0 ? v->arrival_rate : 0;
	o->queue_depth = v->queue_depth > 0 ? v->queue_depth : 0;
	o->shed_rate = v->shed_rate > 0 ? v->shed_rate : 0;
	if (r->p->meta.cold_start_query) {
		o->have_cold = 1;
		o->cold_measured = v->cold_seen;
	}
	/* w=given: staffer is told serviceTime and reads no W. */
	if (r->p->w_given)
		return 0;
	if (v->completion_rate > 0 && v->service_rate >= 0)
		o->w_measured = v->service_rate / v->completion_rate;
	if (o->w_measured > 0)
		r->last_w = o->w_measured;
	o->w_last = r->last_w;
	return 0;
}

/*
 * A range query of the arrivals' rate over range_s at step_s, ending on
 * the grid at or before now: *out and *n the points after the first one
 * with data (points before the first scrape are left out: Prometheus has
 * no data there, the series is shorter); a gap after data began, or no
 * point, gives none (*n 0), as in the server.
 */
void policy_range_read(struct policy_range *g, double range_s,
		       double step_s, const struct policy_view *v,
		       const double **out, size_t *n)
{
	double end, start, x, shift;
	size_t np, k, got = 0, keep = 0;

	*out = NULL;
	*n = 0;
	if (!(range_s > 0) || !(step_s > 0) || !v->arrivals || !g->raw)
		return;
	np = (size_t)floor(range_s / step_s + 1e-9) + 1;
	if (np < 2 || np > DECIDE_SERIES_MAX)
		return;
	end = floor(v->now / step_s + 1e-9) * step_s;
	start = end - (double)(np - 1) * step_s;
	/* The points of the last call that this one asks for again, but
	 * its newest: a scrape at that very instant may have come after. */
	shift = (start - g->t0) / step_s;
	if (g->n > 0 && step_s == g->step && shift >= 0 &&
	    fabs(shift - round(shift)) < 1e-6 && round(shift) < g->n) {
		k = (size_t)round(shift);
		keep = g->n - k - 1 < np ? g->n - k - 1 : np;
		memmove(g->raw, g->raw + k, keep * sizeof(*g->raw));
	}
	for (k = keep; k < np; k++) {
		double t = start + (double)k * step_s;

		/* A window reaching back before t = 0 is not full: the fleet
		 * had been running, but its Prometheus starts empty. */
		if (t < v->rate_window_s ||
		    simprom_rate(v->arrivals, t, v->rate_window_s, &x))
			x = NAN;
		g->raw[k] = x;
	}
	g->t0 = start;
	g->step = step_s;
	g->n = np;
	for (k = 0; k < np; k++) {
		x = g->raw[k];
		if (isnan(x)) {
			if (got)
				return; /* a gap after data began: no series */
			continue;
		}
		g->out[got++] = x > 0 ? x : 0;
	}
	*out = got ? g->out : NULL;
	*n = got;
}

/* The series decide() reads, as scaler.c fetches it: the range query of
 * arrivalRateQuery behind the forecast, the hold and the peakedness, and
 * the surge headroom's. */
static void policy_series(struct policy_run *r, const struct meta *m,
			  const struct policy_view *v, struct decide_obs *o)
{
	double range, step;

	decide_series_query_cold(m, o->size_cold_s, &range, &step);
	policy_range_read(&r->series, range, step, v, &o->series,
			  &o->n_series);
	if (o->n_series)
		o->series_step_s = step;
	decide_surge_query_cold(m, o->size_cold_s, &range, &step);
	policy_range_read(&r->surge, range, step, v, &o->surge,
			  &o->n_surge);
	if (o->n_surge)
		o->surge_step_s = step;
}

/* The miss share at t, rate(misses[w]) / rate(finished[w]) in [0, 1];
 * NaN where no request finished or the window is not full yet. */
static double policy_miss_at(const struct policy_view *v, double t)
{
	double x, y;

	if (!v->misses || !v->finished || t < v->rate_window_s ||
	    simprom_rate(v->finished, t, v->rate_window_s, &y) ||
	    simprom_rate(v->misses, t, v->rate_window_s, &x) || !(y > 0))
		return NAN;
	x /= y;
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

void policy_miss_read(double *buf, const struct meta *m,
		      const struct policy_view *v, struct decide_obs *o)
{
	double range, step, start;
	size_t n, k;

	decide_series_query_cold(m, o->size_cold_s, &range, &step);
	if (!(range > 0) || !buf || !v->misses || !v->finished)
		return;
	n = (size_t)floor(range / step + 1e-9) + 1;
	if (n > DECIDE_SERIES_MAX)
		n = DECIDE_SERIES_MAX;
	start = v->now - (double)(n - 1) * step;
	for (k = 0; k < n; k++)
		buf[k] = policy_miss_at(v, start + (double)k * step);
	o->miss = buf;
	o->n_miss = n;
	if (!(o->series_step_s > 0))
		o->series_step_s = step;
}

/*
 * currentReplicasQuery as scaler.c uses it: the gauge now, and the
 * highest value of its range query over scaleDownPeriodSeconds (step
 * clamp(period / 30, 1, 15)).  -1 when unknown.
 */
static int policy_observed(const struct policy_run *r,
			   const struct policy_view *v, double *cur,
			   double *recent)
{
	const struct meta *m = &r->p->meta;
	double range = m->scale_down_period_s, step, x;
	size_t n, k;

	if (!m->current_replicas_query || !v->replicas ||
	    simprom_last(v->replicas, v->now, cur))
		return -1;
	*recent = *cur;
	if (range < 1)
		return 0;
	step = range / 30 < 1 ? 1 : range / 30 > 15 ? 15 : range / 30;
	n = (size_t)floor(range / step + 1e-9) + 1;
	for (k = 0; k < n && k < DECIDE_SERIES_MAX; k++)
		if (!simprom_last(v->replicas, v->now - range +
				  (double)k * step, &x) && x > *recent)
			*recent = x;
	return 0;
}

/* The highest true arrival rate over a rate window that ends within
 * [now, now + horizon_s] (15 s apart): what a perfect forecast of the
 * measured rate would have to cover before a replica asked for now is
 * ready. */
static double policy_truth(const struct policy_view *v, double horizon_s)
{
	double best = 0, u, w = v->rate_window_s;

	for (u = v->now; u <= v->now + horizon_s + 1e-9; u += 15) {
		double r = (double)trace_count(v->trace, u - w, u) / w;

		if (r > best)
			best = r;
	}
	return best;
}

/* GetMetrics: the server's decision for these signals. */
static int32_t policy_staffer(struct policy_run *r,
			      const struct policy_view *v)
{
	struct model_signals s;
	struct decide_obs o;
	struct decision d;
	enum model_err merr;
	double cur, recent;
	struct meta m = r->p->meta; /* shallow: borrowed strings */

	/* The simulated Prometheus rates over its own window, which is what
	 * the arrivalRateQuery's range would say. */
	if (strcmp(meta_rate_window_source(&m), "given"))
		m.rate_window_s = v->rate_window_s;
	if (policy_staffer_obs(r, v, &o)) {
		r->metric_errors++;
		return -1;
	}
	/* feedback=bound: no SLO feedback can act before the first miss
	 * shows in slaMissQuery, nor add more than maxReplicaCount after
	 * it, so this one's attainment bounds theirs (the shared queue
	 * serves no request later on a bigger fleet). */
	if (r->p->feedback_bound && !r->tripped &&
	    policy_miss_at(v, v->now) > 0)
		r->tripped = 1;
	if (r->tripped)
		return hpa_calc_external_avg(r->hpa, v->status,
					     (double)r->p->hpa.max_replicas,
					     1.0);
	/* The server sizes the ranges before this evaluation's coldStartQuery
	 * answer arrives: for the last one. */
	if (m.cold_start_query)
		o.size_cold_s = decide_size_cold(&m, r->cold_seen);
	if (o.have_cold && decide_cold_usable(o.cold_measured))
		r->cold_seen = o.cold_measured;
	policy_series(r, &m, v, &o);
	if (m.sla_miss_query)
		policy_miss_read(r->miss, &m, v, &o);
	if (r->p->perfect_forecast && v->trace) {
		o.have_truth = 1;
		o.truth = policy_truth(v, v->cold_start_s);
	}
	if (!policy_observed(r, v, &cur, &recent)) {
		o.have_view = 1;
		o.current = (int64_t)llround(cur);
		o.recent_max = (int64_t)llround(recent);
	}
	/* The simulation starts with a warm fleet: the server's smoothing
	 * starts from it, as that of a server that had been running. */
	if (!r->sm.primed)
		smooth_seed(&r->sm, v->spec, v->now);
	if (decide_observations(&m, &o, v->now, &r->sm, &s, &d,
				&merr) != DECIDE_OK) {
		r->metric_errors++;
		return -1;
	}
	if (d.b.forecast_used)
		r->forecasts++;
	r->last = d;
	r->have_last = 1;
	return hpa_calc_external_avg(r->hpa, v->status, (double)d.target,
				     1.0);
}

/* KEDA's Prometheus scaler: ignoreNullValues (default true) makes a
 * missing answer 0. */
static double policy_or0(double x)
{
	return isnan(x) || x < 0 ? 0 : x;
}

int32_t policy_proposal(struct policy_run *r, const struct policy_view *v)
{
	const struct policy *p = r->p;
	int32_t a, b;
	double per_pod;

	switch (p->kind) {
	case POLICY_STAFFER:
		return policy_staffer(r, v);
	case POLICY_KEDA_QUEUE:
		return hpa_calc_external_avg(r->hpa, v->status,
					     policy_or0(v->queue_depth),
					     p->queue_threshold);
	case POLICY_KEDA_RUNNING:
		return hpa_calc_external_avg(r->hpa, v->status,
					     policy_or0(v->inflight),
					     p->running_threshold);
	case POLICY_KEDA_COMBINED:
		a = hpa_calc_external_avg(r->hpa, v->status,
					  policy_or0(v->queue_depth),
					  p->queue_threshold);
		b = hpa_calc_external_avg(r->hpa, v->status,
					  policy_or0(v->inflight),
					  p->running_threshold);
		return a > b ? a : b;
	case POLICY_KEDA_SUM:
		/* One query, inflight + queue: NaN on either side is no
		 * answer, which ignoreNullValues reads as 0. */
		return hpa_calc_external_avg(r->hpa, v->status,
					     policy_or0(v->inflight +
							v->queue_depth),
					     p->sum_threshold);
	case POLICY_HPA_UTIL:
		if (isnan(v->busy_rate) || v->ready <= 0 || v->slots <= 0)
			return -1;
		per_pod = v->busy_rate / ((double)v->slots * v->ready);
		return hpa_calc_pods(r->hpa, v->spec, v->ready,
				     v->status - v->ready, per_pod,
				     p->util_target);
	case POLICY_ORACLE:
	case POLICY_STATIC:
		return -1;
	}
	return -1;
}

int policy_active(struct policy_run *r, const struct policy_view *v)
{
	const struct policy *p = r->p;
	struct model_signals s;
	double util;

	switch (p->kind) {
	case POLICY_STAFFER:
		/* The scale loop's GetMetrics steps the smoothing too;
		 * IsActive itself is a decision without smoothing. */
		(void)policy_staffer(r, v);
		/* As scaler.c: activity needs lambda, Q and S only. */
		if (isnan(v->arrival_rate) || isnan(v->queue_depth) ||
		    isnan(v->shed_rate))
			return -1;
		memset(&s, 0, sizeof(s));
		s.arrival_rate = v->arrival_rate > 0 ? v->arrival_rate : 0;
		s.queue_depth = v->queue_depth > 0 ? v->queue_depth : 0;
		s.shed_rate = v->shed_rate > 0 ? v->shed_rate : 0;
		return model_is_active(&p->meta.model, &s);
	case POLICY_KEDA_QUEUE:
		return policy_or0(v->queue_depth) > p->activation;
	case POLICY_KEDA_RUNNING:
		return policy_or0(v->inflight) > p->activation;
	case POLICY_KEDA_COMBINED:
		return policy_or0(v->queue_depth) > p->activation ||
		       policy_or0(v->inflight) > p->activation;
	case POLICY_KEDA_SUM:
		return policy_or0(v->inflight + v->queue_depth) >
		       p->activation;
	case POLICY_HPA_UTIL:
		util = v->ready > 0 && v->slots > 0 ?
		       policy_or0(v->busy_rate) / ((double)v->slots * v->ready)
		       : 0;
		return util > p->activation;
	case POLICY_ORACLE:
	case POLICY_STATIC:
		return 1;
	}
	return 1;
}

int policy_never_scales_up(const struct policy_run *r, long slots)
{
	switch (r->p->kind) {
	case POLICY_STATIC:
		return 1;
	case POLICY_KEDA_RUNNING:
		/* One full replica is the highest ratio there is (the
		 * replica count cancels exactly in the HPA's arithmetic):
		 * if the HPA keeps one replica for it, it never adds any. */
		return hpa_calc_external_avg(r->hpa, 1, (double)slots,
					     r->p->running_threshold) <= 1;
	default:
		return 0;
	}
}
