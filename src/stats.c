/*
 * stats.c - see stats.h.
 */
#include "stats.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "procstat.h"
#include "utf8.h"
#include "version.h"

/* The methods KEDA and Kubernetes call; the last is everything else. */
static const char *const stats_methods[] = {
	"IsActive", "StreamIsActive", "GetMetricSpec", "GetMetrics",
	"StreamMetricSpec", "Check", "other",
};
#define STATS_METHODS (sizeof(stats_methods) / sizeof(stats_methods[0]))

/* gRPC's status codes 0..16, by name. */
static const char *const stats_codes[] = {
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
	"NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED",
	"RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
	"OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE",
	"DATA_LOSS", "UNAUTHENTICATED",
};
#define STATS_CODES (sizeof(stats_codes) / sizeof(stats_codes[0]))

/* Latency buckets, seconds: KEDA's calls should end in milliseconds; a
 * slow backend shows up in the upper ones (its timeout, by default 5 s). */
static const double stats_le[] = {
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
};
#define STATS_BUCKETS (sizeof(stats_le) / sizeof(stats_le[0]))

#define STATS_BUCKETS_T 4096     /* hash buckets of the target table */

/* Backend request latency, seconds: a query answers in milliseconds;
 * the upper buckets show a backend near its timeoutSeconds (default 2). */
static const double stats_backend_le[] = {
	0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60,
};
#define STATS_BACKEND_BUCKETS \
	(sizeof(stats_backend_le) / sizeof(stats_backend_le[0]))

/* The last GetMetrics answer of one ScaledObject's metric: one block
 * per ScaledObject (STATS_TARGETS_MAX of them), its key inline. */
struct target {
	struct target *next;
	long long value;
	double at;
	unsigned ns_len, name_len; /* offsets into key */
	unsigned key_len;        /* all of it, the NULs too (3 labels of at
				  * most STATS_LABEL_OUT bytes) */
	int held;
	int have_terms;          /* terms hold a decision (not only holds) */
	struct stats_terms terms;
	char key[];              /* "ns\0name\0metric\0", escaped */
};

/* One backend's responses by result, and their latency. */
struct backend_stats {
	char name[STATS_LABEL_OUT];   /* escaped */
	unsigned long long n[FETCH_R_COUNT];
	unsigned long long bucket[FETCH_R_COUNT][STATS_BACKEND_BUCKETS];
	double sum[FETCH_R_COUNT];
};

/* The counters, copied whole for a scrape so that rendering them does
 * not hold the lock the RPC threads take. */
struct counters {
	unsigned long long calls[STATS_METHODS][STATS_CODES];
	unsigned long long bucket[STATS_METHODS][STATS_BUCKETS];
	unsigned long long count[STATS_METHODS];
	double sum[STATS_METHODS];
	long streams;
	unsigned long long pushes[2];
	unsigned long long meta_cache[2];   /* [0] parsed, [1] found */
	unsigned long long http[STATS_HTTP_COUNT];
	int have_tls;                       /* TLS files observed: */
	double tls_not_after;               /* the certificate in use's */
	unsigned long long tls[CERTS_R_COUNT]; /* reads by result */
};

struct stats {
	pthread_mutex_t mu;          /* n: taken by the RPC threads */
	struct counters n;
	pthread_mutex_t tmu;         /* the targets: the fetch thread, scrapes */
	struct target *targets[STATS_BUCKETS_T];
	size_t n_targets;
	unsigned long long targets_dropped;
	unsigned long long omitted;  /* targets left out of pages */
	pthread_mutex_t bmu;         /* the backends: the fetch thread, scrapes */
	struct backend_stats backends[STATS_BACKENDS_MAX + 1]; /* + "other" */
	size_t n_backends;
	struct budget *budget;       /* NULL: not rendered; set at start-up */
};

struct stats *stats_new(void)
{
	struct stats *s = calloc(1, sizeof(*s));

	if (s) {
		pthread_mutex_init(&s->mu, NULL);
		pthread_mutex_init(&s->tmu, NULL);
		pthread_mutex_init(&s->bmu, NULL);
	}
	return s;
}

void stats_free(struct stats *s)
{
	struct target *t;
	size_t b;

	if (!s)
		return;
	for (b = 0; b < STATS_BUCKETS_T; b++)
		while ((t = s->targets[b]) != NULL) {
			s->targets[b] = t->next;
			free(t);
		}
	pthread_mutex_destroy(&s->mu);
	pthread_mutex_destroy(&s->tmu);
	pthread_mutex_destroy(&s->bmu);
	free(s);
}

/*
 * A label value as the text format wants it: \\, \" and \n escaped, and
 * every byte that is not part of valid UTF-8 written as U+FFFD, so that
 * the page is valid UTF-8 (which Prometheus requires of a scrape) whatever
 * reached it.  Cut at STATS_LABEL_MAX bytes of input.  dst holds
 * STATS_LABEL_OUT bytes.
 */
static size_t stats_escape(char *dst, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t left = src ? strnlen(src, STATS_LABEL_MAX) : 0;
	size_t n = 0, k;

	while (left) {
		k = utf8_len(s, left);
		if (k == 0) {
			memcpy(dst + n, "\xef\xbf\xbd", 3);
			n += 3;
			k = 1;
		} else if (*s == '\\' || *s == '"' || *s == '\n') {
			dst[n++] = '\\';
			dst[n++] = *s == '\n' ? 'n' : (char)*s;
		} else {
			memcpy(dst + n, s, k);
			n += k;
		}
		s += k;
		left -= k;
	}
	dst[n] = '\0';
	return n;
}

static uint32_t stats_hash(const char *k, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)k[i]) * 16777619u;
	return h;
}

void stats_target(struct stats *s, const char *ns, const char *name,
		  const char *metric, long long target,
		  const struct stats_terms *terms, double now)
{
	char e[3][STATS_LABEL_OUT], key[3 * (STATS_LABEL_OUT)];
	size_t l[3], len, b;
	struct target *t;

	if (!s)
		return;
	l[0] = stats_escape(e[0], ns);
	l[1] = stats_escape(e[1], name);
	l[2] = stats_escape(e[2], metric);
	memcpy(key, e[0], l[0] + 1);
	memcpy(key + l[0] + 1, e[1], l[1] + 1);
	memcpy(key + l[0] + l[1] + 2, e[2], l[2] + 1);
	len = l[0] + l[1] + l[2] + 3;
	b = stats_hash(key, len) % STATS_BUCKETS_T;
	pthread_mutex_lock(&s->tmu);
	for (t = s->targets[b]; t; t = t->next)
		if (t->key_len == len && t->ns_len == l[0] &&
		    t->name_len == l[1] && !memcmp(t->key, key, len))
			break;
	if (!t && s->n_targets < STATS_TARGETS_MAX) {
		t = calloc(1, sizeof(*t) + len);
		if (t) {
			memcpy(t->key, key, len);
			t->ns_len = (unsigned)l[0];
			t->name_len = (unsigned)l[1];
			t->key_len = (unsigned)len;
			t->next = s->targets[b];
			s->targets[b] = t;
			s->n_targets++;
		}
	}
	if (t) {
		t->value = target;
		t->held = terms == NULL;
		if (terms) {
			t->terms = *terms;
			t->have_terms = 1;
		}
		t->at = now;
	} else {
		s->targets_dropped++;
	}
	pthread_mutex_unlock(&s->tmu);
}

static size_t stats_method(const char *m)
{
	size_t i;

	for (i = 0; m && i < STATS_METHODS - 1; i++)
		if (!strcmp(m, stats_methods[i]))
			return i;
	return STATS_METHODS - 1;
}

/*
 * Series shown at 0 from the start: the codes staffer answers KEDA's
 * methods with.  A counter that appears with its first error at 1 is
 * invisible to increase() and rate(), which need two samples: the first
 * INVALID_ARGUMENT would never alert.
 */
static int stats_code_early(size_t m, size_t code)
{
	static const unsigned char answered[] = {
		1 /* CANCELLED */, 3 /* INVALID_ARGUMENT */,
		4 /* DEADLINE_EXCEEDED */, 7 /* PERMISSION_DENIED */,
		8 /* RESOURCE_EXHAUSTED */, 13 /* INTERNAL */,
		14 /* UNAVAILABLE */ };
	size_t i;

	if (m > 4)            /* Check and other: OK, or when counted */
		return 0;
	for (i = 0; i < sizeof(answered); i++)
		if (answered[i] == code)
			return 1;
	return 0;
}

const char *stats_code_name(int code)
{
	return code >= 0 && (size_t)code < STATS_CODES ? stats_codes[code] :
	       "UNKNOWN";
}

void stats_rpc(struct stats *s, const char *method, int code,
	       double seconds)
{
	size_t m = stats_method(method), b;

	if (!s)
		return;
	if (code < 0 || (size_t)code >= STATS_CODES)
		code = 2;                         /* UNKNOWN */
	if (!(seconds >= 0))
		seconds = 0;
	pthread_mutex_lock(&s->mu);
	s->n.calls[m][code]++;
	for (b = 0; b < STATS_BUCKETS; b++)
		if (seconds <= stats_le[b])
			s->n.bucket[m][b]++;
	s->n.count[m]++;
	s->n.sum[m] += seconds;
	pthread_mutex_unlock(&s->mu);
}

void stats_meta_cache(struct stats *s, int hit)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->n.meta_cache[hit ? 1 : 0]++;
	pthread_mutex_unlock(&s->mu);
}

void stats_stream(struct stats *s, int delta)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->n.streams += delta;
	pthread_mutex_unlock(&s->mu);
}

void stats_push(struct stats *s, int active)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->n.pushes[active ? 1 : 0]++;
	pthread_mutex_unlock(&s->mu);
}

void stats_backend(struct stats *s, const char *backend,
		   enum fetch_result r, double seconds)
{
	char name[STATS_LABEL_OUT];
	struct backend_stats *b = NULL;
	size_t i;

	if (!s || (unsigned)r >= FETCH_R_COUNT)
		return;
	if (!(seconds >= 0))
		seconds = 0;
	stats_escape(name, backend ? backend : "");
	pthread_mutex_lock(&s->bmu);
	for (i = 0; i < s->n_backends && !b; i++)
		if (!strcmp(s->backends[i].name, name))
			b = &s->backends[i];
	if (!b && s->n_backends < STATS_BACKENDS_MAX) {
		b = &s->backends[s->n_backends++];
		memcpy(b->name, name, sizeof(b->name));
	}
	if (!b) {     /* more names than one config allows: renames */
		b = &s->backends[STATS_BACKENDS_MAX];
		snprintf(b->name, sizeof(b->name), "%s", STATS_BACKEND_OTHER);
	}
	b->n[r]++;
	for (i = 0; i < STATS_BACKEND_BUCKETS; i++)
		if (seconds <= stats_backend_le[i])
			b->bucket[r][i]++;
	b->sum[r] += seconds;
	pthread_mutex_unlock(&s->bmu);
}

void stats_fetch_observer(void *arg, const struct backend *be,
			  enum fetch_result r, double seconds)
{
	stats_backend(arg, be ? be->name : NULL, r, seconds);
}

void stats_http(struct stats *s, enum stats_http e)
{
	if (!s || (unsigned)e >= STATS_HTTP_COUNT)
		return;
	pthread_mutex_lock(&s->mu);
	s->n.http[e]++;
	pthread_mutex_unlock(&s->mu);
}

void stats_watch_budget(struct stats *s, struct budget *b)
{
	s->budget = b;
}

void stats_certs_observer(void *arg, enum certs_result r, double not_after)
{
	struct stats *s = arg;

	if (!s || (unsigned)r >= CERTS_R_COUNT)
		return;
	pthread_mutex_lock(&s->mu);
	s->n.have_tls = 1;
	if (r == CERTS_R_IN_USE || r == CERTS_R_TAKEN)
		s->n.tls_not_after = not_after;
	s->n.tls[r]++;
	pthread_mutex_unlock(&s->mu);
}


/* An appender that counts what did not fit, as snprintf does; or, with
 * grow, a buffer it enlarges (failed set when that fails). */
struct out {
	char *buf;
	size_t size, len;
	int grow, failed;
};

/* Room for n more bytes and a NUL: 1, or 0 when there is none (the
 * bytes are then only counted). */
static int out_room(struct out *o, size_t n)
{
	size_t want;
	char *nb;

	if (o->len + n < o->size)
		return 1;
	if (!o->grow || o->failed)
		return 0;
	want = o->size ? o->size : 4096;
	while (want <= o->len + n)
		want *= 2;
	nb = realloc(o->buf, want);
	if (!nb) {
		o->failed = 1;
		return 0;
	}
	o->buf = nb;
	o->size = want;
	return 1;
}

/* Bytes that may still be written at o->len without the room for n
 * more: what is left of a fixed buffer before its NUL (as snprintf
 * keeps a prefix). */
static size_t out_left(const struct out *o)
{
	return !o->grow && o->len + 1 < o->size ? o->size - 1 - o->len : 0;
}

static void out_put(struct out *o, const char *p, size_t n)
{
	if (out_room(o, n))
		memcpy(o->buf + o->len, p, n);
	else if (out_left(o))
		memcpy(o->buf + o->len, p, n < out_left(o) ? n : out_left(o));
	o->len += n;
}

static void out_printf(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	size_t room;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	if (out_room(o, (size_t)n) || out_left(o)) {
		room = o->size - o->len;
		va_start(ap, fmt);
		vsnprintf(o->buf + o->len, room, fmt, ap);
		va_end(ap);
	}
	o->len += (size_t)n;
}

/* A number as the text format writes it: NaN, +Inf, -Inf or %.9g. */
static const char *stats_num(char buf[32], double v)
{
	if (isnan(v))
		return "NaN";
	if (isinf(v))
		return v > 0 ? "+Inf" : "-Inf";
	snprintf(buf, 32, "%.9g", v);
	return buf;
}

/* The per-ScaledObject families: name, help, and which value. */
enum tv {
	TV_TARGET, TV_RAW, TV_HELD, TV_CAPPED, TV_LAMBDA, TV_SURGE,
	TV_FORECAST, TV_W,
	TV_Q, TV_S, TV_CORRECTION, TV_COLD,
	TV_SLOTS,
};

static const struct {
	const char *name, *help;
} stats_tfam[] = {
	[TV_TARGET] = { "staffer_target_replicas", "The replicas GetMetrics "
			"last answered (after smoothing and the cap), per "
			"ScaledObject and metric." },
	[TV_RAW] = { "staffer_target_raw_replicas", "The model's replicas "
		     "before scale-down smoothing, at the last decision." },
	[TV_HELD] = { "staffer_target_held", "1 when the last answer was the "
		      "last good target, held while the signals are "
		      "unknown." },
	[TV_CAPPED] = { "staffer_target_capped", "1 when maxReplicas (the "
			"metadata cap) cut the model's answer at the last "
			"decision." },
	[TV_LAMBDA] = { "staffer_signal_arrival_rate", "Arrival rate lambda "
			"(req/s) at the last decision." },
	[TV_SURGE] = { "staffer_signal_arrival_surge", "The surge "
		       "headroom's arrival rate: the level times the rise the "
		       "series saw within one lead time at surgeQuantile "
		       "(req/s; 0: none) at the last decision." },
	[TV_FORECAST] = { "staffer_signal_arrival_forecast", "Forecast "
			  "arrival rate at the cold-start horizon (req/s; 0 "
			  "without coldStartSeconds) at the last decision." },
	[TV_W] = { "staffer_signal_service_time_seconds", "Mean service time "
		   "W used at the last decision." },
	[TV_Q] = { "staffer_signal_queue_depth", "Queue depth Q at the last "
		   "decision." },
	[TV_S] = { "staffer_signal_shed_rate", "Shed rate S (req/s) at the "
		   "last decision." },
	[TV_CORRECTION] = { "staffer_feedback_correction", "The SLO "
			    "feedback's factor on the total slots at the last "
			    "decision (1: none, or no slaMissQuery)." },
	[TV_COLD] = { "staffer_signal_cold_start_seconds", "The cold start "
		      "in force at the last decision: coldStartQuery's "
		      "answer, or coldStartSeconds while it has no data "
		      "(only for triggers with coldStartQuery)." },
	[TV_SLOTS] = { "staffer_term_slots", "The model's terms in slots at "
		       "the last decision: busy (lambda*W), headroom, drain, "
		       "boost, feedback (the SLO correction's share)." },
};
#define STATS_TFAMS (sizeof(stats_tfam) / sizeof(stats_tfam[0]))

/* Bytes of one target line beyond its family's name and its labels, at
 * most: the braces, ",term=\"headroom\"", a number of %.9g and the
 * newline. */
#define STATS_LINE_EXTRA 48

/* One target as a scrape renders it: copied under tmu, rendered without
 * it, so that rendering a large page never holds up an answer. */
struct tsnap {
	long long value;
	int held, have_terms;
	struct stats_terms terms;
	size_t cost;             /* its lines' bytes, at most */
	size_t labels_len;
	char *labels;            /* ns, name and metric as label pairs */
};

/* Copy buckets [b0, b1) of the targets into *v (growing it; *n and *cap
 * its length and room), forgetting those idle since before now -
 * STATS_TARGET_IDLE_S (tmu held).  0, or -1 when out of memory. */
static int stats_snap_chunk(struct stats *s, size_t b0, size_t b1, double now,
			    struct tsnap **v, size_t *n, size_t *cap)
{
	static const char f1[] = "scaledobject_namespace=\"";
	static const char f2[] = "\",scaledobject=\"", f3[] = "\",metric=\"";
	struct target **pp, *t;
	size_t b, fam = 0, i;

	for (i = 0; i < STATS_TFAMS; i++)
		fam += strlen(stats_tfam[i].name) + STATS_LINE_EXTRA;
	fam += 4 * (strlen(stats_tfam[TV_SLOTS].name) + STATS_LINE_EXTRA);
	for (b = b0; b < b1; b++) {
		pp = &s->targets[b];
		while ((t = *pp) != NULL) {
			const char *ns = t->key, *name = ns + t->ns_len + 1;
			const char *metric = name + t->name_len + 1;
			size_t ml = t->key_len - t->ns_len - t->name_len - 3;
			struct tsnap *x;
			char *p;

			if (now - t->at > STATS_TARGET_IDLE_S) {
				*pp = t->next;
				free(t);
				s->n_targets--;
				continue;
			}
			pp = &t->next;
			if (*n == *cap) {
				size_t nc = *cap ? 2 * *cap : 256;
				struct tsnap *nv = realloc(*v, nc * sizeof(**v));

				if (!nv)
					return -1;
				*v = nv;
				*cap = nc;
			}
			x = &(*v)[*n];
			x->value = t->value;
			x->held = t->held;
			x->have_terms = t->have_terms;
			x->terms = t->terms;
			x->labels_len = sizeof(f1) + sizeof(f2) + sizeof(f3) - 3 +
					t->ns_len + t->name_len + ml + 1;
			x->labels = p = malloc(x->labels_len + 1);
			if (!p)
				return -1;
			memcpy(p, f1, sizeof(f1) - 1);
			p += sizeof(f1) - 1;
			memcpy(p, ns, t->ns_len);
			p += t->ns_len;
			memcpy(p, f2, sizeof(f2) - 1);
			p += sizeof(f2) - 1;
			memcpy(p, name, t->name_len);
			p += t->name_len;
			memcpy(p, f3, sizeof(f3) - 1);
			p += sizeof(f3) - 1;
			memcpy(p, metric, ml);
			p += ml;
			*p++ = '"';
			*p = '\0';
			x->cost = fam + STATS_TARGET_LINES * x->labels_len;
			(*n)++;
		}
	}
	return 0;
}

/* Bucket chunks a snapshot takes tmu for: stats_target() waits at most
 * for one chunk's copy. */
#define STATS_SNAP_CHUNK 256

static void stats_snap_free(struct tsnap *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i].labels);
	free(v);
}

/* Every target, copied a chunk of buckets at a time.  0 with *v (the
 * caller frees it with stats_snap_free()) and *n; -1 when out of memory. */
static int stats_snap(struct stats *s, double now, struct tsnap **v,
		      size_t *n)
{
	size_t b, cap = 0;
	int rc = 0;

	*v = NULL;
	*n = 0;
	for (b = 0; b < STATS_BUCKETS_T && !rc; b += STATS_SNAP_CHUNK) {
		pthread_mutex_lock(&s->tmu);
		rc = stats_snap_chunk(s, b, b + STATS_SNAP_CHUNK, now, v, n,
				      &cap);
		pthread_mutex_unlock(&s->tmu);
	}
	if (rc) {
		stats_snap_free(*v, *n);
		*v = NULL;
		*n = 0;
	}
	return rc;
}

/* One line "family{labels[,term="T"]} value". */
static void stats_tline(struct out *o, const char *fam, size_t fam_len,
			const struct tsnap *x, const char *term, double v)
{
	char num[32];
	const char *s = stats_num(num, v);

	out_put(o, fam, fam_len);
	out_put(o, "{", 1);
	out_put(o, x->labels, x->labels_len);
	if (term) {
		out_put(o, ",term=\"", 7);
		out_put(o, term, strlen(term));
		out_put(o, "\"", 1);
	}
	out_put(o, "} ", 2);
	out_put(o, s, strlen(s));
	out_put(o, "\n", 1);
}

/* One gauge family over the first n targets of v. */
static void stats_render_family(struct out *o, const struct tsnap *v,
				size_t n, enum tv f)
{
	static const char *const terms[] = { "busy", "headroom", "drain",
					     "boost", "feedback" };
	const char *fam = stats_tfam[f].name;
	size_t fl = strlen(fam), i, k;
	double x[5];

	out_printf(o, "# HELP %s %s\n# TYPE %s gauge\n", fam,
		   stats_tfam[f].help, fam);
	for (i = 0; i < n; i++) {
		const struct tsnap *t = &v[i];
		const struct stats_terms *m = &t->terms;

		if ((f == TV_RAW || f > TV_HELD) && !t->have_terms)
			continue;
		if ((f == TV_CORRECTION && !m->feedback) ||
		    (f == TV_COLD && !m->have_cold))
			continue;
		if (f == TV_SLOTS) {
			x[0] = m->busy_slots;
			x[1] = m->headroom_slots;
			x[2] = m->drain_slots;
			x[3] = m->boost_slots;
			x[4] = m->feedback_slots;
			for (k = 0; k < (m->feedback ? 5u : 4u); k++)
				stats_tline(o, fam, fl, t, terms[k], x[k]);
			continue;
		}
		stats_tline(o, fam, fl, t, NULL,
			    f == TV_TARGET ? (double)t->value :
			    f == TV_RAW ? (double)m->raw :
			    f == TV_HELD ? (double)(t->held != 0) :
			    f == TV_CAPPED ? (double)(m->capped != 0) :
			    f == TV_LAMBDA ? m->arrival_rate :
			    f == TV_FORECAST ? m->arrival_forecast :
			    f == TV_SURGE ? m->arrival_surge :
			    f == TV_W ? m->service_time_s :
			    f == TV_Q ? m->queue_depth :
			    f == TV_CORRECTION ? m->correction :
			    f == TV_COLD ? m->cold_start_s : m->shed_rate);
	}
}

/* The target gauges of the targets whose lines fit in room bytes (all
 * when room is SIZE_MAX), in snapshot order; the others are counted as
 * omitted, with the objects beyond STATS_TARGETS_MAX. */
static void stats_render_targets(struct stats *s, struct out *o,
				 const struct tsnap *v, size_t n, size_t room)
{
	size_t used = 0, k, f;
	unsigned long long dropped, omitted;

	for (k = 0; k < n && v[k].cost <= room - used; k++)
		used += v[k].cost;
	for (f = 0; f < STATS_TFAMS; f++)
		stats_render_family(o, v, k, (enum tv)f);
	pthread_mutex_lock(&s->tmu);
	s->omitted += n - k;
	omitted = s->omitted;
	dropped = s->targets_dropped;
	pthread_mutex_unlock(&s->tmu);
	out_printf(o, "# HELP staffer_target_series_dropped_total Answers not "
		   "shown as a gauge: more than %d ScaledObjects.\n"
		   "# TYPE staffer_target_series_dropped_total counter\n"
		   "staffer_target_series_dropped_total %llu\n"
		   "# HELP staffer_target_series_omitted_total ScaledObjects "
		   "whose series were left out of a /metrics page to keep it "
		   "within its size, summed over the pages rendered.\n"
		   "# TYPE staffer_target_series_omitted_total counter\n"
		   "staffer_target_series_omitted_total %llu\n",
		   STATS_TARGETS_MAX, dropped, omitted);
}

/* Each backend's responses by result, and their latency (bmu held). */
static void stats_render_backends(struct stats *s, struct out *o)
{
	const struct backend_stats *b;
	size_t i, r, k;

	out_printf(o, "# HELP staffer_backend_responses_total Requests to "
		   "each metrics backend, by how they ended.\n"
		   "# TYPE staffer_backend_responses_total counter\n");
	for (i = 0; i <= STATS_BACKENDS_MAX; i++) {
		b = &s->backends[i];
		if (i >= s->n_backends && i < STATS_BACKENDS_MAX)
			continue;
		for (r = 0; r < FETCH_R_COUNT; r++)
			if (b->n[r] || (r == FETCH_R_OK && i < s->n_backends))
				out_printf(o, "staffer_backend_responses_total"
					   "{backend=\"%s\",result=\"%s\"} "
					   "%llu\n", b->name,
					   fetch_result_name((enum fetch_result)r),
					   b->n[r]);
	}
	out_printf(o, "# HELP staffer_backend_request_duration_seconds Time "
		   "from sending a request to a metrics backend to its end, "
		   "by result.\n"
		   "# TYPE staffer_backend_request_duration_seconds "
		   "histogram\n");
	for (i = 0; i <= STATS_BACKENDS_MAX; i++) {
		b = &s->backends[i];
		for (r = 0; r < FETCH_R_COUNT; r++) {
			const char *rn = fetch_result_name((enum fetch_result)r);

			if (!b->n[r] || r == FETCH_R_NOT_SENT)
				continue;
			for (k = 0; k < STATS_BACKEND_BUCKETS; k++)
				out_printf(o, "staffer_backend_request_"
					   "duration_seconds_bucket{backend="
					   "\"%s\",result=\"%s\",le=\"%g\"} "
					   "%llu\n", b->name, rn,
					   stats_backend_le[k],
					   b->bucket[r][k]);
			out_printf(o, "staffer_backend_request_duration_seconds_"
				   "bucket{backend=\"%s\",result=\"%s\","
				   "le=\"+Inf\"} %llu\n"
				   "staffer_backend_request_duration_seconds_"
				   "sum{backend=\"%s\",result=\"%s\"} %.6f\n"
				   "staffer_backend_request_duration_seconds_"
				   "count{backend=\"%s\",result=\"%s\"} "
				   "%llu\n", b->name, rn, b->n[r], b->name, rn,
				   b->sum[r], b->name, rn, b->n[r]);
		}
	}
}

/* The build, and the process as every Prometheus client shows it. */
static void stats_render_process(struct out *o)
{
	struct procstat p;

	out_printf(o, "# HELP staffer_build_info The staffer build: 1, with "
		   "its version and commit as labels.\n"
		   "# TYPE staffer_build_info gauge\n"
		   "staffer_build_info{version=\"%s\",revision=\"%s\"} 1\n",
		   version_string(), version_revision());
	if (procstat_read(&p))
		return;
	out_printf(o, "# HELP process_cpu_seconds_total Total user and system "
		   "CPU time spent in seconds.\n"
		   "# TYPE process_cpu_seconds_total counter\n"
		   "process_cpu_seconds_total %.2f\n"
		   "# HELP process_resident_memory_bytes Resident memory size "
		   "in bytes.\n"
		   "# TYPE process_resident_memory_bytes gauge\n"
		   "process_resident_memory_bytes %.0f\n"
		   "# HELP process_virtual_memory_bytes Virtual memory size in "
		   "bytes.\n"
		   "# TYPE process_virtual_memory_bytes gauge\n"
		   "process_virtual_memory_bytes %.0f\n"
		   "# HELP process_open_fds Number of open file descriptors.\n"
		   "# TYPE process_open_fds gauge\n"
		   "process_open_fds %.0f\n"
		   "# HELP process_start_time_seconds Start time of the "
		   "process since unix epoch in seconds.\n"
		   "# TYPE process_start_time_seconds gauge\n"
		   "process_start_time_seconds %.2f\n",
		   p.cpu_seconds, p.resident_bytes, p.virtual_bytes,
		   p.open_fds, p.start_time);
	if (p.max_fds >= 0)
		out_printf(o, "# HELP process_max_fds Maximum number of open "
			   "file descriptors.\n"
			   "# TYPE process_max_fds gauge\n"
			   "process_max_fds %.0f\n", p.max_fds);
	if (p.anon_bytes >= 0)
		out_printf(o, "# HELP staffer_anonymous_memory_bytes Resident "
			   "anonymous memory (heap, stacks; RssAnon), in "
			   "bytes: the process's own data, without the "
			   "libraries' pages.\n"
			   "# TYPE staffer_anonymous_memory_bytes gauge\n"
			   "staffer_anonymous_memory_bytes %.0f\n", p.anon_bytes);
}

/* The request budget's series. */
static void stats_render_budget(struct out *o, struct budget *b)
{
	struct budget_stats bs;

	if (!b)
		return;
	budget_get_stats(b, &bs);
	out_printf(o, "# HELP staffer_request_budget_bytes The request budget: "
		   "bytes of requests in flight at once (--request-budget).\n"
		   "# TYPE staffer_request_budget_bytes gauge\n"
		   "staffer_request_budget_bytes %zu\n"
		   "# HELP staffer_request_bytes_in_flight Bytes of the request "
		   "budget held now by calls in flight and open streams.\n"
		   "# TYPE staffer_request_bytes_in_flight gauge\n"
		   "staffer_request_bytes_in_flight %zu\n"
		   "# HELP staffer_request_budget_refused_total Calls answered "
		   "RESOURCE_EXHAUSTED because the request budget was full (or "
		   "their caller held half of it).\n"
		   "# TYPE staffer_request_budget_refused_total counter\n"
		   "staffer_request_budget_refused_total %llu\n",
		   bs.limit, bs.used, bs.refused);
}

/* The TLS series (from a copy of the counters). */
static void stats_render_tls(struct out *o, const struct counters *c)
{
	size_t r;

	if (!c->have_tls)
		return;
	out_printf(o, "# HELP staffer_tls_certificate_expiry_seconds When the "
		   "gRPC server's certificate in use expires (its notAfter, "
		   "Unix seconds).\n"
		   "# TYPE staffer_tls_certificate_expiry_seconds gauge\n"
		   "staffer_tls_certificate_expiry_seconds %.0f\n"
		   "# HELP staffer_tls_certificate_reloads_total TLS files "
		   "read again because they changed (or on SIGHUP), by what "
		   "became of them: taken, or refused as expired, "
		   "not_yet_valid or invalid.\n"
		   "# TYPE staffer_tls_certificate_reloads_total counter\n",
		   c->tls_not_after);
	for (r = CERTS_R_TAKEN; r < CERTS_R_COUNT; r++)
		out_printf(o, "staffer_tls_certificate_reloads_total{result="
			   "\"%s\"} %llu\n",
			   certs_result_name((enum certs_result)r), c->tls[r]);
}

/*
 * Everything into o: the fixed families first, then the targets of the
 * snapshot v (n of them) whose lines fit within max bytes of the page in
 * all (SIZE_MAX: every one).
 */
static void stats_write(struct stats *s, const struct fetch_stats *fs,
			struct out *o, const struct tsnap *v, size_t n,
			size_t max)
{
	struct counters c;
	size_t m, k, room;

	pthread_mutex_lock(&s->mu);
	c = s->n;
	pthread_mutex_unlock(&s->mu);
	stats_render_process(o);
	stats_render_tls(o, &c);
	stats_render_budget(o, s->budget);
	pthread_mutex_lock(&s->bmu);
	stats_render_backends(s, o);
	pthread_mutex_unlock(&s->bmu);

	out_printf(o, "# HELP staffer_rpc_requests_total gRPC calls answered, "
		   "by method and status code.\n"
		   "# TYPE staffer_rpc_requests_total counter\n");
	for (m = 0; m < STATS_METHODS; m++)
		for (k = 0; k < STATS_CODES; k++)
			if (c.calls[m][k] || k == 0 || stats_code_early(m, k))
				out_printf(o, "staffer_rpc_requests_total{"
					   "method=\"%s\",code=\"%s\"} %llu\n",
					   stats_methods[m], stats_codes[k],
					   c.calls[m][k]);
	out_printf(o, "# HELP staffer_rpc_duration_seconds Time from a "
		   "call's arrival to its answer (a stream: how long it was "
		   "open).\n"
		   "# TYPE staffer_rpc_duration_seconds histogram\n");
	for (m = 0; m < STATS_METHODS; m++) {
		for (k = 0; k < STATS_BUCKETS; k++)
			out_printf(o, "staffer_rpc_duration_seconds_bucket{"
				   "method=\"%s\",le=\"%g\"} %llu\n",
				   stats_methods[m], stats_le[k],
				   c.bucket[m][k]);
		out_printf(o, "staffer_rpc_duration_seconds_bucket{method="
			   "\"%s\",le=\"+Inf\"} %llu\n"
			   "staffer_rpc_duration_seconds_sum{method=\"%s\"} "
			   "%.6f\n"
			   "staffer_rpc_duration_seconds_count{method=\"%s\"} "
			   "%llu\n", stats_methods[m], c.count[m],
			   stats_methods[m], c.sum[m], stats_methods[m],
			   c.count[m]);
	}
	out_printf(o, "# HELP staffer_streams_open StreamIsActive streams "
		   "open now.\n"
		   "# TYPE staffer_streams_open gauge\n"
		   "staffer_streams_open %ld\n"
		   "# HELP staffer_stream_pushes_total IsActive values pushed "
		   "on StreamIsActive streams.\n"
		   "# TYPE staffer_stream_pushes_total counter\n"
		   "staffer_stream_pushes_total{active=\"false\"} %llu\n"
		   "staffer_stream_pushes_total{active=\"true\"} %llu\n"
		   "# HELP staffer_metadata_cache_total Requests whose "
		   "scalerMetadata map was found parsed (hit) or was parsed "
		   "(miss).\n"
		   "# TYPE staffer_metadata_cache_total counter\n"
		   "staffer_metadata_cache_total{result=\"hit\"} %llu\n"
		   "staffer_metadata_cache_total{result=\"miss\"} %llu\n"
		   "# HELP staffer_http_connections_closed_total Connections "
		   "to /metrics and /healthz closed past their deadline: a "
		   "request not whole within 5 s (slow_request), an answer "
		   "not read within 30 s (slow_response).\n"
		   "# TYPE staffer_http_connections_closed_total counter\n"
		   "staffer_http_connections_closed_total{reason="
		   "\"slow_request\"} %llu\n"
		   "staffer_http_connections_closed_total{reason="
		   "\"slow_response\"} %llu\n"
		   "# HELP staffer_http_scrapes_limited_total Scrapes of "
		   "/metrics answered 429 (Retry-After), after a wait of 5 s, "
		   "because pages were asked for faster than 8 MiB/s after a "
		   "64 MiB burst.\n"
		   "# TYPE staffer_http_scrapes_limited_total counter\n"
		   "staffer_http_scrapes_limited_total %llu\n",
		   c.streams, c.pushes[0], c.pushes[1], c.meta_cache[1],
		   c.meta_cache[0], c.http[STATS_HTTP_SLOW_REQUEST],
		   c.http[STATS_HTTP_SLOW_RESPONSE], c.http[STATS_HTTP_LIMITED]);
	if (fs)
		out_printf(o, "# HELP staffer_backend_requests_total HTTP "
			   "requests sent to metrics backends.\n"
			   "# TYPE staffer_backend_requests_total counter\n"
			   "staffer_backend_requests_total %lu\n"
			   "# HELP staffer_backend_cache_hits_total Query "
			   "answers served from the cache (cacheTTLSeconds)."
			   "\n"
			   "# TYPE staffer_backend_cache_hits_total counter\n"
			   "staffer_backend_cache_hits_total %lu\n"
			   "# HELP staffer_backend_coalesced_total Query "
			   "answers that joined an identical request in "
			   "flight.\n"
			   "# TYPE staffer_backend_coalesced_total counter\n"
			   "staffer_backend_coalesced_total %lu\n"
			   "# HELP staffer_aws_credential_refreshes_total "
			   "Requests for SigV4 credentials sent to STS or the "
			   "container endpoint, by result.\n"
			   "# TYPE staffer_aws_credential_refreshes_total "
			   "counter\n"
			   "staffer_aws_credential_refreshes_total{result=\"ok\"} "
			   "%lu\n"
			   "staffer_aws_credential_refreshes_total{result="
			   "\"error\"} %lu\n"
			   "# HELP staffer_backend_range_answers_total Range "
			   "answers ending now by how they were made: whole "
			   "and tail are requests, renewed and derived "
			   "(from a finer range of the same query) are not."
			   "\n"
			   "# TYPE staffer_backend_range_answers_total "
			   "counter\n"
			   "staffer_backend_range_answers_total{how=\"whole\"} "
			   "%lu\n"
			   "staffer_backend_range_answers_total{how=\"tail\"} "
			   "%lu\n"
			   "staffer_backend_range_answers_total{how="
			   "\"renewed\"} %lu\n"
			   "staffer_backend_range_answers_total{how="
			   "\"derived\"} %lu\n"
			   "# HELP staffer_backend_ranges_not_derived_total "
			   "Ranges whose settled points differed from a finer "
			   "range of the same query: fetched, never derived."
			   "\n"
			   "# TYPE staffer_backend_ranges_not_derived_total "
			   "counter\n"
			   "staffer_backend_ranges_not_derived_total %lu\n"
			   "# HELP staffer_backend_instant_answers_from_range"
			   "_total Instant answers taken from the newest point "
			   "of a kept range of the same query, without a "
			   "request.\n"
			   "# TYPE staffer_backend_instant_answers_from_range"
			   "_total counter\n"
			   "staffer_backend_instant_answers_from_range_total "
			   "%lu\n",
			   fs->requests, fs->cache_hits, fs->coalesced,
			   fs->cred_ok, fs->cred_failed, fs->range_full,
			   fs->range_tail, fs->range_renewed,
			   fs->range_derived, fs->range_derive_off,
			   fs->instant_from_range);
	/* the targets last, with the room that is left (the counters after
	 * them are small: STATS_PAGE_RESERVE) */
	room = max == SIZE_MAX ? SIZE_MAX :
	       max > o->len + STATS_PAGE_RESERVE ?
	       max - o->len - STATS_PAGE_RESERVE : 0;
	stats_render_targets(s, o, v, n, room);
}

size_t stats_render(struct stats *s, const struct fetch_stats *fs,
		    double now, char *buf, size_t size)
{
	struct out o = { buf, size, 0, 0, 0 };
	struct tsnap *v;
	size_t n;

	if (size)
		buf[0] = '\0';
	if (stats_snap(s, now, &v, &n))
		n = 0;
	stats_write(s, fs, &o, v, n, SIZE_MAX);
	stats_snap_free(v, n);
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return o.len;
}

size_t stats_page(struct stats *s, const struct fetch_stats *fs, double now,
		  size_t max, char **buf, size_t *size)
{
	struct out o = { *buf, *size, 0, 1, 0 };
	struct tsnap *v;
	size_t n;

	if (stats_snap(s, now, &v, &n))
		return (size_t)-1;
	stats_write(s, fs, &o, v, n, max);
	stats_snap_free(v, n);
	*buf = o.buf;
	*size = o.size;
	if (o.failed || !out_room(&o, 0))
		return (size_t)-1;
	o.buf[o.len] = '\0';
	return o.len;
}
