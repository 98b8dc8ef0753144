/* decide.c - see decide.h. */
#include "decide.h"

enum model_err decide(const struct meta *m, const struct model_signals *s,
		      double now_s, struct smooth *st, struct decision *out)
{
	struct decision d;
	enum model_err err;

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
