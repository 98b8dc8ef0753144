/*
 * serve.c - `staffer serve`: flags, start-up, reload and orderly shutdown.
 *
 * Start-up order: config, TLS files, fetch thread, scaler, gRPC server.
 * Shutdown (SIGTERM or SIGINT) stops accepting and drains the calls, then
 * stops the fetch thread, then frees in reverse (see cmd_serve's end).
 * SIGHUP reloads the config file and the TLS files on the
 * serving thread (serve_reload()): a config that does not load is refused,
 * with the reason logged, and the old one stays; calls and streams stay
 * open.
 */
#include <curl/curl.h>
#include <grpc/grpc.h>
#include <malloc.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "certs.h"
#include "cmd.h"
#include "config.h"
#include "fetch.h"
#include "httpd.h"
#include "log.h"
#include "memlimit.h"
#include "memtrim.h"
#include "opt.h"
#include "rpc.h"
#include "scaler.h"
#include "stats.h"

#define SERVE_TRIM_THRESHOLD (4 << 20) /* bytes; see cmd_serve() */

static volatile sig_atomic_t stop_requested, reload_requested;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		reload_requested = 1;
	else
		stop_requested = 1;
}

/* What SIGHUP reloads. */
struct serve_reload {
	const char *cfg_path;        /* NULL: --prometheus, nothing to read */
	struct scaler *sc;
	struct certs *certs;         /* NULL: plaintext */
	int mtls;                    /* client certificates are required */
};

/* A config's `clients` only mean something under mTLS: without it there
 * is no identity to match, and an allowlist that allows everyone must not
 * look like one.  0, or -1 with err. */
static int check_clients(const struct config *c, int mtls,
			 char err[CONFIG_ERR_MAX])
{
	if (!c->n_clients || mtls)
		return 0;
	snprintf(err, CONFIG_ERR_MAX, "the config's 'clients' (%zu entries) "
		 "needs mTLS: --tls-cert, --tls-key and --tls-client-ca "
		 "(docs/security.md)", c->n_clients);
	return -1;
}

/* Warn about backends that send credentials or headers to every
 * namespace: in a shared cluster any tenant could read with them. */
static void warn_open_backends(const struct config *c)
{
	size_t i;

	for (i = 0; i < c->n_backends; i++) {
		const struct backend *b = &c->backends[i];

		if (!b->n_namespaces && (b->auth != CONFIG_AUTH_NONE ||
					 b->n_headers))
			log_warn("backend '%s' sends credentials or headers "
				 "and is open to every namespace; in a "
				 "multi-tenant cluster list its namespaces "
				 "(docs/security.md)", b->name);
	}
}

/* SIGHUP, on the serving thread (rpc.h). */
static void serve_reload(void *arg)
{
	struct serve_reload *r = arg;
	struct config cfg, *shared;
	char err[CONFIG_ERR_MAX > CERTS_ERR_MAX ? CONFIG_ERR_MAX :
		 CERTS_ERR_MAX];

	if (r->cfg_path) {
		config_init(&cfg);
		if (config_load_file(&cfg, r->cfg_path, err) ||
		    check_clients(&cfg, r->mtls, err)) {
			config_release(&cfg);
			log_error("SIGHUP: %s; keeping the config in use", err);
		} else if (!(shared = config_share(&cfg))) {
			config_release(&cfg);
			log_error("SIGHUP: out of memory; keeping the config "
				  "in use");
		} else {
			log_info("SIGHUP: config '%s' reloaded: %zu backends",
				 r->cfg_path, shared->n_backends);
			warn_open_backends(shared);
			scaler_set_config(r->sc, shared);
			config_drop(shared);   /* the scaler holds it */
		}
	} else {
		log_info("SIGHUP: no config file (--prometheus); nothing to "
			 "reload");
	}
	if (r->certs) {
		switch (certs_reload(r->certs, err)) {
		case 1:
			log_info("SIGHUP: new TLS files taken for new "
				 "connections");
			break;
		case 0:
			log_info("SIGHUP: TLS files unchanged");
			break;
		default:
			log_error("SIGHUP: TLS: %s; keeping the certificate "
				  "in use", err);
		}
	}
}

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: staffer serve [options]\n"
"  --listen ADDR         gRPC address, host:port or :port (default :9090;\n"
"                        env STAFFER_LISTEN)\n"
"  --config FILE         backends, JSON (env STAFFER_CONFIG); see\n"
"                        docs/config.md\n"
"  --prometheus URL      one backend named 'default' when there is no\n"
"                        config file (env STAFFER_PROMETHEUS)\n"
"  --log-level LEVEL     debug, info, warn or error (default info;\n"
"                        env STAFFER_LOG_LEVEL)\n"
"  --log-format FORMAT   text or json: one JSON object per line (default\n"
"                        text; env STAFFER_LOG_FORMAT)\n"
"  --grace-seconds N     on SIGTERM, time to finish calls (default 10)\n"
"  --state-file FILE     keep smoothing state across restarts (env\n"
"                        STAFFER_STATE_FILE); see docs/deploy.md\n"
"  --tls-cert FILE --tls-key FILE [--tls-client-ca FILE]\n"
"                        serve TLS; with a client CA, require mTLS\n"
"  --metrics-listen ADDR serve /metrics (Prometheus) and /healthz over\n"
"                        HTTP on :PORT or IPV4:PORT (default off; env\n"
"                        STAFFER_METRICS_LISTEN)\n"
"  --request-budget SIZE bytes of requests in flight at once, e.g. 64Mi\n"
"                        (env STAFFER_REQUEST_BUDGET; default a quarter\n"
"                        of the memory limit)\n"
"  --memory-limit SIZE   the container's memory limit, when its cgroup\n"
"                        does not say (env STAFFER_MEMORY_LIMIT)\n");
}

/* The flags; the environment fills what they leave unset. */
struct serve_args {
	const char *listen, *cfg_path, *prom, *level, *format;
	const char *state_path, *metrics, *tls_cert, *tls_key, *tls_ca;
	const char *budget, *mem_limit;
	double grace_s;
};

#define SA(f) offsetof(struct serve_args, f)

static const struct opt serve_opts[] = {
	OPT_S("--listen", SA(listen), 0),
	OPT_S("--config", SA(cfg_path), 0),
	OPT_S("--prometheus", SA(prom), 0),
	OPT_S("--log-level", SA(level), 0),
	OPT_S("--log-format", SA(format), 0),
	OPT_D("--grace-seconds", SA(grace_s), 0, 3600, "seconds", 0),
	OPT_S("--state-file", SA(state_path), OPT_NONEMPTY),
	OPT_S("--metrics-listen", SA(metrics), 0),
	OPT_S("--tls-cert", SA(tls_cert), 0),
	OPT_S("--tls-key", SA(tls_key), 0),
	OPT_S("--tls-client-ca", SA(tls_ca), 0),
	OPT_S("--request-budget", SA(budget), 0),
	OPT_S("--memory-limit", SA(mem_limit), 0),
	OPT_END,
};

static const struct opt_spec serve_spec = {
	"staffer serve", serve_opts, usage, NULL
};

/*
 * The request budget's size (budget.h): --request-budget, else a quarter
 * of the memory limit (--memory-limit, else the cgroup's), else
 * BUDGET_DEFAULT.  0, or -1 with a message on stderr (exit status 2).
 */
static int budget_size(const struct serve_args *a, size_t *out)
{
	const char *b = config_env_or(a->budget, "STAFFER_REQUEST_BUDGET");
	const char *m = config_env_or(a->mem_limit, "STAFFER_MEMORY_LIMIT");
	char err[MEMLIMIT_ERR_MAX];
	size_t mem = 0, v;

	if (b) {
		if (memlimit_parse(b, &v, err)) {
			fprintf(stderr, "staffer serve: --request-budget: %s\n",
				err);
			return -1;
		}
		if (v < BUDGET_MIN) {
			fprintf(stderr, "staffer serve: --request-budget: "
				"'%s' is below %u bytes (4Mi); allowed: 4Mi "
				"or more\n", b, BUDGET_MIN);
			return -1;
		}
		*out = v;
		log_info("request budget %zu bytes (--request-budget)", v);
		return 0;
	}
	if (m && memlimit_parse(m, &mem, err)) {
		fprintf(stderr, "staffer serve: --memory-limit: %s\n", err);
		return -1;
	}
	if (!mem)
		mem = memlimit_cgroup();
	*out = budget_for_limit(mem);
	if (mem)
		log_info("request budget %zu bytes: a quarter of the memory "
			 "limit %zu (%s)", *out, mem, m ? "--memory-limit" :
			 "the container's cgroup");
	else
		log_info("request budget %zu bytes (no memory limit known; "
			 "--request-budget or --memory-limit set it)", *out);
	return 0;
}

int cmd_serve(int argc, char **argv)
{
	enum opt_rc r;
	const char *listen = NULL, *cfg_path = NULL, *prom = NULL;
	const char *level = NULL, *state_path = NULL, *metrics = NULL;
	const char *format = NULL;
	struct rpc_options o;
	struct serve_reload rl;
	struct config cfg, *shared = NULL;
	struct certs *certs = NULL;
	const char *tls_cert = NULL, *tls_key = NULL, *tls_ca = NULL;
	struct fetch *f = NULL;
	struct scaler *sc = NULL;
	struct rpc_server *srv = NULL;
	struct stats *st = NULL;
	struct httpd *web = NULL;
	struct budget *budget = NULL;
	size_t budget_bytes = 0;
	struct memtrim *trim = NULL;
	char err[CONFIG_ERR_MAX + RPC_ERR_MAX + CERTS_ERR_MAX];
	char herr[HTTPD_ERR_MAX];
	struct serve_args sa_args;
	struct sigaction sa;
	int i, rc = 1, grpc_up = 0;

	memset(&o, 0, sizeof(o));
	memset(&sa_args, 0, sizeof(sa_args));
	sa_args.grace_s = 10;
	r = opt_parse(&serve_spec, argc, argv, &sa_args);
	if (r != OPT_OK)
		return opt_status(r);
	o.grace_s = sa_args.grace_s;
	listen = sa_args.listen;
	cfg_path = sa_args.cfg_path;
	prom = sa_args.prom;
	level = sa_args.level;
	format = sa_args.format;
	state_path = sa_args.state_path;
	metrics = sa_args.metrics;
	tls_cert = sa_args.tls_cert;
	tls_key = sa_args.tls_key;
	tls_ca = sa_args.tls_ca;
	config_init(&cfg);
	listen = config_env_or(listen, "STAFFER_LISTEN");
	level = config_env_or(level, "STAFFER_LOG_LEVEL");
	format = config_env_or(format, "STAFFER_LOG_FORMAT");
	state_path = config_env_or(state_path, "STAFFER_STATE_FILE");
	metrics = config_env_or(metrics, "STAFFER_METRICS_LISTEN");
	if (metrics && *metrics && httpd_check_addr(metrics, herr)) {
		fprintf(stderr, "staffer serve: --metrics-listen: %s\n", herr);
		return 2;
	}
	o.listen = listen ? listen : ":9090";
	if (level && log_set_level(level)) {
		fprintf(stderr, "staffer serve: log level '%s': allowed: "
			"debug, info, warn, error\n", level);
		return 2;
	}
	if (format && log_set_format(format)) {
		fprintf(stderr, "staffer serve: log format '%s': allowed: "
			"text, json\n", format);
		return 2;
	}
	if (budget_size(&sa_args, &budget_bytes))
		return 2;
	if (config_from_flags(&cfg, cfg_path, prom, err)) {
		fprintf(stderr, "staffer serve: %s\n", err);
		return 2;
	}
	shared = config_share(&cfg);
	if (!shared) {
		config_release(&cfg);
		fprintf(stderr, "staffer serve: out of memory\n");
		return 1;
	}
	warn_open_backends(shared);

	/* Installed before anything slow: a SIGHUP during start-up must not
	 * kill the process (the default action). */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (tls_cert || tls_key || tls_ca) {
		if (!tls_cert || !tls_key) {
			log_error("TLS needs both --tls-cert and --tls-key");
			goto out;
		}
		certs = certs_new(tls_cert, tls_key, tls_ca, err);
		if (!certs) {
			log_error("TLS: %s", err);
			goto out;
		}
		o.certs = certs;
		o.mtls = tls_ca != NULL;
	}
	if (check_clients(shared, o.mtls, err)) {
		log_error("%s", err);
		rc = 2;
		goto out;
	}

	/* Before any thread starts: glibc gives each thread that allocates
	 * its own arena (up to 8 per core), and gRPC's, the fetch thread's
	 * and the CQ thread's small allocations then hold a partly used heap
	 * each.  Two arenas keep the RSS of 10,000 triggers near what they
	 * use (docs/service-bench.md); the threads hardly contend. */
	mallopt(M_ARENA_MAX, 2);
	/* glibc returns the top of a heap to the kernel once more than 128 KiB
	 * of it is free, so the few hundred KiB that 32 calls in flight use
	 * went back and were faulted in again after every wave: half a page
	 * fault per cached GetMetrics and about twice the server CPU per call
	 * (docs/service-bench.md, "Where the time goes").  4 MiB keeps that
	 * working set; RSS is unchanged, as it holds the high-water mark
	 * anyway.  A user's own setting (MALLOC_TRIM_THRESHOLD_) wins. */
	if (!getenv("MALLOC_TRIM_THRESHOLD_"))
		mallopt(M_TRIM_THRESHOLD, SERVE_TRIM_THRESHOLD);
	/* What the threshold keeps, and the free pages between chunks in
	 * use, go back every MEMTRIM_PERIOD_S (memtrim.h): what a burst of
	 * streams or calls took is returned once it is over.  Without the
	 * thread, only RSS is higher. */
	trim = memtrim_start(MEMTRIM_PERIOD_S);
	if (!trim)
		log_warn("cannot start the heap trimmer; freed memory stays "
			 "resident");
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		log_error("curl_global_init failed");
		goto out;
	}
	grpc_init();
	grpc_up = 1;
	f = fetch_new();
	sc = f ? scaler_new(shared, f, state_path) : NULL;
	if (!sc) {
		log_error("cannot start the fetch thread");
		goto out;
	}
	st = stats_new();
	budget = budget_new(budget_bytes);
	if (!st || !budget) {
		log_error("out of memory");
		goto out;
	}
	o.stats = st;
	o.budget = budget;
	o.quota_bytes = budget_quota(budget_bytes);
	stats_watch_budget(st, budget);
	fetch_observe(f, stats_fetch_observer, st);
	if (certs)
		certs_observe(certs, stats_certs_observer, st);
	/* before the gRPC server: once created, it must run to shut down */
	if (metrics && *metrics) {
		web = httpd_start(metrics, st, f, herr);
		if (!web) {
			log_error("%s", herr);
			goto out;
		}
		log_info("metrics on http://%s/metrics", metrics);
	}
	rl.cfg_path = config_env_or(cfg_path, "STAFFER_CONFIG");
	rl.sc = sc;
	rl.certs = certs;
	rl.mtls = o.mtls;
	o.reload = &reload_requested;
	o.on_reload = serve_reload;
	o.reload_arg = &rl;
	srv = rpc_server_new(&o, sc, f, err);
	if (!srv) {
		log_error("%s", err);
		goto out;
	}
	for (i = 0; i < (int)shared->n_backends; i++)
		log_info("backend '%s' %s%s", shared->backends[i].name,
			 shared->backends[i].url,
			 (size_t)i == shared->default_backend ? " (default)" :
			 "");
	rc = rpc_server_run(srv, &stop_requested) ? 1 : 0;
out:
	/*
	 * Shutdown, in the order the threading contracts need (rpc.h,
	 * fetch.h, scaler.h):
	 *  1. rpc_server_run() stopped accepting and drained: it returns once
	 *     no call and no stream evaluation is live, so gRPC hands fetch
	 *     no new job (a late one is refused: fetch_submit() when
	 *     stopping).
	 *  2. /metrics stops: it reads the fetch counters and the stats.
	 *  3. fetch_stop() joins the fetch thread: no callback runs or can
	 *     start.  Draining is not enough: the callback that answered the
	 *     last call may still be returning from grpc_call_start_batch()
	 *     when the CQ thread sees the completion and rpc_server_run()
	 *     returns.
	 *  4. Only then is the RPC server freed (its queues, the stream
	 *     thread, the groups), then the scaler (its state saved), fetch,
	 *     stats, the config, gRPC and the TLS files: the reverse of
	 *     start-up.
	 */
	httpd_stop(web);
	if (trim) {
		unsigned long trims;
		double longest;

		memtrim_stats(trim, &trims, &longest);
		log_debug("heap trimmed %lu times, the longest %.2f ms", trims,
			  longest * 1e3);
		memtrim_stop(trim);
	}
	fetch_stop(f);
	rpc_server_free(srv);
	if (sc)
		scaler_save(sc);   /* after the last evaluation: the last states */
	scaler_free(sc);
	fetch_free(f);
	stats_free(st);
	budget_free(budget);            /* the calls that held it are gone */
	config_drop(shared);
	if (grpc_up)
		grpc_shutdown();
	certs_free(certs);          /* gRPC is done with its fetcher */
	curl_global_cleanup();
	if (rc == 0)
		log_info("bye");
	return rc;
}
