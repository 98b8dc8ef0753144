/* report.c - see report.h. */
#include "report.h"

#include <math.h>

/*
 * The forecast lines.  Shown whenever the forecast could matter: a cold
 * start is set or a series was given.
 */
static void text_forecast(FILE *fp, const struct report *r)
{
	const struct meta *m = r->m;

	if (r->fc) {
		fprintf(fp, "forecast   lambda-hat = %g req/s in %g s (%g steps "
			"of %g s, %zu values), %s\n", r->fc->value,
			m->cold_start_s, r->fc->steps, r->fc_step_s,
			r->fc_points, r->b->forecast_used ? "used" :
			"not used (lambda is as high)");
		fprintf(fp, "           Holt level %g req/s, trend %g req/s per "
			"step\n", r->fc->level, r->fc->trend);
	} else if (m->cold_start_s > 0) {
		fprintf(fp, "forecast   none: coldStartSeconds is %g but %s\n",
			m->cold_start_s, r->no_forecast ? r->no_forecast :
			"no series");
	} else if (r->series_off) {
		fprintf(fp, "forecast   off: coldStartSeconds is 0\n");
	}
}

void report_text(FILE *fp, const struct report *r)
{
	const struct meta *m = r->m;
	const struct model_params *p = &m->model;
	const struct model_signals *s = r->s;
	const struct model_breakdown *b = r->b;

	if (m->schedule)
		fprintf(fp, "time       %s %s (%s)\nwindow     %s\n", r->day,
			r->when, r->zone, r->window ? r->window :
			"none (base metadata)");
	fprintf(fp, "signals    lambda = %g req/s%s, W = %g s, Q = %g, "
		"S = %g req/s\n", s->arrival_rate,
		r->lambda_note ? r->lambda_note : "", s->service_time_s,
		s->queue_depth, s->shed_rate);
	text_forecast(fp, r);
	fprintf(fp, "busy       %-35s%10.3f slots\n", b->forecast_used ?
		"L = lambda-hat * W" : "L = lambda * W", b->busy_slots);
	switch (p->staffing) {
	case MODEL_STAFF_SQRT:
		fprintf(fp, "headroom   sqrt: beta * sqrt(L), beta = %-5g "
			"%10.3f slots\n", p->beta, b->headroom_slots);
		break;
	case MODEL_STAFF_ERLANGC:
		fprintf(fp, "headroom   erlangc: P(wait > %gs) <= %g      "
			"%10.3f slots\n", p->target_wait_s,
			p->wait_probability, b->headroom_slots);
		break;
	case MODEL_STAFF_COST:
		fprintf(fp, "headroom   cost: %g/h per replica, %g/h penalty "
			"%8.3f slots\n", p->cost_per_replica_hour,
			p->sla_penalty_per_hour, b->headroom_slots);
		break;
	case MODEL_STAFF_NONE:
		fprintf(fp, "headroom   none                               "
			"%10.3f slots\n", b->headroom_slots);
		break;
	}
	fprintf(fp, "drain      max(0, Q - L) * W / %-6gs         %10.3f "
		"slots\n", p->drain_s, b->drain_slots);
	fprintf(fp, "boost      %s %10.3f slots\n",
		s->shed_rate > p->shed_threshold ?
		"boostFactor * S * W                " :
		"off (S <= shedThreshold)           ", b->boost_slots);
	if (isfinite(b->total_slots)) {
		fprintf(fp, "total                                         "
			"%10.3f slots\n", b->total_slots);
		fprintf(fp, "replicas   ceil(%.3f / %ld)%s%*s%10lld\n",
			b->total_slots, p->slots_per_replica,
			b->capped ? ", capped" : "", b->capped ? 12 : 20, "",
			(long long)b->replicas);
	} else {
		/* Beyond MODEL_SLOTS_MAX, answered by the cap (model.h). */
		fprintf(fp, "total      more than %g slots, beyond what the "
			"model staffs\n", MODEL_SLOTS_MAX);
		fprintf(fp, "replicas   maxReplicas, capped%17s%10lld\n", "",
			(long long)b->replicas);
	}
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

int report_json(cJSON *o, const struct report *r)
{
	const struct meta *m = r->m;
	const struct model_signals *s = r->s;
	const struct model_breakdown *b = r->b;
	int bad = 0;

	if (m->schedule) {
		if (!cJSON_AddStringToObject(o, "time", r->when))
			bad = 1;
		if (!(r->window ? cJSON_AddStringToObject(o, "window",
							  r->window) :
				  cJSON_AddNullToObject(o, "window")))
			bad = 1;
	}
	if (!cJSON_AddStringToObject(o, "staffing",
				     model_staffing_name(m->model.staffing)))
		bad = 1;
	add_num(o, "arrival_rate", s->arrival_rate, &bad);
	add_num(o, "service_time", s->service_time_s, &bad);
	add_num(o, "queue_depth", s->queue_depth, &bad);
	add_num(o, "shed_rate", s->shed_rate, &bad);
	add_num(o, "arrival_forecast", s->arrival_forecast, &bad);
	add_num(o, "arrival_used", b->arrival_used, &bad);
	add_bool(o, "forecast_used", b->forecast_used, &bad);
	if (r->fc) {
		add_num(o, "forecast_level", r->fc->level, &bad);
		add_num(o, "forecast_trend", r->fc->trend, &bad);
		add_num(o, "forecast_steps", r->fc->steps, &bad);
		add_num(o, "forecast_step_seconds", r->fc_step_s, &bad);
		add_num(o, "forecast_horizon_seconds", m->cold_start_s, &bad);
		add_num(o, "forecast_points", (double)r->fc_points, &bad);
	}
	add_num(o, "busy_slots", b->busy_slots, &bad);
	add_num(o, "headroom_slots", b->headroom_slots, &bad);
	add_num(o, "drain_slots", b->drain_slots, &bad);
	add_num(o, "boost_slots", b->boost_slots, &bad);
	add_num(o, "total_slots", b->total_slots, &bad);
	add_num(o, "slots_per_replica", (double)m->model.slots_per_replica,
		&bad);
	add_num(o, "exact_replicas", b->exact_replicas, &bad);
	add_num(o, "replicas", (double)b->replicas, &bad);
	add_bool(o, "capped", b->capped, &bad);
	add_bool(o, "active", b->active, &bad);
	return bad ? -1 : 0;
}
