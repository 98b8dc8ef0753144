/*
 * simtraffic.c - see simtraffic.h.
 */
#include "simtraffic.h"

#include <string.h>

void simtraffic_defaults(struct simtraffic *o)
{
	static const struct simtraffic d = {
		.rate = 10, .duration = 3600,
		.input_mean = 1000, .output_mean = 250,
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
