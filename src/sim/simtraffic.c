/*
 * simtraffic.c - see simtraffic.h.
 */
#include "simtraffic.h"

#include <stdio.h>
#include <string.h>

void simtraffic_defaults(struct simtraffic *o)
{
	static const struct simtraffic d = {
		.rate = 10, .duration = 3600,
		.input_mean = 1000, .output_mean = 250,
		.rate_compress = 10, .rate_scale = 1, .arrivals = "auto",
		.seed = 1, .overlay = 1, .speedup = 1,
		.perf_spec = "llama2-70b,h100-80gb,4",
	};

	*o = d;
}

int simtraffic_synth(const struct simtraffic *o, enum trace_shape shape,
		     struct simrng *rng, struct trace *t, char *err,
		     size_t errlen)
{
	struct trace_synth s;

	memset(&s, 0, sizeof(s));
	s.shape = shape;
	s.rate = o->rate;
	s.duration_s = o->duration;
	s.input_mean = o->input_mean;
	s.output_mean = o->output_mean;
	return trace_synth(t, &s, rng, err, errlen);
}

/* The last component of a path, for the description. */
static const char *simtraffic_base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

static int simtraffic_rates(const struct simtraffic *o, struct simrng *rng,
			    struct trace *t, char *desc, size_t desclen,
			    char *err, size_t errlen)
{
	struct trace_rates r = {
		o->rate_compress, o->rate_scale, o->rate_start,
		o->rate_span, o->input_mean, o->output_mean,
		TRACE_ARR_AUTO,
	};

	if (trace_arrivals_parse(o->arrivals, &r.arrivals)) {
		snprintf(err, errlen, "--arrivals '%.40s': allowed auto, "
			 "poisson, clients", o->arrivals);
		return -1;
	}
	if (trace_load_rates(t, o->rates, &r, rng, err, errlen))
		return -1;
	snprintf(desc, desclen, "%s (%s, time /%g, rate x%g)",
		 simtraffic_base(o->rates),
		 t->from_clients ? "clients' renewals" : "Poisson",
		 o->rate_compress, o->rate_scale);
	return 0;
}

int simtraffic_load(const struct simtraffic *o, struct simrng *rng,
		    struct trace *t, char *desc, size_t desclen, char *err,
		    size_t errlen)
{
	enum trace_shape shape;
	size_t n;

	if (!!o->trace + !!o->rates + !!o->shape != 1) {
		snprintf(err, errlen, "give exactly one of --trace FILE, "
			 "--rates FILE, --shape NAME");
		return -1;
	}
	if (o->trace) {
		if (trace_load_csv(t, o->trace, err, errlen))
			return -1;
		snprintf(desc, desclen, "%s", simtraffic_base(o->trace));
	} else if (o->rates) {
		if (simtraffic_rates(o, rng, t, desc, desclen, err, errlen))
			return -1;
	} else {
		if (trace_shape_parse(o->shape, &shape)) {
			snprintf(err, errlen, "--shape '%.40s': allowed "
				 "poisson, step, surge, diurnal, onoff",
				 o->shape);
			return -1;
		}
		if (simtraffic_synth(o, shape, rng, t, err, errlen))
			return -1;
		snprintf(desc, desclen, "%s %g req/s for %g s", o->shape,
			 o->rate, o->duration);
	}
	if (trace_transform(t, (int)o->overlay, o->speedup, err, errlen))
		return -1;
	n = strlen(desc);
	if ((o->overlay > 1 || o->speedup != 1) && n < desclen)
		snprintf(desc + n, desclen - n, ", overlay x%ld, speedup x%g",
			 o->overlay, o->speedup);
	return 0;
}
