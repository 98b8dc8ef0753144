/*
 * tunesearch.c - the split, the objective and the coordinate search of
 * `staffer tune`; see tunesearch.h.
 */
#include "tunesearch.h"

#include <math.h>
#include <string.h>

#include "num.h"

double tune_holdout_s(double span_s, double step_s)
{
	double h, steps;

	if (!isfinite(span_s) || !isfinite(step_s) || !(step_s > 0) ||
	    !(span_s >= TUNE_MIN_SPAN_S))
		return 0;
	h = span_s >= TUNE_SPLIT_DAY_FROM_S ? TUNE_HOLDOUT_DAY_S :
	    span_s / 6;
	steps = floor(h / step_s + 1e-9);
	return (steps >= 1 ? steps : 1) * step_s;
}

static int tune_reaches(const struct tune_score *s,
			const struct tune_goal *g)
{
	return s->attainment >= g->target;
}

/* x costs fewer hours than y, by more than the margin. */
static int tune_cheaper(const struct tune_score *x,
			const struct tune_score *y, double margin)
{
	return x->hours < y->hours * (1 - margin);
}

int tune_better(const struct tune_score *x, const struct tune_score *y,
		const struct tune_goal *g, int with_margin)
{
	double mh = with_margin ? g->margin_hours : 0;
	double ma = with_margin ? g->margin_att : 0;
	int rx, ry;

	if (!x->valid || !y->valid)
		return x->valid && !y->valid;
	rx = tune_reaches(x, g);
	ry = tune_reaches(y, g);
	if (rx != ry)
		return rx;
	if (rx)
		return tune_cheaper(x, y, mh);
	if (x->attainment > y->attainment + ma)
		return 1;
	if (y->attainment > x->attainment + ma)
		return 0;
	/* the same within the margin: but exactly, more is not cheaper */
	if (!with_margin && x->attainment != y->attainment)
		return x->attainment > y->attainment;
	return tune_cheaper(x, y, mh);
}

int tune_same_value(const char *a, const char *b)
{
	double x, y;

	if (!a || !b)
		return a == b;
	if (!num_parse_double(a, &x) && !num_parse_double(b, &y))
		return x == y;
	return !strcmp(a, b);
}

size_t tune_search_bound(const struct tune_key *keys, size_t nkeys,
			 int passes)
{
	size_t i, per = 0;

	for (i = 0; i < nkeys; i++)
		per += keys[i].n + 1;
	return 1 + (size_t)(passes > 0 ? passes : 0) * per;
}

/* A configuration: key i's candidate index, -1 for the current value. */
struct tune_cfg {
	int idx[TUNE_KEYS_MAX];
};

struct tune_memo {
	struct tune_cfg cfg[TUNE_SIMS_MAX];
	struct tune_score score[TUNE_SIMS_MAX];
	size_t n;
};

/* The effective value of key k at candidate index i. */
static const char *tune_value(const struct tune_key *k, int i)
{
	if (i >= 0)
		return k->values[i];
	return k->current ? k->current : k->deflt;
}

/* Evaluate c, from memory when it was.  0, or -1 to stop. */
static int tune_eval(const struct tune_key *keys, size_t nkeys,
		     const struct tune_cfg *c, struct tune_memo *m,
		     tune_eval_fn *fn, void *arg, struct tune_score *out)
{
	const char *vals[TUNE_KEYS_MAX];
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!memcmp(&m->cfg[i], c, sizeof(*c))) {
			*out = m->score[i];
			return 0;
		}
	if (m->n == TUNE_SIMS_MAX)
		return -1;
	for (i = 0; i < nkeys; i++)
		vals[i] = c->idx[i] >= 0 ? keys[i].values[c->idx[i]] : NULL;
	memset(out, 0, sizeof(*out));
	if (fn(arg, vals, out))
		return -1;
	m->cfg[m->n] = *c;
	m->score[m->n] = *out;
	m->n++;
	return 0;
}

/* One coordinate: the best value of key k given the rest of *inc.
 * 1 when it moved, 0 not, -1 to stop. */
static int tune_coordinate(const struct tune_key *keys, size_t nkeys,
			   size_t k, const struct tune_goal *g,
			   struct tune_cfg *inc, struct tune_score *inc_s,
			   struct tune_memo *m, tune_eval_fn *fn, void *arg)
{
	const struct tune_key *key = &keys[k];
	struct tune_cfg c = *inc, best = *inc;
	struct tune_score s, best_s = *inc_s;
	int j, found = 0;

	for (j = -1; j < (int)key->n; j++) {
		if (j == inc->idx[k])
			continue;
		/* a candidate that is the value in force, or that another
		 * candidate already stands for, is the same configuration */
		if (j >= 0 && tune_same_value(key->values[j],
					      tune_value(key, -1)))
			continue;
		c.idx[k] = j;
		if (tune_eval(keys, nkeys, &c, m, fn, arg, &s))
			return -1;
		if (!found || tune_better(&s, &best_s, g, 0)) {
			if (tune_better(&s, inc_s, g, 1)) {
				best = c;
				best_s = s;
				found = 1;
			}
		}
	}
	if (!found)
		return 0;
	*inc = best;
	*inc_s = best_s;
	return 1;
}

int tune_search(const struct tune_key *keys, size_t nkeys,
		const struct tune_goal *g, int passes, tune_eval_fn *fn,
		void *arg, struct tune_result *out)
{
	struct tune_memo m;                   /* ~18 KiB */
	struct tune_cfg inc;
	struct tune_score inc_s, cur_s;
	size_t i;
	int pass, moved, r;

	if (nkeys > TUNE_KEYS_MAX || passes < 1 || passes > TUNE_PASSES_MAX)
		return -1;
	for (i = 0; i < nkeys; i++)
		if (keys[i].n > TUNE_VALUES_MAX)
			return -1;
	memset(&m, 0, sizeof(m));
	for (i = 0; i < TUNE_KEYS_MAX; i++)
		inc.idx[i] = -1;
	if (tune_eval(keys, nkeys, &inc, &m, fn, arg, &cur_s))
		return -1;
	inc_s = cur_s;
	for (pass = 0; pass < passes; pass++) {
		moved = 0;
		for (i = 0; i < nkeys; i++) {
			r = tune_coordinate(keys, nkeys, i, g, &inc, &inc_s,
					    &m, fn, arg);
			if (r < 0)
				return -1;
			moved |= r;
		}
		if (!moved)
			break;
	}
	memset(out, 0, sizeof(*out));
	/* Each move beat the incumbent by the margin; the pick must beat
	 * the current metadata by it too, or the current stays. */
	if (!tune_better(&inc_s, &cur_s, g, 1)) {
		for (i = 0; i < TUNE_KEYS_MAX; i++)
			inc.idx[i] = -1;
		inc_s = cur_s;
	}
	for (i = 0; i < nkeys; i++) {
		out->values[i] = inc.idx[i] >= 0 ?
				 keys[i].values[inc.idx[i]] : NULL;
		if (out->values[i])
			out->changed = 1;
	}
	out->pick = inc_s;
	out->current = cur_s;
	out->sims = m.n;
	return 0;
}
