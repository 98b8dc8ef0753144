/*
 * main.c - staffer-load: options and dispatch (see load.h).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "load.h"
#include "num.h"
#include "req.h"

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: staffer-load SCENARIO [options]\n"
"  the service benchmark's client (bench/service.py runs it; see\n"
"  docs/service-bench.md).  Scenarios:\n"
"    unary      --methods health,metrics --inflight 1,8,32: p50/p99, RPC/s\n"
"    streams    --streams K: open K StreamIsActive streams, then idle CPU\n"
"               and GetMetrics throughput beside them\n"
"    memory     --steps 100,1000,10000 --streams 1000,5000: server RSS,\n"
"               anonymous and file-backed\n"
"    keda       --objects 10000: KEDA's cycle (HPA every 15 s, poll 30 s)\n"
"    isolation  --noisy 20 --rate 200: a slow namespace, same backend\n"
"    bigreq     --inflight 256: ~1 MiB GetMetrics at once: answers by\n"
"               status, the server's peak RSS\n"
"    scrape     --metrics-url URL --scrapers 4 --objects 10000: GetMetrics\n"
"               p99 with scrapers over without (--scraper-nice N)\n"
"    backend    a fake Prometheus (its own options: backend --help)\n"
"  options (defaults in brackets):\n"
"    --addr HOST:PORT   staffer's gRPC address (required)\n"
"    --pid PID          staffer's pid, for its CPU and RSS\n"
"    --backend URL      the fake backend, for its request counts\n"
"    --backend-pid PID  the fake backend's pid, for its CPU\n"
"    --channels N       connections [1]     --reps N      repetitions [3]\n"
"    --inflight LIST    calls in flight [32] --seconds S  window [3]\n"
"    --idle-seconds S   idle CPU window [5] --timeout S   per call [30]\n"
"    --objects N        ScaledObjects [100] --queries N   stream queries [100]\n"
"    --noisy N          slow calls [20]     --rate R      quiet calls/s [200]\n"
"    --compress C       keda time factor [1] --warmup S   keda warm-up [30]\n"
"    --windows N        keda windows [3]    --window S    keda window [30]\n"
"    --seed N [1]  --ns NAMESPACE [bench]  --methods LIST  --steps LIST\n"
"    --streams LIST     --warm 0|1  unary: ask each object first [1]\n"
"    --query Q          keda: object I's query, {i} for I [obj_rate_I]\n"
"    --meta KEY=VALUE   one more metadata pair on every request, {i} in\n"
"                       VALUE for the object's index; again for more (up\n"
"                       to %d); a KEY sent anyway (arrivalRateQuery,\n"
"                       serviceTime, scalerAddress) takes VALUE, and is\n"
"                       left out when VALUE is empty\n"
"    --expect LIST      keda: object I's GetMetrics answer must be\n"
"                       LIST[I %% length] (a wrong one is counted)\n",
		REQ_META_MAX);
}

enum opt_type { OPT_STR, OPT_INT, OPT_DOUBLE, OPT_PID, OPT_U64, OPT_LIST,
		OPT_METHODS };

struct opt {
	const char *name;
	enum opt_type type;
	size_t off, count_off;   /* count_off: lists only */
	double min, max;
};

#define O(f) offsetof(struct load_opts, f)

static const struct opt opts[] = {
	{ "--addr", OPT_STR, O(addr), 0, 0, 0 },
	{ "--pid", OPT_PID, O(pid), 0, 1, 4194304 },
	{ "--backend", OPT_STR, O(backend), 0, 0, 0 },
	{ "--backend-pid", OPT_PID, O(backend_pid), 0, 1, 4194304 },
	{ "--channels", OPT_INT, O(channels), 0, 1, LC_CHANNELS_MAX },
	{ "--reps", OPT_INT, O(reps), 0, 1, 100 },
	{ "--inflight", OPT_LIST, O(inflights), O(n_inflights), 1, 4096 },
	{ "--seconds", OPT_DOUBLE, O(seconds), 0, 0.1, 3600 },
	{ "--idle-seconds", OPT_DOUBLE, O(idle_s), 0, 0.5, 3600 },
	{ "--timeout", OPT_DOUBLE, O(timeout_s), 0, 0.1, 600 },
	{ "--objects", OPT_INT, O(objects), 0, 1, 100000 },
	{ "--queries", OPT_INT, O(queries), 0, 1, 100000 },
	{ "--noisy", OPT_INT, O(noisy), 0, 0, 1000 },
	{ "--rate", OPT_DOUBLE, O(rate), 0, 1, 100000 },
	{ "--compress", OPT_DOUBLE, O(compress), 0, 1, 100 },
	{ "--warmup", OPT_DOUBLE, O(warmup_s), 0, 0, 3600 },
	{ "--windows", OPT_INT, O(windows), 0, 1, 100 },
	{ "--window", OPT_DOUBLE, O(window_s), 0, 1, 3600 },
	{ "--seed", OPT_U64, O(seed), 0, 0, 1e15 },
	{ "--warm", OPT_INT, O(warm), 0, 0, 1 },
	{ "--ns", OPT_STR, O(ns), 0, 0, 0 },
	{ "--metrics-url", OPT_STR, O(metrics_url), 0, 0, 0 },
	{ "--scrapers", OPT_INT, O(scrapers), 0, 1, 64 },
	{ "--scraper-nice", OPT_INT, O(scraper_nice), 0, 0, 19 },
	{ "--query", OPT_STR, O(query), 0, 0, 0 },
	{ "--expect", OPT_LIST, O(expect), O(n_expect), 0, 1000000 },
	{ "--methods", OPT_METHODS, O(methods), O(n_methods), 0, 0 },
	{ "--steps", OPT_LIST, O(steps), O(n_steps), 1, 100000 },
	{ "--streams", OPT_LIST, O(stream_steps), O(n_stream_steps), 0,
	  100000 },
};

static int method_of(const char *s, size_t len)
{
	static const struct { const char *name; enum lc_method m; } names[] = {
		{ "health", LC_HEALTH }, { "metrics", LC_GET_METRICS },
		{ "active", LC_IS_ACTIVE }, { "spec", LC_GET_METRIC_SPEC },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i].name) == len &&
		    !strncmp(names[i].name, s, len))
			return (int)names[i].m;
	return -1;
}

/* "a,b,c" into out[], each within [min, max] (or a method name). */
static int parse_list(const char *v, const struct opt *op, int *out,
		      int *n)
{
	char num[32];
	const char *p = v, *comma;
	double d;
	size_t len;

	*n = 0;
	while (*p) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (*n >= LOAD_STEPS_MAX || !len || len >= sizeof(num))
			return -1;
		if (op->type == OPT_METHODS) {
			int m = method_of(p, len);

			if (m < 0)
				return -1;
			out[(*n)++] = m;
		} else {
			memcpy(num, p, len);
			num[len] = '\0';
			if (num_parse_double(num, &d) || d < op->min ||
			    d > op->max || d != (int)d)
				return -1;
			out[(*n)++] = (int)d;
		}
		p = comma ? comma + 1 : p + len;
	}
	return *n ? 0 : -1;
}

static int parse_opt(struct load_opts *o, const struct opt *op,
		     const char *v)
{
	char *base = (char *)o;
	double d = 0;

	switch (op->type) {
	case OPT_STR:
		*(const char **)(base + op->off) = v;
		return 0;
	case OPT_LIST:
	case OPT_METHODS:
		return parse_list(v, op, (int *)(base + op->off),
				  (int *)(base + op->count_off));
	default:
		break;
	}
	if (num_parse_double(v, &d) || d < op->min || d > op->max)
		return -1;
	switch (op->type) {
	case OPT_INT:
		if (d != (int)d)
			return -1;
		*(int *)(base + op->off) = (int)d;
		break;
	case OPT_PID:
		*(pid_t *)(base + op->off) = (pid_t)d;
		break;
	case OPT_U64:
		*(uint64_t *)(base + op->off) = (uint64_t)d;
		break;
	case OPT_DOUBLE:
		*(double *)(base + op->off) = d;
		break;
	default:
		return -1;
	}
	return 0;
}

static void opts_defaults(struct load_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->pid = -1;              /* not known: no CPU or RSS */
	o->backend_pid = -1;
	o->channels = 1;
	o->reps = 3;
	o->inflights[0] = 32;
	o->n_inflights = 1;
	o->seconds = 3;
	o->idle_s = 5;
	o->timeout_s = 30;
	o->objects = 100;
	o->queries = 100;
	o->noisy = 20;
	o->rate = 200;
	o->compress = 1;
	o->warmup_s = 30;
	o->windows = 3;
	o->window_s = 30;
	o->seed = 1;
	o->warm = 1;
	o->ns = "bench";
	o->scrapers = 4;
	o->methods[0] = LC_HEALTH;
	o->methods[1] = LC_GET_METRICS;
	o->n_methods = 2;
	o->steps[0] = 100;
	o->steps[1] = 1000;
	o->steps[2] = 10000;
	o->n_steps = 3;
	o->stream_steps[0] = 1000;
	o->n_stream_steps = 1;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(struct lc *c, const struct load_opts *o);
	} scenarios[] = {
		{ "unary", load_unary }, { "streams", load_streams },
		{ "memory", load_memory }, { "keda", load_keda },
		{ "isolation", load_isolation }, { "bigreq", load_bigreq },
		{ "scrape", load_scrape },
	};
	struct load_opts o;
	struct lc *c = NULL;
	char err[LC_ERR_MAX], why[200];
	size_t s, k;
	int i, rc;

	/* result lines reach bench/service.py as they happen */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "backend"))
		return backend_main(argc - 2, argv + 2);
	for (s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++)
		if (!strcmp(argv[1], scenarios[s].name))
			break;
	if (s == sizeof(scenarios) / sizeof(scenarios[0])) {
		fprintf(stderr, "staffer-load: unknown scenario '%.60s'\n",
			argv[1]);
		usage(stderr);
		return 2;
	}
	opts_defaults(&o);
	for (i = 2; i < argc; i += 2) {
		/* --meta may come again: each is one more pair (req.h) */
		if (!strcmp(argv[i], "--meta") && i + 1 < argc) {
			if (req_add_meta(argv[i + 1], why, sizeof(why))) {
				fprintf(stderr, "staffer-load: %s\n", why);
				return 2;
			}
			continue;
		}
		for (k = 0; k < sizeof(opts) / sizeof(opts[0]); k++)
			if (!strcmp(argv[i], opts[k].name))
				break;
		if (k == sizeof(opts) / sizeof(opts[0]) || i + 1 >= argc ||
		    parse_opt(&o, &opts[k], argv[i + 1])) {
			fprintf(stderr, "staffer-load: bad option '%.60s'%s\n",
				argv[i], i + 1 < argc ? "" : " (no value)");
			usage(stderr);
			return 2;
		}
	}
	if (!o.addr) {
		fprintf(stderr, "staffer-load: --addr is required\n");
		return 2;
	}
	c = lc_new(o.addr, o.channels, err);
	if (!c) {
		fprintf(stderr, "staffer-load: %s\n", err);
		return 1;
	}
	rc = 1;
	if (lc_wait_ready(c, 20)) {
		fprintf(stderr, "staffer-load: %s is not SERVING\n", o.addr);
		goto out;
	}
	rc = scenarios[s].run(c, &o) ? 1 : 0;
out:
	lc_free(c);
	return rc;
}
