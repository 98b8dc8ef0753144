/*
 * split.h - the closed-loop simulator of a disaggregated (split) fleet: a
 * prefill pool and a decode pool, each scaled on its own, serving a trace
 * token by token (docs/pools.md states the same world for users).
 *
 * The world:
 *  - Prefill pool: one FIFO queue of prompts; a ready replica that is idle
 *    takes a batch from its head, prompts in arrival order while their
 *    tokens stay within prefill_budget (the first always: a longer prompt
 *    runs alone) and at most SPLIT_BATCH_MAX of them, and processes it in
 *    perf_prefill_s(the batch's tokens) (the Splitwise profile, perf.h).
 *    A prompt that has waited longer than queue_timeout_s is shed.
 *  - KV transfer: a prompt's KV reaches the decode pool kv_base_s +
 *    input tokens x kv_per_token_s after its batch ends.
 *  - Decode pool: one FIFO queue of sequences whose KV has arrived; the
 *    head is admitted to the ready replica with the fewest sequences that
 *    has a free slot (decode_slots) and room in its KV-cache (kv_tokens)
 *    for the whole sequence (input + output tokens: nothing is preempted);
 *    the queue waits while the head fits nowhere.  A replica decodes in
 *    steps: each running sequence gets one token per step of
 *    perf_token_s(its batch); a sequence admitted during a step joins at
 *    the next.  Its first token is its time to first token (TTFT: from
 *    arrival, prefill wait and batch, transfer, decode wait, one step);
 *    each later token's inter-token latency (ITL) is its step's length.
 *  - Replicas: ready a cold start after they are created (cold_start_s,
 *    or lognormal with that median and cold_start_cv; each pool draws from
 *    its own stream, the same pods for every policy), costing
 *    replica-seconds from creation to end_s.  Scale-down removes starting
 *    replicas first, then the newest ready one, which drains: a prefill
 *    replica finishes its batch, a decode replica its sequences, taking no
 *    new work.
 *  - Metrics: every scrape_s the simulated Prometheus scrapes counters
 *    (arrivals, input tokens at arrival, output tokens as generated,
 *    sheds, completions and their output tokens) and gauges (each pool's
 *    queue and running work, the decode pool's KV in use, each pool's
 *    spec.replicas), read by the policies (splitpol.h) as their queries
 *    would.
 *  - Accounting: TTFT attainment is the share of requests (shed ones
 *    missing) whose TTFT is within ttft_s; ITL attainment the share of
 *    generated tokens after each sequence's first whose ITL is within
 *    itl_s.  Requests arriving before end_s are followed to their end.
 *
 * Same inputs, same outputs: no clocks, no randomness but the seeded
 * cold starts.  split_run allocates per run and frees all it allocated.
 */
#ifndef STAFFER_SPLIT_H
#define STAFFER_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "perf.h"
#include "simprom.h"
#include "trace.h"

#define SPLIT_BATCH_MAX 256       /* prompts in one prefill batch */
#define SPLIT_SLOTS_MAX 4096      /* decode_slots */
#define SPLIT_REPLICAS_MAX 20000u /* replicas alive in one pool at once */

enum split_pool_id { SPLIT_PREFILL = 0, SPLIT_DECODE, SPLIT_POOLS };

struct split_config {
	double queue_timeout_s;   /* prefill wait before a prompt is shed */
	double cold_start_s;      /* >= 0; the median with cold_start_cv */
	double cold_start_cv;     /* 0 to SIM_COLD_CV_MAX */
	uint64_t cold_seed;       /* prefill's stream; decode's is + 1 */
	double scrape_s;          /* > 0 */
	double rate_window_s;     /* > scrape_s */
	double hpa_sync_s;        /* >= 1 */
	long prefill_budget;      /* tokens in one prefill batch, >= 1 */
	long decode_slots;        /* sequences a decode replica runs */
	double kv_tokens;         /* KV-cache tokens of a decode replica */
	double kv_base_s;         /* KV transfer: base */
	double kv_per_token_s;    /* ... and per input token */
	double ttft_s, itl_s;     /* the targets attainment counts */
	int32_t initial[SPLIT_POOLS]; /* ready replicas at 0, >= 0 */
	double end_s;             /* accounting horizon, > 0 */
	double count_from_s;      /* the results count the requests that
				   * arrived at or after it and the
				   * replica-seconds after it; 0 to below
				   * end_s (0: all).  The time series
				   * counts every request. */
	double ts_step_s;         /* timeseries period, 0: none */
	const struct perf *perf;  /* the engine's profile */
};

/* Defaults: 60 s timeout, 120 s cold start, 15 s scrape, 60 s rate
 * window, 15 s sync, a budget of 8192 tokens, 64 slots, 400000 KV
 * tokens, 5 ms + 6.5 us a token of transfer, TTFT 2 s, ITL 0.04 s, one
 * replica of each; end_s and perf must be set. */
void split_config_init(struct split_config *c);
int split_config_check(const struct split_config *c, char *err,
		       size_t errlen);

/* What the policies read at one instant (splitpol.h). */
enum split_series {
	SS_ARR,          /* requests arrived (counter) */
	SS_IN,           /* input tokens arrived (counter) */
	SS_OUT,          /* output tokens generated (counter) */
	SS_SHED,         /* prompts shed (counter) */
	SS_DONE,         /* sequences finished (counter) */
	SS_DONE_OUT,     /* ... their output tokens (counter) */
	SS_FIRST,        /* first tokens, and prompts shed (counter) */
	SS_TTFT_MISS,    /* ... of those, first tokens later than the TTFT
			  * target and prompts shed: an engine's TTFT
			  * histogram above the target's bucket (counter) */
	SS_ITL_SUM,      /* the gaps before each token after a sequence's
			  * first, s: an ITL histogram's _sum (counter) */
	SS_ITL_N,        /* ... those tokens: its _count (counter) */
	SS_PQ,           /* prompts waiting for prefill (gauge) */
	SS_PRUN,         /* prompts in prefill batches (gauge) */
	SS_DQ,           /* sequences waiting for a decode slot (gauge) */
	SS_DRUN,         /* sequences decoding (gauge) */
	SS_KV,           /* KV tokens in use in the decode pool: input
			  * and generated tokens of its sequences (gauge) */
	SS_PSPEC,        /* prefill spec.replicas (gauge) */
	SS_DSPEC,        /* decode spec.replicas (gauge) */
	SS_N
};

struct split_view {
	double now;
	const struct simseries *ser;      /* SS_N series */
	double rate_window_s;
	int32_t spec[SPLIT_POOLS];        /* spec.replicas */
	int32_t status[SPLIT_POOLS];      /* starting + ready */
	int32_t ready[SPLIT_POOLS];
	int32_t starting[SPLIT_POOLS];
	/* per ready decode replica: its KV in use over kv_tokens, and the
	 * prompts waiting per ready prefill replica (llm-d's saturation
	 * reads replicas one by one) */
	const double *kv_util;
	size_t n_kv_util;
	const struct split_config *c;
};

struct split_pool_result {
	double replica_hours;
	int32_t peak;
	uint64_t scale_events;
};

struct split_result {
	uint64_t requests, shed;   /* counted (count_from_s) */
	uint64_t ttft_within;      /* requests with TTFT <= ttft_s */
	double ttft_attainment;    /* ttft_within / requests */
	double ttft_p50, ttft_p99; /* of requests served (NaN: none) */
	uint64_t tokens;           /* tokens after each sequence's first */
	uint64_t tokens_within;    /* ... with ITL <= itl_s */
	double itl_attainment;     /* tokens_within / tokens (1: none) */
	double itl_mean;
	struct split_pool_result pool[SPLIT_POOLS];
	double replica_hours;      /* both pools */
	uint64_t metric_errors;    /* a policy's reads that failed */
};

struct split_sample {
	double t;
	int32_t spec[SPLIT_POOLS], ready[SPLIT_POOLS];
	uint64_t pq, dq, drun;
	double kv;
	uint64_t ttft_missed;      /* first tokens late (or shed) since the
				    * previous sample */
	uint64_t tokens_missed;    /* tokens past the ITL target since */
};

typedef void split_sample_fn(void *arg, const struct split_sample *s);

struct splitpol;

/*
 * Run policy p over trace t (sorted, tokens set).  Fills *out.  fn (may
 * be NULL) gets a sample every ts_step_s.  0 on success; -1 with err (out
 * of memory, too many replicas).
 */
int split_run(const struct split_config *c, const struct trace *t,
	      const struct splitpol *p, struct split_result *out,
	      split_sample_fn *fn, void *arg, char *err, size_t errlen);

/* The warm start every policy gets (splitcmd.c), what the first minute
 * needed at its peak: prefill, the highest input tokens per second over
 * its 10-s windows over a replica's throughput at the budget; decode,
 * the most sequences decoding at once (each from its arrival, for its
 * output at the ITL of the batch within itl_s) over that batch; each at
 * least 1. */
void split_first_minute(const struct split_config *c, const struct trace *t,
			int32_t out[SPLIT_POOLS]);

/* The KV transfer of a prompt of `tokens`, seconds. */
double split_transfer_s(const struct split_config *c, double tokens);

#endif
