/*
 * clients.c - see clients.h.
 */
#include "clients.h"

#include <math.h>
#include <stdlib.h>

#define CLIENTS_CV_MIN 1e-3   /* nearly periodic; Gamma shape 1e6 */

static size_t clients_count(double clients)
{
	double c = floor(clients + 0.5);

	if (!(c >= 1))
		return 1;
	return c > CLIENTS_MAX ? CLIENTS_MAX : (size_t)c;
}

double clients_share(size_t j, double clients, double top_share)
{
	size_t nc = clients_count(clients);
	double top = top_share;

	if (nc == 1)
		return j == 0 ? 1 : 0;
	if (!(top >= 1.0 / (double)nc))
		top = 1.0 / (double)nc;
	if (top > 1)
		top = 1;
	if (j == 0)
		return top;
	return j < nc ? (1 - top) / (double)(nc - 1) : 0;
}

/* Gamma shape for a CV: 1 / cv^2, with the CV bounded. */
static double clients_shape(double cv)
{
	if (!(cv > 0) || !isfinite(cv))
		cv = 1;
	if (cv < CLIENTS_CV_MIN)
		cv = CLIENTS_CV_MIN;
	if (cv > CLIENTS_CV_MAX)
		cv = CLIENTS_CV_MAX;
	return 1.0 / (cv * cv);
}

/* A gap in operational time: mean 1, CV 1 / sqrt(k). */
static double clients_gap(struct simrng *r, double k)
{
	return simrng_gamma(r, k) / k;
}

/* The stationary process's forward recurrence time: U times a
 * length-biased gap (Gamma(k + 1) / k). */
static double clients_residual(struct simrng *r, double k)
{
	return simrng_uniform(r) * simrng_gamma(r, k + 1) / k;
}

/* Client arrivals in one segment: rate a0 + b u at offset u in [0, len),
 * *rem the operational distance to its next arrival, kept across
 * segments. */
static int clients_seg_run(double x0, double len, double a0, double b,
			   double k, double *rem, struct simrng *r,
			   clients_emit_fn *emit, void *arg)
{
	double p = 0, R = *rem;
	int rc;

	for (;;) {
		double a = a0 + b * p, left = len - p, I, d, disc;

		if (a < 0)
			a = 0;
		I = left > 0 ? a * left + b * left * left / 2 : 0;
		if (!(I > 0) || R > I) {
			if (I > 0)
				R -= I;
			break;
		}
		/* Solve a d + b d^2 / 2 = R, in the form that keeps its
		 * precision when b is small. */
		disc = a * a + 2 * b * R;
		d = disc > 0 ? 2 * R / (a + sqrt(disc)) : left;
		if (!(d >= 0))
			d = 0;
		p += d;
		if (p > len)
			p = len;
		rc = emit(arg, x0 + p);
		if (rc)
			return rc;
		R = clients_gap(r, k);
	}
	*rem = R;
	return 0;
}

void clients_init(struct clients *c)
{
	c->rem = NULL;
	c->have = 0;
}

void clients_release(struct clients *c)
{
	free(c->rem);
	clients_init(c);
}

int clients_seg(struct clients *c, const struct clients_seg *s,
		struct simrng *r, clients_emit_fn *emit, void *arg)
{
	size_t nc = clients_count(s->clients), j;
	double len = s->x1 - s->x0, k = clients_shape(s->cv);
	double y0 = s->y0 > 0 ? s->y0 : 0, y1 = s->y1 > 0 ? s->y1 : 0;
	int rc;

	if (!(len > 0) || !isfinite(len))
		return 0;
	if (nc > c->have) {
		double *p = realloc(c->rem, nc * sizeof(*p));

		if (!p)
			return -1;
		c->rem = p;
		for (j = c->have; j < nc; j++)
			c->rem[j] = clients_residual(r, k);
		c->have = nc;
	}
	if (s->fresh)
		for (j = 0; j < nc; j++)
			c->rem[j] = clients_residual(r, k);
	for (j = 0; j < nc; j++) {
		double sh = clients_share(j, s->clients, s->top_share);

		if (!(sh > 0))
			continue;
		rc = clients_seg_run(s->x0, len, sh * y0,
				     sh * (y1 - y0) / len, k, &c->rem[j], r,
				     emit, arg);
		if (rc)
			return rc;
	}
	return 0;
}
