/*
 * hpa.c - see hpa.h.  Read against kubernetes' horizontal.go and
 * replica_calculator.go; the function names there are given above each
 * piece.
 */
#include "hpa.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"

void hpa_config_init(struct hpa_config *c)
{
	memset(c, 0, sizeof(*c));
	c->min_replicas = 1;
	c->max_replicas = 100;
	c->tolerance = 0.1;
	c->downscale_window_s = 300;
	c->behavior = 0;
	c->up.window_s = c->down.window_s = HPA_UNSET;
	c->up.tolerance = c->down.tolerance = -1;
}

static int hpa_rules_check(const struct hpa_rules *r, const char *dir,
			   char *err, size_t errlen)
{
	size_t i;

	if (r->window_s != HPA_UNSET &&
	    (r->window_s < 0 || r->window_s > HPA_WINDOW_MAX)) {
		snprintf(err, errlen, "%s stabilizationWindowSeconds %d: "
			 "allowed 0 to %d", dir, (int)r->window_s,
			 HPA_WINDOW_MAX);
		return -1;
	}
	if (r->npol > HPA_POLICIES_MAX) {
		snprintf(err, errlen, "%s: at most %d policies", dir,
			 HPA_POLICIES_MAX);
		return -1;
	}
	for (i = 0; i < r->npol; i++) {
		if (r->pol[i].value < 1 || r->pol[i].value > HPA_REPLICAS_MAX ||
		    r->pol[i].period_s < 1 ||
		    r->pol[i].period_s > HPA_PERIOD_MAX) {
			snprintf(err, errlen, "%s policy %zu: value must be "
				 "1 to %d and periodSeconds 1 to %d", dir,
				 i + 1, HPA_REPLICAS_MAX, HPA_PERIOD_MAX);
			return -1;
		}
	}
	if (r->tolerance > 10) {
		snprintf(err, errlen, "%s tolerance %g: allowed 0 to 10", dir,
			 r->tolerance);
		return -1;
	}
	return 0;
}

int hpa_config_check(const struct hpa_config *c, char *err, size_t errlen)
{
	if (c->min_replicas < 1 || c->max_replicas < c->min_replicas ||
	    c->max_replicas > HPA_REPLICAS_MAX) {
		snprintf(err, errlen, "HPA minReplicas %d / maxReplicas %d: "
			 "allowed 1 <= min <= max <= %d",
			 (int)c->min_replicas, (int)c->max_replicas,
			 HPA_REPLICAS_MAX);
		return -1;
	}
	if (!(c->tolerance >= 0 && c->tolerance <= 10)) {
		snprintf(err, errlen, "HPA tolerance %g: allowed 0 to 10",
			 c->tolerance);
		return -1;
	}
	if (c->downscale_window_s < 0 ||
	    c->downscale_window_s > HPA_WINDOW_MAX) {
		snprintf(err, errlen, "HPA downscale stabilization %d s: "
			 "allowed 0 to %d", (int)c->downscale_window_s,
			 HPA_WINDOW_MAX);
		return -1;
	}
	if (hpa_rules_check(&c->up, "scaleUp", err, errlen) ||
	    hpa_rules_check(&c->down, "scaleDown", err, errlen))
		return -1;
	return 0;
}

/* defaults.go: GenerateHPAScaleUpRules / GenerateHPAScaleDownRules, and
 * maybeInitScaleDownStabilizationWindow for the down window. */
static void hpa_fill_defaults(struct hpa_config *c)
{
	if (!c->behavior)
		return;
	if (c->up.select == HPA_SELECT_UNSET)
		c->up.select = HPA_SELECT_MAX;
	if (c->up.window_s == HPA_UNSET)
		c->up.window_s = 0;
	if (c->up.npol == 0) {
		c->up.pol[0] = (struct hpa_policy){ HPA_PODS, 4, 15 };
		c->up.pol[1] = (struct hpa_policy){ HPA_PERCENT, 100, 15 };
		c->up.npol = 2;
	}
	if (c->down.select == HPA_SELECT_UNSET)
		c->down.select = HPA_SELECT_MAX;
	if (c->down.window_s == HPA_UNSET)
		c->down.window_s = c->downscale_window_s;
	if (c->down.npol == 0) {
		c->down.pol[0] = (struct hpa_policy){ HPA_PERCENT, 100, 15 };
		c->down.npol = 1;
	}
}

void hpa_init(struct hpa *h, const struct hpa_config *c)
{
	memset(h, 0, sizeof(*h));
	h->cfg = *c;
	hpa_fill_defaults(&h->cfg);
}

double hpa_tolerance_up(const struct hpa *h)
{
	if (h->cfg.behavior && h->cfg.up.tolerance >= 0)
		return h->cfg.up.tolerance;
	return h->cfg.tolerance;
}

double hpa_tolerance_down(const struct hpa *h)
{
	if (h->cfg.behavior && h->cfg.down.tolerance >= 0)
		return h->cfg.down.tolerance;
	return h->cfg.tolerance;
}

int hpa_within(double ratio, double tol_down, double tol_up)
{
	return (1.0 - tol_down) <= ratio && ratio <= (1.0 + tol_up);
}

/* resource.Quantity milli value of a float sent as "%.3f". */
static double hpa_milli(double v)
{
	if (!(v > 0))
		return 0.0;
	if (v > 9.2e15)
		v = 9.2e15;
	return floor(v * 1000.0 + 0.5);
}

static int32_t hpa_clamp32(double x)
{
	if (!(x > 0))
		return 0;
	if (x >= (double)INT32_MAX)
		return INT32_MAX;
	return (int32_t)x;
}

/* replica_calculator.go: GetExternalPerPodMetricReplicas. */
int32_t hpa_calc_external_avg(const struct hpa *h, int32_t status_replicas,
			      double usage, double target)
{
	double u = hpa_milli(usage), tg = hpa_milli(target), ratio;

	if (tg < 1)
		tg = 1;
	ratio = u / (tg * (double)status_replicas);
	if (hpa_within(ratio, hpa_tolerance_down(h), hpa_tolerance_up(h)))
		return status_replicas;
	return hpa_clamp32(ceil(u / tg));
}

/* metrics.GetMetricUsageRatio: integer mean of milli values / target. */
static double hpa_usage_ratio(double sum_milli, int32_t count, double tg)
{
	double avg = floor(sum_milli / (double)count);

	return avg / tg;
}

/* replica_calculator.go: calcPlainMetricReplicas. */
int32_t hpa_calc_pods(const struct hpa *h, int32_t current, int32_t ready,
		      int32_t missing, double per_pod, double target)
{
	double up = hpa_tolerance_up(h), dn = hpa_tolerance_down(h);
	double u = hpa_milli(per_pod), tg = hpa_milli(target);
	double ratio, nratio, sum;
	int32_t n;

	if (ready <= 0)
		return -1;
	if (tg < 1)
		tg = 1;
	if (missing < 0)
		missing = 0;
	ratio = hpa_usage_ratio(u * ready, ready, tg);
	if (missing == 0) {
		if (hpa_within(ratio, dn, up))
			return current;
		return hpa_clamp32(ceil(ratio * (double)ready));
	}
	/* Missing pods: at the target on a scale-down, 0 on a scale-up. */
	sum = u * ready + (ratio < 1.0 ? tg * missing : 0.0);
	nratio = hpa_usage_ratio(sum, ready + missing, tg);
	if (hpa_within(nratio, dn, up) || (ratio < 1.0 && nratio > 1.0) ||
	    (ratio > 1.0 && nratio < 1.0))
		return current;
	n = hpa_clamp32(ceil(nratio * (double)(ready + missing)));
	if ((nratio < 1.0 && n > current) || (nratio > 1.0 && n < current))
		return current;
	return n;
}

/* ---- recommendations and events --------------------------------------- */

/* Store a recommendation in slot `old` (an obsolete one) or append.  The
 * bound is never reached with the checked ranges; if it were, the oldest
 * sample is replaced. */
static void hpa_rec_store(struct hpa *h, long old, double now, int32_t r)
{
	size_t i, o = 0;

	if (old < 0 && h->nrecs < HPA_RECS_MAX) {
		h->recs[h->nrecs].t = now;
		h->recs[h->nrecs].replicas = r;
		h->nrecs++;
		return;
	}
	if (old < 0) {
		for (i = 1; i < h->nrecs; i++)
			if (h->recs[i].t < h->recs[o].t)
				o = i;
		old = (long)o;
	}
	h->recs[old].t = now;
	h->recs[old].replicas = r;
}

/* horizontal.go: recordInitialRecommendation. */
static void hpa_initial_rec(struct hpa *h, double now, int32_t current)
{
	if (h->nrecs == 0)
		hpa_rec_store(h, -1, now, current);
}

/* horizontal.go: stabilizeRecommendation (no behavior). */
static int32_t hpa_stabilize(struct hpa *h, double now, int32_t desired)
{
	double cutoff = now - h->cfg.downscale_window_s;
	int32_t best = desired;
	long old = -1;
	size_t i;

	for (i = 0; i < h->nrecs; i++) {
		if (h->recs[i].t < cutoff)
			old = (long)i;
		else if (h->recs[i].replicas > best)
			best = h->recs[i].replicas;
	}
	hpa_rec_store(h, old, now, desired);
	return best;
}

/* horizontal.go: convertDesiredReplicasWithRules. */
static int32_t hpa_rules_plain(int32_t current, int32_t desired,
			       int32_t min, int32_t max)
{
	double lim = 2.0 * current > 4.0 ? 2.0 * current : 4.0;
	int32_t up = hpa_clamp32(lim), hi = max > up ? up : max;

	if (desired < min)
		return min;
	if (desired > hi)
		return hi;
	return desired;
}

/* horizontal.go: stabilizeRecommendationWithBehaviors. */
static int32_t hpa_stabilize_behavior(struct hpa *h, double now,
				      int32_t current, int32_t desired)
{
	double upcut = now - h->cfg.up.window_s;
	double dncut = now - h->cfg.down.window_s;
	int32_t upr = desired, dnr = desired, r;
	long old = -1;
	size_t i;

	for (i = 0; i < h->nrecs; i++) {
		const struct hpa_rec *x = &h->recs[i];

		if (x->t > upcut && x->replicas < upr)
			upr = x->replicas;
		if (x->t > dncut && x->replicas > dnr)
			dnr = x->replicas;
		if (x->t < upcut && x->t < dncut)
			old = (long)i;
	}
	r = current;
	if (r < upr)
		r = upr;
	if (r > dnr)
		r = dnr;
	hpa_rec_store(h, old, now, desired);
	return r;
}

/* horizontal.go: getReplicasChangePerPeriod. */
static int64_t hpa_change(const struct hpa_event *ev, size_t n, double now,
			  int32_t period_s)
{
	double cutoff = now - period_s;
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (ev[i].t > cutoff)
			sum += ev[i].change;
	return sum;
}

static int64_t hpa_period_start(const struct hpa *h, double now,
				int32_t current, int32_t period_s)
{
	return (int64_t)current - hpa_change(h->up, h->nup, now, period_s) +
	       hpa_change(h->down, h->ndown, now, period_s);
}

static int64_t hpa_i32(int64_t x)
{
	return x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : x;
}

/* horizontal.go: calculateScaleUpLimitWithScalingRules. */
static int32_t hpa_up_limit(const struct hpa *h, double now, int32_t current)
{
	const struct hpa_rules *r = &h->cfg.up;
	int64_t result, prop;
	size_t i;

	if (r->select == HPA_SELECT_DISABLED)
		return current;
	result = r->select == HPA_SELECT_MIN ? INT32_MAX : INT32_MIN;
	for (i = 0; i < r->npol; i++) {
		int64_t start = hpa_period_start(h, now, current,
						 r->pol[i].period_s);

		if (r->pol[i].type == HPA_PODS)
			prop = start + r->pol[i].value;
		else
			prop = (int64_t)ceil((double)start *
				(1.0 + r->pol[i].value / 100.0));
		prop = hpa_i32(prop);
		if (r->select == HPA_SELECT_MIN)
			result = prop < result ? prop : result;
		else
			result = prop > result ? prop : result;
	}
	return (int32_t)result;
}

/* horizontal.go: calculateScaleDownLimitWithBehaviors. */
static int32_t hpa_down_limit(const struct hpa *h, double now,
			      int32_t current)
{
	const struct hpa_rules *r = &h->cfg.down;
	int64_t result, prop;
	size_t i;

	if (r->select == HPA_SELECT_DISABLED)
		return current;
	result = r->select == HPA_SELECT_MIN ? INT32_MIN : INT32_MAX;
	for (i = 0; i < r->npol; i++) {
		int64_t start = hpa_period_start(h, now, current,
						 r->pol[i].period_s);

		if (r->pol[i].type == HPA_PODS)
			prop = start - r->pol[i].value;
		else    /* int32(float64 * ...) truncates toward zero */
			prop = (int64_t)((double)start *
				(1.0 - r->pol[i].value / 100.0));
		prop = hpa_i32(prop);
		if (r->select == HPA_SELECT_MIN)
			result = prop > result ? prop : result;
		else
			result = prop < result ? prop : result;
	}
	return (int32_t)result;
}

/* horizontal.go: convertDesiredReplicasWithBehaviorRate. */
static int32_t hpa_rules_behavior(const struct hpa *h, double now,
				  int32_t current, int32_t desired)
{
	int32_t lim, bound;

	if (desired > current) {
		lim = hpa_up_limit(h, now, current);
		if (lim < current)
			lim = current;
		bound = h->cfg.max_replicas > lim ? lim : h->cfg.max_replicas;
		return desired > bound ? bound : desired;
	}
	if (desired < current) {
		lim = hpa_down_limit(h, now, current);
		if (lim > current)
			lim = current;
		bound = h->cfg.min_replicas < lim ? lim : h->cfg.min_replicas;
		return desired < bound ? bound : desired;
	}
	return desired;
}

static int32_t hpa_longest(const struct hpa_rules *r)
{
	int32_t p = 0;
	size_t i;

	for (i = 0; i < r->npol; i++)
		if (r->pol[i].period_s > p)
			p = r->pol[i].period_s;
	return p;
}

/* horizontal.go: storeScaleEvent with markScaleEventsOutdated. */
static void hpa_store_event(struct hpa *h, double now, int32_t prev,
			    int32_t next)
{
	struct hpa_event *ev;
	size_t *n, i;
	double cutoff;
	long old = -1;

	if (!h->cfg.behavior || prev == next)
		return;
	if (next > prev) {
		ev = h->up;
		n = &h->nup;
		cutoff = now - hpa_longest(&h->cfg.up);
	} else {
		ev = h->down;
		n = &h->ndown;
		cutoff = now - hpa_longest(&h->cfg.down);
	}
	for (i = 0; i < *n; i++) {
		if (ev[i].t < cutoff)
			ev[i].outdated = 1;
		if (ev[i].outdated)
			old = (long)i;
	}
	if (old < 0 && *n == HPA_EVENTS_MAX) {
		/* Never reached within the checked ranges: reuse the
		 * oldest. */
		old = 0;
		for (i = 1; i < *n; i++)
			if (ev[i].t < ev[old].t)
				old = (long)i;
	}
	if (old < 0)
		old = (long)(*n)++;
	ev[old].t = now;
	ev[old].change = next > prev ? next - prev : prev - next;
	ev[old].outdated = 0;
}

/* horizontal.go: reconcileAutoscaler, from the current scale on. */
int32_t hpa_reconcile(struct hpa *h, double now, int32_t spec,
		      int32_t proposal)
{
	const struct hpa_config *c = &h->cfg;
	int32_t desired;

	hpa_initial_rec(h, now, spec);
	if (spec == 0 && c->min_replicas != 0)
		return spec;            /* ScalingDisabled */
	if (spec > c->max_replicas) {
		desired = c->max_replicas;
	} else if (spec < c->min_replicas) {
		desired = c->min_replicas;
	} else {
		if (proposal < 0)
			return spec;    /* FailedComputeMetricsReplicas */
		desired = proposal;
		if (!c->behavior)
			desired = hpa_rules_plain(spec,
				hpa_stabilize(h, now, desired),
				c->min_replicas, c->max_replicas);
		else
			desired = hpa_rules_behavior(h, now, spec,
				hpa_stabilize_behavior(h, now, spec,
						       desired));
	}
	if (desired != spec)
		hpa_store_event(h, now, spec, desired);
	return desired;
}

/* ---- parsing ------------------------------------------------------------ */

int hpa_select_parse(const char *s, enum hpa_select *out)
{
	if (!strcmp(s, "Max"))
		*out = HPA_SELECT_MAX;
	else if (!strcmp(s, "Min"))
		*out = HPA_SELECT_MIN;
	else if (!strcmp(s, "Disabled"))
		*out = HPA_SELECT_DISABLED;
	else
		return -1;
	return 0;
}

#define HPA_SPEC_MAX 256

int hpa_policies_parse(const char *s, struct hpa_rules *r, char *err,
		       size_t errlen)
{
	char buf[HPA_SPEC_MAX], *save = NULL, *tok;
	size_t n = 0;

	if (strlen(s) >= sizeof(buf))
		goto bad;
	memcpy(buf, s, strlen(s) + 1);
	for (tok = strtok_r(buf, "+", &save); tok;
	     tok = strtok_r(NULL, "+", &save)) {
		char *v = strchr(tok, '/'), *p;
		long val, per;

		if (!v || n == HPA_POLICIES_MAX)
			goto bad;
		*v++ = '\0';
		p = strchr(v, '/');
		if (!p)
			goto bad;
		*p++ = '\0';
		if (!strcmp(tok, "Pods"))
			r->pol[n].type = HPA_PODS;
		else if (!strcmp(tok, "Percent"))
			r->pol[n].type = HPA_PERCENT;
		else
			goto bad;
		if (num_parse_long(v, &val) || num_parse_long(p, &per) ||
		    val < 1 || val > HPA_REPLICAS_MAX || per < 1 ||
		    per > HPA_PERIOD_MAX)
			goto bad;
		r->pol[n].value = (int32_t)val;
		r->pol[n].period_s = (int32_t)per;
		n++;
	}
	if (n == 0)
		goto bad;
	r->npol = n;
	return 0;
bad:
	snprintf(err, errlen, "HPA policies '%.80s': allowed 1 to %d of "
		 "Pods/VALUE/PERIOD or Percent/VALUE/PERIOD joined by '+', "
		 "VALUE 1 to %d, PERIOD 1 to %d seconds, e.g. "
		 "Pods/4/15+Percent/100/15", s, HPA_POLICIES_MAX,
		 HPA_REPLICAS_MAX, HPA_PERIOD_MAX);
	return -1;
}
