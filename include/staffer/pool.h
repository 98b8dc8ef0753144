/*
 * pool.h - one pool of a disaggregated fleet: prefill or decode, sized in
 * the units that bind it (docs/math.md, "Prefill and decode pools").
 *
 * A split fleet runs a model's prefill (the prompt, compute bound) and
 * its decode (the output tokens, bound by the batch an inter-token
 * latency allows and by KV-cache memory) as two Deployments, each scaled
 * on its own.  This module turns a pool's token signals into the model's
 * terms (model.h): the time W a request holds the pool and the slots n a
 * replica has, then the model staffs them as it staffs a unified fleet
 * (busy L = lambda W, headroom, drain, boost; replicas = total / n):
 *
 *   prefill  W = (input tokens / request) / C, C a replica's input
 *            tokens per second; n = 1, a replica being one server of
 *            rate C.  So L = lambda_in / C replicas.  With a TTFT
 *            target T the answer is at least what Erlang C needs for
 *            the wait budget tau = T - W - KV transfer at the share
 *            1 - slaTarget (staffing none: that alone).  That
 *            queue staffs Poisson arrivals to T, so the square root
 *            above it covers the burstiness beyond them: beta sqrt((z -
 *            1) L), z the peakedness.  The work of a prefill queue is
 *            tokens, not requests: when the prompt tokens are burstier
 *            than the arrivals (long prompts come in bursts), Erlang C
 *            takes their peakedness in mean prompts, z_tok, where it is
 *            above z (Hayward: c = z' c*(L / z'), z' = max(z, z_tok)).
 *   decode   W = (output tokens / request) x ITL(b*), b* the largest
 *            batch whose inter-token latency ITL(b) (the engine's
 *            profile) is within the ITL target; so L = lambda_out x
 *            ITL(b*) sequences.  n = min(b*, slotsPerReplica,
 *            floor(K / k)), K the KV-cache tokens of a replica and k the
 *            KV tokens a sequence holds on average: input + output / 2
 *            (from the token rates), or measured, KV in use / L, the
 *            larger.  Without a profile W is the measured one (serviceTime
 *            chain, decide.h) and n = min(slotsPerReplica, floor(K / k)).
 *
 * Units: token rates in tokens per second, times in seconds, KV in tokens.
 *
 * Pure: no I/O, no logging, no allocation, no state; thread-safe.  Errors
 * are model.h's; outputs are written only on success.
 */
#ifndef STAFFER_POOL_H
#define STAFFER_POOL_H

#include <stddef.h>

#include "model.h"

enum pool_kind {
	POOL_UNIFIED = 0,  /* one fleet does both: model.h as it is */
	POOL_PREFILL,
	POOL_DECODE,
};

/* The engine's decode profile: inter-token latency by batch. */
#define POOL_PROFILE_MAX 16
/* The largest batch (and slots) a pool plans: model.h's slots bound. */
#define POOL_BATCH_MAX 100000.0

struct pool_profile {
	double batch[POOL_PROFILE_MAX];  /* ascending, >= 1 */
	double itl_s[POOL_PROFILE_MAX];  /* > 0; measured, so a point may
					  * be a hair faster than the one
					  * before */
	size_t n;                        /* points; 0: none */
};

struct pool_params {
	enum pool_kind kind;
	double prefill_tokens_per_s; /* C given: input tokens per second of
				      * one prefill replica; 0: none */
	double kv_tokens;            /* K given: KV-cache tokens of one
				      * decode replica; 0: none */
	double ttft_target_s;        /* T; 0: none */
	double kv_transfer_s;        /* the KV transfer within T, >= 0 */
	double ttft_miss;            /* the share of requests T may miss,
				      * (0, 1) (1 - slaTarget) */
	double itl_target_s;         /* 0: none */
	struct pool_profile profile; /* decode's ITL(b); n 0: none */
};

/* Fill p for a unified fleet (POOL_UNIFIED, nothing set). */
void pool_params_init(struct pool_params *p);

/* A pool's signals.  A negative (or NaN) value is unknown. */
struct pool_signals {
	double arrival_rate;     /* lambda, req/s (the model's signal) */
	double input_rate;       /* input (prompt) tokens/s */
	double output_rate;      /* output (generated) tokens/s */
	double kv_used;          /* KV-cache tokens in use in the pool */
	double prefill_capacity; /* C measured; <= 0: the params' */
	double kv_capacity;      /* K measured; <= 0: the params' */
	double output_arrivals;  /* decode: the arrival rate the output
				  * tokens now generated came from (their
				  * requests arrived over the last W, not
				  * the last minute); <= 0: arrival_rate */
	double token_peakedness; /* prefill: the input tokens' peakedness
				  * in mean prompts (decide.h), for the
				  * TTFT's Erlang C when above the
				  * model signals' z; <= 0: none */
};

/* What limits a replica's slots. */
enum pool_bind {
	POOL_BIND_NONE = 0,   /* unified */
	POOL_BIND_COMPUTE,    /* prefill: one server of C tokens/s */
	POOL_BIND_SLOTS,      /* slotsPerReplica (the engine's batch cap) */
	POOL_BIND_ITL,        /* the batch within the ITL target */
	POOL_BIND_KV,         /* the KV-cache */
};

/* Every pool term of one evaluation (0: not computed). */
struct pool_terms {
	enum pool_kind kind;
	double mean_input;       /* tokens a request: lambda_in / lambda */
	double mean_output;      /* lambda_out / lambda (or over
				  * output_arrivals, when given) */
	double output_arrivals;  /* the denominator of mean_output when
				  * not lambda; 0: lambda */
	double capacity;         /* prefill: C used, tokens/s */
	int capacity_measured;   /* ... from the query */
	double service_s;        /* W used, s */
	int service_from_tokens; /* 1: W from the tokens, 0: given W */
	long batch_itl;          /* decode: b*, the batch within the ITL
				  * target */
	double itl_s;            /* ITL(b*), s a token */
	double kv_capacity;      /* K used, tokens */
	int kv_measured;         /* ... from the query */
	double kv_seq_rates;     /* input + output / 2 */
	double kv_seq_measured;  /* KV in use / L */
	double kv_seq;           /* the larger: k */
	long slots_kv;           /* floor(K / k), at least 1 */
	long slots;              /* n: the slots a replica has */
	enum pool_bind bind;
	double ttft_wait_s;      /* tau = T - W - transfer (prefill, T) */
	int ttft_reachable;      /* tau > 0 */
	int ttft_sets;           /* Erlang C for T asked more than the
				  * staffing: its answer is b */
	double ttft_slots;       /* the total T asks for (0: none) */
	double ttft_peakedness;  /* the z T's Erlang C took: the model
				  * signals', or token_peakedness when
				  * above it (0: none) */
	int ttft_token_peak;     /* ... it was token_peakedness */
	int headroom_excess;     /* the square root on z - 1 (T reachable) */
};

/*
 * ITL at batch b from the profile: linear between points, the first
 * point's below it, the last segment extended above (a larger batch is
 * slower).  0 without a profile.
 */
double pool_itl_at(const struct pool_profile *pr, double b);

/*
 * b*: the largest whole batch from 1 to the profile's last batch whose
 * ITL is at most itl_target_s, and every point's before it too (the
 * first point above the target ends the search, within the segment that
 * rises to it); 0 when even the first point is slower (or no profile).
 */
long pool_batch_within(const struct pool_profile *pr, double itl_target_s);

/*
 * The time a request holds the pool, from the tokens alone: prefill
 * mean input / C, decode mean output x ITL(b*) (with a profile and an ITL
 * target).  0 when the tokens say nothing (no requests, no tokens yet,
 * decode without a profile, no C): the caller's W stands.  MODEL_EINVAL
 * for a unified p.
 */
enum model_err pool_service_time(const struct pool_params *p,
				 const struct pool_signals *ps, double *out);

/*
 * Evaluate a pool: the terms above, then model_evaluate() on the pool's
 * W and n, s->service_time_s being the W to use where the tokens say
 * nothing (decide.h's chain), and for a prefill pool with a reachable
 * TTFT target the larger of that and Erlang C's answer for it (at the
 * larger of s's peakedness and ps->token_peakedness).  slots_given: the
 * slotsPerReplica a user set (0: not set; a prefill pool ignores it).
 * On success fills *b (its terms in the pool's slots) and *t.
 * MODEL_EINVAL for a unified p, a prefill pool without C, a decode pool
 * without a bound on its slots (no slots_given, no profile) or the
 * model's own errors.
 */
enum model_err pool_evaluate(const struct model_params *mp,
			     const struct pool_params *p, long slots_given,
			     const struct pool_signals *ps,
			     const struct model_signals *s,
			     struct model_breakdown *b, struct pool_terms *t);

const char *pool_kind_name(enum pool_kind k);
const char *pool_bind_name(enum pool_bind b);

#endif
