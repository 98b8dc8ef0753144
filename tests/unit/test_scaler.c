/*
 * test_scaler.c - unknown data never lowers an answer (scaler.c,
 * docs/metadata.md staleHoldSeconds): every optional signal, every kind of
 * unknown.
 *
 * The backend is a Prometheus played on loopback by this file (fakeprom_*
 * below): it answers /api/v1/query and /api/v1/query_range as Prometheus
 * does (a vector or matrix of one series, values as strings, "NaN" and
 * "+Inf" spelt as Prometheus spells them, an empty result, or an error
 * reply with Prometheus' status codes), from a table of behaviours by
 * query text.  The scaler, fetch and decide are the real ones.
 *
 * For each optional signal (slaMissQuery's range, coldStartQuery, the
 * arrival rate's range and its surge range, currentReplicasQuery's recent
 * range) a trigger
 * first answers with every signal known (T1); the signal then turns
 * unknown in one way (no series, NaN at every point, +Inf, -Inf, a failed
 * query) and the answer must stay T1, although the same trigger without
 * the hold (staleHoldSeconds 0, checked too) answers lower: the
 * signal's fallback alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "check.h"
#include "config.h"
#include "fetch.h"
#include "log.h"
#include "meta.h"
#include "scaler.h"

/* ---- a Prometheus on loopback ------------------------------------------ */

enum fp_kind {
	FK_VALUE,      /* v + slope * (t - end) at every point */
	FK_EMPTY,      /* no series */
	FK_NAN,        /* "NaN" at every point */
	FK_PINF,       /* "+Inf" */
	FK_NINF,       /* "-Inf" */
	FK_FAIL,       /* HTTP 422, errorType execution */
};

#define FK_RULES 512

struct fp_rule {
	char query[128];
	int range;             /* 0: query; query_range with a step of at most
				* 15 s (1) or above (2: the surge range) */
	enum fp_kind kind;
	double v, slope;
	double wave;           /* +-wave about the line, alternating every
				* 4 steps (fp_wave()) */
};

static struct {
	pthread_mutex_t mu;
	struct fp_rule rules[FK_RULES];
	size_t n;
	double surge_span;     /* end - start of the last surge range asked */
	unsigned long asked[3]; /* requests by fp_rule.range */
	int fd, stop;
	pthread_t thread;
	int port;
} fp = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* Set how query answers (range: its query_range, as fp_rule.range). */
static void fp_set(const char *query, int range, enum fp_kind kind, double v,
		   double slope)
{
	size_t i;

	pthread_mutex_lock(&fp.mu);
	for (i = 0; i < fp.n; i++)
		if (fp.rules[i].range == range &&
		    !strcmp(fp.rules[i].query, query))
			break;
	assert_true(i < FK_RULES);
	if (i == fp.n)
		fp.n++;
	snprintf(fp.rules[i].query, sizeof(fp.rules[i].query), "%s", query);
	fp.rules[i].range = range;
	fp.rules[i].kind = kind;
	fp.rules[i].v = v;
	fp.rules[i].slope = slope;
	fp.rules[i].wave = 0;
	pthread_mutex_unlock(&fp.mu);
}

/* A swing of +-wave on query's existing rule (range as fp_rule.range):
 * bursts that a line has not, for a peakedness above 1. */
static void fp_wave(const char *query, int range, double wave)
{
	size_t i;

	pthread_mutex_lock(&fp.mu);
	for (i = 0; i < fp.n; i++)
		if (fp.rules[i].range == range &&
		    !strcmp(fp.rules[i].query, query))
			fp.rules[i].wave = wave;
	pthread_mutex_unlock(&fp.mu);
}

/* The value of parameter name in the query string q, %-decoded, into
 * out[len]; 0 when found. */
static int fp_param(const char *q, const char *name, char *out, size_t len)
{
	size_t nl = strlen(name), o = 0;
	const char *p = q;

	while (p && *p) {
		if (!strncmp(p, name, nl) && p[nl] == '=') {
			for (p += nl + 1; *p && *p != '&' && *p != ' ' &&
			     o + 1 < len; p++) {
				unsigned x;

				if (*p == '%' && sscanf(p + 1, "%2x", &x) == 1) {
					out[o++] = (char)x;
					p += 2;
				} else {
					out[o++] = *p;
				}
			}
			out[o] = '\0';
			return 0;
		}
		p = strchr(p, '&');
		if (p)
			p++;
	}
	return -1;
}

static const char *fp_num(enum fp_kind k, double v, char buf[48])
{
	if (k == FK_NAN)
		return "NaN";
	if (k == FK_PINF)
		return "+Inf";
	if (k == FK_NINF)
		return "-Inf";
	snprintf(buf, 48, "%.10g", v);
	return buf;
}

/* r's swing at time x of a range at step. */
static double fp_swing(const struct fp_rule *r, double x, double step)
{
	return (long)floor(x / step / 4) % 2 ? -r->wave : r->wave;
}

/* The reply to one request line into body (malloc()ed); its status. */
static int fp_answer(const char *line, char **body)
{
	char query[256] = "", t[64];
	struct fp_rule r;
	size_t i, cap = 1 << 20, len = 0;
	int range = !strncmp(line, "GET /api/v1/query_range?", 24);
	char *b = malloc(cap), num[48];
	double start, end, step = 0, now = (double)time(NULL);

	assert_non_null(b);
	*body = b;
	fp_param(strchr(line, '?') ? strchr(line, '?') + 1 : "", "query",
		 query, sizeof(query));
	if (range && fp_param(strchr(line, '?') + 1, "step", t,
			      sizeof(t)) == 0) {
		step = atof(t);
		range = step > 15 ? 2 : 1;
	}
	pthread_mutex_lock(&fp.mu);
	for (i = 0; i < fp.n; i++)
		if (fp.rules[i].range == range &&
		    !strcmp(fp.rules[i].query, query))
			break;
	if (i == fp.n) {
		pthread_mutex_unlock(&fp.mu);
		snprintf(b, cap, "{\"status\":\"error\",\"errorType\":"
			 "\"bad_data\",\"error\":\"no rule for %s\"}", query);
		return 400;
	}
	r = fp.rules[i];
	fp.asked[range]++;
	pthread_mutex_unlock(&fp.mu);
	if (r.kind == FK_FAIL) {
		snprintf(b, cap, "{\"status\":\"error\",\"errorType\":"
			 "\"execution\",\"error\":\"fake outage\"}");
		return 422;
	}
	if (!range) {
		if (fp_param(strchr(line, '?') + 1, "time", t, sizeof(t)) ==
		    0)
			now = atof(t);
		if (r.kind == FK_EMPTY)
			snprintf(b, cap, "{\"status\":\"success\",\"data\":{"
				 "\"resultType\":\"vector\",\"result\":[]}}");
		else
			snprintf(b, cap, "{\"status\":\"success\",\"data\":{"
				 "\"resultType\":\"vector\",\"result\":[{"
				 "\"metric\":{},\"value\":[%.3f,\"%s\"]}]}}",
				 now, fp_num(r.kind, r.v, num));
		return 200;
	}
	fp_param(strchr(line, '?') + 1, "start", t, sizeof(t));
	start = atof(t);
	fp_param(strchr(line, '?') + 1, "end", t, sizeof(t));
	end = atof(t);
	if (range == 2) {
		pthread_mutex_lock(&fp.mu);
		fp.surge_span = end - start;
		pthread_mutex_unlock(&fp.mu);
	}
	len = (size_t)snprintf(b, cap, "{\"status\":\"success\",\"data\":{"
			       "\"resultType\":\"matrix\",\"result\":[");
	if (r.kind != FK_EMPTY) {
		double x;
		long k, n = (long)((end - start) / step + 1e-9);

		len += (size_t)snprintf(b + len, cap - len,
					"{\"metric\":{},\"values\":[");
		for (k = 0; k <= n; k++) {
			x = start + (double)k * step;
			len += (size_t)snprintf(b + len, cap - len,
						"%s[%.3f,\"%s\"]", k ? "," : "",
						x, fp_num(r.kind, r.v + r.slope *
							  (x - end) +
							  fp_swing(&r, x,
								   step),
							  num));
			assert_true(len < cap - 64);
		}
		len += (size_t)snprintf(b + len, cap - len, "]}");
	}
	snprintf(b + len, cap - len, "]}}");
	return 200;
}

static void *fp_main(void *arg)
{
	(void)arg;
	while (!fp.stop) {
		struct pollfd p = { fp.fd, POLLIN, 0 };
		char req[8192], head[256], *body;
		size_t got = 0;
		ssize_t k;
		int c, status;

		if (poll(&p, 1, 100) <= 0)
			continue;
		c = accept(fp.fd, NULL, NULL);
		if (c < 0)
			continue;
		while (got < sizeof(req) - 1 &&
		       (k = read(c, req + got, sizeof(req) - 1 - got)) > 0) {
			got += (size_t)k;
			req[got] = '\0';
			if (strstr(req, "\r\n\r\n"))
				break;
		}
		req[got] = '\0';
		status = fp_answer(req, &body);
		snprintf(head, sizeof(head), "HTTP/1.1 %d X\r\nContent-Type: "
			 "application/json\r\nContent-Length: %zu\r\n"
			 "Connection: close\r\n\r\n", status, strlen(body));
		/* the scaler may have given up on the answer (a world closed
		 * with a refresh in flight): a closed socket must be an
		 * error here, not a SIGPIPE that kills the test binary */
		if (send(c, head, strlen(head), MSG_NOSIGNAL) < 0 ||
		    send(c, body, strlen(body), MSG_NOSIGNAL) < 0)
			print_error("fake Prometheus: write failed\n");
		free(body);
		close(c);
	}
	return NULL;
}

static void fp_start(void)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int one = 1;

	fp.fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fp.fd >= 0);
	setsockopt(fp.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fp.fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fp.fd, 64), 0);
	assert_int_equal(getsockname(fp.fd, (struct sockaddr *)&a, &len), 0);
	fp.port = ntohs(a.sin_port);
	fp.stop = 0;
	assert_int_equal(pthread_create(&fp.thread, NULL, fp_main, NULL), 0);
}

static void fp_stop(void)
{
	fp.stop = 1;
	pthread_join(fp.thread, NULL);
	close(fp.fd);
}

/* ---- the scaler against it ------------------------------------------------ */

struct world {
	struct config cfg;
	struct fetch *f;
	struct scaler *sc;
};

/* A scaler and its fetch on fp with cacheTTLSeconds ttl: 0, or -1. */
static int world_open(struct world *w, int ttl)
{
	char text[512], err[CONFIG_ERR_MAX];

	snprintf(text, sizeof(text), "{\"cacheTTLSeconds\":%d,\"backends\":"
		 "[{\"name\":\"p\",\"url\":\"http://127.0.0.1:%d\"}]}", ttl,
		 fp.port);
	config_init(&w->cfg);
	if (config_load_text(&w->cfg, text, "test.json", err)) {
		print_error("%s\n", err);
		return -1;
	}
	w->f = fetch_new();
	w->sc = w->f ? scaler_new(&w->cfg, w->f, NULL) : NULL;
	return w->sc ? 0 : -1;
}

static void world_close(struct world *w)
{
	fetch_stop(w->f);
	scaler_free(w->sc);
	fetch_free(w->f);
	config_release(&w->cfg);
}

static int setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));

	assert_non_null(w);
	fp_start();
	log_set_level(getenv("TEST_LOG") ? "debug" : "error");
	*state = w;
	return world_open(w, 0);
}

static int teardown(void **state)
{
	struct world *w = *state;

	world_close(w);
	fp_stop();
	free(w);
	return 0;
}

struct got {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done;
	struct scaler_result r;
};

static void on_result(void *arg, const struct scaler_result *r)
{
	struct got *g = arg;

	pthread_mutex_lock(&g->mu);
	g->r = *r;
	g->r.reads = NULL;     /* borrowed: not valid after the callback */
	g->r.obs = NULL;
	g->r.d = NULL;
	g->done = 1;
	pthread_cond_signal(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

/* GetMetrics of ScaledObject "t"/name with metadata kv (NULL-ended key,
 * value pairs) into *r, through scaler_evaluate_now() when now_ok, else
 * scaler_evaluate(): 1 when the answer came before the call returned
 * (from the cache, on this thread), else 0. */
static int evaluate_kv(struct world *w, const char *name, const char **kv,
		       int now_ok, struct scaler_result *r)
{
	const char *keys[META_KEYS_MAX], *values[META_KEYS_MAX];
	struct got g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			 0, { 0 } };
	char msg[SCALER_MSG_MAX];
	struct timespec until;
	struct meta m;
	size_t n = 0;
	int now;

	while (kv[2 * n]) {
		keys[n] = kv[2 * n];
		values[n] = kv[2 * n + 1];
		n++;
	}
	meta_init(&m);
	if (scaler_parse(w->sc, "t", &m, keys, values, n, msg) != SCALER_OK) {
		print_error("%s\n", msg);
		fail();
	}
	assert_int_equal((now_ok ? scaler_evaluate_now : scaler_evaluate)(
				 w->sc, "test", "t", name, "fp", &m,
				 SCALER_METRICS, on_result, &g), 0);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 30;
	pthread_mutex_lock(&g.mu);
	now = g.done;
	while (!g.done)
		assert_int_equal(pthread_cond_timedwait(&g.cv, &g.mu, &until),
				 0);
	pthread_mutex_unlock(&g.mu);
	meta_release(&m);
	*r = g.r;
	return now;
}

static void metrics(struct world *w, const char *name, const char **kv,
		    struct scaler_result *r)
{
	evaluate_kv(w, name, kv, 0, r);
}

/* The optional signals, each with the metadata that makes it matter and
 * the rule (query, range) that turns unknown. */
enum sig { S_MISS, S_COLD, S_SERIES, S_RECENT, S_SURGE, S_KV_USED,
	   S_PREFILL_CAP, S_KV_CAP, S_TOKENS, S_COUNT };

static const char *const sig_name[S_COUNT] = {
	"slaMissQuery", "coldStartQuery", "arrivalRateQuery (range)",
	"currentReplicasQuery (recent range)",
	"arrivalRateQuery (surge range)", "kvCacheUsageQuery",
	"prefillCapacityQuery", "kvCacheTokensQuery",
	"inputTokenRateQuery (range)",
};

static int sig_pool(enum sig s)
{
	return s == S_KV_USED || s == S_PREFILL_CAP || s == S_KV_CAP;
}

/* Rules for signal s's trigger `tag` with every signal known. */
static void known(enum sig s, const char *tag, char q[4][64])
{
	snprintf(q[0], 64, "lam_%s", tag);
	snprintf(q[1], 64, "miss_%s", tag);
	snprintf(q[2], 64, "cold_%s", tag);
	snprintf(q[3], 64, "cur_%s", tag);
	/* lambda 2 req/s now; a ramp of 0.002 req/s per s behind it where a
	 * forecast matters (the cold start and the series), flat otherwise */
	fp_set(q[0], 0, FK_VALUE, 2, 0);
	fp_set(q[0], 1, FK_VALUE, 2, s == S_COLD || s == S_SERIES ? 0.002 : 0);
	/* the surge range (3 hours at 45 s): flat, but for the surge's own
	 * case a slow climb from 1.38 to 3 req/s, above the 2 req/s now,
	 * whose rises over a lead time give a headroom above the level, up
	 * to the highest rate it read (docs/math.md) */
	fp_set(q[0], 2, FK_VALUE, s == S_SURGE ? 3 : 2,
	       s == S_SURGE ? 0.00015 : 0);
	fp_set(q[1], 1, FK_VALUE, 0.5, 0);      /* half the requests missed */
	fp_set(q[2], 0, FK_VALUE, 600, 0);      /* 600 s cold starts */
	fp_set(q[3], 0, FK_VALUE, 50, 0);       /* 50 replicas now, */
	fp_set(q[3], 1, FK_VALUE, 60, 0);       /* 60 within the period */
	if (s == S_TOKENS) {
		/* a prefill pool: 2000 tokens/s (1000 a request, W 0.125
		 * s), on smooth arrivals (z 1) but in bursts of +-1500:
		 * the TTFT's Erlang C at the tokens' z, 3 */
		fp_set(q[2], 0, FK_VALUE, 2000, 0);
		fp_set(q[2], 1, FK_VALUE, 2000, 0);
		fp_wave(q[2], 1, 1500);
		return;
	}
	if (!sig_pool(s))
		return;
	/* a pool: 2000 input and 500 output tokens/s (q[2], q[3]: 1000
	 * and 250 a request) and the measured value (q[1]) that asks for
	 * more than the metadata's: 100000 KV tokens in use (5000 a
	 * sequence, not 1125), C 2000 tokens/s (not 8000), K 20000 tokens
	 * (not 400000) */
	fp_set(q[2], 0, FK_VALUE, 2000, 0);
	fp_set(q[3], 0, FK_VALUE, 500, 0);
	fp_set(q[1], 0, FK_VALUE, s == S_KV_USED ? 100000 :
	       s == S_PREFILL_CAP ? 2000 : 20000, 0);
}

/* The query and endpoint that signal s reads. */
static void unknown_rule(enum sig s, char q[4][64], const char **query,
			 int *range)
{
	static const int which[S_COUNT] = { 1, 2, 0, 3, 0, 1, 1, 1, 2 };

	*query = q[which[s]];
	*range = s == S_COLD || sig_pool(s) ? 0 : s == S_SURGE ? 2 : 1;
}

/* The trigger's metadata, staleHoldSeconds hold. */
static void meta_of(enum sig s, char q[4][64], const char *hold,
		    const char **kv)
{
	size_t n = 0;

#define KV(k, v) do { kv[n++] = (k); kv[n++] = (v); } while (0)
	KV("arrivalRateQuery", q[0]);
	KV("serviceTime", "10");
	KV("staleHoldSeconds", hold);
	/* immediate drops, so that a lower answer would show at once */
	KV("scaleDownStep", "100000");
	KV("scaleDownPeriodSeconds", s == S_RECENT ? "60" : "0");
	switch (s) {
	case S_MISS:
		KV("slaMissQuery", q[1]);
		break;
	case S_COLD:
		KV("coldStartQuery", q[2]);
		KV("coldStartSeconds", "30");
		break;
	case S_SERIES:
	case S_SURGE:
		KV("coldStartSeconds", "120");
		break;
	case S_PREFILL_CAP:
		KV("pool", "prefill");
		KV("inputTokenRateQuery", q[2]);
		KV("prefillTokensPerSecond", "8000");
		KV("prefillCapacityQuery", q[1]);
		break;
	case S_KV_USED:
	case S_KV_CAP:
		KV("pool", "decode");
		KV("inputTokenRateQuery", q[2]);
		KV("outputTokenRateQuery", q[3]);
		KV("itlTargetSeconds", "0.04");
		KV("decodeProfile", "1:0.029,32:0.037,64:0.052");
		KV("kvCacheTokens", s == S_KV_USED ? "100000" : "400000");
		if (s == S_KV_USED)
			KV("kvCacheUsageQuery", q[1]);
		else
			KV("kvCacheTokensQuery", q[1]);
		break;
	case S_TOKENS:
		KV("pool", "prefill");
		KV("inputTokenRateQuery", q[2]);
		KV("prefillTokensPerSecond", "8000");
		KV("ttftTargetSeconds", "0.5");
		KV("coldStartSeconds", "0");
		break;
	case S_RECENT:
		KV("currentReplicasQuery", q[3]);
		break;
	case S_COUNT:
		break;
	}
#undef KV
	kv[n] = NULL;
}

static const char *const kind_name[] = {
	[FK_EMPTY] = "no series", [FK_NAN] = "NaN", [FK_PINF] = "+Inf",
	[FK_NINF] = "-Inf", [FK_FAIL] = "failed",
};

/*
 * Signal s turning unknown as kind: with a hold the answer stays the one
 * made with every signal known; without (staleHoldSeconds 0) it is the
 * fallback's, which is lower (else the case would prove nothing).
 */
static void one_case(struct world *w, enum sig s, enum fp_kind kind)
{
	char q[4][64], tag[48], name[64];
	const char *kv[32], *query;
	struct scaler_result r;
	int64_t t1, t0;
	int range;

	snprintf(tag, sizeof(tag), "s%d_k%d", (int)s, (int)kind);
	known(s, tag, q);
	unknown_rule(s, q, &query, &range);

	/* without a hold: the fallback's answer, lower */
	meta_of(s, q, "0", kv);
	snprintf(name, sizeof(name), "nohold-%d-%d", (int)s, (int)kind);
	metrics(w, name, kv, &r);
	if (r.err != SCALER_OK)
		print_error("%s: %s\n", sig_name[s], r.msg);
	assert_int_equal(r.err, SCALER_OK);
	t1 = r.target;
	fp_set(query, range, kind, 0, 0);
	metrics(w, name, kv, &r);
	if (kind == FK_FAIL && (s == S_MISS || s == S_COLD || sig_pool(s))) {
		/* a failing slaMissQuery, coldStartQuery or pool query
		 * fails the call like a required signal's: UNAVAILABLE
		 * without a hold */
		assert_int_equal(r.err, SCALER_EUNAVAIL);
		fp_set(query, range, FK_EMPTY, 0, 0);
		metrics(w, name, kv, &r);
	}
	if (r.err != SCALER_OK)
		print_error("%s %s: %s\n", sig_name[s], kind_name[kind],
			    r.msg);
	assert_int_equal(r.err, SCALER_OK);
	t0 = r.target;
	if (!(t0 < t1)) {
		print_error("%s %s: the fallback answers %lld, not below %lld; "
			    "the case shows nothing\n", sig_name[s],
			    kind_name[kind], (long long)t0, (long long)t1);
		fail();
	}

	/* with a hold: the answer made with every signal known */
	known(s, tag, q);
	meta_of(s, q, "300", kv);
	snprintf(name, sizeof(name), "hold-%d-%d", (int)s, (int)kind);
	metrics(w, name, kv, &r);
	assert_int_equal(r.err, SCALER_OK);
	assert_int_equal(r.target, t1);
	fp_set(query, range, kind, 0, 0);
	metrics(w, name, kv, &r);
	if (r.err != SCALER_OK || r.target != t1) {
		print_error("%s %s: answered %lld (err %d: %s) after %lld; "
			    "unknown data lowered the answer\n", sig_name[s],
			    kind_name[kind], (long long)r.target, (int)r.err,
			    r.msg, (long long)t1);
		fail();
	}
	/* and again: still held, not only once */
	metrics(w, name, kv, &r);
	assert_int_equal(r.err, SCALER_OK);
	assert_int_equal(r.target, t1);
	/* the signal back: the answer made from it */
	known(s, tag, q);
	metrics(w, name, kv, &r);
	assert_int_equal(r.err, SCALER_OK);
	assert_int_equal(r.target, t1);
	assert_int_equal(r.floored, 0);
}

static void run_signal(void **state, enum sig s)
{
	static const enum fp_kind kinds[] = {
		FK_EMPTY, FK_NAN, FK_PINF, FK_NINF, FK_FAIL,
	};
	size_t k;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		one_case(*state, s, kinds[k]);
}

static void test_sla_miss(void **state)
{
	run_signal(state, S_MISS);
}

static void test_cold_start(void **state)
{
	run_signal(state, S_COLD);
}

static void test_arrival_range(void **state)
{
	run_signal(state, S_SERIES);
}

static void test_recent_replicas(void **state)
{
	run_signal(state, S_RECENT);
}

static void test_surge_range(void **state)
{
	run_signal(state, S_SURGE);
}

/*
 * A cached answer (scaler_evaluate_now()) hands the surge range over as
 * kept (fetch.h), its points read only when the trigger's memo has not
 * derived them (decide.h): the fetch thread's answer either way, for a
 * trigger whose memo has them and for a new one whose memo has not.
 */
static void test_cached_surge(void **state)
{
	struct world w2;
	char q[4][64];
	const char *kv[32];
	struct scaler_result r0, r1;

	(void)state;
	known(S_SURGE, "cached", q);
	meta_of(S_SURGE, q, "300", kv);
	memset(&w2, 0, sizeof(w2));
	assert_int_equal(world_open(&w2, 60), 0);   /* answers cached */
	metrics(&w2, "cached-a", kv, &r0);
	assert_int_equal(r0.err, SCALER_OK);
	assert_true(r0.sig.arrival_surge > r0.sig.arrival_rate);
	/* the memo of cached-a holds the surge range's version */
	assert_int_equal(evaluate_kv(&w2, "cached-a", kv, 1, &r1), 1);
	assert_int_equal(r1.err, SCALER_OK);
	assert_true(r1.sig.arrival_surge == r0.sig.arrival_surge);
	assert_true(r1.target == r0.target);
	/* a new trigger on the same queries: the cache answers, its memo
	 * is empty, so the kept points are expanded */
	assert_int_equal(evaluate_kv(&w2, "cached-b", kv, 1, &r1), 1);
	assert_int_equal(r1.err, SCALER_OK);
	assert_true(r1.sig.arrival_surge == r0.sig.arrival_surge);
	assert_true(r1.target == r0.target);
	world_close(&w2);
}

/* Known signals still raise a floored answer: the floor holds what
 * unknown data would lower, not what new data asks for. */
/* A pool's measured KV in use and capacities: unknown, they fall back
 * to the rates and the metadata, and never lower a held answer. */
static void test_pool_kv_used(void **state)
{
	run_signal(state, S_KV_USED);
}

static void test_pool_prefill_capacity(void **state)
{
	run_signal(state, S_PREFILL_CAP);
}

static void test_pool_kv_capacity(void **state)
{
	run_signal(state, S_KV_CAP);
}

/* A prefill pool's token range: the TTFT's Erlang C takes the tokens'
 * peakedness from it; unknown, it never lowers a held answer. */
static void test_pool_token_range(void **state)
{
	run_signal(state, S_TOKENS);
}

static void test_floor_rises(void **state)
{
	struct world *w = *state;
	char q[4][64];
	const char *kv[32];
	struct scaler_result r;
	int64_t t1;

	known(S_MISS, "rise", q);
	meta_of(S_MISS, q, "300", kv);
	metrics(w, "rise", kv, &r);
	assert_int_equal(r.err, SCALER_OK);
	t1 = r.target;
	fp_set(q[1], 1, FK_EMPTY, 0, 0);
	fp_set(q[0], 0, FK_VALUE, 20, 0);      /* ten times the demand */
	fp_set(q[0], 1, FK_VALUE, 20, 0);
	metrics(w, "rise", kv, &r);
	assert_int_equal(r.err, SCALER_OK);
	assert_true(r.target > t1);
	assert_int_equal(r.floored, 0);
}

/*
 * A measured cold start longer than coldStartSeconds sizes the next
 * evaluation's ranges (decide_size_cold()): the surge range of
 * coldStartSeconds 120 is 3 hours (60 lead times of 180 s); once
 * coldStartQuery has said 300 s it is 60 lead times of the 340 s step
 * plus the lag, 24000 s, which holds the 40 lead times of 360 s the
 * estimate needs.
 */
/* end - start of the last surge range the fake was asked for. */
static double fp_surge_span(void)
{
	double span;

	pthread_mutex_lock(&fp.mu);
	span = fp.surge_span;
	pthread_mutex_unlock(&fp.mu);
	return span;
}

static void test_surge_sized_by_cold(void **state)
{
	struct world *w = *state;
	const char *kv[] = {
		"arrivalRateQuery", "lam_sized", "serviceTime", "10",
		"coldStartSeconds", "120", "coldStartQuery", "cold_sized",
		NULL,
	};
	struct scaler_result r;
	double span;

	fp_set("lam_sized", 0, FK_VALUE, 2, 0);
	fp_set("lam_sized", 1, FK_VALUE, 2, 0);
	fp_set("lam_sized", 2, FK_VALUE, 2, 0);
	fp_set("cold_sized", 0, FK_VALUE, 300, 0);
	metrics(w, "sized", kv, &r);
	assert_int_equal(r.err, SCALER_OK);
	span = fp_surge_span();
	assert_true(span >= 10800 - 45 && span <= 10800);
	metrics(w, "sized", kv, &r);
	assert_int_equal(r.err, SCALER_OK);
	span = fp_surge_span();
	assert_true(span >= 24000 - 100 && span <= 24000);
	/* a measurement back at coldStartSeconds: sized for it again */
	fp_set("cold_sized", 0, FK_VALUE, 110, 0);
	metrics(w, "sized", kv, &r);
	metrics(w, "sized", kv, &r);
	assert_int_equal(r.err, SCALER_OK);
	span = fp_surge_span();
	assert_true(span >= 10800 - 45 && span <= 10800);
}

/*
 * A kept range whose step is longer than cacheTTLSeconds is reused for
 * its step, at most 3 x the TTL (fetch.c, entry_ttl()): with a TTL of 1 s,
 * a second call 1.5 s after the first asks for the instant query again
 * but not for the arrival rate's ranges (15 s and 45 s a point, reused
 * for 3 s here).
 */
static void test_range_ttl_step(void **state)
{
	struct world w2;
	const char *kv[] = {
		"arrivalRateQuery", "lam_ttl", "serviceTime", "10", NULL,
	};
	struct scaler_result r;
	unsigned long a0[3], a1[3];
	struct timespec pause = { 1, 500000000 };

	(void)state;
	fp_set("lam_ttl", 0, FK_VALUE, 2, 0);
	fp_set("lam_ttl", 1, FK_VALUE, 2, 0);
	fp_set("lam_ttl", 2, FK_VALUE, 2, 0);
	memset(&w2, 0, sizeof(w2));
	assert_int_equal(world_open(&w2, 1), 0);
	metrics(&w2, "ttl", kv, &r);
	assert_int_equal(r.err, SCALER_OK);
	pthread_mutex_lock(&fp.mu);
	memcpy(a0, fp.asked, sizeof(a0));
	pthread_mutex_unlock(&fp.mu);
	nanosleep(&pause, NULL);
	metrics(&w2, "ttl", kv, &r);
	assert_int_equal(r.err, SCALER_OK);
	pthread_mutex_lock(&fp.mu);
	memcpy(a1, fp.asked, sizeof(a1));
	pthread_mutex_unlock(&fp.mu);
	world_close(&w2);
	assert_true(a1[0] == a0[0] + 1);  /* the instant query: expired */
	assert_true(a1[1] == a0[1]);      /* the series: 15 s a point */
	assert_true(a1[2] == a0[2]);      /* the surge range: 45 s */
}

/* ---- a reload while evaluations start on another thread ------------------ */

struct reload_race {
	struct world *w;
	atomic_int stop;
	unsigned long reloads;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned long done;
};

static void *reloader(void *arg)
{
	struct reload_race *rr = arg;
	char text[512], err[CONFIG_ERR_MAX];

	snprintf(text, sizeof(text), "{\"cacheTTLSeconds\":0,\"backends\":"
		 "[{\"name\":\"p\",\"url\":\"http://127.0.0.1:%d\"}]}",
		 fp.port);
	while (!atomic_load(&rr->stop)) {
		struct config c, *shared;

		config_init(&c);
		if (config_load_text(&c, text, "reload.json", err) ||
		    !(shared = config_share(&c))) {
			config_release(&c);
			break;
		}
		scaler_set_config(rr->w->sc, shared);
		config_drop(shared);    /* the scaler holds it now */
		rr->reloads++;
	}
	return NULL;
}

static void on_race_result(void *arg, const struct scaler_result *r)
{
	struct reload_race *rr = arg;

	(void)r;
	pthread_mutex_lock(&rr->mu);
	rr->done++;
	pthread_cond_signal(&rr->cv);
	pthread_mutex_unlock(&rr->mu);
}

/*
 * SIGHUP's reload (scaler_set_config(), the completion-queue thread) while
 * StreamIsActive groups start evaluations on the stream thread: each
 * evaluation must hold the config it read.  It kept a bare pointer from
 * eval_setup() to the fetch job, so a reload between them freed the
 * config the fetch thread then held (ASan: heap-use-after-free in
 * config_hold(), reproduced against the server by a review).  Here
 * configs are replaced as fast as one thread can while another starts
 * 3000 evaluations; the sanitizers judge.
 */
static void test_reload_race(void **state)
{
	struct world *w = *state;
	struct reload_race rr = { .w = w, .mu = PTHREAD_MUTEX_INITIALIZER,
				  .cv = PTHREAD_COND_INITIALIZER };
	const char *keys[] = { "arrivalRateQuery", "serviceTime" };
	const char *values[] = { "lam_race", "10" };
	char msg[SCALER_MSG_MAX];
	struct timespec until;
	pthread_t t;
	unsigned long i, started = 0;

	fp_set("lam_race", 0, FK_VALUE, 2, 0);
	fp_set("lam_race", 1, FK_VALUE, 2, 0);
	fp_set("lam_race", 2, FK_VALUE, 2, 0);
	assert_int_equal(pthread_create(&t, NULL, reloader, &rr), 0);
	for (i = 0; i < 3000; i++) {
		struct meta m;

		meta_init(&m);
		if (scaler_parse(w->sc, "t", &m, keys, values, 2, msg) ==
		    SCALER_OK &&
		    !scaler_evaluate(w->sc, "test", "t", "race", "fp", &m,
				     SCALER_METRICS, on_race_result, &rr))
			started++;
		meta_release(&m);
	}
	atomic_store(&rr.stop, 1);
	pthread_join(t, NULL);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 60;
	pthread_mutex_lock(&rr.mu);
	while (rr.done < started)
		assert_int_equal(pthread_cond_timedwait(&rr.cv, &rr.mu,
							&until), 0);
	pthread_mutex_unlock(&rr.mu);
	assert_true(started == 3000);
	assert_true(rr.reloads > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sla_miss),
		cmocka_unit_test(test_cold_start),
		cmocka_unit_test(test_arrival_range),
		cmocka_unit_test(test_recent_replicas),
		cmocka_unit_test(test_surge_range),
		cmocka_unit_test(test_cached_surge),
		cmocka_unit_test(test_surge_sized_by_cold),
		cmocka_unit_test(test_range_ttl_step),
		cmocka_unit_test(test_pool_kv_used),
		cmocka_unit_test(test_pool_prefill_capacity),
		cmocka_unit_test(test_pool_kv_capacity),
		cmocka_unit_test(test_pool_token_range),
		cmocka_unit_test(test_floor_rises),
		cmocka_unit_test(test_reload_race),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
