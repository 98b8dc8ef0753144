/*
 * simpool.c - see simpool.h.
 */
#include "simpool.h"

#include <stdlib.h>
#include <string.h>

void simpool_init(struct simpool *p, const struct simpool_config *c)
{
	memset(p, 0, sizeof(*p));
	p->cfg = *c;
	simcold_init(&p->cold, c->cold_seed);
}

void simpool_free(struct simpool *p)
{
	free(p->rep);
	free(p->data);
	simcold_release(&p->cold);
	p->rep = NULL;
	p->data = NULL;
	p->nrep = p->cap = 0;
}

int simpool_cold(struct simpool *p, size_t k, double *out)
{
	return simcold_get(&p->cold, p->cfg.cold_start_s,
			   p->cfg.cold_start_cv, p->made + k, out);
}

/* Double the table (both arrays), from cfg.first up to cfg.max slots. */
static int simpool_grow(struct simpool *p)
{
	size_t cap = p->cap ? p->cap * 2 : p->cfg.first;
	struct simpool_rep *rep;
	unsigned char *data;

	if (cap > p->cfg.max)
		cap = p->cfg.max;
	if (p->nrep == cap)
		return -1;
	rep = realloc(p->rep, cap * sizeof(*rep));
	if (!rep)
		return -1;
	p->rep = rep;
	data = realloc(p->data, cap * p->cfg.size);
	if (!data)
		return -1;
	memset(data + p->cap * p->cfg.size, 0, (cap - p->cap) * p->cfg.size);
	p->data = data;
	p->cap = cap;
	return 0;
}

long simpool_add(struct simpool *p, double now, int ready)
{
	struct simpool_rep *x;
	double cold = 0;
	size_t r;

	if (!ready) {
		if (simpool_cold(p, 0, &cold))
			return -1;
		p->made++;
	}
	for (r = 0; r < p->nrep; r++)
		if (p->rep[r].state == SIMPOOL_GONE)
			break;
	if (r == p->nrep) {
		if (p->nrep == p->cap && simpool_grow(p))
			return -1;
		p->nrep++;
	}
	x = &p->rep[r];
	x->created = now;
	x->ready_at = now + cold;
	if (ready) {
		x->state = SIMPOOL_READY;
		p->n_ready++;
	} else {
		x->state = SIMPOOL_STARTING;
		p->n_starting++;
	}
	return (long)r;
}

int simpool_ready(struct simpool *p, size_t r, double now)
{
	struct simpool_rep *x;

	if (r >= p->nrep)
		return 0;
	x = &p->rep[r];
	if (x->state != SIMPOOL_STARTING || x->ready_at != now)
		return 0;
	x->state = SIMPOOL_READY;
	p->n_starting--;
	p->n_ready++;
	return 1;
}

/* The newest replica in state st (latest creation, then highest slot),
 * or -1. */
static long simpool_newest(const struct simpool *p, int st)
{
	long best = -1;
	size_t r;

	for (r = 0; r < p->nrep; r++)
		if (p->rep[r].state == st &&
		    (best < 0 || p->rep[r].created >= p->rep[best].created))
			best = (long)r;
	return best;
}

long simpool_drain(struct simpool *p, double now)
{
	long r = simpool_newest(p, SIMPOOL_STARTING);

	if (r >= 0) {
		simpool_gone(p, (size_t)r, now);
		return -1;
	}
	r = simpool_newest(p, SIMPOOL_READY);
	if (r < 0)
		return -1;
	p->n_ready--;
	p->rep[r].state = SIMPOOL_DRAINING;
	p->n_draining++;
	return r;
}

void simpool_gone(struct simpool *p, size_t r, double now)
{
	struct simpool_rep *x = &p->rep[r];

	p->replica_s += simpool_overlap(p, x->created, now);
	if (x->state == SIMPOOL_STARTING)
		p->n_starting--;
	else if (x->state == SIMPOOL_DRAINING)
		p->n_draining--;
	x->state = SIMPOOL_GONE;
}

int32_t simpool_scale(struct simpool *p, int32_t target)
{
	if (target < 0)
		target = 0;
	if (target == p->spec)
		return 0;
	p->scale_events++;
	p->spec = target;
	if (target > p->peak)
		p->peak = target;
	return target - (p->n_starting + p->n_ready);
}

double simpool_overlap(const struct simpool *p, double from, double to)
{
	double e = p->cfg.end_s;

	if (from < p->cfg.start_s)
		from = p->cfg.start_s;
	if (from > e)
		return 0;
	if (to > e)
		to = e;
	return to > from ? to - from : 0;
}

double simpool_replica_s(const struct simpool *p)
{
	double s = p->replica_s;
	size_t r;

	for (r = 0; r < p->nrep; r++)
		if (p->rep[r].state != SIMPOOL_GONE)
			s += simpool_overlap(p, p->rep[r].created,
					     p->cfg.end_s);
	return s;
}
