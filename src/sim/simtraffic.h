/*
 * simtraffic.h - the traffic options `staffer simulate` (simulate.c) and
 * `staffer simulate --split` (splitcmd.c) both take: a trace file or a
 * synthetic shape, overlaid and sped up, and the engine's profile, with
 * one set of defaults, so that the same words give both commands the
 * same requests.
 *
 * Plain data: the strings are argv's (opt.h), not copied.  The commands
 * check and word what is wrong with them (which sources, which shape)
 * themselves.  No I/O.
 */
#ifndef STAFFER_SIMTRAFFIC_H
#define STAFFER_SIMTRAFFIC_H

#include <stddef.h>

#include "simrng.h"
#include "trace.h"

struct simtraffic {
	const char *trace, *shape;       /* --trace FILE, --shape NAME */
	double rate, duration;           /* the shape's req/s and seconds */
	double input_mean, output_mean;  /* generated requests' tokens */
	long seed;                       /* the random stream's seed */
	long overlay;                    /* copies (trace_transform) */
	double speedup;                  /* arrivals divided by it */
	const char *perf_file, *perf_spec; /* the engine (perf_from_spec) */
};

/* No trace and no shape; 10 req/s for 3600 s of 1000 input and 250
 * output tokens on average, seed 1, one copy at speed 1, the built-in
 * profile (llama2-70b,h100-80gb,4). */
void simtraffic_defaults(struct simtraffic *o);

/* The requests of `shape` (o->shape, as the caller parsed it) at o's
 * rate, duration and token means, drawn from rng: trace_synth's answer
 * (0, or -1 with a sentence in err). */
int simtraffic_synth(const struct simtraffic *o, enum trace_shape shape,
		     struct simrng *rng, struct trace *t, char *err,
		     size_t errlen);

#endif
