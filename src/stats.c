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

#include "procstat.h"
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
				  * most 2 * STATS_LABEL_MAX + 1 bytes) */
	int held;
	int have_terms;          /* terms hold a decision (not only holds) */
	struct stats_terms terms;
	char key[];              /* "ns\0name\0metric\0", escaped */
};

/* One backend's responses by result, and their latency. */
struct backend_stats {
	char name[2 * STATS_LABEL_MAX + 1];   /* escaped */
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
};

struct stats {
	pthread_mutex_t mu;          /* n: taken by the RPC threads */
	struct counters n;
	pthread_mutex_t tmu;         /* the targets: the fetch thread, scrapes */
	struct target *targets[STATS_BUCKETS_T];
	size_t n_targets;
	unsigned long long targets_dropped;
	pthread_mutex_t bmu;         /* the backends: the fetch thread, scrapes */
	struct backend_stats backends[STATS_BACKENDS_MAX + 1]; /* + "other" */
	size_t n_backends;
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

/* A label value as the text format wants it (\\, \", \n escaped), cut
 * at STATS_LABEL_MAX bytes of input; dst holds 2 * STATS_LABEL_MAX + 1. */
static size_t stats_escape(char *dst, const char *src)
{
	size_t n = 0, i;

	for (i = 0; src && src[i] && i < STATS_LABEL_MAX; i++) {
		if (src[i] == '\\' || src[i] == '"' || src[i] == '\n') {
			dst[n++] = '\\';
			dst[n++] = src[i] == '\n' ? 'n' : src[i];
		} else {
			dst[n++] = src[i];
		}
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
	char e[3][2 * STATS_LABEL_MAX + 1], key[3 * (2 * STATS_LABEL_MAX + 1)];
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

/* Forget targets unasked since before now - STATS_TARGET_IDLE_S (tmu
 * held). */
static void stats_expire(struct stats *s, double now)
{
	struct target **pp, *t;
	size_t b;

	for (b = 0; b < STATS_BUCKETS_T; b++) {
		pp = &s->targets[b];
		while ((t = *pp) != NULL) {
			if (now - t->at > STATS_TARGET_IDLE_S) {
				*pp = t->next;
				free(t);
				s->n_targets--;
			} else {
				pp = &t->next;
			}
		}
	}
}

static size_t stats_method(const char *m)
{
	size_t i;

	for (i = 0; m && i < STATS_METHODS - 1; i++)
		if (!strcmp(m, stats_methods[i]))
			return i;
	return STATS_METHODS - 1;
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
	char name[2 * STATS_LABEL_MAX + 1];
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
	if (!b) {                /* more names than the config allows */
		b = &s->backends[STATS_BACKENDS_MAX];
		snprintf(b->name, sizeof(b->name), "other");
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

/* An appender that counts what did not fit, as snprintf does. */
struct out {
	char *buf;
	size_t size, len;
};

static void out_printf(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void out_printf(struct out *o, const char *fmt, ...)
{
	va_list ap;
	size_t room = o->len < o->size ? o->size - o->len : 0;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
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
	TV_TARGET, TV_RAW, TV_HELD, TV_CAPPED, TV_LAMBDA, TV_FORECAST, TV_W,
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

/* One gauge family over every target (tmu held). */
static void stats_render_family(struct stats *s, struct out *o, enum tv v)
{
	static const char *const terms[] = { "busy", "headroom", "drain",
					     "boost", "feedback" };
	const struct target *t;
	char num[32];
	double x[5];
	size_t b, i;

	out_printf(o, "# HELP %s %s\n# TYPE %s gauge\n", stats_tfam[v].name,
		   stats_tfam[v].help, stats_tfam[v].name);
	for (b = 0; b < STATS_BUCKETS_T; b++)
		for (t = s->targets[b]; t; t = t->next) {
			const struct stats_terms *m = &t->terms;
			const char *ns = t->key;
			const char *name = t->key + t->ns_len + 1;
			const char *metric = name + t->name_len + 1;

			if ((v == TV_RAW || v > TV_HELD) && !t->have_terms)
				continue;
			if ((v == TV_CORRECTION && !m->feedback) ||
			    (v == TV_COLD && !m->have_cold))
				continue;
			if (v == TV_SLOTS) {
				x[0] = m->busy_slots;
				x[1] = m->headroom_slots;
				x[2] = m->drain_slots;
				x[3] = m->boost_slots;
				x[4] = m->feedback_slots;
				for (i = 0; i < (m->feedback ? 5u : 4u); i++)
					out_printf(o, "%s{scaledobject_namespace="
						   "\"%s\",scaledobject=\"%s\","
						   "metric=\"%s\",term=\"%s\"} "
						   "%s\n", stats_tfam[v].name, ns,
						   name, metric, terms[i],
						   stats_num(num, x[i]));
				continue;
			}
			x[0] = v == TV_TARGET ? (double)t->value :
			       v == TV_RAW ? (double)m->raw :
			       v == TV_HELD ? (double)(t->held != 0) :
			       v == TV_CAPPED ? (double)(m->capped != 0) :
			       v == TV_LAMBDA ? m->arrival_rate :
			       v == TV_FORECAST ? m->arrival_forecast :
			       v == TV_W ? m->service_time_s :
			       v == TV_Q ? m->queue_depth :
			       v == TV_CORRECTION ? m->correction :
			       v == TV_COLD ? m->cold_start_s : m->shed_rate;
			out_printf(o, "%s{scaledobject_namespace=\"%s\","
				   "scaledobject=\"%s\",metric=\"%s\"} %s\n",
				   stats_tfam[v].name, ns, name, metric,
				   stats_num(num, x[0]));
		}
}

/* The target gauges (tmu held). */
static void stats_render_targets(struct stats *s, struct out *o)
{
	size_t v;

	for (v = 0; v < STATS_TFAMS; v++)
		stats_render_family(s, o, (enum tv)v);
	out_printf(o, "# HELP staffer_target_series_dropped_total Answers not "
		   "shown as a gauge: more than %d ScaledObjects.\n"
		   "# TYPE staffer_target_series_dropped_total counter\n"
		   "staffer_target_series_dropped_total %llu\n",
		   STATS_TARGETS_MAX, s->targets_dropped);
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

size_t stats_render(struct stats *s, const struct fetch_stats *fs,
		    double now, char *buf, size_t size)
{
	struct counters c;
	struct out o = { buf, size, 0 };
	size_t m, k;

	if (size)
		buf[0] = '\0';
	pthread_mutex_lock(&s->mu);
	c = s->n;
	pthread_mutex_unlock(&s->mu);
	stats_render_process(&o);
	pthread_mutex_lock(&s->tmu);
	stats_expire(s, now);
	stats_render_targets(s, &o);
	pthread_mutex_unlock(&s->tmu);
	pthread_mutex_lock(&s->bmu);
	stats_render_backends(s, &o);
	pthread_mutex_unlock(&s->bmu);

	out_printf(&o, "# HELP staffer_rpc_requests_total gRPC calls answered, "
		   "by method and status code.\n"
		   "# TYPE staffer_rpc_requests_total counter\n");
	for (m = 0; m < STATS_METHODS; m++)
		for (k = 0; k < STATS_CODES; k++)
			if (c.calls[m][k] || k == 0)
				out_printf(&o, "staffer_rpc_requests_total{"
					   "method=\"%s\",code=\"%s\"} %llu\n",
					   stats_methods[m], stats_codes[k],
					   c.calls[m][k]);
	out_printf(&o, "# HELP staffer_rpc_duration_seconds Time from a "
		   "call's arrival to its answer (a stream: how long it was "
		   "open).\n"
		   "# TYPE staffer_rpc_duration_seconds histogram\n");
	for (m = 0; m < STATS_METHODS; m++) {
		for (k = 0; k < STATS_BUCKETS; k++)
			out_printf(&o, "staffer_rpc_duration_seconds_bucket{"
				   "method=\"%s\",le=\"%g\"} %llu\n",
				   stats_methods[m], stats_le[k],
				   c.bucket[m][k]);
		out_printf(&o, "staffer_rpc_duration_seconds_bucket{method="
			   "\"%s\",le=\"+Inf\"} %llu\n"
			   "staffer_rpc_duration_seconds_sum{method=\"%s\"} "
			   "%.6f\n"
			   "staffer_rpc_duration_seconds_count{method=\"%s\"} "
			   "%llu\n", stats_methods[m], c.count[m],
			   stats_methods[m], c.sum[m], stats_methods[m],
			   c.count[m]);
	}
	out_printf(&o, "# HELP staffer_streams_open StreamIsActive streams "
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
		   "staffer_metadata_cache_total{result=\"miss\"} %llu\n",
		   c.streams, c.pushes[0], c.pushes[1], c.meta_cache[1],
		   c.meta_cache[0]);
	if (fs)
		out_printf(&o, "# HELP staffer_backend_requests_total HTTP "
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
			   "\"error\"} %lu\n",
			   fs->requests, fs->cache_hits, fs->coalesced,
			   fs->cred_ok, fs->cred_failed);
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return o.len;
}
