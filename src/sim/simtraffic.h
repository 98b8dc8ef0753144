/*
 * simtraffic.h - the traffic options `staffer simulate` (simulate.c) and
 * `staffer simulate --split` (splitcmd.c) both take: a trace file, a
 * ServeGen rate file or a synthetic shape, overlaid and sped up, and the
 * engine's profile, with one set of defaults and one loader, so that the
 * same words give both commands the same requests.
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
	const char *rates;               /* --rates FILE (trace_load_rates) */
	double rate_compress, rate_scale; /* its time /x and its rate x */
	double rate_start, rate_span;    /* its windows used, seconds */
	const char *arrivals;            /* auto, poisson or clients */
	double rate, duration;           /* the shape's req/s and seconds */
	double input_mean, output_mean;  /* generated requests' tokens */
	long seed;                       /* the random stream's seed */
	long overlay;                    /* copies (trace_transform) */
	double speedup;                  /* arrivals divided by it */
	const char *perf_file, *perf_spec; /* the engine (perf_from_spec) */
};

/* No trace, no rate file and no shape; 10 req/s for 3600 s of 1000
 * input and 250 output tokens on average, seed 1, one copy at speed 1;
 * a rate file's time compressed x10 at its own rate, all of it, arrivals
 * auto; the built-in profile (llama2-70b,h100-80gb,4). */
void simtraffic_defaults(struct simtraffic *o);

/* The requests of `shape` (o->shape, as the caller parsed it) at o's
 * rate, duration and token means, drawn from rng: trace_synth's answer
 * (0, or -1 with a sentence in err). */
int simtraffic_synth(const struct simtraffic *o, enum trace_shape shape,
		     struct simrng *rng, struct trace *t, char *err,
		     size_t errlen);

/*
 * The requests o names into t (trace_init()ed, empty): exactly one of
 * --trace, --rates and --shape, drawn from rng where they are generated
 * (the caller seeds it with o->seed), then overlaid and sped up.  desc
 * (desclen > 0) gets a line that names the traffic.  0, or -1 with a
 * sentence in err naming the option and what it allows.
 */
int simtraffic_load(const struct simtraffic *o, struct simrng *rng,
		    struct trace *t, char *desc, size_t desclen, char *err,
		    size_t errlen);

#endif
