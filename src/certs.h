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
 * only once they parse and the key matches the certificate (OpenSSL); bad
 * files are logged and the last good ones stay.  Connections already open
 * keep the certificate they were made with.
 *
 * Threading: the fetcher runs on gRPC's threads, certs_reload() on any;
 * a mutex guards the state.
 */
#ifndef STAFFER_CERTS_H
#define STAFFER_CERTS_H

#include <grpc/grpc_security.h>

#define CERTS_ERR_MAX 512
#define CERTS_FILE_MAX (1u << 20)  /* bytes of one PEM file */

struct certs;

/*
 * Load and check cert (chain) and key, and the client CA (NULL: no client
 * certificates asked for; else they are required: mTLS).  NULL with a
 * message in err naming the file and what is wrong.
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

/* Free c after the server is destroyed.  NULL is fine. */
void certs_free(struct certs *c);

#endif
