/*
 * scaler.c - see scaler.h.
 *
 * Per ScaledObject trigger ("namespace/name/metricName") the scaler keeps
 * one struct state on the fetch thread: the smoothing state and the last
 * good answer.  The last good answer is what makes missing data safe
 * (docs/metadata.md, staleHoldSeconds): an unknown signal never lowers the
 * target; the last good target is held for staleHoldSeconds, then the
 * error goes to KEDA so that its fallback takes over.  With a state file
 * the states survive a restart of the process.
 */
#include "scaler.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <fcntl.h>
#include <sys/stat.h>

#include "decide.h"
#include "declog.h"
#include "forecast.h"
#include "log.h"
#include "mono.h"
#include "show.h"
#include "slurp.h"
#include "smooth.h"
#include "stab.h"

/* Which answer slot holds which signal. */
enum {
	SIG_ARRIVAL,
	SIG_SERVICE,
	SIG_QUEUE,
	SIG_SHED,
	SIG_CURRENT,        /* currentReplicasQuery now */
	SIG_CURRENT_RECENT, /* ... over the last scaleDownPeriodSeconds */
	SIG_SERIES,         /* arrivalRateQuery over decide_series_query() */
	SIG_MISS,           /* slaMissQuery over the same range and step */
	SIG_COLD,           /* coldStartQuery now */
	SIG_SURGE,          /* arrivalRateQuery over decide_surge_query() */
	SIG_INPUT,          /* a pool's inputTokenRateQuery */
	SIG_OUTPUT,         /* ... outputTokenRateQuery */
	SIG_KV_USED,        /* ... kvCacheUsageQuery */
	SIG_PREFILL_CAP,    /* ... prefillCapacityQuery */
	SIG_KV_CAP,         /* ... kvCacheTokensQuery */
	SIG_TOKENS,         /* inputTokenRateQuery over decide_token_query() */
	SIG_N
};

static const char *const sig_keys[SIG_N] = {
	"arrivalRateQuery", "serviceTimeQuery", "queueDepthQuery",
	"shedRateQuery", "currentReplicasQuery",
	"currentReplicasQuery (recent range)",
	"arrivalRateQuery (range)", "slaMissQuery (range)", "coldStartQuery",
	"arrivalRateQuery (surge range)", "inputTokenRateQuery",
	"outputTokenRateQuery", "kvCacheUsageQuery", "prefillCapacityQuery",
	"kvCacheTokensQuery", "inputTokenRateQuery (range)",
};

_Static_assert(SIG_N <= FETCH_QUERIES_MAX, "every signal fits one job");

#define STATE_FILE_MAX (64u << 20)
#define STATE_KEY_MAX 1024       /* bytes of a key in the state file */
#define STATE_NS_MAX 253         /* ... of a namespace (kname.h) */
#define SAVE_EVERY_S 1.0
/* The saver spends at most about this share of a core: after a save that
 * took t seconds the next waits at least t / SAVE_SHARE. */
#define SAVE_SHARE 0.05
#define EVICT_LOG_EVERY_S 60.0
#define STATE_SWEEP_EVERY_S 60.0 /* how often idle states are looked for */
/* currentReplicasQuery over scaleDownPeriodSeconds: about this many
 * points, at a step of 1 to RECENT_STEP_MAX_S seconds */
#define RECENT_POINTS 30
#define RECENT_STEP_MAX_S 15

/* One trigger's state: a stab entry (stab.h), keyed by scaler_key(). */
struct state {
	struct stab_node node;  /* first: the table's part */
	struct smooth sm;
	double last_seen;       /* wall clock, s */
	int have_good;
	int logged;             /* a decision line was written: */
	int64_t good_target;    /* last answer made from known signals */
	double good_at;         /* wall clock, s, of good_target */
	int have_active;
	int good_active;        /* last activity from known signals */
	double active_at;       /* wall clock, s, of good_active */
	double good_w;          /* last known service time, s; 0 = none */
	int64_t logged_raw;     /* ... its raw */
	int64_t logged_target;  /* and its target */
	/* The last answer made while every optional signal was known too:
	 * the floor while one is unknown (opt_floor()). */
	int have_opt;
	int64_t opt_target;
	double opt_at;          /* wall clock, s */
	/* coldStartQuery's last answer in (0, META_COLD_START_MAX], s; 0:
	 * none yet.  The next evaluation's ranges are sized for it
	 * (decide_size_cold()). */
	double cold_seen;
	struct decide_memo memo;  /* what the range answers gave (decide.h) */
};

struct scaler {
	/* The config in force, held; cfg_mu guards the pointer (a reader
	 * holds it under the lock, scaler_set_config() swaps it under it),
	 * not the config, which is immutable. */
	struct config *cfg;
	pthread_mutex_t cfg_mu;
	struct fetch *fetch;
	char *state_path;                     /* NULL: memory only */
	/* mu guards the states and everything below it: evaluations finish
	 * on the fetch thread, and on the CQ thread when every answer is
	 * cached (scaler_evaluate_now()).  Taken after fetch's locks are
	 * released, never around a callback. */
	pthread_mutex_t mu;
	struct stab *states;
	double last_sweep;
	int dirty;
	unsigned long evicted;                /* since the last log line */
	double evict_logged;
	/* The saver thread (with a state file): writes the file when the
	 * states changed, so that no evaluation and not the fetch thread
	 * waits for formatting or the disk.  save_mu guards saver_stop and
	 * the wait; write_mu makes saves one at a time. */
	pthread_mutex_t save_mu, write_mu;
	pthread_cond_t save_cv;
	pthread_t saver;
	int saver_on, saver_stop;
};

/* The state key of a trigger held inline; a longer one (names near their
 * 253 bytes) is malloc()ed. */
#define EVAL_KEY_INLINE 384
/* "ns/name/metricName" as logs show it: both names through show_text() */
#define EVAL_REF_MAX (2 * (SCALER_SHOW_MAX + 4) + META_NAME_MAX)

/*
 * One evaluation.  A cached one (scaler_evaluate_now() answered at once
 * by fetch_lookup()) lives on the caller's stack and borrows the caller's
 * metadata, names and the scaler's config for that call; one that waits
 * for the fetch thread lives on the heap and owns copies of them
 * (eval_new()), as the caller's are gone by the time it finishes.
 */
struct eval {
	struct scaler *s;
	struct config *cfg;          /* be lives in it; held when `own` */
	const struct backend *be;
	const struct meta *m;        /* the tuning in force: *base, or &win */
	const struct meta *base;     /* the trigger's metadata */
	struct meta *own;            /* heap: base, a deep copy; else NULL */
	char *names;                 /* heap: ns and name, copied; else NULL */
	enum scaler_kind kind;
	const char *caller;          /* who asked (rpc.c), "" for tools */
	const char *ns, *name;       /* the ScaledObject's */
	char *key;                   /* the state's key (scaler_key()):
				      * keybuf, or malloc()ed */
	struct stab_limits lim;      /* the config's maxStates* */
	int slot[SIG_N];             /* answer index per signal, -1 if none */
	struct scaler_read reads[SIG_N]; /* what was sent, in that order */
	size_t n_reads;
	double series_step_s;
	double surge_step_s;
	double size_cold_s;          /* the ranges' cold start (decide.h) */
	double *miss;                /* slaMissQuery on the series' grid */
	size_t n_miss;               /* its points, miss_points() */
	/* the surge range as kept (fetch.h), borrowed from the answer, and
	 * its points once expanded (surge_points()) */
	const struct series *surge_kept;
	double *surge_block;
	const char *window;          /* schedule window in force, or NULL */
	scaler_done_fn *cb;
	void *arg;
	char keybuf[EVAL_KEY_INLINE];
	char ref[EVAL_REF_MAX];      /* "ns/name/metricName", printable */
	/* base with the schedule window in force applied (meta_at(), a
	 * shallow copy), when base has a schedule: last, as most
	 * evaluations never touch it. */
	struct meta win;
};

/* Wall clock: smoothing times are stored in the state file, so they must
 * mean the same after a restart. */
static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The identity of e's log lines (namespace, scaledObject, trigger,
 * backend: declog.h) and the kind of evaluation as the method that asks
 * for it (StreamIsActive evaluates as IsActive) into f[5]; returns how
 * many. */
static size_t eval_who(const struct eval *e, struct log_field *f)
{
	size_t n = declog_who(f, e->ns, e->name, e->m->metric_name,
			      e->be ? e->be->name : NULL);

	f[n++] = (struct log_field)LOG_F_STR("method",
		e->kind == SCALER_METRICS ? "GetMetrics" : "IsActive");
	return n;
}

/* A log line about evaluation e: the message, and in JSON its fields. */
#define log_eval(lvl, e, ...) do {					\
		if ((lvl) >= log__level) {				\
			struct log_field who_[6];			\
									\
			log_write_fields((lvl), who_, eval_who((e), who_), \
					 __VA_ARGS__);			\
		}							\
	} while (0)

static struct state *state_of(struct stab_node *n)
{
	return (struct state *)n;
}

/* The cold start e's ranges are sized for: with coldStartQuery, from the
 * last answer its state keeps (decide_size_cold()); else 0
 * (coldStartSeconds).  Takes the state lock. */
static double eval_size_cold(const struct eval *e)
{
	struct stab_node *n;
	double seen = 0;

	if (e->kind != SCALER_METRICS || !e->m->cold_start_query)
		return 0;
	pthread_mutex_lock(&e->s->mu);
	n = stab_get(e->s->states, e->key, wall_now());
	if (n)
		seen = state_of(n)->cold_seen;
	pthread_mutex_unlock(&e->s->mu);
	return decide_size_cold(e->m, seen);
}

/* The state for e, created (evicting, see stab.h) on first use; NULL
 * only when out of memory. */
static struct state *state_for(struct scaler *s, const struct eval *e,
			       double now)
{
	struct stab_node *n;
	struct state *st;
	int evicted = 0;

	n = stab_put(s->states, e->key, e->caller, e->ns, &e->lim, now,
		     &evicted);
	if (!n)
		return NULL;
	st = state_of(n);     /* a new one is zeroed: smooth_init()'s state */
	if (evicted) {
		s->evicted++;
		s->dirty = 1;
		if (now - s->evict_logged >= EVICT_LOG_EVERY_S) {
			char who[SCALER_SHOW_MAX + 4];

			show_text(who, SCALER_SHOW_MAX, n->owner,
				  strlen(n->owner));
			log_warn("state table: %lu trigger states evicted to "
				 "make room (maxStates %zu, maxStatesPerCaller "
				 "%zu, maxStatesPerNamespace %zu; caller '%s' "
				 "has %zu, %zu in namespace '%s'; %zu states "
				 "are new); new states and the least recently "
				 "used first", s->evicted, e->lim.max,
				 e->lim.max_owner, e->lim.max_ns, who,
				 stab_count_owner(s->states, n->owner),
				 stab_count_ns(s->states, n->owner, n->ns),
				 n->ns, stab_count_new(s->states));
			s->evicted = 0;
			s->evict_logged = now;
		}
	}
	return st;
}

/* Forget triggers nobody asked about for SCALER_STATE_IDLE_S. */
static void states_sweep(struct scaler *s, double now)
{
	struct stab_node *n, *newer;

	if (now - s->last_sweep < STATE_SWEEP_EVERY_S)
		return;
	s->last_sweep = now;
	for (n = stab_oldest(s->states); n; n = newer) {
		newer = stab_newer(n);
		if (now - state_of(n)->last_seen <= SCALER_STATE_IDLE_S)
			break;
		stab_del(s->states, n);
		s->dirty = 1;
	}
}

/* ---- the state file ------------------------------------------------------- */

/*
 * Format: {"version":2,"states":[{"key":K,"ns":NS,"caller":C,"regular":B,
 * "target":N,"lastDown":T,
 * "primed":B,"haveGood":B,"goodTarget":N,"haveActive":B,"goodActive":B,
 * "activeAt":T,"goodAt":T,"goodW":W,"lastSeen":T,"haveOpt":B,
 * "optTarget":N,"optAt":T}]}, K as scaler_key()
 * makes it, wall-clock times in seconds, the least recently used first (so
 * that loading in order restores the recency).  Version 1 had keys without
 * the metadata fingerprint; such a file is ignored.  Written to a
 * temporary file and renamed, so a crash leaves the old or the new file,
 * never half.
 */
#define STATE_VERSION 2

/* Open path for writing, refusing anything but a regular file (a FIFO
 * would block the fetch thread).  A FILE, or NULL with errno. */
static FILE *open_regular_w(const char *path)
{
	struct stat sb;
	FILE *fp;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK
		  | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	fp = fdopen(fd, "w");
	if (!fp)
		close(fd);
	return fp;
}

/* A copy of the states for the saver, taken under s->mu and formatted
 * without it: each state as it was, key and ns pointing into strs. */
struct snap {
	struct state *v;
	size_t n;
	char *strs;
};

static void snap_release(struct snap *sn)
{
	free(sn->v);
	free(sn->strs);
}

/* Copy the states, least recently used first (s->mu held).  0; -1 when
 * out of memory (sn untouched).  Two passes and two allocations, so the
 * lock is held for little more than a memcpy of the table. */
static int snap_take(struct scaler *s, struct snap *sn)
{
	struct stab_node *n;
	struct state *v;
	size_t count = 0, bytes = 0, i = 0, off = 0;
	char *strs;

	for (n = stab_oldest(s->states); n; n = stab_newer(n)) {
		count++;
		bytes += strlen(n->key) + strlen(n->ns) + strlen(n->owner) +
			 3;
	}
	v = malloc((count ? count : 1) * sizeof(*v));
	strs = malloc(bytes ? bytes : 1);
	if (!v || !strs) {
		free(v);
		free(strs);
		return -1;
	}
	for (n = stab_oldest(s->states); n; n = stab_newer(n), i++) {
		size_t kl = strlen(n->key) + 1, nl = strlen(n->ns) + 1;
		size_t ol = strlen(n->owner) + 1;

		v[i] = *state_of(n);
		memcpy(strs + off, n->key, kl);
		v[i].node.key = strs + off;
		off += kl;
		memcpy(strs + off, n->ns, nl);
		v[i].node.ns = strs + off;
		off += nl;
		memcpy(strs + off, n->owner, ol);
		v[i].node.owner = strs + off;
		off += ol;
	}
	sn->v = v;
	sn->n = count;
	sn->strs = strs;
	return 0;
}

/* s as a JSON string (quoted, escaped by cJSON) to fp.  0, or -1. */
static int put_str(FILE *fp, const char *s)
{
	cJSON *j = cJSON_CreateString(s);
	char *text = j ? cJSON_PrintUnformatted(j) : NULL;
	int rc = text && fputs(text, fp) >= 0 ? 0 : -1;

	free(text);
	cJSON_Delete(j);
	return rc;
}

/* A number as JSON.  %.17g reads back exactly; a value that is not
 * finite (never stored) is written as null, which reads back as 0. */
static int put_num(FILE *fp, const char *name, double d)
{
	if (isfinite(d))
		return fprintf(fp, ",\"%s\":%.17g", name, d) < 0 ? -1 : 0;
	return fprintf(fp, ",\"%s\":null", name) < 0 ? -1 : 0;
}

static int put_bool(FILE *fp, const char *name, int b)
{
	return fprintf(fp, ",\"%s\":%s", name, b ? "true" : "false") < 0 ?
	       -1 : 0;
}

/* The answer hold's spans (smooth.h), when it holds: "hold": {t0, width,
 * since, k, max: [SMOOTH_SLOTS answers, -1 for an empty span]}. */
static int put_hold(FILE *fp, const struct smooth *sm)
{
	int bad, i;

	if (!sm->hold_on)
		return 0;
	bad = fprintf(fp, ",\"hold\":{\"t0\":%.17g,\"width\":%.17g,"
		      "\"since\":%.17g,\"k\":%lld,\"max\":[", sm->hold_t0,
		      sm->hold_width, sm->hold_since,
		      (long long)sm->hold_k) < 0;
	for (i = 0; i < SMOOTH_SLOTS; i++)
		bad |= fprintf(fp, "%s%lld", i ? "," : "",
			       sm->hold_max[i] == INT64_MIN ? -1LL :
			       (long long)sm->hold_max[i]) < 0;
	bad |= fputs("]}", fp) < 0;
	return bad ? -1 : 0;
}

/* The file's text for a snapshot, written straight to fp: no tree and no
 * copy of the text, so a save needs little memory beyond the snapshot.
 * 0, or -1 when a write (or a string's escaping) fails. */
static int snap_put(FILE *fp, const struct snap *sn)
{
	size_t i;
	int bad;

	bad = fprintf(fp, "{\"version\":%d,\"states\":[", STATE_VERSION) < 0;
	for (i = 0; i < sn->n && !bad; i++) {
		const struct state *st = &sn->v[i];

		bad |= fputs(i ? ",{\"key\":" : "{\"key\":", fp) < 0;
		bad |= put_str(fp, st->node.key);
		bad |= fputs(",\"ns\":", fp) < 0;
		bad |= put_str(fp, st->node.ns);
		bad |= fputs(",\"caller\":", fp) < 0;
		bad |= put_str(fp, st->node.owner);
		bad |= put_bool(fp, "regular", st->node.regular);
		bad |= put_num(fp, "target", (double)st->sm.target);
		bad |= put_num(fp, "lastDown", st->sm.last_down_s);
		bad |= put_bool(fp, "primed", st->sm.primed);
		bad |= put_bool(fp, "haveGood", st->have_good);
		bad |= put_num(fp, "goodTarget", (double)st->good_target);
		bad |= put_bool(fp, "haveActive", st->have_active);
		bad |= put_bool(fp, "goodActive", st->good_active);
		bad |= put_num(fp, "activeAt", st->active_at);
		bad |= put_num(fp, "goodAt", st->good_at);
		bad |= put_num(fp, "goodW", st->good_w);
		bad |= put_num(fp, "lastSeen", st->last_seen);
		bad |= put_bool(fp, "haveOpt", st->have_opt);
		bad |= put_num(fp, "optTarget", (double)st->opt_target);
		bad |= put_num(fp, "optAt", st->opt_at);
		bad |= put_num(fp, "coldSeen", st->cold_seen);
		bad |= put_hold(fp, &st->sm);
		bad |= fputc('}', fp) == EOF;
	}
	bad |= fputs("]}", fp) < 0;
	return bad ? -1 : 0;
}

/* Write the snapshot to the state file (write_mu held).  0, or -1
 * (logged). */
static int states_write(struct scaler *s, const struct snap *sn)
{
	char tmp[4096];
	FILE *fp = NULL;
	int rc = -1;

	snprintf(tmp, sizeof(tmp), "%s.tmp", s->state_path);
	fp = open_regular_w(tmp);
	if (!fp) {
		log_warn("state file '%s': %s", tmp, errno == EINVAL ?
			 "not a regular file" : strerror(errno));
		goto out;
	}
	if (snap_put(fp, sn) || fflush(fp) || fsync(fileno(fp))) {
		log_warn("state file '%s': write failed: %s", tmp,
			 strerror(errno));
		goto out;
	}
	if (fclose(fp)) {
		fp = NULL;
		goto out;
	}
	fp = NULL;
	if (rename(tmp, s->state_path)) {
		log_warn("state file '%s': %s", s->state_path,
			 strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fp)
		fclose(fp);
	return rc;
}

int scaler_save(struct scaler *s)
{
	struct snap sn;
	int rc = -1, taken;

	if (!s->state_path)
		return 0;
	pthread_mutex_lock(&s->write_mu);
	pthread_mutex_lock(&s->mu);
	taken = !snap_take(s, &sn);
	if (taken)
		s->dirty = 0;     /* changes from now on make it dirty again */
	pthread_mutex_unlock(&s->mu);
	if (!taken) {
		log_warn("state file '%s': out of memory", s->state_path);
		goto out;
	}
	rc = states_write(s, &sn);
	snap_release(&sn);
	if (rc) {
		pthread_mutex_lock(&s->mu);
		s->dirty = 1;
		pthread_mutex_unlock(&s->mu);
	}
out:
	pthread_mutex_unlock(&s->write_mu);
	return rc;
}

/* The saver thread: a save when the states changed, at most once per
 * SAVE_EVERY_S and SAVE_SHARE of a core; a last one is serve's
 * (scaler_save() after fetch_stop()). */
static void *saver_main(void *arg)
{
	struct scaler *s = arg;
	double gap = SAVE_EVERY_S, t0;
	struct timespec until;
	int dirty;

	pthread_mutex_lock(&s->save_mu);
	while (!s->saver_stop) {
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += (time_t)gap;
		until.tv_nsec += (long)((gap - (double)(time_t)gap) * 1e9);
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		while (!s->saver_stop &&
		       pthread_cond_timedwait(&s->save_cv, &s->save_mu,
					      &until) == 0)
			;         /* woken early: only stop counts */
		if (s->saver_stop)
			break;
		pthread_mutex_unlock(&s->save_mu);
		pthread_mutex_lock(&s->mu);
		dirty = s->dirty;
		pthread_mutex_unlock(&s->mu);
		gap = SAVE_EVERY_S;
		if (dirty) {
			t0 = mono_now();
			scaler_save(s);
			t0 = (mono_now() - t0) / SAVE_SHARE;
			if (t0 > gap)
				gap = t0;
		}
		pthread_mutex_lock(&s->save_mu);
	}
	pthread_mutex_unlock(&s->save_mu);
	return NULL;
}

static double num(const cJSON *o, const char *name, double lo, double hi)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
	double d;

	if (!cJSON_IsNumber(v))
		return lo;
	d = v->valuedouble;
	return isfinite(d) ? (d < lo ? lo : d > hi ? hi : d) : lo;
}

static int flag(const cJSON *o, const char *name)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, name));
}

/* put_hold()'s object into sm when it is whole and in range; else the
 * hold starts afresh, as in a new process (smooth.h). */
static void get_hold(const cJSON *o, struct smooth *sm)
{
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, "hold");
	const cJSON *mx = cJSON_GetObjectItemCaseSensitive(h, "max");
	const cJSON *x;
	int64_t v[SMOOTH_SLOTS];
	double t0 = num(h, "t0", -1, 1e12), w = num(h, "width", 0, 86400);
	double since = num(h, "since", -1, 1e12), k = num(h, "k", -1, 1e12);
	int i = 0;

	sm->hold_on = 0;
	if (!cJSON_IsObject(h) || !cJSON_IsArray(mx) ||
	    cJSON_GetArraySize(mx) != SMOOTH_SLOTS || t0 < 0 || !(w > 0) ||
	    since < 0 || k < 0 || k != floor(k))
		return;
	cJSON_ArrayForEach(x, mx) {
		if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
			return;
		v[i++] = x->valuedouble < 0 ? INT64_MIN :
			 x->valuedouble > (double)MODEL_REPLICAS_MAX ?
			 MODEL_REPLICAS_MAX : (int64_t)x->valuedouble;
	}
	sm->hold_t0 = t0;
	sm->hold_width = w;
	sm->hold_since = since;
	sm->hold_k = (int64_t)k;
	memcpy(sm->hold_max, v, sizeof(v));
	sm->hold_on = 1;
}

/*
 * Open the state file for reading.  Anything but a regular file (a FIFO
 * would block start-up before gRPC listens; a directory or device is a
 * mistake) is refused with a warning, and the scaler then runs without a
 * state file.  A FILE; NULL when absent (*usable 1) or refused (*usable 0).
 */
static FILE *open_state(const char *path, int *usable)
{
	struct stat sb;
	FILE *fp;
	int fd;

	*usable = 1;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return NULL;
		log_warn("state file '%s': %s; running without a state file",
			 path, strerror(errno));
		*usable = 0;
		return NULL;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		log_warn("state file '%s': not a regular file (a FIFO, "
			 "directory or device); running without a state file",
			 path);
		close(fd);
		*usable = 0;
		return NULL;
	}
	fp = fdopen(fd, "rb");
	if (!fp) {
		close(fd);
		*usable = 0;
	}
	return fp;
}

/* Load the state file; a missing file is a fresh start, a bad one is
 * reported and ignored (the answers then start from scratch).  Returns 0,
 * or -1 when the path must not be used at all (see open_state()). */
static int states_load(struct scaler *s)
{
	FILE *fp;
	char *text = NULL;
	cJSON *root = NULL;
	const cJSON *arr, *o, *ver;
	struct stab_limits lim;
	enum slurp_err se;
	size_t len;
	size_t n = 0;
	int usable;

	fp = open_state(s->state_path, &usable);
	if (!fp)
		return usable ? 0 : -1;
	text = slurp_fd(fileno(fp), STATE_FILE_MAX, &len, &se);
	if (!text) {
		log_warn("state file '%s': unreadable or larger than %u "
			 "bytes; starting fresh", s->state_path,
			 STATE_FILE_MAX);
		goto out;
	}
	root = cJSON_ParseWithLength(text, len);
	arr = cJSON_GetObjectItemCaseSensitive(root, "states");
	ver = cJSON_GetObjectItemCaseSensitive(root, "version");
	if (!cJSON_IsArray(arr) || !cJSON_IsNumber(ver)) {
		log_warn("state file '%s': not a staffer state file; starting "
			 "fresh", s->state_path);
		goto out;
	}
	if (ver->valuedouble != STATE_VERSION) {
		log_warn("state file '%s': version %g, from another staffer "
			 "release (this one writes %d, with states keyed by "
			 "the trigger's metadata); starting fresh",
			 s->state_path, ver->valuedouble, STATE_VERSION);
		goto out;
	}
	lim.max = s->cfg->max_states;
	lim.max_owner = s->cfg->max_states_caller;
	lim.max_ns = s->cfg->max_states_ns;
	cJSON_ArrayForEach(o, arr) {
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(o, "key");
		const cJSON *ns = cJSON_GetObjectItemCaseSensitive(o, "ns");
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "caller");
		const cJSON *reg = cJSON_GetObjectItemCaseSensitive(o,
								    "regular");
		const char *caller = cJSON_IsString(c) ? c->valuestring : "";
		struct stab_node *node;
		struct state *st;

		if (!cJSON_IsString(k) || !cJSON_IsString(ns) ||
		    strlen(k->valuestring) > STATE_KEY_MAX ||
		    strlen(ns->valuestring) > STATE_NS_MAX ||
		    strlen(caller) >= FETCH_CALLER_MAX || strchr(caller, '\n'))
			continue;
		node = stab_put(s->states, k->valuestring, caller,
				ns->valuestring, &lim, wall_now(), NULL);
		if (!node)
			break;
		/* a file without the flag is older than it: its states were
		 * all asked for before */
		if (!reg || cJSON_IsTrue(reg))
			stab_promote(s->states, node);
		st = state_of(node);
		st->sm.target = (int64_t)num(o, "target", 0,
					     (double)MODEL_REPLICAS_MAX);
		st->sm.last_down_s = num(o, "lastDown", 0, 1e12);
		st->sm.primed = flag(o, "primed");
		st->have_good = flag(o, "haveGood");
		st->good_target = (int64_t)num(o, "goodTarget", 0,
					       (double)MODEL_REPLICAS_MAX);
		st->have_active = flag(o, "haveActive");
		st->good_active = flag(o, "goodActive");
		st->active_at = num(o, "activeAt", 0, 1e12);
		st->good_at = num(o, "goodAt", 0, 1e12);
		st->good_w = num(o, "goodW", 0, 86400);
		st->last_seen = num(o, "lastSeen", 0, 1e12);
		st->have_opt = flag(o, "haveOpt");
		st->opt_target = (int64_t)num(o, "optTarget", 0,
					      (double)MODEL_REPLICAS_MAX);
		st->opt_at = num(o, "optAt", 0, 1e12);
		st->cold_seen = num(o, "coldSeen", 0, META_COLD_START_MAX);
		get_hold(o, &st->sm);
		n++;
	}
	log_info("state file '%s': %zu trigger states restored",
		 s->state_path, n);
out:
	cJSON_Delete(root);
	free(text);
	fclose(fp);
	return 0;
}

/* ---- life cycle ---------------------------------------------------------------- */

struct scaler *scaler_new(struct config *cfg, struct fetch *f,
			  const char *state_path)
{
	struct scaler *s = calloc(1, sizeof(*s));
	pthread_condattr_t ca;

	if (!s)
		return NULL;
	if (pthread_condattr_init(&ca)) {
		free(s);
		return NULL;
	}
	/* the saver's waits are timed on the monotonic clock */
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->save_cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&s->mu, NULL);
	pthread_mutex_init(&s->cfg_mu, NULL);
	pthread_mutex_init(&s->save_mu, NULL);
	pthread_mutex_init(&s->write_mu, NULL);
	s->states = stab_new(sizeof(struct state));
	if (!s->states) {
		scaler_free(s);
		return NULL;
	}
	s->cfg = config_hold(cfg);
	s->fetch = f;
	s->last_sweep = wall_now();
	if (state_path) {
		s->state_path = strdup(state_path);
		if (!s->state_path) {
			scaler_free(s);
			return NULL;
		}
		if (states_load(s)) {
			free(s->state_path);
			s->state_path = NULL;
		}
	}
	if (s->state_path) {
		if (pthread_create(&s->saver, NULL, saver_main, s)) {
			log_error("state file '%s': cannot start the thread "
				  "that writes it", s->state_path);
			scaler_free(s);
			return NULL;
		}
		s->saver_on = 1;
	}
	return s;
}

const struct config *scaler_config(const struct scaler *s)
{
	return s->cfg;
}

/* The config in force, held for the caller (config_drop()): on any
 * thread, whatever scaler_set_config() does meanwhile.  The lock is the
 * pointer's, so it is taken on a const scaler too. */
static struct config *scaler_cfg(const struct scaler *s)
{
	pthread_mutex_t *mu = (pthread_mutex_t *)&s->cfg_mu;
	struct config *c;

	pthread_mutex_lock(mu);
	c = config_hold(s->cfg);
	pthread_mutex_unlock(mu);
	return c;
}

void scaler_set_config(struct scaler *s, struct config *cfg)
{
	struct config *old;

	pthread_mutex_lock(&s->cfg_mu);
	old = s->cfg;
	s->cfg = config_hold(cfg);
	pthread_mutex_unlock(&s->cfg_mu);
	config_drop(old);
}

void scaler_free(struct scaler *s)
{
	if (!s)
		return;
	if (s->saver_on) {
		pthread_mutex_lock(&s->save_mu);
		s->saver_stop = 1;
		pthread_cond_signal(&s->save_cv);
		pthread_mutex_unlock(&s->save_mu);
		pthread_join(s->saver, NULL);
	}
	stab_free(s->states);
	pthread_cond_destroy(&s->save_cv);
	pthread_mutex_destroy(&s->write_mu);
	pthread_mutex_destroy(&s->save_mu);
	pthread_mutex_destroy(&s->mu);
	pthread_mutex_destroy(&s->cfg_mu);
	config_drop(s->cfg);
	free(s->state_path);
	free(s);
}

enum scaler_err scaler_parse(const struct scaler *s, const char *ns,
			     struct meta *m, const char *const *keys,
			     const char *const *values, size_t n,
			     char msg[SCALER_MSG_MAX])
{
	struct meta_error err;

	if (meta_parse(m, keys, values, n, &err) != META_OK) {
		snprintf(msg, SCALER_MSG_MAX, "%s", err.msg);
		return SCALER_EINVAL;
	}
	return scaler_check(s, ns, m, msg);
}

enum scaler_err scaler_check(const struct scaler *s, const char *ns,
			     const struct meta *m, char msg[SCALER_MSG_MAX])
{
	struct config *cfg = scaler_cfg(s);
	enum scaler_err rc = SCALER_EINVAL;

	switch (config_use(cfg, m->backend, ns, msg, SCALER_MSG_MAX)) {
	case CONFIG_USE_OK:
		rc = SCALER_OK;
		break;
	case CONFIG_USE_DENIED:
		rc = SCALER_EDENIED;
		break;
	case CONFIG_USE_UNDECLARED:
		break;
	}
	config_drop(cfg);
	return rc;
}

/* Decimal digits of v at p (no NUL); their count. */
static size_t put_size(char *p, size_t v)
{
	char d[24];
	size_t n = 0, i;

	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		p[i] = d[n - 1 - i];
	return n;
}

/*
 * The state key of a trigger, "<len(ns)>:ns/name/fp", or without a
 * fingerprint "<len(ns)>:ns/name/m:metric": unambiguous whatever the
 * namespace and name hold (the namespace's length comes first, the
 * fingerprint is of fixed length).  Into e->keybuf when it fits, else
 * malloc()ed; e->key is set only on success.  0, or -1 when out of
 * memory.  Built with memcpy(): it is on the path of every call.
 */
static int scaler_key(struct eval *e, const char *ns, const char *name,
		      const char *fp, const char *metric)
{
	size_t lns = strlen(ns), lname = strlen(name), lfp = strlen(fp);
	size_t lm = lfp ? 0 : strlen(metric);
	size_t len = 24 + lns + lname + lfp + lm + 5;
	char *k = len <= sizeof(e->keybuf) ? e->keybuf : malloc(len);
	char *p = k;

	if (!k)
		return -1;
	p += put_size(p, lns);
	*p++ = ':';
	memcpy(p, ns, lns);
	p += lns;
	*p++ = '/';
	memcpy(p, name, lname);
	p += lname;
	*p++ = '/';
	memcpy(p, fp, lfp);
	p += lfp;
	if (!lfp) {
		memcpy(p, "m:", 2);
		memcpy(p + 2, metric, lm);
		p += 2 + lm;
	}
	*p = '\0';
	e->key = k;
	return 0;
}

/* What logs and messages call the trigger, "ns/name/metricName", into
 * e->ref: the names printable and bounded (show.h). */
static void eval_ref(struct eval *e)
{
	char *p = e->ref;
	size_t lm = strlen(e->m->metric_name);

	show_text(p, SCALER_SHOW_MAX, e->ns, strlen(e->ns));
	p += strlen(p);
	*p++ = '/';
	show_text(p, SCALER_SHOW_MAX, e->name, strlen(e->name));
	p += strlen(p);
	*p++ = '/';
	memcpy(p, e->m->metric_name, lm + 1);
}

/* ---- one evaluation ------------------------------------------------------------- */

/* Free what any evaluation allocated for itself (not e itself). */
static void eval_release(struct eval *e)
{
	free(e->miss);
	free(e->surge_block);
	if (e->key != e->keybuf)
		free(e->key);
}

/* Free a heap evaluation (eval_new()). */
static void eval_free(struct eval *e)
{
	eval_release(e);
	if (e->own) {
		meta_release(e->own);
		free(e->own);
	}
	config_drop(e->cfg);
	free(e->names);
	free(e);
}

static const struct fetch_answer *answer(const struct eval *e,
					 const struct fetch_answer *a, int sig)
{
	return e->slot[sig] < 0 ? NULL : &a[e->slot[sig]];
}

/*
 * How far the time of answer x's data is from when it was fetched (s, +:
 * in the future), given the wall clock now: its sample's time for an
 * instant query, its newest point's for a range.  0 for an error.
 */
static double answer_skew(const struct fetch_answer *x, double now)
{
	double at = now - x->age_s, t;

	if (x->err != PROM_OK)
		return 0;
	if (x->series)
		return series_last(x->series, &t) ? t - at : 0;
	if (x->vals)
		return x->n ? x->ts[x->n - 1] - at : 0;
	return x->sample_ts - at;
}

/* Data further than this from its fetch time is old or future data, which
 * is missing data (docs/metadata.md, staleHoldSeconds). */
static double skew_max(const struct eval *e)
{
	return e->m->stale_hold_s > SCALER_SKEW_MIN_S ? e->m->stale_hold_s :
	       SCALER_SKEW_MIN_S;
}

/* A range's newest point may be up to a step (slack) behind its end. */
static int answer_fresh(const struct eval *e, const struct fetch_answer *x,
			double now, double slack)
{
	double skew = answer_skew(x, now);

	return skew <= skew_max(e) && -skew <= skew_max(e) + slack;
}

/*
 * Read one instant signal.  Unknown is an error, never zero; several
 * series is the user's mistake (INVALID_ARGUMENT); a negative value is
 * clamped to 0 and logged; a sample far from now is unknown.  A signal
 * without a query is 0.
 */
static int read_signal(const struct eval *e, const struct fetch_answer *a,
		       int sig, double *out, struct scaler_result *r,
		       double now)
{
	const struct fetch_answer *x = answer(e, a, sig);
	double skew;

	if (!x) {
		*out = 0.0;
		return 0;
	}
	skew = answer_skew(x, now);
	if (fabs(skew) > skew_max(e)) {
		r->err = SCALER_EUNAVAIL;
		snprintf(r->msg, sizeof(r->msg), "%s: the sample's time is "
			 "%.0fs %s staffer's clock, more than %gs "
			 "(staleHoldSeconds, at least %d): old or future data "
			 "is missing data (backend '%s')", sig_keys[sig],
			 fabs(skew), skew > 0 ? "ahead of" : "behind",
			 skew_max(e), SCALER_SKEW_MIN_S, e->be->name);
		return -1;
	}
	if (x->err != PROM_OK) {
		/* Several series or a query the backend rejects as bad_data
		 * are the ScaledObject's mistake; the rest is an outage. */
		r->err = x->err == PROM_EMULTI || x->err == PROM_EQUERY ?
			 SCALER_EINVAL : SCALER_EUNAVAIL;
		snprintf(r->msg, sizeof(r->msg), "%s: %s (backend '%s')",
			 sig_keys[sig], x->msg, e->be->name);
		return -1;
	}
	*out = x->value;
	if (*out < 0) {
		log_eval(LOG_WARN, e, "%s: %s returned %g; clamped to 0", e->ref,
			 sig_keys[sig], *out);
		*out = 0.0;
	}
	return 0;
}

/* 1 when a range answer's points are step_s apart, give or take a
 * quarter step: no gaps. */
static int range_even(const struct fetch_answer *x, double step_s)
{
	size_t i;

	for (i = 1; i < x->n; i++)
		if (fabs(x->ts[i] - x->ts[i - 1] - step_s) > step_s / 4)
			return 0;
	return 1;
}

/* The highest value of a range answer, or -1 if unknown. */
static double range_max(const struct fetch_answer *x)
{
	double m = -1;
	size_t i;

	if (!x || x->err != PROM_OK)
		return -1;
	for (i = 0; i < x->n; i++)
		if (x->vals[i] > m)
			m = x->vals[i];
	return m;
}

/*
 * The fetched answers as decide_observations() takes them: W as measured
 * (the policy of falling back is decide's), the forecast series when it is
 * evenly spaced (Holt needs that; a gap means no forecast), and the
 * currentReplicasQuery view when it answered.  Lambda, Q and S are in g.
 */
/*
 * slaMissQuery's points on the series' grid, in e->miss: Prometheus
 * leaves out the NaN points of a share with no requests (0 / 0), so the
 * grid ends with the arrival series' last point (or the miss series' own)
 * and a point without a sample is NaN (feedback.h: no miss share).  An
 * answer without points (no requests over the whole range) is all NaN.
 * Returns the points on the grid.
 */
static size_t miss_points(const struct meta *m, double size_cold_s)
{
	double range, step;
	size_t n;

	decide_series_query_cold(m, size_cold_s, &range, &step);
	n = (size_t)floor(range / step + 1e-9) + 1;
	return n > DECIDE_SERIES_MAX ? DECIDE_SERIES_MAX : n;
}

static size_t miss_grid(const struct eval *e, const struct fetch_answer *x,
			const struct fetch_answer *series, double now)
{
	double step = e->series_step_s, end, k;
	size_t n = e->n_miss, i, j;

	for (i = 0; i < n; i++)
		e->miss[i] = NAN;
	if (!x || x->err != PROM_OK || x->n == 0 ||
	    !answer_fresh(e, x, now, step))
		return n;
	end = series && series->n > 0 ? series->ts[series->n - 1]
				      : x->ts[x->n - 1];
	for (j = 0; j < x->n; j++) {
		k = floor((end - x->ts[j]) / step + 0.5);
		if (k >= 0 && k < (double)n && fabs(end - x->ts[j] - k * step) <
		    step / 4)
			e->miss[n - 1 - (size_t)k] = x->vals[j];
	}
	return n;
}

/*
 * slaMissQuery's range or coldStartQuery (sig) failed in a way that says
 * nothing about the signal (the backend is down, the query is wrong): the
 * correction or the cold start is unknown, and an unknown signal never
 * lowers the answer nor is quietly dropped, so the evaluation fails like
 * any other signal's (the last good answer is held).  No series and NaN
 * are answers the decision reads: no requests (no correction), no pods
 * (coldStartSeconds).  1 when failed.
 */
static int optional_failed(const struct eval *e, const struct fetch_answer *a,
			   int sig, struct scaler_result *r)
{
	const struct fetch_answer *x = answer(e, a, sig);

	if (!x || x->err == PROM_OK || x->err == PROM_EEMPTY ||
	    x->err == PROM_ENAN)
		return 0;
	r->err = x->err == PROM_EMULTI || x->err == PROM_EQUERY ?
		 SCALER_EINVAL : SCALER_EUNAVAIL;
	snprintf(r->msg, sizeof(r->msg), "%s: %s (backend '%s')",
		 sig_keys[sig], x->msg, e->be->name);
	return 1;
}

/* A pool's optional instant signal sig: its value when it answered
 * with a fresh finite value of at least lo (lo 0: 0 allowed; above 0:
 * strictly above it), else -1 (unknown, or not asked). */
static double pool_value(const struct eval *e, const struct fetch_answer *a,
			 int sig, double lo, double now)
{
	const struct fetch_answer *x = answer(e, a, sig);

	if (!x || x->err != PROM_OK || !isfinite(x->value) ||
	    !answer_fresh(e, x, now, 0) ||
	    (lo > 0 ? !(x->value > lo) : !(x->value >= lo)))
		return -1;
	return x->value;
}

/* decide_obs.surge_points for a surge range handed out as kept
 * (fetch.h): its points expanded into the evaluation's own block, once
 * (the memo answers most calls without them). */
static const double *surge_points(void *arg)
{
	struct eval *e = arg;
	const struct series *r = e->surge_kept;

	if (!e->surge_block) {
		e->surge_block = malloc(2 * (size_t)r->points *
					sizeof(*e->surge_block));
		if (!e->surge_block) {
			log_eval(LOG_WARN, e, "%s: out of memory; no surge "
				 "headroom", e->ref);
			return NULL;
		}
		series_points(r, e->surge_block, e->surge_block + r->points);
	}
	return e->surge_block + r->points;
}

static void read_observations(struct eval *e,
			      const struct fetch_answer *a,
			      const struct state *st,
			      const struct model_signals *g,
			      struct decide_obs *o, double now)
{
	const struct fetch_answer *x, *xr;

	memset(o, 0, sizeof(*o));
	/* a pool's measured KV and capacities (its token rates are read as
	 * required signals, eval_finish()) */
	o->pool.kv_used = pool_value(e, a, SIG_KV_USED, 0, now);
	o->pool.prefill_capacity = pool_value(e, a, SIG_PREFILL_CAP, 1e-300,
					      now);
	o->pool.kv_capacity = pool_value(e, a, SIG_KV_CAP, 1e-300, now);
	o->arrival_rate = g->arrival_rate;
	o->queue_depth = g->queue_depth;
	o->shed_rate = g->shed_rate;
	o->w_last = st ? st->good_w : 0;
	x = answer(e, a, SIG_SERVICE);
	if (x && x->err == PROM_OK && isfinite(x->value) && x->value > 0 &&
	    answer_fresh(e, x, now, 0))
		o->w_measured = x->value;
	else if (x)
		log_eval(LOG_DEBUG, e, "%s: serviceTimeQuery: %s; W falls back", e->ref,
			  x->err ? x->msg : x->value > 0 ? "old or future "
			  "data" : "no positive value");

	x = answer(e, a, SIG_COLD);
	if (x) {
		/* No pods (empty), NaN or old data: coldStartSeconds. */
		o->have_cold = 1;
		o->cold_measured = x->err == PROM_OK &&
				   answer_fresh(e, x, now, 0) ? x->value : NAN;
	}

	x = answer(e, a, SIG_SERIES);
	if (x && x->err == PROM_OK &&
	    !answer_fresh(e, x, now, e->series_step_s)) {
		log_eval(LOG_DEBUG, e, "%s: arrivalRateQuery (range): old or future data; "
			  "no forecast, hold or peakedness", e->ref);
	} else if (x && x->err == PROM_OK) {
		if (range_even(x, e->series_step_s)) {
			o->series = x->vals;
			o->n_series = x->n;
			o->series_step_s = e->series_step_s;
			o->series_version = x->version;
		} else {
			log_eval(LOG_DEBUG, e, "%s: arrivalRateQuery (range): gaps in "
				  "the series; no forecast, hold or "
				  "peakedness", e->ref);
		}
	} else if (x) {
		log_eval(LOG_DEBUG, e, "%s: arrivalRateQuery (range): %s; no forecast, "
			  "hold or peakedness", e->ref, x->msg);
	}

	/* on the series' grid, read with it (decide.h) */
	x = answer(e, a, SIG_TOKENS);
	if (x && o->n_series > 0 && x->err == PROM_OK &&
	    answer_fresh(e, x, now, e->series_step_s) &&
	    range_even(x, e->series_step_s)) {
		o->tokens = x->vals;
		o->n_tokens = x->n;
	} else if (x) {
		log_eval(LOG_DEBUG, e, "%s: inputTokenRateQuery (range): %s; "
			 "the TTFT target takes the arrivals' peakedness",
			 e->ref, x->err ? x->msg : o->n_series == 0 ?
			 "no arrival series to read it with" :
			 "old or future data, or gaps in the series");
	}

	x = answer(e, a, SIG_SURGE);
	if (x && x->err == PROM_OK &&
	    answer_fresh(e, x, now, e->surge_step_s) &&
	    (x->series ? series_even(x->series, e->surge_step_s) :
			 range_even(x, e->surge_step_s))) {
		o->surge = x->vals;
		o->n_surge = x->n;
		o->surge_step_s = e->surge_step_s;
		o->surge_version = x->version;
		if (x->series) {     /* read only if the memo cannot */
			e->surge_kept = x->series;
			o->surge_points = surge_points;
			o->surge_arg = e;
		}
	} else if (x) {
		log_eval(LOG_DEBUG, e, "%s: arrivalRateQuery (surge range): "
			 "%s; no surge headroom", e->ref, x->err ? x->msg :
			 "old or future data, or gaps in the series");
	}

	if (e->miss) {
		o->miss = e->miss;
		o->n_miss = miss_grid(e, answer(e, a, SIG_MISS),
				      o->n_series > 0 ? answer(e, a, SIG_SERIES)
						      : NULL, now);
		if (!(o->series_step_s > 0))
			o->series_step_s = e->series_step_s;
	}

	x = answer(e, a, SIG_CURRENT);
	xr = answer(e, a, SIG_CURRENT_RECENT);
	if (x && x->err == PROM_OK && isfinite(x->value) && x->value >= 0 &&
	    x->value <= (double)MODEL_REPLICAS_MAX && answer_fresh(e, x, now, 0)) {
		/* its step is at most 15 s (scaler_evaluate()) */
		double recent = xr && answer_fresh(e, xr, now, 15) ?
				range_max(xr) : -1;

		o->have_view = 1;
		o->current = (int64_t)llround(x->value);
		o->recent_max = recent > x->value &&
				recent <= (double)MODEL_REPLICAS_MAX ?
				(int64_t)llround(recent) : o->current;
	} else if (x) {
		log_eval(LOG_DEBUG, e, "%s: currentReplicasQuery: %s; smoothing from memory",
			  e->ref, x->err ? x->msg : answer_fresh(e, x, now, 0) ?
			  "not a replica count" : "old or future data");
	}
}


/*
 * Which optional signal of the decision is unknown now (NULL: none), with
 * why in why[len].  Unknown is no usable value where one is expected:
 *  - slaMissQuery's range while there is demand: no point with a share
 *    from 0 to 1 (no series, NaN or +-Inf at every point, old or future
 *    data);
 *  - coldStartQuery: no value in (0, META_COLD_START_MAX] (no series, NaN,
 *    +-Inf, old or future data, out of range);
 *  - arrivalRateQuery's range (forecast, hold, peakedness), its surge
 *    range (surge headroom) and a prefill pool's inputTokenRateQuery
 *    range (the tokens' peakedness; unknown too without the arrivals'
 *    range): failed, no series, NaN or +-Inf at every point, old or
 *    future data, gaps;
 *  - currentReplicasQuery's recent range while its instant answered:
 *    failed, no series, NaN or +-Inf, old or future data.
 * A failing slaMissQuery or coldStartQuery does not get here: it fails the
 * evaluation as a required signal does (optional_failed()).
 */
static const char *optional_unknown(const struct eval *e,
				    const struct fetch_answer *a,
				    const struct decide_obs *o, double now,
				    char *why, size_t len)
{
	const struct fetch_answer *x;
	int demand = o->arrival_rate > 0 || o->queue_depth > 0 ||
		     o->shed_rate > 0;
	size_t i;

	x = answer(e, a, SIG_MISS);
	if (x && o->miss && demand) {
		for (i = 0; i < o->n_miss; i++)
			if (o->miss[i] >= 0 && o->miss[i] <= 1)
				break;
		if (i >= o->n_miss) {
			snprintf(why, len, "%s", x->err ? x->msg :
				 !answer_fresh(e, x, now, e->series_step_s) ?
				 "old or future data" :
				 "no point with a share from 0 to 1");
			return sig_keys[SIG_MISS];
		}
	}
	x = answer(e, a, SIG_COLD);
	if (x && !decide_cold_usable(o->cold_measured)) {
		if (x->err)
			snprintf(why, len, "%s", x->msg);
		else if (!answer_fresh(e, x, now, 0))
			snprintf(why, len, "old or future data");
		else
			snprintf(why, len, "%g s is not a cold start from 0 "
				 "to %g s", x->value, META_COLD_START_MAX);
		return sig_keys[SIG_COLD];
	}
	x = answer(e, a, SIG_SERIES);
	if (x && o->n_series == 0) {
		snprintf(why, len, "%s", x->err ? x->msg :
			 !answer_fresh(e, x, now, e->series_step_s) ?
			 "old or future data" : "gaps in the series");
		return sig_keys[SIG_SERIES];
	}
	x = answer(e, a, SIG_TOKENS);
	if (x && o->n_tokens == 0) {
		snprintf(why, len, "%s", x->err ? x->msg :
			 !answer_fresh(e, x, now, e->series_step_s) ?
			 "old or future data" : "gaps in the series");
		return sig_keys[SIG_TOKENS];
	}
	x = answer(e, a, SIG_SURGE);
	if (x && o->n_surge == 0) {
		snprintf(why, len, "%s", x->err ? x->msg :
			 !answer_fresh(e, x, now, e->surge_step_s) ?
			 "old or future data" : "gaps in the series");
		return sig_keys[SIG_SURGE];
	}
	/* A pool's measured KV in use and capacities: a query that has no
	 * usable value now falls back to the rates or the metadata. */
	{
		static const int pool_sigs[] = { SIG_KV_USED, SIG_PREFILL_CAP,
						 SIG_KV_CAP };
		const double got[] = { o->pool.kv_used,
				       o->pool.prefill_capacity,
				       o->pool.kv_capacity };

		for (i = 0; i < sizeof(pool_sigs) / sizeof(pool_sigs[0]); i++) {
			x = answer(e, a, pool_sigs[i]);
			if (!x || got[i] >= 0)
				continue;
			snprintf(why, len, "%s", x->err ? x->msg :
				 !answer_fresh(e, x, now, 0) ?
				 "old or future data" :
				 pool_sigs[i] == SIG_KV_USED ?
				 "no value of 0 or more" :
				 "no value above 0");
			return sig_keys[pool_sigs[i]];
		}
	}
	x = answer(e, a, SIG_CURRENT_RECENT);
	if (x && o->have_view &&
	    (x->err || !answer_fresh(e, x, now, RECENT_STEP_MAX_S) ||
	     range_max(x) < 0)) {
		snprintf(why, len, "%s", x->err ? x->msg :
			 range_max(x) < 0 ? "no value" : "old or future data");
		return sig_keys[SIG_CURRENT_RECENT];
	}
	return NULL;
}

/*
 * Unknown data never lowers the answer (docs/metadata.md,
 * staleHoldSeconds): while an optional signal is unknown (unknown, why),
 * the answer is at least the last one made with every signal known, for
 * staleHoldSeconds from then; after that the signal's documented fallback
 * alone decides.  Known signals may still raise it.  When the floor
 * raises r->target, st's smoothing is set back to sm0 (its state before
 * this decision, which did not happen) and then to the answer given.
 * With every signal known the answer becomes the new floor.
 */
static void opt_floor(const struct eval *e, struct state *st,
		      const struct smooth *sm0, const char *unknown,
		      const char *why, double now, struct scaler_result *r)
{
	int64_t floor;

	if (!st)
		return;
	if (!unknown) {
		st->have_opt = 1;
		st->opt_target = r->target;
		st->opt_at = now;
		return;
	}
	if (!st->have_opt || now - st->opt_at > e->m->stale_hold_s) {
		log_debug("%s: %s unknown (%s); answering with its fallback "
			  "(no answer with it known within staleHoldSeconds "
			  "%g)", e->ref, unknown, why, e->m->stale_hold_s);
		return;
	}
	floor = st->opt_target;
	/* maxReplicas may have been lowered since */
	if (e->m->model.max_replicas > 0 && floor > e->m->model.max_replicas)
		floor = e->m->model.max_replicas;
	if (r->target >= floor)
		return;
	log_warn("%s: %s unknown (%s); answering at least %lld, the last "
		 "answer with every signal known, from %.0fs ago, instead of "
		 "%lld (staleHoldSeconds %g)", e->ref, unknown, why,
		 (long long)floor, now - st->opt_at, (long long)r->target,
		 e->m->stale_hold_s);
	r->target = floor;
	r->floored = 1;
	st->sm = *sm0;
	smooth_seed(&st->sm, r->target, now);
}

/*
 * One line per decision: at info when the answer (raw or target) changed
 * since the last line of this trigger, else at debug, so that a steady
 * fleet costs no log volume (every call is there at debug).
 */
static void log_decision(const struct eval *e, struct state *st,
			 const struct scaler_result *r,
			 const struct decision *d, int observed,
			 const char *unknown)
{
	enum log_level lvl = LOG_INFO;
	struct declog dl;

	if (st) {
		if (st->logged && st->logged_raw == d->raw &&
		    st->logged_target == r->target)
			lvl = LOG_DEBUG;
		st->logged = 1;
		st->logged_raw = d->raw;
		st->logged_target = r->target;
	}
	if (lvl < log__level)
		return;
	/* every term, from one table for text and JSON (declog.c) */
	declog_build(&dl, r, e->ref, e->be ? e->be->name : NULL, observed,
		     unknown);
	if (dl.n < LOG_FIELDS_MAX)
		dl.f[dl.n++] = (struct log_field)LOG_F_STR("method",
			e->kind == SCALER_METRICS ? "GetMetrics" : "IsActive");
	log_fields_at(lvl, dl.f, dl.n, "%s", dl.text);
}

/* Unknown data: hold the last good answer for staleHoldSeconds.  The
 * target and the activity are held separately: KEDA may ask IsActive of a
 * ScaledObject at zero replicas long before (or without) any GetMetrics. */
static void hold_or_fail(const struct eval *e, struct state *st, double now,
			 struct scaler_result *r)
{
	int active = e->kind == SCALER_ACTIVE;
	int have = st && (active ? st->have_active : st->have_good);
	double at = !st ? 0 : active ? st->active_at : st->good_at;

	if (r->err != SCALER_EUNAVAIL || !have)
		return;
	if (now - at <= e->m->stale_hold_s) {
		if (active)
			log_eval(LOG_WARN, e, "%s: %s; holding the last activity %s from "
				 "%.0fs ago (staleHoldSeconds %g)", e->ref,
				 r->msg, st->good_active ? "true" : "false",
				 now - at, e->m->stale_hold_s);
		else
			log_eval(LOG_WARN, e, "%s: %s; holding the last target %lld from "
				 "%.0fs ago (staleHoldSeconds %g)", e->ref,
				 r->msg, (long long)st->good_target, now - at,
				 e->m->stale_hold_s);
		r->err = SCALER_OK;
		r->msg[0] = '\0';
		r->target = st->good_target;
		r->active = st->good_active;
		r->held = 1;
		return;
	}
	{
		size_t len = strlen(r->msg);

		snprintf(r->msg + len, sizeof(r->msg) - len,
			 "; last good data %.0fs ago, beyond staleHoldSeconds "
			 "%g", now - at, e->m->stale_hold_s);
	}
}

/* Remember an activity computed from known signals. */
static void note_active(struct scaler *s, struct state *st, int active,
			double now)
{
	if (!st)
		return;
	st->good_active = active;
	st->have_active = 1;
	st->active_at = now;
	s->dirty = 1;
}

/*
 * Finish evaluation e with its answers a: on the fetch thread, or on the
 * caller's thread when every answer was cached (scaler_evaluate_now()).
 * No lock held on entry; the states are used under s->mu, the callback
 * runs after it is released.  The state file is the saver's (scaler_save()).
 * e stays the caller's to release.
 */
static void eval_finish(struct eval *e, const struct fetch_answer *a,
			size_t n)
{
	struct scaler *s = e->s;
	struct scaler_result r;
	struct model_signals *g = &r.sig;
	struct decision d;
	struct decide_obs o;
	struct state *st;
	struct smooth sm0;
	const struct fetch_answer *x;
	enum model_err merr = MODEL_OK;
	double now = wall_now(), tokens_in = 0, tokens_out = 0;
	const char *unknown;
	char why[PROM_ERR_MAX];
	size_t i;

	memset(&r, 0, sizeof(r));
	memset(&sm0, 0, sizeof(sm0));
	memcpy(r.metric_name, e->m->metric_name, sizeof(r.metric_name));
	for (i = 0; i < e->n_reads && i < n; i++)
		e->reads[i].answer = &a[i];
	r.meta = e->m;
	r.ns = e->ns;
	r.name = e->name;
	r.window = e->window;
	r.reads = e->reads;
	r.n_reads = e->n_reads < n ? e->n_reads : n;
	pthread_mutex_lock(&s->mu);
	states_sweep(s, now);
	st = state_for(s, e, now);
	if (!st)
		log_eval(LOG_WARN, e, "%s: out of memory; answering without smoothing or "
			 "hold", e->ref);
	else
		st->last_seen = now;

	if (read_signal(e, a, SIG_ARRIVAL, &g->arrival_rate, &r, now) ||
	    read_signal(e, a, SIG_QUEUE, &g->queue_depth, &r, now) ||
	    read_signal(e, a, SIG_SHED, &g->shed_rate, &r, now))
		goto done;
	if (optional_failed(e, a, SIG_MISS, &r) ||
	    optional_failed(e, a, SIG_COLD, &r))
		goto done;
	if (e->kind == SCALER_ACTIVE) {
		/* Activity needs lambda, Q and S only: an unknown service
		 * time must not keep a model at zero replicas. */
		r.active = model_is_active(&e->m->model, g);
		note_active(s, st, r.active, now);
		goto done;
	}
	/* A pool's token rates are required as lambda is; its KV in use
	 * and capacities are optional (optional_unknown()). */
	if (read_signal(e, a, SIG_INPUT, &tokens_in, &r, now) ||
	    read_signal(e, a, SIG_OUTPUT, &tokens_out, &r, now) ||
	    optional_failed(e, a, SIG_KV_USED, &r) ||
	    optional_failed(e, a, SIG_PREFILL_CAP, &r) ||
	    optional_failed(e, a, SIG_KV_CAP, &r))
		goto done;
	read_observations(e, a, st, g, &o, now);
	o.size_cold_s = e->size_cold_s;
	o.memo = st ? &st->memo : NULL;
	if (st && o.have_cold && decide_cold_usable(o.cold_measured))
		st->cold_seen = o.cold_measured;
	o.pool.input_rate = tokens_in;
	o.pool.output_rate = tokens_out;
	if (e->m->pool.kind == POOL_PREFILL &&
	    !(o.pool.prefill_capacity > 0) &&
	    !(e->m->pool.prefill_tokens_per_s > 0)) {
		x = answer(e, a, SIG_PREFILL_CAP);
		r.err = SCALER_EUNAVAIL;
		snprintf(r.msg, sizeof(r.msg), "prefillCapacityQuery: %s and "
			 "no prefillTokensPerSecond fallback; the prefill "
			 "capacity is unknown", x && x->err ? x->msg :
			 "no value above 0");
		goto done;
	}
	if (st)
		sm0 = st->sm;
	switch (decide_observations(e->m, &o, now,
				    st ? &st->sm : NULL, g, &d, &merr)) {
	case DECIDE_OK:
		break;
	case DECIDE_ENOW:
		r.err = SCALER_EUNAVAIL;
		if (e->m->pool.kind == POOL_PREFILL ||
		    (e->m->pool.kind == POOL_DECODE &&
		     e->m->pool.itl_target_s > 0)) {
			snprintf(r.msg, sizeof(r.msg), "%s: no %s tokens a "
				 "request while there is demand (lambda %g "
				 "req/s, %g tokens/s), no earlier W and no "
				 "serviceTime fallback; the service time is "
				 "unknown", e->m->pool.kind == POOL_PREFILL ?
				 "inputTokenRateQuery" : "outputTokenRateQuery",
				 e->m->pool.kind == POOL_PREFILL ? "input" :
				 "output", g->arrival_rate,
				 e->m->pool.kind == POOL_PREFILL ? tokens_in :
				 tokens_out);
			goto done;
		}
		snprintf(r.msg, sizeof(r.msg), "serviceTimeQuery: %s while "
			 "there is demand, no earlier value and no serviceTime "
			 "fallback; the service time is unknown",
			 e->slot[SIG_SERVICE] < 0 ? "not given" :
			 a[e->slot[SIG_SERVICE]].err ?
			 a[e->slot[SIG_SERVICE]].msg : "no positive value");
		goto done;
	case DECIDE_EMODEL:
		r.err = SCALER_EUNAVAIL;
		snprintf(r.msg, sizeof(r.msg), "cannot staff these signals "
			 "(lambda=%g W=%g Q=%g S=%g): %s", g->arrival_rate,
			 g->service_time_s, g->queue_depth, g->shed_rate,
			 model_strerror(merr));
		goto done;
	}
	r.b = d.b;
	r.active = d.b.active;
	r.target = d.target;
	r.obs = &o;
	r.d = &d;
	unknown = optional_unknown(e, a, &o, now, why, sizeof(why));
	opt_floor(e, st, &sm0, unknown, why, now, &r);
	if (st) {
		if (d.have_pool && d.pool.service_from_tokens)
			st->good_w = d.pool.service_s;
		else if (o.w_measured > 0)
			st->good_w = o.w_measured;
		st->good_target = r.target;
		st->good_at = now;
		st->have_good = 1;
		note_active(s, st, r.active, now);
	}
	log_decision(e, st, &r, &d, o.have_view, unknown);
done:
	hold_or_fail(e, st, now, &r);
	pthread_mutex_unlock(&s->mu);
	if (r.err != SCALER_OK && LOG_WARN >= log__level) {
		struct log_field f[6];
		size_t k = eval_who(e, f);

		/* the status rpc.c answers (its scaler_status()) */
		f[k++] = (struct log_field)LOG_F_STR("code",
			r.err == SCALER_EINVAL ? "INVALID_ARGUMENT" :
			r.err == SCALER_EDENIED ? "PERMISSION_DENIED" :
			"UNAVAILABLE");
		log_write_fields(LOG_WARN, f, k, "%s: %s", e->ref, r.msg);
	}
	e->cb(e->arg, &r);
}

static void on_answers(void *arg, const struct fetch_answer *a, size_t n)
{
	eval_finish(arg, a, n);
	eval_free(arg);
}

/*
 * Set up e to evaluate m (borrowed) for ns/name: the window in force at t,
 * the state key, the name shown, and the queries into q (their number in
 * *nq).  Every field of e is set; e's names and cfg are borrowed (a heap
 * evaluation replaces them, eval_new()).  0; -1 when out of memory or m's
 * backend is not in the config (e then still needs eval_release()).
 */
static int eval_setup(struct eval *e, struct scaler *s, struct config *cfg,
		      const char *caller, const char *ns, const char *name,
		      const char *fprint, const struct meta *m,
		      enum scaler_kind kind, scaler_done_fn *cb, void *arg,
		      time_t t, struct fetch_query q[SIG_N], size_t *nq)
{
	size_t n = 0;
	int i;

	e->s = s;
	e->cfg = cfg;
	e->be = config_backend(cfg, m->backend);
	e->base = m;
	e->own = NULL;
	e->names = NULL;
	e->kind = kind;
	e->caller = caller;
	e->ns = ns;
	e->name = name;
	e->key = NULL;
	e->lim.max = cfg->max_states;
	e->lim.max_owner = cfg->max_states_caller;
	e->lim.max_ns = cfg->max_states_ns;
	e->n_reads = 0;
	e->series_step_s = 0;
	e->surge_step_s = 0;
	e->miss = NULL;
	e->surge_kept = NULL;
	e->surge_block = NULL;
	e->n_miss = 0;
	e->cb = cb;
	e->arg = arg;
	/* The schedule window in force now tunes this evaluation, before the
	 * queries are built (a window may change forecastWindowSeconds).
	 * Without a schedule no window applies and m is used as it is. */
	if (m->sched.n) {
		e->window = meta_at(m, t, &e->win);
		e->m = &e->win;
	} else {
		e->window = NULL;
		e->m = m;
	}
	eval_ref(e);
	if (scaler_key(e, ns, name, fprint ? fprint : "", e->m->metric_name) ||
	    !e->be)
		return -1;
	e->size_cold_s = eval_size_cold(e);

	for (i = 0; i < SIG_N; i++) {
		const char *query = NULL;
		double range = 0, step = 0;

		switch (i) {
		case SIG_ARRIVAL:
			query = e->m->arrival_rate_query;
			break;
		case SIG_SERVICE:
			/* Activity does not need W. */
			query = kind == SCALER_METRICS ?
				e->m->service_time_query : NULL;
			break;
		case SIG_QUEUE:
			query = e->m->queue_depth_query;
			break;
		case SIG_SHED:
			query = e->m->shed_rate_query;
			break;
		case SIG_CURRENT:
			query = kind == SCALER_METRICS ?
				e->m->current_replicas_query : NULL;
			break;
		case SIG_CURRENT_RECENT:
			if (kind != SCALER_METRICS ||
			    !e->m->current_replicas_query ||
			    e->m->scale_down_period_s < 1)
				break;
			query = e->m->current_replicas_query;
			range = e->m->scale_down_period_s;
			step = range / RECENT_POINTS;
			step = step < 1 ? 1 : step > RECENT_STEP_MAX_S ?
			       RECENT_STEP_MAX_S : step;
			break;
		case SIG_COLD:
			query = kind == SCALER_METRICS ?
				e->m->cold_start_query : NULL;
			break;
		case SIG_SURGE:
			if (kind != SCALER_METRICS)
				break;
			decide_surge_query_cold(e->m, e->size_cold_s, &range,
						&step);
			if (!(range > 0))
				break;
			query = e->m->arrival_rate_query;
			e->surge_step_s = step;
			break;
		case SIG_INPUT:
			query = kind == SCALER_METRICS ?
				e->m->input_token_rate_query : NULL;
			break;
		case SIG_OUTPUT:
			query = kind == SCALER_METRICS ?
				e->m->output_token_rate_query : NULL;
			break;
		case SIG_KV_USED:
			query = kind == SCALER_METRICS ?
				e->m->kv_cache_usage_query : NULL;
			break;
		case SIG_PREFILL_CAP:
			query = kind == SCALER_METRICS ?
				e->m->prefill_capacity_query : NULL;
			break;
		case SIG_KV_CAP:
			query = kind == SCALER_METRICS ?
				e->m->kv_cache_tokens_query : NULL;
			break;
		case SIG_TOKENS:
			if (kind != SCALER_METRICS)
				break;
			decide_token_query_cold(e->m, e->size_cold_s, &range,
						&step);
			if (!(range > 0))
				break;
			query = e->m->input_token_rate_query;
			break;
		case SIG_SERIES:
		case SIG_MISS:
			if (kind != SCALER_METRICS)
				break;
			decide_series_query_cold(e->m, e->size_cold_s, &range,
						 &step);
			if (!(range > 0))
				break;
			query = i == SIG_SERIES ? e->m->arrival_rate_query :
						  e->m->sla_miss_query;
			e->series_step_s = step;
			break;
		}
		e->slot[i] = -1;
		if (!query)
			continue;
		memset(&q[n], 0, sizeof(q[n]));
		q[n].backend = e->be;
		q[n].cfg = e->cfg;
		q[n].query = query;
		q[n].range_s = range;
		q[n].step_s = step;
		q[n].kept_points = i == SIG_SURGE;
		e->reads[n].key = sig_keys[i];
		e->reads[n].query = query;
		e->reads[n].range_s = range;
		e->reads[n].step_s = step;
		e->reads[n].answer = NULL;
		e->slot[i] = (int)n++;
	}
	e->n_reads = n;
	*nq = n;
	if (e->slot[SIG_MISS] >= 0) {
		e->n_miss = miss_points(e->m, e->size_cold_s);
		e->miss = malloc(e->n_miss * sizeof(*e->miss));
		if (!e->miss)
			return -1;
	}
	return 0;
}

/*
 * A heap evaluation of m for ns/name (eval_setup()), owning copies of m
 * and the names and holding the config, so that it may finish on the
 * fetch thread after the caller's have gone.  NULL when out of memory or
 * m's backend is not in the config.
 */
static struct eval *eval_new(struct scaler *s, struct config *cfg,
			     const char *caller, const char *ns,
			     const char *name,
			     const char *fprint, const struct meta *m,
			     enum scaler_kind kind, scaler_done_fn *cb,
			     void *arg, time_t t, struct fetch_query q[SIG_N],
			     size_t *nq)
{
	size_t lc = strlen(caller), lns = strlen(ns), lname = strlen(name);
	struct meta *own = malloc(sizeof(*own));
	char *names = malloc(lc + lns + lname + 3);
	struct eval *e = malloc(sizeof(*e));

	if (!own || !names || !e || meta_copy(own, m)) {
		free(own);
		free(names);
		free(e);
		return NULL;
	}
	memcpy(names, caller, lc + 1);
	memcpy(names + lc + 1, ns, lns + 1);
	memcpy(names + lc + lns + 2, name, lname + 1);
	if (eval_setup(e, s, cfg, names, names + lc + 1,
		       names + lc + lns + 2, fprint, own, kind, cb, arg, t, q,
		       nq)) {
		eval_release(e);
		meta_release(own);
		free(own);
		free(names);
		free(e);
		return NULL;
	}
	e->own = own;
	e->names = names;
	e->cfg = config_hold(cfg);
	return e;
}

static int evaluate(struct scaler *s, const char *caller, const char *ns,
		    const char *name, const char *fprint,
		    const struct meta *m, enum scaler_kind kind,
		    scaler_done_fn *cb, void *arg, int now_ok)
{
	struct fetch_query q[SIG_N];
	time_t t = time(NULL);
	struct config *cfg = scaler_cfg(s);  /* one config, start to end */
	struct eval *e;
	size_t n = 0;
	int rc = -1;

	if (!caller)
		caller = "";
	if (now_ok) {
		/* On the stack: a cached answer allocates no evaluation and
		 * copies no metadata; it borrows cfg, held until we return. */
		struct eval tmp;
		struct fetch_hit hit;  /* not zeroed: fetch_lookup() fills it */
		int done = 0;

		if (!eval_setup(&tmp, s, cfg, caller, ns, name, fprint, m,
				kind, cb, arg, t, q, &n) &&
		    !fetch_lookup(s->fetch, caller, ns, q, n, &hit)) {
			eval_finish(&tmp, hit.ans, hit.n);
			fetch_hit_release(&hit);
			done = 1;
		}
		eval_release(&tmp);
		if (done) {
			rc = 0;
			goto out;
		}
	}
	e = eval_new(s, cfg, caller, ns, name, fprint, m, kind, cb, arg, t, q,
		     &n);
	if (!e)
		goto out;
	if (fetch_submit(s->fetch, caller, ns, q, n, on_answers, e)) {
		eval_free(e);
		goto out;
	}
	rc = 0;
out:
	config_drop(cfg);
	return rc;
}

int scaler_evaluate(struct scaler *s, const char *caller, const char *ns,
		    const char *name, const char *fprint,
		    const struct meta *m, enum scaler_kind kind,
		    scaler_done_fn *cb, void *arg)
{
	return evaluate(s, caller, ns, name, fprint, m, kind, cb, arg, 0);
}

int scaler_evaluate_now(struct scaler *s, const char *caller, const char *ns,
			const char *name, const char *fprint,
			const struct meta *m, enum scaler_kind kind,
			scaler_done_fn *cb, void *arg)
{
	return evaluate(s, caller, ns, name, fprint, m, kind, cb, arg, 1);
}
