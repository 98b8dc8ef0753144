/* decide.c - see decide.h. */
#include "decide.h"

#include <math.h>
#include <string.h>

#include "forecast.h"

enum model_err decide(const struct meta *m, const struct model_signals *s,
		      double now_s, struct smooth *st, struct decision *out)
{
	struct decision d;
	enum model_err err;

	memset(&d, 0, sizeof(d));
	err = model_evaluate(&m->model, s, &d.b);
	if (err != MODEL_OK)
		return err;
	d.raw = d.b.replicas;
	d.target = st ? smooth_step(st, d.raw, now_s, m->scale_down_step,
				    m->scale_down_period_s) : d.raw;
	/* maxReplicas may have been lowered since the smoothed value rose. */
	if (m->model.max_replicas > 0 && d.target > m->model.max_replicas) {
		d.target = m->model.max_replicas;
		if (st)
			st->target = d.target;
	}
	*out = d;
	return MODEL_OK;
}

enum model_err decide_observed(const struct meta *m,
			       const struct model_signals *s,
			       int64_t current, int64_t recent_max,
			       struct decision *out)
{
	struct decision d;
	enum model_err err;
	int64_t step = m->scale_down_step > 0 ? m->scale_down_step : 1;

	memset(&d, 0, sizeof(d));
	err = model_evaluate(&m->model, s, &d.b);
	if (err != MODEL_OK)
		return err;
	d.raw = d.b.replicas;
	if (current < 0)
		current = 0;
	if (d.raw >= current)
		d.target = d.raw;
	else if (recent_max > current)
		d.target = current;
	else
		d.target = current - step > d.raw ? current - step : d.raw;
	if (m->model.max_replicas > 0 && d.target > m->model.max_replicas)
		d.target = m->model.max_replicas;
	*out = d;
	return MODEL_OK;
}

enum decide_err decide_observations(const struct meta *m,
				    const struct decide_obs *o, double now_s,
				    struct smooth *st,
				    struct model_signals *sig,
				    struct decision *out,
				    enum model_err *merr)
{
	struct model_signals s;
	struct decision d;
	struct forecast fc;
	enum model_err e;
	int demand, have_fc = 0;

	memset(&s, 0, sizeof(s));
	s.arrival_rate = o->arrival_rate;
	s.queue_depth = o->queue_depth;
	s.shed_rate = o->shed_rate;
	if (o->w_measured > 0 && isfinite(o->w_measured))
		s.service_time_s = o->w_measured;
	else if (o->w_last > 0)
		s.service_time_s = o->w_last;
	else
		s.service_time_s = m->service_time_s;
	demand = s.arrival_rate > 0 || s.queue_depth > 0 || s.shed_rate > 0;
	if (!(s.service_time_s > 0)) {
		if (demand)
			return DECIDE_ENOW;
		s.service_time_s = 0;
	}
	/* Without W a forecast cannot be staffed; without demand nothing is
	 * lost by leaving it out. */
	if (s.service_time_s > 0 && m->cold_start_s > 0 && o->n_series >= 2 &&
	    forecast_ahead(o->series, o->n_series, o->series_step_s,
			   m->cold_start_s, m->forecast_alpha,
			   m->forecast_beta, &fc) == MODEL_OK) {
		s.arrival_forecast = fc.value;
		have_fc = 1;
	}

	if (o->have_view) {
		e = decide_observed(m, &s, o->current,
				    o->recent_max > o->current ?
				    o->recent_max : o->current, &d);
		if (e == MODEL_OK && st)
			smooth_seed(st, d.target, now_s);
	} else {
		e = decide(m, &s, now_s, st, &d);
	}
	if (e != MODEL_OK) {
		*merr = e;
		return DECIDE_EMODEL;
	}
	if (have_fc) {
		d.have_forecast = 1;
		d.fc = fc;
	}
	*sig = s;
	*out = d;
	return DECIDE_OK;
}
