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
