/*
 * config.h - staffer's own configuration: the metrics backends.
 *
 * Credentials live here, never in ScaledObject metadata (docs/config.md
 * and SECURITY.md say why): tenants can only pick a declared backend by
 * name.  The file is JSON; see
 * docs/config.md.  Without a file, `serve --prometheus URL` makes a single
 * backend named "default".
 *
 * Loading happens once at start-up on the main thread; afterwards a config
 * is read-only and may be shared between threads.
 */
#ifndef STAFFER_CONFIG_H
#define STAFFER_CONFIG_H

#include <stddef.h>

#define CONFIG_NAME_MAX 64
#define CONFIG_ERR_MAX 512
#define CONFIG_BACKENDS_MAX 64
#define CONFIG_HEADERS_MAX 16
#define CONFIG_FILE_MAX (1024 * 1024)

enum config_auth {
	CONFIG_AUTH_NONE = 0,
	CONFIG_AUTH_BEARER,   /* token read from bearer_token_file */
	CONFIG_AUTH_BASIC,    /* user and password read from files */
	CONFIG_AUTH_SIGV4,    /* AWS SigV4 (Amazon Managed Prometheus) */
};

struct backend {
	char name[CONFIG_NAME_MAX];
	char *url;                 /* base URL, no trailing slash */
	enum config_auth auth;
	char *bearer_token_file;
	char *basic_user_file, *basic_password_file;
	char *sigv4_region;        /* e.g. "us-east-1" */
	char *ca_file;             /* CA bundle for https */
	char *cert_file, *key_file;/* TLS client certificate */
	char *headers[CONFIG_HEADERS_MAX]; /* "Name: value" */
	size_t n_headers;
	double timeout_s;          /* per HTTP request, default 2 s */
};

struct config {
	struct backend *backends;
	size_t n_backends;
	size_t default_backend;    /* index into backends */
	double cache_ttl_s;        /* reuse a backend answer this long (5 s) */
	size_t max_body_bytes;     /* cap on one response body (4 MiB) */
};

#define CONFIG_INIT { NULL, 0, 0, 5.0, 4u << 20 }

void config_init(struct config *c);
void config_release(struct config *c);

/*
 * Load a JSON config file into c (which must be config_init()ed and empty).
 * Returns 0, or -1 with a message in err naming the file, the field and
 * what is allowed; on error c is left empty.
 */
int config_load_file(struct config *c, const char *path,
		     char err[CONFIG_ERR_MAX]);

/* Parse config JSON text (as config_load_file, for tests): NUL-terminated,
 * at most CONFIG_FILE_MAX bytes; errors name it as origin (may be NULL). */
int config_load_text(struct config *c, const char *text, const char *origin,
		     char err[CONFIG_ERR_MAX]);

/* A one-backend config named "default" for `--prometheus URL`, with the
 * same URL checks as the file; errors start with "--prometheus: ". */
int config_from_url(struct config *c, const char *url,
		    char err[CONFIG_ERR_MAX]);

/* A flag's value v, or, when v is NULL, environment variable env's when
 * set and not empty, else NULL.  Start-up only (getenv). */
const char *config_env_or(const char *v, const char *env);

/*
 * The backends as `serve` and `explain` take them: --config FILE (path;
 * NULL: env STAFFER_CONFIG) or --prometheus URL (url; NULL: env
 * STAFFER_PROMETHEUS), exactly one of the two.  Returns 0, or -1 with a
 * message in err (both, neither, or the load's own error); c as for
 * config_load_file.  Reads the environment: start-up only.
 */
int config_from_flags(struct config *c, const char *path, const char *url,
		      char err[CONFIG_ERR_MAX]);

/* The backend called name, the default one for NULL, or NULL if unknown. */
const struct backend *config_backend(const struct config *c,
				     const char *name);

#endif
