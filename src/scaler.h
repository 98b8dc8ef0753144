/*
 * scaler.h - one trigger's answer: metadata, backend reads, model, smoothing.
 *
 * The glue between the protocol (rpc.c) and the pure model: it turns a
 * parsed struct meta into backend queries (through fetch), the answers
 * into signals, the signals into a breakdown (model), and the breakdown
 * into a smoothed replica target kept per ScaledObject.
 *
 * Threading: scaler_parse() is pure and may run on any thread.
 * scaler_evaluate() may be called from any thread; its callback and all
 * smoothing state live on the fetch thread (see fetch.h), so no lock is
 * needed for them.
 */
#ifndef STAFFER_SCALER_H
#define STAFFER_SCALER_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "decide.h"
#include "fetch.h"
#include "meta.h"
#include "model.h"

#define SCALER_MSG_MAX 768
#define SCALER_STATES_MAX 100000 /* ScaledObjects with smoothing state */
#define SCALER_STATE_IDLE_S 3600 /* forget a ScaledObject unseen this long */

enum scaler_err {
	SCALER_OK = 0,
	SCALER_EINVAL,   /* bad metadata: the user must fix the ScaledObject */
	SCALER_EUNAVAIL, /* backend down or signal unknown: KEDA's fallback */
};

enum scaler_kind {
	SCALER_METRICS,  /* GetMetrics: the smoothed replica target */
	SCALER_ACTIVE,   /* IsActive / StreamIsActive */
};

/* One backend read behind a result (see scaler_result.reads). */
struct scaler_read {
	const char *key;              /* e.g. "arrivalRateQuery" */
	const char *query;            /* the PromQL as sent */
	double range_s, step_s;       /* 0: an instant query */
	const struct fetch_answer *answer;
};

struct scaler_result {
	enum scaler_err err;
	char msg[SCALER_MSG_MAX];     /* why, when err != SCALER_OK */
	struct model_signals sig;     /* the signals used */
	struct model_breakdown b;     /* every term */
	int64_t target;               /* smoothed replicas (METRICS) */
	int held;                     /* 1: signals unknown, last good held */
	char metric_name[META_NAME_MAX];
	int active;
	/* What the answer was made of, for `staffer explain`.  Borrowed:
	 * valid during the callback only, never NULL but where said. */
	const struct meta *meta;      /* the tuning in force (window applied) */
	const char *window;           /* that schedule window, or NULL */
	const struct scaler_read *reads; /* every query, in the order sent */
	size_t n_reads;
	const struct decide_obs *obs; /* NULL unless the model ran (METRICS) */
	const struct decision *d;     /* NULL unless the model ran (METRICS) */
};

typedef void scaler_done_fn(void *arg, const struct scaler_result *r);

struct scaler;

/*
 * cfg and f must outlive the scaler.  With state_path the smoothing state
 * and last good answers are loaded from that file now (a missing or bad
 * file is logged and means a fresh start) and saved to it at most once a
 * second while answers change, so a restarted process continues where the
 * old one was.  NULL state_path: memory only.
 */
struct scaler *scaler_new(const struct config *cfg, struct fetch *f,
			  const char *state_path);

/* Write the state file now (fetch thread, or after fetch_stop).  0, or -1
 * (logged).  A no-op without a state file. */
int scaler_save(struct scaler *s);

void scaler_free(struct scaler *s);

/*
 * Parse a metadata map into m (meta_init()ed by the caller) and check that
 * its backend is declared.  SCALER_OK, or SCALER_EINVAL with the message.
 */
enum scaler_err scaler_parse(const struct scaler *s, struct meta *m,
			     const char *const *keys,
			     const char *const *values, size_t n,
			     char msg[SCALER_MSG_MAX]);

/*
 * Evaluate one trigger of ScaledObject namespace/name.  Takes ownership of
 * *m (its contents are moved out; m is left meta_init()ed).  Returns 0 and
 * later calls cb exactly once on the fetch thread; -1 when the fetch module
 * refuses the job (cb never called; m released).
 */
int scaler_evaluate(struct scaler *s, const char *ns, const char *name,
		    struct meta *m, enum scaler_kind kind,
		    scaler_done_fn *cb, void *arg);

#endif
