/*
 * certs.c - see certs.h.
 */
#include <pthread.h>   /* before gRPC's headers, which set feature macros */

#include "certs.h"

#include <grpc/grpc_security.h>

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "mono.h"
#include "slurp.h"

#define CERTS_CHECK_EVERY_S 1.0

/* What a file looked like when read: a change of any of these is a new
 * file (Kubernetes swaps a Secret volume's symlink; editors rename). */
struct certs_stamp {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

struct certs_pem {
	char *cert, *key, *ca;       /* NUL-terminated PEM text */
	struct certs_stamp st[3];
	double not_after;            /* the certificate's, Unix s */
};

struct certs {
	char *path[3];               /* cert, key, client CA (may be NULL) */
	pthread_mutex_t mu;
	struct certs_pem cur;        /* the last good files */
	int fresh;                   /* cur not yet handed to gRPC */
	double checked;              /* monotonic s of the last stat() */
	char refused[CERTS_ERR_MAX]; /* why the files on disk were refused
				      * last ("": not refused), so that a
				      * refusal is logged once, not at
				      * every check */
	certs_observe_fn *observe;   /* NULL: none */
	void *observe_arg;
};

static void pem_release(struct certs_pem *p)
{
	if (p->key)
		explicit_bzero(p->key, strlen(p->key));
	free(p->cert);
	free(p->key);
	free(p->ca);
	memset(p, 0, sizeof(*p));
}

/* The whole file, NUL-terminated, with its stamp.  NULL with err. */
static char *certs_slurp(const char *path, struct certs_stamp *st,
			 char err[CERTS_ERR_MAX])
{
	struct stat sb;
	size_t n;
	char *buf = slurp_file(path, CERTS_FILE_MAX, &n, &sb, err,
			       CERTS_ERR_MAX);

	if (buf) {
		st->dev = sb.st_dev;
		st->ino = sb.st_ino;
		st->size = sb.st_size;
		st->mtime = sb.st_mtim;
	}
	return buf;
}

/* The first certificate in PEM text; NULL if none. */
/* OpenSSL's passphrase callback: none.  Without one, an encrypted key
 * makes OpenSSL ask for it on the terminal and wait there, on a
 * handshake thread or at SIGHUP's reload; refused instead. */
static int certs_no_passphrase(char *buf, int size, int rwflag, void *u)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)u;
	return 0;
}

static X509 *pem_x509(const char *text)
{
	BIO *b = BIO_new_mem_buf(text, -1);
	X509 *x = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;

	BIO_free(b);
	return x;
}

/* An ASN.1 time as Unix seconds into *t; 0, or -1 when it does not
 * convert. */
static int asn1_unix(const ASN1_TIME *a, double *t)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	if (!a || ASN1_TIME_to_tm(a, &tm) != 1)
		return -1;
	*t = (double)timegm(&tm);
	return 0;
}

/* t (Unix s) as "2025-01-31T12:00:00Z" into buf[32]. */
static const char *utc_text(double t, char buf[32])
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ",
					     &tm))
		snprintf(buf, 32, "%.0f", t);
	return buf;
}

/* The certificate x is valid now: not expired, not valid only later.  A
 * pair outside its validity fails every handshake, so it is refused like
 * a broken one (a clock far off shows here too).  0, or -1 with err and
 * *why; *not_after set either way when it converts. */
static int certs_valid_now(const struct certs *c, X509 *x, double *not_after,
			   enum certs_result *why, char err[CERTS_ERR_MAX])
{
	double nb, na, now = (double)time(NULL);
	char t[32];

	if (asn1_unix(X509_get0_notBefore(x), &nb) ||
	    asn1_unix(X509_get0_notAfter(x), &na)) {
		*why = CERTS_R_INVALID;
		snprintf(err, CERTS_ERR_MAX, "'%s': the certificate's validity "
			 "dates do not read", c->path[0]);
		return -1;
	}
	*not_after = na;
	if (now >= na) {
		*why = CERTS_R_EXPIRED;
		snprintf(err, CERTS_ERR_MAX, "'%s': the certificate expired at "
			 "%s (notAfter); a pair outside its validity is "
			 "refused", c->path[0], utc_text(na, t));
		return -1;
	}
	if (now < nb) {
		*why = CERTS_R_NOT_YET_VALID;
		snprintf(err, CERTS_ERR_MAX, "'%s': the certificate is not "
			 "valid before %s (notBefore); a pair outside its "
			 "validity is refused (is the clock right?)",
			 c->path[0], utc_text(nb, t));
		return -1;
	}
	return 0;
}

/* Check what gRPC would otherwise find out at a handshake: PEM that
 * parses, a key that belongs to the (first) certificate, and that
 * certificate valid now.  Sets p->not_after; *why says which check
 * failed. */
static int certs_check(const struct certs *c, struct certs_pem *p,
		       enum certs_result *why, char err[CERTS_ERR_MAX])
{
	BIO *b = NULL;
	X509 *x = NULL, *ca = NULL;
	EVP_PKEY *k = NULL;
	int rc = -1;

	*why = CERTS_R_INVALID;
	x = pem_x509(p->cert);
	if (!x) {
		snprintf(err, CERTS_ERR_MAX, "'%s' holds no PEM certificate",
			 c->path[0]);
		goto out;
	}
	b = BIO_new_mem_buf(p->key, -1);
	k = b ? PEM_read_bio_PrivateKey(b, NULL, certs_no_passphrase, NULL)
	      : NULL;
	BIO_free(b);
	if (!k) {
		snprintf(err, CERTS_ERR_MAX, "'%s' holds no PEM private key "
			 "(or an encrypted one)", c->path[1]);
		goto out;
	}
	if (X509_check_private_key(x, k) != 1) {
		snprintf(err, CERTS_ERR_MAX, "the key '%s' does not belong to "
			 "the certificate '%s'", c->path[1], c->path[0]);
		goto out;
	}
	if (p->ca && !(ca = pem_x509(p->ca))) {
		snprintf(err, CERTS_ERR_MAX, "'%s' holds no PEM certificate",
			 c->path[2]);
		goto out;
	}
	if (certs_valid_now(c, x, &p->not_after, why, err))
		goto out;
	*why = CERTS_R_TAKEN;
	rc = 0;
out:
	X509_free(x);
	X509_free(ca);
	EVP_PKEY_free(k);
	return rc;
}

/* Read and check every file into p.  0, or -1 with err and *why (p
 * empty). */
static int certs_read(const struct certs *c, struct certs_pem *p,
		      enum certs_result *why, char err[CERTS_ERR_MAX])
{
	*why = CERTS_R_INVALID;
	memset(p, 0, sizeof(*p));
	p->cert = certs_slurp(c->path[0], &p->st[0], err);
	p->key = p->cert ? certs_slurp(c->path[1], &p->st[1], err) : NULL;
	if (!p->key)
		goto fail;
	if (c->path[2]) {
		p->ca = certs_slurp(c->path[2], &p->st[2], err);
		if (!p->ca)
			goto fail;
	}
	if (certs_check(c, p, why, err))
		goto fail;
	return 0;
fail:
	pem_release(p);
	return -1;
}

static int stamp_same(const struct certs_stamp *a, const char *path)
{
	struct stat sb;

	if (!path)
		return 1;
	if (stat(path, &sb))
		return 1;        /* gone for a moment (a swap): keep what we have */
	return a->dev == sb.st_dev && a->ino == sb.st_ino &&
	       a->size == sb.st_size &&
	       a->mtime.tv_sec == sb.st_mtim.tv_sec &&
	       a->mtime.tv_nsec == sb.st_mtim.tv_nsec;
}

/* Tell the observer (c->mu held). */
static void certs_tell(struct certs *c, enum certs_result r, double not_after)
{
	if (c->observe)
		c->observe(c->observe_arg, r, not_after);
}

/* Re-read when forced or when a file changed; c->mu held.  As
 * certs_reload(), and *quiet set when a refusal is the one seen last (so
 * that the caller logs it once).  Refused files keep their stamps out of
 * cur, so they are read again at the next check: a pair not valid yet is
 * taken once it is. */
static int certs_refresh(struct certs *c, int force, int *quiet,
			 char err[CERTS_ERR_MAX])
{
	struct certs_pem p;
	enum certs_result why;
	int i, same = 1;

	*quiet = 0;
	c->checked = mono_now();
	for (i = 0; i < 3; i++)
		same = same && stamp_same(&c->cur.st[i], c->path[i]);
	if (same && !force)
		return 0;
	if (certs_read(c, &p, &why, err)) {
		*quiet = !force && !strcmp(err, c->refused);
		if (!*quiet)
			certs_tell(c, why, 0);
		snprintf(c->refused, sizeof(c->refused), "%s", err);
		return -1;
	}
	c->refused[0] = '\0';
	if (!strcmp(p.cert, c->cur.cert) && !strcmp(p.key, c->cur.key) &&
	    (!p.ca || !strcmp(p.ca, c->cur.ca))) {
		/* same content, new stamps: remember them, nothing new */
		memcpy(c->cur.st, p.st, sizeof(p.st));
		pem_release(&p);
		return 0;
	}
	pem_release(&c->cur);
	c->cur = p;
	c->fresh = 1;
	certs_tell(c, CERTS_R_TAKEN, c->cur.not_after);
	return 1;
}

/* gRPC's fetcher: at each new handshake (the first during server start). */
static grpc_ssl_certificate_config_reload_status
certs_fetch(void *arg, grpc_ssl_server_certificate_config **config)
{
	struct certs *c = arg;
	grpc_ssl_certificate_config_reload_status rc =
		GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_UNCHANGED;
	grpc_ssl_pem_key_cert_pair pair;
	char err[CERTS_ERR_MAX];
	int r, quiet;

	pthread_mutex_lock(&c->mu);
	if (mono_now() - c->checked >= CERTS_CHECK_EVERY_S) {
		r = certs_refresh(c, 0, &quiet, err);
		if (r > 0)
			log_info("TLS: new certificate files '%s' taken",
				 c->path[0]);
		else if (r < 0 && !quiet)
			log_error("TLS: %s; keeping the certificate in use",
				  err);
	}
	if (c->fresh) {
		pair.cert_chain = c->cur.cert;
		pair.private_key = c->cur.key;
		/* gRPC 1.51 asserts root certificates in a fetched config
		 * even when it asks for no client certificate; then they
		 * are never used, and the server's own chain will do. */
		*config = grpc_ssl_server_certificate_config_create(
			c->cur.ca ? c->cur.ca : c->cur.cert, &pair, 1);
		if (*config) {
			c->fresh = 0;
			rc = GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_NEW;
		} else {
			rc = GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_FAIL;
		}
	}
	pthread_mutex_unlock(&c->mu);
	return rc;
}

struct certs *certs_new(const char *cert, const char *key,
			const char *client_ca, char err[CERTS_ERR_MAX])
{
	struct certs *c = calloc(1, sizeof(*c));
	const char *paths[3] = { cert, key, client_ca };
	enum certs_result why;
	int i;

	if (!c) {
		snprintf(err, CERTS_ERR_MAX, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&c->mu, NULL);
	for (i = 0; i < 3; i++) {
		if (paths[i] && !(c->path[i] = strdup(paths[i]))) {
			snprintf(err, CERTS_ERR_MAX, "out of memory");
			goto fail;
		}
	}
	if (certs_read(c, &c->cur, &why, err))
		goto fail;
	c->fresh = 1;
	c->checked = mono_now();
	return c;
fail:
	certs_free(c);
	return NULL;
}

grpc_server_credentials *certs_credentials(struct certs *c)
{
	grpc_ssl_server_credentials_options *o;

	o = grpc_ssl_server_credentials_create_options_using_config_fetcher(
		c->path[2] ?
		GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY :
		GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE, certs_fetch, c);
	return o ? grpc_ssl_server_credentials_create_with_options(o) : NULL;
}

int certs_reload(struct certs *c, char err[CERTS_ERR_MAX])
{
	int r, quiet;

	pthread_mutex_lock(&c->mu);
	r = certs_refresh(c, 1, &quiet, err);
	pthread_mutex_unlock(&c->mu);
	return r;
}

void certs_observe(struct certs *c, certs_observe_fn *fn, void *arg)
{
	pthread_mutex_lock(&c->mu);
	c->observe = fn;
	c->observe_arg = arg;
	certs_tell(c, CERTS_R_IN_USE, c->cur.not_after);
	pthread_mutex_unlock(&c->mu);
}

const char *certs_result_name(enum certs_result r)
{
	switch (r) {
	case CERTS_R_IN_USE:
		return "in_use";
	case CERTS_R_TAKEN:
		return "taken";
	case CERTS_R_EXPIRED:
		return "expired";
	case CERTS_R_NOT_YET_VALID:
		return "not_yet_valid";
	case CERTS_R_INVALID:
		return "invalid";
	case CERTS_R_COUNT:
		break;
	}
	return "unknown";
}

void certs_free(struct certs *c)
{
	int i;

	if (!c)
		return;
	pem_release(&c->cur);
	for (i = 0; i < 3; i++)
		free(c->path[i]);
	pthread_mutex_destroy(&c->mu);
	free(c);
}
