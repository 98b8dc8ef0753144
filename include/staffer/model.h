/*
 * model.h - the decision model: signals in, replica count out.
 *
 * This is docs/math.md as a pure library.  It does no I/O, keeps no
 * global state, never logs and never allocates; every function is safe to
 * call from any thread.  calc, serve and simulate all call it, so the three
 * can never disagree.
 *
 * Units: rates in requests per second, times in seconds, everything else in
 * "slots" (concurrently served requests) until the final division by
 * slots_per_replica turns slots into replicas.
 */
#ifndef STAFFER_MODEL_H
#define STAFFER_MODEL_H

#include <stdint.h>

/* Errors of this layer.  0 is success; the rest say which input is wrong. */
enum model_err {
	MODEL_OK = 0,
	MODEL_EINVAL,   /* a parameter or signal is outside its domain */
	MODEL_ERANGE,   /* demand too large to staff (more than MODEL_SLOTS_MAX)
			 * and no cap that answers for it */
};

/* How headroom for Poisson bursts is sized (docs/math.md). */
enum model_staffing {
	MODEL_STAFF_SQRT = 0, /* beta * sqrt(L) */
	MODEL_STAFF_ERLANGC,  /* smallest c with P(wait > tau) <= eps, M/M/c */
	MODEL_STAFF_COST,     /* c minimising cost/h + penalty/h *
			       * P(wait > tau) */
	MODEL_STAFF_NONE,     /* no headroom: batch work */
};

/* The largest slot count the model will staff.  Beyond it the answer would
 * not fit the HPA (int32 replicas) anyway, and Erlang searches stay bounded. */
#define MODEL_SLOTS_MAX 1e9
/* The largest peakedness the model takes (peak.h clamps estimates far
 * below it; metadata allows up to 100). */
#define MODEL_PEAK_MAX 1000.0
/* The largest SLO correction the model takes (feedback.h bounds it far
 * below). */
#define MODEL_CORRECTION_MAX 100.0
/* The HPA computes replicas in int32; we never answer more. */
#define MODEL_REPLICAS_MAX 2147483647LL

/* The defaults model_params_init() sets that metadata can change: meta.c's
 * rows for beta, drainSeconds and boostFactor use these same values. */
#define MODEL_BETA_DEFAULT 1.5
#define MODEL_DRAIN_S_DEFAULT 15.0
#define MODEL_BOOST_DEFAULT 1.0

/* Tuning parameters; meta.c fills them from ScaledObject metadata. */
struct model_params {
	long slots_per_replica;      /* n, >= 1 */
	enum model_staffing staffing;
	double beta;                 /* sqrt staffing factor, >= 0 */
	double target_wait_s;        /* tau, > 0 (erlangc, cost) */
	double wait_probability;     /* eps, in (0, 1) (erlangc) */
	double drain_s;              /* D, > 0 */
	double shed_threshold;       /* req/s; boost only when S > this */
	double boost_factor;         /* >= 0 */
	double cost_per_replica_hour;/* > 0 (cost) */
	double sla_penalty_per_hour; /* >= 0 (cost) */
	long max_replicas;           /* cap; 0 = no cap */
	double activation_arrival_rate; /* req/s; IsActive threshold */
	/* 1: erlangc's c continuous (erlang_staff_frac()), so that the
	 * exact answer shows how far below a whole c the load sits and the
	 * scale-down margin (decide.c) costs half a replica, not a whole
	 * one.  pool.c sets it for a prefill pool's TTFT floor.  At z = 1
	 * the whole answer is the same either way; above, z c* may round
	 * below z c. */
	int erlang_frac;
	/* Ablations for the simulator (policy.h), never set by metadata:
	 * the rules v1 had or could have had, to show in the benchmark why
	 * the defaults are what they are.  A set of MODEL_ABLATE_* bits; 0
	 * is the rules staffer uses. */
	unsigned ablate;
};

/* The bits of model_params.ablate: each one a rule of staffer's off. */
enum model_ablation {
	MODEL_ABLATE_DRAIN_EXCESS = 1u << 0, /* drain max(0, Q - L), not Q */
	MODEL_ABLATE_BOOST_NET = 1u << 1,    /* no boost (shed requests
					      * taken to be in lambda) */
	MODEL_ABLATE_ERLANG_WHOLE = 1u << 2, /* a prefill pool's TTFT floor
					      * takes Erlang C's whole c
					      * (pool.c), not erlang_frac */
	MODEL_ABLATE_PEAK_AS_READ = 1u << 3, /* a prefill pool takes z as
					      * read, not at the low end of
					      * its standard error
					      * (decide.c, peak_lower()) */
	MODEL_ABLATE_PRIOR_HELD = 1u << 4,   /* the answer hold keeps what
					      * a prefill pool asked for
					      * before it first measured z
					      * (decide.c) */
	MODEL_ABLATE_TOKEN_PEAK = 1u << 5,   /* a prefill pool's TTFT floor
					      * takes the arrivals' z, not
					      * its prompt tokens' when
					      * higher (decide.c) */
};

/* Fill p with the defaults (sqrt, beta 1.5, D 15 s, n 1 ...). */
void model_params_init(struct model_params *p);

/*
 * One evaluation's inputs.  All must be finite and >= 0; service_time_s
 * must be > 0 when arrival_rate, arrival_forecast or queue_depth is > 0,
 * or when the shed boost applies (shed_rate > shed_threshold and
 * boost_factor > 0).  A zeroed struct plus the four measured signals is
 * the model without a forecast.
 *
 * The forecast (forecast.h) raises lambda for sizing: the busy slots,
 * headroom and drain use lambda_used = max(arrival_rate, arrival_forecast).
 * Activity does not: it stays on the measured arrival_rate.  The
 * forecast is a smoothed extrapolation of that same signal's recent
 * history, so it can never see arrivals before the measurement does (no
 * earlier activation), and after traffic stops its level lags by several
 * steps; on the forecast, scale-to-zero would wait for that lag on top of
 * KEDA's own cooldownPeriod.  Sizing still counts the forecast while
 * inactive: any positive slot count rounds up to at least one replica.
 */
struct model_signals {
	double arrival_rate;   /* lambda, req/s */
	double service_time_s; /* W, s */
	double queue_depth;    /* Q, requests */
	double shed_rate;      /* S, req/s */
	double arrival_forecast; /* lambda-hat at the cold-start horizon,
				  * req/s; 0 = none */
	double arrival_held;   /* the highest lambda over the scale-down
				* hold, req/s; 0 = none (decide.h) */
	double peakedness;     /* z, the arrivals' peakedness (peak.h);
				* 0 means 1 (Poisson) */
	double correction;     /* c, the SLO feedback's factor on the
				* total slots (feedback.h), at most
				* MODEL_CORRECTION_MAX; 0 means 1 (none) */
	double arrival_surge;  /* the rate the series rises to within one
				* lead time at the surge quantile, req/s
				* (safety.h); 0 = none */
};

/*
 * Every term of one evaluation, for logs, calc and the simulator.
 *
 * Demand beyond MODEL_SLOTS_MAX is answered with the cap when there is
 * one that provably lies below it (max_replicas * n <= MODEL_SLOTS_MAX):
 * replicas = max_replicas, capped = 1, and total_slots = exact_replicas =
 * +Inf, read "more than the model staffs".  busy, drain and boost then hold
 * what they computed (busy may be > MODEL_SLOTS_MAX or +Inf), and headroom
 * is 0 when it was not computed (busy already beyond the limit, or an
 * Erlang search that would pass it).  Without such a cap: MODEL_ERANGE.
 */
enum model_source {
	MODEL_FROM_MEASURED = 0, /* lambda itself */
	MODEL_FROM_FORECAST,     /* lambda-hat was the highest */
	MODEL_FROM_HELD,         /* the hold's lambda was the highest */
	MODEL_FROM_SURGE,        /* the surge headroom's was */
};

struct model_breakdown {
	double arrival_used;   /* max(lambda, forecast, held, surge), req/s */
	enum model_source source; /* which of the four it is */
	int forecast_used;     /* 1 when the forecast raised lambda */
	double peakedness;     /* z used in the headroom (1: Poisson) */
	double busy_slots;     /* L = arrival_used * W */
	double headroom_slots; /* staffing term */
	double drain_slots;    /* Q * W / D (MODEL_ABLATE_DRAIN_EXCESS:
				 * max(0, Q - L)) */
	double boost_slots;    /* boost_factor * S * W, S > shed_threshold */
	double correction;     /* c applied (1: none) */
	double feedback_slots; /* (c - 1) * the four terms' sum */
	double total_slots;    /* the four terms and feedback_slots */
	double exact_replicas; /* total_slots / n, before rounding */
	int64_t replicas;      /* ceil, floored at 1 with demand, capped */
	int capped;            /* 1: max_replicas (or int32) cut it */
	int active;            /* IsActive answer for these signals */
};

/*
 * Evaluate the model (no smoothing).  On success fills *out and returns
 * MODEL_OK; on error returns the code and leaves *out untouched.
 */
enum model_err model_evaluate(const struct model_params *p,
			      const struct model_signals *s,
			      struct model_breakdown *out);

/* Activity alone (measured lambda > activation threshold, Q > 0 or
 * S > 0); arrival_forecast plays no part (see struct model_signals). */
int model_is_active(const struct model_params *p,
		    const struct model_signals *s);

/*
 * ceil() that forgives floating-point noise: 27.000000001 gives 27.
 * x must be finite and >= 0.
 */
double model_ceil(double x);

/* Short English text for an error code ("parameter out of domain"). */
const char *model_strerror(enum model_err e);

const char *model_staffing_name(enum model_staffing s);

#endif
