/*
 * awscred.h - AWS credentials for SigV4 (Amazon Managed Prometheus), from
 * the standard chain on a pod, refreshed before they expire.
 *
 * The chain, first match wins (the AWS SDKs' order, without the shared
 * files and the node's IMDS role, which a pod should not borrow):
 *
 *   1. environment   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and optional
 *                    AWS_SESSION_TOKEN; read at every use, never expire.
 *   2. web identity  (IRSA) AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN,
 *                    optional AWS_ROLE_SESSION_NAME (default "staffer"):
 *                    an unsigned STS AssumeRoleWithWebIdentity POST to
 *                    AWS_ENDPOINT_URL_STS, else to the regional endpoint
 *                    https://sts.REGION.amazonaws.com/ (REGION: AWS_REGION,
 *                    AWS_DEFAULT_REGION, else the backend's region).  The
 *                    token file is read at each refresh (it rotates).
 *   3. container     (EKS Pod Identity, ECS) AWS_CONTAINER_CREDENTIALS_
 *                    FULL_URI, or _RELATIVE_URI under http://169.254.170.2,
 *                    with the header "Authorization: <token>" from
 *                    AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE (read at each
 *                    refresh) or AWS_CONTAINER_AUTHORIZATION_TOKEN.  A
 *                    plain-http FULL_URI must be a loopback or one of AWS's
 *                    link-local agents, so that the token cannot be sent
 *                    elsewhere.
 *
 * Temporary credentials are refreshed once fewer than AWSCRED_REFRESH_S
 * remain, in the background: the old ones sign until they expire.  The
 * source is asked at most once per AWSCRED_RETRY_S (credentials that live
 * less than AWSCRED_REFRESH_S do not cause a storm), and after a failed
 * refresh callers get its reason until the next attempt.
 *
 * The refresh is one libcurl easy handle that the caller drives on its own
 * multi handle (fetch.c's thread), so a slow STS holds up only the queries
 * that need credentials.  awscred owns that handle; the caller adds it to
 * its multi, removes it when done, and hands it back with awscred_done() or
 * awscred_cancel().
 *
 * Threading: a struct awscred_src belongs to one thread (the fetch thread).
 * The parsers are pure and thread-safe.  Errors: one sentence in why[].
 */
#ifndef STAFFER_AWSCRED_H
#define STAFFER_AWSCRED_H

#include <curl/curl.h>
#include <stddef.h>

#define AWSCRED_KEY_MAX 256        /* bytes of an access key id or secret */
#define AWSCRED_TOKEN_MAX 4096     /* bytes of a session token */
#define AWSCRED_BODY_MAX 65536     /* bytes of an STS or container reply */
#define AWSCRED_REFRESH_S 300.0    /* refresh this long before expiry */
#define AWSCRED_RETRY_S 10.0       /* after a failed refresh, wait this */
#define AWSCRED_TIMEOUT_S 10.0     /* one refresh request, at most */
#define AWSCRED_ERR_MAX 384        /* bytes of a reason, with NUL */

/* One set of credentials. */
struct awscred {
	char id[AWSCRED_KEY_MAX + 1];
	char secret[AWSCRED_KEY_MAX + 1];
	char token[AWSCRED_TOKEN_MAX + 1];   /* "" when none */
	double expires;                      /* Unix time; 0: never */
};

/* What awscred_get() found. */
enum awscred_state {
	AWSCRED_READY,      /* *out holds credentials to sign with */
	AWSCRED_WAIT,       /* a refresh is in flight: ask after awscred_done */
	AWSCRED_FAIL,       /* none to be had now: why says why */
};

struct awscred_src;

/* A source with nothing cached.  NULL when out of memory. */
struct awscred_src *awscred_new(void);

/* Cancel nothing (the caller must have handed back the handle) and free.
 * NULL is fine. */
void awscred_free(struct awscred_src *s);

/*
 * Start a refresh when one is due (nothing cached, or fewer than
 * AWSCRED_REFRESH_S left), none is in flight and the last attempt is
 * older than AWSCRED_RETRY_S.  region names the STS endpoint when the
 * environment does not.  now is Unix time.  Returns the handle to add to
 * the caller's multi, or NULL: nothing to do, or the refresh could not
 * start (the reason is then what awscred_get() reports).
 */
CURL *awscred_refresh(struct awscred_src *s, const char *region, double now);

/* The credentials to sign with at Unix time now: READY with *out set,
 * WAIT, or FAIL with why (one sentence, NUL-terminated). */
enum awscred_state awscred_get(struct awscred_src *s, double now,
			       struct awscred *out, char *why,
			       size_t whylen);

/* The refresh handle finished with res (already removed from the multi):
 * parse the reply and free the handle.  0 when fresh credentials were
 * stored, -1 when the refresh failed (awscred_get() says why) or easy is
 * not the refresh in flight. */
int awscred_done(struct awscred_src *s, CURL *easy, CURLcode res,
		 double now);

/* Free a refresh handle that will not finish (shutdown). */
void awscred_cancel(struct awscred_src *s, CURL *easy);

/* ---- pure parts, exposed for tests -------------------------------------- */

/*
 * Parse STS's AssumeRoleWithWebIdentity reply (XML): 0 with *out set from
 * <Credentials>; -1 with why, for an <Error> reply naming its Code and
 * Message, or for a reply without the four fields.
 */
int awscred_parse_sts(const char *body, size_t len, struct awscred *out,
		      char *why, size_t whylen);

/* Parse a container credentials reply (JSON: AccessKeyId, SecretAccessKey,
 * Token, Expiration).  Without Expiration, now + 15 minutes is assumed.
 * 0 with *out set, or -1 with why. */
int awscred_parse_container(const char *body, size_t len, double now,
			    struct awscred *out, char *why, size_t whylen);

/* "2026-11-22T20:00:00Z" (fraction and "+00:00" allowed) as Unix time.
 * 0 and *out, or -1. */
int awscred_parse_time(const char *s, double *out);

/* Whether a container credentials URL may carry the authorization token:
 * https, or http to a numeric loopback address (127.0.0.0/8, [::1]),
 * localhost, 169.254.170.2, 169.254.170.23 or [fd00:ec2::23], the host
 * as curl parses it; never with user information ("user@"). */
int awscred_url_allowed(const char *url);

#endif
