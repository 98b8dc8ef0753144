/* simheap.c - see simheap.h. */
#include "simheap.h"

#include <stdlib.h>

void simheap_init(struct simheap *h)
{
	h->ev = NULL;
	h->n = h->cap = 0;
	h->seq = 0;
}

void simheap_free(struct simheap *h)
{
	free(h->ev);
	simheap_init(h);
}

static int simheap_less(const struct simev *a, const struct simev *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	return a->seq < b->seq;
}

int simheap_push(struct simheap *h, double t, int type, uint32_t arg)
{
	struct simev e;
	size_t i;

	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 256;
		struct simev *ev;

		if (cap > SIMHEAP_MAX)
			return -1;
		ev = realloc(h->ev, cap * sizeof(*ev));
		if (!ev)
			return -1;
		h->ev = ev;
		h->cap = cap;
	}
	e.t = t;
	e.seq = h->seq++;
	e.type = type;
	e.arg = arg;
	i = h->n++;
	while (i > 0) {
		size_t up = (i - 1) / 2;

		if (!simheap_less(&e, &h->ev[up]))
			break;
		h->ev[i] = h->ev[up];
		i = up;
	}
	h->ev[i] = e;
	return 0;
}

int simheap_pop(struct simheap *h, struct simev *out)
{
	struct simev last;
	size_t i = 0;

	if (h->n == 0)
		return -1;
	*out = h->ev[0];
	last = h->ev[--h->n];
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && simheap_less(&h->ev[c + 1], &h->ev[c]))
			c++;
		if (!simheap_less(&h->ev[c], &last))
			break;
		h->ev[i] = h->ev[c];
		i = c;
	}
	if (h->n > 0)
		h->ev[i] = last;
	return 0;
}

const struct simev *simheap_peek(const struct simheap *h)
{
	return h->n ? &h->ev[0] : NULL;
}
