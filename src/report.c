/* report.c - see report.h. */
#include "report.h"

#include <math.h>

#include "peak.h"

/* The cold start coldStartQuery gave (only with coldStartQuery: without
 * it the cold start is coldStartSeconds, as the metadata says). */
static void text_cold(FILE *fp, const struct report *r)
{
	const struct meta *m = r->m;
	const struct decision *d = r->d;
	const struct decide_obs *o = r->o;

	if (!o->have_cold || d->cold == DECIDE_COLD_OFF)
		return;
	if (d->cold == DECIDE_COLD_MEASURED)
		fprintf(fp, "cold start %g s, measured by coldStartQuery "
			"(coldStartSeconds %g while it has no data)\n",
			d->cold_s, m->cold_start_s);
	else if (isfinite(o->cold_measured))
		fprintf(fp, "cold start %g s (coldStartSeconds): coldStartQuery "
			"answered %g, outside 0 < s <= %g\n", d->cold_s,
			o->cold_measured, META_COLD_START_MAX);
	else
		fprintf(fp, "cold start %g s (coldStartSeconds): coldStartQuery "
			"has no data (no pods, NaN or Inf, or old data)\n",
			d->cold_s);
	if (d->hold_capped)
		fprintf(fp, "           the hold is cut to %g s, the range of "
			"the series (sized from coldStartSeconds): raise "
			"coldStartSeconds or forecastWindowSeconds to cover "
			"%g s\n", d->hold_s, d->cold_s + meta_lag_seconds(m));
}

/* The scale-down hold: on the answer from memory, or on the arrival
 * rate's series (v2's rule, and a process without a hold of answers). */
static void text_hold(FILE *fp, const struct report *r)
{
	const struct meta *m = r->m;
	const struct decision *d = r->d;
	const struct decide_obs *o = r->o;
	const char *on = m->hold_on == META_HOLD_ANSWER ?
			 " (on the arrival rate until the answers span it)" :
			 "";

	if (!(d->hold_s > 0)) {
		fprintf(fp, "hold       off: %s\n", m->cold_start_s > 0 ?
			"scaleDownHoldSeconds is 0" : "coldStartSeconds is 0");
	} else if (d->hold_memory) {
		fprintf(fp, "hold       %g s on the answer: what was asked for "
			"within it is kept\n", d->hold_s);
	} else if (o->n_series >= 1 &&
		   o->n_series < decide_hold_points(d->hold_s,
						    o->series_step_s)) {
		fprintf(fp, "hold       %g s%s: the series spans %g s of it "
			"(%zu of %zu points): nothing is released until it "
			"spans it all\n", d->hold_s, on,
			(double)(o->n_series - 1) * o->series_step_s,
			o->n_series, decide_hold_points(d->hold_s,
							o->series_step_s));
	} else if (r->s->arrival_held > 0) {
		fprintf(fp, "hold       %g s%s: the highest lambda over it is "
			"%g req/s, %s\n", d->hold_s, on, r->s->arrival_held,
			d->b.source == MODEL_FROM_HELD ? "used" :
			"not used (another lambda is as high)");
	} else {
		fprintf(fp, "hold       %g s%s: %s\n", d->hold_s, on,
			o->n_series >= 1 ? "no arrivals over it" :
			"no series (nothing is released without one or a "
			"hold of answers)");
	}
}

/* What the range query gave, and the forecast made from it.  Shown when
 * anything reads the series (decide_series_query). */
static void text_series(FILE *fp, const struct report *r)
{
	const struct meta *m = r->m;
	const struct decision *d = r->d;
	const struct decide_obs *o = r->o;
	double range, step;

	decide_series_query_cold(m, o->size_cold_s, &range, &step);
	if (!(range > 0))
		return;
	if (o->n_series >= 1)
		fprintf(fp, "series     %zu points %g s apart (range query of "
			"arrivalRateQuery over %g s)\n", o->n_series,
			o->series_step_s, range);
	else
		fprintf(fp, "series     none: %s\n", r->no_series ?
			r->no_series : "no range query answer");
	text_cold(fp, r);
	if (!(m->cold_start_s > 0))
		fprintf(fp, "forecast   off: coldStartSeconds is 0\n");
	else if (m->forecast_method == META_FORECAST_NONE && !o->have_truth)
		fprintf(fp, "forecast   none (forecastMethod none)\n");
	else if (d->forecast_unearned == DECIDE_UNEARNED_WORSE)
		fprintf(fp, "forecast   none: Holt's past forecasts on the series "
			"did no better than \"no change\" (forecastMethod "
			"auto)\n");
	else if (d->forecast_unearned)
		fprintf(fp, "forecast   none yet: too few of Holt's past "
			"forecasts on the series to judge it by (forecastMethod "
			"auto: %d or more)\n", DECIDE_FORECAST_TESTS);
	else if (d->have_forecast && o->have_truth)
		fprintf(fp, "forecast   lambda-hat = %g req/s (the simulator's "
			"truth), %s\n", d->fc.value, d->b.forecast_used ?
			"used" : "not used (lambda is as high)");
	else if (d->have_forecast)
		fprintf(fp, "forecast   lambda-hat = %g req/s in %g s (Holt "
			"level %g req/s, trend %g per step of %g s), %s\n",
			d->fc.value, d->cold_s + meta_lag_seconds(m),
			d->fc.level,
			d->fc.trend, o->series_step_s,
			d->b.forecast_used ? "used" :
			"not used (lambda or the hold is as high)");
	else if (o->n_series < 1)
		fprintf(fp, "forecast   none: no series\n");
	else if (o->n_series < decide_forecast_points(m, o->series_step_s))
		fprintf(fp, "forecast   none yet: %zu of the %zu points it needs "
			"(half of forecastWindowSeconds %g s)\n", o->n_series,
			decide_forecast_points(m, o->series_step_s),
			m->forecast_window_s);
	else
		fprintf(fp, "forecast   none: Holt's method failed on the "
			"series (a value out of range)\n");
	text_hold(fp, r);
}

/* The surge headroom: its estimate, or why there is none. */
static void text_surge(FILE *fp, const struct report *r)
{
	const struct meta *m = r->m;
	const struct decision *d = r->d;
	const struct decide_obs *o = r->o;
	double range, step, lead = d->cold_s + meta_lag_seconds(m);
	size_t n = decide_own_surge(o) ? o->n_surge : o->n_series;

	decide_surge_query_cold(m, o->size_cold_s, &range, &step);
	if (!(m->surge_quantile > 0)) {
		fprintf(fp, "surge      off: surgeQuantile is 0\n");
		return;
	}
	if (!(m->cold_start_s > 0)) {
		fprintf(fp, "surge      off: coldStartSeconds is 0\n");
		return;
	}
	if (d->have_surge) {
		fprintf(fp, "surge      lambda-surge = %g req/s: level %g req/s "
			"x %.3f%s, the %g-quantile of the rises over %g s "
			"(%zu of them, %zu points %g s apart), %s\n",
			d->sg.value, d->sg.level, d->sg.ratio,
			d->sg.value < d->sg.level * d->sg.ratio ?
			" (capped at the highest rate seen)" : "",
			m->surge_quantile, lead, d->sg.rises, n,
			decide_own_surge(o) ? o->surge_step_s : o->series_step_s,
			d->b.source == MODEL_FROM_SURGE ? "used" :
			"not used (another lambda is as high)");
		return;
	}
	if (n < 2)
		fprintf(fp, "surge      none: no series (range query of "
			"arrivalRateQuery over %g s at %g s)\n", range, step);
	else
		fprintf(fp, "surge      none yet: %zu points %g s apart; the "
			"%g-quantile needs %g lead times of %g s of rises "
			"(surgeWindowSeconds %g s)\n", n,
			decide_own_surge(o) ? o->surge_step_s : o->series_step_s,
			m->surge_quantile,
			ceil(SAFETY_BEYOND / (1 - m->surge_quantile) - 1e-9),
			lead, range);
}

/* The arrivals' z the staffing took (b's is the TTFT target's when its
 * Erlang C set the answer, which may be the prompt tokens'). */
static double report_z(const struct report *r)
{
	return r->s->peakedness > 0 ? r->s->peakedness : 1;
}

static void text_peak(FILE *fp, const struct report *r)
{
	const struct meta *m = r->m;
	const struct decision *d = r->d;

	if (m->peakedness != META_AUTO)
		fprintf(fp, "peakedness z = %g (%s)\n", report_z(r),
			m->peakedness == 1 ? "off: Poisson" : "given");
	else if (d->peak_measured && d->peak_low > 0)
		fprintf(fp, "peakedness z = %.3g, measured %.3g over %g s "
			"windows, %.3g at the low end of its standard error "
			"(a prefill pool's sqrt(z - 1)), kept to %g..%g\n",
			report_z(r), round(d->peak_raw * 100) / 100,
			m->rate_window_s, round(d->peak_low * 100) / 100,
			PEAK_MIN, m->peakedness_max);
	else if (d->peak_measured)
		/* Two decimals: a perfectly smooth series measures 1e-18. */
		fprintf(fp, "peakedness z = %.3g, measured %.3g over %g s "
			"windows, kept to %g..%g\n", report_z(r),
			round(d->peak_raw * 100) / 100, m->rate_window_s,
			PEAK_MIN, m->peakedness_max);
	else
		fprintf(fp, "peakedness z = %g: %s to measure it%s\n",
			report_z(r), r->o->n_series >= 1 ?
			"the series is too short" : "no series",
			d->peak_prior ? " (a prefill pool with a TTFT "
			"target assumes peakednessMax until it is measured)" :
			"");
}

/* The z a prefill pool's TTFT target took, and its prompt tokens'. */
static void text_token_peak(FILE *fp, const struct report *r)
{
	const struct decision *d = r->d;
	const struct pool_terms *t = &d->pool;

	if (!t->ttft_reachable || r->m->peakedness != META_AUTO ||
	    !decide_peak_prior(r->m))
		return;
	if (d->tok_measured)
		fprintf(fp, "ttft z     %.3g, the %s: the tokens' in mean "
			"prompts measured %.3g, %.3g at the low end of its "
			"standard error, kept to %g..%g: %.3g\n",
			t->ttft_peakedness, t->ttft_token_peak ?
			"prompt tokens' peakedness (above the arrivals' z)" :
			"arrivals' (the prompt tokens' is not above it)",
			round(d->tok_raw * 100) / 100,
			round(d->tok_low * 100) / 100, PEAK_MIN,
			r->m->peakedness_max, d->tok_z);
	else
		fprintf(fp, "ttft z     %.3g, the arrivals': the prompt "
			"tokens' peakedness is not measured (%s)\n",
			t->ttft_peakedness, !d->peak_measured ?
			"nor the arrivals'" : !r->o->tokens ?
			"no range of inputTokenRateQuery" :
			"the series say too little");
}

/* A pool's terms (pool.h): its tokens, W, and what bounds its slots. */
static void text_pool(FILE *fp, const struct report *r)
{
	const struct meta *m = r->m;
	const struct decision *d = r->d;
	const struct pool_terms *t = &d->pool;
	const struct pool_signals *ps = &r->o->pool;

	if (!d->have_pool)
		return;
	if (t->kind == POOL_PREFILL) {
		fprintf(fp, "pool       prefill: lambda_in = %g tokens/s (%g "
			"a request), C = %g tokens/s a replica (%s)\n",
			ps->input_rate, t->mean_input, t->capacity,
			t->capacity_measured ? "prefillCapacityQuery" :
			"prefillTokensPerSecond");
		if (t->service_from_tokens)
			fprintf(fp, "           W = %g / %g = %g s a request "
				"at full speed; a replica is one server: "
				"n = 1\n", t->mean_input, t->capacity,
				t->service_s);
		else
			fprintf(fp, "           W = %g s (no input tokens a "
				"request now: the last W or serviceTime); "
				"n = 1\n", t->service_s);
		if (!(m->pool.ttft_target_s > 0))
			return;
		if (!t->ttft_reachable)
			fprintf(fp, "ttft       target %g s unreachable: W %g s + "
				"KV transfer %g s leave no time to wait; "
				"staffed without it\n", m->pool.ttft_target_s,
				t->service_s, m->pool.kv_transfer_s);
		else
			fprintf(fp, "ttft       target %g s: wait budget tau = "
				"%g s, P(wait > tau) <= %g needs %.3f slots, "
				"%s\n", m->pool.ttft_target_s, t->ttft_wait_s,
				1 - m->sla_target, t->ttft_slots, t->ttft_sets ?
				"used" : "not used (the staffing asks more)");
		text_token_peak(fp, r);
		return;
	}
	if (t->output_arrivals > 0)
		fprintf(fp, "pool       decode: lambda_out = %g tokens/s (%g a "
			"request of the %g req/s that arrived over the last W "
			"+ rate window: more than lambda now)\n",
			ps->output_rate, t->mean_output, t->output_arrivals);
	else
		fprintf(fp, "pool       decode: lambda_out = %g tokens/s (%g a "
			"request)\n", ps->output_rate, t->mean_output);
	if (t->batch_itl > 0)
		fprintf(fp, "itl        target %g s: batch b* = %ld (ITL %g s, "
			"decodeProfile); W = %s%g s a request\n",
			m->pool.itl_target_s, t->batch_itl, t->itl_s,
			t->service_from_tokens ? "" : "the last W or "
			"serviceTime, ", t->service_s);
	if (t->kv_capacity > 0 && t->kv_seq > 0) {
		char used[32];

		/* not measured (no kvCacheUsageQuery, or no value): none,
		 * not a 0 that reads like a measurement */
		if (t->kv_seq_measured > 0)
			snprintf(used, sizeof(used), "%g", t->kv_seq_measured);
		else
			snprintf(used, sizeof(used), "none");
		fprintf(fp, "kv         K = %g tokens a replica (%s); a sequence "
			"holds %g (input + output / 2: %g; in use / L: %s): "
			"%ld sequences a replica\n", t->kv_capacity,
			t->kv_measured ? "kvCacheTokensQuery" : "kvCacheTokens",
			t->kv_seq, t->kv_seq_rates, used, t->slots_kv);
	} else if (t->kv_capacity > 0)
		fprintf(fp, "kv         K = %g tokens a replica; the KV a "
			"sequence holds is unknown now: no KV bound\n",
			t->kv_capacity);
	fprintf(fp, "slots      n = %ld sequences a replica, bound by %s\n",
		t->slots, pool_bind_name(t->bind));
}

static const char *source_text(const struct model_breakdown *b)
{
	switch (b->source) {
	case MODEL_FROM_FORECAST:
		return "L = lambda-hat * W";
	case MODEL_FROM_HELD:
		return "L = lambda-held * W";
	case MODEL_FROM_SURGE:
		return "L = lambda-surge * W";
	case MODEL_FROM_MEASURED:
		break;
	}
	return "L = lambda * W";
}

/* One term: "busy       L = lambda * W          20.000 slots". */
static void term(FILE *fp, const char *name, const char *what, double v)
{
	fprintf(fp, "%-10s %-40s %10.3f slots\n", name, what, v);
}

static void text_down(FILE *fp, const struct report *r)
{
	const struct meta *m = r->m;
	const struct decision *d = r->d;
	const struct decide_obs *o = r->o;
	const char *from = o->have_view ? "the current replicas" :
					  "the last answer";

	switch (d->down) {
	case DECIDE_DOWN_FREE:
		fprintf(fp, "scale-down none: the answer is the model's\n");
		break;
	case DECIDE_DOWN_HOLD:
		fprintf(fp, "scale-down held: capacity for the hold's lambda "
			"is kept for %g s\n", d->hold_s);
		break;
	case DECIDE_DOWN_NO_SERIES:
		fprintf(fp, "scale-down nothing released: without a series "
			"spanning the hold nothing says demand stayed below "
			"%s (%lld)\n", from, (long long)d->prev);
		break;
	case DECIDE_DOWN_MARGIN_HELD:
		fprintf(fp, "scale-down margin: down from %lld to %lld, not "
			"%lld: a lower answer keeps half a replica above the "
			"model's %.3f\n", (long long)d->prev,
			(long long)d->target, (long long)d->raw,
			d->b.exact_replicas);
		break;
	case DECIDE_DOWN_ANSWER_HELD:
		fprintf(fp, "scale-down answer held: %lld, not %lld, until "
			"the answers have stayed lower for %g s\n",
			(long long)d->target, (long long)d->raw, d->hold_s);
		break;
	case DECIDE_DOWN_STEP:
		if (d->prev < 0)
			fprintf(fp, "scale-down step limit (%ld per %g s): no "
				"earlier answer to step down from\n",
				m->scale_down_step, m->scale_down_period_s);
		else
			fprintf(fp, "scale-down step limit: at most %ld "
				"replicas per %g s below %s (%lld)\n",
				m->scale_down_step, m->scale_down_period_s,
				from, (long long)d->prev);
		break;
	}
	if (o->have_view)
		fprintf(fp, "current    %lld replicas (currentReplicasQuery), "
			"at most %lld over the last %g s\n",
			(long long)o->current, (long long)o->recent_max,
			m->scale_down_period_s);
}

/* The SLO correction: the factor as a term, then what it was made of. */
static void text_feedback(FILE *fp, const struct report *r)
{
	const struct meta *m = r->m;
	const struct decision *d = r->d;
	const struct feedback_info *f = &d->fb;
	char what[96];

	if (!d->have_feedback)
		return;
	snprintf(what, sizeof(what), "SLO correction x %.3f",
		 d->b.correction);
	term(fp, "feedback", what, d->b.feedback_slots);
	if (f->used == 0)
		fprintf(fp, "           no miss share over the last %g s "
			"(%zu points without requests, %zu while demand "
			"rose): no correction\n", m->feedback_window_s,
			f->empty, f->rising);
	else
		fprintf(fp, "           %.3g %% of requests missed the SLA "
			"(mean of %zu points; allowance %.3g %%; "
			"%zu left out while demand rose, %zu without "
			"requests)\n", 100 * f->miss_mean, f->used,
			100 * (1 - m->sla_target), f->rising, f->empty);
}

void report_text(FILE *fp, const struct report *r)
{
	const struct meta *m = r->m;
	const struct model_params *p = &m->model;
	const struct model_signals *s = r->s;
	const struct model_breakdown *b = &r->d->b;
	char what[96];

	if (m->schedule)
		fprintf(fp, "time       %s %s (%s)\nwindow     %s\n", r->day,
			r->when, r->zone, r->window ? r->window :
			"none (base metadata)");
	fprintf(fp, "signals    lambda = %g req/s%s, W = %g s, Q = %g, "
		"S = %g req/s\n", s->arrival_rate,
		r->lambda_note ? r->lambda_note : "", s->service_time_s,
		s->queue_depth, s->shed_rate);
	text_pool(fp, r);
	text_series(fp, r);
	text_surge(fp, r);
	text_peak(fp, r);
	term(fp, "busy", source_text(b), b->busy_slots);
	switch (r->d->have_pool && r->d->pool.ttft_sets ?
		MODEL_STAFF_ERLANGC : p->staffing) {
	case MODEL_STAFF_SQRT:
		snprintf(what, sizeof(what), "beta * sqrt(%s * L), beta = %g",
			 r->d->have_pool && r->d->pool.headroom_excess ?
			 "(z - 1)" : "z", p->beta);
		break;
	case MODEL_STAFF_ERLANGC:
		if (r->d->have_pool && r->d->pool.ttft_sets)
			snprintf(what, sizeof(what), "ttft: P(wait > %.3gs) "
				 "<= %g", r->d->pool.ttft_wait_s,
				 1 - m->sla_target);
		else
			snprintf(what, sizeof(what), "erlangc: P(wait > %gs) "
				 "<= %g", p->target_wait_s,
				 p->wait_probability);
		break;
	case MODEL_STAFF_COST:
		snprintf(what, sizeof(what), "cost: %g/h a replica, %g/h "
			 "penalty", p->cost_per_replica_hour,
			 p->sla_penalty_per_hour);
		break;
	case MODEL_STAFF_NONE:
		snprintf(what, sizeof(what), "none");
		break;
	}
	term(fp, "headroom", what, b->headroom_slots);
	snprintf(what, sizeof(what), "Q * W / D, D = %g s", p->drain_s);
	term(fp, "drain", what, b->drain_slots);
	term(fp, "boost", s->shed_rate > p->shed_threshold ?
	     "boostFactor * S * W" : "off (S <= shedThreshold)",
	     b->boost_slots);
	text_feedback(fp, r);
	if (isfinite(b->total_slots)) {
		term(fp, "total", "", b->total_slots);
		snprintf(what, sizeof(what), "ceil(%.3f / %ld)%s",
			 b->total_slots, r->d->have_pool ? r->d->pool.slots :
			 p->slots_per_replica, b->capped ? ", capped" : "");
		fprintf(fp, "%-10s %-40s %10lld\n", "replicas", what,
			(long long)b->replicas);
	} else {
		/* Beyond MODEL_SLOTS_MAX, answered by the cap (model.h). */
		fprintf(fp, "total      more than %g slots, beyond what the "
			"model staffs\n", MODEL_SLOTS_MAX);
		fprintf(fp, "%-10s %-40s %10lld\n", "replicas",
			"maxReplicas, capped", (long long)b->replicas);
	}
	text_down(fp, r);
	fprintf(fp, "%-10s %-40s %10lld\n", "answer", "after scale-down and "
		"maxReplicas", (long long)r->d->target);
	fprintf(fp, "active     %s\n", b->active ? "yes" : "no");
}

/* Adders that remember a failure, so that one check covers them all. */
static void add_num(cJSON *o, const char *k, double v, int *bad)
{
	if (!cJSON_AddNumberToObject(o, k, v))
		*bad = 1;
}

static void add_bool(cJSON *o, const char *k, int v, int *bad)
{
	if (!cJSON_AddBoolToObject(o, k, v))
		*bad = 1;
}

static void add_str(cJSON *o, const char *k, const char *v, int *bad)
{
	if (!cJSON_AddStringToObject(o, k, v))
		*bad = 1;
}

/* A pool's terms as members of o (text_pool()'s).  0, or -1. */
static int json_pool(cJSON *o, const struct report *r)
{
	const struct meta *m = r->m;
	const struct pool_terms *t = &r->d->pool;
	const struct pool_signals *ps = &r->o->pool;
	int bad = 0;

	add_str(o, "pool", pool_kind_name(t->kind), &bad);
	add_num(o, "mean_input_tokens", t->mean_input, &bad);
	add_num(o, "mean_output_tokens", t->mean_output, &bad);
	add_bool(o, "service_from_tokens", t->service_from_tokens, &bad);
	add_str(o, "slots_bound_by", pool_bind_name(t->bind), &bad);
	if (t->kind == POOL_PREFILL) {
		add_num(o, "input_token_rate", ps->input_rate, &bad);
		add_num(o, "prefill_capacity", t->capacity, &bad);
		add_bool(o, "prefill_capacity_measured",
			 t->capacity_measured, &bad);
		if (m->pool.ttft_target_s > 0) {
			add_num(o, "ttft_target", m->pool.ttft_target_s, &bad);
			add_num(o, "ttft_wait_budget", t->ttft_wait_s, &bad);
			add_bool(o, "ttft_reachable", t->ttft_reachable, &bad);
			add_num(o, "ttft_slots", t->ttft_slots, &bad);
			add_bool(o, "ttft_used", t->ttft_sets, &bad);
			add_bool(o, "headroom_beyond_poisson",
				 t->headroom_excess, &bad);
			add_num(o, "ttft_peakedness", t->ttft_peakedness,
				&bad);
			add_bool(o, "ttft_token_peakedness",
				 t->ttft_token_peak, &bad);
			if (r->d->tok_measured) {
				add_num(o, "token_peakedness_raw",
					r->d->tok_raw, &bad);
				add_num(o, "token_peakedness_low",
					r->d->tok_low, &bad);
			}
		}
		return bad ? -1 : 0;
	}
	add_num(o, "output_token_rate", ps->output_rate, &bad);
	if (t->output_arrivals > 0)
		add_num(o, "output_arrivals", t->output_arrivals, &bad);
	if (ps->input_rate > 0)
		add_num(o, "input_token_rate", ps->input_rate, &bad);
	if (m->pool.itl_target_s > 0) {
		add_num(o, "itl_target", m->pool.itl_target_s, &bad);
		add_num(o, "batch_itl", (double)t->batch_itl, &bad);
		add_num(o, "itl", t->itl_s, &bad);
	}
	if (t->kv_capacity > 0) {
		add_num(o, "kv_capacity", t->kv_capacity, &bad);
		add_bool(o, "kv_capacity_measured", t->kv_measured, &bad);
		add_num(o, "kv_per_sequence", t->kv_seq, &bad);
		add_num(o, "kv_per_sequence_rates", t->kv_seq_rates, &bad);
		add_num(o, "kv_per_sequence_measured", t->kv_seq_measured,
			&bad);
		add_num(o, "slots_kv", (double)t->slots_kv, &bad);
		if (ps->kv_used > 0)
			add_num(o, "kv_used", ps->kv_used, &bad);
	}
	return bad ? -1 : 0;
}

int report_json(cJSON *o, const struct report *r)
{
	const struct meta *m = r->m;
	const struct model_signals *s = r->s;
	const struct decision *d = r->d;
	const struct model_breakdown *b = &d->b;
	int bad = 0;

	if (m->schedule) {
		add_str(o, "time", r->when, &bad);
		if (!(r->window ? cJSON_AddStringToObject(o, "window",
							  r->window) :
				  cJSON_AddNullToObject(o, "window")))
			bad = 1;
	}
	add_str(o, "staffing", model_staffing_name(m->model.staffing), &bad);
	add_num(o, "arrival_rate", s->arrival_rate, &bad);
	add_num(o, "service_time", s->service_time_s, &bad);
	add_num(o, "queue_depth", s->queue_depth, &bad);
	add_num(o, "shed_rate", s->shed_rate, &bad);
	add_num(o, "series_points", (double)r->o->n_series, &bad);
	add_num(o, "arrival_forecast", s->arrival_forecast, &bad);
	add_num(o, "arrival_held", s->arrival_held, &bad);
	add_num(o, "arrival_used", b->arrival_used, &bad);
	add_bool(o, "forecast_used", b->forecast_used, &bad);
	add_bool(o, "held_used", b->source == MODEL_FROM_HELD, &bad);
	add_num(o, "arrival_surge", s->arrival_surge, &bad);
	add_bool(o, "surge_used", b->source == MODEL_FROM_SURGE, &bad);
	if (d->have_surge) {
		add_num(o, "surge_level", d->sg.level, &bad);
		add_num(o, "surge_ratio", d->sg.ratio, &bad);
		add_num(o, "surge_peak", d->sg.peak, &bad);
		add_num(o, "surge_rises", (double)d->sg.rises, &bad);
	}
	add_str(o, "forecast_method", m->forecast_method ==
		META_FORECAST_HOLT ? "holt" : m->forecast_method ==
		META_FORECAST_AUTO ? "auto" : "none", &bad);
	add_bool(o, "forecast_unearned", d->forecast_unearned != 0, &bad);
	add_str(o, "hold_on", m->hold_on == META_HOLD_ANSWER ? "answer" :
		"rate", &bad);
	add_bool(o, "hold_memory", d->hold_memory, &bad);
	if (d->have_forecast) {
		add_num(o, "forecast_level", d->fc.level, &bad);
		add_num(o, "forecast_trend", d->fc.trend, &bad);
		add_num(o, "forecast_steps", d->fc.steps, &bad);
		add_num(o, "forecast_step_seconds", r->o->series_step_s, &bad);
		add_num(o, "forecast_horizon_seconds",
			d->cold_s + meta_lag_seconds(m), &bad);
	}
	if (r->o->have_cold) {
		add_num(o, "cold_start_seconds", d->cold_s, &bad);
		add_bool(o, "cold_start_measured",
			 d->cold == DECIDE_COLD_MEASURED, &bad);
	}
	add_num(o, "hold_seconds", d->hold_s, &bad);
	add_num(o, "peakedness", report_z(r), &bad);
	add_bool(o, "peakedness_measured", d->peak_measured, &bad);
	add_bool(o, "peakedness_prior", d->peak_prior, &bad);
	if (d->peak_measured)
		add_num(o, "peakedness_raw", d->peak_raw, &bad);
	if (d->peak_measured && d->peak_low > 0)
		add_num(o, "peakedness_low", d->peak_low, &bad);
	add_num(o, "busy_slots", b->busy_slots, &bad);
	add_num(o, "headroom_slots", b->headroom_slots, &bad);
	add_num(o, "drain_slots", b->drain_slots, &bad);
	add_num(o, "boost_slots", b->boost_slots, &bad);
	if (d->have_feedback) {
		add_num(o, "correction", b->correction, &bad);
		add_num(o, "feedback_slots", b->feedback_slots, &bad);
		add_num(o, "miss_points", (double)d->fb.used, &bad);
		if (d->fb.used > 0)
			add_num(o, "miss_share", d->fb.miss_mean, &bad);
		add_num(o, "miss_points_rising", (double)d->fb.rising, &bad);
		add_num(o, "miss_points_empty", (double)d->fb.empty, &bad);
	}
	add_num(o, "total_slots", b->total_slots, &bad);
	add_num(o, "slots_per_replica", d->have_pool ? (double)d->pool.slots :
		(double)m->model.slots_per_replica, &bad);
	if (d->have_pool && json_pool(o, r))
		bad = 1;
	add_num(o, "exact_replicas", b->exact_replicas, &bad);
	add_num(o, "replicas", (double)b->replicas, &bad);
	add_bool(o, "capped", b->capped, &bad);
	add_str(o, "scale_down", decide_down_name(d->down), &bad);
	add_num(o, "target", (double)d->target, &bad);
	add_bool(o, "active", b->active, &bad);
	return bad ? -1 : 0;
}
