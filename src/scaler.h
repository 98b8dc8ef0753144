/*
 * scaler.h - one trigger's answer: metadata, backend reads, model, smoothing.
 *
 * The glue between the protocol (rpc.c) and the pure model: it turns a
 * parsed struct meta into backend queries (through fetch), the answers
 * into signals, the signals into a breakdown (model), and the breakdown
 * into a smoothed replica target kept per ScaledObject.
 *
 * State: per trigger, keyed by its namespace, name and the fingerprint of
 * its whole metadata (fprint.h), so that only an identical trigger (which
 * computes the same answer anyway) shares smoothing and hold state; a
 * caller with other metadata under the same name gets its own.  The table
 * is bounded by the config's maxStates, maxStatesPerCaller and
 * maxStatesPerNamespace (of one caller) and evicts new states before the
 * ones asked for regularly, then the least recently used (stab.h), never
 * refusing a new trigger.
 *
 * Threading: scaler_parse(), scaler_check(), scaler_evaluate(),
 * scaler_evaluate_now() and scaler_set_config() may run on any thread
 * (`serve` calls them on the gRPC completion-queue thread and, for
 * StreamIsActive groups, on the stream thread): each takes the config in
 * force once, under a lock of its own, and holds it to its end, so a
 * reload never frees a config an evaluation is using.  An evaluation
 * finishes on the fetch thread (see fetch.h) or, with
 * scaler_evaluate_now() when every answer is cached, on the calling thread
 * before it returns; the states (smoothing, holds, the decision log's
 * memory) are guarded by the scaler's own lock, taken after fetch's locks
 * are released and never held while a callback runs.  The state file is
 * written by a thread of the scaler's own (the saver), so neither an
 * evaluation nor the fetch thread waits for it: the states are copied
 * under the lock (about a memcpy of the table) and formatted and written
 * without it.  Each evaluation holds the config it started with until it
 * finishes, on whichever thread.
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
#define SCALER_SHOW_MAX 253      /* bytes of a namespace or name shown */
#define SCALER_STATE_IDLE_S 3600 /* forget a trigger unseen this long */
#define SCALER_SKEW_MIN_S 10     /* data this far from now is never stale */

enum scaler_err {
	SCALER_OK = 0,
	SCALER_EINVAL,   /* bad metadata: the user must fix the ScaledObject */
	SCALER_EUNAVAIL, /* backend down or signal unknown: KEDA's fallback */
	SCALER_EDENIED,  /* the namespace may not use that backend */
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
	int floored;                  /* 1: an optional signal unknown, the
				       * answer raised to the last one with
				       * every signal known (METRICS) */
	char metric_name[META_NAME_MAX];
	int active;
	/* What the answer was made of, for `staffer explain`.  Borrowed:
	 * valid during the callback only, never NULL but where said. */
	const char *ns, *name;        /* the ScaledObject, as evaluated */
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
 * A scaler answering from cfg (a reference is held when cfg was made by
 * config_share(); otherwise cfg must outlive the scaler) through f, which
 * must outlive it.  With state_path the smoothing state and last good
 * answers are loaded from that file now (a missing or bad file is logged
 * and means a fresh start; anything but a regular file is logged and the
 * scaler runs without a state file) and saved to it by the saver thread
 * while answers change, at most once a second and at most about 5 % of a
 * core (a save that took 0.1 s waits 2 s for the next), so a restarted
 * process continues where the old one was.  NULL state_path: memory only,
 * no thread.  NULL when out of memory or the thread cannot start.
 */
struct scaler *scaler_new(struct config *cfg, struct fetch *f,
			  const char *state_path);

/* Answer from cfg from now on (SIGHUP's reload; any thread).
 * Evaluations under way finish with the config they started with; states
 * are kept. */
void scaler_set_config(struct scaler *s, struct config *cfg);

/* The config in force, not held: only on the thread that calls
 * scaler_set_config() (valid until it is replaced there). */
const struct config *scaler_config(const struct scaler *s);

/* Write the state file now (any thread; saves are one at a time; serve's
 * last one runs after fetch_stop()).  0, or -1 (logged).  A no-op without
 * a state file. */
int scaler_save(struct scaler *s);

/* Stop the saver (a save under way finishes; none is started) and free
 * everything.  NULL is fine. */
void scaler_free(struct scaler *s);

/*
 * Parse a metadata map into m (meta_init()ed by the caller) and check that
 * its backend is declared and open to namespace ns (NULL: not checked, for
 * tools with the config in hand).  SCALER_OK; SCALER_EINVAL or
 * SCALER_EDENIED with the message.
 */
enum scaler_err scaler_parse(const struct scaler *s, const char *ns,
			     struct meta *m, const char *const *keys,
			     const char *const *values, size_t n,
			     char msg[SCALER_MSG_MAX]);

/* scaler_parse()'s second half, for metadata parsed earlier (mcache.h):
 * the backend is declared and open to namespace ns (NULL: not checked). */
enum scaler_err scaler_check(const struct scaler *s, const char *ns,
			     const struct meta *m, char msg[SCALER_MSG_MAX]);

/*
 * Evaluate one trigger of ScaledObject namespace/name whose metadata map
 * has fingerprint fprint (fprint.h; NULL: the trigger is known by its
 * metricName alone, for one-off tools), for caller: who asked (rpc.c's
 * caller key, at most FETCH_CALLER_MAX - 1 bytes without a newline; NULL
 * is ""), whose backend queues (fetch.h) and state quota (stab.h) it
 * counts in.  m must have passed scaler_parse() with the same config.
 * caller, ns, name and m are borrowed for the call only: an evaluation
 * that outlives it keeps copies of its own.  Returns 0 and later calls cb
 * exactly once on the fetch thread; -1 when out of memory or the fetch
 * module refuses the job (cb never called).
 */
int scaler_evaluate(struct scaler *s, const char *caller, const char *ns,
		    const char *name, const char *fprint,
		    const struct meta *m, enum scaler_kind kind,
		    scaler_done_fn *cb, void *arg);

/*
 * scaler_evaluate(), except that when every answer is in the cache
 * (fetch_lookup()) the evaluation finishes at once: cb runs on the calling
 * thread before this returns 0, with no lock of the scaler's or fetch's
 * held, so the caller must not hold a lock that cb takes.  Such an
 * evaluation lives on the caller's stack and borrows m and the names: it
 * copies no metadata.  Otherwise it goes to the fetch thread as
 * scaler_evaluate() does.  Same answers either way.
 */
int scaler_evaluate_now(struct scaler *s, const char *caller, const char *ns,
			const char *name, const char *fprint,
			const struct meta *m, enum scaler_kind kind,
			scaler_done_fn *cb, void *arg);

#endif
