/*
 * lintpool.c - see lintpool.h.
 */
#include "lintpool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arr.h"
#include "show.h"

#define LINTPOOL_MSG_MAX 900
#define LINTPOOL_SHOW_MAX 120   /* characters of a target in a message */

void lintpool_init(struct lintpool *lp)
{
	memset(lp, 0, sizeof(*lp));
}

static void lintpool_free_one(struct lintpool_trigger *t)
{
	free(t->file);
	free(t->who);
	free(t->ns);
	free(t->arrival);
	free(t->input);
	free(t->target);
}

void lintpool_release(struct lintpool *lp)
{
	size_t i;

	for (i = 0; i < lp->n; i++)
		lintpool_free_one(&lp->t[i]);
	free(lp->t);
	lintpool_init(lp);
}

/* strdup of s, "" for NULL; *bad set when out of memory. */
static char *lintpool_dup(const char *s, int *bad)
{
	char *d = strdup(s ? s : "");

	if (!d)
		*bad = 1;
	return d;
}

int lintpool_add(struct lintpool *lp, const char *file, unsigned long line,
		 const char *who, const char *ns, long trigger,
		 const struct meta *m, const char *target)
{
	struct lintpool_trigger *t, x;
	int bad = 0;

	if (lp->n >= LINTPOOL_MAX || !m->arrival_rate_query)
		return 0;
	t = arr_room(lp->t, lp->n, &lp->cap, sizeof(*t));
	if (!t)
		return -1;
	lp->t = t;
	memset(&x, 0, sizeof(x));
	x.line = line;
	x.trigger = trigger;
	x.kind = m->pool.kind;
	x.file = lintpool_dup(file, &bad);
	x.who = lintpool_dup(who, &bad);
	x.ns = lintpool_dup(ns, &bad);
	x.arrival = lintpool_dup(m->arrival_rate_query, &bad);
	x.target = lintpool_dup(target, &bad);
	if (m->input_token_rate_query)
		x.input = lintpool_dup(m->input_token_rate_query, &bad);
	if (bad) {
		lintpool_free_one(&x);
		return -1;
	}
	lp->t[lp->n++] = x;
	return 0;
}

static int lintpool_same_model(const struct lintpool_trigger *a,
			       const struct lintpool_trigger *b)
{
	return !strcmp(a->ns, b->ns) && !strcmp(a->arrival, b->arrival);
}

/* "ScaledObject NS/NAME trigger N" of t, for a message about another. */
static void lintpool_name(const struct lintpool_trigger *t, char *buf,
			  size_t len)
{
	snprintf(buf, len, "ScaledObject %s trigger %ld at %s:%lu", t->who,
		 t->trigger, t->file, t->line);
}

/* The first trigger before i of i's model with kind k (-1: any pool,
 * prefill or decode), or NULL. */
static const struct lintpool_trigger *
lintpool_before(const struct lintpool *lp, size_t i, int k)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (lintpool_same_model(&lp->t[j], &lp->t[i]) &&
		    (k < 0 ? lp->t[j].kind != POOL_UNIFIED :
		     (int)lp->t[j].kind == k))
			return &lp->t[j];
	return NULL;
}

/* Whether i's model has a trigger of kind k anywhere but i. */
static int lintpool_has(const struct lintpool *lp, size_t i,
			enum pool_kind k)
{
	size_t j;

	for (j = 0; j < lp->n; j++)
		if (j != i && lp->t[j].kind == k &&
		    lintpool_same_model(&lp->t[j], &lp->t[i]))
			return 1;
	return 0;
}

void lintpool_check(const struct lintpool *lp, lintpool_report_fn *fn,
		    void *arg)
{
	char msg[LINTPOOL_MSG_MAX], other[LINTPOOL_MSG_MAX / 2];
	const struct lintpool_trigger *o;
	size_t i;

	for (i = 0; i < lp->n; i++) {
		const struct lintpool_trigger *t = &lp->t[i];
		enum pool_kind mate = t->kind == POOL_PREFILL ? POOL_DECODE :
				      POOL_PREFILL;

		if (t->kind == POOL_UNIFIED) {
			o = lintpool_before(lp, i, -1);
			if (o) {
				lintpool_name(o, other, sizeof(other));
				snprintf(msg, sizeof(msg), "pool unified "
					 "(the default) for a model whose "
					 "%s pool %s sizes (the same "
					 "namespace and arrivalRateQuery): the model "
					 "would be sized as one fleet and as "
					 "pools; set 'pool' on each trigger of "
					 "a split fleet",
					 pool_kind_name(o->kind), other);
				fn(arg, t, 1, msg);
			}
			continue;
		}
		o = lintpool_before(lp, i, POOL_UNIFIED);
		if (o) {
			lintpool_name(o, other, sizeof(other));
			snprintf(msg, sizeof(msg), "pool %s for a model that "
				 "%s sizes as one fleet (pool unified, the "
				 "same namespace and arrivalRateQuery): the model "
				 "would be sized as one fleet and as pools",
				 pool_kind_name(t->kind), other);
			fn(arg, t, 1, msg);
		}
		o = lintpool_before(lp, i, (int)t->kind);
		if (o) {
			lintpool_name(o, other, sizeof(other));
			snprintf(msg, sizeof(msg), "pool %s of a model whose "
				 "%s pool %s sizes already (the same "
				 "namespace and arrivalRateQuery): each pool of a "
				 "model needs one trigger, or the two "
				 "answers fight", pool_kind_name(t->kind),
				 pool_kind_name(t->kind), other);
			fn(arg, t, 1, msg);
		}
		o = lintpool_before(lp, i, (int)mate);
		if (o && t->target[0] && !strcmp(o->target, t->target)) {
			/* the target as written: shown */
			char target[LINTPOOL_SHOW_MAX + 4];

			show_escaped(target, LINTPOOL_SHOW_MAX, t->target,
				     strlen(t->target));
			lintpool_name(o, other, sizeof(other));
			snprintf(msg, sizeof(msg), "pool %s scales %s, the "
				 "target of the model's %s pool (%s): each "
				 "pool is its own Deployment; point "
				 "scaleTargetRef at the %s workers",
				 pool_kind_name(t->kind), target,
				 pool_kind_name(mate), other,
				 pool_kind_name(t->kind));
			fn(arg, t, 0, msg);
		} else if (o && o->input && t->input &&
			   strcmp(o->input, t->input)) {
			lintpool_name(o, other, sizeof(other));
			snprintf(msg, sizeof(msg), "metadata "
				 "'inputTokenRateQuery' differs from the "
				 "model's %s pool's, %s: both pools serve "
				 "the same prompts, so they should read the "
				 "same input token rate",
				 pool_kind_name(mate), other);
			fn(arg, t, 1, msg);
		}
		if (!lintpool_has(lp, i, mate)) {
			snprintf(msg, sizeof(msg), "pool %s without the "
				 "model's %s pool in the files linted (no "
				 "trigger with pool %s, the same namespace "
				 "and arrivalRateQuery): a split fleet "
				 "scales both, each on its own trigger",
				 pool_kind_name(t->kind),
				 pool_kind_name(mate), pool_kind_name(mate));
			fn(arg, t, 1, msg);
		}
	}
}
