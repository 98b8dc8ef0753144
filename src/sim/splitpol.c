/*
 * splitpol.c - see splitpol.h.
 */
#include "splitpol.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decide.h"
#include "num.h"
#include "pool.h"

#define SPLITPOL_THRESHOLD_MAX 1e9
/* maxReplicaCount by default: KEDA's (100), as `staffer simulate`'s. */
#define SPLITPOL_MAX_REPLICAS 100

static const char *const splitpol_names[] = {
	[SPLITPOL_STAFFER] = "staffer",
	[SPLITPOL_PLANNER] = "planner",
	[SPLITPOL_LLMD] = "llm-d",
	[SPLITPOL_KEDA] = "keda",
	[SPLITPOL_STATIC] = "static",
};

#define SPLITPOL_NKINDS (sizeof(splitpol_names) / sizeof(splitpol_names[0]))

_Static_assert(SPLITPOL_NAME_MAX >= POLICY_NAME_MAX,
	       "a spec policy_spec_open takes fits struct splitpol's name");

/* The simulator's ablations of the prefill pool's rules, set in the
 * prefill trigger's model_params. */
static const struct policy_ablation splitpol_ablations[] = {
	{ "prefillZ", "low", "read", MODEL_ABLATE_PEAK_AS_READ },
	{ "prefillErlang", "continuous", "whole", MODEL_ABLATE_ERLANG_WHOLE },
	{ "prefillPrior", "forget", "hold", MODEL_ABLATE_PRIOR_HELD },
	{ "prefillTokenZ", "tokens", "arrivals", MODEL_ABLATE_TOKEN_PEAK },
};
#define N_ABLATIONS \
	(sizeof(splitpol_ablations) / sizeof(splitpol_ablations[0]))

static const char *const splitpol_pool_names[SPLIT_POOLS] = {
	"prefill", "decode",
};

/* ---- the profile ------------------------------------------------------ */

double splitpol_prefill_tps(const struct perf *pf, double tokens)
{
	double s = perf_prefill_s(pf, tokens);

	return s > 0 ? tokens / s : 0;
}

/* The decode profile as pool.h takes it: ITL in seconds by batch. */
static void splitpol_profile(const struct perf *pf, struct pool_profile *pr)
{
	size_t i;

	memset(pr, 0, sizeof(*pr));
	for (i = 0; i < pf->nbatch && i < POOL_PROFILE_MAX; i++) {
		pr->batch[i] = pf->batch[i];
		pr->itl_s[i] = pf->token_ms[i] / 1000.0;
	}
	pr->n = i;
}

long splitpol_batch_within(const struct perf *pf, double itl_s, long slots)
{
	struct pool_profile pr;
	long b;

	splitpol_profile(pf, &pr);
	b = pool_batch_within(&pr, itl_s);
	return b > slots ? slots : b;
}

/* ---- parsing ---------------------------------------------------------- */

/* One metadata key on pool k's trigger (k -1: both). */
static int splitpol_meta(struct splitpol *p, int k, const char *key,
			 const char *val, char *err, size_t errlen)
{
	struct meta_error me;
	int i;

	for (i = 0; i < SPLIT_POOLS; i++) {
		if (k >= 0 && i != k)
			continue;
		if (meta_set(&p->meta[i], key, val, &me) != META_OK) {
			snprintf(err, errlen, "%s trigger: %s",
				 splitpol_pool_names[i], me.msg);
			return -1;
		}
	}
	return 0;
}

/* The simulator answers every query itself: the text only marks it
 * given.  A range in arrivalRateQuery's text makes the rate window the
 * simulated Prometheus's (as policy.c's staffer). */
static int splitpol_staffer_defaults(struct splitpol *p,
				     const struct split_config *c,
				     double mean_input, char *err,
				     size_t errlen)
{
	struct pool_profile pr;
	char num[64], profile[META_TEXT_MAX];
	size_t i, o = 0;
	static const char *const both[][2] = {
		{ "arrivalRateQuery", "(the simulated gateway's arrivals)" },
		{ "inputTokenRateQuery", "(the simulated input tokens)" },
		{ "queueDepthQuery", "(the simulated pool's queue)" },
	};

	for (i = 0; i < sizeof(both) / sizeof(both[0]); i++)
		if (splitpol_meta(p, -1, both[i][0], both[i][1], err, errlen))
			return -1;
	snprintf(num, sizeof(num), "%.6g", c->cold_start_s);
	if (splitpol_meta(p, -1, "coldStartSeconds", num, err, errlen) ||
	    splitpol_meta(p, SPLIT_PREFILL, "pool", "prefill", err, errlen) ||
	    splitpol_meta(p, SPLIT_PREFILL, "shedRateQuery",
			  "(the simulated sheds)", err, errlen) ||
	    splitpol_meta(p, SPLIT_DECODE, "pool", "decode", err, errlen) ||
	    splitpol_meta(p, SPLIT_DECODE, "outputTokenRateQuery",
			  "(the simulated output tokens)", err, errlen) ||
	    splitpol_meta(p, SPLIT_DECODE, "kvCacheUsageQuery",
			  "(the simulated KV in use)", err, errlen))
		return -1;
	snprintf(num, sizeof(num), "%.6g",
		 floor(splitpol_prefill_tps(c->perf,
					    (double)c->prefill_budget)));
	if (splitpol_meta(p, SPLIT_PREFILL, "prefillTokensPerSecond", num,
			  err, errlen))
		return -1;
	snprintf(num, sizeof(num), "%.6g", c->ttft_s);
	if (splitpol_meta(p, SPLIT_PREFILL, "ttftTargetSeconds", num, err,
			  errlen))
		return -1;
	snprintf(num, sizeof(num), "%.4g", split_transfer_s(c, mean_input));
	if (splitpol_meta(p, SPLIT_PREFILL, "kvTransferSeconds", num, err,
			  errlen))
		return -1;
	splitpol_profile(c->perf, &pr);
	for (i = 0; i < pr.n && o < sizeof(profile); i++)
		o += (size_t)snprintf(profile + o, sizeof(profile) - o,
				      "%s%.0f:%.6g", i ? "," : "",
				      pr.batch[i], pr.itl_s[i]);
	if (splitpol_meta(p, SPLIT_DECODE, "decodeProfile", profile, err,
			  errlen))
		return -1;
	snprintf(num, sizeof(num), "%.6g", c->itl_s);
	if (splitpol_meta(p, SPLIT_DECODE, "itlTargetSeconds", num, err,
			  errlen))
		return -1;
	snprintf(num, sizeof(num), "%.6g", c->kv_tokens);
	if (splitpol_meta(p, SPLIT_DECODE, "kvCacheTokens", num, err, errlen))
		return -1;
	snprintf(num, sizeof(num), "%ld", c->decode_slots);
	return splitpol_meta(p, SPLIT_DECODE, "slotsPerReplica", num, err,
			     errlen);
}

static int splitpol_metric_parse(const char *v, int decode,
				 enum splitpol_metric *out)
{
	if (!strcmp(v, "queue"))
		*out = SPM_QUEUE;
	else if (!strcmp(v, "running"))
		*out = SPM_RUNNING;
	else if (!strcmp(v, "sum"))
		*out = SPM_SUM;
	else if (decode && !strcmp(v, "kv"))
		*out = SPM_KV;
	else
		return -1;
	return 0;
}

/* staffer's HPA behaviour (docs/deploy.md: tolerance 0, no scale-down
 * window), or KEDA's default HPA (behavior nil). */
static void splitpol_hpa_behavior(struct hpa_config *h, int staffer)
{
	struct hpa_config d;

	hpa_config_init(&d);
	h->behavior = staffer;
	h->up = d.up;
	h->down = d.down;
	if (staffer) {
		h->up.tolerance = 0;
		h->down.tolerance = 0;
		h->down.window_s = 0;
	}
}

/* What splitpol_set reads a spec's keys for (policy_spec_keys). */
struct splitpol_keys {
	struct splitpol *p;
	const struct split_config *c;
};

/* One key=value of the policy in arg, a struct splitpol_keys
 * (policy_key_fn).  0, or -1 with err. */
static int splitpol_set(void *arg, const char *k, const char *v, char *err,
			size_t errlen)
{
	const struct splitpol_keys *a = arg;
	struct splitpol *p = a->p;
	const struct split_config *c = a->c;
	double d;
	int32_t n;
	int i, decode, r;

	if (p->kind == SPLITPOL_STATIC) {
		for (i = 0; i < SPLIT_POOLS; i++)
			if (!strcmp(k, splitpol_pool_names[i]))
				return policy_parse_int(k, v, 0,
							SPLIT_REPLICAS_MAX,
							&p->fixed[i], err,
							errlen);
		snprintf(err, errlen, "unknown key '%.60s' for policy "
			 "'static'; allowed: prefill, decode", k);
		return -1;
	}
	if (!strcmp(k, "minReplicaCount") || !strcmp(k, "maxReplicaCount")) {
		if (policy_parse_int(k, v, k[1] == 'i' ? 0 : 1,
				     HPA_REPLICAS_MAX, &n, err, errlen))
			return -1;
		for (i = 0; i < SPLIT_POOLS; i++) {
			if (k[1] == 'a') {
				p->hpa[i].max_replicas = n;
				continue;
			}
			p->keda.min_replica_count = n;
			p->hpa[i].min_replicas = n > 0 ? n : 1;
		}
		return 0;
	}
	if (!strcmp(k, "pollingInterval"))
		return policy_parse_num(k, v, 0, 1, 3600, &p->keda.poll_s,
					err, errlen);
	if (!strcmp(k, "cooldownPeriod"))
		return policy_parse_num(k, v, 0, 0, 86400, &p->keda.cooldown_s,
					err, errlen);
	if (p->kind == SPLITPOL_KEDA && !strcmp(k, "behavior")) {
		if (strcmp(v, "default") && strcmp(v, "staffer")) {
			snprintf(err, errlen, "'behavior': '%.40s' is not "
				 "allowed; allowed: default (KEDA's HPA: "
				 "tolerance 0.1, a 300-s scale-down window), "
				 "staffer (tolerance 0, no window)", v);
			return -1;
		}
		for (i = 0; i < SPLIT_POOLS; i++)
			splitpol_hpa_behavior(&p->hpa[i], !strcmp(v, "staffer"));
		return 0;
	}
	switch (p->kind) {
	case SPLITPOL_STAFFER:
		if (!strcmp(k, "age"))
			return policy_parse_num(k, v, 0, 0, 3600,
						&p->answer_age_s, err, errlen);
		/* Ablations of the prefill pool's rules (model.h), to show
		 * what each buys: never metadata. */
		r = policy_ablation_set(splitpol_ablations, N_ABLATIONS,
					&p->meta[SPLIT_PREFILL].model.ablate,
					k, v, err, errlen);
		if (r <= 0)
			return r;
		for (i = 0; i < SPLIT_POOLS; i++) {
			size_t len = strlen(splitpol_pool_names[i]);

			if (!strncmp(k, splitpol_pool_names[i], len) &&
			    k[len] == '.')
				return splitpol_meta(p, i, k + len + 1, v, err,
						     errlen);
		}
		return splitpol_meta(p, -1, k, v, err, errlen);
	case SPLITPOL_PLANNER:
	case SPLITPOL_LLMD:
		if (!strcmp(k, "interval"))
			return policy_parse_num(k, v, 0, 1, 86400,
						&p->interval_s, err, errlen);
		if (p->kind == SPLITPOL_PLANNER && !strcmp(k, "scale"))
			return policy_parse_num(k, v, 0, 1, 100, &p->scale,
						err, errlen);
		if (p->kind == SPLITPOL_LLMD) {
			double *f = !strcmp(k, "kv") ? &p->kv_sat :
				    !strcmp(k, "queue") ? &p->queue_sat :
				    !strcmp(k, "kvSpare") ? &p->kv_spare :
				    !strcmp(k, "queueSpare") ? &p->queue_spare :
				    NULL;

			if (f)
				return policy_parse_num(k, v, 0, 1,
							k[0] == 'k' ? 1 : 1e6,
							f, err, errlen);
		}
		break;
	case SPLITPOL_KEDA:
		for (i = 0; i < SPLIT_POOLS; i++) {
			size_t len = strlen(splitpol_pool_names[i]);

			if (strncmp(k, splitpol_pool_names[i], len))
				continue;
			decode = i == SPLIT_DECODE;
			if (!k[len]) {
				if (splitpol_metric_parse(v, decode,
							  &p->metric[i])) {
					snprintf(err, errlen, "'%s': '%.40s' is "
						 "not allowed; allowed: queue, "
						 "running, sum%s", k, v,
						 decode ? ", kv" : "");
					return -1;
				}
				p->threshold[i] = p->metric[i] == SPM_KV ? 0.8
					: p->metric[i] == SPM_QUEUE ? 5
					: 0.75 * (double)(decode ?
						c->decode_slots : 1);
				return 0;
			}
			if (!strcmp(k + len, "Threshold")) {
				if (policy_parse_num(k, v, 0, 1,
						     SPLITPOL_THRESHOLD_MAX,
						     &d, err, errlen))
					return -1;
				p->threshold[i] = d;
				return 0;
			}
		}
		break;
	case SPLITPOL_STATIC:
		break;
	}
	snprintf(err, errlen, "unknown key '%.60s' for policy '%s'; see "
		 "staffer simulate --split --help", k,
		 splitpol_names[p->kind]);
	return -1;
}

static void splitpol_defaults(struct splitpol *p,
			      const struct split_config *c)
{
	int i;

	keda_config_init(&p->keda);
	for (i = 0; i < SPLIT_POOLS; i++) {
		hpa_config_init(&p->hpa[i]);
		p->hpa[i].max_replicas = SPLITPOL_MAX_REPLICAS;
		meta_init(&p->meta[i]);
		p->fixed[i] = -1;
		if (p->kind == SPLITPOL_STAFFER)
			splitpol_hpa_behavior(&p->hpa[i], 1);
	}
	p->metric[SPLIT_PREFILL] = SPM_QUEUE;
	p->threshold[SPLIT_PREFILL] = 5;
	p->metric[SPLIT_DECODE] = SPM_RUNNING;
	p->threshold[SPLIT_DECODE] = 0.75 * (double)c->decode_slots;
	/* the planner's adjustment interval; llm-d's engine polls every
	 * 30 s (its GLOBAL_OPT_INTERVAL, 60 s, is read but not applied) */
	p->interval_s = p->kind == SPLITPOL_PLANNER ? 180 : 30;
	p->scale = 1;
	p->kv_sat = 0.8;
	p->queue_sat = 5;
	p->kv_spare = 0.1;
	p->queue_spare = 3;
}

int splitpol_parse(struct splitpol *p, const char *spec,
		   const struct split_config *c, double mean_input,
		   char *err, size_t errlen)
{
	struct splitpol_keys keys = { p, c };
	struct policy_spec ps;
	char why[SPLITPOL_ERR_MAX];
	struct meta_error me;
	size_t i;
	int kind;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < SPLIT_POOLS; i++)
		meta_init(&p->meta[i]);
	kind = policy_spec_open(&ps, spec, splitpol_names, SPLITPOL_NKINDS,
				" for a split fleet; allowed: staffer, "
				"planner, llm-d, keda, static", err, errlen);
	if (kind < 0)
		return -1;
	memcpy(p->name, spec, strlen(spec) + 1);
	p->kind = (enum splitpol_kind)kind;
	splitpol_defaults(p, c);
	if (p->kind == SPLITPOL_STAFFER &&
	    splitpol_staffer_defaults(p, c, mean_input, why, sizeof(why))) {
		snprintf(err, errlen, "policy '%.80s': %s", spec, why);
		return -1;
	}
	if (policy_spec_keys(&ps, splitpol_set, &keys, err, errlen))
		return -1;
	for (i = 0; i < SPLIT_POOLS && p->kind == SPLITPOL_STAFFER; i++)
		if (meta_check(&p->meta[i], 1, &me) != META_OK) {
			snprintf(err, errlen, "policy '%.80s': %s trigger: %s",
				 spec, splitpol_pool_names[i], me.msg);
			return -1;
		}
	for (i = 0; i < SPLIT_POOLS; i++)
		if (p->hpa[i].min_replicas > p->hpa[i].max_replicas ||
		    hpa_config_check(&p->hpa[i], why, sizeof(why))) {
			snprintf(err, errlen, "policy '%.80s': %s", spec,
				 p->hpa[i].min_replicas >
				 p->hpa[i].max_replicas ?
				 "minReplicaCount is above maxReplicaCount" :
				 why);
			return -1;
		}
	return 0;
}

void splitpol_release(struct splitpol *p)
{
	int i;

	for (i = 0; i < SPLIT_POOLS; i++) {
		meta_release(&p->meta[i]);
		meta_init(&p->meta[i]);
	}
}

int splitpol_uses_hpa(const struct splitpol *p)
{
	return p->kind == SPLITPOL_STAFFER || p->kind == SPLITPOL_KEDA;
}

/* ---- running ---------------------------------------------------------- */

int splitpol_run_init(struct splitpol_run *r, const struct splitpol *p,
		      const struct split_config *c)
{
	int i, bad = 0;

	memset(r, 0, sizeof(*r));
	r->p = p;
	r->c = c;
	for (i = 0; i < SPLIT_POOLS; i++) {
		struct splitpol_pool *q = &r->pool[i];

		q->hpa = malloc(sizeof(*q->hpa));
		if (!q->hpa) {
			bad = 1;
			continue;
		}
		hpa_init(q->hpa, &p->hpa[i]);
		keda_init(&q->keda, &p->keda);
		smooth_init(&q->sm);
		q->next_s = p->interval_s;
		if (p->kind == SPLITPOL_STAFFER)
			bad |= policy_range_init(&q->series) |
			       policy_range_init(&q->surge) |
			       policy_range_init(&q->tokens);
		if (p->kind == SPLITPOL_STAFFER && p->meta[i].sla_miss_query) {
			q->miss = malloc(DECIDE_SERIES_MAX * sizeof(*q->miss));
			bad |= !q->miss;
		}
	}
	if (bad) {
		splitpol_run_free(r);
		return -1;
	}
	return 0;
}

void splitpol_run_free(struct splitpol_run *r)
{
	int i;

	for (i = 0; i < SPLIT_POOLS; i++) {
		free(r->pool[i].hpa);
		r->pool[i].hpa = NULL;
		policy_range_free(&r->pool[i].series);
		policy_range_free(&r->pool[i].surge);
		policy_range_free(&r->pool[i].tokens);
		free(r->pool[i].miss);
		r->pool[i].miss = NULL;
	}
}

static double splitpol_rate_at(const struct split_view *v, int s, double t)
{
	double x;

	return simprom_rate(&v->ser[s], t, v->rate_window_s, &x) ? NAN : x;
}

static double splitpol_gauge_at(const struct split_view *v, int s, double t)
{
	double x;

	return simprom_last(&v->ser[s], t, &x) ? NAN : x;
}

static double splitpol_rate(const struct split_view *v, int s)
{
	return splitpol_rate_at(v, s, v->now);
}

static double splitpol_gauge(const struct split_view *v, int s)
{
	return splitpol_gauge_at(v, s, v->now);
}

static double splitpol_or0(double x)
{
	return isnan(x) || x < 0 ? 0 : x;
}

/* The metric a KEDA trigger of pool k reads: the sum over the pool
 * (AverageValue divides by the replicas). */
static double splitpol_metric(const struct split_view *v, int k,
			      enum splitpol_metric m)
{
	int q = k == SPLIT_PREFILL ? SS_PQ : SS_DQ;
	int run = k == SPLIT_PREFILL ? SS_PRUN : SS_DRUN;

	switch (m) {
	case SPM_QUEUE:
		return splitpol_or0(splitpol_gauge(v, q));
	case SPM_RUNNING:
		return splitpol_or0(splitpol_gauge(v, run));
	case SPM_SUM:
		return splitpol_or0(splitpol_gauge(v, q)) +
		       splitpol_or0(splitpol_gauge(v, run));
	case SPM_KV:
		return splitpol_or0(splitpol_gauge(v, SS_KV)) /
		       v->c->kv_tokens;
	}
	return 0;
}

/* staffer's GetMetrics for pool k: the server's decision on the
 * simulated signals (policy.c's policy_staffer() for a pool). */
static int32_t splitpol_staffer(struct splitpol_run *r, int k,
				const struct split_view *v)
{
	struct splitpol_pool *q = &r->pool[k];
	struct meta m = r->p->meta[k]; /* shallow: borrowed strings */
	struct policy_view pv;
	struct model_signals s;
	struct decide_obs o;
	struct decision d;
	enum model_err merr;
	double range, step;
	/* the arrival rate and the ranges as of now (sim.c's sim_view()
	 * says why), its other instant answers age=S old */
	double t = v->now - r->p->answer_age_s;

	if (strcmp(meta_rate_window_source(&m), "given"))
		m.rate_window_s = v->rate_window_s;
	memset(&o, 0, sizeof(o));
	o.arrival_rate = splitpol_rate(v, SS_ARR);
	o.queue_depth = splitpol_gauge_at(v, k == SPLIT_PREFILL ? SS_PQ :
					  SS_DQ, t);
	o.shed_rate = k == SPLIT_PREFILL ? splitpol_rate_at(v, SS_SHED, t) : 0;
	o.pool.input_rate = splitpol_rate_at(v, SS_IN, t);
	o.pool.output_rate = splitpol_rate_at(v, SS_OUT, t);
	if (isnan(o.arrival_rate) || isnan(o.queue_depth) ||
	    isnan(o.shed_rate) || isnan(o.pool.input_rate) ||
	    (k == SPLIT_DECODE && isnan(o.pool.output_rate))) {
		r->metric_errors++;
		return -1;
	}
	o.arrival_rate = splitpol_or0(o.arrival_rate);
	o.queue_depth = splitpol_or0(o.queue_depth);
	o.shed_rate = splitpol_or0(o.shed_rate);
	o.pool.input_rate = splitpol_or0(o.pool.input_rate);
	o.pool.output_rate = splitpol_or0(o.pool.output_rate);
	o.pool.kv_used = m.kv_cache_usage_query ?
			 splitpol_gauge_at(v, SS_KV, t) : -1;
	if (isnan(o.pool.kv_used))
		o.pool.kv_used = -1;
	o.w_last = q->last_w;
	memset(&pv, 0, sizeof(pv));
	pv.now = v->now;
	pv.arrivals = &v->ser[SS_ARR];
	pv.rate_window_s = v->rate_window_s;
	decide_series_query(&m, &range, &step);
	policy_range_read(&q->series, range, step, &pv, &o.series,
			  &o.n_series);
	if (o.n_series)
		o.series_step_s = step;
	decide_surge_query(&m, &range, &step);
	policy_range_read(&q->surge, range, step, &pv, &o.surge, &o.n_surge);
	if (o.n_surge)
		o.surge_step_s = step;
	/* inputTokenRateQuery's range: the prompt tokens' peakedness */
	decide_token_query_cold(&m, 0, &range, &step);
	pv.arrivals = &v->ser[SS_IN];
	policy_range_read(&q->tokens, range, step, &pv, &o.tokens,
			  &o.n_tokens);
	pv.arrivals = &v->ser[SS_ARR];
	/* slaMissQuery: the TTFT histogram's share above the target, on
	 * either pool's trigger (a decode pool's would be its ITL's; the
	 * simulator has only the TTFT's) */
	if (q->miss) {
		pv.misses = &v->ser[SS_TTFT_MISS];
		pv.finished = &v->ser[SS_FIRST];
		policy_miss_read(q->miss, &m, &pv, &o);
	}
	/* a server that had been running starts from the warm fleet */
	if (!q->sm.primed)
		smooth_seed(&q->sm, v->spec[k], v->now);
	if (decide_observations(&m, &o, v->now, &q->sm, &s, &d, &merr) !=
	    DECIDE_OK) {
		r->metric_errors++;
		return -1;
	}
	if (d.have_pool && d.pool.service_from_tokens)
		q->last_w = d.pool.service_s;
	return hpa_calc_external_avg(q->hpa, v->status[k], (double)d.target,
				     1.0);
}

int32_t splitpol_proposal(struct splitpol_run *r, int k,
			  const struct split_view *v)
{
	const struct splitpol *p = r->p;

	switch (p->kind) {
	case SPLITPOL_STAFFER:
		return splitpol_staffer(r, k, v);
	case SPLITPOL_KEDA:
		return hpa_calc_external_avg(r->pool[k].hpa, v->status[k],
					     splitpol_metric(v, k,
							     p->metric[k]),
					     p->threshold[k]);
	default:
		return -1;
	}
}

int splitpol_active(struct splitpol_run *r, int k, const struct split_view *v)
{
	const struct splitpol *p = r->p;
	struct model_signals s;

	switch (p->kind) {
	case SPLITPOL_STAFFER:
		/* KEDA's scale loop asks GetMetrics first (smoothing) */
		(void)splitpol_staffer(r, k, v);
		memset(&s, 0, sizeof(s));
		s.arrival_rate = splitpol_rate(v, SS_ARR);
		s.queue_depth = splitpol_gauge(v, k == SPLIT_PREFILL ? SS_PQ :
					       SS_DQ);
		if (isnan(s.arrival_rate) || isnan(s.queue_depth))
			return -1;
		return model_is_active(&p->meta[k].model, &s);
	case SPLITPOL_KEDA:
		return splitpol_metric(v, k, p->metric[k]) > 0;
	default:
		return 1;
	}
}

/* ---- the planners ----------------------------------------------------- */

/* The last interval's increase of counter s. */
static double splitpol_increase(const struct split_view *v, int s,
				double interval_s)
{
	double x;

	if (simprom_rate(&v->ser[s], v->now, interval_s, &x))
		return NAN;
	return x * interval_s;
}

/*
 * Dynamo's throughput rule for pool k on the last interval
 * (planner_core.py at ai-dynamo/dynamo b6f3161: make_adjustments).
 * Its profile is this engine's: prefill throughput at the mean prompt
 * alone (isl / TTFT), decode throughput at the largest batch whose ITL
 * meets the (corrected) target within the KV room for a sequence of
 * isl + osl / 2.  The TTFT correction factor only lowers the prefill
 * answer (min(1, factor)); here it is never below 1 (the observed TTFT
 * holds at least each prompt's own prefill, the KV transfer and one
 * decode step), so it is left out.  The ITL correction factor, the
 * observed ITL over the profile's at the concurrency seen, divides the
 * ITL target on decode.  The profile places that concurrency by its
 * own KV size (perf_interpolation.py as at 52787de; b6f3161 divided by
 * a constant 1,000,000, a bug that would size this engine's decode
 * pool 30 % too large on steady traffic).
 */
static int32_t splitpol_planner(struct splitpol_run *r, int k,
				const struct split_view *v)
{
	static const int in_system[] = { SS_PQ, SS_PRUN, SS_DQ, SS_DRUN };
	const struct split_config *c = r->c;
	double iv = r->p->interval_s;
	double req = splitpol_increase(v, SS_ARR, iv);
	double in = splitpol_increase(v, SS_IN, iv);
	double done = splitpol_increase(v, SS_DONE, iv);
	double out = splitpol_increase(v, SS_DONE_OUT, iv);
	double gaps = splitpol_increase(v, SS_ITL_SUM, iv);
	double gapn = splitpol_increase(v, SS_ITL_N, iv);
	double isl, osl, need, thpt, ctx, conc, itl, corr, x;
	int32_t nd = v->ready[SPLIT_DECODE];
	size_t j;
	long b, cap;

	if (isnan(req) || isnan(in) || !(req > 0))
		return -1;   /* no traffic: the planner skips */
	/* it computes the correction factors first, for both pools:
	 * len(d_endpoints) 0 raises, and the whole adjustment is skipped */
	if (nd <= 0)
		return -1;
	isl = in / req;
	if (k == SPLIT_PREFILL) {
		thpt = splitpol_prefill_tps(c->perf, isl);
		need = req * isl / iv / thpt;
	} else {
		if (isnan(done) || isnan(out) || !(done > 0) ||
		    isnan(gaps) || isnan(gapn) || !(gapn > 0))
			return -1;
		osl = out / done;
		ctx = isl + osl / 2;
		/* the frontend's mean ITL over the interval: its
		 * histogram's increase(_sum) / increase(_count) */
		itl = gaps / gapn;
		/* The concurrency per decode endpoint, num_req x
		 * request_duration / interval: by Little's law the mean in
		 * the system over the interval (avg_over_time of its
		 * gauges), the KV transfers in flight too.  The profile's
		 * ITL there, within its range (the nearest point outside
		 * it). */
		conc = req / iv * split_transfer_s(c, isl);
		for (j = 0; j < sizeof(in_system) / sizeof(in_system[0]); j++) {
			if (simprom_avg_over(&v->ser[in_system[j]], v->now, iv,
					     &x))
				return -1;
			conc += x;
		}
		conc /= (double)nd;
		cap = c->decode_slots;
		if (ctx > 0 && (double)cap > c->kv_tokens / ctx)
			cap = (long)floor(c->kv_tokens / ctx);
		if (conc > (double)cap)
			conc = (double)cap;
		if (conc < 1)
			conc = 1;
		corr = itl / perf_token_s(c->perf, conc);
		if (!(corr > 0) || !isfinite(corr))
			return -1;   /* a ZeroDivisionError: skipped */
		/* the best throughput at the corrected ITL target */
		b = splitpol_batch_within(c->perf, c->itl_s / corr,
					  c->decode_slots);
		if (b > cap)
			b = cap;
		if (b < 1)
			b = 1;
		thpt = (double)b / perf_token_s(c->perf, (double)b);
		need = req * osl / iv / thpt;
	}
	need = ceil(need * r->p->scale - 1e-9);
	return need < 1 ? 1 : need > SPLIT_REPLICAS_MAX ?
	       (int32_t)SPLIT_REPLICAS_MAX : (int32_t)need;
}

/*
 * llm-d's saturation analyzer (V1) for pool k, as the workload variant
 * autoscaler runs it (llm-d/llm-d-workload-variant-autoscaler b08b1c7:
 * internal/saturation/analyzer.go, its queries in internal/collector/
 * registration/saturation.go, its loop in internal/engines/saturation/
 * engine.go).  Each pool is analysed as a model of its own: the real one
 * pools every replica of a model, prefill and decode alike, and scales
 * one variant a cycle; it has no notion of the pair.
 */
static int32_t splitpol_llmd(struct splitpol_run *r, int k,
			     const struct split_view *v)
{
	const struct splitpol *p = r->p;
	struct splitpol_pool *q = &r->pool[k];
	int32_t n = v->ready[k];
	double per_q, peak_q = 0, peak_kv = 0, last_kv, extra_kv = 0;
	double spare_kv = 0, spare_q = 0, ns;
	size_t i, ok = 0;

	/* It moves the replicas with metrics by one, and only while the
	 * model is stable: a pod not ready, or one removed within the
	 * query's minute (still in max_over_time, so metrics != current),
	 * blocks every decision.  (Not modelled: the scrape a new pod
	 * waits for, up to 15 s.) */
	if (n <= 0 || v->starting[k] > 0 || v->now < q->next_s)
		return -1;
	/* Both its queries are max_over_time(...[1m]) per pod: the peak of
	 * the last minute, not the last scrape.  The simulated queue is
	 * the pool's (the gateway spreads it over the ready replicas), and
	 * KV per replica is read as it is now, plus the pool's peak of the
	 * minute above its last scrape spread over them. */
	if (simprom_max_over(&v->ser[k == SPLIT_PREFILL ? SS_PQ : SS_DQ],
			     v->now, SPLITPOL_LLMD_WINDOW_S, &peak_q))
		peak_q = 0;
	per_q = peak_q / (double)n;
	if (k == SPLIT_DECODE &&
	    !simprom_last(&v->ser[SS_KV], v->now, &last_kv) &&
	    !simprom_max_over(&v->ser[SS_KV], v->now, SPLITPOL_LLMD_WINDOW_S,
			      &peak_kv) && peak_kv > last_kv)
		extra_kv = (peak_kv - last_kv) / v->c->kv_tokens / (double)n;
	/* a replica is saturated at either threshold; the spare is
	 * averaged over the others */
	for (i = 0; i < (size_t)n; i++) {
		double u = k == SPLIT_DECODE && i < v->n_kv_util ?
			   v->kv_util[i] + extra_kv : 0;

		if (u >= p->kv_sat || per_q >= p->queue_sat)
			continue;
		spare_kv += p->kv_sat - u;
		spare_q += p->queue_sat - per_q;
		ok++;
	}
	if (ok) {
		spare_kv /= (double)ok;
		spare_q /= (double)ok;
	}
	/* scale up below either trigger (none unsaturated: spare 0) */
	if (spare_kv < p->kv_spare || spare_q < p->queue_spare)
		return n + 1;
	/* One fewer: the unsaturated replicas' mean load on one replica
	 * fewer of them (at least two, as the real one asks). */
	if (ok < 2)
		return -1;
	ns = (double)ok / (double)(ok - 1);
	if (p->kv_sat - (p->kv_sat - spare_kv) * ns >= p->kv_spare &&
	    p->queue_sat - (p->queue_sat - spare_q) * ns >= p->queue_spare) {
		if (n - 1 >= p->hpa[k].min_replicas)
			q->next_s = v->now + SPLITPOL_LLMD_WINDOW_S;
		return n - 1;
	}
	return -1;
}

int32_t splitpol_direct(struct splitpol_run *r, int k,
			const struct split_view *v)
{
	const struct hpa_config *h = &r->p->hpa[k];
	int32_t n;

	switch (r->p->kind) {
	case SPLITPOL_PLANNER:
		n = splitpol_planner(r, k, v);
		break;
	case SPLITPOL_LLMD:
		n = splitpol_llmd(r, k, v);
		break;
	default:
		return -1;
	}
	/* the same bounds as the HPA's policies (minReplicaCount,
	 * maxReplicaCount): a planner's Deployment has them too */
	if (n < 0)
		return -1;
	return n < h->min_replicas ? h->min_replicas :
	       n > h->max_replicas ? h->max_replicas : n;
}
