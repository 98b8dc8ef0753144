/*
 * splitpol.h - the autoscaling policies the split-fleet simulator
 * (split.h) compares: one controller per pool, or one for both.
 *
 * A policy is written "name" or "name:key=value,key=value":
 *   staffer   staffer's external scaler on each pool: a prefill trigger
 *             (pool prefill: prefillTokensPerSecond the profile's
 *             throughput at the prefill budget, ttftTargetSeconds the
 *             run's TTFT target, kvTransferSeconds the transfer of a mean
 *             prompt, coldStartSeconds the run's) and a decode trigger
 *             (pool decode: itlTargetSeconds the run's ITL target,
 *             decodeProfile the profile's ITL by batch, kvCacheTokens,
 *             slotsPerReplica the decode slots, the KV in use read as
 *             kvCacheUsageQuery), each through decide() (the server's
 *             code) on the simulated Prometheus, with staffer's HPA
 *             behaviour (tolerance 0, no scale-down window).  Keys:
 *             prefill.KEY=V or decode.KEY=V (any metadata key, for that
 *             pool), KEY=V for both.
 *   planner   a throughput planner (NVIDIA Dynamo's SLA planner's rule):
 *             every interval (180 s) it reads the last interval's
 *             requests, mean input and output tokens, predicts the next
 *             to be the same (its `constant` predictor) and sets prefill
 *             = ceil(requests x input / interval / the profile's prefill
 *             throughput at that input), decode = ceil(requests x output
 *             / interval / (b / ITL(b))), b the largest batch within the
 *             ITL target that fits the KV-cache at input + output / 2
 *             tokens a sequence; at least 1 each, set at once (no HPA).
 *             Keys: interval, scale (each answer x scale before the
 *             ceiling, default 1: a practitioner's margin, not
 *             Dynamo's; the benchmark sweeps it).
 *   llm-d     llm-d's workload variant autoscaler's saturation analyzer
 *             (V1): every interval (60 s) per pool, a replica is saturated
 *             at KV use >= kv (0.8) or a queue >= queue (5) prompts; over
 *             the others the mean spare KV (kv - use) below kvSpare (0.1)
 *             or spare queue (queue - waiting) below queueSpare (3) adds
 *             one replica, unless one is still starting; else one is
 *             removed when the mean load spread over one replica fewer
 *             would keep both spares; set at once.  Prefill replicas hold
 *             no KV for long: the queue decides there.  Keys: interval,
 *             kv, queue, kvSpare, queueSpare.
 *   keda      a KEDA Prometheus trigger per pool, AverageValue per
 *             replica, KEDA's default HPA: prefill=queue|running|sum,
 *             prefillThreshold (default queue, 5), decode=running|queue|
 *             sum|kv, decodeThreshold (default running, 0.75 x decode
 *             slots; kv: the mean KV use, 0.8); behavior=default (KEDA's
 *             HPA: tolerance 0.1, a 300-s scale-down window) or staffer
 *             (staffer's: tolerance 0, no window).
 *   static    fixed pools: prefill=N, decode=M (default: the warm start).
 * Common keys (not static): minReplicaCount, maxReplicaCount (default 1
 * and 100, KEDA's; the planner's and llm-d's answers are held within
 * them too), pollingInterval, cooldownPeriod for both pools.
 *
 * splitpol_parse fills a struct splitpol (it owns its metadata: release
 * it); struct splitpol_run holds one run's controller state.
 */
#ifndef STAFFER_SPLITPOL_H
#define STAFFER_SPLITPOL_H

#include <stddef.h>
#include <stdint.h>

#include "hpa.h"
#include "keda.h"
#include "meta.h"
#include "policy.h"
#include "smooth.h"
#include "split.h"

#define SPLITPOL_NAME_MAX 256
#define SPLITPOL_ERR_MAX 800

enum splitpol_kind {
	SPLITPOL_STAFFER = 0,
	SPLITPOL_PLANNER,
	SPLITPOL_LLMD,
	SPLITPOL_KEDA,
	SPLITPOL_STATIC,
};

/* What a KEDA trigger of a pool reads (per replica). */
enum splitpol_metric {
	SPM_QUEUE = 0,  /* waiting prompts or sequences */
	SPM_RUNNING,    /* prompts in batches, sequences decoding */
	SPM_SUM,        /* both */
	SPM_KV,         /* decode: KV in use over a replica's KV */
};

struct splitpol {
	enum splitpol_kind kind;
	char name[SPLITPOL_NAME_MAX];   /* the spec as written */
	struct meta meta[SPLIT_POOLS];  /* staffer's triggers */
	struct hpa_config hpa[SPLIT_POOLS];
	struct keda_config keda;
	enum splitpol_metric metric[SPLIT_POOLS]; /* keda */
	double threshold[SPLIT_POOLS];
	double interval_s;              /* planner, llm-d */
	double scale;                   /* planner: its answer x scale */
	double kv_sat, queue_sat, kv_spare, queue_spare; /* llm-d */
	int32_t fixed[SPLIT_POOLS];     /* static; -1: the warm start */
	double answer_age_s;            /* staffer: age=S, its instant
					 * answers but the arrival rate S s
					 * old (sim/policy.h) */
};

/*
 * Parse one policy spec for runs of config c (perf, targets, slots set)
 * whose prompts average mean_input tokens (staffer's kvTransferSeconds).
 * 0; -1 with a sentence in err.  Release p either way.
 */
int splitpol_parse(struct splitpol *p, const char *spec,
		   const struct split_config *c, double mean_input,
		   char *err, size_t errlen);
void splitpol_release(struct splitpol *p);

/* llm-d's queries' range: max_over_time(...[1m]) (splitpol.c) */
#define SPLITPOL_LLMD_WINDOW_S 60.0

struct splitpol_pool {
	struct hpa *hpa;               /* allocated */
	struct keda keda;
	struct smooth sm;
	double last_w;                 /* staffer: last W from tokens */
	struct policy_range series, surge;
	struct policy_range tokens;    /* staffer: inputTokenRateQuery's
					* range (decide_token_query()) */
	double *miss;                  /* staffer with slaMissQuery:
					* DECIDE_SERIES_MAX */
	double next_s;                 /* planner, llm-d: next decision */
};

struct splitpol_run {
	const struct splitpol *p;
	const struct split_config *c;
	struct splitpol_pool pool[SPLIT_POOLS];
	uint64_t metric_errors;
};

int splitpol_run_init(struct splitpol_run *r, const struct splitpol *p,
		      const struct split_config *c);
void splitpol_run_free(struct splitpol_run *r);

/* 1 when the policy scales through KEDA and the HPA (staffer, keda),
 * 0 when it sets replicas itself (planner, llm-d) or never (static). */
int splitpol_uses_hpa(const struct splitpol *p);

/* HPA policies: pool k's proposal (-1: the metric is unavailable) and
 * KEDA's activity (1, 0, -1 on a scaler error). */
int32_t splitpol_proposal(struct splitpol_run *r, int k,
			  const struct split_view *v);
int splitpol_active(struct splitpol_run *r, int k,
		    const struct split_view *v);

/* Planner and llm-d: the replicas pool k is set to now (-1: no change);
 * they decide every interval_s from the first interval on. */
int32_t splitpol_direct(struct splitpol_run *r, int k,
			const struct split_view *v);

/* The profile's throughputs (the planner's and staffer's capacities):
 * input tokens a prefill replica processes a second at a batch of
 * `tokens`, and the batch within the ITL target (at most slots). */
double splitpol_prefill_tps(const struct perf *pf, double tokens);
long splitpol_batch_within(const struct perf *pf, double itl_s, long slots);

#endif
