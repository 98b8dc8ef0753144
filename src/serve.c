/*
 * serve.c - `staffer serve`: flags, start-up and orderly shutdown.
 *
 * Start-up order: config, fetch thread, scaler, gRPC server.  Shutdown runs
 * it backwards once rpc_server_run returns (SIGTERM or SIGINT).
 */
#include <curl/curl.h>
#include <grpc/grpc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "fetch.h"
#include "httpd.h"
#include "log.h"
#include "meta.h"
#include "rpc.h"
#include "scaler.h"
#include "stats.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
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
"                        STAFFER_METRICS_LISTEN)\n");
}

int cmd_serve(int argc, char **argv)
{
	const char *listen = NULL, *cfg_path = NULL, *prom = NULL;
	const char *level = NULL, *state_path = NULL, *metrics = NULL;
	const char *format = NULL;
	struct rpc_options o;
	struct config cfg;
	struct fetch *f = NULL;
	struct scaler *sc = NULL;
	struct rpc_server *srv = NULL;
	struct stats *st = NULL;
	struct httpd *web = NULL;
	char err[CONFIG_ERR_MAX > RPC_ERR_MAX ? CONFIG_ERR_MAX : RPC_ERR_MAX];
	char herr[HTTPD_ERR_MAX];
	struct sigaction sa;
	int i, rc = 1, grpc_up = 0;

	memset(&o, 0, sizeof(o));
	o.grace_s = 10;
	config_init(&cfg);
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!v || strncmp(a, "--", 2)) {
			fprintf(stderr, "staffer serve: unexpected '%s'\n", a);
			usage(stderr);
			return 2;
		}
		i++;
		if (!strcmp(a, "--listen")) {
			listen = v;
		} else if (!strcmp(a, "--config")) {
			cfg_path = v;
		} else if (!strcmp(a, "--prometheus")) {
			prom = v;
		} else if (!strcmp(a, "--log-level")) {
			level = v;
		} else if (!strcmp(a, "--log-format")) {
			format = v;
		} else if (!strcmp(a, "--grace-seconds")) {
			if (meta_parse_double(v, &o.grace_s) || o.grace_s < 0 ||
			    o.grace_s > 3600) {
				fprintf(stderr, "staffer serve: --grace-seconds "
					"'%s': allowed: 0 to 3600\n", v);
				return 2;
			}
		} else if (!strcmp(a, "--state-file")) {
			state_path = v;
		} else if (!strcmp(a, "--metrics-listen")) {
			metrics = v;
		} else if (!strcmp(a, "--tls-cert")) {
			o.tls_cert = v;
		} else if (!strcmp(a, "--tls-key")) {
			o.tls_key = v;
		} else if (!strcmp(a, "--tls-client-ca")) {
			o.tls_client_ca = v;
		} else {
			fprintf(stderr, "staffer serve: unknown option '%s'\n",
				a);
			usage(stderr);
			return 2;
		}
	}
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
	if (config_from_flags(&cfg, cfg_path, prom, err)) {
		fprintf(stderr, "staffer serve: %s\n", err);
		return 2;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		log_error("curl_global_init failed");
		goto out;
	}
	grpc_init();
	grpc_up = 1;
	f = fetch_new(&cfg);
	sc = f ? scaler_new(&cfg, f, state_path) : NULL;
	if (!sc) {
		log_error("cannot start the fetch thread");
		goto out;
	}
	st = stats_new();
	if (!st) {
		log_error("out of memory");
		goto out;
	}
	o.stats = st;
	fetch_observe(f, stats_fetch_observer, st);
	/* before the gRPC server: once created, it must run to shut down */
	if (metrics && *metrics) {
		web = httpd_start(metrics, st, f, herr);
		if (!web) {
			log_error("%s", herr);
			goto out;
		}
		log_info("metrics on http://%s/metrics", metrics);
	}
	srv = rpc_server_new(&o, sc, f, err);
	if (!srv) {
		log_error("%s", err);
		goto out;
	}
	for (i = 0; i < (int)cfg.n_backends; i++)
		log_info("backend '%s' %s%s", cfg.backends[i].name,
			 cfg.backends[i].url,
			 (size_t)i == cfg.default_backend ? " (default)" : "");
	rc = rpc_server_run(srv, &stop_requested) ? 1 : 0;
out:
	httpd_stop(web);         /* it reads the fetch counters: first */
	rpc_server_free(srv);
	fetch_stop(f);
	if (sc)
		scaler_save(sc);   /* the fetch thread is gone: no race */
	scaler_free(sc);
	fetch_free(f);
	stats_free(st);
	config_release(&cfg);
	if (grpc_up)
		grpc_shutdown();
	curl_global_cleanup();
	if (rc == 0)
		log_info("bye");
	return rc;
}
