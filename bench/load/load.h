/*
 * load.h - staffer-load, the service benchmark's client: what the
 * scenarios share.
 *
 *   staffer-load SCENARIO [options]
 *
 * Scenarios (one file each): unary.c (latency and throughput at N in
 * flight), streams.c (open streams: idle CPU and unary throughput beside
 * them; memory by objects and streams), keda.c (KEDA's and the HPA's
 * cycle over many ScaledObjects), isolation.c (a slow namespace on the
 * same backend host), bigreq.c (requests near the size cap, many at
 * once), scrape.c (GetMetrics beside scrapers of a large /metrics),
 * backend.c (the fake Prometheus).
 *
 * Output: one "result KIND key=value ..." line per measurement on stdout
 * (bench/service.py reads them), progress on stderr.  Times in
 * milliseconds, CPU as a share of one core (1.0 = one core all the time).
 * Exit 0 when the scenario ran (errors are counted in the results), 1
 * when it could not run, 2 on bad usage.
 */
#ifndef LOAD_LOAD_H
#define LOAD_LOAD_H

#include <stdint.h>
#include <sys/types.h>

#include "lat.h"
#include "lc.h"
#include "proc.h"

#define LOAD_STEPS_MAX 16          /* values in a list option */

struct load_opts {
	const char *addr;          /* staffer's gRPC address */
	pid_t pid;                 /* staffer's pid (CPU, RSS); 0: unknown */
	const char *backend;       /* the fake backend's URL, for counts */
	pid_t backend_pid;
	int channels;              /* connections (default 1, as KEDA) */
	int reps;                  /* repetitions of each measurement */
	int inflight;              /* calls kept in flight */
	double seconds;            /* one measurement window */
	double idle_s;             /* streams: the idle CPU window */
	double timeout_s;          /* per-call deadline */
	int objects;               /* distinct ScaledObjects */
	int queries;               /* streams: distinct queries among them */
	int noisy;                 /* isolation: slow calls in flight */
	double rate;               /* isolation: quiet calls a second */
	double compress;           /* keda: time runs this much faster */
	double warmup_s;           /* keda: before the first window */
	int windows;               /* keda: windows measured */
	double window_s;           /* keda: one window (uncompressed) */
	uint64_t seed;
	int warm;                  /* unary: ask every object once first */
	const char *ns;
	const char *metrics_url;   /* scrape: staffer's /metrics */
	int scrapers;              /* scrape: threads fetching it */
	int scraper_nice;          /* scrape: their nice value */
	const char *query;         /* keda: object I's query, "{i}" for I
				    * (NULL: "obj_rate_I") */
	/* lists */
	int methods[LOAD_STEPS_MAX];  /* enum lc_method */
	int n_methods;
	int inflights[LOAD_STEPS_MAX];
	int n_inflights;
	int steps[LOAD_STEPS_MAX];    /* memory: object counts */
	int n_steps;
	int stream_steps[LOAD_STEPS_MAX]; /* streams: counts */
	int n_stream_steps;
	int expect[LOAD_STEPS_MAX];   /* keda: object I's GetMetrics answer
				       * must be expect[I % n_expect] */
	int n_expect;
};

/* Closed-loop statistics of one window. */
struct load_window {
	double ok, errors;
	double seconds;
	struct lat lat;
	struct proc_sample srv0, srv1, me0, me1;
	struct proc_sample all0, all1;   /* the machine (proc_machine) */
};

/* Keep o->inflight calls of method m going for o->seconds, cycling over
 * reqs[0..n); fill w (lat must be lat_init()ed).  0, or -1 when no call
 * could be started. */
int load_closed(struct lc *c, const struct load_opts *o, enum lc_method m,
		const grpc_slice *reqs, size_t n, int inflight,
		struct load_window *w);

/* Send each of reqs[0..n) once with at most inflight in flight; add the
 * good and bad answers to *ok and *errors (either may be NULL).  0 when
 * every answer was good. */
int load_pass(struct lc *c, const struct load_opts *o, enum lc_method m,
	      const grpc_slice *reqs, size_t n, int inflight, double *ok,
	      double *errors);

/* Print w as "result KIND LABELS rpcs=.. errors=.. rps=.. p50_ms=..
 * p99_ms=.. max_ms=.. client_cpu=.. server_cpu=.. machine_cpu=..";
 * machine_cpu counts every process, so what is left after the client and
 * the server is what others took from the window. */
void load_print_window(const char *kind, const char *labels,
		       struct load_window *w);

/* Progress on stderr, prefixed "staffer-load: ". */
void load_progress(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* Pack the requests of objects [0, n) in namespace ns, named
 * "<prefix>-<i>" with query "<prefix>_rate_<i>", or query with each "{i}"
 * replaced by i when query is not NULL: GetMetricsRequest when metrics,
 * else ScaledObjectRef.  NULL when out of memory or a query is longer
 * than REQ_NAME_MAX. */
grpc_slice *load_pack(const char *ns, const char *prefix, int n,
		      int metrics, const char *query);
void load_unpack(grpc_slice *reqs, int n);

int load_unary(struct lc *c, const struct load_opts *o);
int load_streams(struct lc *c, const struct load_opts *o);
int load_memory(struct lc *c, const struct load_opts *o);
int load_keda(struct lc *c, const struct load_opts *o);
int load_isolation(struct lc *c, const struct load_opts *o);
int load_bigreq(struct lc *c, const struct load_opts *o);
int load_scrape(struct lc *c, const struct load_opts *o);

#endif
