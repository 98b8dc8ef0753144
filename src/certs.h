/*
 * certs.h - the gRPC server's TLS files, re-read when they change.
 *
 * cert-manager renews a Certificate by rewriting the mounted Secret; the
 * server must then present the new certificate without a restart and
 * without dropping KEDA's connections.  gRPC core asks a certificate
 * config fetcher (grpc_ssl_server_credentials_create_options_using_config_
 * fetcher) for the files at each new TLS handshake; certs answers it from
 * memory, re-reading the files when their size, time or inode changed (at
 * most once a second) or when certs_reload() asks.  New files are used
 * only once they parse, the key matches the certificate (OpenSSL) and the
 * certificate is valid now (neither expired nor valid only later); bad
 * files are logged once and the last good ones stay.  Connections already open
 * keep the certificate they were made with.
 *
 * Threading: the fetcher runs on gRPC's threads, certs_reload() on any;
 * a mutex guards the state.
 */
#ifndef STAFFER_CERTS_H
#define STAFFER_CERTS_H

/* gRPC's type (grpc/grpc_security.h), declared here so that modules that
 * only observe certs (stats.h) need no gRPC header. */
typedef struct grpc_server_credentials grpc_server_credentials;

#define CERTS_ERR_MAX 512
#define CERTS_FILE_MAX (1u << 20)  /* bytes of one PEM file */

struct certs;

/*
 * What became of TLS files read (certs_observe()), a closed set:
 *   in_use         the pair served now (told once, at certs_observe())
 *   taken          a new pair, served to new connections from now on
 *   expired        refused: the certificate's notAfter has passed
 *   not_yet_valid  refused: its notBefore is still to come
 *   invalid        refused: not PEM, a key that does not match, ...
 * A refusal keeps the pair in use; the files are read again at the next
 * check (a pair not valid yet is taken once it is).
 */
enum certs_result {
	CERTS_R_IN_USE,
	CERTS_R_TAKEN,
	CERTS_R_EXPIRED,
	CERTS_R_NOT_YET_VALID,
	CERTS_R_INVALID,
	CERTS_R_COUNT
};

/* The label value of r ("taken", ...). */
const char *certs_result_name(enum certs_result r);

/* Called under certs' lock (so it must take no lock but a leaf of its
 * own, stats.h's) with the result and, for in_use and taken, the
 * certificate's notAfter (Unix s; 0 otherwise).  A refusal seen again at
 * the next check is told once. */
typedef void certs_observe_fn(void *arg, enum certs_result r,
			      double not_after);

/*
 * Load and check cert (chain) and key, and the client CA (NULL: no client
 * certificates asked for; else they are required: mTLS).  NULL with a
 * message in err naming the file and what is wrong (a certificate
 * outside its validity included: it would fail every handshake).
 */
struct certs *certs_new(const char *cert, const char *key,
			const char *client_ca, char err[CERTS_ERR_MAX]);

/* Server credentials that take their files from c through gRPC's fetcher.
 * c must outlive them (and the server).  NULL when gRPC refuses. */
grpc_server_credentials *certs_credentials(struct certs *c);

/*
 * Re-read the files now (SIGHUP).  1: new files taken (the next handshake
 * uses them); 0: unchanged; -1: bad files, with the reason in err, the
 * last good ones kept.
 */
int certs_reload(struct certs *c, char err[CERTS_ERR_MAX]);

/* Install the observer (NULL: none) and tell it the pair in use now. */
void certs_observe(struct certs *c, certs_observe_fn *fn, void *arg);

/* Free c after the server is destroyed.  NULL is fine. */
void certs_free(struct certs *c);

#endif
