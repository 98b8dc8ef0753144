/*
 * trace.h - the traffic a simulation replays: one row per request.
 *
 * Sources:
 *  - a CSV in the bench/traces layout, with a header line:
 *      arrival_s,input_tokens,output_tokens[,service_s]
 *    (seconds from the start; rows need not be sorted, they are sorted by
 *    arrival, ties kept in file order);
 *  - a rate file (ServeGen `*_rate_10min.csv`: window_start_s,
 *    total_rate_rps, active_clients[, top_client_share,
 *    rate_weighted_cv]) whose rate is linear between window midpoints
 *    (flat before the first and after the last), with time compressed
 *    and the rate scaled, replayed as a Poisson process or as the
 *    window's clients (trace_rates, clients.h);
 *  - a synthetic shape (trace_synth).
 * Then optional transforms (overlay of shifted copies, speed-up) and the
 * service time of every request (trace_set_service).
 *
 * A struct trace owns its array.  Everything is bounded: at most
 * TRACE_REQ_MAX requests, token counts up to TRACE_TOKENS_MAX, times up to
 * TRACE_TIME_MAX.  Errors come back as -1 with one sentence in err naming
 * the file, the line, the field and what is allowed.  Deterministic: the
 * random parts draw only from the simrng given.
 */
#ifndef STAFFER_TRACE_H
#define STAFFER_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "perf.h"
#include "simrng.h"

#define TRACE_REQ_MAX 20000000u     /* requests in one trace */
#define TRACE_TOKENS_MAX 10000000L  /* tokens in one request */
#define TRACE_TIME_MAX (366.0 * 86400.0) /* seconds: a year */
#define TRACE_SERVICE_MAX 86400.0   /* seconds of one request */
#define TRACE_SERVICE_MIN 0.001     /* service times are at least 1 ms */
#define TRACE_LINE_MAX 512          /* bytes in one CSV line */
#define TRACE_ERR_MAX 512

struct trace_req {
	double arrival_s;
	double service_s;       /* < 0 until known */
	int32_t input_tokens;
	int32_t output_tokens;
	uint32_t seq;           /* order of creation; breaks ties */
};

struct trace {
	struct trace_req *req;
	size_t n, cap;
	int has_service;        /* the CSV had a service_s column */
	int from_clients;       /* a rate file replayed as clients */
	double span_s;          /* length of the traffic, seconds */
};

void trace_init(struct trace *t);
void trace_free(struct trace *t);

/* Read a per-request CSV.  span_s becomes the last arrival. */
int trace_load_csv(struct trace *t, const char *path, char *err,
		   size_t errlen);

/* How a rate file's windows become arrivals. */
enum trace_arrivals {
	TRACE_ARR_AUTO = 0,    /* clients when the file has their columns,
				* else Poisson */
	TRACE_ARR_POISSON,     /* one Poisson process at the total rate */
	TRACE_ARR_CLIENTS,     /* the window's clients as renewal processes
				* with its CV, the largest at its share
				* (clients.h): the file's burstiness */
};

/* "auto", "poisson", "clients": 0, or -1 when unknown. */
int trace_arrivals_parse(const char *s, enum trace_arrivals *out);
const char *trace_arrivals_name(enum trace_arrivals a);

/* Replay of a rate file. */
struct trace_rates {
	double compress;        /* time compression: a window of w seconds
				 * lasts w / compress, > 0 */
	double scale;           /* arrivals per second = scale * file rate
				 * (the file's rate, per original second) */
	double start_s;         /* first window used (original seconds) */
	double span_s;          /* original seconds used; 0 = to the end */
	double input_mean;      /* tokens, lognormal with CV 1 */
	double output_mean;
	enum trace_arrivals arrivals; /* clients: the file must have the
				       * columns top_client_share and
				       * rate_weighted_cv; t->from_clients
				       * says what auto chose */
};
/*
 * Windows whose rate is 0 with 0 active clients are collection gaps: they
 * repeat the previous window's rate and clients (the next known one's at
 * the start).
 * The windows used are those starting in [start_s, start_s + span_s);
 * span_s becomes their compressed length.  At most 1e6 windows.
 */
int trace_load_rates(struct trace *t, const char *path,
		     const struct trace_rates *o, struct simrng *r,
		     char *err, size_t errlen);

/*
 * The same replay from memory, Poisson only (o->arrivals clients is an
 * error): window i starts at ws[i] seconds (finite,
 * increasing; only differences matter) with rate[i] req/s; a rate that
 * is negative or not finite is a gap, filled as the file's gaps are.  At
 * most 1e6 windows.  what names the source in errors ("rate file 'x'").
 * `staffer tune` replays a Prometheus range query this way.
 */
int trace_from_rates(struct trace *t, const double *ws, const double *rate,
		     size_t nw, const struct trace_rates *o,
		     struct simrng *r, const char *what, char *err,
		     size_t errlen);

enum trace_shape {
	TRACE_POISSON = 0, /* constant rate */
	TRACE_STEP,        /* rate, 3x rate from 1/3 to 2/3, rate */
	TRACE_SURGE,       /* rate, 4x for min(300 s, d/6) from 0.4 d */
	TRACE_DIURNAL,     /* rate * (1 - 0.8 cos(2 pi t / d)): one cycle */
	TRACE_ONOFF,       /* 120 s at 1.9x rate, 120 s at 0.1x, repeated */
};

struct trace_synth {
	enum trace_shape shape;
	double rate;            /* mean req/s, > 0 */
	double duration_s;      /* > 0 */
	double input_mean;      /* tokens, lognormal with CV 1 */
	double output_mean;
};

/* Parse a shape name; 0 ok, -1 unknown. */
int trace_shape_parse(const char *s, enum trace_shape *out);
const char *trace_shape_name(enum trace_shape s);
/* The shape's rate at time t (req/s), for tests and plots. */
double trace_shape_rate(const struct trace_synth *s, double t);

/* Generate a synthetic trace (non-homogeneous Poisson by thinning). */
int trace_synth(struct trace *t, const struct trace_synth *s,
		struct simrng *r, char *err, size_t errlen);

/*
 * Overlay: k >= 1 copies, copy i shifted by i * span / k and wrapped
 * around the span (arrival' = (arrival + i * span / k) mod span), so the
 * length stays the same and the rate is k times the original.  Then
 * speed-up: every arrival (and span) divided by x > 0.
 */
int trace_transform(struct trace *t, int overlay, double speedup,
		    char *err, size_t errlen);

/*
 * Repeat: the traffic times (1 to TRACE_REPEAT_MAX) times over, copy k
 * shifted by k * span (the span of one copy, > 0), and span times as
 * long.  0, or -1 with err (t unchanged when the arguments are wrong;
 * out of memory, t may hold part of the copies: free it).
 */
#define TRACE_REPEAT_MAX 100
int trace_repeat(struct trace *t, int times, char *err, size_t errlen);

enum trace_service {
	TRACE_SVC_AUTO = 0, /* the column when present, else perf */
	TRACE_SVC_COLUMN,   /* service_s column (error if absent) */
	TRACE_SVC_PERF,     /* perf model from tokens at a batch */
	TRACE_SVC_EXP,      /* exponential with a mean */
	TRACE_SVC_LOGNORMAL,/* lognormal with a mean and CV */
};

int trace_service_parse(const char *s, enum trace_service *out);
const char *trace_service_name(enum trace_service s);

/* Give every request its service time (clamped to
 * [TRACE_SERVICE_MIN, TRACE_SERVICE_MAX]). */
int trace_set_service(struct trace *t, enum trace_service how,
		      const struct perf *p, double batch, double mean,
		      double cv, struct simrng *r, char *err, size_t errlen);

/* Let the service times drift: request i's is multiplied by
 * 1 + (factor - 1) arrival_i / span_s, from x1 at the start to x factor
 * at the end (a new engine version rolling out, prompts growing), still
 * clamped to [TRACE_SERVICE_MIN, TRACE_SERVICE_MAX].  factor in
 * [0.1, 10]; 0, or -1 with a sentence in err. */
int trace_drift_service(struct trace *t, double factor, char *err,
			size_t errlen);

/* Total service seconds of all requests (the offered work). */
double trace_work_s(const struct trace *t);

/*
 * The arrivals' index of dispersion at bin_s: counts in bins of bin_s,
 * their sample variance over their mean within each block of block_s
 * (block_s a multiple of bin_s, at least two bins), averaged over the
 * blocks that saw arrivals.  1 for a Poisson process; within blocks, so a
 * slow swing of the rate (a daily cycle) does not count as burstiness.
 * NaN when no block has arrivals.  t sorted.
 */
double trace_dispersion(const struct trace *t, double bin_s, double block_s);

/* Requests arriving in [from, to) (t sorted); O(log n). */
size_t trace_count(const struct trace *t, double from, double to);

#endif
