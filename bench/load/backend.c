/* backend.c - see backend.h. */
#include "backend.h"

#include <arpa/inet.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "num.h"

#define BK_BUCKETS (1u << 16)
#define BK_BODY_MAX (BACKEND_POINTS_MAX * 40 + 256)

struct bk_key {
	struct bk_key *next;
	uint32_t hash;
	unsigned long count;          /* since the last reset */
	char text[];                  /* "i:" or "r:" and the query (a
				       * range's: "step\nquery") */
};

struct bk {
	pthread_mutex_t mu;           /* guards everything below */
	struct bk_key *buckets[BK_BUCKETS];
	unsigned long keys, requests, used, max;
	long slow;                    /* slow requests in flight */
	double slow_s, value;
	unsigned series;              /* /metrics: counters exported */
	double t0;                    /* when the counters were 0 */
	double slot;                  /* > 0: samples stamped at the last
				       * multiple of slot seconds */
	double tokens;                /* > 0: also bench_prompt_tokens_total,
				       * tokens times each request counter */
};

static volatile sig_atomic_t bk_stop;

static void bk_on_signal(int sig)
{
	(void)sig;
	bk_stop = 1;
}

static double bk_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double backend_rate(unsigned i)
{
	return 0.5 + 0.25 * (double)(i % 8);
}

static uint32_t bk_hash(char kind, const char *q)
{
	uint32_t h = 2166136261u ^ (unsigned char)kind;
	const unsigned char *p;

	for (p = (const unsigned char *)q; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h;
}

/* Count one request for (kind, q): a distinct query is its text, instant
 * or range, and a range's step (q then "step\nquery": the forecast's and
 * the surge headroom's ranges of one query are two queries). */
static void bk_count(struct bk *b, char kind, const char *q)
{
	uint32_t h = bk_hash(kind, q);
	struct bk_key **slot = &b->buckets[h % BK_BUCKETS], *k;
	size_t len = strlen(q);

	pthread_mutex_lock(&b->mu);
	b->requests++;
	for (k = *slot; k; k = k->next)
		if (k->hash == h && k->text[0] == kind &&
		    !strcmp(k->text + 2, q))
			break;
	if (!k && b->keys < BACKEND_KEYS_MAX) {
		k = malloc(sizeof(*k) + len + 3);
		if (k) {
			k->hash = h;
			k->count = 0;
			k->text[0] = kind;
			k->text[1] = ':';
			memcpy(k->text + 2, q, len + 1);
			k->next = *slot;
			*slot = k;
			b->keys++;
		}
	}
	if (k) {
		if (k->count++ == 0)
			b->used++;
		if (k->count > b->max)
			b->max = k->count;
	}
	pthread_mutex_unlock(&b->mu);
}

static void bk_reset(struct bk *b)
{
	struct bk_key *k;
	size_t i;

	pthread_mutex_lock(&b->mu);
	for (i = 0; i < BK_BUCKETS; i++)
		for (k = b->buckets[i]; k; k = k->next)
			k->count = 0;
	b->requests = b->used = b->max = 0;
	pthread_mutex_unlock(&b->mu);
}

static void bk_free_keys(struct bk *b)
{
	struct bk_key *k, *next;
	size_t i;

	for (i = 0; i < BK_BUCKETS; i++)
		for (k = b->buckets[i]; k; k = next) {
			next = k->next;
			free(k);
		}
}

static enum MHD_Result bk_reply(struct MHD_Connection *conn, unsigned status,
				char *body, size_t len, const char *ctype)
{
	struct MHD_Response *r;
	enum MHD_Result rc;

	/* body is malloc'd and now owned by the response */
	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	rc = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result bk_text(struct MHD_Connection *conn, unsigned status,
			       const char *text)
{
	char *body = strdup(text);

	return body ? bk_reply(conn, status, body, strlen(body),
			       "text/plain") : MHD_NO;
}

/* A query_range answer: points start, start+step, ... <= end. */
static enum MHD_Result bk_range(struct bk *b, struct MHD_Connection *conn)
{
	const char *s_start = MHD_lookup_connection_value(
		conn, MHD_GET_ARGUMENT_KIND, "start");
	const char *s_end = MHD_lookup_connection_value(
		conn, MHD_GET_ARGUMENT_KIND, "end");
	const char *s_step = MHD_lookup_connection_value(
		conn, MHD_GET_ARGUMENT_KIND, "step");
	double start, end, step, t;
	char *body;
	size_t len = 0, n = 0;

	if (!s_start || !s_end || !s_step ||
	    num_parse_double(s_start, &start) ||
	    num_parse_double(s_end, &end) ||
	    num_parse_double(s_step, &step) || !(step > 0) || end < start)
		return bk_text(conn, MHD_HTTP_BAD_REQUEST,
			       "{\"status\":\"error\",\"errorType\":"
			       "\"bad_data\",\"error\":\"bad range\"}");
	body = malloc(BK_BODY_MAX);
	if (!body)
		return MHD_NO;
	len += (size_t)snprintf(body, BK_BODY_MAX,
		"{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\","
		"\"result\":[{\"metric\":{},\"values\":[");
	for (t = start; t <= end + 1e-9 && n < BACKEND_POINTS_MAX;
	     t = start + step * (double)++n)
		len += (size_t)snprintf(body + len, BK_BODY_MAX - len,
					"%s[%.3f,\"%g\"]", n ? "," : "", t,
					b->value);
	len += (size_t)snprintf(body + len, BK_BODY_MAX - len, "]}]}}");
	return bk_reply(conn, MHD_HTTP_OK, body, len, "application/json");
}

/*
 * /metrics: b->series counters bench_requests_total{obj="obj-I"}, each
 * growing at backend_rate(I) a second since the backend started, for a
 * real Prometheus to scrape (bench/service.py's Prometheus run); with
 * --tokens T as many bench_prompt_tokens_total{obj="obj-I"}, growing T
 * times as fast (a prefill pool's prompt tokens).
 */
static enum MHD_Result bk_metrics(struct bk *b, struct MHD_Connection *conn)
{
	size_t cap = (size_t)b->series * (b->tokens > 0 ? 2 * 96 : 96) + 256,
	       len = 0;
	double now = bk_wall(), t;
	char *body = malloc(cap), stamp[32] = "";
	unsigned i;

	if (!body)
		return MHD_NO;
	if (b->slot > 0) {
		now = floor(now / b->slot) * b->slot;
		snprintf(stamp, sizeof(stamp), " %.0f", now * 1000);
	}
	t = now - b->t0;
	len += (size_t)snprintf(body, cap, "# TYPE bench_requests_total "
				"counter\n");
	for (i = 0; i < b->series && len < cap; i++)
		len += (size_t)snprintf(body + len, cap - len,
					"bench_requests_total{obj=\"obj-%u\"} "
					"%.3f%s\n", i, backend_rate(i) * t, stamp);
	if (b->tokens > 0 && len < cap)
		len += (size_t)snprintf(body + len, cap - len, "# TYPE "
					"bench_prompt_tokens_total counter\n");
	for (i = 0; b->tokens > 0 && i < b->series && len < cap; i++)
		len += (size_t)snprintf(body + len, cap - len,
					"bench_prompt_tokens_total{obj=\"obj-%u\"} "
					"%.3f%s\n", i,
					b->tokens * backend_rate(i) * t, stamp);
	if (len >= cap)
		len = cap - 1;
	return bk_reply(conn, MHD_HTTP_OK, body, len,
			"text/plain; version=0.0.4");
}

static enum MHD_Result bk_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_len, void **state)
{
	struct bk *b = cls;
	const char *q;
	char *body;
	int n;

	(void)version;
	(void)upload;
	(void)upload_len;
	/* Answer on the second call, once MHD has the whole request: a
	 * response queued on the first one makes MHD close the connection
	 * after it, and Prometheus keeps connections alive. */
	if (!*state) {
		*state = b;
		return MHD_YES;
	}
	if (strcmp(method, "GET"))
		return bk_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "GET only\n");
	if (!strcmp(url, "/-/healthy"))
		return bk_text(conn, MHD_HTTP_OK, "ok\n");
	if (!strcmp(url, "/metrics"))
		return bk_metrics(b, conn);
	if (!strcmp(url, "/-/reset")) {
		bk_reset(b);
		return bk_text(conn, MHD_HTTP_OK, "ok\n");
	}
	if (!strcmp(url, "/-/stats")) {
		char text[256];

		pthread_mutex_lock(&b->mu);
		snprintf(text, sizeof(text), "requests %lu\nkeys %lu\nused %lu\n"
			 "max %lu\nslow %ld\n", b->requests, b->keys, b->used,
			 b->max, b->slow);
		pthread_mutex_unlock(&b->mu);
		return bk_text(conn, MHD_HTTP_OK, text);
	}
	if (strcmp(url, "/api/v1/query") && strcmp(url, "/api/v1/query_range"))
		return bk_text(conn, MHD_HTTP_NOT_FOUND, "not found\n");
	q = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "query");
	if (!q)
		return bk_text(conn, MHD_HTTP_BAD_REQUEST,
			       "{\"status\":\"error\",\"errorType\":"
			       "\"bad_data\",\"error\":\"no query\"}");
	if (url[13] == '_') {
		const char *st = MHD_lookup_connection_value(conn,
			MHD_GET_ARGUMENT_KIND, "step");
		size_t kn = strlen(q) + 40;
		char *k = malloc(kn);

		if (!k)
			return MHD_NO;
		snprintf(k, kn, "%.32s\n%s", st ? st : "", q);
		bk_count(b, 'r', k);
		free(k);
	} else {
		bk_count(b, 'i', q);
	}
	if (!strncmp(q, "slow", 4)) {
		struct timespec ts;

		ts.tv_sec = (time_t)b->slow_s;
		ts.tv_nsec = (long)((b->slow_s - (double)ts.tv_sec) * 1e9);
		pthread_mutex_lock(&b->mu);
		b->slow++;
		pthread_mutex_unlock(&b->mu);
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&b->mu);
		b->slow--;
		pthread_mutex_unlock(&b->mu);
	}
	if (url[13] == '_')
		return bk_range(b, conn);
	body = malloc(256);
	if (!body)
		return MHD_NO;
	n = snprintf(body, 256, "{\"status\":\"success\",\"data\":{"
		     "\"resultType\":\"vector\",\"result\":[{\"metric\":{},"
		     "\"value\":[%.3f,\"%g\"]}]}}", bk_wall(), b->value);
	return bk_reply(conn, MHD_HTTP_OK, body, (size_t)n, "application/json");
}

static void bk_usage(FILE *fp)
{
	fprintf(fp, "usage: staffer-load backend [--port P] [--slow-ms MS] "
		"[--value V] [--series N [--origin UNIX_S] [--slot S] "
		"[--tokens T]]\n");
}

int backend_main(int argc, char **argv)
{
	struct bk *b = NULL;
	struct MHD_Daemon *d = NULL;
	struct sockaddr_in sin;
	const union MHD_DaemonInfo *info;
	double port = 0, slow_ms = 1900, series = 0, origin = 0, slot = 0;
	int i, rc = 2;

	b = calloc(1, sizeof(*b));
	if (!b)
		return 1;
	pthread_mutex_init(&b->mu, NULL);
	b->value = 2;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		double *dst = NULL, lo = 0, hi = 0;

		if (!strcmp(a, "--port"))
			dst = &port, lo = 0, hi = 65535;
		else if (!strcmp(a, "--slow-ms"))
			dst = &slow_ms, lo = 0, hi = 60000;
		else if (!strcmp(a, "--value"))
			dst = &b->value, lo = 0, hi = 1e9;
		else if (!strcmp(a, "--series"))
			dst = &series, lo = 0, hi = BACKEND_SERIES_MAX;
		else if (!strcmp(a, "--origin"))
			dst = &origin, lo = 0, hi = 1e11;
		else if (!strcmp(a, "--slot"))
			dst = &slot, lo = 0, hi = 3600;
		else if (!strcmp(a, "--tokens"))
			dst = &b->tokens, lo = 0, hi = 1e6;
		if (!dst || !v || num_parse_double(v, dst) || *dst < lo ||
		    *dst > hi) {
			fprintf(stderr, "staffer-load backend: bad option "
				"'%.60s'\n", a);
			bk_usage(stderr);
			goto out;
		}
		i++;
	}
	b->slow_s = slow_ms / 1000;
	b->series = (unsigned)series;
	b->t0 = origin > 0 ? origin : bk_wall();
	b->slot = slot;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION |
			     MHD_USE_INTERNAL_POLLING_THREAD |
			     MHD_USE_ERROR_LOG, 0, NULL, NULL, bk_request, b,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sin,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)1000,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
			     MHD_OPTION_END);
	rc = 1;
	if (!d) {
		fprintf(stderr, "staffer-load backend: cannot listen on "
			"127.0.0.1:%d\n", (int)port);
		goto out;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	printf("listening %u\n", info ? (unsigned)info->port : (unsigned)port);
	fflush(stdout);
	signal(SIGINT, bk_on_signal);
	signal(SIGTERM, bk_on_signal);
	while (!bk_stop)
		pause();
	rc = 0;
out:
	if (d)
		MHD_stop_daemon(d);
	bk_free_keys(b);
	pthread_mutex_destroy(&b->mu);
	free(b);
	return rc;
}
