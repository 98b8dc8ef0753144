/*
 * config.h - staffer's own configuration: the metrics backends.
 *
 * Credentials live here, never in ScaledObject metadata (docs/config.md
 * and SECURITY.md say why): tenants can only pick a declared backend by
 * name.  The file is JSON; see
 * docs/config.md.  Without a file, `serve --prometheus URL` makes a single
 * backend named "default".
 *
 * A config is loaded on the main thread; afterwards it is read-only and
 * may be shared between threads.  `serve` reloads the file on SIGHUP: the
 * new config is built beside the old one, and config_share() makes it a
 * reference-counted object, so that evaluations and cached answers still
 * using the old backends keep them until they are done (see
 * config_hold()).
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

/* When a request asks for a compressed reply (docs/config.md,
 * "compression"): by its expected size, always, or never. */
enum config_compression {
	CONFIG_COMPRESS_AUTO = 0,
	CONFIG_COMPRESS_ALWAYS,
	CONFIG_COMPRESS_NEVER,
};

#define CONFIG_SETTLE_DEFAULT 60.0  /* rangeSettleSeconds */
#define CONFIG_SETTLE_MAX 86400.0

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
	double timeout_s;          /* per HTTP request, counted from when it
				    * is sent, default 2 s */
	/* Namespaces whose ScaledObjects may use this backend: names, or
	 * patterns with '*' (fnmatch(3)).  n_namespaces 0: every namespace. */
	char **namespaces;
	size_t n_namespaces;
	int max_connections;       /* requests in flight at once (16) */
	int max_connections_ns;    /* ... of them for one namespace (half) */
	int max_connections_caller;/* ... for one caller (all but one) */
	enum config_compression compression; /* Accept-Encoding (fetch.c) */
	double range_settle_s;     /* a range point fetched this long after
				    * its time is final (series.h); <= 0:
				    * CONFIG_SETTLE_DEFAULT */
};

/*
 * The answer cache's default TTL, chosen from KEDA's cycle: the HPA reads
 * a metric every 15 s, and fetch.c refreshes an answer in use before the
 * TTL ends (fetch.h: at 17 s with the default 2-s timeout, at least 0.75
 * of the TTL), so KEDA always finds it warm at less than one backend
 * query per HPA cycle.  An answer is never older than the TTL
 * (docs/config.md).
 */
#define CONFIG_TTL_DEFAULT 20.0

/* How a client certificate names its holder (config_client()). */
enum config_id_kind {
	CONFIG_ID_URI,     /* a URI SAN, e.g. a SPIFFE ID */
	CONFIG_ID_DNS,     /* a DNS SAN (compared ignoring case) */
	CONFIG_ID_CN,      /* the subject's common name */
};

/* One client that may call under mTLS (the config's `clients`), and the
 * namespaces it may claim. */
struct config_client {
	enum config_id_kind kind;
	char *id;
	char **namespaces;         /* patterns as a backend's; n 0: any */
	size_t n_namespaces;
};

/* What a verified client certificate says of its holder (rpc.c reads it
 * from gRPC's auth context); borrowed strings. */
struct config_peer {
	const char *const *uri;    /* URI SANs */
	size_t n_uri;
	const char *const *dns;    /* DNS SANs */
	size_t n_dns;
	const char *cn;            /* the subject's CN, or NULL */
};

struct config {
	struct backend *backends;
	size_t n_backends;
	size_t default_backend;    /* index into backends */
	double cache_ttl_s;        /* reuse a backend answer this long */
	size_t max_body_bytes;     /* cap on one response body (4 MiB) */
	size_t max_states;         /* triggers with smoothing state (100000) */
	size_t max_states_ns;      /* ... of one (caller, namespace) (10000) */
	size_t max_states_caller;  /* ... of one caller (half of max_states) */
	/* The mTLS allowlist: n_clients 0 lets any certificate the client CA
	 * signed call (docs/security.md). */
	struct config_client *clients;
	size_t n_clients;
	int shared;                /* made by config_share(); immutable */
	long refs;                 /* references to a shared one */
};

#define CONFIG_STATES_DEFAULT 100000
#define CONFIG_STATES_NS_DEFAULT 10000
#define CONFIG_NAMESPACES_MAX 256   /* entries of one backend's list */
#define CONFIG_CONNECTIONS_MAX 256
#define CONFIG_CONNECTIONS_DEFAULT 16

#define CONFIG_CLIENTS_MAX 256     /* entries of `clients` */

#define CONFIG_INIT { NULL, 0, 0, CONFIG_TTL_DEFAULT, 4u << 20, CONFIG_STATES_DEFAULT, \
		      CONFIG_STATES_NS_DEFAULT, CONFIG_STATES_DEFAULT / 2, NULL, \
		      0, 0, 0 }

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

/*
 * Move *c into a new shared config with one reference (the caller's); c is
 * left empty.  NULL when out of memory (c untouched).
 */
struct config *config_share(struct config *c);

/* One more reference to c; returns c.  A config that was not made by
 * config_share() (refs 0) is not counted: its owner keeps it alive.
 * Any thread. */
struct config *config_hold(struct config *c);

/* Drop a reference; the last one releases and frees c.  NULL and configs
 * not made by config_share() are ignored.  Any thread. */
void config_drop(struct config *c);

/* Whether ScaledObjects of namespace ns may use backend be (its
 * `namespaces` list; every namespace when there is none). */
int config_namespace_ok(const struct backend *be, const char *ns);

/* The first entry of c's `clients` whose identity p has (in the order
 * they are listed), or NULL: none, or no `clients` at all (n_clients 0;
 * the caller decides what that means).  Pure. */
const struct config_client *config_client(const struct config *c,
					  const struct config_peer *p);

/* Whether client cl may claim namespace ns (its `namespaces`; every
 * namespace when there is none). */
int config_client_ns_ok(const struct config_client *cl, const char *ns);

/* "uri", "dns" or "cn". */
const char *config_id_kind_name(enum config_id_kind k);

/* The backend called name, the default one for NULL, or NULL if unknown. */
const struct backend *config_backend(const struct config *c,
				     const char *name);

/* What config_use() says of a trigger's backend. */
enum config_use {
	CONFIG_USE_OK = 0,
	CONFIG_USE_UNDECLARED,  /* no backend of that name (metadata error) */
	CONFIG_USE_DENIED,      /* the namespace is not on its list */
};

/*
 * May a trigger of namespace ns (NULL: not checked) use the backend named
 * name (NULL: the default)?  Unless CONFIG_USE_OK, msg[size] holds the
 * sentence the server answers (the same for `staffer lint`): the names
 * declared, or the namespace and the backend.  Pure.
 */
enum config_use config_use(const struct config *c, const char *name,
			   const char *ns, char *msg, size_t size);

#endif
