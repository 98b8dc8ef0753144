/* sheap.c - see sheap.h. */
#include "sheap.h"

#include <stdlib.h>

void sheap_init(struct sheap *h)
{
	h->v = NULL;
	h->n = h->cap = 0;
	h->seq = 0;
}

void sheap_free(struct sheap *h)
{
	free(h->v);
	sheap_init(h);
}

void sheap_node_init(struct sheap_node *x)
{
	x->due = 0;
	x->seq = 0;
	x->idx = SHEAP_NONE;
}

static int sheap_before(const struct sheap_node *a, const struct sheap_node *b)
{
	return a->due < b->due || (a->due == b->due && a->seq < b->seq);
}

static void sheap_set(struct sheap *h, size_t i, struct sheap_node *x)
{
	h->v[i] = x;
	x->idx = i;
}

static void sheap_up(struct sheap *h, size_t i)
{
	struct sheap_node *x = h->v[i];

	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (!sheap_before(x, h->v[p]))
			break;
		sheap_set(h, i, h->v[p]);
		i = p;
	}
	sheap_set(h, i, x);
}

static void sheap_down(struct sheap *h, size_t i)
{
	struct sheap_node *x = h->v[i];

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = l;

		if (l >= h->n)
			break;
		if (r < h->n && sheap_before(h->v[r], h->v[l]))
			m = r;
		if (!sheap_before(h->v[m], x))
			break;
		sheap_set(h, i, h->v[m]);
		i = m;
	}
	sheap_set(h, i, x);
}

int sheap_push(struct sheap *h, struct sheap_node *x, double due)
{
	if (sheap_queued(x)) {
		/* a move: a later due time sinks, an earlier one rises; the
		 * same one sinks too, behind the ties pushed before it (its
		 * seq is the newest now) */
		int earlier = due < x->due;

		x->due = due;
		x->seq = h->seq++;
		if (earlier)
			sheap_up(h, x->idx);
		else
			sheap_down(h, x->idx);
		return 0;
	}
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64;
		struct sheap_node **v;

		if (cap > SHEAP_MAX || h->n >= SHEAP_MAX)
			return -1;
		v = realloc(h->v, cap * sizeof(*v));
		if (!v)
			return -1;
		h->v = v;
		h->cap = cap;
	}
	x->due = due;
	x->seq = h->seq++;
	sheap_set(h, h->n++, x);
	sheap_up(h, x->idx);
	return 0;
}

struct sheap_node *sheap_peek(const struct sheap *h)
{
	return h->n ? h->v[0] : NULL;
}

void sheap_remove(struct sheap *h, struct sheap_node *x)
{
	size_t i = x->idx;
	struct sheap_node *last;

	if (i == SHEAP_NONE || i >= h->n || h->v[i] != x)
		return;
	x->idx = SHEAP_NONE;
	last = h->v[--h->n];
	if (i == h->n)
		return;
	sheap_set(h, i, last);
	/* the moved node may belong above or below its new place */
	if (i > 0 && sheap_before(last, h->v[(i - 1) / 2]))
		sheap_up(h, i);
	else
		sheap_down(h, i);
}

struct sheap_node *sheap_pop(struct sheap *h)
{
	struct sheap_node *x = sheap_peek(h);

	if (x)
		sheap_remove(h, x);
	return x;
}
