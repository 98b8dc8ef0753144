/* simroute.c - see simroute.h. */
#include "simroute.h"

#include <stdlib.h>

int simq_links_init(struct simq_links *l, size_t n)
{
	l->n = 0;
	l->next = l->prev = NULL;
	if (n >= SIMQ_NIL)
		return -1;
	l->next = malloc((n ? n : 1) * sizeof(*l->next));
	l->prev = malloc((n ? n : 1) * sizeof(*l->prev));
	if (!l->next || !l->prev) {
		simq_links_free(l);
		return -1;
	}
	l->n = n;
	return 0;
}

void simq_links_free(struct simq_links *l)
{
	free(l->next);
	free(l->prev);
	l->next = l->prev = NULL;
	l->n = 0;
}

void simq_init(struct simq *q)
{
	q->head = q->tail = SIMQ_NIL;
	q->len = 0;
}

void simq_push(struct simq_links *l, struct simq *q, uint32_t i)
{
	l->next[i] = SIMQ_NIL;
	l->prev[i] = q->tail;
	if (q->tail == SIMQ_NIL)
		q->head = i;
	else
		l->next[q->tail] = i;
	q->tail = i;
	q->len++;
}

void simq_unlink(struct simq_links *l, struct simq *q, uint32_t i)
{
	uint32_t p = l->prev[i], n = l->next[i];

	if (p == SIMQ_NIL)
		q->head = n;
	else
		l->next[p] = n;
	if (n == SIMQ_NIL)
		q->tail = p;
	else
		l->prev[n] = p;
	q->len--;
}

uint32_t simq_pop(struct simq_links *l, struct simq *q)
{
	uint32_t i = q->head;

	if (i != SIMQ_NIL)
		simq_unlink(l, q, i);
	return i;
}

/* ---- least-loaded -------------------------------------------------------- */

void simll_init(struct simll *l)
{
	l->h = NULL;
	l->pos = NULL;
	l->n = l->cap = 0;
}

void simll_free(struct simll *l)
{
	free(l->h);
	free(l->pos);
	simll_init(l);
}

int simll_reserve(struct simll *l, size_t ids)
{
	struct simll_ent *h;
	uint32_t *pos;

	if (ids <= l->cap)
		return 0;
	if (ids >= SIMLL_NONE)
		return -1;
	h = realloc(l->h, ids * sizeof(*h));
	if (!h)
		return -1;
	l->h = h;
	pos = realloc(l->pos, ids * sizeof(*pos));
	if (!pos)
		return -1;
	l->pos = pos;
	l->cap = ids;
	return 0;
}

static int simll_less(const struct simll_ent *a, const struct simll_ent *b)
{
	if (a->load != b->load)
		return a->load < b->load;
	return a->born < b->born;
}

static void simll_put(struct simll *l, size_t i, const struct simll_ent *e)
{
	l->h[i] = *e;
	l->pos[e->id] = (uint32_t)i;
}

/* Move the entry at i to its place, up or down. */
static void simll_fix(struct simll *l, size_t i)
{
	struct simll_ent e = l->h[i];

	while (i > 0 && simll_less(&e, &l->h[(i - 1) / 2])) {
		simll_put(l, i, &l->h[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= l->n)
			break;
		if (c + 1 < l->n && simll_less(&l->h[c + 1], &l->h[c]))
			c++;
		if (!simll_less(&l->h[c], &e))
			break;
		simll_put(l, i, &l->h[c]);
		i = c;
	}
	simll_put(l, i, &e);
}

void simll_add(struct simll *l, uint32_t id, uint64_t load, uint64_t born)
{
	struct simll_ent e;

	e.load = load;
	e.born = born;
	e.id = id;
	simll_put(l, l->n++, &e);
	simll_fix(l, l->n - 1);
}

void simll_del(struct simll *l, uint32_t id)
{
	size_t i = l->pos[id];

	if (i == --l->n)
		return;
	simll_put(l, i, &l->h[l->n]);
	simll_fix(l, i);
}

void simll_set(struct simll *l, uint32_t id, uint64_t load)
{
	size_t i = l->pos[id];

	l->h[i].load = load;
	simll_fix(l, i);
}

uint32_t simll_min(const struct simll *l)
{
	return l->n ? l->h[0].id : SIMLL_NONE;
}
